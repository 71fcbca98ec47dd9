/*
 * core/codegen/c_expr.c - types, names and expressions of the C-dialect
 * emitter (see tvm/codegen_c.h).
 *
 * Expressions print fully parenthesized.  A vector expression prints one
 * lane at a time (lane >= 0): ramps as base + lane * stride, broadcasts
 * as their value, loads either from a hoisted vector temporary (set up by
 * the statement emitter) or as one scalar load per lane.  Scalars ignore
 * the lane.  Integer floordiv/floormod use C division when both operands
 * are provably non-negative and the prelude helpers otherwise; float16
 * and bfloat16 math without native functions runs in float32.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codegen_int.h"

/* Records the first error of the emission. */
void codegen_fail(codegen_c *e, tvm_status st, const char *fmt, ...) {
  if (e->st != TVM_OK) return;
  va_list ap;
  va_start(ap, fmt);
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  e->st = tvm_diag_set(st, "%s codegen, kernel %s: %s", e->d->name,
                       e->f ? e->f->name : "?", msg);
}

/* Index of a width in the 8/16/32/64 tables, -1 otherwise. */
static int width_index(int bits) {
  switch (bits) {
  case 8: return 0;
  case 16: return 1;
  case 32: return 2;
  case 64: return 3;
  default: return -1;
  }
}

/* C type name of t, or NULL with an error recorded. */
const char *codegen_type(codegen_c *e, tvm_dtype t) {
  const char *scalar = NULL, *vec = NULL;
  int w = width_index(t.bits);
  if (tvm_dtype_is_bool(t)) {
    scalar = "bool";
  } else if (t.code == kDLInt && w >= 0) {
    scalar = e->d->int_names[w];
    vec = e->d->int_vec[w];
  } else if (t.code == kDLUInt && w >= 0) {
    scalar = e->d->uint_names[w];
    vec = e->d->uint_vec[w];
  } else if (t.code == kDLFloat && w >= 1) {
    scalar = e->d->float_names[w - 1];
    vec = e->d->float_vec[w - 1];
    if (t.bits == 16) e->uses_half = 1;
    if (t.bits == 64) e->uses_f64 = 1;
  } else if (t.code == kDLBfloat && t.bits == 16) {
    scalar = e->d->bf16_name;
    e->uses_bf16 = 1;
  }
  if (t.lanes == 1 && scalar) return scalar;
  if (t.lanes > 1 && vec)
    return tvm_arena_printf(e->c->arena, "%s%d", vec, (int)t.lanes);
  char b[32];
  codegen_fail(e, TVM_ERR_UNSUPPORTED, "type %s has no %s spelling",
               tvm_dtype_str(t, b), e->d->name);
  return "?";
}

/* Does d name vectors of t's element type? */
int codegen_has_vector(const tvm_c_dialect *d, tvm_dtype t) {
  int w = width_index(t.bits);
  if (w < 0 || tvm_dtype_is_bool(t)) return 0;
  if (t.code == kDLInt) return d->int_vec[w] != NULL;
  if (t.code == kDLUInt) return d->uint_vec[w] != NULL;
  if (t.code == kDLFloat) return w >= 1 && d->float_vec[w - 1] != NULL;
  return 0;
}

/* Names C reserves, C++ reserves (CUDA C is C++: its alternative tokens
 * "and", "or", "not", "xor" ... are operators there, and ONNX tensors
 * are named after them) or the dialects define (a variable must not
 * shadow a function the kernel calls). */
