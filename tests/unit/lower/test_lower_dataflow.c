/*
 * tests/unit/lower/test_lower_dataflow.c - lowering of the dataflow
 * rewrites: cache_write into "local" computed under the output tile (the
 * classic CPU matmul schedule), cache_read computed at a reduction loop,
 * rfactor, and storage_align; compared as printed IR after schedule_ops
 * and after storage_flatten.
 */
#include "lower_test.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../te/examples.h"

/* The classic CPU matmul: C tiled 8x8, a local accumulator computed at
 * the tile, its reduction split by 4 with the k loop outermost. */
static void classic(fixture *f, tvm_tensor **C, tvm_tensor **CC,
                    tvm_tensor *in[2]) {
  *C = example_matmul(f->c, 32, 32, 32, in);
  tvm_schedule *s = sched(f, *C);
  assert_int_equal(tvm_cache_write(s, *C, "local", CC), TVM_OK);
  tvm_stage *sc = tvm_stage_of(s, *C), *scc = tvm_stage_of(s, *CC);
  tvm_iter_var *xo, *yo, *xi, *yi;
  assert_int_equal(tvm_tile(sc, tvm_stage_axis(sc, 0), tvm_stage_axis(sc, 1),
                            8, 8, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(scc, sc, yo), TVM_OK);
  tvm_iter_var *xc = tvm_stage_axis(scc, 0), *yc = tvm_stage_axis(scc, 1);
  tvm_iter_var *ko, *ki;
  assert_int_equal(tvm_split(scc, tvm_stage_reduce_axis(scc, 0), 4, &ko, &ki),
                   TVM_OK);
  assert_int_equal(tvm_reorder(scc, (tvm_iter_var *[]){ko, xc, ki, yc}, 4),
                   TVM_OK);
  assert_int_equal(tvm_unroll(scc, ki), TVM_OK);
  assert_int_equal(tvm_vectorize(scc, yc), TVM_OK);
}

static void test_cache_write_classic(void **state) {
  fixture *f = *state;
  tvm_tensor *C, *CC, *in[2];
  classic(f, &C, &CC, in);
  expect_ops(f->s,
            "realize C([0, 32], [0, 32]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 4) {\n"
            "    for (j.outer, 0, 4) {\n"
            "      realize C.local([i.outer * 8, 8], [j.outer * 8, 8]) scope=local {\n"
            "        // attr produce = \"C.local\"\n"
            "        for (i.init, 0, 8) {\n"
            "          for (j.init, 0, 8) vectorized {\n"
            "            C.local(i.init + i.outer * 8, j.init + j.outer * 8) = 0.0f\n"
            "          }\n"
            "        }\n"
            "        for (k.outer, 0, 8) {\n"
            "          for (i, 0, 8) {\n"
            "            for (k.inner, 0, 4) unrolled {\n"
            "              for (j, 0, 8) vectorized {\n"
            "                C.local(i + i.outer * 8, j + j.outer * 8) = C.local(i + i.outer * 8, j + j.outer * 8) + A(i + i.outer * 8, k.outer * 4 + k.inner) * B(k.outer * 4 + k.inner, j + j.outer * 8)\n"
            "              }\n"
            "            }\n"
            "          }\n"
            "        }\n"
            "        for (i.inner, 0, 8) {\n"
            "          for (j.inner, 0, 8) {\n"
            "            C(i.outer * 8 + i.inner, j.outer * 8 + j.inner) = C.local(i.outer * 8 + i.inner, j.outer * 8 + j.inner)\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_cache_write_classic_flat(void **state) {
  fixture *f = *state;
  tvm_tensor *C, *CC, *in[2];
  classic(f, &C, &CC, in);
  expect_flat(f->s, (tvm_tensor *[]){in[0], in[1], C}, 3,
            "func f(A: float32[32, 32], B: float32[32, 32], C: float32[32, 32]) {\n"
            "  for (i.outer, 0, 4) {\n"
            "    for (j.outer, 0, 4) {\n"
            "      allocate C.local[float32 * 64] scope=local\n"
            "      for (i.init, 0, 8) {\n"
            "        for (j.init, 0, 8) vectorized {\n"
            "          C.local[i.init * 8 + j.init] = 0.0f\n"
            "        }\n"
            "      }\n"
            "      for (k.outer, 0, 8) {\n"
            "        for (i, 0, 8) {\n"
            "          for (k.inner, 0, 4) unrolled {\n"
            "            for (j, 0, 8) vectorized {\n"
            "              C.local[i * 8 + j] = C.local[i * 8 + j] + A[i * 32 + i.outer * 256 + k.outer * 4 + k.inner] * B[k.outer * 128 + k.inner * 32 + j + j.outer * 8]\n"
            "            }\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "      for (i.inner, 0, 8) {\n"
            "        for (j.inner, 0, 8) {\n"
            "          C[i.outer * 256 + i.inner * 32 + j.outer * 8 + j.inner] = C.local[i.inner * 8 + j.inner]\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* A copied into "local" per reduction step of the matmul. */
static void test_cache_read(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 16, 16, 16, in);
  tvm_schedule *s = sched(f, C);
  tvm_tensor *AL;
  tvm_operation *readers[1] = {tvm_stage_of(s, C)->op};
  assert_int_equal(tvm_cache_read(s, in[0], "local", readers, 1, &AL), TVM_OK);
  tvm_stage *sc = tvm_stage_of(s, C);
  tvm_iter_var *ko, *ki;
  assert_int_equal(tvm_split(sc, tvm_stage_reduce_axis(sc, 0), 4, &ko, &ki),
                   TVM_OK);
  tvm_iter_var *i = tvm_stage_axis(sc, 0), *j = tvm_stage_axis(sc, 1);
  assert_int_equal(tvm_reorder(sc, (tvm_iter_var *[]){i, ko, j, ki}, 4),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, AL), sc, ko), TVM_OK);
  expect_ops(s,
            "realize C([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i_1, 0, 16) {\n"
            "    for (j.init, 0, 16) {\n"
            "      C(i_1, j.init) = 0.0f\n"
            "    }\n"
            "    for (k.outer, 0, 4) {\n"
            "      realize A.local([i_1, 1], [k.outer * 4, 4]) scope=local {\n"
            "        // attr produce = \"A.local\"\n"
            "        for (i_4, 0, 1) {\n"
            "          for (j_5, 0, 4) {\n"
            "            A.local(i_4 + i_1, j_5 + k.outer * 4) = A(i_4 + i_1, j_5 + k.outer * 4)\n"
            "          }\n"
            "        }\n"
            "        for (j_2, 0, 16) {\n"
            "          for (k.inner, 0, 4) {\n"
            "            C(i_1, j_2) = C(i_1, j_2) + A.local(i_1, k.outer * 4 + k.inner) * B(k.outer * 4 + k.inner, j_2)\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  expect_flat(s, (tvm_tensor *[]){in[0], in[1], C}, 3,
            "func f(A: float32[16, 16], B: float32[16, 16], C: float32[16, 16]) {\n"
            "  for (i, 0, 16) {\n"
            "    for (j.init, 0, 16) {\n"
            "      C[i * 16 + j.init] = 0.0f\n"
            "    }\n"
            "    for (k.outer, 0, 4) {\n"
            "      allocate A.local[float32 * 4] scope=local\n"
            "      for (j_5, 0, 4) {\n"
            "        A.local[j_5] = A[i * 16 + j_5 + k.outer * 4]\n"
            "      }\n"
            "      for (j_2, 0, 16) {\n"
            "        for (k.inner, 0, 4) {\n"
            "          C[i * 16 + j_2] = C[i * 16 + j_2] + A.local[k.inner] * B[k.outer * 64 + k.inner * 16 + j_2]\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* sum over k of A[i, k], the reduction factored by 4 lanes. */
static tvm_expr *rowsum(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, A->shape_c[1]);
  return tvm_sum(c, TVM_AT(c, A, i[0], k->var), &k, 1);
}

static void test_rfactor(void **state) {
  fixture *f = *state;
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){8, 32}, 2);
  tvm_tensor *S = tvm_compute(f->c, "S", (int64_t[]){8}, 1, rowsum, A);
  tvm_schedule *s = sched(f, S);
  tvm_stage *ss = tvm_stage_of(s, S);
  tvm_iter_var *ko, *ki;
  assert_int_equal(tvm_split(ss, tvm_stage_reduce_axis(ss, 0), 4, &ko, &ki),
                   TVM_OK);
  tvm_tensor *SF;
  assert_int_equal(tvm_rfactor(s, S, ki, 0, &SF), TVM_OK);
  expect_ops(s,
            "realize S.rf([0, 4], [0, 8]) scope=global {\n"
            "  // attr produce = \"S.rf\"\n"
            "  for (k.inner, 0, 4) {\n"
            "    for (i_6, 0, 8) {\n"
            "      S.rf(k.inner, i_6) = 0.0f\n"
            "      for (k.outer, 0, 8) {\n"
            "        S.rf(k.inner, i_6) = S.rf(k.inner, i_6) + A(i_6, k.outer * 4 + k.inner)\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "  realize S([0, 8]) scope=global {\n"
            "    // attr produce = \"S\"\n"
            "    for (i_1, 0, 8) {\n"
            "      S(i_1) = 0.0f\n"
            "      for (k.inner.v, 0, 4) {\n"
            "        S(i_1) = S(i_1) + S.rf(k.inner.v, i_1)\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* B = A * 2 computed at root with its rows padded so that the row stride
 * is 16k + 4 elements; C = B + 1. */
static tvm_expr *times2(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  return tvm_mul(c, TVM_AT(c, A, i[0], i[1]), tvm_f32(c, 2.0));
}
static tvm_expr *plus1(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *B = ud;
  return tvm_add(c, TVM_AT(c, B, i[0], i[1]), tvm_f32(c, 1.0));
}

static void test_storage_align(void **state) {
  fixture *f = *state;
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){8, 16}, 2);
  tvm_tensor *B = tvm_compute(f->c, "B", (int64_t[]){8, 16}, 2, times2, A);
  tvm_tensor *C = tvm_compute(f->c, "C", (int64_t[]){8, 16}, 2, plus1, B);
  tvm_schedule *s = sched(f, C);
  tvm_stage *sb = tvm_stage_of(s, B);
  assert_int_equal(tvm_storage_align(sb, tvm_stage_axis(sb, 0), 16, 4), TVM_OK);
  expect_ops(s,
            "// attr realize_storage_align = tvm_tuple(0, 16, 4)\n"
            "realize B([0, 8], [0, 16]) scope=global {\n"
            "  // attr produce = \"B\"\n"
            "  for (i_1, 0, 8) {\n"
            "    for (j_2, 0, 16) {\n"
            "      B(i_1, j_2) = A(i_1, j_2) * 2.0f\n"
            "    }\n"
            "  }\n"
            "  realize C([0, 8], [0, 16]) scope=global {\n"
            "    // attr produce = \"C\"\n"
            "    for (i_3, 0, 8) {\n"
            "      for (j_4, 0, 16) {\n"
            "        C(i_3, j_4) = B(i_3, j_4) + 1.0f\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  expect_flat(s, (tvm_tensor *[]){A, C}, 2,
            "func f(A: float32[8, 16], C: float32[8, 16]) {\n"
            "  allocate B[float32 * 160] scope=global\n"
            "  for (i_1, 0, 8) {\n"
            "    for (j_2, 0, 16) {\n"
            "      B[i_1 * 20 + j_2] = A[i_1 * 16 + j_2] * 2.0f\n"
            "    }\n"
            "  }\n"
            "  for (i_3, 0, 8) {\n"
            "    for (j_4, 0, 16) {\n"
            "      C[i_3 * 16 + j_4] = B[i_3 * 20 + j_4] + 1.0f\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* A staged in shared memory per reduction step and in local memory per
 * inner step: the shared tile covers every inner step below it. */
static void test_cache_read_chain(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 16, 16, 16, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *sc = tvm_stage_of(s, C);
  tvm_operation *rd[1] = {sc->op};
  tvm_tensor *AS, *AL;
  assert_int_equal(tvm_cache_read(s, in[0], "shared", rd, 1, &AS), TVM_OK);
  rd[0] = tvm_stage_of(s, C)->op;
  assert_int_equal(tvm_cache_read(s, AS, "local", rd, 1, &AL), TVM_OK);
  tvm_iter_var *ko, *ki;
  assert_int_equal(tvm_split(sc, tvm_stage_reduce_axis(sc, 0), 8, &ko, &ki),
                   TVM_OK);
  tvm_iter_var *i = tvm_stage_axis(sc, 0), *j = tvm_stage_axis(sc, 1);
  assert_int_equal(tvm_reorder(sc, (tvm_iter_var *[]){i, ko, ki, j}, 4),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, AS), sc, ko), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, AL), sc, ki), TVM_OK);
  expect_ops(s,
            "realize C([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i_1, 0, 16) {\n"
            "    for (j.init, 0, 16) {\n"
            "      C(i_1, j.init) = 0.0f\n"
            "    }\n"
            "    for (k.outer, 0, 2) {\n"
            "      realize A.shared([i_1, 1], [k.outer * 8, 8]) scope=shared {\n"
            "        // attr produce = \"A.shared\"\n"
            "        for (i_4, 0, 1) {\n"
            "          for (j_5, 0, 8) {\n"
            "            A.shared(i_4 + i_1, j_5 + k.outer * 8) = A(i_4 + i_1, j_5 + k.outer * 8)\n"
            "          }\n"
            "        }\n"
            "        for (k.inner, 0, 8) {\n"
            "          realize A.shared.local([i_1, 1], [k.outer * 8 + k.inner, 1]) scope=local {\n"
            "            // attr produce = \"A.shared.local\"\n"
            "            for (i_6, 0, 1) {\n"
            "              for (j_7, 0, 1) {\n"
            "                A.shared.local(i_6 + i_1, j_7 + k.outer * 8 + k.inner) = A.shared(i_6 + i_1, j_7 + k.outer * 8 + k.inner)\n"
            "              }\n"
            "            }\n"
            "            for (j_2, 0, 16) {\n"
            "              C(i_1, j_2) = C(i_1, j_2) + A.shared.local(i_1, k.outer * 8 + k.inner) * B(k.outer * 8 + k.inner, j_2)\n"
            "            }\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* Padded conv2d: the padding inlined into the convolution, or computed
 * per output row (its region is the rows the 3x3 window needs). */
static void test_conv_pad_inline(void **state) {
  fixture *f = *state;
  tvm_tensor *in[3];
  tvm_tensor *out = example_conv2d(f->c, 1, 2, 4, 4, 2, in);
  tvm_schedule *s = sched(f, out);
  assert_int_equal(tvm_compute_inline(tvm_stage_of(s, in[2])), TVM_OK);
  expect_flat(s, (tvm_tensor *[]){in[0], in[1], out}, 3,
            "func f(A: float32[1, 2, 4, 4], W: float32[2, 2, 3, 3], Conv: float32[1, 2, 4, 4]) {\n"
            "  for (j, 0, 2) {\n"
            "    for (k, 0, 4) {\n"
            "      for (l, 0, 4) {\n"
            "        Conv[j * 16 + k * 4 + l] = 0.0f\n"
            "        for (rc, 0, 2) {\n"
            "          for (ry, 0, 3) {\n"
            "            for (rx, 0, 3) {\n"
            "              Conv[j * 16 + k * 4 + l] = Conv[j * 16 + k * 4 + l] + select(k + ry - 1 >= 0 && k + ry - 1 < 4 && (l + rx - 1 >= 0 && l + rx - 1 < 4), A[rc * 16 + max(min(k + ry - 1, 3), 0) * 4 + max(min(l + rx - 1, 3), 0)], 0.0f) * W[j * 18 + rc * 9 + ry * 3 + rx]\n"
            "            }\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_conv_pad_compute_at(void **state) {
  fixture *f = *state;
  tvm_tensor *in[3];
  tvm_tensor *out = example_conv2d(f->c, 1, 2, 4, 4, 2, in);
  tvm_schedule *s = sched(f, out);
  tvm_stage *so = tvm_stage_of(s, out);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, in[2]), so,
                                  tvm_stage_axis(so, 2)),
                   TVM_OK);
  expect_ops(s,
            "realize Conv([0, 1], [0, 2], [0, 4], [0, 4]) scope=global {\n"
            "  // attr produce = \"Conv\"\n"
            "  for (i_5, 0, 1) {\n"
            "    for (j_6, 0, 2) {\n"
            "      for (k_7, 0, 4) {\n"
            "        realize Apad([i_5, 1], [0, 2], [k_7, 3], [0, 6]) scope=global {\n"
            "          // attr produce = \"Apad\"\n"
            "          for (i_1, 0, 1) {\n"
            "            for (j_2, 0, 2) {\n"
            "              for (k_3, 0, 3) {\n"
            "                for (l_4, 0, 6) {\n"
            "                  Apad(i_1 + i_5, j_2, k_3 + k_7, l_4) = select(k_3 + k_7 - 1 >= 0 && k_3 + k_7 - 1 < 4 && (l_4 - 1 >= 0 && l_4 - 1 < 4), A(i_1 + i_5, j_2, max(min(k_3 + k_7 - 1, 3), 0), max(min(l_4 - 1, 3), 0)), 0.0f)\n"
            "                }\n"
            "              }\n"
            "            }\n"
            "          }\n"
            "          for (l_8, 0, 4) {\n"
            "            Conv(i_5, j_6, k_7, l_8) = 0.0f\n"
            "            for (rc, 0, 2) {\n"
            "              for (ry, 0, 3) {\n"
            "                for (rx, 0, 3) {\n"
            "                  Conv(i_5, j_6, k_7, l_8) = Conv(i_5, j_6, k_7, l_8) + Apad(i_5, rc, k_7 + ry, l_8 + rx) * W(j_6, rc, ry, rx)\n"
            "                }\n"
            "              }\n"
            "            }\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* Symbolic sizes: B[n] = A[n] * 2 takes n as a scalar parameter. */
static tvm_expr *times2_1d(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  return tvm_mul(c, TVM_AT(c, A, i[0]), tvm_f32(c, 2.0));
}

static void test_symbolic_shape(void **state) {
  fixture *f = *state;
  tvm_expr *n = tvm_var(f->c, "n", TVM_I32);
  tvm_tensor *A = tvm_placeholder_sym(f->c, "A", TVM_F32, &n, 1);
  tvm_tensor *B = tvm_compute_sym(f->c, "B", &n, 1, times2_1d, A);
  tvm_schedule *s = sched(f, B);
  tvm_stage *st = tvm_stage_of(s, B);
  tvm_iter_var *o, *i;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 8, &o, &i), TVM_OK);
  tvm_lower_options opt;
  tvm_lower_options_init(&opt);
  tvm_module m = {f->c, NULL, 0};
  assert_int_equal(tvm_lower(s, (tvm_tensor *[]){A, B}, 2, "scale", &opt, &m),
                   TVM_OK);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_func(&b, m.funcs[0]);
  expect_text(b.data,
            "func scale(A: float32[n], B: float32[n], n: int32) {\n"
            "  for (i.outer, 0, floordiv(n + 7, 8)) {\n"
            "    for (i.inner, 0, 8) {\n"
            "      if (i.outer * 8 + i.inner < n) {\n"
            "        B[i.outer * 8 + i.inner] = A[i.outer * 8 + i.inner] * 2.0f\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  tvm_strbuf_free(&b);
}

/* double_buffer marks the staged buffer for the pipeline passes. */
static void test_double_buffer(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 8, 8, 8, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *sc = tvm_stage_of(s, C);
  tvm_operation *rd[1] = {sc->op};
  tvm_tensor *AS;
  assert_int_equal(tvm_cache_read(s, in[0], "local", rd, 1, &AS), TVM_OK);
  tvm_iter_var *ko, *ki;
  assert_int_equal(tvm_split(sc, tvm_stage_reduce_axis(sc, 0), 4, &ko, &ki),
                   TVM_OK);
  tvm_stage *sa = tvm_stage_of(s, AS);
  assert_int_equal(tvm_compute_at(sa, sc, ko), TVM_OK);
  assert_int_equal(tvm_double_buffer(sa), TVM_OK);
  expect_ops(s,
            "realize C([0, 8], [0, 8]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i_1, 0, 8) {\n"
            "    for (j_2, 0, 8) {\n"
            "      C(i_1, j_2) = 0.0f\n"
            "      for (k.outer, 0, 2) {\n"
            "        realize A.local([i_1, 1], [k.outer * 4, 4]) scope=local {\n"
            "          // attr realize_double_buffer = 1\n"
            "          // attr produce = \"A.local\"\n"
            "          for (i_4, 0, 1) {\n"
            "            for (j_5, 0, 4) {\n"
            "              A.local(i_4 + i_1, j_5 + k.outer * 4) = A(i_4 + i_1, j_5 + k.outer * 4)\n"
            "            }\n"
            "          }\n"
            "          for (k.inner, 0, 4) {\n"
            "            C(i_1, j_2) = C(i_1, j_2) + A.local(i_1, k.outer * 4 + k.inner) * B(k.outer * 4 + k.inner, j_2)\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  expect_flat(s, (tvm_tensor *[]){in[0], in[1], C}, 3,
            "func f(A: float32[8, 8], B: float32[8, 8], C: float32[8, 8]) {\n"
            "  for (i, 0, 8) {\n"
            "    for (j_2, 0, 8) {\n"
            "      C[i * 8 + j_2] = 0.0f\n"
            "      for (k.outer, 0, 2) {\n"
            "        allocate A.local[float32 * 4] scope=local\n"
            "        // attr [A.local] double_buffer_scope = 1\n"
            "        for (j_5, 0, 4) {\n"
            "          A.local[j_5] = A[i * 8 + j_5 + k.outer * 4]\n"
            "        }\n"
            "        for (k.inner, 0, 4) {\n"
            "          C[i * 8 + j_2] = C[i * 8 + j_2] + A.local[k.inner] * B[k.outer * 32 + k.inner * 8 + j_2]\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cache_write_classic, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cache_write_classic_flat, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cache_read, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rfactor, setup, teardown),
      cmocka_unit_test_setup_teardown(test_storage_align, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cache_read_chain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv_pad_inline, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv_pad_compute_at, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_symbolic_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_double_buffer, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
