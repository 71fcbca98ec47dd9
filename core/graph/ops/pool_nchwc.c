/*
 * core/graph/ops/pool_nchwc.c - Pool_NCHWc, pooling on channel-blocked
 * data [N, C/b, H, W, b] (layout "NCHW<b>c"), written by the alter_layout
 * pass so that pools between blocked convolutions need no layout
 * transforms.  Attribute "pool" names the ONNX operator it stands for:
 *   MaxPool            kernel_shape, strides, pads, auto_pad, dilations,
 *                      ceil_mode (as the ONNX operator)
 *   GlobalAveragePool  mean over H and W (output [N, C/b, 1, 1, b])
 *   GlobalMaxPool      max over H and W
 * The block dimension is carried through untouched, so each window is a
 * vector of b channels.  Compute: MaxPool reads a "<name>.pad" that holds
 * the lowest float outside the input (the ceil_mode extension included)
 * and takes rmax over (ry, rx); global pools reduce (ry, rx) into
 * "<name>.sum" (tag pool_sum) then scale, or take rmax directly.
 */
#include <float.h>
#include <string.h>

#include "ops_int.h"

typedef enum { PC_MAX, PC_GAVG, PC_GMAX } pc_kind;

typedef struct pc_info {
  pc_kind k;
  op_window w;
  int64_t H, W;
  int64_t ph, pw; /* padded extents (MaxPool) */
} pc_info;

/* Validates the node; fills the window (MaxPool) and the output shape. */
static tvm_status pc_check(const tvm_gnode *n, pc_info *pi, int64_t *shape) {
  const char *pool;
  tvm_status st;
  memset(pi, 0, sizeof *pi);
  if ((st = op_check_dtype(n, 0, "X", DT_F32)) ||
      (st = op_attr_str(n, "pool", NULL, &pool)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if (x->ndim != 5)
    return op_fail(n, TVM_ERR_INVALID, "X must be 5-D (NCHW<b>c), got %d-D",
                   x->ndim);
  if (!pool)
    return op_fail(n, TVM_ERR_INVALID, "attribute 'pool' is required");
  if (strcmp(pool, "MaxPool") == 0)
    pi->k = PC_MAX;
  else if (strcmp(pool, "GlobalAveragePool") == 0)
    pi->k = PC_GAVG;
  else if (strcmp(pool, "GlobalMaxPool") == 0)
    pi->k = PC_GMAX;
  else
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "pool = \"%s\": use MaxPool, GlobalAveragePool or "
                   "GlobalMaxPool", pool);
  pi->H = x->shape[2];
  pi->W = x->shape[3];
  memcpy(shape, x->shape, sizeof(int64_t) * 5);
  if (pi->k != PC_MAX) {
    shape[2] = shape[3] = 1;
    return TVM_OK;
  }
  const int64_t *ks;
  int nk;
  int64_t ceil_mode, order;
  if ((st = op_attr_ints(n, "kernel_shape", &ks, &nk)) ||
      (st = op_attr_int(n, "ceil_mode", 0, &ceil_mode)) ||
      (st = op_attr_int(n, "storage_order", 0, &order)))
    return st;
  if (nk != 2 || order != 0)
    return op_fail(n, TVM_ERR_INVALID,
                   "MaxPool needs a 2-D 'kernel_shape' and storage_order 0");
  int64_t in[2] = {pi->H, pi->W};
  if ((st = op_window_infer(n, 2, in, ks, 1, ceil_mode != 0, &pi->w)))
    return st;
  shape[2] = pi->w.out[0];
  shape[3] = pi->w.out[1];
  for (int s = 0; s < 2; s++) {
    int64_t need = (pi->w.out[s] - 1) * pi->w.s[s] +
                   (pi->w.k[s] - 1) * pi->w.d[s] + 1;
    int64_t have = in[s] + pi->w.pads[s] + pi->w.pads[s + 2];
    (s ? &pi->pw : &pi->ph)[0] = need > have ? need : have;
  }
  return TVM_OK;
}

/* Infer: the output shape; the output keeps the input's layout. */
static tvm_status pc_infer(tvm_graph *g, tvm_gnode *n) {
  pc_info pi;
  int64_t shape[5];
  tvm_status st = pc_check(n, &pi, shape);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, 5, shape);
  if (n->noutputs > 0 && n->outputs[0])
    n->outputs[0]->layout = n->inputs[0]->layout;
  return TVM_OK;
}

typedef struct pc_ud {
  pc_info pi;
  tvm_tensor *x, *xp, *sum;
} pc_ud;

/* The lowest float outside the input; reads clamped. */
static tvm_expr *pc_pad_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pc_ud *u = ud;
  tvm_expr *ix[5] = {i[0], i[1], i[2], i[3], i[4]}, *cond = NULL;
  for (int s = 0; s < 2; s++) {
    int64_t ext = s ? u->pi.W : u->pi.H;
    tvm_expr *src = tvm_sub(c, i[2 + s], tvm_int(c, u->pi.w.pads[s]));
    tvm_expr *in = tvm_and(c, tvm_ge(c, src, tvm_int(c, 0)),
                           tvm_lt(c, src, tvm_int(c, ext)));
    cond = cond ? tvm_and(c, cond, in) : in;
    ix[2 + s] =
        tvm_min(c, tvm_max(c, src, tvm_int(c, 0)), tvm_int(c, ext - 1));
  }
  return tvm_select(c, cond, tvm_tread(c, u->x, ix, 5),
                    op_te_const(c, u->x->dtype, -FLT_MAX));
}

