/*
 * tvm/graph_passes.h - passes over the graph IR and the reference graph
 * evaluator.
 *
 * Each pass rewrites a graph in place (core/graph/passes/, one file each),
 * returns TVM_OK or a status with the reason in the diagnostic, and leaves
 * the graph valid: nodes in topological order, g->values holding exactly
 * the referenced values (tvm_graph_toposort).  A pass on a graph whose
 * builder failed returns that failure (tvm_graph_status).  The effect of a
 * pass is seen by printing the graph before and after (tvm_graph_str).
 */
#ifndef TVM_GRAPH_PASSES_H
#define TVM_GRAPH_PASSES_H

#include "tvm/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- clean-up ------------------------------------------------------------ */
/* Dead-code elimination: removes every node none of whose outputs reaches
 * a graph output; then drops the values no longer referenced (unused
 * constants included).  Graph inputs always stay. */
TVM_API tvm_status tvm_graph_pass_dce(tvm_graph *g);

/* Common-subexpression elimination: constants with the same dtype, shape
 * and bytes are merged, then nodes with the same operator, the same inputs
 * (after earlier merges), equal attributes (in any order) and the same
 * output types are merged into the first of them. */
TVM_API tvm_status tvm_graph_pass_cse(tvm_graph *g);

/* ---- compile-time evaluation --------------------------------------------- */
/* Constant folding: a node all of whose present inputs are CONST (nodes
 * without inputs, such as Constant, included) is evaluated now with its
 * operator's reference and its outputs become CONST values (same names,
 * same value objects); the node is removed.  Shape of a value of any kind
 * folds too (shapes are static).  Identity, and Dropout in inference
 * (training_mode absent or a constant false, mask output unused), are
 * bypassed: their users read their input.  Operators without a reference
 * stay. */
TVM_API tvm_status tvm_graph_pass_fold_constants(tvm_graph *g);
/* Folds the one node n as the pass would (Shape and Size always; a node
 * whose present inputs are all CONST through its reference when its
 * outputs hold at most max_elems elements, any size when max_elems < 0)
 * and removes it from g->nodes; *folded tells whether it was.  When it
 * was not and why is non-NULL, why receives the reason (an input known
 * only at run time, naming it; no reference; the reference's refusal).
 * Importers call it as they build, so that shape computations (Shape ->
 * Gather -> Concat -> Reshape) are constants when the consumer needs
 * them.  Fails only when evaluation fails (other than UNSUPPORTED). */
TVM_API tvm_status tvm_graph_fold_node(tvm_graph *g, tvm_gnode *n,
                                       int64_t max_elems, int *folded,
                                       char *why, size_t cap);

/* Inference simplification (run fold_constants first when weights are
 * computed by nodes: only CONST weights absorb a BatchNormalization):
 *  - Identity and inference Dropout are removed (as in fold_constants);
 *  - BatchNormalization in inference whose scale, bias, mean and variance
 *    are CONST float32: when its input is the only use of a Conv output
 *    (constant weights and bias), the normalization is folded into new
 *    Conv weights and bias; likewise for a Gemm (constant B, C) or a 2-D
 *    MatMul (constant B; the shift becomes an Add); otherwise it becomes
 *    Mul and Add with constant per-channel scale and shift
 *    (shape [C, 1, ..., 1]).
 * A new Add replacing the normalization's output takes its name; a Conv
 * or Gemm output that absorbed it keeps its own unless the graph returns
 * it. */
TVM_API tvm_status tvm_graph_pass_simplify_inference(tvm_graph *g);

/* ---- layout, fusion and memory (fuse_ops, alter_layout, plan_memory) ----- */
/* (declared here by the helpers that write them) */

