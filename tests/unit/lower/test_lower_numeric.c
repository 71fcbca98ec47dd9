/*
 * tests/unit/lower/test_lower_numeric.c - lowered functions run by a
 * small IR interpreter against naive C references, on sizes the split
 * factors do not divide: tiled matmul with a split reduction, the classic
 * cache_write schedule, compute_at at a ragged edge, padded conv2d with
 * the padding inlined or computed per row, conv2d + bias + relu fused,
 * rfactor, fuse + split, staged copies, and a shifted last tile.
 * Buffers allocated by the function start as NaN, so a read of an
 * element nobody wrote shows up as a wrong result.
 */
#include <math.h>

#include "lower_test.h"
#include "tir_interp.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../te/examples.h"

/* Deterministic inputs in [-1, 1). */
static float *rand_array(int64_t n, unsigned seed) {
  float *a = malloc(sizeof(float) * (size_t)n);
  assert_non_null(a);
  unsigned x = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    a[i] = (float)((x >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
  return a;
}

static void expect_close(const float *got, const float *want, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    if (!(fabsf(got[i] - want[i]) <= 1e-4f * (1.0f + fabsf(want[i])))) {
      print_message("element %lld: got %g, want %g\n", (long long)i,
                    (double)got[i], (double)want[i]);
      fail();
    }
  }
}

/* Lowers s (schedule_ops + storage_flatten + simplify) and runs it. */
static void run(tvm_schedule *s, tvm_tensor **args, int nargs, float **arrays,
                const int64_t *sizes) {
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_status st;
  tvm_func *f = flat_func(s, args, nargs, &o, &st);
  if (st != TVM_OK)
    print_message("lowering failed: %s\n", tvm_diag_message());
  assert_int_equal(st, TVM_OK);
  int err = interp_run(f, arrays, sizes);
  if (err) {
    char *txt = tvm_stmt_str(f->body);
    print_message("interpreter error %d in:\n%s\n", err, txt);
    tvm_free(txt);
  }
  assert_int_equal(err, 0);
}

/* ---- matmul ---------------------------------------------------------- */
static void ref_matmul(const float *A, const float *B, float *C, int64_t M,
                       int64_t N, int64_t K) {
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; k++)
        acc = acc + A[i * K + k] * B[k * N + j];
      C[i * N + j] = acc;
    }
}

static void check_matmul(fixture *f, tvm_tensor *in[2], tvm_tensor *C,
                         int64_t M, int64_t N, int64_t K) {
  float *A = rand_array(M * K, 1), *B = rand_array(K * N, 2);
  float *got = calloc((size_t)(M * N), sizeof(float));
  float *want = calloc((size_t)(M * N), sizeof(float));
  ref_matmul(A, B, want, M, N, K);
  run(f->s, (tvm_tensor *[]){in[0], in[1], C}, 3, (float *[]){A, B, got},
      (int64_t[]){M * K, K * N, M * N});
  expect_close(got, want, M * N);
  free(A);
  free(B);
  free(got);
  free(want);
}

static void test_matmul_ragged_tiles(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 10, 13, 7, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *xo, *yo, *xi, *yi, *ko, *ki;
  assert_int_equal(tvm_tile(st, tvm_stage_axis(st, 0), tvm_stage_axis(st, 1),
                            4, 5, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_split(st, tvm_stage_reduce_axis(st, 0), 3, &ko, &ki),
                   TVM_OK);
  assert_int_equal(tvm_reorder(st, (tvm_iter_var *[]){xo, yo, ko, xi, ki, yi},
                               6),
                   TVM_OK);
  check_matmul(f, in, C, 10, 13, 7);
}

static void test_matmul_classic_ragged(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 30, 27, 19, in);
  tvm_schedule *s = sched(f, C);
  tvm_tensor *CC;
  assert_int_equal(tvm_cache_write(s, C, "local", &CC), TVM_OK);
  tvm_stage *sc = tvm_stage_of(s, C), *scc = tvm_stage_of(s, CC);
  tvm_iter_var *xo, *yo, *xi, *yi, *ko, *ki;
  assert_int_equal(tvm_tile(sc, tvm_stage_axis(sc, 0), tvm_stage_axis(sc, 1),
                            8, 8, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(scc, sc, yo), TVM_OK);
  tvm_iter_var *xc = tvm_stage_axis(scc, 0), *yc = tvm_stage_axis(scc, 1);
  assert_int_equal(tvm_split(scc, tvm_stage_reduce_axis(scc, 0), 4, &ko, &ki),
                   TVM_OK);
  assert_int_equal(tvm_reorder(scc, (tvm_iter_var *[]){ko, xc, ki, yc}, 4),
                   TVM_OK);
  check_matmul(f, in, C, 30, 27, 19);
}

/* A staged twice (per reduction step, then per inner step). */
static void test_matmul_staged(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 9, 11, 10, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *sc = tvm_stage_of(s, C);
  tvm_operation *rd[1] = {sc->op};
  tvm_tensor *AS, *AL, *BS;
  assert_int_equal(tvm_cache_read(s, in[0], "shared", rd, 1, &AS), TVM_OK);
  rd[0] = tvm_stage_of(s, C)->op;
  assert_int_equal(tvm_cache_read(s, AS, "local", rd, 1, &AL), TVM_OK);
  rd[0] = tvm_stage_of(s, C)->op;
  assert_int_equal(tvm_cache_read(s, in[1], "local", rd, 1, &BS), TVM_OK);
  tvm_iter_var *ko, *ki, *jo, *ji;
  assert_int_equal(tvm_split(sc, tvm_stage_reduce_axis(sc, 0), 4, &ko, &ki),
                   TVM_OK);
  assert_int_equal(tvm_split(sc, tvm_stage_axis(sc, 1), 4, &jo, &ji), TVM_OK);
  tvm_iter_var *i = tvm_stage_axis(sc, 0);
  assert_int_equal(tvm_reorder(sc, (tvm_iter_var *[]){jo, i, ko, ki, ji}, 5),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, AS), sc, ko), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, AL), sc, ki), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, BS), sc, ko), TVM_OK);
  tvm_stage *sb = tvm_stage_of(s, BS);
  assert_int_equal(tvm_storage_align(sb, tvm_stage_axis(sb, 0), 8, 3), TVM_OK);
  check_matmul(f, in, C, 9, 11, 10);
}

