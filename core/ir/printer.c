/*
 * core/ir/printer.c - the text form of the IR, used by tests and by
 * `tvmc --dump-ir`.  The format is stable: tests of every layer compare it
 * as exact strings, so change it only together with them.
 *
 * Expressions (C-like infix with minimal parentheses):
 *   constants     int32: 5   bool: true/false   other integers carry their
 *                 type as a suffix: 5i64 5i8 5u8 5u32   float32: 1.5f
 *                 (shortest text that reads back exactly, always with a
 *                 '.' or exponent), other floats: 1.5f64 1.5f16 1.5bf16;
 *                 inf/nan print as casts: float32(inf)
 *   strings       "text" (C escapes for " \ and control characters)
 *   variables     name; name_id (e.g. i_7, id = var.id) when two different
 *                 variables with that name occur in the printed tree
 *   operators     a + b  a - b  a * b  a / b  a % b  a == b  a != b  a < b
 *                 a <= b  a > b  a >= b  a && b  a || b  !a
 *                 precedence, loosest first: ||, &&, comparisons, + -,
 *                 * / %, !;
 *                 a right operand of equal precedence is parenthesized,
 *                 so the text shows the tree: a - (b - c), (a < b) == c
 *   functions     floordiv(a, b) floormod(a, b) min(a, b) max(a, b)
 *                 select(c, t, f)  float32(x) (casts)  exp(x) (intrinsic
 *                 and extern calls)  reinterpret<float32>(x)
 *   memory        buf[index]  buf[index, pred=p]   A(i, j) (tensor read)
 *   vectors       ramp(base, stride, lanes)  x4(v) (broadcast to 4 lanes)
 *   let           (let x = v in body)  (no parentheses at top level)
 *   reductions    sum(src, axis=[k, l])  sum(src, axis=[k], where=cond)
 *                 (max, min, prod likewise)
 *
 * Statements (one per line, two spaces per nesting level; `indent` of
 * tvm_print_stmt counts levels):
 *   for (i, 0, 64) {                    serial loop: (var, min, extent)
 *   for (i, 0, 64) parallel {           also vectorized, unrolled
 *   for (tx, 0, 32) thread(threadIdx.x) {   and vthread(vthread)
 *   }
 *   if (cond) {  } else if (c2) {  } else {  }
 *   buf[index] = value                  store (pred: buf[i, pred=p] = v)
 *   A(i, j) = value                     provide
 *   allocate buf[float32 * 1024] scope=local   (then " align=64" when
 *                                       set); its body follows at the same
 *                                       level, like let, attr and assert
 *   let x = value
 *   // attr [node] key = value          node printed only for keys whose
 *                                       node type is known (storage_scope,
 *                                       double_buffer_scope, storage_align:
 *                                       a variable; pragma_*: an iter var)
 *   assert(cond, "message")
 *   barrier scope=shared
 *   realize A([0, 64], [0, 64]) scope=global {   ([min, extent] per dim)
 *   nop                                 an empty sequence
 *   an evaluated expression prints alone: dep_push(0, 1)
 * Functions:
 *   func name(A: float32[64, 64], n: int32) {      (device kernels start
 *   ...                                  "device func" and their first
 *   }                                    line is "// launch tag = extent,
 *                                        ..."; non-global buffers add
 *                                        " scope=shared", strided ones
 *                                        " strides=[...]", offset ones
 *                                        " offset=e")
 * A module prints its functions separated by blank lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/ir.h"
#include "tvm/te.h"

typedef struct printer {
  tvm_strbuf *out;
  tvm_ptrmap amb; /* variables printed as name_id */
} printer;

/* ---- variable name disambiguation ---------------------------------------- */

typedef struct collect {
  tvm_ptrmap seen;
  tvm_ptrvec vars;
  int oom;
} collect;

/* Records variable e once. */
static void add_var(collect *k, const tvm_expr *e) {
  if (!e || e->kind != TVM_VAR || tvm_ptrmap_get(&k->seen, e, NULL)) return;
  if (tvm_ptrmap_put(&k->seen, e, NULL) || tvm_ptrvec_push(&k->vars, (void *)e))
    k->oom = 1;
}

