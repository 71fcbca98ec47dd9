/*
 * core/tune/measure.c - building and timing candidates in child processes.
 *
 * Each candidate (already lowered by the parent) is built, loaded and run
 * by a forked child through the target plugin's own runtime
 * (tvm_callable_build: on a device target the host function runs as a
 * host program launching the device kernels, as in a compiled graph;
 * tvm_callable_time), so a candidate that crashes, or hangs past the
 * target's timeout_s, costs only its child: the parent records the error
 * kind (crash with the signal, timeout) and goes on.  The parent itself
 * never opens a device or runs generated code.
 *
 * Up to `jobs` children are forked at once and build in parallel (the
 * LLVM codegen is the slow part); then they are timed one at a time, each
 * waiting for a "go" byte, so a measurement never shares the CPU with a
 * build of this tuner.  A child reports over a pipe: first "built", then
 * the result.  Outputs go to shared memory, where the parent compares
 * them with the reference (the core's generic schedule of the same group,
 * run once per task on the same deterministic inputs).
 *
 * Timing: one warm-up call, then `number` calls per measurement, raised
 * until one measurement lasts min_repeat_ms, `repeat` measurements.
 *
 * Fault injection for the tests: TVM_TUNE_INJECT=crash (or hang) makes
 * every timed child die of SIGSEGV (or sleep) after its build, so the
 * recovery paths run without a broken code generator.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tvm/runtime.h"
#include "tvm/target.h"
#include "tvm/tune.h"

#define MAX_JOBS 32

struct tvm_tune_measurer {
  const tvm_target *t;
  tvm_tune_measure_opts o;
  int nargs;
  tvm_tune_arg args[64];
  size_t out_bytes;   /* all outputs, concatenated */
  unsigned char *ref; /* the reference outputs (heap) */
  unsigned char *shm; /* one slot of out_bytes per job, shared with children */
  size_t shm_bytes;
};

/* A child's message. */
typedef struct msg {
  int phase; /* 1 = built, 2 = result */
  tvm_tune_result r;
} msg;

static size_t arg_bytes(const tvm_tune_arg *a) {
  return (size_t)a->numel * (size_t)tvm_dtype_bytes(a->dtype);
}

/* Deterministic inputs: floats in [-1, 1), other types zero. */
static void fill(void *p, const tvm_tune_arg *a, uint32_t seed) {
  size_t n = arg_bytes(a);
  memset(p, 0, n);
  if (!(a->dtype.code == kDLFloat && a->dtype.bits == 32))
    return;
  float *f = p;
  uint32_t s = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < a->numel; i++) {
    s = s * 1664525u + 1013904223u;
    f[i] = (float)((s >> 8) * (1.0 / 8388608.0) - 1.0);
  }
}

static int write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    c += w, n -= (size_t)w;
  }
  return 0;
}

/* The child: builds l, reports "built", waits for go (unless go_fd < 0),
 * runs once into out, times (when timed), reports and exits. */
