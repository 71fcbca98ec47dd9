/*
 * plugins/cuda/strategy_wmma.c - the cuda tensor-core template for a 2-d
 * matmul of 16-bit floats accumulated in float32:
 *   C[i, j] = sum_k f32(A[i, k]) * f32(B[k, j]),  A, B float16 or
 *   bfloat16 (sm_80+), C float32, M, N, K multiples of 16.
 * The graph's MatMul of 16-bit floats is that product followed by a
 * stage rounding it to 16 bits (tag "matmul_round", core/graph/ops/
 * gemm.c), maybe with fused elementwise stages after it: the product is
 * then a float32 intermediate in global memory and the rounding (with
 * the stages after it inlined) a second kernel.  A product accumulated in the 16-bit
 * type itself (sum in float16) is declined: the template would compute
 * something more exact than its TE says.
 *
 * Each block computes a bm x bn tile of C with (bm/wm) x (bn/wn) warps
 * (threadIdx.z x threadIdx.y, 32 lanes each on threadIdx.x).  Per k step
 * of bk all threads fetch the bm x bk tile of A and the bk x bn tile of B
 * into shared memory (rows cut into vectors of 8 consecutive elements
 * where the tile allows, the vectors split over the threads; each vector
 * one 16-byte copy).  Each warp keeps its
 * wm x wn tile of C in (wm/16) x (wn/16) float accumulator fragments
 * across the whole K loop; per 16-deep slice it loads wm/16 fragments of
 * A and wn/16 of B from shared memory and issues one mma_sync per
 * accumulator (intrinsics of wmma_intrin.c, by tensorize).  The
 * accumulators are stored to C with store_matrix_sync at the end.
 * The rows of both shared tiles are padded by pad_shared elements (8:
 * 16 bytes) against bank conflicts of the fragment loads, which then take
 * the padded row as their ldm.
 * With double_buffer the tiles get two copies: the block fetches step
 * k + 1's while its warps multiply step k's, one barrier per step.
 * Knobs (tvm/config.h): tile_bm, tile_bn (block tile), warp_m, warp_n
 * (warp tile), tile_k (bk), pad_shared (0, 8; default 8), double_buffer
 * (0, 1).  Limits checked before building: threads per block, shared
 * memory (padding and copies included), 128 accumulator registers per
 * thread.
 */
#include <stdio.h>
#include <string.h>

#include "tvm/config.h"
#include "tvm/schedule.h"
#include "cuda_plugin.h"

#define OK(x)                                                               \
  do {                                                                      \
    if ((st = (x)) != TVM_OK) return st;                                    \
  } while (0)

#define NO(...) tvm_diag_set(TVM_ERR_UNSUPPORTED, "cuda wmma template: " __VA_ARGS__)

/* A knob among choices; its default is the largest choice up to most
 * that divides n (the first when none does). */
static int64_t knob(tvm_config *cfg, const char *name, const int64_t *ch,
                    int nch, int64_t n, int64_t most) {
  int d = 0;
  for (int i = 0; i < nch; i++)
    if (n % ch[i] == 0 && ch[i] <= most) d = i;
  return tvm_cfg_choice(cfg, name, ch, nch, d);
}

/* Fetches the 2-d tile of cache stage ss with all wz x wy x 32 threads,
 * vec consecutive elements per thread and step: one vector copy when
 * vectorize is set (the CUDA C emitter spells 8 16-bit lanes as one
 * 16-byte uint4 access where both addresses are provably aligned, lane
 * by lane otherwise), unrolled scalar copies when not. */
static tvm_status coop_fetch(tvm_stage *ss, int64_t vec, int vectorize,
                             int64_t wy, int64_t wz, tvm_iter_var *tz,
                             tvm_iter_var *ty, tvm_iter_var *tx) {
  tvm_iter_var *jo, *v, *fo, *o2, *lx, *o3, *ly, *o4, *lz;
  tvm_status st;
  /* the vector splits the row, not the fused index: its lanes stay
   * consecutive elements of one row whatever the row's stride (padded
   * shared rows), with no floordiv of the lane for vectorize to see */
  OK(tvm_split(ss, tvm_stage_axis(ss, 1), vec, &jo, &v));
  OK(tvm_fuse(ss, tvm_stage_axis(ss, 0), jo, &fo));
  OK(tvm_split(ss, fo, 32, &o2, &lx));
  OK(tvm_split(ss, o2, wy, &o3, &ly));
  OK(tvm_split(ss, o3, wz, &o4, &lz));
  OK(tvm_bind(ss, lz, tz));
  OK(tvm_bind(ss, ly, ty));
  OK(tvm_bind(ss, lx, tx));
  if (vec > 1) OK(vectorize ? tvm_vectorize(ss, v) : tvm_unroll(ss, v));
  return TVM_OK;
}

