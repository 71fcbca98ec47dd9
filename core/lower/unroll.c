/*
 * core/lower/unroll.c - the unroll pass.
 *
 * A loop marked TVM_FOR_UNROLLED whose extent is a constant no larger than
 * o->unroll_max_extent is replaced by a sequence of copies of its body,
 * the loop variable substituted by min + k in copy k.  Loops with larger
 * or symbolic extents become serial loops (the LLVM backend may still
 * unroll them); unroll_max_extent <= 0 disables explicit unrolling.
 * Inner loops are handled first, so nested unrolled loops flatten fully.
 */
#include "tvm/lower.h"
#include "lower_int.h"

/* The value of loop variable var in copy k of a loop starting at min: a
 * constant when min is one, else min + k. */
static tvm_expr *copy_value(tvm_ctx *c, tvm_expr *var, tvm_expr *min,
                            int64_t k) {
  int64_t m;
  if (tvm_is_const_int(min, &m)) return tvm_const(c, var->dtype, m + k);
  if (k == 0) return min;
  return tvm_add(c, min, tvm_const(c, var->dtype, k));
}

/* The copies of the loop s (extent n) as one sequence; NULL on OOM. */
static tvm_stmt *unroll_loop(tvm_ctx *c, tvm_stmt *s, tvm_stmt *body,
                             int64_t n) {
  tvm_stmt **copies = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)n);
  tvm_ptrmap map = {0};
  tvm_stmt *res = NULL;
  if (!copies) return NULL;
  for (int64_t k = 0; k < n; k++) {
    tvm_expr *v = copy_value(c, s->u.for_.var, s->u.for_.min, k);
    if (!v || tvm_ptrmap_put(&map, s->u.for_.var, v) != TVM_OK) goto done;
    copies[k] = tvm_substitute_stmt(c, body, &map);
    if (!copies[k]) goto done;
  }
  res = tvm_seq(c, copies, (int)n);
done:
  tvm_ptrmap_free(&map);
  return res;
}

/* Mutator hook: rewrites unrolled loops bottom-up. */
static tvm_stmt *unroll_stmt(tvm_mutator *m, tvm_stmt *s) {
  const tvm_lower_options *o = m->data;
  int64_t n;
  if (s->kind != TVM_FOR || s->u.for_.for_kind != TVM_FOR_UNROLLED)
    return NULL;
  tvm_stmt *body = tvm_mutate_stmt(m, s->u.for_.body);
  if (!body) return NULL;
  if (tvm_is_const_int(s->u.for_.extent, &n) && n >= 0 &&
      o->unroll_max_extent > 0 && n <= o->unroll_max_extent) {
    if (n == 0) return tvm_seq(m->ctx, NULL, 0); /* nop */
    return unroll_loop(m->ctx, s, body, n);
  }
  return tvm_for(m->ctx, s->u.for_.var, s->u.for_.min, s->u.for_.extent,
                 TVM_FOR_SERIAL, NULL, body);
}

/* Unrolls the loops of f marked TVM_FOR_UNROLLED (see the file comment).
 * *out is a copy of f in ctx c with the new body. */
tvm_status tvm_pass_unroll(tvm_ctx *c, tvm_func *f,
                           const tvm_lower_options *o, tvm_func **out) {
  tvm_mutator m = {c, NULL, unroll_stmt, (void *)o};
  if (!f || !o || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "unroll: NULL argument");
  tvm_stmt *body = tvm_mutate_stmt(&m, f->body);
  return lower_with_body(c, f, body, "unroll", out);
}
