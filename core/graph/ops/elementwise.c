/*
 * core/graph/ops/elementwise.c - unary elementwise operators: the generic
 * infer/compute/reference shared with activation.c (each operator is a
 * unary_desc: a scalar reference and a scalar tensor expression), the
 * math operators Exp, Log, Erf, Sqrt, Neg, Abs, Reciprocal, Floor, Ceil, Round,
 * Sin, Cos, Tan, Sinh, Cosh, Sign, Asin, Acos, Atan, Asinh, Acosh,
 * Atanh (computed from arithmetic, log and sqrt), and the pass-through
 * operators Identity, Dropout (inference: identity, optional all-true
 * mask) and Constant.
 *
 * Constant convention: the ONNX importer turns Constant's `value`
 * attribute into a CONST graph value and gives it to the node as its one
 * input, so Constant is an Identity of that constant.  Without an input,
 * the scalar/list attributes value_float, value_floats, value_int and
 * value_ints are accepted (a 0-d or 1-D output).  fold_constants removes
 * Constant nodes; their compute is NULL.
 */
#include <math.h>
#include <string.h>

#include "ops_int.h"

/* ---- math operators --------------------------------------------------- */

static double r_exp(double x, const double *p) { return exp(x); }
static double r_log(double x, const double *p) { return log(x); }
static double r_erf(double x, const double *p) { return erf(x); }
static double r_sqrt(double x, const double *p) { return sqrt(x); }
static double r_neg(double x, const double *p) { return -x; }
static double r_abs(double x, const double *p) { return fabs(x); }
static double r_id(double x, const double *p) { return x; }
static double r_recip(double x, const double *p) { return 1.0 / x; }
static double r_floor(double x, const double *p) { return floor(x); }
static double r_ceil(double x, const double *p) { return ceil(x); }
static double r_sin(double x, const double *p) { return sin(x); }
static double r_cos(double x, const double *p) { return cos(x); }
static double r_tan(double x, const double *p) { return tan(x); }
static double r_sinh(double x, const double *p) { return sinh(x); }
static double r_cosh(double x, const double *p) { return cosh(x); }
/* ONNX Round: to nearest, halves to even (nearbyint in the default mode) */
static double r_round(double x, const double *p) { return nearbyint(x); }
static double r_sign(double x, const double *p) {
  return x > 0 ? 1 : x < 0 ? -1 : 0;
}
static int64_t i_sign(int64_t x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }
static int64_t i_neg(int64_t x) { return -x; }
static int64_t i_abs(int64_t x) { return x < 0 ? -x : x; }
static int64_t i_id(int64_t x) { return x; }

static tvm_expr *t_exp(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_math(c, TVM_INTRIN_EXP, x);
}
static tvm_expr *t_log(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_math(c, TVM_INTRIN_LOG, x);
}
static tvm_expr *t_erf(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_math(c, TVM_INTRIN_ERF, x);
}
static tvm_expr *t_sqrt(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_math(c, TVM_INTRIN_SQRT, x);
}
static tvm_expr *t_neg(tvm_ctx *c, tvm_expr *x, const double *p) {
  return x ? tvm_sub(c, op_te_const(c, x->dtype, 0), x) : NULL;
}
static tvm_expr *t_abs(tvm_ctx *c, tvm_expr *x, const double *p) {
  if (!x)
    return NULL;
  if (tvm_dtype_is_float(x->dtype))
    return tvm_math(c, TVM_INTRIN_FABS, x);
  return tvm_select(c, tvm_lt(c, x, op_te_const(c, x->dtype, 0)),
                    tvm_sub(c, op_te_const(c, x->dtype, 0), x), x);
}
static tvm_expr *t_id(tvm_ctx *c, tvm_expr *x, const double *p) { return x; }
static tvm_expr *t_recip(tvm_ctx *c, tvm_expr *x, const double *p) {
  return x ? tvm_div(c, op_te_const(c, x->dtype, 1), x) : NULL;
}
static tvm_expr *t_floor(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_math(c, TVM_INTRIN_FLOOR, x);
}
static tvm_expr *t_ceil(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_math(c, TVM_INTRIN_CEIL, x);
}
static tvm_expr *t_sin(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_math(c, TVM_INTRIN_SIN, x);
}
static tvm_expr *t_cos(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_math(c, TVM_INTRIN_COS, x);
}
static tvm_expr *t_tan(tvm_ctx *c, tvm_expr *x, const double *p) {
  return tvm_div(c, tvm_math(c, TVM_INTRIN_SIN, x),
                 tvm_math(c, TVM_INTRIN_COS, x));
}
/* (exp(x) -/+ exp(-x)) / 2 */
static tvm_expr *exp_pm(tvm_ctx *c, tvm_expr *x, int plus) {
  if (!x)
    return NULL;
  tvm_expr *a = tvm_math(c, TVM_INTRIN_EXP, x);
  tvm_expr *b =
      tvm_math(c, TVM_INTRIN_EXP, tvm_sub(c, op_te_const(c, x->dtype, 0), x));
  return tvm_mul(c, plus ? tvm_add(c, a, b) : tvm_sub(c, a, b),
                 op_te_const(c, x->dtype, 0.5));
}
static tvm_expr *t_sinh(tvm_ctx *c, tvm_expr *x, const double *p) {
  return exp_pm(c, x, 0);
}
static tvm_expr *t_cosh(tvm_ctx *c, tvm_expr *x, const double *p) {
  return exp_pm(c, x, 1);
}
/* Round half to even (op_te_round_even). */
static tvm_expr *t_round(tvm_ctx *c, tvm_expr *x, const double *p) {
  return op_te_round_even(c, x);
}
static tvm_expr *t_sign(tvm_ctx *c, tvm_expr *x, const double *p) {
  if (!x)
    return NULL;
  tvm_expr *z = op_te_const(c, x->dtype, 0);
  return tvm_select(
      c, tvm_gt(c, x, z), op_te_const(c, x->dtype, 1),
      tvm_select(c, tvm_lt(c, x, z), op_te_const(c, x->dtype, -1), z));
}