static int reserved(const char *s) {
  static const char *const words[] = {
      "int", "float", "double", "half", "char", "short", "long", "unsigned",
      "signed", "bool", "void", "if", "else", "for", "while", "do",
      "return", "break", "continue", "switch", "case", "default", "const",
      "static", "inline", "restrict", "min", "max", "exp", "log", "sqrt",
      "pow", "fabs", "floor", "ceil", "select", "barrier", "blockIdx",
      "threadIdx", "blockDim", "gridDim", "kernel", "global", "local",
      "private", "constant", "true", "false", "auto", "register", "extern",
      "sizeof", "struct", "union", "enum", "goto", "volatile", "typedef",
      /* C++ */
      "and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq", "or",
      "or_eq", "xor", "xor_eq", "class", "new", "delete", "this",
      "template", "typename", "namespace", "operator", "public",
      "protected", "virtual", "friend", "using", "try", "catch", "throw",
      "explicit", "mutable", "asm", "wchar_t", "char8_t", "char16_t",
      "char32_t", "nullptr", "static_cast", "dynamic_cast",
      "reinterpret_cast", "const_cast", "typeid", "decltype", "constexpr",
      "consteval", "constinit", "noexcept", "static_assert", "thread_local",
      "alignas", "alignof", "export", "concept", "requires", "co_await",
      "co_return", "co_yield",
      NULL};
  for (int i = 0; words[i]; i++)
    if (!strcmp(s, words[i])) return 1;
  return !strncmp(s, "__", 2) || !strncmp(s, "get_", 4) ||
         !strncmp(s, "tvm_", 4) || !strncmp(s, "_v", 2) ||
         !strncmp(s, "_r", 2) || !strncmp(s, "_t", 2);
}

/* The C name of v: its IR name with non-identifier characters as '_',
 * suffixed when reserved or already taken by another variable. */
const char *codegen_name(codegen_c *e, const tvm_expr *v) {
  void *got;
  if (tvm_ptrmap_get(&e->names, v, &got)) return got;
  const char *src = v->u.var.name ? v->u.var.name : "v";
  char base[64];
  size_t n = 0;
  for (const char *p = src; *p && n + 1 < sizeof base; p++)
    base[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                               (*p >= '0' && *p <= '9') || *p == '_'
                           ? *p
                           : '_');
  base[n] = 0;
  if (n == 0 || (base[0] >= '0' && base[0] <= '9')) {
    memmove(base + 1, base, n + 1 < sizeof base - 1 ? n + 1 : sizeof base - 2);
    base[0] = 'v';
    base[sizeof base - 1] = 0;
  }
  /* a reserved prefix (ONNX exporters name tensors "/relu/Relu_output_0",
   * i.e. "_relu_..."): no suffix makes it free, a leading v does */
  if (reserved(base)) {
    size_t keep = n + 2 <= sizeof base ? n : sizeof base - 2;
    memmove(base + 1, base, keep);
    base[0] = 'v';
    base[keep + 1] = 0;
  }
  char *name = tvm_arena_strdup(e->c->arena, base);
  for (int k = 1; name && (reserved(name) || tvm_strmap_get(&e->used, name));
       k++)
    name = tvm_arena_printf(e->c->arena, "%s_%d", base, k);
  if (!name || tvm_strmap_put(&e->used, name, (void *)v) != TVM_OK ||
      tvm_ptrmap_put(&e->names, v, name) != TVM_OK) {
    codegen_fail(e, TVM_ERR_NOMEM, "out of memory naming variables");
    return "?";
  }
  return name;
}

/* ".x" .. ".w" for lanes 0-3, ".sN" (hex) beyond. */
const char *codegen_lane_suffix(int i) {
  static const char *const s[16] = {".x", ".y", ".z", ".w", ".s4", ".s5",
                                    ".s6", ".s7", ".s8", ".s9", ".sa", ".sb",
                                    ".sc", ".sd", ".se", ".sf"};
  return i >= 0 && i < 16 ? s[i] : ".x";
}

/* Is x >= 0 provable from the enclosing loops' ranges? */
int codegen_nonneg(codegen_c *e, const tvm_expr *x) {
  int64_t lo, hi;
  if (x->dtype.code == kDLUInt) return 1;
  return tvm_const_bounds(e->c, x, &e->bounds, &lo, &hi) && lo >= 0;
}

/* Prints an integer constant of type t. */
static void emit_int(codegen_c *e, tvm_dtype t, int64_t v) {
  if (tvm_dtype_is_bool(t)) {
    tvm_strbuf_append(e->out, v ? "1" : "0");
  } else if (t.code == kDLInt && t.bits == 32) {
    if (v == INT32_MIN)
      tvm_strbuf_append(e->out, "(-2147483647 - 1)");
    else
      tvm_strbuf_printf(e->out, v < 0 ? "(%lld)" : "%lld", (long long)v);
  } else if (t.code == kDLInt && t.bits == 64 && v == INT64_MIN) {
    tvm_strbuf_printf(e->out, "((%s)(-9223372036854775807 - 1))",
                      codegen_type(e, t));
  } else if (t.code == kDLUInt) {
    tvm_strbuf_printf(e->out, "((%s)%lluu)", codegen_type(e, t),
                      (unsigned long long)v);
  } else {
    tvm_strbuf_printf(e->out, "((%s)%lld)", codegen_type(e, t), (long long)v);
  }
}

