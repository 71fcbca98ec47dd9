/*
 * tests/unit/ir/test_visit.c - visitors, mutators (pointer identity and
 * rebuilding), substitution and uses-variable queries.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "tvm/ir.h"
#include "tvm/te.h"

static int setup(void **state) {
  *state = tvm_ctx_create();
  tvm_diag_clear();
  return *state ? 0 : -1;
}
static int teardown(void **state) {
  tvm_ctx_destroy(*state);
  return 0;
}

/* A small program:
 *   allocate T[float32 * 16] scope=local
 *   for (i, 0, n) {
 *     if (i < 8) { T[i] = A[i] * 2f } else { T[i] = 0f }
 *     let x = i + 1
 *     B[ramp(x, 1, 4)] = x4(T[i])
 *   }
 */
typedef struct prog {
  tvm_expr *i, *n, *x, *A, *B, *T;
  tvm_stmt *s;
} prog;

static prog make_prog(tvm_ctx *c) {
  prog p;
  p.i = tvm_var(c, "i", TVM_I32);
  p.n = tvm_var(c, "n", TVM_I32);
  p.x = tvm_var(c, "x", TVM_I32);
  p.A = tvm_var(c, "A", TVM_HANDLE);
  p.B = tvm_var(c, "B", TVM_HANDLE);
  p.T = tvm_var(c, "T", TVM_HANDLE);
  tvm_stmt *st1 = tvm_store(c, p.T, p.i,
                            tvm_mul(c, tvm_load(c, TVM_F32, p.A, p.i, NULL),
                                    tvm_f32(c, 2)), NULL);
  tvm_stmt *st2 = tvm_store(c, p.T, p.i, tvm_f32(c, 0), NULL);
  tvm_stmt *ifs = tvm_if(c, tvm_lt(c, p.i, tvm_int(c, 8)), st1, st2);
  tvm_stmt *st3 = tvm_store(c, p.B, tvm_ramp(c, p.x, tvm_int(c, 1), 4),
                            tvm_broadcast(c, tvm_load(c, TVM_F32, p.T, p.i, NULL), 4),
                            NULL);
  tvm_stmt *let = tvm_let_stmt(c, p.x, tvm_add(c, p.i, tvm_int(c, 1)), st3);
  tvm_stmt *loop = tvm_for(c, p.i, tvm_int(c, 0), p.n, TVM_FOR_SERIAL, NULL,
                           tvm_seq2(c, ifs, let));
  p.s = tvm_allocate(c, p.T, TVM_F32, tvm_int(c, 16), "local", loop);
  return p;
}

typedef struct counts {
  int exprs, stmts, vars, loads;
  int kinds[TVM_EXPR_KIND_COUNT];
  int seen_i;
  const tvm_expr *i;
} counts;

static int count_expr(tvm_visitor *v, const tvm_expr *e) {
  counts *k = v->data;
  k->exprs++;
  k->kinds[e->kind]++;
  if (e == k->i) k->seen_i++;
  return 0;
}
static int count_stmt(tvm_visitor *v, const tvm_stmt *s) {
  counts *k = v->data;
  k->stmts++;
  return 0;
}

static void test_visitor_counts(void **state) {
  tvm_ctx *c = *state;
  prog p = make_prog(c);
  assert_non_null(p.s);
  counts k;
  memset(&k, 0, sizeof k);
  k.i = p.i;
  tvm_visitor v = {count_expr, count_stmt, &k};
  tvm_visit_stmt(&v, p.s);
  /* allocate, for, seq, if, store, store, let, store */
  assert_int_equal(k.stmts, 8);
  /* i used in: i < 8, T[i] (st1 index), A[i], T[i] (st2), i + 1, T[i] load;
   * never for the loop variable's definition */
  assert_int_equal(k.seen_i, 6);
  assert_int_equal(k.kinds[TVM_LOAD], 2);
  /* buffer variables of loads and stores are uses: A, T x3 (stores, load), B */
  assert_int_equal(k.kinds[TVM_VAR], 6 + 1 /* n */ + 1 /* x */ + 5);
  assert_int_equal(k.kinds[TVM_RAMP], 1);
  assert_int_equal(k.kinds[TVM_BROADCAST], 1);
}

/* A hook that stops at loads: their children are not visited. */
static int stop_at_load(tvm_visitor *v, const tvm_expr *e) {
  counts *k = v->data;
  if (e == k->i) k->seen_i++;
  return e->kind == TVM_LOAD;
}

static void test_visitor_prune(void **state) {
  tvm_ctx *c = *state;
  prog p = make_prog(c);
  counts k;
  memset(&k, 0, sizeof k);
  k.i = p.i;
  tvm_visitor v = {stop_at_load, NULL, &k};
  tvm_visit_stmt(&v, p.s);
  assert_int_equal(k.seen_i, 4); /* the two i inside loads are skipped */
}

