/*
 * tests/unit/te/test_te.c - tensor expressions: declarations of matmul,
 * padded conv2d and conv2d+bias+relu, reductions, and the errors of
 * ill-formed bodies.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tvm/te.h"
#include "examples.h"

static int setup(void **state) {
  *state = tvm_ctx_create();
  return *state ? 0 : -1;
}

static int teardown(void **state) {
  tvm_ctx_destroy(*state);
  return 0;
}

/* Names of the inputs of t's op, comma separated, into buf. */
static const char *inputs_of(const tvm_tensor *t, char *buf, size_t n) {
  tvm_ptrvec in = {0};
  buf[0] = 0;
  assert_int_equal(tvm_op_inputs(t->op, &in), TVM_OK);
  for (size_t i = 0; i < in.len; i++) {
    if (i)
      strncat(buf, ",", n - strlen(buf) - 1);
    strncat(buf, ((tvm_tensor *)in.data[i])->name, n - strlen(buf) - 1);
  }
  tvm_ptrvec_free(&in);
  return buf;
}

static void test_matmul(void **state) {
  tvm_ctx *c = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(c, 64, 32, 16, in);
  char buf[128];
  assert_non_null(C);
  assert_int_equal(C->ndim, 2);
  assert_int_equal(C->shape_c[0], 64);
  assert_int_equal(C->shape_c[1], 32);
  assert_true(tvm_dtype_eq(C->dtype, TVM_F32));
  assert_string_equal(C->name, "C");
  assert_int_equal(C->op->kind, TVM_OP_COMPUTE);
  assert_ptr_equal(C->op->output, C);
  assert_int_equal(C->op->naxis, 2);
  assert_string_equal(C->op->axis[0]->var->u.var.name, "i");
  assert_string_equal(C->op->axis[1]->var->u.var.name, "j");
  assert_int_equal(C->op->axis[0]->kind, TVM_IV_DATA_PAR);
  int64_t v;
  assert_true(tvm_is_const_int(C->op->axis[1]->dom.extent, &v));
  assert_int_equal(v, 32);
  assert_true(tvm_is_zero(C->op->axis[1]->dom.min));
  /* the reduction at the top of the body gives the reduce axes */
  assert_int_equal(C->op->body->kind, TVM_REDUCE);
  assert_int_equal(C->op->nreduce, 1);
  assert_int_equal(C->op->reduce_axis[0]->kind, TVM_IV_REDUCE);
  assert_string_equal(C->op->reduce_axis[0]->var->u.var.name, "k");
  assert_true(tvm_is_const_int(C->op->reduce_axis[0]->dom.extent, &v));
  assert_int_equal(v, 16);
  assert_string_equal(inputs_of(C, buf, sizeof buf), "A,B");
  assert_string_equal(inputs_of(in[0], buf, sizeof buf), "");
  assert_int_equal(in[0]->op->kind, TVM_OP_PLACEHOLDER);
  assert_int_equal(in[0]->shape_c[1], 16);
}

static void test_conv2d(void **state) {
  tvm_ctx *c = *state;
  tvm_tensor *in[3];
  tvm_tensor *conv = example_conv2d(c, 1, 8, 14, 14, 16, in);
  char buf[128];
  assert_non_null(conv);
  assert_int_equal(in[2]->shape_c[2], 16); /* padded height */
  assert_int_equal(in[2]->op->nreduce, 0);
  assert_int_equal(in[2]->op->body->kind, TVM_SELECT);
  assert_string_equal(inputs_of(in[2], buf, sizeof buf), "A");
  assert_string_equal(inputs_of(conv, buf, sizeof buf), "Apad,W");
  assert_int_equal(conv->op->nreduce, 3);
  assert_string_equal(conv->op->reduce_axis[2]->var->u.var.name, "rx");
  assert_int_equal(conv->shape_c[1], 16);
  assert_int_equal(conv->shape_c[3], 14);
  /* four data axes are named i, j, k, l */
  assert_string_equal(conv->op->axis[3]->var->u.var.name, "l");
}

