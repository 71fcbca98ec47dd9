/*
 * strategy_conv2d.c - the llvm-cpu schedule template for Conv_NCHWc (the
 * channel-blocked convolution chosen by this plugin's alter_layout, see
 * strategy_layout.c), in the spirit of TVM's x86 conv2d_NCHWc.
 *
 * The group it schedules is   [pad] -> conv -> [bias, relu, add, ...] -> O
 * (the conv tagged "conv2d_NCHWc" or "depthwise_conv2d_NCHWc", O the one
 * output, the elementwise epilogue fused by fuse_ops).  O's loops are
 * (n, oc_chunk, oh, ow, oc_block); oc_chunk is split by tile_oc, oh by
 * tile_oh, ow by tile_ow and
 *
 *   parallel  fused(n, oc_outer, oh_outer)
 *     for ow_outer
 *       CC[tile_oc][tile_oh][tile_ow][oc_block] = 0     (registers)
 *       for ic_outer, ky, kx, ic_block                  (reduction)
 *         unrolled oc, oh, ow inner: vector FMA over oc_block
 *       unrolled inner: O = epilogue(CC) (vector)       (fused epilogue)
 *
 * CC is the conv computed into a "local" buffer (cache_write) attached at
 * ow_outer; the conv's own copy stage and every epilogue stage but O are
 * inlined, so bias, relu and the residual add run on the register block
 * before the one store.  After unrolling, every access of CC has a
 * constant offset and LLVM keeps the accumulators (one vector of oc_block
 * lanes each) in registers: per reduction step tile_oc weight vector
 * loads, tile_oh x tile_ow broadcasts of the input and the product of the
 * three FMAs.  The padded
 * input is computed at the root in parallel (regular convolutions: the
 * broadcast operands then need no select) or inlined (depthwise).
 *
 * Knobs (the tuner's space, tvm/config.h):
 *   tile_oc       1 to 4 output channel chunks (a divisor of their count)
 *                 in the register block; regular convolutions only.
 *                 Default 2 where the count is even, unless one chunk
 *                 fills more of the accumulator budget (see tile_ow).
 *   tile_ow       a divisor of the output width up to 32: output pixels
 *                 of a row in the register block.  Default the largest
 *                 one up to min(14, registers - 4) / tile_oc - 7 on
 *                 AVX-512's 32 zmm registers with two chunks, 6 on AVX2's
 *                 16 ymm - so the accumulators, the weight vectors and
 *                 the broadcast fit; half that for a depthwise
 *                 convolution on AVX-512 whose epilogue calls exp,
 *                 sigmoid, tanh or erf (EfficientNet's SiLU).
 *   tile_oh       a divisor of the output height up to 8: output rows in
 *                 the register block, by default what the width left of
 *                 that budget.  Blocks whose accumulators leave fewer than
 *                 2 registers free (tile_oc + 1 with tile_oc > 1) are
 *                 rejected.
 *   unroll_kw     none / unroll: the kernel-width reduction loop unrolled,
 *                 in a depthwise convolution the kernel-height loop too
 *                 (default: unroll for depthwise, none otherwise).
 *   order_reduce  (regular convolutions) the reduction loops as
 *                 (ic_outer, ky, kx) or (ky, kx, ic_outer), the input
 *                 channel block innermost in both.
 * The channel blocks themselves (ic/oc block) are chosen by alter_layout
 * (strategy_layout.c) from the vector width; they are not knobs (tile_oc
 * widens the register block over chunks instead, without a layout
 * change).
 *
 * Inside the reduction the block runs pixel by pixel, each pixel's
 * broadcast meeting the tile_oc weight vectors: tile_oc weight registers
 * and one broadcast live besides the accumulators, as the register
 * checks count (chunks outermost kept every pixel's broadcast live, and
 * 2 chunks x 6 pixels spilled on AVX2's 16 registers).
 *
 * A regular convolution whose layout asked for flat pixels (the conv
 * stage [N, M/ob, 1, OH*OW, ob]) is scheduled by schedule_flat
 * instead: its register block is tile_oc chunks x tile_px pixels of the
 * flattened map, across rows, the last block shifted back to end at the
 * last pixel (tvm_split_shift_tail: it recomputes pixels of the block
 * before in registers and stores only its own).  Knobs tile_oc (1
 * to 8 chunks, a divisor of their count: an odd count such as
 * SqueezeNet's 125 has 5), tile_px (1 to 16 pixels) and k_block (the
 * reduction over input-channel chunks whole, or in blocks of up to 2, 4
 * or 8 chunks, each read by every pixel block of a task whose tile over
 * the whole map is accumulated on the stack; schedule_flat).
 */
#include <string.h>

#include "tvm/config.h"
#include "tvm/plugin.h"
#include "llvm_cpu.h"