static void test_uses_var(void **state) {
  tvm_ctx *c = *state;
  prog p = make_prog(c);
  tvm_expr *unused = tvm_var(c, "i", TVM_I32);
  assert_true(tvm_stmt_uses_var(p.s, p.i));
  assert_true(tvm_stmt_uses_var(p.s, p.n));
  assert_true(tvm_stmt_uses_var(p.s, p.A));
  assert_false(tvm_stmt_uses_var(p.s, unused));
  /* a loop that never reads its variable does not use it */
  tvm_stmt *l = tvm_for(c, unused, tvm_int(c, 0), tvm_int(c, 3), TVM_FOR_SERIAL,
                        NULL, tvm_store(c, p.A, tvm_int(c, 0), tvm_f32(c, 1), NULL));
  assert_false(tvm_stmt_uses_var(l, unused));
  assert_true(tvm_expr_uses_var(tvm_add(c, p.i, p.n), p.n));
  assert_false(tvm_expr_uses_var(tvm_add(c, p.i, p.i), p.n));
}

static void test_mutator_identity(void **state) {
  tvm_ctx *c = *state;
  prog p = make_prog(c);
  tvm_mutator m = {c, NULL, NULL, NULL};
  assert_ptr_equal(tvm_mutate_stmt(&m, p.s), p.s);
  tvm_ptrmap empty = {0};
  assert_ptr_equal(tvm_substitute_stmt(c, p.s, &empty), p.s);
  tvm_ptrmap other = {0};
  tvm_ptrmap_put(&other, tvm_var(c, "z", TVM_I32), tvm_int(c, 0));
  assert_ptr_equal(tvm_substitute_stmt(c, p.s, &other), p.s);
  tvm_ptrmap_free(&other);
}

/* Replaces float32 constant 2 by 3. */
static tvm_expr *two_to_three(tvm_mutator *m, tvm_expr *e) {
  if (e->kind == TVM_FLOAT && e->u.fval == 2.0) return tvm_f32(m->ctx, 3);
  return NULL;
}

static void test_mutator_rebuild_path(void **state) {
  tvm_ctx *c = *state;
  prog p = make_prog(c);
  tvm_mutator m = {c, two_to_three, NULL, NULL};
  tvm_stmt *r = tvm_mutate_stmt(&m, p.s);
  assert_ptr_not_equal(r, p.s);
  tvm_stmt *loop0 = p.s->u.alloc.body, *loop1 = r->u.alloc.body;
  assert_ptr_not_equal(loop0, loop1);
  assert_ptr_equal(loop1->u.for_.var, p.i);
  assert_ptr_equal(loop1->u.for_.extent, loop0->u.for_.extent);
  tvm_stmt *seq0 = loop0->u.for_.body, *seq1 = loop1->u.for_.body;
  /* the if changed, the let did not */
  assert_ptr_not_equal(seq0->u.seq.stmts[0], seq1->u.seq.stmts[0]);
  assert_ptr_equal(seq0->u.seq.stmts[1], seq1->u.seq.stmts[1]);
  tvm_stmt *if1 = seq1->u.seq.stmts[0], *if0 = seq0->u.seq.stmts[0];
  assert_ptr_equal(if1->u.if_.cond, if0->u.if_.cond);
  assert_ptr_equal(if1->u.if_.else_, if0->u.if_.else_);
  tvm_expr *mul = if1->u.if_.then_->u.store.value;
  assert_true(mul->u.bin.b->u.fval == 3.0);
  assert_ptr_equal(mul->u.bin.a, if0->u.if_.then_->u.store.value->u.bin.a);
  assert_string_equal(r->u.alloc.scope, "local");
}

