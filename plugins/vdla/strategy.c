/*
 * plugins/vdla/strategy.c - VDLA's schedule templates: int8 conv2d and
 * dense in the blocked layouts of vdla_workload.h, tensorized onto
 * vdla_gemm, with knobs for the tuner (core/tune, tvm/config.h):
 *
 *   tile_h, tile_w, tile_oc, tile_ic  splits of the output rows, columns,
 *                                     output and input channel blocks
 *                                     (dense: tile_oc, tile_ic)
 *   n_vt                              virtual threads: 1 (serial) or 2
 *   vt_axis                           what the threads split: "h" output
 *                                     rows (they share weights) or "oc"
 *                                     output channel blocks (they share
 *                                     the input)
 *
 * The schedule (conv2d): the accumulation in vdla.acc (cache_write), the
 * padded input in vdla.inp (cache_read of the padding stage, which is
 * inlined into the copy: zero padding by the DMA) and the kernel in
 * vdla.wgt, both loaded per tile_ic chunk of input channels; the output
 * tiled (oc, h, w) with the threads outside each tile's computation, so
 * that inject_virtual_thread interleaves the threads' loads and GEMMs and
 * inject_dep_tokens lets one thread's loads run while the other's GEMMs
 * do (latency hiding); the GEMM loop order (rows, columns outside; input
 * channels, kernel window, output channels inside) makes each chunk one
 * GEMM instruction whose micro-ops are the window, identical for every
 * tile (micro-op cache hits).  The fused epilogue (shift, bias, clip)
 * stays in the output stage; the plugin's vdla_epilogue pass moves it
 * onto the ALU.  The defaults are the tiles that move the fewest DRAM
 * bytes and fit the buffers with n_vt threads.
 */
#include <string.h>

#include "tvm/config.h"
#include "tvm/schedule.h"
#include "vdla_plugin.h"

/* The compute op tagged tag reachable from out, or NULL. */
static tvm_operation *tagged(tvm_tensor *out, const char *tag) {
  tvm_ptrvec ops = {0};
  tvm_operation *r = NULL;
  if (tvm_op_reachable_computes(out, &ops) != TVM_OK) return NULL;
  for (size_t i = 0; i < ops.len && !r; i++) {
    tvm_operation *op = ops.data[i];
    if (op->tag && !strcmp(op->tag, tag)) r = op;
  }
  tvm_ptrvec_free(&ops);
  return r;
}

/* The intrinsic the host declared, or one declared here. */
static tvm_status gemm_intrin(tvm_plugin_target *t, tvm_ctx *c,
                              const tvm_plugin_strategy_call *call,
                              tvm_tensor_intrin **out) {
  for (uint32_t i = 0; call && i < call->nintrins; i++)
    if (call->intrins[i] && !strcmp(call->intrin_names[i], "vdla_gemm")) {
      *out = call->intrins[i];
      return TVM_OK;
    }
  return vdla_declare_gemm(t, c, out);
}

/* Entries (of each buffer) a conv tile needs. */
typedef struct need {
  int64_t inp, wgt, acc;
} need;

static need conv_need(int64_t K, int64_t S, int64_t th, int64_t tw,
                      int64_t toc, int64_t tic, int64_t nvt, int bias) {
  need n; /* every thread has its own copy of each tile */
  n.inp = tic * ((th - 1) * S + K) * ((tw - 1) * S + K) * nvt;
  n.wgt = toc * tic * K * K * nvt;
  n.acc = toc * th * tw * nvt * (bias ? 2 : 1); /* the bias tile beside */
  return n;
}

static int64_t cap_of(const vdla_config *hw, int buf) {
  switch (buf) {
  case VDLA_BUF_INP: return (int64_t)hw->inp_kib * 1024 / (hw->batch * hw->block_in);
  case VDLA_BUF_WGT: return (int64_t)hw->wgt_kib * 1024 / (hw->block_in * hw->block_out);
  default: {
    int64_t a = (int64_t)hw->acc_kib * 1024 / (hw->batch * hw->block_out * 4);
    int64_t o = (int64_t)hw->out_kib * 1024 / (hw->batch * hw->block_out);
    return a < o ? a : o;
  }
  }
}

