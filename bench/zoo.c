/*
 * bench/zoo.c - the model zoo end to end on the host CPU (llvm-cpu, two
 * threads): for every model, compile time and median run latency with
 * operator fusion and without (tvm_compile_options.fuse), and the speedup
 * fusion gives.
 *
 *   build/bench/zoo [runs] [model...]     (default 30 runs, every model)
 *
 * Each model is built from the zoo twice (tvm_compile rewrites its graph)
 * and compiled with fuse = 1 and fuse = 0; after two warm-up runs each,
 * the two plans run `runs` times interleaved (fused, unfused, fused, ...)
 * on the same seeded input, so that a noisy phase of the machine hits both
 * alike.  The two plans' outputs must agree (1e-3 of the largest
 * magnitude), else the row says so and the exit status is 1.  GFLOP is
 * the fused plan's floating-point work per run (the steps' flops).  Besides
 * the medians the table shows the fastest run of each plan: on a shared
 * machine it is the steadier figure.
 * ResNet-18's fused compile time is printed again at the end (the issue's
 * goal: under 2 s).  The plugin is found through TVM_PLUGIN_PATH, by
 * default the build tree's plugins/llvm-cpu/.libs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tvm/compiler.h"
#include "tvm/zoo.h"
#include "machine.h"

#define WARMUP 2

/* One compiled variant of a model. */
typedef struct variant {
  tvm_graph *g;
  tvm_plan *p;
  tvm_executor *e;
  double compile_ms, run_ms, min_ms;
  double *ms; /* per run */
  void *in;
  float *out; /* output 0 */
  int64_t nout;
} variant;

/* A compact CPU tensor over data with v's dtype and shape. */
static DLTensor tensor_of(const tvm_plan_value *v, void *data) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.device.device_type = kDLCPU;
  t.dtype = v->dtype;
  t.ndim = v->ndim;
  t.shape = (int64_t *)v->shape;
  t.data = data;
  return t;
}

/* Seeded input values: floats in [-1, 1), int64 ids in [0, 10000). */
static void fill_input(const tvm_plan_value *v, void *data) {
  uint64_t s = 1234;
  int64_t n = (int64_t)(v->nbytes / (v->dtype.bits / 8));
  for (int64_t k = 0; k < n; k++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    double u = (double)(s >> 11) * 0x1.0p-53;
    if (v->dtype.code == kDLFloat)
      ((float *)data)[k] = (float)(2.0 * u - 1.0);
    else
      ((int64_t *)data)[k] = (int64_t)(u * 10000.0);
  }
}

/* Frees a variant (any part may be missing). */
static void variant_free(variant *r) {
  tvm_executor_free(r->e);
  tvm_plan_free(r->p);
  tvm_graph_free(r->g);
  free(r->ms);
  free(r->in);
  free(r->out);
  memset(r, 0, sizeof *r);
}

/* Builds and compiles model name (fuse on or off), opens an executor with
 * the seeded input set and runs it WARMUP times; 0 on success. */
static int prepare(const char *name, const tvm_target *t, int fuse, int runs,
                   variant *r) {
  memset(r, 0, sizeof *r);
  r->ms = calloc((size_t)runs, sizeof(double));
  if (!r->ms || tvm_zoo_build(name, &r->g) != TVM_OK) goto fail;
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.fuse = fuse;
  double t0 = bench_now_ms();
  if (tvm_compile(r->g, t, &o, &r->p) != TVM_OK) goto fail;
  r->compile_ms = bench_now_ms() - t0;
  const tvm_plan *p = r->p;
  if (p->ninputs != 1 || p->noutputs < 1) {
    tvm_diag_set(TVM_ERR_INVALID, "expected one input, got %u", p->ninputs);
    goto fail;
  }
  const tvm_plan_value *iv = &p->values[p->inputs[0]];
  r->in = malloc(iv->nbytes);
  if (!r->in) goto fail;
  fill_input(iv, r->in);
  DLTensor x = tensor_of(iv, r->in);
  if (tvm_executor_create(p, t, &r->e) != TVM_OK ||
      tvm_executor_set_input(r->e, 0, &x) != TVM_OK)
    goto fail;
  for (int i = 0; i < WARMUP; i++)
    if (tvm_executor_run(r->e) != TVM_OK) goto fail;
  return 0;
fail:
  fprintf(stderr, "bench/zoo: %s (fuse %d): %s\n", name, fuse,
          tvm_diag_message());
  return 1;
}

/* Run i of variant r, timed. */
static int time_run(variant *r, int i) {
  double s = bench_now_ms();
  if (tvm_executor_run(r->e) != TVM_OK) return 1;
  r->ms[i] = bench_now_ms() - s;
  return 0;
}

