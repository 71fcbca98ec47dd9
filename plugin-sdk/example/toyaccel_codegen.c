/*
 * toyaccel_codegen.c - loop IR (tvm/ir.h) to toyaccel bytecode.
 *
 * Handles what elementwise and loop programs lower to: loops (every kind
 * runs serially), sequences, if, let, scalar loads and stores of flat
 * buffers, allocations, assertions, integer and float arithmetic,
 * comparisons, select, casts and a few math intrinsics.  Anything else
 * (vector lanes, thread axes, extern calls) is refused with a message
 * naming it: the target then needs a schedule that avoids it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toyaccel.h"

typedef struct cg {
  toy_insn *code;
  uint32_t n, cap;
  const tvm_expr **vars; /* slot -> variable (NULL for hidden slots) */
  uint32_t nslots, vcap;
  int32_t err;           /* first failure, 0 if none */
} cg;

/* Appends one instruction (sets g->err when out of memory). */
static void emit(cg *g, uint16_t op, uint8_t dt, int32_t a, double imm) {
  if (g->err) return;
  if (g->n == g->cap) {
    uint32_t nc = g->cap ? g->cap * 2 : 64;
    toy_insn *c = realloc(g->code, nc * sizeof(*c));
    if (c == NULL) {
      g->err = toy_fail(TVM_ERR_NOMEM, "toyaccel: out of memory");
      return;
    }
    g->code = c;
    g->cap = nc;
  }
  toy_insn in = {op, dt, 0, a, imm};
  g->code[g->n++] = in;
}

/* A new slot, bound to variable v (NULL: a hidden temporary). */
static int32_t new_slot(cg *g, const tvm_expr *v) {
  if (g->err) return 0;
  if (g->nslots == g->vcap) {
    uint32_t nc = g->vcap ? g->vcap * 2 : 16;
    const tvm_expr **nv = realloc(g->vars, nc * sizeof(*nv));
    if (nv == NULL) {
      g->err = toy_fail(TVM_ERR_NOMEM, "toyaccel: out of memory");
      return 0;
    }
    g->vars = nv;
    g->vcap = nc;
  }
  g->vars[g->nslots] = v;
  return (int32_t)g->nslots++;
}

/* The slot of variable v (the innermost binding). */
static int32_t slot_of(cg *g, const tvm_expr *v) {
  for (uint32_t i = g->nslots; i-- > 0;)
    if (g->vars[i] == v) return (int32_t)i;
  if (!g->err)
    g->err = toy_fail(TVM_ERR_INVALID, "toyaccel: variable '%s' is not bound",
                      v->u.var.name ? v->u.var.name : "?");
  return 0;
}

/* The toy type of a scalar dtype. */
static uint8_t dt_of(cg *g, tvm_dtype t) {
  if (t.lanes != 1 && !g->err)
    g->err = toy_fail(TVM_ERR_UNSUPPORTED,
                      "toyaccel: vector values (%u lanes) are not supported; "
                      "do not vectorize for this target",
                      (unsigned)t.lanes);
  if (t.code == kDLFloat && t.bits != 32 && t.bits != 64 && !g->err)
    g->err = toy_fail(TVM_ERR_UNSUPPORTED,
                      "toyaccel: float%u is not supported (float32 and "
                      "float64 only)", (unsigned)t.bits);
  if (t.code == kDLFloat) return t.bits == 64 ? TOY_F64 : TOY_F32;
  if (t.code == kDLUInt && t.bits == 1) return TOY_BOOL;
  if (t.code == kDLUInt && t.bits == 8) return TOY_U8;
  if (t.code == kDLInt || t.code == kDLUInt) {
    switch (t.bits) {
    case 8: return TOY_I8;
    case 16: return TOY_I16;
    case 64: return TOY_I64;
    default: return TOY_I32;
    }
  }
  return TOY_I64;
}

/* Code that pushes the value of e. */
static void expr(cg *g, const tvm_expr *e);

/* Both operands, then op typed by the left operand. */
static void binary(cg *g, const tvm_expr *e, uint16_t op) {
  expr(g, e->u.bin.a);
  expr(g, e->u.bin.b);
  emit(g, op, dt_of(g, e->u.bin.a->dtype), 0, 0);
}

