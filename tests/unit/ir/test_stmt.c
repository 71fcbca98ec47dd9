/*
 * tests/unit/ir/test_stmt.c - statement constructors, sequences, buffers,
 * functions and modules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
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

static tvm_stmt *nop_call(tvm_ctx *c, int k) {
  tvm_expr *a[1] = {tvm_int(c, k)};
  return tvm_evaluate(c, tvm_call_extern(c, TVM_I32, "f", a, 1));
}

static void test_for(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *i = tvm_var(c, "i", TVM_I64);
  char tag[] = "threadIdx.x";
  tvm_stmt *s = tvm_for(c, i, tvm_int(c, 0), tvm_int(c, 16), TVM_FOR_THREAD,
                        tag, nop_call(c, 0));
  assert_non_null(s);
  assert_true(tvm_dtype_eq(s->u.for_.min->dtype, TVM_I64));
  assert_true(tvm_dtype_eq(s->u.for_.extent->dtype, TVM_I64));
  tag[0] = 'X';
  assert_string_equal(s->u.for_.thread_tag, "threadIdx.x");
  assert_null(tvm_for(c, tvm_var(c, "f", TVM_F32), tvm_int(c, 0), tvm_int(c, 4),
                      TVM_FOR_SERIAL, NULL, nop_call(c, 0)));
  assert_true(c->failed);
  c->failed = 0;
  assert_null(tvm_for(c, i, tvm_var(c, "n", TVM_I32), tvm_int(c, 4),
                      TVM_FOR_SERIAL, NULL, nop_call(c, 0)));
  c->failed = 0;
  assert_null(tvm_for(c, i, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL, NULL, NULL));
  assert_false(c->failed);
  assert_string_equal(tvm_for_kind_name(TVM_FOR_VECTORIZED), "vectorized");
  assert_string_equal(tvm_stmt_kind_name(TVM_ALLOCATE), "allocate");
  for (int k = 0; k < TVM_STMT_KIND_COUNT; k++)
    assert_string_not_equal(tvm_stmt_kind_name((tvm_stmt_kind)k), "unknown");
}

static void test_seq(void **state) {
  tvm_ctx *c = *state;
  tvm_stmt *a = nop_call(c, 1), *b = nop_call(c, 2), *d = nop_call(c, 3);
  assert_ptr_equal(tvm_seq2(c, a, NULL), a);
  assert_ptr_equal(tvm_seq2(c, NULL, b), b);
  tvm_stmt *ab = tvm_seq2(c, a, b);
  assert_int_equal(ab->kind, TVM_SEQ);
  assert_int_equal(ab->u.seq.n, 2);
  tvm_stmt *empty = tvm_seq(c, NULL, 0);
  assert_int_equal(empty->kind, TVM_SEQ);
  assert_int_equal(empty->u.seq.n, 0);
  tvm_stmt *parts[4] = {ab, NULL, empty, tvm_seq2(c, d, empty)};
  tvm_stmt *s = tvm_seq(c, parts, 4);
  assert_int_equal(s->u.seq.n, 3);
  assert_ptr_equal(s->u.seq.stmts[0], a);
  assert_ptr_equal(s->u.seq.stmts[1], b);
  assert_ptr_equal(s->u.seq.stmts[2], d);
  /* one statement hidden in nested sequences comes out as itself */
  tvm_stmt *nest[3] = {empty, tvm_seq2(c, empty, d), NULL};
  assert_ptr_equal(tvm_seq(c, nest, 3), d);
  assert_false(c->failed);
}

static void test_store_if_alloc(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *buf = tvm_var(c, "B", TVM_HANDLE), *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *r = tvm_ramp(c, i, tvm_int(c, 1), 4);
  tvm_stmt *s = tvm_store(c, buf, r, tvm_f32(c, 1), NULL);
  assert_int_equal(s->u.store.value->kind, TVM_BROADCAST);
  assert_int_equal(s->u.store.value->dtype.lanes, 4);
  assert_null(tvm_store(c, buf, i, tvm_var(c, "v", tvm_dt(kDLFloat, 32, 4)), NULL));
  c->failed = 0;
  assert_null(tvm_store(c, buf, tvm_f32(c, 0), tvm_f32(c, 1), NULL));
  c->failed = 0;
  tvm_stmt *ifs = tvm_if(c, tvm_lt(c, i, tvm_int(c, 4)), s, NULL);
  assert_non_null(ifs);
  assert_null(ifs->u.if_.else_);
  assert_null(tvm_if(c, i, s, NULL));
  assert_non_null(strstr(tvm_diag_message(), "bool"));
  c->failed = 0;
  tvm_stmt *al = tvm_allocate(c, buf, TVM_F32, tvm_int(c, 64), NULL, s);
  assert_string_equal(al->u.alloc.scope, "global");
  assert_int_equal(al->u.alloc.align, 0);
  assert_null(tvm_allocate(c, buf, TVM_F32, tvm_f32(c, 2), "local", s));
  c->failed = 0;
  tvm_stmt *as = tvm_assert(c, tvm_ge(c, i, tvm_int(c, 0)), "i >= 0", NULL);
  assert_string_equal(as->u.assert_.msg, "i >= 0");
  assert_null(as->u.assert_.body);
  assert_string_equal(tvm_barrier(c, NULL)->u.barrier.scope, "shared");
  tvm_stmt *at = tvm_attr(c, "pragma_unroll", NULL, tvm_int(c, 1), s);
  assert_string_equal(at->u.attr.key, "pragma_unroll");
  tvm_expr *x = tvm_var(c, "x", TVM_I32);
  tvm_stmt *ls = tvm_let_stmt(c, x, tvm_const(c, TVM_I64, 3), s);
  assert_true(tvm_dtype_eq(ls->u.let.value->dtype, TVM_I32));
  assert_false(c->failed);
}

