/*
 * bench/kernels.c - single kernels against the vendor libraries, in one
 * interleaved run: the ResNet-18 convolutions (with their fused bias and
 * ReLU) and MobileNetV2's depthwise and pointwise layers against oneDNN,
 * SGEMM (1024^3 and awkward shapes: M in {1, 16, 64}, N and K not
 * multiples of 16) against OpenBLAS and oneDNN, and batched products of
 * two activations (the attention products of BERT and ViT encoders:
 * Q x K^T and softmax(.) x V per head) against a loop of cblas_sgemm /
 * dnnl_sgemm calls over the batch.
 *
 *   build/bench/kernels [threads=1] [rounds=5] [runs_per_round=8]
 *                       [conv|dw|gemm|bmm ...] [tune=N] [log=FILE]
 *
 * tvm-c: each layer is a one-operator graph (Conv + bias + Relu, or
 * MatMul with a constant right-hand side) compiled for llvm-cpu with the
 * given thread count; a run's time is the sum, over the kernels that
 * compute the layer, of one of `runs` back-to-back executions of each
 * after an untimed one (tvm_executor_time_step), as each peer's call is
 * timed (the layout transforms into and out of NCHW16c, which a whole
 * network pays once, are left out, as oneDNN's reorders are; the batched
 * products count every step, since both of their operands change with
 * every run).  With tune=N every templated
 * kernel is first tuned with N measurements (tvm_tune_task, xgb when
 * built in) and compiled with the best configuration found; without it,
 * the templates' defaults.  oneDNN: the same convolution with layouts of its own
 * choosing (format "any"), bias and a ReLU post-op, no reorders timed;
 * dnnl_sgemm.  OpenBLAS: cblas_sgemm, OPENBLAS_CORETYPE from the detected
 * ISA (bench/machine.c).  Each round times every side in turn after a
 * 200 ms pause (the other side's idle workers stop spinning) and at
 * least 20 ms (and 3 calls) of untimed back-to-back calls of that side
 * (the core's clock ramps up again), each run on its own clock; figures
 * are medians over all rounds*runs runs (a mean would let one preempted run of a
 * 20-microsecond kernel on a 2-vCPU VM decide its row).  Ratios are
 * throughput ours/peer: above 1.0 means tvm-c is faster.  The output starts with the CPU model, ISA and
 * measured FMA peak.
 */
#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.h>

#include "inputs.h"
#include "machine.h"
#include "tvm/compiler.h"
#include "tvm/runtime.h"
#include "tvm/target.h"
#include "tvm/tune.h"

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void pause_ms(int ms) { usleep((useconds_t)ms * 1000); }

/* Untimed back-to-back calls of a side before its samples, after its
 * 200 ms pause: at least BENCH_WARM_MS (bench/machine.h) and 3 calls. */
enum { WARM_CALLS = 3 };

/* ---- layers ---------------------------------------------------------------- */
typedef struct layer {
  const char *name;
  int c, k, h, r, s, g; /* in channels, out channels, size, kernel, stride,
                           groups */
} layer;

