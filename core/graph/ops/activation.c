/*
 * core/graph/ops/activation.c - activation functions as unary_desc
 * entries (the generic infer/compute/reference live in elementwise.c):
 * Relu, LeakyRelu, Elu, Selu, Sigmoid, HardSigmoid, HardSwish, Tanh,
 * Softplus, Clip (also on integers), Softsign, Celu, ThresholdedRelu,
 * Shrink, Gelu (opset 20; approximate none: erf, tanh) and Mish.
 * Attribute defaults follow ONNX.
 *
 * Clip: opset < 11 reads the attributes min/max; from opset 11 the
 * optional inputs min (1) and max (2), which must be constants here (a
 * bound computed at run time is refused with an unsupported error).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "ops_int.h"

/* Larger of two doubles. */
static double fmax2(double a, double b) { return a > b ? a : b; }
/* Smaller of two doubles. */
static double fmin2(double a, double b) { return a < b ? a : b; }

/* ---- attribute parsing ------------------------------------------------ */

static tvm_status alpha_params(const tvm_gnode *n, double *p, double alpha) {
  return op_attr_float(n, "alpha", alpha, &p[0]);
}
/* Parses the operator's attributes into p. */
static tvm_status leaky_params(const tvm_gnode *n, double *p) {
  return alpha_params(n, p, 0.01);
}
/* Parses the operator's attributes into p. */
static tvm_status elu_params(const tvm_gnode *n, double *p) {
  return alpha_params(n, p, 1.0);
}
/* Parses the operator's attributes into p. */
static tvm_status selu_params(const tvm_gnode *n, double *p) {
  tvm_status st = alpha_params(n, p, 1.67326319217681884765625);
  return st ? st : op_attr_float(n, "gamma", 1.05070102214813232421875, &p[1]);
}
/* Parses the operator's attributes into p. */
static tvm_status celu_params(const tvm_gnode *n, double *p) {
  tvm_status st = alpha_params(n, p, 1.0);
  if (!st && p[0] == 0)
    return op_fail(n, TVM_ERR_INVALID, "attribute 'alpha' must not be 0");
  return st;
}
static tvm_status trelu_params(const tvm_gnode *n, double *p) {
  return alpha_params(n, p, 1.0);
}
/* Parses the operator's attributes into p. */
static tvm_status shrink_params(const tvm_gnode *n, double *p) {
  tvm_status st = op_attr_float(n, "bias", 0.0, &p[0]);
  return st ? st : op_attr_float(n, "lambd", 0.5, &p[1]);
}
/* Parses the operator's attributes into p. */
static tvm_status hsig_params(const tvm_gnode *n, double *p) {
  tvm_status st = alpha_params(n, p, 0.2);
  return st ? st : op_attr_float(n, "beta", 0.5, &p[1]);
}

/* Gelu: p[0] = 1 for approximate = "tanh", 0 for "none". */
static tvm_status gelu_params(const tvm_gnode *n, double *p) {
  const char *a;
  tvm_status st = op_attr_str(n, "approximate", "none", &a);
  if (st)
    return st;
  if (strcmp(a, "none") && strcmp(a, "tanh"))
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'approximate' = \"%s\"; use none or tanh", a);
  p[0] = strcmp(a, "tanh") == 0;
  return TVM_OK;
}

/* p[0] = min, p[1] = max. */
static tvm_status clip_params(const tvm_gnode *n, double *p) {
  tvm_status st;
  p[0] = -FLT_MAX;
  p[1] = FLT_MAX;
  if (op_opset(n) < 11) {
    if ((st = op_attr_float(n, "min", -FLT_MAX, &p[0])) ||
        (st = op_attr_float(n, "max", FLT_MAX, &p[1])))
      return st;
  } else {
    if (n->ninputs > 1 && n->inputs[1] &&
        (st = op_const_scalar(n, 1, "min", &p[0])))
      return st;
    if (n->ninputs > 2 && n->inputs[2] &&
        (st = op_const_scalar(n, 2, "max", &p[1])))
      return st;
  }
  return TVM_OK;
}

