/*
 * tests/plugins/vdla/test_vdla_plugin.c - the VDLA plugin module: its
 * strategies, lowering passes and codegen, run on its simulated device
 * against the scalar references (plugins/vdla/vdla_workload.h).
 *
 *  - the virtual-thread lowering of a small dense layer: the driver's
 *    instruction stream, dependency flags included, as expected;
 *  - ResNet-18's offloaded conv2d layers bit-exact, each with the serial
 *    schedule (n_vt = 1) and the latency-hiding one (n_vt = 2), in timed
 *    and shuffle modes; latency hiding takes fewer cycles.  make check
 *    runs C5, C6, C12 (VDLA_ALL_LAYERS=1: C2-C12; bench/vdla runs all);
 *  - dense with a bias added by the ALU from the accumulator;
 *  - the conv2d template's knob space: points spread over it compile and
 *    run bit-exactly, or are rejected by the template before lowering;
 *  - a tile that does not fit: a compile error naming the scope;
 *  - without its dependency tokens a kernel goes wrong in shuffle mode;
 *  - through the target files (the plugin loaded as a module):
 *    targets/vdla.yaml and targets/vdla-1x32x32.yaml, the host program
 *    run by the runtime, VDLA_SIM_MODE selecting the mode.
 * VDLA_DUMP=1 prints command lists and programs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/compiler.h"
#include "tvm/host_program.h"
#include "tvm/runtime.h"
#include "tvm/target.h"
#include "vdla_harness.h"

static vh H;

static int setup(void **state) {
  (void)state;
  if (vh_open(&H, NULL) != TVM_OK) {
    fprintf(stderr, "open: %s\n", tvm_diag_message());
    return -1;
  }
  return 0;
}
static int teardown(void **state) {
  (void)state;
  vh_close(&H);
  return 0;
}

/* Runs conv s; fails on a compile error or any output differing. */
static void conv(const vdla_conv_shape *s, int nvt, int mode, uint64_t seed,
                 vh_run *r) {
  memset(r, 0, sizeof *r);
  r->nvt = nvt, r->mode = mode, r->seed = seed;
  if (vh_conv2d(&H, s, r) != TVM_OK)
    fail_msg("conv2d n_vt=%d: %s", nvt, tvm_diag_message());
  if (r->mismatches)
    fail_msg("%lld of %lld outputs differ from the reference (n_vt=%d, mode "
             "%d, %s)", (long long)r->mismatches, (long long)r->elems, nvt,
             mode, r->config);
}

/* ---- the virtual-thread lowering of a small example ------------------ */

/* dense 1x64 . 64x32 (+ bias, >> 4, clip), 2 virtual threads over the
 * output channel blocks, one block each, 2 input blocks per load.  Read
 * with the command list (VDLA_DUMP=1): the priming tokens of the core's
 * loop-carried edges ride on no-op carriers (zero-size LOAD/STORE, GEMM of
 * no micro-op); both threads' resets fold into one GEMM (extent_in 2);
 * thread 1's input and weight loads run while thread 0's GEMM waits for
 * its own (pop_prev), each GEMM releases its thread's buffers (push_prev),
 * micro-op lists load once and hit the cache on the second chunk; the
 * bias comes by LOAD ACC, the ALU adds it, shifts and clips, and the store
 * module waits for it (compute -> store tokens). */
