/*
 * core/ir/arith_interval.c - constant interval analysis: known variable
 * ranges (tvm_bounds, and the scoped environment the simplifier keeps),
 * interval arithmetic with infinities, tvm_const_bounds and tvm_prove.
 *
 * Integer arithmetic of 32 and 64 bits is assumed not to overflow (index
 * arithmetic); narrower and unsigned types wrap, so an interval that leaves
 * their range is widened to the whole range of the type.
 */
#include <string.h>

#include "arith_int.h"

/* Variable ranges may refer to other variables; this bounds how deep the
 * analysis follows them (and breaks accidental cycles). */
#define MAX_VAR_DEPTH 12

/* ---- small helpers --------------------------------------------------------- */

/* Greatest common divisor of |a| and |b|; saturates on INT64_MIN. */
int64_t arith_gcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
  while (y != 0) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)x;
}

/* The full range of an integer or bool type; infinite sides where the type
 * reaches the int64 limits (int64, uint64). Other types: unbounded. */
arith_ival arith_dtype_range(tvm_dtype t) {
  if (t.code == kDLUInt && t.bits == 1) return arith_ival_make(0, 1);
  if (t.code == kDLInt && t.bits >= 1 && t.bits < 64)
    return arith_ival_make(-((int64_t)1 << (t.bits - 1)),
                           ((int64_t)1 << (t.bits - 1)) - 1);
  if (t.code == kDLUInt && t.bits < 63)
    return arith_ival_make(0, ((int64_t)1 << t.bits) - 1);
  if (t.code == kDLUInt) return arith_ival_make(0, ARITH_POS_INF);
  return arith_ival_make(ARITH_NEG_INF, ARITH_POS_INF);
}

/* Does v fit in the integer or bool type t (lanes ignored)? */
int arith_fits(tvm_dtype t, int64_t v) {
  arith_ival r;
  if (t.code != kDLInt && t.code != kDLUInt) return 0;
  r = arith_dtype_range(t);
  if (t.code == kDLUInt && t.bits == 64) return v >= 0;
  if (t.code == kDLInt && t.bits == 64) return 1;
  return v >= r.lo && v <= r.hi;
}

/* Signed ints of 32 or 64 bits get the canonical affine form. */
int arith_affine_type(tvm_dtype t) {
  return t.code == kDLInt && (t.bits == 32 || t.bits == 64);
}

/* ---- tvm_bounds ---------------------------------------------------------------- */

/* Records that var lies in [r->min, r->min + r->extent).  The bounds keep
 * a heap copy of the range struct (the expressions stay in their arena and
 * must outlive the bounds); setting a variable again replaces its range. */
tvm_status tvm_bounds_set(tvm_bounds *b, tvm_expr *var, tvm_range *r) {
  tvm_range *copy, *old = NULL;
  void *oldv = NULL;
  tvm_status st;
  if (!b || !var || !r || !r->min || !r->extent)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tvm_bounds_set: bounds, variable, min and extent "
                        "must all be non-NULL");
  if (var->kind != TVM_VAR)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tvm_bounds_set: the key must be a TVM_VAR, got %s",
                        tvm_expr_kind_name(var->kind));
  copy = tvm_malloc(sizeof *copy);
  if (!copy)
    return tvm_diag_set(TVM_ERR_NOMEM, "tvm_bounds_set: out of memory");
  *copy = *r;
  if (tvm_ptrmap_get(&b->map, var, &oldv)) old = oldv;
  st = tvm_ptrmap_put(&b->map, var, copy);
  if (st != TVM_OK) {
    tvm_free(copy);
    return st;
  }
  tvm_free(old);
  return TVM_OK;
}

/* Frees the range copies and the map; b may be reused afterwards. */
void tvm_bounds_free(tvm_bounds *b) {
  size_t i;
  if (!b) return;
  if (b->map.vals)
    for (i = 0; i < b->map.cap; i++)
      if (b->map.keys && b->map.keys[i]) tvm_free(b->map.vals[i]);
  tvm_ptrmap_free(&b->map);
  memset(&b->map, 0, sizeof b->map);
}

/* ---- environment -------------------------------------------------------------- */

void arith_env_init(arith_env *env, tvm_ctx *c, const tvm_bounds *b) {
  memset(env, 0, sizeof *env);
  env->ctx = c;
  env->base = b;
  env->budget = 64;
}