/* rmax (or sum) over the window, or over all of H and W (global). */
static tvm_expr *pc_window_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pc_ud *u = ud;
  int glob = u->pi.k != PC_MAX;
  tvm_iter_var *ax[2];
  tvm_expr *xi[5] = {i[0], i[1], NULL, NULL, i[4]};
  static const char *const rn[2] = {"ry", "rx"};
  for (int s = 0; s < 2; s++) {
    int64_t ext = glob ? (s ? u->pi.W : u->pi.H) : u->pi.w.k[s];
    if (!(ax[s] = tvm_reduce_axis(c, rn[s], 0, ext)))
      return NULL;
    xi[2 + s] = glob ? ax[s]->var
                     : tvm_add(c, tvm_mul(c, i[2 + s], tvm_int(c, u->pi.w.s[s])),
                               tvm_mul(c, ax[s]->var, tvm_int(c, u->pi.w.d[s])));
  }
  tvm_expr *v = tvm_tread(c, u->xp, xi, 5);
  return u->pi.k == PC_GAVG ? tvm_sum(c, v, ax, 2) : tvm_rmax(c, v, ax, 2);
}

/* mean = sum / (H * W). */
static tvm_expr *pc_mean_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pc_ud *u = ud;
  return tvm_mul(c, tvm_tread(c, u->sum, i, 5),
                 op_te_const(c, u->sum->dtype, 1.0 / (double)(u->pi.H * u->pi.W)));
}

/* Compute: see the top of the file. */
static tvm_status pc_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  pc_ud u;
  int64_t shape[5];
  tvm_status st = pc_check(n, &u.pi, shape);
  if (st)
    return st;
  u.x = u.xp = in[0];
  if (u.pi.k == PC_MAX) {
    const int64_t *pd = u.pi.w.pads;
    if (pd[0] || pd[1] || pd[2] || pd[3] || u.pi.ph != u.pi.H ||
        u.pi.pw != u.pi.W) {
      int64_t ps[5];
      memcpy(ps, in[0]->shape_c, sizeof ps);
      ps[2] = u.pi.ph;
      ps[3] = u.pi.pw;
      u.xp = tvm_compute(c, op_te_name(c, n, "pad"), ps, 5, pc_pad_body, &u);
      if ((st = op_te_status(c, n, u.xp)))
        return st;
      tvm_tensor_set_tag(u.xp, "pad");
    }
    out[0] = op_te_compute_out(c, n, 0, "pool_max", pc_window_body, &u);
    return op_te_status(c, n, out[0]);
  }
  if (u.pi.k == PC_GMAX) {
    out[0] = op_te_compute_out(c, n, 0, "pool_max", pc_window_body, &u);
    return op_te_status(c, n, out[0]);
  }
  u.sum = tvm_compute(c, op_te_name(c, n, "sum"), shape, 5, pc_window_body, &u);
  if ((st = op_te_status(c, n, u.sum)))
    return st;
  tvm_tensor_set_tag(u.sum, "pool_sum");
  out[0] = op_te_compute_out(c, n, 0, "elemwise", pc_mean_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Naive pooling of every output element. */
static tvm_status pc_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  pc_info pi;
  int64_t shape[5];
  tvm_status st = pc_check(n, &pi, shape);
  if (st)
    return st;
  const DLTensor *x = in[0];
  const int64_t *xs = x->shape;
  int64_t len = op_dl_numel(out[0]);
  for (int64_t e = 0; e < len; e++) {
    int64_t o[5];
    op_dl_unravel(e, shape, 5, o);
    double acc = pi.k == PC_GAVG ? 0 : -DBL_MAX;
    int64_t kh = pi.k == PC_MAX ? pi.w.k[0] : pi.H;
    int64_t kw = pi.k == PC_MAX ? pi.w.k[1] : pi.W;
    for (int64_t ky = 0; ky < kh; ky++)
      for (int64_t kx = 0; kx < kw; kx++) {
        int64_t h = ky, w = kx;
        if (pi.k == PC_MAX) {
          h = o[2] * pi.w.s[0] + ky * pi.w.d[0] - pi.w.pads[0];
          w = o[3] * pi.w.s[1] + kx * pi.w.d[1] - pi.w.pads[1];
          if (h < 0 || h >= pi.H || w < 0 || w >= pi.W)
            continue;
        }
        double v =
            op_dl_getf(x, (((o[0] * xs[1] + o[1]) * xs[2] + h) * xs[3] + w) *
                               xs[4] + o[4]);
        acc = pi.k == PC_GAVG ? acc + v : (v > acc ? v : acc);
      }
    op_dl_setf(out[0], e, pi.k == PC_GAVG ? acc / (double)(pi.H * pi.W) : acc);
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Pool_NCHWc", 1, 1, 1, 1, TVM_PAT_OUT_ELEMWISE_FUSABLE, pc_infer,
     pc_compute, pc_reference,
     "internal: MaxPool / GlobalAveragePool / GlobalMaxPool (attribute "
     "pool) on channel-blocked data (NCHW<b>c)"},
};

const ops_family ops_pool_nchwc_family = {
    defs, (int)(sizeof defs / sizeof defs[0])};