/* Code that pushes the value of e. */
static void expr(cg *g, const tvm_expr *e) {
  if (g->err) return;
  if (e == NULL) {
    g->err = toy_fail(TVM_ERR_INVALID, "toyaccel: NULL expression");
    return;
  }
  switch (e->kind) {
  case TVM_INT: emit(g, TOY_PUSH, dt_of(g, e->dtype), 0, (double)e->u.ival); return;
  case TVM_FLOAT: emit(g, TOY_PUSH, dt_of(g, e->dtype), 0, e->u.fval); return;
  case TVM_VAR: emit(g, TOY_GET, 0, slot_of(g, e), 0); return;
  case TVM_ADD: binary(g, e, TOY_ADD); return;
  case TVM_SUB: binary(g, e, TOY_SUB); return;
  case TVM_MUL: binary(g, e, TOY_MUL); return;
  case TVM_DIV: binary(g, e, TOY_DIV); return;
  case TVM_MOD: binary(g, e, TOY_MOD); return;
  case TVM_FLOORDIV: binary(g, e, TOY_FLOORDIV); return;
  case TVM_FLOORMOD: binary(g, e, TOY_FLOORMOD); return;
  case TVM_MIN: binary(g, e, TOY_MIN); return;
  case TVM_MAX: binary(g, e, TOY_MAX); return;
  case TVM_EQ: binary(g, e, TOY_EQ); return;
  case TVM_NE: binary(g, e, TOY_NE); return;
  case TVM_LT: binary(g, e, TOY_LT); return;
  case TVM_LE: binary(g, e, TOY_LE); return;
  case TVM_GT: binary(g, e, TOY_GT); return;
  case TVM_GE: binary(g, e, TOY_GE); return;
  case TVM_AND: binary(g, e, TOY_AND); return;
  case TVM_OR: binary(g, e, TOY_OR); return;
  case TVM_NOT:
    expr(g, e->u.un.a);
    emit(g, TOY_NOT, TOY_BOOL, 0, 0);
    return;
  case TVM_SELECT:
    expr(g, e->u.sel.cond);
    expr(g, e->u.sel.t);
    expr(g, e->u.sel.f);
    emit(g, TOY_SELECT, 0, 0, 0);
    return;
  case TVM_CAST:
    expr(g, e->u.un.a);
    emit(g, TOY_CAST, dt_of(g, e->dtype), 0, 0);
    return;
  case TVM_LOAD:
    if (e->u.load.pred != NULL) break;
    expr(g, e->u.load.index);
    emit(g, TOY_LOAD, dt_of(g, e->dtype), slot_of(g, e->u.load.buffer), 0);
    return;
  case TVM_LET: {
    expr(g, e->u.let.value);
    int32_t s = new_slot(g, e->u.let.var);
    emit(g, TOY_SET, 0, s, 0);
    expr(g, e->u.let.body);
    if (!g->err) g->vars[s] = NULL; /* out of scope */
    return;
  }
  case TVM_CALL: {
    static const struct { tvm_intrin in; uint16_t op; } math[] = {
        {TVM_INTRIN_EXP, TOY_EXP},   {TVM_INTRIN_LOG, TOY_LOG},
        {TVM_INTRIN_SQRT, TOY_SQRT}, {TVM_INTRIN_FABS, TOY_FABS},
        {TVM_INTRIN_TANH, TOY_TANH}, {TVM_INTRIN_FLOOR, TOY_FLOOR}};
    if (e->u.call.op == TVM_INTRIN_LIKELY && e->u.call.nargs == 1) {
      expr(g, e->u.call.args[0]);
      return;
    }
    for (size_t i = 0; i < sizeof math / sizeof math[0]; i++)
      if (math[i].in == e->u.call.op && e->u.call.nargs == 1) {
        expr(g, e->u.call.args[0]);
        emit(g, math[i].op, dt_of(g, e->dtype), 0, 0);
        return;
      }
    g->err = toy_fail(TVM_ERR_UNSUPPORTED,
                      "toyaccel: call '%s' is not supported",
                      e->u.call.name ? e->u.call.name : "?");
    return;
  }
  default: break;
  }
  g->err = toy_fail(TVM_ERR_UNSUPPORTED,
                    "toyaccel: expression kind %d (%s) is not supported",
                    (int)e->kind, tvm_expr_kind_name(e->kind));
}

