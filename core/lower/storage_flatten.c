/*
 * core/lower/storage_flatten.c - multi-dimensional tensors become flat
 * buffers.
 *
 *   realize T(region) "scope" { ... }  ->  allocate T[elements] "scope"
 *   T(i, j) = v  (provide)             ->  T[flat(i, j)] = v      (store)
 *   T(i, j)      (tread)               ->  T[flat(i, j)]          (load)
 *
 * flat() is row-major over the realized region: the region's min is
 * subtracted from each index and the strides are those of the region's
 * extents, except where storage_align pads the stride of a dimension
 * (stride rounded up until stride % factor == offset).  Tensors bound to
 * the function's parameters by `attr [T] buffer_bind = data_var` (made by
 * tvm_lower) use their parameter buffer instead of an allocation; their
 * realize disappears.  The `produce` markers of schedule_ops become
 * `attr [buffer var] coproc_scope = queue` around a nest that fills a
 * scope belonging to a hardware queue (tvm_scope_info.queue >= 0) and
 * disappear otherwise.  Tensor intrinsic views (buffer_bind_scope) get the
 * real buffer variable, offset and strides of their tensor.
 */
#include <string.h>

#include "lower_int.h"

/* How one tensor is stored. */
typedef struct tbuf {
  tvm_expr *data; /* handle variable */
  tvm_dtype dtype;
  int n;
  tvm_expr **mins;    /* subtracted from indices (NULL = 0) */
  tvm_expr **strides; /* in elements */
  const char *scope;
} tbuf;

typedef struct align_info {
  int dim, factor, offset;
  struct align_info *next;
} align_info;

typedef struct flat {
  tvm_ctx *c;
  const tvm_lower_options *o;
  tvm_func *f;
  tvm_ptrmap bufs;   /* tvm_tensor* -> tbuf* */
  tvm_ptrmap aligns; /* tvm_tensor* -> align_info* */
  tvm_status st;
} flat;

/* Records the first failure of the pass. */
static void set_fail(flat *fl, tvm_status st) {
  if (fl->st == TVM_OK)
    fl->st = st;
}

/* How t is stored here, or NULL (not realized or bound). */
static tbuf *find_buf(flat *fl, const tvm_tensor *t) {
  void *v = NULL;
  if (tvm_ptrmap_get(&fl->bufs, t, &v))
    return v;
  return NULL;
}

/* Compact row-major strides of shape (arena). */
static tvm_expr **row_major(tvm_ctx *c, tvm_expr **shape, int n) {
  tvm_expr **s = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(n + 1));
  if (!s)
    return NULL;
  tvm_expr *stride = tvm_int(c, 1);
  for (int d = n - 1; d >= 0; d--) {
    s[d] = stride;
    stride = tvm_simplify(c, tvm_mul(c, stride, shape[d]), NULL);
  }
  return s;
}

/* The flat element index of indices in b. */
static tvm_expr *flat_index(flat *fl, const tbuf *b, tvm_expr **idx, int n) {
  tvm_ctx *c = fl->c;
  if (n != b->n) {
    set_fail(fl, tvm_diag_set(TVM_ERR_INVALID,
                              "storage_flatten: a %d-dimensional buffer is "
                              "indexed with %d indices",
                              b->n, n));
    return NULL;
  }
  tvm_expr *acc = tvm_int(c, 0);
  for (int d = 0; d < n; d++) {
    tvm_expr *i = idx[d];
    if (b->mins && b->mins[d] && !tvm_is_zero(b->mins[d]))
      i = tvm_sub(c, i, b->mins[d]);
    acc = tvm_add(c, acc, tvm_is_one(b->strides[d]) ? i
                                                   : tvm_mul(c, i, b->strides[d]));
  }
  return tvm_simplify(c, acc, NULL);
}

