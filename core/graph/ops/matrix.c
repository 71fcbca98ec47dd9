/*
 * core/graph/ops/matrix.c - operators that select elements by their
 * position along one or two axes: Trilu (upper or lower triangle of the
 * last two axes, diagonal offset k from the optional constant input 1),
 * EyeLike (ones on diagonal k of a 2-D shape, dtype from attribute
 * "dtype" else the input's), CumSum (running sum along the constant axis
 * input; attributes exclusive, reverse) and Hardmax (1 at the first
 * maximum along axis, 0 elsewhere; before opset 13 the input is seen as
 * 2-D flattened at axis, which is only supported when axis is the last
 * one).
 *
 * Computes: Trilu and EyeLike are one select per element (elemwise /
 * injective); CumSum is a sum over the whole axis of a select (quadratic
 * in the axis length, a reduction); Hardmax has ".max" and ".first"
 * reduction stages, then a comparison (opaque, like Softmax).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

/* ---- Trilu ----------------------------------------------------------------- */
/* Reads upper and k. */
static tvm_status trilu_info(const tvm_gnode *n, int64_t *upper, int64_t *k) {
  tvm_status st = op_attr_int(n, "upper", 1, upper);
  if (st)
    return st;
  *k = 0;
  if (n->ninputs > 1 && n->inputs[1]) {
    double kv;
    if ((st = op_check_dtype(n, 1, "k", DT_I64)) ||
        (st = op_const_scalar(n, 1, "k", &kv)))
      return st;
    *k = (int64_t)kv;
  }
  return TVM_OK;
}

static tvm_status trilu_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int64_t up, k;
  tvm_status st = op_check_dtype(n, 0, "input", DT_ALL);
  if (st || (st = trilu_info(n, &up, &k)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if (x->ndim < 2)
    return op_fail(n, TVM_ERR_INVALID,
                   "input must have at least 2 dimensions, it has %d",
                   x->ndim);
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  return TVM_OK;
}

typedef struct tri_ud {
  tvm_tensor *x;
  int64_t upper, k;
  tvm_dtype t;
  int nd;
} tri_ud;

/* keep x where (upper ? j - i >= k : j - i <= k). */
static tvm_expr *trilu_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tri_ud *u = ud;
  int nd = u->x->ndim;
  tvm_expr *d = tvm_sub(c, i[nd - 1], i[nd - 2]);
  tvm_expr *kk = tvm_int(c, u->k);
  tvm_expr *keep = u->upper ? tvm_ge(c, d, kk) : tvm_le(c, d, kk);
  tvm_expr *x = tvm_tread(c, u->x, i, nd);
  return tvm_select(c, keep, x, op_te_const(c, u->x->dtype, 0));
}

static tvm_status trilu_compute(tvm_ctx *c, const tvm_gnode *n,
                                tvm_tensor **in, tvm_tensor **out) {
  tri_ud u = {in[0], 0, 0, TVM_F32, 0};
  tvm_status st = trilu_info(n, &u.upper, &u.k);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "elemwise", trilu_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status trilu_reference(const tvm_gnode *n,
                                  const DLTensor *const *in,
                                  DLTensor *const *out) {
  int64_t up, k;
  tvm_status st = trilu_info(n, &up, &k);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int64_t R = x->shape[x->ndim - 2], C = x->shape[x->ndim - 1];
  int64_t len = op_dl_numel(x), eb = op_dl_elem_bytes(x);
  for (int64_t e = 0; e < len; e++) {
    int64_t j = e % C, i = (e / C) % R;
    int keep = up ? j - i >= k : j - i <= k;
    char *dst = (char *)out[0]->data + e * eb;
    if (keep)
      memcpy(dst, (const char *)x->data + e * eb, (size_t)eb);
    else
      memset(dst, 0, (size_t)eb);
  }
  return TVM_OK;
}

/* ---- EyeLike ---------------------------------------------------------------- */
/* The output dtype (attribute "dtype", an ONNX type code, else the
 * input's) and k. */
static tvm_status eye_info(const tvm_gnode *n, tvm_dtype *t, int64_t *k) {
  int64_t code;
  tvm_status st;
  if ((st = op_attr_int(n, "dtype", -1, &code)) ||
      (st = op_attr_int(n, "k", 0, k)))
    return st;
  *t = n->inputs[0]->dtype;
  switch (code) {
  case -1: break;
  case 1: *t = TVM_F32; break;
  case 2: *t = TVM_U8; break;
  case 3: *t = TVM_I8; break;
  case 4: *t = tvm_dt(kDLUInt, 16, 1); break;
  case 5: *t = TVM_I16; break;
  case 6: *t = TVM_I32; break;
  case 7: *t = TVM_I64; break;
  case 9: *t = TVM_BOOL; break;
  case 11: *t = TVM_F64; break;
  case 12: *t = TVM_U32; break;
  case 13: *t = tvm_dt(kDLUInt, 64, 1); break;
  default:
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "attribute 'dtype' = %lld is not supported (numbers and "
                   "bool except float16/bfloat16 are)",
                   (long long)code);
  }
  return TVM_OK;
}

