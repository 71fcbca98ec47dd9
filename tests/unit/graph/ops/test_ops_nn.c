/*
 * tests/unit/graph/ops/test_ops_nn.c - pooling, Gemm, MatMul, Softmax,
 * LogSoftmax and ConvTranspose: shape inference (with error messages),
 * hand-checked reference values, and the TE compute evaluated against
 * the reference for several attribute combinations.
 */
#include "ops_test.h"

#define INTS(name, ...)                                                        \
  tvm_gattr_ints(name, (int64_t[]){__VA_ARGS__},                               \
                 (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))

/* ---- pooling ---------------------------------------------------------- */
static void test_pool_infer(void **state) {
  tvm_gvalue *x = TF(1, 2, 5, 5);
  EXPECT_SHAPE(
      NODE("MaxPool", TVM_IN(x), TVM_ATTRS(INTS("kernel_shape", 2, 2))), 0,
      TVM_F32, 1, 2, 4, 4);
  EXPECT_SHAPE(
      NODE("MaxPool", TVM_IN(x),
           TVM_ATTRS(INTS("kernel_shape", 2, 2), INTS("strides", 2, 2))),
      0, TVM_F32, 1, 2, 2, 2);
  EXPECT_SHAPE(NODE("MaxPool", TVM_IN(x),
                    TVM_ATTRS(INTS("kernel_shape", 2, 2), INTS("strides", 2, 2),
                              tvm_gattr_int("ceil_mode", 1))),
               0, TVM_F32, 1, 2, 3, 3);
  EXPECT_SHAPE(NODE("AveragePool", TVM_IN(x),
                    TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("strides", 2, 2),
                              tvm_gattr_str("auto_pad", "SAME_UPPER"))),
               0, TVM_F32, 1, 2, 3, 3);
  EXPECT_SHAPE(NODE("MaxPool", TVM_IN(TF(1, 1, 6)),
                    TVM_ATTRS(INTS("kernel_shape", 2), INTS("dilations", 2))),
               0, TVM_F32, 1, 1, 4);
  EXPECT_SHAPE(NODE("GlobalAveragePool", TVM_IN(x), TVM_NOATTRS), 0, TVM_F32, 1,
               2, 1, 1);
  EXPECT_SHAPE(NODE("GlobalMaxPool", TVM_IN(TF(2, 3, 4)), TVM_NOATTRS), 0,
               TVM_F32, 2, 3, 1);
  expect_fail(NODE("MaxPool", TVM_IN(x), TVM_NOATTRS), TVM_ERR_INVALID,
              "'kernel_shape'", "required");
  expect_fail(NODE("MaxPool", TVM_IN(x), TVM_ATTRS(INTS("kernel_shape", 2))),
              TVM_ERR_INVALID, "'kernel_shape'", "spatial");
  EXPECT_SHAPE(
      NODEK("MaxPool", TVM_IN(x), TVM_ATTRS(INTS("kernel_shape", 2, 2)), 2), 1,
      TVM_I64, 1, 2, 4, 4);
  expect_fail(NODEK("MaxPool", TVM_IN(x),
                    TVM_ATTRS(INTS("kernel_shape", 2, 2),
                              tvm_gattr_int("storage_order", 2)),
                    2),
              TVM_ERR_INVALID, "'storage_order'", NULL);
  expect_fail(NODE("AveragePool", TVM_IN(x),
                   TVM_ATTRS(INTS("kernel_shape", 2, 2), INTS("pads", 1, 1))),
              TVM_ERR_INVALID, "'pads'", NULL);
  expect_fail(NODE("AveragePool", TVM_IN(TV(TVM_I32, 1, 1, 4, 4)),
                   TVM_ATTRS(INTS("kernel_shape", 2, 2))),
              TVM_ERR_UNSUPPORTED, "int32", NULL);
}

