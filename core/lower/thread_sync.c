/*
 * core/lower/thread_sync.c - the thread_sync pass: barriers for memory
 * scopes shared by the threads of a block.
 *
 * A scope is shared when its tvm_scope_info (tvm_lower_find_scope) has
 * TVM_VIS_BLOCK visibility without device-wide visibility; an undeclared
 * scope named "shared" is shared too.  Threads write a shared buffer and
 * other threads read it, so the pass inserts `barrier("shared")`:
 *  - in a sequence, before an element that reads a shared buffer written
 *    by an earlier element (or writes one read by an earlier element)
 *    since the last barrier;
 *  - at the end of a loop body that both reads and writes a shared buffer
 *    (the back edge: the next iteration's writes must not overtake this
 *    iteration's reads), unless the body already ends with a barrier.
 *  Writes under `attr [B] double_buffer_write` (inject_double_buffer) fill
 *  the copy of B that the next iteration reads: within the sequence they
 *  conflict with nothing, on the back edge they count.
 * The analysis is conservative: compound elements count with all the
 * accesses inside them.  Two barriers are never placed next to each
 * other.
 *
 * Every thread of a block must reach the same barriers, or the block
 * deadlocks.  So the pass then checks the result: a barrier (inserted
 * or written by a schedule) under an if whose condition, or a loop whose
 * bounds, depend on a threadIdx.* variable (directly or through lets) is
 * a compile error naming the condition, the thread axis and how to fix
 * it (predicate the shared-memory accesses instead of the block of code,
 * or make the condition uniform across the block).  Conditions on
 * blockIdx.* are uniform within a block and are fine.
 */
#include <string.h>

#include "tvm/lower.h"
#include "lower_int.h"

/* State of the pass. */
typedef struct sync {
  tvm_ctx *c;
  const tvm_lower_options *o;
  tvm_ptrvec shared; /* buffer vars of shared allocations */
  int oom;
} sync;

/* Is the scope named name shared by the threads of a block? */
static int scope_is_shared(const tvm_lower_options *o, const char *name) {
  const tvm_scope_info *si = tvm_lower_find_scope(o, name);
  if (!si) return name && !strcmp(name, "shared");
  return (si->visibility & TVM_VIS_BLOCK) && !(si->visibility & TVM_VIS_DEVICE);
}

/* Visitor hook: collects the buffers of shared allocations. */
static int find_shared(tvm_visitor *v, const tvm_stmt *s) {
  sync *y = v->data;
  if (s->kind == TVM_ALLOCATE && scope_is_shared(y->o, s->u.alloc.scope) &&
      tvm_ptrvec_push(&y->shared, s->u.alloc.buffer) != TVM_OK)
    y->oom = 1;
  return 0;
}

/* Is b the buffer of a shared allocation? */
static int is_shared(const sync *y, const tvm_expr *b) {
  for (size_t i = 0; i < y->shared.len; i++)
    if (y->shared.data[i] == b) return 1;
  return 0;
}

/* Shared buffers read and written by a statement (small sets).  With
 * iter set, the writes of a buffer B under `attr [B] double_buffer_write`
 * (inject_double_buffer: they fill the copy of B the next iteration of
 * the enclosing loop reads) are left out: they conflict with nothing in
 * this iteration.  Without it (a loop's back edge) they count. */
typedef struct rw {
  const sync *y;
  tvm_ptrvec rd, wr;
  int oom;
  int iter;
} rw;

/* Adds b to set when it is shared and not there yet. */
static void add(rw *a, tvm_ptrvec *set, const tvm_expr *b) {
  if (!is_shared(a->y, b)) return;
  for (size_t i = 0; i < set->len; i++)
    if (set->data[i] == b) return;
  if (tvm_ptrvec_push(set, (void *)b) != TVM_OK) a->oom = 1;
}