/* ---- inverse trigonometric and hyperbolic functions ------------------- */
static double r_asin(double x, const double *p) { return asin(x); }
static double r_acos(double x, const double *p) { return acos(x); }
static double r_atan(double x, const double *p) { return atan(x); }
static double r_asinh(double x, const double *p) { return asinh(x); }
static double r_acosh(double x, const double *p) { return acosh(x); }
static double r_atanh(double x, const double *p) { return atanh(x); }

/* atan from arithmetic only (no libm call in generated code; float32
 * accuracy, so Asin, Acos and Atan take float32 only): a = |x|;
 * a > 1 -> pi/2 - atan(1/a); then a > tan(pi/8) -> pi/4 + atan((a-1)/
 * (a+1)); the reduced |w| <= 0.4143 takes the odd Taylor series to w^15
 * (error below 2e-7); the sign is restored last. */
static tvm_expr *te_atan(tvm_ctx *c, tvm_expr *x) {
  if (!x)
    return NULL;
  tvm_dtype t = x->dtype;
#define K(v) op_te_const(c, t, (v))
  tvm_expr *a = tvm_math(c, TVM_INTRIN_FABS, x);
  tvm_expr *big = tvm_gt(c, a, K(1));
  tvm_expr *b = tvm_select(c, big, tvm_div(c, K(1), a), a);
  tvm_expr *mid = tvm_gt(c, b, K(0.41421356237309503));
  tvm_expr *w = tvm_select(
      c, mid, tvm_div(c, tvm_sub(c, b, K(1)), tvm_add(c, b, K(1))), b);
  tvm_expr *w2 = tvm_mul(c, w, w), *poly = K(-1.0 / 15);
  for (int k = 13; k >= 1; k -= 2)
    poly = tvm_add(c, tvm_mul(c, poly, w2),
                   K(((k - 1) / 2) % 2 ? -1.0 / k : 1.0 / k));
  tvm_expr *r = tvm_mul(c, poly, w);
  r = tvm_select(c, mid, tvm_add(c, r, K(0.78539816339744831)), r);
  r = tvm_select(c, big, tvm_sub(c, K(1.5707963267948966), r), r);
  return tvm_select(c, tvm_lt(c, x, K(0)), tvm_sub(c, K(0), r), r);
}
/* asin x = atan(x / sqrt(1 - x^2)); acos x = pi/2 - asin x */
static tvm_expr *t_asin(tvm_ctx *c, tvm_expr *x, const double *p) {
  if (!x)
    return NULL;
  tvm_dtype t = x->dtype;
  return te_atan(c, tvm_div(c, x,
                            tvm_math(c, TVM_INTRIN_SQRT,
                                     tvm_sub(c, K(1), tvm_mul(c, x, x)))));
}
static tvm_expr *t_acos(tvm_ctx *c, tvm_expr *x, const double *p) {
  if (!x)
    return NULL;
  tvm_dtype t = x->dtype;
  return tvm_sub(c, K(1.5707963267948966), t_asin(c, x, p));
}
static tvm_expr *t_atan(tvm_ctx *c, tvm_expr *x, const double *p) {
  return te_atan(c, x);
}
/* log(x + sqrt(x^2 -/+ 1)); atanh x = log((1 + x) / (1 - x)) / 2 */
static tvm_expr *log_sqrt(tvm_ctx *c, tvm_expr *x, double one) {
  if (!x)
    return NULL;
  tvm_dtype t = x->dtype;
  return tvm_math(
      c, TVM_INTRIN_LOG,
      tvm_add(c, x,
              tvm_math(c, TVM_INTRIN_SQRT,
                       tvm_add(c, tvm_mul(c, x, x), K(one)))));
}
static tvm_expr *t_asinh(tvm_ctx *c, tvm_expr *x, const double *p) {
  return log_sqrt(c, x, 1);
}
static tvm_expr *t_acosh(tvm_ctx *c, tvm_expr *x, const double *p) {
  return log_sqrt(c, x, -1);
}
static tvm_expr *t_atanh(tvm_ctx *c, tvm_expr *x, const double *p) {
  if (!x)
    return NULL;
  tvm_dtype t = x->dtype;
  return tvm_mul(c, K(0.5),
                 tvm_math(c, TVM_INTRIN_LOG,
                          tvm_div(c, tvm_add(c, K(1), x),
                                  tvm_sub(c, K(1), x))));
#undef K
}

