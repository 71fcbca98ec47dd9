/*
 * tvm/tune.h - the auto-tuner (core/tune/ and core/compiler/tune_kernel.c).
 *
 * How it fits together:
 *   - The compiler calls a hook (tvm_tune_hooks, in tvm_compile_options)
 *     for every fused group it schedules with a target template, with the
 *     group's workload (template + a hash of its operators, attributes and
 *     shapes), FLOPs and an empty tvm_config the hook may preset.  Reused
 *     (identical) groups call it too, with reused = 1, so uses are counted.
 *   - During the hook the tuner may lower any number of candidates of that
 *     kernel (tvm_tune_kernel_lower): each in its own context, with the
 *     loop-program features of the candidate computed from the loop IR.
 *   - Candidates are built and run in child processes (measure.c): a
 *     crashing or hanging candidate is recorded with its error kind.
 *   - Results go to the tuning log (log.c): one JSON object per line;
 *     tvm_compile with tuning_log set presets the best record of each
 *     workload and target.
 *   - tvm_tune_model (driver.c) runs extraction, budgeting, the search
 *     (xgb: simulated annealing on an XGBoost ranking model; random; ga)
 *     and the final compile.
 */
#ifndef TVM_TUNE_H
#define TVM_TUNE_H

#include <stdio.h>

#include "tvm/base.h"
#include "tvm/config.h"
#include "tvm/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tvm_target;

/* ---- compiler hooks ------------------------------------------------------ */
typedef struct tvm_tune_kernel tvm_tune_kernel; /* valid during the hook */

typedef struct tvm_tune_hooks {
  /* Called before a templated group is scheduled (cfg: preset knobs), and
   * for each reuse of an identical group (reused = 1; cfg is NULL).  A
   * non-OK status stops the compile with that status. */
  tvm_status (*kernel)(void *ud, tvm_tune_kernel *k, tvm_config *cfg);
  void *ud;
  /* Layout knobs (tvm_gnode_layout_config; NULL = none): called for each
   * node alter_layout asks the target about, twice - before the target
   * decides (after = 0: cfg is empty; the hook may preset knobs with
   * tvm_config_preset) and after it (after = 1, only when the target
   * asked for knobs: cfg holds their space and the values used).
   * workload is the node's layout workload, "layout_<op>-<16 hex>" (a
   * hash of its operator, attributes and input and output types), label
   * "<op> <output shape>". */
  tvm_status (*layout)(void *ud, const char *workload, const char *label,
                       tvm_config *cfg, int after);
} tvm_tune_hooks;

TVM_API const char *tvm_tune_kernel_workload(const tvm_tune_kernel *k);
TVM_API const char *tvm_tune_kernel_template(const tvm_tune_kernel *k);
TVM_API const char *tvm_tune_kernel_label(const tvm_tune_kernel *k);
/* "1x4x56x56x16" (the anchor's first output). */
TVM_API const char *tvm_tune_kernel_shape(const tvm_tune_kernel *k);
TVM_API double tvm_tune_kernel_flops(const tvm_tune_kernel *k);
TVM_API int tvm_tune_kernel_reused(const tvm_tune_kernel *k);
TVM_API const struct tvm_target *tvm_tune_kernel_target(
    const tvm_tune_kernel *k);
/* The layout workload whose knobs chose the layouts of the kernel's
 * anchor (see tvm_tune_hooks.layout), or NULL. */
TVM_API const char *tvm_tune_kernel_layout_workload(const tvm_tune_kernel *k);

/* Fixed-length, shape-independent loop-program features (features.c). */
#define TVM_TUNE_NFEATURES 79

/* An argument of a lowered candidate. */
typedef struct tvm_tune_arg {
  tvm_dtype dtype;
  int64_t numel;
  int is_output;
} tvm_tune_arg;

/* One lowered candidate: its own context and module (function "kernel"),
 * its arguments and features. */
typedef struct tvm_tune_lowered {
  tvm_ctx *ctx;
  tvm_module mod;
  int nargs;
  tvm_tune_arg args[64];
  float features[TVM_TUNE_NFEATURES];
} tvm_tune_lowered;

/* Lowers the hooked kernel with the template under cfg (recording its
 * knobs in cfg on the first call), or with the core's generic schedule
 * when generic = 1 (the reference).  TVM_ERR_INVALID with the reason when
 * the template rejects the values (tvm_cfg_reject): nothing is lowered
 * then.  Free out with tvm_tune_lowered_free. */
