/*
 * core/graph/ops/shape.c - operators that only change the shape of the
 * data (row-major order is kept): Reshape (0 copies a dimension unless
 * allowzero, -1 is inferred; the shape is a constant input, or the
 * "shape" attribute of opset < 5), Flatten, Squeeze, Unsqueeze (axes as
 * attribute before opset 13 or as a constant input from 13 - either is
 * accepted), Expand (numpy broadcast to a constant shape) and Shape
 * (start/end; an int64 vector, folded away: compute NULL), Size (the
 * element count, folded: compute NULL) and Range (constant start, limit
 * and delta).
 */
#include <math.h>
#include <string.h>

#include "ops_int.h"

/* Output shape of Reshape. */
static tvm_status reshape_shape(const tvm_gnode *n, int64_t *out, int *nout) {
  int64_t req[TVM_MAX_DIMS + 1];
  int cnt;
  int64_t allowzero;
  tvm_status st;
  if ((st = op_attr_int(n, "allowzero", 0, &allowzero)))
    return st;
  if (n->ninputs > 1 && n->inputs[1]) {
    if ((st = op_const_ints(n, 1, "shape", req, TVM_MAX_DIMS, &cnt)))
      return st;
  } else {
    const int64_t *v;
    if ((st = op_attr_ints(n, "shape", &v, &cnt)))
      return st;
    if (cnt < 0)
      return op_fail(n, TVM_ERR_INVALID,
                     "no target shape: give input 1 (shape) or, before "
                     "opset 5, the attribute 'shape'");
    if (cnt > TVM_MAX_DIMS)
      return op_fail(n, TVM_ERR_UNSUPPORTED, "more than %d dimensions",
                     TVM_MAX_DIMS);
    memcpy(req, v, sizeof(int64_t) * (size_t)cnt);
  }
  const tvm_gvalue *x = n->inputs[0];
  int64_t known = 1, total = tvm_gvalue_numel(x);
  int infer = -1;
  for (int d = 0; d < cnt; d++) {
    int64_t v = req[d];
    if (v == 0 && !allowzero) {
      if (d >= x->ndim)
        return op_fail(n, TVM_ERR_INVALID,
                       "shape[%d] = 0 copies input dimension %d, but the "
                       "input has only %d dimensions",
                       d, d, x->ndim);
      v = x->shape[d];
    } else if (v == -1) {
      if (infer >= 0)
        return op_fail(n, TVM_ERR_INVALID,
                       "shape has more than one -1; at most one dimension "
                       "can be inferred");
      infer = d;
      continue;
    } else if (v < 0) {
      return op_fail(n, TVM_ERR_INVALID, "shape[%d] = %lld is negative", d,
                     (long long)v);
    }
    out[d] = v;
    if (tvm_mul_overflow_i64(known, v, &known)) {
      char b[128];
      return op_fail(n, TVM_ERR_INVALID,
                     "the requested shape %s has more than 2^63 elements "
                     "(the input has %lld)",
                     op_shape_str(b, sizeof b, req, cnt), (long long)total);
    }
  }
  if (infer >= 0) {
    if (known == 0 || total % known)
      return op_fail(n, TVM_ERR_INVALID,
                     "cannot infer the -1 dimension: %lld elements are not "
                     "a multiple of %lld",
                     (long long)total, (long long)known);
    out[infer] = total / known;
    known *= out[infer];
  }
  if (known != total) {
    char a[128], b[128];
    return op_fail(n, TVM_ERR_INVALID,
                   "cannot reshape %s (%lld elements) to %s (%lld elements)",
                   op_shape_str(a, sizeof a, x->shape, x->ndim),
                   (long long)total, op_shape_str(b, sizeof b, out, cnt),
                   (long long)known);
  }
  *nout = cnt;
  return TVM_OK;
}

/* Reads the Squeeze/Unsqueeze axes (input 1, else attribute "axes");
 * *cnt = -1 when absent. */
static tvm_status read_axes(const tvm_gnode *n, int64_t *axes, int *cnt) {
  if (n->ninputs > 1 && n->inputs[1])
    return op_const_ints(n, 1, "axes", axes, TVM_MAX_DIMS, cnt);
  const int64_t *v;
  tvm_status st = op_attr_ints(n, "axes", &v, cnt);
  if (st)
    return st;
  if (*cnt > TVM_MAX_DIMS)
    return op_fail(n, TVM_ERR_INVALID, "too many axes");
  if (*cnt > 0)
    memcpy(axes, v, sizeof(int64_t) * (size_t)*cnt);
  return TVM_OK;
}

