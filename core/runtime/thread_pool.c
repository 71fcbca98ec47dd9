/*
 * core/runtime/thread_pool.c - thread pools.
 *
 * Every device owns a pool (or borrows one explicitly, see device.c); the
 * process default pool serves ABI 1-3 plugins and tvm_runtime_parallel_for.
 * A pool's size is the number of threads that run a
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

#include "runtime_int.h"

struct tvm_thread_pool {
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
  uint64_t jobs;  /* atomic: jobs run with workers */
};

/* The process default pool (every core until resized). */
static tvm_thread_pool default_pool = {
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_COND_INITIALIZER,  PTHREAD_COND_INITIALIZER,
    NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, 0, 0, 0, 0};

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

int runtime_all_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

/* Takes indices of the current job until none are left. */
static void run_job(tvm_thread_pool *P, tvm_task_fn task, void *data,
                    int64_t n) {
  int saved = in_task;
  in_task = 1;
  for (;;) {
    int64_t i = __atomic_fetch_add(&P->next, 1, __ATOMIC_RELAXED);
    if (i >= n) break;
    int32_t r = task(i, n, data);
    if (r != 0) {
      int32_t zero = 0;
      __atomic_compare_exchange_n(&P->result, &zero, r, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_RELAXED);
    }
  }
  in_task = saved;
}

/* A worker: waits for each generation after the one current when it was
 * created (passed in arg: a worker that starts late must not skip the
 * first job), helps with its job, reports back, until told to stop. */
typedef struct worker_arg {
  tvm_thread_pool *pool;
  uint64_t seen;
} worker_arg;

static void *worker_main(void *argp) {
  worker_arg *arg = argp;
  tvm_thread_pool *P = arg->pool;
  uint64_t seen = arg->seen;
  tvm_free(arg);
  for (;;) {
    for (int k = 0; k < SPIN; k++) {
      if (__atomic_load_n(&P->generation, __ATOMIC_ACQUIRE) != seen ||
          __atomic_load_n(&P->stop, __ATOMIC_ACQUIRE))
        break;
      relax();
    }
    pthread_mutex_lock(&P->mu);
    while (!P->stop && P->generation == seen)
      pthread_cond_wait(&P->work_cv, &P->mu);
    if (P->stop) {
      pthread_mutex_unlock(&P->mu);
      break;
    }
    seen = P->generation;
    tvm_task_fn task = P->task;
    void *data = P->data;
    int64_t n = P->n;
    pthread_mutex_unlock(&P->mu);
    run_job(P, task, data, n);
    pthread_mutex_lock(&P->mu);
    if (__atomic_sub_fetch(&P->active, 1, __ATOMIC_ACQ_REL) == 0)
      pthread_cond_signal(&P->done_cv);
    pthread_mutex_unlock(&P->mu);
  }
  return NULL;
}

/* Joins every worker.  Called with submit held. */
static void stop_workers(tvm_thread_pool *P) {
  pthread_mutex_lock(&P->mu);
  __atomic_store_n(&P->stop, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&P->work_cv);
  pthread_mutex_unlock(&P->mu);
  for (int i = 0; i < P->nworkers; i++) pthread_join(P->workers[i], NULL);
  tvm_free(P->workers);
  P->workers = NULL;
  P->nworkers = 0;
  P->stop = 0;
  P->started = 0;
}

/* Starts size-1 workers.  Called with submit held.  A failed
 * pthread_create leaves a smaller pool (logged), never a failure. */
