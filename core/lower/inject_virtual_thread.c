/*
 * core/lower/inject_virtual_thread.c - the inject_virtual_thread pass.
 *
 * A loop `for vt in [0, n)` of kind TVM_FOR_VTHREAD describes n virtual
 * threads: independent instruction streams that one hardware thread runs
 * interleaved, so that the latency of one stream hides behind the work of
 * the others (the TVM paper, section 4.4).  The pass removes the loop:
 *
 *  - every allocation inside it gets a leading dimension of n: its extent
 *    becomes n * extent and each access of thread vt is offset by
 *    vt * extent (loads, stores and access_ptr offsets), so each thread
 *    keeps its private copy;
 *  - the body is replicated n times with vt replaced by 0 .. n-1, and the
 *    copies are interleaved as finely as the structure allows (the choice
 *    this file makes): the replication is pushed down through sequences,
 *    loops, allocations, attributes, and ifs and lets that do not depend on
 *    vt, so `for vt { for k { A; B } }` becomes
 *    `for k { A(0); A(1); B(0); B(1) }`.  This reorders iterations of
 *    different virtual threads, which is legal because virtual threads
 *    are independent by definition (bind() asks the schedule author for
 *    exactly that, as for real threads).  Statements that depend on vt in
 *    their control (a loop bound, an if condition, a let value) are
 *    replicated whole.
 *  - on targets with hardware queues (o->num_queues > 0) the unit of
 *    interleaving is a queue statement (coproc_int.h): each DMA load or
 *    compute instruction of one thread stays one unit, the copies of
 *    thread k are marked `attr virtual_thread_copy = k`, and
 *    inject_dep_tokens then gives each thread its own dependency tokens,
 *    so the loads of one thread overlap the compute of another.
 *
 *  - on targets without queues (GPUs), what every thread would do alike
 *    is done once: an allocation whose stores do not differ between the
 *    threads (no index, value, predicate or enclosing control reads vt,
 *    a let variable bound from it, or a buffer that differs) and do not
 *    read the buffer itself stays one shared copy, and a statement that
 *    touches nothing that differs is emitted once, not n times.  That is
 *    the GPU idiom: the threads of a block fetch one shared tile
 *    cooperatively, and each virtual thread computes its own part of the
 *    output from it.  Where the body holds statements the analysis does
 *    not follow (calls, asserts), everything is replicated as above.
 *
 * The result is wrapped in `attr virtual_thread [vt] = n`.  A vthread loop
 * with a symbolic extent becomes a serial loop (same meaning, no
 * interleaving).
 */
#include <string.h>

#include "coproc_int.h"
#include "lower_int.h"

/* State of injecting one vthread loop. */
typedef struct vt {
  tvm_ctx *c;
  tvm_expr *var;
  int64_t n;
  int dae;         /* queue statements are the unit; mark copies */
  int share;       /* untainted allocations and statements stay single */
  tvm_ptrmap taint; /* variables and buffers that differ between threads */
} vt;

/* ---- allocation expansion ------------------------------------------------ */

/* The allocation s expanded for n threads (body rewritten, not yet
 * injected), or s itself when its buffer escapes as a raw pointer. */
static tvm_stmt *expand_alloc(vt *w, tvm_stmt *s) {
  tvm_ctx *c = w->c;
  tvm_expr *ext = s->u.alloc.extent;
  int raw_use = 0;
  tvm_stmt *body = lower_offset_accesses(
      c, s->u.alloc.body, s->u.alloc.buffer,
      tvm_mul(c, tvm_cast(c, ext->dtype, w->var), ext), &raw_use);
  if (!body || raw_use) return s;
  int64_t e;
  tvm_expr *next = tvm_is_const_int(ext, &e)
                       ? tvm_const(c, ext->dtype, e * w->n)
                       : tvm_mul(c, ext, tvm_const(c, ext->dtype, w->n));
  tvm_stmt *r = tvm_allocate(c, s->u.alloc.buffer, s->u.alloc.dtype, next,
                             s->u.alloc.scope, body);
  if (r) r->u.alloc.align = s->u.alloc.align;
  return r;
}