/* Is the node of an attr with this key a variable?  An iter var? */
static int attr_node_is_var(const char *key) {
  return strcmp(key, TVM_ATTR_STORAGE_SCOPE) == 0 ||
         strcmp(key, TVM_ATTR_DOUBLE_BUFFER) == 0 ||
         strcmp(key, TVM_ATTR_STORAGE_ALIGN) == 0;
}
static int attr_node_is_iv(const char *key) {
  return strncmp(key, TVM_ATTR_PRAGMA_PREFIX,
                 strlen(TVM_ATTR_PRAGMA_PREFIX)) == 0;
}

/* Visitor hooks collecting every variable, in defining positions too. */
static int collect_expr(tvm_visitor *v, const tvm_expr *e) {
  collect *k = v->data;
  if (e->kind == TVM_VAR) add_var(k, e);
  else if (e->kind == TVM_LET) add_var(k, e->u.let.var);
  else if (e->kind == TVM_REDUCE)
    for (int i = 0; i < e->u.reduce.naxes; i++)
      if (e->u.reduce.axes[i]) add_var(k, e->u.reduce.axes[i]->var);
  return 0;
}
static int collect_stmt(tvm_visitor *v, const tvm_stmt *s) {
  collect *k = v->data;
  if (s->kind == TVM_FOR) add_var(k, s->u.for_.var);
  else if (s->kind == TVM_LET_STMT) add_var(k, s->u.let.var);
  else if (s->kind == TVM_ALLOCATE) add_var(k, s->u.alloc.buffer);
  else if (s->kind == TVM_ATTR && s->u.attr.node) {
    if (attr_node_is_var(s->u.attr.key)) add_var(k, s->u.attr.node);
    else if (attr_node_is_iv(s->u.attr.key))
      add_var(k, ((const tvm_iter_var *)s->u.attr.node)->var);
  }
  return 0;
}

/* Orders variables by name. */
static int by_name(const void *a, const void *b) {
  const tvm_expr *x = *(tvm_expr *const *)a, *y = *(tvm_expr *const *)b;
  return strcmp(x->u.var.name, y->u.var.name);
}

/* Fills p->amb with the variables that share a name with another. */
static void finish_collect(printer *p, collect *k) {
  tvm_expr **v = (tvm_expr **)k->vars.data;
  size_t n = k->vars.len;
  if (n > 1) qsort(v, n, sizeof *v, by_name);
  for (size_t i = 0; i + 1 < n; i++)
    if (strcmp(v[i]->u.var.name, v[i + 1]->u.var.name) == 0) {
      if (tvm_ptrmap_put(&p->amb, v[i], NULL) ||
          tvm_ptrmap_put(&p->amb, v[i + 1], NULL))
        p->out->oom = 1;
    }
  if (k->oom) p->out->oom = 1;
  tvm_ptrmap_free(&k->seen);
  tvm_ptrvec_free(&k->vars);
}

/* ---- expressions ------------------------------------------------------------ */

enum { P_LET = 0, P_OR = 1, P_AND, P_CMP, P_ADD, P_MUL, P_UNARY, P_ATOM };

static void pexpr(printer *p, const tvm_expr *e, int min_prec);

/* Infix operator and precedence of a binary kind; NULL for the kinds
 * printed as functions. */
static const char *infix(tvm_expr_kind k, int *prec) {
  switch (k) {
  case TVM_ADD: *prec = P_ADD; return "+";
  case TVM_SUB: *prec = P_ADD; return "-";
  case TVM_MUL: *prec = P_MUL; return "*";
  case TVM_DIV: *prec = P_MUL; return "/";
  case TVM_MOD: *prec = P_MUL; return "%";
  case TVM_EQ: *prec = P_CMP; return "==";
  case TVM_NE: *prec = P_CMP; return "!=";
  case TVM_LT: *prec = P_CMP; return "<";
  case TVM_LE: *prec = P_CMP; return "<=";
  case TVM_GT: *prec = P_CMP; return ">";
  case TVM_GE: *prec = P_CMP; return ">=";
  case TVM_AND: *prec = P_AND; return "&&";
  case TVM_OR: *prec = P_OR; return "||";
  default: *prec = P_ATOM; return NULL;
  }
}

/* Appends a variable's printed name. */
static void pvar(printer *p, const tvm_expr *v) {
  if (tvm_ptrmap_get(&p->amb, v, NULL))
    tvm_strbuf_printf(p->out, "%s_%u", v->u.var.name, v->u.var.id);
  else
    tvm_strbuf_append(p->out, v->u.var.name);
}

