/*
 * core/lower/lower_graph.c - the dataflow of a schedule as lowering sees
 * it: effective bodies (inlined stages substituted into their readers),
 * the reads of each body, consumers, and the values of iteration
 * variables in terms of loop variables.  Shared by bound inference,
 * schedule_ops and tensorize.
 */
#include <string.h>

#include "lower_int.h"

/* Position of iv among st's leaves, or -1. */
int lower_leaf_index(const tvm_stage *st, const tvm_iter_var *iv) {
  for (size_t i = 0; i < st->leaf_iter_vars.len; i++)
    if (st->leaf_iter_vars.data[i] == iv)
      return (int)i;
  return -1;
}

/* The annotation of iv in st, or NULL. */
tvm_iv_attr *lower_iv_attr(const tvm_stage *st, const tvm_iter_var *iv) {
  void *a = NULL;
  if (tvm_ptrmap_get(&st->iv_attrs, iv, &a))
    return a;
  return NULL;
}

/* The range of iv in ranges, or NULL. */
tvm_range *lower_range_of(const tvm_ptrmap *ranges, const tvm_iter_var *iv) {
  void *r = NULL;
  if (tvm_ptrmap_get(ranges, iv, &r))
    return r;
  return NULL;
}

/* A range in the arena (NULL on OOM, with ctx->failed set). */
tvm_range *lower_range_new(tvm_ctx *c, tvm_expr *min, tvm_expr *extent) {
  tvm_range *r = tvm_ctx_alloc(c, sizeof(*r));
  if (r) {
    r->min = min;
    r->extent = extent;
  }
  return r;
}

/* The smallest range holding a and b.  Exact when both are constant or
 * when their mins differ by a constant; otherwise min/max expressions. */
tvm_range lower_range_union(tvm_ctx *c, const tvm_range *a, tvm_range b) {
  if (!a)
    return b;
  int64_t d, ea, eb;
  tvm_expr *diff = tvm_simplify(c, tvm_sub(c, b.min, a->min), NULL);
  if (diff && tvm_is_const_int(diff, &d) && tvm_is_const_int(a->extent, &ea) &&
      tvm_is_const_int(b.extent, &eb)) {
    /* b starts d after a */
    int64_t lo = d < 0 ? d : 0;
    int64_t hi = ea > d + eb ? ea : d + eb;
    tvm_range r;
    r.min = lo == 0 ? a->min : b.min;
    r.extent = tvm_int(c, hi - lo);
    return r;
  }
  tvm_expr *lo = tvm_simplify(c, tvm_min(c, a->min, b.min), NULL);
  tvm_expr *hi = tvm_simplify(
      c, tvm_max(c, tvm_add(c, a->min, a->extent), tvm_add(c, b.min, b.extent)),
      NULL);
  tvm_range r;
  r.min = lo;
  r.extent = tvm_simplify(c, tvm_sub(c, hi, lo), NULL);
  return r;
}

/* Thread relaxation rule (see lower_int.h): ranks global 0, shared 1,
 * local 2; blockIdx 0, threadIdx and vthread 1.  Relax when the storage
 * rank is at most the thread rank. */
int lower_thread_needs_relax(const char *scope, const char *tag) {
  if (!tag || !*tag)
    return 0;
  int srank = 0;
  if (scope && strcmp(scope, "shared") == 0)
    srank = 1;
  else if (scope && strcmp(scope, "local") == 0)
    srank = 2;
  else if (scope && strcmp(scope, "global") != 0)
    srank = 2; /* plugin scopes: private to the unit that fills them */
  int trank = strncmp(tag, "blockIdx", 8) == 0 ? 0 : 1;
  return srank <= trank;
}

/* The lower_stage of schedule stage st, or NULL. */
lower_stage *lower_graph_of(lower_graph *g, const tvm_stage *st) {
  void *v = NULL;
  if (st && tvm_ptrmap_get(&g->by_stage, st, &v))
    return v;
  return NULL;
}

/* The lower_stage computing t, or NULL. */
lower_stage *lower_graph_stage_of(lower_graph *g, const tvm_tensor *t) {
  tvm_stage *st = tvm_stage_of(g->s, t);
  if (st)
    return lower_graph_of(g, st);
  for (int i = 0; i < g->n; i++)
    if (g->stages[i].out == t)
      return &g->stages[i];
  return NULL;
}

typedef struct inline_data {
  lower_graph *g;
  tvm_status st;
} inline_data;

