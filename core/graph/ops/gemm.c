/*
 * core/graph/ops/gemm.c - matrix products:
 *   Gemm:   Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A (M, K),
 *           B' = transB ? B^T : B (K, N), C optional, broadcast to (M, N);
 *   MatMul: numpy matmul (batched, batch dims broadcast, 1-D operands
 *           promoted and their unit dimension removed again); float32,
 *           float16 or bfloat16 operands (both the same type).
 *
 * Compute: the product is one sum over k tagged "dense" (Gemm with
 * transB = 1 and transA = 0, the fully connected layer: Y = A * B^T) or
 * "matmul" (everything else, MatMul included); alpha, beta and C are
 * applied by a second compute "<name>" (the product is then
 * "<name>.matmul") only when they change anything.  A MatMul of 16-bit
 * floats accumulates in float32: the product "<name>.matmul" sums
 * float32(A) * float32(B) in float32 and "<name>" rounds it once to the
 * operands' type (tag "matmul_round"), as tensor-core units do; the
 * reference accumulates in double and rounds once too.
 */
#include <string.h>

#include "ops_int.h"

/* ---- Gemm ------------------------------------------------------------- */
typedef struct gemm_attrs {
  double alpha, beta;
  int64_t ta, tb, M, N, K;
  int has_c;
} gemm_attrs;

/* Validates Gemm; fills the attributes and M, N, K. */
static tvm_status gemm_check(const tvm_gnode *n, gemm_attrs *a) {
  tvm_status st;
  const tvm_gvalue *cv = NULL;
  const int fl = DT_F32 | DT_F16 | DT_BF16;
  if ((st = op_check_dtype(n, 0, "A", fl)) ||
      (st = op_check_dtype(n, 1, "B", fl)) ||
      (st = op_opt_input(n, 2, "C", fl, &cv)) ||
      (st = op_attr_float(n, "alpha", 1.0, &a->alpha)) ||
      (st = op_attr_float(n, "beta", 1.0, &a->beta)) ||
      (st = op_attr_int(n, "transA", 0, &a->ta)) ||
      (st = op_attr_int(n, "transB", 0, &a->tb)))
    return st;
  const tvm_gvalue *A = n->inputs[0], *B = n->inputs[1];
  if (!tvm_dtype_eq(A->dtype, B->dtype) ||
      (cv && !tvm_dtype_eq(A->dtype, cv->dtype))) {
    char a1[32], a2[32];
    const tvm_gvalue *o = tvm_dtype_eq(A->dtype, B->dtype) ? cv : B;
    return op_fail(n, TVM_ERR_INVALID,
                   "A is %s but %s is %s: Gemm's inputs must have one type "
                   "(insert a Cast)", tvm_dtype_str(A->dtype, a1),
                   o == B ? "B" : "C", tvm_dtype_str(o->dtype, a2));
  }
  if (A->ndim != 2 || B->ndim != 2)
    return op_fail(n, TVM_ERR_INVALID,
                   "A and B must be 2-D (they have %d and %d dimensions); "
                   "use MatMul for batched products",
                   A->ndim, B->ndim);
  a->M = a->ta ? A->shape[1] : A->shape[0];
  a->K = a->ta ? A->shape[0] : A->shape[1];
  int64_t kb = a->tb ? B->shape[1] : B->shape[0];
  a->N = a->tb ? B->shape[0] : B->shape[1];
  if (kb != a->K)
    return op_fail(n, TVM_ERR_INVALID,
                   "inner dimensions differ: A' is %lld x %lld, B' is %lld x "
                   "%lld (check transA/transB)",
                   (long long)a->M, (long long)a->K, (long long)kb,
                   (long long)a->N);
  a->has_c = cv != NULL;
  if (cv) {
    int64_t mn[2] = {a->M, a->N}, r[TVM_MAX_DIMS];
    int nr;
    if ((st = op_broadcast(n, cv->shape, cv->ndim, mn, 2, r, &nr)))
      return st;
    if (nr != 2 || r[0] != a->M || r[1] != a->N)
      return op_fail(n, TVM_ERR_INVALID,
                     "C must broadcast to (M, N) = (%lld, %lld)",
                     (long long)a->M, (long long)a->N);
  }
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status gemm_infer(tvm_graph *g, tvm_gnode *n) {
  gemm_attrs a;
  tvm_status st = gemm_check(n, &a);
  if (st)
    return st;
  int64_t shape[2] = {a.M, a.N};
  op_set_out(n, 0, n->inputs[0]->dtype, 2, shape);
  return TVM_OK;
}

typedef struct gemm_ud {
  gemm_attrs a;
  tvm_tensor *A, *B, *C, *mm;
  int wide; /* 16-bit floats: products and sum in float32, rounded once */
} gemm_ud;

/* The product A' * B' (one sum over k). */
static tvm_expr *gemm_mm(tvm_ctx *c, tvm_expr **i, void *ud) {
  gemm_ud *u = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, u->a.K);
  if (!k)
    return NULL;
  tvm_expr *a =
      u->a.ta ? TVM_AT(c, u->A, k->var, i[0]) : TVM_AT(c, u->A, i[0], k->var);
  tvm_expr *b =
      u->a.tb ? TVM_AT(c, u->B, i[1], k->var) : TVM_AT(c, u->B, k->var, i[1]);
  return tvm_sum(c, tvm_mul(c, op_te_widen(c, a, u->wide),
                            op_te_widen(c, b, u->wide)), &k, 1);
}

