/*
 * core/codegen/combine.c - recognizing the final combine of a
 * cross-thread reduction, for codegens that do it with subgroup or warp
 * operations (vulkan's OpGroupNonUniform*, cuda's warp shuffles through
 * the C emitter).  See tvm/codegen_c.h.
 */
#include "tvm/codegen_c.h"

/* Is e a plain (unpredicated) load? */
static int plain_load(const tvm_expr *e) {
  return e && e->kind == TVM_LOAD && !e->u.load.pred;
}

/* See tvm/codegen_c.h. */
int tvm_match_block_combine(const tvm_stmt *s, tvm_block_combine *m) {
  int64_t lo = -1, T = 0;
  if (!s || !m || s->kind != TVM_FOR ||
      !tvm_is_const_int(s->u.for_.min, &lo) || lo != 0 ||
      !tvm_is_const_int(s->u.for_.extent, &T) || T < 2)
    return 0;
  const tvm_expr *v = s->u.for_.var;
  const tvm_stmt *st = s->u.for_.body;
  if (!st || st->kind != TVM_STORE || st->u.store.pred) return 0;
  const tvm_expr *val = st->u.store.value;
  tvm_dtype t = val->dtype;
  if (t.lanes != 1 || t.bits != 32 || tvm_dtype_is_bool(t) ||
      (val->kind != TVM_ADD && val->kind != TVM_MAX && val->kind != TVM_MIN))
    return 0;
  /* L[i] = op(L[i], RF[f(v)]) or op(RF[f(v)], L[i]) */
  const tvm_expr *a = val->u.bin.a, *b = val->u.bin.b;
  if (!(plain_load(a) && a->u.load.buffer == st->u.store.buffer &&
        tvm_expr_equal(a->u.load.index, st->u.store.index))) {
    const tvm_expr *x = a;
    a = b;
    b = x;
  }
  if (!plain_load(a) || !plain_load(b) ||
      a->u.load.buffer != st->u.store.buffer ||
      b->u.load.buffer == st->u.store.buffer ||
      !tvm_expr_equal(a->u.load.index, st->u.store.index) ||
      tvm_expr_uses_var(st->u.store.index, v) ||
      !tvm_expr_uses_var(b->u.load.index, v) ||
      !tvm_dtype_eq(a->dtype, t) || !tvm_dtype_eq(b->dtype, t))
    return 0;
  m->var = v;
  m->T = T;
  m->store = st;
  m->acc = a;
  m->part = b;
  m->op = val->kind;
  return 1;
}
