/*
 * bench/tune_model.c - quality and speed of the tuner's cost model on
 * measured configurations of a tuning log.
 *
 *   bench/tune_model MODEL TARGET LOG [HOLDOUT_PERCENT [REMEASURE_ROUNDS
 *                                      [FEATURE_SAMPLES]]]
 *
 * Compiles MODEL for TARGET with a hook that, for every workload with
 * error-free search records in LOG (the re-measurement records of
 * `--confirm` are left out), lowers each logged configuration (timing the
 * feature extraction) and keeps (features, GFLOP/s, task).  A config
 * measured several times (several tuners) keeps its mean.  With
 * REMEASURE_ROUNDS R > 0 every distinct config of a task is measured
 * again R times, each round all of the task's configs in a new shuffled
 * order, and its label is the fastest of those (labels less at the mercy
 * of the machine's slow spells than one logged measurement).  Then:
 *   - held-out: per task, HOLDOUT_PERCENT (default 20) of the configs,
 *     chosen by a fixed shuffle, are held out; the model is trained on
 *     the rest of all tasks and scores the held-out ones; pairwise
 *     ranking accuracy = share of held-out pairs of the same task (GFLOP/s
 *     differing by more than 2%, below which the VM's noise decides) that
 *     the model orders like the measurements;
 *   - 5-fold cross-validation over all configs, the accuracy counted
 *     over pairs more than 2, 5, 10 and 20% apart;
 *   - transfer: each task held out entirely, trained on the others;
 *   - prediction time per candidate: one batch call over the held-out
 *     rows, and one call per row, each divided by the rows (model only),
 *     plus the loop-program feature extraction per candidate: the whole
 *     lowering (measured candidates) and lowering to storage_flatten only
 *     (what the search scores with; the features must be the same);
 *   - with FEATURE_SAMPLES S > 0, the features-only lowering timed over S
 *     random configs of every task, whatever the log holds (the search's
 *     own mix of valid and template-rejected candidates).
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
  const tvm_tune_record *rec; /* its first record (the config) */
} row;

static row rows[MAXROWS];
static int nrows, ntasks;
static double feat_s, featonly_s;
static int nfeat;
static tvm_tune_log *lg;
static const char *target_name;
static const tvm_target *tgt;
static int remeasure; /* rounds of re-measurement, 0 = the log's labels */
static int fsamples; /* random configs per task timed for the features */
static double rand_s;
static int nrand, nrand_ok;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Re-measures rows [first, nrows) of kernel k in `remeasure` rounds, each
 * round every config once in a new shuffled order (so the machine's slow
 * spells fall on all alike); the label becomes the fastest of the
 * rounds. */
static void relabel(tvm_tune_kernel *k, int first) {
  int nc = nrows - first;
  if (remeasure <= 0 || nc < 2)
    return;
  tvm_tune_measure_opts mo;
  memset(&mo, 0, sizeof mo);
  mo.number = tgt->tuning.number;
  mo.repeat = tgt->tuning.repeat;
  mo.min_repeat_ms = tgt->tuning.min_repeat_ms;
  mo.timeout_s = tgt->tuning.timeout_s;
  mo.jobs = 2;
  tvm_tune_measurer *m = NULL;
  if (tvm_tune_measurer_create(k, &mo, &m)) {
    fprintf(stderr, "re-measure: %s\n", tvm_diag_message());
    exit(1);
  }
  double *best = calloc((size_t)nc, sizeof *best);
  int *ord = malloc((size_t)nc * sizeof *ord);
  tvm_tune_lowered *low = calloc((size_t)nc, sizeof *low);
  tvm_tune_lowered **ptr = malloc((size_t)nc * sizeof *ptr);
  tvm_tune_result *res = calloc((size_t)nc, sizeof *res);
  uint32_t sd = 777u + (uint32_t)first;
  for (int rd = 0; rd < remeasure; rd++) {
    for (int i = 0; i < nc; i++)
      ord[i] = i;
    for (int i = nc - 1; i > 0; i--) {
      sd = sd * 1664525u + 1013904223u;
      int j = (int)((sd >> 8) % (uint32_t)(i + 1)), x = ord[i];
      ord[i] = ord[j];
      ord[j] = x;
    }
    int n = 0;
    for (int i = 0; i < nc; i++) {
      tvm_config *c = tvm_config_create();
      tvm_tune_record_apply(rows[first + ord[i]].rec, c);
      if (tvm_tune_kernel_lower(k, c, 0, &low[i]) == TVM_OK)
        ptr[n++] = &low[i];
      else
        tvm_diag_clear(), ord[i] = -1;
      tvm_config_free(c);
    }
    if (tvm_tune_measure(m, ptr, n, res)) {
      fprintf(stderr, "re-measure: %s\n", tvm_diag_message());
      exit(1);
    }
    for (int i = 0, j = 0; i < nc; i++) {
      if (ord[i] < 0)
        continue;
      tvm_tune_result *r = &res[j++];
      if (!r->error && r->cost_s > 0 &&
          (best[ord[i]] == 0 || r->cost_s < best[ord[i]]))
        best[ord[i]] = r->cost_s;
      tvm_tune_lowered_free(&low[i]);
    }
  }
  for (int i = 0; i < nc; i++)
    if (best[i] > 0)
      rows[first + i].gf = tvm_tune_kernel_flops(k) / best[i] * 1e-9;
  tvm_tune_measurer_free(m);
  free(best);
  free(ord);
  free(low);
  free(ptr);
  free(res);
}

