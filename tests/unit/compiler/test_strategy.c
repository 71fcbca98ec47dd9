/*
 * tests/unit/compiler/test_strategy.c - choosing schedules (tvm/strategy.h)
 * and the serialize_threads pass.
 *
 *  - the order exact name > pattern (by priority) > default > core
 *    generic, with strat4 (tests/unit/compiler/strat_plugin.c, ABI 4);
 *  - a strategy that declines (TVM_ERR_UNSUPPORTED) passes to the next,
 *    one that fails is an error naming the operator and the strategy;
 *  - intrinsics are declared once per environment and handed over;
 *  - an ABI 3 plugin's table (32-byte entries) matches by name only;
 *  - the generic family follows the target (keys [gpu] on a thread
 *    target), and keys that contradict it (cpu with threads, gpu without)
 *    are refused;
 *  - serialize_threads splits a thread loop at its barrier and expands
 *    per-thread memory (printed IR);
 *  - the generic CPU schedule's parallel loop fuses leading axes only
 *    until they make 256 iterations, the rest stay serial loops (printed
 *    schedule).
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

#include "tvm/graph.h"
#include "tvm/lower.h"
#include "tvm/schedule.h"
#include "tvm/strategy.h"
#include "tvm/te.h"

static tvm_plugin_registry *R;
static char dir[256];

/* Writes dir/<file> with a target of plugin p and keys k. */
static void yaml(const char *file, const char *name, const char *p,
                 const char *k) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "name: %s\nplugin: %s\nkeys: [%s]\n", name, p, k);
  fclose(f);
}

static tvm_target *load(const char *file) {
  char path[512];
  tvm_target *t = NULL;
  snprintf(path, sizeof path, "%s/%s", dir, file);
  if (tvm_target_load_with(R, path, &t) != TVM_OK)
    fail_msg("loading %s: %s", file, tvm_diag_message());
  return t;
}

static int setup(void **state) {
  (void)state;
  const char *b = getenv("TVM_BUILDDIR");
  char plugins[2048];
  snprintf(dir, sizeof dir, "/tmp/tvm-test-strategy-XXXXXX");
  if (!b || !mkdtemp(dir))
    return -1;
  snprintf(plugins, sizeof plugins,
           "%s/tests/unit/compiler/.libs:%s/tests/plugins/simt/.libs", b, b);
  if (tvm_plugin_registry_create(plugins, 0, &R) != TVM_OK)
    return -1;
  yaml("s4.yaml", "s4", "strat4", "cpu");
  yaml("s4gpu.yaml", "s4gpu", "strat4", "gpu");
  yaml("s3.yaml", "s3", "strat3", "cpu");
  yaml("simt.yaml", "simt", "simt", "gpu");
  yaml("simtcpu.yaml", "simtcpu", "simt", "cpu");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[512];
  tvm_plugin_registry_free(R);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static tvm_expr *copy_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_tread(c, ud, i, 2);
}

/* Schedules a 4x4 copy as operator op of pattern pat on env; returns the
 * status, *tag the tag the strategy left (or ""), *used the template. */
static tvm_status sched(tvm_strategy_env *e, tvm_ctx *c, const char *op,
                        int pat, const char **tag, const char **used) {
  tvm_tensor *a = tvm_placeholder(c, "a", TVM_F32, (int64_t[]){4, 4}, 2);
  tvm_tensor *o = tvm_compute(c, "o", (int64_t[]){4, 4}, 2, copy_body, a);
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s = NULL;
  tvm_status st;
  assert_non_null(o);
  tvm_tensor_set_tag(o, "");
  st = tvm_strategy_schedule(e, op, pat, NULL, &o, 1, cfg, &s, used);
  *tag = o->op->tag ? o->op->tag : "";
  tvm_schedule_free(s);
  tvm_config_free(cfg);
  return st;
}

