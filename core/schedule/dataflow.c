/*
 * core/schedule/dataflow.c - rewrites of the dataflow: cache_read (a copy
 * of a tensor in another memory scope for some readers) and cache_write
 * (compute into a scope, then copy out).
 *
 * Tensors keep their identity: a rewritten stage gets a new op whose
 * output is the same tvm_tensor, and the reads in other bodies are left
 * untouched, so earlier schedule decisions stay valid.
 */
#include <string.h>

#include "sched_int.h"

/* Stages attached at an axis of st that disappears when st is reset to
 * its root data axes make the rewrite invalid: say so. */
tvm_status sched_check_no_attach_below(const tvm_schedule *s,
                                       const tvm_stage *st, const char *prim) {
  for (size_t i = 0; i < s->stages.len; i++) {
    const tvm_stage *o = s->stages.data[i];
    if (o->attach != TVM_ATTACH_SCOPE || o->attach_stage != st)
      continue;
    int root = 0;
    for (int d = 0; d < st->op->naxis; d++)
      root |= st->op->axis[d] == o->attach_ivar;
    if (!root)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: stage %s is computed at axis %s of stage %s, "
                          "which %s removes; call %s before compute_at",
                          prim, o->op->name, sched_iv_name(o->attach_ivar),
                          st->op->name, prim, prim);
  }
  return TVM_OK;
}

/* ---- cache_read ---------------------------------------------------- */

typedef struct copy_src {
  tvm_tensor *t;
} copy_src;

/* Body of a copy: out[i..] = t[i..]. */
static tvm_expr *copy_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  copy_src *cs = ud;
  return tvm_tread(c, cs->t, i, cs->t->ndim);
}

typedef struct retarget {
  tvm_tensor *from, *to;
} retarget;

/* Mutator hook: reads of `from` become reads of `to` (same indices). */
static tvm_expr *retarget_hook(tvm_mutator *m, tvm_expr *e) {
  retarget *r = m->data;
  if (e->kind != TVM_TREAD || e->u.tread.tensor != r->from)
    return NULL;
  tvm_expr *d = tvm_mutate_expr_children(m, e);
  if (!d)
    return NULL;
  return tvm_tread(m->ctx, r->to, d->u.tread.indices, d->u.tread.n);
}

/* Does op's body read t?  1 yes, 0 no, -1 out of memory (diagnostic
 * set). */
static int op_reads(const tvm_operation *op, const tvm_tensor *t) {
  tvm_ptrvec in = {0};
  int found = 0;
  if (tvm_op_inputs(op, &in) != TVM_OK)
    found = -1;
  for (size_t i = 0; found >= 0 && i < in.len; i++)
    found |= in.data[i] == t;
  tvm_ptrvec_free(&in);
  return found;
}

/* A new stage for op in scope (copied into the ctx), placed at position
 * pos of s. */
static tvm_status add_stage(tvm_schedule *s, tvm_operation *op,
                            const char *scope, size_t pos, const char *prim) {
  const char *sc = tvm_ctx_strdup(s->ctx, scope);
  tvm_stage *st = sc ? sched_stage_new(s->ctx, op) : NULL;
  if (!st)
    return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", prim);
  st->scope = sc;
  tvm_status rc = sched_insert_stage(s, st, pos);
  if (rc != TVM_OK)
    sched_stage_free(st);
  return rc;
}

/* Common checks of cache_read and cache_write; the stage of t or NULL
 * with a diagnostic. */
static tvm_stage *cache_target(tvm_schedule *s, tvm_tensor *t,
                               const char *scope, const char *prim) {
  if (!s || !t) {
    tvm_diag_set(TVM_ERR_INVALID, "%s: NULL schedule or tensor", prim);
    return NULL;
  }
  if (!scope || !*scope) {
    tvm_diag_set(TVM_ERR_INVALID,
                 "%s: tensor %s: give a memory scope (\"shared\", \"local\", "
                 "or one of the target's)",
                 prim, t->name);
    return NULL;
  }
  tvm_stage *st = tvm_stage_of(s, t);
  if (!st)
    tvm_diag_set(TVM_ERR_INVALID,
                 "%s: tensor %s is not computed by a stage of this schedule",
                 prim, t->name);
  return st;
}

