/*
 * test_llvm_cpu_e2e.c - end to end on llvm-cpu: tensor expressions and
 * schedules (tiling, vectorize, parallel, unroll, cache_write, compute_at,
 * compute_inline) lowered with tvm_lower using the options of this
 * plugin's target_info, compiled, loaded and run against naive C
 * references, in fp32 and int8.
 *
 * The fp32 matmuls place their operands flush against an inaccessible
 * page, so that generated code reading past the end of a buffer (a
 * ragged tile's guard hoisted out of a load) crashes the test instead of
 * going unnoticed.
 *
 * Set TVM_E2E_DUMP=1 to print the lowered loop IR of every test.
 */
#define _DEFAULT_SOURCE /* mmap, MAP_ANONYMOUS */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "tvm/lower.h"
#include "tvm/schedule.h"

static tvm_ctx *C;

static int setup(void **state) {
  (void)state;
  if (h_load_plugin() != 0) return -1;
  C = tvm_ctx_create();
  return C ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  tvm_ctx_destroy(C);
  C = NULL;
  return 0;
}

#define OK(x)                                                          \
  do {                                                                 \
    tvm_status st_ = (x);                                              \
    if (st_ != TVM_OK) fail_msg("%s: %s", #x, tvm_diag_message());     \
  } while (0)

/* Lowers s for args with the plugin's target info, then compiles and
 * loads it under the name `name`. */
static void lower_build_ir(tvm_schedule *s, tvm_tensor **args, int nargs,
                           const char *name, h_mod *hm, const char *const *want) {
  tvm_plugin_target *t = h_target(NULL);
  if (!t) fail_msg("target_create: %s", h_last_report());
  const tvm_plugin_target_info *ti = h_desc()->vtable->target_info(t);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_scope_info sc[8];
  uint32_t ns = ti->nscopes < 8 ? ti->nscopes : 8;
  for (uint32_t i = 0; i < ns; i++)
    sc[i] = (tvm_scope_info){ti->scopes[i].name, ti->scopes[i].visibility,
                             ti->scopes[i].size_bytes, ti->scopes[i].align,
                             ti->scopes[i].queue};
  o.vector_bits = (int)ti->vector_bits;
  o.has_threads = (int)ti->has_threads;
  o.num_queues = (int)ti->num_queues;
  o.scopes = sc;
  o.nscopes = (int)ns;
  if (ti->unroll_max_extent) o.unroll_max_extent = (int)ti->unroll_max_extent;
  tvm_module *m = tvm_ctx_alloc(C, sizeof *m);
  m->ctx = C;
  OK(tvm_lower(s, args, nargs, name, &o, m));
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_module(&b, m);
  if (getenv("TVM_E2E_DUMP")) fprintf(stderr, "%s\n", b.data ? b.data : "");
  /* the schedule must show in the loop IR (else the test proves less) */
  for (int i = 0; want && want[i]; i++)
    if (!b.data || !strstr(b.data, want[i]))
      fail_msg("lowered %s lacks '%s':\n%s", name, want[i], b.data ? b.data : "");
  tvm_strbuf_free(&b);
  int32_t st = h_build(t, m, hm);
  if (st != 0) fail_msg("build of %s failed (%d): %s", name, st, h_last_report());
}

static void lower_build(tvm_schedule *s, tvm_tensor **args, int nargs,
                        const char *name, h_mod *hm) {
  lower_build_ir(s, args, nargs, name, hm, NULL);
}

static const char *const VEC_PAR[] = {") parallel", "ramp(", NULL};

static void done(h_mod *hm) {
  tvm_plugin_target *t = hm->t;
  h_free(hm);
  h_desc()->vtable->target_destroy(t);
}

/* 64-byte aligned memory, as the runtime's mem_alloc gives. */
static void *amalloc(size_t n) {
  void *p = NULL;
  h_desc()->vtable->mem_alloc(NULL, 0, n, 64, &p);
  assert_non_null(p);
  return p;
}

/* A guarded block: n bytes ending at most 63 bytes before a PROT_NONE
 * page (the start stays 64-byte aligned, as mem_alloc's), so that a read
 * past the end crashes.  Freed with gfree. */
typedef struct gblock {
  void *map, *data;
  size_t len;
} gblock;

static void *galloc(gblock *g, size_t n) {
  size_t pg = (size_t)sysconf(_SC_PAGESIZE), a = (n + 63) / 64 * 64;
  size_t data = (a + pg - 1) / pg * pg;
  char *m = mmap(NULL, data + pg, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(m != MAP_FAILED);
  assert_int_equal(mprotect(m + data, pg, PROT_NONE), 0);
  g->map = m;
  g->len = data + pg;
  g->data = m + data - a;
  return g->data;
}

static void gfree(gblock *g) { munmap(g->map, g->len); }

static void fill(float *p, int n, unsigned seed) {
  for (int i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    p[i] = (float)((seed >> 8) % 2000) / 1000.0f - 1.0f;
  }
}

static void assert_close(const float *a, const float *b, int n, double tol) {
  for (int i = 0; i < n; i++)
    if (!(fabs((double)a[i] - (double)b[i]) <= tol * (1 + fabs((double)b[i]))))
      fail_msg("element %d: got %.7g, want %.7g", i, a[i], b[i]);
}

/* ---- matmul ------------------------------------------------------------------- */

static tvm_expr *matmul_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, in[0]->shape_c[1]);
  tvm_expr *a = TVM_AT(c, in[0], i[0], k->var);
  tvm_expr *b = TVM_AT(c, in[1], k->var, i[1]);
  if (!tvm_dtype_is_float(in[0]->dtype)) {
    a = tvm_cast(c, TVM_I32, a);
    b = tvm_cast(c, TVM_I32, b);
  }
  return tvm_sum(c, tvm_mul(c, a, b), &k, 1);
}

