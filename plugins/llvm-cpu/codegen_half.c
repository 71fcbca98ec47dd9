/*
 * codegen_half.c - conversions between float32 and the 16-bit floats
 * (IEEE float16, bfloat16) from integer operations only, so that no
 * fpext/fptrunc on half or bfloat reaches LLVM: x86 without F16C (and
 * without AVX512-BF16) cannot select those on vectors, and a scalar
 * libcall (__extendhfsf2, __truncsfbf2) may be missing from the JIT's
 * symbols.  The graph operators compute in float32 and cast at their
 * edges, so these casts are all the 16-bit floats need.
 *
 * float16 -> float32: the exponent is rebiased by adding (127 - 15) << 23
 * to the shifted bits; infinities and NaNs add it twice; subnormals are
 * renormalized by a float subtraction of 2^-14.  float32 -> float16
 * rounds to nearest even: overflow to infinity (NaN stays a quiet NaN),
 * subnormal results through a float addition of 0.5 (whose rounding is
 * the hardware's), normal ones by adding 0xfff plus the low kept bit.
 * bfloat16 <-> float32: the high half of the float32 bits, rounded to
 * nearest even (NaN kept quiet).  Every step is a select, so vectors
 * work lane by lane.
 */
#include "llvm_cpu.h"

/* A 32-bit integer constant splatted to lanes. */
static LLVMValueRef k32(lc_cg *cg, uint32_t v, int lanes) {
  return lc_broadcast(cg, LLVMConstInt(cg->t_i32, v, 0), lanes);
}

static LLVMTypeRef vec(LLVMTypeRef el, int lanes) {
  return lanes > 1 ? LLVMVectorType(el, (unsigned)lanes) : el;
}

/* float16/bfloat16 value v (lanes wide) -> float32. */
LLVMValueRef lc_half_to_f32(lc_cg *cg, LLVMValueRef v, int bf16, int lanes) {
  LLVMBuilderRef b = cg->b;
  LLVMTypeRef i16 = vec(LLVMInt16TypeInContext(cg->ctx), lanes);
  LLVMTypeRef i32 = vec(cg->t_i32, lanes), f32 = vec(cg->t_f32, lanes);
  LLVMValueRef h = LLVMBuildZExt(b, LLVMBuildBitCast(b, v, i16, ""), i32, "");
  if (bf16)
    return LLVMBuildBitCast(b, LLVMBuildShl(b, h, k32(cg, 16, lanes), ""),
                            f32, "bf2f");
  LLVMValueRef o = LLVMBuildShl(
      b, LLVMBuildAnd(b, h, k32(cg, 0x7fff, lanes), ""), k32(cg, 13, lanes),
      "");
  LLVMValueRef e = LLVMBuildAnd(b, o, k32(cg, 0x0f800000u, lanes), "");
  LLVMValueRef o1 = LLVMBuildAdd(b, o, k32(cg, 112u << 23, lanes), "");
  LLVMValueRef oinf = LLVMBuildAdd(b, o1, k32(cg, 112u << 23, lanes), "");
  LLVMValueRef den = LLVMBuildFSub(
      b,
      LLVMBuildBitCast(b, LLVMBuildAdd(b, o1, k32(cg, 1u << 23, lanes), ""),
                       f32, ""),
      LLVMBuildBitCast(b, k32(cg, 113u << 23, lanes), f32, ""), "");
  LLVMValueRef r = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntEQ, e, k32(cg, 0x0f800000u, lanes), ""),
      oinf,
      LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, e, k32(cg, 0, lanes), ""),
                      LLVMBuildBitCast(b, den, i32, ""), o1, ""),
      "");
  LLVMValueRef sign = LLVMBuildShl(
      b, LLVMBuildAnd(b, h, k32(cg, 0x8000, lanes), ""), k32(cg, 16, lanes),
      "");
  return LLVMBuildBitCast(b, LLVMBuildOr(b, r, sign, ""), f32, "h2f");
}

/* float32 value v (lanes wide) -> float16/bfloat16. */
LLVMValueRef lc_f32_to_half(lc_cg *cg, LLVMValueRef v, int bf16, int lanes) {
  LLVMBuilderRef b = cg->b;
  LLVMTypeRef i16 = vec(LLVMInt16TypeInContext(cg->ctx), lanes);
  LLVMTypeRef i32 = vec(cg->t_i32, lanes), f32 = vec(cg->t_f32, lanes);
  LLVMTypeRef out = vec(bf16 ? LLVMBFloatTypeInContext(cg->ctx)
                             : LLVMHalfTypeInContext(cg->ctx),
                        lanes);
  LLVMValueRef x = LLVMBuildBitCast(b, v, i32, "");
  LLVMValueRef r;
  if (bf16) {
    LLVMValueRef odd = LLVMBuildAnd(
        b, LLVMBuildLShr(b, x, k32(cg, 16, lanes), ""), k32(cg, 1, lanes), "");
    LLVMValueRef rnd = LLVMBuildAdd(
        b, LLVMBuildAdd(b, x, k32(cg, 0x7fff, lanes), ""), odd, "");
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, v, v, "");
    r = LLVMBuildSelect(b, nan,
                        LLVMBuildOr(b, x, k32(cg, 0x400000, lanes), ""), rnd,
                        "");
    r = LLVMBuildLShr(b, r, k32(cg, 16, lanes), "");
  } else {
    LLVMValueRef sign = LLVMBuildAnd(b, x, k32(cg, 0x80000000u, lanes), "");
    LLVMValueRef a = LLVMBuildXor(b, x, sign, "");
    /* overflow: inf, or a quiet NaN */
    LLVMValueRef ra = LLVMBuildSelect(
        b, LLVMBuildICmp(b, LLVMIntUGT, a, k32(cg, 0x7f800000u, lanes), ""),
        k32(cg, 0x7e00, lanes), k32(cg, 0x7c00, lanes), "");
    /* subnormal result: the float addition rounds */
    LLVMValueRef magic = k32(cg, 126u << 23, lanes);
    LLVMValueRef fl = LLVMBuildFAdd(b, LLVMBuildBitCast(b, a, f32, ""),
                                    LLVMBuildBitCast(b, magic, f32, ""), "");
    LLVMValueRef rb =
        LLVMBuildSub(b, LLVMBuildBitCast(b, fl, i32, ""), magic, "");
    /* normal: rebias, round to nearest even */
    LLVMValueRef odd = LLVMBuildAnd(
        b, LLVMBuildLShr(b, a, k32(cg, 13, lanes), ""), k32(cg, 1, lanes), "");
    LLVMValueRef t = LLVMBuildAdd(
        b, a, k32(cg, (uint32_t)(15 - 127) * (1u << 23) + 0xfff, lanes), "");
    LLVMValueRef rc =
        LLVMBuildLShr(b, LLVMBuildAdd(b, t, odd, ""), k32(cg, 13, lanes), "");
    r = LLVMBuildSelect(
        b, LLVMBuildICmp(b, LLVMIntUGE, a, k32(cg, 0x47800000u, lanes), ""),
        ra,
        LLVMBuildSelect(
            b, LLVMBuildICmp(b, LLVMIntULT, a, k32(cg, 0x38800000u, lanes), ""),
            rb, rc, ""),
        "");
    r = LLVMBuildOr(b, r, LLVMBuildLShr(b, sign, k32(cg, 16, lanes), ""), "");
  }
  return LLVMBuildBitCast(b, LLVMBuildTrunc(b, r, i16, ""), out, "f2h");
}
