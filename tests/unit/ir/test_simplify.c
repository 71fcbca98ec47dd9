/*
 * tests/unit/ir/test_simplify.c - the expression and statement simplifier:
 * exact printed results for folding, the canonical affine form, division
 * rules, min/max/comparisons decided by bounds, vector rules, statement
 * cleanup, and tvm_pass_simplify.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/ir.h"
#include "tvm/lower.h"

typedef struct fx {
  tvm_ctx *c;
  tvm_bounds b;
  tvm_expr *x, *y, *z, *i, *j, *io, *ii, *f, *l;
  int fails; /* mismatches so far: all are reported, then the test fails */
} fx;

static int setup(void **state) {
  fx *t = calloc(1, sizeof *t);
  if (!t) return -1;
  t->c = tvm_ctx_create();
  if (!t->c) return -1;
  t->x = tvm_var(t->c, "x", TVM_I32);
  t->y = tvm_var(t->c, "y", TVM_I32);
  t->z = tvm_var(t->c, "z", TVM_I32);
  t->i = tvm_var(t->c, "i", TVM_I32);
  t->j = tvm_var(t->c, "j", TVM_I32);
  t->io = tvm_var(t->c, "io", TVM_I32);
  t->ii = tvm_var(t->c, "ii", TVM_I32);
  t->f = tvm_var(t->c, "f", TVM_I32);
  t->l = tvm_var(t->c, "l", TVM_I64);
  *state = t;
  return 0;
}

static int teardown(void **state) {
  fx *t = *state;
  int fails = t->fails;
  tvm_bounds_free(&t->b);
  tvm_ctx_destroy(t->c);
  free(t);
  return fails ? -1 : 0; /* cmocka reports a failed teardown */
}

static void range(fx *t, tvm_expr *v, int64_t min, int64_t extent) {
  tvm_range r;
  r.min = tvm_const(t->c, v->dtype, min);
  r.extent = tvm_const(t->c, v->dtype, extent);
  assert_int_equal(tvm_bounds_set(&t->b, v, &r), TVM_OK);
}

/* Simplifies e (with the fixture's bounds when use_bounds) and compares the
 * printed result. */
static void check(fx *t, tvm_expr *e, int use_bounds, const char *want) {
  tvm_expr *s;
  char *got;
  assert_non_null(e);
  s = tvm_simplify(t->c, e, use_bounds ? &t->b : NULL);
  assert_non_null(s);
  got = tvm_expr_str(s);
  assert_non_null(got);
  if (strcmp(got, want) != 0) {
    char *orig = tvm_expr_str(e);
    print_message("simplify(%s) = %s, want %s\n", orig, got, want);
    tvm_free(orig);
    t->fails++;
  }
  tvm_free(got);
  assert_int_equal(tvm_ctx_status(t->c), TVM_OK);
}

#define I(v) tvm_int(c, v)

static void test_fold_int(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  check(t, tvm_add(c, I(3), I(4)), 0, "7");
  check(t, tvm_sub(c, I(7), I(10)), 0, "-3");
  check(t, tvm_mul(c, I(6), I(-7)), 0, "-42");
  check(t, tvm_floordiv(c, I(-7), I(2)), 0, "-4");
  check(t, tvm_floormod(c, I(-7), I(2)), 0, "1");
  check(t, tvm_floordiv(c, I(7), I(-2)), 0, "-4");
  check(t, tvm_floormod(c, I(7), I(-2)), 0, "-1");
  check(t, tvm_div(c, I(-7), I(2)), 0, "-3");
  check(t, tvm_mod(c, I(-7), I(2)), 0, "-1");
  check(t, tvm_min(c, I(3), I(5)), 0, "3");
  check(t, tvm_max(c, I(3), I(5)), 0, "5");
  check(t, tvm_lt(c, I(3), I(5)), 0, "true");
  check(t, tvm_eq(c, I(5), I(4)), 0, "false");
  check(t, tvm_ge(c, I(5), I(5)), 0, "true");
  check(t, tvm_add(c, tvm_mul(c, I(2), I(3)), tvm_floordiv(c, I(9), I(4))), 0, "8");
  /* no folding across overflow, division by zero */
  check(t, tvm_add(c, I(2147483647), I(1)), 0, "2147483647 + 1");
  check(t, tvm_div(c, I(5), I(0)), 0, "5 / 0");
  check(t, tvm_floormod(c, t->x, I(0)), 0, "floormod(x, 0)");
  /* int64 and narrow types */
  check(t, tvm_add(c, tvm_const(c, TVM_I64, 2147483647), tvm_const(c, TVM_I64, 1)),
        0, "2147483648i64");
  check(t, tvm_add(c, tvm_const(c, TVM_I8, 100), tvm_const(c, TVM_I8, 27)), 0, "127i8");
  check(t, tvm_add(c, tvm_const(c, TVM_I8, 100), tvm_const(c, TVM_I8, 28)), 0,
        "100i8 + 28i8");
  check(t, tvm_sub(c, tvm_const(c, TVM_U8, 3), tvm_const(c, TVM_U8, 5)), 0,
        "3u8 - 5u8");
}

static void test_fold_float_cast_logic(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  tvm_expr *a = tvm_var(c, "a", TVM_F32), *p = tvm_var(c, "p", TVM_BOOL);
  check(t, tvm_add(c, tvm_f32(c, 1.5), tvm_f32(c, 2.25)), 0, "3.75f");
  check(t, tvm_mul(c, a, tvm_f32(c, 1.0)), 0, "a");
  check(t, tvm_add(c, a, tvm_f32(c, 0.0)), 0, "a + 0.0f");
  check(t, tvm_mul(c, a, tvm_f32(c, 0.0)), 0, "a * 0.0f");
  check(t, tvm_div(c, tvm_f32(c, 1.0), tvm_f32(c, 0.0)), 0, "1.0f / 0.0f");
  check(t, tvm_lt(c, tvm_f32(c, 1.0), tvm_f32(c, 2.0)), 0, "true");
  check(t, tvm_max(c, tvm_f32(c, -1.0), tvm_f32(c, 2.5)), 0, "2.5f");
  check(t, tvm_cast(c, TVM_F32, I(3)), 0, "3.0f");
  check(t, tvm_cast(c, TVM_I32, tvm_f32(c, 2.75)), 0, "2");
  check(t, tvm_cast(c, TVM_I32, tvm_f32(c, -2.75)), 0, "-2");
  check(t, tvm_cast(c, TVM_I8, I(300)), 0, "44i8");
  check(t, tvm_cast(c, TVM_I32, t->x), 0, "x");
  check(t, tvm_cast(c, TVM_I64, tvm_add(c, I(1), I(2))), 0, "3i64");
  check(t, tvm_and(c, tvm_lt(c, I(1), I(2)), p), 0, "p");
  check(t, tvm_and(c, tvm_gt(c, I(1), I(2)), p), 0, "false");
  check(t, tvm_or(c, p, tvm_gt(c, I(3), I(2))), 0, "true");
  check(t, tvm_or(c, p, tvm_gt(c, I(1), I(2))), 0, "p");
  check(t, tvm_not(c, tvm_lt(c, t->x, t->y)), 0, "x >= y");
  check(t, tvm_not(c, tvm_not(c, p)), 0, "p");
  check(t, tvm_not(c, tvm_lt(c, a, tvm_f32(c, 1.0))), 0, "!(a < 1.0f)");
  check(t, tvm_select(c, tvm_lt(c, I(3), I(5)), t->x, t->y), 0, "x");
  check(t, tvm_select(c, p, tvm_add(c, t->x, I(1)), tvm_add(c, I(1), t->x)), 0, "x + 1");
}

