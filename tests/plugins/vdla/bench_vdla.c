/*
 * tests/plugins/vdla/bench_vdla.c - the program bench/vdla: the ResNet-18
 * conv2d layers the TVM paper offloads to VDLA (C2-C12: 3x3 and 1x1, 56x56 down to 7x7, int8 in, int32
 * accumulation, requantized by a shift) compiled by the vdla plugin and
 * run on its timed simulator, with a serial schedule (n_vt = 1) and the
 * latency-hiding one (n_vt = 2, default tiles for each).  Per layer:
 * cycles, GEMM utilization (GEMM micro-op cycles / total cycles) and GOPS
 * at the configured clock, and whether the output equals the scalar
 * reference.  Simulated cycles do not depend on the host machine.  (The
 * source lives beside the test harness it shares, which reads the
 * plugin's internals: a program under bench/ may not include plugin or
 * test headers, tests/layering/check_layers.sh.)
 *
 *   ./bench/vdla [--target FILE.yaml] [--layers C2,C5]
 * e.g. ./bench/vdla --target ../targets/vdla-1x32x32.yaml (default: the
 * attributes of targets/vdla.yaml, the paper's configuration).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vdla_harness.h"
#include "tvm/runtime.h"
#include "tvm/target.h"

/* The hardware of a vdla target file (attributes validated by the
 * plugin's schema). */
static int from_yaml(const char *path, vdla_config *hw) {
  tvm_target *t = NULL;
  if (!getenv("TVM_PLUGIN_PATH")) setenv("TVM_PLUGIN_PATH", BENCH_PLUGIN_DIR, 1);
  if (tvm_target_load(path, &t) != TVM_OK) {
    fprintf(stderr, "%s\n", tvm_diag_message());
    return -1;
  }
  struct { const char *n; uint32_t *f; } ints[] = {
      {"batch", &hw->batch}, {"block_in", &hw->block_in},
      {"block_out", &hw->block_out}, {"inp_kib", &hw->inp_kib},
      {"wgt_kib", &hw->wgt_kib}, {"acc_kib", &hw->acc_kib},
      {"out_kib", &hw->out_kib}, {"uop_kib", &hw->uop_kib},
      {"bus_bytes", &hw->bus_bytes}, {"dma_latency", &hw->dma_latency},
      {"gemm_pipeline", &hw->gemm_pipeline}};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    const tvm_plugin_attr_value *v = tvm_target_attr(t, ints[i].n);
    if (v) *ints[i].f = (uint32_t)v->i;
  }
  const tvm_plugin_attr_value *v = tvm_target_attr(t, "clock_mhz");
  if (v) hw->clock_mhz = v->f;
  tvm_target_free(t);
  return 0;
}

typedef struct layer {
  const char *name;
  int64_t hw, ic, oc, k, stride;
} layer;

