/*
 * strategy_winograd.c - the llvm-cpu schedule template for
 * Conv2D_winograd_NCHWc, the Winograd F(m x m, 3x3) convolution (m = 4 or
 * 2, T = m + 2) on channel-blocked data that this plugin's alter_layout
 * chooses for some 3x3 stride-1 convolutions (strategy_layout.c; stages
 * in core/te/winograd_nchwc.c).  The group it schedules is
 *
 *   pad -> R -> V  |  V -> M -> S -> Y -> [bias, relu, add, ...] -> O
 *
 * in two kernels (two graph nodes, so that V lives in the memory plan):
 *
 *   input  parallel fused(tile, c_outer)
 *            d[T][T][lanes] = the padded patch (a select per element)
 *            R[T][T][lanes] = the row half: unrolled a, v; vector c
 *            unrolled e, v: V = the column half; vector c
 *   conv   parallel fused(n, ko_outer, tile row)
 *            for tile column block (tile_p tiles)
 *              for e, v:                               (T x T GEMMs)
 *                MC[tile_k][tile_p][ob] = 0               (registers)
 *                for c: unrolled ko, p: vector FMA over ob
 *                M[e][v] = MC                          (L1, T x T x block)
 *              for tile, chunk:
 *                S[m][T][ob] = At M: unrolled i, v; vector ob
 *                unrolled m x m: O = epilogue(S A)        (fused epilogue)
 *
 * Every transform is a fixed sequence of vector additions and constant
 * multiplications once unrolled (the TE bodies select the matrices' rows,
 * which fold).  The T x T GEMMs are the register-blocked part: per step
 * tile_k weight vectors, tile_p broadcasts of V and tile_k x tile_p FMAs.
 *
 * Knobs:
 *   tile_p   a divisor of the tiles in a row up to 16: tiles in the
 *            GEMM's register block.  Default the largest one the accumulator
 *            budget (min(14, registers - 4) / tile_k) allows.
 *   tile_k   1 or 2 output channel chunks in the register block.  Default
 *            the one with more accumulators (2 on a tie: each broadcast
 *            then feeds two FMAs; AVX2 with 14 tiles a row: 1 x 7, not
 *            2 x 2).
 */
#include <string.h>

#include "tvm/config.h"
#include "tvm/plugin.h"
#include "llvm_cpu.h"

/* The stage of outs' group tagged tag, or NULL. */
static tvm_operation *tagged(const tvm_ptrvec *ops, const char *tag) {
  for (size_t i = 0; i < ops->len; i++) {
    tvm_operation *op = ops->data[i];
    if (op->tag && strcmp(op->tag, tag) == 0) return op;
  }
  return NULL;
}