/* Appends the type suffix of a non-int32 integer constant. */
static void int_suffix(printer *p, tvm_dtype t) {
  if (t.code == kDLInt && t.bits == 32) return;
  tvm_strbuf_printf(p->out, "%s%d", t.code == kDLUInt ? "u" : "i", t.bits);
}

/* Appends a float constant (see the file comment). */
static void pfloat(printer *p, double v, tvm_dtype t) {
  char buf[64], tb[32];
  int f32 = t.code == kDLFloat && t.bits == 32;
  if (v != v || v - v != 0) { /* nan or inf */
    tvm_strbuf_printf(p->out, "%s(%s)", tvm_dtype_str(t, tb),
                      v != v ? "nan" : v > 0 ? "inf" : "-inf");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    double back = strtod(buf, NULL);
    if (f32 ? (float)back == (float)v : back == v) break;
  }
  if (!strpbrk(buf, ".e")) strcat(buf, ".0");
  tvm_strbuf_append(p->out, buf);
  if (f32) tvm_strbuf_append(p->out, "f");
  else if (t.code == kDLBfloat) tvm_strbuf_printf(p->out, "bf%d", t.bits);
  else tvm_strbuf_printf(p->out, "f%d", t.bits);
}

/* Appends a quoted, escaped string. */
static void pstr(printer *p, const char *s) {
  tvm_strbuf_append(p->out, "\"");
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') tvm_strbuf_printf(p->out, "\\%c", ch);
    else if (ch == '\n') tvm_strbuf_append(p->out, "\\n");
    else if (ch == '\t') tvm_strbuf_append(p->out, "\\t");
    else if (ch < 32) tvm_strbuf_printf(p->out, "\\x%02x", ch);
    else tvm_strbuf_appendn(p->out, s, 1);
  }
  tvm_strbuf_append(p->out, "\"");
}

/* Appends "a, b, c". */
static void plist(printer *p, tvm_expr *const *xs, int n) {
  for (int i = 0; i < n; i++) {
    if (i) tvm_strbuf_append(p->out, ", ");
    pexpr(p, xs[i], P_LET);
  }
}

/* Appends name(a, b). */
static void pfunc2(printer *p, const char *name, const tvm_expr *a,
                   const tvm_expr *b) {
  tvm_strbuf_printf(p->out, "%s(", name);
  pexpr(p, a, P_LET);
  tvm_strbuf_append(p->out, ", ");
  pexpr(p, b, P_LET);
  tvm_strbuf_append(p->out, ")");
}

