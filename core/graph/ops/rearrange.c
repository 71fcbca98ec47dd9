/*
 * core/graph/ops/rearrange.c - more data movement: Tile (constant
 * repeats), DepthToSpace (blocksize, mode DCR or CRD), SpaceToDepth
 * (blocksize) and GatherElements (axis; negative indices count from the
 * end; out-of-range indices are clamped by the compute and refused by the
 * reference).  All injective, for float32, int32 and int64 data.
 */
#include <string.h>

#include "ops_int.h"

typedef enum { X_TILE, X_D2S, X_S2D, X_GATHER_EL } xkind;

/* The operator kind of n, from its op name. */
static xkind kind_of(const tvm_gnode *n) {
  if (strcmp(n->op, "Tile") == 0)
    return X_TILE;
  if (strcmp(n->op, "DepthToSpace") == 0)
    return X_D2S;
  if (strcmp(n->op, "SpaceToDepth") == 0)
    return X_S2D;
  return X_GATHER_EL;
}

typedef struct xinfo {
  xkind k;
  int64_t rep[TVM_MAX_DIMS]; /* Tile */
  int64_t bs;                /* blocksize */
  int crd;                   /* DepthToSpace mode CRD */
  int axis;                  /* GatherElements */
  int64_t shape[TVM_MAX_DIMS];
  int ndim;
} xinfo;

/* Validates the node and computes its output shape. */
static tvm_status xinfo_of(const tvm_gnode *n, xinfo *xi) {
  tvm_status st = op_check_dtype(n, 0, "input", DT_ALL);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  xi->k = kind_of(n);
  xi->ndim = x->ndim;
  memcpy(xi->shape, x->shape, sizeof xi->shape);
  if (xi->k == X_TILE) {
    int cnt;
    if ((st = op_const_ints(n, 1, "repeats", xi->rep, TVM_MAX_DIMS, &cnt)))
      return st;
    if (cnt != x->ndim)
      return op_fail(n, TVM_ERR_INVALID,
                     "repeats has %d values; give one per input axis (%d)", cnt,
                     x->ndim);
    for (int d = 0; d < x->ndim; d++) {
      if (xi->rep[d] < 0)
        return op_fail(n, TVM_ERR_INVALID, "repeats[%d] is negative", d);
      xi->shape[d] = x->shape[d] * xi->rep[d];
    }
    return TVM_OK;
  }
  if (xi->k == X_GATHER_EL) {
    int64_t a;
    if ((st = op_check_dtype(n, 1, "indices", DT_I32 | DT_I64)) ||
        (st = op_attr_int(n, "axis", 0, &a)) ||
        (st = op_axis(n, "attribute 'axis'", a, x->ndim, &xi->axis)))
      return st;
    const tvm_gvalue *ix = n->inputs[1];
    if (ix->ndim != x->ndim)
      return op_fail(n, TVM_ERR_INVALID,
                     "indices have rank %d, data rank %d; they must match",
                     ix->ndim, x->ndim);
    for (int d = 0; d < x->ndim; d++)
      if (d != xi->axis && ix->shape[d] > x->shape[d])
        return op_fail(n, TVM_ERR_INVALID,
                       "indices are larger than data on axis %d", d);
    memcpy(xi->shape, ix->shape, sizeof xi->shape);
    return TVM_OK;
  }
  const char *mode;
  if ((st = op_attr_int(n, "blocksize", 0, &xi->bs)) ||
      (st = op_attr_str(n, "mode", "DCR", &mode)))
    return st;
  if (xi->bs < 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'blocksize' is required (a positive int)");
  if (x->ndim != 4)
    return op_fail(n, TVM_ERR_INVALID, "input must be 4-D NCHW");
  xi->crd = strcmp(mode, "CRD") == 0;
  if (!xi->crd && strcmp(mode, "DCR") != 0)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'mode' = \"%s\"; use DCR or CRD", mode);
  int64_t b = xi->bs;
  if (xi->k == X_D2S) {
    if (x->shape[1] % (b * b))
      return op_fail(n, TVM_ERR_INVALID,
                     "channels (%lld) must be a multiple of blocksize^2 "
                     "(%lld)",
                     (long long)x->shape[1], (long long)(b * b));
    xi->shape[1] = x->shape[1] / (b * b);
    xi->shape[2] = x->shape[2] * b;
    xi->shape[3] = x->shape[3] * b;
  } else {
    if (x->shape[2] % b || x->shape[3] % b)
      return op_fail(n, TVM_ERR_INVALID,
                     "height and width must be multiples of blocksize %lld",
                     (long long)b);
    xi->shape[1] = x->shape[1] * b * b;
    xi->shape[2] = x->shape[2] / b;
    xi->shape[3] = x->shape[3] / b;
  }
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status x_infer(tvm_graph *g, tvm_gnode *n) {
  xinfo xi;
  tvm_status st = xinfo_of(n, &xi);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, xi.ndim, xi.shape);
  return TVM_OK;
}

/* Source position (in x) of output index o, as integers (reference) for
 * the index-only kinds; GatherElements is handled by the callers. */