/* Visitor hook: loads, access_ptrs and handles passed to calls. */
static int rw_expr(tvm_visitor *v, const tvm_expr *e) {
  rw *a = v->data;
  int64_t mask;
  if (e->kind == TVM_LOAD) add(a, &a->rd, e->u.load.buffer);
  if (e->kind == TVM_CALL) {
    if (e->u.call.op == TVM_INTRIN_ACCESS_PTR && e->u.call.nargs >= 5 &&
        tvm_is_const_int(e->u.call.args[4], &mask)) {
      if (mask & 1) add(a, &a->rd, e->u.call.args[0]);
      if (mask & 2) add(a, &a->wr, e->u.call.args[0]);
    } else {
      for (int i = 0; i < e->u.call.nargs; i++)
        if (e->u.call.args[i]->kind == TVM_VAR) {
          add(a, &a->rd, e->u.call.args[i]);
          add(a, &a->wr, e->u.call.args[i]);
        }
    }
  }
  return 0;
}

/* Frees the sets of a. */
static void rw_free(rw *a) {
  tvm_ptrvec_free(&a->rd);
  tvm_ptrvec_free(&a->wr);
}

/* Visitor hook: stores; double_buffer_write attributes (see rw). */
static int rw_stmt(tvm_visitor *v, const tvm_stmt *s) {
  rw *a = v->data;
  if (s->kind == TVM_STORE) add(a, &a->wr, s->u.store.buffer);
  if (a->iter && s->kind == TVM_ATTR &&
      !strcmp(s->u.attr.key, LOWER_ATTR_DB_WRITE)) {
    rw in = {a->y, {0}, {0}, 0, a->iter};
    tvm_visitor w = {v->expr, v->stmt, &in};
    tvm_visit_stmt(&w, s->u.attr.body);
    for (size_t j = 0; j < in.rd.len; j++) add(a, &a->rd, in.rd.data[j]);
    for (size_t j = 0; j < in.wr.len; j++)
      if (in.wr.data[j] != s->u.attr.node) add(a, &a->wr, in.wr.data[j]);
    if (in.oom) a->oom = 1;
    rw_free(&in);
    return 1;
  }
  return 0;
}

/* The shared buffers s reads and writes, into a. */
static void rw_of(rw *a, const tvm_stmt *s) {
  tvm_visitor v = {rw_expr, rw_stmt, a};
  tvm_visit_stmt(&v, s);
}


/* Do the sets x and y share a buffer? */
static int meet(const tvm_ptrvec *x, const tvm_ptrvec *y) {
  for (size_t i = 0; i < x->len; i++)
    for (size_t j = 0; j < y->len; j++)
      if (x->data[i] == y->data[j]) return 1;
  return 0;
}

static tvm_stmt *sync_stmt(sync *y, tvm_stmt *s);

/* Is s a barrier statement? */
static int is_barrier(const tvm_stmt *s) {
  return s && s->kind == TVM_BARRIER;
}

/* Last statement of s when it is a sequence, else s. */
static tvm_stmt *last_of(tvm_stmt *s) {
  while (s && s->kind == TVM_SEQ && s->u.seq.n > 0)
    s = s->u.seq.stmts[s->u.seq.n - 1];
  return s;
}

/* A sequence with barriers between dependent elements. */
static tvm_stmt *sync_seq(sync *y, tvm_stmt *s) {
  tvm_ctx *c = y->c;
  int n = s->u.seq.n;
  tvm_stmt **v = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)(2 * n + 1));
  rw pending = {y, {0}, {0}, 0, 1};
  int k = 0;
  if (!v) return NULL;
  for (int i = 0; i < n; i++) {
    tvm_stmt *e = s->u.seq.stmts[i];
    rw a = {y, {0}, {0}, 0, 1};
    rw_of(&a, e);
    if (is_barrier(e)) {
      rw_free(&pending);
    } else if ((meet(&a.rd, &pending.wr) || meet(&a.wr, &pending.rd)) &&
               !(k > 0 && is_barrier(last_of(v[k - 1])))) {
      v[k++] = tvm_barrier(c, "shared");
      rw_free(&pending);
    }
    for (size_t j = 0; j < a.rd.len; j++) add(&pending, &pending.rd, a.rd.data[j]);
    for (size_t j = 0; j < a.wr.len; j++) add(&pending, &pending.wr, a.wr.data[j]);
    if (a.oom || pending.oom) y->oom = 1;
    rw_free(&a);
    if (is_barrier(e) && k > 0 && is_barrier(last_of(v[k - 1]))) continue;
    if (!(v[k++] = sync_stmt(y, e))) break;
  }
  rw_free(&pending);
  return tvm_seq(c, v, k);
}

