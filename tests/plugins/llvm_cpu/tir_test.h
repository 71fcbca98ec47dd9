/*
 * tests/plugins/llvm_cpu/tir_test.h - what the llvm-cpu tests on
 * hand-built TIR share (test_llvm_cpu.c, test_llvm_cpu_vmath.c): the IR
 * context C and shorthands for building TIR in it, setup / teardown (the
 * plugin loaded through the harness), a module of functions, build on
 * the default target plus attribute overrides (failing the test with
 * the plugin's message), and float fills and comparisons.
 */
#ifndef TVM_TEST_LLVM_CPU_TIR_TEST_H
#define TVM_TEST_LLVM_CPU_TIR_TEST_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "tvm/te.h"

static tvm_ctx *C;

#define I(v) tvm_int(C, v)
#define F(v) tvm_f32(C, v)
#define VAR(n) tvm_var(C, n, TVM_I32)
#define HV(n) tvm_var(C, n, TVM_HANDLE)
#define LD(t, b, i) tvm_load(C, t, b, i, NULL)
#define ST(b, i, v) tvm_store(C, b, i, v, NULL)
#define FOR(v, mn, ext, body) tvm_for(C, v, mn, ext, TVM_FOR_SERIAL, NULL, body)
#define PFOR(v, mn, ext, body) \
  tvm_for(C, v, mn, ext, TVM_FOR_PARALLEL, NULL, body)
#define F32X(n) tvm_dt(kDLFloat, 32, n)
#define I32X(n) tvm_dt(kDLInt, 32, n)

static inline int setup(void **state) {
  (void)state;
  if (h_load_plugin() != 0) return -1;
  C = tvm_ctx_create();
  return C ? 0 : -1;
}

static inline int teardown(void **state) {
  (void)state;
  tvm_ctx_destroy(C);
  C = NULL;
  return 0;
}

/* A module holding the given functions. */
static inline tvm_module *module_of(tvm_func **fs, int n) {
  tvm_module *m = tvm_ctx_alloc(C, sizeof *m);
  m->ctx = C;
  for (int i = 0; i < n; i++) assert_int_equal(tvm_module_add(m, fs[i]), 0);
  return m;
}

/* Builds m on a default target (plus overrides), failing the test on
 * errors with the plugin's message. */
static inline void build(const tvm_module *m, const char *const *ov, h_mod *hm) {
  tvm_plugin_target *t = h_target(ov);
  if (!t) fail_msg("target_create: %s", h_last_report());
  int32_t st = h_build(t, m, hm);
  if (st != 0) fail_msg("build failed (%d): %s", st, h_last_report());
}

static inline void done(h_mod *hm) {
  tvm_plugin_target *t = hm->t;
  h_free(hm);
  h_desc()->vtable->target_destroy(t);
}

static inline void fill(float *p, int n, unsigned seed) {
  for (int i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    p[i] = (float)((seed >> 8) % 2000) / 1000.0f - 1.0f;
  }
}

static inline void assert_close(const float *a, const float *b, int n, double tol) {
  for (int i = 0; i < n; i++)
    if (fabs((double)a[i] - (double)b[i]) > tol * (1 + fabs((double)b[i])))
      fail_msg("element %d: got %.7g, want %.7g", i, a[i], b[i]);
}

#endif /* TVM_TEST_LLVM_CPU_TIR_TEST_H */
