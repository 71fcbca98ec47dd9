/*
 * cmd_tune.c - `tvmc tune`: tune every templated kernel of a model.
 *
 *   tvmc tune MODEL --target T --trials N --log LOG
 *             [--tuner xgb|random|ga[,...]] [--seed S] [--resume]
 *             [--jobs J] [--batch B] [--patience P] [--tasks SUBSTR]
 *             [--max-tasks K] [--svg FILE] [--curves FILE.csv]
 *             [--confirm R]
 *
 * 1. Task extraction: the model is compiled once with a hook that
 *    records each distinct templated kernel (workload, FLOPs, uses).
 * 2. Budget: N x tasks measurements in all, split by expected gain: a
 *    task's share is proportional to uses x FLOPs (its share of the
 *    model's work at equal speed), at least min(8, N), at most its space; trials
 *    a task leaves unused (space exhausted, or --patience trials without
 *    a 1% gain) go to the tasks after it, by the same weights.
 * 3. Tuning: the model is compiled again with a hook that tunes each
 *    task in turn (core/tune/search.c) and presets its best config; each
 *    record is appended to LOG and flushed.  With --resume, LOG's records
 *    count as measured (and train the cost model) and tuning continues.
 *    Several tuners (--tuner xgb,random,ga) run one after another on the
 *    same tasks, for the tuning-curve comparison.
 *    After each task, its default and its best are measured again R times
 *    each, alternately (--confirm, default 3; 0 = off): the best of many
 *    noisy measurements is biased upward, so the table's speedup column
 *    comes from these re-measurements.
 * 4. A per-task table, and tuning curves (best GFLOP/s against
 *    measurements, every tuner on each task's chart) as SVG.
 *
 * Layouts (--layout-trials K, 0 to 8, default 2; 0 = the target's
 * default layouts): between 1 and 2, every layout the target offers for
 * each node with layout knobs (tvm_gnode_layout_config: llvm-cpu's
 * channel blocks of a convolution, and Winograd or not) is measured (up
 * to 32 layouts per node).  The model is compiled once per layout index
 * i, every layout workload with more than i layouts taking its i-th, and
 * the kernels such nodes became are measured at their template defaults
 * (a layout's cost: the sum over its nodes' kernels, a Winograd input
 * transform included); K such passes over all layouts (so
 * the machine's slow and fast spells fall on every layout alike).  Each
 * layout's measurements go to LOG as a record of the layout workload
 * (template "layout"; its cost, as for kernels, the fastest).  Then the
 * tasks are extracted again with each workload's fastest layout - the
 * one `tvmc compile --tuning-log` will choose - and tuned in it.  A
 * kernel is measured alone: the layout transforms a choice adds between
 * neighbours that disagree are not counted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model_load.h"
#include "tune_svg.h"
#include "tvm/compiler.h"
#include "tvm/tune.h"
#include "tvmc.h"

#define MAX_TASKS 256
#define MAX_TUNERS 3

typedef struct task {
  char workload[64], label[96], shape[96], tmpl[64];
  char lworkload[64]; /* its node's layout workload ("" if none) */
  double flops;
  int uses;
  int selected; /* --tasks / --max-tasks */
  int budget;
  tvm_tune_task_result res[MAX_TUNERS];
} task;

#define MAX_LTASKS 256
#define MAX_LKNOBS 4
#define MAX_LAYOUTS 32
#define MAX_LKERNELS 1024

/* A layout workload (a node with layout knobs). */
typedef struct ltask {
  char workload[64], label[96];
  char knob[MAX_LKNOBS][24];
  int nent[MAX_LKNOBS], nknobs;
  int64_t val[MAX_LKNOBS][MAX_LAYOUTS]; /* each knob's values */
  int space;                /* layouts (capped at MAX_LAYOUTS) */
  int dflt;                 /* index of the target's default layout */
  double cost[MAX_LAYOUTS][8]; /* kernel cost per layout and pass */
  int ncost[MAX_LAYOUTS];
  int open[MAX_LAYOUTS];       /* pass + 1 whose cost is being summed */
  double kflops[MAX_LAYOUTS];  /* flops of the kernels summed (first pass) */
  double flops;
  int resumed;              /* its records came from the log */
  int skipped;              /* --tasks selects none of its kernels */
} ltask;

typedef struct tune_run {
  /* options */
  const char *model, *target_name, *log_path, *svg_path, *filter, *csv_path;
  int trials, jobs, batch, patience, resume, max_tasks, confirm;
  int layout_trials;
  int tuners[MAX_TUNERS], ntuners;
  uint64_t seed;
  /* state */
  const tvm_target *t;
  task tasks[MAX_TASKS];
  int ntasks, nselected;
  int cur_tuner;   /* index into tuners */
  int task_pos;    /* tasks tuned so far in this tuner's pass */
  int left_budget; /* trials not spent yet in this pass */
  FILE *log;
  tvm_tune_log *prior;
  tvm_tune_model *cost;
  tvm_tune_data *data;
  ltask ltasks[MAX_LTASKS];
  int nltasks;
  int cur_layout;        /* layout pass: the layout index compiled */
  int cur_round;         /* and the pass over all layouts */
  tvm_tune_log *layouts; /* layout records: written, or from the log */
  /* layout pass: the cost of each kernel measured in this compile, by
   * kernel workload (a kernel used again costs again) */
  uint64_t lkey[MAX_LKERNELS];
  double lcost[MAX_LKERNELS];
  int nlk;
  double start, pass_start;
  int tty;
  int done_trials, total_trials;
  tvm_status fail;
} tune_run;

