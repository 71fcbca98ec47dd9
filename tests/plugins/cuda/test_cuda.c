/*
 * tests/plugins/cuda/test_cuda.c - the cuda plugin without a GPU: the
 * shared hand-scheduled kernels (tests/plugins/gpu) lowered for cuda-sm80
 * and cuda-sm90, emitted as CUDA C (checked for __launch_bounds__,
 * __shared__ tiles, __syncthreads, float4 accesses), compiled with NVRTC
 * to cubin + PTX, and the PTX assembled again with `ptxas -arch=sm_XX -v`
 * (no register spills, shared memory within 48 KiB).  Over-limit kernels
 * are rejected before compilation.  Probe: UNAVAILABLE with a fix-it
 * where there is no driver (and with the stub libcuda); the kernels run
 * against the references only where a GPU is present, else skip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/codegen_c.h"
#include "tvm/config.h"
#include "tvm/te.h"
#include "../gpu/gpu_kernels.h"
#include "cuda_plugin.h"

/* wmma_intrin.c, linked in, reports through the host; here the core's
 * diagnostic takes the messages. */
const tvm_host_api *cuda_host(void) { return NULL; }

#ifndef TVM_CUDA_HOME
#define TVM_CUDA_HOME "/usr/local/cuda"
#endif

/* Loads a target; skips when NVRTC is missing (checked by a codegen). */
static tvm_target *load(const char *name) {
  tvm_target *t;
  if (tvm_target_load(name, &t) != TVM_OK)
    fail_msg("loading target %s: %s", name, tvm_diag_message());
  return t;
}

/* A section of a blob as a heap string. */
static char *section(const tvm_plugin_blob *b, const char *name) {
  const uint8_t *p;
  uint64_t n;
  if (tvm_kpack_find(b->data, b->size, name, &p, &n) != TVM_OK)
    fail_msg("blob has no section %s", name);
  char *s = malloc(n + 1);
  memcpy(s, p, n);
  s[n] = 0;
  return s;
}

/* Runs ptxas -v on ptx for sm_<arch>; returns its output (heap) or NULL
 * when ptxas is absent. */
static char *ptxas(const char *ptx, int arch) {
  char ptxas_path[512], tmp[] = "/tmp/tvm_cuda_test_XXXXXX", cmd[1200];
  snprintf(ptxas_path, sizeof ptxas_path, "%s/bin/ptxas", TVM_CUDA_HOME);
  if (access(ptxas_path, X_OK) != 0) return NULL;
  int fd = mkstemp(tmp);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(ptx, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s -arch=sm_%d -v -o /dev/null %s 2>&1",
           ptxas_path, arch, tmp);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t cap = 1 << 16, n = 0;
  char *out = calloc(1, cap);
  while (n + 1 < cap && fgets(out + n, (int)(cap - n), p)) n += strlen(out + n);
  int rc = pclose(p);
  unlink(tmp);
  if (rc != 0) fail_msg("ptxas failed:\n%s", out);
  return out;
}

/* Checks every "N bytes spill" and "N bytes smem" of a ptxas -v report. */
static void check_ptxas(const char *rep, const char *what) {
  int nfun = 0;
  for (const char *s = rep; (s = strstr(s, "bytes spill stores")); s++) {
    const char *b = s;
    while (b > rep && b[-1] == ' ') b--;
    while (b > rep && b[-1] >= '0' && b[-1] <= '9') b--;
    if (atoi(b) != 0) fail_msg("%s spills registers:\n%s", what, rep);
    nfun++;
  }
  for (const char *s = rep; (s = strstr(s, "bytes smem")); s++) {
    const char *b = s;
    while (b > rep && b[-1] == ' ') b--;
    while (b > rep && b[-1] >= '0' && b[-1] <= '9') b--;
    if (atoi(b) > 49152) fail_msg("%s uses too much shared memory:\n%s", what, rep);
  }
  assert_true(nfun >= 1);
}

