/*
 * core/schedule/rfactor.c - rfactor: a reduction split along one of its
 * (possibly split) reduce axes into a partial-result tensor with a new
 * data-parallel axis, followed by a smaller reduction over that axis.
 *
 *   C[i] = sum_k A[i, k], k split into ko, ki; rfactor(C, ki, 0):
 *     C.rf[v, i] = sum_ko A[i, ko * f + v]
 *     C[i]       = sum_{v'} C.rf[v', i]
 *
 * The reduce leaves of the stage must come from its reduce axes through
 * splits only (a fused reduce axis is refused).
 */
#include <string.h>

#include "sched_int.h"

/* What the body callback of the rf op needs. */
typedef struct rf_plan {
  tvm_stage *st;
  tvm_iter_var *iv; /* the factored leaf */
  int factor_axis;
  tvm_ptrmap ext;   /* iter var -> extent expression (reduce side) */
} rf_plan;

/* ceil(e / f) for a positive constant f, folded when e is constant. */
static tvm_expr *ceil_div(tvm_ctx *c, tvm_expr *e, int64_t f) {
  int64_t v;
  if (tvm_is_const_int(e, &v))
    return tvm_int(c, (v + f - 1) / f);
  return tvm_floordiv(c, tvm_add(c, e, tvm_int(c, f - 1)), tvm_int(c, f));
}

/* Does f divide the extent e (both known constants)? */
static int divides(const tvm_expr *e, const tvm_expr *f) {
  int64_t a, b;
  return tvm_is_const_int(e, &a) && tvm_is_const_int(f, &b) && b > 0 &&
         a % b == 0;
}

static tvm_expr *get_ext(const rf_plan *p, const tvm_iter_var *iv) {
  void *e;
  return tvm_ptrmap_get(&p->ext, iv, &e) ? e : NULL;
}

/* The split factor of relation r (inner extent), computing it from the
 * parent's extent when the split was given by nparts. */
static tvm_expr *split_factor(tvm_ctx *c, const rf_plan *p,
                              const tvm_iv_relation *r) {
  int64_t np;
  if (r->factor)
    return r->factor;
  tvm_expr *pe = get_ext(p, r->parent);
  if (tvm_is_const_int(r->nparts, &np))
    return ceil_div(c, pe, np);
  return NULL;
}

/* Fills p->ext for the reduce axes of the stage and every axis split from
 * them; checks that the reduce leaves only come from splits.  TVM_OK or
 * an error naming the stage. */
static tvm_status plan_extents(tvm_ctx *c, rf_plan *p) {
  tvm_stage *st = p->st;
  for (int r = 0; r < st->op->nreduce; r++) {
    tvm_iter_var *iv = st->op->reduce_axis[r];
    if (!iv->dom.extent)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "rfactor: stage %s: reduce axis %s has no extent",
                          st->op->name, sched_iv_name(iv));
    if (tvm_ptrmap_put(&p->ext, iv, iv->dom.extent) != TVM_OK)
      return TVM_ERR_NOMEM;
  }
  for (size_t i = 0; i < st->relations.len; i++) {
    tvm_iv_relation *r = st->relations.data[i];
    if (r->kind == TVM_REL_FUSE) {
      if (get_ext(p, r->outer) || get_ext(p, r->inner))
        return tvm_diag_set(
            TVM_ERR_INVALID,
            "rfactor: stage %s: reduce axis %s was fused (into %s); rfactor "
            "supports reduce axes that were only split: rfactor first, then "
            "fuse",
            st->op->name,
            sched_iv_name(get_ext(p, r->outer) ? r->outer : r->inner),
            sched_iv_name(r->fused));
      continue;
    }
    if (r->kind != TVM_REL_SPLIT || !get_ext(p, r->parent))
      continue;
    tvm_expr *pe = get_ext(p, r->parent);
    tvm_expr *f = split_factor(c, p, r);
    if (!f)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "rfactor: stage %s: axis %s is split into a "
                          "symbolic number of parts",
                          st->op->name, sched_iv_name(r->parent));
    int64_t fv = 0;
    tvm_expr *oe;
    if (r->nparts)
      oe = r->nparts;
    else if (tvm_is_const_int(f, &fv))
      oe = ceil_div(c, pe, fv);
    else
      oe = tvm_floordiv(c, tvm_sub(c, tvm_add(c, pe, f), tvm_int(c, 1)), f);
    if (!oe || tvm_ptrmap_put(&p->ext, r->outer, oe) != TVM_OK ||
        tvm_ptrmap_put(&p->ext, r->inner, f) != TVM_OK)
      return TVM_ERR_NOMEM;
  }
  return TVM_OK;
}