/* alpha * product + beta * C (broadcast). */
static tvm_expr *gemm_epilogue(tvm_ctx *c, tvm_expr **i, void *ud) {
  gemm_ud *u = ud;
  tvm_expr *y = TVM_AT(c, u->mm, i[0], i[1]);
  if (u->a.alpha != 1.0)
    y = tvm_mul(c, y, op_te_const(c, u->mm->dtype, u->a.alpha));
  if (u->C && u->a.beta != 0.0) {
    tvm_expr *cv = op_te_widen(c, op_te_bcast_read(c, u->C, i, 2), u->wide);
    if (u->a.beta != 1.0)
      cv = tvm_mul(c, cv, op_te_const(c, u->mm->dtype, u->a.beta));
    y = tvm_add(c, y, cv);
  }
  return u->wide ? tvm_cast(c, u->A->dtype, y) : y;
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status gemm_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                               tvm_tensor **out) {
  gemm_ud u;
  tvm_status st = gemm_check(n, &u.a);
  if (st)
    return st;
  u.A = in[0];
  u.B = in[1];
  u.C = n->ninputs > 2 ? in[2] : NULL;
  u.wide = op_is_f16ish(in[0]->dtype);
  int epi = u.wide || u.a.alpha != 1.0 || (u.C && u.a.beta != 0.0);
  const tvm_gvalue *o = n->outputs[0];
  u.mm = tvm_compute(c, epi ? op_te_name(c, n, "matmul") : op_te_name(c, n, NULL),
                     o->shape, 2, gemm_mm, &u);
  if ((st = op_te_status(c, n, u.mm)))
    return st;
  tvm_tensor_set_tag(u.mm, !u.a.ta && u.a.tb ? "dense" : "matmul");
  if (!epi) {
    out[0] = u.mm;
    return TVM_OK;
  }
  out[0] = op_te_compute_out(c, n, 0, "broadcast", gemm_epilogue, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status gemm_reference(const tvm_gnode *n, const DLTensor *const *in,
                                 DLTensor *const *out) {
  gemm_attrs a;
  tvm_status st = gemm_check(n, &a);
  if (st)
    return st;
  const DLTensor *A = in[0], *B = in[1], *C = n->ninputs > 2 ? in[2] : NULL;
  for (int64_t m = 0; m < a.M; m++)
    for (int64_t j = 0; j < a.N; j++) {
      double acc = 0;
      for (int64_t k = 0; k < a.K; k++)
        acc += op_dl_getf(A, a.ta ? k * a.M + m : m * a.K + k) *
               op_dl_getf(B, a.tb ? j * a.K + k : k * a.N + j);
      acc *= a.alpha;
      if (C)
        acc += a.beta * op_dl_getf(C, op_dl_bcast_index(C, out[0], m * a.N + j));
      op_dl_setf(out[0], m * a.N + j, acc);
    }
  return TVM_OK;
}

/* ---- MatMul ----------------------------------------------------------- */
typedef struct mm_shape {
  int64_t M, N, K;
  int a1, b1; /* A / B was 1-D */
  int nbatch;
  int64_t batch[TVM_MAX_DIMS];
} mm_shape;

/* Validates MatMul; computes the batch broadcast and the output shape. */
static tvm_status matmul_check(const tvm_gnode *n, mm_shape *s, int64_t *oshape,
                               int *ondim) {
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "A", DT_F32 | DT_F16 | DT_BF16)) ||
      (st = op_check_dtype(n, 1, "B", DT_F32 | DT_F16 | DT_BF16)))
    return st;
  const tvm_gvalue *A = n->inputs[0], *B = n->inputs[1];
  if (!tvm_dtype_eq(A->dtype, B->dtype)) {
    char a[32], b[32];
    return op_fail(n, TVM_ERR_INVALID,
                   "A is %s but B is %s: MatMul operands must have one type "
                   "(insert a Cast)", tvm_dtype_str(A->dtype, a),
                   tvm_dtype_str(B->dtype, b));
  }
  if (A->ndim < 1 || B->ndim < 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "MatMul operands must have at least 1 dimension");
  s->a1 = A->ndim == 1;
  s->b1 = B->ndim == 1;
  s->M = s->a1 ? 1 : A->shape[A->ndim - 2];
  s->K = A->shape[A->ndim - 1];
  int64_t kb = s->b1 ? B->shape[0] : B->shape[B->ndim - 2];
  s->N = s->b1 ? 1 : B->shape[B->ndim - 1];
  if (kb != s->K) {
    char a[128], b[128];
    return op_fail(n, TVM_ERR_INVALID,
                   "inner dimensions differ: A %s has K = %lld, B %s has "
                   "%lld",
                   op_shape_str(a, sizeof a, A->shape, A->ndim),
                   (long long)s->K,
                   op_shape_str(b, sizeof b, B->shape, B->ndim), (long long)kb);
  }
  int na = s->a1 ? 0 : A->ndim - 2, nb = s->b1 ? 0 : B->ndim - 2;
  if ((st = op_broadcast(n, A->shape, na, B->shape, nb, s->batch, &s->nbatch)))
    return st;
  *ondim = 0;
  for (int d = 0; d < s->nbatch; d++)
    oshape[(*ondim)++] = s->batch[d];
  if (!s->a1)
    oshape[(*ondim)++] = s->M;
  if (!s->b1)
    oshape[(*ondim)++] = s->N;
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status matmul_infer(tvm_graph *g, tvm_gnode *n) {
  mm_shape s;
  int64_t shape[TVM_MAX_DIMS];
  int nd;
  tvm_status st = matmul_check(n, &s, shape, &nd);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, nd, shape);
  return TVM_OK;
}

