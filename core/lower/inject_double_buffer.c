/*
 * core/lower/inject_double_buffer.c - the inject_double_buffer pass: two
 * copies of a buffer the schedule asked to double-buffer
 * (tvm_double_buffer), so that filling the next iteration's copy needs no
 * barrier against reading this iteration's.
 *
 * storage_flatten leaves `attr [B] double_buffer_scope = 1` around the
 * statement that fills B (the producer P), with B allocated in the body
 * of the loop `for (v, min, n)` its stage is attached in (compute_at
 * inside the consumer's reduction loop: a tile fetched per k step).  The
 * pass turns
 *
 *     for v { allocate B[E] { ... P(v) ... reads of B ... } }
 * into
 *     allocate B[2E] {
 *       P(min)                                      (copy 0)
 *       for v {
 *         ... attr [B] double_buffer_write {
 *               if (v + 1 < min + n) P(v + 1) into copy (v + 1 - min) % 2 }
 *         ... reads of B from copy (v - min) % 2 ...
 *       }
 *     }
 *
 * P stays where it was in the body (before the reads, in a fetch-then-
 * compute tile loop): iteration v fills the copy iteration v + 1 reads
 * while nothing of this iteration reads it.  thread_sync knows the
 * double_buffer_write marker: writes under it do not conflict with reads
 * of the same buffer later in the same iteration, only with those of the
 * next one (the loop's back edge), so a tile loop keeps one barrier per
 * iteration instead of two, and the threads of a block fetch while others
 * still compute.
 *
 * Refused with a diagnostic naming the buffer (never silently skipped: the
 * schedule asked for it): a buffer not allocated directly in a sequential
 * loop's body (through sequences, lets, attributes and other
 * allocations, not under an if or an inner loop), a producer that reads
 * the buffer it fills or uses a variable bound inside the loop (a let or
 * another allocation: the first copy is filled before the loop), an
 * allocation whose size depends on the loop, a buffer used other than by
 * loads, stores and access_ptr, and targets with hardware queues (their
 * pipelining is virtual threads with dependency tokens).
 */
#include <string.h>

#include "lower_int.h"

/* State of the pass. */
typedef struct dbuf {
  tvm_ctx *c;
  const tvm_func *f;
  tvm_ptrmap marked; /* buffer vars under a double_buffer_scope attr */
  tvm_ptrmap done;   /* those already doubled by an inner loop */
  tvm_status st;     /* the first failure */
} dbuf;

/* One double-buffered allocation of a loop. */
typedef struct dalloc {
  tvm_stmt *alloc; /* the original allocation */
  tvm_stmt *prod;  /* the producer (body of its double_buffer_scope attr) */
} dalloc;

/* Records the first failure. */
#define FAIL(d, ...)                                                           \
  do {                                                                         \
    if ((d)->st == TVM_OK)                                                     \
      (d)->st = tvm_diag_set(TVM_ERR_INVALID, __VA_ARGS__);                    \
  } while (0)

static const char *buf_name(const tvm_stmt *alloc) {
  const tvm_expr *b = alloc->u.alloc.buffer;
  return b->u.var.name ? b->u.var.name : "?";
}

/* Visitor hook: the buffers of double_buffer_scope attributes. */
static int mark_hook(tvm_visitor *v, const tvm_stmt *s) {
  dbuf *d = v->data;
  if (s->kind == TVM_ATTR && !strcmp(s->u.attr.key, TVM_ATTR_DOUBLE_BUFFER) &&
      s->u.attr.node &&
      tvm_ptrmap_put(&d->marked, s->u.attr.node, (void *)1) != TVM_OK)
    d->c->failed = 1;
  return 0;
}

static int is_marked(const dbuf *d, const void *buffer) {
  void *x;
  return tvm_ptrmap_get(&d->marked, buffer, &x) &&
         !tvm_ptrmap_get(&d->done, buffer, &x);
}

/* The statement chain of a loop body the pass looks through: sequences,
 * lets, attributes, allocations (not loops or ifs). */
typedef struct chain {
  dalloc *a; /* the marked allocations found */
  int n, cap;
  tvm_ptrvec binders; /* lets and unmarked allocations on the chain */
} chain;

/* Walks s (part of the loop body's chain): marked allocations into ch,
 * producers matched to them.  Returns 0 on allocation failure. */
