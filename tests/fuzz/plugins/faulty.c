/*
 * tests/fuzz/plugins/faulty.c - a test plugin that fails on demand.  It
 * is llvm-cpu underneath (the shared object named by $TVM_FAULTY_INNER,
 * queried at load) under the name "faulty", with codegen, mem_alloc and
 * launch wrapped: while $TVM_FAULTY_FAIL names one of them ("codegen",
 * "alloc", "launch"), that call reports an injected failure and returns
 * an error instead.  tests/fuzz/test_plugin_faults.c checks that each
 * failure reaches the user with its reason and that the process goes on
 * working once the fault is gone.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/plugin.h"

static const tvm_host_api *host;
static const tvm_plugin_vtable *inner;
static tvm_plugin_vtable vt;
static tvm_plugin_desc desc;

/* Is the fault named `what` switched on? */
static int fault(const char *what) {
  const char *f = getenv("TVM_FAULTY_FAIL");
  return f && strcmp(f, what) == 0;
}

static int32_t injected(const char *what, int32_t st) {
  char msg[128];
  snprintf(msg, sizeof msg, "faulty: injected %s failure (TVM_FAULTY_FAIL=%s)",
           what, what);
  if (host) host->report(st, msg);
  return st;
}

static int32_t codegen(tvm_plugin_target *t, const tvm_module *m,
                       tvm_plugin_blob *out) {
  if (fault("codegen")) return injected("codegen", TVM_ERR_INTERNAL);
  return inner->codegen(t, m, out);
}

static int32_t mem_alloc(tvm_plugin_device *d, uint32_t scope,
                         uint64_t nbytes, uint64_t align, void **out) {
  if (fault("alloc")) return injected("alloc", TVM_ERR_NOMEM);
  return inner->mem_alloc(d, scope, nbytes, align, out);
}

static int32_t launch(tvm_plugin_device *d, tvm_plugin_func *f,
                      const tvm_plugin_arg *args, uint32_t nargs,
                      const uint32_t grid[3], const uint32_t block[3]) {
  if (fault("launch")) return injected("launch", TVM_ERR_INTERNAL);
  return inner->launch(d, f, args, nargs, grid, block);
}

/* Loads llvm-cpu and wraps it; NULL when $TVM_FAULTY_INNER is unset or
 * does not load. */
TVM_PLUGIN_EXPORT const tvm_plugin_desc *
tvm_plugin_query(uint32_t host_abi_max, const tvm_host_api *h) {
  const char *path = getenv("TVM_FAULTY_INNER");
  if (!path) return NULL;
  void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!so) return NULL;
  tvm_plugin_query_fn q = (tvm_plugin_query_fn)dlsym(so, "tvm_plugin_query");
  const tvm_plugin_desc *d = q ? q(host_abi_max, h) : NULL;
  if (!d || !d->vtable || d->vtable->struct_size > sizeof vt) return NULL;
  host = h;
  inner = d->vtable;
  memcpy(&vt, inner, inner->struct_size);
  vt.codegen = codegen;
  vt.mem_alloc = mem_alloc;
  vt.launch = launch;
  desc = *d;
  desc.name = "faulty";
  desc.description = "llvm-cpu that fails on demand (tests)";
  desc.vtable = &vt;
  return &desc;
}
