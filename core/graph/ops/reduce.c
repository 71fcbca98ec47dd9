/*
 * core/graph/ops/reduce.c - ReduceSum, ReduceMean, ReduceMax, ReduceMin,
 * ReduceProd, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum and
 * ReduceLogSumExp: axes as the
 * attribute "axes" or a constant input 1 (ONNX moved them to an input in
 * opset 13 for ReduceSum and 18 for the others; either form is accepted),
 * keepdims (default 1), noop_with_empty_axes (default 0: no axes reduces
 * everything; 1: identity).  ReduceSum/Max/Min accept float32, int32 and
 * int64; the others float32.
 *
 * Compute: one reduction "<name>", or for Mean/L2/LogSum "<name>.sum"
 * followed by the elementwise "<name>"; LogSumExp adds "<name>.max" first
 * and sums exp(x - max).
 *
 * ArgMax/ArgMin (axis, keepdims, select_last_index; int64 output) are two
 * reductions: "<name>.value" the extreme, then the smallest (largest with
 * select_last_index) index holding it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

typedef enum {
  R_SUM,
  R_MEAN,
  R_MAX,
  R_MIN,
  R_PROD,
  R_SUMSQ,
  R_L1,
  R_L2,
  R_LOGSUM,
  R_LSE
} rkind;

static const char *const rnames[] = {
    "ReduceSum",    "ReduceMean",      "ReduceMax", "ReduceMin",
    "ReduceProd",   "ReduceSumSquare", "ReduceL1",  "ReduceL2",
    "ReduceLogSum", "ReduceLogSumExp"};

/* The operator kind of n, from its op name. */
static rkind kind_of(const tvm_gnode *n) {
  for (int k = 0; k < 10; k++)
    if (strcmp(n->op, rnames[k]) == 0)
      return (rkind)k;
  return R_SUM;
}

/* Kinds computed by a reduction followed by an elementwise stage. */
static int has_post(rkind k) {
  return k == R_MEAN || k == R_L2 || k == R_LOGSUM || k == R_LSE;
}

typedef struct red_info {
  int red[TVM_MAX_DIMS]; /* axis d is reduced */
  int keep;
  int64_t count; /* elements per output element */
  int64_t shape[TVM_MAX_DIMS];
  int ndim;
} red_info;

/* Reads axes/keepdims/noop_with_empty_axes; fills the reduced axes and
 * output shape. */
static tvm_status red_info_of(const tvm_gnode *n, red_info *ri) {
  const tvm_gvalue *x = n->inputs[0];
  int64_t axes[TVM_MAX_DIMS], keep, noop;
  int cnt = -1;
  tvm_status st;
  if ((st = op_attr_int(n, "keepdims", 1, &keep)) ||
      (st = op_attr_int(n, "noop_with_empty_axes", 0, &noop)))
    return st;
  if (n->ninputs > 1 && n->inputs[1]) {
    if ((st = op_const_ints(n, 1, "axes", axes, TVM_MAX_DIMS, &cnt)))
      return st;
  } else {
    const int64_t *v;
    if ((st = op_attr_ints(n, "axes", &v, &cnt)))
      return st;
    if (cnt > TVM_MAX_DIMS)
      return op_fail(n, TVM_ERR_INVALID, "too many axes");
    if (cnt > 0)
      memcpy(axes, v, sizeof(int64_t) * (size_t)cnt);
  }
  ri->keep = keep != 0;
  memset(ri->red, 0, sizeof ri->red);
  if (cnt <= 0) {
    for (int d = 0; d < x->ndim; d++)
      ri->red[d] = !noop;
  }
  for (int k = 0; k < cnt; k++) {
    int a;
    if ((st = op_axis(n, "axes value", axes[k], x->ndim, &a)))
      return st;
    if (ri->red[a])
      return op_fail(n, TVM_ERR_INVALID, "axis %d is given twice", a);
    ri->red[a] = 1;
  }
  ri->count = 1;
  ri->ndim = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (ri->red[d])
      ri->count *= x->shape[d];
    if (!ri->red[d])
      ri->shape[ri->ndim++] = x->shape[d];
    else if (ri->keep)
      ri->shape[ri->ndim++] = 1;
  }
  if (ri->count == 0 && kind_of(n) != R_SUM && kind_of(n) != R_SUMSQ &&
      kind_of(n) != R_L1 && kind_of(n) != R_PROD)
    return op_fail(n, TVM_ERR_INVALID, "reducing an empty axis");
  return TVM_OK;
}

/* The axes Reduce* node n reduces (red[d] for each dimension of its
 * input) and its keepdims, as its compute reads them (for
 * simplify_inference's rewrite into pools). */
