/*
 * tests/plugins/llvm_cpu/test_matmul_templates.c - llvm-cpu's templates
 * for matrix products and rows, compiled end to end and compared with
 * tvm_graph_eval_reference: the dense (Gemm transB = 1) template (shapes,
 * epilogues, fallbacks); matrix products with a constant right operand
 * packed by alter_layout (MatMul_packed, NK<nr>n, the last panel
 * zero-padded; register blocks whose rows of A share an L1 set kept
 * within its ways), through the plugin and through the pass alone; the batch
 * matmul of two inputs; Softmax and LayerNormalization on the rows
 * template.
 */

#include "layout_test.h"

/* Gemm with transB = 1 (llvm-cpu.dense): batch 1 and 4, bias and relu
 * fused, alpha/beta, column counts 8 does not divide (10 and 6 in tiles
 * of 5 and 6 columns, 1001 in tiles of 7), a k that takes 4 lanes, and a
 * k no lane count divides (refused by the template: the generic
 * schedule, with a warning). */
static void test_dense(void **state) {
  (void)state;
  static const int64_t shapes[][3] = {
      {1, 1000, 512}, {4, 48, 64}, {3, 13, 32}, {2, 10, 20}, {2, 5, 18},
      {1, 1001, 64},  {2, 6, 32}};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
    int64_t M = shapes[c][0], N = shapes[c][1], K = shapes[c][2];
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){M, K}, 2);
    tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){N, K}, 2, 40 + c, 0.3);
    tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){N}, 1, 50 + c, 0.3);
    tvm_gattr at[3] = {tvm_gattr_int("transB", 1), tvm_gattr_float("alpha", 0.5),
                       tvm_gattr_float("beta", c == 1 ? 2.0 : 1.0)};
    tvm_gvalue *y = tvm_graph_apply(g, "Gemm", "fc", TVM_IN(x, w, b), at,
                                    c == 0 ? 1 : 3, 1, NULL);
    if (c != 2) y = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
    CHECK_OK(tvm_graph_mark_output(g, y));
    tvm_plan *p = compile_check(g, 60 + c);
    assert_int_equal(p->nsteps, 1);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* MatMul and Gemm with a constant right operand become MatMul_packed on
 * llvm-cpu (the plugin asks for NK<nr>n): 2-D and 3-D A, column counts
 * no panel width divides (padded panels), row counts whose blocks of 8
 * or more accumulators pad them (5 rows in a block of 6, 13 in blocks of
 * 4), bias and activation epilogues,
 * Gemm with transB 0 and 1, alpha and beta; each one fused kernel whose
 * label names MatMul_packed, results equal to the reference. */
static void test_matmul_packed(void **state) {
  (void)state;
  static const struct { int64_t b, M, K, N; int gemm, tb; } cs[] = {
      {2, 5, 24, 40, 0, 0}, {0, 37, 100, 13, 0, 0}, {0, 64, 64, 96, 0, 0},
      {0, 6, 20, 30, 1, 0}, {0, 8, 32, 1000, 1, 1}, {3, 1, 16, 33, 0, 0},
      {0, 5, 64, 100, 0, 0}, {0, 13, 48, 40, 0, 0}};
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    int64_t as[3] = {cs[c].b, cs[c].M, cs[c].K};
    tvm_gvalue *x = cs[c].b
                        ? tvm_graph_input(g, "x", F32, as, 3)
                        : tvm_graph_input(g, "x", F32, as + 1, 2);
    int64_t ws[2] = {cs[c].K, cs[c].N};
    if (cs[c].tb) ws[0] = cs[c].N, ws[1] = cs[c].K;
    tvm_gvalue *w = tvm_graph_random(g, "w", ws, 2, 70 + c, 0.3);
    tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){cs[c].N}, 1, 80 + c, 0.3);
    tvm_gvalue *y;
    if (cs[c].gemm) {
      tvm_gattr at[3] = {tvm_gattr_int("transB", cs[c].tb),
                         tvm_gattr_float("alpha", 0.5),
                         tvm_gattr_float("beta", 2.0)};
      y = tvm_graph_apply(g, "Gemm", "fc", TVM_IN(x, w, b), at, 3, 1, NULL);
    } else {
      y = tvm_graph_apply(g, "MatMul", "mm", TVM_IN(x, w), NULL, 0, 1, NULL);
      y = tvm_graph_apply(g, "Add", "add", TVM_IN(y, b), NULL, 0, 1, NULL);
    }
    y = TVM_OP(g, c % 2 ? "Sigmoid" : "Relu", TVM_IN(y), TVM_NOATTRS);
    CHECK_OK(tvm_graph_mark_output(g, y));
    tvm_plan *p = compile_check(g, 90 + c);
    assert_int_equal(p->nsteps, 1);
    assert_int_equal(steps_with(p, "MatMul_packed"), 1);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* Products of 1 or 2 rows (batch-1 MatMul: a matrix-vector product) are
 * packed in panels of 8 / rows vectors, up to what N fills, so the
 * register block holds eight chains of FMAs, not two (bound by the FMA
 * latency); 3 and 4 rows keep two-vector panels.  Results equal to the
 * reference, ragged N (the last panel padded) and 3-D A included. */
