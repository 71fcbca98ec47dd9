/*
 * core/codegen/c_source.c - kernels and statements of the C-dialect
 * emitter (tvm/codegen_c.h): one kernel per device function of a module,
 * the kernel's signature, launch extents and static shared memory, and
 * its body.  Expressions are printed by c_expr.c.
 */
#include <stdio.h>
#include <string.h>

#include "codegen_int.h"

/* Index in the thread_index table of a thread tag, -1 when unknown. */
static int tag_index(const char *tag) {
  static const char *const tags[6] = {"blockIdx.x",  "blockIdx.y",
                                      "blockIdx.z",  "threadIdx.x",
                                      "threadIdx.y", "threadIdx.z"};
  for (int i = 0; tag && i < 6; i++)
    if (!strcmp(tag, tags[i])) return i;
  return -1;
}

/* Indentation. */
static void pad(codegen_c *e) {
  for (int i = 0; i < e->indent; i++) tvm_strbuf_append(e->out, "  ");
}

/* The element type of a buffer of t (bool may be stored as bytes). */
static const char *storage_type(codegen_c *e, tvm_dtype t) {
  if (tvm_dtype_is_bool(t) && e->d->bool_storage) return e->d->bool_storage;
  return codegen_type(e, t);
}

/* The dialect's entry for a memory scope, or NULL. */
static const tvm_c_scope *find_scope(const tvm_c_dialect *d, const char *s) {
  for (int i = 0; i < d->nscopes; i++)
    if (!strcmp(d->scopes[i].name, s ? s : "global")) return &d->scopes[i];
  return NULL;
}

/* Notes that var ranges over [min, min + extent) for later proofs. */
static void note_range(codegen_c *e, tvm_expr *var, tvm_expr *min,
                       tvm_expr *extent) {
  tvm_range *r = tvm_ctx_alloc(e->c, sizeof *r);
  if (!r) return;
  r->min = min;
  r->extent = extent;
  if (tvm_bounds_set(&e->bounds, var, r) != TVM_OK)
    codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
}

static void emit_stmt(codegen_c *e, const tvm_stmt *s);

/* `{ body }` one level deeper. */
static void emit_block(codegen_c *e, const tvm_stmt *s) {
  tvm_strbuf_append(e->out, "{\n");
  e->indent++;
  emit_stmt(e, s);
  e->indent--;
  pad(e);
  tvm_strbuf_append(e->out, "}\n");
}

/* A thread-bound loop: its variable reads the thread index; a guard keeps
 * the threads beyond a smaller extent idle. */
static void emit_thread_loop(codegen_c *e, const tvm_stmt *s) {
  int t = tag_index(s->u.for_.thread_tag);
  if (t < 0) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "thread tag '%s' is not one of blockIdx.x/y/z, "
                 "threadIdx.x/y/z (virtual threads must be lowered first)",
                 s->u.for_.thread_tag ? s->u.for_.thread_tag : "");
    return;
  }
  const char *v = codegen_name(e, s->u.for_.var);
  int64_t lo, ext;
  if (!tvm_const_bounds(e->c, s->u.for_.extent, &e->bounds, &lo, &ext)) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "loop %s bound to %s has an extent with no known bound; "
                 "thread extents must be constants (static shapes)",
                 s->u.for_.var->u.var.name, s->u.for_.thread_tag);
    return;
  }
  if (ext > (int64_t)e->launch[t]) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "loop %s bound to %s runs %lld iterations, more than the "
                 "kernel launches (%u, the extent of the first loop bound to "
                 "it): give loops bound to one axis equal extents",
                 s->u.for_.var->u.var.name, s->u.for_.thread_tag,
                 (long long)ext, e->launch[t]);
    return;
  }
  int guard = !tvm_is_const_int(s->u.for_.extent, &ext) ||
              ext < (int64_t)e->launch[t];
  pad(e);
  tvm_strbuf_append(e->out, "{\n");
  e->indent++;
  pad(e);
  tvm_strbuf_printf(e->out, "%s %s = (%s)%s", codegen_type(e, s->u.for_.var->dtype),
                    v, codegen_type(e, s->u.for_.var->dtype),
                    e->d->thread_index[t]);
  if (!tvm_is_zero(s->u.for_.min)) {
    tvm_strbuf_append(e->out, " + ");
    codegen_expr(e, s->u.for_.min, -1);
  }
  tvm_strbuf_append(e->out, ";\n");
  note_range(e, s->u.for_.var, s->u.for_.min, s->u.for_.extent);
  if (tvm_ptrvec_push(&e->thread_vars, s->u.for_.var) != TVM_OK)
    codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
  e->in_threadidx += t >= 3;
  if (guard) {
    pad(e);
    tvm_strbuf_printf(e->out, "if (%s < ", v);
    codegen_expr(e, tvm_simplify(e->c, tvm_add(e->c, s->u.for_.min,
                                               s->u.for_.extent), NULL), -1);
    tvm_strbuf_append(e->out, ") ");
    e->divergent++;
    emit_block(e, s->u.for_.body);
    e->divergent--;
  } else {
    emit_stmt(e, s->u.for_.body);
  }
  e->in_threadidx -= t >= 3;
  e->indent--;
  pad(e);
  tvm_strbuf_append(e->out, "}\n");
}

