/*
 * core/ir/arith_int.h - private interface of the arithmetic layer
 * (arith_*.c, simplify.c, simplify_stmt.c).  Not installed.
 *
 * The arithmetic layer works on three things:
 *   - an environment (arith_env): the caller's tvm_bounds plus a stack of
 *     ranges bound while walking into loops and lets;
 *   - constant intervals (arith_ival): inclusive [lo, hi] in int64, where
 *     INT64_MIN stands for minus infinity and INT64_MAX for plus infinity;
 *   - the canonical affine form (arith_affine): sum of coeff * term plus a
 *     constant, where a term is a variable or an opaque, already simplified,
 *     non-linear sub-expression.
 * All arithmetic on int64 is checked: an overflow makes the operation give
 * up (leave the expression alone, or widen the interval to infinity).
 */
#ifndef TVM_CORE_IR_ARITH_INT_H
#define TVM_CORE_IR_ARITH_INT_H

#include <stdint.h>
#include "tvm/ir.h"

/* ---- checked int64 helpers ----------------------------------------------- */
/* Each returns 1 and writes *r when the exact result fits in int64. */
static inline int arith_add(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_add_overflow(a, b, r);
}
static inline int arith_sub(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_sub_overflow(a, b, r);
}
static inline int arith_mul(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_mul_overflow(a, b, r);
}
/* Floor division and modulo (round toward minus infinity); b != 0 and not
 * (a == INT64_MIN && b == -1), which callers check. */
static inline int64_t arith_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}
static inline int64_t arith_floormod(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}
/* Greatest common divisor of |a| and |b| (gcd(0, 0) == 0). */
int64_t arith_gcd(int64_t a, int64_t b);

/* Does v fit in the (scalar) integer or bool type t? */
int arith_fits(tvm_dtype t, int64_t v);
/* Is t a type the canonical affine form applies to (signed int of 32 or 64
 * bits, any lanes)?  Narrower and unsigned types only get constant folding
 * and identities, because they wrap. */
int arith_affine_type(tvm_dtype t);

/* ---- environment ------------------------------------------------------------ */
typedef struct arith_bind {
  const tvm_expr *var;
  tvm_expr *min, *extent;
} arith_bind;

typedef struct arith_env {
  tvm_ctx *ctx;
  const tvm_bounds *base; /* may be NULL */
  arith_bind *stack;      /* heap, innermost binding last */
  int n, cap;
  int lost;               /* pushes that found no memory */
  int budget;             /* remaining nested re-simplifications */
  int in_sym;             /* inside a symbolic proof: no nested ones */
  /* > 0 while simplifying a predicated store's index and value whose only
   * active lanes are [0, active_lanes) of active_width-lane vectors: the
   * other lanes are neither stored nor loaded, so their values may change
   * (simplify_stmt.c decides; predicates themselves are never simplified
   * so) */
  int active_lanes, active_width;
} arith_env;

void arith_env_init(arith_env *env, tvm_ctx *c, const tvm_bounds *b);
void arith_env_free(arith_env *env);
/* Binds var to [min, min + extent); 0 when out of memory (then lookups
 * simply do not see the binding, which is safe). */
int arith_env_push(arith_env *env, const tvm_expr *var, tvm_expr *min,
                   tvm_expr *extent);
void arith_env_pop(arith_env *env);
/* The range of var, innermost binding first, then the base bounds. */
int arith_env_lookup(const arith_env *env, const tvm_expr *var,
                     tvm_expr **min, tvm_expr **extent);

/* ---- constant intervals ------------------------------------------------------ */
#define ARITH_NEG_INF INT64_MIN
#define ARITH_POS_INF INT64_MAX
typedef struct arith_ival {
  int64_t lo, hi;
} arith_ival;

