/*
 * tests/unit/graph/test_passes_numeric.c - the reference graph evaluator
 * against hand-computed values, and the passes that change numbers
 * (fold_constants, simplify_inference) checked by evaluating the whole
 * graph before and after them on random inputs (1e-4 relative tolerance).
 */
#include "graph_test.h"

#define F32 tvm_dt(kDLFloat, 32, 1)

/* out0 = relu(x + c) * (x + c), out1 = x, out2 = c: an intermediate read
 * twice, graph outputs that are an input and a constant. */
static void test_eval_reference(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 3}, 2);
  tvm_gvalue *c = const_f32(g, "c", (int64_t[]){3}, 1, (float[]){0.5f, -0.25f, 2.0f});
  tvm_gvalue *s = TVM_OP(g, "Add", TVM_IN(x, c), TVM_NOATTRS);
  tvm_gvalue *r = TVM_OP(g, "Relu", TVM_IN(s), TVM_NOATTRS);
  tvm_gvalue *m = TVM_OP(g, "Mul", TVM_IN(r, s), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, m));
  CHECK_OK(tvm_graph_mark_output(g, x));
  CHECK_OK(tvm_graph_mark_output(g, c));
  tensors in, out;
  tensors_alloc(&in, &g->inputs, 5);
  float *xd = in.t[0].data;
  const float cv[3] = {0.5f, -0.25f, 2.0f};
  eval_graph(g, &in, &out);
  const float *o = out.t[0].data;
  for (int i = 0; i < 6; i++) {
    float v = xd[i] + cv[i % 3];
    float want = (v > 0 ? v : 0) * v;
    assert_true(fabsf(o[i] - want) <= 1e-6f);
  }
  assert_memory_equal(out.t[1].data, xd, 6 * sizeof(float));
  assert_memory_equal(out.t[2].data, cv, 3 * sizeof(float));
  tensors_free(&out);

  /* A mismatched input shape is refused, naming the input. */
  in.t[0].shape[1] = 4;
  tensors_alloc(&out, &g->outputs, 0);
  const DLTensor *ip[1] = {&in.t[0]};
  DLTensor *op[3] = {&out.t[0], &out.t[1], &out.t[2]};
  assert_int_equal(tvm_graph_eval_reference(g, ip, op), TVM_ERR_INVALID);
  assert_string_equal(tvm_diag_message(),
                      "input 0 (%x) has another shape than the graph's");
  tensors_free(&out);
  tensors_free(&in);
  tvm_graph_free(g);
}

/* Evaluates g on random inputs, runs pass, evaluates again, compares. */
static void check_pass_keeps_numbers(tvm_graph *g, tvm_status (*pass)(tvm_graph *),
                                     int nodes_after) {
  CHECK_OK(tvm_graph_status(g));
  tensors in, before, after;
  tensors_alloc(&in, &g->inputs, 42);
  eval_graph(g, &in, &before);
  CHECK_OK(pass(g));
  assert_int_equal((int)g->nodes.len, nodes_after);
  eval_graph(g, &in, &after);
  expect_close(&before, &after, 1e-4);
  tensors_free(&in);
  tensors_free(&before);
  tensors_free(&after);
}

/* A weight preprocessing chain (constant) feeding a Conv on the input. */
static void test_fold_numeric(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 3, 9, 9}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){8, 3, 3, 3}, 4, 11, 1.0);
  tvm_gvalue *k = tvm_graph_random(g, "k", (int64_t[]){8, 1, 1, 1}, 4, 12, 1.0);
  tvm_gvalue *w2 = TVM_OP(g, "Mul", TVM_IN(w, k), TVM_NOATTRS);
  w2 = TVM_OP(g, "Tanh", TVM_IN(w2), TVM_NOATTRS);
  w2 = TVM_OP(g, "Identity", TVM_IN(w2), TVM_NOATTRS);
  tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){8}, 1, 13, 1.0);
  b = TVM_OP(g, "Sigmoid", TVM_IN(b), TVM_NOATTRS);
  tvm_gvalue *y = tvm_graph_apply(g, "Conv", "conv", TVM_IN(x, w2, b),
                                  TVM_ATTRS(tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2),
                                            tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4)),
                                  1, NULL);
  y = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, y));
  check_pass_keeps_numbers(g, tvm_graph_pass_fold_constants, 2);
  tvm_graph_free(g);
}

/* Conv+BN (with a bias), grouped Conv+BN (without), a lone BN, Dropout
 * and Identity. */
