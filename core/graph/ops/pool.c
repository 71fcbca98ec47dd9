/*
 * core/graph/ops/pool.c - pooling over the spatial axes of NC...:
 * MaxPool (kernel_shape, strides, pads, auto_pad, dilations, ceil_mode,
 * the optional int64 Indices output with storage_order), AveragePool
 * (count_include_pad; pads count, the extension of ceil_mode does not),
 * GlobalAveragePool and GlobalMaxPool.
 *
 * Compute: MaxPool pads with the lowest float ("<name>.pad", also covering
 * the ceil_mode extension) and takes rmax over the window; its Indices are
 * the smallest flat (row-major) input index in the window whose value
 * equals the max ("<name>.argmax": the first maximum in window order),
 * renumbered column-major for storage_order 1; AveragePool
 * sums a zero-padded input ("<name>.sum") and divides by the window's
 * element count, a closed form of the output position (no extra tensor).
 * Global pools reduce every spatial axis ("<name>.sum" then the mean).
 */
#include <float.h>
#include <stdint.h>
#include <string.h>

#include "ops_int.h"

typedef enum { P_MAX, P_AVG, P_GMAX, P_GAVG } pkind;

/* The operator kind of n, from its op name. */
static pkind kind_of(const tvm_gnode *n) {
  if (strcmp(n->op, "MaxPool") == 0)
    return P_MAX;
  if (strcmp(n->op, "AveragePool") == 0)
    return P_AVG;
  return strcmp(n->op, "GlobalMaxPool") == 0 ? P_GMAX : P_GAVG;
}

/* Validates a pooling node; fills the window (local pools), the output
 * shape and count_include_pad. */
static tvm_status pool_check(const tvm_gnode *n, op_window *w, int64_t *shape,
                             int64_t *cip) {
  pkind k = kind_of(n);
  tvm_status st = op_check_dtype(n, 0, "X", DT_F32 | DT_F16 | DT_BF16);
  if (st || (st = op_plain_layout(n, 0)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  int nsp = x->ndim - 2;
  if (x->ndim < 3 || nsp > OP_MAX_SPATIAL)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "X has %d dimensions; pooling supports NCW, NCHW and "
                   "NCDHW (3 to 5)",
                   x->ndim);
  shape[0] = x->shape[0];
  shape[1] = x->shape[1];
  *cip = 0;
  if (k == P_GMAX || k == P_GAVG) {
    for (int s = 0; s < nsp; s++)
      shape[2 + s] = 1;
    return TVM_OK;
  }
  const int64_t *ks;
  int nk;
  int64_t ceil_mode, order;
  if ((st = op_attr_ints(n, "kernel_shape", &ks, &nk)) ||
      (st = op_attr_int(n, "ceil_mode", 0, &ceil_mode)) ||
      (st = op_attr_int(n, "count_include_pad", 0, cip)) ||
      (st = op_attr_int(n, "storage_order", 0, &order)))
    return st;
  if (nk < 0)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'kernel_shape' is required (one size per "
                   "spatial axis)");
  if (nk != nsp)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'kernel_shape' has %d values; X has %d spatial "
                   "axes",
                   nk, nsp);
  if (order != 0 && order != 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'storage_order' is %lld; use 0 (row major) or "
                   "1 (column major)",
                   (long long)order);
  if ((st = op_window_infer(n, nsp, x->shape + 2, ks, 1, ceil_mode != 0, w)))
    return st;
  for (int s = 0; s < nsp; s++)
    shape[2 + s] = w->out[s];
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status pool_infer(tvm_graph *g, tvm_gnode *n) {
  op_window w;
  int64_t shape[TVM_MAX_DIMS], cip;
  tvm_status st = pool_check(n, &w, shape, &cip);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, n->inputs[0]->ndim, shape);
  if (n->noutputs > 1 && n->outputs[1])
    op_set_out(n, 1, TVM_I64, n->inputs[0]->ndim, shape);
  return TVM_OK;
}

typedef struct pool_ud {
  pkind k;
  tvm_tensor *xp, *sum, *y, *arg;
  int64_t C, order;
  op_window w;
  int64_t in[OP_MAX_SPATIAL];
  int64_t cip;
  int wide; /* 16-bit floats: averages summed in float32, rounded once */
  tvm_dtype dt;
} pool_ud;

static const char *const rnames[3][3] = {
    {"rx"}, {"ry", "rx"}, {"rz", "ry", "rx"}};

