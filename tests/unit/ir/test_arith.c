/*
 * tests/unit/ir/test_arith.c - interval analysis (tvm_const_bounds),
 * symbolic ranges (tvm_eval_range), tvm_prove, tvm_bounds, and the
 * randomized differential test of the simplifier: random small integer
 * expressions over 2-3 variables with small ranges are simplified and
 * compared with the original at every point of the ranges by a tiny
 * evaluator written here (and simplified again: nothing may change).  The same points check that constant bounds and
 * evaluated ranges contain every value (and are exact for affine
 * expressions) and that tvm_prove never proves a false condition.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/ir.h"

#define I(v) tvm_int(c, v)

static tvm_range mkrange(tvm_expr *min, tvm_expr *extent) {
  tvm_range r;
  r.min = min;
  r.extent = extent;
  return r;
}

static void set_range(tvm_bounds *b, tvm_expr *v, tvm_expr *min, tvm_expr *extent) {
  tvm_range r = mkrange(min, extent);
  assert_int_equal(tvm_bounds_set(b, v, &r), TVM_OK);
}

static void expect_str(const tvm_expr *e, const char *want) {
  char *s;
  assert_non_null(e);
  s = tvm_expr_str(e);
  assert_non_null(s);
  if (strcmp(s, want) != 0) print_message("got %s, want %s\n", s, want);
  assert_string_equal(s, want);
  tvm_free(s);
}

/* ---- fixed cases ------------------------------------------------------------ */

static void test_bounds_map(void **state) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_bounds b;
  tvm_expr *i = tvm_var(c, "i", TVM_I32);
  tvm_range r = mkrange(I(0), I(8));
  int64_t lo, hi;
  (void)state;
  memset(&b, 0, sizeof b);
  assert_int_equal(tvm_bounds_set(&b, i, &r), TVM_OK);
  r.extent = I(100); /* the bounds keep their own copy */
  assert_int_equal(tvm_const_bounds(c, i, &b, &lo, &hi), 1);
  assert_int_equal(lo, 0);
  assert_int_equal(hi, 7);
  set_range(&b, i, I(2), I(3)); /* replaces */
  assert_int_equal(tvm_const_bounds(c, i, &b, &lo, &hi), 1);
  assert_int_equal(lo, 2);
  assert_int_equal(hi, 4);
  assert_int_equal(tvm_bounds_set(&b, I(3), &r), TVM_ERR_INVALID);
  assert_int_equal(tvm_bounds_set(&b, i, NULL), TVM_ERR_INVALID);
  tvm_bounds_free(&b);
  tvm_bounds_free(&b); /* twice is harmless */
  assert_int_equal(tvm_const_bounds(c, i, NULL, &lo, &hi), 0);
  tvm_ctx_destroy(c);
}

static void test_const_bounds(void **state) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_bounds b;
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *j = tvm_var(c, "j", TVM_I32);
  tvm_expr *x = tvm_var(c, "x", TVM_I32), *io = tvm_var(c, "io", TVM_I32);
  tvm_expr *u = tvm_var(c, "u", TVM_U8);
  int64_t lo = 0, hi = 0;
  (void)state;
  memset(&b, 0, sizeof b);
  set_range(&b, i, I(0), I(64));
  set_range(&b, j, I(0), I(8));
  set_range(&b, io, I(0), I(16));
