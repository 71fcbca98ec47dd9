/*
 * core/lower/bound.c - bound inference: the range of every iteration
 * variable of every stage.
 *
 * Stages are visited consumers first.  An output stage (or one nobody
 * reads) covers its whole domain.  Any other stage covers the union of
 * the regions its consumers read, evaluated by interval analysis
 * (tvm_eval_range) over the consumer's loops that lie INSIDE the
 * producer's attach point: loops outside it are fixed symbols, so the
 * region of a compute_at producer is a tile that moves with them.  Loops
 * bound to threads follow lower_thread_needs_relax.  An index interval
 * analysis cannot bound (a gather) covers the whole dimension.  Where a
 * consumer's split does not divide, its relaxed axis range is clamped to
 * the axis's own range.  The root ranges are
 * then pushed down the split/fuse relations to the leaves.  Ranges are in
 * the loop convention of lower_int.h: symbolic mins are expressions of
 * loop variables, and every leaf loop runs from 0.
 */
#include <string.h>

#include "lower_int.h"

/* Adds the loop of leaf iv of stage st to the relaxed bounds. */
static tvm_status relax_leaf(tvm_ctx *c, const tvm_ptrmap *ranges,
                             const tvm_stage *st, tvm_iter_var *iv,
                             tvm_bounds *b) {
  tvm_range *r = lower_range_of(ranges, iv);
  if (!r)
    return tvm_diag_set(TVM_ERR_INTERNAL,
                        "infer_bound: axis %s of stage %s has no range yet "
                        "(a consumer is scheduled before its producer?)",
                        iv->var->u.var.name, st->op->name);
  tvm_range *loop = lower_range_new(c, tvm_int(c, 0), r->extent);
  if (!loop)
    return tvm_ctx_status(c);
  return tvm_bounds_set(b, iv->var, loop);
}

/* Is leaf iv of st bound to a thread that the producer (stored in scope)
 * must cover entirely? */
static int thread_relax(const tvm_stage *st, tvm_iter_var *iv,
                        const char *scope) {
  tvm_iv_attr *a = lower_iv_attr(st, iv);
  if (!a || !a->bind_thread)
    return 0;
  return lower_thread_needs_relax(scope, a->bind_thread->thread_tag);
}

/* Collects into b the loops enclosing consumer `cons` that producer
 * `prod` must cover: every loop inside prod's attach point, plus thread
 * loops outside it by the thread rule (with `all`, every loop enclosing
 * the consumer).  Walks from the consumer's own nest out through the
 * stages it is attached to. */
static tvm_status collect_relaxed(tvm_ctx *c, const tvm_ptrmap *ranges,
                                  const lower_stage *prod,
                                  const lower_stage *cons, int all,
                                  tvm_bounds *b) {
  const tvm_stage *ps = prod->st;
  const tvm_stage *at = ps->attach == TVM_ATTACH_SCOPE ? ps->attach_stage : NULL;
  int at_idx = at ? lower_leaf_index(at, ps->attach_ivar) : -1;
  if (at && at_idx < 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "infer_bound: stage %s is computed at axis %s of %s, "
                        "which is not a leaf axis of that stage (was it split "
                        "after compute_at?); call compute_at after the "
                        "consumer's splits",
                        ps->op->name, ps->attach_ivar->var->u.var.name,
                        at->op->name);
  const tvm_stage *cur = cons->st;
  int hi = lower_nleaves(cur) - 1;
  int outside = 0;
  int guard = 0;
  for (;;) {
    for (int l = 0; l <= hi; l++) {
      tvm_iter_var *iv = lower_leaf(cur, l);
      int inside = all || (!outside && !(cur == at && l <= at_idx));
      if (inside || thread_relax(cur, iv, ps->scope)) {
        tvm_status s = relax_leaf(c, ranges, cur, iv, b);
        if (s != TVM_OK)
          return s;
      }
    }
    if (cur == at)
      outside = 1;
    if (cur->attach != TVM_ATTACH_SCOPE || !cur->attach_stage)
      break;
    hi = lower_leaf_index(cur->attach_stage, cur->attach_ivar);
    cur = cur->attach_stage;
    if (hi < 0 || ++guard > 1000)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "infer_bound: stage %s is attached to an axis that "
                          "is not a leaf of %s",
                          cons->op->name, cur->op->name);
  }
  if (at && !outside)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "infer_bound: stage %s is computed at %s.%s but its "
                        "consumer %s is not nested under that loop; compute "
                        "it at a loop that encloses all its consumers",
                        ps->op->name, at->op->name,
                        ps->attach_ivar->var->u.var.name, cons->op->name);
  return TVM_OK;
}