/* ResNet-18's distinct convolutions (batch 1, 224x224 input). */
static const layer resnet18[] = {
    {"conv1 7x7/2 3->64 224", 3, 64, 224, 7, 2, 1},
    {"3x3 64->64 56", 64, 64, 56, 3, 1, 1},
    {"3x3/2 64->128 56", 64, 128, 56, 3, 2, 1},
    {"1x1/2 64->128 56", 64, 128, 56, 1, 2, 1},
    {"3x3 128->128 28", 128, 128, 28, 3, 1, 1},
    {"3x3/2 128->256 28", 128, 256, 28, 3, 2, 1},
    {"1x1/2 128->256 28", 128, 256, 28, 1, 2, 1},
    {"3x3 256->256 14", 256, 256, 14, 3, 1, 1},
    {"3x3/2 256->512 14", 256, 512, 14, 3, 2, 1},
    {"1x1/2 256->512 14", 256, 512, 14, 1, 2, 1},
    {"3x3 512->512 7", 512, 512, 7, 3, 1, 1},
};
/* MobileNetV2's depthwise and pointwise layers (a representative set). */
static const layer mobilenet[] = {
    {"dw 3x3 32 112", 32, 32, 112, 3, 1, 32},
    {"dw 3x3/2 96 112", 96, 96, 112, 3, 2, 96},
    {"dw 3x3 144 56", 144, 144, 56, 3, 1, 144},
    {"dw 3x3 192 28", 192, 192, 28, 3, 1, 192},
    {"dw 3x3 384 14", 384, 384, 14, 3, 1, 384},
    {"dw 3x3 960 7", 960, 960, 7, 3, 1, 960},
    {"pw 1x1 32->16 112", 32, 16, 112, 1, 1, 1},
    {"pw 1x1 16->96 112", 16, 96, 112, 1, 1, 1},
    {"pw 1x1 144->24 56", 144, 24, 56, 1, 1, 1},
    {"pw 1x1 192->64 14", 192, 64, 14, 1, 1, 1},
    {"pw 1x1 384->64 14", 384, 64, 14, 1, 1, 1},
    {"pw 1x1 960->320 7", 960, 320, 7, 1, 1, 1},
};

typedef struct gemm_shape {
  int m, n, k;
} gemm_shape;
static const gemm_shape gemms[] = {
    {1024, 1024, 1024}, {1, 1000, 512}, {1, 1001, 999}, {16, 1000, 1000},
    {16, 250, 333},     {64, 1001, 999}, {64, 500, 257},
};

/* Batched products C[b] = A[b] x B[b] of two activations. */
typedef struct bmm_shape {
  const char *name;
  int b, m, n, k;
} bmm_shape;
static const bmm_shape bmms[] = {
    {"bert_small QK^T", 4, 128, 128, 64},  {"bert_small AV", 4, 128, 64, 128},
    {"bert_base QK^T", 12, 128, 128, 64},  {"bert_base AV", 12, 128, 64, 128},
    {"vit_tiny QK^T", 3, 197, 197, 64},    {"vit_tiny AV", 3, 197, 64, 197},
};

static int out_size(const layer *l) {
  int pad = l->r / 2;
  return (l->h + 2 * pad - l->r) / l->s + 1;
}

static double conv_flops(const layer *l) {
  int o = out_size(l);
  return 2.0 * l->k * o * o * (l->c / l->g) * l->r * l->r;
}

/* ---- tvm-c --------------------------------------------------------------- */
typedef struct ours {
  tvm_graph *g;
  tvm_plan *p;
  tvm_executor *e;
  int *counted; /* steps that compute the layer (not layout transforms) */
} ours;

static void ours_free(ours *o) {
  tvm_executor_free(o->e);
  tvm_plan_free(o->p);
  tvm_graph_free(o->g);
  free(o->counted);
  memset(o, 0, sizeof *o);
}

/* "tune=N": every templated kernel is tuned (N measurements, xgb when
 * built in, else random; tvm_tune_task as `tvmc tune` runs it) and
 * compiled with its best configuration before it is timed. */
static int tune_trials;
static tvm_tune_model *tune_cost;
static tvm_tune_data *tune_data;
static int tune_group;
static double tune_seconds;
static FILE *tune_log;

static tvm_status tune_hook(void *ud, tvm_tune_kernel *k, tvm_config *cfg) {
  const tvm_target *t = ud;
  if (!cfg || tvm_tune_kernel_reused(k))
    return TVM_OK;
  tvm_tune_task_opts o;
  memset(&o, 0, sizeof o);
  o.tuner = tune_cost ? TVM_TUNER_XGB : TVM_TUNER_RANDOM;
  o.trials = tune_trials;
  o.batch = 8;
  o.seed = 1;
  o.group = tune_group++;
  o.measure.number = t->tuning.number;
  o.measure.repeat = t->tuning.repeat;
  o.measure.min_repeat_ms = t->tuning.min_repeat_ms;
  o.measure.timeout_s = t->tuning.timeout_s;
  o.measure.jobs = 2;
  o.model = tune_cost;
  o.data = tune_data;
  o.target_name = t->name;
  o.log = tune_log;
  tvm_tune_task_result res;
  memset(&res, 0, sizeof res);
  tvm_status st = tvm_tune_task(k, cfg, &o, &res);
  tune_seconds += res.seconds;
  tvm_free(res.curve);
  return st;
}