static void test_simplify_numeric(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 3, 10, 10}, 4);
  int64_t c6[1] = {6}, c3[1] = {3};
  tvm_gvalue *bn[5], *p[5], *q[5];
  for (int i = 1; i < 5; i++) {
    bn[i] = tvm_graph_random(g, NULL, c6, 1, 100 + i, 1.0);
    p[i] = tvm_graph_random(g, NULL, c3, 1, 200 + i, 1.0);
    q[i] = tvm_graph_random(g, NULL, c6, 1, 300 + i, 1.0);
  }
  /* Variances must be positive. */
  for (int i = 0; i < 6; i++) ((float *)bn[4]->data)[i] = 0.1f + (float)i * 0.3f;
  for (int i = 0; i < 3; i++) ((float *)p[4]->data)[i] = 0.5f + (float)i;
  for (int i = 0; i < 6; i++) ((float *)q[4]->data)[i] = 2.0f - (float)i * 0.2f;
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){6, 3, 3, 3}, 4, 1, 0.5);
  tvm_gvalue *bias = tvm_graph_random(g, "bias", c6, 1, 2, 0.5);
  bn[0] = tvm_graph_apply(g, "Conv", "conv1", TVM_IN(x, w, bias),
                          TVM_ATTRS(tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4)),
                          1, NULL);
  tvm_gvalue *y = tvm_graph_apply(g, "BatchNormalization", "bn1", bn, 5,
                                  TVM_ATTRS(tvm_gattr_float("epsilon", 1e-3)), 1, NULL);
  y = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
  y = TVM_OP(g, "Dropout", TVM_IN(y), TVM_NOATTRS);
  p[0] = x;
  tvm_gvalue *z = tvm_graph_apply(g, "BatchNormalization", "bn2", p, 5, NULL, 0, 1, NULL);
  z = TVM_OP(g, "Identity", TVM_IN(z), TVM_NOATTRS);
  /* Depthwise-style: 3 groups, 2 output channels each, a 1x3 kernel. */
  tvm_gvalue *w2 = tvm_graph_random(g, "w2", (int64_t[]){6, 1, 1, 3}, 4, 3, 0.5);
  q[0] = tvm_graph_apply(g, "Conv", "conv2", TVM_IN(z, w2),
                         TVM_ATTRS(tvm_gattr_ints("pads", (int64_t[]){0, 1, 0, 1}, 4),
                                   tvm_gattr_int("group", 3)),
                         1, NULL);
  z = tvm_graph_apply(g, "BatchNormalization", "bn3", q, 5, NULL, 0, 1, NULL);
  tvm_gvalue *o = TVM_OP(g, "Add", TVM_IN(y, z), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, o));
  CHECK_OK(tvm_graph_mark_output(g, z));
  /* conv1, relu, mul, add, conv2, add */
  check_pass_keeps_numbers(g, tvm_graph_pass_simplify_inference, 6);
  tvm_graph_free(g);
}

/* Gemm (transB, C of shape [1, M], beta != 1), Gemm without C and with
 * beta, and a 2-D MatMul, each followed by a BatchNormalization. */
static void test_simplify_gemm_numeric(void **state) {
  if (!tvm_gop_find("Gemm") || !tvm_gop_find("MatMul")) skip();
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){3, 5}, 2);
  tvm_gvalue *B = tvm_graph_random(g, "B", (int64_t[]){4, 5}, 2, 1, 0.5);
  tvm_gvalue *C = tvm_graph_random(g, "C", (int64_t[]){1, 4}, 2, 2, 0.5);
  tvm_gvalue *y = tvm_graph_apply(g, "Gemm", "fc", TVM_IN(x, B, C),
                                  TVM_ATTRS(tvm_gattr_int("transB", 1),
                                            tvm_gattr_float("beta", 0.5),
                                            tvm_gattr_float("alpha", 2.0)),
                                  1, NULL);
  tvm_gvalue *in[5] = {y};
  for (int i = 1; i < 5; i++) in[i] = tvm_graph_random(g, NULL, (int64_t[]){4}, 1, i, 1.0);
  for (int i = 0; i < 4; i++) ((float *)in[4]->data)[i] = 0.3f + (float)i;
  y = tvm_graph_apply(g, "BatchNormalization", "bn", in, 5, NULL, 0, 1, NULL);
  tvm_gvalue *B2 = tvm_graph_random(g, "B2", (int64_t[]){4, 6}, 2, 3, 0.5);
  y = tvm_graph_apply(g, "Gemm", "fc2", TVM_IN(y, B2),
                      TVM_ATTRS(tvm_gattr_float("beta", 3.0)), 1, NULL);
  tvm_gvalue *in2[5] = {y};
  for (int i = 1; i < 5; i++) in2[i] = tvm_graph_random(g, NULL, (int64_t[]){6}, 1, 20 + i, 1.0);
  for (int i = 0; i < 6; i++) ((float *)in2[4]->data)[i] = 0.2f + (float)i;
  y = tvm_graph_apply(g, "BatchNormalization", "bn2", in2, 5, NULL, 0, 1, NULL);
  tvm_gvalue *M = tvm_graph_random(g, "M", (int64_t[]){6, 3}, 2, 4, 0.5);
  y = tvm_graph_apply(g, "MatMul", "mm", TVM_IN(y, M), TVM_NOATTRS, 1, NULL);
  tvm_gvalue *in3[5] = {y};
  for (int i = 1; i < 5; i++) in3[i] = tvm_graph_random(g, NULL, (int64_t[]){3}, 1, 30 + i, 1.0);
  for (int i = 0; i < 3; i++) ((float *)in3[4]->data)[i] = 1.0f + (float)i;
  y = tvm_graph_apply(g, "BatchNormalization", "bn3", in3, 5, NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  /* fc, fc2, mm, add */
  check_pass_keeps_numbers(g, tvm_graph_pass_simplify_inference, 4);
  tvm_graph_free(g);
}