/* Appends e, parenthesized when its precedence is below min_prec. */
static void pexpr(printer *p, const tvm_expr *e, int min_prec) {
  tvm_strbuf *o = p->out;
  char tb[32];
  int prec;
  const char *op;
  if (!e) {
    tvm_strbuf_append(o, "<null>");
    return;
  }
  switch (e->kind) {
  case TVM_INT:
    if (tvm_dtype_is_bool(e->dtype)) {
      tvm_strbuf_append(o, e->u.ival ? "true" : "false");
    } else if (tvm_dtype_is_handle(e->dtype)) {
      tvm_strbuf_printf(o, "handle(%lld)", (long long)e->u.ival);
    } else {
      if (e->dtype.code == kDLUInt && e->dtype.bits == 64)
        tvm_strbuf_printf(o, "%llu", (unsigned long long)e->u.ival);
      else
        tvm_strbuf_printf(o, "%lld", (long long)e->u.ival);
      int_suffix(p, e->dtype);
    }
    return;
  case TVM_FLOAT: pfloat(p, e->u.fval, e->dtype); return;
  case TVM_STR: pstr(p, e->u.str); return;
  case TVM_VAR: pvar(p, e); return;
  case TVM_FLOORDIV: pfunc2(p, "floordiv", e->u.bin.a, e->u.bin.b); return;
  case TVM_FLOORMOD: pfunc2(p, "floormod", e->u.bin.a, e->u.bin.b); return;
  case TVM_MIN: pfunc2(p, "min", e->u.bin.a, e->u.bin.b); return;
  case TVM_MAX: pfunc2(p, "max", e->u.bin.a, e->u.bin.b); return;
  case TVM_NOT:
    if (min_prec > P_UNARY) tvm_strbuf_append(o, "(");
    tvm_strbuf_append(o, "!");
    pexpr(p, e->u.un.a, P_UNARY + 1);
    if (min_prec > P_UNARY) tvm_strbuf_append(o, ")");
    return;
  case TVM_SELECT:
    tvm_strbuf_append(o, "select(");
    pexpr(p, e->u.sel.cond, P_LET);
    tvm_strbuf_append(o, ", ");
    pexpr(p, e->u.sel.t, P_LET);
    tvm_strbuf_append(o, ", ");
    pexpr(p, e->u.sel.f, P_LET);
    tvm_strbuf_append(o, ")");
    return;
  case TVM_CAST:
    tvm_strbuf_printf(o, "%s(", tvm_dtype_str(e->dtype, tb));
    pexpr(p, e->u.un.a, P_LET);
    tvm_strbuf_append(o, ")");
    return;
  case TVM_CALL:
    if (e->u.call.op == TVM_INTRIN_LAUNCH && e->u.call.nargs >= 8) {
      /* launch("k", grid=(x, y, z), block=(x, y, z), shared=n, args=(...)) */
      tvm_strbuf_append(o, "launch(");
      pexpr(p, e->u.call.args[0], P_LET);
      tvm_strbuf_append(o, ", grid=(");
      plist(p, e->u.call.args + 1, 3);
      tvm_strbuf_append(o, "), block=(");
      plist(p, e->u.call.args + 4, 3);
      tvm_strbuf_append(o, "), shared=");
      pexpr(p, e->u.call.args[7], P_LET);
      tvm_strbuf_append(o, ", args=(");
      plist(p, e->u.call.args + 8, e->u.call.nargs - 8);
      tvm_strbuf_append(o, "))");
      return;
    }
    if (e->u.call.op == TVM_INTRIN_REINTERPRET)
      tvm_strbuf_printf(o, "reinterpret<%s>(", tvm_dtype_str(e->dtype, tb));
    else
      tvm_strbuf_printf(o, "%s(", e->u.call.name ? e->u.call.name
                                                 : tvm_intrin_name(e->u.call.op));
    plist(p, e->u.call.args, e->u.call.nargs);
    tvm_strbuf_append(o, ")");
    return;
  case TVM_LOAD:
    pexpr(p, e->u.load.buffer, P_ATOM);
    tvm_strbuf_append(o, "[");
    pexpr(p, e->u.load.index, P_LET);
    if (e->u.load.pred) {
      tvm_strbuf_append(o, ", pred=");
      pexpr(p, e->u.load.pred, P_LET);
    }
    tvm_strbuf_append(o, "]");
    return;
  case TVM_RAMP:
    tvm_strbuf_append(o, "ramp(");
    pexpr(p, e->u.ramp.base, P_LET);
    tvm_strbuf_append(o, ", ");
    pexpr(p, e->u.ramp.stride, P_LET);
    tvm_strbuf_printf(o, ", %d)", e->u.ramp.lanes);
    return;
  case TVM_BROADCAST:
    tvm_strbuf_printf(o, "x%d(", e->u.bcast.lanes);
    pexpr(p, e->u.bcast.value, P_LET);
    tvm_strbuf_append(o, ")");
    return;
  case TVM_LET:
    if (min_prec > P_LET) tvm_strbuf_append(o, "(");
    tvm_strbuf_append(o, "let ");
    pvar(p, e->u.let.var);
    tvm_strbuf_append(o, " = ");
    pexpr(p, e->u.let.value, P_LET);
    tvm_strbuf_append(o, " in ");
    pexpr(p, e->u.let.body, P_LET);
    if (min_prec > P_LET) tvm_strbuf_append(o, ")");
    return;
  case TVM_TREAD:
    tvm_strbuf_printf(o, "%s(", e->u.tread.tensor->name);
    plist(p, e->u.tread.indices, e->u.tread.n);
    tvm_strbuf_append(o, ")");
    return;
  case TVM_REDUCE: {
    static const char *names[] = {"sum", "max", "min", "prod"};
    unsigned op_i = (unsigned)e->u.reduce.op;
    tvm_strbuf_printf(o, "%s(", op_i < 4 ? names[op_i] : "reduce");
    pexpr(p, e->u.reduce.source, P_LET);
    tvm_strbuf_append(o, ", axis=[");
    for (int i = 0; i < e->u.reduce.naxes; i++) {
      if (i) tvm_strbuf_append(o, ", ");
      pvar(p, e->u.reduce.axes[i]->var);
    }
    tvm_strbuf_append(o, "]");
    if (e->u.reduce.cond) {
      tvm_strbuf_append(o, ", where=");
      pexpr(p, e->u.reduce.cond, P_LET);
    }
    tvm_strbuf_append(o, ")");
    return;
  }
  default:
    op = infix(e->kind, &prec);
    if (!op) {
      tvm_strbuf_printf(o, "<%s>", tvm_expr_kind_name(e->kind));
      return;
    }
    if (prec < min_prec) tvm_strbuf_append(o, "(");
    /* comparisons do not chain: both sides need a tighter operator */
    pexpr(p, e->u.bin.a, prec == P_CMP ? prec + 1 : prec);
    tvm_strbuf_printf(o, " %s ", op);
    pexpr(p, e->u.bin.b, prec + 1);
    if (prec < min_prec) tvm_strbuf_append(o, ")");
    return;
  }
}