TVM_API tvm_status tvm_tune_kernel_lower(tvm_tune_kernel *k, tvm_config *cfg,
                                         int generic, tvm_tune_lowered *out);
TVM_API void tvm_tune_lowered_free(tvm_tune_lowered *l);
/* The features alone of the candidate cfg (TVM_TUNE_NFEATURES floats):
 * lowered only as far as storage_flatten, where they are read, so a few
 * times cheaper than tvm_tune_kernel_lower; what the search scores
 * candidates with. */
TVM_API tvm_status tvm_tune_kernel_features(tvm_tune_kernel *k,
                                            tvm_config *cfg, float *features);

/* Features of a lowered function (called on the loop IR after
 * storage_flatten, where loops still carry their annotations). */
TVM_API void tvm_tune_features(const tvm_func *f, float *out);
/* Name of feature i (for debugging and the docs). */
TVM_API const char *tvm_tune_feature_name(int i);

/* ---- measurement (measure.c) --------------------------------------------- */
enum {
  TVM_TUNE_OK = 0,
  TVM_TUNE_ERR_INVALID = 1, /* rejected by the template before building */
  TVM_TUNE_ERR_LOWER = 2,   /* lowering failed */
  TVM_TUNE_ERR_BUILD = 3,   /* codegen or loading failed */
  TVM_TUNE_ERR_RUN = 4,     /* the kernel returned an error */
  TVM_TUNE_ERR_CRASH = 5,   /* the child died of a signal */
  TVM_TUNE_ERR_TIMEOUT = 6, /* the child ran past timeout_s */
  TVM_TUNE_ERR_WRONG = 7    /* output differs from the reference */
};
TVM_API const char *tvm_tune_error_name(int err);

/* A candidate's cost from its n repeated measurements (seconds): the
 * fastest.  On a shared machine interference only ever adds time, and
 * it comes in episodes longer than a repeat, so the minimum ranks
 * candidates more consistently than the mean (a record's repeats spread
 * by 8.5% at the median, 35% at the 90th percentile, in 250 ResNet-18
 * conv measurements on 2 vCPUs).  0 when n is 0 or a cost is not
 * positive. */
TVM_API double tvm_tune_cost(const double *costs, int n);
/* The median of costs (n up to 16): a re-measurement record's cost, its
 * measurements taken alternately with a rival's.  0 when n is 0 or past
 * 16, or a cost is not positive. */
TVM_API double tvm_tune_cost_median(const double *costs, int n);

typedef struct tvm_tune_result {
  int error;          /* TVM_TUNE_* */
  double costs[16];   /* seconds per run, `repeat` of them */
  int ncosts;
  double cost_s;      /* tvm_tune_cost of costs; 0 on error */
  double max_rel_err; /* against the reference */
  char msg[160];      /* error detail */
} tvm_tune_result;

typedef struct tvm_tune_measure_opts {
  int number, repeat, min_repeat_ms, timeout_s; /* target YAML tuning: */
  int jobs;           /* candidates built at once (children), >= 1 */
  double tolerance;   /* max relative error against the reference */
} tvm_tune_measure_opts;

typedef struct tvm_tune_measurer tvm_tune_measurer;
/* A measurer for the kernel's target; the reference output is computed
 * once (generic schedule, in a child) from deterministic inputs. */
TVM_API tvm_status tvm_tune_measurer_create(tvm_tune_kernel *k,
                                            const tvm_tune_measure_opts *o,
                                            tvm_tune_measurer **out);
TVM_API void tvm_tune_measurer_free(tvm_tune_measurer *m);
/* Builds and runs n lowered candidates (up to o->jobs built in parallel
 * children, timed one at a time); results in res[0..n). */
TVM_API tvm_status tvm_tune_measure(tvm_tune_measurer *m,
                                    tvm_tune_lowered *const *cands, int n,
                                    tvm_tune_result *res);

/* ---- tuning log (log.c) --------------------------------------------------- */
/* One record: a JSON line
 *   {"workload":..., "target":..., "template":..., "config":{"knob":idx,...},
 *    "config_str":..., "costs":[s,...], "error":"ok"|kind, "gflops":...,
 *    "time":unix_s, "version":1}
 * and, in layout records only, "default":1 for the target's default layout;
 * "confirmed":1 in the records of a task's re-measurement (--confirm: the
 * default and the search's best measured again, alternately; costs are
 * those measurements and the record's cost is their median).
 */
