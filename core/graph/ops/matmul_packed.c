/*
 * core/graph/ops/matmul_packed.c - MatMul_packed, the internal matrix
 * product whose right operand is stored in the packed layout a target
 * asked for through alter_layout ("NK<nr>n"):
 *
 *   Bp[NB, K, nr], NB = ceil(N / nr), Bp[jo, k, ji] = B'[k, jo*nr + ji]
 *   (zero past column N)
 *   Y[..., m, j] = alpha * sum_k A[..., m, k] * Bp[j / nr, k, j % nr]
 *                  + beta * C[..., m, j]   (C optional, broadcast)
 *
 * Inputs A (2-D or more: every dimension but the last is a row), Bp and
 * the optional C; attributes n (the true column count N), alpha and beta
 * (default 1).  alter_layout makes it from MatMul (B constant 2-D) and
 * Gemm (transA = 0, B constant), packing B with a folded LayoutTransform.
 *
 * Compute: the product is one 2-D sum over k, rows flattened, over all
 * NB * nr columns of the packed panels,
 *   "<name>.matmul"[r, j], tagged "matmul_packed",
 * read back by an output compute "<name>" in A's row shape that also
 * applies alpha, beta and C and drops the padding columns; when A is 2-D,
 * N is a multiple of nr and there is nothing to apply, the product is the
 * output itself.  The product's columns are padded so that a schedule
 * tiling them by nr computes whole panels (Bp's padding is zeros, in
 * bounds): a product of N columns would carry a column guard into the
 * register block of the last panel, and with it into every block, where
 * it keeps the columns from being vectorized (2 GFLOP/s instead of tens
 * for N = 250 or 1001); only the output's stores are guarded instead.  Schedules find the product by its
 * tag (the llvm-cpu matmul template tiles it into register blocks).
 */
#include <string.h>

#include "ops_int.h"

typedef struct mp_attrs {
  int64_t M, N, K, NB, nr, rows; /* rows: product of A's leading dims */
  double alpha, beta;
  int has_c;
} mp_attrs;

/* Validates MatMul_packed; fills *a. */
static tvm_status mp_check(const tvm_gnode *n, mp_attrs *a) {
  tvm_status st;
  const tvm_gvalue *cv = NULL;
  if ((st = op_check_dtype(n, 0, "A", DT_F32)) ||
      (st = op_check_dtype(n, 1, "Bp", DT_F32)) ||
      (st = op_opt_input(n, 2, "C", DT_F32, &cv)) ||
      (st = op_attr_int(n, "n", -1, &a->N)) ||
      (st = op_attr_float(n, "alpha", 1.0, &a->alpha)) ||
      (st = op_attr_float(n, "beta", 1.0, &a->beta)))
    return st;
  const tvm_gvalue *A = n->inputs[0], *B = n->inputs[1];
  if (A->ndim < 2 || B->ndim != 3)
    return op_fail(n, TVM_ERR_INVALID,
                   "A must have 2 or more dimensions and Bp 3 ([N/nr, K, "
                   "nr]); they have %d and %d",
                   A->ndim, B->ndim);
  a->K = A->shape[A->ndim - 1];
  a->M = A->shape[A->ndim - 2];
  a->NB = B->shape[0];
  a->nr = B->shape[2];
  if (B->shape[1] != a->K)
    return op_fail(n, TVM_ERR_INVALID,
                   "A has K = %lld but Bp's middle dimension is %lld",
                   (long long)a->K, (long long)B->shape[1]);
  if (a->N <= 0 || a->nr <= 0 || a->N > a->NB * a->nr ||
      a->N <= (a->NB - 1) * a->nr)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute n = %lld does not fit Bp's %lld panels of %lld "
                   "columns",
                   (long long)a->N, (long long)a->NB, (long long)a->nr);
  a->rows = 1;
  for (int d = 0; d < A->ndim - 1; d++)
    a->rows *= A->shape[d];
  a->has_c = cv != NULL;
  if (cv) {
    int64_t os[TVM_MAX_DIMS], r[TVM_MAX_DIMS];
    int nr;
    memcpy(os, A->shape, sizeof(int64_t) * (size_t)A->ndim);
    os[A->ndim - 1] = a->N;
    if ((st = op_broadcast(n, cv->shape, cv->ndim, os, A->ndim, r, &nr)))
      return st;
    if (nr != A->ndim || memcmp(r, os, sizeof(int64_t) * (size_t)nr))
      return op_fail(n, TVM_ERR_INVALID, "C must broadcast to the output");
  }
  return TVM_OK;
}

/* Infer: A's shape with the last dimension replaced by n. */
static tvm_status mp_infer(tvm_graph *g, tvm_gnode *n) {
  mp_attrs a;
  tvm_status st = mp_check(n, &a);
  if (st)
    return st;
  (void)g;
  const tvm_gvalue *A = n->inputs[0];
  int64_t shape[TVM_MAX_DIMS];
  memcpy(shape, A->shape, sizeof(int64_t) * (size_t)A->ndim);
  shape[A->ndim - 1] = a.N;
  op_set_out(n, 0, A->dtype, A->ndim, shape);
  return TVM_OK;
}

