/*
 * plugins/vulkan/codegen_expr.c - SPIR-V for the expressions of loop IR:
 * types, constants, conversions, arithmetic (integer division as the IR
 * defines it), comparisons, GLSL.std.450 math, loads (see codegen.c for
 * the kernel as a whole).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codegen_int.h"

/* Records the first error (the diagnostic names the kernel). */
uint32_t cg_fail(cg *g, tvm_status st, const char *fmt, ...) {
  if (g->st) return 0;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  g->st = tvm_diag_set(st, "vulkan: kernel %s: %s", g->f->name, msg);
  return 0;
}

void cg_fail_more(cg *g, const char *fmt, ...) {
  if (!g->st || tvm_diag_status() != g->st) return;
  char msg[600], more[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(more, sizeof more, fmt, ap);
  va_end(ap);
  snprintf(msg, sizeof msg, "%s %s", tvm_diag_message(), more);
  tvm_diag_set(g->st, "%s", msg);
}

/* ---- types ------------------------------------------------------------- */

/* The SPIR-V type of a scalar dtype, or 0 (with the error recorded).
 * 8- and 16-bit types need the target's int8 / int16 / float16
 * attributes (the device's shaderInt8 / shaderInt16 / shaderFloat16,
 * checked again when the module is loaded). */
uint32_t cg_type(cg *g, tvm_dtype t) {
  char b[32];
  if (t.lanes != 1)
    return cg_fail(g, TVM_ERR_UNSUPPORTED,
                "vector value of type %s (vulkan kernels are scalar)",
                tvm_dtype_str(t, b));
  if (tvm_dtype_is_bool(t)) return spv_t_bool(&g->m);
  if (tvm_dtype_is_float(t)) {
    if (t.code == kDLFloat &&
        (t.bits == 32 || (t.bits == 64 && g->t->float64) ||
         (t.bits == 16 && g->t->float16)))
      return spv_t_float(&g->m, t.bits);
  } else if (tvm_dtype_is_int(t)) {
    if (t.bits == 32 || (t.bits == 64 && g->t->int64) ||
        (t.bits == 16 && g->t->int16) || (t.bits == 8 && g->t->int8))
      return spv_t_int(&g->m, t.bits, !tvm_dtype_is_uint(t));
  }
  const char *attr = t.bits == 64 ? (tvm_dtype_is_float(t) ? "float64" : "int64")
                     : t.bits == 16 ? (tvm_dtype_is_float(t) ? "float16" : "int16")
                     : t.bits == 8 ? "int8" : NULL;
  if (attr && (t.code == kDLInt || t.code == kDLUInt || t.code == kDLFloat))
    return cg_fail(g, TVM_ERR_UNSUPPORTED,
                   "type %s needs the device feature %s; the target sets "
                   "attrs.%s to false",
                   tvm_dtype_str(t, b),
                   !strcmp(attr, "float64") ? "shaderFloat64"
                   : !strcmp(attr, "int64") ? "shaderInt64"
                   : !strcmp(attr, "float16") ? "shaderFloat16"
                   : !strcmp(attr, "int16") ? "shaderInt16" : "shaderInt8",
                   attr);
  return cg_fail(g, TVM_ERR_UNSUPPORTED,
              "type %s is not supported (bool, 8/16/32/64-bit integers, "
              "float16/32/64; not bfloat16 or other widths)",
              tvm_dtype_str(t, b));
}

int cg_is_float(tvm_dtype t) { return tvm_dtype_is_float(t); }
int cg_is_signed(tvm_dtype t) { return t.code == kDLInt; }

/* An instruction with a result: returns the result id. */
uint32_t cg_op2(cg *g, uint32_t op, uint32_t type, uint32_t a,
                    uint32_t b) {
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, op, type, id, a, b);
  return id;
}
uint32_t cg_op1(cg *g, uint32_t op, uint32_t type, uint32_t a) {
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, op, type, id, a);
  return id;
}
uint32_t cg_glsl1(cg *g, uint32_t type, uint32_t inst, uint32_t a) {
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, SpvOpExtInst, type, id, g->m.glsl, inst, a);
  return id;
}
uint32_t cg_glsl2(cg *g, uint32_t type, uint32_t inst, uint32_t a,
                      uint32_t b) {
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, SpvOpExtInst, type, id, g->m.glsl, inst, a, b);
  return id;
}

