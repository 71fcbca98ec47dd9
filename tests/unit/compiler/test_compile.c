/*
 * tests/unit/compiler/test_compile.c - whole-model compilation on the
 * llvm-cpu target: small graphs compiled with tvm_compile, run step by
 * step through the runtime (compile_test.h) and compared with the
 * reference evaluator on random inputs; the fused groups, kernel dedupe,
 * memory planning, --dump-ir and progress checked on the plan.
 */
#include <stdlib.h>

#include "compile_test.h"

#define F32 tvm_dt(kDLFloat, 32, 1)
#define RTOL 1e-4

static tvm_target *T;

static int setup(void **state) {
  (void)state;
  if (tvm_target_load("llvm-cpu", &T) != TVM_OK) {
    fprintf(stderr, "llvm-cpu: %s\n", tvm_diag_message());
    return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tvm_target_free(T);
  return 0;
}

/* Evaluates g with the reference (before compiling rewrites it), compiles
 * it with options o (NULL = defaults), runs the plan and compares. */
static tvm_plan *compile_check(tvm_graph *g, const tvm_compile_options *o,
                               uint64_t seed) {
  tensors in, want, got;
  tvm_plan *p = NULL;
  tvm_compile_options plain; /* the structure checked here is NCHW's */
  if (o) plain = *o;
  else tvm_compile_options_init(&plain);
  plain.alter_layout = 0;
  o = &plain;
  CHECK_OK(tvm_graph_status(g));
  tensors_alloc(&in, &g->inputs, seed);
  eval_graph(g, &in, &want);
  OKR(tvm_compile(g, T, o, &p));
  assert_non_null(p);
  run_plan(p, T, &in, &got);
  expect_close(&got, &want, RTOL);
  tensors_free(&in);
  tensors_free(&want);
  tensors_free(&got);
  return p;
}

/* Number of distinct kernels the steps call. */
static int distinct_kernels(const tvm_plan *p) {
  int n = 0;
  for (uint32_t i = 0; i < p->nsteps; i++) {
    int seen = 0;
    for (uint32_t j = 0; j < i; j++)
      seen |= strcmp(p->steps[i].kernel, p->steps[j].kernel) == 0;
    n += !seen;
  }
  return n;
}

static tvm_gvalue *pads1(tvm_graph *g, const char *name, tvm_gvalue *x,
                         tvm_gvalue *w, tvm_gvalue *b) {
  tvm_gattr p = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4);
  if (b) return tvm_graph_apply(g, "Conv", name, TVM_IN(x, w, b), &p, 1, 1, NULL);
  return tvm_graph_apply(g, "Conv", name, TVM_IN(x, w), &p, 1, 1, NULL);
}

/* BatchNormalization with random scale/bias/mean and positive variance. */
static tvm_gvalue *bn(tvm_graph *g, tvm_gvalue *x, int64_t C, uint64_t seed) {
  tvm_gvalue *in[5] = {x};
  for (int i = 1; i < 5; i++)
    in[i] = tvm_graph_random(g, NULL, (int64_t[]){C}, 1, seed + (uint64_t)i, 0.5);
  for (int64_t c = 0; c < C; c++) ((float *)in[4]->data)[c] = 0.5f + 0.1f * (float)c;
  return tvm_graph_apply(g, "BatchNormalization", NULL, in, 5, NULL, 0, 1, NULL);
}

/* conv+bn+relu, conv+bn, add(skip), relu. */
static tvm_gvalue *res_block(tvm_graph *g, tvm_gvalue *x, int64_t C,
                             uint64_t seed) {
  tvm_gvalue *w1 = tvm_graph_random(g, NULL, (int64_t[]){C, C, 3, 3}, 4, seed, 0.3);
  tvm_gvalue *b1 = tvm_graph_random(g, NULL, (int64_t[]){C}, 1, seed + 1, 0.3);
  tvm_gvalue *w2 = tvm_graph_random(g, NULL, (int64_t[]){C, C, 3, 3}, 4, seed + 2, 0.3);
  tvm_gvalue *y = pads1(g, NULL, x, w1, b1);
  y = bn(g, y, C, seed + 10);
  y = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
  y = pads1(g, NULL, y, w2, NULL);
  y = bn(g, y, C, seed + 20);
  y = TVM_OP(g, "Add", TVM_IN(y, x), TVM_NOATTRS);
  return TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
}