/* Is buffer var b an allocation of this kernel in a scope with (shared
 * 1) or without (0) block visibility, other than global? */
static int alloc_in(codegen_c *e, const tvm_expr *b, int shared) {
  void *p = NULL;
  const tvm_c_scope *sc;
  if (!tvm_ptrmap_get(&e->scope_of, b, &p)) return 0;
  sc = p;
  return !sc->fragment_fmt && strcmp(sc->name, "global") &&
         (sc->block_shared != 0) == shared;
}

/* The final combine of a cross-thread reduction (tvm_block_combine) with
 * warp shuffles, where the dialect has them: thread v takes partial
 * RF[f(v)], each warp folds its lanes' partials by butterfly exchanges
 * (every lane ends with the warp's), lane 0 of each warp stores it to a
 * shared array of T / warp entries, and after a barrier every thread folds
 * those into L[i] as the loop did: T / warp loads instead of T.  The
 * first barrier keeps an enclosing loop's next pass from overwriting the
 * array while threads still read it.  Returns 0 (nothing emitted) when s
 * is not such a loop in uniform control flow over a T x 1 x 1 block. */
static int warp_combine(codegen_c *e, const tvm_stmt *s) {
  const tvm_c_dialect *d = e->d;
  tvm_block_combine m;
  int W = d->warp_size;
  if (!d->shuffle_xor_fmt || W < 2 || !tvm_match_block_combine(s, &m) ||
      e->in_threadidx || e->divergent || m.T % W ||
      m.T != (int64_t)e->launch[3] || e->launch[4] != 1 ||
      e->launch[5] != 1 || !alloc_in(e, m.acc->u.load.buffer, 0) ||
      !alloc_in(e, m.part->u.load.buffer, 1))
    return 0;
  tvm_dtype t = m.part->dtype;
  int fl = tvm_dtype_is_float(t);
  const char *fn = m.op == TVM_MAX ? d->fmax_f32 : d->fmin_f32;
  if (m.op != TVM_ADD && (!fl || !fn)) return 0; /* integer max/min: no name */
  tvm_ctx *c = e->c;
  tvm_expr *v = (tvm_expr *)m.var;
  tvm_expr *wp = tvm_var(c, "warp_part", t);
  tvm_expr *S = tvm_var(c, "warp_sums", TVM_HANDLE);
  tvm_expr *w = tvm_var(c, "w", TVM_I32);
  if (!wp || !S || !w) {
    codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
    return 1;
  }
  const char *vn = codegen_name(e, v), *vt = codegen_type(e, v->dtype);
  const char *wn = codegen_name(e, wp), *ty = codegen_type(e, t);
  pad(e);
  tvm_strbuf_append(e->out, "{\n");
  e->indent++;
  pad(e);
  tvm_strbuf_printf(e->out, "%s %s = (%s)%s;\n", vt, vn, vt,
                    d->thread_index[3]);
  note_range(e, v, tvm_const(c, v->dtype, 0), tvm_const(c, v->dtype, m.T));
  pad(e);
  tvm_strbuf_printf(e->out, "%s %s = ", ty, wn);
  codegen_expr(e, m.part, -1);
  tvm_strbuf_append(e->out, ";\n");
  for (int k = W / 2; k >= 1; k /= 2) {
    char sh[200];
    snprintf(sh, sizeof sh, d->shuffle_xor_fmt, wn, k);
    pad(e);
    if (m.op == TVM_ADD)
      tvm_strbuf_printf(e->out, "%s = %s + %s;\n", wn, wn, sh);
    else
      tvm_strbuf_printf(e->out, "%s = %s(%s, %s);\n", wn, fn, wn, sh);
  }
  /* the rest as loop IR: the shared array, the lane-0 stores, the fold */
  tvm_expr *Wc = tvm_const(c, v->dtype, W);
  tvm_stmt *put = tvm_if(
      c, tvm_eq(c, tvm_floormod(c, v, Wc), tvm_const(c, v->dtype, 0)),
      tvm_store(c, S, tvm_floordiv(c, v, Wc), wp, NULL), NULL);
  tvm_expr *L = (tvm_expr *)m.acc, *Sw = tvm_load(c, t, S, w, NULL);
  tvm_expr *comb = m.op == TVM_ADD   ? tvm_add(c, L, Sw)
                   : m.op == TVM_MAX ? tvm_max(c, L, Sw)
                                     : tvm_min(c, L, Sw);
  tvm_stmt *fold = tvm_for(
      c, w, tvm_int(c, 0), tvm_int(c, (int)(m.T / W)), TVM_FOR_SERIAL, NULL,
      tvm_store(c, m.store->u.store.buffer, m.store->u.store.index, comb,
                NULL));
  tvm_stmt *seq[4] = {tvm_barrier(c, "shared"), put, tvm_barrier(c, "shared"),
                      fold};
  tvm_stmt *ir = tvm_allocate(c, S, t, tvm_int(c, (int)(m.T / W)), "shared",
                              tvm_seq(c, seq, 4));
  if (!ir) {
    codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
    return 1;
  }
  emit_stmt(e, ir);
  e->indent--;
  pad(e);
  tvm_strbuf_append(e->out, "}\n");
  return 1;
}

