/*
 * core/lower/lower.c - the lowering pipeline: schedule -> loop IR
 * functions appended to a module.
 *
 *   infer_bound -> schedule_ops -> (wrap in a function) -> storage_flatten
 *   -> vectorize -> unroll -> inject_virtual_thread -> inject_dep_tokens
 *   (targets with hardware queues) -> storage_rewrite -> thread_sync and
 *   split_host_device (targets with thread axes) -> simplify
 *
 * The function's parameters are one buffer per argument tensor (handle
 * variable named after the tensor, compact row-major, scope "global"),
 * followed by the scalar variables of symbolic shapes.  The body produced
 * by schedule_ops is wrapped in `attr [T] buffer_bind = <handle>` for each
 * argument T so that storage_flatten can find the parameter buffer of a
 * tensor.
 */
#include <string.h>

#include "lower_int.h"

/* Calls the dump hook after pass `name` when asked to. */
static void dump(const tvm_lower_options *o, const char *name,
                 const tvm_func *f) {
  if (!o || !o->dump || !o->dump_pass || !f)
    return;
  if (strcmp(o->dump_pass, "all") == 0 || strcmp(o->dump_pass, name) == 0)
    o->dump(o->dump_ud, name, f);
}

/* The host function around body: parameters from args. */
static tvm_status make_func(tvm_ctx *c, tvm_tensor **args, int nargs,
                            const char *name, tvm_stmt *body, tvm_func **out) {
  tvm_ptrvec params = {0}, bufs = {0};
  tvm_status st = TVM_OK;
  for (int i = 0; st == TVM_OK && i < nargs; i++) {
    tvm_tensor *t = args[i];
    if (!t) {
      st = tvm_diag_set(TVM_ERR_INVALID, "lower %s: argument %d is NULL",
                        name, i);
      break;
    }
    for (int j = 0; j < i; j++)
      if (args[j] == t)
        st = tvm_diag_set(TVM_ERR_INVALID,
                          "lower %s: tensor %s is passed twice as an argument",
                          name, t->name);
    tvm_buffer *b = tvm_buffer_new(c, t->name, t->dtype, t->shape, t->ndim,
                                   "global");
    if (!b) {
      st = tvm_ctx_status(c) ? tvm_ctx_status(c) : TVM_ERR_NOMEM;
      break;
    }
    if (st == TVM_OK)
      st = tvm_ptrvec_push(&params, b->data);
    if (st == TVM_OK)
      st = tvm_ptrvec_push(&bufs, b);
    body = tvm_attr(c, LOWER_ATTR_BUFFER_BIND, t, b->data, body);
  }
  /* scalar parameters: variables of symbolic shapes, first use order */
  for (int i = 0; st == TVM_OK && i < nargs; i++)
    for (int d = 0; d < args[i]->ndim; d++) {
      tvm_expr *e = args[i]->shape[d];
      if (!e || e->kind != TVM_VAR)
        continue;
      int seen = 0;
      for (size_t k = 0; k < params.len; k++)
        if (params.data[k] == e)
          seen = 1;
      if (!seen) {
        st = tvm_ptrvec_push(&params, e);
        if (st == TVM_OK)
          st = tvm_ptrvec_push(&bufs, NULL);
      }
    }
  if (st == TVM_OK) {
    tvm_func *f = tvm_func_new(c, name, (tvm_expr **)params.data,
                               (tvm_buffer **)bufs.data, (int)params.len, body);
    if (!f)
      st = tvm_ctx_status(c) ? tvm_ctx_status(c) : TVM_ERR_NOMEM;
    else
      *out = f;
  }
  tvm_ptrvec_free(&params);
  tvm_ptrvec_free(&bufs);
  return st;
}

/* Visitor hook: finds the first loop bound to a hardware thread. */
static int thread_hook(tvm_visitor *v, const tvm_stmt *s) {
  if (s->kind == TVM_FOR && s->u.for_.for_kind == TVM_FOR_THREAD && !v->data)
    v->data = (void *)s;
  return 0;
}

typedef tvm_status (*pass_fn)(tvm_ctx *, tvm_func *, const tvm_lower_options *,
                              tvm_func **);

/* Runs one pass, dumps, and names the pass in a failure. */
static tvm_status run(tvm_ctx *c, const char *pname, pass_fn fn,
                      const tvm_lower_options *o, tvm_func **f) {
  tvm_func *nf = NULL;
  tvm_status st = fn(c, *f, o, &nf);
  if (st != TVM_OK)
    return tvm_diag_prefix(st, "%s: ", pname);
  *f = nf;
  dump(o, pname, nf);
  return TVM_OK;
}

