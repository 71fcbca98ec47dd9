/*
 * tvm/target.h - targets as the compiler sees them (libtvm): loading a
 * target from its YAML file, the plugin's compile-time slots (strategies,
 * lowering options, codegen, layouts) and tvm_build.  Plugin discovery,
 * the tvm_target object and devices are the runtime's (tvm/runtime.h).
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
 * list) then the installed target directory.  An optional
 * `fallback: NAME` names the target that runs the graph nodes this one's
 * plugin declines (ABI 5 supports): loading the target loads it too, into
 * t->fallback (plugin-sdk/docs/HETEROGENEOUS.md).
 */
#ifndef TVM_TARGET_H
#define TVM_TARGET_H

#include "tvm/base.h"
#include "tvm/lower.h"
#include "tvm/plugin.h"
#include "tvm/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- plugins (compile-time queries) ---------------------------------- */
/* Asks a loaded plugin whether this machine can run it, with an instance
 * made of its attribute defaults: TVM_OK, TVM_ERR_UNAVAILABLE with the
 * plugin's fix-it message, or TVM_ERR_NOT_FOUND when the schema has a
 * required attribute (only a target file can say). */
TVM_API tvm_status tvm_plugin_probe(const tvm_plugin_entry *p);

/* ---- targets from YAML ------------------------------------------------ */
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
/* (tvm_target_free, tvm_target_attr, tvm_target_has_key, tvm_target_info
 * and tvm_target_probe are in tvm/runtime.h.) */

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

/* Whether target t runs graph node n (ABI 5 supports): *supported = 1
 * or 0, and when 0 a one-line reason in reason[cap].  A plugin without
 * the slot runs every node.  A negative status is the plugin's failure. */
TVM_API tvm_status tvm_target_supports(const tvm_target *t,
                                       const tvm_gnode *n,
                                       int *supported, char *reason,
                                       size_t cap);

/* How target t wants the graph quantized (ABI 6 quantize).  out is
 * zero-filled first (struct_size set); enabled stays 0 (the graph stays
 * float) when the plugin has no such slot (ABI 1 to 5 plugins). */
TVM_API tvm_status tvm_target_quantize(const tvm_target *t,
                                       tvm_plugin_quant *out);

/* Lowered module -> device blob through the plugin's codegen.  out is
 * zeroed first; free it with tvm_plugin_blob_free. */
TVM_API tvm_status tvm_target_codegen(const tvm_target *t,
                                      const tvm_module *m,
                                      tvm_plugin_blob *out);
/* The layouts the target wants for graph node n (plugin slot
 * alter_layout, ABI 3).  out is zero-filled first (struct_size set); it
 * stays empty, meaning "keep the model's layout", when the plugin has no
 * such slot (ABI 1 and 2 plugins).  Strings are NUL-terminated. */
TVM_API tvm_status tvm_target_alter_layout(const tvm_target *t,
                                           const tvm_gnode *n,
                                           tvm_plugin_layout *out);

/* Lowered module -> runnable module: codegen through t's plugin, then
 * module_load on d, or, when d is NULL, on a device opened for the module
 * and closed with it. */
TVM_API tvm_status tvm_build(const tvm_target *t, const tvm_module *m,
                             tvm_device *d, tvm_runtime_module **out);

/* A lowered module as one callable function `name`, for running a single
 * kernel outside a graph (the tuner's measurements, `tvmc matmul`): on a
 * CPU target, the module's function itself (tvm_build); on a device
 * target, its host function run as a host program (tvm/host_program.h)
 * over the device functions the plugin compiled, as the graph executor
 * runs it.  On d, or on a device opened for it and closed with it. */
typedef struct tvm_callable tvm_callable;
TVM_API tvm_status tvm_callable_build(const tvm_target *t, const tvm_module *m,
                                      const char *name, tvm_device *d,
                                      tvm_callable **out);
TVM_API tvm_device *tvm_callable_device(const tvm_callable *c);
/* Runs it once over args and waits.  On a device target every argument
 * is a device buffer (TVM_ARG_PTR), as many as the host function takes. */
TVM_API tvm_status tvm_callable_call(tvm_callable *c,
                                     const tvm_plugin_arg *args,
                                     uint32_t nargs);
/* Times it (tvm_device_time: warm-up, `repeat` means over `number`). */
TVM_API tvm_status tvm_callable_time(tvm_callable *c,
                                     const tvm_plugin_arg *args,
                                     uint32_t nargs, int number, int repeat,
                                     double *ms);
TVM_API void tvm_callable_free(tvm_callable *c);

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