/* Pow by a constant scalar 2 (float32 of rank 0, int64 of shape [1]) is
 * a Mul of the base by itself; Pow by 3, by a [2]-shaped 2 (not a scalar:
 * it broadcasts) and of an int32 base stay Pow.  Values unchanged. */
static void test_simplify_pow(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){3, 2}, 2);
  tvm_gvalue *xi = tvm_graph_input(g, "xi", tvm_dt(kDLInt, 32, 1),
                                   (int64_t[]){3, 2}, 2);
  float two = 2.0f, three = 3.0f, twos[2] = {2.0f, 2.0f};
  int64_t two64 = 2;
  tvm_gvalue *e0 = tvm_graph_const(g, "e0", F32, NULL, 0, &two);
  tvm_gvalue *e1 = tvm_graph_const(g, "e1", tvm_dt(kDLInt, 64, 1),
                                   (int64_t[]){1}, 1, &two64);
  tvm_gvalue *e3 = tvm_graph_const(g, "e3", F32, NULL, 0, &three);
  tvm_gvalue *e2 = tvm_graph_const(g, "e2", F32, (int64_t[]){2}, 1, twos);
  tvm_gvalue *ei = tvm_graph_const(g, "ei", tvm_dt(kDLInt, 32, 1), NULL, 0,
                                   (int32_t[]){2});
  tvm_gvalue *y[5] = {
      tvm_graph_apply(g, "Pow", "p0", TVM_IN(x, e0), NULL, 0, 1, NULL),
      tvm_graph_apply(g, "Pow", "p1", TVM_IN(x, e1), NULL, 0, 1, NULL),
      tvm_graph_apply(g, "Pow", "p3", TVM_IN(x, e3), NULL, 0, 1, NULL),
      tvm_graph_apply(g, "Pow", "p2", TVM_IN(x, e2), NULL, 0, 1, NULL),
      tvm_graph_apply(g, "Pow", "pi", TVM_IN(xi, ei), NULL, 0, 1, NULL)};
  const char *names[5];
  for (int i = 0; i < 5; i++) {
    CHECK_OK(tvm_graph_mark_output(g, y[i]));
    names[i] = y[i]->name;
  }
  check_pass_keeps_numbers(g, tvm_graph_pass_simplify_inference, 5);
  int pow = 0, mul = 0;
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    pow += strcmp(n->op, "Pow") == 0;
    mul += strcmp(n->op, "Mul") == 0 && n->inputs[0] == x &&
           n->inputs[1] == x;
  }
  assert_int_equal(pow, 3);
  assert_int_equal(mul, 2);
  /* the graph's outputs keep their names */
  for (int i = 0; i < 5; i++)
    assert_string_equal(((tvm_gvalue *)g->outputs.data[i])->name, names[i]);
  tvm_graph_free(g);
}

/* ReduceMean / ReduceMax of a 4-D float32 tensor over {2, 3} (the
 * attribute), {-1, -2} (a constant input, opset 18) with keepdims become
 * GlobalAveragePool / GlobalMaxPool; over {1, 2}, without keepdims, or
 * over one axis they stay.  Values unchanged. */
