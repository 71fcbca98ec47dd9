/*
 * core/graph/ops/index.c - operators driven by index tensors or that
 * produce positions: OneHot, GatherND, TopK, Compress and NonZero (a
 * constant input only: its output shape depends on the values) (the
 * scatters are in scatter.c).  Negative indices count from the end of
 * their axis; indices out of range are clamped into it (in the computes
 * and the references alike; ONNX leaves them undefined).
 *
 * Computes without data-dependent writes: TopK ranks every element
 * (".rank": how many elements come before it) and output p takes the
 * element of rank p; Compress (its condition is constant, so the output
 * shape is known) counts the selected positions (".cnt") and output p
 * takes the one whose count is p + 1.  These are quadratic in the
 * scanned axis: fine for the sizes exported models give these operators.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

/* ---- OneHot ----------------------------------------------------------------- */
static tvm_status onehot_info(const tvm_gnode *n, int64_t *depth, int *axis) {
  double dv;
  int64_t a;
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "indices", DT_NUM)) ||
      (st = op_check_dtype(n, 1, "depth", DT_NUM)) ||
      (st = op_const_scalar(n, 1, "depth", &dv)) ||
      (st = op_check_dtype(n, 2, "values", DT_ALL & ~(DT_F16 | DT_BF16))) ||
      (st = op_attr_int(n, "axis", -1, &a)))
    return st;
  if (tvm_gvalue_numel(n->inputs[2]) != 2)
    return op_fail(n, TVM_ERR_INVALID,
                   "values must hold two elements [off, on]");
  *depth = (int64_t)dv;
  if (*depth < 1)
    return op_fail(n, TVM_ERR_INVALID, "depth = %lld must be positive",
                   (long long)*depth);
  return op_axis(n, "attribute 'axis'", a, n->inputs[0]->ndim + 1, axis);
}

static tvm_status onehot_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int64_t depth, s[TVM_MAX_DIMS];
  int axis;
  tvm_status st = onehot_info(n, &depth, &axis);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if (x->ndim + 1 > TVM_MAX_DIMS)
    return op_fail(n, TVM_ERR_UNSUPPORTED, "too many dimensions");
  for (int d = 0, k = 0; d <= x->ndim; d++)
    s[d] = d == axis ? depth : x->shape[k++];
  op_set_out(n, 0, n->inputs[2]->dtype, x->ndim + 1, s);
  return TVM_OK;
}

typedef struct oh_ud {
  tvm_tensor *idx, *val;
  int64_t depth;
  int axis;
} oh_ud;

static tvm_expr *onehot_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  oh_ud *u = ud;
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0, k = 0; d <= u->idx->ndim; d++)
    if (d != u->axis)
      xi[k++] = i[d];
  tvm_expr *k = tvm_tread(c, u->idx, xi, u->idx->ndim);
  if (!k)
    return NULL;
  if (!tvm_dtype_is_int(k->dtype))
    k = tvm_cast(c, TVM_I64, k);
  k = tvm_cast(c, TVM_I64, k);
  k = tvm_select(c, tvm_lt(c, k, tvm_const(c, TVM_I64, 0)),
                 tvm_add(c, k, tvm_const(c, TVM_I64, u->depth)), k);
  tvm_expr *on = tvm_eq(c, k, tvm_cast(c, TVM_I64, i[u->axis]));
  tvm_expr *one = tvm_int(c, 1), *zero = tvm_int(c, 0);
  return tvm_select(c, on, tvm_tread(c, u->val, &one, 1),
                    tvm_tread(c, u->val, &zero, 1));
}

