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

#include "ops_int.h"

/* F(2x2, 3x3) transform matrices: G (4 x 3), Bt (4 x 4), At (2 x 4). */
static const double cw_g[4][3] = {
    {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
static const double cw_bt[4][4] = {
    {1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
static const double cw_at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

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

/* U[e, v, k, c] = sum_{a, b} G[e, a] W[k, c, a, b] G[v, b]. */
static tvm_status ww_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  tvm_status st = ww_check(n);
  if (st) return st;
  int64_t K = n->inputs[0]->shape[0], C = n->inputs[0]->shape[1];
  for (int64_t k = 0; k < K; k++)
    for (int64_t ch = 0; ch < C; ch++)
      for (int e = 0; e < 4; e++)
        for (int v = 0; v < 4; v++) {
          double acc = 0;
          for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
              acc += cw_g[e][a] *
                     op_dl_getf(in[0], ((k * C + ch) * 3 + a) * 3 + b) *
                     cw_g[v][b];
          op_dl_setf(out[0], ((e * 4 + v) * K + k) * C + ch, acc);
        }
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
  op_window win;
  int64_t in[2] = {ci->H, ci->W}, k[2] = {3, 3};
  if ((st = op_window_infer(n, 2, in, k, 1, 0, &win)))
    return st;
  if (win.s[0] != 1 || win.s[1] != 1 || win.d[0] != 1 || win.d[1] != 1 ||
      win.pads[0] != win.pads[2] || win.pads[1] != win.pads[3])
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "Winograd F(2x2, 3x3) needs strides and dilations of 1 "
                   "and the same padding on both sides (strides %lld, %lld; "
                   "dilations %lld, %lld; pads %lld, %lld, %lld, %lld)",
                   (long long)win.s[0], (long long)win.s[1],
                   (long long)win.d[0], (long long)win.d[1],
                   (long long)win.pads[0], (long long)win.pads[1],
                   (long long)win.pads[2], (long long)win.pads[3]);
  ci->ph = win.pads[0];
  ci->pw = win.pads[1];
  ci->OH = win.out[0];
  ci->OW = win.out[1];
  if (ci->OH < 1 || ci->OW < 1)
    return op_fail(n, TVM_ERR_INVALID, "the output is empty");
  return TVM_OK;
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
  double d[4][4], t[4][4], m[4][4], y[2][4];
  for (int64_t bn = 0; bn < ci.N; bn++)
    for (int64_t k = 0; k < ci.K; k++)
      for (int64_t oy = 0; oy < ci.OH; oy += 2)
        for (int64_t ox = 0; ox < ci.OW; ox += 2) {
          memset(m, 0, sizeof m);
          for (int64_t ch = 0; ch < ci.C; ch++) {
            for (int a = 0; a < 4; a++)
              for (int e = 0; e < 4; e++) {
                int64_t iy = oy + a - ci.ph, ix = ox + e - ci.pw;
                d[a][e] = iy < 0 || iy >= ci.H || ix < 0 || ix >= ci.W
                              ? 0
                              : op_dl_getf(x, ((bn * ci.C + ch) * ci.H + iy) *
                                                      ci.W + ix);
              }
            for (int r = 0; r < 4; r++) /* t = Bt d */
              for (int e = 0; e < 4; e++) {
                t[r][e] = 0;
                for (int a = 0; a < 4; a++) t[r][e] += cw_bt[r][a] * d[a][e];
              }
            for (int r = 0; r < 4; r++) /* V = t B, M += U .* V */
              for (int v = 0; v < 4; v++) {
                double vv = 0;
                for (int e = 0; e < 4; e++) vv += t[r][e] * cw_bt[v][e];
                m[r][v] += op_dl_getf(u, ((r * 4 + v) * ci.K + k) * ci.C + ch) *
                           vv;
              }
          }
          for (int r = 0; r < 2; r++) /* y = At M */
            for (int v = 0; v < 4; v++) {
              y[r][v] = 0;
              for (int a = 0; a < 4; a++) y[r][v] += cw_at[r][a] * m[a][v];
            }
          for (int r = 0; r < 2 && oy + r < ci.OH; r++) /* Y = y A */
            for (int s = 0; s < 2 && ox + s < ci.OW; s++) {
              double acc = b ? op_dl_getf(b, k) : 0;
              for (int v = 0; v < 4; v++) acc += y[r][v] * cw_at[s][v];
              op_dl_setf(out[0],
                         ((bn * ci.K + k) * ci.OH + oy + r) * ci.OW + ox + s,
                         acc);
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
};

const ops_family ops_conv_winograd_family = {
    defs, (int)(sizeof defs / sizeof defs[0])};
