/*
 * core/lower/vectorize.c - the vectorize pass.
 *
 * A loop marked TVM_FOR_VECTORIZED with a constant extent n becomes
 * straight-line vector code of n lanes: the loop variable becomes
 * ramp(min, 1, n), expressions that depend on it are widened (vector loads
 * with ramp or gather indices, broadcast invariants, lane-wise arithmetic,
 * selects, casts and math intrinsics), and stores become vector stores.
 * Index arithmetic on ramps is folded (ramp + x, ramp * c) so contiguous
 * accesses keep a ramp index that codegen turns into one vector access.
 * Vectors are n wide even when n exceeds the target's native width
 * (o->vector_bits): LLVM legalizes wide vectors into native pieces.  But
 * where n is no power of two and exceeds that width, LLVM moves the
 * lanes of the odd remainder one by one (24 floats on AVX-512: a
 * pointwise convolution ran at 1/35 of its speed), so such a loop is cut
 * into power-of-two pieces first, largest first: 24 = 16 + 8, each piece
 * vectorized as above.
 *
 * An `if` whose condition depends on the loop variable is split into its
 * conjuncts: those that do not depend on the loop variable stay a scalar
 * `if` around the vector code (one branch per vector, no masking), and
 * only the lane-dependent rest becomes predicated code: loads and stores
 * under it whose index depends on the lane carry that (vector) condition
 * as their lane mask, and the else branch the negated condition.
 *
 * Lane-invariant expressions under a lane mask (broadcast loads, let
 * values, scalar if conditions) are evaluated once for the whole vector,
 * even when no lane is active, whereas the scalar loop evaluated them only
 * for active iterations.  A load there whose index uses a variable of the
 * lane mask may be exactly what the mask guards (a ragged tile reading
 * past the end of a buffer), so such a loop stays serial, unless the
 * mask's first lane is provably active (its condition at the first lane
 * holds over the ranges of the enclosing loops): then the scalar loop
 * evaluated the load too, in its first iteration.  A ragged last tile
 * (columns j + 32 * jo < 197, jo < 7) is such a case: its first column is
 * always in range.
 *
 * The pass never produces wrong code: when the body holds something it
 * cannot express lane-wise (an inner loop, an allocation, a let or a call
 * with side effects depending on the variable, a store whose index does
 * not depend on it, a buffer both read and written at different indices,
 * which would make the lanes depend on each other, or a guarded invariant
 * load as above), the loop stays a serial loop with its body unchanged.
 */
#include <string.h>

#include "tvm/lower.h"
#include "lower_int.h"

/* State of vectorizing one loop. */
typedef struct vec {
  tvm_ctx *c;
  tvm_expr *var, *min;
  int n;
  tvm_expr *pred; /* lane mask of the enclosing predicated ifs, or NULL */
  tvm_expr *first; /* the scalar condition of pred at the first lane */
  const tvm_bounds *loops; /* ranges of the enclosing loops' variables */
  tvm_ptrmap *full; /* the all-lanes conditions made here (see below) */
  int fail;       /* set when the body cannot be vectorized */
} vec;

static tvm_expr *widen(vec *w, tvm_expr *e);

/* Search state for guarded_load: the lane mask and whether a load whose
 * index uses one of its variables was found. */
typedef struct guard_search {
  const tvm_expr *pred, *index;
  int found;
} guard_search;

/* Visitor hook over the lane mask: does the current load index use this
 * variable of the mask? */
static int mask_var_hook(tvm_visitor *v, const tvm_expr *e) {
  guard_search *g = v->data;
  if (!g->found && e->kind == TVM_VAR && tvm_expr_uses_var(g->index, e))
    g->found = 1;
  return g->found;
}

/* Visitor hook over an invariant expression: for each load, is its index
 * built from a variable that the lane mask tests? */
static int load_hook(tvm_visitor *v, const tvm_expr *e) {
  guard_search *g = v->data;
  if (g->found) return 1;
  if (e->kind == TVM_LOAD) {
    tvm_visitor mv = {mask_var_hook, NULL, g};
    g->index = e->u.load.index;
    tvm_visit_expr(&mv, g->pred);
  }
  return g->found;
}

