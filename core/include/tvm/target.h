/*
 * tvm/target.h - targets and the plugins that implement them.
 *
 * Plugins.  A plugin is a shared object exporting tvm_plugin_query (see
 * tvm/plugin.h).  Discovery looks at the directories of $TVM_PLUGIN_PATH
 * (a colon list read with secure_getenv; empty entries are ignored), then
 * at the installed plugin directory; never at the current directory.
 * Every "*.so" there is either loaded or recorded as skipped with the
 * reason (group/world-writable file or directory, failed dlopen, missing
 * entry symbol, ABI negotiation failure, duplicate name).  Nothing about a
 * bad plugin is fatal.  Plugins stay loaded for the life of the process.
 *
 * Targets.  A target is a YAML file (targets/llvm-cpu.yaml):
 *
 *   name: llvm-cpu
 *   plugin: llvm-cpu
 *   keys: [cpu]
 *   attrs: {num_threads: 0}
 *   tuning: {number: 4, repeat: 3, min_repeat_ms: 50, timeout_s: 10}
 *
 * whose attrs are validated against the plugin's attribute schema: every
 * schema attribute gets a value (defaults filled), unknown keys, wrong
 * types and out-of-range values are errors naming file:line:column and
 * the nearest valid key.  A target is looked up by path when the argument
 * contains '/' or ends in ".yaml", else by name in $TVM_TARGET_PATH (colon
 * list) then the installed target directory.
 */
#ifndef TVM_TARGET_H
#define TVM_TARGET_H

#include "tvm/base.h"
#include "tvm/lower.h"
#include "tvm/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- plugins ----------------------------------------------------------- */
enum { /* tvm_plugin_entry.state */
  TVM_PLUGIN_LOADED = 0,
  TVM_PLUGIN_SKIPPED = 1
};

/* What discovery decided about one file.  Read-only for callers; strings
 * live as long as the registry (the global one: the process). */
typedef struct tvm_plugin_entry {
  const char *path;        /* the .so file */
  int state;               /* TVM_PLUGIN_* */
  const char *reason;      /* SKIPPED: why, one line; NULL when loaded */
  /* Valid when loaded (name may also be set for a skipped duplicate). */
  const char *name;
  const char *version;
  const char *description;
  uint32_t abi_version;    /* negotiated */
  const tvm_plugin_desc *desc;
  const tvm_plugin_vtable *vtable;
  /* Bytes of the vtable the host may read: its struct_size, capped at
   * the size of the negotiated ABI version.  Use the tvm_plugin_* slot
   * helpers below rather than reading slots directly. */
  uint32_t vtable_size;
} tvm_plugin_entry;

typedef struct tvm_plugin_registry tvm_plugin_registry;

/* The process-wide registry: discovered once (thread-safe) from
 * $TVM_PLUGIN_PATH and the installed plugin directory.  Never NULL
 * (out of memory yields an empty registry and a logged error). */
TVM_API tvm_plugin_registry *tvm_plugins(void);

/* A private registry of the directories in path_list (colon list, empty
 * entries ignored), followed by the installed directory when
 * with_default_dir is non-zero.  For tools and tests; free it with
 * tvm_plugin_registry_free (the shared objects stay loaded). */
TVM_API tvm_status tvm_plugin_registry_create(const char *path_list,
                                              int with_default_dir,
                                              tvm_plugin_registry **out);
TVM_API void tvm_plugin_registry_free(tvm_plugin_registry *r);

/* Every file discovery looked at, in search order. */
TVM_API int tvm_plugin_registry_count(const tvm_plugin_registry *r);
TVM_API const tvm_plugin_entry *tvm_plugin_registry_at(
    const tvm_plugin_registry *r, int i);
/* The loaded plugin called name, or NULL. */
TVM_API const tvm_plugin_entry *tvm_plugin_registry_find(
    const tvm_plugin_registry *r, const char *name);
/* The directories searched, in order, as a colon list (heap string,
 * free with tvm_free), for messages. */
TVM_API char *tvm_plugin_registry_dirs(const tvm_plugin_registry *r);

/* The host API handed to every plugin (report -> tvm_diag_set,
 * log -> tvm_log, alloc/free -> tvm_malloc/tvm_free, parallel_for -> the
 * runtime's thread pool). */
TVM_API const tvm_host_api *tvm_plugin_host_api(void);

/* Attribute schema of a loaded plugin (empty when absent). */
TVM_API uint32_t tvm_plugin_nattrs(const tvm_plugin_entry *p);
TVM_API const tvm_plugin_attr *tvm_plugin_attr_at(const tvm_plugin_entry *p,
                                                  uint32_t i);

/* Asks a loaded plugin whether this machine can run it, with an instance
 * made of its attribute defaults: TVM_OK, TVM_ERR_UNAVAILABLE with the
 * plugin's fix-it message, or TVM_ERR_NOT_FOUND when the schema has a
 * required attribute (only a target file can say). */
TVM_API tvm_status tvm_plugin_probe(const tvm_plugin_entry *p);

/* ---- targets ---------------------------------------------------------- */
/* Measurement parameters of the tuner (YAML `tuning:`). */
typedef struct tvm_tuning_params {
  int number;        /* runs averaged per measurement (default 4) */
  int repeat;        /* measurements per candidate (default 3) */
  int min_repeat_ms; /* grow number until one measurement takes this */
  int timeout_s;     /* per candidate build+run (default 10) */
} tvm_tuning_params;

