/*
 * tests/unit/ir/test_expr.c - data types, expression constructors and
 * their type rules, predicates and structural equality.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
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

static void check_dtype(const char *s, tvm_dtype want) {
  tvm_dtype t;
  char buf[32];
  assert_int_equal(tvm_dtype_parse(s, &t), TVM_OK);
  assert_true(tvm_dtype_eq(t, want));
  assert_string_equal(tvm_dtype_str(t, buf), s);
}

static void test_dtype(void **state) {
  check_dtype("float32", TVM_F32);
  check_dtype("int8x16", tvm_dt(kDLInt, 8, 16));
  check_dtype("uint8", TVM_U8);
  check_dtype("bool", TVM_BOOL);
  check_dtype("boolx4", tvm_dt(kDLUInt, 1, 4));
  check_dtype("handle", TVM_HANDLE);
  check_dtype("bfloat16", tvm_dt(kDLBfloat, 16, 1));
  check_dtype("float16x8", tvm_dt(kDLFloat, 16, 8));
  tvm_dtype t;
  const char *bad[] = {"float", "float13", "int0", "intx4", "int32x", "int32x0",
                       "half", "", "float32 ", "int65"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(tvm_dtype_parse(bad[i], &t), TVM_ERR_INVALID);
    assert_non_null(strstr(tvm_diag_message(), "unknown data type"));
  }
  assert_int_equal(tvm_dtype_bytes(TVM_F32), 4);
  assert_int_equal(tvm_dtype_bytes(tvm_dt(kDLFloat, 32, 4)), 16);
  assert_int_equal(tvm_dtype_bytes(TVM_BOOL), 1);
  assert_true(tvm_dtype_is_int(TVM_U8));
  assert_true(tvm_dtype_is_uint(TVM_U8));
  assert_false(tvm_dtype_is_int(TVM_BOOL));
  assert_true(tvm_dtype_is_bool(TVM_BOOL));
  assert_true(tvm_dtype_is_float(tvm_dt(kDLBfloat, 16, 1)));
  assert_true(tvm_dtype_is_handle(TVM_HANDLE));
  assert_int_equal(tvm_dtype_element(tvm_dt(kDLInt, 8, 16)).lanes, 1);
  assert_int_equal(tvm_dtype_with_lanes(TVM_F32, 8).lanes, 8);
}

static void test_constants(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *e = tvm_const(c, TVM_I8, 300);
  assert_int_equal(e->kind, TVM_INT);
  assert_int_equal(e->u.ival, 44);
  assert_int_equal(tvm_const(c, TVM_I8, 200)->u.ival, -56);
  assert_int_equal(tvm_const(c, TVM_U8, -1)->u.ival, 255);
  assert_int_equal(tvm_const(c, TVM_BOOL, 5)->u.ival, 1);
  e = tvm_const(c, TVM_F32, 3);
  assert_int_equal(e->kind, TVM_FLOAT);
  assert_true(e->u.fval == 3.0);
  e = tvm_f32(c, 0.1);
  assert_true(e->u.fval == (double)0.1f);
  assert_true(tvm_fconst(c, TVM_F64, 0.1)->u.fval == 0.1);
  e = tvm_fconst(c, TVM_I32, 2.9);
  assert_int_equal(e->kind, TVM_INT);
  assert_int_equal(e->u.ival, 2);
  e = tvm_const(c, tvm_dt(kDLInt, 32, 4), 7);
  assert_int_equal(e->kind, TVM_BROADCAST);
  assert_int_equal(e->dtype.lanes, 4);
  assert_int_equal(e->u.bcast.value->u.ival, 7);
  e = tvm_str(c, "hi");
  assert_string_equal(e->u.str, "hi");
  tvm_expr *v1 = tvm_var(c, "x", TVM_I32), *v2 = tvm_var(c, "x", TVM_I32);
  assert_int_not_equal(v1->u.var.id, v2->u.var.id);
  assert_string_equal(tvm_var(c, NULL, TVM_I32)->u.var.name, "v");
  assert_false(c->failed);
}

static void test_unify_constants(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *f = tvm_var(c, "f", TVM_F32);
  tvm_expr *e = tvm_add(c, f, tvm_int(c, 2));
  assert_non_null(e);
  assert_true(tvm_dtype_eq(e->dtype, TVM_F32));
  assert_int_equal(e->u.bin.b->kind, TVM_FLOAT);
  assert_true(e->u.bin.b->u.fval == 2.0);
  /* constant on the left, 64-bit variable */
  tvm_expr *l = tvm_var(c, "l", TVM_I64);
  e = tvm_mul(c, tvm_int(c, 3), l);
  assert_true(tvm_dtype_eq(e->dtype, TVM_I64));
  assert_true(tvm_dtype_eq(e->u.bin.a->dtype, TVM_I64));
  assert_int_equal(e->u.bin.a->u.ival, 3);
  /* two constants: float wins, then the wider */
  e = tvm_add(c, tvm_int(c, 2), tvm_f32(c, 1.5));
  assert_true(tvm_dtype_eq(e->dtype, TVM_F32));
  assert_int_equal(e->u.bin.a->kind, TVM_FLOAT);
  e = tvm_add(c, tvm_int(c, 2), tvm_const(c, TVM_I64, 5));
  assert_true(tvm_dtype_eq(e->dtype, TVM_I64));
  /* the constructors do not fold */
  assert_int_equal(e->kind, TVM_ADD);
  assert_false(c->failed);
}

