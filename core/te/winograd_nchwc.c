/*
 * core/te/winograd_nchwc.c - the Winograd F(m x m, 3x3) convolution on
 * channel-blocked data as tensor expressions (tvm/te.h), m = 2 or 4, the
 * compute of the graph's Conv2D_winograd_NCHWc and
 * Conv2D_winograd_weight_NCHWc (core/graph/ops/conv_winograd.c), and the
 * transform matrices every Winograd user of the core shares
 * (tvm_winograd_matrices).  With T = m + 2 the transform size and the
 * m x m output tiles p = (n * TH + ty) * TW + tx:
 *
 *   U[e, v, ko, c, ki] = (G W[ko ob + ki, c] G^T)[e, v]   (kernel, folded)
 *   Xp                 = X zero-padded to whole tiles       (tag pad)
 *   R[a, v, p, c]      = (d B)[a, v], d the T x T patch of tile p, channel c
 *   V[e, v, p, c]      = (Bt R)[e, v]              (winograd_nchwc_input)
 *   M[e, v, ko, p, ki] = sum_c V[e, v, p, c] U[e, v, ko, c, ki]
 *                                             (winograd_nchwc_batch_gemm)
 *   S[i, v, ko, p, ki] = (At M)[i, v]
 *   Y[n, ko, h, w, ki] = (S A)[h % m, w % m] of tile p(n, h / m, w / m)
 *                                                 (winograd_nchwc_output)
 *
 * F(4x4) does 36 multiplications per tile of 16 outputs where the direct
 * convolution does 144, F(2x2) 16 per 4 (36); F(4x4)'s transformed kernel
 * is 4x the kernel, F(2x2)'s 1.8x, and each of its values meets one GEMM
 * row per tile: which one is faster depends on how the machine feeds it.
 *
 * Each transform is split in two one-sided products (rows, then columns:
 * 2 x T x T x T instead of T^4 terms) and each product is
 * written out per output row with only the matrix's nonzero entries: the
 * body is a select over the row index whose arms are those sums, so once
 * a schedule unrolls that index the selects fold and no multiplication by
 * 0 or 1 is left for the code generator (which may not drop x * 0
 * itself: NaN * 0 is NaN).  Two functions, two kernels: the input
 * transform (X -> V, a value the graph's memory plan places) and the
 * rest (V, U -> Y, whose intermediates a schedule keeps per tile block).
 * The tags are what a schedule template looks for.
 */
#include <string.h>

#include "tvm/te.h"

