/*
 * core/lower/serialize_threads.c - the serialize_threads pass: a device
 * kernel's thread-bound loops become plain serial loops, so that one CPU
 * thread runs what a block of hardware threads would (the PoCL
 * "work-group loop" idea).  Used to check thread schedules numerically
 * without a GPU (tests/plugins/simt), and by any CPU-like target that
 * wants to run thread kernels.
 *
 *  - blockIdx.* (and any non-threadIdx) loops become serial loops;
 *  - a threadIdx.* loop whose body holds barriers is split at them
 *    (loop fission): for t { A; barrier; B } becomes for t { A };
 *    for t { B }, so every thread finishes A before any starts B, which
 *    is what the barrier promised.  Fission goes through sequences, lets,
 *    attributes, allocations and nested threadIdx loops (each part keeps
 *    its enclosing lets, attributes and thread loops);
 *  - an allocation inside such a loop whose body holds a barrier is
 *    per-thread memory that lives across the parts: it is hoisted above
 *    the outermost thread loop and expanded to one slice per thread
 *    (extent * threads, every access offset by the thread's slice);
 *  - barriers left outside thread loops (between two thread loops of a
 *    block) order serial loops that are already in order: dropped.
 * A barrier under a serial loop or a condition inside a thread loop
 * cannot be split this way and is refused with an error naming the
 * kernel.
 */
#include <string.h>

#include "tvm/lower.h"
#include "lower_int.h"

/* A thread loop crossed on the way to a part, outermost first. */
typedef struct tlevel {
  tvm_expr *var, *extent;
} tlevel;

/* An allocation hoisted out of the thread loops and expanded. */
typedef struct hoisted {
  tvm_stmt *alloc; /* the original allocation */
  tvm_expr *offset; /* the thread's slice start: linear thread id * extent */
  tvm_expr *threads; /* threads of the loops it was inside */
} hoisted;

typedef struct ser {
  tvm_ctx *c;
  const char *fname;
  tvm_ptrvec hoist; /* hoisted* */
  tvm_ptrmap slice; /* buffer var -> offset expression */
  tvm_status st;
} ser;

/* Visitor hook: finds a barrier. */
static int find_barrier(tvm_visitor *v, const tvm_stmt *s) {
  if (s->kind == TVM_BARRIER)
    *(int *)v->data = 1;
  return *(int *)v->data;
}

static int has_barrier(const tvm_stmt *s) {
  int found = 0;
  tvm_visitor v = {NULL, find_barrier, &found};
  if (s)
    tvm_visit_stmt(&v, s);
  return found;
}

static int is_thread_idx(const tvm_stmt *s) {
  return s->kind == TVM_FOR && s->u.for_.for_kind == TVM_FOR_THREAD &&
         s->u.for_.thread_tag &&
         strncmp(s->u.for_.thread_tag, "threadIdx", 9) == 0;
}

/* The pieces of a split: statements, and NULL where a barrier separates
 * two of them.  push appends one (p NULL = a barrier). */
static void push(ser *z, tvm_ptrvec *parts, tvm_stmt *p) {
  if (tvm_ptrvec_push(parts, p))
    z->st = tvm_diag_set(TVM_ERR_NOMEM, "serialize_threads: out of memory");
}

/* Joins the statements between barriers: no two statements or two NULLs
 * follow each other in out; a leading or trailing NULL stays (a barrier at
 * the start or end of a nested statement still separates its
 * neighbours). */
static void merge(ser *z, tvm_ptrvec *in, tvm_ptrvec *out) {
  tvm_stmt *cur = NULL;
  for (size_t i = 0; i < in->len && !z->st; i++) {
    tvm_stmt *p = in->data[i];
    if (p) {
      cur = cur ? tvm_seq2(z->c, cur, p) : p;
      continue;
    }
    if (cur) push(z, out, cur);
    cur = NULL;
    if (!out->len || out->data[out->len - 1]) push(z, out, NULL);
  }
  if (cur && !z->st) push(z, out, cur);
}

/* Splits s (inside thread loops `lv`, nlv of them, outermost first) at
 * its barriers: appends its pieces to parts (see push). */