/* A constant of dtype t. */
uint32_t cg_const(cg *g, tvm_dtype t, double fv, int64_t iv) {
  uint32_t ty = cg_type(g, t);
  if (!ty) return 0;
  if (tvm_dtype_is_bool(t)) return spv_c_bool(&g->m, iv != 0);
  if (cg_is_float(t) && t.bits == 16) /* the float32 constant, rounded */
    return cg_op1(g, SpvOpFConvert, ty,
                  spv_c_float(&g->m, spv_t_float(&g->m, 32), 32, fv));
  if (cg_is_float(t)) return spv_c_float(&g->m, ty, t.bits, fv);
  if (t.bits < 32) /* the literal: sign-extended if signed, else zero */
    iv = cg_is_signed(t) ? (t.bits == 8 ? (int8_t)iv : (int16_t)iv)
                         : (int64_t)((uint64_t)iv & ((1u << t.bits) - 1));
  return spv_c_int(&g->m, ty, t.bits, iv);
}


/* ---- memory ---------------------------------------------------------------- */

/* A pointer to element `index` of the buffer behind handle var b. */
uint32_t cg_elem_ptr(cg *g, const tvm_expr *b, const tvm_expr *index,
                     int *bool8) {
  void *p = NULL;
  *bool8 = 0;
  if (!tvm_ptrmap_get(&g->bufs, b, &p))
    return cg_fail(g, TVM_ERR_INVALID, "buffer %s is neither a parameter nor "
                                    "allocated in the kernel",
                b->u.var.name);
  bufinfo *bi = p;
  *bool8 = bi->bool8;
  uint32_t idx = cg_expr(g, index);
  if (!idx) return 0;
  uint32_t pt = spv_t_ptr(&g->m, bi->storage, bi->elem);
  uint32_t id = spv_id(&g->m);
  if (bi->sb)
    SPV(&g->m, &g->body, SpvOpAccessChain, pt, id, bi->var,
        spv_c_uint32(&g->m, 0), idx);
  else
    SPV(&g->m, &g->body, SpvOpAccessChain, pt, id, bi->var, idx);
  return id;
}

/* ---- expressions ---------------------------------------------------------- */

uint32_t cg_op3(cg *g, uint32_t op, uint32_t type, uint32_t a,
                    uint32_t b, uint32_t c) {
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, op, type, id, a, b, c);
  return id;
}

/* Converts value v of type from to type to. */
uint32_t cg_convert(cg *g, uint32_t v, tvm_dtype from, tvm_dtype to) {
  uint32_t ty = cg_type(g, to);
  if (!ty || !v) return 0;
  if (tvm_dtype_eq(from, to)) return v;
  if (tvm_dtype_is_bool(to))
    return cg_op2(g, cg_is_float(from) ? SpvOpFUnordNotEqual : SpvOpINotEqual, ty,
               v, cg_const(g, from, 0, 0));
  if (tvm_dtype_is_bool(from))
    return cg_op3(g, SpvOpSelect, ty, v, cg_const(g, to, 1, 1),
               cg_const(g, to, 0, 0));
  if (cg_is_float(from) && cg_is_float(to)) return cg_op1(g, SpvOpFConvert, ty, v);
  if (cg_is_float(from) && to.bits < 32) {
    /* to a narrower integer through int32: OpConvertFToS/U is undefined
     * for a value out of the result type's range; through int32 it wraps
     * as the reference and llvm-cpu do (within int32's range) */
    tvm_dtype i32 = tvm_dt(kDLInt, 32, to.lanes);
    return cg_convert(g, cg_convert(g, v, from, i32), i32, to);
  }
  if (cg_is_float(from))
    return cg_op1(g, cg_is_signed(to) ? SpvOpConvertFToS : SpvOpConvertFToU, ty, v);
  if (cg_is_float(to))
    return cg_op1(g, cg_is_signed(from) ? SpvOpConvertSToF : SpvOpConvertUToF, ty,
               v);
  if (from.bits != to.bits) {
    /* change the width keeping the source's signedness, then reinterpret */
    tvm_dtype mid = to;
    mid.code = from.code;
    uint32_t mt = cg_type(g, mid);
    if (!mt) return 0;
    v = cg_op1(g, cg_is_signed(from) ? SpvOpSConvert : SpvOpUConvert, mt, v);
    if (mid.code == to.code) return v;
  }
  return cg_op1(g, SpvOpBitcast, ty, v);
}

