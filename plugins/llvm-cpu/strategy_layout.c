/*
 * strategy_layout.c - llvm-cpu's alter_layout slot (ABI 3, 7): which layout
 * each convolution should compute in.
 *
 * A 2-D float32 Conv with group 1, or depthwise (group == C == M), is
 * asked to run as Conv_NCHWc: data NCHW<ib>c, weights OIHW<ib>i<ob>o
 * (depthwise OIHW1i<b>o), output NCHW<ob>c, where a channel count's block
 * is the vector width in float32 lanes (16 with AVX-512) or the largest
 * power of two >= 4 below it that divides the count; a count at most the
 * lanes wide that no such block divides (3 RGB channels) is one block,
 * and so is one of a vector and a half with AVX-512 (MobileNetV2's 24
 * channels: the vectorize pass cuts each 24-lane vector into 16 + 8; in
 * blocks of 8 its 144->24 pointwise conv ran at 111 GFLOP/s, at 155 in
 * one block, Zen 5).
 * By default the block depends only on the channel count, so a producer
 * and its consumer agree and no transform is needed between them.
 * Channel counts that give no block (odd counts, or twice an odd prime
 * like ShuffleNetV2's 58, above the lane width) stay NCHW unless padded
 * blocks pay (below).  A group convolution with as many outputs as inputs takes
 * the same block on both sides; its groups hold whole blocks, or
 * alter_layout merges groups narrower than a block into one block-wide
 * group with zero weights between them (RegNetY-400MF's groups of 8
 * channels: twice the multiply-adds, in whole 16-lane vectors); other
 * group convolutions stay NCHW.
 *
 * A regular convolution's count above the lanes that they do not divide
 * runs in padded blocks of the lanes when that adds at most 1/8 to the
 * work (pads_to_lanes; 1000 channels: 63 blocks of 16, the last 8 places
 * zero weights; alter_layout pads and drops them), also where the count
 * has no block of its own: ShuffleNetV2's 58-channel 1x1 convolutions
 * (4 blocks of 16) had stayed NCHW on the generic schedule at 6 GFLOP/s,
 * and the network ran 0.60x the time with them blocked (in-process A/B,
 * Ice Lake, 1 thread).  A depthwise convolution's count pads the same
 * way, so it takes the blocks its pointwise neighbours take (alter_layout
 * makes its group the padded count, zero weights and bias past C):
 * ShuffleNetV2's 58-channel ones had run NCHW between two transforms,
 * its 116- and 232-channel ones in blocks of 4 and 8 between transforms
 * from and to blocks of 16; padded, the network ran 0.78-0.81x the time
 * (in-process A/B, Zen 4, 1 thread), MobileNetV3's 72, 88 and 120
 * channels 0.90-0.97x (small), 0.87-0.91x (large).
 *
 * The blocks are layout knobs (tvm_gnode_layout_config), "ic_block" and
 * "oc_block" (depthwise: "oc_block" only, the data's block too): the
 * default above, or half or twice the lanes where that divides the
 * count (4 at least; twice the lanes is two vectors per chunk), or the
 * lanes padded where they do not divide it (regular convolutions; a
 * depthwise one's default is already padded where it pays).  A tuning log
 * whose layout records chose other blocks gives this convolution those,
 * and alter_layout inserts the layout transforms its neighbours then
 * need; `tvmc tune` measures the alternatives.
 *
 * A 3x3 stride-1 convolution (group 1, dilation 1, the same padding on
 * both sides, blocks that divide both channel counts) has a third layout
 * knob, "winograd": 0 direct, 4 Winograd F(4x4, 3x3)
 * (TVM_LAYOUT_WINOGRAD_F4X3), 2 F(2x2, 3x3) (TVM_LAYOUT_WINOGRAD_F2X3 on
 * blocked data): an input transform kernel, then the GEMMs with the
 * output transform and the epilogue (strategy_winograd.c); by default
 * where it measured faster (winograd_default: by the output's tiles, the
 * weights' size and the vector width, or the target's winograd_min_tiles
 * and winograd_tile).
 *
 * A 1x1 convolution with no padding (group 1) is asked to compute over
 * its pixels flattened (TVM_PLUGIN_LAYOUT_FLAT_PIXELS, ABI 7;
 * strategy_conv2d.c's schedule_flat blocks pixels across rows): layout
 * knob "flat_pixels", on by default with strides 1 (MobileNetV2 on Zen 3
 * ran 0.85x of its time on 1 thread and 0.94x on 2, its 7x7 pointwise
 * layers 0.8x; bench/RESULTS.md, 2026-11-29) and with larger strides
 * where flat_pays.
 *
 * Matrix products (MatMul, Gemm) with a constant right operand ask for it
 * packed (see matmul_layout).
 */
