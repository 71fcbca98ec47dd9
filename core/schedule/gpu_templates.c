/*
 * core/schedule/gpu_templates.c - schedule templates for thread targets
 * shared by the GPU plugins (tvm/gpu_templates.h): spatial-pack
 * conv2d_NCHWc (regular, depthwise, 1x1), pool_NCHWc and injective
 * groups, none of them using shared memory.
 *
 * conv2d_NCHWc.  O = epilogue(conv(pad(X), W)) of shape [N, Mo, OH, OW,
 * ob]; every stage but the conv and O is inlined (the padding is read
 * through a select, the bias and activation run on the registers before
 * the one store).  O's loops:
 *
 *   blockIdx.z  fused (n, oc_chunk)
 *   blockIdx.y / threadIdx.y   oh / tile_oh split by wg_y
 *   blockIdx.x / threadIdx.x   ow / tile_ow split by wg_x
 *     CC[tile_oh][tile_ow][ob] = 0                       ("local")
 *     for ic_outer, ky, kx, ic_block  (depthwise: ky, kx)
 *       unrolled tile_oh x tile_ow: CC += X (broadcast) * W[ob] (vector)
 *     unrolled tile_oh x tile_ow: O[ob] = epilogue(CC[ob])   (vector)
 *
 * The output-channel block is the vector: with ob = the target's lanes
 * each reduction step loads one weight vector (vloadN) and updates
 * tile_oh * tile_ow accumulator vectors.  For a 1x1 convolution the
 * window loops vanish and the block is a GEMM tile of tile_oh * tile_ow
 * pixels by ob output channels reduced over the input channels.  The
 * register block's extents divide OH and OW (no partial blocks); the
 * work-group split may leave a guarded tail.
 *
 * pool_NCHWc.  Output [N, C/b, OH, OW, b]: its first four axes fused and
 * split by the work-group size, the block vectorized; the window stage
 * (MaxPool's rmax, a global pool's sum) computed inside the work-item,
 * its padding inlined.
 *
 * dense.  Gemm's product tagged "dense" (Y[i, j] = sum_k A[i, k] *
 * B[j, k]: both operands are read along k), after the paper's Mali dense
 * schedule: k is split by the vector lanes and the lanes factored out
 * (rfactor) into a register block MF[i, j, kl] of tile_n vectors, so each
 * step loads one vector of A and tile_n vectors of B; the horizontal sums
 * and the epilogue (bias, activation) follow in the same work-item.
 * (i, j / tile_n) are fused and split by the work-group size.
 *
 * injective.  The single output's innermost axis split by the vector
 * width and vectorized, the rest fused and split by the work-group size;
 * every other stage inlined.
 */
#include <string.h>

#include "gpu_int.h"
#include "tvm/te.h"

#define OK(x)                                                                 \
  do {                                                                        \
    if ((st = (x)) != TVM_OK) goto out;                                       \
  } while (0)

/* ---- helpers shared with gpu_winograd.c (gpu_int.h) ------------------ */

/* Binds iv of st to the thread axis named tag. */
tvm_status gpu_bind(tvm_stage *st, tvm_iter_var *iv, const char *tag) {
  tvm_iter_var *t = tvm_thread_axis(st->ctx, tag, NULL);
  if (!t)
    return tvm_diag_set(TVM_ERR_NOMEM, "gpu template: out of memory");
  return tvm_bind(st, iv, t);
}

/* Can a block of n lanes be one vector of a target with `lanes`? */
int gpu_vectorizable(int64_t n, int64_t lanes) {
  return n >= 2 && n <= lanes && (n & (n - 1)) == 0;
}

/* Index in choices[0..n) of the largest value at most cap (0 if none). */
int gpu_largest_upto(const int64_t *choices, int n, int64_t cap) {
  int best = 0;
  for (int i = 0; i < n; i++)
    if (choices[i] <= cap) best = i;
  return best;
}

