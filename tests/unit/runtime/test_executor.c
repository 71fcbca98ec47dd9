/*
 * tests/unit/runtime/test_executor.c - the graph executor on llvm-cpu:
 * the hand-made plan of plan_fixture.h against its C formula (directly and
 * through a package), parameters read in place or copied, input/output
 * checks, profiling, and the zoo's mlp
 * compiled with tvm_compile against tvm_graph_eval_reference on random
 * inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan_fixture.h"
#include "tvm/graph_passes.h"
#include "tvm/npy.h"
#include "tvm/zoo.h"

static tvm_target *target;

static int setup(void **state) {
  (void)state;
  if (tvm_target_load("llvm-cpu", &target) != TVM_OK) {
    fprintf(stderr, "%s\n", tvm_diag_message());
    return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tvm_target_free(target);
  return 0;
}

static DLTensor f32_tensor(float *data, int64_t *shape, int ndim) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype = TVM_F32;
  t.shape = shape;
  return t;
}

/* Runs plan p on the executor with a fixed input and checks the output. */
static void run_fixture(const tvm_plan *p) {
  static float x[FX_N], y[FX_N], want[FX_N];
  int64_t shape[1] = {FX_N};
  tvm_executor *e = NULL;
  if (tvm_executor_create(p, target, &e) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  for (int i = 0; i < FX_N; i++) x[i] = 0.01f * (float)i - 3.0f;
  DLTensor tx = f32_tensor(x, shape, 1), ty = f32_tensor(y, shape, 1);
  for (int round = 0; round < 2; round++) { /* twice: slots are reused */
    memset(y, 0, sizeof y);
    assert_int_equal(tvm_executor_set_input(e, 0, &tx), TVM_OK);
    assert_int_equal(tvm_executor_run(e), TVM_OK);
    assert_int_equal(tvm_executor_get_output(e, 0, &ty), TVM_OK);
    fx_expect(x, p->values[1].data, want);
    for (int i = 0; i < FX_N; i++)
      if (fabsf(y[i] - want[i]) > 1e-5f * (1 + fabsf(want[i])))
        fail_msg("y[%d] = %g, expected %g", i, y[i], want[i]);
    for (int i = 0; i < FX_N; i++) x[i] = -x[i];
  }
  tvm_executor_free(e);
}

static void test_fixture(void **state) {
  (void)state;
  tvm_plan *p = NULL;
  assert_int_equal(fx_plan(target, &p), TVM_OK);
  run_fixture(p);
  tvm_plan_free(p);
}

/* p saved as a package in $TMPDIR and loaded back (p stays p's). */
static tvm_plan *through_package(const tvm_plan *p) {
  tvm_plan *q = NULL;
  char path[256];
  const char *base = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/tvm-exec-%ld.tvmpkg",
           base && *base ? base : "/tmp", (long)getpid());
  assert_int_equal(tvm_package_save(p, path), TVM_OK);
  assert_int_equal(tvm_package_load(path, target, &q), TVM_OK);
  remove(path);
  return q;
}

static void test_fixture_from_package(void **state) {
  (void)state;
  tvm_plan *p = NULL;
  assert_int_equal(fx_plan(target, &p), TVM_OK);
  tvm_plan *q = through_package(p);
  tvm_plan_free(p);
  run_fixture(q);
  tvm_plan_free(q);
}

/* Creates an executor of p, then changes p's parameter w: the output
 * follows the change when the executor reads w in place (llvm-cpu's
 * memory is the host's, ABI 8, and w sits on a cache line), and keeps the
 * values of creation time when the executor copied w. */
