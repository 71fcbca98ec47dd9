/*
 * core/ir/expr.c - expression constructors and their type rules.
 *
 * Binary operators unify their operand types before building the node:
 *   - equal types: nothing to do;
 *   - different element types: a constant operand (or a broadcast of one)
 *     is converted to the other operand's element type; when both are
 *     constants the float one wins, then the wider one, then the left one.
 *     A float constant never becomes an integer and an integer constant
 *     that does not fit the other type is refused;
 *   - a scalar meeting a vector is broadcast to the vector's lanes;
 *   - anything else (int meets float, int32 meets int64, two vectors of
 *     different lanes) is a caller bug: the constructor records a
 *     diagnostic naming both types, sets ctx->failed and returns NULL.
 * Constructors do not fold constants (the simplifier does), except
 * tvm_cast of a constant.  A NULL operand makes a constructor return NULL
 * (the failure that produced it is already recorded).
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "ir_int.h"
#include "tvm/te.h"

/* ---- private helpers shared by core/ir ---------------------------------- */

tvm_expr *ir_expr_new(tvm_ctx *c, tvm_expr_kind k, tvm_dtype t) {
  tvm_expr *e = tvm_ctx_alloc(c, sizeof(tvm_expr));
  if (!e) return NULL;
  e->kind = k;
  e->dtype = t;
  return e;
}

tvm_stmt *ir_stmt_new(tvm_ctx *c, tvm_stmt_kind k) {
  tvm_stmt *s = tvm_ctx_alloc(c, sizeof(tvm_stmt));
  if (!s) return NULL;
  s->kind = k;
  return s;
}

void *ir_fail(tvm_ctx *c, const char *fmt, ...) {
  va_list ap;
  c->failed = TVM__FAILED_INVALID;
  va_start(ap, fmt);
  tvm_diag_setv(TVM_ERR_INVALID, fmt, ap);
  va_end(ap);
  return NULL;
}

int ir_copy_exprs(tvm_ctx *c, tvm_expr ***dst, tvm_expr *const *src,
                    int n) {
  *dst = NULL;
  if (n < 0 || (n > 0 && !src)) return 0;
  if (n == 0) return 1;
  tvm_expr **d = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)n);
  if (!d) return 0;
  for (int i = 0; i < n; i++) {
    if (!src[i]) return 0;
    d[i] = src[i];
  }
  *dst = d;
  return 1;
}

/* ---- constants ---------------------------------------------------------- */

/* Does v fit the integer (or bool) type t? */
static int int_fits(int64_t v, tvm_dtype t) {
  if (tvm_dtype_is_bool(t)) return v == 0 || v == 1;
  if (t.bits >= 64) return 1;
  if (t.code == kDLUInt) return v >= 0 && v < ((int64_t)1 << t.bits);
  int64_t lim = (int64_t)1 << (t.bits - 1);
  return v >= -lim && v < lim;
}

/* v reduced to the bits of t (two's complement wrap, bool: v != 0). */
static int64_t int_wrap(int64_t v, tvm_dtype t) {
  if (tvm_dtype_is_bool(t)) return v != 0;
  if (t.bits >= 64 || t.code == TVM_DTYPE_HANDLE) return v;
  uint64_t mask = ((uint64_t)1 << t.bits) - 1;
  uint64_t u = (uint64_t)v & mask;
  if (t.code == kDLInt && (u >> (t.bits - 1)) & 1) u |= ~mask;
  return (int64_t)u;
}

/* v rounded to the precision of the float type t. */
static double float_round(double v, tvm_dtype t) {
  if (t.code == kDLFloat && t.bits == 32) return (double)(float)v;
  return v;
}

/* An integer constant of type t (wrapped to its bits); a vector type makes
 * a broadcast of the scalar constant; a float type makes a float
 * constant. */
tvm_expr *tvm_const(tvm_ctx *c, tvm_dtype t, int64_t v) {
  if (tvm_dtype_is_float(t)) return tvm_fconst(c, t, (double)v);
  if (t.lanes > 1)
    return tvm_broadcast(c, tvm_const(c, tvm_dtype_element(t), v), t.lanes);
  tvm_expr *e = ir_expr_new(c, TVM_INT, t);
  if (e) e->u.ival = int_wrap(v, t);
  return e;
}

