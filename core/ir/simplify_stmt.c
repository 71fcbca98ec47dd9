/*
 * core/ir/simplify_stmt.c - statement simplification (tvm_simplify_stmt).
 *
 * Walks the statement keeping the ranges of the enclosing loops (and of
 * integer lets) in the environment, so that guards of tiled loops fold
 * away; simplifies every expression; removes loops of extent 1 (except
 * thread-bound ones, whose axes the launch needs) by substituting their
 * min, and loops of extent <= 0; folds if(true/false); drops evaluations
 * of constants and statements left empty.  Internally NULL means "no
 * statement"; the public entry returns an empty sequence for that.
 */
#include <string.h>

#include "arith_int.h"

static tvm_stmt *stmt(arith_env *env, tvm_stmt *s);

/* Simplifies an optional expression under the current environment. */
static tvm_expr *ex(arith_env *env, tvm_expr *e) {
  return e ? arith_simplify(env, e) : e;
}

/* A scalar integer constant (or a broadcast of one). */
static int const_int(const tvm_expr *e, int64_t *v) {
  if (e && e->kind == TVM_BROADCAST) e = e->u.bcast.value;
  return e && e->kind == TVM_INT && e->dtype.lanes == 1 &&
         tvm_is_const_int(e, v);
}

/* A statement that does nothing, for places that need one. */
static tvm_stmt *nop(arith_env *env) {
  return tvm_evaluate(env->ctx, tvm_int(env->ctx, 0));
}

/* for (var, min, extent): extent <= 0 -> nothing; extent 1 -> the body
 * with var replaced by min (or bound by a let when min reads memory, which
 * the body may change); otherwise the body is simplified with var in
 * [min, min + extent). */
static tvm_stmt *simplify_for(arith_env *env, tvm_stmt *s) {
  tvm_expr *var = s->u.for_.var;
  tvm_expr *min = ex(env, s->u.for_.min), *extent = ex(env, s->u.for_.extent);
  tvm_stmt *body;
  int64_t n;
  int thread = s->u.for_.for_kind == TVM_FOR_THREAD;
  if (const_int(extent, &n) && n <= 0) return NULL;
  if (!thread && const_int(extent, &n) && n == 1 && !tvm_expr_is_pure(min)) {
    tvm_stmt *let = tvm_let_stmt(env->ctx, var, min, s->u.for_.body);
    return let ? stmt(env, let) : s; /* NULL: out of memory, ctx->failed */
  }
  if (!thread && const_int(extent, &n) && n == 1) {
    tvm_ptrmap map;
    memset(&map, 0, sizeof map);
    if (tvm_ptrmap_put(&map, var, min) == TVM_OK) {
      tvm_stmt *sub = tvm_substitute_stmt(env->ctx, s->u.for_.body, &map);
      tvm_ptrmap_free(&map);
      if (sub) return stmt(env, sub);
      return s; /* out of memory: ctx->failed is set */
    }
    tvm_ptrmap_free(&map);
  }
  arith_env_push(env, var, min, extent);
  body = stmt(env, s->u.for_.body);
  arith_env_pop(env);
  if (!body) return NULL;
  if (min == s->u.for_.min && extent == s->u.for_.extent && body == s->u.for_.body)
    return s;
  return tvm_for(env->ctx, var, min, extent, s->u.for_.for_kind,
                 s->u.for_.thread_tag, body);
}

/* Simplifies each statement, dropping the empty ones; NULL when none is
 * left, the statement itself when only one is. */
static tvm_stmt *simplify_seq(arith_env *env, tvm_stmt *s) {
  tvm_stmt **out;
  int i, n = 0, changed = 0;
  if (s->u.seq.n == 0) return NULL;
  out = tvm_ctx_alloc(env->ctx, (size_t)s->u.seq.n * sizeof *out);
  if (!out) return s;
  for (i = 0; i < s->u.seq.n; i++) {
    tvm_stmt *x = stmt(env, s->u.seq.stmts[i]);
    if (x != s->u.seq.stmts[i]) changed = 1;
    if (x) out[n++] = x;
  }
  if (n == 0) return NULL;
  if (n == 1) return out[0];
  if (!changed) return s;
  return tvm_seq(env->ctx, out, n);
}

/* A comparison of one loop variable with constants, k*v + c0 OP 0, as
 * a*v + b <= 0 (negated: the else-branch's); 0 when cond is not one. */
