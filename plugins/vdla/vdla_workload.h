/*
 * plugins/vdla/vdla_workload.h - the int8 operators VDLA runs, as tensor
 * expressions in its blocked layouts, and their scalar references (the
 * test oracle).  Used by the tests and bench/vdla.
 *
 * conv2d (tag "vdla_conv2d"), NCHW blocked by the GEMM shape:
 *   data   [N/B, IC/BI, H, W, B, BI]        int8
 *   kernel [OC/BO, IC/BI, KH, KW, BO, BI]    int8
 *   conv   [N/B, OC/BO, OH, OW, B, BO]       int32 = sum over (ic, ky, kx, i)
 *          of int32(pad(data)) * int32(kernel), zero padding pad
 *   res    = int8(min(max(conv >> shift, lo), 127))     lo = 0 (relu) or -128
 * dense (tag "vdla_dense"):
 *   data [N/B, IC/BI, B, BI], weight [OC/BO, IC/BI, BO, BI] int8,
 *   bias [N/B, OC/BO, B, BO] int32,
 *   res  = int8(min(max((data . weight + bias) >> shift, lo), 127))
 */
#ifndef VDLA_WORKLOAD_H
#define VDLA_WORKLOAD_H

#include <stdint.h>

#include "tvm/te.h"
#include "vdla_sim.h"

typedef struct vdla_conv_shape {
  int64_t n, ic, h, w, oc, k, stride, pad; /* square kernels */
  int shift, relu;
} vdla_conv_shape;

typedef struct vdla_dense_shape {
  int64_t n, ic, oc;
  int shift, relu;
} vdla_dense_shape;

int64_t vdla_conv_out(const vdla_conv_shape *s, int64_t in); /* OH from H */

/* Builds conv2d; *args = {data, kernel, res}. */
tvm_status vdla_conv2d_te(tvm_ctx *c, const vdla_config *hw,
                          const vdla_conv_shape *s, tvm_tensor *args[3]);
/* Builds dense; *args = {data, weight, bias, res}. */
tvm_status vdla_dense_te(tvm_ctx *c, const vdla_config *hw,
                         const vdla_dense_shape *s, tvm_tensor *args[4]);

/* Scalar references over the blocked layouts. */
void vdla_conv2d_ref(const vdla_config *hw, const vdla_conv_shape *s,
                     const int8_t *data, const int8_t *kernel, int8_t *out);
void vdla_dense_ref(const vdla_config *hw, const vdla_dense_shape *s,
                    const int8_t *data, const int8_t *weight,
                    const int32_t *bias, int8_t *out);

#endif /* VDLA_WORKLOAD_H */