/* A float constant of type t (rounded to its precision); an integer type
 * makes an integer constant of the truncated value (NULL with a diagnostic
 * when v is not finite or out of range). */
tvm_expr *tvm_fconst(tvm_ctx *c, tvm_dtype t, double v) {
  if (!tvm_dtype_is_float(t)) {
    if (!(v >= -9.2e18 && v <= 9.2e18)) {
      char b[32];
      return ir_fail(c, "float constant %g cannot be a %s constant", v,
                       tvm_dtype_str(t, b));
    }
    return tvm_const(c, t, (int64_t)v);
  }
  if (t.lanes > 1)
    return tvm_broadcast(c, tvm_fconst(c, tvm_dtype_element(t), v), t.lanes);
  tvm_expr *e = ir_expr_new(c, TVM_FLOAT, t);
  if (e) e->u.fval = float_round(v, t);
  return e;
}

/* An int32 constant. */
tvm_expr *tvm_int(tvm_ctx *c, int64_t v) { return tvm_const(c, TVM_I32, v); }

/* A float32 constant. */
tvm_expr *tvm_f32(tvm_ctx *c, double v) { return tvm_fconst(c, TVM_F32, v); }

/* A string immediate (for call arguments), copied into the arena; its
 * dtype is handle. */
tvm_expr *tvm_str(tvm_ctx *c, const char *s) {
  if (!s) return NULL;
  tvm_expr *e = ir_expr_new(c, TVM_STR, TVM_HANDLE);
  if (!e) return NULL;
  e->u.str = tvm_ctx_strdup(c, s);
  return e->u.str ? e : NULL;
}

/* A fresh variable (unique id from the context); NULL name means "v". */
tvm_expr *tvm_var(tvm_ctx *c, const char *name, tvm_dtype t) {
  tvm_expr *e = ir_expr_new(c, TVM_VAR, t);
  if (!e) return NULL;
  e->u.var.name = tvm_ctx_strdup(c, name ? name : "v");
  e->u.var.id = c->next_id++;
  return e->u.var.name ? e : NULL;
}

/* ---- type unification --------------------------------------------------- */

/* Is e a constant, scalar or broadcast? */
static int is_const(const tvm_expr *e) {
  if (e->kind == TVM_BROADCAST) e = e->u.bcast.value;
  return e->kind == TVM_INT || e->kind == TVM_FLOAT;
}

/* The constant e (scalar or broadcast) converted to element type t,
 * keeping its lanes; NULL with a diagnostic when it cannot be. */
static tvm_expr *convert_const(tvm_ctx *c, tvm_expr *e, tvm_dtype t) {
  char b1[32], b2[32];
  int lanes = e->dtype.lanes;
  tvm_expr *s = e->kind == TVM_BROADCAST ? e->u.bcast.value : e;
  tvm_expr *r;
  if (tvm_dtype_is_handle(t))
    return ir_fail(c, "constant cannot become a handle");
  if (s->kind == TVM_FLOAT) {
    if (!tvm_dtype_is_float(t))
      return ir_fail(c,
                       "float constant %g meets a %s operand: cast one side "
                       "explicitly (tvm_cast)",
                       s->u.fval, tvm_dtype_str(t, b1));
    r = tvm_fconst(c, t, s->u.fval);
  } else if (tvm_dtype_is_float(t)) {
    r = tvm_fconst(c, t, (double)s->u.ival);
  } else {
    if (!int_fits(s->u.ival, t))
      return ir_fail(c, "constant %lld (%s) does not fit %s",
                       (long long)s->u.ival, tvm_dtype_str(s->dtype, b1),
                       tvm_dtype_str(t, b2));
    r = tvm_const(c, t, s->u.ival);
  }
  return lanes > 1 ? tvm_broadcast(c, r, lanes) : r;
}

/* Which of two constant element types wins: float, then wider, then a. */
static tvm_dtype pick_const_type(tvm_dtype a, tvm_dtype b) {
  int fa = tvm_dtype_is_float(a), fb = tvm_dtype_is_float(b);
  if (fa != fb) return fa ? a : b;
  if (b.bits > a.bits) return b;
  return a;
}

