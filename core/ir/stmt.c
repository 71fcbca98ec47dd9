/*
 * core/ir/stmt.c - statement constructors and statement names.
 *
 * Like the expression constructors, these return NULL when a required
 * child is NULL (the failure that made it is already recorded) and record
 * a diagnostic, set ctx->failed and return NULL when the operands do not
 * fit together.  Strings (thread tags, scopes, keys, messages) are copied
 * into the arena.
 */
#include <string.h>

#include "ir_int.h"
#include "tvm/te.h"

/* Checks that e is an integer scalar (loop bounds, extents). */
static int check_int_scalar(tvm_ctx *c, const tvm_expr *e, const char *what) {
  char b[32];
  if (tvm_dtype_is_int(e->dtype) && e->dtype.lanes == 1) return 1;
  ir_fail(c, "%s must be an integer scalar, not %s", what,
            tvm_dtype_str(e->dtype, b));
  return 0;
}

/* Checks that e is a bool scalar (conditions). */
static int check_cond(tvm_ctx *c, const tvm_expr *e, const char *what) {
  char b[32];
  if (tvm_dtype_is_bool(e->dtype) && e->dtype.lanes == 1) return 1;
  ir_fail(c, "%s: condition must be a bool scalar, not %s", what,
            tvm_dtype_str(e->dtype, b));
  return 0;
}

/* for (var, min, extent) body.  min and extent take var's type (constants
 * are converted); thread_tag (copied) names the hardware axis of
 * TVM_FOR_THREAD / TVM_FOR_VTHREAD loops. */
tvm_stmt *tvm_for(tvm_ctx *c, tvm_expr *var, tvm_expr *min, tvm_expr *extent,
                  tvm_for_kind kind, const char *thread_tag, tvm_stmt *body) {
  if (!var || !min || !extent || !body) return NULL;
  if (var->kind != TVM_VAR) return ir_fail(c, "for: loop variable is not a variable");
  if (!check_int_scalar(c, var, "for: loop variable")) return NULL;
  min = ir_bind_value(c, var, min, "for (min)");
  extent = ir_bind_value(c, var, extent, "for (extent)");
  if (!min || !extent) return NULL;
  tvm_stmt *s = ir_stmt_new(c, TVM_FOR);
  if (!s) return NULL;
  s->u.for_.var = var;
  s->u.for_.min = min;
  s->u.for_.extent = extent;
  s->u.for_.for_kind = kind;
  s->u.for_.body = body;
  if (thread_tag) {
    s->u.for_.thread_tag = tvm_ctx_strdup(c, thread_tag);
    if (!s->u.for_.thread_tag) return NULL;
  }
  return s;
}

/* Number of statements s contributes to a flattened sequence. */
static int flat_count(const tvm_stmt *s) {
  if (!s) return 0;
  if (s->kind != TVM_SEQ) return 1;
  int n = 0;
  for (int i = 0; i < s->u.seq.n; i++) n += flat_count(s->u.seq.stmts[i]);
  return n;
}

/* Appends the flattened statements of s at out[*k]. */
static void flat_fill(tvm_stmt *s, tvm_stmt **out, int *k) {
  if (!s) return;
  if (s->kind != TVM_SEQ) {
    out[(*k)++] = s;
    return;
  }
  for (int i = 0; i < s->u.seq.n; i++) flat_fill(s->u.seq.stmts[i], out, k);
}

/* The statements in order, with nested sequences flattened and NULL
 * entries dropped.  One statement left: that statement itself; none: an
 * empty sequence (a no-op). */
tvm_stmt *tvm_seq(tvm_ctx *c, tvm_stmt **stmts, int n) {
  if (n < 0 || (n > 0 && !stmts)) return ir_fail(c, "seq: bad statement list");
  int total = 0;
  for (int i = 0; i < n; i++) total += flat_count(stmts[i]);
  if (total == 1) {
    tvm_stmt *one = NULL;
    int k = 0;
    for (int i = 0; i < n; i++) flat_fill(stmts[i], &one, &k);
    return one;
  }
  tvm_stmt *s = ir_stmt_new(c, TVM_SEQ);
  if (!s) return NULL;
  if (total > 0) {
    s->u.seq.stmts = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (size_t)total);
    if (!s->u.seq.stmts) return NULL;
    int k = 0;
    for (int i = 0; i < n; i++) flat_fill(stmts[i], s->u.seq.stmts, &k);
  }
  s->u.seq.n = total;
  return s;
}

/* a then b (either may be NULL), flattened like tvm_seq. */
tvm_stmt *tvm_seq2(tvm_ctx *c, tvm_stmt *a, tvm_stmt *b) {
  tvm_stmt *two[2] = {a, b};
  return tvm_seq(c, two, 2);
}