/* Prints a float constant of type t (infinities and NaN by bit casts). */
static void emit_float(codegen_c *e, tvm_dtype t, double v) {
  const char *ty = codegen_type(e, t);
  char num[64];
  if (isnan(v) || isinf(v)) {
    const char *bits = isnan(v) ? "0x7fc00000" : v > 0 ? "0x7f800000"
                                                        : "0xff800000";
    snprintf(num, sizeof num, e->d->as_float_fmt, bits);
    if (t.bits == 32) tvm_strbuf_append(e->out, num);
    else tvm_strbuf_printf(e->out, "((%s)%s)", ty, num);
    return;
  }
  snprintf(num, sizeof num, t.bits == 64 ? "%.17g" : "%.9g", v);
  if (!strpbrk(num, ".eE")) strcat(num, ".0");
  if (t.bits == 64)
    tvm_strbuf_printf(e->out, "%s", num);
  else if (t.bits == 32)
    tvm_strbuf_printf(e->out, v < 0 ? "(%sf)" : "%sf", num);
  else
    tvm_strbuf_printf(e->out, "((%s)%sf)", ty, num);
}

/* Binary operator spellings, by kind; NULL where a function is needed. */
static const char *binop(tvm_expr_kind k) {
  switch (k) {
  case TVM_ADD: return " + ";
  case TVM_SUB: return " - ";
  case TVM_MUL: return " * ";
  case TVM_DIV: return " / ";
  case TVM_MOD: return " % ";
  case TVM_EQ: return " == ";
  case TVM_NE: return " != ";
  case TVM_LT: return " < ";
  case TVM_LE: return " <= ";
  case TVM_GT: return " > ";
  case TVM_GE: return " >= ";
  case TVM_AND: return " && ";
  case TVM_OR: return " || ";
  default: return NULL;
  }
}

/* f(a, b) or f(a). */
static void emit_call2(codegen_c *e, const char *f, const tvm_expr *a,
                       const tvm_expr *b, int lane) {
  tvm_strbuf_printf(e->out, "%s(", f);
  codegen_expr(e, a, lane);
  if (b) {
    tvm_strbuf_append(e->out, ", ");
    codegen_expr(e, b, lane);
  }
  tvm_strbuf_append(e->out, ")");
}

/* Is t a 16-bit float whose math runs in float32 here? */
static int math_via_f32(codegen_c *e, tvm_dtype t) {
  return (t.code == kDLBfloat) ||
         (t.code == kDLFloat && t.bits == 16 && !e->d->half_math_native);
}

/* A float math function `base` applied to args (1-3) of type t. */
static void emit_math(codegen_c *e, const char *base, const tvm_dtype t,
                      tvm_expr *const *args, int nargs, int lane) {
  int via = math_via_f32(e, t);
  const char *sfx = (t.bits == 32 || via) ? e->d->f32_suffix : "";
  if (via) tvm_strbuf_printf(e->out, "((%s)", codegen_type(e, tvm_dtype_element(t)));
  tvm_strbuf_printf(e->out, "%s%s(", base, sfx);
  for (int i = 0; i < nargs; i++) {
    if (i) tvm_strbuf_append(e->out, ", ");
    if (via) tvm_strbuf_append(e->out, "(float)(");
    codegen_expr(e, args[i], lane);
    if (via) tvm_strbuf_append(e->out, ")");
  }
  tvm_strbuf_append(e->out, via ? "))" : ")");
}

