/*
 * tests/plugins/arm_mali/test_arm_mali.c - the arm-mali (OpenCL) plugin:
 * the shared hand-scheduled kernels (tests/plugins/gpu) lowered for the
 * generic opencl target; the OpenCL C checked for the constructs the
 * schedules ask for (vload4/vstore4, __local tiles, barriers, a guarded
 * tail); then, where an OpenCL device exists (PoCL in CI), built, run and
 * compared with the naive references.  Also: the work-group limit is
 * enforced at codegen, the Mali targets load and differ in attributes,
 * and fp16 kernels skip where the device lacks cl_khr_fp16.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/codegen_c.h"
#include "tvm/config.h"
#include "tvm/te.h"
#include "../gpu/gpu_kernels.h"

/* The OpenCL C of one case (heap). */
static char *source_of(const tvm_target *t, gpu_case *k) {
  tvm_plugin_blob blob;
  const uint8_t *src;
  uint64_t n;
  if (tvm_target_codegen(t, &k->m, &blob) != TVM_OK)
    fail_msg("%s: codegen: %s", k->name, tvm_diag_message());
  assert_int_equal(blob.format, TVM_BLOB_OPENCL_C);
  assert_int_equal(tvm_kpack_find(blob.data, blob.size, "source", &src, &n),
                   TVM_OK);
  char *s = malloc(n + 1);
  memcpy(s, src, n);
  s[n] = 0;
  assert_true(blob.nkernels >= 1);
  tvm_plugin_blob_free(&blob);
  if (getenv("GPU_DUMP")) printf("%s\n", s);
  return s;
}

static void test_codegen(void **state) {
  (void)state;
  tvm_target *t;
  if (tvm_target_load("opencl", &t) != TVM_OK)
    fail_msg("loading target opencl: %s", tvm_diag_message());
  tvm_ctx *c = tvm_ctx_create();
  gpu_case cases[GPU_NCASES];
  gpu_cases_lower(t, c, cases);
  char *s = source_of(t, &cases[0]);
  assert_non_null(strstr(s, "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void scale_vec4_kernel0(__global float* restrict B, __global float* restrict A"));
  assert_non_null(strstr(s, "vload4(0, &A["));
  assert_non_null(strstr(s, "vstore4(_r"));
  assert_non_null(strstr(s, "get_local_id(0)"));
  free(s);
  s = source_of(t, &cases[1]); /* 1000 = 15 * 64 + 40: a guard */
  assert_non_null(strstr(s, "if ("));
  free(s);
  s = source_of(t, &cases[2]);
  assert_non_null(strstr(s, "__local float A_shared["));
  assert_non_null(strstr(s, "barrier(CLK_LOCAL_MEM_FENCE);"));
  assert_non_null(strstr(s, "get_group_id(1)"));
  free(s);
  s = source_of(t, &cases[3]);
  assert_non_null(strstr(s, "exp("));
  free(s);
  gpu_cases_free(cases);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

/* C = A + 0. */
static tvm_expr *body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_add(c, TVM_AT(c, (tvm_tensor *)ud, i[0]), tvm_f32(c, 0));
}

/* Work-groups above max_work_group_size are rejected at codegen. */
static void test_work_group_limit(void **state) {
  (void)state;
  tvm_target *t;
  if (tvm_target_load("mali-t860", &t) != TVM_OK)
    fail_msg("loading target mali-t860: %s", tvm_diag_message());
  const tvm_plugin_target_info *info = tvm_target_info(t);
  assert_int_equal(info->vector_bits, 128);
  assert_int_equal(info->has_threads, 1);
  tvm_target *g;
  if (tvm_target_load("mali-g76", &g) != TVM_OK)
    fail_msg("loading target mali-g76: %s", tvm_diag_message());
  assert_int_equal(tvm_target_info(g)->vector_bits, 64);
  tvm_target_free(g);

  tvm_ctx *c = tvm_ctx_create();
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t, &o);
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){4096}, 1);
  tvm_schedule *s;
  tvm_iter_var *bo, *bi;
  /* C = A + 0 in 512-thread work-groups */
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){4096}, 1, body, A);
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  tvm_stage *st = tvm_stage_of(s, C);
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 512, &bo, &bi), TVM_OK);
  assert_int_equal(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)), TVM_OK);
  assert_int_equal(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)), TVM_OK);
  tvm_module m = {c, NULL, 0};
  assert_int_equal(tvm_lower(s, (tvm_tensor *[]){A, C}, 2, "big", &o, &m), TVM_OK);
  tvm_plugin_blob blob;
  assert_int_equal(tvm_target_codegen(t, &m, &blob), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "max_work_group_size 256"));
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}