/* if (cond) then_ else else_; else_ may be NULL. */
tvm_stmt *tvm_if(tvm_ctx *c, tvm_expr *cond, tvm_stmt *then_, tvm_stmt *else_) {
  if (!cond || !then_) return NULL;
  if (!check_cond(c, cond, "if")) return NULL;
  tvm_stmt *s = ir_stmt_new(c, TVM_IF);
  if (!s) return NULL;
  s->u.if_.cond = cond;
  s->u.if_.then_ = then_;
  s->u.if_.else_ = else_;
  return s;
}

/* let var = value in body (constants converted to var's type). */
tvm_stmt *tvm_let_stmt(tvm_ctx *c, tvm_expr *var, tvm_expr *value,
                       tvm_stmt *body) {
  if (!var || !value || !body) return NULL;
  value = ir_bind_value(c, var, value, "let");
  if (!value) return NULL;
  tvm_stmt *s = ir_stmt_new(c, TVM_LET_STMT);
  if (!s) return NULL;
  s->u.let.var = var;
  s->u.let.value = value;
  s->u.let.body = body;
  return s;
}

/* buffer[index] = value.  A scalar value stored at a vector index is
 * broadcast; otherwise value and index lanes must agree. */
tvm_stmt *tvm_store(tvm_ctx *c, tvm_expr *buffer, tvm_expr *index,
                    tvm_expr *value, tvm_expr *pred) {
  char b1[32], b2[32];
  if (!buffer || !index || !value) return NULL;
  if (!tvm_dtype_is_int(index->dtype))
    return ir_fail(c, "store: index must be an integer, not %s",
                     tvm_dtype_str(index->dtype, b1));
  int li = index->dtype.lanes, lv = value->dtype.lanes;
  if (lv == 1 && li > 1) {
    value = tvm_broadcast(c, value, li);
    if (!value) return NULL;
  } else if (lv != li) {
    return ir_fail(c, "store: value %s does not match index %s",
                     tvm_dtype_str(value->dtype, b1),
                     tvm_dtype_str(index->dtype, b2));
  }
  tvm_stmt *s = ir_stmt_new(c, TVM_STORE);
  if (!s) return NULL;
  s->u.store.buffer = buffer;
  s->u.store.index = index;
  s->u.store.value = value;
  s->u.store.pred = pred;
  return s;
}

/* Allocates extent elements of type t in scope (NULL = "global") for the
 * handle variable buffer, live during body.  align starts at 0 (default);
 * passes set s->u.alloc.align on the returned node. */
tvm_stmt *tvm_allocate(tvm_ctx *c, tvm_expr *buffer, tvm_dtype t,
                       tvm_expr *extent, const char *scope, tvm_stmt *body) {
  if (!buffer || !extent || !body) return NULL;
  if (buffer->kind != TVM_VAR)
    return ir_fail(c, "allocate: buffer is not a variable");
  if (!check_int_scalar(c, extent, "allocate: extent")) return NULL;
  tvm_stmt *s = ir_stmt_new(c, TVM_ALLOCATE);
  if (!s) return NULL;
  s->u.alloc.buffer = buffer;
  s->u.alloc.dtype = t;
  s->u.alloc.extent = extent;
  s->u.alloc.scope = tvm_ctx_strdup(c, scope ? scope : "global");
  s->u.alloc.body = body;
  return s->u.alloc.scope ? s : NULL;
}

/* An annotation key (copied) on node with an optional value over body. */
tvm_stmt *tvm_attr(tvm_ctx *c, const char *key, void *node, tvm_expr *value,
                   tvm_stmt *body) {
  if (!body) return NULL;
  if (!key || !*key) return ir_fail(c, "attr: empty key");
  tvm_stmt *s = ir_stmt_new(c, TVM_ATTR);
  if (!s) return NULL;
  s->u.attr.key = tvm_ctx_strdup(c, key);
  s->u.attr.node = node;
  s->u.attr.value = value;
  s->u.attr.body = body;
  return s->u.attr.key ? s : NULL;
}

/* Evaluates v for its effect. */
tvm_stmt *tvm_evaluate(tvm_ctx *c, tvm_expr *v) {
  if (!v) return NULL;
  tvm_stmt *s = ir_stmt_new(c, TVM_EVALUATE);
  if (s) s->u.eval.value = v;
  return s;
}

/* A barrier over the threads sharing scope (NULL = "shared"). */
tvm_stmt *tvm_barrier(tvm_ctx *c, const char *scope) {
  tvm_stmt *s = ir_stmt_new(c, TVM_BARRIER);
  if (!s) return NULL;
  s->u.barrier.scope = tvm_ctx_strdup(c, scope ? scope : "shared");
  return s->u.barrier.scope ? s : NULL;
}