static task *find_task(tune_run *r, const char *wl) {
  for (int i = 0; i < r->ntasks; i++)
    if (!strcmp(r->tasks[i].workload, wl))
      return &r->tasks[i];
  return NULL;
}

/* Extraction hook: records each workload and counts its uses. */
static tvm_status extract_hook(void *ud, tvm_tune_kernel *k, tvm_config *cfg) {
  tune_run *r = ud;
  (void)cfg;
  task *tk = find_task(r, tvm_tune_kernel_workload(k));
  if (tk) {
    tk->uses++;
    return TVM_OK;
  }
  if (r->ntasks == MAX_TASKS)
    return TVM_OK; /* more are compiled with defaults */
  tk = &r->tasks[r->ntasks++];
  memset(tk, 0, sizeof *tk);
  snprintf(tk->workload, sizeof tk->workload, "%s", tvm_tune_kernel_workload(k));
  snprintf(tk->label, sizeof tk->label, "%s", tvm_tune_kernel_label(k));
  snprintf(tk->shape, sizeof tk->shape, "%s", tvm_tune_kernel_shape(k));
  snprintf(tk->tmpl, sizeof tk->tmpl, "%s", tvm_tune_kernel_template(k));
  const char *lw = tvm_tune_kernel_layout_workload(k);
  snprintf(tk->lworkload, sizeof tk->lworkload, "%s", lw ? lw : "");
  tk->flops = tvm_tune_kernel_flops(k);
  tk->uses = 1;
  return TVM_OK;
}

/* Whether --tasks (absent: everything) matches a task's kernel name,
 * template or output shape. */
static int task_matches(const tune_run *r, const task *tk) {
  return !r->filter || strstr(tk->label, r->filter) ||
         strstr(tk->tmpl, r->filter) || strstr(tk->shape, r->filter);
}

static ltask *find_ltask(tune_run *r, const char *wl) {
  for (int i = 0; wl && i < r->nltasks; i++)
    if (!strcmp(r->ltasks[i].workload, wl))
      return &r->ltasks[i];
  return NULL;
}

/* Extraction's layout hook: records each layout workload's knobs. */
static tvm_status extract_layout(void *ud, const char *wl, const char *label,
                                 tvm_config *cfg, int after) {
  tune_run *r = ud;
  if (!after || find_ltask(r, wl) || r->nltasks == MAX_LTASKS)
    return TVM_OK;
  int nk = tvm_config_nknobs(cfg);
  if (nk > MAX_LKNOBS)
    return TVM_OK; /* not searched: keeps the target's default */
  for (int i = 0; i < nk; i++)
    if (tvm_config_knob(cfg, i)->kind != TVM_KNOB_CHOICE ||
        tvm_config_knob(cfg, i)->nchoices > MAX_LAYOUTS)
      return TVM_OK;
  ltask *lt = &r->ltasks[r->nltasks++];
  memset(lt, 0, sizeof *lt);
  snprintf(lt->workload, sizeof lt->workload, "%s", wl);
  snprintf(lt->label, sizeof lt->label, "%s", label);
  uint64_t space = tvm_config_space_size(cfg);
  lt->space = space > MAX_LAYOUTS ? MAX_LAYOUTS : (int)space;
  lt->nknobs = nk;
  for (int i = 0; i < nk; i++) {
    const tvm_knob *kb = tvm_config_knob(cfg, i);
    snprintf(lt->knob[i], sizeof lt->knob[i], "%s", kb->name);
    lt->nent[i] = kb->nchoices;
    memcpy(lt->val[i], kb->choices, sizeof(int64_t) * (size_t)kb->nchoices);
  }
  uint64_t d = tvm_config_index(cfg);
  lt->dflt = d < (uint64_t)lt->space ? (int)d : 0;
  return TVM_OK;
}

/* Presets layout index idx of lt into cfg (first knob fastest, as
 * tvm_config_index counts). */
static tvm_status preset_layout(const ltask *lt, int idx, tvm_config *cfg) {
  for (int i = 0; i < lt->nknobs; i++) {
    tvm_status st = tvm_config_preset(cfg, lt->knob[i], idx % lt->nent[i]);
    if (st)
      return st;
    idx /= lt->nent[i];
  }
  return TVM_OK;
}

/* Layout pass: every layout workload with more than cur_layout layouts
 * takes its cur_layout-th. */
