/*
 * core/ir/arith_sum.c - rewriting sums and products of integers into the
 * canonical affine form (arith_affine.c): a + b, a - b and a * b become a
 * sum of coefficient * term plus a constant; floordiv/floormod pairs merge
 * back into their numerator; constant factors leave products and small
 * sums distribute over a single term ((i + 1)*n - i*n -> n); terms that
 * cancel inside a min/max move into it (min(io*4 + 4, 10) - io*4 ->
 * min(10 - io*4, 4)).
 */
#include "arith_int.h"

/* Builds and rewrites the binary node k(a, b); NULL on out of memory. */
static tvm_expr *bin(arith_env *env, tvm_expr_kind k, tvm_expr *a,
                     tvm_expr *b) {
  return arith_rewrite(env, tvm_binary(env->ctx, k, a, b));
}

/* The product term t*u, two variables ordered by id. */
static tvm_expr *product_term(arith_env *env, tvm_expr *t, tvm_expr *u) {
  if (t->kind == TVM_VAR && u->kind == TVM_VAR && t->u.var.id > u->u.var.id) {
    tvm_expr *x = t;
    t = u;
    u = x;
  }
  return tvm_binary(env->ctx, TVM_MUL, t, u);
}

/* (sum of c_i * t_i + k) * (kt * T) distributed into a sum of products,
 * so that (i + 1)*n - i*n cancels to n.  Only small sums are distributed
 * (the product of two sums stays one opaque term). */
static tvm_expr *distribute(arith_env *env, const arith_affine *S, int64_t kt,
                            tvm_expr *T) {
  arith_affine P;
  int i;
  arith_affine_const(&P, S->dtype, 0);
  for (i = 0; i < S->n; i++) {
    tvm_expr *x = product_term(env, S->term[i], T);
    if (!x || !arith_mul(S->coeff[i], kt, &P.coeff[P.n])) return NULL;
    P.term[P.n++] = x;
  }
  if (S->k != 0) {
    if (!arith_mul(S->k, kt, &P.coeff[P.n])) return NULL;
    P.term[P.n++] = T;
  }
  /* the product terms are distinct, but T may equal one of them: merge */
  {
    arith_affine Q;
    arith_affine_const(&Q, S->dtype, 0);
    if (!arith_affine_add(&Q, &P, 1)) return NULL;
    return arith_affine_to_expr(env->ctx, &Q);
  }
}

/* A product of two non-constants is an opaque term; constant factors are
 * taken out of it ((x*2)*(y*3) -> x*y*6) and two variables are ordered
 * by id, so that equal products compare equal.  A small sum times a
 * single term is distributed. */
static tvm_expr *rw_product(arith_env *env, tvm_expr *e, arith_affine *A,
                            arith_affine *B) {
  tvm_expr *ta = e->u.bin.a, *tb = e->u.bin.b, *x, *r;
  int64_t ka = 1, kb = 1, k;
  arith_affine P;
  int sa = A->n == 1 && A->k == 0, sb = B->n == 1 && B->k == 0;
  if (sa != sb) {
    const arith_affine *S = sa ? B : A, *T = sa ? A : B;
    if (S->n + (S->k != 0) <= 4) {
      r = distribute(env, S, T->coeff[0], T->term[0]);
      if (r) return r;
    }
  }
  if (A->n == 1 && A->k == 0) {
    ka = A->coeff[0];
    ta = A->term[0];
  }
  if (B->n == 1 && B->k == 0) {
    kb = B->coeff[0];
    tb = B->term[0];
  }
  if (ka == 1 && kb == 1 && ta == e->u.bin.a && tb == e->u.bin.b &&
      !(ta->kind == TVM_VAR && tb->kind == TVM_VAR && ta->u.var.id > tb->u.var.id))
    return e;
  if (!arith_mul(ka, kb, &k)) return e;
  x = product_term(env, ta, tb);
  if (!x) return e;
  arith_affine_const(&P, e->dtype, 0);
  P.n = 1;
  P.coeff[0] = k;
  P.term[0] = x;
  r = arith_affine_to_expr(env->ctx, &P);
  return r ? r : e;
}

static tvm_expr *push_into_minmax(arith_env *env, const arith_affine *A);

/* The canonical expression of an affine form built by a rule: like
 * arith_affine_to_expr, after moving terms into a min/max term. */
