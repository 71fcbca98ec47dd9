/*
 * tests/plugins/gpu/gpu_kernels.c - the shared GPU test kernels:
 *   scale_vec4  B = A * 2 + 1 over 4096 floats: blockIdx.x x threadIdx.x
 *               with a vectorized inner 4 (vector loads and stores);
 *   add_tail    C = A + B over 1000 floats, split by 64 (a guarded tail);
 *   matmul      C = A x B, 64x64x64: 16x16 tiles per block, threads
 *               (16, 16), A and B tiles cached in shared memory by
 *               cooperative fetch, barriers, a local accumulator;
 *   rowsum_exp  B[i] = sum_k exp(A[i, k]), 256 x 100, one row per thread.
 * The references are naive C loops.
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

#include "tvm/te.h"
#include "gpu_kernels.h"

/* Deterministic pseudo-random floats in [-1, 1). */
static float *randf(int64_t n, uint32_t seed) {
  float *p = malloc(sizeof(float) * (size_t)n);
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
  return p;
}

static tvm_expr *scale_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  return tvm_add(c, tvm_mul(c, TVM_AT(c, A, i[0]), tvm_f32(c, 2)),
                 tvm_f32(c, 1));
}

static tvm_expr *add_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  return tvm_add(c, TVM_AT(c, in[0], i[0]), TVM_AT(c, in[1], i[0]));
}

static tvm_expr *mm_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, in[0]->shape_c[1]);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])), &k, 1);
}

static tvm_expr *rowsum_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, A->shape_c[1]);
  return tvm_sum(c, tvm_math(c, TVM_INTRIN_EXP, TVM_AT(c, A, i[0], k->var)),
                 &k, 1);
}

#define OK(x) assert_int_equal((x), TVM_OK)

/* Lowers s for t into k->m. */
static void lower(const tvm_target *t, tvm_ctx *c, tvm_schedule *s,
                  tvm_tensor **args, int n, gpu_case *k) {
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t, &o);
  k->m.ctx = c;
  if (tvm_lower(s, args, n, k->name, &o, &k->m) != TVM_OK)
    fail_msg("lowering %s failed: %s", k->name, tvm_diag_message());
  k->ntensors = n;
  for (int i = 0; i < n; i++) {
    k->tnames[i] = args[i]->name;
    k->tsize[i] = 1;
    for (int d = 0; d < args[i]->ndim; d++) k->tsize[i] *= args[i]->shape_c[d];
  }
  k->out = n - 1;
}

static void case_scale(const tvm_target *t, tvm_ctx *c, gpu_case *k) {
  tvm_schedule *s;
  tvm_iter_var *bo, *bi, *to, *ti;
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){4096}, 1);
  tvm_tensor *B = tvm_compute(c, "B", (int64_t[]){4096}, 1, scale_body, A);
  OK(tvm_schedule_create(c, &B, 1, &s));
  tvm_stage *st = tvm_stage_of(s, B);
  OK(tvm_split(st, tvm_stage_axis(st, 0), 256, &bo, &bi));
  OK(tvm_split(st, bi, 4, &to, &ti));
  OK(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)));
  OK(tvm_bind(st, to, tvm_thread_axis(c, "threadIdx.x", NULL)));
  OK(tvm_vectorize(st, ti));
  k->name = "scale_vec4";
  lower(t, c, s, (tvm_tensor *[]){A, B}, 2, k);
  k->data[0] = randf(4096, 1);
  k->data[1] = malloc(sizeof(float) * 4096);
  for (int i = 0; i < 4096; i++) k->data[1][i] = k->data[0][i] * 2 + 1;
  tvm_schedule_free(s);
}

static void case_add(const tvm_target *t, tvm_ctx *c, gpu_case *k) {
  tvm_schedule *s;
  tvm_iter_var *bo, *bi;
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){1000}, 1);
  in[1] = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){1000}, 1);
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){1000}, 1, add_body, in);
  OK(tvm_schedule_create(c, &C, 1, &s));
  tvm_stage *st = tvm_stage_of(s, C);
  OK(tvm_split(st, tvm_stage_axis(st, 0), 64, &bo, &bi));
  OK(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)));
  OK(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)));
  k->name = "add_tail";
  lower(t, c, s, (tvm_tensor *[]){in[0], in[1], C}, 3, k);
  k->data[0] = randf(1000, 2);
  k->data[1] = randf(1000, 3);
  k->data[2] = malloc(sizeof(float) * 1000);
  for (int i = 0; i < 1000; i++) k->data[2][i] = k->data[0][i] + k->data[1][i];
  tvm_schedule_free(s);
}

