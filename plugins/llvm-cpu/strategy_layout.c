/*
 * strategy_layout.c - llvm-cpu's alter_layout slot (ABI 3): which layout
 * each convolution should compute in.
 *
 * A 2-D float32 Conv with group 1, or depthwise (group == C == M), is
 * asked to run as Conv_NCHWc: data NCHW<ib>c, weights OIHW<ib>i<ob>o
 * (depthwise OIHW1i<b>o), output NCHW<ob>c, where a channel count's block
 * is the vector width in float32 lanes (16 with AVX-512) or the largest
 * power of two >= 4 below it that divides the count; a count at most the
 * lanes wide that no such block divides (3 RGB channels) is one block.
 * By default the block depends only on the channel count, so a producer
 * and its consumer agree and no transform is needed between them.
 * Outputs whose channels give no block (odd counts above the lane width)
 * stay NCHW, as do group convolutions.
 *
 * A regular convolution's count above the lanes that they do not divide
 * runs in padded blocks of the lanes when that adds at most 1/8 to the
 * work (pads_to_lanes; 1000 channels: 63 blocks of 16, the last 8 places
 * zero weights; alter_layout pads and drops them).
 *
 * The blocks are layout knobs (tvm_gnode_layout_config), "ic_block" and
 * "oc_block" (depthwise: "oc_block" only, the data's block too): the
 * default above, or half or twice the lanes where that divides the
 * count (4 at least; twice the lanes is two vectors per chunk), or the
 * lanes padded where they do not divide it (regular convolutions).  A tuning log
 * whose layout records chose other blocks gives this convolution those,
 * and alter_layout inserts the layout transforms its neighbours then
 * need; `tvmc tune` measures the alternatives.
 *
 * A 3x3 stride-1 convolution (group 1, dilation 1, the same padding on
 * both sides, blocks that divide both channel counts) has a third layout
 * knob, "winograd": computed by Winograd F(4x4, 3x3) instead
 * (TVM_LAYOUT_WINOGRAD_F4X3: an input transform kernel, then the 36
 * GEMMs with the output transform and the epilogue; strategy_winograd.c),
 * by default where it measured faster (winograd_default: by the output's
 * 4x4 tiles, the weights' size and the vector width, or the target's
 * winograd_min_tiles).
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

/* Block of a channel count c for `lanes` float lanes; 0 = none. */
static int64_t channel_block(int64_t c, int64_t lanes) {
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
 * vector and mr broadcasts are bound by loads).  Gemm's fully connected layers
 * with fewer than 4 rows (transB = 1) keep the dense template, a
 * matrix-vector product that reads B's rows as they are. */
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
  int64_t nr = N > lanes ? 2 * lanes : lanes;
  snprintf(out->weight, sizeof out->weight, "NK%dn", (int)nr);
  return 0;
}

/* Winograd F(4x4, 3x3) by default where it measured faster than the
 * direct template (single 3x3 convolutions with Relu, 1 thread, C -> C
 * channels, 2026-11-27, bench/RESULTS.md):
 *   - AVX-512: 14x14 maps and larger 0.42-0.91x the direct time (16 to
 *     512 channels); 7x7 (4 tiles) 0.65x with 64 channels but 1.17-1.68x
 *     with 128-512, where the transformed weights (144 C M bytes, 4x the
 *     direct ones) stream from memory for 4 tiles of work;
 *   - AVX2 (x86-64-v3 on the same machine): every case 0.37-0.83x, 7x7
 *     with 512 channels included (the direct template has half the
 *     lanes; the weights weigh the same).
 * So with the target's winograd_min_tiles left at -1 (auto): at least
 * 16 output tiles, or 4 when the transformed weights fit in 1 MiB, with
 * 512-bit vectors; at least 4 tiles with narrower ones.  N > 0: at least
 * N tiles; 0: never.  Both channel counts 16 or more (3 input channels
 * leave the transforms nothing to amortize over). */
static int winograd_default(const tvm_plugin_target *t, int64_t C, int64_t M,
                            int64_t OH, int64_t OW) {
  int64_t tiles = ((OH + 3) / 4) * ((OW + 3) / 4);
  if (t->winograd_min_tiles == 0 || C < 16 || M < 16) return 0;
  if (t->winograd_min_tiles > 0) return tiles >= t->winograd_min_tiles;
  if (t->vector_bits < 512) return tiles >= 4;
  return tiles >= 16 || (tiles >= 4 && 144 * C * M <= (1 << 20));
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
  if (!ib || !ob || ob < 4 || ib > 4096 || ob > 4096) return 0;
  int dw = group == C && M == C && ws[1] == 1;
  if (group != 1 && !dw) return 0;
  if (!dw && pads_to_lanes(M, lanes)) ob = lanes;
  if (!dw && pads_to_lanes(C, lanes)) ib = lanes;
  tvm_config *cfg = tvm_gnode_layout_config(n);
  ob = block_knob(cfg, "oc_block", M, lanes, ob, !dw);
  ib = dw ? ob : block_knob(cfg, "ic_block", C, lanes, ib, 1);
  int64_t os[TVM_MAX_DIMS];
  if (C % ib == 0 && M % ob == 0 && tvm_gnode_winograd_applies(n) &&
      tvm_gnode_output_shape(n, 0, os) == 4) {
    const int64_t alg[2] = {0, 1};
    int dflt = winograd_default(t, C, M, os[2], os[3]);
    if (cfg ? tvm_cfg_choice(cfg, "winograd", alg, 2, dflt) : dflt) {
      snprintf(out->data, sizeof out->data, "NCHW%dc", (int)ib);
      snprintf(out->weight, sizeof out->weight, "%s", TVM_LAYOUT_WINOGRAD_F4X3);
      snprintf(out->out, sizeof out->out, "NCHW%dc", (int)ob);
      return 0;
    }
  }
  if (group == 1) {
    snprintf(out->data, sizeof out->data, "NCHW%dc", (int)ib);
    snprintf(out->weight, sizeof out->weight, "OIHW%di%do", (int)ib,
             (int)ob);
  } else {
    snprintf(out->data, sizeof out->data, "NCHW%dc", (int)ob);
    snprintf(out->weight, sizeof out->weight, "OIHW1i%do", (int)ob);
  }
  snprintf(out->out, sizeof out->out, "NCHW%dc", (int)ob);
  return 0;
}