#include <stdio.h>
#include <string.h>

#include "tvm/config.h"
#include "tvm/graph.h"
#include "tvm/plugin.h"
#include "llvm_cpu.h"

/* Block of a channel count c for `lanes` float lanes; 0 = none.  A count
 * of one and a half vectors (24 channels with 16 lanes) is one block of
 * all of them: a pixel's channels are a full and a half vector, 2 FMAs
 * per reduction step where blocks of half the lanes take 3.  Not with 8
 * lanes (12 channels): there a pointwise conv out of 12 channels ran
 * 2.9x slower in one block than in blocks of 4 (AVX2 target on Zen 5;
 * the flat block's model then takes 3 x 3 accumulators for the unrolled
 * 12-step reduction), though 96->12 and a 12-channel depthwise conv ran
 * 1.47x and 1.20x faster. */
static int64_t channel_block(int64_t c, int64_t lanes) {
  if (lanes >= 16 && 2 * c == 3 * lanes) return c;
  for (int64_t b = lanes; b >= 4; b /= 2)
    if (c % b == 0) return b;
  return c <= lanes ? c : 0;
}

/* Padded blocks: c channels above the lanes that the lanes do not
 * divide run in blocks of the full lanes, the last one padded with zeros,
 * when that adds at most 1/8 to the work (SqueezeNet's 1000 classes:
 * 63 blocks of 16, where the largest dividing block, 8, leaves half of
 * every AVX-512 FMA idle).  A function of the count alone, as the
 * dividing block is, so producer and consumer still agree. */
static int pads_to_lanes(int64_t c, int64_t lanes) {
  int64_t up = (c + lanes - 1) / lanes * lanes;
  return c > lanes && c % lanes != 0 && up * 8 <= c * 9;
}

/* Whether flat pixels pay for a Conv they apply to, its output in
 * blocks of ob channels.  A 1x1 window: always with strides 1; with
 * larger strides (ResNet's 1x1 stride-2 projections) only where no
 * output width from 2 to 6 divides the map's, so that the rows give one
 * chunk of all its pixels (7: load-bound) or 1.  A strided block's pixels
 * read input at offsets no common stride relates: 1x1/2 256->512 to 7x7
 * ran 0.75x the time of the rows' block on Zen 3, 128->256 to 14x14
 * 1.07-1.10x and 64->128 to 28x28 1.15-1.19x (in-process A/B of the conv
 * step).  A larger window (the 3x3 and 7x7 convolutions Winograd leaves
 * direct: strided ones, stems): where the reduction (channels x window)
 * has at least 64 steps or the rows' default block has one output
 * channel chunk (a weight load and a broadcast per FMA or nearly: bound
 * by loads).  On Zen 3 (in-process A/B of each step, 1 and 2
 * threads) flat blocks of up to 12 accumulators ran ResNet-18's 3x3/2
 * layers in 0.61-0.69x (to 7x7, where the rows hold one chunk of 7
 * pixels), 0.84-0.90x (14x14) and 0.94-0.96x (28x28) of the rows' time,
 * its 7x7/2 stem 0.95-1.04x, SqueezeNet's 3x3/2 stem of 3 channels (27
 * steps, rows of 1 chunk x 3 x 3 pixels) 0.92-0.93x; MobileNetV2's 3x3/2
 * stem (27 steps, rows of 2 chunks x 4 pixels) 1.09-1.12x, where the
 * block's start and stores weigh on so short a reduction. */
