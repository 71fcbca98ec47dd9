/*
 * core/ir/expr_util.c - predicates on expressions, structural equality and
 * the names of expression kinds and intrinsics.
 */
#include <string.h>

#include "tvm/ir.h"
#include "tvm/te.h"

/* Visitor hook: flags reads of memory, calls and reductions. */
static int impure_hook(tvm_visitor *v, const tvm_expr *e) {
  if (e->kind == TVM_LOAD || e->kind == TVM_CALL || e->kind == TVM_TREAD ||
      e->kind == TVM_REDUCE)
    *(int *)v->data = 1;
  return 0;
}

/* See tvm/ir.h. */
int tvm_expr_is_pure(const tvm_expr *e) {
  int impure = 0;
  tvm_visitor v = {impure_hook, NULL, &impure};
  tvm_visit_expr(&v, e);
  return !impure;
}

/* 1 when e is a scalar integer (or bool) constant; sets *v if v. */
int tvm_is_const_int(const tvm_expr *e, int64_t *v) {
  if (!e || e->kind != TVM_INT || e->dtype.lanes != 1) return 0;
  if (v) *v = e->u.ival;
  return 1;
}

/* Is e the constant x (integer or float; a broadcast of it counts)? */
static int is_const_value(const tvm_expr *e, int64_t x) {
  if (!e) return 0;
  if (e->kind == TVM_BROADCAST) e = e->u.bcast.value;
  if (e->kind == TVM_INT) return e->u.ival == x;
  if (e->kind == TVM_FLOAT) return e->u.fval == (double)x;
  return 0;
}

/* Constant zero (integer, float or a broadcast of one). */
int tvm_is_zero(const tvm_expr *e) { return is_const_value(e, 0); }

/* Constant one (integer, float or a broadcast of one). */
int tvm_is_one(const tvm_expr *e) { return is_const_value(e, 1); }

/* Equality of expression lists. */
static int list_equal(tvm_expr *const *a, tvm_expr *const *b, int n) {
  for (int i = 0; i < n; i++)
    if (!tvm_expr_equal(a[i], b[i])) return 0;
  return 1;
}

/* Structural equality: same kinds, types and children; variables,
 * tensors and reduction axes compare by pointer; strings and extern names
 * by content; float constants by value.  Two NULLs are equal. */
int tvm_expr_equal(const tvm_expr *a, const tvm_expr *b) {
  if (a == b) return 1;
  if (!a || !b) return 0;
  if (a->kind != b->kind || !tvm_dtype_eq(a->dtype, b->dtype)) return 0;
  switch (a->kind) {
  case TVM_INT: return a->u.ival == b->u.ival;
  case TVM_FLOAT: return a->u.fval == b->u.fval;
  case TVM_STR: return strcmp(a->u.str, b->u.str) == 0;
  case TVM_VAR: return 0; /* different pointers */
  case TVM_NOT:
  case TVM_CAST: return tvm_expr_equal(a->u.un.a, b->u.un.a);
  case TVM_SELECT:
    return tvm_expr_equal(a->u.sel.cond, b->u.sel.cond) &&
           tvm_expr_equal(a->u.sel.t, b->u.sel.t) &&
           tvm_expr_equal(a->u.sel.f, b->u.sel.f);
  case TVM_CALL:
    if (a->u.call.op != b->u.call.op || a->u.call.nargs != b->u.call.nargs)
      return 0;
    if (a->u.call.op == TVM_INTRIN_EXTERN &&
        strcmp(a->u.call.name, b->u.call.name) != 0)
      return 0;
    return list_equal(a->u.call.args, b->u.call.args, a->u.call.nargs);
  case TVM_LOAD:
    return tvm_expr_equal(a->u.load.buffer, b->u.load.buffer) &&
           tvm_expr_equal(a->u.load.index, b->u.load.index) &&
           tvm_expr_equal(a->u.load.pred, b->u.load.pred);
  case TVM_RAMP:
    return a->u.ramp.lanes == b->u.ramp.lanes &&
           tvm_expr_equal(a->u.ramp.base, b->u.ramp.base) &&
           tvm_expr_equal(a->u.ramp.stride, b->u.ramp.stride);
  case TVM_BROADCAST:
    return a->u.bcast.lanes == b->u.bcast.lanes &&
           tvm_expr_equal(a->u.bcast.value, b->u.bcast.value);
  case TVM_LET:
    return a->u.let.var == b->u.let.var &&
           tvm_expr_equal(a->u.let.value, b->u.let.value) &&
           tvm_expr_equal(a->u.let.body, b->u.let.body);
  case TVM_TREAD:
    return a->u.tread.tensor == b->u.tread.tensor &&
           a->u.tread.n == b->u.tread.n &&
           list_equal(a->u.tread.indices, b->u.tread.indices, a->u.tread.n);
  case TVM_REDUCE:
    if (a->u.reduce.op != b->u.reduce.op ||
        a->u.reduce.naxes != b->u.reduce.naxes)
      return 0;
    for (int i = 0; i < a->u.reduce.naxes; i++)
      if (a->u.reduce.axes[i] != b->u.reduce.axes[i]) return 0;
    return tvm_expr_equal(a->u.reduce.source, b->u.reduce.source) &&
           tvm_expr_equal(a->u.reduce.cond, b->u.reduce.cond);
  default:
    return tvm_expr_equal(a->u.bin.a, b->u.bin.a) &&
           tvm_expr_equal(a->u.bin.b, b->u.bin.b);
  }
}