static void test_matmul_packed_few_rows(void **state) {
  (void)state;
  static const struct { int64_t b, M, K, N, nv; } cs[] = {
      {0, 1, 999, 1001, 8}, {0, 1, 64, 20, 8}, {0, 2, 40, 100, 4},
      {0, 3, 16, 70, 2},    {3, 1, 16, 33, 2}, {0, 4, 32, 100, 2},
      {2, 1, 24, 50, 4}};
  int64_t lanes = (int64_t)tvm_target_info(T)->vector_bits / 32;
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    int64_t as[3] = {cs[c].b, cs[c].M, cs[c].K};
    tvm_gvalue *x = cs[c].b ? tvm_graph_input(g, "x", F32, as, 3)
                            : tvm_graph_input(g, "x", F32, as + 1, 2);
    tvm_gvalue *w =
        tvm_graph_random(g, "w", (int64_t[]){cs[c].K, cs[c].N}, 2, 73 + c, 0.3);
    tvm_gvalue *y =
        tvm_graph_apply(g, "MatMul", "mm", TVM_IN(x, w), NULL, 0, 1, NULL);
    CHECK_OK(tvm_graph_mark_output(g, y));
    tvm_plan *p = compile_check(g, 110 + c);
    assert_int_equal(steps_with(p, "MatMul_packed"), 1);
    /* the packed weight's layout: NK<nr>n, nr = nv vectors (fewer when
     * N fills fewer at this width) */
    int64_t nv = cs[c].nv, fill = (cs[c].N + lanes - 1) / lanes;
    if (nv > fill) nv = fill;
    char want[32];
    snprintf(want, sizeof want, "NK%lldn", (long long)(nv * lanes));
    int found = 0;
    for (uint32_t v = 0; v < p->nvalues; v++)
      if (p->values[v].kind == TVM_PV_PARAM && p->values[v].layout &&
          strncmp(p->values[v].layout, "NK", 2) == 0) {
        if (strcmp(p->values[v].layout, want) != 0)
          fail_msg("%lld x %lld x %lld: packed as %s, expected %s",
                   (long long)(cs[c].b ? cs[c].b * cs[c].M : cs[c].M),
                   (long long)cs[c].K, (long long)cs[c].N,
                   p->values[v].layout, want);
        found = 1;
      }
    assert_true(found);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* A product over an image's pixels (ConvNeXt's pointwise MLP: [b, h, w,
 * C] x [C, N], a bias and GELU after it): its rows are b*h*w, tiled
 * across image rows and batch entries.  Results equal to the reference,
 * and the product realized at each tile is one register block (at most
 * 16 rows of two vectors), not the whole product, which bound inference
 * made of a tile whose rows cross image rows before it simplified their
 * index (floordiv(floormod(f, h*w), w)*w + floormod(f, w) is f) knowing
 * the loops' ranges (49 and 55 rows: the last tile shifted back to end at
 * the last row, a min() in the index). */
