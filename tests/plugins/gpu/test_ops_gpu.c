/*
 * tests/plugins/gpu/test_ops_gpu.c - operators of the op library through
 * a GPU plugin (GPU_TARGET: "opencl" or "cuda-sm90"): each compute gets a
 * naive thread schedule made here (injective producers inlined, every
 * other stage's spatial axes fused, split by 64 and bound to
 * blockIdx.x/threadIdx.x, reductions serial per thread), is lowered and
 * compiled by the plugin, and, where the target's device exists, its
 * kernels are launched in order and the outputs compared with the
 * operator's reference.  The schedule is this test's, not a strategy: it
 * exercises codegen over the IR the operators produce (selects, casts,
 * integer division, int64 indices, reductions, multi-kernel ops).
 */
#include "../../unit/graph/ops/ops_test.h"

#include "tvm/lower.h"
#include "tvm/runtime.h"
#include "tvm/target.h"

#define INTS(name, ...)                                                        \
  tvm_gattr_ints(name, (int64_t[]){__VA_ARGS__},                               \
                 (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))

static tvm_target *T;
static tvm_device *D; /* NULL: compile only */
static int ncompiled, nrun;

static int setup(void **state) {
  if (t_setup(state)) return -1;
  if (tvm_target_load(GPU_TARGET, &T) != TVM_OK) {
    print_message("target %s: %s\n", GPU_TARGET, tvm_diag_message());
    return -1;
  }
  if (tvm_target_probe(T) != TVM_OK)
    print_message("note: %s: compile only, not run: %s\n", GPU_TARGET,
                  tvm_diag_message());
  else if (tvm_device_open(T, &D) != TVM_OK)
    print_message("device_open: %s\n", tvm_diag_message());
  return 0;
}

static int teardown(void **state) {
  print_message("%s: %d operator instances compiled, %d run\n", GPU_TARGET,
                ncompiled, nrun);
  if (D) tvm_device_close(D);
  tvm_target_free(T);
  return t_teardown(state);
}

/* The naive thread schedule described at the top. */
static void schedule_naive(tvm_ctx *c, tvm_schedule *s) {
  for (size_t i = 0; i < s->stages.len; i++) {
    tvm_stage *st = s->stages.data[i];
    if (st->op->kind != TVM_OP_COMPUTE) continue;
    if (!st->is_output && st->op->nreduce == 0 &&
        tvm_compute_inline(st) == TVM_OK)
      continue;
    if (st->op->naxis == 0) continue; /* a scalar: stays on the host */
    tvm_iter_var *f = tvm_stage_axis(st, 0), *bo, *bi;
    for (int d = 1; d < st->op->naxis; d++)
      assert_int_equal(tvm_fuse(st, f, tvm_stage_axis(st, d), &f), TVM_OK);
    assert_int_equal(tvm_split(st, f, 64, &bo, &bi), TVM_OK);
    assert_int_equal(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)), TVM_OK);
    assert_int_equal(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)), TVM_OK);
  }
}

static int64_t tensor_bytes(tvm_dtype t, int64_t numel) {
  int64_t n = (t.bits + 7) / 8 * numel;
  return n > 0 ? n : 1;
}

/* Launches every device function of m in order on D; host parameters
 * are args (device buffers dp), host-allocated intermediates get their
 * own buffers. */