static tvm_status force_layout(void *ud, const char *wl, const char *label,
                               tvm_config *cfg, int after) {
  tune_run *r = ud;
  ltask *lt = find_ltask(r, wl);
  (void)label;
  if (after || !lt || lt->resumed || lt->skipped ||
      r->cur_layout >= lt->space)
    return TVM_OK;
  return preset_layout(lt, r->cur_layout, cfg);
}

/* The tuning passes (and the re-extraction): each layout workload takes
 * its fastest logged layout, as tvmc compile --tuning-log will. */
static tvm_status best_layout(void *ud, const char *wl, const char *label,
                              tvm_config *cfg, int after) {
  tune_run *r = ud;
  (void)label;
  if (after || !r->layouts)
    return TVM_OK;
  const tvm_tune_record *rec =
      tvm_tune_log_best_layout(r->layouts, wl, r->t->name);
  return rec ? tvm_tune_record_apply(rec, cfg) : TVM_OK;
}

/* The options of a tuning run of one kernel. */
static void task_opts(tune_run *r, int tuner, int trials, int group,
                      tvm_tune_task_opts *o) {
  memset(o, 0, sizeof *o);
  o->tuner = tuner;
  o->trials = trials;
  o->batch = r->batch;
  o->seed = r->seed;
  o->patience = r->patience;
  o->group = group;
  o->measure.number = r->t->tuning.number;
  o->measure.repeat = r->t->tuning.repeat;
  o->measure.min_repeat_ms = r->t->tuning.min_repeat_ms;
  o->measure.timeout_s = r->t->tuning.timeout_s;
  o->measure.jobs = r->jobs;
  o->model = tuner == TVM_TUNER_XGB ? r->cost : NULL;
  o->data = tuner == TVM_TUNER_XGB ? r->data : NULL;
  o->log = r->log;
  o->target_name = r->t->name;
}

/* Layout pass kernel hook: measures the template default of each kernel
 * of the nodes whose layout this compile changed to their cur_layout-th;
 * a layout's cost in a pass is the sum over its nodes' kernels (a
 * Winograd convolution is two, and its transform kernel, when the same
 * for two nodes, runs twice), each distinct kernel measured once. */
static tvm_status layout_kernel(void *ud, tvm_tune_kernel *k,
                                tvm_config *cfg) {
  tune_run *r = ud;
  ltask *lt = find_ltask(r, tvm_tune_kernel_layout_workload(k));
  int v = r->cur_layout;
  if (!lt || lt->resumed || lt->skipped || v >= lt->space)
    return TVM_OK;
  int opened = lt->open[v] == r->cur_round + 1;
  if (!opened && lt->ncost[v] != r->cur_round)
    return TVM_OK; /* an earlier pass left this layout unmeasured */
  uint64_t key = tvm_hash_str(tvm_tune_kernel_workload(k));
  double c = 0;
  for (int i = 0; i < r->nlk && c <= 0; i++)
    if (r->lkey[i] == key) c = r->lcost[i];
  if (c <= 0) {
    if (tvm_tune_kernel_reused(k) || !cfg)
      return TVM_OK;
    tvm_tune_task_opts o;
    tvm_tune_task_result res;
    task_opts(r, r->tuners[0], 1, MAX_TASKS + (int)(lt - r->ltasks), &o);
    o.patience = 0;
    tvm_status st = tvm_tune_task(k, cfg, &o, &res);
    tvm_free(res.curve);
    if (st)
      return tvm_diag_prefix(st, "layout %d of %s (%s): ", v, lt->workload,
                             lt->label);
    if (res.declined || res.best_cost_s <= 0) {
      if (opened) lt->ncost[v]--; /* a kernel without a cost: the layout */
      lt->open[v] = -1;           /* is never chosen */
      return TVM_OK;
    }
    c = res.best_cost_s;
    if (r->nlk < MAX_LKERNELS) {
      r->lkey[r->nlk] = key;
      r->lcost[r->nlk++] = c;
    }
  }
  if (lt->open[v] < 0)
    return TVM_OK;
  if (!opened) {
    lt->open[v] = r->cur_round + 1;
    lt->cost[v][lt->ncost[v]++] = c;
  } else {
    lt->cost[v][lt->ncost[v] - 1] += c;
  }
  if (r->cur_round == 0) lt->kflops[v] += tvm_tune_kernel_flops(k);
  lt->flops = lt->kflops[lt->dflt] > 0 ? lt->kflops[lt->dflt] : lt->kflops[v];
  return TVM_OK;
}

/* The fastest measurement of layout v of lt, 0 = none. */
static double layout_cost(const ltask *lt, int v) {
  return tvm_tune_cost(lt->cost[v], lt->ncost[v]);
}