static const char expected_program[] =
    "GEMM push_prev push_next uops 0-0 x 1 x 1\n"
    "LOAD INP push_next sram 0 y 0 x 0\n"
    "STORE push_prev sram 0 y 0 x 0\n"
    "GEMM pop_prev pop_next push_prev uops 0-0 x 1 x 1\n"
    "LOAD INP pop_next push_next sram 0 y 0 x 0\n"
    "STORE pop_prev push_prev sram 0 y 0 x 0\n"
    "GEMM pop_prev pop_next push_prev uops 0-0 x 1 x 1\n"
    "LOAD INP pop_next push_next sram 0 y 0 x 0\n"
    "LOAD UOP sram 0 y 1 x 1\n"
    "GEMM reset uops 0-1 x 1 x 2\n"
    "GEMM pop_prev push_prev uops 0-0 x 1 x 1\n"
    "GEMM push_prev uops 0-0 x 1 x 1\n"
    "LOAD INP pop_next sram 0 y 0 x 0\n"
    "LOAD INP pop_next sram 0 y 1 x 2\n"
    "LOAD WGT push_next sram 0 y 1 x 2\n"
    "LOAD INP pop_next sram 2 y 1 x 2\n"
    "LOAD WGT push_next sram 2 y 1 x 2\n"
    "GEMM pop_prev push_prev uops 0-1 x 1 x 2\n"
    "LOAD UOP pop_prev sram 1 y 1 x 1\n"
    "GEMM push_prev uops 1-2 x 1 x 2\n"
    "LOAD INP pop_next sram 0 y 1 x 2\n"
    "LOAD WGT push_next sram 0 y 1 x 2\n"
    "LOAD INP pop_next sram 2 y 1 x 2\n"
    "LOAD WGT push_next sram 2 y 1 x 2\n"
    "GEMM pop_prev push_prev uops 0-1 x 1 x 2\n"
    "GEMM pop_prev push_prev uops 1-2 x 1 x 2\n"
    "LOAD INP pop_next sram 0 y 0 x 0\n"
    "GEMM push_prev uops 0-0 x 1 x 1\n"
    "LOAD INP pop_next push_next sram 0 y 0 x 0\n"
    "GEMM pop_prev push_prev uops 0-0 x 1 x 1\n"
    "LOAD INP pop_next push_next sram 0 y 0 x 0\n"
    "LOAD ACC sram 2 y 1 x 1\n"
    "LOAD ACC sram 3 y 1 x 1\n"
    "LOAD UOP sram 2 y 1 x 1\n"
    "ALU uops 2-3 x 1 x 1\n"
    "ALU uops 0-1 x 1 x 1\n"
    "ALU uops 0-1 x 1 x 1\n"
    "ALU push_next uops 0-1 x 1 x 1\n"
    "LOAD UOP sram 3 y 1 x 1\n"
    "ALU uops 3-4 x 1 x 1\n"
    "LOAD UOP sram 4 y 1 x 1\n"
    "ALU uops 4-5 x 1 x 1\n"
    "ALU uops 4-5 x 1 x 1\n"
    "ALU push_next uops 4-5 x 1 x 1\n"
    "STORE pop_prev sram 0 y 1 x 1\n"
    "STORE pop_prev push_prev sram 1 y 1 x 1\n"
    "GEMM pop_prev pop_next push_prev push_next uops 0-0 x 1 x 1\n"
    "LOAD INP pop_next push_next sram 0 y 0 x 0\n"
    "STORE push_prev sram 0 y 0 x 0\n"
    "LOAD INP pop_next sram 0 y 0 x 0\n"
    "GEMM pop_prev pop_next uops 0-0 x 1 x 1\n"
    "STORE pop_prev sram 0 y 0 x 0\n"
    "FINISH\n";

static void test_vthread_stream(void **state) {
  (void)state;
  vdla_dense_shape s = {1, 64, 32, 4, 1};
  vh_run r;
  memset(&r, 0, sizeof r);
  r.nvt = 2, r.mode = VDLA_FUNCTIONAL, r.keep_stream = 1;
  r.force[0] = "tile_oc", r.force_inner[0] = 1;
  r.force[1] = "tile_ic", r.force_inner[1] = 2;
  if (vh_dense(&H, &s, &r) != TVM_OK) fail_msg("%s", tvm_diag_message());
  if (getenv("VDLA_DUMP")) printf("%s\n%s", r.stream, r.program);
  const char *save = getenv("VDLA_SAVE_PROGRAM"); /* to update the text */
  FILE *f = save && r.program ? fopen(save, "w") : NULL;
  if (f) fputs(r.program, f), fclose(f);
  assert_int_equal(r.mismatches, 0);
  assert_non_null(r.program);
  assert_string_equal(r.program, expected_program);
  free(r.stream);
  free(r.program);
}

/* ---- ResNet-18 ------------------------------------------------------- */

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

