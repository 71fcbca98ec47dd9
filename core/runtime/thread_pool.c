/*
 * core/runtime/thread_pool.c - thread pools.
 *
 * Every device owns a pool (or borrows one explicitly, see device.c); the
 * process default pool serves ABI 1-3 plugins and tvm_runtime_parallel_for.
 * A pool's size is the number of threads that run a parallel_for, the
 * caller included: size-1 persistent worker threads poll for 1 ms after
 * a job and then sleep on a condition variable.  A job is (task, data, n);
 * every participant takes the next index from an atomic counter until all
 * n are taken.  Calls made from inside a task (nested parallelism) run
 * serially on the calling thread, and outer calls from different threads
 * take turns.
 *
 * The caller waits for the job's tasks, never for its workers: a worker
 * that has not woken up by the time every index is taken simply finds
 * none.  Waking a sleeping thread costs 0.1-0.3 ms on the 2-vCPU VMs this
 * project runs on, which is ten times a small kernel; a caller that
 * waited for every worker paid it on every job after an idle gap.  The
 * protocol that makes this safe (atomics are sequentially consistent
 * unless marked):
 *
 *  - `gen` is odd while a job is open and even while none is.  The caller
 *    writes the job (task, data, n, next, finished, result), then makes
 *    gen odd; when `finished` reaches n it makes gen even again.
 *  - A worker that sees an odd gen it has not served enters: inside += 1,
 *    then reads gen again.  If it changed, the worker leaves at once
 *    (inside -= 1) without touching the job; else the job is fixed until
 *    it leaves, because the caller waits for inside == 0 before it writes
 *    the next job (a Dekker pair: enter-then-check against
 *    close-then-wait).
 *  - Sleep and wake-up use the same pairing: a sleeper counts itself in
 *    `sleepers` under mu and checks gen under mu; the caller makes gen odd
 *    and only then reads `sleepers`, broadcasting when it is non-zero.
 *    The caller's own wait for `finished` pairs with `caller_asleep`.
 *
 * Each worker is bound to one CPU, never the one the pool's first caller
 * runs on (nor, later, the one a caller runs on when it submits a job:
 * follow_caller), round-robin over the CPUs the process may use (skipped when
 * the pool has more threads than those CPUs, or TVM_BIND_THREADS=0): an
 * unbound worker woken by the caller was often placed on the caller's
 * own CPU and polled there while the caller waited (bench/pool, 2 vCPUs,
 * a job of 30 us after a 1 ms gap: 560-720 us in three of four runs
 * unbound, 49-51 bound).  Unbound workers yield as they poll, which keeps
 * that case to 72-84 us.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime_int.h"

struct tvm_thread_pool {
  pthread_mutex_t submit; /* one job at a time; also guards resizing */
  pthread_mutex_t mu;     /* sleeping and waking (see above) */
  pthread_cond_t work_cv; /* workers: a new job or stop */
  pthread_cond_t done_cv; /* caller: finished reached n */
  pthread_t *workers;
  int nworkers;           /* started worker threads */
  int size;               /* wanted size (caller + workers), 0 = unset */
  int started;            /* workers match size */
  int bound;              /* atomic: every worker is bound to a CPU */
  int *cpu_of;            /* bound: the CPU of each worker */
  cpu_set_t allowed;      /* bound: the process's CPUs at binding */
  /* the current job: written only while no job is open and inside == 0 */
  tvm_task_fn task;
  void *data;
  int64_t n;
  /* What spinning threads poll and what taking a task writes sit on
   * cache lines of their own (64 bytes apart: the allocation is not
   * line-aligned). */
  char pad0[64];
  uint64_t gen;     /* atomic: odd while a job is open */
  int stop;         /* atomic */
  char pad1[64];
  int64_t next;     /* atomic: next index to take */
  char pad2[64];
  int64_t finished; /* atomic: tasks that have returned */
  int32_t result;   /* atomic: first non-zero return */
  int caller_asleep; /* atomic: the caller waits on done_cv */
  int inside;       /* atomic: workers entered in the current job */
  int sleepers;     /* atomic: workers asleep or about to sleep */
  uint64_t jobs;    /* atomic: jobs run with workers */
};

/* The process default pool (every core until resized). */
static tvm_thread_pool default_pool = {
    .submit = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER,
    .work_cv = PTHREAD_COND_INITIALIZER, .done_cv = PTHREAD_COND_INITIALIZER};

/* Set while this thread runs a task: nested calls go serial. */
static _Thread_local int in_task;