/* Logs a record of layout v of lt: its knobs and its kernel's costs. */
static tvm_status layout_record(tune_run *r, const ltask *lt, int v) {
  tvm_tune_record rec;
  memset(&rec, 0, sizeof rec);
  tvm_config *lc = tvm_config_create();
  if (!lc)
    return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
  for (int i = 0, idx = v; i < lt->nknobs; i++) { /* the same space */
    tvm_cfg_choice(lc, lt->knob[i], lt->val[i], lt->nent[i], 0);
    tvm_config_set(lc, lt->knob[i], idx % lt->nent[i]);
    idx /= lt->nent[i];
  }
  tvm_status st = tvm_tune_record_set_config(&rec, lc);
  tvm_config_free(lc);
  rec.workload = (char *)lt->workload;
  rec.target = (char *)r->t->name;
  rec.tmpl = "layout";
  memcpy(rec.costs, lt->cost[v], sizeof(double) * (size_t)lt->ncost[v]);
  rec.ncosts = lt->ncost[v];
  rec.cost_s = layout_cost(lt, v);
  rec.gflops = lt->flops / rec.cost_s * 1e-9;
  rec.time = (double)time(NULL);
  rec.is_default = v == lt->dflt;
  if (!st)
    st = tvm_tune_record_write(r->log, &rec);
  if (!st)
    st = tvm_tune_log_add(r->layouts, &rec);
  rec.workload = rec.target = rec.tmpl = NULL;
  tvm_tune_record_clear(&rec);
  return st;
}

/* "ic_block=16 oc_block=32": layout idx of lt. */
static void fmt_layout(const ltask *lt, int idx, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < lt->nknobs && k + 2 < n; i++) {
    k += (size_t)snprintf(buf + k, n - k, "%s%s=%lld", i ? " " : "",
                          lt->knob[i],
                          (long long)lt->val[i][idx % lt->nent[i]]);
    idx /= lt->nent[i];
  }
}

/* Loads the model and compiles it for the target with hooks h, lowering
 * only (no target compiler in this process: see compiler.h); the plan is
 * dropped.  0 when it compiled; 1 when it did not, tvm_diag_message()
 * saying why; -1 when the model did not load (tvmc_load_model said why). */
static int compile_hooked(tune_run *r, const tvm_tune_hooks *h) {
  tvm_graph *g = tvmc_load_model("tune", r->model, NULL);
  if (!g)
    return -1;
  tvm_plan *p = NULL;
  tvm_compile_options co;
  tvm_compile_options_init(&co);
  co.tune = h;
  co.lower_only = 1;
  tvm_status st = tvm_compile(g, r->t, &co, &p);
  tvm_plan_free(p);
  tvm_graph_free(g);
  return st ? 1 : 0;
}

/* The layout pass: the model compiled once per layout index (see the top
 * of the file), then a line per layout workload. */
static int layout_pass(tune_run *r) {
  int maxl = 0;
  int n = 0;
  for (int i = 0; i < r->nltasks; i++)
    if (!r->ltasks[i].resumed && !r->ltasks[i].skipped) {
      n++;
      if (r->ltasks[i].space > maxl)
        maxl = r->ltasks[i].space;
    }
  if (maxl < 2)
    return 1;
  double t0 = tvmc_now();
  int rounds = r->layout_trials < 8 ? r->layout_trials : 8;
  printf("layouts: %d nodes with layout knobs, up to %d layouts each, "
         "measured in %d pass(es)\n", n, maxl, rounds);
  fflush(stdout);
  for (int it = 0; it < rounds * maxl; it++) {
    r->cur_round = it / maxl;
    r->cur_layout = it % maxl;
    if (r->tty)
      fprintf(stderr, "\r\033[K[layouts] pass %d/%d, layout %d/%d",
              r->cur_round + 1, rounds, r->cur_layout + 1, maxl);
    tvm_tune_hooks h = {layout_kernel, r, force_layout};
    r->nlk = 0;
    int rc = compile_hooked(r, &h);
    if (rc < 0)
      return 0;
    if (rc) { /* that layout index is left unmeasured, not the run */
      for (int i = 0; i < r->nltasks; i++) { /* nor summed in part */
        ltask *lt = &r->ltasks[i];
        if (r->cur_layout < lt->space &&
            lt->open[r->cur_layout] == r->cur_round + 1) {
          lt->ncost[r->cur_layout]--;
          lt->open[r->cur_layout] = 0;
        }
      }
      if (r->tty)
        fprintf(stderr, "\r\033[K");
      fprintf(stderr, "tvmc tune: layouts: the model with layout %d of each "
              "node does not compile (%s); those layouts are not measured\n",
              r->cur_layout, tvm_diag_message());
      tvm_diag_clear();
    }
  }
  if (r->tty)
    fprintf(stderr, "\r\033[K");
  for (int i = 0; i < r->nltasks; i++) {
    ltask *lt = &r->ltasks[i];
    if (lt->resumed || lt->skipped || lt->space < 2)
      continue;
    int best = -1;
    for (int v = 0; v < lt->space; v++) {
      if (lt->ncost[v] == 0)
        continue;
      if (layout_record(r, lt, v) != TVM_OK) {
        fprintf(stderr, "tvmc tune: layouts: %s\n", tvm_diag_message());
        return 0;
      }
      if (best < 0 || layout_cost(lt, v) < layout_cost(lt, best))
        best = v;
    }
    const tvm_tune_record *ch =
        tvm_tune_log_best_layout(r->layouts, lt->workload, r->t->name);
    char d[96], b[96];
    fmt_layout(lt, lt->dflt, d, sizeof d);
    fmt_layout(lt, best < 0 ? lt->dflt : best, b, sizeof b);
    double cd = layout_cost(lt, lt->dflt), cb = best < 0 ? 0 : layout_cost(lt, best);
    printf("layout %-26.26s default %s %.1f GFLOP/s, fastest %s %.1f "
           "GFLOP/s (%.2fx): %s\n", lt->label, d,
           cd > 0 ? lt->flops / cd * 1e-9 : 0, b,
           cb > 0 ? lt->flops / cb * 1e-9 : 0, cd > 0 && cb > 0 ? cd / cb : 0,
           !ch ? "default (nothing measured)"
               : ch->is_default ? "keeps the default"
                                : "takes the fastest");
  }
  printf("layouts: done in %.1f s\n", tvmc_now() - t0);
  fflush(stdout);
  return 1;
}

