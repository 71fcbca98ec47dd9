/*
 * core/ir/mutate.c - rewriting expressions and statements, and variable
 * substitution built on it.
 *
 * A mutator visits the same children as the visitor (see visit.c: defining
 * variables, tensors, iteration variables and attr nodes are left alone).
 * The default action mutates the children and rebuilds the node with its
 * constructor only when some child pointer changed; otherwise the original
 * node is returned, so an unchanged tree keeps its pointer identity.
 * Rebuilding re-applies the constructor's type rules, so e.g. substituting
 * a constant for a variable converts it to the surrounding type; a cast or
 * a load whose operand became a vector follows the new lanes.
 * A child that mutates to NULL (a failure) makes its parent NULL.
 */
#include <string.h>

#include "ir_int.h"
#include "tvm/te.h"

/* Mutates a list of n expressions; *out is src when nothing changed, else
 * a new arena array.  Returns 0 on failure. */
static int mutate_list(tvm_mutator *m, tvm_expr **src, int n,
                       tvm_expr ***out) {
  tvm_expr **res = src;
  for (int i = 0; i < n; i++) {
    tvm_expr *x = tvm_mutate_expr(m, src[i]);
    if (!x) return 0;
    if (x != src[i] && res == src) {
      res = tvm_ctx_alloc(m->ctx, sizeof(tvm_expr *) * (size_t)n);
      if (!res) return 0;
      memcpy(res, src, sizeof(tvm_expr *) * (size_t)n);
    }
    res[i] = x;
  }
  *out = res;
  return 1;
}

/* Mutates an optional child: *ok becomes 0 when a present child failed. */
static tvm_expr *opt(tvm_mutator *m, tvm_expr *e, int *ok) {
  if (!e) return NULL;
  tvm_expr *r = tvm_mutate_expr(m, e);
  if (!r) *ok = 0;
  return r;
}

/* The default rewrite of e: children mutated, node rebuilt if one
 * changed. */
tvm_expr *tvm_mutate_expr_children(tvm_mutator *m, tvm_expr *e) {
  tvm_ctx *c = m->ctx;
  int ok = 1;
  if (!e) return NULL;
  switch (e->kind) {
  case TVM_INT:
  case TVM_FLOAT:
  case TVM_STR:
  case TVM_VAR:
  case TVM_EXPR_KIND_COUNT:
    return e;
  case TVM_NOT: {
    tvm_expr *a = tvm_mutate_expr(m, e->u.un.a);
    if (!a) return NULL;
    return a == e->u.un.a ? e : tvm_not(c, a);
  }
  case TVM_CAST: {
    tvm_expr *a = tvm_mutate_expr(m, e->u.un.a);
    if (!a) return NULL;
    if (a == e->u.un.a) return e;
    return tvm_cast(c, tvm_dtype_with_lanes(e->dtype, a->dtype.lanes), a);
  }
  case TVM_SELECT: {
    tvm_expr *cd = tvm_mutate_expr(m, e->u.sel.cond);
    tvm_expr *t = tvm_mutate_expr(m, e->u.sel.t);
    tvm_expr *f = tvm_mutate_expr(m, e->u.sel.f);
    if (!cd || !t || !f) return NULL;
    if (cd == e->u.sel.cond && t == e->u.sel.t && f == e->u.sel.f) return e;
    return tvm_select(c, cd, t, f);
  }
  case TVM_CALL: {
    tvm_expr **args;
    if (!mutate_list(m, e->u.call.args, e->u.call.nargs, &args)) return NULL;
    if (args == e->u.call.args) return e;
    if (e->u.call.op == TVM_INTRIN_EXTERN)
      return tvm_call_extern(c, e->dtype, e->u.call.name, args, e->u.call.nargs);
    return tvm_call(c, e->dtype, e->u.call.op, args, e->u.call.nargs);
  }
  case TVM_LOAD: {
    tvm_expr *b = tvm_mutate_expr(m, e->u.load.buffer);
    tvm_expr *i = tvm_mutate_expr(m, e->u.load.index);
    tvm_expr *p = opt(m, e->u.load.pred, &ok);
    if (!b || !i || !ok) return NULL;
    if (b == e->u.load.buffer && i == e->u.load.index && p == e->u.load.pred)
      return e;
    tvm_dtype t = e->dtype;
    if (t.lanes == e->u.load.index->dtype.lanes) t = tvm_dtype_element(t);
    return tvm_load(c, t, b, i, p);
  }
  case TVM_RAMP: {
    tvm_expr *b = tvm_mutate_expr(m, e->u.ramp.base);
    tvm_expr *s = tvm_mutate_expr(m, e->u.ramp.stride);
    if (!b || !s) return NULL;
    if (b == e->u.ramp.base && s == e->u.ramp.stride) return e;
    return tvm_ramp(c, b, s, e->u.ramp.lanes);
  }
  case TVM_BROADCAST: {
    tvm_expr *v = tvm_mutate_expr(m, e->u.bcast.value);
    if (!v) return NULL;
    return v == e->u.bcast.value ? e : tvm_broadcast(c, v, e->u.bcast.lanes);
  }
  case TVM_LET: {
    tvm_expr *v = tvm_mutate_expr(m, e->u.let.value);
    tvm_expr *b = tvm_mutate_expr(m, e->u.let.body);
    if (!v || !b) return NULL;
    if (v == e->u.let.value && b == e->u.let.body) return e;
    return tvm_let(c, e->u.let.var, v, b);
  }
  case TVM_TREAD: {
    tvm_expr **idx;
    if (!mutate_list(m, e->u.tread.indices, e->u.tread.n, &idx)) return NULL;
    if (idx == e->u.tread.indices) return e;
    return tvm_tread(c, e->u.tread.tensor, idx, e->u.tread.n);
  }
  case TVM_REDUCE: {
    tvm_expr *src = tvm_mutate_expr(m, e->u.reduce.source);
    tvm_expr *cd = opt(m, e->u.reduce.cond, &ok);
    if (!src || !ok) return NULL;
    if (src == e->u.reduce.source && cd == e->u.reduce.cond) return e;
    tvm_expr *r = ir_expr_new(c, TVM_REDUCE, src->dtype);
    if (!r) return NULL;
    r->u.reduce = e->u.reduce;
    r->u.reduce.source = src;
    r->u.reduce.cond = cd;
    return r;
  }
  default: {
    tvm_expr *a = tvm_mutate_expr(m, e->u.bin.a);
    tvm_expr *b = tvm_mutate_expr(m, e->u.bin.b);
    if (!a || !b) return NULL;
    if (a == e->u.bin.a && b == e->u.bin.b) return e;
    return tvm_binary(c, e->kind, a, b);
  }
  }
}

