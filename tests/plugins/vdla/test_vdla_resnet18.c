/*
 * tests/plugins/vdla/test_vdla_resnet18.c - zoo:resnet18 on `--target
 * vdla`, end to end: quantized by the compiler for the target (ABI 6
 * quantize), its convolutions on VDLA's simulator, the rest on the
 * llvm-cpu fallback (ABI 5 supports, `fallback: llvm-cpu`).
 *
 * Checked:
 *  - placement: the 19 convolutions after the first are QConv_blocked
 *    steps on VDLA; the first convolution (3 input channels), the
 *    pooling and the classifier run on the CPU; DeviceCopy steps join
 *    them;
 *  - quantization error: on NIN inputs (uniform in [-1, 1), seeds that
 *    calibration does not use) the cosine similarity of the logits with
 *    the float32 CPU result (llvm-cpu) is at least COS_BOUND;
 *  - the device computes what the quantized graph says: the same
 *    quantized graph (the compiler's passes up to quantize, then the
 *    reference evaluator: int32 sums, shift and clip in plain C) gives
 *    logits whose deviation from the float mean agrees with VDLA's to
 *    REF_BOUND (the raw logits of this random-weight model are dominated
 *    by a part every input shares: the cosine between two different
 *    inputs' float logits is itself ~0.998, so the raw bound alone would
 *    not catch a device that ignored its input; the deviations would).
 *    Under sanitizers one input: the deviations are then from that
 *    input's own fp32 logits (the quantization errors must agree).
 * Prints every figure (bench/RESULTS.md quotes them).
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
#include "tvm/graph.h"
#include "tvm/graph_passes.h"
#include "tvm/npy.h"
#include "tvm/runtime.h"
#include "tvm/target.h"
#include "tvm/zoo.h"

#define NIN 3 /* inputs; 1 under sanitizers (TVM_SANITIZED): ~3x slower */
#define NCLS 1000
#define COS_BOUND 0.99
#define REF_BOUND 0.99

static void fill(float *x, int64_t n, uint64_t seed) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (float)(2 * ((double)(s >> 11) / 9007199254740992.0) - 1);
  }
}

static double cosine(const float *a, const float *b, const float *mean) {
  double ab = 0, aa = 0, bb = 0;
  for (int i = 0; i < NCLS; i++) {
    double x = a[i] - (mean ? mean[i] : 0), y = b[i] - (mean ? mean[i] : 0);
    ab += x * y, aa += x * x, bb += y * y;
  }
  return ab / sqrt(aa * bb);
}

