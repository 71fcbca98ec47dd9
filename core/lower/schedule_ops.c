/*
 * core/lower/schedule_ops.c - from a schedule and its inferred bounds to
 * one statement of loop nests over multi-dimensional tensors
 * (realize/provide/tread), the input of storage_flatten.
 *
 * Shape of the result, for root stages T1, T2 (producers first):
 *
 *   realize T1([min, extent], ...) scope=global {
 *     // attr produce = "T1"
 *     <loop nest of T1>
 *     realize T2(...) { // attr produce = "T2" ... }
 *   }
 *
 * A stage computed at axis a of stage P sits (realize + produce) at the
 * top of the body of P's loop over a; inlined stages are already
 * substituted into their readers by lower_graph.  Each leaf axis is one
 * loop from 0 (lower_int.h); root axis values are rebuilt from the loop
 * variables; an `if` guards the body when a root value may leave its
 * inferred range or its declared domain (a split that does not divide, a
 * tile at the edge), or may be one a shifted last tile overlaps
 * (tvm_split_shift_tail: the tile before stores it), unless tvm_prove
 * shows it cannot.  A reduction stores
 * the identity right before its outermost reduce loop (in an init nest
 * over the data-parallel loops that follow it, with fresh `.init`
 * variables) and accumulates inside.  Annotations: pragmas become
 * `attr [iv] pragma_<key>` around their loop, bound thread axes become
 * thread loops (vthread loops for virtual threads), storage_align becomes
 * `attr [T] realize_storage_align = tvm_tuple(dim, factor, offset)` around
 * the realize, double_buffer `attr [T] realize_double_buffer = 1` around
 * the produce (storage_flatten turns both into storage).  A leaf bound to
 * a thread tag that an enclosing loop (through the compute_at chain)
 * already binds makes no loop of its own: it reuses that loop's variable,
 * so a shared-memory stage is fetched cooperatively by the consumer's
 * threads.  A leaf with a tensor intrinsic is replaced from there inward
 * (tensorize.c).
 */
#include <string.h>

#include "lower_int.h"

typedef struct ops {
  tvm_ctx *c;
  lower_graph g;
  const tvm_ptrmap *ranges;
  tvm_bounds loops; /* every loop variable: [0, extent) */
  tvm_ptrmap placed; /* lower_stage* of attached stages placed so far */
  tvm_status st;
} ops;

/* Records a failure (first one wins) and returns NULL. */
static tvm_stmt *fail(ops *o, tvm_status st) {
  if (o->st == TVM_OK)
    o->st = st;
  return NULL;
}

/* The expression stored under k, or NULL. */
static tvm_expr *map_get(const tvm_ptrmap *m, const void *k) {
  void *v = NULL;
  if (tvm_ptrmap_get(m, k, &v))
    return v;
  return NULL;
}

/* Mutator hook: simplifies the indices of tensor reads. */
static tvm_expr *simplify_reads_hook(tvm_mutator *m, tvm_expr *e) {
  if (e->kind != TVM_TREAD)
    return NULL;
  tvm_expr *r = tvm_mutate_expr_children(m, e);
  if (!r)
    return NULL;
  tvm_expr **idx = tvm_ctx_alloc(m->ctx, sizeof(tvm_expr *) *
                                             (size_t)(r->u.tread.n + 1));
  if (!idx)
    return NULL;
  for (int i = 0; i < r->u.tread.n; i++)
    idx[i] = tvm_simplify(m->ctx, r->u.tread.indices[i], NULL);
  return tvm_tread(m->ctx, r->u.tread.tensor, idx, r->u.tread.n);
}

/* e with variables replaced by map, read indices simplified. */
static tvm_expr *subst(tvm_ctx *c, tvm_expr *e, const tvm_ptrmap *map) {
  if (!e)
    return NULL;
  tvm_expr *r = tvm_substitute(c, e, map);
  tvm_mutator m = {c, simplify_reads_hook, NULL, NULL};
  return r ? tvm_mutate_expr(&m, r) : NULL;
}

/* One loop of a leaf axis over variable var (iv->var, or a fresh init
 * variable), with its annotations. */
