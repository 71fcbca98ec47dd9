/*
 * core/compiler/kernels.c - one fused group -> one kernel of the shared
 * module.
 *
 * For a group: a placeholder per group input, each node's compute in
 * topological order, the group outputs as the schedule's outputs.  Only
 * the inputs the outputs actually read become kernel arguments (constant
 * inputs such as Reshape's shape are read at compile time).  The schedule
 * comes from tvm_strategy_schedule (tvm/strategy.h): the target's
 * strategy for the anchor operator by name, then by fusion pattern, then
 * its default (knobs at their defaults from a fresh tvm_config), else the
 * core's generic schedule of the target's family (cpu or thread); a
 * strategy that fails other than by declining (TVM_ERR_UNSUPPORTED) is a
 * compile error.  tvm_lower appends the kernel to the module as
 * "fused_<ops>_<k>".
 *
 * Identical groups share a kernel: a group's key spells its operators,
 * attributes, wiring, every value's type and the bytes of the constants it
 * reads at compile time; groups with equal keys reuse the first one's
 * function.  Keys live in a tvm_strmap.
 */
#include <stdio.h>
#include <string.h>

#include "tvm/strategy.h"
#include "compiler_int.h"

#define NAME_OPS_MAX 48

/* A kernel built so far. */
typedef struct kernel_rec {
  char *key;
  const char *name, *label;
  int *inputs; /* group-input positions that are kernel arguments */
  int ninputs;
} kernel_rec;

struct kernel_builder {
  const tvm_target *t;
  tvm_lower_options lo;
  tvm_ctx *ctx; /* tensor expressions, schedules, loop IR */
  tvm_strategy_env *env; /* strategies, generic family, intrinsics */
  int lanes;             /* the generic CPU schedule's vector lanes */
  tvm_module mod;
  tvm_arena *arena; /* names, labels, argument arrays */
  kernel_rec *recs;
  int nrecs, caprecs;
  tvm_strmap table; /* key -> rec index + 1 */
  const tvm_tune_hooks *hooks; /* the tuner's, or NULL */
};

/* ---- keys ---------------------------------------------------------------- */

static void key_type(tvm_strbuf *b, const tvm_gvalue *v) {
  tvm_strbuf_printf(b, "%u.%u.%u[", v->dtype.code, v->dtype.bits,
                    v->dtype.lanes);
  for (int d = 0; d < v->ndim; d++)
    tvm_strbuf_printf(b, "%lld,", (long long)v->shape[d]);
  tvm_strbuf_printf(b, "]%s", v->layout ? v->layout : "");
}

static void key_attr(tvm_strbuf *b, const tvm_gattr *a) {
  tvm_strbuf_printf(b, "%s=%d:", a->name, (int)a->type);
  switch (a->type) {
  case TVM_GATTR_INT:
    tvm_strbuf_printf(b, "%lld", (long long)a->i);
    break;
  case TVM_GATTR_FLOAT:
    tvm_strbuf_printf(b, "%a", a->f);
    break;
  case TVM_GATTR_STRING:
    tvm_strbuf_printf(b, "%zu:%s", a->s ? strlen(a->s) : 0, a->s ? a->s : "");
    break;
  case TVM_GATTR_INTS:
    for (int i = 0; i < a->n; i++)
      tvm_strbuf_printf(b, "%lld,", (long long)a->ints[i]);
    break;
  case TVM_GATTR_FLOATS:
    for (int i = 0; i < a->n; i++)
      tvm_strbuf_printf(b, "%a,", a->floats[i]);
    break;
  }
  tvm_strbuf_append(b, ";");
}

/* Position of v among the group's inputs, or -1. */
static int input_pos(const tvm_graph_group *G, const tvm_gvalue *v) {
  for (int i = 0; i < G->ninputs; i++)
    if (G->inputs[i] == v)
      return i;
  return -1;
}

/* "n<node>.<output>" for a value produced in the group, or -1. */
static int local_ref(const tvm_graph_group *G, const tvm_gvalue *v, int *o) {
  if (!v->producer || v->kind != TVM_GV_INTERMEDIATE)
    return -1;
  for (int i = 0; i < G->nnodes; i++)
    if (G->nodes[i] == v->producer) {
      *o = v->index;
      return i;
    }
  return -1;
}