static void test_substitute(void **state) {
  tvm_ctx *c = *state;
  prog p = make_prog(c);
  tvm_ptrmap map = {0};
  tvm_expr *k = tvm_var(c, "k", TVM_I32);
  tvm_ptrmap_put(&map, p.i, tvm_mul(c, k, tvm_int(c, 2)));
  tvm_ptrmap_put(&map, p.n, tvm_int(c, 32));
  tvm_stmt *r = tvm_substitute_stmt(c, p.s, &map);
  assert_false(c->failed);
  assert_false(tvm_stmt_uses_var(r, p.i));
  assert_false(tvm_stmt_uses_var(r, p.n));
  assert_true(tvm_stmt_uses_var(r, k));
  tvm_stmt *loop = r->u.alloc.body;
  assert_ptr_equal(loop->u.for_.var, p.i); /* definitions are kept */
  int64_t v;
  assert_true(tvm_is_const_int(loop->u.for_.extent, &v));
  assert_int_equal(v, 32);
  /* expressions */
  tvm_expr *e = tvm_add(c, p.i, p.n);
  tvm_expr *se = tvm_substitute(c, e, &map);
  assert_int_equal(se->kind, TVM_ADD);
  assert_int_equal(se->u.bin.a->kind, TVM_MUL);
  assert_true(tvm_is_const_int(se->u.bin.b, &v));
  tvm_ptrmap_free(&map);
  /* substituting an int64 value for an int32 variable next to an int32
   * variable is a type error reported through the context */
  tvm_ptrmap bad = {0};
  tvm_ptrmap_put(&bad, p.n, tvm_var(c, "big", TVM_I64));
  assert_null(tvm_substitute(c, tvm_add(c, p.i, p.n), &bad));
  assert_int_equal(tvm_ctx_status(c), TVM_ERR_INVALID);
  tvm_ptrmap_free(&bad);
}

/* A mutator turning a scalar load index into a ramp: the load and the cast
 * around it follow the new lanes. */
static tvm_expr *vectorize_i(tvm_mutator *m, tvm_expr *e) {
  tvm_expr *i = m->data;
  if (e == i) return tvm_ramp(m->ctx, i, tvm_int(m->ctx, 1), 4);
  return NULL;
}

static void test_mutator_lanes(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *A = tvm_var(c, "A", TVM_HANDLE);
  tvm_expr *e = tvm_cast(c, TVM_F32, tvm_load(c, TVM_I8, A, i, NULL));
  tvm_mutator m = {c, vectorize_i, NULL, i};
  tvm_expr *r = tvm_mutate_expr(&m, e);
  assert_non_null(r);
  assert_true(tvm_dtype_eq(r->dtype, tvm_dt(kDLFloat, 32, 4)));
  assert_true(tvm_dtype_eq(r->u.un.a->dtype, tvm_dt(kDLInt, 8, 4)));
}

static void test_tensor_nodes(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *shape[1] = {tvm_int(c, 8)};
  int64_t shape_c[1] = {8};
  tvm_tensor t = {NULL, "A", TVM_F32, 1, shape, shape_c};
  tvm_expr *k = tvm_var(c, "k", TVM_I32), *j = tvm_var(c, "j", TVM_I32);
  tvm_expr *lo = tvm_var(c, "lo", TVM_I32);
  tvm_iter_var iv = {k, {lo, tvm_int(c, 8)}, TVM_IV_REDUCE, NULL};
  tvm_iter_var *axes[1] = {&iv};
  tvm_expr *red = tvm_ctx_alloc(c, sizeof(tvm_expr));
  red->kind = TVM_REDUCE;
  red->dtype = TVM_F32;
  red->u.reduce.op = TVM_REDUCE_SUM;
  red->u.reduce.source = TVM_AT(c, &t, tvm_add(c, k, j));
  red->u.reduce.axes = axes;
  red->u.reduce.naxes = 1;
  red->u.reduce.cond = tvm_lt(c, k, j);
  /* source and cond are children; the axis domain is not */
  assert_true(tvm_expr_uses_var(red, j));
  assert_true(tvm_expr_uses_var(red, k));
  assert_false(tvm_expr_uses_var(red, lo));
  tvm_ptrmap map = {0};
  tvm_ptrmap_put(&map, j, tvm_int(c, 1));
  tvm_expr *r = tvm_substitute(c, red, &map);
  assert_ptr_not_equal(r, red);
  assert_int_equal(r->kind, TVM_REDUCE);
  assert_ptr_equal(r->u.reduce.axes, axes);
  assert_false(tvm_expr_uses_var(r, j));
  assert_int_equal(r->u.reduce.source->kind, TVM_TREAD);
  assert_ptr_equal(r->u.reduce.source->u.tread.tensor, &t);
  /* provide and realize */
  tvm_expr *idx[1] = {j};
  tvm_range b[1] = {{j, tvm_int(c, 2)}};
  tvm_stmt *s = tvm_realize(c, &t, b, 1, NULL, tvm_provide(c, &t, idx, 1, tvm_f32(c, 0)));
  tvm_stmt *rs = tvm_substitute_stmt(c, s, &map);
  assert_false(tvm_stmt_uses_var(rs, j));
  assert_true(tvm_stmt_uses_var(s, j));
  tvm_ptrmap_free(&map);
  assert_false(c->failed);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_visitor_counts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_visitor_prune, setup, teardown),
      cmocka_unit_test_setup_teardown(test_uses_var, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mutator_identity, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mutator_rebuild_path, setup, teardown),
      cmocka_unit_test_setup_teardown(test_substitute, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mutator_lanes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensor_nodes, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
