/*
 * core/ir/simplify.c - the expression simplifier (tvm_simplify).
 *
 * Bottom-up: children are simplified first, then the node is rewritten by
 * rules that assume simplified children (rewrite()).  Rules: constant
 * folding of every operator and cast, the canonical affine form of integer
 * arithmetic (arith_affine.c, arith_sum.c), division rules (arith_divmod.c), min/max and
 * comparisons decided by interval analysis (arith_interval.c), logic and
 * select with known conditions, and lane-wise rules on ramp/broadcast.
 *
 * Nothing loops: a rule that builds a new node may rewrite it again, but
 * only env->budget levels deep.  When in doubt a rule leaves the node as it
 * is; no rule changes the value of an expression that does not overflow.
 */
#include <math.h>
#include <string.h>

#include "arith_int.h"

static tvm_expr *rewrite(arith_env *env, tvm_expr *e);

/* ---- small helpers ----------------------------------------------------------- */

/* A scalar integer constant, or a broadcast of one. */
static int const_val(const tvm_expr *e, int64_t *v) {
  if (!e) return 0;
  if (e->kind == TVM_BROADCAST) e = e->u.bcast.value;
  if (e->kind != TVM_INT || e->dtype.lanes != 1) return 0;
  *v = e->u.ival;
  return 1;
}

/* Integer (signed or unsigned) or bool element type. */
static int is_int_type(tvm_dtype t) {
  return t.code == kDLInt || t.code == kDLUInt;
}

/* A boolean (or 0/1) constant of the given lane count. */
static tvm_expr *const_bool(arith_env *env, int lanes, int v) {
  tvm_expr *k = tvm_const(env->ctx, TVM_BOOL, v ? 1 : 0);
  if (lanes > 1) k = tvm_broadcast(env->ctx, k, lanes);
  return k;
}

/* e with children a and b: e itself when they did not change. */
static tvm_expr *with_children(arith_env *env, tvm_expr *e, tvm_expr *a,
                               tvm_expr *b) {
  tvm_expr *r;
  if (a == e->u.bin.a && b == e->u.bin.b) return e;
  r = tvm_binary(env->ctx, e->kind, a, b);
  return r ? r : e;
}

/* Rewrites a node built from simplified children, one level deeper; past
 * the budget the node is returned as it is. */
tvm_expr *arith_rewrite(arith_env *env, tvm_expr *e) {
  tvm_expr *r;
  if (!e) return NULL;
  if (env->budget <= 0) return e;
  env->budget--;
  r = rewrite(env, e);
  env->budget++;
  return r;
}

/* Builds and rewrites the binary node k(a, b); NULL on out of memory. */
static tvm_expr *bin(arith_env *env, tvm_expr_kind k, tvm_expr *a,
                     tvm_expr *b) {
  return arith_rewrite(env, tvm_binary(env->ctx, k, a, b));
}

/* ---- constant folding ------------------------------------------------------------ */

/* Wraps v to an integer type of `bits` bits (two's complement). */
static int64_t wrap_int(tvm_dtype t, int64_t v) {
  uint64_t u = (uint64_t)v, mask;
  if (t.code == kDLUInt && t.bits == 1) return v != 0;
  if (t.bits >= 64) return v;
  mask = ((uint64_t)1 << t.bits) - 1;
  u &= mask;
  if (t.code == kDLInt && (u >> (t.bits - 1)) & 1) u |= ~mask;
  return (int64_t)u;
}

/* Rounds a double to the precision of float type t; 0 when t is not a
 * float type we can represent exactly here (only 32 and 64 bits). */
static int round_float(tvm_dtype t, double v, double *out) {
  if (t.code != kDLFloat) return 0;
  if (t.bits == 64) {
    *out = v;
    return 1;
  }
  if (t.bits == 32) {
    *out = (double)(float)v;
    return 1;
  }
  return 0;
}

/* Folds k(a, b) for integer constants of type t; NULL when it cannot (a
 * division by zero, an overflow, a value outside t). */
