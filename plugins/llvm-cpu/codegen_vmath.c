/*
 * codegen_vmath.c - inline SIMD versions of exp, tanh and erf for float32
 * vectors.  LLVM has no vector math library here, so llvm.exp on a
 * vector becomes one expf call per lane; these expansions keep the lanes
 * in registers instead.
 *
 * exp: n = round(x / ln 2), r = x - n ln 2 (in two parts), e^r by a
 * degree-6 polynomial (Cephes' expf coefficients, ~1 ulp), scaled by 2^n:
 * by AVX-512's vscalefps on 16 lanes where the CPU has it (one
 * instruction), else as two factors 2^(n/2) (2^128 is no float; six
 * integer instructions and two multiplies).  x above 88.72 gives +inf,
 * NaN stays NaN, and x below -87.3 gives 0 (e^-87.3 = 1.2e-38, FLT_MIN
 * and 2.7% more): x is clamped to [-87.3, 88.73] first, so no lane
 * computes a subnormal.  A subnormal result costs a microcode assist per
 * vector on the x86 cores here: the old expansion computed them from
 * -87.34 down to -103.97, and x clamped at -104 made BERT's Softmax rows
 * (masked by adding -10000) 6x slower.
 * tanh: sign(x) (1 - e) / (1 + e) with e = exp(-2|x|), and the odd Taylor
 * series (to x^13) below |x| < 0.25 where the quotient loses digits.
 * erf: sign(x) a P(a^2) / Q(a^2) with a = min(|x|, 3.92) (erf(3.92)
 * rounds to 1 in float32), P of degree 6 and Q of degree 5 in a^2, their
 * coefficients all positive (no cancellation in Horner's rule), capped
 * at 1: twelve FMAs and one division, no exp and no branch to select.  A
 * rational fit made for this file (linearized least squares on the
 * relative error, Lawson reweighting towards minimax); in double it is
 * within 1.8e-9 of erf over [0, 3.92], the float32 result (FMAs) within
 * 2.9e-7 relative (about 5 ulp) over [-6, 6] and tiny inputs.  It
 * replaced a two-branch form (a polynomial below 1, 1 - exp(-x^2) q(1/x)
 * above: 2.7 ulp) whose exp, second polynomial and division per vector
 * made GELU's epilogue cost as much as ConvNeXt's 96-deep product under
 * it.  GELU's erf was once one libm call per lane.
 */
#include <math.h>

#include "llvm_cpu.h"

/* Splat of a float constant over the lanes of v's type. */
static LLVMValueRef splat(lc_cg *cg, LLVMTypeRef vt, double x) {
  return lc_broadcast(cg, LLVMConstReal(cg->t_f32, x),
                      (int)LLVMGetVectorSize(vt));
}

/* a*b + c, fused where the CPU has FMA. */
static LLVMValueRef fmadd(lc_cg *cg, LLVMValueRef a, LLVMValueRef b,
                          LLVMValueRef c) {
  LLVMTypeRef ty = LLVMTypeOf(a);
  LLVMValueRef args[3] = {a, b, c};
  return lc_intrinsic(cg, "llvm.fmuladd", &ty, 1, args, 3);
}

/* p * 2^floor(k) by AVX-512's vscalefps on <16 x float> (one rounding;
 * overflow gives inf, underflow a subnormal or 0). */
static LLVMValueRef scalef16(lc_cg *cg, LLVMValueRef p, LLVMValueRef k) {
  static const char name[] = "llvm.x86.avx512.mask.scalef.ps.512";
  LLVMTypeRef vt = LLVMTypeOf(p);
  LLVMTypeRef pt[5] = {vt, vt, vt, LLVMInt16TypeInContext(cg->ctx),
                       cg->t_i32};
  LLVMTypeRef fty = LLVMFunctionType(vt, pt, 5, 0);
  LLVMValueRef f = LLVMGetNamedFunction(cg->mod, name);
  if (!f) f = LLVMAddFunction(cg->mod, name, fty);
  /* all lanes; rounding 4: the current direction */
  LLVMValueRef args[5] = {p, k, LLVMGetUndef(vt),
                          LLVMConstInt(pt[3], 0xffff, 0),
                          LLVMConstInt(cg->t_i32, 4, 0)};
  return LLVMBuildCall2(cg->b, fty, f, args, 5, "vexp");
}

