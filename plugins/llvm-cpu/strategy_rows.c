/*
 * strategy_rows.c - the llvm-cpu schedule template for operators that
 * normalize rows: Softmax and LayerNormalization over the last axis
 * (attention's scores, a transformer's every block).  The same code would
 * take LogSoftmax, which is not registered for it: its example case in
 * the SDK's backend-ops list normalizes a middle axis, which this
 * template declines, and the conformance suite wants every registered
 * operator to have a case the template schedules.
 *
 * Their computes (core/graph/ops/softmax.c, norm.c) are per-row
 * statistics, each of shape [rows..., 1], then the output:
 *   Softmax:   max[r] = rmax_l x[r, l];  sum[r] = sum_l exp(x[r, l] - max[r]);
 *              y[r, l] = exp(x[r, l] - max[r]) / sum[r]
 *   LayerNorm: sum, mean = sum / L, sqsum = sum_l (x - mean)^2,
 *              rstd = rsqrt(sqsum / L + eps); y = (x - mean) rstd scale + b.
 * The generic schedule runs every reduction as a scalar loop (Softmax:
 * one libm expf per element, 0.13 GFLOP/s on ViT's 197-wide rows).  Here
 * the rows (every axis but the last, fused) run in parallel; at each row,
 * in dataflow order, each reduction is split by the vector lanes and the
 * lanes factored out (rfactor: a vector of partial results accumulated
 * over the row one vector per step, then reduced across the lanes), each
 * other statistic is computed once, and the output is one vector per step.
 * exp is the plugin's inline SIMD exp.  A row the lanes do not divide
 * ends in a masked step (the vectorize pass versions full steps
 * unmasked).
 *
 * Rows shorter than half a vector take the narrowest power of two from 4
 * up that covers them (one masked step).
 *
 * Knob: tile_l, the elements per step, one vector or two (two independent
 * accumulator chains for each reduction: its latency hidden, the row's
 * ragged end wider).  Default one.  Declined (the
 * generic schedule takes them): more than one output (LayerNormalization's
 * optional Mean and InvStdDev), statistics over more than the last axis
 * (Softmax before opset 13, LayerNorm with an axis before the last), a
 * 1-D input.
 */
#include <string.h>

#include "tvm/config.h"
#include "tvm/plugin.h"
#include "llvm_cpu.h"

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

/* Is op a per-row statistic of O: shape [O.shape[:-1], 1], and, when a
 * reduction, one reduce axis over a constant extent? */
static int row_stat(const tvm_operation *op, const tvm_tensor *O) {
  const tvm_tensor *t = op->output;
  if (t->ndim != O->ndim || op->nreduce > 1) return 0;
  for (int d = 0; d < O->ndim; d++)
    if (t->shape_c[d] != (d == O->ndim - 1 ? 1 : O->shape_c[d])) return 0;
  int64_t k;
  return op->nreduce == 0 ||
         (op->reduce_axis[0]->dom.extent &&
          tvm_is_const_int(op->reduce_axis[0]->dom.extent, &k) && k > 0);
}

/* Schedules outs[0] as described at the top of the file. */
int32_t llvm_cpu_schedule_rows(tvm_plugin_target *t, tvm_schedule *s,
                               tvm_tensor **outs, uint32_t nouts,
                               tvm_config *cfg) {
  lc_isa isa;
  lc_isa_of(t, &isa);
  if (nouts != 1 || outs[0]->ndim < 2)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "llvm-cpu rows template: expected one output of rows "
                        "(2-D or more)");
  tvm_tensor *O = outs[0];
  int nd = O->ndim;
  int64_t L = O->shape_c[nd - 1], w = isa.lanes;
  while (w > 4 && w / 2 >= L) w /= 2; /* short rows: one narrower step */
  const int64_t tl_choices[2] = {w, 2 * w};
  w = tvm_cfg_choice(cfg, "tile_l", tl_choices, 2, 0);
  tvm_ptrvec ops = {0};
  tvm_status st = tvm_op_reachable_computes(O, &ops);
  if (st) return st;
  int ok = L > 0, nstats = 0;
  for (size_t i = 0; ok && i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op == O->op) continue;
    ok = row_stat(op, O);
    nstats++;
  }
  if (!ok || nstats == 0) {
    tvm_ptrvec_free(&ops);
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "llvm-cpu rows template: '%s' is not normalized over "
                        "its last axis alone", O->name);
  }
  tvm_stage *so = tvm_stage_of(s, O);
  tvm_iter_var *rows = tvm_stage_axis(so, 0), *lo, *li;
  for (int d = 1; d < nd - 1 && !st; d++)
    st = tvm_fuse(so, rows, tvm_stage_axis(so, d), &rows);
  if (!st) st = tvm_split(so, tvm_stage_axis(so, nd - 1), w, &lo, &li);
  if (!st) st = tvm_parallel(so, rows);
  if (!st) st = tvm_vectorize(so, li);
  /* the statistics at the row (the loop nest emits them in dataflow
   * order) */
  for (size_t i = 0; i < ops.len && !st; i++) {
    tvm_operation *op = ops.data[i];
    if (op == O->op) continue;
    st = op->nreduce ? row_reduce(s, op, w, so, rows)
                     : tvm_compute_at(tvm_stage_of(s, op->output), so, rows);
  }
  tvm_ptrvec_free(&ops);
  return st;
}
