/*
 * tests/unit/runtime/tsan_stubs.c - the few core functions the thread pool
 * and its test call, for test_thread_pool_tsan.sh, which builds
 * core/runtime/thread_pool.c alone under ThreadSanitizer (the libraries
 * are built without it).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include "tvm/base.h"

void *tvm_malloc(size_t n) { return malloc(n); }
void *tvm_calloc(size_t count, size_t size) { return calloc(count, size); }
void tvm_free(void *p) { free(p); }
void tvm_log(int level, const char *fmt, ...) {
  (void)level;
  (void)fmt;
}
tvm_status tvm_diag_set(tvm_status code, const char *fmt, ...) {
  (void)fmt;
  return code;
}
void runtime_host_api_set_threads(uint32_t n) { (void)n; }