/* Does lane-invariant e, evaluated once per vector under lane mask
 * w->pred (so also when no lane is active), hold a load whose index uses
 * a variable of the mask?  Such a load may be what the mask guards (rows
 * past the end of a buffer in a ragged tile), so it cannot be hoisted out
 * of the mask; the caller keeps the loop serial.  Invariant loads whose
 * indices share no variable with the mask are taken as safe. */
static int guarded_load(const vec *w, const tvm_expr *e) {
  guard_search g = {w->pred, NULL, 0};
  tvm_visitor v = {load_hook, NULL, &g};
  if (!w->pred || !e) return 0;
  tvm_visit_expr(&v, e);
  if (g.found && w->first && w->loops &&
      tvm_prove(w->c, w->first, w->loops))
    return 0; /* the first lane is always active (see the file comment) */
  return g.found;
}

/* cond with the loop variable at its first lane (min). */
static tvm_expr *at_first_lane(vec *w, tvm_expr *cond) {
  tvm_ptrmap map = {0};
  tvm_expr *r = NULL;
  if (tvm_ptrmap_put(&map, w->var, w->min) == TVM_OK)
    r = tvm_substitute(w->c, cond, &map);
  tvm_ptrmap_free(&map);
  return r;
}

/* Marks the loop as not vectorizable; returns NULL for convenience. */
static tvm_expr *give_up(vec *w) {
  w->fail = 1;
  return NULL;
}

/* Is e a ramp with a constant, non-zero stride (an injective index)? */
static int is_injective_ramp(tvm_ctx *c, const tvm_expr *e) {
  int64_t lo, hi;
  return e && e->kind == TVM_RAMP &&
         tvm_const_bounds(c, e->u.ramp.stride, NULL, &lo, &hi) && lo == hi &&
         lo != 0;
}

/* a <k> b for widened integer operands, folding ramp arithmetic so that
 * affine indices stay ramps; the generic vector operation otherwise. */
static tvm_expr *widen_binary(vec *w, tvm_expr_kind k, tvm_expr *a,
                              tvm_expr *b) {
  tvm_ctx *c = w->c;
  int ra = a->kind == TVM_RAMP, rb = b->kind == TVM_RAMP;
  int sa = a->dtype.lanes == 1, sb = b->dtype.lanes == 1;
  if (tvm_dtype_is_int(tvm_dtype_element(a->dtype)) &&
      tvm_dtype_is_int(tvm_dtype_element(b->dtype))) {
    if (k == TVM_ADD || k == TVM_SUB) {
      if (ra && sb)
        return tvm_ramp(c, tvm_binary(c, k, a->u.ramp.base, b),
                        a->u.ramp.stride, w->n);
      if (sa && rb)
        return tvm_ramp(c, tvm_binary(c, k, a, b->u.ramp.base),
                        k == TVM_ADD ? b->u.ramp.stride
                                     : tvm_sub(c, tvm_const(c, b->u.ramp.stride->dtype, 0),
                                               b->u.ramp.stride),
                        w->n);
      if (ra && rb)
        return tvm_ramp(c, tvm_binary(c, k, a->u.ramp.base, b->u.ramp.base),
                        tvm_binary(c, k, a->u.ramp.stride, b->u.ramp.stride),
                        w->n);
    } else if (k == TVM_MUL) {
      if (ra && sb)
        return tvm_ramp(c, tvm_mul(c, a->u.ramp.base, b),
                        tvm_mul(c, a->u.ramp.stride, b), w->n);
      if (sa && rb)
        return tvm_ramp(c, tvm_mul(c, a, b->u.ramp.base),
                        tvm_mul(c, a, b->u.ramp.stride), w->n);
    }
  }
  return tvm_binary(c, k, a, b);
}

/* Widens a call: math intrinsics apply lane-wise; calls with effects or
 * pointer arguments cannot depend on the loop variable. */
static tvm_expr *widen_call(vec *w, tvm_expr *e) {
  tvm_intrin op = e->u.call.op;
  int nargs = e->u.call.nargs, vector = 0;
  if (op == TVM_INTRIN_EXTERN || op == TVM_INTRIN_ACCESS_PTR ||
      op == TVM_INTRIN_DEP_PUSH || op == TVM_INTRIN_DEP_POP ||
      op == TVM_INTRIN_REINTERPRET)
    return give_up(w);
  tvm_expr **args = tvm_ctx_alloc(w->c, sizeof(tvm_expr *) * (size_t)(nargs + 1));
  if (!args) return give_up(w);
  for (int i = 0; i < nargs; i++) {
    args[i] = widen(w, e->u.call.args[i]);
    if (!args[i]) return give_up(w);
    if (args[i]->dtype.lanes > 1) vector = 1;
  }
  if (!vector) return e;
  for (int i = 0; i < nargs; i++)
    if (args[i]->dtype.lanes == 1) args[i] = tvm_broadcast(w->c, args[i], w->n);
  return tvm_call(w->c, tvm_dtype_with_lanes(e->dtype, w->n), op, args, nargs);
}