static void test_affine(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  tvm_expr *x = t->x, *y = t->y, *z = t->z;
  check(t, tvm_sub(c, x, x), 0, "0");
  check(t, tvm_mul(c, tvm_add(c, tvm_mul(c, x, I(4)), y), I(2)), 0, "x * 8 + y * 2");
  check(t, tvm_sub(c, tvm_add(c, x, y), x), 0, "y");
  check(t, tvm_add(c, tvm_mul(c, I(2), x), tvm_mul(c, x, I(3))), 0, "x * 5");
  check(t, tvm_add(c, tvm_sub(c, tvm_mul(c, x, I(3)), tvm_mul(c, x, I(3))), I(5)), 0, "5");
  check(t, tvm_sub(c, I(8), x), 0, "8 - x");
  check(t, tvm_sub(c, I(0), x), 0, "x * -1");
  check(t, tvm_sub(c, tvm_sub(c, y, x), I(3)), 0, "y - x - 3");
  check(t, tvm_add(c, tvm_add(c, x, I(1)), tvm_add(c, y, I(-1))), 0, "x + y");
  check(t, tvm_sub(c, tvm_mul(c, x, y), tvm_mul(c, x, y)), 0, "0");
  check(t, tvm_add(c, tvm_add(c, x, tvm_mul(c, y, z)), tvm_sub(c, x, tvm_mul(c, y, z))),
        0, "x * 2");
  check(t, tvm_sub(c, tvm_add(c, tvm_mul(c, t->i, I(8)), t->j), tvm_mul(c, t->i, I(8))),
        0, "j");
  check(t, tvm_mul(c, tvm_sub(c, x, y), I(0)), 0, "0");
  /* products of non-constants: constant factors out, variables by id */
  check(t, tvm_mul(c, tvm_mul(c, x, I(2)), tvm_mul(c, y, I(3))), 0, "x * y * 6");
  check(t, tvm_mul(c, y, x), 0, "x * y");
  check(t, tvm_sub(c, tvm_mul(c, x, y), tvm_mul(c, y, x)), 0, "0");
  check(t, tvm_mul(c, tvm_sub(c, I(0), x), y), 0, "x * y * -1");
  /* small sums times one term distribute, so symbolic extents cancel */
  check(t, tvm_mul(c, tvm_add(c, x, I(1)), y), 0, "x * y + y");
  check(t, tvm_sub(c, tvm_mul(c, tvm_add(c, x, I(1)), z), tvm_mul(c, x, z)), 0, "z");
  check(t, tvm_mul(c, tvm_add(c, x, y), tvm_mul(c, y, I(2))), 0, "x * y * 2 + y * y * 2");
  check(t, tvm_mul(c, tvm_add(c, x, I(1)), tvm_add(c, y, I(1))), 0, "(x + 1) * (y + 1)");
  check(t, tvm_add(c, tvm_mul(c, t->l, tvm_const(c, TVM_I64, 2)), t->l), 0, "l * 3i64");
  /* coefficients that leave int32 stay unfolded */
  check(t, tvm_mul(c, tvm_mul(c, x, I(65536)), I(65536)), 0, "x * 65536 * 65536");
  /* fused index: floordiv(f, 8)*8 + floormod(f, 8) == f */
  check(t, tvm_add(c, tvm_mul(c, tvm_floordiv(c, t->f, I(8)), I(8)),
                   tvm_floormod(c, t->f, I(8))),
        0, "f");
  check(t, tvm_add(c, tvm_mul(c, tvm_div(c, t->f, I(4)), I(4)), tvm_mod(c, t->f, I(4))),
        0, "f");
  /* a chain of + and - is one affine form (the pair merges across it) */
  check(t, tvm_add(c, tvm_add(c, tvm_mul(c, tvm_floordiv(c, t->f, I(8)), I(8)), y),
                   tvm_floormod(c, t->f, I(8))),
        0, "f + y");
  /* a fused loop split back into rows and columns of a plane:
   * floordiv(floormod(f, 3136), 56)*56 + floormod(f, 56) == floormod(f, 3136),
   * and the whole index f once the plane's multiple is added back */
  {
    tvm_expr *plane = tvm_floormod(c, t->f, I(3136));
    tvm_expr *rc = tvm_add(c, tvm_mul(c, tvm_floordiv(c, plane, I(56)), I(56)),
                           tvm_floormod(c, t->f, I(56)));
    check(t, rc, 0, "floormod(f, 3136)");
    check(t, tvm_add(c, tvm_mul(c, tvm_floordiv(c, t->f, I(3136)), I(3136)), rc), 0, "f");
    check(t, tvm_mul(c, rc, I(2)), 0, "floormod(f, 3136) * 2");
    /* 100 is no multiple of 56: rows of a 100-wide window do not merge */
    tvm_expr *odd = tvm_add(
        c, tvm_mul(c, tvm_floordiv(c, tvm_floormod(c, t->f, I(100)), I(56)), I(56)),
        tvm_floormod(c, t->f, I(56)));
    check(t, odd, 0, "floordiv(floormod(f, 100), 56) * 56 + floormod(f, 56)");
    /* truncating pairs are not floor ones: no merge */
    tvm_expr *tr = tvm_add(c, tvm_mul(c, tvm_div(c, tvm_floormod(c, t->f, I(3136)), I(56)), I(56)),
                           tvm_mod(c, t->f, I(56)));
    check(t, tr, 0, "floormod(f, 3136) / 56 * 56 + f % 56");
  }
  /* chains of 20 and of 40 operands (past the one-step path's 32): x and
   * y cancel, z stays, the constants fold */
  for (int len = 20; len <= 40; len += 20) {
    tvm_expr *e = z;
    for (int k = 0; k < len; k++) {
      tvm_expr *v = k % 4 < 2 ? x : y;
      e = k % 2 ? tvm_sub(c, e, v) : tvm_add(c, e, v);
      if (k % 5 == 0) e = tvm_add(c, e, I(k));
    }
    check(t, e, 0, len == 20 ? "z + 30" : "z + 140");
  }
}

