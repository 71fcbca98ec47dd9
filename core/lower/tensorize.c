/*
 * core/lower/tensorize.c - replaces a loop nest by a tensor intrinsic.
 *
 * At the leaf axis marked with tensorize(), the loops from there inward
 * must compute the intrinsic's pattern.  The region each root axis covers
 * under those loops is inferred (outer loops fixed, inner ones relaxed).
 * The pattern's data axes map to the stage's LAST data axes (same for
 * reduce axes); every other axis must cover one point, and mapped axes
 * must cover exactly the pattern's extent.  The stage's body, with each
 * mapped root variable replaced by (region min + pattern variable), must
 * then equal the pattern's body, where a read X[...] of the stage
 * corresponds to a read Y[...] of a pattern input when the trailing
 * indices of X, minus the start of the region read, equal Y's indices.
 * Each pattern input and the output are then bound to a buffer view of the
 * region (data, elem_offset and strides are placeholder variables that
 * storage_flatten replaces through `attr buffer_bind_scope`), and the
 * intrinsic's emit callback makes the statements.
 */
#include <string.h>

#include "lower_int.h"

typedef struct tmatch {
  tvm_ctx *c;
  tvm_ptrvec pvars; /* pattern variables (zeroed to find a start) */
  tvm_ptrvec xs;    /* stage tensors matched, parallel to ys */
  tvm_ptrvec ys;    /* pattern tensors */
  tvm_ptrvec begins; /* tvm_expr** region start of xs[i] */
  const char *why;  /* first mismatch */
} tmatch;

/* Records the first reason the bodies differ; returns 0 (no match). */
static int mismatch(tmatch *t, const char *why) {
  if (!t->why)
    t->why = why;
  return 0;
}

/* e with all pattern variables set to 0, simplified. */
static tvm_expr *at_zero(tmatch *t, tvm_expr *e) {
  tvm_ptrmap z = {0};
  for (size_t i = 0; i < t->pvars.len; i++)
    tvm_ptrmap_put(&z, t->pvars.data[i], tvm_int(t->c, 0));
  tvm_expr *r = tvm_simplify(t->c, tvm_substitute(t->c, e, &z), NULL);
  tvm_ptrmap_free(&z);
  return r;
}

static int match(tmatch *t, tvm_expr *a, tvm_expr *b);

/* A read of the stage against a read of a pattern input. */
static int match_read(tmatch *t, tvm_expr *a, tvm_expr *b) {
  tvm_tensor *x = a->u.tread.tensor, *y = b->u.tread.tensor;
  int nx = a->u.tread.n, ny = b->u.tread.n;
  if (ny > nx)
    return mismatch(t, "a pattern input has more dimensions than the tensor "
                       "read in its place");
  if (!tvm_dtype_eq(x->dtype, y->dtype))
    return mismatch(t, "a tensor read has another type than the pattern "
                       "input in its place");
  tvm_expr **begin = NULL;
  size_t k;
  for (k = 0; k < t->ys.len; k++)
    if (t->ys.data[k] == y)
      break;
  if (k < t->ys.len) {
    if (t->xs.data[k] != x)
      return mismatch(t, "one pattern input corresponds to two tensors");
    begin = t->begins.data[k];
  }
  tvm_expr **nb = tvm_ctx_alloc(t->c, sizeof(tvm_expr *) * (size_t)(nx + 1));
  if (!nb)
    return 0;
  for (int d = 0; d < nx; d++) {
    nb[d] = at_zero(t, a->u.tread.indices[d]);
    if (begin && !tvm_expr_equal(begin[d], nb[d]))
      return mismatch(t, "a tensor is read at two different regions");
    if (d < nx - ny) {
      if (!tvm_expr_equal(nb[d], tvm_simplify(t->c, a->u.tread.indices[d], NULL)))
        return mismatch(t, "a leading index of a read moves with the "
                           "tensorized loops");
      continue;
    }
    tvm_expr *off = tvm_simplify(
        t->c, tvm_sub(t->c, a->u.tread.indices[d], nb[d]), NULL);
    tvm_expr *want = tvm_simplify(t->c, b->u.tread.indices[d - (nx - ny)], NULL);
    if (!off || !want || !tvm_expr_equal(off, want))
      return mismatch(t, "the indices of a read do not follow the pattern's");
  }
  if (!begin) {
    for (size_t j = 0; j < t->xs.len; j++)
      if (t->xs.data[j] == x)
        return mismatch(t, "one tensor corresponds to two pattern inputs");
    if (tvm_ptrvec_push(&t->xs, x) != TVM_OK ||
        tvm_ptrvec_push(&t->ys, y) != TVM_OK ||
        tvm_ptrvec_push(&t->begins, nb) != TVM_OK)
      return 0;
  }
  return 1;
}