/* ---- elementwise chains ----------------------------------------------- */
static tvm_expr *times2(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  return tvm_mul(c, TVM_AT(c, A, i[0], i[1]), tvm_f32(c, 2.0));
}
/* C[i, j] = B[i, j] + B[i, (j + 1) % n]: a stencil, so B's tile is wider. */
static tvm_expr *stencil(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *B = ud;
  int64_t n = B->shape_c[1];
  tvm_expr *j1 = tvm_floormod(c, tvm_add(c, i[1], tvm_int(c, 1)), tvm_int(c, n));
  return tvm_add(c, TVM_AT(c, B, i[0], i[1]), TVM_AT(c, B, i[0], j1));
}

static void check_stencil(fixture *f, tvm_tensor *A, tvm_tensor *C, int64_t m,
                          int64_t n) {
  float *a = rand_array(m * n, 3);
  float *got = calloc((size_t)(m * n), sizeof(float));
  float *want = calloc((size_t)(m * n), sizeof(float));
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      want[i * n + j] = a[i * n + j] * 2.0f + a[i * n + (j + 1) % n] * 2.0f;
  run(f->s, (tvm_tensor *[]){A, C}, 2, (float *[]){a, got},
      (int64_t[]){m * n, m * n});
  expect_close(got, want, m * n);
  free(a);
  free(got);
  free(want);
}

static void stencil_setup(fixture *f, int64_t m, int64_t n, tvm_tensor **A,
                          tvm_tensor **B, tvm_tensor **C) {
  *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){m, n}, 2);
  *B = tvm_compute(f->c, "B", (int64_t[]){m, n}, 2, times2, *A);
  *C = tvm_compute(f->c, "C", (int64_t[]){m, n}, 2, stencil, *B);
  sched(f, *C);
}

static void test_stencil_compute_at_edge(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B, *C;
  stencil_setup(f, 10, 7, &A, &B, &C);
  tvm_stage *sc = tvm_stage_of(f->s, C);
  tvm_iter_var *xo, *yo, *xi, *yi;
  assert_int_equal(tvm_tile(sc, tvm_stage_axis(sc, 0), tvm_stage_axis(sc, 1),
                            4, 3, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(f->s, B), sc, xo), TVM_OK);
  check_stencil(f, A, C, 10, 7);
}

static void test_stencil_inline_fused(void **state) {
  fixture *f = *state;
  tvm_tensor *A, *B, *C;
  stencil_setup(f, 7, 9, &A, &B, &C);
  tvm_stage *sc = tvm_stage_of(f->s, C);
  assert_int_equal(tvm_compute_inline(tvm_stage_of(f->s, B)), TVM_OK);
  tvm_iter_var *fu, *o, *i;
  assert_int_equal(tvm_fuse(sc, tvm_stage_axis(sc, 0), tvm_stage_axis(sc, 1),
                            &fu),
                   TVM_OK);
  assert_int_equal(tvm_split(sc, fu, 8, &o, &i), TVM_OK);
  check_stencil(f, A, C, 7, 9);
}

static tvm_expr *rowsum(tvm_ctx *c, tvm_expr **i, void *ud);

