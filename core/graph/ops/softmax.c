/*
 * core/graph/ops/softmax.c - Softmax and LogSoftmax.
 *
 * Axis semantics follow the node's opset ("_opset", default 13): before
 * opset 13 the input is seen as 2-D, flattened at `axis` (default 1), and
 * normalized over all axes from `axis` on; from 13 over the single axis
 * `axis` (default -1).
 *
 * Compute (numerically stable): "<name>.max" = rmax over the normalized
 * axes (kept as size 1); Softmax: "<name>.exp" = exp(x - max) (a stage
 * of its own: a schedule that computes it once per row reads it twice;
 * the generic ones inline it), "<name>.sum" = its sum, then exp / sum;
 * LogSoftmax: "<name>.sum" = sum of exp(x - max), then x - max - log(sum).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

/* The first normalized axis and whether all axes after it are too. */
static tvm_status sm_axes(const tvm_gnode *n, int *axis, int *flat) {
  const tvm_gvalue *x = n->inputs[0];
  int old = op_opset(n) < 13;
  int64_t a;
  tvm_status st = op_attr_int(n, "axis", old ? 1 : -1, &a);
  if (st)
    return st;
  *flat = old;
  if (old && a == x->ndim) /* flattening at rank: nothing normalized */
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'axis' = %lld leaves no axis to normalize",
                   (long long)a);
  return op_axis(n, "attribute 'axis'", a, x->ndim, axis);
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status sm_infer(tvm_graph *g, tvm_gnode *n) {
  int axis, flat;
  tvm_status st = op_check_dtype(n, 0, "input", DT_F32);
  if (st || (st = sm_axes(n, &axis, &flat)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  return TVM_OK;
}

typedef struct sm_ud {
  tvm_tensor *x, *max, *sum, *e; /* e: Softmax's exp(x - max) */
  int axis, last; /* normalized axes: [axis, last] */
  int logsm;
} sm_ud;

/* Index of x inside the reduction: i for kept axes, r for reduced. */
static void red_index(sm_ud *u, tvm_expr **i, tvm_iter_var **r, tvm_expr **xi) {
  for (int d = 0; d < u->x->ndim; d++)
    xi[d] = d >= u->axis && d <= u->last ? r[d - u->axis]->var : i[d];
}

/* Index into max/sum (reduced axes are size 1). */
static void kept_index(tvm_ctx *c, sm_ud *u, tvm_expr **i, tvm_expr **ki) {
  for (int d = 0; d < u->x->ndim; d++)
    ki[d] = d >= u->axis && d <= u->last ? tvm_int(c, 0) : i[d];
}

/* Creates one reduce axis per normalized axis; 0 when out of memory. */
static int make_axes(tvm_ctx *c, sm_ud *u, tvm_iter_var **r) {
  for (int d = u->axis; d <= u->last; d++) {
    char nm[16];
    snprintf(nm, sizeof nm, "r%d", d - u->axis);
    r[d - u->axis] = tvm_reduce_axis(c, nm, 0, u->x->shape_c[d]);
    if (!r[d - u->axis])
      return 0;
  }
  return 1;
}

/* max over the normalized axes. */
static tvm_expr *max_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  sm_ud *u = ud;
  tvm_iter_var *r[TVM_MAX_DIMS];
  tvm_expr *xi[TVM_MAX_DIMS];
  if (!make_axes(c, u, r))
    return NULL;
  red_index(u, i, r, xi);
  return tvm_rmax(c, tvm_tread(c, u->x, xi, u->x->ndim), r,
                  u->last - u->axis + 1);
}

/* sum of exp(x - max) over the normalized axes. */
static tvm_expr *sum_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  sm_ud *u = ud;
  tvm_iter_var *r[TVM_MAX_DIMS];
  tvm_expr *xi[TVM_MAX_DIMS], *ki[TVM_MAX_DIMS];
  if (!make_axes(c, u, r))
    return NULL;
  red_index(u, i, r, xi);
  if (u->e)
    return tvm_sum(c, tvm_tread(c, u->e, xi, u->x->ndim), r,
                   u->last - u->axis + 1);
  kept_index(c, u, i, ki);
  tvm_expr *d = tvm_sub(c, tvm_tread(c, u->x, xi, u->x->ndim),
                        tvm_tread(c, u->max, ki, u->x->ndim));
  return tvm_sum(c, tvm_math(c, TVM_INTRIN_EXP, d), r, u->last - u->axis + 1);
}