#define CB(e, L, H)                                            \
  do {                                                         \
    assert_int_equal(tvm_const_bounds(c, (e), &b, &lo, &hi), 1); \
    assert_int_equal(lo, (L));                                 \
    assert_int_equal(hi, (H));                                 \
  } while (0)
  CB(tvm_add(c, tvm_mul(c, i, I(8)), j), 0, 511);
  CB(tvm_sub(c, j, i), -63, 7);
  CB(tvm_sub(c, x, x), 0, 0);
  CB(tvm_floormod(c, x, I(8)), 0, 7);
  CB(tvm_floormod(c, x, I(-8)), -7, 0);
  CB(tvm_mod(c, j, I(5)), 0, 4);
  CB(tvm_mod(c, x, I(5)), -4, 4);
  CB(tvm_floordiv(c, i, I(8)), 0, 7);
  CB(tvm_floordiv(c, tvm_sub(c, j, I(9)), I(4)), -3, -1);
  CB(tvm_div(c, tvm_sub(c, j, I(9)), I(4)), -2, 0);
  CB(tvm_min(c, i, I(10)), 0, 10);
  CB(tvm_max(c, i, j), 0, 63);
  CB(tvm_mul(c, tvm_sub(c, j, I(4)), tvm_sub(c, j, I(2))), -20, 15); /* [-4,3]*[-2,5] */
  CB(tvm_select(c, tvm_lt(c, x, I(0)), j, I(20)), 0, 20);
  CB(u, 0, 255);
  CB(tvm_cast(c, TVM_I64, j), 0, 7);
  CB(tvm_ramp(c, tvm_mul(c, io, I(8)), I(1), 8), 0, 127);
  CB(tvm_lt(c, x, I(3)), 0, 1);
  /* a range that refers to another variable */
  {
    tvm_expr *ii = tvm_var(c, "ii", TVM_I32);
    set_range(&b, ii, tvm_mul(c, io, I(4)), I(4));
    CB(ii, 0, 63);
  }
  /* unbounded */
  assert_int_equal(tvm_const_bounds(c, x, &b, &lo, &hi), 0);
  assert_int_equal(tvm_const_bounds(c, tvm_add(c, x, i), &b, &lo, &hi), 0);
  assert_int_equal(tvm_const_bounds(c, tvm_floordiv(c, i, x), &b, &lo, &hi), 0);
  tvm_bounds_free(&b);
  assert_int_equal(tvm_ctx_status(c), TVM_OK);
  tvm_ctx_destroy(c);
#undef CB
}

static void test_eval_range(void **state) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_bounds b;
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *j = tvm_var(c, "j", TVM_I32);
  tvm_expr *io = tvm_var(c, "io", TVM_I32), *n = tvm_var(c, "n", TVM_I32);
  tvm_range r;
  (void)state;
  memset(&b, 0, sizeof b);
  /* the brief's example: i in [io*4, io*4 + 4), j in [0, 8) */
  set_range(&b, i, tvm_mul(c, io, I(4)), I(4));
  set_range(&b, j, I(0), I(8));
  r = tvm_eval_range(c, tvm_add(c, tvm_mul(c, i, I(8)), j), &b);
  expect_str(r.min, "io * 32");
  expect_str(r.extent, "32");
  /* io itself ranged: ranges are used as given, io stays symbolic */
  set_range(&b, io, I(0), I(4));
  r = tvm_eval_range(c, tvm_add(c, tvm_mul(c, i, I(8)), j), &b);
  expect_str(r.min, "io * 32");
  expect_str(r.extent, "32");
  r = tvm_eval_range(c, io, &b);
  expect_str(r.min, "0");
  expect_str(r.extent, "4");
  r = tvm_eval_range(c, tvm_sub(c, j, i), &b);
  expect_str(r.min, "-3 - io * 4");
  expect_str(r.extent, "11");
  r = tvm_eval_range(c, tvm_floordiv(c, i, I(2)), &b);
  expect_str(r.min, "io * 2");
  expect_str(r.extent, "2");
  r = tvm_eval_range(c, tvm_floormod(c, j, I(4)), &b);
  expect_str(r.min, "0");
  expect_str(r.extent, "4");
  r = tvm_eval_range(c, tvm_add(c, n, j), &b);
  expect_str(r.min, "n");
  expect_str(r.extent, "8");
  r = tvm_eval_range(c, tvm_mul(c, tvm_sub(c, I(2), j), I(3)), &b);
  expect_str(r.min, "-15");
  expect_str(r.extent, "22");
  r = tvm_eval_range(c, tvm_min(c, tvm_add(c, j, I(1)), I(4)), &b);
  expect_str(r.min, "1");
  expect_str(r.extent, "4");
  r = tvm_eval_range(c, tvm_ramp(c, tvm_mul(c, j, I(4)), I(1), 4), &b);
  expect_str(r.min, "0");
  expect_str(r.extent, "32");
  /* tiled index with a symbolic tail: min(extent) stays symbolic */
  r = tvm_eval_range(c, tvm_floordiv(c, tvm_add(c, tvm_mul(c, i, I(8)), j), I(8)), &b);
  expect_str(r.min, "io * 4");
  expect_str(r.extent, "4");
  /* unbounded */
  {
    tvm_expr *x = tvm_var(c, "x", TVM_I32);
    r = tvm_eval_range(c, tvm_mul(c, x, j), &b);
    assert_null(r.min);
    assert_null(r.extent);
  }
  tvm_bounds_free(&b);
  assert_int_equal(tvm_ctx_status(c), TVM_OK);
  tvm_ctx_destroy(c);
}