static tvm_status onehot_compute(tvm_ctx *c, const tvm_gnode *n,
                                 tvm_tensor **in, tvm_tensor **out) {
  oh_ud u = {in[0], in[2], 0, 0};
  tvm_status st = onehot_info(n, &u.depth, &u.axis);
  if (st)
    return st;
  if (u.val->ndim != 1) /* a [2] view is what the body reads */
    return op_fail(n, TVM_ERR_UNSUPPORTED, "values must be 1-D [off, on]");
  out[0] = op_te_compute_out(c, n, 0, "injective", onehot_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status onehot_reference(const tvm_gnode *n,
                                   const DLTensor *const *in,
                                   DLTensor *const *out) {
  int64_t depth;
  int axis;
  tvm_status st = onehot_info(n, &depth, &axis);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < x->ndim; d++)
    *(d < axis ? &outer : &inner) *= x->shape[d];
  double off = op_dl_getf(in[2], 0), on = op_dl_getf(in[2], 1);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t a = 0; a < depth; a++)
      for (int64_t q = 0; q < inner; q++) {
        int64_t k = (int64_t)op_dl_getf(x, o * inner + q);
        if (k < 0)
          k += depth;
        op_dl_setf(out[0], (o * depth + a) * inner + q, k == a ? on : off);
      }
  return TVM_OK;
}

/* ---- GatherND --------------------------------------------------------------- */
static tvm_status gnd_info(const tvm_gnode *n, int *b, int *m) {
  int64_t bd;
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "data", DT_ALL)) ||
      (st = op_check_dtype(n, 1, "indices", DT_I64 | DT_I32)) ||
      (st = op_attr_int(n, "batch_dims", 0, &bd)))
    return st;
  const tvm_gvalue *x = n->inputs[0], *ix = n->inputs[1];
  *b = (int)bd;
  if (ix->ndim < 1 || bd < 0 || bd >= ix->ndim || bd >= x->ndim)
    return op_fail(n, TVM_ERR_INVALID, "batch_dims = %lld does not fit the "
                   "ranks of data (%d) and indices (%d)",
                   (long long)bd, x->ndim, ix->ndim);
  *m = (int)ix->shape[ix->ndim - 1];
  if (*m < 1 || *b + *m > x->ndim)
    return op_fail(n, TVM_ERR_INVALID,
                   "indices' last dimension (%d) plus batch_dims exceeds the "
                   "rank of data (%d)",
                   *m, x->ndim);
  for (int d = 0; d < *b; d++)
    if (x->shape[d] != ix->shape[d])
      return op_fail(n, TVM_ERR_INVALID,
                     "batch dimension %d differs between data and indices",
                     d);
  return TVM_OK;
}

static tvm_status gnd_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int b, m;
  tvm_status st = gnd_info(n, &b, &m);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0], *ix = n->inputs[1];
  int64_t s[TVM_MAX_DIMS];
  int nd = 0;
  for (int d = 0; d < ix->ndim - 1; d++)
    s[nd++] = ix->shape[d];
  for (int d = b + m; d < x->ndim; d++) {
    if (nd == TVM_MAX_DIMS)
      return op_fail(n, TVM_ERR_UNSUPPORTED, "too many dimensions");
    s[nd++] = x->shape[d];
  }
  op_set_out(n, 0, x->dtype, nd, s);
  return TVM_OK;
}

typedef struct gnd_ud {
  tvm_tensor *x, *ix;
  int b, m;
} gnd_ud;

static tvm_expr *gnd_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  gnd_ud *u = ud;
  int q = u->ix->ndim;
  tvm_expr *xi[TVM_MAX_DIMS], *ii[TVM_MAX_DIMS];
  for (int d = 0; d < u->b; d++)
    xi[d] = i[d];
  for (int j = 0; j < u->m; j++) {
    for (int d = 0; d < q - 1; d++)
      ii[d] = i[d];
    ii[q - 1] = tvm_int(c, j);
    xi[u->b + j] = op_te_wrap_index(c, tvm_tread(c, u->ix, ii, q),
                            u->x->shape_c[u->b + j]);
  }
  for (int d = u->b + u->m; d < u->x->ndim; d++)
    xi[d] = i[q - 1 + d - u->b - u->m];
  return tvm_tread(c, u->x, xi, u->x->ndim);
}

