/*
 * core/runtime/host_api.c - the services the host offers every plugin
 * (tvm_host_api): diagnostics, logging, the core allocator and the
 * thread pools.  ABI 1-3 plugins reach the process default pool through
 * parallel_for; ABI 4 plugins run on their device's pool through
 * pool_parallel_for (the pool device_open_pool handed them).  A
 * tvm_host_pool is a tvm_thread_pool seen through the ABI's opaque type.
 */
#include "runtime_int.h"

/* host->report: records msg in the calling thread's diagnostic.  A status
 * that is not a failure code becomes TVM_ERR_INTERNAL so the diagnostic
 * always reads as a failure. */
static void host_report(int32_t status, const char *msg) {
  if (status >= 0) status = TVM_ERR_INTERNAL;
  tvm_diag_set(status, "%s", msg ? msg : "(plugin gave no message)");
}

/* host->log: a line at a TVM_LOG_* level, clamped into range. */
static void host_log(int32_t level, const char *msg) {
  if (level < TVM_LOG_ERROR) level = TVM_LOG_ERROR;
  if (level > TVM_LOG_DEBUG) level = TVM_LOG_DEBUG;
  tvm_log(level, "%s", msg ? msg : "");
}

/* host->alloc: the core allocator, so that the host can tvm_free what a
 * plugin hands over.  Sizes beyond size_t fail. */
static void *host_alloc(uint64_t nbytes) {
  if (nbytes > (uint64_t)SIZE_MAX) return NULL;
  return tvm_malloc((size_t)nbytes);
}

/* host->free: releases what host->alloc gave. */
static void host_free(void *p) { tvm_free(p); }

/* host->parallel_for: the process default pool. */
static int32_t host_parallel_for(int32_t (*task)(int64_t, int64_t, void *),
                                 void *data, int64_t n) {
  return tvm_runtime_parallel_for(task, data, n);
}

/* host->pool_parallel_for (ABI 4): the given pool, NULL = default. */
static int32_t host_pool_parallel_for(tvm_host_pool *pool,
                                      int32_t (*task)(int64_t, int64_t,
                                                      void *),
                                      void *data, int64_t n) {
  return tvm_thread_pool_run((tvm_thread_pool *)pool, task, data, n);
}

/* host->pool_size (ABI 4). */
static uint32_t host_pool_size(tvm_host_pool *pool) {
  return (uint32_t)tvm_thread_pool_size((tvm_thread_pool *)pool);
}

/* The opaque handle of pool p. */
struct tvm_host_pool *runtime_host_pool(tvm_thread_pool *p) {
  return (struct tvm_host_pool *)p;
}

static tvm_host_api host_api = {
    sizeof(tvm_host_api), TVM_PLUGIN_ABI_VERSION, host_report, host_log,
    host_alloc,           host_free,              host_parallel_for,
    0,                    0,                      host_pool_parallel_for,
    host_pool_size};

/* The one host API of the process.  num_threads is the default pool's
 * size, filled the first time the API is asked for; it changes only when
 * a program resizes the default pool (tvm_runtime_set_num_threads):
 * loading targets and opening devices never do. */
const tvm_host_api *tvm_plugin_host_api(void) {
  if (__atomic_load_n(&host_api.num_threads, __ATOMIC_ACQUIRE) == 0)
    runtime_host_api_set_threads((uint32_t)tvm_runtime_num_threads());
  return &host_api;
}

/* Called when the default pool is resized. */
void runtime_host_api_set_threads(uint32_t n) {
  __atomic_store_n(&host_api.num_threads, n, __ATOMIC_RELEASE);
}