/* Every case for one arch: CUDA C, NVRTC, ptxas. */
static void compile_all(const char *target, int arch) {
  tvm_target *t = load(target);
  tvm_ctx *c = tvm_ctx_create();
  gpu_case cases[GPU_NCASES];
  gpu_cases_lower(t, c, cases);
  for (int i = 0; i < GPU_NCASES; i++) {
    tvm_plugin_blob blob;
    tvm_status st = tvm_target_codegen(t, &cases[i].m, &blob);
    if (st == TVM_ERR_UNAVAILABLE) {
      printf("skipped: %s\n", tvm_diag_message());
      gpu_cases_free(cases);
      tvm_ctx_destroy(c);
      tvm_target_free(t);
      skip();
    }
    if (st != TVM_OK)
      fail_msg("%s: %s: %s", target, cases[i].name, tvm_diag_message());
    char *src = section(&blob, "source"), *ptx = section(&blob, "ptx");
    char *a = section(&blob, "arch");
    if (getenv("GPU_DUMP")) printf("%s\n", src);
    assert_int_equal(atoi(a), arch);
    const uint8_t *cubin;
    uint64_t ncubin;
    assert_int_equal(tvm_kpack_find(blob.data, blob.size, "cubin", &cubin, &ncubin),
                     TVM_OK);
    assert_true(ncubin > 4 && !memcmp(cubin, "\177ELF", 4));
    char want[64];
    snprintf(want, sizeof want, ".target sm_%d", arch);
    assert_non_null(strstr(ptx, want));
    assert_non_null(strstr(src, "extern \"C\" __global__ __launch_bounds__("));
    if (i == 0) {
      assert_non_null(strstr(src, "*(const float4*)(&A["));
      assert_non_null(strstr(src, "*(float4*)(&B["));
      assert_true(strstr(ptx, "ld.global.v4.f32") ||
                  strstr(ptx, "ld.global.nc.v4.f32"));
      assert_non_null(strstr(ptx, "st.global.v4.f32"));
    }
    if (i == 2) {
      assert_non_null(strstr(src, "__shared__ float A_shared[256]"));
      assert_non_null(strstr(src, "__syncthreads();"));
      assert_int_equal(blob.kernels[0].shared_bytes, 2048);
      assert_int_equal(blob.kernels[0].block[0], 16);
      assert_int_equal(blob.kernels[0].block[1], 16);
      assert_int_equal(blob.kernels[0].grid[1], 4);
    }
    char *rep = ptxas(ptx, arch);
    if (rep) {
      char what[128];
      snprintf(what, sizeof what, "%s on sm_%d", cases[i].name, arch);
      check_ptxas(rep, what);
      free(rep);
    } else {
      printf("note: %s/bin/ptxas absent: PTX not re-assembled\n", TVM_CUDA_HOME);
    }
    free(src);
    free(ptx);
    free(a);
    tvm_plugin_blob_free(&blob);
  }
  gpu_cases_free(cases);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

static void test_sm80(void **state) { (void)state; compile_all("cuda-sm80", 80); }
static void test_sm90(void **state) { (void)state; compile_all("cuda-sm90", 90); }

static tvm_expr *copy_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return TVM_AT(c, (tvm_tensor *)ud, i[0]);
}

/* 2048 threads per block: rejected before NVRTC runs. */
static void test_thread_limit(void **state) {
  (void)state;
  tvm_target *t = load("cuda-sm90");
  tvm_ctx *c = tvm_ctx_create();
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t, &o);
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){8192}, 1);
  tvm_tensor *B = tvm_compute(c, "B", (int64_t[]){8192}, 1, copy_body, A);
  tvm_schedule *s;
  tvm_iter_var *bo, *bi;
  assert_int_equal(tvm_schedule_create(c, &B, 1, &s), TVM_OK);
  tvm_stage *st = tvm_stage_of(s, B);
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 2048, &bo, &bi), TVM_OK);
  assert_int_equal(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)), TVM_OK);
  assert_int_equal(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)), TVM_OK);
  tvm_module m = {c, NULL, 0};
  assert_int_equal(tvm_lower(s, (tvm_tensor *[]){A, B}, 2, "big", &o, &m), TVM_OK);
  tvm_plugin_blob blob;
  assert_int_equal(tvm_target_codegen(t, &m, &blob), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "max_threads_per_block 1024"));
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

/* float16 math compiles (cuda_fp16.h, exp computed in float32). */
static void test_half_compile(void **state) {
  (void)state;
  tvm_target *t = load("cuda-sm80");
  tvm_ctx *c = tvm_ctx_create();
  tvm_module m = {c, NULL, 0};
  gpu_half_lower(t, c, &m);
  tvm_plugin_blob blob;
  tvm_status st = tvm_target_codegen(t, &m, &blob);
  if (st == TVM_ERR_UNAVAILABLE) {
    printf("skipped: %s\n", tvm_diag_message());
    tvm_ctx_destroy(c);
    tvm_target_free(t);
    skip();
  }
  if (st != TVM_OK) fail_msg("half codegen: %s", tvm_diag_message());
  char *src = section(&blob, "source");
  assert_non_null(strstr(src, "#include <cuda_fp16.h>"));
  assert_non_null(strstr(src, "expf((float)("));
  free(src);
  tvm_plugin_blob_free(&blob);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

static tvm_expr *mm_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, in[0]->shape_c[1]);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])), &k, 1);
}

/* The cuda strategy called name. */
static const tvm_plugin_strategy *strategy(const tvm_target *t,
                                           const char *name) {
  const tvm_plugin_target_info *info = tvm_target_info(t);
  const tvm_plugin_strategy *st;
  for (uint32_t i = 0; (st = tvm_plugin_strategy_at(info, i)); i++)
    if (!strcmp(st->name, name)) return st;
  fail_msg("no strategy %s", name);
  return NULL;
}

/* Template strat of target t at a knob setting (names[i] set to index
 * idx[i]; NULL or a NULL name ends), define-by-run: one pass records the
 * knobs (the defaults may not fit the shape), then they are set.  The
 * schedule is lowered as function fname over (A, B, C) into *m (ctx c)
 * and compiled into *blob; skips when NVRTC is missing.  Returns the
 * config and *sp the schedule (the caller frees both). */
