/*
 * core/compiler/compile.c - tvm_compile: a graph and a target in, an
 * execution plan out.
 *
 *   fold_constants -> simplify_inference -> alter_layout (the target's
 *   layouts; fold_constants again packs the weights) -> cse -> dce
 *   fuse_ops (or one group per node)                       (groups)
 *   per group: compute -> schedule -> tvm_lower            (kernels.c)
 *   one tvm_target_codegen of the whole module
 *   plan_memory (storage slots; one per activation when disabled)
 *   plan: values (inputs, outputs, parameters, activations), steps
 *
 * --dump-ir: a graph pass prints the graph after itself ("// after NAME"),
 * plan_memory prints its slots, lowering passes print each kernel's loop
 * IR; "all" prints everything.  The progress callback ticks once per
 * group lowered.
 */
#include <string.h>

#include "compiler_int.h"

static const char *const graph_pass_names[] = {"fold_constants",
                                               "simplify_inference",
                                               "alter_layout",
                                               "cse",
                                               "dce",
                                               "fuse_ops",
                                               "plan_memory",
                                               NULL};

void tvm_compile_options_init(tvm_compile_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->fuse = 1;
  o->plan_memory = 1;
  o->alter_layout = 1;
}

static FILE *dump_file(const tvm_compile_options *o) {
  return o->dump_to ? o->dump_to : stdout;
}

/* Is pass `name` asked for by --dump-ir? */
static int dump_wanted(const tvm_compile_options *o, const char *name) {
  return o->dump_ir &&
         (strcmp(o->dump_ir, "all") == 0 || strcmp(o->dump_ir, name) == 0);
}

/* Refuses a --dump-ir name that is no pass, listing the valid ones. */
static tvm_status check_dump_name(const char *name) {
  const char *const *lp = tvm_lower_pass_names();
  tvm_strbuf b;
  if (!name || strcmp(name, "all") == 0)
    return TVM_OK;
  for (int i = 0; graph_pass_names[i]; i++)
    if (strcmp(graph_pass_names[i], name) == 0)
      return TVM_OK;
  for (int i = 0; lp && lp[i]; i++)
    if (strcmp(lp[i], name) == 0)
      return TVM_OK;
  tvm_strbuf_init(&b);
  for (int i = 0; graph_pass_names[i]; i++)
    tvm_strbuf_printf(&b, ", %s", graph_pass_names[i]);
  for (int i = 0; lp && lp[i]; i++)
    tvm_strbuf_printf(&b, ", %s", lp[i]);
  tvm_status st =
      tvm_diag_set(TVM_ERR_INVALID, "--dump-ir %s: no such pass; use all%s",
                   name, b.data ? b.data : "");
  tvm_strbuf_free(&b);
  return st;
}

static void dump_graph(const tvm_compile_options *o, const char *name,
                       const tvm_graph *g) {
  if (!dump_wanted(o, name))
    return;
  char *s = tvm_graph_str(g);
  fprintf(dump_file(o), "// after %s\n%s", name, s ? s : "(out of memory)\n");
  tvm_free(s);
}

/* Lowering dump hook: the function after the pass. */
static void dump_func(void *ud, const char *pass, const tvm_func *f) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_func(&b, f);
  fprintf((FILE *)ud, "// after %s: %s\n%s\n", pass, f->name,
          b.data ? b.data : "");
  tvm_strbuf_free(&b);
}

/* Runs one graph pass, dumps, and names the pass in a failure. */
static tvm_status run_pass(tvm_graph *g, const tvm_compile_options *o,
                           const char *name, tvm_status (*fn)(tvm_graph *)) {
  tvm_status st = fn(g);
  if (st)
    return tvm_diag_prefix(st, "graph pass %s: ", name);
  dump_graph(o, name, g);
  return TVM_OK;
}