/* e^x for a <N x float> value (see the top of the file). */
LLVMValueRef lc_vexp_f32(lc_cg *cg, LLVMValueRef x) {
  LLVMTypeRef vt = LLVMTypeOf(x);
  unsigned n = LLVMGetVectorSize(vt);
  LLVMTypeRef it = LLVMVectorType(cg->t_i32, n);
  int scalef = n == 16 && lc_target_simd_bits(cg->target) >= 512;
  LLVMValueRef x0 = x;
  /* x clamped to [-87.3, 88.73] by selects that keep a NaN (x86's
   * vminps / vmaxps with the constant first).  At ln(FLT_MIN) = -87.34
   * itself the polynomial may land a rounding below 1 and the scaled
   * result below FLT_MIN: subnormal, and one assist per vector of BERT's
   * masked Softmax rows on AVX2 (6.5x their time). */
  LLVMValueRef hi = splat(cg, vt, 88.73), lo = splat(cg, vt, -87.3);
  x = LLVMBuildSelect(cg->b, LLVMBuildFCmp(cg->b, LLVMRealOLT, hi, x, ""),
                      hi, x, "");
  x = LLVMBuildSelect(cg->b, LLVMBuildFCmp(cg->b, LLVMRealOGT, lo, x, ""),
                      lo, x, "");
  /* k = rint(x log2(e)), in [-126, 128] (NaN for a NaN x) */
  LLVMValueRef t = LLVMBuildFMul(cg->b, x, splat(cg, vt, 1.44269504088896341), "");
  LLVMValueRef k = lc_intrinsic(cg, "llvm.rint", &vt, 1, &t, 1);
  /* r = x - k ln2 (Cody-Waite split) */
  LLVMValueRef nk = LLVMBuildFNeg(cg->b, k, "");
  LLVMValueRef r = fmadd(cg, nk, splat(cg, vt, 0.693359375), x);
  r = fmadd(cg, nk, splat(cg, vt, -2.12194440e-4), r);
  /* p(r) = 1 + r + r^2 (c5 + r (c4 + ...)) */
  static const double c[] = {1.9875691500E-4, 1.3981999507E-3,
                             8.3334519073E-3, 4.1665795894E-2,
                             1.6666665459E-1, 5.0000001201E-1};
  LLVMValueRef p = splat(cg, vt, c[0]);
  for (int i = 1; i < 6; i++) p = fmadd(cg, p, r, splat(cg, vt, c[i]));
  LLVMValueRef r2 = LLVMBuildFMul(cg->b, r, r, "");
  p = fmadd(cg, p, r2, r);
  p = LLVMBuildFAdd(cg->b, p, splat(cg, vt, 1.0), "");
  LLVMValueRef y;
  if (scalef) {
    y = scalef16(cg, p, k); /* a NaN p or k gives NaN */
  } else {
    /* scale by 2^k = 2^k1 * 2^k2, k1 = k >> 1 (2^128 is not a float); a
     * NaN k taken to -126 first (fptosi of NaN is poison; p is NaN) */
    LLVMValueRef two[2] = {k, splat(cg, vt, -126.0)};
    LLVMValueRef kn = lc_intrinsic(cg, "llvm.maxnum", &vt, 1, two, 2);
    LLVMValueRef ki = LLVMBuildFPToSI(cg->b, kn, it, "");
    LLVMValueRef k1 = LLVMBuildAShr(cg->b, ki, lc_broadcast(cg, LLVMConstInt(cg->t_i32, 1, 0), (int)n), "");
    LLVMValueRef k2 = LLVMBuildSub(cg->b, ki, k1, "");
    LLVMValueRef bias = lc_broadcast(cg, LLVMConstInt(cg->t_i32, 127, 0), (int)n);
    LLVMValueRef sh = lc_broadcast(cg, LLVMConstInt(cg->t_i32, 23, 0), (int)n);
    LLVMValueRef s1 = LLVMBuildBitCast(
        cg->b, LLVMBuildShl(cg->b, LLVMBuildAdd(cg->b, k1, bias, ""), sh, ""), vt, "");
    LLVMValueRef s2 = LLVMBuildBitCast(
        cg->b, LLVMBuildShl(cg->b, LLVMBuildAdd(cg->b, k2, bias, ""), sh, ""), vt, "");
    y = LLVMBuildFMul(cg->b, LLVMBuildFMul(cg->b, p, s1, ""), s2, "");
  }
  /* below e^-87.3 = 1.2e-38, FLT_MIN and 2.7% more: 0 */
  LLVMValueRef tiny = LLVMBuildFCmp(cg->b, LLVMRealOLT, x0, lo, "");
  return LLVMBuildSelect(cg->b, tiny, splat(cg, vt, 0.0), y, "vexp");
}