static tvm_status gnd_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  gnd_ud u = {in[0], in[1], 0, 0};
  tvm_status st = gnd_info(n, &u.b, &u.m);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "injective", gnd_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status gnd_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  int b, m;
  tvm_status st = gnd_info(n, &b, &m);
  if (st)
    return st;
  const DLTensor *x = in[0], *ix = in[1];
  int q = ix->ndim;
  int64_t xs[TVM_MAX_DIMS], is[TVM_MAX_DIMS], oi[TVM_MAX_DIMS];
  op_strides(x->shape, x->ndim, xs);
  op_strides(ix->shape, q, is);
  int64_t len = op_dl_numel(out[0]), eb = op_dl_elem_bytes(x);
  for (int64_t e = 0; e < len; e++) {
    op_dl_unravel(e, out[0]->shape, out[0]->ndim, oi);
    int64_t src = 0, ibase = 0;
    for (int d = 0; d < q - 1; d++)
      ibase += oi[d] * is[d];
    for (int d = 0; d < b; d++)
      src += oi[d] * xs[d];
    for (int j = 0; j < m; j++) {
      int64_t k = op_wrap_index(op_dl_geti(ix, ibase + j), x->shape[b + j]);
      src += k * xs[b + j];
    }
    for (int d = b + m; d < x->ndim; d++)
      src += oi[q - 1 + d - b - m] * xs[d];
    memcpy((char *)out[0]->data + e * eb, (const char *)x->data + src * eb,
           (size_t)eb);
  }
  return TVM_OK;
}

/* ---- TopK ------------------------------------------------------------------- */
static tvm_status topk_info(const tvm_gnode *n, int *axis, int64_t *k,
                            int64_t *largest) {
  int64_t a, sorted, kk[1];
  int cnt;
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "X", DT_NUM)) ||
      (st = op_attr_int(n, "axis", -1, &a)) ||
      (st = op_attr_int(n, "largest", 1, largest)) ||
      (st = op_attr_int(n, "sorted", 1, &sorted)))
    return st;
  if (n->ninputs > 1 && n->inputs[1]) {
    if ((st = op_const_ints(n, 1, "K", kk, 1, &cnt)))
      return st;
    *k = kk[0];
  } else if ((st = op_attr_int(n, "k", -1, k))) { /* opset < 10 */
    return st;
  }
  if ((st = op_axis(n, "attribute 'axis'", a, n->inputs[0]->ndim, axis)))
    return st;
  if (*k < 0 || *k > n->inputs[0]->shape[*axis])
    return op_fail(n, TVM_ERR_INVALID, "K = %lld is outside [0, %lld]",
                   (long long)*k, (long long)n->inputs[0]->shape[*axis]);
  return TVM_OK;
}

static tvm_status topk_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int axis;
  int64_t k, lg;
  tvm_status st = topk_info(n, &axis, &k, &lg);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  int64_t s[TVM_MAX_DIMS];
  memcpy(s, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  s[axis] = k;
  op_set_out(n, 0, x->dtype, x->ndim, s);
  op_set_out(n, 1, TVM_I64, x->ndim, s);
  return TVM_OK;
}

typedef struct tk_ud {
  tvm_tensor *x, *rank;
  int axis;
  int64_t largest;
} tk_ud;

/* how many elements of the axis come before element i */
static tvm_expr *tk_rank_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tk_ud *u = ud;
  tvm_iter_var *r = tvm_reduce_axis(c, "r", 0, u->x->shape_c[u->axis]);
  if (!r)
    return NULL;
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    xi[d] = d == u->axis ? r->var : i[d];
  tvm_expr *a = tvm_tread(c, u->x, xi, u->x->ndim);
  tvm_expr *b = tvm_tread(c, u->x, i, u->x->ndim);
  tvm_expr *better = u->largest ? tvm_gt(c, a, b) : tvm_lt(c, a, b);
  tvm_expr *before = tvm_or(
      c, better, tvm_and(c, tvm_eq(c, a, b), tvm_lt(c, r->var, i[u->axis])));
  return tvm_sum(c, tvm_select(c, before, tvm_int(c, 1), tvm_int(c, 0)), &r,
                 1);
}