/* How long a thread polls before it sleeps.  Waking a sleeping thread
 * costs 50-200 us on a 2-vCPU VM (bench/pool), so workers poll through
 * the gaps between the kernels of a run and between back-to-back runs:
 * 1 ms, as long as libgomp's default spin lasts on the same machines
 * (bench/pool, gaps of 0.1 and 1 ms). */
#define SPIN_NS 1000000

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A poll loop's clock: relax, and every 64 calls check whether SPIN_NS
 * have passed since the first (false from then on).  With `yield`, every
 * 1024 calls give the CPU to any thread waiting for it: the thread that
 * this loop waits for may share its CPU. */
typedef struct spinner {
  unsigned k;
  int yield;
  uint64_t t0;
} spinner;

static int spin_more(spinner *s) {
  relax();
  if ((++s->k & 63) != 0) return 1;
  if (s->yield && (s->k & 1023) == 0) sched_yield();
  uint64_t t = now_ns();
  if (s->t0 == 0) s->t0 = t;
  return t - s->t0 < SPIN_NS;
}

#define SC __ATOMIC_SEQ_CST

/* Online cores (1..1024). */
int runtime_all_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

/* Takes indices of the current job until none are left, then adds how
 * many it ran to `finished`; the participant that completes the count
 * wakes the caller if it sleeps. */
static void run_job(tvm_thread_pool *P) {
  tvm_task_fn task = P->task;
  void *data = P->data;
  int64_t n = P->n, ran = 0;
  int saved = in_task;
  in_task = 1;
  for (;;) {
    int64_t i = __atomic_fetch_add(&P->next, 1, __ATOMIC_RELAXED);
    if (i >= n) break;
    int32_t r = task(i, n, data);
    ran++;
    if (r != 0) {
      int32_t zero = 0;
      __atomic_compare_exchange_n(&P->result, &zero, r, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_RELAXED);
    }
  }
  in_task = saved;
  if (ran > 0 && __atomic_add_fetch(&P->finished, ran, SC) == n &&
      __atomic_load_n(&P->caller_asleep, SC)) {
    pthread_mutex_lock(&P->mu);
    pthread_cond_signal(&P->done_cv);
    pthread_mutex_unlock(&P->mu);
  }
}

/* A job this worker has not served is open (or the pool stops). */
static int worth_waking(tvm_thread_pool *P, uint64_t seen, uint64_t *g) {
  *g = __atomic_load_n(&P->gen, SC);
  return ((*g & 1) && *g != seen) || __atomic_load_n(&P->stop, SC);
}

/* A worker: waits for a job it has not served, enters it, takes indices,
 * leaves; until told to stop.  `seen` starts at the generation current
 * when it was created (passed in arg), so a late start skips nothing
 * that is still open. */
typedef struct worker_arg {
  tvm_thread_pool *pool;
  uint64_t seen;
} worker_arg;

static void *worker_main(void *argp) {
  worker_arg *arg = argp;
  tvm_thread_pool *P = arg->pool;
  uint64_t seen = arg->seen, g = 0;
  tvm_free(arg);
  for (;;) {
    /* a bound worker never shares the first caller's CPU; yielding there
     * cost a 0.1 ms gap 10-15 us a job (bench/pool) */
    spinner sp = {0, !__atomic_load_n(&P->bound, __ATOMIC_RELAXED), 0};
    int woke = 0;
    while (!(woke = worth_waking(P, seen, &g)) && spin_more(&sp)) {
    }
    if (!woke) {
      pthread_mutex_lock(&P->mu);
      __atomic_add_fetch(&P->sleepers, 1, SC);
      while (!worth_waking(P, seen, &g))
        pthread_cond_wait(&P->work_cv, &P->mu);
      __atomic_sub_fetch(&P->sleepers, 1, SC);
      pthread_mutex_unlock(&P->mu);
    }
    if (__atomic_load_n(&P->stop, SC)) break;
    seen = g;
    __atomic_add_fetch(&P->inside, 1, SC);
    if (__atomic_load_n(&P->gen, SC) == g) run_job(P);
    __atomic_sub_fetch(&P->inside, 1, SC);
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
  tvm_free(P->cpu_of);
  P->cpu_of = NULL;
  P->nworkers = 0;
  P->stop = 0;
  P->bound = 0;
  P->started = 0;
}

/* Binds the want workers of P to CPUs other than the calling thread's
 * (see the top of this file); best effort, silent when refused. */
static void bind_workers(tvm_thread_pool *P, int want) {
  static unsigned next_cpu; /* atomic: round-robin across pools */
  const char *env = getenv("TVM_BIND_THREADS");
  if (env != NULL && strcmp(env, "0") == 0) return;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  int me = sched_getcpu(), cpus[CPU_SETSIZE], n = 0;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &allowed) && c != me) cpus[n++] = c;
  if (n == 0 || want > n) return;
  int *cpu_of = tvm_calloc((size_t)want, sizeof *cpu_of);
  if (cpu_of == NULL) return;
  int ok = 1;
  for (int i = 0; i < want; i++) {
    unsigned k = __atomic_fetch_add(&next_cpu, 1, __ATOMIC_RELAXED);
    cpu_set_t one;
    CPU_ZERO(&one);
    cpu_of[i] = cpus[k % (unsigned)n];
    CPU_SET(cpu_of[i], &one);
    ok &= pthread_setaffinity_np(P->workers[i], sizeof one, &one) == 0;
  }
  if (!ok) {
    tvm_free(cpu_of);
    return;
  }
  P->cpu_of = cpu_of;
  P->allowed = allowed;
  __atomic_store_n(&P->bound, 1, __ATOMIC_RELAXED);
}