/* Expression hook: tensor reads become loads. */
static tvm_expr *expr_hook(tvm_mutator *m, tvm_expr *e) {
  if (e->kind != TVM_TREAD)
    return NULL;
  flat *fl = m->data;
  tvm_expr *r = tvm_mutate_expr_children(m, e);
  if (!r)
    return NULL;
  tbuf *b = find_buf(fl, r->u.tread.tensor);
  if (!b) {
    set_fail(fl, tvm_diag_set(TVM_ERR_INVALID,
                              "storage_flatten: tensor %s is read but is "
                              "neither computed here nor a function "
                              "argument; pass it in the argument list of "
                              "tvm_lower",
                              r->u.tread.tensor->name));
    return r;
  }
  tvm_expr *ix = flat_index(fl, b, r->u.tread.indices, r->u.tread.n);
  return tvm_load(m->ctx, r->dtype, b->data, ix, NULL);
}

/* allocate for a realize: strides with storage_align, total size. */
static tvm_stmt *flatten_realize(tvm_mutator *m, tvm_stmt *s) {
  flat *fl = m->data;
  tvm_ctx *c = m->ctx;
  tvm_tensor *t = s->u.realize.tensor;
  if (find_buf(fl, t)) /* bound to a parameter */
    return tvm_mutate_stmt(m, s->u.realize.body);
  int n = s->u.realize.n;
  tbuf *b = tvm_ctx_alloc(c, sizeof(*b));
  tvm_expr **mins = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(n + 1));
  tvm_expr **strides = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(n + 1));
  if (!b || !mins || !strides) {
    set_fail(fl, tvm_ctx_status(c));
    return s;
  }
  void *av = NULL;
  tvm_ptrmap_get(&fl->aligns, t, &av);
  tvm_expr *stride = tvm_int(c, 1);
  for (int d = n - 1; d >= 0; d--) {
    for (align_info *a = av; a; a = a->next) {
      if (a->dim != d || a->factor <= 0)
        continue;
      int64_t sv;
      if (tvm_is_const_int(stride, &sv)) {
        int64_t f = a->factor, off = ((a->offset % f) + f) % f;
        int64_t pad = ((off - sv % f) % f + f) % f;
        stride = tvm_int(c, sv + pad);
      } else {
        tvm_expr *fe = tvm_int(c, a->factor);
        stride = tvm_simplify(
            c,
            tvm_add(c, stride,
                    tvm_floormod(c,
                                 tvm_sub(c, tvm_add(c, fe, tvm_int(c, a->offset)),
                                         tvm_floormod(c, stride, fe)),
                                 fe)),
            NULL);
      }
    }
    strides[d] = stride;
    mins[d] = s->u.realize.bounds[d].min;
    stride = tvm_simplify(c, tvm_mul(c, stride, s->u.realize.bounds[d].extent),
                          NULL);
  }
  b->data = tvm_var(c, t->name, TVM_HANDLE);
  b->dtype = t->dtype;
  b->n = n;
  b->mins = mins;
  b->strides = strides;
  b->scope = s->u.realize.scope ? s->u.realize.scope : "global";
  if (tvm_ptrmap_put(&fl->bufs, t, b) != TVM_OK) {
    set_fail(fl, TVM_ERR_NOMEM);
    return s;
  }
  tvm_stmt *body = tvm_mutate_stmt(m, s->u.realize.body);
  /* the tensor is out of scope after its realize */
  tvm_ptrmap_put(&fl->bufs, t, NULL);
  tvm_stmt *a = tvm_allocate(c, b->data, t->dtype, stride, b->scope, body);
  const tvm_scope_info *si = tvm_lower_find_scope(fl->o, b->scope);
  if (a && si && si->align > 0)
    a->u.alloc.align = si->align; /* still being built: not shared yet */
  return a;
}

/* buffer_bind_scope of a tensor intrinsic: substitute the view's
 * placeholder variables by the real buffer, offset and strides. */