/* The largest divisor of n that is at most cap. */
static int64_t divisor_upto(int64_t n, int64_t cap) {
  for (int64_t d = cap < n ? cap : n; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

/* V (and R at it): per (tile, channel vector) the whole T x T transform. */
static tvm_status sched_input(tvm_schedule *s, tvm_operation *r,
                              tvm_operation *v, int64_t lanes,
                              tvm_iter_var **fused) {
  tvm_stage *sv = tvm_stage_of(s, v->output), *sr = tvm_stage_of(s, r->output);
  tvm_iter_var *co, *ci, *f = NULL;
  int64_t C = v->output->shape_c[3];
  int64_t vec = C % lanes == 0 ? lanes : divisor_upto(C, lanes);
  tvm_status st = tvm_split(sv, tvm_stage_axis(sv, 3), vec, &co, &ci);
  if (!st)
    st = tvm_reorder(sv, (tvm_iter_var *[]){tvm_stage_axis(sv, 2), co,
                                            tvm_stage_axis(sv, 0),
                                            tvm_stage_axis(sv, 1), ci}, 5);
  if (!st) st = tvm_fuse(sv, tvm_stage_axis(sv, 2), co, &f);
  if (!st) st = tvm_parallel(sv, f);
  if (!st) st = tvm_unroll(sv, tvm_stage_axis(sv, 0));
  if (!st) st = tvm_unroll(sv, tvm_stage_axis(sv, 1));
  if (!st) st = tvm_vectorize(sv, ci);
  if (!st) st = tvm_compute_at(sr, sv, f);
  if (!st) st = tvm_unroll(sr, tvm_stage_axis(sr, 0));
  if (!st) st = tvm_unroll(sr, tvm_stage_axis(sr, 1));
  if (!st) st = tvm_vectorize(sr, tvm_stage_axis(sr, 3));
  *fused = f;
  return st;
}

/* Schedules the input transform (Conv2D_winograd_input_NCHWc): per
 * (tile, channel vector) the padded patch and R in local buffers, V
 * stored. */
int32_t llvm_cpu_schedule_winograd_input_nchwc(tvm_plugin_target *t,
                                               tvm_schedule *s,
                                               tvm_tensor **outs,
                                               uint32_t nouts,
                                               tvm_config *cfg) {
  (void)cfg;
  tvm_ptrvec ops = {0};
  tvm_status st;
  lc_isa isa;
  lc_isa_of(t, &isa);
  if (nouts != 1 || outs[0]->ndim != 4)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "llvm-cpu winograd_input_NCHWc template: expected one "
                        "4-D output, got %u outputs", nouts);
  if ((st = tvm_op_reachable_computes(outs[0], &ops))) goto out;
  tvm_operation *pad = tagged(&ops, "pad"),
                *r = tagged(&ops, "winograd_nchwc_input_rows"),
                *v = tagged(&ops, "winograd_nchwc_input");
  if (!pad || !r || !v || v != outs[0]->op) {
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "llvm-cpu winograd_input_NCHWc template: no Winograd "
                      "F(m x m, 3x3) input transform at '%s'", outs[0]->name);
    goto out;
  }
  tvm_iter_var *f;
  if (!(st = sched_input(s, r, v, isa.lanes, &f))) {
    /* the padded T x T patch per (tile, channel vector), one select per
     * element (inlined, each read of it in R repeats the select) */
    tvm_stage *sp = tvm_stage_of(s, pad->output), *sv = tvm_stage_of(s, v->output);
    st = tvm_compute_at(sp, sv, f);
    if (!st) st = tvm_unroll(sp, tvm_stage_axis(sp, 2));
    if (!st) st = tvm_unroll(sp, tvm_stage_axis(sp, 3));
    if (!st) st = tvm_vectorize(sp, tvm_stage_axis(sp, 4));
  }
out:
  tvm_ptrvec_free(&ops);
  return st;
}

