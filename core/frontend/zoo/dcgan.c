/*
 * core/frontend/zoo/dcgan.c - the DCGAN generator (Radford et al. 2016,
 * 64x64 images, ngf = 64), batch 1: input "noise" [1, 100, 1, 1], output
 * "image" [1, 3, 64, 64] in (-1, 1).
 *
 *   ConvTranspose 4x4/1 pad 0, 512 + BN + Relu -> [1, 512, 4, 4]
 *   ConvTranspose 4x4/2 pad 1, 256 + BN + Relu -> [1, 256, 8, 8]
 *   ConvTranspose 4x4/2 pad 1, 128 + BN + Relu -> [1, 128, 16, 16]
 *   ConvTranspose 4x4/2 pad 1,  64 + BN + Relu -> [1, 64, 32, 32]
 *   ConvTranspose 4x4/2 pad 1,   3 + Tanh      -> [1, 3, 64, 64]
 * No biases (BN follows).  ConvTranspose weights are [cin, cout, 4, 4],
 * uniform in +-sqrt(6 / fan_in) with the fan-in an output pixel actually
 * sees: cin * 16 / stride^2.
 */
#include <stdio.h>

#include "zoo_int.h"

/* ConvTranspose 4x4 (no bias), then BN + Relu, or Tanh ("image") when
 * last. */
static tvm_gvalue *up(zb *b, tvm_gvalue *x, int64_t cout, int64_t stride,
                      int64_t pad, int last, const char *name) {
  char n[ZB_NAME];
  if (!x) return NULL;
  int64_t cin = x->shape[1];
  zoo_sub(n, name, "weight");
  tvm_gvalue *w = zoo_he(b, n, (int64_t[]){cin, cout, 4, 4}, 4,
                        cin * 16 / (stride * stride));
  if (!w) return NULL;
  tvm_gattr at[] = {
      tvm_gattr_ints("kernel_shape", (int64_t[]){4, 4}, 2),
      tvm_gattr_ints("strides", (int64_t[]){stride, stride}, 2),
      tvm_gattr_ints("pads", (int64_t[]){pad, pad, pad, pad}, 4),
  };
  tvm_gvalue *y = tvm_graph_apply(b->g, "ConvTranspose", name, TVM_IN(x, w),
                                  at, 3, 1, NULL);
  if (last) {
    return zoo_op1(b, "Tanh", y, "image");
  }
  zoo_sub(n, name, "bn");
  y = zoo_bn(b, y, n);
  zoo_sub(n, name, "relu");
  return zoo_relu(b, y, n);
}

/* The generator. */
tvm_status zoo_build_dcgan(tvm_graph *g) {
  zb b;
  zoo_init(&b, g, 60000);
  tvm_gvalue *x = tvm_graph_input(g, "noise", tvm_dt(kDLFloat, 32, 1),
                                  (int64_t[]){1, 100, 1, 1}, 4);
  x = up(&b, x, 512, 1, 0, 0, "up1");
  x = up(&b, x, 256, 2, 1, 0, "up2");
  x = up(&b, x, 128, 2, 1, 0, "up3");
  x = up(&b, x, 64, 2, 1, 0, "up4");
  x = up(&b, x, 3, 2, 1, 1, "up5");
  return zoo_finish(&b, x);
}
