/*
 * tests/unit/lower/test_tensorize.c - a 4x4 matmul micro-kernel replacing
 * the inner tile of a matmul: with the whole reduction inside (one body
 * call) and with the reduction split around it (reset before the reduce
 * loop, update inside), the buffer views resolved by storage_flatten, and
 * the error when the loops do not compute the pattern.
 */
#include "lower_test.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../te/examples.h"

/* A pointer to a view: access_ptr(data, "float32", elem_offset, 16, rw). */
static tvm_expr *ptr(tvm_ctx *c, tvm_buffer *b, int rw) {
  tvm_expr *args[5] = {b->data, tvm_str(c, "float32"), b->elem_offset,
                       tvm_int(c, 16), tvm_int(c, rw)};
  return tvm_call(c, TVM_HANDLE, TVM_INTRIN_ACCESS_PTR, args, 5);
}

/* gemm4x4(c, a, b, ldc, lda, ldb) and its reset/update variants. */
static tvm_stmt *call(tvm_ctx *c, const char *name, tvm_buffer **in,
                      tvm_buffer *out, int with_inputs) {
  tvm_expr *args[6];
  int n = 0;
  args[n++] = ptr(c, out, with_inputs ? 3 : 2);
  if (with_inputs) {
    args[n++] = ptr(c, in[0], 1);
    args[n++] = ptr(c, in[1], 1);
  }
  args[n++] = out->strides[0];
  if (with_inputs) {
    args[n++] = in[0]->strides[0];
    args[n++] = in[1]->strides[0];
  }
  return tvm_evaluate(c, tvm_call_extern(c, TVM_I32, name, args, n));
}

static tvm_status emit(tvm_ctx *c, const tvm_tensor_intrin *ti,
                       tvm_buffer **in, int nin, tvm_buffer *out,
                       tvm_stmt **body, tvm_stmt **reset, tvm_stmt **update) {
  (void)ti;
  assert_int_equal(nin, 2);
  *body = call(c, "gemm4x4", in, out, 1);
  *reset = call(c, "gemm4x4_reset", in, out, 0);
  *update = call(c, "gemm4x4_update", in, out, 1);
  return TVM_OK;
}

static tvm_tensor_intrin *gemm_intrin(tvm_ctx *c) {
  tvm_tensor *in[2];
  tvm_tensor *p = example_matmul(c, 4, 4, 4, in);
  return tvm_tensor_intrin_new(c, "gemm4x4", p, emit, NULL);
}

/* C[16, 16] = A[16, K] x B[K, 16], tiled 4x4; the reduction split by 4
 * outside the tile when split_k. Returns the stage and the tile axes. */
static tvm_stage *tiled(fixture *f, int64_t K, int split_k, tvm_tensor *in[2],
                        tvm_tensor **C, tvm_iter_var **xi, tvm_iter_var **yi) {
  *C = example_matmul(f->c, 16, 16, K, in);
  tvm_schedule *s = sched(f, *C);
  tvm_stage *st = tvm_stage_of(s, *C);
  tvm_iter_var *xo, *yo;
  assert_int_equal(tvm_tile(st, tvm_stage_axis(st, 0), tvm_stage_axis(st, 1),
                            4, 4, &xo, &yo, xi, yi),
                   TVM_OK);
  tvm_iter_var *k = tvm_stage_reduce_axis(st, 0);
  if (split_k) {
    tvm_iter_var *ko, *ki;
    assert_int_equal(tvm_split(st, k, 4, &ko, &ki), TVM_OK);
    assert_int_equal(tvm_reorder(st, (tvm_iter_var *[]){xo, yo, ko, *xi, *yi,
                                                        ki},
                                 6),
                     TVM_OK);
  }
  return st;
}