static void fmt_time(double s, char *buf, size_t n) {
  if (s < 0 || !isfinite(s))
    snprintf(buf, n, "?");
  else if (s < 60)
    snprintf(buf, n, "%.0fs", s);
  else
    snprintf(buf, n, "%d:%02d", (int)(s / 60), (int)s % 60);
}

static void progress(void *ud, int trials, int total, double best) {
  tune_run *r = ud;
  r->done_trials++;
  if (!r->tty)
    return;
  double el = tvmc_now() - r->pass_start;
  double left = r->done_trials > 0
                    ? el / r->done_trials * (r->total_trials - r->done_trials)
                    : -1;
  char e[16], l[16];
  fmt_time(el, e, sizeof e);
  fmt_time(left, l, sizeof l);
  fprintf(stderr, "\r\033[K[%s] task %d/%d  trials %d/%d  best %.1f GFLOP/s"
          "  elapsed %s  left ~%s", tvm_tuner_name(r->tuners[r->cur_tuner]),
          r->task_pos, r->nselected, trials, total, best, e, l);
  fflush(stderr);
}

/* Tuning hook: tunes a selected task and presets its best config. */
static tvm_status tune_hook(void *ud, tvm_tune_kernel *k, tvm_config *cfg) {
  tune_run *r = ud;
  if (tvm_tune_kernel_reused(k) || !cfg)
    return TVM_OK;
  task *tk = find_task(r, tvm_tune_kernel_workload(k));
  if (!tk || !tk->selected)
    return TVM_OK;
  r->task_pos++;
  /* this task's share of what is left, by weight */
  double wsum = 0;
  for (int i = tk - r->tasks; i < r->ntasks; i++)
    if (r->tasks[i].selected)
      wsum += r->tasks[i].flops * r->tasks[i].uses;
  int share = wsum > 0 ? (int)lround(r->left_budget * tk->flops * tk->uses /
                                     wsum)
                       : r->left_budget;
  int floor_ = r->trials < 8 ? r->trials : 8;
  if (share < floor_)
    share = floor_;
  tvm_tune_task_opts o;
  task_opts(r, r->tuners[r->cur_tuner], share, (int)(tk - r->tasks), &o);
  o.confirm = r->confirm;
  o.prior = r->cur_tuner == 0 ? r->prior : NULL;
  o.progress = progress;
  o.progress_ud = r;
  tvm_tune_task_result *res = &tk->res[r->cur_tuner];
  tvm_status st = tvm_tune_task(k, cfg, &o, res);
  if (st) {
    r->fail = st;
    return tvm_diag_prefix(st, "tuning %s (%s %s): ", tk->workload, tk->label,
                           tk->shape);
  }
  if (res->declined) {
    if (r->tty)
      fprintf(stderr, "\r\033[K");
    printf("[%s] task %d/%d %s %s: declined by %s, compiled by the generic "
           "schedule (%s)\n", tvm_tuner_name(o.tuner), r->task_pos,
           r->nselected, tk->label, tk->shape, tk->tmpl, res->declined_why);
    fflush(stdout);
    return TVM_OK;
  }
  int used = res->trials + res->resumed;
  r->left_budget -= used < share ? used : share;
  if (r->left_budget < 0)
    r->left_budget = 0;
  if (r->tty)
    fprintf(stderr, "\r\033[K");
  printf("[%s] task %d/%d %s %s: %d trials (%d resumed), %.1f -> %.1f "
         "GFLOP/s", tvm_tuner_name(o.tuner), r->task_pos, r->nselected,
         tk->label, tk->shape, res->trials, res->resumed,
         res->default_gflops, res->best_gflops);
  if (res->confirm_best_gflops > 0)
    printf(" (re-measured: %.1f -> %.1f)", res->confirm_default_gflops,
           res->confirm_best_gflops);
  printf(", %.1f s (model %.1f s)\n", res->seconds, res->model_seconds);
  fflush(stdout);
  return TVM_OK;
}

