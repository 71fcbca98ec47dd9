/*
 * tvm/plugin.h - the target plugin ABI.
 *
 * A backend is a shared object exporting one symbol:
 *
 *   const tvm_plugin_desc *tvm_plugin_query(uint32_t host_abi_max,
 *                                           const tvm_host_api *host);
 *
 * The host passes the newest ABI version it speaks; the plugin answers
 * with a descriptor whose abi_version is the version it chose (at most
 * host_abi_max), or NULL when it cannot speak any version the host does.
 * tvm_plugin_query is pure: no device initialization, no allocation the
 * host must free, no work in constructors.  Devices are touched only in
 * probe/device_open.
 *
 * Rules every struct here follows:
 *  - it starts with uint32_t struct_size and only ever grows at its end;
 *    the host uses a field only when it lies inside struct_size and (for
 *    function slots) is non-NULL; NULL means "use the core default";
 *  - fixed-width integers, enums as uint32_t, no bool, no bitfields, no
 *    structs passed by value;
 *  - every slot that can fail returns int32_t: 0 (TVM_OK) or a negative
 *    tvm_status; details go through host->report.  Nothing aborts, exits
 *    or longjmps across the boundary;
 *  - inputs are borrowed for the duration of the call; memory the host
 *    will free comes from host->alloc; plugin objects (targets, devices,
 *    modules) die by the plugin's own destroy slots.
 *
 * Plugins link against libtvm (the core) to build and read IR: the IR
 * types in tvm/ir.h, tvm/te.h and tvm/schedule.h are that library's API.
 *
 * What plugins see of the core's structs (WRITING_A_PLUGIN.md, "What
 * plugins see"):
 *  - frozen: the IR and TE nodes codegen and strategies walk - tvm_expr,
 *    tvm_stmt (kinds and union members), tvm_buffer, tvm_func,
 *    tvm_module, tvm_iter_var, tvm_operation, tvm_tensor,
 *    tvm_tensor_intrin.  Their kind enums only grow at the end, their
 *    fields keep their offsets; the asserts at the end of this file check
 *    both, and a plugin may read any field asserted there;
 *  - wrapped: tvm_gnode/tvm_gvalue (alter_layout) through the accessors
 *    of tvm/graph.h (tvm_gnode_op_name, tvm_gnode_input_shape,
 *    tvm_gnode_int, ...), tvm_stage/tvm_schedule through the functions of
 *    tvm/schedule.h (tvm_stage_op, tvm_stage_num_reduce_axes, ...).
 *    Their fields are the core's to change.
 *
 * ABI history (layouts frozen by the _Static_asserts at the end):
 *   1  first release.
 *   2  tvm_plugin_vtable gains timer_start/timer_stop (device timers);
 *      plugins built for 1 still load, and the host times launches with
 *      its own clock around sync.
 *   3  tvm_plugin_vtable gains alter_layout (the target chooses operator
 *      layouts, e.g. NCHW16c convolutions); plugins built for 1 or 2
 *      still load, and their graphs keep the model's layouts.
 *   4  thread pools belong to devices.  tvm_host_api gains
 *      pool_parallel_for/pool_size (run on a given pool); tvm_plugin_vtable
 *      gains device_open_pool (device_open told which pool the device's
 *      kernels use).  Plugins built for 1-3 still load: their devices
 *      are opened with device_open and their parallel loops run on the
 *      process default pool through parallel_for.
 *      tvm_plugin_vtable also gains lower_passes (the target inserts
 *      its own lowering passes at named points of the pipeline, like
 *      TVM's add_lower_pass); plugins built for 1-3 insert none.  Device
 *      targets (has_threads or num_queues > 0) get device functions only
 *      in codegen; their host code runs in the runtime as host programs
 *      that call launch (plugin-sdk/docs/HOST_DEVICE.md).
 *      tvm_plugin_strategy gains match/pattern (strategies for an
 *      operator pattern or a target-wide default, besides an exact
 *      operator name) and schedule_call (the strategy receives a
 *      tvm_plugin_strategy_call: the anchor node, its operator, and the
 *      tensor intrinsics the host declared once for the target);
 *      tvm_plugin_target_info gains max_threads_per_block and
 *      thread_warp_size (bounds of the core's generic thread schedules).
 *      Plugins built for 1-3 still load; their strategies match exact
 *      operator names and are called through schedule().
 *   5  heterogeneous execution.  tvm_plugin_vtable gains supports (the
 *      target says which graph nodes - operator, shapes, dtypes, layouts,
 *      read through the tvm_gnode accessors of tvm/graph.h - it runs;
 *      the compiler places the others on the fallback target the YAML
 *      names with `fallback:` and inserts the copies between the two
 *      devices, plugin-sdk/docs/HETEROGENEOUS.md); tvm_plugin_support is
 *      its answer.  Plugins built for 1-4 still load and run every node.
 *   6  integer quantization.  tvm_plugin_vtable gains quantize (the target
 *      asks the compiler to quantize the graph for it and says how: the
 *      dtypes it computes in, how scales are applied, the blocked layout
 *      of its integer convolutions); tvm_plugin_quant is its answer
 *      (plugin-sdk/docs/QUANTIZATION.md).  Plugins built for 1-5 still
 *      load; their graphs stay in floating point.
 *   7  tvm_plugin_layout's reserved word becomes flags: with
 *      TVM_PLUGIN_LAYOUT_FLAT_PIXELS a convolution of group 1 is
 *      computed over its pixels flattened (see tvm_plugin_layout; 1x1
 *      unpadded windows of strides 1 at first, any strides since
 *      2026-11-29, any window, padding and dilation since 2026-11-29's
 *      later change).
 *      The host reads the word of plugins built for 7 or later.
 *   8  tvm_plugin_target_info gains host_memory: nonzero when the
 *      target's device memory is the process's own memory (mem_alloc
 *      returns host pointers, copy is memcpy, and a kernel accepts any
 *      host pointer as a TVM_ARG_PTR argument).  The executor then hands
 *      the kernels the loaded plan's parameters in place instead of
 *      copying each into a buffer of the device (the parameters are
 *      read-only to kernels on every target).  The host reads it from
 *      plugins built for 8 only; older ones get their copies as before.
 */
