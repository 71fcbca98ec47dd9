/*
 * tests/unit/graph/ops/test_ops_llvm.c - every operator's compute taken
 * through the real pipeline: default schedule, tvm_lower, the llvm-cpu
 * plugin's codegen, a run on the CPU, and the result compared with the
 * operator's reference on the same inputs.  This catches what the TE
 * interpreter cannot: dtype mistakes in code generation, out-of-range
 * reads of selects (both sides are evaluated in generated code), integer
 * division semantics.  Skipped when the llvm-cpu target cannot be loaded
 * (the plugin is not built).
 *
 * Built a second time as tests/plugins/simt/test_ops_simt with
 * OPS_TARGET_YAML naming the simt test target: every kernel is then
 * scheduled by the core's generic thread schedule and run serialized on
 * the CPU.  Both builds schedule through tvm_strategy_schedule (the
 * target's strategies, else its generic family) and report which
 * registry operators the tests exercised.
 */
#include "ops_test.h"

#include "tvm/lower.h"
#include "tvm/runtime.h"
#include "tvm/strategy.h"
#include "tvm/target.h"

#define INTS(name, ...)                                                        \
  tvm_gattr_ints(name, (int64_t[]){__VA_ARGS__},                               \
                 (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))

static tvm_target *T;
static tvm_strmap seen_ops; /* operator names run */

static int setup(void **state) {
  const char *name = "llvm-cpu";
  char path[4096];
  if (t_setup(state))
    return -1;
#ifdef OPS_TARGET_YAML
  snprintf(path, sizeof path, "%s/%s",
           getenv("TVM_SRCDIR") ? getenv("TVM_SRCDIR") : ".", OPS_TARGET_YAML);
  name = path;
#else
  (void)path;
#endif
  if (tvm_target_load(name, &T) != TVM_OK) {
    print_message("%s target unavailable (%s): skipping\n", name,
                  tvm_diag_message());
    T = NULL;
  }
  return 0;
}

static int teardown(void **state) {
  if (T) {
    int n = 0;
    tvm_strbuf miss;
    tvm_strbuf_init(&miss);
    for (int i = 0; i < tvm_gop_count(); i++) {
      const tvm_gop_def *d = tvm_gop_at(i);
      if (tvm_strmap_get(&seen_ops, d->name))
        n++;
      else if (d->compute)
        tvm_strbuf_printf(&miss, " %s", d->name);
    }
    print_message("%s: %d of %d registry operators run; not run (with a "
                  "compute):%s\n",
                  T->name, n, tvm_gop_count(), miss.data ? miss.data : "");
    tvm_strbuf_free(&miss);
    tvm_target_free(T);
  }
  tvm_strmap_free(&seen_ops);
  return t_teardown(state);
}

static int64_t tensor_bytes(const tvm_tensor *t) {
  int64_t n = (t->dtype.bits + 7) / 8;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape_c[d];
  return n > 0 ? n : 1;
}

/* Compiles and runs the node's compute on llvm-cpu and compares every
 * output with the reference. */
