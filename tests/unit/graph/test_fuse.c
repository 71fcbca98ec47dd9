/*
 * tests/unit/graph/test_fuse.c - operator fusion (fuse_ops) shown by the
 * printed graph ("# group N" after each node), and the groups collected
 * from it (nodes, anchor, inputs, outputs); heterogeneous placement
 * (place_devices) and fusion that never crosses its DeviceCopy nodes.
 */
#include "graph_test.h"

#define F32 tvm_dt(kDLFloat, 32, 1)

static tvm_gvalue *op1(tvm_graph *g, const char *op, const char *name,
                       tvm_gvalue *a) {
  return tvm_graph_apply(g, op, name, &a, 1, NULL, 0, 1, NULL);
}
static tvm_gvalue *op2(tvm_graph *g, const char *op, const char *name,
                       tvm_gvalue *a, tvm_gvalue *b) {
  tvm_gvalue *in[2] = {a, b};
  return tvm_graph_apply(g, op, name, in, 2, NULL, 0, 1, NULL);
}
static tvm_gvalue *conv(tvm_graph *g, const char *name, tvm_gvalue *x,
                        tvm_gvalue *w, tvm_gvalue *b) {
  tvm_gattr p = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4);
  if (b) return tvm_graph_apply(g, "Conv", name, TVM_IN(x, w, b), &p, 1, 1, NULL);
  return tvm_graph_apply(g, "Conv", name, TVM_IN(x, w), &p, 1, 1, NULL);
}

/* Fuses g and checks the printed result. */
static void fuse_expect(tvm_graph *g, const char *want) {
  CHECK_OK(tvm_graph_status(g));
  CHECK_OK(tvm_graph_pass_fuse_ops(g));
  expect_graph(g, want);
}

/* A residual block: conv+bias+relu, then conv+add(skip)+relu; the skip
 * input post-dominates nothing inside, each conv anchors its epilogue. */
static void test_residual_block(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  int64_t s[] = {1, 4, 6, 6};
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, s, 4);
  tvm_gvalue *w1 = tvm_graph_random(g, "w1", (int64_t[]){4, 4, 3, 3}, 4, 1, 0.5);
  tvm_gvalue *b1 = tvm_graph_random(g, "b1", (int64_t[]){4}, 1, 2, 0.5);
  tvm_gvalue *w2 = tvm_graph_random(g, "w2", (int64_t[]){4, 4, 3, 3}, 4, 3, 0.5);
  tvm_gvalue *c1 = conv(g, "c1", x, w1, b1);
  tvm_gvalue *r1 = op1(g, "Relu", "r1", c1);
  tvm_gvalue *c2 = conv(g, "c2", r1, w2, NULL);
  tvm_gvalue *a = op2(g, "Add", "add", c2, x);
  tvm_gvalue *r2 = op1(g, "Relu", "r2", a);
  CHECK_OK(tvm_graph_mark_output(g, r2));
  fuse_expect(g,
              "graph(%x: float32[1, 4, 6, 6]) {\n"
              "  %w1: const float32[4, 4, 3, 3]\n"
              "  %b1: const float32[4]\n"
              "  %w2: const float32[4, 4, 3, 3]\n"
              "  %c1 = Conv(%x, %w1, %b1) {pads=[1, 1, 1, 1]} -> float32[1, 4, 6, 6]  # group 0\n"
              "  %r1 = Relu(%c1) -> float32[1, 4, 6, 6]  # group 0\n"
              "  %c2 = Conv(%r1, %w2) {pads=[1, 1, 1, 1]} -> float32[1, 4, 6, 6]  # group 1\n"
              "  %add = Add(%c2, %x) -> float32[1, 4, 6, 6]  # group 1\n"
              "  %r2 = Relu(%add) -> float32[1, 4, 6, 6]  # group 1\n"
              "  return %r2\n"
              "}\n");
  tvm_graph_groups *gr = NULL;
  CHECK_OK(tvm_graph_groups_collect(g, &gr));
  assert_int_equal(gr->ngroups, 2);
  tvm_graph_group *G = &gr->groups[1];
  assert_int_equal(G->nnodes, 3);
  assert_string_equal(G->anchor->name, "c2");
  assert_int_equal(G->pattern, TVM_PAT_OUT_ELEMWISE_FUSABLE);
  assert_int_equal(G->ninputs, 3); /* r1, w2, x in first-use order */
  assert_ptr_equal(G->inputs[0], r1);
  assert_ptr_equal(G->inputs[1], w2);
  assert_ptr_equal(G->inputs[2], x);
  assert_int_equal(G->noutputs, 1);
  assert_ptr_equal(G->outputs[0], r2);
  assert_int_equal(gr->groups[0].noutputs, 1);
  assert_ptr_equal(gr->groups[0].outputs[0], r1);
  tvm_graph_groups_free(gr);
  tvm_graph_free(g);
}

