/*
 * tests/unit/graph/ops/test_ops_shape.c - Transpose, Concat, Split, Pad,
 * Gather, Slice, the reductions, Cast and ConstantOfShape: shape
 * inference (with error messages), hand-checked reference values, and the
 * TE compute evaluated against the reference.
 */
#include <float.h>

#include "ops_test.h"

#define INTS(name, ...)                                                        \
  tvm_gattr_ints(name, (int64_t[]){__VA_ARGS__},                               \
                 (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))

static void test_transpose(void **state) {
  EXPECT_SHAPE(NODE("Transpose", TVM_IN(TF(2, 3, 4)), TVM_NOATTRS), 0, TVM_F32,
               4, 3, 2);
  EXPECT_SHAPE(NODE("Transpose", TVM_IN(TV(TVM_I64, 2, 3, 4)),
                    TVM_ATTRS(INTS("perm", 0, 2, 1))),
               0, TVM_I64, 2, 4, 3);
  expect_fail(
      NODE("Transpose", TVM_IN(TF(2, 3)), TVM_ATTRS(INTS("perm", 0, 0))),
      TVM_ERR_INVALID, "'perm'", "permutation");
  expect_fail(NODE("Transpose", TVM_IN(TF(2, 3)), TVM_ATTRS(INTS("perm", 0))),
              TVM_ERR_INVALID, "'perm'", "rank 2");
  tvm_gnode *n = tinfer(NODE("Transpose", TVM_IN(TF(2, 3)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4, 5, 6)))[0], 1, 4, 2, 5, 3, 6);
  check_compute(
      NODE("Transpose", TVM_IN(TF(2, 3, 4)), TVM_ATTRS(INTS("perm", 1, 2, 0))));
  check_compute_g(
      NODE("Transpose", TVM_IN(TV(TVM_I32, 2, 3, 4, 5)), TVM_NOATTRS),
      KINDS(G_INT), 0);
}

static void test_concat_split(void **state) {
  EXPECT_SHAPE(NODE("Concat", TVM_IN(TF(2, 3), TF(2, 1), TF(2, 4)),
                    TVM_ATTRS(tvm_gattr_int("axis", -1))),
               0, TVM_F32, 2, 8);
  expect_fail(NODE("Concat", TVM_IN(TF(2, 3), TF(3, 3)),
                   TVM_ATTRS(tvm_gattr_int("axis", 1))),
              TVM_ERR_INVALID, "axis 0", "only the concatenation axis");
  expect_fail(NODE("Concat", TVM_IN(TF(2, 3), TF(3, 3)), TVM_NOATTRS),
              TVM_ERR_INVALID, "'axis'", "required");
  tvm_gnode *n = tinfer(NODE("Concat", TVM_IN(TF(1, 2), TF(1, 1)),
                             TVM_ATTRS(tvm_gattr_int("axis", 1))));
  EXPECT_VALS(tref(n, INS(D(1, 2), D(3)))[0], 1, 2, 3);
  check_compute(NODE("Concat", TVM_IN(TF(2, 3, 2), TF(2, 1, 2), TF(2, 4, 2)),
                     TVM_ATTRS(tvm_gattr_int("axis", 1))));
  check_compute(
      NODE("Concat", TVM_IN(TF(2, 3)), TVM_ATTRS(tvm_gattr_int("axis", 0))));
  check_compute_g(NODE("Concat", TVM_IN(TV(TVM_I64, 2), TV(TVM_I64, 3)),
                       TVM_ATTRS(tvm_gattr_int("axis", 0))),
                  KINDS(G_INT, G_INT), 0);

  tvm_gnode *s = NODEK("Split", TVM_IN(TF(6, 2), TCI(2, 4)), TVM_NOATTRS, 2);
  EXPECT_SHAPE(s, 1, TVM_F32, 4, 2);
  expect_out(s, 0, TVM_F32, 2, (int64_t[]){2, 2});
  s = NODEK("Split", TVM_IN(TF(2, 6)), TVM_ATTRS(tvm_gattr_int("axis", 1)), 3);
  EXPECT_SHAPE(s, 2, TVM_F32, 2, 2);
  s = NODEK("Split", TVM_IN(TF(6)), TVM_ATTRS(INTS("split", 1, 5)), 2);
  EXPECT_SHAPE(s, 1, TVM_F32, 5);
  expect_fail(NODEK("Split", TVM_IN(TF(6), TCI(2, 3)), TVM_NOATTRS, 2),
              TVM_ERR_INVALID, "add up to 5", NULL);
  expect_fail(NODEK("Split", TVM_IN(TF(5)), TVM_NOATTRS, 2), TVM_ERR_INVALID,
              "equal parts", "'split'");
  s = tinfer(NODEK("Split", TVM_IN(TF(6), TCI(2, 4)), TVM_NOATTRS, 2));
  DLTensor **o = tref(s, INS(D(1, 2, 3, 4, 5, 6), NULL));
  EXPECT_VALS(o[0], 1, 2);
  EXPECT_VALS(o[1], 3, 4, 5, 6);
  check_compute(NODEK("Split", TVM_IN(TF(2, 6, 2), TCI(1, 3, 2)),
                      TVM_ATTRS(tvm_gattr_int("axis", -2)), 3));
  check_compute(NODEK("Split", TVM_IN(TF(4, 3)), TVM_NOATTRS, 2));
}

