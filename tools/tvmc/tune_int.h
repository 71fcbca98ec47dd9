/*
 * tune_int.h - what tools/tvmc/cmd_tune.c (`tvmc tune`: extraction,
 * budget, tuning passes, table) and tools/tvmc/tune_layouts.c (the
 * layout pass) share: the run's state and its tasks.
 */
#ifndef TVMC_TUNE_INT_H
#define TVMC_TUNE_INT_H

#include <stdint.h>
#include <stdio.h>

#include "tvm/compiler.h"
#include "tvm/tune.h"

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

/* cmd_tune.c */
/* Whether --tasks (absent: everything) matches a task's kernel name,
 * template or output shape. */
int tune_task_matches(const tune_run *r, const task *tk);
/* The options of a tuning run of one kernel. */
void tune_task_opts(tune_run *r, int tuner, int trials, int group,
                    tvm_tune_task_opts *o);
/* Loads the model and compiles it for the target with hooks h, lowering
 * only (no target compiler in this process: see compiler.h); the plan is
 * dropped.  0 when it compiled; 1 when it did not, tvm_diag_message()
 * saying why; -1 when the model did not load (tvmc_load_model said why). */
int tune_compile_hooked(tune_run *r, const tvm_tune_hooks *h);

/* tune_layouts.c */
/* The layout workload wl's entry, or NULL. */
ltask *tune_find_ltask(tune_run *r, const char *wl);
/* Extraction's layout hook: records each layout workload's knobs. */
tvm_status tune_extract_layout(void *ud, const char *wl, const char *label,
                               tvm_config *cfg, int after);
/* The tuning passes (and the re-extraction): each layout workload takes
 * its fastest logged layout, as tvmc compile --tuning-log will. */
tvm_status tune_best_layout(void *ud, const char *wl, const char *label,
                            tvm_config *cfg, int after);
/* --tasks: marks the layout workloads it leaves out (see the file). */
void tune_layouts_select(tune_run *r);
/* The layout pass (see the file); 0 when the run must stop, having said
 * why. */
int tune_layout_pass(tune_run *r);

#endif