/* Compiles g (one layer) for t and feeds its inputs. */
static int ours_prepare(ours *o, const tvm_target *t) {
  tvm_compile_options co;
  tvm_compile_options_init(&co);
  tvm_tune_hooks hooks = {tune_hook, (void *)t, NULL};
  if (tune_trials > 0)
    co.tune = &hooks;
  if (tvm_compile(o->g, t, &co, &o->p) != TVM_OK ||
      tvm_executor_create(o->p, t, &o->e) != TVM_OK)
    return 1;
  if (bench_set_inputs(o->e, o->p) != TVM_OK) return 1;
  o->counted = calloc(o->p->nsteps + 1, sizeof *o->counted);
  for (uint32_t s = 0; s < o->p->nsteps; s++)
    o->counted[s] = !strstr(o->p->steps[s].label, "LayoutTransform");
  return tvm_executor_run(o->e) != TVM_OK;
}

/* `runs` samples: ms[i] is the i-th of `runs` back-to-back executions of
 * each counted step (after one untimed execution: tvm_executor_time_step),
 * summed over the counted steps; as dnn_run and the BLAS loops time the
 * peers. */
static int ours_time(ours *o, int runs, double *ms) {
  double t0 = bench_now_ms();
  for (int i = 0; !bench_warm_done(t0, i, WARM_CALLS); i++)
    if (tvm_executor_run(o->e) != TVM_OK) return 1;
  double *one = malloc(sizeof(double) * (size_t)runs);
  if (!one) return 1;
  for (int i = 0; i < runs; i++) ms[i] = 0;
  for (uint32_t s = 0; s < o->p->nsteps; s++) {
    if (!o->counted[s]) continue;
    if (tvm_executor_time_step(o->e, s, runs, one) != TVM_OK) {
      free(one);
      return 1;
    }
    for (int i = 0; i < runs; i++) ms[i] += one[i];
  }
  free(one);
  return 0;
}

