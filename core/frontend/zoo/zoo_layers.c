/*
 * core/frontend/zoo/zoo_layers.c - the layer helpers of the model zoo
 * (zoo_int.h): seeded weights, Conv/BN/activation units, pooling, dense.
 * Every helper derives its nodes' and weights' names from its name
 * argument in a local buffer (never b->name, which the caller may be
 * passing in).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "zoo_int.h"

#define F32 tvm_dt(kDLFloat, 32, 1)
#define I64 tvm_dt(kDLInt, 64, 1)

/* Starts a network: g and the first weight seed. */
void zoo_init(zb *b, tvm_graph *g, uint64_t base) {
  b->g = g;
  b->seed = base;
  b->name[0] = 0;
}

/* Formats a name into b->name and returns it (valid until the next call). */
const char *zoo_fmt(zb *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->name, sizeof b->name, fmt, ap);
  va_end(ap);
  return b->name;
}

/* "<name>.<part>" into buf (ZB_NAME bytes, truncated). */
const char *zoo_sub(char *buf, const char *name, const char *part) {
  snprintf(buf, ZB_NAME, "%s.%s", name, part);
  return buf;
}

/* A weight uniform in [lo, hi]: tvm_graph_random's +-(hi - lo) / 2 values,
 * shifted in place in the graph's copy. */
tvm_gvalue *zoo_uniform(zb *b, const char *name, const int64_t *shape, int nd,
                       double lo, double hi) {
  tvm_gvalue *v =
      tvm_graph_random(b->g, name, shape, nd, b->seed++, (hi - lo) / 2);
  if (!v) return NULL;
  float mid = (float)((hi + lo) / 2), *d = v->data;
  if (mid != 0.0f)
    for (int64_t i = 0, n = tvm_gvalue_numel(v); i < n; i++) d[i] += mid;
  return v;
}

/* A weight uniform in +-sqrt(6 / fan_in) (He for ReLU, uniform form). */
tvm_gvalue *zoo_he(zb *b, const char *name, const int64_t *shape, int nd,
                  int64_t fan_in) {
  double s = sqrt(6.0 / (double)(fan_in > 0 ? fan_in : 1));
  return zoo_uniform(b, name, shape, nd, -s, s);
}

/* Conv k x k, stride, symmetric pad, group, optional bias. */
tvm_gvalue *zoo_conv(zb *b, tvm_gvalue *x, int64_t cout, int64_t k,
                    int64_t stride, int64_t pad, int64_t group, int bias,
                    const char *name) {
  char wn[ZB_NAME];
  if (!x) return NULL;
  int64_t cin = x->shape[1];
  int64_t ws[4] = {cout, cin / group, k, k};
  zoo_sub(wn, name, "weight");
  tvm_gvalue *w = zoo_he(b, wn, ws, 4, cin / group * k * k);
  tvm_gvalue *bv = NULL;
  if (bias) {
    zoo_sub(wn, name, "bias");
    bv = zoo_uniform(b, wn, (int64_t[]){cout}, 1, -0.05, 0.05);
  }
  tvm_gattr at[] = {
      tvm_gattr_ints("kernel_shape", (int64_t[]){k, k}, 2),
      tvm_gattr_ints("strides", (int64_t[]){stride, stride}, 2),
      tvm_gattr_ints("pads", (int64_t[]){pad, pad, pad, pad}, 4),
      tvm_gattr_int("group", group),
  };
  tvm_gvalue *in[3] = {x, w, bv};
  if (!w || (bias && !bv)) return NULL;
  return tvm_graph_apply(b->g, "Conv", name, in, bias ? 3 : 2, at, 4, 1,
                         NULL);
}

/* BatchNormalization with scale in [lo, hi] and the other statistics as in
 * zoo_int.h. */
tvm_gvalue *zoo_bn_scaled(zb *b, tvm_gvalue *x, double lo, double hi,
                         const char *name) {
  static const char *const what[] = {"weight", "bias", "running_mean",
                                     "running_var"};
  const double range[4][2] = {{lo, hi}, {-0.1, 0.1}, {-0.1, 0.1}, {0.5, 1.5}};
  char wn[ZB_NAME];
  if (!x) return NULL;
  int64_t c = x->shape[1];
  tvm_gvalue *in[5] = {x};
  for (int i = 0; i < 4; i++) {
    snprintf(wn, sizeof wn, "%s.%s", name, what[i]);
    in[i + 1] = zoo_uniform(b, wn, &c, 1, range[i][0], range[i][1]);
    if (!in[i + 1]) return NULL;
  }
  tvm_gattr eps = tvm_gattr_float("epsilon", 1e-5);
  return tvm_graph_apply(b->g, "BatchNormalization", name, in, 5, &eps, 1, 1,
                         NULL);
}

/* BatchNormalization, scale in [0.8, 1.2]. */
tvm_gvalue *zoo_bn(zb *b, tvm_gvalue *x, const char *name) {
  return zoo_bn_scaled(b, x, 0.8, 1.2, name);
}

/* A unary operator without attributes. */
tvm_gvalue *zoo_op1(zb *b, const char *op, tvm_gvalue *x, const char *name) {
  if (!x) return NULL;
  return tvm_graph_apply(b->g, op, name, TVM_IN(x), TVM_NOATTRS, 1, NULL);
}

