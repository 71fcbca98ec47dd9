/*
 * core/tune/search.c - tuning one task: the search loop shared by the
 * three tuners, so they differ only in how they pick the next batch.
 *
 *   - the space is recorded by running the template once; a config is an
 *     index into the product of its knobs (tvm/config.h);
 *   - the template's default is measured first (the untuned baseline);
 *   - prior records of the workload (--resume) count as measured;
 *   - each round picks `batch` unmeasured, valid candidates, lowers them
 *     (rejected ones are recorded as "invalid" without building), has
 *     them built and timed (measure.c), logs every result (flushed), and
 *     stops at the trial budget, when the space is exhausted, or after
 *     `patience` trials without a 1% gain.
 *
 * Pickers:
 *   random  uniform over unmeasured indices;
 *   ga      a population of the best measured configs; children by
 *           tournament selection, uniform crossover of knob values and a
 *           per-knob mutation;
 *   xgb     the cost model (model.c) is refitted on all measurements of
 *           all tasks so far; parallel simulated annealing (16 chains, a
 *           move changes one knob, acceptance exp(dscore / T), T falling
 *           linearly to 0) walks the space scoring candidates by the model;
 *           the batch is the best-scored unmeasured candidates seen, kept
 *           at least two knobs apart from each other while possible
 *           (diversity), plus a 20% share of random picks.  Until the model
 *           has two measurements to rank, picks are random.
 * Features of a candidate come from its lowered loop program and are
 * cached per index (a candidate is lowered once for scoring).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tvm/tune.h"

/* ---- training data ---------------------------------------------------------- */

struct tvm_tune_data {
  float *x, *y;
  int *group;
  int n, cap;
};

tvm_tune_data *tvm_tune_data_new(void) {
  return tvm_calloc(1, sizeof(tvm_tune_data));
}

void tvm_tune_data_free(tvm_tune_data *d) {
  if (!d)
    return;
  tvm_free(d->x);
  tvm_free(d->y);
  tvm_free(d->group);
  tvm_free(d);
}

int tvm_tune_data_count(const tvm_tune_data *d) { return d ? d->n : 0; }

tvm_status tvm_tune_data_add(tvm_tune_data *d, const float *x, float y,
                             int group) {
  if (d->n == d->cap) {
    int nc = d->cap ? d->cap * 2 : 256;
    float *nx = tvm_realloc(d->x, sizeof(float) * (size_t)nc *
                                      TVM_TUNE_NFEATURES);
    if (!nx)
      return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
    d->x = nx;
    float *ny = tvm_realloc(d->y, sizeof(float) * (size_t)nc);
    if (!ny)
      return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
    d->y = ny;
    int *ng = tvm_realloc(d->group, sizeof(int) * (size_t)nc);
    if (!ng)
      return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
    d->group = ng;
    d->cap = nc;
  }
  memcpy(d->x + (size_t)d->n * TVM_TUNE_NFEATURES, x,
         sizeof(float) * TVM_TUNE_NFEATURES);
  d->y[d->n] = y;
  d->group[d->n] = group;
  d->n++;
  return TVM_OK;
}

void tvm_tune_data_rows(const tvm_tune_data *d, const float **x,
                        const float **y, const int **group) {
  *x = d->x;
  *y = d->y;
  *group = d->group;
}

/* ---- tuner names ------------------------------------------------------------ */

static const char *const tuner_names[] = {"xgb", "random", "ga"};

tvm_status tvm_tuner_parse(const char *name, int *out) {
  for (int i = 0; i < 3; i++)
    if (name && strcmp(name, tuner_names[i]) == 0) {
      *out = i;
      return TVM_OK;
    }
  return tvm_diag_set(TVM_ERR_INVALID,
                      "unknown tuner '%s' (xgb, random or ga)",
                      name ? name : "");
}

const char *tvm_tuner_name(int tuner) {
  return tuner >= 0 && tuner < 3 ? tuner_names[tuner] : "?";
}

/* ---- the search state ----------------------------------------------------- */