/* Lower-case name of an expression kind ("add", "floordiv", "tread"). */
const char *tvm_expr_kind_name(tvm_expr_kind k) {
  static const char *names[TVM_EXPR_KIND_COUNT] = {
      [TVM_INT] = "int", [TVM_FLOAT] = "float", [TVM_STR] = "str",
      [TVM_VAR] = "var", [TVM_ADD] = "add", [TVM_SUB] = "sub",
      [TVM_MUL] = "mul", [TVM_DIV] = "div", [TVM_MOD] = "mod",
      [TVM_FLOORDIV] = "floordiv", [TVM_FLOORMOD] = "floormod",
      [TVM_MIN] = "min", [TVM_MAX] = "max", [TVM_EQ] = "eq", [TVM_NE] = "ne",
      [TVM_LT] = "lt", [TVM_LE] = "le", [TVM_GT] = "gt", [TVM_GE] = "ge",
      [TVM_AND] = "and", [TVM_OR] = "or", [TVM_NOT] = "not",
      [TVM_SELECT] = "select", [TVM_CAST] = "cast", [TVM_CALL] = "call",
      [TVM_LOAD] = "load", [TVM_RAMP] = "ramp", [TVM_BROADCAST] = "broadcast",
      [TVM_LET] = "let", [TVM_TREAD] = "tread", [TVM_REDUCE] = "reduce"};
  if ((unsigned)k >= TVM_EXPR_KIND_COUNT || !names[k]) return "unknown";
  return names[k];
}

/* Name of an intrinsic as printed and as plugins look it up ("exp"). */
const char *tvm_intrin_name(tvm_intrin op) {
  static const char *names[TVM_INTRIN_COUNT] = {
      [TVM_INTRIN_EXTERN] = "extern", [TVM_INTRIN_EXP] = "exp",
      [TVM_INTRIN_LOG] = "log", [TVM_INTRIN_SQRT] = "sqrt",
      [TVM_INTRIN_RSQRT] = "rsqrt", [TVM_INTRIN_TANH] = "tanh",
      [TVM_INTRIN_SIGMOID] = "sigmoid", [TVM_INTRIN_ERF] = "erf",
      [TVM_INTRIN_POW] = "pow", [TVM_INTRIN_FABS] = "fabs",
      [TVM_INTRIN_FLOOR] = "floor", [TVM_INTRIN_CEIL] = "ceil",
      [TVM_INTRIN_ROUND] = "round", [TVM_INTRIN_TRUNC] = "trunc",
      [TVM_INTRIN_FMA] = "fma", [TVM_INTRIN_SIN] = "sin",
      [TVM_INTRIN_COS] = "cos", [TVM_INTRIN_ISNAN] = "isnan",
      [TVM_INTRIN_SHL] = "shl", [TVM_INTRIN_SHR] = "shr",
      [TVM_INTRIN_BITAND] = "bitand", [TVM_INTRIN_BITOR] = "bitor",
      [TVM_INTRIN_BITXOR] = "bitxor", [TVM_INTRIN_LIKELY] = "likely",
      [TVM_INTRIN_REINTERPRET] = "reinterpret",
      [TVM_INTRIN_ACCESS_PTR] = "access_ptr",
      [TVM_INTRIN_DEP_PUSH] = "dep_push", [TVM_INTRIN_DEP_POP] = "dep_pop",
      [TVM_INTRIN_LAUNCH] = "launch"};
  if ((unsigned)op >= TVM_INTRIN_COUNT || !names[op]) return "unknown";
  return names[op];
}
