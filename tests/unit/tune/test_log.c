/*
 * tests/unit/tune/test_log.c - the tuning log: records written and read
 * back (round trip), malformed lines reported with their line number and
 * skipped, the best record per workload and target (re-measurement
 * records first), presets from a record, and the cost model's ranking on
 * a toy problem (when XGBoost is built in) with a save/load round trip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tvm/tune.h"

/* A record of workload wl with one knob "tile" at entry idx of 4. */
static void make(tvm_tune_record *r, const char *wl, int idx, double cost,
                 int err) {
  static char *names[1] = {"tile"};
  static int ids[8], nent[1] = {4};
  static int slot;
  memset(r, 0, sizeof *r);
  r->workload = (char *)wl;
  r->target = "llvm-cpu";
  r->tmpl = "llvm-cpu.conv2d_NCHWc";
  r->config_str = "tile=x";
  r->knobs = names;
  ids[slot & 7] = idx;
  r->idx = &ids[slot++ & 7];
  r->nent = nent;
  r->nknobs = 1;
  r->error = err;
  if (!err) {
    r->costs[0] = cost;
    r->costs[1] = cost;
    r->ncosts = 2;
  }
  r->time = 1e9;
}

/* A new temporary file for writing; its name in path (a mkstemp
 * template). */
static FILE *temp_log(char *path) {
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  return f;
}

/* Closes f, reads its log back and removes the file. */
static tvm_tune_log *read_back(FILE *f, const char *path) {
  tvm_tune_log *l = NULL;
  fclose(f);
  assert_int_equal(tvm_tune_log_read(path, &l), TVM_OK);
  unlink(path);
  return l;
}

static void test_round_trip_and_malformed(void **state) {
  (void)state;
  char path[] = "/tmp/tvm_test_log_XXXXXX";
  FILE *f = temp_log(path);
  tvm_tune_record r;
  make(&r, "wl-a", 1, 2e-3, TVM_TUNE_OK);
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-a", 2, 1e-3, TVM_TUNE_OK); /* the best of wl-a */
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  fputs("{\"version\":1,\"workload\": broken\n", f);      /* line 3 */
  make(&r, "wl-a", 3, 0, TVM_TUNE_ERR_CRASH);
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  fputs("\n{\"version\":9}\n", f);                       /* line 6 */
  make(&r, "wl-b", 0, 5e-3, TVM_TUNE_OK);
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  fputs("{\"version\":1,\"workload\":\"x\",\"target\":\"t\",\"config\":{\"k\":[5,2]},"
        "\"costs\":[1],\"error\":\"ok\"}\n", f);         /* line 8: 5 >= 2 */
  fputs("{\"version\":1,\"workload\":\"trunc", f);       /* killed mid-line */
  fclose(f);

  tvm_tune_log *l = NULL;
  assert_int_equal(tvm_tune_log_read(path, &l), TVM_OK);
  assert_int_equal(tvm_tune_log_count(l), 4);
  assert_int_equal(tvm_tune_log_skipped(l), 4);
  const tvm_tune_record *b = tvm_tune_log_best(l, "wl-a", "llvm-cpu");
  assert_non_null(b);
  assert_int_equal(b->idx[0], 2);
  assert_true(b->cost_s == 1e-3);
  assert_string_equal(b->config_str, "tile=x");
  assert_int_equal(b->nent[0], 4);
  assert_null(tvm_tune_log_best(l, "wl-a", "other-target"));
  assert_null(tvm_tune_log_best(l, "wl-c", "llvm-cpu"));
  const tvm_tune_record *c = tvm_tune_log_get(l, 2);
  assert_int_equal(c->error, TVM_TUNE_ERR_CRASH);

  /* a record presets its knobs */
  tvm_config *cfg = tvm_config_create();
  assert_int_equal(tvm_tune_record_apply(b, cfg), TVM_OK);
  int64_t v = tvm_cfg_choice(cfg, "tile", (int64_t[]){1, 2, 4, 8}, 4, 0);
  assert_int_equal(v, 4);
  /* and a config becomes a record */
  tvm_tune_record w;
  memset(&w, 0, sizeof w);
  assert_int_equal(tvm_tune_record_set_config(&w, cfg), TVM_OK);
  assert_int_equal(w.nknobs, 1);
  assert_int_equal(w.idx[0], 2);
  assert_int_equal(w.nent[0], 4);
  assert_string_equal(w.config_str, "tile=4");
  tvm_tune_record_clear(&w);
  tvm_config_free(cfg);
  tvm_tune_log_free(l);
  unlink(path);
  assert_int_equal(tvm_tune_log_read("/nonexistent/log.jsonl", &l),
                   TVM_ERR_IO);
}

