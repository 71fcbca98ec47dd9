/*
 * codegen_expr.c - TIR expressions to LLVM IR: constants, arithmetic
 * (floor division with correct negative semantics), comparisons, logic,
 * casts, vectors (ramp, broadcast) and lets.  Loads and stores live in
 * codegen_memory.c, calls in codegen_call.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_cpu.h"

/* The LLVM type of a TIR value of dtype t (bool is i1, handle is ptr). */
LLVMTypeRef lc_type(lc_cg *cg, tvm_dtype t) {
  LLVMTypeRef el;
  if (t.code == TVM_DTYPE_HANDLE)
    el = cg->t_ptr;
  else if (t.code == kDLFloat)
    el = t.bits == 16   ? LLVMHalfTypeInContext(cg->ctx)
         : t.bits == 64 ? cg->t_f64
                        : cg->t_f32;
  else if (t.code == kDLBfloat)
    el = LLVMBFloatTypeInContext(cg->ctx);
  else
    el = LLVMIntTypeInContext(cg->ctx, t.bits ? t.bits : 32);
  return t.lanes > 1 ? LLVMVectorType(el, t.lanes) : el;
}

/* The type a value of dtype t has in memory (bool occupies a byte). */
LLVMTypeRef lc_mem_type(lc_cg *cg, tvm_dtype t) {
  if (tvm_dtype_is_bool(t)) {
    return t.lanes > 1 ? LLVMVectorType(cg->t_i8, t.lanes) : cg->t_i8;
  }
  return lc_type(cg, t);
}

/* Repeats scalar v across lanes (v itself when lanes == 1). */
LLVMValueRef lc_broadcast(lc_cg *cg, LLVMValueRef v, int lanes) {
  if (lanes <= 1 || LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind)
    return v;
  LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(v), (unsigned)lanes);
  LLVMValueRef ins = LLVMBuildInsertElement(
      cg->b, LLVMGetPoison(vt), v, LLVMConstInt(cg->t_i32, 0, 0), "");
  LLVMValueRef mask =
      LLVMConstNull(LLVMVectorType(cg->t_i32, (unsigned)lanes));
  return LLVMBuildShuffleVector(cg->b, ins, LLVMGetPoison(vt), mask, "bcast");
}

/* Lane count of an LLVM value (1 for scalars). */
static int lanes_of(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? (int)LLVMGetVectorSize(t)
                                                  : 1;
}

/* Integer constant of TIR dtype t (splatted for vectors). */
static LLVMValueRef const_of(lc_cg *cg, tvm_dtype t, const tvm_expr *e) {
  LLVMTypeRef et = lc_type(cg, tvm_dtype_element(t));
  LLVMValueRef c;
  if (tvm_dtype_is_float(t) || t.code == kDLBfloat)
    c = LLVMConstReal(et, e->kind == TVM_FLOAT ? e->u.fval : (double)e->u.ival);
  else if (tvm_dtype_is_handle(t))
    c = LLVMConstNull(cg->t_ptr);
  else
    c = LLVMConstInt(et,
                     (unsigned long long)(e->kind == TVM_FLOAT
                                              ? (int64_t)e->u.fval
                                              : e->u.ival),
                     !tvm_dtype_is_uint(t));
  if (t.lanes <= 1) return c;
  LLVMValueRef *v = malloc(sizeof *v * t.lanes);
  if (!v) return lc_fail(cg, TVM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < t.lanes; i++) v[i] = c;
  LLVMValueRef r = LLVMConstVector(v, t.lanes);
  free(v);
  return r;
}

/* Integer constant value of e, looking through broadcasts. */
static int const_int(const tvm_expr *e, int64_t *v) {
  if (e->kind == TVM_BROADCAST) e = e->u.bcast.value;
  if (e->kind != TVM_INT) return 0;
  *v = e->u.ival;
  return 1;
}

/* Is e provably >= 0?  Uses unsigned types, constants, loop variables
 * whose range starts at or above 0, and closure under +, *, /, min, ... */
