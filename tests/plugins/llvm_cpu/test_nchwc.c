/*
 * tests/plugins/llvm_cpu/test_nchwc.c - channel-blocked convolution on
 * llvm-cpu: the LayoutTransform and Conv_NCHWc operators against
 * hand-written indexing, the alter_layout pass (driven by a fixed query,
 * then by the plugin's ABI 3 slot through tvm_compile), and whole graphs
 * compiled with NCHW<b>c convolutions and the conv2d_NCHWc schedule
 * compared with tvm_graph_eval_reference on random inputs: strides, pads,
 * dilations, odd channel counts (blocks 3, 4, 8, 16), depthwise, group
 * convolutions (blocked in whole-block groups or groups merged into a
 * block; kept NCHW where neither applies), residual blocks with per-channel constants,
 * and graph outputs that keep their names and the model's layout; the
 * channel blocks as layout knobs (presets and tuning-log records), padded
 * channel blocks, and the tuner's features-only lowering.  The conv
 * template's register blocks (rows and flat pixels) are
 * test_conv_blocks.c, the matrix-product templates
 * test_matmul_templates.c.
 */
#include "layout_test.h"

/* LayoutTransform's reference: NCHW -> NCHW4c -> NCHW8c -> NCHW is the
 * identity, and element (n, c, h, w) of NCHW4c data sits at
 * [n][c/4][h][w][c%4]; OIHW -> OIHW2i4o puts W[o][i][y][x] at
 * [o/4][i/2][y][x][i%2][o%4]. */
static void test_layout_transform_reference(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 8, 3, 5}, 4);
  tvm_gattr a1[2] = {tvm_gattr_str("src_layout", "NCHW"), tvm_gattr_str("dst_layout", "NCHW4c")};
  tvm_gattr a2[2] = {tvm_gattr_str("src_layout", "NCHW4c"), tvm_gattr_str("dst_layout", "NCHW8c")};
  tvm_gattr a3[2] = {tvm_gattr_str("src_layout", "NCHW8c"), tvm_gattr_str("dst_layout", "NCHW")};
  tvm_gvalue *b4 = tvm_graph_apply(g, "LayoutTransform", "b4", &x, 1, a1, 2, 1, NULL);
  tvm_gvalue *b8 = tvm_graph_apply(g, "LayoutTransform", "b8", &b4, 1, a2, 2, 1, NULL);
  tvm_gvalue *back = tvm_graph_apply(g, "LayoutTransform", "back", &b8, 1, a3, 2, 1, NULL);
  CHECK_OK(tvm_graph_status(g));
  assert_int_equal(b4->ndim, 5);
  assert_int_equal(b4->shape[1], 2);
  assert_int_equal(b4->shape[4], 4);
  assert_string_equal(b4->layout, "NCHW4c");
  CHECK_OK(tvm_graph_mark_output(g, b4));
  CHECK_OK(tvm_graph_mark_output(g, back));
  tensors in, out;
  tensors_alloc(&in, &g->inputs, 7);
  eval_graph(g, &in, &out);
  const float *xd = in.t[0].data, *bd = out.t[0].data;
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 8; c++)
      for (int h = 0; h < 3; h++)
        for (int w = 0; w < 5; w++)
          assert_true(bd[(((n * 2 + c / 4) * 3 + h) * 5 + w) * 4 + c % 4] ==
                      xd[((n * 8 + c) * 3 + h) * 5 + w]);
  assert_memory_equal(out.t[1].data, in.t[0].data, sizeof(float) * 2 * 8 * 15);
  tensors_free(&in);
  tensors_free(&out);
  /* compiled: the same through the generic schedule */
  tvm_plan *p = compile_check(g, 8);
  tvm_plan_free(p);
  tvm_graph_free(g);

  CHECK_OK(tvm_graph_create(&g));
  float wv[8 * 4 * 2 * 3];
  for (int i = 0; i < 8 * 4 * 6; i++) wv[i] = (float)i;
  tvm_gvalue *w = const_f32(g, "w", (int64_t[]){8, 4, 2, 3}, 4, wv);
  tvm_gattr a4[2] = {tvm_gattr_str("src_layout", "OIHW"), tvm_gattr_str("dst_layout", "OIHW2i4o")};
  tvm_gvalue *wp = tvm_graph_apply(g, "LayoutTransform", "wp", &w, 1, a4, 2, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, wp));
  CHECK_OK(tvm_graph_status(g));
  int64_t want_shape[6] = {2, 2, 2, 3, 2, 4};
  assert_int_equal(wp->ndim, 6);
  assert_memory_equal(wp->shape, want_shape, sizeof want_shape);
  CHECK_OK(tvm_graph_pass_fold_constants(g));
  assert_int_equal(wp->kind, TVM_GV_CONST);
  const float *pd = wp->data;
  for (int o = 0; o < 8; o++)
    for (int i = 0; i < 4; i++)
      for (int y = 0; y < 2; y++)
        for (int xx = 0; xx < 3; xx++)
          assert_true(pd[((((o / 4) * 2 + i / 2) * 2 + y) * 3 + xx) * 8 + (i % 2) * 4 + o % 4] ==
                      wv[((o * 4 + i) * 2 + y) * 3 + xx]);
  tvm_graph_free(g);
}

/* Padded channel blocks: 20 channels NCHW -> NCHW8c (pad: 3 blocks, the
 * last 4 places zero) -> NCHW4c (channels = 20: 5 blocks) -> NCHW16c (2
 * blocks, 12 zero places) -> NCHW (channels = 20) is the identity, through
 * the reference and compiled; channels that do not fit are refused. */
