/*
 * strategy_conv2d.c - the llvm-cpu schedule template for Conv_NCHWc (the
 * channel-blocked convolution chosen by this plugin's alter_layout, see
 * strategy_layout.c), in the spirit of TVM's x86 conv2d_NCHWc.
 *
 * The group it schedules is   [pad] -> conv -> [bias, relu, add, ...] -> O
 * (the conv tagged "conv2d_NCHWc" or "depthwise_conv2d_NCHWc", O the one
 * output, the elementwise epilogue fused by fuse_ops).  O's loops are
 * (n, oc_chunk, oh, ow, oc_block); ow is split by tile_ow and
 *
 *   parallel  fused(n, oc_chunk, oh)
 *     for ow_outer
 *       CC[tile_ow][oc_block] = 0                        (registers)
 *       for ic_outer, ky, kx, ic_block                  (reduction)
 *         unrolled ow_inner: vector FMA over oc_block
 *       unrolled ow_inner: O = epilogue(CC) (vector)    (fused epilogue)
 *
 * CC is the conv computed into a "local" buffer (cache_write) attached at
 * ow_outer; the conv's own copy stage and every epilogue stage but O are
 * inlined, so bias, relu and the residual add run on the register block
 * before the one store.  After unrolling, every access of CC has a
 * constant offset and LLVM keeps the tile_ow accumulators (one vector of
 * oc_block lanes each) in registers: per reduction step one weight vector
 * load, tile_ow broadcasts of the input and tile_ow FMAs.  The padded
 * input is computed at the root in parallel (regular convolutions: the
 * broadcast operands then need no select) or inlined (depthwise).
 *
 * Knob: tile_ow (a divisor of the output width; default the largest one
 * up to 14, so that the accumulators and the operands fit in 32 vector
 * registers).
 */
#include <string.h>

#include "tvm/config.h"
#include "tvm/plugin.h"
#include "llvm_cpu.h"

/* Is op the blocked convolution of a Conv_NCHWc? */
static int is_conv(const tvm_operation *op) {
  return op->tag && (strcmp(op->tag, "conv2d_NCHWc") == 0 ||
                     strcmp(op->tag, "depthwise_conv2d_NCHWc") == 0);
}

/* The largest divisor of n that is at most cap. */
static int64_t divisor_upto(int64_t n, int64_t cap) {
  for (int64_t d = cap < n ? cap : n; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

/* Schedules outs[0] as described at the top of the file. */
int32_t llvm_cpu_schedule_conv2d_nchwc(tvm_plugin_target *t, tvm_schedule *s,
                                       tvm_tensor **outs, uint32_t nouts,
                                       tvm_config *cfg) {
  tvm_ptrvec ops = {0};
  tvm_operation *conv = NULL, *pad = NULL;
  tvm_tensor *O, *CC;
  int depthwise = 0;
  tvm_status st;
  (void)t;
  if (nouts != 1 || outs[0]->ndim != 5)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "llvm-cpu conv2d_NCHWc template: expected one 5-D "
                        "output, got %u outputs", nouts);
  O = outs[0];
  if ((st = tvm_op_reachable_computes(O, &ops))) goto out;
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (is_conv(op)) {
      conv = op;
      depthwise = strcmp(op->tag, "depthwise_conv2d_NCHWc") == 0;
    }
    else if (op->tag && strcmp(op->tag, "pad") == 0) pad = op;
  }
  if (!conv || conv->output->ndim != 5) {
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "llvm-cpu conv2d_NCHWc template: no conv2d_NCHWc "
                      "stage under '%s'", O->name);
    goto out;
  }
  /* every stage between the conv and O is inlined into O */
  for (size_t i = 0; i < ops.len && !st; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op && op != conv && op != pad)
      st = tvm_compute_inline(tvm_stage_of(s, op->output));
  }
  if (st) goto out;
  int64_t OW = O->shape_c[3];
  int64_t choices[32];
  int nch = 0, dflt = 0;
  for (int64_t d = 1; d <= OW && d <= 32 && nch < 32; d++)
    if (OW % d == 0) {
      if (d == divisor_upto(OW, 14)) dflt = nch;
      choices[nch++] = d;
    }
  int64_t tw = tvm_cfg_choice(cfg, "tile_ow", choices, nch, dflt);

  tvm_tensor *convt = conv->output;
  if ((st = tvm_cache_write(s, convt, "local", &CC))) goto out;
  if (O->op != conv && (st = tvm_compute_inline(tvm_stage_of(s, convt))))
    goto out;
  {
    tvm_stage *so = tvm_stage_of(s, O);
    tvm_iter_var *owo, *owi, *f1, *f2;
    st = tvm_split(so, tvm_stage_axis(so, 3), tw, &owo, &owi);
    if (!st)
      st = tvm_reorder(so, (tvm_iter_var *[]){owo, owi, tvm_stage_axis(so, 4)},
                       3);
    if (!st) st = tvm_fuse(so, tvm_stage_axis(so, 0), tvm_stage_axis(so, 1), &f1);
    if (!st) st = tvm_fuse(so, f1, tvm_stage_axis(so, 2), &f2);
    if (!st) st = tvm_parallel(so, f2);
    if (!st) st = tvm_unroll(so, owi);
    if (!st) st = tvm_vectorize(so, tvm_stage_axis(so, 4));
    if (st) goto out;

    tvm_stage *sc = tvm_stage_of(s, CC);
    if ((st = tvm_compute_at(sc, so, owo))) goto out;
    tvm_iter_var *order[8];
    int no = 0;
    for (int r = 0; r < tvm_stage_num_reduce_axes(sc); r++)
      order[no++] = tvm_stage_reduce_axis(sc, r);
    order[no++] = tvm_stage_axis(sc, 3);
    order[no++] = tvm_stage_axis(sc, 4);
    st = tvm_reorder(sc, order, no);
    if (!st) st = tvm_unroll(sc, tvm_stage_axis(sc, 3));
    if (!st) st = tvm_vectorize(sc, tvm_stage_axis(sc, 4));
    if (st) goto out;
  }
  if (pad && depthwise) {
    /* a depthwise step reads input vectors, not broadcasts: reading the
     * zero padding through a select right there measured 2.5-3x faster
     * than a padded copy (a copy per row, or one pass at the root) */
    st = tvm_compute_inline(tvm_stage_of(s, pad->output));
  } else if (pad) {
    tvm_stage *sp = tvm_stage_of(s, pad->output);
    tvm_iter_var *f1, *f2;
    st = tvm_fuse(sp, tvm_stage_axis(sp, 0), tvm_stage_axis(sp, 1), &f1);
    if (!st) st = tvm_fuse(sp, f1, tvm_stage_axis(sp, 2), &f2);
    if (!st) st = tvm_parallel(sp, f2);
    if (!st) st = tvm_vectorize(sp, tvm_stage_axis(sp, 4));
  }
out:
  tvm_ptrvec_free(&ops);
  return st;
}