/* Code that executes s. */
static void stmt(cg *g, const tvm_stmt *s) {
  if (g->err || s == NULL) return;
  switch (s->kind) {
  case TVM_FOR: {
    if (s->u.for_.for_kind == TVM_FOR_THREAD ||
        s->u.for_.for_kind == TVM_FOR_VTHREAD) {
      g->err = toy_fail(TVM_ERR_UNSUPPORTED,
                        "toyaccel: thread-bound loops are not supported");
      return;
    }
    /* var = min; end = min + extent; while (var < end) { body; var++ } */
    int32_t end = new_slot(g, NULL);
    expr(g, s->u.for_.min);
    expr(g, s->u.for_.extent);
    emit(g, TOY_ADD, TOY_I64, 0, 0);
    emit(g, TOY_SET, 0, end, 0);
    int32_t v = new_slot(g, s->u.for_.var);
    expr(g, s->u.for_.min);
    emit(g, TOY_SET, 0, v, 0);
    uint32_t top = g->n;
    emit(g, TOY_GET, 0, v, 0);
    emit(g, TOY_GET, 0, end, 0);
    emit(g, TOY_LT, TOY_I64, 0, 0);
    uint32_t jz = g->n;
    emit(g, TOY_JZ, 0, 0, 0);
    stmt(g, s->u.for_.body);
    emit(g, TOY_GET, 0, v, 0);
    emit(g, TOY_PUSH, TOY_I64, 0, 1);
    emit(g, TOY_ADD, TOY_I64, 0, 0);
    emit(g, TOY_SET, 0, v, 0);
    emit(g, TOY_JMP, 0, (int32_t)top, 0);
    if (!g->err) g->code[jz].a = (int32_t)g->n;
    if (!g->err) g->vars[v] = NULL;
    return;
  }
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) stmt(g, s->u.seq.stmts[i]);
    return;
  case TVM_IF: {
    expr(g, s->u.if_.cond);
    uint32_t jz = g->n;
    emit(g, TOY_JZ, 0, 0, 0);
    stmt(g, s->u.if_.then_);
    uint32_t jmp = g->n;
    emit(g, TOY_JMP, 0, 0, 0);
    if (!g->err) g->code[jz].a = (int32_t)g->n;
    stmt(g, s->u.if_.else_);
    if (!g->err) g->code[jmp].a = (int32_t)g->n;
    return;
  }
  case TVM_LET_STMT: {
    expr(g, s->u.let.value);
    int32_t v = new_slot(g, s->u.let.var);
    emit(g, TOY_SET, 0, v, 0);
    stmt(g, s->u.let.body);
    if (!g->err) g->vars[v] = NULL;
    return;
  }
  case TVM_STORE:
    if (s->u.store.pred != NULL) break;
    expr(g, s->u.store.index);
    expr(g, s->u.store.value);
    emit(g, TOY_STORE, dt_of(g, s->u.store.value->dtype),
         slot_of(g, s->u.store.buffer), 0);
    return;
  case TVM_ALLOCATE: {
    expr(g, s->u.alloc.extent);
    int32_t v = new_slot(g, s->u.alloc.buffer);
    emit(g, TOY_ALLOC, dt_of(g, s->u.alloc.dtype), v, 0);
    stmt(g, s->u.alloc.body);
    emit(g, TOY_FREE, 0, v, 0);
    if (!g->err) g->vars[v] = NULL;
    return;
  }
  case TVM_ATTR: stmt(g, s->u.attr.body); return;
  case TVM_EVALUATE:
    if (s->u.eval.value && (s->u.eval.value->kind == TVM_INT ||
                            s->u.eval.value->kind == TVM_FLOAT))
      return; /* a no-op */
    expr(g, s->u.eval.value);
    emit(g, TOY_POP, 0, 0, 0);
    return;
  case TVM_ASSERT: {
    expr(g, s->u.assert_.cond);
    uint32_t jz = g->n;
    emit(g, TOY_JZ, 0, 0, 0);
    stmt(g, s->u.assert_.body);
    uint32_t jmp = g->n;
    emit(g, TOY_JMP, 0, 0, 0);
    if (!g->err) g->code[jz].a = (int32_t)g->n;
    emit(g, TOY_TRAP, 0, 0, 0);
    if (!g->err) g->code[jmp].a = (int32_t)g->n;
    return;
  }
  default: break;
  }
  g->err = toy_fail(TVM_ERR_UNSUPPORTED,
                    "toyaccel: statement kind %d (%s) is not supported",
                    (int)s->kind, tvm_stmt_kind_name(s->kind));
}

/* A growable byte buffer for the blob (host-allocated at the end). */
typedef struct bytes {
  uint8_t *p;
  size_t n, cap;
  int oom;
} bytes;

/* Appends n bytes to the blob being built. */
static void put(bytes *b, const void *src, size_t n) {
  if (b->oom) return;
  if (b->n + n > b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 256;
    while (nc < b->n + n) nc *= 2;
    uint8_t *p = realloc(b->p, nc);
    if (p == NULL) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = nc;
  }
  memcpy(b->p + b->n, src, n);
  b->n += n;
}

/* Appends a 32-bit value. */
static void put_u32(bytes *b, uint32_t v) { put(b, &v, sizeof v); }

/* Every function of m, one after the other, into one blob; one kernel
 * entry per function. */
int32_t toy_codegen(const tvm_module *m, tvm_plugin_blob *out) {
  bytes b = {0};
  put(&b, "TOY1", 4);
  put_u32(&b, (uint32_t)m->nfuncs);
  /* the kernel table: one kernel per function (the SDK library) */
  int32_t rc = tvm_sdk_blob_kernels_of_module(toy_host, out, m);
  for (int i = 0; i < m->nfuncs && rc == 0; i++) {
    const tvm_func *f = m->funcs[i];
    cg g = {0};
    for (int p = 0; p < f->nparams; p++) new_slot(&g, f->params[p]);
    stmt(&g, f->body);
    emit(&g, TOY_HALT, 0, 0, 0);
    rc = g.err;
    if (rc == 0) {
      uint32_t len = (uint32_t)strlen(f->name);
      put_u32(&b, len);
      put(&b, f->name, len);
      put_u32(&b, (uint32_t)f->nparams);
      put_u32(&b, g.nslots);
      put_u32(&b, g.n);
      put(&b, g.code, g.n * sizeof(toy_insn));
    }
    free(g.code);
    free(g.vars);
  }
  if (rc == 0 && b.oom) rc = toy_fail(TVM_ERR_NOMEM, "toyaccel: OOM");
  if (rc == 0) rc = tvm_sdk_blob_set_data(toy_host, out, TVM_BLOB_CUSTOM, b.p, b.n);
  free(b.p);
  return rc; /* on failure the host frees what out holds */
}
