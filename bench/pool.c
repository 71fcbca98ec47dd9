/*
 * bench/pool.c - the fork/join cost of the runtime's thread pool against
 * OpenMP (libgomp, `parallel for schedule(dynamic)`, its default wait
 * policy), in one interleaved run: a job of 64 equal tasks, run after an
 * idle gap of 0, 0.1, 1 or 10 ms (long enough, from 1 ms on, for every
 * pool's workers to sleep), each job timed on its own clock.  The two
 * pools take turns in blocks of jobs, each block after a 200 ms pause
 * (the other pool's workers stop spinning first), two blocks each.
 *
 *   build/bench/pool [threads=2] [jobs=200] [work_us=30]
 *
 * work_us is the job's serial time on one thread (measured and printed);
 * a job that costs more than that on `threads` threads loses to running
 * it serially.  Figures are medians and 90th percentiles over `jobs`
 * jobs per cell; ratio = ours/OpenMP median (below 1.0: ours is faster).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "machine.h"
#include "tvm/runtime.h"

#define NTASKS 64
static volatile double sink[NTASKS * 8];
static long iters; /* per task */

static void work(int64_t i) {
  double s = (double)i;
  for (long k = 0; k < iters; k++) s = s * 0.999999 + 1e-9;
  sink[i * 8] = s;
}

static int32_t tvm_task(int64_t i, int64_t n, void *data) {
  (void)n;
  (void)data;
  work(i);
  return 0;
}

static double job_ours(void) {
  double t0 = bench_now_ms();
  tvm_runtime_parallel_for(tvm_task, NULL, NTASKS);
  return 1e3 * (bench_now_ms() - t0);
}

static double job_omp(void) {
  double t0 = bench_now_ms();
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < NTASKS; i++) work(i);
  return 1e3 * (bench_now_ms() - t0);
}

static double job_serial(void) {
  double t0 = bench_now_ms();
  for (int i = 0; i < NTASKS; i++) work(i);
  return 1e3 * (bench_now_ms() - t0);
}

static void gap(int us) {
  if (us > 0) usleep((useconds_t)us);
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  int jobs = argc > 2 ? atoi(argv[2]) : 200;
  double work_us = argc > 3 ? atof(argv[3]) : 30;
  if (threads < 1 || jobs < 10 || work_us <= 0) {
    fprintf(stderr, "usage: %s [threads>=1] [jobs>=10] [work_us>0]\n",
            argv[0]);
    return 2;
  }
  bench_machine m;
  bench_machine_detect(&m);
  bench_machine_print(stdout, &m);
  if (tvm_runtime_set_num_threads(threads) != TVM_OK) {
    fprintf(stderr, "bench/pool: %s\n", tvm_diag_message());
    return 1;
  }
  omp_set_num_threads(threads);
  /* calibrate the task length to the wanted serial job time */
  iters = 1000;
  double t = 0;
  for (int k = 0; k < 20; k++) {
    t = job_serial();
    if (t > 0) iters = (long)(iters * work_us / t) + 1;
  }
  double *ser = malloc(sizeof(double) * (size_t)jobs);
  for (int j = 0; j < jobs; j++) ser[j] = job_serial();
  printf("# %d thread(s); job: %d tasks, serial median %.1f us (one thread)"
         "; %d jobs per cell\n",
         threads, NTASKS, bench_percentile(ser, jobs, 0.5), jobs);
  printf("%8s %12s %12s %12s %12s %8s\n", "gap us", "ours med us",
         "ours p90", "OpenMP med", "OpenMP p90", "ratio");
  const int gaps[] = {0, 100, 1000, 10000};
  double *a = malloc(sizeof(double) * (size_t)jobs);
  double *b = malloc(sizeof(double) * (size_t)jobs);
  for (size_t g = 0; g < sizeof gaps / sizeof *gaps; g++) {
    int nj = gaps[g] >= 10000 ? jobs / 4 : jobs;
    for (int half = 0; half < 2; half++) {
      int j0 = half * nj / 2, j1 = (half + 1) * nj / 2;
      usleep(200000);
      job_ours(); /* warm-up */
      for (int j = j0; j < j1; j++) {
        gap(gaps[g]);
        a[j] = job_ours();
      }
      usleep(200000);
      job_omp();
      for (int j = j0; j < j1; j++) {
        gap(gaps[g]);
        b[j] = job_omp();
      }
    }
    double ap = bench_percentile(a, nj, 0.9), am = bench_percentile(a, nj, 0.5);
    double bp = bench_percentile(b, nj, 0.9), bm = bench_percentile(b, nj, 0.5);
    printf("%8d %12.1f %12.1f %12.1f %12.1f %7.2fx\n", gaps[g], am, ap, bm,
           bp, am / bm);
  }
  free(a);
  free(b);
  free(ser);
  return 0;
}
