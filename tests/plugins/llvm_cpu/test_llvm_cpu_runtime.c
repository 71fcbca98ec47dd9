/*
 * test_llvm_cpu_runtime.c - llvm-cpu through the core's own plugin
 * registry, target loader and runtime (tvm/target.h, tvm/runtime.h): the
 * path tvmc and packages take.  Needs TVM_PLUGIN_PATH and TVM_TARGET_PATH
 * (set by `make check`).
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tvm/runtime.h"
#include "tvm/target.h"

static tvm_ctx *C;

#define OK(x)                                                          \
  do {                                                                 \
    tvm_status st_ = (x);                                              \
    if (st_ != TVM_OK) fail_msg("%s: %s", #x, tvm_diag_message());     \
  } while (0)

static int setup(void **state) {
  (void)state;
  C = tvm_ctx_create();
  return C ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  tvm_ctx_destroy(C);
  return 0;
}

static tvm_expr *matmul_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, in[0]->shape_c[1]);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])),
                 &k, 1);
}

enum { M = 48, N = 64, K = 40 };

/* Lowers a parallel, vectorized matmul for target t into a module. */
static tvm_module *lower_matmul(const tvm_target *t, const char *name) {
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(C, "A", TVM_F32, (int64_t[]){M, K}, 2);
  in[1] = tvm_placeholder(C, "B", TVM_F32, (int64_t[]){K, N}, 2);
  tvm_tensor *Co = tvm_compute(C, "C", (int64_t[]){M, N}, 2, matmul_body, in);
  assert_non_null(Co);
  tvm_schedule *s;
  OK(tvm_schedule_create(C, &Co, 1, &s));
  tvm_stage *st = tvm_stage_of(s, Co);
  tvm_iter_var *jo, *ji;
  OK(tvm_split(st, tvm_stage_axis(st, 1), 16, &jo, &ji));
  tvm_iter_var *k = tvm_stage_reduce_axis(st, 0);
  tvm_iter_var *order[] = {tvm_stage_axis(st, 0), jo, k, ji};
  OK(tvm_reorder(st, order, 4));
  OK(tvm_parallel(st, tvm_stage_axis(st, 0)));
  OK(tvm_vectorize(st, ji));
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t, &o);
  tvm_module *m = tvm_ctx_alloc(C, sizeof *m);
  m->ctx = C;
  tvm_tensor *args[] = {in[0], in[1], Co};
  OK(tvm_lower(s, args, 3, name, &o, m));
  tvm_schedule_free(s);
  return m;
}

/* Builds, runs (through device memory) and checks the matmul on t. */
static void run_on(const tvm_target *t, uint32_t want_format) {
  tvm_module *m = lower_matmul(t, "mm");
  tvm_plugin_blob blob;
  OK(tvm_target_codegen(t, m, &blob));
  assert_int_equal(blob.format, want_format);
  tvm_plugin_blob_free(&blob);

  tvm_runtime_module *rm;
  OK(tvm_build(t, m, NULL, &rm));
  tvm_device *d = tvm_runtime_module_device(rm);
  float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
  float *R = malloc(sizeof(float) * M * N), *Ch = malloc(sizeof(float) * M * N);
  for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  for (int i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0;
      for (int q = 0; q < K; q++) acc += A[i * K + q] * B[q * N + j];
      R[i * N + j] = acc;
    }
  void *dA, *dB, *dC;
  OK(tvm_device_alloc(d, 0, sizeof(float) * M * K, 64, &dA));
  OK(tvm_device_alloc(d, 0, sizeof(float) * K * N, 64, &dB));
  OK(tvm_device_alloc(d, 0, sizeof(float) * M * N, 64, &dC));
  OK(tvm_device_copy(d, dA, 0, A, 0, sizeof(float) * M * K,
                     TVM_COPY_HOST_TO_DEVICE));
  OK(tvm_device_copy(d, dB, 0, B, 0, sizeof(float) * K * N,
                     TVM_COPY_HOST_TO_DEVICE));
  tvm_runtime_func *f;
  OK(tvm_runtime_get_func(rm, "mm", &f));
  tvm_plugin_arg args[3] = {{TVM_ARG_PTR, 0, {.ptr = dA}},
                            {TVM_ARG_PTR, 0, {.ptr = dB}},
                            {TVM_ARG_PTR, 0, {.ptr = dC}}};
  OK(tvm_runtime_call(f, args, 3));
  OK(tvm_device_copy(d, Ch, 0, dC, 0, sizeof(float) * M * N,
                     TVM_COPY_DEVICE_TO_HOST));
  for (int i = 0; i < M * N; i++)
    if (fabsf(Ch[i] - R[i]) > 1e-5f * (1 + fabsf(R[i])))
      fail_msg("C[%d] = %g, want %g", i, Ch[i], R[i]);
  double ms[2];
  OK(tvm_runtime_time(f, args, 3, 2, 2, ms));
  assert_true(ms[0] > 0 && ms[1] > 0);
  tvm_device_free(d, 0, dA);
  tvm_device_free(d, 0, dB);
  tvm_device_free(d, 0, dC);
  tvm_runtime_module_free(rm);
  free(A), free(B), free(R), free(Ch);
}

