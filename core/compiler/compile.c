/*
 * core/compiler/compile.c - tvm_compile: a graph and a target in, an
 * execution plan out.
 *
 *   graph table (graph_pipeline below): fold_constants ->
 *   simplify_inference -> quantize (targets that ask, ABI 6) -> alter_layout (the target's layouts;
 *   fold_constants again packs the weights) -> cse -> dce -> fuse_ops
 *   (or one group per node)                                 (groups)
 *   per group: compute -> schedule -> tvm_lower            (kernels.c)
 *   one tvm_target_codegen of the whole module (device targets: of the
 *   device functions; each host function becomes the step's host
 *   program, tvm/host_program.h)
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
#include "tvm/host_program.h"

/* One step of the graph pipeline.  run == NULL: plan_memory, which runs
 * after lowering (it needs the groups' kernels); it is listed here so that
 * the table gives every --dump-ir name of the graph side. */
typedef struct graph_step {
  const char *name;
  tvm_status (*run)(tvm_graph *g, const tvm_target *t,
                    const tvm_compile_options *o, int *dumped);
} graph_step;

static tvm_status gp_fold(tvm_graph *g, const tvm_target *t,
                          const tvm_compile_options *o, int *dumped);
static tvm_status gp_simplify(tvm_graph *g, const tvm_target *t,
                              const tvm_compile_options *o, int *dumped);
static tvm_status gp_quantize(tvm_graph *g, const tvm_target *t,
                              const tvm_compile_options *o, int *dumped);
static tvm_status gp_alter_layout(tvm_graph *g, const tvm_target *t,
                                  const tvm_compile_options *o, int *dumped);
static tvm_status gp_cse(tvm_graph *g, const tvm_target *t,
                         const tvm_compile_options *o, int *dumped);
static tvm_status gp_dce(tvm_graph *g, const tvm_target *t,
                         const tvm_compile_options *o, int *dumped);
static tvm_status gp_fuse(tvm_graph *g, const tvm_target *t,
                          const tvm_compile_options *o, int *dumped);
static tvm_status gp_place(tvm_graph *g, const tvm_target *t,
                           const tvm_compile_options *o, int *dumped);

/* THE graph pipeline: its run, --dump-ir and the valid names all come
 * from this one table (an X-macro: steps and names are two views of it;
 * the lowering pipeline is core/lower/lower.c's). */
#define GRAPH_PIPELINE(X)                \
  X("fold_constants", gp_fold)           \
  X("simplify_inference", gp_simplify)   \
  X("quantize", gp_quantize)             \
  X("alter_layout", gp_alter_layout)     \
  X("cse", gp_cse)                       \
  X("dce", gp_dce)                       \
  X("place_devices", gp_place)           \
  X("fuse_ops", gp_fuse)                 \
  X("plan_memory", NULL)
#define GRAPH_STEP(name, fn) {name, fn},
#define GRAPH_NAME(name, fn) name,

static const graph_step graph_pipeline[] = {GRAPH_PIPELINE(GRAPH_STEP)};
static const char *const graph_names[] = {GRAPH_PIPELINE(GRAPH_NAME) NULL};
#define NGRAPH ((int)(sizeof graph_pipeline / sizeof graph_pipeline[0]))

/* The graph pipeline's step names in order, NULL-terminated. */
const char *const *tvm_compile_pass_names(void) { return graph_names; }

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

/* Refuses a --dump-ir name that is no pass (of the graph table, the
 * lowering table, or the target's inserted lowering passes lo lists),
 * listing the valid ones. */