static tvm_plan *compile_for(const char *target, tvm_target **t) {
  tvm_graph *g = NULL;
  tvm_plan *p = NULL;
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  if (tvm_target_load(target, t) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  assert_int_equal(tvm_zoo_build("resnet18", &g), TVM_OK);
  if (tvm_compile(g, *t, &o, &p) != TVM_OK)
    fail_msg("%s: %s", target, tvm_diag_message());
  tvm_graph_free(g);
  return p;
}

static void run(tvm_executor *e, const float *x, float *y) {
  int64_t xs[4] = {1, 3, 224, 224}, ys[2] = {1, NCLS};
  DLTensor tx = {(void *)x, {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, xs, NULL, 0};
  DLTensor ty = {y, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, ys, NULL, 0};
  assert_int_equal(tvm_executor_set_input(e, 0, &tx), TVM_OK);
  if (tvm_executor_run(e) != TVM_OK) fail_msg("%s", tvm_diag_message());
  assert_int_equal(tvm_executor_get_output(e, 0, &ty), TVM_OK);
}

/* quantize's question, as the compiler asks it. */
static tvm_status accept(void *ud, const tvm_gnode *n, int *yes) {
  char why[TVM_PLUGIN_REASON_CAP];
  return tvm_target_supports(ud, n, yes, why, sizeof why);
}

/* The quantized graph the compiler makes for t, by the same passes. */
static tvm_graph *quantized_graph(const tvm_target *t, int *nq) {
  tvm_graph *g = NULL;
  tvm_plugin_quant q;
  assert_int_equal(tvm_zoo_build("resnet18", &g), TVM_OK);
  assert_int_equal(tvm_target_quantize(t, &q), TVM_OK);
  assert_int_equal(q.enabled, 1);
  tvm_quant_scheme s = {(int)q.block_batch, (int)q.block_in,
                        (int)q.block_out, TVM_QUANT_NCALIB, TVM_QUANT_SEED,
                        NULL};
  assert_int_equal(tvm_graph_pass_fold_constants(g), TVM_OK);
  assert_int_equal(tvm_graph_pass_simplify_inference(g), TVM_OK);
  if (tvm_graph_pass_quantize(g, &s, accept, (void *)t, nq) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  return g;
}

static void test_resnet18_on_vdla(void **state) {
  (void)state;
  if (!getenv("TVM_BUILDDIR")) {
    print_message("TVM_BUILDDIR not set (run through make check)\n");
    skip();
  }
  tvm_target *tv = NULL, *tc = NULL;
  if (tvm_target_load("llvm-cpu", &tc) != TVM_OK) {
    print_message("no llvm-cpu (the fallback): %s\n", tvm_diag_message());
    skip();
  }
  tvm_target_free(tc);
  tc = NULL;
  tvm_plan *pv = compile_for("vdla", &tv);
  tvm_plan *pc = compile_for("llvm-cpu", &tc);

  /* placement */
  int qconv = 0, copies = 0, cpu_conv = 0, cpu_pool = 0, cpu_gemm = 0;
  for (uint32_t s = 0; s < pv->nsteps; s++) {
    const tvm_plan_step *st = &pv->steps[s];
    const char *l = st->label ? st->label : st->kernel;
    if (st->copy) copies++;
    else if (st->device == 0) {
      assert_non_null(strstr(l, "QConv_blocked"));
      qconv++;
    } else {
      cpu_conv += strstr(l, "Conv") != NULL;
      cpu_pool += strstr(l, "Pool") != NULL;
      cpu_gemm += strstr(l, "Gemm") != NULL;
    }
  }
  print_message("placement: %d QConv_blocked steps on vdla, %d copies, "
                "%d conv / %d pool / %d Gemm steps on llvm-cpu\n",
                qconv, copies, cpu_conv, cpu_pool, cpu_gemm);
  assert_int_equal(qconv, 19);
  assert_int_equal(cpu_conv, 1);
  assert_true(cpu_pool >= 2 && cpu_gemm == 1 && copies >= 19);

  /* the quantized graph, by the reference evaluator */
  int nq = 0;
  tvm_graph *gq = quantized_graph(tv, &nq);
  assert_int_equal(nq, 19);

  tvm_executor *ev = NULL, *ec = NULL;
  if (tvm_executor_create(pv, tv, &ev) != TVM_OK ||
      tvm_executor_create(pc, tc, &ec) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  static float x[3 * 224 * 224], yv[NIN][NCLS], yc[NIN][NCLS], yr[NIN][NCLS];
  float mean[NCLS] = {0};
  int nin = getenv("TVM_SANITIZED") ? 1 : NIN;
  for (int k = 0; k < nin; k++) {
    fill(x, 3 * 224 * 224, 101 + (uint64_t)k);
    run(ev, x, yv[k]);
    run(ec, x, yc[k]);
    int64_t xs[4] = {1, 3, 224, 224}, ys[2] = {1, NCLS};
    DLTensor tx = {x, {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, xs, NULL, 0};
    DLTensor ty = {yr[k], {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, ys, NULL, 0};
    const DLTensor *ins[1] = {&tx};
    DLTensor *outs[1] = {&ty};
    if (tvm_graph_eval_reference(gq, ins, outs) != TVM_OK)
      fail_msg("%s", tvm_diag_message());
    for (int i = 0; i < NCLS; i++) mean[i] += yc[k][i] / nin;
  }
  for (int k = 0; k < nin; k++) {
    double c = cosine(yv[k], yc[k], NULL);
    double d = cosine(yv[k], yr[k], mean);
    double dc = cosine(yv[k], yc[k], mean);
    print_message("input %d: cosine(vdla, fp32 cpu) = %.5f; deviations from "
                  "the fp32 mean: cosine(vdla, quantized reference) = %.5f, "
                  "cosine(vdla, fp32 cpu) = %.4f\n", k, c, d, dc);
    assert_true(c >= COS_BOUND);
    assert_true(d >= REF_BOUND);
  }
  tvm_graph_free(gq);
  tvm_executor_free(ev);
  tvm_executor_free(ec);
  tvm_plan_free(pv);
  tvm_plan_free(pc);
  tvm_target_free(tv);
  tvm_target_free(tc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resnet18_on_vdla),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
