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
 * Winograd: a 3x3 float32 Conv with strides and dilations 1, group 1,
 * the same padding on both sides and at least WINO_MIN_CHANNELS input
 * and output channels runs as Conv2D_winograd instead (weight layout
 * TVM_LAYOUT_WINOGRAD_F2X3, NCHW data and output; the kernel transform
 * folded at compile time).  Why the channel rule: per output pixel the
 * direct convolution does 18 C K flops; F(2x2, 3x3) does 8 C K in its
 * GEMMs plus about 128 C (input transform, as the core's compute writes
 * it) and 32 K (output transform), which pays from C = K = 16 on and
 * clearly (about 2x) from 32: below that the transforms and the extra
 * kernels (three launches, V and M through global memory) dominate.
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

/* A strategy entry running one of the core's templates with the target's
 * limits. */
#define MALI_TEMPLATE(name, tmpl)                                          \
  int32_t name(tvm_plugin_target *t, tvm_schedule *s, tvm_tensor **outs,  \
               uint32_t nouts, tvm_config *cfg) {                         \
    tvm_gpu_limits l = limits_of(t);                                      \
    return tmpl(s, outs, (int)nouts, &l, cfg);                            \
  }

MALI_TEMPLATE(mali_schedule_conv2d, tvm_gpu_schedule_conv2d_nchwc)
MALI_TEMPLATE(mali_schedule_winograd, tvm_gpu_schedule_conv2d_winograd)
MALI_TEMPLATE(mali_schedule_pool, tvm_gpu_schedule_pool_nchwc)
MALI_TEMPLATE(mali_schedule_dense, tvm_gpu_schedule_dense)
MALI_TEMPLATE(mali_schedule_injective, tvm_gpu_schedule_injective)

/* The input-channel block for C channels and vw lanes. */
static int64_t input_block(int64_t C, int64_t vw) {
  if (C % vw == 0) return vw;
  return C <= 16 ? C : 1;
}

/* Every value of the int-list attribute `name` is 1 (absent: yes). */
static int all_ones(const tvm_gnode *n, const char *name) {
  const int64_t *a;
  int k = tvm_gnode_ints(n, name, &a);
  if (k < 0) return 1;
  for (int i = 0; i < k; i++)
    if (a[i] != 1) return 0;
  return 1;
}

/* The minimum input and output channels for Winograd (see the top). */
#define WINO_MIN_CHANNELS 32

/* Does Conv n (data xs, weights ws) run as Winograd (see the top)? */
static int wants_winograd(const tvm_gnode *n, const int64_t *xs,
                          const int64_t *ws) {
  const int64_t *p;
  int np = tvm_gnode_ints(n, "pads", &p);
  const char *ap = tvm_gnode_str(n, "auto_pad", "NOTSET");
  if (ws[2] != 3 || ws[3] != 3 || tvm_gnode_int(n, "group", 1) != 1 ||
      !all_ones(n, "strides") || !all_ones(n, "dilations") ||
      xs[1] < WINO_MIN_CHANNELS || ws[0] < WINO_MIN_CHANNELS)
    return 0;
  /* SAME_* pads a 3x3 stride-1 window by 1 on each side; VALID by 0 */
  if (strcmp(ap, "NOTSET") != 0)
    return strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0 ||
           strcmp(ap, "VALID") == 0;
  return np < 0 || (np == 4 && p[0] == p[2] && p[1] == p[3]);
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
  if (wants_winograd(n, xs, ws)) {
    snprintf(out->data, sizeof out->data, "NCHW");
    snprintf(out->weight, sizeof out->weight, "%s", TVM_LAYOUT_WINOGRAD_F2X3);
    snprintf(out->out, sizeof out->out, "NCHW");
    return 0;
  }
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