/* ---- replication ------------------------------------------------------------ */

/* n copies of s, vt replaced by 0 .. n-1 (marked in DAE mode). */
static tvm_stmt *replicate(vt *w, tvm_stmt *s) {
  tvm_ctx *c = w->c;
  tvm_stmt **v = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)w->n);
  tvm_ptrmap map = {0};
  tvm_stmt *res = NULL;
  if (!v) return NULL;
  for (int64_t k = 0; k < w->n; k++) {
    if (tvm_ptrmap_put(&map, w->var, tvm_const(c, w->var->dtype, k)) != TVM_OK)
      goto done;
    v[k] = tvm_substitute_stmt(c, s, &map);
    if (v[k] && w->dae)
      v[k] = tvm_attr(c, COPROC_ATTR_VTHREAD_COPY, NULL, tvm_int(c, (int)k),
                      v[k]);
    if (!v[k]) goto done;
  }
  res = tvm_seq(c, v, (int)w->n);
done:
  tvm_ptrmap_free(&map);
  return res;
}

/* Does expression e (may be NULL) depend on the thread variable? */
static int uses(vt *w, const tvm_expr *e) {
  return e && tvm_expr_uses_var(e, w->var);
}

/* ---- sharing (targets without queues) ------------------------------------- */

/* Visitor hook: sets *flag when the expression reads a tainted variable
 * or buffer. */
static int taint_expr(tvm_visitor *v, const tvm_expr *e) {
  vt *w = ((void **)v->data)[0];
  int *flag = ((void **)v->data)[1];
  void *dummy;
  if (*flag) return 1;
  if (tvm_ptrmap_get(&w->taint, e, &dummy) ||
      (e->kind == TVM_LOAD &&
       tvm_ptrmap_get(&w->taint, e->u.load.buffer, &dummy)))
    *flag = 1;
  return *flag;
}

/* Does e (may be NULL) read a tainted variable or buffer? */
static int tainted(vt *w, const tvm_expr *e) {
  int flag = 0;
  void *d[2] = {w, &flag};
  tvm_visitor v = {taint_expr, NULL, d};
  if (e) tvm_visit_expr(&v, e);
  return flag;
}

/* Does e (may be NULL) load from buffer b? */
static int loads_from(const tvm_expr *e, const tvm_expr *b);
static int load_hook(tvm_visitor *v, const tvm_expr *e) {
  int *flag = ((void **)v->data)[1];
  if (*flag) return 1;
  if ((e->kind == TVM_LOAD && e->u.load.buffer == ((void **)v->data)[0]) ||
      e == ((void **)v->data)[0])
    *flag = 1;
  return *flag;
}
static int loads_from(const tvm_expr *e, const tvm_expr *b) {
  int flag = 0;
  void *d[2] = {(void *)b, &flag};
  tvm_visitor v = {load_hook, NULL, d};
  if (e) tvm_visit_expr(&v, e);
  return flag;
}

/* One round of taint propagation over s under control ctl (the enclosing
 * loops, ifs and lets differ between threads).  A buffer is tainted when
 * a store into it differs between threads (its index, value or predicate
 * reads a tainted variable or buffer, or it sits under tainted control)
 * or reads the buffer itself (an accumulation: not idempotent, so not to
 * be run once for all threads); a let variable when its value is
 * tainted.  Returns 1 when something new was tainted, -1 on a statement
 * the analysis does not know (then nothing is shared). */
