/*
 * core/graph/gnode_view.c - the plugin's view of a graph node: what an
 * alter_layout slot (and any other plugin code handed a tvm_gnode) may
 * read, as functions.  tvm_gnode and tvm_gvalue are not part of the
 * plugin contract (the graph layer grows them freely, see
 * plugin-sdk/docs/WRITING_A_PLUGIN.md, "What plugins see"); these
 * accessors are, together with the attribute readers of attrs.c
 * (tvm_gnode_int/float/str/ints).  Every one accepts NULL and indexes out
 * of range and answers "absent".
 */
#include <string.h>

#include "tvm/graph.h"
#include "tvm/graph_passes.h"

/* The registry name of n's operator ("Conv"), or "" for NULL. */
const char *tvm_gnode_op_name(const tvm_gnode *n) {
  return n && n->op ? n->op : "";
}

/* The node's name in the model (for messages), or "". */
const char *tvm_gnode_name(const tvm_gnode *n) {
  return n && n->name ? n->name : "";
}

/* Number of input slots (absent optional inputs included). */
int tvm_gnode_num_inputs(const tvm_gnode *n) { return n ? n->ninputs : 0; }

/* Number of outputs. */
int tvm_gnode_num_outputs(const tvm_gnode *n) { return n ? n->noutputs : 0; }

/* Value of input i (is_input) or output i, or NULL when absent. */
static const tvm_gvalue *value_of(const tvm_gnode *n, int i, int is_input) {
  if (!n) return NULL;
  if (is_input)
    return i >= 0 && i < n->ninputs && n->inputs ? n->inputs[i] : NULL;
  return i >= 0 && i < n->noutputs && n->outputs ? n->outputs[i] : NULL;
}

/* Copies v's shape into shape (TVM_MAX_DIMS entries) and returns its
 * rank, or -1 when v is absent. */
static int shape_of(const tvm_gvalue *v, int64_t *shape) {
  if (!v) return -1;
  if (shape) memcpy(shape, v->shape, sizeof(int64_t) * (size_t)v->ndim);
  return v->ndim;
}

/* Rank of input i with its dims in shape (room for TVM_MAX_DIMS; may be
 * NULL), or -1 when the input is absent. */
int tvm_gnode_input_shape(const tvm_gnode *n, int i, int64_t *shape) {
  return shape_of(value_of(n, i, 1), shape);
}

/* Same for output k (inferred shapes). */
int tvm_gnode_output_shape(const tvm_gnode *n, int k, int64_t *shape) {
  return shape_of(value_of(n, k, 0), shape);
}

/* Input i's dtype in *out: 0, or -1 when absent (out untouched). */
int tvm_gnode_input_dtype(const tvm_gnode *n, int i, tvm_dtype *out) {
  const tvm_gvalue *v = value_of(n, i, 1);
  if (!v) return -1;
  if (out) *out = v->dtype;
  return 0;
}

/* Output k's dtype in *out: 0, or -1 when absent. */
int tvm_gnode_output_dtype(const tvm_gnode *n, int k, tvm_dtype *out) {
  const tvm_gvalue *v = value_of(n, k, 0);
  if (!v) return -1;
  if (out) *out = v->dtype;
  return 0;
}

/* Input i's layout string ("NCHW16c"), or NULL for the operator's plain
 * convention (or an absent input). */
const char *tvm_gnode_input_layout(const tvm_gnode *n, int i) {
  const tvm_gvalue *v = value_of(n, i, 1);
  return v ? v->layout : NULL;
}

/* The node alter_layout is asking the target about on this thread, and
 * its layout knobs (tvm_gnode_layout_config). */
static _Thread_local const tvm_gnode *layout_node;
static _Thread_local struct tvm_config *layout_cfg;

void tvm_gnode_layout_config_set(const tvm_gnode *n, struct tvm_config *cfg) {
  layout_node = n;
  layout_cfg = n ? cfg : NULL;
}

struct tvm_config *tvm_gnode_layout_config(const tvm_gnode *n) {
  return n && n == layout_node ? layout_cfg : NULL;
}

/* 1 when input i is a compile-time constant (weights), else 0. */
int tvm_gnode_input_is_const(const tvm_gnode *n, int i) {
  const tvm_gvalue *v = value_of(n, i, 1);
  return v && v->kind == TVM_GV_CONST;
}