/* erf(x) by Abramowitz-Stegun 7.1.26. */
static uint32_t erf_poly(cg *g, uint32_t ty, tvm_dtype t, uint32_t x) {
  static const double a[5] = {0.254829592, -0.284496736, 1.421413741,
                              -1.453152027, 1.061405429};
  uint32_t ax = cg_glsl1(g, ty, GLSLstd450FAbs, x);
  uint32_t one = cg_const(g, t, 1, 1);
  uint32_t den = cg_op2(g, SpvOpFAdd, ty, one,
                     cg_op2(g, SpvOpFMul, ty, cg_const(g, t, 0.3275911, 0), ax));
  uint32_t k = cg_op2(g, SpvOpFDiv, ty, one, den);
  uint32_t poly = cg_const(g, t, a[4], 0);
  for (int i = 3; i >= 0; i--)
    poly = cg_op2(g, SpvOpFAdd, ty, cg_const(g, t, a[i], 0),
               cg_op2(g, SpvOpFMul, ty, poly, k));
  poly = cg_op2(g, SpvOpFMul, ty, poly, k);
  uint32_t e = cg_glsl1(g, ty, GLSLstd450Exp,
                     cg_op1(g, SpvOpFNegate, ty, cg_op2(g, SpvOpFMul, ty, ax, ax)));
  uint32_t y = cg_op2(g, SpvOpFSub, ty, one, cg_op2(g, SpvOpFMul, ty, poly, e));
  uint32_t neg = cg_op2(g, SpvOpFOrdLessThan, spv_t_bool(&g->m), x,
                     cg_const(g, t, 0, 0));
  return cg_op3(g, SpvOpSelect, ty, neg, cg_op1(g, SpvOpFNegate, ty, y), y);
}