static void test_divmod(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  tvm_expr *x = t->x, *i = t->i, *j = t->j;
  tvm_expr *ij = tvm_add(c, tvm_mul(c, i, I(8)), j);
  /* without bounds: multiples come out, the rest stays */
  check(t, tvm_floordiv(c, ij, I(8)), 0, "i + floordiv(j, 8)");
  check(t, tvm_floormod(c, ij, I(8)), 0, "floormod(j, 8)");
  check(t, tvm_floordiv(c, x, I(1)), 0, "x");
  check(t, tvm_floormod(c, x, I(1)), 0, "0");
  check(t, tvm_div(c, x, I(1)), 0, "x");
  check(t, tvm_floordiv(c, tvm_floordiv(c, x, I(4)), I(8)), 0, "floordiv(x, 32)");
  check(t, tvm_floordiv(c, tvm_add(c, tvm_floordiv(c, x, I(4)), I(1)), I(8)), 0,
        "floordiv(x + 4, 32)");
  check(t, tvm_floormod(c, tvm_floormod(c, x, I(16)), I(4)), 0, "floormod(x, 4)");
  check(t, tvm_floormod(c, tvm_floormod(c, x, I(4)), I(16)), 0, "floormod(x, 4)");
  check(t, tvm_floordiv(c, tvm_mul(c, x, I(4)), I(4)), 0, "x");
  check(t, tvm_floormod(c, tvm_mul(c, x, I(4)), I(4)), 0, "0");
  check(t, tvm_floormod(c, tvm_add(c, tvm_mul(c, x, I(8)), I(3)), I(4)), 0, "3");
  check(t, tvm_floordiv(c, tvm_add(c, tvm_mul(c, x, I(8)), I(3)), I(4)), 0, "x * 2");
  check(t, tvm_floordiv(c, tvm_mul(c, x, I(6)), I(4)), 0, "floordiv(x * 3, 2)");
  check(t, tvm_floormod(c, tvm_mul(c, x, I(6)), I(4)), 0, "floormod(x * 3, 2) * 2");
  check(t, tvm_floordiv(c, x, I(-2)), 0, "floordiv(x, -2)");
  /* a remainder below a coefficient that divides the divisor drops out */
  check(t, tvm_floordiv(c, tvm_add(c, tvm_mul(c, x, I(4)), I(3)), I(8)), 0, "floordiv(x, 2)");
  check(t, tvm_floormod(c, tvm_add(c, tvm_mul(c, x, I(4)), I(3)), I(8)), 0,
        "floormod(x, 2) * 4 + 3");
  /* truncating division needs a non-negative numerator */
  check(t, tvm_div(c, ij, I(8)), 0, "(i * 8 + j) / 8");
  check(t, tvm_mod(c, ij, I(8)), 0, "(i * 8 + j) % 8");
  /* with bounds */
  range(t, i, 0, 16);
  range(t, j, 0, 8);
  check(t, tvm_floordiv(c, ij, I(8)), 1, "i");
  check(t, tvm_floormod(c, ij, I(8)), 1, "j");
  check(t, tvm_div(c, ij, I(8)), 1, "i");
  check(t, tvm_mod(c, ij, I(8)), 1, "j");
  check(t, tvm_floordiv(c, tvm_add(c, ij, I(8)), I(8)), 1, "i + 1");
  check(t, tvm_floordiv(c, ij, I(16)), 1, "floordiv(i, 2)");
  check(t, tvm_floormod(c, ij, I(16)), 1, "floormod(i, 2) * 8 + j");
  check(t, tvm_floordiv(c, j, I(8)), 1, "0");
  check(t, tvm_floormod(c, j, I(16)), 1, "j");
  check(t, tvm_floordiv(c, tvm_add(c, j, I(32)), I(16)), 1, "2");
  check(t, tvm_floormod(c, tvm_add(c, j, I(32)), I(16)), 1, "j");
  check(t, tvm_floormod(c, tvm_sub(c, j, I(8)), I(8)), 1, "j");
  check(t, tvm_floordiv(c, tvm_sub(c, j, I(8)), I(8)), 1, "-1");
  /* three-level tiling: ((io*4 + ii)*8 + j) split back */
  range(t, t->io, 0, 4);
  range(t, t->ii, 0, 4);
  {
    tvm_expr *idx = tvm_add(c, tvm_mul(c, tvm_add(c, tvm_mul(c, t->io, I(4)), t->ii), I(8)), j);
    check(t, idx, 1, "io * 32 + ii * 8 + j");
    check(t, tvm_floordiv(c, idx, I(8)), 1, "io * 4 + ii");
    check(t, tvm_floormod(c, idx, I(8)), 1, "j");
    check(t, tvm_floordiv(c, idx, I(32)), 1, "io");
    check(t, tvm_floormod(c, idx, I(32)), 1, "ii * 8 + j");
    check(t, tvm_floordiv(c, tvm_floordiv(c, idx, I(8)), I(4)), 1, "io");
    check(t, tvm_floormod(c, tvm_floordiv(c, idx, I(8)), I(4)), 1, "ii");
  }
}

