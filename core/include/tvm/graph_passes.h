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