/* The group's key; used[] says which inputs are kernel arguments. */
static char *group_key(const tvm_graph_group *G, const unsigned char *used) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  for (int i = 0; i < G->nnodes; i++) {
    const tvm_gnode *n = G->nodes[i];
    tvm_strbuf_printf(&b, "%s{", n->op);
    for (int a = 0; a < n->nattrs; a++)
      key_attr(&b, &n->attrs[a]);
    tvm_strbuf_append(&b, "}(");
    for (int k = 0; k < n->ninputs; k++) {
      const tvm_gvalue *v = n->inputs[k];
      int o = 0, l;
      if (!v)
        tvm_strbuf_append(&b, "_,");
      else if ((l = local_ref(G, v, &o)) >= 0)
        tvm_strbuf_printf(&b, "n%d.%d,", l, o);
      else
        tvm_strbuf_printf(&b, "i%d,", input_pos(G, v));
    }
    tvm_strbuf_append(&b, ")->");
    for (int k = 0; k < n->noutputs; k++) {
      if (n->outputs[k])
        key_type(&b, n->outputs[k]);
      tvm_strbuf_append(&b, ",");
    }
    tvm_strbuf_append(&b, "\n");
  }
  for (int i = 0; i < G->ninputs; i++) {
    const tvm_gvalue *v = G->inputs[i];
    tvm_strbuf_printf(&b, "i%d:%d:", i, used[i]);
    key_type(&b, v);
    if (!used[i] && v->kind == TVM_GV_CONST && v->data)
      tvm_strbuf_printf(&b, ":%016llx",
                        (unsigned long long)tvm_hash_bytes(v->data,
                                                (size_t)tvm_gvalue_bytes(v),
                                                TVM_HASH_SEED));
    tvm_strbuf_append(&b, "\n");
  }
  for (int k = 0; k < G->noutputs; k++) {
    int o = 0, l = local_ref(G, G->outputs[k], &o);
    tvm_strbuf_printf(&b, "o%d.%d\n", l, o);
  }
  if (b.oom) {
    tvm_strbuf_free(&b);
    return NULL;
  }
  return tvm_strbuf_take(&b);
}

/* A node's own key (operator, attributes, input and output types; not
 * the weights' values): the layout workload's (compiler_layout_workload). */
tvm_status compiler_layout_workload(const tvm_gnode *n, char out[64]) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_strbuf_printf(&b, "%s{", n->op);
  for (int a = 0; a < n->nattrs; a++)
    key_attr(&b, &n->attrs[a]);
  tvm_strbuf_append(&b, "}(");
  for (int k = 0; k < n->ninputs; k++) {
    if (n->inputs[k])
      key_type(&b, n->inputs[k]);
    tvm_strbuf_printf(&b, ":%d,",
                      n->inputs[k] && n->inputs[k]->kind == TVM_GV_CONST);
  }
  tvm_strbuf_append(&b, ")->");
  for (int k = 0; k < n->noutputs; k++) {
    if (n->outputs[k])
      key_type(&b, n->outputs[k]);
    tvm_strbuf_append(&b, ",");
  }
  if (b.oom) {
    tvm_strbuf_free(&b);
    return tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
  }
  char *key = tvm_strbuf_take(&b);
  snprintf(out, 64, "layout_%.24s-%016llx", n->op,
           (unsigned long long)tvm_hash_bytes(key, strlen(key),
                                              TVM_HASH_SEED));
  tvm_free(key);
  return TVM_OK;
}

/* The record with this key, or -1. */
static int table_find(kernel_builder *kb, const char *key) {
  return (int)((intptr_t)tvm_strmap_get(&kb->table, key) - 1);
}

/* Adds a record (the key is taken over) and indexes it. */
static tvm_status table_add(kernel_builder *kb, kernel_rec *r) {
  if (kb->nrecs == kb->caprecs) {
    int nc = kb->caprecs ? kb->caprecs * 2 : 16;
    kernel_rec *nr = tvm_realloc(kb->recs, sizeof *nr * (size_t)nc);
    if (!nr)
      return tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
    kb->recs = nr;
    kb->caprecs = nc;
  }
  /* the key string stays where it is when recs moves */
  tvm_status st = tvm_strmap_put(&kb->table, r->key,
                                 (void *)(intptr_t)(kb->nrecs + 1));
  if (st)
    return st;
  kb->recs[kb->nrecs++] = *r;
  return TVM_OK;
}

