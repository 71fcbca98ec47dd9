/*
 * cmd_matmul.c - `tvmc matmul`: the main job of this release.  Compiles
 * C = A x B from its tensor expression with the target's hand-written
 * schedule template, runs it, checks it against a double-precision
 * reference and prints its speed.
 *
 *   tvmc matmul [--target T] [-n N] [-m M] [-k K] [--repeat R]
 *               [--dump-ir PASS|all]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matmul_job.h"
#include "tvmc.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: tvmc matmul [--target T] [-n N] [-m M] [-k K] [--repeat R]\n"
          "                   [--dump-ir PASS|all]\n"
          "  Compiles fp32 C[M,N] = A[M,K] x B[K,N] with the target's\n"
          "  matmul schedule template, checks it and prints GFLOP/s.\n"
          "  Defaults: --target llvm-cpu, M = N = K = 1024, --repeat 5.\n");
}

/* Parses a positive integer option value or fails with a message. */
static int parse_pos(const char *opt, const char *v, int64_t *out) {
  char *end;
  long long x = v ? strtoll(v, &end, 10) : 0;
  if (!v || *end || x <= 0) {
    fprintf(stderr, "tvmc matmul: %s needs a positive integer, got '%s'\n",
            opt, v ? v : "");
    return 0;
  }
  *out = x;
  return 1;
}

int tvmc_cmd_matmul(int argc, char **argv) {
  const char *target_name = "llvm-cpu";
  int64_t M = 1024, N = 1024, K = 1024, repeat = 5;
  int m_set = 0, k_set = 0;
  tvmc_matmul_opts opts = {NULL, stdout};
  tvmc_matmul_job job;
  tvm_target *t = NULL;
  double ms, rel;
  int rc = 1;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--target") && v) {
      target_name = v, i++;
    } else if (!strcmp(a, "--dump-ir") && v) {
      opts.dump_pass = v, i++;
    } else if (!strcmp(a, "-n")) {
      if (!parse_pos(a, v, &N)) return 2;
      i++;
    } else if (!strcmp(a, "-m")) {
      if (!parse_pos(a, v, &M)) return 2;
      m_set = 1, i++;
    } else if (!strcmp(a, "-k")) {
      if (!parse_pos(a, v, &K)) return 2;
      k_set = 1, i++;
    } else if (!strcmp(a, "--repeat")) {
      if (!parse_pos(a, v, &repeat)) return 2;
      i++;
    } else {
      fprintf(stderr, "tvmc matmul: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (!m_set) M = N;
  if (!k_set) K = N;

  memset(&job, 0, sizeof job);
  if (tvm_target_load(target_name, &t) != TVM_OK) {
    fprintf(stderr, "tvmc matmul: %s\n", tvm_diag_message());
    return 1;
  }
  if (tvmc_matmul_build(t, M, N, K, &opts, &job) != TVM_OK ||
      tvmc_matmul_check(&job, 1000, &rel) != TVM_OK ||
      tvmc_matmul_time(&job, 3, (int)repeat, &ms) != TVM_OK) {
    fprintf(stderr, "tvmc matmul: %s\n", tvm_diag_message());
    goto out;
  }
  {
    char *cfg = tvm_config_str(job.cfg);
    printf("matmul %lldx%lldx%lld float32 on %s (%s)\n", (long long)M,
           (long long)N, (long long)K, t->name,
           tvm_target_info(t)->description ? tvm_target_info(t)->description
                                           : "no description");
    printf("  schedule: template %s, %s\n", job.strategy,
           cfg ? cfg : "(default)");
    printf("  check:    max relative error %.2e over 1000 sampled entries "
           "(%s)\n", rel, rel <= 1e-5 ? "ok" : "WRONG");
    printf("  time:     %.3f ms median of %lld runs = %.1f GFLOP/s\n", ms,
           (long long)repeat, 2.0 * M * N * K / (ms * 1e6));
    tvm_free(cfg);
  }
  rc = rel <= 1e-5 ? 0 : 1;
out:
  tvmc_matmul_free(&job);
  tvm_target_free(t);
  return rc;
}