static inline arith_ival arith_ival_make(int64_t lo, int64_t hi) {
  arith_ival r;
  r.lo = lo;
  r.hi = hi;
  return r;
}
static inline int arith_ival_finite(arith_ival a) {
  return a.lo != ARITH_NEG_INF && a.hi != ARITH_POS_INF;
}
/* Interval arithmetic with saturation to infinity. */
arith_ival arith_ival_add(arith_ival a, arith_ival b);
arith_ival arith_ival_neg(arith_ival a);
arith_ival arith_ival_scale(arith_ival a, int64_t k);
arith_ival arith_ival_mul(arith_ival a, arith_ival b);
arith_ival arith_ival_union(arith_ival a, arith_ival b);
/* The values of e (every lane of a vector) under env; unbounded sides are
 * infinite.  Never fails. */
arith_ival arith_interval(arith_env *env, const tvm_expr *e);
/* The full range of an integer or bool type ([0, +inf] for uint64). */
arith_ival arith_dtype_range(tvm_dtype t);

/* Interval of scalar integer e through symbolic relaxation of variables
 * with non-constant ranges (arith_range.c); infinite when not applicable. */
arith_ival arith_sym_interval(arith_env *env, tvm_expr *e);

/* ---- canonical affine form ---------------------------------------------------- */
#define ARITH_AFFINE_MAX 48
typedef struct arith_affine {
  tvm_dtype dtype; /* scalar signed int32 or int64 */
  int n;           /* number of terms, each with a nonzero coefficient */
  int64_t coeff[ARITH_AFFINE_MAX];
  tvm_expr *term[ARITH_AFFINE_MAX];
  int64_t k;       /* constant */
} arith_affine;

void arith_affine_const(arith_affine *a, tvm_dtype t, int64_t k);
/* Parses an (already simplified) scalar expression of an affine type into
 * a; sub-expressions that are not add/sub/mul-by-constant/constant become
 * opaque terms.  Returns 0 on overflow or too many terms. */
int arith_affine_of(const tvm_expr *e, arith_affine *a);
/* a += scale * b; 0 on overflow or too many terms (a is then garbage). */
int arith_affine_add(arith_affine *a, const arith_affine *b, int64_t scale);
/* The coefficient of term t in a (0 when absent). */
int64_t arith_affine_coeff(const arith_affine *a, const tvm_expr *t);
/* a *= k; 0 on overflow. */
int arith_affine_scale(arith_affine *a, int64_t k);
/* Rewrites floordiv(X, c)*c*k + floormod(X, c)*k into X*k (bounded number
 * of rounds); 0 on overflow. */
int arith_affine_merge_divmod(arith_affine *a);
/* Builds the canonical expression: terms in order, then the constant.
 * NULL when a coefficient does not fit the dtype or out of memory. */
tvm_expr *arith_affine_to_expr(tvm_ctx *c, const arith_affine *a);
arith_ival arith_affine_interval(arith_env *env, const arith_affine *a);

/* ---- simplifier ---------------------------------------------------------------- */
/* Simplifies e under env (children first); never NULL for non-NULL e (on
 * out of memory it returns e itself and ctx->failed is set). */
tvm_expr *arith_simplify(arith_env *env, tvm_expr *e);
/* Applies the rules to a node whose children are already simplified, at
 * most env->budget levels deep (past it the node is returned as is). */
tvm_expr *arith_rewrite(arith_env *env, tvm_expr *e);
/* The canonical expression of an affine form built by a rule (terms moved
 * into a min/max where they cancel, then arith_affine_to_expr). */
tvm_expr *arith_emit(arith_env *env, const arith_affine *A);
/* Sums and products (arith_sum.c): e is ADD/SUB/MUL of a scalar affine
 * type with simplified children; returns the canonical form, or e. */
tvm_expr *arith_simplify_sum(arith_env *env, tvm_expr *e);
/* Division rules (arith_divmod.c): e is FLOORDIV/FLOORMOD/DIV/MOD whose
 * children are already simplified.  Returns the rewrite or NULL. */
tvm_expr *arith_simplify_divmod(arith_env *env, tvm_expr *e);

#endif /* TVM_CORE_IR_ARITH_INT_H */