static int walk_chain(dbuf *d, chain *ch, tvm_stmt *s) {
  if (!s)
    return 1;
  switch (s->kind) {
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++)
      if (!walk_chain(d, ch, s->u.seq.stmts[i]))
        return 0;
    return 1;
  case TVM_LET_STMT:
    if (tvm_ptrvec_push(&ch->binders, s->u.let.var) != TVM_OK)
      return 0;
    return walk_chain(d, ch, s->u.let.body);
  case TVM_ATTR:
    if (!strcmp(s->u.attr.key, TVM_ATTR_DOUBLE_BUFFER))
      for (int i = 0; i < ch->n; i++)
        if (ch->a[i].alloc->u.alloc.buffer == s->u.attr.node) {
          if (ch->a[i].prod)
            FAIL(d,
                 "the buffer %s is filled in "
                 "two places; double buffering needs one producer",
                 buf_name(ch->a[i].alloc));
          ch->a[i].prod = s->u.attr.body;
        }
    return walk_chain(d, ch, s->u.attr.body);
  case TVM_ALLOCATE:
    if (is_marked(d, s->u.alloc.buffer)) {
      if (ch->n == ch->cap) {
        int cap = ch->cap ? 2 * ch->cap : 4;
        dalloc *a = tvm_ctx_alloc(d->c, sizeof *a * (size_t)cap);
        if (!a)
          return 0;
        if (ch->n)
          memcpy(a, ch->a, sizeof *a * (size_t)ch->n);
        ch->a = a;
        ch->cap = cap;
      }
      ch->a[ch->n++] = (dalloc){s, NULL};
    } else if (tvm_ptrvec_push(&ch->binders, s->u.alloc.buffer) != TVM_OK) {
      return 0;
    }
    return walk_chain(d, ch, s->u.alloc.body);
  default:
    return 1;
  }
}

/* The loop's marked allocations and, per allocation, its producer for
 * iteration v + 1. */
typedef struct rewrite {
  chain *ch;
  tvm_stmt **next;
} rewrite;

/* Mutator hook: drops the marked allocations of the loop (their bodies
 * stay) and replaces their producers by the guarded fetch of the next
 * iteration. */
static tvm_stmt *rewrite_stmt(tvm_mutator *m, tvm_stmt *s) {
  rewrite *r = m->data;
  for (int i = 0; i < r->ch->n; i++) {
    const tvm_stmt *a = r->ch->a[i].alloc;
    if (s->kind == TVM_ALLOCATE && s->u.alloc.buffer == a->u.alloc.buffer)
      return tvm_mutate_stmt(m, s->u.alloc.body);
    if (s->kind == TVM_ATTR && s->u.attr.node == a->u.alloc.buffer &&
        !strcmp(s->u.attr.key, TVM_ATTR_DOUBLE_BUFFER))
      return tvm_attr(m->ctx, LOWER_ATTR_DB_WRITE, a->u.alloc.buffer,
                      tvm_int(m->ctx, 1), r->next[i]);
  }
  return NULL;
}

/* Visitor hook: does the statement read buffer data[0]? */
static int reads_hook(tvm_visitor *v, const tvm_expr *e) {
  void **x = v->data;
  if ((e->kind == TVM_LOAD && e->u.load.buffer == x[0]) ||
      (e->kind == TVM_CALL && e->u.call.op == TVM_INTRIN_ACCESS_PTR &&
       e->u.call.nargs >= 1 && e->u.call.args[0] == x[0]))
    x[1] = (void *)1;
  return x[1] != NULL;
}

static int reads_buffer(const tvm_stmt *s, const tvm_expr *b) {
  void *x[2] = {(void *)b, NULL};
  tvm_visitor v = {reads_hook, NULL, x};
  tvm_visit_stmt(&v, s);
  return x[1] != NULL;
}

/* The loop `loop` with its double-buffered allocations (ch) pipelined;
 * NULL on failure (d->st or the ctx says which). */