static tvm_expr *fold_int(arith_env *env, tvm_expr *e, int64_t x, int64_t y) {
  tvm_dtype t = e->u.bin.a->dtype;
  int64_t r = 0;
  int cmp = -1;
  if (t.code == kDLUInt && (x < 0 || y < 0)) return NULL; /* uint64 > 2^63 */
  switch (e->kind) {
  case TVM_ADD: if (!arith_add(x, y, &r)) return NULL; break;
  case TVM_SUB: if (!arith_sub(x, y, &r)) return NULL; break;
  case TVM_MUL: if (!arith_mul(x, y, &r)) return NULL; break;
  case TVM_DIV:
  case TVM_MOD:
  case TVM_FLOORDIV:
  case TVM_FLOORMOD:
    if (y == 0 || (x == INT64_MIN && y == -1)) return NULL;
    if (e->kind == TVM_DIV) r = x / y;
    else if (e->kind == TVM_MOD) r = x % y;
    else if (e->kind == TVM_FLOORDIV) r = arith_floordiv(x, y);
    else r = arith_floormod(x, y);
    break;
  case TVM_MIN: r = x < y ? x : y; break;
  case TVM_MAX: r = x > y ? x : y; break;
  case TVM_EQ: cmp = x == y; break;
  case TVM_NE: cmp = x != y; break;
  case TVM_LT: cmp = x < y; break;
  case TVM_LE: cmp = x <= y; break;
  case TVM_GT: cmp = x > y; break;
  case TVM_GE: cmp = x >= y; break;
  case TVM_AND: cmp = x != 0 && y != 0; break;
  case TVM_OR: cmp = x != 0 || y != 0; break;
  default: return NULL;
  }
  if (cmp >= 0) return tvm_const(env->ctx, e->dtype, cmp);
  if (!arith_fits(t, r)) return NULL;
  return tvm_const(env->ctx, e->dtype, r);
}

/* Folds k(a, b) for float constants; NULL when unsure (division by zero,
 * NaN operands of min/max, types other than float32/float64). */
static tvm_expr *fold_float(arith_env *env, tvm_expr *e, double x, double y) {
  tvm_dtype t = e->u.bin.a->dtype;
  double r, out;
  int cmp = -1;
  switch (e->kind) {
  case TVM_ADD: r = x + y; break;
  case TVM_SUB: r = x - y; break;
  case TVM_MUL: r = x * y; break;
  case TVM_DIV:
    if (y == 0) return NULL;
    r = x / y;
    break;
  case TVM_MIN:
  case TVM_MAX:
    if (isnan(x) || isnan(y)) return NULL;
    r = e->kind == TVM_MIN ? (x < y ? x : y) : (x > y ? x : y);
    break;
  case TVM_EQ: cmp = x == y; break;
  case TVM_NE: cmp = x != y; break;
  case TVM_LT: cmp = x < y; break;
  case TVM_LE: cmp = x <= y; break;
  case TVM_GT: cmp = x > y; break;
  case TVM_GE: cmp = x >= y; break;
  default: return NULL;
  }
  if (cmp >= 0) return tvm_const(env->ctx, e->dtype, cmp);
  if (!round_float(t, r, &out)) return NULL;
  return tvm_fconst(env->ctx, e->dtype, out);
}

/* Folds casts of constants.  Float to int only when the value is in range;
 * int to int wraps like a C conversion. */