static void run_llvm_g(tvm_gnode *n, const int *kinds, int64_t range) {
  if (!T)
    skip();
  tinfer(n);
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[16] = {0}, *out[8] = {0};
  DLTensor *din[16] = {0}, *dref[8] = {0}, *dgot[8] = {0};
  for (int i = 0; i < n->ninputs; i++) {
    const tvm_gvalue *v = n->inputs[i];
    if (!v)
      continue;
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    in[i] = tvm_placeholder(c, name, v->dtype, v->shape, v->ndim);
    din[i] = tdl(v);
    if (v->kind == TVM_GV_CONST)
      continue;
    gen_ud g = {kinds ? kinds[i] : G_REAL, i, range, v};
    for (int64_t e = 0; e < tvm_gvalue_numel(v); e++)
      tset(din[i], e, gen_val(&g, e));
  }
  for (int k = 0; k < n->noutputs; k++) {
    dref[k] = tdl(n->outputs[k]);
    dgot[k] = tdl(n->outputs[k]);
  }
  if (n->def->reference(n, (const DLTensor *const *)din, dref))
    fail_msg("%s reference: %s", n->op, tvm_diag_message());
  if (n->def->compute(c, n, in, out))
    fail_msg("%s compute: %s", n->op, tvm_diag_message());
  tvm_schedule *s = NULL;
  tvm_strategy_env *env = NULL;
  tvm_config *cfg = tvm_config_create();
  if (!cfg || tvm_strategy_env_create(T, c, &env) ||
      tvm_strategy_schedule(env, n->op, (int)n->def->pattern, n, out,
                            n->noutputs, cfg, &s, NULL))
    fail_msg("%s schedule on %s: %s", n->op, T->name, tvm_diag_message());
  tvm_strategy_env_free(env);
  tvm_config_free(cfg);
  tvm_strmap_put(&seen_ops, n->op, (void *)1);
  /* parameters: the inputs the compute reads, then the outputs */
  tvm_tensor *args[24];
  DLTensor *argd[24];
  int na = 0;
  for (int i = 0; i < n->ninputs; i++)
    if (in[i] && tvm_stage_of(s, in[i])) {
      args[na] = in[i];
      argd[na++] = din[i];
    }
  for (int k = 0; k < n->noutputs; k++) {
    args[na] = out[k];
    argd[na++] = dgot[k];
  }
  tvm_lower_options lo;
  tvm_lower_options_init(&lo);
  tvm_target_lower_options(T, &lo);
  tvm_module *m = tvm_ctx_alloc(c, sizeof *m);
  m->ctx = c;
  if (tvm_lower(s, args, na, "op", &lo, m))
    fail_msg("%s lower: %s", n->op, tvm_diag_message());
  tvm_runtime_module *rm = NULL;
  if (tvm_build(T, m, NULL, &rm))
    fail_msg("%s build: %s", n->op, tvm_diag_message());
  tvm_device *dev = tvm_runtime_module_device(rm);
  tvm_runtime_func *f = NULL;
  assert_int_equal(tvm_runtime_get_func(rm, "op", &f), TVM_OK);
  tvm_plugin_arg pa[24];
  void *dp[24];
  for (int i = 0; i < na; i++) {
    size_t bytes = (size_t)tensor_bytes(args[i]);
    assert_int_equal(tvm_device_alloc(dev, 0, bytes, 64, &dp[i]), TVM_OK);
    assert_int_equal(tvm_device_copy(dev, dp[i], 0, argd[i]->data, 0, bytes,
                                     TVM_COPY_HOST_TO_DEVICE),
                     TVM_OK);
    pa[i].type = TVM_ARG_PTR;
    pa[i].reserved = 0;
    pa[i].v.ptr = dp[i];
  }
  if (tvm_runtime_call(f, pa, (uint32_t)na))
    fail_msg("%s run: %s", n->op, tvm_diag_message());
  for (int i = 0; i < na; i++) {
    size_t bytes = (size_t)tensor_bytes(args[i]);
    assert_int_equal(tvm_device_copy(dev, argd[i]->data, 0, dp[i], 0, bytes,
                                     TVM_COPY_DEVICE_TO_HOST),
                     TVM_OK);
    tvm_device_free(dev, 0, dp[i]);
  }
  for (int k = 0; k < n->noutputs; k++)
    for (int64_t e = 0; e < tvm_gvalue_numel(n->outputs[k]); e++) {
      double want = tget(dref[k], e), got = tget(dgot[k], e);
      if (got != want && !(fabs(got - want) <= 1e-4 * (1 + fabs(want))))
        fail_msg("%s output %d element %lld: llvm-cpu %.7g, reference %.7g",
                 n->op, k, (long long)e, got, want);
    }
  tvm_runtime_module_free(rm);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}
static void run_llvm(tvm_gnode *n) { run_llvm_g(n, NULL, 0); }

