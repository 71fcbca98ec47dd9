/*
 * core/lower/lower.c - the lowering pipeline: schedule -> loop IR
 * functions appended to a module.
 *
 *   infer_bound -> schedule_ops -> (wrap in a function), then the passes
 *   of the pipeline table below: storage_flatten -> vectorize -> unroll
 *   -> inject_virtual_thread -> inject_double_buffer -> inject_dep_tokens
 *   (targets with hardware queues) -> storage_rewrite ->
 *   check_scope_capacity -> thread_sync
 *   (targets with thread axes) -> split_host_device (device targets) ->
 *   simplify (host function and kernels).  After each pass the target's
 *   own passes inserted there run (tvm_lower_options.extra_passes).
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

/* When a pass of the table runs. */
enum { RUN_ALWAYS, RUN_QUEUES, RUN_THREADS, RUN_DEVICE };

/* One built-in pass of the pipeline.  fn NULL: schedule_ops (runs before
 * the function exists, a dump point) and split_host_device (its own
 * signature: it adds kernels to the module). */
typedef struct lower_step {
  const char *name;
  pass_fn fn;
  int when;
} lower_step;

/* THE lowering pipeline: the run, --dump-ir and tvm_lower_pass_names all
 * read this one table (an X-macro: the steps and their names are two
 * views of it; keep tvm/lower.h's list in step). */
#define LOWER_PIPELINE(X)                                                \
  X("schedule_ops", NULL, RUN_ALWAYS)                                    \
  X("storage_flatten", tvm_pass_storage_flatten, RUN_ALWAYS)             \
  X("vectorize", tvm_pass_vectorize, RUN_ALWAYS)                         \
  X("unroll", tvm_pass_unroll, RUN_ALWAYS)                               \
  X("hoist_guards", tvm_pass_hoist_guards, RUN_ALWAYS)                   \
  X("inject_virtual_thread", tvm_pass_inject_virtual_thread, RUN_ALWAYS) \
  X("inject_double_buffer", tvm_pass_inject_double_buffer, RUN_ALWAYS)   \
  X("inject_dep_tokens", tvm_pass_inject_dep_tokens, RUN_QUEUES)         \
  X("storage_rewrite", tvm_pass_storage_rewrite, RUN_ALWAYS)             \
  X("check_scope_capacity", tvm_pass_check_scope_capacity, RUN_ALWAYS)   \
  X("thread_sync", tvm_pass_thread_sync, RUN_THREADS)                    \
  X("split_host_device", NULL, RUN_DEVICE)                               \
  X("simplify", tvm_pass_simplify, RUN_ALWAYS)
#define LOWER_STEP(name, fn, when) {name, fn, when},
#define LOWER_NAME(name, fn, when) name,

static const lower_step pipeline[] = {LOWER_PIPELINE(LOWER_STEP)};
static const char *const pipeline_names[] = {LOWER_PIPELINE(LOWER_NAME) NULL};
#define NPIPELINE ((int)(sizeof pipeline / sizeof pipeline[0]))

/* The built-in pass names in order (see lower.h). */
const char *const *tvm_lower_pass_names(void) { return pipeline_names; }

/* Index of built-in pass name, or -1. */
static int builtin_index(const char *name) {
  for (int i = 0; name && i < NPIPELINE; i++)
    if (!strcmp(pipeline[i].name, name)) return i;
  return -1;
}

/* See lower.h. */
int tvm_lower_has_pass(const tvm_lower_options *o, const char *name) {
  if (builtin_index(name) >= 0) return 1;
  for (int i = 0; name && o && o->extra_passes && i < o->nextra_passes; i++)
    if (o->extra_passes[i].name && !strcmp(o->extra_passes[i].name, name))
      return 1;
  return 0;
}

/* See lower.h. */
tvm_status tvm_lower_check_passes(const tvm_lower_options *o) {
  for (int i = 0; o && o->extra_passes && i < o->nextra_passes; i++) {
    const tvm_lower_pass *p = &o->extra_passes[i];
    int ok = p->after && builtin_index(p->after) >= 0;
    for (int j = 0; !ok && p->after && j < i; j++)
      ok = o->extra_passes[j].name && !strcmp(o->extra_passes[j].name, p->after);
    if (!p->name || !*p->name || !p->run || builtin_index(p->name) >= 0)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "target lowering pass %d ('%s'): it needs a name "
                          "of its own (not a built-in pass's) and a run "
                          "function",
                          i, p->name ? p->name : "");
    if (!ok) {
      tvm_strbuf b;
      tvm_strbuf_init(&b);
      for (int k = 0; k < NPIPELINE; k++)
        tvm_strbuf_printf(&b, "%s%s", k ? ", " : "", pipeline[k].name);
      tvm_status st = tvm_diag_set(
          TVM_ERR_INVALID,
          "target lowering pass '%s' runs after '%s', which is no pass; "
          "insert it after one of: %s (or an earlier target pass)",
          p->name, p->after ? p->after : "(null)", b.data ? b.data : "");
      tvm_strbuf_free(&b);
      return st;
    }
  }
  return TVM_OK;
}