/* A residual block: the batch norms fold into the convs, and the second
 * conv, its folded bias, the skip add and the relu are one kernel. */
static void test_residual_block(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 10, 10}, 4);
  CHECK_OK(tvm_graph_mark_output(g, res_block(g, x, 8, 100)));
  tvm_plan *p = compile_check(g, NULL, 1);
  assert_int_equal(p->nsteps, 2);
  assert_string_equal(p->steps[0].label, "Conv+Relu");
  assert_string_equal(p->steps[1].label, "Conv+Add+Relu");
  assert_non_null(strstr(p->steps[1].kernel, "fused_Conv_Add_Relu"));
  /* inputs r1, w, b, x (the skip), then the output */
  assert_int_equal(p->steps[1].nargs, 5);
  /* 2 * MACs of the conv plus the elementwise work */
  double macs = 8.0 * 10 * 10 * 8 * 9;
  assert_true(p->steps[1].flops >= 2 * macs && p->steps[1].flops < 2 * macs + 4000);
  assert_string_equal(p->target_name, "llvm-cpu");
  assert_string_equal(p->plugin_name, "llvm-cpu");
  assert_int_equal(p->ninputs, 1);
  assert_int_equal(p->values[p->inputs[0]].kind, TVM_PV_INPUT);
  assert_int_equal(p->values[p->outputs[0]].kind, TVM_PV_OUTPUT);
  int params = 0;
  for (uint32_t i = 0; i < p->nvalues; i++)
    params += p->values[i].kind == TVM_PV_PARAM;
  assert_int_equal(params, 4); /* two folded weights, two folded biases */
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* The same block without fusion: one kernel per node, same numbers. */
static void test_residual_unfused(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 10, 10}, 4);
  CHECK_OK(tvm_graph_mark_output(g, res_block(g, x, 8, 100)));
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.fuse = 0;
  tvm_plan *p = compile_check(g, &o, 2);
  assert_int_equal(p->nsteps, 5); /* conv relu conv add relu */
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Two identical blocks (different weights) share their two kernels. */
static void test_dedupe(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 8, 8, 8}, 4);
  x = res_block(g, x, 8, 100);
  x = res_block(g, x, 8, 200);
  CHECK_OK(tvm_graph_mark_output(g, x));
  tvm_plan *p = compile_check(g, NULL, 3);
  assert_int_equal(p->nsteps, 4);
  assert_int_equal(distinct_kernels(p), 2);
  assert_int_equal(p->blob.nkernels, 2);
  assert_string_equal(p->steps[0].kernel, p->steps[2].kernel);
  assert_string_equal(p->steps[1].kernel, p->steps[3].kernel);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Gemm + Relu MLP (transB, bias) ending in a MatMul. */
static void test_mlp(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4, 32}, 2);
  tvm_gvalue *w1 = tvm_graph_random(g, "w1", (int64_t[]){32, 64}, 2, 1, 0.3);
  tvm_gvalue *b1 = tvm_graph_random(g, "b1", (int64_t[]){64}, 1, 2, 0.3);
  tvm_gvalue *w2 = tvm_graph_random(g, "w2", (int64_t[]){48, 64}, 2, 3, 0.3);
  tvm_gvalue *b2 = tvm_graph_random(g, "b2", (int64_t[]){48}, 1, 4, 0.3);
  tvm_gvalue *w3 = tvm_graph_random(g, "w3", (int64_t[]){48, 10}, 2, 5, 0.3);
  tvm_gvalue *y = TVM_OP(g, "Gemm", TVM_IN(x, w1, b1), TVM_NOATTRS);
  y = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
  y = TVM_OP(g, "Gemm", TVM_IN(y, w2, b2), TVM_ATTRS(tvm_gattr_int("transB", 1)));
  y = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
  y = TVM_OP(g, "MatMul", TVM_IN(y, w3), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, y));
  tvm_plan *p = compile_check(g, NULL, 4);
  assert_int_equal(p->nsteps, 3);
  assert_string_equal(p->steps[0].label, "Gemm+Relu");
  assert_string_equal(p->steps[2].label, "MatMul");
  assert_true(p->steps[2].flops == 2.0 * 4 * 10 * 48);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* A chain of elementwise and broadcast ops with constants: one kernel. */
