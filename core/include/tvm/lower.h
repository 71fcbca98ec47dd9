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
} tvm_lower_options;

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
TVM_API tvm_status tvm_pass_inject_virtual_thread(tvm_ctx *c, tvm_func *f,
                                                  const tvm_lower_options *o,
                                                  tvm_func **out);
TVM_API tvm_status tvm_pass_inject_dep_tokens(tvm_ctx *c, tvm_func *f,
                                              const tvm_lower_options *o,
                                              tvm_func **out);
TVM_API tvm_status tvm_pass_storage_rewrite(tvm_ctx *c, tvm_func *f,
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

/* Names of the passes in order, NULL-terminated (for --dump-ir help). */
TVM_API const char *const *tvm_lower_pass_names(void);

#ifdef __cplusplus
}
#endif
#endif /* TVM_LOWER_H */
