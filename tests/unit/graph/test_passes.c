/*
 * tests/unit/graph/test_passes.c - each graph pass shown by the printed
 * graph before and after it (dead-code elimination, common-subexpression
 * elimination, constant folding, inference simplification), plus the
 * toposort that every pass relies on.
 */
#include <stdlib.h>

#include "graph_test.h"

#define F32 tvm_dt(kDLFloat, 32, 1)

/* Builds an op with a name and no attributes. */
static tvm_gvalue *op1(tvm_graph *g, const char *op, const char *name,
                       tvm_gvalue *a) {
  return tvm_graph_apply(g, op, name, &a, 1, NULL, 0, 1, NULL);
}
static tvm_gvalue *op2(tvm_graph *g, const char *op, const char *name,
                       tvm_gvalue *a, tvm_gvalue *b) {
  tvm_gvalue *in[2] = {a, b};
  return tvm_graph_apply(g, op, name, in, 2, NULL, 0, 1, NULL);
}

/* Nodes reaching no output go, with the constants only they read; a node
 * with one used output of two stays whole. */
static void test_dce(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4}, 1);
  tvm_gvalue *k = const_f32(g, "k", (int64_t[]){4}, 1, (float[]){1, 2, 3, 4});
  tvm_gvalue *a = op1(g, "Relu", "a", x);
  tvm_gvalue *b = op1(g, "Neg", "dead1", x);
  op1(g, "Exp", "dead2", b);
  op2(g, "Add", "dead3", x, k);
  tvm_gvalue *d = tvm_graph_apply(g, "Dropout", "drop", &a, 1, NULL, 0, 2, NULL);
  tvm_gvalue *out = op1(g, "Abs", "out", d);
  CHECK_OK(tvm_graph_mark_output(g, out));
  CHECK_OK(tvm_graph_status(g));
  expect_graph(g,
               "graph(%x: float32[4]) {\n"
               "  %k: const float32[4]\n"
               "  %a = Relu(%x) -> float32[4]\n"
               "  %dead1 = Neg(%x) -> float32[4]\n"
               "  %dead2 = Exp(%dead1) -> float32[4]\n"
               "  %dead3 = Add(%x, %k) -> float32[4]\n"
               "  %drop, %drop.1 = Dropout(%a) -> (float32[4], bool[4])\n"
               "  %out = Abs(%drop) -> float32[4]\n"
               "  return %out\n"
               "}\n");
  size_t nvalues = g->values.len;
  CHECK_OK(tvm_graph_pass_dce(g));
  expect_graph(g,
               "graph(%x: float32[4]) {\n"
               "  %a = Relu(%x) -> float32[4]\n"
               "  %drop, %drop.1 = Dropout(%a) -> (float32[4], bool[4])\n"
               "  %out = Abs(%drop) -> float32[4]\n"
               "  return %out\n"
               "}\n");
  /* x, a, drop, drop.1, out: the dead values and k are gone. */
  assert_int_equal(g->values.len, 5);
  assert_true(nvalues > 5);
  tvm_graph_free(g);
}

/* Equal nodes merge, in chains (r2 -> r1 makes a2 equal a1), regardless of
 * attribute order; different attributes or inputs keep nodes apart. */