static void test_pool_values(void **state) {
  double x16[16], x9[9];
  for (int i = 0; i < 16; i++)
    x16[i] = i + 1;
  for (int i = 0; i < 9; i++)
    x9[i] = i + 1;
  tvm_gnode *n = tinfer(
      NODE("MaxPool", TVM_IN(TF(1, 1, 4, 4)),
           TVM_ATTRS(INTS("kernel_shape", 2, 2), INTS("strides", 2, 2))));
  EXPECT_VALS(tref(n, INS(x16))[0], 6, 8, 14, 16);
  n = tinfer(
      NODE("AveragePool", TVM_IN(TF(1, 1, 3, 3)),
           TVM_ATTRS(INTS("kernel_shape", 2, 2), INTS("pads", 1, 1, 1, 1))));
  DLTensor *o = tref(n, INS(x9))[0];
  assert_int_equal(dl_numel_t(o), 16);
  assert_true(fabs(tget(o, 0) - 1) < 1e-6);
  assert_true(fabs(tget(o, 1) - 1.5) < 1e-6);
  assert_true(fabs(tget(o, 5) - 3) < 1e-6); /* (1+2+4+5)/4 */
  n = tinfer(
      NODE("AveragePool", TVM_IN(TF(1, 1, 3, 3)),
           TVM_ATTRS(INTS("kernel_shape", 2, 2), INTS("pads", 1, 1, 1, 1),
                     tvm_gattr_int("count_include_pad", 1))));
  o = tref(n, INS(x9))[0];
  assert_true(fabs(tget(o, 0) - 0.25) < 1e-6);
  assert_true(fabs(tget(o, 1) - 0.75) < 1e-6);
  n = tinfer(NODE("GlobalAveragePool", TVM_IN(TF(1, 2, 2, 2)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4, 5, 6, 7, 9)))[0], 2.5, 6.75);
  n = tinfer(NODE("GlobalMaxPool", TVM_IN(TF(1, 2, 2, 2)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4, 5, 6, 7, -9)))[0], 4, 7);
  /* ceil_mode: the last window is clipped (max of the 5th column alone) */
  n = tinfer(NODE("MaxPool", TVM_IN(TF(1, 1, 1, 5)),
                  TVM_ATTRS(INTS("kernel_shape", 1, 2), INTS("strides", 1, 2),
                            tvm_gattr_int("ceil_mode", 1))));
  EXPECT_VALS(tref(n, INS(D(1, 5, 2, 3, -4)))[0], 5, 3, -4);
}

static void test_pool_compute(void **state) {
  check_compute(
      NODE("MaxPool", TVM_IN(TF(1, 2, 5, 5)),
           TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("strides", 2, 2),
                     INTS("pads", 1, 1, 1, 1))));
  check_compute(
      NODE("MaxPool", TVM_IN(TF(1, 2, 5, 6)),
           TVM_ATTRS(INTS("kernel_shape", 2, 2), INTS("strides", 2, 2),
                     tvm_gattr_int("ceil_mode", 1))));
  check_compute(
      NODE("MaxPool", TVM_IN(TF(1, 1, 7, 7)),
           TVM_ATTRS(INTS("kernel_shape", 2, 3), INTS("dilations", 2, 1),
                     INTS("pads", 0, 1, 2, 0))));
  check_compute(NODE("MaxPool", TVM_IN(TF(2, 1, 6)),
                     TVM_ATTRS(INTS("kernel_shape", 3),
                               tvm_gattr_str("auto_pad", "SAME_LOWER"))));
  for (int cip = 0; cip < 2; cip++) {
    check_compute(
        NODE("AveragePool", TVM_IN(TF(1, 2, 5, 5)),
             TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("strides", 2, 2),
                       INTS("pads", 1, 0, 1, 2),
                       tvm_gattr_int("count_include_pad", cip))));
    check_compute(
        NODE("AveragePool", TVM_IN(TF(1, 1, 5, 6)),
             TVM_ATTRS(INTS("kernel_shape", 2, 2), INTS("strides", 2, 2),
                       INTS("pads", 1, 1, 1, 1), tvm_gattr_int("ceil_mode", 1),
                       tvm_gattr_int("count_include_pad", cip))));
  }
  check_compute(NODE("AveragePool", TVM_IN(TF(1, 1, 6, 6)),
                     TVM_ATTRS(INTS("kernel_shape", 3, 3),
                               tvm_gattr_str("auto_pad", "SAME_UPPER"))));
  check_compute(NODE("GlobalAveragePool", TVM_IN(TF(2, 3, 3, 4)), TVM_NOATTRS));
  /* 16-bit floats: max in place, averages summed in float32 */
  static const tvm_dtype f16 = {kDLFloat, 16, 1}, bf16 = {kDLBfloat, 16, 1};
  check_compute(
      NODE("MaxPool", TVM_IN(TV(f16, 1, 2, 5, 5)),
           TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("strides", 2, 2),
                     INTS("pads", 1, 1, 1, 1))));
  check_compute(
      NODE("AveragePool", TVM_IN(TV(bf16, 1, 2, 5, 5)),
           TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("pads", 1, 0, 1, 2))));
  check_compute(NODE("GlobalAveragePool", TVM_IN(TV(f16, 2, 3, 7, 7)), TVM_NOATTRS));
  check_compute(NODE("GlobalMaxPool", TVM_IN(TF(2, 3, 3, 4)), TVM_NOATTRS));
  check_compute(NODE("GlobalAveragePool", TVM_IN(TF(1, 3, 5)), TVM_NOATTRS));
}

