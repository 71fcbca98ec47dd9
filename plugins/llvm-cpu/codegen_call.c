/*
 * codegen_call.c - calls: math intrinsics (LLVM intrinsics where LLVM has
 * one, libm otherwise, scalarized over vector lanes), bit operations,
 * builtins (likely, reinterpret, access_ptr) and extern C functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_cpu.h"

/* Declares (once) a C function `name` of type fty in the module. */
static LLVMValueRef declare_fn(lc_cg *cg, const char *name, LLVMTypeRef fty) {
  LLVMValueRef f = LLVMGetNamedFunction(cg->mod, name);
  if (!f) {
    f = LLVMAddFunction(cg->mod, name, fty);
    LLVMSetLinkage(f, LLVMExternalLinkage);
  }
  return f;
}

/* Calls the C function name on args of one lane each, lane by lane when
 * the values are vectors (libm has no vector entry points we can count
 * on).  rt is the scalar result type; vector arguments are split. */
static LLVMValueRef call_lanes(lc_cg *cg, const char *name, LLVMTypeRef rt,
                               LLVMValueRef *args, int nargs, int lanes) {
  LLVMTypeRef pt[8];
  if (nargs > 8) return lc_fail(cg, TVM_ERR_UNSUPPORTED, "call of '%s' with "
                                "more than 8 arguments", name);
  for (int i = 0; i < nargs; i++) {
    LLVMTypeRef t = LLVMTypeOf(args[i]);
    pt[i] = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
  }
  LLVMTypeRef fty = LLVMFunctionType(rt, pt, (unsigned)nargs, 0);
  LLVMValueRef f = declare_fn(cg, name, fty);
  if (lanes <= 1)
    return LLVMBuildCall2(cg->b, fty, f, args, (unsigned)nargs, "");
  LLVMValueRef out = LLVMGetPoison(LLVMVectorType(rt, (unsigned)lanes));
  for (int l = 0; l < lanes; l++) {
    LLVMValueRef a[8];
    LLVMValueRef li = LLVMConstInt(cg->t_i32, (unsigned long long)l, 0);
    for (int i = 0; i < nargs; i++)
      a[i] = LLVMGetTypeKind(LLVMTypeOf(args[i])) == LLVMVectorTypeKind
                 ? LLVMBuildExtractElement(cg->b, args[i], li, "")
                 : args[i];
    LLVMValueRef r = LLVMBuildCall2(cg->b, fty, f, a, (unsigned)nargs, "");
    out = LLVMBuildInsertElement(cg->b, out, r, li, "");
  }
  return out;
}

/* A libm function of one or two float arguments (tanh, erf): float32 and
 * narrower go through the "f" variant, float64 through the plain one. */
static LLVMValueRef libm(lc_cg *cg, const char *base, const tvm_expr *e,
                         LLVMValueRef *args, int nargs) {
  tvm_dtype t = e->dtype;
  int lanes = t.lanes;
  char name[32];
  if (t.bits == 64) {
    snprintf(name, sizeof name, "%s", base);
    return call_lanes(cg, name, cg->t_f64, args, nargs, lanes);
  }
  snprintf(name, sizeof name, "%sf", base);
  if (t.bits == 32) return call_lanes(cg, name, cg->t_f32, args, nargs, lanes);
  /* half / bfloat: compute in float */
  LLVMTypeRef ft = lanes > 1 ? LLVMVectorType(cg->t_f32, (unsigned)lanes)
                             : cg->t_f32;
  LLVMValueRef a[8];
  for (int i = 0; i < nargs && i < 8; i++)
    a[i] = LLVMBuildFPExt(cg->b, args[i], ft, "");
  LLVMValueRef r = call_lanes(cg, name, cg->t_f32, a, nargs, lanes);
  return r ? LLVMBuildFPTrunc(cg->b, r, lc_type(cg, t), "") : NULL;
}

/* A float constant of the type of v (splatted for vectors). */
static LLVMValueRef fconst_like(lc_cg *cg, LLVMValueRef v, double x) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
    return lc_broadcast(cg, LLVMConstReal(LLVMGetElementType(t), x),
                        (int)LLVMGetVectorSize(t));
  return LLVMConstReal(t, x);
}

/* Emits the math intrinsics on evaluated, lane-matched args.  round is
 * round-half-to-even (nearbyint), as in TVM, numpy and ONNX, and as the
 * core's reference evaluator computes it. */
