/*
 * tests/unit/schedule/test_dataflow.c - cache_read, cache_write and
 * rfactor: the printed schedule after each, the numbers the rewritten
 * dataflow computes (against a naive interpreter of the declaration) and
 * the error paths.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sched_test.h"
#include "te_eval.h"


/* ---- cache_read ------------------------------------------------------ */
static void test_cache_read(void **state) {
  fixture *f = *state;
  tvm_stage *st = matmul_schedule(f, 16, 12, 8);
  tvm_operation *decl = f->out->op;
  tvm_iter_var *ko, *ki, *i = tvm_stage_axis(st, 0);
  assert_int_equal(tvm_split(st, tvm_stage_reduce_axis(st, 0), 4, &ko, &ki),
                   TVM_OK);
  tvm_tensor *AS, *BS;
  assert_int_equal(tvm_cache_read(f->s, f->in[0], "shared", &f->out->op, 1,
                                  &AS),
                   TVM_OK);
  assert_string_equal(AS->name, "A.shared");
  /* C's stage has a new op over the same axes; the tensor is unchanged */
  assert_ptr_equal(f->out->op, decl);
  assert_ptr_equal(st->origin_op, decl);
  assert_ptr_not_equal(st->op, decl);
  assert_ptr_equal(st->op->output, f->out);
  assert_ptr_equal(st->op->axis[0], i);
  assert_ptr_equal(st->op->reduce_axis[0], decl->reduce_axis[0]);
  assert_ptr_equal(tvm_stage_of(f->s, f->out), st);
  assert_int_equal(st->leaf_iter_vars.len, 4);
  /* the split still applies, and the cache can go under it */
  tvm_stage *ss = tvm_stage_of(f->s, AS);
  assert_int_equal(tvm_compute_at(ss, st, ko), TVM_OK);
  /* readers given by their current or declared op alike */
  assert_int_equal(tvm_cache_read(f->s, f->in[1], "shared", &st->op, 1, &BS),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(f->s, BS), st, ko), TVM_OK);
  expect_schedule(f->s,
                  "stage A: placeholder float32[16, 8]\n"
                  "stage A.shared: compute float32[16, 8] scope=shared\n"
                  "  body: A(i, j)\n"
                  "  leaves: i, j\n"
                  "  attach: at C.k.outer\n"
                  "stage B: placeholder float32[8, 12]\n"
                  "stage B.shared: compute float32[8, 12] scope=shared\n"
                  "  body: B(i, j)\n"
                  "  leaves: i, j\n"
                  "  attach: at C.k.outer\n"
                  "stage C: compute float32[16, 12] output\n"
                  "  body: sum(A.shared(i, k) * B.shared(k, j), axis=[k])\n"
                  "  leaves: i, j, k.outer (reduce), k.inner (reduce)\n"
                  "  split k by 4 -> k.outer, k.inner\n"
                  "  attach: root\n");
  expect_same_values(f->s, f->out);
}

/* Only the listed readers read the cache. */
static void test_cache_read_some_readers(void **state) {
  fixture *f = *state;
  f->out = example_conv2d_bias_relu(f->c, 1, 2, 4, 4, 3, f->in);
  assert_int_equal(tvm_schedule_create(f->c, &f->out, 1, &f->s), TVM_OK);
  tvm_tensor *cl;
  /* Out reads Conv; cache it for Out only */
  assert_int_equal(tvm_cache_read(f->s, f->in[4], "local", &f->out->op, 1,
                                  &cl),
                   TVM_OK);
  tvm_stage *cst = tvm_stage_of(f->s, cl);
  assert_ptr_equal(f->s->stages.data[4], cst);
  assert_string_equal(((tvm_stage *)f->s->stages.data[3])->op->name, "Conv");
  tvm_ptrvec in = {0};
  assert_int_equal(tvm_op_inputs(tvm_stage_of(f->s, f->out)->op, &in), TVM_OK);
  assert_ptr_equal(in.data[0], cl);
  tvm_ptrvec_free(&in);
  expect_same_values(f->s, f->out);
  /* errors: a reader that does not read the tensor, one not in the
   * schedule, no scope, no readers */
  tvm_tensor *t;
  expect_error(tvm_cache_read(f->s, f->in[0], "shared", &f->out->op, 1, &t),
               "stage Out does not read A", NULL);
  tvm_tensor *in2[2];
  tvm_tensor *other = example_matmul(f->c, 2, 2, 2, in2);
  expect_error(tvm_cache_read(f->s, f->in[0], "shared", &other->op, 1, &t),
               "reader C is not", NULL);
  expect_error(tvm_cache_read(f->s, f->in[0], "", &f->out->op, 1, &t),
               "memory scope", NULL);
  expect_error(tvm_cache_read(f->s, f->in[0], "shared", NULL, 0, &t),
               "tensor A", NULL);
  expect_error(tvm_cache_read(f->s, other, "shared", &f->out->op, 1, &t),
               "tensor C is not computed", NULL);
  assert_int_equal(f->s->stages.len, 7);
}

