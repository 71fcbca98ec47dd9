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
 * cooperatively (fused, split over the threads), with barriers around the
 * compute.  Knobs (tvm/config.h): tile_block (bm), tile_thread (tm),
 * tile_k (bk).  Ragged shapes are fine (lowering guards the partial
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

/* Fetches the tile of cache stage ss cooperatively over ty x tx threads. */
static tvm_status coop_fetch(tvm_stage *ss, int64_t ny, int64_t nx,
                             tvm_iter_var *ty, tvm_iter_var *tx) {
  tvm_iter_var *f, *fo, *fi, *fy, *fx;
  tvm_status st;
  OK(tvm_fuse(ss, tvm_stage_axis(ss, 0), tvm_stage_axis(ss, 1), &f));
  OK(tvm_split(ss, f, ny * nx, &fo, &fi));
  OK(tvm_split(ss, fi, nx, &fy, &fx));
  OK(tvm_bind(ss, fy, ty));
  OK(tvm_bind(ss, fx, tx));
  return TVM_OK;
}

int32_t cuda_schedule_matmul(tvm_plugin_target *t, tvm_schedule *s,
                             tvm_tensor **outs, uint32_t nouts,
                             tvm_config *cfg) {
  static const int64_t block_choices[] = {16, 32, 64, 128};
  static const int64_t thread_choices[] = {1, 2, 4, 8};
  static const int64_t k_choices[] = {4, 8, 16, 32};
  tvm_status st;
  tvm_tensor *C, *A = NULL, *B = NULL;
  OK(tvm_op_match_matmul(outs, nouts, "cuda matmul template", &A, &B));
  C = outs[0];
  int64_t M = C->shape_c[0], N = C->shape_c[1], K = A->shape_c[1];
  int64_t bm = tvm_cfg_choice(cfg, "tile_block", block_choices, 4, 2);
  int64_t tm = tvm_cfg_choice(cfg, "tile_thread", thread_choices, 4, 2);
  int64_t bk = tvm_cfg_choice(cfg, "tile_k", k_choices, 4, 1);
  int64_t nt = bm / tm; /* threads per block edge */
  (void)M;
  (void)N;
  (void)K; /* ragged edges: lowering guards the partial tiles */
  if (nt * nt > t->max_threads || (bm * bk) % (nt * nt))
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "cuda matmul template: %lld threads per block (max "
                        "%lld) cannot fetch a %lldx%lld tile evenly",
                        (long long)(nt * nt), (long long)t->max_threads,
                        (long long)bm, (long long)bk);
  if (2 * bm * bk * 4 > t->max_shared)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "cuda matmul template: %lld B of shared memory, above "
                        "the target's %lld", (long long)(2 * bm * bk * 4),
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

  /* C: blocks of bm x bm, threads of tm x tm, written from registers */
  tvm_iter_var *yo, *yi, *xo, *xi, *yt, *yr, *xt, *xr;
  OK(tvm_split(sc, tvm_stage_axis(sc, 0), bm, &yo, &yi));
  OK(tvm_split(sc, tvm_stage_axis(sc, 1), bm, &xo, &xi));
  OK(tvm_split(sc, yi, tm, &yt, &yr));
  OK(tvm_split(sc, xi, tm, &xt, &xr));
  OK(tvm_reorder(sc, (tvm_iter_var *[]){yo, xo, yt, xt, yr, xr}, 6));
  OK(tvm_bind(sc, yo, by));
  OK(tvm_bind(sc, xo, bx));
  OK(tvm_bind(sc, yt, ty));
  OK(tvm_bind(sc, xt, tx));
  OK(tvm_compute_at(scl, sc, xt));

  /* the register block: k by bk, inner k and the block unrolled */
  tvm_iter_var *ko, *ki;
  tvm_iter_var *ci = tvm_stage_axis(scl, 0), *cj = tvm_stage_axis(scl, 1);
  OK(tvm_split(scl, tvm_stage_reduce_axis(scl, 0), bk, &ko, &ki));
  OK(tvm_reorder(scl, (tvm_iter_var *[]){ko, ki, ci, cj}, 4));
  OK(tvm_unroll(scl, ki));
  OK(tvm_unroll(scl, ci));
  OK(tvm_unroll(scl, cj));

  /* the tiles, fetched at each k step by all threads */
  tvm_stage *sa = tvm_stage_of(s, AS), *sb = tvm_stage_of(s, BS);
  OK(tvm_compute_at(sa, scl, ko));
  OK(tvm_compute_at(sb, scl, ko));
  OK(coop_fetch(sa, nt, nt, ty, tx));
  OK(coop_fetch(sb, nt, nt, ty, tx));
  return TVM_OK;
}