static tvm_status check_dump_name(const char *name, const tvm_lower_options *lo) {
  const char *const *lp = tvm_lower_pass_names();
  tvm_strbuf b;
  if (!name || strcmp(name, "all") == 0)
    return TVM_OK;
  for (int i = 0; i < NGRAPH; i++)
    if (strcmp(graph_pipeline[i].name, name) == 0)
      return TVM_OK;
  if (tvm_lower_has_pass(lo, name))
    return TVM_OK;
  tvm_strbuf_init(&b);
  for (int i = 0; i < NGRAPH; i++)
    tvm_strbuf_printf(&b, ", %s", graph_pipeline[i].name);
  for (int i = 0; lp && lp[i]; i++)
    tvm_strbuf_printf(&b, ", %s", lp[i]);
  for (int i = 0; lo && lo->extra_passes && i < lo->nextra_passes; i++)
    tvm_strbuf_printf(&b, ", %s (target pass)", lo->extra_passes[i].name);
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

/* Gives every node its own group, in node order. */
static tvm_status one_group_per_node(tvm_graph *g) {
  tvm_status st = tvm_graph_toposort(g);
  for (size_t i = 0; !st && i < g->nodes.len; i++)
    ((tvm_gnode *)g->nodes.data[i])->group = (int)i;
  return st;
}

/* alter_layout's query: the target plugin's choice for node n, with its
 * layout knobs preset and reported through the tuner's hooks. */
typedef struct layout_ctx {
  const tvm_target *t;
  const tvm_tune_hooks *hooks;
} layout_ctx;
static tvm_status layout_query(void *ud, const tvm_gnode *n,
                               tvm_layout_choice *c);

/* The steps of the graph table (see graph_step).  *dumped = 0 when the
 * step did not run (nothing to dump). */
static tvm_status gp_fold(tvm_graph *g, const tvm_target *t,
                          const tvm_compile_options *o, int *dumped) {
  (void)t, (void)o, (void)dumped;
  return tvm_graph_pass_fold_constants(g);
}
static tvm_status gp_simplify(tvm_graph *g, const tvm_target *t,
                              const tvm_compile_options *o, int *dumped) {
  (void)t, (void)o, (void)dumped;
  return tvm_graph_pass_simplify_inference(g);
}
/* quantize's question: does the target run the new QConv_blocked node? */
static tvm_status quant_accept(void *ud, const tvm_gnode *n, int *yes) {
  char why[TVM_PLUGIN_REASON_CAP];
  return tvm_target_supports(ud, n, yes, why, sizeof why);
}

static tvm_status gp_quantize(tvm_graph *g, const tvm_target *t,
                              const tvm_compile_options *o, int *dumped) {
  tvm_plugin_quant q;
  tvm_status st = tvm_target_quantize(t, &q);
  if (st)
    return st;
  if (!q.enabled && (o->calib || o->ncalib))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "calibration samples given, but target '%s' does "
                        "not quantize the graph (its plugin asks for no "
                        "quantization, plugin-sdk/docs/QUANTIZATION.md): "
                        "they would have no effect; drop them (tvmc: "
                        "--calibrate) or compile for a target that "
                        "quantizes, such as vdla",
                        t->name);
  if (!q.enabled) {
    *dumped = 0;
    return TVM_OK;
  }
  if (q.act_code != kDLInt || q.act_bits != 8 || q.weight_code != kDLInt ||
      q.weight_bits != 8 || q.acc_code != kDLInt || q.acc_bits != 32 ||
      q.scale != TVM_QUANT_SCALE_POW2)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "target '%s' asks for activations %u:%u, weights "
                        "%u:%u, accumulation %u:%u (DLPack code:bits), scale "
                        "mode %u; the quantize pass does int8 activations "
                        "and weights, int32 accumulation and power-of-two "
                        "scales (TVM_QUANT_SCALE_POW2) only",
                        t->name, q.act_code, q.act_bits, q.weight_code,
                        q.weight_bits, q.acc_code, q.acc_bits, q.scale);
  tvm_quant_scheme s = {(int)q.block_batch, (int)q.block_in,
                        (int)q.block_out, TVM_QUANT_NCALIB, TVM_QUANT_SEED,
                        NULL};
  if (o->calib || o->ncalib) {
    if (!o->calib || o->ncalib < 1)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "calibration: %d samples at %p; give ncalib >= 1 "
                          "samples with calib not NULL (or neither for "
                          "synthetic samples)",
                          o->ncalib, (const void *)o->calib);
    s.ncalib = o->ncalib;
    s.samples = o->calib;
  }
  return tvm_graph_pass_quantize(g, &s, quant_accept, (void *)t, NULL);
}