/* A loop statement. */
static void emit_for(codegen_c *e, const tvm_stmt *s) {
  tvm_for_kind k = s->u.for_.for_kind;
  if (k == TVM_FOR_THREAD) {
    emit_thread_loop(e, s);
    return;
  }
  if (k == TVM_FOR_SERIAL && warp_combine(e, s)) return;
  if (k == TVM_FOR_PARALLEL || k == TVM_FOR_VTHREAD) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "%s loop %s inside a device function (bind it to a thread "
                 "axis or make it serial)",
                 tvm_for_kind_name(k), s->u.for_.var->u.var.name);
    return;
  }
  const char *v = codegen_name(e, s->u.for_.var);
  const char *ty = codegen_type(e, s->u.for_.var->dtype);
  note_range(e, s->u.for_.var, s->u.for_.min, s->u.for_.extent);
  if (k == TVM_FOR_UNROLLED && e->d->unroll_pragma) {
    pad(e);
    tvm_strbuf_printf(e->out, "%s\n", e->d->unroll_pragma);
  }
  pad(e);
  tvm_strbuf_printf(e->out, "for (%s %s = ", ty, v);
  codegen_expr(e, s->u.for_.min, -1);
  tvm_strbuf_printf(e->out, "; %s < ", v);
  codegen_expr(e, tvm_simplify(e->c, tvm_add(e->c, s->u.for_.min,
                                             s->u.for_.extent), NULL), -1);
  tvm_strbuf_printf(e->out, "; ++%s) ", v);
  emit_block(e, s->u.for_.body);
}

/* May a vector access of `lanes` at base use the dialect's vector form? */
static int vector_ok(codegen_c *e, const tvm_expr *index, tvm_dtype t) {
  int64_t stride;
  int lanes = t.lanes;
  if (!codegen_has_vector(e->d, t)) return 0;
  if (index->kind != TVM_RAMP ||
      !tvm_is_const_int(index->u.ramp.stride, &stride) || stride != 1)
    return 0;
  if (lanes > e->d->max_vector_lanes || (lanes & (lanes - 1)) || lanes < 2)
    return 0;
  if (!e->d->vector_needs_align) return 1;
  tvm_expr *m = tvm_simplify(e->c, tvm_floormod(e->c, index->u.ramp.base,
                                                tvm_int(e->c, lanes)),
                             &e->bounds);
  return m && tvm_is_zero(m);
}

/* `&buf[base]` with the dialect's address spelling. */
static char *address_of(codegen_c *e, const tvm_expr *buf, const tvm_expr *base) {
  tvm_strbuf b, *save = e->out;
  tvm_strbuf_init(&b);
  e->out = &b;
  tvm_strbuf_printf(&b, "&%s[", codegen_name(e, buf));
  codegen_expr(e, base, -1);
  tvm_strbuf_append(&b, "]");
  e->out = save;
  char *s = tvm_arena_strdup(e->c->arena, b.data ? b.data : "");
  tvm_strbuf_free(&b);
  return s;
}

/* Visitor state: vector loads worth hoisting into temporaries. */
typedef struct hoist {
  codegen_c *e;
} hoist;

/* Visitor hook: a vector load of a stride-1 ramp becomes a temporary. */
static int hoist_hook(tvm_visitor *v, const tvm_expr *x) {
  codegen_c *e = ((hoist *)v->data)->e;
  void *seen;
  int lanes = x->dtype.lanes;
  if (x->kind != TVM_LOAD || lanes < 2 || x->u.load.pred ||
      tvm_ptrmap_get(&e->hoisted, x, &seen) ||
      !vector_ok(e, x->u.load.index, x->dtype))
    return 0;
  char *name = tvm_arena_printf(e->c->arena, "_v%d", e->ntmp++);
  const char *ty = codegen_type(e, x->dtype);
  char *addr = address_of(e, x->u.load.buffer, x->u.load.index->u.ramp.base);
  if (!name || !addr || tvm_ptrmap_put(&e->hoisted, x, name) != TVM_OK) {
    codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
    return 1;
  }
  pad(e);
  tvm_strbuf_printf(e->out, "%s %s = ", ty, name);
  if (e->d->vload_uses_lanes)
    tvm_strbuf_printf(e->out, e->d->vload_fmt, lanes, addr);
  else
    tvm_strbuf_printf(e->out, e->d->vload_fmt, ty, addr);
  tvm_strbuf_append(e->out, ";\n");
  return 1;
}

/* Is index a stride-1 ramp whose base is provably a multiple of its lane
 * count (the access aligned to the vector's size)? */