int lc_is_nonneg(lc_cg *cg, const tvm_expr *e) {
  if (!e) return 0;
  if (tvm_dtype_is_uint(e->dtype) || tvm_dtype_is_bool(e->dtype)) return 1;
  void *v;
  int64_t c;
  switch (e->kind) {
  case TVM_INT: return e->u.ival >= 0;
  case TVM_FLOAT: return e->u.fval >= 0;
  case TVM_VAR: return tvm_ptrmap_get(&cg->nonneg, e, &v) && v;
  case TVM_ADD: case TVM_MUL: case TVM_DIV: case TVM_FLOORDIV: case TVM_MIN:
    return lc_is_nonneg(cg, e->u.bin.a) && lc_is_nonneg(cg, e->u.bin.b);
  case TVM_MAX:
    return lc_is_nonneg(cg, e->u.bin.a) || lc_is_nonneg(cg, e->u.bin.b);
  case TVM_FLOORMOD:
    return const_int(e->u.bin.b, &c) && c > 0;
  case TVM_MOD:
    return lc_is_nonneg(cg, e->u.bin.a) && lc_is_nonneg(cg, e->u.bin.b);
  case TVM_CAST:
    return !tvm_dtype_is_float(e->dtype) && lc_is_nonneg(cg, e->u.un.a) &&
           !tvm_dtype_is_float(e->u.un.a->dtype);
  case TVM_RAMP:
    return lc_is_nonneg(cg, e->u.ramp.base) &&
           lc_is_nonneg(cg, e->u.ramp.stride);
  case TVM_BROADCAST: return lc_is_nonneg(cg, e->u.bcast.value);
  case TVM_SELECT:
    return lc_is_nonneg(cg, e->u.sel.t) && lc_is_nonneg(cg, e->u.sel.f);
  case TVM_LET: return lc_is_nonneg(cg, e->u.let.body);
  default: return 0;
  }
}

/* Signed/unsigned integer division family on values a, b of dtype t:
 * DIV/MOD truncate; FLOORDIV/FLOORMOD round toward minus infinity, with
 * shifts and masks for positive power-of-two divisors and plain division
 * when the dividend is provably non-negative. */
static LLVMValueRef int_div(lc_cg *cg, const tvm_expr *e, LLVMValueRef a,
                            LLVMValueRef b) {
  tvm_dtype t = e->dtype;
  int uns = tvm_dtype_is_uint(t) || tvm_dtype_is_bool(t);
  tvm_expr_kind k = e->kind;
  if (uns) {
    return (k == TVM_DIV || k == TVM_FLOORDIV) ? LLVMBuildUDiv(cg->b, a, b, "")
                                               : LLVMBuildURem(cg->b, a, b, "");
  }
  if (k == TVM_DIV) return LLVMBuildSDiv(cg->b, a, b, "");
  if (k == TVM_MOD) return LLVMBuildSRem(cg->b, a, b, "");
  LLVMTypeRef ty = LLVMTypeOf(a);
  int lanes = lanes_of(a);
  int64_t c;
  if (const_int(e->u.bin.b, &c) && c > 0) {
    if ((c & (c - 1)) == 0) {
      int sh = 0;
      while ((1LL << sh) < c) sh++;
      if (k == TVM_FLOORDIV) {
        LLVMValueRef s = lc_broadcast(
            cg, LLVMConstInt(LLVMGetTypeKind(ty) == LLVMVectorTypeKind
                                 ? LLVMGetElementType(ty)
                                 : ty,
                             (unsigned long long)sh, 0),
            lanes);
        return LLVMBuildAShr(cg->b, a, s, "fdiv");
      }
      LLVMValueRef m = lc_broadcast(
          cg, LLVMConstInt(LLVMGetTypeKind(ty) == LLVMVectorTypeKind
                               ? LLVMGetElementType(ty)
                               : ty,
                           (unsigned long long)(c - 1), 0),
          lanes);
      return LLVMBuildAnd(cg->b, a, m, "fmod");
    }
    if (lc_is_nonneg(cg, e->u.bin.a))
      return k == TVM_FLOORDIV ? LLVMBuildSDiv(cg->b, a, b, "")
                               : LLVMBuildSRem(cg->b, a, b, "");
  }
  /* general case: q = a / b, r = a % b; adjust when r != 0 and the signs
   * of r and b differ */
  LLVMValueRef zero = LLVMConstNull(ty);
  LLVMValueRef q = LLVMBuildSDiv(cg->b, a, b, "q");
  LLVMValueRef r = LLVMBuildSRem(cg->b, a, b, "r");
  LLVMValueRef rnz = LLVMBuildICmp(cg->b, LLVMIntNE, r, zero, "");
  LLVMValueRef sdiff = LLVMBuildICmp(
      cg->b, LLVMIntSLT, LLVMBuildXor(cg->b, r, b, ""), zero, "");
  LLVMValueRef adj = LLVMBuildAnd(cg->b, rnz, sdiff, "adj");
  if (k == TVM_FLOORDIV)
    return LLVMBuildSub(cg->b, q, LLVMBuildZExt(cg->b, adj, ty, ""), "fdiv");
  return LLVMBuildSelect(cg->b, adj, LLVMBuildAdd(cg->b, r, b, ""), r, "fmod");
}