static tvm_stmt *make_loop(ops *o, const tvm_stage *st, tvm_iter_var *iv,
                           tvm_expr *var, tvm_stmt *body) {
  tvm_ctx *c = o->c;
  tvm_range *r = lower_range_of(o->ranges, iv);
  if (!r || !body)
    return body ? fail(o, TVM_ERR_INTERNAL) : NULL;
  tvm_iv_attr *a = lower_iv_attr(st, iv);
  tvm_for_kind kind = a ? a->for_kind : TVM_FOR_SERIAL;
  const char *tag = NULL;
  if (a && a->bind_thread) {
    tag = a->bind_thread->thread_tag;
    kind = (a->bind_thread->kind == TVM_IV_VTHREAD ||
            (tag && strncmp(tag, "vthread", 7) == 0))
               ? TVM_FOR_VTHREAD
               : TVM_FOR_THREAD;
  }
  tvm_stmt *s = tvm_for(c, var, tvm_int(c, 0), r->extent, kind, tag, body);
  for (int p = a ? a->npragmas - 1 : -1; p >= 0; p--) {
    const char *key = tvm_arena_printf(c->arena, "%s%s", TVM_ATTR_PRAGMA_PREFIX,
                                       a->pragmas[p].key);
    s = tvm_attr(c, key, iv, a->pragmas[p].value ? a->pragmas[p].value
                                                 : tvm_int(c, 1), s);
  }
  return s;
}

/* State of the nest of one stage. */
typedef struct nest {
  lower_stage *ls;
  tvm_ptrmap values; /* iter var -> value in loop vars */
  tvm_ptrmap sub;    /* root var -> value */
  tvm_ptrmap red;    /* iter vars derived from reduce axes */
  tvm_ptrmap reuse;  /* leaf iv -> enclosing thread loop var it reuses */
  int n, first_red, tl;
} nest;

static tvm_stmt *stage_realize(ops *o, lower_stage *ls, tvm_stmt *rest);

/* Wraps inner with the stages computed at leaf l of nb's stage. */
static tvm_stmt *wrap_attached(ops *o, nest *nb, int l, tvm_stmt *inner) {
  tvm_iter_var *iv = lower_leaf(nb->ls->st, (size_t)l);
  for (int j = o->g.n - 1; j >= 0; j--) {
    lower_stage *cs = &o->g.stages[j];
    if (!cs->is_compute || cs->st->attach != TVM_ATTACH_SCOPE ||
        cs->st->attach_stage != nb->ls->st || cs->st->attach_ivar != iv)
      continue;
    inner = stage_realize(o, cs, inner);
    if (tvm_ptrmap_put(&o->placed, cs, cs) != TVM_OK)
      fail(o, TVM_ERR_NOMEM);
  }
  return inner;
}

/* The main loops lo..hi-1 of nb's stage around inner. */
static tvm_stmt *main_loops(ops *o, nest *nb, int lo, int hi,
                            tvm_stmt *inner) {
  for (int l = hi - 1; l >= lo; l--) {
    tvm_iter_var *iv = lower_leaf(nb->ls->st, (size_t)l);
    inner = wrap_attached(o, nb, l, inner);
    if (!map_get(&nb->reuse, iv))
      inner = make_loop(o, nb->ls->st, iv, iv->var, inner);
  }
  return inner;
}

/* Is [lo, hi] inside the range of constant min m and extent e? */
static int within(int64_t lo, int64_t hi, const tvm_expr *m,
                  const tvm_expr *e) {
  int64_t mv, ev;
  return m && e && tvm_is_const_int(m, &mv) && tvm_is_const_int(e, &ev) &&
         lo >= mv && hi < mv + ev;
}

/* AND of the conditions keeping root value v inside range r and inside
 * the declared domain of iv, leaving out those tvm_prove shows.  Most
 * roots stay inside both by construction: one interval of v under the
 * loops' ranges shows that for constant ranges, where proving the four
 * conditions one by one took a fifth of the time of lowering a tuning
 * candidate (features-only lowering, perf over bench/tune_model). */