/* rmax / sum over the window of the padded input. */
static tvm_expr *window_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pool_ud *u = ud;
  int nsp = u->w.nsp;
  tvm_iter_var *ax[OP_MAX_SPATIAL];
  tvm_expr *xi[2 + OP_MAX_SPATIAL];
  xi[0] = i[0];
  xi[1] = i[1];
  for (int s = 0; s < nsp; s++) {
    ax[s] = tvm_reduce_axis(c, rnames[nsp - 1][s], 0, u->w.k[s]);
    if (!ax[s])
      return NULL;
    xi[2 + s] = tvm_add(c, tvm_mul(c, i[2 + s], tvm_int(c, u->w.s[s])),
                        tvm_mul(c, ax[s]->var, tvm_int(c, u->w.d[s])));
  }
  tvm_expr *v = tvm_tread(c, u->xp, xi, nsp + 2);
  return u->k == P_MAX ? tvm_rmax(c, v, ax, nsp)
                       : tvm_sum(c, op_te_widen(c, v, u->wide), ax, nsp);
}

/* MaxPool's Indices, row-major: min over the window of the flat input
 * index of each position whose (padded) value equals the max. */
static tvm_expr *argmax_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pool_ud *u = ud;
  int nsp = u->w.nsp;
  tvm_iter_var *ax[OP_MAX_SPATIAL];
  tvm_expr *xi[2 + OP_MAX_SPATIAL];
  tvm_expr *flat = tvm_add(c, tvm_mul(c, tvm_cast(c, TVM_I64, i[0]),
                                      tvm_const(c, TVM_I64, u->C)),
                           tvm_cast(c, TVM_I64, i[1]));
  xi[0] = i[0];
  xi[1] = i[1];
  for (int s = 0; s < nsp; s++) {
    ax[s] = tvm_reduce_axis(c, rnames[nsp - 1][s], 0, u->w.k[s]);
    if (!ax[s])
      return NULL;
    xi[2 + s] = tvm_add(c, tvm_mul(c, i[2 + s], tvm_int(c, u->w.s[s])),
                        tvm_mul(c, ax[s]->var, tvm_int(c, u->w.d[s])));
    tvm_expr *pos = tvm_sub(c, xi[2 + s], tvm_int(c, u->w.pads[s]));
    flat = tvm_add(c, tvm_mul(c, flat, tvm_const(c, TVM_I64, u->in[s])),
                   tvm_cast(c, TVM_I64, pos));
  }
  tvm_expr *hit = tvm_eq(c, tvm_tread(c, u->xp, xi, nsp + 2),
                         tvm_tread(c, u->y, i, nsp + 2));
  return tvm_rmin(c, tvm_select(c, hit, flat, tvm_const(c, TVM_I64, INT64_MAX)),
                  ax, nsp);
}

/* storage_order 1: the row-major flat index of the argmax renumbered with
 * the spatial axes in column-major order (N and C stay outermost). */
static tvm_expr *colmajor_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pool_ud *u = ud;
  int nsp = u->w.nsp;
  int64_t plane = 1;
  for (int s = 0; s < nsp; s++)
    plane *= u->in[s];
  tvm_expr *rm = tvm_tread(c, u->arg, i, nsp + 2);
  tvm_expr *nc = tvm_floordiv(c, rm, tvm_const(c, TVM_I64, plane));
  tvm_expr *rest = tvm_floormod(c, rm, tvm_const(c, TVM_I64, plane));
  tvm_expr *cm = tvm_const(c, TVM_I64, 0);
  int64_t inner = plane, stride = 1;
  for (int s = 0; s < nsp; s++) {
    inner /= u->in[s];
    tvm_expr *p = tvm_floormod(c, tvm_floordiv(c, rest, tvm_const(c, TVM_I64, inner)),
                               tvm_const(c, TVM_I64, u->in[s]));
    cm = tvm_add(c, cm, tvm_mul(c, p, tvm_const(c, TVM_I64, stride)));
    stride *= u->in[s];
  }
  return tvm_add(c, tvm_mul(c, nc, tvm_const(c, TVM_I64, plane)), cm);
}

/* ceil(a / d) for d > 0 */
static tvm_expr *ceildiv(tvm_ctx *c, tvm_expr *a, int64_t d) {
  return tvm_floordiv(c, tvm_add(c, a, tvm_int(c, d - 1)), tvm_int(c, d));
}

