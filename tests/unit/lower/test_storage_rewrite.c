/*
 * tests/unit/lower/test_storage_rewrite.c - sequential temporaries share
 * one hoisted allocation, overlapping ones stay apart, allocations do not
 * leave thread loops; results interpreted before and after.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tvm/lower.h"
#include "pass_check.h"

typedef struct fx {
  tvm_ctx *c;
  tvm_expr *A, *B, *C, *x;
} fx;

static void fx_init(fx *f) {
  f->c = tvm_ctx_create();
  f->A = tvm_var(f->c, "A", TVM_HANDLE);
  f->B = tvm_var(f->c, "B", TVM_HANDLE);
  f->C = tvm_var(f->c, "C", TVM_HANDLE);
  f->x = tvm_var(f->c, "x", TVM_I32);
}

/* for (x, 0, n) dst[x] = src[x] (+ src2[x]) */
static tvm_stmt *copy(fx *f, tvm_expr *dst, tvm_expr *src, tvm_expr *src2, int n) {
  tvm_ctx *c = f->c;
  tvm_expr *v = tvm_load(c, TVM_F32, src, f->x, NULL);
  if (src2) v = tvm_add(c, v, tvm_load(c, TVM_F32, src2, f->x, NULL));
  return tvm_for(c, f->x, tvm_int(c, 0), tvm_int(c, n), TVM_FOR_SERIAL, NULL,
                 tvm_store(c, dst, f->x, v, NULL));
}

/* Rewrites s and checks the interpreted C is unchanged; returns the
 * printed result. */
static char *rewrite(fx *f, tvm_stmt *s) {
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_func *fn = tvm_func_new(f->c, "f", NULL, NULL, 0, s), *out;
  assert_int_equal(tvm_pass_storage_rewrite(f->c, fn, &o, &out), TVM_OK);
  double res[2][16];
  for (int pass = 0; pass < 2; pass++) {
    pc_interp *p = pc_new(0);
    double *a = pc_buffer(p, f->A, 16);
    pc_buffer(p, f->B, 16);
    double *cc = pc_buffer(p, f->C, 16);
    for (int i = 0; i < 16; i++) a[i] = i * 1.5;
    if (pc_run(p, pass ? out->body : s)) fail_msg("%s", pc_error(p));
    memcpy(res[pass], cc, sizeof res[0]);
    pc_free(p);
  }
  assert_memory_equal(res[0], res[1], sizeof res[0]);
  return tvm_stmt_str(out->body);
}

/* Two temporaries used one after the other inside a loop: hoisted out of
 * the loop and merged into one buffer of the larger size. */
static void test_sequential_share(void **state) {
  (void)state;
  fx f;
  fx_init(&f);
  tvm_ctx *c = f.c;
  tvm_expr *T1 = tvm_var(c, "T1", TVM_HANDLE), *T2 = tvm_var(c, "T2", TVM_HANDLE);
  tvm_expr *i = tvm_var(c, "i", TVM_I32);
  tvm_stmt *a1 = tvm_allocate(c, T1, TVM_F32, tvm_int(c, 8), "local",
                              tvm_seq2(c, copy(&f, T1, f.A, NULL, 8), copy(&f, f.B, T1, NULL, 8)));
  tvm_stmt *a2 = tvm_allocate(c, T2, TVM_F32, tvm_int(c, 16), "local",
                              tvm_seq2(c, copy(&f, T2, f.B, f.A, 16), copy(&f, f.C, T2, NULL, 16)));
  tvm_stmt *s = tvm_for(c, i, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_SERIAL, NULL,
                        tvm_seq2(c, a1, a2));
  char *t = rewrite(&f, s);
  assert_string_equal(t,
      "allocate T1[float32 * 16] scope=local\n"
      "for (i, 0, 2) {\n"
      "  for (x, 0, 8) {\n    T1[x] = A[x]\n  }\n"
      "  for (x, 0, 8) {\n    B[x] = T1[x]\n  }\n"
      "  for (x, 0, 16) {\n    T1[x] = B[x] + A[x]\n  }\n"
      "  for (x, 0, 16) {\n    C[x] = T1[x]\n  }\n"
      "}\n");
  tvm_free(t);
  tvm_ctx_destroy(c);
}

/* Overlapping live ranges (T1 still read after T2 is written), and
 * different scopes, stay separate buffers. */
static void test_overlap_stays(void **state) {
  (void)state;
  fx f;
  fx_init(&f);
  tvm_ctx *c = f.c;
  tvm_expr *T1 = tvm_var(c, "T1", TVM_HANDLE), *T2 = tvm_var(c, "T2", TVM_HANDLE);
  tvm_expr *T3 = tvm_var(c, "T3", TVM_HANDLE);
  tvm_stmt *body[4] = {copy(&f, T1, f.A, NULL, 8), copy(&f, T2, f.A, f.A, 8),
                       copy(&f, f.C, T1, T2, 8), copy(&f, T3, f.C, NULL, 8)};
  tvm_stmt *s = tvm_allocate(c, T1, TVM_F32, tvm_int(c, 8), "local",
      tvm_allocate(c, T2, TVM_F32, tvm_int(c, 8), "local",
          tvm_allocate(c, T3, TVM_F32, tvm_int(c, 8), "shared", tvm_seq(c, body, 4))));
  char *t = rewrite(&f, s);
  assert_non_null(strstr(t, "allocate T1[float32 * 8] scope=local\n"));
  assert_non_null(strstr(t, "allocate T2[float32 * 8] scope=local\n"));
  assert_non_null(strstr(t, "allocate T3[float32 * 8] scope=shared\n"));
  assert_non_null(strstr(t, "C[x] = T1[x] + T2[x]"));
  tvm_free(t);
  tvm_ctx_destroy(c);
}