static void test_layout_transform_padded(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 20, 2, 3}, 4);
  tvm_gattr a1[3] = {tvm_gattr_str("src_layout", "NCHW"), tvm_gattr_str("dst_layout", "NCHW8c"),
                     tvm_gattr_int("pad", 1)};
  tvm_gattr a2[3] = {tvm_gattr_str("src_layout", "NCHW8c"), tvm_gattr_str("dst_layout", "NCHW4c"),
                     tvm_gattr_int("channels", 20)};
  tvm_gattr a3[3] = {tvm_gattr_str("src_layout", "NCHW4c"), tvm_gattr_str("dst_layout", "NCHW16c"),
                     tvm_gattr_int("channels", 20)};
  tvm_gattr a4[3] = {tvm_gattr_str("src_layout", "NCHW16c"), tvm_gattr_str("dst_layout", "NCHW"),
                     tvm_gattr_int("channels", 20)};
  tvm_gvalue *b8 = tvm_graph_apply(g, "LayoutTransform", "b8", &x, 1, a1, 3, 1, NULL);
  tvm_gvalue *b4 = tvm_graph_apply(g, "LayoutTransform", "b4", &b8, 1, a2, 3, 1, NULL);
  tvm_gvalue *b16 = tvm_graph_apply(g, "LayoutTransform", "b16", &b4, 1, a3, 3, 1, NULL);
  tvm_gvalue *back = tvm_graph_apply(g, "LayoutTransform", "back", &b16, 1, a4, 3, 1, NULL);
  CHECK_OK(tvm_graph_status(g));
  assert_int_equal(b8->shape[1], 3);
  assert_int_equal(b4->shape[1], 5);
  assert_int_equal(b16->shape[1], 2);
  assert_int_equal(back->shape[1], 20);
  CHECK_OK(tvm_graph_mark_output(g, b16));
  CHECK_OK(tvm_graph_mark_output(g, back));
  tensors in, out;
  tensors_alloc(&in, &g->inputs, 9);
  eval_graph(g, &in, &out);
  const float *xd = in.t[0].data, *pd = out.t[0].data;
  for (int c = 0; c < 32; c++)
    for (int hw = 0; hw < 6; hw++)
      assert_true(pd[((c / 16) * 6 + hw) * 16 + c % 16] == (c < 20 ? xd[c * 6 + hw] : 0.0f));
  assert_memory_equal(out.t[1].data, xd, sizeof(float) * 20 * 6);
  tensors_free(&in);
  tensors_free(&out);
  tvm_plan *p = compile_check(g, 10); /* compiled: the same */
  tvm_plan_free(p);
  tvm_graph_free(g);
  /* channels beyond the places, or short of the last block: refused */
  CHECK_OK(tvm_graph_create(&g));
  x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 3, 2, 2, 8}, 5);
  tvm_gattr bad[3] = {tvm_gattr_str("src_layout", "NCHW8c"), tvm_gattr_str("dst_layout", "NCHW"),
                      tvm_gattr_int("channels", 25)};
  assert_null(tvm_graph_apply(g, "LayoutTransform", NULL, &x, 1, bad, 3, 1, NULL));
  assert_non_null(strstr(tvm_diag_message(), "does not fit axis C"));
  bad[2] = tvm_gattr_int("channels", 16);
  assert_null(tvm_graph_apply(g, "LayoutTransform", NULL, &x, 1, bad, 3, 1, NULL));
  tvm_graph_free(g);
}

/* A malformed or mismatched layout is refused with a message. */
static void test_layout_transform_errors(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 6, 2, 2}, 4);
  tvm_gattr a[2] = {tvm_gattr_str("src_layout", "NCHW"), tvm_gattr_str("dst_layout", "NCHW4c")};
  assert_null(tvm_graph_apply(g, "LayoutTransform", NULL, &x, 1, a, 2, 1, NULL));
  assert_non_null(strstr(tvm_diag_message(), "not a multiple"));
  tvm_graph_free(g);
  CHECK_OK(tvm_graph_create(&g));
  x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 2, 2}, 4);
  tvm_gattr b[2] = {tvm_gattr_str("src_layout", "NCHW"), tvm_gattr_str("dst_layout", "NCH4")};
  assert_null(tvm_graph_apply(g, "LayoutTransform", NULL, &x, 1, b, 2, 1, NULL));
  assert_non_null(strstr(tvm_diag_message(), "malformed"));
  tvm_graph_free(g);
  /* flat pixels where they do not apply: a depthwise convolution */
  CHECK_OK(tvm_graph_create(&g));
  x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 2, 6, 6, 8}, 5);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){2, 1, 3, 3, 1, 8}, 6, 1, 0.1);
  tvm_gattr c[3] = {tvm_gattr_int("flat_pixels", 1), tvm_gattr_int("group", 16),
                    tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4)};
  assert_null(tvm_graph_apply(g, "Conv_NCHWc", NULL, TVM_IN(x, w), c, 3, 1, NULL));
  assert_non_null(strstr(tvm_diag_message(), "flat_pixels = 1 needs group 1"));
  tvm_graph_free(g);
}

typedef struct conv_case {
  int64_t N, C, M, H, W, K, stride, pad, dil, group;
  int bias;
  int blocked; /* expected to become Conv_NCHWc */
} conv_case;