static const layer layers[] = {
    {"C2", 56, 64, 64, 3, 1},    {"C3", 56, 64, 64, 1, 1},
    {"C4", 56, 64, 128, 3, 2},   {"C5", 56, 64, 128, 1, 2},
    {"C6", 28, 128, 128, 3, 1},  {"C7", 28, 128, 256, 3, 2},
    {"C8", 28, 128, 256, 1, 2},  {"C9", 14, 256, 256, 3, 1},
    {"C10", 14, 256, 512, 3, 2}, {"C11", 14, 256, 512, 1, 2},
    {"C12", 7, 512, 512, 3, 1},
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  vdla_config hw;
  vdla_config_default(&hw);
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--target") && i + 1 < argc) {
      if (from_yaml(argv[++i], &hw)) return 1;
    } else if (!strcmp(argv[i], "--layers") && i + 1 < argc) {
      only = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [--target FILE.yaml] [--layers C2,C3]\n",
              argv[0]);
      return 2;
    }
  }
  vh h;
  if (vh_open(&h, &hw) != TVM_OK) {
    fprintf(stderr, "vdla: %s\n", tvm_diag_message());
    return 1;
  }
  const vdla_config *c = &h.t->cfg;
  printf("# VDLA %ux%ux%u, %u/%u/%u/%u/%u KiB inp/wgt/acc/out/uop, %.0f MHz, "
         "%u B/cycle bus, DMA latency %u; peak %.1f GOPS\n",
         c->batch, c->block_in, c->block_out, c->inp_kib, c->wgt_kib,
         c->acc_kib, c->out_kib, c->uop_kib, c->clock_mhz, c->bus_bytes,
         c->dma_latency,
         2.0 * c->batch * c->block_in * c->block_out * c->clock_mhz / 1e3);
  printf("%-4s %-22s %12s %6s %7s %12s %6s %7s %7s %s\n", "layer", "shape",
         "serial cyc", "util", "GOPS", "vt=2 cyc", "util", "GOPS", "speedup",
         "bit-exact");
  int bad = 0;
  double t0 = now();
  for (size_t l = 0; l < sizeof layers / sizeof layers[0]; l++) {
    const layer *L = &layers[l];
    if (only) {
      char key[8];
      snprintf(key, sizeof key, "%s,", L->name);
      char list[256];
      snprintf(list, sizeof list, "%s,", only);
      if (!strstr(list, key)) continue;
    }
    vdla_conv_shape s = {c->batch, L->ic, L->hw, L->hw, L->oc, L->k,
                         L->stride, L->k / 2, 8, 1};
    vh_run r[2];
    double macs = (double)vdla_conv_out(&s, s.h) * vdla_conv_out(&s, s.w) *
                  (double)s.oc * s.ic * s.k * s.k * s.n;
    int ok = 1;
    for (int v = 0; v < 2; v++) {
      memset(&r[v], 0, sizeof r[v]);
      r[v].nvt = v + 1;
      r[v].mode = VDLA_TIMED;
      if (vh_conv2d(&h, &s, &r[v]) != TVM_OK) {
        printf("%s n_vt=%d: %s\n", L->name, v + 1, tvm_diag_message());
        ok = 0;
        break;
      }
      ok &= r[v].mismatches == 0;
    }
    char shape[64];
    snprintf(shape, sizeof shape, "%lldx%lld %lld->%lld k%lld s%lld",
             (long long)L->hw, (long long)L->hw, (long long)L->ic,
             (long long)L->oc, (long long)L->k, (long long)L->stride);
    if (!ok && (!r[0].st.cycles || !r[1].st.cycles)) {
      bad = 1;
      continue;
    }
    double g0 = 2 * macs / ((double)r[0].st.cycles / (c->clock_mhz * 1e6)) / 1e9;
    double g1 = 2 * macs / ((double)r[1].st.cycles / (c->clock_mhz * 1e6)) / 1e9;
    printf("%-4s %-22s %12llu %5.1f%% %7.2f %12llu %5.1f%% %7.2f %6.2fx %s\n",
           L->name, shape, (unsigned long long)r[0].st.cycles,
           100 * r[0].st.gemm_utilization, g0,
           (unsigned long long)r[1].st.cycles, 100 * r[1].st.gemm_utilization,
           g1, (double)r[0].st.cycles / (double)r[1].st.cycles,
           ok ? "yes" : "NO");
    for (int v = 0; v < 2 && getenv("VDLA_BENCH_VERBOSE"); v++)
      printf("     %s %s\n       busy/stall load %llu/%llu compute %llu/%llu "
             "store %llu/%llu; gemm %llu alu %llu uops; insns %llu %llu %llu\n",
             v ? "vt=2:  " : "serial:", r[v].config,
             (unsigned long long)r[v].st.busy[0], (unsigned long long)r[v].st.stall[0],
             (unsigned long long)r[v].st.busy[1], (unsigned long long)r[v].st.stall[1],
             (unsigned long long)r[v].st.busy[2], (unsigned long long)r[v].st.stall[2],
             (unsigned long long)r[v].st.gemm_uops, (unsigned long long)r[v].st.alu_uops,
             (unsigned long long)r[v].st.insns[0], (unsigned long long)r[v].st.insns[1],
             (unsigned long long)r[v].st.insns[2]);
    bad |= !ok;
  }
  printf("# wall %.1f s (compile + simulate)\n", now() - t0);
  vh_close(&h);
  return bad;
}