/* ---- Gemm / MatMul --------------------------------------------------------
 */
static void test_gemm(void **state) {
  EXPECT_SHAPE(NODE("Gemm", TVM_IN(TF(2, 3), TF(3, 4)), TVM_NOATTRS), 0,
               TVM_F32, 2, 4);
  EXPECT_SHAPE(
      NODE("Gemm", TVM_IN(TF(3, 2), TF(4, 3), TF(4)),
           TVM_ATTRS(tvm_gattr_int("transA", 1), tvm_gattr_int("transB", 1))),
      0, TVM_F32, 2, 4);
  expect_fail(NODE("Gemm", TVM_IN(TF(2, 3), TF(4, 3)), TVM_NOATTRS),
              TVM_ERR_INVALID, "inner dimensions", "transB");
  expect_fail(NODE("Gemm", TVM_IN(TF(2, 3), TF(3, 4), TF(3)), TVM_NOATTRS),
              TVM_ERR_INVALID, "broadcast", NULL);
  expect_fail(NODE("Gemm", TVM_IN(TF(2, 2, 3), TF(3, 4)), TVM_NOATTRS),
              TVM_ERR_INVALID, "2-D", "MatMul");
  tvm_gnode *n = tinfer(NODE("Gemm", TVM_IN(TF(2, 3), TF(3, 2)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4, 5, 6), D(1, 2, 3, 4, 5, 6)))[0], 22, 28,
              49, 64);
  n = tinfer(NODE(
      "Gemm", TVM_IN(TF(2, 3), TF(3, 2), TF(2)),
      TVM_ATTRS(tvm_gattr_float("alpha", 2), tvm_gattr_float("beta", 0.5))));
  EXPECT_VALS(
      tref(n, INS(D(1, 2, 3, 4, 5, 6), D(1, 2, 3, 4, 5, 6), D(1, 2)))[0], 44.5,
      57, 98.5, 129);
  /* transA: A is stored (K, M) */
  n = tinfer(NODE("Gemm", TVM_IN(TF(3, 2), TF(3, 2)),
                  TVM_ATTRS(tvm_gattr_int("transA", 1))));
  EXPECT_VALS(tref(n, INS(D(1, 4, 2, 5, 3, 6), D(1, 2, 3, 4, 5, 6)))[0], 22, 28,
              49, 64);
  check_compute(NODE("Gemm", TVM_IN(TF(3, 5), TF(5, 4)), TVM_NOATTRS));
  /* 16-bit floats: float32 products, sum and epilogue, rounded once */
  {
    static const tvm_dtype f16 = {kDLFloat, 16, 1};
    check_compute(NODE("Gemm", TVM_IN(TV(f16, 3, 8), TV(f16, 5, 8), TV(f16, 5)),
                       TVM_ATTRS(tvm_gattr_int("transB", 1))));
    check_compute(NODE("Gemm", TVM_IN(TV(f16, 3, 8), TV(f16, 8, 5)), TVM_NOATTRS));
    expect_fail(NODE("Gemm", TVM_IN(TV(f16, 3, 8), TF(8, 5)), TVM_NOATTRS),
                TVM_ERR_INVALID, "one type", "float16");
  }
  check_compute(
      NODE("Gemm", TVM_IN(TF(5, 3), TF(4, 5), TF(4)),
           TVM_ATTRS(tvm_gattr_int("transA", 1), tvm_gattr_int("transB", 1))));
  check_compute(
      NODE("Gemm", TVM_IN(TF(3, 5), TF(4, 5), TF(3, 1)),
           TVM_ATTRS(tvm_gattr_int("transB", 1), tvm_gattr_float("alpha", 0.5),
                     tvm_gattr_float("beta", -2))));
  check_compute(NODE("Gemm", TVM_IN(TF(3, 5), TF(5, 4), TF(3, 4)),
                     TVM_ATTRS(tvm_gattr_float("beta", 0))));
}

