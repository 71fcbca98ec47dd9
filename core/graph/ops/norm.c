/*
 * core/graph/ops/norm.c - BatchNormalization (inference form):
 *   y = scale[c] * (x - mean[c]) / sqrt(var[c] + epsilon) + B[c]
 * over channel axis 1 of x (N, C, D1, ...).  training_mode = 1 (opset 14)
 * and is_test = 0 (opset < 7) are refused: the compiler runs inference
 * only.  simplify_inference usually rewrites it to Mul/Add of folded
 * constants; this compute is the direct form.
 *
 * LayerNormalization (opset 17): normalizes over X.shape[axis:] (axis
 * default -1), Scale and optional B broadcast to that shape; outputs Y and
 * optionally Mean and InvStdDev (shape X.shape[:axis] + 1s).  Compute:
 * "<name>.sum", "<name>.mean", "<name>.sqsum" (of (x - mean)^2),
 * "<name>.rstd", then Y.  InstanceNormalization is the same computation
 * over the spatial axes (axis 2 on) with scale and B indexed by channel.
 *
 * LRN: y = x / (bias + alpha / size * sum of x^2 over the channels
 * c - floor((size - 1) / 2) .. c + ceil((size - 1) / 2))^beta; compute:
 * "<name>.sqsum" (a reduction with a bounds condition), then y.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

/* Reads epsilon and refuses training mode. */
static tvm_status bn_attrs(const tvm_gnode *n, double *eps) {
  int64_t tm, is_test;
  tvm_status st;
  if ((st = op_attr_float(n, "epsilon", 1e-5, eps)) ||
      (st = op_attr_int(n, "training_mode", 0, &tm)) ||
      (st = op_attr_int(n, "is_test", 1, &is_test)))
    return st;
  if (tm != 0 || is_test == 0)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "training mode is not supported (%s); this compiler runs "
                   "inference only: export the model in eval mode",
                   tm ? "training_mode = 1" : "is_test = 0");
  if (*eps < 0)
    return op_fail(n, TVM_ERR_INVALID, "attribute 'epsilon' must be >= 0");
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status bn_infer(tvm_graph *g, tvm_gnode *n) {
  static const char *const what[] = {"X", "scale", "B", "input_mean",
                                     "input_var"};
  double eps;
  tvm_status st = bn_attrs(n, &eps);
  if (st)
    return st;
  for (int i = 0; i < 5; i++)
    if ((st = op_check_dtype(n, i, what[i], DT_F32)))
      return st;
  if ((st = op_plain_layout(n, 0)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if (x->ndim < 2)
    return op_fail(n, TVM_ERR_INVALID,
                   "X must have at least 2 dimensions (N, C, ...), it has %d",
                   x->ndim);
  for (int i = 1; i < 5; i++) {
    const tvm_gvalue *v = n->inputs[i];
    if (v->ndim != 1 || v->shape[0] != x->shape[1])
      return op_fail(n, TVM_ERR_INVALID,
                     "input %s must be 1-D of length C = %lld (the channels "
                     "of X)",
                     what[i], (long long)x->shape[1]);
  }
  if (n->noutputs > 1)
    for (int k = 1; k < n->noutputs; k++)
      if (n->outputs[k])
        return op_fail(n, TVM_ERR_UNSUPPORTED,
                       "output %d (running statistics) only exists in "
                       "training mode; leave it out",
                       k);
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  return TVM_OK;
}

typedef struct bn_ud {
  tvm_tensor **in;
  double eps;
} bn_ud;

/* scale * (x - mean) / sqrt(var + epsilon) + B at channel i[1]. */
static tvm_expr *bn_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  bn_ud *u = ud;
  tvm_tensor *x = u->in[0];
  tvm_expr *ch = i[1];
  tvm_expr *var =
      tvm_add(c, TVM_AT(c, u->in[4], ch), op_te_const(c, x->dtype, u->eps));
  tvm_expr *norm = tvm_div(
      c, tvm_sub(c, tvm_tread(c, x, i, x->ndim), TVM_AT(c, u->in[3], ch)),
      tvm_math(c, TVM_INTRIN_SQRT, var));
  return tvm_add(c, tvm_mul(c, TVM_AT(c, u->in[1], ch), norm),
                 TVM_AT(c, u->in[2], ch));
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status bn_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  bn_ud u = {in, 0};
  tvm_status st = bn_attrs(n, &u.eps);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "broadcast", bn_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status bn_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  double eps;
  tvm_status st = bn_attrs(n, &eps);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int64_t C = x->shape[1], inner = 1, len = op_dl_numel(x);
  for (int d = 2; d < x->ndim; d++)
    inner *= x->shape[d];
  for (int64_t e = 0; e < len; e++) {
    int64_t ch = (e / inner) % C;
    double v =
        (op_dl_getf(x, e) - op_dl_getf(in[3], ch)) / sqrt(op_dl_getf(in[4], ch) + eps);
    op_dl_setf(out[0], e, op_dl_getf(in[1], ch) * v + op_dl_getf(in[2], ch));
  }
  return TVM_OK;
}

/* ---- LayerNormalization ----------------------------------------------- */
typedef struct ln_info {
  int inst; /* InstanceNormalization: axis 2, per-channel scale and B */
  int axis;
  double eps;
  int64_t count;                    /* elements normalized together */
  int64_t stat_shape[TVM_MAX_DIMS]; /* X.shape[:axis] + 1s */
} ln_info;

/* Validates InstanceNormalization (input, scale [C], B [C]). */
static tvm_status inst_check(const tvm_gnode *n, ln_info *li) {
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "input", DT_F32)) ||
      (st = op_check_dtype(n, 1, "scale", DT_F32)) ||
      (st = op_check_dtype(n, 2, "B", DT_F32)) ||
      (st = op_plain_layout(n, 0)) ||
      (st = op_attr_float(n, "epsilon", 1e-5, &li->eps)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if (x->ndim < 3)
    return op_fail(n, TVM_ERR_INVALID,
                   "input must be (N, C, D1, ...), it has %d dimensions",
                   x->ndim);
  for (int k = 1; k < 3; k++)
    if (n->inputs[k]->ndim != 1 || n->inputs[k]->shape[0] != x->shape[1])
      return op_fail(n, TVM_ERR_INVALID, "%s must be 1-D of length C = %lld",
                     k == 1 ? "scale" : "B", (long long)x->shape[1]);
  li->inst = 1;
  li->axis = 2;
  li->count = 1;
  for (int d = 0; d < x->ndim; d++) {
    li->stat_shape[d] = d < 2 ? x->shape[d] : 1;
    if (d >= 2)
      li->count *= x->shape[d];
  }
  if (li->count == 0)
    return op_fail(n, TVM_ERR_INVALID, "the spatial axes are empty");
  return TVM_OK;
}