/* sum / (number of window positions inside the counted region). */
static tvm_expr *avg_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pool_ud *u = ud;
  tvm_expr *cnt = NULL;
  for (int s = 0; s < u->w.nsp; s++) {
    int64_t pb = u->w.pads[s], pe = u->w.pads[s + u->w.nsp];
    int64_t lo = u->cip ? -pb : 0, hi = u->cip ? u->in[s] + pe : u->in[s];
    tvm_expr *start =
        tvm_sub(c, tvm_mul(c, i[2 + s], tvm_int(c, u->w.s[s])), tvm_int(c, pb));
    tvm_expr *first =
        tvm_max(c, tvm_int(c, 0),
                ceildiv(c, tvm_sub(c, tvm_int(c, lo), start), u->w.d[s]));
    tvm_expr *last =
        tvm_min(c, tvm_int(c, u->w.k[s]),
                ceildiv(c, tvm_sub(c, tvm_int(c, hi), start), u->w.d[s]));
    tvm_expr *k = tvm_max(c, tvm_sub(c, last, first), tvm_int(c, 1));
    cnt = cnt ? tvm_mul(c, cnt, k) : k;
  }
  tvm_expr *y = tvm_div(c, tvm_tread(c, u->sum, i, u->sum->ndim),
                        tvm_cast(c, u->sum->dtype, cnt));
  return u->wide ? tvm_cast(c, u->dt, y) : y;
}

/* Global: reduce every spatial axis. */
static tvm_expr *global_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pool_ud *u = ud;
  tvm_tensor *x = u->xp;
  int nsp = x->ndim - 2;
  tvm_iter_var *ax[OP_MAX_SPATIAL];
  tvm_expr *xi[2 + OP_MAX_SPATIAL];
  xi[0] = i[0];
  xi[1] = i[1];
  for (int s = 0; s < nsp; s++) {
    ax[s] = tvm_reduce_axis(c, rnames[nsp - 1][s], 0, x->shape_c[2 + s]);
    if (!ax[s])
      return NULL;
    xi[2 + s] = ax[s]->var;
  }
  tvm_expr *v = tvm_tread(c, x, xi, x->ndim);
  return u->k == P_GMAX ? tvm_rmax(c, v, ax, nsp)
                        : tvm_sum(c, op_te_widen(c, v, u->wide), ax, nsp);
}