/* The kernels run on the OpenCL device and match the references. */
static void test_run(void **state) {
  (void)state;
  tvm_target *t;
  tvm_device *d;
  if (tvm_target_load("opencl", &t) != TVM_OK)
    fail_msg("loading target opencl: %s", tvm_diag_message());
  if (tvm_target_probe(t) != TVM_OK) {
    printf("skipped: no OpenCL device: %s\n", tvm_diag_message());
    tvm_target_free(t);
    skip();
  }
  if (tvm_device_open(t, &d) != TVM_OK)
    fail_msg("device_open: %s", tvm_diag_message());
  tvm_ctx *c = tvm_ctx_create();
  gpu_case cases[GPU_NCASES];
  gpu_cases_lower(t, c, cases);
  gpu_cases_run(t, d, cases, 0);
  /* again, timed: the programs now come from the binary cache */
  gpu_cases_run(t, d, cases, 1);
  gpu_cases_free(cases);
  tvm_ctx_destroy(c);
  tvm_device_close(d);
  tvm_target_free(t);
}

static tvm_expr *mm_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, in[0]->shape_c[1]);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])), &k, 1);
}

/* The MatMul template at a knob setting: no __local memory, vloadN of B,
 * and (on an OpenCL device) the result of a naive matmul. */
static void matmul_template(const char *const *names, const int *idx,
                            int64_t M, int64_t N, int64_t K) {
  int ragged = M % 32 || N % 32;
  tvm_target *t;
  if (tvm_target_load("opencl", &t) != TVM_OK)
    fail_msg("loading opencl: %s", tvm_diag_message());
  const tvm_plugin_strategy *strat = tvm_target_strategy(t, "MatMul");
  assert_non_null(strat);
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){M, K}, 2);
  in[1] = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){K, N}, 2);
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){M, N}, 2, mm_body, in);
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s;
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  (void)strat->schedule(t->instance, s, &C, 1, cfg); /* records the knobs */
  tvm_schedule_free(s);
  for (int i = 0; names[i]; i++)
    assert_int_equal(tvm_config_set(cfg, names[i], idx[i]), TVM_OK);
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  if (strat->schedule(t->instance, s, &C, 1, cfg) != TVM_OK)
    fail_msg("template: %s", tvm_diag_message());
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t, &o);
  gpu_case k = {0};
  k.name = "mm";
  k.m.ctx = c;
  if (tvm_lower(s, (tvm_tensor *[]){in[0], in[1], C}, 3, "mm", &o, &k.m) != TVM_OK)
    fail_msg("lower: %s", tvm_diag_message());
  char *src = source_of(t, &k);
  assert_null(strstr(src, "__local"));
  if (!ragged) assert_non_null(strstr(src, "vload4(0, &B["));
  free(src);
  gpu_case_matmul(&k, M, N, K, NULL);
  tvm_device *d;
  if (tvm_target_probe(t) != TVM_OK) {
    printf("note: not run, no OpenCL device: %s\n", tvm_diag_message());
  } else {
    assert_int_equal(tvm_device_open(t, &d), TVM_OK);
    gpu_case_run(t, d, &k);
    tvm_device_close(d);
  }
  for (int i = 0; i < 3; i++) free(k.data[i]);
  tvm_config_free(cfg);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

static void test_matmul_template(void **state) {
  (void)state;
  static const char *const none[] = {NULL};
  matmul_template(none, NULL, 64, 64, 48); /* defaults: 4 rows, 8x4 groups */
  static const char *const all[] = {"tile_rows", "wg_x", "wg_y", "unroll_k", NULL};
  matmul_template(all, (const int[]){1, 2, 1, 3}, 32, 128, 64); /* 2, 16x2, 8 */
  matmul_template(all, (const int[]){3, 0, 0, 0}, 8, 16, 5);    /* 8, 4x1, 1 */
  matmul_template(none, NULL, 33, 40, 17); /* ragged edges everywhere */
  /* over the work-group limit: rejected before anything is built */
  tvm_target *t;
  char path[] = "/tmp/tvm_mali_small_XXXXXX.yaml";
  int fd = mkstemps(path, 5);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("name: opencl-small\nplugin: arm-mali\nkeys: [opencl]\n"
        "attrs: {max_work_group_size: 64}\n", f);
  fclose(f);
  tvm_status lst = tvm_target_load(path, &t);
  unlink(path);
  assert_int_equal(lst, TVM_OK);
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){64, 64}, 2);
  in[1] = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){64, 64}, 2);
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){64, 64}, 2, mm_body, in);
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s;
  const tvm_plugin_strategy *strat = tvm_target_strategy(t, "MatMul");
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  (void)strat->schedule(t->instance, s, &C, 1, cfg);
  tvm_schedule_free(s);
  assert_int_equal(tvm_config_set(cfg, "wg_x", 3), TVM_OK); /* 32 x 4 */
  assert_int_equal(tvm_config_set(cfg, "wg_y", 2), TVM_OK);
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  assert_int_equal(strat->schedule(t->instance, s, &C, 1, cfg), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "exceed max_work_group_size 64"));
  tvm_schedule_free(s);
  tvm_config_free(cfg);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

