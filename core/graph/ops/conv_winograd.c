/*
 * core/graph/ops/conv_winograd.c - the Winograd F(2x2, 3x3) convolution
 * as two internal operators, written by the alter_layout pass for a 3x3
 * stride-1 Conv (dilation 1, group 1) when the target's alter_layout
 * answers weight layout "winograd_F2x3" (tvm/graph_passes.h):
 *
 *   Conv2D_winograd_weight  W [K, C, 3, 3] -> U [4, 4, K, C],
 *                           U[., ., k, c] = G W[k, c] G^T
 *     (a constant W: fold_constants computes U once, at compile time)
 *   Conv2D_winograd         X [N, C, H, W], U, B [K] (optional)
 *                           -> Y [N, K, H + 2 ph - 2, W + 2 pw - 2]
 *     the input transform V = Bt d B of every 4x4 patch (stride 2), the
 *     16 GEMMs M = U V over the channels, the output transform At M A,
 *     plus B.  Attributes as Conv (pads / auto_pad, strides and
 *     dilations of 1, group 1); the padding must be the same on both
 *     sides of each axis.
 *
 * Computes: the TE layer's Winograd tensor expressions (tvm/te.h,
 * core/te/winograd.c), stages tagged winograd_kernel / _input
 * / _batch_gemm / _output, then "<name>.bias" adding B.  References:
 * the same algorithm in plain loops in double (the graph tests compare
 * the rewritten graph with the original Conv's reference besides).
 */
#include <string.h>

#include "layout_int.h"
#include "ops_int.h"

/* out (r x r) = L X L^T for L (r x n) and X (n x n), all row-major: every
 * Winograd transform of the references below (U = G g G^T, V = Bt d B,
 * Y = At M A). */
static void wino_sandwich(const double *L, int r, int n, const double *X,
                          double *out) {
  double t[8 * 8];
  for (int i = 0; i < r; i++) /* t = L X */
    for (int j = 0; j < n; j++) {
      double acc = 0;
      for (int a = 0; a < n; a++) acc += L[i * n + a] * X[a * n + j];
      t[i * n + j] = acc;
    }
  for (int i = 0; i < r; i++) /* out = t L^T */
    for (int j = 0; j < r; j++) {
      double acc = 0;
      for (int b = 0; b < n; b++) acc += t[i * n + b] * L[j * n + b];
      out[i * r + j] = acc;
    }
}

/* U = G g G^T (T x T) for up to W4W_LANES 3x3 kernels g at once, G
 * being T x 3: wino_sandwich with its inner dimension fixed at 3, the
 * same sums in the same order.  fold_constants runs it on every 3x3
 * weight that goes Winograd (ResNet-18: 8.6 M weights, on the compile's
 * serial path), where the general loops cost 0.2 s of a compile.  The nk
 * kernels start at w, `stride` floats apart; U's element (e, v) of kernel
 * ki goes to o[(e T + v) plane + ki], so that each of U's planes is
 * written in runs of nk floats, in order (one kernel at a time wrote a
 * float to each of 36 planes 1 MB apart: ResNet-18's transforms took
 * 164-188 ms of the compile, four side by side 84-144 ms; Zen 3,
 * bench/RESULTS.md).  The graph layer has no thread pool (the runtime is
 * above it), so this stays on one thread. */
#define W4W_LANES 4

static void w4w_block(const double *G, int T, const float *w, int64_t stride,
                      int64_t nk, int64_t plane, float *o) {
  double g[9][W4W_LANES], t[6][3][W4W_LANES];
  for (int64_t ki = 0; ki < nk; ki++)
    for (int i = 0; i < 9; i++) g[i][ki] = w[ki * stride + i];
  for (int i = 0; i < T; i++)
    for (int j = 0; j < 3; j++)
      for (int64_t ki = 0; ki < nk; ki++)
        t[i][j][ki] = G[i * 3] * g[j][ki] + G[i * 3 + 1] * g[3 + j][ki] +
                      G[i * 3 + 2] * g[6 + j][ki];
  for (int i = 0; i < T; i++)
    for (int j = 0; j < T; j++) {
      const double *gj = G + j * 3;
      float *oo = o + (i * T + j) * plane;
      for (int64_t ki = 0; ki < nk; ki++)
        oo[ki] = (float)(t[i][0][ki] * gj[0] + t[i][1][ki] * gj[1] +
                         t[i][2][ki] * gj[2]);
    }
}