/* Output shape of Squeeze (the listed size-1 axes, or all of them). */
static tvm_status squeeze_shape(const tvm_gnode *n, int64_t *out, int *nout) {
  int64_t axes[TVM_MAX_DIMS];
  int cnt, drop[TVM_MAX_DIMS] = {0};
  tvm_status st = read_axes(n, axes, &cnt);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  for (int k = 0; k < cnt; k++) {
    int a;
    if ((st = op_axis(n, "axes value", axes[k], x->ndim, &a)))
      return st;
    if (x->shape[a] != 1)
      return op_fail(n, TVM_ERR_INVALID,
                     "cannot squeeze axis %d: its size is %lld, not 1", a,
                     (long long)x->shape[a]);
    drop[a] = 1;
  }
  *nout = 0;
  for (int d = 0; d < x->ndim; d++)
    if (!(cnt < 0 ? x->shape[d] == 1 : drop[d]))
      out[(*nout)++] = x->shape[d];
  return TVM_OK;
}

/* Output shape of Unsqueeze (size-1 axes inserted at the output positions). */
static tvm_status unsqueeze_shape(const tvm_gnode *n, int64_t *out, int *nout) {
  int64_t axes[TVM_MAX_DIMS];
  int cnt, ins[TVM_MAX_DIMS] = {0};
  tvm_status st = read_axes(n, axes, &cnt);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if (cnt < 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "no axes: give them as input 1 (opset >= 13) or as the "
                   "attribute 'axes'");
  int r = x->ndim + cnt;
  if (r > TVM_MAX_DIMS)
    return op_fail(n, TVM_ERR_UNSUPPORTED, "more than %d dimensions",
                   TVM_MAX_DIMS);
  for (int k = 0; k < cnt; k++) {
    int a;
    if ((st = op_axis(n, "axes value", axes[k], r, &a)))
      return st;
    if (ins[a])
      return op_fail(n, TVM_ERR_INVALID, "axis %d is given twice", a);
    ins[a] = 1;
  }
  for (int d = 0, s = 0; d < r; d++)
    out[d] = ins[d] ? 1 : x->shape[s++];
  *nout = r;
  return TVM_OK;
}

/* Output shape of Flatten: (prod(dims[:axis]), prod(dims[axis:])). */
static tvm_status flatten_shape(const tvm_gnode *n, int64_t *out, int *nout) {
  int64_t axis;
  int a;
  const tvm_gvalue *x = n->inputs[0];
  tvm_status st = op_attr_int(n, "axis", 1, &axis);
  if (st)
    return st;
  if (axis == x->ndim)
    a = x->ndim;
  else if ((st = op_axis(n, "attribute 'axis'", axis, x->ndim, &a)))
    return st;
  out[0] = out[1] = 1;
  for (int d = 0; d < x->ndim; d++)
    out[d < a ? 0 : 1] *= x->shape[d];
  *nout = 2;
  return TVM_OK;
}

/* Output shape of Expand: numpy broadcast of the input and the target shape. */
static tvm_status expand_shape(const tvm_gnode *n, int64_t *out, int *nout) {
  int64_t req[TVM_MAX_DIMS];
  int cnt;
  tvm_status st = op_const_ints(n, 1, "shape", req, TVM_MAX_DIMS, &cnt);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  return op_broadcast(n, x->shape, x->ndim, req, cnt, out, nout);
}