static tvm_status eye_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  tvm_dtype t;
  int64_t k;
  tvm_status st = op_check_dtype(n, 0, "input", DT_ALL & ~(DT_F16 | DT_BF16));
  if (st || (st = eye_info(n, &t, &k)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if (x->ndim != 2)
    return op_fail(n, TVM_ERR_INVALID, "input must be 2-D, it has %d "
                   "dimensions", x->ndim);
  op_set_out(n, 0, t, 2, x->shape);
  return TVM_OK;
}

static tvm_expr *eye_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tri_ud *u = ud;
  tvm_expr *on = tvm_eq(c, tvm_sub(c, i[1], i[0]), tvm_int(c, u->k));
  return tvm_select(c, on, op_te_const(c, u->t, 1), op_te_const(c, u->t, 0));
}

static tvm_status eye_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  tri_ud u = {in[0], 0, 0, TVM_F32, 2};
  tvm_status st = eye_info(n, &u.t, &u.k);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "injective", eye_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status eye_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  tvm_dtype t;
  int64_t k;
  tvm_status st = eye_info(n, &t, &k);
  if (st)
    return st;
  int64_t C = in[0]->shape[1], len = op_dl_numel(out[0]);
  for (int64_t e = 0; e < len; e++)
    op_dl_seti(out[0], e, e % C - e / C == k);
  return TVM_OK;
}

/* ---- CumSum ----------------------------------------------------------------- */
static tvm_status cum_info(const tvm_gnode *n, int *axis, int64_t *excl,
                           int64_t *rev) {
  double a;
  tvm_status st;
  if ((st = op_check_dtype(n, 1, "axis", DT_I32 | DT_I64)) ||
      (st = op_const_scalar(n, 1, "axis", &a)) ||
      (st = op_attr_int(n, "exclusive", 0, excl)) ||
      (st = op_attr_int(n, "reverse", 0, rev)))
    return st;
  return op_axis(n, "input 'axis'", (int64_t)a, n->inputs[0]->ndim, axis);
}

static tvm_status cum_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int axis;
  int64_t ex, rev;
  tvm_status st = op_check_dtype(n, 0, "x", DT_NUM);
  if (st || (st = cum_info(n, &axis, &ex, &rev)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  return TVM_OK;
}

typedef struct cum_ud {
  tvm_tensor *x;
  int axis;
  int64_t ex, rev;
} cum_ud;

/* sum over r of the axis of select(r counts for i, x[.., r, ..], 0). */
static tvm_expr *cum_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cum_ud *u = ud;
  tvm_iter_var *r = tvm_reduce_axis(c, "r", 0, u->x->shape_c[u->axis]);
  if (!r)
    return NULL;
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    xi[d] = d == u->axis ? r->var : i[d];
  tvm_expr *a = i[u->axis], *rv = r->var;
  tvm_expr *in = u->rev ? (u->ex ? tvm_gt(c, rv, a) : tvm_ge(c, rv, a))
                        : (u->ex ? tvm_lt(c, rv, a) : tvm_le(c, rv, a));
  tvm_expr *x = tvm_tread(c, u->x, xi, u->x->ndim);
  return tvm_sum(c, tvm_select(c, in, x, op_te_const(c, u->x->dtype, 0)), &r,
                 1);
}

static tvm_status cum_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  cum_ud u = {in[0], 0, 0, 0};
  tvm_status st = cum_info(n, &u.axis, &u.ex, &u.rev);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "cumsum", cum_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status cum_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  int axis;
  int64_t ex, rev;
  tvm_status st = cum_info(n, &axis, &ex, &rev);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int64_t outer = 1, len = x->shape[axis], inner = 1;
  for (int d = 0; d < x->ndim; d++)
    if (d < axis)
      outer *= x->shape[d];
    else if (d > axis)
      inner *= x->shape[d];
  int fl = op_dl_is_float(x);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t q = 0; q < inner; q++) {
      double fs = 0;
      int64_t is = 0;
      for (int64_t s = 0; s < len; s++) {
        int64_t a = rev ? len - 1 - s : s;
        int64_t e = (o * len + a) * inner + q;
        if (ex) {
          fl ? op_dl_setf(out[0], e, fs) : op_dl_seti(out[0], e, is);
        }
        if (fl)
          fs += op_dl_getf(x, e);
        else
          is += op_dl_geti(x, e);
        if (!ex) {
          fl ? op_dl_setf(out[0], e, fs) : op_dl_seti(out[0], e, is);
        }
      }
    }
  return TVM_OK;
}