/* assert(cond, msg) followed by body (body may be NULL: nothing
 * follows). */
tvm_stmt *tvm_assert(tvm_ctx *c, tvm_expr *cond, const char *msg,
                     tvm_stmt *body) {
  if (!cond) return NULL;
  if (!check_cond(c, cond, "assert")) return NULL;
  tvm_stmt *s = ir_stmt_new(c, TVM_ASSERT);
  if (!s) return NULL;
  s->u.assert_.cond = cond;
  s->u.assert_.msg = tvm_ctx_strdup(c, msg ? msg : "assertion failed");
  s->u.assert_.body = body;
  return s->u.assert_.msg ? s : NULL;
}

/* tensor[indices] = value (pre-flatten); a constant value is converted to
 * the tensor's type, any other type mismatch is refused. */
tvm_stmt *tvm_provide(tvm_ctx *c, struct tvm_tensor *t, tvm_expr **indices,
                      int n, tvm_expr *value) {
  char b1[32], b2[32];
  if (!t || !value) return NULL;
  if (n != t->ndim)
    return ir_fail(c, "provide: tensor %s has %d dimensions, given %d "
                        "indices", t->name, t->ndim, n);
  if (!tvm_dtype_eq(value->dtype, t->dtype)) {
    if (value->kind != TVM_INT && value->kind != TVM_FLOAT)
      return ir_fail(c, "provide: tensor %s is %s but the value is %s",
                       t->name, tvm_dtype_str(t->dtype, b1),
                       tvm_dtype_str(value->dtype, b2));
    value = tvm_cast(c, t->dtype, value);
    if (!value) return NULL;
  }
  tvm_expr **idx;
  if (!ir_copy_exprs(c, &idx, indices, n)) return NULL;
  tvm_stmt *s = ir_stmt_new(c, TVM_PROVIDE);
  if (!s) return NULL;
  s->u.provide.tensor = t;
  s->u.provide.indices = idx;
  s->u.provide.n = n;
  s->u.provide.value = value;
  return s;
}

/* Storage for the region bounds[0..n) of tensor t in scope (NULL =
 * "global") during body; bounds are copied. */
tvm_stmt *tvm_realize(tvm_ctx *c, struct tvm_tensor *t, tvm_range *bounds,
                      int n, const char *scope, tvm_stmt *body) {
  if (!t || !body) return NULL;
  if (n != t->ndim)
    return ir_fail(c, "realize: tensor %s has %d dimensions, given %d "
                        "ranges", t->name, t->ndim, n);
  if (n > 0 && !bounds) return ir_fail(c, "realize: no bounds");
  for (int i = 0; i < n; i++)
    if (!bounds[i].min || !bounds[i].extent) return NULL;
  tvm_stmt *s = ir_stmt_new(c, TVM_REALIZE);
  if (!s) return NULL;
  if (n > 0) {
    s->u.realize.bounds = tvm_ctx_alloc(c, sizeof(tvm_range) * (size_t)n);
    if (!s->u.realize.bounds) return NULL;
    memcpy(s->u.realize.bounds, bounds, sizeof(tvm_range) * (size_t)n);
  }
  s->u.realize.tensor = t;
  s->u.realize.n = n;
  s->u.realize.scope = tvm_ctx_strdup(c, scope ? scope : "global");
  s->u.realize.body = body;
  return s->u.realize.scope ? s : NULL;
}

/* Lower-case name of a statement kind ("for", "allocate"). */
const char *tvm_stmt_kind_name(tvm_stmt_kind k) {
  static const char *names[TVM_STMT_KIND_COUNT] = {
      [TVM_FOR] = "for", [TVM_SEQ] = "seq", [TVM_IF] = "if",
      [TVM_LET_STMT] = "let", [TVM_STORE] = "store",
      [TVM_ALLOCATE] = "allocate", [TVM_ATTR] = "attr",
      [TVM_EVALUATE] = "evaluate", [TVM_BARRIER] = "barrier",
      [TVM_ASSERT] = "assert", [TVM_PROVIDE] = "provide",
      [TVM_REALIZE] = "realize"};
  if ((unsigned)k >= TVM_STMT_KIND_COUNT || !names[k]) return "unknown";
  return names[k];
}

/* Name of a loop kind as the printer writes it ("parallel"). */
const char *tvm_for_kind_name(tvm_for_kind k) {
  switch (k) {
  case TVM_FOR_SERIAL: return "serial";
  case TVM_FOR_PARALLEL: return "parallel";
  case TVM_FOR_VECTORIZED: return "vectorized";
  case TVM_FOR_UNROLLED: return "unrolled";
  case TVM_FOR_THREAD: return "thread";
  case TVM_FOR_VTHREAD: return "vthread";
  }
  return "unknown";
}
