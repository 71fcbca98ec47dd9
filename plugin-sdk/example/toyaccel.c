/*
 * toyaccel.c - an out-of-tree accelerator plugin, the SDK's example.
 *
 * "toyaccel" is a pretend accelerator with one memory scope: its code
 * generator turns loop IR into a small bytecode of its own
 * (TVM_BLOB_CUSTOM, see toyaccel.h) and its "device" is an interpreter of
 * that bytecode running on the host.  It shows every part of the ABI a
 * real backend fills in: the descriptor and ABI negotiation, the
 * attribute schema, target objects and target_info, codegen into
 * host-allocated blobs, and the run-time slots (device, memory, copy,
 * modules, functions, launch).  It leaves sync and the timers NULL: its
 * launches are synchronous and the host times them with its own clock.
 *
 * Build: make (uses only `pkg-config --cflags --libs tvm-plugin-sdk`).
 */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toyaccel.h"

const tvm_host_api *toy_host;

/* Formats a message, reports it through the host, returns status (the
 * SDK library's tvm_sdk_vreport does the work). */
int32_t toy_fail(int32_t status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tvm_sdk_vreport(toy_host, status, fmt, ap);
  va_end(ap);
  return status;
}

/* ---- compile time ------------------------------------------------------ */
static const tvm_plugin_attr schema[] = {
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_INT, "mem_kib", "65536", 1, 1048576,
     NULL, "device memory in KiB (allocations beyond it fail)"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_BOOL, "trace", "false", 0, 0, NULL,
     "log the instruction count of every launch"},
};

static const tvm_plugin_scope scopes[] = {
    {sizeof(tvm_plugin_scope), TVM_VIS_DEVICE | TVM_VIS_HOST, "global", 0, 64,
     -1},
};

struct tvm_plugin_target {
  uint64_t mem_bytes;
  int trace;
  char description[128];
  tvm_plugin_target_info info;
};

/* One target per YAML file: reads the validated attributes and fills
 * the target_info the compiler will see. */
static int32_t target_create(const tvm_plugin_attr_value *v, uint32_t n,
                             tvm_plugin_target **out) {
  tvm_plugin_target *t = calloc(1, sizeof(*t));
  if (t == NULL) return toy_fail(TVM_ERR_NOMEM, "toyaccel: out of memory");
  /* The host passes every schema attribute, defaults filled in. */
  t->mem_bytes = (uint64_t)tvm_sdk_attr_int(v, n, "mem_kib", 65536) * 1024u;
  t->trace = tvm_sdk_attr_int(v, n, "trace", 0) != 0;
  snprintf(t->description, sizeof t->description,
           "toy bytecode interpreter, %llu KiB",
           (unsigned long long)(t->mem_bytes / 1024));
  t->info.struct_size = sizeof(t->info);
  t->info.vector_bits = 32; /* no SIMD: one 32-bit lane */
  t->info.has_threads = 0;
  t->info.num_queues = 0;
  t->info.scopes = scopes;
  t->info.nscopes = 1;
  t->info.unroll_max_extent = 4;
  t->info.description = t->description;
  *out = t;
  return 0;
}

/* Frees a target. */
static void target_destroy(tvm_plugin_target *t) { free(t); }

static const tvm_plugin_target_info *target_info(tvm_plugin_target *t) {
  return &t->info;
}

/* Loop IR -> toy bytecode (toyaccel_codegen.c). */
static int32_t codegen(tvm_plugin_target *t, const tvm_module *m,
                       tvm_plugin_blob *out) {
  return toy_codegen(m, out);
}

/* ---- run time ------------------------------------------------------------- */
struct tvm_plugin_device {
  const tvm_plugin_target *t;
  uint64_t used;
};

struct tvm_plugin_module {
  toy_func *funcs;
  uint32_t nfuncs;
  int trace;
};

/* A function handle is the function itself. */
struct tvm_plugin_func {
  toy_func f;
};

/* A device: just the memory budget of its target. */
static int32_t device_open(tvm_plugin_target *t, tvm_plugin_device **out) {
  tvm_plugin_device *d = calloc(1, sizeof(*d));
  if (d == NULL) return toy_fail(TVM_ERR_NOMEM, "toyaccel: out of memory");
  d->t = t;
  *out = d;
  return 0;
}

/* Frees a device. */
static void device_close(tvm_plugin_device *d) { free(d); }

/* Device memory is host memory with a header recording its size, so that
 * mem_free can keep the usage count. */