/* float16 on an OpenCL target that allows it: runs where the device has
 * cl_khr_fp16, skips with the reason elsewhere (PoCL lacks it); and the
 * generic target (fp16: false) refuses it at codegen. */
static void test_fp16(void **state) {
  (void)state;
  tvm_target *t;
  char path[] = "/tmp/tvm_mali_fp16_XXXXXX.yaml";
  int fd = mkstemps(path, 5);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("name: opencl-fp16\nplugin: arm-mali\nkeys: [opencl]\n"
        "attrs: {device_type: any, fp16: true}\n", f);
  fclose(f);
  tvm_status st = tvm_target_load(path, &t);
  unlink(path);
  if (st != TVM_OK) fail_msg("loading %s: %s", path, tvm_diag_message());
  tvm_ctx *c = tvm_ctx_create();
  tvm_module m = {c, NULL, 0};
  gpu_half_lower(t, c, &m);
  tvm_target *generic;
  if (tvm_target_load("opencl", &generic) != TVM_OK)
    fail_msg("loading opencl: %s", tvm_diag_message());
  tvm_plugin_blob blob;
  assert_int_equal(tvm_target_codegen(generic, &m, &blob), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "fp16: false"));
  tvm_target_free(generic);
  if (tvm_target_codegen(t, &m, &blob) != TVM_OK)
    fail_msg("half codegen: %s", tvm_diag_message());
  {
    /* the extension pragma, then half loads and stores */
    const uint8_t *src;
    uint64_t n;
    assert_int_equal(tvm_kpack_find(blob.data, blob.size, "source", &src, &n),
                     TVM_OK);
    char *text = strndup((const char *)src, (size_t)n);
    assert_non_null(text);
    const char *pragma = strstr(text, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable");
    assert_non_null(pragma);
    assert_non_null(strstr(pragma, "__global half"));
    free(text);
  }
  tvm_device *d = NULL;
  tvm_runtime_module *rm = NULL;
  int skipped = 0;
  if (tvm_target_probe(t) != TVM_OK) {
    printf("skipped: no OpenCL device: %s\n", tvm_diag_message());
    skipped = 1;
  } else if (tvm_device_open(t, &d) != TVM_OK) {
    fail_msg("device_open: %s", tvm_diag_message());
  } else if (tvm_runtime_module_load(d, &blob, &rm) != TVM_OK) {
    if (!strstr(tvm_diag_message(), "lacks cl_khr_fp16"))
      fail_msg("half module load: %s", tvm_diag_message());
    printf("skipped: %s\n", tvm_diag_message());
    skipped = 1;
  } else {
    /* a device with cl_khr_fp16: run it (inputs 0, so B = exp(0)*2+1 = 3) */
    tvm_runtime_func *fn;
    void *a, *b;
    uint16_t zero[1024] = {0}, out[1024];
    const tvm_func *kf = NULL;
    for (int i = 0; i < m.nfuncs; i++)
      if (m.funcs[i]->kind == TVM_FUNC_DEVICE) kf = m.funcs[i];
    assert_non_null(kf);
    assert_int_equal(tvm_runtime_get_func(rm, kf->name, &fn), TVM_OK);
    assert_int_equal(tvm_device_alloc(d, 0, sizeof zero, 64, &a), TVM_OK);
    assert_int_equal(tvm_device_alloc(d, 0, sizeof zero, 64, &b), TVM_OK);
    assert_int_equal(tvm_device_copy(d, a, 0, zero, 0, sizeof zero,
                                     TVM_COPY_HOST_TO_DEVICE), TVM_OK);
    tvm_plugin_arg args[2];
    for (int i = 0; i < 2; i++) {
      args[i].type = TVM_ARG_PTR;
      args[i].reserved = 0;
      args[i].v.ptr = !strcmp(kf->params[i]->u.var.name, "A") ? a : b;
    }
    assert_int_equal(tvm_runtime_call(fn, args, 2), TVM_OK);
    assert_int_equal(tvm_device_copy(d, out, 0, b, 0, sizeof out,
                                     TVM_COPY_DEVICE_TO_HOST), TVM_OK);
    for (int i = 0; i < 1024; i++) assert_int_equal(out[i], 0x4200); /* 3.0 */
    tvm_device_free(d, 0, a);
    tvm_device_free(d, 0, b);
    tvm_runtime_module_free(rm);
  }
  if (d) tvm_device_close(d);
  tvm_plugin_blob_free(&blob);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
  if (skipped) skip();
}

int main(void) {
  /* PoCL caches kernels: keep its cache out of the user's home */
  gpu_pocl_cache_enter();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_codegen),
      cmocka_unit_test(test_work_group_limit),
      cmocka_unit_test(test_run),
      cmocka_unit_test(test_fp16),
      cmocka_unit_test(test_matmul_template),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  gpu_pocl_cache_leave();
  return rc;
}
