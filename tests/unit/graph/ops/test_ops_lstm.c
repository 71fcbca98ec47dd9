/*
 * tests/unit/graph/ops/test_ops_lstm.c - LSTM: shape inference and its
 * error messages, hand-computed single-unit sequences through the
 * reference, and the unrolled TE compute against the reference for
 * forward, reverse and bidirectional networks with and without bias,
 * initial states, peepholes, clip and non-default activations.
 */
#include "ops_test.h"

static tvm_gnode *lstm(tvm_gvalue **in, int nin, const tvm_gattr *a, int na,
                       int nout) {
  return tnode("LSTM", in, nin, a, na, nout);
}

static void test_lstm_infer(void **state) {
  tvm_gvalue *x = TF(3, 2, 4), *w = TF(1, 12, 4), *r = TF(1, 12, 3);
  tvm_gnode *n =
      lstm(TVM_IN(x, w, r), TVM_ATTRS(tvm_gattr_int("hidden_size", 3)), 3);
  EXPECT_SHAPE(n, 0, TVM_F32, 3, 1, 2, 3);
  expect_out(n, 1, TVM_F32, 3, (int64_t[]){1, 2, 3});
  expect_out(n, 2, TVM_F32, 3, (int64_t[]){1, 2, 3});
  n = lstm(TVM_IN(x, TF(2, 12, 4), TF(2, 12, 3), TF(2, 24), NULL, TF(2, 2, 3),
                  TF(2, 2, 3), TF(2, 9)),
           TVM_ATTRS(tvm_gattr_int("hidden_size", 3),
                     tvm_gattr_str("direction", "bidirectional")),
           2);
  EXPECT_SHAPE(n, 1, TVM_F32, 2, 2, 3);
  expect_fail(lstm(TVM_IN(x, w, r), TVM_NOATTRS, 1), TVM_ERR_INVALID,
              "'hidden_size'", "required");
  expect_fail(
      lstm(TVM_IN(x, w, r), TVM_ATTRS(tvm_gattr_int("hidden_size", 4)), 1),
      TVM_ERR_INVALID, "W must be [1, 16, 4]", NULL);
  expect_fail(lstm(TVM_IN(x, w, r),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 3),
                             tvm_gattr_str("direction", "bidirectional")),
                   1),
              TVM_ERR_INVALID, "W must be [2, 12, 4]", NULL);
  expect_fail(lstm(TVM_IN(x, w, r),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 3),
                             tvm_gattr_int("layout", 1)),
                   1),
              TVM_ERR_UNSUPPORTED, "'layout'", NULL);
  expect_fail(lstm(TVM_IN(x, w, r),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 3),
                             tvm_gattr_str("direction", "sideways")),
                   1),
              TVM_ERR_INVALID, "'direction'", "bidirectional");
  expect_fail(lstm(TVM_IN(x, w, r),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 3),
                             tvm_gattr_str("activations", "Sigmoid,Tanh")),
                   1),
              TVM_ERR_INVALID, "'activations'", "give 3");
  expect_fail(lstm(TVM_IN(x, w, r),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 3),
                             tvm_gattr_str("activations", "Sigmoid,Gelu,Tanh")),
                   1),
              TVM_ERR_UNSUPPORTED, "Gelu", NULL);
  expect_fail(lstm(TVM_IN(x, w, r, NULL, TCI(3, 2)),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 3)), 1),
              TVM_ERR_UNSUPPORTED, "sequence_lens[1] = 2", NULL);
  tinfer(lstm(TVM_IN(x, w, r, NULL, TCI(3, 3)),
              TVM_ATTRS(tvm_gattr_int("hidden_size", 3)), 1));
  expect_fail(lstm(TVM_IN(x, w, r, NULL, NULL, TF(1, 2, 2)),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 3)), 1),
              TVM_ERR_INVALID, "initial_h", NULL);
}