/* alter_layout's query: the target plugin's choice for node n. */
static tvm_status layout_query(void *ud, const tvm_gnode *n,
                               tvm_layout_choice *c) {
  tvm_plugin_layout pl;
  tvm_status st = tvm_target_alter_layout(ud, n, &pl);
  if (st)
    return st;
  memcpy(c->data, pl.data, sizeof c->data);
  memcpy(c->weight, pl.weight, sizeof c->weight);
  memcpy(c->out, pl.out, sizeof c->out);
  return TVM_OK;
}

/* ---- plan assembly ------------------------------------------------------- */

typedef struct plan_builder {
  tvm_plan *p;
  tvm_arena *a;
  const tvm_graph *g;
  const tvm_storage_plan *mem;
  int32_t *index;        /* value id -> plan value, -1 */
  unsigned char *is_out; /* value id -> graph output */
  uint32_t cap;
} plan_builder;

/* The plan index of v, adding it on first sight. */
static tvm_status plan_value(plan_builder *pb, const tvm_gvalue *v,
                             uint32_t *idx) {
  tvm_plan *p = pb->p;
  if (pb->index[v->id] >= 0) {
    *idx = (uint32_t)pb->index[v->id];
    return TVM_OK;
  }
  if (p->nvalues == pb->cap)
    return tvm_diag_set(TVM_ERR_INTERNAL, "plan: more values than counted");
  tvm_plan_value *pv = &p->values[p->nvalues];
  pv->name = tvm_arena_strdup(pb->a, v->name);
  pv->dtype = v->dtype;
  pv->ndim = v->ndim;
  memcpy(pv->shape, v->shape, sizeof(int64_t) * (size_t)v->ndim);
  pv->layout = v->layout ? tvm_arena_strdup(pb->a, v->layout) : NULL;
  pv->nbytes = (uint64_t)tvm_gvalue_bytes(v);
  pv->storage = -1;
  if (v->kind == TVM_GV_INPUT) {
    pv->kind = TVM_PV_INPUT;
  } else if (v->kind == TVM_GV_CONST) {
    void *d = tvm_arena_alloc(pb->a, pv->nbytes + 1);
    if (!d)
      return tvm_diag_set(TVM_ERR_NOMEM, "plan: out of memory");
    if (v->data && pv->nbytes)
      memcpy(d, v->data, pv->nbytes);
    pv->kind = TVM_PV_PARAM;
    pv->data = d;
  } else if (pb->is_out[v->id]) {
    pv->kind = TVM_PV_OUTPUT;
  } else {
    pv->kind = TVM_PV_ACTIVATION;
    pv->storage = pb->mem->slot[v->id];
    if (pv->storage < 0)
      return tvm_diag_set(TVM_ERR_INTERNAL,
                          "plan: activation '%s' has no storage slot", v->name);
  }
  if (!pv->name)
    return tvm_diag_set(TVM_ERR_NOMEM, "plan: out of memory");
  pb->index[v->id] = (int32_t)p->nvalues;
  *idx = p->nvalues++;
  return TVM_OK;
}

/* Fills p from the graph, the kernels of the groups and the storage
 * plan. */