/* The classic CPU schedule: C tiled 32x32 (outer tile axis parallel, inner
 * 16 lanes vectorized), its reduction computed in a local cache stage at
 * the tile, with k split by 4 and unrolled, j vectorized. */
static void schedule_matmul(tvm_schedule *s, tvm_tensor *Cout, int vec) {
  tvm_tensor *CC;
  OK(tvm_cache_write(s, Cout, "local", &CC));
  tvm_stage *sc = tvm_stage_of(s, Cout), *scc = tvm_stage_of(s, CC);
  tvm_iter_var *io, *jo, *ii, *ji, *jio, *jii;
  OK(tvm_tile(sc, tvm_stage_axis(sc, 0), tvm_stage_axis(sc, 1), 8, 32, &io, &jo,
              &ii, &ji));
  OK(tvm_split(sc, ji, vec, &jio, &jii));
  OK(tvm_vectorize(sc, jii));
  OK(tvm_parallel(sc, io));
  OK(tvm_compute_at(scc, sc, jo));
  tvm_iter_var *ci = tvm_stage_axis(scc, 0), *cj = tvm_stage_axis(scc, 1);
  tvm_iter_var *ck = tvm_stage_reduce_axis(scc, 0);
  tvm_iter_var *ko, *ki, *cjo, *cji;
  OK(tvm_split(scc, ck, 4, &ko, &ki));
  OK(tvm_split(scc, cj, vec, &cjo, &cji));
  tvm_iter_var *order[] = {ko, ci, ki, cjo, cji};
  OK(tvm_reorder(scc, order, 5));
  OK(tvm_unroll(scc, ki));
  OK(tvm_vectorize(scc, cji));
}