static void test_conv2d_bias_relu(void **state) {
  tvm_ctx *c = *state;
  tvm_tensor *in[5];
  tvm_tensor *out = example_conv2d_bias_relu(c, 1, 4, 8, 8, 8, in);
  char buf[128];
  assert_non_null(out);
  assert_int_equal(out->op->nreduce, 0);
  assert_int_equal(out->op->body->kind, TVM_MAX);
  assert_string_equal(inputs_of(out, buf, sizeof buf), "Conv,bias");
  tvm_tensor_set_tag(out, "conv2d_bias_relu");
  assert_string_equal(out->op->tag, "conv2d_bias_relu");

  /* what a schedule template walks: the computes only, output first */
  tvm_ptrvec ops = {0};
  assert_int_equal(tvm_op_reachable_computes(out, &ops), TVM_OK);
  char names[128] = "";
  for (size_t i = 0; i < ops.len; i++) {
    const tvm_operation *op = ops.data[i];
    assert_int_equal(op->kind, TVM_OP_COMPUTE);
    strcat(names, i ? "," : "");
    strcat(names, op->name);
  }
  assert_ptr_equal(ops.data[0], out->op);
  assert_string_equal(names, "Out,Conv,Apad");
  tvm_ptrvec_free(&ops);
}

/* ---- symbolic shapes ----------------------------------------------- */
static tvm_expr *copy_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return TVM_AT(c, (tvm_tensor *)ud, i[0], i[1]);
}

static void test_symbolic(void **state) {
  tvm_ctx *c = *state;
  tvm_expr *n = tvm_var(c, "n", TVM_I32);
  tvm_tensor *A =
      tvm_placeholder_sym(c, "A", TVM_F32, (tvm_expr *[]){n, tvm_int(c, 8)}, 2);
  assert_non_null(A);
  assert_int_equal(A->shape_c[0], -1);
  assert_int_equal(A->shape_c[1], 8);
  assert_ptr_equal(A->shape[0], n);
  tvm_tensor *B = tvm_compute_sym(c, "B", A->shape, 2, copy_body, A);
  assert_non_null(B);
  assert_int_equal(B->shape_c[0], -1);
  assert_ptr_equal(B->op->axis[0]->dom.extent, n);
}

/* ---- axis names ------------------------------------------------------ */
static tvm_expr *sum5_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_add(c, i[0], i[4]);
}

static tvm_expr *batch_matmul_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, 4);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], i[1], k->var),
                            TVM_AT(c, in[1], i[0], k->var, i[2])),
                 &k, 1);
}

static void test_axis_names(void **state) {
  tvm_ctx *c = *state;
  tvm_tensor *t = tvm_compute(c, "T", (int64_t[]){1, 2, 3, 4, 5}, 5,
                              sum5_body, NULL);
  assert_non_null(t);
  assert_string_equal(t->op->axis[0]->var->u.var.name, "i0");
  assert_string_equal(t->op->axis[4]->var->u.var.name, "i4");
  assert_true(tvm_dtype_eq(t->dtype, TVM_I32));
  /* a data axis that would share the reduce axis' name is renamed */
  tvm_tensor *in[2] = {
      tvm_placeholder(c, "X", TVM_F32, (int64_t[]){2, 3, 4}, 3),
      tvm_placeholder(c, "Y", TVM_F32, (int64_t[]){2, 4, 5}, 3)};
  tvm_tensor *bm =
      tvm_compute(c, "BM", (int64_t[]){2, 3, 5}, 3, batch_matmul_body, in);
  assert_non_null(bm);
  assert_string_equal(bm->op->axis[2]->var->u.var.name, "k2");
  assert_string_equal(bm->op->reduce_axis[0]->var->u.var.name, "k");
}

/* ---- errors ----------------------------------------------------------- */
static tvm_expr *nested_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  return tvm_add(c, matmul_body(c, i, in), tvm_f32(c, 1.0));
}

static tvm_expr *double_reduce_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k2 = tvm_reduce_axis(c, "k2", 0, 4);
  return tvm_sum(c, matmul_body(c, i, in), &k2, 1);
}