tvm_status op_reduce_axes(const tvm_gnode *n, int *red, int *keep) {
  red_info ri;
  tvm_status st = red_info_of(n, &ri);
  if (st) return st;
  memcpy(red, ri.red, sizeof ri.red);
  *keep = ri.keep;
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status red_infer(tvm_graph *g, tvm_gnode *n) {
  red_info ri;
  rkind k = kind_of(n);
  int mask = k == R_SUM || k == R_MAX || k == R_MIN ? DT_NUM
                                                    : DT_F32 | DT_F64;
  tvm_status st = op_check_dtype(n, 0, "data", mask);
  if (st || (st = red_info_of(n, &ri)))
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, ri.ndim, ri.shape);
  return TVM_OK;
}

typedef struct red_ud {
  tvm_tensor *x, *sum, *max; /* max: ReduceLogSumExp's shift */
  int pass; /* ReduceLogSumExp: 1 = the max, 2 = sum of exp(x - max) */
  red_info ri;
  rkind k;
} red_ud;

/* The reduction of one output element (per kind: x, x*x, |x|, exp(x - max)). */
static tvm_expr *red_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  red_ud *u = ud;
  tvm_tensor *x = u->x;
  tvm_iter_var *ax[TVM_MAX_DIMS];
  tvm_expr *xi[TVM_MAX_DIMS];
  int nax = 0, o = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (u->ri.red[d]) {
      char nm[16];
      snprintf(nm, sizeof nm, "r%d", nax);
      ax[nax] = tvm_reduce_axis(c, nm, 0, x->shape_c[d]);
      if (!ax[nax])
        return NULL;
      xi[d] = ax[nax++]->var;
      if (u->ri.keep)
        o++;
    } else {
      xi[d] = i[o++];
    }
  }
  tvm_expr *v = tvm_tread(c, x, xi, x->ndim);
  rkind k = u->k == R_LSE && u->pass == 1 ? R_MAX : u->k;
  switch (k) {
  case R_SUMSQ:
  case R_L2:
    v = tvm_mul(c, v, v);
    break;
  case R_L1:
    v = tvm_math(c, TVM_INTRIN_FABS, v);
    break;
  case R_LSE:
    v = tvm_math(c, TVM_INTRIN_EXP,
                 tvm_sub(c, v, tvm_tread(c, u->max, i, u->max->ndim)));
    break;
  default:
    break;
  }
  if (nax == 0)
    return v;
  switch (k) {
  case R_MAX:
    return tvm_rmax(c, v, ax, nax);
  case R_MIN:
    return tvm_rmin(c, v, ax, nax);
  case R_PROD:
    return tvm_reduce(c, TVM_REDUCE_PROD, v, ax, nax, NULL);
  default:
    return tvm_sum(c, v, ax, nax);
  }
}

