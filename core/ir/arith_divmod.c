/*
 * core/ir/arith_divmod.c - rules for integer division and modulo by a
 * positive constant c, on the canonical affine form of the numerator.
 *
 * Write the numerator as c*Q + R (Q: the terms whose coefficient c
 * divides, R: the rest and the constant).  Then, for floor semantics,
 *   floordiv(c*Q + R, c) == Q + floordiv(R, c)
 *   floormod(c*Q + R, c) == floormod(R, c)
 * always, and when the interval of R lies in one block [m*c, (m+1)*c),
 * floordiv(R, c) == m and floormod(R, c) == R - m*c.  Truncating division
 * agrees with floor division on non-negative numerators, so the same rules
 * apply to DIV/MOD when the numerator (and R, for the partial rule) is
 * provably >= 0.  A common factor g of c and every coefficient cancels:
 * floordiv(g*X, g*d) == floordiv(X, d), floormod(g*X, g*d) ==
 * g*floormod(X, d).  Nested divisions merge: floordiv(floordiv(X, a) + k,
 * c) == floordiv(X + k*a, a*c) and floormod(floormod(X, a) + k, c) ==
 * floormod(X + k, c) when c divides a.  And a remainder smaller than a
 * coefficient g that divides c drops out (see small_remainder).
 */
#include "arith_int.h"

/* Scalar integer constant, or a broadcast of one. */
static int const_val(const tvm_expr *e, int64_t *v) {
  if (!e) return 0;
  if (e->kind == TVM_BROADCAST) e = e->u.bcast.value;
  if (e->kind != TVM_INT || e->dtype.lanes != 1) return 0;
  *v = e->u.ival;
  return 1;
}

/* Builds kind(num, c) from simplified parts and rewrites it. */
static tvm_expr *div_node(arith_env *env, tvm_expr_kind kind, tvm_expr *num,
                          int64_t c) {
  tvm_expr *k;
  if (!num) return NULL;
  k = tvm_const(env->ctx, num->dtype, c);
  if (!k) return NULL;
  return arith_rewrite(env, tvm_binary(env->ctx, kind, num, k));
}

/* Splits A into c*Q + R as described above. */
static int split(const arith_affine *A, int64_t c, arith_affine *Q,
                 arith_affine *R) {
  int i;
  arith_affine one;
  arith_affine_const(Q, A->dtype, 0);
  arith_affine_const(R, A->dtype, A->k);
  for (i = 0; i < A->n; i++) {
    arith_affine_const(&one, A->dtype, 0);
    one.n = 1;
    one.term[0] = A->term[i];
    if (A->coeff[i] % c == 0) {
      one.coeff[0] = A->coeff[i] / c;
      if (!arith_affine_add(Q, &one, 1)) return 0;
    } else {
      one.coeff[0] = A->coeff[i];
      if (!arith_affine_add(R, &one, 1)) return 0;
    }
  }
  return 1;
}

/* Q + t as canonical expression (t already simplified). */
static tvm_expr *affine_plus(arith_env *env, arith_affine *Q, tvm_expr *t) {
  arith_affine T;
  if (!t || !arith_affine_of(t, &T) || !arith_affine_add(Q, &T, 1)) return NULL;
  return arith_emit(env, Q);
}

/* Nested division rules on R == 1*T + R.k (see the file comment). */
static tvm_expr *nested(arith_env *env, tvm_expr_kind kind, arith_affine *R,
                        int64_t c, int floor) {
  int isdiv = kind == TVM_FLOORDIV || kind == TVM_DIV;
  tvm_expr_kind inner = isdiv ? kind : (floor ? TVM_FLOORMOD : TVM_MOD);
  tvm_expr *T, *num;
  int64_t a, ka, ac;
  arith_affine X, K;
  if (R->n != 1 || R->coeff[0] != 1) return NULL;
  T = R->term[0];
  if (T->kind != inner || T->u.bin.b->kind != TVM_INT ||
      !const_val(T->u.bin.b, &a) || a <= 0)
    return NULL;
  if (!floor && R->k != 0) return NULL;
  if (!arith_affine_of(T->u.bin.a, &X)) return NULL;
  arith_affine_const(&K, X.dtype, 0);
  if (isdiv) {
    if (!arith_mul(a, c, &ac) || !arith_mul(R->k, a, &ka)) return NULL;
    K.k = ka;
    if (!arith_affine_add(&X, &K, 1)) return NULL;
    num = arith_emit(env, &X);
    return div_node(env, kind, num, ac);
  }
  if (a % c != 0) return NULL;
  K.k = R->k;
  if (!arith_affine_add(&X, &K, 1)) return NULL;
  num = arith_emit(env, &X);
  return div_node(env, kind, num, c);
}