static void test_elementwise_chain(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 3, 7, 32}, 4);
  tvm_gvalue *y = tvm_graph_input(g, "y", F32, (int64_t[]){3, 1, 32}, 3);
  tvm_gvalue *k = tvm_graph_random(g, "k", (int64_t[]){32}, 1, 9, 1.0);
  tvm_gvalue *a = TVM_OP(g, "Mul", TVM_IN(x, k), TVM_NOATTRS);
  a = TVM_OP(g, "Sigmoid", TVM_IN(a), TVM_NOATTRS);
  a = TVM_OP(g, "Add", TVM_IN(a, y), TVM_NOATTRS);
  a = TVM_OP(g, "Tanh", TVM_IN(a), TVM_NOATTRS);
  tvm_gvalue *e = TVM_OP(g, "Exp", TVM_IN(a), TVM_NOATTRS);
  a = TVM_OP(g, "Sub", TVM_IN(e, a), TVM_NOATTRS);
  a = TVM_OP(g, "Abs", TVM_IN(a), TVM_NOATTRS);
  a = TVM_OP(g, "Sqrt", TVM_IN(a), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, a));
  tvm_plan *p = compile_check(g, NULL, 5);
  assert_int_equal(p->nsteps, 1);
  assert_string_equal(p->steps[0].label, "Mul+Sigmoid+Add+Tanh+Exp+Sub+Abs+Sqrt");
  assert_int_equal(p->nstorage, 0);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Softmax on the last axis and on a middle axis, then an elementwise op. */
static void test_softmax(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4, 10}, 2);
  tvm_gvalue *z = tvm_graph_input(g, "z", F32, (int64_t[]){2, 3, 5}, 3);
  tvm_gvalue *a = TVM_OP(g, "Softmax", TVM_IN(x), TVM_NOATTRS);
  tvm_gvalue *b = TVM_OP(g, "Softmax", TVM_IN(z), TVM_ATTRS(tvm_gattr_int("axis", 1)));
  b = TVM_OP(g, "Neg", TVM_IN(b), TVM_NOATTRS);
  tvm_gvalue *c = TVM_OP(g, "LogSoftmax", TVM_IN(x), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, a));
  CHECK_OK(tvm_graph_mark_output(g, b));
  CHECK_OK(tvm_graph_mark_output(g, c));
  tvm_plan *p = compile_check(g, NULL, 6);
  assert_int_equal(p->nsteps, 4);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Max and average pooling with strides and pads, global pooling. */