static int linear_cond(arith_env *env, const tvm_expr *cond, int negate,
                       const tvm_expr **var, int64_t *a, int64_t *b) {
  arith_affine D, R;
  int64_t strict, sign, k, c;
  tvm_expr *min, *extent;
  switch (cond->kind) {
  case TVM_LT: strict = 1; sign = 1; break;
  case TVM_LE: strict = 0; sign = 1; break;
  case TVM_GT: strict = 1; sign = -1; break;
  case TVM_GE: strict = 0; sign = -1; break;
  default: return 0;
  }
  if (cond->u.bin.a->dtype.lanes != 1 ||
      !arith_affine_type(cond->u.bin.a->dtype) ||
      !arith_affine_of(cond->u.bin.a, &D) || !arith_affine_of(cond->u.bin.b, &R) ||
      !arith_affine_add(&D, &R, -1) || D.n != 1 || D.term[0]->kind != TVM_VAR ||
      !arith_env_lookup(env, D.term[0], &min, &extent))
    return 0;
  /* sign*(D) + strict <= 0; negated: -(sign*D) + 1 - strict <= 0 */
  if (!arith_mul(sign, D.coeff[0], &k) || !arith_mul(sign, D.k, &c) ||
      !arith_add(c, strict, &c))
    return 0;
  if (negate && (!arith_mul(k, -1, &k) || !arith_sub(1, c, &c)))
    return 0;
  *var = D.term[0];
  *a = k;
  *b = c;
  return 1;
}

/* Binds the loop variable of a linear condition (see linear_cond) to the
 * part of its constant range where the condition holds, so a tail guard's
 * branches simplify as loops of their own: 1 when bound (pop it after). */
static int narrow_by(arith_env *env, const tvm_expr *cond, int negate) {
  const tvm_expr *var;
  tvm_expr *min, *extent;
  int64_t a, b, lo, n, hi;
  if (!cond || !linear_cond(env, cond, negate, &var, &a, &b) ||
      !arith_env_lookup(env, var, &min, &extent) || !const_int(min, &lo) ||
      !const_int(extent, &n) || n <= 0 || !arith_add(lo, n - 1, &hi) ||
      a == 0 || b == INT64_MIN)
    return 0;
  if (a > 0) { /* v <= floor(-b / a) */
    int64_t top = arith_floordiv(-b, a);
    if (top < hi) hi = top;
  } else { /* v >= ceil(b / -a) */
    int64_t bot = -arith_floordiv(-b, -a);
    if (bot > lo) lo = bot;
  }
  if (hi < lo || hi - lo + 1 == n) /* unreachable, or nothing learnt */
    return 0;
  return arith_env_push(env, var, tvm_const(env->ctx, var->dtype, lo),
                        tvm_const(env->ctx, var->dtype, hi - lo + 1));
}

/* Simplifies a branch of an if knowing its condition (negate: the else
 * branch) where it bounds a loop variable. */
static tvm_stmt *branch(arith_env *env, tvm_stmt *s, const tvm_expr *cond,
                        int negate) {
  int pushed = 0;
  tvm_stmt *r;
  if (!negate && cond->kind == TVM_AND) {
    pushed += narrow_by(env, cond->u.bin.a, 0);
    pushed += narrow_by(env, cond->u.bin.b, 0);
  } else {
    pushed += narrow_by(env, cond, negate);
  }
  r = stmt(env, s);
  while (pushed-- > 0)
    arith_env_pop(env);
  return r;
}

/* if (const) picks its branch; an empty then-branch with an else becomes
 * if (!cond) else; nothing left in either branch drops the if.  Each
 * branch is simplified with the loop ranges its condition implies. */
static tvm_stmt *simplify_if(arith_env *env, tvm_stmt *s) {
  tvm_expr *cond = ex(env, s->u.if_.cond);
  tvm_stmt *then_, *else_;
  int64_t v;
  if (const_int(cond, &v)) return stmt(env, v ? s->u.if_.then_ : s->u.if_.else_);
  then_ = branch(env, s->u.if_.then_, cond, 0);
  else_ = s->u.if_.else_ ? branch(env, s->u.if_.else_, cond, 1) : NULL;
  if (!then_ && !else_) return NULL;
  if (!then_) return tvm_if(env->ctx, ex(env, tvm_not(env->ctx, cond)), else_, NULL);
  if (cond == s->u.if_.cond && then_ == s->u.if_.then_ && else_ == s->u.if_.else_)
    return s;
  return tvm_if(env->ctx, cond, then_, else_);
}

/* let var = value: constants and variables are substituted into the body;
 * otherwise the body is simplified knowing var == value (integers). */