/* Structural comparison of a stage expression with a pattern one. */
static int match(tmatch *t, tvm_expr *a, tvm_expr *b) {
  if (!a || !b)
    return a == b ? 1 : mismatch(t, "an operand is missing");
  if (b->kind == TVM_TREAD) {
    if (a->kind != TVM_TREAD)
      return mismatch(t, "the pattern reads a tensor where the stage "
                         "computes something else");
    return match_read(t, a, b);
  }
  if (a->kind != b->kind || !tvm_dtype_eq(a->dtype, b->dtype))
    return mismatch(t, "the operations differ");
  switch (a->kind) {
  case TVM_INT:
    return a->u.ival == b->u.ival ? 1 : mismatch(t, "constants differ");
  case TVM_FLOAT:
    return a->u.fval == b->u.fval ? 1 : mismatch(t, "constants differ");
  case TVM_STR:
    return strcmp(a->u.str, b->u.str) == 0 ? 1 : mismatch(t, "strings differ");
  case TVM_VAR:
    return a == b ? 1 : mismatch(t, "variables differ");
  case TVM_NOT:
  case TVM_CAST:
    return match(t, a->u.un.a, b->u.un.a);
  case TVM_SELECT:
    return match(t, a->u.sel.cond, b->u.sel.cond) &&
           match(t, a->u.sel.t, b->u.sel.t) && match(t, a->u.sel.f, b->u.sel.f);
  case TVM_CALL:
    if (a->u.call.op != b->u.call.op || a->u.call.nargs != b->u.call.nargs ||
        (a->u.call.op == TVM_INTRIN_EXTERN &&
         strcmp(a->u.call.name, b->u.call.name) != 0))
      return mismatch(t, "calls differ");
    for (int i = 0; i < a->u.call.nargs; i++)
      if (!match(t, a->u.call.args[i], b->u.call.args[i]))
        return 0;
    return 1;
  default:
    if (a->kind >= TVM_ADD && a->kind <= TVM_OR)
      return match(t, a->u.bin.a, b->u.bin.a) && match(t, a->u.bin.b, b->u.bin.b);
    return mismatch(t, "an expression kind tensorize cannot compare");
  }
}

/* A buffer view of `tensor` for the intrinsic's tensor `like` (shape and
 * type), with placeholder data/offset/strides, and its binding. */
static tvm_buffer *view(tvm_ctx *c, lower_graph *g, tvm_tensor *like,
                        tvm_tensor *tensor, tvm_expr **begin, int n,
                        tvm_ptrvec *binds) {
  lower_stage *ps = lower_graph_stage_of(g, tensor);
  const char *scope = ps && ps->st->scope ? ps->st->scope : "global";
  tvm_buffer *b = tvm_buffer_new(c, tensor->name, like->dtype, like->shape,
                                 like->ndim, scope);
  lower_bind *lb = tvm_ctx_alloc(c, sizeof(*lb));
  tvm_expr **strides = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(like->ndim + 1));
  if (!b || !lb || !strides)
    return NULL;
  for (int d = 0; d < like->ndim; d++) {
    strides[d] = tvm_var(c, tvm_arena_printf(c->arena, "%s.stride%d",
                                             tensor->name, d), TVM_I32);
    if (!strides[d])
      return NULL;
  }
  b->strides = strides;
  b->elem_offset = tvm_var(c, tvm_arena_printf(c->arena, "%s.elem_offset",
                                               tensor->name), TVM_I32);
  lb->buf = b;
  lb->tensor = tensor;
  lb->begin = begin;
  lb->n = n;
  if (!b->elem_offset || tvm_ptrvec_push(binds, lb) != TVM_OK)
    return NULL;
  return b;
}