static void test_prove(void **state) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_bounds b;
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *j = tvm_var(c, "j", TVM_I32);
  tvm_expr *x = tvm_var(c, "x", TVM_I32);
  (void)state;
  memset(&b, 0, sizeof b);
  set_range(&b, i, I(0), I(64));
  set_range(&b, j, I(0), I(8));
  assert_int_equal(tvm_prove(c, tvm_lt(c, i, I(64)), &b), 1);
  assert_int_equal(tvm_prove(c, tvm_lt(c, i, I(63)), &b), 0);
  assert_int_equal(tvm_prove(c, tvm_ge(c, tvm_add(c, tvm_mul(c, i, I(8)), j), I(0)), &b), 1);
  assert_int_equal(tvm_prove(c, tvm_lt(c, tvm_add(c, tvm_mul(c, i, I(8)), j), I(512)), &b), 1);
  assert_int_equal(tvm_prove(c, tvm_lt(c, tvm_add(c, tvm_mul(c, i, I(8)), j), I(511)), &b), 0);
  assert_int_equal(tvm_prove(c, tvm_le(c, x, tvm_add(c, x, I(1))), &b), 1);
  assert_int_equal(tvm_prove(c, tvm_le(c, x, I(0)), &b), 0);
  assert_int_equal(tvm_prove(c, tvm_and(c, tvm_lt(c, j, I(8)), tvm_ge(c, i, I(0))), &b), 1);
  assert_int_equal(tvm_prove(c, tvm_or(c, tvm_lt(c, x, I(8)), tvm_ge(c, j, I(0))), &b), 1);
  assert_int_equal(tvm_prove(c, tvm_eq(c, tvm_floormod(c, tvm_mul(c, x, I(4)), I(2)), I(0)), &b), 1);
  assert_int_equal(tvm_prove(c, tvm_lt(c, tvm_ramp(c, tvm_mul(c, j, I(8)), I(1), 8),
                                       tvm_broadcast(c, I(64), 8)), &b), 1);
  assert_int_equal(tvm_prove(c, tvm_lt(c, i, I(64)), NULL), 0);
  tvm_bounds_free(&b);
  tvm_ctx_destroy(c);
}

/* ---- the differential test -------------------------------------------------- */

#define NV 3
typedef struct dt {
  tvm_ctx *c;
  tvm_expr *v[NV];
  int64_t lo[NV], ext[NV];
  int declared[NV]; /* told to the simplifier */
  uint64_t seed;
  int affine;       /* the expression built so far is affine */
  int64_t tile;     /* when nonzero: y lies in [0, tile), divisors like it */
} dt;

static uint32_t rnd(dt *d) {
  d->seed = d->seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(d->seed >> 33);
}
static int64_t rint_in(dt *d, int64_t lo, int64_t hi) {
  return lo + (int64_t)(rnd(d) % (uint32_t)(hi - lo + 1));
}
static int64_t rnonzero(dt *d, int64_t m) {
  int64_t v = rint_in(d, 1, m);
  return (rnd(d) % 5 == 0) ? -v : v;
}

/* Evaluates scalar (or lane `lane` of a vector) integer expression e at
 * the point vals; *bad is set on division by zero or unknown nodes. */