static int ramp_aligned(codegen_c *e, const tvm_expr *index) {
  int64_t stride;
  if (index->kind != TVM_RAMP ||
      !tvm_is_const_int(index->u.ramp.stride, &stride) || stride != 1)
    return 0;
  tvm_expr *m = tvm_simplify(e->c, tvm_floormod(e->c, index->u.ramp.base,
                                                tvm_int(e->c, index->dtype.lanes)),
                             &e->bounds);
  return m && tvm_is_zero(m);
}

/* Is s a store of a vector of an element type the dialect has no vector
 * spelling for (bool aside)?  Such vectors may only be copied. */
static int copy_only_vector(codegen_c *e, const tvm_stmt *s) {
  tvm_dtype t = s->u.store.value->dtype;
  return t.lanes > 1 && !tvm_dtype_is_bool(t) && t.bits % 8 == 0 &&
         !codegen_has_vector(e->d, t);
}

/* Is s a plain copy `dst[ramp] = src[ramp]` of one vector type (no
 * predicates)? */
static int plain_copy(const tvm_stmt *s) {
  const tvm_expr *val = s->u.store.value;
  return !s->u.store.pred && val->kind == TVM_LOAD && !val->u.load.pred &&
         s->u.store.index->kind == TVM_RAMP &&
         val->u.load.index->kind == TVM_RAMP;
}

/* The dialect's bit-copy type for plain copy s when both of its accesses
 * are aligned (tvm_c_dialect.copy_types), or NULL.  A load the lane by
 * lane path refuses (a fragment, a buffer of another element type) gets
 * NULL too, so that it is refused with its own reason. */
static const char *copy_type(codegen_c *e, const tvm_stmt *s) {
  const tvm_expr *val = s->u.store.value;
  tvm_dtype t = val->dtype;
  int bytes = t.lanes * t.bits / 8;
  int i = bytes == 4 ? 0 : bytes == 8 ? 1 : bytes == 16 ? 2 : -1;
  void *bt = NULL;
  if (tvm_ptrmap_get(&e->buf_type, val->u.load.buffer, &bt) &&
      !tvm_dtype_eq(*(tvm_dtype *)bt, tvm_dtype_element(t)))
    return NULL;
  if (i < 0 || !e->d->copy_types[i] || e->d->vload_uses_lanes ||
      codegen_fragment_scope(e, val->u.load.buffer) ||
      !ramp_aligned(e, s->u.store.index) ||
      !ramp_aligned(e, s->u.store.value->u.load.index))
    return NULL;
  return e->d->copy_types[i];
}

/* A plain copy of a vector with no vector spelling: one access of the
 * dialect's bit-copy type when aligned, else the lanes one by one. */
static void emit_copy(codegen_c *e, const tvm_stmt *s) {
  const tvm_expr *val = s->u.store.value;
  const char *ty = copy_type(e, s);
  if (!ty) {
    /* every lane read before any is written: src may be dst */
    const char *bn = codegen_name(e, s->u.store.buffer);
    const char *ety = codegen_type(e, tvm_dtype_element(val->dtype));
    int r = e->ntmp++;
    pad(e);
    tvm_strbuf_append(e->out, "{\n");
    e->indent++;
    for (int l = 0; l < val->dtype.lanes; l++) {
      pad(e);
      tvm_strbuf_printf(e->out, "%s _r%d_%d = ", ety, r, l);
      codegen_expr(e, val, l);
      tvm_strbuf_append(e->out, ";\n");
    }
    for (int l = 0; l < val->dtype.lanes; l++) {
      pad(e);
      tvm_strbuf_printf(e->out, "%s[", bn);
      codegen_expr(e, s->u.store.index, l);
      tvm_strbuf_printf(e->out, "] = _r%d_%d;\n", r, l);
    }
    e->indent--;
    pad(e);
    tvm_strbuf_append(e->out, "}\n");
    return;
  }
  char *src = address_of(e, val->u.load.buffer, val->u.load.index->u.ramp.base);
  char *dst = address_of(e, s->u.store.buffer, s->u.store.index->u.ramp.base);
  char *ld = src ? tvm_arena_printf(e->c->arena, e->d->vload_fmt, ty, src) : NULL;
  if (!ld || !dst) {
    codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
    return;
  }
  pad(e);
  tvm_strbuf_printf(e->out, e->d->vstore_fmt, ty, dst, ld);
  tvm_strbuf_append(e->out, "\n");
}

/* A store: scalar, one vector store, or lane by lane (every lane computed
 * before any is stored, as the vector semantics require). */
