/*
 * matmul_job.c - the matmul job: declare C = A x B (matmul_te.c), schedule
 * it with the target's "matmul" strategy, lower, build through the
 * target's plugin, and run it on the target's device.  Shared by
 * `tvmc matmul` (the README's main job) and bench/matmul.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matmul_job.h"
#include "tvm/graph.h"
#include "tvm/strategy.h"

/* --dump-ir hook: prints the function after the pass. */
static void dump_ir(void *ud, const char *pass, const tvm_func *f) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_func(&b, f);
  fprintf((FILE *)ud, "// after %s\n%s\n", pass, b.data ? b.data : "");
  tvm_strbuf_free(&b);
}

/* Deterministic fill in [-1, 1). */
static void fill(float *p, int64_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    p[i] = (float)((s >> 8) * (1.0 / 8388608.0) - 1.0);
  }
}

/* Allocates a device buffer of n floats and copies host data into it. */
static tvm_status upload(tvm_device *d, const float *h, int64_t n,
                         void **out) {
  tvm_status st = tvm_device_alloc(d, 0, (uint64_t)n * 4, 64, out);
  if (st != TVM_OK) return st;
  return tvm_device_copy(d, *out, 0, h, 0, (uint64_t)n * 4,
                         TVM_COPY_HOST_TO_DEVICE);
}

/* The width nr of B's column panels: the target's choice for a MatMul
 * node A[M, K] x B[K, N] (alter_layout; weight layout "NK<nr>n"); when a
 * target with threads says nothing (no alter_layout, or an empty answer),
 * 0: no packing, the product a MatMul node gives it, scheduled by its
 * MatMul strategy; any other target gets the core's default, the largest
 * of 16, 8, 4, 2, 1 that divides N. */
static tvm_status packing_width(const tvm_target *t, int64_t M, int64_t N,
                                int64_t K, int *nr) {
  tvm_graph *g = NULL;
  tvm_gnode *node = NULL;
  tvm_plugin_layout L;
  tvm_status st = tvm_graph_create(&g);
  *nr = 16;
  while (*nr > 1 && N % *nr) *nr /= 2;
  if (st != TVM_OK) return st;
  tvm_gvalue *in[2] = {
      tvm_graph_input(g, "A", TVM_F32, (int64_t[]){M, K}, 2),
      tvm_graph_input(g, "B", TVM_F32, (int64_t[]){K, N}, 2)};
  tvm_graph_apply(g, "MatMul", "matmul", in, 2, NULL, 0, 1, &node);
  if ((st = tvm_graph_status(g)) == TVM_OK &&
      (st = tvm_target_alter_layout(t, node, &L)) == TVM_OK && L.weight[0]) {
    int w = 0;
    char tail[4] = "";
    if (sscanf(L.weight, "NK%dn%3s", &w, tail) != 1 || w <= 0 || w > 4096)
      st = tvm_diag_set(TVM_ERR_INVALID,
                        "target '%s' asks for matmul weight layout '%s'; "
                        "expected NK<nr>n (B in panels of nr columns)",
                        t->name, L.weight);
    else
      *nr = w;
  } else if (st == TVM_OK) {
    tvm_lower_options lo;
    tvm_lower_options_init(&lo);
    tvm_target_lower_options(t, &lo);
    if (lo.has_threads) *nr = 0;
  }
  tvm_graph_free(g);
  return st;
}

/* Builds the job; on failure everything allocated so far is freed by
 * tvmc_matmul_free (which the caller calls in every case). */
