/*
 * tests/unit/schedule/te_eval.h - a naive interpreter of tensor
 * expressions, the oracle of the dataflow tests: it computes a tensor
 * element by element from the op that computes it (the declared op, or
 * the current op of its stage in a schedule), so a rewrite of the
 * dataflow (cache_read, cache_write, rfactor) can be checked to compute
 * the same numbers.  Constant shapes only; values in double.
 */
#ifndef TVM_TEST_TE_EVAL_H
#define TVM_TEST_TE_EVAL_H

#include <math.h>
#include <stdlib.h>

#include "tvm/schedule.h"

typedef struct te_eval {
  const tvm_schedule *s; /* NULL: evaluate the declared ops */
  double (*pow)(double, double); /* NULL: libm's; a test may model a device's */
  const tvm_expr *vars[64];
  int64_t vals[64];
  int nvars;
  const tvm_tensor *done[32];
  double *data[32];
  int ndone;
} te_eval;

static double te_eval_expr(te_eval *ev, const tvm_expr *e);
static double *te_eval_tensor(te_eval *ev, const tvm_tensor *t);

static int64_t te_numel(const tvm_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape_c[d];
  return n;
}

/* Input values: a fixed function of the tensor's name and the index. */
static double te_input_value(const tvm_tensor *t, int64_t flat) {
  unsigned h = 7;
  for (const char *p = t->name; *p; p++)
    h = h * 31 + (unsigned char)*p;
  return (double)((h + (unsigned)flat * 2654435761u) % 97) / 8.0 - 6.0;
}

static double te_eval_reduce(te_eval *ev, const tvm_expr *e, int a,
                             double acc) {
  if (a == e->u.reduce.naxes) {
    if (e->u.reduce.cond && te_eval_expr(ev, e->u.reduce.cond) == 0)
      return acc;
    double v = te_eval_expr(ev, e->u.reduce.source);
    switch (e->u.reduce.op) {
    case TVM_REDUCE_SUM: return acc + v;
    case TVM_REDUCE_PROD: return acc * v;
    case TVM_REDUCE_MAX: return v > acc ? v : acc;
    case TVM_REDUCE_MIN: return v < acc ? v : acc;
    }
  }
  const tvm_iter_var *iv = e->u.reduce.axes[a];
  int64_t lo = (int64_t)te_eval_expr(ev, iv->dom.min);
  int64_t n = (int64_t)te_eval_expr(ev, iv->dom.extent);
  int slot = ev->nvars++;
  ev->vars[slot] = iv->var;
  for (int64_t x = lo; x < lo + n; x++) {
    ev->vals[slot] = x;
    acc = te_eval_reduce(ev, e, a + 1, acc);
  }
  ev->nvars--;
  return acc;
}

static double te_floordiv(double a, double b) { return floor(a / b); }

/* a rounded to the nearest float16 (bf16 = 0) or bfloat16, ties to even
 * (overflow and bfloat16 subnormals are not modelled). */
static double te_round16(double a, int bf16) {
  int e;
  if (a == 0 || !isfinite(a))
    return a;
  frexp(a, &e);
  int q = e - (bf16 ? 8 : 11);
  if (!bf16 && q < -24)
    q = -24;
  return ldexp(nearbyint(ldexp(a, -q)), q);
}

