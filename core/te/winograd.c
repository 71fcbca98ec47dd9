/*
 * core/te/winograd.c - the Winograd F(2x2, 3x3) convolution as tensor
 * expressions (tvm/te.h), the compute of the graph's Conv2D_winograd and
 * Conv2D_winograd_weight (core/graph/ops/conv_winograd.c):
 *
 *   U[e, v, k, c] = sum_{rh, rw} G[e, rh] W[k, c, rh, rw] G[v, rw]
 *                                                 (kernel transform)
 *   V[e, v, c, p] = sum_{a, b} Bt[e, a] Xp[n, c, 2 ty + a, 2 tx + b] Bt[v, b]
 *                                                 (input transform)
 *   M[e, v, k, p] = sum_c U[e, v, k, c] V[e, v, c, p]   (16 GEMMs)
 *   Y[n, k, h, w] = sum_{a, b} At[h % 2, a] M[a, b, k, p(n, h/2, w/2)]
 *                                         At[w % 2, b]  (output transform)
 *
 * with p = (n * TH + ty) * TW + tx over the 2x2 output tiles and Xp the
 * zero-padded input (padded up to whole tiles).  The transform matrices
 * are computes of constants (tags winograd_G / _Bt / _At, inlined by any
 * schedule); the four stages are tagged winograd_kernel, winograd_input,
 * winograd_batch_gemm and winograd_output.  Each stage is a plain compute
 * that any thread schedule (the core's generic one included) can
 * schedule; the GPU template is core/schedule/gpu_winograd.c.
 */
#include <string.h>

#include "tvm/te.h"

/* A constant matrix: vals[rows x cols] row-major. */
typedef struct wg_mat {
  int rows, cols;
  const double *vals;
} wg_mat;

static tvm_expr *mat_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  const wg_mat *m = ud;
  tvm_expr *e = tvm_fconst(c, TVM_F32, 0.0);
  tvm_expr *flat = tvm_add(c, tvm_mul(c, i[0], tvm_int(c, m->cols)), i[1]);
  for (int k = 0; k < m->rows * m->cols; k++)
    if (m->vals[k] != 0.0)
      e = tvm_select(c, tvm_eq(c, flat, tvm_int(c, k)),
                     tvm_fconst(c, TVM_F32, m->vals[k]), e);
  return e;
}

typedef struct wg_ud {
  tvm_tensor *X, *W, *Xp, *G, *Bt, *At, *U, *V, *M;
  int64_t N, C, H, K, Wd, ph, pw, TH, TW, OH, OW;
} wg_ud;

/* Xp[n, c, y, x] = X[n, c, y - ph, x - pw] inside, 0 outside. */
static tvm_expr *pad_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  wg_ud *u = ud;
  tvm_expr *y = tvm_sub(c, i[2], tvm_int(c, u->ph));
  tvm_expr *x = tvm_sub(c, i[3], tvm_int(c, u->pw));
  tvm_expr *in = tvm_and(
      c, tvm_and(c, tvm_ge(c, y, tvm_int(c, 0)), tvm_lt(c, y, tvm_int(c, u->H))),
      tvm_and(c, tvm_ge(c, x, tvm_int(c, 0)), tvm_lt(c, x, tvm_int(c, u->Wd))));
  /* clamp the index so that the read stays inside X either way */
  tvm_expr *yc = tvm_select(c, in, y, tvm_int(c, 0));
  tvm_expr *xc = tvm_select(c, in, x, tvm_int(c, 0));
  return tvm_select(c, in, TVM_AT(c, u->X, i[0], i[1], yc, xc),
                    tvm_fconst(c, TVM_F32, 0.0));
}

static tvm_expr *kernel_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  wg_ud *u = ud;
  tvm_iter_var *r[2] = {tvm_reduce_axis(c, "rh", 0, 3),
                        tvm_reduce_axis(c, "rw", 0, 3)};
  if (!r[0] || !r[1]) return NULL;
  tvm_expr *e = tvm_mul(
      c, tvm_mul(c, TVM_AT(c, u->G, i[0], r[0]->var),
                 TVM_AT(c, u->W, i[2], i[3], r[0]->var, r[1]->var)),
      TVM_AT(c, u->G, i[1], r[1]->var));
  return tvm_sum(c, e, r, 2);
}

