/*
 * tests/plugins/llvm_cpu/test_conv_blocks.c - the register blocks of
 * llvm-cpu's conv2d_NCHWc template, each compiled end to end and
 * compared with tvm_graph_eval_reference: the rows' blocks (tile_oc
 * output channel chunks x tile_oh rows x tile_ow pixels) and the flat
 * pixels' (tile_oc chunks x tile_px pixels across rows), preset through
 * the tuner's compile hook, with their accumulator blocks found in the
 * loop IR; where flat pixels apply (tvm_gnode_flat_pixels_applies) and
 * the defaults for a prime output width and an odd chunk count.  The
 * layouts, the alter_layout pass and the operators are test_nchwc.c.
 */
#include "layout_test.h"

/* x [n, C, H, W] -> Conv to M channels (k x k, weights and bias random
 * with seeds seed and seed + 1, scale s; attributes at) -> [+ x when
 * residual] -> Relu -> output "out". */
static tvm_graph *conv_relu_graph(int64_t n, int64_t C, int64_t M, int64_t H,
                                  int64_t W, int64_t k, const tvm_gattr *at,
                                  int nat, uint64_t seed, double s,
                                  int residual) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){n, C, H, W}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){M, C, k, k}, 4, seed, s);
  tvm_gvalue *bias = tvm_graph_random(g, "b", (int64_t[]){M}, 1, seed + 1, s);
  tvm_gvalue *y = tvm_graph_apply(g, "Conv", NULL, TVM_IN(x, w, bias), at, nat, 1, NULL);
  if (residual) y = TVM_OP(g, "Add", TVM_IN(y, x), TVM_NOATTRS);
  y = tvm_graph_apply(g, "Relu", "out", &y, 1, NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  return g;
}

/* Where flat pixels apply (tvm_gnode_flat_pixels_applies): a Conv of
 * group 1, any window, stride and padding; not a grouped one (group 2
 * below, each output channel reading half of the input's). */
static void test_flat_pixels_applies(void **state) {
  (void)state;
  static const struct { int k, s, pad, group, applies; } cases[] = {
      {1, 1, 0, 1, 1}, {1, 2, 0, 1, 1}, {1, 3, 0, 1, 1}, {1, 2, 1, 1, 1},
      {3, 1, 1, 1, 1}, {3, 2, 1, 1, 1}, {7, 2, 3, 1, 1}, {3, 1, 1, 2, 0},
      {1, 1, 0, 2, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    int64_t k = cases[i].k, p = cases[i].pad, s = cases[i].s;
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 14, 14}, 4);
    int64_t gr = cases[i].group;
    tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){16, 8 / gr, k, k}, 4, 1, 0.1);
    tvm_gattr at[3] = {tvm_gattr_ints("strides", (int64_t[]){s, s}, 2),
                       tvm_gattr_ints("pads", (int64_t[]){p, p, p, p}, 4),
                       tvm_gattr_int("group", gr)};
    tvm_gvalue *y = tvm_graph_apply(g, "Conv", NULL, TVM_IN(x, w), at, 3, 1, NULL);
    assert_non_null(y);
    if (tvm_gnode_flat_pixels_applies(y->producer) != cases[i].applies)
      fail_msg("case %zu: %dx%d, stride %d, pad %d, group %d: applies "
               "should be %d", i, cases[i].k, cases[i].k, cases[i].s,
               cases[i].pad, cases[i].group, cases[i].applies);
    tvm_graph_free(g);
  }
}

/* A 1x1 convolution C -> M on an HW x HW map compiled at its defaults
 * and checked against the reference; where the host has `lanes` lanes,
 * its flat block must hold `floats` accumulator floats, or, where its
 * reduction is blocked (k_block), `tile` floats of the task's tile (0:
 * never blocked). */