/* ---- statements ------------------------------------------------------------ */

/* Appends two spaces per level. */
static void pindent(printer *p, int level) {
  for (int i = 0; i < level; i++) tvm_strbuf_append(p->out, "  ");
}

static void pstmt(printer *p, const tvm_stmt *s, int level);

/* Appends the branches of an if starting after its "if " / "} else if ". */
static void pif(printer *p, const tvm_stmt *s, int level) {
  tvm_strbuf_append(p->out, "(");
  pexpr(p, s->u.if_.cond, P_LET);
  tvm_strbuf_append(p->out, ") {\n");
  pstmt(p, s->u.if_.then_, level + 1);
  const tvm_stmt *e = s->u.if_.else_;
  if (!e) {
    pindent(p, level);
    tvm_strbuf_append(p->out, "}\n");
  } else if (e->kind == TVM_IF) {
    pindent(p, level);
    tvm_strbuf_append(p->out, "} else if ");
    pif(p, e, level);
  } else {
    pindent(p, level);
    tvm_strbuf_append(p->out, "} else {\n");
    pstmt(p, e, level + 1);
    pindent(p, level);
    tvm_strbuf_append(p->out, "}\n");
  }
}

/* Appends s and its body at nesting level `level`. */
static void pstmt(printer *p, const tvm_stmt *s, int level) {
  tvm_strbuf *o = p->out;
  char tb[32];
  if (!s) {
    pindent(p, level);
    tvm_strbuf_append(o, "<null>\n");
    return;
  }
  if (s->kind == TVM_SEQ) {
    if (s->u.seq.n == 0) {
      pindent(p, level);
      tvm_strbuf_append(o, "nop\n");
    }
    for (int i = 0; i < s->u.seq.n; i++) pstmt(p, s->u.seq.stmts[i], level);
    return;
  }
  pindent(p, level);
  switch (s->kind) {
  case TVM_FOR:
    tvm_strbuf_append(o, "for (");
    pvar(p, s->u.for_.var);
    tvm_strbuf_append(o, ", ");
    pexpr(p, s->u.for_.min, P_LET);
    tvm_strbuf_append(o, ", ");
    pexpr(p, s->u.for_.extent, P_LET);
    tvm_strbuf_append(o, ")");
    if (s->u.for_.for_kind != TVM_FOR_SERIAL) {
      tvm_strbuf_printf(o, " %s", tvm_for_kind_name(s->u.for_.for_kind));
      if ((s->u.for_.for_kind == TVM_FOR_THREAD ||
           s->u.for_.for_kind == TVM_FOR_VTHREAD) && s->u.for_.thread_tag)
        tvm_strbuf_printf(o, "(%s)", s->u.for_.thread_tag);
    }
    tvm_strbuf_append(o, " {\n");
    pstmt(p, s->u.for_.body, level + 1);
    pindent(p, level);
    tvm_strbuf_append(o, "}\n");
    return;
  case TVM_IF:
    tvm_strbuf_append(o, "if ");
    pif(p, s, level);
    return;
  case TVM_LET_STMT:
    tvm_strbuf_append(o, "let ");
    pvar(p, s->u.let.var);
    tvm_strbuf_append(o, " = ");
    pexpr(p, s->u.let.value, P_LET);
    tvm_strbuf_append(o, "\n");
    pstmt(p, s->u.let.body, level);
    return;
  case TVM_STORE:
    pexpr(p, s->u.store.buffer, P_ATOM);
    tvm_strbuf_append(o, "[");
    pexpr(p, s->u.store.index, P_LET);
    if (s->u.store.pred) {
      tvm_strbuf_append(o, ", pred=");
      pexpr(p, s->u.store.pred, P_LET);
    }
    tvm_strbuf_append(o, "] = ");
    pexpr(p, s->u.store.value, P_LET);
    tvm_strbuf_append(o, "\n");
    return;
  case TVM_ALLOCATE:
    tvm_strbuf_append(o, "allocate ");
    pvar(p, s->u.alloc.buffer);
    tvm_strbuf_printf(o, "[%s * ", tvm_dtype_str(s->u.alloc.dtype, tb));
    pexpr(p, s->u.alloc.extent, P_MUL + 1);
    tvm_strbuf_printf(o, "] scope=%s", s->u.alloc.scope);
    if (s->u.alloc.align)
      tvm_strbuf_printf(o, " align=%lld", (long long)s->u.alloc.align);
    tvm_strbuf_append(o, "\n");
    pstmt(p, s->u.alloc.body, level);
    return;
  case TVM_ATTR:
    tvm_strbuf_append(o, "// attr ");
    if (s->u.attr.node && attr_node_is_var(s->u.attr.key)) {
      tvm_strbuf_append(o, "[");
      pexpr(p, s->u.attr.node, P_LET);
      tvm_strbuf_append(o, "] ");
    } else if (s->u.attr.node && attr_node_is_iv(s->u.attr.key)) {
      tvm_strbuf_append(o, "[");
      pexpr(p, ((const tvm_iter_var *)s->u.attr.node)->var, P_LET);
      tvm_strbuf_append(o, "] ");
    }
    tvm_strbuf_append(o, s->u.attr.key);
    if (s->u.attr.value) {
      tvm_strbuf_append(o, " = ");
      pexpr(p, s->u.attr.value, P_LET);
    }
    tvm_strbuf_append(o, "\n");
    pstmt(p, s->u.attr.body, level);
    return;
  case TVM_EVALUATE:
    pexpr(p, s->u.eval.value, P_LET);
    tvm_strbuf_append(o, "\n");
    return;
  case TVM_BARRIER:
    tvm_strbuf_printf(o, "barrier scope=%s\n", s->u.barrier.scope);
    return;
  case TVM_ASSERT:
    tvm_strbuf_append(o, "assert(");
    pexpr(p, s->u.assert_.cond, P_LET);
    tvm_strbuf_append(o, ", ");
    pstr(p, s->u.assert_.msg);
    tvm_strbuf_append(o, ")\n");
    if (s->u.assert_.body) pstmt(p, s->u.assert_.body, level);
    return;
  case TVM_PROVIDE:
    tvm_strbuf_printf(o, "%s(", s->u.provide.tensor->name);
    plist(p, s->u.provide.indices, s->u.provide.n);
    tvm_strbuf_append(o, ") = ");
    pexpr(p, s->u.provide.value, P_LET);
    tvm_strbuf_append(o, "\n");
    return;
  case TVM_REALIZE:
    tvm_strbuf_printf(o, "realize %s(", s->u.realize.tensor->name);
    for (int i = 0; i < s->u.realize.n; i++) {
      tvm_strbuf_append(o, i ? ", [" : "[");
      pexpr(p, s->u.realize.bounds[i].min, P_LET);
      tvm_strbuf_append(o, ", ");
      pexpr(p, s->u.realize.bounds[i].extent, P_LET);
      tvm_strbuf_append(o, "]");
    }
    tvm_strbuf_printf(o, ") scope=%s {\n", s->u.realize.scope);
    pstmt(p, s->u.realize.body, level + 1);
    pindent(p, level);
    tvm_strbuf_append(o, "}\n");
    return;
  default:
    tvm_strbuf_printf(o, "<%s>\n", tvm_stmt_kind_name(s->kind));
    return;
  }
}

