/*
 * core/graph/ops/cast.c - Cast (attribute "to": an ONNX TensorProto data
 * type code: every integer type, bool, float16, bfloat16, float32 and
 * float64 (to bfloat16: truncating the bits before opset 19, rounding to
 * nearest even from 19); float to int truncates toward zero, to
 * bool is x != 0), CastLike (to input 1's dtype) and ConstantOfShape (a constant shape input; the fill value
 * is the optional one-element CONST input 1, which the ONNX importer makes from
 * the `value` attribute; float32 0 when absent).
 */
#include <stdint.h>
#include <string.h>

#include "ops_int.h"

/* The dtype of an ONNX TensorProto code, or 0 when unsupported. */
static int onnx_dtype(int64_t code, tvm_dtype *t) {
  switch (code) {
  case 1: *t = TVM_F32; return 1;
  case 2: *t = TVM_U8; return 1;
  case 3: *t = TVM_I8; return 1;
  case 4: *t = tvm_dt(kDLUInt, 16, 1); return 1;
  case 5: *t = TVM_I16; return 1;
  case 6: *t = TVM_I32; return 1;
  case 7: *t = TVM_I64; return 1;
  case 9: *t = TVM_BOOL; return 1;
  case 10: *t = TVM_F16; return 1;
  case 11: *t = TVM_F64; return 1;
  case 12: *t = TVM_U32; return 1;
  case 13: *t = tvm_dt(kDLUInt, 64, 1); return 1;
  case 16: *t = tvm_dt(kDLBfloat, 16, 1); return 1;
  }
  return 0;
}

/* The dtype of attribute "to", or a failure naming the code. */
static tvm_status cast_to(const tvm_gnode *n, tvm_dtype *t) {
  if (strcmp(n->op, "CastLike") == 0) {
    tvm_status st = op_check_dtype(n, 1, "target_type", DT_ALL);
    if (st)
      return st;
    *t = n->inputs[1]->dtype;
    return TVM_OK;
  }
  int64_t to;
  tvm_status st = op_attr_int(n, "to", -1, &to);
  if (st)
    return st;
  if (to < 0)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'to' (an ONNX data type code) is required");
  if (!onnx_dtype(to, t))
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "attribute 'to' = %lld: strings, complex numbers and 8-bit "
                   "floats are not supported (numbers and bool are)",
                   (long long)to);
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status cast_infer(tvm_graph *g, tvm_gnode *n) {
  tvm_dtype t;
  tvm_status st = op_check_dtype(n, 0, "input", DT_ALL);
  if (st || (st = cast_to(n, &t)))
    return st;
  op_set_out(n, 0, t, n->inputs[0]->ndim, n->inputs[0]->shape);
  return TVM_OK;
}

typedef struct cast_ud {
  tvm_tensor *x;
  tvm_dtype t;
  int trunc_bf16;
} cast_ud;

/* Before opset 19, Cast to bfloat16 truncates the float32 bits (as the
 * ONNX reference of those versions does, and their conformance data
 * expects); from 19 it rounds to nearest even. */
static int bf16_truncates(const tvm_gnode *n, tvm_dtype t) {
  return t.code == kDLBfloat && op_opset(n) < 19;
}