static void test_matmul(void **state) {
  EXPECT_SHAPE(NODE("MatMul", TVM_IN(TF(2, 3), TF(3, 4)), TVM_NOATTRS), 0,
               TVM_F32, 2, 4);
  EXPECT_SHAPE(NODE("MatMul", TVM_IN(TF(2, 1, 3, 4), TF(5, 4, 2)), TVM_NOATTRS),
               0, TVM_F32, 2, 5, 3, 2);
  EXPECT_SHAPE(NODE("MatMul", TVM_IN(TF(3), TF(2, 3, 4)), TVM_NOATTRS), 0,
               TVM_F32, 2, 4);
  EXPECT_SHAPE(NODE("MatMul", TVM_IN(TF(2, 3, 4), TF(4)), TVM_NOATTRS), 0,
               TVM_F32, 2, 3);
  EXPECT_SCALAR(NODE("MatMul", TVM_IN(TF(3), TF(3)), TVM_NOATTRS), 0, TVM_F32);
  expect_fail(NODE("MatMul", TVM_IN(TF(2, 3), TF(4, 3)), TVM_NOATTRS),
              TVM_ERR_INVALID, "inner dimensions", "[4, 3]");
  expect_fail(NODE("MatMul", TVM_IN(TF(2, 2, 3), TF(3, 3, 4)), TVM_NOATTRS),
              TVM_ERR_INVALID, "broadcast", NULL);
  tvm_gnode *n = tinfer(NODE("MatMul", TVM_IN(TF(3), TF(3)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3), D(4, 5, 6)))[0], 32);
  n = tinfer(NODE("MatMul", TVM_IN(TF(2, 1, 2), TF(2, 1)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4), D(10, 1)))[0], 12, 34);
  check_compute(NODE("MatMul", TVM_IN(TF(3, 4), TF(4, 5)), TVM_NOATTRS));
  check_compute(
      NODE("MatMul", TVM_IN(TF(2, 1, 3, 4), TF(3, 4, 2)), TVM_NOATTRS));
  check_compute(NODE("MatMul", TVM_IN(TF(4), TF(2, 4, 3)), TVM_NOATTRS));
  check_compute(NODE("MatMul", TVM_IN(TF(2, 3, 4), TF(4)), TVM_NOATTRS));
  check_compute(NODE("MatMul", TVM_IN(TF(5), TF(5)), TVM_NOATTRS));
  /* 16-bit floats: float32 products and sum, rounded once to 16 bits */
  static const tvm_dtype f16 = {kDLFloat, 16, 1}, bf16 = {kDLBfloat, 16, 1};
  EXPECT_SHAPE(NODE("MatMul", TVM_IN(TV(f16, 2, 3), TV(f16, 3, 4)),
                    TVM_NOATTRS), 0, f16, 2, 4);
  expect_fail(NODE("MatMul", TVM_IN(TV(f16, 2, 3), TF(3, 4)), TVM_NOATTRS),
              TVM_ERR_INVALID, "one type", "float16");
  tvm_ctx *c = tvm_ctx_create();
  n = tinfer(NODE("MatMul", TVM_IN(TV(f16, 2, 3), TV(f16, 3, 4)), TVM_NOATTRS));
  tvm_tensor *in[2] = {
      tvm_placeholder(c, "a", f16, (int64_t[]){2, 3}, 2),
      tvm_placeholder(c, "b", f16, (int64_t[]){3, 4}, 2)}, *out[1];
  assert_int_equal(n->def->compute(c, n, in, out), TVM_OK);
  assert_string_equal(out[0]->op->tag, "matmul_round");
  assert_true(tvm_dtype_eq(out[0]->dtype, f16));
  tvm_ptrvec pin = {0};
  assert_int_equal(tvm_op_inputs(out[0]->op, &pin), TVM_OK);
  assert_int_equal(pin.len, 1);
  tvm_tensor *acc = pin.data[0];
  tvm_ptrvec_free(&pin);
  assert_true(tvm_dtype_eq(acc->dtype, TVM_F32));
  assert_string_equal(acc->op->tag, "matmul");
  tvm_ctx_destroy(c);
  /* 1 + 2^-11 is no float16: a float16 sum would lose the 2^-11 terms */
  n = tinfer(NODE("MatMul", TVM_IN(TV(f16, 1, 3), TV(f16, 3, 1)), TVM_NOATTRS));
  DLTensor *o = tref(n, INS(D(1, 0.00048828125, 0.00048828125), D(1, 1, 1)))[0];
  assert_true(tget(o, 0) == 1.0009765625);
  check_compute(NODE("MatMul", TVM_IN(TV(f16, 3, 8), TV(f16, 8, 5)), TVM_NOATTRS));
  check_compute(NODE("MatMul", TVM_IN(TV(bf16, 3, 8), TV(bf16, 8, 5)), TVM_NOATTRS));
  check_compute(
      NODE("MatMul", TVM_IN(TV(f16, 2, 1, 3, 4), TV(f16, 3, 4, 2)), TVM_NOATTRS));
}

/* ---- Softmax ---------------------------------------------------------------
 */