/* Brings *a and *b to one type (see the file comment); 0 on failure with
 * the diagnostic set.  what names the operation for messages. */
static int unify(tvm_ctx *c, tvm_expr **a, tvm_expr **b, const char *what) {
  char b1[32], b2[32];
  tvm_dtype ea = tvm_dtype_element((*a)->dtype);
  tvm_dtype eb = tvm_dtype_element((*b)->dtype);
  if (!tvm_dtype_eq(ea, eb)) {
    int ca = is_const(*a), cb = is_const(*b);
    if (ca && cb) {
      tvm_dtype t = pick_const_type(ea, eb);
      if (tvm_dtype_eq(t, ea))
        *b = convert_const(c, *b, t);
      else
        *a = convert_const(c, *a, t);
    } else if (ca) {
      *a = convert_const(c, *a, eb);
    } else if (cb) {
      *b = convert_const(c, *b, ea);
    } else {
      ir_fail(c,
                "%s: operand types differ (%s vs %s): cast one side "
                "explicitly (tvm_cast)",
                what, tvm_dtype_str((*a)->dtype, b1),
                tvm_dtype_str((*b)->dtype, b2));
      return 0;
    }
    if (!*a || !*b) return 0;
  }
  int la = (*a)->dtype.lanes, lb = (*b)->dtype.lanes;
  if (la != lb) {
    if (la == 1)
      *a = tvm_broadcast(c, *a, lb);
    else if (lb == 1)
      *b = tvm_broadcast(c, *b, la);
    else {
      ir_fail(c, "%s: vector lanes differ (%s vs %s)", what,
                tvm_dtype_str((*a)->dtype, b1), tvm_dtype_str((*b)->dtype, b2));
      return 0;
    }
    if (!*a || !*b) return 0;
  }
  return 1;
}

/* ---- operators ---------------------------------------------------------- */

/* Is k a binary kind (arithmetic, comparison, and/or)? */
static int is_binary_kind(tvm_expr_kind k) {
  return (k >= TVM_ADD && k <= TVM_GE) || k == TVM_AND || k == TVM_OR;
}

/* a <k> b for any binary kind, after unifying the operand types.
 * Arithmetic keeps the operand type; comparisons give bool (with the
 * operands' lanes); and/or need bool operands. */
tvm_expr *tvm_binary(tvm_ctx *c, tvm_expr_kind k, tvm_expr *a, tvm_expr *b) {
  if (!a || !b) return NULL;
  const char *what = tvm_expr_kind_name(k);
  if (!is_binary_kind(k))
    return ir_fail(c, "tvm_binary: '%s' is not a binary operator", what);
  if (!unify(c, &a, &b, what)) return NULL;
  tvm_dtype t = a->dtype;
  char b1[32];
  if (tvm_dtype_is_handle(t) && k != TVM_EQ && k != TVM_NE)
    return ir_fail(c, "%s: operands are handles", what);
  if (k >= TVM_EQ && k <= TVM_GE) {
    t = tvm_dtype_with_lanes(TVM_BOOL, a->dtype.lanes);
  } else if (k == TVM_AND || k == TVM_OR) {
    if (!tvm_dtype_is_bool(t))
      return ir_fail(c, "%s: operands must be bool, not %s", what,
                       tvm_dtype_str(t, b1));
  }
  tvm_expr *e = ir_expr_new(c, k, t);
  if (!e) return NULL;
  e->u.bin.a = a;
  e->u.bin.b = b;
  return e;
}