static double te_eval_expr(te_eval *ev, const tvm_expr *e) {
  double a, b;
  switch (e->kind) {
  case TVM_INT: return (double)e->u.ival;
  case TVM_FLOAT: return e->u.fval;
  case TVM_VAR:
    for (int i = ev->nvars - 1; i >= 0; i--)
      if (ev->vars[i] == e)
        return (double)ev->vals[i];
    fail_msg("unbound variable %s", e->u.var.name);
    return 0;
  case TVM_SELECT:
    return te_eval_expr(ev, e->u.sel.cond) != 0 ? te_eval_expr(ev, e->u.sel.t)
                                                 : te_eval_expr(ev, e->u.sel.f);
  case TVM_NOT: return te_eval_expr(ev, e->u.un.a) == 0;
  case TVM_CAST:
    a = te_eval_expr(ev, e->u.un.a);
    if (tvm_dtype_is_bool(e->dtype)) return a != 0;
    if ((e->dtype.code == kDLFloat || e->dtype.code == kDLBfloat) &&
        e->dtype.bits == 16)
      return te_round16(a, e->dtype.code == kDLBfloat);
    return tvm_dtype_is_float(e->dtype) ? a : trunc(a);
  case TVM_CALL: {
    double x = e->u.call.nargs > 0 ? te_eval_expr(ev, e->u.call.args[0]) : 0;
    double y = e->u.call.nargs > 1 ? te_eval_expr(ev, e->u.call.args[1]) : 0;
    switch (e->u.call.op) {
    case TVM_INTRIN_EXP: return exp(x);
    case TVM_INTRIN_LOG: return log(x);
    case TVM_INTRIN_SQRT: return sqrt(x);
    case TVM_INTRIN_RSQRT: return 1.0 / sqrt(x);
    case TVM_INTRIN_TANH: return tanh(x);
    case TVM_INTRIN_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case TVM_INTRIN_ERF: return erf(x);
    case TVM_INTRIN_POW: return ev->pow ? ev->pow(x, y) : pow(x, y);
    case TVM_INTRIN_FABS: return fabs(x);
    case TVM_INTRIN_FLOOR: return floor(x);
    case TVM_INTRIN_CEIL: return ceil(x);
    case TVM_INTRIN_ROUND: return nearbyint(x);
    case TVM_INTRIN_TRUNC: return trunc(x);
    case TVM_INTRIN_SIN: return sin(x);
    case TVM_INTRIN_COS: return cos(x);
    case TVM_INTRIN_ISNAN: return isnan(x);
    case TVM_INTRIN_FMA:
      return x * y + te_eval_expr(ev, e->u.call.args[2]);
    default:
      fail_msg("te_eval: unsupported call %s", tvm_intrin_name(e->u.call.op));
      return 0;
    }
  }
  case TVM_TREAD: {
    const tvm_tensor *t = e->u.tread.tensor;
    int64_t flat = 0;
    for (int d = 0; d < t->ndim; d++) {
      int64_t x = (int64_t)te_eval_expr(ev, e->u.tread.indices[d]);
      assert_true(x >= 0 && x < t->shape_c[d]);
      flat = flat * t->shape_c[d] + x;
    }
    return te_eval_tensor(ev, t)[flat];
  }
  case TVM_REDUCE: {
    double init = e->u.reduce.op == TVM_REDUCE_SUM    ? 0
                  : e->u.reduce.op == TVM_REDUCE_PROD ? 1
                  : e->u.reduce.op == TVM_REDUCE_MAX  ? -INFINITY
                                                      : INFINITY;
    return te_eval_reduce(ev, e, 0, init);
  }
  default:
    break;
  }
  a = te_eval_expr(ev, e->u.bin.a);
  b = te_eval_expr(ev, e->u.bin.b);
  int fl = tvm_dtype_is_float(e->u.bin.a->dtype);
  switch (e->kind) {
  case TVM_ADD: return a + b;
  case TVM_SUB: return a - b;
  case TVM_MUL: return a * b;
  case TVM_DIV: return fl ? a / b : trunc(a / b);
  case TVM_MOD: return fmod(a, b);
  case TVM_FLOORDIV: return te_floordiv(a, b);
  case TVM_FLOORMOD: return a - b * te_floordiv(a, b);
  case TVM_MIN: return a < b ? a : b;
  case TVM_MAX: return a > b ? a : b;
  case TVM_EQ: return a == b;
  case TVM_NE: return a != b;
  case TVM_LT: return a < b;
  case TVM_LE: return a <= b;
  case TVM_GT: return a > b;
  case TVM_GE: return a >= b;
  case TVM_AND: return a != 0 && b != 0;
  case TVM_OR: return a != 0 || b != 0;
  default:
    fail_msg("te_eval: unsupported expression kind %d", e->kind);
    return 0;
  }
}

/* The values of t (row-major), computed once and remembered. */
static double *te_eval_tensor(te_eval *ev, const tvm_tensor *t) {
  for (int i = 0; i < ev->ndone; i++)
    if (ev->done[i] == t)
      return ev->data[i];
  int64_t n = te_numel(t);
  double *out = calloc((size_t)n, sizeof(double));
  const tvm_operation *op = t->op;
  if (ev->s) {
    tvm_stage *st = tvm_stage_of((tvm_schedule *)ev->s, t);
    assert_non_null(st);
    op = st->op;
    assert_ptr_equal(op->output, t);
  }
  for (int64_t flat = 0; flat < n; flat++) {
    if (op->kind == TVM_OP_PLACEHOLDER) {
      out[flat] = te_input_value(t, flat);
      continue;
    }
    int base = ev->nvars;
    int64_t rem = flat;
    for (int d = t->ndim - 1; d >= 0; d--) {
      ev->vars[base + d] = op->axis[d]->var;
      ev->vals[base + d] = rem % t->shape_c[d];
      rem /= t->shape_c[d];
    }
    ev->nvars += t->ndim;
    out[flat] = te_eval_expr(ev, op->body);
    ev->nvars = base;
  }
  assert_true(ev->ndone < 32);
  ev->done[ev->ndone] = t;
  ev->data[ev->ndone++] = out;
  return out;
}

static void te_eval_free(te_eval *ev) {
  for (int i = 0; i < ev->ndone; i++)
    free(ev->data[i]);
  ev->ndone = 0;
}

/* Asserts that t computed through the schedule s equals t computed from
 * its declaration. */
static void expect_same_values(const tvm_schedule *s, const tvm_tensor *t) {
  te_eval ref = {0}, got = {0};
  got.s = s;
  double *r = te_eval_tensor(&ref, t), *g = te_eval_tensor(&got, t);
  for (int64_t i = 0; i < te_numel(t); i++)
    if (fabs(r[i] - g[i]) > 1e-9 * (1 + fabs(r[i])))
      fail_msg("%s[%lld]: %g through the schedule, %g declared", t->name,
               (long long)i, g[i], r[i]);
  te_eval_free(&ref);
  te_eval_free(&got);
}

#endif /* TVM_TEST_TE_EVAL_H */