/* A candidate's cost is the fastest of its repeats; a non-positive one
 * makes the whole measurement invalid. */
/* Layout records: "default" round-trips, and a layout workload's choice
 * is its fastest record unless the default layout's is within
 * TVM_TUNE_LAYOUT_MARGIN of it. */
static void test_layout_choice(void **state) {
  (void)state;
  char path[] = "/tmp/tvm_test_layout_XXXXXX";
  FILE *f = temp_log(path);
  tvm_tune_record r;
  make(&r, "layout_Conv-a", 0, 2.00e-3, TVM_TUNE_OK);
  r.is_default = 1;
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "layout_Conv-a", 1, 1.97e-3, TVM_TUNE_OK); /* within 5% */
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "layout_Conv-b", 0, 2.00e-3, TVM_TUNE_OK);
  r.is_default = 1;
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "layout_Conv-b", 2, 1.50e-3, TVM_TUNE_OK); /* 1.33x faster */
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "layout_Conv-c", 3, 1.0e-3, TVM_TUNE_OK); /* no default record */
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  tvm_tune_log *l = read_back(f, path);
  assert_int_equal(tvm_tune_log_count(l), 5);
  assert_int_equal(tvm_tune_log_get(l, 0)->is_default, 1);
  assert_int_equal(tvm_tune_log_get(l, 1)->is_default, 0);
  const tvm_tune_record *b = tvm_tune_log_best_layout(l, "layout_Conv-a", "llvm-cpu");
  assert_non_null(b);
  assert_int_equal(b->idx[0], 0); /* the default: a near tie */
  /* the plain best (kernels' rule) is the faster one */
  assert_int_equal(tvm_tune_log_best(l, "layout_Conv-a", "llvm-cpu")->idx[0], 1);
  b = tvm_tune_log_best_layout(l, "layout_Conv-b", "llvm-cpu");
  assert_int_equal(b->idx[0], 2);
  b = tvm_tune_log_best_layout(l, "layout_Conv-c", "llvm-cpu");
  assert_int_equal(b->idx[0], 3);
  assert_null(tvm_tune_log_best_layout(l, "layout_Conv-d", "llvm-cpu"));
  assert_null(tvm_tune_log_best_layout(l, "layout_Conv-a", "cuda"));
  tvm_tune_log_free(l);
}

static void test_cost_of_repeats(void **state) {
  (void)state;
  assert_true(tvm_tune_cost((double[]){2e-3, 1e-3, 3e-3}, 3) == 1e-3);
  assert_true(tvm_tune_cost((double[]){4e-3}, 1) == 4e-3);
  assert_true(tvm_tune_cost((double[]){2e-3, 0, 3e-3}, 3) == 0);
  assert_true(tvm_tune_cost(NULL, 0) == 0);
  /* a re-measurement record's cost: the median */
  assert_true(tvm_tune_cost_median((double[]){3e-3, 1e-3, 2e-3}, 3) == 2e-3);
  assert_true(tvm_tune_cost_median((double[]){4e-3, 1e-3, 2e-3, 3e-3}, 4) ==
              2.5e-3);
  assert_true(tvm_tune_cost_median((double[]){2e-3, 0, 3e-3}, 3) == 0);
  assert_true(tvm_tune_cost_median(NULL, 0) == 0);
}

/* Re-measurement records ("confirmed"): the flag round-trips, their cost
 * is the median of their costs, and a workload that has them takes the
 * faster of those, not the search's fastest single measurement (which
 * on a noisy machine is biased upward), unless a search record written
 * after them is faster still. */