/* A diamond of elementwise ops collapses; a value returned by the graph
 * and also read further on ends its group (it must be stored). */
static void test_diamond_and_outputs(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 8}, 2);
  tvm_gvalue *e = op1(g, "Exp", "e", x);
  tvm_gvalue *r = op1(g, "Relu", "r", e);
  tvm_gvalue *n = op1(g, "Neg", "n", e);
  tvm_gvalue *a = op2(g, "Add", "a", r, n);
  tvm_gvalue *t = op1(g, "Tanh", "t", a);
  tvm_gvalue *s = op1(g, "Sigmoid", "s", t);
  CHECK_OK(tvm_graph_mark_output(g, s));
  CHECK_OK(tvm_graph_mark_output(g, t));
  fuse_expect(g,
              "graph(%x: float32[2, 8]) {\n"
              "  %e = Exp(%x) -> float32[2, 8]  # group 0\n"
              "  %r = Relu(%e) -> float32[2, 8]  # group 0\n"
              "  %n = Neg(%e) -> float32[2, 8]  # group 0\n"
              "  %a = Add(%r, %n) -> float32[2, 8]  # group 0\n"
              "  %t = Tanh(%a) -> float32[2, 8]  # group 0\n"
              "  %s = Sigmoid(%t) -> float32[2, 8]  # group 1\n"
              "  return (%s, %t)\n"
              "}\n");
  tvm_graph_free(g);
}

/* Opaque operators stay alone and stop fusion through them; reductions
 * absorb the elementwise ops before them but fuse nothing after. */
static void test_opaque_and_reduction(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 8}, 2);
  tvm_gvalue *r = op1(g, "Relu", "r", x);
  tvm_gvalue *sm = op1(g, "Softmax", "sm", r);
  tvm_gvalue *e = op1(g, "Exp", "e", sm);
  tvm_gattr ax = tvm_gattr_ints("axes", (int64_t[]){1}, 1);
  tvm_gvalue *rs = tvm_graph_apply(g, "ReduceSum", "rs", &e, 1, &ax, 1, 1, NULL);
  tvm_gvalue *o = op1(g, "Sqrt", "o", rs);
  CHECK_OK(tvm_graph_mark_output(g, o));
  fuse_expect(g,
              "graph(%x: float32[2, 8]) {\n"
              "  %r = Relu(%x) -> float32[2, 8]  # group 0\n"
              "  %sm = Softmax(%r) -> float32[2, 8]  # group 1\n"
              "  %e = Exp(%sm) -> float32[2, 8]  # group 2\n"
              "  %rs = ReduceSum(%e) {axes=[1]} -> float32[2, 1]  # group 2\n"
              "  %o = Sqrt(%rs) -> float32[2, 1]  # group 3\n"
              "  return %o\n"
              "}\n");
  tvm_graph_groups *gr = NULL;
  CHECK_OK(tvm_graph_groups_collect(g, &gr));
  assert_int_equal(gr->ngroups, 4);
  assert_string_equal(gr->groups[2].anchor->name, "rs");
  assert_int_equal(gr->groups[2].pattern, TVM_PAT_REDUCTION);
  tvm_graph_groups_free(gr);
  tvm_graph_free(g);
}

/* Injective ops (Concat, Transpose, Reshape) join elementwise ones around
 * them; a conv followed by a reshape keeps its compute alone (the edge is
 * not elementwise). */