/* Frees the binding stack (not the base bounds). */
void arith_env_free(arith_env *env) {
  tvm_free(env->stack);
  env->stack = NULL;
  env->n = env->cap = 0;
}

/* Pushes a binding; the caller pops it with arith_env_pop whatever the
 * result.  Once a push ran out of memory, later pushes are only counted
 * (env->lost), so that pops stay paired; a missing binding only makes the
 * analysis less precise, never wrong. */
int arith_env_push(arith_env *env, const tvm_expr *var, tvm_expr *min,
                   tvm_expr *extent) {
  if (env->lost == 0 && env->n == env->cap) {
    int ncap = env->cap ? env->cap * 2 : 16;
    arith_bind *ns = tvm_realloc(env->stack, (size_t)ncap * sizeof *ns);
    if (ns) {
      env->stack = ns;
      env->cap = ncap;
    }
  }
  if (env->lost > 0 || env->n == env->cap) {
    env->lost++;
    return 0;
  }
  env->stack[env->n].var = var;
  env->stack[env->n].min = min;
  env->stack[env->n].extent = extent;
  env->n++;
  return 1;
}

/* Undoes the last arith_env_push. */
void arith_env_pop(arith_env *env) {
  if (env->lost > 0)
    env->lost--;
  else if (env->n > 0)
    env->n--;
}

/* See arith_int.h: innermost binding first, then the base bounds. */
int arith_env_lookup(const arith_env *env, const tvm_expr *var,
                     tvm_expr **min, tvm_expr **extent) {
  int i = env->n;
  void *v;
  while (i-- > 0) {
    if (env->stack[i].var == var) {
      if (!env->stack[i].min || !env->stack[i].extent) return 0;
      *min = env->stack[i].min;
      *extent = env->stack[i].extent;
      return 1;
    }
  }
  if (env->base && tvm_ptrmap_get(&env->base->map, var, &v) && v) {
    tvm_range *r = v;
    if (!r->min || !r->extent) return 0;
    *min = r->min;
    *extent = r->extent;
    return 1;
  }
  return 0;
}

/* ---- interval arithmetic --------------------------------------------------------- */

static int is_inf(int64_t v) { return v == ARITH_NEG_INF || v == ARITH_POS_INF; }

/* Sum of two lower (dir < 0) or upper (dir > 0) bounds, saturating. */
static int64_t add_bound(int64_t a, int64_t b, int dir) {
  int64_t r;
  if (dir < 0) {
    if (a == ARITH_NEG_INF || b == ARITH_NEG_INF) return ARITH_NEG_INF;
    if (a == ARITH_POS_INF || b == ARITH_POS_INF) return ARITH_POS_INF;
    return arith_add(a, b, &r) && !is_inf(r) ? r : ARITH_NEG_INF;
  }
  if (a == ARITH_POS_INF || b == ARITH_POS_INF) return ARITH_POS_INF;
  if (a == ARITH_NEG_INF || b == ARITH_NEG_INF) return ARITH_NEG_INF;
  return arith_add(a, b, &r) && !is_inf(r) ? r : ARITH_POS_INF;
}

/* [a.lo + b.lo, a.hi + b.hi], saturating to infinity. */
arith_ival arith_ival_add(arith_ival a, arith_ival b) {
  return arith_ival_make(add_bound(a.lo, b.lo, -1), add_bound(a.hi, b.hi, 1));
}

/* Negation of an extended value (infinities swap). */
static int64_t neg_bound(int64_t v) {
  if (v == ARITH_NEG_INF) return ARITH_POS_INF;
  if (v == ARITH_POS_INF) return ARITH_NEG_INF;
  return -v;
}

/* -a: [-a.hi, -a.lo]. */
arith_ival arith_ival_neg(arith_ival a) {
  return arith_ival_make(neg_bound(a.hi), neg_bound(a.lo));
}

/* Product of two extended values; overflow goes to the infinity of the
 * product's sign, and 0 * inf is 0 (an unbounded side times zero). */