static void test_simplify_spatial_reduce(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 3, 4, 5}, 4);
  tvm_gvalue *a = tvm_graph_const(g, "a", tvm_dt(kDLInt, 64, 1),
                                  (int64_t[]){2}, 1, (int64_t[]){-1, -2});
  tvm_gattr hw = tvm_gattr_ints("axes", (int64_t[]){2, 3}, 2);
  tvm_gattr ch = tvm_gattr_ints("axes", (int64_t[]){1, 2}, 2);
  tvm_gattr w1 = tvm_gattr_ints("axes", (int64_t[]){3}, 1);
  tvm_gattr nokeep[2] = {hw, tvm_gattr_int("keepdims", 0)};
  tvm_gvalue *y[6] = {
      tvm_graph_apply(g, "ReduceMean", "m0", TVM_IN(x), &hw, 1, 1, NULL),
      tvm_graph_apply(g, "ReduceMax", "m1", TVM_IN(x, a), NULL, 0, 1, NULL),
      tvm_graph_apply(g, "ReduceMean", "m2", TVM_IN(x, a), NULL, 0, 1, NULL),
      tvm_graph_apply(g, "ReduceMean", "k0", TVM_IN(x), &ch, 1, 1, NULL),
      tvm_graph_apply(g, "ReduceMean", "k1", TVM_IN(x), nokeep, 2, 1, NULL),
      tvm_graph_apply(g, "ReduceMax", "k2", TVM_IN(x), &w1, 1, 1, NULL)};
  for (int i = 0; i < 6; i++) CHECK_OK(tvm_graph_mark_output(g, y[i]));
  check_pass_keeps_numbers(g, tvm_graph_pass_simplify_inference, 6);
  int gap = 0, gmp = 0, red = 0;
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    gap += strcmp(n->op, "GlobalAveragePool") == 0;
    gmp += strcmp(n->op, "GlobalMaxPool") == 0;
    red += strncmp(n->op, "Reduce", 6) == 0;
  }
  assert_int_equal(gap, 2);
  assert_int_equal(gmp, 1);
  assert_int_equal(red, 3);
  tvm_graph_free(g);
}

/* The passes in a compiler's order on a small residual network with
 * duplicated branches, constant weight preprocessing and a dead head. */
static tvm_status all_passes(tvm_graph *g) {
  tvm_status st = tvm_graph_pass_fold_constants(g);
  if (!st) st = tvm_graph_pass_simplify_inference(g);
  if (!st) st = tvm_graph_pass_cse(g);
  if (!st) st = tvm_graph_pass_dce(g);
  return st;
}

static void test_pipeline_numeric(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 4, 8, 8}, 4);
  tvm_gvalue *y = x;
  for (int blk = 0; blk < 2; blk++) {
    tvm_gvalue *w = tvm_graph_random(g, NULL, (int64_t[]){4, 4, 3, 3}, 4, 50 + blk, 0.3);
    tvm_gvalue *k = tvm_graph_const(g, NULL, F32, NULL, 0, (float[]){0.5f});
    w = TVM_OP(g, "Mul", TVM_IN(w, k), TVM_NOATTRS);  /* folded */
    tvm_gvalue *bn[5];
    for (int i = 1; i < 5; i++) bn[i] = tvm_graph_random(g, NULL, (int64_t[]){4}, 1, 60 + 4 * blk + i, 1.0);
    for (int i = 0; i < 4; i++) ((float *)bn[4]->data)[i] = 0.5f + (float)i;
    tvm_gvalue *branch[2];
    for (int b = 0; b < 2; b++) { /* two identical branches: CSE merges them */
      bn[0] = tvm_graph_apply(g, "Conv", NULL, TVM_IN(y, w),
                              TVM_ATTRS(tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4)),
                              1, NULL);
      tvm_gvalue *t = tvm_graph_apply(g, "BatchNormalization", NULL, bn, 5, NULL, 0, 1, NULL);
      branch[b] = TVM_OP(g, "Relu", TVM_IN(t), TVM_NOATTRS);
    }
    tvm_gvalue *s = TVM_OP(g, "Add", TVM_IN(branch[0], branch[1]), TVM_NOATTRS);
    y = TVM_OP(g, "Add", TVM_IN(s, y), TVM_NOATTRS);
    TVM_OP(g, "Sigmoid", TVM_IN(y), TVM_NOATTRS);       /* dead */
  }
  y = TVM_OP(g, "Dropout", TVM_IN(y), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, y));
  /* per block: Conv, Relu, Add, Add */
  check_pass_keeps_numbers(g, all_passes, 8);
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_eval_reference),
      cmocka_unit_test(test_fold_numeric),
      cmocka_unit_test(test_simplify_numeric),
      cmocka_unit_test(test_simplify_gemm_numeric),
      cmocka_unit_test(test_simplify_pow),
      cmocka_unit_test(test_simplify_spatial_reduce),
      cmocka_unit_test(test_pipeline_numeric),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