static void test_confirmed_choice(void **state) {
  (void)state;
  char path[] = "/tmp/tvm_test_confirm_XXXXXX";
  FILE *f = temp_log(path);
  tvm_tune_record r;
  make(&r, "wl-a", 0, 1.20e-3, TVM_TUNE_OK); /* the default, searched */
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-a", 1, 1.00e-3, TVM_TUNE_OK); /* the search's best, lucky */
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-a", 2, 1.10e-3, TVM_TUNE_OK);
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-a", 0, 0, TVM_TUNE_OK); /* default re-measured: 1.1 ms */
  r.confirmed = 1;
  r.costs[0] = 1.15e-3, r.costs[1] = 1.05e-3, r.costs[2] = 1.10e-3;
  r.ncosts = 3;
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-a", 1, 0, TVM_TUNE_OK); /* best re-measured: 1.2 ms */
  r.confirmed = 1;
  r.costs[0] = 1.00e-3, r.costs[1] = 1.25e-3, r.costs[2] = 1.20e-3;
  r.ncosts = 3;
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-b", 3, 2.0e-3, TVM_TUNE_OK); /* no re-measurement */
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-b", 2, 1.5e-3, TVM_TUNE_OK);
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  /* wl-c: a later run without re-measurement finds a faster config (it
   * wins), and one that is slower than the re-measured best (it does not) */
  make(&r, "wl-c", 0, 0, TVM_TUNE_OK);
  r.confirmed = 1;
  r.costs[0] = 2.0e-3, r.ncosts = 1;
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-c", 1, 1.9e-3, TVM_TUNE_OK); /* same run: not newer */
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-c", 2, 2.1e-3, TVM_TUNE_OK);
  r.time = 2e9;
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-d", 0, 0, TVM_TUNE_OK);
  r.confirmed = 1;
  r.costs[0] = 2.0e-3, r.ncosts = 1;
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  make(&r, "wl-d", 3, 1.8e-3, TVM_TUNE_OK);
  r.time = 2e9;
  assert_int_equal(tvm_tune_record_write(f, &r), TVM_OK);
  tvm_tune_log *l = read_back(f, path);
  assert_int_equal(tvm_tune_log_count(l), 12);
  assert_int_equal(tvm_tune_log_best(l, "wl-c", "llvm-cpu")->idx[0], 0);
  assert_int_equal(tvm_tune_log_best(l, "wl-d", "llvm-cpu")->idx[0], 3);
  assert_int_equal(tvm_tune_log_get(l, 1)->confirmed, 0);
  const tvm_tune_record *c = tvm_tune_log_get(l, 4);
  assert_int_equal(c->confirmed, 1);
  assert_true(c->cost_s == 1.20e-3); /* the median, not the fastest */
  const tvm_tune_record *b = tvm_tune_log_best(l, "wl-a", "llvm-cpu");
  assert_non_null(b);
  assert_int_equal(b->confirmed, 1);
  assert_int_equal(b->idx[0], 0); /* the default won the re-measurement */
  assert_true(b->cost_s == 1.10e-3);
  b = tvm_tune_log_best(l, "wl-b", "llvm-cpu"); /* the plain rule */
  assert_int_equal(b->idx[0], 2);
  tvm_tune_log_free(l);
}

static void test_model_ranks(void **state) {
  (void)state;
  if (!tvm_tune_model_available()) {
    tvm_tune_model *m = NULL;
    assert_int_equal(tvm_tune_model_create(1, 1, &m), TVM_ERR_UNAVAILABLE);
    skip();
  }
  /* y = 3*f0 - f1 over 2 groups; held-out pairs must be ranked right */
  enum { N = 120 };
  static float x[N * TVM_TUNE_NFEATURES], y[N];
  static int g[N];
  uint32_t s = 7;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < TVM_TUNE_NFEATURES; j++) {
      s = s * 1664525u + 1013904223u;
      x[i * TVM_TUNE_NFEATURES + j] = (float)(s >> 8) / 16777216.0f;
    }
    y[i] = 3 * x[i * TVM_TUNE_NFEATURES] - x[i * TVM_TUNE_NFEATURES + 1];
    g[i] = i % 2;
  }
  tvm_tune_model *m = NULL;
  assert_int_equal(tvm_tune_model_create(1, 1, &m), TVM_OK);
  assert_int_equal(tvm_tune_model_fit(m, x, y, g, 100), TVM_OK);
  float p[20];
  assert_int_equal(tvm_tune_model_predict(m, x + 100 * TVM_TUNE_NFEATURES, 20,
                                          p), TVM_OK);
  int right = 0, pairs = 0;
  for (int i = 0; i < 20; i++)
    for (int j = i + 1; j < 20; j++) {
      pairs++;
      right += (p[i] > p[j]) == (y[100 + i] > y[100 + j]);
    }
  assert_true(right > pairs * 8 / 10);
  char path[] = "/tmp/tvm_test_model_XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  assert_int_equal(tvm_tune_model_save(m, path), TVM_OK);
  tvm_tune_model *m2 = NULL;
  assert_int_equal(tvm_tune_model_create(1, 1, &m2), TVM_OK);
  assert_int_equal(tvm_tune_model_load(m2, path), TVM_OK);
  float p2[20];
  assert_int_equal(tvm_tune_model_predict(m2, x + 100 * TVM_TUNE_NFEATURES,
                                          20, p2), TVM_OK);
  for (int i = 0; i < 20; i++)
    assert_true(p[i] == p2[i]);
  unlink(path);
  tvm_tune_model_free(m);
  tvm_tune_model_free(m2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_and_malformed),
      cmocka_unit_test(test_layout_choice),
      cmocka_unit_test(test_cost_of_repeats),
      cmocka_unit_test(test_confirmed_choice),
      cmocka_unit_test(test_model_ranks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