static void test_pad(void **state) {
  EXPECT_SHAPE(NODE("Pad", TVM_IN(TF(2, 3), TCI(1, 0, 2, 3)), TVM_NOATTRS), 0,
               TVM_F32, 5, 6);
  EXPECT_SHAPE(
      NODE("Pad", TVM_IN(TF(2, 3)),
           TVM_ATTRS(INTS("pads", 0, -1, 0, 1), tvm_gattr_int("_opset", 2))),
      0, TVM_F32, 2, 3);
  EXPECT_SHAPE(
      NODE("Pad", TVM_IN(TF(2, 3), TCI(1, 1), NULL, TCI(-1)), TVM_NOATTRS), 0,
      TVM_F32, 2, 5);
  expect_fail(NODE("Pad", TVM_IN(TF(2, 3), TCI(1, 1)), TVM_NOATTRS),
              TVM_ERR_INVALID, "pads has 2 values", "give 4");
  expect_fail(NODE("Pad", TVM_IN(TF(2, 3), TCI(0, 3, 0, 0)),
                   TVM_ATTRS(tvm_gattr_str("mode", "reflect"))),
              TVM_ERR_INVALID, "reflect", "smaller");
  expect_fail(NODE("Pad", TVM_IN(TF(2, 3), TCI(0, 3, 0, 0)),
                   TVM_ATTRS(tvm_gattr_str("mode", "wrap"))),
              TVM_ERR_UNSUPPORTED, "'mode'", "edge");
  tvm_gnode *n =
      tinfer(NODE("Pad", TVM_IN(TF(2), TCI(1, 2), tcscalar(9)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2), NULL, NULL))[0], 9, 1, 2, 9, 9);
  n = tinfer(NODE("Pad", TVM_IN(TF(3), TCI(2, 2)),
                  TVM_ATTRS(tvm_gattr_str("mode", "reflect"))));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3), NULL))[0], 3, 2, 1, 2, 3, 2, 1);
  n = tinfer(NODE("Pad", TVM_IN(TF(3), TCI(2, 1)),
                  TVM_ATTRS(tvm_gattr_str("mode", "edge"))));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3), NULL))[0], 1, 1, 1, 2, 3, 3);
  n = tinfer(NODE("Pad", TVM_IN(TF(4), TCI(-1, 1)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4), NULL))[0], 2, 3, 4, 0);
  static const char *const modes[] = {"constant", "reflect", "edge"};
  for (int m = 0; m < 3; m++) {
    check_compute(NODE("Pad", TVM_IN(TF(2, 3, 4), TCI(0, 1, 2, 1, 2, 3)),
                       TVM_ATTRS(tvm_gattr_str("mode", modes[m]))));
    check_compute(NODE("Pad", TVM_IN(TF(3, 4), TCI(-1, 2, 1, -2)),
                       TVM_ATTRS(tvm_gattr_str("mode", modes[m]))));
  }
  check_compute(NODE("Pad", TVM_IN(TF(3, 4), TCI(1, 2, 1, 0), tcscalar(-7)),
                     TVM_NOATTRS));
  check_compute_g(
      NODE("Pad", TVM_IN(TV(TVM_I64, 3, 2)),
           TVM_ATTRS(INTS("pads", 1, 1, 1, 1), tvm_gattr_float("value", 5))),
      KINDS(G_INT), 0);
}