/* Operator fusion (core/graph/passes/fuse_ops.c), the dominator-tree
 * algorithm of the TVM paper.  The post-dominator tree of the dataflow
 * graph is built (a value returned by the graph post-dominates nothing:
 * its producer ends a group), then, in topological order:
 *  - an out-elementwise-fusable node (Conv, Gemm, MatMul, pooling) fuses
 *    with everything up to its immediate post-dominator when the edges
 *    into it are elementwise and every node on every path between them is
 *    broadcast or lower (conv + bias + relu + residual add: one group);
 *  - an elementwise or broadcast node fuses likewise when every path is
 *    injective or lower and the post-dominator is injective or a
 *    reduction (chains collapse; reductions absorb their inputs);
 *  - then (second phase, so that anchors finish first) an injective node
 *    fuses when every path, post-dominator included, is injective or
 *    lower, or the post-dominator is a reduction.
 * Opaque nodes and reductions never fuse forward; nothing fuses into an
 * out-elementwise-fusable node (its compute stays the strategy's).
 * Groups hold at most 64 nodes.  Sets node->group to the group id; ids
 * number the groups in a topological order (0 first).  Sorts g first. */
TVM_API tvm_status tvm_graph_pass_fuse_ops(tvm_graph *g);

/* A fused group as a kernel sees it. */
typedef struct tvm_graph_group {
  int id;
  tvm_gnode **nodes;    /* topological order */
  int nnodes;
  tvm_gnode *anchor;    /* the node of highest pattern (first on ties) */
  tvm_gop_pattern pattern; /* the anchor's */
  tvm_gvalue **inputs;  /* values read from outside (other groups' outputs,
                           graph inputs, constants), first-use order */
  int ninputs;
  tvm_gvalue **outputs; /* values read by other groups or returned by the
                           graph, in node order */
  int noutputs;
} tvm_graph_group;

typedef struct tvm_graph_groups {
  tvm_graph_group *groups; /* index = group id: a topological order */
  int ngroups;
  tvm_arena *arena;        /* owns everything above */
} tvm_graph_groups;

/* Collects the groups of g from node->group (set by fuse_ops, or by the
 * caller: ids 0..n-1 in an order where producers come first).  Fails when
 * a node has no group, ids leave gaps, or a group reads a value produced
 * by a later group.  Free with tvm_graph_groups_free. */
TVM_API tvm_status tvm_graph_groups_collect(const tvm_graph *g,
                                            tvm_graph_groups **out);
TVM_API void tvm_graph_groups_free(tvm_graph_groups *gr);

/* Static memory planning (core/graph/passes/plan_memory.c).  The
 * activations (group outputs that are neither graph outputs nor graph
 * inputs nor constants) are assigned storage slots over the group order:
 * a value is live from its group's step to the last step that reads it;
 * a step's outputs take free slots (best fit: the closest size, growing a
 * slot when needed; else a new slot) before the slots of values it read
 * for the last time are freed, so no kernel reads and writes one slot.
 * With reuse == 0 every activation gets its own slot. */
typedef struct tvm_storage_plan {
  uint32_t nids;           /* slot has one entry per value id < nids */
  int32_t *slot;           /* storage slot of value id, -1 if none */
  uint32_t nslots;
  uint64_t *slot_bytes;    /* size of each slot */
  uint64_t planned_bytes;  /* sum of slot_bytes */
  uint64_t unplanned_bytes; /* sum of every activation's size */
  int32_t *slot_device;    /* device of each slot (value->device of the
                              values it holds: slots never span devices) */
} tvm_storage_plan;

TVM_API tvm_status tvm_graph_plan_memory(const tvm_graph *g,
                                         const tvm_graph_groups *gr,
                                         int reuse, tvm_storage_plan **out);
TVM_API void tvm_storage_plan_free(tvm_storage_plan *p);
/* Text of a plan for --dump-ir plan_memory: one line per slot with its
 * size and values ("slot 0 (802816 bytes): %conv1, %5"). */
TVM_API void tvm_storage_plan_print(tvm_strbuf *out, const tvm_graph *g,
                                    const tvm_storage_plan *p);