static void test_cse(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 2, 5, 5}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){2, 2, 3, 3}, 4, 7, 0.5);
  tvm_gvalue *r1 = op1(g, "Relu", "r1", x);
  tvm_gvalue *r2 = op1(g, "Relu", "r2", x);
  tvm_gvalue *a1 = op2(g, "Add", "a1", r1, x);
  tvm_gvalue *a2 = op2(g, "Add", "a2", r2, x);
  tvm_gvalue *a3 = op2(g, "Add", "a3", x, r2); /* operands swapped: kept */
  tvm_gattr s = tvm_gattr_ints("strides", (int64_t[]){1, 1}, 2);
  tvm_gattr p = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4);
  tvm_gattr p0 = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 2}, 4);
  tvm_gvalue *c1 = tvm_graph_apply(g, "Conv", "c1", TVM_IN(a1, w), TVM_ATTRS(s, p), 1, NULL);
  tvm_gvalue *c2 = tvm_graph_apply(g, "Conv", "c2", TVM_IN(a2, w), TVM_ATTRS(p, s), 1, NULL);
  tvm_gvalue *c3 = tvm_graph_apply(g, "Conv", "c3", TVM_IN(a1, w), TVM_ATTRS(s, p0), 1, NULL);
  tvm_gvalue *o = op2(g, "Add", "o", c1, c2);
  CHECK_OK(tvm_graph_mark_output(g, o));
  CHECK_OK(tvm_graph_mark_output(g, c2));
  CHECK_OK(tvm_graph_mark_output(g, a3));
  CHECK_OK(tvm_graph_mark_output(g, c3));
  CHECK_OK(tvm_graph_status(g));
  expect_graph(g,
               "graph(%x: float32[1, 2, 5, 5]) {\n"
               "  %w: const float32[2, 2, 3, 3]\n"
               "  %r1 = Relu(%x) -> float32[1, 2, 5, 5]\n"
               "  %r2 = Relu(%x) -> float32[1, 2, 5, 5]\n"
               "  %a1 = Add(%r1, %x) -> float32[1, 2, 5, 5]\n"
               "  %a2 = Add(%r2, %x) -> float32[1, 2, 5, 5]\n"
               "  %a3 = Add(%x, %r2) -> float32[1, 2, 5, 5]\n"
               "  %c1 = Conv(%a1, %w) {strides=[1, 1], pads=[1, 1, 1, 1]} -> float32[1, 2, 5, 5]\n"
               "  %c2 = Conv(%a2, %w) {pads=[1, 1, 1, 1], strides=[1, 1]} -> float32[1, 2, 5, 5]\n"
               "  %c3 = Conv(%a1, %w) {strides=[1, 1], pads=[1, 1, 1, 2]} -> float32[1, 2, 5, 6]\n"
               "  %o = Add(%c1, %c2) -> float32[1, 2, 5, 5]\n"
               "  return (%o, %c2, %a3, %c3)\n"
               "}\n");
  CHECK_OK(tvm_graph_pass_cse(g));
  expect_graph(g,
               "graph(%x: float32[1, 2, 5, 5]) {\n"
               "  %w: const float32[2, 2, 3, 3]\n"
               "  %r1 = Relu(%x) -> float32[1, 2, 5, 5]\n"
               "  %a1 = Add(%r1, %x) -> float32[1, 2, 5, 5]\n"
               "  %a3 = Add(%x, %r1) -> float32[1, 2, 5, 5]\n"
               "  %c1 = Conv(%a1, %w) {strides=[1, 1], pads=[1, 1, 1, 1]} -> float32[1, 2, 5, 5]\n"
               "  %c3 = Conv(%a1, %w) {strides=[1, 1], pads=[1, 1, 1, 2]} -> float32[1, 2, 5, 6]\n"
               "  %o = Add(%c1, %c1) -> float32[1, 2, 5, 5]\n"
               "  return (%o, %c1, %a3, %c3)\n"
               "}\n");
  tvm_graph_free(g);
}

/* Equal constants merge (then their readers do); a constant differing in
 * one byte or in shape does not, nor one that nothing reads. */
static void test_cse_constants(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2}, 1);
  /* read by nothing (a weight a fold replaced): never merged into */
  tvm_gvalue *k0 = const_f32(g, "k0", (int64_t[]){2}, 1, (float[]){1, 2});
  assert_non_null(k0);
  tvm_gvalue *k1 = const_f32(g, "k1", (int64_t[]){2}, 1, (float[]){1, 2});
  tvm_gvalue *k2 = const_f32(g, "k2", (int64_t[]){2}, 1, (float[]){1, 2});
  tvm_gvalue *k3 = const_f32(g, "k3", (int64_t[]){2}, 1, (float[]){1, 3});
  tvm_gvalue *k4 = const_f32(g, "k4", (int64_t[]){1, 2}, 2, (float[]){1, 2});
  tvm_gvalue *a = op2(g, "Mul", "a", x, k1);
  tvm_gvalue *b = op2(g, "Mul", "b", x, k2);
  tvm_gvalue *c = op2(g, "Mul", "c", x, k3);
  tvm_gvalue *d = op2(g, "Mul", "d", x, k4);
  tvm_gvalue *s = op2(g, "Add", "s", a, b);
  s = op2(g, "Add", "s2", s, c);
  CHECK_OK(tvm_graph_mark_output(g, s));
  CHECK_OK(tvm_graph_mark_output(g, d));
  CHECK_OK(tvm_graph_mark_output(g, k2));
  CHECK_OK(tvm_graph_pass_cse(g));
  expect_graph(g,
               "graph(%x: float32[2]) {\n"
               "  %k1: const float32[2]\n"
               "  %k3: const float32[2]\n"
               "  %k4: const float32[1, 2]\n"
               "  %a = Mul(%x, %k1) -> float32[2]\n"
               "  %c = Mul(%x, %k3) -> float32[2]\n"
               "  %d = Mul(%x, %k4) -> float32[1, 2]\n"
               "  %s = Add(%a, %a) -> float32[2]\n"
               "  %s2 = Add(%s, %c) -> float32[2]\n"
               "  return (%s2, %d, %k1)\n"
               "}\n");
  tvm_graph_free(g);
}

