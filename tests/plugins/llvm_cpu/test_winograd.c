/*
 * tests/plugins/llvm_cpu/test_winograd.c - Winograd F(4x4, 3x3) and
 * F(2x2, 3x3) on channel-blocked data on llvm-cpu: the three operators'
 * references (kernel transform, input transform, GEMMs + output
 * transform) against Conv's on odd sizes, both tiles; the operators
 * refusing what they do not compute; alter_layout asked for either by a
 * fixed query (and refusing a 1x1); the plugin's default through
 * tvm_compile, with the epilogue fused and the results equal to the
 * reference, and its choice of tile by map and weight size for the
 * machine's vector width; the template's register blocks (tile_p x
 * tile_k) preset through the tuner's hook; and the winograd layout knob
 * switching a convolution between the three algorithms.
 */
#include <math.h>

#include "layout_test.h"

/* X [N, C, H, W] -> NCHW<ib>c -> input transform -> with U (of W in
 * blocks of ob) and bias -> NCHW, beside Conv on the same operands. */
static void test_reference(void **state) {
  (void)state;
  static const int64_t cases[][9] = {/* N C K H W pad ib ob tile */
                                     {1, 4, 8, 7, 6, 1, 4, 4, 4},
                                     {2, 6, 4, 9, 10, 0, 3, 2, 4},
                                     {1, 8, 8, 4, 4, 1, 8, 4, 4},
                                     {1, 4, 4, 13, 5, 1, 2, 4, 4},
                                     {1, 4, 8, 7, 6, 1, 4, 4, 2},
                                     {2, 6, 4, 9, 10, 0, 3, 2, 2},
                                     {1, 4, 4, 13, 5, 1, 2, 4, 2},
                                     /* U's blocks of 8 in two runs of
                                      * 4, of 6 as 4 + 2 */
                                     {1, 32, 32, 6, 6, 1, 8, 8, 4},
                                     {1, 16, 12, 5, 5, 1, 4, 6, 2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const int64_t *k = cases[i];
    char dl[16], ol[16];
    snprintf(dl, sizeof dl, "NCHW%dc", (int)k[6]);
    snprintf(ol, sizeof ol, "NCHW%dc", (int)k[7]);
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){k[0], k[1], k[3], k[4]}, 4);
    tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){k[2], k[1], 3, 3}, 4, 30 + i, 0.5);
    tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){k[2]}, 1, 40 + i, 0.5);
    tvm_gattr pa = tvm_gattr_ints("pads", (int64_t[]){k[5], k[5], k[5], k[5]}, 4);
    int bias = i != 1 && i != 5;
    int64_t m = k[8], T = m + 2;
    tvm_gvalue *y = tvm_graph_apply(g, "Conv", "direct", TVM_IN(x, w, b), &pa,
                                    1, 1, NULL);
    if (!bias) y = tvm_graph_apply(g, "Conv", "direct", TVM_IN(x, w), &pa, 1, 1, NULL);
    tvm_gattr t1[2] = {tvm_gattr_str("src_layout", "NCHW"), tvm_gattr_str("dst_layout", dl)};
    tvm_gvalue *xb = tvm_graph_apply(g, "LayoutTransform", "xb", &x, 1, t1, 2, 1, NULL);
    /* tile 4 is the attribute's default: the first cases leave it out */
    tvm_gattr blk[2] = {tvm_gattr_int("block", k[7]), tvm_gattr_int("tile", m)};
    tvm_gattr va[2] = {pa, tvm_gattr_int("tile", m)};
    int na = m == 4 ? 1 : 2;
    tvm_gvalue *u = tvm_graph_apply(g, "Conv2D_winograd_weight_NCHWc", "u", &w, 1, blk, na, 1, NULL);
    tvm_gvalue *v = tvm_graph_apply(g, "Conv2D_winograd_input_NCHWc", "v", &xb, 1, va, na, 1, NULL);
    CHECK_OK(tvm_graph_status(g));
    tvm_gattr ya[4] = {tvm_gattr_int("batch", k[0]), tvm_gattr_int("out_h", y->shape[2]),
                       tvm_gattr_int("out_w", y->shape[3]), tvm_gattr_str("out_layout", ol)};
    tvm_gvalue *z = tvm_graph_apply(g, "Conv2D_winograd_NCHWc", "wino", TVM_IN(v, u, b),
                                    ya, 4, 1, NULL);
    if (!bias)
      z = tvm_graph_apply(g, "Conv2D_winograd_NCHWc", "wino", TVM_IN(v, u), ya, 4, 1, NULL);
    tvm_gattr t2[2] = {tvm_gattr_str("src_layout", ol), tvm_gattr_str("dst_layout", "NCHW")};
    tvm_gvalue *zp = tvm_graph_apply(g, "LayoutTransform", "zp", &z, 1, t2, 2, 1, NULL);
    CHECK_OK(tvm_graph_status(g));
    assert_int_equal(u->ndim, 5);
    assert_int_equal(u->shape[0], T);
    assert_int_equal(v->shape[0], T);
    assert_int_equal(u->shape[2], k[2] / k[7]);
    assert_int_equal(u->shape[3], k[1]);
    assert_int_equal(v->shape[2],
                     k[0] * ((y->shape[2] + m - 1) / m) * ((y->shape[3] + m - 1) / m));
    assert_memory_equal(y->shape, zp->shape, sizeof(int64_t) * 4);
    CHECK_OK(tvm_graph_mark_output(g, y));
    CHECK_OK(tvm_graph_mark_output(g, zp));
    tensors tin, out;
    tensors_alloc(&tin, &g->inputs, 50 + i);
    eval_graph(g, &tin, &out);
    const float *a = out.t[0].data, *c = out.t[1].data;
    int64_t n = tvm_gvalue_numel(y);
    for (int64_t e = 0; e < n; e++)
      assert_float_equal(a[e], c[e], 1e-4 * (1 + fabs(a[e])));
    tensors_free(&tin);
    tensors_free(&out);
    /* and compiled (alter_layout off: the operators as written, through
     * the two templates), against the same reference */
    tvm_compile_options o;
    tvm_compile_options_init(&o);
    o.alter_layout = 0;
    tvm_plan *p = compile_check_opts(g, 60 + i, &o);
    assert_int_equal(steps_with(p, "Conv2D_winograd_input_NCHWc"), 1);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* The input transform refuses stride 2, asymmetric padding and a 5x5
 * window; both transforms a tile of 3; the rest refuses a V whose tiles
 * do not match out_h / out_w, and a V of one tile with a U of the
 * other. */