static void test_resnet18_layers(void **state) {
  (void)state;
  int all = getenv("VDLA_ALL_LAYERS") != NULL;
  int ran = 0;
  for (size_t l = 0; l < sizeof layers / sizeof layers[0]; l++) {
    const layer *L = &layers[l];
    if (!all && strcmp(L->name, "C5") && strcmp(L->name, "C6") &&
        strcmp(L->name, "C12"))
      continue;
    vdla_conv_shape s = {1, L->ic, L->hw, L->hw, L->oc, L->k, L->stride,
                         L->k / 2, 8, 1};
    vh_run serial, hiding, r;
    conv(&s, 1, VDLA_TIMED, 0, &serial);
    conv(&s, 2, VDLA_TIMED, 0, &hiding);
    conv(&s, 1, VDLA_SHUFFLE, 11 + l, &r);
    conv(&s, 2, VDLA_SHUFFLE, 23 + l, &r);
    printf("%-4s serial %8llu cycles (%4.1f%%), latency hiding %8llu (%4.1f%%)\n",
           L->name, (unsigned long long)serial.st.cycles,
           100 * serial.st.gemm_utilization,
           (unsigned long long)hiding.st.cycles,
           100 * hiding.st.gemm_utilization);
    if (hiding.st.cycles >= serial.st.cycles)
      fail_msg("%s: latency hiding (%llu cycles) is not faster than the "
               "serial schedule (%llu)", L->name,
               (unsigned long long)hiding.st.cycles,
               (unsigned long long)serial.st.cycles);
    ran++;
  }
  assert_true(ran >= 3);
}

/* int8 in, int8 out, no ReLU: the clip's lower bound -128 */
static void test_conv_signed(void **state) {
  (void)state;
  vdla_conv_shape s = {1, 32, 9, 9, 64, 3, 2, 1, 7, 0};
  vh_run r;
  conv(&s, 1, VDLA_FUNCTIONAL, 0, &r);
  conv(&s, 2, VDLA_SHUFFLE, 5, &r);
}

/* ---- dense with a bias in the accumulator ---------------------------- */

static void test_dense_bias(void **state) {
  (void)state;
  vdla_dense_shape s = {1, 256, 128, 6, 0};
  for (int nvt = 1; nvt <= 2; nvt++)
    for (int mode = VDLA_FUNCTIONAL; mode <= VDLA_SHUFFLE; mode++) {
      vh_run r;
      memset(&r, 0, sizeof r);
      r.nvt = nvt, r.mode = mode, r.seed = 3, r.keep_stream = 1;
      if (vh_dense(&H, &s, &r) != TVM_OK) fail_msg("%s", tvm_diag_message());
      if (r.mismatches) fail_msg("%lld outputs differ", (long long)r.mismatches);
      /* the bias came in by LOAD ACC and was added by the ALU */
      assert_non_null(strstr(r.stream, "LOAD ACC"));
      assert_non_null(strstr(r.stream, "ALU add acc"));
      free(r.stream);
      free(r.program);
    }
}

/* ---- the knob space ---------------------------------------------------- */

static void test_knob_space(void **state) {
  (void)state;
  vdla_conv_shape s = {1, 32, 14, 14, 64, 3, 1, 1, 8, 1};
  vh_run r;
  memset(&r, 0, sizeof r);
  r.nvt = 2, r.config_index = 1;
  if (vh_conv2d(&H, &s, &r) != TVM_OK && !r.rejected)
    fail_msg("%s", tvm_diag_message());
  uint64_t space = r.space;
  /* n_vt 2, vt_axis 2, tile_h 4, tile_w 4, tile_oc 3, tile_ic 2 */
  assert_int_equal(space, 2 * 2 * 4 * 4 * 3 * 2);
  int ran = 0, rejected = 0;
  for (uint64_t i = 0; i < space; i += 37) {
    memset(&r, 0, sizeof r);
    r.nvt = 2, r.mode = VDLA_SHUFFLE, r.seed = i, r.config_index = (int64_t)i + 1;
    tvm_status st = vh_conv2d(&H, &s, &r);
    if (st != TVM_OK && r.rejected) {
      rejected++;
      continue;
    }
    if (st != TVM_OK) fail_msg("config %llu: %s", (unsigned long long)i,
                               tvm_diag_message());
    if (r.mismatches) fail_msg("config %llu (%s): %lld outputs differ",
                               (unsigned long long)i, r.config,
                               (long long)r.mismatches);
    ran++;
  }
  printf("knob space %llu: %d points run bit-exact, %d rejected\n",
         (unsigned long long)space, ran, rejected);
  assert_true(ran >= 4);
}