static int flat_pays(tvm_plugin_target *t, const tvm_gnode *n, int64_t ob) {
  int64_t os[TVM_MAX_DIMS], xs[TVM_MAX_DIMS], ws[TVM_MAX_DIMS];
  const int64_t *s;
  if (tvm_gnode_output_shape(n, 0, os) != 4 ||
      tvm_gnode_input_shape(n, 0, xs) != 4 ||
      tvm_gnode_input_shape(n, 1, ws) != 4)
    return 0;
  if (ws[2] != 1 || ws[3] != 1) {
    lc_isa isa;
    lc_isa_of(t, &isa);
    int64_t tc, cap, vpo = (ob + isa.lanes - 1) / isa.lanes;
    lc_conv_rows_block(&isa, os[1] / ob, os[2], os[3], vpo, 0, &tc, &cap);
    return tc == 1 || xs[1] * ws[2] * ws[3] >= 64;
  }
  int k = tvm_gnode_ints(n, "strides", &s);
  int strided = 0;
  for (int i = 0; i < k; i++) strided |= s[i] != 1;
  if (!strided) return 1;
  for (int64_t d = 2; d <= 6; d++)
    if (os[3] % d == 0) return 0;
  return 1;
}

/* The block of c channels as layout knob `name` of cfg (NULL: the
 * default): the default dflt, then half and twice the lanes where they
 * divide c, and (padded) the lanes where they do not (regular
 * convolutions only: a depthwise one's group is its channel count). */
static int64_t block_knob(tvm_config *cfg, const char *name, int64_t c,
                          int64_t lanes, int64_t dflt, int padded) {
  int64_t ch[4];
  int n = 0;
  ch[n++] = dflt;
  const int64_t alt[2] = {lanes / 2, 2 * lanes};
  for (int i = 0; i < 2; i++)
    if (alt[i] >= 4 && alt[i] != dflt && c % alt[i] == 0) ch[n++] = alt[i];
  if (padded && c > lanes && c % lanes != 0 && dflt != lanes) ch[n++] = lanes;
  return cfg && n > 1 ? tvm_cfg_choice(cfg, name, ch, n, 0) : dflt;
}

/* A matrix product B' (K x N, float32) packed as NK<nr>n: nr = two
 * vectors of float lanes (one when N fits in one), the last panel
 * zero-padded by the core when nr does not divide N (MatMul_packed
 * computes whole panels, so a ragged N costs only the padding columns:
 * two vectors per k step keep the register block FMA-bound, where one
 * vector and mr broadcasts are bound by loads).  A product of 1 or 2
 * rows (a matrix-vector product, batch-1 MatMul) gets panels of 8 / rows
 * vectors instead, up to what N fills: its register block is those rows,
 * and two vectors of one row are two chains of dependent FMAs, bound by
 * the FMA latency (25 GFLOP/s at 1 x 1001 x 999 on Zen 3,
 * bench/RESULTS.md 2026-11-29), where eight chains are not.  (Three rows
 * keep two vectors: panels of 3 vectors, 96 bytes a row, measured 1.4x
 * slower there.)  Gemm's fully connected layers with fewer than 4 rows
 * (transB = 1) keep the dense template, a matrix-vector product that
 * reads B's rows as they are. */
static int32_t matmul_layout(tvm_plugin_target *t, const tvm_gnode *n,
                             tvm_plugin_layout *out) {
  int64_t as[TVM_MAX_DIMS], bs[TVM_MAX_DIMS];
  tvm_dtype bt;
  int gemm = strcmp(tvm_gnode_op_name(n), "Gemm") == 0;
  int na = tvm_gnode_input_shape(n, 0, as);
  if (na < 2 || tvm_gnode_input_shape(n, 1, bs) != 2 ||
      tvm_gnode_input_dtype(n, 1, &bt) != 0 || bt.code != kDLFloat ||
      bt.bits != 32)
    return 0;
  int tb = gemm && tvm_gnode_int(n, "transB", 0) != 0;
  if (gemm && tb && as[0] < 4) return 0;
  int64_t lanes = t->vector_bits >= 128 ? t->vector_bits / 32 : 4;
  int64_t N = tb ? bs[0] : bs[1];
  int64_t rows = 1; /* A's rows, its leading dimensions flattened */
  for (int d = 0; d < na - 1 && rows > 0; d++)
    rows = as[d] > 0 ? rows * as[d] : -1; /* -1: symbolic */
  int64_t nv = rows == 1 || rows == 2 ? 8 / rows : 2;
  int64_t fill = (N + lanes - 1) / lanes; /* vectors N fills */
  if (nv > fill) nv = fill;
  int64_t nr = (nv > 1 ? nv : 1) * lanes;
  snprintf(out->weight, sizeof out->weight, "NK%dn", (int)nr);
  return 0;
}