/* Creates "<t>.<scope>", a copy of t in scope, and makes the readers read
 * it instead of t.  The readers' stages get new ops with the same axes
 * (their schedules stay valid); the copy's stage comes right after t's. */
tvm_status tvm_cache_read(tvm_schedule *s, tvm_tensor *t, const char *scope,
                          tvm_operation **readers, int nreaders,
                          tvm_tensor **out) {
  tvm_stage *st = cache_target(s, t, scope, "cache_read");
  if (!st)
    return tvm_diag_status();
  if (nreaders <= 0 || !readers)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "cache_read: tensor %s: give the operations that "
                        "should read the cache",
                        t->name);
  tvm_ctx *c = s->ctx;
  tvm_stage **rst = tvm_calloc((size_t)nreaders, sizeof(*rst));
  if (!rst)
    return tvm_diag_set(TVM_ERR_NOMEM, "cache_read: out of memory");
  tvm_status rc = TVM_OK;
  int reads;
  for (int i = 0; i < nreaders && rc == TVM_OK; i++) {
    rst[i] = sched_stage_of_op(s, readers[i]);
    if (!rst[i])
      rc = tvm_diag_set(TVM_ERR_INVALID,
                        "cache_read: tensor %s: reader %s is not an operation "
                        "of this schedule",
                        t->name, readers[i] ? readers[i]->name : "(null)");
    else if ((reads = op_reads(rst[i]->op, t)) < 0)
      rc = TVM_ERR_NOMEM;
    else if (!reads)
      rc = tvm_diag_set(TVM_ERR_INVALID,
                        "cache_read: stage %s does not read %s", rst[i]->op->name,
                        t->name);
  }
  tvm_tensor *cache = NULL;
  if (rc == TVM_OK) {
    const char *name = tvm_arena_printf(c->arena, "%s.%s", t->name, scope);
    copy_src cs = {t};
    cache = name ? tvm_compute_sym(c, name, t->shape, t->ndim, copy_body, &cs)
                 : NULL;
    if (!cache)
      rc = tvm_diag_prefix(tvm_diag_status() ? tvm_diag_status()
                                             : TVM_ERR_NOMEM,
                           "cache_read of %s: ", t->name);
  }
  /* New ops for the readers (each stage once); nothing in the schedule
   * changes until all of them and the cache's stage exist. */
  tvm_operation **nop =
      rc == TVM_OK ? tvm_calloc((size_t)nreaders, sizeof(*nop)) : NULL;
  if (rc == TVM_OK && !nop)
    rc = tvm_diag_set(TVM_ERR_NOMEM, "cache_read: out of memory");
  retarget rt = {t, cache};
  tvm_mutator m = {c, retarget_hook, NULL, &rt};
  for (int i = 0; i < nreaders && rc == TVM_OK; i++) {
    int dup = 0;
    for (int j = 0; j < i; j++)
      dup |= rst[j] == rst[i];
    if (dup)
      continue;
    nop[i] = sched_op_with_body(c, rst[i]->op,
                                tvm_mutate_expr(&m, rst[i]->op->body));
    if (!nop[i])
      rc = tvm_diag_prefix(tvm_ctx_status(c), "cache_read of %s: ", t->name);
    else if (tvm_ptrmap_put(&s->stage_of, nop[i], rst[i]) != TVM_OK)
      rc = tvm_diag_set(TVM_ERR_NOMEM, "cache_read: out of memory");
  }
  if (rc == TVM_OK)
    rc = add_stage(s, cache->op, scope,
                   (size_t)sched_stage_index(s, st) + 1, "cache_read");
  for (int i = 0; i < nreaders && rc == TVM_OK; i++)
    if (nop[i])
      rst[i]->op = nop[i];
  tvm_free(nop);
  tvm_free(rst);
  if (rc == TVM_OK && out)
    *out = cache;
  return rc;
}

/* ---- cache_write ----------------------------------------------------- */

typedef struct recompute {
  const tvm_operation *op; /* the original computation */
} recompute;

/* tvm_substitute that passes NULL through (an unknown domain). */
static tvm_expr *subst_opt(tvm_ctx *c, tvm_expr *e, const tvm_ptrmap *map) {
  return e ? tvm_substitute(c, e, map) : NULL;
}

/* Body of the cache: the original body over fresh axes (and fresh reduce
 * axes when it is a reduction). */