/* A loaded target.  Read-only for callers; everything it points to is
 * owned by it and dies with tvm_target_free. */
typedef struct tvm_target {
  const char *name;
  const char *plugin_name;
  const char *path;       /* the YAML file */
  const char *const *keys;
  int nkeys;
  /* Validated attributes, one per schema entry, in schema order. */
  const tvm_plugin_attr_value *attrs;
  uint32_t nattrs;
  tvm_tuning_params tuning;
  const tvm_plugin_entry *plugin;
  tvm_plugin_target *instance; /* the plugin's object for this target */
  void *priv;                  /* core/target's private data */
} tvm_target;

/* Loads a target by name or path (see the top of this file) using the
 * global registry.  Errors (file not found, YAML syntax, schema
 * violations, plugin missing or failing target_create) return a status
 * and a diagnostic that names file:line:column and how to fix it. */
TVM_API tvm_status tvm_target_load(const char *name_or_path,
                                   tvm_target **out);
/* Same, resolving the plugin in registry r. */
TVM_API tvm_status tvm_target_load_with(tvm_plugin_registry *r,
                                        const char *name_or_path,
                                        tvm_target **out);
TVM_API void tvm_target_free(tvm_target *t);

/* The validated value of attribute name, or NULL. */
TVM_API const tvm_plugin_attr_value *tvm_target_attr(const tvm_target *t,
                                                     const char *name);
/* Does the target list key (e.g. "cpu")? */
TVM_API int tvm_target_has_key(const tvm_target *t, const char *key);

/* The plugin's description of this target instance (never NULL for a
 * loaded target: a zeroed info when the plugin has no target_info). */
TVM_API const tvm_plugin_target_info *tvm_target_info(const tvm_target *t);
/* The plugin's schedule template naming operator op exactly (the one
 * with the highest priority), or NULL. */
TVM_API const tvm_plugin_strategy *tvm_target_strategy(const tvm_target *t,
                                                       const char *op);
/* Entry i of info's strategy table, read with the stride of the plugin's
 * own struct_size (ABI 1-3 entries are 32 bytes, ABI 4 ones 48); NULL
 * past the end or for a malformed table.  Fields past an entry's
 * struct_size must not be read. */
TVM_API const tvm_plugin_strategy *tvm_plugin_strategy_at(
    const tvm_plugin_target_info *info, uint32_t i);
/* The strategies that may schedule operator op of fusion pattern
 * `pattern` (a tvm_gop_pattern, -1 = unknown), in the order they are
 * tried: those naming op, then those registered for the pattern, then
 * the target's defaults, each group by priority (highest first).  Fills
 * at most cap entries of out and returns how many.  ABI 1-3 plugins'
 * strategies only ever match by name. */
TVM_API int tvm_target_strategies(const tvm_target *t, const char *op,
                                  int pattern,
                                  const tvm_plugin_strategy **out, int cap);
/* Fills o (after tvm_lower_options_init) from the target's info:
 * vector_bits, has_threads, num_queues, scopes, unroll_max_extent.  The
 * scope array is owned by the target. */
TVM_API void tvm_target_lower_options(const tvm_target *t,
                                      tvm_lower_options *o);

/* 0 when this machine can run the target; TVM_ERR_UNAVAILABLE with the
 * plugin's fix-it message otherwise. */
TVM_API tvm_status tvm_target_probe(const tvm_target *t);
/* Lowered module -> device blob through the plugin's codegen.  out is
 * zeroed first; free it with tvm_plugin_blob_free. */
TVM_API tvm_status tvm_target_codegen(const tvm_target *t,
                                      const tvm_module *m,
                                      tvm_plugin_blob *out);
/* Frees what codegen allocated in a blob (data, kernels, names). */
TVM_API void tvm_plugin_blob_free(tvm_plugin_blob *b);
/* The layouts the target wants for graph node n (plugin slot
 * alter_layout, ABI 3).  out is zero-filled first (struct_size set); it
 * stays empty, meaning "keep the model's layout", when the plugin has no
 * such slot (ABI 1 and 2 plugins).  Strings are NUL-terminated. */
TVM_API tvm_status tvm_target_alter_layout(const tvm_target *t,
                                           const tvm_gnode *n,
                                           tvm_plugin_layout *out);

/* One target YAML found in the search path, for listings. */
typedef struct tvm_target_file {
  char *path;
  char *name;        /* NULL when the file did not parse */
  char *plugin;      /* likewise */
  tvm_status status; /* TVM_OK, TVM_ERR_UNAVAILABLE (probe), or the error */
  char *message;     /* the diagnostic when status != TVM_OK */
} tvm_target_file;

/* Every *.yaml in $TVM_TARGET_PATH then the installed directory (a name
 * found twice: the first wins), each loaded and probed against the
 * global registry.  Free with tvm_target_files_free. */
TVM_API tvm_status tvm_target_files(tvm_target_file **out, int *n);
TVM_API void tvm_target_files_free(tvm_target_file *f, int n);

/* The directories searched for target files, as a colon list (heap
 * string, free with tvm_free). */
TVM_API char *tvm_target_search_dirs(void);

#ifdef __cplusplus
}
#endif
#endif /* TVM_TARGET_H */