/* The elementwise stage after the reduction (mean, sqrt, log). */
static tvm_expr *post_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  red_ud *u = ud;
  tvm_expr *s = tvm_tread(c, u->sum, i, u->sum->ndim);
  switch (u->k) {
  case R_MEAN:
    return tvm_div(c, s, op_te_const(c, u->sum->dtype, (double)u->ri.count));
  case R_L2:
    return tvm_math(c, TVM_INTRIN_SQRT, s);
  case R_LOGSUM:
    return tvm_math(c, TVM_INTRIN_LOG, s);
  default:
    return tvm_add(c, tvm_math(c, TVM_INTRIN_LOG, s),
                   tvm_tread(c, u->max, i, u->max->ndim));
  }
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status red_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  red_ud u;
  u.x = in[0];
  u.k = kind_of(n);
  u.sum = u.max = NULL;
  u.pass = 0;
  tvm_status st = red_info_of(n, &u.ri);
  if (st)
    return st;
  if (!has_post(u.k)) {
    out[0] = op_te_compute_out(c, n, 0, "reduction", red_body, &u);
    return op_te_status(c, n, out[0]);
  }
  if (u.k == R_LSE) { /* the max first, then the shifted sum */
    u.pass = 1;
    u.max = tvm_compute(c, op_te_name(c, n, "max"), u.ri.shape, u.ri.ndim,
                        red_body, &u);
    if ((st = op_te_status(c, n, u.max)))
      return st;
    tvm_tensor_set_tag(u.max, "reduction");
    u.pass = 2;
  }
  u.sum =
      tvm_compute(c, op_te_name(c, n, "sum"), u.ri.shape, u.ri.ndim, red_body, &u);
  if ((st = op_te_status(c, n, u.sum)))
    return st;
  tvm_tensor_set_tag(u.sum, "reduction");
  out[0] = op_te_compute_out(c, n, 0, "elemwise", post_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Accumulates one value into acc (first: the first value of the slot). */
static double racc(rkind k, double acc, double v, int first, double shift) {
  switch (k) {
  case R_MAX:
    return first || v > acc ? v : acc;
  case R_MIN:
    return first || v < acc ? v : acc;
  case R_PROD:
    return (first ? 1 : acc) * v;
  case R_SUMSQ:
  case R_L2:
    return acc + v * v;
  case R_L1:
    return acc + fabs(v);
  case R_LSE:
    return acc + exp(v - shift);
  default:
    return acc + v;
  }
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status red_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  red_info ri;
  tvm_status st = red_info_of(n, &ri);
  if (st)
    return st;
  rkind k = kind_of(n);
  const DLTensor *x = in[0];
  int64_t olen = op_dl_numel(out[0]), xlen = op_dl_numel(x);
  size_t slots = (size_t)(olen ? olen : 1);
  double *acc = tvm_calloc(slots, sizeof(double));
  double *mx = tvm_calloc(slots, sizeof(double));
  int64_t *iacc = tvm_calloc(slots, sizeof(int64_t));
  char *seen = tvm_calloc(slots, 1);
  if (!acc || !mx || !iacc || !seen) {
    tvm_free(acc), tvm_free(mx), tvm_free(iacc), tvm_free(seen);
    return op_fail(n, TVM_ERR_NOMEM, "out of memory in the reference");
  }
  /* pass 0: the max (ReduceLogSumExp only); pass 1: the reduction */
  for (int pass = k == R_LSE ? 0 : 1; pass < 2; pass++) {
    memset(seen, 0, slots);
    for (int64_t e = 0; e < xlen; e++) {
      int64_t xi[TVM_MAX_DIMS], f = 0;
      op_dl_unravel(e, x->shape, x->ndim, xi);
      for (int d = 0; d < x->ndim; d++)
        if (!ri.red[d])
          f = f * x->shape[d] + xi[d];
      if (!op_dl_is_float(x)) {
        int64_t v = op_dl_geti(x, e);
        iacc[f] = k == R_MAX   ? (seen[f] && iacc[f] > v ? iacc[f] : v)
                  : k == R_MIN ? (seen[f] && iacc[f] < v ? iacc[f] : v)
                               : iacc[f] + v;
      } else if (pass == 0) {
        mx[f] = racc(R_MAX, mx[f], op_dl_getf(x, e), !seen[f], 0);
      } else {
        acc[f] = racc(k, acc[f], op_dl_getf(x, e), !seen[f], mx[f]);
      }
      seen[f] = 1;
    }
  }
  for (int64_t e = 0; e < olen; e++) {
    double v = acc[e];
    switch (k) {
    case R_MEAN:
      v /= (double)ri.count;
      break;
    case R_L2:
      v = sqrt(v);
      break;
    case R_LOGSUM:
      v = log(v);
      break;
    case R_LSE:
      v = log(v) + mx[e];
      break;
    case R_PROD:
      v = seen[e] ? v : 1;
      break;
    default:
      break;
    }
    if (op_dl_is_float(x))
      op_dl_setf(out[0], e, v);
    else
      op_dl_seti(out[0], e, iacc[e]);
  }
  tvm_free(acc), tvm_free(mx), tvm_free(iacc), tvm_free(seen);
  return TVM_OK;
}

/* ---- ArgMax / ArgMin -------------------------------------------------- */
typedef struct arg_info {
  int axis, keep, last, is_max;
  int64_t shape[TVM_MAX_DIMS];
  int ndim;
} arg_info;

/* Reads axis/keepdims/select_last_index; fills the output shape. */
static tvm_status arg_info_of(const tvm_gnode *n, arg_info *ai) {
  int64_t a, keep, last;
  tvm_status st;
  if ((st = op_attr_int(n, "axis", 0, &a)) ||
      (st = op_attr_int(n, "keepdims", 1, &keep)) ||
      (st = op_attr_int(n, "select_last_index", 0, &last)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if ((st = op_axis(n, "attribute 'axis'", a, x->ndim, &ai->axis)))
    return st;
  if (x->shape[ai->axis] == 0)
    return op_fail(n, TVM_ERR_INVALID, "the reduced axis is empty");
  ai->keep = keep != 0;
  ai->last = last != 0;
  ai->is_max = strcmp(n->op, "ArgMax") == 0;
  ai->ndim = 0;
  for (int d = 0; d < x->ndim; d++)
    if (d != ai->axis || ai->keep)
      ai->shape[ai->ndim++] = d == ai->axis ? 1 : x->shape[d];
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status arg_infer(tvm_graph *g, tvm_gnode *n) {
  arg_info ai;
  tvm_status st = op_check_dtype(n, 0, "data", DT_F32 | DT_I32 | DT_I64);
  if (st || (st = arg_info_of(n, &ai)))
    return st;
  op_set_out(n, 0, TVM_I64, ai.ndim, ai.shape);
  return TVM_OK;
}

typedef struct arg_ud {
  tvm_tensor *x, *m; /* m: the extreme value, NULL while declaring it */
  arg_info ai;
} arg_ud;

/* x at output position i with the reduced axis at k. */
static tvm_expr *arg_read(tvm_ctx *c, arg_ud *u, tvm_expr **i, tvm_expr *k) {
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0, o = 0; d < u->x->ndim; d++) {
    if (d == u->ai.axis) {
      xi[d] = k;
      o += u->ai.keep;
    } else {
      xi[d] = i[o++];
    }
  }
  return tvm_tread(c, u->x, xi, u->x->ndim);
}

/* pass 1: m = the extreme value; pass 2: the first (or last) index of it */
static tvm_expr *arg_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  arg_ud *u = ud;
  int64_t len = u->x->shape_c[u->ai.axis];
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, len);
  if (!k)
    return NULL;
  tvm_expr *v = arg_read(c, u, i, k->var);
  if (!u->m)
    return u->ai.is_max ? tvm_rmax(c, v, &k, 1) : tvm_rmin(c, v, &k, 1);
  tvm_expr *hit = tvm_eq(c, v, tvm_tread(c, u->m, i, u->ai.ndim));
  tvm_expr *idx = tvm_select(c, hit, tvm_cast(c, TVM_I64, k->var),
                             tvm_const(c, TVM_I64, u->ai.last ? -1 : len));
  return u->ai.last ? tvm_rmax(c, idx, &k, 1) : tvm_rmin(c, idx, &k, 1);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status arg_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  arg_ud u = {in[0], NULL, {0}};
  tvm_status st = arg_info_of(n, &u.ai);
  if (st)
    return st;
  u.m = tvm_compute(c, op_te_name(c, n, "value"), u.ai.shape, u.ai.ndim, arg_body,
                    &u);
  if ((st = op_te_status(c, n, u.m)))
    return st;
  tvm_tensor_set_tag(u.m, "reduction");
  out[0] = op_te_compute_out(c, n, 0, "reduction", arg_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status arg_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  arg_info ai;
  tvm_status st = arg_info_of(n, &ai);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int64_t outer = 1, inner = 1, len = x->shape[ai.axis];
  for (int d = 0; d < ai.axis; d++)
    outer *= x->shape[d];
  for (int d = ai.axis + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      int64_t best = 0;
      double bv = op_dl_getf(x, o * len * inner + j);
      for (int64_t k = 1; k < len; k++) {
        double v = op_dl_getf(x, (o * len + k) * inner + j);
        int better = ai.is_max ? v > bv : v < bv;
        if (better || (ai.last && v == bv)) {
          best = k;
          bv = v;
        }
      }
      op_dl_seti(out[0], o * inner + j, best);
    }
  return TVM_OK;
}

#define RED(nm, doc_)                                                          \
  {                                                                            \
    nm, 1, 2, 1, 1, TVM_PAT_REDUCTION, red_infer, red_compute, red_reference,  \
        doc_                                                                   \
  }

static const tvm_gop_def defs[] = {
    RED("ReduceSum", "sum over axes (keepdims, noop_with_empty_axes)"),
    RED("ReduceMean", "mean over axes (keepdims, noop_with_empty_axes)"),
    RED("ReduceMax", "maximum over axes (keepdims, noop_with_empty_axes)"),
    RED("ReduceMin", "minimum over axes"),
    RED("ReduceProd", "product over axes"),
    RED("ReduceSumSquare", "sum of squares over axes"),
    RED("ReduceL1", "sum of absolute values over axes"),
    RED("ReduceL2", "square root of the sum of squares over axes"),
    RED("ReduceLogSum", "log of the sum over axes"),
    RED("ReduceLogSumExp", "log of the sum of exponentials (stable)"),
    {"ArgMax", 1, 1, 1, 1, TVM_PAT_REDUCTION, arg_infer, arg_compute,
     arg_reference,
     "int64 index of the maximum along axis (keepdims, select_last_index)"},
    {"ArgMin", 1, 1, 1, 1, TVM_PAT_REDUCTION, arg_infer, arg_compute,
     arg_reference,
     "int64 index of the minimum along axis (keepdims, select_last_index)"},
};

const ops_family ops_reduce_family = {defs,
                                      (int)(sizeof defs / sizeof defs[0])};
