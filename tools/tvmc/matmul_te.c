/*
 * matmul_te.c - the tensor expression of the README's main job and of
 * bench/matmul: C[M, N] = A[M, K] x B[K, N] in float32, with B packed into
 * panels of nr columns so that the inner loop reads it contiguously.
 *
 * The packing width nr is the knob "pack_n" (a multiple of the target's
 * vector lanes that divides N); the schedule template reads it back by
 * name.
 */
#include "matmul_te.h"

typedef struct pack_args {
  tvm_tensor *B;
  int64_t nr;
} pack_args;

/* Bp[jo, k, ji] = B[k, jo*nr + ji] */
static tvm_expr *pack_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pack_args *a = ud;
  tvm_expr *col = tvm_add(c, tvm_mul(c, i[0], tvm_int(c, a->nr)), i[2]);
  return TVM_AT(c, a->B, i[1], col);
}

typedef struct mm_args {
  tvm_tensor *A, *Bp;
  int64_t K, nr;
} mm_args;

/* C[i, j] = sum_k A[i, k] * Bp[j / nr, k, j % nr] */
static tvm_expr *matmul_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  mm_args *a = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, a->K);
  tvm_expr *nr = tvm_int(c, a->nr);
  if (!k) return NULL;
  return tvm_sum(c,
                 tvm_mul(c, TVM_AT(c, a->A, i[0], k->var),
                         TVM_AT(c, a->Bp, tvm_floordiv(c, i[1], nr), k->var,
                                tvm_floormod(c, i[1], nr))),
                 &k, 1);
}

/* Declares A, B, the packed B and C in c; the packing width comes from the
 * "pack_n" knob of cfg.  Fails when no multiple of lanes divides N. */
tvm_status tvmc_matmul_declare(tvm_ctx *c, tvm_config *cfg, int64_t M,
                               int64_t N, int64_t K, int lanes,
                               tvmc_matmul_te *out) {
  int64_t choices[3];
  int n = 0;
  pack_args pa;
  mm_args ma;

  if (M <= 0 || N <= 0 || K <= 0 || lanes <= 0)
    return tvm_diag_set(TVM_ERR_INVALID, "matmul: sizes must be positive");
  for (int64_t f = lanes; f <= 4 * lanes && n < 3; f *= 2)
    if (N % f == 0) choices[n++] = f;
  if (n == 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "matmul: N=%lld is not a multiple of the vector "
                        "width (%d lanes); pick N divisible by %d",
                        (long long)N, lanes, lanes);
  out->A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){M, K}, 2);
  out->B = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){K, N}, 2);
  if (!out->A || !out->B) return tvm_ctx_status(c);
  pa.B = out->B;
  pa.nr = tvm_cfg_choice(cfg, "pack_n", choices, n, n > 1 ? 1 : 0);
  out->Bp = tvm_compute(c, "B_packed", (int64_t[]){N / pa.nr, K, pa.nr}, 3,
                        pack_body, &pa);
  if (!out->Bp) return tvm_diag_status() ? tvm_diag_status() : TVM_ERR_NOMEM;
  ma.A = out->A;
  ma.Bp = out->Bp;
  ma.K = K;
  ma.nr = pa.nr;
  out->C = tvm_compute(c, "C", (int64_t[]){M, N}, 2, matmul_body, &ma);
  if (!out->C) return tvm_diag_status() ? tvm_diag_status() : TVM_ERR_NOMEM;
  tvm_tensor_set_tag(out->C, "matmul");
  return TVM_OK;
}
