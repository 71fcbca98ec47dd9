/*
 * core/lower/hoist_guards.c - the hoist_guards pass: loops versioned on
 * the guards they repeat.
 *
 * A tile that may run past the end of its tensor keeps a guard on every
 * statement of it that may; after unrolling, a register block of 6 rows
 * over 64 has, inside its reduction loop,
 *
 *   for (k, 0, 999) {
 *     acc0 = acc0 + A[r*6*999 + k] * B[...]           (rows 0..3 always in)
 *     ...
 *     if (r*6 + 4 < 64) { acc4 = acc4 + ... }
 *     if (r*6 + 5 < 64) { acc5 = acc5 + ... }
 *   }
 *
 * The guards do not change while k runs, but the branches stay in the
 * hot loop: with every vector register of the ISA holding an accumulator
 * (6 x 2 of AVX2's 16), the phis at their joins leave the register
 * allocator no room and it spills (measured on AMD Zen 3: 36-44
 * GFLOP/s against 85-94 without them).  This pass versions the
 * outermost loop or allocation S that binds none of the guard's
 * variables and holds a loop that repeats the guard:
 *
 *   if (r*6 + 4 < 64 && r*6 + 5 < 64) { S, every such guard its body }
 *   else { S as it was }
 *
 * so full tiles run without a branch and only the ragged last one pays
 * for its guards.  A guard is an if without else whose condition is pure
 * integer arithmetic (variables, constants, + - * min max, integer
 * casts, divisions by nonzero constants, comparisons, and/or/not): no
 * load, no call, so that evaluating it early reads nothing S writes and
 * cannot fault.  The
 * guards at one S are hoisted together (their conjunction), then the
 * pass goes on inside the full version; at most GUARD_VERSIONS times per
 * function (each copies the code below it).  Only on targets that run
 * the function as it is (tvm_lower_is_device false), and never over a
 * statement holding what a copy would change the meaning of (an
 * allocation of a scope other than local/global, an attribute, a
 * barrier), as the vectorize pass's versioning of full vector tiles.
 */
#include "tvm/lower.h"
#include "lower_int.h"

#define GUARD_VERSIONS 2
#define GUARDS_PER_VERSION 16

typedef struct hoister {
  int budget;
} hoister;

/* Is a condition pure integer arithmetic on variables none of which is
 * in bound (see the file comment)? */
typedef struct cond_scan {
  const tvm_ptrmap *bound;
  int bad;
} cond_scan;

static int cond_hook(tvm_visitor *v, const tvm_expr *e) {
  cond_scan *cs = v->data;
  int64_t d;
  switch (e->kind) {
  case TVM_INT:
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_MIN: case TVM_MAX:
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE: case TVM_AND: case TVM_OR: case TVM_NOT:
    break;
  case TVM_VAR:
    if (tvm_ptrmap_get(cs->bound, e, NULL)) cs->bad = 1;
    break;
  case TVM_CAST: /* between integer types */
    if (!tvm_dtype_is_int(e->dtype) || !tvm_dtype_is_int(e->u.un.a->dtype))
      cs->bad = 1;
    break;
  case TVM_DIV: case TVM_MOD: case TVM_FLOORDIV: case TVM_FLOORMOD:
    if (!tvm_is_const_int(e->u.bin.b, &d) || d == 0) cs->bad = 1;
    break;
  default:
    cs->bad = 1;
  }
  return cs->bad;
}

static int hoistable(const tvm_expr *cond, const tvm_ptrmap *bound) {
  cond_scan cs = {bound, 0};
  tvm_visitor v = {cond_hook, NULL, &cs};
  if (cond->dtype.lanes != 1) return 0;
  tvm_visit_expr(&v, cond);
  return !cs.bad;
}

/* The distinct hoistable guards inside the loops of a statement. */
typedef struct guard_set {
  const tvm_ptrmap *bound;
  tvm_expr *conds[GUARDS_PER_VERSION];
  int n;
  int in_loop; /* visiting a loop's body */
} guard_set;

static int guard_hook(tvm_visitor *v, const tvm_stmt *s) {
  guard_set *g = v->data;
  if (s->kind == TVM_FOR && !g->in_loop) {
    g->in_loop = 1;
    tvm_visit_stmt(v, s->u.for_.body);
    g->in_loop = 0;
    return 1;
  }
  if (!g->in_loop || s->kind != TVM_IF || s->u.if_.else_ ||
      !hoistable(s->u.if_.cond, g->bound))
    return 0;
  for (int i = 0; i < g->n; i++)
    if (tvm_expr_equal(g->conds[i], s->u.if_.cond)) return 0;
  if (g->n < GUARDS_PER_VERSION) g->conds[g->n++] = s->u.if_.cond;
  return 0;
}

/* The full version: guards on a hoisted condition become their body. */
static tvm_stmt *drop_hook(tvm_mutator *m, tvm_stmt *s) {
  guard_set *g = m->data;
  if (s->kind != TVM_IF || s->u.if_.else_) return NULL;
  for (int i = 0; i < g->n; i++)
    if (tvm_expr_equal(g->conds[i], s->u.if_.cond))
      return tvm_mutate_stmt(m, s->u.if_.then_);
  return NULL;
}

/* Mutator hook, top-down: versions the outermost loop or allocation with
 * hoistable guards inside its loops (see the file comment). */
static tvm_stmt *hoist_stmt(tvm_mutator *m, tvm_stmt *s) {
  hoister *h = m->data;
  if (h->budget <= 0 || (s->kind != TVM_ALLOCATE && s->kind != TVM_FOR))
    return NULL;
  lower_binds scan;
  lower_binds_scan(&scan, s);
  guard_set g = {&scan.bound, {0}, 0, 0};
  tvm_visitor gv = {NULL, guard_hook, &g};
  if (!scan.fixed) {
    if (s->kind == TVM_FOR) g.in_loop = 1; /* s itself repeats them */
    tvm_visit_stmt(&gv, s->kind == TVM_FOR ? s->u.for_.body : s);
  }
  tvm_ptrmap_free(&scan.bound);
  if (!g.n) return NULL;
  h->budget--;
  tvm_expr *all = g.conds[0];
  for (int i = 1; i < g.n && all; i++) all = tvm_and(m->ctx, all, g.conds[i]);
  tvm_mutator dm = {m->ctx, NULL, drop_hook, &g};
  tvm_stmt *full = tvm_mutate_stmt(&dm, s);
  if (!all || !full) return NULL;
  full = tvm_mutate_stmt_children(m, full); /* guards bound further in */
  if (!full) return NULL;
  return tvm_if(m->ctx, all, full, s);
}

/* Versions the loops of f on the guards they repeat (see the file
 * comment).  *out is a copy of f in ctx c with the new body. */
tvm_status tvm_pass_hoist_guards(tvm_ctx *c, tvm_func *f,
                                 const tvm_lower_options *o, tvm_func **out) {
  hoister h = {GUARD_VERSIONS};
  tvm_mutator m = {c, NULL, hoist_stmt, &h};
  if (!f || !o || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "hoist_guards: NULL argument");
  tvm_stmt *body = f->body;
  if (!tvm_lower_is_device(o)) body = tvm_mutate_stmt(&m, f->body);
  return lower_with_body(c, f, body, "hoist_guards", out);
}