static void test_llvm_elementwise(void **state) {
  static const char *const un[] = {"Relu",
                                   "LeakyRelu",
                                   "Elu",
                                   "Selu",
                                   "Sigmoid",
                                   "HardSigmoid",
                                   "HardSwish",
                                   "Tanh",
                                   "Softplus",
                                   "Exp",
                                   "Erf",
                                   "Neg",
                                   "Abs",
                                   "Identity",
                                   "Floor",
                                   "Ceil",
                                   "Round",
                                   "Sin",
                                   "Cos",
                                   "Sign",
                                   "Softsign",
                                   "Shrink",
                                   "ThresholdedRelu",
                                   "Sinh",
                                   "Cosh",
                                   "Tan",
                                   "Celu"};
  for (size_t i = 0; i < sizeof un / sizeof un[0]; i++)
    run_llvm(NODE(un[i], TVM_IN(TF(2, 3, 5)), TVM_NOATTRS));
  static const char *const pos[] = {"Log", "Sqrt", "Reciprocal"};
  for (int i = 0; i < 3; i++)
    run_llvm_g(NODE(pos[i], TVM_IN(TF(4, 5)), TVM_NOATTRS), KINDS(G_POS), 0);
  run_llvm(
      NODE("Clip", TVM_IN(TF(4, 5), tcscalar(-1), tcscalar(2)), TVM_NOATTRS));
  run_llvm_g(NODE("Neg", TVM_IN(TV(TVM_I32, 7)), TVM_NOATTRS), KINDS(G_INT), 0);
  run_llvm_g(NODE("Abs", TVM_IN(TV(TVM_I64, 7)), TVM_NOATTRS), KINDS(G_INT), 0);
  run_llvm(NODEK("Dropout", TVM_IN(TF(3, 4)), TVM_NOATTRS, 2));
  run_llvm_g(NODE("Cast", TVM_IN(TF(3, 4)), TVM_ATTRS(tvm_gattr_int("to", 6))),
             KINDS(G_REAL), 0); /* truncation of x.125 etc. */
  run_llvm(NODE("Cast", TVM_IN(TF(3, 4)), TVM_ATTRS(tvm_gattr_int("to", 9))));
  run_llvm_g(
      NODE("Cast", TVM_IN(TV(TVM_I64, 6)), TVM_ATTRS(tvm_gattr_int("to", 1))),
      KINDS(G_INT), 0);
}

static void test_llvm_broadcast(void **state) {
  static const char *const bn[] = {"Add", "Sub", "Mul", "Div",
                                   "Max", "Min", "Sum", "Mean"};
  for (int i = 0; i < 8; i++)
    run_llvm_g(NODE(bn[i], TVM_IN(TF(2, 3, 4), TF(3, 1)), TVM_NOATTRS),
               KINDS(G_REAL, G_POS), 0);
  run_llvm_g(
      NODE("Div", TVM_IN(TV(TVM_I32, 3, 4), TV(TVM_I32, 3, 4)), TVM_NOATTRS),
      KINDS(G_INT, G_NZINT), 0);
  run_llvm_g(NODE("Add", TVM_IN(TV(TVM_I64, 2, 3, 4), TV(TVM_I64, 2, 1, 4)),
                  TVM_NOATTRS),
             KINDS(G_INT, G_INT), 0);
  run_llvm_g(NODE("Pow", TVM_IN(TF(3, 4), TF(4)), TVM_NOATTRS),
             KINDS(G_POS, G_REAL), 0);
  run_llvm_g(
      NODE("Pow", TVM_IN(TV(TVM_I64, 3, 4), TV(TVM_I64, 4)), TVM_NOATTRS),
      KINDS(G_INT, G_IDX), 3);
  run_llvm(NODE("PRelu", TVM_IN(TF(1, 3, 4, 4), TF(3, 1, 1)), TVM_NOATTRS));
  run_llvm(NODE("Less", TVM_IN(TF(3, 4), TF(4)), TVM_NOATTRS));
  run_llvm_g(
      NODE("Equal", TVM_IN(TV(TVM_I64, 3, 4), TV(TVM_I64, 4)), TVM_NOATTRS),
      KINDS(G_IDX, G_IDX), 2);
  run_llvm_g(NODE("Where", TVM_IN(TV(TVM_BOOL, 2, 3, 1), TF(3, 4), TF(4)),
                  TVM_NOATTRS),
             KINDS(G_IDX, G_REAL, G_REAL), 1);
  run_llvm_g(
      NODE("And", TVM_IN(TV(TVM_BOOL, 3, 4), TV(TVM_BOOL, 4)), TVM_NOATTRS),
      KINDS(G_IDX, G_IDX), 1);
  run_llvm_g(
      NODE("Mod", TVM_IN(TV(TVM_I32, 3, 4), TV(TVM_I32, 4)), TVM_NOATTRS),
      KINDS(G_INT, G_NZINT), 0);
  run_llvm_g(
      NODE("Mod", TVM_IN(TF(3, 4), TF(4)), TVM_ATTRS(tvm_gattr_int("fmod", 1))),
      KINDS(G_REAL, G_POS), 0);
  tvm_gvalue *c = TF(3);
  run_llvm_g(NODE("BatchNormalization", TVM_IN(TF(2, 3, 4, 4), c, c, c, c),
                  TVM_NOATTRS),
             KINDS(G_REAL, G_REAL, G_REAL, G_REAL, G_POS), 0);
}