typedef struct mp_ud {
  mp_attrs a;
  tvm_tensor *A, *B, *C, *mm;
} mp_ud;

/* mm[r, j] = sum_k A[row r, k] * Bp[j / nr, k, j % nr]. */
static tvm_expr *mp_product(tvm_ctx *c, tvm_expr **i, void *ud) {
  mp_ud *u = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, u->a.K);
  if (!k)
    return NULL;
  int na = u->A->ndim;
  tvm_expr *ai[TVM_MAX_DIMS], *r = i[0];
  /* unravel the flattened row over A's leading dimensions */
  for (int d = na - 2; d >= 0; d--) {
    int64_t e = u->A->shape_c[d];
    ai[d] = d == 0 ? r : tvm_floormod(c, r, tvm_int(c, e));
    if (d > 0)
      r = tvm_floordiv(c, r, tvm_int(c, e));
  }
  ai[na - 1] = k->var;
  tvm_expr *nr = tvm_int(c, u->a.nr);
  tvm_expr *b = TVM_AT(c, u->B, tvm_floordiv(c, i[1], nr), k->var,
                       tvm_floormod(c, i[1], nr));
  return tvm_sum(c, tvm_mul(c, tvm_tread(c, u->A, ai, na), b), &k, 1);
}

/* Y[..., j] = alpha * mm[ravel(...), j] + beta * C. */
static tvm_expr *mp_output(tvm_ctx *c, tvm_expr **i, void *ud) {
  mp_ud *u = ud;
  int nd = u->A->ndim;
  tvm_expr *r = i[0];
  for (int d = 1; d < nd - 1; d++)
    r = tvm_add(c, tvm_mul(c, r, tvm_int(c, u->A->shape_c[d])), i[d]);
  tvm_expr *y = TVM_AT(c, u->mm, r, i[nd - 1]);
  if (u->a.alpha != 1.0)
    y = tvm_mul(c, y, op_te_const(c, u->mm->dtype, u->a.alpha));
  if (u->C && u->a.beta != 0.0) {
    tvm_expr *cv = op_te_bcast_read(c, u->C, i, nd);
    if (u->a.beta != 1.0)
      cv = tvm_mul(c, cv, op_te_const(c, u->mm->dtype, u->a.beta));
    y = tvm_add(c, y, cv);
  }
  return y;
}

/* Compute: the 2-D product tagged "matmul_packed", then the output. */
static tvm_status mp_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  mp_ud u;
  tvm_status st = mp_check(n, &u.a);
  if (st)
    return st;
  u.A = in[0];
  u.B = in[1];
  u.C = n->ninputs > 2 ? in[2] : NULL;
  int64_t np = u.a.NB * u.a.nr;
  int epi = u.a.alpha != 1.0 || (u.C && u.a.beta != 0.0) || u.A->ndim > 2 ||
            np != u.a.N;
  int64_t shape[2] = {u.a.rows, np};
  u.mm = tvm_compute(c, epi ? op_te_name(c, n, "matmul") : op_te_name(c, n, NULL),
                     shape, 2, mp_product, &u);
  if ((st = op_te_status(c, n, u.mm)))
    return st;
  tvm_tensor_set_tag(u.mm, "matmul_packed");
  if (!epi) {
    out[0] = u.mm;
    return TVM_OK;
  }
  out[0] = op_te_compute_out(c, n, 0, "broadcast", mp_output, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status mp_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  mp_attrs a;
  tvm_status st = mp_check(n, &a);
  if (st)
    return st;
  const DLTensor *A = in[0], *B = in[1], *C = n->ninputs > 2 ? in[2] : NULL;
  for (int64_t r = 0; r < a.rows; r++)
    for (int64_t j = 0; j < a.N; j++) {
      double acc = 0;
      for (int64_t k = 0; k < a.K; k++)
        acc += op_dl_getf(A, r * a.K + k) *
               op_dl_getf(B, ((j / a.nr) * a.K + k) * a.nr + j % a.nr);
      acc *= a.alpha;
      if (C)
        acc += a.beta * op_dl_getf(C, op_dl_bcast_index(C, out[0], r * a.N + j));
      op_dl_setf(out[0], r * a.N + j, acc);
    }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"MatMul_packed", 2, 3, 1, 1, TVM_PAT_OUT_ELEMWISE_FUSABLE, mp_infer,
     mp_compute, mp_reference,
     "internal: Y = alpha * A * B' + beta * C with B' packed as Bp[N/nr, K, "
     "nr] (layout NK<nr>n); attributes n, alpha, beta"},
};

const ops_family ops_matmul_packed_family = {
    defs, (int)(sizeof defs / sizeof defs[0])};
