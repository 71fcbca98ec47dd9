/*
 * tests/unit/lower/tir_interp.h - a tiny interpreter of flat scalar loop
 * IR (after storage_flatten), test-only: runs a lowered CPU function on
 * float32 arrays so that lowering can be checked against a naive
 * reference.  Loops of every kind run serially (so schedules that need
 * thread barriers are out of its reach); vector expressions are not
 * supported.
 */
#ifndef TVM_TEST_TIR_INTERP_H
#define TVM_TEST_TIR_INTERP_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tvm/ir.h"

typedef struct interp_val {
  int is_float;
  double f;
  int64_t i;
} interp_val;

typedef struct interp_buf {
  const tvm_expr *var;
  float *data;
  int64_t n;
  int owned;
} interp_buf;

typedef struct interp {
  const tvm_expr *vars[256];
  int64_t vals[256];
  int nvars;
  interp_buf bufs[64];
  int nbufs;
  int error; /* first problem: 1 = unsupported node, 2 = out of bounds */
} interp;

static int64_t interp_var(interp *it, const tvm_expr *v) {
  for (int i = it->nvars - 1; i >= 0; i--)
    if (it->vars[i] == v)
      return it->vals[i];
  it->error = it->error ? it->error : 3;
  return 0;
}

static interp_buf *interp_find(interp *it, const tvm_expr *v) {
  for (int i = it->nbufs - 1; i >= 0; i--)
    if (it->bufs[i].var == v)
      return &it->bufs[i];
  it->error = it->error ? it->error : 4;
  return NULL;
}

static interp_val iv_int(int64_t i) {
  interp_val r = {0, (double)i, i};
  return r;
}
static interp_val iv_flt(double f) {
  interp_val r = {1, f, (int64_t)f};
  return r;
}

static int64_t floordiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static interp_val interp_expr(interp *it, const tvm_expr *e) {
  if (!e) {
    it->error = it->error ? it->error : 1;
    return iv_int(0);
  }
  switch (e->kind) {
  case TVM_INT:
    return iv_int(e->u.ival);
  case TVM_FLOAT:
    return iv_flt(e->u.fval);
  case TVM_VAR:
    return iv_int(interp_var(it, e));
  case TVM_CAST: {
    interp_val a = interp_expr(it, e->u.un.a);
    if (tvm_dtype_is_float(e->dtype))
      return iv_flt(a.is_float ? a.f : (double)a.i);
    return iv_int(a.is_float ? (int64_t)a.f : a.i);
  }
  case TVM_NOT:
    return iv_int(!interp_expr(it, e->u.un.a).i);
  case TVM_SELECT: {
    interp_val c = interp_expr(it, e->u.sel.cond);
    interp_val t = interp_expr(it, e->u.sel.t);
    interp_val f = interp_expr(it, e->u.sel.f);
    return c.i ? t : f;
  }
  case TVM_LOAD: {
    interp_buf *b = interp_find(it, e->u.load.buffer);
    int64_t i = interp_expr(it, e->u.load.index).i;
    if (!b || i < 0 || i >= b->n) {
      it->error = it->error ? it->error : 2;
      return iv_flt(0);
    }
    return iv_flt(b->data[i]);
  }
  case TVM_LET: {
    interp_val v = interp_expr(it, e->u.let.value);
    it->vars[it->nvars] = e->u.let.var;
    it->vals[it->nvars++] = v.i;
    interp_val r = interp_expr(it, e->u.let.body);
    it->nvars--;
    return r;
  }
  default:
    break;
  }
  if (e->kind < TVM_ADD || e->kind > TVM_OR) {
    it->error = it->error ? it->error : 1;
    return iv_int(0);
  }
  interp_val a = interp_expr(it, e->u.bin.a), b = interp_expr(it, e->u.bin.b);
  if (a.is_float || b.is_float) {
    double x = a.is_float ? a.f : (double)a.i, y = b.is_float ? b.f : (double)b.i;
    switch (e->kind) {
    case TVM_ADD: return iv_flt((float)(x + y));
    case TVM_SUB: return iv_flt((float)(x - y));
    case TVM_MUL: return iv_flt((float)(x * y));
    case TVM_DIV: return iv_flt((float)(x / y));
    case TVM_MIN: return iv_flt(x < y ? x : y);
    case TVM_MAX: return iv_flt(x > y ? x : y);
    case TVM_EQ: return iv_int(x == y);
    case TVM_NE: return iv_int(x != y);
    case TVM_LT: return iv_int(x < y);
    case TVM_LE: return iv_int(x <= y);
    case TVM_GT: return iv_int(x > y);
    case TVM_GE: return iv_int(x >= y);
    default:
      it->error = it->error ? it->error : 1;
      return iv_int(0);
    }
  }
  int64_t x = a.i, y = b.i;
  switch (e->kind) {
  case TVM_ADD: return iv_int(x + y);
  case TVM_SUB: return iv_int(x - y);
  case TVM_MUL: return iv_int(x * y);
  case TVM_DIV: return iv_int(y ? x / y : 0);
  case TVM_MOD: return iv_int(y ? x % y : 0);
  case TVM_FLOORDIV: return iv_int(y ? floordiv64(x, y) : 0);
  case TVM_FLOORMOD: return iv_int(y ? x - floordiv64(x, y) * y : 0);
  case TVM_MIN: return iv_int(x < y ? x : y);
  case TVM_MAX: return iv_int(x > y ? x : y);
  case TVM_EQ: return iv_int(x == y);
  case TVM_NE: return iv_int(x != y);
  case TVM_LT: return iv_int(x < y);
  case TVM_LE: return iv_int(x <= y);
  case TVM_GT: return iv_int(x > y);
  case TVM_GE: return iv_int(x >= y);
  case TVM_AND: return iv_int(x && y);
  case TVM_OR: return iv_int(x || y);
  default:
    it->error = it->error ? it->error : 1;
    return iv_int(0);
  }
}

