/*
 * core/lower/storage_rewrite.c - the storage_rewrite pass: hoisting and
 * reuse of allocations inside one function.
 *
 * A region is the function body or the body of a thread-bound or parallel
 * loop (allocations never move out of those: each thread or parallel
 * iteration needs its own copy).  Inside a region every allocation whose
 * extent does not depend on a variable bound inside the region is hoisted
 * to the top of the region (a fresh buffer per loop iteration and one
 * buffer reused by all iterations mean the same, as nothing may read a
 * buffer before writing it).
 *
 * Then allocations of the same scope and element type whose live ranges
 * do not overlap share one buffer of the larger extent.  The live range
 * of a buffer runs from its first to its last access in statement order;
 * an access inside a loop that the allocation encloses covers that whole
 * loop (the buffer's contents survive from one iteration to the next),
 * while an allocation inside the loop only lives within one iteration.
 * The buffers are assigned greedily, in order of first access, to the
 * first compatible shared buffer that is dead by then.  Buffers of scopes
 * filled by a hardware queue are hoisted but never shared: the dependency
 * tokens between queues were placed for distinct buffers.
 */
#include <string.h>

#include "tvm/lower.h"
#include "lower_int.h"

/* One allocation considered for hoisting and sharing. */
typedef struct cand {
  tvm_stmt *alloc;
  int depth;       /* open loops when the allocation was entered */
  long lo, hi;     /* live range; lo > hi when never accessed */
  int pending;     /* loop level whose end extends hi, or -1 */
  int slot;        /* index of the shared buffer it uses */
} cand;

/* State of rewriting one region. */
typedef struct region {
  tvm_ctx *c;
  const tvm_lower_options *o;
  cand *cands;
  int n, cap;
  int oom;
  /* the walk */
  long time;
  long loop_start[256];
  int nloops;
  tvm_expr *bound[512]; /* variables bound inside the region so far */
  int nbound;
} region;

/* Is s a loop whose body is a region of its own (thread or parallel)? */
static int is_region_loop(const tvm_stmt *s) {
  return s->kind == TVM_FOR && (s->u.for_.for_kind == TVM_FOR_THREAD ||
                                s->u.for_.for_kind == TVM_FOR_PARALLEL);
}

/* Does e use a variable bound inside the region (on the current path)? */
static int uses_bound(const region *r, const tvm_expr *e) {
  for (int i = 0; i < r->nbound; i++)
    if (tvm_expr_uses_var(e, r->bound[i])) return 1;
  return 0;
}

/* The candidate allocating buffer var b, or NULL. */
static cand *cand_of(region *r, const tvm_expr *b) {
  for (int i = 0; i < r->n; i++)
    if (r->cands[i].alloc->u.alloc.buffer == b) return &r->cands[i];
  return NULL;
}

/* Finds the hoistable allocations of the region rooted at s. */
static void find_cands(region *r, tvm_stmt *s) {
  if (!s || r->oom) return;
  switch (s->kind) {
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) find_cands(r, s->u.seq.stmts[i]);
    return;
  case TVM_FOR:
    if (is_region_loop(s)) return;
    if (r->nbound == 512) { r->oom = 1; return; }
    r->bound[r->nbound++] = s->u.for_.var;
    find_cands(r, s->u.for_.body);
    r->nbound--;
    return;
  case TVM_LET_STMT:
    if (r->nbound == 512) { r->oom = 1; return; }
    r->bound[r->nbound++] = s->u.let.var;
    find_cands(r, s->u.let.body);
    r->nbound--;
    return;
  case TVM_IF:
    find_cands(r, s->u.if_.then_);
    find_cands(r, s->u.if_.else_);
    return;
  case TVM_ATTR:
    find_cands(r, s->u.attr.body);
    return;
  case TVM_ASSERT:
    find_cands(r, s->u.assert_.body);
    return;
  case TVM_ALLOCATE:
    if (!uses_bound(r, s->u.alloc.extent) && !cand_of(r, s->u.alloc.buffer)) {
      if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 8;
        cand *nc = tvm_realloc(r->cands, sizeof(cand) * (size_t)cap);
        if (!nc) { r->oom = 1; return; }
        r->cands = nc;
        r->cap = cap;
      }
      r->cands[r->n++] = (cand){s, 0, 1, 0, -1, -1};
    }
    find_cands(r, s->u.alloc.body);
    return;
  default:
    return;
  }
}