typedef struct tvm_tune_record {
  char *workload, *target, *tmpl, *config_str;
  char **knobs; /* names */
  int *idx;     /* chosen entry per knob */
  int *nent;    /* entries of each knob's space when recorded */
  int nknobs;
  double costs[16];
  int ncosts;
  double cost_s, gflops; /* cost_s: tvm_tune_cost of costs */
  int error;    /* TVM_TUNE_* */
  double time;
  int is_default; /* layout records: the target's default layout
                     ("default":1 in the line) */
  int confirmed;  /* a re-measurement record ("confirmed":1): cost_s is the
                     median of costs, not the fastest */
} tvm_tune_record;

typedef struct tvm_tune_log tvm_tune_log;
/* Reads path (JSON lines).  A malformed line is reported with its line
 * number (warning) and skipped; a missing file is TVM_ERR_IO. */
TVM_API tvm_status tvm_tune_log_read(const char *path, tvm_tune_log **out);
TVM_API tvm_tune_log *tvm_tune_log_new(void);
TVM_API void tvm_tune_log_free(tvm_tune_log *l);
TVM_API int tvm_tune_log_count(const tvm_tune_log *l);
TVM_API const tvm_tune_record *tvm_tune_log_get(const tvm_tune_log *l, int i);
/* Lines skipped as malformed by tvm_tune_log_read. */
TVM_API int tvm_tune_log_skipped(const tvm_tune_log *l);
/* The fastest error-free record of workload on target, or NULL.  Where
 * the workload has re-measurement records (confirmed), the fastest of
 * those by their median: the search's best single measurement is biased
 * upward on a noisy machine, and a best that lost to the default when
 * both were measured again alternately must not reach the compile.  A
 * search record written after the last re-measurement (a later run with
 * --confirm 0) still wins if it is faster than that. */
TVM_API const tvm_tune_record *tvm_tune_log_best(const tvm_tune_log *l,
                                                 const char *workload,
                                                 const char *target);
/* A layout workload's choice (tvm_tune_hooks.layout): its fastest
 * record, but the target's default layout (is_default) unless the
 * fastest beats it by more than TVM_TUNE_LAYOUT_MARGIN.  A layout's
 * record times its kernel alone, while a layout that differs from its
 * neighbours' costs layout transforms between them, and a record's
 * repeats spread by several percent on a shared machine: a near tie
 * keeps the default.  NULL when workload has no error-free record. */
#define TVM_TUNE_LAYOUT_MARGIN 0.05
TVM_API const tvm_tune_record *tvm_tune_log_best_layout(
    const tvm_tune_log *l, const char *workload, const char *target);
/* Adds a copy of r to l (memory only). */
TVM_API tvm_status tvm_tune_log_add(tvm_tune_log *l, const tvm_tune_record *r);
/* Appends r to the file f as one line and flushes it. */
TVM_API tvm_status tvm_tune_record_write(FILE *f, const tvm_tune_record *r);
/* Fills r from cfg's current values (strings copied; free with
 * tvm_tune_record_clear). */
TVM_API tvm_status tvm_tune_record_set_config(tvm_tune_record *r,
                                              const tvm_config *cfg);
TVM_API void tvm_tune_record_clear(tvm_tune_record *r);
/* Presets cfg from r (tvm_config_preset per knob). */
TVM_API tvm_status tvm_tune_record_apply(const tvm_tune_record *r,
                                         tvm_config *cfg);
/* Hooks that preset the best record of each workload for target_name and
 * log "workload W: no record in LOG, using the template default" for the
 * missing ones; applied / missing count them.  Layout workloads likewise
 * (layouts: their best record's knobs; a missing one keeps the target's
 * default layout without a warning: only `tvmc tune` with layout trials
 * writes them). */
typedef struct tvm_tune_apply {
  const tvm_tune_log *log;
  const char *log_name;
  const char *target_name;
  int applied, missing;
  int layouts;
} tvm_tune_apply;
TVM_API void tvm_tune_apply_hooks(tvm_tune_apply *a, tvm_tune_hooks *h);

/* ---- cost model (model.c; XGBoost when built with it) -------------------- */
typedef struct tvm_tune_model tvm_tune_model;
/* 1 when the XGBoost model is compiled in (libxgboost-dev). */
TVM_API int tvm_tune_model_available(void);
TVM_API tvm_status tvm_tune_model_create(int nthread, uint64_t seed,
                                         tvm_tune_model **out);