tvm_status tvmc_matmul_build(const tvm_target *t, int64_t M, int64_t N,
                             int64_t K, const tvmc_matmul_opts *o,
                             tvmc_matmul_job *job) {
  tvm_strategy_env *env = NULL;
  tvm_schedule *s = NULL;
  tvm_lower_options lo;
  tvm_module m = {0};
  tvmc_matmul_te te;
  tvm_device *d;
  tvm_status st;
  int nr;

  memset(job, 0, sizeof *job);
  job->M = M, job->N = N, job->K = K;
  job->target = t;
  job->ctx = tvm_ctx_create();
  job->cfg = tvm_config_create();
  if (!job->ctx || !job->cfg) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  if ((st = packing_width(t, M, N, K, &nr)) != TVM_OK) return st;
  st = tvmc_matmul_declare(job->ctx, job->cfg, M, N, K, nr, &te);
  if (st != TVM_OK) return st;
  /* the strategy rule of every compilation (tvm/strategy.h): "matmul"
   * strategies (the packed job) or "MatMul" ones (unpacked) by name, then
   * contraction-pattern ones and the default, then the core's generic
   * schedule; a failure is an error */
  st = tvm_strategy_env_create(t, job->ctx, &env);
  if (st == TVM_OK)
    st = tvm_strategy_schedule(env, nr ? "matmul" : "MatMul",
                               TVM_PAT_OUT_ELEMWISE_FUSABLE, NULL, &te.C, 1,
                               job->cfg, &s, &job->strategy);
  tvm_strategy_env_free(env);
  if (st != TVM_OK) goto out;
  tvm_lower_options_init(&lo);
  tvm_target_lower_options(t, &lo);
  if (o && o->dump_pass) {
    lo.dump_pass = o->dump_pass;
    lo.dump = dump_ir;
    lo.dump_ud = o->dump_to ? o->dump_to : stdout;
  }
  m.ctx = job->ctx;
  st = tvm_lower(s, (tvm_tensor *[]){te.A, te.B, te.C}, 3, "matmul", &lo, &m);
  if (st != TVM_OK) goto out;
  /* on a device target, the host function runs as a host program that
   * launches the device kernels, as in a compiled graph */
  st = tvm_callable_build(t, &m, "matmul", NULL, &job->func);
  if (st != TVM_OK) goto out;

  job->hA = malloc((size_t)(M * K) * sizeof(float));
  job->hB = malloc((size_t)(K * N) * sizeof(float));
  job->hC = malloc((size_t)(M * N) * sizeof(float));
  if (!job->hA || !job->hB || !job->hC) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "matmul: out of host memory");
    goto out;
  }
  fill(job->hA, M * K, 1);
  fill(job->hB, K * N, 2);
  d = tvm_callable_device(job->func);
  if ((st = upload(d, job->hA, M * K, &job->dA)) != TVM_OK) goto out;
  if ((st = upload(d, job->hB, K * N, &job->dB)) != TVM_OK) goto out;
  st = tvm_device_alloc(d, 0, (uint64_t)(M * N) * 4, 64, &job->dC);
out:
  tvm_schedule_free(s);
  return st;
}

/* The three buffer arguments of the kernel. */
static void make_args(tvmc_matmul_job *job, tvm_plugin_arg a[3]) {
  memset(a, 0, 3 * sizeof *a);
  a[0].type = a[1].type = a[2].type = TVM_ARG_PTR;
  a[0].v.ptr = job->dA;
  a[1].v.ptr = job->dB;
  a[2].v.ptr = job->dC;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

tvm_status tvmc_matmul_time(tvmc_matmul_job *job, int number, int repeat,
                            double *median_ms) {
  tvm_plugin_arg a[3];
  double *ms;
  tvm_status st;
  if (repeat < 1) repeat = 1;
  ms = calloc((size_t)repeat, sizeof *ms);
  if (!ms) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  make_args(job, a);
  st = tvm_callable_time(job->func, a, 3, number, repeat, ms);
  if (st == TVM_OK) {
    qsort(ms, (size_t)repeat, sizeof *ms, cmp_double);
    *median_ms = ms[repeat / 2];
  }
  free(ms);
  return st;
}

tvm_status tvmc_matmul_check(tvmc_matmul_job *job, int samples,
                             double *max_rel) {
  tvm_plugin_arg a[3];
  tvm_device *d = tvm_callable_device(job->func);
  int64_t M = job->M, N = job->N, K = job->K;
  uint32_t s = 12345;
  tvm_status st;

  make_args(job, a);
  if ((st = tvm_callable_call(job->func, a, 3)) != TVM_OK) return st;
  st = tvm_device_copy(d, job->hC, 0, job->dC, 0, (uint64_t)(M * N) * 4,
                       TVM_COPY_DEVICE_TO_HOST);
  if (st != TVM_OK) return st;
  *max_rel = 0;
  for (int n = 0; n < samples; n++) {
    int64_t i, j;
    double ref = 0, scale = 0, err;
    s = s * 1664525u + 1013904223u;
    i = (int64_t)(s % (uint32_t)M);
    s = s * 1664525u + 1013904223u;
    j = (int64_t)(s % (uint32_t)N);
    for (int64_t k = 0; k < K; k++) {
      double p = (double)job->hA[i * K + k] * job->hB[k * N + j];
      ref += p;
      scale += fabs(p);
    }
    err = fabs(job->hC[i * N + j] - ref) / (scale > 0 ? scale : 1);
    if (err > *max_rel) *max_rel = err;
  }
  return TVM_OK;
}

void tvmc_matmul_free(tvmc_matmul_job *job) {
  tvm_device *d = job->func ? tvm_callable_device(job->func) : NULL;
  if (d) {
    if (job->dA) tvm_device_free(d, 0, job->dA);
    if (job->dB) tvm_device_free(d, 0, job->dB);
    if (job->dC) tvm_device_free(d, 0, job->dC);
  }
  tvm_callable_free(job->func);
  free(job->hA);
  free(job->hB);
  free(job->hC);
  if (job->cfg) tvm_config_free(job->cfg);
  if (job->ctx) tvm_ctx_destroy(job->ctx);
  memset(job, 0, sizeof *job);
}