/* ---- a shifted last tile (tvm_split_shift_tail) ----------------------- */
static tvm_expr *times2_1d(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_mul(c, TVM_AT(c, (tvm_tensor *)ud, i[0]), tvm_f32(c, 2.0));
}
static tvm_expr *plus1_1d(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_add(c, TVM_AT(c, (tvm_tensor *)ud, i[0]), tvm_f32(c, 1.0));
}

/* C = 2A + 1 over 63 elements in tiles of 8, B = 2A computed per tile:
 * the eighth tile covers 55..62, so B is computed without a guard (every
 * tile inside its 63 elements) and C stores 56..62 only (55 is the
 * seventh tile's). */
static void test_split_shift_tail(void **state) {
  fixture *f = *state;
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){63}, 1);
  tvm_tensor *B = tvm_compute(f->c, "B", (int64_t[]){63}, 1, times2_1d, A);
  tvm_tensor *C = tvm_compute(f->c, "C", (int64_t[]){63}, 1, plus1_1d, B);
  tvm_schedule *s = sched(f, C);
  tvm_stage *sc = tvm_stage_of(s, C);
  tvm_iter_var *o, *i;
  assert_int_equal(tvm_split_shift_tail(sc, tvm_stage_axis(sc, 0), 8, &o, &i),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, B), sc, o), TVM_OK);
  expect_flat(s, (tvm_tensor *[]){A, C}, 2,
              "func f(A: float32[63], C: float32[63]) {\n"
              "  for (i.outer, 0, 8) {\n"
              "    allocate B[float32 * 8] scope=global\n"
              "    for (i, 0, 8) {\n"
              "      B[i] = A[i + min(i.outer * 8, 55)] * 2.0f\n"
              "    }\n"
              "    for (i.inner, 0, 8) {\n"
              "      if (i.outer * 8 <= i.inner + 55) {\n"
              "        C[min(i.outer * 8, 55) + i.inner] = B[i.inner] + 1.0f\n"
              "      }\n"
              "    }\n"
              "  }\n"
              "}\n");
  float *a = rand_array(63, 9), got[63], want[63];
  for (int k = 0; k < 63; k++) want[k] = a[k] * 2.0f + 1.0f;
  run(s, (tvm_tensor *[]){A, C}, 2, (float *[]){a, got}, (int64_t[]){63, 63});
  expect_close(got, want, 63);
  free(a);
  /* a reduction axis cannot be shifted (its overlap would add twice) */
  tvm_tensor *R = tvm_placeholder(f->c, "R", TVM_F32, (int64_t[]){5, 30}, 2);
  tvm_tensor *S = tvm_compute(f->c, "S", (int64_t[]){5}, 1, rowsum, R);
  tvm_schedule_free(f->s); /* the fixture holds one schedule */
  f->s = NULL;
  tvm_stage *ss = tvm_stage_of(sched(f, S), S);
  assert_int_equal(
      tvm_split_shift_tail(ss, tvm_stage_reduce_axis(ss, 0), 8, &o, &i),
      TVM_ERR_INVALID);
}

/* ---- padded conv2d ---------------------------------------------------- */
static void check_conv(fixture *f, tvm_tensor *in[3], tvm_tensor *out,
                       int64_t C, int64_t H, int64_t W, int64_t F) {
  float *a = rand_array(C * H * W, 4), *w = rand_array(F * C * 9, 5);
  float *got = calloc((size_t)(F * H * W), sizeof(float));
  float *want = calloc((size_t)(F * H * W), sizeof(float));
  for (int64_t fo = 0; fo < F; fo++)
    for (int64_t y = 0; y < H; y++)
      for (int64_t x = 0; x < W; x++) {
        float acc = 0.0f;
        for (int64_t c = 0; c < C; c++)
          for (int64_t ry = 0; ry < 3; ry++)
            for (int64_t rx = 0; rx < 3; rx++) {
              int64_t yy = y + ry - 1, xx = x + rx - 1;
              float v = (yy >= 0 && yy < H && xx >= 0 && xx < W)
                            ? a[(c * H + yy) * W + xx]
                            : 0.0f;
              acc = acc + v * w[((fo * C + c) * 3 + ry) * 3 + rx];
            }
        want[(fo * H + y) * W + x] = acc;
      }
  run(f->s, (tvm_tensor *[]){in[0], in[1], out}, 3, (float *[]){a, w, got},
      (int64_t[]){C * H * W, F * C * 9, F * H * W});
  expect_close(got, want, F * H * W);
  free(a);
  free(w);
  free(got);
  free(want);
}

static void test_conv_pad_per_row(void **state) {
  fixture *f = *state;
  tvm_tensor *in[3];
  tvm_tensor *out = example_conv2d(f->c, 1, 2, 5, 6, 3, in);
  tvm_schedule *s = sched(f, out);
  tvm_stage *so = tvm_stage_of(s, out);
  tvm_iter_var *yo, *yi;
  assert_int_equal(tvm_split(so, tvm_stage_axis(so, 2), 2, &yo, &yi), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, in[2]), so, yo), TVM_OK);
  check_conv(f, in, out, 2, 5, 6, 3);
}