/* Calls an LLVM intrinsic overloaded on tys. */
LLVMValueRef lc_intrinsic(lc_cg *cg, const char *name, LLVMTypeRef *tys,
                          int ntys, LLVMValueRef *args, int nargs) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id) return lc_fail(cg, TVM_ERR_INTERNAL, "no LLVM intrinsic %s", name);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, tys, (size_t)ntys);
  LLVMTypeRef fty = LLVMIntrinsicGetType(cg->ctx, id, tys, (size_t)ntys);
  return LLVMBuildCall2(cg->b, fty, fn, args, (unsigned)nargs, "");
}

/* Is e a float multiplication that can fuse into an add of dtype t? */
static int fusable_mul(const tvm_expr *e, tvm_dtype t) {
  return e->kind == TVM_MUL && tvm_dtype_is_float(e->dtype) &&
         tvm_dtype_eq(e->dtype, t);
}

/* Float a*b + c (and the subtractions) as llvm.fmuladd, which LLVM turns
 * into one FMA instruction where the target has one: the contraction C
 * compilers and TVM apply by default. */
static LLVMValueRef mul_add(lc_cg *cg, const tvm_expr *e) {
  const tvm_expr *mul, *other;
  int mul_first = fusable_mul(e->u.bin.a, e->dtype);
  if (mul_first) {
    mul = e->u.bin.a;
    other = e->u.bin.b;
  } else {
    mul = e->u.bin.b;
    other = e->u.bin.a;
  }
  int lanes = e->dtype.lanes;
  LLVMValueRef x = lc_expr(cg, mul->u.bin.a), y = lc_expr(cg, mul->u.bin.b);
  LLVMValueRef z = lc_expr(cg, other);
  if (!x || !y || !z) return NULL;
  x = lc_broadcast(cg, x, lanes);
  y = lc_broadcast(cg, y, lanes);
  z = lc_broadcast(cg, z, lanes);
  if (e->kind == TVM_SUB) {
    if (mul_first)
      z = LLVMBuildFNeg(cg->b, z, ""); /* x*y - z */
    else
      x = LLVMBuildFNeg(cg->b, x, ""); /* z - x*y */
  }
  LLVMTypeRef ty = LLVMTypeOf(x);
  LLVMValueRef args[3] = {x, y, z};
  return lc_intrinsic(cg, "llvm.fmuladd", &ty, 1, args, 3);
}