static void test_llvm_nn(void **state) {
  run_llvm(tnode("Conv", TVM_IN(TF(1, 3, 8, 8), TF(4, 3, 3, 3), TF(4)),
                 TVM_ATTRS(INTS("pads", 1, 1, 1, 1)), 1));
  run_llvm(tnode("Conv", TVM_IN(TF(1, 3, 9, 8), TF(4, 3, 3, 3)),
                 TVM_ATTRS(INTS("pads", 1, 0, 2, 1), INTS("strides", 2, 2)),
                 1));
  run_llvm(tnode("Conv", TVM_IN(TF(1, 4, 8, 8), TF(4, 1, 3, 3)),
                 TVM_ATTRS(INTS("pads", 1, 1, 1, 1), tvm_gattr_int("group", 4)),
                 1));
  run_llvm(tnode("Conv", TVM_IN(TF(1, 4, 9, 9), TF(6, 2, 3, 3)),
                 TVM_ATTRS(INTS("dilations", 2, 2), tvm_gattr_int("group", 2),
                           tvm_gattr_str("auto_pad", "SAME_UPPER")),
                 1));
  run_llvm(tnode("Conv", TVM_IN(TF(2, 3, 10), TF(4, 3, 3)),
                 TVM_ATTRS(INTS("pads", 1, 2)), 1));
  run_llvm(tnode("ConvTranspose", TVM_IN(TF(1, 3, 4, 4), TF(3, 2, 3, 3), TF(2)),
                 TVM_ATTRS(INTS("strides", 2, 2), INTS("pads", 1, 1, 1, 1),
                           INTS("output_padding", 1, 1)),
                 1));
  run_llvm(NODE("MaxPool", TVM_IN(TF(1, 3, 9, 9)),
                TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("strides", 2, 2),
                          INTS("pads", 1, 1, 1, 1))));
  run_llvm(NODE("MaxPool", TVM_IN(TF(1, 3, 8, 8)),
                TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("strides", 2, 2),
                          tvm_gattr_int("ceil_mode", 1))));
  run_llvm(NODE("AveragePool", TVM_IN(TF(1, 3, 9, 9)),
                TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("strides", 2, 2),
                          INTS("pads", 1, 1, 1, 1))));
  run_llvm(NODE("AveragePool", TVM_IN(TF(1, 3, 9, 9)),
                TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("pads", 1, 1, 1, 1),
                          tvm_gattr_int("count_include_pad", 1))));
  run_llvm(NODE("GlobalAveragePool", TVM_IN(TF(2, 3, 5, 5)), TVM_NOATTRS));
  run_llvm(NODE("GlobalMaxPool", TVM_IN(TF(2, 3, 5, 5)), TVM_NOATTRS));
  run_llvm(NODE(
      "Gemm", TVM_IN(TF(4, 6), TF(5, 6), TF(5)),
      TVM_ATTRS(tvm_gattr_int("transB", 1), tvm_gattr_float("alpha", 0.5))));
  run_llvm(NODE("Gemm", TVM_IN(TF(6, 4), TF(6, 5)),
                TVM_ATTRS(tvm_gattr_int("transA", 1))));
  run_llvm(NODE("MatMul", TVM_IN(TF(2, 1, 3, 4), TF(3, 4, 5)), TVM_NOATTRS));
  run_llvm(NODE("MatMul", TVM_IN(TF(4), TF(2, 4, 3)), TVM_NOATTRS));
  run_llvm(NODE("MatMul", TVM_IN(TF(7), TF(7)), TVM_NOATTRS));
  run_llvm(NODE("Softmax", TVM_IN(TF(3, 7)), TVM_NOATTRS));
  run_llvm(NODE("Softmax", TVM_IN(TF(2, 3, 4)),
                TVM_ATTRS(tvm_gattr_int("_opset", 11))));
  run_llvm(NODE("LogSoftmax", TVM_IN(TF(2, 3, 4)),
                TVM_ATTRS(tvm_gattr_int("axis", 1))));
  run_llvm(NODE("LayerNormalization", TVM_IN(TF(2, 3, 8), TF(8), TF(8)),
                TVM_NOATTRS));
  run_llvm(
      NODE("LRN", TVM_IN(TF(1, 5, 3, 3)), TVM_ATTRS(tvm_gattr_int("size", 3))));
  run_llvm(NODE("Resize", TVM_IN(TF(1, 2, 3, 4), NULL, NULL, TCI(1, 2, 6, 7)),
                TVM_ATTRS(tvm_gattr_str("mode", "linear"))));
  run_llvm(NODE("Resize", TVM_IN(TF(1, 2, 3, 4), NULL, NULL, TCI(1, 2, 6, 8)),
                TVM_NOATTRS));
  int small[8] = {G_SMALL, G_SMALL, G_SMALL, G_SMALL,
                  G_SMALL, G_SMALL, G_SMALL, G_SMALL};
  run_llvm_g(NODEK("LSTM",
                   TVM_IN(TF(3, 2, 4), TF(1, 12, 4), TF(1, 12, 3), TF(1, 24)),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 3)), 3),
             small, 0);
  run_llvm_g(NODEK("LSTM", TVM_IN(TF(2, 1, 2), TF(2, 8, 2), TF(2, 8, 2)),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 2),
                             tvm_gattr_str("direction", "bidirectional")),
                   3),
             small, 0);
  for (int lbr = 0; lbr < 2; lbr++)
    run_llvm_g(NODEK("GRU",
                     TVM_IN(TF(3, 2, 4), TF(2, 9, 4), TF(2, 9, 3), TF(2, 18),
                            NULL, TF(2, 2, 3)),
                     TVM_ATTRS(tvm_gattr_int("hidden_size", 3),
                               tvm_gattr_int("linear_before_reset", lbr),
                               tvm_gattr_str("direction", "bidirectional")),
                     2),
               small, 0);
  run_llvm_g(NODEK("RNN",
                   TVM_IN(TF(3, 2, 4), TF(1, 3, 4), TF(1, 3, 3), TF(1, 6)),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 3)), 2),
             small, 0);
}