/* ---- a tile that does not fit ------------------------------------------ */

static void test_tile_too_large(void **state) {
  (void)state;
  vdla_conv_shape s = {1, 64, 56, 56, 64, 3, 1, 1, 8, 1};
  vh_run r;
  memset(&r, 0, sizeof r);
  r.nvt = 1, r.ignore_reject = 1;
  r.force[0] = "tile_h", r.force_inner[0] = 56;
  r.force[1] = "tile_w", r.force_inner[1] = 56;
  tvm_status st = vh_conv2d(&H, &s, &r);
  assert_int_not_equal(st, TVM_OK);
  const char *m = tvm_diag_message();
  if (!strstr(m, "vdla.acc") && !strstr(m, "vdla.inp"))
    fail_msg("the error does not name the scope: %s", m);
}

/* ---- tokens -------------------------------------------------------------- */

static void test_tokens_matter(void **state) {
  (void)state;
  vdla_conv_shape s = {1, 64, 14, 14, 64, 3, 1, 1, 8, 1};
  int wrong = 0;
  for (uint64_t seed = 1; seed <= 4 && !wrong; seed++) {
    vh_run r;
    memset(&r, 0, sizeof r);
    r.nvt = 2, r.mode = VDLA_SHUFFLE, r.seed = seed, r.drop_tokens = 1;
    tvm_status st = vh_conv2d(&H, &s, &r);
    wrong = st != TVM_OK || r.mismatches > 0;
  }
  assert_true(wrong);
}

/* ---- through the target files -------------------------------------------- */

static int64_t attr_int(const tvm_target *t, const char *name) {
  const tvm_plugin_attr_value *v = tvm_target_attr(t, name);
  return v ? v->i : -1;
}

/* Compiles and runs conv s with the target of YAML file `file` the way
 * tvm-c does: strategy from the loaded plugin, its lowering options and
 * passes, host program by the runtime. */
