/*
 * core/lower/simplify.c - the final "simplify" pass of the lowering
 * pipeline: tvm_simplify_stmt over the function body.
 */
#include "tvm/lower.h"

/* Builds a new function in c with f's name, kind, parameters, buffers and
 * thread axes, whose body is f's body simplified (loop ranges as bounds).
 * The input function is not modified. */
tvm_status tvm_pass_simplify(tvm_ctx *c, tvm_func *f,
                             const tvm_lower_options *o, tvm_func **out) {
  tvm_stmt *body;
  tvm_func *g;
  tvm_status st;
  if (!c || !f || !out)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "simplify: ctx, function and output must be non-NULL");
  *out = NULL;
  body = f->body ? tvm_simplify_stmt(c, f->body, NULL) : NULL;
  st = tvm_ctx_status(c);
  if (st != TVM_OK)
    return tvm_diag_prefix(st, "simplify of function '%s': ",
                           f->name ? f->name : "?");
  g = tvm_func_new(c, f->name, f->params, f->buffers, f->nparams, body);
  if (!g)
    return tvm_diag_set(TVM_ERR_NOMEM,
                        "simplify of function '%s': out of memory",
                        f->name ? f->name : "?");
  g->kind = f->kind;
  g->nthread_axes = f->nthread_axes;
  g->thread_tags = f->thread_tags;
  g->thread_extents = f->thread_extents;
  *out = g;
  return TVM_OK;
}