/* Integer floordiv/floormod: C division when provably non-negative. */
static void emit_floor_int(codegen_c *e, const tvm_expr *x, int lane) {
  int is_div = x->kind == TVM_FLOORDIV;
  if (codegen_nonneg(e, x->u.bin.a) && codegen_nonneg(e, x->u.bin.b)) {
    tvm_strbuf_append(e->out, "(");
    codegen_expr(e, x->u.bin.a, lane);
    tvm_strbuf_append(e->out, is_div ? " / " : " % ");
    codegen_expr(e, x->u.bin.b, lane);
    tvm_strbuf_append(e->out, ")");
    return;
  }
  int wide = x->dtype.bits > 32;
  tvm_strbuf_printf(e->out, "((%s)tvm_floor%s_i%d(",
                    codegen_type(e, tvm_dtype_element(x->dtype)),
                    is_div ? "div" : "mod", wide ? 64 : 32);
  codegen_expr(e, x->u.bin.a, lane);
  tvm_strbuf_append(e->out, ", ");
  codegen_expr(e, x->u.bin.b, lane);
  tvm_strbuf_append(e->out, "))");
}

/* See codegen_int.h. */
const tvm_c_scope *codegen_fragment_scope(codegen_c *e, const tvm_expr *v) {
  void *sc = NULL;
  return v && tvm_ptrmap_get(&e->frag, v, &sc) ? sc : NULL;
}

/* access_ptr(data, dtype, offset, extent, rw): the address of element
 * offset of data, or the fragment holding it for fragment buffers. */
static void emit_access_ptr(codegen_c *e, const tvm_expr *x) {
  tvm_expr *const *a = x->u.call.args;
  if (x->u.call.nargs < 3 || a[0]->kind != TVM_VAR) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "access_ptr needs a buffer variable and an offset");
    return;
  }
  const tvm_c_scope *sc = codegen_fragment_scope(e, a[0]);
  tvm_strbuf_printf(e->out, "(&%s[", codegen_name(e, a[0]));
  if (sc) {
    tvm_expr *n = tvm_int(e->c, sc->fragment_elems);
    tvm_expr *m = tvm_simplify(e->c, tvm_floormod(e->c, a[2], n), &e->bounds);
    if (!m || !tvm_is_zero(m)) {
      tvm_strbuf off;
      tvm_strbuf_init(&off);
      tvm_print_expr(&off, a[2]);
      codegen_fail(e, TVM_ERR_UNSUPPORTED,
                   "access_ptr into %s of fragment scope '%s' at offset %s, "
                   "not provably a multiple of %d elements (one fragment)",
                   a[0]->u.var.name, sc->name, off.data ? off.data : "?",
                   sc->fragment_elems);
      tvm_strbuf_free(&off);
      return;
    }
    codegen_expr(e, tvm_simplify(e->c, tvm_floordiv(e->c, a[2], n),
                                 &e->bounds), -1);
  } else {
    codegen_expr(e, a[2], -1);
  }
  tvm_strbuf_append(e->out, "])");
}

/* An extern call the dialect lists: name(args). */
static void emit_extern(codegen_c *e, const tvm_expr *x) {
  const char *name = x->u.call.name;
  int ok = 0;
  for (int i = 0; name && e->d->extern_names && e->d->extern_names[i]; i++)
    if (!strcmp(e->d->extern_names[i], name)) ok = 1;
  if (!ok) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "extern call %s has no %s device-code definition (the "
                 "dialect's extern_names list it)", name ? name : "?",
                 e->d->name);
    return;
  }
  e->uses_extern = 1;
  tvm_strbuf_printf(e->out, "%s(", name);
  for (int i = 0; i < x->u.call.nargs; i++) {
    if (i) tvm_strbuf_append(e->out, ", ");
    codegen_expr(e, x->u.call.args[i], -1);
  }
  tvm_strbuf_append(e->out, ")");
}

