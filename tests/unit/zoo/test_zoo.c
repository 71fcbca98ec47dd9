/*
 * tests/unit/zoo/test_zoo.c - the model zoo (tvm/zoo.h): every model
 * builds; its inputs and output have the documented shapes; its learnable
 * parameters add up to the published count (torchvision's for the vision
 * models, so a missing or misplaced layer shows); its operators are the
 * expected ones; shape inference run again over the built graph gives the
 * same shapes; its outputs on a seeded input are finite and not
 * degenerate; the DQN's printed graph is compared whole.  The small
 * models (dqn, dcgan, lstm_lm, squeezenet, mobilenet_v2) are also
 * compiled with tvm_compile for llvm-cpu, run through the graph executor
 * and compared with tvm_graph_eval_reference within 1e-3 of the output's
 * largest magnitude.  ResNet-18/50 are only built: the naive reference
 * takes 15-20 s (ResNet-18) and 35-70 s (ResNet-50) on the 2-core
 * machine; TVM_ZOO_FULL=1 in the environment checks them too (by hand:
 * errors 2e-7 and 3e-7 of the largest output).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/compiler.h"
#include "tvm/graph_passes.h"
#include "tvm/zoo.h"

#define RTOL 1e-3

#define OK(x)                                                           \
  do {                                                                  \
    tvm_status st_ = (x);                                               \
    if (st_ != TVM_OK) fail_msg("%s: %s", #x, tvm_diag_message());      \
  } while (0)

/* What a model must look like. */
typedef struct expect {
  const char *name;
  int64_t in_shape[4];
  int in_ndim;
  int in_int; /* input is int64 token ids (below in_vocab) */
  int64_t out_shape[4];
  int out_ndim;
  int64_t params;   /* learnable values (BN running stats left out) */
  const char *op;   /* an operator ... */
  int op_count;     /* ... and how many nodes apply it */
  int numeric;      /* compile and compare with the reference */
} expect;

static const expect models[] = {
    {"resnet18", {1, 3, 224, 224}, 4, 0, {1, 1000}, 2, 11689512, "Conv", 20,
     0},
    {"resnet50", {1, 3, 224, 224}, 4, 0, {1, 1000}, 2, 25557032, "Conv", 53,
     0},
    {"mobilenet_v2", {1, 3, 224, 224}, 4, 0, {1, 1000}, 2, 3504872, "Conv",
     52, 1},
    {"squeezenet", {1, 3, 224, 224}, 4, 0, {1, 1000}, 2, 1235496, "Concat", 8,
     1},
    {"lstm_lm", {20, 1}, 2, 1, {20, 10000}, 2, 4653200, "LSTM", 2, 1},
    {"dqn", {1, 4, 84, 84}, 4, 0, {1, 18}, 2, 1693362, "Conv", 3, 1},
    {"dcgan", {1, 100, 1, 1}, 4, 0, {1, 3, 64, 64}, 4, 3576704,
     "ConvTranspose", 5, 1},
};

static tvm_target *T;

/* Loads the llvm-cpu target (TVM_TARGET_PATH and TVM_PLUGIN_PATH from
 * the test environment). */
static int setup(void **state) {
  (void)state;
  if (tvm_target_load("llvm-cpu", &T) != TVM_OK) {
    fprintf(stderr, "llvm-cpu: %s\n", tvm_diag_message());
    return -1;
  }
  return 0;
}

/* Frees the target. */
static int teardown(void **state) {
  (void)state;
  tvm_target_free(T);
  return 0;
}

/* A compact CPU tensor of v's dtype and shape, zeroed. */
static void tensor_alloc(DLTensor *t, const tvm_gvalue *v) {
  memset(t, 0, sizeof *t);
  t->device.device_type = kDLCPU;
  t->dtype = v->dtype;
  t->ndim = v->ndim;
  t->shape = calloc(TVM_MAX_DIMS, sizeof(int64_t));
  assert_non_null(t->shape);
  memcpy(t->shape, v->shape, sizeof(int64_t) * (size_t)v->ndim);
  t->data = calloc((size_t)tvm_gvalue_bytes(v) + 1, 1);
  assert_non_null(t->data);
}

