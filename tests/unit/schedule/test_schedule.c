/*
 * tests/unit/schedule/test_schedule.c - building schedules and the loop
 * primitives (split, tile, fuse, reorder), placement (compute_at, inline,
 * root) and annotations, checked on the printed schedule; and every
 * error path of those primitives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sched_test.h"


static void test_create(void **state) {
  fixture *f = *state;
  tvm_stage *st = matmul_schedule(f, 64, 64, 32);
  assert_int_equal(f->s->stages.len, 3);
  assert_ptr_equal(f->s->stages.data[2], st);
  assert_ptr_equal(st->op, f->out->op);
  assert_ptr_equal(st->origin_op, f->out->op);
  assert_int_equal(st->is_output, 1);
  assert_int_equal(st->attach, TVM_ATTACH_ROOT);
  assert_int_equal(st->leaf_iter_vars.len, 3);
  assert_ptr_equal(st->leaf_iter_vars.data[2], f->out->op->reduce_axis[0]);
  assert_ptr_equal(tvm_stage_axis(st, 1), f->out->op->axis[1]);
  assert_ptr_equal(tvm_stage_reduce_axis(st, 0), f->out->op->reduce_axis[0]);
  assert_null(tvm_stage_axis(st, 2));
  assert_null(tvm_stage_reduce_axis(st, 1));
  tvm_stage *sa = tvm_stage_of(f->s, f->in[0]);
  assert_ptr_equal(f->s->stages.data[0], sa);
  assert_int_equal(sa->is_output, 0);
  assert_int_equal(sa->leaf_iter_vars.len, 0);
  expect_schedule(f->s,
                  "stage A: placeholder float32[64, 32]\n"
                  "stage B: placeholder float32[32, 64]\n"
                  "stage C: compute float32[64, 64] output\n"
                  "  body: sum(A(i, k) * B(k, j), axis=[k])\n"
                  "  leaves: i, j, k (reduce)\n"
                  "  attach: root\n");
}

/* Producers come before consumers even when an input is shared. */
static void test_create_order(void **state) {
  fixture *f = *state;
  f->out = example_conv2d_bias_relu(f->c, 1, 4, 8, 8, 8, f->in);
  assert_int_equal(tvm_schedule_create(f->c, &f->out, 1, &f->s), TVM_OK);
  const char *want[] = {"A", "Apad", "W", "Conv", "bias", "Out"};
  assert_int_equal(f->s->stages.len, 6);
  for (int i = 0; i < 6; i++)
    assert_string_equal(((tvm_stage *)f->s->stages.data[i])->op->name,
                        want[i]);
  /* two outputs: both marked, each stage once */
  tvm_schedule *s2;
  tvm_tensor *outs[2] = {f->out, f->in[4]};
  assert_int_equal(tvm_schedule_create(f->c, outs, 2, &s2), TVM_OK);
  assert_int_equal(s2->stages.len, 6);
  assert_int_equal(tvm_stage_of(s2, f->in[4])->is_output, 1);
  assert_int_equal(tvm_stage_of(s2, f->in[2])->is_output, 0);
  tvm_schedule_free(s2);
}

static void test_split(void **state) {
  fixture *f = *state;
  tvm_stage *st = matmul_schedule(f, 64, 64, 32);
  tvm_iter_var *io, *ii, *ko, *ki;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 8, &io, &ii), TVM_OK);
  assert_int_equal(
      tvm_split_nparts(st, tvm_stage_reduce_axis(st, 0), 4, &ko, &ki), TVM_OK);
  assert_int_equal(io->kind, TVM_IV_DATA_PAR);
  assert_int_equal(ki->kind, TVM_IV_REDUCE);
  assert_null(io->dom.extent);
  assert_int_equal(st->all_iter_vars.len, 7);
  tvm_iv_relation *r = st->relations.data[0];
  assert_int_equal(r->kind, TVM_REL_SPLIT);
  assert_ptr_equal(r->parent, tvm_stage_axis(st, 0));
  assert_ptr_equal(r->outer, io);
  assert_ptr_equal(r->inner, ii);
  assert_true(tvm_is_const_int(r->factor, &(int64_t){0}));
  assert_null(r->nparts);
  r = st->relations.data[1];
  assert_null(r->factor);
  assert_non_null(r->nparts);
  expect_schedule(f->s,
                  "stage A: placeholder float32[64, 32]\n"
                  "stage B: placeholder float32[32, 64]\n"
                  "stage C: compute float32[64, 64] output\n"
                  "  body: sum(A(i, k) * B(k, j), axis=[k])\n"
                  "  leaves: i.outer, i.inner, j, k.outer (reduce), "
                  "k.inner (reduce)\n"
                  "  split i by 8 -> i.outer, i.inner\n"
                  "  split k into 4 parts -> k.outer, k.inner\n"
                  "  attach: root\n");
}

