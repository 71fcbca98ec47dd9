/*
 * core/lower/inject_dep_tokens.c - the inject_dep_tokens pass: dependency
 * tokens between hardware queues (decoupled access-execute, the TVM paper
 * section 4.4).  Only called when o->num_queues > 0.
 *
 * Statements under `attr coproc_scope = q` run on hardware queue q; the
 * queues run concurrently, each in program order.  First every statement
 * touching a queued memory scope is put in exactly one queue statement
 * (coproc_int.h).  Then, for each block (the function body, a loop body,
 * an if branch; nested sequences, allocations, lets and attributes are
 * looked through, so their statements join the block's sequence), an
 * item (a queue statement, or
 * a compound statement holding several) that accesses a buffer an earlier
 * item on another queue accessed, one of them writing (RAW, WAR, WAW),
 * waits for it: the producer ends with `dep_push(from, to)` and the
 * consumer starts with `dep_pop(from, to)`.  Tokens are counted per
 * (from, to) pair, so the k-th pop waits for the k-th push; to keep that
 * matching right a consumer waits only for the latest conflicting item of
 * each other queue, and not at all when an earlier item of its queue
 * already waited for that one or a later one (queues run in order, so the
 * wait is inherited).  This makes pushes and pops of a pair pair up in
 * order.  A compound item (a loop or an if holding several queues) must
 * not start while a token of the enclosing level is outstanding on a
 * channel it uses inside (its own pops would take that token): when a
 * wait would span it, the compound itself waits instead (see decide).
 *
 * Loops: the analysis runs over two iterations of the body and keeps the
 * decisions of the second (steady state), which include loop-carried edges
 * (a consumer waiting for a producer of the previous iteration, typically
 * the WAR edge "compute must have read the buffer before the next load
 * overwrites it").  Each carried edge gets a priming push before the loop
 * and a draining pop after it, so the counts balance.  Compound items
 * (loops, ifs) balance their own tokens and are ordered with their
 * neighbours as a whole.
 *
 * Virtual threads: copies marked `attr virtual_thread_copy = k` by
 * inject_virtual_thread only conflict with copies of the same thread (or
 * unmarked statements), so thread 1's load does not wait for thread 0's
 * compute: the load queue runs ahead while the compute queue works.
 *
 * Token statements are `evaluate(dep_push(from, to))` inside the
 * coproc_scope of the queue that executes them (from for a push, to for a
 * pop).  The markers are removed.
 */
#include <string.h>

#include "coproc_int.h"
#include "lower_int.h"

#define MAXQ 16

/* One element of a sequence, as the token analysis sees it. */
typedef struct item {
  tvm_stmt *s;     /* with its virtual_thread_copy markers stripped */
  int kind;        /* 0 host (no queue), 1 queue statement, 2 compound */
  int queue;       /* kind 1 */
  int tid;         /* virtual thread, -1 = all */
  uint32_t queues; /* queues it runs on */
  tvm_ptrvec rd[MAXQ], wr[MAXQ];
  tvm_ptrvec pops, pushes; /* pairs, encoded by pair_code */
} item;

/* State of the pass. */
typedef struct dep {
  tvm_ctx *c;
  int nq;
  int oom;
  tvm_status err; /* a malformed queue statement (diagnostic set) */
} dep;

/* A (from, to) queue pair as a non-NULL pointer, for pointer vectors. */
static void *pair_code(int from, int to) {
  return (void *)(intptr_t)(from * MAXQ + to + 1);
}
/* The inverse of pair_code. */
static void pair_decode(void *p, int *from, int *to) {
  int v = (int)(intptr_t)p - 1;
  *from = v / MAXQ;
  *to = v % MAXQ;
}

/* ---- accesses -------------------------------------------------------------- */

typedef struct acc_walk {
  dep *d;
  item *it;
  int cur; /* queue of the enclosing queue statement, or -1 */
} acc_walk;

