/*
 * core/frontend/zoo/dqn.c - the Nature DQN (Mnih et al. 2015), batch 1:
 * input "frames" [1, 4, 84, 84] (four stacked 84x84 frames), output
 * "q_values" [1, 18] (one Q value per action of the full Atari set).
 *
 *   conv 8x8/4 32 + Relu -> [1, 32, 20, 20]
 *   conv 4x4/2 64 + Relu -> [1, 64, 9, 9]
 *   conv 3x3/1 64 + Relu -> [1, 64, 7, 7]
 *   Flatten -> [1, 3136], Gemm 512 + Relu, Gemm 18
 */
#include <stdio.h>

#include "zoo_int.h"

#define ACTIONS 18

/* Conv with bias (no padding) + Relu. */
static tvm_gvalue *conv_relu(zb *b, tvm_gvalue *x, int64_t cout, int64_t k,
                             int64_t stride, const char *name) {
  char n[ZB_NAME];
  zoo_sub(n, name, "relu");
  return zoo_relu(b, zoo_conv(b, x, cout, k, stride, 0, 1, 1, name), n);
}

/* The Nature DQN. */
tvm_status zoo_build_dqn(tvm_graph *g) {
  zb b;
  zoo_init(&b, g, 40000);
  tvm_gvalue *x = tvm_graph_input(g, "frames", tvm_dt(kDLFloat, 32, 1),
                                  (int64_t[]){1, 4, 84, 84}, 4);
  x = conv_relu(&b, x, 32, 8, 4, "conv1");
  x = conv_relu(&b, x, 64, 4, 2, "conv2");
  x = conv_relu(&b, x, 64, 3, 1, "conv3");
  if (x) {
    tvm_gattr ax = tvm_gattr_int("axis", 1);
    x = tvm_graph_apply(g, "Flatten", "flatten", TVM_IN(x), &ax, 1, 1, NULL);
  }
  x = zoo_relu(&b, zoo_dense(&b, x, 512, 0, "fc1"), "fc1.relu");
  x = zoo_dense(&b, x, ACTIONS, 0, "q_values");
  return zoo_finish(&b, x);
}
