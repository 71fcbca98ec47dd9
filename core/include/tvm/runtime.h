/*
 * tvm/runtime.h - the runtime (libtvm_runtime): plugin discovery and
 * loading, targets made from validated attribute values, thread pools,
 * devices, loaded modules and launches, execution plans, packages and
 * the graph executor.  Nothing here needs the compiler, LLVM, ONNX or
 * YAML: a program linking only libtvm_runtime loads a package made by
 * `tvmc compile` and runs it (examples/run_package/).  Loading a target
 * from its YAML file, codegen and everything else compile-time is in
 * tvm/target.h and tvm/compiler.h (libtvm).
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
 * Thread pools.  Every device owns a pool sized by its target's
 * num_threads attribute (or borrows one explicitly); plugins reach their
 * device's pool through the ABI 4 host API (pool_parallel_for).  The
 * process default pool serves ABI 1-3 plugins (host->parallel_for) and
 * the tvm_runtime_parallel_for family; nothing resizes it implicitly.
 *
 * Devices.  A tvm_device wraps the runtime half of a target's plugin
 * (device_open ... sync, timers).  Slots are used only when the plugin's
 * vtable has them; timing falls back to the host clock around sync when
 * the plugin has no timer (always for ABI 1 plugins).
 */
#ifndef TVM_RUNTIME_H
#define TVM_RUNTIME_H

#include <dlpack/dlpack.h>

#include "tvm/base.h"
#include "tvm/ir.h"
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
 * process default thread pool; ABI 4: pool_parallel_for/pool_size -> the
 * pool of the plugin's device, see device_open_pool). */
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

/* Attribute schema of a loaded plugin (empty when absent). */
TVM_API uint32_t tvm_plugin_nattrs(const tvm_plugin_entry *p);
TVM_API const tvm_plugin_attr *tvm_plugin_attr_at(const tvm_plugin_entry *p,
                                                  uint32_t i);

/* The vtable slot `field` of plugin entry p, or NULL when it lies outside
 * the bytes the plugin declared (vtable_size, capped at the negotiated
 * ABI's size) or is unset.  The expression has the slot's type.  Every
 * caller goes through it; nothing reads p->vtable->x directly. */
#define TVM_PLUGIN_SLOT(p, field)                                       \
  (((p) != NULL && (p)->vtable != NULL &&                               \
    offsetof(tvm_plugin_vtable, field) +                                \
            sizeof(((tvm_plugin_vtable *)0)->field) <=                  \
        (size_t)(p)->vtable_size)                                       \
       ? (p)->vtable->field                                             \
       : NULL)

/* Is the field of struct type T (pointed to by s, whose first member is
 * struct_size) inside s's declared size? */
#define TVM_PLUGIN_HAS_FIELD(T, s, field)                               \
  ((s) != NULL && offsetof(T, field) + sizeof(((T *)0)->field) <=      \
                      (size_t)(s)->struct_size)

/* Frees what codegen allocated in a blob (data, kernels, names). */
TVM_API void tvm_plugin_blob_free(tvm_plugin_blob *b);

/* ---- targets ---------------------------------------------------------- */
/* Measurement parameters of the tuner (YAML `tuning:`). */
typedef struct tvm_tuning_params {
  int number;        /* runs averaged per measurement (default 4) */
  int repeat;        /* measurements per candidate (default 3) */
  int min_repeat_ms; /* grow number until one measurement takes this */
  int timeout_s;     /* per candidate build+run (default 10) */
} tvm_tuning_params;

/* A target: a plugin, its validated attribute values and the plugin's
 * instance made of them.  Made from a YAML file by tvm_target_load
 * (tvm/target.h, libtvm) or from what a package records by
 * tvm_target_create (here, the runtime).  Read-only for callers;
 * everything it points to is owned by it and dies with tvm_target_free. */
typedef struct tvm_target {
  const char *name;
  const char *plugin_name;
  const char *path;       /* the YAML file; NULL when made without one */
  const char *const *keys;
  int nkeys;
  /* Validated attributes, one per schema entry, in schema order. */
  const tvm_plugin_attr_value *attrs;
  uint32_t nattrs;
  tvm_tuning_params tuning;
  const tvm_plugin_entry *plugin;
  tvm_plugin_target *instance; /* the plugin's object for this target */
  void *priv;                  /* the runtime's private data */
  /* Heterogeneous execution (plugin-sdk/docs/HETEROGENEOUS.md): the
   * target that runs the graph nodes this one declines (ABI 5 supports),
   * named by the YAML's `fallback:`; NULL = none.  Owned by this target
   * (freed with it); a fallback has no fallback of its own. */
  struct tvm_target *fallback;
  const char *fallback_name; /* the YAML's fallback: (NULL = none) */
} tvm_target;