/* Records an access to buffer b at the current time. */
static void touch(region *r, const tvm_expr *b) {
  cand *k = cand_of(r, b);
  if (!k) return;
  long t = r->time;
  if (r->nloops > k->depth) {
    /* inside loops the allocation encloses: live for all of the outermost */
    if (r->loop_start[k->depth] < t) t = r->loop_start[k->depth];
    if (k->pending < 0 || k->pending > k->depth) k->pending = k->depth;
  }
  if (k->lo > k->hi) {
    k->lo = t;
    k->hi = r->time;
  } else {
    if (t < k->lo) k->lo = t;
    if (r->time > k->hi) k->hi = r->time;
  }
}

/* Visitor hook: any use of a candidate buffer variable is an access. */
static int live_expr(tvm_visitor *v, const tvm_expr *e) {
  if (e->kind == TVM_VAR && tvm_dtype_is_handle(e->dtype)) touch(v->data, e);
  return 0;
}

/* Visitor hook: numbers statements, records stores and the depth of
 * candidate allocations, and extends live ranges over loops. */
static int live_stmt(tvm_visitor *v, const tvm_stmt *s) {
  region *r = v->data;
  r->time++;
  if (s->kind == TVM_STORE) touch(r, s->u.store.buffer);
  if (s->kind == TVM_ALLOCATE) {
    cand *k = cand_of(r, s->u.alloc.buffer);
    if (k) k->depth = r->nloops;
  }
  if (s->kind == TVM_FOR) {
    if (r->nloops == 256) {
      r->oom = 1;
      return 1;
    }
    tvm_visit_expr(v, s->u.for_.min);
    tvm_visit_expr(v, s->u.for_.extent);
    r->loop_start[r->nloops++] = r->time;
    tvm_visit_stmt(v, s->u.for_.body);
    r->nloops--;
    for (int i = 0; i < r->n; i++)
      if (r->cands[i].pending == r->nloops) {
        r->cands[i].pending = -1;
        if (r->cands[i].hi < r->time) r->cands[i].hi = r->time;
      }
    return 1;
  }
  return 0;
}

/* Mutator hook: drops the hoisted allocations (keeps their bodies) and
 * renames merged buffers. */
static tvm_stmt *drop_cands(tvm_mutator *m, tvm_stmt *s) {
  region *r = m->data;
  if (s->kind == TVM_ALLOCATE && cand_of(r, s->u.alloc.buffer) &&
      cand_of(r, s->u.alloc.buffer)->alloc == s)
    return tvm_mutate_stmt(m, s->u.alloc.body);
  if (is_region_loop(s)) return s; /* already rewritten, its own region */
  return NULL;
}

/* Greedy sharing: sets every candidate's slot; slot i is represented by
 * the first candidate using it. */