/* Big constants (the hash reads a sample of their words): two equal ones
 * merge; one differing only in a word the sample skips does not. */
static void test_cse_big_constants(void **state) {
  enum { N = 4096 }; /* 2048 words: the sample reads every other one */
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  float *v = calloc(N, sizeof(float));
  assert_non_null(v);
  for (int i = 0; i < N; i++) v[i] = (float)i;
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){N}, 1);
  tvm_gvalue *k1 = const_f32(g, "k1", (int64_t[]){N}, 1, v);
  tvm_gvalue *k2 = const_f32(g, "k2", (int64_t[]){N}, 1, v);
  v[3] = -1.0f; /* word 1, between the sampled words 0 and 2 */
  tvm_gvalue *k3 = const_f32(g, "k3", (int64_t[]){N}, 1, v);
  free(v);
  tvm_gvalue *a = op2(g, "Mul", "a", x, k1);
  tvm_gvalue *b = op2(g, "Mul", "b", x, k2);
  tvm_gvalue *c = op2(g, "Mul", "c", x, k3);
  CHECK_OK(tvm_graph_mark_output(g, a));
  CHECK_OK(tvm_graph_mark_output(g, b));
  CHECK_OK(tvm_graph_mark_output(g, c));
  CHECK_OK(tvm_graph_pass_cse(g));
  expect_graph(g,
               "graph(%x: float32[4096]) {\n"
               "  %k1: const float32[4096]\n"
               "  %k3: const float32[4096]\n"
               "  %a = Mul(%x, %k1) -> float32[4096]\n"
               "  %c = Mul(%x, %k3) -> float32[4096]\n"
               "  return (%a, %a, %c)\n"
               "}\n");
  tvm_graph_free(g);
}

/* Constant subgraphs collapse into constants (cascading), Shape of a
 * static shape folds, Identity goes; nodes on inputs stay. */
static void test_fold_constants(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 3}, 2);
  tvm_gvalue *a = const_f32(g, "a", (int64_t[]){3}, 1, (float[]){1, 2, 3});
  tvm_gvalue *b = const_f32(g, "b", (int64_t[]){3}, 1, (float[]){10, 20, 30});
  tvm_gvalue *s = op2(g, "Add", "s", a, b);
  tvm_gvalue *t = op2(g, "Mul", "t", s, a);
  tvm_gvalue *c = op1(g, "Constant", "c", b);
  tvm_gvalue *u = op2(g, "Sub", "u", t, c);
  tvm_gvalue *y = op2(g, "Add", "y", x, u);
  tvm_gvalue *i = op1(g, "Identity", "i", y);
  tvm_gvalue *r = op1(g, "Relu", "r", i);
  tvm_gvalue *sh = op1(g, "Shape", "shape", r);
  CHECK_OK(tvm_graph_mark_output(g, r));
  CHECK_OK(tvm_graph_mark_output(g, sh));
  CHECK_OK(tvm_graph_status(g));
  expect_graph(g,
               "graph(%x: float32[2, 3]) {\n"
               "  %a: const float32[3]\n"
               "  %b: const float32[3]\n"
               "  %s = Add(%a, %b) -> float32[3]\n"
               "  %t = Mul(%s, %a) -> float32[3]\n"
               "  %c = Constant(%b) -> float32[3]\n"
               "  %u = Sub(%t, %c) -> float32[3]\n"
               "  %y = Add(%x, %u) -> float32[2, 3]\n"
               "  %i = Identity(%y) -> float32[2, 3]\n"
               "  %r = Relu(%i) -> float32[2, 3]\n"
               "  %shape = Shape(%r) -> int64[2]\n"
               "  return (%r, %shape)\n"
               "}\n");
  CHECK_OK(tvm_graph_pass_fold_constants(g));
  expect_graph(g,
               "graph(%x: float32[2, 3]) {\n"
               "  %u: const float32[3]\n"
               "  %shape: const int64[2]\n"
               "  %y = Add(%x, %u) -> float32[2, 3]\n"
               "  %r = Relu(%y) -> float32[2, 3]\n"
               "  return (%r, %shape)\n"
               "}\n");
  /* (a + b) * a - b */
  const float *ud = u->data;
  assert_true(ud[0] == 1.0f && ud[1] == 24.0f && ud[2] == 69.0f);
  const int64_t *sd = sh->data;
  assert_true(sd[0] == 2 && sd[1] == 3);
  assert_int_equal(u->kind, TVM_GV_CONST);
  assert_null(u->producer);
  tvm_graph_free(g);
}