/* Records a rejection and declines: the work-group is too large. */
tvm_status gpu_too_large(tvm_config *cfg, const char *who, int64_t wg,
                         int64_t max) {
  if (cfg)
    tvm_cfg_reject(cfg, "%s: work-groups of %lld work-items exceed the "
                   "target's limit %lld", who, (long long)wg, (long long)max);
  return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                      "%s: work-groups of %lld work-items exceed the "
                      "target's limit %lld (choose smaller wg knobs)",
                      who, (long long)wg, (long long)max);
}

/* The 1-D work-group size knob "wg" among the powers of two from `lo` to
 * 256, default the largest up to min(dflt_cap, the target's limit). */
int64_t gpu_wg_knob(tvm_config *cfg, int64_t lo, int64_t dflt_cap,
                    const tvm_gpu_limits *lim) {
  int64_t ch[8];
  int n = 0;
  for (int64_t v = lo; v <= 256 && n < 8; v *= 2) ch[n++] = v;
  int64_t cap = lim->max_threads < dflt_cap ? lim->max_threads : dflt_cap;
  return tvm_cfg_choice(cfg, "wg", ch, n, gpu_largest_upto(ch, n, cap));
}

/* Divisors of n up to cap, into out (at most 16); returns how many. */
int gpu_divisors_upto(int64_t n, int64_t cap, int64_t *out) {
  int k = 0;
  for (int64_t d = 1; d <= n && d <= cap && k < 16; d++)
    if (n % d == 0) out[k++] = d;
  return k;
}

/* ---- conv2d_NCHWc ------------------------------------------------------- */

/* Is op the blocked convolution of a Conv_NCHWc? */
static int is_conv_nchwc(const tvm_operation *op, int *depthwise) {
  if (!op->tag) return 0;
  *depthwise = strcmp(op->tag, "depthwise_conv2d_NCHWc") == 0;
  return *depthwise || strcmp(op->tag, "conv2d_NCHWc") == 0;
}

/* The smallest power of two at least n, capped. */
static int64_t pow2_at_least(int64_t n, int64_t cap) {
  int64_t p = 1;
  while (p < n && p < cap) p *= 2;
  return p;
}

