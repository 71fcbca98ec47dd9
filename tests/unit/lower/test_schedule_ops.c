/*
 * tests/unit/lower/test_schedule_ops.c - loop nests made by bound
 * inference + schedule_ops, compared as printed IR: the plain matmul,
 * split (with and without a guard), tile + reorder, fuse, compute_at under
 * a tile, compute_inline, a split reduction, and pragmas.
 */
#include "lower_test.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../te/examples.h"

/* B = A * 2, C = B + 1 over n x n. */
static tvm_expr *times2(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  return tvm_mul(c, TVM_AT(c, A, i[0], i[1]), tvm_f32(c, 2.0));
}
static tvm_expr *plus1(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *B = ud;
  return tvm_add(c, TVM_AT(c, B, i[0], i[1]), tvm_f32(c, 1.0));
}
static tvm_tensor *two_stages(tvm_ctx *c, int64_t n, tvm_tensor **A,
                              tvm_tensor **B) {
  *A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){n, n}, 2);
  *B = tvm_compute(c, "B", (int64_t[]){n, n}, 2, times2, *A);
  return tvm_compute(c, "C", (int64_t[]){n, n}, 2, plus1, *B);
}

static void test_matmul_plain(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_schedule *s = sched(f, example_matmul(f->c, 16, 16, 16, in));
  expect_ops(s,
            "realize C([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i, 0, 16) {\n"
            "    for (j, 0, 16) {\n"
            "      C(i, j) = 0.0f\n"
            "      for (k, 0, 16) {\n"
            "        C(i, j) = C(i, j) + A(i, k) * B(k, j)\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_split_divides(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B;
  tvm_tensor *C = two_stages(f->c, 16, &A, &B);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *o, *i;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 4, &o, &i), TVM_OK);
  assert_int_equal(tvm_compute_inline(tvm_stage_of(s, B)), TVM_OK);
  expect_ops(s,
            "realize C([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 4) {\n"
            "    for (i.inner, 0, 4) {\n"
            "      for (j, 0, 16) {\n"
            "        C(i.outer * 4 + i.inner, j) = A(i.outer * 4 + i.inner, j) * 2.0f + 1.0f\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_split_guard(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B;
  tvm_tensor *C = two_stages(f->c, 10, &A, &B);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *o, *i;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 1), 4, &o, &i), TVM_OK);
  assert_int_equal(tvm_compute_inline(tvm_stage_of(s, B)), TVM_OK);
  expect_ops(s,
            "realize C([0, 10], [0, 10]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i, 0, 10) {\n"
            "    for (j.outer, 0, 3) {\n"
            "      for (j.inner, 0, 4) {\n"
            "        if (j.outer * 4 + j.inner < 10) {\n"
            "          C(i, j.outer * 4 + j.inner) = A(i, j.outer * 4 + j.inner) * 2.0f + 1.0f\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_tile_reorder(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 16, 16, 16, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *xo, *yo, *xi, *yi;
  assert_int_equal(tvm_tile(st, tvm_stage_axis(st, 0), tvm_stage_axis(st, 1),
                            8, 8, &xo, &yo, &xi, &yi),
                   TVM_OK);
  tvm_iter_var *k = tvm_stage_reduce_axis(st, 0);
  assert_int_equal(tvm_reorder(st, (tvm_iter_var *[]){xo, yo, k, xi, yi}, 5),
                   TVM_OK);
  expect_ops(s,
            "realize C([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 2) {\n"
            "    for (j.outer, 0, 2) {\n"
            "      for (i.inner.init, 0, 8) {\n"
            "        for (j.inner.init, 0, 8) {\n"
            "          C(i.outer * 8 + i.inner.init, j.outer * 8 + j.inner.init) = 0.0f\n"
            "        }\n"
            "      }\n"
            "      for (k, 0, 16) {\n"
            "        for (i.inner, 0, 8) {\n"
            "          for (j.inner, 0, 8) {\n"
            "            C(i.outer * 8 + i.inner, j.outer * 8 + j.inner) = C(i.outer * 8 + i.inner, j.outer * 8 + j.inner) + A(i.outer * 8 + i.inner, k) * B(k, j.outer * 8 + j.inner)\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_fuse(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B;
  tvm_tensor *C = two_stages(f->c, 16, &A, &B);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *fused;
  assert_int_equal(tvm_fuse(st, tvm_stage_axis(st, 0), tvm_stage_axis(st, 1),
                            &fused),
                   TVM_OK);
  assert_int_equal(tvm_parallel(st, fused), TVM_OK);
  expect_ops(s,
            "realize B([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"B\"\n"
            "  for (i, 0, 16) {\n"
            "    for (j, 0, 16) {\n"
            "      B(i, j) = A(i, j) * 2.0f\n"
            "    }\n"
            "  }\n"
            "  realize C([0, 16], [0, 16]) scope=global {\n"
            "    // attr produce = \"C\"\n"
            "    for (i.j.fused, 0, 256) parallel {\n"
            "      C(floordiv(i.j.fused, 16), floormod(i.j.fused, 16)) = B(floordiv(i.j.fused, 16), floormod(i.j.fused, 16)) + 1.0f\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_compute_at_tile(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B;
  tvm_tensor *C = two_stages(f->c, 16, &A, &B);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *xo, *yo, *xi, *yi;
  assert_int_equal(tvm_tile(st, tvm_stage_axis(st, 0), tvm_stage_axis(st, 1),
                            4, 4, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, B), st, yo), TVM_OK);
  expect_ops(s,
            "realize C([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 4) {\n"
            "    for (j.outer, 0, 4) {\n"
            "      realize B([i.outer * 4, 4], [j.outer * 4, 4]) scope=global {\n"
            "        // attr produce = \"B\"\n"
            "        for (i, 0, 4) {\n"
            "          for (j, 0, 4) {\n"
            "            B(i + i.outer * 4, j + j.outer * 4) = A(i + i.outer * 4, j + j.outer * 4) * 2.0f\n"
            "          }\n"
            "        }\n"
            "        for (i.inner, 0, 4) {\n"
            "          for (j.inner, 0, 4) {\n"
            "            C(i.outer * 4 + i.inner, j.outer * 4 + j.inner) = B(i.outer * 4 + i.inner, j.outer * 4 + j.inner) + 1.0f\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_compute_at_edge(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B;
  tvm_tensor *C = two_stages(f->c, 10, &A, &B);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *o, *i;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 4, &o, &i), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, B), st, o), TVM_OK);
  expect_ops(s,
            "realize C([0, 10], [0, 10]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 3) {\n"
            "    realize B([i.outer * 4, 4], [0, 10]) scope=global {\n"
            "      // attr produce = \"B\"\n"
            "      for (i, 0, 4) {\n"
            "        for (j_2, 0, 10) {\n"
            "          if (i + i.outer * 4 < 10) {\n"
            "            B(i + i.outer * 4, j_2) = A(i + i.outer * 4, j_2) * 2.0f\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "      for (i.inner, 0, 4) {\n"
            "        for (j_4, 0, 10) {\n"
            "          if (i.outer * 4 + i.inner < 10) {\n"
            "            C(i.outer * 4 + i.inner, j_4) = B(i.outer * 4 + i.inner, j_4) + 1.0f\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* B = A * 2 over 24 rows; C[b, h, w] = B[h*6 + w] + 1 over [1, 4, 6]:
 * a product over flattened rows read back as an image. */
static tvm_expr *times2_1d(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  return tvm_mul(c, TVM_AT(c, A, i[0]), tvm_f32(c, 2.0));
}
static tvm_expr *plus1_image(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *B = ud;
  tvm_expr *row = tvm_add(c, tvm_mul(c, i[1], tvm_int(c, 6)), i[2]);
  return tvm_add(c, TVM_AT(c, B, row), tvm_f32(c, 1.0));
}

/* The image's three axes fused and split by 4, B computed at the outer
 * loop: B's index, written in the loop, is floordiv(floormod(f, 24),
 * 6)*6 + floormod(f, 6) for f = o*4 + i, which is f in [0, 24): the
 * region is the four rows at o*4, not all 24 (the rows of a tile would
 * each compute the whole product). */
static void test_compute_at_flattened_rows(void **state) {
  fixture *f = *state;
  tvm_ctx *c = f->c;
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){24}, 1);
  tvm_tensor *B = tvm_compute(c, "B", (int64_t[]){24}, 1, times2_1d, A);
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){1, 4, 6}, 3, plus1_image, B);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *hw, *bhw, *o, *i;
  assert_int_equal(tvm_fuse(st, tvm_stage_axis(st, 1), tvm_stage_axis(st, 2), &hw),
                   TVM_OK);
  assert_int_equal(tvm_fuse(st, tvm_stage_axis(st, 0), hw, &bhw), TVM_OK);
  assert_int_equal(tvm_split(st, bhw, 4, &o, &i), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, B), st, o), TVM_OK);
  expect_ops(s,
            "realize C([0, 1], [0, 4], [0, 6]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.j.k.fused.fused.outer, 0, 6) {\n"
            "    realize B([i.j.k.fused.fused.outer * 4, 4]) scope=global {\n"
            "      // attr produce = \"B\"\n"
            "      for (i, 0, 4) {\n"
            "        B(i + i.j.k.fused.fused.outer * 4) = A(i + i.j.k.fused.fused.outer * 4) * 2.0f\n"
            "      }\n"
            "      for (i.j.k.fused.fused.inner, 0, 4) {\n"
            "        C(floordiv(i.j.k.fused.fused.outer * 4 + i.j.k.fused.fused.inner, 24), "
            "floordiv(floormod(i.j.k.fused.fused.outer * 4 + i.j.k.fused.fused.inner, 24), 6), "
            "floormod(i.j.k.fused.fused.outer * 4 + i.j.k.fused.fused.inner, 6)) = "
            "B(floormod(i.j.k.fused.fused.outer * 4 + i.j.k.fused.fused.inner, 24)) + 1.0f\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_inline(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B;
  tvm_tensor *C = two_stages(f->c, 16, &A, &B);
  tvm_schedule *s = sched(f, C);
  assert_int_equal(tvm_compute_inline(tvm_stage_of(s, B)), TVM_OK);
  expect_ops(s,
            "realize C([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i, 0, 16) {\n"
            "    for (j, 0, 16) {\n"
            "      C(i, j) = A(i, j) * 2.0f + 1.0f\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_split_reduce(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 16, 16, 16, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *ko, *ki;
  assert_int_equal(tvm_split(st, tvm_stage_reduce_axis(st, 0), 4, &ko, &ki),
                   TVM_OK);
  tvm_iter_var *i = tvm_stage_axis(st, 0), *j = tvm_stage_axis(st, 1);
  assert_int_equal(tvm_reorder(st, (tvm_iter_var *[]){i, ko, ki, j}, 4),
                   TVM_OK);
  assert_int_equal(tvm_vectorize(st, j), TVM_OK);
  expect_ops(s,
            "realize C([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i, 0, 16) {\n"
            "    for (j.init, 0, 16) vectorized {\n"
            "      C(i, j.init) = 0.0f\n"
            "    }\n"
            "    for (k.outer, 0, 4) {\n"
            "      for (k.inner, 0, 4) {\n"
            "        for (j, 0, 16) vectorized {\n"
            "          C(i, j) = C(i, j) + A(i, k.outer * 4 + k.inner) * B(k.outer * 4 + k.inner, j)\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_pragma(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B;
  tvm_tensor *C = two_stages(f->c, 16, &A, &B);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  assert_int_equal(tvm_pragma(st, tvm_stage_axis(st, 0), "auto_unroll_max_step",
                              tvm_int(f->c, 16)),
                   TVM_OK);
  assert_int_equal(tvm_unroll(st, tvm_stage_axis(st, 1)), TVM_OK);
  expect_ops(s,
            "realize B([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"B\"\n"
            "  for (i_1, 0, 16) {\n"
            "    for (j_2, 0, 16) {\n"
            "      B(i_1, j_2) = A(i_1, j_2) * 2.0f\n"
            "    }\n"
            "  }\n"
            "  realize C([0, 16], [0, 16]) scope=global {\n"
            "    // attr produce = \"C\"\n"
            "    // attr [i_3] pragma_auto_unroll_max_step = 16\n"
            "    for (i_3, 0, 16) {\n"
            "      for (j_4, 0, 16) unrolled {\n"
            "        C(i_3, j_4) = B(i_3, j_4) + 1.0f\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* Lower-triangular row sums: the reduction's condition guards the update. */
static tvm_expr *tri_sum(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, A->shape_c[1]);
  return tvm_reduce(c, TVM_REDUCE_SUM, TVM_AT(c, A, i[0], k->var), &k, 1,
                    tvm_le(c, k->var, i[0]));
}

static void test_reduce_where(void **state) {
  fixture *f = *state;
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){8, 8}, 2);
  tvm_tensor *S = tvm_compute(f->c, "S", (int64_t[]){8}, 1, tri_sum, A);
  tvm_schedule *s = sched(f, S);
  expect_ops(s,
            "realize S([0, 8]) scope=global {\n"
            "  // attr produce = \"S\"\n"
            "  for (i, 0, 8) {\n"
            "    S(i) = 0.0f\n"
            "    for (k, 0, 8) {\n"
            "      if (k <= i) {\n"
            "        S(i) = S(i) + A(i, k)\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* Two virtual threads over the rows. */
static void test_vthread(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B;
  tvm_tensor *C = two_stages(f->c, 8, &A, &B);
  tvm_schedule *s = sched(f, C);
  assert_int_equal(tvm_compute_inline(tvm_stage_of(s, B)), TVM_OK);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *vo, *vi;
  assert_int_equal(tvm_split_nparts(st, tvm_stage_axis(st, 0), 2, &vo, &vi),
                   TVM_OK);
  assert_int_equal(tvm_bind(st, vo, tvm_thread_axis(f->c, "vthread", NULL)),
                   TVM_OK);
  expect_ops(s,
            "realize C([0, 8], [0, 8]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 2) vthread(vthread) {\n"
            "    for (i.inner, 0, 4) {\n"
            "      for (j, 0, 8) {\n"
            "        C(i.outer * 4 + i.inner, j) = A(i.outer * 4 + i.inner, j) * 2.0f + 1.0f\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* B computed under D's loop while its consumer C sits at the root. */
static tvm_expr *minus1(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *C = ud;
  return tvm_sub(c, TVM_AT(c, C, i[0], i[1]), tvm_f32(c, 1.0));
}

static void test_error_attach_not_enclosing(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B;
  tvm_tensor *C = two_stages(f->c, 8, &A, &B);
  tvm_tensor *D = tvm_compute(f->c, "D", (int64_t[]){8, 8}, 2, minus1, C);
  tvm_schedule *s = sched(f, D);
  tvm_stage *sd = tvm_stage_of(s, D);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, B), sd, tvm_stage_axis(sd, 0)),
                   TVM_OK);
  tvm_ptrmap ranges = {0};
  assert_int_equal(tvm_infer_bound(s, &ranges), TVM_ERR_INVALID);
  tvm_ptrmap_free(&ranges);
  const char *msg = tvm_diag_message();
  if (!strstr(msg, "consumer C is not nested under that loop"))
    print_message("diagnostic: %s\n", msg);
  assert_non_null(strstr(msg, "consumer C is not nested under that loop"));
}

static void test_error_no_bounds(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B;
  tvm_schedule *s = sched(f, two_stages(f->c, 8, &A, &B));
  tvm_ptrmap ranges = {0};
  tvm_stmt *body = NULL;
  assert_int_equal(tvm_schedule_ops(s, &ranges, &body), TVM_ERR_INVALID);
  assert_null(body);
  assert_non_null(strstr(tvm_diag_message(), "run tvm_infer_bound"));
}

static void test_error_fuse_data_reduce(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 4, 4, 4, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *fu;
  tvm_status rc = tvm_fuse(st, tvm_stage_axis(st, 1),
                           tvm_stage_reduce_axis(st, 0), &fu);
  if (rc != TVM_OK)
    skip(); /* the schedule layer refuses it already */
  tvm_ptrmap ranges = {0};
  tvm_stmt *body = NULL;
  assert_int_equal(tvm_infer_bound(s, &ranges), TVM_OK);
  assert_int_equal(tvm_schedule_ops(s, &ranges, &body), TVM_ERR_INVALID);
  tvm_ptrmap_free(&ranges);
  assert_non_null(strstr(tvm_diag_message(), "do not fuse data axes with "
                                             "reduce axes"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_matmul_plain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_compute_at_flattened_rows, setup, teardown),
      cmocka_unit_test_setup_teardown(test_split_divides, setup, teardown),
      cmocka_unit_test_setup_teardown(test_split_guard, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tile_reorder, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fuse, setup, teardown),
      cmocka_unit_test_setup_teardown(test_compute_at_tile, setup, teardown),
      cmocka_unit_test_setup_teardown(test_compute_at_edge, setup, teardown),
      cmocka_unit_test_setup_teardown(test_inline, setup, teardown),
      cmocka_unit_test_setup_teardown(test_split_reduce, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pragma, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reduce_where, setup, teardown),
      cmocka_unit_test_setup_teardown(test_vthread, setup, teardown),
      cmocka_unit_test_setup_teardown(test_error_attach_not_enclosing, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_error_no_bounds, setup, teardown),
      cmocka_unit_test_setup_teardown(test_error_fuse_data_reduce, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