typedef struct mm_ud {
  mm_shape s;
  tvm_tensor *A, *B;
  int wide;        /* 16-bit operands: products and sum in float32 */
  tvm_tensor *mm;  /* the float32 product, for the rounding stage */
} mm_ud;

/* A read of a MatMul operand, widened to float32 for 16-bit operands. */
static tvm_expr *mm_read(tvm_ctx *c, const mm_ud *u, tvm_tensor *t,
                         tvm_expr **idx, int n) {
  tvm_expr *r = tvm_tread(c, t, idx, n);
  return u->wide ? tvm_cast(c, TVM_F32, r) : r;
}

/* The float32 product rounded to the operands' type. */
static tvm_expr *matmul_round(tvm_ctx *c, tvm_expr **i, void *ud) {
  mm_ud *u = ud;
  return tvm_cast(c, u->A->dtype, tvm_tread(c, u->mm, i, u->mm->ndim));
}

/* One output element: the sum over k, batch dims broadcast. */
static tvm_expr *matmul_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  mm_ud *u = ud;
  mm_shape *s = &u->s;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, s->K);
  if (!k)
    return NULL;
  int nb = s->nbatch;
  tvm_expr *m = s->a1 ? NULL : i[nb];
  tvm_expr *j = s->b1 ? NULL : i[nb + (s->a1 ? 0 : 1)];
  tvm_expr *ai[TVM_MAX_DIMS], *bi[TVM_MAX_DIMS];
  int na = u->A->ndim, nbd = u->B->ndim;
  /* batch dims: right-aligned broadcast against the output's batch */
  for (int d = 0; d < na - 2; d++) {
    int od = nb - (na - 2) + d;
    ai[d] = u->A->shape_c[d] == 1 ? tvm_int(c, 0) : i[od];
  }
  for (int d = 0; d < nbd - 2; d++) {
    int od = nb - (nbd - 2) + d;
    bi[d] = u->B->shape_c[d] == 1 ? tvm_int(c, 0) : i[od];
  }
  if (s->a1) {
    ai[0] = k->var;
  } else {
    ai[na - 2] = m;
    ai[na - 1] = k->var;
  }
  if (s->b1) {
    bi[0] = k->var;
  } else {
    bi[nbd - 2] = k->var;
    bi[nbd - 1] = j;
  }
  return tvm_sum(c, tvm_mul(c, mm_read(c, u, u->A, ai, na),
                            mm_read(c, u, u->B, bi, nbd)),
                 &k, 1);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status matmul_compute(tvm_ctx *c, const tvm_gnode *n,
                                 tvm_tensor **in, tvm_tensor **out) {
  mm_ud u;
  int64_t shape[TVM_MAX_DIMS];
  int nd;
  tvm_status st = matmul_check(n, &u.s, shape, &nd);
  if (st)
    return st;
  u.A = in[0];
  u.B = in[1];
  u.wide = in[0]->dtype.bits == 16;
  const char *tag = u.s.nbatch ? "batch_matmul" : "matmul";
  if (!u.wide) {
    out[0] = op_te_compute_out(c, n, 0, tag, matmul_body, &u);
    return op_te_status(c, n, out[0]);
  }
  u.mm = tvm_compute(c, op_te_name(c, n, "matmul"), shape, nd, matmul_body,
                     &u);
  if ((st = op_te_status(c, n, u.mm)))
    return st;
  tvm_tensor_set_tag(u.mm, tag);
  out[0] = op_te_compute_out(c, n, 0, "matmul_round", matmul_round, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status matmul_reference(const tvm_gnode *n,
                                   const DLTensor *const *in,
                                   DLTensor *const *out) {
  mm_shape s;
  int64_t shape[TVM_MAX_DIMS];
  int nd;
  tvm_status st = matmul_check(n, &s, shape, &nd);
  if (st)
    return st;
  const DLTensor *A = in[0], *B = in[1];
  int na = s.a1 ? 0 : A->ndim - 2, nb = s.b1 ? 0 : B->ndim - 2;
  int64_t nbatch = 1;
  for (int d = 0; d < s.nbatch; d++)
    nbatch *= s.batch[d];
  for (int64_t bt = 0; bt < nbatch; bt++) {
    int64_t bi[TVM_MAX_DIMS], fa = 0, fb = 0;
    op_dl_unravel(bt, s.batch, s.nbatch, bi);
    for (int d = 0; d < na; d++)
      fa = fa * A->shape[d] + (A->shape[d] == 1 ? 0 : bi[s.nbatch - na + d]);
    for (int d = 0; d < nb; d++)
      fb = fb * B->shape[d] + (B->shape[d] == 1 ? 0 : bi[s.nbatch - nb + d]);
    for (int64_t m = 0; m < s.M; m++)
      for (int64_t j = 0; j < s.N; j++) {
        double acc = 0;
        for (int64_t k = 0; k < s.K; k++)
          acc += op_dl_getf(A, (fa * s.M + m) * s.K + k) *
                 op_dl_getf(B, (fb * s.K + k) * s.N + j);
        op_dl_setf(out[0], (bt * s.M + m) * s.N + j, acc);
      }
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Gemm", 2, 3, 1, 1, TVM_PAT_OUT_ELEMWISE_FUSABLE, gemm_infer, gemm_compute,
     gemm_reference,
     "Y = alpha * A' * B' + beta * C (transA, transB, C broadcast)"},
    {"MatMul", 2, 2, 1, 1, TVM_PAT_OUT_ELEMWISE_FUSABLE, matmul_infer,
     matmul_compute, matmul_reference,
     "numpy matmul: batched, broadcast batch dims, 1-D operands"},
};

const ops_family ops_gemm_family = {defs, (int)(sizeof defs / sizeof defs[0])};