static tvm_config *template_build(tvm_target *t,
                                  const tvm_plugin_strategy *strat,
                                  tvm_ctx *c, tvm_tensor **in, tvm_tensor *C,
                                  const char *const *names, const int *idx,
                                  const char *fname, tvm_schedule **sp,
                                  tvm_module *m, tvm_plugin_blob *blob) {
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s;
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  (void)strat->schedule(t->instance, s, &C, 1, cfg);
  tvm_schedule_free(s);
  for (int i = 0; names && names[i]; i++)
    assert_int_equal(tvm_config_set(cfg, names[i], idx[i]), TVM_OK);
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  if (strat->schedule(t->instance, s, &C, 1, cfg) != TVM_OK)
    fail_msg("template %s: %s", strat->name, tvm_diag_message());
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t, &o);
  *m = (tvm_module){c, NULL, 0};
  if (tvm_lower(s, (tvm_tensor *[]){in[0], in[1], C}, 3, fname, &o, m) != TVM_OK)
    fail_msg("lower: %s", tvm_diag_message());
  tvm_status st = tvm_target_codegen(t, m, blob);
  if (st == TVM_ERR_UNAVAILABLE) {
    printf("skipped: %s\n", tvm_diag_message());
    skip();
  }
  if (st != TVM_OK) fail_msg("codegen: %s", tvm_diag_message());
  *sp = s;
  return cfg;
}

/* The MatMul template at a knob setting (sets[] = knob name, index; NULL
 * name ends): lowered for cuda-sm90, compiled, no spills in ptxas -v; the
 * same device function compiled by the opencl target and run on its device
 * (PoCL in CI) against a naive matmul, when there is one. */
static void matmul_template(const char *const *names, const int *idx,
                            int64_t M, int64_t N, int64_t K) {
  tvm_target *t = load("cuda-sm90");
  const tvm_plugin_strategy *strat = strategy(t, "cuda.matmul_shared_tiled");
  assert_non_null(strat);
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){M, K}, 2);
  in[1] = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){K, N}, 2);
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){M, N}, 2, mm_body, in);
  tvm_schedule *s;
  tvm_module m;
  tvm_plugin_blob blob;
  tvm_config *cfg = template_build(t, strat, c, in, C, names, idx, "mm", &s,
                                   &m, &blob);
  char *ptx = section(&blob, "ptx"), *cfgs = tvm_config_str(cfg);
  /* past 48 KiB the tiles are one dynamic array the launch sizes */
  if (blob.kernels[0].shared_bytes > 49152) {
    char *src = section(&blob, "source"), *dyn = section(&blob, "dyn_shared");
    char want[64];
    snprintf(want, sizeof want, "mm_kernel0 %llu\n",
             (unsigned long long)blob.kernels[0].shared_bytes);
    assert_non_null(strstr(src, "extern __shared__ __align__(128) unsigned char tvm_dyn_shared[];"));
    assert_string_equal(dyn, want);
    free(src);
    free(dyn);
  }
  char *rep = ptxas(ptx, 90);
  if (rep) {
    check_ptxas(rep, cfgs);
    printf("matmul %lldx%lldx%lld %s: %u threads, %llu B shared; %s",
           (long long)M, (long long)N, (long long)K, cfgs,
           blob.kernels[0].block[0] * blob.kernels[0].block[1],
           (unsigned long long)blob.kernels[0].shared_bytes,
           strstr(rep, "Used") ? strstr(rep, "Used") : "\n");
    free(rep);
  }
  tvm_free(cfgs);
  free(ptx);
  uint64_t shared = blob.kernels[0].shared_bytes;
  tvm_plugin_blob_free(&blob);
  /* the same device function against a naive matmul: on the opencl
   * target's device (PoCL in CI; its 32 KiB of local memory hold the
   * tiles up to that), and on the GPU where there is one */
  gpu_case k = {0};
  k.name = "mm";
  k.m = m;
  gpu_case_matmul(&k, M, N, K, NULL);
  tvm_target *ocl = NULL;
  tvm_device *d;
  if (shared > 32768) {
    printf("note: %llu B of shared memory: not run on the opencl device\n",
           (unsigned long long)shared);
  } else if (tvm_target_load("opencl", &ocl) != TVM_OK ||
             tvm_target_probe(ocl) != TVM_OK) {
    printf("note: no opencl device to run the template's loop IR: %s\n",
           tvm_diag_message());
  } else {
    assert_int_equal(tvm_device_open(ocl, &d), TVM_OK);
    gpu_case_run(ocl, d, &k);
    tvm_device_close(d);
  }
  if (tvm_target_probe(t) == TVM_OK) {
    assert_int_equal(tvm_device_open(t, &d), TVM_OK);
    gpu_case_run(t, d, &k);
    tvm_device_close(d);
    printf("ran on the cuda device too\n");
  }
  for (int i = 0; i < 3; i++) free(k.data[i]);
  if (ocl) tvm_target_free(ocl);
  tvm_config_free(cfg);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

