/*
 * tests/plugins/arm_mali/test_arm_mali_templates.c - the arm-mali
 * templates (the core's GPU templates, tvm/gpu_templates.h, with the
 * plugin's limits and layout choice) on one-node graphs: every case is
 * compiled with the whole pipeline for the opencl target (and a Mali-G76
 * twin that runs on any OpenCL device: 2-lane vectors, 384 work-items),
 * the template the compiler chose for the node is checked (the tuner's
 * hook sees it, and the final loop IR shows the vector it asks for),
 * knob values are preset through the same hook, and where an OpenCL
 * device exists (PoCL in CI) the kernel runs and its output is compared
 * with the operator's naive reference.  Shapes are odd on purpose:
 * ragged work-groups, padding, strides, dilations, RGB inputs, channel
 * counts the vector width does not divide.
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

#include "tvm/compiler.h"
#include "tvm/tune.h"
#include "tvm/gpu_templates.h"
#include "../../../plugin-sdk/tools/backend_ops.h"
#include "../gpu/gpu_kernels.h"

/* What the tuner's hook saw and what it presets. */
typedef struct hook_state {
  char templates[256];
  const char *const *names; /* knobs to preset, NULL-terminated */
  const int *idx;
  const char *only;         /* preset only for this template */
} hook_state;

static tvm_status hook(void *ud, tvm_tune_kernel *k, tvm_config *cfg) {
  hook_state *h = ud;
  const char *tm = tvm_tune_kernel_template(k);
  size_t n = strlen(h->templates);
  snprintf(h->templates + n, sizeof h->templates - n, "%s;", tm ? tm : "?");
  if (cfg && h->names && tm && (!h->only || !strcmp(h->only, tm)))
    for (int i = 0; h->names[i]; i++)
      if (tvm_config_preset(cfg, h->names[i], h->idx[i]) != TVM_OK)
        return tvm_diag_status();
  return TVM_OK;
}

static int g_have_device = -1; /* per target name, checked once */

/* The case's graph again with the inputs of cmask (bit i = input slot i)
 * as constants holding the same data (weights are constants in a model:
 * the target's layout choice applies only to them).  slots receives the
 * input slots of the graph inputs, in order. */
static tvm_graph *with_consts(const bo_node *bn, unsigned cmask, int *slots,
                              int *nslots) {
  tvm_graph *g = NULL;
  tvm_gvalue *in[BO_MAXIN] = {0};
  tvm_gnode *node = NULL;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  *nslots = 0;
  for (int i = 0; i < bn->nin; i++) {
    const DLTensor *d = &bn->din[i];
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    if (!d->data) continue;
    if (cmask & (1u << i)) {
      in[i] = tvm_graph_const(g, name, d->dtype, d->shape, d->ndim, d->data);
    } else {
      in[i] = tvm_graph_input(g, name, d->dtype, d->shape, d->ndim);
      slots[(*nslots)++] = i;
    }
  }
  tvm_graph_apply(g, bn->node->op, "n", in, bn->nin, bn->node->attrs,
                  bn->node->nattrs, bn->nout, &node);
  for (int k = 0; node && k < bn->nout; k++)
    tvm_graph_mark_output(g, node->outputs[k]);
  if (tvm_graph_status(g) != TVM_OK)
    fail_msg("%s: %s", bn->node->op, tvm_diag_message());
  return g;
}

/* One case: compile op(inputs, attrs) for t, check that `tmpl` scheduled
 * a kernel and that the final loop IR contains `ir` (when non-NULL), then
 * run it where the device exists and compare with the reference. */