static void test_conv_pad_inlined(void **state) {
  fixture *f = *state;
  tvm_tensor *in[3];
  tvm_tensor *out = example_conv2d(f->c, 1, 3, 4, 5, 2, in);
  tvm_schedule *s = sched(f, out);
  assert_int_equal(tvm_compute_inline(tvm_stage_of(s, in[2])), TVM_OK);
  tvm_stage *so = tvm_stage_of(s, out);
  tvm_iter_var *xo, *xi;
  assert_int_equal(tvm_split(so, tvm_stage_axis(so, 3), 3, &xo, &xi), TVM_OK);
  check_conv(f, in, out, 3, 4, 5, 2);
}

/* conv2d + bias + relu fused the TVM way: padding inlined, the
 * convolution computed per output row tile of the relu, whose rows are
 * split by a factor that does not divide them. */
static void test_conv_bias_relu_fused(void **state) {
  fixture *f = *state;
  const int64_t C = 2, H = 5, W = 4, F = 3;
  tvm_tensor *in[5];
  tvm_tensor *out = example_conv2d_bias_relu(f->c, 1, C, H, W, F, in);
  tvm_schedule *s = sched(f, out);
  assert_int_equal(tvm_compute_inline(tvm_stage_of(s, in[2])), TVM_OK);
  tvm_stage *so = tvm_stage_of(s, out);
  tvm_iter_var *yo, *yi;
  assert_int_equal(tvm_split(so, tvm_stage_axis(so, 2), 2, &yo, &yi), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, in[4]), so, yo), TVM_OK);
  float *a = rand_array(C * H * W, 7), *w = rand_array(F * C * 9, 8);
  float *bias = rand_array(F, 9);
  float *got = calloc((size_t)(F * H * W), sizeof(float));
  float *want = calloc((size_t)(F * H * W), sizeof(float));
  for (int64_t fo = 0; fo < F; fo++)
    for (int64_t y = 0; y < H; y++)
      for (int64_t x = 0; x < W; x++) {
        float acc = 0.0f;
        for (int64_t c = 0; c < C; c++)
          for (int64_t ry = 0; ry < 3; ry++)
            for (int64_t rx = 0; rx < 3; rx++) {
              int64_t yy = y + ry - 1, xx = x + rx - 1;
              float v = (yy >= 0 && yy < H && xx >= 0 && xx < W)
                            ? a[(c * H + yy) * W + xx]
                            : 0.0f;
              acc = acc + v * w[((fo * C + c) * 3 + ry) * 3 + rx];
            }
        float r = acc + bias[fo];
        want[(fo * H + y) * W + x] = r > 0.0f ? r : 0.0f;
      }
  run(s, (tvm_tensor *[]){in[0], in[1], in[3], out}, 4,
      (float *[]){a, w, bias, got},
      (int64_t[]){C * H * W, F * C * 9, F, F * H * W});
  expect_close(got, want, F * H * W);
  free(a);
  free(w);
  free(bias);
  free(got);
  free(want);
}

/* ---- rfactor ----------------------------------------------------------- */
static tvm_expr *rowsum(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, A->shape_c[1]);
  return tvm_sum(c, TVM_AT(c, A, i[0], k->var), &k, 1);
}

static void test_rfactor_ragged(void **state) {
  fixture *f = *state;
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){5, 30}, 2);
  tvm_tensor *S = tvm_compute(f->c, "S", (int64_t[]){5}, 1, rowsum, A);
  tvm_schedule *s = sched(f, S);
  tvm_stage *ss = tvm_stage_of(s, S);
  tvm_iter_var *ko, *ki;
  assert_int_equal(tvm_split(ss, tvm_stage_reduce_axis(ss, 0), 4, &ko, &ki),
                   TVM_OK);
  tvm_tensor *SF;
  assert_int_equal(tvm_rfactor(s, S, ki, 1, &SF), TVM_OK);
  float *a = rand_array(5 * 30, 6), got[5], want[5];
  for (int i = 0; i < 5; i++) {
    want[i] = 0.0f;
    for (int k = 0; k < 30; k++)
      want[i] += a[i * 30 + k];
  }
  run(s, (tvm_tensor *[]){A, S}, 2, (float *[]){a, got}, (int64_t[]){150, 5});
  expect_close(got, want, 5);
  free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_matmul_ragged_tiles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_matmul_classic_ragged, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_matmul_staged, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stencil_compute_at_edge, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stencil_inline_fused, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_conv_pad_per_row, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv_pad_inlined, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv_bias_relu_fused, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_rfactor_ragged, setup, teardown),
      cmocka_unit_test_setup_teardown(test_split_shift_tail, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