static void test_gather(void **state) {
  EXPECT_SHAPE(NODE("Gather", TVM_IN(TF(5, 4, 3), TV(TVM_I64, 2, 6)),
                    TVM_ATTRS(tvm_gattr_int("axis", 1))),
               0, TVM_F32, 5, 2, 6, 3);
  EXPECT_SHAPE(NODE("Gather", TVM_IN(TF(5, 4), tscalar(TVM_I32)), TVM_NOATTRS),
               0, TVM_F32, 4);
  expect_fail(NODE("Gather", TVM_IN(TF(5, 4), TF(2)), TVM_NOATTRS),
              TVM_ERR_UNSUPPORTED, "indices", "int32 or int64");
  expect_fail(NODE("Gather", TVM_IN(TF(5, 4), TV(TVM_I64, 2)),
                   TVM_ATTRS(tvm_gattr_int("axis", 2))),
              TVM_ERR_INVALID, "'axis'", "out of range");
  tvm_gnode *n =
      tinfer(NODE("Gather", TVM_IN(TF(3, 2), TV(TVM_I64, 2, 2)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4, 5, 6), D(0, 1, 1, 2)))[0], 1, 2, 3, 4,
              3, 4, 5, 6);
  n = tinfer(NODE("Gather", TVM_IN(TF(3, 2), TV(TVM_I32, 1)),
                  TVM_ATTRS(tvm_gattr_int("axis", 1))));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4, 5, 6), D(-1)))[0], 2, 4, 6);
  /* an index out of range makes the reference fail, naming it */
  {
    DLTensor *in[2] = {tdl(n->inputs[0]), tdl(n->inputs[1])};
    DLTensor *out[1] = {tdl(n->outputs[0])};
    ((int32_t *)in[1]->data)[0] = 2;
    tvm_diag_clear();
    assert_int_equal(n->def->reference(n, (const DLTensor *const *)in, out),
                     TVM_ERR_INVALID);
    assert_non_null(strstr(tvm_diag_message(), "index 2 is out of range"));
  }
  check_compute_g(NODE("Gather", TVM_IN(TF(5, 4, 3), TV(TVM_I64, 2, 3)),
                       TVM_ATTRS(tvm_gattr_int("axis", 1))),
                  KINDS(G_REAL, G_IDX), 4);
  check_compute_g(
      NODE("Gather", TVM_IN(TV(TVM_I64, 6, 2), TV(TVM_I32, 4)), TVM_NOATTRS),
      KINDS(G_INT, G_IDX), 6);
  check_compute_g(NODE("Gather", TVM_IN(TF(5, 4), tscalar(TVM_I64)),
                       TVM_ATTRS(tvm_gattr_int("axis", -1))),
                  KINDS(G_REAL, G_IDX), 4);
}

