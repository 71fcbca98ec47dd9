/*
 * core/compiler/gpu_layout.c - the layout choice that goes with the core's
 * GPU templates (tvm/gpu_templates.h), for a thread target's
 * alter_layout slot (ABI 3).  arm-mali and cuda use it with their own
 * limits; see tvm_gpu_alter_layout in the header for the rules.
 *
 * Why Winograd from a channel count on: per output pixel the direct
 * convolution does 18 C K flops; F(2x2, 3x3) does 8 C K in its GEMMs
 * plus about 128 C (the input transform, as the core's compute writes
 * it) and 32 K (output transform), which pays from C = K = 16 on and
 * clearly (about 2x) from 32: below that the transforms and the extra
 * kernels (three launches, V and M through global memory) dominate.  A
 * target whose direct template is much stronger than the Winograd GEMM
 * asks for a higher threshold (or none).
 */
#include <stdio.h>
#include <string.h>

#include "tvm/gpu_templates.h"
#include "tvm/graph.h"
#include "tvm/plugin.h"

/* The input-channel block for C channels and vw lanes. */
static int64_t input_block(int64_t C, int64_t vw) {
  if (C % vw == 0) return vw;
  return C <= 16 ? C : 1;
}

/* Does Conv n (data xs, weights ws) run as Winograd? */
static int wants_winograd(const tvm_gnode *n, const int64_t *xs,
                          const int64_t *ws, int64_t min_channels) {
  return min_channels > 0 && xs[1] >= min_channels && ws[0] >= min_channels &&
         tvm_gnode_winograd_applies(n);
}

int32_t tvm_gpu_alter_layout(const tvm_gpu_limits *lim,
                             int64_t winograd_min_channels, int spatial_pack,
                             const tvm_gnode *n, tvm_plugin_layout *out) {
  int64_t xs[TVM_MAX_DIMS], ws[TVM_MAX_DIMS];
  tvm_dtype xt;
  int64_t vw = lim ? lim->lanes : 1;
  if (!n || !out || vw < 2 || strcmp(tvm_gnode_op_name(n), "Conv") != 0 ||
      tvm_gnode_input_shape(n, 0, xs) != 4 ||
      tvm_gnode_input_shape(n, 1, ws) != 4 ||
      tvm_gnode_input_dtype(n, 0, &xt) != 0 || xt.code != kDLFloat ||
      xt.bits != 32)
    return 0;
  int64_t C = xs[1], M = ws[0], group = tvm_gnode_int(n, "group", 1);
  if (wants_winograd(n, xs, ws, winograd_min_channels)) {
    snprintf(out->data, sizeof out->data, "NCHW");
    snprintf(out->weight, sizeof out->weight, "%s", TVM_LAYOUT_WINOGRAD_F2X3);
    snprintf(out->out, sizeof out->out, "NCHW");
    return 0;
  }
  if (!spatial_pack || M % vw != 0) return 0;
  if (group == 1) {
    int64_t ib = input_block(C, vw);
    snprintf(out->data, sizeof out->data, "NCHW%dc", (int)ib);
    snprintf(out->weight, sizeof out->weight, "OIHW%di%do", (int)ib,
             (int)vw);
  } else if (group == C && M == C && ws[1] == 1) {
    snprintf(out->data, sizeof out->data, "NCHW%dc", (int)vw);
    snprintf(out->weight, sizeof out->weight, "OIHW1i%do", (int)vw);
  } else {
    return 0;
  }
  snprintf(out->out, sizeof out->out, "NCHW%dc", (int)vw);
  return 0;
}
