/*
 * test_llvm_cpu_vmath.c - the llvm-cpu plugin's math on hand-built TIR:
 * every math intrinsic on scalars and 8-lane vectors against libm, and
 * the inline SIMD expansions (codegen_vmath.c: exp, tanh, sigmoid, erf)
 * over the whole float range, on the host's ISA and on x86-64-v3 (AVX2),
 * including that exp computes no subnormal.  (The rest of the code
 * generator: test_llvm_cpu.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tir_test.h"

static void test_math(void **state) {
  (void)state;
  enum { N = 48, NF = 10 };
  tvm_expr *a = HV("a"), *o = HV("o"), *i = VAR("i"), *v = VAR("v");
  tvm_expr *x = LD(TVM_F32, a, i);
  tvm_intrin ops[NF] = {TVM_INTRIN_EXP,  TVM_INTRIN_TANH, TVM_INTRIN_SIGMOID,
                        TVM_INTRIN_SQRT, TVM_INTRIN_LOG,  TVM_INTRIN_ERF,
                        TVM_INTRIN_FLOOR, TVM_INTRIN_ROUND, TVM_INTRIN_COS,
                        TVM_INTRIN_FABS};
  tvm_stmt *st = NULL;
  for (int k = 0; k < NF; k++) {
    tvm_expr *arg = (ops[k] == TVM_INTRIN_SQRT || ops[k] == TVM_INTRIN_LOG)
                        ? tvm_math(C, TVM_INTRIN_FABS, x)
                        : x;
    st = tvm_seq2(C, st, ST(o, tvm_add(C, i, I(k * N)), tvm_math(C, ops[k], arg)));
  }
  /* 8-lane versions of exp, tanh and sigmoid */
  tvm_expr *r8 = tvm_ramp(C, tvm_mul(C, v, I(8)), I(1), 8);
  tvm_expr *xv = LD(F32X(8), a, r8);
  tvm_stmt *vs = NULL;
  for (int k = 0; k < 3; k++)
    vs = tvm_seq2(C, vs,
                  ST(o, tvm_add(C, r8, tvm_broadcast(C, I((NF + k) * N), 8)),
                     tvm_math(C, ops[k], xv)));
  tvm_expr *params[] = {a, o};
  tvm_func *f = tvm_func_new(
      C, "mathf", params, NULL, 2,
      tvm_seq2(C, FOR(i, I(0), I(N), st), FOR(v, I(0), I(N / 8), vs)));
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  float in[N], out[(NF + 3) * N];
  for (int k = 0; k < N; k++) in[k] = -6.0f + 12.0f * (float)k / (N - 1);
  in[5] = 1e-4f;
  in[6] = -2.5f; /* round half to even: -2 */
  in[7] = 0.5f;
  tvm_plugin_arg args[] = {h_ptr(in), h_ptr(out)};
  assert_int_equal(h_call(&hm, "mathf", args, 2), 0);
  for (int k = 0; k < N; k++) {
    float x0 = in[k];
    float want[NF] = {expf(x0),  tanhf(x0),  1.0f / (1.0f + expf(-x0)),
                      sqrtf(fabsf(x0)), logf(fabsf(x0)), erff(x0),
                      floorf(x0), nearbyintf(x0), cosf(x0), fabsf(x0)};
    for (int op = 0; op < NF; op++) {
      float got = out[op * N + k];
      if (fabsf(got - want[op]) > 1e-5f * (1 + fabsf(want[op])))
        fail_msg("%s(%g): got %.8g want %.8g", tvm_intrin_name(ops[op]), x0,
                 got, want[op]);
    }
    for (int op = 0; op < 3; op++) {
      float got = out[(NF + op) * N + k];
      if (fabsf(got - want[op]) > 1e-5f * (1 + fabsf(want[op])))
        fail_msg("vector %s(%g): got %.8g want %.8g", tvm_intrin_name(ops[op]),
                 x0, got, want[op]);
    }
  }
  done(&hm);
}