#ifndef TVM_PLUGIN_H
#define TVM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "tvm/lower.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TVM_PLUGIN_ABI_VERSION 8u /* newest version of this header */
#define TVM_PLUGIN_ABI_MIN 1u     /* oldest version the host accepts */
#define TVM_PLUGIN_ENTRY "tvm_plugin_query"

#if defined(__GNUC__)
#define TVM_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define TVM_PLUGIN_EXPORT
#endif

typedef struct tvm_config tvm_config; /* knob values, tvm/config.h */
typedef struct tvm_gnode tvm_gnode;   /* a graph node, tvm/graph.h */

/* Opaque plugin objects. */
typedef struct tvm_plugin_target tvm_plugin_target;
typedef struct tvm_plugin_device tvm_plugin_device;
typedef struct tvm_plugin_module tvm_plugin_module;
typedef struct tvm_plugin_func tvm_plugin_func;
/* A thread pool of the host (ABI 4): opaque, owned by the host. */
typedef struct tvm_host_pool tvm_host_pool;

/* ---- what the host offers the plugin ------------------------------------ */
typedef struct tvm_host_api {
  uint32_t struct_size;
  uint32_t abi_version;  /* newest the host speaks */
  /* Records a failure detail in the calling thread's diagnostic. */
  void (*report)(int32_t status, const char *msg);
  /* Log line at a TVM_LOG_* level. */
  void (*log)(int32_t level, const char *msg);
  /* The host's allocator: what the plugin hands to the host to free. */
  void *(*alloc)(uint64_t nbytes);
  void (*free)(void *p);
  /* Runs task(i, n, data) for i in [0, n) on the process default thread
   * pool and returns when all are done: the first non-zero return, or 0.
   * ABI 4 plugins use pool_parallel_for with their device's pool. */
  int32_t (*parallel_for)(int32_t (*task)(int64_t i, int64_t n, void *data),
                          void *data, int64_t n);
  uint32_t num_threads;  /* size of the default pool when queried */
  uint32_t reserved;
  /* ABI 4 */
  /* Like parallel_for, on pool (from device_open_pool; NULL = the default
   * pool).  A call from inside a task of any pool runs serially. */
  int32_t (*pool_parallel_for)(tvm_host_pool *pool,
                               int32_t (*task)(int64_t i, int64_t n,
                                               void *data),
                               void *data, int64_t n);
  /* Threads of pool (the caller included; NULL = the default pool). */
  uint32_t (*pool_size)(tvm_host_pool *pool);
} tvm_host_api;