static tvm_status gp_alter_layout(tvm_graph *g, const tvm_target *t,
                                  const tvm_compile_options *o, int *dumped) {
  tvm_status st;
  if (!o->alter_layout) {
    *dumped = 0;
    return TVM_OK;
  }
  /* fold_constants again: the weights in the new layouts are packed now */
  layout_ctx lc = {t, o->tune};
  if ((st = tvm_graph_pass_alter_layout(g, layout_query, &lc)))
    return st;
  return tvm_graph_pass_fold_constants(g);
}
static tvm_status gp_cse(tvm_graph *g, const tvm_target *t,
                         const tvm_compile_options *o, int *dumped) {
  (void)t, (void)o, (void)dumped;
  return tvm_graph_pass_cse(g);
}
static tvm_status gp_dce(tvm_graph *g, const tvm_target *t,
                         const tvm_compile_options *o, int *dumped) {
  (void)t, (void)o, (void)dumped;
  return tvm_graph_pass_dce(g);
}
static tvm_status gp_fuse(tvm_graph *g, const tvm_target *t,
                          const tvm_compile_options *o, int *dumped) {
  (void)t;
  /* every tensor's size is checked once the graph is final, before any
   * kernel is made for it */
  tvm_status st = compiler_check_sizes(g, o);
  if (st)
    return st;
  if (o->fuse)
    return tvm_graph_pass_fuse_ops(g);
  *dumped = 0; /* one group per node: nothing fused to show */
  return one_group_per_node(g);
}

/* Does the plugin of t answer supports (ABI 5)? */
static int has_supports(const tvm_target *t) {
  return TVM_PLUGIN_SLOT(t->plugin, supports) != NULL;
}

/* place_devices' query: the target when it runs n, else its fallback when
 * that does, else an error naming the node. */
static tvm_status place_query(void *ud, const tvm_gnode *n, int *device) {
  const void *const *a = ud;
  const tvm_target *t = a[0];
  const tvm_compile_options *o = a[1];
  char why[TVM_PLUGIN_REASON_CAP], why2[TVM_PLUGIN_REASON_CAP];
  int yes = 1;
  tvm_status st = tvm_target_supports(t, n, &yes, why, sizeof why);
  if (st)
    return st;
  *device = 0;
  if (!yes && t->fallback) {
    if ((st = tvm_target_supports(t->fallback, n, &yes, why2, sizeof why2)))
      return st;
    if (!yes)
      return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                          "node '%s' (%s): neither target '%s' (%s) nor its "
                          "fallback '%s' (%s) runs it",
                          n->name, n->op, t->name, why, t->fallback->name,
                          why2);
    *device = 1;
  } else if (!yes) {
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "node '%s' (%s): target '%s' does not run it (%s); "
                        "name a target that does as its fallback in %s "
                        "(fallback: llvm-cpu)",
                        n->name, n->op, t->name, why,
                        t->path ? t->path : "the target's YAML file");
  }
  if (o->placed)
    o->placed(o->placed_ud, n, *device ? t->fallback : t,
              *device ? why : NULL);
  return TVM_OK;
}

static tvm_status gp_place(tvm_graph *g, const tvm_target *t,
                           const tvm_compile_options *o, int *dumped) {
  const void *ud[2] = {t, o};
  if (!t->fallback && !has_supports(t)) {
    *dumped = 0; /* one device: nothing to place */
    return TVM_OK;
  }
  return tvm_graph_pass_place_devices(g, place_query, (void *)ud, NULL);
}