/* Lowers s into m (see lower.h and the file comment). */
tvm_status tvm_lower(tvm_schedule *s, tvm_tensor **args, int nargs,
                     const char *name, const tvm_lower_options *o,
                     tvm_module *m) {
  if (!s || !m || !name || (nargs > 0 && !args))
    return tvm_diag_set(TVM_ERR_INVALID, "lower: NULL argument");
  tvm_lower_options defaults;
  if (!o) {
    tvm_lower_options_init(&defaults);
    o = &defaults;
  }
  tvm_ctx *c = s->ctx;
  tvm_ptrmap ranges = {0};
  tvm_stmt *body = NULL;
  tvm_func *f = NULL;
  tvm_status st = tvm_infer_bound(s, &ranges);
  if (st == TVM_OK)
    st = tvm_schedule_ops(s, &ranges, &body);
  tvm_ptrmap_free(&ranges);
  if (st == TVM_OK)
    st = make_func(c, args, nargs, name, body, &f);
  if (st != TVM_OK)
    return tvm_diag_prefix(st, "lower %s: ", name);
  if (!o->has_threads) {
    tvm_visitor v = {NULL, thread_hook, NULL};
    tvm_visit_stmt(&v, body);
    if (v.data) {
      const tvm_stmt *l = v.data;
      return tvm_diag_set(TVM_ERR_INVALID,
                          "lower %s: loop %s is bound to %s, but the target "
                          "has no thread axes; remove the bind() or use a "
                          "target that launches kernels",
                          name, l->u.for_.var->u.var.name,
                          l->u.for_.thread_tag ? l->u.for_.thread_tag : "?");
    }
  }
  dump(o, "schedule_ops", f);
  st = run(c, "storage_flatten", tvm_pass_storage_flatten, o, &f);
  if (st == TVM_OK)
    st = run(c, "vectorize", tvm_pass_vectorize, o, &f);
  if (st == TVM_OK)
    st = run(c, "unroll", tvm_pass_unroll, o, &f);
  if (st == TVM_OK)
    st = run(c, "inject_virtual_thread", tvm_pass_inject_virtual_thread, o, &f);
  if (st == TVM_OK && o->num_queues > 0)
    st = run(c, "inject_dep_tokens", tvm_pass_inject_dep_tokens, o, &f);
  if (st == TVM_OK)
    st = run(c, "storage_rewrite", tvm_pass_storage_rewrite, o, &f);
  if (st == TVM_OK && o->has_threads)
    st = run(c, "thread_sync", tvm_pass_thread_sync, o, &f);
  int first_new = m->nfuncs;
  if (st == TVM_OK && o->has_threads) {
    tvm_func *host = NULL;
    st = tvm_pass_split_host_device(c, f, o, m, &host);
    if (st != TVM_OK)
      st = tvm_diag_prefix(st, "split_host_device: ");
    else {
      f = host;
      dump(o, "split_host_device", f);
    }
  }
  /* simplify the host function and the kernels split off just now */
  for (int i = first_new; st == TVM_OK && i < m->nfuncs; i++) {
    tvm_func *k = NULL;
    st = tvm_pass_simplify(c, m->funcs[i], o, &k);
    if (st == TVM_OK) {
      m->funcs[i] = k;
      dump(o, "simplify", k);
    }
  }
  if (st == TVM_OK)
    st = run(c, "simplify", tvm_pass_simplify, o, &f);
  if (st == TVM_OK)
    st = tvm_module_add(m, f);
  if (st != TVM_OK)
    return tvm_diag_prefix(st, "lower %s: ", name);
  return TVM_OK;
}

/* See lower_int.h. */
tvm_status lower_with_body(tvm_ctx *c, const tvm_func *f,
                                tvm_stmt *body, const char *pass,
                                tvm_func **out) {
  tvm_func *r;
  if (!body || c->failed) {
    tvm_status st = tvm_ctx_status(c);
    return st != TVM_OK ? st
                        : tvm_diag_set(TVM_ERR_INTERNAL,
                                       "%s: rewriting %s failed", pass,
                                       f->name);
  }
  if (!(r = tvm_ctx_alloc(c, sizeof *r)))
    return tvm_ctx_status(c);
  *r = *f;
  r->body = body;
  *out = r;
  return TVM_OK;
}