static void test_matmul_packed_image_rows(void **state) {
  (void)state;
  static const int64_t cs[][5] = {
      {1, 6, 7, 32, 48}, {2, 3, 5, 16, 24}, {1, 7, 7, 32, 48}, {1, 5, 11, 8, 40}};
  int64_t lanes = (int64_t)tvm_target_info(T)->vector_bits / 32;
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
    int64_t B = cs[c][0], H = cs[c][1], W = cs[c][2], K = cs[c][3];
    int64_t N = cs[c][4];
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){B, H, W, K}, 4);
    tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){K, N}, 2, 120 + c, 0.3);
    tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){N}, 1, 130 + c, 0.3);
    tvm_gvalue *y =
        tvm_graph_apply(g, "MatMul", "mm", TVM_IN(x, w), NULL, 0, 1, NULL);
    y = tvm_graph_apply(g, "Add", "add", TVM_IN(y, b), NULL, 0, 1, NULL);
    y = TVM_OP(g, "Erf", TVM_IN(y), TVM_NOATTRS);
    CHECK_OK(tvm_graph_mark_output(g, y));
    char *ir = NULL;
    tvm_plan *p = compile_check_vectorized(g, 140 + c, &ir);
    assert_int_equal(p->nsteps, 1);
    assert_int_equal(steps_with(p, "MatMul_packed"), 1);
    int blocks = 0;
    for (const char *a = strstr(ir, "allocate "); a; a = strstr(a + 1, "allocate ")) {
      const char *sz = strstr(a, "[float32 * ");
      long long n = sz ? atoll(sz + strlen("[float32 * ")) : 0;
      if (n > 16 * 2 * lanes)
        fail_msg("case %zu: a block of %lld floats (more than 16 rows of two "
                 "vectors) in:\n%s", c, n, ir);
      blocks++;
    }
    assert_true(blocks >= 1);
    free(ir);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* A product whose N and K no vector width or unroll factor divides (16 x
 * 333 x 250, a classifier's awkward shape) is computed right, and its
 * register block is vector code: after the vectorize pass no serial
 * column loop is left (a column guard in the last panel's block used to
 * keep every block's columns scalar, at 2 GFLOP/s) and no unrolled k step
 * is guarded (unroll_k's default divides K). */
static void test_matmul_packed_ragged(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){16, 333}, 2);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){333, 250}, 2, 71, 0.3);
  tvm_gvalue *y =
      tvm_graph_apply(g, "MatMul", "mm", TVM_IN(x, w), NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  char *ir = NULL;
  tvm_plan *p = compile_check_vectorized(g, 72, &ir);
  assert_int_equal(steps_with(p, "MatMul_packed"), 1);
  assert_non_null(strstr(ir, "ramp("));
  if (strstr(ir, "for (j,") || strstr(ir, "if (k"))
    fail_msg("the register block is not vector code:\n%.3000s", ir);
  free(ir);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* A product whose rows of A are 4 KiB apart (K = 1024 floats): the
 * register block's rows of A map to one L1 set, so the default block
 * takes at most as many of them as the L1 has ways (12 rows of 1024^3
 * ran at 62-94 GFLOP/s on Zen 4's 8-way L1, 6 or 8 rows at 95-106).  The
 * block (the largest allocation after vectorize, mr rows of the packed
 * panel width) is checked against the L1 geometry this machine reports; K =
 * 1000 (rows spread over the sets) is only computed.  The test can fail
 * only where the block would otherwise outgrow the ways: not on a
 * 16-register ISA (6 rows at most) nor with a 12-way L1 (12 rows at
 * most); it did on Zen 4 (12 rows in an 8-way L1). */
static void test_matmul_packed_aliased_rows(void **state) {
  (void)state;
  long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
  long ways = sysconf(_SC_LEVEL1_DCACHE_ASSOC);
  if (l1 <= 0) l1 = 32 << 10;
  if (ways <= 0) ways = 8;
  long way = l1 / ways, allowed = ways;
  static const int64_t ks[] = {1024, 1000};
  for (size_t c = 0; c < 2; c++) {
    int64_t K = ks[c];
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){48, K}, 2);
    tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){K, 64}, 2, 150 + c, 0.3);
    tvm_gvalue *y =
        tvm_graph_apply(g, "MatMul", "mm", TVM_IN(x, w), NULL, 0, 1, NULL);
    CHECK_OK(tvm_graph_mark_output(g, y));
    char *ir = NULL;
    tvm_plan *p = compile_check_vectorized(g, 160 + c, &ir);
    assert_int_equal(steps_with(p, "MatMul_packed"), 1);
    long long nr = 0, floats = 0;
    for (uint32_t v = 0; v < p->nvalues; v++)
      if (p->values[v].kind == TVM_PV_PARAM && p->values[v].layout &&
          strncmp(p->values[v].layout, "NK", 2) == 0)
        nr = atoll(p->values[v].layout + 2);
    for (const char *a = strstr(ir, "allocate "); a;
         a = strstr(a + 1, "allocate ")) {
      const char *sz = strstr(a, "[float32 * ");
      long long n = sz ? atoll(sz + strlen("[float32 * ")) : 0;
      if (n > floats) floats = n;
    }
    assert_true(nr > 0 && floats >= nr && floats % nr == 0);
    long long mr = floats / nr, most = 0;
    for (long long r = 0; r < mr; r++) {
      long long same = 0;
      for (long long q = 0; q < mr; q++)
        same += (q * K * 4) % way / 64 == (r * K * 4) % way / 64;
      if (same > most) most = same;
    }
    if (c == 0 && most > allowed)
      fail_msg("K = %lld: a block of %lld rows puts %lld rows of A in one "
               "set of a %ld-way L1 (at most %ld):\n%.2000s", (long long)K,
               mr, most, ways, allowed, ir);
    free(ir);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* MatMul of two inputs (attention's products): the plugin's batch matmul
 * template for 2-D to 4-D products, ragged rows, a broadcast batch, with
 * and without an epilogue, 13 and 37 columns (no vector width divides
 * them: a ragged last tile).  Results equal to the reference; for the 37
 * columns the register block is vector code in two versions (after the
 * vectorize pass: the local block allocated in each, and the ragged
 * tile's accesses masked). */
static void test_batch_matmul(void **state) {
  (void)state;
  static const struct { int nd; int64_t a[4], b[4]; int epi; } cs[] = {
      {3, {2, 5, 24}, {2, 24, 32}, 1},       {3, {3, 37, 16}, {3, 16, 64}, 0},
      {4, {2, 2, 8, 16}, {2, 2, 16, 48}, 1}, {3, {4, 7, 16}, {1, 16, 32}, 0},
      {3, {2, 6, 10}, {2, 10, 13}, 1},       {2, {9, 20}, {20, 32}, 0},
      {3, {3, 20, 16}, {3, 16, 37}, 0}};
  const tvm_plugin_strategy *st[8];
  int n = tvm_target_strategies(T, "MatMul", TVM_PAT_OUT_ELEMWISE_FUSABLE,
                                st, 8);
  assert_true(n >= 1);
  assert_string_equal(st[0]->name, "llvm-cpu.batch_matmul");
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
    tvm_graph *g = NULL;
    int nd = cs[c].nd;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, cs[c].a, nd);
    tvm_gvalue *w = tvm_graph_input(g, "w", F32, cs[c].b, nd);
    tvm_gvalue *y = tvm_graph_apply(g, "MatMul", "mm", TVM_IN(x, w), NULL, 0,
                                    1, NULL);
    if (cs[c].epi) {
      tvm_gvalue *b = tvm_graph_random(g, "b", &cs[c].b[nd - 1], 1, 60 + c,
                                       0.3);
      y = tvm_graph_apply(g, "Add", "add", TVM_IN(y, b), NULL, 0, 1, NULL);
      y = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
    }
    CHECK_OK(tvm_graph_mark_output(g, y));
    char *ir = NULL;
    tvm_plan *p = compile_check_vectorized(g, 100 + c, &ir);
    assert_int_equal(p->nsteps, 1);
    assert_int_equal(steps_with(p, "MatMul"), 1);
    if (cs[c].b[nd - 1] == 37) {
      const char *a1 = strstr(ir, "allocate");
      if (!a1 || !strstr(a1 + 1, "allocate") || !strstr(ir, "pred="))
        fail_msg("ragged tiles not versioned:\n%.3000s", ir);
    }
    free(ir);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* A ragged tile's accumulators stay in registers: in the LLVM IR of the
 * 37-column batch product (TVM_LLVM_DUMP), the local block's predicated
 * vector stores are plain stores of a select and its predicated loads
 * plain loads (the block is a stack buffer every lane of which is in
 * bounds), so llvm.masked.store is left only for the output (one site,
 * the epilogue's loop) where it was at every step of the reduction: 21
 * sites before, at 4-7x the time of a full tile on Zen 3. */
static void test_ragged_tile_registers(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){3, 20, 16}, 3);
  tvm_gvalue *w = tvm_graph_input(g, "w", F32, (int64_t[]){3, 16, 37}, 3);
  tvm_gvalue *y =
      tvm_graph_apply(g, "MatMul", "mm", TVM_IN(x, w), NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  const char *needle = "call void @llvm.masked.store";
  int stores = -1, files = 0;
  tvm_plan *p =
      compile_count_llvm(g, 120, NULL, ".raw.ll", &needle, &stores, 1, &files);
  assert_int_equal(files, 1);
  if (stores < 1 || stores > 2)
    fail_msg("%d llvm.masked.store sites in the ragged product's IR "
             "(expected the output's only)", stores);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Softmax and LayerNormalization over the last axis on the plugin's rows
 * template (rows in parallel, every reduction a vector of partial results
 * per row: an ".rf" stage): 197 (ragged), 64, 16 and 3 columns (one
 * narrow masked step), 2-D to 4-D, LayerNorm with and without B; results
 * equal to the reference; Softmax's exponentials computed once per element
 * into a row buffer ("sm.exp").  Softmax over two axes (opset 11, axis 1 of a
 * 3-D input), LayerNorm over two axes and with its Mean output are
 * declined to the generic schedule (no ".rf" stage), LogSoftmax is not
 * registered (strategy_rows.c); all still right. */
static void test_rows_template(void **state) {
  (void)state;
  static const struct { int nd; int64_t s[4]; const char *op; int opset, axis;
                        int bias, nout, templ; } cs[] = {
      {4, {1, 3, 5, 197}, "Softmax", 13, -1, 0, 1, 1},
      {2, {7, 64}, "LogSoftmax", 13, -1, 0, 1, 0},
      {3, {2, 3, 16}, "Softmax", 13, -1, 0, 1, 1},
      {2, {5, 3}, "Softmax", 13, -1, 0, 1, 1},
      {3, {1, 197, 192}, "LayerNormalization", 17, -1, 1, 1, 1},
      {2, {9, 37}, "LayerNormalization", 17, -1, 0, 1, 1},
      {3, {2, 3, 40}, "Softmax", 11, 1, 0, 1, 0},
      {3, {2, 3, 40}, "LayerNormalization", 17, 1, 0, 1, 0},
      {2, {4, 40}, "LayerNormalization", 17, -1, 1, 2, 0}};
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
    tvm_graph *g = NULL;
    int nd = cs[c].nd, ln = strcmp(cs[c].op, "LayerNormalization") == 0;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *in[3] = {tvm_graph_input(g, "x", F32, cs[c].s, nd)};
    int nin = 1;
    if (ln) { /* Scale (and B) of the normalized shape */
      int64_t shp[4];
      int r = 0;
      for (int d = cs[c].axis < 0 ? nd - 1 : cs[c].axis; d < nd; d++)
        shp[r++] = cs[c].s[d];
      in[nin++] = tvm_graph_random(g, "scale", shp, r, 120 + c, 1.0);
      if (cs[c].bias) in[nin++] = tvm_graph_random(g, "b", shp, r, 130 + c, 1.0);
    }
    tvm_gattr at[2] = {tvm_gattr_int("axis", cs[c].axis),
                       tvm_gattr_int("_opset", cs[c].opset)};
    tvm_gnode *node = NULL;
    assert_non_null(tvm_graph_apply(g, cs[c].op, "sm", in, nin, at, 2,
                                    cs[c].nout, &node));
    for (int k = 0; k < cs[c].nout; k++)
      CHECK_OK(tvm_graph_mark_output(g, node->outputs[k]));
    char *ir = NULL;
    tvm_plan *p = compile_check_vectorized(g, 110 + c, &ir);
    if ((strstr(ir, ".rf[") != NULL) != cs[c].templ)
      fail_msg("case %zu: template %s expected:\n%.2000s", c,
               cs[c].templ ? "" : "not", ir);
    /* Softmax's exponentials computed once, into a row of their own */
    if (cs[c].templ && strcmp(cs[c].op, "Softmax") == 0 &&
        !strstr(ir, "allocate sm.exp["))
      fail_msg("case %zu: no row of exponentials:\n%.2000s", c, ir);
    free(ir);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* Reduce* and the global pools on the reduce template (strategy_rows.c):
 * every kind over the last axis, over the last two and over all, with
 * and without keepdims, rows of 4096, 197, 37 (ragged) and 768 elements,
 * int32 sums and maxima, a Mul fused before a ReduceMean (LayerNorm as
 * opset-13 exporters write it); results equal to the reference, and the
 * template's factored ".rf" stage in the IR (rows of 3 too: one masked
 * step).  A reduction that leaves the last axis alone (axis 1 of
 * [4, 40, 64]) and a 0-d output are declined to the generic schedule (no
 * ".rf"), still right. */
static void test_reduce_template(void **state) {
  (void)state;
  static const struct {
    const char *op;
    int nd;
    int64_t s[4];
    int naxes;
    int64_t axes[3];
    int keep, i32, templ, sq;
  } cs[] = {
      {"ReduceSum", 2, {8, 4096}, 1, {1}, 1, 0, 1, 0},
      {"ReduceMean", 3, {2, 197, 768}, 1, {-1}, 1, 0, 1, 0},
      {"ReduceMax", 2, {5, 37}, 1, {1}, 0, 0, 1, 0},
      {"ReduceMin", 3, {3, 7, 37}, 2, {1, 2}, 1, 0, 1, 0},
      {"ReduceProd", 2, {6, 40}, 1, {1}, 1, 0, 1, 0},
      {"ReduceSumSquare", 2, {6, 100}, 1, {1}, 0, 0, 1, 0},
      {"ReduceL1", 2, {6, 100}, 1, {1}, 1, 0, 1, 0},
      {"ReduceL2", 3, {2, 6, 100}, 1, {2}, 1, 0, 1, 0},
      {"ReduceLogSum", 2, {6, 100}, 1, {1}, 1, 0, 1, 0},
      {"ReduceLogSumExp", 2, {6, 100}, 1, {1}, 0, 0, 1, 0},
      {"ReduceSum", 3, {2, 3, 50}, 3, {0, 1, 2}, 1, 0, 1, 0},
      {"ReduceSum", 2, {9, 300}, 1, {1}, 1, 1, 1, 0},
      {"ReduceMax", 2, {9, 300}, 1, {1}, 0, 1, 1, 0},
      {"GlobalAveragePool", 4, {1, 8, 14, 14}, 0, {0}, 1, 0, 1, 0},
      {"GlobalMaxPool", 4, {2, 3, 7, 9}, 0, {0}, 1, 0, 1, 0},
      {"ReduceSum", 3, {4, 40, 64}, 1, {1}, 1, 0, 0, 0},
      {"ReduceMean", 2, {40, 3}, 1, {1}, 1, 0, 1, 0},
      {"ReduceSum", 2, {16, 64}, 2, {0, 1}, 0, 0, 0, 0},
      {"ReduceMean", 3, {1, 16, 64}, 1, {-1}, 1, 0, 1, 1}};
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", cs[c].i32 ? TVM_I32 : F32,
                                    cs[c].s, cs[c].nd);
    if (cs[c].sq)
      x = tvm_graph_apply(g, "Mul", "sq", TVM_IN(x, x), NULL, 0, 1, NULL);
    tvm_gattr at[3];
    int na = 0;
    if (cs[c].naxes)
      at[na++] = tvm_gattr_ints("axes", cs[c].axes, cs[c].naxes);
    at[na++] = tvm_gattr_int("keepdims", cs[c].keep);
    at[na++] = tvm_gattr_int("_opset", 11);
    int pool = strncmp(cs[c].op, "Global", 6) == 0;
    tvm_gvalue *y = tvm_graph_apply(g, cs[c].op, "r", TVM_IN(x), at,
                                    pool ? 0 : na, 1, NULL);
    assert_non_null(y);
    CHECK_OK(tvm_graph_mark_output(g, y));
    char *ir = NULL;
    tvm_plan *p = compile_check_vectorized(g, 150 + c, &ir);
    assert_int_equal(p->nsteps, 1); /* the Mul fused into the reduction */
    if ((strstr(ir, ".rf[") != NULL) != cs[c].templ)
      fail_msg("case %zu (%s): template %s expected:\n%.2000s", c, cs[c].op,
               cs[c].templ ? "" : "not", ir);
    if (cs[c].sq && strstr(ir, "allocate sq"))
      fail_msg("case %zu: the Mul not inlined into the reduction:\n%.2000s",
               c, ir);
    free(ir);
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* A fixed query: every matrix product's B as NK4n (or a bad layout). */
static tvm_status query_nk(void *ud, const tvm_gnode *n, tvm_layout_choice *c) {
  snprintf(c->weight, sizeof c->weight, "%s", (const char *)ud);
  (void)n;
  return TVM_OK;
}

/* The pass alone on a MatMul of 10 columns packed by 4: three panels, the
 * last half zero; the output keeps its name and its values; a layout that
 * is not NK<nr>n is an error naming the node and the fix. */
static void test_matmul_pass_alone(void **state) {
  (void)state;
  for (int bad = 0; bad < 2; bad++) {
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){3, 7}, 2);
    tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){7, 10}, 2, 5, 0.5);
    tvm_gvalue *y = tvm_graph_apply(g, "MatMul", "y", TVM_IN(x, w), NULL, 0, 1, NULL);
    CHECK_OK(tvm_graph_mark_output(g, y));
    if (bad) {
      assert_int_equal(tvm_graph_pass_alter_layout(g, query_nk, "NK4c"),
                       TVM_ERR_INVALID);
      assert_non_null(strstr(tvm_diag_message(), "NK<nr>n"));
      assert_non_null(strstr(tvm_diag_message(), "'y'"));
      tvm_graph_free(g);
      continue;
    }
    tensors in, want, got;
    tensors_alloc(&in, &g->inputs, 12);
    eval_graph(g, &in, &want);
    CHECK_OK(tvm_graph_pass_alter_layout(g, query_nk, "NK4n"));
    CHECK_OK(tvm_graph_pass_fold_constants(g));
    assert_int_equal(count_op(g, "MatMul"), 0);
    assert_int_equal(count_op(g, "MatMul_packed"), 1);
    assert_int_equal(count_op(g, "LayoutTransform"), 0); /* folded */
    tvm_gnode *n = NULL;
    for (size_t i = 0; i < g->nodes.len; i++)
      if (!strcmp(((tvm_gnode *)g->nodes.data[i])->op, "MatMul_packed"))
        n = g->nodes.data[i];
    assert_non_null(n);
    const tvm_gvalue *bp = n->inputs[1];
    assert_int_equal(bp->ndim, 3);
    assert_int_equal(bp->shape[0], 3);
    assert_int_equal(bp->shape[1], 7);
    assert_int_equal(bp->shape[2], 4);
    assert_string_equal(((tvm_gvalue *)g->outputs.data[0])->name, "y");
    eval_graph(g, &in, &got);
    expect_close(&got, &want, 1e-6);
    tensors_free(&in);
    tensors_free(&want);
    tensors_free(&got);
    tvm_graph_free(g);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dense),
      cmocka_unit_test(test_matmul_packed),
      cmocka_unit_test(test_matmul_packed_ragged),
      cmocka_unit_test(test_matmul_packed_image_rows),
      cmocka_unit_test(test_matmul_packed_few_rows),
      cmocka_unit_test(test_matmul_packed_aliased_rows),
      cmocka_unit_test(test_batch_matmul),
      cmocka_unit_test(test_ragged_tile_registers),
      cmocka_unit_test(test_rows_template),
      cmocka_unit_test(test_reduce_template),
      cmocka_unit_test(test_matmul_pass_alone),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