/* The default tiles: the least estimated load-module time (bytes over the
 * bus, a DMA latency per instruction, and per tile the first loads that
 * nothing hides) among the tiles that fit; returns that estimate. */
static double conv_default(const vdla_config *hw, int64_t OH, int64_t OW,
                         int64_t OCO, int64_t ICO, int64_t K, int64_t S,
                         int64_t nvt, int vt_h, int bias, int64_t best[4]) {
  double best_cost = -1;
  best[0] = best[1] = best[2] = best[3] = 1;
  int64_t vh = vt_h ? nvt : 1, vo = vt_h ? 1 : nvt;
  for (int64_t th = 1; th <= OH; th++) {
    if (OH % th || (OH / th) % vh) continue;
    for (int64_t tw = 1; tw <= OW; tw++) {
      if (OW % tw) continue;
      for (int64_t toc = 1; toc <= OCO; toc++) {
        if (OCO % toc || (OCO / toc) % vo) continue;
        for (int64_t tic = 1; tic <= ICO; tic++) {
          if (ICO % tic) continue;
          need n = conv_need(K, S, th, tw, toc, tic, nvt, bias);
          if (n.inp > cap_of(hw, VDLA_BUF_INP) || n.wgt > cap_of(hw, VDLA_BUF_WGT) ||
              n.acc > cap_of(hw, VDLA_BUF_ACC) || toc * tic * K * K > 4096)
            continue;
          double tiles = (double)(OH / th) * (OW / tw) * (OCO / toc);
          double in_b = (double)ICO * ((th - 1) * S + K) * ((tw - 1) * S + K) *
                        hw->batch * hw->block_in;
          double w_b = (double)ICO * K * K * toc * hw->block_in * hw->block_out;
          /* per DMA instruction latency: count instructions too */
          double insns = (double)(ICO / tic) * (toc + tic * ((th - 1) * S + K));
          double first = (double)tic * ((th - 1) * S + K) * ((tw - 1) * S + K) *
                             hw->batch * hw->block_in +
                         (double)tic * K * K * toc * hw->block_in * hw->block_out;
          double cost = tiles * ((in_b + w_b + first) / hw->bus_bytes +
                                 insns * hw->dma_latency);
          if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            best[0] = th, best[1] = tw, best[2] = toc, best[3] = tic;
          }
        }
      }
    }
  }
  return best_cost < 0 ? 1e300 : best_cost;
}

/* See vdla_plugin.h. */
int vdla_conv_fits(const vdla_config *hw, int64_t OH, int64_t OW,
                   int64_t OCO, int64_t ICO, int64_t K, int64_t S, int bias) {
  int64_t b[4];
  return conv_default(hw, OH, OW, OCO, ICO, K, S, 1, 1, bias, b) < 1e300;
}

/* Splits extent by the knob name; default inner dflt; *inner gets it. */
static tvm_status knob_split(tvm_config *cfg, const char *name, int64_t extent,
                             int64_t dflt, int64_t *inner) {
  int64_t d[2] = {extent / dflt, dflt}, out[2];
  tvm_status st = tvm_cfg_split(cfg, name, extent, 2, d, out);
  if (!st) *inner = out[1];
  return st;
}

static const int64_t vt_choices[] = {1, 2};
static const char *const vt_axes[] = {"h", "oc"};