/* fp32 matmul of M x K by K x N with the schedule above. */
static void run_matmul_f32(int M, int N, int K, const char *name) {
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(C, "A", TVM_F32, (int64_t[]){M, K}, 2);
  in[1] = tvm_placeholder(C, "B", TVM_F32, (int64_t[]){K, N}, 2);
  tvm_tensor *Cout = tvm_compute(C, "C", (int64_t[]){M, N}, 2, matmul_body, in);
  assert_non_null(Cout);
  tvm_schedule *s;
  OK(tvm_schedule_create(C, &Cout, 1, &s));
  schedule_matmul(s, Cout, 16);
  h_mod hm;
  tvm_tensor *args[] = {in[0], in[1], Cout};
  lower_build_ir(s, args, 3, name, &hm, VEC_PAR);
  gblock ga, gb, gc;
  float *A = galloc(&ga, sizeof(float) * M * K), *B = galloc(&gb, sizeof(float) * K * N);
  float *Cv = galloc(&gc, sizeof(float) * M * N), *R = amalloc(sizeof(float) * M * N);
  fill(A, M * K, 1);
  fill(B, K * N, 2);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0;
      for (int k = 0; k < K; k++) acc += A[i * K + k] * B[k * N + j];
      R[i * N + j] = acc;
    }
  tvm_plugin_arg a[] = {h_ptr(A), h_ptr(B), h_ptr(Cv)};
  assert_int_equal(h_call(&hm, name, a, 3), 0);
  assert_close(Cv, R, M * N, 1e-5);
  gfree(&ga), gfree(&gb), gfree(&gc), free(R);
  done(&hm);
  tvm_schedule_free(s);
}

static void test_matmul_fp32(void **state) {
  (void)state;
  run_matmul_f32(64, 96, 48, "matmul_f32");
}

/* Extents that the tiles and splits do not divide: tails must be guarded. */
static void test_matmul_ragged(void **state) {
  (void)state;
  run_matmul_f32(50, 70, 30, "matmul_ragged");
}

static void test_matmul_int8(void **state) {
  (void)state;
  enum { M = 32, N = 64, K = 40 };
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(C, "A", TVM_I8, (int64_t[]){M, K}, 2);
  in[1] = tvm_placeholder(C, "B", TVM_I8, (int64_t[]){K, N}, 2);
  tvm_tensor *Cout = tvm_compute(C, "C", (int64_t[]){M, N}, 2, matmul_body, in);
  assert_non_null(Cout);
  assert_true(tvm_dtype_eq(Cout->dtype, TVM_I32));
  tvm_schedule *s;
  OK(tvm_schedule_create(C, &Cout, 1, &s));
  schedule_matmul(s, Cout, 16);
  h_mod hm;
  tvm_tensor *args[] = {in[0], in[1], Cout};
  lower_build_ir(s, args, 3, "matmul_i8", &hm, VEC_PAR);
  int8_t *A = amalloc(M * K), *B = amalloc(K * N);
  int32_t *Cv = amalloc(sizeof(int32_t) * M * N);
  for (int q = 0; q < M * K; q++) A[q] = (int8_t)((q * 37) % 256 - 128);
  for (int q = 0; q < K * N; q++) B[q] = (int8_t)((q * 91 + 7) % 256 - 128);
  tvm_plugin_arg a[] = {h_ptr(A), h_ptr(B), h_ptr(Cv)};
  assert_int_equal(h_call(&hm, "matmul_i8", a, 3), 0);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int32_t acc = 0;
      for (int k = 0; k < K; k++) acc += (int32_t)A[i * K + k] * B[k * N + j];
      if (Cv[i * N + j] != acc)
        fail_msg("C[%d,%d] = %d, want %d", i, j, Cv[i * N + j], acc);
    }
  free(A), free(B), free(Cv);
  done(&hm);
  tvm_schedule_free(s);
}

/* ---- conv2d (NCHW, 3x3, pad 1) with the padding inlined ------------------------ */

static tvm_expr *clampi(tvm_ctx *c, tvm_expr *v, int64_t hi) {
  return tvm_max(c, tvm_min(c, v, tvm_int(c, hi)), tvm_int(c, 0));
}

