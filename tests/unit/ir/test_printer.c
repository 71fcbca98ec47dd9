/*
 * tests/unit/ir/test_printer.c - the IR text form, compared as exact
 * strings (the format is documented at the top of core/ir/printer.c).
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

static void expect_expr(const tvm_expr *e, const char *want) {
  assert_non_null(e);
  char *s = tvm_expr_str(e);
  assert_string_equal(s, want);
  tvm_free(s);
}

static void expect_stmt(const tvm_stmt *st, const char *want) {
  assert_non_null(st);
  char *s = tvm_stmt_str(st);
  assert_string_equal(s, want);
  tvm_free(s);
}

static void test_constants(void **state) {
  tvm_ctx *c = *state;
  expect_expr(tvm_int(c, -5), "-5");
  expect_expr(tvm_const(c, TVM_I64, 7), "7i64");
  expect_expr(tvm_const(c, TVM_U8, 255), "255u8");
  expect_expr(tvm_const(c, TVM_BOOL, 1), "true");
  expect_expr(tvm_f32(c, 0.1), "0.1f");
  expect_expr(tvm_f32(c, 2), "2.0f");
  expect_expr(tvm_f32(c, 1e-7), "1e-07f");
  expect_expr(tvm_fconst(c, TVM_F64, 0.1), "0.1f64");
  expect_expr(tvm_fconst(c, TVM_F16, -1.5), "-1.5f16");
  expect_expr(tvm_f32(c, 1.0 / 0.0), "float32(inf)");
  expect_expr(tvm_str(c, "a\"b\n"), "\"a\\\"b\\n\"");
}

static void test_precedence(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *a = tvm_var(c, "a", TVM_I32), *b = tvm_var(c, "b", TVM_I32);
  tvm_expr *d = tvm_var(c, "d", TVM_I32);
  expect_expr(tvm_add(c, tvm_mul(c, a, b), d), "a * b + d");
  expect_expr(tvm_mul(c, tvm_add(c, a, b), d), "(a + b) * d");
  expect_expr(tvm_sub(c, a, tvm_sub(c, b, d)), "a - (b - d)");
  expect_expr(tvm_sub(c, tvm_sub(c, a, b), d), "a - b - d");
  expect_expr(tvm_div(c, a, tvm_mul(c, b, d)), "a / (b * d)");
  expect_expr(tvm_mod(c, tvm_add(c, a, b), d), "(a + b) % d");
  expect_expr(tvm_and(c, tvm_lt(c, a, b), tvm_or(c, tvm_ge(c, a, d), tvm_eq(c, b, d))),
              "a < b && (a >= d || b == d)");
  expect_expr(tvm_or(c, tvm_and(c, tvm_lt(c, a, b), tvm_ne(c, a, d)), tvm_le(c, b, d)),
              "a < b && a != d || b <= d");
  expect_expr(tvm_eq(c, tvm_lt(c, a, b), tvm_const(c, TVM_BOOL, 0)), "(a < b) == false");
  expect_expr(tvm_not(c, tvm_gt(c, a, b)), "!(a > b)");
  expect_expr(tvm_add(c, tvm_floordiv(c, tvm_add(c, a, b), tvm_int(c, 8)),
                      tvm_floormod(c, a, tvm_int(c, 8))),
              "floordiv(a + b, 8) + floormod(a, 8)");
  expect_expr(tvm_min(c, a, tvm_max(c, b, tvm_int(c, 0))), "min(a, max(b, 0))");
  expect_expr(tvm_mul(c, a, tvm_int(c, -3)), "a * -3");
}

static void test_other_exprs(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *x = tvm_var(c, "x", TVM_F32);
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE);
  expect_expr(tvm_cast(c, TVM_F32, i), "float32(i)");
  expect_expr(tvm_cast(c, TVM_I64, tvm_add(c, i, tvm_int(c, 1))), "int64(i + 1)");
  expect_expr(tvm_math(c, TVM_INTRIN_EXP, tvm_add(c, x, tvm_int(c, 1))), "exp(x + 1.0f)");
  tvm_expr *args[2] = {x, tvm_str(c, "s")};
  expect_expr(tvm_call_extern(c, TVM_F32, "my_fn", args, 2), "my_fn(x, \"s\")");
  expect_expr(tvm_call(c, TVM_I32, TVM_INTRIN_REINTERPRET, &x, 1), "reinterpret<int32>(x)");
  expect_expr(tvm_select(c, tvm_lt(c, i, tvm_int(c, 3)), x, tvm_f32(c, 0)),
              "select(i < 3, x, 0.0f)");
  expect_expr(tvm_load(c, TVM_F32, A, tvm_add(c, tvm_mul(c, i, tvm_int(c, 64)), tvm_int(c, 2)), NULL),
              "A[i * 64 + 2]");
  tvm_expr *r = tvm_ramp(c, tvm_mul(c, i, tvm_int(c, 4)), tvm_int(c, 1), 4);
  tvm_expr *pred = tvm_lt(c, r, tvm_broadcast(c, tvm_int(c, 10), 4));
  expect_expr(tvm_load(c, TVM_F32, A, r, pred),
              "A[ramp(i * 4, 1, 4), pred=ramp(i * 4, 1, 4) < x4(10)]");
  expect_expr(tvm_add(c, tvm_var(c, "v", tvm_dt(kDLFloat, 32, 8)), x),
              "v + x8(x)");
  tvm_expr *y = tvm_var(c, "y", TVM_I32);
  expect_expr(tvm_let(c, y, tvm_int(c, 2), tvm_mul(c, y, y)), "let y = 2 in y * y");
  expect_expr(tvm_add(c, i, tvm_let(c, y, tvm_int(c, 2), tvm_mul(c, y, y))),
              "i + (let y = 2 in y * y)");
}

static void test_name_disambiguation(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *i1 = tvm_var(c, "i", TVM_I32), *i2 = tvm_var(c, "i", TVM_I32);
  tvm_expr *j = tvm_var(c, "j", TVM_I32);
  char want[64];
  snprintf(want, sizeof want, "i_%u + i_%u + j", i1->u.var.id, i2->u.var.id);
  expect_expr(tvm_add(c, tvm_add(c, i1, i2), j), want);
  /* alone, each prints by its name */
  expect_expr(tvm_add(c, i1, j), "i + j");
  expect_expr(tvm_add(c, i1, i1), "i + i");
}