static void assign_slots(region *r, int *order) {
  for (int i = 0; i < r->n; i++) order[i] = i;
  for (int i = 1; i < r->n; i++) /* insertion sort by first access */
    for (int j = i; j > 0 && r->cands[order[j]].lo < r->cands[order[j - 1]].lo; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (int i = 0; i < r->n; i++) {
    cand *k = &r->cands[order[i]];
    k->slot = order[i];
    if (k->lo > k->hi) continue; /* never accessed: keep it alone */
    const tvm_scope_info *si = tvm_lower_find_scope(r->o, k->alloc->u.alloc.scope);
    if (si && si->queue >= 0) continue; /* queued: tokens assume it alone */
    for (int j = 0; j < i; j++) {
      cand *h = &r->cands[order[j]];
      if (h->slot != order[j] || h->lo > h->hi) continue; /* not a slot head */
      const tvm_scope_info *so = tvm_lower_find_scope(r->o, h->alloc->u.alloc.scope);
      if (so && so->queue >= 0) continue;
      const tvm_stmt *a = h->alloc, *b = k->alloc;
      if (strcmp(a->u.alloc.scope, b->u.alloc.scope) ||
          !tvm_dtype_eq(a->u.alloc.dtype, b->u.alloc.dtype) ||
          !tvm_dtype_eq(a->u.alloc.extent->dtype, b->u.alloc.extent->dtype))
        continue;
      /* dead when every member of the slot ended before k starts */
      long end = -1;
      for (int x = 0; x < r->n; x++)
        if (r->cands[x].slot == order[j] && r->cands[x].hi > end)
          end = r->cands[x].hi;
      if (end >= k->lo) continue;
      k->slot = order[j];
      break;
    }
  }
}

/* The extent of slot head h: the largest extent of its members. */
static tvm_expr *slot_extent(region *r, int h) {
  tvm_expr *ext = NULL;
  int64_t best = -1, v;
  int all_const = 1;
  for (int i = 0; i < r->n; i++) {
    if (r->cands[i].slot != h) continue;
    tvm_expr *e = r->cands[i].alloc->u.alloc.extent;
    if (tvm_is_const_int(e, &v)) {
      if (v > best) best = v;
    } else {
      all_const = 0;
    }
    ext = !ext ? e : tvm_expr_equal(ext, e) ? ext : tvm_max(r->c, ext, e);
  }
  if (all_const) return tvm_const(r->c, ext->dtype, best);
  return ext;
}

/* The rewritten region rooted at s (nested regions already done). */
static tvm_stmt *rewrite_region(tvm_ctx *c, const tvm_lower_options *o,
                                tvm_stmt *s) {
  region r = {0};
  tvm_stmt *res = s;
  int *order = NULL;
  tvm_ptrmap rename = {0};
  r.c = c;
  r.o = o;
  find_cands(&r, s);
  if (r.oom) goto oom;
  if (r.n == 0) return s;
  tvm_visitor v = {live_expr, live_stmt, &r};
  tvm_visit_stmt(&v, s);
  order = tvm_malloc(sizeof(int) * (size_t)r.n);
  if (r.oom || !order) goto oom;
  assign_slots(&r, order);
  tvm_mutator m = {c, NULL, drop_cands, &r};
  res = tvm_mutate_stmt(&m, s);
  for (int i = 0; i < r.n; i++) {
    cand *k = &r.cands[i];
    if (k->slot != i &&
        tvm_ptrmap_put(&rename, k->alloc->u.alloc.buffer,
                       r.cands[k->slot].alloc->u.alloc.buffer) != TVM_OK)
      goto oom;
  }
  if (res && rename.len) res = tvm_substitute_stmt(c, res, &rename);
  for (int i = r.n - 1; i >= 0 && res; i--) { /* slot heads, first outermost */
    cand *k = &r.cands[order[i]];
    if (k->slot != order[i]) continue;
    const tvm_stmt *a = k->alloc;
    int64_t align = 0;
    for (int x = 0; x < r.n; x++)
      if (r.cands[x].slot == order[i] && r.cands[x].alloc->u.alloc.align > align)
        align = r.cands[x].alloc->u.alloc.align;
    res = tvm_allocate(c, a->u.alloc.buffer, a->u.alloc.dtype,
                       slot_extent(&r, order[i]), a->u.alloc.scope, res);
    if (res) res->u.alloc.align = align;
  }
  goto done;
oom:
  c->failed = 1;
  res = NULL;
done:
  tvm_ptrmap_free(&rename);
  tvm_free(order);
  tvm_free(r.cands);
  return res;
}

/* Mutator hook: rewrites the regions of thread-bound and parallel loops
 * bottom-up. */
static tvm_stmt *region_loops(tvm_mutator *m, tvm_stmt *s) {
  if (!is_region_loop(s)) return NULL;
  tvm_stmt *b = tvm_mutate_stmt(m, s->u.for_.body);
  if (b) b = rewrite_region(m->ctx, m->data, b);
  if (!b) return NULL;
  if (b == s->u.for_.body) return s;
  return tvm_for(m->ctx, s->u.for_.var, s->u.for_.min, s->u.for_.extent,
                 s->u.for_.for_kind, s->u.for_.thread_tag, b);
}

/* Hoists and shares the allocations of f (see the file comment); *out is
 * a copy of f in ctx c with the new body. */
tvm_status tvm_pass_storage_rewrite(tvm_ctx *c, tvm_func *f,
                                    const tvm_lower_options *o,
                                    tvm_func **out) {
  tvm_mutator m = {c, NULL, region_loops, (void *)o};
  tvm_stmt *body;
  if (!f || !o || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "storage_rewrite: NULL argument");
  body = tvm_mutate_stmt(&m, f->body);
  if (body) body = rewrite_region(c, o, body);
  return lower_with_body(c, f, body, "storage_rewrite", out);
}