static tvm_expr *input_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  wg_ud *u = ud;
  tvm_iter_var *r[2] = {tvm_reduce_axis(c, "ra", 0, 4),
                        tvm_reduce_axis(c, "rb", 0, 4)};
  if (!r[0] || !r[1]) return NULL;
  tvm_expr *tiles = tvm_int(c, u->TH * u->TW);
  tvm_expr *n = tvm_floordiv(c, i[3], tiles);
  tvm_expr *t = tvm_floormod(c, i[3], tiles);
  tvm_expr *ty = tvm_floordiv(c, t, tvm_int(c, u->TW));
  tvm_expr *tx = tvm_floormod(c, t, tvm_int(c, u->TW));
  tvm_expr *y = tvm_add(c, tvm_mul(c, ty, tvm_int(c, 2)), r[0]->var);
  tvm_expr *x = tvm_add(c, tvm_mul(c, tx, tvm_int(c, 2)), r[1]->var);
  tvm_expr *e = tvm_mul(
      c, tvm_mul(c, TVM_AT(c, u->Bt, i[0], r[0]->var),
                 TVM_AT(c, u->Xp, n, i[2], y, x)),
      TVM_AT(c, u->Bt, i[1], r[1]->var));
  return tvm_sum(c, e, r, 2);
}

static tvm_expr *gemm_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  wg_ud *u = ud;
  tvm_iter_var *rc = tvm_reduce_axis(c, "rc", 0, u->C);
  if (!rc) return NULL;
  tvm_expr *e = tvm_mul(c, TVM_AT(c, u->U, i[0], i[1], i[2], rc->var),
                        TVM_AT(c, u->V, i[0], i[1], rc->var, i[3]));
  return tvm_sum(c, e, &rc, 1);
}

static tvm_expr *output_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  wg_ud *u = ud;
  tvm_iter_var *r[2] = {tvm_reduce_axis(c, "ra", 0, 4),
                        tvm_reduce_axis(c, "rb", 0, 4)};
  if (!r[0] || !r[1]) return NULL;
  tvm_expr *two = tvm_int(c, 2);
  tvm_expr *p = tvm_add(
      c,
      tvm_mul(c,
              tvm_add(c, tvm_mul(c, i[0], tvm_int(c, u->TH)),
                      tvm_floordiv(c, i[2], two)),
              tvm_int(c, u->TW)),
      tvm_floordiv(c, i[3], two));
  tvm_expr *e = tvm_mul(
      c, tvm_mul(c, TVM_AT(c, u->At, tvm_floormod(c, i[2], two), r[0]->var),
                 TVM_AT(c, u->M, r[0]->var, r[1]->var, i[1], p)),
      TVM_AT(c, u->At, tvm_floormod(c, i[3], two), r[1]->var));
  return tvm_sum(c, e, r, 2);
}

/* The constant rows x cols matrix vals (row-major) as a compute tagged
 * tag (the body is built here: vals is read only during the call). */
static tvm_tensor *mat_compute(tvm_ctx *c, const char *name, int rows,
                               int cols, const double *vals, const char *tag) {
  wg_mat m = {rows, cols, vals};
  tvm_tensor *t = tvm_compute(c, name, (int64_t[]){rows, cols}, 2, mat_body,
                              &m);
  if (t) tvm_tensor_set_tag(t, tag);
  return t;
}

/* A zeroed wg_ud in c's arena, or NULL with the diagnostic set. */
static wg_ud *wg_ud_new(tvm_ctx *c) {
  wg_ud *u = tvm_ctx_alloc(c, sizeof *u);
  if (!u) {
    tvm_diag_set(TVM_ERR_NOMEM, "winograd: out of memory");
    return NULL;
  }
  memset(u, 0, sizeof *u);
  return u;
}