static tvm_expr *fold_cast(arith_env *env, tvm_dtype t, const tvm_expr *v) {
  double d;
  if (t.lanes != 1 || v->dtype.lanes != 1) return NULL;
  if (v->kind == TVM_INT) {
    int64_t x = v->u.ival;
    if (t.code == kDLInt || t.code == kDLUInt)
      return tvm_const(env->ctx, t, wrap_int(t, x));
    if (t.code == kDLFloat) {
      double src = (v->dtype.code == kDLUInt && x < 0) ? (double)(uint64_t)x
                                                       : (double)x;
      if (!round_float(t, src, &d)) return NULL;
      return tvm_fconst(env->ctx, t, d);
    }
    return NULL;
  }
  if (v->kind == TVM_FLOAT) {
    double x = v->u.fval;
    if (t.code == kDLFloat) {
      if (!round_float(t, x, &d)) return NULL;
      return tvm_fconst(env->ctx, t, d);
    }
    if (t.code == kDLUInt && t.bits == 1) return tvm_const(env->ctx, t, x != 0);
    if (t.code == kDLInt || t.code == kDLUInt) {
      arith_ival r = arith_dtype_range(t);
      double tx = trunc(x);
      if (isnan(x) || tx < -9.2e18 || tx > 9.2e18) return NULL;
      if ((int64_t)tx < r.lo || (r.hi != ARITH_POS_INF && (int64_t)tx > r.hi))
        return NULL;
      return tvm_const(env->ctx, t, (int64_t)tx);
    }
  }
  return NULL;
}

/* ---- integer arithmetic: add, sub, mul (the sums are in arith_sum.c) -------------- */

/* Identities that hold in wrapping arithmetic too (narrow and unsigned
 * integers). */
static tvm_expr *rw_int_identity(arith_env *env, tvm_expr *e) {
  tvm_expr *a = e->u.bin.a, *b = e->u.bin.b;
  int64_t v;
  switch (e->kind) {
  case TVM_ADD:
    if (const_val(b, &v) && v == 0) return a;
    if (const_val(a, &v) && v == 0) return b;
    break;
  case TVM_SUB:
    if (const_val(b, &v) && v == 0) return a;
    if (tvm_expr_equal(a, b)) return tvm_const(env->ctx, e->dtype, 0);
    break;
  case TVM_MUL:
    if (const_val(b, &v) && v == 1) return a;
    if (const_val(a, &v) && v == 1) return b;
    if ((const_val(b, &v) && v == 0) || (const_val(a, &v) && v == 0))
      return tvm_const(env->ctx, e->dtype, 0);
    break;
  default: break;
  }
  return e;
}

/* Float identities that are exact in IEEE arithmetic (x + 0 is not: it
 * turns -0 into +0). */
static tvm_expr *rw_float_identity(tvm_expr *e) {
  tvm_expr *a = e->u.bin.a, *b = e->u.bin.b;
  int bone = b->kind == TVM_FLOAT && b->u.fval == 1.0;
  switch (e->kind) {
  case TVM_MUL:
    if (bone) return a;
    if (a->kind == TVM_FLOAT && a->u.fval == 1.0) return b;
    break;
  case TVM_DIV:
    if (bone) return a;
    break;
  case TVM_SUB:
    if (b->kind == TVM_FLOAT && b->u.fval == 0.0 && !signbit(b->u.fval))
      return a;
    break;
  case TVM_MIN:
  case TVM_MAX:
    if (tvm_expr_equal(a, b)) return a;
    break;
  default: break;
  }
  return e;
}

/* ---- min, max, comparisons ----------------------------------------------------------- */

/* An interval of a - b (every lane), as tight as the simplifier can make
 * it: through the affine form for scalars (and symbolic variable ranges
 * when constants do not decide), through a simplified vector difference
 * for ramps and broadcasts. */
