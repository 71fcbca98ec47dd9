/*
 * tests/abi/test_plugin_sdk_lib.c - libtvm_plugin_sdk (tvm/plugin_sdk.h):
 * formatted reports reach host->report with their status, host memory
 * comes from host->alloc and goes back through host->free, a module's
 * kernel table and a blob's data are built and cleared, and attributes
 * are found by name.  A counting fake host checks every allocation is
 * returned.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tvm/plugin_sdk.h"

static int32_t last_status;
static char last_msg[256];
static int live; /* host allocations not yet freed */

static void fake_report(int32_t st, const char *msg) {
  last_status = st;
  strncpy(last_msg, msg, sizeof last_msg - 1);
}
static void *fake_alloc(uint64_t n) {
  live++;
  return malloc((size_t)n);
}
static void fake_free(void *p) {
  live--;
  free(p);
}
static const tvm_host_api host = {.struct_size = sizeof(tvm_host_api),
                                  .abi_version = TVM_PLUGIN_ABI_VERSION,
                                  .report = fake_report,
                                  .alloc = fake_alloc,
                                  .free = fake_free,
                                  .num_threads = 1};

static void test_report(void **state) {
  assert_int_equal(tvm_sdk_report(&host, TVM_ERR_NOMEM, "dev: %s needs %d B",
                                   "k0", 64),
                   TVM_ERR_NOMEM);
  assert_int_equal(last_status, TVM_ERR_NOMEM);
  assert_string_equal(last_msg, "dev: k0 needs 64 B");
  /* no host: the core's diagnostic */
  tvm_diag_clear();
  assert_int_equal(tvm_sdk_report(NULL, TVM_ERR_INVALID, "x=%d", 3),
                   TVM_ERR_INVALID);
  assert_string_equal(tvm_diag_message(), "x=3");
}

/* A module of two functions with 2 and 3 parameters. */
static void test_blob(void **state) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_module *m = tvm_ctx_alloc(c, sizeof *m);
  m->ctx = c;
  for (int f = 0; f < 2; f++) {
    tvm_expr *p[3] = {tvm_var(c, "a", TVM_I32), tvm_var(c, "b", TVM_I32),
                      tvm_var(c, "n", TVM_I32)};
    tvm_func *fn = tvm_func_new(c, f ? "second" : "first", p, NULL, 2 + f,
                                tvm_evaluate(c, tvm_int(c, 0)));
    assert_int_equal(tvm_module_add(m, fn), TVM_OK);
  }
  tvm_plugin_blob b;
  memset(&b, 0, sizeof b);
  assert_int_equal(tvm_sdk_blob_kernels_of_module(&host, &b, m), TVM_OK);
  assert_int_equal(b.nkernels, 2);
  assert_string_equal(b.kernels[1].name, "second");
  assert_int_equal(b.kernels[1].nargs, 3);
  assert_int_equal(b.kernels[0].struct_size, sizeof(tvm_plugin_kernel));
  assert_int_equal(b.kernels[0].grid[2], 1);
  assert_int_equal(b.kernels[0].block[0], 1);
  assert_int_equal(tvm_sdk_blob_set_data(&host, &b, TVM_BLOB_CUSTOM, "TOY1", 4),
                   TVM_OK);
  assert_int_equal(b.size, 4);
  assert_int_equal(b.format, TVM_BLOB_CUSTOM);
  assert_memory_equal(b.data, "TOY1", 4);
  assert_int_equal(live, 4); /* table, two names, data */
  tvm_sdk_blob_clear(&host, &b);
  assert_int_equal(live, 0);
  assert_null(b.kernels);
  assert_null(b.data);
  char *s = tvm_sdk_strdup(&host, "kernel");
  assert_string_equal(s, "kernel");
  tvm_sdk_free(&host, s);
  assert_int_equal(live, 0);
  tvm_ctx_destroy(c);
}

static void test_attrs(void **state) {
  const tvm_plugin_attr_value v[3] = {
      {sizeof v[0], TVM_PLUGIN_ATTR_INT, "lanes", 8, 0, NULL},
      {sizeof v[0], TVM_PLUGIN_ATTR_FLOAT, "clock", 0, 1.5, NULL},
      {sizeof v[0], TVM_PLUGIN_ATTR_STRING, "mode", 0, 0, "fast"},
  };
  assert_ptr_equal(tvm_sdk_attr(v, 3, "clock"), &v[1]);
  assert_null(tvm_sdk_attr(v, 3, "nope"));
  assert_int_equal(tvm_sdk_attr_int(v, 3, "lanes", 1), 8);
  assert_int_equal(tvm_sdk_attr_int(v, 3, "nope", -4), -4);
  assert_true(tvm_sdk_attr_float(v, 3, "clock", 0) == 1.5);
  assert_string_equal(tvm_sdk_attr_str(v, 3, "mode", "slow"), "fast");
  assert_string_equal(tvm_sdk_attr_str(v, 2, "mode", "slow"), "slow");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_report),
      cmocka_unit_test(test_blob),
      cmocka_unit_test(test_attrs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