static void test_tensor_exprs(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *shape[2] = {tvm_int(c, 64), tvm_int(c, 64)};
  int64_t shape_c[2] = {64, 64};
  tvm_tensor A = {NULL, "A", TVM_F32, 2, shape, shape_c};
  tvm_tensor C = {NULL, "C", TVM_F32, 2, shape, shape_c};
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *j = tvm_var(c, "j", TVM_I32);
  tvm_expr *k = tvm_var(c, "k", TVM_I32);
  tvm_iter_var kv = {k, {tvm_int(c, 0), tvm_int(c, 64)}, TVM_IV_REDUCE, NULL};
  tvm_iter_var *axes[1] = {&kv};
  tvm_expr *red = tvm_ctx_alloc(c, sizeof(tvm_expr));
  red->kind = TVM_REDUCE;
  red->dtype = TVM_F32;
  red->u.reduce.op = TVM_REDUCE_SUM;
  red->u.reduce.source = tvm_mul(c, TVM_AT(c, &A, i, k), TVM_AT(c, &A, k, j));
  red->u.reduce.axes = axes;
  red->u.reduce.naxes = 1;
  expect_expr(red, "sum(A(i, k) * A(k, j), axis=[k])");
  red->u.reduce.op = TVM_REDUCE_MAX;
  red->u.reduce.cond = tvm_lt(c, k, i);
  expect_expr(red, "max(A(i, k) * A(k, j), axis=[k], where=k < i)");
  tvm_expr *idx[2] = {i, j};
  tvm_range b[2] = {{tvm_int(c, 0), tvm_int(c, 64)}, {tvm_int(c, 0), tvm_int(c, 64)}};
  tvm_stmt *s = tvm_realize(c, &C, b, 2, NULL,
    tvm_for(c, i, tvm_int(c, 0), tvm_int(c, 64), TVM_FOR_SERIAL, NULL,
      tvm_for(c, j, tvm_int(c, 0), tvm_int(c, 64), TVM_FOR_SERIAL, NULL,
        tvm_provide(c, &C, idx, 2, tvm_add(c, TVM_AT(c, &A, i, j), tvm_f32(c, 1))))));
  expect_stmt(s,
    "realize C([0, 64], [0, 64]) scope=global {\n"
    "  for (i, 0, 64) {\n"
    "    for (j, 0, 64) {\n"
    "      C(i, j) = A(i, j) + 1.0f\n"
    "    }\n"
    "  }\n"
    "}\n");
}