static arith_ival diff_interval(arith_env *env, tvm_expr *a, tvm_expr *b) {
  arith_affine A, B;
  arith_ival r = arith_ival_add(arith_interval(env, a),
                                arith_ival_neg(arith_interval(env, b)));
  if (a->dtype.lanes == 1 && arith_affine_of(a, &A) && arith_affine_of(b, &B) &&
      arith_affine_add(&A, &B, -1)) {
    arith_ival d = arith_affine_interval(env, &A);
    if (d.lo > r.lo) r.lo = d.lo;
    if (d.hi < r.hi) r.hi = d.hi;
    if (!(r.lo > 0 || r.hi < 0 || (r.lo == 0 && r.hi == 0))) {
      /* undecided: try the symbolic ranges (i - n < 0 for i in [0, n)) */
      tvm_expr *de = arith_affine_to_expr(env->ctx, &A);
      if (de) {
        d = arith_sym_interval(env, de);
        if (d.lo > r.lo) r.lo = d.lo;
        if (d.hi < r.hi) r.hi = d.hi;
      }
    }
  } else if (a->dtype.lanes > 1 && arith_affine_type(a->dtype)) {
    tvm_expr *d = bin(env, TVM_SUB, a, b);
    if (d) {
      arith_ival di = arith_interval(env, d);
      if (di.lo > r.lo) r.lo = di.lo;
      if (di.hi < r.hi) r.hi = di.hi;
    }
  }
  return r;
}

/* min/max of integers: decided when the sign of a - b is known; constants
 * go right, and nested constants combine: min(min(x, 3), 5) -> min(x, 3). */
static tvm_expr *rw_minmax(arith_env *env, tvm_expr *e) {
  tvm_expr *a = e->u.bin.a, *b = e->u.bin.b;
  int ismin = e->kind == TVM_MIN;
  int64_t x, y;
  arith_ival d;
  if (tvm_expr_equal(a, b)) return a;
  d = diff_interval(env, a, b);
  if (ismin ? d.hi <= 0 : d.lo >= 0) return a;
  if (ismin ? d.lo >= 0 : d.hi <= 0) return b;
  if (const_val(a, &x) && !const_val(b, &y)) {
    tvm_expr *r = bin(env, e->kind, b, a);
    return r ? r : e;
  }
  if (a->kind == e->kind && const_val(b, &y) && const_val(a->u.bin.b, &x)) {
    tvm_expr *k = ismin ? (x < y ? a->u.bin.b : b) : (x > y ? a->u.bin.b : b);
    tvm_expr *r = tvm_binary(env->ctx, e->kind, a->u.bin.a, k);
    return r ? r : e;
  }
  return e;
}

/* Integer comparison decided by the interval of a - b; NULL if unknown. */
static tvm_expr *rw_compare(arith_env *env, tvm_expr *e) {
  tvm_expr *a = e->u.bin.a, *b = e->u.bin.b;
  int lanes = e->dtype.lanes, v = -1;
  arith_ival d;
  if (tvm_expr_equal(a, b)) {
    v = e->kind == TVM_EQ || e->kind == TVM_LE || e->kind == TVM_GE;
    return const_bool(env, lanes, v);
  }
  d = diff_interval(env, a, b);
  switch (e->kind) {
  case TVM_LT: v = d.hi < 0 ? 1 : d.lo >= 0 ? 0 : -1; break;
  case TVM_LE: v = d.hi <= 0 ? 1 : d.lo > 0 ? 0 : -1; break;
  case TVM_GT: v = d.lo > 0 ? 1 : d.hi <= 0 ? 0 : -1; break;
  case TVM_GE: v = d.lo >= 0 ? 1 : d.hi < 0 ? 0 : -1; break;
  case TVM_EQ:
    v = (d.lo == 0 && d.hi == 0) ? 1 : (d.lo > 0 || d.hi < 0) ? 0 : -1;
    break;
  case TVM_NE:
    v = (d.lo == 0 && d.hi == 0) ? 0 : (d.lo > 0 || d.hi < 0) ? 1 : -1;
    break;
  default: break;
  }
  if (v < 0) return e;
  return const_bool(env, lanes, v);
}

/* ---- logic ------------------------------------------------------------------------- */

/* && and || with a constant side, or two equal sides. */
static tvm_expr *rw_logic(arith_env *env, tvm_expr *e) {
  tvm_expr *a = e->u.bin.a, *b = e->u.bin.b;
  int64_t v;
  int isand = e->kind == TVM_AND;
  if (const_val(a, &v)) return (v != 0) == isand ? b : a;
  if (const_val(b, &v)) return (v != 0) == isand ? a : b;
  if (tvm_expr_equal(a, b)) return a;
  return e;
}