static tvm_stmt *simplify_let(arith_env *env, tvm_stmt *s) {
  tvm_expr *var = s->u.let.var, *val = ex(env, s->u.let.value);
  tvm_stmt *body;
  int bound = 0;
  if (val->kind == TVM_INT || val->kind == TVM_FLOAT || val->kind == TVM_VAR) {
    tvm_ptrmap map;
    memset(&map, 0, sizeof map);
    if (tvm_ptrmap_put(&map, var, val) == TVM_OK) {
      tvm_stmt *sub = tvm_substitute_stmt(env->ctx, s->u.let.body, &map);
      tvm_ptrmap_free(&map);
      if (sub) return stmt(env, sub);
      return s;
    }
    tvm_ptrmap_free(&map);
  }
  if ((var->dtype.code == kDLInt || var->dtype.code == kDLUInt) &&
      var->dtype.lanes == 1) {
    arith_env_push(env, var, val, tvm_const(env->ctx, var->dtype, 1));
    bound = 1;
  }
  body = stmt(env, s->u.let.body);
  if (bound) arith_env_pop(env);
  if (!body) return NULL;
  if (val == s->u.let.value && body == s->u.let.body) return s;
  return tvm_let_stmt(env->ctx, var, val, body);
}

/* Allocation: extent and body; an empty body drops the allocation. */
static tvm_stmt *simplify_alloc(arith_env *env, tvm_stmt *s) {
  tvm_expr *extent = ex(env, s->u.alloc.extent);
  tvm_stmt *body = stmt(env, s->u.alloc.body), *r;
  if (!body) return NULL;
  if (extent == s->u.alloc.extent && body == s->u.alloc.body) return s;
  r = tvm_allocate(env->ctx, s->u.alloc.buffer, s->u.alloc.dtype, extent,
                   s->u.alloc.scope, body);
  if (r) r->u.alloc.align = s->u.alloc.align;
  return r;
}

/* Provide (pre-flatten store): indices and value. */
static tvm_stmt *simplify_provide(arith_env *env, tvm_stmt *s) {
  int i, n = s->u.provide.n, changed = 0;
  tvm_expr **idx = tvm_ctx_alloc(env->ctx, (size_t)(n > 0 ? n : 1) * sizeof *idx);
  tvm_expr *val = ex(env, s->u.provide.value);
  if (!idx) return s;
  for (i = 0; i < n; i++) {
    idx[i] = ex(env, s->u.provide.indices[i]);
    if (idx[i] != s->u.provide.indices[i]) changed = 1;
  }
  if (!changed && val == s->u.provide.value) return s;
  return tvm_provide(env->ctx, s->u.provide.tensor, idx, n, val);
}

/* Realize: bounds and body; an empty body drops it. */
static tvm_stmt *simplify_realize(arith_env *env, tvm_stmt *s) {
  int i, n = s->u.realize.n, changed = 0;
  tvm_range *rb = tvm_ctx_alloc(env->ctx, (size_t)(n > 0 ? n : 1) * sizeof *rb);
  tvm_stmt *body = stmt(env, s->u.realize.body);
  if (!rb) return s;
  if (!body) return NULL;
  for (i = 0; i < n; i++) {
    rb[i].min = ex(env, s->u.realize.bounds[i].min);
    rb[i].extent = ex(env, s->u.realize.bounds[i].extent);
    if (rb[i].min != s->u.realize.bounds[i].min ||
        rb[i].extent != s->u.realize.bounds[i].extent)
      changed = 1;
  }
  if (!changed && body == s->u.realize.body) return s;
  return tvm_realize(env->ctx, s->u.realize.tensor, rb, n, s->u.realize.scope, body);
}

/* Does e compute lane by lane, reading memory only through loads masked
 * by pred?  Then its lanes outside pred's may take other values. */
static int lanewise_masked(const tvm_expr *e, const tvm_expr *pred) {
  if (!e) return 1;
  switch (e->kind) {
  case TVM_INT: case TVM_FLOAT: case TVM_VAR:
    return 1;
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_DIV: case TVM_MOD:
  case TVM_FLOORDIV: case TVM_FLOORMOD: case TVM_MIN: case TVM_MAX:
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE: case TVM_AND: case TVM_OR:
    return lanewise_masked(e->u.bin.a, pred) && lanewise_masked(e->u.bin.b, pred);
  case TVM_NOT: case TVM_CAST:
    return lanewise_masked(e->u.un.a, pred);
  case TVM_SELECT:
    return lanewise_masked(e->u.sel.cond, pred) &&
           lanewise_masked(e->u.sel.t, pred) && lanewise_masked(e->u.sel.f, pred);
  case TVM_RAMP:
    return lanewise_masked(e->u.ramp.base, pred) &&
           lanewise_masked(e->u.ramp.stride, pred);
  case TVM_BROADCAST:
    return lanewise_masked(e->u.bcast.value, pred);
  case TVM_LOAD:
    return e->dtype.lanes == 1 ? lanewise_masked(e->u.load.index, pred)
           : e->u.load.pred && tvm_expr_equal(e->u.load.pred, pred) &&
                 lanewise_masked(e->u.load.index, pred);
  default: /* calls, shuffles, lets: not known to keep lanes apart */
    return 0;
  }
}