/* Wraps s in the bindings of the views it uses. */
static tvm_stmt *bind_views(tvm_ctx *c, tvm_stmt *s, const tvm_ptrvec *binds) {
  if (!s)
    return NULL;
  for (size_t i = binds->len; i-- > 0;) {
    lower_bind *lb = binds->data[i];
    if (!tvm_stmt_uses_var(s, lb->buf->data))
      continue;
    /* the value shows the view and where its region starts */
    tvm_expr **args = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(lb->n + 1));
    if (!args)
      return NULL;
    args[0] = lb->buf->data;
    for (int d = 0; d < lb->n; d++)
      args[d + 1] = lb->begin[d];
    s = tvm_attr(c, LOWER_ATTR_BUFFER_BIND_SCOPE, lb,
                 tvm_call_extern(c, TVM_I32, "tvm_tuple", args, lb->n + 1), s);
  }
  return s;
}

/* See lower_int.h. */
tvm_status lower_tensorize(lower_graph *g, lower_stage *ls,
                           const tvm_ptrmap *ranges, const tvm_ptrmap *values,
                           int level, tvm_stmt **body, tvm_stmt **reset,
                           tvm_stmt **update) {
  tvm_ctx *c = g->c;
  const tvm_stage *st = ls->st;
  tvm_iter_var *at = lower_leaf(st, (size_t)level);
  tvm_tensor_intrin *ti = lower_iv_attr(st, at)->tensorize;
  tvm_operation *pop = ti->pattern ? ti->pattern->op : NULL;
  const char *name = ti->name ? ti->name : "?";
  *body = *reset = *update = NULL;
  if (!pop || pop->kind != TVM_OP_COMPUTE || !ti->emit)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tensorize %s at %s.%s: the intrinsic needs a compute "
                        "pattern and an emit callback",
                        name, ls->op->name, at->var->u.var.name);
  tmatch t;
  memset(&t, 0, sizeof(t));
  t.c = c;
  tvm_bounds inner = {0}, outer = {0};
  tvm_ptrmap map = {0};
  tvm_ptrvec binds = {0};
  tvm_status s = TVM_OK;
  const char *why = NULL;
  tvm_expr **obegin = NULL;
  for (int l = 0; s == TVM_OK && l < lower_nleaves(st); l++) {
    tvm_iter_var *iv = lower_leaf(st, (size_t)l);
    tvm_range *r = lower_range_of(ranges, iv);
    tvm_range *lr = r ? lower_range_new(c, tvm_int(c, 0), r->extent) : NULL;
    s = lr ? tvm_bounds_set(l >= level ? &inner : &outer, iv->var, lr)
           : TVM_ERR_INTERNAL;
  }
  int pis_reduce = pop->body && pop->body->kind == TVM_REDUCE;
  int nred = ls->nroots - ls->ndata;
  if (s == TVM_OK && (pis_reduce != ls->is_reduce ||
                      pop->naxis > ls->ndata || pop->nreduce > nred))
    why = "the pattern has another number of data or reduce axes";
  if (s == TVM_OK && !why && pis_reduce && pop->body->u.reduce.op != ls->rop)
    why = "the reductions differ";
  obegin = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(ls->ndata + 1));
  if (!obegin)
    s = TVM_ERR_NOMEM;
  /* map the stage's root axes to the pattern's */
  for (int r = 0; s == TVM_OK && !why && r < ls->nroots; r++) {
    tvm_iter_var *iv = ls->roots[r];
    void *v = NULL;
    tvm_ptrmap_get(values, iv, &v);
    tvm_range rr = tvm_eval_range(c, v, &inner);
    int64_t ext = -1;
    if (!rr.min || !rr.extent || !tvm_is_const_int(rr.extent, &ext)) {
      why = "a region of the tensorized loops is not constant";
      break;
    }
    tvm_iter_var *pv = NULL;
    if (r < ls->ndata) {
      int j = r - (ls->ndata - pop->naxis);
      if (j >= 0)
        pv = pop->axis[j];
      obegin[r] = rr.min;
    } else {
      int j = (r - ls->ndata) - (nred - pop->nreduce);
      if (j >= 0)
        pv = pop->reduce_axis[j];
    }
    int64_t pext = 1;
    if (pv && !tvm_is_const_int(pv->dom.extent, &pext))
      pext = -1;
    if (ext != pext) {
      why = tvm_arena_printf(c->arena,
                             "axis %s covers %lld points under the tensorized "
                             "loops but the pattern wants %lld",
                             iv->var->u.var.name, (long long)ext,
                             (long long)pext);
      break;
    }
    /* a split that does not divide would run the intrinsic past the end */
    tvm_range *own = lower_range_of(ranges, iv);
    int64_t o0, oe;
    if (own && tvm_is_const_int(own->min, &o0) &&
        tvm_is_const_int(own->extent, &oe) &&
        !tvm_prove(c, tvm_le(c, tvm_add(c, rr.min, rr.extent),
                             tvm_int(c, o0 + oe)),
                   &outer)) {
      why = tvm_arena_printf(c->arena,
                             "the region of axis %s may run past its end "
                             "(%lld); use split factors that divide it",
                             iv->var->u.var.name, (long long)(o0 + oe));
      break;
    }
    tvm_expr *nv = pv ? tvm_add(c, rr.min, pv->var) : rr.min;
    if (pv)
      s = tvm_ptrvec_push(&t.pvars, pv->var);
    if (s == TVM_OK)
      s = tvm_ptrmap_put(&map, iv->var, nv);
  }
  if (s == TVM_OK && !why) {
    tvm_expr *a = tvm_substitute(c, ls->value, &map);
    tvm_expr *b = pis_reduce ? pop->body->u.reduce.source : pop->body;
    if (!match(&t, a, b))
      why = t.why ? t.why : "out of memory";
  }
  /* views: inputs in the pattern's input order, then the output */
  tvm_ptrvec pin = {0};
  tvm_buffer **ins = NULL, *outb = NULL;
  if (s == TVM_OK && !why) {
    s = tvm_op_inputs(pop, &pin);
    ins = tvm_ctx_alloc(c, sizeof(tvm_buffer *) * (pin.len + 1));
    if (s == TVM_OK && !ins)
      s = TVM_ERR_NOMEM;
    for (size_t i = 0; s == TVM_OK && !why && i < pin.len; i++) {
      size_t k;
      for (k = 0; k < t.ys.len; k++)
        if (t.ys.data[k] == pin.data[i])
          break;
      if (k == t.ys.len) {
        why = "a pattern input is not read by the stage";
        break;
      }
      tvm_tensor *x = t.xs.data[k];
      ins[i] = view(c, g, pin.data[i], x, t.begins.data[k], x->ndim, &binds);
      if (!ins[i])
        s = tvm_ctx_status(c) ? tvm_ctx_status(c) : TVM_ERR_NOMEM;
    }
    if (s == TVM_OK && !why) {
      outb = view(c, g, pop->output, ls->out, obegin, ls->ndata, &binds);
      if (!outb)
        s = tvm_ctx_status(c) ? tvm_ctx_status(c) : TVM_ERR_NOMEM;
    }
  }
  if (s == TVM_OK && !why) {
    s = ti->emit(c, ti, ins, (int)pin.len, outb, body, reset, update);
    if (s != TVM_OK)
      s = tvm_diag_prefix(s, "tensorize %s at %s.%s: ", name, ls->op->name,
                          at->var->u.var.name);
    else if (!*body)
      s = tvm_diag_set(TVM_ERR_INVALID,
                       "tensorize %s: emit returned no body statement", name);
    else {
      *body = bind_views(c, *body, &binds);
      *reset = bind_views(c, *reset, &binds);
      *update = bind_views(c, *update, &binds);
    }
  }
  tvm_ptrvec_free(&pin);
  tvm_bounds_free(&inner);
  tvm_bounds_free(&outer);
  tvm_ptrmap_free(&map);
  tvm_ptrvec_free(&t.pvars);
  tvm_ptrvec_free(&t.xs);
  tvm_ptrvec_free(&t.ys);
  tvm_ptrvec_free(&t.begins);
  tvm_ptrvec_free(&binds);
  if (s == TVM_OK && why)
    s = tvm_diag_set(TVM_ERR_INVALID,
                     "tensorize %s at %s.%s: the loops from this axis inward "
                     "do not compute the intrinsic's pattern %s: %s; split "
                     "and reorder so that the innermost loops match the "
                     "pattern's axes",
                     name, ls->op->name, at->var->u.var.name,
                     pop && pop->name ? pop->name : "?", why);
  return s == TVM_OK ? tvm_ctx_status(c) : s;
}