static void test_order_and_failure(void **state) {
  (void)state;
  tvm_target *t = load("s4.yaml");
  tvm_ctx *c = tvm_ctx_create();
  tvm_strategy_env *e = NULL;
  const char *tag, *used;
  const tvm_plugin_strategy *cand[8];
  assert_int_equal(tvm_strategy_env_create(t, c, &e), TVM_OK);
  assert_int_equal(tvm_strategy_env_family(e), TVM_FAMILY_CPU);

  /* candidates of Relu: its name, the two elementwise ones, the default */
  assert_int_equal(tvm_target_strategies(t, "Relu", TVM_PAT_ELEMWISE, cand, 8),
                   4);
  assert_string_equal(cand[0]->name, "exact.relu.declines");
  assert_string_equal(cand[1]->name, "pattern.elemwise.hi");
  assert_string_equal(cand[2]->name, "pattern.elemwise.lo");
  assert_string_equal(cand[3]->name, "default");

  assert_int_equal(sched(e, c, "Exp", TVM_PAT_ELEMWISE, &tag, &used), TVM_OK);
  assert_string_equal(tag, "exact.exp|intrin1|Exp");
  /* Relu's own strategy declines: the best pattern one runs */
  assert_int_equal(sched(e, c, "Relu", TVM_PAT_ELEMWISE, &tag, &used), TVM_OK);
  assert_string_equal(tag, "pattern.elemwise.hi|intrin1|Relu");
  assert_string_equal(used, "pattern.elemwise.hi");
  /* no name, no pattern strategy: the default */
  assert_int_equal(sched(e, c, "Conv", TVM_PAT_OUT_ELEMWISE_FUSABLE, &tag,
                         &used),
                   TVM_OK);
  assert_string_equal(tag, "default|intrin1|Conv");
  /* an entry with schedule() only is called through it */
  assert_int_equal(sched(e, c, "Log", TVM_PAT_ELEMWISE, &tag, &used), TVM_OK);
  assert_string_equal(tag, "legacy.log|-|-");
  /* a failing strategy is an error naming it and the operator */
  assert_int_equal(sched(e, c, "Abs", TVM_PAT_ELEMWISE, &tag, &used),
                   TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "exact.abs.fails"));
  assert_non_null(strstr(tvm_diag_message(), "operator Abs"));
  assert_non_null(strstr(tvm_diag_message(), "broken template"));
  tvm_strategy_env_free(e);

  /* a new environment declares the intrinsic again, once */
  assert_int_equal(tvm_strategy_env_create(t, c, &e), TVM_OK);
  assert_int_equal(sched(e, c, "Exp", TVM_PAT_ELEMWISE, &tag, &used), TVM_OK);
  assert_string_equal(tag, "exact.exp|intrin2|Exp");
  assert_int_equal(sched(e, c, "Exp", TVM_PAT_ELEMWISE, &tag, &used), TVM_OK);
  assert_string_equal(tag, "exact.exp|intrin2|Exp");
  tvm_strategy_env_free(e);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

static void test_abi3_table(void **state) {
  (void)state;
  tvm_target *t = load("s3.yaml");
  tvm_ctx *c = tvm_ctx_create();
  tvm_strategy_env *e = NULL;
  const char *tag, *used;
  const tvm_plugin_strategy *cand[4];
  assert_int_equal(t->plugin->abi_version, 3);
  assert_int_equal(tvm_strategy_env_create(t, c, &e), TVM_OK);
  /* the second 32-byte entry is found: the host walks by struct_size */
  assert_non_null(tvm_target_strategy(t, "Log"));
  assert_string_equal(tvm_target_strategy(t, "Log")->name, "legacy.log");
  assert_int_equal(sched(e, c, "Log", TVM_PAT_ELEMWISE, &tag, &used), TVM_OK);
  assert_string_equal(tag, "legacy.log|-|-");
  assert_int_equal(sched(e, c, "Exp", TVM_PAT_ELEMWISE, &tag, &used), TVM_OK);
  assert_string_equal(tag, "legacy.exp|-|-");
  /* nothing matches an ABI 3 table by pattern */
  assert_int_equal(tvm_target_strategies(t, "Sqrt", TVM_PAT_ELEMWISE, cand, 4),
                   0);
  assert_int_equal(sched(e, c, "Sqrt", TVM_PAT_ELEMWISE, &tag, &used), TVM_OK);
  assert_string_equal(used, "core.generic_cpu");
  tvm_strategy_env_free(e);
  tvm_ctx_destroy(c);
  tvm_target_free(t);
}