/* Math intrinsics and builtins. */
static void emit_call(codegen_c *e, const tvm_expr *x, int lane) {
  static const struct { tvm_intrin op; const char *name; } fn[] = {
      {TVM_INTRIN_EXP, "exp"},     {TVM_INTRIN_LOG, "log"},
      {TVM_INTRIN_SQRT, "sqrt"},   {TVM_INTRIN_RSQRT, "rsqrt"},
      {TVM_INTRIN_TANH, "tanh"},   {TVM_INTRIN_ERF, "erf"},
      {TVM_INTRIN_POW, "pow"},     {TVM_INTRIN_FABS, "fabs"},
      {TVM_INTRIN_FLOOR, "floor"}, {TVM_INTRIN_CEIL, "ceil"},
      {TVM_INTRIN_ROUND, "rint"},  {TVM_INTRIN_TRUNC, "trunc"},
      {TVM_INTRIN_FMA, "fma"},     {TVM_INTRIN_SIN, "sin"},
      {TVM_INTRIN_COS, "cos"}};
  tvm_intrin op = x->u.call.op;
  tvm_expr *const *a = x->u.call.args;
  int n = x->u.call.nargs;
  for (size_t i = 0; i < sizeof fn / sizeof fn[0]; i++)
    if (fn[i].op == op) {
      if (!tvm_dtype_is_float(x->dtype)) break;
      emit_math(e, fn[i].name, x->dtype, a, n, lane);
      return;
    }
  switch (op) {
  case TVM_INTRIN_SIGMOID: {
    tvm_strbuf_append(e->out, "(1 / (1 + ");
    tvm_ctx *c = e->c;
    tvm_expr *neg = tvm_sub(c, tvm_fconst(c, tvm_dtype_element(a[0]->dtype), 0),
                            a[0]);
    if (!neg) { codegen_fail(e, TVM_ERR_NOMEM, "out of memory"); return; }
    emit_math(e, "exp", x->dtype, &neg, 1, lane);
    tvm_strbuf_append(e->out, "))");
    return;
  }
  case TVM_INTRIN_ISNAN:
    tvm_strbuf_append(e->out, "(");
    codegen_expr(e, a[0], lane);
    tvm_strbuf_append(e->out, " != ");
    codegen_expr(e, a[0], lane);
    tvm_strbuf_append(e->out, ")");
    return;
  case TVM_INTRIN_SHL: case TVM_INTRIN_SHR: case TVM_INTRIN_BITAND:
  case TVM_INTRIN_BITOR: case TVM_INTRIN_BITXOR: {
    const char *o = op == TVM_INTRIN_SHL ? " << " : op == TVM_INTRIN_SHR ? " >> "
                    : op == TVM_INTRIN_BITAND ? " & " : op == TVM_INTRIN_BITOR
                    ? " | " : " ^ ";
    tvm_strbuf_append(e->out, "(");
    codegen_expr(e, a[0], lane);
    tvm_strbuf_append(e->out, o);
    codegen_expr(e, a[1], lane);
    tvm_strbuf_append(e->out, ")");
    return;
  }
  case TVM_INTRIN_LIKELY:
    codegen_expr(e, a[0], lane);
    return;
  case TVM_INTRIN_ACCESS_PTR:
    emit_access_ptr(e, x);
    return;
  case TVM_INTRIN_EXTERN:
    emit_extern(e, x);
    return;
  case TVM_INTRIN_REINTERPRET: {
    tvm_dtype from = a[0]->dtype, to = x->dtype;
    const char *fmt = NULL;
    if (from.bits == 32 && to.bits == 32 && from.code == kDLFloat &&
        to.code != kDLFloat)
      fmt = e->d->as_int_fmt;
    else if (from.bits == 32 && to.bits == 32 && from.code != kDLFloat &&
             to.code == kDLFloat)
      fmt = e->d->as_float_fmt;
    else if (from.bits == 16 && from.code != kDLFloat &&
             from.code != kDLBfloat && to.code == kDLBfloat)
      fmt = e->d->as_bf16_fmt;
    if (!fmt) break;
    tvm_strbuf printed;
    tvm_strbuf *save = e->out;
    tvm_strbuf_init(&printed);
    e->out = &printed;
    codegen_expr(e, a[0], lane);
    e->out = save;
    tvm_strbuf_printf(e->out, "((%s)", codegen_type(e, tvm_dtype_element(to)));
    tvm_strbuf_printf(e->out, fmt, printed.data ? printed.data : "");
    tvm_strbuf_append(e->out, ")");
    tvm_strbuf_free(&printed);
    return;
  }
  default:
    break;
  }
  codegen_fail(e, TVM_ERR_UNSUPPORTED,
               "call %s (%s) has no device-code equivalent; device functions "
               "may call only math intrinsics",
               x->u.call.name ? x->u.call.name : tvm_intrin_name(op),
               tvm_intrin_name(op));
}

