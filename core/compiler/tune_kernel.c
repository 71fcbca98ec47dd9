/*
 * core/compiler/tune_kernel.c - what the tuner's hook (tvm/tune.h) sees
 * of a kernel being compiled, and lowering candidates of it.
 *
 * A workload is "<template>-<16 hex digits>": the hash of the group key
 * (operators, attributes, wiring, value types and shapes; see kernels.c),
 * so identical groups of any model share tuning records.  A candidate is
 * lowered in a context of its own (freed with it): the group's tensor
 * expressions are declared again, scheduled with the template under the
 * given knob values, and lowered as function "kernel"; the loop-program
 * features are taken from the loop IR after storage_flatten, where loops
 * still carry their annotations.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_int.h"

void compiler_tune_kernel_init(tvm_tune_kernel *k, const tvm_target *t,
                               const tvm_lower_options *lo, int lanes,
                               const tvm_graph_group *G,
                               const tvm_plugin_strategy *strat,
                               const char *key, double flops, int reused,
                               char workload[64]) {
  memset(k, 0, sizeof *k);
  k->t = t;
  k->lo = lo;
  k->lanes = lanes;
  k->G = G;
  k->strat = strat;
  k->tmpl = strat->name ? strat->name : "template";
  snprintf(workload, 64, "%.40s-%016llx", k->tmpl,
           (unsigned long long)tvm_hash_bytes(key, strlen(key),
                                              TVM_HASH_SEED));
  k->workload = workload;
  k->flops = flops;
  k->reused = reused;
  size_t n = 0;
  for (int i = 0; i < G->nnodes && n + 2 < sizeof k->label; i++)
    n += (size_t)snprintf(k->label + n, sizeof k->label - n, "%s%s",
                          i ? "+" : "", G->nodes[i]->op);
  const tvm_gvalue *o =
      G->anchor->noutputs > 0 ? G->anchor->outputs[0] : NULL;
  n = 0;
  for (int d = 0; o && d < o->ndim && n + 2 < sizeof k->shape; d++)
    n += (size_t)snprintf(k->shape + n, sizeof k->shape - n, "%s%lld",
                          d ? "x" : "", (long long)o->shape[d]);
}

const char *tvm_tune_kernel_workload(const tvm_tune_kernel *k) {
  return k->workload;
}
const char *tvm_tune_kernel_template(const tvm_tune_kernel *k) {
  return k->tmpl;
}
const char *tvm_tune_kernel_label(const tvm_tune_kernel *k) {
  return k->label;
}
const char *tvm_tune_kernel_shape(const tvm_tune_kernel *k) {
  return k->shape;
}
double tvm_tune_kernel_flops(const tvm_tune_kernel *k) { return k->flops; }
int tvm_tune_kernel_reused(const tvm_tune_kernel *k) { return k->reused; }
const tvm_target *tvm_tune_kernel_target(const tvm_tune_kernel *k) {
  return k->t;
}
const char *tvm_tune_kernel_layout_workload(const tvm_tune_kernel *k) {
  return k->G && k->G->anchor ? k->G->anchor->layout_workload : NULL;
}

/* Lowering's dump hook: features of the function after storage_flatten. */
static void take_features(void *ud, const char *pass, const tvm_func *f) {
  if (strcmp(pass, "storage_flatten") == 0)
    tvm_tune_features(f, (float *)ud);
}

/* tvm_tune_kernel_lower, or (features_only) only as far as the features:
 * lowering stops after storage_flatten and out->mod stays empty. */
static tvm_status lower_candidate(tvm_tune_kernel *k, tvm_config *cfg,
                                  int generic, int features_only,
                                  tvm_tune_lowered *out) {
  const tvm_graph_group *G = k->G;
  tvm_tensor *in[64], *outs[64], *args[128];
  unsigned char used[64];
  tvm_schedule *s = NULL;
  tvm_status st;
  memset(out, 0, sizeof *out);
  if (G->ninputs > 64 || G->noutputs > 64)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "tune: group with more than 64 inputs or outputs");
  out->ctx = tvm_ctx_create();
  if (!out->ctx)
    return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
  out->mod.ctx = out->ctx;
  if ((st = compiler_group_declare(out->ctx, G, in, outs, used)))
    goto fail;
  /* the reference (the generic schedule of the target's family at its
   * defaults), or a candidate of the generic thread schedule: on a
   * thread target it may replace a 0-d output, so before the arguments */
  int core_generic = generic || k->strat == &compiler_generic_thread_strategy;
  if (core_generic &&
      (st = compiler_strategy_generic(k->t, out->ctx, outs, G->noutputs,
                                      generic ? NULL : cfg, &s, NULL)))
    goto fail;
  int n = 0;
  for (int i = 0; i < G->ninputs; i++)
    if (used[i])
      args[n++] = in[i];
  for (int j = 0; j < G->noutputs; j++)
    args[n++] = outs[j];
  if (n > 64) {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "tune: more than 64 arguments");
    goto fail;
  }
  out->nargs = n;
  for (int a = 0; a < n; a++) {
    int64_t numel = 1;
    for (int d = 0; d < args[a]->ndim; d++)
      numel *= args[a]->shape_c[d] > 0 ? args[a]->shape_c[d] : 1;
    out->args[a].dtype = args[a]->dtype;
    out->args[a].numel = numel;
    out->args[a].is_output = a >= n - G->noutputs;
  }
  if (!core_generic) {
    if ((st = tvm_schedule_create(out->ctx, outs, G->noutputs, &s)))
      goto fail;
    /* schedule() or schedule_call() with the intrinsics declared in this
     * candidate's context (tvm/strategy.h) */
    st = compiler_strategy_apply(k->t, out->ctx, k->strat, G->anchor, s, outs,
                                 G->noutputs, cfg);
  }
  if (!st && !generic && tvm_config_rejected(cfg))
    st = tvm_diag_set(TVM_ERR_INVALID, "rejected by the template: %s",
                      tvm_config_rejected(cfg));
  if (st)
    goto fail;
  tvm_lower_options lo = *k->lo;
  lo.dump_pass = "storage_flatten";
  lo.dump = take_features;
  lo.dump_ud = out->features;
  if (features_only)
    lo.stop_after = "storage_flatten";
  st = tvm_lower(s, args, n, "kernel", &lo, &out->mod);
  tvm_schedule_free(s);
  s = NULL;
  if (!st)
    return TVM_OK;
fail:
  tvm_schedule_free(s);
  tvm_tune_lowered_free(out);
  return st;
}

tvm_status tvm_tune_kernel_lower(tvm_tune_kernel *k, tvm_config *cfg,
                                 int generic, tvm_tune_lowered *out) {
  return lower_candidate(k, cfg, generic, 0, out);
}

tvm_status tvm_tune_kernel_features(tvm_tune_kernel *k, tvm_config *cfg,
                                    float *features) {
  tvm_tune_lowered l;
  tvm_status st = lower_candidate(k, cfg, 0, 1, &l);
  if (st)
    return st;
  memcpy(features, l.features, sizeof l.features);
  tvm_tune_lowered_free(&l);
  return TVM_OK;
}

void tvm_tune_lowered_free(tvm_tune_lowered *l) {
  if (!l)
    return;
  if (l->ctx)
    tvm_ctx_destroy(l->ctx);
  l->ctx = NULL;
  l->mod.ctx = NULL;
  l->mod.funcs = NULL;
  l->mod.nfuncs = 0;
}