static void test_slice(void **state) {
  tvm_gvalue *x = TF(10, 4);
  EXPECT_SHAPE(
      NODE("Slice", TVM_IN(x, TCI(1), TCI(-1), TCI(0), TCI(2)), TVM_NOATTRS), 0,
      TVM_F32, 4, 4);
  EXPECT_SHAPE(
      NODE("Slice", TVM_IN(x, TCI(0, 1), TCI(INT64_MAX, 3)), TVM_NOATTRS), 0,
      TVM_F32, 10, 2);
  EXPECT_SHAPE(NODE("Slice",
                    TVM_IN(x, TCI(-1), TCI(INT64_MIN), TCI(1), TCI(-1)),
                    TVM_NOATTRS),
               0, TVM_F32, 10, 4);
  EXPECT_SHAPE(
      NODE("Slice", TVM_IN(x, TCI(7), TCI(2), TCI(0), TCI(-3)), TVM_NOATTRS), 0,
      TVM_F32, 2, 4);
  EXPECT_SHAPE(NODE("Slice", TVM_IN(x, TCI(5), TCI(2)), TVM_NOATTRS), 0,
               TVM_F32, 0, 4);
  EXPECT_SHAPE(NODE("Slice", TVM_IN(x),
                    TVM_ATTRS(INTS("starts", 2), INTS("ends", 3),
                              INTS("axes", 1), tvm_gattr_int("_opset", 9))),
               0, TVM_F32, 10, 1);
  expect_fail(
      NODE("Slice", TVM_IN(x, TCI(0), TCI(1), TCI(0), TCI(0)), TVM_NOATTRS),
      TVM_ERR_INVALID, "step", NULL);
  expect_fail(NODE("Slice", TVM_IN(x, TCI(0), TCI(1, 2)), TVM_NOATTRS),
              TVM_ERR_INVALID, "one length", NULL);
  expect_fail(NODE("Slice", TVM_IN(x, TV(TVM_I64, 1), TCI(1)), TVM_NOATTRS),
              TVM_ERR_UNSUPPORTED, "starts", "constant");
  tvm_gnode *n = tinfer(NODE(
      "Slice", TVM_IN(TF(8), TCI(1), TCI(-1), TCI(0), TCI(2)), TVM_NOATTRS));
  EXPECT_VALS(
      tref(n, INS(D(0, 1, 2, 3, 4, 5, 6, 7), NULL, NULL, NULL, NULL))[0], 1, 3,
      5);
  n = tinfer(NODE("Slice",
                  TVM_IN(TF(4), TCI(-1), TCI(INT64_MIN), TCI(0), TCI(-1)),
                  TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4), NULL, NULL, NULL, NULL))[0], 4, 3, 2,
              1);
  check_compute(
      NODE("Slice",
           TVM_IN(TF(6, 5, 4), TCI(1, -1), TCI(5, 0), TCI(0, 2), TCI(2, -1)),
           TVM_NOATTRS));
  check_compute(NODE("Slice",
                     TVM_IN(TF(7, 3), TCI(-2), TCI(-100), TCI(0), TCI(-2)),
                     TVM_NOATTRS));
  check_compute_g(
      NODE("Slice", TVM_IN(TV(TVM_I64, 5), TCI(1), TCI(4)), TVM_NOATTRS),
      KINDS(G_INT), 0);
}