static tvm_expr *bad_arity_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  return TVM_AT(c, in[0], i[0]);
}

static tvm_expr *null_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return NULL;
}

static tvm_expr *data_axis_reduce_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_iter_var *d = tvm_iter_var_new(c, "d", tvm_int(c, 0), tvm_int(c, 4),
                                     TVM_IV_DATA_PAR);
  return tvm_sum(c, d->var, &d, 1);
}

static void test_errors(void **state) {
  tvm_ctx *c = *state;
  tvm_tensor *in[2];
  assert_non_null(example_matmul(c, 4, 4, 4, in));
  int64_t sh[2] = {4, 4};

  assert_null(tvm_compute(c, "N", sh, 2, nested_body, in));
  assert_int_equal(tvm_diag_status(), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "compute N"));
  assert_non_null(strstr(tvm_diag_message(), "nested"));

  assert_null(tvm_compute(c, "D", sh, 2, double_reduce_body, in));
  assert_non_null(strstr(tvm_diag_message(), "inside another reduction"));

  /* the tread constructor refuses the read (and marks the ctx failed) */
  assert_null(tvm_compute(c, "R", sh, 2, bad_arity_body, in));
  assert_non_null(strstr(tvm_diag_message(), "compute R"));
  assert_non_null(strstr(tvm_diag_message(), "A with 1 indices"));
  c->failed = 0;

  assert_null(tvm_compute(c, "Z", sh, 2, null_body, NULL));
  assert_non_null(strstr(tvm_diag_message(), "compute Z"));

  assert_null(tvm_compute(c, "Q", sh, 2, data_axis_reduce_body, NULL));
  assert_non_null(strstr(tvm_diag_message(), "compute Q"));
  assert_non_null(strstr(tvm_diag_message(), "not a reduce axis"));

  assert_null(tvm_compute(c, "S", (int64_t[]){4, 0}, 2, null_body, NULL));
  assert_non_null(strstr(tvm_diag_message(), "shape[1] is 0"));
  assert_null(tvm_placeholder(c, "", TVM_F32, sh, 2));
  assert_int_equal(tvm_diag_status(), TVM_ERR_INVALID);
  assert_null(tvm_reduce_axis(c, "r", 0, 0));
}

/* ---- reductions ------------------------------------------------------- */
static void test_reduce_identity_combine(void **state) {
  tvm_ctx *c = *state;
  int64_t v;
  tvm_expr *e = tvm_reduce_identity(c, TVM_REDUCE_MAX, TVM_I32);
  assert_true(tvm_is_const_int(e, &v));
  assert_int_equal(v, INT32_MIN);
  e = tvm_reduce_identity(c, TVM_REDUCE_MIN, TVM_I8);
  assert_true(tvm_is_const_int(e, &v));
  assert_int_equal(v, 127);
  e = tvm_reduce_identity(c, TVM_REDUCE_MIN, TVM_U8);
  assert_true(tvm_is_const_int(e, &v));
  assert_int_equal(v, 255);
  e = tvm_reduce_identity(c, TVM_REDUCE_SUM, TVM_F32);
  assert_int_equal(e->kind, TVM_FLOAT);
  assert_true(e->u.fval == 0.0);
  e = tvm_reduce_identity(c, TVM_REDUCE_MAX, TVM_F32);
  assert_true(isinf(e->u.fval) && e->u.fval < 0);
  e = tvm_reduce_identity(c, TVM_REDUCE_PROD, TVM_I32);
  assert_true(tvm_is_one(e));
  e = tvm_reduce_identity(c, TVM_REDUCE_SUM, tvm_dt(kDLFloat, 32, 8));
  assert_int_equal(e->kind, TVM_BROADCAST);
  assert_int_equal(e->dtype.lanes, 8);

  tvm_expr *a = tvm_var(c, "a", TVM_F32), *b = tvm_var(c, "b", TVM_F32);
  assert_int_equal(tvm_reduce_combine(c, TVM_REDUCE_SUM, a, b)->kind, TVM_ADD);
  assert_int_equal(tvm_reduce_combine(c, TVM_REDUCE_MAX, a, b)->kind, TVM_MAX);
  assert_int_equal(tvm_reduce_combine(c, TVM_REDUCE_MIN, a, b)->kind, TVM_MIN);
  assert_int_equal(tvm_reduce_combine(c, TVM_REDUCE_PROD, a, b)->kind, TVM_MUL);

  tvm_iter_var *k = tvm_reduce_axis(c, "k", 2, 5);
  tvm_expr *r = tvm_rmax(c, k->var, &k, 1);
  assert_int_equal(r->kind, TVM_REDUCE);
  assert_int_equal(r->u.reduce.op, TVM_REDUCE_MAX);
  assert_ptr_equal(r->u.reduce.axes[0], k);
  assert_null(r->u.reduce.cond);
  tvm_expr *cond = tvm_lt(c, k->var, tvm_int(c, 4));
  r = tvm_reduce(c, TVM_REDUCE_MIN, k->var, &k, 1, cond);
  assert_ptr_equal(r->u.reduce.cond, cond);
  assert_int_equal(tvm_rmin(c, k->var, &k, 1)->u.reduce.op, TVM_REDUCE_MIN);
}