/* Keeps a read region inside the declared domain of the producer's
 * axis when both are constant: nothing outside it is ever computed.  An
 * index interval analysis cannot bound (a gather: A[B[i]]; NULL or
 * non-constant extent) covers the whole constant domain. */
static void clamp_to_dom(tvm_ctx *c, tvm_range *r, const tvm_iter_var *ax) {
  int64_t d0, de, r0, re;
  if (!ax->dom.min || !ax->dom.extent || !tvm_is_const_int(ax->dom.min, &d0) ||
      !tvm_is_const_int(ax->dom.extent, &de))
    return;
  if (!r->min || !r->extent || !tvm_is_const_int(r->extent, &re)) {
    *r = ax->dom;
    return;
  }
  if (!tvm_is_const_int(r->min, &r0))
    return;
  int64_t lo = r0 > d0 ? r0 : d0;
  int64_t hi = r0 + re < d0 + de ? r0 + re : d0 + de;
  if (hi <= lo)
    return; /* reads only outside the domain: leave it to the guards */
  r->min = tvm_int(c, lo);
  r->extent = tvm_int(c, hi - lo);
}

/* Where a read index combines root axes that come from one fused loop
 * (a consumer's (oh, ow) fused into pixels: oh*OW + ow with oh =
 * floordiv(px, OW) and ow = floormod(px, OW)), the roots' ranges taken
 * one by one cover whole rows; the index written in the loop variables
 * and simplified (knowing every loop's range, `loops`) is px itself.
 * *ir becomes that form's range when it is constant, or narrower than
 * *ir's (both are sound: the same index over the same loops).  Not for
 * an index that reads memory (a gather), whose region stays the whole
 * domain. */
static void tight_range(tvm_ctx *c, tvm_expr *index, const tvm_ptrmap *byvar,
                        const tvm_bounds *relaxed, const tvm_bounds *loops,
                        tvm_range *ir) {
  int64_t ext, ext0 = -1, min0;
  /* a constant range is kept when it is one element or has a symbolic
   * min (already a moving tile) */
  if (ir->extent && tvm_is_const_int(ir->extent, &ext0) &&
      !(ir->min && tvm_is_const_int(ir->min, &min0) && ext0 > 1))
    return;
  if (!tvm_expr_is_pure(index)) return; /* A[B[i]]: the whole domain */
  tvm_expr *e = tvm_substitute(c, index, byvar);
  if (e) e = tvm_simplify(c, e, loops);
  if (!e || c->failed) return;
  tvm_range r = tvm_eval_range(c, e, relaxed);
  if (c->failed || !r.min || !r.extent || !tvm_is_const_int(r.extent, &ext) ||
      ext < 1 || (ext0 > 0 && ext >= ext0))
    return;
  *ir = r;
}