static void test_reduce(void **state) {
  tvm_gvalue *x = TF(2, 3, 4);
  EXPECT_SHAPE(NODE("ReduceSum", TVM_IN(x, TCI(1)), TVM_NOATTRS), 0, TVM_F32, 2,
               1, 4);
  EXPECT_SHAPE(
      NODE("ReduceMean", TVM_IN(x),
           TVM_ATTRS(INTS("axes", -1, 0), tvm_gattr_int("keepdims", 0))),
      0, TVM_F32, 3);
  EXPECT_SHAPE(NODE("ReduceMax", TVM_IN(x), TVM_NOATTRS), 0, TVM_F32, 1, 1, 1);
  EXPECT_SCALAR(
      NODE("ReduceMax", TVM_IN(x), TVM_ATTRS(tvm_gattr_int("keepdims", 0))), 0,
      TVM_F32);
  EXPECT_SHAPE(NODE("ReduceSum", TVM_IN(x),
                    TVM_ATTRS(tvm_gattr_int("noop_with_empty_axes", 1))),
               0, TVM_F32, 2, 3, 4);
  expect_fail(NODE("ReduceSum", TVM_IN(x, TCI(3)), TVM_NOATTRS),
              TVM_ERR_INVALID, "axes value = 3", "[-3, 2]");
  expect_fail(NODE("ReduceMean", TVM_IN(TV(TVM_I64, 2)), TVM_NOATTRS),
              TVM_ERR_UNSUPPORTED, "int64", NULL);
  tvm_gnode *n =
      tinfer(NODE("ReduceSum", TVM_IN(TF(2, 2), TCI(1)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4), NULL))[0], 3, 7);
  n = tinfer(NODE("ReduceMean", TVM_IN(TF(2, 2)),
                  TVM_ATTRS(tvm_gattr_int("keepdims", 0))));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4)))[0], 2.5);
  n = tinfer(
      NODE("ReduceMax", TVM_IN(TV(TVM_I32, 2, 2)), TVM_ATTRS(INTS("axes", 0))));
  EXPECT_VALS(tref(n, INS(D(1, -2, -3, -4)))[0], 1, -2);
  n = tinfer(NODE("ReduceMin", TVM_IN(TF(2, 2)), TVM_ATTRS(INTS("axes", 1))));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4)))[0], 1, 3);
  n = tinfer(NODE("ReduceProd", TVM_IN(TF(2, 2)), TVM_ATTRS(INTS("axes", 1))));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4)))[0], 2, 12);
  n = tinfer(NODE("ReduceSumSquare", TVM_IN(TF(2, 2)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4)))[0], 30);
  n = tinfer(NODE("ReduceL1", TVM_IN(TF(2, 2)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(-1, 2, 3, -4)))[0], 10);
  n = tinfer(NODE("ReduceL2", TVM_IN(TF(2)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(3, -4)))[0], 5);
  n = tinfer(NODE("ReduceLogSum", TVM_IN(TF(2)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2)))[0], log(3.0));
  n = tinfer(NODE("ReduceLogSumExp", TVM_IN(TF(2, 2)),
                  TVM_ATTRS(INTS("axes", 0), tvm_gattr_int("keepdims", 0))));
  EXPECT_VALS(tref(n, INS(D(0, 100, 0, 100)))[0], log(2.0), 100 + log(2.0));
  static const char *const ops[] = {
      "ReduceSum", "ReduceMean", "ReduceMax",
      "ReduceMin", "ReduceProd", "ReduceSumSquare",
      "ReduceL1",  "ReduceL2",   "ReduceLogSumExp"};
  for (int k = 0; k < 9; k++) {
    check_compute(NODE(ops[k], TVM_IN(x, TCI(1)), TVM_NOATTRS));
    check_compute(
        NODE(ops[k], TVM_IN(x),
             TVM_ATTRS(INTS("axes", 0, 2), tvm_gattr_int("keepdims", 0))));
    check_compute(NODE(ops[k], TVM_IN(x), TVM_NOATTRS));
    check_compute(NODE(ops[k], TVM_IN(x),
                       TVM_ATTRS(tvm_gattr_int("noop_with_empty_axes", 1))));
  }
  check_compute_g(NODE("ReduceSum", TVM_IN(TV(TVM_I64, 3, 4), TCI(0)),
                       TVM_ATTRS(tvm_gattr_int("keepdims", 0))),
                  KINDS(G_INT), 0);
  check_compute_g(
      NODE("ReduceMin", TVM_IN(TV(TVM_I32, 3, 4), TCI(1)), TVM_NOATTRS),
      KINDS(G_INT), 0);
  check_compute_g(NODE("ReduceLogSum", TVM_IN(x, TCI(1, 2)), TVM_NOATTRS),
                  KINDS(G_POS), 0);
  expect_fail(NODE("ReduceL2", TVM_IN(TV(TVM_I32, 2)), TVM_NOATTRS),
              TVM_ERR_UNSUPPORTED, "int32", NULL);
}