static void test_minmax_compare(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  tvm_expr *x = t->x, *y = t->y, *i = t->i, *j = t->j;
  check(t, tvm_min(c, tvm_add(c, x, I(1)), x), 0, "x");
  check(t, tvm_max(c, tvm_add(c, x, I(3)), tvm_sub(c, x, I(2))), 0, "x + 3");
  check(t, tvm_min(c, x, x), 0, "x");
  check(t, tvm_min(c, I(5), x), 0, "min(x, 5)");
  check(t, tvm_min(c, tvm_min(c, x, I(3)), I(5)), 0, "min(x, 3)");
  check(t, tvm_max(c, tvm_max(c, x, I(3)), I(5)), 0, "max(x, 5)");
  check(t, tvm_min(c, x, y), 0, "min(x, y)");
  check(t, tvm_lt(c, x, tvm_add(c, x, I(1))), 0, "true");
  check(t, tvm_eq(c, tvm_add(c, x, y), tvm_add(c, y, x)), 0, "true");
  check(t, tvm_ne(c, tvm_mul(c, x, I(2)), tvm_add(c, tvm_mul(c, x, I(2)), I(1))), 0, "true");
  check(t, tvm_lt(c, x, y), 0, "x < y");
  /* a sum around a min/max goes inside when terms cancel (tail extents) */
  check(t, tvm_sub(c, tvm_min(c, tvm_add(c, tvm_mul(c, x, I(4)), I(4)), I(10)),
                   tvm_mul(c, x, I(4))),
        0, "min(10 - x * 4, 4)");
  check(t, tvm_sub(c, tvm_add(c, x, I(8)), tvm_max(c, x, y)), 0, "min(x - y, 0) + 8");
  check(t, tvm_add(c, tvm_min(c, x, y), I(1)), 0, "min(x, y) + 1");
  check(t, tvm_add(c, tvm_min(c, x, y), t->z), 0, "min(x, y) + z");
  range(t, i, 0, 64);
  range(t, j, 0, 8);
  check(t, tvm_min(c, i, I(64)), 1, "i");
  check(t, tvm_min(c, i, I(63)), 1, "i");
  check(t, tvm_min(c, i, I(62)), 1, "min(i, 62)");
  check(t, tvm_max(c, i, I(0)), 1, "i");
  check(t, tvm_max(c, tvm_min(c, i, I(10)), I(20)), 1, "20");
  check(t, tvm_lt(c, i, I(64)), 1, "true");
  check(t, tvm_ge(c, i, I(64)), 1, "false");
  check(t, tvm_lt(c, i, I(63)), 1, "i < 63");
  check(t, tvm_lt(c, tvm_add(c, i, j), I(71)), 1, "true");
  check(t, tvm_lt(c, tvm_add(c, tvm_mul(c, i, I(8)), j), I(512)), 1, "true");
  check(t, tvm_eq(c, tvm_floormod(c, j, I(8)), I(9)), 1, "false");
  check(t, tvm_select(c, tvm_lt(c, i, I(64)), i, I(0)), 1, "i");
  check(t, tvm_and(c, tvm_lt(c, i, I(64)), tvm_ge(c, j, I(0))), 1, "true");
}

static void test_symbolic_bounds(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  tvm_expr *n = tvm_var(c, "n", TVM_I32), *i = t->i, *io = t->io, *ii = t->ii;
  tvm_range r;
  /* i in [0, n), io in [0, floordiv(n + 3, 4)), ii in [0, 4) */
  r.min = I(0);
  r.extent = n;
  assert_int_equal(tvm_bounds_set(&t->b, i, &r), TVM_OK);
  r.extent = tvm_floordiv(c, tvm_add(c, n, I(3)), I(4));
  assert_int_equal(tvm_bounds_set(&t->b, io, &r), TVM_OK);
  range(t, ii, 0, 4);
  check(t, tvm_lt(c, i, n), 1, "true");
  check(t, tvm_ge(c, i, n), 1, "false");
  check(t, tvm_le(c, i, tvm_sub(c, n, I(1))), 1, "true");
  check(t, tvm_lt(c, i, tvm_sub(c, n, I(1))), 1, "i < n - 1");
  check(t, tvm_min(c, i, n), 1, "i");
  check(t, tvm_max(c, tvm_add(c, i, I(1)), n), 1, "n");
  /* the tail guard of a split symbolic loop is needed: it stays */
  check(t, tvm_lt(c, tvm_add(c, tvm_mul(c, io, I(4)), ii), n), 1, "io * 4 + ii < n");
  check(t, tvm_lt(c, io, tvm_floordiv(c, tvm_add(c, n, I(3)), I(4))), 1, "true");
}

static void test_vector(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  tvm_expr *x = t->x, *y = t->y, *i = t->i;
  tvm_expr *a = tvm_var(c, "a", TVM_F32), *b = tvm_var(c, "b", TVM_F32);
  check(t, tvm_add(c, tvm_ramp(c, x, I(1), 4), tvm_broadcast(c, y, 4)), 0,
        "ramp(x + y, 1, 4)");
  check(t, tvm_add(c, tvm_broadcast(c, y, 4), tvm_ramp(c, x, I(1), 4)), 0,
        "ramp(y + x, 1, 4)");
  check(t, tvm_sub(c, tvm_ramp(c, x, I(2), 4), tvm_broadcast(c, x, 4)), 0,
        "ramp(0, 2, 4)");
  check(t, tvm_mul(c, tvm_broadcast(c, a, 8), tvm_broadcast(c, b, 8)), 0, "x8(a * b)");
  check(t, tvm_mul(c, tvm_ramp(c, x, I(1), 4), tvm_broadcast(c, I(4), 4)), 0,
        "ramp(x * 4, 4, 4)");
  check(t, tvm_ramp(c, x, I(0), 4), 0, "x4(x)");
  check(t, tvm_floordiv(c, tvm_ramp(c, tvm_mul(c, i, I(8)), I(1), 8), tvm_broadcast(c, I(8), 8)),
        0, "x8(i)");
  check(t, tvm_floormod(c, tvm_ramp(c, tvm_mul(c, i, I(8)), I(1), 8), tvm_broadcast(c, I(8), 8)),
        0, "ramp(0, 1, 8)");
  check(t, tvm_floordiv(c, tvm_ramp(c, x, I(8), 4), tvm_broadcast(c, I(8), 4)), 0,
        "ramp(floordiv(x, 8), 1, 4)");
  check(t, tvm_floordiv(c, tvm_ramp(c, x, I(1), 4), tvm_broadcast(c, I(8), 4)), 0,
        "floordiv(ramp(x, 1, 4), x4(8))");
  check(t, tvm_floordiv(c, tvm_ramp(c, tvm_mul(c, x, I(8)), I(1), 4), tvm_broadcast(c, I(16), 4)),
        0, "x4(floordiv(x, 2))");
  check(t, tvm_floormod(c, tvm_ramp(c, tvm_mul(c, x, I(8)), I(1), 4), tvm_broadcast(c, I(16), 4)),
        0, "ramp(floormod(x, 2) * 8, 1, 4)");
  range(t, i, 0, 64);
  check(t, tvm_lt(c, tvm_ramp(c, tvm_mul(c, tvm_floordiv(c, i, I(8)), I(8)), I(1), 8),
                  tvm_broadcast(c, I(64), 8)),
        1, "x8(true)");
  /* a vector that is no ramp (a padded layout's clamp) whose lanes all lie
   * in one block of the divisor: its quotient is a constant */
  {
    tvm_expr *cl;
    range(t, y, 0, 8);
    cl = tvm_min(c, tvm_ramp(c, tvm_mul(c, y, I(16)), I(1), 16), tvm_broadcast(c, I(115), 16));
    check(t, tvm_floordiv(c, cl, tvm_broadcast(c, I(116), 16)), 1, "x16(0)");
    check(t, tvm_floormod(c, cl, tvm_broadcast(c, I(116), 16)), 1,
          "min(ramp(y * 16, 1, 16), x16(115))");
    check(t, tvm_floordiv(c, tvm_add(c, cl, tvm_broadcast(c, I(232), 16)),
                          tvm_broadcast(c, I(116), 16)),
          1, "x16(2)");
    check(t, tvm_floordiv(c, cl, tvm_broadcast(c, I(64), 16)), 1,
          "floordiv(min(ramp(y * 16, 1, 16), x16(115)), x16(64))");
  }
}