/* See tvm/gpu_templates.h and the top of this file. */
tvm_status tvm_gpu_schedule_conv2d_nchwc(tvm_schedule *s, tvm_tensor **outs,
                                         int nouts, const tvm_gpu_limits *lim,
                                         tvm_config *cfg) {
  static const char who[] = "gpu conv2d_NCHWc template";
  static const int64_t wgx_choices[] = {1, 2, 4, 8, 16, 32};
  static const int64_t wgy_choices[] = {1, 2, 4, 8, 16};
  static const int unroll_anns[] = {TVM_ANN_NONE, TVM_ANN_UNROLL};
  tvm_ptrvec ops = {0};
  tvm_operation *conv = NULL;
  int depthwise = 0, dw;
  tvm_status st = TVM_OK;
  if (nouts != 1 || outs[0]->ndim != 5)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s: expected one 5-D output, got %d outputs", who,
                        nouts);
  tvm_tensor *O = outs[0];
  OK(tvm_op_reachable_computes(O, &ops));
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (is_conv_nchwc(op, &dw)) {
      conv = op;
      depthwise = dw;
    }
  }
  if (!conv || conv->output->ndim != 5) {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: no conv2d_NCHWc stage under "
                      "'%s'", who, O->name);
    goto out;
  }
  for (int d = 0; d < 5; d++)
    if (O->shape_c[d] < 1) {
      st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: '%s' has a symbolic "
                        "shape", who, O->name);
      goto out;
    }
  int64_t OH = O->shape_c[2], OW = O->shape_c[3], OB = O->shape_c[4];
  int nred = conv->nreduce;
  /* a 1x1 window: the block is a GEMM tile, taller by default */
  int64_t ky = 0, kx = 0;
  int onebyone = nred == 4 &&
                 tvm_is_const_int(conv->reduce_axis[1]->dom.extent, &ky) &&
                 tvm_is_const_int(conv->reduce_axis[2]->dom.extent, &kx) &&
                 ky == 1 && kx == 1;
  int64_t hch[16], wch[16];
  int nh = gpu_divisors_upto(OH, 4, hch), nw = gpu_divisors_upto(OW, 8, wch);
  /* defaults: about 4 accumulator vectors (2 x 2 for a 1x1 GEMM tile) */
  int64_t th = tvm_cfg_choice(cfg, "tile_oh", hch, nh,
                              onebyone ? gpu_largest_upto(hch, nh, 2) : 0);
  int64_t tw = tvm_cfg_choice(cfg, "tile_ow", wch, nw,
                              gpu_largest_upto(wch, nw, onebyone ? 2 : 4));
  /* default work-group: enough columns to cover the row, at most 64
   * work-items (and the target's limit) */
  int64_t cols = (OW / tw), cap = lim->max_threads < 64 ? lim->max_threads : 64;
  int dx = gpu_largest_upto(wgx_choices, 6, pow2_at_least(cols, cap));
  int64_t wx = tvm_cfg_choice(cfg, "wg_x", wgx_choices, 6, dx);
  int64_t rows = OH / th, ycap = cap / wgx_choices[dx];
  int dy = gpu_largest_upto(wgy_choices, 5,
                        pow2_at_least(rows, ycap > 1 ? ycap : 1) <= ycap
                            ? pow2_at_least(rows, ycap > 1 ? ycap : 1)
                            : 1);
  int64_t wy = tvm_cfg_choice(cfg, "wg_y", wgy_choices, 5, dy);
  int unroll_kw = tvm_cfg_annotate(cfg, "unroll_kw", unroll_anns, 2, 1);
  if (wx * wy > lim->max_threads) {
    st = gpu_too_large(cfg, who, wx * wy, lim->max_threads);
    goto out;
  }
  /* every stage between the conv and O, and the padding, is inlined */
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op && op != conv)
      OK(tvm_compute_inline(tvm_stage_of(s, op->output)));
  }
  tvm_tensor *CC;
  OK(tvm_cache_write(s, conv->output, "local", &CC));
  if (O->op != conv) OK(tvm_compute_inline(tvm_stage_of(s, conv->output)));
  tvm_stage *so = tvm_stage_of(s, O), *sc = tvm_stage_of(s, CC);
  tvm_iter_var *oho, *ohi, *owo, *owi, *by, *ty, *bx, *tx, *bz;
  OK(tvm_split(so, tvm_stage_axis(so, 2), th, &oho, &ohi));
  OK(tvm_split(so, tvm_stage_axis(so, 3), tw, &owo, &owi));
  OK(tvm_split(so, oho, wy, &by, &ty));
  OK(tvm_split(so, owo, wx, &bx, &tx));
  OK(tvm_fuse(so, tvm_stage_axis(so, 0), tvm_stage_axis(so, 1), &bz));
  OK(tvm_reorder(so, (tvm_iter_var *[]){bz, by, bx, ty, tx, ohi, owi,
                                        tvm_stage_axis(so, 4)}, 8));
  OK(gpu_bind(so, bz, "blockIdx.z"));
  OK(gpu_bind(so, by, "blockIdx.y"));
  OK(gpu_bind(so, bx, "blockIdx.x"));
  OK(gpu_bind(so, ty, "threadIdx.y"));
  OK(gpu_bind(so, tx, "threadIdx.x"));
  OK(tvm_unroll(so, ohi));
  OK(tvm_unroll(so, owi));
  int vec = gpu_vectorizable(OB, lim->lanes);
  if (vec) OK(tvm_vectorize(so, tvm_stage_axis(so, 4)));
  else OK(tvm_unroll(so, tvm_stage_axis(so, 4)));
  OK(tvm_compute_at(sc, so, tx));
  {
    tvm_iter_var *order[8];
    int no = 0;
    for (int r = 0; r < tvm_stage_num_reduce_axes(sc); r++)
      order[no++] = tvm_stage_reduce_axis(sc, r);
    order[no++] = tvm_stage_axis(sc, 2);
    order[no++] = tvm_stage_axis(sc, 3);
    order[no++] = tvm_stage_axis(sc, 4);
    OK(tvm_reorder(sc, order, no));
    OK(tvm_unroll(sc, tvm_stage_axis(sc, 2)));
    OK(tvm_unroll(sc, tvm_stage_axis(sc, 3)));
    if (vec) OK(tvm_vectorize(sc, tvm_stage_axis(sc, 4)));
    else OK(tvm_unroll(sc, tvm_stage_axis(sc, 4)));
    /* the kernel-width loop: (ic, ky, kx, icb) or depthwise (ky, kx) */
    int rx = depthwise ? 1 : 2;
    if (unroll_kw == TVM_ANN_UNROLL && tvm_stage_num_reduce_axes(sc) > rx)
      OK(tvm_unroll(sc, tvm_stage_reduce_axis(sc, rx)));
  }