/* Dropout: inference only; a constant training_mode must be false. */
static tvm_status dropout_params(const tvm_gnode *n, double *p) {
  if (n->ninputs > 2 && n->inputs[2]) {
    double tm;
    tvm_status st = op_const_scalar(n, 2, "training_mode", &tm);
    if (st)
      return st;
    if (tm != 0)
      return op_fail(n, TVM_ERR_UNSUPPORTED,
                     "training_mode = true is not supported: this compiler "
                     "runs inference only; export the model in eval mode");
  }
  return TVM_OK;
}

static const unary_desc math_unary[] = {
    {"Exp", DT_F32 | DT_F64, NULL, r_exp, NULL, t_exp},
    {"Log", DT_F32 | DT_F64, NULL, r_log, NULL, t_log},
    {"Erf", DT_F32 | DT_F64, NULL, r_erf, NULL, t_erf},
    {"Sqrt", DT_F32 | DT_F64, NULL, r_sqrt, NULL, t_sqrt},
    {"Neg", DT_F32 | DT_F64 | DT_I8 | DT_I16 | DT_I32 | DT_I64, NULL, r_neg, i_neg, t_neg},
    {"Abs", DT_NUM, NULL, r_abs, i_abs, t_abs},
    {"Reciprocal", DT_F32 | DT_F64, NULL, r_recip, NULL, t_recip},
    {"Floor", DT_F32 | DT_F64, NULL, r_floor, NULL, t_floor},
    {"Ceil", DT_F32 | DT_F64, NULL, r_ceil, NULL, t_ceil},
    {"Round", DT_F32 | DT_F64, NULL, r_round, NULL, t_round},
    {"Sin", DT_F32 | DT_F64, NULL, r_sin, NULL, t_sin},
    {"Cos", DT_F32 | DT_F64, NULL, r_cos, NULL, t_cos},
    {"Tan", DT_F32 | DT_F64, NULL, r_tan, NULL, t_tan},
    {"Sinh", DT_F32 | DT_F64, NULL, r_sinh, NULL, t_sinh},
    {"Cosh", DT_F32 | DT_F64, NULL, r_cosh, NULL, t_cosh},
    {"Sign", DT_NUM, NULL, r_sign, i_sign, t_sign},
    {"Asin", DT_F32, NULL, r_asin, NULL, t_asin},
    {"Acos", DT_F32, NULL, r_acos, NULL, t_acos},
    {"Atan", DT_F32, NULL, r_atan, NULL, t_atan},
    {"Asinh", DT_F32 | DT_F64, NULL, r_asinh, NULL, t_asinh},
    {"Acosh", DT_F32 | DT_F64, NULL, r_acosh, NULL, t_acosh},
    {"Atanh", DT_F32 | DT_F64, NULL, r_atanh, NULL, t_atanh},
    {"Identity", DT_ALL, NULL, r_id, i_id, t_id},
    {"Dropout", DT_ALL, dropout_params, r_id, i_id, t_id},
    {"Constant", DT_ALL, NULL, r_id, i_id, t_id},
};
#define NMATH ((int)(sizeof math_unary / sizeof math_unary[0]))

