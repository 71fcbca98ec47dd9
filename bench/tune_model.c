/*
 * bench/tune_model.c - quality and speed of the tuner's cost model on
 * measured configurations of a tuning log.
 *
 *   bench/tune_model MODEL TARGET LOG [HOLDOUT_PERCENT]
 *
 * Compiles MODEL for TARGET with a hook that, for every workload with
 * error-free records in LOG, lowers each logged configuration (timing the
 * feature extraction) and keeps (features, GFLOP/s, task).  A config
 * measured several times (several tuners) keeps its mean.  Then:
 *   - held-out: per task, HOLDOUT_PERCENT (default 20) of the configs,
 *     chosen by a fixed shuffle, are held out; the model is trained on
 *     the rest of all tasks and scores the held-out ones; pairwise
 *     ranking accuracy = share of held-out pairs of the same task (GFLOP/s
 *     differing by more than 2%, below which the VM's noise decides) that
 *     the model orders like the measurements;
 *   - transfer: each task held out entirely, trained on the others;
 *   - prediction time per candidate: one batch call over the held-out
 *     rows, and one call per row, each divided by the rows (model only),
 *     plus the loop-program feature extraction per candidate: the whole
 *     lowering (measured candidates) and lowering to storage_flatten only
 *     (what the search scores with; the features must be the same).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tvm/compiler.h"
#include "tvm/tune.h"
#include "tvm/zoo.h"
#include "tvm/onnx.h"

#define MAXROWS 8192

typedef struct row {
  float x[TVM_TUNE_NFEATURES];
  double gf;
  int task, n;
  uint64_t key; /* hash of the config string */
} row;

static row rows[MAXROWS];
static int nrows, ntasks;
static double feat_s, featonly_s;
static int nfeat;
static tvm_tune_log *lg;
static const char *target_name;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The hook: lowers every logged config of this workload. */
static tvm_status hook(void *ud, tvm_tune_kernel *k, tvm_config *cfg) {
  (void)ud;
  if (tvm_tune_kernel_reused(k) || !cfg)
    return TVM_OK;
  const char *wl = tvm_tune_kernel_workload(k);
  int task = -1;
  for (int i = 0; i < tvm_tune_log_count(lg); i++) {
    const tvm_tune_record *r = tvm_tune_log_get(lg, i);
    if (r->error || strcmp(r->workload, wl) || strcmp(r->target, target_name))
      continue;
    if (task < 0)
      task = ntasks++;
    uint64_t key = tvm_hash_str(r->config_str ? r->config_str : "");
    /* the label: GFLOP/s of the record's cost (the fastest repeat), so
     * logs written before the tuner ranked by that cost read the same */
    double gf = tvm_tune_kernel_flops(k) / r->cost_s * 1e-9;
    int j;
    for (j = 0; j < nrows; j++)
      if (rows[j].task == task && rows[j].key == key)
        break;
    if (j < nrows) { /* measured again: running mean */
      rows[j].gf = (rows[j].gf * rows[j].n + gf) / (rows[j].n + 1);
      rows[j].n++;
      continue;
    }
    if (nrows == MAXROWS)
      break;
    tvm_config *c = tvm_config_create();
    tvm_tune_record_apply(r, c);
    tvm_tune_lowered l;
    float fo[TVM_TUNE_NFEATURES];
    double t0 = now();
    tvm_status st = tvm_tune_kernel_lower(k, c, 0, &l);
    double t1 = now();
    tvm_status st2 = tvm_tune_kernel_features(k, c, fo);
    feat_s += t1 - t0;
    featonly_s += now() - t1;
    nfeat++;
    tvm_config_free(c);
    if (st || st2) {
      if (!st)
        tvm_tune_lowered_free(&l);
      tvm_diag_clear();
      continue;
    }
    if (memcmp(fo, l.features, sizeof fo) != 0) {
      fprintf(stderr, "features of %s differ between the full and the "
              "features-only lowering\n", r->config_str);
      exit(1);
    }
    memcpy(rows[nrows].x, l.features, sizeof rows[nrows].x);
    rows[nrows].gf = gf;
    rows[nrows].task = task;
    rows[nrows].n = 1;
    rows[nrows].key = key;
    nrows++;
    tvm_tune_lowered_free(&l);
  }
  return TVM_OK;
}

/* Pairwise accuracy of scores p over the rows idx[0..n) (same task). */
static void pairs(const int *idx, const float *p, int n, long *right,
                  long *total) {
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++) {
      const row *x = &rows[idx[a]], *y = &rows[idx[b]];
      if (x->task != y->task)
        continue;
      double hi = x->gf > y->gf ? x->gf : y->gf;
      if (fabs(x->gf - y->gf) <= 0.02 * hi)
        continue;
      (*total)++;
      *right += (p[a] > p[b]) == (x->gf > y->gf);
    }
}