static LLVMValueRef math(lc_cg *cg, const tvm_expr *e, LLVMValueRef *a,
                         int n) {
  static const struct { tvm_intrin op; const char *llvm; int nargs; } direct[] = {
      {TVM_INTRIN_EXP, "llvm.exp", 1},     {TVM_INTRIN_LOG, "llvm.log", 1},
      {TVM_INTRIN_SQRT, "llvm.sqrt", 1},   {TVM_INTRIN_FABS, "llvm.fabs", 1},
      {TVM_INTRIN_FLOOR, "llvm.floor", 1}, {TVM_INTRIN_CEIL, "llvm.ceil", 1},
      {TVM_INTRIN_ROUND, "llvm.nearbyint", 1}, {TVM_INTRIN_TRUNC, "llvm.trunc", 1},
      {TVM_INTRIN_FMA, "llvm.fma", 3},     {TVM_INTRIN_POW, "llvm.pow", 2},
      {TVM_INTRIN_SIN, "llvm.sin", 1},     {TVM_INTRIN_COS, "llvm.cos", 1},
  };
  tvm_intrin op = e->u.call.op;
  int vf32 = e->dtype.code == kDLFloat && e->dtype.bits == 32 &&
             e->dtype.lanes > 1 && n == 1;
  if (vf32 && op == TVM_INTRIN_EXP) return lc_vexp_f32(cg, a[0]);
  if (vf32 && op == TVM_INTRIN_TANH) return lc_vtanh_f32(cg, a[0]);
  if (vf32 && op == TVM_INTRIN_ERF) return lc_verf_f32(cg, a[0]);
  if (!tvm_dtype_is_float(e->dtype) && e->dtype.code != kDLBfloat &&
      op != TVM_INTRIN_ISNAN)
    return lc_fail(cg, TVM_ERR_INVALID,
                   "math intrinsic '%s' of a non-float type (cast the "
                   "argument to a float type first)", tvm_intrin_name(op));
  for (size_t i = 0; i < sizeof direct / sizeof direct[0]; i++) {
    if (direct[i].op != op) continue;
    if (n != direct[i].nargs)
      return lc_fail(cg, TVM_ERR_INVALID, "'%s' takes %d arguments, got %d",
                     tvm_intrin_name(op), direct[i].nargs, n);
    LLVMTypeRef ty = LLVMTypeOf(a[0]);
    return lc_intrinsic(cg, direct[i].llvm, &ty, 1, a, n);
  }
  if (n != 1)
    return lc_fail(cg, TVM_ERR_INVALID, "'%s' takes 1 argument, got %d",
                   tvm_intrin_name(op), n);
  LLVMTypeRef ty = LLVMTypeOf(a[0]);
  switch (op) {
  case TVM_INTRIN_RSQRT: {
    LLVMValueRef s = lc_intrinsic(cg, "llvm.sqrt", &ty, 1, a, 1);
    return LLVMBuildFDiv(cg->b, fconst_like(cg, a[0], 1.0), s, "rsqrt");
  }
  case TVM_INTRIN_SIGMOID: {
    /* 1 / (1 + exp(-x)): exp(-x) = inf for very negative x gives 0 */
    LLVMValueRef nx = LLVMBuildFNeg(cg->b, a[0], "");
    LLVMValueRef ex = vf32 ? lc_vexp_f32(cg, nx)
                           : lc_intrinsic(cg, "llvm.exp", &ty, 1, &nx, 1);
    LLVMValueRef one = fconst_like(cg, a[0], 1.0);
    return LLVMBuildFDiv(cg->b, one, LLVMBuildFAdd(cg->b, one, ex, ""),
                         "sigmoid");
  }
  case TVM_INTRIN_TANH: return libm(cg, "tanh", e, a, 1);
  case TVM_INTRIN_ERF: return libm(cg, "erf", e, a, 1);
  case TVM_INTRIN_ISNAN:
    return LLVMBuildFCmp(cg->b, LLVMRealUNO, a[0], a[0], "isnan");
  default:
    return lc_fail(cg, TVM_ERR_UNSUPPORTED, "intrinsic '%s' is not supported",
                   tvm_intrin_name(op));
  }
}

/* access_ptr(buffer_var, elem_dtype_str, offset, extent, rw_mask): the
 * address of buffer_var[offset] in elements of the named type. */
static LLVMValueRef access_ptr(lc_cg *cg, const tvm_expr *e) {
  if (e->u.call.nargs < 3 || e->u.call.args[0]->kind != TVM_VAR)
    return lc_fail(cg, TVM_ERR_INVALID,
                   "access_ptr needs (buffer_var, dtype, offset, ...)");
  tvm_dtype el = TVM_F32;
  const tvm_expr *ds = e->u.call.args[1];
  if (ds->kind == TVM_STR && tvm_dtype_parse(ds->u.str, &el) != TVM_OK)
    return lc_fail(cg, TVM_ERR_INVALID, "access_ptr: bad dtype '%s'", ds->u.str);
  LLVMValueRef base = lc_expr(cg, e->u.call.args[0]);
  LLVMValueRef off = lc_expr(cg, e->u.call.args[2]);
  if (!base || !off) return NULL;
  return lc_elem_ptr(cg, base, el, off);
}

