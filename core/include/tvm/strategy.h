/*
 * tvm/strategy.h - choosing and running the schedule of a computation on
 * a target: the plugin's strategies (by operator name, by fusion
 * pattern, the target's default) and the core's generic schedules.
 *
 * One tvm_strategy_env per target and tensor-expression context: it
 * declares the target's tensor intrinsics once (each plugin intrinsic's
 * declare() is called on first use, in that ctx) and hands them to the
 * strategies through tvm_plugin_strategy_call.
 *
 * The order tried for an operator (tvm_target_strategies): exact
 * operator name > pattern > the target's default, then the core's
 * generic schedule of the target's family.  The family comes from the
 * target YAML's keys: `gpu` selects the generic thread schedules
 * (blockIdx/threadIdx bound loops, cross-thread reductions), `cpu` the
 * CPU ones (parallel outer loop, vector lanes); without either key, a
 * target whose info says has_threads gets the thread family.  Keys that
 * contradict the plugin are refused: `cpu` on a target with threads (a
 * CPU schedule would not run there), `gpu` on one without (nothing would
 * launch the thread loops).
 *
 * Failure, the same everywhere (model compilation and tvmc matmul): a
 * strategy that returns TVM_ERR_UNSUPPORTED declines (it does not apply
 * to this shape or attribute; logged at debug level) and the next
 * candidate is tried on a fresh schedule; any other failure is a compile
 * error naming the operator, the strategy and the target.
 */
#ifndef TVM_STRATEGY_H
#define TVM_STRATEGY_H

#include "tvm/config.h"
#include "tvm/schedule.h"
#include "tvm/target.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tvm_strategy_env tvm_strategy_env;

/* Families of the core's generic schedules. */
typedef enum tvm_schedule_family {
  TVM_FAMILY_CPU = 0,   /* parallel outer loop, vector lanes */
  TVM_FAMILY_THREAD = 1 /* blockIdx.x / threadIdx.x bound loops */
} tvm_schedule_family;

/* The environment for target t and context ctx (both outlive it).  Fails
 * when the target's keys contradict its info (see the top). */
TVM_API tvm_status tvm_strategy_env_create(const tvm_target *t, tvm_ctx *ctx,
                                           tvm_strategy_env **out);
TVM_API void tvm_strategy_env_free(tvm_strategy_env *env);
/* The generic family the target uses. */
TVM_API tvm_schedule_family tvm_strategy_env_family(const tvm_strategy_env *e);
/* Vector lanes of the CPU family's generic schedule: 0 (scalar code)
 * when the target has less than 128 vector bits. */
TVM_API int tvm_strategy_env_lanes(const tvm_strategy_env *e);
/* The target's declared intrinsics (declared on the first call); the
 * arrays live as long as env.  An intrinsic whose declare() failed is
 * NULL and its failure logged. */
TVM_API tvm_status tvm_strategy_env_intrins(tvm_strategy_env *e,
                                            tvm_tensor_intrin *const **intrins,
                                            const char *const **names,
                                            int *n);

/* Schedules outs (the group outputs, fused epilogue included) of the
 * computation of operator op (fusion pattern `pattern`, -1 unknown;
 * anchor node or NULL) on the env's target, following the order at the
 * top.  On success *sp is a new schedule (free with tvm_schedule_free)
 * and *used (optional) the template's name ("core.generic_cpu" or
 * "core.generic_thread" for the core's).  On a thread target the generic
 * schedule replaces a 0-d output outs[k] by a 1-element tensor (the same
 * bytes): lower the outs array as it is on return. */
TVM_API tvm_status tvm_strategy_schedule(tvm_strategy_env *env,
                                         const char *op, int pattern,
                                         const tvm_gnode *anchor,
                                         tvm_tensor **outs, int nouts,
                                         tvm_config *cfg, tvm_schedule **sp,
                                         const char **used);

/* The core's generic schedules, for plugins that start from them.
 * lanes: CPU vector lanes (0 = scalar).  The thread one binds loops to
 * blockIdx.x/threadIdx.x with knob "block_size" of cfg (may be NULL):
 * whole warps of `warp` threads up to max_threads, default the largest up
 * to 256 (0 for either = 1024 / 32, the target_info defaults). */
TVM_API tvm_status tvm_schedule_generic_cpu(tvm_schedule *s,
                                            tvm_tensor **outs, int nouts,
                                            int lanes);
TVM_API tvm_status tvm_schedule_generic_thread(tvm_schedule *s,
                                               tvm_tensor **outs, int nouts,
                                               int max_threads, int warp,
                                               tvm_config *cfg);

#ifdef __cplusplus
}
#endif
#endif /* TVM_STRATEGY_H */
