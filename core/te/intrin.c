/*
 * core/te/intrin.c - declarations of tensor intrinsics (the pattern a
 * tensorize() call matches and the callback that emits target code).
 */
#include "te_int.h"

/* Declares a tensor intrinsic: pattern is a compute whose inputs are all
 * placeholders; emit builds the statements that replace a matched loop
 * nest.  Arena-allocated; NULL with a diagnostic on bad arguments. */
tvm_tensor_intrin *tvm_tensor_intrin_new(tvm_ctx *c, const char *name,
                                         tvm_tensor *pattern,
                                         tvm_intrin_emit_fn emit, void *data) {
  if (!name || !*name || !pattern || !emit) {
    tvm_diag_set(TVM_ERR_INVALID,
                 "tensor intrinsic %s: needs a name, a pattern and an emit "
                 "callback",
                 name ? name : "?");
    return NULL;
  }
  if (pattern->op->kind != TVM_OP_COMPUTE) {
    tvm_diag_set(TVM_ERR_INVALID,
                 "tensor intrinsic %s: the pattern %s must be a compute, not "
                 "a placeholder",
                 name, pattern->name);
    return NULL;
  }
  tvm_ptrvec in = {0};
  if (tvm_op_inputs(pattern->op, &in) != TVM_OK)
    return NULL;
  for (size_t i = 0; i < in.len; i++) {
    tvm_tensor *t = in.data[i];
    if (t->op->kind != TVM_OP_PLACEHOLDER) {
      tvm_diag_set(TVM_ERR_INVALID,
                   "tensor intrinsic %s: input %s of the pattern is computed; "
                   "a pattern may only read placeholders",
                   name, t->name);
      tvm_ptrvec_free(&in);
      return NULL;
    }
  }
  tvm_ptrvec_free(&in);
  tvm_tensor_intrin *ti = tvm_ctx_alloc(c, sizeof(*ti));
  if (!ti || !(ti->name = tvm_ctx_strdup(c, name))) {
    tvm_ctx_status(c);
    return NULL;
  }
  ti->pattern = pattern;
  ti->emit = emit;
  ti->data = data;
  return ti;
}