/* ---- cache_write ------------------------------------------------------- */
static void test_cache_write(void **state) {
  fixture *f = *state;
  tvm_stage *st = matmul_schedule(f, 16, 16, 8);
  tvm_iter_var *i = tvm_stage_axis(st, 0), *j = tvm_stage_axis(st, 1);
  tvm_tensor *CL, *AL;
  assert_int_equal(tvm_cache_write(f->s, f->out, "local", &CL), TVM_OK);
  assert_string_equal(CL->name, "C.local");
  /* C keeps its data axes (same iter vars), loses the reduction */
  assert_ptr_equal(tvm_stage_axis(st, 0), i);
  assert_ptr_equal(tvm_stage_axis(st, 1), j);
  assert_int_equal(st->leaf_iter_vars.len, 2);
  assert_int_equal(st->op->nreduce, 0);
  assert_ptr_equal(st->op->output, f->out);
  tvm_stage *cst = tvm_stage_of(f->s, CL);
  assert_string_equal(cst->scope, "local");
  assert_ptr_not_equal(tvm_stage_axis(cst, 0), i);
  assert_int_equal(cst->op->nreduce, 1);
  assert_ptr_not_equal(cst->op->reduce_axis[0], f->out->op->reduce_axis[0]);
  /* the usual GPU/CPU pattern: tile C, compute the cache per tile */
  tvm_iter_var *xo, *yo, *xi, *yi, *ko, *ki;
  assert_int_equal(tvm_tile(st, i, j, 4, 4, &xo, &yo, &xi, &yi), TVM_OK);
  assert_int_equal(tvm_compute_at(cst, st, yo), TVM_OK);
  assert_int_equal(tvm_split(cst, tvm_stage_reduce_axis(cst, 0), 2, &ko, &ki),
                   TVM_OK);
  assert_int_equal(tvm_reorder(cst, (tvm_iter_var *[]){ko, ki,
                                                       tvm_stage_axis(cst, 0),
                                                       tvm_stage_axis(cst, 1)},
                               4),
                   TVM_OK);
  assert_int_equal(tvm_cache_read(f->s, f->in[0], "local", &cst->op, 1, &AL),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(f->s, AL), cst, ki), TVM_OK);
  expect_schedule(f->s,
                  "stage A: placeholder float32[16, 8]\n"
                  "stage A.local: compute float32[16, 8] scope=local\n"
                  "  body: A(i, j)\n"
                  "  leaves: i, j\n"
                  "  attach: at C.local.k.inner\n"
                  "stage B: placeholder float32[8, 16]\n"
                  "stage C.local: compute float32[16, 16] scope=local\n"
                  "  body: sum(A.local(i, k) * B(k, j), axis=[k])\n"
                  "  leaves: k.outer (reduce), k.inner (reduce), i, j\n"
                  "  split k by 2 -> k.outer, k.inner\n"
                  "  attach: at C.j.outer\n"
                  "stage C: compute float32[16, 16] output\n"
                  "  body: C.local(i, j)\n"
                  "  leaves: i.outer, j.outer, i.inner, j.inner\n"
                  "  split i by 4 -> i.outer, i.inner\n"
                  "  split j by 4 -> j.outer, j.inner\n"
                  "  attach: root\n");
  expect_same_values(f->s, f->out);
}