/* ---- compile-time half -------------------------------------------------- */
enum { /* tvm_plugin_attr.type */
  TVM_PLUGIN_ATTR_INT = 1,
  TVM_PLUGIN_ATTR_FLOAT = 2,
  TVM_PLUGIN_ATTR_BOOL = 3,
  TVM_PLUGIN_ATTR_STRING = 4
};

/* One attribute a target YAML may set under attrs:. */
typedef struct tvm_plugin_attr {
  uint32_t struct_size;
  uint32_t type;             /* TVM_PLUGIN_ATTR_* */
  const char *name;
  const char *default_value; /* in YAML spelling; NULL = required */
  double min, max;           /* INT and FLOAT: inclusive range */
  const char *choices;       /* STRING: "a|b|c", NULL = any */
  const char *doc;           /* one line */
} tvm_plugin_attr;

/* A validated value (every schema attribute is present, defaults filled). */
typedef struct tvm_plugin_attr_value {
  uint32_t struct_size;
  uint32_t type;
  const char *name;
  int64_t i;     /* INT, BOOL */
  double f;      /* FLOAT */
  const char *s; /* STRING */
} tvm_plugin_attr_value;

/* A memory scope of the target. */
typedef struct tvm_plugin_scope {
  uint32_t struct_size;
  uint32_t visibility; /* TVM_VIS_* */
  const char *name;
  uint64_t size_bytes; /* 0 = unbounded */
  uint32_t align;
  int32_t queue;       /* hardware queue that fills it, -1 = none */
} tvm_plugin_scope;

/* A tensor intrinsic: declare() builds its TE pattern and emitter in ctx. */
typedef struct tvm_plugin_intrin {
  uint32_t struct_size;
  uint32_t reserved;
  const char *name;
  int32_t (*declare)(tvm_plugin_target *t, tvm_ctx *ctx,
                     tvm_tensor_intrin **out);
} tvm_plugin_intrin;

/* What a strategy matches (tvm_plugin_strategy.match, ABI 4). */
enum {
  TVM_STRATEGY_MATCH_OP = 0,      /* op is an operator name of the registry */
  TVM_STRATEGY_MATCH_PATTERN = 1, /* pattern is a tvm_gop_pattern */
  TVM_STRATEGY_MATCH_DEFAULT = 2  /* every operator nothing else matches */
};

/* What the host hands a strategy besides the schedule (ABI 4, see
 * schedule_call).  Borrowed for the call. */
typedef struct tvm_plugin_strategy_call {
  uint32_t struct_size;
  uint32_t nintrins;
  /* The fused group's anchor node (read its attributes with
   * tvm_gnode_int/_float/_ints of tvm/graph.h), or NULL when the
   * computation comes from no graph (tvmc matmul). */
  const tvm_gnode *anchor;
  const char *op; /* the operator scheduled: the anchor's, or "matmul" */
  /* The target's tensor intrinsics, declared once by the host in the
   * schedule's ctx, in target_info->intrins order (an entry is NULL
   * when its declare() failed). */
  tvm_tensor_intrin *const *intrins;
  const char *const *intrin_names;
} tvm_plugin_strategy_call;

/* A schedule template.  It matches (ABI 4 match/pattern; ABI 1-3: always
 * an exact name) an operator of the registry by name (op, e.g. "Gemm",
 * "Conv_NCHWc", "MaxPool"; tvmc matmul asks for "matmul"), a fusion
 * pattern, or every operator; the host picks, for a fused group's anchor
 * operator, exact name > pattern > default > the core's generic schedule,
 * the highest priority first within each.  schedule() (or, when set,
 * schedule_call()) applies primitives to s for the group outputs outs
 * (the fused epilogue included), reading knob values from cfg
 * (tvm/config.h).  A strategy that does not apply returns
 * TVM_ERR_UNSUPPORTED and the host tries the next candidate; any other
 * failure is a compile error naming the operator and the strategy. */
typedef struct tvm_plugin_strategy {
  uint32_t struct_size;
  int32_t priority; /* higher wins when several match */
  const char *op;   /* MATCH_OP: registry operator name; else a label */
  const char *name; /* template name, recorded in tuning logs */
  int32_t (*schedule)(tvm_plugin_target *t, tvm_schedule *s,
                      tvm_tensor **outs, uint32_t nouts, tvm_config *cfg);
  /* ABI 4 */
  uint32_t match;   /* TVM_STRATEGY_MATCH_* */
  uint32_t pattern; /* MATCH_PATTERN: a tvm_gop_pattern value */
  /* Preferred over schedule when non-NULL. */
  int32_t (*schedule_call)(tvm_plugin_target *t,
                           const tvm_plugin_strategy_call *call,
                           tvm_schedule *s, tvm_tensor **outs,
                           uint32_t nouts, tvm_config *cfg);
} tvm_plugin_strategy;