/* ---- scalar references ------------------------------------------------ */

static double r_relu(double x, const double *p) { return x > 0 ? x : 0; }
static double r_leaky(double x, const double *p) {
  return x >= 0 ? x : p[0] * x;
}
static double r_elu(double x, const double *p) {
  return x >= 0 ? x : p[0] * (exp(x) - 1);
}
static double r_selu(double x, const double *p) {
  return p[1] * (x > 0 ? x : p[0] * (exp(x) - 1));
}
static double r_sigmoid(double x, const double *p) {
  return 1.0 / (1.0 + exp(-x));
}
static double r_hsig(double x, const double *p) {
  return fmax2(0, fmin2(1, p[0] * x + p[1]));
}
static double r_hswish(double x, const double *p) {
  return x * fmax2(0, fmin2(1, x / 6 + 0.5));
}
static double r_tanh(double x, const double *p) { return tanh(x); }
/* Softplus in the stable form max(x, 0) + log(1 + exp(-|x|)). */
static double r_softplus(double x, const double *p) {
  return fmax2(x, 0) + log(1 + exp(-fabs(x)));
}
static double r_softsign(double x, const double *p) {
  return x / (1 + fabs(x));
}
static double r_trelu(double x, const double *p) { return x > p[0] ? x : 0; }
static double r_shrink(double x, const double *p) {
  return x < -p[1] ? x + p[0] : x > p[1] ? x - p[0] : 0;
}
static double r_celu(double x, const double *p) {
  return fmax2(0, x) + fmin2(0, p[0] * (exp(x / p[0]) - 1));
}
static double r_clip(double x, const double *p) {
  return fmin2(fmax2(x, p[0]), p[1]);
}
/* Gelu: p[0] = 0: x * Phi(x) (erf); 1: the tanh approximation */
static double r_gelu(double x, const double *p) {
  if (p[0])
    return 0.5 * x *
           (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1 + erf(x * 0.7071067811865476));
}
/* Mish: x * tanh(softplus(x)) */
static double r_mish(double x, const double *p) {
  return x * tanh(fmax2(x, 0) + log(1 + exp(-fabs(x))));
}

/* ---- tensor expressions ----------------------------------------------- */