static void flat_default(int64_t C, int64_t M, int64_t HW, uint64_t seed,
                         double scale, uint64_t in_seed, int lanes,
                         int floats, int tile) {
  tvm_graph *g = conv_relu_graph(1, C, M, HW, HW, 1, NULL, 0, seed, scale, 0);
  char *ir = NULL;
  tvm_plan *p = compile_check_vectorized(g, in_seed, &ir);
  char acc[64];
  snprintf(acc, sizeof acc, "[float32 * %d]", tile);
  if (test_lanes() == lanes && (!tile || !strstr(ir, acc)))
    expect_accumulators(ir, 0, floats);
  free(ir);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* SqueezeNet's classifier shape: 1x1, C -> 1000 channels on a 13x13 map,
 * 125 chunks of 8 (AVX2): the flat block's chunks may be any divisor up
 * to 8, and the default (the cycle model, weights streamed from L2 at a
 * vector a cycle) is 5 chunks x 2 pixels, 80 accumulator floats, where
 * divisors up to 4 left 1 chunk of 12 pixels.  Other vector widths
 * block 1000 channels otherwise (AVX-512: 63 padded chunks of 16); there
 * the test checks the result only. */
static void test_conv_flat_odd_chunks(void **state) {
  (void)state;
  flat_default(128, 1000, 13, 21, 0.1, 62, 8, 5 * 2 * 8, 0);
}

/* MobileNetV2's last pointwise shape, 960 -> 320 on 7x7 (49 pixels).
 * With AVX-512 the cycle model ties 2 chunks x 13 pixels (the shifted
 * last block makes it 52 pixels computed for 49) with 5 x 5 (50 for
 * 49); the default is the one that recomputes least, 5 x 5, 400
 * accumulator floats (0.82-0.87x the time of 2 x 13 on an Ice Lake), in
 * a tile of 5 chunks x 49 pixels where the L1 cache takes its reduction
 * in blocks (48 KB).  Other vector widths: the result only. */
static void test_conv_flat_least_recompute(void **state) {
  (void)state;
  flat_default(960, 320, 7, 23, 0.05, 63, 16, 5 * 5 * 16, 5 * 49 * 16);
}

/* Layout hook: flat pixels off (the rows' schedule) for every node. */
static tvm_status rows_layout(void *ud, const char *wl, const char *label,
                              tvm_config *cfg, int after) {
  (void)ud, (void)wl, (void)label;
  return after ? TVM_OK : tvm_config_preset(cfg, "flat_pixels", 0);
}

/* The conv2d_NCHWc template's register block (tile_oc output channel
 * chunks x tile_oh rows x tile_ow pixels), each knob preset through the
 * tuner's compile hook (flat pixels off through the layout hook): every
 * block computes what the reference does, and the block reaches the loop
 * IR (the accumulator buffer holds tile_oc x tile_oh x tile_ow x oc_block
 * floats). */
static void test_conv_register_blocks(void **state) {
  (void)state;
  int lanes = test_lanes();
  /* 32 -> 64 channels: 4 or 8 chunks, tile_oc in {1, 2, 4}; 8x8 outputs
   * (stride 1) or 4x4 (stride 2): tile_oh/ow in {1, 2, 4, 8} or {1, 2, 4} */
  static const struct { int stride, oc, oh, ow, tc, th, tw; } cases[] = {
      {1, 2, 1, 1, 4, 2, 2}, {1, 1, 0, 3, 2, 1, 8}, {1, 0, 2, 0, 1, 4, 1},
      {2, 2, 1, 1, 4, 2, 2}, {2, 1, 2, 0, 2, 4, 1}, {2, 2, 0, 2, 4, 1, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    knob_preset b = {"llvm-cpu.conv2d_NCHWc",
                     {"tile_oc", "tile_oh", "tile_ow"},
                     {cases[i].oc, cases[i].oh, cases[i].ow}, 0};
    tvm_gattr at[2] = {
        tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4),
        tvm_gattr_ints("strides", (int64_t[]){cases[i].stride, cases[i].stride}, 2)};
    tvm_graph *g = conv_relu_graph(1, 32, 64, 8, 8, 3, at, 2, 7 + i, 0.2, 0);
    tvm_tune_hooks hooks = {preset_knobs, &b, rows_layout};
    char *ir = NULL;
    tvm_plan *p = compile_check_hooked(g, 40 + i, &hooks, &ir);
    assert_int_equal(b.hits, 1);
    expect_accumulators(ir, i, cases[i].tc * cases[i].th * cases[i].tw * lanes);
    free(ir);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* A 1x1 stride-1 convolution runs over its pixels flattened (the
 * layout slot's TVM_PLUGIN_LAYOUT_FLAT_PIXELS), and so do a strided one
 * whose output rows have no width from 2 to 6 to block and larger
 * windows of 32 channels (a reduction of at least 64 steps), padded,
 * strided or dilated: the conv stage is [N, M/ob, 1, OH*OW, ob] and the
 * register block tile_oc chunks x tile_px pixels, across rows and ragged
 * at the end (49 pixels of a 7x7 map).
 * Every block (knobs preset through the tuner's hook) and a residual
 * epilogue compute what the reference does, and the block reaches the
 * loop IR (4 or 5 pixels of a 7-pixel row: only flat pixels give those),
 * its input-channel block unrolled where the block is large. */
static void test_conv_flat_pixels(void **state) {
  (void)state;
  int lanes = test_lanes();
  /* 32 -> 32 channels: chunks 32 / lanes; tile_px choices 1..16 (index
   * = pixels - 1) */
  /* k: the window (k x k), pads top, left, bottom, right, dilation d */
  static const struct {
    int n, h, w, sh, sw, oc, px, tc, tp, residual, k, pt, pl, pb, pr, d;
  } cases[] = {
      {1, 7, 7, 1, 1, 1, 3, 2, 4, 0, 1, 0, 0, 0, 0, 1},   /* 49 = 12 x 4 + 1 */
      {1, 7, 7, 1, 1, 0, 4, 1, 5, 1, 1, 0, 0, 0, 0, 1},   /* 49 = 9 x 5 + 4, residual add */
      {2, 6, 6, 1, 1, 1, 2, 2, 3, 0, 1, 0, 0, 0, 0, 1},   /* batch 2, 36 = 12 x 3 */
      {1, 5, 5, 1, 1, 0, 13, 1, 14, 0, 1, 0, 0, 0, 0, 1}, /* 25 = 14 + 11 */
      {1, 14, 14, 2, 2, 1, 4, 2, 5, 0, 1, 0, 0, 0, 0, 1}, /* stride 2 to 7x7: 9 x 5 + 4 */
      {2, 13, 13, 2, 2, 0, 2, 1, 3, 0, 1, 0, 0, 0, 0, 1}, /* stride 2 to 7x7, batch 2 */
      {1, 9, 13, 2, 1, 1, 5, 2, 6, 0, 1, 0, 0, 0, 0, 1},  /* strides 2, 1 to 5x13 */
      {1, 19, 21, 3, 3, 0, 3, 1, 4, 0, 1, 0, 0, 0, 0, 1}, /* stride 3 to 7x7 */
      {1, 7, 7, 1, 1, 1, 5, 2, 6, 1, 3, 1, 1, 1, 1, 1},   /* 3x3 padded, 49 = 8 x 6 + 1, residual */
      {1, 14, 14, 2, 2, 1, 3, 2, 4, 0, 3, 1, 1, 1, 1, 1}, /* 3x3/2 to 7x7 (ResNet's) */
      {2, 16, 16, 2, 2, 0, 6, 1, 7, 0, 7, 3, 3, 3, 3, 1}, /* 7x7/2 stem-like to 8x8, batch 2 */
      {1, 9, 11, 1, 2, 1, 2, 2, 3, 0, 3, 2, 1, 0, 2, 1},  /* uneven pads, strides 1, 2 */
      {1, 9, 9, 1, 1, 0, 4, 1, 5, 0, 3, 2, 2, 2, 2, 2},   /* dilation 2 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t n = cases[i].n, k = cases[i].k;
    knob_preset b = {"llvm-cpu.conv2d_NCHWc", {"tile_oc", "tile_px"},
                     {cases[i].oc, cases[i].px}, 0};
    tvm_gattr st[3] = {
        tvm_gattr_ints("strides", (int64_t[]){cases[i].sh, cases[i].sw}, 2),
        tvm_gattr_ints("pads", (int64_t[]){cases[i].pt, cases[i].pl,
                                           cases[i].pb, cases[i].pr}, 4),
        tvm_gattr_ints("dilations", (int64_t[]){cases[i].d, cases[i].d}, 2)};
    tvm_graph *g = conv_relu_graph(n, 32, 32, cases[i].h, cases[i].w, k, st,
                                   3, 7 + i, 0.2, cases[i].residual);
    tvm_tune_hooks hooks = {preset_knobs, &b, NULL};
    char *ir = NULL;
    tvm_plan *p = compile_check_hooked(g, 60 + i, &hooks, &ir);
    assert_int_equal(b.hits, 1);
    expect_accumulators(ir, i, cases[i].tc * cases[i].tp * lanes);
    /* the input-channel block (lanes channels of 32) is unrolled by the
     * schedule where its body passes codegen's own limit of 64 stores, up
     * to 128 (1 x 14 on AVX2: 112), and left a loop past that */
    int stores = cases[i].tc * cases[i].tp * lanes;
    char icb[64];
    snprintf(icb, sizeof icb, "for (icb, 0, %d) unrolled", lanes);
    if (stores > 64 && stores <= 128 && !strstr(ir, icb))
      fail_msg("case %zu: %d stores, no '%s' in:\n%s", i, stores, icb, ir);
    if ((stores <= 64 || stores > 128) && strstr(ir, icb))
      fail_msg("case %zu: %d stores, yet '%s' in:\n%s", i, stores, icb, ir);
    free(ir);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* The flat convolutions' reduction blocked over input channels (knob
 * k_block, preset with tile_oc and tile_px): a task computes its chunks
 * over the whole map into a tile of tile_oc x OH*OW x lanes floats, kb
 * input-channel chunks at a time (the loop ic.inner of kb inside the
 * pixel blocks, ic.outer outside them), and every choice computes what
 * the reference does: ragged pixel blocks (49 = 9 x 5 + 4: the last block
 * guarded, not shifted, as the tile is accumulated in memory), batch 2, a
 * residual epilogue read from the tile, a padded strided 3x3 window. */
static void test_conv_flat_k_blocks(void **state) {
  (void)state;
  int lanes = test_lanes();
  /* C input channels in chunks of the block (8 or 16): k_block choices
   * all (index 0), then 2 and 4 (indices 1 and 2) */
  static const struct {
    int n, c, m, hw, k, s, pad, tp, kbi, residual;
  } cases[] = {
      {1, 128, 32, 7, 1, 1, 0, 5, 1, 0},  /* 7x7: 9 x 5 + 4 */
      {1, 128, 32, 7, 1, 1, 0, 4, 2, 0},  /* 12 x 4 + 1 */
      {2, 128, 32, 6, 1, 1, 0, 3, 2, 0},  /* batch 2, 36 = 12 x 3 */
      {1, 64, 64, 7, 1, 1, 0, 5, 1, 1},   /* residual add */
      {1, 128, 32, 14, 3, 2, 1, 5, 2, 0}, /* 3x3/2 padded to 7x7 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    knob_preset b = {"llvm-cpu.conv2d_NCHWc",
                     {"tile_oc", "tile_px", "k_block"},
                     {0, cases[i].tp - 1, cases[i].kbi}, 0};
    int64_t s = cases[i].s, pd = cases[i].pad;
    tvm_gattr at[2] = {tvm_gattr_ints("strides", (int64_t[]){s, s}, 2),
                       tvm_gattr_ints("pads", (int64_t[]){pd, pd, pd, pd}, 4)};
    tvm_graph *g = conv_relu_graph(cases[i].n, cases[i].c, cases[i].m,
                                   cases[i].hw, cases[i].hw, cases[i].k, at, 2,
                                   90 + i, 0.1, cases[i].residual);
    tvm_tune_hooks hooks = {preset_knobs, &b, NULL};
    char *ir = NULL;
    tvm_plan *p = compile_check_hooked(g, 80 + i, &hooks, &ir);
    assert_int_equal(b.hits, 1);
    int oh = (int)((cases[i].hw + 2 * pd - cases[i].k) / s + 1);
    expect_accumulators(ir, i, oh * oh * lanes);
    char inner[64];
    snprintf(inner, sizeof inner, "for (ic.inner, 0, %d)",
             cases[i].kbi == 1 ? 2 : 4);
    if (!strstr(ir, inner) || !strstr(ir, "for (ic.outer"))
      fail_msg("case %zu: no '%s' in:\n%s", i, inner, ir);
    free(ir);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* The accesses of allocated buffers carry codegen's alias scope and
 * those of the parameters its noalias (codegen_memory.c): LLVM's own
 * analysis gives up on an alloca of more than 100 uses, and the
 * K-blocked tile's accumulators were then stored, and each broadcast
 * loaded again, at every FMA (2.2x the time). */
static void test_conv_alias_scopes(void **state) {
  (void)state;
  knob_preset b = {"llvm-cpu.conv2d_NCHWc", {"tile_oc", "tile_px", "k_block"},
                   {0, 4, 1}, 0};
  tvm_graph *g = conv_relu_graph(1, 128, 32, 7, 7, 1, NULL, 0, 95, 0.1, 0);
  tvm_tune_hooks hooks = {preset_knobs, &b, NULL};
  const char *needle[2] = {"!alias.scope", "!noalias"};
  int count[2], files = 0;
  tvm_plan *p =
      compile_count_llvm(g, 96, &hooks, ".raw.ll", needle, count, 2, &files);
  assert_int_equal(b.hits, 1);
  assert_true(files >= 1);
  if (count[0] < 1 || count[1] < 1)
    fail_msg("%d accesses with !alias.scope, %d with !noalias", count[0],
             count[1]);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* A prime output width (SqueezeNet's 13x13 maps) with an odd chunk
 * count: the rows' default register block is the whole 13-pixel row,
 * not the 1-pixel block the budget's divisors alone give on AVX2 (it ran
 * 5x slower there); the accumulator block is 13 x oc_block floats.  A
 * strided 3x3 convolution with flat pixels turned off through the layout
 * knob (by default such a convolution now runs on flat pixels,
 * test_conv_flat_pixels). */
static void test_conv_prime_width(void **state) {
  (void)state;
  tvm_gattr at[2] = {tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4),
                     tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2)};
  tvm_graph *g = conv_relu_graph(1, 16, 40, 26, 26, 3, at, 2, 5, 0.2, 0);
  char *ir = NULL;
  tvm_tune_hooks hooks = {NULL, NULL, rows_layout};
  tvm_plan *p = compile_check_hooked(g, 61, &hooks, &ir);
  if (!strstr(ir, "[float32 * 104]") && !strstr(ir, "[float32 * 208]"))
    fail_msg("no 13-pixel accumulator block (13 x 8 or 13 x 16) in:\n%s", ir);
  free(ir);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* A depthwise 3x3 convolution (32 channels, 28x28) whose epilogue is a
 * Sigmoid: on AVX-512 (16 lanes) its row block takes half the pixels, 7
 * x 16 accumulator floats, where a Relu epilogue keeps 14 (the
 * expansion's constants spilled the block, strategy_conv2d.c); both
 * compute what the reference does on every ISA. */
static void test_conv_dw_vmath_epilogue(void **state) {
  (void)state;
  for (int sig = 0; sig < 2; sig++) {
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 32, 28, 28}, 4);
    tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){32, 1, 3, 3}, 4, 31, 0.3);
    tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){32}, 1, 32, 0.3);
    tvm_gattr at[2] = {tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4),
                       tvm_gattr_int("group", 32)};
    tvm_gvalue *y = tvm_graph_apply(g, "Conv", NULL, TVM_IN(x, w, b), at, 2, 1, NULL);
    y = tvm_graph_apply(g, sig ? "Sigmoid" : "Relu", "out", &y, 1, NULL, 0, 1, NULL);
    CHECK_OK(tvm_graph_mark_output(g, y));
    char *ir = NULL;
    tvm_plan *p = compile_check_vectorized(g, 64, &ir);
    if (test_lanes() == 16) expect_accumulators(ir, 0, sig ? 7 * 16 : 14 * 16);
    free(ir);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_flat_pixels_applies),
      cmocka_unit_test(test_conv_register_blocks),
      cmocka_unit_test(test_conv_prime_width),
      cmocka_unit_test(test_conv_dw_vmath_epilogue),
      cmocka_unit_test(test_conv_flat_pixels),
      cmocka_unit_test(test_conv_flat_odd_chunks),
      cmocka_unit_test(test_conv_flat_least_recompute),
      cmocka_unit_test(test_conv_flat_k_blocks),
      cmocka_unit_test(test_conv_alias_scopes),
  };
  /* the direct template: Winograd's default would take some of these
   * 3x3 convolutions (test_winograd.c has those) */
  return cmocka_run_group_tests(tests, setup_direct, teardown);
}