static void test_refused(void **state) {
  (void)state;
  tvm_gattr bad[3][2] = {
      {tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2), tvm_gattr_int("group", 1)},
      {tvm_gattr_ints("pads", (int64_t[]){1, 0, 0, 1}, 4), tvm_gattr_int("group", 1)},
      {tvm_gattr_ints("dilations", (int64_t[]){2, 2}, 2), tvm_gattr_int("group", 1)}};
  for (int i = 0; i < 3; i++) {
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 1, 8, 8, 4}, 5);
    assert_null(tvm_graph_apply(g, "Conv2D_winograd_input_NCHWc", "wino_in", &x, 1,
                                bad[i], 2, 1, NULL));
    assert_non_null(strstr(tvm_diag_message(), "wino_in"));
    tvm_graph_free(g);
  }
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 1, 8, 8, 4}, 5);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){8, 4, 3, 3}, 4, 3, 0.5);
  tvm_gattr t3[2] = {tvm_gattr_int("tile", 3), tvm_gattr_int("block", 4)};
  assert_null(tvm_graph_apply(g, "Conv2D_winograd_input_NCHWc", "in3", &x, 1, t3, 1, 1, NULL));
  assert_non_null(strstr(tvm_diag_message(), "tiles of 2 or 4"));
  assert_null(tvm_graph_apply(g, "Conv2D_winograd_weight_NCHWc", "w3", &w, 1, t3, 2, 1, NULL));
  if (!strstr(tvm_diag_message(), "tiles of 2 or 4")) fail_msg("%s", tvm_diag_message());
  tvm_graph_free(g);
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *v2 = tvm_graph_input(g, "v2", F32, (int64_t[]){4, 4, 16, 8}, 4);
  tvm_gvalue *u6 = tvm_graph_random(g, "u6", (int64_t[]){6, 6, 2, 8, 4}, 5, 3, 0.5);
  tvm_gattr y8[3] = {tvm_gattr_int("batch", 1), tvm_gattr_int("out_h", 8),
                     tvm_gattr_int("out_w", 8)}; /* 4 x 4 tiles of 2 */
  assert_null(tvm_graph_apply(g, "Conv2D_winograd_NCHWc", "mixed", TVM_IN(v2, u6), y8, 3, 1,
                              NULL));
  assert_non_null(strstr(tvm_diag_message(), "same T"));
  tvm_graph_free(g);
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *v = tvm_graph_input(g, "v", F32, (int64_t[]){6, 6, 4, 8}, 4);
  tvm_gvalue *u = tvm_graph_random(g, "u", (int64_t[]){6, 6, 2, 8, 4}, 5, 3, 0.5);
  tvm_gattr ya[3] = {tvm_gattr_int("batch", 1), tvm_gattr_int("out_h", 12),
                     tvm_gattr_int("out_w", 8)}; /* 3 x 2 tiles, not 4 */
  assert_null(tvm_graph_apply(g, "Conv2D_winograd_NCHWc", "wino", TVM_IN(v, u), ya, 3, 1, NULL));
  assert_non_null(strstr(tvm_diag_message(), "wino"));
  tvm_graph_free(g);
}

