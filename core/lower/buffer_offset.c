/*
 * core/lower/buffer_offset.c - moving every access of one buffer by an
 * offset, for the passes that give a buffer more copies than the schedule
 * asked for: inject_virtual_thread (a copy per virtual thread) and
 * inject_double_buffer (two copies, alternating between loop iterations).
 */
#include "lower_int.h"

/* Rewrite of the accesses of one buffer: index + offset. */
typedef struct expand {
  tvm_expr *buffer, *offset;
  int raw_use; /* the buffer var is used other than by loads/stores/ptrs */
} expand;

/* index + off, keeping ramps as ramps. */
static tvm_expr *offset_index(tvm_ctx *c, tvm_expr *index, tvm_expr *off) {
  if (index->kind == TVM_RAMP)
    return tvm_ramp(c,
                    tvm_add(c, index->u.ramp.base,
                            tvm_cast(c, index->u.ramp.base->dtype, off)),
                    index->u.ramp.stride, index->u.ramp.lanes);
  return tvm_add(c, index, tvm_cast(c, index->dtype, off));
}

/* Mutator hook: offsets loads and access_ptrs of the buffer and
 * notes other (raw) uses of its variable. */
static tvm_expr *expand_expr(tvm_mutator *m, tvm_expr *e) {
  expand *x = m->data;
  tvm_ctx *c = m->ctx;
  if (e->kind == TVM_LOAD && e->u.load.buffer == x->buffer) {
    tvm_expr *i = tvm_mutate_expr(m, e->u.load.index);
    tvm_expr *p = e->u.load.pred ? tvm_mutate_expr(m, e->u.load.pred) : NULL;
    if (!i)
      return NULL;
    tvm_expr *r = tvm_load(c, e->dtype, e->u.load.buffer,
                           offset_index(c, i, x->offset), p);
    return r ? r : tvm_int(c, 0); /* failure is sticky in c */
  }
  if (e->kind == TVM_CALL && e->u.call.op == TVM_INTRIN_ACCESS_PTR &&
      e->u.call.nargs >= 3 && e->u.call.args[0] == x->buffer) {
    int n = e->u.call.nargs;
    tvm_expr **a = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)n);
    if (!a)
      return tvm_int(c, 0);
    for (int i = 0; i < n; i++)
      a[i] = i == 0 ? e->u.call.args[0] : tvm_mutate_expr(m, e->u.call.args[i]);
    a[2] = tvm_add(c, a[2], tvm_cast(c, a[2]->dtype, x->offset));
    tvm_expr *r = tvm_call(c, e->dtype, e->u.call.op, a, n);
    return r ? r : tvm_int(c, 0);
  }
  if (e == x->buffer)
    x->raw_use = 1;
  return NULL;
}

/* Mutator hook: offsets stores to the buffer. */
static tvm_stmt *expand_stmt(tvm_mutator *m, tvm_stmt *s) {
  expand *x = m->data;
  tvm_ctx *c = m->ctx;
  if (s->kind == TVM_STORE && s->u.store.buffer == x->buffer) {
    tvm_expr *i = tvm_mutate_expr(m, s->u.store.index);
    tvm_expr *v = tvm_mutate_expr(m, s->u.store.value);
    tvm_expr *p = s->u.store.pred ? tvm_mutate_expr(m, s->u.store.pred) : NULL;
    if (!i || !v)
      return NULL;
    return tvm_store(c, s->u.store.buffer, offset_index(c, i, x->offset), v, p);
  }
  return NULL;
}

/* See lower_int.h. */
tvm_stmt *lower_offset_accesses(tvm_ctx *c, tvm_stmt *s, tvm_expr *buffer,
                                tvm_expr *offset, int *raw_use) {
  expand x = {buffer, offset, 0};
  tvm_mutator m = {c, expand_expr, expand_stmt, &x};
  tvm_stmt *r = tvm_mutate_stmt(&m, s);
  if (raw_use)
    *raw_use = x.raw_use;
  return r;
}