static tvm_expr *guard_root(ops *o, tvm_iter_var *iv, tvm_expr *v,
                            const tvm_range *r, tvm_expr *acc) {
  tvm_ctx *c = o->c;
  tvm_expr *cands[4];
  int n = 0;
  int64_t lo, hi;
  if (tvm_const_bounds(c, v, &o->loops, &lo, &hi) &&
      (!r || within(lo, hi, r->min, r->extent)) &&
      (!iv->dom.min || !iv->dom.extent ||
       within(lo, hi, iv->dom.min, iv->dom.extent)))
    return acc;
  if (r) {
    cands[n++] = tvm_ge(c, v, r->min);
    cands[n++] = tvm_lt(c, v, tvm_add(c, r->min, r->extent));
  }
  if (iv->dom.min && iv->dom.extent) {
    cands[n++] = tvm_ge(c, v, iv->dom.min);
    cands[n++] = tvm_lt(c, v, tvm_add(c, iv->dom.min, iv->dom.extent));
  }
  for (int i = 0; i < n; i++) {
    if (!cands[i])
      continue;
    if (tvm_prove(c, cands[i], &o->loops))
      continue;
    tvm_expr *s = tvm_simplify(c, cands[i], NULL);
    int64_t k;
    if (s && tvm_is_const_int(s, &k) && k)
      continue;
    if (!s)
      continue;
    int dup = 0;
    for (int j = 0; j < i; j++)
      if (cands[j] && tvm_expr_equal(cands[j], s))
        dup = 1;
    cands[i] = s;
    if (!dup)
      acc = acc ? tvm_and(c, acc, s) : s;
  }
  return acc;
}

/* The guard over the data roots (and reduce roots when all), with loop
 * variables replaced by map (NULL = none). */
static tvm_expr *guard(ops *o, nest *nb, int all, const tvm_ptrmap *map) {
  lower_stage *ls = nb->ls;
  tvm_expr *acc = NULL;
  int n = all ? ls->nroots : ls->ndata;
  for (int r = 0; r < n; r++) {
    tvm_iter_var *iv = ls->roots[r];
    tvm_expr *v = map_get(&nb->values, iv);
    if (!v)
      continue;
    if (map)
      v = tvm_simplify(o->c, tvm_substitute(o->c, v, map), NULL);
    acc = guard_root(o, iv, v, lower_range_of(o->ranges, iv), acc);
  }
  /* a shifted last tile stores only what the tile before it does not:
   * min(outer*f, E-f) + inner >= outer*f, written as the equivalent
   * outer*f <= E-f + inner (inner >= 0), which interval arithmetic
   * proves once inner is an unrolled constant of at least the overlap */
  const tvm_ptrvec *rels = &ls->st->relations;
  for (size_t k = 0; k < rels->len; k++) {
    const tvm_iv_relation *rel = rels->data[k];
    int64_t f, e;
    if (!lower_split_shifted(rel, o->ranges, &f, &e)) continue;
    tvm_expr *iv = map_get(&nb->values, rel->inner);
    tvm_expr *ov = map_get(&nb->values, rel->outer);
    if (!iv || !ov) continue;
    tvm_expr *cond = tvm_le(o->c, tvm_mul(o->c, ov, tvm_int(o->c, f)),
                            tvm_add(o->c, tvm_int(o->c, e - f), iv));
    if (map) cond = tvm_substitute(o->c, cond, map);
    cond = cond ? tvm_simplify(o->c, cond, NULL) : NULL;
    if (!cond || tvm_prove(o->c, cond, &o->loops)) continue;
    acc = acc ? tvm_and(o->c, acc, cond) : cond;
  }
  return acc;
}

/* The output indices of nb's stage, loop variables replaced by map. */
static tvm_expr **out_indices(ops *o, nest *nb, const tvm_ptrmap *map) {
  lower_stage *ls = nb->ls;
  tvm_expr **idx = tvm_ctx_alloc(o->c, sizeof(tvm_expr *) * (size_t)(ls->ndata + 1));
  if (!idx)
    return NULL;
  for (int d = 0; d < ls->ndata; d++) {
    tvm_expr *v = map_get(&nb->values, ls->roots[d]);
    if (v && map)
      v = tvm_simplify(o->c, tvm_substitute(o->c, v, map), NULL);
    idx[d] = v;
    if (!v)
      return NULL;
  }
  return idx;
}