static void test_argmax(void **state) {
  EXPECT_SHAPE(NODE("ArgMax", TVM_IN(TF(2, 3, 4)), TVM_NOATTRS), 0, TVM_I64, 1,
               3, 4);
  EXPECT_SHAPE(
      NODE("ArgMin", TVM_IN(TF(2, 3, 4)),
           TVM_ATTRS(tvm_gattr_int("axis", -1), tvm_gattr_int("keepdims", 0))),
      0, TVM_I64, 2, 3);
  expect_fail(
      NODE("ArgMax", TVM_IN(TF(2, 3)), TVM_ATTRS(tvm_gattr_int("axis", 2))),
      TVM_ERR_INVALID, "'axis'", NULL);
  tvm_gnode *n = tinfer(
      NODE("ArgMax", TVM_IN(TF(2, 3)), TVM_ATTRS(tvm_gattr_int("axis", 1))));
  EXPECT_VALS(tref(n, INS(D(1, 5, 5, 7, 2, 7)))[0], 1, 0);
  n = tinfer(NODE("ArgMax", TVM_IN(TF(2, 3)),
                  TVM_ATTRS(tvm_gattr_int("axis", 1),
                            tvm_gattr_int("select_last_index", 1))));
  EXPECT_VALS(tref(n, INS(D(1, 5, 5, 7, 2, 7)))[0], 2, 2);
  n = tinfer(NODE("ArgMin", TVM_IN(TV(TVM_I32, 2, 2)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(4, -1, 2, 3)))[0], 1, 0);
  for (int last = 0; last < 2; last++) {
    check_compute_g(NODE("ArgMax", TVM_IN(TV(TVM_I32, 3, 7, 2)),
                         TVM_ATTRS(tvm_gattr_int("axis", 1),
                                   tvm_gattr_int("select_last_index", last))),
                    KINDS(G_IDX), 3); /* few values: ties happen */
    check_compute_g(
        NODE("ArgMin", TVM_IN(TF(3, 4, 5)),
             TVM_ATTRS(tvm_gattr_int("axis", -1), tvm_gattr_int("keepdims", 0),
                       tvm_gattr_int("select_last_index", last))),
        KINDS(G_IDX), 2);
  }
}

