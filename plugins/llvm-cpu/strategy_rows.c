/*
 * strategy_rows.c - the llvm-cpu schedule templates for row statistics:
 * "rows" for the operators that normalize rows (below) and "reduce" for
 * Reduce* and the global pools over the last axes (at the end of the
 * file), both with their reductions factored by the vector lanes.
 *
 * rows: Softmax and LayerNormalization over the last axis
 * (attention's scores, a transformer's every block).  The same code would
 * take LogSoftmax, which is not registered for it: its example case in
 * the SDK's backend-ops list normalizes a middle axis, which this
 * template declines, and the conformance suite wants every registered
 * operator to have a case the template schedules.
 *
 * Their computes (core/graph/ops/softmax.c, norm.c) are per-row
 * statistics, each of shape [rows..., 1], then the output:
 *   Softmax:   max[r] = rmax_l x[r, l];  e[r, l] = exp(x[r, l] - max[r]);
 *              sum[r] = sum_l e[r, l];  y[r, l] = e[r, l] / sum[r]
 *   LayerNorm: sum, mean = sum / L, sqsum = sum_l (x - mean)^2,
 *              rstd = rsqrt(sqsum / L + eps); y = (x - mean) rstd scale + b.
 * The generic schedule runs every reduction as a scalar loop (Softmax:
 * one libm expf per element, 0.13 GFLOP/s on ViT's 197-wide rows).  Here
 * the rows (every axis but the last, fused) run in parallel; at each row,
 * in dataflow order, each reduction is split by the vector lanes and the
 * lanes factored out (rfactor: a vector of partial results accumulated
 * over the row one vector per step, then reduced across the lanes), each
 * other statistic is computed once, a stage of the output's shape
 * (Softmax's e) is computed for the row into a row buffer a vector per
 * step (each exponential once: the sum and the output read it; computed
 * inside both, as before, a 256 x 4096 Softmax took 1.2-1.3x the time),
 * and the output is one vector per step.
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

/* The factored stage RF of a reduction of nd axes (tvm_rfactor: axes
 * (rows..., lanes) and the remaining reduce axes) computed at `at` of so:
 * its loops (leading axes of extent 1 there, the reduce axes, the lanes)
 * with the lanes vectorized. */
static tvm_status rf_at(tvm_schedule *s, tvm_tensor *RF, int nd,
                        tvm_stage *so, tvm_iter_var *at) {
  tvm_stage *sf = tvm_stage_of(s, RF);
  tvm_iter_var *order[2 * TVM_MAX_DIMS + 2];
  int n = 0;
  tvm_status st = tvm_compute_at(sf, so, at);
  for (int d = 0; d < nd; d++) order[n++] = tvm_stage_axis(sf, d);
  for (int r = 0; r < sf->op->nreduce; r++)
    order[n++] = tvm_stage_reduce_axis(sf, r);
  order[n++] = tvm_stage_axis(sf, nd);
  if (!st) st = tvm_reorder(sf, order, n);
  if (!st) st = tvm_vectorize(sf, tvm_stage_axis(sf, nd));
  return st;
}

/* Splits red's last reduce axis by lanes, factors the lanes out and
 * computes both stages at `at` of the output: the partial stage's loops
 * (leading axes of extent 1, the outer reduce axes, the lanes) with the
 * lanes vectorized. */
static tvm_status row_reduce(tvm_schedule *s, tvm_operation *red,
                             int64_t lanes, tvm_stage *so, tvm_iter_var *at) {
  tvm_iter_var *ro, *ri;
  tvm_tensor *RF;
  tvm_stage *sr = tvm_stage_of(s, red->output);
  int nd = red->output->ndim, nr = red->nreduce;
  tvm_status st = tvm_split(sr, tvm_stage_reduce_axis(sr, nr - 1), lanes,
                            &ro, &ri);
  if (!st) st = tvm_rfactor(s, red->output, ri, nd, &RF);
  if (st) return st;
  sr = tvm_stage_of(s, red->output);
  st = tvm_compute_at(sr, so, at);
  if (!st) st = rf_at(s, RF, nd, so, at);
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

/* Is op an elementwise stage of O's shape (Softmax's exp(x - max))? */
static int row_elem(const tvm_operation *op, const tvm_tensor *O) {
  const tvm_tensor *t = op->output;
  if (op->nreduce || t->ndim != O->ndim) return 0;
  for (int d = 0; d < O->ndim; d++)
    if (t->shape_c[d] != O->shape_c[d]) return 0;
  return 1;
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
    if (row_elem(op, O)) continue;
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
    tvm_stage *sp = tvm_stage_of(s, op->output);
    if (row_elem(op, O)) { /* a row of it, a vector per step */
      st = tvm_compute_at(sp, so, rows);
      if (!st) st = tvm_split(sp, tvm_stage_axis(sp, nd - 1), w, &lo, &li);
      if (!st) st = tvm_vectorize(sp, li);
      continue;
    }
    st = op->nreduce ? row_reduce(s, op, w, so, rows)
                     : tvm_compute_at(sp, so, rows);
  }
  tvm_ptrvec_free(&ops);
  return st;
}

/* ---- Reduce* over the trailing axes --------------------------------------- */

/* Visitor hook: a read of a tensor whose last index is the variable in
 * v->data (found: v->data becomes NULL). */