static void test_lstm_values(void **state) {
  /* all weights 0, initial_c = 2: gates 0.5, candidate 0 -> C = 1 */
  tvm_gnode *n = tinfer(lstm(TVM_IN(TF(1, 1, 1), TF(1, 4, 1), TF(1, 4, 1), NULL,
                                    NULL, NULL, TF(1, 1, 1)),
                             TVM_ATTRS(tvm_gattr_int("hidden_size", 1)), 3));
  DLTensor **o =
      tref(n, INS(D(1), D(0, 0, 0, 0), D(0, 0, 0, 0), NULL, NULL, NULL, D(2)));
  EXPECT_VALS(o[0], 0.5 * tanh(1.0));
  EXPECT_VALS(o[1], 0.5 * tanh(1.0));
  EXPECT_VALS(o[2], 1);
  /* W = 1, R = 0.5, X = 1 for two steps (values computed by hand) */
  n = tinfer(lstm(TVM_IN(TF(2, 1, 1), TF(1, 4, 1), TF(1, 4, 1)),
                  TVM_ATTRS(tvm_gattr_int("hidden_size", 1)), 3));
  o = tref(n, INS(D(1, 1), D(1, 1, 1, 1), D(0.5, 0.5, 0.5, 0.5)));
  EXPECT_VALS(o[0], 0.3696064, 0.6020228);
  EXPECT_VALS(o[1], 0.6020228);
  EXPECT_VALS(o[2], 1.0612064);
  /* reverse over the same symmetric input gives the same final state */
  n = tinfer(lstm(TVM_IN(TF(2, 1, 1), TF(1, 4, 1), TF(1, 4, 1)),
                  TVM_ATTRS(tvm_gattr_int("hidden_size", 1),
                            tvm_gattr_str("direction", "reverse")),
                  3));
  o = tref(n, INS(D(1, 1), D(1, 1, 1, 1), D(0.5, 0.5, 0.5, 0.5)));
  EXPECT_VALS(o[0], 0.6020228, 0.3696064); /* Y by time: last step at t=0 */
  EXPECT_VALS(o[2], 1.0612064);
  /* gate order i, o, f, c: only the candidate weight set -> i = o = f = 0.5 */
  n = tinfer(lstm(TVM_IN(TF(1, 1, 1), TF(1, 4, 1), TF(1, 4, 1)),
                  TVM_ATTRS(tvm_gattr_int("hidden_size", 1)), 3));
  o = tref(n, INS(D(2), D(0, 0, 0, 1), D(0, 0, 0, 0)));
  EXPECT_VALS(o[2], 0.5 * tanh(2.0));
}

/* Compute vs reference with every input in [-0.5, 0.5): the gates stay
 * away from saturation, so a wrong weight or gate shows. */
static void check_small(tvm_gnode *n) {
  int kinds[8];
  for (int i = 0; i < 8; i++)
    kinds[i] = G_SMALL;
  check_compute_g(n, kinds, 0);
}

static void test_lstm_compute(void **state) {
  tvm_gattr h3 = tvm_gattr_int("hidden_size", 3);
  /* forward, no bias, zero initial state */
  check_small(lstm(TVM_IN(TF(3, 2, 4), TF(1, 12, 4), TF(1, 12, 3)), &h3, 1, 3));
  /* forward with bias, initial states, peepholes and clip */
  check_small(lstm(TVM_IN(TF(2, 2, 3), TF(1, 12, 3), TF(1, 12, 3), TF(1, 24),
                          NULL, TF(1, 2, 3), TF(1, 2, 3), TF(1, 9)),
                   TVM_ATTRS(h3, tvm_gattr_float("clip", 2.5)), 3));
  /* reverse, Y only */
  check_small(lstm(TVM_IN(TF(3, 1, 2), TF(1, 12, 2), TF(1, 12, 3), TF(1, 24)),
                   TVM_ATTRS(h3, tvm_gattr_str("direction", "reverse")), 1));
  /* bidirectional with everything */
  check_small(lstm(TVM_IN(TF(2, 2, 2), TF(2, 8, 2), TF(2, 8, 2), TF(2, 16),
                          NULL, TF(2, 2, 2), TF(2, 2, 2)),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 2),
                             tvm_gattr_str("direction", "bidirectional")),
                   3));
  /* other activations with alpha/beta */
  check_small(lstm(
      TVM_IN(TF(2, 1, 2), TF(1, 8, 2), TF(1, 8, 2)),
      TVM_ATTRS(tvm_gattr_int("hidden_size", 2),
                tvm_gattr_str("activations", "HardSigmoid,LeakyRelu,Softsign"),
                tvm_gattr_floats("activation_alpha", (double[]){0.3, 0.2}, 2),
                tvm_gattr_floats("activation_beta", (double[]){0.4}, 1)),
      3));
}

/* ---- GRU and RNN ------------------------------------------------------------
 */