/* A vector store masked by pred = ramp(b, 1, n) < x(L) (the vector tail
 * of a loop whose extent is not a multiple of n) stores lanes j with
 * b + j < L only: when b's range bounds that below n lanes, and index and
 * value compute lane by lane through loads under the same mask, the
 * number of lanes that matter; 0 otherwise. */
static int active_lanes(arith_env *env, const tvm_stmt *s, const tvm_expr *pred) {
  const tvm_expr *r, *l;
  int n = s->u.store.value->dtype.lanes;
  int64_t s1, lim, k;
  arith_ival ib;
  if (!pred || n <= 1 || pred->kind != TVM_LT) return 0;
  r = pred->u.bin.a;
  l = pred->u.bin.b;
  if (r->kind != TVM_RAMP || r->u.ramp.lanes != n || !const_int(r->u.ramp.stride, &s1) ||
      s1 != 1 || l->kind != TVM_BROADCAST || !const_int(l, &lim))
    return 0;
  ib = arith_interval(env, r->u.ramp.base);
  if (ib.lo == ARITH_NEG_INF || !arith_sub(lim, ib.lo, &k) || k >= n || k <= 0)
    return 0;
  if (!lanewise_masked(s->u.store.index, pred) ||
      !lanewise_masked(s->u.store.value, pred))
    return 0;
  return (int)k;
}

/* Simplifies s; NULL when nothing is left. */
static tvm_stmt *stmt(arith_env *env, tvm_stmt *s) {
  tvm_expr *a, *b, *c, *d;
  tvm_stmt *body;
  int64_t v;
  if (!s) return NULL;
  switch (s->kind) {
  case TVM_FOR: return simplify_for(env, s);
  case TVM_SEQ: return simplify_seq(env, s);
  case TVM_IF: return simplify_if(env, s);
  case TVM_LET_STMT: return simplify_let(env, s);
  case TVM_ALLOCATE: return simplify_alloc(env, s);
  case TVM_PROVIDE: return simplify_provide(env, s);
  case TVM_REALIZE: return simplify_realize(env, s);
  case TVM_STORE:
    c = ex(env, s->u.store.pred);
    env->active_lanes = active_lanes(env, s, s->u.store.pred);
    env->active_width = env->active_lanes ? s->u.store.value->dtype.lanes : 0;
    a = ex(env, s->u.store.index);
    b = ex(env, s->u.store.value);
    env->active_lanes = env->active_width = 0;
    if (a == s->u.store.index && b == s->u.store.value && c == s->u.store.pred)
      return s;
    return tvm_store(env->ctx, s->u.store.buffer, a, b, c);
  case TVM_ATTR:
    d = ex(env, s->u.attr.value);
    body = stmt(env, s->u.attr.body);
    if (!body) return NULL;
    if (d == s->u.attr.value && body == s->u.attr.body) return s;
    return tvm_attr(env->ctx, s->u.attr.key, s->u.attr.node, d, body);
  case TVM_EVALUATE:
    a = ex(env, s->u.eval.value);
    if (!a || a->kind == TVM_INT || a->kind == TVM_FLOAT) return NULL;
    return a == s->u.eval.value ? s : tvm_evaluate(env->ctx, a);
  case TVM_ASSERT:
    a = ex(env, s->u.assert_.cond);
    body = stmt(env, s->u.assert_.body);
    if (const_int(a, &v) && v != 0) return body;
    if (a == s->u.assert_.cond && body == s->u.assert_.body) return s;
    return tvm_assert(env->ctx, a, s->u.assert_.msg, body ? body : nop(env));
  default:
    return s;
  }
}

/* See tvm/ir.h.  Returns an empty sequence when nothing is left. */
tvm_stmt *tvm_simplify_stmt(tvm_ctx *c, tvm_stmt *s, const tvm_bounds *b) {
  arith_env env;
  tvm_stmt *r;
  if (!c || !s) return s;
  arith_env_init(&env, c, b);
  r = stmt(&env, s);
  arith_env_free(&env);
  if (!r) r = tvm_seq(c, NULL, 0);
  return r;
}