static int64_t eval(dt *d, const tvm_expr *e, const int64_t *vals, int lane, int *bad) {
  int64_t a, b;
  int k;
  switch (e->kind) {
  case TVM_INT: return e->u.ival;
  case TVM_VAR:
    for (k = 0; k < NV; k++)
      if (e == d->v[k]) return vals[k];
    *bad = 1;
    return 0;
  case TVM_RAMP:
    return eval(d, e->u.ramp.base, vals, 0, bad) +
           eval(d, e->u.ramp.stride, vals, 0, bad) * lane;
  case TVM_BROADCAST: return eval(d, e->u.bcast.value, vals, 0, bad);
  case TVM_NOT: return !eval(d, e->u.un.a, vals, lane, bad);
  case TVM_CAST: return eval(d, e->u.un.a, vals, lane, bad);
  case TVM_SELECT:
    /* both sides are evaluated, as in the IR */
    a = eval(d, e->u.sel.t, vals, lane, bad);
    b = eval(d, e->u.sel.f, vals, lane, bad);
    return eval(d, e->u.sel.cond, vals, lane, bad) ? a : b;
  default: break;
  }
  if (e->kind < TVM_ADD || e->kind > TVM_OR) {
    *bad = 1;
    return 0;
  }
  a = eval(d, e->u.bin.a, vals, lane, bad);
  b = eval(d, e->u.bin.b, vals, lane, bad);
  switch (e->kind) {
  case TVM_ADD: return a + b;
  case TVM_SUB: return a - b;
  case TVM_MUL: return a * b;
  case TVM_DIV:
  case TVM_MOD:
  case TVM_FLOORDIV:
  case TVM_FLOORMOD: {
    int64_t q, m;
    if (b == 0) {
      *bad = 1;
      return 0;
    }
    q = a / b;
    m = a % b;
    if (e->kind == TVM_DIV) return q;
    if (e->kind == TVM_MOD) return m;
    if (m != 0 && ((m < 0) != (b < 0))) {
      q -= 1;
      m += b;
    }
    return e->kind == TVM_FLOORDIV ? q : m;
  }
  case TVM_MIN: return a < b ? a : b;
  case TVM_MAX: return a > b ? a : b;
  case TVM_EQ: return a == b;
  case TVM_NE: return a != b;
  case TVM_LT: return a < b;
  case TVM_LE: return a <= b;
  case TVM_GT: return a > b;
  case TVM_GE: return a >= b;
  case TVM_AND: return a && b;
  case TVM_OR: return a || b;
  default: *bad = 1; return 0;
  }
}

static tvm_expr *gen(dt *d, int depth);

/* An index-like affine expression: sum of var*coeff + const. */
static tvm_expr *gen_affine(dt *d) {
  tvm_ctx *c = d->c;
  tvm_expr *e;
  if (d->tile && rnd(d) % 2) {
    /* x*tile + y (+ z*tile*k): the index of a split loop */
    e = tvm_add(c, tvm_mul(c, d->v[0], I(d->tile)), d->v[1]);
    if (rnd(d) % 3 == 0) e = tvm_add(c, e, tvm_mul(c, d->v[2], I(d->tile * rint_in(d, 1, 3))));
    if (rnd(d) % 3 == 0) e = tvm_add(c, e, I(d->tile * rint_in(d, -2, 2) + rint_in(d, -1, 1)));
    return e;
  }
  e = tvm_mul(c, d->v[rnd(d) % NV], I(rint_in(d, -4, 8)));
  int n = (int)(rnd(d) % 3), k;
  for (k = 0; k < n; k++) {
    tvm_expr *t = d->v[rnd(d) % NV];
    if (rnd(d) % 2) t = tvm_mul(c, t, I(rint_in(d, -3, 16)));
    e = (rnd(d) % 4) ? tvm_add(c, e, t) : tvm_sub(c, e, t);
  }
  if (rnd(d) % 2) e = tvm_add(c, e, I(rint_in(d, -10, 10)));
  return e;
}

static tvm_expr *gen_cmp(dt *d, int depth) {
  static const tvm_expr_kind cmps[] = {TVM_EQ, TVM_NE, TVM_LT, TVM_LE, TVM_GT, TVM_GE};
  tvm_expr *r = tvm_binary(d->c, cmps[rnd(d) % 6], gen(d, depth), gen(d, depth));
  if (rnd(d) % 6 == 0) r = tvm_not(d->c, r);
  if (rnd(d) % 6 == 0)
    r = tvm_binary(d->c, rnd(d) % 2 ? TVM_AND : TVM_OR, r,
                   tvm_binary(d->c, cmps[rnd(d) % 6], gen(d, depth), gen(d, depth)));
  return r;
}

