/*
 * tools/tvmc/model_load.h - what `tvmc compile` and `tvmc run` share
 * (implemented in cmd_compile.c): loading a model argument (an ONNX file
 * or zoo:NAME) and compiling it with the options of the command line.
 */
#ifndef TVMC_MODEL_LOAD_H
#define TVMC_MODEL_LOAD_H

#include <stdio.h>

#include "tvm/compiler.h"

#include "tvm/onnx.h"

/* Graph input shapes from --input-shape NAME=1x3x224x224 (or taken from
 * an --input file by `tvmc run`). */
#define TVMC_MAX_SHAPES 64
typedef struct tvmc_shapes {
  char names[TVMC_MAX_SHAPES][256];
  int64_t dims[TVMC_MAX_SHAPES][TVM_MAX_DIMS];
  tvm_onnx_shape s[TVMC_MAX_SHAPES];
  int n;
} tvmc_shapes;

/* Adds the shape of input name (dims[0..ndim)) to sh; a name given twice
 * keeps the first.  Prints the error (prefixed by cmd) and returns -1
 * when sh is full. */
int tvmc_shapes_add(const char *cmd, tvmc_shapes *sh, const char *name,
                    size_t namelen, const int64_t *dims, int ndim);
/* Parses "NAME=1x3x224x224" (a scalar input: "NAME=") into sh.  Prints
 * the error (prefixed by cmd) and returns -1 when it is malformed. */
int tvmc_shapes_parse(const char *cmd, tvmc_shapes *sh, const char *arg);
/* 1 when sh has a shape for input name. */
int tvmc_shapes_has(const tvmc_shapes *sh, const char *name, size_t namelen);

/* Loads MODEL: "zoo:NAME" from the model zoo, else an ONNX file (with the
 * input shapes sh, which may be NULL; the zoo's models have static
 * shapes and refuse them).  Prints the error (prefixed by cmd) and
 * returns NULL on failure. */
tvm_graph *tvmc_load_model(const char *cmd, const char *model,
                           const tvmc_shapes *sh);

/* Calibration files from --calibrate NAME=FILE.npy (repeatable), in the
 * order given: a target that quantizes calibrates on them instead of
 * synthetic samples.  A file of input NAME whose leading dimension is k
 * times the input's (the rest equal) gives k samples; several files of
 * one input add their samples in order; every graph input needs the
 * same number of samples. */
#define TVMC_MAX_CALIB 64
typedef struct tvmc_calib {
  const char *args[TVMC_MAX_CALIB]; /* "NAME=FILE.npy" */
  int n;
} tvmc_calib;
/* Adds "NAME=FILE.npy" to c.  Prints the error (prefixed by cmd) and
 * returns -1 when it is malformed or c is full. */
int tvmc_calib_parse(const char *cmd, tvmc_calib *c, const char *arg);

/* Compile options a command line gave. */
typedef struct tvmc_compile_args {
  const char *tuning_log;
  const char *dump_ir;
  int no_fuse;
  int no_plan_memory;
  int quiet;      /* no progress bar */
  /* Heterogeneous targets: where to print the placement (NULL: nowhere);
   * placement_nodes also lists every node, not only the counts. */
  FILE *placement;
  int placement_nodes;
  const tvmc_calib *calib; /* NULL or none: synthetic calibration */
} tvmc_compile_args;

/* Compiles g for t (progress bar on a terminal); *seconds = wall time.
 * Prints the error and returns NULL on failure. */
tvm_plan *tvmc_compile_graph(const char *cmd, tvm_graph *g,
                             const tvm_target *t, const tvmc_compile_args *a,
                             double *seconds);

/* "1.5 KiB", "3.2 MiB" into buf. */
const char *tvmc_bytes(uint64_t n, char buf[32]);

#endif
