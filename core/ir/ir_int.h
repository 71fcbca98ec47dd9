/*
 * core/ir/ir_int.h - private helpers shared by the files of core/ir.
 */
#ifndef TVM_IR_INT_H
#define TVM_IR_INT_H

#include "tvm/ir.h"

/* Value of ctx->failed after a constructor rejected its operands (an
 * allocation failure sets 1). */
#define TVM__FAILED_INVALID 2

/* A zeroed expression node of the given kind and type in c's arena, or
 * NULL with c->failed set. */
tvm_expr *ir_expr_new(tvm_ctx *c, tvm_expr_kind k, tvm_dtype t);
/* A zeroed statement node, or NULL with c->failed set. */
tvm_stmt *ir_stmt_new(tvm_ctx *c, tvm_stmt_kind k);
/* Marks c failed (TVM__FAILED_INVALID), records a TVM_ERR_INVALID diagnostic and returns NULL:
 * `return ir_fail(c, "...")` in constructors. */
void *ir_fail(tvm_ctx *c, const char *fmt, ...) TVM_PRINTF(2, 3);
/* Copies n expression pointers into the arena into *dst (NULL for
 * n == 0); returns 0 when n < 0, src is NULL with n > 0, an entry is NULL
 * or memory runs out. */
int ir_copy_exprs(tvm_ctx *c, tvm_expr ***dst, tvm_expr *const *src, int n);

/* value, converted to var's type when it is a constant; NULL with a
 * diagnostic when var is not a variable or the types disagree.  what
 * names the construct ("let", "for") for the message. */
tvm_expr *ir_bind_value(tvm_ctx *c, tvm_expr *var, tvm_expr *value,
                          const char *what);

#endif