/* Mutator hook: a read of an inlined tensor becomes its body with the
 * axis variables replaced by the read's (already expanded) indices. */
static tvm_expr *inline_hook(tvm_mutator *m, tvm_expr *e) {
  if (e->kind != TVM_TREAD)
    return NULL;
  inline_data *d = m->data;
  tvm_expr *r = tvm_mutate_expr_children(m, e);
  if (!r)
    return NULL;
  lower_stage *p = lower_graph_stage_of(d->g, r->u.tread.tensor);
  if (!p || p->st->attach != TVM_ATTACH_INLINE)
    return r;
  tvm_operation *op = p->st->op;
  if (op->kind != TVM_OP_COMPUTE || !op->body ||
      op->body->kind == TVM_REDUCE) {
    d->st = tvm_diag_set(TVM_ERR_INVALID,
                         "schedule_ops: stage %s is compute_inline'd but is "
                         "%s; only element-wise computes can be inlined: "
                         "compute it at root or under its consumer instead",
                         op->name,
                         op->kind != TVM_OP_COMPUTE ? "a placeholder"
                                                    : "a reduction");
    return r;
  }
  tvm_ptrmap map = {0};
  for (int i = 0; i < op->naxis && i < r->u.tread.n; i++)
    if (tvm_ptrmap_put(&map, op->axis[i]->var, r->u.tread.indices[i]) !=
        TVM_OK)
      d->st = TVM_ERR_NOMEM;
  tvm_expr *body = tvm_substitute(m->ctx, op->body, &map);
  tvm_ptrmap_free(&map);
  if (!body)
    return r;
  /* the inlined body may itself read inlined tensors */
  return tvm_mutate_expr(m, body);
}

typedef struct reads_data {
  tvm_ptrvec *out;
  tvm_status st;
} reads_data;

/* Visitor hook: collects every tensor read. */
static int reads_hook(tvm_visitor *v, const tvm_expr *e) {
  reads_data *d = v->data;
  if (e->kind == TVM_TREAD && tvm_ptrvec_push(d->out, (void *)e) != TVM_OK)
    d->st = TVM_ERR_NOMEM;
  return 0;
}

/* Fills the effective body of one compute stage. */
static tvm_status fill_stage(lower_graph *g, lower_stage *ls) {
  tvm_ctx *c = g->c;
  tvm_operation *op = ls->op;
  ls->out = op->output;
  ls->is_compute = op->kind == TVM_OP_COMPUTE;
  if (!ls->is_compute)
    return TVM_OK;
  ls->ndata = op->naxis;
  ls->nroots = op->naxis + op->nreduce;
  ls->roots = tvm_ctx_alloc(c, sizeof(tvm_iter_var *) * (size_t)(ls->nroots + 1));
  if (!ls->roots)
    return tvm_ctx_status(c);
  for (int i = 0; i < op->naxis; i++)
    ls->roots[i] = op->axis[i];
  for (int i = 0; i < op->nreduce; i++)
    ls->roots[op->naxis + i] = op->reduce_axis[i];
  tvm_expr *body = op->body;
  if (!body)
    return tvm_diag_set(TVM_ERR_INVALID, "schedule_ops: compute %s has no body",
                        op->name);
  inline_data idata = {g, TVM_OK};
  tvm_mutator m = {c, inline_hook, NULL, &idata};
  if (body->kind == TVM_REDUCE) {
    ls->is_reduce = 1;
    ls->rop = body->u.reduce.op;
    ls->value = tvm_mutate_expr(&m, body->u.reduce.source);
    ls->cond = body->u.reduce.cond ? tvm_mutate_expr(&m, body->u.reduce.cond)
                                   : NULL;
  } else {
    ls->value = tvm_mutate_expr(&m, body);
  }
  if (idata.st != TVM_OK)
    return idata.st;
  if (!ls->value)
    return tvm_ctx_status(c);
  reads_data rd = {&ls->reads, TVM_OK};
  tvm_visitor v = {reads_hook, NULL, &rd};
  tvm_visit_expr(&v, ls->value);
  if (ls->cond)
    tvm_visit_expr(&v, ls->cond);
  return rd.st;
}

