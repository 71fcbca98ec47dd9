/*
 * tests/unit/frontend/test_onnx_ops.c - operators the ONNX node tests of
 * libonnx-testdata do not cover (Gelu of opset 20, Mish,
 * GroupNormalization, Cast to bfloat16 at opset 19): small models built
 * here, imported, evaluated with the reference operators and compiled
 * for llvm-cpu, both compared with values computed here from libm.
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

#include "onnx.pb-c.h"
#include "tvm/compiler.h"
#include "tvm/graph_passes.h"
#include "tvm/onnx.h"

#include "onnx_mb.h"

static tvm_target *cpu;

/* Evaluates g on the float32 input x (shape xs) with the references into
 * ref and compiled for llvm-cpu into got (both of out's shape and
 * dtype, obytes bytes). */
static void run_both(tvm_graph *g, float *x, int64_t *xs, int xn,
                     DLDataType odt, void *ref, void *got) {
  DLTensor tx = {x, {kDLCPU, 0}, xn, {kDLFloat, 32, 1}, xs, NULL, 0};
  const tvm_gvalue *ov = g->outputs.data[0];
  DLTensor to = {ref, {kDLCPU, 0}, ov->ndim, odt, (int64_t *)ov->shape, NULL,
                 0};
  const DLTensor *in[1] = {&tx};
  DLTensor *out[1] = {&to};
  if (tvm_graph_eval_reference(g, in, out))
    fail_msg("reference: %s", tvm_diag_message());
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  tvm_plan *p = NULL;
  tvm_executor *e = NULL;
  if (tvm_compile(g, cpu, &o, &p) || tvm_executor_create(p, cpu, &e) ||
      tvm_executor_set_input(e, 0, &tx) || tvm_executor_run(e))
    fail_msg("compiled: %s", tvm_diag_message());
  to.data = got;
  if (tvm_executor_get_output(e, 0, &to))
    fail_msg("output: %s", tvm_diag_message());
  tvm_executor_free(e);
  tvm_plan_free(p);
}

static int setup(void **state) {
  (void)state;
  if (tvm_target_load("llvm-cpu", &cpu))
    cpu = NULL;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tvm_target_free(cpu);
  return 0;
}