/* Keeps the caller off its workers' CPUs.  The workers were bound away
 * from the CPU the first caller ran on, but the scheduler moves an
 * unbound caller where it likes: onto a worker's CPU after other threads
 * ran (oneDNN's OpenMP team in bench/kernels, any busy neighbour), where
 * the two then shared one CPU, a bound worker polling without yielding,
 * while the other CPU idled until the load balancer moved the caller
 * back (the unit test makes the move by hand; bench/kernels' 2-thread
 * conv section met it twice in 6267 jobs).  A worker
 * found on the caller's CPU moves to a CPU of the process that no worker
 * of this pool holds (one exists: bind_workers leaves one free).  Costs
 * a sched_getcpu per job, and one pthread_setaffinity_np when the caller
 * moved.  Called with submit held. */
static void follow_caller(tvm_thread_pool *P) {
  int me = sched_getcpu();
  if (me < 0) return;
  int w = -1;
  for (int i = 0; i < P->nworkers && w < 0; i++)
    if (P->cpu_of[i] == me) w = i;
  if (w < 0) return;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (c == me || !CPU_ISSET(c, &P->allowed)) continue;
    int held = 0;
    for (int i = 0; i < P->nworkers && !held; i++) held = P->cpu_of[i] == c;
    if (held) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(c, &one);
    if (pthread_setaffinity_np(P->workers[w], sizeof one, &one) == 0)
      P->cpu_of[w] = c;
    return;
  }
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
      wa->seen = __atomic_load_n(&P->gen, SC);
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
  bind_workers(P, P->nworkers);
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
  if (__atomic_load_n(&P->bound, __ATOMIC_RELAXED)) follow_caller(P);
  /* A worker that entered the last job may still be on its way out. */
  spinner sp = {0, 1, 0};
  while (__atomic_load_n(&P->inside, SC) != 0)
    if (!spin_more(&sp)) sched_yield();
  P->task = task;
  P->data = data;
  P->n = n;
  __atomic_store_n(&P->next, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&P->finished, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&P->result, 0, __ATOMIC_RELAXED);
  __atomic_add_fetch(&P->gen, 1, SC); /* odd: open */
  if (__atomic_load_n(&P->sleepers, SC) != 0) {
    pthread_mutex_lock(&P->mu);
    pthread_cond_broadcast(&P->work_cv);
    pthread_mutex_unlock(&P->mu);
  }
  __atomic_add_fetch(&P->jobs, 1, __ATOMIC_RELAXED);
  run_job(P);
  int done = 0;
  sp = (spinner){0, 1, 0};
  while (!(done = __atomic_load_n(&P->finished, SC) == n) && spin_more(&sp)) {
  }
  if (!done) {
    pthread_mutex_lock(&P->mu);
    __atomic_store_n(&P->caller_asleep, 1, SC);
    while (__atomic_load_n(&P->finished, SC) != n)
      pthread_cond_wait(&P->done_cv, &P->mu);
    __atomic_store_n(&P->caller_asleep, 0, SC);
    pthread_mutex_unlock(&P->mu);
  }
  __atomic_add_fetch(&P->gen, 1, SC); /* even: closed */
  int32_t result = __atomic_load_n(&P->result, __ATOMIC_ACQUIRE);
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