/* Layout alteration (core/graph/passes/alter_layout.c), the TVM paper's
 * data layout transformation.  For every 2-D Conv with constant weights
 * (and bias), query(ud, node, &choice) says which layouts the target wants
 * (tvm_target_alter_layout through the compiler); an empty choice.data
 * keeps the node.  A chosen Conv becomes Conv_NCHWc on data in
 * choice.data ("NCHW16c") with weights transformed to choice.weight
 * ("OIHW16i16o") by a LayoutTransform node on the constant (run
 * fold_constants afterwards to pack them at compile time), producing
 * choice.out.  Elementwise operators (one data input, the others scalars)
 * and broadcast arithmetic (Add Sub Mul Div Max Min) whose operands are
 * blocked follow the blocked layout: a per-channel constant ([C, 1, 1] or
 * [1, C, 1, 1]) is transformed to the blocking too, a plain activation of
 * the same shape gets a LayoutTransform.  MaxPool, GlobalAveragePool and
 * GlobalMaxPool of blocked data become Pool_NCHWc; a channel Concat of
 * operands whose channel counts the block divides concatenates the
 * blocked operands along the chunk axis.  Every other consumer, and every
 * graph output, reads a LayoutTransform back to the model's layout
 * (graph outputs keep their names).  LayoutTransforms between blocked
 * producers and consumers appear only where their blockings differ.
 * Matrix products with a constant right operand (MatMul with a 2-D B,
 * Gemm with transA = 0) are asked too: choice.weight "NK<nr>n" rewrites
 * the node to MatMul_packed reading B' packed as [ceil(N/nr), K, nr]
 * (a LayoutTransform with pad = 1 on the constant: the last panel
 * zero-padded); its output replaces the old one, same shape and name.
 * A Conv whose choice.weight is TVM_LAYOUT_WINOGRAD_F2X3 (data and out
 * "NCHW"; the target decides when it pays) becomes Conv2D_winograd
 * reading U = Conv2D_winograd_weight(W) (folded at compile time); its
 * output replaces the old one; a Conv it does not apply to (not 3x3,
 * stride or dilation not 1, group not 1, asymmetric padding) fails the
 * pass naming the node.  TVM_LAYOUT_WINOGRAD_F4X3 with data and out
 * "NCHW<b>c" likewise makes Conv2D_winograd_NCHWc (F(4x4, 3x3)) reading
 * U = Conv2D_winograd_weight_NCHWc(W), its output the blocked twin as a
 * Conv_NCHWc's would be; TVM_LAYOUT_WINOGRAD_F2X3 with "NCHW<b>c" the
 * same in tiles of 2 (F(2x2, 3x3)).  Ends with toposort and dce. */
typedef struct tvm_layout_choice {
  char data[32];   /* layout of the data input, "" = keep the node */
  char weight[32]; /* layout of the (constant) weights */
  char out[32];    /* layout of the output */
  /* the layout workload whose knobs made the choice ("" = none): stamped
   * on the new node (tvm_gnode.layout_workload) */
  char tuned[64];
  /* TVM_LAYOUT_FLAT_PIXELS: a Conv of group 1 (tvm_gnode_flat_pixels_
   * applies) becomes a Conv_NCHWc with attribute flat_pixels = 1 (its
   * convolution computed over the pixels flattened,
   * core/graph/ops/conv_nchwc.c) */
  uint32_t flags;
} tvm_layout_choice;
#define TVM_LAYOUT_FLAT_PIXELS 1u
typedef tvm_status (*tvm_layout_query_fn)(void *ud, const tvm_gnode *n,
                                          tvm_layout_choice *choice);
TVM_API tvm_status tvm_graph_pass_alter_layout(tvm_graph *g,
                                               tvm_layout_query_fn query,
                                               void *ud);
/* The layout query's side of tvm_gnode_layout_config: cfg answers for n
 * on this thread until the next call (n = NULL clears it). */
TVM_API void tvm_gnode_layout_config_set(const tvm_gnode *n,
                                         struct tvm_config *cfg);