/* See tvm/te.h. */
tvm_tensor *tvm_op_winograd_kernel(tvm_ctx *c, tvm_tensor *W) {
  if (!W || W->ndim != 4 || W->shape_c[2] != 3 || W->shape_c[3] != 3) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED,
                 "winograd F(2x2, 3x3): expected W [K, C, 3, 3]");
    return NULL;
  }
  wg_ud *u = wg_ud_new(c);
  if (!u) return NULL;
  u->W = W;
  const double *bt, *g, *at; /* F(2x2, 3x3): Bt 4 x 4, G 4 x 3, At 2 x 4 */
  tvm_winograd_matrices(2, &bt, &g, &at);
  u->G = mat_compute(c, "wino_G", 4, 3, g, "winograd_G");
  if (!u->G) return NULL;
  tvm_tensor *U = tvm_compute(
      c, "wino_U", (int64_t[]){4, 4, W->shape_c[0], W->shape_c[1]}, 4,
      kernel_body, u);
  if (U) tvm_tensor_set_tag(U, "winograd_kernel");
  return U;
}

/* See tvm/te.h. */
tvm_tensor *tvm_op_winograd_conv2d(tvm_ctx *c, tvm_tensor *X, tvm_tensor *U,
                                   int64_t pad_h, int64_t pad_w) {
  if (!X || !U || X->ndim != 4 || U->ndim != 4 || U->shape_c[0] != 4 ||
      U->shape_c[1] != 4 || U->shape_c[3] != X->shape_c[1] || pad_h < 0 ||
      pad_w < 0) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED,
                 "winograd F(2x2, 3x3): expected X [N, C, H, W] and U "
                 "[4, 4, K, C] with non-negative padding");
    return NULL;
  }
  wg_ud *u = wg_ud_new(c);
  if (!u) return NULL;
  u->X = X;
  u->U = U;
  u->N = X->shape_c[0];
  u->C = X->shape_c[1];
  u->H = X->shape_c[2];
  u->Wd = X->shape_c[3];
  u->K = U->shape_c[2];
  u->ph = pad_h;
  u->pw = pad_w;
  u->OH = u->H + 2 * pad_h - 2;
  u->OW = u->Wd + 2 * pad_w - 2;
  if (u->OH < 1 || u->OW < 1) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED, "winograd: the output is empty");
    return NULL;
  }
  u->TH = (u->OH + 1) / 2;
  u->TW = (u->OW + 1) / 2;
  int64_t P = u->N * u->TH * u->TW;
  const double *bt, *g, *at; /* F(2x2, 3x3): Bt 4 x 4, G 4 x 3, At 2 x 4 */
  tvm_winograd_matrices(2, &bt, &g, &at);
  u->Bt = mat_compute(c, "wino_Bt", 4, 4, bt, "winograd_Bt");
  u->At = mat_compute(c, "wino_At", 2, 4, at, "winograd_At");
  u->Xp = tvm_compute(c, "wino_pad",
                      (int64_t[]){u->N, u->C, 2 * u->TH + 2, 2 * u->TW + 2},
                      4, pad_body, u);
  if (!u->Bt || !u->At || !u->Xp) return NULL;
  tvm_tensor_set_tag(u->Xp, "pad");
  u->V = tvm_compute(c, "wino_V", (int64_t[]){4, 4, u->C, P}, 4, input_body,
                     u);
  if (!u->V) return NULL;
  tvm_tensor_set_tag(u->V, "winograd_input");
  u->M = tvm_compute(c, "wino_M", (int64_t[]){4, 4, u->K, P}, 4, gemm_body,
                     u);
  if (!u->M) return NULL;
  tvm_tensor_set_tag(u->M, "winograd_batch_gemm");
  tvm_tensor *Y = tvm_compute(c, "wino_Y",
                              (int64_t[]){u->N, u->K, u->OH, u->OW}, 4,
                              output_body, u);
  if (Y) tvm_tensor_set_tag(Y, "winograd_output");
  return Y;
}