/* Records that the current queue reads (rw & 1) or writes (rw & 2) b. */
static void record(acc_walk *a, const tvm_expr *b, int rw) {
  if (a->cur < 0 || a->cur >= a->d->nq) return;
  if ((rw & 1) && tvm_ptrvec_push(&a->it->rd[a->cur], (void *)b) != TVM_OK)
    a->d->oom = 1;
  if ((rw & 2) && tvm_ptrvec_push(&a->it->wr[a->cur], (void *)b) != TVM_OK)
    a->d->oom = 1;
}

/* Visitor hook: loads, access_ptrs (by their rw mask) and handles passed
 * to calls (read and written). */
static int acc_expr(tvm_visitor *v, const tvm_expr *e) {
  acc_walk *a = v->data;
  if (e->kind == TVM_LOAD) {
    record(a, e->u.load.buffer, 1);
  } else if (e->kind == TVM_CALL) {
    int64_t mask;
    if (e->u.call.op == TVM_INTRIN_ACCESS_PTR && e->u.call.nargs >= 5 &&
        tvm_is_const_int(e->u.call.args[4], &mask)) {
      record(a, e->u.call.args[0], (int)mask);
    } else {
      for (int i = 0; i < e->u.call.nargs; i++)
        if (e->u.call.args[i]->kind == TVM_VAR &&
            tvm_dtype_is_handle(e->u.call.args[i]->dtype))
          record(a, e->u.call.args[i], 3);
    }
  }
  return 0;
}

/* Visitor hook: stores, and the queue of each queue statement entered. */
static int acc_stmt(tvm_visitor *v, const tvm_stmt *s) {
  acc_walk *a = v->data;
  int q;
  if (s->kind == TVM_STORE) record(a, s->u.store.buffer, 2);
  if (lower_is_queue_stmt(s, &q)) {
    int saved = a->cur;
    a->cur = q;
    if (q >= 0 && q < a->d->nq) a->it->queues |= 1u << q;
    tvm_visit_stmt_children(v, s);
    a->cur = saved;
    return 1;
  }
  return 0;
}

/* Do the sets x and y share a buffer? */
static int meet(const tvm_ptrvec *x, const tvm_ptrvec *y) {
  for (size_t i = 0; i < x->len; i++)
    for (size_t j = 0; j < y->len; j++)
      if (x->data[i] == y->data[j]) return 1;
  return 0;
}

/* Must b's work on queue qb wait for a's work on queue qa? */
static int conflict(const item *a, int qa, const item *b, int qb) {
  if (a->tid >= 0 && b->tid >= 0 && a->tid != b->tid) return 0;
  return meet(&a->wr[qa], &b->rd[qb]) || meet(&a->wr[qa], &b->wr[qb]) ||
         meet(&a->rd[qa], &b->wr[qb]);
}

/* Frees the heap vectors of an item. */
static void item_free(item *it) {
  for (int q = 0; q < MAXQ; q++) {
    tvm_ptrvec_free(&it->rd[q]);
    tvm_ptrvec_free(&it->wr[q]);
  }
  tvm_ptrvec_free(&it->pops);
  tvm_ptrvec_free(&it->pushes);
}

/* ---- token statements -------------------------------------------------------- */

/* `evaluate(dep_push/pop(from, to))`. */
static tvm_stmt *token(tvm_ctx *c, tvm_intrin op, int from, int to) {
  tvm_expr *args[2] = {tvm_int(c, from), tvm_int(c, to)};
  return tvm_evaluate(c, tvm_call(c, TVM_I32, op, args, 2));
}

/* A standalone queue statement holding one token. */
static tvm_stmt *token_qs(tvm_ctx *c, tvm_intrin op, int from, int to) {
  int q = op == TVM_INTRIN_DEP_PUSH ? from : to;
  return tvm_attr(c, TVM_ATTR_COPROC_SCOPE, NULL, tvm_int(c, q),
                  token(c, op, from, to));
}