static int read_along(tvm_visitor *v, const tvm_expr *e) {
  if (v->data && e->kind == TVM_TREAD && e->u.tread.n > 0 &&
      e->u.tread.indices[e->u.tread.n - 1] == v->data)
    v->data = NULL;
  return v->data == NULL; /* found: stop descending */
}

/* Does e read a tensor with last index the variable var? */
static int reads_along(const tvm_expr *e, const tvm_expr *var) {
  tvm_visitor v = {read_along, NULL, (void *)var};
  tvm_visit_expr(&v, e);
  return v.data == NULL;
}

/* A reduction whose innermost reduce axis (of constant extent) walks the
 * last (contiguous) axis of a tensor it reads (an input, or an elementwise
 * stage of the group inlined into it). */
static int reduces_rows(const tvm_operation *op) {
  int64_t k;
  if (op->kind != TVM_OP_COMPUTE || op->nreduce < 1 || !op->body ||
      op->body->kind != TVM_REDUCE || op->body->u.reduce.cond)
    return 0;
  const tvm_iter_var *r = op->reduce_axis[op->nreduce - 1];
  return r->dom.extent && tvm_is_const_int(r->dom.extent, &k) && k > 0 &&
         reads_along(op->body->u.reduce.source, r->var);
}

/* ReduceSum, ReduceMean, ... whose reduced axes include the input's last:
 * the generic schedule runs them as scalar loops, one add per element in
 * one dependent chain (a 256 x 4096 ReduceSum took 7x ONNX Runtime's
 * time).  Here the output's axes are fused and run in parallel; at each
 * output element every reduction (ReduceLogSumExp has two) is split along
 * its last axis by tile_l elements and those factored out (rfactor, as the
 * rows template above): tile_l partial results accumulated a vector per
 * step, then reduced across; Mean's divide, L2's sqrt or LogSum's log
 * follow once per element.  Knob tile_l: one vector or two (two chains of
 * adds); default one (two ran 0.99x the time on a 256 x 4096 ReduceSum,
 * which memory bounds, and 1.28x on 197 x 768).
 * A last axis shorter than half a vector takes the narrowest power of two
 * from 4 up that covers it (one masked step).  Declined (the generic
 * schedule takes them): reductions that do not include the last axis
 * (their output's last axis is contiguous: the generic schedule
 * vectorizes along it), a 0-d output. */
int32_t llvm_cpu_schedule_reduce(tvm_plugin_target *t, tvm_schedule *s,
                                 tvm_tensor **outs, uint32_t nouts,
                                 tvm_config *cfg) {
  lc_isa isa;
  lc_isa_of(t, &isa);
  if (nouts != 1 || outs[0]->ndim < 1)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "llvm-cpu reduce template: expected one output of "
                        "one or more dimensions");
  tvm_tensor *O = outs[0];
  tvm_ptrvec ops = {0};
  tvm_status st = tvm_op_reachable_computes(O, &ops);
  if (st) return st;
  int64_t w = isa.lanes, L = 0;
  int ok = ops.len > 0;
  int nred = 0;
  for (size_t i = 0; ok && i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op->nreduce == 0) continue; /* the epilogue, an inlined producer */
    nred++;
    ok = reduces_rows(op) && op->output->ndim == O->ndim;
    if (ok) {
      int64_t k = 0;
      tvm_is_const_int(op->reduce_axis[op->nreduce - 1]->dom.extent, &k);
      if (L == 0 || k < L) L = k;
    }
  }
  if (!ok || nred == 0) {
    tvm_ptrvec_free(&ops);
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "llvm-cpu reduce template: '%s' does not reduce its "
                        "input's last axis", O->name);
  }
  /* elementwise producers (a fused Pow before ReduceMean) inline into the
   * reductions that read them */
  for (size_t i = 0; i < ops.len && !st; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op && op->nreduce == 0)
      st = tvm_compute_inline(tvm_stage_of(s, op->output));
  }
  while (w > 4 && w / 2 >= L) w /= 2; /* short rows: one narrower step */
  const int64_t tl_choices[2] = {w, 2 * w};
  w = tvm_cfg_choice(cfg, "tile_l", tl_choices, 2, 0);
  /* the reduction as the output: its lanes factored out first, the
   * output then reduces across them */
  tvm_tensor *RF = NULL;
  if (!st && O->op->nreduce) {
    tvm_stage *sr = tvm_stage_of(s, O);
    tvm_iter_var *ro, *ri;
    st = tvm_split(sr, tvm_stage_reduce_axis(sr, O->op->nreduce - 1), w,
                   &ro, &ri);
    if (!st) st = tvm_rfactor(s, O, ri, O->ndim, &RF);
  }
  tvm_stage *so = tvm_stage_of(s, O);
  tvm_iter_var *rows = tvm_stage_axis(so, 0);
  for (int d = 1; d < O->ndim && !st; d++)
    st = tvm_fuse(so, rows, tvm_stage_axis(so, d), &rows);
  if (!st) st = tvm_parallel(so, rows);
  if (!st && RF) st = rf_at(s, RF, O->ndim, so, rows);
  for (size_t i = 0; i < ops.len && !st; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op && op->nreduce) st = row_reduce(s, op, w, so, rows);
  }
  tvm_ptrvec_free(&ops);
  return st;
}