static void test_thread_axis(void **state) {
  tvm_ctx *c = *state;
  tvm_iter_var *tx = tvm_thread_axis(c, "threadIdx.x", NULL);
  assert_non_null(tx);
  assert_int_equal(tx->kind, TVM_IV_THREAD);
  assert_string_equal(tx->thread_tag, "threadIdx.x");
  assert_null(tx->dom.extent);
  tvm_iter_var *vt = tvm_thread_axis(c, "vthread", tvm_int(c, 2));
  assert_int_equal(vt->kind, TVM_IV_VTHREAD);
  assert_true(tvm_is_zero(vt->dom.min));
  assert_null(tvm_thread_axis(c, "", NULL));
}

/* ---- inputs: first-use order, each once ------------------------------- */
static tvm_expr *twice_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  return tvm_add(c, tvm_mul(c, TVM_AT(c, in[1], i[0]), TVM_AT(c, in[0], i[0])),
                 TVM_AT(c, in[1], i[0]));
}

static tvm_status emit_nothing(tvm_ctx *c, const tvm_tensor_intrin *ti,
                               tvm_buffer **inputs, int ninputs,
                               tvm_buffer *output, tvm_stmt **body,
                               tvm_stmt **reset, tvm_stmt **update) {
  return TVM_OK;
}

static void test_inputs_and_intrin(void **state) {
  tvm_ctx *c = *state;
  tvm_tensor *in[2] = {tvm_placeholder(c, "P", TVM_F32, (int64_t[]){4}, 1),
                       tvm_placeholder(c, "Q", TVM_F32, (int64_t[]){4}, 1)};
  tvm_tensor *t = tvm_compute(c, "T", (int64_t[]){4}, 1, twice_body, in);
  char buf[64];
  assert_string_equal(inputs_of(t, buf, sizeof buf), "Q,P");

  tvm_tensor_intrin *ti = tvm_tensor_intrin_new(c, "vadd", t, emit_nothing, c);
  assert_non_null(ti);
  assert_string_equal(ti->name, "vadd");
  assert_ptr_equal(ti->pattern, t);
  assert_ptr_equal(ti->data, c);
  /* a pattern must read placeholders only */
  tvm_tensor *in2[2] = {t, in[1]};
  tvm_tensor *u = tvm_compute(c, "U", (int64_t[]){4}, 1, twice_body, in2);
  assert_null(tvm_tensor_intrin_new(c, "bad", u, emit_nothing, NULL));
  assert_non_null(strstr(tvm_diag_message(), "input T"));
  assert_null(tvm_tensor_intrin_new(c, "bad", in[0], emit_nothing, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_matmul, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv2d, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv2d_bias_relu, setup, teardown),
      cmocka_unit_test_setup_teardown(test_symbolic, setup, teardown),
      cmocka_unit_test_setup_teardown(test_axis_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reduce_identity_combine, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_thread_axis, setup, teardown),
      cmocka_unit_test_setup_teardown(test_inputs_and_intrin, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