/* Heterogeneous placement (core/graph/passes/place_devices.c,
 * plugin-sdk/docs/HETEROGENEOUS.md).  query(ud, node, &device) places
 * every node on device 0 (the target) or 1 (its fallback), or fails
 * naming the node nobody runs.  Graph inputs and constants then live on
 * the device of their first consumer; every edge from a value to a
 * consumer on the other device gets a DeviceCopy node on the consumer's
 * device (one per value and device, shared by the consumers there).  Sets
 * node->device and value->device; ends with toposort.  *ncopies (may be
 * NULL) = the copies inserted. */
typedef tvm_status (*tvm_place_query_fn)(void *ud, const tvm_gnode *n,
                                         int *device);
TVM_API tvm_status tvm_graph_pass_place_devices(tvm_graph *g,
                                                tvm_place_query_fn query,
                                                void *ud, int *ncopies);

/* Integer quantization (core/graph/passes/quantize.c) for a target that
 * asks for it (ABI 6 quantize; plugin-sdk/docs/QUANTIZATION.md): every
 * float 2-D Conv with constant weights whose batch, input and output
 * channels the blocks divide (group 1, no dilation, symmetric explicit
 * pads) becomes QuantizeLinear -> Reshape/Transpose into the blocks ->
 * QConv_blocked (int8, int32 sums, requantized by a right shift) ->
 * Transpose/Reshape back -> DequantizeLinear (the bias added to the
 * int32 sums, a Relu that is the Conv's only reader fused as the clip), with
 * per-tensor power-of-two scales (least squared error on the samples)
 * calibrated by running the float graph's reference on ncalib sample
 * inputs: the caller's (samples, when not NULL) or synthetic ones
 * (uniform in [-1, 1), seeds from seed).  accept(ud, qconv, &yes) asks whether the target runs the new
 * QConv_blocked node; a node it declines stays float.  *nquantized (may
 * be NULL) = the convolutions rewritten.  Ends with dce and toposort. */
/* The compiler's calibration (tvm_compile): two samples from seed 1001
 * (tvmc run's random inputs use seeds 1, 2, ...). */
#define TVM_QUANT_NCALIB 2
#define TVM_QUANT_SEED 1001
typedef struct tvm_quant_scheme {
  int block_batch, block_in, block_out; /* QConv_blocked's blocks */
  int ncalib;                           /* sample inputs, >= 1 */
  uint64_t seed;                        /* of the first sample */
  /* NULL: synthetic samples from seed.  Else the caller's ncalib samples
   * (calibration on real data): samples[k * ninputs + i] is sample k's
   * tensor for g->inputs[i], on the CPU, compact (strides NULL), of the
   * input's dtype and shape (a mismatch is refused, naming the input). */
  const DLTensor *const *samples;
} tvm_quant_scheme;
typedef tvm_status (*tvm_quant_accept_fn)(void *ud, const tvm_gnode *n,
                                          int *yes);
TVM_API tvm_status tvm_graph_pass_quantize(tvm_graph *g,
                                           const tvm_quant_scheme *s,
                                           tvm_quant_accept_fn accept,
                                           void *ud, int *nquantized);

/* ---- reference evaluation ------------------------------------------------- */
/* Runs g with every node's reference implementation, in g->nodes order: the
 * oracle of graph tests.  inputs[i] feeds g->inputs[i]; outputs[i]
 * receives g->outputs[i] and is allocated by the caller.  All tensors are
 * compact row-major CPU tensors (strides NULL or compact) whose dtype and
 * shape equal the graph value's.  Intermediates live on the heap and are
 * freed after their last use.  TVM_ERR_UNSUPPORTED names a node whose
 * operator has no reference. */
TVM_API tvm_status tvm_graph_eval_reference(const tvm_graph *g,
                                            const DLTensor *const *inputs,
                                            DLTensor *const *outputs);

#ifdef __cplusplus
}
#endif
#endif /* TVM_GRAPH_PASSES_H */
