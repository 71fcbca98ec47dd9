/*
 * tests/unit/lower/test_unroll.c - the unroll pass: small constant loops
 * become copies (printed IR), large or symbolic ones serial loops, and the
 * result computes what the loop did (interpreted).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tvm/lower.h"
#include "pass_check.h"

static tvm_func *func_of(tvm_ctx *c, tvm_expr **params, int n, tvm_stmt *body) {
  return tvm_func_new(c, "f", params, NULL, n, body);
}

static char *run_unroll(tvm_ctx *c, tvm_stmt *body, int max, tvm_func **out) {
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  o.unroll_max_extent = max;
  tvm_func *f = func_of(c, NULL, 0, body);
  assert_non_null(f);
  assert_int_equal(tvm_pass_unroll(c, f, &o, out), TVM_OK);
  return tvm_stmt_str((*out)->body);
}

/* for (i, 0, 4) unrolled { A[i] = i * 2 } becomes four stores. */
static void test_small_loop_unrolled(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *i = tvm_var(c, "i", TVM_I32);
  tvm_stmt *s = tvm_for(c, i, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_UNROLLED,
                        NULL,
                        tvm_store(c, A, i, tvm_mul(c, i, tvm_int(c, 2)), NULL));
  tvm_func *out;
  char *txt = run_unroll(c, s, 16, &out);
  assert_string_equal(txt, "A[0] = 0 * 2\n"
                           "A[1] = 1 * 2\n"
                           "A[2] = 2 * 2\n"
                           "A[3] = 3 * 2\n");
  tvm_free(txt);
  tvm_ctx_destroy(c);
}

/* Beyond unroll_max_extent, or with a symbolic extent: a serial loop. */
static void test_large_or_symbolic_stays_loop(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *n = tvm_var(c, "n", TVM_I32);
  tvm_stmt *big = tvm_for(c, i, tvm_int(c, 0), tvm_int(c, 32), TVM_FOR_UNROLLED,
                          NULL, tvm_store(c, A, i, tvm_int(c, 1), NULL));
  tvm_stmt *sym = tvm_for(c, i, tvm_int(c, 0), n, TVM_FOR_UNROLLED, NULL,
                          tvm_store(c, A, i, tvm_int(c, 1), NULL));
  tvm_func *out;
  char *t1 = run_unroll(c, big, 16, &out);
  assert_string_equal(t1, "for (i, 0, 32) {\n  A[i] = 1\n}\n");
  char *t2 = run_unroll(c, sym, 16, &out);
  assert_string_equal(t2, "for (i, 0, n) {\n  A[i] = 1\n}\n");
  tvm_free(t1);
  tvm_free(t2);
  tvm_ctx_destroy(c);
}

/* Nested unrolled loops over a symbolic base flatten fully and compute
 * what the loops computed. */
static void test_nested_matches_loop(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *B = tvm_var(c, "B", TVM_HANDLE);
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *j = tvm_var(c, "j", TVM_I32);
  tvm_expr *o = tvm_var(c, "o", TVM_I32);
  tvm_expr *idx = tvm_add(c, tvm_mul(c, tvm_add(c, o, i), tvm_int(c, 3)), j);
  tvm_stmt *st = tvm_store(
      c, B, idx,
      tvm_add(c, tvm_load(c, TVM_F32, A, idx, NULL),
              tvm_cast(c, TVM_F32, tvm_mul(c, i, j))),
      NULL);
  tvm_stmt *inner = tvm_for(c, j, tvm_int(c, 0), tvm_int(c, 3), TVM_FOR_UNROLLED,
                            NULL, st);
  tvm_stmt *outer = tvm_for(c, i, o, tvm_int(c, 2), TVM_FOR_UNROLLED, NULL, inner);
  tvm_func *out;
  char *txt = run_unroll(c, outer, 16, &out);
  assert_null(strstr(txt, "for"));
  tvm_free(txt);

  double *ref = NULL, *got = NULL;
  for (int pass = 0; pass < 2; pass++) {
    pc_interp *p = pc_new(0);
    double *a = pc_buffer(p, A, 16), *b = pc_buffer(p, B, 16);
    for (int k = 0; k < 16; k++) a[k] = k * 0.5;
    pc_set_var(p, o, 1);
    assert_int_equal(pc_run(p, pass ? out->body : outer), 0);
    double *keep = test_malloc(16 * sizeof(double));
    memcpy(keep, b, 16 * sizeof(double));
    if (pass) got = keep; else ref = keep;
    pc_free(p);
  }
  for (int k = 0; k < 16; k++) assert_true(ref[k] == got[k]);
  assert_true(ref[6] == 3.0 && ref[8] == 4.0 + 2.0 && ref[11] == 5.5 + 4.0);
  test_free(ref);
  test_free(got);
  tvm_ctx_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_loop_unrolled),
      cmocka_unit_test(test_large_or_symbolic_stays_loop),
      cmocka_unit_test(test_nested_matches_loop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