static void test_provide_realize(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *shape[2] = {tvm_int(c, 4), tvm_int(c, 5)};
  int64_t shape_c[2] = {4, 5};
  tvm_tensor t = {NULL, "A", TVM_F32, 2, shape, shape_c};
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *j = tvm_var(c, "j", TVM_I32);
  tvm_expr *idx[2] = {i, j};
  tvm_stmt *p = tvm_provide(c, &t, idx, 2, tvm_int(c, 0));
  assert_int_equal(p->u.provide.value->kind, TVM_FLOAT);
  assert_null(tvm_provide(c, &t, idx, 1, tvm_f32(c, 0)));
  c->failed = 0;
  assert_null(tvm_provide(c, &t, idx, 2, i));
  c->failed = 0;
  tvm_range b[2] = {{tvm_int(c, 0), tvm_int(c, 4)}, {tvm_int(c, 0), tvm_int(c, 5)}};
  tvm_stmt *r = tvm_realize(c, &t, b, 2, NULL, p);
  b[0].min = NULL; /* copied */
  assert_non_null(r->u.realize.bounds[0].min);
  assert_string_equal(r->u.realize.scope, "global");
  assert_false(c->failed);
}

static void test_buffer_func_module(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *shape[2] = {tvm_int(c, 8), tvm_int(c, 8)};
  tvm_buffer *b = tvm_buffer_new(c, "A", TVM_F32, shape, 2, NULL);
  assert_string_equal(b->name, "A");
  assert_string_equal(b->scope, "global");
  assert_int_equal(b->data->kind, TVM_VAR);
  assert_true(tvm_dtype_is_handle(b->data->dtype));
  assert_string_equal(b->data->u.var.name, "A");
  assert_null(b->strides);
  assert_null(b->elem_offset);
  tvm_expr *n = tvm_var(c, "n", TVM_I32);
  tvm_expr *params[2] = {b->data, n};
  tvm_buffer *bufs[2] = {b, NULL};
  tvm_stmt *body = tvm_store(c, b->data, tvm_int(c, 0), tvm_f32(c, 1), NULL);
  tvm_module m = {c, NULL, 0};
  for (int k = 0; k < 40; k++) {
    char name[16];
    snprintf(name, sizeof name, "f%d", k);
    tvm_func *f = tvm_func_new(c, name, params, bufs, 2, body);
    assert_non_null(f);
    assert_int_equal(f->kind, TVM_FUNC_HOST);
    assert_int_equal(tvm_module_add(&m, f), TVM_OK);
  }
  assert_int_equal(m.nfuncs, 40);
  for (int k = 0; k < 40; k++) {
    char name[16];
    snprintf(name, sizeof name, "f%d", k);
    assert_string_equal(m.funcs[k]->name, name);
  }
  assert_ptr_equal(m.funcs[3]->buffers[0], b);
  assert_null(m.funcs[3]->buffers[1]);
  tvm_func *dup = tvm_func_new(c, "f7", params, NULL, 2, body);
  assert_null(dup->buffers[0]);
  assert_int_equal(tvm_module_add(&m, dup), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "f7"));
  assert_int_equal(m.nfuncs, 40);
  tvm_expr *bad[1] = {tvm_int(c, 1)};
  assert_null(tvm_func_new(c, "g", bad, NULL, 1, body));
  c->failed = 0;
  tvm_module none = {NULL, NULL, 0};
  assert_int_equal(tvm_module_add(&none, m.funcs[0]), TVM_ERR_INVALID);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_for, setup, teardown),
      cmocka_unit_test_setup_teardown(test_seq, setup, teardown),
      cmocka_unit_test_setup_teardown(test_store_if_alloc, setup, teardown),
      cmocka_unit_test_setup_teardown(test_provide_realize, setup, teardown),
      cmocka_unit_test_setup_teardown(test_buffer_func_module, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