/* ---- entry points ------------------------------------------------------------ */

/* Prints e (no newline). */
void tvm_print_expr(tvm_strbuf *out, const tvm_expr *e) {
  printer p = {out, {0}};
  collect k = {{0}, {0}, 0};
  tvm_visitor v = {collect_expr, collect_stmt, &k};
  tvm_visit_expr(&v, e);
  finish_collect(&p, &k);
  pexpr(&p, e, P_LET);
  tvm_ptrmap_free(&p.amb);
}

/* Prints s, one statement per line, starting at nesting level indent. */
void tvm_print_stmt(tvm_strbuf *out, const tvm_stmt *s, int indent) {
  printer p = {out, {0}};
  collect k = {{0}, {0}, 0};
  tvm_visitor v = {collect_expr, collect_stmt, &k};
  tvm_visit_stmt(&v, s);
  finish_collect(&p, &k);
  pstmt(&p, s, indent);
  tvm_ptrmap_free(&p.amb);
}

/* Appends the parameters of f: "A: float32[64, 64], n: int32". */
static void pparams(printer *p, const tvm_func *f) {
  char tb[32];
  for (int i = 0; i < f->nparams; i++) {
    const tvm_buffer *b = f->buffers ? f->buffers[i] : NULL;
    if (i) tvm_strbuf_append(p->out, ", ");
    pvar(p, f->params[i]);
    tvm_strbuf_append(p->out, ": ");
    if (!b) {
      tvm_strbuf_append(p->out, tvm_dtype_str(f->params[i]->dtype, tb));
      continue;
    }
    tvm_strbuf_printf(p->out, "%s[", tvm_dtype_str(b->dtype, tb));
    plist(p, b->shape, b->ndim);
    tvm_strbuf_append(p->out, "]");
    if (b->scope && strcmp(b->scope, "global") != 0)
      tvm_strbuf_printf(p->out, " scope=%s", b->scope);
    if (b->strides) {
      tvm_strbuf_append(p->out, " strides=[");
      plist(p, b->strides, b->ndim);
      tvm_strbuf_append(p->out, "]");
    }
    if (b->elem_offset) {
      tvm_strbuf_append(p->out, " offset=");
      pexpr(p, b->elem_offset, P_LET);
    }
  }
}

