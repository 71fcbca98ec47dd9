/*
 * cmd_tune.c - `tvmc tune`: tune every templated kernel of a model.
 *
 *   tvmc tune MODEL --target T --trials N --log LOG
 *             [--tuner xgb|random|ga[,...]] [--seed S] [--resume]
 *             [--jobs J] [--batch B] [--patience P] [--tasks SUBSTR]
 *             [--max-tasks K] [--svg FILE] [--curves FILE.csv]
 *             [--confirm R]
 *
 * 0. The target is probed (in a child process) and a LOG that holds
 *    records needs --resume: nothing is written otherwise.
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
 *    comes from these re-measurements, which are logged ("confirmed"
 *    records) and decide what the compile takes: a best that loses to
 *    the default there leaves the default in place.
 * 4. A per-task table, and tuning curves (best GFLOP/s against
 *    measurements, every tuner on each task's chart) as SVG.
 * Between 1 and 2, the layouts of nodes with layout knobs are measured
 * and chosen (--layout-trials, tune_layouts.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model_load.h"
#include "tune_int.h"
#include "tune_svg.h"
#include "tvm/compiler.h"
#include "tvm/tune.h"
#include "tvmc.h"

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

/* See tune_int.h. */
int tune_task_matches(const tune_run *r, const task *tk) {
  return !r->filter || strstr(tk->label, r->filter) ||
         strstr(tk->tmpl, r->filter) || strstr(tk->shape, r->filter);
}

/* See tune_int.h. */
void tune_task_opts(tune_run *r, int tuner, int trials, int group,
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

/* See tune_int.h. */
int tune_compile_hooked(tune_run *r, const tvm_tune_hooks *h) {
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
  double el = tvm_now_s() - r->pass_start;
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
  tune_task_opts(r, r->tuners[r->cur_tuner], share, (int)(tk - r->tasks), &o);
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
  if (res->confirm_best_gflops > 0 && res->best_is_default)
    printf(" (re-measured: %.1f, the best is the default)",
           res->confirm_default_gflops);
  else if (res->confirm_best_gflops > 0)
    printf(" (re-measured: %.1f -> %.1f%s)", res->confirm_default_gflops,
           res->confirm_best_gflops,
           res->confirm_kept_default ? ", default kept" : "");
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
    int kept_default = 0, is_default = 0;
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
        kept_default = res->confirm_kept_default;
        is_default = res->best_is_default;
      }
    }
    if (cbest > 0) { /* the re-measured pair, when there is one */
      best = cbest;
      dflt = cdflt;
    }
    printf(" %8.1f %8.1f %6.2fx%s\n", dflt, best, dflt > 0 ? best / dflt : 0,
           cbest <= 0     ? " (search)"
           : is_default   ? " (the default)"
           : kept_default ? " (default kept)"
                          : "");
    if (kept_default) /* the log's re-measurement records keep the default */
      best = dflt;
    if (dflt > 0 && best > 0) {
      tw_def += tk->uses * tk->flops / (dflt * 1e9);
      tw_best += tk->uses * tk->flops / (best * 1e9);
    }
  }
  if (tw_best > 0)
    printf("tuned kernels: %.3f ms -> %.3f ms (sum of uses x time at the "
           "default and the config the log gives the compile, re-measured "
           "where --confirm; %.2fx)\n",
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

/* Can this machine run t?  Asked in a child process: a device driver
 * initialized in this one does not survive the fork of each measuring
 * child (PoCL's builds hung in them; CUDA's refuse with
 * CUDA_ERROR_NOT_INITIALIZED).  On no, why holds the probe's fix-it.  A
 * child that cannot be made leaves the question to the first candidate. */
static int probe_apart(const tvm_target *t, char *why, size_t cap) {
  int fd[2];
  why[0] = 0;
  if (pipe(fd) != 0)
    return 1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return 1;
  }
  if (pid == 0) {
    close(fd[0]);
    int ok = tvm_target_probe(t) == TVM_OK;
    if (!ok) {
      const char *m = tvm_diag_message();
      size_t n = strlen(m);
      if (write(fd[1], m, n) != (ssize_t)n) {}
    }
    _exit(ok ? 0 : 1);
  }
  close(fd[1]);
  size_t got = 0;
  ssize_t k;
  while (got + 1 < cap && (k = read(fd[0], why + got, cap - 1 - got)) > 0)
    got += (size_t)k;
  why[got] = 0;
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {
    if (!why[0]) snprintf(why, cap, "the target's probe failed");
    return 0;
  }
  return 1;
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
  r->start = tvm_now_s();
  if (tvm_target_load(r->target_name, &t) != TVM_OK) {
    fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
    return 1;
  }
  r->t = t;
  /* every candidate runs on the target's device: refuse before the log
   * is opened where there is none */
  char why[1024];
  if (!probe_apart(t, why, sizeof why)) {
    fprintf(stderr, "tvmc tune: target '%s' cannot run on this machine, "
            "and tuning measures every candidate on it: %s\n  (the log "
            "%s is left as it was; tune where the device is, then `tvmc "
            "compile --tuning-log` needs no device)\n", r->target_name,
            why, r->log_path);
    goto out;
  }
  /* a log with records is continued with --resume, never truncated:
   * re-running a command would lose a tuning run's measurements */
  struct stat sb;
  if (!r->resume && stat(r->log_path, &sb) == 0 && sb.st_size > 0) {
    fprintf(stderr, "tvmc tune: the log %s already holds records (%lld "
            "bytes); pass --resume to continue it, or name another --log "
            "(nothing was written)\n", r->log_path, (long long)sb.st_size);
    goto out;
  }
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
  tvm_tune_hooks hx = {extract_hook, r, tune_extract_layout};
  if ((cr = tune_compile_hooked(r, &hx)) != 0) {
    if (cr > 0)
      fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
    goto out;
  }
  /* layout records of the log (--resume): those workloads are settled */
  for (int i = 0; r->prior && i < tvm_tune_log_count(r->prior); i++) {
    const tvm_tune_record *rec = tvm_tune_log_get(r->prior, i);
    ltask *lt = tune_find_ltask(r, rec->workload);
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
  tune_layouts_select(r);
  if (r->layout_trials > 0) {
    if (!tune_layout_pass(r))
      goto out;
    /* the tasks again, in the layouts chosen */
    r->ntasks = 0;
    hx.layout = tune_best_layout;
    if ((cr = tune_compile_hooked(r, &hx)) != 0) {
      if (cr > 0)
        fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
      goto out;
    }
  }
  double total_flops = 0;
  for (int i = 0; i < r->ntasks; i++) {
    task *tk = &r->tasks[i];
    tk->selected = tune_task_matches(r, tk) &&
                   (!r->max_tasks || r->nselected < r->max_tasks);
    r->nselected += tk->selected;
    total_flops += tk->flops * tk->uses;
  }
  printf("%s on %s: %d tasks (%d selected), %.2f GFLOP per run, "
         "%.1f s extraction\n",
         r->model, t->name, r->ntasks, r->nselected, total_flops * 1e-9,
         tvm_now_s() - r->start);
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
    r->pass_start = tvm_now_s();
    tvm_tune_hooks ht = {tune_hook, r, tune_best_layout};
    if ((cr = tune_compile_hooked(r, &ht)) != 0) {
      if (cr > 0) {
        if (r->tty)
          fprintf(stderr, "\r\033[K");
        fprintf(stderr, "tvmc tune: %s\n", tvm_diag_message());
      }
      goto out;
    }
    printf("[%s] done in %.1f s\n", tvm_tuner_name(tuner),
           tvm_now_s() - r->pass_start);
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
