/*
 * tvm/lower.h - lowering a schedule to loop IR, one pass per file under
 * core/lower/.  Pipeline (names accepted by --dump-ir):
 *
 *   schedule_ops        bound inference + loop nests (realize/provide)
 *   storage_flatten     multi-dim tensors -> flat buffers (allocate/load/store)
 *   vectorize           vectorized loops -> ramp/broadcast vector code
 *   unroll              unrolled loops -> copies of the body
 *   inject_virtual_thread  vthreads -> interleaved copies (+ dep tokens)
 *   inject_dep_tokens   dependency tokens between hardware queues (DAE)
 *   storage_rewrite     reuse of dead buffers inside a kernel
 *   thread_sync         barriers for shared scopes
 *   split_host_device   kernels with thread axes become device functions
 *   simplify            final arithmetic simplification
 *
 *   check_scope_capacity  buffers of bounded scopes fit (compile error)
 *   thread_sync         barriers for shared scopes
 *   split_host_device   device targets: kernels become device functions
 *                       launched by `launch(...)` from the host function
 *   simplify            final arithmetic simplification
 *
 * The pipeline is one table (core/lower/lower.c): it drives the run,
 * --dump-ir and tvm_lower_pass_names.  A target plugin may insert its own
 * passes after any named pass (tvm_lower_pass, ABI 4 lower_passes).
 *
 * Each pass takes a function and returns a new one built in the same ctx.
 */
#ifndef TVM_LOWER_H
#define TVM_LOWER_H

#include "tvm/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Who may see a memory scope (bit mask). */
enum {
  TVM_VIS_THREAD = 1u << 0, /* one thread (registers, "local") */
  TVM_VIS_BLOCK = 1u << 1,  /* threads of one block ("shared") */
  TVM_VIS_DEVICE = 1u << 2, /* the whole device ("global") */
  TVM_VIS_HOST = 1u << 3    /* the host can map it */
};

/* A memory scope as lowering sees it (filled from the target plugin). */
typedef struct tvm_scope_info {
  const char *name;
  uint32_t visibility; /* TVM_VIS_* */
  uint64_t size_bytes; /* capacity, 0 = unbounded */
  uint32_t align;      /* bytes, 0 = natural */
  int32_t queue;       /* hardware queue that fills it, -1 = none */
} tvm_scope_info;

struct tvm_plugin_target; /* tvm/plugin.h */

/* A lowering pass a target plugin inserts into the pipeline (ABI 4,
 * tvm_plugin_vtable.lower_passes; plugin.h calls it tvm_plugin_lower_pass).
 * It runs right after the pass named `after` (a name of
 * tvm_lower_pass_names, or an earlier plugin pass), on every function
 * that pass produced, and is dumped by --dump-ir under `name`.  run reads
 * f (borrowed) and writes *out, a function built in ctx c (return f
 * itself to change nothing); 0 or a negative tvm_status with the detail
 * reported through host->report. */
typedef struct tvm_lower_pass {
  uint32_t struct_size;
  uint32_t reserved;
  const char *after;
  const char *name;
  int32_t (*run)(struct tvm_plugin_target *t, tvm_ctx *c, const tvm_func *f,
                 tvm_func **out);
} tvm_lower_pass;

/* What a pass wants to know about the target and the run. */
typedef struct tvm_lower_options {
  int vector_bits;        /* native SIMD width in bits (512 for AVX-512) */
  int has_threads;        /* target launches kernels on thread axes */
  int num_queues;         /* hardware queues (DAE targets), 0 = none */
  const tvm_scope_info *scopes;
  int nscopes;
  int unroll_max_extent;  /* loops marked unroll beyond this stay loops */
  /* --dump-ir: called after each pass whose name matches dump_pass
   * ("all" for every pass); may be NULL. */
  const char *dump_pass;
  void (*dump)(void *ud, const char *pass, const tvm_func *f);
  void *dump_ud;
  /* Stop after this built-in pass (dumped as usual); nothing is added to
   * the module.  NULL (default): the whole pipeline.  The tuner's cost
   * model reads its features after storage_flatten and needs no more. */
  const char *stop_after;
  /* Passes the target inserts (see tvm_lower_pass); target is handed to
   * their run.  NULL/0: none. */
  const tvm_lower_pass *extra_passes;
  int nextra_passes;
  struct tvm_plugin_target *pass_target;
} tvm_lower_options;