static tvm_expr *recompute_body(tvm_ctx *c, tvm_expr **idx, void *ud) {
  const tvm_operation *op = ((recompute *)ud)->op;
  tvm_ptrmap map = {0};
  tvm_expr *res = NULL;
  for (int d = 0; d < op->naxis; d++)
    if (tvm_ptrmap_put(&map, op->axis[d]->var, idx[d]) != TVM_OK)
      goto done;
  if (op->body->kind != TVM_REDUCE) {
    res = tvm_substitute(c, op->body, &map);
    goto done;
  }
  const tvm_expr *b = op->body;
  int n = b->u.reduce.naxes;
  tvm_iter_var **ax = tvm_ctx_alloc(c, sizeof(*ax) * (size_t)n);
  if (!ax)
    goto done;
  for (int r = 0; r < n; r++) {
    tvm_iter_var *old = b->u.reduce.axes[r];
    ax[r] = tvm_iter_var_new(c, sched_iv_name(old),
                             subst_opt(c, old->dom.min, &map),
                             subst_opt(c, old->dom.extent, &map),
                             TVM_IV_REDUCE);
    if (!ax[r] || tvm_ptrmap_put(&map, old->var, ax[r]->var) != TVM_OK)
      goto done;
  }
  res = tvm_reduce(c, b->u.reduce.op, tvm_substitute(c, b->u.reduce.source, &map),
                   ax, n,
                   subst_opt(c, b->u.reduce.cond, &map));
done:
  tvm_ptrmap_free(&map);
  return res;
}

/* Moves the computation of t into a new stage "<t>.<scope>" (placed just
 * before t's stage, with fresh axes) and turns t's stage into a copy
 * t[i..] = cache[i..] over its original data axes.  Must come before
 * split/fuse/reorder of t's stage, as in TVM. */
tvm_status tvm_cache_write(tvm_schedule *s, tvm_tensor *t, const char *scope,
                           tvm_tensor **out) {
  tvm_stage *st = cache_target(s, t, scope, "cache_write");
  if (!st)
    return tvm_diag_status();
  if (st->op->kind != TVM_OP_COMPUTE)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "cache_write: stage %s is a placeholder; only "
                        "computed tensors can be cached for writing",
                        st->op->name);
  if (st->relations.len)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "cache_write: stage %s was already split or fused; "
                        "call cache_write before the loop primitives",
                        st->op->name);
  if (st->attach == TVM_ATTACH_INLINE)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "cache_write: stage %s is inlined; there is nothing "
                        "to cache",
                        st->op->name);
  tvm_status rc = sched_check_no_attach_below(s, st, "cache_write");
  if (rc != TVM_OK)
    return rc;
  tvm_ctx *c = s->ctx;
  const char *name = tvm_arena_printf(c->arena, "%s.%s", t->name, scope);
  recompute rd = {st->op};
  tvm_tensor *cache =
      name ? tvm_compute_sym(c, name, t->shape, t->ndim, recompute_body, &rd)
           : NULL;
  if (!cache)
    return tvm_diag_prefix(tvm_diag_status() ? tvm_diag_status()
                                             : TVM_ERR_NOMEM,
                           "cache_write of %s: ", t->name);
  tvm_expr **idx =
      tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(st->op->naxis + 1));
  if (!idx)
    return tvm_diag_set(TVM_ERR_NOMEM, "cache_write: out of memory");
  for (int d = 0; d < st->op->naxis; d++)
    idx[d] = st->op->axis[d]->var;
  tvm_operation *copy = sched_op_with_body(
      c, st->op, tvm_tread(c, cache, idx, st->op->naxis));
  if (!copy)
    return tvm_diag_prefix(tvm_ctx_status(c), "cache_write of %s: ", t->name);
  /* Map and place first, then switch t's stage to the copy. */
  if (tvm_ptrmap_put(&s->stage_of, copy, st) != TVM_OK)
    return tvm_diag_set(TVM_ERR_NOMEM, "cache_write: out of memory");
  rc = add_stage(s, cache->op, scope,
                 (size_t)sched_stage_index(s, st), "cache_write");
  if (rc != TVM_OK)
    return rc;
  st->op = copy;
  if ((rc = sched_stage_reset_axes(st)) != TVM_OK)
    return rc;
  if (out)
    *out = cache;
  return TVM_OK;
}