static uint32_t call(cg *g, const tvm_expr *e, uint32_t ty) {
  tvm_expr *const *a = e->u.call.args;
  int n = e->u.call.nargs;
  tvm_dtype t = e->dtype;
  if (e->u.call.op == TVM_INTRIN_EXTERN)
    return cg_fail(g, TVM_ERR_UNSUPPORTED,
                "call of external function %s (vulkan kernels call no "
                "functions)",
                e->u.call.name ? e->u.call.name : "?");
  /* GLSL.std.450's exponentials, logarithms, powers and trigonometry
   * take 16- and 32-bit floats only */
  static const tvm_intrin f32_only[] = {
      TVM_INTRIN_EXP, TVM_INTRIN_LOG, TVM_INTRIN_TANH, TVM_INTRIN_SIN,
      TVM_INTRIN_COS, TVM_INTRIN_POW, TVM_INTRIN_SIGMOID, TVM_INTRIN_ERF};
  if (cg_is_float(t) && t.bits == 64)
    for (size_t i = 0; i < sizeof f32_only / sizeof *f32_only; i++)
      if (e->u.call.op == f32_only[i])
        return cg_fail(g, TVM_ERR_UNSUPPORTED,
                       "float64 %s: GLSL.std.450 has no 64-bit exp, log, "
                       "pow or trigonometry (compute it in float32)",
                       tvm_intrin_name(e->u.call.op));
  uint32_t x = n > 0 ? cg_expr(g, a[0]) : 0, y = n > 1 ? cg_expr(g, a[1]) : 0;
  if (g->st) return 0;
  static const struct { tvm_intrin op; uint32_t inst; } math[] = {
      {TVM_INTRIN_EXP, GLSLstd450Exp},     {TVM_INTRIN_LOG, GLSLstd450Log},
      {TVM_INTRIN_SQRT, GLSLstd450Sqrt},
      {TVM_INTRIN_RSQRT, GLSLstd450InverseSqrt},
      {TVM_INTRIN_TANH, GLSLstd450Tanh},   {TVM_INTRIN_FABS, GLSLstd450FAbs},
      {TVM_INTRIN_FLOOR, GLSLstd450Floor}, {TVM_INTRIN_CEIL, GLSLstd450Ceil},
      /* ties to even, as rint and llvm.nearbyint: GLSL's Round leaves
       * the direction of a .5 to the implementation */
      {TVM_INTRIN_ROUND, GLSLstd450RoundEven},
      {TVM_INTRIN_TRUNC, GLSLstd450Trunc},
      {TVM_INTRIN_SIN, GLSLstd450Sin},     {TVM_INTRIN_COS, GLSLstd450Cos},
  };
  for (size_t i = 0; i < sizeof math / sizeof *math; i++)
    if (math[i].op == e->u.call.op && cg_is_float(t))
      return cg_glsl1(g, ty, math[i].inst, x);
  switch (e->u.call.op) {
  case TVM_INTRIN_POW: { /* C's pow: GLSL's is undefined for x < 0 */
    uint32_t bt = spv_t_bool(&g->m), zero = cg_const(g, t, 0, 0);
    uint32_t p = cg_glsl2(g, ty, GLSLstd450Pow,
                          cg_glsl1(g, ty, GLSLstd450FAbs, x), y);
    uint32_t fy = cg_glsl1(g, ty, GLSLstd450Floor, y);
    uint32_t isint = cg_op2(g, SpvOpFOrdEqual, bt, fy, y);
    uint32_t half = cg_op2(g, SpvOpFMul, ty, y, cg_const(g, t, 0.5, 0));
    uint32_t odd = cg_op2(g, SpvOpLogicalAnd, bt, isint,
                          cg_op2(g, SpvOpFUnordNotEqual, bt,
                                 cg_glsl1(g, ty, GLSLstd450Floor, half),
                                 half));
    uint32_t neg = cg_op2(g, SpvOpFOrdLessThan, bt, x, zero);
    uint32_t signed_p = cg_op3(g, SpvOpSelect, ty, odd,
                               cg_op1(g, SpvOpFNegate, ty, p), p);
    uint32_t nan = cg_const(g, t, NAN, 0);
    uint32_t negres = cg_op3(g, SpvOpSelect, ty, isint, signed_p, nan);
    return cg_op3(g, SpvOpSelect, ty, neg, negres, p);
  }
  case TVM_INTRIN_FMA: {
    uint32_t z = cg_expr(g, a[2]), id = spv_id(&g->m);
    SPV(&g->m, &g->body, SpvOpExtInst, ty, id, g->m.glsl, GLSLstd450Fma, x,
        y, z);
    return id;
  }
  case TVM_INTRIN_SIGMOID: { /* 1 / (1 + exp(-x)) */
    uint32_t one = cg_const(g, t, 1, 1);
    uint32_t ex = cg_glsl1(g, ty, GLSLstd450Exp, cg_op1(g, SpvOpFNegate, ty, x));
    return cg_op2(g, SpvOpFDiv, ty, one, cg_op2(g, SpvOpFAdd, ty, one, ex));
  }
  case TVM_INTRIN_ERF: return erf_poly(g, ty, t, x);
  case TVM_INTRIN_ISNAN: return cg_op1(g, SpvOpIsNan, ty, x);
  case TVM_INTRIN_SHL: return cg_op2(g, SpvOpShiftLeftLogical, ty, x, y);
  case TVM_INTRIN_SHR:
    return cg_op2(g, cg_is_signed(t) ? SpvOpShiftRightArithmetic
                               : SpvOpShiftRightLogical,
               ty, x, y);
  case TVM_INTRIN_BITAND: return cg_op2(g, SpvOpBitwiseAnd, ty, x, y);
  case TVM_INTRIN_BITOR: return cg_op2(g, SpvOpBitwiseOr, ty, x, y);
  case TVM_INTRIN_BITXOR: return cg_op2(g, SpvOpBitwiseXor, ty, x, y);
  case TVM_INTRIN_LIKELY: return x;
  case TVM_INTRIN_REINTERPRET: return cg_op1(g, SpvOpBitcast, ty, x);
  default:
    return cg_fail(g, TVM_ERR_UNSUPPORTED,
                "intrinsic %s is not supported in vulkan kernels",
                tvm_intrin_name(e->u.call.op));
  }
}

