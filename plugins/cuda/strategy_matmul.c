/*
 * plugins/cuda/strategy_matmul.c - the cuda schedule template for a 2-d
 * matmul C[M, N] = sum_k A[i, k] * B[k, j] over two inputs (graph op
 * MatMul with 2-d operands).
 *
 * The classic shared-memory GEMM: each block computes a bm x bm tile of C
 * with (bm/tm) x (bm/tm) threads, each thread a tm x tm register block
 * (cache_write "local", its k loop split by bk with the inner k step and
 * the register block unrolled).  Per bk step the block's threads fetch the
 * bm x bk tile of A and the bk x bm tile of B into shared memory
 * cooperatively (fused, split over the threads, as float4s where the rows
 * allow), with barriers around the compute.  With vt x vt virtual threads
 * a thread's block is vt x vt pieces of tm/vt x tm/vt, bm/vt apart: the
 * threads of a warp then read consecutive elements (float4s for pieces of
 * 4) of the B tile instead of elements tm apart, without bank conflicts,
 * and write C as float4s (the shared tiles stay one copy: the
 * inject_virtual_thread pass shares what every virtual thread fetches
 * alike).  With double_buffer the tiles get two copies
 * (core/lower/inject_double_buffer.c): the block fetches step k + 1's
 * tiles while it multiplies step k's, one barrier per step instead of
 * two, twice the shared memory.  Knobs (tvm/config.h): tile_block (bm),
 * tile_thread (tm), tile_k (bk), vthreads (vt: 1, 2), fetch_vec (1, 4),
 * double_buffer (0, 1), unroll_k (0, 1: a k step over 16 unrolled).  Ragged shapes are fine (lowering guards the partial
 * tiles; the barriers stay outside the guards, which codegen checks).  A
 * candidate that exceeds the target's threads per block or shared memory,
 * or whose threads cannot fetch a tile evenly, is rejected here, before
 * anything is built.
 */
#include "tvm/config.h"
#include "tvm/schedule.h"
#include "cuda_plugin.h"

#define OK(x)                                                               \
  do {                                                                      \
    if ((st = (x)) != TVM_OK) return st;                                    \
  } while (0)

/* Fetches the tile of cache stage ss (ny x nx threads, its inner axis
 * cut into vectors of vec lanes when vec > 1) cooperatively. */
static tvm_status coop_fetch(tvm_stage *ss, int64_t ny, int64_t nx,
                             tvm_iter_var *ty, tvm_iter_var *tx,
                             int64_t vec) {
  tvm_iter_var *f, *fo, *fi, *fy, *fx, *fv = NULL;
  tvm_status st;
  OK(tvm_fuse(ss, tvm_stage_axis(ss, 0), tvm_stage_axis(ss, 1), &f));
  if (vec > 1) OK(tvm_split(ss, f, vec, &f, &fv));
  OK(tvm_split(ss, f, ny * nx, &fo, &fi));
  OK(tvm_split(ss, fi, nx, &fy, &fx));
  OK(tvm_bind(ss, fy, ty));
  OK(tvm_bind(ss, fx, tx));
  if (fv) OK(tvm_vectorize(ss, fv));
  return TVM_OK;
}

/* Splits axis iv of C into [v (vt, vthread), t (nthreads, thread axis),
 * r (per-thread run)] for a block edge of bm and a thread tile of tm. */
static tvm_status split_edge(tvm_stage *sc, tvm_iter_var *iv, int64_t bm,
                             int64_t tm, int64_t vt, tvm_iter_var **v,
                             tvm_iter_var **t, tvm_iter_var **r) {
  tvm_status st;
  tvm_iter_var *rest;
  OK(tvm_split(sc, iv, bm / vt, v, &rest));
  OK(tvm_split(sc, rest, tm / vt, t, r));
  return TVM_OK;
}