/* The innermost statement: out = value, or out = out (op) source for a
 * reduction (under its condition), guarded. */
static tvm_stmt *main_body(ops *o, nest *nb) {
  tvm_ctx *c = o->c;
  lower_stage *ls = nb->ls;
  tvm_expr **idx = out_indices(o, nb, NULL);
  tvm_expr *val = subst(c, ls->value, &nb->sub);
  if (!idx || !val)
    return fail(o, tvm_ctx_status(c) ? tvm_ctx_status(c) : TVM_ERR_INTERNAL);
  tvm_stmt *s;
  if (ls->is_reduce) {
    tvm_expr *cur = tvm_tread(c, ls->out, idx, ls->ndata);
    s = tvm_provide(c, ls->out, idx, ls->ndata,
                    tvm_reduce_combine(c, ls->rop, cur, val));
    if (ls->cond)
      s = tvm_if(c, subst(c, ls->cond, &nb->sub), s, NULL);
  } else {
    s = tvm_provide(c, ls->out, idx, ls->ndata, val);
  }
  tvm_expr *g = guard(o, nb, 1, NULL);
  return g ? tvm_if(c, g, s, NULL) : s;
}

/* Fresh init variables for the data-parallel leaves lo..hi-1 (map: leaf
 * var -> init var), registered in the loop bounds. */
static tvm_status init_vars(ops *o, nest *nb, int lo, int hi, tvm_ptrmap *map) {
  tvm_ctx *c = o->c;
  for (int l = lo; l < hi; l++) {
    tvm_iter_var *iv = lower_leaf(nb->ls->st, (size_t)l);
    void *v;
    if ((tvm_ptrmap_get(&nb->red, iv, &v) && v) || map_get(&nb->reuse, iv))
      continue;
    const char *nm = tvm_arena_printf(c->arena, "%s.init", iv->var->u.var.name);
    tvm_expr *nv = nm ? tvm_var(c, nm, iv->var->dtype) : NULL;
    tvm_range *r = lower_range_of(o->ranges, iv);
    tvm_range *lr = r ? lower_range_new(c, tvm_int(c, 0), r->extent) : NULL;
    if (!nv || !lr)
      return tvm_ctx_status(c) ? tvm_ctx_status(c) : TVM_ERR_INTERNAL;
    if (tvm_ptrmap_put(map, iv->var, nv) != TVM_OK ||
        tvm_bounds_set(&o->loops, nv, lr) != TVM_OK)
      return TVM_ERR_NOMEM;
  }
  return TVM_OK;
}

/* The init nest over the data-parallel leaves lo..hi-1: the identity
 * stored (or `reset` from a tensor intrinsic). */
static tvm_stmt *init_nest(ops *o, nest *nb, int lo, int hi, tvm_stmt *reset) {
  tvm_ctx *c = o->c;
  lower_stage *ls = nb->ls;
  tvm_ptrmap map = {0};
  tvm_stmt *s = NULL;
  tvm_status st = init_vars(o, nb, lo, hi, &map);
  if (st != TVM_OK) {
    tvm_ptrmap_free(&map);
    return fail(o, st);
  }
  if (reset) {
    s = tvm_substitute_stmt(c, reset, &map);
  } else {
    tvm_expr **idx = out_indices(o, nb, &map);
    tvm_expr *id = tvm_reduce_identity(c, ls->rop, ls->out->dtype);
    if (!idx || !id) {
      tvm_ptrmap_free(&map);
      return fail(o, tvm_ctx_status(c) ? tvm_ctx_status(c) : TVM_ERR_INTERNAL);
    }
    /* the output index must not move with a reduce loop (a data axis
     * fused with a reduce axis) */
    for (int l = lo; l < nb->n; l++) {
      tvm_iter_var *iv = lower_leaf(ls->st, (size_t)l);
      void *v;
      if (!(tvm_ptrmap_get(&nb->red, iv, &v) && v))
        continue;
      for (int d = 0; d < ls->ndata; d++)
        if (tvm_expr_uses_var(idx[d], iv->var)) {
          tvm_ptrmap_free(&map);
          return fail(o, tvm_diag_set(
                             TVM_ERR_INVALID,
                             "schedule_ops: in stage %s the output index "
                             "depends on %s, which also runs over a reduce "
                             "axis; do not fuse data axes with reduce axes",
                             ls->op->name, iv->var->u.var.name));
        }
    }
    s = tvm_provide(c, ls->out, idx, ls->ndata, id);
    tvm_expr *g = guard(o, nb, 0, &map);
    if (g)
      s = tvm_if(c, g, s, NULL);
  }
  for (int l = hi - 1; l >= lo; l--) {
    tvm_iter_var *iv = lower_leaf(ls->st, (size_t)l);
    tvm_expr *nv = map_get(&map, iv->var);
    if (nv)
      s = make_loop(o, ls->st, iv, nv, s);
  }
  tvm_ptrmap_free(&map);
  return s;
}

