/*
 * tests/plugins/arm_mali/test_arm_mali_winograd.c - Winograd F(2x2, 3x3)
 * through the graph compiler on the opencl target (PoCL here): the
 * Conv2D_winograd / Conv2D_winograd_weight references against Conv's; a
 * target's request refused where Winograd does not apply; whole graphs
 * compiled for opencl whose 3x3 stride-1 convolutions with enough
 * channels become Conv2D_winograd (plan labels) and match the original
 * graph's reference, while stride-2, 1x1 and few-channel convolutions do
 * not.  Without an OpenCL device the graphs are compiled (codegen
 * included) but not run, and the run checks say so.  Plans run through
 * the runtime's executor (a Winograd step is several kernels launched by
 * its host program).
 */
#include <math.h>
#include <stdlib.h>

#include "../../unit/compiler/compile_test.h"
#include "../gpu/gpu_kernels.h"
#include "tvm/graph_passes.h"
#include "tvm/target.h"

#define F32 tvm_dt(kDLFloat, 32, 1)
#define RTOL 1e-4

static tvm_target *T;
static int have_device;

static int setup(void **state) {
  (void)state;
  if (tvm_target_load("opencl", &T) != TVM_OK) {
    fprintf(stderr, "opencl: %s\n", tvm_diag_message());
    return -1;
  }
  have_device = tvm_target_probe(T) == TVM_OK;
  if (!have_device)
    printf("note: no OpenCL device (%s): graphs compiled, not run\n",
           tvm_diag_message());
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tvm_target_free(T);
  return 0;
}

/* Conv attributes: square kernel k, stride, symmetric pad. */
static tvm_gvalue *conv(tvm_graph *g, tvm_gvalue *x, int64_t C, int64_t M,
                        int64_t k, int64_t stride, int64_t pad, int bias,
                        uint64_t seed) {
  tvm_gvalue *w = tvm_graph_random(g, NULL, (int64_t[]){M, C, k, k}, 4, seed, 0.3);
  tvm_gvalue *b = tvm_graph_random(g, NULL, (int64_t[]){M}, 1, seed + 1, 0.3);
  tvm_gattr at[2] = {tvm_gattr_ints("pads", (int64_t[]){pad, pad, pad, pad}, 4),
                     tvm_gattr_ints("strides", (int64_t[]){stride, stride}, 2)};
  tvm_gvalue *in[3] = {x, w, b};
  return tvm_graph_apply(g, "Conv", NULL, in, bias ? 3 : 2, at, 2, 1, NULL);
}

/* Reference of g, compile for opencl, run (with a device) and compare;
 * returns the plan. */
static tvm_plan *compile_check(tvm_graph *g, uint64_t seed) {
  tensors in, want, got;
  tvm_plan *p = NULL;
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  CHECK_OK(tvm_graph_status(g));
  tensors_alloc(&in, &g->inputs, seed);
  eval_graph(g, &in, &want);
  OKR(tvm_compile(g, T, &o, &p));
  if (have_device) { /* the runtime's executor: it runs host programs */
    run_plan_executor(p, T, &in, &got);
    expect_close(&got, &want, RTOL);
    tensors_free(&got);
  }
  tensors_free(&in);
  tensors_free(&want);
  return p;
}

/* The two operators' references equal Conv's (odd sizes: partial tiles;
 * pads 0 and 1; bias or not). */