/* Signed truncating remainder (the dividend's sign) without OpSRem: the
 * Vulkan environment leaves OpSRem and OpSMod undefined when an operand
 * is negative (NVIDIA's driver does return other values than lavapipe for
 * 64-bit operands), so it is UMod of the magnitudes, negated when the
 * dividend is negative. */
static uint32_t srem_int(cg *g, uint32_t ty, tvm_dtype t, uint32_t a,
                         uint32_t b) {
  uint32_t bt = spv_t_bool(&g->m), zero = cg_const(g, t, 0, 0);
  uint32_t an = cg_op2(g, SpvOpSLessThan, bt, a, zero);
  uint32_t bn = cg_op2(g, SpvOpSLessThan, bt, b, zero);
  uint32_t uty = spv_t_int(&g->m, t.bits, 0);
  uint32_t ua = cg_op3(g, SpvOpSelect, ty, an, cg_op1(g, SpvOpSNegate, ty, a), a);
  uint32_t ub = cg_op3(g, SpvOpSelect, ty, bn, cg_op1(g, SpvOpSNegate, ty, b), b);
  uint32_t ur = cg_op2(g, SpvOpUMod, uty, cg_op1(g, SpvOpBitcast, uty, ua),
                       cg_op1(g, SpvOpBitcast, uty, ub));
  uint32_t r = cg_op1(g, SpvOpBitcast, ty, ur);
  return cg_op3(g, SpvOpSelect, ty, an, cg_op1(g, SpvOpSNegate, ty, r), r);
}

/* Integer floor division: SDiv minus one when the remainder is non-zero
 * and its sign differs from the divisor's. */
static uint32_t floordiv_int(cg *g, uint32_t ty, tvm_dtype t, uint32_t a,
                             uint32_t b) {
  uint32_t q = cg_op2(g, SpvOpSDiv, ty, a, b), r = srem_int(g, ty, t, a, b);
  uint32_t bt = spv_t_bool(&g->m), zero = cg_const(g, t, 0, 0);
  uint32_t nz = cg_op2(g, SpvOpINotEqual, bt, r, zero);
  uint32_t rn = cg_op2(g, SpvOpSLessThan, bt, r, zero);
  uint32_t bn = cg_op2(g, SpvOpSLessThan, bt, b, zero);
  uint32_t fix = cg_op2(g, SpvOpLogicalAnd, bt, nz,
                     cg_op2(g, SpvOpLogicalNotEqual, bt, rn, bn));
  return cg_op3(g, SpvOpSelect, ty, fix,
             cg_op2(g, SpvOpISub, ty, q, cg_const(g, t, 1, 1)), q);
}

/* Integer floor modulo: the truncating remainder plus the divisor when
 * it is non-zero and its sign differs from the divisor's (OpSMod would
 * mean the same, but is undefined for negative operands in Vulkan). */