/* A == g*X + S with g dividing c and S in [0, g) (S: the constant and the
 * terms whose coefficient g does not divide): then
 *   floordiv(A, c) == floordiv(X, c/g),  floormod(A, c) == floormod(X, c/g)*g + S
 * (floor((g*X + S)/(g*c')) == floor((X + S/g)/c') == floor(X/c') for an
 * integer X and 0 <= S/g < 1).  The largest such g (a coefficient of A)
 * wins.  Truncating division qualifies too when A >= 0, since then X >= 0. */
static int64_t small_remainder(arith_env *env, const arith_affine *A, int64_t c,
                               arith_ival steps, arith_affine *X, arith_affine *S) {
  int i, j;
  int64_t best = 0;
  arith_affine P;
  for (i = 0; i < A->n; i++) {
    int64_t g = A->coeff[i];
    if (g == INT64_MIN) continue;
    if (g < 0) g = -g;
    if (g <= best || g <= 1 || g >= c || c % g != 0) continue;
    arith_affine_const(S, A->dtype, A->k);
    for (j = 0; j < A->n; j++) {
      if (A->coeff[j] % g == 0) continue;
      arith_affine_const(&P, A->dtype, 0);
      P.n = 1;
      P.coeff[0] = A->coeff[j];
      P.term[0] = A->term[j];
      if (!arith_affine_add(S, &P, 1)) break;
    }
    if (j < A->n) continue;
    {
      arith_ival si = arith_ival_add(arith_affine_interval(env, S), steps);
      if (si.lo >= 0 && si.hi < g) best = g;
    }
  }
  if (best == 0) return 0;
  arith_affine_const(X, A->dtype, 0);
  arith_affine_const(S, A->dtype, A->k);
  for (j = 0; j < A->n; j++) {
    arith_affine_const(&P, A->dtype, 0);
    P.n = 1;
    P.term[0] = A->term[j];
    if (A->coeff[j] % best == 0) {
      P.coeff[0] = A->coeff[j] / best;
      if (!arith_affine_add(X, &P, 1)) return 0;
    } else {
      P.coeff[0] = A->coeff[j];
      if (!arith_affine_add(S, &P, 1)) return 0;
    }
  }
  return best;
}

/* g*inner + S as a canonical expression. */
static tvm_expr *scaled_plus(arith_env *env, tvm_expr *inner, int64_t g,
                             const arith_affine *S) {
  arith_affine P;
  if (!inner || !arith_affine_of(inner, &P) || !arith_affine_scale(&P, g) ||
      !arith_affine_add(&P, S, 1))
    return NULL;
  return arith_emit(env, &P);
}

/* Division of a ramp by a broadcast constant (vectorized index math). */
static tvm_expr *vector_divmod(arith_env *env, tvm_expr *e, int isdiv,
                               int floor) {
  tvm_expr *a = e->u.bin.a, *base, *r;
  int lanes = e->dtype.lanes;
  int64_t c, s, span, m, mc;
  arith_affine B, Q, R;
  arith_ival ir, ib, steps;
  if (!const_val(e->u.bin.b, &c) || c <= 0) return NULL;
  if (c == 1)
    return isdiv ? a
                 : tvm_broadcast(env->ctx,
                                 tvm_const(env->ctx, tvm_dtype_element(e->dtype), 0),
                                 lanes);
  if (a->kind != TVM_RAMP || !const_val(a->u.ramp.stride, &s)) {
    /* any vector whose lanes all lie in one block [m c, (m + 1) c) */
    arith_ival ia = arith_interval(env, a);
    tvm_dtype et = tvm_dtype_element(e->dtype);
    if (!arith_ival_finite(ia) || (!floor && ia.lo < 0) ||
        arith_floordiv(ia.lo, c) != arith_floordiv(ia.hi, c))
      return NULL;
    m = arith_floordiv(ia.lo, c);
    if (isdiv) return tvm_broadcast(env->ctx, tvm_const(env->ctx, et, m), lanes);
    if (m == 0) return a;
    if (!arith_mul(m, c, &mc)) return NULL;
    return tvm_sub(env->ctx, a, tvm_broadcast(env->ctx, tvm_const(env->ctx, et, mc), lanes));
  }
  base = a->u.ramp.base;
  if (!arith_affine_of(base, &B) || !split(&B, c, &Q, &R)) return NULL;
  /* lanes that are not active may take any value (arith_env) */
  if (!arith_mul(s, (env->active_lanes > 0 && env->active_width == lanes
                         ? env->active_lanes : lanes) - 1, &span))
    return NULL;
  steps = arith_ival_make(span < 0 ? span : 0, span > 0 ? span : 0);
  ir = arith_ival_add(arith_affine_interval(env, &R), steps);
  ib = arith_ival_add(arith_affine_interval(env, &B), steps);
  if (!floor && ib.lo < 0) return NULL;
  if (arith_ival_finite(ir) &&
      arith_floordiv(ir.lo, c) == arith_floordiv(ir.hi, c)) {
    m = arith_floordiv(ir.lo, c);
    if (isdiv) {
      if (!arith_add(Q.k, m, &Q.k)) return NULL;
      r = arith_emit(env, &Q);
      return r ? tvm_broadcast(env->ctx, r, lanes) : NULL;
    }
    if (!arith_mul(m, c, &mc) || !arith_sub(R.k, mc, &R.k)) return NULL;
    r = arith_emit(env, &R);
    return r ? tvm_ramp(env->ctx, r, a->u.ramp.stride, lanes) : NULL;
  }
  {
    arith_affine X, S;
    int64_t g = small_remainder(env, &B, c, steps, &X, &S);
    if (g > 0) {
      r = div_node(env, e->kind, arith_emit(env, &X), c / g);
      if (!r) return NULL;
      if (isdiv) return tvm_broadcast(env->ctx, r, lanes);
      r = scaled_plus(env, r, g, &S);
      return r ? tvm_ramp(env->ctx, r, a->u.ramp.stride, lanes) : NULL;
    }
  }
  if (floor && s % c == 0) {
    r = div_node(env, e->kind, base, c);
    if (!r) return NULL;
    if (isdiv)
      return tvm_ramp(env->ctx, r, tvm_const(env->ctx, a->u.ramp.stride->dtype, s / c),
                      lanes);
    return tvm_broadcast(env->ctx, r, lanes);
  }
  return NULL;
}