/* Appends the tokens of list (pairs) to a statement vector. */
static int emit_tokens(dep *d, tvm_ptrvec *out, const tvm_ptrvec *list,
                       tvm_intrin op, int standalone) {
  for (size_t i = 0; i < list->len; i++) {
    int from, to;
    pair_decode(list->data[i], &from, &to);
    tvm_stmt *t = standalone ? token_qs(d->c, op, from, to)
                             : token(d->c, op, from, to);
    if (!t || tvm_ptrvec_push(out, t) != TVM_OK) return 0;
  }
  return 1;
}

/* A sequence of the statements of v (NULL when empty). */
static tvm_stmt *vec_seq(tvm_ctx *c, tvm_ptrvec *v) {
  if (v->len == 0) return NULL;
  return tvm_seq(c, (tvm_stmt **)v->data, (int)v->len);
}

/* ---- the analysis --------------------------------------------------------------- */

static tvm_stmt *process_block(dep *d, tvm_stmt *s, int is_loop, int tid,
                               tvm_ptrvec *primes);

/* Is s a virtual_thread_copy marker?  Sets *k. */
static int is_marker(const tvm_stmt *s, int *k) {
  int64_t v;
  if (s->kind != TVM_ATTR || !s->u.attr.key ||
      strcmp(s->u.attr.key, COPROC_ATTR_VTHREAD_COPY) ||
      !tvm_is_const_int(s->u.attr.value, &v))
    return 0;
  *k = (int)v;
  return 1;
}

/* Fills it from the sequence element s. */
static void classify(dep *d, item *it, tvm_stmt *s, int tid) {
  int k, q;
  while (is_marker(s, &k)) {
    tid = k;
    s = s->u.attr.body;
  }
  it->s = s;
  it->tid = tid;
  if (lower_is_queue_stmt(s, &q)) {
    if (q < 0 || q >= d->nq) {
      if (d->err == TVM_OK)
        d->err = tvm_diag_set(TVM_ERR_INVALID,
                              "coproc_scope = %d, but the target has %d "
                              "hardware queues (0 .. %d)",
                              q, d->nq, d->nq - 1);
      return;
    }
    it->kind = 1;
    it->queue = q;
  } else if (lower_has_coproc(s)) {
    if (s->kind != TVM_FOR && s->kind != TVM_IF) {
      if (d->err == TVM_OK)
        d->err = tvm_diag_set(TVM_ERR_INVALID,
                              "coproc_scope whose value is not a constant "
                              "queue id (in a %s statement)",
                              tvm_stmt_kind_name(s->kind));
      return;
    }
    it->kind = 2;
  }
  if (it->kind) {
    acc_walk a = {d, it, -1};
    tvm_visitor v = {acc_expr, acc_stmt, &a};
    tvm_visit_stmt(&v, s);
  }
}

/* One decision: the item at (unrolled) position u pops (qa, qb), waiting
 * for the push of the item at position v. */
typedef struct decision {
  int u, v, qa, qb;
} decision;

/* Index of the force flag of item i for the pair (qa, qb). */
static size_t force_at(int i, int qa, int qb) {
  return ((size_t)i * MAXQ + (size_t)qa) * MAXQ + (size_t)qb;
}

/* One pass of the token decisions over the items (two copies for a loop
 * body, keeping the second's): each consumer waits for the latest
 * conflicting item of every other queue unless an earlier wait of its
 * queue covers it.  A compound flagged in force for (qa, qb) waits for
 * the latest item of qa, conflicting or not.  Returns the number of
 * decisions written to *out (heap), or -1 on OOM. */