/* The lane mask for a vector access: its own predicate (widened) and the
 * enclosing ifs' mask; NULL when all lanes are active. */
static tvm_expr *access_pred(vec *w, tvm_expr *own) {
  tvm_expr *p = NULL;
  if (own) {
    p = widen(w, own);
    if (!p) return NULL;
    if (p->dtype.lanes == 1) p = tvm_broadcast(w->c, p, w->n);
  }
  if (w->pred) p = p ? tvm_and(w->c, p, w->pred) : w->pred;
  return p;
}

/* The n-lane form of e, or e itself when it does not depend on the loop
 * variable.  Sets w->fail (and returns NULL) when e cannot be widened. */
static tvm_expr *widen(vec *w, tvm_expr *e) {
  tvm_ctx *c = w->c;
  if (!e || w->fail) return give_up(w);
  if (e->dtype.lanes != 1) return give_up(w); /* already a vector */
  if (!tvm_expr_uses_var(e, w->var))
    return guarded_load(w, e) ? give_up(w) : e;
  switch (e->kind) {
  case TVM_VAR: /* the loop variable itself */
    return tvm_ramp(c, w->min, tvm_const(c, e->dtype, 1), w->n);
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_DIV: case TVM_MOD:
  case TVM_FLOORDIV: case TVM_FLOORMOD: case TVM_MIN: case TVM_MAX:
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE: case TVM_AND: case TVM_OR: {
    tvm_expr *a = widen(w, e->u.bin.a), *b = widen(w, e->u.bin.b);
    if (!a || !b) return give_up(w);
    return widen_binary(w, e->kind, a, b);
  }
  case TVM_NOT: {
    tvm_expr *a = widen(w, e->u.un.a);
    return a ? tvm_not(c, a) : give_up(w);
  }
  case TVM_CAST: {
    tvm_expr *a = widen(w, e->u.un.a);
    if (!a) return give_up(w);
    return tvm_cast(c, tvm_dtype_with_lanes(e->dtype, a->dtype.lanes), a);
  }
  case TVM_SELECT: {
    tvm_expr *k = widen(w, e->u.sel.cond), *t = widen(w, e->u.sel.t),
             *f = widen(w, e->u.sel.f);
    if (!k || !t || !f) return give_up(w);
    if (k->dtype.lanes == 1) k = tvm_broadcast(c, k, w->n);
    return tvm_select(c, k, t, f);
  }
  case TVM_CALL:
    return widen_call(w, e);
  case TVM_LOAD: {
    tvm_expr *idx = widen(w, e->u.load.index);
    if (!idx) return give_up(w);
    if (idx->dtype.lanes == 1) idx = tvm_broadcast(c, idx, w->n);
    tvm_expr *p = access_pred(w, e->u.load.pred);
    if (w->fail) return NULL;
    return tvm_load(c, e->dtype, e->u.load.buffer, idx, p);
  }
  default: /* let, ramp, broadcast, tensor reads: not lane-wise here */
    return give_up(w);
  }
}

static tvm_stmt *vec_stmt(vec *w, tvm_stmt *s);

/* Appends the conjuncts of cond (an && tree, under likely() hints) to the
 * lane-invariant conjunction *inv or the lane-dependent one *lane. */
static void split_conjuncts(vec *w, tvm_expr *cond, tvm_expr **inv,
                            tvm_expr **lane) {
  tvm_ctx *c = w->c;
  if (cond->kind == TVM_AND) {
    split_conjuncts(w, cond->u.bin.a, inv, lane);
    split_conjuncts(w, cond->u.bin.b, inv, lane);
    return;
  }
  if (cond->kind == TVM_CALL && cond->u.call.op == TVM_INTRIN_LIKELY &&
      cond->u.call.nargs == 1) {
    split_conjuncts(w, cond->u.call.args[0], inv, lane);
    return;
  }
  tvm_expr **to = tvm_expr_uses_var(cond, w->var) ? lane : inv;
  *to = *to ? tvm_and(c, *to, cond) : cond;
}