/* ---- Conv2D_winograd_weight --------------------------------------------- */

static tvm_status ww_check(const tvm_gnode *n) {
  tvm_status st = op_check_dtype(n, 0, "W", DT_F32);
  if (st) return st;
  const tvm_gvalue *w = n->inputs[0];
  if (w->ndim != 4 || w->shape[2] != 3 || w->shape[3] != 3)
    return op_fail(n, TVM_ERR_INVALID,
                   "W must be [K, C, 3, 3] (a 3x3 kernel); it is %d-D", w->ndim);
  return TVM_OK;
}

static tvm_status ww_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  tvm_status st = ww_check(n);
  if (st) return st;
  const tvm_gvalue *w = n->inputs[0];
  int64_t shape[4] = {4, 4, w->shape[0], w->shape[1]};
  op_set_out(n, 0, w->dtype, 4, shape);
  return TVM_OK;
}

static tvm_status ww_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  tvm_status st = ww_check(n);
  if (st) return st;
  out[0] = tvm_op_winograd_kernel(c, in[0]);
  return op_te_status(c, n, out[0]);
}

/* U[., ., k, c] = G W[k, c] G^T: the kernels of consecutive channels
 * (9 floats apart in W, adjacent in U) W4W_LANES at a time. */
static tvm_status ww_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  tvm_status st = ww_check(n);
  if (st) return st;
  int64_t K = n->inputs[0]->shape[0], C = n->inputs[0]->shape[1];
  const float *w = (const float *)((const char *)in[0]->data + in[0]->byte_offset);
  float *u = (float *)((char *)out[0]->data + out[0]->byte_offset);
  const double *G, *Bt, *At;
  tvm_winograd_matrices(2, &Bt, &G, &At);
  for (int64_t k = 0; k < K; k++)
    for (int64_t c0 = 0; c0 < C; c0 += W4W_LANES)
      w4w_block(G, 4, w + (k * C + c0) * 9, 9,
                C - c0 < W4W_LANES ? C - c0 : W4W_LANES, K * C,
                u + k * C + c0);
  return TVM_OK;
}

/* The 3x3 window of a Winograd node over an H x W map (Conv's
 * attributes): strides and dilations 1 and the same padding on both
 * sides, else a failure naming the algorithm `alg`; the padding and the
 * output size in ph, pw, oh, ow. */
static tvm_status wino_window(const tvm_gnode *n, const char *alg, int64_t H,
                              int64_t W, int64_t *ph, int64_t *pw, int64_t *oh,
                              int64_t *ow) {
  op_window win;
  int64_t in[2] = {H, W}, k[2] = {3, 3};
  tvm_status st = op_window_infer(n, 2, in, k, 1, 0, &win);
  if (st) return st;
  if (win.s[0] != 1 || win.s[1] != 1 || win.d[0] != 1 || win.d[1] != 1 ||
      win.pads[0] != win.pads[2] || win.pads[1] != win.pads[3])
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "Winograd %s needs strides and dilations of 1 "
                   "and the same padding on both sides (strides %lld, %lld; "
                   "dilations %lld, %lld; pads %lld, %lld, %lld, %lld)", alg,
                   (long long)win.s[0], (long long)win.s[1],
                   (long long)win.d[0], (long long)win.d[1],
                   (long long)win.pads[0], (long long)win.pads[1],
                   (long long)win.pads[2], (long long)win.pads[3]);
  *ph = win.pads[0];
  *pw = win.pads[1];
  *oh = win.out[0];
  *ow = win.out[1];
  if (*oh < 1 || *ow < 1)
    return op_fail(n, TVM_ERR_INVALID, "the output is empty");
  return TVM_OK;
}

/* ---- Conv2D_winograd ---------------------------------------------------- */

typedef struct cw_info {
  int64_t N, C, H, W, K, ph, pw, OH, OW;
} cw_info;