/* Walks from out down a chain of elementwise stages, each reading one
 * tensor of its own 2-d shape at [i, j] (the graph's rounding of a 16-bit
 * MatMul, "matmul_round", and what the graph fused after it: Cast, Relu,
 * ...), to the reduction under it: *mm, with the chain outermost first
 * (none when out is the reduction itself). */
static tvm_status epilogue(tvm_tensor *out, tvm_tensor **chain, int *n,
                           tvm_tensor **mm) {
  tvm_tensor *t = out;
  *n = 0;
  while (t->op->kind == TVM_OP_COMPUTE && t->op->nreduce == 0 &&
         t->ndim == 2 && *n < 8) {
    tvm_ptrvec in = {0};
    tvm_status st = tvm_op_inputs(t->op, &in);
    if (st) return st;
    tvm_tensor *x = in.len == 1 ? in.data[0] : NULL;
    tvm_ptrvec_free(&in);
    if (!x || x->ndim != 2 || x->shape_c[0] != t->shape_c[0] ||
        x->shape_c[1] != t->shape_c[1])
      return NO("'%s' is not an elementwise stage over a 2-d matmul (one "
                "input of its shape)", t->name);
    chain[(*n)++] = t;
    t = x;
  }
  *mm = t;
  return TVM_OK;
}

/* The rounding of the float32 product to 16 bits: its own kernel, 4
 * consecutive elements per thread, 256 threads per block. */
static tvm_status round_stage(tvm_stage *sr, tvm_ctx *c, int64_t n) {
  tvm_iter_var *f, *fo, *v, *bo, *t;
  tvm_status st;
  OK(tvm_fuse(sr, tvm_stage_axis(sr, 0), tvm_stage_axis(sr, 1), &f));
  OK(tvm_split(sr, f, n % 4 ? 1 : 4, &fo, &v));
  OK(tvm_split(sr, fo, 256, &bo, &t));
  OK(tvm_bind(sr, bo, tvm_thread_axis(c, "blockIdx.x", NULL)));
  OK(tvm_bind(sr, t, tvm_thread_axis(c, "threadIdx.x", NULL)));
  OK(tvm_unroll(sr, v));
  return TVM_OK;
}

/* The schedule; wmma = 0 leaves the tensorize and fragment scopes out
 * ("local" instead, every lane of a warp computing its warp's tile) and
 * accepts any operand type, so that the same tiling can run as plain
 * loops on a device without tensor cores (the tests run it in float32). */
