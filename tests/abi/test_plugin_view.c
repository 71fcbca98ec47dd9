/*
 * tests/abi/test_plugin_view.c - the accessors through which plugins read
 * the core structs that are not frozen (tvm_gnode for alter_layout,
 * tvm_stage for strategies): values on a real node and stage, and
 * "absent" answers for NULL and out-of-range indexes; a node's layout
 * knobs are there only while alter_layout asks about that node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "tvm/graph.h"
#include "tvm/graph_passes.h"
#include "tvm/schedule.h"

/* A Conv node with a constant weight and no bias. */
static void test_gnode_view(void **state) {
  tvm_graph *g = NULL;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  int64_t xs[4] = {1, 3, 8, 8}, ws[4] = {4, 3, 3, 3};
  float w[108] = {0};
  tvm_gvalue *x = tvm_graph_input(g, "x", TVM_F32, xs, 4);
  tvm_gvalue *wv = tvm_graph_const(g, "w", TVM_F32, ws, 4, w);
  tvm_gnode *n = NULL;
  tvm_gattr a = tvm_gattr_int("group", 1);
  assert_non_null(tvm_graph_apply(g, "Conv", "conv0", (tvm_gvalue *[]){x, wv},
                                  2, &a, 1, 1, &n));
  assert_string_equal(tvm_gnode_op_name(n), "Conv");
  assert_string_equal(tvm_gnode_name(n), "conv0");
  assert_int_equal(tvm_gnode_num_inputs(n), 2);
  assert_int_equal(tvm_gnode_num_outputs(n), 1);
  int64_t sh[TVM_MAX_DIMS];
  assert_int_equal(tvm_gnode_input_shape(n, 1, sh), 4);
  assert_int_equal(sh[0], 4);
  assert_int_equal(sh[3], 3);
  assert_int_equal(tvm_gnode_output_shape(n, 0, sh), 4);
  assert_int_equal(sh[1], 4);
  assert_int_equal(sh[2], 6);
  tvm_dtype t = TVM_I8;
  assert_int_equal(tvm_gnode_input_dtype(n, 0, &t), 0);
  assert_true(tvm_dtype_eq(t, TVM_F32));
  assert_int_equal(tvm_gnode_output_dtype(n, 0, &t), 0);
  assert_true(tvm_dtype_eq(t, TVM_F32));
  assert_int_equal(tvm_gnode_input_is_const(n, 0), 0);
  assert_int_equal(tvm_gnode_input_is_const(n, 1), 1);
  assert_null(tvm_gnode_input_layout(n, 0));
  assert_int_equal(tvm_gnode_int(n, "group", 7), 1);
  /* absent */
  assert_int_equal(tvm_gnode_input_shape(n, 2, sh), -1);
  assert_int_equal(tvm_gnode_input_shape(n, -1, NULL), -1);
  assert_int_equal(tvm_gnode_output_dtype(n, 1, &t), -1);
  assert_int_equal(tvm_gnode_input_is_const(n, 5), 0);
  assert_string_equal(tvm_gnode_op_name(NULL), "");
  assert_int_equal(tvm_gnode_num_inputs(NULL), 0);
  /* layout knobs: only for the node alter_layout is asking about */
  struct tvm_config *cfg = (struct tvm_config *)&a; /* any pointer */
  assert_null(tvm_gnode_layout_config(n));
  tvm_gnode_layout_config_set(n, cfg);
  assert_ptr_equal(tvm_gnode_layout_config(n), cfg);
  assert_null(tvm_gnode_layout_config(NULL));
  tvm_gnode_layout_config_set(NULL, cfg);
  assert_null(tvm_gnode_layout_config(n));
  tvm_graph_free(g);
}

/* C[i, j] = sum_k A[i, k]: one data axis pair, one reduce axis. */
static tvm_expr *rowsum(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *a = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, 5);
  return tvm_sum(c, TVM_AT(c, a, i[0], k->var), &k, 1);
}

static void test_stage_view(void **state) {
  tvm_ctx *c = tvm_ctx_create();
  int64_t sa[2] = {3, 5}, so[1] = {3};
  tvm_tensor *a = tvm_placeholder(c, "A", TVM_F32, sa, 2);
  tvm_tensor *o = tvm_compute(c, "O", so, 1, rowsum, a);
  tvm_schedule *s = NULL;
  assert_int_equal(tvm_schedule_create(c, &o, 1, &s), TVM_OK);
  tvm_stage *st = tvm_stage_of(s, o);
  assert_ptr_equal(tvm_stage_op(st), o->op);
  assert_int_equal(tvm_stage_num_axes(st), 1);
  assert_int_equal(tvm_stage_num_reduce_axes(st), 1);
  assert_non_null(tvm_stage_reduce_axis(st, 0));
  tvm_stage *sp = tvm_stage_of(s, a);
  if (sp) assert_int_equal(tvm_stage_num_axes(sp), 0); /* a placeholder */
  assert_null(tvm_stage_op(NULL));
  assert_int_equal(tvm_stage_num_reduce_axes(NULL), 0);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gnode_view),
      cmocka_unit_test(test_stage_view),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
