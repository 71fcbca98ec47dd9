/*
 * tests/plugins/vulkan/test_vulkan_threads.c - the vulkan plugin on what
 * crosses threads and launches: cross-thread reductions with subgroup
 * operations (and without, when TVM_VULKAN_HIDE hides them), the
 * device's thread limit, and scalars past the push constants passed in
 * a uniform buffer ring.  Compiled and checked by spirv-val always, run
 * where there is a Vulkan device (lavapipe in CI).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/compiler.h"
#include "tvm/graph.h"
#include "tvm/lower.h"
#include "tvm/runtime.h"
#include "tvm/strategy.h"
#include "tvm/schedule.h"
#include "tvm/target.h"
#include "tvm/te.h"

#include "vk_test.h"

/* ---- cross-thread reductions with subgroup operations ------------------------ */
enum { SMR = 3, SMC = 1000 };

/* Softmax [3, 1000] over axis 1 through tvm_compile and the executor on
 * the vulkan target; y receives the output. */
static void softmax_run(const float *x, float *y) {
  tvm_graph *g = NULL;
  tvm_plan *p = NULL;
  tvm_executor *e = NULL;
  tvm_compile_options o;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  tvm_gvalue *in = tvm_graph_input(g, "x", TVM_F32, (int64_t[]){SMR, SMC}, 2);
  tvm_gattr ax = tvm_gattr_int("axis", 1);
  tvm_gvalue *out = tvm_graph_apply(g, "Softmax", "prob", TVM_IN(in), &ax, 1,
                                    1, NULL);
  assert_non_null(out);
  assert_int_equal(tvm_graph_mark_output(g, out), TVM_OK);
  tvm_compile_options_init(&o);
  if (tvm_compile(g, vk_target, &o, &p) || tvm_executor_create(p, vk_target, &e))
    fail_msg("softmax: %s", tvm_diag_message());
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.device.device_type = kDLCPU;
  t.ndim = 2;
  t.shape = (int64_t[]){SMR, SMC};
  t.dtype.code = kDLFloat, t.dtype.bits = 32, t.dtype.lanes = 1;
  t.data = (void *)x;
  assert_int_equal(tvm_executor_set_input(e, 0, &t), TVM_OK);
  assert_int_equal(tvm_executor_run(e), TVM_OK);
  t.data = y;
  assert_int_equal(tvm_executor_get_output(e, 0, &t), TVM_OK);
  tvm_executor_free(e);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* The core's generic thread schedule makes Softmax [3, 1000] two
 * cross-thread reductions (max, then sum); their final combines use
 * OpGroupNonUniformFMax / FAdd (in the disassembly), each kernel keeps a
 * plain variant, and both variants compute softmax: the subgroup one on a
 * device with subgroup arithmetic (lavapipe has it), the plain one when
 * TVM_VULKAN_HIDE hides it. */
static void test_subgroup_reduce(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_graph *g = NULL;
  tvm_gnode *n = NULL;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  tvm_gvalue *gin =
      tvm_graph_input(g, "x", TVM_F32, (int64_t[]){SMR, SMC}, 2);
  tvm_gattr ax = tvm_gattr_int("axis", 1);
  tvm_graph_apply(g, "Softmax", "n", TVM_IN(gin), &ax, 1, 1, &n);
  assert_non_null(n);
  tvm_tensor *in = tvm_placeholder(c, "x", TVM_F32, (int64_t[]){SMR, SMC}, 2);
  tvm_tensor *out[4] = {0};
  tvm_strategy_env *env = NULL;
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s = NULL;
  assert_int_equal(n->def->compute(c, n, &in, out), TVM_OK);
  assert_int_equal(tvm_strategy_env_create(vk_target, c, &env), TVM_OK);
  if (tvm_strategy_schedule(env, n->op, (int)n->def->pattern, n, out, 1, cfg,
                            &s, NULL))
    fail_msg("schedule: %s", tvm_diag_message());
  tvm_module m = {c, NULL, 0};
  vk_lower(s, (tvm_tensor *[]){in, out[0]}, 2, "softmax", &m);
  tvm_plugin_blob blob;
  int nmax = vk_compile_validate_grep(&m, &blob, "OpGroupNonUniformFMax");
  tvm_plugin_blob_free(&blob);
  int fadd = vk_compile_validate_grep(&m, &blob, "OpGroupNonUniformFAdd");
  if (nmax >= 0) {
    print_message("modules with OpGroupNonUniformFMax: %d, FAdd: %d\n", nmax,
                  fadd);
    assert_int_equal(nmax, 1);
    assert_int_equal(fadd, 1);
  }
  /* the kernels with subgroup operations carry two variants */
  const uint32_t *w = (const uint32_t *)(const void *)blob.data;
  int two = 0;
  size_t at = 2;
  for (uint32_t k = 0; k < w[1]; k++) {
    at += 1 + (w[at] + 3) / 4;
    at += 2 * w[at] + 1 + 2 + 3; /* params, scalar block, local size */
    uint32_t nvar = w[at++];
    two += nvar == 2;
    for (uint32_t v = 0; v < nvar; v++) at += 2 + w[at + 1];
  }
  assert_int_equal(two, 2);
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_config_free(cfg);
  tvm_strategy_env_free(env);
  tvm_graph_free(g);
  tvm_ctx_destroy(c);
  if (!vk_have_device) skip();
  static float x[SMR * SMC], y[2][SMR * SMC];
  unsigned seed = 5;
  for (int i = 0; i < SMR * SMC; i++) x[i] = 4 * vk_frand(&seed);
  char line[4096];
  for (int run = 0; run < 2; run++) {
    if (run) setenv("TVM_VULKAN_HIDE", "subgroupArithmetic", 1);
    vk_device_line(line, sizeof line);
    assert_true((strstr(line, "subgroup arithmetic") != NULL) == !run);
    softmax_run(x, y[run]);
    unsetenv("TVM_VULKAN_HIDE");
    for (int r = 0; r < SMR; r++) {
      double mx = -INFINITY, sum = 0;
      for (int k = 0; k < SMC; k++) mx = fmax(mx, x[r * SMC + k]);
      for (int k = 0; k < SMC; k++) sum += exp(x[r * SMC + k] - mx);
      for (int k = 0; k < SMC; k++) {
        double want = exp(x[r * SMC + k] - mx) / sum;
        if (fabs(y[run][r * SMC + k] - want) > 1e-6 + 1e-4 * want)
          fail_msg("run %d: y[%d][%d] = %g, want %g", run, r, k,
                   y[run][r * SMC + k], want);
      }
    }
  }
}


/* attrs.max_threads reaches the core as max_threads_per_block: the
 * generic thread schedule's blocks stay within it. */
static void test_max_threads(void **state) {
  (void)state;
  assert_int_equal(tvm_target_info(vk_target)->max_threads_per_block, 256);
  char yaml[] = "/tmp/tvm_vk_t_XXXXXX";
  int fd = mkstemp(yaml);
  assert_true(fd >= 0);
  const char *text = "name: vulkan-64\nplugin: vulkan\nkeys: [gpu, vulkan]\n"
                     "attrs:\n  max_threads: 64\n";
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  tvm_target *t64 = NULL;
  assert_int_equal(tvm_target_load(yaml, &t64), TVM_OK);
  unlink(yaml);
  assert_int_equal(tvm_target_info(t64)->max_threads_per_block, 64);
  /* Relu over 10000 elements: the default block would be 256 threads */
  tvm_ctx *c = tvm_ctx_create();
  tvm_graph *g = NULL;
  tvm_gnode *n = NULL;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  tvm_gvalue *gin = tvm_graph_input(g, "x", TVM_F32, (int64_t[]){10000}, 1);
  tvm_graph_apply(g, "Relu", "n", TVM_IN(gin), TVM_NOATTRS, 1, &n);
  assert_non_null(n);
  tvm_tensor *in = tvm_placeholder(c, "x", TVM_F32, (int64_t[]){10000}, 1);
  tvm_tensor *out[4] = {0};
  tvm_strategy_env *env = NULL;
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s = NULL;
  assert_int_equal(n->def->compute(c, n, &in, out), TVM_OK);
  assert_int_equal(tvm_strategy_env_create(t64, c, &env), TVM_OK);
  if (tvm_strategy_schedule(env, n->op, (int)n->def->pattern, n, out, 1, cfg,
                            &s, NULL))
    fail_msg("schedule: %s", tvm_diag_message());
  tvm_module m = {c, NULL, 0};
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t64, &o);
  if (tvm_lower(s, (tvm_tensor *[]){in, out[0]}, 2, "relu", &o, &m))
    fail_msg("lower: %s", tvm_diag_message());
  tvm_plugin_blob blob;
  assert_int_equal(tvm_target_codegen(t64, &m, &blob), TVM_OK);
  for (uint32_t k = 0; k < blob.nkernels; k++) {
    print_message("kernel %s: block %u\n", blob.kernels[k].name,
                  blob.kernels[k].block[0]);
    assert_true(blob.kernels[k].block[0] <= 64);
    assert_true(blob.kernels[k].block[0] >= 32);
  }
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_config_free(cfg);
  tvm_strategy_env_free(env);
  tvm_graph_free(g);
  tvm_ctx_destroy(c);
  tvm_target_free(t64);
}

