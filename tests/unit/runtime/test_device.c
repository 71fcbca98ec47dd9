/*
 * tests/unit/runtime/test_device.c - devices, modules, launches and timing
 * through the test plugins of tests/abi: "fake" (ABI 2, device timer of
 * 1.5 ms) and "abi1" (ABI 1: its timer slots lie past its struct_size
 * and fail if called, so the host clock must be used).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../abi/abi_util.h"
#include "tvm/runtime.h"
#include "tvm/target.h"

static tvm_plugin_registry *reg;
static char dir[256];

static int setup(void **state) {
  char plugins[4096];
  const char *b = getenv("TVM_BUILDDIR");
  snprintf(plugins, sizeof plugins, "%s/tests/abi/plugins/.libs",
           b ? b : ".");
  if (tvm_plugin_registry_create(plugins, 0, &reg) != TVM_OK) return -1;
  util_tmpdir(dir, sizeof dir);
  return 0;
}

static int teardown(void **state) {
  tvm_plugin_registry_free(reg);
  util_rmdir(dir);
  return 0;
}

static tvm_target *load(const char *plugin, int threads) {
  char text[256], path[1024];
  snprintf(text, sizeof text,
           "name: t-%s\nplugin: %s\nattrs: {block: 4, num_threads: %d}\n",
           plugin, plugin, threads);
  util_write(dir, "t.yaml", text, path, sizeof path);
  tvm_target *t = NULL;
  if (tvm_target_load_with(reg, path, &t) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  return t;
}

/* A module with add_f32(A, B, C, n) and noop() (bodies are irrelevant to
 * the fake codegen, which emits one kernel per function). */
static tvm_module *make_module(void) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_module *m = tvm_ctx_alloc(c, sizeof(*m));
  m->ctx = c;
  tvm_expr *p[4] = {tvm_var(c, "A", TVM_HANDLE), tvm_var(c, "B", TVM_HANDLE),
                    tvm_var(c, "C", TVM_HANDLE), tvm_var(c, "n", TVM_I32)};
  tvm_buffer *bufs[4] = {NULL, NULL, NULL, NULL};
  tvm_stmt *body = tvm_evaluate(c, tvm_int(c, 0));
  assert_int_equal(tvm_module_add(m, tvm_func_new(c, "add_f32", p, bufs, 4,
                                                  body)),
                   TVM_OK);
  assert_int_equal(
      tvm_module_add(m, tvm_func_new(c, "noop", NULL, NULL, 0, body)),
      TVM_OK);
  return m;
}