tvm_expr *arith_emit(arith_env *env, const arith_affine *A) {
  tvm_expr *r = NULL;
  if (env->budget > 0) {
    env->budget--;
    r = push_into_minmax(env, A);
    env->budget++;
  }
  return r ? r : arith_affine_to_expr(env->ctx, A);
}

/* Change in the number of terms when term t (coefficient c) moves into
 * X: -1 when it cancels there, 0 when it merges, +1 when it is new. */
static int term_delta(const arith_affine *X, const tvm_expr *t, int64_t c) {
  int64_t x = arith_affine_coeff(X, t), sum;
  if (x == 0) return 1;
  return arith_add(x, c, &sum) && sum == 0 ? -1 : 0;
}

/* A sum with a min/max term: min(X, Y) + P + R == min(X + P, Y + P) + R
 * and P - min(X, Y) + R == max(P - X, P - Y) + R.  A term goes into P when
 * that lowers the number of terms (it cancels or merges on both sides, or
 * cancels on one): extents such as min(io*4 + 4, 10) - io*4 become
 * min(10 - io*4, 4).  Each term is judged on its own, so simplifying the
 * result again changes nothing.  NULL when no term moves. */
static tvm_expr *push_into_minmax(arith_env *env, const arith_affine *A) {
  int i, j;
  for (i = 0; i < A->n; i++) {
    tvm_expr *t = A->term[i], *x, *y, *m;
    arith_affine X, Y, P, R;
    int64_t s = A->coeff[i];
    tvm_expr_kind k = t->kind;
    if ((k != TVM_MIN && k != TVM_MAX) || (s != 1 && s != -1)) continue;
    if (!arith_affine_of(t->u.bin.a, &X) || !arith_affine_of(t->u.bin.b, &Y) ||
        !arith_affine_scale(&X, s) || !arith_affine_scale(&Y, s))
      continue;
    arith_affine_const(&P, A->dtype, 0);
    arith_affine_const(&R, A->dtype, A->k);
    for (j = 0; j < A->n; j++) {
      arith_affine one;
      if (j == i) continue;
      arith_affine_const(&one, A->dtype, 0);
      one.n = 1;
      one.coeff[0] = A->coeff[j];
      one.term[0] = A->term[j];
      if (term_delta(&X, A->term[j], A->coeff[j]) +
              term_delta(&Y, A->term[j], A->coeff[j]) < 1) {
        if (!arith_affine_add(&P, &one, 1)) return NULL;
      } else if (!arith_affine_add(&R, &one, 1)) {
        return NULL;
      }
    }
    if (P.n == 0) continue;
    if (!arith_affine_add(&X, &P, 1) || !arith_affine_add(&Y, &P, 1)) continue;
    x = arith_emit(env, &X);
    y = arith_emit(env, &Y);
    if (!x || !y) continue;
    if (s < 0) k = k == TVM_MIN ? TVM_MAX : TVM_MIN;
    m = bin(env, k, x, y);
    if (!m || !arith_affine_of(m, &P) || !arith_affine_add(&R, &P, 1)) return NULL;
    return arith_affine_to_expr(env->ctx, &R); /* R's terms stay as judged */
  }
  return NULL;
}

/* Canonical affine form of a + b, a - b or a * b (scalar affine types;
 * see arith_int.h). */
tvm_expr *arith_simplify_sum(arith_env *env, tvm_expr *e) {
  arith_affine A, B;
  tvm_expr *r;
  int ok;
  if (!arith_affine_of(e->u.bin.a, &A) || !arith_affine_of(e->u.bin.b, &B))
    return e;
  switch (e->kind) {
  case TVM_ADD: ok = arith_affine_add(&A, &B, 1); break;
  case TVM_SUB: ok = arith_affine_add(&A, &B, -1); break;
  case TVM_MUL:
    if (B.n == 0) {
      ok = arith_affine_scale(&A, B.k);
    } else if (A.n == 0) {
      ok = arith_affine_scale(&B, A.k);
      A = B;
    } else {
      return rw_product(env, e, &A, &B);
    }
    break;
  default: return e;
  }
  if (!ok || !arith_affine_merge_divmod(&A)) return e;
  r = arith_emit(env, &A);
  return r ? r : e;
}