int32_t cuda_schedule_matmul(tvm_plugin_target *t, tvm_schedule *s,
                             tvm_tensor **outs, uint32_t nouts,
                             tvm_config *cfg) {
  static const int64_t block_choices[] = {16, 32, 64, 128};
  static const int64_t thread_choices[] = {1, 2, 4, 8};
  static const int64_t k_choices[] = {4, 8, 16, 32};
  static const int64_t vt_choices[] = {1, 2};
  static const int64_t vec_choices[] = {1, 4};
  static const int64_t db_choices[] = {0, 1};
  tvm_status st;
  tvm_tensor *C, *A = NULL, *B = NULL;
  OK(tvm_op_match_matmul(outs, nouts, "cuda matmul template", &A, &B));
  C = outs[0];
  int64_t M = C->shape_c[0], N = C->shape_c[1], K = A->shape_c[1];
  /* defaults, from SGEMM 4096^3 on an H200 (bench/RESULTS.md): 128 x 128
   * blocks of 16 x 16 threads, 8 x 8 outputs per thread as 2 x 2 virtual
   * threads of 4 x 4, k by 32, float4 fetches: 3.86 ms, against 4.04 ms
   * without virtual threads, 4.56 ms with k by 16, 5.85 ms with k by 8,
   * and 4.82 ms for 64 x 64 blocks of 4 x 4 (the old default).  Products
   * too small for 128 x 128 blocks on every SM take 64 x 64 of 4 x 4. */
  int big = M * N >= (int64_t)128 * 128 * 132;
  int64_t bm = tvm_cfg_choice(cfg, "tile_block", block_choices, 4, big ? 3 : 2);
  int64_t tm = tvm_cfg_choice(cfg, "tile_thread", thread_choices, 4, big ? 3 : 2);
  int64_t bk = tvm_cfg_choice(cfg, "tile_k", k_choices, 4,
                              big && K % 32 == 0 ? 3 : 1);
  int64_t vt = tvm_cfg_choice(cfg, "vthreads", vt_choices, 2, big ? 1 : 0);
  int64_t nt = bm / tm; /* threads per block edge */
  /* float4 fetches need whole vectors along rows of both operands, and
   * by default as many vectors as a multiple of the threads */
  int can_vec = K % 4 == 0 && N % 4 == 0;
  int64_t vec = tvm_cfg_choice(
      cfg, "fetch_vec", vec_choices, 2,
      can_vec && bk % 4 == 0 && (bm * bk / 4) % (nt * nt) == 0 ? 1 : 0);
  /* double-buffered and with k unrolled by default where the defaults
   * above hold: 3.25 ms on an H200 against 3.85 ms with neither, 4.13
   * with only the double buffer, 4.11 with only the unrolled k (one run,
   * bench/RESULTS.md, 2026-11-30); 64 KiB of tiles, past the static 48 */
  int fast = big && K % 32 == 0 && 2 * 2 * 128 * 32 * 4 <= t->max_shared;
  int64_t db = tvm_cfg_choice(cfg, "double_buffer", db_choices, 2, fast);
  int64_t copies = db ? 2 : 1;
  if (tm % vt)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "cuda matmul template: a thread tile of %lld cannot "
                        "be split into %lld virtual threads",
                        (long long)tm, (long long)vt);
  if (vec > 1 && (!can_vec || bk % vec || bm % vec))
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "cuda matmul template: float4 fetches need K (%lld), "
                        "N (%lld), the k tile (%lld) and the block (%lld) to "
                        "be multiples of 4",
                        (long long)K, (long long)N, (long long)bk,
                        (long long)bm);
  if (nt * nt > t->max_threads || (bm * bk / vec) % (nt * nt))
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "cuda matmul template: %lld threads per block (max "
                        "%lld) cannot fetch a %lldx%lld tile evenly",
                        (long long)(nt * nt), (long long)t->max_threads,
                        (long long)bm, (long long)bk);
  if (copies * 2 * bm * bk * 4 > t->max_shared)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "cuda matmul template: %lld B of shared memory%s, "
                        "above the target's %lld",
                        (long long)(copies * 2 * bm * bk * 4),
                        db ? " (tiles double-buffered)" : "",
                        (long long)t->max_shared);

  tvm_tensor *CL, *AS, *BS;
  tvm_ctx *c = s->ctx;
  OK(tvm_cache_write(s, C, "local", &CL));
  tvm_operation *readers[1] = {tvm_stage_of(s, CL)->op};
  OK(tvm_cache_read(s, A, "shared", readers, 1, &AS));
  readers[0] = tvm_stage_of(s, CL)->op;
  OK(tvm_cache_read(s, B, "shared", readers, 1, &BS));
  tvm_stage *sc = tvm_stage_of(s, C), *scl = tvm_stage_of(s, CL);
  tvm_iter_var *bx = tvm_thread_axis(c, "blockIdx.x", NULL);
  tvm_iter_var *by = tvm_thread_axis(c, "blockIdx.y", NULL);
  tvm_iter_var *tx = tvm_thread_axis(c, "threadIdx.x", NULL);
  tvm_iter_var *ty = tvm_thread_axis(c, "threadIdx.y", NULL);

  /* C: blocks of bm x bm; in a block, vt x vt virtual threads of nt x nt
   * threads, each thread tm/vt x tm/vt outputs per virtual thread, written
   * from registers */
  tvm_iter_var *yo, *yi, *xo, *xi, *yv, *yt, *yr, *xv, *xt, *xr;
  OK(tvm_split(sc, tvm_stage_axis(sc, 0), bm, &yo, &yi));
  OK(tvm_split(sc, tvm_stage_axis(sc, 1), bm, &xo, &xi));
  OK(split_edge(sc, yi, bm, tm, vt, &yv, &yt, &yr));
  OK(split_edge(sc, xi, bm, tm, vt, &xv, &xt, &xr));
  OK(tvm_reorder(sc, (tvm_iter_var *[]){yo, xo, yv, xv, yt, xt, yr, xr}, 8));
  OK(tvm_bind(sc, yo, by));
  OK(tvm_bind(sc, xo, bx));
  if (vt > 1) {
    OK(tvm_bind(sc, yv, tvm_thread_axis(c, "vthread.y", NULL)));
    OK(tvm_bind(sc, xv, tvm_thread_axis(c, "vthread.x", NULL)));
  }
  OK(tvm_bind(sc, yt, ty));
  OK(tvm_bind(sc, xt, tx));
  OK(tvm_compute_at(scl, sc, xt));
  /* the write-back unrolled (the register block's indices constant: it
   * stays in registers); a thread's run of 4 outputs is one float4 store */
  OK(tvm_unroll(sc, yr));
  if (vec > 1 && tm / vt == 4) OK(tvm_vectorize(sc, xr));
  else OK(tvm_unroll(sc, xr));

  /* the register block: k by bk, inner k and the block unrolled.
   * Lowering unrolls loops of at most 16 and leaves longer ones rolled;
   * with unroll_k a k step of 32 is unrolled as 2 x 16, and consecutive k
   * of one row of the A tile become one 128-bit shared load (the PTX of
   * 4096^3: 8 scalar loads of A per k rolled, 128 vector loads per 2048
   * FMA unrolled; NVRTC 4.5 s instead of 0.2).  On by default with
   * the double buffer (above): together they were the fastest measured
   * on an H200, either alone slower than neither. */
  static const int64_t unroll_choices[] = {0, 1};
  int64_t unroll_k = tvm_cfg_choice(cfg, "unroll_k", unroll_choices, 2, fast);
  tvm_iter_var *ko, *ki, *kio = NULL;
  tvm_iter_var *ci = tvm_stage_axis(scl, 0), *cj = tvm_stage_axis(scl, 1);
  OK(tvm_split(scl, tvm_stage_reduce_axis(scl, 0), bk, &ko, &ki));
  if (unroll_k && bk > 16) {
    OK(tvm_split(scl, ki, 16, &kio, &ki));
    OK(tvm_reorder(scl, (tvm_iter_var *[]){ko, kio, ki, ci, cj}, 5));
    OK(tvm_unroll(scl, kio));
  } else {
    OK(tvm_reorder(scl, (tvm_iter_var *[]){ko, ki, ci, cj}, 4));
  }
  OK(tvm_unroll(scl, ki));
  OK(tvm_unroll(scl, ci));
  OK(tvm_unroll(scl, cj));

  /* the tiles, fetched at each k step by all threads */
  tvm_stage *sa = tvm_stage_of(s, AS), *sb = tvm_stage_of(s, BS);
  OK(tvm_compute_at(sa, scl, ko));
  OK(tvm_compute_at(sb, scl, ko));
  OK(coop_fetch(sa, nt, nt, ty, tx, vec));
  OK(coop_fetch(sb, nt, nt, ty, tx, vec));
  if (db) {
    OK(tvm_double_buffer(sa));
    OK(tvm_double_buffer(sb));
  }
  return TVM_OK;
}