static void child(tvm_tune_measurer *m, const tvm_tune_lowered *l,
                  unsigned char *out, int res_fd, int go_fd, int timed) {
  msg mg;
  memset(&mg, 0, sizeof mg);
  mg.phase = 2;
  tvm_callable *f = NULL;
  void *bufs[64] = {0};
  tvm_plugin_arg a[64];
  tvm_device *d = NULL;
  tvm_status st = tvm_callable_build(m->t, &l->mod, "kernel", NULL, &f);
  if (st) {
    mg.r.error = TVM_TUNE_ERR_BUILD;
    snprintf(mg.r.msg, sizeof mg.r.msg, "%s", tvm_diag_message());
    write_all(res_fd, &mg, sizeof mg);
    _exit(0);
  }
  d = tvm_callable_device(f);
  memset(a, 0, sizeof a);
  for (int i = 0; i < m->nargs && !st; i++) {
    size_t n = arg_bytes(&m->args[i]);
    void *h = malloc(n ? n : 1);
    if (!h)
      st = TVM_ERR_NOMEM;
    else {
      fill(h, &m->args[i], (uint32_t)i + 1);
      st = tvm_device_alloc(d, 0, n ? n : 1, 64, &bufs[i]);
      if (!st)
        st = tvm_device_copy(d, bufs[i], 0, h, 0, n, TVM_COPY_HOST_TO_DEVICE);
      free(h);
    }
    a[i].type = TVM_ARG_PTR;
    a[i].v.ptr = bufs[i];
  }
  if (st) {
    mg.r.error = TVM_TUNE_ERR_RUN;
    snprintf(mg.r.msg, sizeof mg.r.msg, "buffers: %s", tvm_diag_message());
    write_all(res_fd, &mg, sizeof mg);
    _exit(0);
  }
  msg built = {.phase = 1};
  write_all(res_fd, &built, sizeof built);
  if (go_fd >= 0) {
    char go;
    if (read(go_fd, &go, 1) != 1)
      _exit(0);
  }
  const char *inject = timed ? getenv("TVM_TUNE_INJECT") : NULL;
  if (inject && strcmp(inject, "crash") == 0)
    raise(SIGSEGV);
  if (inject && strcmp(inject, "hang") == 0)
    for (;;)
      pause();
  st = tvm_callable_call(f, a, (uint32_t)m->nargs);
  size_t off = 0;
  for (int i = 0; i < m->nargs && !st; i++) {
    if (!m->args[i].is_output)
      continue;
    size_t n = arg_bytes(&m->args[i]);
    st = tvm_device_copy(d, out + off, 0, bufs[i], 0, n,
                         TVM_COPY_DEVICE_TO_HOST);
    off += n;
  }
  if (!st && timed) {
    double ms = 0;
    int number = m->o.number > 0 ? m->o.number : 1;
    st = tvm_callable_time(f, a, (uint32_t)m->nargs, number, 1, &ms);
    if (!st && m->o.min_repeat_ms > 0 && ms * number < m->o.min_repeat_ms) {
      double want = m->o.min_repeat_ms / (ms > 1e-6 ? ms : 1e-6);
      number = want > 1e6 ? 1000000 : (int)ceil(want);
    }
    int rep = m->o.repeat > 0 ? m->o.repeat : 1;
    if (rep > 16)
      rep = 16;
    double v[16];
    if (!st)
      st = tvm_callable_time(f, a, (uint32_t)m->nargs, number, rep, v);
    for (int i = 0; !st && i < rep; i++)
      mg.r.costs[mg.r.ncosts++] = v[i] * 1e-3;
  }
  if (st) {
    mg.r.error = TVM_TUNE_ERR_RUN;
    snprintf(mg.r.msg, sizeof mg.r.msg, "%s", tvm_diag_message());
  }
  write_all(res_fd, &mg, sizeof mg);
  _exit(0);
}

/* A forked child and its pipes. */
typedef struct kid {
  pid_t pid;
  int res_fd, go_fd;
  int done;
  msg last;
  int got; /* messages received */
} kid;

static tvm_status spawn(tvm_tune_measurer *m, const tvm_tune_lowered *l,
                        unsigned char *out, int timed, int wait_go, kid *k) {
  int rp[2], gp[2] = {-1, -1};
  memset(k, 0, sizeof *k);
  if (pipe(rp) != 0)
    return tvm_diag_set(TVM_ERR_IO, "tune: pipe: %s", strerror(errno));
  if (wait_go && pipe(gp) != 0) {
    close(rp[0]), close(rp[1]);
    return tvm_diag_set(TVM_ERR_IO, "tune: pipe: %s", strerror(errno));
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(rp[0]), close(rp[1]);
    if (wait_go)
      close(gp[0]), close(gp[1]);
    return tvm_diag_set(TVM_ERR_IO, "tune: fork: %s", strerror(errno));
  }
  if (pid == 0) {
    close(rp[0]);
    if (wait_go)
      close(gp[1]);
    child(m, l, out, rp[1], wait_go ? gp[0] : -1, timed);
    _exit(0);
  }
  close(rp[1]);
  if (wait_go)
    close(gp[0]);
  k->pid = pid;
  k->res_fd = rp[0];
  k->go_fd = wait_go ? gp[1] : -1;
  return TVM_OK;
}

/* Waits up to timeout_s for the kid's next message; 1 = got one, 0 = the
 * pipe closed (the child died), -1 = timed out. */
static int next_msg(kid *k, double timeout_s) {
  double end = tvm_now_s() + timeout_s;
  size_t have = 0;
  char *p = (char *)&k->last;
  while (have < sizeof k->last) {
    double left = end - tvm_now_s();
    if (left <= 0)
      return -1;
    struct pollfd pf = {k->res_fd, POLLIN, 0};
    int r = poll(&pf, 1, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r == 0)
      continue;
    ssize_t n = read(k->res_fd, p + have, sizeof k->last - have);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return 0;
    have += (size_t)n;
  }
  k->got++;
  return 1;
}

/* Ends a kid: kills it when asked, reaps it; *sig gets a fatal signal. */
static void reap(kid *k, int kill_it, int *sig) {
  int status = 0;
  if (kill_it)
    kill(k->pid, SIGKILL);
  while (waitpid(k->pid, &status, 0) < 0 && errno == EINTR)
    ;
  *sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  close(k->res_fd);
  if (k->go_fd >= 0)
    close(k->go_fd);
}