static uint32_t floormod_int(cg *g, uint32_t ty, tvm_dtype t, uint32_t a,
                             uint32_t b) {
  uint32_t r = srem_int(g, ty, t, a, b);
  uint32_t bt = spv_t_bool(&g->m), zero = cg_const(g, t, 0, 0);
  uint32_t nz = cg_op2(g, SpvOpINotEqual, bt, r, zero);
  uint32_t rn = cg_op2(g, SpvOpSLessThan, bt, r, zero);
  uint32_t bn = cg_op2(g, SpvOpSLessThan, bt, b, zero);
  uint32_t fix = cg_op2(g, SpvOpLogicalAnd, bt, nz,
                     cg_op2(g, SpvOpLogicalNotEqual, bt, rn, bn));
  return cg_op3(g, SpvOpSelect, ty, fix, cg_op2(g, SpvOpIAdd, ty, r, b), r);
}

/* Comparison opcode for kind k on operands of type t. */
uint32_t cg_cmp_op(tvm_expr_kind k, tvm_dtype t) {
  int f = cg_is_float(t), s = cg_is_signed(t), b = tvm_dtype_is_bool(t);
  switch (k) {
  case TVM_EQ: return f ? SpvOpFOrdEqual : b ? SpvOpLogicalEqual : SpvOpIEqual;
  case TVM_NE:
    return f ? SpvOpFUnordNotEqual : b ? SpvOpLogicalNotEqual : SpvOpINotEqual;
  case TVM_LT: return f ? SpvOpFOrdLessThan : s ? SpvOpSLessThan : SpvOpULessThan;
  case TVM_LE:
    return f ? SpvOpFOrdLessThanEqual
             : s ? SpvOpSLessThanEqual : SpvOpULessThanEqual;
  case TVM_GT:
    return f ? SpvOpFOrdGreaterThan : s ? SpvOpSGreaterThan : SpvOpUGreaterThan;
  default:
    return f ? SpvOpFOrdGreaterThanEqual
             : s ? SpvOpSGreaterThanEqual : SpvOpUGreaterThanEqual;
  }
}

