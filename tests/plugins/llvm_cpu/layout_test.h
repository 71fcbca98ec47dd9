/*
 * tests/plugins/llvm_cpu/layout_test.h - what the llvm-cpu layout and
 * template tests share (test_nchwc.c, test_conv_blocks.c,
 * test_matmul_templates.c, test_winograd.c): the
 * target T (llvm-cpu, loaded by setup; setup_direct: with Winograd off
 * by default), and compile_check: the graph's
 * reference first, then compiled (alter_layout on by default), run and
 * compared.
 */
#ifndef TVM_TEST_LLVM_CPU_LAYOUT_TEST_H
#define TVM_TEST_LLVM_CPU_LAYOUT_TEST_H

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../unit/compiler/compile_test.h"
#include "tvm/graph_passes.h"
#include "tvm/target.h"
#include "tvm/tune.h"

#define F32 tvm_dt(kDLFloat, 32, 1)
#define RTOL 1e-4

static tvm_target *T;

static inline int setup(void **state) {
  (void)state;
  if (tvm_target_load("llvm-cpu", &T) != TVM_OK) {
    fprintf(stderr, "llvm-cpu: %s\n", tvm_diag_message());
    return -1;
  }
  return 0;
}

/* setup for the direct convolution template's tests: llvm-cpu with
 * winograd_min_tiles 0 (no Winograd by default; the knob stays), from a
 * target file written to a temporary directory. */
static inline int setup_direct(void **state) {
  (void)state;
  char dir[] = "/tmp/tvm_direct_XXXXXX", path[64];
  if (!mkdtemp(dir)) return -1;
  snprintf(path, sizeof path, "%s/llvm-cpu-direct.yaml", dir);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("name: llvm-cpu-direct\nplugin: llvm-cpu\nkeys: [cpu]\n"
        "attrs: {winograd_min_tiles: 0}\n"
        "tuning: {number: 4, repeat: 3, min_repeat_ms: 50, timeout_s: 10}\n",
        f);
  fclose(f);
  tvm_status st = tvm_target_load(path, &T);
  unlink(path);
  rmdir(dir);
  if (st != TVM_OK) {
    fprintf(stderr, "llvm-cpu-direct: %s\n", tvm_diag_message());
    return -1;
  }
  return 0;
}

static inline int teardown(void **state) {
  (void)state;
  tvm_target_free(T);
  return 0;
}

static inline int count_op(const tvm_graph *g, const char *op) {
  int k = 0;
  for (size_t i = 0; i < g->nodes.len; i++)
    k += strcmp(((tvm_gnode *)g->nodes.data[i])->op, op) == 0;
  return k;
}

/* Reference of g before compiling, then compile with options o, run and
 * compare.  Returns the plan. */
static inline tvm_plan *compile_check_opts(tvm_graph *g, uint64_t seed,
                                    const tvm_compile_options *o) {
  tensors in, want, got;
  tvm_plan *p = NULL;
  CHECK_OK(tvm_graph_status(g));
  tensors_alloc(&in, &g->inputs, seed);
  eval_graph(g, &in, &want);
  OKR(tvm_compile(g, T, o, &p));
  run_plan(p, T, &in, &got);
  expect_close(&got, &want, RTOL);
  tensors_free(&in);
  tensors_free(&want);
  tensors_free(&got);
  return p;
}

/* compile_check_opts with alter_layout on (the default) and a dump. */
static inline tvm_plan *compile_check_dump(tvm_graph *g, uint64_t seed,
                                    const char *dump, FILE *to) {
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.dump_ir = dump;
  o.dump_to = to;
  assert_int_equal(o.alter_layout, 1);
  return compile_check_opts(g, seed, &o);
}

static inline tvm_plan *compile_check(tvm_graph *g, uint64_t seed) {
  return compile_check_dump(g, seed, NULL, NULL);
}

/* compile_check, and *ir (heap; free it) the loop IR after the vectorize
 * pass, for tests that check what the templates made of it. */
static inline tvm_plan *compile_check_vectorized(tvm_graph *g, uint64_t seed,
                                          char **ir) {
  size_t n = 0;
  FILE *f = open_memstream(ir, &n);
  assert_non_null(f);
  tvm_plan *p = compile_check_dump(g, seed, "vectorize", f);
  fclose(f);
  return p;
}