static tvm_status fill_plan(tvm_plan *p, const tvm_graph *g,
                            const tvm_target *t, const tvm_graph_groups *gr,
                            const group_kernel *gk,
                            const tvm_storage_plan *mem) {
  plan_builder pb = {p, compiler_plan_arena(p), g, mem, NULL, NULL, 0};
  tvm_status st = TVM_OK;
  uint32_t nids = g->next_id + 1,
           cap = (uint32_t)(g->inputs.len + g->outputs.len);
  for (int s = 0; s < gr->ngroups; s++)
    cap += (uint32_t)gk[s].nargs;
  pb.cap = cap;
  pb.index = tvm_malloc(sizeof(int32_t) * nids);
  pb.is_out = tvm_calloc(nids, 1);
  p->values = tvm_arena_alloc(pb.a, sizeof(tvm_plan_value) * (cap + 1));
  p->steps =
      tvm_arena_alloc(pb.a, sizeof(tvm_plan_step) * ((size_t)gr->ngroups + 1));
  p->inputs = tvm_arena_alloc(pb.a, sizeof(uint32_t) * (g->inputs.len + 1));
  p->outputs = tvm_arena_alloc(pb.a, sizeof(uint32_t) * (g->outputs.len + 1));
  p->storage_bytes =
      tvm_arena_alloc(pb.a, sizeof(uint64_t) * ((size_t)mem->nslots + 1));
  /* name, plugin and attribute values: the runtime remakes the target */
  if ((st = tvm_plan_set_target(p, t)) != TVM_OK)
    goto out;
  if (!pb.index || !pb.is_out || !p->values || !p->steps || !p->inputs ||
      !p->outputs || !p->storage_bytes || !p->target_name || !p->plugin_name ||
      !p->plugin_version) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "plan: out of memory");
    goto out;
  }
  for (uint32_t i = 0; i < nids; i++)
    pb.index[i] = -1;
  for (size_t i = 0; i < g->outputs.len; i++)
    pb.is_out[((tvm_gvalue *)g->outputs.data[i])->id] = 1;
  for (size_t i = 0; i < g->inputs.len && !st; i++)
    st = plan_value(&pb, g->inputs.data[i], &p->inputs[p->ninputs++]);
  for (int s = 0; s < gr->ngroups && !st; s++) {
    const group_kernel *k = &gk[s];
    if (!k->kernel)
      continue; /* a group with no output */
    tvm_plan_step *ps = &p->steps[p->nsteps];
    uint32_t *args =
        tvm_arena_alloc(pb.a, sizeof(uint32_t) * ((size_t)k->nargs + 1));
    ps->kernel = tvm_arena_strdup(pb.a, k->kernel);
    ps->label = tvm_arena_strdup(pb.a, k->label);
    if (!args || !ps->kernel || !ps->label) {
      st = tvm_diag_set(TVM_ERR_NOMEM, "plan: out of memory");
      break;
    }
    for (int i = 0; i < k->nargs && !st; i++)
      st = plan_value(&pb, k->args[i], &args[i]);
    ps->nargs = (uint32_t)k->nargs;
    ps->args = args;
    ps->flops = k->flops;
    p->nsteps++;
  }
  for (size_t i = 0; i < g->outputs.len && !st; i++)
    st = plan_value(&pb, g->outputs.data[i], &p->outputs[p->noutputs++]);
  if (!st) {
    p->nstorage = mem->nslots;
    memcpy(p->storage_bytes, mem->slot_bytes, sizeof(uint64_t) * mem->nslots);
    p->activation_bytes_planned = mem->planned_bytes;
    p->activation_bytes_unplanned = mem->unplanned_bytes;
  }
out:
  tvm_free(pb.index);
  tvm_free(pb.is_out);
  return st;
}

/* ---- the pipeline -------------------------------------------------------- */

/* Gives every node its own group, in node order. */
static tvm_status one_group_per_node(tvm_graph *g) {
  tvm_status st = tvm_graph_toposort(g);
  for (size_t i = 0; !st && i < g->nodes.len; i++)
    ((tvm_gnode *)g->nodes.data[i])->group = (int)i;
  return st;
}