static tvm_expr *K(tvm_ctx *c, tvm_expr *x, double v) {
  return x ? op_te_const(c, x->dtype, v) : NULL;
}
static tvm_expr *t_relu(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_max(c, x, K(c, x, 0));
}
static tvm_expr *t_leaky(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_select(c, tvm_ge(c, x, K(c, x, 0)), x,
                    tvm_mul(c, x, K(c, x, p[0])));
}
/* alpha * (exp(x) - 1) */
static tvm_expr *expm1a(tvm_ctx *c, tvm_expr *x, double alpha) {
  return tvm_mul(c, K(c, x, alpha),
                 tvm_sub(c, tvm_math(c, TVM_INTRIN_EXP, x), K(c, x, 1)));
}
static tvm_expr *t_elu(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_select(c, tvm_ge(c, x, K(c, x, 0)), x, expm1a(c, x, p[0]));
}
static tvm_expr *t_selu(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_mul(
      c, K(c, x, p[1]),
      tvm_select(c, tvm_gt(c, x, K(c, x, 0)), x, expm1a(c, x, p[0])));
}
static tvm_expr *t_sigmoid(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_math(c, TVM_INTRIN_SIGMOID, x);
}
/* v clamped to [0, 1]. */
static tvm_expr *clamp01(tvm_ctx *c, tvm_expr *v) {
  return tvm_max(c, tvm_min(c, v, K(c, v, 1)), K(c, v, 0));
}
static tvm_expr *t_hsig(tvm_ctx *c, tvm_expr *x, const double *p) {
  return clamp01(c, tvm_add(c, tvm_mul(c, x, K(c, x, p[0])), K(c, x, p[1])));
}
static tvm_expr *t_hswish(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_mul(
      c, x,
      clamp01(c, tvm_add(c, tvm_mul(c, x, K(c, x, 1.0 / 6)), K(c, x, 0.5))));
}
static tvm_expr *t_tanh(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_math(c, TVM_INTRIN_TANH, x);
}
static tvm_expr *t_softplus(tvm_ctx *c, tvm_expr *x, const double *p) {
  tvm_expr *ax = tvm_math(c, TVM_INTRIN_FABS, x);
  tvm_expr *e = tvm_math(c, TVM_INTRIN_EXP, tvm_sub(c, K(c, x, 0), ax));
  return tvm_add(c, tvm_max(c, x, K(c, x, 0)),
                 tvm_math(c, TVM_INTRIN_LOG, tvm_add(c, K(c, x, 1), e)));
}
static tvm_expr *t_softsign(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_div(c, x, tvm_add(c, K(c, x, 1), tvm_math(c, TVM_INTRIN_FABS, x)));
}
static tvm_expr *t_trelu(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_select(c, tvm_gt(c, x, K(c, x, p[0])), x, K(c, x, 0));
}
static tvm_expr *t_shrink(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_select(c, tvm_lt(c, x, K(c, x, -p[1])),
                    tvm_add(c, x, K(c, x, p[0])),
                    tvm_select(c, tvm_gt(c, x, K(c, x, p[1])),
                               tvm_sub(c, x, K(c, x, p[0])), K(c, x, 0)));
}
static tvm_expr *t_celu(tvm_ctx *c, tvm_expr *x, const double *p) {
  tvm_expr *e = tvm_math(c, TVM_INTRIN_EXP, tvm_mul(c, x, K(c, x, 1 / p[0])));
  return tvm_add(c, tvm_max(c, x, K(c, x, 0)),
                 tvm_min(c,
                         tvm_mul(c, K(c, x, p[0]), tvm_sub(c, e, K(c, x, 1))),
                         K(c, x, 0)));
}
static tvm_expr *t_clip(tvm_ctx *c, tvm_expr *x, const double *p) {
  if (!x)
    return NULL;
  double lo = p[0], hi = p[1];
  if (tvm_dtype_is_int(x->dtype)) { /* bounds within the integer type */
    int b = x->dtype.bits, u = tvm_dtype_is_uint(x->dtype);
    double tmin = u ? 0 : -ldexp(1, b - 1),
           tmax = u ? ldexp(1, b) - 1 : ldexp(1, b - 1) - 1;
    if (b == 64) /* 2^63 - 1 is no double: the largest one below it */
      tmax = 9223372036854774784.0;
    lo = fmax2(fmin2(lo, tmax), tmin);
    hi = fmax2(fmin2(hi, tmax), tmin);
  }
  return tvm_min(c, tvm_max(c, x, K(c, x, lo)), K(c, x, hi));
}
static tvm_expr *t_gelu(tvm_ctx *c, tvm_expr *x, const double *p) {
  if (!x)
    return NULL;
  tvm_expr *inner;
  if (p[0])
    inner = tvm_math(
        c, TVM_INTRIN_TANH,
        tvm_mul(c, K(c, x, 0.7978845608028654),
                tvm_add(c, x,
                        tvm_mul(c, K(c, x, 0.044715),
                                tvm_mul(c, x, tvm_mul(c, x, x))))));
  else
    inner = tvm_math(c, TVM_INTRIN_ERF,
                     tvm_mul(c, x, K(c, x, 0.7071067811865476)));
  return tvm_mul(c, tvm_mul(c, K(c, x, 0.5), x),
                 tvm_add(c, K(c, x, 1), inner));
}
static tvm_expr *t_mish(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_mul(c, x, tvm_math(c, TVM_INTRIN_TANH, t_softplus(c, x, p)));
}

