/*
 * core/frontend/zoo/mobilenet.c - MobileNetV2 (Sandler et al. 2018, width
 * 1.0), batch 1, input "data" [1, 3, 224, 224], output "logits" [1, 1000].
 *
 *   conv 3x3/2 32 + BN + ReLU6
 *   17 inverted residuals (expand t, out c, repeat n, first stride s):
 *     t c   n s:  1 16 1 1 | 6 24 2 2 | 6 32 3 2 | 6 64 4 2 | 6 96 3 1 |
 *                 6 160 3 2 | 6 320 1 1
 *     each: 1x1 expand + BN + ReLU6 (not when t = 1), 3x3 depthwise
 *     (Conv with group = channels) + BN + ReLU6, 1x1 project + BN (linear
 *     bottleneck); Add of the input when the stride is 1 and the width
 *     does not change
 *   conv 1x1 1280 + BN + ReLU6, GlobalAveragePool, Flatten, Gemm 1000
 * ReLU6 is Clip(x, 0, 6) with constant min and max inputs.
 */
#include <stdio.h>

#include "zoo_int.h"

/* Conv + BN + ReLU6. */
static tvm_gvalue *conv_bn_relu6(zb *b, tvm_gvalue *x, int64_t cout,
                                 int64_t k, int64_t stride, int64_t group,
                                 const char *name) {
  char n[ZB_NAME];
  zoo_sub(n, name, "bn");
  tvm_gvalue *y = zoo_conv(b, x, cout, k, stride, k / 2, group, 0, name);
  y = zoo_bn(b, y, n);
  zoo_sub(n, name, "relu6");
  return zoo_relu6(b, y, n);
}

/* One inverted residual block: expand t, depthwise stride, project cout. */
static tvm_gvalue *inverted_residual(zb *b, tvm_gvalue *x, int64_t t,
                                     int64_t cout, int64_t stride,
                                     const char *name) {
  char n[ZB_NAME];
  if (!x) return NULL;
  int64_t cin = x->shape[1], hidden = cin * t;
  int residual = stride == 1 && cin == cout;
  tvm_gvalue *y = x;
#define N(part) zoo_sub(n, name, part)
  if (t != 1) y = conv_bn_relu6(b, y, hidden, 1, 1, 1, N("expand"));
  y = conv_bn_relu6(b, y, hidden, 3, stride, hidden, N("dw"));
  /* linear bottleneck; a small BN scale where it feeds a residual sum */
  y = zoo_conv(b, y, cout, 1, 1, 0, 1, 0, N("project"));
  y = zoo_bn_scaled(b, y, residual ? 0.2 : 0.8, residual ? 0.4 : 1.2,
                   N("project.bn"));
  if (residual) y = zoo_op2(b, "Add", y, x, N("add"));
  return y;
#undef N
}

/* MobileNetV2. */
tvm_status zoo_build_mobilenet_v2(tvm_graph *g) {
  static const int64_t cfg[7][4] = {{1, 16, 1, 1},  {6, 24, 2, 2},
                                    {6, 32, 3, 2},  {6, 64, 4, 2},
                                    {6, 96, 3, 1},  {6, 160, 3, 2},
                                    {6, 320, 1, 1}};
  zb b;
  zoo_init(&b, g, 20000);
  tvm_gvalue *x = tvm_graph_input(g, "data", tvm_dt(kDLFloat, 32, 1),
                                  (int64_t[]){1, 3, 224, 224}, 4);
  x = conv_bn_relu6(&b, x, 32, 3, 2, 1, "features.0");
  int blk = 1;
  for (int s = 0; s < 7; s++)
    for (int64_t i = 0; i < cfg[s][2]; i++, blk++)
      x = inverted_residual(&b, x, cfg[s][0], cfg[s][1],
                            i == 0 ? cfg[s][3] : 1,
                            zoo_fmt(&b, "features.%d", blk));
  x = conv_bn_relu6(&b, x, 1280, 1, 1, 1, zoo_fmt(&b, "features.%d", blk));
  x = zoo_gap_flatten(&b, x, "flatten");
  x = zoo_dense(&b, x, 1000, 0, "logits");
  return zoo_finish(&b, x);
}
