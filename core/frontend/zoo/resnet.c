/*
 * core/frontend/zoo/resnet.c - ResNet-18 and ResNet-50 (He et al. 2016,
 * torchvision's layout: the stride of a bottleneck sits on its 3x3 conv,
 * "v1.5"), batch 1, input "data" [1, 3, 224, 224], output "logits"
 * [1, 1000] (no Softmax, as the ONNX model zoo's).
 *
 *   conv 7x7/2 64 + BN + Relu, MaxPool 3x3/2
 *   4 stages of residual blocks, widths 64, 128, 256, 512 (stride 2 from
 *   the second stage on, a 1x1 conv + BN projection where the shape
 *   changes); ResNet-18: 2, 2, 2, 2 basic blocks (3x3, 3x3); ResNet-50:
 *   3, 4, 6, 3 bottlenecks (1x1, 3x3, 1x1 to 4x the width)
 *   GlobalAveragePool, Flatten, Gemm 1000
 */
#include <stdio.h>

#include "zoo_int.h"

/* y = Relu(branch(x) + shortcut(x)); the branch is two 3x3 convs (basic)
 * or 1x1 -> 3x3 -> 1x1 x4 (bottleneck).  The last BN of the branch has a
 * small scale so that 16 blocks of sums keep the activations in range. */
static tvm_gvalue *block(zb *b, tvm_gvalue *x, int64_t width, int64_t stride,
                         int bottleneck, const char *name) {
  char n[ZB_NAME];
  if (!x) return NULL;
  int64_t cout = bottleneck ? 4 * width : width;
  tvm_gvalue *y = x, *sc = x;
#define N(part) zoo_sub(n, name, part)
  if (bottleneck) {
    y = zoo_conv_bn_relu(b, y, width, 1, 1, 0, N("conv1"));
    y = zoo_conv_bn_relu(b, y, width, 3, stride, 1, N("conv2"));
    y = zoo_conv(b, y, cout, 1, 1, 0, 1, 0, N("conv3"));
    y = zoo_bn_scaled(b, y, 0.2, 0.4, N("conv3.bn"));
  } else {
    y = zoo_conv_bn_relu(b, y, width, 3, stride, 1, N("conv1"));
    y = zoo_conv(b, y, cout, 3, 1, 1, 1, 0, N("conv2"));
    y = zoo_bn_scaled(b, y, 0.2, 0.4, N("conv2.bn"));
  }
  if (stride != 1 || x->shape[1] != cout)
    sc = zoo_conv_bn(b, x, cout, 1, stride, 0, 0, N("downsample"));
  y = zoo_op2(b, "Add", y, sc, N("add"));
  return zoo_relu(b, y, N("relu"));
#undef N
}

/* The network, with `blocks` residual blocks per stage. */
static tvm_status resnet(tvm_graph *g, const int *blocks, int bottleneck,
                         uint64_t seed) {
  zb b;
  zoo_init(&b, g, seed);
  tvm_gvalue *x = tvm_graph_input(g, "data", tvm_dt(kDLFloat, 32, 1),
                                  (int64_t[]){1, 3, 224, 224}, 4);
  x = zoo_conv_bn_relu(&b, x, 64, 7, 2, 3, "conv1");
  x = zoo_maxpool(&b, x, 3, 2, 1, 0, "maxpool");
  for (int s = 0; s < 4; s++)
    for (int i = 0; i < blocks[s]; i++)
      x = block(&b, x, 64 << s, i == 0 && s > 0 ? 2 : 1, bottleneck,
                zoo_fmt(&b, "layer%d.%d", s + 1, i));
  x = zoo_gap_flatten(&b, x, "flatten");
  x = zoo_dense(&b, x, 1000, 0, "logits");
  return zoo_finish(&b, x);
}

/* ResNet-18: basic blocks 2, 2, 2, 2. */
tvm_status zoo_build_resnet18(tvm_graph *g) {
  static const int blocks[4] = {2, 2, 2, 2};
  return resnet(g, blocks, 0, 18000);
}

/* ResNet-50: bottlenecks 3, 4, 6, 3. */
tvm_status zoo_build_resnet50(tvm_graph *g) {
  static const int blocks[4] = {3, 4, 6, 3};
  return resnet(g, blocks, 1, 50000);
}