/* Runs the graph table up to plan_memory, dumping after each step and
 * naming the step in a failure. */
static tvm_status run_graph_pipeline(tvm_graph *g, const tvm_target *t,
                                     const tvm_compile_options *o) {
  for (int i = 0; i < NGRAPH && graph_pipeline[i].run; i++) {
    int dumped = 1;
    tvm_status st = graph_pipeline[i].run(g, t, o, &dumped);
    if (st)
      return tvm_diag_prefix(st, "graph pass %s: ", graph_pipeline[i].name);
    if (dumped)
      dump_graph(o, graph_pipeline[i].name, g);
  }
  return TVM_OK;
}

/* alter_layout's query: the target plugin's choice for node n. */
static tvm_status layout_query(void *ud, const tvm_gnode *n,
                               tvm_layout_choice *c) {
  tvm_plugin_layout pl;
  const layout_ctx *lc = ud;
  const tvm_target *t = lc->t;
  const tvm_tune_hooks *h = lc->hooks && lc->hooks->layout ? lc->hooks : NULL;
  int yes = 1;
  char why[TVM_PLUGIN_REASON_CAP], wl[64], label[96];
  tvm_status st;
  /* a node the target declines is laid out as its fallback wants it */
  if (t->fallback &&
      (st = tvm_target_supports(t, n, &yes, why, sizeof why)) != TVM_OK)
    return st;
  tvm_config *cfg = tvm_config_create();
  if (!cfg)
    return tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
  if ((st = compiler_layout_workload(n, wl)))
    goto out;
  size_t nl = (size_t)snprintf(label, sizeof label, "%s ", n->op);
  for (int d = 0; n->noutputs > 0 && n->outputs[0] &&
                  d < n->outputs[0]->ndim && nl + 2 < sizeof label; d++)
    nl += (size_t)snprintf(label + nl, sizeof label - nl, "%s%lld",
                           d ? "x" : "", (long long)n->outputs[0]->shape[d]);
  if (h && (st = h->layout(h->ud, wl, label, cfg, 0)))
    goto out;
  tvm_gnode_layout_config_set(n, cfg);
  st = tvm_target_alter_layout(yes ? t : t->fallback, n, &pl);
  tvm_gnode_layout_config_set(NULL, NULL);
  if (st)
    goto out;
  if (tvm_config_rejected(cfg)) {
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "alter_layout of %s '%s' (layout workload %s): the "
                      "target rejected its layout knobs: %s (a stale tuning "
                      "log? re-tune, or compile without it)",
                      n->op, n->name, wl, tvm_config_rejected(cfg));
    goto out;
  }
  if (tvm_config_nknobs(cfg) > 0) {
    if (tvm_config_presets_unused(cfg))
      tvm_log(TVM_LOG_WARN, "layout workload %s (%s '%s'): %d preset "
              "layout knob(s) unknown or out of range (a stale tuning log?); "
              "their defaults are used", wl, n->op, n->name,
              tvm_config_presets_unused(cfg));
    memcpy(c->tuned, wl, sizeof wl < sizeof c->tuned ? sizeof wl
                                                      : sizeof c->tuned);
    if (h && (st = h->layout(h->ud, wl, label, cfg, 1)))
      goto out;
  }
