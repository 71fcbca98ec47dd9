/*
 * test_llvm_cpu.c - the llvm-cpu plugin on hand-built TIR: every program
 * is compiled to an ELF object (or shared object), loaded through the
 * plugin's runtime half and run against a naive C reference.  (The
 * plugin's descriptor and targets: test_llvm_cpu_target.c; its math
 * intrinsics and inline vector math: test_llvm_cpu_vmath.c.)
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tir_test.h"

/* ---- matmul: scalar loop nest, parallel, shared object --------------------- */

/* C[M,N] = A[M,K] * B[K,N], row-major, with the outer loop of kind k. */
static tvm_func *matmul_func(const char *name, int M, int N, int K,
                             tvm_for_kind outer) {
  tvm_expr *A = HV("A"), *B = HV("B"), *Cb = HV("C");
  tvm_expr *i = VAR("i"), *j = VAR("j"), *k = VAR("k");
  tvm_expr *cidx = tvm_add(C, tvm_mul(C, i, I(N)), j);
  tvm_stmt *init = ST(Cb, cidx, F(0));
  tvm_expr *prod = tvm_mul(C, LD(TVM_F32, A, tvm_add(C, tvm_mul(C, i, I(K)), k)),
                           LD(TVM_F32, B, tvm_add(C, tvm_mul(C, k, I(N)), j)));
  tvm_stmt *upd = ST(Cb, cidx, tvm_add(C, LD(TVM_F32, Cb, cidx), prod));
  tvm_stmt *kl = FOR(k, I(0), I(K), upd);
  tvm_stmt *jl = FOR(j, I(0), I(N), tvm_seq2(C, init, kl));
  tvm_stmt *il = tvm_for(C, i, I(0), I(M), outer, NULL, jl);
  tvm_expr *params[] = {A, B, Cb};
  return tvm_func_new(C, name, params, NULL, 3, il);
}

static void ref_matmul(const float *A, const float *B, float *Cr, int M, int N,
                       int K) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < K; k++) s += A[i * K + k] * B[k * N + j];
      Cr[i * N + j] = s;
    }
}

static void run_matmul(tvm_for_kind outer, const char *const *ov) {
  enum { M = 37, N = 29, K = 23 };
  tvm_func *f = matmul_func("matmul", M, N, K, outer);
  assert_non_null(f);
  h_mod hm;
  build(module_of(&f, 1), ov, &hm);
  float A[M * K], B[K * N], Cv[M * N], R[M * N];
  fill(A, M * K, 1);
  fill(B, K * N, 2);
  memset(Cv, 0xff, sizeof Cv);
  ref_matmul(A, B, R, M, N, K);
  tvm_plugin_arg args[] = {h_ptr(A), h_ptr(B), h_ptr(Cv)};
  assert_int_equal(h_call(&hm, "matmul", args, 3), 0);
  assert_close(Cv, R, M * N, 1e-5);
  done(&hm);
}

static void test_matmul_scalar(void **state) {
  (void)state;
  run_matmul(TVM_FOR_SERIAL, NULL);
  const char *o0[] = {"opt_level=0", NULL};
  run_matmul(TVM_FOR_SERIAL, o0);
}

static void test_matmul_parallel(void **state) {
  (void)state;
  int before = h_parallel_calls();
  const char *ov[] = {"num_threads=3", NULL};
  run_matmul(TVM_FOR_PARALLEL, ov);
  assert_int_equal(h_parallel_calls(), before + 1);
}

static void test_shared_object(void **state) {
  (void)state;
  enum { M = 8, N = 9, K = 10 };
  tvm_func *f = matmul_func("matmul", M, N, K, TVM_FOR_PARALLEL);
  const char *ov[] = {"output=shared", NULL};
  h_mod hm;
  build(module_of(&f, 1), ov, &hm);
  assert_int_equal(hm.blob.format, TVM_BLOB_SHARED_OBJECT);
  assert_memory_equal(hm.blob.data, "\177ELF", 4);
  assert_int_equal(hm.blob.nkernels, 1);
  assert_string_equal(hm.blob.kernels[0].name, "matmul");
  assert_int_equal(hm.blob.kernels[0].nargs, 3);
  float A[M * K], B[K * N], Cv[M * N], R[M * N];
  fill(A, M * K, 3);
  fill(B, K * N, 4);
  ref_matmul(A, B, R, M, N, K);
  tvm_plugin_arg args[] = {h_ptr(A), h_ptr(B), h_ptr(Cv)};
  assert_int_equal(h_call(&hm, "matmul", args, 3), 0);
  assert_close(Cv, R, M * N, 1e-5);
  done(&hm);
}

/* Parallel loop whose body captures scalar params and uses a local
 * buffer per task: out[i] = alpha * sum_j in[i*n + j] for j < n. */