/* Is this a device target, whose kernels are split off the host
 * function (split_host_device)?  Targets with thread axes or with
 * hardware queues are; plain CPU targets are not. */
static inline int tvm_lower_is_device(const tvm_lower_options *o) {
  return o && (o->has_threads || o->num_queues > 0);
}

TVM_API void tvm_lower_options_init(tvm_lower_options *o);
/* The scope named name, or NULL. "global" and "local" always exist. */
TVM_API const tvm_scope_info *tvm_lower_find_scope(const tvm_lower_options *o,
                                                   const char *name);

/* Lowers s to functions appended to m (one host function named `name`,
 * plus device kernels for targets with threads).  args are the
 * function's parameters in order: its inputs and outputs. */
TVM_API tvm_status tvm_lower(tvm_schedule *s, tvm_tensor **args, int nargs,
                             const char *name, const tvm_lower_options *o,
                             tvm_module *m);

/* Bound inference: the range of every iteration variable of every stage
 * (tvm_iter_var* -> tvm_range*), allocated in the schedule's ctx. */
TVM_API tvm_status tvm_infer_bound(tvm_schedule *s, tvm_ptrmap *ranges);

/* The passes, in pipeline order.  Each reads *f and writes *out. */
TVM_API tvm_status tvm_schedule_ops(tvm_schedule *s, const tvm_ptrmap *ranges,
                                    tvm_stmt **out);
TVM_API tvm_status tvm_pass_storage_flatten(tvm_ctx *c, tvm_func *f,
                                            const tvm_lower_options *o,
                                            tvm_func **out);
TVM_API tvm_status tvm_pass_vectorize(tvm_ctx *c, tvm_func *f,
                                      const tvm_lower_options *o,
                                      tvm_func **out);
TVM_API tvm_status tvm_pass_unroll(tvm_ctx *c, tvm_func *f,
                                   const tvm_lower_options *o, tvm_func **out);
/* Versions loops on the pure guards they repeat (full tiles without
 * branches, the ragged one as it was); CPU targets only, see
 * core/lower/hoist_guards.c. */
TVM_API tvm_status tvm_pass_hoist_guards(tvm_ctx *c, tvm_func *f,
                                         const tvm_lower_options *o,
                                         tvm_func **out);
TVM_API tvm_status tvm_pass_inject_virtual_thread(tvm_ctx *c, tvm_func *f,
                                                  const tvm_lower_options *o,
                                                  tvm_func **out);
/* Two alternating copies of each buffer a schedule double-buffered
 * (tvm_double_buffer); see core/lower/inject_double_buffer.c. */
TVM_API tvm_status tvm_pass_inject_double_buffer(tvm_ctx *c, tvm_func *f,
                                                 const tvm_lower_options *o,
                                                 tvm_func **out);
TVM_API tvm_status tvm_pass_inject_dep_tokens(tvm_ctx *c, tvm_func *f,
                                              const tvm_lower_options *o,
                                              tvm_func **out);
TVM_API tvm_status tvm_pass_storage_rewrite(tvm_ctx *c, tvm_func *f,
                                            const tvm_lower_options *o,
                                            tvm_func **out);
/* Fails when the buffers of a bounded scope (size_bytes > 0) live at
 * one time need more than its capacity, naming the scope, its size and
 * the buffers. */
TVM_API tvm_status tvm_pass_check_scope_capacity(tvm_ctx *c, tvm_func *f,
                                                 const tvm_lower_options *o,
                                                 tvm_func **out);
TVM_API tvm_status tvm_pass_thread_sync(tvm_ctx *c, tvm_func *f,
                                        const tvm_lower_options *o,
                                        tvm_func **out);
/* Moves thread-bound loop nests into device functions appended to m and
 * replaces them with launches in the host function (written to *host). */