#define MM 64
static void case_matmul(const tvm_target *t, tvm_ctx *c, gpu_case *k) {
  tvm_schedule *s;
  tvm_tensor *in[2], *CL, *AS, *BS;
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){MM, MM}, 2);
  in[1] = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){MM, MM}, 2);
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){MM, MM}, 2, mm_body, in);
  OK(tvm_schedule_create(c, &C, 1, &s));
  tvm_iter_var *bx = tvm_thread_axis(c, "blockIdx.x", NULL);
  tvm_iter_var *by = tvm_thread_axis(c, "blockIdx.y", NULL);
  tvm_iter_var *tx = tvm_thread_axis(c, "threadIdx.x", NULL);
  tvm_iter_var *ty = tvm_thread_axis(c, "threadIdx.y", NULL);
  OK(tvm_cache_write(s, C, "local", &CL));
  tvm_stage *sc = tvm_stage_of(s, C), *scl = tvm_stage_of(s, CL);
  tvm_operation *readers[1] = {scl->op};
  OK(tvm_cache_read(s, in[0], "shared", readers, 1, &AS));
  readers[0] = tvm_stage_of(s, CL)->op;
  OK(tvm_cache_read(s, in[1], "shared", readers, 1, &BS));
  sc = tvm_stage_of(s, C);
  scl = tvm_stage_of(s, CL);
  /* C: (yo, xo) blocks of 16x16, (yi, xi) threads */
  tvm_iter_var *yo, *yi, *xo, *xi;
  OK(tvm_split(sc, tvm_stage_axis(sc, 0), 16, &yo, &yi));
  OK(tvm_split(sc, tvm_stage_axis(sc, 1), 16, &xo, &xi));
  OK(tvm_reorder(sc, (tvm_iter_var *[]){yo, xo, yi, xi}, 4));
  OK(tvm_bind(sc, yo, by));
  OK(tvm_bind(sc, xo, bx));
  OK(tvm_bind(sc, yi, ty));
  OK(tvm_bind(sc, xi, tx));
  OK(tvm_compute_at(scl, sc, xi));
  /* CL: k split by 16; the tiles are fetched at ko */
  tvm_iter_var *ko, *ki;
  OK(tvm_split(scl, tvm_stage_reduce_axis(scl, 0), 16, &ko, &ki));
  OK(tvm_reorder(scl, (tvm_iter_var *[]){ko, ki, tvm_stage_axis(scl, 0),
                                          tvm_stage_axis(scl, 1)}, 4));
  tvm_tensor *caches[2] = {AS, BS};
  for (int i = 0; i < 2; i++) {
    tvm_stage *ss = tvm_stage_of(s, caches[i]);
    OK(tvm_compute_at(ss, scl, ko));
    OK(tvm_bind(ss, tvm_stage_axis(ss, 0), ty));
    OK(tvm_bind(ss, tvm_stage_axis(ss, 1), tx));
  }
  k->name = "matmul";
  lower(t, c, s, (tvm_tensor *[]){in[0], in[1], C}, 3, k);
  k->data[0] = randf(MM * MM, 4);
  k->data[1] = randf(MM * MM, 5);
  k->data[2] = calloc(MM * MM, sizeof(float));
  for (int i = 0; i < MM; i++)
    for (int j = 0; j < MM; j++)
      for (int kk = 0; kk < MM; kk++)
        k->data[2][i * MM + j] += k->data[0][i * MM + kk] * k->data[1][kk * MM + j];
  tvm_schedule_free(s);
}