static tvm_expr *pad_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  int64_t h = A->shape_c[2], w = A->shape_c[3];
  tvm_expr *y = tvm_sub(c, i[2], tvm_int(c, 1));
  tvm_expr *x = tvm_sub(c, i[3], tvm_int(c, 1));
  tvm_expr *inside = tvm_and(
      c, tvm_and(c, tvm_ge(c, y, tvm_int(c, 0)), tvm_lt(c, y, tvm_int(c, h))),
      tvm_and(c, tvm_ge(c, x, tvm_int(c, 0)), tvm_lt(c, x, tvm_int(c, w))));
  return tvm_select(c, inside,
                    TVM_AT(c, A, i[0], i[1], clampi(c, y, h - 1),
                           clampi(c, x, w - 1)),
                    tvm_f32(c, 0.0));
}

static tvm_expr *conv_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* Apad, W */
  tvm_iter_var *r[3] = {tvm_reduce_axis(c, "rc", 0, in[1]->shape_c[1]),
                        tvm_reduce_axis(c, "ry", 0, 3),
                        tvm_reduce_axis(c, "rx", 0, 3)};
  return tvm_sum(
      c,
      tvm_mul(c,
              TVM_AT(c, in[0], i[0], r[0]->var, tvm_add(c, i[2], r[1]->var),
                     tvm_add(c, i[3], r[2]->var)),
              TVM_AT(c, in[1], i[1], r[0]->var, r[1]->var, r[2]->var)),
      r, 3);
}

static void test_conv2d(void **state) {
  (void)state;
  enum { NB = 1, CI = 4, H = 14, W = 16, CO = 8 };
  tvm_tensor *A = tvm_placeholder(C, "A", TVM_F32, (int64_t[]){NB, CI, H, W}, 4);
  tvm_tensor *Wt = tvm_placeholder(C, "W", TVM_F32, (int64_t[]){CO, CI, 3, 3}, 4);
  tvm_tensor *Ap = tvm_compute(C, "Apad", (int64_t[]){NB, CI, H + 2, W + 2}, 4,
                               pad_body, A);
  tvm_tensor *cin[2] = {Ap, Wt};
  tvm_tensor *Out = tvm_compute(C, "Conv", (int64_t[]){NB, CO, H, W}, 4,
                                conv_body, cin);
  assert_non_null(Out);
  tvm_schedule *s;
  OK(tvm_schedule_create(C, &Out, 1, &s));
  OK(tvm_compute_inline(tvm_stage_of(s, Ap)));
  tvm_stage *so = tvm_stage_of(s, Out);
  tvm_iter_var *f = tvm_stage_axis(so, 1), *x = tvm_stage_axis(so, 3);
  tvm_iter_var *rx = tvm_stage_reduce_axis(so, 2);
  tvm_iter_var *xo, *xi;
  OK(tvm_split(so, x, 8, &xo, &xi));
  tvm_iter_var *y = tvm_stage_axis(so, 2);
  tvm_iter_var *rc = tvm_stage_reduce_axis(so, 0), *ry = tvm_stage_reduce_axis(so, 1);
  tvm_iter_var *order[] = {f, y, xo, rc, ry, rx, xi};
  OK(tvm_reorder(so, order, 7));
  OK(tvm_parallel(so, f));
  OK(tvm_unroll(so, rx));
  OK(tvm_vectorize(so, xi));
  h_mod hm;
  tvm_tensor *args[] = {A, Wt, Out};
  lower_build_ir(s, args, 3, "conv2d", &hm, VEC_PAR);
  float *a = amalloc(sizeof(float) * NB * CI * H * W);
  float *w = amalloc(sizeof(float) * CO * CI * 9);
  float *o = amalloc(sizeof(float) * NB * CO * H * W);
  float *r = amalloc(sizeof(float) * NB * CO * H * W);
  fill(a, NB * CI * H * W, 5);
  fill(w, CO * CI * 9, 6);
  for (int n = 0; n < NB; n++)
    for (int co = 0; co < CO; co++)
      for (int yy = 0; yy < H; yy++)
        for (int xx = 0; xx < W; xx++) {
          float acc = 0;
          for (int ci = 0; ci < CI; ci++)
            for (int ky = 0; ky < 3; ky++)
              for (int kx = 0; kx < 3; kx++) {
                int iy = yy + ky - 1, ix = xx + kx - 1;
                float v = (iy >= 0 && iy < H && ix >= 0 && ix < W)
                              ? a[((n * CI + ci) * H + iy) * W + ix]
                              : 0.0f;
                acc += v * w[((co * CI + ci) * 3 + ky) * 3 + kx];
              }
          r[((n * CO + co) * H + yy) * W + xx] = acc;
        }
  tvm_plugin_arg av[] = {h_ptr(a), h_ptr(w), h_ptr(o)};
  assert_int_equal(h_call(&hm, "conv2d", av, 3), 0);
  assert_close(o, r, NB * CO * H * W, 1e-5);
  free(a), free(w), free(o), free(r);
  done(&hm);
  tvm_schedule_free(s);
}