static int ours_conv(ours *o, const layer *l, const tvm_target *t) {
  if (tvm_graph_create(&o->g) != TVM_OK) return 1;
  tvm_graph *g = o->g;
  int64_t xs[4] = {1, l->c, l->h, l->h};
  int64_t ws[4] = {l->k, l->c / l->g, l->r, l->r};
  int64_t bs[3] = {l->k, 1, 1};
  int pad = l->r / 2;
  tvm_gvalue *x = tvm_graph_input(g, "x", TVM_F32, xs, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", ws, 4, 1, 0.1);
  tvm_gvalue *b = tvm_graph_random(g, "b", bs, 3, 2, 0.1);
  tvm_gvalue *y = TVM_OP(
      g, "Conv", TVM_IN(x, w),
      TVM_ATTRS(tvm_gattr_ints("strides", (int64_t[]){l->s, l->s}, 2),
                tvm_gattr_ints("pads", (int64_t[]){pad, pad, pad, pad}, 4),
                tvm_gattr_ints("kernel_shape", (int64_t[]){l->r, l->r}, 2),
                tvm_gattr_int("group", l->g)));
  y = TVM_OP(g, "Add", TVM_IN(y, b), TVM_NOATTRS);
  y = TVM_OP(g, "Relu", TVM_IN(y), TVM_NOATTRS);
  if (!y || tvm_graph_mark_output(g, y) != TVM_OK) return 1;
  return ours_prepare(o, t);
}

static int ours_gemm(ours *o, const gemm_shape *m, const tvm_target *t) {
  if (tvm_graph_create(&o->g) != TVM_OK) return 1;
  tvm_graph *g = o->g;
  int64_t as[2] = {m->m, m->k}, bs[2] = {m->k, m->n};
  tvm_gvalue *a = tvm_graph_input(g, "a", TVM_F32, as, 2);
  tvm_gvalue *b = tvm_graph_random(g, "b", bs, 2, 3, 0.1);
  tvm_gvalue *y = TVM_OP(g, "MatMul", TVM_IN(a, b), TVM_NOATTRS);
  if (!y || tvm_graph_mark_output(g, y) != TVM_OK) return 1;
  return ours_prepare(o, t);
}

/* A batched MatMul of two graph inputs; every step is counted. */
static int ours_bmm(ours *o, const bmm_shape *m, const tvm_target *t) {
  if (tvm_graph_create(&o->g) != TVM_OK) return 1;
  tvm_graph *g = o->g;
  int64_t as[3] = {m->b, m->m, m->k}, bs[3] = {m->b, m->k, m->n};
  tvm_gvalue *a = tvm_graph_input(g, "a", TVM_F32, as, 3);
  tvm_gvalue *b = tvm_graph_input(g, "b", TVM_F32, bs, 3);
  tvm_gvalue *y = TVM_OP(g, "MatMul", TVM_IN(a, b), TVM_NOATTRS);
  if (!y || tvm_graph_mark_output(g, y) != TVM_OK) return 1;
  if (ours_prepare(o, t)) return 1;
  for (uint32_t s = 0; s < o->p->nsteps; s++) o->counted[s] = 1;
  return 0;
}

/* ---- oneDNN ---------------------------------------------------------------- */
typedef struct dnn {
  dnnl_engine_t eng;
  dnnl_stream_t stream;
  dnnl_primitive_t prim;
  dnnl_memory_t mem[4]; /* src, weights, bias, dst */
} dnn;

#define DNN_OK(x) ((x) == dnnl_success)

static void dnn_free(dnn *d) {
  for (int i = 0; i < 4; i++)
    if (d->mem[i]) dnnl_memory_destroy(d->mem[i]);
  if (d->prim) dnnl_primitive_destroy(d->prim);
  memset(d->mem, 0, sizeof d->mem);
  d->prim = NULL;
}

/* Fills a oneDNN memory with small values (content does not change the
 * speed of a float convolution, but denormals or NaNs could). */
static void dnn_fill(dnnl_memory_t m) {
  void *p = NULL;
  const dnnl_memory_desc_t *md = NULL;
  dnnl_memory_get_memory_desc(m, &md);
  dnnl_memory_get_data_handle(m, &p);
  size_t n = dnnl_memory_desc_get_size(md) / 4;
  for (size_t i = 0; i < n; i++)
    ((float *)p)[i] = (float)((i * 40503u) % 1000) / 1000.0f - 0.5f;
}

static int dnn_conv(dnn *d, const layer *l) {
  int o = out_size(l), pad = l->r / 2;
  dnnl_memory_desc_t src, wei, bia, dst;
  dnnl_dims_t xs = {1, l->c, l->h, l->h}, ys = {1, l->k, o, o};
  dnnl_dims_t bs = {l->k}, st = {l->s, l->s}, pd = {pad, pad};
  if (l->g > 1) {
    dnnl_dims_t ws = {l->g, l->k / l->g, l->c / l->g, l->r, l->r};
    if (!DNN_OK(dnnl_memory_desc_init_by_tag(&wei, 5, ws, dnnl_f32,
                                             dnnl_format_tag_any)))
      return 1;
  } else {
    dnnl_dims_t ws = {l->k, l->c, l->r, l->r};
    if (!DNN_OK(dnnl_memory_desc_init_by_tag(&wei, 4, ws, dnnl_f32,
                                             dnnl_format_tag_any)))
      return 1;
  }
  if (!DNN_OK(dnnl_memory_desc_init_by_tag(&src, 4, xs, dnnl_f32,
                                           dnnl_format_tag_any)) ||
      !DNN_OK(dnnl_memory_desc_init_by_tag(&dst, 4, ys, dnnl_f32,
                                           dnnl_format_tag_any)) ||
      !DNN_OK(dnnl_memory_desc_init_by_tag(&bia, 1, bs, dnnl_f32,
                                           dnnl_x)))
    return 1;
  dnnl_convolution_desc_t cd;
  if (!DNN_OK(dnnl_convolution_forward_desc_init(
          &cd, dnnl_forward_inference, dnnl_convolution_direct, &src, &wei,
          &bia, &dst, st, pd, pd)))
    return 1;
  dnnl_post_ops_t po;
  dnnl_primitive_attr_t attr;
  dnnl_post_ops_create(&po);
  dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f);
  dnnl_primitive_attr_create(&attr);
  dnnl_primitive_attr_set_post_ops(attr, po);
  dnnl_primitive_desc_t pdesc;
  int bad = !DNN_OK(dnnl_primitive_desc_create(&pdesc, &cd, attr, d->eng,
                                               NULL));
  dnnl_post_ops_destroy(po);
  dnnl_primitive_attr_destroy(attr);
  if (bad) return 1;
  const dnnl_query_t q[4] = {dnnl_query_src_md, dnnl_query_weights_md,
                             dnnl_query_weights_md, dnnl_query_dst_md};
  const int qi[4] = {0, 0, 1, 0};
  for (int i = 0; i < 4 && !bad; i++) {
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pdesc, q[i],
                                                               qi[i]);
    bad = !md || !DNN_OK(dnnl_memory_create(&d->mem[i], md, d->eng,
                                            DNNL_MEMORY_ALLOCATE));
    if (!bad) dnn_fill(d->mem[i]);
  }
  bad = bad || !DNN_OK(dnnl_primitive_create(&d->prim, pdesc));
  dnnl_primitive_desc_destroy(pdesc);
  return bad;
}