/* BatchNormalization after a Conv folds into it (with or without a bias);
 * alone it becomes Mul + Add; Dropout and Identity go. */
static void test_simplify_inference(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 3, 6, 6}, 4);
  int64_t c4[1] = {4}, c3[1] = {3};
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){4, 3, 3, 3}, 4, 1, 0.5);
  tvm_gvalue *bias = tvm_graph_random(g, "bias", c4, 1, 2, 0.5);
  tvm_gvalue *bn[5] = {NULL};
  for (int i = 1; i < 5; i++) bn[i] = tvm_graph_random(g, NULL, c4, 1, 10 + i, 1.0);
  tvm_gvalue *y = tvm_graph_apply(
      g, "Conv", "conv1", TVM_IN(x, w, bias),
      TVM_ATTRS(tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4)), 1, NULL);
  bn[0] = y;
  y = tvm_graph_apply(g, "BatchNormalization", "bn1", bn, 5,
                      TVM_ATTRS(tvm_gattr_float("epsilon", 1e-3)), 1, NULL);
  y = op1(g, "Relu", "relu1", y);
  y = op1(g, "Dropout", "drop", y);
  /* A lone BatchNormalization on the input. */
  tvm_gvalue *p[5] = {NULL};
  p[0] = x;
  for (int i = 1; i < 5; i++) p[i] = tvm_graph_random(g, NULL, c3, 1, 20 + i, 1.0);
  tvm_gvalue *z = tvm_graph_apply(g, "BatchNormalization", "bn2", p, 5, NULL, 0, 1, NULL);
  z = op1(g, "Identity", "id", z);
  tvm_gvalue *w2 = tvm_graph_random(g, "w2", (int64_t[]){4, 3, 1, 1}, 4, 3, 0.5);
  z = tvm_graph_apply(g, "Conv", "conv2", TVM_IN(z, w2), TVM_NOATTRS, 1, NULL);
  /* A Conv without bias whose BatchNormalization output is returned. */
  tvm_gvalue *q[5] = {z};
  for (int i = 1; i < 5; i++) q[i] = bn[i];
  z = tvm_graph_apply(g, "BatchNormalization", "bn3", q, 5, NULL, 0, 1, NULL);
  tvm_gvalue *o = op2(g, "Add", "out", y, z);
  CHECK_OK(tvm_graph_mark_output(g, o));
  CHECK_OK(tvm_graph_mark_output(g, z));
  CHECK_OK(tvm_graph_status(g));
  expect_graph(g,
               "graph(%x: float32[1, 3, 6, 6]) {\n"
               "  %w: const float32[4, 3, 3, 3]\n"
               "  %bias: const float32[4]\n"
               "  %3: const float32[4]\n"
               "  %4: const float32[4]\n"
               "  %5: const float32[4]\n"
               "  %6: const float32[4]\n"
               "  %15: const float32[3]\n"
               "  %16: const float32[3]\n"
               "  %17: const float32[3]\n"
               "  %18: const float32[3]\n"
               "  %w2: const float32[4, 3, 1, 1]\n"
               "  %conv1 = Conv(%x, %w, %bias) {pads=[1, 1, 1, 1]} -> float32[1, 4, 6, 6]\n"
               "  %bn1 = BatchNormalization(%conv1, %3, %4, %5, %6) {epsilon=0.001}\n"
               "         -> float32[1, 4, 6, 6]\n"
               "  %relu1 = Relu(%bn1) -> float32[1, 4, 6, 6]\n"
               "  %drop = Dropout(%relu1) -> float32[1, 4, 6, 6]\n"
               "  %bn2 = BatchNormalization(%x, %15, %16, %17, %18) -> float32[1, 3, 6, 6]\n"
               "  %id = Identity(%bn2) -> float32[1, 3, 6, 6]\n"
               "  %conv2 = Conv(%id, %w2) -> float32[1, 4, 6, 6]\n"
               "  %bn3 = BatchNormalization(%conv2, %3, %4, %5, %6) -> float32[1, 4, 6, 6]\n"
               "  %out = Add(%drop, %bn3) -> float32[1, 4, 6, 6]\n"
               "  return (%out, %bn3)\n"
               "}\n");
  CHECK_OK(tvm_graph_pass_simplify_inference(g));
  expect_graph(g,
               "graph(%x: float32[1, 3, 6, 6]) {\n"
               "  %conv1.weight: const float32[4, 3, 3, 3]\n"
               "  %conv1.bias: const float32[4]\n"
               "  %bn2.scale: const float32[3, 1, 1]\n"
               "  %bn2.shift: const float32[3, 1, 1]\n"
               "  %conv2.weight: const float32[4, 3, 1, 1]\n"
               "  %conv2.bias: const float32[4]\n"
               "  %conv1 = Conv(%x, %conv1.weight, %conv1.bias) {pads=[1, 1, 1, 1]}\n"
               "           -> float32[1, 4, 6, 6]\n"
               "  %relu1 = Relu(%conv1) -> float32[1, 4, 6, 6]\n"
               "  %bn2.mul = Mul(%x, %bn2.scale) -> float32[1, 3, 6, 6]\n"
               "  %bn2 = Add(%bn2.mul, %bn2.shift) -> float32[1, 3, 6, 6]\n"
               "  %bn3 = Conv(%bn2, %conv2.weight, %conv2.bias) -> float32[1, 4, 6, 6]\n"
               "  %out = Add(%relu1, %bn3) -> float32[1, 4, 6, 6]\n"
               "  return (%out, %bn3)\n"
               "}\n");
  tvm_graph_free(g);
}