/* The default algorithm of a 3x3 stride-1 convolution C -> M channels
 * with an OH x OW output: 4 = Winograd F(4x4, 3x3), 2 = F(2x2, 3x3), 0 =
 * the direct template.
 *
 * Winograd trades multiplications for weight bytes: F(4x4) does 4x fewer
 * multiplications than the direct convolution from weights 4x as large
 * (36 values per 3x3 kernel), F(2x2) 2.25x fewer from 1.8x (16); each
 * transformed weight meets one GEMM row per output tile, so where the
 * tiles are few, the kernel streams its weights from memory.  Measured
 * in whole ResNet-18 runs (per kernel as it runs in the model: `tvmc run
 * --profile`, "in run"; 2026-11-27, bench/RESULTS.md), 1 and 2 threads
 * alike:
 *   - AVX-512: F(4x4) fastest with 196 and 49 tiles (56x56 and 28x28
 *     maps), 1.1-2.6x slower than F(2x2) with 16 (14x14, 256 channels),
 *     2x slower than the direct template with 4 (7x7, 512 channels);
 *     F(2x2) 0.65-0.75x the direct time with 49 tiles, 1.0-1.2x with 16.
 *   - AVX2 code (x86-64-v3 on the same machine): F(4x4) fastest down to
 *     16 tiles (0.65-0.7x direct), 1.2-1.3x direct with 4, where F(2x2)
 *     (16 tiles) is 0.82-0.87x.
 * The direct template's speed, and so the bandwidth a transform must
 * save, scales with the vector width: a tile size is taken where it has
 * at least 2 x lanes tiles (32 for AVX-512, 16 for AVX2), F(4x4) first.
 * Transformed weights of at most 1 MiB (144 C M bytes) stay in the cache
 * whatever the tiles: F(4x4) from 4 tiles (AVX-512, 7x7, 64 channels:
 * 0.65x direct, single convolution).  Both channel counts 16 or more (3
 * input channels leave the transforms nothing to amortize over).  The
 * target's winograd_min_tiles N > 0 replaces the rule (Winograd where
 * there are N 4x4 tiles), 0 turns it off; winograd_tile fixes the tile. */
static int winograd_default(const tvm_plugin_target *t, int64_t C, int64_t M,
                            int64_t OH, int64_t OW) {
  int64_t tiles4 = ((OH + 3) / 4) * ((OW + 3) / 4);
  int64_t tiles2 = ((OH + 1) / 2) * ((OW + 1) / 2);
  int64_t lanes = t->vector_bits >= 128 ? t->vector_bits / 32 : 4;
  int tile;
  if (t->winograd_min_tiles == 0 || C < 16 || M < 16) return 0;
  if (t->winograd_min_tiles > 0)
    tile = tiles4 >= t->winograd_min_tiles ? 4 : 0;
  else if (tiles4 >= 2 * lanes || (tiles4 >= 4 && 144 * C * M <= (1 << 20)))
    tile = 4;
  else
    tile = tiles2 >= 2 * lanes ? 2 : 0;
  if (tile && t->winograd_tile > 0) tile = t->winograd_tile;
  return tile;
}

/* The alter_layout slot: fills *out for the convolutions described at the
 * top of the file, leaves it empty for every other node. */