/* What a target instance is like; owned by the target. */
typedef struct tvm_plugin_target_info {
  uint32_t struct_size;
  uint32_t vector_bits;  /* native SIMD width */
  uint32_t has_threads;  /* kernels launch over thread axes */
  uint32_t num_queues;   /* hardware queues (decoupled access-execute) */
  const char *const *queue_names;
  const tvm_plugin_scope *scopes;
  uint32_t nscopes;
  uint32_t nintrins;
  const tvm_plugin_intrin *intrins;
  const tvm_plugin_strategy *strategies;
  uint32_t nstrategies;
  uint32_t unroll_max_extent; /* 0 = core default */
  const char *description;    /* e.g. "x86-64 znver4 +avx512f, 2 threads" */
  /* ABI 4 */
  uint32_t max_threads_per_block; /* has_threads: 0 = 1024 */
  uint32_t thread_warp_size;      /* threads that run in lockstep; 0 = 32 */
  /* ABI 8 */
  uint32_t host_memory; /* device memory is host memory (see ABI 8) */
} tvm_plugin_target_info;

enum { /* tvm_plugin_blob.format */
  TVM_BLOB_ELF_OBJECT = 1, /* relocatable object */
  TVM_BLOB_SHARED_OBJECT = 2,
  TVM_BLOB_PTX = 3,
  TVM_BLOB_SPIRV = 4,
  TVM_BLOB_OPENCL_C = 5,
  TVM_BLOB_CUSTOM = 100    /* plugin-defined */
};

/* One kernel of a device module and how to launch it. */
typedef struct tvm_plugin_kernel {
  uint32_t struct_size;
  uint32_t nargs;
  const char *name;
  uint32_t grid[3];  /* blocks; 1 1 1 for CPU functions */
  uint32_t block[3]; /* threads per block */
  uint64_t shared_bytes;
} tvm_plugin_kernel;

/* Output of codegen.  data, kernels and every kernel name are allocated
 * with host->alloc and freed by the host. */
typedef struct tvm_plugin_blob {
  uint32_t struct_size;
  uint32_t format;
  uint8_t *data;
  uint64_t size;
  tvm_plugin_kernel *kernels;
  uint32_t nkernels;
  uint32_t reserved;
} tvm_plugin_blob;

/* The layouts a target wants for one graph node (ABI 3, alter_layout).
 * The host zero-fills it and sets struct_size; the plugin writes
 * NUL-terminated layout strings in the spelling of tvm/graph.h: data =
 * the node's data input ("NCHW16c"), weight = its weight input
 * ("OIHW16i16o"), out = its output ("NCHW16c").  An empty data string
 * keeps the node as the model wrote it.  For a matrix product (MatMul,
 * Gemm) only weight is read: "NK<nr>n" packs B' (K x N) in panels of nr
 * columns, Bp[ceil(N/nr), K, nr], zero-padded; the node becomes
 * MatMul_packed.  An empty weight keeps it.  For a 3x3 stride-1 Conv
 * (dilation 1, group 1, the same padding on both sides), weight
 * "winograd_F2x3" (TVM_LAYOUT_WINOGRAD_F2X3 of tvm/graph.h) with data and
 * out "NCHW" asks for Winograd F(2x2, 3x3): the node becomes
 * Conv2D_winograd on the kernel transformed at compile time;
 * "winograd_F4x3" or "winograd_F2x3" with data and out "NCHW<b>c" asks
 * for F(4x4, 3x3) or F(2x2, 3x3) on blocked data (Conv2D_winograd_NCHWc
 * after an input transform node).
 * flags (ABI 7; zero before): TVM_PLUGIN_LAYOUT_FLAT_PIXELS, for a Conv
 * rewritten to Conv_NCHWc with a 1x1 window, no padding and group 1, at
 * any strides (any other Conv is an error naming it), asks that its
 * convolution stage be computed over the pixels flattened: tagged
 * "conv2d_NCHWc" as always, but [N, M/ob, 1, OH*OW, ob], read by the
 * rest of the operator through an injective view back to [N, M/ob, OH,
 * OW, ob] (the output's layout is unchanged).  A schedule can then tile
 * pixels across rows (a 7x7 map's 49 pixels in blocks of 4).  Other
 * bits are reserved (zero). */