/* Body of the rf op: the original reduction with the factored leaf bound
 * to the new data axis idx[factor_axis], reduced over the other reduce
 * leaves, each original reduce axis rebuilt from the leaves through the
 * splits (with a guard where a split does not divide). */
static tvm_expr *rf_body(tvm_ctx *c, tvm_expr **idx, void *ud) {
  rf_plan *p = ud;
  tvm_stage *st = p->st;
  const tvm_operation *op = st->op;
  const tvm_expr *b = op->body;
  tvm_ptrmap val = {0}; /* iter var -> value (relative to its min) */
  tvm_ptrmap sub = {0}; /* var -> expr, for the body */
  tvm_iter_var **rax = NULL;
  tvm_expr *cond = b->u.reduce.cond, *res = NULL;
  int nr = 0;
  /* the axes keep the names of those they come from (the vars are the
   * fresh ones of this compute, identified by pointer) */
  idx[p->factor_axis]->u.var.name = sched_iv_name(p->iv);
  for (int d = 0, j = 0; d < op->naxis; d++, j++) {
    if (j == p->factor_axis)
      j++;
    idx[j]->u.var.name = sched_iv_name(op->axis[d]);
    if (tvm_ptrmap_put(&sub, op->axis[d]->var, idx[j]) != TVM_OK)
      goto done;
  }
  rax = tvm_ctx_alloc(c, sizeof(*rax) * (st->leaf_iter_vars.len + 1));
  if (!rax)
    goto done;
  for (size_t i = 0; i < st->leaf_iter_vars.len; i++) {
    tvm_iter_var *lv = st->leaf_iter_vars.data[i];
    tvm_expr *e = get_ext(p, lv);
    if (!e)
      continue;
    tvm_expr *v;
    if (lv == p->iv) {
      v = idx[p->factor_axis];
    } else {
      rax[nr] = tvm_iter_var_new(c, sched_iv_name(lv), tvm_int(c, 0), e,
                                 TVM_IV_REDUCE);
      if (!rax[nr])
        goto done;
      v = rax[nr++]->var;
    }
    if (tvm_ptrmap_put(&val, lv, v) != TVM_OK)
      goto done;
  }
  /* pass the leaf values up the splits, newest relation first */
  for (size_t i = st->relations.len; i-- > 0;) {
    tvm_iv_relation *r = st->relations.data[i];
    void *vo, *vi;
    if (r->kind != TVM_REL_SPLIT || !get_ext(p, r->parent) ||
        !tvm_ptrmap_get(&val, r->outer, &vo) ||
        !tvm_ptrmap_get(&val, r->inner, &vi))
      continue;
    tvm_expr *f = split_factor(c, p, r), *pe = get_ext(p, r->parent);
    tvm_expr *v = tvm_add(c, tvm_mul(c, vo, f), vi);
    int exact = r->factor ? divides(pe, f) : divides(pe, r->nparts);
    if (!exact) {
      tvm_expr *g = tvm_lt(c, v, pe);
      cond = cond ? tvm_and(c, cond, g) : g;
    }
    if (!v || tvm_ptrmap_put(&val, r->parent, v) != TVM_OK)
      goto done;
  }
  for (int r = 0; r < op->nreduce; r++) {
    tvm_iter_var *ra = op->reduce_axis[r];
    void *v;
    if (!tvm_ptrmap_get(&val, ra, &v))
      goto done;
    tvm_expr *abs = v;
    if (ra->dom.min && !tvm_is_zero(ra->dom.min))
      abs = tvm_add(c, ra->dom.min, abs);
    if (tvm_ptrmap_put(&sub, ra->var, abs) != TVM_OK)
      goto done;
  }
  tvm_expr *src = tvm_substitute(c, b->u.reduce.source, &sub);
  if (cond)
    cond = tvm_substitute(c, cond, &sub);
  if (nr > 0)
    res = tvm_reduce(c, b->u.reduce.op, src, rax, nr, cond);
  else if (cond)
    res = tvm_select(c, cond, src,
                     tvm_reduce_identity(c, b->u.reduce.op, src->dtype));
  else
    res = src;
done:
  tvm_ptrmap_free(&val);
  tvm_ptrmap_free(&sub);
  return res;
}