/* Is e linear in the loop variable (free of it, the variable itself, sums
 * and differences of linear terms, a linear term times a free factor)? */
static int linear_in(const vec *w, const tvm_expr *e) {
  if (!tvm_expr_uses_var(e, w->var)) return 1;
  switch (e->kind) {
  case TVM_VAR: return 1;
  case TVM_ADD: case TVM_SUB:
    return linear_in(w, e->u.bin.a) && linear_in(w, e->u.bin.b);
  case TVM_MUL:
    return (linear_in(w, e->u.bin.a) &&
            !tvm_expr_uses_var(e->u.bin.b, w->var)) ||
           (linear_in(w, e->u.bin.b) &&
            !tvm_expr_uses_var(e->u.bin.a, w->var));
  default: return 0;
  }
}

/* Visitor hook: notes a load. */
static int any_load(tvm_visitor *v, const tvm_expr *e) {
  if (e->kind == TVM_LOAD) *(int *)v->data = 1;
  return *(int *)v->data;
}

/* The condition that every lane of lane-dependent conjunction `lane`
 * holds, or NULL when it cannot be stated: every conjunct an ordering
 * (<, <=, >, >=) of terms linear in the loop variable, so monotone in it,
 * and no loads; then it holds at all lanes iff at the first and the last. */
static tvm_expr *all_lanes(vec *w, tvm_expr *lane) {
  int loads = 0;
  tvm_visitor v = {any_load, NULL, &loads};
  tvm_visit_expr(&v, lane);
  if (loads) return NULL;
  tvm_expr *stack[64];
  int n = 0;
  stack[n++] = lane;
  while (n > 0) {
    tvm_expr *e = stack[--n];
    if (e->kind == TVM_AND && n + 2 <= 64) {
      stack[n++] = e->u.bin.a;
      stack[n++] = e->u.bin.b;
    } else if (!((e->kind == TVM_LT || e->kind == TVM_LE ||
                  e->kind == TVM_GT || e->kind == TVM_GE) &&
                 linear_in(w, e->u.bin.a) && linear_in(w, e->u.bin.b))) {
      return NULL;
    }
  }
  tvm_ptrmap map = {0};
  tvm_expr *last = tvm_add(w->c, w->min, tvm_const(w->c, w->min->dtype, w->n - 1));
  tvm_expr *first = at_first_lane(w, lane), *at_last = NULL;
  if (last && tvm_ptrmap_put(&map, w->var, last) == TVM_OK)
    at_last = tvm_substitute(w->c, lane, &map);
  tvm_ptrmap_free(&map);
  /* simplified, so that the conditions of one tile's loops, spelled
   * differently (k2 + 32 * jo, 32 * jo + k2), compare equal */
  return first && at_last
             ? tvm_simplify(w->c, tvm_and(w->c, first, at_last), w->loops)
             : NULL;
}

/* Vectorizes the branches of an if whose condition depends on the loop
 * variable.  The lane-invariant conjuncts of the condition stay a scalar
 * if; the lane-dependent rest predicates the branches (the then branch by
 * it, the else branch by its negation):
 *   if (inv && lane) T else E
 *   -> if (inv) { T[mask lane]; E[mask !lane] } else E */
