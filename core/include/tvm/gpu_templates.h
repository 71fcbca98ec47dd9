/*
 * tvm/gpu_templates.h - schedule templates for thread targets (OpenCL,
 * CUDA, Vulkan) that are not specific to one GPU: a plugin's strategy
 * wraps them with its own limits (work-group size, vector lanes) and
 * knob defaults.  After the paper's Mali templates, none relies on
 * shared (__local) memory: every work-item keeps its block in registers
 * ("local" scope) and reads global memory directly, which suits GPUs
 * whose shared memory is global memory (Mali) and is correct anywhere.
 *
 *  - conv2d_NCHWc (spatial pack): Conv_NCHWc (channel-blocked data and
 *    weights, written by a target's alter_layout) with each work-item
 *    computing a tile_oh x tile_ow block of output pixels times the
 *    output-channel block, the block dimension vectorized (the weight
 *    vector and the output vector are contiguous: vloadN/vstoreN);
 *    depthwise convolutions and 1x1 convolutions (where the block is a
 *    GEMM register tile: pixels x output channels, reduced over input
 *    channels) use the same template;
 *  - pool_NCHWc: one output vector (a channel block) per work-item, the
 *    window reduced in registers;
 *  - dense: Gemm's product tagged "dense" (transB = 1), k vectorized
 *    through rfactor, tile_n outputs of a row per work-item;
 *  - injective: elementwise / broadcast / injective groups with the
 *    innermost axis vectorized when the lanes divide it;
 *  - winograd: F(2x2, 3x3) for 3x3 stride-1 convolutions (the graph's
 *    Conv2D_winograd), input transform, batched GEMM, output transform.
 * tvm_gpu_alter_layout is the layout choice that goes with them, for a
 * target's alter_layout slot.
 * Knobs are recorded in cfg (tvm/config.h); a combination over the
 * work-group limit is rejected (tvm_cfg_reject) and the template
 * declines with TVM_ERR_UNSUPPORTED, so the host falls back to the next
 * strategy and never builds a kernel the device cannot launch.
 */
#ifndef TVM_GPU_TEMPLATES_H
#define TVM_GPU_TEMPLATES_H

#include "tvm/config.h"
#include "tvm/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tvm_gnode;
struct tvm_plugin_layout;

/* What a GPU template needs to know of the target. */
typedef struct tvm_gpu_limits {
  int64_t max_threads; /* work-items per work-group (>= 1) */
  int64_t lanes;       /* float lanes of a vector load/store (1 = scalar) */
} tvm_gpu_limits;

/* Conv_NCHWc (tags conv2d_NCHWc / depthwise_conv2d_NCHWc) with its fused
 * epilogue: one 5-D output [N, M/ob, OH, OW, ob].  Knobs: tile_oh,
 * tile_ow (register block: divisors of OH / OW up to 4 / 8), wg_x, wg_y
 * (work-group shape), unroll_kw (kernel-width loop unrolled). */
TVM_API tvm_status tvm_gpu_schedule_conv2d_nchwc(tvm_schedule *s,
                                                 tvm_tensor **outs, int nouts,
                                                 const tvm_gpu_limits *lim,
                                                 tvm_config *cfg);
/* Pool_NCHWc (window stage tagged pool_max / pool_sum) with its fused
 * epilogue: one 5-D output.  Knobs: wg (work-group size), unroll_rx. */
TVM_API tvm_status tvm_gpu_schedule_pool_nchwc(tvm_schedule *s,
                                               tvm_tensor **outs, int nouts,
                                               const tvm_gpu_limits *lim,
                                               tvm_config *cfg);
/* Gemm's "dense" product with its fused epilogue (bias, activation): one
 * 2-D output; k must be a multiple of 2 or more lanes.  Knobs: tile_n
 * (divisors of the columns up to 8), wg (work-group size). */
TVM_API tvm_status tvm_gpu_schedule_dense(tvm_schedule *s, tvm_tensor **outs,
                                          int nouts, const tvm_gpu_limits *lim,
                                          tvm_config *cfg);
/* The Winograd F(2x2, 3x3) convolution of X [N, C, H, W] (float32) with
 * W [K, C, 3, 3], stride 1, zero padding pad_h / pad_w on both sides, as
 * tensor expressions (core/te/winograd.c): kernel transform,
 * input transform, 16 batched GEMMs over the channels, output transform.
 * Returns Y [N, K, H + 2 pad_h - 2, W + 2 pad_w - 2], or NULL with the
 * diagnostic set.  (The kernel transform and the convolution from a
 * transformed kernel alone: tvm_op_winograd_kernel / _conv2d of
 * tvm/te.h.) */
TVM_API tvm_tensor *tvm_gpu_conv2d_winograd(tvm_ctx *c, tvm_tensor *X,
                                            tvm_tensor *W, int64_t pad_h,
                                            int64_t pad_w);
/* The winograd stages under one 4-D output (Y itself or Y's fused
 * epilogue: bias, activation, residual add) in three kernels, see
 * gpu_winograd.c; U must be an input (declines a group that computes
 * it).  Knobs: tile_k,
 * tile_p (the GEMM's register block: divisors of K / of the tile count up
 * to 4, tile_p vectorized), wg (work-group size of every kernel). */
TVM_API tvm_status tvm_gpu_schedule_conv2d_winograd(tvm_schedule *s,
                                                    tvm_tensor **outs,
                                                    int nouts,
                                                    const tvm_gpu_limits *lim,
                                                    tvm_config *cfg);