/* ---- reductions: row sum and row max ---------------------------------------------- */

static tvm_expr *rowsum_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, A->shape_c[1]);
  return tvm_sum(c, TVM_AT(c, A, i[0], k->var), &k, 1);
}

static tvm_expr *rowmax_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, A->shape_c[1]);
  return tvm_rmax(c, TVM_AT(c, A, i[0], k->var), &k, 1);
}

static void test_reductions(void **state) {
  (void)state;
  enum { M = 24, N = 100 };
  tvm_tensor *A = tvm_placeholder(C, "A", TVM_F32, (int64_t[]){M, N}, 2);
  tvm_tensor *S = tvm_compute(C, "S", (int64_t[]){M}, 1, rowsum_body, A);
  tvm_tensor *X = tvm_compute(C, "X", (int64_t[]){M}, 1, rowmax_body, A);
  tvm_tensor *outs[] = {S, X};
  tvm_schedule *s;
  OK(tvm_schedule_create(C, outs, 2, &s));
  tvm_stage *ss = tvm_stage_of(s, S), *sx = tvm_stage_of(s, X);
  tvm_iter_var *ko, *ki;
  OK(tvm_split(ss, tvm_stage_reduce_axis(ss, 0), 16, &ko, &ki));
  OK(tvm_parallel(ss, tvm_stage_axis(ss, 0)));
  OK(tvm_unroll(ss, ki));
  OK(tvm_parallel(sx, tvm_stage_axis(sx, 0)));
  h_mod hm;
  tvm_tensor *args[] = {A, S, X};
  lower_build(s, args, 3, "reduce", &hm);
  float *a = amalloc(sizeof(float) * M * N), sv[M], xv[M], rs[M], rx[M];
  fill(a, M * N, 9);
  for (int i = 0; i < M; i++) {
    float acc = 0, mx = -INFINITY;
    for (int k = 0; k < N; k++) {
      acc += a[i * N + k];
      mx = a[i * N + k] > mx ? a[i * N + k] : mx;
    }
    rs[i] = acc;
    rx[i] = mx;
  }
  tvm_plugin_arg av[] = {h_ptr(a), h_ptr(sv), h_ptr(xv)};
  assert_int_equal(h_call(&hm, "reduce", av, 3), 0);
  assert_close(sv, rs, M, 1e-5);
  assert_close(xv, rx, M, 0);
  free(a);
  done(&hm);
  tvm_schedule_free(s);
}

/* ---- compute_at with a shifted read, compute_inline chains ----------------------- */

static tvm_expr *exp2_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  return tvm_mul(c, tvm_math(c, TVM_INTRIN_EXP, TVM_AT(c, A, i[0], i[1])),
                 tvm_f32(c, 2.0));
}

static tvm_expr *shift_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *B = ud;
  return tvm_add(c, TVM_AT(c, B, i[0], i[1]),
                 TVM_AT(c, B, i[0], tvm_add(c, i[1], tvm_int(c, 1))));
}