static int decide_once(dep *d, item *items, int m, int is_loop,
                       const unsigned char *force, decision **out) {
  int last[MAXQ][MAXQ], n = 0, cap = 0;
  int total = is_loop ? 2 * m : m;
  decision *v = NULL;
  for (int a = 0; a < MAXQ; a++)
    for (int b = 0; b < MAXQ; b++) last[a][b] = -1;
  for (int u = 0; u < total; u++) {
    item *it = &items[u % m];
    if (!it->kind) continue;
    for (int qb = 0; qb < d->nq; qb++) {
      if (!(it->queues & (1u << qb))) continue;
      for (int qa = 0; qa < d->nq; qa++) {
        int best = -1;
        if (qa == qb) continue;
        int all = force[force_at(u % m, qa, qb)];
        for (int w = u - 1; w >= 0 && best < 0; w--) {
          item *iw = &items[w % m];
          if (iw->kind && (iw->queues & (1u << qa)) &&
              (all || conflict(iw, qa, it, qb)))
            best = w;
        }
        if (best < 0 || best <= last[qa][qb]) continue;
        last[qa][qb] = best;
        if (is_loop && u < m) continue; /* first iteration: state only */
        if (n == cap) {
          cap = cap ? 2 * cap : 16;
          decision *nv = tvm_realloc(v, sizeof(decision) * (size_t)cap);
          if (!nv) {
            tvm_free(v);
            return -1;
          }
          v = nv;
        }
        v[n++] = (decision){u, best, qa, qb};
      }
    }
  }
  *out = v;
  return n;
}

/* Decides the tokens of a sequence of items (see the file comment) and
 * records them in the items; for a loop body, carried edges are appended
 * to primes.
 *
 * A compound running on queues qa and qb uses the (qa, qb) channel
 * inside, so no token of this level may be outstanding on that channel
 * when it starts (its own pops would take it).  When a decision waits
 * across such a compound (producer before it, consumer after it), the
 * compound is flagged to wait for the latest item of qa itself, which
 * covers the later consumer, and the decisions are made again. */
static void decide(dep *d, item *items, int m, int is_loop,
                   tvm_ptrvec *primes) {
  size_t nf = (size_t)m * MAXQ * MAXQ;
  unsigned char *force = tvm_calloc(nf, 1);
  decision *v = NULL;
  int n = -1, changed = 1;
  if (!force) {
    d->oom = 1;
    return;
  }
  while (changed) {
    changed = 0;
    tvm_free(v);
    v = NULL;
    n = decide_once(d, items, m, is_loop, force, &v);
    if (n < 0) break;
    for (int k = 0; k < n; k++)
      for (int c = v[k].v + 1; c < v[k].u; c++) {
        item *ic = &items[c % m];
        size_t f = force_at(c % m, v[k].qa, v[k].qb);
        if (ic->kind == 2 && (ic->queues & (1u << v[k].qa)) &&
            (ic->queues & (1u << v[k].qb)) && !force[f]) {
          force[f] = 1;
          changed = 1;
        }
      }
  }
  for (int k = 0; k < n; k++) {
    void *pair = pair_code(v[k].qa, v[k].qb);
    if (tvm_ptrvec_push(&items[v[k].u % m].pops, pair) != TVM_OK ||
        tvm_ptrvec_push(&items[v[k].v % m].pushes, pair) != TVM_OK ||
        (is_loop && v[k].v < m && tvm_ptrvec_push(primes, pair) != TVM_OK))
      d->oom = 1;
  }
  if (n < 0) d->oom = 1;
  tvm_free(v);
  tvm_free(force);
}