/* s with barriers inserted (see the file comment). */
static tvm_stmt *sync_stmt(sync *y, tvm_stmt *s) {
  tvm_ctx *c = y->c;
  tvm_stmt *r;
  if (!s) return NULL;
  switch (s->kind) {
  case TVM_SEQ:
    return sync_seq(y, s);
  case TVM_FOR: {
    tvm_stmt *b = sync_stmt(y, s->u.for_.body);
    rw a = {y, {0}, {0}, 0, 0};
    if (!b) return NULL;
    rw_of(&a, s->u.for_.body);
    /* thread loops are not sequential: no back edge there */
    if (s->u.for_.for_kind != TVM_FOR_THREAD && meet(&a.rd, &a.wr) &&
        !is_barrier(last_of(b)))
      b = tvm_seq2(c, b, tvm_barrier(c, "shared"));
    if (a.oom) y->oom = 1;
    rw_free(&a);
    return tvm_for(c, s->u.for_.var, s->u.for_.min, s->u.for_.extent,
                   s->u.for_.for_kind, s->u.for_.thread_tag, b);
  }
  case TVM_IF: {
    tvm_stmt *t = sync_stmt(y, s->u.if_.then_), *f = NULL;
    if (s->u.if_.else_ && !(f = sync_stmt(y, s->u.if_.else_))) return NULL;
    return t ? tvm_if(c, s->u.if_.cond, t, f) : NULL;
  }
  case TVM_LET_STMT:
  case TVM_ALLOCATE:
  case TVM_ATTR:
  case TVM_ASSERT: {
    tvm_stmt **slot = s->kind == TVM_LET_STMT   ? &s->u.let.body
                      : s->kind == TVM_ALLOCATE ? &s->u.alloc.body
                      : s->kind == TVM_ATTR     ? &s->u.attr.body
                                                : &s->u.assert_.body;
    tvm_stmt *b = sync_stmt(y, *slot);
    if (!b) return NULL;
    if (b == *slot) return s;
    r = tvm_ctx_alloc(c, sizeof *r);
    if (!r) return NULL;
    *r = *s;
    if (s->kind == TVM_LET_STMT) r->u.let.body = b;
    else if (s->kind == TVM_ALLOCATE) r->u.alloc.body = b;
    else if (s->kind == TVM_ATTR) r->u.attr.body = b;
    else r->u.assert_.body = b;
    return r;
  }
  default:
    return s;
  }
}

/* ---- barriers under thread-dependent control flow ------------------------ */

/* State of the divergence check. */
typedef struct diverge {
  tvm_ptrvec tvars; /* threadIdx loop variables and lets derived from them */
  const tvm_func *f;
  tvm_status st;
  int oom;
} diverge;

/* The first thread variable of d that e uses, or NULL. */
static const tvm_expr *thread_var_in(const diverge *d, const tvm_expr *e) {
  for (size_t i = 0; e && i < d->tvars.len; i++)
    if (tvm_expr_uses_var(e, d->tvars.data[i])) return d->tvars.data[i];
  return NULL;
}

/* Visitor hook: notes a barrier and stops. */
static int barrier_hook(tvm_visitor *v, const tvm_stmt *s) {
  if (s->kind == TVM_BARRIER) *(int *)v->data = 1;
  return *(int *)v->data;
}