static int32_t mem_alloc(tvm_plugin_device *d, uint32_t scope,
                         uint64_t nbytes, uint64_t align, void **out) {
  if (scope != 0)
    return toy_fail(TVM_ERR_INVALID, "toyaccel: no memory scope %u", scope);
  if (d->used + nbytes > d->t->mem_bytes)
    return toy_fail(TVM_ERR_NOMEM,
                    "toyaccel: device memory exhausted (%llu of %llu bytes "
                    "used); raise attrs.mem_kib",
                    (unsigned long long)d->used,
                    (unsigned long long)d->t->mem_bytes);
  void *p = NULL;
  if (posix_memalign(&p, 64, 64 + (size_t)nbytes) != 0)
    return toy_fail(TVM_ERR_NOMEM, "toyaccel: out of host memory");
  *(uint64_t *)p = nbytes;
  d->used += nbytes;
  *out = (char *)p + 64;
  return 0;
}

/* Frees device memory and gives its bytes back to the budget. */
static void mem_free(tvm_plugin_device *d, uint32_t scope, void *p) {
  if (p == NULL) return;
  char *base = (char *)p - 64;
  d->used -= *(uint64_t *)base;
  free(base);
}

/* Device memory is host memory: a plain copy in every direction. */
static int32_t copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                    const void *src, uint64_t src_offset, uint64_t nbytes,
                    uint32_t kind) {
  memmove((char *)dst + dst_offset, (const char *)src + src_offset,
          (size_t)nbytes);
  return 0;
}

/* Parses the blob into the module's own copy of the functions. */
static int32_t module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                           tvm_plugin_module **out) {
  tvm_plugin_module *m = calloc(1, sizeof(*m));
  if (m == NULL) return toy_fail(TVM_ERR_NOMEM, "toyaccel: out of memory");
  int32_t rc = toy_parse(blob, &m->funcs, &m->nfuncs); /* copies: the blob
                                                          is only borrowed */
  if (rc != 0) {
    free(m);
    return rc;
  }
  m->trace = d->t->trace;
  *out = m;
  return 0;
}

/* Frees a module and its functions. */
static void module_unload(tvm_plugin_module *m) {
  toy_funcs_free(m->funcs, m->nfuncs);
  free(m);
}

/* The function called name; owned by the module. */
static int32_t func_get(tvm_plugin_module *m, const char *name,
                        tvm_plugin_func **out) {
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (strcmp(m->funcs[i].name, name) == 0) {
      *out = (tvm_plugin_func *)&m->funcs[i];
      return 0;
    }
  return toy_fail(TVM_ERR_NOT_FOUND, "toyaccel: no function '%s'", name);
}

/* Runs the function on the interpreter (synchronously). */
static int32_t launch(tvm_plugin_device *d, tvm_plugin_func *f,
                      const tvm_plugin_arg *args, uint32_t nargs,
                      const uint32_t grid[3], const uint32_t block[3]) {
  return toy_run(&f->f, args, nargs, d->t->trace);
}

/* ---- the descriptor ------------------------------------------------------ */
static const tvm_plugin_vtable vtable = {
    .struct_size = sizeof(tvm_plugin_vtable),
    .nattrs = sizeof schema / sizeof schema[0],
    .attrs = schema,
    .target_create = target_create,
    .target_destroy = target_destroy,
    .target_info = target_info,
    .codegen = codegen,
    .probe = NULL, /* runs anywhere */
    .device_open = device_open,
    .device_close = device_close,
    .mem_alloc = mem_alloc,
    .mem_free = mem_free,
    .copy = copy,
    .module_load = module_load,
    .module_unload = module_unload,
    .func_get = func_get,
    .launch = launch,
    .sync = NULL,        /* launches are synchronous */
    .timer_start = NULL, /* the host times with its clock */
    .timer_stop = NULL,
};

static const tvm_plugin_desc desc = {
    sizeof(tvm_plugin_desc), 2, "toyaccel", "1.0",
    "example accelerator: loop IR -> toy bytecode, interpreted on the host",
    &vtable};

/* The one exported symbol.  Pure: it only records the host API and
 * answers the ABI version (2, which needs a host that speaks 2). */
TVM_PLUGIN_EXPORT const tvm_plugin_desc *tvm_plugin_query(
    uint32_t host_abi_max, const tvm_host_api *host) {
  if (host_abi_max < 2 || host == NULL) return NULL;
  toy_host = host;
  return &desc;
}