static void run_case(const tvm_target *t, const char *op, const char *inputs,
                     const char *attrs, const char *tmpl, const char *ir,
                     const char *const *names, const int *idx) {
  /* a Conv's or a Gemm's weight and bias are constants */
  unsigned cmask = !strcmp(op, "Conv") || !strcmp(op, "Gemm") ? 6u : 0u;
  bo_case c = {op, inputs, attrs, 0};
  bo_node bn;
  char shape[256], why[512];
  bo_result r = bo_node_build(&c, TVM_F32, &bn, shape, sizeof shape, why,
                              sizeof why);
  if (r != BO_PASS) fail_msg("%s %s: building: %s", op, inputs, why);
  hook_state h = {{0}, names, idx, tmpl};
  tvm_tune_hooks hooks = {hook, &h, NULL};
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.tune = &hooks;
  o.dump_ir = "simplify";
  o.dump_to = f;
  tvm_plan *plan = NULL;
  int slots[BO_MAXIN], nslots;
  tvm_graph *g = with_consts(&bn, cmask, slots, &nslots);
  tvm_status st = tvm_compile(g, t, &o, &plan);
  fclose(f);
  if (st != TVM_OK)
    fail_msg("%s %s {%s} on %s: compile: %s", op, inputs, attrs, t->name,
             tvm_diag_message());
  if (!strstr(h.templates, tmpl))
    fail_msg("%s %s on %s: template %s not chosen (hook saw: %s)", op,
             inputs, t->name, tmpl, h.templates);
  if (ir && !strstr(text, ir)) {
    printf("%s\n", text);
    fail_msg("%s %s on %s: '%s' not in the loop IR", op, inputs, t->name,
             ir);
  }
  if (getenv("MALI_DUMP")) printf("%s\n", text);
  free(text);
  if (g_have_device < 0) {
    g_have_device = tvm_target_probe(t) == TVM_OK;
    if (!g_have_device)
      printf("note: compiled only, no OpenCL device: %s\n",
             tvm_diag_message());
  }
  if (g_have_device) {
    tvm_executor *ex = NULL;
    st = tvm_executor_create(plan, t, &ex);
    for (int i = 0; st == TVM_OK && i < nslots; i++)
      st = tvm_executor_set_input(ex, (uint32_t)i, &bn.din[slots[i]]);
    if (st == TVM_OK) st = tvm_executor_run(ex);
    for (int k = 0; st == TVM_OK && k < bn.nout; k++)
      st = tvm_executor_get_output(ex, (uint32_t)k, &bn.dgot[k]);
    if (st != TVM_OK)
      fail_msg("%s %s on %s: run: %s", op, inputs, t->name,
               tvm_diag_message());
    if (bo_node_compare(&bn, op, why, sizeof why) != BO_PASS)
      fail_msg("%s %s {%s} on %s: %s", op, inputs, attrs, t->name, why);
    tvm_executor_free(ex);
  }
  tvm_plan_free(plan);
  tvm_graph_free(g);
  bo_node_free(&bn);
}

/* A target from YAML text (a temporary file). */
static tvm_target *load_yaml(const char *text) {
  char path[] = "/tmp/tvm_mali_tmpl_XXXXXX.yaml";
  int fd = mkstemps(path, 5);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  tvm_target *t = NULL;
  tvm_status st = tvm_target_load(path, &t);
  unlink(path);
  if (st != TVM_OK) fail_msg("loading a target: %s", tvm_diag_message());
  return t;
}

static const char CONV[] = "arm-mali.conv2d_spatial_pack";
static const char POOL[] = "arm-mali.pool_NCHWc";
static const char INJ[] = "arm-mali.injective";
/* A contiguous vector access of 4 / 2 lanes in the loop IR. */
#define V4 ", 1, 4)]"
#define V2 ", 1, 2)]"

/* The convolutions on a target whose vectors are `vec` (V4, V2). */
static void conv_cases(const tvm_target *t, const char *vec) {
  /* RGB input (input block 3), odd output, padding, bias */
  run_case(t, "Conv", "D[1,3,13,11] D[8,3,3,3] D[8]", "pads=[1,1,1,1]", CONV,
           vec, NULL, NULL);
  /* strides and asymmetric padding, ragged work-groups */
  run_case(t, "Conv", "D[1,8,9,7] D[12,8,3,3]",
           "strides=[2,2] pads=[0,1,2,1]", CONV, vec, NULL, NULL);
  /* 1x1 (the GEMM tile), with and without stride */
  run_case(t, "Conv", "D[1,16,7,7] D[8,16,1,1] D[8]", "", CONV, vec, NULL,
           NULL);
  run_case(t, "Conv", "D[2,8,9,9] D[4,8,1,1]", "strides=[2,2]", CONV, vec,
           NULL, NULL);
  /* depthwise, stride 1 and 2 */
  run_case(t, "Conv", "D[1,8,11,9] D[8,1,3,3]", "pads=[1,1,1,1] group=8",
           CONV, vec, NULL, NULL);
  run_case(t, "Conv", "D[1,4,10,10] D[4,1,3,3] D[4]",
           "strides=[2,2] pads=[1,1,1,1] group=4", CONV, vec, NULL, NULL);
  /* dilated 5x5; input channels the vector does not divide (block 5, 1) */
  run_case(t, "Conv", "D[1,4,12,12] D[4,4,5,5]",
           "dilations=[2,2] pads=[2,2,2,2]", CONV, vec, NULL, NULL);
  run_case(t, "Conv", "D[1,5,6,6] D[4,5,3,3]", "", CONV, vec, NULL, NULL);
  run_case(t, "Conv", "D[1,18,5,5] D[4,18,3,3]", "pads=[1,1,1,1]", CONV, vec,
           NULL, NULL);
}

