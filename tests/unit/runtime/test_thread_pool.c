/*
 * tests/unit/runtime/test_thread_pool.c - the runtime's thread pool:
 * every index runs exactly once, work really spreads over threads, the
 * first failure is returned, nested calls run serially, resizing, and
 * outer calls from several threads at once.
 */
#include <pthread.h>
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_index_once),
      cmocka_unit_test(test_runs_concurrently),
      cmocka_unit_test(test_failure_returned_all_run),
      cmocka_unit_test(test_nested_serial),
      cmocka_unit_test(test_resize),
      cmocka_unit_test(test_concurrent_callers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