tvm_expr *tvm_add(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_ADD, a, b); }
tvm_expr *tvm_sub(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_SUB, a, b); }
tvm_expr *tvm_mul(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_MUL, a, b); }
tvm_expr *tvm_div(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_DIV, a, b); }
tvm_expr *tvm_mod(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_MOD, a, b); }
tvm_expr *tvm_floordiv(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_FLOORDIV, a, b); }
tvm_expr *tvm_floormod(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_FLOORMOD, a, b); }
tvm_expr *tvm_min(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_MIN, a, b); }
tvm_expr *tvm_max(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_MAX, a, b); }
tvm_expr *tvm_eq(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_EQ, a, b); }
tvm_expr *tvm_ne(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_NE, a, b); }
tvm_expr *tvm_lt(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_LT, a, b); }
tvm_expr *tvm_le(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_LE, a, b); }
tvm_expr *tvm_gt(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_GT, a, b); }
tvm_expr *tvm_ge(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_GE, a, b); }
tvm_expr *tvm_and(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_AND, a, b); }
tvm_expr *tvm_or(tvm_ctx *c, tvm_expr *a, tvm_expr *b) { return tvm_binary(c, TVM_OR, a, b); }

/* Logical not of a bool expression. */
tvm_expr *tvm_not(tvm_ctx *c, tvm_expr *a) {
  char b1[32];
  if (!a) return NULL;
  if (!tvm_dtype_is_bool(a->dtype))
    return ir_fail(c, "not: operand must be bool, not %s",
                     tvm_dtype_str(a->dtype, b1));
  tvm_expr *e = ir_expr_new(c, TVM_NOT, a->dtype);
  if (e) e->u.un.a = a;
  return e;
}

/* cond ? t : f.  t and f are unified; cond must be bool, scalar or with the
 * lanes of the result (a vector cond broadcasts scalar t and f). */
tvm_expr *tvm_select(tvm_ctx *c, tvm_expr *cond, tvm_expr *t, tvm_expr *f) {
  char b1[32];
  if (!cond || !t || !f) return NULL;
  if (!tvm_dtype_is_bool(cond->dtype))
    return ir_fail(c, "select: condition must be bool, not %s",
                     tvm_dtype_str(cond->dtype, b1));
  if (!unify(c, &t, &f, "select")) return NULL;
  int lc = cond->dtype.lanes, lt = t->dtype.lanes;
  if (lc > 1 && lt == 1) {
    t = tvm_broadcast(c, t, lc);
    f = tvm_broadcast(c, f, lc);
    if (!t || !f) return NULL;
  } else if (lc > 1 && lc != lt) {
    return ir_fail(c, "select: condition has %d lanes, values %d", lc, lt);
  }
  tvm_expr *e = ir_expr_new(c, TVM_SELECT, t->dtype);
  if (!e) return NULL;
  e->u.sel.cond = cond;
  e->u.sel.t = t;
  e->u.sel.f = f;
  return e;
}

/* Can the scalar constant s be folded into a constant of type t?  Not for
 * handles, nor for floats outside the 64-bit integer range. */
static int can_fold(tvm_dtype t, const tvm_expr *s) {
  if (tvm_dtype_is_handle(t) || tvm_dtype_is_handle(s->dtype)) return 0;
  if (s->kind == TVM_FLOAT && !tvm_dtype_is_float(t) && !tvm_dtype_is_bool(t))
    return s->u.fval > -9.2e18 && s->u.fval < 9.2e18;
  return 1;
}

/* The scalar constant s folded to type t (scalar), given can_fold. */
static tvm_expr *fold_cast(tvm_ctx *c, tvm_dtype t, const tvm_expr *s) {
  if (s->kind == TVM_INT) {
    if (tvm_dtype_is_float(t)) {
      double v = s->dtype.code == kDLUInt && s->dtype.bits == 64
                     ? (double)(uint64_t)s->u.ival
                     : (double)s->u.ival;
      return tvm_fconst(c, t, v);
    }
    return tvm_const(c, t, s->u.ival);
  }
  if (tvm_dtype_is_float(t)) return tvm_fconst(c, t, s->u.fval);
  if (tvm_dtype_is_bool(t)) return tvm_const(c, t, s->u.fval != 0.0);
  return tvm_const(c, t, (int64_t)s->u.fval);
}

/* v converted to t.  Same type: v itself.  A scalar cast to a vector type
 * is cast then broadcast.  Constants (and broadcasts of constants) fold.
 * Vectors of different lanes are refused. */
