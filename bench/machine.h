/*
 * bench/machine.h - what every benchmark prints first: the CPU model, its
 * vector ISA (detected at run time, never assumed) and the measured fp32
 * FMA peak; the OpenBLAS core type that matches the detected ISA; and the
 * clock and order statistics every benchmark times with.
 */
#ifndef BENCH_MACHINE_H
#define BENCH_MACHINE_H

#include <stdio.h>

typedef struct bench_machine {
  char cpu[128];     /* /proc/cpuinfo "model name" */
  const char *isa;   /* "AVX-512", "AVX2+FMA", "AVX", "SSE4.2", "x86-64" */
  int vector_bits;   /* 512, 256 or 128 */
  double peak_core;  /* measured GFLOP/s fp32 per core, widest FMA */
  double peak_all;   /* measured on every online CPU at once (summed) */
  int peak_all_bits; /* the width both were measured at; 0: none */
  int ncpu;          /* online CPUs */
} bench_machine;

/* Detects the CPU and measures its FMA peak, on one core and on every
 * online CPU at once (about 0.6 s). */
void bench_machine_detect(bench_machine *m);
/* "# cpu: ..., isa: ..., fp32 FMA peak: ... GFLOP/s per core (...)". */
void bench_machine_print(FILE *f, const bench_machine *m);
/* The OPENBLAS_CORETYPE that uses the widest vectors this CPU has
 * ("SkylakeX" only with AVX-512F/BW/DQ/VL, "Haswell" with AVX2+FMA,
 * "Sandybridge" with AVX, else "Nehalem"). */
const char *bench_openblas_coretype(void);
/* Measures the FMA peak of one core at the given width (512 or 256);
 * 0 when the CPU lacks it. */
double bench_fma_peak(int bits, double seconds);
/* The same on ncpu threads at once, summed (0 when threads fail). */
double bench_fma_peak_all(int bits, double seconds, int ncpu);

/* Monotonic milliseconds. */
double bench_now_ms(void);
/* Whether a side's untimed warm-up, begun at t0_ms, is over after `calls`
 * calls: at least BENCH_WARM_MS and min_calls.  After a pause the core's
 * clock ramps up again; samples taken before it has ride the ramp (a
 * 20-microsecond kernel's median moved with the sample count,
 * bench/RESULTS.md 2026-11-29). */
#define BENCH_WARM_MS 20.0
int bench_warm_done(double t0_ms, int calls, int min_calls);
/* qsort order of doubles. */
int bench_cmp_double(const void *a, const void *b);
/* The p-quantile (0..1, nearest rank) of v[0..n), n >= 1; sorts v. */
double bench_percentile(double *v, int n, double p);

#endif