/* Conv (+bias) + Relu compiled through alter_layout vs the reference. */
static void run_conv_case(const conv_case *k, uint64_t seed) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){k->N, k->C, k->H, k->W}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){k->M, k->C / k->group, k->K, k->K}, 4, seed, 0.5);
  tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){k->M}, 1, seed + 1, 0.5);
  tvm_gattr at[4] = {
      tvm_gattr_ints("pads", (int64_t[]){k->pad, k->pad, k->pad, k->pad}, 4),
      tvm_gattr_ints("strides", (int64_t[]){k->stride, k->stride}, 2),
      tvm_gattr_ints("dilations", (int64_t[]){k->dil, k->dil}, 2),
      tvm_gattr_int("group", k->group)};
  tvm_gvalue *in[3] = {x, w, b};
  tvm_gvalue *y = tvm_graph_apply(g, "Conv", "conv", in, k->bias ? 3 : 2, at, 4, 1, NULL);
  y = tvm_graph_apply(g, "Relu", "out", &y, 1, NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  tvm_plan *p = compile_check(g, seed);
  assert_int_equal(steps_with(p, "Conv_NCHWc"), k->blocked);
  /* the output keeps its name and the model's layout */
  const tvm_plan_value *ov = &p->values[p->outputs[0]];
  assert_string_equal(ov->name, "out");
  assert_int_equal(ov->ndim, 4);
  assert_null(ov->layout);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

static void test_conv_cases(void **state) {
  (void)state;
  static const conv_case cases[] = {
      /* N C   M   H   W  K  s  p  d  g  bias blocked */
      {1, 16, 32, 9, 9, 3, 1, 1, 1, 1, 1, 1},
      {1, 3, 16, 15, 15, 7, 2, 3, 1, 1, 1, 1},   /* RGB stem: block 3 */
      {1, 24, 48, 8, 6, 1, 1, 0, 1, 1, 0, 1},    /* 24 / 16 (AVX2: 8 / 8), no bias */
      {1, 20, 16, 7, 7, 3, 2, 1, 1, 1, 1, 1},    /* block 4 */
      {1, 16, 16, 9, 9, 3, 1, 2, 2, 1, 1, 1},    /* dilation 2 */
      {1, 32, 32, 10, 10, 3, 2, 1, 1, 32, 1, 1}, /* depthwise, stride 2 */
      {1, 24, 24, 7, 7, 3, 1, 1, 1, 24, 0, 1},   /* depthwise, block 24 (8 on AVX2) */
      {1, 16, 32, 6, 6, 3, 1, 1, 1, 2, 1, 0},    /* group 2, M != C: NCHW */
      {1, 64, 64, 9, 9, 3, 1, 1, 1, 4, 1, 1},    /* groups of 16: whole blocks */
      {1, 64, 64, 8, 8, 3, 2, 1, 1, 8, 1, 1},    /* groups of 8: merged on 16 lanes */
      {1, 32, 32, 7, 7, 3, 1, 1, 1, 8, 0, 1},    /* groups of 4: merged */
      {2, 96, 96, 6, 6, 1, 1, 0, 1, 3, 1, 1},    /* 1x1, groups of 32, batch 2 */
      {1, 48, 48, 5, 5, 3, 1, 1, 1, 16, 1, 0},   /* groups of 3: stay NCHW */
      {1, 24, 58, 7, 7, 1, 1, 0, 1, 1, 1, 1},    /* 58 = 2 x 29 outputs: padded */
      {1, 58, 58, 6, 6, 3, 2, 1, 1, 1, 1, 1},    /* and inputs: padded */
      {1, 58, 58, 8, 8, 3, 2, 1, 1, 58, 1, 1},   /* depthwise 58: padded */
      {1, 116, 116, 7, 7, 3, 1, 1, 1, 116, 0, 1}, /* depthwise 116 = 4 x 29: padded */
      {1, 16, 3, 6, 6, 3, 1, 1, 1, 1, 1, 0},     /* 3 outputs: no block */
      {1, 16, 16, 13, 11, 3, 1, 0, 1, 1, 1, 1},  /* odd widths, no pad */
      {2, 16, 32, 8, 17, 3, 1, 1, 1, 1, 1, 1},   /* batch 2, prime width */
      {2, 48, 48, 9, 9, 5, 2, 2, 1, 48, 1, 1},   /* batch 2, depthwise 5x5 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    run_conv_case(&cases[i], 100 + 10 * i);
}

static tvm_gvalue *conv3(tvm_graph *g, tvm_gvalue *x, int64_t C, uint64_t seed,
                         int bias) {
  tvm_gvalue *w = tvm_graph_random(g, NULL, (int64_t[]){C, C, 3, 3}, 4, seed, 0.2);
  tvm_gvalue *b = tvm_graph_random(g, NULL, (int64_t[]){C}, 1, seed + 1, 0.2);
  tvm_gattr p = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4);
  tvm_gvalue *in[3] = {x, w, b};
  return tvm_graph_apply(g, "Conv", NULL, in, bias ? 3 : 2, &p, 1, 1, NULL);
}

/* Two residual blocks with a per-channel scale ([C,1,1] constant Mul) and
 * shift ([1,C,1,1] Add): everything between the first and the last conv
 * stays blocked, so the plan transforms activations only at the input and
 * the output. */
static void test_residual_blocked(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  const int64_t C = 32;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, C, 12, 12}, 4);
  tvm_gvalue *sc = tvm_graph_random(g, "scale", (int64_t[]){C, 1, 1}, 3, 5, 1.0);
  tvm_gvalue *sh = tvm_graph_random(g, "shift", (int64_t[]){1, C, 1, 1}, 4, 6, 1.0);
  tvm_gvalue *h = TVM_OP(g, "Relu", TVM_IN(conv3(g, x, C, 10, 1)), TVM_NOATTRS);
  for (int blk = 0; blk < 2; blk++) {
    tvm_gvalue *y = TVM_OP(g, "Relu", TVM_IN(conv3(g, h, C, 20 + 10 * (uint64_t)blk, 1)), TVM_NOATTRS);
    y = conv3(g, y, C, 40 + 10 * (uint64_t)blk, 0);
    y = TVM_OP(g, "Mul", TVM_IN(y, sc), TVM_NOATTRS);
    y = TVM_OP(g, "Add", TVM_IN(sh, y), TVM_NOATTRS);
    y = TVM_OP(g, "Add", TVM_IN(y, h), TVM_NOATTRS);
    h = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
  }
  CHECK_OK(tvm_graph_mark_output(g, h));
  tvm_plan *p = compile_check(g, 3);
  assert_int_equal(steps_with(p, "Conv_NCHWc"), 5);
  assert_int_equal(steps_with(p, "LayoutTransform"), 2);
  /* the epilogue (scale, shift, skip add, relu) fused into the conv */
  assert_int_equal(steps_with(p, "Conv_NCHWc+Mul+Add+Add+Relu"), 2);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* ShuffleNetV2's branch: 1x1 conv to 58 channels, depthwise 3x3, 1x1
 * conv; 58 has no block of its own, so all three run in padded blocks of
 * the lanes, and the plan transforms activations only at the input and
 * the output (the depthwise convolution had stayed NCHW, with transforms
 * on both sides). */
static void test_padded_depthwise_chain(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 24, 10, 10}, 4);
  tvm_gvalue *w1 = tvm_graph_random(g, "w1", (int64_t[]){58, 24, 1, 1}, 4, 31, 0.5);
  tvm_gvalue *wd = tvm_graph_random(g, "wd", (int64_t[]){58, 1, 3, 3}, 4, 32, 0.5);
  tvm_gvalue *bd = tvm_graph_random(g, "bd", (int64_t[]){58}, 1, 33, 0.5);
  tvm_gvalue *w2 = tvm_graph_random(g, "w2", (int64_t[]){58, 58, 1, 1}, 4, 34, 0.5);
  tvm_gattr dw[2] = {tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4),
                     tvm_gattr_int("group", 58)};
  tvm_gvalue *h = TVM_OP(g, "Relu", TVM_IN(TVM_OP(g, "Conv", TVM_IN(x, w1), TVM_NOATTRS)),
                         TVM_NOATTRS);
  tvm_gvalue *in[3] = {h, wd, bd};
  h = tvm_graph_apply(g, "Conv", "dw", in, 3, dw, 2, 1, NULL);
  h = TVM_OP(g, "Relu", TVM_IN(TVM_OP(g, "Conv", TVM_IN(h, w2), TVM_NOATTRS)), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, h));
  tvm_plan *p = compile_check(g, 35);
  assert_int_equal(steps_with(p, "Conv_NCHWc"), 3);
  assert_int_equal(steps_with(p, "LayoutTransform"), 2);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Pools between blocked convolutions run blocked (Pool_NCHWc): MaxPool
 * with pads, with ceil_mode, and the global pools; AveragePool stays
 * NCHW. */