static void test_let(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  tvm_expr *v = tvm_var(c, "v", TVM_I32);
  check(t, tvm_let(c, v, I(3), tvm_add(c, v, t->x)), 0, "x + 3");
  range(t, t->j, 0, 8);
  /* the body knows v's range: j*j is in [0, 49] */
  check(t, tvm_let(c, v, tvm_mul(c, t->j, t->j), tvm_floordiv(c, v, I(64))), 1,
        "let v = j * j in 0");
  check(t, tvm_let(c, v, tvm_mul(c, t->j, t->j), tvm_floordiv(c, v, I(16))), 1,
        "let v = j * j in floordiv(v, 16)");
  check(t, tvm_let(c, v, tvm_floormod(c, t->x, I(8)), tvm_floordiv(c, v, I(8))), 1,
        "let v = floormod(x, 8) in 0");
}

/* ---- statements ------------------------------------------------------------ */

static void check_stmt(fx *t, tvm_stmt *s, const char *want) {
  tvm_stmt *r = tvm_simplify_stmt(t->c, s, NULL);
  char *got;
  assert_non_null(r);
  got = tvm_stmt_str(r);
  assert_non_null(got);
  if (strcmp(got, want) != 0) {
    print_message("got:\n%s\nwant:\n%s\n", got, want);
    t->fails++;
  }
  tvm_free(got);
  assert_int_equal(tvm_ctx_status(t->c), TVM_OK);
}

static void test_stmt(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *i = t->i, *j = t->j, *io = t->io, *ii = t->ii;
  tvm_stmt *st, *body;
  /* tiled loop: the guard io*4 + ii < 64 goes away, the index is canonical */
  st = tvm_store(c, A, tvm_add(c, tvm_mul(c, io, I(4)), ii), tvm_f32(c, 1.0), NULL);
  body = tvm_if(c, tvm_lt(c, tvm_add(c, tvm_mul(c, io, I(4)), ii), I(64)), st, NULL);
  st = tvm_for(c, io, I(0), I(16), TVM_FOR_SERIAL, NULL,
               tvm_for(c, ii, I(0), I(4), TVM_FOR_SERIAL, NULL, body));
  check_stmt(t, st,
             "for (io, 0, 16) {\n"
             "  for (ii, 0, 4) {\n"
             "    A[io * 4 + ii] = 1.0f\n"
             "  }\n"
             "}\n");
  /* likely(true) folds too */
  {
    tvm_expr *cond = tvm_lt(c, tvm_add(c, tvm_mul(c, io, I(4)), ii), I(64));
    tvm_expr *lk = tvm_call(c, TVM_BOOL, TVM_INTRIN_LIKELY, &cond, 1);
    st = tvm_store(c, A, ii, tvm_f32(c, 2.0), NULL);
    st = tvm_for(c, io, I(0), I(16), TVM_FOR_SERIAL, NULL,
                 tvm_for(c, ii, I(0), I(4), TVM_FOR_VECTORIZED, NULL, tvm_if(c, lk, st, NULL)));
    check_stmt(t, st,
               "for (io, 0, 16) {\n"
               "  for (ii, 0, 4) vectorized {\n"
               "    A[ii] = 2.0f\n"
               "  }\n"
               "}\n");
  }
  /* a guard that is needed stays; its then-branch is simplified */
  st = tvm_store(c, A, tvm_add(c, tvm_mul(c, io, I(4)), tvm_sub(c, ii, ii)), tvm_f32(c, 1.0), NULL);
  body = tvm_if(c, tvm_lt(c, tvm_add(c, tvm_mul(c, io, I(4)), ii), I(60)), st, NULL);
  st = tvm_for(c, io, I(0), I(16), TVM_FOR_SERIAL, NULL,
               tvm_for(c, ii, I(0), I(4), TVM_FOR_SERIAL, NULL, body));
  check_stmt(t, st,
             "for (io, 0, 16) {\n"
             "  for (ii, 0, 4) {\n"
             "    if (io * 4 + ii < 60) {\n"
             "      A[io * 4] = 1.0f\n"
             "    }\n"
             "  }\n"
             "}\n");
  /* loops of extent 1 disappear (their var becomes the min) */
  st = tvm_for(c, i, I(0), I(8), TVM_FOR_SERIAL, NULL,
               tvm_for(c, j, I(3), I(1), TVM_FOR_SERIAL, NULL,
                       tvm_store(c, A, tvm_add(c, tvm_mul(c, i, I(8)), j), tvm_f32(c, 0.0), NULL)));
  check_stmt(t, st,
             "for (i, 0, 8) {\n"
             "  A[i * 8 + 3] = 0.0f\n"
             "}\n");
  /* if(false) without else, evaluate(const), empty loop: nothing left */
  {
    tvm_stmt *parts[3];
    parts[0] = tvm_if(c, tvm_gt(c, I(1), I(2)), tvm_store(c, A, I(0), tvm_f32(c, 0.0), NULL), NULL);
    parts[1] = tvm_evaluate(c, tvm_add(c, I(1), I(2)));
    parts[2] = tvm_for(c, i, I(0), I(0), TVM_FOR_SERIAL, NULL,
                       tvm_store(c, A, i, tvm_f32(c, 0.0), NULL));
    check_stmt(t, tvm_seq(c, parts, 3), "nop\n");
    /* if(true) keeps then, if(false) picks else */
    parts[0] = tvm_if(c, tvm_lt(c, I(1), I(2)), tvm_store(c, A, I(1), tvm_f32(c, 1.0), NULL),
                      tvm_store(c, A, I(2), tvm_f32(c, 2.0), NULL));
    parts[1] = tvm_if(c, tvm_gt(c, I(1), I(2)), tvm_store(c, A, I(1), tvm_f32(c, 1.0), NULL),
                      tvm_store(c, A, I(2), tvm_f32(c, 2.0), NULL));
    check_stmt(t, tvm_seq(c, parts, 2), "A[1] = 1.0f\nA[2] = 2.0f\n");
  }
  /* let with a constant is substituted; vector code: lane-safe folds only */
  {
    tvm_expr *v = tvm_var(c, "v", TVM_I32);
    st = tvm_let_stmt(c, v, tvm_add(c, I(4), I(4)),
                      tvm_store(c, A, tvm_add(c, tvm_ramp(c, tvm_mul(c, v, I(2)), I(1), 4),
                                              tvm_broadcast(c, I(1), 4)),
                                tvm_broadcast(c, tvm_f32(c, 0.0), 4), NULL));
    check_stmt(t, st, "A[ramp(17, 1, 4)] = x4(0.0f)\n");
  }
}

