/*
 * core/te/reduce.c - commutative reductions: sum, max, min (and product),
 * their identities and combiners.
 */
#include <math.h>

#include "te_int.h"

/* Builds a TVM_REDUCE node in the arena, copying the axes array. */
tvm_expr *te_reduce_node(tvm_ctx *c, tvm_reduce_op op, tvm_expr *source,
                         tvm_iter_var **axes, int naxes, tvm_expr *cond) {
  tvm_expr *e = tvm_ctx_alloc(c, sizeof(*e));
  tvm_iter_var **ax =
      tvm_ctx_alloc(c, sizeof(tvm_iter_var *) * (size_t)(naxes + 1));
  if (!e || !ax)
    return NULL;
  for (int i = 0; i < naxes; i++)
    ax[i] = axes[i];
  e->kind = TVM_REDUCE;
  e->dtype = source->dtype;
  e->u.reduce.op = op;
  e->u.reduce.source = source;
  e->u.reduce.axes = ax;
  e->u.reduce.naxes = naxes;
  e->u.reduce.cond = cond;
  return e;
}

/* A reduction of source over axes (reduce iteration variables), counting
 * only the points where cond holds (cond NULL = all).  Returns NULL when
 * source is NULL (a failed child), on OOM, or with a diagnostic when an
 * axis is missing or not a reduce axis. */
tvm_expr *tvm_reduce(tvm_ctx *c, tvm_reduce_op op, tvm_expr *source,
                     tvm_iter_var **axes, int naxes, tvm_expr *cond) {
  if (!source)
    return NULL;
  if (naxes <= 0 || !axes) {
    tvm_diag_set(TVM_ERR_INVALID,
                 "reduction: no axes given; create them with tvm_reduce_axis");
    return NULL;
  }
  for (int i = 0; i < naxes; i++) {
    if (!axes[i]) {
      tvm_diag_set(TVM_ERR_INVALID, "reduction: axis %d is NULL", i);
      return NULL;
    }
    if (axes[i]->kind != TVM_IV_REDUCE) {
      tvm_diag_set(TVM_ERR_INVALID,
                   "reduction: axis %s is not a reduce axis; create it with "
                   "tvm_reduce_axis",
                   axes[i]->var->u.var.name);
      return NULL;
    }
  }
  return te_reduce_node(c, op, source, axes, naxes, cond);
}

tvm_expr *tvm_sum(tvm_ctx *c, tvm_expr *src, tvm_iter_var **axes, int naxes) {
  return tvm_reduce(c, TVM_REDUCE_SUM, src, axes, naxes, NULL);
}

tvm_expr *tvm_rmax(tvm_ctx *c, tvm_expr *src, tvm_iter_var **axes,
                   int naxes) {
  return tvm_reduce(c, TVM_REDUCE_MAX, src, axes, naxes, NULL);
}

tvm_expr *tvm_rmin(tvm_ctx *c, tvm_expr *src, tvm_iter_var **axes,
                   int naxes) {
  return tvm_reduce(c, TVM_REDUCE_MIN, src, axes, naxes, NULL);
}

/* Largest (hi = 1) or smallest value of an integer type, as an int64 bit
 * pattern (unsigned 64-bit maximum is -1). */
static int64_t int_limit(tvm_dtype t, int hi) {
  int bits = t.bits >= 64 ? 64 : t.bits;
  if (t.code == kDLUInt) {
    if (!hi)
      return 0;
    return bits == 64 ? -1 : (int64_t)((UINT64_C(1) << bits) - 1);
  }
  if (bits == 64)
    return hi ? INT64_MAX : INT64_MIN;
  int64_t m = (int64_t)(UINT64_C(1) << (bits - 1));
  return hi ? m - 1 : -m;
}

/* The identity of op in type t: 0 for sum, 1 for product, -inf / +inf
 * (floats) or the type's limits (integers) for max / min.  Vector types
 * get a broadcast of the scalar identity. */
tvm_expr *tvm_reduce_identity(tvm_ctx *c, tvm_reduce_op op, tvm_dtype t) {
  tvm_dtype el = tvm_dtype_element(t);
  int fl = tvm_dtype_is_float(el);
  tvm_expr *e = NULL;
  switch (op) {
  case TVM_REDUCE_SUM:
    e = fl ? tvm_fconst(c, el, 0.0) : tvm_const(c, el, 0);
    break;
  case TVM_REDUCE_PROD:
    e = fl ? tvm_fconst(c, el, 1.0) : tvm_const(c, el, 1);
    break;
  case TVM_REDUCE_MAX:
    e = fl ? tvm_fconst(c, el, -INFINITY) : tvm_const(c, el, int_limit(el, 0));
    break;
  case TVM_REDUCE_MIN:
    e = fl ? tvm_fconst(c, el, INFINITY) : tvm_const(c, el, int_limit(el, 1));
    break;
  }
  if (e && t.lanes > 1)
    e = tvm_broadcast(c, e, t.lanes);
  return e;
}

/* One step of the reduction: acc + value, max(acc, value), ... */
tvm_expr *tvm_reduce_combine(tvm_ctx *c, tvm_reduce_op op, tvm_expr *acc,
                             tvm_expr *value) {
  switch (op) {
  case TVM_REDUCE_SUM:
    return tvm_add(c, acc, value);
  case TVM_REDUCE_PROD:
    return tvm_mul(c, acc, value);
  case TVM_REDUCE_MAX:
    return tvm_max(c, acc, value);
  case TVM_REDUCE_MIN:
    return tvm_min(c, acc, value);
  }
  return NULL;
}