static void test_tile_fuse_reorder(void **state) {
  fixture *f = *state;
  tvm_stage *st = matmul_schedule(f, 64, 64, 32);
  tvm_iter_var *xo, *yo, *xi, *yi, *fused;
  tvm_iter_var *k = tvm_stage_reduce_axis(st, 0);
  assert_int_equal(tvm_tile(st, tvm_stage_axis(st, 0), tvm_stage_axis(st, 1),
                            16, 8, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_fuse(st, xo, yo, &fused), TVM_OK);
  assert_int_equal(fused->kind, TVM_IV_DATA_PAR);
  tvm_iv_relation *r = st->relations.data[2];
  assert_int_equal(r->kind, TVM_REL_FUSE);
  assert_ptr_equal(r->outer, xo);
  assert_ptr_equal(r->inner, yo);
  assert_ptr_equal(r->fused, fused);
  /* leaves: fused, xi, yi, k -> fused, k, yi, xi */
  assert_int_equal(tvm_reorder(st, (tvm_iter_var *[]){k, yi, xi}, 3), TVM_OK);
  expect_schedule(f->s,
                  "stage A: placeholder float32[64, 32]\n"
                  "stage B: placeholder float32[32, 64]\n"
                  "stage C: compute float32[64, 64] output\n"
                  "  body: sum(A(i, k) * B(k, j), axis=[k])\n"
                  "  leaves: i.outer.j.outer.fused, k (reduce), j.inner, "
                  "i.inner\n"
                  "  split i by 16 -> i.outer, i.inner\n"
                  "  split j by 8 -> j.outer, j.inner\n"
                  "  fuse i.outer, j.outer -> i.outer.j.outer.fused\n"
                  "  attach: root\n");
  /* a partial reorder keeps the others in place */
  assert_int_equal(tvm_reorder(st, (tvm_iter_var *[]){xi, fused}, 2), TVM_OK);
  assert_ptr_equal(st->leaf_iter_vars.data[0], xi);
  assert_ptr_equal(st->leaf_iter_vars.data[1], k);
  assert_ptr_equal(st->leaf_iter_vars.data[2], yi);
  assert_ptr_equal(st->leaf_iter_vars.data[3], fused);
  /* fusing a data axis with a reduce axis gives a reduce axis */
  tvm_iter_var *f2;
  assert_int_equal(tvm_fuse(st, xi, k, &f2), TVM_OK);
  assert_int_equal(f2->kind, TVM_IV_REDUCE);
  assert_int_equal(st->leaf_iter_vars.len, 3);
}

/* conv2d + bias + relu: pad inlined, conv computed at the tile of the
 * fused output, bias-relu vectorized and parallel. */
static void test_placement_and_annotations(void **state) {
  fixture *f = *state;
  f->out = example_conv2d_bias_relu(f->c, 1, 4, 8, 8, 8, f->in);
  assert_int_equal(tvm_schedule_create(f->c, &f->out, 1, &f->s), TVM_OK);
  tvm_stage *pad = tvm_stage_of(f->s, f->in[2]);
  tvm_stage *conv = tvm_stage_of(f->s, f->in[4]);
  tvm_stage *out = tvm_stage_of(f->s, f->out);
  tvm_iter_var *yo, *xo, *yi, *xi, *nf;
  assert_int_equal(tvm_compute_inline(pad), TVM_OK);
  assert_int_equal(tvm_tile(out, tvm_stage_axis(out, 2), tvm_stage_axis(out, 3),
                            4, 4, &yo, &xo, &yi, &xi),
                   TVM_OK);
  assert_int_equal(tvm_fuse(out, tvm_stage_axis(out, 0),
                            tvm_stage_axis(out, 1), &nf),
                   TVM_OK);
  assert_int_equal(tvm_parallel(out, nf), TVM_OK);
  assert_int_equal(tvm_vectorize(out, xi), TVM_OK);
  assert_int_equal(tvm_pragma(out, yo, "auto_unroll_max_step",
                              tvm_int(f->c, 16)),
                   TVM_OK);
  assert_int_equal(tvm_pragma(out, yo, "debug", NULL), TVM_OK);
  assert_int_equal(tvm_compute_at(conv, out, xo), TVM_OK);
  assert_int_equal(tvm_unroll(conv, tvm_stage_reduce_axis(conv, 2)), TVM_OK);
  assert_int_equal(tvm_storage_align(conv, tvm_stage_axis(conv, 2), 16, 1),
                   TVM_OK);
  assert_int_equal(conv->attach, TVM_ATTACH_SCOPE);
  assert_ptr_equal(conv->attach_stage, out);
  assert_ptr_equal(conv->attach_ivar, xo);
  tvm_iv_attr *a = tvm_stage_iv_attr(out, xi);
  assert_int_equal(a->for_kind, TVM_FOR_VECTORIZED);
  a = tvm_stage_iv_attr(out, yo);
  assert_int_equal(a->npragmas, 2);
  assert_string_equal(a->pragmas[0].key, "auto_unroll_max_step");
  assert_null(a->pragmas[1].value);
  expect_schedule(f->s,
                  "stage A: placeholder float32[1, 4, 8, 8]\n"
                  "stage Apad: compute float32[1, 4, 10, 10]\n"
                  "  body: select(k - 1 >= 0 && k - 1 < 8 && (l - 1 >= 0 && "
                  "l - 1 < 8), A(i, j, max(min(k - 1, 7), 0), "
                  "max(min(l - 1, 7), 0)), 0.0f)\n"
                  "  leaves: i, j, k, l\n"
                  "  attach: inline\n"
                  "stage W: placeholder float32[8, 4, 3, 3]\n"
                  "stage Conv: compute float32[1, 8, 8, 8]\n"
                  "  body: sum(Apad(i, rc, k + ry, l + rx) * W(j, rc, ry, rx), "
                  "axis=[rc, ry, rx])\n"
                  "  leaves: i, j, k, l, rc (reduce), ry (reduce), "
                  "rx (reduce, unroll)\n"
                  "  storage_align k: factor 16, offset 1\n"
                  "  attach: at Out.l.outer\n"
                  "stage bias: placeholder float32[8]\n"
                  "stage Out: compute float32[1, 8, 8, 8] output\n"
                  "  body: max(Conv(i, j, k, l) + bias(j), 0.0f)\n"
                  "  leaves: i.j.fused (parallel), k.outer (pragma "
                  "auto_unroll_max_step=16, pragma debug), l.outer, k.inner, "
                  "l.inner (vectorize)\n"
                  "  split k by 4 -> k.outer, k.inner\n"
                  "  split l by 4 -> l.outer, l.inner\n"
                  "  fuse i, j -> i.j.fused\n"
                  "  attach: root\n");
  /* back to the root */
  assert_int_equal(tvm_compute_root(conv), TVM_OK);
  assert_int_equal(conv->attach, TVM_ATTACH_ROOT);
  assert_null(conv->attach_stage);
}

static tvm_status emit_nothing(tvm_ctx *c, const tvm_tensor_intrin *ti,
                               tvm_buffer **inputs, int ninputs,
                               tvm_buffer *output, tvm_stmt **body,
                               tvm_stmt **reset, tvm_stmt **update) {
  return TVM_OK;
}

/* GPU-style: bind block and thread axes, a virtual thread, tensorize,
 * double buffer. */
static void test_bind_tensorize(void **state) {
  fixture *f = *state;
  tvm_stage *st = matmul_schedule(f, 64, 64, 16);
  tvm_iter_var *bx = tvm_thread_axis(f->c, "blockIdx.x", NULL);
  tvm_iter_var *tx = tvm_thread_axis(f->c, "threadIdx.x", NULL);
  tvm_iter_var *vt = tvm_thread_axis(f->c, "vthread", tvm_int(f->c, 2));
  tvm_iter_var *io, *ii, *jo, *ji;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 16, &io, &ii), TVM_OK);
  assert_int_equal(tvm_split_nparts(st, tvm_stage_axis(st, 1), 2, &jo, &ji),
                   TVM_OK);
  assert_int_equal(tvm_bind(st, io, bx), TVM_OK);
  assert_int_equal(tvm_bind(st, ii, tx), TVM_OK);
  assert_int_equal(tvm_bind(st, jo, vt), TVM_OK);
  tvm_tensor *pin[2];
  tvm_tensor *pat = example_matmul(f->c, 1, 32, 16, pin);
  tvm_tensor_intrin *gemv = tvm_tensor_intrin_new(f->c, "gemv", pat,
                                                  emit_nothing, NULL);
  assert_non_null(gemv);
  assert_int_equal(tvm_tensorize(st, ji, gemv), TVM_OK);
  tvm_iv_attr *a = tvm_stage_iv_attr(st, ii);
  assert_ptr_equal(a->bind_thread, tx);
  assert_int_equal(a->for_kind, TVM_FOR_THREAD);
  assert_int_equal(tvm_stage_iv_attr(st, jo)->for_kind, TVM_FOR_VTHREAD);
  assert_ptr_equal(tvm_stage_iv_attr(st, ji)->tensorize, gemv);
  assert_int_equal(tvm_double_buffer(st), TVM_OK);
  expect_schedule(f->s,
                  "stage A: placeholder float32[64, 16]\n"
                  "stage B: placeholder float32[16, 64]\n"
                  "stage C: compute float32[64, 64] output double_buffer\n"
                  "  body: sum(A(i, k) * B(k, j), axis=[k])\n"
                  "  leaves: i.outer (bind blockIdx.x), i.inner (bind "
                  "threadIdx.x), j.outer (bind vthread), j.inner (tensorize "
                  "gemv), k (reduce)\n"
                  "  split i by 16 -> i.outer, i.inner\n"
                  "  split j into 2 parts -> j.outer, j.inner\n"
                  "  attach: root\n");
}