static void test_rearrange(void **state) {
  EXPECT_SHAPE(NODE("Tile", TVM_IN(TF(2, 3), TCI(2, 1)), TVM_NOATTRS), 0,
               TVM_F32, 4, 3);
  expect_fail(NODE("Tile", TVM_IN(TF(2, 3), TCI(2)), TVM_NOATTRS),
              TVM_ERR_INVALID, "repeats", "one per input axis");
  tvm_gnode *n = tinfer(NODE("Tile", TVM_IN(TF(2), TCI(3)), TVM_NOATTRS));
  EXPECT_VALS(tref(n, INS(D(1, 2), NULL))[0], 1, 2, 1, 2, 1, 2);
  check_compute(NODE("Tile", TVM_IN(TF(2, 3, 2), TCI(2, 1, 3)), TVM_NOATTRS));
  check_compute_g(NODE("Tile", TVM_IN(TV(TVM_I64, 3), TCI(2)), TVM_NOATTRS),
                  KINDS(G_INT), 0);

  tvm_gattr b2 = tvm_gattr_int("blocksize", 2);
  EXPECT_SHAPE(NODE("DepthToSpace", TVM_IN(TF(1, 8, 2, 3)), TVM_ATTRS(b2)), 0,
               TVM_F32, 1, 2, 4, 6);
  EXPECT_SHAPE(NODE("SpaceToDepth", TVM_IN(TF(1, 2, 4, 6)), TVM_ATTRS(b2)), 0,
               TVM_F32, 1, 8, 2, 3);
  expect_fail(NODE("DepthToSpace", TVM_IN(TF(1, 6, 2, 3)), TVM_ATTRS(b2)),
              TVM_ERR_INVALID, "multiple of blocksize^2", NULL);
  expect_fail(NODE("SpaceToDepth", TVM_IN(TF(1, 2, 4, 6)), TVM_NOATTRS),
              TVM_ERR_INVALID, "'blocksize'", "required");
  /* 4 channels, 1x1 -> 1 channel 2x2: DCR takes channels in order */
  n = tinfer(NODE("DepthToSpace", TVM_IN(TF(1, 4, 1, 1)), TVM_ATTRS(b2)));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4)))[0], 1, 2, 3, 4);
  /* 8 channels -> 2 channels: DCR interleaves, CRD keeps blocks */
  n = tinfer(NODE("DepthToSpace", TVM_IN(TF(1, 8, 1, 1)), TVM_ATTRS(b2)));
  EXPECT_VALS(tref(n, INS(D(0, 1, 2, 3, 4, 5, 6, 7)))[0], 0, 2, 4, 6, 1, 3, 5,
              7);
  n = tinfer(NODE("DepthToSpace", TVM_IN(TF(1, 8, 1, 1)),
                  TVM_ATTRS(b2, tvm_gattr_str("mode", "CRD"))));
  EXPECT_VALS(tref(n, INS(D(0, 1, 2, 3, 4, 5, 6, 7)))[0], 0, 1, 2, 3, 4, 5, 6,
              7);
  n = tinfer(NODE("SpaceToDepth", TVM_IN(TF(1, 1, 2, 2)), TVM_ATTRS(b2)));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4)))[0], 1, 2, 3, 4);
  check_compute(NODE("DepthToSpace", TVM_IN(TF(2, 8, 2, 3)), TVM_ATTRS(b2)));
  check_compute(NODE(
      "DepthToSpace", TVM_IN(TF(1, 18, 2, 2)),
      TVM_ATTRS(tvm_gattr_int("blocksize", 3), tvm_gattr_str("mode", "CRD"))));
  check_compute(NODE("SpaceToDepth", TVM_IN(TF(2, 3, 4, 6)), TVM_ATTRS(b2)));

  EXPECT_SHAPE(
      NODE("GatherElements", TVM_IN(TF(3, 4), TV(TVM_I64, 2, 4)), TVM_NOATTRS),
      0, TVM_F32, 2, 4);
  expect_fail(
      NODE("GatherElements", TVM_IN(TF(3, 4), TV(TVM_I64, 4)), TVM_NOATTRS),
      TVM_ERR_INVALID, "rank", NULL);
  n = tinfer(NODE("GatherElements", TVM_IN(TF(2, 2), TV(TVM_I64, 2, 2)),
                  TVM_ATTRS(tvm_gattr_int("axis", 1))));
  EXPECT_VALS(tref(n, INS(D(1, 2, 3, 4), D(0, 0, 1, -2)))[0], 1, 1, 4, 3);
  check_compute_g(NODE("GatherElements",
                       TVM_IN(TF(3, 4, 2), TV(TVM_I32, 3, 5, 2)),
                       TVM_ATTRS(tvm_gattr_int("axis", 1))),
                  KINDS(G_REAL, G_IDX), 4);

  n = NODE("Size", TVM_IN(TF(2, 3, 4)), TVM_NOATTRS);
  EXPECT_SCALAR(n, 0, TVM_I64);
  EXPECT_VALS(tref(n, NULL)[0], 24);
  tvm_gvalue *st = tci64(1, (int64_t[]){10}), *li = tci64(1, (int64_t[]){4}),
             *de = tci64(1, (int64_t[]){-3});
  st->ndim = li->ndim = de->ndim = 0;
  n = NODE("Range", TVM_IN(st, li, de), TVM_NOATTRS);
  EXPECT_SHAPE(n, 0, TVM_I64, 2);
  EXPECT_VALS(tref(n, NULL)[0], 10, 7);
  n = NODE("Range", TVM_IN(tcscalar(1), tcscalar(2), tcscalar(0.25)),
           TVM_NOATTRS);
  EXPECT_SHAPE(n, 0, TVM_F32, 4);
  EXPECT_VALS(tref(n, NULL)[0], 1, 1.25, 1.5, 1.75);
  check_compute(n);
  expect_fail(
      NODE("Range", TVM_IN(tcscalar(1), tcscalar(2), tcscalar(0)), TVM_NOATTRS),
      TVM_ERR_INVALID, "delta is 0", NULL);
}

