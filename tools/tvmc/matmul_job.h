/* matmul_job.h - build, run and check the matmul of the main job and of
 * bench/matmul through a target (see matmul_job.c). */
#ifndef TVMC_MATMUL_JOB_H
#define TVMC_MATMUL_JOB_H

#include "tvm/runtime.h"
#include "tvm/target.h"
#include "matmul_te.h"

typedef struct tvmc_matmul_job {
  int64_t M, N, K;
  const tvm_target *target;
  tvm_ctx *ctx;
  tvm_config *cfg;
  tvm_callable *func; /* the kernel, or the host program launching it */
  void *dA, *dB, *dC;  /* device buffers */
  float *hA, *hB, *hC; /* host copies */
  const char *strategy; /* template used (core.generic_* when none) */
} tvmc_matmul_job;

/* Options of the build: --dump-ir PASS prints the IR after that pass. */
typedef struct tvmc_matmul_opts {
  const char *dump_pass;
  FILE *dump_to;
} tvmc_matmul_opts;

tvm_status tvmc_matmul_build(const tvm_target *t, int64_t M, int64_t N,
                             int64_t K, const tvmc_matmul_opts *o,
                             tvmc_matmul_job *job);
/* Median milliseconds of `repeat` measurements of `number` runs each. */
tvm_status tvmc_matmul_time(tvmc_matmul_job *job, int number, int repeat,
                            double *median_ms);
/* Checks `samples` random entries of C against a double-precision dot
 * product; *max_rel is the largest relative error. */
tvm_status tvmc_matmul_check(tvmc_matmul_job *job, int samples,
                             double *max_rel);
void tvmc_matmul_free(tvmc_matmul_job *job);

#endif