static void test_matmul_template(void **state) {
  (void)state;
  static const char *const none[] = {NULL};
  /* the defaults of small products: 64, 4, 8, no virtual threads */
  matmul_template(none, NULL, 256, 256, 128);
  /* the defaults of large products (SGEMM 4096^3's best on an H200): 128,
   * 8, 32, 2 x 2 virtual threads of 4 x 4, float4 fetches and stores */
  static const char *const all[] = {"tile_block", "tile_thread", "tile_k",
                                    "vthreads", "fetch_vec", NULL};
  matmul_template(all, (const int[]){3, 3, 3, 1, 1}, 256, 256, 64);
  matmul_template(all, (const int[]){3, 3, 1, 1, 1}, 256, 256, 64);
  matmul_template(all, (const int[]){3, 3, 1, 0, 1}, 128, 256, 64);
  matmul_template(all, (const int[]){2, 2, 2, 1, 1}, 128, 64, 48);
  static const char *const big[] = {"tile_block", "tile_thread", "tile_k", NULL};
  matmul_template(big, (const int[]){1, 1, 2}, 64, 96, 32);   /* 32, 2, 16 */
  matmul_template(none, NULL, 33, 40, 17); /* ragged edges everywhere */
  /* double-buffered tiles (inject_double_buffer): a 128 x 128 block with
   * k by 16, a small one, and ragged edges (the guard of the last step's
   * fetch and the partial tiles together) */
  static const char *const db[] = {"tile_block", "tile_thread", "tile_k",
                                   "vthreads", "fetch_vec", "double_buffer",
                                   NULL};
  matmul_template(db, (const int[]){3, 3, 2, 1, 1, 1}, 256, 256, 64);
  /* 2 x 2 x 128 x 32 floats: 64 KiB, dynamic shared memory */
  matmul_template(db, (const int[]){3, 3, 3, 1, 1, 1}, 256, 256, 128);
  matmul_template(db, (const int[]){2, 2, 1, 0, 0, 1}, 128, 64, 48);
  matmul_template(db, (const int[]){1, 1, 1, 0, 0, 1}, 33, 40, 17);
}

/* A candidate that does not fit is rejected before anything is built. */
static void test_matmul_template_rejects(void **state) {
  (void)state;
  tvm_target *t = load("cuda-sm90");
  const tvm_plugin_strategy *strat = strategy(t, "cuda.matmul_shared_tiled");
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){96, 32}, 2);
  in[1] = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){32, 96}, 2);
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){96, 96}, 2, mm_body, in);
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s;
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  /* 96 is no multiple of the default 64 block tile: guarded, accepted */
  assert_int_equal(strat->schedule(t->instance, s, &C, 1, cfg), TVM_OK);
  tvm_schedule_free(s);
  /* a 1x1 thread tile cannot be split into 2x2 virtual threads */
  assert_int_equal(tvm_config_set(cfg, "tile_block", 1), TVM_OK);
  assert_int_equal(tvm_config_set(cfg, "tile_thread", 0), TVM_OK);
  assert_int_equal(tvm_config_set(cfg, "tile_k", 0), TVM_OK);
  assert_int_equal(tvm_config_set(cfg, "vthreads", 1), TVM_OK);
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  assert_int_equal(strat->schedule(t->instance, s, &C, 1, cfg), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "virtual threads"));
  tvm_schedule_free(s);
  /* 32x32 blocks of 1x1 threads: 1024 threads cannot fetch 32x4 evenly */
  assert_int_equal(tvm_config_set(cfg, "vthreads", 0), TVM_OK);
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  assert_int_equal(strat->schedule(t->instance, s, &C, 1, cfg), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "threads per block"));
  tvm_schedule_free(s);
  /* 128 x 32 tiles of A and B fit 48 KiB once (32 KiB), not twice (a
   * target of 48 KiB: cuda-sm90 grants 227) */
  tvm_target_free(t);
  char yaml[] = "/tmp/tvm_test_cuda_48k_XXXXXX.yaml";
  int yfd = mkstemps(yaml, 5);
  assert_true(yfd >= 0);
  FILE *y = fdopen(yfd, "w");
  assert_non_null(y);
  fputs("name: cuda-48k\nplugin: cuda\nkeys: [gpu, cuda]\n"
        "attrs: {arch: 90, max_shared_bytes: 49152}\n", y);
  fclose(y);
  t = load(yaml);
  unlink(yaml);
  strat = strategy(t, "cuda.matmul_shared_tiled");
  assert_int_equal(tvm_config_set(cfg, "tile_block", 3), TVM_OK);
  assert_int_equal(tvm_config_set(cfg, "tile_thread", 3), TVM_OK);
  assert_int_equal(tvm_config_set(cfg, "tile_k", 3), TVM_OK);
  assert_int_equal(tvm_config_set(cfg, "vthreads", 1), TVM_OK);
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  assert_int_equal(strat->schedule(t->instance, s, &C, 1, cfg), TVM_OK);
  tvm_schedule_free(s);
  assert_int_equal(tvm_config_set(cfg, "double_buffer", 1), TVM_OK);
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  assert_int_equal(strat->schedule(t->instance, s, &C, 1, cfg), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "double-buffered"));
  tvm_schedule_free(s);
  tvm_config_free(cfg);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

/* ---- the tensor-core template (strategy_wmma.c) ------------------------ */

/* C[i, j] = sum_k f32(A[i, k]) * f32(B[k, j]): float32 accumulation. */
static tvm_expr *mm_f32acc_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, in[0]->shape_c[1]);
  return tvm_sum(c, tvm_mul(c, tvm_cast(c, TVM_F32, TVM_AT(c, in[0], i[0], k->var)),
                            tvm_cast(c, TVM_F32, TVM_AT(c, in[1], k->var, i[1]))),
                 &k, 1);
}