static void test_families(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_strategy_env *e = NULL;
  tvm_target *t = load("simt.yaml");
  const char *tag, *used;
  assert_int_equal(tvm_strategy_env_create(t, c, &e), TVM_OK);
  assert_int_equal(tvm_strategy_env_family(e), TVM_FAMILY_THREAD);
  assert_int_equal(sched(e, c, "Relu", TVM_PAT_ELEMWISE, &tag, &used), TVM_OK);
  assert_string_equal(used, "core.generic_thread");
  tvm_strategy_env_free(e);
  tvm_target_free(t);
  /* has_threads with keys [cpu]: refused */
  t = load("simtcpu.yaml");
  assert_int_equal(tvm_strategy_env_create(t, c, &e), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "keys: [gpu]"));
  tvm_target_free(t);
  /* keys [gpu] on a target without threads: refused */
  t = load("s4gpu.yaml");
  assert_int_equal(tvm_strategy_env_create(t, c, &e), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "has_threads = 0"));
  tvm_target_free(t);
  tvm_ctx_destroy(c);
}

/* for tx in 4 (threadIdx.x) { allocate L local[2]; L[1] = A[tx];
 * barrier; B[tx] = L[1] + A[3 - tx] } */
static void test_serialize_threads(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *B = tvm_var(c, "B", TVM_HANDLE);
  tvm_expr *L = tvm_var(c, "L", TVM_HANDLE), *tx = tvm_var(c, "tx", TVM_I32);
  tvm_stmt *parts[3] = {
      tvm_store(c, L, tvm_int(c, 1), tvm_load(c, TVM_F32, A, tx, NULL), NULL),
      tvm_barrier(c, "shared"),
      tvm_store(c, B, tx,
                tvm_add(c, tvm_load(c, TVM_F32, L, tvm_int(c, 1), NULL),
                        tvm_load(c, TVM_F32, A,
                                 tvm_sub(c, tvm_int(c, 3), tx), NULL)),
                NULL)};
  tvm_stmt *body = tvm_allocate(c, L, TVM_F32, tvm_int(c, 2), "local",
                                tvm_seq(c, parts, 3));
  tvm_stmt *loop = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_THREAD,
                           "threadIdx.x", body);
  tvm_expr *params[2] = {A, B};
  tvm_func *f = tvm_func_new(c, "k", params, NULL, 2, loop), *g = NULL;
  assert_non_null(f);
  f->kind = TVM_FUNC_DEVICE;
  assert_int_equal(tvm_pass_serialize_threads(c, f, NULL, &g), TVM_OK);
  char *txt = tvm_stmt_str(g->body);
  assert_non_null(txt);
  /* one expanded allocation around two serial loops, no barrier */
  assert_non_null(strstr(txt, "allocate L[float32 * 8] scope=local"));
  assert_null(strstr(txt, "barrier"));
  assert_null(strstr(txt, "thread("));
  const char *p = strstr(txt, "for (tx, 0, 4)");
  assert_non_null(p);
  assert_non_null(strstr(p + 1, "for (tx, 0, 4)"));
  assert_non_null(strstr(txt, "L[tx * 2 + 1] = A[tx]"));
  tvm_free(txt);

  /* a barrier that ends a nested statement still separates what follows:
   * allocate S shared { for tx { let y = tx { S[y] = A[y]; barrier };
   * B[tx] = S[3 - tx] } } */
  {
    tvm_expr *S = tvm_var(c, "S", TVM_HANDLE);
    tvm_expr *y = tvm_var(c, "y", TVM_I32);
    tvm_stmt *first = tvm_let_stmt(
        c, y, tx,
        tvm_seq2(c,
                 tvm_store(c, S, y, tvm_load(c, TVM_F32, A, y, NULL), NULL),
                 tvm_barrier(c, "shared")));
    tvm_stmt *second = tvm_store(
        c, B, tx,
        tvm_load(c, TVM_F32, S, tvm_sub(c, tvm_int(c, 3), tx), NULL), NULL);
    tvm_stmt *k3 = tvm_allocate(
        c, S, TVM_F32, tvm_int(c, 4), "shared",
        tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_THREAD,
                "threadIdx.x", tvm_seq2(c, first, second)));
    f = tvm_func_new(c, "k3", params, NULL, 2, k3);
    assert_int_equal(tvm_pass_serialize_threads(c, f, NULL, &g), TVM_OK);
    txt = tvm_stmt_str(g->body);
    assert_non_null(txt);
    const char *l1 = strstr(txt, "for (tx, 0, 4)");
    const char *l2 = l1 ? strstr(l1 + 1, "for (tx, 0, 4)") : NULL;
    const char *b = strstr(txt, "B[tx] = S[3 - tx]");
    assert_non_null(l2);
    assert_non_null(b);
    assert_true(b > l2); /* the read of S waits for every write */
    assert_null(strstr(txt, "barrier"));
    tvm_free(txt);
  }

  /* a barrier under a serial loop inside a thread loop: refused */
  tvm_expr *j = tvm_var(c, "j", TVM_I32);
  tvm_stmt *inner = tvm_for(c, j, tvm_int(c, 0), tvm_int(c, 2),
                            TVM_FOR_SERIAL, NULL,
                            tvm_seq2(c, parts[0], tvm_barrier(c, "shared")));
  loop = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_THREAD,
                 "threadIdx.x",
                 tvm_allocate(c, L, TVM_F32, tvm_int(c, 2), "local", inner));
  f = tvm_func_new(c, "k2", params, NULL, 2, loop);
  assert_int_equal(tvm_pass_serialize_threads(c, f, NULL, &g),
                   TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "kernel 'k2'"));
  tvm_ctx_destroy(c);
}