/* Validates Conv2D_winograd; fills *ci. */
static tvm_status cw_check(const tvm_gnode *n, cw_info *ci) {
  const tvm_gvalue *b = NULL;
  int64_t group;
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "X", DT_F32)) ||
      (st = op_check_dtype(n, 1, "U", DT_F32)) ||
      (st = op_opt_input(n, 2, "B", DT_F32, &b)) ||
      (st = op_attr_int(n, "group", 1, &group)) ||
      (st = op_plain_layout(n, 0)))
    return st;
  const tvm_gvalue *x = n->inputs[0], *u = n->inputs[1];
  if (x->ndim != 4 || u->ndim != 4 || u->shape[0] != 4 || u->shape[1] != 4 ||
      u->shape[3] != x->shape[1])
    return op_fail(n, TVM_ERR_INVALID,
                   "X must be [N, C, H, W] and U [4, 4, K, C] (the "
                   "transformed 3x3 kernel) with the same C");
  if (group != 1)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "group = %lld: Winograd convolutions have group 1",
                   (long long)group);
  ci->N = x->shape[0];
  ci->C = x->shape[1];
  ci->H = x->shape[2];
  ci->W = x->shape[3];
  ci->K = u->shape[2];
  if (b && (b->ndim != 1 || b->shape[0] != ci->K))
    return op_fail(n, TVM_ERR_INVALID, "B must be 1-D of length K = %lld",
                   (long long)ci->K);
  return wino_window(n, "F(2x2, 3x3)", ci->H, ci->W, &ci->ph, &ci->pw, &ci->OH,
                     &ci->OW);
}

static tvm_status cw_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  cw_info ci;
  tvm_status st = cw_check(n, &ci);
  if (st) return st;
  int64_t shape[4] = {ci.N, ci.K, ci.OH, ci.OW};
  op_set_out(n, 0, n->inputs[0]->dtype, 4, shape);
  return TVM_OK;
}

typedef struct cw_ud {
  tvm_tensor *y, *b;
} cw_ud;

/* out = Y + B[k]. */
static tvm_expr *cw_bias_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cw_ud *u = ud;
  return tvm_add(c, tvm_tread(c, u->y, i, 4), TVM_AT(c, u->b, i[1]));
}

static tvm_status cw_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  cw_info ci;
  tvm_status st = cw_check(n, &ci);
  if (st) return st;
  cw_ud u = {tvm_op_winograd_conv2d(c, in[0], in[1], ci.ph, ci.pw),
             n->ninputs > 2 ? in[2] : NULL};
  if ((st = op_te_status(c, n, u.y))) return st;
  if (!u.b) {
    out[0] = u.y;
    return TVM_OK;
  }
  out[0] = op_te_compute_out(c, n, 0, "broadcast", cw_bias_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Per 2x2 output tile: d = the 4x4 input patch (zero outside), V = Bt d
 * B, M = sum_c U[., ., k, c] .* V, Y tile = At M A (the part inside). */
static tvm_status cw_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  cw_info ci;
  tvm_status st = cw_check(n, &ci);
  if (st) return st;
  const DLTensor *x = in[0], *u = in[1], *b = n->ninputs > 2 ? in[2] : NULL;
  const double *G, *Bt, *At;
  tvm_winograd_matrices(2, &Bt, &G, &At);
  double d[16], v[16], m[16], y[4];
  for (int64_t bn = 0; bn < ci.N; bn++)
    for (int64_t k = 0; k < ci.K; k++)
      for (int64_t oy = 0; oy < ci.OH; oy += 2)
        for (int64_t ox = 0; ox < ci.OW; ox += 2) {
          memset(m, 0, sizeof m);
          for (int64_t ch = 0; ch < ci.C; ch++) {
            for (int a = 0; a < 4; a++)
              for (int e = 0; e < 4; e++) {
                int64_t iy = oy + a - ci.ph, ix = ox + e - ci.pw;
                d[a * 4 + e] = iy < 0 || iy >= ci.H || ix < 0 || ix >= ci.W
                                   ? 0
                                   : op_dl_getf(x, ((bn * ci.C + ch) * ci.H + iy) *
                                                           ci.W + ix);
              }
            wino_sandwich(Bt, 4, 4, d, v);
            for (int ev = 0; ev < 16; ev++)
              m[ev] += op_dl_getf(u, (ev * ci.K + k) * ci.C + ch) * v[ev];
          }
          wino_sandwich(At, 2, 4, m, y);
          for (int r = 0; r < 2 && oy + r < ci.OH; r++)
            for (int s2 = 0; s2 < 2 && ox + s2 < ci.OW; s2++)
              op_dl_setf(out[0],
                         ((bn * ci.K + k) * ci.OH + oy + r) * ci.OW + ox + s2,
                         y[r * 2 + s2] + (b ? op_dl_getf(b, k) : 0));
        }
  return TVM_OK;
}