tvm_expr *tvm_cast(tvm_ctx *c, tvm_dtype t, tvm_expr *v) {
  char b1[32], b2[32];
  if (!v) return NULL;
  if (tvm_dtype_eq(t, v->dtype)) return v;
  int lv = v->dtype.lanes;
  if (t.lanes != lv) {
    if (lv != 1)
      return ir_fail(c, "cast: cannot cast %s to %s (lanes differ)",
                       tvm_dtype_str(v->dtype, b1), tvm_dtype_str(t, b2));
    return tvm_broadcast(c, tvm_cast(c, tvm_dtype_element(t), v), t.lanes);
  }
  if ((v->kind == TVM_INT || v->kind == TVM_FLOAT) && can_fold(t, v))
    return fold_cast(c, t, v);
  if (v->kind == TVM_BROADCAST && is_const(v) &&
      can_fold(tvm_dtype_element(t), v->u.bcast.value))
    return tvm_broadcast(
        c, fold_cast(c, tvm_dtype_element(t), v->u.bcast.value), t.lanes);
  tvm_expr *e = ir_expr_new(c, TVM_CAST, t);
  if (e) e->u.un.a = v;
  return e;
}

/* A call node; args are copied into the arena. */
static tvm_expr *make_call(tvm_ctx *c, tvm_dtype t, tvm_intrin op,
                           const char *name, tvm_expr **args, int nargs) {
  tvm_expr **a;
  if (!ir_copy_exprs(c, &a, args, nargs)) {
    if (nargs < 0 || (nargs > 0 && !args))
      return ir_fail(c, "call %s: bad argument list", name);
    return NULL;
  }
  tvm_expr *e = ir_expr_new(c, TVM_CALL, t);
  if (!e) return NULL;
  e->u.call.op = op;
  e->u.call.name = name;
  e->u.call.args = a;
  e->u.call.nargs = nargs;
  return e;
}

/* A call of intrinsic op with result type t. */
tvm_expr *tvm_call(tvm_ctx *c, tvm_dtype t, tvm_intrin op, tvm_expr **args,
                   int nargs) {
  if (op <= TVM_INTRIN_EXTERN || op >= TVM_INTRIN_COUNT)
    return ir_fail(c, "tvm_call: %d is not an intrinsic (use "
                        "tvm_call_extern for C functions)", (int)op);
  return make_call(c, t, op, tvm_intrin_name(op), args, nargs);
}

/* A call of the C-ABI function name (copied) with result type t. */
tvm_expr *tvm_call_extern(tvm_ctx *c, tvm_dtype t, const char *name,
                          tvm_expr **args, int nargs) {
  if (!name || !*name) return ir_fail(c, "tvm_call_extern: empty name");
  const char *n = tvm_ctx_strdup(c, name);
  if (!n) return NULL;
  return make_call(c, t, TVM_INTRIN_EXTERN, n, args, nargs);
}

/* op(v) with v's type. */
tvm_expr *tvm_math(tvm_ctx *c, tvm_intrin op, tvm_expr *v) {
  if (!v) return NULL;
  return tvm_call(c, v->dtype, op, &v, 1);
}

/* buffer[index] of element type t.  A vector index (ramp) with a scalar t
 * gives a vector load of the index's lanes; otherwise the lanes of t and
 * of the index must agree.  pred (optional) masks lanes. */
tvm_expr *tvm_load(tvm_ctx *c, tvm_dtype t, tvm_expr *buffer, tvm_expr *index,
                   tvm_expr *pred) {
  char b1[32], b2[32];
  if (!buffer || !index) return NULL;
  if (tvm_dtype_is_float(index->dtype) || tvm_dtype_is_handle(index->dtype))
    return ir_fail(c, "load: index must be an integer, not %s",
                     tvm_dtype_str(index->dtype, b1));
  int li = index->dtype.lanes;
  if (t.lanes == 1 && li > 1) t.lanes = (uint16_t)li;
  else if (t.lanes != li)
    return ir_fail(c, "load: a %s value needs an index of %d lanes, not %s",
                     tvm_dtype_str(t, b1), t.lanes,
                     tvm_dtype_str(index->dtype, b2));
  tvm_expr *e = ir_expr_new(c, TVM_LOAD, t);
  if (!e) return NULL;
  e->u.load.buffer = buffer;
  e->u.load.index = index;
  e->u.load.pred = pred;
  return e;
}

