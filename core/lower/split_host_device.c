/*
 * core/lower/split_host_device.c - the split_host_device pass.
 *
 * On device targets (tvm_lower_is_device), device code becomes device
 * functions.  On targets with threads, every outermost loop nest holding
 * thread-bound loops (TVM_FOR_THREAD) becomes a device function: kind TVM_FUNC_DEVICE,
 * named "<host>_kernel<k>" in order of appearance, whose parameters are
 * the variables the nest uses but does not define (buffers first seen
 * first: the host's buffer parameters and host-allocated buffers, with
 * their descriptors; scalars such as enclosing host loop variables with a
 * NULL descriptor), and whose thread_tags / thread_extents list its thread
 * axes in the order found.  The nest starts at the outermost thread loop,
 * or at a non-global allocation enclosing thread loops (shared or local
 * memory lives in the kernel).  On targets with hardware queues and no
 * threads (decoupled access-execute accelerators: the device's command
 * processor runs whole loop nests) every statement outside the global
 * allocations is one kernel, launched on a 1x1x1 grid.
 *
 * In the host function the nest is replaced by
 *   evaluate(launch("<kernel>", grid=(...), block=(...), shared=n,
 *                   args=(params...)))
 * (TVM_INTRIN_LAUNCH): grid extents are those of the blockIdx.x/y/z axes,
 * block extents those of threadIdx.x/y/z (1 where absent), shared the
 * bytes of the block-shared allocations in the kernel.  Host loops, lets,
 * ifs and global allocations around kernels stay on the host.  A thread
 * tag other than blockIdx.* / threadIdx.* is an error naming it.
 */
#include <string.h>

#include "tvm/lower.h"
#include "lower_int.h"

/* State of the pass. */
typedef struct split {
  tvm_ctx *c;
  const tvm_lower_options *o;
  tvm_func *f;
  tvm_module *m;
  tvm_ptrvec allocs; /* allocate statements of f, for buffer descriptors */
  int nkernels;
  tvm_status st;
} split;

/* Visitor hook: notes a thread-bound loop and stops. */
static int has_thread_hook(tvm_visitor *v, const tvm_stmt *s) {
  if (s->kind == TVM_FOR && s->u.for_.for_kind == TVM_FOR_THREAD)
    *(int *)v->data = 1;
  return *(int *)v->data;
}

/* Does s hold a thread-bound loop? */
static int has_thread(const tvm_stmt *s) {
  int found = 0;
  tvm_visitor v = {NULL, has_thread_hook, &found};
  tvm_visit_stmt(&v, s);
  return found;
}

/* Free variables and thread axes of a kernel body, in order. */
typedef struct kscan {
  tvm_ptrvec defined, used;
  tvm_ptrvec tags, extents;
  int oom;
} kscan;

/* Is p in v? */
static int contains(const tvm_ptrvec *v, const void *p) {
  for (size_t i = 0; i < v->len; i++)
    if (v->data[i] == p) return 1;
  return 0;
}

/* Appends p to v, noting OOM in k. */
static void push(kscan *k, tvm_ptrvec *v, void *p) {
  if (tvm_ptrvec_push(v, p) != TVM_OK) k->oom = 1;
}

/* Visitor hook: variables used (and let variables defined). */
static int scan_expr(tvm_visitor *v, const tvm_expr *e) {
  kscan *k = v->data;
  if (e->kind == TVM_LET) push(k, &k->defined, e->u.let.var);
  if (e->kind == TVM_VAR && !contains(&k->defined, e) && !contains(&k->used, e))
    push(k, &k->used, (void *)e);
  return 0;
}

/* Visitor hook: variables defined by loops, lets and allocations, and the
 * thread axes (first extent seen per tag). */
static int scan_stmt(tvm_visitor *v, const tvm_stmt *s) {
  kscan *k = v->data;
  if (s->kind == TVM_FOR) {
    push(k, &k->defined, s->u.for_.var);
    if (s->u.for_.for_kind == TVM_FOR_THREAD) {
      const char *tag = s->u.for_.thread_tag ? s->u.for_.thread_tag : "";
      int seen = 0;
      for (size_t i = 0; i < k->tags.len; i++)
        if (!strcmp(k->tags.data[i], tag)) seen = 1;
      if (!seen) {
        push(k, &k->tags, (void *)tag);
        push(k, &k->extents, s->u.for_.extent);
      }
    }
  }
  if (s->kind == TVM_LET_STMT) push(k, &k->defined, s->u.let.var);
  if (s->kind == TVM_ALLOCATE) push(k, &k->defined, s->u.alloc.buffer);
  return 0;
}

/* Descriptor of the buffer behind handle var b: a parameter's, or one
 * made from the host allocation defining it; NULL for scalars. */