static tvm_stmt *pipeline(dbuf *d, tvm_stmt *loop, chain *ch) {
  tvm_ctx *c = d->c;
  tvm_expr *v = loop->u.for_.var, *min = loop->u.for_.min;
  tvm_expr *end = tvm_add(c, min, loop->u.for_.extent);
  tvm_expr *one = tvm_const(c, v->dtype, 1), *two = tvm_const(c, v->dtype, 2);
  tvm_expr *vnext = tvm_add(c, v, one);
  tvm_stmt **pro = tvm_ctx_alloc(c, sizeof *pro * (size_t)(ch->n + 1));
  tvm_stmt **next = tvm_ctx_alloc(c, sizeof *next * (size_t)ch->n);
  tvm_ptrmap at_min = {0}, at_next = {0};
  tvm_stmt *body = NULL, *res = NULL;
  if (!pro || !next || !end || !vnext)
    return NULL;
  if (tvm_ptrmap_put(&at_min, v, min) != TVM_OK ||
      tvm_ptrmap_put(&at_next, v, vnext) != TVM_OK)
    goto done;
  for (int i = 0; i < ch->n; i++) {
    tvm_stmt *a = ch->a[i].alloc, *p = ch->a[i].prod;
    tvm_expr *b = a->u.alloc.buffer, *ext = a->u.alloc.extent;
    const char *name = buf_name(a);
    int raw = 0;
    if (!p) {
      FAIL(d,
           "the producer of %s is not "
           "directly in the body of loop %s (it sits under an if or an "
           "inner loop); attach the stage at that loop instead",
           name, v->u.var.name);
      goto done;
    }
    if (reads_buffer(p, b)) {
      FAIL(d,
           "the producer of %s reads %s "
           "itself; only a buffer filled from elsewhere can be double "
           "buffered",
           name, name);
      goto done;
    }
    for (size_t j = 0; j < ch->binders.len; j++)
      if (tvm_stmt_uses_var(p, ch->binders.data[j])) {
        const tvm_expr *x = ch->binders.data[j];
        FAIL(d,
             "the producer of %s uses %s, "
             "which is bound inside loop %s; the first copy is filled "
             "before the loop, where %s does not exist",
             name, x->u.var.name, v->u.var.name, x->u.var.name);
        goto done;
      }
    if (tvm_expr_uses_var(ext, v)) {
      FAIL(d,
           "the size of %s depends on the "
           "loop variable %s",
           name, v->u.var.name);
      goto done;
    }
    /* this iteration's copy is (v - min) % 2, the next one's the other */
    tvm_expr *cur = tvm_mul(
        c, tvm_cast(c, ext->dtype, tvm_floormod(c, tvm_sub(c, v, min), two)),
        ext);
    tvm_expr *nxt = tvm_mul(
        c,
        tvm_cast(c, ext->dtype, tvm_floormod(c, tvm_sub(c, vnext, min), two)),
        ext);
    tvm_stmt *pn = tvm_substitute_stmt(c, p, &at_next);
    pn = pn ? lower_offset_accesses(c, pn, b, nxt, &raw) : NULL;
    next[i] = pn ? tvm_if(c, tvm_lt(c, vnext, end), pn, NULL) : NULL;
    pro[i] = tvm_substitute_stmt(c, p, &at_min);
    if (!next[i] || !pro[i])
      goto done;
    /* every other access in the body reads this iteration's copy (the
     * producer is replaced below, after this offset) */
    body =
        lower_offset_accesses(c, body ? body : loop->u.for_.body, b, cur, &raw);
    if (!body)
      goto done;
    if (raw) {
      FAIL(d,
           "the buffer %s is used other than "
           "by loads, stores and access_ptr; its copies cannot be "
           "told apart",
           name);
      goto done;
    }
  }
  {
    rewrite r = {ch, next};
    tvm_mutator m = {c, NULL, rewrite_stmt, &r};
    body = tvm_mutate_stmt(&m, body);
  }
  if (!body)
    goto done;
  pro[ch->n] = tvm_for(c, v, min, loop->u.for_.extent, loop->u.for_.for_kind,
                       loop->u.for_.thread_tag, body);
  res = tvm_seq(c, pro, ch->n + 1);
  for (int i = ch->n - 1; res && i >= 0; i--) {
    tvm_stmt *a = ch->a[i].alloc;
    tvm_expr *ext = a->u.alloc.extent;
    int64_t e;
    tvm_expr *twice = tvm_is_const_int(ext, &e)
                          ? tvm_const(c, ext->dtype, 2 * e)
                          : tvm_mul(c, ext, tvm_const(c, ext->dtype, 2));
    tvm_stmt *na = tvm_allocate(c, a->u.alloc.buffer, a->u.alloc.dtype, twice,
                                a->u.alloc.scope, res);
    if (na)
      na->u.alloc.align = a->u.alloc.align;
    res = na;
  }
done:
  tvm_ptrmap_free(&at_min);
  tvm_ptrmap_free(&at_next);
  return res;
}