/* A BatchNormalization whose Conv output has another reader is not
 * folded (that reader needs the unnormalized values). */
static void test_simplify_shared_conv(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 2, 4}, 3);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){2, 2, 1}, 3, 1, 0.5);
  tvm_gvalue *c = tvm_graph_apply(g, "Conv", "conv", TVM_IN(x, w), TVM_NOATTRS, 1, NULL);
  tvm_gvalue *in[5] = {c};
  for (int i = 1; i < 5; i++) in[i] = tvm_graph_random(g, NULL, (int64_t[]){2}, 1, i, 1.0);
  tvm_gvalue *b = tvm_graph_apply(g, "BatchNormalization", "bn", in, 5, NULL, 0, 1, NULL);
  tvm_gvalue *o = op2(g, "Add", "out", b, c);
  CHECK_OK(tvm_graph_mark_output(g, o));
  CHECK_OK(tvm_graph_pass_simplify_inference(g));
  expect_graph(g,
               "graph(%x: float32[1, 2, 4]) {\n"
               "  %w: const float32[2, 2, 1]\n"
               "  %bn.scale: const float32[2, 1]\n"
               "  %bn.shift: const float32[2, 1]\n"
               "  %conv = Conv(%x, %w) -> float32[1, 2, 4]\n"
               "  %bn.mul = Mul(%conv, %bn.scale) -> float32[1, 2, 4]\n"
               "  %bn = Add(%bn.mul, %bn.shift) -> float32[1, 2, 4]\n"
               "  %out = Add(%bn, %conv) -> float32[1, 2, 4]\n"
               "  return %out\n"
               "}\n");
  tvm_graph_free(g);
}

/* toposort restores the order after a hand rewrite and reports cycles. */
static void test_toposort(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4}, 1);
  tvm_gvalue *a = op1(g, "Relu", "a", x);
  tvm_gvalue *b = op1(g, "Neg", "b", x);
  tvm_gvalue *c = op2(g, "Add", "c", a, b);
  CHECK_OK(tvm_graph_mark_output(g, c));
  /* Make a read b: b must move before a. */
  a->producer->inputs[0] = b;
  CHECK_OK(tvm_graph_toposort(g));
  expect_graph(g,
               "graph(%x: float32[4]) {\n"
               "  %b = Neg(%x) -> float32[4]\n"
               "  %a = Relu(%b) -> float32[4]\n"
               "  %c = Add(%a, %b) -> float32[4]\n"
               "  return %c\n"
               "}\n");
  /* b reads c: a cycle. */
  b->producer->inputs[0] = c;
  assert_int_equal(tvm_graph_toposort(g), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "cycle"));
  tvm_graph_free(g);
}

