/*
 * core/ir/arith_affine.c - the canonical affine form of integer index
 * expressions: sum of coeff * term plus a constant.
 *
 * A term is a variable or an opaque sub-expression (floordiv, min, a load,
 * a product of two non-constants, ...), compared structurally.  Terms keep
 * the order of their first appearance, so the printed form is stable and
 * close to what the user wrote: (a*4 + b)*2 becomes a*8 + b*2, x - x
 * becomes 0.  All coefficient arithmetic is checked; an overflow makes the
 * caller keep the original expression.
 */
#include <string.h>

#include "arith_int.h"

#define MAX_PARSE_DEPTH 64
#define MAX_MERGE_ROUNDS 8

/* The constant k of type t (no terms). */
void arith_affine_const(arith_affine *a, tvm_dtype t, int64_t k) {
  a->dtype = t;
  a->n = 0;
  a->k = k;
}

/* Are two terms the same?  Variables by pointer, others structurally. */
static int same_term(const tvm_expr *x, const tvm_expr *y) {
  if (x == y) return 1;
  if (x->kind == TVM_VAR || y->kind == TVM_VAR) return 0;
  return tvm_expr_equal(x, y);
}

/* Drops term i, keeping the order of the others. */
static void remove_term(arith_affine *a, int i) {
  memmove(&a->coeff[i], &a->coeff[i + 1], (size_t)(a->n - i - 1) * sizeof a->coeff[0]);
  memmove(&a->term[i], &a->term[i + 1], (size_t)(a->n - i - 1) * sizeof a->term[0]);
  a->n--;
}

/* a += c * t; 0 on overflow or when the form is full. */
static int add_term(arith_affine *a, tvm_expr *t, int64_t c) {
  int i;
  if (c == 0) return 1;
  for (i = 0; i < a->n; i++) {
    if (same_term(a->term[i], t)) {
      if (!arith_add(a->coeff[i], c, &a->coeff[i])) return 0;
      if (a->coeff[i] == 0) remove_term(a, i);
      return 1;
    }
  }
  if (a->n == ARITH_AFFINE_MAX) return 0;
  a->coeff[a->n] = c;
  a->term[a->n] = t;
  a->n++;
  return 1;
}

/* Adds scale * e to a, looking through add, sub and multiplication by an
 * integer constant. */
static int parse(const tvm_expr *e, arith_affine *a, int64_t scale, int depth) {
  int64_t v, s;
  if (!e) return 0;
  if (depth > MAX_PARSE_DEPTH) return add_term(a, (tvm_expr *)e, scale);
  switch (e->kind) {
  case TVM_INT: {
    int64_t p;
    return arith_mul(e->u.ival, scale, &p) && arith_add(a->k, p, &a->k);
  }
  case TVM_ADD:
    return parse(e->u.bin.a, a, scale, depth + 1) &&
           parse(e->u.bin.b, a, scale, depth + 1);
  case TVM_SUB:
    if (!arith_sub(0, scale, &s)) return 0;
    return parse(e->u.bin.a, a, scale, depth + 1) &&
           parse(e->u.bin.b, a, s, depth + 1);
  case TVM_MUL:
    if (tvm_is_const_int(e->u.bin.b, &v) && e->u.bin.b->kind == TVM_INT) {
      if (!arith_mul(scale, v, &s)) return 0;
      return parse(e->u.bin.a, a, s, depth + 1);
    }
    if (tvm_is_const_int(e->u.bin.a, &v) && e->u.bin.a->kind == TVM_INT) {
      if (!arith_mul(scale, v, &s)) return 0;
      return parse(e->u.bin.b, a, s, depth + 1);
    }
    return add_term(a, (tvm_expr *)e, scale);
  default:
    return add_term(a, (tvm_expr *)e, scale);
  }
}

/* Parses scalar e of an affine type into a (see arith_int.h). */
int arith_affine_of(const tvm_expr *e, arith_affine *a) {
  if (!e || !arith_affine_type(e->dtype) || e->dtype.lanes != 1) return 0;
  arith_affine_const(a, e->dtype, 0);
  return parse(e, a, 1, 0);
}

/* The coefficient of term t in a (0 when absent). */
int64_t arith_affine_coeff(const arith_affine *a, const tvm_expr *t) {
  int i;
  for (i = 0; i < a->n; i++)
    if (same_term(a->term[i], t)) return a->coeff[i];
  return 0;
}

/* a += scale * b (see arith_int.h). */
int arith_affine_add(arith_affine *a, const arith_affine *b, int64_t scale) {
  int64_t p;
  int i;
  for (i = 0; i < b->n; i++) {
    if (!arith_mul(b->coeff[i], scale, &p)) return 0;
    if (!add_term(a, b->term[i], p)) return 0;
  }
  if (!arith_mul(b->k, scale, &p)) return 0;
  return arith_add(a->k, p, &a->k);
}

/* a *= k (see arith_int.h). */
int arith_affine_scale(arith_affine *a, int64_t k) {
  int i;
  if (k == 0) {
    a->n = 0;
    a->k = 0;
    return 1;
  }
  for (i = 0; i < a->n; i++)
    if (!arith_mul(a->coeff[i], k, &a->coeff[i])) return 0;
  return arith_mul(a->k, k, &a->k);
}

/* Is t a division-like node (kind) by the positive constant *c? */
static int div_by_const(const tvm_expr *t, tvm_expr_kind kind, int64_t *c) {
  return t->kind == kind && t->u.bin.b->kind == TVM_INT &&
         tvm_is_const_int(t->u.bin.b, c) && *c > 0;
}