/* Shape's [start, end) range of dimensions. */
static tvm_status shape_range(const tvm_gnode *n, int rank, int *lo, int *hi) {
  int64_t s, e;
  tvm_status st;
  if ((st = op_attr_int(n, "start", 0, &s)) ||
      (st = op_attr_int(n, "end", rank, &e)))
    return st;
  if (s < 0)
    s += rank;
  if (e < 0)
    e += rank;
  s = s < 0 ? 0 : s > rank ? rank : s;
  e = e < 0 ? 0 : e > rank ? rank : e;
  *lo = (int)s;
  *hi = (int)(e < s ? s : e);
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status shape_infer(tvm_graph *g, tvm_gnode *n) {
  const tvm_gvalue *x = NULL;
  int lo, hi;
  tvm_status st = op_input(n, 0, "data", &x);
  if (st || (st = shape_range(n, x->ndim, &lo, &hi)))
    return st;
  int64_t len = hi - lo;
  op_set_out(n, 0, TVM_I64, 1, &len);
  return TVM_OK;
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status shape_reference(const tvm_gnode *n, const DLTensor *const *in,
                                  DLTensor *const *out) {
  int lo, hi;
  tvm_status st = shape_range(n, in[0]->ndim, &lo, &hi);
  if (st)
    return st;
  for (int d = lo; d < hi; d++)
    op_dl_seti(out[0], d - lo, in[0]->shape[d]);
  return TVM_OK;
}

/* Infer for the reshaping operators (dispatch on n->op). */
static tvm_status reshape_like_infer(tvm_graph *g, tvm_gnode *n) {
  int64_t shape[TVM_MAX_DIMS];
  int nd = 0;
  tvm_status st = op_check_dtype(n, 0, "data", DT_ALL);
  if (st)
    return st;
  if (strcmp(n->op, "Reshape") == 0)
    st = reshape_shape(n, shape, &nd);
  else if (strcmp(n->op, "Flatten") == 0)
    st = flatten_shape(n, shape, &nd);
  else if (strcmp(n->op, "Squeeze") == 0)
    st = squeeze_shape(n, shape, &nd);
  else if (strcmp(n->op, "Unsqueeze") == 0)
    st = unsqueeze_shape(n, shape, &nd);
  else
    st = expand_shape(n, shape, &nd);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, nd, shape);
  return TVM_OK;
}

typedef struct rs_ud {
  tvm_tensor *x;
  const tvm_gvalue *o;
} rs_ud;

/* x read at the position of output element i of the same row-major
 * order: non-unit dimensions matched in order when only unit dimensions
 * differ, else through the flat index. */
static tvm_expr *reshape_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  rs_ud *u = ud;
  tvm_tensor *x = u->x;
  const tvm_gvalue *o = u->o;
  tvm_expr *ix[TVM_MAX_DIMS];
  int a = 0, b = 0, same = 1;
  while (same) {
    while (a < x->ndim && x->shape_c[a] == 1)
      ix[a++] = tvm_int(c, 0);
    while (b < o->ndim && o->shape[b] == 1)
      b++;
    if (a == x->ndim || b == o->ndim) {
      same = a == x->ndim && b == o->ndim;
      break;
    }
    if (x->shape_c[a] != o->shape[b])
      same = 0;
    else
      ix[a++] = i[b++];
  }
  if (!same) {
    tvm_expr *flat = tvm_int(c, 0);
    for (int d = 0; d < o->ndim; d++)
      flat = tvm_add(c, tvm_mul(c, flat, tvm_int(c, o->shape[d])), i[d]);
    int64_t stride = 1;
    for (int d = x->ndim - 1; d >= 0; d--) {
      tvm_expr *q =
          stride == 1 ? flat : tvm_floordiv(c, flat, tvm_int(c, stride));
      ix[d] = d == 0 ? q : tvm_floormod(c, q, tvm_int(c, x->shape_c[d]));
      stride *= x->shape_c[d];
    }
  }
  return tvm_tread(c, x, ix, x->ndim);
}