/* Frees what tensor_alloc allocated. */
static void tensor_free(DLTensor *t) {
  free(t->data);
  free(t->shape);
}

/* Seeded input: floats uniform in [-1, 1), int64 ids in [0, vocab). */
static void tensor_fill(DLTensor *t, const tvm_gvalue *v, uint64_t seed,
                        int64_t vocab) {
  int64_t n = tvm_gvalue_numel(v);
  for (int64_t k = 0; k < n; k++) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    double u = (double)(seed >> 11) * 0x1.0p-53;
    if (v->dtype.code == kDLFloat)
      ((float *)t->data)[k] = (float)(2.0 * u - 1.0);
    else
      ((int64_t *)t->data)[k] = (int64_t)(u * (double)vocab);
  }
}

/* Learnable parameters: float constants but BN running statistics and the
 * scalar Clip bounds. */
static int64_t count_params(const tvm_graph *g) {
  int64_t n = 0;
  for (size_t i = 0; i < g->values.len; i++) {
    const tvm_gvalue *v = g->values.data[i];
    if (v->kind != TVM_GV_CONST || v->dtype.code != kDLFloat || v->ndim == 0)
      continue;
    const char *dot = v->name ? strrchr(v->name, '.') : NULL;
    if (dot && (!strcmp(dot, ".running_mean") || !strcmp(dot, ".running_var")))
      continue;
    n += tvm_gvalue_numel(v);
  }
  return n;
}

/* Number of nodes applying op. */
static int count_op(const tvm_graph *g, const char *op) {
  int n = 0;
  for (size_t i = 0; i < g->nodes.len; i++)
    n += strcmp(((tvm_gnode *)g->nodes.data[i])->op, op) == 0;
  return n;
}

/* Runs every node's shape inference again and checks that the shapes it
 * sets are the ones the builder recorded. */
static void reinfer(tvm_graph *g) {
  for (size_t i = 0; i < g->nodes.len; i++) {
    tvm_gnode *n = g->nodes.data[i];
    int64_t saved[8][TVM_MAX_DIMS];
    int nd[8];
    assert_true(n->noutputs <= 8);
    for (int k = 0; k < n->noutputs; k++) {
      nd[k] = n->outputs[k]->ndim;
      memcpy(saved[k], n->outputs[k]->shape, sizeof saved[k]);
    }
    OK(n->def->infer(g, n));
    for (int k = 0; k < n->noutputs; k++) {
      assert_int_equal(n->outputs[k]->ndim, nd[k]);
      assert_memory_equal(n->outputs[k]->shape, saved[k],
                          sizeof(int64_t) * (size_t)nd[k]);
    }
  }
}

/* Output statistics: every value finite, not all equal. */
static void expect_sane(const DLTensor *t, int64_t n, const char *model) {
  const float *d = t->data;
  double lo = INFINITY, hi = -INFINITY;
  for (int64_t k = 0; k < n; k++) {
    if (!isfinite(d[k]))
      fail_msg("%s: output %lld is %g", model, (long long)k, d[k]);
    lo = fmin(lo, d[k]);
    hi = fmax(hi, d[k]);
  }
  if (!(hi - lo > 1e-3 * fmax(fabs(hi), 1e-6)))
    fail_msg("%s: degenerate output, every value in [%g, %g]", model, lo, hi);
}

/* Every element of got within RTOL * max|want| of want. */
static void expect_close(const DLTensor *got, const DLTensor *want, int64_t n,
                         const char *model) {
  const float *p = got->data, *q = want->data;
  double scale = 1e-6, worst = 0;
  for (int64_t k = 0; k < n; k++) scale = fmax(scale, fabs(q[k]));
  for (int64_t k = 0; k < n; k++) {
    double e = fabs(p[k] - q[k]);
    worst = fmax(worst, e);
    if (!(e <= RTOL * scale))
      fail_msg("%s: output element %lld: compiled %.9g, reference %.9g", model,
               (long long)k, p[k], q[k]);
  }
  print_message("%s: max error %.3g relative to max |output| %.3g\n", model,
                worst / scale, scale);
}

