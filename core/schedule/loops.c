/*
 * core/schedule/loops.c - primitives that reshape a stage's loop nest:
 * split, tile, fuse and reorder.  Each records a relation between
 * iteration variables and edits the stage's leaf axes; loops are built
 * from them later by schedule_ops (core/lower).
 */
#include <string.h>

#include "sched_int.h"

/* Records a relation in st (arena); NULL on OOM. */
static tvm_iv_relation *add_relation(tvm_stage *st, tvm_rel_kind kind) {
  tvm_iv_relation *r = tvm_ctx_alloc(st->ctx, sizeof(*r));
  if (!r || tvm_ptrvec_push(&st->relations, r) != TVM_OK)
    return NULL;
  r->kind = kind;
  return r;
}

/* A new axis named "<base><suffix>" of the given kind for a relation
 * (its domain is found by bound inference), listed in all_iter_vars. */
static tvm_iter_var *relation_axis(tvm_stage *st, const char *base,
                                   const char *suffix, tvm_iter_kind kind) {
  const char *name = tvm_arena_printf(st->ctx->arena, "%s%s", base, suffix);
  if (!name)
    return NULL;
  tvm_iter_var *iv = tvm_iter_var_new(st->ctx, name, NULL, NULL, kind);
  if (!iv || tvm_ptrvec_push(&st->all_iter_vars, iv) != TVM_OK)
    return NULL;
  return iv;
}

/* Shared body of split, split_shift_tail (shift) and split_nparts:
 * exactly one of factor / nparts is positive. */
static tvm_status split_impl(tvm_stage *st, tvm_iter_var *iv, int64_t factor,
                             int64_t nparts, int shift, tvm_iter_var **outer,
                             tvm_iter_var **inner) {
  const char *prim =
      shift ? "split_shift_tail" : factor ? "split" : "split_nparts";
  if (!st)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: the stage is NULL", prim);
  tvm_status rc = sched_check_leaf(st, iv, prim);
  if (rc != TVM_OK)
    return rc;
  if (shift && iv->kind == TVM_IV_REDUCE)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: stage %s, axis %s is a reduction axis (a "
                        "shifted tile would add its overlap twice); use "
                        "split",
                        prim, st->op->name, sched_iv_name(iv));
  if (factor < 0 || nparts < 0 || (factor == 0 && nparts == 0))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: stage %s, axis %s: the %s must be positive "
                        "(got %lld)",
                        prim, st->op->name, sched_iv_name(iv),
                        factor ? "factor" : "number of parts",
                        (long long)(factor ? factor : nparts));
  tvm_iter_kind kind = iv->kind;
  const char *base = sched_iv_name(iv);
  tvm_iter_var *o = relation_axis(st, base, ".outer", kind);
  tvm_iter_var *in = relation_axis(st, base, ".inner", kind);
  tvm_iv_relation *r = o && in ? add_relation(st, TVM_REL_SPLIT) : NULL;
  if (!r)
    return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", prim);
  r->parent = iv;
  r->outer = o;
  r->inner = in;
  r->factor = factor ? tvm_int(st->ctx, factor) : NULL;
  r->nparts = nparts ? tvm_int(st->ctx, nparts) : NULL;
  r->shift_tail = shift;
  if ((factor && !r->factor) || (nparts && !r->nparts))
    return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", prim);
  /* Replace iv by outer, inner in the leaves. */
  int pos = sched_leaf_index(st, iv);
  if (tvm_ptrvec_push(&st->leaf_iter_vars, NULL) != TVM_OK)
    return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", prim);
  void **d = st->leaf_iter_vars.data;
  size_t n = st->leaf_iter_vars.len;
  memmove(&d[pos + 2], &d[pos + 1], (n - 2 - (size_t)pos) * sizeof(void *));
  d[pos] = o;
  d[pos + 1] = in;
  if (outer)
    *outer = o;
  if (inner)
    *inner = in;
  return TVM_OK;
}

/* Splits leaf iv into outer and inner, inner of extent factor:
 * iv = outer * factor + inner (guarded when factor does not divide). */
tvm_status tvm_split(tvm_stage *st, tvm_iter_var *iv, int64_t factor,
                     tvm_iter_var **outer, tvm_iter_var **inner) {
  if (factor <= 0 && st)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "split: stage %s, axis %s: the factor must be "
                        "positive (got %lld)",
                        st->op->name, sched_iv_name(iv), (long long)factor);
  return split_impl(st, iv, factor, 0, 0, outer, inner);
}

/* See tvm/schedule.h. */
tvm_status tvm_split_shift_tail(tvm_stage *st, tvm_iter_var *iv,
                                int64_t factor, tvm_iter_var **outer,
                                tvm_iter_var **inner) {
  if (factor <= 0 && st)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "split_shift_tail: stage %s, axis %s: the factor "
                        "must be positive (got %lld)",
                        st->op->name, sched_iv_name(iv), (long long)factor);
  return split_impl(st, iv, factor, 0, 1, outer, inner);
}

/* Splits leaf iv into nparts outer iterations of an inner loop. */
tvm_status tvm_split_nparts(tvm_stage *st, tvm_iter_var *iv, int64_t nparts,
                            tvm_iter_var **outer, tvm_iter_var **inner) {
  if (nparts <= 0 && st)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "split_nparts: stage %s, axis %s: the number of "
                        "parts must be positive (got %lld)",
                        st->op->name, sched_iv_name(iv), (long long)nparts);
  return split_impl(st, iv, 0, nparts, 0, outer, inner);
}

