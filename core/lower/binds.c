/*
 * core/lower/binds.c - what a statement binds, for the passes that copy
 * statements into versions (vectorize's full tiles, hoist_guards).
 *
 * A condition may be hoisted over a statement only if it uses no variable
 * the statement binds (loop variables, lets, buffers it allocates); and a
 * statement may be copied into two versions only if the copy is free: it
 * holds no allocation of a scope other than local or global (shared
 * memory, accelerator buffers), no attribute (queue tokens, pragmas) and
 * no barrier (a barrier under a divergent branch deadlocks).
 */
#include <string.h>

#include "lower_int.h"

/* Visitor hook: records what s binds and whether it may be copied. */
static int bind_hook(tvm_visitor *v, const tvm_stmt *s) {
  lower_binds *b = v->data;
  const tvm_expr *var = NULL;
  if (s->kind == TVM_FOR) var = s->u.for_.var;
  else if (s->kind == TVM_LET_STMT) var = s->u.let.var;
  else if (s->kind == TVM_ALLOCATE) var = s->u.alloc.buffer;
  if (s->kind == TVM_ALLOCATE && s->u.alloc.scope &&
      strcmp(s->u.alloc.scope, "local") && strcmp(s->u.alloc.scope, "global"))
    b->fixed = 1;
  if (s->kind == TVM_ATTR || s->kind == TVM_BARRIER) b->fixed = 1;
  if (var && tvm_ptrmap_put(&b->bound, var, (void *)1) != TVM_OK)
    b->fixed = 1;
  return 0;
}

/* See lower_int.h. */
void lower_binds_scan(lower_binds *b, const tvm_stmt *s) {
  tvm_visitor v = {NULL, bind_hook, b};
  memset(b, 0, sizeof *b);
  tvm_visit_stmt(&v, s);
}