/* The hook's replacement for e, or the default rewrite when there is no
 * hook or it returned NULL.  NULL e gives NULL. */
tvm_expr *tvm_mutate_expr(tvm_mutator *m, tvm_expr *e) {
  if (!e) return NULL;
  if (m->expr) {
    tvm_expr *r = m->expr(m, e);
    if (r) return r;
  }
  return tvm_mutate_expr_children(m, e);
}

/* Mutates an optional statement child. */
static tvm_stmt *opt_stmt(tvm_mutator *m, tvm_stmt *s, int *ok) {
  if (!s) return NULL;
  tvm_stmt *r = tvm_mutate_stmt(m, s);
  if (!r) *ok = 0;
  return r;
}

/* The default rewrite of s: children mutated, node rebuilt if one
 * changed. */
tvm_stmt *tvm_mutate_stmt_children(tvm_mutator *m, tvm_stmt *s) {
  tvm_ctx *c = m->ctx;
  int ok = 1;
  if (!s) return NULL;
  switch (s->kind) {
  case TVM_FOR: {
    tvm_expr *mn = tvm_mutate_expr(m, s->u.for_.min);
    tvm_expr *ex = tvm_mutate_expr(m, s->u.for_.extent);
    tvm_stmt *b = tvm_mutate_stmt(m, s->u.for_.body);
    if (!mn || !ex || !b) return NULL;
    if (mn == s->u.for_.min && ex == s->u.for_.extent && b == s->u.for_.body)
      return s;
    return tvm_for(c, s->u.for_.var, mn, ex, s->u.for_.for_kind,
                   s->u.for_.thread_tag, b);
  }
  case TVM_SEQ: {
    int n = s->u.seq.n;
    tvm_stmt **res = s->u.seq.stmts;
    for (int i = 0; i < n; i++) {
      tvm_stmt *x = tvm_mutate_stmt(m, s->u.seq.stmts[i]);
      if (!x) return NULL;
      if (x != s->u.seq.stmts[i] && res == s->u.seq.stmts) {
        res = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)n);
        if (!res) return NULL;
        memcpy(res, s->u.seq.stmts, sizeof(tvm_stmt *) * (size_t)n);
      }
      res[i] = x;
    }
    return res == s->u.seq.stmts ? s : tvm_seq(c, res, n);
  }
  case TVM_IF: {
    tvm_expr *cd = tvm_mutate_expr(m, s->u.if_.cond);
    tvm_stmt *t = tvm_mutate_stmt(m, s->u.if_.then_);
    tvm_stmt *f = opt_stmt(m, s->u.if_.else_, &ok);
    if (!cd || !t || !ok) return NULL;
    if (cd == s->u.if_.cond && t == s->u.if_.then_ && f == s->u.if_.else_)
      return s;
    return tvm_if(c, cd, t, f);
  }
  case TVM_LET_STMT: {
    tvm_expr *v = tvm_mutate_expr(m, s->u.let.value);
    tvm_stmt *b = tvm_mutate_stmt(m, s->u.let.body);
    if (!v || !b) return NULL;
    if (v == s->u.let.value && b == s->u.let.body) return s;
    return tvm_let_stmt(c, s->u.let.var, v, b);
  }
  case TVM_STORE: {
    tvm_expr *b = tvm_mutate_expr(m, s->u.store.buffer);
    tvm_expr *i = tvm_mutate_expr(m, s->u.store.index);
    tvm_expr *v = tvm_mutate_expr(m, s->u.store.value);
    tvm_expr *p = opt(m, s->u.store.pred, &ok);
    if (!b || !i || !v || !ok) return NULL;
    if (b == s->u.store.buffer && i == s->u.store.index &&
        v == s->u.store.value && p == s->u.store.pred)
      return s;
    return tvm_store(c, b, i, v, p);
  }
  case TVM_ALLOCATE: {
    tvm_expr *ex = tvm_mutate_expr(m, s->u.alloc.extent);
    tvm_stmt *b = tvm_mutate_stmt(m, s->u.alloc.body);
    if (!ex || !b) return NULL;
    if (ex == s->u.alloc.extent && b == s->u.alloc.body) return s;
    tvm_stmt *r = tvm_allocate(c, s->u.alloc.buffer, s->u.alloc.dtype, ex,
                               s->u.alloc.scope, b);
    if (r) r->u.alloc.align = s->u.alloc.align;
    return r;
  }
  case TVM_ATTR: {
    tvm_expr *v = opt(m, s->u.attr.value, &ok);
    tvm_stmt *b = tvm_mutate_stmt(m, s->u.attr.body);
    if (!ok || !b) return NULL;
    if (v == s->u.attr.value && b == s->u.attr.body) return s;
    return tvm_attr(c, s->u.attr.key, s->u.attr.node, v, b);
  }
  case TVM_EVALUATE: {
    tvm_expr *v = tvm_mutate_expr(m, s->u.eval.value);
    if (!v) return NULL;
    return v == s->u.eval.value ? s : tvm_evaluate(c, v);
  }
  case TVM_BARRIER:
  case TVM_STMT_KIND_COUNT:
    return s;
  case TVM_ASSERT: {
    tvm_expr *cd = tvm_mutate_expr(m, s->u.assert_.cond);
    tvm_stmt *b = opt_stmt(m, s->u.assert_.body, &ok);
    if (!cd || !ok) return NULL;
    if (cd == s->u.assert_.cond && b == s->u.assert_.body) return s;
    return tvm_assert(c, cd, s->u.assert_.msg, b);
  }
  case TVM_PROVIDE: {
    tvm_expr **idx;
    if (!mutate_list(m, s->u.provide.indices, s->u.provide.n, &idx)) return NULL;
    tvm_expr *v = tvm_mutate_expr(m, s->u.provide.value);
    if (!v) return NULL;
    if (idx == s->u.provide.indices && v == s->u.provide.value) return s;
    return tvm_provide(c, s->u.provide.tensor, idx, s->u.provide.n, v);
  }
  case TVM_REALIZE: {
    int n = s->u.realize.n, changed = 0;
    tvm_range *nb = NULL;
    if (n > 0) {
      nb = tvm_ctx_alloc(c, sizeof(tvm_range) * (size_t)n);
      if (!nb) return NULL;
    }
    for (int i = 0; i < n; i++) {
      nb[i].min = tvm_mutate_expr(m, s->u.realize.bounds[i].min);
      nb[i].extent = tvm_mutate_expr(m, s->u.realize.bounds[i].extent);
      if (!nb[i].min || !nb[i].extent) return NULL;
      changed |= nb[i].min != s->u.realize.bounds[i].min ||
                 nb[i].extent != s->u.realize.bounds[i].extent;
    }
    tvm_stmt *b = tvm_mutate_stmt(m, s->u.realize.body);
    if (!b) return NULL;
    if (!changed && b == s->u.realize.body) return s;
    return tvm_realize(c, s->u.realize.tensor, nb, n, s->u.realize.scope, b);
  }
  }
  return s;
}