/* Reductions long enough for the thread schedules' cross-thread path
 * (shared-memory partial sums, a barrier, guarded tails). */
static void test_llvm_long_reductions(void **state) {
  run_llvm(NODE("Softmax", TVM_IN(TF(3, 1000)), TVM_NOATTRS));
  run_llvm(NODE("LogSoftmax", TVM_IN(TF(2, 333)), TVM_NOATTRS));
  run_llvm(NODE("ReduceSum", TVM_IN(TF(2, 3000), TCI(1)),
                TVM_ATTRS(tvm_gattr_int("keepdims", 0))));
  run_llvm(NODE("ReduceSum", TVM_IN(TF(4000)),
                TVM_ATTRS(tvm_gattr_int("keepdims", 0))));
  run_llvm(NODE("ReduceMax", TVM_IN(TF(5, 777)), TVM_NOATTRS));
  run_llvm(NODE("ReduceMin", TVM_IN(TF(5, 777)), TVM_ATTRS(INTS("axes", 1))));
  run_llvm(
      NODE("ReduceMean", TVM_IN(TF(2, 4, 300)), TVM_ATTRS(INTS("axes", 1, 2))));
  run_llvm(NODE("ReduceSumSquare", TVM_IN(TF(3, 200)),
                TVM_ATTRS(INTS("axes", 1))));
  run_llvm(NODE("ReduceL2", TVM_IN(TF(3, 200)), TVM_ATTRS(INTS("axes", 1))));
  run_llvm(NODE("GlobalAveragePool", TVM_IN(TF(1, 4, 16, 16)), TVM_NOATTRS));
}

