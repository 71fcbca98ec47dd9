/*
 * tvm/runtime.h - the runtime: the thread pool, devices of a target's
 * plugin, loaded modules, launches and timing.
 *
 * Thread pool.  One pool per process, owned by the runtime: persistent
 * pthreads (the calling thread works too), sized by the num_threads
 * attribute of the last target opened (0 or absent: every core, from
 * sysconf).  tvm_runtime_parallel_for runs n tasks and waits for them; a
 * call made from inside a task runs its tasks serially on that thread.
 * Plugins reach the pool through host->parallel_for.
 *
 * Devices.  A tvm_device wraps the runtime half of a target's plugin
 * (device_open ... sync, timers).  Slots are used only when the plugin's
 * vtable has them; timing falls back to the host clock around sync when
 * the plugin has no timer (always for ABI 1 plugins).
 */
#ifndef TVM_RUNTIME_H
#define TVM_RUNTIME_H

#include "tvm/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- thread pool ------------------------------------------------------- */
typedef int32_t (*tvm_task_fn)(int64_t i, int64_t n, void *data);

/* Runs task(i, n, data) for every i in [0, n) on the pool and returns
 * when all have run: 0, or the first non-zero value a task returned
 * (every task still runs).  Reentrant: nested calls run serially. */
TVM_API int32_t tvm_runtime_parallel_for(tvm_task_fn task, void *data,
                                         int64_t n);
/* Resizes the pool to n threads (0 = every core).  Waits for running
 * work; a no-op when the size is already n.  TVM_ERR_INVALID from inside
 * a task of the pool. */
TVM_API tvm_status tvm_runtime_set_num_threads(int n);
/* Threads of the pool: the size set last, else every core.  Safe to call
 * from inside a task. */
TVM_API int tvm_runtime_num_threads(void);

/* ---- devices ----------------------------------------------------------- */
typedef struct tvm_device tvm_device;

/* Opens a device of target t (sizing the pool from t's num_threads
 * attribute).  Fails with TVM_ERR_UNAVAILABLE and the plugin's message
 * when probe says this machine cannot run t.  t must outlive the device. */
TVM_API tvm_status tvm_device_open(const tvm_target *t, tvm_device **out);
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

/* Times f: `repeat` measurements, each the mean over `number` calls (one
 * warm-up call first), written to ms[0..repeat) in milliseconds.  Uses the
 * device timer when the plugin has one, else the host's monotonic clock
 * around launch+sync. */
TVM_API tvm_status tvm_runtime_time(tvm_runtime_func *f,
                                    const tvm_plugin_arg *args,
                                    uint32_t nargs, int number, int repeat,
                                    double *ms);

/* ---- build ----------------------------------------------------------------- */
/* Lowered module -> runnable module: codegen through t's plugin, then
 * module_load on d, or, when d is NULL, on a device opened for the module
 * and closed with it. */
TVM_API tvm_status tvm_build(const tvm_target *t, const tvm_module *m,
                             tvm_device *d, tvm_runtime_module **out);

#ifdef __cplusplus
}
#endif
#endif /* TVM_RUNTIME_H */