/* The hook's replacement for s, or the default rewrite.  NULL s gives
 * NULL. */
tvm_stmt *tvm_mutate_stmt(tvm_mutator *m, tvm_stmt *s) {
  if (!s) return NULL;
  if (m->stmt) {
    tvm_stmt *r = m->stmt(m, s);
    if (r) return r;
  }
  return tvm_mutate_stmt_children(m, s);
}

/* Hook: a mapped variable becomes its replacement. */
static tvm_expr *subst_expr(tvm_mutator *m, tvm_expr *e) {
  void *r;
  if (e->kind == TVM_VAR && tvm_ptrmap_get(m->data, e, &r)) return r;
  return NULL;
}

/* e with every use of a variable in map (var -> tvm_expr*) replaced.
 * Defining positions (let variables) are not replaced.  Returns e itself
 * when nothing was replaced. */
tvm_expr *tvm_substitute(tvm_ctx *c, tvm_expr *e, const tvm_ptrmap *map) {
  tvm_mutator m = {c, subst_expr, NULL, (void *)map};
  if (!map || map->len == 0) return e;
  return tvm_mutate_expr(&m, e);
}

/* s with every use of a variable in map replaced (loop, let and allocate
 * variables in defining positions are kept).  Returns s itself when
 * nothing was replaced. */
tvm_stmt *tvm_substitute_stmt(tvm_ctx *c, tvm_stmt *s, const tvm_ptrmap *map) {
  tvm_mutator m = {c, subst_expr, NULL, (void *)map};
  if (!map || map->len == 0) return s;
  return tvm_mutate_stmt(&m, s);
}