static void check_param_binding(tvm_plan *p, int in_place) {
  static float x[FX_N], y[FX_N], w0[FX_N], want[FX_N];
  int64_t shape[1] = {FX_N};
  float *w = (float *)p->values[1].data;
  tvm_executor *e = NULL;
  if (tvm_executor_create(p, target, &e) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  memcpy(w0, w, sizeof w0);
  for (int i = 0; i < FX_N; i++) {
    x[i] = 0.02f * (float)i - 1.0f;
    w[i] += 1.0f;
  }
  DLTensor tx = f32_tensor(x, shape, 1), ty = f32_tensor(y, shape, 1);
  assert_int_equal(tvm_executor_set_input(e, 0, &tx), TVM_OK);
  assert_int_equal(tvm_executor_run(e), TVM_OK);
  assert_int_equal(tvm_executor_get_output(e, 0, &ty), TVM_OK);
  fx_expect(x, in_place ? w : w0, want);
  for (int i = 0; i < FX_N; i++)
    if (fabsf(y[i] - want[i]) > 1e-5f * (1 + fabsf(want[i])))
      fail_msg("in_place %d: y[%d] = %g, expected %g", in_place, i, y[i],
               want[i]);
  memcpy(w, w0, sizeof w0);
  tvm_executor_free(e);
}

static void test_params_in_place(void **state) {
  (void)state;
  tvm_plan *p = NULL;
  assert_int_equal(fx_plan(target, &p), TVM_OK);
  /* a loaded package's parameters sit on cache lines: read in place */
  tvm_plan *q = through_package(p);
  assert_int_equal((uintptr_t)q->values[1].data % 64, 0);
  check_param_binding(q, 1);
  tvm_plan_free(q);
  /* a parameter off a cache line is copied (a buffer of the device would
   * be aligned; the kernels keep their aligned accesses) */
  float *buf = tvm_arena_alloc(tvm_plan_arena(p), FX_N * sizeof(float) + 128);
  float *aligned = (float *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
  memcpy(aligned, p->values[1].data, FX_N * sizeof(float));
  p->values[1].data = aligned;
  check_param_binding(p, 1);
  memmove(aligned + 1, aligned, FX_N * sizeof(float));
  p->values[1].data = aligned + 1;
  check_param_binding(p, 0);
  tvm_plan_free(p);
}

static void test_bad_tensors(void **state) {
  (void)state;
  tvm_plan *p = NULL;
  tvm_executor *e = NULL;
  static float x[FX_N];
  int64_t shape[1] = {FX_N}, wrong[1] = {FX_N - 1}, two[2] = {1, FX_N};
  assert_int_equal(fx_plan(target, &p), TVM_OK);
  assert_int_equal(tvm_executor_create(p, target, &e), TVM_OK);
  DLTensor t = f32_tensor(x, wrong, 1);
  assert_int_equal(tvm_executor_set_input(e, 0, &t), TVM_ERR_INVALID);
  assert_string_equal(tvm_diag_message(),
                      "input 0 ('x'): shape [999] given, [1000] expected");
  t = f32_tensor(x, two, 2);
  assert_int_equal(tvm_executor_set_input(e, 0, &t), TVM_ERR_INVALID);
  t = f32_tensor(x, shape, 1);
  t.dtype = TVM_I32;
  assert_int_equal(tvm_executor_set_input(e, 0, &t), TVM_ERR_INVALID);
  assert_string_equal(tvm_diag_message(),
                      "input 0 ('x'): dtype int32 given, float32 expected");
  t.dtype = TVM_F32;
  assert_int_equal(tvm_executor_set_input(e, 1, &t), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "has 1 inputs"));
  assert_int_equal(tvm_executor_get_output(e, 3, &t), TVM_ERR_INVALID);
  t.device.device_type = kDLCUDA;
  assert_int_equal(tvm_executor_get_output(e, 0, &t), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "host"));

  double ms[3] = {-1, -1, -1};
  assert_int_equal(tvm_executor_profile(e, 3, ms), TVM_OK);
  for (int s = 0; s < 3; s++) assert_true(ms[s] >= 0 && ms[s] < 1000);
  for (int s = 0; s < 3; s++) ms[s] = -1;
  assert_int_equal(tvm_executor_profile_in_run(e, 3, ms), TVM_OK);
  for (int s = 0; s < 3; s++) assert_true(ms[s] >= 0 && ms[s] < 1000);
  assert_int_equal(tvm_executor_profile_in_run(e, 0, ms), TVM_ERR_INVALID);
  /* one step's back-to-back samples: every one written */
  for (uint32_t s = 0; s < 3; s++) {
    double one[4] = {-1, -1, -1, -1};
    assert_int_equal(tvm_executor_time_step(e, s, 4, one), TVM_OK);
    for (int r = 0; r < 4; r++) assert_true(one[r] >= 0 && one[r] < 1000);
  }
  assert_int_equal(tvm_executor_time_step(e, 3, 4, ms), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "step 3 of a plan of 3"));
  assert_int_equal(tvm_executor_time_step(e, 0, 0, ms), TVM_ERR_INVALID);
  tvm_executor_free(e);
  tvm_plan_free(p);
}

