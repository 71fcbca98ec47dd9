/*
 * strategy_softmax.c - the llvm-cpu schedule template for Softmax and
 * LogSoftmax over the last axis (attention's scores, classifiers).
 *
 * The compute (core/graph/ops/softmax.c) is three stages over rows of L:
 *   max[r] = rmax_l x[r, l];  sum[r] = sum_l exp(x[r, l] - max[r]);
 *   y[r, l] = exp(x[r, l] - max[r]) / sum[r]   (or x - max - log(sum)).
 * The generic schedule runs both reductions as scalar loops (one libm
 * expf per element: 0.13 GFLOP/s on ViT's 197-wide rows).  Here the rows
 * (every axis but the last, fused) run in parallel, and at each row both
 * reductions are split by the vector lanes and the lanes factored out
 * (rfactor): a vector of partial maxima (sums) accumulated over the row in
 * steps of one vector, then reduced across the lanes; the output is one
 * vector per step.  The exp of the sum and of the output is the plugin's
 * inline SIMD exp.  A row whose length the lanes do not divide ends in a
 * masked step (the vectorize pass versions full steps unmasked).
 *
 * No knobs.  Declined (the generic schedule takes them): normalization
 * over more than the last axis (Softmax before opset 13, unless only the
 * last axis is left), a 1-D input, rows shorter than one vector.
 */
#include <string.h>

#include "tvm/plugin.h"
#include "llvm_cpu.h"

/* The reduction stage of s tagged `tag` among ops, or NULL. */
static tvm_operation *tagged(tvm_ptrvec *ops, const char *tag) {
  for (size_t i = 0; i < ops->len; i++) {
    tvm_operation *op = ops->data[i];
    if (op->tag && strcmp(op->tag, tag) == 0) return op;
  }
  return NULL;
}

/* Splits red's single reduce axis by lanes, factors the lanes out and
 * computes both stages at `at` of the output: the partial stage's loops
 * (leading axes of extent 1, the outer reduce axis, the lanes) with the
 * lanes vectorized. */
static tvm_status row_reduce(tvm_schedule *s, tvm_operation *red,
                             int64_t lanes, tvm_stage *so, tvm_iter_var *at) {
  tvm_iter_var *ro, *ri;
  tvm_tensor *RF;
  tvm_stage *sr = tvm_stage_of(s, red->output);
  int nd = red->output->ndim;
  tvm_status st = tvm_split(sr, tvm_stage_reduce_axis(sr, 0), lanes, &ro, &ri);
  if (!st) st = tvm_rfactor(s, red->output, ri, nd, &RF);
  if (st) return st;
  tvm_stage *sf = tvm_stage_of(s, RF);
  sr = tvm_stage_of(s, red->output);
  st = tvm_compute_at(sr, so, at);
  if (!st) st = tvm_compute_at(sf, so, at);
  /* RF: (rows..., lanes) + reduce ro -> (rows..., ro, lanes vectorized) */
  tvm_iter_var *order[TVM_MAX_DIMS + 2];
  int n = 0;
  for (int d = 0; d < nd; d++) order[n++] = tvm_stage_axis(sf, d);
  order[n++] = tvm_stage_reduce_axis(sf, 0);
  order[n++] = tvm_stage_axis(sf, nd);
  if (!st) st = tvm_reorder(sf, order, n);
  if (!st) st = tvm_vectorize(sf, tvm_stage_axis(sf, nd));
  return st;
}

/* Schedules outs[0] as described at the top of the file. */
int32_t llvm_cpu_schedule_softmax(tvm_plugin_target *t, tvm_schedule *s,
                                  tvm_tensor **outs, uint32_t nouts,
                                  tvm_config *cfg) {
  (void)cfg;
  lc_isa isa;
  lc_isa_of(t, &isa);
  if (nouts != 1 || outs[0]->ndim < 2)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "llvm-cpu softmax template: expected one output of "
                        "rows (2-D or more)");
  tvm_tensor *O = outs[0];
  int nd = O->ndim;
  int64_t L = O->shape_c[nd - 1];
  tvm_ptrvec ops = {0};
  tvm_status st = tvm_op_reachable_computes(O, &ops);
  if (st) return st;
  tvm_operation *mx = tagged(&ops, "softmax_max"),
                *sm = tagged(&ops, "softmax_sum");
  int ok = mx && sm && O->op != mx && O->op != sm && mx->nreduce == 1 &&
           sm->nreduce == 1 && L >= isa.lanes;
  for (int d = 0; ok && d < nd; d++) /* only the last axis is reduced */
    ok = mx->output->shape_c[d] == (d == nd - 1 ? 1 : O->shape_c[d]);
  for (size_t i = 0; ok && i < ops.len; i++) /* nothing else to place */
    ok = ops.data[i] == O->op || ops.data[i] == mx || ops.data[i] == sm;
  tvm_ptrvec_free(&ops);
  if (!ok)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "llvm-cpu softmax template: '%s' is not a softmax "
                        "over its last axis of at least %d elements",
                        O->name, isa.lanes);
  tvm_stage *so = tvm_stage_of(s, O);
  tvm_iter_var *rows = tvm_stage_axis(so, 0), *lo, *li;
  for (int d = 1; d < nd - 1 && !st; d++)
    st = tvm_fuse(so, rows, tvm_stage_axis(so, d), &rows);
  if (!st) st = tvm_split(so, tvm_stage_axis(so, nd - 1), isa.lanes, &lo, &li);
  if (!st) st = tvm_parallel(so, rows);
  if (!st) st = tvm_vectorize(so, li);
  if (!st) st = row_reduce(s, mx, isa.lanes, so, rows);
  if (!st) st = row_reduce(s, sm, isa.lanes, so, rows);
  return st;
}
