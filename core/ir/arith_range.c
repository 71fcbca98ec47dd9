/*
 * core/ir/arith_range.c - symbolic interval analysis (tvm_eval_range), the
 * arithmetic bound inference is built on.
 *
 * Each variable that has a range in the bounds is relaxed to that range,
 * taken as it is: variables inside the range expressions are not relaxed
 * again (for i in [io*4, io*4 + 4) the range of i*8 + j is
 * [io*32, io*32 + 32) even when io has a range too).  Every other variable
 * stays symbolic.  The expression is simplified first, so that affine
 * expressions (each variable in one term) get exact ranges.  Where the
 * symbolic rules do not apply, the constant interval (which does follow
 * ranges transitively) is used; when that is unbounded too the result is
 * {NULL, NULL}.
 */
#include <string.h>

#include "arith_int.h"

/* Inclusive symbolic interval; NULL sides mean unknown. */
typedef struct sym_ival {
  tvm_expr *lo, *hi;
} sym_ival;

typedef struct uses_ranged {
  arith_env *env;
  int found;
} uses_ranged;

/* Visitor hook: notes a variable that has a range. */
static int ranged_hook(tvm_visitor *v, const tvm_expr *e) {
  uses_ranged *u = v->data;
  tvm_expr *min, *extent;
  if (u->found) return 1;
  if (e->kind == TVM_VAR && arith_env_lookup(u->env, e, &min, &extent))
    u->found = 1;
  return 0;
}

/* Does e use a variable that has a range? */
static int has_ranged_var(arith_env *env, const tvm_expr *e) {
  tvm_visitor v;
  uses_ranged u;
  u.env = env;
  u.found = 0;
  memset(&v, 0, sizeof v);
  v.expr = ranged_hook;
  v.data = &u;
  tvm_visit_expr(&v, e);
  return u.found;
}

/* Builds the binary node k(a, b), NULL-safe (simplified later). */
static tvm_expr *B(arith_env *env, tvm_expr_kind k, tvm_expr *a, tvm_expr *b) {
  if (!a || !b) return NULL;
  return tvm_binary(env->ctx, k, a, b);
}

/* A scalar constant of the element type of t. */
static tvm_expr *K(arith_env *env, tvm_dtype t, int64_t v) {
  return tvm_const(env->ctx, tvm_dtype_element(t), v);
}

/* Does e simplify to the constant 0 (for every value of its variables)? */
static int is_zero_after_simplify(arith_env *env, tvm_expr *e) {
  int64_t v;
  if (!e) return 0;
  e = arith_simplify(env, e);
  return e && e->kind == TVM_INT && tvm_is_const_int(e, &v) && v == 0;
}

/* Constant interval fallback. */
static int const_fallback(arith_env *env, tvm_expr *e, sym_ival *out) {
  arith_ival r = arith_interval(env, e);
  if (!arith_ival_finite(r)) return 0;
  /* a range wider than the type (no-overflow arithmetic) has no constant */
  if (!arith_fits(e->dtype, r.lo) || !arith_fits(e->dtype, r.hi)) return 0;
  out->lo = K(env, e->dtype, r.lo);
  out->hi = K(env, e->dtype, r.hi);
  return out->lo && out->hi;
}

/* Sign of a constant, or 0 with *ok = 0 for non-constants. */
static int const_of(const tvm_expr *e, int64_t *v) {
  if (e && e->kind == TVM_BROADCAST) e = e->u.bcast.value;
  return e && e->kind == TVM_INT && e->dtype.lanes == 1 && tvm_is_const_int(e, v);
}

/* The symbolic interval of e into *out; 0 when unknown.  See the file
 * comment for which variables are relaxed. */
static int sym(arith_env *env, tvm_expr *e, sym_ival *out, int depth);

/* k * [lo, hi] for a constant k. */
static void scale(arith_env *env, sym_ival *x, int64_t k, tvm_dtype t) {
  tvm_expr *kk = K(env, t, k), *lo, *hi;
  lo = B(env, TVM_MUL, x->lo, kk);
  hi = B(env, TVM_MUL, x->hi, kk);
  if (k >= 0) {
    x->lo = lo;
    x->hi = hi;
  } else {
    x->lo = hi;
    x->hi = lo;
  }
}

