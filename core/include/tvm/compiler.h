/*
 * tvm/compiler.h - whole-model compilation: a graph and a target in, an
 * execution plan (kernels + memory plan + parameters + device module)
 * out; packages (the plan in one self-contained file) and the graph
 * executor that runs a plan.
 *
 * Pipeline (core/compiler/): fold_constants, simplify_inference (batch
 * norm folded into the weights that fold_constants made constant),
 * alter_layout (the plugin chooses layouts) and fold_constants again
 * (weights pre-packed at compile time), cse, dce, fuse_ops, then for
 * every fused group: tensor expressions from the operators' computes, the
 * schedule of the anchor operator (the plugin's strategy, else the core's
 * generic one), tvm_lower; one codegen of all kernels; plan_memory.  Identical
 * groups (same operators, shapes, attributes) share one kernel.
 */
#ifndef TVM_COMPILER_H
#define TVM_COMPILER_H

#include <stdio.h>

#include "tvm/graph.h"
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
  /* Largest tensor in bytes the compiled model may use; a larger one is
   * refused at compile time naming its node.  0 (default): the value of
   * $TVM_MAX_TENSOR_BYTES, else the machine's physical memory. */
  uint64_t max_tensor_bytes;
} tvm_compile_options;

TVM_API void tvm_compile_options_init(tvm_compile_options *o);

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
} tvm_plan_value;

/* One kernel launch: args are indexes into the plan's values (the fused
 * group's inputs, then its outputs), passed as buffer pointers. */
typedef struct tvm_plan_step {
  const char *kernel;    /* function name in the device module */
  const char *label;     /* e.g. "Conv+Add+Relu" */
  uint32_t nargs;
  const uint32_t *args;
  double flops;          /* for GFLOP/s in profiles */
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
} tvm_plan;

/* Compiles g (rewritten in place by the graph passes) for t. */
TVM_API tvm_status tvm_compile(tvm_graph *g, const tvm_target *t,
                               const tvm_compile_options *o, tvm_plan **out);
TVM_API void tvm_plan_free(tvm_plan *p);

/* Packages: one file holding the plan, its parameters, the device module
 * and the target it was built for, with a magic, a format version and
 * checksums.  Loading refuses a damaged, truncated or foreign file, and
 * (when expect is not NULL) one built for another target, with a message
 * naming the file and the problem. */
TVM_API tvm_status tvm_package_save(const tvm_plan *p, const char *path);
TVM_API tvm_status tvm_package_load(const char *path, const tvm_target *expect,
                                    tvm_plan **out);

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

#ifdef __cplusplus
}
#endif
#endif /* TVM_COMPILER_H */
