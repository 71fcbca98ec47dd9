/*
 * core/frontend/onnx/versions.c - operator versions.  A model's opset
 * selects, for each operator, the newest version defined at or below it;
 * the operators (core/graph/ops) read "_opset" and implement the
 * attribute-to-input moves of every version (Split, ReduceX and Squeeze
 * axes, Pad pads, Clip bounds, Slice starts, Resize scales, TopK k,
 * Reshape's shape attribute...).  What this file adds:
 *  - the forms whose semantics the operators do not implement, refused
 *    naming the node, the operator, the version and what would work:
 *    legacy broadcasting (opset < 7: attribute broadcast = 1 with axis),
 *    BatchNormalization per activation (spatial = 0, opset < 9) or in
 *    training (is_test = 0, opset < 7), Dropout in training (is_test = 0,
 *    opset < 7), Pad-1 (attribute paddings);
 *  - the rewrites that map an old form onto the current one: Cast-1's
 *    string attribute "to" ("FLOAT") becomes the type code, Concat-1's
 *    missing axis becomes 1.
 */
#include <stdio.h>
#include <string.h>

#include "onnx_int.h"

/* The version of op selected by opset: the newest of versions[] (the
 * opsets where op changed, ascending) at or below opset. */
static int64_t selected(const int64_t *versions, int n, int64_t opset) {
  int64_t v = versions[0];
  for (int i = 0; i < n; i++)
    if (versions[i] <= opset)
      v = versions[i];
  return v;
}

/* The attribute called name of np, or NULL. */
static const Onnx__AttributeProto *attr_of(const Onnx__NodeProto *np,
                                           const char *name) {
  for (size_t i = 0; i < np->n_attribute; i++)
    if (!strcmp(onnx_str(np->attribute[i]->name), name))
      return np->attribute[i];
  return NULL;
}

/* An INT attribute's value, dflt when absent. */
static int64_t attr_i(const Onnx__NodeProto *np, const char *name,
                      int64_t dflt) {
  const Onnx__AttributeProto *a = attr_of(np, name);
  return a && a->has_i ? a->i : dflt;
}

/* The refusal: node, operator, version (and the opset that selected it),
 * why, what works. */
static tvm_status refuse(const char *node, const char *op, int64_t ver,
                         int64_t opset, const char *why, const char *fix) {
  return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                      "node '%s' (%s): opset %lld selects %s-%lld, whose %s "
                      "is not supported; %s",
                      node, op, (long long)opset, op, (long long)ver, why,
                      fix);
}

/* Operators with legacy broadcasting before opset 7. */
static int legacy_broadcast_op(const char *op) {
  static const char *const ops[] = {"Add", "Sub",   "Mul",  "Div",  "Pow",
                                    "And", "Or",    "Xor",  "Equal",
                                    "Less", "Greater", "PRelu"};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(op, ops[i]))
      return 1;
  return 0;
}

/* Checks node np (operator op, model opset) against the forms above. */
tvm_status onnx_check_version(const Onnx__NodeProto *np, const char *op,
                              const char *node, int64_t opset) {
  if (opset < 7 && legacy_broadcast_op(op) &&
      attr_i(np, "broadcast", 0) != 0) {
    static const int64_t v[] = {1, 6, 7};
    return refuse(node, op, selected(v, 3, opset), opset,
                  "legacy broadcasting (attribute broadcast = 1, B aligned "
                  "at 'axis')",
                  "re-export the model at opset 7 or later (numpy "
                  "broadcasting), or give B the full rank");
  }
  if (!strcmp(op, "BatchNormalization") && opset < 9 &&
      attr_i(np, "spatial", 1) == 0) {
    static const int64_t v[] = {1, 6, 7, 9};
    return refuse(node, op, selected(v, 4, opset), opset,
                  "per-activation normalization (spatial = 0)",
                  "spatial = 1 (per channel) is supported, as is opset 9 "
                  "and later");
  }
  if ((!strcmp(op, "BatchNormalization") || !strcmp(op, "Dropout")) &&
      opset < 7 && attr_i(np, "is_test", 1) == 0) {
    static const int64_t v[] = {1, 6, 7};
    return refuse(node, op, selected(v, 3, opset), opset,
                  "training form (is_test = 0)",
                  "this compiler runs inference only: export with is_test "
                  "= 1 (eval mode)");
  }
  if (!strcmp(op, "Pad") && opset < 2 && attr_of(np, "paddings"))
    return refuse(node, op, 1, opset, "attribute 'paddings'",
                  "Pad-2 and later (attribute or input 'pads') are "
                  "supported: re-export at opset 2 or later");
  return TVM_OK;
}

/* ONNX data type names of Cast-1's string attribute "to". */
static int64_t type_code(const char *name) {
  static const struct { const char *name; int64_t code; } t[] = {
      {"FLOAT", 1},   {"UINT8", 2},  {"INT8", 3},     {"UINT16", 4},
      {"INT16", 5},   {"INT32", 6},  {"INT64", 7},    {"STRING", 8},
      {"BOOL", 9},    {"FLOAT16", 10}, {"DOUBLE", 11}, {"UINT32", 12},
      {"UINT64", 13}, {"BFLOAT16", 16}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (!strcmp(name, t[i].name))
      return t[i].code;
  return -1;
}

/* Rewrites attribute k (converted into *a) of an old form onto the
 * current one; see the top of the file. */
tvm_status onnx_upgrade_attr(const char *op, const char *node, int64_t opset,
                             tvm_gattr *a) {
  if (!strcmp(op, "Cast") && opset < 6 && a->type == TVM_GATTR_STRING &&
      !strcmp(a->name, "to")) {
    int64_t code = type_code(a->s);
    if (code < 0)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "node '%s' (Cast-1): attribute 'to' = \"%s\" is "
                          "not an ONNX data type name",
                          node, a->s);
    *a = tvm_gattr_int("to", code);
  }
  return TVM_OK;
}

/* Attributes an old form leaves implicit: appended to attrs (*na grows,
 * room for one more is required). */
void onnx_default_attrs(const Onnx__NodeProto *np, const char *op,
                        int64_t opset, tvm_gattr *attrs, int *na) {
  if (!strcmp(op, "Concat") && opset < 4 && !attr_of(np, "axis"))
    attrs[(*na)++] = tvm_gattr_int("axis", 1);
}