static void emit_store(codegen_c *e, const tvm_stmt *s) {
  const tvm_expr *buf = s->u.store.buffer, *idx = s->u.store.index;
  const tvm_expr *val = s->u.store.value, *pred = s->u.store.pred;
  int lanes = val->dtype.lanes;
  const char *bn = codegen_name(e, buf);
  if (codegen_fragment_scope(e, buf)) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "store into %s of fragment scope '%s': fragments are "
                 "written only by the target's intrinsics (tensorize the "
                 "stage)", buf->u.var.name, codegen_fragment_scope(e, buf)->name);
    return;
  }
  if (copy_only_vector(e, s)) {
    char b1[32], b2[32];
    if (plain_copy(s)) {
      emit_copy(e, s);
      return;
    }
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "store into %s of a %s vector computed by %s: %s has no "
                 "vector type of %s, so such vectors may only be copied "
                 "(a store of a load of the same type); unroll the axis "
                 "instead of vectorizing it",
                 buf->u.var.name, tvm_dtype_str(val->dtype, b1),
                 tvm_expr_kind_name(val->kind), e->d->name,
                 tvm_dtype_str(tvm_dtype_element(val->dtype), b2));
    return;
  }
  if (lanes == 1) {
    pad(e);
    if (pred) {
      tvm_strbuf_append(e->out, "if (");
      codegen_expr(e, pred, -1);
      tvm_strbuf_append(e->out, ") ");
    }
    tvm_strbuf_printf(e->out, "%s[", bn);
    codegen_expr(e, idx, -1);
    tvm_strbuf_append(e->out, "] = ");
    codegen_expr(e, val, -1);
    tvm_strbuf_append(e->out, ";\n");
    return;
  }
  pad(e);
  tvm_strbuf_append(e->out, "{\n");
  e->indent++;
  hoist h = {e};
  tvm_visitor v = {hoist_hook, NULL, &h};
  tvm_visit_expr(&v, val);
  const char *vty = codegen_type(e, val->dtype);
  const char *ety = codegen_type(e, tvm_dtype_element(val->dtype));
  int vec = !pred && vector_ok(e, idx, val->dtype);
  int r = e->ntmp++;
  if (vec) {
    pad(e);
    tvm_strbuf_printf(e->out, "%s _r%d;\n", vty, r);
  }
  for (int l = 0; l < lanes; l++) {
    pad(e);
    if (vec) tvm_strbuf_printf(e->out, "_r%d%s = ", r, codegen_lane_suffix(l));
    else tvm_strbuf_printf(e->out, "%s _r%d_%d = ", ety, r, l);
    codegen_expr(e, val, l);
    tvm_strbuf_append(e->out, ";\n");
  }
  if (vec) {
    char *addr = address_of(e, buf, idx->u.ramp.base);
    char rv[32];
    snprintf(rv, sizeof rv, "_r%d", r);
    pad(e);
    if (e->d->vload_uses_lanes)
      tvm_strbuf_printf(e->out, e->d->vstore_fmt, lanes, rv, addr ? addr : "");
    else
      tvm_strbuf_printf(e->out, e->d->vstore_fmt, vty, addr ? addr : "", rv);
    tvm_strbuf_append(e->out, "\n");
  } else {
    for (int l = 0; l < lanes; l++) {
      pad(e);
      if (pred) {
        tvm_strbuf_append(e->out, "if (");
        codegen_expr(e, pred, l);
        tvm_strbuf_append(e->out, ") ");
      }
      tvm_strbuf_printf(e->out, "%s[", bn);
      codegen_expr(e, idx, l);
      tvm_strbuf_printf(e->out, "] = _r%d_%d;\n", r, l);
    }
  }
  e->indent--;
  pad(e);
  tvm_strbuf_append(e->out, "}\n");
}

/* The dynamic block-shared array's name (tvm_c_dialect.dyn_shared_fmt). */
#define DYN_SHARED "tvm_dyn_shared"