/* Validates LayerNormalization (or InstanceNormalization); fills the axis,
 * count and statistics shape. */
static tvm_status ln_check(const tvm_gnode *n, ln_info *li) {
  int64_t a, stash;
  const tvm_gvalue *b = NULL;
  tvm_status st;
  memset(li, 0, sizeof *li);
  if (strcmp(n->op, "InstanceNormalization") == 0)
    return inst_check(n, li);
  if ((st = op_check_dtype(n, 0, "X", DT_F32)) ||
      (st = op_check_dtype(n, 1, "Scale", DT_F32)) ||
      (st = op_opt_input(n, 2, "B", DT_F32, &b)) ||
      (st = op_attr_int(n, "axis", -1, &a)) ||
      (st = op_attr_float(n, "epsilon", 1e-5, &li->eps)) ||
      (st = op_attr_int(n, "stash_type", 1, &stash)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if ((st = op_axis(n, "attribute 'axis'", a, x->ndim, &li->axis)))
    return st;
  li->count = 1;
  for (int d = 0; d < x->ndim; d++) {
    li->stat_shape[d] = d < li->axis ? x->shape[d] : 1;
    if (d >= li->axis)
      li->count *= x->shape[d];
  }
  if (li->count == 0)
    return op_fail(n, TVM_ERR_INVALID, "the normalized axes are empty");
  /* Scale and B broadcast (one way) to X.shape[axis:] */
  const tvm_gvalue *sb[2] = {n->inputs[1], b};
  for (int k = 0; k < 2; k++) {
    const tvm_gvalue *v = sb[k];
    if (!v)
      continue;
    int r = x->ndim - li->axis, ok = v->ndim <= r;
    for (int d = 0; ok && d < v->ndim; d++) {
      int64_t want = x->shape[x->ndim - v->ndim + d];
      ok = v->shape[d] == want || v->shape[d] == 1;
    }
    if (!ok) {
      char sh[128];
      return op_fail(n, TVM_ERR_INVALID,
                     "%s %s does not broadcast to the normalized shape "
                     "X.shape[%d:]",
                     k ? "B" : "Scale",
                     op_shape_str(sh, sizeof sh, v->shape, v->ndim), li->axis);
    }
  }
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status ln_infer(tvm_graph *g, tvm_gnode *n) {
  ln_info li;
  tvm_status st = ln_check(n, &li);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  op_set_out(n, 1, TVM_F32, x->ndim, li.stat_shape);
  op_set_out(n, 2, TVM_F32, x->ndim, li.stat_shape);
  return TVM_OK;
}

typedef struct ln_ud {
  ln_info li;
  tvm_tensor *x, *scale, *b, *sum, *mean, *sq, *rstd;
} ln_ud;

/* index of the statistics for data index i */
static void stat_index(tvm_ctx *c, ln_ud *u, tvm_expr **i, tvm_expr **si) {
  for (int d = 0; d < u->x->ndim; d++)
    si[d] = d < u->li.axis ? i[d] : tvm_int(c, 0);
}

/* sum over the normalized axes of x (sq == NULL) or of (x - mean)^2 */
static tvm_expr *ln_red(tvm_ctx *c, tvm_expr **i, void *ud) {
  ln_ud *u = ud;
  tvm_tensor *x = u->x;
  tvm_iter_var *ax[TVM_MAX_DIMS];
  tvm_expr *xi[TVM_MAX_DIMS];
  int nax = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (d < u->li.axis) {
      xi[d] = i[d];
      continue;
    }
    char nm[16];
    snprintf(nm, sizeof nm, "r%d", nax);
    ax[nax] = tvm_reduce_axis(c, nm, 0, x->shape_c[d]);
    if (!ax[nax])
      return NULL;
    xi[d] = ax[nax++]->var;
  }
  tvm_expr *v = tvm_tread(c, x, xi, x->ndim);
  if (u->mean) {
    v = tvm_sub(c, v, tvm_tread(c, u->mean, i, x->ndim));
    v = tvm_mul(c, v, v);
  }
  return tvm_sum(c, v, ax, nax);
}

/* mean = sum / count. */
static tvm_expr *ln_mean(tvm_ctx *c, tvm_expr **i, void *ud) {
  ln_ud *u = ud;
  return tvm_div(c, tvm_tread(c, u->sum, i, u->x->ndim),
                 op_te_const(c, u->x->dtype, (double)u->li.count));
}

/* 1 / sqrt(sqsum / count + epsilon). */
static tvm_expr *ln_rstd(tvm_ctx *c, tvm_expr **i, void *ud) {
  ln_ud *u = ud;
  tvm_expr *var = tvm_div(c, tvm_tread(c, u->sq, i, u->x->ndim),
                          op_te_const(c, u->x->dtype, (double)u->li.count));
  return tvm_math(c, TVM_INTRIN_RSQRT,
                  tvm_add(c, var, op_te_const(c, u->x->dtype, u->li.eps)));
}

/* Y = (x - mean) * rstd * Scale + B. */
static tvm_expr *ln_out(tvm_ctx *c, tvm_expr **i, void *ud) {
  ln_ud *u = ud;
  tvm_expr *si[TVM_MAX_DIMS];
  stat_index(c, u, i, si);
  int r = u->x->ndim;
  tvm_expr *v = tvm_mul(
      c, tvm_sub(c, tvm_tread(c, u->x, i, r), tvm_tread(c, u->mean, si, r)),
      tvm_tread(c, u->rstd, si, r));
  if (u->li.inst) {
    v = tvm_add(c, tvm_mul(c, v, TVM_AT(c, u->scale, i[1])),
                TVM_AT(c, u->b, i[1]));
    return v;
  }
  v = tvm_mul(c, v, op_te_bcast_read(c, u->scale, i, r));
  if (u->b)
    v = tvm_add(c, v, op_te_bcast_read(c, u->b, i, r));
  return v;
}

/* Copies a statistics tensor to an optional output. */
static tvm_expr *ln_copy(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *t = ud;
  return tvm_tread(c, t, i, t->ndim);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status ln_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  ln_ud u;
  memset(&u, 0, sizeof u);
  tvm_status st = ln_check(n, &u.li);
  if (st)
    return st;
  u.x = in[0];
  u.scale = in[1];
  u.b = n->ninputs > 2 ? in[2] : NULL;
  int r = u.x->ndim;
  const int64_t *ss = u.li.stat_shape;
  if (!(u.sum = tvm_compute(c, op_te_name(c, n, "sum"), ss, r, ln_red, &u)) ||
      !(u.mean = tvm_compute(c, op_te_name(c, n, "mean"), ss, r, ln_mean, &u)) ||
      !(u.sq = tvm_compute(c, op_te_name(c, n, "sqsum"), ss, r, ln_red, &u)) ||
      !(u.rstd = tvm_compute(c, op_te_name(c, n, "rstd"), ss, r, ln_rstd, &u)))
    return op_te_status(c, n, NULL);
  tvm_tensor_set_tag(u.sum, "reduction");
  tvm_tensor_set_tag(u.sq, "reduction");
  out[0] = op_te_compute_out(c, n, 0, "layer_norm", ln_out, &u);
  if ((st = op_te_status(c, n, out[0])))
    return st;
  for (int k = 1; k < 3 && k < n->noutputs; k++) {
    if (!n->outputs[k])
      continue;
    out[k] =
        op_te_compute_out(c, n, k, "injective", ln_copy, k == 1 ? u.mean : u.rstd);
    if ((st = op_te_status(c, n, out[k])))
      return st;
  }
  return TVM_OK;
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status ln_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  ln_info li;
  tvm_status st = ln_check(n, &li);
  if (st)
    return st;
  const DLTensor *x = in[0], *sc = in[1], *b = n->ninputs > 2 ? in[2] : NULL;
  int64_t outer = op_dl_numel(x) / li.count;
  for (int64_t o = 0; o < outer; o++) {
    double mean = 0, var = 0;
    for (int64_t k = 0; k < li.count; k++)
      mean += op_dl_getf(x, o * li.count + k);
    mean /= (double)li.count;
    for (int64_t k = 0; k < li.count; k++) {
      double d = op_dl_getf(x, o * li.count + k) - mean;
      var += d * d;
    }
    double rstd = 1.0 / sqrt(var / (double)li.count + li.eps);
    for (int64_t k = 0; k < li.count; k++) {
      int64_t e = o * li.count + k;
      int64_t si = li.inst ? o % x->shape[1] : op_dl_bcast_index(sc, out[0], e);
      double v = (op_dl_getf(x, e) - mean) * rstd * op_dl_getf(sc, si);
      if (b)
        v += op_dl_getf(b, li.inst ? si : op_dl_bcast_index(b, out[0], e));
      op_dl_setf(out[0], e, v);
    }
    if (n->noutputs > 1 && out[1])
      op_dl_setf(out[1], o, mean);
    if (n->noutputs > 2 && out[2])
      op_dl_setf(out[2], o, rstd);
  }
  return TVM_OK;
}

/* ---- LRN -------------------------------------------------------------- */
typedef struct lrn_info {
  double alpha, beta, bias;
  int64_t size, lo; /* window: channels c - lo .. c - lo + size - 1 */
} lrn_info;

/* Validates LRN and reads its attributes. */
static tvm_status lrn_check(const tvm_gnode *n, lrn_info *li) {
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "X", DT_F32)) ||
      (st = op_attr_float(n, "alpha", 1e-4, &li->alpha)) ||
      (st = op_attr_float(n, "beta", 0.75, &li->beta)) ||
      (st = op_attr_float(n, "bias", 1.0, &li->bias)) ||
      (st = op_attr_int(n, "size", 0, &li->size)))
    return st;
  if (li->size < 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'size' is required (a positive int)");
  if (n->inputs[0]->ndim < 3)
    return op_fail(n, TVM_ERR_INVALID, "X must be (N, C, D1, ...)");
  li->lo = (li->size - 1) / 2;
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status lrn_infer(tvm_graph *g, tvm_gnode *n) {
  lrn_info li;
  tvm_status st = lrn_check(n, &li);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  return TVM_OK;
}

typedef struct lrn_ud {
  lrn_info li;
  tvm_tensor *x, *sq;
} lrn_ud;

/* sum of squares over the channel window (a reduction with a condition) */
static tvm_expr *lrn_sq(tvm_ctx *c, tvm_expr **i, void *ud) {
  lrn_ud *u = ud;
  tvm_tensor *x = u->x;
  int64_t C = x->shape_c[1];
  tvm_iter_var *r = tvm_reduce_axis(c, "rc", 0, u->li.size);
  if (!r)
    return NULL;
  tvm_expr *ch = tvm_add(c, i[1], tvm_sub(c, r->var, tvm_int(c, u->li.lo)));
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++)
    xi[d] = d == 1
                ? tvm_min(c, tvm_max(c, ch, tvm_int(c, 0)), tvm_int(c, C - 1))
                : i[d];
  tvm_expr *v = tvm_tread(c, x, xi, x->ndim);
  tvm_expr *in =
      tvm_and(c, tvm_ge(c, ch, tvm_int(c, 0)), tvm_lt(c, ch, tvm_int(c, C)));
  return tvm_reduce(c, TVM_REDUCE_SUM, tvm_mul(c, v, v), &r, 1, in);
}

