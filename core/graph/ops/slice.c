/*
 * core/graph/ops/slice.c - Slice: starts, ends, axes, steps as constant
 * inputs (opset >= 10) or the attributes starts/ends/axes (opset < 10; a
 * node without input 1 uses them).  Negative starts/ends count from the
 * end, out-of-range values are clamped, negative steps walk backwards
 * (ONNX rules); output element i of an axis reads start + i * step.
 */
#include <string.h>

#include "ops_int.h"

typedef struct slice_info {
  int64_t start[TVM_MAX_DIMS], step[TVM_MAX_DIMS], len[TVM_MAX_DIMS];
} slice_info;

/* Resolves starts/ends/axes/steps (ONNX clamping rules) into start, step,
 * length per axis. */
static tvm_status slice_info_of(const tvm_gnode *n, slice_info *si) {
  const tvm_gvalue *x = n->inputs[0];
  int r = x->ndim, ns, ne, na = -1, nst = -1;
  int64_t starts[TVM_MAX_DIMS], ends[TVM_MAX_DIMS], axes[TVM_MAX_DIMS],
      steps[TVM_MAX_DIMS];
  tvm_status st;
  if (n->ninputs > 1 && n->inputs[1]) {
    if ((st = op_const_ints(n, 1, "starts", starts, TVM_MAX_DIMS, &ns)) ||
        (st = op_const_ints(n, 2, "ends", ends, TVM_MAX_DIMS, &ne)))
      return st;
    if (n->ninputs > 3 && n->inputs[3] &&
        (st = op_const_ints(n, 3, "axes", axes, TVM_MAX_DIMS, &na)))
      return st;
    if (n->ninputs > 4 && n->inputs[4] &&
        (st = op_const_ints(n, 4, "steps", steps, TVM_MAX_DIMS, &nst)))
      return st;
  } else {
    const int64_t *v[3];
    int cnt[3];
    static const char *const names[] = {"starts", "ends", "axes"};
    for (int k = 0; k < 3; k++) {
      if ((st = op_attr_ints(n, names[k], &v[k], &cnt[k])))
        return st;
      if (cnt[k] > TVM_MAX_DIMS)
        return op_fail(n, TVM_ERR_INVALID, "too many '%s'", names[k]);
    }
    if (cnt[0] < 0 || cnt[1] < 0)
      return op_fail(n, TVM_ERR_INVALID,
                     "no starts/ends: give inputs 1 and 2 (opset >= 10) or "
                     "the attributes 'starts' and 'ends'");
    ns = cnt[0];
    ne = cnt[1];
    na = cnt[2];
    memcpy(starts, v[0], sizeof(int64_t) * (size_t)ns);
    memcpy(ends, v[1], sizeof(int64_t) * (size_t)ne);
    if (na > 0)
      memcpy(axes, v[2], sizeof(int64_t) * (size_t)na);
  }
  if (ne != ns || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
    return op_fail(n, TVM_ERR_INVALID,
                   "starts, ends, axes and steps must have one length (%d "
                   "starts, %d ends)",
                   ns, ne);
  for (int d = 0; d < r; d++) {
    si->start[d] = 0;
    si->step[d] = 1;
    si->len[d] = x->shape[d];
  }
  int seen[TVM_MAX_DIMS] = {0};
  for (int k = 0; k < ns; k++) {
    int a = k;
    if (na >= 0 && (st = op_axis(n, "axes value", axes[k], r, &a)))
      return st;
    if (na < 0 && k >= r)
      return op_fail(n, TVM_ERR_INVALID, "more starts than input axes");
    if (seen[a])
      return op_fail(n, TVM_ERR_INVALID, "axis %d is sliced twice", a);
    seen[a] = 1;
    int64_t dim = x->shape[a], s = starts[k], e = ends[k];
    int64_t step = nst >= 0 ? steps[k] : 1;
    if (step == 0)
      return op_fail(n, TVM_ERR_INVALID, "a step is 0");
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    if (step > 0) {
      s = s < 0 ? 0 : s > dim ? dim : s;
      e = e < 0 ? 0 : e > dim ? dim : e;
    } else {
      s = s < 0 ? 0 : s > dim - 1 ? dim - 1 : s;
      e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
    }
    int64_t len =
        step > 0 ? (e - s + step - 1) / step : (s - e + (-step) - 1) / (-step);
    si->start[a] = s;
    si->step[a] = step;
    si->len[a] = len < 0 ? 0 : len;
  }
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status slice_infer(tvm_graph *g, tvm_gnode *n) {
  slice_info si;
  tvm_status st = op_check_dtype(n, 0, "data", DT_ALL);
  if (st || (st = slice_info_of(n, &si)))
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, n->inputs[0]->ndim, si.len);
  return TVM_OK;
}

typedef struct slice_ud {
  tvm_tensor *x;
  slice_info si;
} slice_ud;

/* out[i] = x[start + i * step]. */
static tvm_expr *slice_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  slice_ud *u = ud;
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++) {
    tvm_expr *e = i[d];
    if (u->si.step[d] != 1)
      e = tvm_mul(c, e, tvm_int(c, u->si.step[d]));
    xi[d] = u->si.start[d] ? tvm_add(c, e, tvm_int(c, u->si.start[d])) : e;
  }
  return tvm_tread(c, u->x, xi, u->x->ndim);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status slice_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                                tvm_tensor **out) {
  slice_ud u;
  u.x = in[0];
  tvm_status st = slice_info_of(n, &u.si);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "injective", slice_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status slice_reference(const tvm_gnode *n, const DLTensor *const *in,
                                  DLTensor *const *out) {
  slice_info si;
  tvm_status st = slice_info_of(n, &si);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int eb = op_dl_elem_bytes(x);
  int64_t len = op_dl_numel(out[0]);
  for (int64_t e = 0; e < len; e++) {
    int64_t oi[TVM_MAX_DIMS], f = 0;
    op_dl_unravel(e, out[0]->shape, x->ndim, oi);
    for (int d = 0; d < x->ndim; d++)
      f = f * x->shape[d] + si.start[d] + oi[d] * si.step[d];
    memcpy((char *)out[0]->data + e * eb,
           (const char *)x->data + x->byte_offset + f * eb, (size_t)eb);
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Slice", 1, 5, 1, 1, TVM_PAT_INJECTIVE, slice_infer, slice_compute,
     slice_reference,
     "strided slice (starts, ends, axes, steps; negative values count from "
     "the end)"},
};

const ops_family ops_slice_family = {defs, (int)(sizeof defs / sizeof defs[0])};
