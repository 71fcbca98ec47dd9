/*
 * tests/unit/graph/ops/test_ops_index.c - the tensor-expression computes
 * of the operators added for real models, against their references (the
 * TE interpreter, no code generator): above all those whose inputs are
 * always constant in practice (NonZero, the window functions), which
 * constant folding evaluates with the reference so no compiled run
 * exercises their compute, and those with several compute stages
 * (scatters, TopK, Hardmax, Einsum, losses, quantization, group norms).
 */
#include "ops_test.h"

#define STR(n, v) tvm_gattr_str(n, v)
#define INT(n, v) tvm_gattr_int(n, v)

/* A constant int64 scalar. */
static tvm_gvalue *tci_scalar(int64_t x) {
  tvm_gvalue *v = TCI(x);
  v->ndim = 0;
  return v;
}

static void test_constant_input_ops(void **state) {
  (void)state;
  float nzv[6] = {0, 1.5f, 0, -2, 3, 0};
  check_compute(NODE("NonZero", TVM_IN(tcf32(2, (int64_t[]){2, 3}, nzv)),
                     TVM_NOATTRS));
  const char *w[3] = {"HannWindow", "HammingWindow", "BlackmanWindow"};
  for (int k = 0; k < 3; k++) {
    check_compute(NODE(w[k], TVM_IN(tci_scalar(10)), TVM_NOATTRS));
    check_compute(NODE(w[k], TVM_IN(tci_scalar(7)),
                       TVM_ATTRS(INT("periodic", 0))));
  }
  check_compute(NODE("EyeLike", TVM_IN(TF(3, 5)), TVM_ATTRS(INT("k", 1))));
  check_compute(NODE("Trilu", TVM_IN(TF(2, 4, 5), tci_scalar(-1)),
                     TVM_ATTRS(INT("upper", 0))));
}

static void test_axis_ops(void **state) {
  (void)state;
  check_compute(NODE("CumSum", TVM_IN(TF(3, 4), tci_scalar(1)),
                     TVM_ATTRS(INT("exclusive", 1), INT("reverse", 1))));
  check_compute(NODE("Hardmax", TVM_IN(TF(3, 4, 5)), TVM_ATTRS(INT("axis", 1))));
  check_compute_g(NODEK("TopK", TVM_IN(TV(TVM_I64, 3, 6), TCI(3)),
                        TVM_ATTRS(INT("largest", 0)), 2),
                  KINDS(G_INT), 0);
  check_compute(NODE("Einsum", TVM_IN(TF(2, 3, 4), TF(2, 4, 5)),
                     TVM_ATTRS(STR("equation", "bij,bjk->bik"))));
  check_compute(NODE("Einsum", TVM_IN(TF(3, 3)),
                     TVM_ATTRS(STR("equation", "ii"))));
}

static void test_index_ops(void **state) {
  (void)state;
  check_compute_g(NODE("OneHot",
                       TVM_IN(TV(TVM_I64, 2, 3), tci_scalar(5),
                              tcf32(1, (int64_t[]){2}, (float[]){-1, 7})),
                       TVM_ATTRS(INT("axis", 1))),
                  KINDS(G_IDX), 5);
  /* indices [2, 2] into data [2, 3, 4]: two [4] slices */
  tvm_gvalue *ix = tci64(4, (int64_t[]){1, 2, 0, -1});
  ix->ndim = 2;
  ix->shape[0] = 2;
  ix->shape[1] = 2;
  check_compute(NODE("GatherND", TVM_IN(TF(2, 3, 4), ix), TVM_NOATTRS));
  const char *red[3] = {"none", "add", "max"};
  for (int k = 0; k < 3; k++) {
    tvm_gvalue *si = tci64(6, (int64_t[]){0, 2, 2, 1, -1, 0});
    si->ndim = 2;
    si->shape[0] = 2;
    si->shape[1] = 3;
    check_compute(NODE("ScatterElements", TVM_IN(TF(3, 4), si, TF(2, 3)),
                       TVM_ATTRS(INT("axis", 0), STR("reduction", red[k]))));
    tvm_gvalue *ni = tci64(3, (int64_t[]){2, 0, 2});
    ni->ndim = 2;
    ni->shape[0] = 3;
    ni->shape[1] = 1;
    check_compute(NODE("ScatterND", TVM_IN(TF(4, 3), ni, TF(3, 3)),
                       TVM_ATTRS(STR("reduction", red[k]))));
  }
}

static void test_numeric_ops(void **state) {
  (void)state;
  check_compute_g(NODEK("SoftmaxCrossEntropyLoss",
                        TVM_IN(TF(3, 4, 2), TV(TVM_I64, 3, 2), TF(4)), TVM_NOATTRS,
                        2),
                  KINDS(G_REAL, G_IDX, G_POS), 4);
  check_compute_g(NODE("NegativeLogLikelihoodLoss",
                       TVM_IN(TF(3, 5), TV(TVM_I64, 3)),
                       TVM_ATTRS(STR("reduction", "sum"),
                                 INT("ignore_index", 1))),
                  KINDS(G_REAL, G_IDX), 5);
  check_compute(NODE("GroupNormalization",
                     TVM_IN(TF(2, 6, 3), TF(3), TF(3)),
                     TVM_ATTRS(INT("num_groups", 3))));
  check_compute(NODE("MeanVarianceNormalization", TVM_IN(TF(2, 3, 2, 2)),
                     TVM_NOATTRS));
  check_compute(NODE("QuantizeLinear",
                     TVM_IN(TF(2, 3), tcf32(1, (int64_t[]){3},
                                            (float[]){0.25f, 0.5f, 2})),
                     TVM_NOATTRS));
  check_compute(
      NODEK("DynamicQuantizeLinear", TVM_IN(TF(3, 4)), TVM_NOATTRS, 3));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constant_input_ops),
      cmocka_unit_test(test_axis_ops),
      cmocka_unit_test(test_index_ops),
      cmocka_unit_test(test_numeric_ops),
  };
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