/* The negation of comparison kind k. */
static tvm_expr_kind negate_cmp(tvm_expr_kind k) {
  switch (k) {
  case TVM_LT: return TVM_GE;
  case TVM_LE: return TVM_GT;
  case TVM_GT: return TVM_LE;
  case TVM_GE: return TVM_LT;
  case TVM_EQ: return TVM_NE;
  default: return TVM_EQ;
  }
}

/* !c: constants fold, !!x -> x, and a negated integer comparison (or
 * == / != of anything) becomes the opposite comparison. */
static tvm_expr *rw_not(arith_env *env, tvm_expr *e) {
  tvm_expr *a = e->u.un.a, *r;
  int64_t v;
  if (a->kind == TVM_INT && a->dtype.lanes == 1)
    return tvm_const(env->ctx, e->dtype, a->u.ival == 0);
  if (const_val(a, &v)) return const_bool(env, e->dtype.lanes, v == 0);
  if (a->kind == TVM_NOT) return a->u.un.a;
  if (a->kind >= TVM_EQ && a->kind <= TVM_GE &&
      (a->kind == TVM_EQ || a->kind == TVM_NE ||
       is_int_type(a->u.bin.a->dtype))) {
    r = bin(env, negate_cmp(a->kind), a->u.bin.a, a->u.bin.b);
    return r ? r : e;
  }
  return e;
}

/* select with a known condition picks its side; equal sides collapse. */
static tvm_expr *rw_select(arith_env *env, tvm_expr *e) {
  int64_t v;
  if (const_val(e->u.sel.cond, &v)) return v ? e->u.sel.t : e->u.sel.f;
  if (tvm_expr_equal(e->u.sel.t, e->u.sel.f)) return e->u.sel.t;
  return e;
}

/* Casts: to the same type vanish, of constants fold, of broadcasts move
 * inside. */
static tvm_expr *rw_cast(arith_env *env, tvm_expr *e) {
  tvm_expr *a = e->u.un.a, *r;
  if (tvm_dtype_eq(e->dtype, a->dtype)) return a;
  r = fold_cast(env, e->dtype, a);
  if (r) return r;
  if (a->kind == TVM_BROADCAST && e->dtype.lanes == a->dtype.lanes) {
    tvm_expr *s = arith_rewrite(env, tvm_cast(env->ctx, tvm_dtype_element(e->dtype),
                                      a->u.bcast.value));
    r = s ? tvm_broadcast(env->ctx, s, e->dtype.lanes) : NULL;
    return r ? r : e;
  }
  return e;
}

/* ---- vectors --------------------------------------------------------------------------- */

/* Lane-wise rules: op(broadcast, broadcast) -> broadcast(op); ramp
 * arithmetic with broadcasts and ramps.  NULL when none applies. */