/* ---- builder ------------------------------------------------------------- */

tvm_status kernel_builder_create(const tvm_target *t,
                                 const tvm_lower_options *lo,
                                 kernel_builder **out) {
  kernel_builder *kb = tvm_calloc(1, sizeof *kb);
  *out = NULL;
  if (!kb)
    return tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
  kb->t = t;
  kb->lo = *lo;
  kb->ctx = tvm_ctx_create();
  kb->arena = tvm_arena_create();
  if (!kb->ctx || !kb->arena) {
    kernel_builder_free(kb);
    return tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
  }
  tvm_status st = tvm_strategy_env_create(t, kb->ctx, &kb->env);
  if (st) {
    kernel_builder_free(kb);
    return st;
  }
  kb->lanes = tvm_strategy_env_lanes(kb->env);
  kb->mod.ctx = kb->ctx;
  *out = kb;
  return TVM_OK;
}

void kernel_builder_free(kernel_builder *kb) {
  if (!kb)
    return;
  for (int i = 0; i < kb->nrecs; i++)
    tvm_free(kb->recs[i].key);
  tvm_free(kb->recs);
  tvm_strmap_free(&kb->table);
  tvm_strategy_env_free(kb->env);
  if (kb->ctx)
    tvm_ctx_destroy(kb->ctx);
  if (kb->arena)
    tvm_arena_destroy(kb->arena);
  tvm_free(kb);
}

const tvm_module *kernel_builder_module(const kernel_builder *kb) {
  return &kb->mod;
}

int kernel_builder_nkernels(const kernel_builder *kb) { return kb->nrecs; }

/* Estimated floating-point work of one node: 2 * multiply-adds for the
 * contractions (Conv2D_winograd: those of the direct convolution it
 * replaces; QConv_blocked: its integer ones), one operation per output
 * element otherwise. */
static double node_flops(const tvm_gnode *n) {
  const tvm_gvalue *o = n->noutputs > 0 ? n->outputs[0] : NULL;
  double out = o ? (double)tvm_gvalue_numel(o) : 0;
  if (!o)
    return 0;
  if ((!strcmp(n->op, "Conv") || !strcmp(n->op, "ConvTranspose")) &&
      n->ninputs >= 2 && n->inputs[1]) {
    const tvm_gvalue *w = n->inputs[1];
    double k = 1;
    for (int d = 1; d < w->ndim; d++)
      k *= (double)w->shape[d];
    if (!strcmp(n->op, "ConvTranspose"))
      return 2.0 * (double)tvm_gvalue_numel(n->inputs[0]) * k;
    return 2.0 * out * k;
  }
  if (!strcmp(n->op, "Conv_NCHWc") && n->ninputs >= 2 && n->inputs[1] &&
      n->inputs[1]->ndim == 6) { /* W [M/ob, C/ib, KH, KW, ib, ob] */
    const tvm_gvalue *w = n->inputs[1];
    return 2.0 * out *
           (double)(w->shape[1] * w->shape[2] * w->shape[3] * w->shape[4]);
  }
  /* the quantized convolution: integer multiply-adds, counted alike */
  if (!strcmp(n->op, "QConv_blocked") && n->ninputs >= 2 && n->inputs[1] &&
      n->inputs[1]->ndim == 6) { /* W [M/bo, C/bi, KH, KW, bo, bi] */
    const tvm_gvalue *w = n->inputs[1];
    return 2.0 * out *
           (double)(w->shape[1] * w->shape[2] * w->shape[3] * w->shape[5]);
  }
  /* Winograd (U [4, 4, K, C], or [6, 6, K/ob, C, ob] on blocked data):
   * the direct 3x3 convolution's count, so that rates compare across the
   * two algorithms (the blocked form's input transform, a node of its
   * own, counts one per output element) */
  if (n->ninputs >= 2 && n->inputs[1] &&
      ((!strcmp(n->op, "Conv2D_winograd") && n->inputs[1]->ndim == 4) ||
       (!strcmp(n->op, "Conv2D_winograd_NCHWc") && n->inputs[1]->ndim == 5)))
    return 2.0 * out * (double)(n->inputs[1]->shape[3] * 9);
  if (!strcmp(n->op, "Gemm") && n->ninputs >= 2 && n->inputs[0]) {
    const tvm_gvalue *a = n->inputs[0];
    int64_t K = tvm_gnode_int(n, "transA", 0) ? a->shape[0] : a->shape[1];
    return 2.0 * out * (double)K;
  }
  if ((!strcmp(n->op, "MatMul") || !strcmp(n->op, "MatMul_packed")) &&
      n->ninputs >= 2 && n->inputs[0]) {
    const tvm_gvalue *a = n->inputs[0];
    return 2.0 * out * (double)a->shape[a->ndim - 1];
  }
  return out;
}