out:
  tvm_config_free(cfg);
  if (st)
    return st;
  memcpy(c->data, pl.data, sizeof c->data);
  memcpy(c->weight, pl.weight, sizeof c->weight);
  memcpy(c->out, pl.out, sizeof c->out);
  c->flags = pl.flags & TVM_PLUGIN_LAYOUT_FLAT_PIXELS ? TVM_LAYOUT_FLAT_PIXELS
                                                      : 0;
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
  pv->device = v->device;
  if (v->kind == TVM_GV_INPUT) {
    pv->kind = TVM_PV_INPUT;
  } else if (v->kind == TVM_GV_CONST) {
    /* a big constant's memory is shared with the graph's arena (the
     * weights: tens of megabytes not copied and not held twice), a small
     * one copied */
    void *d = v->data && pv->nbytes
                  ? (void *)tvm_arena_share(pb->a, pb->g->arena, v->data,
                                            pv->nbytes)
                  : NULL;
    if (!d) {
      if (!(d = tvm_arena_alloc(pb->a, pv->nbytes + 1)))
        return tvm_diag_set(TVM_ERR_NOMEM, "plan: out of memory");
      if (v->data && pv->nbytes)
        memcpy(d, v->data, pv->nbytes);
    }
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

/* Device targets: the host program of host function `name` of m, built
 * into the plan's arena (shared by the steps that reuse the kernel). */
static tvm_status host_program_of(tvm_plan *p, const tvm_module *m,
                                  const char *name, tvm_plan_step *ps) {
  for (uint32_t s = 0; s < p->nsteps; s++)
    if (p->steps[s].host && p->steps[s].device == ps->device &&
        !strcmp(p->steps[s].kernel, name)) {
      ps->host = p->steps[s].host;
      return TVM_OK;
    }
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i]->kind == TVM_FUNC_HOST && !strcmp(m->funcs[i]->name, name)) {
      tvm_host_program *hp = NULL;
      tvm_status st =
          tvm_host_program_build(m->funcs[i], m, compiler_plan_arena(p), &hp);
      if (st != TVM_OK) return tvm_diag_prefix(st, "kernel %s: ", name);
      if (hp->nparams != ps->nargs)
        return tvm_diag_set(TVM_ERR_INTERNAL,
                            "kernel %s: its host program takes %u buffers, "
                            "the step passes %u",
                            name, hp->nparams, ps->nargs);
      ps->host = hp;
      return TVM_OK;
    }
  return tvm_diag_set(TVM_ERR_INTERNAL, "kernel %s: no host function", name);
}

/* The device functions of m (what a device target's codegen receives). */
static tvm_status device_funcs(const tvm_module *m, tvm_module *out) {
  out->ctx = m->ctx;
  out->nfuncs = 0;
  out->funcs = tvm_calloc((size_t)m->nfuncs + 1, sizeof(tvm_func *));
  if (!out->funcs)
    return tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i]->kind == TVM_FUNC_DEVICE)
      out->funcs[out->nfuncs++] = m->funcs[i];
  return TVM_OK;
}

/* Fills p from the graph, the kernels of the groups and the storage
 * plan; on device targets (hosts[device]: the lowered module) each step
 * gets the host program of its host function.  Values, steps and slots
 * keep their device (heterogeneous plans). */
static tvm_status fill_plan(tvm_plan *p, const tvm_graph *g,
                            const tvm_target *t, const tvm_graph_groups *gr,
                            const group_kernel *gk,
                            const tvm_storage_plan *mem,
                            const tvm_module *const *hosts) {
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
  int32_t *sdev =
      tvm_arena_alloc(pb.a, sizeof(int32_t) * ((size_t)mem->nslots + 1));
  /* name, plugin and attribute values: the runtime remakes the target */
  if ((st = tvm_plan_set_target(p, t)) != TVM_OK)
    goto out;
  if (!pb.index || !pb.is_out || !p->values || !p->steps || !p->inputs ||
      !p->outputs || !p->storage_bytes || !sdev || !p->target_name ||
      !p->plugin_name ||
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
    ps->device = k->device;
    ps->copy = (uint32_t)k->copy;
    if (hosts[k->device] && !k->copy && !st)
      st = host_program_of(p, hosts[k->device], k->kernel, ps);
    p->nsteps++;
  }
  for (size_t i = 0; i < g->outputs.len && !st; i++)
    st = plan_value(&pb, g->outputs.data[i], &p->outputs[p->noutputs++]);
  if (!st) {
    p->nstorage = mem->nslots;
    memcpy(p->storage_bytes, mem->slot_bytes, sizeof(uint64_t) * mem->nslots);
    memcpy(sdev, mem->slot_device, sizeof(int32_t) * mem->nslots);
    p->storage_device = sdev;
    p->activation_bytes_planned = mem->planned_bytes;
    p->activation_bytes_unplanned = mem->unplanned_bytes;
  }
out:
  tvm_free(pb.index);
  tvm_free(pb.is_out);
  return st;
}