/* Trains on rows with train[i] and returns the accuracy on the others. */
static double evaluate(const unsigned char *train, double *pred_batch_us,
                       double *pred_one_us, long *npairs) {
  static float X[MAXROWS * TVM_TUNE_NFEATURES], Y[MAXROWS], P[MAXROWS];
  static int G[MAXROWS], test[MAXROWS];
  int ntr = 0, nte = 0;
  for (int i = 0; i < nrows; i++) {
    if (train[i]) {
      memcpy(X + (size_t)ntr * TVM_TUNE_NFEATURES, rows[i].x,
             sizeof rows[i].x);
      Y[ntr] = (float)rows[i].gf;
      G[ntr++] = rows[i].task;
    } else {
      test[nte++] = i;
    }
  }
  tvm_tune_model *m = NULL;
  if (tvm_tune_model_create(1, 1, &m) || tvm_tune_model_fit(m, X, Y, G, ntr)) {
    fprintf(stderr, "model: %s\n", tvm_diag_message());
    exit(1);
  }
  static float T[MAXROWS * TVM_TUNE_NFEATURES];
  for (int i = 0; i < nte; i++)
    memcpy(T + (size_t)i * TVM_TUNE_NFEATURES, rows[test[i]].x,
           sizeof rows[0].x);
  double t0 = now();
  tvm_tune_model_predict(m, T, nte, P);
  double t1 = now();
  float one;
  for (int i = 0; i < nte; i++)
    tvm_tune_model_predict(m, T + (size_t)i * TVM_TUNE_NFEATURES, 1, &one);
  double t2 = now();
  if (pred_batch_us)
    *pred_batch_us = nte ? (t1 - t0) / nte * 1e6 : 0;
  if (pred_one_us)
    *pred_one_us = nte ? (t2 - t1) / nte * 1e6 : 0;
  long right = 0, total = 0;
  pairs(test, P, nte, &right, &total);
  tvm_tune_model_free(m);
  *npairs = total;
  return total ? (double)right / total : NAN;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s MODEL TARGET LOG [HOLDOUT_PERCENT]\n", argv[0]);
    return 2;
  }
  int hold = argc > 4 ? atoi(argv[4]) : 20;
  tvm_target *t = NULL;
  tvm_graph *g = NULL;
  tvm_plan *p = NULL;
  if (!tvm_tune_model_available()) {
    fprintf(stderr, "built without XGBoost (apt-get install "
                    "libxgboost-dev)\n");
    return 77;
  }
  if (tvm_target_load(argv[2], &t) || tvm_tune_log_read(argv[3], &lg) ||
      (strncmp(argv[1], "zoo:", 4) == 0 ? tvm_zoo_build(argv[1] + 4, &g)
                                        : tvm_onnx_load(argv[1], &g))) {
    fprintf(stderr, "%s\n", tvm_diag_message());
    return 1;
  }
  target_name = t->name;
  tvm_tune_hooks h = {hook, NULL, NULL};
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.tune = &h;
  if (tvm_compile(g, t, &o, &p)) {
    fprintf(stderr, "%s\n", tvm_diag_message());
    return 1;
  }
  printf("%d distinct measured configs over %d tasks; per candidate: "
         "whole lowering %.0f us, features only (lowered to "
         "storage_flatten, what the search scores with) %.0f us\n",
         nrows, ntasks, nfeat ? feat_s / nfeat * 1e6 : 0,
         nfeat ? featonly_s / nfeat * 1e6 : 0);
  static unsigned char train[MAXROWS];
  uint32_t s = 12345;
  for (int i = 0; i < nrows; i++) {
    s = s * 1664525u + 1013904223u;
    train[i] = (s >> 8) % 100 >= (uint32_t)hold;
  }
  double pb, po;
  long np;
  double acc = evaluate(train, &pb, &po, &np);
  printf("held-out %d%%: pairwise ranking accuracy %.3f over %ld pairs; "
         "prediction %.2f us per candidate in one batch, %.1f us one at a "
         "time\n", hold, acc, np, pb, po);
  for (int task = 0; task < ntasks; task++) {
    for (int i = 0; i < nrows; i++)
      train[i] = rows[i].task != task;
    double a = evaluate(train, NULL, NULL, &np);
    printf("transfer to task %d (trained on the others): accuracy %.3f over "
           "%ld pairs\n", task, a, np);
  }
  tvm_plan_free(p);
  tvm_graph_free(g);
  tvm_tune_log_free(lg);
  tvm_target_free(t);
  return 0;
}
