/*
 * tests/fuzz/test_plugin_faults.c - a plugin whose codegen fails, a
 * device that fails to allocate and a launch that fails (the faulty test
 * plugin, tests/fuzz/plugins/faulty.c): each is reported with its reason
 * (the plugin's message reaches tvm_diag_message) and the process stays
 * usable: the same compile, executor creation and run then succeed, and
 * give the right numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/compiler.h"
#include "tvm/onnx.h"
#include "tvm/target.h"

static tvm_plugin_registry *reg;
static tvm_target *target;
static tvm_graph *graph;

static int setup(void **state) {
  (void)state;
  const char *b = getenv("TVM_BUILDDIR"), *s = getenv("TVM_SRCDIR");
  char dir[4096], inner[4096], path[4096];
  if (!b || !s) return -1;
  snprintf(dir, sizeof dir, "%s/tests/fuzz/plugins/.libs", b);
  snprintf(inner, sizeof inner, "%s/plugins/llvm-cpu/.libs/tvm-llvm-cpu.so",
           b);
  setenv("TVM_FAULTY_INNER", inner, 1);
  unsetenv("TVM_FAULTY_FAIL");
  if (tvm_plugin_registry_create(dir, 0, &reg) != TVM_OK) return -1;
  snprintf(path, sizeof path, "%s/tests/fuzz/faulty.yaml", s);
  if (tvm_target_load_with(reg, path, &target) != TVM_OK) {
    fprintf(stderr, "%s\n", tvm_diag_message());
    return -1;
  }
  snprintf(path, sizeof path, "%s/tests/fuzz/small-relu-add.onnx", s);
  if (tvm_onnx_load(path, &graph) != TVM_OK) return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tvm_graph_free(graph);
  tvm_target_free(target);
  tvm_plugin_registry_free(reg);
  return 0;
}

/* Checks that the last failure mentions want. */
static void reported(tvm_status st, const char *want) {
  assert_true(st != TVM_OK);
  printf("reported: %s\n", tvm_diag_message());
  assert_non_null(strstr(tvm_diag_message(), want));
}

static void test_faults_reported_then_recovered(void **state) {
  (void)state;
  tvm_plan *p = NULL;
  tvm_executor *e = NULL;

  setenv("TVM_FAULTY_FAIL", "codegen", 1);
  reported(tvm_compile(graph, target, NULL, &p),
           "faulty: injected codegen failure");
  assert_null(p);
  unsetenv("TVM_FAULTY_FAIL");
  assert_int_equal(tvm_compile(graph, target, NULL, &p), TVM_OK);

  setenv("TVM_FAULTY_FAIL", "alloc", 1);
  reported(tvm_executor_create(p, target, &e), "faulty: injected alloc failure");
  assert_null(e);
  unsetenv("TVM_FAULTY_FAIL");
  assert_int_equal(tvm_executor_create(p, target, &e), TVM_OK);

  float x[32], y[32];
  for (int i = 0; i < 32; i++) x[i] = (float)(i - 16);
  int64_t shape[2] = {4, 8};
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor ty = {y, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  assert_int_equal(tvm_executor_set_input(e, 0, &tx), TVM_OK);

  setenv("TVM_FAULTY_FAIL", "launch", 1);
  reported(tvm_executor_run(e), "faulty: injected launch failure");
  unsetenv("TVM_FAULTY_FAIL");
  assert_int_equal(tvm_executor_run(e), TVM_OK);
  assert_int_equal(tvm_executor_get_output(e, 0, &ty), TVM_OK);
  for (int i = 0; i < 32; i++) /* y = relu(x) + x */
    assert_true(y[i] == (x[i] > 0 ? x[i] : 0) + x[i]);
  tvm_executor_free(e);
  tvm_plan_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_faults_reported_then_recovered),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
