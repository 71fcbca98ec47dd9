/*
 * tests/unit/lower/test_inject_virtual_thread.c - virtual threads:
 * per-thread allocations get a leading dimension, copies interleave at
 * the innermost level (printed IR), what all threads do alike stays one
 * copy on targets without queues, and the result computes what the
 * vthread loop computed (interpreted).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tvm/lower.h"
#include "pass_check.h"

/* for vt in 2 (vthread): allocate T[4] local
 *   for k in 3: for x in 4: T[x] = A[(vt * 3 + k) * 4 + x] * 2
 *               for x in 4: C[(vt * 3 + k) * 4 + x] = T[x] + 1 */
static void test_interleave_and_expand(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *T = tvm_var(c, "T", TVM_HANDLE);
  tvm_expr *vt = tvm_var(c, "vt", TVM_I32), *k = tvm_var(c, "k", TVM_I32);
  tvm_expr *x = tvm_var(c, "x", TVM_I32);
  tvm_expr *row = tvm_add(c, tvm_mul(c, tvm_add(c, tvm_mul(c, vt, tvm_int(c, 3)), k),
                                     tvm_int(c, 4)), x);
  tvm_stmt *fill = tvm_for(c, x, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL, NULL,
      tvm_store(c, T, x, tvm_mul(c, tvm_load(c, TVM_F32, A, row, NULL), tvm_f32(c, 2)), NULL));
  tvm_stmt *use = tvm_for(c, x, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL, NULL,
      tvm_store(c, C, row, tvm_add(c, tvm_load(c, TVM_F32, T, x, NULL), tvm_f32(c, 1)), NULL));
  tvm_stmt *body = tvm_allocate(c, T, TVM_F32, tvm_int(c, 4), "local",
      tvm_for(c, k, tvm_int(c, 0), tvm_int(c, 3), TVM_FOR_SERIAL, NULL,
              tvm_seq2(c, fill, use)));
  tvm_stmt *loop = tvm_for(c, vt, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_VTHREAD,
                           "vthread", body);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_func *f = tvm_func_new(c, "f", NULL, NULL, 0, loop), *out;
  assert_int_equal(tvm_pass_inject_virtual_thread(c, f, &o, &out), TVM_OK);
  char *t = tvm_stmt_str(out->body);
  assert_string_equal(t,
      "// attr virtual_thread = 2\n"
      "allocate T[float32 * 8] scope=local\n"
      "for (k, 0, 3) {\n"
      "  for (x, 0, 4) {\n"
      "    T[x + 0 * 4] = A[(0 * 3 + k) * 4 + x] * 2.0f\n"
      "    T[x + 1 * 4] = A[(1 * 3 + k) * 4 + x] * 2.0f\n"
      "  }\n"
      "  for (x, 0, 4) {\n"
      "    C[(0 * 3 + k) * 4 + x] = T[x + 0 * 4] + 1.0f\n"
      "    C[(1 * 3 + k) * 4 + x] = T[x + 1 * 4] + 1.0f\n"
      "  }\n"
      "}\n");
  tvm_free(t);
  double ref[24], got[24];
  for (int pass = 0; pass < 2; pass++) {
    pc_interp *p = pc_new(0);
    double *a = pc_buffer(p, A, 24), *cc = pc_buffer(p, C, 24);
    for (int i = 0; i < 24; i++) a[i] = i - 5;
    assert_int_equal(pc_run(p, pass ? out->body : loop), 0);
    memcpy(pass ? got : ref, cc, sizeof ref);
    pc_free(p);
  }
  for (int i = 0; i < 24; i++) assert_true(ref[i] == got[i] && ref[i] == (i - 5) * 2.0 + 1);
  tvm_ctx_destroy(c);
}

/* A loop whose bound depends on the thread is replicated whole. */
static void test_dependent_control_replicated(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *vt = tvm_var(c, "vt", TVM_I32), *k = tvm_var(c, "k", TVM_I32);
  tvm_stmt *loop = tvm_for(c, vt, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_VTHREAD, "vthread",
      tvm_for(c, k, tvm_int(c, 0), tvm_add(c, vt, tvm_int(c, 1)), TVM_FOR_SERIAL, NULL,
              tvm_store(c, C, tvm_add(c, tvm_mul(c, vt, tvm_int(c, 2)), k), tvm_f32(c, 1), NULL)));
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_func *f = tvm_func_new(c, "f", NULL, NULL, 0, loop), *out;
  assert_int_equal(tvm_pass_inject_virtual_thread(c, f, &o, &out), TVM_OK);
  char *t = tvm_stmt_str(out->body);
  assert_string_equal(t,
      "// attr virtual_thread = 2\n"
      "for (k, 0, 0 + 1) {\n"
      "  C[0 * 2 + k] = 1.0f\n"
      "}\n"
      "for (k, 0, 1 + 1) {\n"
      "  C[1 * 2 + k] = 1.0f\n"
      "}\n");
  tvm_free(t);
  tvm_ctx_destroy(c);
}