#define TVM_PLUGIN_LAYOUT_CAP 32
#define TVM_PLUGIN_LAYOUT_FLAT_PIXELS 1u
typedef struct tvm_plugin_layout {
  uint32_t struct_size;
  uint32_t flags; /* ABI 7: TVM_PLUGIN_LAYOUT_* (reserved before) */
  char data[TVM_PLUGIN_LAYOUT_CAP];
  char weight[TVM_PLUGIN_LAYOUT_CAP];
  char out[TVM_PLUGIN_LAYOUT_CAP];
} tvm_plugin_layout;

/* A lowering pass the target inserts (ABI 4): tvm_lower_pass of
 * tvm/lower.h (struct_size, after, name, run). */
typedef tvm_lower_pass tvm_plugin_lower_pass;

/* Whether a target runs one graph node (ABI 5, supports).  The host
 * zero-fills it and sets struct_size; the plugin sets supported to 1 or
 * 0 and, when 0, writes a NUL-terminated one-line reason ("conv2d with
 * 3 input channels: the GEMM needs a multiple of 16") that the compiler
 * shows in its placement report and errors. */
#define TVM_PLUGIN_REASON_CAP 160
typedef struct tvm_plugin_support {
  uint32_t struct_size;
  uint32_t supported; /* 1: the target runs the node; 0: it does not */
  char reason[TVM_PLUGIN_REASON_CAP];
} tvm_plugin_support;

/* How a target wants the graph quantized (ABI 6, quantize).  The host
 * zero-fills it and sets struct_size; a plugin that wants integer
 * arithmetic sets enabled = 1 and the rest.  The compiler's quantize pass
 * (core/graph/passes/quantize.c, plugin-sdk/docs/QUANTIZATION.md) then
 * calibrates per-tensor scales on sample inputs run through the float
 * graph, rewrites every 2-D convolution whose channels the blocks divide
 * into a QConv_blocked node (tvm/graph.h's operator library) in the
 * blocked layout below, and keeps a rewritten node only when the
 * target's supports (ABI 5) accepts it.  Dtypes are DLPack codes and
 * bits (kDLInt = 0).  Supported today: act int8, weight int8, acc int32,
 * scale TVM_QUANT_SCALE_POW2; anything else fails the compilation naming
 * what the target asked for. */
enum { /* tvm_plugin_quant.scale */
  /* per-tensor scales that are powers of two: the int32 accumulator is
   * requantized by an arithmetic right shift and a clip, no multiply */
  TVM_QUANT_SCALE_POW2 = 1
};
typedef struct tvm_plugin_quant {
  uint32_t struct_size;
  uint32_t enabled;                 /* 1: quantize the graph; 0: keep it */
  uint32_t act_code, act_bits;      /* activations (kDLInt, 8) */
  uint32_t weight_code, weight_bits; /* weights (kDLInt, 8) */
  uint32_t acc_code, acc_bits;      /* accumulation (kDLInt, 32) */
  uint32_t scale;                   /* TVM_QUANT_SCALE_* */
  /* the blocks of QConv_blocked: data [N/b, C/bi, H, W, b, bi], weight
   * [M/bo, C/bi, KH, KW, bo, bi]; a convolution needs b | N, bi | C and
   * bo | M to be quantized */
  uint32_t block_batch, block_in, block_out;
} tvm_plugin_quant;

/* ---- run-time half ----------------------------------------------------- */
enum { /* tvm_plugin_arg.type */
  TVM_ARG_PTR = 1,   /* device memory from mem_alloc */
  TVM_ARG_INT = 2,
  TVM_ARG_FLOAT = 3
};
typedef struct tvm_plugin_arg {
  uint32_t type;
  uint32_t reserved;
  union { void *ptr; int64_t i; double f; } v;
} tvm_plugin_arg;

enum { /* copy kinds */
  TVM_COPY_HOST_TO_DEVICE = 1,
  TVM_COPY_DEVICE_TO_HOST = 2,
  TVM_COPY_DEVICE_TO_DEVICE = 3
};