/* ---- the pipeline -------------------------------------------------------- */

/* Compiles g for t (see tvm/compiler.h).  g is rewritten in place. */
tvm_status tvm_compile(tvm_graph *g, const tvm_target *t,
                       const tvm_compile_options *o, tvm_plan **out) {
  tvm_compile_options dflt;
  tvm_graph_groups *gr = NULL;
  tvm_storage_plan *mem = NULL;
  /* per device: 0 the target, 1 its fallback (heterogeneous) */
  const tvm_target *tdev[2] = {t, t ? t->fallback : NULL};
  int ndev = t && t->fallback ? 2 : 1;
  kernel_builder *kb[2] = {NULL, NULL};
  const tvm_module *hosts[2] = {NULL, NULL};
  tvm_gvalue **copy_args = NULL; /* DeviceCopy steps' (source, dest) */
  group_kernel *gk = NULL;
  tvm_plan *p = NULL;
  tvm_lower_options lo, lod[2];
  tvm_status st;
  tvm_tune_log *tlog = NULL; /* --tuning-log */
  tvm_tune_apply tapply;
  tvm_tune_hooks thooks;
  const tvm_tune_hooks *hooks = o ? o->tune : NULL;
  double t0, tg = 0, t1 = 0, t2 = 0, t3 = 0; /* phase times (debug log) */

  if (out)
    *out = NULL;
  if (!g || !t || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_compile: graph, target or out "
                                         "is NULL");
  if (!o) {
    tvm_compile_options_init(&dflt);
    o = &dflt;
  }
  tvm_lower_options_init(&lo);
  tvm_target_lower_options(t, &lo);
  if ((st = check_dump_name(o->dump_ir, &lo)))
    return st;
  if ((st = tvm_lower_check_passes(&lo)))
    return tvm_diag_prefix(st, "target '%s': ", t->name);
  if ((st = tvm_graph_status(g)))
    return st;

  /* a tuning log presets the best record's knobs of each workload, the
   * layout knobs (alter_layout) and the kernels' */
  memset(&tapply, 0, sizeof tapply);
  if (o->tuning_log && !hooks) {
    if ((st = tvm_tune_log_read(o->tuning_log, &tlog)))
      return st;
    tapply.log = tlog;
    tapply.log_name = o->tuning_log;
    tapply.target_name = t->name;
    memset(&thooks, 0, sizeof thooks);
    tvm_tune_apply_hooks(&tapply, &thooks);
    hooks = &thooks;
  }
  tvm_compile_options og = *o; /* the graph passes see these hooks */
  og.tune = hooks;
  t0 = tvm_now_s();
  if ((st = run_graph_pipeline(g, t, &og)))
    goto out;
  if ((st = tvm_graph_groups_collect(g, &gr)))
    goto out;
  tg = tvm_now_s();

  if (o->dump_ir) {
    lo.dump_pass = o->dump_ir;
    lo.dump = dump_func;
    lo.dump_ud = dump_file(o);
  }
  for (int d = 0; d < ndev; d++) {
    if (d > 0) {
      lod[d] = lo; /* the dump settings */
      tvm_target_lower_options(tdev[d], &lod[d]);
      if ((st = tvm_lower_check_passes(&lod[d]))) {
        st = tvm_diag_prefix(st, "target '%s': ", tdev[d]->name);
        goto out;
      }
    }
    if ((st = kernel_builder_create(tdev[d], d ? &lod[d] : &lo, &kb[d])))
      goto out;
    if (d == 0) /* the tuner and the tuning log: the target's kernels */
      kernel_builder_set_hooks(kb[d], hooks);
  }
  gk = tvm_calloc((size_t)gr->ngroups + 1, sizeof *gk);
  copy_args = tvm_calloc(2 * (size_t)gr->ngroups + 1, sizeof(tvm_gvalue *));
  if (!gk || !copy_args) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
    goto out;
  }
  for (int i = 0; i < gr->ngroups; i++) {
    const tvm_graph_group *G = &gr->groups[i];
    int dev = G->anchor && G->anchor->device > 0 && ndev > 1 ? 1 : 0;
    if (G->noutputs > 0 && G->anchor && ndev > 1 &&
        strcmp(G->anchor->op, "DeviceCopy") == 0) {
      /* a copy between the devices: a plan step, not a kernel (on one
       * device a DeviceCopy is an identity kernel like any other node) */
      copy_args[2 * i] = G->anchor->inputs[0];
      copy_args[2 * i + 1] = G->anchor->outputs[0];
      gk[i].kernel = "DeviceCopy";
      gk[i].label = "DeviceCopy";
      gk[i].args = &copy_args[2 * i];
      gk[i].nargs = 2;
      gk[i].copy = 1;
    } else if (G->noutputs > 0 &&
               (st = kernel_builder_add(kb[dev], g, G, &gk[i]))) {
      goto out;
    }
    gk[i].device = dev;
    if (o->progress)
      o->progress(o->progress_ud, i + 1, gr->ngroups,
                  gk[i].kernel ? gk[i].kernel : "(nothing to compute)");
  }

  t1 = tvm_now_s();
  if (o->lower_only) /* p stays NULL */
    goto out;
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
  t2 = tvm_now_s();
  for (int d = 0; d < ndev && !st; d++) {
    tvm_plugin_blob *blob = d ? &p->fallback_blob : &p->blob;
    const tvm_module *all = kernel_builder_module(kb[d]);
    if (tvm_lower_is_device(d ? &lod[d] : &lo)) {
      /* host functions become host programs; codegen sees device code */
      tvm_module dev = {0};
      if ((st = device_funcs(all, &dev)))
        break;
      if (dev.nfuncs > 0)
        st = tvm_target_codegen(tdev[d], &dev, blob);
      tvm_free(dev.funcs);
      hosts[d] = all;
    } else if (kernel_builder_nkernels(kb[d]) > 0) {
      st = tvm_target_codegen(tdev[d], all, blob);
    }
  }
  t3 = tvm_now_s();
  if (!st)
    st = fill_plan(p, g, t, gr, gk, mem, hosts);
  if (!st)
    tvm_log(TVM_LOG_DEBUG,
            "compile: graph passes %.3f s, lowering %.3f s, memory plan "
            "%.3f s, codegen %.3f s, plan %.3f s", tg - t0, t1 - tg,
            t2 - t1, t3 - t2, tvm_now_s() - t3);
out:
  tvm_free(gk);
  tvm_free(copy_args);
  for (int d = 0; d < 2; d++)
    kernel_builder_free(kb[d]);
  tvm_storage_plan_free(mem);
  tvm_graph_groups_free(gr);
  if (tlog) {
    if (tapply.missing)
      tvm_log(TVM_LOG_INFO,
              "tuning log %s: %d kernel(s) tuned, %d without a record for "
              "target %s (template defaults)",
              o->tuning_log, tapply.applied, tapply.missing, t->name);
    if (tapply.layouts)
      tvm_log(TVM_LOG_INFO, "tuning log %s: %d layout(s) chosen by their "
              "records", o->tuning_log, tapply.layouts);
    tvm_tune_log_free(tlog);
  }
  if (st) {
    tvm_plan_free(p);
    return st;
  }
  *out = p;
  return TVM_OK;
}