/* min/max: min()/max() for integers, the dialect's fmin/fmax for floats. */
static void emit_minmax(codegen_c *e, const tvm_expr *x, int lane) {
  int is_min = x->kind == TVM_MIN;
  tvm_dtype t = x->dtype;
  if (!tvm_dtype_is_float(t) && t.code != kDLBfloat) {
    emit_call2(e, is_min ? "min" : "max", x->u.bin.a, x->u.bin.b, lane);
  } else if (t.bits == 32) {
    emit_call2(e, is_min ? e->d->fmin_f32 : e->d->fmax_f32, x->u.bin.a,
               x->u.bin.b, lane);
  } else {
    tvm_expr *const args[2] = {x->u.bin.a, x->u.bin.b};
    emit_math(e, is_min ? "fmin" : "fmax", t, args, 2, lane);
  }
}

/* A load: from its hoisted vector temporary, or one scalar element. */
static void emit_load(codegen_c *e, const tvm_expr *x, int lane) {
  void *tmp;
  if (x->dtype.lanes > 1 && tvm_ptrmap_get(&e->hoisted, x, &tmp)) {
    tvm_strbuf_printf(e->out, "%s%s", (char *)tmp, codegen_lane_suffix(lane));
    return;
  }
  tvm_dtype el = tvm_dtype_element(x->dtype);
  void *bt = NULL;
  if (codegen_fragment_scope(e, x->u.load.buffer)) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "load from %s of fragment scope '%s': fragments are read "
                 "only by the target's intrinsics (tensorize the stage)",
                 x->u.load.buffer->u.var.name,
                 codegen_fragment_scope(e, x->u.load.buffer)->name);
    return;
  }
  if (tvm_ptrmap_get(&e->buf_type, x->u.load.buffer, &bt) &&
      !tvm_dtype_eq(*(tvm_dtype *)bt, el)) {
    char b1[32], b2[32];
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "load of %s from buffer %s of element type %s",
                 tvm_dtype_str(el, b1), x->u.load.buffer->u.var.name,
                 tvm_dtype_str(*(tvm_dtype *)bt, b2));
    return;
  }
  if (x->u.load.pred) {
    tvm_strbuf_append(e->out, "(");
    codegen_expr(e, x->u.load.pred, lane);
    tvm_strbuf_append(e->out, " ? ");
  }
  tvm_strbuf_printf(e->out, "%s[", codegen_name(e, x->u.load.buffer));
  codegen_expr(e, x->u.load.index, lane);
  tvm_strbuf_append(e->out, "]");
  if (x->u.load.pred) {
    tvm_strbuf_printf(e->out, " : (%s)0)", codegen_type(e, el));
  }
}

