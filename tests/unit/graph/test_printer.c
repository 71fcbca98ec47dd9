/*
 * tests/unit/graph/test_printer.c - the exact text form of graphs: a
 * conv -> batchnorm -> relu -> add block, default names, wrapped lines,
 * several outputs, absent inputs, layouts, groups, attribute values.
 */
#include "graph_test.h"

#define F32 tvm_dt(kDLFloat, 32, 1)

/* The residual block of the brief, named as an ONNX model would be. */
static void test_conv_bn_relu_add(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "data", F32, (int64_t[]){1, 3, 224, 224}, 4);
  tvm_gvalue *skip = tvm_graph_input(g, "skip", F32, (int64_t[]){1, 64, 112, 112}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){64, 3, 7, 7}, 4, 1, 0.1);
  int64_t c64[1] = {64};
  tvm_gvalue *gam = tvm_graph_random(g, "gamma", c64, 1, 2, 1.0);
  tvm_gvalue *bet = tvm_graph_random(g, "beta", c64, 1, 3, 1.0);
  tvm_gvalue *mean = tvm_graph_random(g, "mean", c64, 1, 4, 1.0);
  tvm_gvalue *var = tvm_graph_random(g, "var", c64, 1, 5, 1.0);
  tvm_gvalue *y = tvm_graph_apply(
      g, "Conv", "conv1", TVM_IN(x, w),
      TVM_ATTRS(tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2),
                tvm_gattr_ints("pads", (int64_t[]){3, 3, 3, 3}, 4)),
      1, NULL);
  y = tvm_graph_apply(g, "BatchNormalization", "bn1", TVM_IN(y, gam, bet, mean, var),
                      TVM_ATTRS(tvm_gattr_float("epsilon", (float)1e-5),
                                tvm_gattr_int("_opset", 15)),
                      1, NULL);
  y = tvm_graph_apply(g, "Relu", "relu1", TVM_IN(y), TVM_NOATTRS, 1, NULL);
  y = tvm_graph_apply(g, "Add", "out", TVM_IN(y, skip), TVM_NOATTRS, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  CHECK_OK(tvm_graph_status(g));
  expect_graph(g,
               "graph(%data: float32[1, 3, 224, 224], %skip: float32[1, 64, 112, 112]) {\n"
               "  %w: const float32[64, 3, 7, 7]\n"
               "  %gamma: const float32[64]\n"
               "  %beta: const float32[64]\n"
               "  %mean: const float32[64]\n"
               "  %var: const float32[64]\n"
               "  %conv1 = Conv(%data, %w) {strides=[2, 2], pads=[3, 3, 3, 3]}\n"
               "           -> float32[1, 64, 112, 112]\n"
               "  %bn1 = BatchNormalization(%conv1, %gamma, %beta, %mean, %var) {epsilon=1e-05}\n"
               "         -> float32[1, 64, 112, 112]\n"
               "  %relu1 = Relu(%bn1) -> float32[1, 64, 112, 112]\n"
               "  %out = Add(%relu1, %skip) -> float32[1, 64, 112, 112]\n"
               "  return %out\n"
               "}\n");
  tvm_graph_free(g);
}

/* Unnamed nodes, several outputs, absent optional inputs, constant and
 * multiple graph outputs, string/float attributes, layouts and groups. */
static void test_details(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 4}, 2);
  tvm_gvalue *r = TVM_OP(g, "Relu", TVM_IN(x), TVM_NOATTRS);
  tvm_gnode *n = NULL;
  tvm_graph_apply(g, "Dropout", NULL, (tvm_gvalue *[]){r, NULL, NULL}, 3,
                  TVM_ATTRS(tvm_gattr_float("ratio", 0.25),
                            tvm_gattr_str("note", "a \"b\"\n"),
                            tvm_gattr_floats("fs", (double[]){1.0, 0.1, -2.5e-7}, 3),
                            tvm_gattr_ints("none", NULL, 0)),
                  2, &n);
  tvm_gvalue *k = tvm_graph_const(g, "k", tvm_dt(kDLInt, 64, 1), (int64_t[]){2}, 1,
                                  (int64_t[]){2, 4});
  tvm_gvalue *s = tvm_graph_const(g, "s", F32, NULL, 0, (float[]){3.0f});
  CHECK_OK(tvm_graph_mark_output(g, n->outputs[0]));
  CHECK_OK(tvm_graph_mark_output(g, k));
  CHECK_OK(tvm_graph_status(g));
  n->outputs[0]->layout = "NC4n";
  r->producer->group = 3;
  expect_graph(g,
               "graph(%x: float32[2, 4]) {\n"
               "  %k: const int64[2]\n"
               "  %2 = Relu(%x) -> float32[2, 4]  # group 3\n"
               "  %4, %5 = Dropout(%2, _, _) {ratio=0.25, note=\"a \\\"b\\\"\\x0a\", fs=[1.0, 0.1, -2.5e-07], none=[]}\n"
               "           -> (float32[2, 4] (NC4n), bool[2, 4])\n"
               "  return (%4, %k)\n"
               "}\n");
  (void)s; /* unused constants are not shown */
  tvm_graph_free(g);
}

/* The empty graph. */
static void test_empty(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  expect_graph(g, "graph() {\n  return ()\n}\n");
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv_bn_relu_add),
      cmocka_unit_test(test_details),
      cmocka_unit_test(test_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