/* x read at the broadcast position. */
static tvm_expr *expand_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  rs_ud *u = ud;
  return op_te_bcast_read(c, u->x, i, u->o->ndim);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status reshape_like_compute(tvm_ctx *c, const tvm_gnode *n,
                                       tvm_tensor **in, tvm_tensor **out) {
  rs_ud u = {in[0], n->outputs[0]};
  int expand = strcmp(n->op, "Expand") == 0;
  out[0] = op_te_compute_out(c, n, 0, expand ? "broadcast" : "injective",
                          expand ? expand_body : reshape_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status reshape_like_reference(const tvm_gnode *n,
                                         const DLTensor *const *in,
                                         DLTensor *const *out) {
  int64_t len = op_dl_numel(out[0]);
  int eb = op_dl_elem_bytes(out[0]);
  const char *src = (const char *)in[0]->data + in[0]->byte_offset;
  char *dst = (char *)out[0]->data + out[0]->byte_offset;
  if (strcmp(n->op, "Expand") != 0) {
    memcpy(dst, src, (size_t)(len * eb));
    return TVM_OK;
  }
  for (int64_t e = 0; e < len; e++)
    memcpy(dst + e * eb, src + op_dl_bcast_index(in[0], out[0], e) * eb,
           (size_t)eb);
  return TVM_OK;
}

/* ---- Size, Range (constant results, folded; compute for Range) -------- */
static tvm_status size_infer(tvm_graph *g, tvm_gnode *n) {
  const tvm_gvalue *x = NULL;
  tvm_status st = op_input(n, 0, "data", &x);
  if (st)
    return st;
  op_set_out(n, 0, TVM_I64, 0, NULL);
  return TVM_OK;
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status size_reference(const tvm_gnode *n, const DLTensor *const *in,
                                 DLTensor *const *out) {
  op_dl_seti(out[0], 0, op_dl_numel(in[0]));
  return TVM_OK;
}

typedef struct range_info {
  double start, delta;
  int64_t len;
  tvm_dtype t;
} range_info;

/* Reads the constant start, limit, delta; fills the length. */
static tvm_status range_info_of(const tvm_gnode *n, range_info *ri) {
  static const char *const what[] = {"start", "limit", "delta"};
  double v[3];
  tvm_status st;
  for (int i = 0; i < 3; i++)
    if ((st = op_check_dtype(n, i, what[i], DT_NUM)) ||
        (st = op_const_scalar(n, i, what[i], &v[i])))
      return st;
  ri->t = n->inputs[0]->dtype;
  if (v[2] == 0)
    return op_fail(n, TVM_ERR_INVALID, "delta is 0");
  double cnt = ceil((v[1] - v[0]) / v[2]);
  ri->len = cnt > 0 ? (int64_t)cnt : 0;
  ri->start = v[0];
  ri->delta = v[2];
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status range_infer(tvm_graph *g, tvm_gnode *n) {
  range_info ri;
  tvm_status st = range_info_of(n, &ri);
  if (st)
    return st;
  op_set_out(n, 0, ri.t, 1, &ri.len);
  return TVM_OK;
}

/* start + i * delta. */
static tvm_expr *range_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  range_info *ri = ud;
  tvm_expr *k = tvm_cast(c, ri->t, i[0]);
  return tvm_add(c, op_te_const(c, ri->t, ri->start),
                 tvm_mul(c, k, op_te_const(c, ri->t, ri->delta)));
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status range_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                                tvm_tensor **out) {
  range_info ri;
  tvm_status st = range_info_of(n, &ri);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "elemwise", range_body, &ri);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status range_reference(const tvm_gnode *n, const DLTensor *const *in,
                                  DLTensor *const *out) {
  range_info ri;
  tvm_status st = range_info_of(n, &ri);
  if (st)
    return st;
  for (int64_t k = 0; k < ri.len; k++)
    op_dl_setf(out[0], k, ri.start + (double)k * ri.delta);
  return TVM_OK;
}

#define RS(nm, mi, ma, pat, doc_)                                              \
  {                                                                            \
    nm, mi, ma, 1, 1, pat, reshape_like_infer, reshape_like_compute,           \
        reshape_like_reference, doc_                                           \
  }

static const tvm_gop_def defs[] = {
    RS("Reshape", 1, 2, TVM_PAT_INJECTIVE,
       "reshape to a constant shape (0 copies, -1 inferred, allowzero)"),
    RS("Flatten", 1, 1, TVM_PAT_INJECTIVE,
       "2-D (prod(dims[:axis]), prod(dims[axis:]))"),
    RS("Squeeze", 1, 2, TVM_PAT_INJECTIVE,
       "removes size-1 axes (attribute or input axes; all when absent)"),
    RS("Unsqueeze", 1, 2, TVM_PAT_INJECTIVE,
       "inserts size-1 axes (attribute or input axes)"),
    RS("Expand", 2, 2, TVM_PAT_BROADCAST,
       "numpy broadcast to a constant shape"),
    {"Shape", 1, 1, 1, 1, TVM_PAT_OPAQUE, shape_infer, NULL, shape_reference,
     "the input's shape as int64 (start/end); folded at compile time"},
    {"Size", 1, 1, 1, 1, TVM_PAT_OPAQUE, size_infer, NULL, size_reference,
     "the number of elements as an int64 scalar; folded at compile time"},
    {"Range", 3, 3, 1, 1, TVM_PAT_INJECTIVE, range_infer, range_compute,
     range_reference,
     "start + i * delta for i < ceil((limit - start) / delta)"},
};

const ops_family ops_shape_family = {defs, (int)(sizeof defs / sizeof defs[0])};
