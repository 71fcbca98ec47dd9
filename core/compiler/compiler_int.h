/*
 * core/compiler/compiler_int.h - private interfaces of the whole-model
 * compiler (core/compiler/):
 *
 *   compile.c          tvm_compile: graph passes, dumps, plan assembly
 *   kernels.c          one fused group -> tensor expressions -> schedule ->
 *                      tvm_lower into the shared module; identical groups
 *                      share one kernel
 *   schedule_generic.c the core's schedule when the target has no strategy
 *
 * Plan ownership: see tvm_plan_new (tvm/runtime.h, core/runtime/plan.c).
 */
#ifndef TVM_COMPILER_INT_H
#define TVM_COMPILER_INT_H

#include "tvm/compiler.h"
#include "tvm/config.h"
#include "tvm/graph_passes.h"
#include "tvm/lower.h"
#include "tvm/schedule.h"
#include "tvm/tune.h"

/* Plans are made by the runtime (core/runtime/plan.c, tvm/runtime.h);
 * these names are the compiler's historical spellings. */
#define compiler_plan_new(out) tvm_plan_new(out)
#define compiler_plan_arena(p) tvm_plan_arena(p)

/* ---- kernels.c ------------------------------------------------------------
 */
typedef struct kernel_builder kernel_builder;

/* What one group became: the kernel it calls and its arguments. */
typedef struct group_kernel {
  const char *kernel; /* function name (the builder's, stable) */
  const char *label;  /* "Conv+Add+Relu" (the builder's) */
  tvm_gvalue **args;  /* kernel inputs, then group outputs (builder's) */
  int nargs;
  double flops;
  int reused; /* 1 when an identical group's kernel is reused */
  int device; /* heterogeneous: 0 the target, 1 the fallback */
  int copy;   /* 1: a DeviceCopy group (args = source, destination) */
} group_kernel;

/* A builder lowering kernels for t with lowering options lo (copied) into
 * one module; dump_to/dump_pass: --dump-ir of the lowering passes. */
tvm_status kernel_builder_create(const tvm_target *t,
                                 const tvm_lower_options *lo,
                                 kernel_builder **out);
void kernel_builder_free(kernel_builder *kb);
/* Builds (or reuses) the kernel of group G of graph g.  A group whose
 * outputs are all empty (a 0 in their shapes) needs no kernel: out->kernel
 * stays NULL and the plan has no step for it. */
tvm_status kernel_builder_add(kernel_builder *kb, const tvm_graph *g,
                              const tvm_graph_group *G, group_kernel *out);
/* The module of every kernel built so far. */
const tvm_module *kernel_builder_module(const kernel_builder *kb);
int kernel_builder_nkernels(const kernel_builder *kb);

/* The tuner's hooks (tvm/tune.h), NULL = none; called by
 * kernel_builder_add for every group the target has a template for. */
void kernel_builder_set_hooks(kernel_builder *kb, const tvm_tune_hooks *h);
/* The layout workload of node n (tvm_tune_hooks.layout): "layout_<op>-"
 * and a hash of its operator, attributes and input and output types. */
tvm_status compiler_layout_workload(const tvm_gnode *n, char out[64]);
/* Declares G's tensor expressions in c: in[i] per group input, outs[k]
 * per output; used[i] says whether input i is read (a kernel argument). */
tvm_status compiler_group_declare(tvm_ctx *c, const tvm_graph_group *G,
                                  tvm_tensor **in, tvm_tensor **outs,
                                  unsigned char *used);

/* ---- tune_kernel.c: what the tuner's hook sees --------------------------- */
struct tvm_tune_kernel {
  const tvm_target *t;
  const tvm_lower_options *lo;
  int lanes;
  const tvm_graph_group *G;
  const tvm_plugin_strategy *strat;
  const char *workload, *tmpl;
  char label[96], shape[96];
  double flops;
  int reused;
};
/* Fills k for group G (workload from the group key). */
void compiler_tune_kernel_init(tvm_tune_kernel *k, const tvm_target *t,
                               const tvm_lower_options *lo, int lanes,
                               const tvm_graph_group *G,
                               const tvm_plugin_strategy *strat,
                               const char *key, double flops, int reused,
                               char workload[64]);

/* ---- schedule_generic.c -----------------------------------------------------
 */
/* The core's schedule of a fused group whose outputs are outs: injective
 * intermediate stages are inlined (unless one is large and read several
 * times), other intermediates are computed at the output's outer loop (one
 * output) or at the root; each output stage gets its outer data-parallel
 * axes fused and run in parallel, its innermost axis vectorized by up to
 * `lanes` lanes when the extent allows, reduce loops inside the data
 * loops. */
tvm_status compiler_schedule_generic(tvm_schedule *s, tvm_tensor **outs,
                                     int nouts, int lanes);

/* ---- strategy.c ------------------------------------------------------------
 */
/* Applies strategy p to schedule s of outs (schedule_call with t's
 * intrinsics declared in ctx, or schedule for older entries): for the
 * tuner, which schedules candidates one by one. */
tvm_status compiler_strategy_apply(const tvm_target *t, tvm_ctx *ctx,
                                   const tvm_plugin_strategy *p,
                                   const tvm_gnode *anchor, tvm_schedule *s,
                                   tvm_tensor **outs, int nouts,
                                   tvm_config *cfg);

/* The tuner's name for the generic thread schedule of a group no
 * strategy of a thread target covers: its knobs (block_size) are tuned
 * like a template's, under workloads "core.generic_thread-<hash>".  It
 * has no schedule function: tvm_tune_kernel_lower and the fallback of
 * tvm_strategy_schedule call the generic schedule themselves. */
extern const tvm_plugin_strategy compiler_generic_thread_strategy;

/* The core's generic schedule of target t's family for outs, made in
 * *sp (thread targets: a 0-d output is first replaced in outs by a
 * 1-element tensor).  What tvm_strategy_schedule falls back to when no
 * strategy applies; the tuner's reference.  *used names it when used is
 * not NULL. */
tvm_status compiler_strategy_generic(const tvm_target *t, tvm_ctx *ctx,
                                     tvm_tensor **outs, int nouts,
                                     tvm_config *cfg, tvm_schedule **sp,
                                     const char **used);

/* limits.c: refuses values with more elements than 32-bit indexing
 * reaches or more bytes than the memory limit, naming the node. */
uint64_t compiler_tensor_byte_limit(const tvm_compile_options *o);
tvm_status compiler_check_sizes(const tvm_graph *g,
                                const tvm_compile_options *o);

#endif /* TVM_COMPILER_INT_H */