static void test_softmax(void **state) {
  EXPECT_SHAPE(NODE("Softmax", TVM_IN(TF(2, 3)), TVM_NOATTRS), 0, TVM_F32, 2,
               3);
  expect_fail(
      NODE("Softmax", TVM_IN(TF(2, 3)), TVM_ATTRS(tvm_gattr_int("axis", 2))),
      TVM_ERR_INVALID, "'axis'", "[-2, 1]");
  tvm_gnode *n = tinfer(NODE("Softmax", TVM_IN(TF(3)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3)))[0], 0.0900306, 0.2447285, 0.6652410);
  n = tinfer(NODE("LogSoftmax", TVM_IN(TF(3)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3)))[0], -2.4076059, -1.4076059, -0.4076059);
  /* opset 13: axis 0 of a 2x2 normalizes columns */
  n = tinfer(
      NODE("Softmax", TVM_IN(TF(2, 2)), TVM_ATTRS(tvm_gattr_int("axis", 0))));
  EXPECT_VALS(tref(n, INS(D(0, 1, 0, 1)))[0], 0.5, 0.5, 0.5, 0.5);
  /* opset 11: axis 0 flattens everything */
  n = tinfer(
      NODE("Softmax", TVM_IN(TF(2, 2)),
           TVM_ATTRS(tvm_gattr_int("axis", 0), tvm_gattr_int("_opset", 11))));
  EXPECT_VALS(tref(n, INS(D(0, 0, 0, 0)))[0], 0.25, 0.25, 0.25, 0.25);
  /* opset 11 default axis 1 on 3-D: normalizes over axes 1 and 2 */
  n = tinfer(NODE("Softmax", TVM_IN(TF(1, 2, 2)),
                  TVM_ATTRS(tvm_gattr_int("_opset", 11))));
  EXPECT_VALS(tref(n, INS(D(1, 1, 1, 1)))[0], 0.25, 0.25, 0.25, 0.25);
}

static void test_softmax_compute(void **state) {
  check_compute(NODE("Softmax", TVM_IN(TF(3, 5)), TVM_NOATTRS));
  check_compute(NODE("Softmax", TVM_IN(TF(2, 3, 4)),
                     TVM_ATTRS(tvm_gattr_int("axis", 1))));
  check_compute(
      NODE("Softmax", TVM_IN(TF(2, 3, 4)),
           TVM_ATTRS(tvm_gattr_int("axis", 1), tvm_gattr_int("_opset", 11))));
  check_compute(NODE("LogSoftmax", TVM_IN(TF(2, 3, 4)),
                     TVM_ATTRS(tvm_gattr_int("axis", 0))));
  check_compute(NODE("LogSoftmax", TVM_IN(TF(2, 3, 4)),
                     TVM_ATTRS(tvm_gattr_int("_opset", 9))));
}

/* ---- ConvTranspose ---------------------------------------------------- */
static tvm_gnode *convt(tvm_gvalue *x, tvm_gvalue *w, tvm_gvalue *b,
                        const tvm_gattr *a, int na) {
  if (b)
    return tnode("ConvTranspose", TVM_IN(x, w, b), a, na, 1);
  return tnode("ConvTranspose", TVM_IN(x, w), a, na, 1);
}

static void test_conv_transpose(void **state) {
  tvm_gvalue *x = TF(1, 2, 3, 3);
  EXPECT_SHAPE(convt(x, TF(2, 4, 3, 3), NULL, TVM_NOATTRS), 0, TVM_F32, 1, 4, 5,
               5);
  EXPECT_SHAPE(convt(x, TF(2, 4, 3, 3), NULL,
                     TVM_ATTRS(INTS("strides", 2, 2), INTS("pads", 1, 1, 1, 1),
                               INTS("output_padding", 1, 1))),
               0, TVM_F32, 1, 4, 6, 6);
  EXPECT_SHAPE(
      convt(x, TF(2, 3, 3, 3), NULL,
            TVM_ATTRS(INTS("strides", 2, 2), INTS("output_shape", 6, 5))),
      0, TVM_F32, 1, 3, 6, 5);
  EXPECT_SHAPE(convt(x, TF(2, 1, 2, 2), NULL,
                     TVM_ATTRS(tvm_gattr_int("group", 2), INTS("strides", 2, 2),
                               tvm_gattr_str("auto_pad", "SAME_UPPER"))),
               0, TVM_F32, 1, 2, 6, 6);
  expect_fail(convt(x, TF(3, 4, 3, 3), NULL, TVM_NOATTRS), TVM_ERR_INVALID,
              "first dimension", NULL);
  expect_fail(
      convt(x, TF(2, 4, 3, 3), NULL, TVM_ATTRS(INTS("output_padding", 1, 1))),
      TVM_ERR_INVALID, "'output_padding'", "smaller");
  expect_fail(convt(x, TF(2, 4, 3, 3), NULL, TVM_ATTRS(INTS("strides", 2))),
              TVM_ERR_INVALID, "'strides'", NULL);
  EXPECT_SHAPE(
      convt(x, TF(2, 3, 3, 3), NULL,
            TVM_ATTRS(INTS("strides", 2, 2), INTS("output_shape", 9, 8))),
      0, TVM_F32, 1, 3, 9, 8);
  tvm_gnode *n =
      tinfer(convt(TF(1, 1, 2, 2), TF(1, 1, 2, 2), NULL, TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4), D(1, 1, 1, 1)))[0], 1, 3, 2, 4, 10, 6,
              3, 7, 4);
  n = tinfer(convt(TF(1, 1, 2, 2), TF(1, 1, 2, 2), TF(1),
                   TVM_ATTRS(INTS("strides", 2, 2))));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4), D(1, 1, 1, 1), D(0.5)))[0], 1.5, 1.5,
              2.5, 2.5, 1.5, 1.5, 2.5, 2.5, 3.5, 3.5, 4.5, 4.5, 3.5, 3.5, 4.5,
              4.5);
  /* 1-D, output_shape 4 > full 3: a zero appended */
  n = tinfer(convt(TF(1, 1, 2), TF(1, 1, 2), NULL,
                   TVM_ATTRS(INTS("output_shape", 4))));
  EXPECT_VALS(tref(n, INS(D(1, 2), D(1, 1)))[0], 1, 3, 2, 0);
}