/* A[M, K], B[K, N] of type dt and C of the mixed-precision product. */
static tvm_tensor *wmma_te(tvm_ctx *c, tvm_dtype dt, int64_t M, int64_t N,
                           int64_t K, tvm_tensor **in) {
  in[0] = tvm_placeholder(c, "A", dt, (int64_t[]){M, K}, 2);
  in[1] = tvm_placeholder(c, "B", dt, (int64_t[]){K, N}, 2);
  return tvm_compute(c, "C", (int64_t[]){M, N}, 2, mm_f32acc_body, in);
}

typedef struct round_ud {
  tvm_tensor *t;
  tvm_dtype dt;
} round_ud;

static tvm_expr *cast_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  round_ud *u = ud;
  return tvm_cast(c, u->dt, TVM_AT(c, u->t, i[0], i[1]));
}

/* The graph's form of a 16-bit MatMul: the float32 product C rounded to
 * dt (tag matmul_round), then cast back to float32 (a stage the graph
 * fuses after it when the model's output is float32). */
static tvm_tensor *wmma_rounded(tvm_ctx *c, tvm_tensor *C, tvm_dtype dt) {
  round_ud *r = tvm_ctx_alloc(c, 2 * sizeof *r);
  r[0] = (round_ud){C, dt};
  tvm_tensor *R = tvm_compute(c, "C.round", C->shape_c, 2, cast_body, &r[0]);
  tvm_tensor_set_tag(R, "matmul_round");
  r[1] = (round_ud){R, TVM_F32};
  return tvm_compute(c, "C.f32", C->shape_c, 2, cast_body, &r[1]);
}

/* The value at element e of input i: a multiple of 1/8 in [-1, 1], exact
 * in float16 and bfloat16, so that every product and sum of the tests
 * (K <= 4096) is exact in float32. */
static float wmma_val(int64_t e, int i) {
  return (float)((e * 37 + i * 11) % 17) / 8.0f - 1.0f;
}

/* float -> float16 / bfloat16 bits, for values exact in both. */
static uint16_t to_16(float f, int bf16) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if (bf16) return (uint16_t)(u >> 16);
  uint32_t sign = (u >> 16) & 0x8000u;
  int32_t ex = (int32_t)((u >> 23) & 0xff) - 127 + 15;
  if ((u & 0x7fffffffu) == 0) return (uint16_t)sign;
  assert_true(ex > 0 && ex < 31 && (u & 0x1fffu) == 0);
  return (uint16_t)(sign | ((uint32_t)ex << 10) | ((u >> 13) & 0x3ffu));
}

/* The wmma template for dt on target, lowered and compiled: checks the
 * source (fragments, mma_sync), the PTX (wmma.mma.sync) and ptxas -v (no
 * spills, shared memory within 48 KiB); returns the module in *m when m
 * is non-NULL (the caller owns c). */
static void wmma_compile(const char *target, int arch, tvm_dtype dt,
                         int64_t M, int64_t N, int64_t K,
                         const char *const *names, const int *idx,
                         tvm_ctx *c, tvm_module *m, int rounded) {
  tvm_target *t = load(target);
  const tvm_plugin_strategy *strat = strategy(t, "cuda.matmul_wmma");
  tvm_tensor *in[2], *C = wmma_te(c, dt, M, N, K, in);
  if (rounded) C = wmma_rounded(c, C, dt);
  tvm_schedule *s;
  tvm_module mod;
  tvm_plugin_blob blob;
  tvm_config *cfg = template_build(t, strat, c, in, C, names, idx, "wmma", &s,
                                   &mod, &blob);
  char *src = section(&blob, "source"), *ptx = section(&blob, "ptx");
  char *cfgs = tvm_config_str(cfg);
  if (getenv("GPU_DUMP")) printf("%s\n", src);
  assert_non_null(strstr(src, "nvcuda::wmma::mma_sync"));
  assert_non_null(strstr(src, "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, "
                              "16, 16, 16, float>"));
  assert_non_null(strstr(src, dt.code == kDLBfloat
                                  ? "matrix_a, 16, 16, 16, __nv_bfloat16"
                                  : "matrix_a, 16, 16, 16, __half"));
  assert_non_null(strstr(src, "tvm_wmma_mma((&"));
  assert_non_null(strstr(src, "__syncthreads();"));
  assert_non_null(strstr(ptx, "wmma.mma.sync"));
  /* the tiles are fetched by vector copies: 8 elements as one 16-byte
   * access in the default tiling (uint4), fewer in small ones */
  assert_non_null(strstr(src, "*(uint"));
  assert_non_null(strstr(src, "*(const uint"));
  int pad = !cfgs || !strstr(cfgs, "pad_shared=0");
  if (!names) {
    assert_non_null(strstr(src, "*(uint4*)(&A_shared["));
    assert_non_null(strstr(src, "*(uint4*)(&B_shared["));
    assert_non_null(strstr(ptx, "ld.global.nc.v4.u32"));
    assert_non_null(strstr(ptx, "st.shared.v4.u32"));
  }
  /* padded rows: the fragment loads take them as ldm (A: bk + 8, B: bn
   * + 8 for the default 128x128 blocks, k by 64, double-buffered) */
  if (!names || !pad) {
    assert_non_null(strstr(src, pad ? "]), 72);" : "]), 64);"));
    assert_non_null(strstr(src, pad ? "]), 136);" : "]), 128);"));
    assert_int_equal(blob.kernels[0].shared_bytes,
                     pad ? 2 * (128 * 72 + 64 * 136) * 2
                         : 2 * (128 * 64 + 64 * 128) * 2);
  }
  /* the rounding (and the cast after it) is a second kernel */
  assert_int_equal(blob.nkernels, rounded ? 2 : 1);
  if (rounded)
    assert_non_null(strstr(src, dt.code == kDLBfloat ? "((__nv_bfloat16)("
                                                     : "((__half)("));
  char *rep = ptxas(ptx, arch);
  if (rep) {
    char what[200];
    snprintf(what, sizeof what, "wmma %s %lldx%lldx%lld on sm_%d %s",
             dt.code == kDLBfloat ? "bf16" : "f16", (long long)M,
             (long long)N, (long long)K, arch, cfgs);
    check_ptxas(rep, what);
    printf("%s: %u x %u x %u threads, grid %u x %u, %llu B shared; %s", what,
           blob.kernels[0].block[0], blob.kernels[0].block[1],
           blob.kernels[0].block[2], blob.kernels[0].grid[0],
           blob.kernels[0].grid[1],
           (unsigned long long)blob.kernels[0].shared_bytes,
           strstr(rep, "Used") ? strstr(rep, "Used") : "\n");
    free(rep);
  } else {
    printf("note: %s/bin/ptxas absent: PTX not re-assembled\n", TVM_CUDA_HOME);
  }
  free(src);
  free(ptx);
  tvm_free(cfgs);
  tvm_plugin_blob_free(&blob);
  tvm_config_free(cfg);
  tvm_schedule_free(s);
  tvm_target_free(t);
  if (m) *m = mod;
}

