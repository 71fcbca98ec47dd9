/*
 * core/frontend/zoo/zoo_int.h - private to the model zoo: the layer
 * helpers the networks are written with (zoo_layers.c) and the builders of
 * the zoo's models (one family a file), which zoo.c lists.
 *
 * Weights: every weight is a tvm_graph_random constant whose seed is the
 * builder's running counter (zb.seed, bumped at every weight), so a model
 * is the same on every machine and two weights never share values.
 * Convolution and dense weights are uniform in +-sqrt(6 / fan_in) (He
 * initialisation for ReLU networks written for a uniform distribution:
 * sqrt(2 / fan_in) * sqrt(3)), so activations keep their scale from layer
 * to layer.  BatchNormalization gets valid random statistics: scale in
 * [0.8, 1.2] (the last BN of a residual branch [0.2, 0.4], see
 * zoo_bn_scaled), bias and mean in [-0.1, 0.1], var in [0.5, 1.5].
 *
 * The helpers follow the builder's convention: a NULL input makes the
 * call return NULL (the graph stays failed), so a network is written
 * without checks and the builder returns tvm_graph_status at the end.
 */
#ifndef TVM_ZOO_INT_H
#define TVM_ZOO_INT_H

#include "tvm/graph.h"

/* A network being built: the graph, the next weight seed, and a scratch
 * buffer for generated node names. */
typedef struct zb {
  tvm_graph *g;
  uint64_t seed;
  char name[128];
} zb;

/* Starts building into g; weights of this model draw seeds from base. */
void zoo_init(zb *b, tvm_graph *g, uint64_t base);

/* A float32 weight uniform in [lo, hi] (tvm_graph_random shifted). */
tvm_gvalue *zoo_uniform(zb *b, const char *name, const int64_t *shape, int nd,
                       double lo, double hi);
/* A weight uniform in +-sqrt(6 / fan_in). */
tvm_gvalue *zoo_he(zb *b, const char *name, const int64_t *shape, int nd,
                  int64_t fan_in);

/* Conv k x k (square kernel, symmetric padding), group g, optional bias;
 * weights "<name>.weight" [cout, cin / group, k, k] (He), "<name>.bias". */
tvm_gvalue *zoo_conv(zb *b, tvm_gvalue *x, int64_t cout, int64_t k,
                    int64_t stride, int64_t pad, int64_t group, int bias,
                    const char *name);
/* BatchNormalization (epsilon 1e-5) with random valid statistics. */
tvm_gvalue *zoo_bn(zb *b, tvm_gvalue *x, const char *name);
/* The same with the scale uniform in [lo, hi]: the last BN of a residual
 * branch gets a small one so that the sum does not grow block by block
 * (the "zero-init residual" trick, not quite zero). */
tvm_gvalue *zoo_bn_scaled(zb *b, tvm_gvalue *x, double lo, double hi,
                         const char *name);
/* Relu, and Clip(0, 6) (ReLU6). */
tvm_gvalue *zoo_relu(zb *b, tvm_gvalue *x, const char *name);
tvm_gvalue *zoo_relu6(zb *b, tvm_gvalue *x, const char *name);
/* Conv (no bias) + BatchNormalization, then Relu when relu. */
tvm_gvalue *zoo_conv_bn(zb *b, tvm_gvalue *x, int64_t cout, int64_t k,
                       int64_t stride, int64_t pad, int relu,
                       const char *name);
/* Conv (no bias) + BatchNormalization + Relu: the ResNet unit. */
tvm_gvalue *zoo_conv_bn_relu(zb *b, tvm_gvalue *x, int64_t cout, int64_t k,
                            int64_t stride, int64_t pad, const char *name);
/* A binary operator ("Add") and a unary one without attributes. */
tvm_gvalue *zoo_op2(zb *b, const char *op, tvm_gvalue *x, tvm_gvalue *y,
                   const char *name);
tvm_gvalue *zoo_op1(zb *b, const char *op, tvm_gvalue *x, const char *name);
/* MaxPool k x k, stride, symmetric pad, ceil_mode. */
tvm_gvalue *zoo_maxpool(zb *b, tvm_gvalue *x, int64_t k, int64_t stride,
                       int64_t pad, int ceil_mode, const char *name);
/* GlobalAveragePool ("<name>.pool") then Flatten (name): [1, C, H, W] ->
 * [1, C]. */
tvm_gvalue *zoo_gap_flatten(zb *b, tvm_gvalue *x, const char *name);
/* Gemm with transB: x [M, K] -> [M, nout], weight [nout, K] (He, or
 * +-scale when scale > 0) and bias. */
tvm_gvalue *zoo_dense(zb *b, tvm_gvalue *x, int64_t nout, double scale,
                     const char *name);
/* A constant int64 vector (Reshape's shape, Squeeze's axes). */
tvm_gvalue *zoo_ints(zb *b, const char *name, const int64_t *v, int n);

/* Length of the name buffers of the helpers. */
#define ZB_NAME 160
/* "<name>.<part>" into buf (ZB_NAME bytes, truncated), returned. */
const char *zoo_sub(char *buf, const char *name, const char *part);
/* "<prefix><a>" style names in b->name, e.g. zoo_fmt(b, "layer%d.%d", i, j). */
const char *zoo_fmt(zb *b, const char *fmt, ...);
/* Marks v as the graph's output; returns the graph status. */
tvm_status zoo_finish(zb *b, tvm_gvalue *v);

/* ---- the models (one family a file) ------------------------------------ */
tvm_status zoo_build_resnet18(tvm_graph *g);
tvm_status zoo_build_resnet50(tvm_graph *g);
tvm_status zoo_build_mobilenet_v2(tvm_graph *g);
tvm_status zoo_build_squeezenet(tvm_graph *g);
tvm_status zoo_build_lstm_lm(tvm_graph *g);
tvm_status zoo_build_dqn(tvm_graph *g);
tvm_status zoo_build_dcgan(tvm_graph *g);

#endif /* TVM_ZOO_INT_H */