/* output p: the element (or its index) of rank p */
static tvm_expr *tk_pick(tvm_ctx *c, tk_ud *u, tvm_expr **i, int index) {
  tvm_iter_var *r = tvm_reduce_axis(c, "r", 0, u->x->shape_c[u->axis]);
  if (!r)
    return NULL;
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    xi[d] = d == u->axis ? r->var : i[d];
  tvm_expr *hit = tvm_eq(c, tvm_tread(c, u->rank, xi, u->x->ndim), i[u->axis]);
  tvm_expr *v = index ? tvm_cast(c, TVM_I64, r->var)
                      : tvm_tread(c, u->x, xi, u->x->ndim);
  return tvm_sum(c, tvm_select(c, hit, v, op_te_const(c, v->dtype, 0)), &r,
                 1);
}

static tvm_expr *tk_val_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tk_pick(c, ud, i, 0);
}

static tvm_expr *tk_idx_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tk_pick(c, ud, i, 1);
}

static tvm_status topk_compute(tvm_ctx *c, const tvm_gnode *n,
                               tvm_tensor **in, tvm_tensor **out) {
  tk_ud u = {in[0], NULL, 0, 1};
  int64_t k;
  tvm_status st = topk_info(n, &u.axis, &k, &u.largest);
  if (st)
    return st;
  u.rank = tvm_compute(c, op_te_name(c, n, "rank"), u.x->shape_c, u.x->ndim,
                       tk_rank_body, &u);
  if ((st = op_te_status(c, n, u.rank)))
    return st;
  out[0] = op_te_compute_out(c, n, 0, "topk", tk_val_body, &u);
  if ((st = op_te_status(c, n, out[0])))
    return st;
  if (n->noutputs > 1 && n->outputs[1]) {
    out[1] = op_te_compute_out(c, n, 1, "topk", tk_idx_body, &u);
    return op_te_status(c, n, out[1]);
  }
  return TVM_OK;
}

static tvm_status topk_reference(const tvm_gnode *n, const DLTensor *const *in,
                                 DLTensor *const *out) {
  int axis;
  int64_t k, lg;
  tvm_status st = topk_info(n, &axis, &k, &lg);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int64_t outer = 1, len = x->shape[axis], inner = 1;
  for (int d = 0; d < x->ndim; d++)
    if (d < axis)
      outer *= x->shape[d];
    else if (d > axis)
      inner *= x->shape[d];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t q = 0; q < inner; q++)
      for (int64_t j = 0; j < len; j++) {
        double b = op_dl_getf(x, (o * len + j) * inner + q);
        int64_t rank = 0;
        for (int64_t r = 0; r < len; r++) {
          double a = op_dl_getf(x, (o * len + r) * inner + q);
          rank += (lg ? a > b : a < b) || (a == b && r < j);
        }
        if (rank >= k)
          continue;
        int64_t e = (o * k + rank) * inner + q;
        if (op_dl_is_float(x))
          op_dl_setf(out[0], e, b);
        else
          op_dl_seti(out[0], e, op_dl_geti(x, (o * len + j) * inner + q));
        if (n->noutputs > 1 && out[1])
          op_dl_seti(out[1], e, j);
      }
  return TVM_OK;
}