/* The registry's remaining operators with a compute (Conv_NCHWc and
 * Pool_NCHWc run in the zoo models through llvm-cpu's alter_layout). */
static void test_llvm_more_ops(void **state) {
  run_llvm(NODE("InstanceNormalization", TVM_IN(TF(2, 3, 4, 5), TF(3), TF(3)),
                TVM_NOATTRS));
  run_llvm(NODE("Upsample",
                TVM_IN(TF(1, 2, 3, 4),
                       tcf32(1, (int64_t[]){4}, (float[]){1, 1, 2, 2})),
                TVM_ATTRS(tvm_gattr_int("_opset", 9))));
  run_llvm(NODE("ReduceL1", TVM_IN(TF(3, 40)), TVM_ATTRS(INTS("axes", 1))));
  run_llvm_g(NODE("ReduceLogSum", TVM_IN(TF(3, 4)), TVM_ATTRS(INTS("axes", 1))),
             KINDS(G_POS), 0);
  run_llvm_g(
      NODE("ArgMin", TVM_IN(TF(3, 5)), TVM_ATTRS(tvm_gattr_int("axis", 1))),
      KINDS(G_IDX), 2);
  static const char *const cmp[] = {"Greater", "LessOrEqual", "GreaterOrEqual"};
  for (int i = 0; i < 3; i++)
    run_llvm_g(NODE(cmp[i], TVM_IN(TF(3, 4), TF(4)), TVM_NOATTRS),
               KINDS(G_IDX, G_IDX), 2);
  static const char *const lg[] = {"Or", "Xor"};
  for (int i = 0; i < 2; i++)
    run_llvm_g(NODE(lg[i], TVM_IN(TV(TVM_BOOL, 3, 4), TV(TVM_BOOL, 4)),
                    TVM_NOATTRS),
               KINDS(G_IDX, G_IDX), 1);
  run_llvm_g(NODE("Not", TVM_IN(TV(TVM_BOOL, 5)), TVM_NOATTRS), KINDS(G_IDX),
             1);
  run_llvm(NODE("Range", TVM_IN(tcscalar(0), tcscalar(10), tcscalar(1.5)),
                TVM_NOATTRS));
  run_llvm(NODE("LayoutTransform", TVM_IN(TF(1, 8, 3, 3)),
                TVM_ATTRS(tvm_gattr_str("src_layout", "NCHW"),
                          tvm_gattr_str("dst_layout", "NCHW4c"))));
}