/* conv2d (tag vdla_conv2d) onto vdla_gemm; see the file comment. */
static int32_t schedule_conv(tvm_plugin_target *t,
                             const tvm_plugin_strategy_call *call,
                             tvm_schedule *s, tvm_tensor **outs,
                             uint32_t nouts, tvm_config *cfg) {
  tvm_ctx *c = s->ctx;
  const vdla_config *hw = &t->cfg;
  tvm_operation *conv = NULL;
  if (nouts == 1 && !(conv = tagged(outs[0], "vdla_conv2d")))
    conv = tagged(outs[0], "qconv2d_blocked"); /* the graph's QConv_blocked */
  tvm_ptrvec ins = {0};
  if (!conv || conv->nreduce != 4 || tvm_op_inputs(conv, &ins) || ins.len != 2) {
    tvm_ptrvec_free(&ins);
    return vdla_fail(TVM_ERR_UNSUPPORTED, "vdla conv2d: expects one output "
                     "over a 'vdla_conv2d' computation (vdla_workload.h) or "
                     "a 'qconv2d_blocked' one (the graph's QConv_blocked)");
  }
  tvm_tensor *pad = ins.data[0], *kernel = ins.data[1];
  tvm_ptrvec_free(&ins);
  tvm_tensor *res = outs[0], *CT = conv->output, *bias = NULL;
  if (res == CT || res->ndim != 6 || tvm_op_inputs(res->op, &ins))
    return vdla_fail(TVM_ERR_UNSUPPORTED, "vdla conv2d: the output must be "
                     "the int8 requantization of the convolution");
  for (size_t i = 0; i < ins.len; i++) /* a bias tile added before it */
    if (ins.data[i] != CT) bias = ins.data[i];
  tvm_ptrvec_free(&ins);
  int64_t OCO = CT->shape_c[1], OH = CT->shape_c[2], OW = CT->shape_c[3];
  int64_t ICO = kernel->shape_c[1], K = kernel->shape_c[2];
  if (CT->shape_c[4] != hw->batch || CT->shape_c[5] != hw->block_out ||
      kernel->shape_c[5] != hw->block_in)
    return vdla_fail(TVM_ERR_UNSUPPORTED, "vdla conv2d: layouts blocked by "
                     "another GEMM shape than the target's %ux%ux%u",
                     hw->batch, hw->block_in, hw->block_out);
  /* stride: input rows per output row, from the padded input's height */
  int64_t PH = pad->shape_c[2];
  int64_t S = OH > 1 ? (PH - K) / (OH - 1) : 1;
  if (S < 1) S = 1;
  /* two threads by default where tiles split evenly between them exist
   * (rows or channel blocks; SqueezeNet's 55x55 maps of one channel block
   * have neither), and they split what costs less */
  int64_t b0[4], b1[4];
  double cost_h = conv_default(hw, OH, OW, OCO, ICO, K, S, 2, 1, !!bias, b0);
  double cost_oc = conv_default(hw, OH, OW, OCO, ICO, K, S, 2, 0, !!bias, b1);
  int64_t nvt = tvm_cfg_choice(cfg, "n_vt", vt_choices, 2,
                               cost_h < 1e300 || cost_oc < 1e300 ? 1 : 0);
  int dflt_axis = nvt > 1 && cost_oc < cost_h;
  int vt_h = tvm_cfg_category(cfg, "vt_axis", vt_axes, 2, dflt_axis) == 0;
  int64_t d[4];
  conv_default(hw, OH, OW, OCO, ICO, K, S, nvt, vt_h, !!bias, d);
  int64_t th, tw, toc, tic;
  tvm_status st = knob_split(cfg, "tile_h", OH, d[0], &th);
  if (!st) st = knob_split(cfg, "tile_w", OW, d[1], &tw);
  if (!st) st = knob_split(cfg, "tile_oc", OCO, d[2], &toc);
  if (!st) st = knob_split(cfg, "tile_ic", ICO, d[3], &tic);
  if (st) return vdla_fail(st, "vdla conv2d: %s", tvm_diag_message());
  if (nvt > 1 && (vt_h ? (OH / th) % nvt : (OCO / toc) % nvt))
    tvm_cfg_reject(cfg, "%lld virtual threads do not divide the %s tiles",
                   (long long)nvt, vt_h ? "row" : "channel");
  need n = conv_need(K, S, th, tw, toc, tic, nvt, !!bias);
  if (n.inp > cap_of(hw, VDLA_BUF_INP) || n.wgt > cap_of(hw, VDLA_BUF_WGT) ||
      n.acc > cap_of(hw, VDLA_BUF_ACC))
    tvm_cfg_reject(cfg, "tiles need %lld/%lld/%lld inp/wgt/acc entries, more "
                   "than the buffers hold", (long long)n.inp,
                   (long long)n.wgt, (long long)n.acc);
  tvm_tensor_intrin *gemm = NULL;
  if ((st = gemm_intrin(t, c, call, &gemm))) return st;

  tvm_tensor *CL, *PL, *WL;
  st = tvm_cache_write(s, CT, VDLA_SCOPE_ACC, &CL);
  if (!st) st = tvm_compute_inline(tvm_stage_of(s, CT));
  tvm_operation *readers[1] = {tvm_stage_op(tvm_stage_of(s, CL))};
  if (!st) st = tvm_cache_read(s, pad, VDLA_SCOPE_INP, readers, 1, &PL);
  if (!st && pad->op->kind == TVM_OP_COMPUTE)
    st = tvm_compute_inline(tvm_stage_of(s, pad));
  readers[0] = tvm_stage_op(tvm_stage_of(s, CL));
  if (!st) st = tvm_cache_read(s, kernel, VDLA_SCOPE_WGT, readers, 1, &WL);
  tvm_tensor *BL = NULL;
  readers[0] = tvm_stage_op(tvm_stage_of(s, res));
  if (!st && bias) st = tvm_cache_read(s, bias, VDLA_SCOPE_ACC, readers, 1, &BL);
  if (st) return vdla_fail(st, "vdla conv2d: %s", tvm_diag_message());

  /* res: n, oc, y, x, b, o -> n, oco, [vt], yo, xo, oci, yi, xi, b, o */
  tvm_stage *sr = tvm_stage_of(s, res), *sc = tvm_stage_of(s, CL);
  tvm_iter_var *oco, *oci, *yo, *yi, *xo, *xi, *vt = NULL, *at;
  st = tvm_split(sr, tvm_stage_axis(sr, 1), toc, &oco, &oci);
  if (!st) st = tvm_split(sr, tvm_stage_axis(sr, 2), th, &yo, &yi);
  if (!st) st = tvm_split(sr, tvm_stage_axis(sr, 3), tw, &xo, &xi);
  if (!st && nvt > 1) {
    tvm_iter_var *rest;
    st = tvm_split_nparts(sr, vt_h ? yo : oco, nvt, &vt, &rest);
    if (vt_h) yo = rest;
    else oco = rest;
  }
  tvm_iter_var *order[10];
  int no = 0;
  order[no++] = tvm_stage_axis(sr, 0);
  if (vt) order[no++] = vt;
  order[no++] = oco, order[no++] = yo, order[no++] = xo;
  order[no++] = oci, order[no++] = yi, order[no++] = xi;
  order[no++] = tvm_stage_axis(sr, 4), order[no++] = tvm_stage_axis(sr, 5);
  if (!st) st = tvm_reorder(sr, order, no);
  if (vt) {
    /* the threads innermost of the tile loops: their tiles interleave */
    tvm_iter_var *o2[4] = {oco, yo, xo, vt};
    if (!st) st = tvm_reorder(sr, o2, 4);
    if (!st) st = tvm_bind(sr, vt, tvm_thread_axis(c, "vthread", NULL));
    at = vt;
  } else {
    at = xo;
  }
  if (!st) st = tvm_compute_at(sc, sr, at);
  if (!st && BL) st = tvm_compute_at(tvm_stage_of(s, BL), sr, at);
  /* CL: n, oc, y, x, b, o | ic, ky, kx, ii -> n, ico, y, x, ici, ky, kx, oc, b, o, ii */
  tvm_iter_var *ico, *ici;
  if (!st) st = tvm_split(sc, tvm_stage_reduce_axis(sc, 0), tic, &ico, &ici);
  tvm_iter_var *co[11] = {tvm_stage_axis(sc, 0), ico, tvm_stage_axis(sc, 2),
                          tvm_stage_axis(sc, 3), ici,
                          tvm_stage_reduce_axis(sc, 1),
                          tvm_stage_reduce_axis(sc, 2), tvm_stage_axis(sc, 1),
                          tvm_stage_axis(sc, 4), tvm_stage_axis(sc, 5),
                          tvm_stage_reduce_axis(sc, 3)};
  if (!st) st = tvm_reorder(sc, co, 11);
  if (!st) st = tvm_tensorize(sc, tvm_stage_axis(sc, 4), gemm);
  if (!st) st = tvm_compute_at(tvm_stage_of(s, PL), sc, ico);
  if (!st) st = tvm_compute_at(tvm_stage_of(s, WL), sc, ico);
  if (st) return vdla_fail(st, "vdla conv2d: %s", tvm_diag_message());
  return TVM_OK;
}

