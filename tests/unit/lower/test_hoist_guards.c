/*
 * tests/unit/lower/test_hoist_guards.c - the hoist_guards pass: a loop
 * repeating guards that its iterations do not change is versioned on
 * them (printed IR), guards it may not hoist stay (a load in the
 * condition, a variable bound inside, a device target, an if with an
 * else), and the result computes what the loop did, for full and ragged
 * tiles alike (interpreted).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tvm/lower.h"
#include "pass_check.h"

static char *run_hoist(tvm_ctx *c, tvm_stmt *body, int device,
                       tvm_func **out) {
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  o.has_threads = device;
  tvm_func *f = tvm_func_new(c, "f", NULL, NULL, 0, body);
  assert_non_null(f);
  assert_int_equal(tvm_pass_hoist_guards(c, f, &o, out), TVM_OK);
  return tvm_stmt_str((*out)->body);
}

/* The register block of a 2-row tile over R rows, unrolled:
 *   for (k, 0, 4) {
 *     if (r*2 + 0 < R) B[r*2 + 0] += A[k]
 *     if (r*2 + 1 < R) B[r*2 + 1] += A[k] * 2
 *   }
 * (R a constant: 3 rows leave the second tile ragged.) */
static tvm_stmt *block(tvm_ctx *c, tvm_expr *A, tvm_expr *B, tvm_expr *r,
                       tvm_expr *k, int64_t R) {
  tvm_stmt *rows[2];
  for (int i = 0; i < 2; i++) {
    tvm_expr *row = tvm_add(c, tvm_mul(c, r, tvm_int(c, 2)), tvm_int(c, i));
    tvm_expr *v = tvm_load(c, TVM_F32, A, k, NULL);
    if (i) v = tvm_mul(c, v, tvm_f32(c, 2.0));
    rows[i] = tvm_if(c, tvm_binary(c, TVM_LT, row, tvm_int(c, R)),
                     tvm_store(c, B, row,
                               tvm_add(c, tvm_load(c, TVM_F32, B, row, NULL),
                                       v),
                               NULL),
                     NULL);
  }
  return tvm_for(c, k, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL, NULL,
                 tvm_seq(c, rows, 2));
}

/* The loop is versioned on both guards; its full copy has none. */
static void test_versioned(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *B = tvm_var(c, "B", TVM_HANDLE);
  tvm_expr *r = tvm_var(c, "r", TVM_I32), *k = tvm_var(c, "k", TVM_I32);
  tvm_stmt *s = tvm_for(c, r, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_SERIAL,
                        NULL, block(c, A, B, r, k, 3));
  tvm_func *out;
  char *txt = run_hoist(c, s, 0, &out);
  assert_string_equal(
      txt,
      "for (r, 0, 2) {\n"
      "  if (r * 2 + 0 < 3 && r * 2 + 1 < 3) {\n"
      "    for (k, 0, 4) {\n"
      "      B[r * 2 + 0] = B[r * 2 + 0] + A[k]\n"
      "      B[r * 2 + 1] = B[r * 2 + 1] + A[k] * 2.0f\n"
      "    }\n"
      "  } else {\n"
      "    for (k, 0, 4) {\n"
      "      if (r * 2 + 0 < 3) {\n"
      "        B[r * 2 + 0] = B[r * 2 + 0] + A[k]\n"
      "      }\n"
      "      if (r * 2 + 1 < 3) {\n"
      "        B[r * 2 + 1] = B[r * 2 + 1] + A[k] * 2.0f\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n");
  tvm_free(txt);

  /* full (4 rows) and ragged (3 rows) tiles compute what the loop did */
  for (int64_t R = 3; R <= 4; R++) {
    tvm_stmt *orig = tvm_for(c, r, tvm_int(c, 0), tvm_int(c, 2),
                             TVM_FOR_SERIAL, NULL, block(c, A, B, r, k, R));
    tvm_func *o2;
    tvm_free(run_hoist(c, orig, 0, &o2));
    double ref[8], got[8];
    for (int pass = 0; pass < 2; pass++) {
      pc_interp *p = pc_new(0);
      double *a = pc_buffer(p, A, 4), *b = pc_buffer(p, B, 8);
      for (int i = 0; i < 4; i++) a[i] = 1.0 + i;
      for (int i = 0; i < 8; i++) b[i] = -1.0;
      assert_int_equal(pc_run(p, pass ? o2->body : orig), 0);
      memcpy(pass ? got : ref, b, sizeof ref);
      pc_free(p);
    }
    for (int i = 0; i < 8; i++) assert_true(ref[i] == got[i]);
    assert_true(ref[0] == 9.0 && ref[1] == 19.0 && ref[2] == 9.0);
    assert_true(ref[3] == (R == 4 ? 19.0 : -1.0) && ref[4] == -1.0);
  }
  tvm_ctx_destroy(c);
}

/* Guards that must stay: a load in the condition (the loop may write
 * what it reads), the loop's own variable, an if with an else, and any
 * guard on a device target. */
static void test_left_alone(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *B = tvm_var(c, "B", TVM_HANDLE);
  tvm_expr *r = tvm_var(c, "r", TVM_I32), *k = tvm_var(c, "k", TVM_I32);
  tvm_stmt *st = tvm_store(c, B, k, tvm_f32(c, 1.0), NULL);
  tvm_expr *loaded = tvm_binary(c, TVM_GT, tvm_load(c, TVM_F32, A, r, NULL),
                                tvm_f32(c, 0.0));
  tvm_expr *own = tvm_binary(c, TVM_LT, tvm_add(c, r, k), tvm_int(c, 5));
  tvm_expr *pure = tvm_binary(c, TVM_LT, r, tvm_int(c, 5));
  tvm_stmt *cases[] = {
      tvm_if(c, loaded, st, NULL), tvm_if(c, own, st, NULL),
      tvm_if(c, pure, st, tvm_store(c, B, k, tvm_f32(c, 2.0), NULL))};
  for (int i = 0; i < 4; i++) {
    tvm_stmt *body = i < 3 ? cases[i] : tvm_if(c, pure, st, NULL);
    tvm_stmt *s = tvm_for(c, k, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL,
                          NULL, body);
    tvm_func *out;
    char *want = tvm_stmt_str(s);
    char *txt = run_hoist(c, s, i == 3, &out);
    assert_string_equal(txt, want);
    tvm_free(txt);
    tvm_free(want);
  }
  tvm_ctx_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_versioned),
      cmocka_unit_test(test_left_alone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