static void test_unify_failures(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *f = tvm_var(c, "f", TVM_F32);
  assert_null(tvm_add(c, i, f));
  assert_true(c->failed);
  assert_non_null(strstr(tvm_diag_message(), "int32"));
  assert_non_null(strstr(tvm_diag_message(), "float32"));
  assert_int_equal(tvm_ctx_status(c), TVM_ERR_INVALID);
  c->failed = 0;
  tvm_diag_clear();
  assert_null(tvm_mul(c, i, tvm_f32(c, 0.5)));
  assert_non_null(strstr(tvm_diag_message(), "float constant"));
  c->failed = 0;
  assert_null(tvm_add(c, i, tvm_var(c, "l", TVM_I64)));
  c->failed = 0;
  assert_null(tvm_add(c, tvm_var(c, "b", TVM_I8), tvm_int(c, 1000)));
  assert_non_null(strstr(tvm_diag_message(), "does not fit"));
  c->failed = 0;
  assert_null(tvm_add(c, tvm_var(c, "a", tvm_dt(kDLFloat, 32, 4)),
                      tvm_var(c, "b", tvm_dt(kDLFloat, 32, 8))));
  c->failed = 0;
  assert_null(tvm_and(c, i, i));
  assert_null(tvm_not(c, i));
  assert_null(tvm_binary(c, TVM_CAST, i, i));
  c->failed = 0;
  /* a NULL operand gives NULL without a new failure */
  assert_null(tvm_add(c, NULL, i));
  assert_false(c->failed);
}

static void test_broadcast_and_lanes(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *v = tvm_var(c, "v", tvm_dt(kDLFloat, 32, 4));
  tvm_expr *s = tvm_var(c, "s", TVM_F32);
  tvm_expr *e = tvm_add(c, s, v);
  assert_int_equal(e->dtype.lanes, 4);
  assert_int_equal(e->u.bin.a->kind, TVM_BROADCAST);
  assert_ptr_equal(e->u.bin.a->u.bcast.value, s);
  e = tvm_mul(c, v, tvm_int(c, 2)); /* converted then broadcast */
  assert_int_equal(e->u.bin.b->kind, TVM_BROADCAST);
  assert_int_equal(e->u.bin.b->u.bcast.value->kind, TVM_FLOAT);
  e = tvm_lt(c, v, s);
  assert_true(tvm_dtype_eq(e->dtype, tvm_dt(kDLUInt, 1, 4)));
  tvm_expr *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *r = tvm_ramp(c, i, tvm_const(c, TVM_I64, 1), 4);
  assert_int_equal(r->kind, TVM_RAMP);
  assert_true(tvm_dtype_eq(r->dtype, tvm_dt(kDLInt, 32, 4)));
  assert_ptr_equal(tvm_ramp(c, i, tvm_int(c, 1), 1), i);
  assert_ptr_equal(tvm_broadcast(c, i, 1), i);
  assert_false(c->failed);
  assert_null(tvm_broadcast(c, r, 2));
  assert_true(c->failed);
}