/* ---- F(m x m, 3x3) on channel-blocked data, m = 2 or 4 -----------------
 *
 *   Conv2D_winograd_weight_NCHWc  W [K, C, 3, 3], attributes block (ob)
 *                                 and tile (m, default 4)
 *                                 -> U [T, T, K/ob, C, ob], T = m + 2
 *   Conv2D_winograd_input_NCHWc   X [N, C/ib, H, W, ib] -> V [T, T, P, C]
 *                                 (P = N ceil(OH/m) ceil(OW/m) tiles)
 *   Conv2D_winograd_NCHWc         V, U, B [K] (optional)
 *                                 -> Y [N, K/ob, OH, OW, ob]
 *
 * written by alter_layout when a target answers weight layout
 * "winograd_F4x3" (m = 4) or "winograd_F2x3" (m = 2) with NCHW<b>c data
 * and output (llvm-cpu).  Two kernels, so that V is a value of the
 * graph's memory plan; the GEMMs and the output transform share one
 * (their intermediates stay per tile block) with the epilogue fused.  The
 * input transform has Conv's attributes (3x3, strides and dilations 1,
 * the same padding on both sides) plus data_layout and tile; the rest has
 * batch, out_h, out_w and out_layout, its tile is V's (T = 4 or 6).
 * Compute: tvm_op_winograd_kernel_nchwc / _input_nchwc / _conv2d_nchwc
 * (tvm/te.h), then "<name>.bias".  References: the algorithm in double,
 * tile by tile. */

/* The tile attribute of n (default 4) and its transform size *T; fails
 * naming the node for another value. */
static tvm_status wt_tile(const tvm_gnode *n, int64_t *m, int64_t *T) {
  tvm_status st = op_attr_int(n, "tile", 4, m);
  if (st) return st;
  if (*m != 2 && *m != 4)
    return op_fail(n, TVM_ERR_INVALID,
                   "tile %lld: Winograd F(m x m, 3x3) on blocked data has "
                   "output tiles of 2 or 4", (long long)*m);
  *T = *m + 2;
  return TVM_OK;
}

static tvm_status w4w_check(const tvm_gnode *n, int64_t *ob, int64_t *m,
                            int64_t *T) {
  tvm_status st = ww_check(n);
  if (st) return st;
  if ((st = op_attr_int(n, "block", 0, ob)) || (st = wt_tile(n, m, T)))
    return st;
  int64_t K = n->inputs[0]->shape[0];
  if (*ob < 1 || K % *ob != 0)
    return op_fail(n, TVM_ERR_INVALID,
                   "block %lld must divide the %lld output channels",
                   (long long)*ob, (long long)K);
  return TVM_OK;
}

static tvm_status w4w_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int64_t ob, m, T;
  tvm_status st = w4w_check(n, &ob, &m, &T);
  if (st) return st;
  const tvm_gvalue *w = n->inputs[0];
  int64_t shape[5] = {T, T, w->shape[0] / ob, w->shape[1], ob};
  op_set_out(n, 0, w->dtype, 5, shape);
  return TVM_OK;
}

static tvm_status w4w_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  int64_t ob, m, T;
  tvm_status st = w4w_check(n, &ob, &m, &T);
  if (st) return st;
  out[0] = tvm_op_winograd_kernel_nchwc(c, in[0], (int)m, ob,
                                        op_te_name(c, n, NULL));
  return op_te_status(c, n, out[0]);
}

/* U[., ., ko, c, ki] = G W[ko ob + ki, c] G^T: the ob kernels of a
 * (ko, c), C * 9 floats apart in W and adjacent in U, W4W_LANES at a
 * time. */
