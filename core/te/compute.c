/*
 * core/te/compute.c - compute operations: out[i..] = body(i..).
 *
 * The body callback runs once, at declaration.  A reduction is only
 * allowed at the top of the body (as in TVM); its axes become the op's
 * reduce_axis.
 */
#include <string.h>

#include "te_int.h"

/* Name of data axis d of an ndim-dimensional compute: i, j, k, l for up
 * to four dimensions, i0, i1, ... beyond. */
static const char *axis_name(tvm_ctx *c, int d, int ndim) {
  static const char *const small[] = {"i", "j", "k", "l"};
  if (ndim <= 4)
    return small[d];
  return tvm_arena_printf(c->arena, "i%d", d);
}

typedef struct body_check {
  const tvm_expr *top;    /* the top-level reduce, or NULL */
  const tvm_expr *nested; /* first reduce found elsewhere */
  const tvm_expr *bad_read; /* first tread with the wrong arity */
} body_check;

/* Visitor hook: finds reductions below the top and reads whose number of
 * indices differs from the tensor's rank. */
static int check_hook(tvm_visitor *v, const tvm_expr *e) {
  body_check *bc = v->data;
  if (e->kind == TVM_REDUCE && e != bc->top && !bc->nested)
    bc->nested = e;
  if (e->kind == TVM_TREAD && !bc->bad_read &&
      (!e->u.tread.tensor || e->u.tread.n != e->u.tread.tensor->ndim))
    bc->bad_read = e;
  return 0;
}

/* Checks a compute body; TVM_OK or TVM_ERR_INVALID naming the op. */
static tvm_status check_body(const char *name, tvm_expr *body) {
  body_check bc = {NULL, NULL, NULL};
  if (body->kind == TVM_REDUCE)
    bc.top = body;
  tvm_visitor v = {check_hook, NULL, &bc};
  tvm_visit_expr(&v, body);
  if (bc.nested)
    return tvm_diag_set(
        TVM_ERR_INVALID,
        "compute %s: a reduction (%s) is nested inside the body; a reduction "
        "must be the whole body: compute it in its own tensor and read that",
        name, bc.top ? "inside another reduction" : "inside an expression");
  if (bc.bad_read) {
    const tvm_tensor *t = bc.bad_read->u.tread.tensor;
    if (!t)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "compute %s: a tensor read has no tensor", name);
    return tvm_diag_set(TVM_ERR_INVALID,
                        "compute %s: %s is read with %d indices but has %d "
                        "dimensions",
                        name, t->name, bc.bad_read->u.tread.n, t->ndim);
  }
  return TVM_OK;
}

/* Renames a data axis that shares its name with a reduce axis (i, j, k
 * meeting a user's reduce axis k) to keep printed schedules readable.  The
 * variable is ours and only identified by pointer, so only its printed
 * name changes. */
static void dedupe_names(tvm_ctx *c, tvm_operation *op) {
  for (int d = 0; d < op->naxis; d++) {
    tvm_expr *v = op->axis[d]->var;
    for (int r = 0; r < op->nreduce; r++) {
      if (strcmp(v->u.var.name, op->reduce_axis[r]->var->u.var.name) == 0) {
        const char *nn = tvm_arena_printf(c->arena, "%s%d", v->u.var.name, d);
        if (nn)
          v->u.var.name = nn;
        break;
      }
    }
  }
}

/* Declares out[i0..] = fn(i0..) over a symbolic shape.  Creates one
 * data-parallel axis per dimension with domain [0, shape[d]), calls fn
 * once, and checks the body.  Returns the output tensor (arena), or NULL
 * with a diagnostic naming the compute. */
tvm_tensor *tvm_compute_sym(tvm_ctx *c, const char *name, tvm_expr **shape,
                            int ndim, tvm_compute_fn fn, void *ud) {
  if (!name || !*name) {
    tvm_diag_set(TVM_ERR_INVALID, "compute: a tensor needs a non-empty name");
    return NULL;
  }
  if (ndim < 0 || !fn || (ndim > 0 && !shape)) {
    tvm_diag_set(TVM_ERR_INVALID,
                 "compute %s: needs ndim >= 0, a shape and a body callback",
                 name);
    return NULL;
  }
  for (int d = 0; d < ndim; d++)
    if (!shape[d]) {
      tvm_diag_set(TVM_ERR_INVALID, "compute %s: shape[%d] is NULL", name, d);
      return NULL;
    }
  tvm_operation *op = tvm_ctx_alloc(c, sizeof(*op));
  tvm_expr **index = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(ndim + 1));
  if (!op || !index)
    goto oom;
  op->kind = TVM_OP_COMPUTE;
  op->name = tvm_ctx_strdup(c, name);
  op->tag = "";
  op->naxis = ndim;
  op->axis = tvm_ctx_alloc(c, sizeof(tvm_iter_var *) * (size_t)(ndim + 1));
  if (!op->name || !op->axis)
    goto oom;
  for (int d = 0; d < ndim; d++) {
    op->axis[d] = tvm_iter_var_new(c, axis_name(c, d, ndim), tvm_int(c, 0),
                                   shape[d], TVM_IV_DATA_PAR);
    if (!op->axis[d])
      goto oom;
    index[d] = op->axis[d]->var;
  }
  tvm_diag_clear();
  tvm_expr *body = fn(c, index, ud);
  if (!body) {
    /* A constructor that failed inside fn left its own diagnostic. */
    if (tvm_diag_status() != TVM_OK)
      tvm_diag_prefix(tvm_diag_status(), "compute %s: ", name);
    else
      tvm_diag_set(TVM_ERR_INVALID,
                   "compute %s: the body callback returned NULL", name);
    return NULL;
  }
  if (check_body(name, body) != TVM_OK)
    return NULL;
  op->body = body;
  if (body->kind == TVM_REDUCE) {
    op->reduce_axis = body->u.reduce.axes;
    op->nreduce = body->u.reduce.naxes;
    dedupe_names(c, op);
  }
  if (!te_tensor_new(c, op, name, body->dtype, shape, ndim))
    goto oom;
  return op->output;
oom:
  tvm_ctx_status(c);
  return NULL;
}

/* Declares out[i0..] = fn(i0..) over a constant shape. */
tvm_tensor *tvm_compute(tvm_ctx *c, const char *name, const int64_t *shape,
                        int ndim, tvm_compute_fn fn, void *ud) {
  if (ndim < 0 || (ndim > 0 && !shape)) {
    tvm_diag_set(TVM_ERR_INVALID, "compute %s: bad shape",
                 name ? name : "?");
    return NULL;
  }
  tvm_expr **sh = te_const_shape(c, "compute", name, shape, ndim);
  if (!sh)
    return NULL;
  return tvm_compute_sym(c, name, sh, ndim, fn, ud);
}
