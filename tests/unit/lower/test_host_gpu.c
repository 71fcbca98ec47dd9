/*
 * tests/unit/lower/test_host_gpu.c - the host/device model on a target
 * with thread axes: the vulkan plugin (lavapipe in CI, any Vulkan device
 * elsewhere).  A two-stage computation, T = exp(A) and B = T * 2 + 1,
 * each stage bound to blockIdx.x/threadIdx.x, T a buffer passed between
 * the two kernels: split_host_device makes two device functions and a
 * host function that allocates T and launches both; the host program
 * evaluates the geometry (grid 16, block 64) and makes T a device
 * temporary; the runtime runs it through the plugin's launch; B is
 * compared with C.  Skipped, with the reason, where the vulkan plugin or
 * a Vulkan device is missing.
 */
#include <math.h>

#include "lower_test.h"
#include "tvm/host_program.h"
#include "tvm/runtime.h"
#include "tvm/target.h"

enum { N = 1024 };

static tvm_expr *exp_of(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_math(c, TVM_INTRIN_EXP, TVM_AT(c, (tvm_tensor *)ud, i[0]));
}
static tvm_expr *affine(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_add(c, tvm_mul(c, TVM_AT(c, (tvm_tensor *)ud, i[0]), tvm_f32(c, 2)),
                 tvm_f32(c, 1));
}

/* Splits t's axis by 64 and binds it to blockIdx.x / threadIdx.x. */
static void bind_1d(tvm_ctx *c, tvm_schedule *s, tvm_tensor *t) {
  tvm_stage *st = tvm_stage_of(s, t);
  tvm_iter_var *bo, *bi;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 64, &bo, &bi), TVM_OK);
  assert_int_equal(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)), TVM_OK);
  assert_int_equal(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)), TVM_OK);
}

static void test_two_kernels_on_vulkan(void **state) {
  (void)state;
  tvm_target *t = NULL;
  if (tvm_target_load("vulkan", &t) != TVM_OK) {
    print_message("vulkan target unavailable: %s\n", tvm_diag_message());
    skip();
  }
  if (tvm_target_probe(t) != TVM_OK) {
    print_message("no Vulkan device: %s\n", tvm_diag_message());
    tvm_target_free(t);
    skip();
  }
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){N}, 1);
  tvm_tensor *T = tvm_compute(c, "T", (int64_t[]){N}, 1, exp_of, A);
  tvm_tensor *B = tvm_compute(c, "B", (int64_t[]){N}, 1, affine, T);
  tvm_schedule *s = NULL;
  assert_int_equal(tvm_schedule_create(c, &B, 1, &s), TVM_OK);
  bind_1d(c, s, T);
  bind_1d(c, s, B);
  tvm_lower_options lo;
  tvm_target_lower_options(t, &lo);
  assert_true(tvm_lower_is_device(&lo));
  tvm_module m = {c, NULL, 0};
  if (tvm_lower(s, (tvm_tensor *[]){A, B}, 2, "ew2", &lo, &m) != TVM_OK)
    fail_msg("lower: %s", tvm_diag_message());
  assert_int_equal(m.nfuncs, 3); /* two kernels, then the host function */
  tvm_arena *a = tvm_arena_create();
  tvm_host_program *hp = NULL;
  if (tvm_host_program_build(m.funcs[2], &m, a, &hp) != TVM_OK)
    fail_msg("host program: %s", tvm_diag_message());
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_host_program_print(&b, hp);
  expect_text(b.data,
              "host ew2 (2 params, 1 temps: 4096 bytes)\n"
              "  launch ew2_kernel0 grid(16, 1, 1) block(64, 1, 1) shared 0 (t0, p0)\n"
              "  launch ew2_kernel1 grid(16, 1, 1) block(64, 1, 1) shared 0 (p1, t0)\n");
  tvm_strbuf_free(&b);

  tvm_module dev = {c, m.funcs, 2};
  tvm_plugin_blob blob;
  if (tvm_target_codegen(t, &dev, &blob) != TVM_OK)
    fail_msg("codegen: %s", tvm_diag_message());
  tvm_device *d = NULL;
  tvm_runtime_module *rm = NULL;
  tvm_host_exec *x = NULL;
  void *buf[2];
  static float ha[N], hb[N];
  for (int i = 0; i < N; i++) ha[i] = (float)(i % 17) / 8 - 1, hb[i] = -7;
  if (tvm_device_open(t, &d) != TVM_OK) fail_msg("%s", tvm_diag_message());
  assert_int_equal(tvm_runtime_module_load(d, &blob, &rm), TVM_OK);
  for (int i = 0; i < 2; i++)
    assert_int_equal(tvm_device_alloc(d, 0, sizeof ha, 64, &buf[i]), TVM_OK);
  assert_int_equal(tvm_device_copy(d, buf[0], 0, ha, 0, sizeof ha,
                                   TVM_COPY_HOST_TO_DEVICE), TVM_OK);
  if (tvm_host_exec_create(hp, d, rm, buf, 2, &x) != TVM_OK ||
      tvm_host_exec_run(x) != TVM_OK || tvm_device_sync(d) != TVM_OK)
    fail_msg("run: %s", tvm_diag_message());
  assert_int_equal(tvm_device_copy(d, hb, 0, buf[1], 0, sizeof hb,
                                   TVM_COPY_DEVICE_TO_HOST), TVM_OK);
  assert_int_equal(tvm_device_sync(d), TVM_OK);
  for (int i = 0; i < N; i++) {
    float want = expf(ha[i]) * 2 + 1;
    if (fabsf(hb[i] - want) > 1e-5f * (1 + fabsf(want)))
      fail_msg("B[%d] = %g, want %g", i, hb[i], want);
  }
  tvm_host_exec_free(x);
  for (int i = 0; i < 2; i++) tvm_device_free(d, 0, buf[i]);
  tvm_runtime_module_free(rm);
  tvm_device_close(d);
  tvm_plugin_blob_free(&blob);
  tvm_arena_destroy(a);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_kernels_on_vulkan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