static void test_pooling(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 4, 9, 9}, 4);
  tvm_gattr ks = tvm_gattr_ints("kernel_shape", (int64_t[]){3, 3}, 2);
  tvm_gattr st = tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2);
  tvm_gattr pd = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4);
  tvm_gvalue *m = TVM_OP(g, "MaxPool", TVM_IN(x), TVM_ATTRS(ks, st, pd));
  m = TVM_OP(g, "Relu", TVM_IN(m), TVM_NOATTRS);
  tvm_gvalue *a = TVM_OP(g, "AveragePool", TVM_IN(x), TVM_ATTRS(ks, st, pd));
  tvm_gvalue *gp = TVM_OP(g, "GlobalAveragePool", TVM_IN(x), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, m));
  CHECK_OK(tvm_graph_mark_output(g, a));
  CHECK_OK(tvm_graph_mark_output(g, gp));
  tvm_plan *p = compile_check(g, NULL, 7);
  assert_int_equal(p->nsteps, 3);
  assert_string_equal(p->steps[0].label, "MaxPool+Relu");
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Concat of three inputs (one through a relu) along channels. */
static void test_concat(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *a = tvm_graph_input(g, "a", F32, (int64_t[]){1, 2, 5, 16}, 4);
  tvm_gvalue *b = tvm_graph_input(g, "b", F32, (int64_t[]){1, 3, 5, 16}, 4);
  tvm_gvalue *c = tvm_graph_input(g, "c", F32, (int64_t[]){1, 1, 5, 16}, 4);
  tvm_gvalue *r = TVM_OP(g, "Relu", TVM_IN(b), TVM_NOATTRS);
  tvm_gvalue *o = TVM_OP(g, "Concat", TVM_IN(a, r, c), TVM_ATTRS(tvm_gattr_int("axis", 1)));
  CHECK_OK(tvm_graph_mark_output(g, o));
  tvm_plan *p = compile_check(g, NULL, 8);
  assert_int_equal(p->nsteps, 1);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Reshape (constant shape, read at compile time: not a kernel argument),
 * Transpose and Flatten. */
static void test_reshape(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 3, 4, 5}, 4);
  tvm_gvalue *s = tvm_graph_const(g, "s", tvm_dt(kDLInt, 64, 1), (int64_t[]){3}, 1,
                                  (int64_t[]){6, 4, 5});
  tvm_gvalue *y = TVM_OP(g, "Reshape", TVM_IN(x, s), TVM_NOATTRS);
  y = TVM_OP(g, "Transpose", TVM_IN(y), TVM_ATTRS(tvm_gattr_ints("perm", (int64_t[]){2, 0, 1}, 3)));
  tvm_gvalue *f = TVM_OP(g, "Flatten", TVM_IN(y), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, f));
  tvm_plan *p = compile_check(g, NULL, 9);
  assert_int_equal(p->nsteps, 1);
  assert_int_equal(p->steps[0].nargs, 2); /* x and the output */
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Split is a three-output kernel (one output returned directly, so it
 * cannot fuse forward); its readers are kernels of their own. */
static void test_split_multi_output(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4, 24}, 2);
  tvm_gnode *sp = NULL;
  tvm_gattr ax = tvm_gattr_int("axis", 1);
  tvm_graph_apply(g, "Split", "sp", &x, 1, &ax, 1, 3, &sp);
  CHECK_OK(tvm_graph_status(g));
  tvm_gvalue *a = TVM_OP(g, "Relu", TVM_IN(sp->outputs[0]), TVM_NOATTRS);
  tvm_gvalue *c = TVM_OP(g, "Exp", TVM_IN(sp->outputs[2]), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, a));
  CHECK_OK(tvm_graph_mark_output(g, sp->outputs[1]));
  CHECK_OK(tvm_graph_mark_output(g, c));
  tvm_plan *p = compile_check(g, NULL, 12);
  assert_int_equal(p->nsteps, 3);
  assert_string_equal(p->steps[0].label, "Split");
  assert_int_equal(p->steps[0].nargs, 4);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* A graph returning its input and a constant next to a computed value:
 * the plan's outputs point at the input and parameter values. */
static void test_passthrough_outputs(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){3, 8}, 2);
  tvm_gvalue *k = tvm_graph_random(g, "k", (int64_t[]){8}, 1, 5, 1.0);
  tvm_gvalue *y = TVM_OP(g, "Add", TVM_IN(x, k), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, y));
  CHECK_OK(tvm_graph_mark_output(g, x));
  CHECK_OK(tvm_graph_mark_output(g, k));
  tvm_plan *p = compile_check(g, NULL, 13);
  assert_int_equal(p->nsteps, 1);
  assert_int_equal(p->values[p->outputs[1]].kind, TVM_PV_INPUT);
  assert_int_equal(p->outputs[1], p->inputs[0]);
  assert_int_equal(p->values[p->outputs[2]].kind, TVM_PV_PARAM);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* An LSTM (opaque, three outputs, many internal stages) then a Tanh. */
static void test_lstm(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  int64_t H = 8, I = 5, S = 3, B = 2;
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){S, B, I}, 3);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){1, 4 * H, I}, 3, 1, 0.4);
  tvm_gvalue *r = tvm_graph_random(g, "r", (int64_t[]){1, 4 * H, H}, 3, 2, 0.4);
  tvm_gvalue *b = tvm_graph_random(g, "b", (int64_t[]){1, 8 * H}, 2, 3, 0.4);
  tvm_gnode *n = NULL;
  tvm_gattr hs = tvm_gattr_int("hidden_size", H);
  tvm_graph_apply(g, "LSTM", "lstm", TVM_IN(x, w, r, b), &hs, 1, 3, &n);
  CHECK_OK(tvm_graph_status(g));
  tvm_gvalue *y = TVM_OP(g, "Tanh", TVM_IN(n->outputs[0]), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, y));
  CHECK_OK(tvm_graph_mark_output(g, n->outputs[1]));
  CHECK_OK(tvm_graph_mark_output(g, n->outputs[2]));
  tvm_plan *p = compile_check(g, NULL, 14);
  assert_int_equal(p->nsteps, 2);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Twenty layers each reading the previous value twice: inlining
 * everything would double the expression per layer (2^20 nodes); large
 * stages read twice are stored instead, so this compiles at once. */