/* What a target is made of, every pointer borrowed for the call: name and
 * plugin_name are required; attrs are the validated values, one per
 * attribute of the plugin's schema in schema order (what a package
 * records); path, keys and tuning may be NULL/0 (tuning NULL: defaults). */
typedef struct tvm_target_spec {
  const char *name;
  const char *plugin_name;
  const char *path;
  const char *const *keys;
  int nkeys;
  const tvm_plugin_attr_value *attrs;
  uint32_t nattrs;
  const tvm_tuning_params *tuning;
} tvm_target_spec;

/* Makes a target without YAML: finds spec->plugin_name among the loaded
 * plugins of r (NULL: the global registry), checks spec->attrs against the
 * plugin's schema (same names in the same order, types, ranges and
 * choices: a package may come from another build), copies everything,
 * then creates the plugin's instance and caches its target_info.
 * Creating a target has no effect on any other target or device. */
TVM_API tvm_status tvm_target_create(tvm_plugin_registry *r,
                                     const tvm_target_spec *spec,
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
/* Is t's device memory the host's (target_info.host_memory of a plugin
 * built for ABI 8 or later)?  0 for NULL and older plugins. */
TVM_API int tvm_target_host_memory(const tvm_target *t);
/* The target's memory scopes as lowering reads them (tvm_scope_info),
 * made at creation from the plugin's target_info and owned by t; NULL
 * and *n = 0 when the plugin declares none. */
TVM_API const tvm_scope_info *tvm_target_scopes(const tvm_target *t, int *n);
/* 0 when this machine can run the target; TVM_ERR_UNAVAILABLE with the
 * plugin's fix-it message otherwise. */
TVM_API tvm_status tvm_target_probe(const tvm_target *t);
/* Threads a device of t runs with: its num_threads attribute (0 or
 * absent: every core of this machine). */
TVM_API int tvm_target_num_threads(const tvm_target *t);

/* ---- thread pools ------------------------------------------------------ */
typedef int32_t (*tvm_task_fn)(int64_t i, int64_t n, void *data);
typedef struct tvm_thread_pool tvm_thread_pool;

/* A pool of n threads, the caller of each job included (0 = every core,
 * at most 1024): n-1 persistent workers, started at the first job. */
TVM_API tvm_status tvm_thread_pool_create(int n, tvm_thread_pool **out);
/* Joins the workers.  Nothing may be running on the pool. */
TVM_API void tvm_thread_pool_free(tvm_thread_pool *p);
/* Runs task(i, n, data) for every i in [0, n) on the pool and returns
 * when all have run: 0, or the first non-zero value a task returned
 * (every task still runs).  A call from inside a task of any pool runs
 * serially on that thread; outer calls from different threads take
 * turns. */
TVM_API int32_t tvm_thread_pool_run(tvm_thread_pool *p, tvm_task_fn task,
                                    void *data, int64_t n);
/* Threads of the pool (the caller included). */
TVM_API int tvm_thread_pool_size(const tvm_thread_pool *p);
/* Jobs the pool has run with more than one thread since it was made (a
 * counter for tests and profiles). */
TVM_API uint64_t tvm_thread_pool_jobs(const tvm_thread_pool *p);

/* The process default pool: what ABI 1-3 plugins reach through
 * host->parallel_for and what the tvm_runtime_* calls below use.  Every
 * core until resized with tvm_runtime_set_num_threads; opening devices
 * never resizes it. */
TVM_API tvm_thread_pool *tvm_runtime_default_pool(void);
/* tvm_thread_pool_run on the default pool. */
TVM_API int32_t tvm_runtime_parallel_for(tvm_task_fn task, void *data,
                                         int64_t n);
/* Resizes the default pool to n threads (0 = every core).  Waits for
 * running work; a no-op when the size is already n.  TVM_ERR_INVALID from
 * inside a task. */
TVM_API tvm_status tvm_runtime_set_num_threads(int n);
/* Threads of the default pool.  Safe to call from inside a task. */
TVM_API int tvm_runtime_num_threads(void);

/* ---- devices ----------------------------------------------------------- */
typedef struct tvm_device tvm_device;

/* Opens a device of target t with a thread pool of its own, sized by t's
 * num_threads attribute (tvm_target_num_threads).  Fails with
 * TVM_ERR_UNAVAILABLE and the plugin's message when probe says this
 * machine cannot run t.  t must outlive the device.  Opening a device
 * changes no other device's pool nor the default pool. */
TVM_API tvm_status tvm_device_open(const tvm_target *t, tvm_device **out);
/* Same, borrowing pool (which must outlive the device) instead of making
 * one: several devices may share a pool explicitly.  pool NULL = the
 * process default pool. */
TVM_API tvm_status tvm_device_open_with_pool(const tvm_target *t,
                                             tvm_thread_pool *pool,
                                             tvm_device **out);
/* The pool a device's kernels run their parallel loops on (an ABI 1-3
 * plugin cannot be told: it uses the default pool whatever this says). */
TVM_API tvm_thread_pool *tvm_device_pool(const tvm_device *d);
TVM_API void tvm_device_close(tvm_device *d);
TVM_API const tvm_target *tvm_device_target(const tvm_device *d);

/* Memory of the scope with index `scope` in the target's scope list
 * (0 = the first, normally "global"). */
TVM_API tvm_status tvm_device_alloc(tvm_device *d, uint32_t scope,
                                    uint64_t nbytes, uint64_t align,
                                    void **out);
TVM_API void tvm_device_free(tvm_device *d, uint32_t scope, void *p);
/* kind: TVM_COPY_*. */
TVM_API tvm_status tvm_device_copy(tvm_device *d, void *dst,
                                   uint64_t dst_offset, const void *src,
                                   uint64_t src_offset, uint64_t nbytes,
                                   uint32_t kind);
/* Waits for launched work (a no-op when the plugin has no sync). */
TVM_API tvm_status tvm_device_sync(tvm_device *d);
/* 1 when launches are timed by the plugin's device timer, 0 when the
 * host clock is used. */
TVM_API int tvm_device_has_timer(const tvm_device *d);

/* ---- modules and functions ------------------------------------------------ */
typedef struct tvm_runtime_module tvm_runtime_module;
typedef struct tvm_runtime_func tvm_runtime_func;

/* Loads a codegen blob on d.  The module keeps its own copy of the
 * kernel table; blob stays the caller's.  d must outlive the module. */
TVM_API tvm_status tvm_runtime_module_load(tvm_device *d,
                                           const tvm_plugin_blob *blob,
                                           tvm_runtime_module **out);
/* Unloads the module (and closes its device when it owns one). */
TVM_API void tvm_runtime_module_free(tvm_runtime_module *m);
TVM_API tvm_device *tvm_runtime_module_device(tvm_runtime_module *m);
/* Makes m close its device when freed (for a device opened for it). */
TVM_API void tvm_runtime_module_own_device(tvm_runtime_module *m);

/* The kernel called name; owned by the module. */
TVM_API tvm_status tvm_runtime_get_func(tvm_runtime_module *m,
                                        const char *name,
                                        tvm_runtime_func **out);
/* Its launch description from codegen (nargs, grid, block). */
TVM_API const tvm_plugin_kernel *tvm_runtime_func_kernel(
    const tvm_runtime_func *f);

/* Launches f with its codegen grid/block and waits for it (sync). */
TVM_API tvm_status tvm_runtime_call(tvm_runtime_func *f,
                                    const tvm_plugin_arg *args,
                                    uint32_t nargs);
/* Launch with explicit extents, without waiting. */
TVM_API tvm_status tvm_device_launch(tvm_device *d, tvm_runtime_func *f,
                                     const tvm_plugin_arg *args,
                                     uint32_t nargs, const uint32_t grid[3],
                                     const uint32_t block[3]);

/* Times what fn(ud) enqueues on d without waiting (launches): one
 * warm-up call and a sync first, then `repeat` measurements, each the
 * mean over `number` calls, written to ms[0..repeat) in milliseconds.
 * Uses the device timer when the plugin has one, else the host's
 * monotonic clock around the calls and the sync. */
TVM_API tvm_status tvm_device_time(tvm_device *d, tvm_status (*fn)(void *ud),
                                   void *ud, int number, int repeat,
                                   double *ms);
/* Times f's launches with its codegen extents (tvm_device_time). */
TVM_API tvm_status tvm_runtime_time(tvm_runtime_func *f,
                                    const tvm_plugin_arg *args,
                                    uint32_t nargs, int number, int repeat,
                                    double *ms);

/* ---- execution plans ---------------------------------------------------- */
/* What tvm_compile (tvm/compiler.h) makes and a package holds: values
 * (inputs, outputs, parameters, activations in storage slots), kernel
 * launches in order, and the device module. */
typedef enum tvm_plan_value_kind {
  TVM_PV_INPUT = 1,      /* fed by the user */
  TVM_PV_OUTPUT = 2,     /* read by the user (own storage) */
  TVM_PV_PARAM = 3,      /* constant, uploaded once */
  TVM_PV_ACTIVATION = 4  /* intermediate, lives in a storage slot */
} tvm_plan_value_kind;

typedef struct tvm_plan_value {
  const char *name;
  uint32_t kind;         /* tvm_plan_value_kind */
  tvm_dtype dtype;
  int ndim;
  int64_t shape[TVM_MAX_DIMS];
  const char *layout;    /* NULL = the model's own */
  int32_t storage;       /* ACTIVATION: storage slot; -1 otherwise */
  uint64_t nbytes;
  const void *data;      /* PARAM: host data, nbytes */
  int32_t device;        /* heterogeneous plans: 0 target, 1 fallback */
} tvm_plan_value;

struct tvm_host_program; /* tvm/host_program.h */

/* One kernel launch: args are indexes into the plan's values (the fused
 * group's inputs, then its outputs), passed as buffer pointers.  On a
 * device target the step is a host program instead (host != NULL): kernel
 * names its host function, and the runtime runs the program's launches
 * with args as its buffer parameters (plugin-sdk/docs/HOST_DEVICE.md). */
typedef struct tvm_plan_step {
  const char *kernel;    /* function name in the device module */
  const char *label;     /* e.g. "Conv+Add+Relu" */
  uint32_t nargs;
  const uint32_t *args;
  double flops;          /* for GFLOP/s in profiles */
  const struct tvm_host_program *host; /* device targets; owned by the plan */
  /* Heterogeneous plans: the device that runs the step (0 the target, 1
   * the fallback); copy = 1 for a copy between the devices (kernel
   * "DeviceCopy", args = source value, then destination value). */
  int32_t device;
  uint32_t copy;
} tvm_plan_step;

typedef struct tvm_plan {
  /* the target it was built for */
  const char *target_name;
  const char *plugin_name;
  const char *plugin_version;
  tvm_plan_value *values;
  uint32_t nvalues;
  tvm_plan_step *steps;
  uint32_t nsteps;
  uint64_t *storage_bytes; /* one per storage slot */
  uint32_t nstorage;
  uint32_t *inputs, ninputs;   /* value indexes, model order */
  uint32_t *outputs, noutputs;
  tvm_plugin_blob blob;        /* the device module */
  /* activation memory: peak with the plan, and with one buffer per value */
  uint64_t activation_bytes_planned;
  uint64_t activation_bytes_unplanned;
  void *priv;                  /* owner's bookkeeping (arena) */
  /* The target's validated attribute values (schema order), so that the
   * runtime can make the target without its YAML (tvm_target_create). */
  const tvm_plugin_attr_value *target_attrs;
  uint32_t ntarget_attrs;
  /* Heterogeneous plans (plugin-sdk/docs/HETEROGENEOUS.md): the fallback
   * target (device 1) as recorded by tvm_plan_set_target, and its device
   * module; fallback_plugin_name NULL = a plan on one device.  Values,
   * steps and storage slots say their device. */
  const char *fallback_target_name;
  const char *fallback_plugin_name;
  const char *fallback_plugin_version;
  const tvm_plugin_attr_value *fallback_attrs;
  uint32_t nfallback_attrs;
  tvm_plugin_blob fallback_blob;
  const int32_t *storage_device; /* per slot; NULL = all on device 0 */
} tvm_plan;

/* A zeroed plan owning an arena (tvm_plan_arena) for everything it points
 * to except blob, whose parts come from tvm_malloc.  Free with
 * tvm_plan_free. */
TVM_API tvm_status tvm_plan_new(tvm_plan **out);
TVM_API tvm_arena *tvm_plan_arena(tvm_plan *p);
TVM_API void tvm_plan_free(tvm_plan *p);
/* Records t (name, plugin name and version, attribute values) in p,
 * copied into p's arena; and t->fallback's, when t has one, as the
 * plan's fallback. */
TVM_API tvm_status tvm_plan_set_target(tvm_plan *p, const tvm_target *t);

/* Packages: one file holding the plan, its parameters, the device module
 * and the target it was built for, with a magic, a format version and
 * checksums.  Loading refuses a damaged, truncated or foreign file, and
 * (when expect is not NULL) one built for another target, with a message
 * naming the file and the problem. */
TVM_API tvm_status tvm_package_save(const tvm_plan *p, const char *path);
TVM_API tvm_status tvm_package_load(const char *path, const tvm_target *expect,
                                    tvm_plan **out);
/* The checksum of a section's n bytes as its table entry's flags name it
 * (docs/package-format.md: tvm_hash_wide with flags bit 0, else FNV-1a);
 * for the reader and for tools that edit packages. */
TVM_API uint64_t tvm_package_section_checksum(uint32_t flags, const void *p,
                                              size_t n);

/* Signed packages (core/runtime/package_sign.c, docs/security.md; need
 * libsodium).  tvm_keygen writes an Ed25519 key pair (the secret key file
 * mode 0600); tvm_package_sign adds or replaces a package's signature;
 * with trusted keys set (a file of public keys; NULL clears it, and then
 * $TVM_TRUSTED_KEYS applies) tvm_package_load refuses unsigned packages,
 * foreign signers and modified contents. */
TVM_API tvm_status tvm_keygen(const char *secret_path, const char *public_path);
TVM_API tvm_status tvm_package_sign(const char *path,
                                    const char *secret_key_path);
TVM_API tvm_status tvm_package_set_trusted_keys(const char *path);

/* Makes the target a plan was built for from what it records (plugin
 * name and attribute values; tvm_target_create over registry r, NULL =
 * the global one), with no target YAML.  A plan from a format-1 package
 * records no attribute values: refused with a message to recompile. */
TVM_API tvm_status tvm_plan_target(const tvm_plan *p, tvm_plugin_registry *r,
                                   tvm_target **out);

/* ---- graph executor --------------------------------------------------- */
typedef struct tvm_executor tvm_executor;

/* Opens a device of t, loads the plan's module, allocates the storage
 * slots, inputs and outputs, and uploads the parameters.  p and t must
 * outlive the executor. */
TVM_API tvm_status tvm_executor_create(const tvm_plan *p, const tvm_target *t,
                                       tvm_executor **out);
TVM_API void tvm_executor_free(tvm_executor *e);
/* Copies x into input i (by position); shape and dtype must match. */
TVM_API tvm_status tvm_executor_set_input(tvm_executor *e, uint32_t i,
                                          const DLTensor *x);
/* Runs every step in order and waits. */
TVM_API tvm_status tvm_executor_run(tvm_executor *e);
/* Copies output i into y (a CPU tensor of the output's shape and dtype). */
TVM_API tvm_status tvm_executor_get_output(tvm_executor *e, uint32_t i,
                                           DLTensor *y);

/* Per-step timing: ms[s] = mean milliseconds of step s over `repeat`
 * runs (after one warm-up run). */
TVM_API tvm_status tvm_executor_profile(tvm_executor *e, int repeat,
                                        double *ms);
/* One step's samples: ms[r] = milliseconds of the r-th of `repeat`
 * back-to-back executions of step s, after one untimed execution (what a
 * vendor library's benchmark of one primitive measures). */
TVM_API tvm_status tvm_executor_time_step(tvm_executor *e, uint32_t s,
                                          int repeat, double *ms);
/* Per-step timing inside whole runs: ms[s] = mean milliseconds of step s
 * over `repeat` runs of the plan in order (after one warm-up run), each
 * step timed from its launch to its sync.  tvm_executor_profile repeats
 * each step on its own, so its weights and inputs stay in the caches; this
 * one shows what a step costs where the run meets them. */
TVM_API tvm_status tvm_executor_profile_in_run(tvm_executor *e, int repeat,
                                               double *ms);

#ifdef __cplusplus
}
#endif
#endif /* TVM_RUNTIME_H */