/* On a target without queues, what every thread does alike is done once:
 * for vt in 2 (vthread): allocate S[4] shared, R[1] local, P[2] local
 *   for k in 2: for x in 4: S[x] = A[k * 4 + x]          (the same for all)
 *               R[0] = R[0] + 1                          (accumulates: each)
 *               for y in 2: P[y] = S[vt * 2 + y] * R[0]  (differs)
 *               for y in 2: C[(k * 2 + vt) * 2 + y] = P[y] */
static void test_shared_fetch_once(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *S = tvm_var(c, "S", TVM_HANDLE), *R = tvm_var(c, "R", TVM_HANDLE);
  tvm_expr *P = tvm_var(c, "P", TVM_HANDLE);
  tvm_expr *vt = tvm_var(c, "vt", TVM_I32), *k = tvm_var(c, "k", TVM_I32);
  tvm_expr *x = tvm_var(c, "x", TVM_I32), *y = tvm_var(c, "y", TVM_I32);
  tvm_stmt *fetch = tvm_for(c, x, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL, NULL,
      tvm_store(c, S, x, tvm_load(c, TVM_F32, A,
                                  tvm_add(c, tvm_mul(c, k, tvm_int(c, 4)), x), NULL),
                NULL));
  tvm_stmt *count = tvm_store(c, R, tvm_int(c, 0),
      tvm_add(c, tvm_load(c, TVM_F32, R, tvm_int(c, 0), NULL), tvm_f32(c, 1)), NULL);
  tvm_stmt *use = tvm_for(c, y, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_SERIAL, NULL,
      tvm_store(c, P, y, tvm_mul(c, tvm_load(c, TVM_F32, S,
                                             tvm_add(c, tvm_mul(c, vt, tvm_int(c, 2)), y),
                                             NULL),
                                 tvm_load(c, TVM_F32, R, tvm_int(c, 0), NULL)),
                NULL));
  tvm_expr *ci = tvm_add(c, tvm_mul(c, tvm_add(c, tvm_mul(c, k, tvm_int(c, 2)), vt),
                                    tvm_int(c, 2)), y);
  tvm_stmt *out_ = tvm_for(c, y, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_SERIAL, NULL,
      tvm_store(c, C, ci, tvm_load(c, TVM_F32, P, y, NULL), NULL));
  tvm_stmt *steps[4] = {fetch, count, use, out_};
  tvm_stmt *body = tvm_allocate(c, S, TVM_F32, tvm_int(c, 4), "shared",
      tvm_allocate(c, R, TVM_F32, tvm_int(c, 1), "local",
          tvm_allocate(c, P, TVM_F32, tvm_int(c, 2), "local",
              tvm_seq2(c, tvm_store(c, R, tvm_int(c, 0), tvm_f32(c, 0), NULL),
                       tvm_for(c, k, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_SERIAL,
                               NULL, tvm_seq(c, steps, 4))))));
  tvm_stmt *loop = tvm_for(c, vt, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_VTHREAD,
                           "vthread", body);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_func *f = tvm_func_new(c, "f", NULL, NULL, 0, loop), *out;
  assert_int_equal(tvm_pass_inject_virtual_thread(c, f, &o, &out), TVM_OK);
  char *t = tvm_stmt_str(out->body);
  assert_string_equal(t,
      "// attr virtual_thread = 2\n"
      "allocate S[float32 * 4] scope=shared\n"
      "allocate R[float32 * 2] scope=local\n"
      "allocate P[float32 * 4] scope=local\n"
      "R[0 + 0 * 1] = 0.0f\n"
      "R[0 + 1 * 1] = 0.0f\n"
      "for (k, 0, 2) {\n"
      "  for (x, 0, 4) {\n"
      "    S[x] = A[k * 4 + x]\n"
      "  }\n"
      "  R[0 + 0 * 1] = R[0 + 0 * 1] + 1.0f\n"
      "  R[0 + 1 * 1] = R[0 + 1 * 1] + 1.0f\n"
      "  for (y, 0, 2) {\n"
      "    P[y + 0 * 2] = S[0 * 2 + y] * R[0 + 0 * 1]\n"
      "    P[y + 1 * 2] = S[1 * 2 + y] * R[0 + 1 * 1]\n"
      "  }\n"
      "  for (y, 0, 2) {\n"
      "    C[(k * 2 + 0) * 2 + y] = P[y + 0 * 2]\n"
      "    C[(k * 2 + 1) * 2 + y] = P[y + 1 * 2]\n"
      "  }\n"
      "}\n");
  tvm_free(t);
  double ref[8], got[8];
  for (int pass = 0; pass < 2; pass++) {
    pc_interp *p = pc_new(0);
    double *a = pc_buffer(p, A, 8), *cc = pc_buffer(p, C, 8);
    for (int i = 0; i < 8; i++) a[i] = i + 1;
    assert_int_equal(pc_run(p, pass ? out->body : loop), 0);
    memcpy(pass ? got : ref, cc, sizeof ref);
    pc_free(p);
  }
  /* C[(k*2 + vt)*2 + y] = A[k*4 + vt*2 + y] * (k + 1) */
  for (int i = 0; i < 8; i++)
    assert_true(ref[i] == got[i] && got[i] == (i + 1) * (i / 4 + 1.0));
  tvm_ctx_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_interleave_and_expand),
      cmocka_unit_test(test_dependent_control_replicated),
      cmocka_unit_test(test_shared_fetch_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