static void split(ser *z, tvm_stmt *s, tlevel *lv, int nlv, tvm_ptrvec *parts);

/* Splits the body of a wrapping statement and wraps each piece in it. */
static void split_wrapped(ser *z, tvm_stmt *s, tvm_stmt *body, tlevel *lv,
                          int nlv, tvm_ptrvec *parts) {
  tvm_ctx *c = z->c;
  tvm_ptrvec sub = {0}, m = {0};
  split(z, body, lv, nlv, &sub);
  merge(z, &sub, &m);
  for (size_t k = 0; k < m.len && !z->st; k++) {
    tvm_stmt *p = m.data[k];
    if (p && s->kind == TVM_LET_STMT)
      p = tvm_let_stmt(c, s->u.let.var, s->u.let.value, p);
    else if (p && s->kind == TVM_ATTR)
      p = tvm_attr(c, s->u.attr.key, s->u.attr.node, s->u.attr.value, p);
    else if (p && s->kind == TVM_FOR)
      p = tvm_for(c, s->u.for_.var, s->u.for_.min, s->u.for_.extent,
                  TVM_FOR_SERIAL, NULL, p);
    push(z, parts, p);
  }
  tvm_ptrvec_free(&sub);
  tvm_ptrvec_free(&m);
}

static void split(ser *z, tvm_stmt *s, tlevel *lv, int nlv,
                  tvm_ptrvec *parts) {
  tvm_ctx *c = z->c;
  if (z->st)
    return;
  if (!has_barrier(s)) {
    push(z, parts, s);
    return;
  }
  switch (s->kind) {
  case TVM_BARRIER:
    push(z, parts, NULL);
    return;
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n && !z->st; i++)
      split(z, s->u.seq.stmts[i], lv, nlv, parts);
    return;
  case TVM_LET_STMT:
    split_wrapped(z, s, s->u.let.body, lv, nlv, parts);
    return;
  case TVM_ATTR:
    split_wrapped(z, s, s->u.attr.body, lv, nlv, parts);
    return;
  case TVM_ALLOCATE: {
    /* per-thread storage living across the pieces: one slice per thread */
    hoisted *h = tvm_ctx_alloc(c, sizeof *h);
    tvm_expr *id = tvm_int(c, 0), *n = tvm_int(c, 1);
    for (int i = 0; i < nlv && id && n; i++) {
      id = tvm_add(c, tvm_mul(c, id, lv[i].extent), lv[i].var);
      n = tvm_mul(c, n, lv[i].extent);
    }
    if (!h || !id || !n) {
      z->st = tvm_diag_set(TVM_ERR_NOMEM, "serialize_threads: out of memory");
      return;
    }
    h->alloc = s;
    h->threads = tvm_simplify(c, n, NULL);
    h->offset = tvm_simplify(c, tvm_mul(c, id, s->u.alloc.extent), NULL);
    if (!h->offset || tvm_ptrvec_push(&z->hoist, h) ||
        tvm_ptrmap_put(&z->slice, s->u.alloc.buffer, h->offset)) {
      z->st = tvm_diag_set(TVM_ERR_NOMEM, "serialize_threads: out of memory");
      return;
    }
    split(z, s->u.alloc.body, lv, nlv, parts);
    return;
  }
  case TVM_FOR:
    if (is_thread_idx(s) && nlv < 8) {
      lv[nlv].var = s->u.for_.var;
      lv[nlv].extent = s->u.for_.extent;
      split_wrapped(z, s, s->u.for_.body, lv, nlv + 1, parts);
      return;
    }
    /* fall through */
  default:
    z->st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                         "serialize_threads: kernel '%s' has a barrier under "
                         "a %s inside a thread loop; only barriers in "
                         "straight-line thread code can be serialized",
                         z->fname, s->kind == TVM_FOR ? "serial loop"
                                                      : "condition");
  }
}