/* Builds, runs add_f32 on device memory and checks C = A + B. */
static void run_add(const char *plugin, int expect_timer) {
  tvm_target *t = load(plugin, 2);
  tvm_module *m = make_module();
  tvm_runtime_module *rm = NULL;
  assert_int_equal(tvm_build(t, m, NULL, &rm), TVM_OK);
  assert_int_equal(tvm_runtime_num_threads(), 2); /* from num_threads */
  tvm_device *d = tvm_runtime_module_device(rm);
  assert_ptr_equal(tvm_device_target(d), t);
  assert_int_equal(tvm_device_has_timer(d), expect_timer);

  enum { n = 1000 };
  float a[n], b[n], c[n];
  for (int i = 0; i < n; i++) a[i] = (float)i, b[i] = 0.5f * (float)i;
  void *da, *db, *dc;
  assert_int_equal(tvm_device_alloc(d, 0, sizeof a, 64, &da), TVM_OK);
  assert_int_equal(tvm_device_alloc(d, 0, sizeof b, 64, &db), TVM_OK);
  assert_int_equal(tvm_device_alloc(d, 0, sizeof c, 64, &dc), TVM_OK);
  assert_int_equal((uintptr_t)da % 64, 0);
  assert_int_equal(tvm_device_copy(d, da, 0, a, 0, sizeof a,
                                   TVM_COPY_HOST_TO_DEVICE), TVM_OK);
  assert_int_equal(tvm_device_copy(d, db, 0, b, 0, sizeof b,
                                   TVM_COPY_HOST_TO_DEVICE), TVM_OK);

  tvm_runtime_func *f = NULL;
  assert_int_equal(tvm_runtime_get_func(rm, "add_f32", &f), TVM_OK);
  assert_int_equal(tvm_runtime_func_kernel(f)->nargs, 4);
  tvm_plugin_arg args[4] = {{TVM_ARG_PTR, 0, {.ptr = da}},
                            {TVM_ARG_PTR, 0, {.ptr = db}},
                            {TVM_ARG_PTR, 0, {.ptr = dc}},
                            {TVM_ARG_INT, 0, {.i = n}}};
  assert_int_equal(tvm_runtime_call(f, args, 4), TVM_OK);
  assert_int_equal(tvm_device_copy(d, c, 0, dc, 0, sizeof c,
                                   TVM_COPY_DEVICE_TO_HOST), TVM_OK);
  for (int i = 0; i < n; i++) assert_true(c[i] == a[i] + b[i]);

  /* wrong argument count: refused before reaching the plugin */
  assert_int_equal(tvm_runtime_call(f, args, 3), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "takes 4 argument(s), 3 given"));
  /* plugin-reported launch failure comes back through host->report */
  args[3].type = TVM_ARG_FLOAT;
  assert_int_equal(tvm_runtime_call(f, args, 4), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "add takes (A, B, C, n)"));
  args[3].type = TVM_ARG_INT;

  double ms[3] = {-1, -1, -1};
  assert_int_equal(tvm_runtime_time(f, args, 4, 2, 3, ms), TVM_OK);
  for (int r = 0; r < 3; r++) {
    if (expect_timer) assert_true(ms[r] == 0.75); /* 1.5 ms / 2 calls */
    else assert_true(ms[r] >= 0 && ms[r] < 1000);
  }

  tvm_runtime_func *g = NULL;
  assert_int_equal(tvm_runtime_get_func(rm, "missing", &g), TVM_ERR_NOT_FOUND);
  assert_non_null(strstr(tvm_diag_message(), "no function 'missing'"));
  assert_int_equal(tvm_runtime_get_func(rm, "noop", &g), TVM_OK);
  assert_int_equal(tvm_runtime_call(g, NULL, 0), TVM_OK);
  tvm_runtime_func *f2 = NULL;
  assert_int_equal(tvm_runtime_get_func(rm, "add_f32", &f2), TVM_OK);
  assert_ptr_equal(f2, f);

  tvm_device_free(d, 0, da);
  tvm_device_free(d, 0, db);
  tvm_device_free(d, 0, dc);
  tvm_runtime_module_free(rm);
  tvm_ctx_destroy(m->ctx);
  tvm_target_free(t);
}

static void test_abi2_device_timer(void **state) { run_add("fake", 1); }

static void test_abi1_host_clock(void **state) { run_add("abi1", 0); }

/* A module loaded on a device the caller owns. */
static void test_build_on_given_device(void **state) {
  int before = tvm_runtime_num_threads();
  tvm_target *t = load("fake", 1);
  tvm_device *d = NULL;
  assert_int_equal(tvm_device_open(t, &d), TVM_OK);
  /* the device has its own pool of num_threads; the default is untouched */
  assert_int_equal(tvm_thread_pool_size(tvm_device_pool(d)), 1);
  assert_int_equal(tvm_runtime_num_threads(), before);
  tvm_module *m = make_module();
  tvm_runtime_module *rm = NULL;
  assert_int_equal(tvm_build(t, m, d, &rm), TVM_OK);
  assert_ptr_equal(tvm_runtime_module_device(rm), d);
  tvm_runtime_module_free(rm);
  tvm_device_close(d); /* still ours */
  tvm_plugin_blob blob;
  assert_int_equal(tvm_target_codegen(t, m, &blob), TVM_OK);
  assert_int_equal(blob.format, TVM_BLOB_CUSTOM);
  assert_int_equal(blob.nkernels, 2);
  assert_string_equal(blob.kernels[1].name, "noop");
  tvm_plugin_blob_free(&blob);
  assert_null(blob.data);
  tvm_ctx_destroy(m->ctx);
  tvm_target_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_abi2_device_timer),
      cmocka_unit_test(test_abi1_host_clock),
      cmocka_unit_test(test_build_on_given_device),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