enum { ST_NEW = 0, ST_MEASURED = 1, ST_INVALID = 2 };

typedef struct cand_info {
  uint64_t idx;
  unsigned char used;      /* slot in use */
  unsigned char state;     /* ST_* */
  unsigned char have_feat; /* 1 = features cached, 2 = lowering failed */
  float feat[TVM_TUNE_NFEATURES];
  double gflops; /* measured; 0 on error */
} cand_info;

typedef struct search {
  tvm_tune_kernel *k;
  tvm_config *cfg; /* the recorded space */
  const tvm_tune_task_opts *o;
  uint64_t size;
  int nknobs;
  uint64_t rng;
  cand_info *tab; /* every index seen: open addressing, power-of-two size */
  size_t tabcap, tabn;
  int measured;
  double best;
  uint64_t best_idx;
  int have_best;
  tvm_tune_task_result *res;
} search;

static uint64_t rnd(search *s) {
  uint64_t x = s->rng;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  s->rng = x;
  return x;
}

static double rnd01(search *s) { return (double)(rnd(s) >> 11) * 0x1p-53; }

static size_t slot_of(uint64_t idx, size_t cap) {
  return (size_t)((idx + 1) * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
}

/* The entry of idx; created (zeroed) when create, else NULL if absent. */
static cand_info *lookup(search *s, uint64_t idx, int create) {
  if (create && (s->tabn + 1) * 2 > s->tabcap) {
    size_t nc = s->tabcap ? s->tabcap * 2 : 1024;
    cand_info *nt = tvm_calloc(nc, sizeof *nt);
    if (!nt)
      return NULL;
    for (size_t i = 0; i < s->tabcap; i++) {
      if (!s->tab[i].used)
        continue;
      size_t h = slot_of(s->tab[i].idx, nc);
      while (nt[h].used)
        h = (h + 1) & (nc - 1);
      nt[h] = s->tab[i];
    }
    tvm_free(s->tab);
    s->tab = nt;
    s->tabcap = nc;
  }
  if (!s->tabcap)
    return NULL;
  size_t h = slot_of(idx, s->tabcap);
  while (s->tab[h].used) {
    if (s->tab[h].idx == idx)
      return &s->tab[h];
    h = (h + 1) & (s->tabcap - 1);
  }
  if (!create)
    return NULL;
  memset(&s->tab[h], 0, sizeof s->tab[h]);
  s->tab[h].used = 1;
  s->tab[h].idx = idx;
  s->tabn++;
  return &s->tab[h];
}

/* Knob entries of an index (first knob fastest). */
static void digits(const search *s, uint64_t idx, int *d) {
  for (int i = 0; i < s->nknobs; i++) {
    uint64_t c = (uint64_t)tvm_config_knob(s->cfg, i)->nchoices;
    d[i] = (int)(idx % c);
    idx /= c;
  }
}

static uint64_t undigits(const search *s, const int *d) {
  uint64_t idx = 0, radix = 1;
  for (int i = 0; i < s->nknobs; i++) {
    idx += radix * (uint64_t)d[i];
    radix *= (uint64_t)tvm_config_knob(s->cfg, i)->nchoices;
  }
  return idx;
}

static int hamming(const search *s, uint64_t a, uint64_t b) {
  int da[64], db[64], n = 0;
  digits(s, a, da);
  digits(s, b, db);
  for (int i = 0; i < s->nknobs; i++)
    n += da[i] != db[i];
  return n;
}

/* Features of idx (lowered once, cached); NULL when it does not lower or
 * the template rejects it (then marked invalid). */
static const float *features_of(search *s, uint64_t idx) {
  cand_info *c = lookup(s, idx, 1);
  if (!c)
    return NULL;
  if (c->have_feat == 0) {
    c->have_feat = 2;
    if (tvm_config_set_index(s->cfg, idx) == TVM_OK &&
        tvm_tune_kernel_features(s->k, s->cfg, c->feat) == TVM_OK) {
      c->have_feat = 1;
    } else if (tvm_config_rejected(s->cfg)) {
      c->state = ST_INVALID;
    }
    tvm_diag_clear();
  }
  return c->have_feat == 1 ? c->feat : NULL;
}

static int is_new(search *s, uint64_t idx) {
  cand_info *c = lookup(s, idx, 0);
  return !c || c->state == ST_NEW;
}

/* Adds idx to picks[] unless already there. */
static int add_pick(uint64_t *picks, int n, uint64_t idx) {
  for (int i = 0; i < n; i++)
    if (picks[i] == idx)
      return n;
  picks[n] = idx;
  return n + 1;
}

/* Up to want random unmeasured indices appended to picks (n so far). */
static int pick_random(search *s, uint64_t *picks, int n, int want) {
  int tries = 0;
  while (n < want && tries++ < want * 64) {
    uint64_t idx = rnd(s) % s->size;
    if (is_new(s, idx))
      n = add_pick(picks, n, idx);
  }
  if (n < want && s->size <= 1u << 20) /* nearly exhausted: scan */
    for (uint64_t idx = 0; idx < s->size && n < want; idx++)
      if (is_new(s, idx))
        n = add_pick(picks, n, idx);
  return n;
}

/* Measured entries, best first (heap array; *n entries). */
static cand_info **measured_sorted(search *s, int *n) {
  cand_info **v = tvm_malloc(sizeof *v * (s->tabn + 1));
  *n = 0;
  if (!v)
    return NULL;
  for (size_t i = 0; i < s->tabcap; i++)
    if (s->tab[i].used && s->tab[i].state == ST_MEASURED)
      v[(*n)++] = &s->tab[i];
  for (int i = 1; i < *n; i++) { /* insertion sort: small */
    cand_info *t = v[i];
    int j = i - 1;
    while (j >= 0 && v[j]->gflops < t->gflops) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = t;
  }
  return v;
}

/* Genetic algorithm: children of the best measured configurations. */
static int pick_ga(search *s, uint64_t *picks, int want) {
  int nm = 0, n = 0;
  cand_info **pop = measured_sorted(s, &nm);
  if (!pop || nm < 2) {
    tvm_free(pop);
    return pick_random(s, picks, 0, want);
  }
  int npop = nm < 16 ? nm : 16;
  for (int tries = 0; n < want && tries < want * 50; tries++) {
    int pa[64], pb[64], ch[64];
    int a = (int)(rnd(s) % (uint64_t)npop), b = (int)(rnd(s) % (uint64_t)npop);
    int a2 = (int)(rnd(s) % (uint64_t)npop), b2 = (int)(rnd(s) % (uint64_t)npop);
    a = a < a2 ? a : a2; /* tournament of two: lower rank wins */
    b = b < b2 ? b : b2;
    digits(s, pop[a]->idx, pa);
    digits(s, pop[b]->idx, pb);
    for (int i = 0; i < s->nknobs; i++) {
      ch[i] = rnd(s) & 1 ? pa[i] : pb[i];
      int nc = tvm_config_knob(s->cfg, i)->nchoices;
      if (rnd01(s) < 0.15)
        ch[i] = (int)(rnd(s) % (uint64_t)nc);
    }
    uint64_t idx = undigits(s, ch);
    if (is_new(s, idx))
      n = add_pick(picks, n, idx);
  }
  tvm_free(pop);
  return pick_random(s, picks, n, want);
}

typedef struct scored {
  uint64_t idx;
  float score;
} scored;

static int cmp_scored(const void *a, const void *b) {
  float x = ((const scored *)a)->score, y = ((const scored *)b)->score;
  return x > y ? -1 : x < y;
}

/* Model-guided: parallel simulated annealing on the model's scores. */
static tvm_status pick_xgb(search *s, uint64_t *picks, int want, int *n_out) {
  enum { CHAINS = 16, STEPS = 24, MAXSEEN = 1024 };
  const tvm_tune_task_opts *o = s->o;
  *n_out = 0;
  /* no model yet, or a space of one point (no knob to move: the chains'
   * moves below pick a knob at random) */
  if (!o->model || !o->data || tvm_tune_data_count(o->data) < 2 ||
      s->nknobs == 0) {
    *n_out = pick_random(s, picks, 0, want);
    return TVM_OK;
  }
  double t0 = tvm_now_s();
  const float *x, *y;
  const int *g;
  tvm_tune_data_rows(o->data, &x, &y, &g);
  tvm_status st = tvm_tune_model_fit(o->model, x, y, g,
                                     tvm_tune_data_count(o->data));
  if (st)
    return st;
  scored seen[MAXSEEN];
  int nseen = 0;
  uint64_t cur[CHAINS];
  float cur_sc[CHAINS];
  /* start chains at the best measured points and random ones */
  int nm = 0;
  cand_info **pop = measured_sorted(s, &nm);
  for (int c = 0; c < CHAINS; c++)
    cur[c] = c < nm / 2 && pop ? pop[c]->idx : rnd(s) % s->size;
  tvm_free(pop);
  float batch_x[CHAINS * TVM_TUNE_NFEATURES];
  for (int step = 0; step <= STEPS; step++) {
    uint64_t prop[CHAINS];
    int ok[CHAINS];
    for (int c = 0; c < CHAINS; c++) {
      prop[c] = cur[c];
      if (step > 0) { /* move: change one knob */
        int d[64];
        digits(s, cur[c], d);
        int kk = (int)(rnd(s) % (uint64_t)s->nknobs);
        int nc = tvm_config_knob(s->cfg, kk)->nchoices;
        d[kk] = (int)(rnd(s) % (uint64_t)nc);
        prop[c] = undigits(s, d);
      }
      const float *f = features_of(s, prop[c]);
      ok[c] = f != NULL;
      memcpy(batch_x + c * TVM_TUNE_NFEATURES,
             f ? f : batch_x, sizeof(float) * TVM_TUNE_NFEATURES);
    }
    float sc[CHAINS];
    if ((st = tvm_tune_model_predict(o->model, batch_x, CHAINS, sc)))
      return st;
    double temp = 1.0 - (double)step / STEPS;
    for (int c = 0; c < CHAINS; c++) {
      if (!ok[c])
        continue;
      int dup = 0;
      for (int i = 0; i < nseen && !dup; i++)
        dup = seen[i].idx == prop[c];
      if (!dup && nseen < MAXSEEN && is_new(s, prop[c]))
        seen[nseen++] = (scored){prop[c], sc[c]};
      if (step == 0 || sc[c] >= cur_sc[c] ||
          (temp > 0 && rnd01(s) < exp((sc[c] - cur_sc[c]) / (temp * 0.5)))) {
        cur[c] = prop[c];
        cur_sc[c] = sc[c];
      }
    }
  }
  qsort(seen, (size_t)nseen, sizeof *seen, cmp_scored);
  int n = 0, model_share = want - want / 5;
  for (int pass = 0; pass < 2 && n < model_share; pass++)
    for (int i = 0; i < nseen && n < model_share; i++) {
      int close = 0;
      for (int j = 0; pass == 0 && j < n && !close; j++)
        close = hamming(s, picks[j], seen[i].idx) < 2;
      if (!close)
        n = add_pick(picks, n, seen[i].idx);
    }
  n = pick_random(s, picks, n, want);
  *n_out = n;
  s->res->model_seconds += tvm_now_s() - t0;
  return TVM_OK;
}

/* ---- the loop ------------------------------------------------------------- */

/* Appends the record of config idx to the log: error, costs (seconds),
 * throughput; confirmed marks a re-measurement record. */
static tvm_status log_write(search *s, uint64_t idx, int error,
                            const double *costs, int ncosts, double gf,
                            int confirmed) {
  tvm_tune_record rec;
  memset(&rec, 0, sizeof rec);
  tvm_status st = tvm_config_set_index(s->cfg, idx);
  if (!st)
    st = tvm_tune_record_set_config(&rec, s->cfg);
  rec.workload = (char *)tvm_tune_kernel_workload(s->k);
  rec.target = (char *)s->o->target_name;
  rec.tmpl = (char *)tvm_tune_kernel_template(s->k);
  rec.error = error;
  rec.ncosts = ncosts < 16 ? ncosts : 16;
  memcpy(rec.costs, costs, sizeof(double) * (size_t)rec.ncosts);
  rec.gflops = gf;
  rec.time = (double)time(NULL);
  rec.confirmed = confirmed;
  if (!st)
    st = tvm_tune_record_write(s->o->log, &rec);
  rec.workload = rec.target = rec.tmpl = NULL;
  tvm_tune_record_clear(&rec);
  return st;
}

/* Records one measured (or failed) candidate: table, curve, data, log. */
static tvm_status record(search *s, uint64_t idx, const tvm_tune_result *r,
                         int from_prior) {
  const tvm_tune_task_opts *o = s->o;
  cand_info *c = lookup(s, idx, 1);
  if (!c)
    return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
  double flops = tvm_tune_kernel_flops(s->k);
  double gf = !r->error && r->cost_s > 0 ? flops / r->cost_s * 1e-9 : 0;
  c->state = r->error == TVM_TUNE_ERR_INVALID ? ST_INVALID : ST_MEASURED;
  c->gflops = gf;
  if (r->error != TVM_TUNE_ERR_INVALID) {
    s->measured++;
    if (!s->have_best || gf > s->best) {
      if (gf > 0) {
        s->best = gf;
        s->best_idx = idx;
        s->have_best = 1;
        s->res->best_cost_s = r->cost_s;
      }
    }
    tvm_tune_task_result *res = s->res;
    double *nc = tvm_realloc(res->curve, sizeof(double) *
                                             (size_t)(res->ncurve + 1));
    if (!nc)
      return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
    res->curve = nc;
    res->curve[res->ncurve++] = s->have_best ? s->best : 0;
    if (from_prior)
      res->resumed++;
    else
      res->trials++;
  }
  if (r->error >= 0 && r->error < 8 && !from_prior)
    s->res->errors[r->error]++;
  /* training row: relevance is throughput relative to the best so far is
   * not stable, so raw GFLOP/s is used (ranking is within the task) */
  if (o->data && r->error != TVM_TUNE_ERR_INVALID) {
    const float *f = features_of(s, idx);
    if (f) {
      tvm_status st = tvm_tune_data_add(o->data, f, (float)gf, o->group);
      if (st)
        return st;
    }
  }
  if (o->log && !from_prior) {
    tvm_status st = log_write(s, idx, r->error, r->costs, r->ncosts, gf, 0);
    if (st)
      return st;
  }
  if (o->progress)
    o->progress(o->progress_ud, s->res->trials + s->res->resumed, o->trials,
                s->have_best ? s->best : 0);
  return TVM_OK;
}

/* The index of a prior record in this space, or UINT64_MAX when its knobs
 * do not match the space (an older template). */
static uint64_t record_index(search *s, const tvm_tune_record *r) {
  int d[64];
  if (r->nknobs != s->nknobs)
    return UINT64_MAX;
  for (int i = 0; i < s->nknobs; i++) {
    const tvm_knob *k = tvm_config_knob(s->cfg, i);
    if (strcmp(k->name, r->knobs[i]) != 0 || r->idx[i] >= k->nchoices ||
        (r->nent && r->nent[i] != k->nchoices))
      return UINT64_MAX;
    d[i] = r->idx[i];
  }
  return undigits(s, d);
}

/* Lowers and measures picks[0..n); invalid ones recorded without a build. */
static tvm_status run_batch(search *s, tvm_tune_measurer *m,
                            const uint64_t *picks, int n) {
  tvm_tune_lowered low[64];
  tvm_tune_lowered *ptr[64];
  uint64_t idx[64];
  int nl = 0;
  tvm_status st = TVM_OK;
  for (int i = 0; i < n && i < 64 && !st; i++) {
    tvm_tune_result r;
    memset(&r, 0, sizeof r);
    if ((st = tvm_config_set_index(s->cfg, picks[i])))
      break;
    tvm_status ls = tvm_tune_kernel_lower(s->k, s->cfg, 0, &low[nl]);
    if (ls) {
      r.error = tvm_config_rejected(s->cfg) ? TVM_TUNE_ERR_INVALID
                                            : TVM_TUNE_ERR_LOWER;
      snprintf(r.msg, sizeof r.msg, "%s", tvm_diag_message());
      tvm_diag_clear();
      st = record(s, picks[i], &r, 0);
      continue;
    }
    idx[nl] = picks[i];
    ptr[nl] = &low[nl];
    nl++;
  }
  tvm_tune_result res[64];
  if (!st && nl)
    st = tvm_tune_measure(m, ptr, nl, res);
  for (int i = 0; i < nl; i++) {
    if (!st)
      st = record(s, idx[i], &res[i], 0);
    tvm_tune_lowered_free(&low[i]);
  }
  return st;
}

/* Measures default and best n times each, alternately (default, best,
 * default, ...), one candidate per batch; medians into s->res, and each
 * config's measurements logged as one re-measurement record (its cost the
 * median: what the compile's choice between them goes by).  *keep: the
 * faster of the two by the medians (the default on a tie).  A best that
 * is the default is measured 2n times all the same, as one pool and one
 * record (two medians of one config differ by the machine's noise only). */
static tvm_status confirm(search *s, tvm_tune_measurer *m, uint64_t dflt,
                          uint64_t best, int n, uint64_t *keep) {
  double cd[16], cb[8];
  int nd = 0, nb = 0;
  double flops = tvm_tune_kernel_flops(s->k);
  int same = best == dflt; /* the best is the default: one pool */
  for (int i = 0; i < 2 * n; i++) {
    uint64_t idx = i % 2 ? best : dflt;
    tvm_tune_lowered l, *lp = &l;
    tvm_tune_result r;
    tvm_status st = tvm_config_set_index(s->cfg, idx);
    if (!st)
      st = tvm_tune_kernel_lower(s->k, s->cfg, 0, &l);
    if (st) {
      tvm_diag_clear();
      continue;
    }
    st = tvm_tune_measure(m, &lp, 1, &r);
    tvm_tune_lowered_free(&l);
    if (st)
      return st;
    if (r.error || !(r.cost_s > 0))
      continue;
    if (i % 2 && !same)
      cb[nb++] = r.cost_s;
    else
      cd[nd++] = r.cost_s;
  }
  double md = tvm_tune_cost_median(cd, nd), mb = tvm_tune_cost_median(cb, nb);
  s->res->confirm_default_gflops = md > 0 ? flops / md * 1e-9 : 0;
  s->res->confirm_best_gflops = same     ? s->res->confirm_default_gflops
                                : mb > 0 ? flops / mb * 1e-9
                                         : 0;
  *keep = nb && (!nd || s->res->confirm_best_gflops >
                            s->res->confirm_default_gflops)
              ? best
              : nd ? dflt : best;
  s->res->confirm_kept_default = *keep == dflt && !same;
  tvm_status st = TVM_OK;
  if (s->o->log && nd)
    st = log_write(s, dflt, TVM_TUNE_OK, cd, nd,
                   s->res->confirm_default_gflops, 1);
  if (!st && s->o->log && nb)
    st = log_write(s, best, TVM_TUNE_OK, cb, nb,
                   s->res->confirm_best_gflops, 1);
  return st;
}

tvm_status tvm_tune_task(tvm_tune_kernel *k, tvm_config *cfg,
                         const tvm_tune_task_opts *o,
                         tvm_tune_task_result *out) {
  search s;
  tvm_tune_measurer *m = NULL;
  tvm_status st;
  double t0 = tvm_now_s();
  memset(out, 0, sizeof *out);
  memset(&s, 0, sizeof s);
  s.k = k;
  s.o = o;
  s.res = out;
  s.rng = (o->seed ^ tvm_hash_str(tvm_tune_kernel_workload(k))) | 1;
  s.cfg = tvm_config_create();
  if (!s.cfg)
    return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
  /* record the space (the default values) */
  tvm_tune_lowered l;
  if ((st = tvm_tune_kernel_lower(k, s.cfg, 0, &l))) {
    if (st == TVM_ERR_UNSUPPORTED) { /* the template declines this kernel:
                                      * compiled by the generic schedule */
      out->declined = 1;
      snprintf(out->declined_why, sizeof out->declined_why, "%s",
               tvm_diag_message());
      st = TVM_OK;
    }
    goto out;
  }
  tvm_tune_lowered_free(&l);
  s.nknobs = tvm_config_nknobs(s.cfg);
  s.size = tvm_config_space_size(s.cfg);
  out->space_size = s.size;
  if (s.nknobs > 64) {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "tune: more than 64 knobs");
    goto out;
  }
  uint64_t dflt = tvm_config_index(s.cfg);
  if ((st = tvm_tune_measurer_create(k, &o->measure, &m)))
    goto out;
  /* prior records (--resume) count as measured */
  for (int i = 0; o->prior && i < tvm_tune_log_count(o->prior); i++) {
    const tvm_tune_record *r = tvm_tune_log_get(o->prior, i);
    if (strcmp(r->workload, tvm_tune_kernel_workload(k)) != 0 ||
        strcmp(r->target, o->target_name) != 0)
      continue;
    uint64_t idx = record_index(&s, r);
    if (idx == UINT64_MAX || !is_new(&s, idx))
      continue;
    tvm_tune_result pr;
    memset(&pr, 0, sizeof pr);
    pr.error = r->error;
    pr.cost_s = r->cost_s;
    pr.ncosts = r->ncosts;
    memcpy(pr.costs, r->costs, sizeof pr.costs);
    if ((st = record(&s, idx, &pr, 1)))
      goto out;
    if (idx == dflt && !pr.error)
      out->default_gflops = s.best;
  }
  /* the default first: the untuned baseline */
  if (is_new(&s, dflt) && o->trials > out->resumed) {
    if ((st = run_batch(&s, m, &dflt, 1)))
      goto out;
    cand_info *c = lookup(&s, dflt, 0);
    out->default_gflops = c ? c->gflops : 0;
  }
  int batch = o->batch > 0 ? (o->batch < 64 ? o->batch : 64) : 8;
  int since = 0;
  double last_best = s.best;
  while (s.measured < o->trials) {
    uint64_t picks[64];
    int want = o->trials - s.measured < batch ? o->trials - s.measured : batch;
    int n = 0;
    if (o->tuner == TVM_TUNER_RANDOM)
      n = pick_random(&s, picks, 0, want);
    else if (o->tuner == TVM_TUNER_GA)
      n = pick_ga(&s, picks, want);
    else if ((st = pick_xgb(&s, picks, want, &n)))
      goto out;
    if (n == 0)
      break; /* the space is exhausted */
    int before = s.measured;
    if ((st = run_batch(&s, m, picks, n)))
      goto out;
    if (s.best > last_best * 1.01) {
      last_best = s.best;
      since = 0;
    } else {
      since += s.measured - before;
    }
    if (o->patience > 0 && since >= o->patience)
      break;
  }
  out->best_gflops = s.best;
  /* confirmation: the best of many noisy measurements is biased upward,
   * so default and best are measured again, alternately */
  uint64_t keep = s.best_idx;
  out->best_is_default = s.have_best && s.best_idx == dflt;
  if (o->confirm > 0 && s.have_best) {
    int n = o->confirm < 8 ? o->confirm : 8;
    if ((st = confirm(&s, m, dflt, s.best_idx, n, &keep)))
      goto out;
  }
  /* the best configuration (the re-measured winner) goes to the compile */
  if (s.have_best && cfg) {
    int d[64];
    digits(&s, keep, d);
    for (int i = 0; i < s.nknobs && !st; i++)
      st = tvm_config_preset(cfg, tvm_config_knob(s.cfg, i)->name, d[i]);
  }
out:
  out->seconds = tvm_now_s() - t0;
  tvm_tune_measurer_free(m);
  tvm_config_free(s.cfg);
  tvm_free(s.tab);
  return st;
}