/* T's float32 lanes (its vector width), 4 to 16. */
static inline int test_lanes(void) {
  int lanes = (int)tvm_target_info(T)->vector_bits / 32;
  return lanes < 4 ? 4 : lanes > 16 ? 16 : lanes;
}

/* g's reference, then compiled with the tuner's hooks (presets), run
 * and compared; *ir (heap; free it) the loop IR after vectorize.
 * Returns the plan. */
static inline tvm_plan *compile_check_hooked(tvm_graph *g, uint64_t seed,
                                             tvm_tune_hooks *hooks,
                                             char **ir) {
  size_t n = 0;
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.tune = hooks;
  o.dump_ir = "vectorize";
  o.dump_to = open_memstream(ir, &n);
  assert_non_null(o.dump_to);
  tvm_plan *p = compile_check_opts(g, seed, &o);
  fclose(o.dump_to);
  return p;
}

/* A compile hook (tvm_tune_hooks.kernel) presetting named knobs of the
 * kernels of one template, by index into their choices; counts the
 * kernels it saw. */
typedef struct knob_preset {
  const char *tmpl;    /* the template whose kernels get the presets */
  const char *knob[3]; /* knob names (NULL: none) */
  int idx[3];
  int hits;
} knob_preset;

static inline tvm_status preset_knobs(void *ud, tvm_tune_kernel *k,
                                      tvm_config *cfg) {
  knob_preset *b = ud;
  if (!cfg || strcmp(tvm_tune_kernel_template(k), b->tmpl)) return TVM_OK;
  b->hits++;
  tvm_status st = TVM_OK;
  for (int i = 0; i < 3 && !st && b->knob[i]; i++)
    st = tvm_config_preset(cfg, b->knob[i], b->idx[i]);
  return st;
}

/* Fails case i unless ir holds a local block of `floats` float32s (the
 * register block's accumulators). */
static inline void expect_accumulators(const char *ir, size_t i, int floats) {
  char acc[64];
  snprintf(acc, sizeof acc, "[float32 * %d]", floats);
  if (!strstr(ir, acc))
    fail_msg("case %zu: no %s accumulator block in:\n%s", i, acc, ir);
}

/* Occurrences of needle in the file at path (0 when unreadable). */
static inline int count_in_file(const char *path, const char *needle) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[4096];
  int n = 0;
  while (fgets(line, sizeof line, f))
    for (const char *q = line; (q = strstr(q, needle)); q += strlen(needle))
      n++;
  fclose(f);
  return n;
}

/* Compiles g as compile_check does (seed: its inputs; hooks: the tuner's
 * compile hooks, or NULL) with $TVM_LLVM_DUMP set, and counts, in the
 * LLVM IR of its functions ending in suffix (".raw.ll" as built,
 * ".opt.ll" optimized; the module globals' part left out), the
 * occurrences of each of the n needles into count[i]; returns the plan
 * and sets *files to the files counted. */
static inline tvm_plan *compile_count_llvm(tvm_graph *g, uint64_t seed,
                                           tvm_tune_hooks *hooks,
                                           const char *suffix,
                                           const char *const *needle,
                                           int *count, int n, int *files) {
  char dir[] = "/tmp/tvm-llvm-dump-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char prefix[64];
  snprintf(prefix, sizeof prefix, "%s/d", dir);
  setenv("TVM_LLVM_DUMP", prefix, 1);
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.tune = hooks;
  tvm_plan *p = compile_check_opts(g, seed, &o);
  unsetenv("TVM_LLVM_DUMP");
  for (int i = 0; i < n; i++) count[i] = 0;
  *files = 0;
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *de;
  char path[512];
  size_t sl = strlen(suffix);
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (de->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if (len > sl && strcmp(de->d_name + len - sl, suffix) == 0 &&
        !strstr(de->d_name, ".globals.")) {
      for (int i = 0; i < n; i++) count[i] += count_in_file(path, needle[i]);
      (*files)++;
    }
    remove(path);
  }
  closedir(d);
  rmdir(dir);
  return p;
}

#endif