int32_t llvm_cpu_alter_layout(tvm_plugin_target *t, const tvm_gnode *n,
                              tvm_plugin_layout *out) {
  /* the node through libtvm's accessors: tvm_gnode is not frozen */
  int64_t xs[TVM_MAX_DIMS], ws[TVM_MAX_DIMS];
  tvm_dtype xt;
  if (n && out && (strcmp(tvm_gnode_op_name(n), "MatMul") == 0 ||
                   strcmp(tvm_gnode_op_name(n), "Gemm") == 0))
    return matmul_layout(t, n, out);
  if (!n || !out || strcmp(tvm_gnode_op_name(n), "Conv") != 0 ||
      tvm_gnode_input_shape(n, 0, xs) != 4 ||
      tvm_gnode_input_shape(n, 1, ws) != 4 ||
      tvm_gnode_input_dtype(n, 0, &xt) != 0 || xt.code != kDLFloat ||
      xt.bits != 32)
    return 0;
  int64_t lanes = t->vector_bits >= 128 ? t->vector_bits / 32 : 4;
  int64_t C = xs[1], M = ws[0];
  int64_t group = tvm_gnode_int(n, "group", 1);
  int64_t ib = channel_block(C, lanes), ob = channel_block(M, lanes);
  int dw = group == C && M == C && ws[1] == 1;
  /* a regular convolution's count with no block of its own (58, twice a
   * prime: ShuffleNetV2's branches) in padded blocks too, where they pay
   * (below) */
  if (group == 1 && !ob && pads_to_lanes(M, lanes)) ob = lanes;
  if (group == 1 && !ib && pads_to_lanes(C, lanes)) ib = lanes;
  /* a depthwise one's too, in the blocks its neighbours take (alter_layout
   * makes its group the padded count) */
  if (dw && pads_to_lanes(C, lanes)) ib = ob = lanes;
  if (!ib || !ob || ob < 4 || ib > 4096 || ob > 4096) return 0;
  if (group != 1 && !dw) {
    /* a group convolution with as many outputs as inputs (ResNeXt's,
     * RegNet's): blocks of the lanes, groups of whole blocks or narrower
     * ones merged into a block (alter_layout) */
    int64_t cpg = C / group, b = channel_block(C, lanes);
    if (C % group || M != C || !b || b < 4 || (cpg % b && b % cpg))
      return 0;
    snprintf(out->data, sizeof out->data, "NCHW%dc", (int)b);
    snprintf(out->weight, sizeof out->weight, "OIHW%di%do", (int)b, (int)b);
    snprintf(out->out, sizeof out->out, "NCHW%dc", (int)b);
    return 0;
  }
  if (!dw && pads_to_lanes(M, lanes)) ob = lanes;
  if (!dw && pads_to_lanes(C, lanes)) ib = lanes;
  tvm_config *cfg = tvm_gnode_layout_config(n);
  ob = block_knob(cfg, "oc_block", M, lanes, ob, !dw);
  ib = dw ? ob : block_knob(cfg, "ic_block", C, lanes, ib, 1);
  int64_t os[TVM_MAX_DIMS];
  if (C % ib == 0 && M % ob == 0 && tvm_gnode_winograd_applies(n) &&
      tvm_gnode_output_shape(n, 0, os) == 4) {
    /* direct, F(4x4, 3x3), F(2x2, 3x3) (the order of the first two is
     * the knob's older 0/1 space) */
    const int64_t alg[3] = {0, 4, 2};
    int tile = winograd_default(t, C, M, os[2], os[3]);
    int dflt = tile == 4 ? 1 : tile == 2 ? 2 : 0;
    tile = (int)(cfg ? tvm_cfg_choice(cfg, "winograd", alg, 3, dflt) : alg[dflt]);
    if (tile) {
      snprintf(out->data, sizeof out->data, "NCHW%dc", (int)ib);
      snprintf(out->weight, sizeof out->weight, "%s",
               tile == 2 ? TVM_LAYOUT_WINOGRAD_F2X3 : TVM_LAYOUT_WINOGRAD_F4X3);
      snprintf(out->out, sizeof out->out, "NCHW%dc", (int)ob);
      return 0;
    }
  }
  if (group == 1) {
    snprintf(out->data, sizeof out->data, "NCHW%dc", (int)ib);
    snprintf(out->weight, sizeof out->weight, "OIHW%di%do", (int)ib,
             (int)ob);
    /* computed over the pixels flattened (strategy_conv2d.c,
     * schedule_flat), by default where flat_pays; the layout knob
     * flat_pixels tries both */
    if (tvm_gnode_flat_pixels_applies(n)) {
      static const int64_t onoff[2] = {0, 1};
      int dflt = flat_pays(t, n, ob);
      if (cfg ? tvm_cfg_choice(cfg, "flat_pixels", onoff, 2, dflt) : dflt)
        out->flags |= TVM_PLUGIN_LAYOUT_FLAT_PIXELS;
    }
  } else {
    snprintf(out->data, sizeof out->data, "NCHW%dc", (int)ob);
    snprintf(out->weight, sizeof out->weight, "OIHW1i%do", (int)ob);
  }
  snprintf(out->out, sizeof out->out, "NCHW%dc", (int)ob);
  return 0;
}