static tvm_stmt *flatten_bind_scope(tvm_mutator *m, tvm_stmt *s) {
  flat *fl = m->data;
  tvm_ctx *c = m->ctx;
  lower_bind *lb = s->u.attr.node;
  tbuf *b = find_buf(fl, lb->tensor);
  tvm_stmt *body = tvm_mutate_stmt(m, s->u.attr.body);
  if (!b) {
    set_fail(fl, tvm_diag_set(TVM_ERR_INVALID,
                              "storage_flatten: tensor %s of a tensor "
                              "intrinsic is not stored anywhere",
                              lb->tensor->name));
    return body;
  }
  tvm_ptrmap map = {0};
  tvm_buffer *vb = lb->buf;
  /* the region's start as the statement carries it: the value
   * tvm_tuple(data, begin...) went through the substitutions applied to
   * the statement since tensorize (e.g. the init nest's own loop
   * variables for a reset), lb->begin did not */
  tvm_expr **begin = lb->begin;
  const tvm_expr *v = s->u.attr.value;
  if (v && v->kind == TVM_CALL && v->u.call.nargs == lb->n + 1)
    begin = v->u.call.args + 1;
  tvm_status st = tvm_ptrmap_put(&map, vb->data, b->data);
  if (st == TVM_OK && vb->elem_offset && vb->elem_offset->kind == TVM_VAR)
    st = tvm_ptrmap_put(&map, vb->elem_offset,
                        flat_index(fl, b, begin, lb->n));
  for (int d = 0; st == TVM_OK && vb->strides && d < vb->ndim; d++) {
    int td = b->n - vb->ndim + d;
    if (td >= 0 && vb->strides[d] && vb->strides[d]->kind == TVM_VAR)
      st = tvm_ptrmap_put(&map, vb->strides[d], b->strides[td]);
  }
  tvm_stmt *r = st == TVM_OK ? tvm_substitute_stmt(c, body, &map) : body;
  tvm_ptrmap_free(&map);
  if (st != TVM_OK)
    set_fail(fl, st);
  return r;
}