/* F(2x2, 3x3) at the points 0, 1, -1 and infinity (Lavin & Gray). */
static const double w2_bt[4][4] = {
    {1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
static const double w2_g[4][3] = {
    {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
static const double w2_at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

/* F(4x4, 3x3) at the points 0, 1, -1, 2, -2 and infinity (Lavin & Gray). */
static const double w4_bt[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                                   {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                                   {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
static const double w4_g[6][3] = {{1.0 / 4, 0, 0},
                                  {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                  {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                  {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                  {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                  {0, 0, 1}};
static const double w4_at[4][6] = {{1, 1, 1, 1, 1, 0},
                                   {0, 1, -1, 2, -2, 0},
                                   {0, 1, 1, 4, 4, 0},
                                   {0, 1, -1, 8, -8, 1}};

/* See tvm/te.h. */
int tvm_winograd_matrices(int m, const double **bt, const double **g,
                          const double **at) {
  if (m == 2) {
    *bt = &w2_bt[0][0], *g = &w2_g[0][0], *at = &w2_at[0][0];
    return 4;
  }
  if (m == 4) {
    *bt = &w4_bt[0][0], *g = &w4_g[0][0], *at = &w4_at[0][0];
    return 6;
  }
  return 0;
}

typedef struct w4_ud {
  tvm_tensor *X, *W, *U, *Xp, *R, *V, *M, *S;
  int64_t N, CB, ib, C, H, Wd, KO, ob, ph, pw, TH, TW, OH, OW;
  int m, T; /* output tile and transform size */
  const double *bt, *g, *at; /* T x T, T x 3, m x T, row-major */
} w4_ud;

/* The term a row of the transform multiplies by coefficient k. */
typedef tvm_expr *(*w4_term_fn)(tvm_ctx *c, w4_ud *u, tvm_expr **i, int k);

/* sum_k coef[k] * term(k) over the nonzero coefficients (1 and -1
 * without a multiplication). */
static tvm_expr *w4_row(tvm_ctx *c, w4_ud *u, tvm_expr **i, const double *coef,
                        int n, w4_term_fn term) {
  tvm_expr *e = NULL;
  int first = -1; /* start from a positive coefficient where there is one */
  for (int k = 0; k < n && first < 0; k++)
    if (coef[k] > 0) first = k;
  if (first >= 0) {
    e = term(c, u, i, first);
    if (coef[first] != 1) e = tvm_mul(c, tvm_fconst(c, TVM_F32, coef[first]), e);
  }
  for (int k = 0; k < n; k++) {
    if (coef[k] == 0 || k == first) continue;
    tvm_expr *t = term(c, u, i, k);
    double a = coef[k] < 0 ? -coef[k] : coef[k];
    if (!e) { /* all negative so far */
      e = tvm_mul(c, tvm_fconst(c, TVM_F32, coef[k]), t);
      continue;
    }
    if (a != 1) t = tvm_mul(c, tvm_fconst(c, TVM_F32, a), t);
    e = coef[k] < 0 ? tvm_sub(c, e, t) : tvm_add(c, e, t);
  }
  return e ? e : tvm_fconst(c, TVM_F32, 0.0);
}

/* select(idx == 0, row 0, select(idx == 1, row 1, ... row rows-1)), rows
 * of the rows x n matrix m (row-major). */
static tvm_expr *w4_rows(tvm_ctx *c, w4_ud *u, tvm_expr **i, tvm_expr *idx,
                         const double *m, int rows, int n, w4_term_fn term) {
  tvm_expr *e = w4_row(c, u, i, m + (rows - 1) * n, n, term);
  for (int r = rows - 2; r >= 0; r--)
    e = tvm_select(c, tvm_eq(c, idx, tvm_int(c, r)), w4_row(c, u, i, m + r * n, n, term),
                   e);
  return e;
}

/* Xp[n, cb, y, x, ci] = X[n, cb, y - ph, x - pw, ci] inside, 0 outside
 * (the read clamped inside either way). */
static tvm_expr *w4_pad_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  w4_ud *u = ud;
  tvm_expr *y = tvm_sub(c, i[2], tvm_int(c, u->ph));
  tvm_expr *x = tvm_sub(c, i[3], tvm_int(c, u->pw));
  tvm_expr *in = tvm_and(
      c, tvm_and(c, tvm_ge(c, y, tvm_int(c, 0)), tvm_lt(c, y, tvm_int(c, u->H))),
      tvm_and(c, tvm_ge(c, x, tvm_int(c, 0)), tvm_lt(c, x, tvm_int(c, u->Wd))));
  tvm_expr *yc = tvm_min(c, tvm_max(c, y, tvm_int(c, 0)), tvm_int(c, u->H - 1));
  tvm_expr *xc = tvm_min(c, tvm_max(c, x, tvm_int(c, 0)), tvm_int(c, u->Wd - 1));
  return tvm_select(c, in, TVM_AT(c, u->X, i[0], i[1], yc, xc, i[4]),
                    tvm_fconst(c, TVM_F32, 0.0));
}

/* R[a, v, p, c]: term k is d[a][k] = Xp at row m ty + a, column m tx + k
 * of tile p, channel c; row v of Bt (B's column v). */
static tvm_expr *w4_patch(tvm_ctx *c, w4_ud *u, tvm_expr **i, int k) {
  tvm_expr *tiles = tvm_int(c, u->TH * u->TW);
  tvm_expr *n = tvm_floordiv(c, i[2], tiles);
  tvm_expr *t = tvm_floormod(c, i[2], tiles);
  tvm_expr *ty = tvm_floordiv(c, t, tvm_int(c, u->TW));
  tvm_expr *tx = tvm_floormod(c, t, tvm_int(c, u->TW));
  tvm_expr *ib = tvm_int(c, u->ib);
  return TVM_AT(c, u->Xp, n, tvm_floordiv(c, i[3], ib),
                tvm_add(c, tvm_mul(c, ty, tvm_int(c, u->m)), i[0]),
                tvm_add(c, tvm_mul(c, tx, tvm_int(c, u->m)), tvm_int(c, k)),
                tvm_floormod(c, i[3], ib));
}

static tvm_expr *w4_r_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  w4_ud *u = ud;
  return w4_rows(c, u, i, i[1], u->bt, u->T, u->T, w4_patch);
}

/* V[e, v, p, c]: term k is R[k, v, p, c]; row e of Bt. */
static tvm_expr *w4_r_term(tvm_ctx *c, w4_ud *u, tvm_expr **i, int k) {
  return TVM_AT(c, u->R, tvm_int(c, k), i[1], i[2], i[3]);
}

static tvm_expr *w4_v_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  w4_ud *u = ud;
  return w4_rows(c, u, i, i[0], u->bt, u->T, u->T, w4_r_term);
}

/* M[e, v, ko, p, ki] = sum_c V[e, v, p, c] U[e, v, ko, c, ki]. */
static tvm_expr *w4_m_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  w4_ud *u = ud;
  tvm_iter_var *rc = tvm_reduce_axis(c, "rc", 0, u->C);
  if (!rc) return NULL;
  tvm_expr *e = tvm_mul(c, TVM_AT(c, u->V, i[0], i[1], i[3], rc->var),
                        TVM_AT(c, u->U, i[0], i[1], i[2], rc->var, i[4]));
  return tvm_sum(c, e, &rc, 1);
}

/* S[i, v, ko, p, ki]: term k is M[k, v, ko, p, ki]; row i of At. */
static tvm_expr *w4_m_term(tvm_ctx *c, w4_ud *u, tvm_expr **i, int k) {
  return TVM_AT(c, u->M, tvm_int(c, k), i[1], i[2], i[3], i[4]);
}

static tvm_expr *w4_s_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  w4_ud *u = ud;
  return w4_rows(c, u, i, i[0], u->at, u->m, u->T, w4_m_term);
}

/* Y[n, ko, h, w, ki]: term k is S[h % m, k, ko, p(n, h / m, w / m), ki];
 * row w % m of At (A's column). */
static tvm_expr *w4_s_term(tvm_ctx *c, w4_ud *u, tvm_expr **i, int k) {
  tvm_expr *tile = tvm_int(c, u->m);
  tvm_expr *p = tvm_add(
      c,
      tvm_mul(c,
              tvm_add(c, tvm_mul(c, i[0], tvm_int(c, u->TH)),
                      tvm_floordiv(c, i[2], tile)),
              tvm_int(c, u->TW)),
      tvm_floordiv(c, i[3], tile));
  return TVM_AT(c, u->S, tvm_floormod(c, i[2], tile), tvm_int(c, k), i[1], p,
                i[4]);
}

static tvm_expr *w4_y_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  w4_ud *u = ud;
  return w4_rows(c, u, i, tvm_floormod(c, i[3], tvm_int(c, u->m)), u->at,
                 u->m, u->T, w4_s_term);
}

/* U[e, v, ko, c, ki] = sum_{a, b} G[e][a] W[ko ob + ki, c, a, b] G[v][b],
 * the 9 products written out per (e, v) (a compile-time fold). */
static tvm_expr *w4_u_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  w4_ud *u = ud;
  tvm_expr *k = tvm_add(c, tvm_mul(c, i[2], tvm_int(c, u->ob)), i[4]);
  int T = u->T;
  tvm_expr *ev = tvm_add(c, tvm_mul(c, i[0], tvm_int(c, T)), i[1]);
  tvm_expr *e = tvm_fconst(c, TVM_F32, 0.0);
  for (int r = T * T - 1; r >= 0; r--) {
    tvm_expr *s = NULL;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        double g = u->g[r / T * 3 + a] * u->g[r % T * 3 + b];
        if (g == 0) continue;
        tvm_expr *t = tvm_mul(c, tvm_fconst(c, TVM_F32, g),
                              TVM_AT(c, u->W, k, i[3], tvm_int(c, a), tvm_int(c, b)));
        s = s ? tvm_add(c, s, t) : t;
      }
    if (!s) s = tvm_fconst(c, TVM_F32, 0.0);
    e = r == T * T - 1 ? s : tvm_select(c, tvm_eq(c, ev, tvm_int(c, r)), s, e);
  }
  return e;
}

/* A zeroed w4_ud for output tiles of m in c's arena, or NULL with the
 * diagnostic set (m not 2 or 4, out of memory). */
static w4_ud *w4_ud_new(tvm_ctx *c, int m) {
  const double *bt, *g, *at;
  int T = tvm_winograd_matrices(m, &bt, &g, &at);
  if (!T) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED,
                 "winograd F(m x m, 3x3): output tiles of %d; 2 and 4 are "
                 "supported", m);
    return NULL;
  }
  w4_ud *u = tvm_ctx_alloc(c, sizeof *u);
  if (!u) {
    tvm_diag_set(TVM_ERR_NOMEM, "winograd F(%dx%d, 3x3): out of memory", m, m);
    return NULL;
  }
  memset(u, 0, sizeof *u);
  u->m = m;
  u->T = T;
  u->bt = bt, u->g = g, u->at = at;
  return u;
}

/* name + suffix in c's arena ("wino" when name is NULL). */
static const char *w4_name(tvm_ctx *c, const char *name, const char *suffix) {
  size_t a = strlen(name ? name : "wino"), b = strlen(suffix);
  char *s = tvm_ctx_alloc(c, a + b + 1);
  if (!s) return suffix;
  memcpy(s, name ? name : "wino", a);
  memcpy(s + a, suffix, b + 1);
  return s;
}

/* See tvm/te.h. */
tvm_tensor *tvm_op_winograd_kernel_nchwc(tvm_ctx *c, tvm_tensor *W, int m,
                                         int64_t ob, const char *name) {
  w4_ud *u = w4_ud_new(c, m);
  if (!u) return NULL;
  if (!W || W->ndim != 4 || W->shape_c[2] != 3 || W->shape_c[3] != 3 ||
      ob < 1 || W->shape_c[0] % ob != 0) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED,
                 "winograd F(%dx%d, 3x3): expected W [K, C, 3, 3] with K a "
                 "multiple of the block %lld", m, m, (long long)ob);
    return NULL;
  }
  u->W = W;
  u->ob = ob;
  tvm_tensor *U = tvm_compute(
      c, name ? name : "wino_U",
      (int64_t[]){u->T, u->T, W->shape_c[0] / ob, W->shape_c[1], ob}, 5,
      w4_u_body, u);
  if (U) tvm_tensor_set_tag(U, "winograd_nchwc_kernel");
  return U;
}