/* Softmax's exp(x - max), elementwise. */
static tvm_expr *exp_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  sm_ud *u = ud;
  tvm_expr *ki[TVM_MAX_DIMS];
  kept_index(c, u, i, ki);
  return tvm_math(c, TVM_INTRIN_EXP,
                  tvm_sub(c, tvm_tread(c, u->x, i, u->x->ndim),
                          tvm_tread(c, u->max, ki, u->x->ndim)));
}

/* exp / sum, or x - max - log(sum). */
static tvm_expr *out_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  sm_ud *u = ud;
  tvm_expr *ki[TVM_MAX_DIMS];
  kept_index(c, u, i, ki);
  tvm_expr *s = tvm_tread(c, u->sum, ki, u->x->ndim);
  if (!u->logsm)
    return tvm_div(c, tvm_tread(c, u->e, i, u->x->ndim), s);
  tvm_expr *d = tvm_sub(c, tvm_tread(c, u->x, i, u->x->ndim),
                        tvm_tread(c, u->max, ki, u->x->ndim));
  return tvm_sub(c, d, tvm_math(c, TVM_INTRIN_LOG, s));
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status sm_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  sm_ud u;
  int flat;
  tvm_status st = sm_axes(n, &u.axis, &flat);
  if (st)
    return st;
  u.x = in[0];
  u.last = flat ? u.x->ndim - 1 : u.axis;
  u.logsm = strcmp(n->op, "LogSoftmax") == 0;
  int64_t ks[TVM_MAX_DIMS];
  for (int d = 0; d < u.x->ndim; d++)
    ks[d] = d >= u.axis && d <= u.last ? 1 : u.x->shape_c[d];
  u.max = tvm_compute(c, op_te_name(c, n, "max"), ks, u.x->ndim, max_body, &u);
  if ((st = op_te_status(c, n, u.max)))
    return st;
  tvm_tensor_set_tag(u.max, "softmax_max");
  u.e = NULL;
  if (!u.logsm) {
    u.e = tvm_compute(c, op_te_name(c, n, "exp"), u.x->shape_c, u.x->ndim,
                      exp_body, &u);
    if ((st = op_te_status(c, n, u.e)))
      return st;
    tvm_tensor_set_tag(u.e, "softmax_exp");
  }
  u.sum = tvm_compute(c, op_te_name(c, n, "sum"), ks, u.x->ndim, sum_body, &u);
  if ((st = op_te_status(c, n, u.sum)))
    return st;
  tvm_tensor_set_tag(u.sum, "softmax_sum");
  out[0] = op_te_compute_out(c, n, 0, u.logsm ? "log_softmax" : "softmax",
                          out_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status sm_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  int axis, flat;
  tvm_status st = sm_axes(n, &axis, &flat);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int last = flat ? x->ndim - 1 : axis;
  int64_t outer = 1, mid = 1, inner = 1;
  for (int d = 0; d < x->ndim; d++)
    *(d < axis ? &outer : d <= last ? &mid : &inner) *= x->shape[d];
  int logsm = strcmp(n->op, "LogSoftmax") == 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in_ = 0; in_ < inner; in_++) {
      int64_t base = o * mid * inner + in_;
      double mx = -INFINITY, sum = 0;
      for (int64_t m = 0; m < mid; m++) {
        double v = op_dl_getf(x, base + m * inner);
        mx = v > mx ? v : mx;
      }
      for (int64_t m = 0; m < mid; m++)
        sum += exp(op_dl_getf(x, base + m * inner) - mx);
      for (int64_t m = 0; m < mid; m++) {
        double d = op_dl_getf(x, base + m * inner) - mx;
        op_dl_setf(out[0], base + m * inner, logsm ? d - log(sum) : exp(d) / sum);
      }
    }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Softmax", 1, 1, 1, 1, TVM_PAT_OPAQUE, sm_infer, sm_compute, sm_reference,
     "exp(x - max) / sum(exp(x - max)) over axis (opset < 13: axes >= axis)"},
    {"LogSoftmax", 1, 1, 1, 1, TVM_PAT_OPAQUE, sm_infer, sm_compute,
     sm_reference, "x - max - log(sum(exp(x - max))) over axis"},
};

const ops_family ops_softmax_family = {defs,
                                       (int)(sizeof defs / sizeof defs[0])};