static void test_conv(void **state) {
  (void)state;
  tvm_target *t;
  if (tvm_target_load("opencl", &t) != TVM_OK)
    fail_msg("loading opencl: %s", tvm_diag_message());
  conv_cases(t, V4);
  /* knobs away from their defaults: tile_oh 3 (of the divisors of 9 up
   * to 4: {1, 3}), tile_ow 7 (of {1, 7}), wg 2 x 4, kw rolled */
  static const char *const k1[] = {"tile_oh", "tile_ow", "wg_x", "wg_y",
                                   "unroll_kw", NULL};
  run_case(t, "Conv", "D[1,8,9,7] D[8,8,3,3] D[8]", "pads=[1,1,1,1]", CONV,
           V4, k1, (const int[]){1, 1, 1, 2, 0});
  static const char *const k2[] = {"tile_oh", "tile_ow", "wg_x", "wg_y",
                                   NULL};
  run_case(t, "Conv", "D[1,16,8,8] D[8,16,1,1]", "", CONV, V4, k2,
           (const int[]){2, 3, 0, 0}); /* 4 x 8 pixels, 1 x 1 groups */
  tvm_target_free(t);
}

/* The Mali-G76 attributes on any OpenCL device: 2-lane vectors. */
static void test_conv_g76(void **state) {
  (void)state;
  tvm_target *t = load_yaml(
      "name: mali-g76-any\nplugin: arm-mali\nkeys: [gpu, mali, opencl]\n"
      "attrs: {device_type: any, max_work_group_size: 384, vector_width: 2,"
      " local_memory_bytes: 32768, fp16: false}\n");
  int saved = g_have_device;
  g_have_device = -1;
  conv_cases(t, V2);
  g_have_device = saved;
  tvm_target_free(t);
}

/* A work-group limit of 16: the defaults fit under it; knobs above it
 * are rejected and the core's generic schedule (capped at 16 too) runs
 * instead, with the same result. */
static void test_work_group_cap(void **state) {
  (void)state;
  tvm_target *t = load_yaml(
      "name: opencl-wg16\nplugin: arm-mali\nkeys: [opencl]\n"
      "attrs: {device_type: any, max_work_group_size: 16}\n");
  int saved = g_have_device;
  g_have_device = -1;
  run_case(t, "Conv", "D[1,8,17,19] D[8,8,3,3]", "pads=[1,1,1,1]", CONV,
           V4, NULL, NULL);
  static const char *const k[] = {"wg_x", "wg_y", NULL};
  run_case(t, "Conv", "D[1,8,17,19] D[8,8,3,3]", "pads=[1,1,1,1]", CONV,
           NULL, k, (const int[]){5, 4}); /* 32 x 16: declined */
  g_have_device = saved;
  tvm_target_free(t);
}

static void test_pool(void **state) {
  (void)state;
  tvm_target *t;
  if (tvm_target_load("opencl", &t) != TVM_OK)
    fail_msg("loading opencl: %s", tvm_diag_message());
  run_case(t, "Pool_NCHWc", "D[1,2,7,7,4]",
           "pool=MaxPool kernel_shape=[3,3] strides=[2,2] pads=[1,1,1,1]",
           POOL, V4, NULL, NULL);
  run_case(t, "Pool_NCHWc", "D[1,3,8,9,4]",
           "pool=MaxPool kernel_shape=[3,3] strides=[2,2] ceil_mode=1", POOL,
           V4, NULL, NULL);
  run_case(t, "Pool_NCHWc", "D[2,3,5,9,4]", "pool=GlobalAveragePool", POOL,
           V4, NULL, NULL);
  static const char *const k[] = {"wg", "unroll_rx", NULL};
  run_case(t, "Pool_NCHWc", "D[1,1,6,6,4]", "pool=GlobalMaxPool", POOL,
           V4, k, (const int[]){0, 1});
  /* a MaxPool after a blocked Conv is blocked too (alter_layout) */
  tvm_target_free(t);
}

