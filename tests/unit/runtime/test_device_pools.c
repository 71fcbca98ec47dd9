/*
 * tests/unit/runtime/test_device_pools.c - thread pools belong to
 * devices: two llvm-cpu targets with different num_threads, open at once
 * in one process, each run with their own pool size, and neither loading
 * nor opening them touches the other device's pool or the default pool.
 *
 * Pool sizes are checked by what the pools do, not only by what they
 * report: k tasks that each wait until all k have started can only finish
 * on a pool of at least k threads, and record k distinct threads.  A
 * parallel kernel compiled for llvm-cpu is run on each device, and the
 * job counters show that its loop ran on that device's pool alone.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "tvm/runtime.h"
#include "tvm/target.h"

#define OK(x)                                                          \
  do {                                                                 \
    tvm_status st_ = (x);                                              \
    if (st_ != TVM_OK) fail_msg("%s: %s", #x, tvm_diag_message());     \
  } while (0)

static char tmpdir[] = "/tmp/tvm-pools-XXXXXX";

/* Writes a llvm-cpu target with num_threads n and loads it. */
static tvm_target *load_target(const char *name, int n) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s.yaml", tmpdir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "name: %s\nplugin: llvm-cpu\nattrs: {num_threads: %d}\n", name,
          n);
  fclose(f);
  tvm_target *t = NULL;
  OK(tvm_target_load(path, &t));
  return t;
}

/* ---- k tasks that need k threads ---------------------------------------- */
typedef struct rendezvous {
  int64_t started; /* atomic */
  int64_t want;
  pthread_t who[8];
} rendezvous;

/* Waits (up to 10 s) until every task of the job has started. */
static int32_t meet(int64_t i, int64_t n, void *data) {
  rendezvous *r = data;
  r->who[i] = pthread_self();
  __atomic_add_fetch(&r->started, 1, __ATOMIC_ACQ_REL);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (__atomic_load_n(&r->started, __ATOMIC_ACQUIRE) < r->want) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec > 10) return 1; /* too few threads */
  }
  return 0;
}

/* Distinct threads among who[0..n). */
static int distinct(const rendezvous *r, int n) {
  int d = 0;
  for (int i = 0; i < n; i++) {
    int seen = 0;
    for (int j = 0; j < i; j++) seen |= pthread_equal(r->who[i], r->who[j]);
    d += !seen;
  }
  return d;
}

/* k tasks on pool p all meet: p runs k threads at once. */
static void expect_threads(tvm_thread_pool *p, int k) {
  rendezvous r = {0, k, {0}};
  assert_int_equal(tvm_thread_pool_run(p, meet, &r, k), 0);
  assert_int_equal(distinct(&r, k), k);
}

/* ---- a parallel kernel -------------------------------------------------- */
enum { M = 64, N = 32 };

static tvm_expr *double_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *a = ud;
  return tvm_mul(c, TVM_AT(c, a, i[0], i[1]), tvm_f32(c, 2.0));
}

/* Lowers B = 2 * A with a parallel outer loop for t. */
static tvm_module *lower_double(tvm_ctx *c, const tvm_target *t) {
  tvm_tensor *a = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){M, N}, 2);
  tvm_tensor *b = tvm_compute(c, "B", (int64_t[]){M, N}, 2, double_body, a);
  assert_non_null(b);
  tvm_schedule *s;
  OK(tvm_schedule_create(c, &b, 1, &s));
  tvm_stage *st = tvm_stage_of(s, b);
  OK(tvm_parallel(st, tvm_stage_axis(st, 0)));
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t, &o);
  tvm_module *m = tvm_ctx_alloc(c, sizeof *m);
  m->ctx = c;
  tvm_tensor *args[] = {a, b};
  OK(tvm_lower(s, args, 2, "dbl", &o, m));
  tvm_schedule_free(s);
  return m;
}