out:
  tvm_ptrvec_free(&ops);
  return st;
}

/* ---- pool_NCHWc --------------------------------------------------------- */

/* See tvm/gpu_templates.h and the top of this file. */
tvm_status tvm_gpu_schedule_pool_nchwc(tvm_schedule *s, tvm_tensor **outs,
                                       int nouts, const tvm_gpu_limits *lim,
                                       tvm_config *cfg) {
  static const char who[] = "gpu pool_NCHWc template";
  static const int anns[] = {TVM_ANN_NONE, TVM_ANN_UNROLL};
  tvm_ptrvec ops = {0};
  tvm_operation *win = NULL;
  tvm_status st = TVM_OK;
  if (nouts != 1 || outs[0]->ndim != 5)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s: expected one 5-D output, got %d outputs", who,
                        nouts);
  tvm_tensor *O = outs[0];
  int64_t wg = gpu_wg_knob(cfg, 16, 64, lim);
  int unroll_rx = tvm_cfg_annotate(cfg, "unroll_rx", anns, 2, 0);
  if (wg > lim->max_threads) {
    st = gpu_too_large(cfg, who, wg, lim->max_threads);
    goto out;
  }
  OK(tvm_op_reachable_computes(O, &ops));
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op->nreduce == 2 && op->tag &&
        (!strcmp(op->tag, "pool_max") || !strcmp(op->tag, "pool_sum")))
      win = op;
  }
  if (!win || win->output->ndim != 5) {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: no window stage under '%s'",
                      who, O->name);
    goto out;
  }
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op && op != win)
      OK(tvm_compute_inline(tvm_stage_of(s, op->output)));
  }
  tvm_stage *so = tvm_stage_of(s, O), *sw = tvm_stage_of(s, win->output);
  tvm_iter_var *f1, *f2, *f3, *bx, *tx;
  OK(tvm_fuse(so, tvm_stage_axis(so, 0), tvm_stage_axis(so, 1), &f1));
  OK(tvm_fuse(so, f1, tvm_stage_axis(so, 2), &f2));
  OK(tvm_fuse(so, f2, tvm_stage_axis(so, 3), &f3));
  OK(tvm_split(so, f3, wg, &bx, &tx));
  OK(gpu_bind(so, bx, "blockIdx.x"));
  OK(gpu_bind(so, tx, "threadIdx.x"));
  int vec = gpu_vectorizable(O->shape_c[4], lim->lanes);
  tvm_stage *sr = win == O->op ? so : sw;
  if (vec) OK(tvm_vectorize(so, tvm_stage_axis(so, 4)));
  if (win != O->op) {
    sw->scope = "local";
    OK(tvm_compute_at(sw, so, tx));
  }
  /* the window loops outside the block, the block vectorized */
  tvm_iter_var *order[3] = {tvm_stage_reduce_axis(sr, 0),
                            tvm_stage_reduce_axis(sr, 1),
                            tvm_stage_axis(sr, 4)};
  OK(tvm_reorder(sr, order, 3));
  if (unroll_rx == TVM_ANN_UNROLL) OK(tvm_unroll(sr, order[1]));
  if (vec && sr != so) OK(tvm_vectorize(sr, order[2]));