static void test_pools_blocked(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 16, 15, 15}, 4);
  tvm_gvalue *a = TVM_OP(g, "Relu", TVM_IN(conv3(g, x, 16, 1, 1)), TVM_NOATTRS);
  tvm_gattr mp[3] = {tvm_gattr_ints("kernel_shape", (int64_t[]){3, 3}, 2),
                     tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2),
                     tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4)};
  tvm_gvalue *m = tvm_graph_apply(g, "MaxPool", NULL, &a, 1, mp, 3, 1, NULL);
  tvm_gvalue *b = conv3(g, m, 16, 3, 1);
  tvm_gattr mc[3] = {tvm_gattr_ints("kernel_shape", (int64_t[]){2, 2}, 2),
                     tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2),
                     tvm_gattr_int("ceil_mode", 1)};
  tvm_gvalue *m2 = tvm_graph_apply(g, "MaxPool", "m2", &b, 1, mc, 3, 1, NULL);
  tvm_gvalue *ga = tvm_graph_apply(g, "GlobalAveragePool", "ga", &m2, 1, NULL, 0, 1, NULL);
  tvm_gvalue *gm = tvm_graph_apply(g, "GlobalMaxPool", "gm", &b, 1, NULL, 0, 1, NULL);
  tvm_gattr ap[1] = {tvm_gattr_ints("kernel_shape", (int64_t[]){2, 2}, 2)};
  tvm_gvalue *av = tvm_graph_apply(g, "AveragePool", "av", &b, 1, ap, 1, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, ga));
  CHECK_OK(tvm_graph_mark_output(g, gm));
  CHECK_OK(tvm_graph_mark_output(g, av));
  tvm_plan *p = compile_check(g, 21);
  assert_int_equal(steps_with(p, "Pool_NCHWc"), 4);
  assert_int_equal(steps_with(p, "AveragePool"), 1);
  assert_int_equal(p->values[p->outputs[0]].ndim, 4);
  assert_string_equal(p->values[p->outputs[0]].name, "ga");
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* A fire module (squeeze, two expands, channel Concat, MaxPool): the
 * Concat joins the blocked expands along the chunk axis, so activations
 * are transformed only at the graph's input and output; a Concat whose
 * operand channels the block does not divide stays NCHW. */