/* See tvm/te.h. */
tvm_tensor *tvm_op_winograd_input_nchwc(tvm_ctx *c, tvm_tensor *X, int m,
                                        int64_t pad_h, int64_t pad_w,
                                        const char *name) {
  w4_ud *u = w4_ud_new(c, m);
  if (!u) return NULL;
  if (!X || X->ndim != 5 || pad_h < 0 || pad_w < 0) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED,
                 "winograd F(%dx%d, 3x3): expected X [N, C/ib, H, W, ib] with "
                 "non-negative padding", m, m);
    return NULL;
  }
  u->X = X;
  u->N = X->shape_c[0];
  u->CB = X->shape_c[1];
  u->H = X->shape_c[2];
  u->Wd = X->shape_c[3];
  u->ib = X->shape_c[4];
  u->C = u->CB * u->ib;
  u->ph = pad_h;
  u->pw = pad_w;
  u->OH = u->H + 2 * pad_h - 2;
  u->OW = u->Wd + 2 * pad_w - 2;
  if (u->OH < 1 || u->OW < 1) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED, "winograd F(%dx%d, 3x3): the output is empty",
                 m, m);
    return NULL;
  }
  u->TH = (u->OH + m - 1) / m;
  u->TW = (u->OW + m - 1) / m;
  int64_t P = u->N * u->TH * u->TW, T = u->T;
  u->Xp = tvm_compute(c, w4_name(c, name, ".pad"),
                      (int64_t[]){u->N, u->CB, m * u->TH + 2, m * u->TW + 2, u->ib},
                      5, w4_pad_body, u);
  if (!u->Xp) return NULL;
  tvm_tensor_set_tag(u->Xp, "pad");
  u->R = tvm_compute(c, w4_name(c, name, ".rows"), (int64_t[]){T, T, P, u->C},
                     4, w4_r_body, u);
  if (!u->R) return NULL;
  tvm_tensor_set_tag(u->R, "winograd_nchwc_input_rows");
  tvm_tensor *V = tvm_compute(c, name ? name : "wino_V",
                              (int64_t[]){T, T, P, u->C}, 4, w4_v_body, u);
  if (V) tvm_tensor_set_tag(V, "winograd_nchwc_input");
  return V;
}