/* The target vtable.  Slots marked (opt) may be NULL. */
typedef struct tvm_plugin_vtable {
  uint32_t struct_size;
  uint32_t nattrs;
  const tvm_plugin_attr *attrs; /* the attribute schema */

  /* targets: one per YAML file in use */
  int32_t (*target_create)(const tvm_plugin_attr_value *values,
                           uint32_t nvalues, tvm_plugin_target **out);
  void (*target_destroy)(tvm_plugin_target *t);
  const tvm_plugin_target_info *(*target_info)(tvm_plugin_target *t);
  /* Module of lowered functions -> device blob.  Must work where the
   * runtime cannot (e.g. CUDA codegen without a GPU); reentrant. */
  int32_t (*codegen)(tvm_plugin_target *t, const tvm_module *m,
                     tvm_plugin_blob *out);

  /* runtime */
  /* 0 when this machine can run the target; TVM_ERR_UNAVAILABLE with a
   * fix-it message through host->report otherwise. (opt: always 0) */
  int32_t (*probe)(tvm_plugin_target *t);
  int32_t (*device_open)(tvm_plugin_target *t, tvm_plugin_device **out);
  void (*device_close)(tvm_plugin_device *d);
  int32_t (*mem_alloc)(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                       uint64_t align, void **out);
  void (*mem_free)(tvm_plugin_device *d, uint32_t scope, void *p);
  int32_t (*copy)(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                  const void *src, uint64_t src_offset, uint64_t nbytes,
                  uint32_t kind);
  int32_t (*module_load)(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                         tvm_plugin_module **out);
  void (*module_unload)(tvm_plugin_module *m);
  int32_t (*func_get)(tvm_plugin_module *m, const char *name,
                      tvm_plugin_func **out);
  int32_t (*launch)(tvm_plugin_device *d, tvm_plugin_func *f,
                    const tvm_plugin_arg *args, uint32_t nargs,
                    const uint32_t grid[3], const uint32_t block[3]);
  int32_t (*sync)(tvm_plugin_device *d); /* (opt: launches synchronous) */

  /* ABI 2 */
  /* Device-side timing around launches. (opt: host clock around sync) */
  int32_t (*timer_start)(tvm_plugin_device *d, uint64_t *token);
  int32_t (*timer_stop)(tvm_plugin_device *d, uint64_t token,
                        double *elapsed_ms);

  /* ABI 3 */
  /* Layout choice for node (a graph node with inferred shapes; borrowed
   * for the call): fills *out (see tvm_plugin_layout) and returns 0, or a
   * negative status.  (opt: every node keeps the model's layout) */
  int32_t (*alter_layout)(tvm_plugin_target *t, const tvm_gnode *node,
                          tvm_plugin_layout *out);

  /* ABI 4 */
  /* device_open, told the host pool (never NULL) the device's kernels run
   * their parallel loops on, through host->pool_parallel_for.  The pool
   * outlives the device.  (opt: the host calls device_open, and the
   * plugin's loops use the default pool) */
  int32_t (*device_open_pool)(tvm_plugin_target *t, tvm_host_pool *pool,
                              tvm_plugin_device **out);
  /* The target's own lowering passes: *out points to n entries owned by
   * the plugin (static, or living as long as t), each run right after
   * the pass its `after` names (tvm_lower_pass_names, or an earlier
   * entry); an unknown name fails the compilation naming the valid ones.
   * (opt: none) */
  int32_t (*lower_passes)(tvm_plugin_target *t,
                          const tvm_plugin_lower_pass **out, uint32_t *n);

  /* ABI 5 */
  /* Does the target run node (a graph node with inferred shapes, dtypes
   * and layouts, after alter_layout; borrowed for the call)?  Fills *out
   * (see tvm_plugin_support) and returns 0, or a negative status (a
   * failure, not a "no").  The compiler places the nodes a target
   * declines on its YAML's fallback target.  (opt: every node runs) */
  int32_t (*supports)(tvm_plugin_target *t, const tvm_gnode *node,
                      tvm_plugin_support *out);

  /* ABI 6 */
  /* Does the target want the graph quantized, and how?  Fills *out (see
   * tvm_plugin_quant) and returns 0, or a negative status.  (opt: the
   * graph stays in floating point) */
  int32_t (*quantize)(tvm_plugin_target *t, tvm_plugin_quant *out);
} tvm_plugin_vtable;

typedef struct tvm_plugin_desc {
  uint32_t struct_size;
  uint32_t abi_version; /* the version this descriptor speaks */
  const char *name;     /* equals the YAML's plugin: */
  const char *version;  /* the plugin's own version */
  const char *description;
  const tvm_plugin_vtable *vtable;
} tvm_plugin_desc;