/* A query asking for Winograd F(4x4, 3x3) on every Conv, NCHW4c (ud
 * non-NULL: F(2x2, 3x3)). */
static tvm_status ask_winograd(void *ud, const tvm_gnode *n,
                               tvm_layout_choice *c) {
  (void)n;
  strcpy(c->data, "NCHW4c");
  strcpy(c->weight, ud ? TVM_LAYOUT_WINOGRAD_F2X3 : TVM_LAYOUT_WINOGRAD_F4X3);
  strcpy(c->out, "NCHW4c");
  return TVM_OK;
}

/* The transform size T (6 for F(4x4), 4 for F(2x2)) of g's Winograd
 * convolutions, in graph order, into t (at most n); returns their
 * count. */
static int wino_sizes(const tvm_graph *g, int64_t *t, int n) {
  int k = 0;
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *nd = g->nodes.data[i];
    if (!strcmp(nd->op, "Conv2D_winograd_NCHWc") && k < n)
      t[k++] = nd->inputs[0]->shape[0];
  }
  return k;
}

/* alter_layout: a 1x1 Conv (and a grouped 3x3) asked for it fails naming
 * the node; a 3x3 one becomes the two operators (either tile), U folds
 * to a constant, the graph output keeps its name and the reference its
 * values. */
static void test_alter_layout(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 6, 6}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){8, 8, 1, 1}, 4, 3, 0.5);
  tvm_gvalue *y = tvm_graph_apply(g, "Conv", "pointwise", TVM_IN(x, w), NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  assert_int_not_equal(tvm_graph_pass_alter_layout(g, ask_winograd, NULL), TVM_OK);
  assert_non_null(strstr(tvm_diag_message(), "pointwise"));
  tvm_graph_free(g);

  /* a grouped 3x3 likewise */
  CHECK_OK(tvm_graph_create(&g));
  x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 6, 6}, 4);
  w = tvm_graph_random(g, "w", (int64_t[]){8, 4, 3, 3}, 4, 4, 0.5);
  tvm_gattr ga = tvm_gattr_int("group", 2);
  y = tvm_graph_apply(g, "Conv", "grouped", TVM_IN(x, w), &ga, 1, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  assert_int_not_equal(tvm_graph_pass_alter_layout(g, ask_winograd, NULL), TVM_OK);
  assert_non_null(strstr(tvm_diag_message(), "grouped"));
  assert_non_null(strstr(tvm_diag_message(), "group 1"));
  tvm_graph_free(g);

  for (int two = 0; two < 2; two++) {
    CHECK_OK(tvm_graph_create(&g));
    x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 9, 6}, 4);
    w = tvm_graph_random(g, "w", (int64_t[]){8, 8, 3, 3}, 4, 5, 0.5);
    tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){8}, 1, 6, 0.5);
    tvm_gattr pa = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4);
    y = tvm_graph_apply(g, "Conv", NULL, TVM_IN(x, w, b), &pa, 1, 1, NULL);
    y = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
    CHECK_OK(tvm_graph_mark_output(g, y));
    const char *yname = y->name;
    tensors in, want, got;
    tensors_alloc(&in, &g->inputs, 9);
    eval_graph(g, &in, &want);
    CHECK_OK(tvm_graph_pass_alter_layout(g, ask_winograd, two ? &two : NULL));
    CHECK_OK(tvm_graph_pass_fold_constants(g));
    assert_int_equal(count_op(g, "Conv2D_winograd_input_NCHWc"), 1);
    assert_int_equal(count_op(g, "Conv2D_winograd_NCHWc"), 1);
    assert_int_equal(count_op(g, "Conv"), 0);
    assert_int_equal(count_op(g, "Conv2D_winograd"), 0);
    assert_int_equal(count_op(g, "Conv2D_winograd_weight_NCHWc"), 0);
    int64_t T[1];
    assert_int_equal(wino_sizes(g, T, 1), 1);
    assert_int_equal(T[0], two ? 4 : 6);
    for (size_t i = 0; i < g->nodes.len; i++) {
      const tvm_gnode *n = g->nodes.data[i];
      if (!strcmp(n->op, "Conv2D_winograd_NCHWc"))
        assert_int_equal(n->inputs[1]->kind, TVM_GV_CONST);
    }
    assert_string_equal(((tvm_gvalue *)g->outputs.data[0])->name, yname);
    eval_graph(g, &in, &got);
    expect_close(&got, &want, RTOL);
    tensors_free(&in);
    tensors_free(&want);
    tensors_free(&got);
    tvm_graph_free(g);
  }
}

