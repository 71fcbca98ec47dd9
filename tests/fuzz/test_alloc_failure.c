/*
 * tests/fuzz/test_alloc_failure.c - allocation-failure injection, SQLite
 * style: an operation is run again and again with the 1st, 2nd, 3rd, ...
 * allocation of the core (everything through tvm_malloc & co) failing,
 * until a run meets no failure; then again with every allocation from
 * the k-th on failing (a process that stays out of memory).  Every run must end either in success or
 * in an error status with a message, and leave no core memory behind
 * (live blocks counted by the test's allocator).  Operations: importing
 * and compiling a small ONNX model for llvm-cpu (import, graph passes,
 * kernels, lowering, codegen, plan), and loading its package.  The
 * number of failure points covered is printed.  Allocations inside LLVM
 * and the plugin's own malloc calls are outside the core and not failed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/compiler.h"
#include "tvm/onnx.h"
#include "tvm/target.h"

/* The injecting allocator: counts calls that allocate or grow, fails the
 * fail_at-th of them (0: none), tracks live blocks. */
static long calls, fail_at, live, failed;
static int persistent; /* 1: every allocation from the fail_at-th fails */

static void *inject_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    if (ptr) live--;
    free(ptr);
    return NULL;
  }
  ++calls;
  if (fail_at && (calls == fail_at || (persistent && calls > fail_at))) {
    failed = 1;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (p && !ptr) live++;
  return p;
}

static tvm_target *target;
static void *model;
static size_t model_size;
static char pkg[256];

/* Reads a file into malloc'd memory. */
static void *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *b = malloc((size_t)len + 1);
  if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *n = (size_t)len;
  return b;
}

static int setup(void **state) {
  (void)state;
  /* installed before anything is allocated: realloc/free blocks, like
   * the default allocator's */
  tvm_set_allocator(inject_alloc, NULL);
  const char *src = getenv("TVM_SRCDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/fuzz/small-relu-add.onnx",
           src ? src : "..");
  if (!(model = slurp(path, &model_size))) return -1;
  if (tvm_target_load("llvm-cpu", &target) != TVM_OK) {
    fprintf(stderr, "%s\n", tvm_diag_message());
    return -1;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(pkg, sizeof pkg, "%s/tvm-allocfail-%ld.tvmpkg",
           tmp && *tmp ? tmp : "/tmp", (long)getpid());
  return 0;
}

static int teardown(void **state) {
  (void)state;
  unlink(pkg);
  tvm_target_free(target);
  free(model);
  return 0;
}

/* One operation: returns its status; frees whatever it made. */
typedef tvm_status (*op_fn)(void);

static tvm_status op_compile(void) {
  tvm_graph *g = NULL;
  tvm_plan *p = NULL;
  tvm_status st = tvm_onnx_load_buffer(model, model_size, "small.onnx", &g);
  if (st == TVM_OK) st = tvm_compile(g, target, NULL, &p);
  if (st == TVM_OK) st = tvm_package_save(p, pkg);
  tvm_plan_free(p);
  tvm_graph_free(g);
  return st;
}

static tvm_status op_load(void) {
  tvm_plan *p = NULL;
  tvm_status st = tvm_package_load(pkg, target, &p);
  tvm_plan_free(p);
  return st;
}

/* Runs op with each allocation failing in turn; returns the number of
 * failure points (allocations of one successful run). */
static long inject_all(op_fn op, const char *name) {
  /* a first run fills lazily built global tables (op registry, ...) */
  fail_at = 0;
  assert_int_equal(op(), TVM_OK);
  long base = live, points = 0;
  /* TVM_ALLOC_FAIL_FROM=K starts at the K-th allocation (to debug one
   * failure point under LeakSanitizer) */
  const char *from = getenv("TVM_ALLOC_FAIL_FROM");
  for (long k = from ? atol(from) : 1;; k++) {
    calls = 0;
    failed = 0;
    fail_at = k;
    tvm_diag_clear();
    tvm_status st = op();
    fail_at = 0;
    if (!failed) {
      assert_int_equal(st, TVM_OK);
      break;
    }
    points++;
    if (st == TVM_OK) {
      /* the failure was absorbed (a cache, a fallback): fine if nothing
       * leaked */
    } else if (tvm_diag_message()[0] == 0) {
      fail_msg("%s: allocation %ld failed: status %d without a message",
               name, k, st);
    }
    if (live != base)
      fail_msg("%s: allocation %ld failed: %ld blocks leaked (status %d: %s)",
               name, k, live - base, st, tvm_diag_message());
  }
  printf("%s: %ld allocation-failure points (%s), each reported or "
         "absorbed, no leak\n", name, points,
         persistent ? "k-th and later fail" : "k-th fails");
  return points;
}

static void test_compile_fails_cleanly(void **state) {
  (void)state;
  for (persistent = 0; persistent < 2; persistent++)
    assert_true(inject_all(op_compile, "import+compile+save") > 100);
  persistent = 0;
}

static void test_package_load_fails_cleanly(void **state) {
  (void)state;
  fail_at = 0;
  assert_int_equal(op_compile(), TVM_OK);
  for (persistent = 0; persistent < 2; persistent++)
    assert_true(inject_all(op_load, "package load") > 5);
  persistent = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compile_fails_cleanly),
      cmocka_unit_test(test_package_load_fails_cleanly),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