/* The rules of the file comment, in order: division by 1, the common
 * factor, one block, a small remainder, nested divisions, and last taking
 * the multiples of c out.  NULL when nothing applies. */
tvm_expr *arith_simplify_divmod(arith_env *env, tvm_expr *e) {
  tvm_expr *a = e->u.bin.a, *b = e->u.bin.b, *r, *num;
  tvm_dtype t = e->dtype;
  int isdiv = e->kind == TVM_FLOORDIV || e->kind == TVM_DIV;
  int floor = e->kind == TVM_FLOORDIV || e->kind == TVM_FLOORMOD;
  int64_t c, g, m, mc;
  int i;
  arith_affine A, Q, R;
  arith_ival ir;
  if (t.lanes > 1) return vector_divmod(env, e, isdiv, floor);
  if (b->kind != TVM_INT || !const_val(b, &c) || c == 0) return NULL;
  if (c == 1) return isdiv ? a : tvm_const(env->ctx, t, 0);
  if (!arith_affine_type(t) || c < 0) return NULL;
  if (!arith_affine_of(a, &A)) return NULL;
  if (!floor && arith_affine_interval(env, &A).lo < 0) return NULL;

  /* common factor */
  g = arith_gcd(c, A.k);
  for (i = 0; i < A.n && g > 1; i++) g = arith_gcd(g, A.coeff[i]);
  if (g > 1) {
    for (i = 0; i < A.n; i++) A.coeff[i] /= g;
    A.k /= g;
    num = arith_emit(env, &A);
    r = div_node(env, e->kind, num, c / g);
    if (!r || isdiv) return r;
    arith_affine_const(&Q, t, 0);
    return affine_plus(env, &Q, tvm_binary(env->ctx, TVM_MUL, r,
                                           tvm_const(env->ctx, t, g)));
  }

  if (!split(&A, c, &Q, &R)) return NULL;
  ir = arith_affine_interval(env, &R);
  if (arith_ival_finite(ir) &&
      arith_floordiv(ir.lo, c) == arith_floordiv(ir.hi, c)) {
    m = arith_floordiv(ir.lo, c);
    if (isdiv) {
      if (!arith_add(Q.k, m, &Q.k)) return NULL;
      return arith_emit(env, &Q);
    }
    if (!arith_mul(m, c, &mc) || !arith_sub(R.k, mc, &R.k)) return NULL;
    return arith_emit(env, &R);
  }
  g = small_remainder(env, &A, c, arith_ival_make(0, 0), &Q, &R);
  if (g > 0) {
    r = div_node(env, e->kind, arith_emit(env, &Q), c / g);
    return isdiv ? r : scaled_plus(env, r, g, &R);
  }
  if (!split(&A, c, &Q, &R)) return NULL; /* Q, R were scratch above */
  if (!floor && ir.lo < 0) return NULL; /* R may be negative: trunc != floor */
  r = nested(env, e->kind, &R, c, floor);
  if (!r && Q.n == 0) return NULL; /* nothing to take out */
  if (!r) r = div_node(env, e->kind, arith_emit(env, &R), c);
  if (!r || !isdiv) return r;
  return affine_plus(env, &Q, r);
}
