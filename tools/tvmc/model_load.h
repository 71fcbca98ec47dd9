/*
 * tools/tvmc/model_load.h - what `tvmc compile` and `tvmc run` share
 * (implemented in cmd_compile.c): loading a model argument (an ONNX file
 * or zoo:NAME) and compiling it with the options of the command line.
 */
#ifndef TVMC_MODEL_LOAD_H
#define TVMC_MODEL_LOAD_H

#include <stdio.h>

#include "tvm/compiler.h"

/* Loads MODEL: "zoo:NAME" from the model zoo, else an ONNX file.  Prints
 * the error (prefixed by cmd) and returns NULL on failure. */
tvm_graph *tvmc_load_model(const char *cmd, const char *model);

/* Compile options a command line gave. */
typedef struct tvmc_compile_args {
  const char *tuning_log;
  const char *dump_ir;
  int no_fuse;
  int no_plan_memory;
  int quiet;      /* no progress bar */
} tvmc_compile_args;

/* Compiles g for t (progress bar on a terminal); *seconds = wall time.
 * Prints the error and returns NULL on failure. */
tvm_plan *tvmc_compile_graph(const char *cmd, tvm_graph *g,
                             const tvm_target *t, const tvmc_compile_args *a,
                             double *seconds);

/* Monotonic clock in seconds. */
double tvmc_now(void);

/* "1.5 KiB", "3.2 MiB" into buf. */
const char *tvmc_bytes(uint64_t n, char buf[32]);

#endif