static void test_repeated_reads(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4, 32}, 2);
  for (int i = 0; i < 20; i++) {
    tvm_gvalue *t = TVM_OP(g, "Tanh", TVM_IN(x), TVM_NOATTRS);
    tvm_gvalue *s = TVM_OP(g, "Sigmoid", TVM_IN(x), TVM_NOATTRS);
    x = TVM_OP(g, "Add", TVM_IN(t, s), TVM_NOATTRS);
  }
  CHECK_OK(tvm_graph_mark_output(g, x));
  tvm_plan *p = compile_check(g, NULL, 15);
  assert_int_equal(p->nsteps, 1);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Integer Mod on rows of 6: a masked vector tail would divide by the
 * zeros of its masked lanes and trap, so such groups keep exact tails. */
static void test_int_mod(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", TVM_I32, (int64_t[]){3, 6}, 2);
  tvm_gvalue *y = tvm_graph_input(g, "y", TVM_I32, (int64_t[]){3, 6}, 2);
  tvm_gvalue *m = TVM_OP(g, "Mod", TVM_IN(x, y), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, m));
  CHECK_OK(tvm_graph_status(g));
  tensors in, want, got;
  tensors_alloc(&in, &g->inputs, 16);
  for (int i = 0; i < 18; i++) {
    ((int32_t *)in.t[0].data)[i] = 37 * i - 200;
    ((int32_t *)in.t[1].data)[i] = i % 2 ? 3 + i : -(2 + i);
  }
  eval_graph(g, &in, &want);
  tvm_plan *p = NULL;
  OKR(tvm_compile(g, T, NULL, &p));
  run_plan(p, T, &in, &got);
  expect_close(&got, &want, 0);
  tensors_free(&in);
  tensors_free(&want);
  tensors_free(&got);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* A 10-layer chain compiled one kernel per node: with memory planning
 * the activations share two slots, and the numbers stay the same. */
static void test_plan_memory_chain(void **state) {
  for (int planned = 0; planned < 2; planned++) {
    tvm_graph *g = NULL;
    CHECK_OK(tvm_graph_create(&g));
    tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 4, 8, 8}, 4);
    tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){4, 4, 3, 3}, 4, 1, 0.3);
    static const char *const ops[] = {"Conv", "Relu", "Conv", "Tanh", "Conv",
                                      "Sigmoid", "Conv", "Neg", "Conv", "Abs"};
    for (int i = 0; i < 10; i++)
      x = strcmp(ops[i], "Conv") ? TVM_OP(g, ops[i], TVM_IN(x), TVM_NOATTRS)
                                 : pads1(g, NULL, x, w, NULL);
    CHECK_OK(tvm_graph_mark_output(g, x));
    tvm_compile_options o;
    tvm_compile_options_init(&o);
    o.fuse = 0;
    o.plan_memory = planned;
    tvm_plan *p = compile_check(g, &o, 10);
    assert_int_equal(p->nsteps, 10);
    assert_int_equal(p->activation_bytes_unplanned, 9 * 256 * 4);
    if (planned) {
      assert_int_equal(p->nstorage, 2);
      assert_int_equal(p->activation_bytes_planned, 2 * 256 * 4);
    } else {
      assert_int_equal(p->nstorage, 9);
      assert_int_equal(p->activation_bytes_planned, 9 * 256 * 4);
    }
    tvm_plan_free(p);
    tvm_graph_free(g);
  }
}