static void test_conv_transpose_compute(void **state) {
  check_compute(convt(TF(1, 2, 3, 3), TF(2, 3, 3, 3), NULL, TVM_NOATTRS));
  check_compute(convt(TF(1, 2, 3, 4), TF(2, 2, 3, 3), TF(2),
                      TVM_ATTRS(INTS("strides", 2, 2), INTS("pads", 1, 0, 1, 2),
                                INTS("output_padding", 1, 0))));
  check_compute(
      convt(TF(2, 4, 3, 3), TF(4, 1, 2, 2), NULL,
            TVM_ATTRS(tvm_gattr_int("group", 2), INTS("strides", 2, 2),
                      INTS("dilations", 1, 2))));
  check_compute(
      convt(TF(1, 2, 3, 3), TF(2, 2, 3, 3), NULL,
            TVM_ATTRS(INTS("strides", 2, 2), INTS("output_shape", 6, 5))));
  check_compute(convt(TF(1, 2, 3, 3), TF(2, 2, 3, 3), TF(2),
                      TVM_ATTRS(INTS("strides", 2, 2),
                                tvm_gattr_str("auto_pad", "SAME_LOWER"))));
  /* output_shape past the full output (7): zeros (+ bias) appended */
  check_compute(
      convt(TF(1, 1, 3, 3), TF(1, 2, 3, 3), TF(2),
            TVM_ATTRS(INTS("strides", 2, 2), INTS("output_shape", 8, 9))));
  check_compute(convt(TF(1, 2, 5), TF(2, 3, 3), NULL,
                      TVM_ATTRS(INTS("strides", 3), INTS("pads", 2, 1))));
}

/* ---- LayerNormalization ----------------------------------------------- */
static void test_layer_norm(void **state) {
  tvm_gnode *n =
      NODEK("LayerNormalization", TVM_IN(TF(2, 3, 4), TF(4)), TVM_NOATTRS, 3);
  EXPECT_SHAPE(n, 0, TVM_F32, 2, 3, 4);
  expect_out(n, 1, TVM_F32, 3, (int64_t[]){2, 3, 1});
  n = NODEK("LayerNormalization", TVM_IN(TF(2, 3, 4), TF(3, 1), TF(4)),
            TVM_ATTRS(tvm_gattr_int("axis", 1)), 3);
  EXPECT_SHAPE(n, 2, TVM_F32, 2, 1, 1);
  expect_fail(
      NODE("LayerNormalization", TVM_IN(TF(2, 3, 4), TF(3)), TVM_NOATTRS),
      TVM_ERR_INVALID, "Scale [3]", "X.shape[2:]");
  n = tinfer(NODEK("LayerNormalization", TVM_IN(TF(1, 4), TF(4)),
                   TVM_ATTRS(tvm_gattr_float("epsilon", 0)), 3));
  DLTensor **o = tref(n, INS(D(1, 2, 3, 4), D(1, 1, 1, 1)));
  EXPECT_VALS(o[0], -1.3416408, -0.4472136, 0.4472136, 1.3416408);
  EXPECT_VALS(o[1], 2.5);
  EXPECT_VALS(o[2], 0.8944272);
  check_compute(NODE("LayerNormalization", TVM_IN(TF(2, 3, 4), TF(4), TF(4)),
                     TVM_NOATTRS));
  check_compute(NODEK(
      "LayerNormalization", TVM_IN(TF(2, 3, 4), TF(3, 1), TF(4)),
      TVM_ATTRS(tvm_gattr_int("axis", 1), tvm_gattr_float("epsilon", 0.1)), 3));
}