/* base + i*stride for i in [0, lanes): base and stride are scalars of one
 * type (unified).  lanes == 1 returns base itself. */
tvm_expr *tvm_ramp(tvm_ctx *c, tvm_expr *base, tvm_expr *stride, int lanes) {
  if (!base || !stride) return NULL;
  if (lanes < 1 || lanes > 65535)
    return ir_fail(c, "ramp: %d lanes is out of range", lanes);
  if (base->dtype.lanes != 1 || stride->dtype.lanes != 1)
    return ir_fail(c, "ramp: base and stride must be scalars");
  if (!unify(c, &base, &stride, "ramp")) return NULL;
  if (lanes == 1) return base;
  tvm_expr *e = ir_expr_new(c, TVM_RAMP,
                              tvm_dtype_with_lanes(base->dtype, lanes));
  if (!e) return NULL;
  e->u.ramp.base = base;
  e->u.ramp.stride = stride;
  e->u.ramp.lanes = lanes;
  return e;
}

/* The scalar v repeated lanes times; lanes == 1 returns v. */
tvm_expr *tvm_broadcast(tvm_ctx *c, tvm_expr *v, int lanes) {
  char b1[32];
  if (!v) return NULL;
  if (lanes < 1 || lanes > 65535)
    return ir_fail(c, "broadcast: %d lanes is out of range", lanes);
  if (v->dtype.lanes != 1)
    return ir_fail(c, "broadcast: value must be a scalar, not %s",
                     tvm_dtype_str(v->dtype, b1));
  if (lanes == 1) return v;
  tvm_expr *e = ir_expr_new(c, TVM_BROADCAST,
                              tvm_dtype_with_lanes(v->dtype, lanes));
  if (!e) return NULL;
  e->u.bcast.value = v;
  e->u.bcast.lanes = lanes;
  return e;
}

/* Converts value to the type of var when it is a constant; checks that
 * the types agree.  NULL with a diagnostic on mismatch. */
tvm_expr *ir_bind_value(tvm_ctx *c, tvm_expr *var, tvm_expr *value,
                          const char *what) {
  char b1[32], b2[32];
  if (var->kind != TVM_VAR) return ir_fail(c, "%s: not a variable", what);
  if (tvm_dtype_eq(var->dtype, value->dtype)) return value;
  if (value->dtype.lanes == var->dtype.lanes && is_const(value))
    return convert_const(c, value, tvm_dtype_element(var->dtype));
  return ir_fail(c, "%s: %s is %s but its value is %s", what,
                   var->u.var.name, tvm_dtype_str(var->dtype, b1),
                   tvm_dtype_str(value->dtype, b2));
}

/* let var = value in body; value is converted when it is a constant. */
tvm_expr *tvm_let(tvm_ctx *c, tvm_expr *var, tvm_expr *value, tvm_expr *body) {
  if (!var || !value || !body) return NULL;
  value = ir_bind_value(c, var, value, "let");
  if (!value) return NULL;
  tvm_expr *e = ir_expr_new(c, TVM_LET, body->dtype);
  if (!e) return NULL;
  e->u.let.var = var;
  e->u.let.value = value;
  e->u.let.body = body;
  return e;
}

/* tensor[indices] (n must equal the tensor's rank); the indices are
 * copied into the arena. */
tvm_expr *tvm_tread(tvm_ctx *c, struct tvm_tensor *t, tvm_expr **indices,
                    int n) {
  if (!t) return NULL;
  if (n != t->ndim)
    return ir_fail(c, "reading tensor %s with %d indices; it has %d "
                        "dimensions", t->name, n, t->ndim);
  tvm_expr **idx;
  if (!ir_copy_exprs(c, &idx, indices, n)) return NULL;
  for (int i = 0; i < n; i++)
    if (tvm_dtype_is_float(idx[i]->dtype))
      return ir_fail(c, "reading tensor %s: index %d is a float", t->name, i);
  tvm_expr *e = ir_expr_new(c, TVM_TREAD, t->dtype);
  if (!e) return NULL;
  e->u.tread.tensor = t;
  e->u.tread.indices = idx;
  e->u.tread.n = n;
  return e;
}