/* Checks the arguments of rfactor; TVM_OK or an error naming the stage. */
static tvm_status check_rfactor(tvm_schedule *s, tvm_tensor *t,
                                tvm_iter_var *iv, int factor_axis,
                                tvm_stage **out) {
  if (!s || !t)
    return tvm_diag_set(TVM_ERR_INVALID, "rfactor: NULL schedule or tensor");
  tvm_stage *st = tvm_stage_of(s, t);
  if (!st)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "rfactor: tensor %s is not in this schedule", t->name);
  if (st->op->kind != TVM_OP_COMPUTE || st->op->body->kind != TVM_REDUCE)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "rfactor: stage %s is not a reduction", st->op->name);
  tvm_status rc = sched_check_leaf(st, iv, "rfactor");
  if (rc != TVM_OK)
    return rc;
  if (iv->kind != TVM_IV_REDUCE)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "rfactor: axis %s of stage %s is a data axis; only a "
                        "reduction axis can be factored out",
                        sched_iv_name(iv), st->op->name);
  if (factor_axis < 0 || factor_axis > st->op->naxis)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "rfactor: stage %s: factor_axis %d is out of range "
                        "[0, %d]",
                        st->op->name, factor_axis, st->op->naxis);
  if (st->attach == TVM_ATTACH_INLINE)
    return tvm_diag_set(TVM_ERR_INVALID, "rfactor: stage %s is inlined",
                        st->op->name);
  rc = sched_check_no_attach_below(s, st, "rfactor");
  *out = st;
  return rc;
}

/* Factors the reduce leaf iv of t out into "<t>.rf", whose output has a
 * new data axis (iv's range) at factor_axis; t's stage becomes a
 * reduction over that axis with its original data axes (its loop
 * structure is reset to them).  The rf stage comes just before t's. */
tvm_status tvm_rfactor(tvm_schedule *s, tvm_tensor *t, tvm_iter_var *iv,
                       int factor_axis, tvm_tensor **out) {
  tvm_stage *st = NULL;
  tvm_status rc = check_rfactor(s, t, iv, factor_axis, &st);
  if (rc != TVM_OK)
    return rc;
  tvm_ctx *c = s->ctx;
  rf_plan p = {st, iv, factor_axis, {0}};
  rc = plan_extents(c, &p);
  if (rc == TVM_OK && !get_ext(&p, iv))
    rc = tvm_diag_set(TVM_ERR_INVALID,
                      "rfactor: stage %s: axis %s does not come from the "
                      "reduction axes of the stage",
                      st->op->name, sched_iv_name(iv));
  if (rc == TVM_ERR_NOMEM)
    rc = tvm_diag_set(TVM_ERR_NOMEM, "rfactor: out of memory");
  tvm_expr *fext = get_ext(&p, iv);
  tvm_tensor *rf = NULL;
  if (rc == TVM_OK) {
    int nd = t->ndim + 1;
    tvm_expr **shape = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)nd);
    const char *name = tvm_arena_printf(c->arena, "%s.rf", t->name);
    if (shape && name) {
      for (int d = 0, j = 0; j < nd; j++)
        shape[j] = j == factor_axis ? fext : t->shape[d++];
      rf = tvm_compute_sym(c, name, shape, nd, rf_body, &p);
    }
    if (!rf)
      rc = tvm_diag_prefix(tvm_diag_status() ? tvm_diag_status()
                                             : TVM_ERR_NOMEM,
                           "rfactor of %s: ", t->name);
  }
  tvm_ptrmap_free(&p.ext);
  if (rc != TVM_OK)
    return rc;
  /* t[i..] = reduce_{v} rf[.., v, ..] over t's own data axes */
  const char *vname = tvm_arena_printf(c->arena, "%s.v", sched_iv_name(iv));
  tvm_iter_var *rv =
      tvm_iter_var_new(c, vname, tvm_int(c, 0), fext, TVM_IV_REDUCE);
  tvm_expr **idx =
      tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(t->ndim + 1));
  if (!rv || !idx)
    return tvm_diag_set(TVM_ERR_NOMEM, "rfactor: out of memory");
  for (int d = 0, j = 0; j < t->ndim + 1; j++)
    idx[j] = j == factor_axis ? rv->var : st->op->axis[d++]->var;
  tvm_expr *body = tvm_reduce(c, st->op->body->u.reduce.op,
                              tvm_tread(c, rf, idx, t->ndim + 1), &rv, 1,
                              NULL);
  tvm_operation *op = sched_op_with_body(c, st->op, body);
  if (!op)
    return tvm_diag_prefix(tvm_ctx_status(c), "rfactor of %s: ", t->name);
  /* Map and place the rf stage first, then switch t's stage. */
  if (tvm_ptrmap_put(&s->stage_of, op, st) != TVM_OK)
    return tvm_diag_set(TVM_ERR_NOMEM, "rfactor: out of memory");
  tvm_stage *rst = sched_stage_new(c, rf->op);
  if (!rst)
    return tvm_diag_set(TVM_ERR_NOMEM, "rfactor: out of memory");
  rc = sched_insert_stage(s, rst, (size_t)sched_stage_index(s, st));
  if (rc != TVM_OK) {
    sched_stage_free(rst);
    return rc;
  }
  st->op = op;
  if ((rc = sched_stage_reset_axes(st)) != TVM_OK)
    return rc;
  if (out)
    *out = rf;
  return TVM_OK;
}