/* Gelu (both approximations) and Mish against their formulas. */
static void test_gelu_mish(void **state) {
  (void)state;
  if (!cpu)
    skip();
  const char *ops[3] = {"Gelu", "Gelu", "Mish"};
  for (int k = 0; k < 3; k++) {
    mb b;
    mb_init(&b, 20);
    int64_t d[1] = {8};
    mb_input(&b, "x", F, 1, d);
    Onnx__NodeProto *n = mb_node(&b, ops[k], "act", NAMES("x"), NAMES("y"));
    if (k == 1) {
      Onnx__AttributeProto *a = mb_attr(
          &b, n, "approximate", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
      a->has_s = 1;
      a->s.data = (uint8_t *)"tanh";
      a->s.len = 4;
    }
    mb_output(&b, "y", F, 1, d);
    tvm_graph *g;
    if (mb_load(&b, NULL, &g))
      fail_msg("%s", tvm_diag_message());
    float x[8] = {-3, -1.5f, -0.5f, 0, 0.25f, 1, 2, 4}, ref[8], got[8];
    run_both(g, x, d, 1, (DLDataType){kDLFloat, 32, 1}, ref, got);
    for (int i = 0; i < 8; i++) {
      double v = x[i], want;
      if (k == 0)
        want = 0.5 * v * (1 + erf(v / sqrt(2)));
      else if (k == 1)
        want = 0.5 * v *
               (1 + tanh(sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
      else
        want = v * tanh(log1p(exp(v)));
      assert_float_equal(ref[i], want, 1e-5);
      assert_float_equal(got[i], want, 1e-5);
    }
    tvm_graph_free(g);
  }
}

/* GroupNormalization at opset 18 (scale per group) and 21 (per channel). */
static void test_group_norm(void **state) {
  (void)state;
  if (!cpu)
    skip();
  for (int v21 = 0; v21 < 2; v21++) {
    mb b;
    mb_init(&b, v21 ? 21 : 18);
    int64_t xs[3] = {2, 4, 3}, ps[1] = {v21 ? 4 : 2};
    static float sc[4] = {1, 2, -1, 0.5f}, bi[4] = {0, 1, -2, 3};
    mb_input(&b, "x", F, 3, xs);
    mb_init_f32(&b, "s", 1, ps, sc, (size_t)ps[0]);
    mb_init_f32(&b, "b", 1, ps, bi, (size_t)ps[0]);
    Onnx__NodeProto *n = mb_node(&b, "GroupNormalization", "gn",
                                 NAMES("x", "s", "b"), NAMES("y"));
    mb_attr_i(&b, n, "num_groups", 2);
    mb_output(&b, "y", F, 3, xs);
    tvm_graph *g;
    if (mb_load(&b, NULL, &g))
      fail_msg("%s", tvm_diag_message());
    float x[24], ref[24], got[24];
    for (int i = 0; i < 24; i++)
      x[i] = (float)((i * 7) % 11) - 4.5f;
    run_both(g, x, xs, 3, (DLDataType){kDLFloat, 32, 1}, ref, got);
    for (int bt = 0; bt < 2; bt++)
      for (int gr = 0; gr < 2; gr++) {
        int base = (bt * 2 + gr) * 6;
        double m = 0, var = 0;
        for (int k = 0; k < 6; k++)
          m += x[base + k] / 6.0;
        for (int k = 0; k < 6; k++)
          var += (x[base + k] - m) * (x[base + k] - m) / 6.0;
        for (int k = 0; k < 6; k++) {
          int p = v21 ? gr * 2 + k / 3 : gr;
          double want = (x[base + k] - m) / sqrt(var + 1e-5) * sc[p] + bi[p];
          assert_float_equal(ref[base + k], want, 1e-4);
          assert_float_equal(got[base + k], want, 1e-4);
        }
      }
    tvm_graph_free(g);
  }
}

/* Cast to bfloat16 rounds to nearest even from opset 19 (truncates
 * before), in the reference and in llvm-cpu's integer conversion. */
static void test_cast_bf16(void **state) {
  (void)state;
  if (!cpu)
    skip();
  for (int v19 = 0; v19 < 2; v19++) {
    mb b;
    mb_init(&b, v19 ? 19 : 13);
    int64_t d[1] = {6};
    mb_input(&b, "x", F, 1, d);
    Onnx__NodeProto *n = mb_node(&b, "Cast", "c", NAMES("x"), NAMES("y"));
    mb_attr_i(&b, n, "to", 16);
    mb_output(&b, "y", ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16, 1, d);
    tvm_graph *g;
    if (mb_load(&b, NULL, &g))
      fail_msg("%s", tvm_diag_message());
    /* 1 + 2^-8 + 2^-9 rounds up; 1 + 2^-8 is a tie to even (down);
     * 1 + 3 * 2^-8 is a tie to even (up) */
    float x[6] = {1.0f + 0x1.8p-8f, 1.0f + 0x1p-8f, 1.0f + 0x3p-8f, -2.5f,
                  INFINITY, 3.0e38f};
    uint16_t ref[6], got[6];
    run_both(g, x, d, 1, (DLDataType){kDLBfloat, 16, 1}, ref, got);
    for (int i = 0; i < 6; i++) {
      uint32_t bits;
      memcpy(&bits, &x[i], 4);
      uint16_t want = (uint16_t)(bits >> 16);
      if (v19)
        want = (uint16_t)((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
      if (ref[i] != want || got[i] != want)
        fail_msg("opset %d, x = %a: reference 0x%04x, compiled 0x%04x, "
                 "want 0x%04x",
                 v19 ? 19 : 13, (double)x[i], ref[i], got[i], want);
    }
    tvm_graph_free(g);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gelu_mish),
      cmocka_unit_test(test_group_norm),
      cmocka_unit_test(test_cast_bf16),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
