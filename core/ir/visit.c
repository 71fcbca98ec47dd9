/*
 * core/ir/visit.c - read-only traversal of expressions and statements,
 * and the uses-variable queries built on it.
 *
 * The children of a node are its expression and statement operands in
 * source order, except variables in DEFINING positions: the loop variable
 * of a for, the variable of a let (expression or statement) and the buffer
 * variable of an allocate are not visited (their uses are).  Load and store
 * buffer variables are uses and are visited.  Tensors, iteration variables
 * (reduction axes, whose dom min/extent are not children either) and the
 * node of an attr are not expressions and are not visited; the value of an
 * attr is.  Realize bounds (min, extent) are children.
 */
#include "tvm/ir.h"
#include "tvm/te.h"

/* Visits each child of e (see the file comment). */
void tvm_visit_expr_children(tvm_visitor *v, const tvm_expr *e) {
  if (!e) return;
  switch (e->kind) {
  case TVM_INT:
  case TVM_FLOAT:
  case TVM_STR:
  case TVM_VAR:
  case TVM_EXPR_KIND_COUNT:
    return;
  case TVM_NOT:
  case TVM_CAST:
    tvm_visit_expr(v, e->u.un.a);
    return;
  case TVM_SELECT:
    tvm_visit_expr(v, e->u.sel.cond);
    tvm_visit_expr(v, e->u.sel.t);
    tvm_visit_expr(v, e->u.sel.f);
    return;
  case TVM_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) tvm_visit_expr(v, e->u.call.args[i]);
    return;
  case TVM_LOAD:
    tvm_visit_expr(v, e->u.load.buffer);
    tvm_visit_expr(v, e->u.load.index);
    tvm_visit_expr(v, e->u.load.pred);
    return;
  case TVM_RAMP:
    tvm_visit_expr(v, e->u.ramp.base);
    tvm_visit_expr(v, e->u.ramp.stride);
    return;
  case TVM_BROADCAST:
    tvm_visit_expr(v, e->u.bcast.value);
    return;
  case TVM_LET:
    tvm_visit_expr(v, e->u.let.value);
    tvm_visit_expr(v, e->u.let.body);
    return;
  case TVM_TREAD:
    for (int i = 0; i < e->u.tread.n; i++) tvm_visit_expr(v, e->u.tread.indices[i]);
    return;
  case TVM_REDUCE:
    tvm_visit_expr(v, e->u.reduce.source);
    tvm_visit_expr(v, e->u.reduce.cond);
    return;
  default: /* binary kinds */
    tvm_visit_expr(v, e->u.bin.a);
    tvm_visit_expr(v, e->u.bin.b);
    return;
  }
}

/* Calls the expr hook on e and descends unless it returned 1.  NULL e is
 * ignored; so is every expression when there is no expr hook (an
 * expression holds no statement, so nothing in it could call a hook:
 * statement-only walks skip the expression trees, which hold most of the
 * nodes). */
void tvm_visit_expr(tvm_visitor *v, const tvm_expr *e) {
  if (!e || !v->expr) return;
  if (v->expr(v, e)) return;
  tvm_visit_expr_children(v, e);
}

/* Visits each child of s (see the file comment). */
void tvm_visit_stmt_children(tvm_visitor *v, const tvm_stmt *s) {
  if (!s) return;
  switch (s->kind) {
  case TVM_FOR:
    tvm_visit_expr(v, s->u.for_.min);
    tvm_visit_expr(v, s->u.for_.extent);
    tvm_visit_stmt(v, s->u.for_.body);
    return;
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) tvm_visit_stmt(v, s->u.seq.stmts[i]);
    return;
  case TVM_IF:
    tvm_visit_expr(v, s->u.if_.cond);
    tvm_visit_stmt(v, s->u.if_.then_);
    tvm_visit_stmt(v, s->u.if_.else_);
    return;
  case TVM_LET_STMT:
    tvm_visit_expr(v, s->u.let.value);
    tvm_visit_stmt(v, s->u.let.body);
    return;
  case TVM_STORE:
    tvm_visit_expr(v, s->u.store.buffer);
    tvm_visit_expr(v, s->u.store.index);
    tvm_visit_expr(v, s->u.store.value);
    tvm_visit_expr(v, s->u.store.pred);
    return;
  case TVM_ALLOCATE:
    tvm_visit_expr(v, s->u.alloc.extent);
    tvm_visit_stmt(v, s->u.alloc.body);
    return;
  case TVM_ATTR:
    tvm_visit_expr(v, s->u.attr.value);
    tvm_visit_stmt(v, s->u.attr.body);
    return;
  case TVM_EVALUATE:
    tvm_visit_expr(v, s->u.eval.value);
    return;
  case TVM_BARRIER:
    return;
  case TVM_ASSERT:
    tvm_visit_expr(v, s->u.assert_.cond);
    tvm_visit_stmt(v, s->u.assert_.body);
    return;
  case TVM_PROVIDE:
    for (int i = 0; i < s->u.provide.n; i++)
      tvm_visit_expr(v, s->u.provide.indices[i]);
    tvm_visit_expr(v, s->u.provide.value);
    return;
  case TVM_REALIZE:
    for (int i = 0; i < s->u.realize.n; i++) {
      tvm_visit_expr(v, s->u.realize.bounds[i].min);
      tvm_visit_expr(v, s->u.realize.bounds[i].extent);
    }
    tvm_visit_stmt(v, s->u.realize.body);
    return;
  case TVM_STMT_KIND_COUNT:
    return;
  }
}

/* Calls the stmt hook on s (if any); descends unless it returned 1.
 * NULL s is ignored. */
void tvm_visit_stmt(tvm_visitor *v, const tvm_stmt *s) {
  if (!s) return;
  if (v->stmt && v->stmt(v, s)) return;
  tvm_visit_stmt_children(v, s);
}

typedef struct uses {
  const tvm_expr *var;
  int found;
} uses;

/* Hook: stops everything once the variable has been seen. */
static int uses_expr(tvm_visitor *v, const tvm_expr *e) {
  uses *u = v->data;
  if (u->found) return 1;
  if (e == u->var) u->found = 1;
  return u->found;
}

/* Hook: prunes the walk after a hit. */
static int uses_stmt(tvm_visitor *v, const tvm_stmt *s) {
  uses *u = v->data;
  return u->found;
}

/* 1 when variable v occurs in e (in a use position). */
int tvm_expr_uses_var(const tvm_expr *e, const tvm_expr *v) {
  uses u = {v, 0};
  tvm_visitor vis = {uses_expr, uses_stmt, &u};
  tvm_visit_expr(&vis, e);
  return u.found;
}

/* 1 when variable v occurs in s (in a use position: loads, stores and
 * expressions; defining a loop or let variable is not a use). */
int tvm_stmt_uses_var(const tvm_stmt *s, const tvm_expr *v) {
  uses u = {v, 0};
  tvm_visitor vis = {uses_expr, uses_stmt, &u};
  tvm_visit_stmt(&vis, s);
  return u.found;
}