/* x / (bias + alpha / size * sqsum)^beta. */
static tvm_expr *lrn_out(tvm_ctx *c, tvm_expr **i, void *ud) {
  lrn_ud *u = ud;
  tvm_dtype t = u->x->dtype;
  int r = u->x->ndim;
  tvm_expr *den =
      tvm_add(c, op_te_const(c, t, u->li.bias),
              tvm_mul(c, op_te_const(c, t, u->li.alpha / (double)u->li.size),
                      tvm_tread(c, u->sq, i, r)));
  tvm_expr *args[2] = {den, op_te_const(c, t, u->li.beta)};
  return tvm_div(c, tvm_tread(c, u->x, i, r),
                 tvm_call(c, t, TVM_INTRIN_POW, args, 2));
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status lrn_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  lrn_ud u;
  tvm_status st = lrn_check(n, &u.li);
  if (st)
    return st;
  u.x = in[0];
  const tvm_gvalue *o = n->outputs[0];
  u.sq = tvm_compute(c, op_te_name(c, n, "sqsum"), o->shape, o->ndim, lrn_sq, &u);
  if ((st = op_te_status(c, n, u.sq)))
    return st;
  tvm_tensor_set_tag(u.sq, "reduction");
  out[0] = op_te_compute_out(c, n, 0, "elemwise", lrn_out, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status lrn_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  lrn_info li;
  tvm_status st = lrn_check(n, &li);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int64_t C = x->shape[1], inner = op_dl_numel(x) / (x->shape[0] * C);
  int64_t len = op_dl_numel(x);
  for (int64_t e = 0; e < len; e++) {
    int64_t ch = (e / inner) % C, base = e - ch * inner;
    double sq = 0;
    for (int64_t k = ch - li.lo; k < ch - li.lo + li.size; k++)
      if (k >= 0 && k < C) {
        double v = op_dl_getf(x, base + k * inner);
        sq += v * v;
      }
    op_dl_setf(out[0], e,
            op_dl_getf(x, e) /
                pow(li.bias + li.alpha / (double)li.size * sq, li.beta));
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"BatchNormalization", 5, 5, 1, 5, TVM_PAT_BROADCAST, bn_infer, bn_compute,
     bn_reference,
     "inference batch norm over axis 1: scale * (x - mean) / sqrt(var + "
     "epsilon) + B"},
    {"LayerNormalization", 2, 3, 1, 3, TVM_PAT_OPAQUE, ln_infer, ln_compute,
     ln_reference,
     "(x - mean) / sqrt(var + epsilon) * Scale + B over the axes from axis "
     "on; optional Mean and InvStdDev outputs"},
    {"InstanceNormalization", 3, 3, 1, 1, TVM_PAT_OPAQUE, ln_infer, ln_compute,
     ln_reference,
     "(x - mean) / sqrt(var + epsilon) * scale[c] + B[c] over the spatial "
     "axes of each (n, c)"},
    {"LRN", 1, 1, 1, 1, TVM_PAT_OPAQUE, lrn_infer, lrn_compute, lrn_reference,
     "local response normalization across channels (size, alpha, beta, "
     "bias)"},
};

const ops_family ops_norm_family = {defs, (int)(sizeof defs / sizeof defs[0])};