/* An allocation inside the kernel: block-shared or thread-local array. */
static void emit_allocate(codegen_c *e, const tvm_stmt *s) {
  const tvm_c_scope *sc = find_scope(e->d, s->u.alloc.scope);
  int64_t n;
  tvm_expr *ext = tvm_simplify(e->c, s->u.alloc.extent, &e->bounds);
  const char *name = codegen_name(e, s->u.alloc.buffer);
  if (!sc || !strcmp(sc->name, "global")) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "allocation %s in scope '%s' inside a device function (the "
                 "%s target has shared and local scopes here; global memory "
                 "is allocated by the host)",
                 name, s->u.alloc.scope ? s->u.alloc.scope : "global",
                 e->d->name);
    return;
  }
  if (!ext || !tvm_is_const_int(ext, &n) || n <= 0) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "allocation %s has a non-constant size; device arrays need "
                 "constant extents (split by a constant factor)", name);
    return;
  }
  tvm_dtype *dt = tvm_ctx_alloc(e->c, sizeof *dt);
  if (dt) {
    *dt = s->u.alloc.dtype;
    if (tvm_ptrmap_put(&e->buf_type, s->u.alloc.buffer, dt) != TVM_OK)
      codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
  }
  if (tvm_ptrmap_put(&e->scope_of, s->u.alloc.buffer, (void *)sc) != TVM_OK)
    codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
  if (sc->fragment_fmt) {
    /* an array of opaque fragments, reached only through access_ptr */
    if (sc->fragment_elems <= 0 || n % sc->fragment_elems) {
      codegen_fail(e, TVM_ERR_UNSUPPORTED,
                   "allocation %s in fragment scope '%s' has %lld elements, "
                   "not a multiple of the fragment's %d: tile the stage by "
                   "whole fragments", name, sc->name, (long long)n,
                   sc->fragment_elems);
      return;
    }
    if (tvm_ptrmap_put(&e->frag, s->u.alloc.buffer, (void *)sc) != TVM_OK)
      codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
    e->uses_extern = 1;
    pad(e);
    tvm_strbuf_append(e->out, "{\n");
    e->indent++;
    pad(e);
    tvm_strbuf_printf(e->out, sc->fragment_fmt,
                      storage_type(e, s->u.alloc.dtype));
    tvm_strbuf_printf(e->out, " %s[%lld];\n", name,
                      (long long)(n / sc->fragment_elems));
    emit_stmt(e, s->u.alloc.body);
    e->indent--;
    pad(e);
    tvm_strbuf_append(e->out, "}\n");
    return;
  }
  uint64_t bytes = (uint64_t)n * (uint64_t)tvm_dtype_bytes(s->u.alloc.dtype);
  /* block-shared arrays live at kernel scope (OpenCL requires it) */
  /* a thread-local array gets its own block: unrolling may repeat an
   * allocation in one sequence */
  tvm_strbuf *to = sc->block_shared ? &e->decls : e->out;
  if (sc->block_shared) {
    /* both forms; emit_kernel keeps one when it knows the total */
    uint64_t al = sc->align > 16 ? (uint64_t)sc->align : 16;
    uint64_t off = (e->dyn_bytes + al - 1) & ~(al - 1);
    const char *ty = storage_type(e, s->u.alloc.dtype);
    tvm_strbuf_printf(&e->dyn_decls,
                      "  %s* %s = (%s*)(" DYN_SHARED " + %llu);\n", ty, name,
                      ty, (unsigned long long)off);
    e->dyn_bytes = off + bytes;
    e->shared_bytes += (bytes + 15) & ~(uint64_t)15;
    tvm_strbuf_append(to, "  ");
  } else {
    pad(e);
    tvm_strbuf_append(e->out, "{\n");
    e->indent++;
    pad(e);
  }
  tvm_strbuf_printf(to, "%s%s%s %s[%lld] __attribute__((aligned(%d)));\n",
                    sc->qualifier, sc->qualifier[0] ? " " : "",
                    storage_type(e, s->u.alloc.dtype), name, (long long)n,
                    sc->align > 0 ? sc->align : 16);
  emit_stmt(e, s->u.alloc.body);
  if (!sc->block_shared) {
    e->indent--;
    pad(e);
    tvm_strbuf_append(e->out, "}\n");
  }
}

/* Does cond depend on an enclosing thread loop's variable? */
static int thread_dependent(codegen_c *e, const tvm_expr *cond) {
  for (size_t i = 0; i < e->thread_vars.len; i++)
    if (tvm_expr_uses_var(cond, e->thread_vars.data[i])) return 1;
  return 0;
}

/* One statement. */
static void emit_stmt(codegen_c *e, const tvm_stmt *s) {
  if (!s || e->st != TVM_OK) return;
  switch (s->kind) {
  case TVM_FOR:
    emit_for(e, s);
    return;
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) emit_stmt(e, s->u.seq.stmts[i]);
    return;
  case TVM_IF: {
    int div = thread_dependent(e, s->u.if_.cond);
    pad(e);
    tvm_strbuf_append(e->out, "if (");
    codegen_expr(e, s->u.if_.cond, -1);
    tvm_strbuf_append(e->out, ") ");
    e->divergent += div;
    emit_block(e, s->u.if_.then_);
    if (s->u.if_.else_) {
      pad(e);
      tvm_strbuf_append(e->out, "else ");
      emit_block(e, s->u.if_.else_);
    }
    e->divergent -= div;
    return;
  }
  case TVM_LET_STMT: {
    pad(e);
    tvm_strbuf_append(e->out, "{\n");
    e->indent++;
    pad(e);
    tvm_strbuf_printf(e->out, "const %s %s = ",
                      codegen_type(e, s->u.let.var->dtype),
                      codegen_name(e, s->u.let.var));
    codegen_expr(e, s->u.let.value, -1);
    tvm_strbuf_append(e->out, ";\n");
    emit_stmt(e, s->u.let.body);
    e->indent--;
    pad(e);
    tvm_strbuf_append(e->out, "}\n");
    return;
  }
  case TVM_STORE:
    emit_store(e, s);
    return;
  case TVM_ALLOCATE:
    emit_allocate(e, s);
    return;
  case TVM_ATTR:
    emit_stmt(e, s->u.attr.body);
    return;
  case TVM_EVALUATE: {
    int64_t v;
    if (tvm_is_const_int(s->u.eval.value, &v)) return; /* no effect */
    pad(e);
    codegen_expr(e, s->u.eval.value, -1);
    tvm_strbuf_append(e->out, ";\n");
    return;
  }
  case TVM_BARRIER:
    if (e->divergent)
      codegen_fail(e, TVM_ERR_UNSUPPORTED,
                   "barrier under a thread-dependent condition (a guard of "
                   "a thread loop smaller than the launch, or an if on a "
                   "thread index): threads that skip it would deadlock the "
                   "block; make the extents of sibling thread loops equal or "
                   "split by factors that divide the shape");
    pad(e);
    tvm_strbuf_printf(e->out, "%s\n",
                      s->u.barrier.scope && !strcmp(s->u.barrier.scope, "global")
                          ? e->d->barrier_global
                          : e->d->barrier_shared);
    return;
  default:
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "statement %s is not supported in device code",
                 tvm_stmt_kind_name(s->kind));
    return;
  }
}

