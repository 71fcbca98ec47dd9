/*
 * plugins/arm-mali/strategy_conv.c - the arm-mali plugin's layout choice
 * and its convolution, pooling, dense and injective templates, after the
 * paper's Mali schedules.
 *
 * alter_layout (ABI 3): the core's choice for its GPU templates
 * (tvm_gpu_alter_layout): a 2-D float32 Conv with group 1 whose output
 * channels the target's vector width divides runs as Conv_NCHWc with
 * output blocks of vector_width channels (NCHW<vw>c), so that the
 * spatial-pack template vectorizes along output channels (each weight
 * row of a block is one vloadN, each output block one vstoreN);
 * depthwise convolutions block data and output alike; a 3x3 stride-1
 * Conv with at least WINO_MIN_CHANNELS input and output channels runs as
 * Conv2D_winograd.  Pools between blocked convolutions then become
 * Pool_NCHWc (the core's alter_layout pass).
 *
 * The templates are the core's GPU templates (tvm/gpu_templates.h; their
 * strategy entries are in plugin.c), given this target's limits: work-groups at most max_work_group_size
 * work-items, vectors of the dialect's lanes (vector_width rounded down
 * to a power of two).  None uses __local memory (Mali maps it onto
 * global memory).  Knobs: see tvm/gpu_templates.h; their defaults depend
 * on the shapes and on max_work_group_size.
 */
#include "tvm/gpu_templates.h"
#include "tvm/graph.h"
#include "mali.h"

/* The target's limits for the core's templates. */
tvm_gpu_limits mali_gpu_limits(const tvm_plugin_target *t) {
  tvm_gpu_limits l = {t->max_wg, t->dialect.max_vector_lanes};
  return l;
}

/* Winograd from 32 input and output channels on (the reasoning is in
 * core/schedule/gpu_layout.c). */
#define WINO_MIN_CHANNELS 32

/* The alter_layout slot: the core's choice for its GPU templates. */
int32_t mali_alter_layout(tvm_plugin_target *t, const tvm_gnode *n,
                          tvm_plugin_layout *out) {
  tvm_gpu_limits l = mali_gpu_limits(t);
  return tvm_gpu_alter_layout(&l, WINO_MIN_CHANNELS, 1, n, out);
}