/* Tiles the 2-D loop (x, y): split x by xf and y by yf, then order the
 * leaves xo, yo, xi, yi. */
tvm_status tvm_tile(tvm_stage *st, tvm_iter_var *x, tvm_iter_var *y,
                    int64_t xf, int64_t yf, tvm_iter_var **xo,
                    tvm_iter_var **yo, tvm_iter_var **xi, tvm_iter_var **yi) {
  tvm_iter_var *a, *b, *c2, *d;
  if (st && x == y)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tile: stage %s: x and y are the same axis %s",
                        st->op->name, sched_iv_name(x));
  /* Check both before changing anything. */
  tvm_status rc = st ? sched_check_leaf(st, x, "tile") : TVM_ERR_INVALID;
  if (rc == TVM_OK)
    rc = sched_check_leaf(st, y, "tile");
  if (!st)
    return tvm_diag_set(TVM_ERR_INVALID, "tile: the stage is NULL");
  if (rc != TVM_OK)
    return rc;
  if (xf <= 0 || yf <= 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tile: stage %s: factors must be positive (got %lld, "
                        "%lld)",
                        st->op->name, (long long)xf, (long long)yf);
  if ((rc = tvm_split(st, x, xf, &a, &c2)) != TVM_OK ||
      (rc = tvm_split(st, y, yf, &b, &d)) != TVM_OK)
    return rc;
  tvm_iter_var *order[4] = {a, b, c2, d};
  if ((rc = tvm_reorder(st, order, 4)) != TVM_OK)
    return rc;
  if (xo)
    *xo = a;
  if (yo)
    *yo = b;
  if (xi)
    *xi = c2;
  if (yi)
    *yi = d;
  return TVM_OK;
}

/* Fuses two adjacent leaves (outer right before inner) into one axis
 * "<outer>.<inner>.fused" of extent outer * inner. */
tvm_status tvm_fuse(tvm_stage *st, tvm_iter_var *outer, tvm_iter_var *inner,
                    tvm_iter_var **fused) {
  if (!st)
    return tvm_diag_set(TVM_ERR_INVALID, "fuse: the stage is NULL");
  tvm_status rc = sched_check_leaf(st, outer, "fuse");
  if (rc == TVM_OK)
    rc = sched_check_leaf(st, inner, "fuse");
  if (rc != TVM_OK)
    return rc;
  int po = sched_leaf_index(st, outer), pi = sched_leaf_index(st, inner);
  if (pi != po + 1)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "fuse: stage %s: axes %s and %s are not adjacent "
                        "(positions %d and %d); only an axis and the one "
                        "right inside it can be fused: reorder first",
                        st->op->name, sched_iv_name(outer),
                        sched_iv_name(inner), po, pi);
  /* A fused loop over a data and a reduce axis is a reduce loop. */
  tvm_iter_kind kind = outer->kind;
  if (inner->kind == TVM_IV_REDUCE)
    kind = TVM_IV_REDUCE;
  const char *name = tvm_arena_printf(st->ctx->arena, "%s.%s",
                                      sched_iv_name(outer),
                                      sched_iv_name(inner));
  tvm_iter_var *f = name ? relation_axis(st, name, ".fused", kind) : NULL;
  tvm_iv_relation *r = f ? add_relation(st, TVM_REL_FUSE) : NULL;
  if (!r)
    return tvm_diag_set(TVM_ERR_NOMEM, "fuse: out of memory");
  r->outer = outer;
  r->inner = inner;
  r->fused = f;
  void **d = st->leaf_iter_vars.data;
  d[po] = f;
  memmove(&d[pi], &d[pi + 1],
          (st->leaf_iter_vars.len - 1 - (size_t)pi) * sizeof(void *));
  st->leaf_iter_vars.len--;
  if (fused)
    *fused = f;
  return TVM_OK;
}

/* Puts the listed leaves in the listed order, in the positions they
 * occupy together; the other leaves keep their places. */
tvm_status tvm_reorder(tvm_stage *st, tvm_iter_var **ivs, int n) {
  if (!st)
    return tvm_diag_set(TVM_ERR_INVALID, "reorder: the stage is NULL");
  if (n <= 0 || !ivs)
    return tvm_diag_set(TVM_ERR_INVALID, "reorder: stage %s: no axes given",
                        st->op->name);
  int pos_small[16];
  int *pos = n <= 16 ? pos_small : tvm_malloc(sizeof(int) * (size_t)n);
  if (!pos)
    return tvm_diag_set(TVM_ERR_NOMEM, "reorder: out of memory");
  tvm_status rc = TVM_OK;
  for (int i = 0; i < n && rc == TVM_OK; i++) {
    rc = sched_check_leaf(st, ivs[i], "reorder");
    for (int j = 0; j < i && rc == TVM_OK; j++)
      if (ivs[j] == ivs[i])
        rc = tvm_diag_set(TVM_ERR_INVALID,
                          "reorder: stage %s: axis %s is listed twice",
                          st->op->name, sched_iv_name(ivs[i]));
    if (rc == TVM_OK)
      pos[i] = sched_leaf_index(st, ivs[i]);
  }
  if (rc == TVM_OK) {
    /* Sort the positions (insertion sort; n is small), then fill. */
    for (int i = 1; i < n; i++)
      for (int j = i; j > 0 && pos[j - 1] > pos[j]; j--) {
        int t = pos[j];
        pos[j] = pos[j - 1];
        pos[j - 1] = t;
      }
    for (int i = 0; i < n; i++)
      st->leaf_iter_vars.data[pos[i]] = ivs[i];
  }
  if (pos != pos_small)
    tvm_free(pos);
  return rc;
}