static void test_concat_blocked(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 16, 9, 9}, 4);
  tvm_gvalue *w1 = tvm_graph_random(g, NULL, (int64_t[]){16, 16, 1, 1}, 4, 1, 0.3);
  tvm_gvalue *w3 = tvm_graph_random(g, NULL, (int64_t[]){32, 16, 3, 3}, 4, 2, 0.3);
  tvm_gvalue *sq = TVM_OP(g, "Relu", TVM_IN(conv3(g, x, 16, 3, 1)), TVM_NOATTRS);
  tvm_gvalue *e1 = TVM_OP(g, "Relu", TVM_IN(TVM_OP(g, "Conv", TVM_IN(sq, w1), TVM_NOATTRS)), TVM_NOATTRS);
  tvm_gattr p1 = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4);
  tvm_gvalue *e3 = tvm_graph_apply(g, "Conv", NULL, TVM_IN(sq, w3), &p1, 1, 1, NULL);
  e3 = TVM_OP(g, "Relu", TVM_IN(e3), TVM_NOATTRS);
  tvm_gattr ax = tvm_gattr_int("axis", 1);
  tvm_gvalue *cat = tvm_graph_apply(g, "Concat", NULL, TVM_IN(e1, e3), &ax, 1, 1, NULL);
  tvm_gattr mp[2] = {tvm_gattr_ints("kernel_shape", (int64_t[]){3, 3}, 2),
                     tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2)};
  tvm_gvalue *m = tvm_graph_apply(g, "MaxPool", "pooled", &cat, 1, mp, 2, 1, NULL);
  /* channels 48 + 3: 3 is no multiple of 16, this Concat stays NCHW */
  tvm_gvalue *w0 = tvm_graph_random(g, NULL, (int64_t[]){3, 48, 1, 1}, 4, 4, 0.3);
  tvm_gvalue *three = TVM_OP(g, "Conv", TVM_IN(m, w0), TVM_NOATTRS);
  tvm_gvalue *cat2 = tvm_graph_apply(g, "Concat", "cat2", TVM_IN(m, three), &ax, 1, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, m));
  CHECK_OK(tvm_graph_mark_output(g, cat2));
  tvm_plan *p = compile_check(g, 31);
  assert_int_equal(steps_with(p, "Conv_NCHWc"), 3);
  assert_int_equal(steps_with(p, "Pool_NCHWc"), 1);
  /* x in, pooled out (read by the 3-channel conv and cat2 as NCHW) */
  assert_int_equal(steps_with(p, "LayoutTransform"), 2);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* A fixed query for the pass alone: every Conv to NCHW4c. */
static tvm_status query4(void *ud, const tvm_gnode *n, tvm_layout_choice *c) {
  int *calls = ud;
  (*calls)++;
  snprintf(c->data, sizeof c->data, "NCHW4c");
  snprintf(c->weight, sizeof c->weight, "OIHW4i4o");
  snprintf(c->out, sizeof c->out, "NCHW4c");
  (void)n;
  return TVM_OK;
}


/* The pass alone: the rewritten graph computes the same outputs (both
 * through the reference evaluator); a value read by a plain consumer
 * (Softmax) and a blocked one gets one transform back; the conv output
 * that is also a graph output keeps its name. */
static void test_pass_alone(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  int calls = 0;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 6, 6}, 4);
  tvm_gvalue *a = TVM_OP(g, "Relu", TVM_IN(conv3(g, x, 8, 1, 1)), TVM_NOATTRS);
  tvm_gvalue *b = tvm_graph_apply(g, "Sigmoid", "b", &a, 1, NULL, 0, 1, NULL);
  tvm_gvalue *c = conv3(g, b, 8, 3, 0);
  tvm_gvalue *s = tvm_graph_apply(g, "Softmax", "s", &b, 1, NULL, 0, 1, NULL);
  tvm_gvalue *d = tvm_graph_apply(g, "Add", "d", TVM_IN(c, s), NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, d));
  CHECK_OK(tvm_graph_mark_output(g, b));
  tensors in, want, got;
  tensors_alloc(&in, &g->inputs, 11);
  eval_graph(g, &in, &want);
  CHECK_OK(tvm_graph_pass_alter_layout(g, query4, &calls));
  assert_int_equal(calls, 2);
  CHECK_OK(tvm_graph_pass_fold_constants(g));
  assert_int_equal(count_op(g, "Conv"), 0);
  assert_int_equal(count_op(g, "Conv_NCHWc"), 2);
  /* to NCHW4c: x, and s (the Add follows its blocked operand c); back:
   * b (returned, read by Softmax) and d (returned) */
  assert_int_equal(count_op(g, "LayoutTransform"), 4);
  assert_string_equal(((tvm_gvalue *)g->outputs.data[0])->name, "d");
  assert_string_equal(((tvm_gvalue *)g->outputs.data[1])->name, "b");
  eval_graph(g, &in, &got);
  expect_close(&got, &want, 1e-5);
  tensors_free(&in);
  tensors_free(&want);
  tensors_free(&got);
  tvm_graph_free(g);
}

/* tvm_compile_options.alter_layout = 0 keeps the model's layout. */
static void test_option_off(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  tvm_plan *p = NULL;
  tvm_compile_options o;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 16, 6, 6}, 4);
  CHECK_OK(tvm_graph_mark_output(g, conv3(g, x, 16, 1, 1)));
  tvm_compile_options_init(&o);
  o.alter_layout = 0;
  OKR(tvm_compile(g, T, &o, &p));
  assert_int_equal(steps_with(p, "Conv_NCHWc"), 0);
  assert_int_equal(steps_with(p, "LayoutTransform"), 0);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* The channel blocks as layout knobs (tvm_gnode_layout_config), set by
 * the tuner's layout hook and by a tuning log's layout records: every
 * convolution takes the preset blocks, alter_layout transforms between
 * neighbours that now disagree, and the graph still computes what the
 * reference does.  A record within TVM_TUNE_LAYOUT_MARGIN of the default
 * layout's keeps the default. */
typedef struct layout_preset {
  int calls, after;          /* hook calls before / after the target */
  char wl[3][64];            /* layout workloads, in node order */
  int nknobs[3], nent[3][2]; /* their knobs when reported */
  int pick[3][2];            /* oc_block, ic_block index to preset */
} layout_preset;