/* The inline SIMD exp / tanh / sigmoid / erf against libm over the whole float
 * range: overflow, NaN, infinities, tiny inputs, and exp below -87.3,
 * which is 0 (codegen_vmath.c: no lane computes a subnormal),
 * for a CPU target given by ov: the host's (on AVX-512, 16 lanes scale
 * by vscalefps) and x86-64-v3 (AVX2: two integer-built factors). */
static void check_vector_math(const char *const *ov) {
  enum { N = 64, NOPS = 4 };
  tvm_expr *a = HV("a"), *o = HV("o"), *v = VAR("v");
  tvm_expr *r16 = tvm_ramp(C, tvm_mul(C, v, I(16)), I(1), 16);
  tvm_expr *xv = LD(F32X(16), a, r16);
  tvm_intrin ops[NOPS] = {TVM_INTRIN_EXP, TVM_INTRIN_TANH, TVM_INTRIN_SIGMOID,
                           TVM_INTRIN_ERF};
  tvm_stmt *vs = NULL;
  for (int k = 0; k < NOPS; k++)
    vs = tvm_seq2(C, vs,
                  ST(o, tvm_add(C, r16, tvm_broadcast(C, I(k * N), 16)),
                     tvm_math(C, ops[k], xv)));
  tvm_expr *params[] = {a, o};
  tvm_func *f = tvm_func_new(C, "vmath", params, NULL, 2,
                             FOR(v, I(0), I(N / 16), vs));
  h_mod hm;
  build(module_of(&f, 1), ov, &hm);
  float in[N], out[NOPS * N];
  const float special[] = {-120.0f, -103.9f, -100.0f, -87.5f, -87.31f,
                           -87.29f, -87.0f, -50.0f, -10.0f, -10000.0f,
                           -1.0f, -1e-3f, -1e-7f, 0.0f, 1e-7f, 1e-3f, 0.06f,
                           0.0626f, 0.07f, 0.5f, 1.0f, 5.0f, 9.0f, 20.0f,
                           50.0f, 88.0f, 88.7f, 88.72f, 88.7229f, 89.0f,
                           100.0f, NAN, INFINITY,
                           -INFINITY, -0.0f, 0.3465f, -0.3466f, 2.0f, 0.474455f,
                           -0.9999999f, 1.0000001f, 3.9f, -4.0f, 0.5f, 1.5f,
                           -1e30f, 1e30f, -3.4e38f};
  int ns = (int)(sizeof special / sizeof special[0]);
  for (int k = 0; k < N; k++)
    in[k] = k < ns ? special[k] : -15.0f + 30.0f * (float)(k - ns) / (N - ns);
  tvm_plugin_arg args[] = {h_ptr(in), h_ptr(out)};
  assert_int_equal(h_call(&hm, "vmath", args, 2), 0);
  for (int k = 0; k < N; k++) {
    float x0 = in[k];
    float want[NOPS] = {expf(x0), tanhf(x0), 1.0f / (1.0f + expf(-x0)),
                        (float)erf((double)x0)};
    if (x0 < -87.3f) want[0] = 0.0f; /* exp gives 0 below e^-87.3 */
    double tol[NOPS] = {1e-6, 1e-6, 1e-6, 4e-7};
    for (int op = 0; op < NOPS; op++) {
      float got = out[op * N + k];
      if (isnan(want[op]) && isnan(got)) continue;
      if (isinf(want[op]) && got == want[op]) continue;
      if (!(fabs((double)got - want[op]) <= tol[op] * fabs(want[op]) + 1e-40))
        fail_msg("%s: vector %s(%.9g): got %.9g want %.9g",
                 ov ? ov[0] : "host", tvm_intrin_name(ops[op]), x0, got,
                 want[op]);
    }
  }
  done(&hm);
}

/* Builds into *hm, for the CPU options ov, `name`(a, o): o[i] = op(a[i])
 * over n floats (a multiple of 16), sixteen lanes at a time. */