/* Makes every output a distinct compute: an output that is a placeholder
 * or repeats an earlier one is copied by an identity compute. */
static tvm_expr *copy_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *t = ud;
  return tvm_tread(c, t, i, t->ndim);
}

static tvm_status distinct_outputs(tvm_ctx *c, tvm_tensor **outs, int n) {
  for (int k = 0; k < n; k++) {
    int dup = outs[k]->op->kind != TVM_OP_COMPUTE;
    for (int j = 0; j < k && !dup; j++)
      dup = outs[j] == outs[k];
    if (!dup)
      continue;
    tvm_tensor *t =
        tvm_compute(c, tvm_ctx_strdup(c, outs[k]->name), outs[k]->shape_c,
                    outs[k]->ndim, copy_body, outs[k]);
    if (!t)
      return tvm_ctx_status(c) ? tvm_ctx_status(c) : tvm_diag_status();
    tvm_tensor_set_tag(t, "injective");
    outs[k] = t;
  }
  return TVM_OK;
}

/* Marks the placeholders reachable from outs (tensor -> 1 in seen). */
static tvm_status reach(tvm_tensor **outs, int n, tvm_ptrmap *seen) {
  tvm_ptrvec stack = {0};
  tvm_status st = TVM_OK;
  void *p;
  for (int k = 0; k < n && !st; k++)
    if (!tvm_ptrmap_get(seen, outs[k]->op, &p)) {
      st = tvm_ptrmap_put(seen, outs[k]->op, outs[k]);
      if (!st)
        st = tvm_ptrvec_push(&stack, outs[k]->op);
    }
  while (!st && stack.len > 0) {
    tvm_operation *op = stack.data[--stack.len];
    tvm_ptrvec ins = {0};
    if (op->kind != TVM_OP_COMPUTE)
      continue;
    st = tvm_op_inputs(op, &ins);
    for (size_t i = 0; i < ins.len && !st; i++) {
      tvm_tensor *t = ins.data[i];
      if (tvm_ptrmap_get(seen, t->op, &p))
        continue;
      st = tvm_ptrmap_put(seen, t->op, t);
      if (!st)
        st = tvm_ptrvec_push(&stack, t->op);
    }
    tvm_ptrvec_free(&ins);
  }
  tvm_ptrvec_free(&stack);
  return st;
}

/* Label "Conv+Add+Relu" and function name "fused_Conv_Add_Relu_<k>". */
static void make_names(kernel_builder *kb, const tvm_graph_group *G,
                       const char **name, const char **label) {
  tvm_strbuf l, n;
  tvm_strbuf_init(&l);
  tvm_strbuf_init(&n);
  tvm_strbuf_append(&n, "fused");
  for (int i = 0; i < G->nnodes; i++) {
    const char *op = G->nodes[i]->op;
    tvm_strbuf_printf(&l, i ? "+%s" : "%s", op);
    if (n.len + strlen(op) + 1 <= NAME_OPS_MAX) {
      tvm_strbuf_append(&n, "_");
      for (const char *c = op; *c; c++) {
        char ch = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                                 (*c >= '0' && *c <= '9')
                             ? *c
                             : '_');
        tvm_strbuf_appendn(&n, &ch, 1);
      }
    }
  }
  tvm_strbuf_printf(&n, "_%d", kb->nrecs);
  *name = n.data ? tvm_arena_strdup(kb->arena, n.data) : NULL;
  *label = l.data ? tvm_arena_strdup(kb->arena, l.data) : NULL;
  tvm_strbuf_free(&l);
  tvm_strbuf_free(&n);
}

/* Declares the group's tensor expressions: in[i] for input i, outs[k] for
 * output k. */