/* ---- Hardmax ---------------------------------------------------------------- */
static tvm_status hm_axis(const tvm_gnode *n, int *axis) {
  const tvm_gvalue *x = n->inputs[0];
  int old = op_opset(n) < 13;
  int64_t a;
  tvm_status st = op_attr_int(n, "axis", old ? 1 : -1, &a);
  if (st || (st = op_axis(n, "attribute 'axis'", a, x->ndim, axis)))
    return st;
  if (old && *axis != x->ndim - 1)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "Hardmax before opset 13 (this node: opset %d) flattens "
                   "the axes from 'axis' = %d on; only axis = %d (the last) "
                   "is supported; re-export at opset 13 or later",
                   op_opset(n), *axis, x->ndim - 1);
  return TVM_OK;
}

static tvm_status hm_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int axis;
  tvm_status st = op_check_dtype(n, 0, "input", DT_F32 | DT_F64);
  if (st || (st = hm_axis(n, &axis)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  return TVM_OK;
}

typedef struct hm_ud {
  tvm_tensor *x, *max, *first;
  int axis;
} hm_ud;

static tvm_expr *hm_max_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  hm_ud *u = ud;
  tvm_iter_var *r = tvm_reduce_axis(c, "r", 0, u->x->shape_c[u->axis]);
  if (!r)
    return NULL;
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    xi[d] = d == u->axis ? r->var : i[d];
  return tvm_rmax(c, tvm_tread(c, u->x, xi, u->x->ndim), &r, 1);
}

/* the smallest r where x equals the maximum */
static tvm_expr *hm_first_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  hm_ud *u = ud;
  int64_t len = u->x->shape_c[u->axis];
  tvm_iter_var *r = tvm_reduce_axis(c, "r", 0, len);
  if (!r)
    return NULL;
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    xi[d] = d == u->axis ? r->var : i[d];
  tvm_expr *hit = tvm_eq(c, tvm_tread(c, u->x, xi, u->x->ndim),
                         tvm_tread(c, u->max, i, u->x->ndim));
  return tvm_rmin(c, tvm_select(c, hit, r->var, tvm_int(c, len)), &r, 1);
}

static tvm_expr *hm_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  hm_ud *u = ud;
  tvm_expr *ki[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    ki[d] = d == u->axis ? tvm_int(c, 0) : i[d];
  tvm_expr *on = tvm_eq(c, i[u->axis], tvm_tread(c, u->first, ki, u->x->ndim));
  tvm_dtype t = u->x->dtype;
  return tvm_select(c, on, op_te_const(c, t, 1), op_te_const(c, t, 0));
}

static tvm_status hm_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  hm_ud u = {in[0], NULL, NULL, 0};
  tvm_status st = hm_axis(n, &u.axis);
  if (st)
    return st;
  int64_t ks[TVM_MAX_DIMS];
  for (int d = 0; d < u.x->ndim; d++)
    ks[d] = d == u.axis ? 1 : u.x->shape_c[d];
  u.max = tvm_compute(c, op_te_name(c, n, "max"), ks, u.x->ndim, hm_max_body,
                      &u);
  if ((st = op_te_status(c, n, u.max)))
    return st;
  u.first = tvm_compute(c, op_te_name(c, n, "first"), ks, u.x->ndim,
                        hm_first_body, &u);
  if ((st = op_te_status(c, n, u.first)))
    return st;
  out[0] = op_te_compute_out(c, n, 0, "hardmax", hm_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status hm_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  int axis;
  tvm_status st = hm_axis(n, &axis);
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
    for (int64_t q = 0; q < inner; q++) {
      int64_t best = 0;
      for (int64_t a = 1; a < len; a++)
        if (op_dl_getf(x, (o * len + a) * inner + q) >
            op_dl_getf(x, (o * len + best) * inner + q))
          best = a;
      for (int64_t a = 0; a < len; a++)
        op_dl_setf(out[0], (o * len + a) * inner + q, a == best);
    }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Trilu", 1, 2, 1, 1, TVM_PAT_ELEMWISE, trilu_infer, trilu_compute,
     trilu_reference,
     "upper (or lower) triangle of the last two axes, diagonal offset k"},
    {"EyeLike", 1, 1, 1, 1, TVM_PAT_INJECTIVE, eye_infer, eye_compute,
     eye_reference, "ones on diagonal k of the input's 2-D shape"},
    {"CumSum", 2, 2, 1, 1, TVM_PAT_REDUCTION, cum_infer, cum_compute,
     cum_reference, "running sum along axis (exclusive, reverse)"},
    {"Hardmax", 1, 1, 1, 1, TVM_PAT_OPAQUE, hm_infer, hm_compute,
     hm_reference, "1 at the first maximum along axis, 0 elsewhere"},
};

const ops_family ops_matrix_family = {defs,
                                      (int)(sizeof defs / sizeof defs[0])};