static void interp_stmt(interp *it, const tvm_stmt *s) {
  if (!s || it->error)
    return;
  switch (s->kind) {
  case TVM_FOR: {
    int64_t lo = interp_expr(it, s->u.for_.min).i;
    int64_t n = interp_expr(it, s->u.for_.extent).i;
    int slot = it->nvars++;
    it->vars[slot] = s->u.for_.var;
    for (int64_t i = lo; i < lo + n && !it->error; i++) {
      it->vals[slot] = i;
      interp_stmt(it, s->u.for_.body);
    }
    it->nvars--;
    return;
  }
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++)
      interp_stmt(it, s->u.seq.stmts[i]);
    return;
  case TVM_IF:
    if (interp_expr(it, s->u.if_.cond).i)
      interp_stmt(it, s->u.if_.then_);
    else
      interp_stmt(it, s->u.if_.else_);
    return;
  case TVM_LET_STMT: {
    interp_val v = interp_expr(it, s->u.let.value);
    it->vars[it->nvars] = s->u.let.var;
    it->vals[it->nvars++] = v.i;
    interp_stmt(it, s->u.let.body);
    it->nvars--;
    return;
  }
  case TVM_STORE: {
    interp_buf *b = interp_find(it, s->u.store.buffer);
    int64_t i = interp_expr(it, s->u.store.index).i;
    interp_val v = interp_expr(it, s->u.store.value);
    if (!b || i < 0 || i >= b->n) {
      it->error = it->error ? it->error : 2;
      return;
    }
    b->data[i] = (float)(v.is_float ? v.f : (double)v.i);
    return;
  }
  case TVM_ALLOCATE: {
    int64_t n = interp_expr(it, s->u.alloc.extent).i;
    interp_buf *b = &it->bufs[it->nbufs++];
    b->var = s->u.alloc.buffer;
    b->n = n;
    b->data = calloc((size_t)(n > 0 ? n : 1), sizeof(float));
    /* poison: reading before writing shows up as a wrong result */
    for (int64_t i = 0; i < n; i++)
      b->data[i] = NAN;
    interp_stmt(it, s->u.alloc.body);
    free(b->data);
    it->nbufs--;
    return;
  }
  case TVM_ATTR:
  case TVM_ASSERT:
    interp_stmt(it, s->kind == TVM_ATTR ? s->u.attr.body : s->u.assert_.body);
    return;
  case TVM_BARRIER:
    return;
  default:
    it->error = it->error ? it->error : 1;
    return;
  }
}

/* Runs f with its buffer parameters bound to arrays (in parameter order;
 * sizes in elements).  Returns 0, or the interpreter's error code. */
static int interp_run(const tvm_func *f, float **arrays, const int64_t *sizes) {
  interp *it = calloc(1, sizeof(*it));
  if (!it)
    return -1;
  for (int i = 0; i < f->nparams; i++) {
    it->bufs[it->nbufs].var = f->params[i];
    it->bufs[it->nbufs].data = arrays[i];
    it->bufs[it->nbufs].n = sizes[i];
    it->nbufs++;
  }
  interp_stmt(it, f->body);
  int err = it->error;
  free(it);
  return err;
}

#endif /* TVM_TEST_TIR_INTERP_H */