/* A leaf of ls bound to a thread tag that a loop enclosing ls (through
 * its compute_at chain) already binds runs on that loop's threads: no
 * second loop, its variable is replaced by the enclosing one (as TVM's
 * cooperative fetching of shared memory).  Fills nb->reuse and *vmap
 * (leaf var -> enclosing var). */
static tvm_status reuse_threads(ops *o, nest *nb, tvm_ptrmap *vmap) {
  const tvm_stage *st = nb->ls->st;
  for (int l = 0; l < nb->n; l++) {
    tvm_iter_var *iv = lower_leaf(st, (size_t)l);
    tvm_iv_attr *a = lower_iv_attr(st, iv);
    if (!a || !a->bind_thread || !a->bind_thread->thread_tag)
      continue;
    const char *tag = a->bind_thread->thread_tag;
    tvm_iter_var *outer = NULL;
    const tvm_stage *cur = st;
    int guard = 0;
    while (cur->attach == TVM_ATTACH_SCOPE && cur->attach_stage &&
           ++guard < 1000) {
      const tvm_stage *p = cur->attach_stage;
      int idx = lower_leaf_index(p, cur->attach_ivar);
      for (int k = 0; k <= idx; k++) {
        tvm_iter_var *piv = lower_leaf(p, (size_t)k);
        tvm_iv_attr *pa = lower_iv_attr(p, piv);
        if (pa && pa->bind_thread && pa->bind_thread->thread_tag &&
            strcmp(pa->bind_thread->thread_tag, tag) == 0)
          outer = piv; /* the outermost binding wins */
      }
      cur = p;
    }
    if (!outer)
      continue;
    tvm_range *ri = lower_range_of(o->ranges, iv);
    tvm_range *ro = lower_range_of(o->ranges, outer);
    int64_t ei, eo;
    if (ri && ro && tvm_is_const_int(ri->extent, &ei) &&
        tvm_is_const_int(ro->extent, &eo) && ei > eo)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "schedule_ops: axis %s of %s (%lld iterations) is "
                          "bound to %s, which the enclosing loop %s already "
                          "runs with only %lld threads; split the axis by "
                          "%lld and bind the inner part",
                          iv->var->u.var.name, st->op->name, (long long)ei,
                          tag, outer->var->u.var.name, (long long)eo,
                          (long long)eo);
    if (tvm_ptrmap_put(&nb->reuse, iv, outer->var) != TVM_OK ||
        tvm_ptrmap_put(vmap, iv->var, outer->var) != TVM_OK)
      return TVM_ERR_NOMEM;
  }
  return TVM_OK;
}