static tvm_expr *gen(dt *d, int depth) {
  tvm_ctx *c = d->c;
  uint32_t r;
  if (depth <= 0 || rnd(d) % 7 == 0) {
    r = rnd(d) % 5;
    if (r < 3) return d->v[r];
    if (r == 3) return gen_affine(d);
    return I(rint_in(d, -9, 9));
  }
  d->affine = 0;
  r = rnd(d) % 16;
  switch (r) {
  case 0: case 1: return tvm_add(c, gen(d, depth - 1), gen(d, depth - 1));
  case 2: return tvm_sub(c, gen(d, depth - 1), gen(d, depth - 1));
  case 3: return tvm_mul(c, gen(d, depth - 1), I(rint_in(d, -4, 8)));
  case 4: return tvm_mul(c, gen(d, depth - 1), gen(d, depth - 2));
  case 5: case 6: {
    int64_t cst = d->tile && rnd(d) % 2 ? d->tile * rint_in(d, 1, 2) : rnonzero(d, 9);
    tvm_expr *num = rnd(d) % 2 ? gen_affine(d) : gen(d, depth - 1);
    if (rnd(d) % 3 == 0)
      num = tvm_add(c, tvm_mul(c, gen(d, depth - 1), I(cst * rint_in(d, 1, 3))), num);
    return tvm_binary(c, r == 5 ? TVM_FLOORDIV : TVM_FLOORMOD, num, I(cst));
  }
  case 7: {
    int64_t cst = rnonzero(d, 9);
    return tvm_binary(c, rnd(d) % 2 ? TVM_DIV : TVM_MOD,
                      rnd(d) % 2 ? gen_affine(d) : gen(d, depth - 1), I(cst));
  }
  case 8: {
    /* nested division, the shape tiling produces */
    int64_t a = rint_in(d, 1, 6), b = rint_in(d, 1, 6);
    tvm_expr *in = tvm_binary(c, rnd(d) % 2 ? TVM_FLOORDIV : TVM_FLOORMOD,
                              gen_affine(d), I(a * (rnd(d) % 2 ? b : 1)));
    if (rnd(d) % 2) in = tvm_add(c, in, I(rint_in(d, -3, 3)));
    return tvm_binary(c, rnd(d) % 2 ? TVM_FLOORDIV : TVM_FLOORMOD, in, I(b));
  }
  case 9: {
    /* floordiv(x, c)*c + floormod(x, c) and friends */
    int64_t cst = rint_in(d, 1, 8), k = rint_in(d, -2, 3);
    tvm_expr *x = gen(d, depth - 1);
    int trunc = rnd(d) % 3 == 0;
    return tvm_add(c, tvm_mul(c, tvm_binary(c, trunc ? TVM_DIV : TVM_FLOORDIV, x, I(cst)),
                              I(cst * k)),
                   tvm_mul(c, tvm_binary(c, trunc ? TVM_MOD : TVM_FLOORMOD, x, I(cst)), I(k)));
  }
  case 10: case 11:
    return tvm_binary(c, r == 10 ? TVM_MIN : TVM_MAX, gen(d, depth - 1),
                      rnd(d) % 2 ? gen(d, depth - 1)
                                 : tvm_add(c, gen(d, 0), I(rint_in(d, -3, 3))));
  case 12:
    return tvm_select(c, gen_cmp(d, depth - 1), gen(d, depth - 1), gen(d, depth - 1));
  case 13:
    return tvm_cast(c, TVM_I32, tvm_cast(c, TVM_I64, gen(d, depth - 1)));
  default:
    return gen_affine(d);
  }
}

/* Loops over every point of the variables' ranges. */
typedef struct point_iter {
  int64_t vals[NV];
} point_iter;

static int first_point(dt *d, point_iter *p) {
  int k;
  for (k = 0; k < NV; k++) p->vals[k] = d->lo[k];
  return 1;
}
static int next_point(dt *d, point_iter *p) {
  int k;
  for (k = 0; k < NV; k++) {
    if (++p->vals[k] < d->lo[k] + d->ext[k]) return 1;
    p->vals[k] = d->lo[k];
  }
  return 0;
}