static tvm_expr *rw_vector(arith_env *env, tvm_expr *e) {
  tvm_expr *a = e->u.bin.a, *b = e->u.bin.b, *s, *t;
  int lanes = e->dtype.lanes;
  tvm_ctx *c = env->ctx;
  if (a->kind == TVM_BROADCAST && b->kind == TVM_BROADCAST &&
      a->u.bcast.lanes == lanes && b->u.bcast.lanes == lanes) {
    s = bin(env, e->kind, a->u.bcast.value, b->u.bcast.value);
    return s ? tvm_broadcast(c, s, lanes) : NULL;
  }
  if (a->kind != TVM_RAMP && b->kind != TVM_RAMP) return NULL;
  switch (e->kind) {
  case TVM_ADD:
  case TVM_SUB:
    if (a->kind == TVM_RAMP && b->kind == TVM_BROADCAST) {
      s = bin(env, e->kind, a->u.ramp.base, b->u.bcast.value);
      return s ? tvm_ramp(c, s, a->u.ramp.stride, lanes) : NULL;
    }
    if (a->kind == TVM_BROADCAST && b->kind == TVM_RAMP) {
      s = bin(env, e->kind, a->u.bcast.value, b->u.ramp.base);
      t = e->kind == TVM_ADD
              ? b->u.ramp.stride
              : bin(env, TVM_SUB, tvm_const(c, b->u.ramp.stride->dtype, 0),
                    b->u.ramp.stride);
      return s && t ? arith_rewrite(env, tvm_ramp(c, s, t, lanes)) : NULL;
    }
    if (a->kind == TVM_RAMP && b->kind == TVM_RAMP) {
      s = bin(env, e->kind, a->u.ramp.base, b->u.ramp.base);
      t = bin(env, e->kind, a->u.ramp.stride, b->u.ramp.stride);
      return s && t ? arith_rewrite(env, tvm_ramp(c, s, t, lanes)) : NULL;
    }
    return NULL;
  case TVM_MUL:
    if (a->kind == TVM_BROADCAST) {
      tvm_expr *x = a;
      a = b;
      b = x;
    }
    if (a->kind == TVM_RAMP && b->kind == TVM_BROADCAST) {
      s = bin(env, TVM_MUL, a->u.ramp.base, b->u.bcast.value);
      t = bin(env, TVM_MUL, a->u.ramp.stride, b->u.bcast.value);
      return s && t ? arith_rewrite(env, tvm_ramp(c, s, t, lanes)) : NULL;
    }
    return NULL;
  default:
    return NULL;
  }
}

/* ---- dispatch ---------------------------------------------------------------------------- */

/* Rules for a binary node whose children are simplified. */
static tvm_expr *rw_binary(arith_env *env, tvm_expr *e) {
  tvm_expr *a = e->u.bin.a, *b = e->u.bin.b, *r = NULL;
  tvm_dtype t = a->dtype;
  if (a->kind == TVM_INT && b->kind == TVM_INT && t.lanes == 1)
    r = fold_int(env, e, a->u.ival, b->u.ival);
  else if (a->kind == TVM_FLOAT && b->kind == TVM_FLOAT && t.lanes == 1)
    r = fold_float(env, e, a->u.fval, b->u.fval);
  if (r) return r;
  if (t.lanes > 1) {
    r = rw_vector(env, e);
    if (r) return r;
  }
  if (e->kind == TVM_AND || e->kind == TVM_OR) return rw_logic(env, e);
  if (t.code == kDLFloat) return rw_float_identity(e);
  if (!is_int_type(t)) return e;
  switch (e->kind) {
  case TVM_ADD:
  case TVM_SUB:
  case TVM_MUL:
    if (t.lanes == 1 && arith_affine_type(t)) return arith_simplify_sum(env, e);
    return rw_int_identity(env, e);
  case TVM_DIV:
  case TVM_MOD:
  case TVM_FLOORDIV:
  case TVM_FLOORMOD:
    r = arith_simplify_divmod(env, e);
    return r ? r : e;
  case TVM_MIN:
  case TVM_MAX:
    return rw_minmax(env, e);
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT: case TVM_GE:
    return rw_compare(env, e);
  default:
    return e;
  }
}

/* Rewrites e assuming its children are simplified; never NULL. */
static tvm_expr *rewrite(arith_env *env, tvm_expr *e) {
  tvm_expr *r = e;
  int64_t v;
  switch (e->kind) {
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_DIV: case TVM_MOD:
  case TVM_FLOORDIV: case TVM_FLOORMOD: case TVM_MIN: case TVM_MAX:
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE: case TVM_AND: case TVM_OR:
    r = rw_binary(env, e);
    break;
  case TVM_NOT: r = rw_not(env, e); break;
  case TVM_SELECT: r = rw_select(env, e); break;
  case TVM_CAST: r = rw_cast(env, e); break;
  case TVM_RAMP:
    if (const_val(e->u.ramp.stride, &v) && v == 0)
      r = tvm_broadcast(env->ctx, e->u.ramp.base, e->u.ramp.lanes);
    break;
  default: break;
  }
  return r ? r : e;
}