/* The functions a run is working on: the host function and (after
 * split_host_device) its kernels, which live in m from index first. */
typedef struct lower_run {
  tvm_ctx *c;
  const tvm_lower_options *o;
  tvm_module *m;
  int first; /* first kernel of this run in m */
  tvm_func *host;
} lower_run;

/* Applies fn (a built-in pass) to every function of the run, kernels
 * first, dumping each under pname. */
static tvm_status apply(lower_run *r, const char *pname, pass_fn fn) {
  tvm_func *nf = NULL;
  tvm_status st;
  for (int i = r->first; i < r->m->nfuncs; i++) {
    if ((st = fn(r->c, r->m->funcs[i], r->o, &nf)) != TVM_OK)
      return tvm_diag_prefix(st, "%s: ", pname);
    r->m->funcs[i] = nf;
    dump(r->o, pname, nf);
  }
  if ((st = fn(r->c, r->host, r->o, &nf)) != TVM_OK)
    return tvm_diag_prefix(st, "%s: ", pname);
  r->host = nf;
  dump(r->o, pname, nf);
  return TVM_OK;
}

/* Runs a target's pass p on one function. */
static tvm_status run_extra(lower_run *r, const tvm_lower_pass *p,
                            tvm_func **f) {
  tvm_func *nf = NULL;
  tvm_diag_clear();
  int32_t rc = p->run(r->o->pass_target, r->c, *f, &nf);
  if (rc == 0 && nf) {
    *f = nf;
    dump(r->o, p->name, nf);
    return TVM_OK;
  }
  tvm_status st = rc < 0 ? (tvm_status)rc : TVM_ERR_INTERNAL;
  if (tvm_diag_status() == TVM_OK)
    tvm_diag_set(st, "returned %d%s", (int)rc, nf ? "" : " and no function");
  return tvm_diag_prefix(st, "target pass %s (after %s) on %s: ", p->name,
                         p->after, (*f)->name);
}

/* Runs the target's passes inserted after `name` (and, recursively, those
 * inserted after them), on every function of the run. */
static tvm_status run_extras_after(lower_run *r, const char *name) {
  const tvm_lower_options *o = r->o;
  for (int i = 0; o->extra_passes && i < o->nextra_passes; i++) {
    const tvm_lower_pass *p = &o->extra_passes[i];
    if (!p->after || strcmp(p->after, name) != 0) continue;
    tvm_status st = TVM_OK;
    for (int k = r->first; st == TVM_OK && k < r->m->nfuncs; k++)
      st = run_extra(r, p, &r->m->funcs[k]);
    if (st == TVM_OK) st = run_extra(r, p, &r->host);
    if (st == TVM_OK) st = run_extras_after(r, p->name);
    if (st != TVM_OK) return st;
  }
  return TVM_OK;
}

/* Runs the pipeline table on host function f (after schedule_ops): each
 * pass whose condition holds, then the target's passes inserted after it;
 * the host function (and its kernels) end up in m. */
static tvm_status run_pipeline(tvm_ctx *c, const tvm_lower_options *o,
                               tvm_module *m, tvm_func *f) {
  lower_run r = {c, o, m, m->nfuncs, f};
  tvm_status st = tvm_lower_check_passes(o);
  int device = tvm_lower_is_device(o);
  for (int i = 0; st == TVM_OK && i < NPIPELINE; i++) {
    const lower_step *p = &pipeline[i];
    if ((p->when == RUN_QUEUES && o->num_queues <= 0) ||
        (p->when == RUN_THREADS && !o->has_threads) ||
        (p->when == RUN_DEVICE && !device))
      continue;
    if (p->fn) {
      st = apply(&r, p->name, p->fn);
    } else if (i > 0) { /* split_host_device */
      tvm_func *host = NULL;
      st = tvm_pass_split_host_device(c, r.host, o, m, &host);
      if (st != TVM_OK) {
        st = tvm_diag_prefix(st, "split_host_device: ");
      } else {
        r.host = host;
        for (int k = r.first; k < m->nfuncs; k++)
          dump(o, p->name, m->funcs[k]);
        dump(o, p->name, host);
      }
    }
    if (st == TVM_OK) st = run_extras_after(&r, p->name);
    if (st == TVM_OK && o->stop_after && !strcmp(o->stop_after, p->name))
      return TVM_OK;
  }
  if (st == TVM_OK && device) st = tvm_func_verify_launches(r.host, m);
  if (st == TVM_OK) st = tvm_module_add(m, r.host);
  return st;
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
  int first = m->nfuncs;
  lower_run r0 = {c, o, m, first, f};
  st = run_extras_after(&r0, "schedule_ops");
  if (st == TVM_OK)
    st = run_pipeline(c, o, m, r0.host);
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