/* ---- Compress --------------------------------------------------------------- */
/* axis (-1: flattened), the count of selected positions. */
static tvm_status compress_info(const tvm_gnode *n, int *axis, int64_t *cnt) {
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "input", DT_ALL)) ||
      (st = op_check_dtype(n, 1, "condition", DT_BOOL)))
    return st;
  const tvm_gvalue *x = n->inputs[0], *cv = n->inputs[1];
  if (cv->kind != TVM_GV_CONST || !cv->data)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "input 1 (condition) must be a constant: the output "
                   "shape depends on it");
  int64_t a = INT64_MIN;
  if ((st = op_attr_int(n, "axis", INT64_MIN, &a)))
    return st;
  int64_t ext = tvm_gvalue_numel(x);
  *axis = -1;
  if (a != INT64_MIN) {
    if ((st = op_axis(n, "attribute 'axis'", a, x->ndim, axis)))
      return st;
    ext = x->shape[*axis];
  }
  int64_t len = tvm_gvalue_numel(cv);
  if (cv->ndim != 1 || len > ext)
    return op_fail(n, TVM_ERR_INVALID,
                   "condition must be 1-D and at most %lld long",
                   (long long)ext);
  *cnt = 0;
  for (int64_t k = 0; k < len; k++)
    *cnt += ((const uint8_t *)cv->data)[k] != 0;
  return TVM_OK;
}

static tvm_status compress_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int axis;
  int64_t cnt;
  tvm_status st = compress_info(n, &axis, &cnt);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if (axis < 0) {
    op_set_out(n, 0, x->dtype, 1, &cnt);
    return TVM_OK;
  }
  int64_t s[TVM_MAX_DIMS];
  memcpy(s, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  s[axis] = cnt;
  op_set_out(n, 0, x->dtype, x->ndim, s);
  return TVM_OK;
}

typedef struct cp_ud {
  tvm_tensor *x, *cond, *cnt, *pos;
  int axis;
} cp_ud;

/* ".cnt": selected positions up to and including j */
static tvm_expr *cp_cnt_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cp_ud *u = ud;
  tvm_iter_var *r = tvm_reduce_axis(c, "r", 0, u->cond->shape_c[0]);
  if (!r)
    return NULL;
  tvm_expr *on = tvm_and(c, tvm_le(c, r->var, i[0]),
                         tvm_tread(c, u->cond, &r->var, 1));
  return tvm_sum(c, tvm_select(c, on, tvm_int(c, 1), tvm_int(c, 0)), &r, 1);
}

/* ".pos": the position whose count is p + 1 */
static tvm_expr *cp_pos_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cp_ud *u = ud;
  tvm_iter_var *r = tvm_reduce_axis(c, "r", 0, u->cond->shape_c[0]);
  if (!r)
    return NULL;
  tvm_expr *on = tvm_and(
      c, tvm_tread(c, u->cond, &r->var, 1),
      tvm_eq(c, tvm_tread(c, u->cnt, &r->var, 1),
             tvm_add(c, i[0], tvm_int(c, 1))));
  return tvm_sum(c, tvm_select(c, on, r->var, tvm_int(c, 0)), &r, 1);
}

static tvm_expr *cp_out_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cp_ud *u = ud;
  tvm_expr *xi[TVM_MAX_DIMS];
  if (u->axis < 0) { /* flattened: unravel the position */
    tvm_expr *f = tvm_tread(c, u->pos, i, 1);
    for (int d = u->x->ndim - 1; d >= 0; d--) {
      tvm_expr *ext = tvm_int(c, u->x->shape_c[d]);
      xi[d] = tvm_floormod(c, f, ext);
      f = tvm_floordiv(c, f, ext);
    }
  } else {
    for (int d = 0; d < u->x->ndim; d++)
      xi[d] = d == u->axis ? tvm_tread(c, u->pos, &i[d], 1) : i[d];
  }
  return tvm_tread(c, u->x, xi, u->x->ndim);
}