/* The median of the runs, and output 0 read back; 0 on success. */
static int finish(variant *r, int runs) {
  const tvm_plan_value *ov = &r->p->values[r->p->outputs[0]];
  r->nout = (int64_t)(ov->nbytes / sizeof(float));
  r->out = malloc(ov->nbytes);
  if (!r->out) return 1;
  DLTensor y = tensor_of(ov, r->out);
  if (tvm_executor_get_output(r->e, 0, &y) != TVM_OK) return 1;
  qsort(r->ms, (size_t)runs, sizeof(double), bench_cmp_double);
  r->min_ms = r->ms[0];
  r->run_ms = runs % 2 ? r->ms[runs / 2]
                       : (r->ms[runs / 2 - 1] + r->ms[runs / 2]) / 2;
  return 0;
}

/* The largest difference of a and b relative to a's largest magnitude. */
static double rel_diff(const variant *a, const variant *b) {
  double scale = 1e-6, worst = 0;
  for (int64_t k = 0; k < a->nout; k++) scale = fmax(scale, fabs(a->out[k]));
  for (int64_t k = 0; k < a->nout; k++)
    worst = fmax(worst, fabs(a->out[k] - b->out[k]));
  return worst / scale;
}

/* Measures one model: both variants compiled, then runs interleaved
 * (fused, unfused, fused, ...) so that a noisy phase of the machine hits
 * both alike.  Prints the row; 0 on success. */
static int measure(const char *name, const tvm_target *t, int runs,
                   double *compile_fused) {
  variant f, u;
  int bad = prepare(name, t, 1, runs, &f) || prepare(name, t, 0, runs, &u);
  for (int i = 0; i < runs && !bad; i++)
    bad = time_run(&f, i) || time_run(&u, i);
  bad = bad || finish(&f, runs) || finish(&u, runs);
  if (bad) {
    fprintf(stderr, "bench/zoo: %s: %s\n", name, tvm_diag_message());
    printf("%-13s FAILED (see above)\n", name);
  } else {
    double d = rel_diff(&f, &u), flops = 0;
    for (uint32_t i = 0; i < f.p->nsteps; i++) flops += f.p->steps[i].flops;
    printf("%-13s %7.3f %5u %5u %8.0f %8.0f %9.3f %9.3f %6.2fx %9.3f %9.3f "
           "%6.2fx  %s\n",
           name, flops / 1e9, f.p->nsteps, u.p->nsteps, f.compile_ms,
           u.compile_ms,
           f.run_ms, u.run_ms, u.run_ms / f.run_ms, f.min_ms, u.min_ms,
           u.min_ms / f.min_ms, d <= 1e-3 ? "yes" : "NO");
    bad = d > 1e-3;
    *compile_fused = f.compile_ms;
  }
  fflush(stdout);
  variant_free(&f);
  variant_free(&u);
  return bad;
}

/* Prints the table; exit status 0 when every model compiled, ran and
 * agreed with itself unfused. */
int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 30, rc = 0;
  double r18_compile = -1;
  const char *const *names = tvm_zoo_names();
  tvm_target *t = NULL;
  if (runs < 1) runs = 30;
  bench_machine m;
  bench_machine_detect(&m);
  bench_machine_print(stdout, &m);
  if (!getenv("TVM_PLUGIN_PATH"))
    setenv("TVM_PLUGIN_PATH", BENCH_PLUGIN_DIR, 1);
  if (tvm_target_load(BENCH_TARGET_DIR "/llvm-cpu-2t.yaml", &t) != TVM_OK) {
    fprintf(stderr, "bench/zoo: %s\n", tvm_diag_message());
    return 1;
  }
  printf("model zoo on %s (target bench-llvm-cpu-2t)\ncompile ms; median "
         "run ms over %d runs after %d warm-up\n\n",
         tvm_target_info(t)->description ? tvm_target_info(t)->description
                                         : "llvm-cpu",
         runs, WARMUP);
  printf("%-13s %7s %5s %5s %8s %8s %9s %9s %7s %9s %9s %7s  %s\n", "", "",
         "steps",
         "steps", "compile", "compile", "median", "median", "fusion", "min",
         "min", "fusion", "outputs");
  printf("%-13s %7s %5s %5s %8s %8s %9s %9s %7s %9s %9s %7s  %s\n", "model",
         "GFLOP", "fused", "unf.", "ms fused", "ms unf.", "ms fused", "ms unf.",
         "speedup", "ms fused", "ms unf.", "speedup", "agree");
  for (const char *const *n = names; *n; n++) {
    int wanted = argc <= 2;
    for (int i = 2; i < argc; i++) wanted |= !strcmp(argv[i], *n);
    if (!wanted) continue;
    double c = -1;
    rc |= measure(*n, t, runs, &c);
    if (!strcmp(*n, "resnet18")) r18_compile = c;
  }
  if (r18_compile >= 0)
    printf("\nresnet18 compile time (fused, llvm-cpu): %.0f ms (goal: under "
           "2000 ms)\n",
           r18_compile);
  tvm_target_free(t);
  return rc;
}