static tvm_status declare(kernel_builder *kb, const tvm_graph_group *G,
                          tvm_tensor **in, tvm_tensor **outs) {
  tvm_ctx *c = kb->ctx;
  tvm_ptrmap tens = {0};
  tvm_status st = TVM_OK;
  tvm_tensor *nin[64], *nout[64];
  void *p;
  for (int i = 0; i < G->ninputs && !st; i++) {
    tvm_gvalue *v = G->inputs[i];
    int64_t shape[TVM_MAX_DIMS];
    /* an empty input gets a placeholder of extent 1 where it has 0: only
     * a constant read at compile time may be empty (checked once the
     * kernel's arguments are known) */
    for (int d = 0; d < v->ndim; d++)
      shape[d] = v->shape[d] > 0 ? v->shape[d] : 1;
    in[i] = tvm_placeholder(c, v->name, v->dtype, shape, v->ndim);
    if (!in[i])
      st = tvm_ctx_status(c) ? tvm_ctx_status(c) : tvm_diag_status();
    else
      st = tvm_ptrmap_put(&tens, v, in[i]);
  }
  for (int j = 0; j < G->nnodes && !st; j++) {
    const tvm_gnode *n = G->nodes[j];
    if (!n->def || !n->def->compute) {
      st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "node '%s': operator %s has no tensor expression "
                        "(it must be folded at compile time: are its inputs "
                        "constant?)",
                        n->name ? n->name : n->op, n->op);
      break;
    }
    if (n->ninputs > 64 || n->noutputs > 64) {
      st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "node '%s': more than 64 inputs or outputs",
                        n->name ? n->name : n->op);
      break;
    }
    for (int k = 0; k < n->ninputs; k++)
      nin[k] =
          n->inputs[k] && tvm_ptrmap_get(&tens, n->inputs[k], &p) ? p : NULL;
    memset(nout, 0, sizeof(tvm_tensor *) * (size_t)(n->noutputs + 1));
    st = n->def->compute(c, n, nin, nout);
    if (st) {
      tvm_diag_prefix(st, "compute of node '%s' (%s): ", n->name ? n->name : "",
                      n->op);
      break;
    }
    for (int k = 0; k < n->noutputs && !st; k++)
      if (n->outputs[k] && nout[k])
        st = tvm_ptrmap_put(&tens, n->outputs[k], nout[k]);
  }
  for (int k = 0; k < G->noutputs && !st; k++) {
    if (!tvm_ptrmap_get(&tens, G->outputs[k], &p) || !p)
      st = tvm_diag_set(TVM_ERR_INTERNAL,
                        "compute of group %d left output '%s' undeclared",
                        G->id, G->outputs[k]->name);
    else
      outs[k] = p;
  }
  tvm_ptrmap_free(&tens);
  if (!st)
    st = distinct_outputs(c, outs, G->noutputs);
  return st;
}

void kernel_builder_set_hooks(kernel_builder *kb, const tvm_tune_hooks *h) {
  kb->hooks = h;
}

/* Calls the tuner's hook for group G (key: its group key), if any. */
static tvm_status call_hook(kernel_builder *kb, const tvm_graph_group *G,
                            const tvm_plugin_strategy *strat, const char *key,
                            double flops, int reused, tvm_config *cfg) {
  if (!kb->hooks || !kb->hooks->kernel || !strat)
    return TVM_OK;
  tvm_tune_kernel k;
  char wl[64];
  compiler_tune_kernel_init(&k, kb->t, &kb->lo, kb->lanes, G, strat, key,
                            flops, reused, wl);
  return kb->hooks->kernel(kb->hooks->ud, &k, cfg);
}

/* The strategy that schedules G's anchor at its defaults (what the
 * tuner's hook keys its records by): the first that does not decline it
 * (a tensor-core MatMul template declines float32 and the next one takes
 * it); when none applies, the core's generic schedule: on a thread target
 * compiler_generic_thread_strategy (its block size is a knob), else NULL
 * (nothing to tune). */