/* Mutator hook: loops, innermost first; a loop whose body allocates
 * marked buffers is pipelined. */
static tvm_stmt *loop_stmt(tvm_mutator *m, tvm_stmt *s) {
  dbuf *d = m->data;
  if (s->kind != TVM_FOR)
    return NULL;
  tvm_stmt *r = tvm_mutate_stmt_children(m, s);
  if (!r || r->kind != TVM_FOR || d->st != TVM_OK)
    return r;
  chain ch = {0};
  if (!walk_chain(d, &ch, r->u.for_.body)) {
    tvm_ptrvec_free(&ch.binders);
    d->c->failed = 1;
    return NULL;
  }
  if (ch.n > 0) {
    tvm_for_kind k = r->u.for_.for_kind;
    if (k != TVM_FOR_SERIAL && k != TVM_FOR_UNROLLED) {
      FAIL(d,
           "the buffer %s is allocated in the "
           "%s loop %s; double buffering alternates copies between the "
           "iterations of a sequential loop: attach its stage "
           "(compute_at) inside one, e.g. the consumer's reduction loop",
           buf_name(ch.a[0].alloc), tvm_for_kind_name(k),
           r->u.for_.var->u.var.name);
    } else if (d->st == TVM_OK) {
      r = pipeline(d, r, &ch);
      for (int i = 0; r && i < ch.n; i++)
        if (tvm_ptrmap_put(&d->done, ch.a[i].alloc->u.alloc.buffer,
                           (void *)1) != TVM_OK)
          d->c->failed = 1;
    }
  }
  tvm_ptrvec_free(&ch.binders);
  return r;
}

/* Visitor hook: a double_buffer_scope attribute left after the rewrite. */
static int left_hook(tvm_visitor *v, const tvm_stmt *s) {
  const tvm_stmt **x = v->data;
  if (!*x && s->kind == TVM_ATTR &&
      !strcmp(s->u.attr.key, TVM_ATTR_DOUBLE_BUFFER))
    *x = s;
  return *x != NULL;
}

/* See tvm/lower.h and the file comment. */
tvm_status tvm_pass_inject_double_buffer(tvm_ctx *c, tvm_func *f,
                                         const tvm_lower_options *o,
                                         tvm_func **out) {
  dbuf d = {c, f, {0}, {0}, TVM_OK};
  tvm_visitor v = {NULL, mark_hook, &d};
  tvm_stmt *body;
  if (!c || !f || !o || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "inject_double_buffer: NULL argument");
  tvm_visit_stmt(&v, f->body);
  if (d.marked.len == 0) {
    tvm_ptrmap_free(&d.marked);
    return lower_with_body(c, f, f->body, "inject_double_buffer", out);
  }
  if (o->num_queues > 0) {
    tvm_ptrmap_free(&d.marked);
    return tvm_diag_set(
        TVM_ERR_UNSUPPORTED,
        "double_buffer on a target with hardware "
        "queues; pipeline its loads with virtual threads instead (their "
        "dependency tokens overlap one thread's loads with another's "
        "compute)");
  }
  {
    tvm_mutator m = {c, NULL, loop_stmt, &d};
    body = tvm_mutate_stmt(&m, f->body);
  }
  tvm_ptrmap_free(&d.marked);
  tvm_ptrmap_free(&d.done);
  if (d.st != TVM_OK)
    return d.st;
  if (body) {
    const tvm_stmt *left = NULL;
    tvm_visitor lv = {NULL, left_hook, &left};
    tvm_visit_stmt(&lv, body);
    if (left) {
      const tvm_expr *b = left->u.attr.node;
      return tvm_diag_set(
          TVM_ERR_INVALID,
          "the buffer %s is double-buffered but "
          "not allocated in the body of a loop (or its producer sits under "
          "an if or an inner loop of that body); attach its stage "
          "(compute_at) inside a sequential loop of its consumer",
          b && b->kind == TVM_VAR ? b->u.var.name : "?");
    }
  }
  return lower_with_body(c, f, body, "inject_double_buffer", out);
}
