/*
 * plugins/arm-mali/strategy_conv.c - the arm-mali plugin's layout choice
 * and its convolution, pooling, dense and injective templates, after the
 * paper's Mali schedules.
 *
 * alter_layout (ABI 3): a 2-D float32 Conv with group 1 whose output
 * channels the target's vector width divides runs as Conv_NCHWc with
 * output blocks of vector_width channels (NCHW<vw>c), so that the
 * spatial-pack template vectorizes along output channels (each weight
 * row of a block is one vloadN, each output block one vstoreN); the
 * input block is the vector width too where it divides the input
 * channels, else the whole channel count up to 16 (an RGB input), else
 * 1.  Depthwise convolutions (group == C == M) block data and output
 * alike.  Pools between blocked convolutions then become Pool_NCHWc
 * (the core's alter_layout pass).
 *
 * The templates are the core's GPU templates (tvm/gpu_templates.h),
 * given this target's limits: work-groups at most max_work_group_size
 * work-items, vectors of the dialect's lanes (vector_width rounded down
 * to a power of two).  None uses __local memory (Mali maps it onto
 * global memory).  Knobs: see tvm/gpu_templates.h; their defaults depend
 * on the shapes and on max_work_group_size.
 */
#include <stdio.h>
#include <string.h>

#include "tvm/gpu_templates.h"
#include "tvm/graph.h"
#include "mali.h"

/* The target's limits for the core's templates. */
static tvm_gpu_limits limits_of(const tvm_plugin_target *t) {
  tvm_gpu_limits l = {t->max_wg, t->dialect.max_vector_lanes};
  return l;
}

int32_t mali_schedule_conv2d(tvm_plugin_target *t, tvm_schedule *s,
                             tvm_tensor **outs, uint32_t nouts,
                             tvm_config *cfg) {
  tvm_gpu_limits l = limits_of(t);
  return tvm_gpu_schedule_conv2d_nchwc(s, outs, (int)nouts, &l, cfg);
}

int32_t mali_schedule_pool(tvm_plugin_target *t, tvm_schedule *s,
                           tvm_tensor **outs, uint32_t nouts,
                           tvm_config *cfg) {
  tvm_gpu_limits l = limits_of(t);
  return tvm_gpu_schedule_pool_nchwc(s, outs, (int)nouts, &l, cfg);
}

int32_t mali_schedule_dense(tvm_plugin_target *t, tvm_schedule *s,
                            tvm_tensor **outs, uint32_t nouts,
                            tvm_config *cfg) {
  tvm_gpu_limits l = limits_of(t);
  return tvm_gpu_schedule_dense(s, outs, (int)nouts, &l, cfg);
}

int32_t mali_schedule_injective(tvm_plugin_target *t, tvm_schedule *s,
                                tvm_tensor **outs, uint32_t nouts,
                                tvm_config *cfg) {
  tvm_gpu_limits l = limits_of(t);
  return tvm_gpu_schedule_injective(s, outs, (int)nouts, &l, cfg);
}

/* The input-channel block for C channels and vw lanes. */
static int64_t input_block(int64_t C, int64_t vw) {
  if (C % vw == 0) return vw;
  return C <= 16 ? C : 1;
}

/* The alter_layout slot: fills *out for the convolutions described at the
 * top of the file, leaves it empty for every other node. */
int32_t mali_alter_layout(tvm_plugin_target *t, const tvm_gnode *n,
                          tvm_plugin_layout *out) {
  int64_t xs[TVM_MAX_DIMS], ws[TVM_MAX_DIMS];
  tvm_dtype xt;
  int64_t vw = t->dialect.max_vector_lanes;
  if (!n || !out || vw < 2 || strcmp(tvm_gnode_op_name(n), "Conv") != 0 ||
      tvm_gnode_input_shape(n, 0, xs) != 4 ||
      tvm_gnode_input_shape(n, 1, ws) != 4 ||
      tvm_gnode_input_dtype(n, 0, &xt) != 0 || xt.code != kDLFloat ||
      xt.bits != 32)
    return 0;
  int64_t C = xs[1], M = ws[0], group = tvm_gnode_int(n, "group", 1);
  if (M % vw != 0) return 0;
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