static tvm_stmt *vec_predicated_if(vec *w, tvm_stmt *s) {
  tvm_ctx *c = w->c;
  tvm_expr *inv = NULL, *lane = NULL, *cond, *saved = w->pred;
  tvm_expr *saved_first = w->first, *first;
  tvm_stmt *t, *f = NULL, *plain_f = NULL;
  split_conjuncts(w, s->u.if_.cond, &inv, &lane);
  if (!lane || (inv && guarded_load(w, inv))) {
    w->fail = 1; /* (no lane part cannot happen: the caller checked) */
    return NULL;
  }
  cond = widen(w, lane);
  if (!cond) return NULL;
  first = at_first_lane(w, lane);
  if (!first) {
    w->fail = 1;
    return NULL;
  }
  if (cond->dtype.lanes == 1) cond = tvm_broadcast(c, cond, w->n);
  w->pred = saved ? tvm_and(c, saved, cond) : cond;
  w->first = saved_first ? tvm_and(c, saved_first, first) : first;
  t = vec_stmt(w, s->u.if_.then_);
  if (s->u.if_.else_) {
    tvm_expr *nc = tvm_not(c, cond), *nf = tvm_not(c, first);
    w->pred = saved ? tvm_and(c, saved, nc) : nc;
    w->first = saved_first ? tvm_and(c, saved_first, nf) : nf;
    f = vec_stmt(w, s->u.if_.else_);
    w->pred = saved;
    w->first = saved_first;
    if (inv) plain_f = vec_stmt(w, s->u.if_.else_);
  }
  w->pred = saved;
  w->first = saved_first;
  if (w->fail || !t || (s->u.if_.else_ && (!f || (inv && !plain_f))))
    return NULL;
  tvm_stmt *body = f ? tvm_seq2(c, t, f) : t;
  /* a full tile (every lane active) needs no mask: versioned below */
  tvm_expr *all = w->full ? all_lanes(w, lane) : NULL;
  int64_t known;
  if (all && tvm_is_const_int(all, &known) && !known) all = NULL;
  if (all) {
    tvm_stmt *full_t = vec_stmt(w, s->u.if_.then_);
    if (w->fail) return NULL;
    if (full_t && tvm_is_const_int(all, &known))
      body = full_t; /* every lane is always active */
    else if (full_t && tvm_ptrmap_put(w->full, all, (void *)1) == TVM_OK)
      body = tvm_if(c, all, full_t, body);
  }
  return inv ? tvm_if(c, inv, body, plain_f) : body;
}

/* The vector form of statement s, or NULL with w->fail set. */
static tvm_stmt *vec_stmt(vec *w, tvm_stmt *s) {
  tvm_ctx *c = w->c;
  if (!s || w->fail) return NULL;
  switch (s->kind) {
  case TVM_SEQ: {
    tvm_stmt **v = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)(s->u.seq.n + 1));
    if (!v) break;
    for (int i = 0; i < s->u.seq.n; i++)
      if (!(v[i] = vec_stmt(w, s->u.seq.stmts[i]))) return NULL;
    return tvm_seq(c, v, s->u.seq.n);
  }
  case TVM_STORE: {
    tvm_expr *idx = widen(w, s->u.store.index);
    tvm_expr *val = widen(w, s->u.store.value);
    if (!idx || !val) break;
    /* A store at one address from every lane (a reduction, or a store
     * repeated n times) has no lane-wise form. */
    if (idx->dtype.lanes == 1) break;
    if (val->dtype.lanes == 1) val = tvm_broadcast(c, val, w->n);
    tvm_expr *p = access_pred(w, s->u.store.pred);
    if (w->fail) return NULL;
    return tvm_store(c, s->u.store.buffer, idx, val, p);
  }
  case TVM_LET_STMT: {
    if (tvm_expr_uses_var(s->u.let.value, w->var) ||
        guarded_load(w, s->u.let.value))
      break;
    tvm_stmt *b = vec_stmt(w, s->u.let.body);
    return b ? tvm_let_stmt(c, s->u.let.var, s->u.let.value, b) : NULL;
  }
  case TVM_IF: {
    if (tvm_expr_uses_var(s->u.if_.cond, w->var))
      return vec_predicated_if(w, s);
    if (guarded_load(w, s->u.if_.cond)) break;
    tvm_stmt *t = vec_stmt(w, s->u.if_.then_), *f = NULL;
    if (s->u.if_.else_) f = vec_stmt(w, s->u.if_.else_);
    if (!t || (s->u.if_.else_ && !f)) return NULL;
    return tvm_if(c, s->u.if_.cond, t, f);
  }
  case TVM_ATTR: {
    if (s->u.attr.value && (tvm_expr_uses_var(s->u.attr.value, w->var) ||
                            guarded_load(w, s->u.attr.value)))
      break;
    tvm_stmt *b = vec_stmt(w, s->u.attr.body);
    return b ? tvm_attr(c, s->u.attr.key, s->u.attr.node, s->u.attr.value, b)
             : NULL;
  }
  case TVM_EVALUATE: {
    int64_t v;
    if (tvm_is_const_int(s->u.eval.value, &v)) return s; /* a no-op */
    break;
  }
  default: /* loops, allocations, barriers, asserts: keep the loop */
    break;
  }
  w->fail = 1;
  return NULL;
}