static void case_rowsum(const tvm_target *t, tvm_ctx *c, gpu_case *k) {
  tvm_schedule *s;
  tvm_iter_var *bo, *bi;
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){256, 100}, 2);
  tvm_tensor *B = tvm_compute(c, "B", (int64_t[]){256}, 1, rowsum_body, A);
  OK(tvm_schedule_create(c, &B, 1, &s));
  tvm_stage *st = tvm_stage_of(s, B);
  OK(tvm_split(st, tvm_stage_axis(st, 0), 64, &bo, &bi));
  OK(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)));
  OK(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)));
  k->name = "rowsum_exp";
  lower(t, c, s, (tvm_tensor *[]){A, B}, 2, k);
  k->data[0] = randf(256 * 100, 6);
  k->data[1] = calloc(256, sizeof(float));
  for (int i = 0; i < 256; i++)
    for (int j = 0; j < 100; j++) k->data[1][i] += expf(k->data[0][i * 100 + j]);
  tvm_schedule_free(s);
}

static tvm_expr *half_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_expr *x = tvm_math(c, TVM_INTRIN_EXP, TVM_AT(c, (tvm_tensor *)ud, i[0]));
  return tvm_add(c, tvm_mul(c, x, tvm_fconst(c, TVM_F16, 2)),
                 tvm_fconst(c, TVM_F16, 1));
}

void gpu_half_lower(const tvm_target *t, tvm_ctx *c, tvm_module *m) {
  tvm_schedule *s;
  tvm_iter_var *bo, *bi;
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F16, (int64_t[]){1024}, 1);
  tvm_tensor *B = tvm_compute(c, "B", (int64_t[]){1024}, 1, half_body, A);
  OK(tvm_schedule_create(c, &B, 1, &s));
  tvm_stage *st = tvm_stage_of(s, B);
  OK(tvm_split(st, tvm_stage_axis(st, 0), 64, &bo, &bi));
  OK(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)));
  OK(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)));
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t, &o);
  m->ctx = c;
  if (tvm_lower(s, (tvm_tensor *[]){A, B}, 2, "half_exp", &o, m) != TVM_OK)
    fail_msg("lowering half_exp failed: %s", tvm_diag_message());
  tvm_schedule_free(s);
}

void gpu_cases_lower(const tvm_target *t, tvm_ctx *c, gpu_case *cases) {
  memset(cases, 0, sizeof(gpu_case) * GPU_NCASES);
  case_scale(t, c, &cases[0]);
  case_add(t, c, &cases[1]);
  case_matmul(t, c, &cases[2]);
  case_rowsum(t, c, &cases[3]);
}

void gpu_cases_free(gpu_case *cases) {
  for (int i = 0; i < GPU_NCASES; i++) {
    for (int j = 0; j < 4; j++) free(cases[i].data[j]);
  }
}

const tvm_func *gpu_case_kernel(const gpu_case *k) {
  for (int i = 0; i < k->m.nfuncs; i++)
    if (k->m.funcs[i]->kind == TVM_FUNC_DEVICE) return k->m.funcs[i];
  fail_msg("%s: no device function", k->name);
  return NULL;
}