static void test_gru_rnn(void **state) {
  tvm_gattr h3 = tvm_gattr_int("hidden_size", 3);
  tvm_gnode *n =
      tnode("GRU", TVM_IN(TF(4, 2, 5), TF(1, 9, 5), TF(1, 9, 3)), &h3, 1, 2);
  EXPECT_SHAPE(n, 0, TVM_F32, 4, 1, 2, 3);
  expect_out(n, 1, TVM_F32, 3, (int64_t[]){1, 2, 3});
  n = tnode("RNN", TVM_IN(TF(4, 2, 5), TF(2, 3, 5), TF(2, 3, 3), TF(2, 6)),
            TVM_ATTRS(h3, tvm_gattr_str("direction", "bidirectional")), 2);
  EXPECT_SHAPE(n, 1, TVM_F32, 2, 2, 3);
  expect_fail(
      tnode("GRU", TVM_IN(TF(4, 2, 5), TF(1, 12, 5), TF(1, 12, 3)), &h3, 1, 2),
      TVM_ERR_INVALID, "W must be [1, 9, 5]", "3 * hidden_size");
  expect_fail(tnode("RNN", TVM_IN(TF(4, 2, 5), TF(1, 3, 5), TF(1, 3, 3)),
                    TVM_ATTRS(h3, tvm_gattr_str("activations", "Tanh,Relu")),
                    2),
              TVM_ERR_INVALID, "more than 1", NULL);

  /* RNN: W = 1, Wb = 0.5 -> tanh(1.5); two steps with R = 0.5 */
  n = tinfer(tnode("RNN",
                   TVM_IN(TF(1, 1, 1), TF(1, 1, 1), TF(1, 1, 1), TF(1, 2)),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 1)), 2));
  EXPECT_VALS(tref(n, INS(D(1), D(1), D(0), D(0.5, 0)))[1], 0.9051483);
  n = tinfer(tnode("RNN", TVM_IN(TF(2, 1, 1), TF(1, 1, 1), TF(1, 1, 1)),
                   TVM_ATTRS(tvm_gattr_int("hidden_size", 1)), 2));
  EXPECT_VALS(tref(n, INS(D(1, 1), D(1), D(0.5)))[0], 0.7615942, 0.8811296);
  /* GRU: only Wh = Rh = 1 and Rbh = 0.25; z = r = 0.5 (values by hand) */
  for (int lbr = 0; lbr < 2; lbr++) {
    n = tinfer(tnode("GRU",
                     TVM_IN(TF(2, 1, 1), TF(1, 3, 1), TF(1, 3, 1), TF(1, 6)),
                     TVM_ATTRS(tvm_gattr_int("hidden_size", 1),
                               tvm_gattr_int("linear_before_reset", lbr)),
                     2));
    DLTensor *y = tref(
        n, INS(D(1, 1), D(0, 0, 1), D(0, 0, 1), D(0, 0, 0, 0, 0, 0.25)))[0];
    if (lbr)
      EXPECT_VALS(y, 0.4046505, 0.6366223);
    else
      EXPECT_VALS(y, 0.4241418, 0.6610979);
  }

  int small[6] = {G_SMALL, G_SMALL, G_SMALL, G_SMALL, G_SMALL, G_SMALL};
  for (int lbr = 0; lbr < 2; lbr++) {
    check_compute_g(
        tnode("GRU", TVM_IN(TF(3, 2, 4), TF(1, 9, 4), TF(1, 9, 3), TF(1, 18)),
              TVM_ATTRS(h3, tvm_gattr_int("linear_before_reset", lbr)), 2),
        small, 0);
    check_compute_g(tnode("GRU",
                          TVM_IN(TF(2, 1, 2), TF(2, 6, 2), TF(2, 6, 2),
                                 TF(2, 12), NULL, TF(2, 1, 2)),
                          TVM_ATTRS(tvm_gattr_int("hidden_size", 2),
                                    tvm_gattr_int("linear_before_reset", lbr),
                                    tvm_gattr_str("direction", "bidirectional"),
                                    tvm_gattr_float("clip", 0.3)),
                          2),
                    small, 0);
  }
  check_compute_g(tnode("RNN",
                        TVM_IN(TF(3, 2, 4), TF(1, 3, 4), TF(1, 3, 3), TF(1, 6),
                               NULL, TF(1, 2, 3)),
                        TVM_ATTRS(h3, tvm_gattr_str("direction", "reverse")),
                        2),
                  small, 0);
  check_compute_g(
      tnode("RNN", TVM_IN(TF(2, 2, 4), TF(2, 3, 4), TF(2, 3, 3)),
            TVM_ATTRS(h3, tvm_gattr_str("direction", "bidirectional"),
                      tvm_gattr_str("activations", "Relu,LeakyRelu"),
                      tvm_gattr_floats("activation_alpha", (double[]){0.2}, 1)),
            2),
      small, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lstm_infer),
      cmocka_unit_test(test_lstm_values),
      cmocka_unit_test(test_lstm_compute),
      cmocka_unit_test(test_gru_rnn),
  };
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