/* Builds the kernel on d and runs it once, checking the result. */
static void run_kernel(const tvm_target *t, tvm_device *d) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_module *m = lower_double(c, t);
  tvm_runtime_module *rm = NULL;
  OK(tvm_build(t, m, d, &rm));
  float *h = malloc(sizeof(float) * M * N);
  for (int i = 0; i < M * N; i++) h[i] = (float)i;
  void *da, *db;
  OK(tvm_device_alloc(d, 0, sizeof(float) * M * N, 64, &da));
  OK(tvm_device_alloc(d, 0, sizeof(float) * M * N, 64, &db));
  OK(tvm_device_copy(d, da, 0, h, 0, sizeof(float) * M * N,
                     TVM_COPY_HOST_TO_DEVICE));
  tvm_runtime_func *f;
  OK(tvm_runtime_get_func(rm, "dbl", &f));
  tvm_plugin_arg args[2] = {{TVM_ARG_PTR, 0, {.ptr = da}},
                            {TVM_ARG_PTR, 0, {.ptr = db}}};
  OK(tvm_runtime_call(f, args, 2));
  OK(tvm_device_copy(d, h, 0, db, 0, sizeof(float) * M * N,
                     TVM_COPY_DEVICE_TO_HOST));
  for (int i = 0; i < M * N; i++)
    if (h[i] != 2.0f * (float)i) fail_msg("B[%d] = %g", i, h[i]);
  tvm_device_free(d, 0, da);
  tvm_device_free(d, 0, db);
  tvm_runtime_module_free(rm);
  tvm_ctx_destroy(c);
  free(h);
}

/* Two targets, two devices, two pools: sizes, threads and kernels. */
static void test_two_devices_two_pools(void **state) {
  int def = tvm_runtime_num_threads();
  tvm_target *t2 = load_target("pool2", 2);
  tvm_target *t3 = load_target("pool3", 3);
  assert_int_equal(tvm_runtime_num_threads(), def); /* loading: no effect */
  tvm_device *d2 = NULL, *d3 = NULL;
  OK(tvm_device_open(t2, &d2));
  OK(tvm_device_open(t3, &d3));
  assert_int_equal(tvm_runtime_num_threads(), def); /* opening: none */
  tvm_thread_pool *p2 = tvm_device_pool(d2), *p3 = tvm_device_pool(d3);
  assert_ptr_not_equal(p2, p3);
  assert_int_equal(tvm_thread_pool_size(p2), 2);
  assert_int_equal(tvm_thread_pool_size(p3), 3);
  expect_threads(p2, 2);
  expect_threads(p3, 3);
  expect_threads(p2, 2); /* opening d3 left d2's pool as it was */

  /* The kernel's parallel loop runs on its device's pool only. */
  tvm_thread_pool *pd = tvm_runtime_default_pool();
  uint64_t j2 = tvm_thread_pool_jobs(p2), j3 = tvm_thread_pool_jobs(p3),
           jd = tvm_thread_pool_jobs(pd);
  run_kernel(t2, d2);
  assert_true(tvm_thread_pool_jobs(p2) > j2);
  assert_int_equal(tvm_thread_pool_jobs(p3), j3);
  j2 = tvm_thread_pool_jobs(p2);
  run_kernel(t3, d3);
  assert_true(tvm_thread_pool_jobs(p3) > j3);
  assert_int_equal(tvm_thread_pool_jobs(p2), j2);
  assert_int_equal(tvm_thread_pool_jobs(pd), jd);

  tvm_device_close(d2);
  tvm_device_close(d3);
  tvm_target_free(t2);
  tvm_target_free(t3);
  assert_int_equal(tvm_runtime_num_threads(), def);
}

/* A pool lent to two devices explicitly is shared, and outlives them. */
static void test_borrowed_pool(void **state) {
  tvm_thread_pool *shared = NULL;
  OK(tvm_thread_pool_create(2, &shared));
  tvm_target *t = load_target("pool3b", 3);
  tvm_device *a = NULL, *b = NULL;
  OK(tvm_device_open_with_pool(t, shared, &a));
  OK(tvm_device_open_with_pool(t, shared, &b));
  assert_ptr_equal(tvm_device_pool(a), shared);
  assert_ptr_equal(tvm_device_pool(b), shared);
  uint64_t j = tvm_thread_pool_jobs(shared);
  run_kernel(t, a);
  assert_true(tvm_thread_pool_jobs(shared) > j);
  tvm_device_close(a);
  tvm_device_close(b);
  expect_threads(shared, 2); /* closing the devices left it alone */
  tvm_thread_pool_free(shared);
  tvm_target_free(t);
}

int main(void) {
  if (mkdtemp(tmpdir) == NULL) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_devices_two_pools),
      cmocka_unit_test(test_borrowed_pool),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  if (system(cmd) != 0) rc = rc ? rc : 1;
  return rc;
}