/* ---- errors: each names the stage (and the axis) ---------------------- */
static void test_errors_loops(void **state) {
  fixture *f = *state;
  tvm_stage *st = matmul_schedule(f, 64, 64, 32);
  tvm_iter_var *i = tvm_stage_axis(st, 0), *j = tvm_stage_axis(st, 1);
  tvm_iter_var *k = tvm_stage_reduce_axis(st, 0);
  tvm_iter_var *io, *ii, *fz;
  assert_int_equal(tvm_split(st, i, 8, &io, &ii), TVM_OK);
  /* split of an axis that is no longer a leaf */
  expect_error(tvm_split(st, i, 4, NULL, NULL), "stage C", "axis i is not a leaf");
  assert_non_null(strstr(tvm_diag_message(), "split or fused already"));
  expect_error(tvm_split(st, j, 0, NULL, NULL), "stage C", "positive");
  expect_error(tvm_split_nparts(st, j, -1, NULL, NULL), "stage C", "positive");
  expect_error(tvm_tile(st, i, j, 4, 4, NULL, NULL, NULL, NULL), "stage C",
               "axis i");
  /* fuse of non-adjacent axes: i.outer, i.inner, j, k */
  expect_error(tvm_fuse(st, io, j, &fz), "stage C", "not adjacent");
  expect_error(tvm_fuse(st, ii, io, &fz), "stage C", "not adjacent");
  expect_error(tvm_fuse(st, i, j, &fz), "stage C", "axis i is not a leaf");
  /* reorder: non-leaf, duplicates */
  expect_error(tvm_reorder(st, (tvm_iter_var *[]){k, i}, 2), "stage C",
               "axis i");
  expect_error(tvm_reorder(st, (tvm_iter_var *[]){k, k}, 2), "stage C",
               "listed twice");
  /* an axis of another stage */
  tvm_tensor *in2[2];
  tvm_tensor *other = example_matmul(f->c, 4, 4, 4, in2);
  expect_error(tvm_split(st, other->op->axis[0], 2, NULL, NULL), "stage C",
               "another stage");
  /* nothing changed */
  assert_int_equal(st->leaf_iter_vars.len, 4);
  assert_int_equal(st->relations.len, 1);
}

