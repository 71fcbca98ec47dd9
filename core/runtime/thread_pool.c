/*
 * core/runtime/thread_pool.c - the runtime's thread pool.
 *
 * One pool per process.  Its size is the number of threads that run a
 * parallel_for, the caller included: size-1 persistent worker threads
 * sleep on a condition variable between jobs.  A job is (task, data, n);
 * every participant takes the next index from an atomic counter until all
 * n are taken, and the caller returns once every worker has finished.
 * Calls made from inside a task (nested parallelism) run serially on the
 * calling thread, and outer calls from different threads take turns.
 * Workers and the caller spin briefly before sleeping, so that the
 * back-to-back jobs of a kernel's parallel loops do not pay a futex
 * wake-up each (generation, active and stop are read atomically for
 * that, and written under mu).
 */
#include <pthread.h>
#include <unistd.h>

#include "tvm/runtime.h"
#include "../target/target_int.h"

typedef struct pool {
  pthread_mutex_t submit; /* one job at a time; also guards resizing */
  pthread_mutex_t mu;     /* guards everything below */
  pthread_cond_t work_cv; /* workers: a new generation or stop */
  pthread_cond_t done_cv; /* caller: active reached 0 */
  pthread_t *workers;
  int nworkers;           /* started worker threads */
  int size;               /* wanted size (caller + workers), 0 = unset */
  int started;            /* workers match size */
  int stop;
  uint64_t generation;
  int active;             /* workers still in the current job */
  /* the current job */
  tvm_task_fn task;
  void *data;
  int64_t n;
  int64_t next;   /* atomic: next index to take */
  int32_t result; /* atomic: first non-zero return */
} pool;

static pool P = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                 PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
                 NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, 0, 0, 0};

/* Set while this thread runs a task: nested calls go serial. */
static _Thread_local int in_task;

/* Online cores (1..1024). */
/* Polls before sleeping: about 20 microseconds. */
#define SPIN 4000

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static int all_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

/* Takes indices of the current job until none are left. */
static void run_job(tvm_task_fn task, void *data, int64_t n) {
  int saved = in_task;
  in_task = 1;
  for (;;) {
    int64_t i = __atomic_fetch_add(&P.next, 1, __ATOMIC_RELAXED);
    if (i >= n) break;
    int32_t r = task(i, n, data);
    if (r != 0) {
      int32_t zero = 0;
      __atomic_compare_exchange_n(&P.result, &zero, r, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_RELAXED);
    }
  }
  in_task = saved;
}

/* A worker: waits for each generation after the one current when it was
 * created (passed in arg: a worker that starts late must not skip the
 * first job), helps with its job, reports back, until told to stop. */
static void *worker_main(void *arg) {
  uint64_t seen = (uint64_t)(uintptr_t)arg;
  for (;;) {
    for (int k = 0; k < SPIN; k++) {
      if (__atomic_load_n(&P.generation, __ATOMIC_ACQUIRE) != seen ||
          __atomic_load_n(&P.stop, __ATOMIC_ACQUIRE))
        break;
      relax();
    }
    pthread_mutex_lock(&P.mu);
    while (!P.stop && P.generation == seen)
      pthread_cond_wait(&P.work_cv, &P.mu);
    if (P.stop) {
      pthread_mutex_unlock(&P.mu);
      break;
    }
    seen = P.generation;
    tvm_task_fn task = P.task;
    void *data = P.data;
    int64_t n = P.n;
    pthread_mutex_unlock(&P.mu);
    run_job(task, data, n);
    pthread_mutex_lock(&P.mu);
    if (__atomic_sub_fetch(&P.active, 1, __ATOMIC_ACQ_REL) == 0)
      pthread_cond_signal(&P.done_cv);
    pthread_mutex_unlock(&P.mu);
  }
  return NULL;
}

/* Joins every worker.  Called with submit held. */
static void stop_workers(void) {
  pthread_mutex_lock(&P.mu);
  __atomic_store_n(&P.stop, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&P.work_cv);
  pthread_mutex_unlock(&P.mu);
  for (int i = 0; i < P.nworkers; i++) pthread_join(P.workers[i], NULL);
  tvm_free(P.workers);
  P.workers = NULL;
  P.nworkers = 0;
  P.stop = 0;
  P.started = 0;
}

/* Starts size-1 workers.  Called with submit held.  A failed
 * pthread_create leaves a smaller pool (logged), never a failure. */
static void start_workers(void) {
  if (P.size == 0) __atomic_store_n(&P.size, all_cores(), __ATOMIC_RELEASE);
  int want = P.size - 1;
  P.workers = want > 0 ? tvm_calloc((size_t)want, sizeof(pthread_t)) : NULL;
  if (want > 0 && P.workers == NULL) want = 0;
  for (int i = 0; i < want; i++) {
    if (pthread_create(&P.workers[i], NULL, worker_main,
                       (void *)(uintptr_t)P.generation) != 0) {
      tvm_log(TVM_LOG_WARN, "thread pool: started %d of %d threads", i + 1,
              want + 1);
      break;
    }
    P.nworkers++;
  }
  P.started = 1;
}

/* Runs every task on the calling thread, in order. */
static int32_t run_serial(tvm_task_fn task, void *data, int64_t n) {
  int saved = in_task;
  in_task = 1;
  int32_t result = 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t r = task(i, n, data);
    if (r != 0 && result == 0) result = r;
  }
  in_task = saved;
  return result;
}

/* Runs a job on the pool (see the top of this file). */
int32_t tvm_runtime_parallel_for(tvm_task_fn task, void *data, int64_t n) {
  if (task == NULL || n <= 0) return 0;
  if (in_task || n == 1) return run_serial(task, data, n);
  pthread_mutex_lock(&P.submit);
  if (!P.started) start_workers();
  if (P.nworkers == 0) {
    pthread_mutex_unlock(&P.submit);
    return run_serial(task, data, n);
  }
  pthread_mutex_lock(&P.mu);
  P.task = task;
  P.data = data;
  P.n = n;
  __atomic_store_n(&P.next, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&P.result, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&P.active, P.nworkers, __ATOMIC_RELAXED);
  __atomic_store_n(&P.generation, P.generation + 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&P.work_cv);
  pthread_mutex_unlock(&P.mu);
  run_job(task, data, n);
  for (int k = 0; k < SPIN && __atomic_load_n(&P.active, __ATOMIC_ACQUIRE);
       k++)
    relax();
  pthread_mutex_lock(&P.mu);
  while (P.active > 0) pthread_cond_wait(&P.done_cv, &P.mu);
  int32_t result = __atomic_load_n(&P.result, __ATOMIC_ACQUIRE);
  pthread_mutex_unlock(&P.mu);
  pthread_mutex_unlock(&P.submit);
  return result;
}

/* Resizes the pool: joins the old workers; new ones start lazily. */
tvm_status tvm_runtime_set_num_threads(int n) {
  if (n < 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "num_threads %d: expected 0 (every core) or more", n);
  if (in_task)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "the thread pool cannot be resized from inside one "
                        "of its tasks");
  if (n == 0) n = all_cores();
  if (n > 1024) n = 1024;
  pthread_mutex_lock(&P.submit);
  if (P.size != n) {
    if (P.started) stop_workers();
    __atomic_store_n(&P.size, n, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&P.submit);
  target_host_api_set_threads((uint32_t)n);
  return TVM_OK;
}

/* The pool size (every core until set). */
int tvm_runtime_num_threads(void) {
  /* Lock-free: tasks may ask while their job holds submit. */
  int n = __atomic_load_n(&P.size, __ATOMIC_ACQUIRE);
  return n ? n : all_cores();
}