/* Runs one case: buffers by parameter name, one launch, compare. */
static void run_case(const tvm_target *t, tvm_device *d, gpu_case *k,
                     int time_it) {
  tvm_plugin_blob blob;
  tvm_runtime_module *rm;
  tvm_runtime_func *f;
  void *buf[4] = {0};
  if (tvm_target_codegen(t, &k->m, &blob) != TVM_OK)
    fail_msg("%s: codegen: %s", k->name, tvm_diag_message());
  if (tvm_runtime_module_load(d, &blob, &rm) != TVM_OK)
    fail_msg("%s: module load: %s", k->name, tvm_diag_message());
  const tvm_func *kf = gpu_case_kernel(k);
  OK(tvm_runtime_get_func(rm, kf->name, &f));
  for (int i = 0; i < k->ntensors; i++) {
    size_t bytes = sizeof(float) * (size_t)k->tsize[i];
    OK(tvm_device_alloc(d, 0, bytes, 64, &buf[i]));
    if (i != k->out)
      OK(tvm_device_copy(d, buf[i], 0, k->data[i], 0, bytes,
                         TVM_COPY_HOST_TO_DEVICE));
  }
  tvm_plugin_arg args[4];
  assert_true(kf->nparams <= 4);
  for (int p = 0; p < kf->nparams; p++) {
    int found = -1;
    for (int i = 0; i < k->ntensors; i++)
      if (!strcmp(kf->params[p]->u.var.name, k->tnames[i])) found = i;
    if (found < 0) fail_msg("%s: parameter %s is no tensor", k->name,
                            kf->params[p]->u.var.name);
    args[p].type = TVM_ARG_PTR;
    args[p].reserved = 0;
    args[p].v.ptr = buf[found];
  }
  if (tvm_runtime_call(f, args, (uint32_t)kf->nparams) != TVM_OK)
    fail_msg("%s: launch: %s", k->name, tvm_diag_message());
  if (time_it) { /* the plugin's device timer (events) */
    double ms[2] = {0, 0};
    assert_int_equal(tvm_device_has_timer(d), 1);
    if (tvm_runtime_time(f, args, (uint32_t)kf->nparams, 2, 2, ms) != TVM_OK)
      fail_msg("%s: timing: %s", k->name, tvm_diag_message());
    assert_true(ms[0] > 0 && ms[1] > 0);
  }
  size_t n = (size_t)k->tsize[k->out];
  float *got = malloc(sizeof(float) * n);
  assert_non_null(got);
  OK(tvm_device_copy(d, got, 0, buf[k->out], 0, sizeof(float) * n,
                     TVM_COPY_DEVICE_TO_HOST));
  for (size_t i = 0; i < n; i++) {
    float want = k->data[k->out][i];
    if (fabsf(got[i] - want) > 1e-4f * (1 + fabsf(want)))
      fail_msg("%s: element %zu is %g, reference %g", k->name, i, got[i], want);
  }
  free(got);
  for (int i = 0; i < k->ntensors; i++) tvm_device_free(d, 0, buf[i]);
  tvm_runtime_module_free(rm);
  tvm_plugin_blob_free(&blob);
}

/* See gpu_kernels.h. */
void gpu_case_matmul(gpu_case *k, int64_t M, int64_t N, int64_t K,
                     float (*val)(int64_t e, int i)) {
  k->ntensors = 3;
  k->tnames[0] = "A", k->tnames[1] = "B", k->tnames[2] = "C";
  k->tsize[0] = M * K, k->tsize[1] = K * N, k->tsize[2] = M * N;
  k->out = 2;
  for (int i = 0; i < 2; i++) {
    k->data[i] = malloc(sizeof(float) * (size_t)k->tsize[i]);
    assert_non_null(k->data[i]);
    for (int64_t e = 0; e < k->tsize[i]; e++)
      k->data[i][e] = val ? val(e, i)
                          : (float)((e * 37 + i * 11) % 17) / 8.0f - 1.0f;
  }
  k->data[2] = calloc((size_t)(M * N), sizeof(float));
  assert_non_null(k->data[2]);
  for (int64_t i = 0; i < M; i++)
    for (int64_t kk = 0; kk < K; kk++)
      for (int64_t j = 0; j < N; j++)
        k->data[2][i * N + j] += k->data[0][i * K + kk] * k->data[1][kk * N + j];
}

void gpu_case_run(const tvm_target *t, tvm_device *d, gpu_case *k) {
  run_case(t, d, k, 0);
}

void gpu_cases_run(const tvm_target *t, tvm_device *d, gpu_case *cases,
                   int time_it) {
  for (int i = 0; i < GPU_NCASES; i++) run_case(t, d, &cases[i], time_it);
}

/* See gpu_kernels.h. */
void gpu_pocl_cache_enter(void) {
  static char cache[] = "/tmp/tvm_pocl_cache_XXXXXX";
  if (!getenv("POCL_CACHE_DIR") && mkdtemp(cache))
    setenv("POCL_CACHE_DIR", cache, 1);
}

void gpu_pocl_cache_leave(void) {
  const char *pc = getenv("POCL_CACHE_DIR");
  if (pc && !strncmp(pc, "/tmp/tvm_pocl_cache_", 20)) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", pc);
    if (system(cmd) != 0) printf("note: could not remove %s\n", cmd + 8);
  }
}