static void test_cache_write_errors(void **state) {
  fixture *f = *state;
  tvm_stage *st = matmul_schedule(f, 16, 16, 8);
  tvm_tensor *t;
  tvm_iter_var *o, *in;
  expect_error(tvm_cache_write(f->s, f->in[0], "local", &t), "stage A",
               "placeholder");
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 4, &o, &in), TVM_OK);
  expect_error(tvm_cache_write(f->s, f->out, "local", &t), "stage C",
               "already split");
  expect_error(tvm_cache_write(f->s, f->out, NULL, &t), "tensor C",
               "memory scope");
  assert_int_equal(f->s->stages.len, 3);
}

/* ---- rfactor ---------------------------------------------------------- */
/* R[i] = sum_k X[i, k] (or max), k of extent kext */
static tvm_expr *rowsum_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *X = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, X->shape_c[1]);
  return tvm_sum(c, TVM_AT(c, X, i[0], k->var), &k, 1);
}

static tvm_expr *rowmax_where_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *X = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 1, X->shape_c[1] - 1);
  tvm_expr *cond = tvm_ne(c, tvm_floormod(c, k->var, tvm_int(c, 3)),
                          tvm_int(c, 0));
  return tvm_reduce(c, TVM_REDUCE_MAX, TVM_AT(c, X, i[0], k->var), &k, 1,
                    cond);
}

static tvm_stage *rowsum_schedule(fixture *f, int64_t rows, int64_t kext,
                                  tvm_compute_fn fn) {
  f->in[0] = tvm_placeholder(f->c, "X", TVM_F32, (int64_t[]){rows, kext}, 2);
  f->out = tvm_compute(f->c, "R", (int64_t[]){rows}, 1, fn, f->in[0]);
  assert_non_null(f->out);
  assert_int_equal(tvm_schedule_create(f->c, &f->out, 1, &f->s), TVM_OK);
  return tvm_stage_of(f->s, f->out);
}

/* The common case: split k, factor out the inner part (with a guard, as
 * 8 does not divide 100). */
static void test_rfactor_split(void **state) {
  fixture *f = *state;
  tvm_stage *st = rowsum_schedule(f, 4, 100, rowsum_body);
  tvm_iter_var *ko, *ki, *i = tvm_stage_axis(st, 0);
  tvm_tensor *rf;
  assert_int_equal(tvm_split(st, tvm_stage_reduce_axis(st, 0), 8, &ko, &ki),
                   TVM_OK);
  assert_int_equal(tvm_rfactor(f->s, f->out, ki, 1, &rf), TVM_OK);
  assert_string_equal(rf->name, "R.rf");
  assert_int_equal(rf->ndim, 2);
  assert_int_equal(rf->shape_c[0], 4);
  assert_int_equal(rf->shape_c[1], 8);
  assert_ptr_equal(tvm_stage_axis(st, 0), i);
  assert_ptr_equal(tvm_stage_of(f->s, rf), f->s->stages.data[1]);
  expect_schedule(f->s,
                  "stage X: placeholder float32[4, 100]\n"
                  "stage R.rf: compute float32[4, 8]\n"
                  "  body: sum(X(i, k.outer * 8 + k.inner), axis=[k.outer], "
                  "where=k.outer * 8 + k.inner < 100)\n"
                  "  leaves: i, k.inner, k.outer (reduce)\n"
                  "  attach: root\n"
                  "stage R: compute float32[4] output\n"
                  "  body: sum(R.rf(i, k.inner.v), axis=[k.inner.v])\n"
                  "  leaves: i, k.inner.v (reduce)\n"
                  "  attach: root\n");
  expect_same_values(f->s, f->out);
  /* the new stages schedule like any other */
  tvm_stage *rst = tvm_stage_of(f->s, rf);
  assert_int_equal(tvm_compute_at(rst, st, i), TVM_OK);
  assert_int_equal(tvm_vectorize(rst, tvm_stage_axis(rst, 1)), TVM_OK);
}

/* Factoring the outer part (nparts split) and the whole axis, with the
 * factor axis first; a max reduction with a condition. */