/* Uniform floats in [-1, 1) from a fixed LCG. */
static void fill_random(float *d, int64_t n, uint64_t seed) {
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    d[i] = (float)((double)(seed >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
  }
}

/* Compiles zoo model name, runs it on random inputs and compares every
 * output with the reference evaluator on an unmodified copy. */
static void check_zoo_model(const char *name, const tvm_compile_options *o,
                            float tol) {
  tvm_graph *g = NULL, *ref = NULL;
  tvm_plan *p = NULL;
  tvm_executor *e = NULL;
  assert_int_equal(tvm_zoo_build(name, &g), TVM_OK);
  assert_int_equal(tvm_zoo_build(name, &ref), TVM_OK);
  if (tvm_compile(g, target, o, &p) != TVM_OK)
    fail_msg("compile %s: %s", name, tvm_diag_message());
  if (tvm_executor_create(p, target, &e) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  int nin = (int)ref->inputs.len, nout = (int)ref->outputs.len;
  assert_int_equal(nin, (int)p->ninputs);
  assert_int_equal(nout, (int)p->noutputs);
  DLTensor *in[8], *out[8], *got[8];
  assert_true(nin <= 8 && nout <= 8);
  for (int i = 0; i < nin; i++) {
    tvm_gvalue *v = ref->inputs.data[i];
    assert_int_equal(tvm_npy_alloc(v->dtype, v->shape, v->ndim, &in[i]),
                     TVM_OK);
    fill_random(in[i]->data, tvm_gvalue_numel(v), 77 + (uint64_t)i);
    assert_int_equal(tvm_executor_set_input(e, (uint32_t)i, in[i]), TVM_OK);
  }
  for (int i = 0; i < nout; i++) {
    tvm_gvalue *v = ref->outputs.data[i];
    assert_int_equal(tvm_npy_alloc(v->dtype, v->shape, v->ndim, &out[i]),
                     TVM_OK);
    assert_int_equal(tvm_npy_alloc(v->dtype, v->shape, v->ndim, &got[i]),
                     TVM_OK);
  }
  if (tvm_graph_eval_reference(ref, (const DLTensor *const *)in, out) !=
      TVM_OK)
    fail_msg("reference: %s", tvm_diag_message());
  assert_int_equal(tvm_executor_run(e), TVM_OK);
  for (int i = 0; i < nout; i++) {
    assert_int_equal(tvm_executor_get_output(e, (uint32_t)i, got[i]), TVM_OK);
    int64_t n = tvm_gvalue_numel(ref->outputs.data[i]);
    const float *a = got[i]->data, *b = out[i]->data;
    for (int64_t k = 0; k < n; k++)
      if (!(fabsf(a[k] - b[k]) <= tol * (1 + fabsf(b[k]))))
        fail_msg("%s output %d [%lld]: %g, reference %g", name, i,
                 (long long)k, a[k], b[k]);
  }
  for (int i = 0; i < nin; i++) tvm_npy_free(in[i]);
  for (int i = 0; i < nout; i++) {
    tvm_npy_free(out[i]);
    tvm_npy_free(got[i]);
  }
  tvm_executor_free(e);
  tvm_plan_free(p);
  tvm_graph_free(g);
  tvm_graph_free(ref);
}

static void test_zoo_mlp(void **state) {
  (void)state;
  tvm_compile_options o;
  check_zoo_model("mlp", NULL, 1e-5f);
  /* one kernel per node: activations share storage slots */
  tvm_compile_options_init(&o);
  o.fuse = 0;
  check_zoo_model("mlp", &o, 1e-5f);
  o.plan_memory = 0;
  check_zoo_model("mlp", &o, 1e-5f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fixture),
      cmocka_unit_test(test_fixture_from_package),
      cmocka_unit_test(test_params_in_place),
      cmocka_unit_test(test_bad_tensors),
      cmocka_unit_test(test_zoo_mlp),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
