/*
 * tvm/compiler.h - whole-model compilation: a graph and a target in, an
 * execution plan (kernels + memory plan + parameters + device module)
 * out.  Packages (the plan in one self-contained file) and the graph
 * executor that runs a plan are in tvm/runtime.h (libtvm_runtime).
 *
 * Pipeline (core/compiler/): fold_constants, simplify_inference (batch
 * norm folded into the weights that fold_constants made constant),
 * alter_layout (the plugin chooses layouts) and fold_constants again
 * (weights pre-packed at compile time), cse, dce, place_devices (a target
 * with a fallback: each node on the target or the fallback, DeviceCopy
 * between them; plugin-sdk/docs/HETEROGENEOUS.md), fuse_ops, then for
 * every fused group: tensor expressions from the operators' computes, the
 * schedule of the anchor operator (the plugin's strategy, else the core's
 * generic one), tvm_lower; one codegen of all kernels per device;
 * plan_memory.  Identical groups (same operators, shapes, attributes)
 * share one kernel; a DeviceCopy group is a copy step of the plan.
 */
#ifndef TVM_COMPILER_H
#define TVM_COMPILER_H

#include <stdio.h>

#include "tvm/graph.h"
#include "tvm/runtime.h"
#include "tvm/target.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tvm_compile_options {
  int fuse;               /* 1 (default): fuse_ops; 0: one kernel per node */
  int plan_memory;        /* 1 (default): reuse activation storage */
  const char *tuning_log; /* best configs per workload; NULL = defaults */
  /* --dump-ir NAME: a graph pass name prints the graph after it; a
   * lowering pass name (tvm_lower_pass_names) prints each kernel's loop
   * IR after it; "all" prints everything. */
  const char *dump_ir;
  FILE *dump_to;          /* NULL = stdout */
  /* Called as work advances (e.g. to draw a progress bar). */
  void (*progress)(void *ud, int done, int total, const char *what);
  void *progress_ud;
  /* 1 (default): the target chooses operator layouts (alter_layout, e.g.
   * NCHW16c convolutions on llvm-cpu); 0: the model's layouts. */
  int alter_layout;
  /* The tuner's hooks (tvm/tune.h): called for every group scheduled by a
   * target template; NULL = none (then tuning_log, when set, presets the
   * best logged knob values of each workload). */
  const struct tvm_tune_hooks *tune;
  /* Largest tensor in bytes the compiled model may use; a larger one is
   * refused at compile time naming its node.  0 (default): the value of
   * $TVM_MAX_TENSOR_BYTES, else the machine's physical memory. */
  uint64_t max_tensor_bytes;
  /* Heterogeneous placement (a target with a fallback, or one whose
   * plugin declines nodes): called once per graph node placed, with the
   * target that runs it and, on the fallback, why the target declined
   * it (NULL otherwise).  NULL = not told. */
  void (*placed)(void *ud, const tvm_gnode *n, const tvm_target *on,
                 const char *reason);
  void *placed_ud;
  /* Calibration samples for a target that quantizes the graph (ABI 6;
   * plugin-sdk/docs/QUANTIZATION.md): ncalib samples, calib[k * ninputs
   * + i] being sample k's tensor for graph input i (g->inputs order), on
   * the CPU, compact, of that input's dtype and shape.  NULL / 0
   * (default): TVM_QUANT_NCALIB synthetic samples (uniform in [-1, 1)).
   * Refused for a target that does not quantize (they would have no
   * effect) and on any dtype or shape mismatch.  Borrowed: read during
   * tvm_compile only. */
  const DLTensor *const *calib;
  int ncalib;
  /* 1: stop once every kernel is scheduled and lowered (the tuner's
   * passes, which only need the kernels its hooks see): no memory plan,
   * no target codegen, *out is NULL.  A tuner must not run the target's
   * compiler in its own process: NVRTC initializes the CUDA driver, and
   * the children it forks to measure candidates then cannot (cuInit
   * answers CUDA_ERROR_NOT_INITIALIZED after a fork). */
  int lower_only;
} tvm_compile_options;

TVM_API void tvm_compile_options_init(tvm_compile_options *o);
/* The graph pipeline's pass names in order, NULL-terminated (static; the
 * table that runs them, core/compiler/compile.c).  With
 * tvm_lower_pass_names they are the valid --dump-ir names. */
TVM_API const char *const *tvm_compile_pass_names(void);

/* The plan types (tvm_plan and its values and steps), packages and the
 * graph executor are the runtime's: tvm/runtime.h. */

/* Compiles g (rewritten in place by the graph passes) for t.  The plan
 * shares the memory of g's big constants (the weights) instead of copying
 * them: it stays valid after g is freed, and neither may write to them. */
TVM_API tvm_status tvm_compile(tvm_graph *g, const tvm_target *t,
                               const tvm_compile_options *o, tvm_plan **out);

#ifdef __cplusplus
}
#endif
#endif /* TVM_COMPILER_H */