/* Builds one model, checks its structure, and (numeric) compiles it and
 * compares its output with the reference. */
static void check_model(const expect *m, int fuse) {
  tvm_graph *g = NULL;
  OK(tvm_zoo_build(m->name, &g));
  assert_non_null(g);
  OK(tvm_graph_status(g));
  assert_int_equal(g->inputs.len, 1);
  assert_int_equal(g->outputs.len, 1);
  const tvm_gvalue *in = g->inputs.data[0], *out = g->outputs.data[0];
  assert_int_equal(in->ndim, m->in_ndim);
  assert_memory_equal(in->shape, m->in_shape, sizeof(int64_t) * m->in_ndim);
  assert_int_equal(in->dtype.code, m->in_int ? kDLInt : kDLFloat);
  assert_int_equal(out->ndim, m->out_ndim);
  assert_memory_equal(out->shape, m->out_shape, sizeof(int64_t) * m->out_ndim);
  assert_int_equal(out->dtype.code, kDLFloat);
  assert_int_equal(out->dtype.bits, 32);
  assert_int_equal(count_params(g), m->params);
  assert_int_equal(count_op(g, m->op), m->op_count);
  reinfer(g);
  if (!m->numeric && !getenv("TVM_ZOO_FULL")) {
    tvm_graph_free(g);
    return;
  }

  DLTensor x, want, got;
  int64_t nout = tvm_gvalue_numel(out);
  tensor_alloc(&x, in);
  tensor_fill(&x, in, 1234, 10000);
  tensor_alloc(&want, out);
  tensor_alloc(&got, out);
  const DLTensor *ins[1] = {&x};
  DLTensor *outs[1] = {&want};
  OK(tvm_graph_eval_reference(g, ins, outs));
  expect_sane(&want, nout, m->name);

  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.fuse = fuse;
  tvm_plan *p = NULL;
  tvm_executor *e = NULL;
  OK(tvm_compile(g, T, &o, &p));
  OK(tvm_executor_create(p, T, &e));
  OK(tvm_executor_set_input(e, 0, &x));
  OK(tvm_executor_run(e));
  OK(tvm_executor_get_output(e, 0, &got));
  expect_close(&got, &want, nout, m->name);
  tvm_executor_free(e);
  tvm_plan_free(p);
  tensor_free(&x);
  tensor_free(&want);
  tensor_free(&got);
  tvm_graph_free(g);
}

/* The expectations of model name. */
static const expect *find(const char *name) {
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
    if (!strcmp(models[i].name, name)) return &models[i];
  return NULL;
}