static tvm_status compress_compute(tvm_ctx *c, const tvm_gnode *n,
                                   tvm_tensor **in, tvm_tensor **out) {
  cp_ud u = {in[0], in[1], NULL, NULL, 0};
  int64_t cnt;
  tvm_status st = compress_info(n, &u.axis, &cnt);
  if (st)
    return st;
  u.cnt = tvm_compute(c, op_te_name(c, n, "cnt"), u.cond->shape_c, 1,
                      cp_cnt_body, &u);
  if ((st = op_te_status(c, n, u.cnt)))
    return st;
  u.pos = tvm_compute(c, op_te_name(c, n, "pos"), &cnt, 1, cp_pos_body, &u);
  if ((st = op_te_status(c, n, u.pos)))
    return st;
  out[0] = op_te_compute_out(c, n, 0, "injective", cp_out_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status compress_reference(const tvm_gnode *n,
                                     const DLTensor *const *in,
                                     DLTensor *const *out) {
  int axis;
  int64_t cnt;
  tvm_status st = compress_info(n, &axis, &cnt);
  if (st)
    return st;
  const DLTensor *x = in[0], *cv = in[1];
  int64_t eb = op_dl_elem_bytes(x), len = cv->shape[0];
  int64_t outer = 1, ext = op_dl_numel(x), inner = 1;
  if (axis >= 0) {
    ext = x->shape[axis];
    for (int d = 0; d < x->ndim; d++)
      if (d < axis)
        outer *= x->shape[d];
      else if (d > axis)
        inner *= x->shape[d];
  }
  char *dst = out[0]->data;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t k = 0; k < len; k++) {
      if (!op_dl_geti(cv, k))
        continue;
      size_t bytes = (size_t)(inner * eb);
      memcpy(dst, (const char *)x->data + ((o * ext + k) * inner) * eb, bytes);
      dst += bytes;
    }
  return TVM_OK;
}

/* ---- NonZero ---------------------------------------------------------------- */
/* The count of nonzero elements of the (constant) input. */
static tvm_status nz_info(const tvm_gnode *n, int64_t *cnt) {
  tvm_status st = op_check_dtype(n, 0, "X", DT_NUM | DT_BOOL);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if (x->kind != TVM_GV_CONST || !x->data)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "the output shape of NonZero depends on its input's "
                   "values, so the input must be a constant (here it is %s)",
                   x->kind == TVM_GV_INPUT ? "a graph input"
                                           : "computed at run time");
  DLTensor v;
  memset(&v, 0, sizeof v);
  v.data = x->data;
  v.ndim = x->ndim;
  v.dtype = x->dtype;
  v.shape = (int64_t *)x->shape;
  *cnt = 0;
  for (int64_t e = 0; e < tvm_gvalue_numel(x); e++)
    *cnt += op_dl_getf(&v, e) != 0;
  return TVM_OK;
}

static tvm_status nz_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int64_t cnt;
  tvm_status st = nz_info(n, &cnt);
  if (st)
    return st;
  int64_t s[2] = {n->inputs[0]->ndim, cnt};
  op_set_out(n, 0, TVM_I64, 2, s);
  return TVM_OK;
}

typedef struct nz_ud {
  tvm_tensor *x, *cnt, *pos;
  int64_t len;
} nz_ud;

/* x at flat position f, compared with 0 */
static tvm_expr *nz_at(tvm_ctx *c, nz_ud *u, tvm_expr *f) {
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = u->x->ndim - 1; d >= 0; d--) {
    tvm_expr *ext = tvm_int(c, u->x->shape_c[d]);
    xi[d] = tvm_floormod(c, f, ext);
    f = tvm_floordiv(c, f, ext);
  }
  tvm_expr *v = tvm_tread(c, u->x, xi, u->x->ndim);
  return tvm_ne(c, v, op_te_const(c, v->dtype, 0));
}

/* ".cnt": nonzero elements at flat positions up to and including j */
static tvm_expr *nz_cnt_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  nz_ud *u = ud;
  tvm_iter_var *r = tvm_reduce_axis(c, "r", 0, u->len);
  if (!r)
    return NULL;
  tvm_expr *on = tvm_and(c, tvm_le(c, r->var, i[0]), nz_at(c, u, r->var));
  return tvm_sum(c, tvm_select(c, on, tvm_int(c, 1), tvm_int(c, 0)), &r, 1);
}