static void test_wmma_compile(void **state) {
  (void)state;
  static const tvm_dtype f16 = {kDLFloat, 16, 1}, bf16 = {kDLBfloat, 16, 1};
  static const char *const small[] = {"tile_bm", "tile_bn", "warp_m",
                                      "warp_n", "tile_k", NULL};
  static const char *const nopad[] = {"pad_shared", NULL};
  for (int arch = 80; arch <= 90; arch += 10) {
    const char *target = arch == 80 ? "cuda-sm80" : "cuda-sm90";
    for (int b = 0; b < 2; b++) {
      tvm_dtype dt = b ? bf16 : f16;
      tvm_ctx *c = tvm_ctx_create();
      wmma_compile(target, arch, dt, 256, 256, 256, NULL, NULL, c, NULL, 0);
      wmma_compile(target, arch, dt, 128, 3072, 768, NULL, NULL, c, NULL, 0);
      wmma_compile(target, arch, dt, 128, 768, 3072, NULL, NULL, c, NULL, 0);
      /* 32x32 blocks of 16x16 warps, k by 16 */
      wmma_compile(target, arch, dt, 64, 96, 48, small,
                   (const int[]){1, 1, 0, 0, 0}, c, NULL, 0);
      /* the graph's form: rounded to 16 bits, then cast to float32 */
      wmma_compile(target, arch, dt, 256, 256, 256, NULL, NULL, c, NULL, 1);
      /* the shared tiles unpadded */
      wmma_compile(target, arch, dt, 256, 256, 256, nopad, (const int[]){0},
                   c, NULL, 0);
      /* double-buffered tiles, k by 32 and by 64 */
      static const char *const db[] = {"double_buffer", NULL};
      static const char *const db64[] = {"tile_k", "double_buffer", NULL};
      wmma_compile(target, arch, dt, 256, 256, 256, db, (const int[]){1},
                   c, NULL, 0);
      wmma_compile(target, arch, dt, 256, 256, 256, db64,
                   (const int[]){2, 1}, c, NULL, 0);
      tvm_ctx_destroy(c);
    }
  }
}