/* Offsets the accesses of expanded buffers by the thread's slice. */
static tvm_expr *slice_expr(tvm_mutator *m, tvm_expr *e) {
  ser *z = m->data;
  void *off;
  if (e->kind != TVM_LOAD || !tvm_ptrmap_get(&z->slice, e->u.load.buffer, &off))
    return NULL;
  tvm_expr *idx = tvm_mutate_expr(m, e->u.load.index);
  tvm_expr *o = off;
  if (idx && idx->dtype.lanes > 1)
    o = tvm_broadcast(m->ctx, o, idx->dtype.lanes);
  return tvm_load(m->ctx, e->dtype, e->u.load.buffer,
                  tvm_simplify(m->ctx, tvm_add(m->ctx, idx, o), NULL),
                  e->u.load.pred ? tvm_mutate_expr(m, e->u.load.pred) : NULL);
}

/* Serializes thread loops (see the top); stores into expanded buffers
 * get the thread's slice offset. */
static tvm_stmt *ser_stmt(tvm_mutator *m, tvm_stmt *s) {
  ser *z = m->data;
  tvm_ctx *c = m->ctx;
  void *off;
  if (z->st)
    return s;
  if (s->kind == TVM_BARRIER)
    return tvm_evaluate(c, tvm_int(c, 0));
  if (s->kind == TVM_STORE &&
      tvm_ptrmap_get(&z->slice, s->u.store.buffer, &off)) {
    tvm_expr *idx = tvm_mutate_expr(m, s->u.store.index);
    tvm_expr *o = off;
    if (idx && idx->dtype.lanes > 1)
      o = tvm_broadcast(c, o, idx->dtype.lanes);
    return tvm_store(c, s->u.store.buffer,
                     tvm_simplify(c, tvm_add(c, idx, o), NULL),
                     tvm_mutate_expr(m, s->u.store.value),
                     s->u.store.pred ? tvm_mutate_expr(m, s->u.store.pred)
                                     : NULL);
  }
  if (s->kind == TVM_ALLOCATE &&
      tvm_ptrmap_get(&z->slice, s->u.alloc.buffer, &off))
    return tvm_mutate_stmt(m, s->u.alloc.body); /* hoisted */
  if (s->kind != TVM_FOR || s->u.for_.for_kind != TVM_FOR_THREAD)
    return NULL;
  if (!is_thread_idx(s) || !has_barrier(s->u.for_.body))
    return tvm_for(c, s->u.for_.var, s->u.for_.min, s->u.for_.extent,
                   TVM_FOR_SERIAL, NULL, tvm_mutate_stmt(m, s->u.for_.body));
  /* fission at the barriers, then the parts' own contents */
  tlevel lv[8];
  tvm_ptrvec pieces = {0}, parts = {0};
  size_t first = z->hoist.len;
  split(z, s, lv, 0, &pieces);
  merge(z, &pieces, &parts);
  tvm_stmt *r = NULL;
  for (size_t k = 0; k < parts.len && !z->st; k++)
    if (parts.data[k])
      r = tvm_seq2(c, r, tvm_mutate_stmt(m, parts.data[k]));
  tvm_ptrvec_free(&pieces);
  tvm_ptrvec_free(&parts);
  /* the expanded allocations around the whole fissioned nest */
  for (size_t k = z->hoist.len; k > first && r; k--) {
    hoisted *h = z->hoist.data[k - 1];
    tvm_stmt *a = h->alloc;
    r = tvm_allocate(c, a->u.alloc.buffer, a->u.alloc.dtype,
                     tvm_simplify(c, tvm_mul(c, a->u.alloc.extent, h->threads),
                                  NULL),
                     a->u.alloc.scope, r);
  }
  return r ? r : tvm_evaluate(c, tvm_int(c, 0));
}

/* See tvm/lower.h. */
tvm_status tvm_pass_serialize_threads(tvm_ctx *c, tvm_func *f,
                                      const tvm_lower_options *o,
                                      tvm_func **out) {
  ser z = {c, f ? f->name : "", {0}, {0}, TVM_OK};
  tvm_mutator m = {c, slice_expr, ser_stmt, &z};
  (void)o;
  if (!f || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "serialize_threads: NULL argument");
  tvm_stmt *body = tvm_mutate_stmt(&m, f->body);
  tvm_ptrvec_free(&z.hoist);
  tvm_ptrmap_free(&z.slice);
  if (z.st)
    return z.st;
  return lower_with_body(c, f, body, "serialize_threads", out);
}