/* The symbolic interval of e into *out; 0 when unknown.  See the file
 * comment for which variables are relaxed. */
static int sym(arith_env *env, tvm_expr *e, sym_ival *out, int depth) {
  sym_ival a, b;
  tvm_expr *min, *extent;
  int64_t k;
  tvm_dtype t = e->dtype;
  if (depth > 64) return const_fallback(env, e, out);
  if (e->kind == TVM_VAR && arith_env_lookup(env, e, &min, &extent)) {
    out->lo = min;
    out->hi = B(env, TVM_SUB, B(env, TVM_ADD, min, extent), K(env, t, 1));
    return out->lo && out->hi;
  }
  if (e->dtype.lanes == 1 && !has_ranged_var(env, e)) {
    out->lo = out->hi = e;
    return 1;
  }
  if (!tvm_dtype_is_int(t)) return 0;
  switch (e->kind) {
  case TVM_ADD:
  case TVM_SUB:
    if (!sym(env, e->u.bin.a, &a, depth + 1) || !sym(env, e->u.bin.b, &b, depth + 1))
      return const_fallback(env, e, out);
    if (e->kind == TVM_ADD) {
      out->lo = B(env, TVM_ADD, a.lo, b.lo);
      out->hi = B(env, TVM_ADD, a.hi, b.hi);
    } else {
      out->lo = B(env, TVM_SUB, a.lo, b.hi);
      out->hi = B(env, TVM_SUB, a.hi, b.lo);
    }
    return out->lo && out->hi;
  case TVM_MUL:
    if (const_of(e->u.bin.b, &k) && sym(env, e->u.bin.a, &a, depth + 1)) {
      scale(env, &a, k, t);
      *out = a;
      return out->lo && out->hi;
    }
    if (const_of(e->u.bin.a, &k) && sym(env, e->u.bin.b, &b, depth + 1)) {
      scale(env, &b, k, t);
      *out = b;
      return out->lo && out->hi;
    }
    return const_fallback(env, e, out);
  case TVM_FLOORDIV:
  case TVM_DIV:
  case TVM_FLOORMOD:
  case TVM_MOD: {
    int isdiv = e->kind == TVM_FLOORDIV || e->kind == TVM_DIV;
    int floor = e->kind == TVM_FLOORDIV || e->kind == TVM_FLOORMOD;
    tvm_expr *kk;
    if (!const_of(e->u.bin.b, &k) || k <= 0 || !sym(env, e->u.bin.a, &a, depth + 1))
      return const_fallback(env, e, out);
    if (!floor && arith_interval(env, e->u.bin.a).lo < 0)
      return const_fallback(env, e, out);
    kk = K(env, t, k);
    if (isdiv) {
      out->lo = B(env, TVM_FLOORDIV, a.lo, kk);
      out->hi = B(env, TVM_FLOORDIV, a.hi, kk);
      return out->lo && out->hi;
    }
    if (is_zero_after_simplify(
            env, B(env, TVM_SUB, B(env, TVM_FLOORDIV, a.hi, kk),
                   B(env, TVM_FLOORDIV, a.lo, kk)))) {
      out->lo = B(env, TVM_FLOORMOD, a.lo, kk);
      out->hi = B(env, TVM_FLOORMOD, a.hi, kk);
      return out->lo && out->hi;
    }
    return const_fallback(env, e, out);
  }
  case TVM_MIN:
  case TVM_MAX:
    if (!sym(env, e->u.bin.a, &a, depth + 1) || !sym(env, e->u.bin.b, &b, depth + 1))
      return const_fallback(env, e, out);
    out->lo = B(env, e->kind, a.lo, b.lo);
    out->hi = B(env, e->kind, a.hi, b.hi);
    return out->lo && out->hi;
  case TVM_SELECT:
    if (!sym(env, e->u.sel.t, &a, depth + 1) || !sym(env, e->u.sel.f, &b, depth + 1))
      return const_fallback(env, e, out);
    out->lo = B(env, TVM_MIN, a.lo, b.lo);
    out->hi = B(env, TVM_MAX, a.hi, b.hi);
    return out->lo && out->hi;
  case TVM_CAST: {
    tvm_dtype st = e->u.un.a->dtype;
    int widening = (st.code == kDLInt && t.code == kDLInt && t.bits >= st.bits) ||
                   (st.code == kDLUInt && t.code == kDLInt && t.bits > st.bits);
    if (!widening || !sym(env, e->u.un.a, &a, depth + 1))
      return const_fallback(env, e, out);
    out->lo = tvm_cast(env->ctx, tvm_dtype_element(t), a.lo);
    out->hi = tvm_cast(env->ctx, tvm_dtype_element(t), a.hi);
    return out->lo && out->hi;
  }
  case TVM_RAMP: {
    int64_t span;
    if (!const_of(e->u.ramp.stride, &k) || !arith_mul(k, e->u.ramp.lanes - 1, &span) ||
        !sym(env, e->u.ramp.base, &a, depth + 1))
      return const_fallback(env, e, out);
    out->lo = span < 0 ? B(env, TVM_ADD, a.lo, K(env, t, span)) : a.lo;
    out->hi = span > 0 ? B(env, TVM_ADD, a.hi, K(env, t, span)) : a.hi;
    return out->lo && out->hi;
  }
  case TVM_BROADCAST:
    return sym(env, e->u.bcast.value, out, depth + 1);
  default:
    return const_fallback(env, e, out);
  }
}