static void run_yaml(const char *file, const vdla_conv_shape *s) {
  char path[1024];
  const char *src = getenv("TVM_SRCDIR");
  snprintf(path, sizeof path, "%s/targets/%s", src, file);
  tvm_target *t = NULL;
  if (tvm_target_load(path, &t) != TVM_OK) fail_msg("%s", tvm_diag_message());
  vdla_config hw;
  vdla_config_default(&hw);
  hw.batch = (uint32_t)attr_int(t, "batch");
  hw.block_in = (uint32_t)attr_int(t, "block_in");
  hw.block_out = (uint32_t)attr_int(t, "block_out");
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *args[3];
  assert_int_equal(vdla_conv2d_te(c, &hw, s, args), TVM_OK);
  tvm_schedule *sch = NULL;
  assert_int_equal(tvm_schedule_create(c, &args[2], 1, &sch), TVM_OK);
  const tvm_plugin_strategy *st = tvm_target_strategy(t, "vdla_conv2d");
  assert_non_null(st);
  if (st->schedule(t->instance, sch, &args[2], 1, NULL) != 0)
    fail_msg("strategy: %s", tvm_diag_message());
  tvm_lower_options lo;
  tvm_target_lower_options(t, &lo);
  assert_int_equal(lo.nextra_passes, 2);
  tvm_module m = {c, NULL, 0};
  if (tvm_lower(sch, args, 3, "conv", &lo, &m) != TVM_OK)
    fail_msg("lower: %s", tvm_diag_message());
  tvm_arena *a = tvm_arena_create();
  tvm_host_program *hp = NULL;
  tvm_func *host = m.funcs[m.nfuncs - 1];
  assert_int_equal(host->kind, TVM_FUNC_HOST);
  if (tvm_host_program_build(host, &m, a, &hp) != TVM_OK)
    fail_msg("host program: %s", tvm_diag_message());
  tvm_plugin_blob blob;
  if (tvm_target_codegen(t, &m, &blob) != TVM_OK)
    fail_msg("codegen: %s", tvm_diag_message());
  int64_t OH = vdla_conv_out(s, s->h), OW = vdla_conv_out(s, s->w);
  size_t nb[3] = {(size_t)(s->n * s->ic * s->h * s->w),
                  (size_t)(s->oc * s->ic * s->k * s->k),
                  (size_t)(s->n * s->oc * OH * OW)};
  int8_t *hb[3], *ref = malloc(nb[2]);
  uint32_t x = 12345;
  for (int i = 0; i < 3; i++) {
    hb[i] = calloc(1, nb[i]);
    for (size_t j = 0; i < 2 && j < nb[i]; j++)
      x = x * 1103515245u + 12345u, hb[i][j] = (int8_t)(x >> 24);
  }
  vdla_conv2d_ref(&hw, s, hb[0], hb[1], ref);
  tvm_device *d = NULL;
  tvm_runtime_module *rm = NULL;
  tvm_host_exec *ex = NULL;
  void *db[3] = {NULL, NULL, NULL};
  tvm_status rc = tvm_device_open(t, &d);
  if (!rc) rc = tvm_runtime_module_load(d, &blob, &rm);
  for (int i = 0; i < 3 && !rc; i++) rc = tvm_device_alloc(d, 0, nb[i], 64, &db[i]);
  for (int i = 0; i < 2 && !rc; i++)
    rc = tvm_device_copy(d, db[i], 0, hb[i], 0, nb[i], TVM_COPY_HOST_TO_DEVICE);
  if (!rc) rc = tvm_host_exec_create(hp, d, rm, db, 3, &ex);
  if (!rc) rc = tvm_host_exec_run(ex);
  if (!rc) rc = tvm_device_sync(d);
  if (!rc) rc = tvm_device_copy(d, hb[2], 0, db[2], 0, nb[2], TVM_COPY_DEVICE_TO_HOST);
  if (rc) fail_msg("%s: %s", file, tvm_diag_message());
  size_t bad = 0;
  for (size_t i = 0; i < nb[2]; i++) bad += hb[2][i] != ref[i];
  if (bad) fail_msg("%s: %zu of %zu outputs differ", file, bad, nb[2]);
  tvm_host_exec_free(ex);
  for (int i = 0; i < 3; i++)
    if (db[i]) tvm_device_free(d, 0, db[i]);
  tvm_runtime_module_free(rm);
  tvm_device_close(d);
  for (int i = 0; i < 3; i++) free(hb[i]);
  free(ref);
  tvm_plugin_blob_free(&blob);
  tvm_arena_destroy(a);
  tvm_schedule_free(sch);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

static void test_target_files(void **state) {
  (void)state;
  if (!getenv("TVM_BUILDDIR") || !getenv("TVM_SRCDIR")) {
    print_message("TVM_BUILDDIR not set (run through make check)\n");
    skip();
  }
  vdla_conv_shape s16 = {1, 32, 10, 10, 32, 3, 1, 1, 8, 1};
  vdla_conv_shape s32 = {1, 64, 10, 10, 64, 3, 1, 1, 9, 1};
  run_yaml("vdla.yaml", &s16);
  run_yaml("vdla-1x32x32.yaml", &s32);
  setenv("VDLA_SIM_MODE", "shuffle", 1);
  setenv("VDLA_SIM_SEED", "99", 1);
  run_yaml("vdla-1x32x32.yaml", &s32);
  setenv("VDLA_SIM_MODE", "timed", 1);
  run_yaml("vdla.yaml", &s16);
  unsetenv("VDLA_SIM_MODE");
  unsetenv("VDLA_SIM_SEED");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vthread_stream),
      cmocka_unit_test(test_resnet18_layers),
      cmocka_unit_test(test_conv_signed),
      cmocka_unit_test(test_dense_bias),
      cmocka_unit_test(test_knob_space),
      cmocka_unit_test(test_tile_too_large),
      cmocka_unit_test(test_tokens_matter),
      cmocka_unit_test(test_target_files),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
