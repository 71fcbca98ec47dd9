/*
 * core/lower/coproc_queue.c - which hardware queue runs a statement
 * (see coproc_int.h).
 */
#include <stdint.h>
#include <string.h>

#include "coproc_int.h"

/* What normalization knows: the queue filling each allocated buffer. */
typedef struct qctx {
  tvm_ctx *c;
  const tvm_lower_options *o;
  tvm_ptrmap bufq; /* buffer var -> (void *)(queue + 1) */
  int oom;
} qctx;

/* Queue of the scope of buffer var b, or -1. */
static int buffer_queue(const qctx *q, const tvm_expr *b) {
  void *v;
  if (!tvm_ptrmap_get(&q->bufq, b, &v)) return -1;
  return (int)(intptr_t)v - 1;
}

/* Visitor hook: records the queue of every allocation's scope. */
static int collect_allocs(tvm_visitor *v, const tvm_stmt *s) {
  qctx *q = v->data;
  if (s->kind == TVM_ALLOCATE) {
    const tvm_scope_info *si = tvm_lower_find_scope(q->o, s->u.alloc.scope);
    if (si && si->queue >= 0 && si->queue < 32 &&
        tvm_ptrmap_put(&q->bufq, s->u.alloc.buffer,
                       (void *)(intptr_t)(si->queue + 1)) != TVM_OK)
      q->oom = 1;
  }
  return 0;
}

/* Is s `attr coproc_scope`? */
static int is_coproc_attr(const tvm_stmt *s) {
  return s && s->kind == TVM_ATTR && s->u.attr.key &&
         !strcmp(s->u.attr.key, TVM_ATTR_COPROC_SCOPE);
}

/* Summary of a statement: queues whose buffers it reads and writes (bit
 * masks) and whether it holds a coproc_scope. */
typedef struct summary {
  const qctx *q;
  uint32_t reads, writes;
  int has_coproc;
} summary;

/* Records an access (rw: 1 read, 2 write) to buffer b. */
static void note(summary *sm, const tvm_expr *b, int rw) {
  int q = sm->q ? buffer_queue(sm->q, b) : -1;
  if (q < 0) return;
  if (rw & 1) sm->reads |= 1u << q;
  if (rw & 2) sm->writes |= 1u << q;
}

/* Visitor hook: loads, access_ptrs (by rw mask), handles passed to calls. */
static int sum_expr(tvm_visitor *v, const tvm_expr *e) {
  summary *sm = v->data;
  if (e->kind == TVM_LOAD) {
    note(sm, e->u.load.buffer, 1);
  } else if (e->kind == TVM_CALL) {
    int64_t mask;
    if (e->u.call.op == TVM_INTRIN_ACCESS_PTR && e->u.call.nargs >= 5 &&
        tvm_is_const_int(e->u.call.args[4], &mask)) {
      note(sm, e->u.call.args[0], (int)mask);
    } else {
      for (int i = 0; i < e->u.call.nargs; i++)
        if (e->u.call.args[i]->kind == TVM_VAR) note(sm, e->u.call.args[i], 3);
    }
  }
  return 0;
}

/* Visitor hook: stores, and coproc_scope attributes. */
static int sum_stmt(tvm_visitor *v, const tvm_stmt *s) {
  summary *sm = v->data;
  if (s->kind == TVM_STORE) note(sm, s->u.store.buffer, 2);
  if (is_coproc_attr(s)) sm->has_coproc = 1;
  return 0;
}

/* The summary of s (queues unknown when q is NULL). */
static summary summarize(const qctx *q, const tvm_stmt *s) {
  summary sm = {q, 0, 0, 0};
  tvm_visitor v = {sum_expr, sum_stmt, &sm};
  tvm_visit_stmt(&v, s);
  return sm;
}

/* See coproc_int.h. */
int lower_has_coproc(const tvm_stmt *s) {
  return summarize(NULL, s).has_coproc;
}

/* See coproc_int.h. */
int lower_is_queue_stmt(const tvm_stmt *s, int *queue) {
  int64_t q;
  if (!is_coproc_attr(s) || !s->u.attr.value ||
      !tvm_is_const_int(s->u.attr.value, &q) ||
      lower_has_coproc(s->u.attr.body))
    return 0;
  *queue = (int)q;
  return 1;
}

/* Lowest queue in a mask, -1 for none. */
static int lowest(uint32_t m) {
  for (int i = 0; i < 32; i++)
    if (m & (1u << i)) return i;
  return -1;
}