/* Does s hold a barrier? */
static int has_barrier(const tvm_stmt *s) {
  int found = 0;
  tvm_visitor v = {NULL, barrier_hook, &found};
  if (s) tvm_visit_stmt(&v, s);
  return found;
}

/* The error for a barrier under `what` (an if condition or loop bound)
 * that depends on thread variable tv. */
static void diverge_fail(diverge *d, const char *what, const tvm_expr *e,
                         const tvm_expr *tv) {
  char *es = tvm_expr_str(e);
  d->st = tvm_diag_set(
      TVM_ERR_INVALID,
      "thread_sync: %s: a barrier is needed (or placed) under the %s `%s`, "
      "which depends on the thread index %s: threads of a block that skip "
      "it would deadlock the others.  Predicate the shared-memory accesses "
      "themselves (keep the condition inside the stages, not around them), "
      "or make the condition the same for every thread of the block",
      d->f->name, what, es ? es : "?", tv->u.var.name);
  tvm_free(es);
}

/* Checks s (see the file comment); the first failure lands in d->st. */
static void check_diverge(diverge *d, const tvm_stmt *s) {
  const tvm_expr *tv;
  if (!s || d->st != TVM_OK) return;
  switch (s->kind) {
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) check_diverge(d, s->u.seq.stmts[i]);
    return;
  case TVM_FOR:
    if ((tv = thread_var_in(d, s->u.for_.min)) ||
        (tv = thread_var_in(d, s->u.for_.extent))) {
      if (has_barrier(s->u.for_.body)) {
        diverge_fail(d, "loop bound", s->u.for_.extent, tv);
        return;
      }
    }
    if (s->u.for_.for_kind == TVM_FOR_THREAD && s->u.for_.thread_tag &&
        !strncmp(s->u.for_.thread_tag, "threadIdx", 9) &&
        tvm_ptrvec_push(&d->tvars, s->u.for_.var) != TVM_OK)
      d->oom = 1;
    check_diverge(d, s->u.for_.body);
    return;
  case TVM_IF:
    if ((tv = thread_var_in(d, s->u.if_.cond)) &&
        (has_barrier(s->u.if_.then_) || has_barrier(s->u.if_.else_))) {
      diverge_fail(d, "condition", s->u.if_.cond, tv);
      return;
    }
    check_diverge(d, s->u.if_.then_);
    check_diverge(d, s->u.if_.else_);
    return;
  case TVM_LET_STMT:
    if (thread_var_in(d, s->u.let.value) &&
        tvm_ptrvec_push(&d->tvars, s->u.let.var) != TVM_OK)
      d->oom = 1;
    check_diverge(d, s->u.let.body);
    return;
  case TVM_ALLOCATE: check_diverge(d, s->u.alloc.body); return;
  case TVM_ATTR: check_diverge(d, s->u.attr.body); return;
  case TVM_ASSERT: check_diverge(d, s->u.assert_.body); return;
  default:
    return;
  }
}

/* Inserts barriers for shared scopes into f (see the file comment); *out
 * is a copy of f in ctx c with the new body. */
tvm_status tvm_pass_thread_sync(tvm_ctx *c, tvm_func *f,
                                const tvm_lower_options *o, tvm_func **out) {
  sync y = {c, o, {0}, 0};
  tvm_visitor v = {NULL, find_shared, &y};
  tvm_stmt *body;
  if (!f || !o || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "thread_sync: NULL argument");
  tvm_visit_stmt(&v, f->body);
  body = y.shared.len ? sync_stmt(&y, f->body) : f->body;
  tvm_ptrvec_free(&y.shared);
  if (y.oom) c->failed = 1;
  if (body && !y.oom) {
    diverge d = {{0}, f, TVM_OK, 0};
    check_diverge(&d, body);
    tvm_ptrvec_free(&d.tvars);
    if (d.oom) c->failed = 1;
    if (d.st != TVM_OK) return d.st;
  }
  return lower_with_body(c, f, body, "thread_sync", out);
}