/* One access to a buffer inside the loop body. */
typedef struct access {
  tvm_expr *buffer, *index;
  int is_store;
} access;

/* Collects every load and store of the body into a heap array. */
typedef struct access_list {
  access *a;
  size_t n, cap;
  int oom;
} access_list;

/* Appends one access; sets oom when the array cannot grow. */
static void add_access(access_list *l, tvm_expr *b, tvm_expr *i, int st) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    access *na = tvm_realloc(l->a, cap * sizeof *na);
    if (!na) {
      l->oom = 1;
      return;
    }
    l->a = na;
    l->cap = cap;
  }
  l->a[l->n++] = (access){b, i, st};
}

/* Visitor hook: records loads. */
static int collect_expr(tvm_visitor *v, const tvm_expr *e) {
  if (e->kind == TVM_LOAD)
    add_access(v->data, e->u.load.buffer, e->u.load.index, 0);
  return 0;
}

/* Visitor hook: records stores. */
static int collect_stmt(tvm_visitor *v, const tvm_stmt *s) {
  if (s->kind == TVM_STORE)
    add_access(v->data, s->u.store.buffer, s->u.store.index, 1);
  return 0;
}

/* Do the lanes of the loop carry no dependence through memory?  Every
 * buffer stored to must be accessed at one index only, and that index
 * must be injective across lanes (a ramp with a non-zero stride). */
static int lanes_independent(vec *w, tvm_stmt *body) {
  access_list l = {0};
  tvm_visitor v = {collect_expr, collect_stmt, &l};
  int ok = 1;
  tvm_visit_stmt(&v, body);
  if (l.oom) ok = 0;
  for (size_t i = 0; ok && i < l.n; i++) {
    if (!l.a[i].is_store) continue;
    tvm_expr *wi = widen(w, l.a[i].index);
    if (!is_injective_ramp(w->c, wi)) ok = 0;
    for (size_t j = 0; ok && j < l.n; j++)
      if (l.a[j].buffer == l.a[i].buffer &&
          !tvm_expr_equal(l.a[j].index, l.a[i].index))
        ok = 0;
  }
  tvm_free(l.a);
  w->fail = 0;
  return ok;
}

/* The pass's state: loop ranges and the all-lanes conditions made. */
typedef struct vec_pass {
  tvm_bounds loops;
  tvm_ptrmap full;
  int vector_bits; /* the target's native width */
} vec_pass;

/* Visitor hook: the widest element (bits) a store of the body writes. */
static int store_bits_hook(tvm_visitor *v, const tvm_stmt *s) {
  int *bits = v->data;
  if (s->kind == TVM_STORE && s->u.store.value->dtype.bits > *bits)
    *bits = s->u.store.value->dtype.bits;
  return 0;
}

/* Whether a vector loop of n lanes over body is cut into pieces of powers
 * of two: n is no power of two and spans more than one native vector of
 * the widest element the body stores.  LLVM legalizes such a vector (24
 * floats with AVX-512's 16 lanes) by moving its lanes one by one; a
 * 16-lane and an 8-lane piece are two native operations. */
static int cut_in_pieces(const vec_pass *vp, int64_t n, tvm_stmt *body) {
  int bits = 0;
  tvm_visitor v = {NULL, store_bits_hook, &bits};
  if (n < 2 || (n & (n - 1)) == 0 || vp->vector_bits <= 0) return 0;
  tvm_visit_stmt(&v, body);
  return bits > 0 && n * bits > vp->vector_bits;
}

/* body with var replaced by value, or NULL when out of memory. */
static tvm_stmt *with_value(tvm_ctx *c, tvm_stmt *body, tvm_expr *var,
                            tvm_expr *value) {
  tvm_ptrmap map = {0};
  tvm_stmt *r = NULL;
  if (value && tvm_ptrmap_put(&map, var, value) == TVM_OK)
    r = tvm_substitute_stmt(c, body, &map);
  tvm_ptrmap_free(&map);
  return r;
}

/* The loop var in [min, min + n) over body (its inner loops already
 * vectorized) as vector code: one vector of n lanes, or pieces of powers
 * of two, largest first (cut_in_pieces), or, where the lanes are not
 * independent, the serial loop. */