TVM_API void tvm_tune_model_free(tvm_tune_model *m);
/* Retrains from scratch on n rows of features x (TVM_TUNE_NFEATURES each)
 * with relevance y (throughput; higher is better), group[] the task of
 * each row (ranking is within a task). */
TVM_API tvm_status tvm_tune_model_fit(tvm_tune_model *m, const float *x,
                                      const float *y, const int *group,
                                      int n);
/* Scores (higher = predicted faster) of n rows. */
TVM_API tvm_status tvm_tune_model_predict(tvm_tune_model *m, const float *x,
                                          int n, float *out);
/* Saves / loads the trained booster (round trip for transfer). */
TVM_API tvm_status tvm_tune_model_save(tvm_tune_model *m, const char *path);
TVM_API tvm_status tvm_tune_model_load(tvm_tune_model *m, const char *path);

/* ---- search (search.c) ---------------------------------------------------- */
enum { TVM_TUNER_XGB = 0, TVM_TUNER_RANDOM = 1, TVM_TUNER_GA = 2 };
TVM_API tvm_status tvm_tuner_parse(const char *name, int *out);
TVM_API const char *tvm_tuner_name(int tuner);

/* Measured candidates of all tasks so far: the cost model's training set
 * (shared across tasks, so what one task taught ranks the next). */
typedef struct tvm_tune_data tvm_tune_data;
TVM_API tvm_tune_data *tvm_tune_data_new(void);
TVM_API void tvm_tune_data_free(tvm_tune_data *d);
TVM_API int tvm_tune_data_count(const tvm_tune_data *d);
/* Adds a row (features, relevance, task group). */
TVM_API tvm_status tvm_tune_data_add(tvm_tune_data *d, const float *x,
                                     float y, int group);
/* Rows for tvm_tune_model_fit (valid until the next add). */
TVM_API void tvm_tune_data_rows(const tvm_tune_data *d, const float **x,
                                const float **y, const int **group);

typedef struct tvm_tune_task_opts {
  int tuner;      /* TVM_TUNER_* */
  int trials;     /* measurements for this task (prior ones included) */
  int batch;      /* candidates per round (default 8) */
  uint64_t seed;
  int patience;   /* stop after this many trials without a 1% gain; 0 = no */
  int confirm;    /* > 0: re-measure default and best this many times each,
                     interleaved, after the search; logged as two
                     "confirmed" records, and the faster by the medians
                     is the one the compile takes */
  int group;      /* the task's group id in data */
  tvm_tune_measure_opts measure;
  tvm_tune_model *model; /* xgb only */
  tvm_tune_data *data;   /* xgb: shared training rows */
  FILE *log;             /* records appended (NULL = none) */
  const char *target_name;
  const tvm_tune_log *prior; /* --resume: records already measured */
  void (*progress)(void *ud, int trials, int total, double best_gflops);
  void *progress_ud;
} tvm_tune_task_opts;

typedef struct tvm_tune_task_result {
  int trials;           /* measured in this run */
  int resumed;          /* taken from prior records */
  uint64_t space_size;
  double default_gflops, best_gflops, best_cost_s;
  /* with confirm: medians of the interleaved re-measurements (0 = none;
   * one median of all of them where the best is the default);
   * kept_default: the search's best lost to the default there */
  double confirm_default_gflops, confirm_best_gflops;
  int confirm_kept_default;
  int best_is_default; /* the search found nothing faster than the default */
  double *curve;        /* best-so-far GFLOP/s after each measurement */
  int ncurve;
  int errors[8];        /* count per TVM_TUNE_* kind */
  double model_seconds; /* fitting + predicting */
  double seconds;
  /* the template declines this kernel (TVM_ERR_UNSUPPORTED for its
   * default): nothing measured, the generic schedule compiles it */
  int declined;
  char declined_why[256];
} tvm_tune_task_result;

/* Tunes the hooked kernel k (see the top of the file) and presets the
 * best configuration found (prior records included) into cfg.  Free
 * out->curve with tvm_free. */
TVM_API tvm_status tvm_tune_task(tvm_tune_kernel *k, tvm_config *cfg,
                                 const tvm_tune_task_opts *o,
                                 tvm_tune_task_result *out);

#ifdef __cplusplus
}
#endif
#endif /* TVM_TUNE_H */