/* A group of injective stages only (no reduction anywhere) with one
 * output whose innermost extent the chosen vector width divides.  Knobs:
 * vector (1 or the lanes), wg (work-group size).  Declines
 * (TVM_ERR_UNSUPPORTED) anything else. */
TVM_API tvm_status tvm_gpu_schedule_injective(tvm_schedule *s,
                                              tvm_tensor **outs, int nouts,
                                              const tvm_gpu_limits *lim,
                                              tvm_config *cfg);

/* For a plugin: defines, static in the including file, the strategy
 * functions P_conv2d, P_winograd, P_pool, P_dense and P_injective, each
 * running the core template above with the limits limits_fn(t) of the
 * plugin's target t. */
#define TVM_GPU_TEMPLATE_FN_(name, tmpl, limits_fn)                         \
  static int32_t name(tvm_plugin_target *t, tvm_schedule *s,               \
                      tvm_tensor **outs, uint32_t nouts, tvm_config *cfg) { \
    tvm_gpu_limits l_ = limits_fn(t);                                      \
    return tmpl(s, outs, (int)nouts, &l_, cfg);                            \
  }
#define TVM_GPU_TEMPLATE_FUNCS(P, limits_fn)                                \
  TVM_GPU_TEMPLATE_FN_(P##_conv2d, tvm_gpu_schedule_conv2d_nchwc, limits_fn) \
  TVM_GPU_TEMPLATE_FN_(P##_winograd, tvm_gpu_schedule_conv2d_winograd,      \
                       limits_fn)                                           \
  TVM_GPU_TEMPLATE_FN_(P##_pool, tvm_gpu_schedule_pool_nchwc, limits_fn)    \
  TVM_GPU_TEMPLATE_FN_(P##_dense, tvm_gpu_schedule_dense, limits_fn)        \
  TVM_GPU_TEMPLATE_FN_(P##_injective, tvm_gpu_schedule_injective, limits_fn)

/* The tvm_plugin_strategy initializers of those functions (priority 10),
 * named NAME.conv2d_spatial_pack, .conv2d_winograd, .pool_NCHWc, .dense
 * and .injective (NAME a string literal): Conv_NCHWc, Conv2D_winograd,
 * Pool_NCHWc, Gemm, and the elementwise, broadcast and injective
 * patterns. */
#define TVM_GPU_STRATEGY_OP_(o, nm, fn)                                     \
  {.struct_size = sizeof(tvm_plugin_strategy), .priority = 10, .op = o,     \
   .name = nm, .schedule = fn, .match = TVM_STRATEGY_MATCH_OP}
#define TVM_GPU_STRATEGY_PAT_(p, nm, fn)                                    \
  {.struct_size = sizeof(tvm_plugin_strategy), .priority = 10,             \
   .op = "injective", .name = nm, .schedule = fn,                          \
   .match = TVM_STRATEGY_MATCH_PATTERN, .pattern = p}
#define TVM_GPU_TEMPLATE_STRATEGIES(P, NAME)                                \
  TVM_GPU_STRATEGY_OP_("Conv_NCHWc", NAME ".conv2d_spatial_pack",          \
                       P##_conv2d),                                         \
  TVM_GPU_STRATEGY_OP_("Conv2D_winograd", NAME ".conv2d_winograd",         \
                       P##_winograd),                                       \
  TVM_GPU_STRATEGY_OP_("Pool_NCHWc", NAME ".pool_NCHWc", P##_pool),        \
  TVM_GPU_STRATEGY_OP_("Gemm", NAME ".dense", P##_dense),                  \
  TVM_GPU_STRATEGY_PAT_(TVM_PAT_ELEMWISE, NAME ".injective", P##_injective), \
  TVM_GPU_STRATEGY_PAT_(TVM_PAT_BROADCAST, NAME ".injective",              \
                        P##_injective),                                     \
  TVM_GPU_STRATEGY_PAT_(TVM_PAT_INJECTIVE, NAME ".injective", P##_injective)

/* The layouts the templates above want for one graph node, for a
 * target's alter_layout slot (ABI 3); leaves *out empty (returns 0) for
 * every node they do not cover.  A 2-D float32 Conv:
 *  - Winograd: 3x3, strides and dilations 1, group 1, the same padding on
 *    both sides, at least winograd_min_channels input and output
 *    channels (<= 0: never) -> data and out "NCHW", weight
 *    TVM_LAYOUT_WINOGRAD_F2X3 (the node becomes Conv2D_winograd, its
 *    kernel transformed at compile time);
 *  - else, when spatial_pack is set and the output channels are a
 *    multiple of lim->lanes: Conv_NCHWc with
 *    output blocks of lanes channels (NCHW<lanes>c), input blocks of
 *    lanes where they divide the input channels, else the whole channel
 *    count up to 16 (an RGB input), else 1; depthwise (group == C == M)
 *    blocks data and output alike.
 * Pools between blocked convolutions then become Pool_NCHWc (the core's
 * alter_layout pass). */
TVM_API int32_t tvm_gpu_alter_layout(const tvm_gpu_limits *lim,
                                     int64_t winograd_min_channels,
                                     int spatial_pack,
                                     const struct tvm_gnode *n,
                                     struct tvm_plugin_layout *out);

#ifdef __cplusplus
}
#endif
#endif /* TVM_GPU_TEMPLATES_H */
