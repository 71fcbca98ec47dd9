/*
 * matmul_te.c - the tensor expression of the README's main job and of
 * bench/matmul: C[M, N] = A[M, K] x B[K, N] in float32, with B packed into
 * panels of nr columns so that the inner loop reads it contiguously.
 *
 * The packing width nr is the knob "pack_n", whose default is the width
 * the target chose for B's layout (alter_layout, weight "NK<nr>n"; see
 * matmul_job.c) and whose other choices are half and twice that width
 * where they divide N.  When nr does not divide N, B is padded with zero
 * columns up to a multiple of nr (the last panel).  The schedule template
 * reads nr back from the packed tensor's shape.  A target that asks for
 * no layout (a GPU: its template tiles B through shared memory) gets the
 * unpacked product, as a MatMul graph node would give it.
 */
#include "matmul_te.h"

typedef struct pack_args {
  tvm_tensor *B;
  int64_t nr, N;
} pack_args;

/* Bp[jo, k, ji] = B[k, jo*nr + ji], 0 past column N - 1 (padding; the
 * read is clamped since both sides of a select are evaluated) */
static tvm_expr *pack_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pack_args *a = ud;
  tvm_expr *col = tvm_add(c, tvm_mul(c, i[0], tvm_int(c, a->nr)), i[2]);
  if (a->N % a->nr == 0) return TVM_AT(c, a->B, i[1], col);
  tvm_expr *last = tvm_int(c, a->N - 1);
  return tvm_select(c, tvm_lt(c, col, tvm_int(c, a->N)),
                    TVM_AT(c, a->B, i[1], tvm_min(c, col, last)),
                    tvm_fconst(c, TVM_F32, 0.0));
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

/* C[i, j] = sum_k A[i, k] * B[k, j] (no packing) */
static tvm_expr *plain_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvmc_matmul_te *t = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, t->A->shape_c[1]);
  if (!k) return NULL;
  return tvm_sum(c,
                 tvm_mul(c, TVM_AT(c, t->A, i[0], k->var),
                         TVM_AT(c, t->B, k->var, i[1])),
                 &k, 1);
}

/* Declares A, B, the packed B and C in c; the packing width comes from the
 * "pack_n" knob of cfg around the target's width nr (see the top).  nr 0:
 * no packing, C straight from A and B (Bp NULL), the computation a MatMul
 * graph node declares. */
tvm_status tvmc_matmul_declare(tvm_ctx *c, tvm_config *cfg, int64_t M,
                               int64_t N, int64_t K, int nr,
                               tvmc_matmul_te *out) {
  int64_t choices[3];
  int n = 0, dflt;
  pack_args pa;
  mm_args ma;

  if (M <= 0 || N <= 0 || K <= 0 || nr < 0)
    return tvm_diag_set(TVM_ERR_INVALID, "matmul: sizes must be positive");
  if (nr == 0) {
    out->A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){M, K}, 2);
    out->B = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){K, N}, 2);
    out->Bp = NULL;
    if (!out->A || !out->B) return tvm_ctx_status(c);
    out->C = tvm_compute(c, "C", (int64_t[]){M, N}, 2, plain_body, out);
    if (!out->C) return tvm_diag_status() ? tvm_diag_status() : TVM_ERR_NOMEM;
    tvm_tensor_set_tag(out->C, "matmul");
    return TVM_OK;
  }
  if (nr % 2 == 0 && N % (nr / 2) == 0) choices[n++] = nr / 2;
  dflt = n;
  choices[n++] = nr;
  if (N % (2 * nr) == 0) choices[n++] = 2 * nr;
  out->A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){M, K}, 2);
  out->B = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){K, N}, 2);
  if (!out->A || !out->B) return tvm_ctx_status(c);
  pa.B = out->B;
  pa.N = N;
  pa.nr = tvm_cfg_choice(cfg, "pack_n", choices, n, dflt);
  out->Bp = tvm_compute(c, "B_packed",
                        (int64_t[]){(N + pa.nr - 1) / pa.nr, K, pa.nr}, 3,
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