static void test_dense(void **state) {
  (void)state;
  tvm_target *t;
  if (tvm_target_load("opencl", &t) != TVM_OK)
    fail_msg("loading opencl: %s", tvm_diag_message());
  static const char DENSE[] = "arm-mali.dense";
  run_case(t, "Gemm", "D[3,20] D[10,20] D[10]", "transB=1", DENSE, V4, NULL,
           NULL);
  run_case(t, "Gemm", "D[1,64] D[24,64]", "transB=1 alpha=0.5", DENSE, V4,
           NULL, NULL);
  run_case(t, "Gemm", "D[5,6] D[7,6] D[7]", "transB=1", DENSE, ", 1, 2)]",
           NULL, NULL); /* k = 6: 2 lanes */
  static const char *const k[] = {"tile_n", "wg", NULL};
  run_case(t, "Gemm", "D[9,32] D[16,32] D[16]", "transB=1", DENSE, V4, k,
           (const int[]){3, 0}); /* 8 columns a work-item, 16 work-items */
  tvm_target_free(t);
}

static void test_injective(void **state) {
  (void)state;
  tvm_target *t;
  if (tvm_target_load("opencl", &t) != TVM_OK)
    fail_msg("loading opencl: %s", tvm_diag_message());
  run_case(t, "Relu", "D[3,5,8]", "", INJ, V4, NULL, NULL);
  run_case(t, "Add", "D[2,3,4] D[3,1]", "", INJ, V4, NULL, NULL);
  run_case(t, "Sigmoid", "D[3,7]", "", INJ, NULL, NULL, NULL); /* scalar */
  static const char *const k[] = {"vector", "wg", NULL};
  run_case(t, "Mul", "D[4,9,12] D[12]", "", INJ, NULL, k,
           (const int[]){0, 0}); /* scalar, 32 work-items */
  run_case(t, "Transpose", "D[3,4,8]", "perm=[2,0,1]", INJ, V4,
           NULL, NULL);
  tvm_target_free(t);
}

/* The Winograd F(2x2, 3x3) tensor expressions (tvm_gpu_conv2d_winograd)
 * in one kernel: each work-item computes one output element with its
 * tile's transforms in registers (U, V, M at the thread, the constant
 * matrices and the padding inlined), compared with a naive 3x3
 * convolution on the OpenCL device. */
