/*
 * bench/matmul.c - fp32 matmul, tvm-c's hand-written schedule against
 * OpenBLAS in the same run, one and two threads.
 *
 *   build/bench/matmul [N] [rounds]      (default 1024, 7 rounds)
 *
 * Each round times tvm-c and then OpenBLAS (interleaved, so that a noisy
 * phase of the VM hits both); the figures are medians over rounds and the
 * ratio is tvm-c / OpenBLAS.  Debian's OpenBLAS 0.3.21 mistakes newer
 * CPUs (Zen 5) for older ones and runs at half speed there, so the
 * program re-executes itself with OPENBLAS_CORETYPE set from the ISA
 * detected at run time (bench/machine.c: SkylakeX only where AVX-512 is
 * there, Haswell for AVX2), never a fixed one: forcing SkylakeX on an
 * AVX2-only CPU dies with SIGILL.  An OPENBLAS_CORETYPE already set is
 * kept.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../tools/tvmc/matmul_job.h"
#include "machine.h"

/* Lets the other side's idle threads stop spinning before a measurement:
 * OpenBLAS's workers busy-wait for a while after each call, and on a
 * 2-core machine they would steal a core from the next tvm-c run (and ours
 * from OpenBLAS's). */
static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Mean milliseconds of one OpenBLAS sgemm over `number` calls. */
static double time_openblas(const tvmc_matmul_job *j, float *C, int number) {
  int n = (int)j->N;
  double t0 = bench_now_ms();
  for (int r = 0; r < number; r++)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                j->hA, n, j->hB, n, 0.0f, C, n);
  return (bench_now_ms() - t0) / number;
}

/* One thread count: returns 0 and prints a row, or 1 on failure. */
static int run(const char *target_name, int threads, int64_t n, int rounds) {
  tvm_target *t = NULL;
  tvmc_matmul_job job;
  double *ours = calloc((size_t)rounds, sizeof(double));
  double *peer = calloc((size_t)rounds, sizeof(double));
  float *C = malloc((size_t)(n * n) * sizeof(float));
  double flops = 2.0 * n * n * n, rel, g_ours, g_peer;
  int rc = 1;

  memset(&job, 0, sizeof job);
  if (!ours || !peer || !C) goto out;
  if (tvm_target_load(target_name, &t) != TVM_OK ||
      tvmc_matmul_build(t, n, n, n, NULL, &job) != TVM_OK ||
      tvmc_matmul_check(&job, 2000, &rel) != TVM_OK) {
    fprintf(stderr, "bench/matmul: %s\n", tvm_diag_message());
    goto out;
  }
  if (rel > 1e-5) {
    fprintf(stderr, "bench/matmul: wrong result (relative error %.2e)\n", rel);
    goto out;
  }
  openblas_set_num_threads(threads);
  time_openblas(&job, C, 2); /* warm-up */
  for (int r = 0; r < rounds; r++) {
    if (tvmc_matmul_time(&job, 5, 1, &ours[r]) != TVM_OK) {
      fprintf(stderr, "bench/matmul: %s\n", tvm_diag_message());
      goto out;
    }
    pause_ms(200);
    peer[r] = time_openblas(&job, C, 5);
    pause_ms(200);
  }
  qsort(ours, (size_t)rounds, sizeof(double), bench_cmp_double);
  qsort(peer, (size_t)rounds, sizeof(double), bench_cmp_double);
  g_ours = flops / (ours[rounds / 2] * 1e6);
  g_peer = flops / (peer[rounds / 2] * 1e6);
  printf("%7d  %13.1f  %16.1f  %5.2fx   (template %s, %s)\n", threads,
         g_ours, g_peer, g_ours / g_peer, job.strategy,
         tvm_target_info(t)->description ? tvm_target_info(t)->description
                                         : "");
  rc = 0;
out:
  tvmc_matmul_free(&job);
  if (t) tvm_target_free(t);
  free(ours);
  free(peer);
  free(C);
  return rc;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 1024;
  int rounds = argc > 2 ? atoi(argv[2]) : 7;
  int rc = 0;

  if (!getenv("OPENBLAS_CORETYPE")) {
    setenv("OPENBLAS_CORETYPE", bench_openblas_coretype(), 1);
    execv("/proc/self/exe", argv);
    perror("bench/matmul: re-exec with OPENBLAS_CORETYPE set");
    return 1;
  }
  if (n <= 0 || rounds <= 0) {
    fprintf(stderr, "usage: %s [N>0] [rounds>0]\n", argv[0]);
    return 2;
  }
  bench_machine m;
  bench_machine_detect(&m);
  bench_machine_print(stdout, &m);
  printf("fp32 matmul %lldx%lldx%lld, median of %d interleaved rounds; "
         "OpenBLAS %s, OPENBLAS_CORETYPE=%s\n",
         (long long)n, (long long)n, (long long)n, rounds,
         openblas_get_config(), getenv("OPENBLAS_CORETYPE"));
  printf("threads  tvm-c GFLOP/s  OpenBLAS GFLOP/s  ratio\n");
  rc |= run(BENCH_TARGET_DIR "/llvm-cpu-1t.yaml", 1, n, rounds);
  rc |= run(BENCH_TARGET_DIR "/llvm-cpu-2t.yaml", 2, n, rounds);
  return rc;
}