/* Binary arithmetic, min/max. */
static LLVMValueRef arith(lc_cg *cg, const tvm_expr *e) {
  if ((e->kind == TVM_ADD || e->kind == TVM_SUB) &&
      tvm_dtype_is_float(e->dtype) && e->dtype.bits >= 32 &&
      (fusable_mul(e->u.bin.a, e->dtype) || fusable_mul(e->u.bin.b, e->dtype)))
    return mul_add(cg, e);
  LLVMValueRef a = lc_expr(cg, e->u.bin.a);
  LLVMValueRef b = lc_expr(cg, e->u.bin.b);
  if (!a || !b) return NULL;
  int lanes = e->dtype.lanes;
  a = lc_broadcast(cg, a, lanes);
  b = lc_broadcast(cg, b, lanes);
  tvm_dtype t = e->dtype;
  int fl = tvm_dtype_is_float(t) || t.code == kDLBfloat;
  int sgn = !fl && !tvm_dtype_is_uint(t) && !tvm_dtype_is_bool(t) &&
            !tvm_dtype_is_handle(t);
  switch (e->kind) {
  case TVM_ADD:
    return fl ? LLVMBuildFAdd(cg->b, a, b, "")
           : sgn ? LLVMBuildNSWAdd(cg->b, a, b, "")
                 : LLVMBuildAdd(cg->b, a, b, "");
  case TVM_SUB:
    return fl ? LLVMBuildFSub(cg->b, a, b, "")
           : sgn ? LLVMBuildNSWSub(cg->b, a, b, "")
                 : LLVMBuildSub(cg->b, a, b, "");
  case TVM_MUL:
    return fl ? LLVMBuildFMul(cg->b, a, b, "")
           : sgn ? LLVMBuildNSWMul(cg->b, a, b, "")
                 : LLVMBuildMul(cg->b, a, b, "");
  case TVM_DIV:
    if (fl) return LLVMBuildFDiv(cg->b, a, b, "");
    return int_div(cg, e, a, b);
  case TVM_MOD:
    if (fl) return LLVMBuildFRem(cg->b, a, b, "");
    return int_div(cg, e, a, b);
  case TVM_FLOORDIV:
  case TVM_FLOORMOD:
    if (fl) {
      LLVMTypeRef ty = LLVMTypeOf(a);
      LLVMValueRef d = LLVMBuildFDiv(cg->b, a, b, "");
      LLVMValueRef fd = lc_intrinsic(cg, "llvm.floor", &ty, 1, &d, 1);
      if (e->kind == TVM_FLOORDIV) return fd;
      return LLVMBuildFSub(cg->b, a, LLVMBuildFMul(cg->b, fd, b, ""), "");
    }
    return int_div(cg, e, a, b);
  case TVM_MIN:
  case TVM_MAX: {
    LLVMValueRef lt =
        fl ? LLVMBuildFCmp(cg->b, LLVMRealOLT, a, b, "")
           : LLVMBuildICmp(cg->b, sgn ? LLVMIntSLT : LLVMIntULT, a, b, "");
    return e->kind == TVM_MIN ? LLVMBuildSelect(cg->b, lt, a, b, "min")
                              : LLVMBuildSelect(cg->b, lt, b, a, "max");
  }
  default:
    return lc_fail(cg, TVM_ERR_INTERNAL, "bad arithmetic kind");
  }
}