static void src_index(const xinfo *xi, const int64_t *xs, const int64_t *o,
                      int64_t *s) {
  int64_t b = xi->bs;
  switch (xi->k) {
  case X_TILE:
    for (int d = 0; d < xi->ndim; d++)
      s[d] = o[d] % xs[d];
    return;
  case X_D2S: {
    int64_t i = o[2] % b, j = o[3] % b, cp = xi->shape[1];
    s[0] = o[0];
    s[1] = xi->crd ? o[1] * b * b + i * b + j : (i * b + j) * cp + o[1];
    s[2] = o[2] / b;
    s[3] = o[3] / b;
    return;
  }
  default: { /* S2D */
    int64_t c = xs[1], blk = o[1] / c;
    s[0] = o[0];
    s[1] = o[1] % c;
    s[2] = o[2] * b + blk / b;
    s[3] = o[3] * b + blk % b;
    return;
  }
  }
}

typedef struct x_ud {
  xinfo xi;
  tvm_tensor *x, *idx;
} x_ud;

/* x read at the source position of output index o. */
static tvm_expr *x_body(tvm_ctx *c, tvm_expr **o, void *ud) {
  x_ud *u = ud;
  tvm_tensor *x = u->x;
  tvm_expr *s[TVM_MAX_DIMS];
  tvm_expr *b = tvm_int(c, u->xi.bs);
  switch (u->xi.k) {
  case X_TILE:
    for (int d = 0; d < x->ndim; d++)
      s[d] = u->xi.rep[d] == 1
                 ? o[d]
                 : tvm_floormod(c, o[d], tvm_int(c, x->shape_c[d]));
    break;
  case X_D2S: {
    tvm_expr *i = tvm_floormod(c, o[2], b), *j = tvm_floormod(c, o[3], b);
    tvm_expr *blk = tvm_add(c, tvm_mul(c, i, b), j);
    s[0] = o[0];
    s[1] =
        u->xi.crd
            ? tvm_add(c, tvm_mul(c, o[1], tvm_int(c, u->xi.bs * u->xi.bs)), blk)
            : tvm_add(c, tvm_mul(c, blk, tvm_int(c, u->xi.shape[1])), o[1]);
    s[2] = tvm_floordiv(c, o[2], b);
    s[3] = tvm_floordiv(c, o[3], b);
    break;
  }
  case X_S2D: {
    tvm_expr *ch = tvm_int(c, x->shape_c[1]);
    tvm_expr *blk = tvm_floordiv(c, o[1], ch);
    s[0] = o[0];
    s[1] = tvm_floormod(c, o[1], ch);
    s[2] = tvm_add(c, tvm_mul(c, o[2], b), tvm_floordiv(c, blk, b));
    s[3] = tvm_add(c, tvm_mul(c, o[3], b), tvm_floormod(c, blk, b));
    break;
  }
  case X_GATHER_EL: {
    int64_t n = x->shape_c[u->xi.axis];
    tvm_expr *k = tvm_tread(c, u->idx, o, u->idx->ndim);
    if (!k)
      return NULL;
    k = tvm_select(c, tvm_lt(c, k, op_te_const(c, k->dtype, 0)),
                   tvm_add(c, k, op_te_const(c, k->dtype, (double)n)), k);
    k = tvm_cast(c, TVM_I32, k);
    for (int d = 0; d < x->ndim; d++)
      s[d] = d == u->xi.axis
                 ? tvm_min(c, tvm_max(c, k, tvm_int(c, 0)), tvm_int(c, n - 1))
                 : o[d];
    break;
  }
  }
  return tvm_tread(c, x, s, x->ndim);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status x_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                            tvm_tensor **out) {
  x_ud u;
  tvm_status st = xinfo_of(n, &u.xi);
  if (st)
    return st;
  u.x = in[0];
  u.idx = n->ninputs > 1 ? in[1] : NULL;
  out[0] = op_te_compute_out(c, n, 0, "injective", x_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status x_reference(const tvm_gnode *n, const DLTensor *const *in,
                              DLTensor *const *out) {
  xinfo xi;
  tvm_status st = xinfo_of(n, &xi);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int eb = op_dl_elem_bytes(x);
  int64_t len = op_dl_numel(out[0]);
  for (int64_t e = 0; e < len; e++) {
    int64_t o[TVM_MAX_DIMS], s[TVM_MAX_DIMS], f = 0;
    op_dl_unravel(e, out[0]->shape, out[0]->ndim, o);
    if (xi.k == X_GATHER_EL) {
      int64_t k = op_dl_geti(in[1], e), dim = x->shape[xi.axis];
      if (k < -dim || k >= dim)
        return op_fail(n, TVM_ERR_INVALID,
                       "index %lld is out of range for axis %d of size %lld",
                       (long long)k, xi.axis, (long long)dim);
      memcpy(s, o, sizeof s);
      s[xi.axis] = k < 0 ? k + dim : k;
    } else {
      src_index(&xi, x->shape, o, s);
    }
    for (int d = 0; d < x->ndim; d++)
      f = f * x->shape[d] + s[d];
    memcpy((char *)out[0]->data + e * eb,
           (const char *)x->data + x->byte_offset + f * eb, (size_t)eb);
  }
  return TVM_OK;
}

#define XOP(nm, ni, doc_)                                                      \
  { nm, ni, ni, 1, 1, TVM_PAT_INJECTIVE, x_infer, x_compute, x_reference, doc_ }

static const tvm_gop_def defs[] = {
    XOP("Tile", 2, "repeats the input along each axis (constant repeats)"),
    XOP("DepthToSpace", 1, "moves channel blocks to space (DCR or CRD)"),
    XOP("SpaceToDepth", 1, "moves spatial blocks to channels"),
    XOP("GatherElements", 2,
        "out[i] = data[i with i[axis] = indices[i]] (negative from the end)"),
};

const ops_family ops_rearrange_family = {defs,
                                         (int)(sizeof defs / sizeof defs[0])};