/* B = A + 1, elementwise. */
static tvm_expr *plus_one(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  return tvm_add(c, tvm_tread(c, A, i, A->ndim), tvm_f32(c, 1));
}

/* The leaves of B's stage in the printed generic CPU schedule of
 * B = A + 1 over `shape` (5-D, 8 lanes). */
static char *generic_leaves(const int64_t *shape) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F32, shape, 5);
  tvm_tensor *B = tvm_compute(c, "B", shape, 5, plus_one, A);
  tvm_schedule *s = NULL;
  assert_non_null(B);
  assert_int_equal(tvm_schedule_create(c, &B, 1, &s), TVM_OK);
  assert_int_equal(tvm_schedule_generic_cpu(s, &B, 1, 8), TVM_OK);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_schedule(&b, s);
  const char *l = strstr(b.data, "leaves: ");
  assert_non_null(l);
  char *out = strndup(l, strcspn(l, "\n"));
  tvm_strbuf_free(&b);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
  return out;
}

/* [1, 16, 55, 55, 8] (SqueezeNet's first Concat): n, c and h fused make
 * 880 >= 256 iterations in parallel, w stays a serial loop, the 8 lanes
 * vectorized; [2, 3, 4, 5, 8] (120 outer iterations) all fused. */
static void test_generic_cpu_grain(void **state) {
  (void)state;
  char *l = generic_leaves((int64_t[]){1, 16, 55, 55, 8});
  if (strcmp(l, "leaves: i0.i1.fused.i2.fused (parallel), i3, i4.outer, "
                "i4.inner (vectorize)") != 0)
    print_message("got %s\n", l);
  assert_string_equal(l, "leaves: i0.i1.fused.i2.fused (parallel), i3, "
                         "i4.outer, i4.inner (vectorize)");
  free(l);
  l = generic_leaves((int64_t[]){2, 3, 4, 5, 8});
  if (strcmp(l, "leaves: i0.i1.fused.i2.fused.i3.fused (parallel), "
                "i4.outer, i4.inner (vectorize)") != 0)
    print_message("got %s\n", l);
  assert_string_equal(l, "leaves: i0.i1.fused.i2.fused.i3.fused (parallel), "
                         "i4.outer, i4.inner (vectorize)");
  free(l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order_and_failure),
      cmocka_unit_test(test_abi3_table),
      cmocka_unit_test(test_families),
      cmocka_unit_test(test_serialize_threads),
      cmocka_unit_test(test_generic_cpu_grain),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