/* The region of prod read by one consumer, unioned into acc[]. */
static tvm_status consumer_region(tvm_ctx *c, const tvm_ptrmap *ranges,
                                  const lower_stage *prod,
                                  const lower_stage *cons, tvm_range **acc) {
  tvm_bounds relaxed = {0}, roots = {0}, loops = {0};
  tvm_ptrmap values = {0}, byvar = {0};
  tvm_status s = collect_relaxed(c, ranges, prod, cons, 0, &relaxed);
  if (s == TVM_OK) s = collect_relaxed(c, ranges, prod, cons, 1, &loops);
  if (s == TVM_OK)
    s = lower_iv_values(c, cons->st, ranges, &values);
  for (int r = 0; s == TVM_OK && r < cons->nroots; r++) {
    tvm_iter_var *iv = cons->roots[r];
    void *v = NULL;
    if (!tvm_ptrmap_get(&values, iv, &v)) {
      s = tvm_diag_set(TVM_ERR_INTERNAL,
                       "infer_bound: root axis %s of %s has no value",
                       iv->var->u.var.name, cons->op->name);
      break;
    }
    tvm_range rr = tvm_eval_range(c, v, &relaxed);
    tvm_range *own = lower_range_of(ranges, iv);
    int64_t a0, ae, b0, be;
    /* a split that does not divide overshoots: clamp to the axis range */
    if (own && rr.min && rr.extent && tvm_is_const_int(rr.min, &a0) &&
        tvm_is_const_int(rr.extent, &ae) && tvm_is_const_int(own->min, &b0) &&
        tvm_is_const_int(own->extent, &be)) {
      int64_t lo = a0 > b0 ? a0 : b0;
      int64_t hi = a0 + ae < b0 + be ? a0 + ae : b0 + be;
      if (hi > lo) {
        rr.min = tvm_int(c, lo);
        rr.extent = tvm_int(c, hi - lo);
      }
    }
    tvm_range *p = lower_range_new(c, rr.min, rr.extent);
    if (!p || !rr.min || !rr.extent) {
      s = tvm_ctx_status(c);
      if (s == TVM_OK)
        s = tvm_diag_set(TVM_ERR_INTERNAL,
                         "infer_bound: no range for %s in %s",
                         iv->var->u.var.name, cons->op->name);
      break;
    }
    s = tvm_bounds_set(&roots, iv->var, p);
    if (s == TVM_OK) s = tvm_ptrmap_put(&byvar, iv->var, v);
  }
  for (size_t k = 0; s == TVM_OK && k < cons->reads.len; k++) {
    const tvm_expr *rd = cons->reads.data[k];
    if (rd->u.tread.tensor != prod->out)
      continue;
    for (int d = 0; d < rd->u.tread.n && d < prod->ndata; d++) {
      tvm_range ir = tvm_eval_range(c, rd->u.tread.indices[d], &roots);
      if (c->failed) {
        s = tvm_ctx_status(c);
        break;
      }
      tight_range(c, rd->u.tread.indices[d], &byvar, &relaxed, &loops, &ir);
      clamp_to_dom(c, &ir, prod->op->axis[d]);
      tvm_range u = lower_range_union(c, acc[d], ir);
      acc[d] = lower_range_new(c, u.min, u.extent);
      if (!acc[d]) {
        s = tvm_ctx_status(c);
        break;
      }
    }
  }
  tvm_bounds_free(&relaxed);
  tvm_bounds_free(&loops);
  tvm_bounds_free(&roots);
  tvm_ptrmap_free(&values);
  tvm_ptrmap_free(&byvar);
  return s;
}

/* Sets the root ranges of a compute stage. */
static tvm_status infer_roots(tvm_ctx *c, tvm_ptrmap *ranges,
                              const lower_stage *ls) {
  tvm_operation *op = ls->op;
  int full = ls->st->is_output || ls->consumers.len == 0 ||
             ls->st->attach == TVM_ATTACH_INLINE;
  tvm_range **acc = tvm_ctx_alloc(c, sizeof(tvm_range *) * (size_t)(op->naxis + 1));
  if (!acc)
    return tvm_ctx_status(c);
  if (!full)
    for (size_t k = 0; k < ls->consumers.len; k++) {
      tvm_status s = consumer_region(c, ranges, ls, ls->consumers.data[k], acc);
      if (s != TVM_OK)
        return tvm_diag_prefix(s, "stage %s: ", op->name);
    }
  for (int d = 0; d < ls->nroots; d++) {
    tvm_iter_var *iv = ls->roots[d];
    tvm_range *r;
    if (d < op->naxis && acc[d])
      r = acc[d];
    else
      r = lower_range_new(c, iv->dom.min, iv->dom.extent);
    if (!r || tvm_ptrmap_put(ranges, iv, r) != TVM_OK)
      return TVM_ERR_NOMEM;
  }
  return TVM_OK;
}

/* ceildiv(a, b) for extents, folded when constant. */
static tvm_expr *ceildiv(tvm_ctx *c, tvm_expr *a, tvm_expr *b) {
  int64_t x, y;
  if (tvm_is_const_int(a, &x) && tvm_is_const_int(b, &y) && y > 0)
    return tvm_int(c, (x + y - 1) / y);
  return tvm_simplify(
      c, tvm_floordiv(c, tvm_sub(c, tvm_add(c, a, b), tvm_int(c, 1)), b), NULL);
}

/* Pushes root ranges down the relations; thread-bound leaves take the
 * thread's extent (or give theirs to a thread axis declared without). */