static int32_t schedule(tvm_plugin_target *t,
                        const tvm_plugin_strategy_call *call, tvm_schedule *s,
                        tvm_tensor **outs, uint32_t nouts, tvm_config *cfg,
                        int wmma) {
  static const int64_t block_ch[] = {16, 32, 64, 128};
  static const int64_t warp_ch[] = {16, 32, 64};
  static const int64_t k_ch[] = {16, 32, 64};
  tvm_status st;
  tvm_tensor *C, *A = NULL, *B = NULL, *R = NULL;
  /* the graph's MatMul of 16-bit floats: a float32 product rounded to
   * 16 bits by a second stage (core/graph/ops/gemm.c) */
  tvm_tensor *mm = outs[0], *chain[8];
  int nchain = 0;
  if (nouts == 1) OK(epilogue(outs[0], chain, &nchain, &mm));
  if (nchain) R = chain[0];
  OK(tvm_op_match_matmul(&mm, 1, "cuda wmma template", &A, &B));
  C = mm;
  tvm_dtype ta = A->dtype, tb = B->dtype;
  int bf16 = ta.code == kDLBfloat;
  if (wmma && !((ta.code == kDLFloat || ta.code == kDLBfloat) &&
                 ta.bits == 16 && ta.lanes == 1 && tvm_dtype_eq(ta, tb)))
    return NO("operands must both be float16 or bfloat16 (tensor cores); "
              "%s products go to cuda.matmul_shared_tiled",
              ta.code == kDLFloat && ta.bits == 32 ? "float32" : "other");
  if (!tvm_dtype_eq(C->dtype, TVM_F32))
    return NO("'%s' accumulates in its 16-bit input type; the template "
              "accumulates in float32 (a float32 output of float32 "
              "products)", C->name);
  if (bf16 && t->arch < 80)
    return NO("bfloat16 tensor cores need sm_80 or newer (target sm_%lld)",
              (long long)t->arch);
  if (t->arch < 70)
    return NO("tensor cores need sm_70 or newer");
  int64_t M = C->shape_c[0], N = C->shape_c[1], K = A->shape_c[1];
  if (M % 16 || N % 16 || K % 16)
    return NO("M, N, K = %lld, %lld, %lld must be multiples of 16 (one "
              "16x16x16 fragment); ragged shapes go to "
              "cuda.matmul_shared_tiled", (long long)M, (long long)N,
              (long long)K);
  /* defaults: 128 x 128 blocks of 2 x 4 warps of 64 x 32 (8 accumulator
   * fragments, 64 registers), k by 64 double-buffered (below): 70 KiB of
   * padded tiles, 256 threads */
  int64_t bm = knob(cfg, "tile_bm", block_ch, 4, M, 128);
  int64_t bn = knob(cfg, "tile_bn", block_ch, 4, N, 128);
  int64_t wm = knob(cfg, "warp_m", warp_ch, 3, bm, bm > 16 ? bm / 2 : 16);
  int64_t wn = knob(cfg, "warp_n", warp_ch, 3, bn, bn > 32 ? bn / 4 : 16);
  int64_t bk = knob(cfg, "tile_k", k_ch, 3, K, 64);
  /* each row of the shared tiles padded by pad elements (16 bytes of
   * 16-bit ones): rows of bk + 8 and bn + 8 elements spread the rows a
   * fragment load reads over the banks.  Rows stay multiples of 8
   * elements: 16-byte copies stay aligned, wmma's ldm (the padded row)
   * stays a multiple of 8 and every fragment's first element, 16 whole
   * rows and a multiple of 16 columns in, 32-byte aligned. */
  static const int64_t pad_ch[] = {0, 8};
  int64_t pad = tvm_cfg_choice(cfg, "pad_shared", pad_ch, 2, 1);
  /* double_buffer: two copies of each tile, step k + 1's fetched while
   * step k's multiply (core/lower/inject_double_buffer.c).  On by default
   * where the two copies fit: float16 4096^3 on an H200 took 0.546 ms
   * with k by 64 double-buffered, 0.571 single, 0.602 with k by 32
   * single (the default before), 0.703 k by 32 double (one run,
   * bench/RESULTS.md, 2026-11-30). */
  static const int64_t db_ch[] = {0, 1};
  int db_fits = 2 * (bm * (bk + pad) + bk * (bn + pad)) * (ta.bits / 8) <=
                t->max_shared;
  int64_t db = tvm_cfg_choice(cfg, "double_buffer", db_ch, 2, db_fits);
  int64_t warps = (bm / wm) * (bn / wn), threads = 32 * warps;
  int64_t shared = (db ? 2 : 1) * (bm * (bk + pad) + bk * (bn + pad)) *
                   (ta.bits / 8);
  int64_t acc_regs = (wm / 16) * (wn / 16) * 8;
  const char *why = NULL;
  char msg[200];
  if (M % bm || N % bn || K % bk || bm % wm || bn % wn)
    why = "tiles must divide the shape and the warp tiles the block tile";
  else if (threads > t->max_threads)
    why = "more threads per block than the target allows";
  else if (shared > t->max_shared)
    why = "the A and B tiles exceed the target's shared memory";
  else if (acc_regs > 128)
    why = "more than 128 accumulator registers per thread (spills)";
  if (why) {
    snprintf(msg, sizeof msg, "%s (bm %lld bn %lld wm %lld wn %lld bk %lld "
             "pad %lld%s: %lld threads, %lld B shared)", why, (long long)bm,
             (long long)bn, (long long)wm, (long long)wn, (long long)bk,
             (long long)pad, db ? ", double-buffered" : "",
             (long long)threads, (long long)shared);
    tvm_cfg_reject(cfg, "%s", msg);
    return NO("%s", msg);
  }
  int64_t vec = 8;
  while (vec > 1 && ((bm * bk) % (threads * vec) || (bk * bn) % (threads * vec) ||
                     bk % vec || bn % vec))
    vec /= 2;
  if ((bm * bk) % threads || (bk * bn) % threads) {
    tvm_cfg_reject(cfg, "%lld threads cannot fetch the tiles evenly",
                   (long long)threads);
    return NO("%lld threads cannot fetch a %lldx%lld and a %lldx%lld tile "
              "evenly", (long long)threads, (long long)bm, (long long)bk,
              (long long)bk, (long long)bn);
  }
  tvm_tensor_intrin *ld = NULL, *mma = NULL, *stor = NULL;
  if (wmma) {
    OK(cuda_wmma_intrin(t, s->ctx, call, bf16 ? "wmma_load_bf16" : "wmma_load_f16", &ld));
    OK(cuda_wmma_intrin(t, s->ctx, call, bf16 ? "wmma_mma_bf16" : "wmma_mma_f16", &mma));
    OK(cuda_wmma_intrin(t, s->ctx, call, "wmma_store_f32", &stor));
  }
  tvm_tensor *CF, *AS, *BS, *AF, *BF;
  tvm_ctx *c = s->ctx;
  OK(tvm_cache_write(s, C, wmma ? "wmma.accumulator" : "local", &CF));
  tvm_operation *rd[1] = {tvm_stage_of(s, CF)->op};
  OK(tvm_cache_read(s, A, "shared", rd, 1, &AS));
  OK(tvm_cache_read(s, AS, wmma ? "wmma.matrix_a" : "local", rd, 1, &AF));
  OK(tvm_cache_read(s, B, "shared", rd, 1, &BS));
  OK(tvm_cache_read(s, BS, wmma ? "wmma.matrix_b" : "local", rd, 1, &BF));
  tvm_stage *sc = tvm_stage_of(s, C), *scf = tvm_stage_of(s, CF);
  if (R) OK(round_stage(tvm_stage_of(s, R), c, M * N));
  for (int i = 1; i < nchain; i++)
    OK(tvm_compute_inline(tvm_stage_of(s, chain[i])));
  tvm_iter_var *bx = tvm_thread_axis(c, "blockIdx.x", NULL);
  tvm_iter_var *by = tvm_thread_axis(c, "blockIdx.y", NULL);
  tvm_iter_var *tx = tvm_thread_axis(c, "threadIdx.x", NULL);
  tvm_iter_var *ty = tvm_thread_axis(c, "threadIdx.y", NULL);
  tvm_iter_var *tz = tvm_thread_axis(c, "threadIdx.z", NULL);

  /* C: blocks, warps, fragments; stored from the accumulators */
  tvm_iter_var *yo, *yi, *xo, *xi, *yw, *yr, *xw, *xr, *yf, *y16, *xf, *x16;
  OK(tvm_split(sc, tvm_stage_axis(sc, 0), bm, &yo, &yi));
  OK(tvm_split(sc, tvm_stage_axis(sc, 1), bn, &xo, &xi));
  OK(tvm_split(sc, yi, wm, &yw, &yr));
  OK(tvm_split(sc, xi, wn, &xw, &xr));
  OK(tvm_split(sc, yr, 16, &yf, &y16));
  OK(tvm_split(sc, xr, 16, &xf, &x16));
  OK(tvm_reorder(sc, (tvm_iter_var *[]){yo, xo, yw, xw, yf, xf, y16, x16}, 8));
  OK(tvm_bind(sc, yo, by));
  OK(tvm_bind(sc, xo, bx));
  OK(tvm_bind(sc, yw, tz));
  OK(tvm_bind(sc, xw, ty));
  OK(tvm_unroll(sc, yf));
  OK(tvm_unroll(sc, xf));
  if (wmma) OK(tvm_tensorize(sc, y16, stor));
  OK(tvm_compute_at(scf, sc, xw));

  /* the warp's accumulators across K: k by bk, by 16, fragments inside */
  tvm_iter_var *ko, *ki, *kf, *k16, *ci, *cif, *ci16, *cj, *cjf, *cj16;
  ci = tvm_stage_axis(scf, 0);
  cj = tvm_stage_axis(scf, 1);
  OK(tvm_split(scf, tvm_stage_reduce_axis(scf, 0), bk, &ko, &ki));
  OK(tvm_split(scf, ki, 16, &kf, &k16));
  OK(tvm_split(scf, ci, 16, &cif, &ci16));
  OK(tvm_split(scf, cj, 16, &cjf, &cj16));
  OK(tvm_reorder(scf, (tvm_iter_var *[]){ko, kf, cif, cjf, ci16, cj16, k16}, 7));
  OK(tvm_unroll(scf, kf));
  OK(tvm_unroll(scf, cif));
  OK(tvm_unroll(scf, cjf));
  if (wmma) OK(tvm_tensorize(scf, ci16, mma));

  /* fragments of A and B per 16-deep slice */
  tvm_stage *saf = tvm_stage_of(s, AF), *sbf = tvm_stage_of(s, BF);
  OK(tvm_compute_at(saf, scf, kf));
  OK(tvm_compute_at(sbf, scf, kf));
  tvm_iter_var *ao, *a16, *bo, *b16;
  OK(tvm_split(saf, tvm_stage_axis(saf, 0), 16, &ao, &a16));
  OK(tvm_unroll(saf, ao));
  if (wmma) OK(tvm_tensorize(saf, a16, ld));
  tvm_iter_var *bk_ax = tvm_stage_axis(sbf, 0);
  OK(tvm_split(sbf, tvm_stage_axis(sbf, 1), 16, &bo, &b16));
  OK(tvm_reorder(sbf, (tvm_iter_var *[]){bo, bk_ax, b16}, 3));
  OK(tvm_unroll(sbf, bo));
  if (wmma) OK(tvm_tensorize(sbf, bk_ax, ld));

  /* the shared tiles, fetched at each k step by all threads */
  tvm_stage *sa = tvm_stage_of(s, AS), *sb = tvm_stage_of(s, BS);
  OK(tvm_compute_at(sa, scf, ko));
  OK(tvm_compute_at(sb, scf, ko));
  /* rows of bk + pad and bn + pad elements (row stride % row == pad) */
  if (pad) {
    OK(tvm_storage_align(sa, sa->op->axis[0], (int)bk, (int)pad));
    OK(tvm_storage_align(sb, sb->op->axis[0], (int)bn, (int)pad));
  }
  /* vector copies: each thread's vec elements start at a multiple of vec
   * in both the global rows (K, N elements long) and the tiles (bk, bn
   * and the padded rows), so both addresses are vec-aligned */
  int vectorize = K % vec == 0 && N % vec == 0;
  OK(coop_fetch(sa, vec, vectorize, bn / wn, bm / wm, tz, ty, tx));
  OK(coop_fetch(sb, vec, vectorize, bn / wn, bm / wm, tz, ty, tx));
  if (db) {
    OK(tvm_double_buffer(sa));
    OK(tvm_double_buffer(sb));
  }
  return TVM_OK;
}

int32_t cuda_schedule_wmma(tvm_plugin_target *t,
                           const tvm_plugin_strategy_call *call,
                           tvm_schedule *s, tvm_tensor **outs, uint32_t nouts,
                           tvm_config *cfg) {
  return schedule(t, call, s, outs, nouts, cfg, 1);
}

int32_t cuda_schedule_wmma_plain(tvm_plugin_target *t, tvm_schedule *s,
                                 tvm_tensor **outs, uint32_t nouts,
                                 tvm_config *cfg) {
  return schedule(t, NULL, s, outs, nouts, cfg, 1);
}

/* See cuda_plugin.h: the same tiling without tensor cores. */
int32_t cuda_schedule_wmma_loops(tvm_plugin_target *t, tvm_schedule *s,
                                 tvm_tensor **outs, uint32_t nouts,
                                 tvm_config *cfg) {
  return schedule(t, NULL, s, outs, nouts, cfg, 0);
}