static tvm_status preset_layout(void *ud, const char *wl, const char *label,
                                tvm_config *cfg, int after) {
  layout_preset *lp = ud;
  assert_non_null(label);
  int i = 0;
  while (i < 3 && lp->wl[i][0] && strcmp(lp->wl[i], wl) != 0) i++;
  assert_true(i < 3);
  if (!after) {
    lp->calls++;
    snprintf(lp->wl[i], sizeof lp->wl[i], "%s", wl);
    tvm_status st = tvm_config_preset(cfg, "oc_block", lp->pick[i][0]);
    if (!st && lp->pick[i][1] >= 0)
      st = tvm_config_preset(cfg, "ic_block", lp->pick[i][1]);
    return st;
  }
  lp->after++;
  lp->nknobs[i] = tvm_config_nknobs(cfg);
  for (int k = 0; k < lp->nknobs[i] && k < 2; k++)
    lp->nent[i][k] = tvm_config_knob(cfg, k)->nchoices;
  return TVM_OK;
}

/* x [1,32,8,8] -> conv 32->64 + relu -> conv 64->64 + residual + relu ->
 * depthwise 3x3 -> out. */
static tvm_graph *layout_graph(void) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 32, 8, 8}, 4);
  tvm_gvalue *w1 = tvm_graph_random(g, "w1", (int64_t[]){64, 32, 3, 3}, 4, 3, 0.2);
  tvm_gvalue *w2 = tvm_graph_random(g, "w2", (int64_t[]){64, 64, 3, 3}, 4, 4, 0.2);
  tvm_gvalue *w3 = tvm_graph_random(g, "w3", (int64_t[]){64, 1, 3, 3}, 4, 5, 0.2);
  tvm_gattr pd = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4);
  tvm_gattr dw[2] = {pd, tvm_gattr_int("group", 64)};
  tvm_gvalue *h = tvm_graph_apply(g, "Conv", NULL, TVM_IN(x, w1), &pd, 1, 1, NULL);
  h = TVM_OP(g, "Relu", TVM_IN(h), TVM_NOATTRS);
  tvm_gvalue *y = tvm_graph_apply(g, "Conv", NULL, TVM_IN(h, w2), &pd, 1, 1, NULL);
  y = TVM_OP(g, "Relu", TVM_IN(TVM_OP(g, "Add", TVM_IN(y, h), TVM_NOATTRS)), TVM_NOATTRS);
  y = tvm_graph_apply(g, "Conv", "out", TVM_IN(y, w3), dw, 2, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  return g;
}

/* The data and output layouts of the k-th Conv_NCHWc of g. */
static void conv_layouts(const tvm_graph *g, int k, const char **data,
                         const char **out) {
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    if (strcmp(n->op, "Conv_NCHWc") == 0 && k-- == 0) {
      *data = tvm_gnode_str(n, "data_layout", "");
      *out = tvm_gnode_str(n, "out_layout", "");
      assert_non_null(n->layout_workload);
      return;
    }
  }
  fail_msg("no Conv_NCHWc number %d", k);
}

static void test_layout_knobs(void **state) {
  (void)state;
  int lanes = test_lanes();
  /* 32 and 64 channels: blocks lanes (default), lanes/2, 2 x lanes */
  const int half = lanes / 2, twice = 2 * lanes;
  layout_preset lp = {.pick = {{1, 0}, {0, 2}, {2, -1}}};
  tvm_graph *g = layout_graph();
  tvm_tune_hooks hooks = {NULL, NULL, preset_layout};
  hooks.ud = &lp;
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.tune = &hooks;
  tvm_plan *p = compile_check_opts(g, 11, &o);
  assert_int_equal(lp.calls, 3);
  assert_int_equal(lp.after, 3);
  for (int i = 0; i < 3; i++)
    assert_true(strncmp(lp.wl[i], "layout_Conv-", 12) == 0);
  /* the space: oc_block and ic_block of 3 each (and the 3x3 stride-1
   * convolution's winograd choice, test_winograd.c, then, with direct
   * convolution its default on this 8x8 map, flat_pixels), depthwise
   * oc_block only */
  assert_int_equal(lp.nknobs[0], 4);
  assert_int_equal(lp.nent[0][0], 3);
  assert_int_equal(lp.nent[0][1], 3);
  assert_int_equal(lp.nknobs[2], 1);
  const char *d, *ob;
  char want_d[32], want_o[32];
  /* choice 0 is the default block, 1 half the lanes, 2 twice them */
  const int data_blk[3] = {lanes, twice, twice}, out_blk[3] = {half, lanes, twice};
  for (int k = 0; k < 3; k++) {
    conv_layouts(g, k, &d, &ob);
    snprintf(want_d, sizeof want_d, "NCHW%dc", data_blk[k]);
    snprintf(want_o, sizeof want_o, "NCHW%dc", out_blk[k]);
    assert_string_equal(d, want_d);
    assert_string_equal(ob, want_o);
  }
  /* conv1's NCHW<half>c output feeds conv2 as NCHW<twice>c and the
   * residual add (NCHW<lanes>c): transforms between them, beside the
   * input's and the output's */
  assert_true(steps_with(p, "LayoutTransform") >= 4);
  tvm_plan_free(p);
  tvm_graph_free(g);

  /* a tuning log: conv2's records choose ic_block = half when it beats
   * the default by more than the margin, and keep the default when not */
  for (int c = 0; c < 2; c++) {
    char path[] = "/tmp/tvm_layout_logXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    const char *tn = T->name;
    fprintf(f, "{\"version\":1,\"workload\":\"%s\",\"target\":\"%s\","
               "\"template\":\"layout\",\"config\":{\"oc_block\":[0,3],"
               "\"ic_block\":[0,3]},\"costs\":[0.002],\"gflops\":1,"
               "\"error\":\"ok\",\"time\":1,\"default\":1}\n",
            lp.wl[1], tn);
    fprintf(f, "{\"version\":1,\"workload\":\"%s\",\"target\":\"%s\","
               "\"template\":\"layout\",\"config\":{\"oc_block\":[0,3],"
               "\"ic_block\":[1,3]},\"costs\":[%s],\"gflops\":1,"
               "\"error\":\"ok\",\"time\":1}\n",
            lp.wl[1], tn, c == 0 ? "0.0015" : "0.00197");
    fclose(f);
    g = layout_graph();
    tvm_compile_options_init(&o);
    o.tuning_log = path;
    p = compile_check_opts(g, 12, &o);
    conv_layouts(g, 1, &d, &ob);
    snprintf(want_d, sizeof want_d, "NCHW%dc", c == 0 ? half : lanes);
    assert_string_equal(d, want_d);
    conv_layouts(g, 0, &d, &ob); /* no record: the default */
    snprintf(want_o, sizeof want_o, "NCHW%dc", lanes);
    assert_string_equal(ob, want_o);
    tvm_plan_free(p);
    tvm_graph_free(g);
    unlink(path);
  }
}