static void start_workers(tvm_thread_pool *P) {
  if (P->size == 0) __atomic_store_n(&P->size, runtime_all_cores(), __ATOMIC_RELEASE);
  int want = P->size - 1;
  P->workers = want > 0 ? tvm_calloc((size_t)want, sizeof(pthread_t)) : NULL;
  if (want > 0 && P->workers == NULL) want = 0;
  for (int i = 0; i < want; i++) {
    worker_arg *wa = tvm_malloc(sizeof *wa);
    if (wa != NULL) {
      wa->pool = P;
      wa->seen = P->generation;
    }
    if (wa == NULL ||
        pthread_create(&P->workers[i], NULL, worker_main, wa) != 0) {
      tvm_free(wa);
      tvm_log(TVM_LOG_WARN, "thread pool: started %d of %d threads", i + 1,
              want + 1);
      break;
    }
    P->nworkers++;
  }
  P->started = 1;
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

/* Runs a job on pool P (see the top of this file). */
int32_t tvm_thread_pool_run(tvm_thread_pool *P, tvm_task_fn task, void *data,
                            int64_t n) {
  if (task == NULL || n <= 0) return 0;
  if (P == NULL) P = &default_pool;
  if (in_task || n == 1) return run_serial(task, data, n);
  pthread_mutex_lock(&P->submit);
  if (!P->started) start_workers(P);
  if (P->nworkers == 0) {
    pthread_mutex_unlock(&P->submit);
    return run_serial(task, data, n);
  }
  pthread_mutex_lock(&P->mu);
  P->task = task;
  P->data = data;
  P->n = n;
  __atomic_store_n(&P->next, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&P->result, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&P->active, P->nworkers, __ATOMIC_RELAXED);
  __atomic_store_n(&P->generation, P->generation + 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&P->work_cv);
  pthread_mutex_unlock(&P->mu);
  __atomic_add_fetch(&P->jobs, 1, __ATOMIC_RELAXED);
  run_job(P, task, data, n);
  for (int k = 0; k < SPIN && __atomic_load_n(&P->active, __ATOMIC_ACQUIRE);
       k++)
    relax();
  pthread_mutex_lock(&P->mu);
  while (P->active > 0) pthread_cond_wait(&P->done_cv, &P->mu);
  int32_t result = __atomic_load_n(&P->result, __ATOMIC_ACQUIRE);
  pthread_mutex_unlock(&P->mu);
  pthread_mutex_unlock(&P->submit);
  return result;
}

/* Resizes pool P: joins the old workers; new ones start lazily. */
static tvm_status pool_resize(tvm_thread_pool *P, int n) {
  if (n < 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "num_threads %d: expected 0 (every core) or more", n);
  if (in_task)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "the thread pool cannot be resized from inside one "
                        "of its tasks");
  if (n == 0) n = runtime_all_cores();
  if (n > 1024) n = 1024;
  pthread_mutex_lock(&P->submit);
  if (P->size != n) {
    if (P->started) stop_workers(P);
    __atomic_store_n(&P->size, n, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&P->submit);
  return TVM_OK;
}

/* The size of pool P (every core until set). */
int tvm_thread_pool_size(const tvm_thread_pool *P) {
  if (P == NULL) P = &default_pool;
  /* Lock-free: tasks may ask while their job holds submit. */
  int n = __atomic_load_n(&P->size, __ATOMIC_ACQUIRE);
  return n ? n : runtime_all_cores();
}

/* Jobs P ran with its workers. */
uint64_t tvm_thread_pool_jobs(const tvm_thread_pool *P) {
  if (P == NULL) P = &default_pool;
  return __atomic_load_n(&P->jobs, __ATOMIC_RELAXED);
}

/* A pool of n threads (0 = every core); workers start at the first job. */
tvm_status tvm_thread_pool_create(int n, tvm_thread_pool **out) {
  *out = NULL;
  if (n < 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "num_threads %d: expected 0 (every core) or more", n);
  tvm_thread_pool *P = tvm_calloc(1, sizeof *P);
  if (P == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  if (pthread_mutex_init(&P->submit, NULL) != 0 ||
      pthread_mutex_init(&P->mu, NULL) != 0 ||
      pthread_cond_init(&P->work_cv, NULL) != 0 ||
      pthread_cond_init(&P->done_cv, NULL) != 0) {
    tvm_free(P);
    return tvm_diag_set(TVM_ERR_NOMEM, "cannot initialize a thread pool");
  }
  P->size = n == 0 ? runtime_all_cores() : (n > 1024 ? 1024 : n);
  *out = P;
  return TVM_OK;
}

/* Joins P's workers and frees it (never the default pool). */
void tvm_thread_pool_free(tvm_thread_pool *P) {
  if (P == NULL || P == &default_pool) return;
  pthread_mutex_lock(&P->submit);
  if (P->started) stop_workers(P);
  pthread_mutex_unlock(&P->submit);
  pthread_mutex_destroy(&P->submit);
  pthread_mutex_destroy(&P->mu);
  pthread_cond_destroy(&P->work_cv);
  pthread_cond_destroy(&P->done_cv);
  tvm_free(P);
}

/* ---- the process default pool --------------------------------------------- */
tvm_thread_pool *tvm_runtime_default_pool(void) { return &default_pool; }

int32_t tvm_runtime_parallel_for(tvm_task_fn task, void *data, int64_t n) {
  return tvm_thread_pool_run(&default_pool, task, data, n);
}

tvm_status tvm_runtime_set_num_threads(int n) {
  tvm_status st = pool_resize(&default_pool, n);
  if (st == TVM_OK)
    runtime_host_api_set_threads((uint32_t)tvm_runtime_num_threads());
  return st;
}

int tvm_runtime_num_threads(void) { return tvm_thread_pool_size(&default_pool); }