static void winograd_case(const tvm_target *t, int64_t N, int64_t C,
                          int64_t H, int64_t W, int64_t K, int64_t pad) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *X = tvm_placeholder(c, "X", TVM_F32, (int64_t[]){N, C, H, W}, 4);
  tvm_tensor *Wt = tvm_placeholder(c, "Wt", TVM_F32, (int64_t[]){K, C, 3, 3}, 4);
  tvm_tensor *Y = tvm_gpu_conv2d_winograd(c, X, Wt, pad, pad);
  if (!Y) fail_msg("winograd: %s", tvm_diag_message());
  int64_t OH = H + 2 * pad - 2, OW = W + 2 * pad - 2;
  assert_int_equal(Y->shape_c[2], OH);
  assert_int_equal(Y->shape_c[3], OW);
  tvm_schedule *s;
  assert_int_equal(tvm_schedule_create(c, &Y, 1, &s), TVM_OK);
  tvm_ptrvec ops = {0};
  assert_int_equal(tvm_op_reachable_computes(Y, &ops), TVM_OK);
  tvm_stage *sy = tvm_stage_of(s, Y);
  tvm_iter_var *f1, *f2, *f3, *bx, *tx;
  assert_int_equal(tvm_fuse(sy, tvm_stage_axis(sy, 0), tvm_stage_axis(sy, 1), &f1), TVM_OK);
  assert_int_equal(tvm_fuse(sy, f1, tvm_stage_axis(sy, 2), &f2), TVM_OK);
  assert_int_equal(tvm_fuse(sy, f2, tvm_stage_axis(sy, 3), &f3), TVM_OK);
  assert_int_equal(tvm_split(sy, f3, 32, &bx, &tx), TVM_OK);
  assert_int_equal(tvm_bind(sy, bx, tvm_thread_axis(c, "blockIdx.x", NULL)), TVM_OK);
  assert_int_equal(tvm_bind(sy, tx, tvm_thread_axis(c, "threadIdx.x", NULL)), TVM_OK);
  /* producers first in ops' reverse order: M, then U and V, at tx */
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op == Y->op) continue;
    tvm_stage *st = tvm_stage_of(s, op->output);
    if (op->nreduce) {
      st->scope = "local";
      assert_int_equal(tvm_compute_at(st, sy, tx), TVM_OK);
    } else {
      assert_int_equal(tvm_compute_inline(st), TVM_OK);
    }
  }
  tvm_ptrvec_free(&ops);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t, &o);
  gpu_case k = {0};
  k.name = "winograd";
  k.m.ctx = c;
  if (tvm_lower(s, (tvm_tensor *[]){X, Wt, Y}, 3, "wino", &o, &k.m) != TVM_OK)
    fail_msg("lower: %s", tvm_diag_message());
  k.ntensors = 3;
  k.tnames[0] = "X", k.tnames[1] = "Wt", k.tnames[2] = "wino_Y";
  k.tsize[0] = N * C * H * W, k.tsize[1] = K * C * 9;
  k.tsize[2] = N * K * OH * OW;
  k.out = 2;
  for (int i = 0; i < 2; i++) {
    k.data[i] = malloc(sizeof(float) * (size_t)k.tsize[i]);
    for (int64_t e = 0; e < k.tsize[i]; e++)
      k.data[i][e] = (float)((e * 37 + i * 11) % 17) / 8.0f - 1.0f;
  }
  k.data[2] = calloc((size_t)k.tsize[2], sizeof(float));
  for (int64_t n = 0; n < N; n++)
    for (int64_t m = 0; m < K; m++)
      for (int64_t y = 0; y < OH; y++)
        for (int64_t x = 0; x < OW; x++) {
          double acc = 0;
          for (int64_t ci = 0; ci < C; ci++)
            for (int64_t ry = 0; ry < 3; ry++)
              for (int64_t rx = 0; rx < 3; rx++) {
                int64_t iy = y + ry - pad, ix = x + rx - pad;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                acc += (double)k.data[0][((n * C + ci) * H + iy) * W + ix] *
                       k.data[1][((m * C + ci) * 3 + ry) * 3 + rx];
              }
          k.data[2][((n * K + m) * OH + y) * OW + x] = (float)acc;
        }
  if (tvm_target_probe(t) != TVM_OK) {
    printf("note: winograd compiled only, no OpenCL device: %s\n",
           tvm_diag_message());
    tvm_plugin_blob blob;
    if (tvm_target_codegen(t, &k.m, &blob) != TVM_OK)
      fail_msg("winograd codegen: %s", tvm_diag_message());
    tvm_plugin_blob_free(&blob);
  } else {
    tvm_device *d;
    assert_int_equal(tvm_device_open(t, &d), TVM_OK);
    gpu_case_run(t, d, &k);
    tvm_device_close(d);
  }
  for (int i = 0; i < 3; i++) free(k.data[i]);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}

static void test_winograd(void **state) {
  (void)state;
  tvm_target *t;
  if (tvm_target_load("opencl", &t) != TVM_OK)
    fail_msg("loading opencl: %s", tvm_diag_message());
  winograd_case(t, 1, 3, 7, 6, 4, 1); /* odd output rows: a partial tile */
  winograd_case(t, 2, 2, 5, 5, 3, 0); /* no padding, 3 x 3 outputs */
  tvm_ctx *c = tvm_ctx_create(); /* a 5x5 kernel is refused */
  tvm_tensor *X = tvm_placeholder(c, "X", TVM_F32, (int64_t[]){1, 2, 8, 8}, 4);
  tvm_tensor *W5 = tvm_placeholder(c, "W", TVM_F32, (int64_t[]){2, 2, 5, 5}, 4);
  assert_null(tvm_gpu_conv2d_winograd(c, X, W5, 0, 0));
  assert_int_equal(tvm_diag_status(), TVM_ERR_UNSUPPORTED);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

int main(void) {
  gpu_pocl_cache_enter();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv),
      cmocka_unit_test(test_conv_g76),
      cmocka_unit_test(test_work_group_cap),
      cmocka_unit_test(test_pool),
      cmocka_unit_test(test_dense),
      cmocka_unit_test(test_injective),
      cmocka_unit_test(test_winograd),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  gpu_pocl_cache_leave();
  return rc;
}