/* Is y floormod(x, N) for a constant N that c divides?  Then
 * floordiv(y, c)*c + floormod(x, c) == y: with x == q*c + r (r in [0, c)),
 * y == floormod(q, N/c)*c + r, floordiv(y, c) == floormod(q, N/c). */
static int mod_of_multiple(const tvm_expr *y, const tvm_expr *x, int64_t c) {
  int64_t n;
  return div_by_const(y, TVM_FLOORMOD, &n) && n % c == 0 &&
         tvm_expr_equal(y->u.bin.a, x);
}

/* Finds one pair floordiv(X, c) with coefficient m*c and floormod(X, c)
 * with coefficient m (or the truncating div/mod pair, for which
 * (X / c)*c + X % c == X holds just the same) and replaces it by m*X, at
 * the place of the earlier of the two; likewise floordiv(Y, c) and
 * floormod(X, c) where Y == floormod(X, N) and c divides N (a fused loop
 * split back into rows and columns: floordiv(floormod(X, H*W), W)*W +
 * floormod(X, W) == floormod(X, H*W)), replaced by m*Y.  1 = rewritten,
 * 0 = nothing found, -1 = overflow. */
static int merge_one(arith_affine *a) {
  int i, j, idx;
  int64_t c, c2, want;
  for (i = 0; i < a->n; i++) {
    tvm_expr_kind dk;
    if (div_by_const(a->term[i], TVM_FLOORMOD, &c))
      dk = TVM_FLOORDIV;
    else if (div_by_const(a->term[i], TVM_MOD, &c))
      dk = TVM_DIV;
    else
      continue;
    if (!arith_mul(a->coeff[i], c, &want)) continue;
    for (j = 0; j < a->n; j++) {
      arith_affine x, out;
      if (j == i || a->coeff[j] != want) continue;
      if (!div_by_const(a->term[j], dk, &c2) || c2 != c) continue;
      tvm_expr *num = a->term[j]->u.bin.a;
      if (!tvm_expr_equal(num, a->term[i]->u.bin.a) &&
          !(dk == TVM_FLOORDIV &&
            mod_of_multiple(num, a->term[i]->u.bin.a, c)))
        continue;
      if (!arith_affine_of(num, &x)) return -1;
      arith_affine_const(&out, a->dtype, a->k);
      for (idx = 0; idx < a->n; idx++) {
        if (idx == i || idx == j) {
          if (idx == (i < j ? i : j) && !arith_affine_add(&out, &x, a->coeff[i]))
            return -1;
          continue;
        }
        if (!add_term(&out, a->term[idx], a->coeff[idx])) return -1;
      }
      *a = out;
      return 1;
    }
  }
  return 0;
}

/* Merges div/mod pairs back into their numerator, a bounded number of
 * rounds (see arith_int.h). */
int arith_affine_merge_divmod(arith_affine *a) {
  int round, r;
  for (round = 0; round < MAX_MERGE_ROUNDS; round++) {
    r = merge_one(a);
    if (r < 0) return 0;
    if (r == 0) break;
  }
  return 1;
}

/* t * c, or t itself when c == 1. */
static tvm_expr *scaled(tvm_ctx *c, tvm_expr *t, int64_t k, tvm_dtype dt) {
  if (k == 1) return t;
  return tvm_binary(c, TVM_MUL, t, tvm_const(c, dt, k));
}

/* acc + c*t (c > 0) or acc - |c|*t (c < 0). */
static tvm_expr *accumulate(tvm_ctx *c, tvm_expr *acc, tvm_expr *t, int64_t k,
                            tvm_dtype dt) {
  if (k > 0) return tvm_binary(c, TVM_ADD, acc, scaled(c, t, k, dt));
  return tvm_binary(c, TVM_SUB, acc, scaled(c, t, -k, dt));
}

/* Builds the canonical expression of a (see arith_int.h).  The first term
 * with a positive coefficient leads; without one the constant leads
 * (8 - i), or, with a zero constant, the first term times its negative
 * coefficient. */
tvm_expr *arith_affine_to_expr(tvm_ctx *c, const arith_affine *a) {
  tvm_dtype dt = a->dtype;
  tvm_expr *res = NULL;
  int i, first = -1, kdone = 0;
  if (a->k == INT64_MIN || !arith_fits(dt, a->k) || !arith_fits(dt, -a->k))
    return NULL;
  for (i = 0; i < a->n; i++) {
    if (a->coeff[i] == INT64_MIN || !arith_fits(dt, a->coeff[i]) ||
        !arith_fits(dt, -a->coeff[i]))
      return NULL;
    if (first < 0 && a->coeff[i] > 0) first = i;
  }
  if (a->n == 0) return tvm_const(c, dt, a->k);
  if (first >= 0) {
    res = scaled(c, a->term[first], a->coeff[first], dt);
  } else if (a->k != 0) {
    res = tvm_const(c, dt, a->k);
    kdone = 1;
  } else {
    first = 0;
    res = scaled(c, a->term[0], a->coeff[0], dt);
  }
  for (i = 0; i < a->n; i++) {
    if (i == first) continue;
    res = accumulate(c, res, a->term[i], a->coeff[i], dt);
  }
  if (!kdone && a->k > 0)
    res = tvm_binary(c, TVM_ADD, res, tvm_const(c, dt, a->k));
  else if (!kdone && a->k < 0)
    res = tvm_binary(c, TVM_SUB, res, tvm_const(c, dt, -a->k));
  return res;
}