/* `runs` samples after one untimed run: ms[i] is one execution. */
static int dnn_run(dnn *d, int runs, double *ms) {
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, d->mem[0]},
                             {DNNL_ARG_WEIGHTS, d->mem[1]},
                             {DNNL_ARG_BIAS, d->mem[2]},
                             {DNNL_ARG_DST, d->mem[3]}};
  double w0 = bench_now_ms();
  for (int i = 0; !bench_warm_done(w0, i, WARM_CALLS); i++) {
    if (!DNN_OK(dnnl_primitive_execute(d->prim, d->stream, 4, args)))
      return 1;
    dnnl_stream_wait(d->stream);
  }
  for (int i = -1; i < runs; i++) {
    double t0 = bench_now_ms();
    if (!DNN_OK(dnnl_primitive_execute(d->prim, d->stream, 4, args)))
      return 1;
    dnnl_stream_wait(d->stream);
    if (i >= 0) ms[i] = bench_now_ms() - t0;
  }
  return 0;
}

/* ---- the driver ----------------------------------------------------------- */
typedef struct opts {
  int threads, rounds, runs;
  const tvm_target *t;
  dnn *d;
} opts;

static double geo_sum;
static int geo_n, below;

static int bench_conv(const opts *op, const layer *l, double floor) {
  ours o = {0};
  dnn *d = op->d;
  int n = op->rounds * op->runs;
  double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
  int rc = 0;
  if (ours_conv(&o, l, op->t)) {
    printf("%-24s tvm-c failed: %s\n", l->name, tvm_diag_message());
    rc = 1;
    goto out;
  }
  if (dnn_conv(d, l)) {
    printf("%-24s oneDNN failed to create the primitive\n", l->name);
    rc = 1;
    goto out;
  }
  for (int r = 0; r < op->rounds; r++) {
    pause_ms(200);
    if (ours_time(&o, op->runs, &a[r * op->runs])) {
      rc = 1;
      goto out;
    }
    pause_ms(200);
    if (dnn_run(d, op->runs, &b[r * op->runs])) {
      rc = 1;
      goto out;
    }
  }
  double ma = median(a, n), mb = median(b, n);
  double f = conv_flops(l);
  double ratio = mb / ma;
  printf("%-24s %9.3f %8.1f %9.3f %8.1f %7.2fx%s\n", l->name, ma,
         f / ma / 1e6, mb, f / mb / 1e6, ratio,
         ratio < floor ? "  (below goal)" : "");
  geo_sum += log(ratio);
  geo_n++;
  below += ratio < floor;
out:
  ours_free(&o);
  dnn_free(d);
  free(a);
  free(b);
  return rc;
}