/* Times the features-only lowering of fsamples random configs of k
 * (valid or not, as the search meets them: an invalid one is rejected by
 * the template before lowering), independent of what the log holds. */
static void time_random(tvm_tune_kernel *k) {
  tvm_config *c = tvm_config_create();
  float f[TVM_TUNE_NFEATURES];
  if (tvm_tune_kernel_features(k, c, f) != TVM_OK) /* defines the space */
    tvm_diag_clear();
  uint64_t n = tvm_config_space_size(c);
  uint64_t sd = 0x9e3779b97f4a7c15ull ^ (uint64_t)nrand;
  for (int i = 0; n > 0 && i < fsamples; i++) {
    sd = sd * 6364136223846793005ull + 1442695040888963407ull;
    if (tvm_config_set_index(c, (sd >> 11) % n) != TVM_OK) {
      tvm_diag_clear();
      continue;
    }
    double t0 = now();
    tvm_status st = tvm_tune_kernel_features(k, c, f);
    rand_s += now() - t0;
    nrand++;
    nrand_ok += st == TVM_OK;
    if (st)
      tvm_diag_clear();
  }
  tvm_config_free(c);
}

/* The hook: lowers every logged config of this workload. */
static tvm_status hook(void *ud, tvm_tune_kernel *k, tvm_config *cfg) {
  (void)ud;
  if (tvm_tune_kernel_reused(k) || !cfg)
    return TVM_OK;
  if (fsamples > 0)
    time_random(k);
  const char *wl = tvm_tune_kernel_workload(k);
  int task = -1, first = nrows;
  for (int i = 0; i < tvm_tune_log_count(lg); i++) {
    const tvm_tune_record *r = tvm_tune_log_get(lg, i);
    if (r->error || r->confirmed || strcmp(r->workload, wl) ||
        strcmp(r->target, target_name))
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
    rows[nrows].rec = r;
    nrows++;
    tvm_tune_lowered_free(&l);
  }
  relabel(k, first);
  return TVM_OK;
}

/* Pairs whose GFLOP/s differ by at most this share are not counted. */
static double min_gap = 0.02;

/* Pairwise accuracy of scores p over the rows idx[0..n) (same task). */
static void pairs(const int *idx, const float *p, int n, long *right,
                  long *total) {
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++) {
      const row *x = &rows[idx[a]], *y = &rows[idx[b]];
      if (x->task != y->task)
        continue;
      double hi = x->gf > y->gf ? x->gf : y->gf;
      if (fabs(x->gf - y->gf) <= min_gap * hi)
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
    fprintf(stderr, "usage: %s MODEL TARGET LOG [HOLDOUT_PERCENT "
            "[REMEASURE_ROUNDS [FEATURE_SAMPLES]]]\n", argv[0]);
    return 2;
  }
  int hold = argc > 4 ? atoi(argv[4]) : 20;
  remeasure = argc > 5 ? atoi(argv[5]) : 0;
  fsamples = argc > 6 ? atoi(argv[6]) : 0;
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
  tgt = t;
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
  if (nrand > 0)
    printf("features of %d random configs (%d of them valid): %.0f us per "
           "candidate\n", nrand, nrand_ok, rand_s / nrand * 1e6);
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
  /* 5-fold cross-validation (every config held out once), by how far
   * apart a pair's measurements are: pairs closer than the machine's
   * noise are partly decided by it */
  static const double gaps[] = {0.02, 0.05, 0.10, 0.20};
  for (size_t gi = 0; gi < sizeof gaps / sizeof gaps[0]; gi++) {
    long right = 0, total = 0;
    min_gap = gaps[gi];
    for (int f = 0; f < 5; f++) {
      uint32_t s2 = 12345;
      for (int i = 0; i < nrows; i++) {
        s2 = s2 * 1664525u + 1013904223u;
        train[i] = (s2 >> 8) % 5 != (uint32_t)f;
      }
      double a = evaluate(train, NULL, NULL, &np);
      if (np > 0) {
        right += (long)lround(a * (double)np);
        total += np;
      }
    }
    printf("5-fold, pairs more than %.0f%% apart: pairwise ranking accuracy "
           "%.3f over %ld pairs\n", gaps[gi] * 100,
           total ? (double)right / total : NAN, total);
  }
  min_gap = 0.02;
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