/* mean = sum / (number of spatial elements). */
static tvm_expr *gmean_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pool_ud *u = ud;
  int64_t cnt = 1;
  for (int d = 2; d < u->xp->ndim; d++)
    cnt *= u->xp->shape_c[d];
  tvm_expr *y = tvm_div(c, tvm_tread(c, u->sum, i, u->sum->ndim),
                        op_te_const(c, u->sum->dtype, (double)cnt));
  return u->wide ? tvm_cast(c, u->dt, y) : y;
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status pool_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                               tvm_tensor **out) {
  pool_ud u;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = pool_check(n, &u.w, shape, &u.cip);
  if (st)
    return st;
  u.k = kind_of(n);
  u.dt = in[0]->dtype;
  u.wide = op_is_f16ish(u.dt);
  const tvm_gvalue *o = n->outputs[0];
  if (u.k == P_GMAX || u.k == P_GAVG) {
    u.xp = in[0];
    if (u.k == P_GMAX) {
      out[0] = op_te_compute_out(c, n, 0, "pool_max", global_body, &u);
      return op_te_status(c, n, out[0]);
    }
    u.sum = tvm_compute(c, op_te_name(c, n, "sum"), o->shape, o->ndim, global_body,
                        &u);
    if ((st = op_te_status(c, n, u.sum)))
      return st;
    tvm_tensor_set_tag(u.sum, "pool_sum");
    out[0] = op_te_compute_out(c, n, 0, "elemwise", gmean_body, &u);
    return op_te_status(c, n, out[0]);
  }
  int nsp = u.w.nsp;
  int64_t pads[2 * OP_MAX_SPATIAL];
  for (int s = 0; s < nsp; s++) {
    u.in[s] = in[0]->shape_c[2 + s];
    pads[s] = u.w.pads[s];
    /* the end pad also covers windows of ceil_mode past the padding */
    int64_t need = (u.w.out[s] - 1) * u.w.s[s] + u.w.d[s] * (u.w.k[s] - 1) + 1 -
                   u.in[s] - u.w.pads[s];
    pads[s + nsp] = need > u.w.pads[s + nsp] ? need : u.w.pads[s + nsp];
    if (pads[s + nsp] < 0)
      pads[s + nsp] = 0;
  }
  u.xp = op_te_pad(c, n, in[0], pads, nsp, u.k == P_MAX ? -FLT_MAX : 0.0);
  if ((st = op_te_status(c, n, u.xp)))
    return st;
  if (u.k == P_MAX) {
    out[0] = op_te_compute_out(c, n, 0, "pool_max", window_body, &u);
    if ((st = op_te_status(c, n, out[0])) || n->noutputs < 2 || !n->outputs[1])
      return st;
    if ((st = op_attr_int(n, "storage_order", 0, &u.order)))
      return st;
    u.y = out[0];
    u.C = in[0]->shape_c[1];
    if (u.order == 0) {
      out[1] = op_te_compute_out(c, n, 1, "pool_argmax", argmax_body, &u);
      return op_te_status(c, n, out[1]);
    }
    u.arg = tvm_compute(c, op_te_name(c, n, "argmax"), o->shape, o->ndim,
                        argmax_body, &u);
    if ((st = op_te_status(c, n, u.arg)))
      return st;
    tvm_tensor_set_tag(u.arg, "pool_argmax");
    out[1] = op_te_compute_out(c, n, 1, "injective", colmajor_body, &u);
    return op_te_status(c, n, out[1]);
  }
  u.sum =
      tvm_compute(c, op_te_name(c, n, "sum"), o->shape, o->ndim, window_body, &u);
  if ((st = op_te_status(c, n, u.sum)))
    return st;
  tvm_tensor_set_tag(u.sum, "pool_sum");
  out[0] = op_te_compute_out(c, n, 0, "elemwise", avg_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Naive pooling: each output element visits its window. */
static tvm_status pool_reference(const tvm_gnode *n, const DLTensor *const *in,
                                 DLTensor *const *out) {
  op_window w;
  int64_t shape[TVM_MAX_DIMS], cip;
  tvm_status st = pool_check(n, &w, shape, &cip);
  if (st)
    return st;
  pkind k = kind_of(n);
  const DLTensor *x = in[0];
  int nsp = x->ndim - 2;
  if (k == P_GMAX || k == P_GAVG) {
    w.nsp = nsp;
    for (int s = 0; s < nsp; s++) {
      w.k[s] = x->shape[2 + s];
      w.s[s] = w.d[s] = 1;
      w.pads[s] = w.pads[s + nsp] = 0;
    }
  }
  int64_t ksz = 1, len = op_dl_numel(out[0]);
  for (int s = 0; s < nsp; s++)
    ksz *= w.k[s];
  for (int64_t e = 0; e < len; e++) {
    int64_t oi[TVM_MAX_DIMS], ki[OP_MAX_SPATIAL];
    op_dl_unravel(e, out[0]->shape, out[0]->ndim, oi);
    double acc = k == P_MAX || k == P_GMAX ? -FLT_MAX : 0;
    int64_t cnt = 0, arg = -1, argcm = -1;
    for (int64_t kk = 0; kk < ksz; kk++) {
      op_dl_unravel(kk, w.k, nsp, ki);
      int64_t nc = oi[0] * x->shape[1] + oi[1];
      int64_t xf = nc, cm = 0, cstride = 1, inside = 1, counted = 1;
      for (int s = 0; s < nsp; s++) {
        int64_t pos = oi[2 + s] * w.s[s] + ki[s] * w.d[s] - w.pads[s];
        if (pos < 0 || pos >= x->shape[2 + s])
          inside = 0;
        if (pos < -w.pads[s] || pos >= x->shape[2 + s] + w.pads[s + nsp])
          counted = 0;
        xf = xf * x->shape[2 + s] + pos;
        cm += pos * cstride;
        cstride *= x->shape[2 + s];
      }
      if (inside) {
        double v = op_dl_getf(x, xf);
        if (k == P_MAX || k == P_GMAX) {
          if (v > acc || arg < 0) {
            acc = v;
            arg = xf;
            argcm = nc * cstride + cm;
          }
        } else {
          acc += v;
        }
      }
      cnt += cip ? counted : inside;
    }
    if (k == P_AVG || k == P_GAVG)
      acc /= (double)(cnt ? cnt : 1);
    op_dl_setf(out[0], e, acc);
    if (k == P_MAX && n->noutputs > 1 && out[1]) {
      int64_t order = tvm_gnode_int(n, "storage_order", 0);
      op_dl_seti(out[1], e, order ? argcm : arg);
    }
  }
  return TVM_OK;
}

#define POOL(nm, mo, doc_)                                                     \
  {                                                                            \
    nm, 1, 1, 1, mo, TVM_PAT_OUT_ELEMWISE_FUSABLE, pool_infer, pool_compute,   \
        pool_reference, doc_                                                   \
  }

static const tvm_gop_def defs[] = {
    POOL("MaxPool", 2,
         "max over windows (kernel_shape, strides, pads, auto_pad, "
         "dilations, ceil_mode)"),
    POOL("AveragePool", 1,
         "mean over windows (count_include_pad, ceil_mode, pads, auto_pad)"),
    POOL("GlobalMaxPool", 1, "max over all spatial axes (keeps them as 1)"),
    POOL("GlobalAveragePool", 1,
         "mean over all spatial axes (keeps them as 1)"),
};

const ops_family ops_pool_family = {defs, (int)(sizeof defs / sizeof defs[0])};