/* Mutator hook used for kinds without rules of their own (calls, loads,
 * tensor reads, reductions): simplifies each child. */
static tvm_expr *child_hook(tvm_mutator *m, tvm_expr *e) {
  return arith_simplify((arith_env *)m->data, e);
}

/* let x = v in body: constants and variables are substituted; otherwise
 * the body is simplified knowing x == v. */
static tvm_expr *simplify_let(arith_env *env, tvm_expr *e) {
  tvm_expr *val = arith_simplify(env, e->u.let.value), *body, *r;
  if (val->kind == TVM_INT || val->kind == TVM_FLOAT || val->kind == TVM_VAR) {
    tvm_ptrmap map;
    memset(&map, 0, sizeof map);
    if (tvm_ptrmap_put(&map, e->u.let.var, val) == TVM_OK) {
      body = tvm_substitute(env->ctx, e->u.let.body, &map);
      tvm_ptrmap_free(&map);
      if (body) return arith_simplify(env, body);
    }
    tvm_ptrmap_free(&map);
  }
  if (is_int_type(e->u.let.var->dtype) && e->u.let.var->dtype.lanes == 1) {
    arith_env_push(env, e->u.let.var, val,
                   tvm_const(env->ctx, e->u.let.var->dtype, 1));
    body = arith_simplify(env, e->u.let.body);
    arith_env_pop(env);
  } else {
    body = arith_simplify(env, e->u.let.body);
  }
  if (val == e->u.let.value && body == e->u.let.body) return e;
  r = tvm_let(env->ctx, e->u.let.var, val, body);
  return r ? r : e;
}

/* ---- sums --------------------------------------------------------------- */

#define CHAIN_MAX 32

/* The operands of the maximal chain of + and - of type t at e, each with
 * its sign, into leaf[] and sign[] (*n so far); 0 past CHAIN_MAX. */
static int chain_leaves(tvm_expr *e, tvm_dtype t, tvm_expr **leaf, int *sign,
                        int s, int *n) {
  if ((e->kind == TVM_ADD || e->kind == TVM_SUB) &&
      tvm_dtype_eq(e->dtype, t))
    return chain_leaves(e->u.bin.a, t, leaf, sign, s, n) &&
           chain_leaves(e->u.bin.b, t, leaf, sign,
                        e->kind == TVM_SUB ? -s : s, n);
  if (*n >= CHAIN_MAX) return 0;
  leaf[*n] = e;
  sign[*n] = s;
  (*n)++;
  return 1;
}

/* A sum of three or more operands (scalar, of an affine type) in one
 * step: the operands simplified, added into one affine form in their
 * order, divmod pairs merged and the form emitted once.  Rewriting each
 * + on the way up parsed and rebuilt every partial sum again (quadratic
 * in the operands: a flat index of five dimensions, each a sum); the
 * result is the one the top + gave (same terms in the same order).  NULL
 * where the chain is short or long or a step fails: the caller then
 * rewrites node by node. */
static tvm_expr *simplify_chain(arith_env *env, tvm_expr *e) {
  tvm_expr *leaf[CHAIN_MAX];
  int sign[CHAIN_MAX], n = 0;
  arith_affine A, B;
  if (!chain_leaves(e, e->dtype, leaf, sign, 1, &n) || n < 3) return NULL;
  arith_affine_const(&A, e->dtype, 0);
  for (int i = 0; i < n; i++) {
    tvm_expr *x = arith_simplify(env, leaf[i]);
    if (!x || !arith_affine_of(x, &B) || !arith_affine_add(&A, &B, sign[i]))
      return NULL;
  }
  if (!arith_affine_merge_divmod(&A)) return NULL;
  return arith_emit(env, &A);
}

