/*
 * bench/fma_peak.c - this machine's fp32 FMA peak per core, at every
 * vector width it has (bench/machine.c measures it).  The GFLOP/s of the
 * other benchmarks are read against this figure, not against a data sheet:
 * virtual machines often run below their CPU's nominal peak.
 *
 *   build/bench/fma_peak
 */
#include <stdio.h>

#include "machine.h"

int main(void) {
  bench_machine m;
  bench_machine_detect(&m);
  bench_machine_print(stdout, &m);
  double p512 = bench_fma_peak(512, 1.0), p256 = bench_fma_peak(256, 1.0);
  if (p512 > 0) printf("__m512: %.1f GFLOP/s per core\n", p512);
  if (p256 > 0) printf("__m256: %.1f GFLOP/s per core\n", p256);
  return 0;
}
