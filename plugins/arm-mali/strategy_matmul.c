/*
 * plugins/arm-mali/strategy_matmul.c - the arm-mali schedule template for
 * a 2-d matmul C[M, N] = sum_k A[i, k] * B[k, j] over two inputs (graph
 * op MatMul with 2-d operands), after the paper's Mali dense schedules.
 *
 * Mali has no fast local memory (it maps __local onto global memory), so
 * nothing is staged: each work-item accumulates a tm x vw register block
 * of C (cache_write "local", the vw columns vectorized to the target's
 * vector width so B is read with vloadN and the block updated with float
 * vectors, the tm rows and an unroll_k step of k unrolled) reading A and
 * B straight from global memory; work-groups are wg_y x wg_x work-items,
 * capped by the target's max_work_group_size.  Knobs (tvm/config.h):
 * tile_rows (tm), wg_x, wg_y, unroll_k.  Ragged shapes are fine
 * (lowering guards the partial blocks); a candidate over the work-group
 * limit is rejected here.
 */
#include "tvm/config.h"
#include "tvm/schedule.h"
#include "mali.h"

#define OK(x)                                                               \
  do {                                                                      \
    if ((st = (x)) != TVM_OK) return st;                                    \
  } while (0)

int32_t mali_schedule_matmul(tvm_plugin_target *t, tvm_schedule *s,
                             tvm_tensor **outs, uint32_t nouts,
                             tvm_config *cfg) {
  static const int64_t rows_choices[] = {1, 2, 4, 8};
  static const int64_t wgx_choices[] = {4, 8, 16, 32};
  static const int64_t wgy_choices[] = {1, 2, 4, 8};
  static const int64_t unroll_choices[] = {1, 2, 4, 8};
  tvm_status st;
  tvm_tensor *C, *A = NULL, *B = NULL;
  OK(tvm_op_match_matmul(outs, nouts, "arm-mali matmul template", &A, &B));
  C = outs[0];
  int64_t M = C->shape_c[0], N = C->shape_c[1], K = A->shape_c[1];
  int64_t vw = t->dialect.max_vector_lanes;
  int64_t tm = tvm_cfg_choice(cfg, "tile_rows", rows_choices, 4, 2);
  int64_t wx = tvm_cfg_choice(cfg, "wg_x", wgx_choices, 4, 1);
  int64_t wy = tvm_cfg_choice(cfg, "wg_y", wgy_choices, 4, 2);
  int64_t uk = tvm_cfg_choice(cfg, "unroll_k", unroll_choices, 4, 2);
  if (wx * wy > t->max_wg)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "arm-mali matmul template: work-groups of %lld x %lld "
                        "exceed max_work_group_size %lld", (long long)wy,
                        (long long)wx, (long long)t->max_wg);
  (void)M;
  (void)N;
  (void)K; /* ragged edges: lowering guards the partial blocks */
  tvm_tensor *CL;
  tvm_ctx *c = s->ctx;
  OK(tvm_cache_write(s, C, "local", &CL));
  tvm_stage *sc = tvm_stage_of(s, C), *scl = tvm_stage_of(s, CL);
  /* C: rows (by, ty, r), columns (bx, tx, v); v vectorized */
  tvm_iter_var *io, *ir, *jo, *jv, *by, *ty, *bx, *tx;
  OK(tvm_split(sc, tvm_stage_axis(sc, 0), tm, &io, &ir));
  OK(tvm_split(sc, tvm_stage_axis(sc, 1), vw, &jo, &jv));
  OK(tvm_split(sc, io, wy, &by, &ty));
  OK(tvm_split(sc, jo, wx, &bx, &tx));
  OK(tvm_reorder(sc, (tvm_iter_var *[]){by, bx, ty, tx, ir, jv}, 6));
  OK(tvm_bind(sc, by, tvm_thread_axis(c, "blockIdx.y", NULL)));
  OK(tvm_bind(sc, bx, tvm_thread_axis(c, "blockIdx.x", NULL)));
  OK(tvm_bind(sc, ty, tvm_thread_axis(c, "threadIdx.y", NULL)));
  OK(tvm_bind(sc, tx, tvm_thread_axis(c, "threadIdx.x", NULL)));
  OK(tvm_unroll(sc, ir));
  OK(tvm_vectorize(sc, jv));
  OK(tvm_compute_at(scl, sc, tx));
  /* the register block: k outermost (unroll_k steps unrolled), rows
   * unrolled, columns as one vector */
  tvm_iter_var *ko, *ki;
  tvm_iter_var *ci = tvm_stage_axis(scl, 0), *cj = tvm_stage_axis(scl, 1);
  OK(tvm_split(scl, tvm_stage_reduce_axis(scl, 0), uk, &ko, &ki));
  OK(tvm_reorder(scl, (tvm_iter_var *[]){ko, ki, ci, cj}, 4));
  OK(tvm_unroll(scl, ki));
  OK(tvm_unroll(scl, ci));
  OK(tvm_vectorize(scl, cj));
  return TVM_OK;
}
