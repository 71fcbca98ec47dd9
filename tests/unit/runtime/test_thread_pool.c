/*
 * tests/unit/runtime/test_thread_pool.c - the runtime's thread pool:
 * every index runs exactly once, work really spreads over threads, the
 * first failure is returned, nested calls run serially, resizing, and
 * outer calls from several threads at once; pools made explicitly (what
 * devices own) run side by side, and a task of one pool calling another
 * runs serially.  Workers that wake late (after idle gaps, on an
 * oversubscribed pool) never run a job's task after that job returned.
 * A caller that the scheduler moved onto a worker's CPU finds that worker
 * moved off it at its next job (workers are bound to CPUs).
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tvm/runtime.h"
#include "tvm/target.h"

#define N 10000

typedef struct counts {
  int hits[N];
  pthread_t who[N];
} counts;

static int32_t count_task(int64_t i, int64_t n, void *data) {
  counts *c = data;
  __atomic_fetch_add(&c->hits[i], 1, __ATOMIC_RELAXED);
  c->who[i] = pthread_self();
  return 0;
}

static void test_every_index_once(void **state) {
  assert_int_equal(tvm_runtime_set_num_threads(4), TVM_OK);
  assert_int_equal(tvm_runtime_num_threads(), 4);
  static counts c;
  for (int round = 0; round < 20; round++) {
    memset(&c, 0, sizeof c);
    assert_int_equal(tvm_runtime_parallel_for(count_task, &c, N), 0);
    for (int i = 0; i < N; i++) assert_int_equal(c.hits[i], 1);
  }
  assert_int_equal(tvm_runtime_parallel_for(count_task, &c, 0), 0);
}

/* Each task waits until `want` tasks are inside at once: only possible
 * when they really run on that many threads. */
typedef struct rendezvous {
  int inside, want;
} rendezvous;

static int32_t meet_task(int64_t i, int64_t n, void *data) {
  rendezvous *r = data;
  __atomic_fetch_add(&r->inside, 1, __ATOMIC_ACQ_REL);
  for (int spins = 0; spins < 20000; spins++) {
    if (__atomic_load_n(&r->inside, __ATOMIC_ACQUIRE) >= r->want) return 0;
    usleep(100);
  }
  return 1; /* never met: the pool did not run tasks concurrently */
}

static void test_runs_concurrently(void **state) {
  assert_int_equal(tvm_runtime_set_num_threads(3), TVM_OK);
  rendezvous r = {0, 3};
  assert_int_equal(tvm_runtime_parallel_for(meet_task, &r, 3), 0);
}

static int32_t fail_task(int64_t i, int64_t n, void *data) {
  int *ran = data;
  __atomic_fetch_add(ran, 1, __ATOMIC_RELAXED);
  return i == 37 ? -5 : 0;
}

static void test_failure_returned_all_run(void **state) {
  int ran = 0;
  assert_int_equal(tvm_runtime_parallel_for(fail_task, &ran, 100), -5);
  assert_int_equal(ran, 100);
}

/* A nested parallel_for runs serially on the thread of the outer task. */
typedef struct nested {
  int ok[8];
  pthread_t outer[8];
} nested;
typedef struct inner_arg {
  pthread_t self;
  int same;
} inner_arg;

static int32_t inner_task(int64_t i, int64_t n, void *data) {
  inner_arg *a = data;
  if (!pthread_equal(a->self, pthread_self())) a->same = 0;
  return 0;
}

static int32_t outer_task(int64_t i, int64_t n, void *data) {
  nested *s = data;
  inner_arg a = {pthread_self(), 1};
  int32_t r = tvm_runtime_parallel_for(inner_task, &a, 50);
  s->ok[i] = (r == 0 && a.same);
  /* asking the size from inside a task does not deadlock */
  if (tvm_runtime_num_threads() != 4) s->ok[i] = 0;
  /* resizing from inside a task is refused, not a deadlock */
  if (tvm_runtime_set_num_threads(2) != TVM_ERR_INVALID) s->ok[i] = 0;
  return 0;
}

static void test_nested_serial(void **state) {
  assert_int_equal(tvm_runtime_set_num_threads(4), TVM_OK);
  nested s;
  memset(&s, 0, sizeof s);
  assert_int_equal(tvm_runtime_parallel_for(outer_task, &s, 8), 0);
  for (int i = 0; i < 8; i++) assert_true(s.ok[i]);
}

