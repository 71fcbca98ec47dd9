/*
 * core/frontend/zoo/squeezenet.c - SqueezeNet 1.1 (Iandola et al. 2016,
 * torchvision's layout), batch 1, input "data" [1, 3, 224, 224], output
 * "logits" [1, 1000] (no Softmax).
 *
 *   conv 3x3/2 64 (no padding) + Relu, MaxPool 3x3/2 (ceil_mode)
 *   fire 16/64/64, fire 16/64/64, MaxPool 3x3/2 (ceil_mode)
 *   fire 32/128/128, fire 32/128/128, MaxPool 3x3/2 (ceil_mode)
 *   fire 48/192/192, fire 48/192/192, fire 64/256/256, fire 64/256/256
 *   conv 1x1 1000 + Relu, GlobalAveragePool, Flatten
 * A fire module squeezes with a 1x1 conv + Relu, then expands with a 1x1
 * and a 3x3 conv (each + Relu) whose outputs are concatenated on the
 * channels.  Every conv has a bias; there is no BatchNormalization.
 */
#include <stdio.h>

#include "zoo_int.h"

/* Conv with bias + Relu. */
static tvm_gvalue *conv_relu(zb *b, tvm_gvalue *x, int64_t cout, int64_t k,
                             int64_t stride, int64_t pad, const char *name) {
  char n[ZB_NAME];
  zoo_sub(n, name, "relu");
  return zoo_relu(b, zoo_conv(b, x, cout, k, stride, pad, 1, 1, name), n);
}

/* Fire module: squeeze s, expand e1 (1x1) and e3 (3x3), concatenated. */
static tvm_gvalue *fire(zb *b, tvm_gvalue *x, int64_t s, int64_t e1,
                        int64_t e3, const char *name) {
  char n[ZB_NAME];
#define N(part) zoo_sub(n, name, part)
  x = conv_relu(b, x, s, 1, 1, 0, N("squeeze"));
  tvm_gvalue *a = conv_relu(b, x, e1, 1, 1, 0, N("expand1x1"));
  tvm_gvalue *c = conv_relu(b, x, e3, 3, 1, 1, N("expand3x3"));
  if (!a || !c) return NULL;
  tvm_gattr ax = tvm_gattr_int("axis", 1);
  return tvm_graph_apply(b->g, "Concat", N("concat"), TVM_IN(a, c), &ax, 1,
                         1, NULL);
#undef N
}

/* SqueezeNet 1.1. */
tvm_status zoo_build_squeezenet(tvm_graph *g) {
  static const int64_t fires[8][3] = {{16, 64, 64},   {16, 64, 64},
                                      {32, 128, 128}, {32, 128, 128},
                                      {48, 192, 192}, {48, 192, 192},
                                      {64, 256, 256}, {64, 256, 256}};
  zb b;
  zoo_init(&b, g, 11000);
  tvm_gvalue *x = tvm_graph_input(g, "data", tvm_dt(kDLFloat, 32, 1),
                                  (int64_t[]){1, 3, 224, 224}, 4);
  x = conv_relu(&b, x, 64, 3, 2, 0, "features.0");
  x = zoo_maxpool(&b, x, 3, 2, 0, 1, "features.2");
  for (int i = 0; i < 8; i++) {
    x = fire(&b, x, fires[i][0], fires[i][1], fires[i][2],
             zoo_fmt(&b, "fire%d", i + 2));
    if (i == 1 || i == 3)
      x = zoo_maxpool(&b, x, 3, 2, 0, 1, zoo_fmt(&b, "pool%d", i + 2));
  }
  x = conv_relu(&b, x, 1000, 1, 1, 0, "classifier.1");
  x = zoo_gap_flatten(&b, x, "logits");
  return zoo_finish(&b, x);
}