/* Comparisons; operands' dtype picks float / signed / unsigned. */
static LLVMValueRef compare(lc_cg *cg, const tvm_expr *e) {
  LLVMValueRef a = lc_expr(cg, e->u.bin.a);
  LLVMValueRef b = lc_expr(cg, e->u.bin.b);
  if (!a || !b) return NULL;
  int lanes = lanes_of(a) > lanes_of(b) ? lanes_of(a) : lanes_of(b);
  a = lc_broadcast(cg, a, lanes);
  b = lc_broadcast(cg, b, lanes);
  tvm_dtype t = e->u.bin.a->dtype;
  if (tvm_dtype_is_float(t) || t.code == kDLBfloat) {
    static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE,
                                           LLVMRealOLT, LLVMRealOLE,
                                           LLVMRealOGT, LLVMRealOGE};
    return LLVMBuildFCmp(cg->b, fp[e->kind - TVM_EQ], a, b, "");
  }
  int uns = tvm_dtype_is_uint(t) || tvm_dtype_is_bool(t) ||
            tvm_dtype_is_handle(t);
  static const LLVMIntPredicate sp[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntSLT,
                                        LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
  static const LLVMIntPredicate up[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntULT,
                                        LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
  return LLVMBuildICmp(cg->b, (uns ? up : sp)[e->kind - TVM_EQ], a, b, "");
}

/* Converts v (TIR type from) to TIR type to. */
static LLVMValueRef convert(lc_cg *cg, LLVMValueRef v, tvm_dtype from,
                            tvm_dtype to) {
  if (to.lanes > 1 && lanes_of(v) == 1) v = lc_broadcast(cg, v, to.lanes);
  /* 16-bit floats go through float32 by integer operations
   * (codegen_half.c) */
  int fh = (from.code == kDLFloat && from.bits == 16) ||
           from.code == kDLBfloat;
  int th = (to.code == kDLFloat && to.bits == 16) || to.code == kDLBfloat;
  if (fh && th && from.code == to.code) return v;
  tvm_dtype f32 = tvm_dtype_with_lanes(TVM_F32, lanes_of(v));
  if (fh) {
    v = lc_half_to_f32(cg, v, from.code == kDLBfloat, lanes_of(v));
    return tvm_dtype_eq(tvm_dtype_element(to), TVM_F32)
               ? v
               : convert(cg, v, f32, to);
  }
  if (th) {
    if (!tvm_dtype_eq(tvm_dtype_element(from), TVM_F32))
      v = convert(cg, v, from, tvm_dtype_with_lanes(TVM_F32, to.lanes));
    return v ? lc_f32_to_half(cg, v, to.code == kDLBfloat, lanes_of(v))
             : NULL;
  }
  LLVMTypeRef ty = lc_type(cg, tvm_dtype_with_lanes(to, lanes_of(v)));
  int ffl = tvm_dtype_is_float(from) || from.code == kDLBfloat;
  int tfl = tvm_dtype_is_float(to) || to.code == kDLBfloat;
  if (tvm_dtype_is_handle(to)) {
    if (tvm_dtype_is_handle(from)) return v;
    return LLVMBuildIntToPtr(cg->b, v, ty, "");
  }
  if (tvm_dtype_is_handle(from)) {
    if (tfl) return lc_fail(cg, TVM_ERR_INVALID, "cast of a handle to float");
    return LLVMBuildPtrToInt(cg->b, v, ty, "");
  }
  if (tvm_dtype_is_bool(to)) {
    LLVMValueRef z = LLVMConstNull(LLVMTypeOf(v));
    return ffl ? LLVMBuildFCmp(cg->b, LLVMRealUNE, v, z, "")
               : LLVMBuildICmp(cg->b, LLVMIntNE, v, z, "");
  }
  int fsigned = !tvm_dtype_is_uint(from) && !tvm_dtype_is_bool(from);
  if (ffl && tfl) return LLVMBuildFPCast(cg->b, v, ty, "");
  if (ffl && to.bits < 32) {
    /* to 8 or 16 bits through int32, then truncated: a value past the
     * narrow type (within int32's range) wraps as the reference's C
     * conversion through int64 does, on every ISA (a direct fptosi is
     * poison there: AVX2's lowering saturated 11^5 to 127 in int8,
     * AVX-512's wrapped it to 27) */
    LLVMTypeRef it = lc_type(cg, tvm_dtype_with_lanes(TVM_I32, lanes_of(v)));
    return LLVMBuildTrunc(cg->b, LLVMBuildFPToSI(cg->b, v, it, ""), ty, "");
  }
  if (ffl)
    return tvm_dtype_is_uint(to) ? LLVMBuildFPToUI(cg->b, v, ty, "")
                                 : LLVMBuildFPToSI(cg->b, v, ty, "");
  if (tfl)
    return fsigned ? LLVMBuildSIToFP(cg->b, v, ty, "")
                   : LLVMBuildUIToFP(cg->b, v, ty, "");
  return LLVMBuildIntCast2(cg->b, v, ty, fsigned, "");
}

/* base + stride * <0, 1, ..., lanes-1>. */
static LLVMValueRef ramp(lc_cg *cg, const tvm_expr *e) {
  LLVMValueRef base = lc_expr(cg, e->u.ramp.base);
  LLVMValueRef stride = lc_expr(cg, e->u.ramp.stride);
  if (!base || !stride) return NULL;
  int n = e->u.ramp.lanes;
  LLVMTypeRef et = LLVMTypeOf(base);
  LLVMValueRef *v = malloc(sizeof *v * (size_t)n);
  if (!v) return lc_fail(cg, TVM_ERR_NOMEM, "out of memory");
  int fl = tvm_dtype_is_float(e->dtype);
  for (int i = 0; i < n; i++)
    v[i] = fl ? LLVMConstReal(et, i) : LLVMConstInt(et, (unsigned long long)i, 0);
  LLVMValueRef seq = LLVMConstVector(v, (unsigned)n);
  free(v);
  LLVMValueRef bb = lc_broadcast(cg, base, n), sb = lc_broadcast(cg, stride, n);
  if (fl)
    return LLVMBuildFAdd(cg->b, bb, LLVMBuildFMul(cg->b, sb, seq, ""), "ramp");
  return LLVMBuildNSWAdd(cg->b, bb, LLVMBuildNSWMul(cg->b, sb, seq, ""), "ramp");
}

/* Binds var to value for the extent of a let and returns the previous
 * binding (NULL when none). */
static void *bind(lc_cg *cg, const tvm_expr *var, LLVMValueRef v) {
  void *old = NULL;
  tvm_ptrmap_get(&cg->vars, var, &old);
  tvm_ptrmap_put(&cg->vars, var, v);
  return old;
}

/* Emits expression e at the builder's position; NULL after a failure
 * (reported through lc_fail). */
LLVMValueRef lc_expr(lc_cg *cg, const tvm_expr *e) {
  if (cg->status != TVM_OK) return NULL;
  if (!e) return lc_fail(cg, TVM_ERR_INVALID, "NULL expression");
  switch (e->kind) {
  case TVM_INT:
  case TVM_FLOAT:
    return const_of(cg, e->dtype, e);
  case TVM_STR:
    return LLVMBuildGlobalStringPtr(cg->b, e->u.str, "str");
  case TVM_VAR: {
    void *v = NULL;
    if (!tvm_ptrmap_get(&cg->vars, e, &v) || !v)
      return lc_fail(cg, TVM_ERR_INVALID,
                     "variable '%s' is used but not defined (a parameter "
                     "missing from the function's params?)",
                     e->u.var.name);
    return v;
  }
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_DIV: case TVM_MOD:
  case TVM_FLOORDIV: case TVM_FLOORMOD: case TVM_MIN: case TVM_MAX:
    return arith(cg, e);
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE:
    return compare(cg, e);
  case TVM_AND:
  case TVM_OR: {
    LLVMValueRef a = lc_expr(cg, e->u.bin.a), b = lc_expr(cg, e->u.bin.b);
    if (!a || !b) return NULL;
    a = lc_broadcast(cg, a, e->dtype.lanes);
    b = lc_broadcast(cg, b, e->dtype.lanes);
    return e->kind == TVM_AND ? LLVMBuildAnd(cg->b, a, b, "")
                              : LLVMBuildOr(cg->b, a, b, "");
  }
  case TVM_NOT: {
    LLVMValueRef a = lc_expr(cg, e->u.un.a);
    return a ? LLVMBuildNot(cg->b, a, "") : NULL;
  }
  case TVM_SELECT: {
    LLVMValueRef c = lc_expr(cg, e->u.sel.cond);
    LLVMValueRef a = lc_expr(cg, e->u.sel.t), b = lc_expr(cg, e->u.sel.f);
    if (!c || !a || !b) return NULL;
    a = lc_broadcast(cg, a, e->dtype.lanes);
    b = lc_broadcast(cg, b, e->dtype.lanes);
    return LLVMBuildSelect(cg->b, c, a, b, "");
  }
  case TVM_CAST: {
    LLVMValueRef a = lc_expr(cg, e->u.un.a);
    return a ? convert(cg, a, e->u.un.a->dtype, e->dtype) : NULL;
  }
  case TVM_CALL:
    return lc_call(cg, e);
  case TVM_LOAD:
    return lc_load(cg, e);
  case TVM_RAMP:
    return ramp(cg, e);
  case TVM_BROADCAST: {
    LLVMValueRef a = lc_expr(cg, e->u.bcast.value);
    return a ? lc_broadcast(cg, a, e->u.bcast.lanes) : NULL;
  }
  case TVM_LET: {
    LLVMValueRef v = lc_expr(cg, e->u.let.value);
    if (!v) return NULL;
    void *oldnn = NULL;
    tvm_ptrmap_get(&cg->nonneg, e->u.let.var, &oldnn);
    int nn = lc_is_nonneg(cg, e->u.let.value);
    void *old = bind(cg, e->u.let.var, v);
    tvm_ptrmap_put(&cg->nonneg, e->u.let.var, nn ? (void *)1 : NULL);
    LLVMValueRef r = lc_expr(cg, e->u.let.body);
    tvm_ptrmap_put(&cg->vars, e->u.let.var, old);
    tvm_ptrmap_put(&cg->nonneg, e->u.let.var, oldnn);
    return r;
  }
  case TVM_TREAD:
  case TVM_REDUCE: {
    char *at = tvm_expr_str(e);
    lc_fail(cg, TVM_ERR_INVALID,
            "unsupported expression kind '%s' at %.160s (run storage_flatten "
            "first: codegen takes flat loads and stores)",
            tvm_expr_kind_name(e->kind), at ? at : "?");
    tvm_free(at);
    return NULL;
  }
  default:
    return lc_fail(cg, TVM_ERR_UNSUPPORTED, "unsupported expression kind %d",
                   (int)e->kind);
  }
}
