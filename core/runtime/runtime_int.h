/*
 * core/runtime/runtime_int.h - private to core/runtime (libtvm_runtime):
 * helpers shared by plugin discovery, the host API, targets, thread pools
 * and devices.  Nothing outside core/runtime includes it; what the
 * compiler side (libtvm) needs from here is public in tvm/runtime.h.
 */
#ifndef TVM_RUNTIME_INT_H
#define TVM_RUNTIME_INT_H

#include <stddef.h>

#include "tvm/runtime.h"

/* Short names for the public slot helpers. */
#define RT_SLOT(p, field) TVM_PLUGIN_SLOT(p, field)
#define RT_HAS_FIELD(T, s, field) TVM_PLUGIN_HAS_FIELD(T, s, field)

/* What a tvm_target owns beyond its public fields (t->priv). */
typedef struct runtime_target_priv {
  tvm_arena *arena;                   /* every string and array of t */
  const tvm_plugin_target_info *info; /* from the plugin, or zeroed */
  tvm_scope_info *scopes;             /* info->scopes as lowering reads them */
  int nscopes;
} runtime_target_priv;

/* Bytes of the vtable defined by ABI version v (0 for unknown ones). */
size_t runtime_vtable_size_for_abi(uint32_t v);

/* A heap string (tvm_free) formatted like printf, or NULL. */
char *runtime_aprintf(const char *fmt, ...) TVM_PRINTF(1, 2);

/* Non-zero when TVM_NO_INSTALLED is set: only the env paths are searched
 * (test suites use it to see the build tree alone). */
int runtime_no_installed_dirs(void);

/* Every core of this machine (1..1024). */
int runtime_all_cores(void);

/* Keeps host_api.num_threads equal to the default pool's size. */
void runtime_host_api_set_threads(uint32_t n);

/* The opaque pool handle plugins see (tvm_host_pool) for a pool. */
struct tvm_host_pool;
struct tvm_host_pool *runtime_host_pool(tvm_thread_pool *p);

#endif /* TVM_RUNTIME_INT_H */