uint32_t cg_expr(cg *g, const tvm_expr *e) {
  if (g->st || !e) return 0;
  tvm_dtype t = e->dtype;
  switch (e->kind) {
  case TVM_INT: return cg_const(g, t, (double)e->u.ival, e->u.ival);
  case TVM_FLOAT: return cg_const(g, t, e->u.fval, (int64_t)e->u.fval);
  case TVM_VAR: {
    void *p = NULL;
    if (tvm_ptrmap_get(&g->vals, e, &p)) return (uint32_t)(uintptr_t)p;
    if (tvm_ptrmap_get(&g->ptrs, e, &p))
      return cg_op1(g, SpvOpLoad, cg_type(g, t), (uint32_t)(uintptr_t)p);
    return cg_fail(g, TVM_ERR_INVALID, "variable %s is not defined",
                e->u.var.name);
  }
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_DIV: case TVM_MOD:
  case TVM_FLOORDIV: case TVM_FLOORMOD: case TVM_MIN: case TVM_MAX: {
    uint32_t ty = cg_type(g, t), a = cg_expr(g, e->u.bin.a),
             b = cg_expr(g, e->u.bin.b);
    if (g->st) return 0;
    int f = cg_is_float(t), s = cg_is_signed(t);
    switch (e->kind) {
    case TVM_ADD: return cg_op2(g, f ? SpvOpFAdd : SpvOpIAdd, ty, a, b);
    case TVM_SUB: return cg_op2(g, f ? SpvOpFSub : SpvOpISub, ty, a, b);
    case TVM_MUL: return cg_op2(g, f ? SpvOpFMul : SpvOpIMul, ty, a, b);
    case TVM_DIV:
      return cg_op2(g, f ? SpvOpFDiv : s ? SpvOpSDiv : SpvOpUDiv, ty, a, b);
    case TVM_MOD:
      if (s && !f) return srem_int(g, ty, t, a, b);
      return cg_op2(g, f ? SpvOpFRem : SpvOpUMod, ty, a, b);
    case TVM_FLOORDIV:
      if (f) return cg_glsl1(g, ty, GLSLstd450Floor,
                          cg_op2(g, SpvOpFDiv, ty, a, b));
      return s ? floordiv_int(g, ty, t, a, b) : cg_op2(g, SpvOpUDiv, ty, a, b);
    case TVM_FLOORMOD:
      if (s) return floormod_int(g, ty, t, a, b);
      return cg_op2(g, f ? SpvOpFMod : SpvOpUMod, ty, a, b);
    case TVM_MIN:
      return cg_glsl2(g, ty, f ? GLSLstd450FMin : s ? GLSLstd450SMin
                                                 : GLSLstd450UMin, a, b);
    default:
      return cg_glsl2(g, ty, f ? GLSLstd450FMax : s ? GLSLstd450SMax
                                                 : GLSLstd450UMax, a, b);
    }
  }
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE: {
    uint32_t a = cg_expr(g, e->u.bin.a), b = cg_expr(g, e->u.bin.b);
    if (g->st) return 0;
    return cg_op2(g, cg_cmp_op(e->kind, e->u.bin.a->dtype), spv_t_bool(&g->m), a,
               b);
  }
  case TVM_AND: case TVM_OR: {
    uint32_t a = cg_expr(g, e->u.bin.a), b = cg_expr(g, e->u.bin.b);
    return g->st ? 0
                 : cg_op2(g, e->kind == TVM_AND ? SpvOpLogicalAnd
                                             : SpvOpLogicalOr,
                       spv_t_bool(&g->m), a, b);
  }
  case TVM_NOT: {
    uint32_t a = cg_expr(g, e->u.un.a);
    return g->st ? 0 : cg_op1(g, SpvOpLogicalNot, spv_t_bool(&g->m), a);
  }
  case TVM_SELECT: {
    uint32_t c = cg_expr(g, e->u.sel.cond), a = cg_expr(g, e->u.sel.t),
             b = cg_expr(g, e->u.sel.f), ty = cg_type(g, t);
    return g->st ? 0 : cg_op3(g, SpvOpSelect, ty, c, a, b);
  }
  case TVM_CAST: return cg_convert(g, cg_expr(g, e->u.un.a), e->u.un.a->dtype, t);
  case TVM_CALL: {
    uint32_t ty = cg_type(g, t);
    return ty ? call(g, e, ty) : 0;
  }
  case TVM_LOAD: {
    if (e->u.load.pred)
      return cg_fail(g, TVM_ERR_UNSUPPORTED, "a predicated (masked) load");
    int is_bool = 0;
    uint32_t p = cg_elem_ptr(g, e->u.load.buffer, e->u.load.index, &is_bool);
    tvm_dtype st = is_bool ? tvm_dt(kDLUInt, 8, 1) : t;
    uint32_t ty = cg_type(g, st);
    if (g->st) return 0;
    uint32_t v = cg_op1(g, SpvOpLoad, ty, p);
    return is_bool ? cg_convert(g, v, st, t) : v;
  }
  case TVM_LET: {
    uint32_t v = cg_expr(g, e->u.let.value);
    if (g->st) return 0;
    if (tvm_ptrmap_put(&g->vals, e->u.let.var, (void *)(uintptr_t)v))
      return cg_fail(g, TVM_ERR_NOMEM, "out of memory");
    return cg_expr(g, e->u.let.body);
  }
  default:
    return cg_fail(g, TVM_ERR_UNSUPPORTED,
                "expression kind %s (vulkan kernels are scalar: the target "
                "reports 32-bit vectors, so nothing should vectorize)",
                tvm_expr_kind_name(e->kind));
  }
}