static void test_reference(void **state) {
  (void)state;
  static const int64_t cases[][6] = {/* N C K H W pad */
                                     {1, 3, 4, 7, 6, 1},
                                     {2, 5, 3, 5, 8, 0},
                                     {1, 4, 2, 4, 4, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const int64_t *k = cases[i];
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){k[0], k[1], k[3], k[4]}, 4);
    tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){k[2], k[1], 3, 3}, 4, 30 + i, 0.5);
    tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){k[2]}, 1, 40 + i, 0.5);
    tvm_gattr pa = tvm_gattr_ints("pads", (int64_t[]){k[5], k[5], k[5], k[5]}, 4);
    int bias = i != 1;
    tvm_gvalue *in[3] = {x, w, b};
    tvm_gvalue *y = tvm_graph_apply(g, "Conv", "direct", in, bias ? 3 : 2, &pa, 1, 1, NULL);
    tvm_gvalue *u = tvm_graph_apply(g, "Conv2D_winograd_weight", "u", &w, 1, NULL, 0, 1, NULL);
    tvm_gvalue *in2[3] = {x, u, b};
    tvm_gvalue *z = tvm_graph_apply(g, "Conv2D_winograd", "wino", in2, bias ? 3 : 2, &pa, 1, 1, NULL);
    CHECK_OK(tvm_graph_status(g));
    assert_int_equal(u->ndim, 4);
    assert_int_equal(u->shape[0], 4);
    assert_int_equal(u->shape[2], k[2]);
    assert_int_equal(u->shape[3], k[1]);
    assert_memory_equal(y->shape, z->shape, sizeof(int64_t) * 4);
    CHECK_OK(tvm_graph_mark_output(g, y));
    CHECK_OK(tvm_graph_mark_output(g, z));
    tensors tin, out;
    tensors_alloc(&tin, &g->inputs, 50 + i);
    eval_graph(g, &tin, &out);
    const float *a = out.t[0].data, *c = out.t[1].data;
    int64_t n = tvm_gvalue_numel(y);
    for (int64_t e = 0; e < n; e++)
      assert_float_equal(a[e], c[e], 1e-4 * (1 + fabs(a[e])));
    tensors_free(&tin);
    tensors_free(&out);
    tvm_graph_free(g);
  }
}

/* Conv2D_winograd refuses stride 2, asymmetric padding and group 2. */
static void test_refused(void **state) {
  (void)state;
  tvm_gattr bad[3][1] = {
      {tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2)},
      {tvm_gattr_ints("pads", (int64_t[]){1, 0, 0, 1}, 4)},
      {tvm_gattr_int("group", 2)}};
  for (int i = 0; i < 3; i++) {
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 4, 6, 6}, 4);
    tvm_gvalue *u = tvm_graph_random(g, "u", (int64_t[]){4, 4, 4, 4}, 4, 3, 0.5);
    tvm_gvalue *in[2] = {x, u};
    assert_null(tvm_graph_apply(g, "Conv2D_winograd", "wino", in, 2, bad[i], 1, 1, NULL));
    assert_non_null(strstr(tvm_diag_message(), "wino"));
    tvm_graph_free(g);
  }
}

/* A query asking for Winograd on every Conv. */
static tvm_status ask_winograd(void *ud, const tvm_gnode *n,
                               tvm_layout_choice *c) {
  (void)ud, (void)n;
  strcpy(c->data, "NCHW");
  strcpy(c->weight, TVM_LAYOUT_WINOGRAD_F2X3);
  strcpy(c->out, "NCHW");
  return TVM_OK;
}

/* alter_layout: a 1x1 Conv asked for Winograd fails naming the node; a
 * 3x3 one becomes Conv2D_winograd whose weight folds to U. */
static void test_alter_layout(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 6, 6}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){8, 8, 1, 1}, 4, 3, 0.5);
  tvm_gvalue *in[2] = {x, w};
  tvm_gvalue *y = tvm_graph_apply(g, "Conv", "pointwise", in, 2, NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  assert_int_not_equal(tvm_graph_pass_alter_layout(g, ask_winograd, NULL), TVM_OK);
  assert_non_null(strstr(tvm_diag_message(), "pointwise"));
  tvm_graph_free(g);

  CHECK_OK(tvm_graph_create(&g));
  x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 6, 6}, 4);
  y = conv(g, x, 8, 8, 3, 1, 1, 1, 5);
  CHECK_OK(tvm_graph_mark_output(g, y));
  const char *yname = y->name;
  CHECK_OK(tvm_graph_pass_alter_layout(g, ask_winograd, NULL));
  CHECK_OK(tvm_graph_pass_fold_constants(g));
  int nw = 0, nc = 0;
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    nw += !strcmp(n->op, "Conv2D_winograd");
    nc += !strcmp(n->op, "Conv") || !strcmp(n->op, "Conv2D_winograd_weight");
    if (!strcmp(n->op, "Conv2D_winograd"))
      assert_int_equal(n->inputs[1]->kind, TVM_GV_CONST);
  }
  assert_int_equal(nw, 1);
  assert_int_equal(nc, 0);
  assert_string_equal(((tvm_gvalue *)g->outputs.data[0])->name, yname);
  tvm_graph_free(g);
}