static void test_parallel_captures(void **state) {
  (void)state;
  tvm_expr *in = HV("in"), *out = HV("out");
  tvm_expr *alpha = tvm_var(C, "alpha", TVM_F32), *n = VAR("n"), *rows = VAR("rows");
  tvm_expr *i = VAR("i"), *j = VAR("j"), *acc = HV("acc");
  tvm_stmt *body = tvm_seq2(
      C, ST(acc, I(0), F(0)),
      tvm_seq2(C,
               FOR(j, I(0), n,
                   ST(acc, I(0),
                      tvm_add(C, LD(TVM_F32, acc, I(0)),
                              LD(TVM_F32, in, tvm_add(C, tvm_mul(C, i, n), j))))),
               ST(out, i, tvm_mul(C, alpha, LD(TVM_F32, acc, I(0))))));
  tvm_stmt *s = PFOR(i, I(0), rows,
                     tvm_allocate(C, acc, TVM_F32, I(1), "local", body));
  tvm_expr *params[] = {in, out, alpha, n, rows};
  tvm_func *f = tvm_func_new(C, "rowsum", params, NULL, 5, s);
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  enum { R = 13, NN = 7 };
  float x[R * NN], y[R], ref[R];
  fill(x, R * NN, 5);
  for (int r = 0; r < R; r++) {
    float sacc = 0;
    for (int c = 0; c < NN; c++) sacc += x[r * NN + c];
    ref[r] = 0.5f * sacc;
  }
  tvm_plugin_arg args[] = {h_ptr(x), h_ptr(y), h_flt(0.5), h_int(NN), h_int(R)};
  assert_int_equal(h_call(&hm, "rowsum", args, 5), 0);
  assert_close(y, ref, R, 1e-6);
  /* too few arguments is an error, not a crash */
  h_clear_report();
  assert_int_not_equal(h_call(&hm, "rowsum", args, 2), 0);
  assert_non_null(strstr(h_last_report(), "takes 5 arguments"));
  done(&hm);
}

/* ---- vectors ----------------------------------------------------------------- */

/* C[v] = A[v] * alpha + B[v] with 16-lane ramps; G[8 lanes] gathers every
 * second element of A; S scatters to every second element; T is a
 * predicated tail copy of n elements. */
static void test_vectors(void **state) {
  (void)state;
  enum { N = 64 };
  tvm_expr *A = HV("A"), *B = HV("B"), *Cb = HV("C"), *G = HV("G"), *S = HV("S"),
           *T = HV("T"), *alpha = tvm_var(C, "alpha", TVM_F32), *n = VAR("n");
  tvm_expr *i = VAR("i");
  tvm_expr *r16 = tvm_ramp(C, tvm_mul(C, i, I(16)), I(1), 16);
  tvm_stmt *s1 = FOR(i, I(0), I(N / 16),
                     ST(Cb, r16,
                        tvm_add(C, tvm_mul(C, LD(F32X(16), A, r16),
                                           tvm_broadcast(C, alpha, 16)),
                                LD(F32X(16), B, r16))));
  tvm_expr *i2 = VAR("i2");
  tvm_stmt *s2 = FOR(i2, I(0), I(N / 16),
                     ST(G, tvm_ramp(C, tvm_mul(C, i2, I(8)), I(1), 8),
                        LD(F32X(8), A, tvm_ramp(C, tvm_mul(C, i2, I(16)), I(2), 8))));
  tvm_expr *i3 = VAR("i3");
  tvm_stmt *s3 = FOR(i3, I(0), I(N / 16),
                     ST(S, tvm_ramp(C, tvm_mul(C, i3, I(16)), I(2), 8),
                        LD(F32X(8), B, tvm_ramp(C, tvm_mul(C, i3, I(8)), I(1), 8))));
  tvm_expr *i4 = VAR("i4");
  tvm_expr *r8 = tvm_ramp(C, tvm_mul(C, i4, I(8)), I(1), 8);
  tvm_expr *pred = tvm_lt(C, r8, tvm_broadcast(C, n, 8));
  tvm_stmt *s4 = FOR(i4, I(0), tvm_floordiv(C, tvm_add(C, n, I(7)), I(8)),
                     tvm_store(C, T, r8, tvm_load(C, F32X(8), A, r8, pred), pred));
  tvm_stmt *body = tvm_seq2(C, tvm_seq2(C, s1, s2), tvm_seq2(C, s3, s4));
  tvm_expr *params[] = {A, B, Cb, G, S, T, alpha, n};
  tvm_func *f = tvm_func_new(C, "vec", params, NULL, 8, body);
  assert_non_null(f);
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  float a[N], b[N], c[N], g[N / 2], s[N], t[N], rc[N];
  fill(a, N, 7);
  fill(b, N, 8);
  for (int k = 0; k < N; k++) s[k] = t[k] = -7.0f;
  tvm_plugin_arg args[] = {h_ptr(a), h_ptr(b), h_ptr(c), h_ptr(g), h_ptr(s),
                           h_ptr(t), h_flt(1.5), h_int(13)};
  assert_int_equal(h_call(&hm, "vec", args, 8), 0);
  for (int k = 0; k < N; k++) rc[k] = a[k] * 1.5f + b[k];
  assert_close(c, rc, N, 1e-6);
  for (int k = 0; k < N / 2; k++) assert_true(g[k] == a[2 * k]);
  for (int k = 0; k < N; k++)
    assert_true(s[k] == (k % 2 == 0 ? b[k / 2] : -7.0f));
  for (int k = 0; k < N; k++) assert_true(t[k] == (k < 13 ? a[k] : -7.0f));
  done(&hm);
}

