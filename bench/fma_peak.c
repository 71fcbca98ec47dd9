/*
 * bench/fma_peak.c - measures this machine's fp32 FMA peak per core: twelve
 * independent chains of 512-bit FMAs (AVX-512) or 256-bit ones (AVX2),
 * enough to cover the FMA latency on every x86 core we know.  The GFLOP/s
 * of bench/matmul are read against this figure, not against a data sheet:
 * virtual machines often run below their CPU's nominal peak.
 *
 *   build/bench/fma_peak
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Distinct starting values keep the compiler from merging the chains. */
static volatile float seed[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

#define CHAINS(T, set1, fma, add, lanes)                                    \
  T b = set1(1.0000001f), c = set1(1e-7f), a[12];                          \
  for (int i = 0; i < 12; i++) a[i] = set1(seed[i]);                        \
  double t0 = seconds();                                                    \
  for (long k = 0; k < n; k++) {                                            \
    a[0] = fma(a[0], b, c); a[1] = fma(a[1], b, c);                         \
    a[2] = fma(a[2], b, c); a[3] = fma(a[3], b, c);                         \
    a[4] = fma(a[4], b, c); a[5] = fma(a[5], b, c);                         \
    a[6] = fma(a[6], b, c); a[7] = fma(a[7], b, c);                         \
    a[8] = fma(a[8], b, c); a[9] = fma(a[9], b, c);                         \
    a[10] = fma(a[10], b, c); a[11] = fma(a[11], b, c);                     \
  }                                                                         \
  double t = seconds() - t0;                                                \
  T s = a[0];                                                               \
  for (int i = 1; i < 12; i++) s = add(s, a[i]);                            \
  float out[lanes];                                                         \
  memcpy(out, &s, sizeof out);                                              \
  printf("%s: %.1f GFLOP/s per core (checksum %g)\n", #T,                   \
         n * 12.0 * lanes * 2 / t / 1e9, (double)out[0]);

#include <string.h>

__attribute__((target("avx512f"))) static void peak512(long n) {
  CHAINS(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, 16)
}

__attribute__((target("avx2,fma"))) static void peak256(long n) {
  CHAINS(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, 8)
}

int main(void) {
  long n = 200000000L / 12;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) peak512(n);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    peak256(n);
  return 0;
}