/* A vector loop's tail guard (hoist_guards' shape): in the then-branch
 * the guard bounds the outer loop to its first trip, so the rows' index
 * math folds to a broadcast; in the else-branch (the masked tail) only
 * the lanes the mask keeps matter, so it folds there too, while the
 * masks themselves stay as they are.  A load the mask does not cover
 * keeps the tail's lane-exact math. */
/* test_tail_guard's simplified loop up to the tail's stored value: the
 * then-branch folded, the tail's store and its mask */
#define TAIL_GUARD_HEAD                                                        \
  "for (io, 0, 2) {\n"                                                        \
  "  if (io * 16 + 15 < 28) {\n"                                              \
  "    A[ramp(x * 28 + io * 16, 1, 16)] = B[x16(x)]\n"                        \
  "  } else {\n"                                                              \
  "    A[ramp(x * 28 + io * 16, 1, 16), pred=ramp(io * 16, 1, 16) < x16(28)] = "

static void test_tail_guard(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *B = tvm_var(c, "B", TVM_HANDLE);
  tvm_expr *x = t->x, *lo = t->io;
  tvm_expr *base, *rows, *pred, *pred2, *val, *val2, *cond;
  tvm_stmt *full, *tail, *st;
  tvm_dtype f16 = TVM_F32;
  f16.lanes = 16;
  range(t, x, 0, 100);
  /* row x of a 28-wide image, lanes lo*16 .. lo*16+15 */
  base = tvm_add(c, tvm_mul(c, x, I(28)), tvm_mul(c, lo, I(16)));
  rows = tvm_floordiv(c, tvm_ramp(c, base, I(1), 16), tvm_broadcast(c, I(28), 16));
  pred = tvm_lt(c, tvm_ramp(c, tvm_mul(c, lo, I(16)), I(1), 16), tvm_broadcast(c, I(28), 16));
  /* the load's mask: equal to the store's, another node (as vectorize
   * makes them) */
  pred2 = tvm_lt(c, tvm_ramp(c, tvm_mul(c, lo, I(16)), I(1), 16), tvm_broadcast(c, I(28), 16));
  val = tvm_load(c, f16, B, rows, NULL);
  full = tvm_store(c, A, tvm_ramp(c, base, I(1), 16), val, NULL);
  val2 = tvm_load(c, f16, B, rows, pred2);
  tail = tvm_store(c, A, tvm_ramp(c, base, I(1), 16), val2, pred);
  cond = tvm_lt(c, tvm_add(c, tvm_mul(c, lo, I(16)), I(15)), I(28));
  st = tvm_for(c, lo, I(0), I(2), TVM_FOR_SERIAL, NULL, tvm_if(c, cond, full, tail));
  check_stmt(t, st,
             TAIL_GUARD_HEAD
             "B[x16(x), pred=ramp(io * 16, 1, 16) < x16(28)]\n"
             "  }\n"
             "}\n");
  /* the tail's load without the mask: the lanes past 28 are read, so
   * their index must stay exact */
  tail = tvm_store(c, A, tvm_ramp(c, base, I(1), 16), val, pred);
  st = tvm_for(c, lo, I(0), I(2), TVM_FOR_SERIAL, NULL, tvm_if(c, cond, full, tail));
  check_stmt(t, st,
             TAIL_GUARD_HEAD
             "B[floordiv(ramp(x * 28 + io * 16, 1, 16), x16(28))]\n"
             "  }\n"
             "}\n");
  /* without the guard the loop's full range is all the simplifier knows */
  st = tvm_for(c, lo, I(0), I(2), TVM_FOR_SERIAL, NULL, full);
  check_stmt(t, st,
             "for (io, 0, 2) {\n"
             "  A[ramp(x * 28 + io * 16, 1, 16)] = B[floordiv(ramp(x * 28 + io * 16, 1, 16), x16(28))]\n"
             "}\n");
}

static void test_pass(void **state) {
  fx *t = *state;
  tvm_ctx *c = t->c;
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *n = tvm_var(c, "n", TVM_I32);
  tvm_expr *params[2];
  tvm_buffer *bufs[2];
  tvm_expr *shape[1];
  tvm_func *f, *g = NULL;
  tvm_lower_options o;
  char *s;
  shape[0] = I(64);
  params[0] = A;
  params[1] = n;
  bufs[0] = tvm_buffer_new(c, "A", TVM_F32, shape, 1, "global");
  bufs[0]->data = A;
  bufs[1] = NULL;
  f = tvm_func_new(c, "k", params, bufs, 2,
                   tvm_for(c, t->i, I(0), I(64), TVM_FOR_SERIAL, NULL,
                           tvm_if(c, tvm_lt(c, t->i, I(64)),
                                  tvm_store(c, A, tvm_sub(c, tvm_add(c, t->i, n), n),
                                            tvm_f32(c, 1.0), NULL),
                                  NULL)));
  assert_non_null(f);
  tvm_lower_options_init(&o);
  assert_int_equal(tvm_pass_simplify(c, f, &o, &g), TVM_OK);
  assert_non_null(g);
  assert_true(g != f);
  assert_int_equal(g->nparams, 2);
  assert_ptr_equal(g->params[0], A);
  assert_ptr_equal(g->buffers[0], bufs[0]);
  s = tvm_stmt_str(g->body);
  assert_string_equal(s, "for (i, 0, 64) {\n  A[i] = 1.0f\n}\n");
  tvm_free(s);
  assert_int_equal(tvm_pass_simplify(c, NULL, &o, &g), TVM_ERR_INVALID);
}

/* ---- statement differential test ---------------------------------------------
 * Random loop nests (extents 0..4, so loops of extent 1 and 0 occur) with
 * guards, lets and stores A[floormod(e, N)] = A[...] + e run in a tiny
 * interpreter before and after tvm_simplify_stmt: memory must match. */

#define SN 16
#define SV 6
typedef struct sd {
  tvm_ctx *c;
  tvm_expr *A;
  tvm_expr *v[SV]; /* loop vars 0..3, let vars 4..5 */
  int64_t val[SV];
  int live[SV];
  uint64_t seed;
} sd;

static uint32_t srnd(sd *d) {
  d->seed = d->seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(d->seed >> 33);
}
static int64_t srange(sd *d, int64_t lo, int64_t hi) {
  return lo + (int64_t)(srnd(d) % (uint32_t)(hi - lo + 1));
}