/* One test per model: structure, and numbers where models[] says so. */
#define MODEL_TEST(nm)                                                  \
  static void test_##nm(void **state) {                                 \
    (void)state;                                                        \
    check_model(find(#nm), 1);                                          \
  }
MODEL_TEST(resnet18)
MODEL_TEST(resnet50)
MODEL_TEST(mobilenet_v2)
MODEL_TEST(squeezenet)
MODEL_TEST(lstm_lm)
MODEL_TEST(dqn)
MODEL_TEST(dcgan)

/* Without fusion the plan must compute the same (DQN: small and fast). */
static void test_dqn_unfused(void **state) {
  (void)state;
  check_model(find("dqn"), 0);
}

/* The DQN printed whole: every layer's operator, attributes and shape. */
static void test_dqn_graph(void **state) {
  (void)state;
  static const char want[] =
    "graph(%frames: float32[1, 4, 84, 84]) {\n"
    "  %conv1.weight: const float32[32, 4, 8, 8]\n"
    "  %conv1.bias: const float32[32]\n"
    "  %conv2.weight: const float32[64, 32, 4, 4]\n"
    "  %conv2.bias: const float32[64]\n"
    "  %conv3.weight: const float32[64, 64, 3, 3]\n"
    "  %conv3.bias: const float32[64]\n"
    "  %fc1.weight: const float32[512, 3136]\n"
    "  %fc1.bias: const float32[512]\n"
    "  %q_values.weight: const float32[18, 512]\n"
    "  %q_values.bias: const float32[18]\n"
    "  %conv1 = Conv(%frames, %conv1.weight, %conv1.bias) {kernel_shape=[8, 8], strides=[4, 4], pads=[0, 0, 0, 0], group=1}\n"
    "           -> float32[1, 32, 20, 20]\n"
    "  %conv1.relu = Relu(%conv1) -> float32[1, 32, 20, 20]\n"
    "  %conv2 = Conv(%conv1.relu, %conv2.weight, %conv2.bias) {kernel_shape=[4, 4], strides=[2, 2], pads=[0, 0, 0, 0], group=1}\n"
    "           -> float32[1, 64, 9, 9]\n"
    "  %conv2.relu = Relu(%conv2) -> float32[1, 64, 9, 9]\n"
    "  %conv3 = Conv(%conv2.relu, %conv3.weight, %conv3.bias) {kernel_shape=[3, 3], strides=[1, 1], pads=[0, 0, 0, 0], group=1}\n"
    "           -> float32[1, 64, 7, 7]\n"
    "  %conv3.relu = Relu(%conv3) -> float32[1, 64, 7, 7]\n"
    "  %flatten = Flatten(%conv3.relu) {axis=1} -> float32[1, 3136]\n"
    "  %fc1 = Gemm(%flatten, %fc1.weight, %fc1.bias) {transB=1} -> float32[1, 512]\n"
    "  %fc1.relu = Relu(%fc1) -> float32[1, 512]\n"
    "  %q_values = Gemm(%fc1.relu, %q_values.weight, %q_values.bias) {transB=1}\n"
    "              -> float32[1, 18]\n"
    "  return %q_values\n"
    "}\n";
  tvm_graph *g = NULL;
  OK(tvm_zoo_build("dqn", &g));
  char *got = tvm_graph_str(g);
  assert_non_null(got);
  if (strcmp(got, want) != 0) {
    print_error("--- expected\n%s--- got\n%s---\n", want, got);
    tvm_free(got);
    fail();
  }
  tvm_free(got);
  tvm_graph_free(g);
}

/* Every model is listed; an unknown name is refused with the list. */
static void test_names(void **state) {
  (void)state;
  const char *const *names = tvm_zoo_names();
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    int found = 0;
    for (const char *const *n = names; *n; n++)
      found |= !strcmp(*n, models[i].name);
    if (!found) fail_msg("%s is not in tvm_zoo_names", models[i].name);
  }
  tvm_graph *g = (tvm_graph *)1;
  assert_int_equal(tvm_zoo_build("resnet19", &g), TVM_ERR_NOT_FOUND);
  assert_null(g);
  assert_non_null(strstr(tvm_diag_message(), "resnet18"));
}

/* The same name builds the same weights twice (fixed seeds). */
static void test_deterministic(void **state) {
  (void)state;
  tvm_graph *a = NULL, *b = NULL;
  OK(tvm_zoo_build("dqn", &a));
  OK(tvm_zoo_build("dqn", &b));
  assert_int_equal(a->values.len, b->values.len);
  for (size_t i = 0; i < a->values.len; i++) {
    const tvm_gvalue *x = a->values.data[i], *y = b->values.data[i];
    if (x->kind != TVM_GV_CONST) continue;
    assert_string_equal(x->name, y->name);
    assert_memory_equal(x->data, y->data, (size_t)tvm_gvalue_bytes(x));
  }
  tvm_graph_free(a);
  tvm_graph_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_dqn_graph),
      cmocka_unit_test(test_resnet18),
      cmocka_unit_test(test_resnet50),
      cmocka_unit_test(test_mobilenet_v2),
      cmocka_unit_test(test_squeezenet),
      cmocka_unit_test(test_lstm_lm),
      cmocka_unit_test(test_dqn),
      cmocka_unit_test(test_dqn_unfused),
      cmocka_unit_test(test_dcgan),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