/* ---- symbolic proofs for the simplifier --------------------------------------- */

typedef struct sym_ranged {
  arith_env *env;
  int found;
} sym_ranged;

/* Visitor hook: notes a variable whose range is not constant. */
static int symbolic_hook(tvm_visitor *v, const tvm_expr *e) {
  sym_ranged *u = v->data;
  tvm_expr *min, *extent;
  if (u->found) return 1;
  if (e->kind == TVM_VAR && arith_env_lookup(u->env, e, &min, &extent) &&
      (min->kind != TVM_INT || extent->kind != TVM_INT))
    u->found = 1;
  return 0;
}

/* Interval of a scalar integer e (already simplified) through its
 * symbolic range: each ranged variable is relaxed to its range, the bounds
 * are simplified, and their constant intervals taken.  This proves i < n
 * for i in [0, n).  Only tried when a variable of e has a non-constant
 * range; costs a few simplifications, so it is budgeted (see arith_env). */
arith_ival arith_sym_interval(arith_env *env, tvm_expr *e) {
  arith_ival r = arith_ival_make(ARITH_NEG_INF, ARITH_POS_INF);
  tvm_visitor v;
  sym_ranged u;
  sym_ival s;
  if (!e || e->dtype.lanes != 1 || !tvm_dtype_is_int(e->dtype) || env->budget < 8 ||
      env->in_sym)
    return r;
  u.env = env;
  u.found = 0;
  memset(&v, 0, sizeof v);
  v.expr = symbolic_hook;
  v.data = &u;
  tvm_visit_expr(&v, e);
  if (!u.found) return r;
  env->budget -= 8;
  env->in_sym = 1; /* one level: nested proofs would cost exponential time */
  if (sym(env, e, &s, 0) && s.lo && s.hi) {
    r.lo = arith_interval(env, arith_simplify(env, s.lo)).lo;
    r.hi = arith_interval(env, arith_simplify(env, s.hi)).hi;
  }
  env->in_sym = 0;
  env->budget += 8;
  return r;
}

/* See tvm/ir.h.  The result's min is simplified; its extent is the
 * simplified hi - min + 1.  {NULL, NULL} when the range is unbounded or
 * memory ran out. */
tvm_range tvm_eval_range(tvm_ctx *c, tvm_expr *e, const tvm_bounds *b) {
  tvm_range r = {NULL, NULL};
  arith_env env;
  sym_ival s;
  tvm_expr *x;
  if (!c || !e) return r;
  arith_env_init(&env, c, b);
  x = arith_simplify(&env, e);
  if (x && sym(&env, x, &s, 0) && s.lo && s.hi) {
    tvm_dtype t = tvm_dtype_element(x->dtype);
    r.min = arith_simplify(&env, s.lo);
    r.extent = arith_simplify(
        &env, B(&env, TVM_ADD, B(&env, TVM_SUB, s.hi, r.min), K(&env, t, 1)));
    if (!r.min || !r.extent) r.min = r.extent = NULL;
  }
  arith_env_free(&env);
  return r;
}
