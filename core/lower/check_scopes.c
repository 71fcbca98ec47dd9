/*
 * core/lower/check_scopes.c - the check_scope_capacity pass: memory
 * scopes with a capacity (tvm_scope_info.size_bytes > 0, e.g. an
 * accelerator's on-chip scratchpad) must hold every buffer allocated in
 * them at one time.
 *
 * It runs after storage_rewrite (so buffers merged by reuse count once)
 * and measures, per bounded scope, the largest sum of allocations live
 * together: an allocation is live over its body, so nested allocations
 * add up, while the elements of a sequence, the branches of an if and
 * the iterations of a loop do not overlap (an allocation inside a loop
 * body is made once per iteration, not accumulated).  A bounded scope
 * whose peak exceeds its size, or an allocation in it whose extent is not
 * a constant, is a compile error naming the scope, its size and the
 * buffers: tile the computation smaller or use a target with a larger
 * scope.  The function is returned unchanged.
 */
#include <string.h>

#include "tvm/lower.h"
#include "lower_int.h"

/* One live path through the allocations of a scope. */
typedef struct path {
  const tvm_stmt *alloc[32]; /* allocations on the path (outermost first) */
  int n;
  uint64_t bytes;
} path;

/* State of the pass for one scope. */
typedef struct scan {
  const tvm_scope_info *si;
  path cur, worst;   /* the current path and the largest one seen */
  const tvm_stmt *symbolic; /* an allocation with a non-constant extent */
} scan;

/* Walks s, updating the worst path of the scope. */
static void walk(scan *k, const tvm_stmt *s) {
  if (!s) return;
  switch (s->kind) {
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) walk(k, s->u.seq.stmts[i]);
    return;
  case TVM_FOR: walk(k, s->u.for_.body); return;
  case TVM_IF:
    walk(k, s->u.if_.then_);
    walk(k, s->u.if_.else_);
    return;
  case TVM_LET_STMT: walk(k, s->u.let.body); return;
  case TVM_ATTR: walk(k, s->u.attr.body); return;
  case TVM_ASSERT: walk(k, s->u.assert_.body); return;
  case TVM_ALLOCATE: {
    int64_t n;
    if (strcmp(s->u.alloc.scope, k->si->name) != 0) {
      walk(k, s->u.alloc.body);
      return;
    }
    if (!tvm_is_const_int(s->u.alloc.extent, &n) || n < 0) {
      if (!k->symbolic) k->symbolic = s;
      walk(k, s->u.alloc.body);
      return;
    }
    path saved = k->cur;
    uint64_t b = (uint64_t)n * (uint64_t)tvm_dtype_bytes(s->u.alloc.dtype);
    k->cur.bytes += b;
    if (k->cur.n < 32) k->cur.alloc[k->cur.n++] = s;
    if (k->cur.bytes > k->worst.bytes) k->worst = k->cur;
    walk(k, s->u.alloc.body);
    k->cur = saved;
    return;
  }
  default:
    return;
  }
}

/* The failure for scope si of function f (see the file comment). */
static tvm_status report(const scan *k, const tvm_func *f) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  for (int i = 0; i < k->worst.n; i++) {
    const tvm_stmt *a = k->worst.alloc[i];
    int64_t n = 0;
    tvm_is_const_int(a->u.alloc.extent, &n);
    tvm_strbuf_printf(&b, "%s%s (%lld bytes)", i ? ", " : "",
                      a->u.alloc.buffer->u.var.name,
                      (long long)n * tvm_dtype_bytes(a->u.alloc.dtype));
  }
  tvm_status st = tvm_diag_set(
      TVM_ERR_INVALID,
      "%s: scope '%s' holds %llu bytes but buffers live at one time need "
      "%llu: %s; tile the computation smaller (split the axes of the "
      "stages cached in '%s') or use a target with a larger '%s'",
      f->name, k->si->name, (unsigned long long)k->si->size_bytes,
      (unsigned long long)k->worst.bytes, b.data ? b.data : "", k->si->name,
      k->si->name);
  tvm_strbuf_free(&b);
  return st;
}

/* Checks every bounded scope of o in f (see the file comment); *out is f. */
tvm_status tvm_pass_check_scope_capacity(tvm_ctx *c, tvm_func *f,
                                         const tvm_lower_options *o,
                                         tvm_func **out) {
  (void)c;
  if (!f || !o || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "check_scope_capacity: NULL argument");
  for (int i = 0; o->scopes && i < o->nscopes; i++) {
    scan k;
    memset(&k, 0, sizeof k);
    k.si = &o->scopes[i];
    if (!k.si->name || k.si->size_bytes == 0) continue;
    walk(&k, f->body);
    if (k.symbolic)
      return tvm_diag_set(
          TVM_ERR_INVALID,
          "%s: buffer %s in scope '%s' (%llu bytes) has a size not known at "
          "compile time; split the cached axes by constant factors so its "
          "tile has a constant size",
          f->name, k.symbolic->u.alloc.buffer->u.var.name, k.si->name,
          (unsigned long long)k.si->size_bytes);
    if (k.worst.bytes > k.si->size_bytes) return report(&k, f);
  }
  *out = f;
  return TVM_OK;
}