static int taint_round(vt *w, const tvm_stmt *s, int ctl) {
  int ch = 0, r;
  void *dummy;
  if (!s) return 0;
#define SUB(x, c_)                                                          \
  do {                                                                      \
    if ((r = taint_round(w, (x), (c_))) < 0) return -1;                     \
    ch |= r;                                                                \
  } while (0)
  switch (s->kind) {
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) SUB(s->u.seq.stmts[i], ctl);
    return ch;
  case TVM_FOR:
    SUB(s->u.for_.body, ctl || tainted(w, s->u.for_.min) ||
                            tainted(w, s->u.for_.extent));
    return ch;
  case TVM_IF:
    r = ctl || tainted(w, s->u.if_.cond);
    SUB(s->u.if_.then_, r);
    SUB(s->u.if_.else_, r);
    return ch;
  case TVM_LET_STMT:
    if ((ctl || tainted(w, s->u.let.value)) &&
        !tvm_ptrmap_get(&w->taint, s->u.let.var, &dummy)) {
      if (tvm_ptrmap_put(&w->taint, s->u.let.var, s->u.let.var) != TVM_OK)
        return -1;
      ch = 1;
    }
    SUB(s->u.let.body, ctl);
    return ch;
  case TVM_ALLOCATE:
    if (tainted(w, s->u.alloc.extent)) return -1;
    SUB(s->u.alloc.body, ctl);
    return ch;
  case TVM_ATTR:
    SUB(s->u.attr.body, ctl || tainted(w, s->u.attr.value));
    return ch;
  case TVM_BARRIER:
    return 0;
  case TVM_STORE: {
    const tvm_expr *b = s->u.store.buffer;
    if (tvm_ptrmap_get(&w->taint, b, &dummy)) return 0;
    if (ctl || tainted(w, s->u.store.index) || tainted(w, s->u.store.value) ||
        tainted(w, s->u.store.pred) || loads_from(s->u.store.value, b) ||
        loads_from(s->u.store.index, b)) {
      if (tvm_ptrmap_put(&w->taint, (void *)b, (void *)b) != TVM_OK) return -1;
      return 1;
    }
    return 0;
  }
  default:
    return -1; /* calls, asserts: effects the analysis does not see */
  }
#undef SUB
}

/* Taints the body to a fixed point; clears w->share when it cannot. */
static void taint_body(vt *w, const tvm_stmt *body) {
  if (tvm_ptrmap_put(&w->taint, w->var, w->var) != TVM_OK) {
    w->share = 0;
    return;
  }
  for (int round = 0; round < 64; round++) {
    int r = taint_round(w, body, 0);
    if (r < 0) w->share = 0;
    if (r <= 0) return;
  }
  w->share = 0;
}

/* Does statement s touch anything tainted (a tainted variable, a load or
 * store of a tainted buffer)? */
static int stmt_hook(tvm_visitor *v, const tvm_stmt *s) {
  vt *w = ((void **)v->data)[0];
  int *flag = ((void **)v->data)[1];
  void *dummy;
  if (*flag) return 1;
  if ((s->kind == TVM_STORE &&
       tvm_ptrmap_get(&w->taint, s->u.store.buffer, &dummy)) ||
      (s->kind == TVM_LET_STMT &&
       tvm_ptrmap_get(&w->taint, s->u.let.var, &dummy)))
    *flag = 1;
  return *flag;
}
static int stmt_tainted(vt *w, const tvm_stmt *s) {
  int flag = 0;
  void *d[2] = {w, &flag};
  tvm_visitor v = {taint_expr, stmt_hook, d};
  tvm_visit_stmt(&v, s);
  return flag;
}