/* Launch extents of f's thread axes (constants) into e->launch. */
static void launch_extents(codegen_c *e, const tvm_func *f) {
  for (int i = 0; i < 6; i++) e->launch[i] = 1;
  for (int i = 0; i < f->nthread_axes; i++) {
    int t = tag_index(f->thread_tags[i]);
    int64_t n;
    tvm_expr *x = tvm_simplify(e->c, f->thread_extents[i], NULL);
    if (t < 0) {
      codegen_fail(e, TVM_ERR_UNSUPPORTED, "thread tag '%s' is not a "
                   "blockIdx/threadIdx axis", f->thread_tags[i]);
      return;
    }
    if (!x || !tvm_is_const_int(x, &n) || n <= 0 || n > 0x7fffffff) {
      codegen_fail(e, TVM_ERR_UNSUPPORTED,
                   "launch extent of %s is not a positive constant (shapes "
                   "must be static)", f->thread_tags[i]);
      return;
    }
    e->launch[t] = (uint32_t)n;
  }
}

/* Emits one device function into e->out; fills k. */
static void emit_kernel(codegen_c *e, const tvm_func *f, tvm_c_kernel *k) {
  const tvm_c_dialect *d = e->d;
  tvm_strbuf body, *save = e->out;
  e->f = f;
  e->shared_bytes = 0;
  e->dyn_bytes = 0;
  e->indent = 1;
  e->ntmp = 0;
  launch_extents(e, f);
  k->name = tvm_strdup(f->name);
  k->arg_kinds = tvm_malloc((size_t)f->nparams + 1);
  k->nargs = f->nparams;
  if (!k->name || !k->arg_kinds) {
    codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
    return;
  }
  for (int i = 0; i < 3; i++) {
    k->grid[i] = e->launch[i];
    k->block[i] = e->launch[3 + i];
  }
  /* the signature first: it names the parameters before the body does */
  tvm_strbuf_printf(e->out, "%s ", d->kernel_qual);
  uint32_t total = k->block[0] * k->block[1] * k->block[2];
  if (d->bounds_total_fmt) tvm_strbuf_printf(e->out, d->bounds_total_fmt, total);
  if (d->bounds_xyz_fmt)
    tvm_strbuf_printf(e->out, d->bounds_xyz_fmt, k->block[0], k->block[1],
                      k->block[2]);
  tvm_strbuf_printf(e->out, "void %s(", f->name);
  for (int i = 0; i < f->nparams; i++) {
    tvm_expr *p = f->params[i];
    const char *name = codegen_name(e, p);
    if (i) tvm_strbuf_append(e->out, ", ");
    if (tvm_dtype_is_handle(p->dtype)) {
      tvm_buffer *b = f->buffers ? f->buffers[i] : NULL;
      if (!b) {
        codegen_fail(e, TVM_ERR_UNSUPPORTED, "parameter %s is a handle "
                     "without a buffer description", p->u.var.name);
        return;
      }
      tvm_dtype *dt = tvm_ctx_alloc(e->c, sizeof *dt);
      if (dt) {
        *dt = b->dtype;
        if (tvm_ptrmap_put(&e->buf_type, p, dt) != TVM_OK)
          codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
      }
      tvm_strbuf_printf(e->out, "%s%s%s* %s %s", d->global_ptr_qual,
                        d->global_ptr_qual[0] ? " " : "",
                        storage_type(e, b->dtype), d->restrict_kw, name);
      k->arg_kinds[i] = TVM_C_ARG_PTR;
    } else {
      tvm_dtype t = p->dtype;
      char kind = t.code == kDLFloat ? (t.bits == 64 ? TVM_C_ARG_F64 : TVM_C_ARG_F32)
                  : t.bits == 64 ? TVM_C_ARG_I64 : TVM_C_ARG_I32;
      if (t.lanes != 1 || (t.code == kDLFloat && t.bits < 32) ||
          (t.code != kDLFloat && t.bits != 32 && t.bits != 64)) {
        char b[32];
        codegen_fail(e, TVM_ERR_UNSUPPORTED, "scalar parameter %s of type %s "
                     "(kernels take int32, int64, float32 or float64 scalars)",
                     p->u.var.name, tvm_dtype_str(t, b));
        return;
      }
      tvm_strbuf_printf(e->out, "%s %s", codegen_type(e, t), name);
      k->arg_kinds[i] = kind;
    }
  }
  k->arg_kinds[f->nparams] = 0;
  tvm_strbuf_append(e->out, ") {\n");
  tvm_strbuf_init(&body);
  e->out = &body;
  emit_stmt(e, f->body);
  e->out = save;
  int dyn = d->dyn_shared_fmt && d->static_shared_max &&
            e->shared_bytes > d->static_shared_max;
  if (dyn) {
    tvm_strbuf_append(e->out, "  ");
    tvm_strbuf_printf(e->out, d->dyn_shared_fmt, DYN_SHARED);
    tvm_strbuf_append(e->out, "\n");
    tvm_strbuf_append(e->out, e->dyn_decls.data ? e->dyn_decls.data : "");
  } else {
    tvm_strbuf_append(e->out, e->decls.data ? e->decls.data : "");
  }
  tvm_strbuf_append(e->out, body.data ? body.data : "");
  if (body.oom || e->decls.oom || e->dyn_decls.oom)
    codegen_fail(e, TVM_ERR_NOMEM, "out of memory");
  tvm_strbuf_free(&body);
  tvm_strbuf_free(&e->decls);
  tvm_strbuf_free(&e->dyn_decls);
  tvm_strbuf_append(e->out, "}\n\n");
  k->shared_bytes = dyn ? e->dyn_bytes : e->shared_bytes;
  k->dynamic_shared = dyn;
}