static void test_errors_placement(void **state) {
  fixture *f = *state;
  f->out = example_conv2d_bias_relu(f->c, 1, 4, 8, 8, 8, f->in);
  assert_int_equal(tvm_schedule_create(f->c, &f->out, 1, &f->s), TVM_OK);
  tvm_stage *a = tvm_stage_of(f->s, f->in[0]);
  tvm_stage *conv = tvm_stage_of(f->s, f->in[4]);
  tvm_stage *out = tvm_stage_of(f->s, f->out);
  tvm_iter_var *yo, *yi;
  /* inline of a reduction, of an output, of a placeholder */
  expect_error(tvm_compute_inline(conv), "stage Conv", "reduction");
  expect_error(tvm_compute_inline(out), "stage Out", "output");
  expect_error(tvm_compute_inline(a), "stage A", "placeholder");
  /* compute_at a non-leaf axis, its own axis, placeholder */
  tvm_iter_var *y = tvm_stage_axis(out, 2);
  assert_int_equal(tvm_split(out, y, 2, &yo, &yi), TVM_OK);
  expect_error(tvm_compute_at(conv, out, y), "stage Conv", "stage Out");
  assert_non_null(strstr(tvm_diag_message(), "axis k is not a leaf"));
  expect_error(tvm_compute_at(conv, conv, tvm_stage_axis(conv, 0)),
               "stage Conv", "own axis");
  expect_error(tvm_compute_at(a, out, yo), "stage A", "placeholder");
  assert_int_equal(conv->attach, TVM_ATTACH_ROOT);
  expect_error(tvm_compute_root(a), "stage A", NULL);
}