/* s with its single body replaced (for, let, allocate, attr, assert). */
static tvm_stmt *with_body(tvm_ctx *c, tvm_stmt *s, tvm_stmt *b) {
  tvm_stmt *r;
  if (!b) return NULL;
  if (s->kind == TVM_FOR && b == s->u.for_.body) return s;
  r = tvm_ctx_alloc(c, sizeof *r);
  if (!r) return NULL;
  *r = *s;
  switch (s->kind) {
  case TVM_FOR: r->u.for_.body = b; break;
  case TVM_LET_STMT: r->u.let.body = b; break;
  case TVM_ALLOCATE: r->u.alloc.body = b; break;
  case TVM_ATTR: r->u.attr.body = b; break;
  case TVM_ASSERT: r->u.assert_.body = b; break;
  default: return NULL;
  }
  return r;
}

static tvm_stmt *normalize(qctx *q, tvm_stmt *s, int ctxq);

/* Normalizes every child of s (see normalize). */
static tvm_stmt *normalize_children(qctx *q, tvm_stmt *s, int ctxq) {
  tvm_ctx *c = q->c;
  switch (s->kind) {
  case TVM_SEQ: {
    tvm_stmt **v = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)(s->u.seq.n + 1));
    if (!v) return NULL;
    for (int i = 0; i < s->u.seq.n; i++)
      if (!(v[i] = normalize(q, s->u.seq.stmts[i], ctxq))) return NULL;
    return tvm_seq(c, v, s->u.seq.n);
  }
  case TVM_IF: {
    tvm_stmt *t = normalize(q, s->u.if_.then_, ctxq), *f = NULL;
    if (s->u.if_.else_) f = normalize(q, s->u.if_.else_, ctxq);
    if (!t || (s->u.if_.else_ && !f)) return NULL;
    return tvm_if(c, s->u.if_.cond, t, f);
  }
  case TVM_FOR:
    return with_body(c, s, normalize(q, s->u.for_.body, ctxq));
  case TVM_LET_STMT:
    return with_body(c, s, normalize(q, s->u.let.body, ctxq));
  case TVM_ALLOCATE:
    return with_body(c, s, normalize(q, s->u.alloc.body, ctxq));
  case TVM_ATTR:
    return with_body(c, s, normalize(q, s->u.attr.body, ctxq));
  case TVM_ASSERT:
    return with_body(c, s, normalize(q, s->u.assert_.body, ctxq));
  default:
    return s;
  }
}

/* Wraps s in `attr coproc_scope = queue`. */
static tvm_stmt *wrap(qctx *q, tvm_stmt *s, int queue) {
  return tvm_attr(q->c, TVM_ATTR_COPROC_SCOPE, NULL, tvm_int(q->c, queue), s);
}

/* The normalized form of s; ctxq is the queue of an enclosing
 * coproc_scope that was pushed down, or -1. */
static tvm_stmt *normalize(qctx *q, tvm_stmt *s, int ctxq) {
  int64_t v;
  if (!s) return NULL;
  if (is_coproc_attr(s) && s->u.attr.value &&
      tvm_is_const_int(s->u.attr.value, &v)) {
    if (!lower_has_coproc(s->u.attr.body)) return s;
    return normalize(q, s->u.attr.body, (int)v);
  }
  summary sm = summarize(q, s);
  if (sm.has_coproc) return normalize_children(q, s, ctxq);
  if (ctxq >= 0) return wrap(q, s, ctxq);
  uint32_t m = sm.writes ? sm.writes : sm.reads;
  if (!m) return s; /* touches no queued scope: the host runs it */
  if (!(m & (m - 1))) return wrap(q, s, lowest(m));
  switch (s->kind) { /* mixed: split compound statements */
  case TVM_SEQ: case TVM_IF: case TVM_FOR: case TVM_LET_STMT:
  case TVM_ALLOCATE: case TVM_ATTR: case TVM_ASSERT:
    return normalize_children(q, s, -1);
  default:
    return wrap(q, s, lowest(m));
  }
}

/* See coproc_int.h: the queues of the allocations, then normalize. */
tvm_stmt *lower_coproc_normalize(tvm_ctx *c, tvm_stmt *s,
                                      const tvm_lower_options *o) {
  qctx q = {c, o, {0}, 0};
  tvm_visitor v = {NULL, collect_allocs, &q};
  tvm_stmt *r = NULL;
  tvm_visit_stmt(&v, s);
  if (q.oom) {
    c->failed = 1;
  } else {
    r = normalize(&q, s, -1);
  }
  tvm_ptrmap_free(&q.bufq);
  return r;
}
