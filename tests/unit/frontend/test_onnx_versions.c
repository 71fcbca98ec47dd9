/*
 * tests/unit/frontend/test_onnx_versions.c - operator versions: old forms
 * the operators do not implement are refused naming the node, the
 * operator, the version and the fix; old forms that map onto current ones
 * (Cast-1's string type, Concat-1's default axis) import and compute.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "tvm/graph_passes.h"
#include "tvm/onnx.h"

#include "onnx_mb.h"

/* Legacy broadcasting (opset 6, broadcast = 1) is refused with the
 * version and the fix; without the attribute opset 6 Add loads. */
static void test_legacy_broadcast(void **state) {
  (void)state;
  mb b;
  int64_t d[2] = {2, 3}, d3[1] = {3};
  for (int legacy = 1; legacy >= 0; legacy--) {
    mb_init(&b, 6);
    mb_input(&b, "a", F, 2, d);
    mb_input(&b, "b", F, legacy ? 1 : 2, legacy ? d3 : d);
    Onnx__NodeProto *n = mb_node(&b, "Add", "add", NAMES("a", "b"),
                                 NAMES("y"));
    if (legacy)
      mb_attr_i(&b, n, "broadcast", 1);
    mb_output(&b, "y", F, 2, d);
    tvm_graph *g;
    tvm_status st = mb_load(&b, NULL, &g);
    if (legacy) {
      assert_int_equal(st, TVM_ERR_UNSUPPORTED);
      assert_diag_has("node 'add' (Add): opset 6 selects Add-6");
      assert_diag_has("legacy broadcasting");
      assert_diag_has("re-export the model at opset 7 or later");
    } else {
      if (st)
        fail_msg("%s", tvm_diag_message());
      tvm_graph_free(g);
    }
  }
}

/* BatchNormalization with spatial = 0 at opset 8 is refused. */
static void test_bn_spatial(void **state) {
  (void)state;
  mb b;
  int64_t d[2] = {2, 3}, c[1] = {3};
  static float one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
  mb_init(&b, 8);
  mb_input(&b, "x", F, 2, d);
  mb_init_f32(&b, "s", 1, c, one, 3);
  mb_init_f32(&b, "bb", 1, c, zero, 3);
  mb_init_f32(&b, "m", 1, c, zero, 3);
  mb_init_f32(&b, "v", 1, c, one, 3);
  Onnx__NodeProto *n = mb_node(&b, "BatchNormalization", "bn",
                               NAMES("x", "s", "bb", "m", "v"), NAMES("y"));
  mb_attr_i(&b, n, "spatial", 0);
  mb_output(&b, "y", F, 2, d);
  tvm_graph *g;
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_UNSUPPORTED);
  assert_diag_has("opset 8 selects BatchNormalization-7");
  assert_diag_has("spatial = 0");
}

/* Cast-1 names the type ("INT32"); Concat-1 defaults axis to 1. */
static void test_old_forms(void **state) {
  (void)state;
  mb b;
  int64_t d[2] = {2, 2}, d4[2] = {2, 4};
  mb_init(&b, 1);
  mb_input(&b, "x", F, 2, d);
  Onnx__NodeProto *c = mb_node(&b, "Cast", "cast", NAMES("x"), NAMES("xi"));
  Onnx__AttributeProto *a =
      mb_attr(&b, c, "to", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  a->has_s = 1;
  a->s.data = (uint8_t *)"INT32";
  a->s.len = 5;
  mb_node(&b, "Concat", "cat", NAMES("xi", "xi"), NAMES("y"));
  mb_output(&b, "y", ONNX__TENSOR_PROTO__DATA_TYPE__INT32, 2, d4);
  tvm_graph *g;
  if (mb_load(&b, NULL, &g))
    fail_msg("%s", tvm_diag_message());
  float x[4] = {1.5f, -2.5f, 3.0f, 4.9f};
  int32_t y[8];
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, d, NULL, 0};
  DLTensor ty = {y, {kDLCPU, 0}, 2, {kDLInt, 32, 1}, d4, NULL, 0};
  const DLTensor *in[1] = {&tx};
  DLTensor *out[1] = {&ty};
  if (tvm_graph_eval_reference(g, in, out))
    fail_msg("%s", tvm_diag_message());
  int32_t want[8] = {1, -2, 1, -2, 3, 4, 3, 4};
  for (int i = 0; i < 8; i++)
    assert_int_equal(y[i], want[i]);
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_legacy_broadcast),
      cmocka_unit_test(test_bn_spatial),
      cmocka_unit_test(test_old_forms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