/* ---- scalars past push constants: a uniform buffer -------------------------- */
enum { US = 20, UN = 64, ULAUNCH = 1000 };

/* A device kernel written as loop IR (scalar parameters do not come from
 * tensor expressions with static shapes): B[i] = A[i] * s0 + sum over
 * k = 1..US-1 of k * s_k, s_k float32 for even k, int32 for odd k:
 * 20 scalars, 160 bytes, more than push constants are guaranteed to hold. */
static tvm_func *scalars_kernel(tvm_ctx *c) {
  tvm_expr *shape[1] = {tvm_int(c, UN)};
  tvm_buffer *ba = tvm_buffer_new(c, "A", TVM_F32, shape, 1, "global");
  tvm_buffer *bb = tvm_buffer_new(c, "B", TVM_F32, shape, 1, "global");
  tvm_expr *params[2 + US];
  tvm_buffer *bufs[2 + US] = {ba, bb};
  params[0] = ba->data;
  params[1] = bb->data;
  tvm_expr *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *v = NULL;
  for (int k = 0; k < US; k++) {
    char name[8];
    snprintf(name, sizeof name, "s%d", k);
    params[2 + k] = tvm_var(c, name, k % 2 ? TVM_I32 : TVM_F32);
    tvm_expr *sk = k % 2 ? tvm_cast(c, TVM_F32, params[2 + k]) : params[2 + k];
    v = k == 0 ? tvm_mul(c, tvm_load(c, TVM_F32, ba->data, i, NULL), sk)
               : tvm_add(c, v, tvm_mul(c, tvm_f32(c, k), sk));
  }
  tvm_stmt *body = tvm_for(c, i, tvm_int(c, 0), tvm_int(c, UN),
                           TVM_FOR_THREAD, "threadIdx.x",
                           tvm_store(c, bb->data, i, v, NULL));
  tvm_func *f = tvm_func_new(c, "scalars", params, bufs, 2 + US, body);
  assert_non_null(f);
  f->kind = TVM_FUNC_DEVICE;
  f->nthread_axes = 1;
  static const char *tags[1] = {"threadIdx.x"};
  f->thread_tags = tags;
  f->thread_extents = tvm_ctx_alloc(c, sizeof(tvm_expr *));
  f->thread_extents[0] = tvm_int(c, UN);
  return f;
}