/* See arith_int.h: children first, then rewrite(); a sum as one chain. */
tvm_expr *arith_simplify(arith_env *env, tvm_expr *e) {
  tvm_expr *a, *b, *c, *n = NULL;
  if (!e) return e;
  if ((e->kind == TVM_ADD || e->kind == TVM_SUB) && e->dtype.lanes == 1 &&
      arith_affine_type(e->dtype)) {
    tvm_expr *r = simplify_chain(env, e);
    if (r) return r;
  }
  switch (e->kind) {
  case TVM_INT: case TVM_FLOAT: case TVM_STR: case TVM_VAR:
    return e;
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_DIV: case TVM_MOD:
  case TVM_FLOORDIV: case TVM_FLOORMOD: case TVM_MIN: case TVM_MAX:
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE: case TVM_AND: case TVM_OR:
    a = arith_simplify(env, e->u.bin.a);
    b = arith_simplify(env, e->u.bin.b);
    n = with_children(env, e, a, b);
    break;
  case TVM_NOT:
  case TVM_CAST:
    a = arith_simplify(env, e->u.un.a);
    n = a == e->u.un.a ? e
        : e->kind == TVM_NOT ? tvm_not(env->ctx, a)
                             : tvm_cast(env->ctx, e->dtype, a);
    break;
  case TVM_SELECT:
    a = arith_simplify(env, e->u.sel.cond);
    b = arith_simplify(env, e->u.sel.t);
    c = arith_simplify(env, e->u.sel.f);
    n = (a == e->u.sel.cond && b == e->u.sel.t && c == e->u.sel.f)
            ? e : tvm_select(env->ctx, a, b, c);
    break;
  case TVM_RAMP:
    a = arith_simplify(env, e->u.ramp.base);
    b = arith_simplify(env, e->u.ramp.stride);
    n = (a == e->u.ramp.base && b == e->u.ramp.stride)
            ? e : tvm_ramp(env->ctx, a, b, e->u.ramp.lanes);
    break;
  case TVM_BROADCAST:
    a = arith_simplify(env, e->u.bcast.value);
    n = a == e->u.bcast.value ? e : tvm_broadcast(env->ctx, a, e->u.bcast.lanes);
    break;
  case TVM_LET:
    return simplify_let(env, e);
  case TVM_LOAD: {
    /* the predicate says which lanes are active: never simplified as if
     * some were not (arith_env.active_lanes) */
    int active = env->active_lanes;
    a = arith_simplify(env, e->u.load.index);
    env->active_lanes = 0;
    b = arith_simplify(env, e->u.load.pred);
    env->active_lanes = active;
    n = (a == e->u.load.index && b == e->u.load.pred)
            ? e : tvm_load(env->ctx, e->dtype, e->u.load.buffer, a, b);
    return n ? n : e; /* NULL: out of memory, ctx->failed is set */
  }
  default: {
    tvm_mutator m;
    memset(&m, 0, sizeof m);
    m.ctx = env->ctx;
    m.expr = child_hook;
    m.data = env;
    n = tvm_mutate_expr_children(&m, e);
    if (!n) return e;
    /* likely(constant) is just the constant */
    if (n->kind == TVM_CALL && n->u.call.op == TVM_INTRIN_LIKELY &&
        n->u.call.nargs == 1 && n->u.call.args[0]->kind == TVM_INT &&
        tvm_dtype_eq(n->u.call.args[0]->dtype, n->dtype))
      return n->u.call.args[0];
    return n;
  }
  }
  if (!n) return e; /* out of memory: ctx->failed is set */
  return rewrite(env, n);
}

/* Public entry: see tvm/ir.h. */
tvm_expr *tvm_simplify(tvm_ctx *c, tvm_expr *e, const tvm_bounds *b) {
  arith_env env;
  tvm_expr *r;
  if (!c || !e) return e;
  arith_env_init(&env, c, b);
  r = arith_simplify(&env, e);
  arith_env_free(&env);
  return r;
}