static void test_resize(void **state) {
  static counts c;
  int sizes[] = {1, 2, 5, 2, 0};
  for (int k = 0; k < 5; k++) {
    assert_int_equal(tvm_runtime_set_num_threads(sizes[k]), TVM_OK);
    if (sizes[k]) assert_int_equal(tvm_runtime_num_threads(), sizes[k]);
    else assert_int_equal(tvm_runtime_num_threads(), sysconf(_SC_NPROCESSORS_ONLN));
    memset(&c, 0, sizeof c);
    assert_int_equal(tvm_runtime_parallel_for(count_task, &c, N), 0);
    for (int i = 0; i < N; i++) assert_int_equal(c.hits[i], 1);
    if (sizes[k] == 1)
      for (int i = 0; i < N; i++)
        assert_true(pthread_equal(c.who[i], pthread_self()));
  }
  assert_int_equal(tvm_runtime_set_num_threads(-1), TVM_ERR_INVALID);
}

/* Several application threads calling at once take turns. */
static void *caller(void *arg) {
  counts *c = arg;
  for (int round = 0; round < 10; round++) {
    memset(c->hits, 0, sizeof c->hits);
    if (tvm_runtime_parallel_for(count_task, c, N) != 0) return arg;
    for (int i = 0; i < N; i++)
      if (c->hits[i] != 1) return arg;
  }
  return NULL;
}

static void test_concurrent_callers(void **state) {
  assert_int_equal(tvm_runtime_set_num_threads(3), TVM_OK);
  static counts c[3];
  pthread_t th[3];
  for (int i = 0; i < 3; i++)
    assert_int_equal(pthread_create(&th[i], NULL, caller, &c[i]), 0);
  for (int i = 0; i < 3; i++) {
    void *ret = &c[i];
    pthread_join(th[i], &ret);
    assert_null(ret);
  }
}

/* Runs every index of a pool once on a thread of its own. */
typedef struct pool_job {
  tvm_thread_pool *pool;
  counts *c;
  int32_t rc;
} pool_job;

static void *run_pool(void *arg) {
  pool_job *j = arg;
  j->rc = tvm_thread_pool_run(j->pool, count_task, j->c, N);
  return NULL;
}

/* A task of pool a that calls pool b: b's tasks run on a's thread. */
typedef struct cross {
  tvm_thread_pool *b;
  int ok[8];
} cross;

static int32_t who_task(int64_t i, int64_t n, void *data) {
  pthread_t *who = data;
  who[i] = pthread_self();
  return 0;
}

static int32_t cross_task(int64_t i, int64_t n, void *data) {
  cross *x = data;
  pthread_t who[4];
  x->ok[i] = tvm_thread_pool_run(x->b, who_task, who, 4) == 0;
  for (int k = 0; k < 4; k++)
    if (!pthread_equal(who[k], pthread_self())) x->ok[i] = 0;
  return 0;
}