static tvm_stmt *vector_loop(tvm_mutator *m, tvm_expr *var, tvm_expr *min,
                             int64_t n, tvm_stmt *body) {
  tvm_ctx *c = m->ctx;
  vec_pass *vp = m->data;
  if (n == 1) return with_value(c, body, var, min);
  if (cut_in_pieces(vp, n, body)) {
    /* lanes [min, min + p) as they are, the rest [min + p, min + n) as
     * a loop of its own variable shifted by p */
    int64_t p = 1;
    while (p * 2 < n) p *= 2;
    tvm_expr *rest = tvm_var(c, var->u.var.name, var->dtype);
    tvm_range r = {min, tvm_const(c, var->dtype, n - p)};
    tvm_stmt *tail = NULL, *head;
    if (rest && r.extent && tvm_bounds_set(&vp->loops, rest, &r) == TVM_OK)
      tail = with_value(c, body, var,
                        tvm_add(c, rest, tvm_const(c, var->dtype, p)));
    if (!tail) return NULL;
    head = vector_loop(m, var, min, p, body);
    tail = head ? vector_loop(m, rest, min, n - p, tail) : NULL;
    return head && tail ? tvm_seq2(c, head, tail) : NULL;
  }
  vec w = {c, var, min, (int)n, NULL, NULL, &vp->loops, &vp->full, 0};
  if (lanes_independent(&w, body)) {
    tvm_stmt *r = vec_stmt(&w, body);
    if (r && !w.fail) return r;
    if (c->failed) return NULL;
  }
  return tvm_for(c, var, min, tvm_const(c, var->dtype, n),
                 TVM_FOR_SERIAL, NULL, body);
}

/* Mutator hook: vectorizes loops bottom-up (inner loops first); records
 * the range of every loop on the way down (m->data: tvm_bounds). */
static tvm_stmt *vectorize_stmt(tvm_mutator *m, tvm_stmt *s) {
  tvm_ctx *c = m->ctx;
  vec_pass *vp = m->data;
  tvm_bounds *loops = &vp->loops;
  int64_t n;
  if (s->kind == TVM_FOR && s->u.for_.var->dtype.lanes == 1) {
    tvm_range r = {s->u.for_.min, s->u.for_.extent};
    if (tvm_bounds_set(loops, s->u.for_.var, &r) != TVM_OK) return NULL;
  }
  if (s->kind != TVM_FOR || s->u.for_.for_kind != TVM_FOR_VECTORIZED)
    return NULL;
  tvm_stmt *body = tvm_mutate_stmt(m, s->u.for_.body);
  if (!body) return NULL;
  if (tvm_is_const_int(s->u.for_.extent, &n) && n >= 1 && n <= 65535 &&
      s->u.for_.min->dtype.lanes == 1)
    return vector_loop(m, s->u.for_.var, s->u.for_.min, n, body);
  return tvm_for(c, s->u.for_.var, s->u.for_.min, s->u.for_.extent,
                 TVM_FOR_SERIAL, NULL, body);
}

/* ---- versioning full tiles ------------------------------------------------
 * A predicated if whose lane condition is monotone in the lane became
 *   if (all lanes active) <unmasked vector code> else <masked vector code>
 * with the all-lanes condition recorded in vec_pass.full.  Inside a loop
 * that branch is taken or not for the whole loop, and a masked access to
 * a local block keeps LLVM from holding the block in registers even on
 * the unmasked path: the branch is hoisted, as far out as its condition
 * allows, to the outermost allocation or loop that binds none of its
 * variables, which is copied into a version for full tiles (every such
 * branch taken) and one for the others (every such branch not taken).
 * A ragged last tile then costs only its own masked copy.  At most
 * VERSIONS_PER_FUNC conditions are hoisted per function (each doubles the
 * code below it).  Only on targets that run the function as it is (no
 * thread axes, no accelerator queues: tvm_lower_is_device), and never
 * over a statement holding an allocation of another scope than local or
 * global, an attribute or a barrier: a copy of those is not free (shared
 * memory, queue tokens, barriers under a divergent branch). */
#define VERSIONS_PER_FUNC 2

typedef struct versioner {
  tvm_ptrmap *full;
  int budget;
} versioner;