/* dense (tag vdla_dense) onto vdla_gemm, bias in the accumulator. */
static int32_t schedule_dense(tvm_plugin_target *t,
                              const tvm_plugin_strategy_call *call,
                              tvm_schedule *s, tvm_tensor **outs,
                              uint32_t nouts, tvm_config *cfg) {
  tvm_ctx *c = s->ctx;
  const vdla_config *hw = &t->cfg;
  tvm_operation *mm = nouts == 1 ? tagged(outs[0], "vdla_dense") : NULL;
  tvm_ptrvec ins = {0}, rins = {0};
  if (!mm || mm->nreduce != 2 || tvm_op_inputs(mm, &ins) || ins.len != 2 ||
      outs[0]->op == mm || tvm_op_inputs(outs[0]->op, &rins)) {
    tvm_ptrvec_free(&ins);
    tvm_ptrvec_free(&rins);
    return vdla_fail(TVM_ERR_UNSUPPORTED, "vdla dense: expects one output "
                     "over a 'vdla_dense' computation (vdla_workload.h)");
  }
  tvm_tensor *data = ins.data[0], *weight = ins.data[1], *bias = NULL;
  for (size_t i = 0; i < rins.len; i++)
    if (rins.data[i] != mm->output) bias = rins.data[i];
  tvm_ptrvec_free(&ins);
  tvm_ptrvec_free(&rins);
  tvm_tensor *res = outs[0], *MT = mm->output;
  int64_t OCO = MT->shape_c[1], ICO = weight->shape_c[1];
  int64_t nvt = tvm_cfg_choice(cfg, "n_vt", vt_choices, 2, OCO % 2 ? 0 : 1);
  /* defaults: the largest tiles that fit */
  int64_t dtoc = 1, dtic = 1;
  for (int64_t toc = 1; toc <= OCO; toc++)
    for (int64_t tic = 1; tic <= ICO; tic++)
      if (!(OCO % toc) && !((OCO / toc) % nvt) && !(ICO % tic) &&
          toc * tic * nvt <= cap_of(hw, VDLA_BUF_WGT) &&
          tic * nvt <= cap_of(hw, VDLA_BUF_INP) &&
          2 * toc * nvt <= cap_of(hw, VDLA_BUF_ACC) && toc * tic >= dtoc * dtic)
        dtoc = toc, dtic = tic;
  int64_t toc, tic;
  tvm_status st = knob_split(cfg, "tile_oc", OCO, dtoc, &toc);
  if (!st) st = knob_split(cfg, "tile_ic", ICO, dtic, &tic);
  if (st) return vdla_fail(st, "vdla dense: %s", tvm_diag_message());
  if (nvt > 1 && (OCO / toc) % nvt)
    tvm_cfg_reject(cfg, "%lld virtual threads do not divide the channel tiles",
                   (long long)nvt);
  tvm_tensor_intrin *gemm = NULL;
  if ((st = gemm_intrin(t, c, call, &gemm))) return st;
  tvm_tensor *ML, *DL, *WL, *BL = NULL;
  st = tvm_cache_write(s, MT, VDLA_SCOPE_ACC, &ML);
  if (!st) st = tvm_compute_inline(tvm_stage_of(s, MT));
  tvm_operation *readers[1] = {tvm_stage_op(tvm_stage_of(s, ML))};
  if (!st) st = tvm_cache_read(s, data, VDLA_SCOPE_INP, readers, 1, &DL);
  readers[0] = tvm_stage_op(tvm_stage_of(s, ML));
  if (!st) st = tvm_cache_read(s, weight, VDLA_SCOPE_WGT, readers, 1, &WL);
  readers[0] = tvm_stage_op(tvm_stage_of(s, res));
  if (!st && bias) st = tvm_cache_read(s, bias, VDLA_SCOPE_ACC, readers, 1, &BL);
  if (st) return vdla_fail(st, "vdla dense: %s", tvm_diag_message());
  tvm_stage *sr = tvm_stage_of(s, res), *sm = tvm_stage_of(s, ML);
  tvm_iter_var *oco, *oci, *vt = NULL, *at;
  st = tvm_split(sr, tvm_stage_axis(sr, 1), toc, &oco, &oci);
  if (!st && nvt > 1) {
    tvm_iter_var *rest;
    st = tvm_split_nparts(sr, oco, nvt, &vt, &rest);
    oco = rest;
    tvm_iter_var *o2[2] = {oco, vt};
    if (!st) st = tvm_reorder(sr, o2, 2);
    if (!st) st = tvm_bind(sr, vt, tvm_thread_axis(c, "vthread", NULL));
  }
  at = vt ? vt : oco;
  if (!st) st = tvm_compute_at(sm, sr, at);
  if (!st && BL) st = tvm_compute_at(tvm_stage_of(s, BL), sr, at);
  tvm_iter_var *ico, *ici;
  if (!st) st = tvm_split(sm, tvm_stage_reduce_axis(sm, 0), tic, &ico, &ici);
  tvm_iter_var *mo[7] = {tvm_stage_axis(sm, 0), ico, ici, tvm_stage_axis(sm, 1),
                         tvm_stage_axis(sm, 2), tvm_stage_axis(sm, 3),
                         tvm_stage_reduce_axis(sm, 1)};
  if (!st) st = tvm_reorder(sm, mo, 7);
  if (!st) st = tvm_tensorize(sm, tvm_stage_axis(sm, 2), gemm);
  if (!st) st = tvm_compute_at(tvm_stage_of(s, DL), sm, ico);
  if (!st) st = tvm_compute_at(tvm_stage_of(s, WL), sm, ico);
  if (st) return vdla_fail(st, "vdla dense: %s", tvm_diag_message());
  return TVM_OK;
}