out:
  tvm_ptrvec_free(&ops);
  return st;
}

/* ---- dense -------------------------------------------------------------- */

/* See tvm/gpu_templates.h and the top of this file. */
tvm_status tvm_gpu_schedule_dense(tvm_schedule *s, tvm_tensor **outs,
                                  int nouts, const tvm_gpu_limits *lim,
                                  tvm_config *cfg) {
  static const char who[] = "gpu dense template";
  tvm_ptrvec ops = {0};
  tvm_operation *dense = NULL;
  tvm_status st = TVM_OK;
  if (nouts != 1 || outs[0]->ndim != 2 || outs[0]->shape_c[0] < 1 ||
      outs[0]->shape_c[1] < 1)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: expected one 2-d output "
                        "of constant shape", who);
  tvm_tensor *O = outs[0];
  OK(tvm_op_reachable_computes(O, &ops));
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op->tag && strcmp(op->tag, "dense") == 0) dense = op;
  }
  int64_t K = -1, lanes = lim->lanes;
  if (!dense || dense->nreduce != 1 ||
      !tvm_is_const_int(dense->reduce_axis[0]->dom.extent, &K)) {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: '%s' computes no dense "
                      "product", who, O->name);
    goto out;
  }
  while (lanes > 2 && K % lanes) lanes /= 2;
  if (!gpu_vectorizable(lanes, lim->lanes) || K % lanes) {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: k = %lld is no multiple of "
                      "2 or more lanes", who, (long long)K);
    goto out;
  }
  int64_t N = O->shape_c[1], tch[16];
  int nt = gpu_divisors_upto(N, 8, tch);
  int64_t tn = tvm_cfg_choice(cfg, "tile_n", tch, nt, gpu_largest_upto(tch, nt, 4));
  int64_t wg = gpu_wg_knob(cfg, 16, 64, lim);
  if (wg > lim->max_threads) {
    st = gpu_too_large(cfg, who, wg, lim->max_threads);
    goto out;
  }
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op && op != dense)
      OK(tvm_compute_inline(tvm_stage_of(s, op->output)));
  }
  tvm_tensor *mm = dense->output, *MF;
  tvm_iter_var *ko, *kl, *jo, *ji, *f, *bx, *tx;
  {
    tvm_stage *sm = tvm_stage_of(s, mm);
    OK(tvm_split(sm, tvm_stage_reduce_axis(sm, 0), lanes, &ko, &kl));
    OK(tvm_rfactor(s, mm, kl, 2, &MF));
  }
  tvm_stage *so = tvm_stage_of(s, O), *sm = tvm_stage_of(s, mm),
            *sf = tvm_stage_of(s, MF);
  OK(tvm_split(so, tvm_stage_axis(so, 1), tn, &jo, &ji));
  OK(tvm_fuse(so, tvm_stage_axis(so, 0), jo, &f));
  OK(tvm_split(so, f, wg, &bx, &tx));
  OK(gpu_bind(so, bx, "blockIdx.x"));
  OK(gpu_bind(so, tx, "threadIdx.x"));
  OK(tvm_unroll(so, ji));
  if (O != mm) {
    sm->scope = "local";
    OK(tvm_compute_at(sm, so, tx));
  }
  sf->scope = "local";
  OK(tvm_compute_at(sf, so, tx));
  /* MF: (i, j, kl) + reduce ko -> (i, ko, j unrolled, kl vectorized) */
  OK(tvm_reorder(sf, (tvm_iter_var *[]){tvm_stage_axis(sf, 0),
                                        tvm_stage_reduce_axis(sf, 0),
                                        tvm_stage_axis(sf, 1),
                                        tvm_stage_axis(sf, 2)}, 4));
  OK(tvm_unroll(sf, tvm_stage_axis(sf, 1)));
  OK(tvm_vectorize(sf, tvm_stage_axis(sf, 2)));