static void test_other_constructors(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *f = tvm_var(c, "f", TVM_F32);
  tvm_expr *buf = tvm_var(c, "A", TVM_HANDLE);
  tvm_expr *ld = tvm_load(c, TVM_F32, buf, tvm_ramp(c, i, tvm_int(c, 1), 8), NULL);
  assert_true(tvm_dtype_eq(ld->dtype, tvm_dt(kDLFloat, 32, 8)));
  assert_null(tvm_load(c, tvm_dt(kDLFloat, 32, 4), buf, i, NULL));
  c->failed = 0;
  /* select unifies t and f, needs a bool condition */
  tvm_expr *sel = tvm_select(c, tvm_lt(c, i, tvm_int(c, 3)), f, tvm_int(c, 0));
  assert_true(tvm_dtype_eq(sel->dtype, TVM_F32));
  assert_int_equal(sel->u.sel.f->kind, TVM_FLOAT);
  assert_null(tvm_select(c, i, f, f));
  c->failed = 0;
  /* casts fold constants, wrap, and keep variables as casts */
  tvm_expr *e = tvm_cast(c, TVM_F32, tvm_int(c, 3));
  assert_int_equal(e->kind, TVM_FLOAT);
  e = tvm_cast(c, TVM_I32, tvm_f32(c, -2.7));
  assert_int_equal(e->kind, TVM_INT);
  assert_int_equal(e->u.ival, -2);
  assert_int_equal(tvm_cast(c, TVM_I8, tvm_int(c, 300))->u.ival, 44);
  assert_ptr_equal(tvm_cast(c, TVM_I32, i), i);
  e = tvm_cast(c, TVM_F32, i);
  assert_int_equal(e->kind, TVM_CAST);
  e = tvm_cast(c, tvm_dt(kDLFloat, 32, 4), i);
  assert_int_equal(e->kind, TVM_BROADCAST);
  assert_int_equal(e->u.bcast.value->kind, TVM_CAST);
  /* calls */
  e = tvm_math(c, TVM_INTRIN_EXP, f);
  assert_int_equal(e->kind, TVM_CALL);
  assert_string_equal(e->u.call.name, "exp");
  assert_true(tvm_dtype_eq(e->dtype, TVM_F32));
  char name[] = "my_fn";
  tvm_expr *args[2] = {f, i};
  e = tvm_call_extern(c, TVM_I32, name, args, 2);
  name[0] = 'X';
  assert_string_equal(e->u.call.name, "my_fn");
  args[0] = NULL; /* the arguments were copied */
  assert_ptr_equal(e->u.call.args[0], f);
  assert_false(c->failed);
  assert_null(tvm_call(c, TVM_F32, TVM_INTRIN_EXTERN, &f, 1));
  c->failed = 0;
  /* let converts a constant value to the variable's type */
  tvm_expr *x = tvm_var(c, "x", TVM_I64);
  e = tvm_let(c, x, tvm_int(c, 5), tvm_add(c, x, x));
  assert_true(tvm_dtype_eq(e->u.let.value->dtype, TVM_I64));
  assert_null(tvm_let(c, x, i, x));
  c->failed = 0;
}

static void test_tread(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *shape[2] = {tvm_int(c, 4), tvm_int(c, 5)};
  int64_t shape_c[2] = {4, 5};
  tvm_tensor t = {NULL, "A", TVM_F32, 2, shape, shape_c};
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *j = tvm_var(c, "j", TVM_I32);
  tvm_expr *e = TVM_AT(c, &t, i, j);
  assert_int_equal(e->kind, TVM_TREAD);
  assert_true(tvm_dtype_eq(e->dtype, TVM_F32));
  assert_int_equal(e->u.tread.n, 2);
  assert_ptr_equal(e->u.tread.indices[1], j);
  assert_null(TVM_AT(c, &t, i));
  assert_non_null(strstr(tvm_diag_message(), "tensor A"));
}