TVM_API tvm_status tvm_pass_split_host_device(tvm_ctx *c, tvm_func *f,
                                              const tvm_lower_options *o,
                                              tvm_module *m, tvm_func **host);
/* Runs a device kernel on one CPU thread: thread-bound loops become
 * serial loops, split at barriers (loop fission) with per-thread
 * allocations expanded to one slice per thread; see
 * core/lower/serialize_threads.c.  Not part of tvm_lower's pipeline: a
 * plugin that runs thread kernels on a CPU calls it in its codegen. */
TVM_API tvm_status tvm_pass_serialize_threads(tvm_ctx *c, tvm_func *f,
                                              const tvm_lower_options *o,
                                              tvm_func **out);
TVM_API tvm_status tvm_pass_simplify(tvm_ctx *c, tvm_func *f,
                                     const tvm_lower_options *o,
                                     tvm_func **out);

/* Names of the built-in passes in pipeline order, NULL-terminated (for
 * --dump-ir help; the same table runs them). */
TVM_API const char *const *tvm_lower_pass_names(void);
/* Is name a pass of the pipeline o describes (built-in or inserted by the
 * target)?  "all" is not a pass. */
TVM_API int tvm_lower_has_pass(const tvm_lower_options *o, const char *name);
/* Checks o's inserted passes: each names a pass that exists before it;
 * fails naming the pass and listing the valid points otherwise. */
TVM_API tvm_status tvm_lower_check_passes(const tvm_lower_options *o);

/* ---- launches (TVM_INTRIN_LAUNCH, see tvm/ir.h) ---------------------- */
#define TVM_LAUNCH_NFIXED 8 /* name, grid[3], block[3], shared_bytes */
/* evaluate(launch(kernel, grid, block, shared_bytes, args)) as an
 * expression (int32); grid/block entries NULL mean 1. */
TVM_API tvm_expr *tvm_launch(tvm_ctx *c, const char *kernel,
                             tvm_expr *const grid[3], tvm_expr *const block[3],
                             tvm_expr *shared_bytes, tvm_expr *const *args,
                             int nargs);
/* Checks a launch call against module m: the kernel exists and is a
 * device function, geometry and shared bytes are integer scalars, the
 * arguments match the kernel's parameters in number and kind (handle for
 * a buffer, scalar otherwise).  Fails naming the kernel and the problem. */
TVM_API tvm_status tvm_launch_verify(const tvm_expr *launch,
                                     const tvm_module *m);
/* Verifies every launch in host function f against m, and in every host
 * function of m (tvm_launch_verify). */
TVM_API tvm_status tvm_func_verify_launches(const tvm_func *f,
                                            const tvm_module *m);
TVM_API tvm_status tvm_module_verify_launches(const tvm_module *m);

/* ---- host programs (tvm/host_program.h) --------------------------------- */
struct tvm_host_program;
/* Evaluates host function `host` of module m (after lowering for a device
 * target) into a host program allocated from a: host loops whose trip
 * counts are constants are unrolled, lets, ifs and asserts evaluated,
 * host-level allocations become device temporaries, each launch gets
 * constant geometry and arguments (the host's buffer parameters,
 * temporaries, or evaluated integer scalars).  Anything it cannot
 * evaluate (a symbolic shape, a float scalar, host code other than
 * launches) is an error naming the kernel or the statement. */
TVM_API tvm_status tvm_host_program_build(const tvm_func *host,
                                          const tvm_module *m, tvm_arena *a,
                                          struct tvm_host_program **out);

/* Evaluates an integer expression whose variables are bound in env
 * (var pointer -> int64_t* value; env may be NULL): constants, + - * /
 * % floordiv floormod min max, comparisons, and/or/not, select, casts to
 * integer types and lets.  Returns 1 and sets *out, or 0 when e uses an
 * unbound variable or anything else (loads, calls, floats), or divides by
 * zero.  Used to evaluate launch geometry on the host and by plugins that
 * unroll their kernels at compile time. */
TVM_API int tvm_lower_eval_int(const tvm_expr *e, const tvm_ptrmap *env,
                               int64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* TVM_LOWER_H */