/* The rewritten form of one item with its tokens. */
static tvm_stmt *emit_item(dep *d, item *it) {
  tvm_ctx *c = d->c;
  tvm_ptrvec out = {0}, inner = {0};
  tvm_stmt *res = NULL, *body = NULL;
  if (it->kind == 0) return it->s;
  if (it->kind == 1) {
    if (!emit_tokens(d, &inner, &it->pops, TVM_INTRIN_DEP_POP, 0) ||
        tvm_ptrvec_push(&inner, it->s->u.attr.body) != TVM_OK ||
        !emit_tokens(d, &inner, &it->pushes, TVM_INTRIN_DEP_PUSH, 0))
      goto done;
    res = tvm_attr(c, TVM_ATTR_COPROC_SCOPE, it->s->u.attr.node,
                   it->s->u.attr.value, vec_seq(c, &inner));
    goto done;
  }
  /* compound: process inside, then order it with its neighbours */
  if (it->s->kind == TVM_FOR) {
    tvm_ptrvec primes = {0};
    tvm_stmt *b = process_block(d, it->s->u.for_.body, 1, it->tid, &primes);
    tvm_stmt *loop = b ? tvm_for(c, it->s->u.for_.var, it->s->u.for_.min,
                                 it->s->u.for_.extent, it->s->u.for_.for_kind,
                                 it->s->u.for_.thread_tag, b)
                       : NULL;
    int ok = loop && emit_tokens(d, &inner, &primes, TVM_INTRIN_DEP_PUSH, 1) &&
             tvm_ptrvec_push(&inner, loop) == TVM_OK &&
             emit_tokens(d, &inner, &primes, TVM_INTRIN_DEP_POP, 1);
    tvm_ptrvec_free(&primes);
    if (!ok) goto done;
    body = vec_seq(c, &inner);
  } else { /* an if: each branch balances its own tokens */
    tvm_stmt *t = process_block(d, it->s->u.if_.then_, 0, it->tid, NULL);
    tvm_stmt *f = it->s->u.if_.else_
                      ? process_block(d, it->s->u.if_.else_, 0, it->tid, NULL)
                      : NULL;
    if (!t || (it->s->u.if_.else_ && !f)) goto done;
    body = tvm_if(c, it->s->u.if_.cond, t, f);
  }
  if (!body || !emit_tokens(d, &out, &it->pops, TVM_INTRIN_DEP_POP, 1) ||
      tvm_ptrvec_push(&out, body) != TVM_OK ||
      !emit_tokens(d, &out, &it->pushes, TVM_INTRIN_DEP_PUSH, 1))
    goto done;
  res = vec_seq(c, &out);
done:
  tvm_ptrvec_free(&out);
  tvm_ptrvec_free(&inner);
  return res;
}

/* s with its single body replaced (let, allocate, attr, assert). */
static tvm_stmt *rebody(tvm_ctx *c, tvm_stmt *s, tvm_stmt *b) {
  tvm_stmt *r;
  if (!b) return NULL;
  r = tvm_ctx_alloc(c, sizeof *r);
  if (!r) return NULL;
  *r = *s;
  if (s->kind == TVM_LET_STMT) r->u.let.body = b;
  else if (s->kind == TVM_ALLOCATE) r->u.alloc.body = b;
  else if (s->kind == TVM_ATTR) r->u.attr.body = b;
  else r->u.assert_.body = b;
  return r;
}

/* Is s looked through when collecting the items of a block?  Wrappers
 * (allocations, lets, asserts, attributes other than coproc_scope) only
 * scope their body, so the statements inside take part in the block's
 * sequence. */
static int is_wrapper(const tvm_stmt *s) {
  switch (s->kind) {
  case TVM_LET_STMT:
  case TVM_ALLOCATE:
  case TVM_ASSERT:
    return 1;
  case TVM_ATTR:
    return strcmp(s->u.attr.key, TVM_ATTR_COPROC_SCOPE) != 0;
  default:
    return 0;
  }
}

/* The body of a wrapper statement. */
static tvm_stmt *wrapped(tvm_stmt *s) {
  return s->kind == TVM_LET_STMT   ? s->u.let.body
         : s->kind == TVM_ALLOCATE ? s->u.alloc.body
         : s->kind == TVM_ATTR     ? s->u.attr.body
                                   : s->u.assert_.body;
}

/* The items of a block, in order. */
typedef struct item_list {
  item *v;
  int n, cap;
} item_list;

/* Collects the items of s: sequences are flattened and wrappers and
 * markers looked through (markers set the thread of what they hold). */
static void gather(dep *d, tvm_stmt *s, int tid, item_list *l) {
  int k;
  if (!s || d->oom) return;
  if (s->kind == TVM_SEQ) {
    for (int i = 0; i < s->u.seq.n; i++) gather(d, s->u.seq.stmts[i], tid, l);
    return;
  }
  if (is_marker(s, &k)) {
    gather(d, s->u.attr.body, k, l);
    return;
  }
  if (is_wrapper(s)) {
    gather(d, wrapped(s), tid, l);
    return;
  }
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    item *nv = tvm_realloc(l->v, sizeof(item) * (size_t)cap);
    if (!nv) {
      d->oom = 1;
      return;
    }
    memset(nv + l->n, 0, sizeof(item) * (size_t)(cap - l->n));
    l->v = nv;
    l->cap = cap;
  }
  classify(d, &l->v[l->n++], s, tid);
}