/* ---- integer arithmetic -------------------------------------------------------- */

static int32_t c_floordiv(int32_t a, int32_t b) {
  int32_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
static int32_t c_floormod(int32_t a, int32_t b) {
  int32_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* out[k*N + i] for eight operators over negative and positive operands. */
static void test_floordiv(void **state) {
  (void)state;
  enum { N = 40, NOPS = 10 };
  tvm_expr *a = HV("a"), *b = HV("b"), *o = HV("o"), *i = VAR("i");
  tvm_expr *x = LD(TVM_I32, a, i), *y = LD(TVM_I32, b, i);
  tvm_expr *ops[NOPS] = {
      tvm_floordiv(C, x, y), tvm_floormod(C, x, y), tvm_floordiv(C, x, I(4)),
      tvm_floormod(C, x, I(4)), tvm_floordiv(C, x, I(3)), tvm_floormod(C, x, I(3)),
      tvm_div(C, x, y), tvm_mod(C, x, y), tvm_min(C, x, y), tvm_max(C, x, y)};
  tvm_stmt *st = NULL;
  for (int k = 0; k < NOPS; k++)
    st = tvm_seq2(C, st, ST(o, tvm_add(C, i, I(k * N)), ops[k]));
  /* a loop with a non-negative index uses the fast paths */
  tvm_expr *j = VAR("j");
  tvm_stmt *fast = FOR(j, I(0), I(N),
                       ST(o, tvm_add(C, j, I(NOPS * N)),
                          tvm_add(C, tvm_mul(C, tvm_floordiv(C, j, I(3)), I(100)),
                                  tvm_floormod(C, j, I(3)))));
  tvm_stmt *body = tvm_seq2(C, FOR(i, I(0), I(N), st), fast);
  tvm_expr *params[] = {a, b, o};
  tvm_func *f = tvm_func_new(C, "divs", params, NULL, 3, body);
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  int32_t av[N], bv[N], out[(NOPS + 1) * N];
  for (int k = 0; k < N; k++) {
    av[k] = (k * 7919) % 61 - 30;
    bv[k] = (k % 2 ? 1 : -1) * (1 + (k * 13) % 9);
  }
  tvm_plugin_arg args[] = {h_ptr(av), h_ptr(bv), h_ptr(out)};
  assert_int_equal(h_call(&hm, "divs", args, 3), 0);
  for (int k = 0; k < N; k++) {
    int32_t x0 = av[k], y0 = bv[k];
    int32_t want[NOPS] = {c_floordiv(x0, y0), c_floormod(x0, y0),
                          c_floordiv(x0, 4),  c_floormod(x0, 4),
                          c_floordiv(x0, 3),  c_floormod(x0, 3),
                          x0 / y0,            x0 % y0,
                          x0 < y0 ? x0 : y0,  x0 > y0 ? x0 : y0};
    for (int op = 0; op < NOPS; op++)
      if (out[op * N + k] != want[op])
        fail_msg("op %d, a=%d b=%d: got %d want %d", op, x0, y0,
                 out[op * N + k], want[op]);
    assert_int_equal(out[NOPS * N + k], (k / 3) * 100 + k % 3);
  }
  done(&hm);
}

/* int8 x int8 -> int32 accumulation (and uint8 -> float). */
static void test_int8_accumulate(void **state) {
  (void)state;
  enum { M = 9, K = 67 };
  tvm_expr *A = HV("A"), *B = HV("B"), *Out = HV("Out"), *U = HV("U"),
           *Fo = HV("Fo");
  tvm_expr *i = VAR("i"), *k = VAR("k");
  tvm_expr *prod = tvm_mul(
      C, tvm_cast(C, TVM_I32, LD(TVM_I8, A, tvm_add(C, tvm_mul(C, i, I(K)), k))),
      tvm_cast(C, TVM_I32, LD(TVM_I8, B, k)));
  tvm_stmt *body = tvm_seq2(
      C, ST(Out, i, I(0)),
      FOR(k, I(0), I(K), ST(Out, i, tvm_add(C, LD(TVM_I32, Out, i), prod))));
  tvm_expr *u = VAR("u");
  tvm_stmt *conv = FOR(u, I(0), I(K),
                       ST(Fo, u, tvm_cast(C, TVM_F32, LD(TVM_U8, U, u))));
  tvm_expr *params[] = {A, B, Out, U, Fo};
  tvm_func *f = tvm_func_new(C, "dot8", params, NULL, 5,
                             tvm_seq2(C, FOR(i, I(0), I(M), body), conv));
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  int8_t a[M * K], b[K];
  uint8_t uu[K];
  int32_t out[M];
  float fo[K];
  for (int q = 0; q < M * K; q++) a[q] = (int8_t)((q * 37) % 256 - 128);
  for (int q = 0; q < K; q++) b[q] = (int8_t)(127 - (q * 11) % 256), uu[q] = (uint8_t)(200 + q);
  tvm_plugin_arg args[] = {h_ptr(a), h_ptr(b), h_ptr(out), h_ptr(uu), h_ptr(fo)};
  assert_int_equal(h_call(&hm, "dot8", args, 5), 0);
  for (int r = 0; r < M; r++) {
    int32_t s = 0;
    for (int q = 0; q < K; q++) s += (int32_t)a[r * K + q] * (int32_t)b[q];
    assert_int_equal(out[r], s);
  }
  for (int q = 0; q < K; q++) assert_true(fo[q] == (float)uu[q]);
  done(&hm);
}

/* ---- select, casts ------------------------------------------------------------- */

/* Leaky ReLU by select (scalar and vector), float->int and int->float
 * casts, bool stores. */
static void test_select_cast(void **state) {
  (void)state;
  enum { N = 32 };
  tvm_expr *a = HV("a"), *o = HV("o"), *q = HV("q"), *bo = HV("bo"),
           *ov = HV("ov"), *i = VAR("i"), *v = VAR("v");
  tvm_expr *x = LD(TVM_F32, a, i);
  tvm_stmt *st = tvm_seq2(
      C, ST(o, i, tvm_select(C, tvm_gt(C, x, F(0)), x, tvm_mul(C, x, F(0.1)))),
      tvm_seq2(C, ST(q, i, tvm_cast(C, TVM_I32, tvm_mul(C, x, F(10)))),
               ST(bo, i, tvm_and(C, tvm_ge(C, x, F(-0.5)), tvm_lt(C, x, F(0.5))))));
  tvm_expr *r8 = tvm_ramp(C, tvm_mul(C, v, I(8)), I(1), 8);
  tvm_expr *xv = LD(F32X(8), a, r8);
  tvm_stmt *vs = ST(ov, r8,
                    tvm_select(C, tvm_gt(C, xv, tvm_broadcast(C, F(0), 8)), xv,
                               tvm_cast(C, F32X(8), r8)));
  tvm_expr *params[] = {a, o, q, bo, ov};
  tvm_func *f = tvm_func_new(C, "selcast", params, NULL, 5,
                             tvm_seq2(C, FOR(i, I(0), I(N), st),
                                      FOR(v, I(0), I(N / 8), vs)));
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  float in[N], out[N], outv[N];
  int32_t qi[N];
  uint8_t bb[N];
  fill(in, N, 11);
  tvm_plugin_arg args[] = {h_ptr(in), h_ptr(out), h_ptr(qi), h_ptr(bb), h_ptr(outv)};
  assert_int_equal(h_call(&hm, "selcast", args, 5), 0);
  for (int k = 0; k < N; k++) {
    float x0 = in[k];
    assert_true(out[k] == (x0 > 0 ? x0 : x0 * 0.1f));
    assert_int_equal(qi[k], (int32_t)(x0 * 10.0f));
    assert_int_equal(bb[k], (x0 >= -0.5f && x0 < 0.5f) ? 1 : 0);
    assert_true(outv[k] == (x0 > 0 ? x0 : (float)k));
  }
  done(&hm);
}

/* ---- allocations, extern calls, asserts, errors --------------------------------- */

/* A 16-element local scratch (stack) and an n-element global one (heap). */
static void test_allocate(void **state) {
  (void)state;
  enum { R = 5, W = 16 };
  tvm_expr *a = HV("a"), *o = HV("o"), *n = VAR("n");
  tvm_expr *tmp = HV("tmp"), *big = HV("big");
  tvm_expr *i = VAR("i"), *j = VAR("j"), *j2 = VAR("j2"), *m = VAR("m"), *m2 = VAR("m2");
  tvm_stmt *fillt = FOR(j, I(0), I(W),
                        ST(tmp, j, tvm_mul(C, LD(TVM_F32, a, tvm_add(C, tvm_mul(C, i, I(W)), j)),
                                           F(2))));
  tvm_stmt *sum = tvm_seq2(
      C, ST(o, i, F(0)),
      FOR(j2, I(0), I(W), ST(o, i, tvm_add(C, LD(TVM_F32, o, i), LD(TVM_F32, tmp, j2)))));
  tvm_stmt *local = FOR(i, I(0), I(R),
                        tvm_allocate(C, tmp, TVM_F32, I(W), "local",
                                     tvm_seq2(C, fillt, sum)));
  /* heap: big[m] = m; o[R] = sum big */
  tvm_stmt *heap = tvm_allocate(
      C, big, TVM_I32, n, "global",
      tvm_seq2(C, FOR(m, I(0), n, ST(big, m, m)),
               tvm_seq2(C, ST(o, I(R), F(0)),
                        FOR(m2, I(0), n,
                            ST(o, I(R),
                               tvm_add(C, LD(TVM_F32, o, I(R)),
                                       tvm_cast(C, TVM_F32, LD(TVM_I32, big, m2))))))));
  tvm_expr *params[] = {a, o, n};
  tvm_func *f = tvm_func_new(C, "alloc", params, NULL, 3, tvm_seq2(C, local, heap));
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  float in[R * W], out[R + 1];
  fill(in, R * W, 12);
  tvm_plugin_arg args[] = {h_ptr(in), h_ptr(out), h_int(100000)};
  assert_int_equal(h_call(&hm, "alloc", args, 3), 0);
  for (int r = 0; r < R; r++) {
    float s = 0;
    for (int c = 0; c < W; c++) s += in[r * W + c] * 2;
    assert_true(fabsf(out[r] - s) < 1e-5f);
  }
  float hs = 0;
  for (int k = 0; k < 100000; k++) hs += (float)k;
  assert_true(out[R] == hs);
  done(&hm);
}

/* Exported by this test program (linked with -export-dynamic) and called
 * from generated code: checks that _Bool arguments arrive as 0/1 and
 * counts its calls. */
int tvm_test_llvm_cpu_calls;
TVM_API float tvm_test_llvm_cpu_pick(_Bool b, float x, float y);
TVM_API float tvm_test_llvm_cpu_pick(_Bool b, float x, float y) {
  unsigned char raw;
  memcpy(&raw, &b, 1);
  __atomic_fetch_add(&tvm_test_llvm_cpu_calls, 1, __ATOMIC_RELAXED);
  if (raw > 1) return -1000.0f; /* a malformed _Bool */
  return b ? x : y;
}

/* Extern C calls resolved from the process (libm, this program, listed
 * in TVM_LLVM_CPU_EXTERNS by main) by the loader. */
static void test_extern_call(void **state) {
  (void)state;
  enum { N = 20 };
  tvm_expr *a = HV("a"), *o = HV("o"), *i = VAR("i");
  tvm_expr *x = LD(TVM_F32, a, i);
  tvm_expr *args1[] = {x};
  tvm_expr *args2[] = {x, F(0.25)};
  tvm_expr *args3[] = {tvm_gt(C, x, F(0)), x, F(7)};
  tvm_stmt *st = tvm_seq2(
      C, ST(o, i, tvm_call_extern(C, TVM_F32, "expf", args1, 1)),
      tvm_seq2(C,
               ST(o, tvm_add(C, i, I(N)),
                  tvm_call_extern(C, TVM_F32, "fmaxf", args2, 2)),
               ST(o, tvm_add(C, i, I(2 * N)),
                  tvm_call_extern(C, TVM_F32, "tvm_test_llvm_cpu_pick", args3, 3))));
  tvm_expr *params[] = {a, o};
  tvm_func *f = tvm_func_new(C, "ext", params, NULL, 2, FOR(i, I(0), I(N), st));
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  float in[N], out[3 * N];
  fill(in, N, 13);
  tvm_plugin_arg args[] = {h_ptr(in), h_ptr(out)};
  tvm_test_llvm_cpu_calls = 0;
  assert_int_equal(h_call(&hm, "ext", args, 2), 0);
  assert_int_equal(tvm_test_llvm_cpu_calls, N);
  for (int k = 0; k < N; k++) {
    assert_true(out[k] == expf(in[k]));
    assert_true(out[N + k] == fmaxf(in[k], 0.25f));
    assert_true(out[2 * N + k] == (in[k] > 0 ? in[k] : 7.0f));
  }
  done(&hm);
}

/* assert(n == 4): a failing assertion returns an error with its message,
 * from the caller and from inside a parallel loop. */
static void test_assert(void **state) {
  (void)state;
  tvm_expr *o = HV("o"), *n = VAR("n"), *i = VAR("i");
  tvm_stmt *inner = tvm_assert(C, tvm_lt(C, i, I(6)), "i stays below 6",
                               ST(o, i, tvm_cast(C, TVM_F32, i)));
  tvm_stmt *body = tvm_assert(C, tvm_eq(C, tvm_floormod(C, n, I(4)), I(0)),
                              "n must be a multiple of 4",
                              PFOR(i, I(0), n, inner));
  tvm_expr *params[] = {o, n};
  tvm_func *f = tvm_func_new(C, "chk", params, NULL, 2, body);
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  float out[16];
  tvm_plugin_arg ok[] = {h_ptr(out), h_int(4)};
  assert_int_equal(h_call(&hm, "chk", ok, 2), 0);
  assert_true(out[3] == 3.0f);
  h_clear_report();
  tvm_plugin_arg bad[] = {h_ptr(out), h_int(5)};
  assert_int_not_equal(h_call(&hm, "chk", bad, 2), 0);
  assert_non_null(strstr(h_last_report(), "n must be a multiple of 4"));
  h_clear_report();
  tvm_plugin_arg bad2[] = {h_ptr(out), h_int(8)};
  assert_int_not_equal(h_call(&hm, "chk", bad2, 2), 0);
  assert_non_null(strstr(h_last_report(), "i stays below 6"));
  done(&hm);
}

/* Unlowered IR (a tensor read) is refused with a message naming the
 * function and the missing pass. */
static void test_unlowered_error(void **state) {
  (void)state;
  tvm_tensor *T = tvm_placeholder(C, "T", TVM_F32, (int64_t[]){4}, 1);
  assert_non_null(T);
  tvm_expr *o = HV("o"), *i = VAR("i");
  tvm_stmt *s = FOR(i, I(0), I(4), ST(o, i, TVM_AT(C, T, i)));
  tvm_expr *params[] = {o};
  tvm_func *f = tvm_func_new(C, "raw", params, NULL, 1, s);
  tvm_plugin_target *t = h_target(NULL);
  h_mod hm;
  h_clear_report();
  assert_int_not_equal(h_build(t, module_of(&f, 1), &hm), 0);
  assert_non_null(strstr(h_last_report(), "'raw'"));
  assert_non_null(strstr(h_last_report(), "storage_flatten"));
  if (!strstr(h_last_report(), "'tread' at T(i)")) fail_msg("%s", h_last_report());
  assert_null(hm.blob.data);
  h_desc()->vtable->target_destroy(t);
}

/* Loops left marked unrolled / vectorized and a pragma_unroll attr become
 * LLVM loop hints; the results must not change. */
static void test_loop_hints(void **state) {
  (void)state;
  enum { N = 40 };
  tvm_expr *a = HV("a"), *o = HV("o"), *i = VAR("i"), *j = VAR("j"), *k = VAR("k");
  tvm_stmt *s1 = tvm_for(C, i, I(0), I(N), TVM_FOR_VECTORIZED, NULL,
                         ST(o, i, tvm_mul(C, LD(TVM_F32, a, i), F(3))));
  tvm_stmt *s2 = tvm_for(C, j, I(0), I(4), TVM_FOR_UNROLLED, NULL,
                         ST(o, tvm_add(C, j, I(N)), tvm_cast(C, TVM_F32, j)));
  tvm_stmt *s3 = tvm_attr(C, "pragma_unroll", k, I(1),
                          FOR(k, I(0), I(3),
                              ST(o, tvm_add(C, k, I(N + 4)),
                                 tvm_cast(C, TVM_F32, tvm_mul(C, k, k)))));
  tvm_expr *params[] = {a, o};
  tvm_func *f = tvm_func_new(C, "hints", params, NULL, 2,
                             tvm_seq2(C, s1, tvm_seq2(C, s2, s3)));
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  float in[N], out[N + 7];
  fill(in, N, 14);
  tvm_plugin_arg args[] = {h_ptr(in), h_ptr(out)};
  assert_int_equal(h_call(&hm, "hints", args, 2), 0);
  for (int q = 0; q < N; q++) assert_true(out[q] == in[q] * 3.0f);
  for (int q = 0; q < 4; q++) assert_true(out[N + q] == (float)q);
  for (int q = 0; q < 3; q++) assert_true(out[N + 4 + q] == (float)(q * q));
  done(&hm);
}

/* Counts the occurrences of needle in the file at path (-1: unreadable). */
static int count_in_file(const char *path, const char *needle) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return -1;
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  fclose(fp);
  buf[n] = 0;
  int c = 0;
  for (const char *p = strstr(buf, needle); p; p = strstr(p + 1, needle)) c++;
  return c;
}

/* LLVM's unroller runs only on loops codegen marked: a small innermost
 * loop (4 trips of one store) is marked for full unrolling, one of 100
 * trips of one store for unrolling by 4; one of 16 trips with 8 stores
 * (past the 64 stores an unrolled body may hold) and one holding another
 * loop are not marked.  The raw IR dump shows the marks; the results
 * must be right either way. */
static void test_unroll_policy(void **state) {
  (void)state;
  enum { N = 100 };
  tvm_expr *o = HV("o"), *i = VAR("i"), *j = VAR("j"), *k = VAR("k");
  tvm_expr *a = VAR("a"), *b = VAR("b");
  tvm_stmt *small = FOR(i, I(0), I(4), ST(o, i, tvm_cast(C, TVM_F32, i)));
  tvm_stmt *big = FOR(j, I(0), I(N), ST(o, tvm_add(C, j, I(4)),
                                        tvm_cast(C, TVM_F32, j)));
  tvm_stmt *wide = NULL;
  for (int q = 0; q < 8; q++) {
    tvm_stmt *st = ST(o, tvm_add(C, tvm_mul(C, k, I(8)), I(N + 4 + q)),
                      tvm_cast(C, TVM_F32, tvm_add(C, k, I(q))));
    wide = wide ? tvm_seq2(C, wide, st) : st;
  }
  wide = FOR(k, I(0), I(16), wide);
  tvm_stmt *outer =
      FOR(a, I(0), I(2),
          FOR(b, I(0), I(2),
              ST(o, tvm_add(C, tvm_add(C, tvm_mul(C, a, I(2)), b), I(N + 132)),
                 tvm_cast(C, TVM_F32, tvm_add(C, a, b)))));
  tvm_expr *params[] = {o};
  tvm_func *f = tvm_func_new(
      C, "unroll_policy", params, NULL, 1,
      tvm_seq2(C, small, tvm_seq2(C, big, tvm_seq2(C, wide, outer))));
  char dir[] = "/tmp/tvm-unroll-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char prefix[64], raw[128];
  snprintf(prefix, sizeof prefix, "%s/d", dir);
  snprintf(raw, sizeof raw, "%s.unroll_policy.raw.ll", prefix);
  setenv("TVM_LLVM_DUMP", prefix, 1);
  h_mod hm;
  build(module_of(&f, 1), NULL, &hm);
  unsetenv("TVM_LLVM_DUMP");
  /* the small loop and the inner loop of the nest (2 trips, 1 store)
   * ask for full unrolling (one uniqued property node), the long loop
   * for 4: three back edges carry a loop id */
  int marks = count_in_file(raw, "!llvm.loop !");
  int full = count_in_file(raw, "!\"llvm.loop.unroll.full\"");
  int by4 = count_in_file(raw, "!\"llvm.loop.unroll.count\", i32 4");
  unlink(raw);
  char opt[128];
  snprintf(opt, sizeof opt, "%s.unroll_policy.opt.ll", prefix);
  unlink(opt);
  snprintf(opt, sizeof opt, "%s.globals.raw.ll", prefix); /* the globals' part */
  unlink(opt);
  snprintf(opt, sizeof opt, "%s.globals.opt.ll", prefix);
  unlink(opt);
  assert_int_equal(rmdir(dir), 0);
  assert_int_equal(marks, 3);
  assert_int_equal(full, 1);
  assert_int_equal(by4, 1);
  float out[N + 136];
  memset(out, 0, sizeof out);
  tvm_plugin_arg args[] = {h_ptr(out)};
  assert_int_equal(h_call(&hm, "unroll_policy", args, 1), 0);
  for (int q = 0; q < 4; q++) assert_true(out[q] == (float)q);
  for (int q = 0; q < N; q++) assert_true(out[q + 4] == (float)q);
  for (int q = 0; q < 16 * 8; q++)
    assert_true(out[N + 4 + q] == (float)(q / 8 + q % 8));
  for (int q = 0; q < 4; q++)
    assert_true(out[N + 132 + q] == (float)(q / 2 + q % 2));
  done(&hm);
}

/* Error paths: a device kernel, a blob of a foreign format, no C compiler
 * for output: shared.  Each fails with a message, never a crash. */
static void test_errors(void **state) {
  (void)state;
  tvm_expr *o = HV("o"), *i = VAR("i");
  tvm_expr *params[] = {o};
  tvm_func *f = tvm_func_new(C, "kern", params, NULL, 1,
                             FOR(i, I(0), I(4), ST(o, i, I(1))));
  f->kind = TVM_FUNC_DEVICE;
  tvm_plugin_target *t = h_target(NULL);
  h_mod hm;
  h_clear_report();
  assert_int_not_equal(h_build(t, module_of(&f, 1), &hm), 0);
  assert_non_null(strstr(h_last_report(), "device kernel"));
  h_free(&hm);

  const tvm_plugin_vtable *vt = h_desc()->vtable;
  tvm_plugin_device *d = NULL;
  assert_int_equal(vt->device_open(t, &d), 0);
  uint8_t junk[16] = {1, 2, 3};
  tvm_plugin_blob blob = {sizeof blob, TVM_BLOB_PTX, junk, sizeof junk, NULL, 0, 0};
  tvm_plugin_module *m = NULL;
  h_clear_report();
  assert_int_not_equal(vt->module_load(d, &blob, &m), 0);
  assert_null(m);
  assert_non_null(strstr(h_last_report(), "format"));
  blob.format = TVM_BLOB_ELF_OBJECT; /* not an object file */
  h_clear_report();
  assert_int_not_equal(vt->module_load(d, &blob, &m), 0);
  assert_true(strlen(h_last_report()) > 0);
  vt->device_close(d);

  /* an extern function that does not exist: load fails naming it */
  tvm_expr *xa[] = {F(1)};
  tvm_func *u = tvm_func_new(
      C, "undef", params, NULL, 1,
      ST(o, I(0), tvm_call_extern(C, TVM_F32, "tvm_test_no_such_fn", xa, 1)));
  h_clear_report();
  assert_int_not_equal(h_build(t, module_of(&u, 1), &hm), 0);
  if (!strstr(h_last_report(), "tvm_test_no_such_fn"))
    fail_msg("%s", h_last_report());
  h_free(&hm);
  vt->target_destroy(t);

  /* output: shared with no cc on PATH */
  tvm_func *g = tvm_func_new(C, "g", params, NULL, 1, ST(o, I(0), I(1)));
  const char *ov[] = {"output=shared", NULL};
  t = h_target(ov);
  char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
  setenv("PATH", "/nonexistent-tvm-test-dir", 1);
  tvm_plugin_blob out;
  h_clear_report();
  int32_t st = vt->codegen(t, module_of(&g, 1), &out);
  if (path) setenv("PATH", path, 1);
  free(path);
  assert_int_not_equal(st, 0);
  assert_non_null(strstr(h_last_report(), "'cc'"));
  assert_null(out.data);
  vt->target_destroy(t);
}

/* Two functions in one module, called by name. */
static void test_two_functions(void **state) {
  (void)state;
  tvm_expr *o = HV("o"), *i = VAR("i");
  tvm_expr *p1[] = {o};
  tvm_func *f1 = tvm_func_new(C, "ones", p1, NULL, 1, FOR(i, I(0), I(8), ST(o, i, I(1))));
  tvm_expr *o2 = HV("o"), *i2 = VAR("i");
  tvm_expr *p2[] = {o2};
  tvm_func *f2 = tvm_func_new(C, "twos", p2, NULL, 1,
                              FOR(i2, I(0), I(8), ST(o2, i2, I(2))));
  tvm_func *fs[] = {f1, f2};
  h_mod hm;
  build(module_of(fs, 2), NULL, &hm);
  assert_int_equal(hm.blob.nkernels, 2);
  int32_t a[8], b[8];
  tvm_plugin_arg x[] = {h_ptr(a)}, y[] = {h_ptr(b)};
  assert_int_equal(h_call(&hm, "ones", x, 1), 0);
  assert_int_equal(h_call(&hm, "twos", y, 1), 0);
  for (int k = 0; k < 8; k++) assert_true(a[k] == 1 && b[k] == 2);
  assert_int_not_equal(h_call(&hm, "threes", x, 1), 0);
  done(&hm);
}

/* A module of more functions than codegen parts (codegen.c compiles
 * them in parts on the host's pool and links the parts): every function
 * is callable and right, two builds give the same object bytes, and a
 * function that fails in a part fails the build with its own message. */
static void test_parts(void **state) {
  (void)state;
  enum { NF = 11 };
  tvm_func *fs[NF];
  char names[NF][8];
  for (int k = 0; k < NF; k++) {
    tvm_expr *o = HV("o"), *i = VAR("i");
    tvm_expr *ps[] = {o};
    snprintf(names[k], sizeof names[k], "k%d", k);
    /* sizes differ so the parts are dealt by weight */
    fs[k] = tvm_func_new(C, names[k], ps, NULL, 1,
                         FOR(i, I(0), I(8 + k), ST(o, i, tvm_add(C, i, I(k)))));
  }
  h_mod a, b;
  build(module_of(fs, NF), NULL, &a);
  build(module_of(fs, NF), NULL, &b);
  assert_int_equal(a.blob.nkernels, NF);
  assert_int_equal(a.blob.size, b.blob.size);
  assert_memory_equal(a.blob.data, b.blob.data, a.blob.size);
  for (int k = 0; k < NF; k++) {
    int32_t out[32] = {0};
    tvm_plugin_arg x[] = {h_ptr(out)};
    assert_int_equal(h_call(&a, names[k], x, 1), 0);
    for (int q = 0; q < 8 + k; q++) assert_int_equal(out[q], q + k);
    assert_int_equal(out[8 + k], 0);
  }
  done(&a);
  done(&b);

  fs[7]->kind = TVM_FUNC_DEVICE;
  tvm_plugin_target *t = h_target(NULL);
  h_mod hm;
  h_clear_report();
  assert_int_not_equal(h_build(t, module_of(fs, NF), &hm), 0);
  if (!strstr(h_last_report(), "codegen of 'k7'") ||
      !strstr(h_last_report(), "device kernel"))
    fail_msg("%s", h_last_report());
  h_free(&hm);
  h_desc()->vtable->target_destroy(t);
}

/* Codegen, module load and launch from several threads at once (one
 * target each): a 16x16x16 matmul checked against the C reference. */
typedef struct cg_job { int32_t st; int ok; } cg_job;
static tvm_module *g_shared_mod;
static void *cg_thread(void *p) {
  cg_job *j = p;
  tvm_plugin_target *t = h_target(NULL);
  h_mod hm;
  j->st = t ? h_build(t, g_shared_mod, &hm) : -1;
  if (j->st == 0) {
    float A[256], B[256], Cv[256], R[256];
    fill(A, 256, 21);
    fill(B, 256, 22);
    ref_matmul(A, B, R, 16, 16, 16);
    tvm_plugin_arg args[] = {h_ptr(A), h_ptr(B), h_ptr(Cv)};
    j->ok = h_call(&hm, "mm", args, 3) == 0;
    for (int i = 0; i < 256; i++)
      if (fabsf(Cv[i] - R[i]) > 1e-5f * (1 + fabsf(R[i]))) j->ok = 0;
    h_free(&hm);
  }
  if (t) h_desc()->vtable->target_destroy(t);
  return NULL;
}

static void test_reentrant(void **state) {
  (void)state;
  tvm_func *f = matmul_func("mm", 16, 16, 16, TVM_FOR_PARALLEL);
  g_shared_mod = module_of(&f, 1);
  pthread_t th[3];
  cg_job jobs[3];
  for (int k = 0; k < 3; k++) pthread_create(&th[k], NULL, cg_thread, &jobs[k]);
  for (int k = 0; k < 3; k++) pthread_join(th[k], NULL);
  for (int k = 0; k < 3; k++) {
    assert_int_equal(jobs[k].st, 0);
    assert_true(jobs[k].ok);
  }
}

int main(void) {
  /* the loader resolves only allow-listed externs: this program's own
   * function is called by test_extern_call */
  setenv("TVM_LLVM_CPU_EXTERNS", "tvm_test_llvm_cpu_pick", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_matmul_scalar, setup, teardown),
      cmocka_unit_test_setup_teardown(test_matmul_parallel, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shared_object, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parallel_captures, setup, teardown),
      cmocka_unit_test_setup_teardown(test_vectors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_floordiv, setup, teardown),
      cmocka_unit_test_setup_teardown(test_int8_accumulate, setup, teardown),
      cmocka_unit_test_setup_teardown(test_select_cast, setup, teardown),
      cmocka_unit_test_setup_teardown(test_allocate, setup, teardown),
      cmocka_unit_test_setup_teardown(test_extern_call, setup, teardown),
      cmocka_unit_test_setup_teardown(test_assert, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unlowered_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_loop_hints, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unroll_policy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_two_functions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reentrant, setup, teardown),
  };
  return cmocka_run_group_tests_name("llvm-cpu", tests, NULL, NULL);
}