static void test_instance_norm(void **state) {
  tvm_gvalue *c3 = TF(3);
  EXPECT_SHAPE(NODE("InstanceNormalization", TVM_IN(TF(2, 3, 4, 5), c3, c3),
                    TVM_NOATTRS),
               0, TVM_F32, 2, 3, 4, 5);
  expect_fail(NODE("InstanceNormalization", TVM_IN(TF(2, 3, 4), TF(2), c3),
                   TVM_NOATTRS),
              TVM_ERR_INVALID, "scale", "C = 3");
  /* one channel of [1, 3]: mean 2, var 1 -> (-1, 1) * 2 + 0.5 */
  tvm_gnode *n =
      tinfer(NODE("InstanceNormalization", TVM_IN(TF(1, 1, 2), TF(1), TF(1)),
                  TVM_ATTRS(tvm_gattr_float("epsilon", 0))));
  EXPECT_VALS(tref(n, INS(D(1, 3), D(2), D(0.5)))[0], -1.5, 2.5);
  check_compute(NODE("InstanceNormalization", TVM_IN(TF(2, 3, 4, 5), c3, c3),
                     TVM_NOATTRS));
  check_compute(NODE("InstanceNormalization", TVM_IN(TF(1, 2, 6), TF(2), TF(2)),
                     TVM_ATTRS(tvm_gattr_float("epsilon", 0.5))));
}

static void test_lrn(void **state) {
  EXPECT_SHAPE(
      NODE("LRN", TVM_IN(TF(1, 5, 2, 2)), TVM_ATTRS(tvm_gattr_int("size", 3))),
      0, TVM_F32, 1, 5, 2, 2);
  expect_fail(NODE("LRN", TVM_IN(TF(1, 5, 2, 2)), TVM_NOATTRS), TVM_ERR_INVALID,
              "'size'", "required");
  /* size 2: window {c, c + 1}; alpha 2 / size 2 = 1, beta 1, bias 1 */
  tvm_gnode *n = tinfer(
      NODE("LRN", TVM_IN(TF(1, 2, 1, 1)),
           TVM_ATTRS(tvm_gattr_int("size", 2), tvm_gattr_float("alpha", 2),
                     tvm_gattr_float("beta", 1))));
  EXPECT_VALS(tref(n, INS(D(1, 2)))[0], 1.0 / 6, 2.0 / 5);
  check_compute(
      NODE("LRN", TVM_IN(TF(2, 5, 2, 3)), TVM_ATTRS(tvm_gattr_int("size", 3))));
  check_compute(NODE(
      "LRN", TVM_IN(TF(1, 6, 3)),
      TVM_ATTRS(tvm_gattr_int("size", 4), tvm_gattr_float("alpha", 0.01),
                tvm_gattr_float("beta", 0.5), tvm_gattr_float("bias", 2))));
}

/* ---- Resize / Upsample -----------------------------------------------------
 */
static tvm_gvalue *scales4(float a, float b, float c, float d) {
  return tcf32(1, (int64_t[]){4}, (float[]){a, b, c, d});
}