static tvm_status w4w_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  int64_t ob, m, T;
  tvm_status st = w4w_check(n, &ob, &m, &T);
  if (st) return st;
  int64_t K = n->inputs[0]->shape[0], C = n->inputs[0]->shape[1];
  const float *w = (const float *)((const char *)in[0]->data + in[0]->byte_offset);
  float *u = (float *)((char *)out[0]->data + out[0]->byte_offset);
  int64_t plane = K * C; /* elements of U per (e, v) */
  const double *G, *Bt, *At;
  tvm_winograd_matrices((int)m, &Bt, &G, &At);
  for (int64_t ko = 0; ko < K / ob; ko++)
    for (int64_t ch = 0; ch < C; ch++) {
      const float *src = w + (ko * ob * C + ch) * 9;
      float *o = u + (ko * C + ch) * ob;
      for (int64_t k0 = 0; k0 < ob; k0 += W4W_LANES)
        w4w_block(G, (int)T, src + k0 * C * 9, C * 9,
                  ob - k0 < W4W_LANES ? ob - k0 : W4W_LANES, plane, o + k0);
    }
  return TVM_OK;
}

typedef struct w4_info {
  int64_t N, C, ib, H, W, ph, pw, OH, OW, TH, TW, m, T;
} w4_info;

/* Validates Conv2D_winograd_input_NCHWc; fills *wi. */
static tvm_status w4i_check(const tvm_gnode *n, w4_info *wi) {
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "X", DT_F32))) return st;
  const tvm_gvalue *x = n->inputs[0];
  if (x->ndim != 5)
    return op_fail(n, TVM_ERR_INVALID, "X must be [N, C/ib, H, W, ib]; it is %d-D",
                   x->ndim);
  wi->N = x->shape[0];
  wi->ib = x->shape[4];
  wi->C = x->shape[1] * wi->ib;
  wi->H = x->shape[2];
  wi->W = x->shape[3];
  const char *dl = tvm_gnode_str(n, "data_layout", NULL);
  if (dl && op_layout_nchwc_block(dl) != wi->ib)
    return op_fail(n, TVM_ERR_INVALID, "data_layout %s does not match X's block %lld",
                   dl, (long long)wi->ib);
  if ((st = wt_tile(n, &wi->m, &wi->T)) ||
      (st = wino_window(n, wi->m == 2 ? "F(2x2, 3x3)" : "F(4x4, 3x3)", wi->H,
                        wi->W, &wi->ph, &wi->pw, &wi->OH, &wi->OW)))
    return st;
  wi->TH = (wi->OH + wi->m - 1) / wi->m;
  wi->TW = (wi->OW + wi->m - 1) / wi->m;
  return TVM_OK;
}

static tvm_status w4i_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  w4_info wi;
  tvm_status st = w4i_check(n, &wi);
  if (st) return st;
  int64_t shape[4] = {wi.T, wi.T, wi.N * wi.TH * wi.TW, wi.C};
  op_set_out(n, 0, n->inputs[0]->dtype, 4, shape);
  return TVM_OK;
}

static tvm_status w4i_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  w4_info wi;
  tvm_status st = w4i_check(n, &wi);
  if (st) return st;
  out[0] = tvm_op_winograd_input_nchwc(c, in[0], (int)wi.m, wi.ph, wi.pw,
                                       op_te_name(c, n, NULL));
  return op_te_status(c, n, out[0]);
}

/* V[., ., p, c] = Bt d B, d the T x T patch of tile p (zero outside). */
static tvm_status w4i_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  w4_info wi;
  tvm_status st = w4i_check(n, &wi);
  if (st) return st;
  int64_t CB = wi.C / wi.ib, P = wi.N * wi.TH * wi.TW, T = wi.T;
  const double *G, *Bt, *At;
  tvm_winograd_matrices((int)wi.m, &Bt, &G, &At);
  double d[36], v[36];
  for (int64_t p = 0; p < P; p++) {
    int64_t bn = p / (wi.TH * wi.TW), ty = p / wi.TW % wi.TH, tx = p % wi.TW;
    for (int64_t ch = 0; ch < wi.C; ch++) {
      for (int a = 0; a < T; a++)
        for (int e = 0; e < T; e++) {
          int64_t iy = wi.m * ty + a - wi.ph, ix = wi.m * tx + e - wi.pw;
          d[a * T + e] = iy < 0 || iy >= wi.H || ix < 0 || ix >= wi.W
                             ? 0
                             : op_dl_getf(in[0], (((bn * CB + ch / wi.ib) * wi.H + iy) *
                                                      wi.W + ix) * wi.ib + ch % wi.ib);
        }
      wino_sandwich(Bt, (int)T, (int)T, d, v);
      for (int ev = 0; ev < T * T; ev++)
        op_dl_setf(out[0], ((int64_t)ev * P + p) * wi.C + ch, v[ev]);
    }
  }
  return TVM_OK;
}