/* Compiles g for t (see tvm/compiler.h).  g is rewritten in place. */
tvm_status tvm_compile(tvm_graph *g, const tvm_target *t,
                       const tvm_compile_options *o, tvm_plan **out) {
  tvm_compile_options dflt;
  tvm_graph_groups *gr = NULL;
  tvm_storage_plan *mem = NULL;
  kernel_builder *kb = NULL;
  group_kernel *gk = NULL;
  tvm_plan *p = NULL;
  tvm_lower_options lo;
  tvm_status st;
  tvm_tune_log *tlog = NULL; /* --tuning-log */
  tvm_tune_apply tapply;
  tvm_tune_hooks thooks;
  const tvm_tune_hooks *hooks = o ? o->tune : NULL;

  if (out)
    *out = NULL;
  if (!g || !t || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_compile: graph, target or out "
                                         "is NULL");
  if (!o) {
    tvm_compile_options_init(&dflt);
    o = &dflt;
  }
  if ((st = check_dump_name(o->dump_ir)))
    return st;
  if ((st = tvm_graph_status(g)))
    return st;

  if ((st = run_pass(g, o, "fold_constants", tvm_graph_pass_fold_constants)) ||
      (st = run_pass(g, o, "simplify_inference",
                     tvm_graph_pass_simplify_inference)))
    return st;
  if (o->alter_layout) {
    st = tvm_graph_pass_alter_layout(g, layout_query, (void *)t);
    if (st)
      return tvm_diag_prefix(st, "graph pass alter_layout: ");
    if ((st = tvm_graph_pass_fold_constants(g)))
      return tvm_diag_prefix(st, "graph pass fold_constants: ");
    dump_graph(o, "alter_layout", g);
  }
  if ((st = run_pass(g, o, "cse", tvm_graph_pass_cse)) ||
      (st = run_pass(g, o, "dce", tvm_graph_pass_dce)))
    return st;
  if (o->fuse)
    st = run_pass(g, o, "fuse_ops", tvm_graph_pass_fuse_ops);
  else
    st = one_group_per_node(g);
  if (st)
    return st;
  if ((st = tvm_graph_groups_collect(g, &gr)))
    return st;

  tvm_lower_options_init(&lo);
  tvm_target_lower_options(t, &lo);
  if (o->dump_ir) {
    lo.dump_pass = o->dump_ir;
    lo.dump = dump_func;
    lo.dump_ud = dump_file(o);
  }
  /* a tuning log presets the best record's knobs of each workload */
  if (o->tuning_log && !hooks) {
    if ((st = tvm_tune_log_read(o->tuning_log, &tlog)))
      goto out;
    memset(&tapply, 0, sizeof tapply);
    tapply.log = tlog;
    tapply.log_name = o->tuning_log;
    tapply.target_name = t->name;
    tvm_tune_apply_hooks(&tapply, &thooks);
    hooks = &thooks;
  }
  if ((st = kernel_builder_create(t, &lo, &kb)))
    goto out;
  kernel_builder_set_hooks(kb, hooks);
  gk = tvm_calloc((size_t)gr->ngroups + 1, sizeof *gk);
  if (!gk) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
    goto out;
  }
  for (int i = 0; i < gr->ngroups; i++) {
    const tvm_graph_group *G = &gr->groups[i];
    if (G->noutputs > 0 && (st = kernel_builder_add(kb, g, G, &gk[i])))
      goto out;
    if (o->progress)
      o->progress(o->progress_ud, i + 1, gr->ngroups,
                  gk[i].kernel ? gk[i].kernel : "(nothing to compute)");
  }

  if ((st = tvm_graph_plan_memory(g, gr, o->plan_memory, &mem)))
    goto out;
  if (dump_wanted(o, "plan_memory")) {
    tvm_strbuf b;
    tvm_strbuf_init(&b);
    tvm_storage_plan_print(&b, g, mem);
    fprintf(dump_file(o), "// after plan_memory\n%s", b.data ? b.data : "");
    tvm_strbuf_free(&b);
  }
  if ((st = compiler_plan_new(&p)))
    goto out;
  if (kernel_builder_nkernels(kb) > 0 &&
      (st = tvm_target_codegen(t, kernel_builder_module(kb), &p->blob)))
    goto out;
  st = fill_plan(p, g, t, gr, gk, mem);
out:
  tvm_free(gk);
  kernel_builder_free(kb);
  tvm_storage_plan_free(mem);
  tvm_graph_groups_free(gr);
  if (tlog) {
    if (tapply.missing)
      tvm_log(TVM_LOG_INFO,
              "tuning log %s: %d kernel(s) tuned, %d without a record for "
              "target %s (template defaults)",
              o->tuning_log, tapply.applied, tapply.missing, t->name);
    tvm_tune_log_free(tlog);
  }
  if (st) {
    tvm_plan_free(p);
    return st;
  }
  *out = p;
  return TVM_OK;
}