static void test_loop_nest(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *j = tvm_var(c, "j", TVM_I32);
  tvm_expr *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *B = tvm_var(c, "B", TVM_HANDLE);
  tvm_expr *T = tvm_var(c, "T", TVM_HANDLE);
  tvm_expr *q0 = tvm_int(c, 0);
  tvm_expr *ramp = tvm_ramp(c, tvm_mul(c, j, tvm_int(c, 4)), tvm_int(c, 1), 4);
  tvm_stmt *vec = tvm_store(c, T, ramp,
                            tvm_mul(c, tvm_load(c, TVM_F32, A,
                                                tvm_add(c, tvm_broadcast(c, tvm_mul(c, i, tvm_int(c, 64)), 4), ramp),
                                                NULL),
                                    tvm_f32(c, 2)),
                            NULL);
  tvm_stmt *jl = tvm_for(c, j, q0, tvm_int(c, 16), TVM_FOR_UNROLLED, NULL, vec);
  tvm_stmt *guarded = tvm_if(c, tvm_lt(c, tx, tvm_int(c, 64)),
                             tvm_store(c, B, tx, tvm_load(c, TVM_F32, T, tx, NULL), NULL),
                             tvm_store(c, B, tx, tvm_f32(c, 0), NULL));
  tvm_stmt *body = tvm_seq2(c, jl, tvm_seq2(c, tvm_barrier(c, "shared"),
                   tvm_for(c, tx, q0, tvm_int(c, 64), TVM_FOR_THREAD, "threadIdx.x", guarded)));
  tvm_stmt *alloc = tvm_allocate(c, T, TVM_F32, tvm_int(c, 64), "shared", body);
  alloc->u.alloc.align = 64;
  tvm_stmt *attr = tvm_attr(c, TVM_ATTR_STORAGE_SCOPE, T, tvm_str(c, "shared"), alloc);
  tvm_stmt *outer = tvm_for(c, i, q0, tvm_int(c, 64), TVM_FOR_PARALLEL, NULL,
                            tvm_attr(c, "pragma_debug", NULL, NULL, attr));
  expect_stmt(outer,
    "for (i, 0, 64) parallel {\n"
    "  // attr pragma_debug\n"
    "  // attr [T] storage_scope = \"shared\"\n"
    "  allocate T[float32 * 64] scope=shared align=64\n"
    "  for (j, 0, 16) unrolled {\n"
    "    T[ramp(j * 4, 1, 4)] = A[x4(i * 64) + ramp(j * 4, 1, 4)] * x4(2.0f)\n"
    "  }\n"
    "  barrier scope=shared\n"
    "  for (tx, 0, 64) thread(threadIdx.x) {\n"
    "    if (tx < 64) {\n"
    "      B[tx] = T[tx]\n"
    "    } else {\n"
    "      B[tx] = 0.0f\n"
    "    }\n"
    "  }\n"
    "}\n");
  /* indentation argument counts levels */
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_stmt(&b, tvm_store(c, B, tx, tvm_f32(c, 0), NULL), 2);
  assert_string_equal(b.data, "    B[tx] = 0.0f\n");
  tvm_strbuf_free(&b);
}