typedef const tvm_plugin_desc *(*tvm_plugin_query_fn)(
    uint32_t host_abi_max, const tvm_host_api *host);

/* Size of the vtable for ABI 1: everything before timer_start. */
#define TVM_PLUGIN_VTABLE_SIZE_V1 offsetof(tvm_plugin_vtable, timer_start)
/* Size of the vtable for ABI 2: everything before alter_layout. */
#define TVM_PLUGIN_VTABLE_SIZE_V2 offsetof(tvm_plugin_vtable, alter_layout)
/* Size of the vtable for ABI 3: everything before device_open_pool. */
#define TVM_PLUGIN_VTABLE_SIZE_V3 offsetof(tvm_plugin_vtable, device_open_pool)
/* Size of the vtable for ABI 4: everything before supports. */
#define TVM_PLUGIN_VTABLE_SIZE_V4 offsetof(tvm_plugin_vtable, supports)
/* Size of the vtable for ABI 5: everything before quantize. */
#define TVM_PLUGIN_VTABLE_SIZE_V5 offsetof(tvm_plugin_vtable, quantize)
/* Size of the host API for ABI 1-3: everything before pool_parallel_for. */
#define TVM_HOST_API_SIZE_V3 offsetof(tvm_host_api, pool_parallel_for)

/* ---- frozen layouts (LP64) ------------------------------------------- */
#if defined(__LP64__) && !defined(__cplusplus)
_Static_assert(offsetof(tvm_host_api, report) == 8, "ABI 1 frozen");
_Static_assert(offsetof(tvm_host_api, parallel_for) == 40, "ABI 1 frozen");
_Static_assert(TVM_HOST_API_SIZE_V3 == 56, "ABI 1 frozen");
_Static_assert(sizeof(tvm_host_api) == 72, "ABI 4 frozen");
_Static_assert(sizeof(tvm_plugin_attr) == 56, "ABI 1 frozen");
_Static_assert(sizeof(tvm_plugin_attr_value) == 40, "ABI 1 frozen");
_Static_assert(sizeof(tvm_plugin_scope) == 32, "ABI 1 frozen");
_Static_assert(sizeof(tvm_plugin_intrin) == 24, "ABI 1 frozen");
_Static_assert(offsetof(tvm_plugin_strategy, match) == 32, "ABI 1 frozen");
_Static_assert(sizeof(tvm_plugin_strategy) == 48, "ABI 4 frozen");
_Static_assert(sizeof(tvm_plugin_strategy_call) == 40, "ABI 4 frozen");
_Static_assert(offsetof(tvm_plugin_target_info, max_threads_per_block) == 72,
               "ABI 1 frozen");
_Static_assert(offsetof(tvm_plugin_target_info, thread_warp_size) == 76,
               "ABI 4 frozen");
_Static_assert(sizeof(tvm_plugin_target_info) == 88, "ABI 8 frozen");
_Static_assert(sizeof(tvm_plugin_kernel) == 48, "ABI 1 frozen");
_Static_assert(sizeof(tvm_plugin_blob) == 40, "ABI 1 frozen");
_Static_assert(sizeof(tvm_plugin_arg) == 16, "ABI 1 frozen");
_Static_assert(offsetof(tvm_plugin_vtable, target_create) == 16,
               "ABI 1 frozen");
_Static_assert(offsetof(tvm_plugin_vtable, codegen) == 40, "ABI 1 frozen");
_Static_assert(offsetof(tvm_plugin_vtable, launch) == 120, "ABI 1 frozen");
_Static_assert(TVM_PLUGIN_VTABLE_SIZE_V1 == 136, "ABI 1 frozen");
_Static_assert(TVM_PLUGIN_VTABLE_SIZE_V2 == 152, "ABI 2 frozen");
_Static_assert(TVM_PLUGIN_VTABLE_SIZE_V3 == 160, "ABI 3 frozen");
_Static_assert(offsetof(tvm_plugin_vtable, lower_passes) == 168, "ABI 4 frozen");
_Static_assert(TVM_PLUGIN_VTABLE_SIZE_V4 == 176, "ABI 4 frozen");
_Static_assert(TVM_PLUGIN_VTABLE_SIZE_V5 == 184, "ABI 5 frozen");
_Static_assert(sizeof(tvm_plugin_vtable) == 192, "ABI 6 frozen");
_Static_assert(sizeof(tvm_plugin_quant) == 48, "ABI 6 frozen");
_Static_assert(offsetof(tvm_plugin_quant, block_batch) == 36, "ABI 6 frozen");
_Static_assert(sizeof(tvm_plugin_support) == 168, "ABI 5 frozen");
_Static_assert(sizeof(tvm_plugin_lower_pass) == 32, "ABI 4 frozen");
_Static_assert(offsetof(tvm_plugin_lower_pass, run) == 24, "ABI 4 frozen");
_Static_assert(sizeof(tvm_plugin_layout) == 104, "ABI 3 frozen");
_Static_assert(sizeof(tvm_plugin_desc) == 40, "ABI 1 frozen");