const unary_desc ops_activation_unary[] = {
    {"Relu", DT_F32 | DT_F64 | DT_W16, NULL, r_relu, NULL, t_relu},
    {"LeakyRelu", DT_F32 | DT_F64 | DT_W16, leaky_params, r_leaky, NULL, t_leaky},
    {"Elu", DT_F32 | DT_F64 | DT_W16, elu_params, r_elu, NULL, t_elu},
    {"Selu", DT_F32 | DT_F64 | DT_W16, selu_params, r_selu, NULL, t_selu},
    {"Sigmoid", DT_F32 | DT_F64 | DT_W16, NULL, r_sigmoid, NULL, t_sigmoid},
    {"HardSigmoid", DT_F32 | DT_F64 | DT_W16, hsig_params, r_hsig, NULL, t_hsig},
    {"HardSwish", DT_F32 | DT_F64 | DT_W16, NULL, r_hswish, NULL, t_hswish},
    {"Tanh", DT_F32 | DT_F64 | DT_W16, NULL, r_tanh, NULL, t_tanh},
    {"Softplus", DT_F32 | DT_F64 | DT_W16, NULL, r_softplus, NULL, t_softplus},
    {"Clip", DT_F32 | DT_F64 | DT_I8 | DT_U8 | DT_I16 | DT_U16 | DT_I32 |
                 DT_U32 | DT_I64,
     clip_params, r_clip, NULL, t_clip},
    {"Gelu", DT_F32 | DT_F64 | DT_W16, gelu_params, r_gelu, NULL, t_gelu},
    {"Mish", DT_F32 | DT_F64 | DT_W16, NULL, r_mish, NULL, t_mish},
    {"Softsign", DT_F32 | DT_F64 | DT_W16, NULL, r_softsign, NULL, t_softsign},
    {"Celu", DT_F32 | DT_F64 | DT_W16, celu_params, r_celu, NULL, t_celu},
    {"ThresholdedRelu", DT_F32 | DT_F64 | DT_W16, trelu_params, r_trelu, NULL, t_trelu},
    {"Shrink", DT_F32 | DT_F64 | DT_W16, shrink_params, r_shrink, NULL, t_shrink},
};
const int ops_activation_nunary =
    (int)(sizeof ops_activation_unary / sizeof ops_activation_unary[0]);

#define ACT(nm, doc_)                                                          \
  {                                                                            \
    nm, 1, 1, 1, 1, TVM_PAT_ELEMWISE, op_unary_infer, op_unary_compute,              \
        op_unary_reference, doc_                                                  \
  }

static const tvm_gop_def defs[] = {
    ACT("Relu", "y = max(x, 0)"),
    ACT("LeakyRelu", "y = x >= 0 ? x : alpha * x (alpha = 0.01)"),
    ACT("Elu", "y = x >= 0 ? x : alpha * (exp(x) - 1) (alpha = 1)"),
    ACT("Selu", "y = gamma * (x > 0 ? x : alpha * (exp(x) - 1))"),
    ACT("Sigmoid", "y = 1 / (1 + exp(-x))"),
    ACT("HardSigmoid", "y = max(0, min(1, alpha * x + beta))"),
    ACT("HardSwish", "y = x * max(0, min(1, x / 6 + 1 / 2))"),
    ACT("Tanh", "y = tanh(x)"),
    ACT("Softplus", "y = log(1 + exp(x))"),
    ACT("Softsign", "y = x / (1 + |x|)"),
    ACT("Celu", "y = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))"),
    ACT("ThresholdedRelu", "y = x > alpha ? x : 0 (alpha = 1)"),
    ACT("Shrink", "y = x < -lambd ? x + bias : x > lambd ? x - bias : 0"),
    ACT("Gelu", "y = x * Phi(x) (approximate = tanh: the tanh form)"),
    ACT("Mish", "y = x * tanh(softplus(x))"),
    {"Clip", 1, 3, 1, 1, TVM_PAT_ELEMWISE, op_unary_infer, op_unary_compute,
     op_unary_reference,
     "y = min(max(x, min), max); bounds are attributes (opset < 11) or "
     "constant inputs"},
};

const ops_family ops_activation_family = {defs,
                                          (int)(sizeof defs / sizeof defs[0])};