/* Prints a function: header line, launch comment for kernels, body. */
void tvm_print_func(tvm_strbuf *out, const tvm_func *f) {
  printer p = {out, {0}};
  collect k = {{0}, {0}, 0};
  tvm_visitor v = {collect_expr, collect_stmt, &k};
  for (int i = 0; i < f->nparams; i++) {
    add_var(&k, f->params[i]);
    const tvm_buffer *b = f->buffers ? f->buffers[i] : NULL;
    if (!b) continue;
    for (int d = 0; d < b->ndim; d++) {
      tvm_visit_expr(&v, b->shape[d]);
      if (b->strides) tvm_visit_expr(&v, b->strides[d]);
    }
    tvm_visit_expr(&v, b->elem_offset);
  }
  for (int i = 0; i < f->nthread_axes; i++)
    tvm_visit_expr(&v, f->thread_extents[i]);
  tvm_visit_stmt(&v, f->body);
  finish_collect(&p, &k);
  tvm_strbuf_printf(out, "%sfunc %s(",
                    f->kind == TVM_FUNC_DEVICE ? "device " : "", f->name);
  pparams(&p, f);
  tvm_strbuf_append(out, ") {\n");
  if (f->nthread_axes > 0) {
    tvm_strbuf_append(out, "  // launch ");
    for (int i = 0; i < f->nthread_axes; i++) {
      if (i) tvm_strbuf_append(out, ", ");
      tvm_strbuf_printf(out, "%s = ", f->thread_tags[i]);
      pexpr(&p, f->thread_extents[i], P_LET);
    }
    tvm_strbuf_append(out, "\n");
  }
  pstmt(&p, f->body, 1);
  tvm_strbuf_append(out, "}\n");
  tvm_ptrmap_free(&p.amb);
}

/* Prints every function of m, separated by blank lines. */
void tvm_print_module(tvm_strbuf *out, const tvm_module *m) {
  for (int i = 0; i < m->nfuncs; i++) {
    if (i) tvm_strbuf_append(out, "\n");
    tvm_print_func(out, m->funcs[i]);
  }
}

/* e as a heap string (free with tvm_free); NULL when out of memory. */
char *tvm_expr_str(const tvm_expr *e) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_expr(&b, e);
  return tvm_strbuf_take(&b);
}

/* s as a heap string at level 0 (free with tvm_free); NULL when out of
 * memory. */
char *tvm_stmt_str(const tvm_stmt *s) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_stmt(&b, s, 0);
  return tvm_strbuf_take(&b);
}