/* Emits a call expression. */
LLVMValueRef lc_call(lc_cg *cg, const tvm_expr *e) {
  tvm_intrin op = e->u.call.op;
  int n = e->u.call.nargs;
  if (op == TVM_INTRIN_ACCESS_PTR) return access_ptr(cg, e);
  if (op == TVM_INTRIN_DEP_PUSH || op == TVM_INTRIN_DEP_POP)
    return lc_fail(cg, TVM_ERR_UNSUPPORTED,
                   "'%s' needs hardware queues; llvm-cpu has none (lower "
                   "with num_queues = 0)", tvm_intrin_name(op));
  LLVMValueRef a[8];
  if (n > 8)
    return lc_fail(cg, TVM_ERR_UNSUPPORTED, "call with %d arguments (max 8)", n);
  int lanes = e->dtype.lanes;
  for (int i = 0; i < n; i++) {
    a[i] = lc_expr(cg, e->u.call.args[i]);
    if (!a[i]) return NULL;
    if (op != TVM_INTRIN_EXTERN && op != TVM_INTRIN_REINTERPRET)
      a[i] = lc_broadcast(cg, a[i], lanes);
  }
  switch (op) {
  case TVM_INTRIN_EXTERN: {
    if (!e->u.call.name || !e->u.call.name[0])
      return lc_fail(cg, TVM_ERR_INVALID, "extern call without a name");
    LLVMTypeRef rt = lc_type(cg, tvm_dtype_element(e->dtype));
    int vl = lanes;
    for (int i = 0; i < n; i++) {
      LLVMTypeRef t = LLVMTypeOf(a[i]);
      if (LLVMGetTypeKind(t) == LLVMVectorTypeKind &&
          (int)LLVMGetVectorSize(t) != vl)
        return lc_fail(cg, TVM_ERR_INVALID,
                       "extern '%s': argument %d has %u lanes, result %d",
                       e->u.call.name, i, LLVMGetVectorSize(t), vl);
    }
    /* C passes _Bool as a zero-extended byte */
    for (int i = 0; i < n; i++)
      if (tvm_dtype_is_bool(e->u.call.args[i]->dtype)) {
        int al = e->u.call.args[i]->dtype.lanes;
        a[i] = LLVMBuildZExt(cg->b, a[i],
                             al > 1 ? LLVMVectorType(cg->t_i8, (unsigned)al)
                                    : cg->t_i8, "");
      }
    if (tvm_dtype_is_bool(e->dtype)) {
      LLVMValueRef r = call_lanes(cg, e->u.call.name, cg->t_i8, a, n, vl);
      return r ? LLVMBuildICmp(cg->b, LLVMIntNE, r, LLVMConstNull(LLVMTypeOf(r)), "")
               : NULL;
    }
    return call_lanes(cg, e->u.call.name, rt, a, n, vl);
  }
  case TVM_INTRIN_LIKELY:
    return n == 1 ? a[0] : lc_fail(cg, TVM_ERR_INVALID, "likely takes 1 arg");
  case TVM_INTRIN_REINTERPRET: {
    if (n != 1) return lc_fail(cg, TVM_ERR_INVALID, "reinterpret takes 1 arg");
    LLVMTypeRef rt = lc_type(cg, e->dtype);
    if (LLVMGetTypeKind(LLVMTypeOf(a[0])) == LLVMPointerTypeKind)
      return LLVMBuildPtrToInt(cg->b, a[0], rt, "");
    if (LLVMGetTypeKind(rt) == LLVMPointerTypeKind)
      return LLVMBuildIntToPtr(cg->b, a[0], rt, "");
    return LLVMBuildBitCast(cg->b, a[0], rt, "");
  }
  case TVM_INTRIN_SHL: case TVM_INTRIN_SHR: case TVM_INTRIN_BITAND:
  case TVM_INTRIN_BITOR: case TVM_INTRIN_BITXOR: {
    if (n != 2) return lc_fail(cg, TVM_ERR_INVALID, "'%s' takes 2 arguments",
                               tvm_intrin_name(op));
    if (LLVMTypeOf(a[0]) != LLVMTypeOf(a[1]))
      a[1] = LLVMBuildIntCast2(cg->b, a[1], LLVMTypeOf(a[0]), 0, "");
    switch (op) {
    case TVM_INTRIN_SHL: return LLVMBuildShl(cg->b, a[0], a[1], "");
    case TVM_INTRIN_SHR:
      return tvm_dtype_is_uint(e->dtype) ? LLVMBuildLShr(cg->b, a[0], a[1], "")
                                         : LLVMBuildAShr(cg->b, a[0], a[1], "");
    case TVM_INTRIN_BITAND: return LLVMBuildAnd(cg->b, a[0], a[1], "");
    case TVM_INTRIN_BITOR: return LLVMBuildOr(cg->b, a[0], a[1], "");
    default: return LLVMBuildXor(cg->b, a[0], a[1], "");
    }
  }
  default:
    return math(cg, e, a, n);
  }
}