/* One run of `batch` row-major products C[h] = A[h] x B[h] (M x K by
 * K x N, back to back in A, B, C) through peer q: 0 cblas_sgemm, 1
 * dnnl_sgemm. */
static void sgemm_batch(int q, int batch, int M, int N, int K,
                        const float *A, const float *B, float *C) {
  size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
  for (int h = 0; h < batch; h++)
    if (q == 0)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f,
                  A + h * na, K, B + h * nb, N, 0.0f, C + h * nc, N);
    else
      dnnl_sgemm('N', 'N', M, N, K, 1.0f, A + h * na, K, B + h * nb, N, 0.0f,
                 C + h * nc, N);
}

/* `runs` samples of each peer: blas[i] and dnn[i] are the ms of one
 * sgemm_batch, each peer after a 200 ms pause, its warm-up and one
 * untimed run. */
static void peers_sgemm(int runs, int batch, int M, int N, int K,
                        const float *A, const float *B, float *C,
                        double *blas, double *dnn) {
  double *out[2] = {blas, dnn};
  for (int q = 0; q < 2; q++) {
    pause_ms(200);
    double w0 = bench_now_ms();
    for (int i = 0; !bench_warm_done(w0, i, WARM_CALLS); i++)
      sgemm_batch(q, batch, M, N, K, A, B, C);
    for (int i = -1; i < runs; i++) {
      double t0 = bench_now_ms();
      sgemm_batch(q, batch, M, N, K, A, B, C);
      if (i >= 0) out[q][i] = bench_now_ms() - t0;
    }
  }
}

static int bench_gemm(const opts *op, const gemm_shape *m) {
  ours o = {0};
  int rc = 0, R = op->rounds, n = R * op->runs;
  double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
  double *c = calloc((size_t)n, sizeof *c);
  float *A = malloc(sizeof(float) * (size_t)m->m * m->k);
  float *B = malloc(sizeof(float) * (size_t)m->k * m->n);
  float *C = malloc(sizeof(float) * (size_t)m->m * m->n);
  for (long i = 0; i < (long)m->m * m->k; i++) A[i] = (float)(i % 7) * 0.1f;
  for (long i = 0; i < (long)m->k * m->n; i++) B[i] = (float)(i % 5) * 0.1f;
  if (ours_gemm(&o, m, op->t)) {
    printf("%5d %5d %5d  tvm-c failed: %s\n", m->m, m->n, m->k,
           tvm_diag_message());
    rc = 1;
    goto out;
  }
  for (int r = 0; r < R; r++) {
    pause_ms(200);
    if (ours_time(&o, op->runs, &a[r * op->runs])) {
      rc = 1;
      goto out;
    }
    peers_sgemm(op->runs, 1, m->m, m->n, m->k, A, B, C, &b[r * op->runs],
                &c[r * op->runs]);
  }
  double f = 2.0 * m->m * m->n * m->k;
  double ma = median(a, n), mb = median(b, n), mc = median(c, n);
  double best = mb < mc ? mb : mc;
  printf("%5d %5d %5d %9.4f %8.1f %9.4f %8.1f %9.4f %8.1f %7.2fx\n", m->m,
         m->n, m->k, ma, f / ma / 1e6, mb, f / mb / 1e6, mc, f / mc / 1e6,
         best / ma);
out:
  ours_free(&o);
  free(a);
  free(b);
  free(c);
  free(A);
  free(B);
  free(C);
  return rc;
}