/* Padded channel blocks through the whole pass: a count the lanes do not
 * divide in blocks of the lanes (zero weights and biases past it), the
 * blocked value's places past its channels dropped wherever a consumer
 * reads another layout or the plain one: per-channel constants, a second
 * padded conv, a residual add, pools, a graph output of the plain
 * tensor.  Chosen by the layout knobs (padded is the last choice), and
 * by default where padding adds at most 1/8 (1000 channels on AVX-512;
 * 8 lanes divide 1000). */
static tvm_status pick_padded(void *ud, const char *wl, const char *label,
                              tvm_config *cfg, int after) {
  int *k = ud;
  (void)wl, (void)label;
  if (after) return TVM_OK;
  /* first conv: padded in and out; second: padded out, dividing in */
  tvm_status st = tvm_config_preset(cfg, "oc_block", 1);
  if (!st) st = tvm_config_preset(cfg, "ic_block", (*k)++ == 0 ? 1 : 0);
  return st;
}

static void test_padded_blocks(void **state) {
  (void)state;
  int lanes = test_lanes();
  const int64_t C = 2 * lanes + lanes / 2; /* 40 or 20 */
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, C, 7, 7}, 4);
  tvm_gvalue *sc = tvm_graph_random(g, "scale", (int64_t[]){C, 1, 1}, 3, 5, 1.0);
  tvm_gvalue *h = TVM_OP(g, "Relu", TVM_IN(conv3(g, x, C, 10, 1)), TVM_NOATTRS);
  tvm_gvalue *y = TVM_OP(g, "Mul", TVM_IN(h, sc), TVM_NOATTRS);
  y = conv3(g, y, C, 20, 1);
  y = TVM_OP(g, "Add", TVM_IN(y, h), TVM_NOATTRS);
  tvm_gattr mp[2] = {tvm_gattr_ints("kernel_shape", (int64_t[]){2, 2}, 2),
                     tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2)};
  y = tvm_graph_apply(g, "MaxPool", NULL, &y, 1, mp, 2, 1, NULL);
  y = tvm_graph_apply(g, "GlobalAveragePool", "pooled", &y, 1, NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  CHECK_OK(tvm_graph_mark_output(g, h));
  int k = 0;
  tvm_tune_hooks hooks = {NULL, &k, pick_padded};
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.tune = &hooks;
  tvm_plan *p = compile_check_opts(g, 13, &o);
  assert_int_equal(k, 2);
  const char *d, *ob;
  char want[32];
  snprintf(want, sizeof want, "NCHW%dc", lanes);
  conv_layouts(g, 0, &d, &ob);
  assert_string_equal(d, want);
  assert_string_equal(ob, want);
  conv_layouts(g, 1, &d, &ob);
  assert_string_equal(ob, want);
  tvm_plan_free(p);
  tvm_graph_free(g);

  /* by default: 1000 outputs of a 1x1 convolution */
  CHECK_OK(tvm_graph_create(&g));
  x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 32, 5, 5}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){1000, 32, 1, 1}, 4, 3, 0.2);
  tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){1000}, 1, 4, 0.2);
  y = TVM_OP(g, "Relu", TVM_IN(tvm_graph_apply(g, "Conv", NULL, TVM_IN(x, w, b), NULL, 0, 1, NULL)),
             TVM_NOATTRS);
  y = tvm_graph_apply(g, "GlobalAveragePool", "out", &y, 1, NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  tvm_compile_options_init(&o);
  p = compile_check_opts(g, 14, &o);
  conv_layouts(g, 0, &d, &ob);
  snprintf(want, sizeof want, "NCHW%dc", lanes); /* padded, or 8 | 1000 */
  assert_string_equal(ob, want);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* A count of one and a half vectors with AVX-512 (24 channels) is one
 * block: a pointwise conv into it (+ a residual Add of another one) and
 * one out of it keep the block between them, and every vector of the
 * block is cut into a full and a half vector (no 24-lane ramp), equal to
 * the reference.  Skipped on narrower targets (the rule is AVX-512's). */
static void test_block_and_a_half(void **state) {
  (void)state;
  int lanes = test_lanes();
  if (lanes < 16) skip();
  const int64_t C = lanes + lanes / 2;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 48, 7, 9}, 4);
  tvm_gvalue *w1 = tvm_graph_random(g, "w1", (int64_t[]){C, 48, 1, 1}, 4, 3,
                                    0.2);
  tvm_gvalue *w2 = tvm_graph_random(g, "w2", (int64_t[]){C, 48, 1, 1}, 4, 4,
                                    0.2);
  tvm_gvalue *w3 = tvm_graph_random(g, "w3", (int64_t[]){32, C, 1, 1}, 4, 5,
                                    0.2);
  tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){C}, 1, 6, 0.2);
  tvm_gvalue *h = tvm_graph_apply(g, "Conv", NULL, TVM_IN(x, w1, b), NULL, 0,
                                  1, NULL);
  h = TVM_OP(g, "Relu", TVM_IN(h), TVM_NOATTRS);
  tvm_gvalue *y =
      tvm_graph_apply(g, "Conv", NULL, TVM_IN(x, w2), NULL, 0, 1, NULL);
  y = TVM_OP(g, "Add", TVM_IN(y, h), TVM_NOATTRS);
  y = tvm_graph_apply(g, "Conv", "out", TVM_IN(y, w3), NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  char *ir = NULL;
  tvm_plan *p = compile_check_hooked(g, 15, NULL, &ir);
  assert_int_equal(steps_with(p, "Conv_NCHWc"), 3);
  assert_int_equal(steps_with(p, "LayoutTransform"), 2);
  const char *d, *ob;
  char want[32], ramp[32];
  snprintf(want, sizeof want, "NCHW%dc", (int)C);
  conv_layouts(g, 0, &d, &ob);
  assert_string_equal(ob, want);
  conv_layouts(g, 2, &d, &ob);
  assert_string_equal(d, want);
  snprintf(ramp, sizeof ramp, ", 1, %d)]", (int)C);
  if (strstr(ir, ramp)) fail_msg("a %d-lane vector in:\n%s", (int)C, ir);
  snprintf(ramp, sizeof ramp, ", 1, %d)]", lanes / 2);
  assert_non_null(strstr(ir, ramp));
  free(ir);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* The search scores candidates by features lowered only to
 * storage_flatten (tvm_tune_kernel_features): the same features as the
 * whole lowering of the measured candidate, for every register block of
 * a conv's space. */
static tvm_status same_features(void *ud, tvm_tune_kernel *k, tvm_config *cfg) {
  int *checked = ud;
  if (!cfg || strcmp(tvm_tune_kernel_template(k), "llvm-cpu.conv2d_NCHWc"))
    return TVM_OK;
  tvm_config *c = tvm_config_create();
  tvm_tune_lowered l;
  OKR(tvm_tune_kernel_lower(k, c, 0, &l)); /* records the space */
  tvm_tune_lowered_free(&l);
  uint64_t n = tvm_config_space_size(c);
  for (uint64_t i = 0; i < n; i += n / 7 + 1) {
    float f[TVM_TUNE_NFEATURES];
    CHECK_OK(tvm_config_set_index(c, i));
    tvm_status a = tvm_tune_kernel_lower(k, c, 0, &l);
    CHECK_OK(tvm_config_set_index(c, i));
    tvm_status b = tvm_tune_kernel_features(k, c, f);
    assert_int_equal(a, b);
    if (a) { /* a block the template rejects, both ways */
      tvm_diag_clear();
      continue;
    }
    assert_memory_equal(f, l.features, sizeof f);
    assert_true(l.mod.nfuncs >= 1);
    tvm_tune_lowered_free(&l);
    (*checked)++;
  }
  tvm_config_free(c);
  return TVM_OK;
}

static void test_features_only(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  tvm_plan *p = NULL;
  int checked = 0;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 32, 8, 8}, 4);
  CHECK_OK(tvm_graph_mark_output(g, TVM_OP(g, "Relu", TVM_IN(conv3(g, x, 32, 3, 1)), TVM_NOATTRS)));
  tvm_tune_hooks hooks = {same_features, &checked, NULL};
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.tune = &hooks;
  o.lower_only = 1;
  OKR(tvm_compile(g, T, &o, &p));
  assert_true(checked >= 3);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* The plugin's slot answers through the host accessor (ABI 3). */