/* An allocation inside a thread loop stays there (one per thread), while
 * two sequential ones inside it still share. */
static void test_thread_loop_is_a_boundary(void **state) {
  (void)state;
  fx f;
  fx_init(&f);
  tvm_ctx *c = f.c;
  tvm_expr *T1 = tvm_var(c, "T1", TVM_HANDLE), *T2 = tvm_var(c, "T2", TVM_HANDLE);
  tvm_expr *tx = tvm_var(c, "tx", TVM_I32);
  tvm_stmt *a1 = tvm_allocate(c, T1, TVM_F32, tvm_int(c, 4), "local",
                              tvm_seq2(c, copy(&f, T1, f.A, NULL, 4), copy(&f, f.B, T1, NULL, 4)));
  tvm_stmt *a2 = tvm_allocate(c, T2, TVM_F32, tvm_int(c, 4), "local",
                              tvm_seq2(c, copy(&f, T2, f.B, NULL, 4), copy(&f, f.C, T2, NULL, 4)));
  tvm_stmt *s = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_THREAD,
                        "threadIdx.x", tvm_seq2(c, a1, a2));
  char *t = rewrite(&f, s);
  assert_true(strncmp(t, "for (tx, 0, 2) thread(threadIdx.x) {\n"
                         "  allocate T1[float32 * 4] scope=local\n", 76) == 0);
  assert_null(strstr(t, "T2"));
  tvm_free(t);
  tvm_ctx_destroy(c);
}

/* An allocation whose extent depends on a loop variable stays in the
 * loop; buffers of a queued scope are hoisted but never shared. */
static void test_dependent_extent_and_queued(void **state) {
  (void)state;
  fx f;
  fx_init(&f);
  tvm_ctx *c = f.c;
  tvm_expr *T1 = tvm_var(c, "T1", TVM_HANDLE), *T2 = tvm_var(c, "T2", TVM_HANDLE);
  tvm_expr *T3 = tvm_var(c, "T3", TVM_HANDLE), *i = tvm_var(c, "i", TVM_I32);
  tvm_stmt *dep = tvm_allocate(c, T1, TVM_F32, tvm_add(c, i, tvm_int(c, 1)), "local",
                               tvm_store(c, T1, i, tvm_f32(c, 1), NULL));
  tvm_stmt *q1 = tvm_allocate(c, T2, TVM_F32, tvm_int(c, 8), "inp_buf",
                              tvm_seq2(c, copy(&f, T2, f.A, NULL, 8), copy(&f, f.B, T2, NULL, 8)));
  tvm_stmt *q2 = tvm_allocate(c, T3, TVM_F32, tvm_int(c, 8), "inp_buf",
                              tvm_seq2(c, copy(&f, T3, f.B, NULL, 8), copy(&f, f.C, T3, NULL, 8)));
  tvm_stmt *body[3] = {dep, q1, q2};
  tvm_stmt *s = tvm_for(c, i, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL, NULL,
                        tvm_seq(c, body, 3));
  tvm_scope_info inp = {"inp_buf", TVM_VIS_THREAD, 0, 0, 0};
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  o.scopes = &inp;
  o.nscopes = 1;
  tvm_func *fn = tvm_func_new(c, "f", NULL, NULL, 0, s), *out;
  assert_int_equal(tvm_pass_storage_rewrite(c, fn, &o, &out), TVM_OK);
  char *t = tvm_stmt_str(out->body);
  assert_string_equal(t,
      "allocate T2[float32 * 8] scope=inp_buf\n"
      "allocate T3[float32 * 8] scope=inp_buf\n"
      "for (i, 0, 4) {\n"
      "  allocate T1[float32 * (i + 1)] scope=local\n"
      "  T1[i] = 1.0f\n"
      "  for (x, 0, 8) {\n    T2[x] = A[x]\n  }\n"
      "  for (x, 0, 8) {\n    B[x] = T2[x]\n  }\n"
      "  for (x, 0, 8) {\n    T3[x] = B[x]\n  }\n"
      "  for (x, 0, 8) {\n    C[x] = T3[x]\n  }\n"
      "}\n");
  tvm_free(t);
  tvm_ctx_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sequential_share),
      cmocka_unit_test(test_overlap_stays),
      cmocka_unit_test(test_thread_loop_is_a_boundary),
      cmocka_unit_test(test_dependent_extent_and_queued),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