static tvm_buffer *buffer_of(split *sp, tvm_expr *b) {
  if (!tvm_dtype_is_handle(b->dtype)) return NULL;
  for (int i = 0; i < sp->f->nparams; i++)
    if (sp->f->params[i] == b && sp->f->buffers) return sp->f->buffers[i];
  for (size_t i = 0; i < sp->allocs.len; i++) {
    tvm_stmt *a = sp->allocs.data[i];
    if (a->u.alloc.buffer != b) continue;
    tvm_buffer *buf = tvm_buffer_new(sp->c, b->u.var.name, a->u.alloc.dtype,
                                     &a->u.alloc.extent, 1, a->u.alloc.scope);
    if (buf) buf->data = b;
    return buf;
  }
  return NULL;
}

/* Visitor hook: adds the bytes of constant-size block-shared allocations. */
static int shared_hook(tvm_visitor *v, const tvm_stmt *s) {
  struct { split *sp; uint64_t bytes; } *w = v->data;
  int64_t n;
  if (s->kind != TVM_ALLOCATE) return 0;
  const tvm_scope_info *si = tvm_lower_find_scope(w->sp->o, s->u.alloc.scope);
  int shared = si ? (si->visibility & TVM_VIS_BLOCK) &&
                        !(si->visibility & TVM_VIS_DEVICE)
                  : !strcmp(s->u.alloc.scope, "shared");
  if (shared && tvm_is_const_int(s->u.alloc.extent, &n) && n > 0)
    w->bytes += (uint64_t)n * (uint64_t)tvm_dtype_bytes(s->u.alloc.dtype);
  return 0;
}

/* Bytes of block-shared memory nest r allocates. */
static uint64_t shared_bytes(split *sp, const tvm_stmt *r) {
  struct { split *sp; uint64_t bytes; } w = {sp, 0};
  tvm_visitor v = {NULL, shared_hook, &w};
  tvm_visit_stmt(&v, r);
  return w.bytes;
}

/* Makes a device function of nest r; returns the launch replacing it. */
static tvm_stmt *make_kernel(split *sp, tvm_stmt *r) {
  tvm_ctx *c = sp->c;
  kscan k = {{0}, {0}, {0}, {0}, 0};
  tvm_visitor v = {scan_expr, scan_stmt, &k};
  tvm_stmt *launch = NULL;
  tvm_visit_stmt(&v, r);
  int np = 0, n = (int)k.used.len, nt = (int)k.tags.len;
  tvm_expr **params = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(n + 1));
  tvm_buffer **bufs = tvm_ctx_alloc(c, sizeof(tvm_buffer *) * (size_t)(n + 1));
  const char **tags = tvm_ctx_alloc(c, sizeof(char *) * (size_t)(nt + 1));
  tvm_expr **exts = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(nt + 1));
  char *name = tvm_arena_printf(c->arena, "%s_kernel%d", sp->f->name,
                                sp->nkernels++);
  if (k.oom || !params || !bufs || !tags || !exts || !name) goto done;
  for (int i = 0; i < n; i++) {
    tvm_expr *x = k.used.data[i];
    if (contains(&k.defined, x)) continue; /* used before its definition */
    params[np] = x;
    bufs[np++] = buffer_of(sp, x);
  }
  for (int i = 0; i < nt; i++) {
    tags[i] = k.tags.data[i];
    exts[i] = k.extents.data[i];
  }
  tvm_func *kf = tvm_func_new(c, name, params, bufs, np, r);
  if (!kf) goto done;
  kf->kind = TVM_FUNC_DEVICE;
  kf->nthread_axes = nt;
  kf->thread_tags = tags;
  kf->thread_extents = exts;
  sp->st = tvm_module_add(sp->m, kf);
  if (sp->st != TVM_OK) goto done;
  tvm_expr *grid[3] = {NULL, NULL, NULL}, *block[3] = {NULL, NULL, NULL};
  for (int i = 0; i < nt; i++) {
    const char *t = tags[i];
    int dim = (int)strlen(t) - 1;
    dim = dim >= 0 ? t[dim] - 'x' : -1;
    int is_block = !strncmp(t, "blockIdx.", 9) && strlen(t) == 10;
    int is_thread = !strncmp(t, "threadIdx.", 10) && strlen(t) == 11;
    if ((!is_block && !is_thread) || dim < 0 || dim > 2) {
      sp->st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                            "kernel %s: loop bound to thread tag '%s'; a "
                            "launch has only blockIdx.x/y/z and "
                            "threadIdx.x/y/z: bind to one of them",
                            name, t);
      goto done;
    }
    if (is_block) grid[dim] = exts[i];
    else block[dim] = exts[i];
  }
  launch = tvm_evaluate(c, tvm_launch(c, name, grid, block,
                                      tvm_int(c, (int64_t)shared_bytes(sp, r)),
                                      params, np));
done:
  if (!launch && sp->st == TVM_OK) c->failed = 1;
  tvm_ptrvec_free(&k.defined);
  tvm_ptrvec_free(&k.used);
  tvm_ptrvec_free(&k.tags);
  tvm_ptrvec_free(&k.extents);
  return launch;
}