static void test_plugin_slot(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  tvm_gnode *n = NULL;
  tvm_plugin_layout pl;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 64, 8, 8}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){128, 64, 3, 3}, 4, 1, 0.1);
  assert_non_null(tvm_graph_apply(g, "Conv", "c", TVM_IN(x, w), NULL, 0, 1, &n));
  CHECK_OK(tvm_target_alter_layout(T, n, &pl));
  assert_int_equal(pl.struct_size, sizeof pl);
  int lanes = test_lanes();
  char want[32];
  snprintf(want, sizeof want, "NCHW%dc", lanes);
  assert_string_equal(pl.data, want);
  assert_string_equal(pl.out, want);
  snprintf(want, sizeof want, "OIHW%di%do", lanes, lanes);
  assert_string_equal(pl.weight, want);
  /* not a Conv: empty */
  tvm_gnode *r = NULL;
  assert_non_null(tvm_graph_apply(g, "Relu", NULL, &x, 1, NULL, 0, 1, &r));
  CHECK_OK(tvm_target_alter_layout(T, r, &pl));
  assert_int_equal(pl.data[0], 0);
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layout_transform_reference),
      cmocka_unit_test(test_layout_transform_errors),
      cmocka_unit_test(test_layout_transform_padded),
      cmocka_unit_test(test_padded_blocks),
      cmocka_unit_test(test_block_and_a_half),
      cmocka_unit_test(test_pass_alone),
      cmocka_unit_test(test_plugin_slot),
      cmocka_unit_test(test_conv_cases),
      cmocka_unit_test(test_layout_knobs),
      cmocka_unit_test(test_features_only),
      cmocka_unit_test(test_residual_blocked),
      cmocka_unit_test(test_padded_depthwise_chain),
      cmocka_unit_test(test_pools_blocked),
      cmocka_unit_test(test_concat_blocked),
      cmocka_unit_test(test_option_off),
  };
  /* the direct template: Winograd's default would take some of these
   * 3x3 convolutions (test_winograd.c has those) */
  return cmocka_run_group_tests(tests, setup_direct, teardown);
}