static void test_rfactor_variants(void **state) {
  fixture *f = *state;
  tvm_stage *st = rowsum_schedule(f, 3, 50, rowsum_body);
  tvm_iter_var *ko, *ki;
  tvm_tensor *rf;
  assert_int_equal(
      tvm_split_nparts(st, tvm_stage_reduce_axis(st, 0), 3, &ko, &ki), TVM_OK);
  assert_int_equal(tvm_rfactor(f->s, f->out, ko, 0, &rf), TVM_OK);
  assert_int_equal(rf->shape_c[0], 3);
  assert_int_equal(rf->shape_c[1], 3);
  assert_string_equal(rf->op->axis[0]->var->u.var.name, "k.outer");
  expect_same_values(f->s, f->out);
  tvm_schedule_free(f->s);
  f->s = NULL;

  st = rowsum_schedule(f, 3, 20, rowmax_where_body);
  assert_int_equal(tvm_rfactor(f->s, f->out, tvm_stage_reduce_axis(st, 0), 0,
                               &rf),
                   TVM_OK);
  assert_int_equal(rf->shape_c[0], 19);
  assert_int_equal(rf->op->nreduce, 0);
  assert_int_equal(rf->op->body->kind, TVM_SELECT);
  expect_same_values(f->s, f->out);
}

/* Two levels of splits, and a reduction over three axes (conv2d). */
static void test_rfactor_nested_and_conv(void **state) {
  fixture *f = *state;
  tvm_stage *st = rowsum_schedule(f, 2, 60, rowsum_body);
  tvm_iter_var *ko, *ki, *kio, *kii;
  tvm_tensor *rf;
  assert_int_equal(tvm_split(st, tvm_stage_reduce_axis(st, 0), 16, &ko, &ki),
                   TVM_OK);
  assert_int_equal(tvm_split(st, ki, 4, &kio, &kii), TVM_OK);
  assert_int_equal(tvm_rfactor(f->s, f->out, kii, 1, &rf), TVM_OK);
  assert_int_equal(rf->shape_c[1], 4);
  assert_int_equal(rf->op->nreduce, 2);
  expect_same_values(f->s, f->out);
  tvm_schedule_free(f->s);
  f->s = NULL;

  f->out = example_conv2d(f->c, 1, 4, 3, 3, 2, f->in);
  assert_int_equal(tvm_schedule_create(f->c, &f->out, 1, &f->s), TVM_OK);
  st = tvm_stage_of(f->s, f->out);
  tvm_iter_var *rco, *rci;
  assert_int_equal(tvm_split(st, tvm_stage_reduce_axis(st, 0), 2, &rco, &rci),
                   TVM_OK);
  assert_int_equal(tvm_rfactor(f->s, f->out, rci, 4, &rf), TVM_OK);
  assert_int_equal(rf->ndim, 5);
  assert_int_equal(rf->shape_c[4], 2);
  assert_int_equal(rf->op->nreduce, 3); /* rc.outer, ry, rx */
  expect_same_values(f->s, f->out);
}

static void test_rfactor_errors(void **state) {
  fixture *f = *state;
  tvm_stage *st = rowsum_schedule(f, 4, 32, rowsum_body);
  tvm_iter_var *i = tvm_stage_axis(st, 0), *k = tvm_stage_reduce_axis(st, 0);
  tvm_iter_var *ko, *ki, *fz;
  tvm_tensor *rf;
  expect_error(tvm_rfactor(f->s, f->out, i, 0, &rf), "stage R", "data axis");
  expect_error(tvm_rfactor(f->s, f->out, k, 2, &rf), "stage R",
               "factor_axis 2");
  expect_error(tvm_rfactor(f->s, f->in[0], k, 0, &rf), "stage X",
               "not a reduction");
  assert_int_equal(tvm_split(st, k, 8, &ko, &ki), TVM_OK);
  expect_error(tvm_rfactor(f->s, f->out, k, 0, &rf), "stage R",
               "axis k is not a leaf");
  assert_int_equal(tvm_fuse(st, ko, ki, &fz), TVM_OK);
  expect_error(tvm_rfactor(f->s, f->out, fz, 0, &rf), "stage R", "fused");
  assert_int_equal(f->s->stages.len, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cache_read, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cache_read_some_readers, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cache_write, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cache_write_errors, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_rfactor_split, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rfactor_variants, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rfactor_nested_and_conv, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_rfactor_errors, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