static int usage(void) {
  fprintf(stderr,
          "usage: tvmc tune MODEL --target T --trials N --log LOG\n"
          "                 [--tuner xgb|random|ga[,...]] [--seed S] "
          "[--resume]\n"
          "                 [--jobs J] [--batch B] [--patience P] "
          "[--tasks SUBSTR]\n"
          "                 [--max-tasks K] [--svg FILE] [--curves FILE.csv]\n"
          "                 [--confirm R] [--layout-trials K]\n"
          "  N is the average number of measurements per task; the total is "
          "split by\n  expected gain (uses x FLOPs).  K (0-8, default 2): "
          "measurements of each\n  layout the target offers a node "
          "(convolution channel blocks), in K\n  passes over all layouts, "
          "before the kernels are tuned in the fastest;\n  0 keeps the "
          "target's default layouts.  SUBSTR selects the tasks whose "
          "kernel, template\n  or output shape (as the table prints it: "
          "1x125x13x13x8) contains it, and\n  limits the layouts measured "
          "to their nodes' (and to nodes whose layout\n  label, Conv "
          "1x1000x13x13, contains it).\n");
  return 2;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end || v < lo || v > hi)
    return 0;
  *out = (int)v;
  return 1;
}

static int parse_args(tune_run *r, int argc, char **argv) {
  const char *tuner = "xgb";
  r->trials = 0;
  r->jobs = 2;
  r->batch = 8;
  r->seed = 1;
  r->confirm = 3;
  r->layout_trials = 2;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int ok = 1;
    if (!strcmp(a, "--resume")) {
      r->resume = 1;
      continue;
    }
    if (a[0] != '-') {
      if (r->model) {
        fprintf(stderr, "tvmc tune: one model only ('%s' and '%s')\n",
                r->model, a);
        return 0;
      }
      r->model = a;
      continue;
    }
    if (!v) {
      fprintf(stderr, "tvmc tune: %s needs a value\n", a);
      return 0;
    }
    if (!strcmp(a, "--target")) r->target_name = v;
    else if (!strcmp(a, "--log")) r->log_path = v;
    else if (!strcmp(a, "--svg")) r->svg_path = v;
    else if (!strcmp(a, "--curves")) r->csv_path = v;
    else if (!strcmp(a, "--tasks")) r->filter = v;
    else if (!strcmp(a, "--tuner")) tuner = v;
    else if (!strcmp(a, "--trials")) ok = parse_int(v, 1, 1000000, &r->trials);
    else if (!strcmp(a, "--jobs")) ok = parse_int(v, 1, 32, &r->jobs);
    else if (!strcmp(a, "--batch")) ok = parse_int(v, 1, 64, &r->batch);
    else if (!strcmp(a, "--confirm")) ok = parse_int(v, 0, 8, &r->confirm);
    else if (!strcmp(a, "--layout-trials"))
      ok = parse_int(v, 0, 8, &r->layout_trials);
    else if (!strcmp(a, "--patience")) ok = parse_int(v, 0, 1000000, &r->patience);
    else if (!strcmp(a, "--max-tasks")) ok = parse_int(v, 1, MAX_TASKS, &r->max_tasks);
    else if (!strcmp(a, "--seed")) {
      char *end;
      r->seed = strtoull(v, &end, 10);
      ok = *v && !*end;
    } else {
      fprintf(stderr, "tvmc tune: unknown option %s\n", a);
      return 0;
    }
    if (!ok) {
      fprintf(stderr, "tvmc tune: bad value '%s' for %s\n", v, a);
      return 0;
    }
    i++;
  }
  if (!r->model || !r->target_name || !r->trials || !r->log_path) {
    fprintf(stderr, "tvmc tune: MODEL, --target, --trials and --log are "
                    "required\n");
    return 0;
  }
  char buf[64];
  snprintf(buf, sizeof buf, "%s", tuner);
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    if (r->ntuners == MAX_TUNERS ||
        tvm_tuner_parse(tok, &r->tuners[r->ntuners]) != TVM_OK) {
      fprintf(stderr, "tvmc tune: --tuner %s: %s\n", tuner,
              r->ntuners == MAX_TUNERS ? "at most 3 tuners"
                                       : tvm_diag_message());
      return 0;
    }
    r->ntuners++;
  }
  if (r->resume && r->ntuners > 1) {
    fprintf(stderr, "tvmc tune: --resume continues one tuner; give one "
                    "--tuner\n");
    return 0;
  }
  for (int i = 0; i < r->ntuners; i++)
    if (r->tuners[i] == TVM_TUNER_XGB && !tvm_tune_model_available()) {
      fprintf(stderr, "tvmc tune: --tuner xgb needs the XGBoost cost model, "
                      "which this build lacks (apt-get install "
                      "libxgboost-dev, then re-run configure); --tuner random "
                      "or ga work without it\n");
      return 0;
    }
  return 1;
}