/* The descriptor of n's operator. */
static const unary_desc *find_unary(const tvm_gnode *n) {
  for (int i = 0; i < NMATH; i++)
    if (strcmp(math_unary[i].name, n->op) == 0)
      return &math_unary[i];
  for (int i = 0; i < ops_activation_nunary; i++)
    if (strcmp(ops_activation_unary[i].name, n->op) == 0)
      return &ops_activation_unary[i];
  return NULL;
}

/* Reads Constant's value_* attributes into vals; *cnt = -1 when none. */
static tvm_status constant_attr(const tvm_gnode *n, tvm_dtype *t, double *vals,
                                int max, int *cnt, int *ndim) {
  *cnt = -1;
  for (int i = 0; i < n->nattrs; i++) {
    const tvm_gattr *a = &n->attrs[i];
    int k;
    if (strcmp(a->name, "value_float") == 0 && a->type == TVM_GATTR_FLOAT) {
      *t = TVM_F32, vals[0] = a->f, *cnt = 1, *ndim = 0;
    } else if (strcmp(a->name, "value_int") == 0 && a->type == TVM_GATTR_INT) {
      *t = TVM_I64, vals[0] = (double)a->i, *cnt = 1, *ndim = 0;
    } else if (strcmp(a->name, "value_floats") == 0 &&
               a->type == TVM_GATTR_FLOATS && a->n <= max) {
      *t = TVM_F32, *cnt = a->n, *ndim = 1;
      for (k = 0; k < a->n; k++)
        vals[k] = a->floats[k];
    } else if (strcmp(a->name, "value_ints") == 0 &&
               a->type == TVM_GATTR_INTS && a->n <= max) {
      *t = TVM_I64, *cnt = a->n, *ndim = 1;
      for (k = 0; k < a->n; k++)
        vals[k] = (double)a->ints[k];
    }
  }
  return TVM_OK;
}

/* Output 0 = input 0's dtype and shape; Dropout's mask is bool. */
tvm_status op_unary_infer(tvm_graph *g, tvm_gnode *n) {
  const unary_desc *d = find_unary(n);
  if (!d)
    return op_fail(n, TVM_ERR_INTERNAL, "not a unary operator");
  if (strcmp(n->op, "Constant") == 0 && (n->ninputs < 1 || !n->inputs[0])) {
    tvm_dtype t;
    double vals[256];
    int cnt, ndim;
    constant_attr(n, &t, vals, 256, &cnt, &ndim);
    if (cnt < 0)
      return op_fail(n, TVM_ERR_INVALID,
                     "no value: give the constant tensor as the node's input "
                     "(the importer's convention) or set value_float, "
                     "value_floats, value_int or value_ints");
    int64_t len = cnt;
    op_set_out(n, 0, t, ndim, &len);
    return TVM_OK;
  }
  int mask = d->dtmask & DT_W16 ? (d->dtmask & ~DT_W16) | DT_F16 | DT_BF16
                                : d->dtmask;
  tvm_status st = op_check_dtype(n, 0, "X", mask);
  if (st)
    return st;
  if (d->params) {
    double p[4] = {0};
    if ((st = d->params(n, p)))
      return st;
  }
  const tvm_gvalue *x = n->inputs[0];
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  if (strcmp(n->op, "Dropout") == 0)
    op_set_out(n, 1, TVM_BOOL, x->ndim, x->shape);
  return TVM_OK;
}

typedef struct unary_ud {
  const unary_desc *d;
  double p[4];
  tvm_tensor *x;
} unary_ud;

/* out[i] = op(x[i]). */
static tvm_expr *unary_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  unary_ud *u = ud;
  tvm_expr *x = tvm_tread(c, u->x, i, u->x->ndim);
  if ((u->d->dtmask & DT_W16) && op_is_f16ish(u->x->dtype))
    return tvm_cast(c, u->x->dtype, u->d->te(c, tvm_cast(c, TVM_F32, x), u->p));
  return u->d->te(c, x, u->p);
}

/* Dropout's mask: all true. */
static tvm_expr *true_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_const(c, TVM_BOOL, 1);
}