out:
  tvm_ptrvec_free(&ops);
  return st;
}

/* ---- injective ---------------------------------------------------------- */

/* See tvm/gpu_templates.h and the top of this file. */
tvm_status tvm_gpu_schedule_injective(tvm_schedule *s, tvm_tensor **outs,
                                      int nouts, const tvm_gpu_limits *lim,
                                      tvm_config *cfg) {
  static const char who[] = "gpu injective template";
  tvm_ptrvec ops = {0};
  tvm_status st = TVM_OK;
  if (nouts != 1 || outs[0]->ndim < 1 || outs[0]->op->kind != TVM_OP_COMPUTE)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: expected one computed "
                        "output with at least one axis", who);
  tvm_tensor *O = outs[0];
  for (int d = 0; d < O->ndim; d++)
    if (O->shape_c[d] < 1)
      return tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: '%s' has a symbolic or "
                          "empty shape", who, O->name);
  int64_t inner = O->shape_c[O->ndim - 1];
  int64_t vch[2] = {1, lim->lanes};
  /* vectors of float32 only: other element types run scalar */
  int nv = gpu_vectorizable(lim->lanes, lim->lanes) && O->dtype.code == kDLFloat &&
                   O->dtype.bits == 32 && O->dtype.lanes == 1
               ? 2
               : 1;
  int64_t v = tvm_cfg_choice(cfg, "vector", vch, nv,
                             nv == 2 && inner % lim->lanes == 0 ? 1 : 0);
  int64_t wg = gpu_wg_knob(cfg, 32, 128, lim);
  if (wg > lim->max_threads) return gpu_too_large(cfg, who, wg, lim->max_threads);
  if (inner % v) {
    if (cfg)
      tvm_cfg_reject(cfg, "%s: vector %lld does not divide the innermost "
                     "extent %lld", who, (long long)v, (long long)inner);
    return tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: vector %lld does not "
                        "divide the innermost extent %lld of '%s'", who,
                        (long long)v, (long long)inner, O->name);
  }
  OK(tvm_op_reachable_computes(O, &ops));
  for (size_t i = 0; i < ops.len; i++)
    if (((tvm_operation *)ops.data[i])->nreduce > 0) {
      st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: '%s' reduces", who,
                        ((tvm_operation *)ops.data[i])->name);
      goto out;
    }
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op) OK(tvm_compute_inline(tvm_stage_of(s, op->output)));
  }
  tvm_stage *so = tvm_stage_of(s, O);
  tvm_iter_var *f = NULL, *vi = NULL, *bx, *tx, *innermost;
  int last = O->ndim - 1;
  innermost = tvm_stage_axis(so, last);
  if (v > 1) OK(tvm_split(so, innermost, v, &innermost, &vi));
  /* fuse (axis 0, ..., axis last-1, innermost) into one loop */
  for (int d = 0; d <= last; d++) {
    tvm_iter_var *next = d == last ? innermost : tvm_stage_axis(so, d);
    if (!f) f = next;
    else OK(tvm_fuse(so, f, next, &f));
  }
  OK(tvm_split(so, f, wg, &bx, &tx));
  OK(gpu_bind(so, bx, "blockIdx.x"));
  OK(gpu_bind(so, tx, "threadIdx.x"));
  if (vi) OK(tvm_vectorize(so, vi));
out:
  tvm_ptrvec_free(&ops);
  return st;
}