static void test_compute_at(void **state) {
  (void)state;
  enum { M = 10, N = 33 };
  tvm_tensor *A = tvm_placeholder(C, "A", TVM_F32, (int64_t[]){M, N + 1}, 2);
  tvm_tensor *B = tvm_compute(C, "B", (int64_t[]){M, N + 1}, 2, exp2_body, A);
  tvm_tensor *Co = tvm_compute(C, "Cs", (int64_t[]){M, N}, 2, shift_body, B);
  tvm_schedule *s;
  OK(tvm_schedule_create(C, &Co, 1, &s));
  tvm_stage *sc = tvm_stage_of(s, Co);
  OK(tvm_compute_at(tvm_stage_of(s, B), sc, tvm_stage_axis(sc, 0)));
  OK(tvm_parallel(sc, tvm_stage_axis(sc, 0)));
  h_mod hm;
  tvm_tensor *args[] = {A, Co};
  lower_build(s, args, 2, "shifted", &hm);
  float a[M * (N + 1)], o[M * N], r[M * N];
  fill(a, M * (N + 1), 10);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      r[i * N + j] = expf(a[i * (N + 1) + j]) * 2.0f +
                     expf(a[i * (N + 1) + j + 1]) * 2.0f;
  tvm_plugin_arg av[] = {h_ptr(a), h_ptr(o)};
  assert_int_equal(h_call(&hm, "shifted", av, 2), 0);
  assert_close(o, r, M * N, 1e-5);
  done(&hm);
  tvm_schedule_free(s);
}

static tvm_expr *addb_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* X, bias */
  return tvm_add(c, TVM_AT(c, in[0], i[0], i[1]), TVM_AT(c, in[1], i[1]));
}

static tvm_expr *relu_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *X = ud;
  return tvm_max(c, TVM_AT(c, X, i[0], i[1]), tvm_f32(c, 0.0));
}

static tvm_expr *sig_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *X = ud;
  return tvm_math(c, TVM_INTRIN_SIGMOID, TVM_AT(c, X, i[0], i[1]));
}

static void test_compute_inline(void **state) {
  (void)state;
  enum { M = 6, N = 64 };
  tvm_tensor *X = tvm_placeholder(C, "X", TVM_F32, (int64_t[]){M, N}, 2);
  tvm_tensor *bias = tvm_placeholder(C, "bias", TVM_F32, (int64_t[]){N}, 1);
  tvm_tensor *ab[2] = {X, bias};
  tvm_tensor *Y = tvm_compute(C, "Y", (int64_t[]){M, N}, 2, addb_body, ab);
  tvm_tensor *Rl = tvm_compute(C, "R", (int64_t[]){M, N}, 2, relu_body, Y);
  tvm_tensor *Z = tvm_compute(C, "Z", (int64_t[]){M, N}, 2, sig_body, Rl);
  tvm_schedule *s;
  OK(tvm_schedule_create(C, &Z, 1, &s));
  OK(tvm_compute_inline(tvm_stage_of(s, Y)));
  OK(tvm_compute_inline(tvm_stage_of(s, Rl)));
  tvm_stage *sz = tvm_stage_of(s, Z);
  tvm_iter_var *jo, *ji;
  OK(tvm_split(sz, tvm_stage_axis(sz, 1), 16, &jo, &ji));
  OK(tvm_vectorize(sz, ji));
  h_mod hm;
  tvm_tensor *args[] = {X, bias, Z};
  lower_build_ir(s, args, 3, "fused", &hm, (const char *const[]){"ramp(", NULL});
  float x[M * N], b[N], z[M * N], r[M * N];
  fill(x, M * N, 11);
  fill(b, N, 12);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float v = x[i * N + j] + b[j];
      v = v > 0 ? v : 0;
      r[i * N + j] = 1.0f / (1.0f + expf(-v));
    }
  tvm_plugin_arg av[] = {h_ptr(x), h_ptr(b), h_ptr(z)};
  assert_int_equal(h_call(&hm, "fused", av, 3), 0);
  assert_close(z, r, M * N, 1e-6);
  done(&hm);
  tvm_schedule_free(s);
}

