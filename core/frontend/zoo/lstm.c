/*
 * core/frontend/zoo/lstm.c - an LSTM language model in the shape of
 * Zaremba et al.'s "small" Penn Treebank configuration: vocabulary 10000,
 * embedding 200, two LSTM layers of 200 hidden units, 20 unrolled steps;
 * batch 1, no dropout (inference), zero initial states.
 *
 *   input "tokens" int64 [20, 1] (word ids, time-major)
 *   Gather(embedding [10000, 200], tokens) -> [20, 1, 200]
 *   LSTM hidden 200 (Y [20, 1, 1, 200]) -> Reshape [20, 1, 200]
 *   LSTM hidden 200 -> Reshape [20, 200]
 *   Gemm to the vocabulary (transB) -> [20, 10000], Softmax over the
 *   vocabulary: output "probs" [20, 10000], the next-word distribution
 *   after every step
 * Weights: embedding uniform in +-1, LSTM weights in +-0.3 and biases in
 * +-0.1 (the paper's +-0.1 leaves the second layer's hidden state at an
 * rms of 0.06 with random weights; +-0.3 gives about 0.3), the decoder in
 * +-0.5 so that the distributions are far from uniform.
 */
#include <stdio.h>

#include "zoo_int.h"

#define VOCAB 10000
#define EMBED 200
#define HIDDEN 200
#define STEPS 20

/* One LSTM layer over x [STEPS, 1, in]: returns Y reshaped to
 * [STEPS, 1, HIDDEN]. */
static tvm_gvalue *lstm_layer(zb *b, tvm_gvalue *x, const char *name) {
  char n[ZB_NAME];
  if (!x) return NULL;
  int64_t in = x->shape[2];
#define N(part) zoo_sub(n, name, part)
  tvm_gvalue *w = zoo_uniform(b, N("W"), (int64_t[]){1, 4 * HIDDEN, in}, 3,
                             -0.3, 0.3);
  tvm_gvalue *r = zoo_uniform(b, N("R"), (int64_t[]){1, 4 * HIDDEN, HIDDEN},
                             3, -0.3, 0.3);
  tvm_gvalue *bias =
      zoo_uniform(b, N("B"), (int64_t[]){1, 8 * HIDDEN}, 2, -0.1, 0.1);
  tvm_gvalue *shape = zoo_ints(b, N("shape"), (int64_t[]){STEPS, 1, HIDDEN},
                              3);
  if (!w || !r || !bias || !shape) return NULL;
  tvm_gattr hs = tvm_gattr_int("hidden_size", HIDDEN);
  tvm_gvalue *y = tvm_graph_apply(b->g, "LSTM", name, TVM_IN(x, w, r, bias),
                                  &hs, 1, 1, NULL);
  if (!y) return NULL;
  return tvm_graph_apply(b->g, "Reshape", N("reshape"), TVM_IN(y, shape),
                         TVM_NOATTRS, 1, NULL);
#undef N
}

/* The language model. */
tvm_status zoo_build_lstm_lm(tvm_graph *g) {
  zb b;
  zoo_init(&b, g, 30000);
  tvm_gvalue *tok = tvm_graph_input(g, "tokens", tvm_dt(kDLInt, 64, 1),
                                    (int64_t[]){STEPS, 1}, 2);
  tvm_gvalue *emb =
      zoo_uniform(&b, "embedding", (int64_t[]){VOCAB, EMBED}, 2, -1, 1);
  tvm_gvalue *x = NULL;
  if (tok && emb) {
    tvm_gattr ax = tvm_gattr_int("axis", 0);
    x = tvm_graph_apply(g, "Gather", "embed", TVM_IN(emb, tok), &ax, 1, 1,
                        NULL);
  }
  x = lstm_layer(&b, x, "lstm1");
  x = lstm_layer(&b, x, "lstm2");
  tvm_gvalue *flat =
      zoo_ints(&b, "decoder.shape", (int64_t[]){STEPS, HIDDEN}, 2);
  if (x && flat)
    x = tvm_graph_apply(g, "Reshape", "decoder.flatten", TVM_IN(x, flat),
                        TVM_NOATTRS, 1, NULL);
  x = zoo_dense(&b, x, VOCAB, 0.5, "decoder");
  if (x) {
    tvm_gattr ax = tvm_gattr_int("axis", 1);
    x = tvm_graph_apply(g, "Softmax", "probs", TVM_IN(x), &ax, 1, 1, NULL);
  }
  return zoo_finish(&b, x);
}