/* Converts one element (to bool: x != 0). */
static tvm_expr *cast_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cast_ud *u = ud;
  tvm_expr *v = tvm_tread(c, u->x, i, u->x->ndim);
  if (v && tvm_dtype_is_bool(u->t)) /* to bool: x != 0 */
    return tvm_ne(c, v, op_te_const(c, v->dtype, 0));
  if (v && u->trunc_bf16) {
    if (!tvm_dtype_eq(v->dtype, TVM_F32))
      v = tvm_cast(c, TVM_F32, v);
    tvm_expr *bits = tvm_call(c, TVM_U32, TVM_INTRIN_REINTERPRET, &v, 1);
    tvm_expr *a[2] = {bits, tvm_const(c, TVM_U32, 16)};
    tvm_expr *hi = tvm_cast(c, tvm_dt(kDLUInt, 16, 1),
                            tvm_call(c, TVM_U32, TVM_INTRIN_SHR, a, 2));
    return tvm_call(c, u->t, TVM_INTRIN_REINTERPRET, &hi, 1);
  }
  return tvm_cast(c, u->t, v);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status cast_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                               tvm_tensor **out) {
  cast_ud u = {in[0], TVM_F32, 0};
  tvm_status st = cast_to(n, &u.t);
  if (st)
    return st;
  u.trunc_bf16 = bf16_truncates(n, u.t);
  out[0] = op_te_compute_out(c, n, 0, "elemwise", cast_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status cast_reference(const tvm_gnode *n, const DLTensor *const *in,
                                 DLTensor *const *out) {
  int64_t len = op_dl_numel(in[0]);
  int to_bool = out[0]->dtype.code == kDLUInt && out[0]->dtype.bits == 1;
  int trunc = bf16_truncates(n, out[0]->dtype);
  for (int64_t e = 0; e < len; e++) {
    if (trunc) {
      float f = (float)op_dl_getf(in[0], e);
      uint32_t bits;
      memcpy(&bits, &f, 4);
      ((uint16_t *)out[0]->data)[e] = (uint16_t)(bits >> 16);
    } else if (to_bool)
      op_dl_seti(out[0], e, op_dl_getf(in[0], e) != 0);
    else if (!op_dl_is_float(in[0]) && op_dl_is_float(out[0]))
      op_dl_setf(out[0], e, in[0]->dtype.code == kDLUInt
                                ? (double)(uint64_t)op_dl_geti(in[0], e)
                                : (double)op_dl_geti(in[0], e));
    else if (!op_dl_is_float(in[0]))
      op_dl_seti(out[0], e, op_dl_geti(in[0], e));
    else if (op_dl_is_float(out[0]))
      op_dl_setf(out[0], e, op_dl_getf(in[0], e));
    else
      op_dl_seti(out[0], e, (int64_t)op_dl_getf(in[0], e)); /* truncates */
  }
  return TVM_OK;
}

/* ---- ConstantOfShape -------------------------------------------------- */
static tvm_status cos_info(const tvm_gnode *n, int64_t *shape, int *nd,
                           tvm_dtype *t, double *value) {
  tvm_status st = op_const_ints(n, 0, "input", shape, TVM_MAX_DIMS, nd);
  if (st)
    return st;
  for (int d = 0; d < *nd; d++)
    if (shape[d] < 0)
      return op_fail(n, TVM_ERR_INVALID, "shape[%d] = %lld is negative", d,
                     (long long)shape[d]);
  *t = TVM_F32;
  *value = 0;
  if (n->ninputs > 1 && n->inputs[1]) {
    if ((st = op_check_dtype(n, 1, "value", DT_ALL)) ||
        (st = op_const_scalar(n, 1, "value", value)))
      return st;
    *t = n->inputs[1]->dtype;
  }
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status cos_infer(tvm_graph *g, tvm_gnode *n) {
  int64_t shape[TVM_MAX_DIMS];
  int nd;
  tvm_dtype t;
  double v;
  tvm_status st = cos_info(n, shape, &nd, &t, &v);
  if (st)
    return st;
  op_set_out(n, 0, t, nd, shape);
  return TVM_OK;
}

typedef struct cos_ud {
  tvm_dtype t;
  double v;
} cos_ud;

/* The fill value. */
static tvm_expr *cos_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cos_ud *u = ud;
  return op_te_const(c, u->t, u->v);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status cos_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  int64_t shape[TVM_MAX_DIMS];
  int nd;
  cos_ud u;
  tvm_status st = cos_info(n, shape, &nd, &u.t, &u.v);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "elemwise", cos_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status cos_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  int64_t shape[TVM_MAX_DIMS];
  int nd;
  tvm_dtype t;
  double v;
  tvm_status st = cos_info(n, shape, &nd, &t, &v);
  if (st)
    return st;
  int64_t len = op_dl_numel(out[0]);
  for (int64_t e = 0; e < len; e++)
    op_dl_setf(out[0], e, v);
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Cast", 1, 1, 1, 1, TVM_PAT_ELEMWISE, cast_infer, cast_compute,
     cast_reference,
     "converts to the ONNX data type 'to' (float to int truncates)"},
    {"CastLike", 2, 2, 1, 1, TVM_PAT_ELEMWISE, cast_infer, cast_compute,
     cast_reference, "converts to the dtype of input 1 (target_type)"},
    {"ConstantOfShape", 1, 2, 1, 1, TVM_PAT_INJECTIVE, cos_infer, cos_compute,
     cos_reference,
     "a tensor of a constant shape filled with the value (float32 0)"},
};

const ops_family ops_cast_family = {defs, (int)(sizeof defs / sizeof defs[0])};