/* out = op(x) elementwise. */
tvm_status op_unary_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                         tvm_tensor **out) {
  unary_ud u = {find_unary(n), {0}, in[0]};
  if (!u.d || !u.x)
    return op_fail(n, TVM_ERR_INTERNAL, "unary compute without input");
  tvm_status st = u.d->params ? u.d->params(n, u.p) : TVM_OK;
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "elemwise", unary_body, &u);
  if ((st = op_te_status(c, n, out[0])))
    return st;
  if (n->noutputs > 1 && n->outputs[1]) {
    out[1] = op_te_compute_out(c, n, 1, "elemwise", true_body, NULL);
    return op_te_status(c, n, out[1]);
  }
  return TVM_OK;
}

/* Naive loop over the elements (bytes copied for Identity & co). */
tvm_status op_unary_reference(const tvm_gnode *n, const DLTensor *const *in,
                           DLTensor *const *out) {
  const unary_desc *d = find_unary(n);
  double p[4] = {0};
  tvm_status st;
  if (!d)
    return op_fail(n, TVM_ERR_INTERNAL, "not a unary operator");
  if (strcmp(n->op, "Constant") == 0 && (n->ninputs < 1 || !in[0])) {
    tvm_dtype t;
    double vals[256];
    int cnt, ndim;
    constant_attr(n, &t, vals, 256, &cnt, &ndim);
    for (int k = 0; k < cnt; k++)
      op_dl_setf(out[0], k, vals[k]);
    return TVM_OK;
  }
  if (d->params && (st = d->params(n, p)))
    return st;
  int64_t len = op_dl_numel(in[0]);
  if (d->ref == r_id) {
    memcpy(out[0]->data, (char *)in[0]->data + in[0]->byte_offset,
           (size_t)(len * op_dl_elem_bytes(in[0])));
  } else if (op_dl_is_float(in[0])) {
    for (int64_t k = 0; k < len; k++)
      op_dl_setf(out[0], k, d->ref(op_dl_getf(in[0], k), p));
  } else if (d->iref) {
    for (int64_t k = 0; k < len; k++)
      op_dl_seti(out[0], k, d->iref(op_dl_geti(in[0], k)));
  } else { /* integers through the float reference (exact below 2^53) */
    for (int64_t k = 0; k < len; k++)
      op_dl_seti(out[0], k,
                 (int64_t)d->ref((double)op_dl_geti(in[0], k), p));
  }
  if (n->noutputs > 1 && out[1])
    for (int64_t k = 0; k < len; k++)
      op_dl_seti(out[1], k, 1);
  return TVM_OK;
}

#define UNARY(nm, doc_)                                                        \
  {                                                                            \
    nm, 1, 1, 1, 1, TVM_PAT_ELEMWISE, op_unary_infer, op_unary_compute,              \
        op_unary_reference, doc_                                                  \
  }

static const tvm_gop_def defs[] = {
    UNARY("Exp", "y = exp(x)"),
    UNARY("Log", "y = log(x)"),
    UNARY("Erf", "y = erf(x)"),
    UNARY("Sqrt", "y = sqrt(x)"),
    UNARY("Neg", "y = -x (floats, signed integers)"),
    UNARY("Abs", "y = |x|"),
    UNARY("Reciprocal", "y = 1 / x"),
    UNARY("Floor", "y = floor(x)"),
    UNARY("Ceil", "y = ceil(x)"),
    UNARY("Round", "y = x rounded to the nearest integer, halves to even"),
    UNARY("Sin", "y = sin(x)"),
    UNARY("Cos", "y = cos(x)"),
    UNARY("Tan", "y = tan(x)"),
    UNARY("Sinh", "y = sinh(x)"),
    UNARY("Cosh", "y = cosh(x)"),
    UNARY("Sign", "y = -1, 0 or 1"),
    UNARY("Asin", "y = asin(x)"),
    UNARY("Acos", "y = acos(x)"),
    UNARY("Atan", "y = atan(x)"),
    UNARY("Asinh", "y = asinh(x)"),
    UNARY("Acosh", "y = acosh(x)"),
    UNARY("Atanh", "y = atanh(x)"),
    UNARY("Identity", "y = x"),
    {"Dropout", 1, 3, 1, 2, TVM_PAT_ELEMWISE, op_unary_infer, op_unary_compute,
     op_unary_reference,
     "inference dropout: y = x, optional mask output all true"},
    {"Constant", 0, 1, 1, 1, TVM_PAT_OPAQUE, op_unary_infer, NULL, op_unary_reference,
     "constant: its value is the CONST input (or value_* attributes)"},
};

const ops_family ops_elementwise_family = {defs,
                                           (int)(sizeof defs / sizeof defs[0])};