/* Gemm and 2-D MatMul absorb a following BatchNormalization. */
static void test_simplify_gemm_matmul(void **state) {
  if (!tvm_gop_find("Gemm") || !tvm_gop_find("MatMul")) skip();
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 5}, 2);
  tvm_gvalue *B = tvm_graph_random(g, "B", (int64_t[]){4, 5}, 2, 1, 0.5);
  tvm_gvalue *C = tvm_graph_random(g, "C", (int64_t[]){4}, 1, 2, 0.5);
  tvm_gvalue *y = tvm_graph_apply(g, "Gemm", "fc", TVM_IN(x, B, C),
                                  TVM_ATTRS(tvm_gattr_int("transB", 1)), 1, NULL);
  tvm_gvalue *in[5] = {y};
  for (int i = 1; i < 5; i++) in[i] = tvm_graph_random(g, NULL, (int64_t[]){4}, 1, i, 1.0);
  y = tvm_graph_apply(g, "BatchNormalization", "bn", in, 5, NULL, 0, 1, NULL);
  tvm_gvalue *M = tvm_graph_random(g, "M", (int64_t[]){4, 3}, 2, 3, 0.5);
  y = tvm_graph_apply(g, "MatMul", "mm", TVM_IN(y, M), TVM_NOATTRS, 1, NULL);
  tvm_gvalue *in2[5] = {y};
  for (int i = 1; i < 5; i++) in2[i] = tvm_graph_random(g, NULL, (int64_t[]){3}, 1, 9 + i, 1.0);
  y = tvm_graph_apply(g, "BatchNormalization", "bn2", in2, 5, NULL, 0, 1, NULL);
  CHECK_OK(tvm_graph_mark_output(g, y));
  CHECK_OK(tvm_graph_status(g));
  expect_graph(g,
               "graph(%x: float32[2, 5]) {\n"
               "  %B: const float32[4, 5]\n"
               "  %C: const float32[4]\n"
               "  %5: const float32[4]\n"
               "  %6: const float32[4]\n"
               "  %7: const float32[4]\n"
               "  %8: const float32[4]\n"
               "  %M: const float32[4, 3]\n"
               "  %14: const float32[3]\n"
               "  %15: const float32[3]\n"
               "  %16: const float32[3]\n"
               "  %17: const float32[3]\n"
               "  %fc = Gemm(%x, %B, %C) {transB=1} -> float32[2, 4]\n"
               "  %bn = BatchNormalization(%fc, %5, %6, %7, %8) -> float32[2, 4]\n"
               "  %mm = MatMul(%bn, %M) -> float32[2, 3]\n"
               "  %bn2 = BatchNormalization(%mm, %14, %15, %16, %17) -> float32[2, 3]\n"
               "  return %bn2\n"
               "}\n");
  CHECK_OK(tvm_graph_pass_simplify_inference(g));
  expect_graph(g,
               "graph(%x: float32[2, 5]) {\n"
               "  %fc.weight: const float32[4, 5]\n"
               "  %fc.bias: const float32[4]\n"
               "  %mm.weight: const float32[4, 3]\n"
               "  %bn2.shift: const float32[3]\n"
               "  %fc = Gemm(%x, %fc.weight, %fc.bias) {transB=1} -> float32[2, 4]\n"
               "  %mm = MatMul(%fc, %mm.weight) -> float32[2, 3]\n"
               "  %bn2 = Add(%mm, %bn2.shift) -> float32[2, 3]\n"
               "  return %bn2\n"
               "}\n");
  tvm_graph_free(g);
}

/* Passes refuse a graph whose construction failed, with its message. */
static void test_pass_on_failed_graph(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4}, 1);
  assert_null(op1(g, "Rellu", "r", x));
  tvm_status (*passes[])(tvm_graph *) = {
      tvm_graph_pass_dce, tvm_graph_pass_cse, tvm_graph_pass_fold_constants,
      tvm_graph_pass_simplify_inference, tvm_graph_toposort};
  for (int i = 0; i < 5; i++) {
    tvm_diag_clear();
    assert_int_equal(passes[i](g), TVM_ERR_NOT_FOUND);
    assert_string_equal(tvm_diag_message(),
                        "unknown operator 'Rellu' (node 'r'); did you mean 'Relu'?");
  }
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dce),
      cmocka_unit_test(test_cse),
      cmocka_unit_test(test_cse_constants),
      cmocka_unit_test(test_cse_big_constants),
      cmocka_unit_test(test_fold_constants),
      cmocka_unit_test(test_simplify_inference),
      cmocka_unit_test(test_simplify_shared_conv),
      cmocka_unit_test(test_toposort),
      cmocka_unit_test(test_simplify_gemm_matmul),
      cmocka_unit_test(test_pass_on_failed_graph),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