static int bench_bmm(const opts *op, const bmm_shape *m) {
  ours o = {0};
  int rc = 0, R = op->rounds, n = R * op->runs;
  double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
  double *c = calloc((size_t)n, sizeof *c);
  size_t na = (size_t)m->m * m->k, nb = (size_t)m->k * m->n,
         nc = (size_t)m->m * m->n;
  float *A = malloc(sizeof(float) * na * m->b);
  float *B = malloc(sizeof(float) * nb * m->b);
  float *C = malloc(sizeof(float) * nc * m->b);
  for (size_t i = 0; i < na * m->b; i++) A[i] = (float)(i % 7) * 0.1f;
  for (size_t i = 0; i < nb * m->b; i++) B[i] = (float)(i % 5) * 0.1f;
  if (ours_bmm(&o, m, op->t)) {
    printf("%-16s tvm-c failed: %s\n", m->name, tvm_diag_message());
    rc = 1;
    goto out;
  }
  for (int r = 0; r < R; r++) {
    pause_ms(200);
    if (ours_time(&o, op->runs, &a[r * op->runs])) {
      rc = 1;
      goto out;
    }
    peers_sgemm(op->runs, m->b, m->m, m->n, m->k, A, B, C, &b[r * op->runs],
                &c[r * op->runs]);
  }
  double f = 2.0 * m->b * m->m * m->n * m->k;
  double ma = median(a, n), mb = median(b, n), mc = median(c, n);
  double best = mb < mc ? mb : mc;
  printf("%-16s %3d %4d %4d %4d %9.4f %8.1f %9.4f %8.1f %9.4f %8.1f %7.2fx\n",
         m->name, m->b, m->m, m->n, m->k, ma, f / ma / 1e6, mb, f / mb / 1e6,
         mc, f / mc / 1e6, best / ma);
out:
  ours_free(&o);
  free(a);
  free(b);
  free(c);
  free(A);
  free(B);
  free(C);
  return rc;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  int runs = argc > 3 ? atoi(argv[3]) : 8;
  int want_conv = argc <= 4, want_dw = argc <= 4, want_gemm = argc <= 4;
  int want_bmm = argc <= 4, nsel = 0;
  for (int i = 4; i < argc; i++) {
    if (!strncmp(argv[i], "tune=", 5)) { /* not a selector */
      tune_trials = atoi(argv[i] + 5);
      continue;
    }
    if (!strncmp(argv[i], "log=", 4)) {
      if (!(tune_log = fopen(argv[i] + 4, "a"))) {
        fprintf(stderr, "bench/kernels: %s: %s\n", argv[i] + 4,
                strerror(errno));
        return 1;
      }
      continue;
    }
    want_conv |= !strcmp(argv[i], "conv");
    want_dw |= !strcmp(argv[i], "dw");
    want_gemm |= !strcmp(argv[i], "gemm");
    want_bmm |= !strcmp(argv[i], "bmm");
    nsel++;
  }
  if (!nsel) /* only options: every group */
    want_conv = want_dw = want_gemm = want_bmm = 1;
  if (threads < 1 || threads > 2 || rounds < 1 || runs < 1 ||
      tune_trials < 0) {
    fprintf(stderr, "usage: %s [threads=1|2] [rounds>0] [runs>0] "
                    "[conv|dw|gemm|bmm ...] [tune=N] [log=FILE]\n",
            argv[0]);
    return 2;
  }
  if (!getenv("OPENBLAS_CORETYPE")) {
    setenv("OPENBLAS_CORETYPE", bench_openblas_coretype(), 1);
    execv("/proc/self/exe", argv);
    perror("bench/kernels: re-exec with OPENBLAS_CORETYPE set");
    return 1;
  }
  if (!getenv("TVM_PLUGIN_PATH"))
    setenv("TVM_PLUGIN_PATH", BENCH_PLUGIN_DIR, 1);
  bench_machine m;
  bench_machine_detect(&m);
  bench_machine_print(stdout, &m);
  openblas_set_num_threads(threads);
  omp_set_num_threads(threads);
  char yaml[512];
  snprintf(yaml, sizeof yaml, "%s/llvm-cpu-%dt.yaml", BENCH_TARGET_DIR,
           threads);
  tvm_target *t = NULL;
  if (tvm_target_load(yaml, &t) != TVM_OK) {
    fprintf(stderr, "bench/kernels: %s\n", tvm_diag_message());
    return 1;
  }
  const dnnl_version_t *dv = dnnl_version();
  printf("# %d thread(s); oneDNN %d.%d.%d; OpenBLAS %s, OPENBLAS_CORETYPE=%s; "
         "median of %d rounds x %d runs, each run timed; "
         "ratio = throughput ours/peer\n",
         threads, dv->major, dv->minor, dv->patch, openblas_get_config(),
         getenv("OPENBLAS_CORETYPE"), rounds, runs);
  dnn d = {0};
  if (!DNN_OK(dnnl_engine_create(&d.eng, dnnl_cpu, 0)) ||
      !DNN_OK(dnnl_stream_create(&d.stream, d.eng,
                                 dnnl_stream_default_flags))) {
    fprintf(stderr, "bench/kernels: oneDNN engine creation failed\n");
    return 1;
  }
  if (tune_trials > 0) {
    if (tvm_tune_model_available() &&
        (tvm_tune_model_create(threads, 1, &tune_cost) != TVM_OK ||
         !(tune_data = tvm_tune_data_new()))) {
      fprintf(stderr, "bench/kernels: %s\n", tvm_diag_message());
      return 1;
    }
    printf("# tuned: every templated kernel tuned with %d %s measurements "
           "before it is timed\n", tune_trials,
           tune_cost ? "xgb" : "random");
  }
  opts op = {threads, rounds, runs, t, &d};
  int rc = 0;
  const char *hdr = "%-24s %9s %8s %9s %8s %8s\n";
  if (want_conv) {
    printf("\nResNet-18 conv2d + bias + ReLU vs oneDNN (goal: geomean >= "
           "0.90x, no layer < 0.75x)\n");
    printf(hdr, "layer", "tvm-c ms", "GFLOP/s", "oneDNN ms", "GFLOP/s",
           "ratio");
    geo_sum = 0, geo_n = 0, below = 0;
    for (size_t i = 0; i < sizeof resnet18 / sizeof *resnet18; i++)
      rc |= bench_conv(&op, &resnet18[i], 0.75);
    if (geo_n)
      printf("geometric mean %.2fx over %d layers; %d below 0.75x\n",
             exp(geo_sum / geo_n), geo_n, below);
  }
  if (want_dw) {
    printf("\nMobileNetV2 depthwise/pointwise + bias + ReLU vs oneDNN "
           "(goal: >= 1.00x)\n");
    printf(hdr, "layer", "tvm-c ms", "GFLOP/s", "oneDNN ms", "GFLOP/s",
           "ratio");
    geo_sum = 0, geo_n = 0, below = 0;
    for (size_t i = 0; i < sizeof mobilenet / sizeof *mobilenet; i++)
      rc |= bench_conv(&op, &mobilenet[i], 1.0);
    if (geo_n)
      printf("geometric mean %.2fx over %d layers; %d below 1.00x\n",
             exp(geo_sum / geo_n), geo_n, below);
  }
  if (want_gemm) {
    printf("\nSGEMM C = A x B (row-major) vs OpenBLAS and oneDNN (goal: >= "
           "0.95x the better peer; above both on awkward shapes)\n");
    printf("%5s %5s %5s %9s %8s %9s %8s %9s %8s %8s\n", "M", "N", "K",
           "tvm-c ms", "GFLOP/s", "OpenBLAS", "GFLOP/s", "oneDNN", "GFLOP/s",
           "vs best");
    for (size_t i = 0; i < sizeof gemms / sizeof *gemms; i++)
      rc |= bench_gemm(&op, &gemms[i]);
  }
  if (want_bmm) {
    printf("\nBatched C[b] = A[b] x B[b], both operands inputs, vs a loop of "
           "sgemm calls (goal: >= 0.90x the better peer)\n");
    printf("%-16s %3s %4s %4s %4s %9s %8s %9s %8s %9s %8s %8s\n", "product",
           "b", "M", "N", "K", "tvm-c ms", "GFLOP/s", "OpenBLAS", "GFLOP/s",
           "oneDNN", "GFLOP/s", "vs best");
    for (size_t i = 0; i < sizeof bmms / sizeof *bmms; i++)
      rc |= bench_bmm(&op, &bmms[i]);
  }
  if (tune_trials > 0)
    printf("\n# tuning took %.0f s in all (%d kernels)\n", tune_seconds,
           tune_group);
  tvm_tune_model_free(tune_cost);
  if (tune_log) fclose(tune_log);
  tvm_tune_data_free(tune_data);
  dnnl_stream_destroy(d.stream);
  dnnl_engine_destroy(d.eng);
  tvm_target_free(t);
  return rc;
}