static tvm_expr *sgen(sd *d, int depth) {
  tvm_ctx *c = d->c;
  int k, n = 0, idx[SV];
  for (k = 0; k < SV; k++)
    if (d->live[k]) idx[n++] = k;
  if (depth <= 0 || srnd(d) % 4 == 0) {
    if (n > 0 && srnd(d) % 3) return d->v[idx[srnd(d) % (uint32_t)n]];
    return I(srange(d, -5, 9));
  }
  switch (srnd(d) % 8) {
  case 0: case 1: return tvm_add(c, sgen(d, depth - 1), sgen(d, depth - 1));
  case 2: return tvm_sub(c, sgen(d, depth - 1), sgen(d, depth - 1));
  case 3: return tvm_mul(c, sgen(d, depth - 1), I(srange(d, -2, 4)));
  case 4: return tvm_binary(c, srnd(d) % 2 ? TVM_FLOORDIV : TVM_FLOORMOD,
                            sgen(d, depth - 1), I(srange(d, 1, 4)));
  case 5: return tvm_binary(c, srnd(d) % 2 ? TVM_MIN : TVM_MAX, sgen(d, depth - 1),
                            sgen(d, depth - 1));
  case 6: return tvm_select(c, tvm_lt(c, sgen(d, depth - 1), sgen(d, depth - 1)),
                            sgen(d, depth - 1), sgen(d, depth - 1));
  default: return tvm_load(c, TVM_I32, d->A, tvm_floormod(c, sgen(d, depth - 1), I(SN)), NULL);
  }
}

/* A tail guard's shape, k*v + c OP L on one live variable (the branches
 * are simplified with v's range narrowed to where the guard holds or
 * not), sometimes two joined by &&; a random comparison when no variable
 * is live. */
static tvm_expr *linear_guard(sd *d) {
  static const tvm_expr_kind ops[4] = {TVM_LT, TVM_LE, TVM_GT, TVM_GE};
  tvm_ctx *c = d->c;
  int k, n = 0, idx[SV];
  tvm_expr *g[2];
  for (k = 0; k < SV; k++)
    if (d->live[k]) idx[n++] = k;
  if (n == 0) return tvm_lt(c, sgen(d, 2), sgen(d, 1));
  for (k = 0; k < 2; k++) {
    tvm_expr *v = d->v[idx[srnd(d) % (uint32_t)n]];
    tvm_expr *lhs = tvm_add(c, tvm_mul(c, v, I(srange(d, -3, 4))), I(srange(d, -4, 4)));
    g[k] = tvm_binary(c, ops[srnd(d) % 4], lhs, I(srange(d, -6, 9)));
  }
  return srnd(d) % 3 ? g[0] : tvm_and(c, g[0], g[1]);
}

static tvm_stmt *sgen_stmt(sd *d, int depth) {
  tvm_ctx *c = d->c;
  tvm_stmt *r;
  int k;
  uint32_t what = depth <= 0 ? 4 : srnd(d) % 6;
  switch (what) {
  case 0: case 1:
    for (k = 0; k < 4 && d->live[k]; k++) {
    }
    if (k < 4) {
      tvm_expr *min = srnd(d) % 4 ? I(srange(d, -2, 2)) : sgen(d, 1);
      tvm_expr *ext = I(srange(d, 0, 4));
      d->live[k] = 1;
      r = tvm_for(c, d->v[k], min, ext, TVM_FOR_SERIAL, NULL, sgen_stmt(d, depth - 1));
      d->live[k] = 0;
      return r;
    }
    /* fall through */
  case 2: {
    tvm_expr *cond = srnd(d) % 2 ? tvm_binary(c, srnd(d) % 2 ? TVM_LT : TVM_GE, sgen(d, 2), sgen(d, 1))
                                 : linear_guard(d);
    tvm_stmt *a = sgen_stmt(d, depth - 1);
    tvm_stmt *b = srnd(d) % 2 ? sgen_stmt(d, depth - 1) : NULL;
    return tvm_if(c, cond, a, b);
  }
  case 3: {
    tvm_stmt *two[2];
    two[0] = sgen_stmt(d, depth - 1);
    two[1] = sgen_stmt(d, depth - 1);
    return tvm_seq(c, two, 2);
  }
  case 5:
    for (k = 4; k < SV && d->live[k]; k++) {
    }
    if (k < SV) {
      tvm_expr *val = sgen(d, 2);
      d->live[k] = 1;
      r = tvm_let_stmt(c, d->v[k], val, sgen_stmt(d, depth - 1));
      d->live[k] = 0;
      return r;
    }
    /* fall through */
  default: {
    tvm_expr *idx = tvm_floormod(c, sgen(d, 2), I(SN));
    tvm_expr *val = tvm_add(c, tvm_load(c, TVM_I32, d->A, idx, NULL), sgen(d, 2));
    if (srnd(d) % 4 == 0) return tvm_evaluate(c, I(0));
    return tvm_store(c, d->A, tvm_floormod(c, sgen(d, 2), I(SN)), val, NULL);
  }
  }
}

static int64_t sev(sd *d, const tvm_expr *e, const int64_t *mem) {
  int64_t a, b;
  int k;
  switch (e->kind) {
  case TVM_INT: return e->u.ival;
  case TVM_VAR:
    for (k = 0; k < SV; k++)
      if (e == d->v[k]) return d->val[k];
    fail_msg("unknown variable");
    return 0;
  case TVM_LOAD: {
    int64_t i = sev(d, e->u.load.index, mem);
    assert_true(i >= 0 && i < SN);
    return mem[i];
  }
  case TVM_SELECT:
    a = sev(d, e->u.sel.t, mem);
    b = sev(d, e->u.sel.f, mem);
    return sev(d, e->u.sel.cond, mem) ? a : b;
  case TVM_NOT: return !sev(d, e->u.un.a, mem);
  default: break;
  }
  a = sev(d, e->u.bin.a, mem);
  b = sev(d, e->u.bin.b, mem);
  switch (e->kind) {
  case TVM_ADD: return a + b;
  case TVM_SUB: return a - b;
  case TVM_MUL: return a * b;
  case TVM_FLOORDIV: case TVM_FLOORMOD: {
    int64_t q = a / b, m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) {
      q--;
      m += b;
    }
    return e->kind == TVM_FLOORDIV ? q : m;
  }
  case TVM_MIN: return a < b ? a : b;
  case TVM_MAX: return a > b ? a : b;
  case TVM_LT: return a < b;
  case TVM_LE: return a <= b;
  case TVM_GT: return a > b;
  case TVM_GE: return a >= b;
  case TVM_EQ: return a == b;
  case TVM_NE: return a != b;
  case TVM_AND: return a && b;
  case TVM_OR: return a || b;
  default: fail_msg("unexpected %s", tvm_expr_kind_name(e->kind)); return 0;
  }
}