static tvm_gvalue *conv(tvm_graph *g, tvm_gvalue *x, int64_t C, int64_t M,
                        int64_t stride, int bias, uint64_t seed) {
  tvm_gvalue *w = tvm_graph_random(g, NULL, (int64_t[]){M, C, 3, 3}, 4, seed, 0.2);
  tvm_gvalue *b = tvm_graph_random(g, NULL, (int64_t[]){M}, 1, seed + 1, 0.2);
  tvm_gattr at[2] = {tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4),
                     tvm_gattr_ints("strides", (int64_t[]){stride, stride}, 2)};
  if (bias)
    return tvm_graph_apply(g, "Conv", NULL, TVM_IN(x, w, b), at, 2, 1, NULL);
  return tvm_graph_apply(g, "Conv", NULL, TVM_IN(x, w), at, 2, 1, NULL);
}

/* The plugin's default: a residual block on an 18x17 map (5 x 5 tiles,
 * the last row and column partial) runs both 3x3 convolutions as
 * Winograd with bias, Relu and the residual Add fused into the second
 * kernel; the two stride-2 convolutions after it and an unpadded one on
 * their 5x5 output (one tile, below every vector width's threshold)
 * stay direct; the results equal the reference. */
static void test_graph_default(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 32, 18, 17}, 4);
  tvm_gvalue *h = TVM_OP(g, "Relu", TVM_IN(conv(g, x, 32, 32, 1, 1, 10)), TVM_NOATTRS);
  tvm_gvalue *y = conv(g, h, 32, 32, 1, 1, 20);
  y = TVM_OP(g, "Relu", TVM_IN(TVM_OP(g, "Add", TVM_IN(y, x), TVM_NOATTRS)), TVM_NOATTRS);
  tvm_gvalue *d = TVM_OP(g, "Relu", TVM_IN(conv(g, y, 32, 32, 2, 1, 30)), TVM_NOATTRS);
  d = TVM_OP(g, "Relu", TVM_IN(conv(g, d, 32, 32, 2, 1, 40)), TVM_NOATTRS);
  tvm_gvalue *w = tvm_graph_random(g, NULL, (int64_t[]){32, 32, 3, 3}, 4, 50, 0.2);
  d = tvm_graph_apply(g, "Conv", NULL, TVM_IN(d, w), NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  CHECK_OK(tvm_graph_mark_output(g, d));
  tvm_plan *p = compile_check(g, 7);
  assert_int_equal(steps_with(p, "Conv2D_winograd_input_NCHWc"), 2);
  assert_int_equal(steps_with(p, "Conv2D_winograd_NCHWc+Relu"), 1);
  assert_int_equal(steps_with(p, "Conv2D_winograd_NCHWc+Add+Relu"), 1);
  assert_int_equal(steps_with(p, "Conv_NCHWc"), 3);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* tile_p x tile_k presets (indices into the knobs' choices) on a 32x32
 * map (8 tiles a row: tile_p in {1, 2, 4, 8}) with 64 outputs in blocks
 * of the lanes: each computes what the reference does, and the block
 * reaches the loop IR (the accumulators: tile_k x tile_p x lanes). */
static void test_register_blocks(void **state) {
  (void)state;
  int lanes = test_lanes();
  static const struct { int p, k, tp, tk; } cases[] = {
      {3, 0, 8, 1}, {2, 1, 4, 2}, {0, 1, 1, 2}, {1, 0, 2, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    knob_preset wp = {"llvm-cpu.winograd_NCHWc", {"tile_p", "tile_k"},
                      {cases[i].p, cases[i].k}, 0};
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 32, 32, 32}, 4);
    tvm_gvalue *y = conv(g, x, 32, 64, 1, 1, 70 + i);
    y = tvm_graph_apply(g, "Relu", "out", &y, 1, NULL, 0, 1, NULL);
    CHECK_OK(tvm_graph_mark_output(g, y));
    tvm_tune_hooks hooks = {preset_knobs, &wp, NULL};
    char *ir = NULL;
    tvm_plan *p = compile_check_hooked(g, 80 + i, &hooks, &ir);
    assert_int_equal(wp.hits, 1);
    expect_accumulators(ir, i, cases[i].tk * cases[i].tp * lanes);
    free(ir);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* A graph of two independent 3x3 convolutions (pad 1, bias) C -> C
 * channels on ha x ha and hb x hb maps, in that order. */
static tvm_graph *two_convs(int64_t C, int64_t ha, int64_t hb, uint64_t seed) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *a = tvm_graph_input(g, "a", F32, (int64_t[]){1, C, ha, ha}, 4);
  tvm_gvalue *b = tvm_graph_input(g, "b", F32, (int64_t[]){1, C, hb, hb}, 4);
  CHECK_OK(tvm_graph_mark_output(g, conv(g, a, C, C, 1, 1, seed)));
  CHECK_OK(tvm_graph_mark_output(g, conv(g, b, C, C, 1, 1, seed + 5)));
  return g;
}

/* The default tile for the machine's vector width: 3x3 convolutions of
 * 96 channels (transformed F(4x4) weights of 1.3 MiB, above the cache
 * allowance) on 14x14 (16 tiles of 4, 49 of 2) and 7x7 (4 and 16) maps.
 * A tile size is taken from 2 x lanes tiles: 512-bit vectors (32) run
 * the 14x14 one as F(2x2) and the 7x7 one directly, 256-bit (16) and
 * 128-bit (8) run F(4x4) and F(2x2).  Both match the reference. */
static void test_default_tile(void **state) {
  (void)state;
  int lanes = test_lanes();
  tvm_graph *g = two_convs(96, 14, 7, 110);
  tvm_plan *p = compile_check(g, 17);
  int64_t t14 = 0, t7 = 0; /* T of the 14x14 and 7x7 ones, 0 = direct */
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    if (strcmp(n->op, "Conv2D_winograd_NCHWc") != 0) continue;
    if (n->outputs[0]->shape[2] == 14) t14 = n->inputs[0]->shape[0];
    if (n->outputs[0]->shape[2] == 7) t7 = n->inputs[0]->shape[0];
  }
  if (lanes >= 16) {
    assert_int_equal(t14, 4);
    assert_int_equal(t7, 0);
    assert_int_equal(steps_with(p, "Conv_NCHWc"), 1);
  } else {
    assert_int_equal(t14, 6);
    assert_int_equal(t7, 4);
    assert_int_equal(steps_with(p, "Conv_NCHWc"), 0);
  }
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* The winograd layout knob: preset to F(4x4) (index 1) on a map too
 * small for the default (4x4: one tile) and to direct (0) on one large
 * enough (16x16), the two convolutions swap algorithms; preset to
 * F(2x2) (index 2) on both, both run it; every one still matches the
 * reference. */
typedef struct flip {
  int calls, mode; /* mode 1: F(4x4) then direct; 2: F(2x2) throughout */
} flip;

static tvm_status flip_winograd(void *ud, const char *wl, const char *label,
                                tvm_config *cfg, int after) {
  flip *f = ud;
  (void)wl, (void)label;
  if (after) return TVM_OK;
  int idx = f->mode == 2 ? 2 : f->calls == 0 ? 1 : 0;
  f->calls++;
  return tvm_config_preset(cfg, "winograd", idx);
}

static void test_layout_knob(void **state) {
  (void)state;
  for (int preset = 0; preset < 3; preset++) {
    tvm_graph *g = two_convs(16, 4, 16, 90);
    flip f = {0, preset};
    tvm_tune_hooks hooks = {NULL, NULL, flip_winograd};
    hooks.ud = &f;
    tvm_compile_options o;
    tvm_compile_options_init(&o);
    if (preset) o.tune = &hooks;
    tvm_plan *p = compile_check_opts(g, 13, &o);
    assert_int_equal(f.calls, preset ? 2 : 0);
    int64_t T[2];
    if (preset == 2) {
      assert_int_equal(steps_with(p, "Conv2D_winograd_NCHWc"), 2);
      assert_int_equal(steps_with(p, "Conv_NCHWc"), 0);
      assert_int_equal(wino_sizes(g, T, 2), 2);
      assert_int_equal(T[0], 4);
      assert_int_equal(T[1], 4);
    } else {
      assert_int_equal(steps_with(p, "Conv2D_winograd_NCHWc"), 1);
      assert_int_equal(steps_with(p, "Conv_NCHWc"), 1);
      assert_int_equal(wino_sizes(g, T, 2), 1);
      assert_int_equal(T[0], 6);
    }
    /* which one: the winograd output is 4x4 with the preset, else 16x16 */
    for (size_t i = 0; preset < 2 && i < g->nodes.len; i++) {
      const tvm_gnode *n = g->nodes.data[i];
      if (!strcmp(n->op, "Conv2D_winograd_NCHWc"))
        assert_int_equal(n->outputs[0]->shape[2], preset ? 4 : 16);
    }
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference),
      cmocka_unit_test(test_refused),
      cmocka_unit_test(test_alter_layout),
      cmocka_unit_test(test_graph_default),
      cmocka_unit_test(test_register_blocks),
      cmocka_unit_test(test_default_tile),
      cmocka_unit_test(test_layout_knob),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