static const tvm_plugin_strategy *first_strategy(kernel_builder *kb,
                                                 const tvm_graph_group *G,
                                                 tvm_tensor **outs) {
  const tvm_plugin_strategy *c[16];
  const tvm_gnode *a = G->anchor;
  int pat = a->def ? (int)a->def->pattern : -1;
  int n = tvm_target_strategies(kb->t, a->op, pat, c, 16);
  const tvm_plugin_strategy *generic =
      tvm_strategy_env_family(kb->env) == TVM_FAMILY_THREAD
          ? &compiler_generic_thread_strategy
          : NULL;
  if (n <= 1 || !kb->hooks) return n ? c[0] : generic;
  /* several may apply: ask which one takes the group at its defaults */
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s = NULL;
  const char *used = NULL;
  const tvm_plugin_strategy *r = c[0];
  if (cfg && tvm_strategy_schedule(kb->env, a->op, pat, a, outs, G->noutputs,
                                   cfg, &s, &used) == TVM_OK) {
    r = generic;
    for (int i = 0; i < n && used; i++)
      if (c[i]->name && !strcmp(c[i]->name, used)) r = c[i];
  }
  tvm_diag_clear();
  if (s) tvm_schedule_free(s);
  tvm_config_free(cfg);
  return r;
}

/* Schedules outs through the target's strategies for the anchor (by
 * name, pattern, default; knobs preset by the tuner's hook), else the
 * core's generic schedule of the target's family (tvm/strategy.h).  On
 * success *sp is the schedule to lower (freed by the caller). */
static tvm_status schedule_group(kernel_builder *kb, const tvm_graph_group *G,
                                 tvm_tensor **outs, tvm_schedule **sp,
                                 const char *key, double flops) {
  const tvm_gnode *a = G->anchor;
  tvm_config *cfg = tvm_config_create();
  tvm_status st;
  *sp = NULL;
  if (!cfg)
    return tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
  const char *used = NULL;
  int pat = a->def ? (int)a->def->pattern : -1;
  st = call_hook(kb, G, first_strategy(kb, G, outs), key, flops, 0, cfg);
  if (!st)
    st = tvm_strategy_schedule(kb->env, a->op, pat, a, outs, G->noutputs, cfg,
                               sp, &used);
  /* A configuration its template rejects (tvm_cfg_reject: e.g. more
   * accumulators than the registers) would be built anyway: a tuning
   * log's record from another CPU, or an edited one.  The template's
   * default is used instead, and said; a default the template rejects
   * itself is built as it is (as before), and said. */
  if (!st && tvm_config_rejected(cfg)) {
    char why[256], *was = tvm_config_str(cfg);
    snprintf(why, sizeof why, "%s", tvm_config_rejected(cfg));
    tvm_schedule_free(*sp);
    *sp = NULL;
    tvm_config_free(cfg);
    cfg = tvm_config_create();
    st = cfg ? tvm_strategy_schedule(kb->env, a->op, pat, a, outs,
                                     G->noutputs, cfg, sp, &used)
             : tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
    if (!st && !tvm_config_rejected(cfg))
      tvm_log(TVM_LOG_WARN, "%s '%s': strategy '%s' rejects the tuning "
              "log's configuration (%s): %s; its default is used (a log "
              "from another CPU or target? re-tune)", a->op, a->name,
              used ? used : "?", was ? was : "?", why);
    else if (!st)
      tvm_log(TVM_LOG_WARN, "%s '%s': strategy '%s' rejects its own "
              "default configuration (%s): %s; built as it is (a defect "
              "of the target's plugin: report it)", a->op, a->name,
              used ? used : "?", was ? was : "?", why);
    tvm_free(was);
  }
  tvm_config_free(cfg);
  return st;
}

/* Builds or reuses the kernel of group G (see the top of this file); a
 * group whose outputs are all empty needs none (out->kernel stays NULL). */