static void test_llvm_shape(void **state) {
  run_llvm(NODE("Reshape", TVM_IN(TF(2, 3, 4), TCI(4, -1)), TVM_NOATTRS));
  run_llvm(NODE("Flatten", TVM_IN(TF(2, 3, 4)), TVM_NOATTRS));
  run_llvm(NODE("Squeeze", TVM_IN(TF(2, 1, 4)), TVM_NOATTRS));
  run_llvm(NODE("Unsqueeze", TVM_IN(TF(2, 4), TCI(0, 2)), TVM_NOATTRS));
  run_llvm(NODE("Expand", TVM_IN(TF(3, 1), TCI(2, 3, 4)), TVM_NOATTRS));
  run_llvm(
      NODE("Transpose", TVM_IN(TF(2, 3, 4)), TVM_ATTRS(INTS("perm", 2, 0, 1))));
  run_llvm(NODE("Concat", TVM_IN(TF(2, 3), TF(2, 2), TF(2, 1)),
                TVM_ATTRS(tvm_gattr_int("axis", 1))));
  run_llvm(NODEK("Split", TVM_IN(TF(6, 2), TCI(2, 4)), TVM_NOATTRS, 2));
  run_llvm(NODE("Slice",
                TVM_IN(TF(6, 5), TCI(1, -1), TCI(5, 0), TCI(0, 1), TCI(2, -1)),
                TVM_NOATTRS));
  static const char *const modes[] = {"constant", "reflect", "edge"};
  for (int k = 0; k < 3; k++)
    run_llvm(NODE("Pad", TVM_IN(TF(3, 4), TCI(1, 2, 2, 1)),
                  TVM_ATTRS(tvm_gattr_str("mode", modes[k]))));
  run_llvm_g(NODE("Gather", TVM_IN(TF(5, 4), TV(TVM_I64, 2, 3)), TVM_NOATTRS),
             KINDS(G_REAL, G_IDX), 5);
  run_llvm_g(NODE("Gather", TVM_IN(TF(5, 4), TV(TVM_I32, 3)),
                  TVM_ATTRS(tvm_gattr_int("axis", 1))),
             KINDS(G_REAL, G_IDX), 4);
  run_llvm_g(NODE("GatherElements", TVM_IN(TF(3, 4), TV(TVM_I64, 3, 2)),
                  TVM_ATTRS(tvm_gattr_int("axis", 1))),
             KINDS(G_REAL, G_IDX), 4);
  run_llvm(NODE("Tile", TVM_IN(TF(2, 3), TCI(2, 2)), TVM_NOATTRS));
  run_llvm(NODE("DepthToSpace", TVM_IN(TF(1, 8, 2, 3)),
                TVM_ATTRS(tvm_gattr_int("blocksize", 2))));
  run_llvm(NODE("SpaceToDepth", TVM_IN(TF(1, 2, 4, 6)),
                TVM_ATTRS(tvm_gattr_int("blocksize", 2))));
  run_llvm(
      NODE("ConstantOfShape", TVM_IN(TCI(2, 3), tcscalar(1.5)), TVM_NOATTRS));
  run_llvm(NODE("ReduceMean", TVM_IN(TF(2, 3, 4)), TVM_ATTRS(INTS("axes", 1))));
  run_llvm(NODE("ReduceSum", TVM_IN(TF(2, 3, 4), TCI(0, 2)),
                TVM_ATTRS(tvm_gattr_int("keepdims", 0))));
  run_llvm(NODE("ReduceMax", TVM_IN(TF(2, 3, 4)), TVM_NOATTRS));
  run_llvm(
      NODE("ReduceLogSumExp", TVM_IN(TF(2, 3, 4)), TVM_ATTRS(INTS("axes", 2))));
  run_llvm(NODE("ReduceProd", TVM_IN(TF(2, 3, 4)), TVM_ATTRS(INTS("axes", 1))));
  run_llvm_g(
      NODE("ArgMax", TVM_IN(TF(3, 5)), TVM_ATTRS(tvm_gattr_int("axis", 1))),
      KINDS(G_IDX), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_llvm_elementwise),
      cmocka_unit_test(test_llvm_broadcast),
      cmocka_unit_test(test_llvm_nn),
      cmocka_unit_test(test_llvm_shape),
      cmocka_unit_test(test_llvm_long_reductions),
      cmocka_unit_test(test_llvm_more_ops),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