/* Finishes kid k into r (after "go" was sent or not needed). */
static void finish(tvm_tune_measurer *m, kid *k, double timeout_s,
                   tvm_tune_result *r) {
  int got = next_msg(k, timeout_s), sig = 0;
  reap(k, got < 0, &sig);
  memset(r, 0, sizeof *r);
  if (got < 0) {
    r->error = TVM_TUNE_ERR_TIMEOUT;
    snprintf(r->msg, sizeof r->msg, "ran past %g s (killed)", timeout_s);
  } else if (got == 0) {
    r->error = TVM_TUNE_ERR_CRASH;
    snprintf(r->msg, sizeof r->msg, "child died%s%s",
             sig ? " of " : " without a result", sig ? strsignal(sig) : "");
  } else {
    *r = k->last.r;
  }
  (void)m;
}

/* Starts a kid and waits for its "built" message; on a build error or
 * death, *r is final and 0 is returned; 1 = built and waiting for go. */
static int start_built(tvm_tune_measurer *m, kid *k, tvm_tune_result *r) {
  int got = next_msg(k, m->o.timeout_s > 0 ? m->o.timeout_s : 10);
  if (got == 1 && k->last.phase == 1)
    return 1;
  int sig = 0;
  reap(k, got < 0, &sig);
  memset(r, 0, sizeof *r);
  if (got < 0) {
    r->error = TVM_TUNE_ERR_TIMEOUT;
    snprintf(r->msg, sizeof r->msg, "build ran past %d s (killed)",
             m->o.timeout_s);
  } else if (got == 0) {
    r->error = TVM_TUNE_ERR_CRASH;
    snprintf(r->msg, sizeof r->msg, "child died during the build%s%s",
             sig ? " of " : "", sig ? strsignal(sig) : "");
  } else {
    *r = k->last.r;
  }
  return 0;
}

/* Max relative error of out against the reference. */
static double rel_err(const tvm_tune_measurer *m, const unsigned char *out) {
  double worst = 0;
  size_t off = 0;
  for (int i = 0; i < m->nargs; i++) {
    const tvm_tune_arg *a = &m->args[i];
    if (!a->is_output)
      continue;
    size_t n = arg_bytes(a);
    if (a->dtype.code == kDLFloat && a->dtype.bits == 32) {
      const float *x = (const float *)(out + off),
                  *y = (const float *)(m->ref + off);
      double scale = 1e-6, err = 0;
      for (int64_t j = 0; j < a->numel; j++)
        if (fabs(y[j]) > scale)
          scale = fabs(y[j]);
      for (int64_t j = 0; j < a->numel; j++) {
        double e = fabs((double)x[j] - y[j]);
        if (!(e <= err)) /* NaN too */
          err = isnan(e) ? INFINITY : e;
      }
      if (err / scale > worst)
        worst = err / scale;
    } else if (memcmp(out + off, m->ref + off, n) != 0) {
      worst = INFINITY;
    }
    off += n;
  }
  return worst;
}