/* Schedules outs[0] as described at the top of the file. */
int32_t llvm_cpu_schedule_winograd_nchwc(tvm_plugin_target *t, tvm_schedule *s,
                                         tvm_tensor **outs, uint32_t nouts,
                                         tvm_config *cfg) {
  tvm_ptrvec ops = {0};
  tvm_status st;
  lc_isa isa;
  lc_isa_of(t, &isa);
  if (nouts != 1 || outs[0]->ndim != 5)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "llvm-cpu winograd_NCHWc template: expected one 5-D "
                        "output, got %u outputs", nouts);
  tvm_tensor *O = outs[0];
  if ((st = tvm_op_reachable_computes(O, &ops))) goto out;
  tvm_operation *m = tagged(&ops, "winograd_nchwc_batch_gemm"),
                *sop = tagged(&ops, "winograd_nchwc_output_rows"),
                *y = tagged(&ops, "winograd_nchwc_output");
  if (!m || !sop || !y) {
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "llvm-cpu winograd_NCHWc template: the Winograd F(m x m, "
                      "3x3) stages are not all under '%s'", O->name);
    goto out;
  }
  /* everything from Y to O is inlined into O */
  for (size_t i = 0; i < ops.len && !st; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op && op != m && op != sop)
      st = tvm_compute_inline(tvm_stage_of(s, op->output));
  }
  if (st) goto out;
  int64_t KO = O->shape_c[1], OW = O->shape_c[3], OB = O->shape_c[4];
  int64_t mt = sop->output->shape_c[0]; /* output tile: S is [m, T, ...] */
  int64_t TW = (OW + mt - 1) / mt;
  int64_t vpo = (OB + isa.lanes - 1) / isa.lanes;
  int64_t budget = isa.vregs - 4 < 14 ? isa.vregs - 4 : 14;
  budget = budget / vpo > 1 ? budget / vpo : 1;
  /* default: the chunk count (2 where even) whose register block holds
   * the most accumulators, 2 on a tie (a broadcast then feeds two FMAs) */
  int64_t kch[2] = {1, 2};
  int nk = KO % 2 == 0 ? 2 : 1, kd = 0;
  int64_t most = 0;
  for (int i = nk - 1; i >= 0; i--) {
    int64_t b = kch[i] * divisor_upto(TW, budget / kch[i] > 1 ? budget / kch[i] : 1);
    if (b > most) most = b, kd = i;
  }
  int64_t tk = tvm_cfg_choice(cfg, "tile_k", kch, nk, kd);
  int64_t per = budget / tk > 1 ? budget / tk : 1;
  int64_t pch[16];
  int np = 0, pd = 0;
  for (int64_t d = 1; d <= TW && d <= 16 && np < 16; d++)
    if (TW % d == 0) {
      if (d == divisor_upto(TW, per)) pd = np;
      pch[np++] = d;
    }
  int64_t tp = tvm_cfg_choice(cfg, "tile_p", pch, np, pd);
  if (tp * tk * vpo + tk + 1 > isa.vregs)
    tvm_cfg_reject(cfg, "tile_p x tile_k = %lld x %lld needs %lld accumulator "
                   "registers of %d", (long long)tp, (long long)tk,
                   (long long)(tp * tk * vpo), isa.vregs);
  tvm_tensor *MC;
  if ((st = tvm_cache_write(s, m->output, "local", &MC))) goto out;
  {
    tvm_stage *so = tvm_stage_of(s, O), *ss = tvm_stage_of(s, sop->output);
    tvm_stage *sm = tvm_stage_of(s, m->output), *sc = tvm_stage_of(s, MC);
    tvm_iter_var *koo, *koi, *th, *hi, *two, *wr, *twi, *wi, *f1, *f2;
    st = tvm_split(so, tvm_stage_axis(so, 1), tk, &koo, &koi);
    if (!st) st = tvm_split(so, tvm_stage_axis(so, 2), mt, &th, &hi);
    if (!st) st = tvm_split(so, tvm_stage_axis(so, 3), mt * tp, &two, &wr);
    if (!st) st = tvm_split(so, wr, mt, &twi, &wi);
    if (!st)
      st = tvm_reorder(so, (tvm_iter_var *[]){tvm_stage_axis(so, 0), koo, th,
                                              two, twi, koi, hi, wi,
                                              tvm_stage_axis(so, 4)}, 9);
    if (!st) st = tvm_fuse(so, tvm_stage_axis(so, 0), koo, &f1);
    if (!st) st = tvm_fuse(so, f1, th, &f2);
    if (!st) st = tvm_parallel(so, f2);
    if (!st) st = tvm_unroll(so, hi);
    if (!st) st = tvm_unroll(so, wi);
    if (!st) st = tvm_vectorize(so, tvm_stage_axis(so, 4));
    /* S (m x T vectors) per tile and chunk */
    if (!st) st = tvm_compute_at(ss, so, koi);
    if (!st) st = tvm_unroll(ss, tvm_stage_axis(ss, 0));
    if (!st) st = tvm_unroll(ss, tvm_stage_axis(ss, 1));
    if (!st) st = tvm_vectorize(ss, tvm_stage_axis(ss, 4));
    /* M for tile_k chunks x tile_p tiles, all T x T (e, v), at two */
    if (!st) st = tvm_compute_at(sm, so, two);
    if (!st) st = tvm_vectorize(sm, tvm_stage_axis(sm, 4));
    /* the register block of one (e, v): MC */
    if (!st) st = tvm_compute_at(sc, sm, tvm_stage_axis(sm, 1));
    if (!st)
      st = tvm_reorder(sc, (tvm_iter_var *[]){tvm_stage_reduce_axis(sc, 0),
                                              tvm_stage_axis(sc, 2),
                                              tvm_stage_axis(sc, 3),
                                              tvm_stage_axis(sc, 4)}, 4);
    if (!st && tk > 1) st = tvm_unroll(sc, tvm_stage_axis(sc, 2));
    if (!st) st = tvm_unroll(sc, tvm_stage_axis(sc, 3));
    if (!st) st = tvm_vectorize(sc, tvm_stage_axis(sc, 4));
  }
out:
  tvm_ptrvec_free(&ops);
  return st;
}