/* The scalars of launch j (s0 = 1 when acc: the launches accumulate). */
static void scalars_of(int j, int acc, tvm_plugin_arg *args) {
  for (int k = 0; k < US; k++) {
    tvm_plugin_arg *a = &args[2 + k];
    memset(a, 0, sizeof *a);
    if (k % 2) {
      a->type = TVM_ARG_INT;
      a->v.i = k + j % 3 - 1;
    } else {
      a->type = TVM_ARG_FLOAT;
      a->v.f = k == 0 ? (acc ? 1.0 : 1.5 + j) : 0.5 * ((k + j) % 4);
    }
  }
}

/* What launch j adds to A[i] * s0. */
static float scalars_sum(const tvm_plugin_arg *args) {
  float s = 0;
  for (int k = 1; k < US; k++)
    s += (float)k * (k % 2 ? (float)args[2 + k].v.i : (float)args[2 + k].v.f);
  return s;
}

/* Two launches with different scalars recorded before one sync each see
 * their own (each launch has its own slice of the uniform buffer), and
 * ULAUNCH in-place launches, more than the ring holds before it starts
 * over, accumulate exactly; with push descriptors and with descriptor
 * sets. */
static void test_scalars_uniform_buffer(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_module m = {c, NULL, 0};
  assert_int_equal(tvm_module_add(&m, scalars_kernel(c)), TVM_OK);
  tvm_plugin_blob blob;
  int found = vk_compile_validate_grep(&m, &blob, "OpVariable.*Uniform$");
  if (found >= 0) assert_int_equal(found, 1);
  if (!vk_have_device) {
    tvm_plugin_blob_free(&blob);
    tvm_ctx_destroy(c);
    skip();
  }
  static float a[UN], b[2][UN], acc[UN];
  for (int i = 0; i < UN; i++) a[i] = (float)(i % 7) - 3;
  for (int run = 0; run < 2; run++) {
    if (run) setenv("TVM_VULKAN_HIDE", "VK_KHR_push_descriptor", 1);
    tvm_device *d = NULL;
    tvm_runtime_module *rm = NULL;
    tvm_runtime_func *rf = NULL;
    if (tvm_device_open(vk_target, &d) != TVM_OK ||
        tvm_runtime_module_load(d, &blob, &rm) != TVM_OK ||
        tvm_runtime_get_func(rm, "scalars", &rf) != TVM_OK)
      fail_msg("%s", tvm_diag_message());
    const tvm_plugin_kernel *k = tvm_runtime_func_kernel(rf);
    void *da, *db[2];
    assert_int_equal(tvm_device_alloc(d, 0, sizeof a, 64, &da), TVM_OK);
    for (int o = 0; o < 2; o++)
      assert_int_equal(tvm_device_alloc(d, 0, sizeof a, 64, &db[o]), TVM_OK);
    assert_int_equal(tvm_device_copy(d, da, 0, a, 0, sizeof a,
                                     TVM_COPY_HOST_TO_DEVICE),
                     TVM_OK);
    /* two launches, one sync */
    tvm_plugin_arg args[2][2 + US];
    for (int o = 0; o < 2; o++) {
      memset(args[o], 0, sizeof args[o]);
      args[o][0].type = args[o][1].type = TVM_ARG_PTR;
      args[o][0].v.ptr = da;
      args[o][1].v.ptr = db[o];
      scalars_of(o + 1, 0, args[o]);
      if (tvm_device_launch(d, rf, args[o], 2 + US, k->grid, k->block))
        fail_msg("launch: %s", tvm_diag_message());
    }
    assert_int_equal(tvm_device_sync(d), TVM_OK);
    for (int o = 0; o < 2; o++) {
      assert_int_equal(tvm_device_copy(d, b[o], 0, db[o], 0, sizeof a,
                                       TVM_COPY_DEVICE_TO_HOST),
                       TVM_OK);
      float s0 = (float)args[o][2].v.f, add = scalars_sum(args[o]);
      for (int i = 0; i < UN; i++)
        if (b[o][i] != a[i] * s0 + add)
          fail_msg("run %d launch %d: B[%d] = %g, want %g", run, o, i,
                   b[o][i], a[i] * s0 + add);
    }
    /* in place, ULAUNCH times: B += sum_j */
    tvm_plugin_arg in_place[2 + US];
    memset(in_place, 0, sizeof in_place);
    in_place[0].type = in_place[1].type = TVM_ARG_PTR;
    in_place[0].v.ptr = in_place[1].v.ptr = da;
    double want_add = 0;
    for (int j = 0; j < ULAUNCH; j++) {
      scalars_of(j, 1, in_place);
      want_add += scalars_sum(in_place);
      if (tvm_device_launch(d, rf, in_place, 2 + US, k->grid, k->block))
        fail_msg("launch %d: %s", j, tvm_diag_message());
    }
    assert_int_equal(tvm_device_sync(d), TVM_OK);
    assert_int_equal(tvm_device_copy(d, acc, 0, da, 0, sizeof a,
                                     TVM_COPY_DEVICE_TO_HOST),
                     TVM_OK);
    for (int i = 0; i < UN; i++)
      if (acc[i] != (float)(a[i] + want_add))
        fail_msg("run %d: after %d launches A[%d] = %g, want %g", run,
                 ULAUNCH, i, acc[i], a[i] + want_add);
    tvm_device_free(d, 0, da);
    for (int o = 0; o < 2; o++) tvm_device_free(d, 0, db[o]);
    tvm_runtime_module_free(rm);
    tvm_device_close(d);
    unsetenv("TVM_VULKAN_HIDE");
  }
  tvm_plugin_blob_free(&blob);
  tvm_ctx_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_subgroup_reduce),
      cmocka_unit_test(test_max_threads),
      cmocka_unit_test(test_scalars_uniform_buffer),
  };
  return cmocka_run_group_tests(tests, vk_setup, vk_teardown);
}