typedef struct w4c_info {
  int64_t N, C, K, ob, OH, OW, TH, TW, m, T;
} w4c_info;

/* Validates Conv2D_winograd_NCHWc; fills *ci. */
static tvm_status w4c_check(const tvm_gnode *n, w4c_info *ci) {
  const tvm_gvalue *b = NULL;
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "V", DT_F32)) ||
      (st = op_check_dtype(n, 1, "U", DT_F32)) ||
      (st = op_opt_input(n, 2, "B", DT_F32, &b)) ||
      (st = op_attr_int(n, "batch", 0, &ci->N)) ||
      (st = op_attr_int(n, "out_h", 0, &ci->OH)) ||
      (st = op_attr_int(n, "out_w", 0, &ci->OW)))
    return st;
  const tvm_gvalue *v = n->inputs[0], *u = n->inputs[1];
  if (ci->N < 1 || ci->OH < 1 || ci->OW < 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "batch, out_h and out_w must be positive (%lld, %lld, %lld)",
                   (long long)ci->N, (long long)ci->OH, (long long)ci->OW);
  /* the tile is V's: T = 6 (F(4x4)) or 4 (F(2x2)) */
  ci->T = v->ndim == 4 && v->shape[0] == 4 ? 4 : 6;
  ci->m = ci->T - 2;
  ci->TH = (ci->OH + ci->m - 1) / ci->m;
  ci->TW = (ci->OW + ci->m - 1) / ci->m;
  int64_t T = ci->T;
  if (v->ndim != 4 || u->ndim != 5 || v->shape[0] != T || v->shape[1] != T ||
      u->shape[0] != T || u->shape[1] != T || u->shape[3] != v->shape[3] ||
      v->shape[2] != ci->N * ci->TH * ci->TW)
    return op_fail(n, TVM_ERR_INVALID,
                   "V must be [T, T, P, C] (T = 6 or 4; with T = %lld, P = "
                   "%lld tiles of %lldx%lld) and U [T, T, K/ob, C, ob] (the "
                   "transformed 3x3 kernel) with the same T and C",
                   (long long)T, (long long)(ci->N * ci->TH * ci->TW),
                   (long long)ci->m, (long long)ci->m);
  ci->C = v->shape[3];
  ci->ob = u->shape[4];
  ci->K = u->shape[2] * ci->ob;
  if (b && (b->ndim != 1 || b->shape[0] != ci->K))
    return op_fail(n, TVM_ERR_INVALID, "B must be 1-D of length K = %lld",
                   (long long)ci->K);
  return TVM_OK;
}

static tvm_status w4c_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  w4c_info ci;
  tvm_status st = w4c_check(n, &ci);
  if (st) return st;
  int64_t shape[5] = {ci.N, ci.K / ci.ob, ci.OH, ci.OW, ci.ob};
  op_set_out(n, 0, n->inputs[0]->dtype, 5, shape);
  if (n->noutputs > 0 && n->outputs[0])
    n->outputs[0]->layout = tvm_gnode_str(n, "out_layout", NULL);
  return TVM_OK;
}

typedef struct w4_ud {
  tvm_tensor *y, *b;
  int64_t ob;
} w4_ud;

/* out = Y + B[logical channel]. */
static tvm_expr *w4_bias_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  w4_ud *u = ud;
  tvm_expr *ch = tvm_add(c, tvm_mul(c, i[1], tvm_int(c, u->ob)), i[4]);
  return tvm_add(c, tvm_tread(c, u->y, i, 5), TVM_AT(c, u->b, ch));
}