static int slot(sd *d, const tvm_expr *v) {
  int k;
  for (k = 0; k < SV; k++)
    if (v == d->v[k]) return k;
  fail_msg("unknown variable");
  return 0;
}

static void srun(sd *d, const tvm_stmt *s, int64_t *mem) {
  int k;
  if (!s) return;
  switch (s->kind) {
  case TVM_FOR: {
    int64_t lo = sev(d, s->u.for_.min, mem), n = sev(d, s->u.for_.extent, mem), i;
    k = slot(d, s->u.for_.var);
    for (i = lo; i < lo + n; i++) {
      d->val[k] = i;
      srun(d, s->u.for_.body, mem);
    }
    return;
  }
  case TVM_SEQ:
    for (k = 0; k < s->u.seq.n; k++) srun(d, s->u.seq.stmts[k], mem);
    return;
  case TVM_IF:
    if (sev(d, s->u.if_.cond, mem))
      srun(d, s->u.if_.then_, mem);
    else
      srun(d, s->u.if_.else_, mem);
    return;
  case TVM_LET_STMT:
    k = slot(d, s->u.let.var);
    d->val[k] = sev(d, s->u.let.value, mem);
    srun(d, s->u.let.body, mem);
    return;
  case TVM_STORE: {
    int64_t i = sev(d, s->u.store.index, mem), v = sev(d, s->u.store.value, mem);
    assert_true(i >= 0 && i < SN);
    mem[i] = v;
    return;
  }
  case TVM_EVALUATE: return;
  default: fail_msg("unexpected statement %s", tvm_stmt_kind_name(s->kind));
  }
}

static void test_stmt_differential(void **state) {
  sd d;
  int n, k, cases = 1500;
  const char *env = getenv("TVM_ARITH_CASES"), *seed = getenv("TVM_ARITH_SEED");
  (void)state;
  memset(&d, 0, sizeof d);
  d.seed = seed ? strtoull(seed, NULL, 0) : 0x1234567u;
  if (env && atoi(env) > 0) cases = atoi(env);
  for (n = 0; n < cases; n++) {
    tvm_stmt *s, *r;
    int64_t m1[SN], m2[SN];
    if (n % 100 == 0) {
      static const char *names[SV] = {"i0", "i1", "i2", "i3", "l0", "l1"};
      if (d.c) tvm_ctx_destroy(d.c);
      d.c = tvm_ctx_create();
      d.A = tvm_var(d.c, "A", TVM_HANDLE);
      for (k = 0; k < SV; k++) d.v[k] = tvm_var(d.c, names[k], TVM_I32);
    }
    s = sgen_stmt(&d, 1 + (int)(srnd(&d) % 4));
    assert_non_null(s);
    r = tvm_simplify_stmt(d.c, s, NULL);
    assert_non_null(r);
    assert_int_equal(tvm_ctx_status(d.c), TVM_OK);
    if (getenv("TVM_ARITH_VERBOSE")) {
      char *a = tvm_stmt_str(s), *b = tvm_stmt_str(r);
      print_message("%s->\n%s\n", a, b);
      tvm_free(a);
      tvm_free(b);
    }
    for (k = 0; k < SN; k++) m1[k] = m2[k] = k * 7 - 20;
    srun(&d, s, m1);
    srun(&d, r, m2);
    if (memcmp(m1, m2, sizeof m1) != 0) {
      char *a = tvm_stmt_str(s), *b = tvm_stmt_str(r);
      print_message("case %d:\n%s\nsimplified to\n%s\n", n, a, b);
      tvm_free(a);
      tvm_free(b);
      fail();
    }
  }
  tvm_ctx_destroy(d.c);
}

/* ---- out of memory --------------------------------------------------------------
 * An allocator that fails from the n-th allocation on: simplification must
 * not crash, must report NOMEM through the ctx, and when it does not, its
 * result must still be right. */

static long fail_countdown = -1; /* < 0: never fail */

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (fail_countdown == 0) return NULL;
  if (fail_countdown > 0) fail_countdown--;
  return realloc(ptr, nsize);
}

static void test_out_of_memory(void **state) {
  int n, k, failed = 0, passed = 0;
  (void)state;
  tvm_set_allocator(failing_alloc, NULL);
  for (n = 0; n < 60; n++) {
    sd d;
    tvm_stmt *prog[40], *res[40];
    tvm_status st;
    static const char *names[SV] = {"i0", "i1", "i2", "i3", "l0", "l1"};
    memset(&d, 0, sizeof d);
    d.seed = 99;
    fail_countdown = -1;
    d.c = tvm_ctx_create();
    assert_non_null(d.c);
    d.A = tvm_var(d.c, "A", TVM_HANDLE);
    for (k = 0; k < SV; k++) d.v[k] = tvm_var(d.c, names[k], TVM_I32);
    for (k = 0; k < 40; k++) prog[k] = sgen_stmt(&d, 4);
    assert_int_equal(tvm_ctx_status(d.c), TVM_OK);
    fail_countdown = n;
    for (k = 0; k < 40; k++) res[k] = tvm_simplify_stmt(d.c, prog[k], NULL);
    fail_countdown = -1;
    st = tvm_ctx_status(d.c);
    if (st != TVM_OK) {
      assert_int_equal(st, TVM_ERR_NOMEM);
      failed++;
    } else {
      for (k = 0; k < 40; k++) {
        int64_t m1[SN], m2[SN];
        int q;
        assert_non_null(res[k]);
        for (q = 0; q < SN; q++) m1[q] = m2[q] = q;
        srun(&d, prog[k], m1);
        srun(&d, res[k], m2);
        assert_memory_equal(m1, m2, sizeof m1);
      }
      passed++;
    }
    tvm_ctx_destroy(d.c);
  }
  tvm_set_allocator(NULL, NULL);
  /* both outcomes happened: the test really injected failures */
  assert_true(failed > 0);
  assert_true(passed > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fold_int, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fold_float_cast_logic, setup, teardown),
      cmocka_unit_test_setup_teardown(test_affine, setup, teardown),
      cmocka_unit_test_setup_teardown(test_divmod, setup, teardown),
      cmocka_unit_test_setup_teardown(test_minmax_compare, setup, teardown),
      cmocka_unit_test_setup_teardown(test_symbolic_bounds, setup, teardown),
      cmocka_unit_test_setup_teardown(test_vector, setup, teardown),
      cmocka_unit_test_setup_teardown(test_let, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stmt, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tail_guard, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pass, setup, teardown),
      cmocka_unit_test(test_stmt_differential),
      cmocka_unit_test(test_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