static void test_tensorize_whole(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2], *C;
  tvm_iter_var *xi, *yi;
  tvm_stage *st = tiled(f, 4, 0, in, &C, &xi, &yi);
  assert_int_equal(tvm_tensorize(st, xi, gemm_intrin(f->c)), TVM_OK);
  expect_ops(f->s,
            "realize C([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 4) {\n"
            "    for (j.outer, 0, 4) {\n"
            "      // attr buffer_bind_scope = tvm_tuple(A, i.outer * 4, 0)\n"
            "      // attr buffer_bind_scope = tvm_tuple(B, 0, j.outer * 4)\n"
            "      // attr buffer_bind_scope = tvm_tuple(C, i.outer * 4, j.outer * 4)\n"
            "      gemm4x4(access_ptr(C, \"float32\", C.elem_offset, 16, 3), access_ptr(A, \"float32\", A.elem_offset, 16, 1), access_ptr(B, \"float32\", B.elem_offset, 16, 1), C.stride0, A.stride0, B.stride0)\n"
            "    }\n"
            "  }\n"
            "}\n");
  expect_flat(f->s, (tvm_tensor *[]){in[0], in[1], C}, 3,
            "func f(A: float32[16, 4], B: float32[4, 16], C: float32[16, 16]) {\n"
            "  for (i.outer, 0, 4) {\n"
            "    for (j.outer, 0, 4) {\n"
            "      gemm4x4(access_ptr(C, \"float32\", i.outer * 64 + j.outer * 4, 16, 3), access_ptr(A, \"float32\", i.outer * 16, 16, 1), access_ptr(B, \"float32\", j.outer * 4, 16, 1), 16, 4, 16)\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_tensorize_split_reduce(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2], *C;
  tvm_iter_var *xi, *yi;
  tvm_stage *st = tiled(f, 16, 1, in, &C, &xi, &yi);
  assert_int_equal(tvm_tensorize(st, xi, gemm_intrin(f->c)), TVM_OK);
  expect_ops(f->s,
            "realize C([0, 16], [0, 16]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 4) {\n"
            "    for (j.outer, 0, 4) {\n"
            "      // attr buffer_bind_scope = tvm_tuple(C, i.outer * 4, j.outer * 4)\n"
            "      gemm4x4_reset(access_ptr(C, \"float32\", C.elem_offset, 16, 2), C.stride0)\n"
            "      for (k.outer, 0, 4) {\n"
            "        // attr buffer_bind_scope = tvm_tuple(A, i.outer * 4, k.outer * 4)\n"
            "        // attr buffer_bind_scope = tvm_tuple(B, k.outer * 4, j.outer * 4)\n"
            "        // attr buffer_bind_scope = tvm_tuple(C, i.outer * 4, j.outer * 4)\n"
            "        gemm4x4_update(access_ptr(C, \"float32\", C.elem_offset, 16, 3), access_ptr(A, \"float32\", A.elem_offset, 16, 1), access_ptr(B, \"float32\", B.elem_offset, 16, 1), C.stride0, A.stride0, B.stride0)\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  expect_flat(f->s, (tvm_tensor *[]){in[0], in[1], C}, 3,
            "func f(A: float32[16, 16], B: float32[16, 16], C: float32[16, 16]) {\n"
            "  for (i.outer, 0, 4) {\n"
            "    for (j.outer, 0, 4) {\n"
            "      gemm4x4_reset(access_ptr(C, \"float32\", i.outer * 64 + j.outer * 4, 16, 2), 16)\n"
            "      for (k.outer, 0, 4) {\n"
            "        gemm4x4_update(access_ptr(C, \"float32\", i.outer * 64 + j.outer * 4, 16, 3), access_ptr(A, \"float32\", i.outer * 64 + k.outer * 4, 16, 1), access_ptr(B, \"float32\", k.outer * 64 + j.outer * 4, 16, 1), 16, 16, 16)\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_tensorize_mismatch(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2], *C;
  tvm_iter_var *xi, *yi;
  tvm_stage *st = tiled(f, 4, 0, in, &C, &xi, &yi);
  /* from yi inward only a 1x4 row is computed */
  assert_int_equal(tvm_tensorize(st, yi, gemm_intrin(f->c)), TVM_OK);
  tvm_ptrmap ranges = {0};
  tvm_stmt *body = NULL;
  assert_int_equal(tvm_infer_bound(f->s, &ranges), TVM_OK);
  assert_int_equal(tvm_schedule_ops(f->s, &ranges, &body), TVM_ERR_INVALID);
  tvm_ptrmap_free(&ranges);
  const char *msg = tvm_diag_message();
  if (!strstr(msg, "gemm4x4") || !strstr(msg, "covers 1 points"))
    print_message("diagnostic: %s\n", msg);
  assert_non_null(strstr(msg, "gemm4x4"));
  assert_non_null(strstr(msg, "covers 1 points"));
}

/* Same shapes, but the stage multiplies by a constant too. */
static tvm_expr *scaled_matmul(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, 4);
  return tvm_sum(c,
                 tvm_mul(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                                    TVM_AT(c, in[1], k->var, i[1])),
                         tvm_f32(c, 2.0)),
                 &k, 1);
}