/* One random case: returns 1 if it was checked, 0 if skipped. */
static int one_case(dt *d, int iter, int vector) {
  tvm_ctx *c = d->c;
  tvm_bounds b;
  tvm_expr *e, *s;
  point_iter p;
  int k, lanes = 1, bad = 0, all_declared = 1, affine;
  int64_t mn = INT64_MAX, mx = INT64_MIN, lo, hi;
  memset(&b, 0, sizeof b);
  d->tile = rnd(d) % 3 == 0 ? rint_in(d, 2, 8) : 0;
  for (k = 0; k < NV; k++) {
    d->lo[k] = rint_in(d, -6, 6);
    d->ext[k] = rint_in(d, 1, 9);
    d->declared[k] = rnd(d) % 4 != 0;
    if (k == 1 && d->tile) {
      d->lo[k] = 0;
      d->ext[k] = d->tile;
      d->declared[k] = 1;
    }
    if (d->declared[k])
      set_range(&b, d->v[k], I(d->lo[k]), I(d->ext[k]));
    else
      all_declared = 0;
  }
  d->affine = 1;
  if (!vector) {
    e = rnd(d) % 8 == 0 ? gen_cmp(d, 3) : gen(d, 1 + (int)(rnd(d) % 4));
  } else {
    /* vector index math of the kind vectorize produces */
    int64_t cst = rint_in(d, 1, 8);
    lanes = (int)rint_in(d, 2, 8);
    e = tvm_ramp(c, gen_affine(d), I(rint_in(d, -2, 4)), lanes);
    if (rnd(d) % 2) e = tvm_add(c, e, tvm_broadcast(c, gen_affine(d), lanes));
    if (rnd(d) % 3 == 0) e = tvm_mul(c, e, tvm_broadcast(c, I(rint_in(d, -3, 4)), lanes));
    switch (rnd(d) % 4) {
    case 0: e = tvm_floordiv(c, e, tvm_broadcast(c, I(cst), lanes)); break;
    case 1: e = tvm_floormod(c, e, tvm_broadcast(c, I(cst), lanes)); break;
    case 2: e = tvm_binary(c, rnd(d) % 2 ? TVM_DIV : TVM_MOD, e,
                           tvm_broadcast(c, I(cst), lanes)); break;
    default: e = tvm_sub(c, e, tvm_ramp(c, gen_affine(d), I(rint_in(d, -2, 2)), lanes)); break;
    }
  }
  affine = d->affine && !vector;
  assert_non_null(e);
  s = tvm_simplify(c, e, &b);
  assert_non_null(s);
  if (getenv("TVM_ARITH_VERBOSE")) {
    char *so = tvm_expr_str(e), *ss = tvm_expr_str(s);
    print_message("%s\n  -> %s\n", so, ss);
    tvm_free(so);
    tvm_free(ss);
  }
  assert_int_equal(s->dtype.lanes, e->dtype.lanes);
  {
    /* stable output: simplifying again changes nothing */
    tvm_expr *s2 = tvm_simplify(c, s, &b);
    char *a1 = tvm_expr_str(s), *a2 = tvm_expr_str(s2);
    if (strcmp(a1, a2) != 0) {
      print_message("case %d: not idempotent: %s -> %s\n", iter, a1, a2);
      fail();
    }
    tvm_free(a1);
    tvm_free(a2);
  }
  first_point(d, &p);
  do {
    int l;
    for (l = 0; l < lanes; l++) {
      int bo = 0, bs = 0;
      int64_t vo = eval(d, e, p.vals, l, &bo);
      int64_t vs;
      if (bo) {
        bad = 1;
        continue;
      }
      vs = eval(d, s, p.vals, l, &bs);
      if (bs || vo != vs) {
        char *so = tvm_expr_str(e), *ss = tvm_expr_str(s);
        print_message("case %d: %s\n  simplified to %s\n  differs at x=%lld y=%lld "
                      "z=%lld lane %d: %lld vs %lld (ranges [%lld,+%lld) [%lld,+%lld) "
                      "[%lld,+%lld), declared %d%d%d)\n",
                      iter, so, ss, (long long)p.vals[0], (long long)p.vals[1],
                      (long long)p.vals[2], l, (long long)vo, (long long)vs,
                      (long long)d->lo[0], (long long)d->ext[0], (long long)d->lo[1],
                      (long long)d->ext[1], (long long)d->lo[2], (long long)d->ext[2],
                      d->declared[0], d->declared[1], d->declared[2]);
        tvm_free(so);
        tvm_free(ss);
        fail();
      }
      if (vo < mn) mn = vo;
      if (vo > mx) mx = vo;
    }
  } while (next_point(d, &p));
  if (bad) {
    tvm_bounds_free(&b);
    return 0;
  }
  /* constant bounds contain every value; exact for affine expressions */
  if (tvm_const_bounds(c, e, &b, &lo, &hi)) {
    if (lo > mn || hi < mx) {
      char *so = tvm_expr_str(e);
      print_message("case %d: bounds [%lld, %lld] of %s miss [%lld, %lld]\n", iter,
                    (long long)lo, (long long)hi, so, (long long)mn, (long long)mx);
      tvm_free(so);
      fail();
    }
    if (affine && all_declared && e->dtype.code == kDLInt) {
      assert_int_equal(lo, mn);
      assert_int_equal(hi, mx);
    }
  }
  /* evaluated range: constant when every variable is declared */
  if (all_declared && e->dtype.code == kDLInt) {
    tvm_range r = tvm_eval_range(c, e, &b);
    int64_t rmin, rext;
    if (r.min) {
      assert_non_null(r.extent);
      if (!tvm_is_const_int(r.min, &rmin) || !tvm_is_const_int(r.extent, &rext)) {
        char *so = tvm_expr_str(e), *s1 = tvm_expr_str(r.min), *s2 = tvm_expr_str(r.extent);
        print_message("case %d: range of %s is [%s, +%s): not constant\n", iter, so, s1, s2);
        tvm_free(so);
        tvm_free(s1);
        tvm_free(s2);
        fail();
      }
      if (rmin > mn || rmin + rext - 1 < mx) {
        char *so = tvm_expr_str(e);
        print_message("case %d: range [%lld, +%lld) of %s misses [%lld, %lld]\n", iter,
                      (long long)rmin, (long long)rext, so, (long long)mn, (long long)mx);
        tvm_free(so);
        fail();
      }
      if (affine) {
        assert_int_equal(rmin, mn);
        assert_int_equal(rext, mx - mn + 1);
      }
    } else {
      assert_false(affine);
    }
  }
  /* prove never proves something false */
  if (tvm_dtype_is_bool(e->dtype) && tvm_prove(c, e, &b)) assert_int_equal(mn, 1);
  tvm_bounds_free(&b);
  return 1;
}

