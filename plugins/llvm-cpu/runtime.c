/*
 * runtime.c - the run-time half of llvm-cpu: the host CPU is the device.
 * Memory is aligned host memory, copies are memcpy, launches are direct
 * calls of the loaded entry points; timers are left to the host clock.
 */
#include <dlfcn.h>
#include <gnu/lib-names.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_cpu.h"

/* The last assertion message of any kernel, re-reported on the launching
 * thread (asserts may fire on pool threads). */
static pthread_mutex_t assert_lock = PTHREAD_MUTEX_INITIALIZER;
static char assert_msg[768];

/* Stored in __tvm_assert_fail: records and reports a failed assertion. */
void lc_assert_trampoline(const char *msg) {
  pthread_mutex_lock(&assert_lock);
  snprintf(assert_msg, sizeof assert_msg, "%s", msg ? msg : "");
  pthread_mutex_unlock(&assert_lock);
  lc_report(TVM_ERR_INVALID, "llvm-cpu: assertion failed %s", msg ? msg : "");
}

/* Does the host API have the ABI 4 pool slots? */
static int host_has_pools(const tvm_host_api *h) {
  return h && h->struct_size >= offsetof(tvm_host_api, pool_size) +
                                    sizeof(h->pool_size) &&
         h->pool_parallel_for && h->pool_size;
}

/* Runs the tasks one after the other. */
static int32_t run_serial(lc_task_fn task, void *data, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    int32_t rc = task(i, n, data);
    if (rc) return rc;
  }
  return 0;
}

/* Stored in __tvm_parallel_for: runs the tasks on the pool of device ctx
 * (the module's device) when the host gave it one, else on the host's
 * default pool, or one after the other when the host has none. */
int32_t lc_parallel_trampoline(void *ctx, lc_task_fn task, void *data,
                               int64_t n) {
  const tvm_host_api *h = lc_host();
  const tvm_plugin_device *d = ctx;
  if (d && d->pool && host_has_pools(h))
    return h->pool_parallel_for(d->pool, task, data, n);
  if (h && h->parallel_for) return h->parallel_for(task, data, n);
  return run_serial(task, data, n);
}

/* The same for modules compiled without __tvm_parallel_ctx (packages
 * made before it): the host's default pool. */
int32_t lc_parallel_trampoline_v1(lc_task_fn task, void *data, int64_t n) {
  return lc_parallel_trampoline(NULL, task, data, n);
}

/* Promotes libm to the global symbol scope once: generated code calls
 * expf and friends, which the JIT resolves against the process; a host
 * program that links no libm itself (one linking libtvm_runtime alone)
 * would otherwise leave them unresolved, since plugins and their
 * dependencies are loaded with RTLD_LOCAL.  The handle is never closed. */
static void promote_libm(void) {
  if (dlopen(LIBM_SO, RTLD_NOW | RTLD_GLOBAL) == NULL)
    lc_report(TVM_ERR_UNAVAILABLE, "llvm-cpu: cannot load %s: %s", LIBM_SO,
              dlerror());
}

void lc_math_library_global(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, promote_libm);
}

/* This machine can always run code for its own CPU. */
int32_t lc_probe(tvm_plugin_target *t) { return TVM_OK; }

/* Opens the CPU "device" with the target's thread count; its loops run
 * on the host's default pool (an ABI 1-3 host, or one that opened the
 * device without a pool). */
int32_t lc_device_open(tvm_plugin_target *t, tvm_plugin_device **out) {
  tvm_plugin_device *d = calloc(1, sizeof *d);
  if (!d) return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  d->target = t;
  d->num_threads = t->num_threads > 0 ? t->num_threads : lc_num_cores();
  *out = d;
  return TVM_OK;
}

/* Opens the CPU "device" whose loops run on the host pool `pool` (ABI
 * 4): as many tasks per loop as that pool has threads. */
int32_t lc_device_open_pool(tvm_plugin_target *t, tvm_host_pool *pool,
                            tvm_plugin_device **out) {
  int32_t st = lc_device_open(t, out);
  if (st != TVM_OK) return st;
  const tvm_host_api *h = lc_host();
  if (pool && host_has_pools(h)) {
    (*out)->pool = pool;
    uint32_t n = h->pool_size(pool);
    if (n > 0) (*out)->num_threads = (int)n;
  }
  return TVM_OK;
}

/* Closes the device (it owns nothing else). */
void lc_device_close(tvm_plugin_device *d) { free(d); }

/* Aligned host memory (at least 64 bytes alignment); scope is ignored. */
int32_t lc_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                     uint64_t align, void **out) {
  uint64_t a = align > 64 ? align : 64;
  if (a & (a - 1))
    return lc_report(TVM_ERR_INVALID,
                     "llvm-cpu: mem_alloc alignment %llu is not a power of two",
                     (unsigned long long)align);
  uint64_t n = (nbytes + a - 1) / a * a;
  if (n == 0) n = a;
  *out = aligned_alloc((size_t)a, (size_t)n);
  if (!*out)
    return lc_report(TVM_ERR_NOMEM, "llvm-cpu: cannot allocate %llu bytes",
                     (unsigned long long)nbytes);
  return TVM_OK;
}

/* Frees memory from lc_mem_alloc. */
void lc_mem_free(tvm_plugin_device *d, uint32_t scope, void *p) { free(p); }

/* memcpy with offsets; every kind is a host copy. */
int32_t lc_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                const void *src, uint64_t src_offset, uint64_t nbytes,
                uint32_t kind) {
  if (kind < TVM_COPY_HOST_TO_DEVICE || kind > TVM_COPY_DEVICE_TO_DEVICE)
    return lc_report(TVM_ERR_INVALID, "llvm-cpu: unknown copy kind %u", kind);
  if (nbytes && (!dst || !src))
    return lc_report(TVM_ERR_INVALID, "llvm-cpu: copy with a NULL pointer");
  if (nbytes)
    memmove((char *)dst + dst_offset, (const char *)src + src_offset,
            (size_t)nbytes);
  return TVM_OK;
}

/* The function named name of a loaded module. */
int32_t lc_func_get(tvm_plugin_module *m, const char *name,
                    tvm_plugin_func **out) {
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (strcmp(m->funcs[i].name, name) == 0) {
      *out = &m->funcs[i];
      return TVM_OK;
    }
  return lc_report(TVM_ERR_NOT_FOUND,
                   "llvm-cpu: the module has no function '%s'", name);
}

/* Calls the entry point synchronously; a non-zero return (a failed
 * assertion) becomes an error with the assertion's message. */
int32_t lc_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                  const tvm_plugin_arg *args, uint32_t nargs,
                  const uint32_t grid[3], const uint32_t block[3]) {
  int32_t rc = f->fn(args, nargs);
  if (rc == 0) return TVM_OK;
  char msg[768];
  pthread_mutex_lock(&assert_lock);
  snprintf(msg, sizeof msg, "%s", assert_msg);
  pthread_mutex_unlock(&assert_lock);
  int32_t st = rc < 0 && rc >= TVM_ERR_INTERNAL ? rc : TVM_ERR_INTERNAL;
  return lc_report(st, "llvm-cpu: '%s' failed (code %d): assertion failed %s",
                   f->name, rc, msg);
}