/* tanh(x) for a <N x float> value. */
LLVMValueRef lc_vtanh_f32(lc_cg *cg, LLVMValueRef x) {
  LLVMTypeRef vt = LLVMTypeOf(x);
  LLVMValueRef ax = lc_intrinsic(cg, "llvm.fabs", &vt, 1, &x, 1);
  LLVMValueRef m2 = LLVMBuildFMul(cg->b, ax, splat(cg, vt, -2.0), "");
  LLVMValueRef e = lc_vexp_f32(cg, m2);
  LLVMValueRef one = splat(cg, vt, 1.0);
  LLVMValueRef q = LLVMBuildFDiv(cg->b, LLVMBuildFSub(cg->b, one, e, ""),
                                 LLVMBuildFAdd(cg->b, one, e, ""), "");
  /* copysign(q, x) */
  LLVMValueRef cs[2] = {q, x};
  LLVMValueRef big = lc_intrinsic(cg, "llvm.copysign", &vt, 1, cs, 2);
  /* small |x|: x + x^3 p(x^2), the odd Taylor series to x^13 */
  static const double t[] = {21844.0 / 6081075.0, -1382.0 / 155925.0,
                             62.0 / 2835.0, -17.0 / 315.0, 2.0 / 15.0,
                             -1.0 / 3.0};
  LLVMValueRef x2 = LLVMBuildFMul(cg->b, x, x, "");
  LLVMValueRef p = splat(cg, vt, t[0]);
  for (int i = 1; i < 6; i++) p = fmadd(cg, p, x2, splat(cg, vt, t[i]));
  LLVMValueRef x3 = LLVMBuildFMul(cg->b, x2, x, "");
  LLVMValueRef sm = fmadd(cg, p, x3, x);
  LLVMValueRef is_small = LLVMBuildFCmp(cg->b, LLVMRealOLT, ax, splat(cg, vt, 0.25), "");
  return LLVMBuildSelect(cg->b, is_small, sm, big, "vtanh");
}

/* erf(x) for a <N x float> value (see the top of the file). */
LLVMValueRef lc_verf_f32(lc_cg *cg, LLVMValueRef x) {
  static const double p[] = {-1.2799642468e-08, 4.6092006948e-06,
                             3.7675799140e-04,  3.8386303427e-03,
                             5.4243992638e-02,  1.8513556279e-01,
                             1.1283791691e+00};
  static const double q[] = {6.2398865677e-05, 1.3015251972e-03,
                             1.5430059753e-02, 1.1387384949e-01,
                             4.9740552681e-01, 1.0};
  LLVMTypeRef vt = LLVMTypeOf(x);
  LLVMValueRef one = splat(cg, vt, 1.0), top = splat(cg, vt, 3.92);
  LLVMValueRef ax = lc_intrinsic(cg, "llvm.fabs", &vt, 1, &x, 1);
  /* min(|x|, 3.92), NaN kept (an ordered compare is false on it) */
  ax = LLVMBuildSelect(cg->b, LLVMBuildFCmp(cg->b, LLVMRealOGT, ax, top, ""),
                       top, ax, "");
  LLVMValueRef t = LLVMBuildFMul(cg->b, ax, ax, "");
  LLVMValueRef P = splat(cg, vt, p[0]), Q = splat(cg, vt, q[0]);
  for (int i = 1; i < 7; i++) P = fmadd(cg, P, t, splat(cg, vt, p[i]));
  for (int i = 1; i < 6; i++) Q = fmadd(cg, Q, t, splat(cg, vt, q[i]));
  LLVMValueRef r =
      LLVMBuildFDiv(cg->b, LLVMBuildFMul(cg->b, ax, P, ""), Q, "");
  r = LLVMBuildSelect(cg->b, LLVMBuildFCmp(cg->b, LLVMRealOGT, r, one, ""),
                      one, r, "");
  LLVMValueRef cs[2] = {r, x};
  return lc_intrinsic(cg, "llvm.copysign", &vt, 1, cs, 2);
}