tvm_status kernel_builder_add(kernel_builder *kb, const tvm_graph *g,
                              const tvm_graph_group *G, group_kernel *out) {
  tvm_tensor **in, **outs, **args;
  unsigned char *used;
  tvm_ptrmap seen = {0};
  tvm_schedule *s = NULL;
  tvm_status st;
  char *key = NULL;
  int nargs = 0, rec;
  (void)g;
  memset(out, 0, sizeof *out);
  {
    int work = 0;
    for (int k = 0; k < G->noutputs; k++)
      work |= tvm_gvalue_numel(G->outputs[k]) > 0;
    if (!work)
      return TVM_OK; /* only empty outputs: no kernel, no step */
  }
  for (int j = 0; j < G->nnodes; j++)
    out->flops += node_flops(G->nodes[j]);
  in = tvm_arena_alloc(kb->arena,
                       sizeof(tvm_tensor *) * (size_t)(G->ninputs + 1));
  outs = tvm_arena_alloc(kb->arena,
                         sizeof(tvm_tensor *) * (size_t)(G->noutputs + 1));
  args = tvm_arena_alloc(kb->arena, sizeof(tvm_tensor *) *
                                        (size_t)(G->ninputs + G->noutputs + 1));
  used = tvm_arena_alloc(kb->arena, (size_t)G->ninputs + 1);
  out->args = tvm_arena_alloc(
      kb->arena, sizeof(tvm_gvalue *) * (size_t)(G->ninputs + G->noutputs + 1));
  if (!in || !outs || !args || !used || !out->args)
    return tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");

  if ((st = declare(kb, G, in, outs)))
    goto fail;
  if ((st = reach(outs, G->noutputs, &seen)))
    goto fail;
  for (int i = 0; i < G->ninputs; i++) {
    void *p;
    used[i] = (unsigned char)tvm_ptrmap_get(&seen, in[i]->op, &p);
    if (used[i] && tvm_gvalue_numel(G->inputs[i]) == 0) {
      st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "input '%s' has no elements (shape with a 0) and is "
                        "read by the kernel; empty tensors are only "
                        "supported as constants read at compile time",
                        G->inputs[i]->name);
      goto fail;
    }
  }
  key = group_key(G, used);
  if (!key) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
    goto fail;
  }
  rec = table_find(kb, key);
  if (rec >= 0) {
    kernel_rec *r = &kb->recs[rec];
    for (int i = 0; i < r->ninputs; i++)
      out->args[nargs++] = G->inputs[r->inputs[i]];
    for (int k = 0; k < G->noutputs; k++)
      out->args[nargs++] = G->outputs[k];
    out->nargs = nargs;
    out->kernel = r->name;
    out->label = r->label;
    out->reused = 1;
    st = call_hook(kb, G, first_strategy(kb, G, outs), key, out->flops, 1,
                   NULL);
    tvm_free(key);
    tvm_ptrmap_free(&seen);
    return st;
  }

  kernel_rec r = {0};
  r.key = key;
  r.inputs = tvm_arena_alloc(kb->arena, sizeof(int) * (size_t)(G->ninputs + 1));
  make_names(kb, G, &r.name, &r.label);
  if (!r.inputs || !r.name || !r.label) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "compile: out of memory");
    goto fail;
  }
  for (int i = 0; i < G->ninputs; i++)
    if (used[i]) {
      r.inputs[r.ninputs++] = i;
      args[nargs] = in[i];
      out->args[nargs++] = G->inputs[i];
    }
  /* scheduling may give a 0-d output a 1-element form (tvm/strategy.h) */
  if ((st = schedule_group(kb, G, outs, &s, key, out->flops)))
    goto fail;
  for (int k = 0; k < G->noutputs; k++) {
    args[nargs] = outs[k];
    out->args[nargs++] = G->outputs[k];
  }
  st = tvm_lower(s, args, nargs, r.name, &kb->lo, &kb->mod);
  tvm_schedule_free(s);
  if (st)
    goto fail;
  if ((st = table_add(kb, &r)))
    goto fail;
  out->nargs = nargs;
  out->kernel = r.name;
  out->label = r.label;
  tvm_ptrmap_free(&seen);
  return TVM_OK;
fail:
  tvm_free(key);
  tvm_ptrmap_free(&seen);
  return tvm_diag_prefix(st, "group %d (%s, anchor '%s'): ", G->id,
                         G->anchor->op, G->anchor->name ? G->anchor->name : "");
}

/* For the tuner (tune_kernel.c): G's tensor expressions declared in c, as
 * kernel_builder_add declares them, and which inputs the outputs read. */
tvm_status compiler_group_declare(tvm_ctx *c, const tvm_graph_group *G,
                                  tvm_tensor **in, tvm_tensor **outs,
                                  unsigned char *used) {
  kernel_builder tmp;
  tvm_ptrmap seen = {0};
  memset(&tmp, 0, sizeof tmp);
  tmp.ctx = c;
  tvm_status st = declare(&tmp, G, in, outs);
  if (!st)
    st = reach(outs, G->noutputs, &seen);
  for (int i = 0; i < G->ninputs && !st; i++) {
    void *p;
    used[i] = (unsigned char)tvm_ptrmap_get(&seen, in[i]->op, &p);
  }
  tvm_ptrmap_free(&seen);
  return st;
}