/* Through schedule() (no call): the intrinsic is declared here. */
static int32_t conv_plain(tvm_plugin_target *t, tvm_schedule *s,
                          tvm_tensor **outs, uint32_t nouts, tvm_config *cfg) {
  return schedule_conv(t, NULL, s, outs, nouts, cfg);
}
static int32_t dense_plain(tvm_plugin_target *t, tvm_schedule *s,
                           tvm_tensor **outs, uint32_t nouts, tvm_config *cfg) {
  return schedule_dense(t, NULL, s, outs, nouts, cfg);
}

/* Matched by the operator names of vdla_workload.h's computations, and
 * by the graph's quantized convolution (QConv_blocked, made by the
 * compiler's quantize pass, whose compute has the same structure). */
const tvm_plugin_strategy vdla_strategies[] = {
    {.struct_size = sizeof(tvm_plugin_strategy), .priority = 10,
     .op = "QConv_blocked", .name = "vdla.conv2d_gemm", .schedule = conv_plain,
     .match = TVM_STRATEGY_MATCH_OP, .schedule_call = schedule_conv},
    {.struct_size = sizeof(tvm_plugin_strategy), .priority = 10,
     .op = "vdla_conv2d", .name = "vdla.conv2d_gemm", .schedule = conv_plain,
     .match = TVM_STRATEGY_MATCH_OP, .schedule_call = schedule_conv},
    {.struct_size = sizeof(tvm_plugin_strategy), .priority = 10,
     .op = "vdla_dense", .name = "vdla.dense_gemm", .schedule = dense_plain,
     .match = TVM_STRATEGY_MATCH_OP, .schedule_call = schedule_dense},
};
const uint32_t vdla_nstrategies = 3;