/* Is op the blocked convolution of a Conv_NCHWc? */
static int is_conv(const tvm_operation *op) {
  return op->tag && (strcmp(op->tag, "conv2d_NCHWc") == 0 ||
                     strcmp(op->tag, "depthwise_conv2d_NCHWc") == 0);
}

/* The largest divisor of n that is at most cap. */
static int64_t divisor_upto(int64_t n, int64_t cap) {
  for (int64_t d = cap < n ? cap : n; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

/* Estimated cycles of one reduction step of a register block of cv
 * weight vectors by p pixels over P pixels (a last block of P % p): each
 * block takes the most of its FMAs over the two FMA pipes, its loads
 * over the two load ports, its weight vectors at wcyc cycles each when
 * they stream from L2 (0 when they stay in L1), and `lat` cycles, the
 * FMA latency its accumulators wait on (the default block in
 * schedule_flat says what the two are on AVX2 and on AVX-512).  Zen 3
 * moves 32 bytes a cycle from L2 to L1, a cycle per AVX2 vector; at two
 * cycles, as first fitted to 960->320, the model passed over
 * SqueezeNet's 5 chunks x 2 pixels of 512->1000 on 13x13, an odd 125
 * chunks, for 1 x 12, which ran 1.22-1.35x its time, in-process A/B of
 * the step on 1 and 2 threads.  The last block is shifted back to end at
 * the last pixel (tvm_split_shift_tail) and so computes p pixels, but
 * counting it as p made the default blocks slower (ResNet-18 1.15x,
 * MobileNetV2 1.22x, ResNet-50 1.01x the time on 1 thread, Ice Lake,
 * in-process A/B of the packages): it still counts P % p. */
static double flat_cycles(int64_t cv, int64_t p, int64_t P, double wcyc,
                          double lat) {
  double total = 0;
  for (int last = 0; last < 2; last++) {
    int64_t n = last ? (P % p ? 1 : 0) : P / p;
    int64_t q = last ? P % p : p;
    double f = (double)(cv * q) / 2, l = (double)(cv + q) / 2;
    double w = wcyc * (double)cv;
    double cy = f > l ? f : l;
    if (w > cy) cy = w;
    total += (double)n * (cy > lat ? cy : lat);
  }
  return total;
}

/* Do the weights of c output channel chunks of ob channels, over a
 * reduction of red steps, pass half of L1?  They then stream from L2 once
 * per pixel block (the cycle model's wcyc; k_block's default). */
static int weights_streamed(int64_t c, int64_t red, int64_t ob,
                            const lc_isa *isa) {
  return (double)(c * red * ob) * 4 > isa->l1_bytes / 2;
}

/* The schedule unrolls a flat block's input-channel loop whose body
 * codegen would leave a loop (more than LC_UNROLL_STORES stores) up to
 * this many stores: 3 chunks x 4 pixels with blocks of 8 input channels
 * (96 stores) ran 0.81-0.91x the time of the same block left a loop
 * (144->24 at 56x56, Zen 3, in-process A/B of the conv step), where
 * splitting the loop into 2 x 4 with the inner part unrolled gained
 * nothing (1.01x) and LLVM's unrolling by 4 3%. */
enum { FLAT_UNROLL_STORES = 128 };

/* A convolution computed over its flattened pixels (the conv stage [N,
 * M/ob, 1, OH*OW, ob], read through an inlined view; pixel p reads the
 * padded input at ((p / OW) * sh + ky * dh, (p % OW) * sw + kx * dw), the
 * padded copy made at the root as for rows):
 *
 *   parallel  fused(n, oc_outer, px_task)
 *     for px_block                                       (blocks per task)
 *       CC[tile_px][tile_oc][oc_block] = 0               (registers)
 *       for ic_outer, ky, kx, ic_block                   (ic_block unrolled)
 *         unrolled px, oc inner: vector FMA over oc_block
 *       unrolled inner: O = epilogue(CC)
 *
 * The register block runs over pixels regardless of the rows: a 7x7 map
 * (49 pixels) takes 9 blocks of 5 and a last one over pixels 44-48 that
 * stores 45-48 (2 chunks each, 960->320's default on AVX2), where the
 * rows gave 7 pixels of 1 chunk or 1.  The shifted last block computes
 * without guards, so the reduction is compiled once: ResNet-18's last
 * stage (3x3 and 1x1/2 to 7x7, blocks of 13 pixels) came down from 0.61
 * s of LLVM time to 0.27 s (medians of 3 cold compiles, Ice Lake), where
 * the guarded last block had made hoist_guards and LLVM's unswitching
 * copy the loop nest two to three times; the packages compute the same
 * outputs (max difference 0) and ran 0.94-1.00x the time (in-process
 * A/B, ResNet-18 and MobileNetV2 on 1 and 2 threads). */
static tvm_status schedule_flat(tvm_schedule *s, tvm_tensor *O,
                                tvm_operation *conv, const lc_isa *isa,
                                tvm_config *cfg) {
  tvm_status st;
  tvm_tensor *CC;
  int64_t OCC = O->shape_c[1], P = conv->output->shape_c[3], ib = 1, red = 1;
  for (int r = 0; r < conv->nreduce; r++) {
    int64_t e = 1;
    if (!tvm_is_const_int(conv->reduce_axis[r]->dom.extent, &e) || e < 1)
      e = 1;
    red *= e;
    if (r == conv->nreduce - 1) ib = e;
  }
  int64_t vpo = (O->shape_c[4] + isa->lanes - 1) / isa->lanes;
  /* Default block: among the blocks within 1% of the fewest estimated
   * cycles per reduction step over the whole output (flat_cycles), the
   * most accumulators, then the fewest loads per step.  The
   * accumulators, the tile_oc weight vectors and the broadcast fit the
   * registers.  The input-channel block is unrolled (codegen does it up
   * to LC_UNROLL_STORES stores, the schedule below up to
   * FLAT_UNROLL_STORES); a block past that counts 15% more (960->320 on
   * 7x7, Zen 3: 2 x 6 and 2 x 5 left as loops ran 0.78-0.94x oneDNN, 2 x
   * 4 unrolled 0.92-0.98x).  Where several blocks keep the FMAs busy in
   * the model, more accumulators measured faster (Zen 3, in-process A/B
   * of the conv step: 16->96 at 112x112 3 x 4 0.86-0.87x the time of 2 x
   * 4, 2 x 6 0.91-0.94x; 144->24 at 56x56 3 x 4 0.95x of 3 x 3).
   *
   * AVX-512 (32 registers of 64 bytes) is modelled apart, from
   * ResNet-18's direct layers on an Ice Lake Xeon (every block of
   * each layer measured by `tvmc tune --tuner random`, 1 thread,
   * 2026-11-30): a streamed weight vector costs two cycles (64 bytes at
   * L2's 32 a cycle), blocks of 8 accumulators ran at 0.5-0.8x the speed
   * of 20-28 (3x3 512->512 on 7x7: 2 x 4 68-72 GFLOP/s, 4 x 2 40-51,
   * 2 x 13 84-110, 2 x 14 89-112), so a step takes at least 8 cycles,
   * and the input-channel loop left a loop costs nothing measurable
   * there (its 16 steps carry 16-28 FMAs each). */
  const int wide = isa->vregs >= 32;
  const double wcyc = wide ? 2 : 1, lat = wide ? 8 : 4;
  int64_t cch[8], pch[16];
  double cyc[8][16];
  int nc = 0, np = 0, dc = -1, dp = -1;
  for (int64_t d = 1; d <= OCC && d <= 8; d++)
    if (OCC % d == 0) cch[nc++] = d;
  for (int64_t d = 1; d <= P && d <= 16; d++) pch[np++] = d;
  double lo = 0;
  for (int i = 0; i < nc; i++)
    for (int j = 0; j < np; j++) {
      int64_t c = cch[i], p = pch[j];
      cyc[i][j] = 0;
      if (c * p * vpo + c * vpo + 1 > isa->vregs) continue;
      /* an output channel block's weights past half of L1 stream from
       * L2 once per pixel block (960->320: 4 chunks x 2 pixels ran 0.80x
       * oneDNN, 2 x 4 0.92-0.98x; the model ties them now, and the most
       * accumulators decide) */
      int streamed = weights_streamed(c, red, O->shape_c[4], isa);
      double cy = (double)(OCC / c) *
                  flat_cycles(c * vpo, p, P, streamed ? wcyc : 0, lat);
      if (!wide && c * p * vpo * ib > FLAT_UNROLL_STORES) cy *= 1.15;
      cyc[i][j] = cy;
      if (lo == 0 || cy < lo) lo = cy;
    }
  /* Among those within an eighth of the most accumulators, first the
   * fewest pixels the shifted last block computes again (the model
   * counts it as P % p, see flat_cycles): 960->320 on 7x7 tied 2 x 13
   * (52 pixels for 49) with 5 x 5 (50), which ran in 0.82-0.87x its time
   * (Ice Lake, in-process A/B of the conv step); without the eighth,
   * ResNet-18's 3x3 512->512 layers took 2 x 7 (49 for 49, 14
   * accumulators) for 2 x 13 and ran 1.15-1.23x slower. */
  int64_t most = 0;
  for (int i = 0; i < nc; i++)
    for (int j = 0; j < np; j++)
      if (cyc[i][j] != 0 && cyc[i][j] <= lo * 1.01 && cch[i] * pch[j] > most)
        most = cch[i] * pch[j];
  for (int i = 0; i < nc; i++)
    for (int j = 0; j < np; j++) {
      int64_t c = cch[i], p = pch[j];
      if (cyc[i][j] == 0 || cyc[i][j] > lo * 1.01) continue;
      if (c * p < most - most / 8) continue;
      int64_t bc = dc < 0 ? 0 : cch[dc], bp = dp < 0 ? 0 : pch[dp];
      int64_t w = (P + p - 1) / p * p - P;
      int64_t bw = dc < 0 ? 0 : (P + bp - 1) / bp * bp - P;
      if (dc < 0 || w < bw ||
          (w == bw && (c * p > bc * bp ||
                       (c * p == bc * bp && c + p < bc + bp))))
        dc = i, dp = j;
    }
  if (dc < 0) dc = dp = 0; /* nothing fits: 1 x 1, rejected below */
  int64_t tc = tvm_cfg_choice(cfg, "tile_oc", cch, nc, dc);
  int64_t tp = tvm_cfg_choice(cfg, "tile_px", pch, np, dp);
  if (tc * tp * vpo + tc * vpo + 1 > isa->vregs)
    tvm_cfg_reject(cfg, "tile_oc x tile_px = %lld x %lld needs %lld "
                   "accumulator registers and %lld weight vectors of %d",
                   (long long)tc, (long long)tp, (long long)(tc * tp * vpo),
                   (long long)(tc * vpo), isa->vregs);
  /* k_block: input-channel chunks per block of the reduction, all of
   * them (icc) meaning none.  Blocked, a task computes its channel
   * chunks over the whole map, kb chunks of input channels at a time
   * (see below).  Default: blocked where the task's weights stream from
   * L2 (as the model above counts them), the map's accumulator tile fits
   * a third of L1 and there are at least 4 tasks and 2 pixel blocks;
   * the largest choice whose weights fit half of L1, if its block
   * carries at least 64 reduction steps (the tile is loaded and stored
   * once a block).  MobileNetV2's 960->320 on 7x7 (5 chunks x 5 pixels,
   * 960 channels in 60 chunks): kb 4 ran 0.93x the time of none, 2
   * 0.95x, 8 0.99x; blocked where the tile did not fit (384->64 on
   * 14x14, 50 KB) 1.05-1.13x, and 160->960 on 7x7 in blocks of 2 chunks
   * (32 steps) 1.08-1.10x (in-process A/B of the conv steps, 1 thread,
   * Xeon with AVX-512 and 48 KB of L1, 2026-12-01). */
  int64_t icc = 1, kch[4];
  tvm_is_const_int(conv->reduce_axis[0]->dom.extent, &icc);
  if (icc < 1) icc = 1;
  int nk = 0, dk = 0;
  kch[nk++] = icc;
  for (int64_t cap = 2; cap <= 8; cap *= 2) {
    int64_t d = divisor_upto(icc, cap);
    if (d < icc && (nk == 1 || d > kch[nk - 1])) kch[nk++] = d;
  }
  {
    int64_t nb0 = (P + tp - 1) / tp, per = red / icc;
    double wk = (double)(tc * O->shape_c[4] * per) * 4; /* bytes per chunk */
    double tile = (double)(tc * vpo * isa->lanes * P) * 4;
    if (weights_streamed(tc, red, O->shape_c[4], isa) && nb0 >= 2 && OCC / tc >= 4 && tile <= isa->l1_bytes / 3.0)
      for (int i = 1; i < nk; i++)
        if (wk * (double)kch[i] <= isa->l1_bytes / 2.0 &&
            kch[i] * per >= 64)
          dk = i;
  }
  int64_t kb = tvm_cfg_choice(cfg, "k_block", kch, nk, dk);
  if ((st = tvm_cache_write(s, conv->output, "local", &CC))) return st;
  if (O->op != conv && (st = tvm_compute_inline(tvm_stage_of(s, conv->output))))
    return st;
  tvm_stage *so = tvm_stage_of(s, O);
  /* blocks per parallel task: about 4096 vector FMAs each (a short
   * reduction, 24 input channels, made a task of one block 1.2x slower
   * than the rows' loop), a divisor of the blocks where one is near */
  int64_t nb = (P + tp - 1) / tp, work = tc * tp * vpo * red;
  int64_t want = (4096 + work - 1) / work, nr = 1;
  if (want > nb || kb < icc) want = nb; /* blocked: the whole map */
  for (int64_t d = 1; d <= nb; d++) /* the divisor nearest, by ratio */
    if (nb % d == 0 && (d >= want ? (double)d / want : (double)want / d) <
                           (nr >= want ? (double)nr / want
                                       : (double)want / nr))
      nr = d;
  tvm_iter_var *px, *oco, *oci, *po, *pi, *pq, *pr, *f1, *f2;
  st = tvm_fuse(so, tvm_stage_axis(so, 2), tvm_stage_axis(so, 3), &px);
  if (!st) st = tvm_split(so, tvm_stage_axis(so, 1), tc, &oco, &oci);
  if (!st) st = tvm_split_shift_tail(so, px, tp, &po, &pi);
  if (!st) st = tvm_split(so, po, nr, &pq, &pr);
  if (!st)
    st = tvm_reorder(so, (tvm_iter_var *[]){oco, pq, pr, pi, oci,
                                            tvm_stage_axis(so, 4)}, 6);
  if (!st) st = tvm_fuse(so, tvm_stage_axis(so, 0), oco, &f1);
  if (!st) st = tvm_fuse(so, f1, pq, &f2);
  if (!st) st = tvm_parallel(so, f2);
  if (!st && tc > 1) st = tvm_unroll(so, oci);
  if (!st) st = tvm_unroll(so, pi);
  if (!st) st = tvm_vectorize(so, tvm_stage_axis(so, 4));
  if (st) return st;
  tvm_stage *sc = tvm_stage_of(s, CC);
  /* CC's loops: the reduction outermost, then the pixels, the chunks and
   * the block (px: the pixels unrolled).  K-blocked, CC is the task's
   * whole tile in memory (the stack) and the input-channel loop is split,
   * its outer part outside the pixel blocks: each block of kb chunks of
   * the weights is read from L1 by every pixel block of the task, the
   * register block loaded from CC and stored back around it (LLVM keeps
   * it in registers in between, codegen's alias scopes telling it CC is
   * not an input). */
  tvm_iter_var *order[10], *px_in = tvm_stage_axis(sc, 3);
  int no = 0, nred = tvm_stage_num_reduce_axes(sc);
  if (kb < icc) {
    tvm_iter_var *ko, *ki, *pbo;
    if ((st = tvm_compute_at(sc, so, f2))) return st;
    st = tvm_split(sc, tvm_stage_reduce_axis(sc, 0), kb, &ko, &ki);
    if (!st) st = tvm_split(sc, tvm_stage_axis(sc, 3), tp, &pbo, &px_in);
    if (st) return st;
    order[no++] = ko;
    order[no++] = pbo;
    order[no++] = ki;
  } else {
    if ((st = tvm_compute_at(sc, so, pr))) return st;
    order[no++] = tvm_stage_reduce_axis(sc, 0);
  }
  for (int r = 1; r < nred; r++) order[no++] = tvm_stage_reduce_axis(sc, r);
  order[no++] = tvm_stage_axis(sc, 2);
  order[no++] = px_in;
  order[no++] = tvm_stage_axis(sc, 1);
  order[no++] = tvm_stage_axis(sc, 4);
  st = tvm_reorder(sc, order, no);
  if (!st) st = tvm_unroll(sc, px_in);
  if (!st && tc > 1) st = tvm_unroll(sc, tvm_stage_axis(sc, 1));
  if (!st && tc * tp * vpo * ib > LC_UNROLL_STORES &&
      tc * tp * vpo * ib <= FLAT_UNROLL_STORES)
    st = tvm_unroll(sc, tvm_stage_reduce_axis(sc, nred - 1));
  if (!st) st = tvm_vectorize(sc, tvm_stage_axis(sc, 4));
  return st;
}

/* The padded input of a regular convolution, computed at the root in
 * parallel over (n, channel chunk, row), vectorized over the block. */
static tvm_status schedule_pad(tvm_schedule *s, tvm_operation *pad) {
  tvm_stage *sp = tvm_stage_of(s, pad->output);
  tvm_iter_var *f1, *f2;
  tvm_status st = tvm_fuse(sp, tvm_stage_axis(sp, 0), tvm_stage_axis(sp, 1), &f1);
  if (!st) st = tvm_fuse(sp, f1, tvm_stage_axis(sp, 2), &f2);
  if (!st) st = tvm_parallel(sp, f2);
  if (!st) st = tvm_vectorize(sp, tvm_stage_axis(sp, 4));
  return st;
}

/* The rows' default register block of a convolution's output map
 * (OCC chunks of vpo vectors, OH x OW pixels; described below where the
 * schedule takes it): sets *tc (output channel chunks) and *cap (pixels
 * per chunk the width and height are fitted to) and returns the
 * accumulators of the block (chunks x row pixels x rows). */
int64_t lc_conv_rows_block(const lc_isa *isa, int64_t OCC, int64_t OH,
                           int64_t OW, int64_t vpo, int depthwise,
                           int64_t *tc, int64_t *cap) {
  int64_t budget = isa->vregs - 4 < 14 ? isa->vregs - 4 : 14;
  budget = budget / vpo > 1 ? budget / vpo : 1;
  int64_t best = 0;
  *tc = 1, *cap = budget;
  for (int64_t c = !depthwise && OCC % 2 == 0 ? 2 : 1; c >= 1; c--) {
    int64_t per = budget / c;
    int64_t fit = (isa->vregs - c - 1) / (c * vpo); /* the check below */
    if (c > 1 && per > fit) per = fit;
    if (per < 1) per = 1;
    int64_t w = divisor_upto(OW, per);
    if (2 * w < per) {
      /* a prime width leaves no divisor near the budget (SqueezeNet's
       * 13x13 maps: a block of 1 pixel, 14 GFLOP/s on Zen 3): the whole
       * row, if the register check takes it (13 pixels: 69 GFLOP/s) */
      int64_t hard = c > 1 ? fit : (isa->vregs - 2) / vpo;
      if (divisor_upto(OW, hard) > w) w = divisor_upto(OW, hard), per = hard;
    }
    int64_t h = divisor_upto(OH, per / w > 1 ? per / w : 1);
    if (c * w * h > best)
      best = c * w * h, *tc = c, *cap = per;
  }
  return best;
}

/* Does e call exp, sigmoid, tanh or erf (an inline expansion of a dozen
 * vector constants and twenty instructions per vector, codegen_vmath.c)? */
static int calls_vmath(tvm_visitor *v, const tvm_expr *e) {
  if (e->kind == TVM_CALL &&
      (e->u.call.op == TVM_INTRIN_EXP || e->u.call.op == TVM_INTRIN_SIGMOID ||
       e->u.call.op == TVM_INTRIN_TANH || e->u.call.op == TVM_INTRIN_ERF))
    v->data = (void *)e;
  return v->data == NULL; /* stop at the first */
}

/* Does the epilogue (the stages of ops other than conv and pad) call one
 * of the functions above? */
static int epilogue_vmath(const tvm_ptrvec *ops, const tvm_operation *conv,
                          const tvm_operation *pad) {
  for (size_t i = 0; i < ops->len; i++) {
    const tvm_operation *op = ops->data[i];
    if (op == conv || op == pad || op->kind != TVM_OP_COMPUTE || !op->body)
      continue;
    tvm_visitor v = {calls_vmath, NULL, NULL};
    tvm_visit_expr(&v, op->body);
    if (v.data) return 1;
  }
  return 0;
}

/* Schedules outs[0] as described at the top of the file. */
int32_t llvm_cpu_schedule_conv2d_nchwc(tvm_plugin_target *t, tvm_schedule *s,
                                       tvm_tensor **outs, uint32_t nouts,
                                       tvm_config *cfg) {
  tvm_ptrvec ops = {0};
  tvm_operation *conv = NULL, *pad = NULL;
  tvm_tensor *O, *CC;
  int depthwise = 0;
  tvm_status st;
  lc_isa isa;
  lc_isa_of(t, &isa);
  if (nouts != 1 || outs[0]->ndim != 5)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "llvm-cpu conv2d_NCHWc template: expected one 5-D "
                        "output, got %u outputs", nouts);
  O = outs[0];
  if ((st = tvm_op_reachable_computes(O, &ops))) goto out;
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (is_conv(op)) {
      conv = op;
      depthwise = strcmp(op->tag, "depthwise_conv2d_NCHWc") == 0;
    }
    else if (op->tag && strcmp(op->tag, "pad") == 0) pad = op;
  }
  if (!conv || conv->output->ndim != 5) {
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "llvm-cpu conv2d_NCHWc template: no conv2d_NCHWc "
                      "stage under '%s'", O->name);
    goto out;
  }
  /* every stage between the conv and O is inlined into O */
  for (size_t i = 0; i < ops.len && !st; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op && op != conv && op != pad)
      st = tvm_compute_inline(tvm_stage_of(s, op->output));
  }
  if (st) goto out;
  if (!depthwise && conv->output->shape_c[3] != O->shape_c[3]) {
    st = schedule_flat(s, O, conv, &isa, cfg);
    if (!st && pad) st = schedule_pad(s, pad);
    goto out;
  }
  int64_t OW = O->shape_c[3], OB = O->shape_c[4];
  int64_t vpo = (OB + isa.lanes - 1) / isa.lanes; /* vectors per ow */
  /* Default register block: two output channel chunks (regular
   * convolutions with an even chunk count) times up to budget / 2 output
   * pixels.  Each broadcast then feeds two FMAs: one chunk's block needs
   * a load per FMA and is bound by loads.  Tuning ResNet-18's 15
   * convolutions (AVX-512, 1 thread, 8-31 configurations each), 14
   * layers' fastest configuration had tile_oc 2 or 4; the 15th (14x14,
   * 14 pixels of one chunk) was 4% ahead of 2 x 7. */
  int64_t OCC = O->shape_c[1], OH = O->shape_c[2];
  /* two chunks unless one chunk fills more of the budget (a prime width
   * such as 7 leaves AVX2's 6 pixels per chunk a block of 1).  Tuning on
   * AMD Zen 3 (AVX2) put four chunks of 2 pixels ahead of these defaults
   * one layer at a time (bench/kernels tune=32), but MobileNetV2's own
   * kernels ran 1.1-1.4x slower with them in whole runs there
   * (bench/RESULTS.md, 2026-11-28): not taken as defaults.  unroll_kw
   * (below) is on by default for depthwise convolutions: since LLVM
   * unrolls only the loops codegen marks, their 3-trip kernel-width loop
   * stayed a loop; unrolled, MobileNetV2 ran 0.94-0.97x (1 thread) and
   * 0.94-1.01x (2 threads) of the time, in-process A/B, Zen 3 */
  int64_t tc_dflt = 1, cap = 1;
  lc_conv_rows_block(&isa, OCC, OH, OW, vpo, depthwise, &tc_dflt, &cap);
  /* A depthwise block whose epilogue calls exp, sigmoid, tanh or erf
   * takes half the pixels on AVX-512.  With the expansion's dozen
   * constants held in registers across the loop, LLVM spilled the
   * block's accumulators and inputs (a 5x5 block of 14 pixels: 109
   * spills and 321 reloads, against 26 and 27 with a ReLU epilogue), and
   * an exp epilogue made the step 3.4x slower than a ReLU one (0.29
   * against 0.085 ms, 240 channels on 28x28), 0.20 ms with 7 pixels.
   * EfficientNet-B0's SiLU layers, one at a time (in-process A/B, Ice
   * Lake, 1 thread): 3x3/2 96 on 112x112 0.83x the time, 5x5/2 144 on
   * 56x56 0.73x, 5x5 240 on 28x28 0.87x, 5x5 672 on 14x14 0.98x, 3x3 on
   * 112x112 and 56x56 0.96x and 1.04x.  Not on AVX2, whose block is 6
   * pixels already: halved it ran 0.97-2.07x the time (7x7's 1152
   * channels: 7 pixels to 1). */
  if (depthwise && isa.vregs >= 32 && epilogue_vmath(&ops, conv, pad))
    cap = cap / 2 > 1 ? cap / 2 : 1;
  int64_t choices[32];
  int nch = 0, dflt = 0;
  for (int64_t d = 1; d <= OW && d <= 32 && nch < 32; d++)
    if (OW % d == 0) {
      if (d == divisor_upto(OW, cap)) dflt = nch;
      choices[nch++] = d;
    }
  int64_t tw = tvm_cfg_choice(cfg, "tile_ow", choices, nch, dflt);
  if (tw > 1 && tw * vpo > isa.vregs - 2)
    tvm_cfg_reject(cfg, "tile_ow %lld needs %lld accumulator registers of %d",
                   (long long)tw, (long long)(tw * vpo), isa.vregs);
  int64_t hch[8];
  int nh = 0;
  for (int64_t d = 1; d <= OH && d <= 8 && nh < 8; d++)
    if (OH % d == 0)
      hch[nh++] = d;
  int nhd = 0; /* default: the rows that fill what the width left */
  for (int i = 0; i < nh; i++)
    if (hch[i] == divisor_upto(OH, cap / tw > 1 ? cap / tw : 1)) nhd = i;
  int64_t th = tvm_cfg_choice(cfg, "tile_oh", hch, nh, nhd);
  if (th * tw > 1 && th * tw * vpo > isa.vregs - 2)
    tvm_cfg_reject(cfg, "tile_oh x tile_ow = %lld x %lld needs %lld "
                   "accumulator registers of %d", (long long)th, (long long)tw,
                   (long long)(th * tw * vpo), isa.vregs);
  /* output channel chunks in the register block: each input broadcast
   * then feeds tile_oc FMAs (regular convolutions; a depthwise step has
   * no broadcast to share) */
  int64_t cch[4];
  int nc = 0, ncd = 0;
  for (int64_t d = 1; d <= OCC && d <= 4; d++)
    if (OCC % d == 0 && (d == 1 || !depthwise)) {
      if (d == tc_dflt) ncd = nc;
      cch[nc++] = d;
    }
  int64_t tc = tvm_cfg_choice(cfg, "tile_oc", cch, nc, ncd);
  if (tc > 1 && th * tw * tc * vpo + tc + 1 > isa.vregs)
    tvm_cfg_reject(cfg, "tile_oc x tile_oh x tile_ow = %lld x %lld x %lld "
                   "needs %lld accumulator registers and %lld weight "
                   "vectors of %d", (long long)tc, (long long)th,
                   (long long)tw, (long long)(tc * th * tw * vpo),
                   (long long)tc, isa.vregs);
  static const int unroll_anns[] = {TVM_ANN_NONE, TVM_ANN_UNROLL};
  int unroll_kw = tvm_cfg_annotate(cfg, "unroll_kw", unroll_anns, 2, depthwise);
  int rorder[3] = {0, 1, 2};
  if (!depthwise && conv->nreduce == 4) {
    static const int perms[] = {0, 1, 2, 1, 2, 0};
    if ((st = tvm_cfg_reorder(cfg, "order_reduce", 3, perms, 2, 0, rorder)))
      goto out;
  }

  tvm_tensor *convt = conv->output;
  if ((st = tvm_cache_write(s, convt, "local", &CC))) goto out;
  if (O->op != conv && (st = tvm_compute_inline(tvm_stage_of(s, convt))))
    goto out;
  {
    tvm_stage *so = tvm_stage_of(s, O);
    tvm_iter_var *oco, *oci, *oho, *ohi, *owo, *owi, *f1, *f2;
    st = tvm_split(so, tvm_stage_axis(so, 1), tc, &oco, &oci);
    if (!st) st = tvm_split(so, tvm_stage_axis(so, 2), th, &oho, &ohi);
    if (!st) st = tvm_split(so, tvm_stage_axis(so, 3), tw, &owo, &owi);
    if (!st)
      st = tvm_reorder(so, (tvm_iter_var *[]){oco, oho, owo, oci, ohi, owi,
                                              tvm_stage_axis(so, 4)}, 7);
    if (!st) st = tvm_fuse(so, tvm_stage_axis(so, 0), oco, &f1);
    if (!st) st = tvm_fuse(so, f1, oho, &f2);
    if (!st) st = tvm_parallel(so, f2);
    if (!st && tc > 1) st = tvm_unroll(so, oci);
    if (!st && th > 1) st = tvm_unroll(so, ohi);
    if (!st) st = tvm_unroll(so, owi);
    if (!st) st = tvm_vectorize(so, tvm_stage_axis(so, 4));
    if (st) goto out;

    tvm_stage *sc = tvm_stage_of(s, CC);
    if ((st = tvm_compute_at(sc, so, owo))) goto out;
    tvm_iter_var *order[8];
    int no = 0, nred = tvm_stage_num_reduce_axes(sc);
    if (nred == 4) { /* (ic, ry, rx) in the chosen order, then icb */
      for (int r = 0; r < 3; r++)
        order[no++] = tvm_stage_reduce_axis(sc, rorder[r]);
      order[no++] = tvm_stage_reduce_axis(sc, 3);
    } else {
      for (int r = 0; r < nred; r++)
        order[no++] = tvm_stage_reduce_axis(sc, r);
    }
    tvm_iter_var *rx = nred >= 2 ? tvm_stage_reduce_axis(sc, nred == 4 ? 2 : 1)
                                 : NULL;
    order[no++] = tvm_stage_axis(sc, 2);
    order[no++] = tvm_stage_axis(sc, 3);
    order[no++] = tvm_stage_axis(sc, 1);
    order[no++] = tvm_stage_axis(sc, 4);
    st = tvm_reorder(sc, order, no);
    if (!st && tc > 1) st = tvm_unroll(sc, tvm_stage_axis(sc, 1));
    if (!st && th > 1) st = tvm_unroll(sc, tvm_stage_axis(sc, 2));
    if (!st) st = tvm_unroll(sc, tvm_stage_axis(sc, 3));
    if (!st) st = tvm_vectorize(sc, tvm_stage_axis(sc, 4));
    if (!st && rx && unroll_kw == TVM_ANN_UNROLL) st = tvm_unroll(sc, rx);
    /* a depthwise window unrolled whole: each row's padding test and
     * loads are computed once per block, not once per trip of a loop */
    if (!st && rx && depthwise && nred == 2 && unroll_kw == TVM_ANN_UNROLL)
      st = tvm_unroll(sc, tvm_stage_reduce_axis(sc, 0));
    if (st) goto out;
  }
  if (pad && depthwise) {
    /* a depthwise step reads input vectors, not broadcasts: reading the
     * zero padding through a select right there measured 2.5-3x faster
     * than a padded copy (a copy per row, or one pass at the root) */
    st = tvm_compute_inline(tvm_stage_of(s, pad->output));
  } else if (pad) {
    st = schedule_pad(s, pad);
  }
out:
  tvm_ptrvec_free(&ops);
  return st;
}