static int64_t mul_ext(int64_t a, int64_t b) {
  int64_t r;
  int neg;
  if (a == 0 || b == 0) return 0;
  neg = (a < 0) != (b < 0);
  if (is_inf(a) || is_inf(b)) return neg ? ARITH_NEG_INF : ARITH_POS_INF;
  if (!arith_mul(a, b, &r) || is_inf(r))
    return neg ? ARITH_NEG_INF : ARITH_POS_INF;
  return r;
}

/* a * b: the extremes of the four corner products. */
arith_ival arith_ival_mul(arith_ival a, arith_ival b) {
  int64_t p[4], lo, hi;
  int i;
  p[0] = mul_ext(a.lo, b.lo);
  p[1] = mul_ext(a.lo, b.hi);
  p[2] = mul_ext(a.hi, b.lo);
  p[3] = mul_ext(a.hi, b.hi);
  lo = hi = p[0];
  for (i = 1; i < 4; i++) {
    if (p[i] < lo) lo = p[i];
    if (p[i] > hi) hi = p[i];
  }
  return arith_ival_make(lo, hi);
}

/* a * k for a constant k. */
arith_ival arith_ival_scale(arith_ival a, int64_t k) {
  return arith_ival_mul(a, arith_ival_make(k, k));
}

/* The smallest interval holding both. */
arith_ival arith_ival_union(arith_ival a, arith_ival b) {
  return arith_ival_make(a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
}

/* min and max of int64. */
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* floordiv / truncdiv of an extended value by a positive finite d. */
static int64_t fdiv_ext(int64_t a, int64_t d) {
  if (is_inf(a)) return a;
  return arith_floordiv(a, d);
}

static int64_t tdiv_ext(int64_t a, int64_t d) {
  if (is_inf(a)) return a;
  return a / d;
}

/* Interval of floordiv (floor != 0) or truncating div of a by d.  Only
 * divisors of one sign are understood; otherwise unbounded. */
static arith_ival ival_div(arith_ival a, arith_ival d, int floor) {
  arith_ival r = arith_ival_make(ARITH_NEG_INF, ARITH_POS_INF);
  if (d.lo > 0) {
    if (d.hi == ARITH_POS_INF) {
      /* a / d tends to 0 for large d */
      r.lo = a.lo >= 0 ? 0 : (floor ? fdiv_ext(a.lo, d.lo) : tdiv_ext(a.lo, d.lo));
      r.hi = a.hi <= 0 ? (floor ? (a.hi < 0 ? -1 : 0) : 0)
                       : (floor ? fdiv_ext(a.hi, d.lo) : tdiv_ext(a.hi, d.lo));
      if (floor && a.lo < 0) r.lo = min64(r.lo, -1);
      return r;
    }
    if (floor) {
      r.lo = min64(fdiv_ext(a.lo, d.lo), fdiv_ext(a.lo, d.hi));
      r.hi = max64(fdiv_ext(a.hi, d.lo), fdiv_ext(a.hi, d.hi));
    } else {
      r.lo = min64(tdiv_ext(a.lo, d.lo), tdiv_ext(a.lo, d.hi));
      r.hi = max64(tdiv_ext(a.hi, d.lo), tdiv_ext(a.hi, d.hi));
    }
    return r;
  }
  if (d.hi < 0 && d.lo != ARITH_NEG_INF) {
    /* a / d == (-a) / (-d) for both floor and truncation */
    return ival_div(arith_ival_neg(a), arith_ival_neg(d), floor);
  }
  return r;
}

/* Interval of floormod(a, d). */
static arith_ival ival_floormod(arith_ival a, arith_ival d) {
  if (d.lo > 0 && d.hi != ARITH_POS_INF) {
    if (d.lo == d.hi && arith_ival_finite(a) &&
        arith_floordiv(a.lo, d.lo) == arith_floordiv(a.hi, d.lo))
      return arith_ival_make(arith_floormod(a.lo, d.lo),
                             arith_floormod(a.hi, d.lo));
    if (a.lo >= 0) return arith_ival_make(0, min64(a.hi, d.hi - 1));
    return arith_ival_make(0, d.hi - 1);
  }
  if (d.lo > 0) return arith_ival_make(0, a.lo >= 0 ? a.hi : ARITH_POS_INF);
  if (d.hi < 0 && d.lo != ARITH_NEG_INF) return arith_ival_make(d.lo + 1, 0);
  return arith_ival_make(ARITH_NEG_INF, ARITH_POS_INF);
}

/* Interval of the truncating a % d (sign of a). */
static arith_ival ival_truncmod(arith_ival a, arith_ival d) {
  int64_t m;
  if (d.lo > 0)
    m = d.hi;
  else if (d.hi < 0)
    m = neg_bound(d.lo);
  else
    return arith_ival_make(ARITH_NEG_INF, ARITH_POS_INF);
  if (m != ARITH_POS_INF) m -= 1; /* |a % d| <= |d| - 1 */
  if (a.lo >= 0) return arith_ival_make(0, min64(a.hi, m));
  if (a.hi <= 0) return arith_ival_make(max64(a.lo, neg_bound(m)), 0);
  return arith_ival_make(neg_bound(m), m);
}

/* Widens r to the whole type when it leaves a type that wraps (narrow or
 * unsigned integers, bool); 32/64-bit signed ints are assumed not to
 * overflow. */
static arith_ival clamp_type(tvm_dtype t, arith_ival r) {
  arith_ival full;
  if (t.code != kDLInt && t.code != kDLUInt) return r;
  if (t.code == kDLInt && t.bits >= 32) return r;
  full = arith_dtype_range(t);
  if (r.lo < full.lo || r.hi > full.hi) return full;
  return r;
}

static arith_ival interval(arith_env *env, const tvm_expr *e, int depth);

/* Interval of a variable: from its range [min, min + extent) when it has
 * one (followed MAX_VAR_DEPTH levels deep), else the range of its type
 * (unbounded for 32/64-bit signed ints). */
static arith_ival var_interval(arith_env *env, const tvm_expr *v, int depth) {
  tvm_expr *min, *extent;
  arith_ival m, x, r;
  if (depth < MAX_VAR_DEPTH && arith_env_lookup(env, v, &min, &extent)) {
    m = interval(env, min, depth + 1);
    x = interval(env, extent, depth + 1);
    r.lo = m.lo;
    r.hi = add_bound(m.hi, add_bound(x.hi, -1, 1), 1);
    if (r.hi < r.lo) r.hi = r.lo; /* empty loop: anything is sound */
    return clamp_type(v->dtype, r);
  }
  if (v->dtype.code == kDLInt && v->dtype.bits >= 32)
    return arith_ival_make(ARITH_NEG_INF, ARITH_POS_INF);
  return arith_dtype_range(v->dtype);
}

/* The interval analysis proper; depth counts variable indirections. */
static arith_ival interval(arith_env *env, const tvm_expr *e, int depth) {
  arith_ival a, b, r, all = arith_ival_make(ARITH_NEG_INF, ARITH_POS_INF);
  tvm_dtype t;
  if (!e) return all;
  t = e->dtype;
  if (t.code != kDLInt && t.code != kDLUInt) return all;
  switch (e->kind) {
  case TVM_INT:
    if (t.code == kDLUInt && t.bits == 64 && e->u.ival < 0)
      return arith_ival_make(0, ARITH_POS_INF);
    return arith_ival_make(e->u.ival, e->u.ival);
  case TVM_VAR:
    return var_interval(env, e, depth);
  case TVM_ADD:
    r = arith_ival_add(interval(env, e->u.bin.a, depth),
                       interval(env, e->u.bin.b, depth));
    break;
  case TVM_SUB:
    r = arith_ival_add(interval(env, e->u.bin.a, depth),
                       arith_ival_neg(interval(env, e->u.bin.b, depth)));
    break;
  case TVM_MUL:
    r = arith_ival_mul(interval(env, e->u.bin.a, depth),
                       interval(env, e->u.bin.b, depth));
    break;
  case TVM_FLOORDIV:
  case TVM_DIV:
    r = ival_div(interval(env, e->u.bin.a, depth),
                 interval(env, e->u.bin.b, depth), e->kind == TVM_FLOORDIV);
    break;
  case TVM_FLOORMOD:
    r = ival_floormod(interval(env, e->u.bin.a, depth),
                      interval(env, e->u.bin.b, depth));
    break;
  case TVM_MOD:
    r = ival_truncmod(interval(env, e->u.bin.a, depth),
                      interval(env, e->u.bin.b, depth));
    break;
  case TVM_MIN:
  case TVM_MAX:
    a = interval(env, e->u.bin.a, depth);
    b = interval(env, e->u.bin.b, depth);
    if (e->kind == TVM_MIN)
      r = arith_ival_make(min64(a.lo, b.lo), min64(a.hi, b.hi));
    else
      r = arith_ival_make(max64(a.lo, b.lo), max64(a.hi, b.hi));
    break;
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE: case TVM_AND: case TVM_OR: case TVM_NOT:
    return arith_ival_make(0, 1);
  case TVM_SELECT:
    r = arith_ival_union(interval(env, e->u.sel.t, depth),
                         interval(env, e->u.sel.f, depth));
    break;
  case TVM_CAST: {
    tvm_dtype st = e->u.un.a->dtype;
    if (st.code != kDLInt && st.code != kDLUInt) return arith_dtype_range(t);
    r = interval(env, e->u.un.a, depth);
    {
      arith_ival full = arith_dtype_range(t);
      if (r.lo < full.lo || r.hi > full.hi) r = full;
    }
    return r;
  }
  case TVM_RAMP: {
    arith_ival steps = arith_ival_make(0, e->u.ramp.lanes - 1);
    r = arith_ival_add(interval(env, e->u.ramp.base, depth),
                       arith_ival_mul(interval(env, e->u.ramp.stride, depth),
                                      steps));
    break;
  }
  case TVM_BROADCAST:
    r = interval(env, e->u.bcast.value, depth);
    break;
  case TVM_LET:
    if (e->u.let.var && e->u.let.var->kind == TVM_VAR) {
      tvm_expr one;
      memset(&one, 0, sizeof one);
      one.kind = TVM_INT;
      one.dtype = e->u.let.var->dtype;
      one.u.ival = 1;
      /* the binding lives only during this call, so a stack node is fine */
      arith_env_push(env, e->u.let.var, e->u.let.value, &one);
      r = interval(env, e->u.let.body, depth);
      arith_env_pop(env);
      break;
    }
    return clamp_type(t, all);
  default:
    r = arith_dtype_range(t);
    if (t.code == kDLInt && t.bits >= 32) r = all;
    return r;
  }
  return clamp_type(t, r);
}

/* See arith_int.h. */
arith_ival arith_interval(arith_env *env, const tvm_expr *e) {
  return interval(env, e, 0);
}

/* Interval of an affine form: sum of coeff * interval(term) + k. */
arith_ival arith_affine_interval(arith_env *env, const arith_affine *a) {
  arith_ival r = arith_ival_make(a->k, a->k);
  int i;
  for (i = 0; i < a->n; i++)
    r = arith_ival_add(r, arith_ival_scale(arith_interval(env, a->term[i]),
                                           a->coeff[i]));
  return r;
}

/* ---- public entry points ------------------------------------------------------------ */

/* Simplifies e under b (so that x - x has bounds [0, 0]), then computes
 * its constant interval.  Returns 1 with *lo, *hi set when both sides are
 * finite; 0 otherwise (outputs untouched). */
int tvm_const_bounds(tvm_ctx *c, const tvm_expr *e, const tvm_bounds *b,
                     int64_t *lo, int64_t *hi) {
  arith_env env;
  arith_ival r;
  tvm_expr *s;
  if (!e) return 0;
  arith_env_init(&env, c, b);
  s = c ? arith_simplify(&env, (tvm_expr *)e) : (tvm_expr *)e;
  r = arith_interval(&env, s);
  arith_env_free(&env);
  if (!arith_ival_finite(r)) return 0;
  if (lo) *lo = r.lo;
  if (hi) *hi = r.hi;
  return 1;
}

/* 1 when cond simplifies to true (every lane) under b, 0 otherwise. */
int tvm_prove(tvm_ctx *c, tvm_expr *cond, const tvm_bounds *b) {
  arith_env env;
  arith_ival r;
  tvm_expr *s;
  int ok = 0;
  if (!c || !cond) return 0;
  arith_env_init(&env, c, b);
  s = arith_simplify(&env, cond);
  if (s && tvm_dtype_is_bool(s->dtype)) {
    r = arith_interval(&env, s);
    if (s->kind == TVM_BROADCAST) s = s->u.bcast.value;
    if (s->kind == TVM_INT && s->u.ival != 0) ok = 1;
    else if (r.lo >= 1) ok = 1;
  }
  arith_env_free(&env);
  return ok;
}
