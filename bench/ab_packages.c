/*
 * bench/ab_packages.c - two packages of the same model timed in one
 * process, block by block, so that the machine's phases (which on the
 * project's VMs move a process's latency by up to 1.6x against another
 * process's) fall on both alike.
 *
 *   build/bench/ab_packages A.tvmpkg B.tvmpkg [rounds=20] [runs=10] [steps]
 *
 * Each round runs one package `runs` times, pauses 20 ms (its pool stops
 * polling), runs the other `runs` times and pauses again, A first in even
 * rounds and B first in odd ones (the second block of a round ran 1-4%
 * faster in A/A runs); every run is timed on its own clock, each block
 * after at least 20 ms of untimed runs of its package.  Prints the median and
 * 10th/90th percentiles of each and the ratio of medians B/A (below 1.0:
 * B is faster), and checks that the two give the same outputs.  With
 * `steps` (two builds of one graph: the same steps in the same order) it
 * then times every step on its own (tvm_executor_profile, 20 repeats),
 * A and B alternated `rounds` times, and prints each step's medians and
 * B/A: which kernels a whole-run difference comes from.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inputs.h"
#include "machine.h"
#include "tvm/runtime.h"
#include "tvm/target.h"

typedef struct side {
  tvm_plan *p;
  tvm_target *t;
  tvm_executor *e;
  float *out;
  size_t nout;
} side;

static int open_side(const char *path, side *s) {
  if (tvm_package_load(path, NULL, &s->p) != TVM_OK ||
      tvm_plan_target(s->p, NULL, &s->t) != TVM_OK ||
      tvm_executor_create(s->p, s->t, &s->e) != TVM_OK) {
    fprintf(stderr, "bench/ab_packages: %s: %s\n", path, tvm_diag_message());
    return 1;
  }
  if (bench_set_inputs(s->e, s->p) != TVM_OK) {
    fprintf(stderr, "bench/ab_packages: %s: inputs: %s\n", path,
            tvm_diag_message());
    return 1;
  }
  if (tvm_executor_run(s->e) != TVM_OK) {
    fprintf(stderr, "bench/ab_packages: %s: %s\n", path, tvm_diag_message());
    return 1;
  }
  const tvm_plan_value *o = &s->p->values[s->p->outputs[0]];
  s->nout = o->nbytes / 4;
  s->out = calloc(s->nout + 1, 4);
  DLTensor d = {s->out, {kDLCPU, 0}, o->ndim, o->dtype, (int64_t *)o->shape,
                NULL, 0};
  return tvm_executor_get_output(s->e, 0, &d) != TVM_OK;
}

static void close_side(side *s) {
  tvm_executor_free(s->e);
  tvm_target_free(s->t);
  tvm_plan_free(s->p);
  free(s->out);
}

/* `runs` timed runs of s after at least 20 ms (and one run) of untimed
 * ones: a block follows a 20 ms pause, and without the warm-up a block
 * of a kernel of tens of microseconds (about 1 ms of runs) rode the
 * core's clock ramp (a 1 x 999 x 1001 product read B/A 0.944 here
 * against 0.68-0.82 in steady state, bench/RESULTS.md 2026-11-29). */
static int block(side *s, int runs, double *ms) {
  double w0 = bench_now_ms();
  for (int i = 0; !bench_warm_done(w0, i, 1); i++)
    if (tvm_executor_run(s->e) != TVM_OK) return 1;
  for (int i = 0; i < runs; i++) {
    double t0 = bench_now_ms();
    if (tvm_executor_run(s->e) != TVM_OK) return 1;
    ms[i] = bench_now_ms() - t0;
  }
  usleep(20000);
  return 0;
}

/* Per step, B/A of the medians over `rounds` alternated calls of
 * tvm_executor_profile (each step repeated on its own, 20 times), and the
 * steps' summed medians: which kernels a whole-run difference comes from.
 * Only for plans with the same steps (the same kernels in the same
 * order), as two builds of one model with different code generation. */
