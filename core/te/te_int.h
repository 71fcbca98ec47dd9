/*
 * core/te/te_int.h - helpers shared by the files of core/te (private).
 */
#ifndef TVM_TE_INT_H
#define TVM_TE_INT_H

#include "tvm/te.h"

/* A tensor with the given shape (exprs copied into the arena) whose op is
 * op; shape_c is filled from the constant entries (-1 where symbolic).
 * NULL with ctx->failed set when out of memory. */
tvm_tensor *te_tensor_new(tvm_ctx *c, tvm_operation *op, const char *name,
                          tvm_dtype t, tvm_expr **shape, int ndim);

/* Builds a TVM_REDUCE node without argument checks (axes copied). */
tvm_expr *te_reduce_node(tvm_ctx *c, tvm_reduce_op op, tvm_expr *source,
                         tvm_iter_var **axes, int naxes, tvm_expr *cond);

/* The int32 constant expressions of a constant shape, in the arena; NULL
 * with a diagnostic on a non-positive extent or OOM.  what/name are used
 * in the message ("placeholder A"). */
tvm_expr **te_const_shape(tvm_ctx *c, const char *what, const char *name,
                          const int64_t *shape, int ndim);

#endif /* TVM_TE_INT_H */