/* Reads what a compile dumped with --dump-ir name. */
static char *compile_dump(const char *name, tvm_status *st) {
  tvm_graph *g = NULL;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4, 16}, 2);
  x = TVM_OP(g, "Relu", TVM_IN(x), TVM_NOATTRS);
  x = TVM_OP(g, "Softmax", TVM_IN(x), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, x));
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.dump_ir = name;
  o.dump_to = f;
  tvm_plan *p = NULL;
  *st = tvm_compile(g, T, &o, &p);
  fclose(f);
  tvm_plan_free(p);
  tvm_graph_free(g);
  return text;
}

/* --dump-ir: a graph pass prints the graph, a lowering pass each kernel,
 * an unknown name is refused with the list of names. */
static void test_dump_ir(void **state) {
  tvm_status st;
  char *s = compile_dump("fuse_ops", &st);
  CHECK_OK(st);
  assert_string_equal(s,
                      "// after fuse_ops\n"
                      "graph(%x: float32[4, 16]) {\n"
                      "  %2 = Relu(%x) -> float32[4, 16]  # group 0\n"
                      "  %4 = Softmax(%2) -> float32[4, 16]  # group 1\n"
                      "  return %4\n"
                      "}\n");
  free(s);
  s = compile_dump("vectorize", &st);
  CHECK_OK(st);
  assert_non_null(strstr(s, "// after vectorize: fused_Relu_0\n"));
  assert_non_null(strstr(s, "// after vectorize: fused_Softmax_1\n"));
  assert_null(strstr(s, "// after fuse_ops"));
  free(s);
  s = compile_dump("plan_memory", &st);
  CHECK_OK(st);
  assert_string_equal(s,
                      "// after plan_memory\n"
                      "slot 0 (256 bytes): %2\n"
                      "activations: 256 bytes planned, 256 unplanned\n");
  free(s);
  s = compile_dump("fuse", &st);
  assert_int_equal(st, TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "fuse_ops"));
  assert_non_null(strstr(tvm_diag_message(), "storage_flatten"));
  free(s);
}

static void count_progress(void *ud, int done, int total, const char *what) {
  int *n = ud;
  assert_int_equal(done, n[0] + 1);
  assert_int_equal(total, 2);
  assert_non_null(what);
  n[0]++;
}

/* Progress ticks once per group. */
static void test_progress(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4, 16}, 2);
  x = TVM_OP(g, "Softmax", TVM_IN(x), TVM_NOATTRS);
  x = TVM_OP(g, "Exp", TVM_IN(x), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, x));
  int n = 0;
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.progress = count_progress;
  o.progress_ud = &n;
  tvm_plan *p = compile_check(g, &o, 11);
  assert_int_equal(n, 2);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* Calibration samples for a target that does not quantize (llvm-cpu)
 * are refused: they would have no effect. */
static void test_calibration_refused(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4, 16}, 2);
  x = TVM_OP(g, "Relu", TVM_IN(x), TVM_NOATTRS);
  CHECK_OK(tvm_graph_mark_output(g, x));
  static float data[4 * 16];
  int64_t shape[2] = {4, 16};
  DLTensor t = {data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  const DLTensor *samples[1] = {&t};
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.calib = samples;
  o.ncalib = 1;
  tvm_plan *p = NULL;
  assert_int_equal(tvm_compile(g, T, &o, &p), TVM_ERR_INVALID);
  assert_null(p);
  const char *m = tvm_diag_message();
  assert_non_null(strstr(m, "target 'llvm-cpu' does not quantize"));
  assert_non_null(strstr(m, "no effect"));
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_residual_block),
      cmocka_unit_test(test_residual_unfused),
      cmocka_unit_test(test_dedupe),
      cmocka_unit_test(test_mlp),
      cmocka_unit_test(test_elementwise_chain),
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_pooling),
      cmocka_unit_test(test_concat),
      cmocka_unit_test(test_reshape),
      cmocka_unit_test(test_split_multi_output),
      cmocka_unit_test(test_passthrough_outputs),
      cmocka_unit_test(test_lstm),
      cmocka_unit_test(test_repeated_reads),
      cmocka_unit_test(test_int_mod),
      cmocka_unit_test(test_plan_memory_chain),
      cmocka_unit_test(test_dump_ir),
      cmocka_unit_test(test_progress),
      cmocka_unit_test(test_calibration_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