static tvm_status pass_down(tvm_ctx *c, tvm_ptrmap *ranges,
                            const lower_stage *ls) {
  const tvm_stage *st = ls->st;
  for (size_t k = 0; k < st->relations.len; k++) {
    tvm_iv_relation *rel = st->relations.data[k];
    tvm_status s = TVM_OK;
    if (rel->kind == TVM_REL_SPLIT) {
      tvm_range *p = lower_range_of(ranges, rel->parent);
      if (!p)
        return tvm_diag_set(TVM_ERR_INTERNAL,
                            "infer_bound: split of %s in %s before its range",
                            rel->parent->var->u.var.name, st->op->name);
      tvm_expr *oe, *ie;
      if (rel->factor) {
        ie = rel->factor;
        oe = ceildiv(c, p->extent, rel->factor);
      } else {
        oe = rel->nparts;
        ie = ceildiv(c, p->extent, rel->nparts);
      }
      tvm_range *ro = lower_range_new(c, tvm_int(c, 0), oe);
      tvm_range *ri = lower_range_new(c, tvm_int(c, 0), ie);
      if (!ro || !ri)
        return tvm_ctx_status(c);
      s = tvm_ptrmap_put(ranges, rel->outer, ro);
      if (s == TVM_OK)
        s = tvm_ptrmap_put(ranges, rel->inner, ri);
    } else if (rel->kind == TVM_REL_FUSE) {
      tvm_range *ro = lower_range_of(ranges, rel->outer);
      tvm_range *ri = lower_range_of(ranges, rel->inner);
      if (!ro || !ri)
        return tvm_diag_set(TVM_ERR_INTERNAL,
                            "infer_bound: fuse in %s before its ranges",
                            st->op->name);
      tvm_range *rf = lower_range_new(
          c, tvm_int(c, 0),
          tvm_simplify(c, tvm_mul(c, ro->extent, ri->extent), NULL));
      if (!rf)
        return tvm_ctx_status(c);
      s = tvm_ptrmap_put(ranges, rel->fused, rf);
    } else {
      tvm_range *p = lower_range_of(ranges, rel->parent);
      if (!p)
        return TVM_ERR_INTERNAL;
      tvm_range *rb = lower_range_new(c, tvm_int(c, 0), p->extent);
      if (!rb)
        return tvm_ctx_status(c);
      s = tvm_ptrmap_put(ranges, rel->rebased, rb);
    }
    if (s != TVM_OK)
      return s;
  }
  for (int l = 0; l < lower_nleaves(st); l++) {
    tvm_iter_var *iv = lower_leaf(st, l);
    tvm_iv_attr *a = lower_iv_attr(st, iv);
    tvm_range *r = lower_range_of(ranges, iv);
    if (!r)
      return tvm_diag_set(TVM_ERR_INTERNAL,
                          "infer_bound: leaf %s of %s has no range (a "
                          "relation is missing)",
                          iv->var->u.var.name, st->op->name);
    if (!a || !a->bind_thread)
      continue;
    tvm_iter_var *th = a->bind_thread;
    int64_t te, le;
    if (th->dom.extent && tvm_is_const_int(th->dom.extent, &te) &&
        tvm_is_const_int(r->extent, &le) && te < le)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "infer_bound: axis %s of %s has %lld iterations but "
                          "is bound to %s of extent %lld, which would leave "
                          "iterations out; split the axis by %lld first",
                          iv->var->u.var.name, st->op->name, (long long)le,
                          th->thread_tag ? th->thread_tag : "a thread axis",
                          (long long)te, (long long)te);
    if (th->dom.extent) {
      tvm_range *nr = lower_range_new(c, r->min, th->dom.extent);
      if (!nr || tvm_ptrmap_put(ranges, iv, nr) != TVM_OK)
        return TVM_ERR_NOMEM;
      r = nr;
    }
    tvm_range *tr = lower_range_new(c, tvm_int(c, 0), r->extent);
    if (!tr || tvm_ptrmap_put(ranges, th, tr) != TVM_OK)
      return TVM_ERR_NOMEM;
  }
  return TVM_OK;
}

/* Bound inference over the whole schedule (see the file comment). */
tvm_status tvm_infer_bound(tvm_schedule *s, tvm_ptrmap *ranges) {
  if (!s || !ranges)
    return tvm_diag_set(TVM_ERR_INVALID, "infer_bound: NULL argument");
  lower_graph g;
  tvm_status st = lower_graph_build(s, &g);
  for (int i = g.n - 1; st == TVM_OK && i >= 0; i--) {
    lower_stage *ls = &g.stages[i];
    if (!ls->is_compute)
      continue;
    st = infer_roots(s->ctx, ranges, ls);
    if (st == TVM_OK)
      st = pass_down(s->ctx, ranges, ls);
  }
  lower_graph_free(&g);
  if (st == TVM_OK)
    st = tvm_ctx_status(s->ctx);
  return st;
}
