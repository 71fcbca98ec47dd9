/*
 * core/graph/ops/transform.c - data movement operators: Transpose (perm,
 * reversed by default), Concat (axis), Split (sizes from the "split"
 * attribute before opset 13 or a constant input from 13, else equal
 * parts, one per output), Pad (constant / reflect / edge; pads as the
 * attribute of opset < 11 or a constant input, constant_value as the
 * attribute "value" or input 2, optional axes input 3; negative pads
 * crop) and Gather (axis; negative indices count from the end; int32 or
 * int64 indices).  All are injective and accept float32, int32 and int64
 * data.
 *
 * Computes read their inputs with clamped indices under a select, so no
 * out-of-range element is touched even where select evaluates both
 * sides.  Gather clamps out-of-range indices (the reference fails).
 */
#include <string.h>

#include "ops_int.h"

/* e clamped to [lo, hi]. */
static tvm_expr *clampi(tvm_ctx *c, tvm_expr *e, int64_t lo, int64_t hi) {
  return tvm_min(c, tvm_max(c, e, tvm_int(c, lo)), tvm_int(c, hi));
}

/* ---- Transpose -------------------------------------------------------- */
static tvm_status perm_of(const tvm_gnode *n, int rank, int *perm) {
  const int64_t *p;
  int len, seen[TVM_MAX_DIMS] = {0};
  tvm_status st = op_attr_ints(n, "perm", &p, &len);
  if (st)
    return st;
  if (len < 0) {
    for (int d = 0; d < rank; d++)
      perm[d] = rank - 1 - d;
    return TVM_OK;
  }
  if (len != rank)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'perm' has %d values; the input has rank %d", len,
                   rank);
  for (int d = 0; d < rank; d++) {
    if (p[d] < 0 || p[d] >= rank || seen[p[d]])
      return op_fail(n, TVM_ERR_INVALID,
                     "attribute 'perm' is not a permutation of 0..%d",
                     rank - 1);
    seen[p[d]] = 1;
    perm[d] = (int)p[d];
  }
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status transpose_infer(tvm_graph *g, tvm_gnode *n) {
  int perm[TVM_MAX_DIMS];
  tvm_status st = op_check_dtype(n, 0, "data", DT_ALL);
  if (st || (st = perm_of(n, n->inputs[0]->ndim, perm)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  int64_t shape[TVM_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++)
    shape[d] = x->shape[perm[d]];
  op_set_out(n, 0, x->dtype, x->ndim, shape);
  return TVM_OK;
}

typedef struct tr_ud {
  tvm_tensor *x;
  int perm[TVM_MAX_DIMS];
} tr_ud;

/* out[i] = x[i permuted back]. */
static tvm_expr *transpose_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tr_ud *u = ud;
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    xi[u->perm[d]] = i[d];
  return tvm_tread(c, u->x, xi, u->x->ndim);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status transpose_compute(tvm_ctx *c, const tvm_gnode *n,
                                    tvm_tensor **in, tvm_tensor **out) {
  tr_ud u = {in[0], {0}};
  tvm_status st = perm_of(n, in[0]->ndim, u.perm);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "injective", transpose_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status transpose_reference(const tvm_gnode *n,
                                      const DLTensor *const *in,
                                      DLTensor *const *out) {
  int perm[TVM_MAX_DIMS];
  tvm_status st = perm_of(n, in[0]->ndim, perm);
  if (st)
    return st;
  int64_t len = op_dl_numel(out[0]);
  int eb = op_dl_elem_bytes(out[0]);
  for (int64_t e = 0; e < len; e++) {
    int64_t oi[TVM_MAX_DIMS], xi[TVM_MAX_DIMS], f = 0;
    op_dl_unravel(e, out[0]->shape, out[0]->ndim, oi);
    for (int d = 0; d < out[0]->ndim; d++)
      xi[perm[d]] = oi[d];
    for (int d = 0; d < in[0]->ndim; d++)
      f = f * in[0]->shape[d] + xi[d];
    memcpy((char *)out[0]->data + e * eb,
           (char *)in[0]->data + in[0]->byte_offset + f * eb, (size_t)eb);
  }
  return TVM_OK;
}

/* ---- Concat ----------------------------------------------------------- */
static tvm_status concat_axis(const tvm_gnode *n, int *axis) {
  int64_t a;
  tvm_status st = op_attr_int(n, "axis", INT64_MIN, &a);
  if (st)
    return st;
  if (a == INT64_MIN)
    return op_fail(n, TVM_ERR_INVALID, "attribute 'axis' is required");
  return op_axis(n, "attribute 'axis'", a, n->inputs[0]->ndim, axis);
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status concat_infer(tvm_graph *g, tvm_gnode *n) {
  tvm_status st;
  int axis;
  for (int i = 0; i < n->ninputs; i++)
    if ((st = op_check_dtype(n, i, "inputs", DT_ALL)))
      return st;
  if ((st = concat_axis(n, &axis)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  int64_t shape[TVM_MAX_DIMS];
  memcpy(shape, x->shape, sizeof shape);
  for (int i = 1; i < n->ninputs; i++) {
    const tvm_gvalue *v = n->inputs[i];
    if (!tvm_dtype_eq(v->dtype, x->dtype))
      return op_fail(n, TVM_ERR_INVALID,
                     "input %d has another dtype than input 0", i);
    if (v->ndim != x->ndim)
      return op_fail(n, TVM_ERR_INVALID,
                     "input %d has rank %d, input 0 has rank %d", i, v->ndim,
                     x->ndim);
    for (int d = 0; d < x->ndim; d++)
      if (d != axis && v->shape[d] != x->shape[d])
        return op_fail(n, TVM_ERR_INVALID,
                       "input %d has size %lld on axis %d, input 0 has %lld; "
                       "only the concatenation axis (%d) may differ",
                       i, (long long)v->shape[d], d, (long long)x->shape[d],
                       axis);
    shape[axis] += v->shape[axis];
  }
  op_set_out(n, 0, x->dtype, x->ndim, shape);
  return TVM_OK;
}

typedef struct cat_ud {
  tvm_tensor **in;
  int nin, axis;
} cat_ud;

/* Selects the input that holds position i on the axis (reads clamped). */
static tvm_expr *concat_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cat_ud *u = ud;
  int64_t off[64];
  int64_t o = 0;
  for (int k = 0; k < u->nin; k++) {
    off[k] = o;
    o += u->in[k]->shape_c[u->axis];
  }
  tvm_expr *acc = NULL;
  for (int k = u->nin - 1; k >= 0; k--) {
    tvm_tensor *t = u->in[k];
    tvm_expr *xi[TVM_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++)
      xi[d] = i[d];
    tvm_expr *local = tvm_sub(c, i[u->axis], tvm_int(c, off[k]));
    xi[u->axis] =
        u->nin > 1 ? clampi(c, local, 0, t->shape_c[u->axis] - 1) : local;
    tvm_expr *rd = tvm_tread(c, t, xi, t->ndim);
    acc = acc ? tvm_select(c,
                           tvm_lt(c, i[u->axis],
                                  tvm_int(c, off[k] + t->shape_c[u->axis])),
                           rd, acc)
              : rd;
  }
  return acc;
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status concat_compute(tvm_ctx *c, const tvm_gnode *n,
                                 tvm_tensor **in, tvm_tensor **out) {
  cat_ud u = {in, n->ninputs, 0};
  tvm_status st = concat_axis(n, &u.axis);
  if (st)
    return st;
  if (u.nin > 64)
    return op_fail(n, TVM_ERR_UNSUPPORTED, "more than 64 inputs");
  out[0] = op_te_compute_out(c, n, 0, "injective", concat_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status concat_reference(const tvm_gnode *n,
                                   const DLTensor *const *in,
                                   DLTensor *const *out) {
  int axis;
  tvm_status st = concat_axis(n, &axis);
  if (st)
    return st;
  int eb = op_dl_elem_bytes(out[0]);
  int64_t outer = 1, inner = eb;
  for (int d = 0; d < axis; d++)
    outer *= out[0]->shape[d];
  for (int d = axis + 1; d < out[0]->ndim; d++)
    inner *= out[0]->shape[d];
  char *dst = out[0]->data;
  for (int64_t o = 0; o < outer; o++)
    for (int k = 0; k < n->ninputs; k++) {
      int64_t chunk = in[k]->shape[axis] * inner;
      memcpy(dst, (char *)in[k]->data + in[k]->byte_offset + o * chunk,
             (size_t)chunk);
      dst += chunk;
    }
  return TVM_OK;
}

/* ---- Split ------------------------------------------------------------ */
static tvm_status split_sizes(const tvm_gnode *n, int *axis, int64_t *sizes) {
  int64_t a, req[64];
  int cnt = -1;
  const tvm_gvalue *x = n->inputs[0];
  tvm_status st = op_attr_int(n, "axis", 0, &a);
  if (st || (st = op_axis(n, "attribute 'axis'", a, x->ndim, axis)))
    return st;
  if (n->ninputs > 1 && n->inputs[1]) {
    if ((st = op_const_ints(n, 1, "split", req, 64, &cnt)))
      return st;
  } else {
    const int64_t *v;
    if ((st = op_attr_ints(n, "split", &v, &cnt)))
      return st;
    if (cnt > 64)
      return op_fail(n, TVM_ERR_UNSUPPORTED, "more than 64 parts");
    if (cnt > 0)
      memcpy(req, v, sizeof(int64_t) * (size_t)cnt);
  }
  int64_t dim = x->shape[*axis], total = 0;
  if (cnt >= 0) {
    if (cnt != n->noutputs)
      return op_fail(n, TVM_ERR_INVALID,
                     "'split' has %d sizes but the node has %d outputs", cnt,
                     n->noutputs);
    for (int k = 0; k < cnt; k++) {
      if (req[k] < 0)
        return op_fail(n, TVM_ERR_INVALID, "split size %lld is negative",
                       (long long)req[k]);
      sizes[k] = req[k];
      total += req[k];
    }
    if (total != dim)
      return op_fail(n, TVM_ERR_INVALID,
                     "the split sizes add up to %lld but axis %d has %lld",
                     (long long)total, *axis, (long long)dim);
    return TVM_OK;
  }
  int64_t parts;
  if ((st = op_attr_int(n, "num_outputs", n->noutputs, &parts)))
    return st;
  if (parts != n->noutputs || parts < 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'num_outputs' = %lld but the node has %d "
                   "outputs",
                   (long long)parts, n->noutputs);
  /* equal parts; the last one smaller when they do not divide (opset 18) */
  int64_t each = (dim + parts - 1) / parts;
  if (op_opset(n) < 18 && dim % parts)
    return op_fail(n, TVM_ERR_INVALID,
                   "axis %d of size %lld cannot be split into %lld equal "
                   "parts; give the 'split' sizes",
                   *axis, (long long)dim, (long long)parts);
  for (int k = 0; k < parts; k++) {
    int64_t rest = dim - k * each;
    sizes[k] = rest < 0 ? 0 : rest < each ? rest : each;
  }
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status split_infer(tvm_graph *g, tvm_gnode *n) {
  int axis;
  int64_t sizes[64];
  tvm_status st = op_check_dtype(n, 0, "input", DT_ALL);
  if (st)
    return st;
  if (n->noutputs > 64)
    return op_fail(n, TVM_ERR_UNSUPPORTED, "more than 64 outputs");
  if ((st = split_sizes(n, &axis, sizes)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  for (int k = 0; k < n->noutputs; k++) {
    int64_t shape[TVM_MAX_DIMS];
    memcpy(shape, x->shape, sizeof shape);
    shape[axis] = sizes[k];
    op_set_out(n, k, x->dtype, x->ndim, shape);
  }
  return TVM_OK;
}

typedef struct split_ud {
  tvm_tensor *x;
  int axis;
  int64_t off;
} split_ud;

/* out[i] = x[i + offset on the axis]. */
static tvm_expr *split_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  split_ud *u = ud;
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    xi[d] = d == u->axis ? tvm_add(c, i[d], tvm_int(c, u->off)) : i[d];
  return tvm_tread(c, u->x, xi, u->x->ndim);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status split_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                                tvm_tensor **out) {
  split_ud u = {in[0], 0, 0};
  int64_t sizes[64];
  tvm_status st = split_sizes(n, &u.axis, sizes);
  if (st)
    return st;
  for (int k = 0; k < n->noutputs; k++) {
    if (n->outputs[k]) {
      out[k] = op_te_compute_out(c, n, k, "injective", split_body, &u);
      if ((st = op_te_status(c, n, out[k])))
        return st;
    }
    u.off += sizes[k];
  }
  return TVM_OK;
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status split_reference(const tvm_gnode *n, const DLTensor *const *in,
                                  DLTensor *const *out) {
  int axis;
  int64_t sizes[64];
  tvm_status st = split_sizes(n, &axis, sizes);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int eb = op_dl_elem_bytes(x);
  int64_t outer = 1, inner = eb;
  for (int d = 0; d < axis; d++)
    outer *= x->shape[d];
  for (int d = axis + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  const char *src = (const char *)x->data + x->byte_offset;
  for (int64_t o = 0; o < outer; o++)
    for (int k = 0; k < n->noutputs; k++) {
      int64_t chunk = sizes[k] * inner;
      if (out[k])
        memcpy((char *)out[k]->data + o * chunk, src, (size_t)chunk);
      src += chunk;
    }
  return TVM_OK;
}

/* ---- Pad -------------------------------------------------------------- */
typedef struct pad_info {
  int mode; /* 0 constant, 1 reflect, 2 edge */
  double value;
  int64_t pads[2 * TVM_MAX_DIMS]; /* begins then ends, for every axis */
} pad_info;

/* Reads mode, pads (attribute or input), the constant value and axes. */
static tvm_status pad_info_of(const tvm_gnode *n, pad_info *p) {
  const tvm_gvalue *x = n->inputs[0];
  int r = x->ndim, cnt;
  int64_t raw[2 * TVM_MAX_DIMS], axes[TVM_MAX_DIMS];
  const char *mode;
  tvm_status st = op_attr_str(n, "mode", "constant", &mode);
  if (st)
    return st;
  p->mode = strcmp(mode, "constant") == 0  ? 0
            : strcmp(mode, "reflect") == 0 ? 1
            : strcmp(mode, "edge") == 0    ? 2
                                           : -1;
  if (p->mode < 0)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "attribute 'mode' = \"%s\"; use constant, reflect or edge",
                   mode);
  if (n->ninputs > 1 && n->inputs[1]) {
    if ((st = op_const_ints(n, 1, "pads", raw, 2 * TVM_MAX_DIMS, &cnt)))
      return st;
  } else {
    const int64_t *v;
    if ((st = op_attr_ints(n, "pads", &v, &cnt)))
      return st;
    if (cnt < 0)
      return op_fail(n, TVM_ERR_INVALID,
                     "no pads: give input 1 (opset >= 11) or the attribute "
                     "'pads'");
    if (cnt > 2 * TVM_MAX_DIMS)
      return op_fail(n, TVM_ERR_INVALID, "too many pads");
    memcpy(raw, v, sizeof(int64_t) * (size_t)cnt);
  }
  p->value = 0;
  if (n->ninputs > 2 && n->inputs[2]) {
    if ((st = op_const_scalar(n, 2, "constant_value", &p->value)))
      return st;
  } else if ((st = op_attr_float(n, "value", 0.0, &p->value))) {
    return st;
  }
  int na = r;
  if (n->ninputs > 3 && n->inputs[3]) {
    if ((st = op_const_ints(n, 3, "axes", axes, TVM_MAX_DIMS, &na)))
      return st;
    for (int k = 0; k < na; k++) {
      int a;
      if ((st = op_axis(n, "axes value", axes[k], r, &a)))
        return st;
      axes[k] = a;
    }
  } else {
    for (int k = 0; k < r; k++)
      axes[k] = k;
  }
  if (cnt != 2 * na)
    return op_fail(n, TVM_ERR_INVALID,
                   "pads has %d values; give %d (begin of each axis, then "
                   "end of each)",
                   cnt, 2 * na);
  memset(p->pads, 0, sizeof p->pads);
  for (int k = 0; k < na; k++) {
    p->pads[axes[k]] = raw[k];
    p->pads[axes[k] + r] = raw[k + na];
  }
  for (int d = 0; d < r; d++) {
    int64_t out = x->shape[d] + p->pads[d] + p->pads[d + r];
    if (out < 0)
      return op_fail(n, TVM_ERR_INVALID,
                     "negative pads remove more than axis %d holds", d);
    if (p->mode == 1 &&
        (p->pads[d] >= x->shape[d] || p->pads[d + r] >= x->shape[d]))
      return op_fail(n, TVM_ERR_INVALID,
                     "reflect padding of axis %d must be smaller than its "
                     "size %lld",
                     d, (long long)x->shape[d]);
    if (p->mode && x->shape[d] == 0 && out > 0)
      return op_fail(n, TVM_ERR_INVALID, "cannot %s-pad an empty axis", mode);
  }
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status pad_infer(tvm_graph *g, tvm_gnode *n) {
  pad_info p;
  tvm_status st = op_check_dtype(n, 0, "data", DT_ALL);
  if (st || (st = pad_info_of(n, &p)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  int64_t shape[TVM_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++)
    shape[d] = x->shape[d] + p.pads[d] + p.pads[d + x->ndim];
  op_set_out(n, 0, x->dtype, x->ndim, shape);
  return TVM_OK;
}

typedef struct padop_ud {
  tvm_tensor *x;
  pad_info p;
} padop_ud;

/* One element of the padded tensor (constant, reflect or edge). */
static tvm_expr *pad_op_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  padop_ud *u = ud;
  tvm_tensor *x = u->x;
  int r = x->ndim;
  tvm_expr *xi[TVM_MAX_DIMS], *cond = NULL;
  for (int d = 0; d < r; d++) {
    int64_t n = x->shape_c[d];
    tvm_expr *s = tvm_sub(c, i[d], tvm_int(c, u->p.pads[d]));
    if (u->p.pads[d] <= 0 && u->p.pads[d + r] <= 0) {
      xi[d] = s; /* only cropping: always inside */
      continue;
    }
    if (u->p.mode == 0) {
      tvm_expr *in =
          tvm_and(c, tvm_ge(c, s, tvm_int(c, 0)), tvm_lt(c, s, tvm_int(c, n)));
      cond = cond ? tvm_and(c, cond, in) : in;
      xi[d] = clampi(c, s, 0, n - 1);
    } else if (u->p.mode == 2) {
      xi[d] = clampi(c, s, 0, n - 1);
    } else {
      tvm_expr *a = tvm_select(c, tvm_lt(c, s, tvm_int(c, 0)),
                               tvm_sub(c, tvm_int(c, 0), s), s);
      xi[d] = tvm_select(c, tvm_gt(c, a, tvm_int(c, n - 1)),
                         tvm_sub(c, tvm_int(c, 2 * (n - 1)), a), a);
    }
  }
  tvm_expr *rd = tvm_tread(c, x, xi, r);
  return cond ? tvm_select(c, cond, rd, op_te_const(c, x->dtype, u->p.value)) : rd;
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status pad_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  padop_ud u;
  u.x = in[0];
  tvm_status st = pad_info_of(n, &u.p);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "injective", pad_op_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status pad_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  pad_info p;
  tvm_status st = pad_info_of(n, &p);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int r = x->ndim;
  int64_t len = op_dl_numel(out[0]);
  for (int64_t e = 0; e < len; e++) {
    int64_t oi[TVM_MAX_DIMS], f = 0;
    int inside = 1;
    op_dl_unravel(e, out[0]->shape, r, oi);
    for (int d = 0; d < r; d++) {
      int64_t s = oi[d] - p.pads[d], nn = x->shape[d];
      if (s < 0 || s >= nn) {
        if (p.mode == 0)
          inside = 0;
        else if (p.mode == 2)
          s = s < 0 ? 0 : nn - 1;
        else
          s = s < 0 ? -s : 2 * (nn - 1) - s;
      }
      f = f * nn + s;
    }
    if (!inside)
      op_dl_setf(out[0], e, p.value);
    else if (op_dl_is_float(x))
      op_dl_setf(out[0], e, op_dl_getf(x, f));
    else
      op_dl_seti(out[0], e, op_dl_geti(x, f));
  }
  return TVM_OK;
}

/* ---- Gather ----------------------------------------------------------- */
static tvm_status gather_check(const tvm_gnode *n, int *axis, int64_t *shape,
                               int *nd) {
  int64_t a;
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "data", DT_ALL)) ||
      (st = op_check_dtype(n, 1, "indices", DT_I32 | DT_I64)) ||
      (st = op_attr_int(n, "axis", 0, &a)))
    return st;
  const tvm_gvalue *x = n->inputs[0], *ix = n->inputs[1];
  if ((st = op_axis(n, "attribute 'axis'", a, x->ndim, axis)))
    return st;
  if (x->ndim - 1 + ix->ndim > TVM_MAX_DIMS)
    return op_fail(n, TVM_ERR_UNSUPPORTED, "output rank above %d",
                   TVM_MAX_DIMS);
  *nd = 0;
  for (int d = 0; d < *axis; d++)
    shape[(*nd)++] = x->shape[d];
  for (int d = 0; d < ix->ndim; d++)
    shape[(*nd)++] = ix->shape[d];
  for (int d = *axis + 1; d < x->ndim; d++)
    shape[(*nd)++] = x->shape[d];
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status gather_infer(tvm_graph *g, tvm_gnode *n) {
  int axis, nd;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = gather_check(n, &axis, shape, &nd);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, nd, shape);
  return TVM_OK;
}

typedef struct gather_ud {
  tvm_tensor *x, *idx;
  int axis;
} gather_ud;

/* data[..., indices[j...] (negative wrapped, clamped), ...]. */
static tvm_expr *gather_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  gather_ud *u = ud;
  int q = u->idx->ndim;
  int64_t n = u->x->shape_c[u->axis];
  tvm_expr *k = tvm_tread(c, u->idx, i + u->axis, q);
  if (!k)
    return NULL;
  k = tvm_select(c, tvm_lt(c, k, op_te_const(c, k->dtype, 0)),
                 tvm_add(c, k, op_te_const(c, k->dtype, (double)n)), k);
  k = tvm_cast(c, TVM_I32, k);
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    xi[d] = d < u->axis    ? i[d]
            : d == u->axis ? clampi(c, k, 0, n - 1)
                           : i[d - 1 + q];
  return tvm_tread(c, u->x, xi, u->x->ndim);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status gather_compute(tvm_ctx *c, const tvm_gnode *n,
                                 tvm_tensor **in, tvm_tensor **out) {
  gather_ud u = {in[0], in[1], 0};
  int nd;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = gather_check(n, &u.axis, shape, &nd);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "injective", gather_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status gather_reference(const tvm_gnode *n,
                                   const DLTensor *const *in,
                                   DLTensor *const *out) {
  int axis, nd;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = gather_check(n, &axis, shape, &nd);
  if (st)
    return st;
  const DLTensor *x = in[0], *ix = in[1];
  int64_t outer = 1, inner = 1, nidx = op_dl_numel(ix), dim = x->shape[axis];
  int eb = op_dl_elem_bytes(x);
  for (int d = 0; d < axis; d++)
    outer *= x->shape[d];
  for (int d = axis + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  char *dst = out[0]->data;
  const char *src = (const char *)x->data + x->byte_offset;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < nidx; j++) {
      int64_t k = op_dl_geti(ix, j);
      if (k < -dim || k >= dim)
        return op_fail(n, TVM_ERR_INVALID,
                       "index %lld is out of range for axis %d of size %lld",
                       (long long)k, axis, (long long)dim);
      if (k < 0)
        k += dim;
      memcpy(dst, src + ((o * dim + k) * inner) * eb, (size_t)(inner * eb));
      dst += inner * eb;
    }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Transpose", 1, 1, 1, 1, TVM_PAT_INJECTIVE, transpose_infer,
     transpose_compute, transpose_reference,
     "permutes axes (perm; reversed when absent)"},
    {"Concat", 1, 64, 1, 1, TVM_PAT_INJECTIVE, concat_infer, concat_compute,
     concat_reference, "concatenates along axis"},
    {"Split", 1, 2, 1, 64, TVM_PAT_INJECTIVE, split_infer, split_compute,
     split_reference,
     "splits along axis (split sizes as attribute or input; equal parts)"},
    {"Pad", 1, 4, 1, 1, TVM_PAT_INJECTIVE, pad_infer, pad_compute,
     pad_reference, "pads (constant, reflect, edge); negative pads crop"},
    {"Gather", 2, 2, 1, 1, TVM_PAT_INJECTIVE, gather_infer, gather_compute,
     gather_reference,
     "takes entries along axis at the indices (negative from the end)"},
};

const ops_family ops_transform_family = {defs,
                                         (int)(sizeof defs / sizeof defs[0])};