/* Symbolic ranges: x is free (enumerated here, unknown to the analysis),
 * y lies in [x*k + m, x*k + m + e), z in a constant range.  For every x the
 * evaluated range (an expression in x) must contain every value of e, and
 * be exact when e is affine. */
static int one_symbolic(dt *d, int iter) {
  tvm_ctx *c = d->c;
  tvm_bounds b;
  tvm_expr *e;
  tvm_range r;
  int64_t k = rint_in(d, -3, 4), m = rint_in(d, -3, 3), ey = rint_in(d, 1, 6);
  int64_t x, vals[NV];
  memset(&b, 0, sizeof b);
  d->tile = 0;
  d->lo[2] = rint_in(d, -4, 4);
  d->ext[2] = rint_in(d, 1, 6);
  set_range(&b, d->v[1], tvm_add(c, tvm_mul(c, d->v[0], I(k)), I(m)), I(ey));
  set_range(&b, d->v[2], I(d->lo[2]), I(d->ext[2]));
  d->affine = 1;
  e = rnd(d) % 4 == 0 ? gen_cmp(d, 2) : gen(d, 1 + (int)(rnd(d) % 3));
  if (rnd(d) % 3 == 0) {
    /* y against its own symbolic bounds, the guards of split loops */
    static const tvm_expr_kind kinds[] = {TVM_LT, TVM_LE, TVM_GT, TVM_GE, TVM_EQ,
                                          TVM_NE, TVM_MIN, TVM_MAX};
    tvm_expr *bound = tvm_add(c, tvm_mul(c, d->v[0], I(k)),
                              I(m + (rnd(d) % 2 ? ey : 0) + rint_in(d, -2, 2)));
    tvm_expr *lhs = tvm_add(c, d->v[1], rnd(d) % 2 ? I(rint_in(d, -2, 2)) : d->v[2]);
    e = tvm_binary(c, kinds[rnd(d) % 8], lhs, bound);
  }
  /* simplification under symbolic ranges keeps every value */
  {
    tvm_expr *sx = tvm_simplify(c, e, &b);
    int64_t y, z;
    if (getenv("TVM_ARITH_VERBOSE")) {
      char *so = tvm_expr_str(e), *ss = tvm_expr_str(sx);
      print_message("y in [x*%lld + %lld, +%lld): %s\n  -> %s\n", (long long)k,
                    (long long)m, (long long)ey, so, ss);
      tvm_free(so);
      tvm_free(ss);
    }
    for (x = -3; x <= 3; x++)
      for (y = x * k + m; y < x * k + m + ey; y++)
        for (z = d->lo[2]; z < d->lo[2] + d->ext[2]; z++) {
          int bo = 0, bs = 0;
          int64_t vo, vs;
          vals[0] = x;
          vals[1] = y;
          vals[2] = z;
          vo = eval(d, e, vals, 0, &bo);
          vs = eval(d, sx, vals, 0, &bs);
          if (!bo && (bs || vo != vs)) {
            char *so = tvm_expr_str(e), *ss = tvm_expr_str(sx);
            print_message("case %d: %s -> %s differs at x=%lld y=%lld z=%lld: %lld vs %lld "
                          "(y in [x*%lld + %lld, +%lld))\n", iter, so, ss, (long long)x,
                          (long long)y, (long long)z, (long long)vo, (long long)vs,
                          (long long)k, (long long)m, (long long)ey);
            tvm_free(so);
            tvm_free(ss);
            fail();
          }
        }
  }
  if (tvm_dtype_is_bool(e->dtype)) {
    tvm_bounds_free(&b);
    return 1;
  }
  r = tvm_eval_range(c, e, &b);
  if (!r.min) {
    tvm_bounds_free(&b);
    return 0;
  }
  for (x = -3; x <= 3; x++) {
    int bad = 0;
    int64_t rmin, rext, mn = INT64_MAX, mx = INT64_MIN, y, z;
    vals[0] = x;
    rmin = eval(d, r.min, vals, 0, &bad);
    rext = eval(d, r.extent, vals, 0, &bad);
    assert_false(bad);
    for (y = x * k + m; y < x * k + m + ey; y++)
      for (z = d->lo[2]; z < d->lo[2] + d->ext[2]; z++) {
        int64_t v;
        vals[1] = y;
        vals[2] = z;
        v = eval(d, e, vals, 0, &bad);
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
    if (bad) continue;
    if (rmin > mn || rmin + rext - 1 < mx || (d->affine && (rmin != mn || rmin + rext - 1 != mx))) {
      char *so = tvm_expr_str(e), *s1 = tvm_expr_str(r.min), *s2 = tvm_expr_str(r.extent);
      print_message("case %d: range of %s is [%s, +%s) = [%lld, +%lld) at x=%lld, values "
                    "[%lld, %lld]; y in [x*%lld + %lld, +%lld), z in [%lld, +%lld)\n",
                    iter, so, s1, s2, (long long)rmin, (long long)rext, (long long)x,
                    (long long)mn, (long long)mx, (long long)k, (long long)m, (long long)ey,
                    (long long)d->lo[2], (long long)d->ext[2]);
      tvm_free(so);
      tvm_free(s1);
      tvm_free(s2);
      fail();
    }
  }
  tvm_bounds_free(&b);
  return 1;
}

static void run_differential(int vector, int n, uint64_t seed) {
  dt d;
  int k, checked = 0;
  memset(&d, 0, sizeof d);
  d.seed = seed;
  for (k = 0; k < n; k++) {
    if (k % 200 == 0) {
      if (d.c) tvm_ctx_destroy(d.c);
      d.c = tvm_ctx_create();
      assert_non_null(d.c);
      d.v[0] = tvm_var(d.c, "x", TVM_I32);
      d.v[1] = tvm_var(d.c, "y", TVM_I32);
      d.v[2] = tvm_var(d.c, "z", TVM_I32);
    }
    checked += vector == 2 ? one_symbolic(&d, k) : one_case(&d, k, vector);
    assert_int_equal(tvm_ctx_status(d.c), TVM_OK);
  }
  /* most cases must be checkable (the generator avoids zero divisors) */
  if (vector == 2)
    assert_true(checked > n / 2);
  else
    assert_true(checked > n * 9 / 10);
  tvm_ctx_destroy(d.c);
}

static void test_differential_scalar(void **state) {
  const char *env = getenv("TVM_ARITH_CASES");
  int n = env ? atoi(env) : 4000;
  (void)state;
  const char *seed = getenv("TVM_ARITH_SEED");
  run_differential(0, n > 0 ? n : 4000, seed ? strtoull(seed, NULL, 0) : 0x5eed1234u);
}

static void test_differential_vector(void **state) {
  const char *env = getenv("TVM_ARITH_CASES");
  const char *seed = getenv("TVM_ARITH_SEED");
  int n = env ? atoi(env) : 1500;
  (void)state;
  run_differential(1, n > 0 ? n : 1500, seed ? strtoull(seed, NULL, 0) + 1 : 0xfeedbeefu);
}

static void test_differential_symbolic_range(void **state) {
  const char *env = getenv("TVM_ARITH_CASES");
  const char *seed = getenv("TVM_ARITH_SEED");
  int n = env ? atoi(env) : 2000;
  (void)state;
  run_differential(2, n > 0 ? n : 2000, seed ? strtoull(seed, NULL, 0) + 2 : 0xabcdefu);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bounds_map),
      cmocka_unit_test(test_const_bounds),
      cmocka_unit_test(test_eval_range),
      cmocka_unit_test(test_prove),
      cmocka_unit_test(test_differential_scalar),
      cmocka_unit_test(test_differential_vector),
      cmocka_unit_test(test_differential_symbolic_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