/* The core structs plugins read (see the top of this file): kind values
 * and the offsets of the fields a plugin may read.  A change that fails
 * one of these breaks every plugin built before it. */
_Static_assert(TVM_VAR == 3, "plugin-visible core struct frozen");
_Static_assert(TVM_MAX == 12, "plugin-visible core struct frozen");
_Static_assert(TVM_GE == 18, "plugin-visible core struct frozen");
_Static_assert(TVM_NOT == 21, "plugin-visible core struct frozen");
_Static_assert(TVM_CALL == 24, "plugin-visible core struct frozen");
_Static_assert(TVM_LOAD == 25, "plugin-visible core struct frozen");
_Static_assert(TVM_RAMP == 26, "plugin-visible core struct frozen");
_Static_assert(TVM_REDUCE == 30, "plugin-visible core struct frozen");
_Static_assert(TVM_REALIZE == 11, "plugin-visible core struct frozen");
_Static_assert(TVM_STORE == 4, "plugin-visible core struct frozen");
_Static_assert(TVM_EVALUATE == 7, "plugin-visible core struct frozen");
_Static_assert(TVM_ASSERT == 9, "plugin-visible core struct frozen");
_Static_assert(TVM_INTRIN_ISNAN == 17, "plugin-visible core struct frozen");
_Static_assert(TVM_INTRIN_BITXOR == 22, "plugin-visible core struct frozen");
_Static_assert(TVM_INTRIN_ACCESS_PTR == 25, "plugin-visible core struct frozen");
_Static_assert(TVM_INTRIN_DEP_POP == 27, "plugin-visible core struct frozen");
_Static_assert(TVM_FOR_VTHREAD == 5, "plugin-visible core struct frozen");
_Static_assert(TVM_REDUCE_PROD == 3, "plugin-visible core struct frozen");
_Static_assert(TVM_OP_COMPUTE == 1, "plugin-visible core struct frozen");
_Static_assert(TVM_FUNC_HOST == 0, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_expr, dtype) == 4, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_expr, u) == 8, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_expr, u.call.args) == 24, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_expr, u.call.nargs) == 32, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_expr, u.load.pred) == 24, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_expr, u.ramp.lanes) == 24, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_expr, u.reduce.cond) == 40, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_stmt, u) == 8, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_stmt, u.for_.body) == 48, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_stmt, u.alloc.body) == 48, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_stmt, u.attr.body) == 32, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_stmt, u.store.pred) == 32, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_stmt, u.realize.body) == 40, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_buffer, data) == 8, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_buffer, dtype) == 16, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_buffer, shape) == 24, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_buffer, strides) == 32, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_buffer, elem_offset) == 40, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_buffer, scope) == 48, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_func, kind) == 8, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_func, params) == 16, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_func, buffers) == 24, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_func, body) == 32, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_func, thread_extents) == 56, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_module, funcs) == 8, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_module, nfuncs) == 16, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_iter_var, dom) == 8, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_iter_var, kind) == 24, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_iter_var, thread_tag) == 32, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_operation, tag) == 16, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_operation, axis) == 24, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_operation, reduce_axis) == 40, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_operation, nreduce) == 48, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_operation, body) == 56, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_operation, output) == 64, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_tensor, name) == 8, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_tensor, dtype) == 16, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_tensor, ndim) == 20, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_tensor, shape) == 24, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_tensor, shape_c) == 32, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_tensor_intrin, pattern) == 8, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_tensor_intrin, emit) == 16, "plugin-visible core struct frozen");
_Static_assert(offsetof(tvm_tensor_intrin, data) == 24, "plugin-visible core struct frozen");
#endif

#ifdef __cplusplus
}
#endif
#endif /* TVM_PLUGIN_H */