/* A binary operator without attributes. */
tvm_gvalue *zoo_op2(zb *b, const char *op, tvm_gvalue *x, tvm_gvalue *y,
                   const char *name) {
  if (!x || !y) return NULL;
  return tvm_graph_apply(b->g, op, name, TVM_IN(x, y), TVM_NOATTRS, 1, NULL);
}

/* Relu. */
tvm_gvalue *zoo_relu(zb *b, tvm_gvalue *x, const char *name) {
  return zoo_op1(b, "Relu", x, name);
}

/* Clip(x, 0, 6) with the bounds as constant inputs (opset 13). */
tvm_gvalue *zoo_relu6(zb *b, tvm_gvalue *x, const char *name) {
  char wn[ZB_NAME];
  const float lo = 0.0f, hi = 6.0f;
  if (!x) return NULL;
  zoo_sub(wn, name, "min");
  tvm_gvalue *mn = tvm_graph_const(b->g, wn, F32, NULL, 0, &lo);
  zoo_sub(wn, name, "max");
  tvm_gvalue *mx = tvm_graph_const(b->g, wn, F32, NULL, 0, &hi);
  if (!mn || !mx) return NULL;
  return tvm_graph_apply(b->g, "Clip", name, TVM_IN(x, mn, mx), TVM_NOATTRS,
                         1, NULL);
}

/* Conv (no bias) + BN, then Relu when relu. */
tvm_gvalue *zoo_conv_bn(zb *b, tvm_gvalue *x, int64_t cout, int64_t k,
                       int64_t stride, int64_t pad, int relu,
                       const char *name) {
  char bn[ZB_NAME], rn[160];
  zoo_sub(bn, name, "bn");
  zoo_sub(rn, name, "relu");
  x = zoo_conv(b, x, cout, k, stride, pad, 1, 0, name);
  x = zoo_bn(b, x, bn);
  return relu ? zoo_relu(b, x, rn) : x;
}

/* Conv + BN + Relu. */
tvm_gvalue *zoo_conv_bn_relu(zb *b, tvm_gvalue *x, int64_t cout, int64_t k,
                            int64_t stride, int64_t pad, const char *name) {
  return zoo_conv_bn(b, x, cout, k, stride, pad, 1, name);
}

/* MaxPool k x k. */
tvm_gvalue *zoo_maxpool(zb *b, tvm_gvalue *x, int64_t k, int64_t stride,
                       int64_t pad, int ceil_mode, const char *name) {
  if (!x) return NULL;
  tvm_gattr at[] = {
      tvm_gattr_ints("kernel_shape", (int64_t[]){k, k}, 2),
      tvm_gattr_ints("strides", (int64_t[]){stride, stride}, 2),
      tvm_gattr_ints("pads", (int64_t[]){pad, pad, pad, pad}, 4),
      tvm_gattr_int("ceil_mode", ceil_mode),
  };
  return tvm_graph_apply(b->g, "MaxPool", name, TVM_IN(x), at, 4, 1, NULL);
}

/* GlobalAveragePool + Flatten. */
tvm_gvalue *zoo_gap_flatten(zb *b, tvm_gvalue *x, const char *name) {
  char pn[ZB_NAME];
  zoo_sub(pn, name, "pool");
  x = zoo_op1(b, "GlobalAveragePool", x, pn);
  if (!x) return NULL;
  tvm_gattr ax = tvm_gattr_int("axis", 1);
  return tvm_graph_apply(b->g, "Flatten", name, TVM_IN(x), &ax, 1, 1, NULL);
}

/* Gemm(x, W, bias) with transB = 1. */
tvm_gvalue *zoo_dense(zb *b, tvm_gvalue *x, int64_t nout, double scale,
                     const char *name) {
  char wn[ZB_NAME];
  if (!x) return NULL;
  int64_t k = x->shape[x->ndim - 1];
  zoo_sub(wn, name, "weight");
  tvm_gvalue *w = scale > 0
                      ? zoo_uniform(b, wn, (int64_t[]){nout, k}, 2, -scale,
                                   scale)
                      : zoo_he(b, wn, (int64_t[]){nout, k}, 2, k);
  zoo_sub(wn, name, "bias");
  tvm_gvalue *bv = zoo_uniform(b, wn, (int64_t[]){nout}, 1, -0.05, 0.05);
  if (!w || !bv) return NULL;
  tvm_gattr tb = tvm_gattr_int("transB", 1);
  return tvm_graph_apply(b->g, "Gemm", name, TVM_IN(x, w, bv), &tb, 1, 1,
                         NULL);
}

/* A constant int64 vector. */
tvm_gvalue *zoo_ints(zb *b, const char *name, const int64_t *v, int n) {
  int64_t len = n;
  return tvm_graph_const(b->g, name, I64, &len, 1, v);
}

/* Marks the output and reports the first builder failure. */
tvm_status zoo_finish(zb *b, tvm_gvalue *v) {
  tvm_status st = tvm_graph_status(b->g);
  if (st != TVM_OK) return st;
  if (!v)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "zoo: the network's output is missing; a layer "
                        "helper was given a NULL input");
  return tvm_graph_mark_output(b->g, v);
}