/* ".pos": the flat position of the p-th nonzero element */
static tvm_expr *nz_pos_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  nz_ud *u = ud;
  tvm_iter_var *r = tvm_reduce_axis(c, "r", 0, u->len);
  if (!r)
    return NULL;
  tvm_expr *on = tvm_and(
      c, nz_at(c, u, r->var),
      tvm_eq(c, tvm_tread(c, u->cnt, &r->var, 1),
             tvm_add(c, i[0], tvm_int(c, 1))));
  return tvm_sum(c, tvm_select(c, on, r->var, tvm_int(c, 0)), &r, 1);
}

/* out[d, p]: coordinate d of the p-th nonzero element */
static tvm_expr *nz_out_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  nz_ud *u = ud;
  tvm_expr *f = tvm_tread(c, u->pos, &i[1], 1), *coord = tvm_int(c, 0);
  for (int d = u->x->ndim - 1; d >= 0; d--) {
    tvm_expr *ext = tvm_int(c, u->x->shape_c[d]);
    coord = tvm_select(c, tvm_eq(c, i[0], tvm_int(c, d)),
                       tvm_floormod(c, f, ext), coord);
    f = tvm_floordiv(c, f, ext);
  }
  return tvm_cast(c, TVM_I64, coord);
}

static tvm_status nz_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  int64_t cnt;
  tvm_status st = nz_info(n, &cnt);
  if (st)
    return st;
  nz_ud u = {in[0], NULL, NULL, tvm_gvalue_numel(n->inputs[0])};
  u.cnt = tvm_compute(c, op_te_name(c, n, "cnt"), &u.len, 1, nz_cnt_body, &u);
  if ((st = op_te_status(c, n, u.cnt)))
    return st;
  u.pos = tvm_compute(c, op_te_name(c, n, "pos"), &cnt, 1, nz_pos_body, &u);
  if ((st = op_te_status(c, n, u.pos)))
    return st;
  out[0] = op_te_compute_out(c, n, 0, "injective", nz_out_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status nz_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  int64_t cnt;
  tvm_status st = nz_info(n, &cnt);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int64_t len = op_dl_numel(x), p = 0, idx[TVM_MAX_DIMS];
  for (int64_t e = 0; e < len; e++) {
    if (op_dl_getf(x, e) == 0)
      continue;
    op_dl_unravel(e, x->shape, x->ndim, idx);
    for (int d = 0; d < x->ndim; d++)
      op_dl_seti(out[0], d * cnt + p, idx[d]);
    p++;
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"OneHot", 3, 3, 1, 1, TVM_PAT_INJECTIVE, onehot_infer, onehot_compute,
     onehot_reference, "values[1] where the index equals the position along "
     "axis, values[0] elsewhere"},
    {"GatherND", 2, 2, 1, 1, TVM_PAT_INJECTIVE, gnd_infer, gnd_compute,
     gnd_reference, "data slices at the index tuples (batch_dims)"},
    {"TopK", 1, 2, 1, 2, TVM_PAT_OPAQUE, topk_infer, topk_compute,
     topk_reference, "the K largest (smallest) along axis, sorted, and their "
     "indices"},
    {"Compress", 2, 2, 1, 1, TVM_PAT_OPAQUE, compress_infer, compress_compute,
     compress_reference,
     "the slices along axis (flattened without) where the constant "
     "condition is true"},
    {"NonZero", 1, 1, 1, 1, TVM_PAT_OPAQUE, nz_infer, nz_compute,
     nz_reference, "the coordinates of the nonzero elements of a constant "
     "input, [rank, count]"},
};

const ops_family ops_index_family = {defs, (int)(sizeof defs / sizeof defs[0])};