static void test_resize(void **state) {
  tvm_gvalue *x = TF(1, 2, 3, 4);
  EXPECT_SHAPE(
      NODE("Resize", TVM_IN(x, NULL, scales4(1, 1, 2, 1.5)), TVM_NOATTRS), 0,
      TVM_F32, 1, 2, 6, 6);
  EXPECT_SHAPE(
      NODE("Resize", TVM_IN(x, NULL, NULL, TCI(1, 2, 5, 2)), TVM_NOATTRS), 0,
      TVM_F32, 1, 2, 5, 2);
  EXPECT_SHAPE(NODE("Upsample", TVM_IN(x, scales4(1, 1, 2, 2)),
                    TVM_ATTRS(tvm_gattr_int("_opset", 9))),
               0, TVM_F32, 1, 2, 6, 8);
  expect_fail(NODE("Resize", TVM_IN(x, NULL, scales4(1, 1, 2, 2)),
                   TVM_ATTRS(tvm_gattr_str("mode", "area"))),
              TVM_ERR_UNSUPPORTED, "'mode'", "linear");
  expect_fail(NODE("Resize",
                   TVM_IN(x, NULL, scales4(1, 1, 2, 2), TCI(1, 2, 6, 8)),
                   TVM_NOATTRS),
              TVM_ERR_INVALID, "only one", NULL);
  expect_fail(NODE("Resize", TVM_IN(x), TVM_NOATTRS), TVM_ERR_INVALID, "scales",
              "sizes");
  expect_fail(NODE("Resize", TVM_IN(x, NULL, scales4(1, 1, 2, 2)),
                   TVM_ATTRS(tvm_gattr_str("coordinate_transformation_mode",
                                           "tf_crop_and_resize"))),
              TVM_ERR_UNSUPPORTED, "tf_crop_and_resize", NULL);

  tvm_gnode *n =
      tinfer(NODE("Upsample", TVM_IN(TF(1, 1, 1, 2), scales4(1, 1, 1, 2)),
                  TVM_ATTRS(tvm_gattr_int("_opset", 9))));
  EXPECT_VALS(tref(n, INS(D(1, 2), NULL))[0], 1, 1, 2, 2);
  n = tinfer(NODE("Resize", TVM_IN(TF(1, 1, 1, 2), NULL, scales4(1, 1, 1, 2)),
                  TVM_ATTRS(tvm_gattr_str("mode", "linear"))));
  EXPECT_VALS(tref(n, INS(D(1, 2), NULL, NULL))[0], 1, 1.25, 1.75, 2);
  n = tinfer(NODE("Resize", TVM_IN(TF(1, 1, 1, 2), NULL, NULL, TCI(1, 1, 1, 3)),
                  TVM_ATTRS(tvm_gattr_str("mode", "linear"),
                            tvm_gattr_str("coordinate_transformation_mode",
                                          "align_corners"))));
  EXPECT_VALS(tref(n, INS(D(1, 3), NULL, NULL, NULL))[0], 1, 2, 3);
  /* align_corners with a scale: the formula uses in * scale = 2.4, not
   * the output size 2 (ONNX reference) */
  n = tinfer(NODE("Resize",
                  TVM_IN(TF(1, 1, 1, 4), NULL, scales4(1, 1, 1, 0.6f)),
                  TVM_ATTRS(tvm_gattr_str("mode", "linear"),
                            tvm_gattr_str("coordinate_transformation_mode",
                                          "align_corners"))));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4), NULL, NULL))[0], 1, 22.0 / 7);
  n = tinfer(NODE("Resize", TVM_IN(TF(1, 1, 1, 3), NULL, scales4(1, 1, 1, 2)),
                  TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3), NULL, NULL))[0], 1, 1, 2, 2, 3, 3);

  static const char *const cts[] = {"half_pixel", "asymmetric", "align_corners",
                                    "pytorch_half_pixel",
                                    "tf_half_pixel_for_nn"};
  static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil",
                                    "floor", "ceil"};
  for (int ct = 0; ct < 5; ct++) {
    check_compute(NODE(
        "Resize", TVM_IN(x, NULL, scales4(1, 1, 2, 1.5)),
        TVM_ATTRS(tvm_gattr_str("mode", "linear"),
                  tvm_gattr_str("coordinate_transformation_mode", cts[ct]))));
    check_compute(
        NODE("Resize", TVM_IN(x, NULL, NULL, TCI(1, 2, 2, 7)),
             TVM_ATTRS(tvm_gattr_str("coordinate_transformation_mode", cts[ct]),
                       tvm_gattr_str("nearest_mode", nms[ct % 4]))));
  }
  check_compute(NODE("Resize",
                     TVM_IN(TF(1, 1, 4, 6), NULL, scales4(1, 1, 0.5, 0.5)),
                     TVM_ATTRS(tvm_gattr_str("mode", "linear"))));
  check_compute(NODE("Resize",
                     TVM_IN(TF(2, 3, 4), NULL,
                            tcf32(1, (int64_t[]){3}, (float[]){2, 1, 0.75})),
                     TVM_ATTRS(tvm_gattr_str("mode", "linear"))));
  check_compute(NODE(
      "Upsample", TVM_IN(x, scales4(1, 1, 2, 3)),
      TVM_ATTRS(tvm_gattr_str("mode", "linear"), tvm_gattr_int("_opset", 9))));
  check_compute(NODE("Resize", TVM_IN(x, scales4(1, 1, 3, 2)),
                     TVM_ATTRS(tvm_gattr_int("_opset", 10))));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_infer),
      cmocka_unit_test(test_pool_values),
      cmocka_unit_test(test_pool_compute),
      cmocka_unit_test(test_gemm),
      cmocka_unit_test(test_matmul),
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_softmax_compute),
      cmocka_unit_test(test_conv_transpose),
      cmocka_unit_test(test_conv_transpose_compute),
      cmocka_unit_test(test_layer_norm),
      cmocka_unit_test(test_instance_norm),
      cmocka_unit_test(test_lrn),
      cmocka_unit_test(test_resize),
  };
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
