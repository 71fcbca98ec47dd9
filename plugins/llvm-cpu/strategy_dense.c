/*
 * strategy_dense.c - the llvm-cpu schedule template for Gemm's product
 * when it is tagged "dense" (transB = 1, transA = 0: the fully connected
 * layer Y[i, j] = sum_k A[i, k] * B[j, k]).
 *
 * Both operands are read along k, so k is what gets vectorized: k is
 * split by the vector lanes and the lanes factored out (rfactor),
 *
 *   MF[i, j, kl] = sum_ko A[i, ko*lanes + kl] * B[j, ko*lanes + kl]
 *   mm[i, j]     = sum_kl MF[i, j, kl]                (horizontal sum)
 *
 * The output's j axis is tiled by tile_n; (i, j_outer) is fused and
 * parallel; for one tile, MF (a local block of tile_n vectors) is
 * accumulated with the loops (ko, j unrolled, kl vectorized): each k step
 * loads one vector of A and tile_n rows of B and issues tile_n
 * independent FMAs, so the FMA latency is hidden; then the horizontal sums
 * and the epilogue (bias, activation, inlined) finish the tile.  At batch
 * 1 this is a matrix-vector product, bound by reading B.  When k is no
 * multiple of the vector lanes, half (then a quarter) of them is used.
 *
 * Knob: tile_n (columns per tile: 1, 2, 4, 8, 16 and, where neither 4
 * nor 8 divides the columns, their largest divisor up to 8; default the
 * largest of 8, 4, that divisor, 2, 1 that divides the columns; values
 * whose tile_n accumulator vectors leave fewer than 2 of the ISA's vector
 * registers free are rejected: 16 on AVX2).  A product that is not
 * "dense", or whose k is not a multiple of the lanes, is refused and gets
 * the core's generic schedule.
 */
#include <string.h>

#include "tvm/config.h"
#include "tvm/plugin.h"
#include "llvm_cpu.h"

/* Schedules outs[0] as described at the top of the file. */
int32_t llvm_cpu_schedule_dense(tvm_plugin_target *t, tvm_schedule *s,
                                tvm_tensor **outs, uint32_t nouts,
                                tvm_config *cfg) {
  int64_t tile_n_choices[6] = {1, 2, 4, 8, 16, 0};
  tvm_ptrvec ops = {0};
  tvm_operation *dense = NULL;
  tvm_tensor *O, *mm, *MF;
  tvm_iter_var *ko, *kl, *jo, *ji, *fused;
  tvm_status st;
  int64_t lanes = t->vector_bits >= 128 ? t->vector_bits / 32 : 4;
  if (nouts != 1 || outs[0]->ndim != 2)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "llvm-cpu dense template: expected one 2-d output");
  O = outs[0];
  if ((st = tvm_op_reachable_computes(O, &ops))) goto out;
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op->tag && strcmp(op->tag, "dense") == 0) dense = op;
  }
  if (!dense || dense->nreduce != 1 || !dense->reduce_axis[0]->dom.extent) {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                      "llvm-cpu dense template: '%s' computes no dense "
                      "product", O->name);
    goto out;
  }
  int64_t K = -1;
  if (tvm_is_const_int(dense->reduce_axis[0]->dom.extent, &K))
    while (lanes > 4 && K % lanes) lanes /= 2; /* 16 -> 8 -> 4 */
  if (K <= 0 || K % lanes) {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                      "llvm-cpu dense template: k = %lld is not a multiple "
                      "of %lld lanes", (long long)K, (long long)lanes);
    goto out;
  }
  for (size_t i = 0; i < ops.len && !st; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op && op != dense)
      st = tvm_compute_inline(tvm_stage_of(s, op->output));
  }
  if (st) goto out;
  int64_t N = O->shape_c[1];
  int dflt = N % 8 == 0 ? 3 : N % 4 == 0 ? 2 : N % 2 == 0 ? 1 : 0, nch = 5;
  if (dflt < 2) {
    /* no power of two from 4 up divides the columns (1001 classes: 7 x
     * 11 x 13): the largest divisor up to 8 as a sixth choice (after the
     * five, so the logs' indices keep their values) and the default, so
     * that more than one or two chains of FMAs hide their latency */
    for (int64_t d = 8; d > tile_n_choices[dflt]; d--)
      if (N % d == 0) {
        tile_n_choices[nch] = d;
        dflt = nch++;
        break;
      }
  }
  int64_t tn = tvm_cfg_choice(cfg, "tile_n", tile_n_choices, nch, dflt);
  lc_isa isa;
  lc_isa_of(t, &isa);
  if (tn + 2 > isa.vregs)
    tvm_cfg_reject(cfg, "tile_n %lld accumulators exceed %d registers",
                   (long long)tn, isa.vregs);
  mm = dense->output;
  {
    tvm_stage *sm = tvm_stage_of(s, mm);
    if ((st = tvm_split(sm, tvm_stage_reduce_axis(sm, 0), lanes, &ko, &kl)))
      goto out;
    if ((st = tvm_rfactor(s, mm, kl, 2, &MF))) goto out;
  }
  tvm_stage *so = tvm_stage_of(s, O), *sm = tvm_stage_of(s, mm),
            *sf = tvm_stage_of(s, MF);
  st = tvm_split(so, tvm_stage_axis(so, 1), tn, &jo, &ji);
  if (!st) st = tvm_fuse(so, tvm_stage_axis(so, 0), jo, &fused);
  if (!st) st = tvm_parallel(so, fused);
  if (!st && O != mm) st = tvm_compute_at(sm, so, fused);
  if (!st && O != mm && tn >= 4 && (tn & (tn - 1)) == 0)
    st = tvm_vectorize(so, ji);
  if (!st) st = tvm_compute_at(sf, so, fused);
  if (st) goto out;
  /* MF: (i, j, kl) + reduce ko -> (i, ko, j unrolled, kl vectorized) */
  st = tvm_reorder(sf, (tvm_iter_var *[]){tvm_stage_axis(sf, 0),
                                          tvm_stage_reduce_axis(sf, 0),
                                          tvm_stage_axis(sf, 1),
                                          tvm_stage_axis(sf, 2)}, 4);
  if (!st) st = tvm_unroll(sf, tvm_stage_axis(sf, 1));
  if (!st) st = tvm_vectorize(sf, tvm_stage_axis(sf, 2));
out:
  tvm_ptrvec_free(&ops);
  return st;
}