/* The table at the end. */
static void print_table(tune_run *r) {
  printf("\n%-4s %-28s %-18s %4s %6s", "task", "kernel", "shape", "uses",
         "space");
  for (int u = 0; u < r->ntuners; u++)
    printf(" %7s %8s", "trials", tvm_tuner_name(r->tuners[u]));
  printf(" %8s %8s %7s\n", "default", "best", "speedup");
  double tw_def = 0, tw_best = 0;
  for (int i = 0, n = 0; i < r->ntasks; i++) {
    task *tk = &r->tasks[i];
    if (!tk->selected)
      continue;
    double best = 0, dflt = 0, cbest = 0, cdflt = 0;
    printf("%-4d %-28.28s %-18.18s %4d %6llu", ++n, tk->label, tk->shape,
           tk->uses, (unsigned long long)tk->res[0].space_size);
    for (int u = 0; u < r->ntuners; u++) {
      tvm_tune_task_result *res = &tk->res[u];
      printf(" %7d %8.1f", res->trials + res->resumed, res->best_gflops);
      if (res->best_gflops > best)
        best = res->best_gflops;
      if (res->default_gflops > dflt)
        dflt = res->default_gflops;
      if (res->confirm_best_gflops > cbest) {
        cbest = res->confirm_best_gflops;
        cdflt = res->confirm_default_gflops;
      }
    }
    if (cbest > 0) { /* the re-measured pair, when there is one */
      best = cbest;
      dflt = cdflt;
    }
    printf(" %8.1f %8.1f %6.2fx%s\n", dflt, best, dflt > 0 ? best / dflt : 0,
           cbest > 0 ? "" : " (search)");
    if (dflt > 0 && best > 0) {
      tw_def += tk->uses * tk->flops / (dflt * 1e9);
      tw_best += tk->uses * tk->flops / (best * 1e9);
    }
  }
  if (tw_best > 0)
    printf("tuned kernels: %.3f ms -> %.3f ms (sum of uses x time at the "
           "default and the best config, re-measured where --confirm; "
           "%.2fx)\n",
           tw_def * 1e3, tw_best * 1e3, tw_def / tw_best);
  int errs[8] = {0};
  for (int i = 0; i < r->ntasks; i++)
    for (int u = 0; u < r->ntuners; u++)
      for (int e = 1; e < 8; e++)
        errs[e] += r->tasks[i].res[u].errors[e];
  printf("errors:");
  for (int e = 1; e < 8; e++)
    printf(" %s %d", tvm_tune_error_name(e), errs[e]);
  printf("\n");
}

/* --curves: "tuner,seed,task,workload,measurement,best_gflops" rows. */
static void write_csv(tune_run *r) {
  FILE *f = fopen(r->csv_path, "w");
  if (!f) {
    fprintf(stderr, "tvmc tune: cannot write %s\n", r->csv_path);
    return;
  }
  fprintf(f, "tuner,seed,task,workload,measurement,best_gflops\n");
  for (int i = 0; i < r->ntasks; i++)
    for (int u = 0; u < r->ntuners; u++)
      for (int m = 0; m < r->tasks[i].res[u].ncurve; m++)
        fprintf(f, "%s,%llu,%d,%s,%d,%.4f\n", tvm_tuner_name(r->tuners[u]),
                (unsigned long long)r->seed, i, r->tasks[i].workload, m + 1,
                r->tasks[i].res[u].curve[m]);
  fclose(f);
}

/* The SVG: one panel per task, one curve per tuner. */
static void write_svg(tune_run *r) {
  tvmc_svg_panel panels[MAX_TASKS];
  int np = 0;
  for (int i = 0; i < r->ntasks; i++) {
    task *tk = &r->tasks[i];
    if (!tk->selected)
      continue;
    tvmc_svg_panel *p = &panels[np++];
    memset(p, 0, sizeof *p);
    snprintf(p->title, sizeof p->title, "%s %s", tk->label, tk->shape);
    for (int u = 0; u < r->ntuners; u++) {
      p->curves[u].name = tvm_tuner_name(r->tuners[u]);
      p->curves[u].y = tk->res[u].curve;
      p->curves[u].n = tk->res[u].ncurve;
    }
    p->ncurves = r->ntuners;
  }
  char path[512];
  if (r->svg_path)
    snprintf(path, sizeof path, "%s", r->svg_path);
  else
    snprintf(path, sizeof path, "%s.svg", r->log_path);
  if (tvmc_svg_write(path, panels, np, "best GFLOP/s vs measurements") == 0)
    printf("tuning curves: %s\n", path);
  else
    fprintf(stderr, "tvmc tune: cannot write %s\n", path);
}