/* See tvm/te.h. */
tvm_tensor *tvm_op_winograd_conv2d_nchwc(tvm_ctx *c, tvm_tensor *V,
                                         tvm_tensor *U, int64_t N, int64_t OH,
                                         int64_t OW, const char *name) {
  int64_t T = V && V->ndim == 4 ? V->shape_c[0] : 0, m = T - 2;
  if (T != 4 && T != 6) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED,
                 "winograd F(m x m, 3x3): expected V [T, T, P, C] with T = "
                 "4 or 6 (tiles of 2 or 4)");
    return NULL;
  }
  int64_t TH = (OH + m - 1) / m, TW = (OW + m - 1) / m;
  if (!U || U->ndim != 5 || U->shape_c[0] != T || U->shape_c[1] != T ||
      V->shape_c[1] != T || U->shape_c[3] != V->shape_c[3] || N < 1 ||
      OH < 1 || OW < 1 || V->shape_c[2] != N * TH * TW) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED,
                 "winograd F(%lldx%lld, 3x3): expected V [%lld, %lld, P, C] of "
                 "the P = N x ceil(OH/%lld) x ceil(OW/%lld) tiles and U "
                 "[%lld, %lld, K/ob, C, ob]",
                 (long long)m, (long long)m, (long long)T, (long long)T,
                 (long long)m, (long long)m, (long long)T, (long long)T);
    return NULL;
  }
  w4_ud *u = w4_ud_new(c, (int)m);
  if (!u) return NULL;
  u->V = V;
  u->U = U;
  u->N = N;
  u->C = V->shape_c[3];
  u->KO = U->shape_c[2];
  u->ob = U->shape_c[4];
  u->OH = OH;
  u->OW = OW;
  u->TH = TH;
  u->TW = TW;
  int64_t P = N * TH * TW;
  u->M = tvm_compute(c, w4_name(c, name, ".gemm"),
                     (int64_t[]){T, T, u->KO, P, u->ob}, 5, w4_m_body, u);
  if (!u->M) return NULL;
  tvm_tensor_set_tag(u->M, "winograd_nchwc_batch_gemm");
  u->S = tvm_compute(c, w4_name(c, name, ".rows"),
                     (int64_t[]){m, T, u->KO, P, u->ob}, 5, w4_s_body, u);
  if (!u->S) return NULL;
  tvm_tensor_set_tag(u->S, "winograd_nchwc_output_rows");
  tvm_tensor *Y = tvm_compute(c, name ? name : "wino_Y",
                              (int64_t[]){N, u->KO, OH, OW, u->ob}, 5,
                              w4_y_body, u);
  if (Y) tvm_tensor_set_tag(Y, "winograd_nchwc_output");
  return Y;
}