/* Builds the lowering view of s (see lower_int.h). */
tvm_status lower_graph_build(tvm_schedule *s, lower_graph *g) {
  memset(g, 0, sizeof(*g));
  g->c = s->ctx;
  g->s = s;
  g->n = (int)s->stages.len;
  g->stages = tvm_calloc((size_t)g->n + 1, sizeof(lower_stage));
  if (!g->stages)
    return tvm_diag_set(TVM_ERR_NOMEM, "schedule_ops: out of memory");
  for (int i = 0; i < g->n; i++) {
    g->stages[i].st = s->stages.data[i];
    g->stages[i].op = g->stages[i].st->op;
    if (tvm_ptrmap_put(&g->by_stage, g->stages[i].st, &g->stages[i]) != TVM_OK)
      return tvm_diag_set(TVM_ERR_NOMEM, "schedule_ops: out of memory");
  }
  for (int i = 0; i < g->n; i++) {
    tvm_status st = fill_stage(g, &g->stages[i]);
    if (st != TVM_OK)
      return st;
  }
  /* consumers: each non-inlined compute stage consumes what it reads */
  for (int i = 0; i < g->n; i++) {
    lower_stage *ls = &g->stages[i];
    if (!ls->is_compute || ls->st->attach == TVM_ATTACH_INLINE)
      continue;
    for (size_t r = 0; r < ls->reads.len; r++) {
      const tvm_expr *rd = ls->reads.data[r];
      lower_stage *p = lower_graph_stage_of(g, rd->u.tread.tensor);
      if (!p)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "schedule_ops: stage %s reads tensor %s, which is "
                            "not part of the schedule; create the schedule "
                            "from the outputs that depend on it",
                            ls->op->name, rd->u.tread.tensor->name);
      int seen = 0;
      for (size_t k = 0; k < p->consumers.len; k++)
        if (p->consumers.data[k] == ls)
          seen = 1;
      if (!seen && tvm_ptrvec_push(&p->consumers, ls) != TVM_OK)
        return tvm_diag_set(TVM_ERR_NOMEM, "schedule_ops: out of memory");
    }
  }
  return tvm_ctx_status(g->c);
}

/* Frees the heap parts of g (the IR stays in the ctx arena). */
void lower_graph_free(lower_graph *g) {
  if (g->stages) {
    for (int i = 0; i < g->n; i++) {
      tvm_ptrvec_free(&g->stages[i].reads);
      tvm_ptrvec_free(&g->stages[i].consumers);
    }
    tvm_free(g->stages);
  }
  tvm_ptrmap_free(&g->by_stage);
  memset(g, 0, sizeof(*g));
}

/* The expression stored under k, or NULL. */
static tvm_expr *get_expr(const tvm_ptrmap *m, const void *k) {
  void *v = NULL;
  if (tvm_ptrmap_get(m, k, &v))
    return v;
  return NULL;
}

/* x + r->min, without the addition when min is 0. */
static tvm_expr *plus_min(tvm_ctx *c, tvm_expr *x, const tvm_range *r) {
  if (!r || !r->min || tvm_is_zero(r->min))
    return x;
  return tvm_add(c, x, r->min);
}

/* See lower_int.h. */
int lower_split_shifted(const tvm_iv_relation *rel, const tvm_ptrmap *ranges,
                        int64_t *factor, int64_t *extent) {
  tvm_range *rp = rel->kind == TVM_REL_SPLIT && rel->shift_tail && rel->factor
                      ? lower_range_of(ranges, rel->parent)
                      : NULL;
  return rp && rp->extent && tvm_is_const_int(rel->factor, factor) &&
         tvm_is_const_int(rp->extent, extent) && *factor >= 1 &&
         *extent >= *factor && *extent % *factor != 0;
}

