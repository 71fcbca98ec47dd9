/*
 * core/ir/func.c - buffers, lowered functions and modules.
 */
#include <string.h>

#include "ir_int.h"

/* A compact row-major buffer named name (copied) over a fresh handle
 * variable of the same name; shape is copied; scope NULL = "global". */
tvm_buffer *tvm_buffer_new(tvm_ctx *c, const char *name, tvm_dtype t,
                           tvm_expr **shape, int ndim, const char *scope) {
  if (!name) name = "buf";
  tvm_buffer *b = tvm_ctx_alloc(c, sizeof(tvm_buffer));
  if (!b) return NULL;
  b->name = tvm_ctx_strdup(c, name);
  b->data = tvm_var(c, name, TVM_HANDLE);
  b->dtype = t;
  b->ndim = ndim;
  b->scope = tvm_ctx_strdup(c, scope ? scope : "global");
  if (!b->name || !b->data || !b->scope) return NULL;
  if (!ir_copy_exprs(c, &b->shape, shape, ndim)) {
    if (ndim < 0 || (ndim > 0 && !shape))
      return ir_fail(c, "buffer %s: bad shape", name);
    return NULL;
  }
  for (int i = 0; i < ndim; i++)
    if (!tvm_dtype_is_int(b->shape[i]->dtype))
      return ir_fail(c, "buffer %s: dimension %d is not an integer", name, i);
  return b;
}

/* A host function over params (copied; buffers may be NULL, meaning all
 * parameters are scalars) with body.  Device kernels set kind and the
 * thread axes on the result. */
tvm_func *tvm_func_new(tvm_ctx *c, const char *name, tvm_expr **params,
                       tvm_buffer **buffers, int nparams, tvm_stmt *body) {
  if (!body) return NULL;
  if (!name || !*name) return ir_fail(c, "function without a name");
  tvm_func *f = tvm_ctx_alloc(c, sizeof(tvm_func));
  if (!f) return NULL;
  f->name = tvm_ctx_strdup(c, name);
  if (!f->name) return NULL;
  f->kind = TVM_FUNC_HOST;
  if (!ir_copy_exprs(c, &f->params, params, nparams)) {
    if (nparams < 0 || (nparams > 0 && !params))
      return ir_fail(c, "function %s: bad parameter list", name);
    return NULL;
  }
  for (int i = 0; i < nparams; i++)
    if (f->params[i]->kind != TVM_VAR)
      return ir_fail(c, "function %s: parameter %d is not a variable",
                       name, i);
  if (nparams > 0) {
    f->buffers = tvm_ctx_alloc(c, sizeof(tvm_buffer *) * (size_t)nparams);
    if (!f->buffers) return NULL;
    if (buffers)
      memcpy(f->buffers, buffers, sizeof(tvm_buffer *) * (size_t)nparams);
  }
  f->nparams = nparams;
  f->body = body;
  return f;
}

/* Appends f to m.  The function array lives in m->ctx's arena and is
 * reallocated (copied) on every add, so a module may also be assembled by
 * hand with an array of exactly nfuncs entries. */
tvm_status tvm_module_add(tvm_module *m, tvm_func *f) {
  if (!m || !m->ctx)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_module_add: module has no context");
  if (!f)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_module_add: NULL function");
  for (int i = 0; i < m->nfuncs; i++)
    if (strcmp(m->funcs[i]->name, f->name) == 0)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "module already has a function named '%s': "
                          "give each function a unique name", f->name);
  tvm_func **nf =
      tvm_ctx_alloc(m->ctx, sizeof(tvm_func *) * (size_t)(m->nfuncs + 1));
  if (!nf)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory adding function %s",
                        f->name);
  if (m->nfuncs) memcpy(nf, m->funcs, sizeof(tvm_func *) * (size_t)m->nfuncs);
  nf[m->nfuncs] = f;
  m->funcs = nf;
  m->nfuncs++;
  return TVM_OK;
}