/* Search for a recorded all-lanes condition that uses no bound variable. */
typedef struct full_search {
  versioner *ver;
  tvm_ptrmap *bound;
  tvm_expr *found;
} full_search;

/* Visitor hook over a variable of a candidate condition: bound here? */
static int bound_var_hook(tvm_visitor *v, const tvm_expr *e) {
  int *hit = ((void **)v->data)[1];
  if (e->kind == TVM_VAR &&
      tvm_ptrmap_get(((void **)v->data)[0], e, NULL))
    *hit = 1;
  return *hit;
}

static int find_full_hook(tvm_visitor *v, const tvm_stmt *s) {
  full_search *fs = v->data;
  if (fs->found || s->kind != TVM_IF ||
      !tvm_ptrmap_get(fs->ver->full, s->u.if_.cond, NULL))
    return fs->found != NULL;
  int hit = 0;
  void *args[2] = {fs->bound, &hit};
  tvm_visitor bv = {bound_var_hook, NULL, args};
  tvm_visit_expr(&bv, s->u.if_.cond);
  if (!hit) fs->found = s->u.if_.cond;
  return fs->found != NULL;
}

/* Specialization: recorded ifs on a condition equal to cond become their
 * then (taken) or else branch. */
typedef struct specializer {
  versioner *ver;
  const tvm_expr *cond;
  int taken;
} specializer;

static tvm_stmt *specialize_hook(tvm_mutator *m, tvm_stmt *s) {
  specializer *sp = m->data;
  if (s->kind != TVM_IF || !tvm_ptrmap_get(sp->ver->full, s->u.if_.cond, NULL) ||
      !tvm_expr_equal(s->u.if_.cond, sp->cond))
    return NULL;
  tvm_stmt *b = sp->taken ? s->u.if_.then_ : s->u.if_.else_;
  return tvm_mutate_stmt(m, b);
}

/* Mutator hook: versions an allocation or a loop on the first recorded
 * condition under it that it does not bind (top-down: the outermost
 * such statement). */
static tvm_stmt *version_stmt(tvm_mutator *m, tvm_stmt *s) {
  versioner *ver = m->data;
  if (ver->budget <= 0 || (s->kind != TVM_ALLOCATE && s->kind != TVM_FOR))
    return NULL;
  lower_binds scan;
  lower_binds_scan(&scan, s);
  full_search fs = {ver, &scan.bound, NULL};
  tvm_visitor fv = {NULL, find_full_hook, &fs};
  if (!scan.fixed) tvm_visit_stmt(&fv, s);
  tvm_ptrmap_free(&scan.bound);
  if (!fs.found) return NULL;
  ver->budget--;
  specializer yes = {ver, fs.found, 1}, no = {ver, fs.found, 0};
  tvm_mutator my = {m->ctx, NULL, specialize_hook, &yes};
  tvm_mutator mn = {m->ctx, NULL, specialize_hook, &no};
  tvm_stmt *t = tvm_mutate_stmt(&my, s), *e = tvm_mutate_stmt(&mn, s);
  if (!t || !e) return NULL;
  t = tvm_mutate_stmt_children(m, t); /* further conditions, if any */
  e = tvm_mutate_stmt_children(m, e);
  if (!t || !e) return NULL;
  return tvm_if(m->ctx, fs.found, t, e);
}

/* Vectorizes the loops of f marked TVM_FOR_VECTORIZED (see the file
 * comment).  *out is a copy of f in ctx c with the new body. */
tvm_status tvm_pass_vectorize(tvm_ctx *c, tvm_func *f,
                              const tvm_lower_options *o, tvm_func **out) {
  vec_pass vp = {{{0}}, {0}, o ? o->vector_bits : 0};
  tvm_mutator m = {c, NULL, vectorize_stmt, &vp};
  if (!f || !o || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "vectorize: NULL argument");
  tvm_stmt *body = tvm_mutate_stmt(&m, f->body);
  if (body && vp.full.len > 0 && !tvm_lower_is_device(o)) {
    versioner ver = {&vp.full, VERSIONS_PER_FUNC};
    tvm_mutator vm = {c, NULL, version_stmt, &ver};
    body = tvm_mutate_stmt(&vm, body);
  }
  tvm_bounds_free(&vp.loops);
  tvm_ptrmap_free(&vp.full);
  return lower_with_body(c, f, body, "vectorize", out);
}