/* Values of all iter vars of st in terms of leaf loop variables. */
tvm_status lower_iv_values(tvm_ctx *c, const tvm_stage *st,
                           const tvm_ptrmap *ranges, tvm_ptrmap *values) {
  for (size_t i = 0; i < st->leaf_iter_vars.len; i++) {
    tvm_iter_var *iv = lower_leaf(st, i);
    tvm_range *r = lower_range_of(ranges, iv);
    if (!r)
      return tvm_diag_set(TVM_ERR_INTERNAL,
                          "schedule_ops: no range for axis %s of stage %s "
                          "(bound inference did not run on this schedule)",
                          iv->var->u.var.name, st->op->name);
    tvm_expr *v = plus_min(c, iv->var, r);
    if (v != iv->var)
      v = tvm_simplify(c, v, NULL);
    if (tvm_ptrmap_put(values, iv, v) != TVM_OK)
      return TVM_ERR_NOMEM;
  }
  for (size_t k = st->relations.len; k-- > 0;) {
    tvm_iv_relation *rel = st->relations.data[k];
    if (rel->kind == TVM_REL_SPLIT) {
      tvm_expr *o = get_expr(values, rel->outer);
      tvm_expr *in = get_expr(values, rel->inner);
      tvm_range *ri = lower_range_of(ranges, rel->inner);
      tvm_range *rp = lower_range_of(ranges, rel->parent);
      if (!o || !in || !ri || !rp)
        return tvm_diag_set(TVM_ERR_INTERNAL,
                            "schedule_ops: split of %s in stage %s has no "
                            "value for its outputs",
                            rel->parent->var->u.var.name, st->op->name);
      tvm_expr *f = rel->factor ? rel->factor : ri->extent;
      tvm_expr *base = tvm_mul(c, o, f);
      int64_t sf, se;
      if (lower_split_shifted(rel, ranges, &sf, &se))
        base = tvm_min(c, base, tvm_int(c, se - sf));
      tvm_expr *v = plus_min(c, tvm_add(c, base, in), rp);
      if (tvm_ptrmap_put(values, rel->parent, tvm_simplify(c, v, NULL)) !=
          TVM_OK)
        return TVM_ERR_NOMEM;
    } else if (rel->kind == TVM_REL_FUSE) {
      tvm_expr *fv = get_expr(values, rel->fused);
      tvm_range *ro = lower_range_of(ranges, rel->outer);
      tvm_range *ri = lower_range_of(ranges, rel->inner);
      if (!fv || !ro || !ri)
        return tvm_diag_set(TVM_ERR_INTERNAL,
                            "schedule_ops: fuse into %s in stage %s has no "
                            "value", rel->fused->var->u.var.name,
                            st->op->name);
      tvm_expr *vo = plus_min(c, tvm_floordiv(c, fv, ri->extent), ro);
      tvm_expr *vi = plus_min(c, tvm_floormod(c, fv, ri->extent), ri);
      if (tvm_ptrmap_put(values, rel->outer, tvm_simplify(c, vo, NULL)) !=
              TVM_OK ||
          tvm_ptrmap_put(values, rel->inner, tvm_simplify(c, vi, NULL)) !=
              TVM_OK)
        return TVM_ERR_NOMEM;
    } else {
      tvm_expr *rv = get_expr(values, rel->rebased);
      tvm_range *rp = lower_range_of(ranges, rel->parent);
      if (!rv || !rp)
        return tvm_diag_set(TVM_ERR_INTERNAL,
                            "schedule_ops: rebase in stage %s has no value",
                            st->op->name);
      if (tvm_ptrmap_put(values, rel->parent,
                         tvm_simplify(c, plus_min(c, rv, rp), NULL)) != TVM_OK)
        return TVM_ERR_NOMEM;
    }
  }
  return tvm_ctx_status(c);
}

/* Marks the iter vars derived from reduce axes. */
tvm_status lower_reduce_derived(const lower_stage *ls, tvm_ptrmap *set) {
  const tvm_stage *st = ls->st;
  static int mark;
  for (int i = ls->ndata; i < ls->nroots; i++)
    if (tvm_ptrmap_put(set, ls->roots[i], &mark) != TVM_OK)
      return TVM_ERR_NOMEM;
  for (size_t k = 0; k < st->relations.len; k++) {
    tvm_iv_relation *rel = st->relations.data[k];
    void *v;
    tvm_status s = TVM_OK;
    if (rel->kind == TVM_REL_SPLIT) {
      if (tvm_ptrmap_get(set, rel->parent, &v) && v) {
        s = tvm_ptrmap_put(set, rel->outer, &mark);
        if (s == TVM_OK)
          s = tvm_ptrmap_put(set, rel->inner, &mark);
      }
    } else if (rel->kind == TVM_REL_FUSE) {
      if ((tvm_ptrmap_get(set, rel->outer, &v) && v) ||
          (tvm_ptrmap_get(set, rel->inner, &v) && v))
        s = tvm_ptrmap_put(set, rel->fused, &mark);
    } else {
      if (tvm_ptrmap_get(set, rel->parent, &v) && v)
        s = tvm_ptrmap_put(set, rel->rebased, &mark);
    }
    if (s != TVM_OK)
      return s;
  }
  return TVM_OK;
}
