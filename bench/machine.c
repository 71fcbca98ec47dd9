/*
 * bench/machine.c - CPU model, vector ISA and measured FMA peak (see
 * machine.h).  The peak is twelve independent chains of 512-bit FMAs
 * (AVX-512) or 256-bit ones (AVX2), enough to cover the FMA latency on
 * every x86 core we know; the wide kernels are compiled with target
 * attributes and run only after __builtin_cpu_supports says the CPU has
 * them, so nothing here executes an instruction the CPU lacks.  The
 * all-CPU figure runs the same chains on every online CPU at once: on a
 * VM whose vCPUs are at times two hardware threads of one core (the
 * project's 2-vCPU VMs, by their phases), it reads near one core's, and
 * a multi-threaded result of that moment cannot scale.
 */
#include "machine.h"

#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Distinct starting values keep the compiler from merging the chains. */
static volatile float seed[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static volatile float sink;

#define CHAINS(T, set1, fma, add, lanes)                                    \
  T b = set1(1.0000001f), c = set1(1e-7f), a[12];                          \
  for (int i = 0; i < 12; i++) a[i] = set1(seed[i]);                        \
  long n = 0;                                                               \
  double t0 = seconds_now(), t;                                             \
  do {                                                                      \
    for (int k = 0; k < 100000; k++) {                                      \
      a[0] = fma(a[0], b, c); a[1] = fma(a[1], b, c);                       \
      a[2] = fma(a[2], b, c); a[3] = fma(a[3], b, c);                       \
      a[4] = fma(a[4], b, c); a[5] = fma(a[5], b, c);                       \
      a[6] = fma(a[6], b, c); a[7] = fma(a[7], b, c);                       \
      a[8] = fma(a[8], b, c); a[9] = fma(a[9], b, c);                       \
      a[10] = fma(a[10], b, c); a[11] = fma(a[11], b, c);                   \
    }                                                                       \
    n += 100000;                                                            \
    t = seconds_now() - t0;                                                 \
  } while (t < secs);                                                       \
  T s = a[0];                                                               \
  for (int i = 1; i < 12; i++) s = add(s, a[i]);                            \
  float out[lanes];                                                         \
  memcpy(out, &s, sizeof out);                                              \
  sink = out[0];                                                            \
  return n * 12.0 * lanes * 2 / t / 1e9;

__attribute__((target("avx512f"))) static double peak512(double secs) {
  CHAINS(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, 16)
}

__attribute__((target("avx2,fma"))) static double peak256(double secs) {
  CHAINS(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, 8)
}

double bench_fma_peak(int bits, double secs) {
  __builtin_cpu_init();
  if (bits == 512 && __builtin_cpu_supports("avx512f")) return peak512(secs);
  if (bits == 256 && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma"))
    return peak256(secs);
  return 0;
}

/* One thread of bench_fma_peak_all: waits for the others, then runs. */
typedef struct peak_arg {
  int bits;
  double secs, out;
  int *ready, n;
} peak_arg;

static void *peak_thread(void *p) {
  peak_arg *a = p;
  __atomic_add_fetch(a->ready, 1, __ATOMIC_ACQ_REL);
  while (__atomic_load_n(a->ready, __ATOMIC_ACQUIRE) < a->n) {
  }
  a->out = bench_fma_peak(a->bits, a->secs);
  return NULL;
}

double bench_fma_peak_all(int bits, double secs, int ncpu) {
  if (ncpu < 2) return bench_fma_peak(bits, secs);
  if (ncpu > 256) ncpu = 256;
  pthread_t th[256];
  peak_arg arg[256];
  int ready = 0, started = 1;
  for (int i = 0; i < ncpu; i++)
    arg[i] = (peak_arg){bits, secs, 0, &ready, ncpu};
  for (int i = 1; i < ncpu; i++) {
    if (pthread_create(&th[i], NULL, peak_thread, &arg[i]) != 0) break;
    started++;
  }
  if (started < ncpu) { /* fewer threads than CPUs: release them */
    for (int i = 0; i < ncpu; i++) arg[i].n = started;
  }
  peak_thread(&arg[0]);
  double sum = arg[0].out;
  for (int i = 1; i < started; i++) {
    pthread_join(th[i], NULL);
    sum += arg[i].out;
  }
  return started == ncpu ? sum : 0;
}

static int has_avx512(void) {
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
}

const char *bench_openblas_coretype(void) {
  __builtin_cpu_init();
  if (has_avx512()) return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "Haswell";
  if (__builtin_cpu_supports("avx")) return "Sandybridge";
  return "Nehalem";
}

void bench_machine_detect(bench_machine *m) {
  memset(m, 0, sizeof *m);
  strcpy(m->cpu, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[256];
    while (fgets(line, sizeof line, f)) {
      if (strncmp(line, "model name", 10)) continue;
      char *p = strchr(line, ':');
      if (!p) break;
      for (p++; *p == ' '; p++) {}
      p[strcspn(p, "\n")] = 0;
      snprintf(m->cpu, sizeof m->cpu, "%s", p);
      break;
    }
    fclose(f);
  }
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    m->isa = "AVX-512";
    m->vector_bits = 512;
    m->peak_core = bench_fma_peak(512, 0.3);
    m->peak_all_bits = 512;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    m->isa = "AVX2+FMA";
    m->vector_bits = 256;
    m->peak_core = bench_fma_peak(256, 0.3);
    m->peak_all_bits = 256;
  } else {
    m->isa = __builtin_cpu_supports("avx") ? "AVX" : "SSE";
    m->vector_bits = __builtin_cpu_supports("avx") ? 256 : 128;
  }
  m->ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (m->peak_all_bits)
    m->peak_all = bench_fma_peak_all(m->peak_all_bits, 0.3, m->ncpu);
}

void bench_machine_print(FILE *f, const bench_machine *m) {
  fprintf(f, "# cpu: %s, %d online; isa: %s; fp32 FMA peak (measured): ",
          m->cpu, m->ncpu, m->isa);
  if (m->peak_core > 0 && m->peak_all > 0)
    fprintf(f, "%.1f GFLOP/s per core, %.1f on all %d at once (%.2fx one)\n",
            m->peak_core, m->peak_all, m->ncpu, m->peak_all / m->peak_core);
  else if (m->peak_core > 0)
    fprintf(f, "%.1f GFLOP/s per core\n", m->peak_core);
  else
    fprintf(f, "not measured (no FMA unit detected)\n");
}

double bench_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int bench_warm_done(double t0_ms, int calls, int min_calls) {
  return calls >= min_calls && bench_now_ms() - t0_ms >= BENCH_WARM_MS;
}

int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_percentile(double *v, int n, double p) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return v[(int)(p * (n - 1) + 0.5)];
}