static void test_pools_side_by_side(void **state) {
  tvm_thread_pool *a = NULL, *b = NULL, *bad = (tvm_thread_pool *)1;
  assert_int_equal(tvm_thread_pool_create(-1, &bad), TVM_ERR_INVALID);
  assert_null(bad);
  assert_int_equal(tvm_thread_pool_create(2, &a), TVM_OK);
  assert_int_equal(tvm_thread_pool_create(3, &b), TVM_OK);
  int def = tvm_runtime_num_threads();
  assert_int_equal(tvm_thread_pool_size(a), 2);
  assert_int_equal(tvm_thread_pool_size(b), 3);
  static counts ca, cb;
  memset(&ca, 0, sizeof ca);
  memset(&cb, 0, sizeof cb);
  pool_job ja = {a, &ca, -1}, jb = {b, &cb, -1};
  pthread_t ta, tb;
  assert_int_equal(pthread_create(&ta, NULL, run_pool, &ja), 0);
  assert_int_equal(pthread_create(&tb, NULL, run_pool, &jb), 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  assert_int_equal(ja.rc, 0);
  assert_int_equal(jb.rc, 0);
  for (int i = 0; i < N; i++) {
    assert_int_equal(ca.hits[i], 1);
    assert_int_equal(cb.hits[i], 1);
  }
  assert_true(tvm_thread_pool_jobs(a) >= 1 && tvm_thread_pool_jobs(b) >= 1);
  cross x = {b, {0}};
  assert_int_equal(tvm_thread_pool_run(a, cross_task, &x, 8), 0);
  for (int i = 0; i < 8; i++) assert_true(x.ok[i]);
  assert_int_equal(tvm_runtime_num_threads(), def); /* untouched */
  tvm_thread_pool_free(a);
  tvm_thread_pool_free(b);
  tvm_thread_pool_free(tvm_runtime_default_pool()); /* refused: a no-op */
  assert_int_equal(tvm_runtime_parallel_for(count_task, &ca, 1), 0);
}

/* Jobs of alternating task functions, each with its data on the caller's
 * stack; gaps longer than the pool's spin put workers to sleep, and
 * tasks that sleep make late arrivals.  A worker that ran a stale task
 * (an old function or data after its job returned) would count a hit on
 * a closed job or a second hit. */
typedef struct late_job {
  int hits[64];
  int closed; /* atomic: the job returned */
  int which;
} late_job;

static int late_stale;

static int32_t late_task_a(int64_t i, int64_t n, void *data) {
  late_job *j = data;
  if (__atomic_load_n(&j->closed, __ATOMIC_ACQUIRE) || j->which != 0)
    __atomic_add_fetch(&late_stale, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&j->hits[i], 1, __ATOMIC_RELAXED);
  if (i % 17 == 3) usleep(30);
  return 0;
}

static int32_t late_task_b(int64_t i, int64_t n, void *data) {
  late_job *j = data;
  if (__atomic_load_n(&j->closed, __ATOMIC_ACQUIRE) || j->which != 1)
    __atomic_add_fetch(&late_stale, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&j->hits[i], 1, __ATOMIC_RELAXED);
  return i == 5 ? 7 : 0;
}

static void test_late_workers(void **state) {
  tvm_thread_pool *p = NULL;
  assert_int_equal(tvm_thread_pool_create(4, &p), TVM_OK);
  for (int k = 0; k < 300; k++) {
    late_job j;
    memset(&j, 0, sizeof j);
    j.which = k & 1;
    int n = 2 + k % 63;
    int32_t rc = tvm_thread_pool_run(p, j.which ? late_task_b : late_task_a,
                                     &j, n);
    __atomic_store_n(&j.closed, 1, __ATOMIC_RELEASE);
    assert_int_equal(rc, j.which && n > 5 ? 7 : 0);
    for (int i = 0; i < 64; i++) assert_int_equal(j.hits[i], i < n);
    if (k % 3 == 0) usleep(500);
    memset(&j, 0xff, sizeof j); /* what a stale worker would now see */
  }
  tvm_thread_pool_free(p);
  assert_int_equal(late_stale, 0);
}

/* Two tasks that meet (so the worker runs one) and record on which CPU
 * each thread ran while both were inside. */
typedef struct cpu_meet {
  rendezvous r;
  pthread_t caller;
  int caller_cpu, worker_cpu;
} cpu_meet;

static int32_t cpu_task(int64_t i, int64_t n, void *data) {
  cpu_meet *m = data;
  if (meet_task(i, n, &m->r) != 0) return 1;
  int cpu = sched_getcpu();
  if (pthread_equal(pthread_self(), m->caller))
    m->caller_cpu = cpu;
  else
    m->worker_cpu = cpu;
  return 0;
}

static void test_worker_leaves_callers_cpu(void **state) {
  cpu_set_t all;
  assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof all, &all),
                   0);
  if (CPU_COUNT(&all) < 2) skip(); /* one CPU: nothing to keep apart */
  tvm_thread_pool *p = NULL;
  assert_int_equal(tvm_thread_pool_create(2, &p), TVM_OK);
  cpu_meet m = {{0, 2}, pthread_self(), -1, -1};
  assert_int_equal(tvm_thread_pool_run(p, cpu_task, &m, 2), 0);
  int w = m.worker_cpu; /* the CPU the worker is bound to */
  assert_true(w >= 0);
  /* the scheduler moving the caller onto the worker's CPU, done here by
   * hand: the next job must find the worker elsewhere */
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(w, &one);
  assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof one, &one),
                   0);
  for (int k = 0; k < 3; k++) {
    m = (cpu_meet){{0, 2}, pthread_self(), -1, -1};
    assert_int_equal(tvm_thread_pool_run(p, cpu_task, &m, 2), 0);
    assert_int_equal(m.caller_cpu, w);
    assert_true(m.worker_cpu >= 0);
    assert_int_not_equal(m.worker_cpu, w);
  }
  assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof all, &all),
                   0);
  tvm_thread_pool_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_index_once),
      cmocka_unit_test(test_runs_concurrently),
      cmocka_unit_test(test_failure_returned_all_run),
      cmocka_unit_test(test_nested_serial),
      cmocka_unit_test(test_resize),
      cmocka_unit_test(test_concurrent_callers),
      cmocka_unit_test(test_pools_side_by_side),
      cmocka_unit_test(test_late_workers),
      cmocka_unit_test(test_worker_leaves_callers_cpu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
