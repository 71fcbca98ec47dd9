/*
 * tvm/plugin_sdk.h - the SDK's helper library (libtvm_plugin_sdk): what
 * every plugin otherwise rewrites around the ABI of tvm/plugin.h.
 *
 *  - reporting: printf-style messages through host->report and host->log;
 *  - host memory: allocations the host frees (blobs, kernel names);
 *  - blobs: the data copy and the kernel table of a module's functions;
 *  - attributes: lookup by name in the validated tvm_plugin_attr_value
 *    array target_create receives;
 *  - the compiled-code cache: a content-addressed store on disk that a
 *    plugin consults before a slow compile and fills after it.
 *
 * Every function takes the tvm_host_api the plugin got in
 * tvm_plugin_query (NULL is allowed: reports then go to the core's
 * per-thread diagnostic and memory comes from malloc, which is what unit
 * tests calling a plugin's functions directly need).  Nothing here keeps
 * state but the cache's counters (thread-safe), so several plugins in one
 * process may share the library.
 *
 * Link with `pkg-config --libs tvm-plugin-sdk` (-ltvm_plugin_sdk -ltvm).
 */
#ifndef TVM_PLUGIN_SDK_H
#define TVM_PLUGIN_SDK_H

#include <stdarg.h>

#include "tvm/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reporting ---------------------------------------------------------- */
/* Formats a message, hands it to h->report with status st, returns st:
 *   return tvm_sdk_report(h, TVM_ERR_NOMEM, "mydev: %s: out of memory", f);
 */
TVM_API int32_t tvm_sdk_report(const tvm_host_api *h, int32_t st,
                               const char *fmt, ...) TVM_PRINTF(3, 4);
TVM_API int32_t tvm_sdk_vreport(const tvm_host_api *h, int32_t st,
                                const char *fmt, va_list ap);
/* A log line at a TVM_LOG_* level through h->log. */
TVM_API void tvm_sdk_log(const tvm_host_api *h, int32_t level,
                         const char *fmt, ...) TVM_PRINTF(3, 4);

/* ---- host memory -------------------------------------------------------- */
/* n bytes (at least 1), zeroed, that the host will free; NULL when out of
 * memory (nothing reported: the caller names what it was building). */
TVM_API void *tvm_sdk_alloc(const tvm_host_api *h, uint64_t n);
/* Frees what tvm_sdk_alloc returned (on the plugin's own error paths). */
TVM_API void tvm_sdk_free(const tvm_host_api *h, void *p);
/* A copy of s in host memory, or NULL. */
TVM_API char *tvm_sdk_strdup(const tvm_host_api *h, const char *s);

/* ---- blobs -------------------------------------------------------------- */
/* Copies size bytes of data into out->data (host memory) and sets size
 * and format; TVM_ERR_NOMEM (reported) on failure. */
TVM_API int32_t tvm_sdk_blob_set_data(const tvm_host_api *h,
                                      tvm_plugin_blob *out, uint32_t format,
                                      const void *data, uint64_t size);
/* Fills out's kernel table with one kernel per function of m: its name,
 * its parameter count, grid and block 1 1 1 (CPU-style functions; set
 * grid/block afterwards for thread kernels). */
TVM_API int32_t tvm_sdk_blob_kernels_of_module(const tvm_host_api *h,
                                               tvm_plugin_blob *out,
                                               const tvm_module *m);
/* Frees what the two calls above put in out and zeroes those fields (for
 * a codegen that fails half-way and prefers to leave nothing behind). */
TVM_API void tvm_sdk_blob_clear(const tvm_host_api *h, tvm_plugin_blob *out);

/* ---- attributes --------------------------------------------------------- */
/* The value called name among the n values target_create received, or
 * NULL.  The host passes every schema attribute with defaults filled, so
 * NULL means the name is not in the plugin's own schema. */
TVM_API const tvm_plugin_attr_value *tvm_sdk_attr(
    const tvm_plugin_attr_value *v, uint32_t n, const char *name);
/* Typed reads with a fallback for absent names (INT and BOOL read i). */
TVM_API int64_t tvm_sdk_attr_int(const tvm_plugin_attr_value *v, uint32_t n,
                                 const char *name, int64_t dflt);
TVM_API double tvm_sdk_attr_float(const tvm_plugin_attr_value *v, uint32_t n,
                                  const char *name, double dflt);
TVM_API const char *tvm_sdk_attr_str(const tvm_plugin_attr_value *v,
                                     uint32_t n, const char *name,
                                     const char *dflt);

/* ---- the compiled-code cache ------------------------------------------ */
/* What a compile produced, kept on disk under a key of everything that
 * decided it, so the same compile in a later process (the next `tvmc
 * compile` of a model, the tuner's re-measurement of a candidate) reads
 * the bytes back instead.  The folder is $TVM_CACHE_DIR, else
 * $XDG_CACHE_HOME/tvm-c, else $HOME/.cache/tvm-c, with one subfolder per
 * namespace ns (the plugin's name: letters, digits, - _ .);
 * TVM_CACHE_DIR=off (or empty) turns the cache off.  Entries are written
 * whole (a temporary file renamed), checked when read (magic, key, size,
 * checksum: a bad entry is a miss and is removed), and the folder is kept
 * under $TVM_CACHE_MAX_MB (default 256), least recently used first.
 * Every failure of the cache itself is a miss or a skipped write, never
 * an error: the compile runs as without it.
 *
 * The key: the caller adds every input that decides the bytes (the
 * compiler's input, its options, and the identity of the compiler and of
 * the plugin with tvm_sdk_cache_key_add_object), in a fixed order.  Two
 * independent 64-bit hashes and the byte count name the entry. */
typedef struct tvm_sdk_cache_key {
  uint64_t fnv;   /* FNV-1a of the key's bytes */
  tvm_wsum wide;  /* the wide sum of the same bytes */
  uint64_t n;     /* their count */
} tvm_sdk_cache_key;
TVM_API void tvm_sdk_cache_key_init(tvm_sdk_cache_key *k);
TVM_API void tvm_sdk_cache_key_add(tvm_sdk_cache_key *k, const void *p,
                                   size_t n);
/* Adds s and its terminating NUL (NULL adds ""). */
TVM_API void tvm_sdk_cache_key_add_str(tvm_sdk_cache_key *k, const char *s);
/* Adds the identity of the shared object (or executable) that holds addr:
 * its path, device, inode, size and modification times, so a rebuilt or
 * upgraded plugin or compiler library keys apart.  Returns 0 when it
 * cannot be found (then do not use the cache). */
TVM_API int tvm_sdk_cache_key_add_object(tvm_sdk_cache_key *k,
                                         const void *addr);
/* 1 when the cache is on for ns (the environment above). */
TVM_API int tvm_sdk_cache_enabled(const char *ns);
/* On a hit: 1, *data (malloc'd; free() it) and *size.  Else 0. */
TVM_API int tvm_sdk_cache_get(const char *ns, const tvm_sdk_cache_key *k,
                              uint8_t **data, uint64_t *size);
/* Stores size bytes under k (best effort, silent on failure). */
TVM_API void tvm_sdk_cache_put(const char *ns, const tvm_sdk_cache_key *k,
                               const void *data, uint64_t size);
/* This process's counts so far (any argument may be NULL). */
TVM_API void tvm_sdk_cache_stats(uint64_t *hits, uint64_t *misses,
                                 uint64_t *writes);

#ifdef __cplusplus
}
#endif
#endif /* TVM_PLUGIN_SDK_H */