static tvm_status w4c_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  w4c_info ci;
  tvm_status st = w4c_check(n, &ci);
  if (st) return st;
  w4_ud u = {NULL, n->ninputs > 2 ? in[2] : NULL, ci.ob};
  u.y = tvm_op_winograd_conv2d_nchwc(
      c, in[0], in[1], ci.N, ci.OH, ci.OW,
      u.b ? op_te_name(c, n, "conv") : op_te_name(c, n, NULL));
  if ((st = op_te_status(c, n, u.y))) return st;
  if (!u.b) {
    out[0] = u.y;
    return TVM_OK;
  }
  out[0] = op_te_compute_out(c, n, 0, "broadcast", w4_bias_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Per m x m output tile p and channel k: M = sum_c U[., ., k, c] .* V[.,
 * ., p, c], Y tile = At M A (the part inside), plus B[k]. */
static tvm_status w4c_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  w4c_info ci;
  tvm_status st = w4c_check(n, &ci);
  if (st) return st;
  const DLTensor *v = in[0], *u = in[1], *b = n->ninputs > 2 ? in[2] : NULL;
  int64_t KO = ci.K / ci.ob, P = ci.N * ci.TH * ci.TW, T = ci.T, tm = ci.m;
  const double *G, *Bt, *At;
  tvm_winograd_matrices((int)tm, &Bt, &G, &At);
  double m[36], y[16];
  for (int64_t p = 0; p < P; p++) {
    int64_t bn = p / (ci.TH * ci.TW), oy = p / ci.TW % ci.TH * tm,
            ox = p % ci.TW * tm;
    for (int64_t k = 0; k < ci.K; k++) {
      for (int ev = 0; ev < T * T; ev++) {
        double acc = 0;
        for (int64_t ch = 0; ch < ci.C; ch++)
          acc += op_dl_getf(u, (((int64_t)ev * KO + k / ci.ob) * ci.C + ch) *
                                       ci.ob + k % ci.ob) *
                 op_dl_getf(v, ((int64_t)ev * P + p) * ci.C + ch);
        m[ev] = acc;
      }
      wino_sandwich(At, (int)tm, (int)T, m, y);
      for (int r = 0; r < tm && oy + r < ci.OH; r++)
        for (int s2 = 0; s2 < tm && ox + s2 < ci.OW; s2++)
          op_dl_setf(out[0],
                     (((bn * KO + k / ci.ob) * ci.OH + oy + r) * ci.OW + ox + s2) *
                             ci.ob + k % ci.ob,
                     y[r * tm + s2] + (b ? op_dl_getf(b, k) : 0));
    }
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Conv2D_winograd_weight", 1, 1, 1, 1, TVM_PAT_OPAQUE, ww_infer,
     ww_compute, ww_reference,
     "internal: the Winograd F(2x2, 3x3) kernel transform U = G W G^T, "
     "W [K, C, 3, 3] -> U [4, 4, K, C] (folded at compile time)"},
    {"Conv2D_winograd", 2, 3, 1, 1, TVM_PAT_OUT_ELEMWISE_FUSABLE, cw_infer,
     cw_compute, cw_reference,
     "internal: 3x3 stride-1 2-D convolution by Winograd F(2x2, 3x3) from "
     "the transformed kernel U [4, 4, K, C]; attributes as Conv"},
    {"Conv2D_winograd_weight_NCHWc", 1, 1, 1, 1, TVM_PAT_OPAQUE, w4w_infer,
     w4w_compute, w4w_reference,
     "internal: the Winograd F(m x m, 3x3) kernel transform for output "
     "tiles of m = `tile` (2 or 4, default 4) and output blocks of `block` "
     "channels, W [K, C, 3, 3] -> U [m + 2, m + 2, K/block, C, block] "
     "(folded at compile time)"},
    {"Conv2D_winograd_input_NCHWc", 1, 1, 1, 1, TVM_PAT_OPAQUE, w4i_infer,
     w4i_compute, w4i_reference,
     "internal: the input transform of a 3x3 stride-1 convolution by "
     "Winograd F(m x m, 3x3) on channel-blocked data, X [N, C/ib, H, W, ib] "
     "-> V [m + 2, m + 2, P, C] over the P m x m output tiles; attributes "
     "as Conv plus data_layout and tile (m: 2 or 4, default 4)"},
    {"Conv2D_winograd_NCHWc", 2, 3, 1, 1, TVM_PAT_OUT_ELEMWISE_FUSABLE,
     w4c_infer, w4c_compute, w4c_reference,
     "internal: the rest of that convolution, V and the transformed "
     "kernel U [T, T, K/ob, C, ob] (T = 6 or 4, V's) (and B [K]) -> Y [N, "
     "K/ob, out_h, out_w, ob] (NCHW<ob>c); attributes batch, out_h, out_w, "
     "out_layout"},
};

const ops_family ops_conv_winograd_family = {
    defs, (int)(sizeof defs / sizeof defs[0])};