/* The template declines what it cannot compute, saying why. */
static void test_wmma_declines(void **state) {
  (void)state;
  tvm_target *t = load("cuda-sm90");
  const tvm_plugin_strategy *strat = strategy(t, "cuda.matmul_wmma");
  static const tvm_dtype f16 = {kDLFloat, 16, 1};
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[2], *C;
  tvm_schedule *s;
  tvm_config *cfg = tvm_config_create();
  struct { tvm_dtype dt; int64_t m, n, k; int f16acc; const char *why; } cases[] = {
      {TVM_F32, 64, 64, 64, 0, "must both be float16 or bfloat16"},
      {f16, 64, 40, 64, 0, "must be multiples of 16"},
      {f16, 64, 64, 64, 1, "accumulates in its 16-bit input type"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    in[0] = tvm_placeholder(c, "A", cases[i].dt, (int64_t[]){cases[i].m, cases[i].k}, 2);
    in[1] = tvm_placeholder(c, "B", cases[i].dt, (int64_t[]){cases[i].k, cases[i].n}, 2);
    C = tvm_compute(c, "C", (int64_t[]){cases[i].m, cases[i].n}, 2,
                    cases[i].f16acc || cases[i].dt.bits == 32 ? mm_body
                                                               : mm_f32acc_body,
                    in);
    assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
    assert_int_equal(strat->schedule(t->instance, s, &C, 1, cfg),
                     TVM_ERR_UNSUPPORTED);
    if (!strstr(tvm_diag_message(), cases[i].why))
      fail_msg("case %zu: %s", i, tvm_diag_message());
    tvm_schedule_free(s);
  }
  /* a candidate over the shared memory limit is rejected before lowering:
   * the default 128x128 blocks, k by 64, need 32 KiB, 35 KiB with the
   * rows padded by 8 elements (twice that double-buffered, the default
   * only where it fits); allow 34000 B: padded, rejected (the limit
   * counts the padding); unpadded, accepted */
  C = wmma_te(c, f16, 128, 128, 128, in);
  struct tvm_plugin_target small = *t->instance;
  small.max_shared = 34000;
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  assert_int_equal(strat->schedule(&small, s, &C, 1, cfg), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "shared memory"));
  assert_non_null(strstr(tvm_diag_message(), "pad 8"));
  assert_non_null(strstr(tvm_diag_message(), "35840 B shared"));
  assert_non_null(tvm_config_rejected(cfg));
  tvm_schedule_free(s);
  tvm_config_free(cfg);
  cfg = tvm_config_create();
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  (void)strat->schedule(&small, s, &C, 1, cfg);
  tvm_schedule_free(s);
  assert_int_equal(tvm_config_set(cfg, "pad_shared", 0), TVM_OK);
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  if (strat->schedule(&small, s, &C, 1, cfg) != TVM_OK)
    fail_msg("unpadded under 34000 B: %s", tvm_diag_message());
  tvm_schedule_free(s);
  tvm_config_free(cfg);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

/* The template's tiling without tensor cores (cuda_schedule_wmma_loops,
 * linked into this test from the plugin's sources), in float32, lowered
 * for cuda-sm90 and run on the opencl target's device (PoCL in CI)
 * against a naive matmul: the block, warp and k tiles, the cooperative
 * fetches and the barriers compute the product. */
static void wmma_loops(const char *const *names, const int *idx, int64_t M,
                       int64_t N, int64_t K) {
  tvm_target *t = load("cuda-sm90"), *ocl = NULL;
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[2], *C = wmma_te(c, TVM_F32, M, N, K, in);
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s;
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  (void)cuda_schedule_wmma_loops(t->instance, s, &C, 1, cfg);
  tvm_schedule_free(s);
  for (int i = 0; names && names[i]; i++)
    assert_int_equal(tvm_config_set(cfg, names[i], idx[i]), TVM_OK);
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  if (cuda_schedule_wmma_loops(t->instance, s, &C, 1, cfg) != TVM_OK)
    fail_msg("wmma loops: %s", tvm_diag_message());
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t, &o);
  tvm_module m = {c, NULL, 0};
  if (tvm_lower(s, (tvm_tensor *[]){in[0], in[1], C}, 3, "mm", &o, &m) != TVM_OK)
    fail_msg("lower: %s", tvm_diag_message());
  tvm_device *d;
  if (tvm_target_load("opencl", &ocl) != TVM_OK || tvm_target_probe(ocl) != TVM_OK) {
    printf("skipped: no opencl device to run the tiling on: %s\n",
           tvm_diag_message());
    if (ocl) tvm_target_free(ocl);
    tvm_target_free(t);
    skip();
  }
  assert_int_equal(tvm_device_open(ocl, &d), TVM_OK);
  gpu_case k = {0};
  k.name = "wmma_loops";
  k.m = m;
  gpu_case_matmul(&k, M, N, K, wmma_val);
  gpu_case_run(ocl, d, &k);
  for (int i = 0; i < 3; i++) free(k.data[i]);
  tvm_device_close(d);
  tvm_target_free(ocl);
  tvm_config_free(cfg);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

static void test_wmma_loops(void **state) {
  (void)state;
  /* double_buffer named: its default (on where the two copies fit the
   * cuda target's shared memory) can exceed PoCL's 32 KiB of __local */
  static const char *const kd[] = {"tile_bm", "tile_bn", "warp_m", "warp_n",
                                   "tile_k", "double_buffer", NULL};
  gpu_pocl_cache_enter();
  /* 64x64 blocks of 32x32 warps, k by 32 (4 warps, 2x2 fragments each) */
  wmma_loops(kd, (const int[]){2, 2, 1, 1, 1, 0}, 128, 64, 96);
  /* 32x64 blocks of 16x32 warps, k by 16 */
  wmma_loops(kd, (const int[]){1, 2, 0, 1, 0, 0}, 64, 128, 48);
  /* (both with the shared rows padded by 8, the default) the first
   * tiling again with unpadded rows */
  static const char *const kp[] = {"tile_bm", "tile_bn", "warp_m", "warp_n",
                                   "tile_k", "double_buffer", "pad_shared",
                                   NULL};
  wmma_loops(kp, (const int[]){2, 2, 1, 1, 1, 0, 0}, 128, 64, 96);
  /* the second tiling with double-buffered tiles */
  wmma_loops(kd, (const int[]){1, 2, 0, 1, 0, 1}, 64, 128, 48);
  gpu_pocl_cache_leave();
}

/* The template's kernels on a real GPU against exact references, or a
 * skip with the probe's reason.  Inputs are 16-bit: they travel as the
 * bytes of half as many floats (gpu_case holds floats). */
static void test_wmma_run(void **state) {
  (void)state;
  tvm_target *t = load("cuda-sm80");
  tvm_device *d;
  if (tvm_target_probe(t) != TVM_OK) {
    printf("skipped: %s\n", tvm_diag_message());
    tvm_target_free(t);
    skip();
  }
  if (tvm_device_open(t, &d) != TVM_OK)
    fail_msg("device_open: %s", tvm_diag_message());
  static const tvm_dtype f16 = {kDLFloat, 16, 1}, bf16 = {kDLBfloat, 16, 1};
  int64_t M = 256, N = 128, K = 192;
  /* the defaults; double-buffered tiles (k by 32, and by 64: 81 KiB of
   * dynamic shared memory with the padding); unpadded tiles */
  static const char *const db[] = {"double_buffer", NULL};
  static const char *const db64[] = {"tile_k", "double_buffer", NULL};
  static const char *const nopad[] = {"pad_shared", NULL};
  static const char *const *const sets[] = {NULL, db, db64, nopad};
  static const int idx[][2] = {{0, 0}, {1, 0}, {2, 1}, {0, 0}};
  for (int r = 0; r < 8; r++) {
    int b = r % 2;
    tvm_ctx *c = tvm_ctx_create();
    gpu_case k = {0};
    wmma_compile("cuda-sm80", 80, b ? bf16 : f16, M, N, K, sets[r / 2],
                 idx[r / 2], c, &k.m, 0);
    k.name = b ? "wmma_bf16" : "wmma_f16";
    k.ntensors = 3;
    k.tnames[0] = "A", k.tnames[1] = "B", k.tnames[2] = "C";
    k.tsize[0] = M * K / 2, k.tsize[1] = K * N / 2, k.tsize[2] = M * N;
    k.out = 2;
    float *ref[2];
    for (int i = 0; i < 2; i++) {
      int64_t n = i ? K * N : M * K;
      ref[i] = malloc(sizeof(float) * (size_t)n);
      k.data[i] = malloc(2 * (size_t)n);
      for (int64_t e = 0; e < n; e++) {
        ref[i][e] = wmma_val(e, i);
        uint16_t h = to_16(ref[i][e], b);
        memcpy((char *)k.data[i] + 2 * e, &h, 2);
      }
    }
    k.data[2] = calloc((size_t)(M * N), sizeof(float));
    for (int64_t i = 0; i < M; i++)
      for (int64_t kk = 0; kk < K; kk++)
        for (int64_t j = 0; j < N; j++)
          k.data[2][i * N + j] += ref[0][i * K + kk] * ref[1][kk * N + j];
    gpu_case_run(t, d, &k);
    for (int i = 0; i < 3; i++) free(k.data[i]);
    free(ref[0]);
    free(ref[1]);
    tvm_ctx_destroy(c);
  }
  tvm_device_close(d);
  tvm_target_free(t);
}

/* The stub libcuda (no driver behind it) makes probe say UNAVAILABLE. */
static void test_probe_stub(void **state) {
  (void)state;
  const char *stub = TVM_CUDA_HOME "/lib64/stubs/libcuda.so";
  if (access(stub, R_OK) != 0) {
    printf("skipped: %s absent\n", stub);
    skip();
  }
  tvm_target *t = load("cuda-sm90");
  setenv("TVM_CUDA_DRIVER", stub, 1);
  tvm_status st = tvm_target_probe(t);
  unsetenv("TVM_CUDA_DRIVER");
  assert_int_equal(st, TVM_ERR_UNAVAILABLE);
  assert_non_null(strstr(tvm_diag_message(), "cuInit failed"));
  tvm_target_free(t);
}

/* The kernels on a real GPU, or a skip with the probe's reason. */
static void test_run(void **state) {
  (void)state;
  tvm_target *t = load("cuda-sm80");
  tvm_device *d;
  if (tvm_target_probe(t) != TVM_OK) {
    printf("skipped: %s\n", tvm_diag_message());
    tvm_target_free(t);
    skip();
  }
  if (tvm_device_open(t, &d) != TVM_OK)
    fail_msg("device_open: %s", tvm_diag_message());
  tvm_ctx *c = tvm_ctx_create();
  gpu_case cases[GPU_NCASES];
  gpu_cases_lower(t, c, cases);
  gpu_cases_run(t, d, cases, 1);
  gpu_cases_free(cases);
  tvm_ctx_destroy(c);
  tvm_device_close(d);
  tvm_target_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sm80),        cmocka_unit_test(test_sm90),
      cmocka_unit_test(test_thread_limit), cmocka_unit_test(test_half_compile),
      cmocka_unit_test(test_probe_stub),
      cmocka_unit_test(test_matmul_template),
      cmocka_unit_test(test_matmul_template_rejects),
      cmocka_unit_test(test_wmma_compile),
      cmocka_unit_test(test_wmma_declines),
      cmocka_unit_test(test_wmma_loops),
      cmocka_unit_test(test_wmma_run),
      cmocka_unit_test(test_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