/* The n-thread form of s, interleaved as described in the file comment. */
static tvm_stmt *inject(vt *w, tvm_stmt *s) {
  tvm_ctx *c = w->c;
  int q;
  if (!s) return NULL;
  if (w->dae && lower_is_queue_stmt(s, &q)) return replicate(w, s);
  /* the same for every thread, and idempotent: once for all */
  if (w->share && !stmt_tainted(w, s)) return s;
  switch (s->kind) {
  case TVM_SEQ: {
    tvm_stmt **v = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)(s->u.seq.n + 1));
    if (!v) return NULL;
    for (int i = 0; i < s->u.seq.n; i++)
      if (!(v[i] = inject(w, s->u.seq.stmts[i]))) return NULL;
    return tvm_seq(c, v, s->u.seq.n);
  }
  case TVM_FOR:
    if (uses(w, s->u.for_.min) || uses(w, s->u.for_.extent)) break;
    return tvm_for(c, s->u.for_.var, s->u.for_.min, s->u.for_.extent,
                   s->u.for_.for_kind, s->u.for_.thread_tag,
                   inject(w, s->u.for_.body));
  case TVM_ALLOCATE: {
    void *dummy;
    if (uses(w, s->u.alloc.extent)) break;
    if (w->share && !tvm_ptrmap_get(&w->taint, s->u.alloc.buffer, &dummy)) {
      /* written the same by every thread: one copy, shared */
      tvm_stmt *r = tvm_allocate(c, s->u.alloc.buffer, s->u.alloc.dtype,
                                 s->u.alloc.extent, s->u.alloc.scope,
                                 inject(w, s->u.alloc.body));
      if (r) r->u.alloc.align = s->u.alloc.align;
      return r;
    }
    tvm_stmt *e = expand_alloc(w, s);
    if (!e || e == s) break;
    tvm_stmt *r = tvm_allocate(c, e->u.alloc.buffer, e->u.alloc.dtype,
                               e->u.alloc.extent, e->u.alloc.scope,
                               inject(w, e->u.alloc.body));
    if (r) r->u.alloc.align = e->u.alloc.align;
    return r;
  }
  case TVM_ATTR:
    if (uses(w, s->u.attr.value) || s->u.attr.node == w->var ||
        !strcmp(s->u.attr.key, TVM_ATTR_COPROC_SCOPE))
      break;
    return tvm_attr(c, s->u.attr.key, s->u.attr.node, s->u.attr.value,
                    inject(w, s->u.attr.body));
  case TVM_IF: {
    if (uses(w, s->u.if_.cond)) break;
    tvm_stmt *t = inject(w, s->u.if_.then_), *f = NULL;
    if (s->u.if_.else_ && !(f = inject(w, s->u.if_.else_))) return NULL;
    return t ? tvm_if(c, s->u.if_.cond, t, f) : NULL;
  }
  case TVM_LET_STMT:
    if (uses(w, s->u.let.value)) break;
    return tvm_let_stmt(c, s->u.let.var, s->u.let.value,
                        inject(w, s->u.let.body));
  default:
    break;
  }
  return replicate(w, s);
}

/* Mutator hook: injects vthread loops bottom-up (inner ones first). */
static tvm_stmt *vthread_stmt(tvm_mutator *m, tvm_stmt *s) {
  const tvm_lower_options *o = m->data;
  int64_t n;
  if (s->kind != TVM_FOR || s->u.for_.for_kind != TVM_FOR_VTHREAD) return NULL;
  tvm_stmt *body = tvm_mutate_stmt(m, s->u.for_.body);
  if (!body) return NULL;
  if (!tvm_is_const_int(s->u.for_.extent, &n) || n < 1 ||
      !tvm_is_zero(s->u.for_.min))
    return tvm_for(m->ctx, s->u.for_.var, s->u.for_.min, s->u.for_.extent,
                   TVM_FOR_SERIAL, NULL, body);
  vt w = {m->ctx, s->u.for_.var, n, o->num_queues > 0, o->num_queues == 0,
          {0}};
  if (w.share) taint_body(&w, body);
  tvm_stmt *r = inject(&w, body);
  tvm_ptrmap_free(&w.taint);
  return tvm_attr(m->ctx, TVM_ATTR_VTHREAD, s->u.for_.var,
                  tvm_int(m->ctx, (int)n), r);
}

/* Removes the virtual thread loops of f (see the file comment); *out is a
 * copy of f in ctx c with the new body. */
tvm_status tvm_pass_inject_virtual_thread(tvm_ctx *c, tvm_func *f,
                                          const tvm_lower_options *o,
                                          tvm_func **out) {
  tvm_mutator m = {c, NULL, vthread_stmt, (void *)o};
  tvm_stmt *body;
  if (!f || !o || !out)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "inject_virtual_thread: NULL argument");
  body = f->body;
  if (o->num_queues > 0) body = lower_coproc_normalize(c, body, o);
  if (body) body = tvm_mutate_stmt(&m, body);
  return lower_with_body(c, f, body, "inject_virtual_thread", out);
}