static void build_lanewise(const char *name, tvm_intrin op, int n,
                           const char *const *ov, h_mod *hm) {
  tvm_expr *a = HV("a"), *o = HV("o"), *v = VAR("v");
  tvm_expr *r16 = tvm_ramp(C, tvm_mul(C, v, I(16)), I(1), 16);
  tvm_expr *params[] = {a, o};
  tvm_func *f = tvm_func_new(
      C, name, params, NULL, 2,
      FOR(v, I(0), I(n / 16), ST(o, r16, tvm_math(C, op, LD(F32X(16), a, r16)))));
  build(module_of(&f, 1), ov, hm);
}

#if defined(__x86_64__)
/* No lane of exp computes a subnormal (each costs a microcode assist):
 * over inputs from -200 to -80, where e^x is at or under FLT_MIN, and a
 * Softmax mask's -10000, the SSE/AVX underflow flag (MXCSR bit 4, sticky)
 * stays clear.  The kernel runs on this thread (no parallel loop). */
static void check_exp_no_subnormal(const char *const *ov) {
  enum { N = 256 };
  h_mod hm;
  build_lanewise("vexp", TVM_INTRIN_EXP, N, ov, &hm);
  float in[N], out[N];
  for (int k = 0; k < N; k++) in[k] = -200.0f + 120.0f * (float)k / (N - 1);
  in[0] = -10000.0f;
  tvm_plugin_arg args[] = {h_ptr(in), h_ptr(out)};
  __builtin_ia32_ldmxcsr(__builtin_ia32_stmxcsr() & ~0x3fu);
  assert_int_equal(h_call(&hm, "vexp", args, 2), 0);
  unsigned csr = __builtin_ia32_stmxcsr();
  if (csr & 0x10)
    fail_msg("%s: exp computed a subnormal (MXCSR %#x)", ov ? ov[0] : "host",
             csr);
  for (int k = 0; k < N; k++)
    if (in[k] < -87.3f ? out[k] != 0.0f
                       : fabs((double)out[k] - expf(in[k])) >
                             1e-6 * expf(in[k]))
      fail_msg("exp(%.9g): got %.9g", in[k], out[k]);
  done(&hm);
}
#endif

/* erf against erf in double over a dense sweep: 8192 points over [-6, 6]
 * (the rational form's cap at 3.92 and its 1 beyond included) and 1024
 * from 1e-30 to 5, both signs: within 4e-7 relative (codegen_vmath.c
 * states 2.9e-7). */
static void check_erf_sweep(const char *const *ov) {
  enum { NL = 8192, NT = 1024, N = NL + 2 * NT };
  h_mod hm;
  build_lanewise("verf", TVM_INTRIN_ERF, N, ov, &hm);
  static float in[N], out[N];
  for (int k = 0; k < NL; k++) in[k] = -6.0f + 12.0f * (float)k / (NL - 1);
  for (int k = 0; k < NT; k++) {
    in[NL + k] = (float)pow(10.0, -30.0 + 30.7 * k / (NT - 1));
    in[NL + NT + k] = -in[NL + k];
  }
  tvm_plugin_arg args[] = {h_ptr(in), h_ptr(out)};
  assert_int_equal(h_call(&hm, "verf", args, 2), 0);
  double worst = 0;
  for (int k = 0; k < N; k++) {
    double want = erf((double)in[k]);
    double rel = fabs((double)out[k] - want) / fabs(want);
    if (want == 0) rel = out[k] == 0 ? 0 : 1;
    if (!(rel <= 4e-7))
      fail_msg("%s: vector erf(%.9g): got %.9g want %.9g (relative %.3g)",
               ov ? ov[0] : "host", in[k], out[k], want, rel);
    if (rel > worst) worst = rel;
  }
  print_message("%s: erf within %.3g relative over the sweep\n",
                ov ? ov[0] : "host", worst);
  done(&hm);
}

static void test_vector_math(void **state) {
  (void)state;
  check_vector_math(NULL);
  check_erf_sweep(NULL);
#if defined(__x86_64__)
  check_exp_no_subnormal(NULL);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    const char *avx2[] = {"mcpu=x86-64-v3", NULL};
    check_vector_math(avx2);
    check_erf_sweep(avx2);
    check_exp_no_subnormal(avx2);
  }
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_math, setup, teardown),
      cmocka_unit_test_setup_teardown(test_vector_math, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