static void test_misc_stmts(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *x = tvm_var(c, "x", TVM_I32), *n = tvm_var(c, "n", TVM_I32);
  tvm_expr *pp[2] = {tvm_int(c, 0), tvm_int(c, 1)};
  tvm_stmt *ev = tvm_evaluate(c, tvm_call(c, TVM_I32, TVM_INTRIN_DEP_PUSH, pp, 2));
  tvm_stmt *s = tvm_assert(c, tvm_gt(c, n, tvm_int(c, 0)), "n must be > 0",
                  tvm_let_stmt(c, x, tvm_add(c, n, tvm_int(c, 1)),
                    tvm_if(c, tvm_eq(c, x, tvm_int(c, 2)), ev,
                      tvm_if(c, tvm_eq(c, x, tvm_int(c, 3)), tvm_seq(c, NULL, 0), NULL))));
  expect_stmt(s,
    "assert(n > 0, \"n must be > 0\")\n"
    "let x = n + 1\n"
    "if (x == 2) {\n"
    "  dep_push(0, 1)\n"
    "} else if (x == 3) {\n"
    "  nop\n"
    "}\n");
}

static void test_func_module(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *shape[2] = {tvm_int(c, 64), tvm_int(c, 64)};
  tvm_buffer *A = tvm_buffer_new(c, "A", TVM_F32, shape, 2, NULL);
  tvm_buffer *S = tvm_buffer_new(c, "S", TVM_F16, shape, 1, "shared");
  tvm_expr *n = tvm_var(c, "n", TVM_I32), *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *params[3] = {A->data, S->data, n};
  tvm_buffer *bufs[3] = {A, S, NULL};
  tvm_stmt *body = tvm_for(c, i, tvm_int(c, 0), n, TVM_FOR_SERIAL, NULL,
                           tvm_store(c, A->data, i, tvm_f32(c, 0), NULL));
  tvm_func *f = tvm_func_new(c, "zero", params, bufs, 3, body);
  tvm_func *g = tvm_func_new(c, "kern", params, bufs, 1, body);
  g->kind = TVM_FUNC_DEVICE;
  const char *tags[2] = {"blockIdx.x", "threadIdx.x"};
  tvm_expr *ext[2] = {tvm_int(c, 8), tvm_int(c, 128)};
  g->nthread_axes = 2;
  g->thread_tags = tags;
  g->thread_extents = ext;
  tvm_module m = {c, NULL, 0};
  assert_int_equal(tvm_module_add(&m, f), TVM_OK);
  assert_int_equal(tvm_module_add(&m, g), TVM_OK);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_module(&b, &m);
  assert_string_equal(b.data,
    "func zero(A: float32[64, 64], S: float16[64] scope=shared, n: int32) {\n"
    "  for (i, 0, n) {\n"
    "    A[i] = 0.0f\n"
    "  }\n"
    "}\n"
    "\n"
    "device func kern(A: float32[64, 64]) {\n"
    "  // launch blockIdx.x = 8, threadIdx.x = 128\n"
    "  for (i, 0, n) {\n"
    "    A[i] = 0.0f\n"
    "  }\n"
    "}\n");
  tvm_strbuf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_constants, setup, teardown),
      cmocka_unit_test_setup_teardown(test_precedence, setup, teardown),
      cmocka_unit_test_setup_teardown(test_other_exprs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_name_disambiguation, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensor_exprs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_loop_nest, setup, teardown),
      cmocka_unit_test_setup_teardown(test_misc_stmts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_func_module, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