static void test_injective(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 2, 4, 4}, 4);
  tvm_gvalue *y = tvm_graph_input(g, "y", F32, (int64_t[]){1, 2, 4, 4}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){2, 4, 3, 3}, 4, 3, 0.5);
  tvm_gvalue *rx = op1(g, "Relu", "rx", x);
  tvm_gvalue *ey = op1(g, "Exp", "ey", y);
  tvm_gattr ax = tvm_gattr_int("axis", 1);
  tvm_gvalue *cat = tvm_graph_apply(g, "Concat", "cat", TVM_IN(rx, ey), &ax, 1, 1, NULL);
  tvm_gvalue *c = conv(g, "c", cat, w, NULL);
  tvm_gvalue *shape = tvm_graph_const(g, "shape", tvm_dt(kDLInt, 64, 1),
                                      (int64_t[]){2}, 1, (int64_t[]){2, 16});
  tvm_gvalue *rs = op2(g, "Reshape", "rs", c, shape);
  tvm_gattr perm = tvm_gattr_ints("perm", (int64_t[]){1, 0}, 2);
  tvm_gvalue *tr = tvm_graph_apply(g, "Transpose", "tr", &rs, 1, &perm, 1, 1, NULL);
  tvm_gvalue *o = op1(g, "Abs", "o", tr);
  CHECK_OK(tvm_graph_mark_output(g, o));
  fuse_expect(g,
              "graph(%x: float32[1, 2, 4, 4], %y: float32[1, 2, 4, 4]) {\n"
              "  %w: const float32[2, 4, 3, 3]\n"
              "  %shape: const int64[2]\n"
              "  %rx = Relu(%x) -> float32[1, 2, 4, 4]  # group 0\n"
              "  %ey = Exp(%y) -> float32[1, 2, 4, 4]  # group 0\n"
              "  %cat = Concat(%rx, %ey) {axis=1} -> float32[1, 4, 4, 4]  # group 0\n"
              "  %c = Conv(%cat, %w) {pads=[1, 1, 1, 1]} -> float32[1, 2, 4, 4]  # group 1\n"
              "  %rs = Reshape(%c, %shape) -> float32[2, 16]  # group 2\n"
              "  %tr = Transpose(%rs) {perm=[1, 0]} -> float32[16, 2]  # group 2\n"
              "  %o = Abs(%tr) -> float32[16, 2]  # group 2\n"
              "  return %o\n"
              "}\n");
  tvm_graph_free(g);
}

/* A conv whose output is read twice (by an elementwise path and an
 * injective one) fuses only where every path to the join is elementwise;
 * with a Gemm + bias + Relu chain the Gemm anchors. */
static void test_multi_consumer(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 2, 4, 4}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){2, 2, 3, 3}, 4, 3, 0.5);
  tvm_gvalue *c = conv(g, "c", x, w, NULL);
  tvm_gvalue *r = op1(g, "Relu", "r", c);
  tvm_gvalue *s = op1(g, "Sigmoid", "s", c);
  tvm_gvalue *m = op2(g, "Mul", "m", r, s);
  tvm_gvalue *c2 = conv(g, "c2", m, w, NULL);
  tvm_gattr perm = tvm_gattr_ints("perm", (int64_t[]){0, 1, 3, 2}, 4);
  tvm_gvalue *t = tvm_graph_apply(g, "Transpose", "t", &c2, 1, &perm, 1, 1, NULL);
  tvm_gvalue *a = op2(g, "Add", "a", c2, t);
  CHECK_OK(tvm_graph_mark_output(g, a));
  fuse_expect(g,
              "graph(%x: float32[1, 2, 4, 4]) {\n"
              "  %w: const float32[2, 2, 3, 3]\n"
              "  %c = Conv(%x, %w) {pads=[1, 1, 1, 1]} -> float32[1, 2, 4, 4]  # group 0\n"
              "  %r = Relu(%c) -> float32[1, 2, 4, 4]  # group 0\n"
              "  %s = Sigmoid(%c) -> float32[1, 2, 4, 4]  # group 0\n"
              "  %m = Mul(%r, %s) -> float32[1, 2, 4, 4]  # group 0\n"
              "  %c2 = Conv(%m, %w) {pads=[1, 1, 1, 1]} -> float32[1, 2, 4, 4]  # group 1\n"
              "  %t = Transpose(%c2) {perm=[0, 1, 3, 2]} -> float32[1, 2, 4, 4]  # group 2\n"
              "  %a = Add(%c2, %t) -> float32[1, 2, 4, 4]  # group 2\n"
              "  return %a\n"
              "}\n");
  tvm_graph_groups *gr = NULL;
  CHECK_OK(tvm_graph_groups_collect(g, &gr));
  assert_int_equal(gr->groups[1].noutputs, 1);
  assert_int_equal(gr->groups[2].ninputs, 1);
  tvm_graph_groups_free(gr);
  tvm_graph_free(g);
}