/* ---- softmax: a chain of reductions and elementwise stages at one row ------ */

static tvm_expr *sm_exp_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* X, rowmax */
  return tvm_math(c, TVM_INTRIN_EXP,
                  tvm_sub(c, TVM_AT(c, in[0], i[0], i[1]), TVM_AT(c, in[1], i[0])));
}

static tvm_expr *sm_div_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* E, rowsum */
  return tvm_div(c, TVM_AT(c, in[0], i[0], i[1]), TVM_AT(c, in[1], i[0]));
}

static void test_softmax(void **state) {
  (void)state;
  enum { M = 12, N = 80 };
  tvm_tensor *X = tvm_placeholder(C, "X", TVM_F32, (int64_t[]){M, N}, 2);
  tvm_tensor *Mx = tvm_compute(C, "Mx", (int64_t[]){M}, 1, rowmax_body, X);
  tvm_tensor *ein[2] = {X, Mx};
  tvm_tensor *E = tvm_compute(C, "E", (int64_t[]){M, N}, 2, sm_exp_body, ein);
  tvm_tensor *S = tvm_compute(C, "S", (int64_t[]){M}, 1, rowsum_body, E);
  tvm_tensor *din[2] = {E, S};
  tvm_tensor *Y = tvm_compute(C, "Y", (int64_t[]){M, N}, 2, sm_div_body, din);
  assert_non_null(Y);
  tvm_schedule *s;
  OK(tvm_schedule_create(C, &Y, 1, &s));
  tvm_stage *sy = tvm_stage_of(s, Y), *se = tvm_stage_of(s, E);
  tvm_iter_var *row = tvm_stage_axis(sy, 0);
  OK(tvm_parallel(sy, row));
  OK(tvm_compute_at(tvm_stage_of(s, Mx), sy, row));
  OK(tvm_compute_at(se, sy, row));
  OK(tvm_compute_at(tvm_stage_of(s, S), sy, row));
  tvm_iter_var *eo, *ei, *yo, *yi;
  OK(tvm_split(se, tvm_stage_axis(se, 1), 16, &eo, &ei));
  OK(tvm_vectorize(se, ei));
  OK(tvm_split(sy, tvm_stage_axis(sy, 1), 16, &yo, &yi));
  OK(tvm_vectorize(sy, yi));
  h_mod hm;
  tvm_tensor *args[] = {X, Y};
  lower_build_ir(s, args, 2, "softmax", &hm, VEC_PAR);
  float x[M * N], y[M * N], r[M * N];
  fill(x, M * N, 15);
  for (int q = 0; q < M * N; q++) x[q] *= 8.0f;
  for (int i = 0; i < M; i++) {
    float mx = -INFINITY, sum = 0;
    for (int j = 0; j < N; j++) mx = x[i * N + j] > mx ? x[i * N + j] : mx;
    for (int j = 0; j < N; j++) sum += expf(x[i * N + j] - mx);
    for (int j = 0; j < N; j++) r[i * N + j] = expf(x[i * N + j] - mx) / sum;
  }
  tvm_plugin_arg av[] = {h_ptr(x), h_ptr(y)};
  assert_int_equal(h_call(&hm, "softmax", av, 2), 0);
  assert_close(y, r, M * N, 1e-5);
  done(&hm);
  tvm_schedule_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_matmul_fp32, setup, teardown),
      cmocka_unit_test_setup_teardown(test_matmul_ragged, setup, teardown),
      cmocka_unit_test_setup_teardown(test_matmul_int8, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv2d, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reductions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_compute_at, setup, teardown),
      cmocka_unit_test_setup_teardown(test_compute_inline, setup, teardown),
      cmocka_unit_test_setup_teardown(test_softmax, setup, teardown),
  };
  return cmocka_run_group_tests_name("llvm-cpu e2e", tests, NULL, NULL);
}