static void run_kernels(const char *op, tvm_module *m, const tvm_plugin_blob *b,
                        tvm_tensor **args, void **dp, int na) {
  tvm_runtime_module *rm;
  if (tvm_runtime_module_load(D, b, &rm) != TVM_OK)
    fail_msg("%s: module load: %s", op, tvm_diag_message());
  const tvm_func *host = NULL;
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i]->kind == TVM_FUNC_HOST) host = m->funcs[i];
  assert_non_null(host);
  tvm_ptrmap tmp = {0};
  tvm_ptrvec tmps = {0};
  for (int i = 0; i < m->nfuncs; i++) {
    const tvm_func *kf = m->funcs[i];
    if (kf->kind != TVM_FUNC_DEVICE) continue;
    tvm_plugin_arg pa[32];
    assert_true(kf->nparams <= 32);
    for (int p = 0; p < kf->nparams; p++) {
      void *ptr = NULL;
      for (int h = 0; h < host->nparams && h < na; h++)
        if (host->params[h] == kf->params[p]) ptr = dp[h];
      if (!ptr && !tvm_ptrmap_get(&tmp, kf->params[p], &ptr)) {
        const tvm_buffer *buf = kf->buffers ? kf->buffers[p] : NULL;
        int64_t numel = 1;
        if (!buf) fail_msg("%s: scalar kernel parameter %s", op,
                           kf->params[p]->u.var.name);
        for (int d = 0; d < buf->ndim; d++) {
          int64_t e;
          if (!tvm_is_const_int(buf->shape[d], &e))
            fail_msg("%s: intermediate %s of unknown size", op, buf->name);
          numel *= e;
        }
        assert_int_equal(tvm_device_alloc(D, 0, (uint64_t)tensor_bytes(buf->dtype, numel),
                                          64, &ptr), TVM_OK);
        assert_int_equal(tvm_ptrmap_put(&tmp, kf->params[p], ptr), TVM_OK);
        assert_int_equal(tvm_ptrvec_push(&tmps, ptr), TVM_OK);
      }
      pa[p].type = TVM_ARG_PTR;
      pa[p].reserved = 0;
      pa[p].v.ptr = ptr;
    }
    tvm_runtime_func *f;
    assert_int_equal(tvm_runtime_get_func(rm, kf->name, &f), TVM_OK);
    if (tvm_runtime_call(f, pa, (uint32_t)kf->nparams) != TVM_OK)
      fail_msg("%s: %s: %s", op, kf->name, tvm_diag_message());
  }
  for (size_t i = 0; i < tmps.len; i++) tvm_device_free(D, 0, tmps.data[i]);
  tvm_ptrvec_free(&tmps);
  tvm_ptrmap_free(&tmp);
  tvm_runtime_module_free(rm);
  (void)args;
}