static void test_tensorize_wrong_body(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){16, 4}, 2);
  in[1] = tvm_placeholder(f->c, "B", TVM_F32, (int64_t[]){4, 16}, 2);
  tvm_tensor *C =
      tvm_compute(f->c, "C", (int64_t[]){16, 16}, 2, scaled_matmul, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *xo, *yo, *xi, *yi;
  assert_int_equal(tvm_tile(st, tvm_stage_axis(st, 0), tvm_stage_axis(st, 1),
                            4, 4, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_tensorize(st, xi, gemm_intrin(f->c)), TVM_OK);
  tvm_ptrmap ranges = {0};
  tvm_stmt *body = NULL;
  assert_int_equal(tvm_infer_bound(s, &ranges), TVM_OK);
  assert_int_equal(tvm_schedule_ops(s, &ranges, &body), TVM_ERR_INVALID);
  tvm_ptrmap_free(&ranges);
  const char *msg = tvm_diag_message();
  if (!strstr(msg, "do not compute the intrinsic's pattern"))
    print_message("diagnostic: %s\n", msg);
  assert_non_null(strstr(msg, "do not compute the intrinsic's pattern"));
}

/* A 4x4 tile over 14 rows: the last tile would run past the end. */
static void test_tensorize_edge(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 14, 16, 4, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *xo, *yo, *xi, *yi;
  assert_int_equal(tvm_tile(st, tvm_stage_axis(st, 0), tvm_stage_axis(st, 1),
                            4, 4, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_tensorize(st, xi, gemm_intrin(f->c)), TVM_OK);
  tvm_ptrmap ranges = {0};
  tvm_stmt *body = NULL;
  assert_int_equal(tvm_infer_bound(s, &ranges), TVM_OK);
  assert_int_equal(tvm_schedule_ops(s, &ranges, &body), TVM_ERR_INVALID);
  tvm_ptrmap_free(&ranges);
  const char *msg = tvm_diag_message();
  if (!strstr(msg, "may run past its end (14)"))
    print_message("diagnostic: %s\n", msg);
  assert_non_null(strstr(msg, "may run past its end (14)"));
}

static tvm_expr *add2d(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  return tvm_add(c, TVM_AT(c, in[0], i[0], i[1]), TVM_AT(c, in[1], i[0], i[1]));
}

/* An element-wise intrinsic: out[i] = a[i] + b[i] over 4 lanes. */
static tvm_expr *vadd_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  return tvm_add(c, TVM_AT(c, in[0], i[0]), TVM_AT(c, in[1], i[0]));
}

static tvm_status emit_vadd(tvm_ctx *c, const tvm_tensor_intrin *ti,
                            tvm_buffer **in, int nin, tvm_buffer *out,
                            tvm_stmt **body, tvm_stmt **reset,
                            tvm_stmt **update) {
  (void)ti;
  (void)reset;
  (void)update;
  assert_int_equal(nin, 2);
  tvm_expr *args[3] = {ptr(c, out, 2), ptr(c, in[0], 1), ptr(c, in[1], 1)};
  *body = tvm_evaluate(c, tvm_call_extern(c, TVM_I32, "vadd4", args, 3));
  return TVM_OK;
}

static void test_tensorize_elementwise(void **state) {
  fixture *f = *state;
  tvm_tensor *pin[2] = {
      tvm_placeholder(f->c, "a", TVM_F32, (int64_t[]){4}, 1),
      tvm_placeholder(f->c, "b", TVM_F32, (int64_t[]){4}, 1)};
  tvm_tensor *pat = tvm_compute(f->c, "v", (int64_t[]){4}, 1, vadd_body, pin);
  tvm_tensor_intrin *ti =
      tvm_tensor_intrin_new(f->c, "vadd4", pat, emit_vadd, NULL);
  /* X[2, 8] + Y[2, 8], the inner axis split by 4 */
  tvm_tensor *in[2] = {
      tvm_placeholder(f->c, "X", TVM_F32, (int64_t[]){2, 8}, 2),
      tvm_placeholder(f->c, "Y", TVM_F32, (int64_t[]){2, 8}, 2)};
  tvm_tensor *Z = tvm_compute(f->c, "Z", (int64_t[]){2, 8}, 2, add2d, in);
  tvm_schedule *s = sched(f, Z);
  tvm_stage *st = tvm_stage_of(s, Z);
  tvm_iter_var *o, *i;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 1), 4, &o, &i), TVM_OK);
  assert_int_equal(tvm_tensorize(st, i, ti), TVM_OK);
  expect_flat(s, (tvm_tensor *[]){in[0], in[1], Z}, 3,
            "func f(X: float32[2, 8], Y: float32[2, 8], Z: float32[2, 8]) {\n"
            "  for (i, 0, 2) {\n"
            "    for (j.outer, 0, 2) {\n"
            "      vadd4(access_ptr(Z, \"float32\", i * 8 + j.outer * 4, 16, 2), access_ptr(X, \"float32\", i * 8 + j.outer * 4, 16, 1), access_ptr(Y, \"float32\", i * 8 + j.outer * 4, 16, 1))\n"
            "    }\n"
            "  }\n"
            "}\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_tensorize_whole, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensorize_split_reduce, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_tensorize_mismatch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensorize_wrong_body, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_tensorize_edge, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensorize_elementwise, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