/* Statement hook: realize, provide and the attributes of schedule_ops. */
static tvm_stmt *stmt_hook(tvm_mutator *m, tvm_stmt *s) {
  flat *fl = m->data;
  tvm_ctx *c = m->ctx;
  if (s->kind == TVM_REALIZE)
    return flatten_realize(m, s);
  if (s->kind == TVM_PROVIDE) {
    tbuf *b = find_buf(fl, s->u.provide.tensor);
    tvm_expr *v = tvm_mutate_expr(m, s->u.provide.value);
    if (!b) {
      set_fail(fl, tvm_diag_set(TVM_ERR_INVALID,
                                "storage_flatten: tensor %s is written "
                                "outside its realize",
                                s->u.provide.tensor->name));
      return s;
    }
    tvm_expr **idx = tvm_ctx_alloc(c, sizeof(tvm_expr *) *
                                          (size_t)(s->u.provide.n + 1));
    if (!idx)
      return s;
    for (int i = 0; i < s->u.provide.n; i++)
      idx[i] = tvm_mutate_expr(m, s->u.provide.indices[i]);
    return tvm_store(c, b->data, flat_index(fl, b, idx, s->u.provide.n), v,
                     NULL);
  }
  if (s->kind != TVM_ATTR)
    return NULL;
  const char *key = s->u.attr.key;
  if (strcmp(key, LOWER_ATTR_BUFFER_BIND) == 0) {
    tvm_tensor *t = s->u.attr.node;
    tvm_buffer *pb = NULL;
    for (int i = 0; i < fl->f->nparams; i++)
      if (fl->f->buffers && fl->f->buffers[i] &&
          fl->f->buffers[i]->data == s->u.attr.value)
        pb = fl->f->buffers[i];
    if (!pb) {
      set_fail(fl, tvm_diag_set(TVM_ERR_INVALID,
                                "storage_flatten: tensor %s is bound to a "
                                "variable that is not a buffer parameter",
                                t->name));
      return s;
    }
    tbuf *b = tvm_ctx_alloc(c, sizeof(*b));
    if (!b)
      return s;
    b->data = pb->data;
    b->dtype = pb->dtype;
    b->n = pb->ndim;
    b->mins = NULL;
    b->strides = pb->strides ? pb->strides : row_major(c, pb->shape, pb->ndim);
    b->scope = pb->scope ? pb->scope : "global";
    if (!b->strides || tvm_ptrmap_put(&fl->bufs, t, b) != TVM_OK) {
      set_fail(fl, TVM_ERR_NOMEM);
      return s;
    }
    return tvm_mutate_stmt(m, s->u.attr.body);
  }
  if (strcmp(key, LOWER_ATTR_ALIGN) == 0) {
    tvm_expr *v = s->u.attr.value;
    align_info *a = tvm_ctx_alloc(c, sizeof(*a));
    int64_t dim, fac, off;
    if (a && v && v->kind == TVM_CALL && v->u.call.nargs == 3 &&
        tvm_is_const_int(v->u.call.args[0], &dim) &&
        tvm_is_const_int(v->u.call.args[1], &fac) &&
        tvm_is_const_int(v->u.call.args[2], &off)) {
      void *prev = NULL;
      tvm_ptrmap_get(&fl->aligns, s->u.attr.node, &prev);
      a->dim = (int)dim;
      a->factor = (int)fac;
      a->offset = (int)off;
      a->next = prev;
      if (tvm_ptrmap_put(&fl->aligns, s->u.attr.node, a) != TVM_OK)
        set_fail(fl, TVM_ERR_NOMEM);
    }
    return tvm_mutate_stmt(m, s->u.attr.body);
  }
  if (strcmp(key, LOWER_ATTR_PRODUCE) == 0) {
    tvm_tensor *t = s->u.attr.node;
    tvm_stmt *body = tvm_mutate_stmt(m, s->u.attr.body);
    tbuf *b = find_buf(fl, t);
    const tvm_scope_info *si =
        b ? tvm_lower_find_scope(fl->o, b->scope) : NULL;
    if (b && si && si->queue >= 0)
      return tvm_attr(c, TVM_ATTR_COPROC_SCOPE, b->data,
                      tvm_int(c, si->queue), body);
    return body;
  }
  if (strcmp(key, LOWER_ATTR_DOUBLE_BUFFER) == 0) {
    tbuf *b = find_buf(fl, s->u.attr.node);
    tvm_stmt *body = tvm_mutate_stmt(m, s->u.attr.body);
    if (!b)
      return body;
    return tvm_attr(c, TVM_ATTR_DOUBLE_BUFFER, b->data, s->u.attr.value, body);
  }
  if (strcmp(key, LOWER_ATTR_BUFFER_BIND_SCOPE) == 0)
    return flatten_bind_scope(m, s);
  return NULL;
}

/* The storage_flatten pass (see the file comment). */
tvm_status tvm_pass_storage_flatten(tvm_ctx *c, tvm_func *f,
                                    const tvm_lower_options *o,
                                    tvm_func **out) {
  if (!c || !f || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "storage_flatten: NULL argument");
  flat fl;
  memset(&fl, 0, sizeof(fl));
  fl.c = c;
  fl.o = o;
  fl.f = f;
  tvm_mutator m = {c, expr_hook, stmt_hook, &fl};
  tvm_stmt *body = f->body ? tvm_mutate_stmt(&m, f->body) : NULL;
  tvm_ptrmap_free(&fl.bufs);
  tvm_ptrmap_free(&fl.aligns);
  if (fl.st != TVM_OK)
    return fl.st;
  tvm_status st = tvm_ctx_status(c);
  if (st != TVM_OK)
    return st;
  tvm_func *nf = tvm_func_new(c, f->name, f->params, f->buffers, f->nparams,
                              body);
  if (!nf)
    return tvm_ctx_status(c) ? tvm_ctx_status(c) : TVM_ERR_NOMEM;
  nf->kind = f->kind;
  *out = nf;
  return TVM_OK;
}