/* 3x3 stride-1 convolutions with 32 channels compile to Conv2D_winograd
 * (bias and Relu fused into its last kernel; the residual Add reads the
 * stem's blocked output, so it follows NCHW4c and transforms the Winograd
 * output instead); the stem (3 channels), a stride-2 3x3, a 1x1 and a
 * 3x3 with 16 outputs do not; results equal the original graph's
 * reference. */
static void test_graph(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 3, 18, 17}, 4);
  tvm_gvalue *h = TVM_OP(g, "Relu", TVM_IN(conv(g, x, 3, 32, 3, 1, 1, 1, 10)), TVM_NOATTRS);
  tvm_gvalue *y = TVM_OP(g, "Relu", TVM_IN(conv(g, h, 32, 32, 3, 1, 1, 1, 20)), TVM_NOATTRS);
  y = conv(g, y, 32, 32, 3, 1, 1, 0, 30);
  y = TVM_OP(g, "Add", TVM_IN(y, h), TVM_NOATTRS);
  h = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
  tvm_gvalue *d = conv(g, h, 32, 32, 3, 2, 1, 1, 40);    /* stride 2 */
  tvm_gvalue *p = conv(g, d, 32, 32, 1, 1, 0, 1, 50);    /* 1x1 */
  tvm_gvalue *q = conv(g, p, 32, 16, 3, 1, 0, 1, 60);    /* 16 outputs */
  CHECK_OK(tvm_graph_mark_output(g, h));
  CHECK_OK(tvm_graph_mark_output(g, q));
  tvm_plan *pl = compile_check(g, 7);
  assert_int_equal(steps_with(pl, "Conv2D_winograd"), 2);
  assert_int_equal(steps_with(pl, "Conv2D_winograd+Relu"), 1);
  assert_int_equal(steps_with(pl, "Conv_NCHWc"), 4);
  tvm_plan_free(pl);
  tvm_graph_free(g);
}

/* The two operators written by hand with the weights a graph input (not
 * constant, so U is computed on the device by the weight operator's own
 * group, the generic thread schedule) and an odd map (partial tiles),
 * compiled for opencl against the operators' references (which
 * test_reference holds to Conv's). */
static void test_device_weights(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 8, 7, 9}, 4);
  tvm_gvalue *w = tvm_graph_input(g, "w", F32, (int64_t[]){12, 8, 3, 3}, 4);
  tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){12}, 1, 9, 0.5);
  tvm_gattr pa = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4);
  tvm_gvalue *u = tvm_graph_apply(g, "Conv2D_winograd_weight", "u", &w, 1, NULL, 0, 1, NULL);
  tvm_gvalue *in[3] = {x, u, b};
  tvm_gvalue *y = tvm_graph_apply(g, "Conv2D_winograd", "wino", in, 3, &pa, 1, 1, NULL);
  y = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, y));
  tvm_plan *pl = compile_check(g, 11);
  assert_int_equal(steps_with(pl, "Conv2D_winograd_weight"), 1);
  assert_int_equal(steps_with(pl, "Conv2D_winograd+Relu"), 1);
  tvm_plan_free(pl);
  tvm_graph_free(g);
}

int main(void) {
  gpu_pocl_cache_enter();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference),
      cmocka_unit_test(test_refused),
      cmocka_unit_test(test_alter_layout),
      cmocka_unit_test(test_graph),
      cmocka_unit_test(test_device_weights),
  };
  int rc = cmocka_run_group_tests(tests, setup, teardown);
  gpu_pocl_cache_leave();
  return rc;
}
