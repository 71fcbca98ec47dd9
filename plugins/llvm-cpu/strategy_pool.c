/*
 * strategy_pool.c - the llvm-cpu schedule template for Pool_NCHWc
 * (MaxPool, GlobalAveragePool, GlobalMaxPool on channel-blocked data).
 *
 * The channel block is the innermost dimension, so every window element is
 * one vector: the window reduction (tag pool_max or pool_sum) runs with
 * loops (n, c_chunk, oh) fused and parallel, then ow, the window (ry, rx),
 * and the block vectorized.  MaxPool's padding is read through a select in
 * place (no padded copy of the input); a global average's sum is computed
 * at the output's parallel row, which then scales it.  An elementwise
 * epilogue fused after the pool is inlined into the output.
 *
 * Knob: unroll_rx (none / unroll: the window's x loop unrolled; default
 * none).
 */
#include <string.h>

#include "tvm/config.h"
#include "tvm/plugin.h"
#include "llvm_cpu.h"

/* Orders the window stage (..., ow, ry, rx, block) and vectorizes the
 * block. */
static tvm_status order_window(tvm_stage *sw, int unroll_rx) {
  tvm_iter_var *order[4] = {tvm_stage_axis(sw, 3), tvm_stage_reduce_axis(sw, 0),
                            tvm_stage_reduce_axis(sw, 1), tvm_stage_axis(sw, 4)};
  tvm_status st = tvm_reorder(sw, order, 4);
  if (!st && unroll_rx == TVM_ANN_UNROLL)
    st = tvm_unroll(sw, tvm_stage_reduce_axis(sw, 1));
  return st ? st : tvm_vectorize(sw, tvm_stage_axis(sw, 4));
}

/* Schedules outs[0] as described at the top of the file. */
int32_t llvm_cpu_schedule_pool_nchwc(tvm_plugin_target *t, tvm_schedule *s,
                                     tvm_tensor **outs, uint32_t nouts,
                                     tvm_config *cfg) {
  tvm_ptrvec ins = {0};
  tvm_operation *win = NULL;
  tvm_status st = TVM_OK;
  (void)t;
  static const int anns[] = {TVM_ANN_NONE, TVM_ANN_UNROLL};
  int unroll_rx = tvm_cfg_annotate(cfg, "unroll_rx", anns, 2, 0);
  if (nouts != 1 || outs[0]->ndim != 5)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "llvm-cpu pool_NCHWc template: expected one 5-D "
                        "output");
  tvm_tensor *O = outs[0];
  /* walk back from O through elementwise stages to the window stage */
  for (tvm_operation *op = O->op; op && !win;) {
    if (op->nreduce == 2 && op->tag &&
        (!strcmp(op->tag, "pool_max") || !strcmp(op->tag, "pool_sum"))) {
      win = op;
      break;
    }
    tvm_ptrvec_free(&ins);
    if ((st = tvm_op_inputs(op, &ins))) goto out;
    tvm_operation *next = NULL;
    for (size_t i = 0; i < ins.len; i++) {
      tvm_tensor *in = ins.data[i];
      if (in->op->kind == TVM_OP_COMPUTE && in->ndim == 5) next = in->op;
    }
    if (op != O->op && (st = tvm_compute_inline(tvm_stage_of(s, op->output))))
      goto out;
    op = next;
  }
  if (!win) {
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "llvm-cpu pool_NCHWc template: no window stage under "
                      "'%s'", O->name);
    goto out;
  }
  tvm_ptrvec_free(&ins);
  if ((st = tvm_op_inputs(win, &ins))) goto out;
  for (size_t i = 0; i < ins.len && !st; i++) {
    tvm_tensor *in = ins.data[i];
    if (in->op->kind == TVM_OP_COMPUTE && in->op->tag &&
        !strcmp(in->op->tag, "pad"))
      st = tvm_compute_inline(tvm_stage_of(s, in));
  }
  if (st) goto out;
  tvm_stage *so = tvm_stage_of(s, O), *sw = tvm_stage_of(s, win->output);
  tvm_iter_var *f1, *f2;
  st = tvm_fuse(so, tvm_stage_axis(so, 0), tvm_stage_axis(so, 1), &f1);
  if (!st) st = tvm_fuse(so, f1, tvm_stage_axis(so, 2), &f2);
  if (!st) st = tvm_parallel(so, f2);
  if (st) goto out;
  if (win == O->op) {
    st = order_window(so, unroll_rx);
  } else {
    st = tvm_vectorize(so, tvm_stage_axis(so, 4));
    if (!st) st = tvm_compute_at(sw, so, f2);
    if (!st) st = order_window(sw, unroll_rx);
  }
out:
  tvm_ptrvec_free(&ins);
  return st;
}