/* Rebuilds s around the rewritten items outs (taken in gather's order):
 * sequences and wrappers are kept, markers dropped. */
static tvm_stmt *rebuild(dep *d, tvm_stmt *s, tvm_stmt **outs, int n,
                         int *cursor) {
  tvm_ctx *c = d->c;
  int k;
  if (s->kind == TVM_SEQ) {
    tvm_stmt **v = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)(s->u.seq.n + 1));
    if (!v) return NULL;
    for (int i = 0; i < s->u.seq.n; i++)
      if (!(v[i] = rebuild(d, s->u.seq.stmts[i], outs, n, cursor))) return NULL;
    return tvm_seq(c, v, s->u.seq.n);
  }
  if (is_marker(s, &k)) return rebuild(d, s->u.attr.body, outs, n, cursor);
  if (is_wrapper(s))
    return rebody(c, s, rebuild(d, wrapped(s), outs, n, cursor));
  return *cursor < n ? outs[(*cursor)++] : NULL;
}

/* The tokens of a block: s is a loop body (is_loop; carried edges go to
 * primes), an if branch or the function body. */
static tvm_stmt *process_block(dep *d, tvm_stmt *s, int is_loop, int tid,
                               tvm_ptrvec *primes) {
  tvm_ctx *c = d->c;
  item_list l = {NULL, 0, 0};
  tvm_stmt *res = NULL, **outs;
  int ok = 1, cursor = 0;
  if (!s) return NULL;
  gather(d, s, tid, &l);
  if (d->oom || d->err != TVM_OK || l.n == 0) {
    for (int i = 0; i < l.n; i++) item_free(&l.v[i]);
    tvm_free(l.v);
    return d->oom || d->err != TVM_OK ? NULL : s;
  }
  decide(d, l.v, l.n, is_loop, primes);
  outs = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)l.n);
  ok = outs && !d->oom;
  for (int i = 0; i < l.n && ok; i++)
    if (!(outs[i] = emit_item(d, &l.v[i]))) ok = 0;
  if (ok) res = rebuild(d, s, outs, l.n, &cursor);
  for (int i = 0; i < l.n; i++) item_free(&l.v[i]);
  tvm_free(l.v);
  return res;
}

/* Mutator hook removing leftover virtual_thread_copy markers. */
static tvm_stmt *strip_markers(tvm_mutator *m, tvm_stmt *s) {
  int k;
  if (is_marker(s, &k)) return tvm_mutate_stmt(m, s->u.attr.body);
  return NULL;
}

/* Inserts dependency tokens between the hardware queues of f (see the
 * file comment); *out is a copy of f in ctx c with the new body. */
tvm_status tvm_pass_inject_dep_tokens(tvm_ctx *c, tvm_func *f,
                                      const tvm_lower_options *o,
                                      tvm_func **out) {
  dep d = {c, o ? o->num_queues : 0, 0, TVM_OK};
  tvm_mutator strip = {c, NULL, strip_markers, NULL};
  tvm_stmt *body;
  if (!f || !o || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "inject_dep_tokens: NULL argument");
  if (o->num_queues > MAXQ)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "inject_dep_tokens: %d hardware queues in %s; at most "
                        "%d are supported",
                        o->num_queues, f->name, MAXQ);
  body = f->body;
  if (o->num_queues > 0) {
    body = lower_coproc_normalize(c, body, o);
    if (body) body = process_block(&d, body, 0, -1, NULL);
  }
  if (d.err != TVM_OK)
    return tvm_diag_prefix(d.err, "inject_dep_tokens (%s): ", f->name);
  if (body) body = tvm_mutate_stmt(&strip, body);
  if (d.oom) c->failed = 1;
  return lower_with_body(c, f, body, "inject_dep_tokens", out);
}