/* The shipped targets/llvm-cpu.yaml: ELF object through the JIT. */
static void test_shipped_target(void **state) {
  (void)state;
  tvm_target *t;
  OK(tvm_target_load("llvm-cpu", &t));
  assert_string_equal(t->plugin_name, "llvm-cpu");
  const tvm_plugin_target_info *ti = tvm_target_info(t);
  assert_true(ti->vector_bits >= 128);
  assert_int_equal(tvm_target_probe(t), TVM_OK);
  run_on(t, TVM_BLOB_ELF_OBJECT);
  tvm_target_free(t);
}

/* A YAML asking for shared objects and two threads. */
static void test_shared_yaml(void **state) {
  (void)state;
  const char *dir = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/tvm-llvm-cpu-test-%d.yaml",
           dir && dir[0] ? dir : "/tmp", (int)getpid());
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs("name: llvm-cpu-shared-test\nplugin: llvm-cpu\nkeys: [cpu]\n"
        "attrs: {output: shared, num_threads: 2, opt_level: 2}\n",
        fp);
  fclose(fp);
  tvm_target *t;
  tvm_status st = tvm_target_load(path, &t);
  unlink(path);
  OK(st);
  assert_string_equal(tvm_target_attr(t, "output")->s, "shared");
  run_on(t, TVM_BLOB_SHARED_OBJECT);
  tvm_target_free(t);
}

/* A failing assertion in generated code surfaces as the caller's
 * diagnostic. */
static void test_assert_diag(void **state) {
  (void)state;
  tvm_target *t;
  OK(tvm_target_load("llvm-cpu", &t));
  tvm_expr *n = tvm_var(C, "n", TVM_I32);
  tvm_stmt *body = tvm_assert(C, tvm_gt(C, n, tvm_int(C, 0)),
                              "n must be positive", NULL);
  tvm_func *fn = tvm_func_new(C, "check_n", &n, NULL, 1, body);
  tvm_module *m = tvm_ctx_alloc(C, sizeof *m);
  m->ctx = C;
  OK(tvm_module_add(m, fn));
  tvm_runtime_module *rm;
  OK(tvm_build(t, m, NULL, &rm));
  tvm_runtime_func *f;
  OK(tvm_runtime_get_func(rm, "check_n", &f));
  tvm_plugin_arg good = {TVM_ARG_INT, 0, {.i = 3}}, bad = {TVM_ARG_INT, 0, {.i = -1}};
  OK(tvm_runtime_call(f, &good, 1));
  tvm_diag_clear();
  assert_int_not_equal(tvm_runtime_call(f, &bad, 1), TVM_OK);
  assert_non_null(strstr(tvm_diag_message(), "n must be positive"));
  tvm_runtime_module_free(rm);
  tvm_target_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_shipped_target, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shared_yaml, setup, teardown),
      cmocka_unit_test_setup_teardown(test_assert_diag, setup, teardown),
  };
  return cmocka_run_group_tests_name("llvm-cpu runtime", tests, NULL, NULL);
}