/* Frees what tvm_c_emit_module allocated. */
void tvm_c_source_free(tvm_c_source *s) {
  if (!s) return;
  for (int i = 0; i < s->nkernels; i++) {
    tvm_free(s->kernels[i].name);
    tvm_free(s->kernels[i].arg_kinds);
  }
  tvm_free(s->kernels);
  tvm_free(s->text);
  memset(s, 0, sizeof *s);
}

/* Emits every device function of m (see tvm/codegen_c.h). */
tvm_status tvm_c_emit_module(const tvm_c_dialect *d, const tvm_module *m,
                             tvm_c_source *out) {
  if (!d || !m || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_c_emit_module: NULL argument");
  memset(out, 0, sizeof *out);
  int n = 0;
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i]->kind == TVM_FUNC_DEVICE) n++;
  if (n == 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s codegen: the module has no device function; bind "
                        "loops to blockIdx/threadIdx axes (tvm_bind) so "
                        "split_host_device makes kernels", d->name);
  codegen_c e;
  memset(&e, 0, sizeof e);
  e.d = d;
  e.c = tvm_ctx_create();
  out->kernels = tvm_calloc((size_t)n, sizeof *out->kernels);
  tvm_strbuf kernels;
  tvm_strbuf_init(&kernels);
  if (!e.c || !out->kernels) {
    tvm_ctx_destroy(e.c);
    tvm_free(out->kernels);
    out->kernels = NULL;
    return tvm_diag_set(TVM_ERR_NOMEM, "%s codegen: out of memory", d->name);
  }
  for (int i = 0; i < m->nfuncs && e.st == TVM_OK; i++) {
    if (m->funcs[i]->kind != TVM_FUNC_DEVICE) continue;
    e.out = &kernels;
    emit_kernel(&e, m->funcs[i], &out->kernels[out->nkernels++]);
    tvm_ptrmap_free(&e.names);
    tvm_strmap_free(&e.used);
    tvm_ptrmap_free(&e.buf_type);
    tvm_ptrmap_free(&e.hoisted);
    tvm_bounds_free(&e.bounds);
    tvm_ptrvec_free(&e.thread_vars);
    tvm_ptrmap_free(&e.frag);
    tvm_ptrmap_free(&e.scope_of);
    e.divergent = 0;
    e.in_threadidx = 0;
  }
  if (e.st == TVM_OK && e.uses_bf16 && !d->bf16_prelude)
    codegen_fail(&e, TVM_ERR_UNSUPPORTED, "bfloat16 is not supported by %s",
                 d->name);
  tvm_strbuf text;
  tvm_strbuf_init(&text);
  tvm_strbuf_append(&text, d->prelude ? d->prelude : "");
  if (e.uses_half && d->half_prelude) tvm_strbuf_append(&text, d->half_prelude);
  if (e.uses_bf16 && d->bf16_prelude) tvm_strbuf_append(&text, d->bf16_prelude);
  if (e.uses_f64 && d->f64_prelude) tvm_strbuf_append(&text, d->f64_prelude);
  if (e.uses_extern && d->extern_prelude)
    tvm_strbuf_append(&text, d->extern_prelude);
  codegen_helpers(d, &text);
  tvm_strbuf_append(&text, "\n");
  tvm_strbuf_append(&text, kernels.data ? kernels.data : "");
  if ((text.oom || kernels.oom || tvm_ctx_status(e.c) != TVM_OK) &&
      e.st == TVM_OK)
    e.st = tvm_diag_set(TVM_ERR_NOMEM, "%s codegen: out of memory", d->name);
  tvm_strbuf_free(&kernels);
  out->text = tvm_strbuf_take(&text);
  out->uses_half = e.uses_half;
  out->uses_bf16 = e.uses_bf16;
  out->uses_f64 = e.uses_f64;
  out->uses_extern = e.uses_extern;
  tvm_ctx_destroy(e.c);
  if (e.st != TVM_OK || !out->text) {
    tvm_status st = e.st != TVM_OK ? e.st : TVM_ERR_NOMEM;
    tvm_c_source_free(out);
    return st;
  }
  return TVM_OK;
}