static void test_cast(void **state) {
  EXPECT_SHAPE(
      NODE("Cast", TVM_IN(TF(2, 3)), TVM_ATTRS(tvm_gattr_int("to", 7))), 0,
      TVM_I64, 2, 3);
  EXPECT_SHAPE(
      NODE("Cast", TVM_IN(TV(TVM_I32, 2)), TVM_ATTRS(tvm_gattr_int("to", 1))),
      0, TVM_F32, 2);
  expect_fail(NODE("Cast", TVM_IN(TF(2)), TVM_ATTRS(tvm_gattr_int("to", 8))),
              TVM_ERR_UNSUPPORTED, "'to' = 8", "strings");
  expect_fail(NODE("Cast", TVM_IN(TF(2)), TVM_NOATTRS), TVM_ERR_INVALID, "'to'",
              "required");
  tvm_gnode *n =
      tinfer(NODE("Cast", TVM_IN(TF(3)), TVM_ATTRS(tvm_gattr_int("to", 6))));
  EXPECT_VALS(tref(n, INS(D(1.7, -1.7, 3)))[0], 1, -1, 3);
  n = tinfer(
      NODE("Cast", TVM_IN(TV(TVM_I64, 2)), TVM_ATTRS(tvm_gattr_int("to", 1))));
  EXPECT_VALS(tref(n, INS(D(-5, 8)))[0], -5, 8);
  check_compute_g(
      NODE("Cast", TVM_IN(TF(3, 4)), TVM_ATTRS(tvm_gattr_int("to", 6))),
      KINDS(G_INT), 0);
  check_compute_g(NODE("Cast", TVM_IN(TV(TVM_I32, 3, 4)),
                       TVM_ATTRS(tvm_gattr_int("to", 1))),
                  KINDS(G_INT), 0);
  check_compute_g(
      NODE("Cast", TVM_IN(TV(TVM_I64, 5)), TVM_ATTRS(tvm_gattr_int("to", 6))),
      KINDS(G_INT), 0);

  n = NODE("ConstantOfShape", TVM_IN(TCI(2, 3)), TVM_NOATTRS);
  EXPECT_SHAPE(n, 0, TVM_F32, 2, 3);
  EXPECT_VALS(tref(n, NULL)[0], 0, 0, 0, 0, 0, 0);
  tvm_gvalue *five = tci64(1, (int64_t[]){5});
  n = NODE("ConstantOfShape", TVM_IN(TCI(2), five), TVM_NOATTRS);
  EXPECT_SHAPE(n, 0, TVM_I64, 2);
  EXPECT_VALS(tref(n, NULL)[0], 5, 5);
  check_compute(
      NODE("ConstantOfShape", TVM_IN(TCI(2, 2), tcscalar(1.5)), TVM_NOATTRS));
  expect_fail(NODE("ConstantOfShape", TVM_IN(TV(TVM_I64, 2)), TVM_NOATTRS),
              TVM_ERR_UNSUPPORTED, "constant", NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_transpose), cmocka_unit_test(test_concat_split),
      cmocka_unit_test(test_pad),       cmocka_unit_test(test_gather),
      cmocka_unit_test(test_slice),     cmocka_unit_test(test_reduce),
      cmocka_unit_test(test_argmax),    cmocka_unit_test(test_cast),
      cmocka_unit_test(test_rearrange),
  };
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