/* Prints x (lane >= 0: that lane of a vector expression). */
void codegen_expr(codegen_c *e, const tvm_expr *x, int lane) {
  if (!x) {
    codegen_fail(e, TVM_ERR_INTERNAL, "NULL expression");
    return;
  }
  if (x->dtype.lanes > 1 && lane < 0) {
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "vector expression (%s, %d lanes) outside a vector store",
                 tvm_expr_kind_name(x->kind), (int)x->dtype.lanes);
    return;
  }
  const char *op = binop(x->kind);
  switch (x->kind) {
  case TVM_INT:
    emit_int(e, x->dtype, x->u.ival);
    return;
  case TVM_FLOAT:
    emit_float(e, x->dtype, x->u.fval);
    return;
  case TVM_VAR:
    tvm_strbuf_append(e->out, codegen_name(e, x));
    return;
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_DIV:
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT: case TVM_GE:
  case TVM_AND: case TVM_OR:
    tvm_strbuf_append(e->out, "(");
    codegen_expr(e, x->u.bin.a, lane);
    tvm_strbuf_append(e->out, op);
    codegen_expr(e, x->u.bin.b, lane);
    tvm_strbuf_append(e->out, ")");
    return;
  case TVM_MOD:
    if (tvm_dtype_is_float(x->dtype)) {
      tvm_expr *const args[2] = {x->u.bin.a, x->u.bin.b};
      emit_math(e, "fmod", x->dtype, args, 2, lane);
      return;
    }
    tvm_strbuf_append(e->out, "(");
    codegen_expr(e, x->u.bin.a, lane);
    tvm_strbuf_append(e->out, " % ");
    codegen_expr(e, x->u.bin.b, lane);
    tvm_strbuf_append(e->out, ")");
    return;
  case TVM_FLOORDIV: case TVM_FLOORMOD:
    if (!tvm_dtype_is_float(x->dtype)) {
      emit_floor_int(e, x, lane);
      return;
    } else {
      tvm_ctx *c = e->c;
      tvm_expr *q = tvm_math(c, TVM_INTRIN_FLOOR,
                             tvm_div(c, x->u.bin.a, x->u.bin.b));
      if (x->kind == TVM_FLOORMOD)
        q = tvm_sub(c, x->u.bin.a, tvm_mul(c, q, x->u.bin.b));
      if (!q) { codegen_fail(e, TVM_ERR_NOMEM, "out of memory"); return; }
      codegen_expr(e, q, lane);
      return;
    }
  case TVM_MIN: case TVM_MAX:
    emit_minmax(e, x, lane);
    return;
  case TVM_NOT:
    tvm_strbuf_append(e->out, "(!");
    codegen_expr(e, x->u.un.a, lane);
    tvm_strbuf_append(e->out, ")");
    return;
  case TVM_SELECT:
    tvm_strbuf_append(e->out, "(");
    codegen_expr(e, x->u.sel.cond, lane);
    tvm_strbuf_append(e->out, " ? ");
    codegen_expr(e, x->u.sel.t, lane);
    tvm_strbuf_append(e->out, " : ");
    codegen_expr(e, x->u.sel.f, lane);
    tvm_strbuf_append(e->out, ")");
    return;
  case TVM_CAST:
    if (tvm_dtype_is_bool(x->dtype)) {
      tvm_strbuf_append(e->out, "(");
      codegen_expr(e, x->u.un.a, lane);
      tvm_strbuf_append(e->out, " != 0)");
      return;
    }
    tvm_strbuf_printf(e->out, "((%s)(",
                      codegen_type(e, tvm_dtype_element(x->dtype)));
    /* float to an integer narrower than 32 bits goes through int: a
     * direct conversion of a value out of the narrow type's range is
     * undefined in C, CUDA C and OpenCL C, where through int it wraps
     * as the reference and llvm-cpu do (within int's range) */
    int via_int = tvm_dtype_is_float(x->u.un.a->dtype) &&
                  tvm_dtype_is_int(x->dtype) && x->dtype.bits < 32;
    if (via_int)
      tvm_strbuf_append(e->out, "(int)(");
    codegen_expr(e, x->u.un.a, lane);
    tvm_strbuf_append(e->out, via_int ? ")))" : "))");
    return;
  case TVM_CALL:
    emit_call(e, x, lane);
    return;
  case TVM_LOAD:
    emit_load(e, x, lane);
    return;
  case TVM_RAMP:
    tvm_strbuf_append(e->out, "(");
    codegen_expr(e, x->u.ramp.base, -1);
    tvm_strbuf_append(e->out, " + ");
    codegen_expr(e, x->u.ramp.stride, -1);
    tvm_strbuf_printf(e->out, " * %d)", lane);
    return;
  case TVM_BROADCAST:
    codegen_expr(e, x->u.bcast.value, -1);
    return;
  default:
    codegen_fail(e, TVM_ERR_UNSUPPORTED,
                 "expression kind %s is not supported in device code (lower "
                 "the function fully first)",
                 tvm_expr_kind_name(x->kind));
    return;
  }
}

/* floordiv/floormod helpers for 32- and 64-bit integers. */
void codegen_helpers(const tvm_c_dialect *d, tvm_strbuf *out) {
  const char *ty[2] = {d->int_names[2], d->int_names[3]};
  for (int i = 0; i < 2; i++) {
    int w = i ? 64 : 32;
    tvm_strbuf_printf(out,
        "%s %s tvm_floordiv_i%d(%s a, %s b) {\n"
        "  %s q = a / b;\n"
        "  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;\n"
        "}\n"
        "%s %s tvm_floormod_i%d(%s a, %s b) {\n"
        "  %s r = a %% b;\n"
        "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
        "}\n",
        d->helper_qual, ty[i], w, ty[i], ty[i], ty[i],
        d->helper_qual, ty[i], w, ty[i], ty[i], ty[i]);
  }
}