static void compare_steps(side *a, side *b, int rounds) {
  uint32_t n = a->p->nsteps;
  if (n != b->p->nsteps) {
    printf("# steps: the plans have %u and %u steps; not compared\n", n,
           b->p->nsteps);
    return;
  }
  for (uint32_t s = 0; s < n; s++)
    if (strcmp(a->p->steps[s].label, b->p->steps[s].label) != 0) {
      printf("# steps: step %u is %s in A, %s in B; not compared\n", s,
             a->p->steps[s].label, b->p->steps[s].label);
      return;
    }
  double *ma = malloc(sizeof(double) * n * (size_t)rounds);
  double *mb = malloc(sizeof(double) * n * (size_t)rounds);
  double *one = malloc(sizeof(double) * (n + 1));
  double *col = malloc(sizeof(double) * (size_t)rounds);
  if (!ma || !mb || !one || !col) {
    fprintf(stderr, "bench/ab_packages: out of memory\n");
    goto out;
  }
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < 2; k++) {
      side *s = (k ^ (r & 1)) ? b : a;
      double *m = s == a ? ma : mb;
      if (tvm_executor_profile(s->e, 20, one) != TVM_OK) {
        fprintf(stderr, "bench/ab_packages: %s\n", tvm_diag_message());
        goto out;
      }
      for (uint32_t i = 0; i < n; i++) m[(size_t)i * rounds + r] = one[i];
    }
  printf("# per step: median ms of %d alternated tvm_executor_profile calls "
         "(20 repeats each)\nstep label A_ms B_ms B/A\n", rounds);
  double sa = 0, sb = 0;
  for (uint32_t i = 0; i < n; i++) {
    for (int r = 0; r < rounds; r++) col[r] = ma[(size_t)i * rounds + r];
    double xa = bench_percentile(col, rounds, 0.5);
    for (int r = 0; r < rounds; r++) col[r] = mb[(size_t)i * rounds + r];
    double xb = bench_percentile(col, rounds, 0.5);
    sa += xa;
    sb += xb;
    printf("%u %s %.4f %.4f %.3f\n", i, a->p->steps[i].label, xa, xb,
           xa > 0 ? xb / xa : 0);
  }
  printf("steps summed: A %.3f ms, B %.3f ms, B/A %.3f\n", sa, sb,
         sa > 0 ? sb / sa : 0);
out:
  free(ma);
  free(mb);
  free(one);
  free(col);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr,
            "usage: %s A.tvmpkg B.tvmpkg [rounds=20] [runs=10] [steps]\n",
            argv[0]);
    return 2;
  }
  int rounds = argc > 3 ? atoi(argv[3]) : 20;
  int runs = argc > 4 ? atoi(argv[4]) : 10;
  if (rounds < 1 || runs < 1) return 2;
  bench_machine m;
  bench_machine_detect(&m);
  bench_machine_print(stdout, &m);
  side a = {0}, b = {0};
  if (open_side(argv[1], &a) || open_side(argv[2], &b)) return 1;
  double diff = 0;
  if (a.nout != b.nout) {
    fprintf(stderr, "bench/ab_packages: the outputs differ in size\n");
    return 1;
  }
  for (size_t i = 0; i < a.nout; i++)
    diff = fmax(diff, fabs(a.out[i] - b.out[i]));
  int n = rounds * runs;
  double *ta = malloc(sizeof(double) * (size_t)n);
  double *tb = malloc(sizeof(double) * (size_t)n);
  for (int r = 0; r < rounds; r++) {
    int bad = r % 2 ? block(&b, runs, tb + r * runs) ||
                          block(&a, runs, ta + r * runs)
                    : block(&a, runs, ta + r * runs) ||
                          block(&b, runs, tb + r * runs);
    if (bad) {
      fprintf(stderr, "bench/ab_packages: %s\n", tvm_diag_message());
      return 1;
    }
  }
  double am = bench_percentile(ta, n, 0.5), bm = bench_percentile(tb, n, 0.5);
  printf("# %d rounds x %d runs each, in one process; max abs output "
         "difference %.3g\n",
         rounds, runs, diff);
  printf("A %s: median %.3f ms (p10 %.3f, p90 %.3f)\n", argv[1], am,
         bench_percentile(ta, n, 0.1), bench_percentile(ta, n, 0.9));
  printf("B %s: median %.3f ms (p10 %.3f, p90 %.3f)\n", argv[2], bm,
         bench_percentile(tb, n, 0.1), bench_percentile(tb, n, 0.9));
  printf("B/A %.3f\n", bm / am);
  if (argc > 5 && strcmp(argv[5], "steps") == 0)
    compare_steps(&a, &b, rounds);
  free(ta);
  free(tb);
  close_side(&a);
  close_side(&b);
  return 0;
}