static void test_errors_annotations(void **state) {
  fixture *f = *state;
  tvm_stage *st = matmul_schedule(f, 64, 64, 32);
  tvm_iter_var *i = tvm_stage_axis(st, 0), *k = tvm_stage_reduce_axis(st, 0);
  tvm_iter_var *io, *ii;
  assert_int_equal(tvm_split(st, i, 8, &io, &ii), TVM_OK);
  expect_error(tvm_vectorize(st, i), "stage C", "axis i is not a leaf");
  expect_error(tvm_vectorize(st, k), "stage C", "reduction axis");
  expect_error(tvm_parallel(st, k), "stage C", "reduction axis");
  expect_error(tvm_unroll(st, i), "stage C", "axis i");
  expect_error(tvm_bind(st, io, ii), "stage C", "not a thread axis");
  expect_error(tvm_bind(st, i, tvm_thread_axis(f->c, "threadIdx.x", NULL)),
               "stage C", "axis i");
  expect_error(tvm_pragma(st, io, "", NULL), "stage C", "key");
  expect_error(tvm_pragma(st, i, "x", NULL), "stage C", "axis i");
  expect_error(tvm_storage_align(st, k, 8, 0), "stage C", "axis k");
  expect_error(tvm_storage_align(st, tvm_stage_axis(st, 1), 0, 0), "stage C",
               "factor");
  expect_error(tvm_tensorize(st, ii, NULL), "stage C", "intrinsic");
  expect_error(tvm_double_buffer(tvm_stage_of(f->s, f->in[0])), "stage A",
               "placeholder");
  /* unrolling a reduction is fine */
  assert_int_equal(tvm_unroll(st, k), TVM_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_create, setup, teardown),
      cmocka_unit_test_setup_teardown(test_create_order, setup, teardown),
      cmocka_unit_test_setup_teardown(test_split, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tile_fuse_reorder, setup, teardown),
      cmocka_unit_test_setup_teardown(test_placement_and_annotations, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_bind_tensorize, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors_loops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors_placement, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors_annotations, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