/* The loop nest producing ls's tensor. */
static tvm_stmt *stage_nest(ops *o, lower_stage *ls) {
  tvm_ctx *c = o->c;
  nest nb;
  memset(&nb, 0, sizeof(nb));
  nb.ls = ls;
  nb.n = lower_nleaves(ls->st);
  tvm_stmt *res = NULL, *body = NULL, *reset = NULL, *update = NULL;
  tvm_status st = lower_iv_values(c, ls->st, o->ranges, &nb.values);
  if (st == TVM_OK)
    st = lower_reduce_derived(ls, &nb.red);
  tvm_ptrmap vmap = {0};
  if (st == TVM_OK)
    st = reuse_threads(o, &nb, &vmap);
  for (int r = 0; st == TVM_OK && r < ls->nroots; r++) {
    tvm_expr *v = map_get(&nb.values, ls->roots[r]);
    if (!v) {
      st = tvm_diag_set(TVM_ERR_INVALID,
                        "schedule_ops: root axis %s of %s is not reachable "
                        "from its leaf axes",
                        ls->roots[r]->var->u.var.name, ls->op->name);
      break;
    }
    if (vmap.len) {
      v = tvm_simplify(c, tvm_substitute(c, v, &vmap), NULL);
      st = tvm_ptrmap_put(&nb.values, ls->roots[r], v);
    }
    if (st == TVM_OK)
      st = tvm_ptrmap_put(&nb.sub, ls->roots[r]->var, v);
  }
  tvm_ptrmap_free(&vmap);
  if (st != TVM_OK)
    goto out;
  nb.first_red = nb.n;
  nb.tl = -1;
  for (int l = 0; l < nb.n; l++) {
    tvm_iter_var *iv = lower_leaf(ls->st, (size_t)l);
    void *v;
    if (nb.first_red == nb.n && tvm_ptrmap_get(&nb.red, iv, &v) && v)
      nb.first_red = l;
    tvm_iv_attr *a = lower_iv_attr(ls->st, iv);
    if (nb.tl < 0 && a && a->tensorize)
      nb.tl = l;
  }
  if (nb.tl >= 0) {
    st = lower_tensorize(&o->g, ls, o->ranges, &nb.values, nb.tl, &body,
                         &reset, &update);
    if (st != TVM_OK)
      goto out;
  }
  if (!ls->is_reduce) {
    res = main_loops(o, &nb, 0, nb.tl >= 0 ? nb.tl : nb.n,
                     nb.tl >= 0 ? body : main_body(o, &nb));
  } else if (nb.tl >= 0 && nb.tl <= nb.first_red) {
    res = main_loops(o, &nb, 0, nb.tl, body);
  } else {
    int hi = nb.tl >= 0 ? nb.tl : nb.n;
    if (nb.tl >= 0 && (!reset || !update)) {
      st = tvm_diag_set(TVM_ERR_INVALID,
                        "tensorize: intrinsic %s of stage %s is placed inside "
                        "a reduction loop but gives no reset/update; "
                        "tensorize at or outside the outermost reduce axis",
                        lower_iv_attr(ls->st, lower_leaf(ls->st, (size_t)nb.tl))
                            ->tensorize->name,
                        ls->op->name);
      goto out;
    }
    tvm_stmt *upd = main_loops(o, &nb, nb.first_red, hi,
                               nb.tl >= 0 ? update : main_body(o, &nb));
    tvm_stmt *init = init_nest(o, &nb, nb.first_red, hi, reset);
    res = main_loops(o, &nb, 0, nb.first_red, tvm_seq2(c, init, upd));
  }
out:
  tvm_ptrmap_free(&nb.values);
  tvm_ptrmap_free(&nb.sub);
  tvm_ptrmap_free(&nb.red);
  tvm_ptrmap_free(&nb.reuse);
  if (st != TVM_OK)
    return fail(o, st);
  return res;
}

/* realize T { produce T { nest }; rest } with T's annotations. */
static tvm_stmt *stage_realize(ops *o, lower_stage *ls, tvm_stmt *rest) {
  tvm_ctx *c = o->c;
  tvm_operation *op = ls->op;
  tvm_stmt *nest_s = stage_nest(o, ls);
  if (!nest_s)
    return fail(o, TVM_ERR_INTERNAL);
  tvm_stmt *prod = tvm_attr(c, LOWER_ATTR_PRODUCE, ls->out,
                            tvm_str(c, ls->out->name), nest_s);
  if (ls->st->double_buffer)
    prod = tvm_attr(c, LOWER_ATTR_DOUBLE_BUFFER, ls->out, tvm_int(c, 1), prod);
  tvm_range *b = tvm_ctx_alloc(c, sizeof(tvm_range) * (size_t)(op->naxis + 1));
  if (!b)
    return fail(o, tvm_ctx_status(c));
  for (int d = 0; d < op->naxis; d++) {
    tvm_range *r = lower_range_of(o->ranges, op->axis[d]);
    if (!r)
      return fail(o, tvm_diag_set(TVM_ERR_INTERNAL,
                                  "schedule_ops: no bound for %s of %s",
                                  op->axis[d]->var->u.var.name, op->name));
    b[d] = *r;
  }
  const char *scope = ls->st->scope ? ls->st->scope : "global";
  tvm_stmt *s = tvm_realize(c, ls->out, b, op->naxis, scope,
                            tvm_seq2(c, prod, rest));
  for (int d = op->naxis - 1; d >= 0; d--) {
    tvm_iv_attr *a = lower_iv_attr(ls->st, op->axis[d]);
    if (!a || a->align_factor == 0)
      continue;
    tvm_expr *args[3] = {tvm_int(c, d), tvm_int(c, a->align_factor),
                         tvm_int(c, a->align_offset)};
    s = tvm_attr(c, LOWER_ATTR_ALIGN, ls->out,
                 tvm_call_extern(c, TVM_I32, "tvm_tuple", args, 3), s);
  }
  return s;
}