/* Queue targets without threads: global allocations stay on the host,
 * everything else under them is one kernel. */
static tvm_stmt *split_queue(split *sp, tvm_stmt *s) {
  if (!s) return s;
  if (s->kind == TVM_ALLOCATE && !strcmp(s->u.alloc.scope, "global")) {
    tvm_stmt *b = split_queue(sp, s->u.alloc.body);
    tvm_stmt *r = b ? tvm_allocate(sp->c, s->u.alloc.buffer, s->u.alloc.dtype,
                                   s->u.alloc.extent, s->u.alloc.scope, b)
                    : NULL;
    if (r) r->u.alloc.align = s->u.alloc.align;
    return r;
  }
  if (s->kind == TVM_SEQ && s->u.seq.n == 0) return s;
  return make_kernel(sp, s);
}

/* s with its kernels split off. */
static tvm_stmt *split_stmt(split *sp, tvm_stmt *s) {
  tvm_ctx *c = sp->c;
  if (!s || !has_thread(s)) return s;
  switch (s->kind) {
  case TVM_FOR:
    if (s->u.for_.for_kind == TVM_FOR_THREAD) return make_kernel(sp, s);
    return tvm_for(c, s->u.for_.var, s->u.for_.min, s->u.for_.extent,
                   s->u.for_.for_kind, s->u.for_.thread_tag,
                   split_stmt(sp, s->u.for_.body));
  case TVM_SEQ: {
    tvm_stmt **v = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)(s->u.seq.n + 1));
    if (!v) return NULL;
    for (int i = 0; i < s->u.seq.n; i++)
      if (!(v[i] = split_stmt(sp, s->u.seq.stmts[i]))) return NULL;
    return tvm_seq(c, v, s->u.seq.n);
  }
  case TVM_IF: {
    tvm_stmt *t = split_stmt(sp, s->u.if_.then_), *f = NULL;
    if (s->u.if_.else_ && !(f = split_stmt(sp, s->u.if_.else_))) return NULL;
    return t ? tvm_if(c, s->u.if_.cond, t, f) : NULL;
  }
  case TVM_ALLOCATE: {
    const tvm_scope_info *si = tvm_lower_find_scope(sp->o, s->u.alloc.scope);
    if (strcmp(s->u.alloc.scope, "global") &&
        !(si && (si->visibility & TVM_VIS_DEVICE)))
      return make_kernel(sp, s); /* shared/local memory: the kernel's */
    tvm_stmt *b = split_stmt(sp, s->u.alloc.body);
    tvm_stmt *r = b ? tvm_allocate(c, s->u.alloc.buffer, s->u.alloc.dtype,
                                   s->u.alloc.extent, s->u.alloc.scope, b)
                    : NULL;
    if (r) r->u.alloc.align = s->u.alloc.align;
    return r;
  }
  case TVM_LET_STMT:
    return tvm_let_stmt(c, s->u.let.var, s->u.let.value,
                        split_stmt(sp, s->u.let.body));
  case TVM_ATTR:
    return tvm_attr(c, s->u.attr.key, s->u.attr.node, s->u.attr.value,
                    split_stmt(sp, s->u.attr.body));
  case TVM_ASSERT:
    return tvm_assert(c, s->u.assert_.cond, s->u.assert_.msg,
                      split_stmt(sp, s->u.assert_.body));
  default:
    return make_kernel(sp, s);
  }
}

/* Visitor hook: collects the allocate statements of f. */
static int collect_allocs(tvm_visitor *v, const tvm_stmt *s) {
  split *sp = v->data;
  if (s->kind == TVM_ALLOCATE &&
      tvm_ptrvec_push(&sp->allocs, (void *)s) != TVM_OK)
    sp->c->failed = 1;
  return 0;
}

/* Splits the thread-bound nests of f into device functions appended to m
 * (see the file comment); *host is the host function (a copy of f). */
tvm_status tvm_pass_split_host_device(tvm_ctx *c, tvm_func *f,
                                      const tvm_lower_options *o,
                                      tvm_module *m, tvm_func **host) {
  split sp = {c, o, f, m, {0}, 0, TVM_OK};
  tvm_visitor v = {NULL, collect_allocs, &sp};
  tvm_stmt *body;
  if (!f || !o || !m || !host)
    return tvm_diag_set(TVM_ERR_INVALID, "split_host_device: NULL argument");
  if (!tvm_lower_is_device(o))
    return lower_with_body(c, f, f->body, "split_host_device", host);
  tvm_visit_stmt(&v, f->body);
  body = o->has_threads ? split_stmt(&sp, f->body) : split_queue(&sp, f->body);
  tvm_ptrvec_free(&sp.allocs);
  if (sp.st != TVM_OK)
    return tvm_diag_prefix(sp.st, "split_host_device (%s): ", f->name);
  return lower_with_body(c, f, body, "split_host_device", host);
}
