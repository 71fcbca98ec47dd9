/*
 * core/frontend/onnx/control.c - ONNX control flow and sequences at
 * import.
 *
 * An `If` whose condition is known when the model is imported is replaced
 * by the nodes of the branch it takes.  Exporters emit such an If when
 * Python code branches on a tensor's size (the TorchScript exporter keeps
 * `if x.size(0) > 1:` as an If when that dimension is symbolic); once the
 * input shapes are fixed (`tvmc compile --input-shape`), the importer
 * folds the Shape -> Gather -> Greater -> Cast chain and the condition is
 * a constant.  The branch's initializers become constants, its nodes are
 * imported like the graph's own (reading outer values by name, nested Ifs
 * included), and the If's outputs name the branch's outputs.
 *
 * Everything else is refused with TVM_ERR_UNSUPPORTED and a message saying
 * what is accepted: an If whose condition is computed at run time (with
 * the chain of nodes that could not be folded), Loop, Scan, and the
 * sequence and optional operators.
 */
#include <stdio.h>
#include <string.h>

#include "onnx_int.h"

/* 1 when op (default domain) is control flow or a sequence/optional
 * operator: this file imports or refuses those. */
int onnx_is_control_op(const char *op) {
  static const char *const ops[] = {
      "If", "Loop", "Scan", "SequenceAt", "SequenceConstruct",
      "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength",
      "SequenceMap", "SplitToSequence", "ConcatFromSequence", "Optional",
      "OptionalGetElement", "OptionalHasElement"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strcmp(op, ops[i]) == 0)
      return 1;
  return 0;
}

/* The truth of a one-element CONST value c into *out. */
static tvm_status const_truth(const tvm_gvalue *c, const char *node,
                              int *out) {
  if (tvm_gvalue_numel(c) != 1 || !c->data)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (If): the condition '%s' must hold one "
                        "element, it holds %lld",
                        node, c->name, (long long)tvm_gvalue_numel(c));
  const unsigned char *p = c->data;
  int bytes = (c->dtype.bits + 7) / 8;
  if (c->dtype.code == kDLFloat && c->dtype.bits == 32) {
    float f;
    memcpy(&f, p, sizeof f);
    *out = f != 0;
  } else if (c->dtype.code == kDLFloat && c->dtype.bits == 64) {
    double d;
    memcpy(&d, p, sizeof d);
    *out = d != 0;
  } else if (c->dtype.code == kDLInt || c->dtype.code == kDLUInt) {
    int nz = 0;
    for (int b = 0; b < bytes; b++)
      nz |= p[b] != 0;
    *out = nz;
  } else {
    char b[32];
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "node '%s' (If): a condition of type %s is not "
                        "supported; ONNX wants bool",
                        node, tvm_dtype_str(c->dtype, b));
  }
  return TVM_OK;
}

/* The GRAPH attribute called name of np, or NULL. */
static const Onnx__GraphProto *graph_attr(const Onnx__NodeProto *np,
                                          const char *name) {
  for (size_t i = 0; i < np->n_attribute; i++)
    if (strcmp(onnx_str(np->attribute[i]->name), name) == 0)
      return np->attribute[i]->g;
  return NULL;
}

/* If with a constant condition: the taken branch's nodes in its place. */
static tvm_status import_if(importer *im, const Onnx__NodeProto *np,
                            const char *node, size_t idx) {
  if (np->n_input != 1 || !onnx_str(np->input[0])[0])
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (If) must have one input, the condition",
                        node);
  const char *cname = np->input[0];
  tvm_gvalue *cond = tvm_strmap_get(&im->values, cname);
  if (!cond)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (If): its condition '%s' is not defined "
                        "by a graph input, an initializer or an earlier node",
                        node, cname);
  if (cond->kind != TVM_GV_CONST) {
    tvm_status st = tvm_diag_set(
        TVM_ERR_UNSUPPORTED,
        "node '%s' (If): its condition '%s' is computed at run time; only "
        "an If whose condition is known at import is supported (one "
        "computed from input shapes and constants is folded and the branch "
        "it takes replaces the If): fix symbolic input dimensions with "
        "`tvmc compile --input-shape NAME=DIMS`, or export the model "
        "without data-dependent control flow",
        node, cname);
    return onnx_explain_nonconst(im, &cond, 1, st);
  }
  int taken = 0;
  tvm_status st = const_truth(cond, node, &taken);
  if (st)
    return st;
  const char *which = taken ? "then_branch" : "else_branch";
  const Onnx__GraphProto *br = graph_attr(np, which);
  if (!br)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (If): the condition is %s but the node "
                        "has no graph attribute '%s'",
                        node, taken ? "true" : "false", which);
  if (br->n_output != np->n_output)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (If): its %s has %zu outputs, the node "
                        "%zu",
                        node, which, br->n_output, np->n_output);
  /* outputs of the branch that are outer values keep their names */
  int outer[64];
  if (br->n_output > 64)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "node '%s' (If) has %zu outputs; at most 64 are "
                        "supported", node, br->n_output);
  for (size_t k = 0; k < br->n_output; k++)
    outer[k] = tvm_strmap_get(&im->values,
                              onnx_str(br->output[k]->name)) != NULL;
  for (size_t i = 0; i < br->n_initializer; i++) {
    const Onnx__TensorProto *t = br->initializer[i];
    const char *name = onnx_str(t->name);
    char what[400];
    tvm_gvalue *v;
    snprintf(what, sizeof what, "node '%s' (If): %s initializer '%s'", node,
             which, name);
    if ((st = onnx_add_const(im, name, t, what, &v)) ||
        (st = onnx_define_value(im, name, v, what)))
      return st;
  }
  for (size_t i = 0; i < br->n_node; i++)
    if ((st = onnx_import_node(im, br->node[i], idx)))
      return tvm_diag_prefix(st, "in the %s of node '%s' (If): ", which,
                             node);
  for (size_t k = 0; k < br->n_output; k++) {
    const char *bname = onnx_str(br->output[k]->name);
    const char *oname = onnx_str(np->output[k]);
    tvm_gvalue *v = tvm_strmap_get(&im->values, bname);
    if (!v)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "node '%s' (If): output %zu '%s' of its %s is not "
                          "produced by any of its nodes",
                          node, k, bname, which);
    if (!oname[0])
      continue;
    char by[400];
    snprintf(by, sizeof by, "node '%s' (If)", node);
    if (outer[k]) { /* an outer value: another name for it */
      if (tvm_strmap_get(&im->values, oname))
        return onnx_define_value(im, oname, v, by); /* the error */
      if ((st = tvm_strmap_put(&im->values, oname, v)))
        return st;
    } else if ((st = onnx_define_value(im, oname, v, by))) {
      return st;
    }
  }
  return TVM_OK;
}

/* Imports or refuses a node for which onnx_is_control_op is 1. */
tvm_status onnx_import_control(importer *im, const Onnx__NodeProto *np,
                               const char *node, size_t idx) {
  const char *op = onnx_str(np->op_type);
  if (strcmp(op, "If") == 0)
    return import_if(im, np, node, idx);
  if (strcmp(op, "Loop") == 0 || strcmp(op, "Scan") == 0)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "node '%s' (%s): loops are not supported (of the "
                        "control flow operators only If with a condition "
                        "known at import is); export the model with the "
                        "loop unrolled (a Python loop over a fixed range "
                        "traces to straight-line code)",
                        node, op);
  return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                      "node '%s' (%s): sequence and optional values are not "
                      "supported (only tensors are); export the model with "
                      "tensors in place of lists (torch.stack/torch.cat "
                      "rather than a list output)",
                      node, op);
}