/* Builds the loop nests of every stage of s (see the file comment). */
tvm_status tvm_schedule_ops(tvm_schedule *s, const tvm_ptrmap *ranges,
                            tvm_stmt **out) {
  if (!s || !ranges || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "schedule_ops: NULL argument");
  *out = NULL;
  ops o;
  memset(&o, 0, sizeof(o));
  o.c = s->ctx;
  o.ranges = ranges;
  o.st = lower_graph_build(s, &o.g);
  /* every leaf loop variable of every stage, for tvm_prove */
  for (int i = 0; o.st == TVM_OK && i < o.g.n; i++) {
    lower_stage *ls = &o.g.stages[i];
    if (!ls->is_compute || ls->st->attach == TVM_ATTACH_INLINE)
      continue;
    for (int l = 0; l < lower_nleaves(ls->st); l++) {
      tvm_iter_var *iv = lower_leaf(ls->st, (size_t)l);
      tvm_range *r = lower_range_of(ranges, iv);
      if (!r) {
        o.st = tvm_diag_set(TVM_ERR_INVALID,
                            "schedule_ops: axis %s of %s has no inferred "
                            "range; run tvm_infer_bound on this schedule "
                            "first",
                            iv->var->u.var.name, ls->op->name);
        break;
      }
      tvm_range *lr = lower_range_new(o.c, tvm_int(o.c, 0), r->extent);
      if (!lr || tvm_bounds_set(&o.loops, iv->var, lr) != TVM_OK)
        o.st = TVM_ERR_NOMEM;
    }
  }
  tvm_stmt *acc = NULL;
  for (int i = o.g.n - 1; o.st == TVM_OK && i >= 0; i--) {
    lower_stage *ls = &o.g.stages[i];
    if (!ls->is_compute || ls->st->attach != TVM_ATTACH_ROOT)
      continue;
    acc = stage_realize(&o, ls, acc);
  }
  for (int i = 0; o.st == TVM_OK && i < o.g.n; i++) {
    lower_stage *ls = &o.g.stages[i];
    void *v;
    if (!ls->is_compute || ls->st->attach != TVM_ATTACH_SCOPE ||
        tvm_ptrmap_get(&o.placed, ls, &v))
      continue;
    o.st = tvm_diag_set(
        TVM_ERR_INVALID,
        "schedule_ops: stage %s is computed at %s.%s, which is not a loop "
        "of the lowered nest (the stage is inlined, or the axis is inside a "
        "tensorized region); attach it to a loop of the consumer's nest",
        ls->op->name,
        ls->st->attach_stage ? ls->st->attach_stage->op->name : "?",
        ls->st->attach_ivar ? ls->st->attach_ivar->var->u.var.name : "?");
  }
  tvm_status st = o.st;
  if (st == TVM_OK)
    st = tvm_ctx_status(o.c);
  if (st == TVM_OK && !acc)
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "schedule_ops: the schedule has no stage to compute");
  lower_graph_free(&o.g);
  tvm_bounds_free(&o.loops);
  tvm_ptrmap_free(&o.placed);
  if (st == TVM_OK)
    *out = acc;
  return st;
}