/* Groups stop at 64 nodes: a chain of 100 elementwise ops makes two. */
static void test_group_limit(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4}, 1);
  for (int i = 0; i < 100; i++) x = op1(g, i % 2 ? "Neg" : "Abs", NULL, x);
  CHECK_OK(tvm_graph_mark_output(g, x));
  CHECK_OK(tvm_graph_pass_fuse_ops(g));
  tvm_graph_groups *gr = NULL;
  CHECK_OK(tvm_graph_groups_collect(g, &gr));
  assert_int_equal(gr->ngroups, 2);
  assert_true(gr->groups[0].nnodes <= 64 && gr->groups[1].nnodes <= 64);
  assert_int_equal(gr->groups[0].nnodes + gr->groups[1].nnodes, 100);
  tvm_graph_groups_free(gr);
  tvm_graph_free(g);
}

/* Collection refuses nodes without a group and groups out of dataflow
 * order. */
static void test_collect_errors(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4}, 1);
  tvm_gvalue *a = op1(g, "Relu", "a", x);
  tvm_gvalue *b = op1(g, "Neg", "b", a);
  CHECK_OK(tvm_graph_mark_output(g, b));
  tvm_graph_groups *gr = NULL;
  assert_int_equal(tvm_graph_groups_collect(g, &gr), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "has no group"));
  ((tvm_gnode *)g->nodes.data[0])->group = 1;
  ((tvm_gnode *)g->nodes.data[1])->group = 0;
  assert_int_equal(tvm_graph_groups_collect(g, &gr), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "later group"));
  assert_null(gr);
  tvm_graph_free(g);
}

/* place_devices' query for the test: Exp, Sigmoid and Add on device 1. */
static tvm_status place_by_op(void *ud, const tvm_gnode *n, int *device) {
  (void)ud;
  *device = !strcmp(n->op, "Exp") || !strcmp(n->op, "Sigmoid") ||
            !strcmp(n->op, "Add");
  return TVM_OK;
}

/* Placement: x and r1 on device 0, e/s/add on 1, r2 back on 0.  r1 is
 * read by two nodes on device 1 through one copy; the chain, which would
 * fuse into one group on one device, splits at every DeviceCopy. */
static void test_place_devices(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4}, 1);
  tvm_gvalue *r1 = op1(g, "Relu", "r1", x);
  tvm_gvalue *e = op1(g, "Exp", "e", r1);
  tvm_gvalue *sg = op1(g, "Sigmoid", "s", r1);
  tvm_gvalue *a = op2(g, "Add", "add", e, sg);
  tvm_gvalue *r2 = op1(g, "Relu", "r2", a);
  CHECK_OK(tvm_graph_mark_output(g, r2));
  int ncopies = 0;
  CHECK_OK(tvm_graph_pass_place_devices(g, place_by_op, NULL, &ncopies));
  assert_int_equal(ncopies, 2);
  assert_int_equal(x->device, 0);
  assert_int_equal(r2->device, 0);
  fuse_expect(g,
              "graph(%x: float32[4]) {\n"
              "  %r1 = Relu(%x) -> float32[4]  # group 0\n"
              "  %r1.to1 = DeviceCopy(%r1) -> float32[4]  # group 1  # device 1\n"
              "  %e = Exp(%r1.to1) -> float32[4]  # group 2  # device 1\n"
              "  %s = Sigmoid(%r1.to1) -> float32[4]  # group 2  # device 1\n"
              "  %add = Add(%e, %s) -> float32[4]  # group 2  # device 1\n"
              "  %add.to0 = DeviceCopy(%add) -> float32[4]  # group 3\n"
              "  %r2 = Relu(%add.to0) -> float32[4]  # group 4\n"
              "  return %r2\n"
              "}\n");
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_place_devices),
      cmocka_unit_test(test_residual_block),
      cmocka_unit_test(test_diamond_and_outputs),
      cmocka_unit_test(test_opaque_and_reduction),
      cmocka_unit_test(test_injective),
      cmocka_unit_test(test_multi_consumer),
      cmocka_unit_test(test_group_limit),
      cmocka_unit_test(test_collect_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
