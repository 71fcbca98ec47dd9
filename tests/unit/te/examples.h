/*
 * tests/unit/te/examples.h - the tensor expressions used by the TE and
 * schedule tests (and quoted in the docs): matmul, a padded 3x3 conv2d in
 * NCHW, and conv2d + bias + relu.
 */
#ifndef TVM_TEST_TE_EXAMPLES_H
#define TVM_TEST_TE_EXAMPLES_H

#include "tvm/te.h"

/* ---- matmul: C[i, j] = sum_k A[i, k] * B[k, j] ------------------------- */
static tvm_expr *matmul_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* A[M, K], B[K, N] */
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, in[0]->shape_c[1]);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])),
                 &k, 1);
}

static tvm_tensor *example_matmul(tvm_ctx *c, int64_t m, int64_t n, int64_t k,
                                  tvm_tensor *in[2]) {
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){m, k}, 2);
  in[1] = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){k, n}, 2);
  return tvm_compute(c, "C", (int64_t[]){m, n}, 2, matmul_body, in);
}

/* ---- conv2d, NCHW, 3x3, stride 1, padding 1 ---------------------------- */
/* Apad[n, c, y, x] = A[n, c, y - 1, x - 1], 0 on the one-pixel border.
 * select evaluates both sides, so the read of A is clamped into A. */
static tvm_expr *clamp(tvm_ctx *c, tvm_expr *v, int64_t hi) {
  return tvm_max(c, tvm_min(c, v, tvm_int(c, hi)), tvm_int(c, 0));
}

static tvm_expr *pad_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  int64_t h = A->shape_c[2], w = A->shape_c[3];
  tvm_expr *y = tvm_sub(c, i[2], tvm_int(c, 1));
  tvm_expr *x = tvm_sub(c, i[3], tvm_int(c, 1));
  tvm_expr *inside = tvm_and(
      c, tvm_and(c, tvm_ge(c, y, tvm_int(c, 0)), tvm_lt(c, y, tvm_int(c, h))),
      tvm_and(c, tvm_ge(c, x, tvm_int(c, 0)), tvm_lt(c, x, tvm_int(c, w))));
  return tvm_select(c, inside,
                    TVM_AT(c, A, i[0], i[1], clamp(c, y, h - 1),
                           clamp(c, x, w - 1)),
                    tvm_f32(c, 0.0));
}

/* Out[n, f, y, x] = sum_{rc, ry, rx} Apad[n, rc, y + ry, x + rx] *
 *                                   W[f, rc, ry, rx] */
static tvm_expr *conv_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* Apad, W */
  tvm_iter_var *r[3] = {tvm_reduce_axis(c, "rc", 0, in[1]->shape_c[1]),
                        tvm_reduce_axis(c, "ry", 0, 3),
                        tvm_reduce_axis(c, "rx", 0, 3)};
  tvm_expr *rc = r[0]->var, *ry = r[1]->var, *rx = r[2]->var;
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], rc, tvm_add(c, i[2], ry),
                                      tvm_add(c, i[3], rx)),
                            TVM_AT(c, in[1], i[1], rc, ry, rx)),
                 r, 3);
}

/* in[0] = A[n, ci, h, w], in[1] = W[co, ci, 3, 3], in[2] = Apad. */
static tvm_tensor *example_conv2d(tvm_ctx *c, int64_t n, int64_t ci,
                                  int64_t h, int64_t w, int64_t co,
                                  tvm_tensor *in[3]) {
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){n, ci, h, w}, 4);
  in[1] = tvm_placeholder(c, "W", TVM_F32, (int64_t[]){co, ci, 3, 3}, 4);
  in[2] = tvm_compute(c, "Apad", (int64_t[]){n, ci, h + 2, w + 2}, 4,
                      pad_body, in[0]);
  tvm_tensor *args[2] = {in[2], in[1]};
  return tvm_compute(c, "Conv", (int64_t[]){n, co, h, w}, 4, conv_body, args);
}

/* ---- conv2d + bias + relu: Out = max(Conv[n, f, y, x] + bias[f], 0) ---- */
static tvm_expr *bias_relu_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* Conv, bias */
  tvm_expr *v = tvm_add(c, TVM_AT(c, in[0], i[0], i[1], i[2], i[3]),
                        TVM_AT(c, in[1], i[1]));
  return tvm_max(c, v, tvm_f32(c, 0.0));
}

/* in[0..2] as example_conv2d, in[3] = bias[co], in[4] = Conv. */
static tvm_tensor *example_conv2d_bias_relu(tvm_ctx *c, int64_t n,
                                            int64_t ci, int64_t h, int64_t w,
                                            int64_t co, tvm_tensor *in[5]) {
  in[4] = example_conv2d(c, n, ci, h, w, co, in);
  in[3] = tvm_placeholder(c, "bias", TVM_F32, (int64_t[]){co}, 1);
  tvm_tensor *args[2] = {in[4], in[3]};
  return tvm_compute(c, "Out", (int64_t[]){n, co, h, w}, 4, bias_relu_body,
                     args);
}

#endif /* TVM_TEST_TE_EXAMPLES_H */