static void test_predicates_equal(void **state) {
  tvm_ctx *c = *state;
  int64_t v = 0;
  assert_true(tvm_is_const_int(tvm_int(c, 42), &v));
  assert_int_equal(v, 42);
  assert_false(tvm_is_const_int(tvm_f32(c, 1), NULL));
  assert_false(tvm_is_const_int(tvm_const(c, tvm_dt(kDLInt, 32, 4), 1), NULL));
  assert_true(tvm_is_zero(tvm_int(c, 0)));
  assert_true(tvm_is_zero(tvm_f32(c, 0)));
  assert_true(tvm_is_zero(tvm_const(c, tvm_dt(kDLInt, 32, 4), 0)));
  assert_false(tvm_is_zero(tvm_int(c, 1)));
  assert_true(tvm_is_one(tvm_f32(c, 1)));
  assert_false(tvm_is_one(tvm_var(c, "one", TVM_I32)));

  tvm_expr *i = tvm_var(c, "i", TVM_I32), *j = tvm_var(c, "i", TVM_I32);
  tvm_expr *a = tvm_add(c, tvm_mul(c, i, tvm_int(c, 4)), tvm_math(c, TVM_INTRIN_FABS, i));
  tvm_expr *b = tvm_add(c, tvm_mul(c, i, tvm_int(c, 4)), tvm_math(c, TVM_INTRIN_FABS, i));
  assert_ptr_not_equal(a, b);
  assert_true(tvm_expr_equal(a, b));
  assert_false(tvm_expr_equal(a, tvm_add(c, tvm_mul(c, j, tvm_int(c, 4)),
                                         tvm_math(c, TVM_INTRIN_FABS, i))));
  assert_false(tvm_expr_equal(tvm_int(c, 1), tvm_const(c, TVM_I64, 1)));
  assert_false(tvm_expr_equal(tvm_sub(c, i, j), tvm_sub(c, j, i)));
  assert_true(tvm_expr_equal(tvm_str(c, "s"), tvm_str(c, "s")));
  assert_true(tvm_expr_equal(NULL, NULL));
  assert_false(tvm_expr_equal(i, NULL));
  /* purity: variables and arithmetic only */
  assert_true(tvm_expr_is_pure(tvm_floordiv(c, tvm_add(c, i, j), tvm_int(c, 7))));
  assert_false(tvm_expr_is_pure(a)); /* a call */
  tvm_expr *buf = tvm_var(c, "buf", tvm_dt(kDLOpaqueHandle, 64, 1));
  assert_false(tvm_expr_is_pure(
      tvm_add(c, i, tvm_load(c, TVM_I32, buf, j, NULL))));
  assert_string_equal(tvm_expr_kind_name(TVM_FLOORDIV), "floordiv");
  assert_string_equal(tvm_expr_kind_name(TVM_REDUCE), "reduce");
  assert_string_equal(tvm_intrin_name(TVM_INTRIN_SIGMOID), "sigmoid");
  assert_string_equal(tvm_intrin_name(TVM_INTRIN_DEP_POP), "dep_pop");
  for (int k = 0; k < TVM_EXPR_KIND_COUNT; k++)
    assert_string_not_equal(tvm_expr_kind_name((tvm_expr_kind)k), "unknown");
  for (int k = 0; k < TVM_INTRIN_COUNT; k++)
    assert_string_not_equal(tvm_intrin_name((tvm_intrin)k), "unknown");
}

/* An allocator failing after a budget of allocations. */
static int budget;
static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (budget-- <= 0) return NULL;
  return realloc(ptr, nsize);
}

static void test_out_of_memory(void **state) {
  /* every budget either succeeds or reports NOMEM, never crashes */
  int successes = 0, failures = 0;
  for (int b = 0; b < 12; b++) {
    budget = b;
    tvm_set_allocator(failing_alloc, NULL);
    tvm_ctx *c = tvm_ctx_create();
    if (c) {
      tvm_expr *x = NULL;
      for (int k = 0; k < 1000; k++) /* enough nodes for several chunks */
        x = tvm_add(c, tvm_var(c, "v", TVM_I32), tvm_int(c, k));
      tvm_status st = tvm_ctx_status(c);
      if (x) {
        assert_int_equal(st, TVM_OK);
        successes++;
      } else {
        assert_int_equal(st, TVM_ERR_NOMEM);
        failures++;
      }
      tvm_ctx_destroy(c);
    }
    tvm_set_allocator(NULL, NULL);
  }
  assert_true(successes > 0);
  assert_true(failures > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_dtype, setup, teardown),
      cmocka_unit_test_setup_teardown(test_constants, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unify_constants, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unify_failures, setup, teardown),
      cmocka_unit_test_setup_teardown(test_broadcast_and_lanes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_other_constructors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tread, setup, teardown),
      cmocka_unit_test_setup_teardown(test_predicates_equal, setup, teardown),
      cmocka_unit_test(test_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