/* Compiles the node's compute for T and, with a device, runs and compares. */
static void run_gpu_g(tvm_gnode *n, const int *kinds, int64_t range) {
  tinfer(n);
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[16] = {0}, *out[8] = {0};
  DLTensor *din[16] = {0}, *dref[8] = {0}, *dgot[8] = {0};
  for (int i = 0; i < n->ninputs; i++) {
    const tvm_gvalue *v = n->inputs[i];
    if (!v) continue;
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    in[i] = tvm_placeholder(c, name, v->dtype, v->shape, v->ndim);
    din[i] = tdl(v);
    if (v->kind == TVM_GV_CONST) continue;
    gen_ud g = {kinds ? kinds[i] : G_REAL, i, range, v};
    for (int64_t e = 0; e < tvm_gvalue_numel(v); e++) tset(din[i], e, gen_val(&g, e));
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
  if (tvm_schedule_create(c, out, n->noutputs, &s))
    fail_msg("%s schedule: %s", n->op, tvm_diag_message());
  schedule_naive(c, s);
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
  tvm_plugin_blob blob;
  if (tvm_target_codegen(T, m, &blob) != TVM_OK)
    fail_msg("%s codegen for %s: %s", n->op, GPU_TARGET, tvm_diag_message());
  ncompiled++;
  if (D) {
    void *dp[24];
    for (int i = 0; i < na; i++) {
      int64_t numel = 1;
      for (int d = 0; d < args[i]->ndim; d++) numel *= args[i]->shape_c[d];
      size_t bytes = (size_t)tensor_bytes(args[i]->dtype, numel);
      assert_int_equal(tvm_device_alloc(D, 0, bytes, 64, &dp[i]), TVM_OK);
      assert_int_equal(tvm_device_copy(D, dp[i], 0, argd[i]->data, 0, bytes,
                                       TVM_COPY_HOST_TO_DEVICE), TVM_OK);
    }
    run_kernels(n->op, m, &blob, args, dp, na);
    for (int i = 0; i < na; i++) {
      int64_t numel = 1;
      for (int d = 0; d < args[i]->ndim; d++) numel *= args[i]->shape_c[d];
      size_t bytes = (size_t)tensor_bytes(args[i]->dtype, numel);
      assert_int_equal(tvm_device_copy(D, argd[i]->data, 0, dp[i], 0, bytes,
                                       TVM_COPY_DEVICE_TO_HOST), TVM_OK);
      tvm_device_free(D, 0, dp[i]);
    }
    for (int k = 0; k < n->noutputs; k++)
      for (int64_t e = 0; e < tvm_gvalue_numel(n->outputs[k]); e++) {
        double want = tget(dref[k], e), got = tget(dgot[k], e);
        if (got != want && !(fabs(got - want) <= 1e-4 * (1 + fabs(want))))
          fail_msg("%s output %d element %lld: %s %.7g, reference %.7g", n->op,
                   k, (long long)e, GPU_TARGET, got, want);
      }
    nrun++;
  }
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}
static void run_gpu(tvm_gnode *n) { run_gpu_g(n, NULL, 0); }

static void test_elementwise(void **state) {
  (void)state;
  static const char *const un[] = {
      "Relu", "LeakyRelu", "Elu",  "Selu", "Sigmoid", "HardSigmoid",
      "HardSwish", "Tanh", "Softplus", "Exp", "Erf", "Neg", "Abs", "Floor",
      "Ceil", "Round", "Sin", "Cos", "Sign", "Softsign", "Celu"};
  for (size_t i = 0; i < sizeof un / sizeof un[0]; i++)
    run_gpu(NODE(un[i], TVM_IN(TF(2, 3, 5)), TVM_NOATTRS));
  static const char *const pos[] = {"Log", "Sqrt", "Reciprocal"};
  for (int i = 0; i < 3; i++)
    run_gpu_g(NODE(pos[i], TVM_IN(TF(4, 5)), TVM_NOATTRS), KINDS(G_POS), 0);
  run_gpu(NODE("Clip", TVM_IN(TF(4, 5), tcscalar(-1), tcscalar(2)), TVM_NOATTRS));
  run_gpu_g(NODE("Abs", TVM_IN(TV(TVM_I64, 7)), TVM_NOATTRS), KINDS(G_INT), 0);
  run_gpu_g(NODE("Cast", TVM_IN(TF(3, 4)), TVM_ATTRS(tvm_gattr_int("to", 6))),
            KINDS(G_REAL), 0);
  run_gpu(NODE("Cast", TVM_IN(TF(3, 4)), TVM_ATTRS(tvm_gattr_int("to", 11))));
  run_gpu_g(NODE("Not", TVM_IN(TV(TVM_BOOL, 3, 4)), TVM_NOATTRS), KINDS(G_INT), 0);
}

static void test_broadcast(void **state) {
  (void)state;
  static const char *const bn[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
  for (int i = 0; i < 6; i++)
    run_gpu_g(NODE(bn[i], TVM_IN(TF(2, 3, 4), TF(3, 1)), TVM_NOATTRS),
              KINDS(G_REAL, G_POS), 0);
  run_gpu_g(NODE("Div", TVM_IN(TV(TVM_I32, 3, 4), TV(TVM_I32, 3, 4)), TVM_NOATTRS),
            KINDS(G_INT, G_NZINT), 0);
  run_gpu_g(NODE("Pow", TVM_IN(TF(3, 4), TF(4)), TVM_NOATTRS), KINDS(G_POS, G_REAL), 0);
  run_gpu(NODE("Less", TVM_IN(TF(3, 4), TF(4)), TVM_NOATTRS));
  run_gpu_g(NODE("Where", TVM_IN(TV(TVM_BOOL, 2, 3, 1), TF(3, 4), TF(4)), TVM_NOATTRS),
            KINDS(G_INT, G_REAL, G_REAL), 0);
}

static void test_nn(void **state) {
  (void)state;
  run_gpu(tnode("Conv", TVM_IN(TF(1, 3, 8, 8), TF(4, 3, 3, 3), TF(4)),
                TVM_ATTRS(INTS("pads", 1, 1, 1, 1)), 1));
  run_gpu(tnode("Conv", TVM_IN(TF(1, 4, 9, 9), TF(6, 2, 3, 3)),
                TVM_ATTRS(INTS("strides", 2, 2), tvm_gattr_int("group", 2)), 1));
  run_gpu(NODE("MaxPool", TVM_IN(TF(1, 3, 9, 9)),
               TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("strides", 2, 2))));
  run_gpu(NODE("AveragePool", TVM_IN(TF(1, 3, 9, 9)),
               TVM_ATTRS(INTS("kernel_shape", 3, 3), INTS("pads", 1, 1, 1, 1))));
  run_gpu(NODE("GlobalAveragePool", TVM_IN(TF(2, 3, 5, 5)), TVM_NOATTRS));
  run_gpu(NODE("Gemm", TVM_IN(TF(6, 4), TF(6, 5)), TVM_ATTRS(tvm_gattr_int("transA", 1))));
  run_gpu(NODE("MatMul", TVM_IN(TF(2, 1, 3, 4), TF(3, 4, 5)), TVM_NOATTRS));
  run_gpu(NODE("Softmax", TVM_IN(TF(3, 7)), TVM_NOATTRS));
  run_gpu(NODE("LogSoftmax", TVM_IN(TF(2, 3, 4)), TVM_ATTRS(tvm_gattr_int("axis", 1))));
  run_gpu(NODE("LayerNormalization", TVM_IN(TF(2, 3, 8), TF(8), TF(8)),
               TVM_ATTRS(tvm_gattr_int("axis", -1))));
}

static void test_shape_and_reduce(void **state) {
  (void)state;
  run_gpu(NODE("Transpose", TVM_IN(TF(2, 3, 4)), TVM_ATTRS(INTS("perm", 2, 0, 1))));
  run_gpu(NODE("Concat", TVM_IN(TF(2, 3), TF(2, 2), TF(2, 1)),
               TVM_ATTRS(tvm_gattr_int("axis", 1))));
  run_gpu(NODE("Pad", TVM_IN(TF(3, 4), TCI(1, 2, 2, 1)), TVM_NOATTRS));
  run_gpu_g(NODE("Gather", TVM_IN(TF(5, 4), TV(TVM_I64, 2, 3)), TVM_NOATTRS),
            KINDS(G_REAL, G_IDX), 5);
  run_gpu(NODE("Tile", TVM_IN(TF(2, 3), TCI(2, 2)), TVM_NOATTRS));
  run_gpu(NODE("DepthToSpace", TVM_IN(TF(1, 8, 2, 3)), TVM_ATTRS(tvm_gattr_int("blocksize", 2))));
  run_gpu(NODE("ReduceMean", TVM_IN(TF(2, 3, 4)), TVM_ATTRS(INTS("axes", 1))));
  run_gpu(NODE("ReduceMax", TVM_IN(TF(2, 3, 4)), TVM_ATTRS(INTS("axes", 2))));
  run_gpu(NODE("ReduceProd", TVM_IN(TF(2, 3, 4)), TVM_ATTRS(INTS("axes", 1))));
}

int main(void) {
  char cache[] = "/tmp/tvm_pocl_cache_XXXXXX";
  if (!getenv("POCL_CACHE_DIR") && mkdtemp(cache)) setenv("POCL_CACHE_DIR", cache, 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_elementwise),
      cmocka_unit_test(test_broadcast),
      cmocka_unit_test(test_nn),
      cmocka_unit_test(test_shape_and_reduce),
  };
  int rc = cmocka_run_group_tests(tests, setup, teardown);
  const char *pc = getenv("POCL_CACHE_DIR");
  if (pc && !strncmp(pc, "/tmp/tvm_pocl_cache_", 20)) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", pc);
    if (system(cmd) != 0) printf("note: could not remove %s\n", pc);
  }
  return rc;
}