tvm_status tvm_tune_measurer_create(tvm_tune_kernel *k,
                                    const tvm_tune_measure_opts *o,
                                    tvm_tune_measurer **out) {
  *out = NULL;
  tvm_tune_measurer *m = tvm_calloc(1, sizeof *m);
  if (!m)
    return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
  m->t = tvm_tune_kernel_target(k);
  m->o = *o;
  if (m->o.jobs < 1)
    m->o.jobs = 1;
  if (m->o.jobs > MAX_JOBS)
    m->o.jobs = MAX_JOBS;
  if (m->o.tolerance <= 0)
    m->o.tolerance = 1e-3;
  if (m->o.timeout_s <= 0)
    m->o.timeout_s = 10;
  tvm_tune_lowered ref;
  tvm_config *dflt = NULL;
  int generic = 1;
again:;
  tvm_status st = tvm_tune_kernel_lower(k, dflt, generic, &ref);
  if (st) {
    tvm_config_free(dflt);
    tvm_free(m);
    return tvm_diag_prefix(st, "tune: reference of %s: ",
                           tvm_tune_kernel_workload(k));
  }
  m->nargs = ref.nargs;
  memcpy(m->args, ref.args, sizeof m->args);
  for (int i = 0; i < m->nargs; i++)
    if (m->args[i].is_output)
      m->out_bytes += arg_bytes(&m->args[i]);
  m->shm_bytes = (m->out_bytes ? m->out_bytes : 1) * (size_t)m->o.jobs;
  m->shm = mmap(NULL, m->shm_bytes, PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  m->ref = tvm_malloc(m->out_bytes ? m->out_bytes : 1);
  if (m->shm == MAP_FAILED || !m->ref) {
    if (m->shm == MAP_FAILED)
      m->shm = NULL;
    tvm_tune_lowered_free(&ref);
    tvm_tune_measurer_free(m);
    return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory for outputs");
  }
  kid kd;
  tvm_tune_result r;
  if ((st = spawn(m, &ref, m->shm, 0, 0, &kd)) == TVM_OK) {
    if (start_built(m, &kd, &r))
      finish(m, &kd, m->o.timeout_s, &r);
    if (r.error == TVM_TUNE_ERR_BUILD && generic) {
      /* a target whose codegen cannot build the core's generic schedule
       * (an accelerator that only runs its tensorized templates): the
       * reference is the template at its defaults */
      tvm_tune_lowered_free(&ref);
      munmap(m->shm, m->shm_bytes);
      tvm_free(m->ref);
      m->shm = NULL, m->ref = NULL, m->out_bytes = 0;
      if (!(dflt = tvm_config_create())) {
        tvm_free(m);
        return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
      }
      generic = 0;
      goto again;
    }
    if (r.error)
      st = tvm_diag_set(TVM_ERR_INTERNAL,
                        "tune: the reference (%s) of %s failed: %s (%s)",
                        generic ? "generic schedule"
                                : "template defaults, the generic schedule "
                                  "does not build for this target",
                        tvm_tune_kernel_workload(k),
                        tvm_tune_error_name(r.error), r.msg);
    else
      memcpy(m->ref, m->shm, m->out_bytes);
  }
  tvm_tune_lowered_free(&ref);
  tvm_config_free(dflt);
  if (st) {
    tvm_tune_measurer_free(m);
    return st;
  }
  *out = m;
  return TVM_OK;
}

void tvm_tune_measurer_free(tvm_tune_measurer *m) {
  if (!m)
    return;
  if (m->shm)
    munmap(m->shm, m->shm_bytes);
  tvm_free(m->ref);
  tvm_free(m);
}

tvm_status tvm_tune_measure(tvm_tune_measurer *m,
                            tvm_tune_lowered *const *cands, int n,
                            tvm_tune_result *res) {
  for (int start = 0; start < n; start += m->o.jobs) {
    int cnt = n - start < m->o.jobs ? n - start : m->o.jobs;
    kid kids[MAX_JOBS];
    int alive[MAX_JOBS] = {0};
    for (int j = 0; j < cnt; j++) {
      unsigned char *slot = m->shm + (size_t)j * (m->out_bytes ? m->out_bytes : 1);
      tvm_status st = spawn(m, cands[start + j], slot, 1, 1, &kids[j]);
      if (st) {
        for (int q = 0; q < j; q++) {
          int sig;
          reap(&kids[q], 1, &sig);
        }
        return st;
      }
      alive[j] = 1;
    }
    /* all of the batch build at once; then each is timed alone */
    for (int j = 0; j < cnt; j++)
      alive[j] = start_built(m, &kids[j], &res[start + j]);
    for (int j = 0; j < cnt; j++) {
      tvm_tune_result *r = &res[start + j];
      if (!alive[j])
        continue;
      char go = 'g';
      if (write_all(kids[j].go_fd, &go, 1) != 0) {
        int sig;
        reap(&kids[j], 1, &sig);
        memset(r, 0, sizeof *r);
        r->error = TVM_TUNE_ERR_CRASH;
        snprintf(r->msg, sizeof r->msg, "child gone before its run");
        continue;
      }
      finish(m, &kids[j], m->o.timeout_s, r);
      if (r->error)
        continue;
      const unsigned char *slot =
          m->shm + (size_t)j * (m->out_bytes ? m->out_bytes : 1);
      r->max_rel_err = rel_err(m, slot);
      if (!(r->max_rel_err <= m->o.tolerance)) {
        r->error = TVM_TUNE_ERR_WRONG;
        snprintf(r->msg, sizeof r->msg,
                 "output differs from the reference: max relative error "
                 "%.3g > %.3g", r->max_rel_err, m->o.tolerance);
        continue;
      }
      r->cost_s = tvm_tune_cost(r->costs, r->ncosts);
      if (!(r->cost_s > 0)) {
        r->error = TVM_TUNE_ERR_RUN;
        snprintf(r->msg, sizeof r->msg, "no timing");
      }
    }
  }
  return TVM_OK;
}