int tvmc_cmd_tune(int argc, char **argv) {
  static tune_run run;
  tune_run *r = &run;
  tvm_target *t = NULL;
  int rc = 1, cr;
  memset(r, 0, sizeof *r);
  if (!parse_args(r, argc, argv))
    return usage();
  r->tty = isatty(2);
  r->start = tvmc_now();
  if (tvm_target_load(r->target_name, &t) != TVM_OK) {
    fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
    return 1;
  }
  r->t = t;
  if (r->resume && access(r->log_path, R_OK) == 0 &&
      tvm_tune_log_read(r->log_path, &r->prior) != TVM_OK) {
    fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
    goto out;
  }
  r->log = fopen(r->log_path, r->resume ? "a" : "w");
  if (!r->log) {
    fprintf(stderr, "tvmc tune: cannot write the log %s\n", r->log_path);
    goto out;
  }
  /* 1. extraction */
  r->layouts = tvm_tune_log_new();
  if (!r->layouts) {
    fprintf(stderr, "tvmc tune: out of memory\n");
    goto out;
  }
  tvm_tune_hooks hx = {extract_hook, r, extract_layout};
  if ((cr = compile_hooked(r, &hx)) != 0) {
    if (cr > 0)
      fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
    goto out;
  }
  /* layout records of the log (--resume): those workloads are settled */
  for (int i = 0; r->prior && i < tvm_tune_log_count(r->prior); i++) {
    const tvm_tune_record *rec = tvm_tune_log_get(r->prior, i);
    ltask *lt = find_ltask(r, rec->workload);
    if (!lt || strcmp(rec->target, t->name) != 0)
      continue;
    lt->resumed = 1;
    if (tvm_tune_log_add(r->layouts, rec) != TVM_OK) {
      fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
      goto out;
    }
  }
  if (r->tuners[0] == TVM_TUNER_XGB) { /* the layout pass trains it too */
    r->data = tvm_tune_data_new();
    if (!r->data ||
        tvm_tune_model_create(r->jobs, r->seed, &r->cost) != TVM_OK) {
      fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
      goto out;
    }
  }
  /* --tasks: only the nodes of the kernels it selects (in the default
   * layouts), or whose layout workload's label it matches, have their
   * layouts measured; the others keep the target's default */
  for (int i = 0; r->filter && i < r->nltasks; i++) {
    ltask *lt = &r->ltasks[i];
    lt->skipped = !strstr(lt->label, r->filter);
    for (int j = 0; lt->skipped && j < r->ntasks; j++)
      if (task_matches(r, &r->tasks[j]) &&
          !strcmp(r->tasks[j].lworkload, lt->workload))
        lt->skipped = 0;
  }
  if (r->layout_trials > 0) {
    if (!layout_pass(r))
      goto out;
    /* the tasks again, in the layouts chosen */
    r->ntasks = 0;
    hx.layout = best_layout;
    if ((cr = compile_hooked(r, &hx)) != 0) {
      if (cr > 0)
        fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
      goto out;
    }
  }
  double total_flops = 0;
  for (int i = 0; i < r->ntasks; i++) {
    task *tk = &r->tasks[i];
    tk->selected = task_matches(r, tk) &&
                   (!r->max_tasks || r->nselected < r->max_tasks);
    r->nselected += tk->selected;
    total_flops += tk->flops * tk->uses;
  }
  printf("%s on %s: %d tasks (%d selected), %.2f GFLOP per run, "
         "%.1f s extraction\n",
         r->model, t->name, r->ntasks, r->nselected, total_flops * 1e-9,
         tvmc_now() - r->start);
  if (r->prior)
    printf("resuming from %s: %d records (%d malformed lines skipped)\n",
           r->log_path, tvm_tune_log_count(r->prior),
           tvm_tune_log_skipped(r->prior));
  /* 2-3. a tuning pass per tuner */
  for (r->cur_tuner = 0; r->cur_tuner < r->ntuners; r->cur_tuner++) {
    int tuner = r->tuners[r->cur_tuner];
    if (tuner == TVM_TUNER_XGB && r->cur_tuner > 0) {
      tvm_tune_model_free(r->cost);
      tvm_tune_data_free(r->data);
      r->cost = NULL;
      r->data = tvm_tune_data_new();
      if (!r->data ||
          tvm_tune_model_create(r->jobs, r->seed, &r->cost) != TVM_OK) {
        fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
        goto out;
      }
    }
    r->task_pos = 0;
    r->left_budget = r->trials * r->nselected;
    r->total_trials = r->left_budget;
    r->done_trials = 0;
    r->pass_start = tvmc_now();
    tvm_tune_hooks ht = {tune_hook, r, best_layout};
    if ((cr = compile_hooked(r, &ht)) != 0) {
      if (cr > 0) {
        if (r->tty)
          fprintf(stderr, "\r\033[K");
        fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
      }
      goto out;
    }
    printf("[%s] done in %.1f s\n", tvm_tuner_name(tuner),
           tvmc_now() - r->pass_start);
  }
  /* 4. table and curves */
  print_table(r);
  write_svg(r);
  if (r->csv_path)
    write_csv(r);
  printf("log: %s (use it with tvmc compile/run --tuning-log %s)\n",
         r->log_path, r->log_path);
  rc = 0;
out:
  if (r->log)
    fclose(r->log);
  for (int i = 0; i < r->ntasks; i++)
    for (int u = 0; u < MAX_TUNERS; u++)
      tvm_free(r->tasks[i].res[u].curve);
  tvm_tune_log_free(r->prior);
  tvm_tune_log_free(r->layouts);
  tvm_tune_model_free(r->cost);
  tvm_tune_data_free(r->data);
  tvm_target_free(t);
  return rc;
}
