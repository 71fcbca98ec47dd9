/*
 * core/graph/ops/conv.c - Conv (1-D, 2-D, 3-D; NCHW with OIHW weights):
 * groups and depthwise, dilations, asymmetric pads, auto_pad, optional
 * bias; and op_window_infer, the sliding-window arithmetic shared with
 * the pooling operators.
 *
 * Compute: a zero-padded intermediate ("<name>.pad", omitted without
 * padding), the convolution as one sum over (rc, ry, rx) tagged
 * "conv2d_nchw" ("depthwise_conv2d_nchw" when group == C, "conv1d_ncw",
 * "conv3d_ncdhw"), then "<name>.bias" adding B when present.
 */
#include <string.h>

#include "ops_int.h"

/* Resolves strides/dilations/pads/auto_pad and the output sizes. */
tvm_status op_window_infer(const tvm_gnode *n, int nsp, const int64_t *in,
                           const int64_t *k, int has_dil, int ceil_mode,
                           op_window *w) {
  const int64_t *v;
  int len;
  const char *ap;
  tvm_status st;
  memset(w, 0, sizeof *w);
  w->nsp = nsp;
  if (nsp < 1 || nsp > OP_MAX_SPATIAL)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "%d spatial dimensions; 1 to %d are supported", nsp,
                   OP_MAX_SPATIAL);
  for (int i = 0; i < nsp; i++) {
    w->k[i] = k[i];
    w->s[i] = w->d[i] = 1;
    if (k[i] < 1)
      return op_fail(n, TVM_ERR_INVALID, "kernel size %lld must be >= 1",
                     (long long)k[i]);
  }
  static const char *const names[] = {"strides", "dilations"};
  for (int a = 0; a < 2; a++) {
    if (a == 1 && !has_dil)
      break;
    if ((st = op_attr_ints(n, names[a], &v, &len)))
      return st;
    if (len < 0)
      continue;
    if (len != nsp)
      return op_fail(n, TVM_ERR_INVALID,
                     "attribute '%s' has %d values; give one per spatial "
                     "dimension (%d)",
                     names[a], len, nsp);
    for (int i = 0; i < nsp; i++) {
      if (v[i] < 1)
        return op_fail(n, TVM_ERR_INVALID,
                       "attribute '%s' value %lld must be >= 1", names[a],
                       (long long)v[i]);
      (a == 0 ? w->s : w->d)[i] = v[i];
    }
  }
  if ((st = op_attr_str(n, "auto_pad", "NOTSET", &ap)) ||
      (st = op_attr_ints(n, "pads", &v, &len)))
    return st;
  int same_upper = strcmp(ap, "SAME_UPPER") == 0;
  int same_lower = strcmp(ap, "SAME_LOWER") == 0;
  int valid = strcmp(ap, "VALID") == 0;
  if (!same_upper && !same_lower && !valid && strcmp(ap, "NOTSET") != 0)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'auto_pad' = \"%s\" is unknown; use NOTSET, "
                   "SAME_UPPER, SAME_LOWER or VALID",
                   ap);
  if (len >= 0 && strcmp(ap, "NOTSET") != 0)
    return op_fail(n, TVM_ERR_INVALID,
                   "attributes 'pads' and 'auto_pad' = %s are both set; "
                   "give only one",
                   ap);
  if (len >= 0 && len != 2 * nsp)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'pads' has %d values; give %d (begin of each "
                   "spatial axis, then end of each)",
                   len, 2 * nsp);
  for (int i = 0; i < nsp; i++) {
    int64_t ek = w->d[i] * (k[i] - 1) + 1; /* dilated extent */
    if (same_upper || same_lower) {
      int64_t out = (in[i] + w->s[i] - 1) / w->s[i];
      int64_t total = (out - 1) * w->s[i] + ek - in[i];
      if (total < 0)
        total = 0;
      int64_t small = total / 2;
      w->pads[i] = same_upper ? small : total - small;
      w->pads[i + nsp] = total - w->pads[i];
    } else if (len >= 0) {
      w->pads[i] = v[i];
      w->pads[i + nsp] = v[i + nsp];
      if (v[i] < 0 || v[i + nsp] < 0)
        return op_fail(n, TVM_ERR_INVALID,
                       "attribute 'pads' has a negative value");
    }
    int64_t span = in[i] + w->pads[i] + w->pads[i + nsp] - ek;
    if (span < 0)
      return op_fail(n, TVM_ERR_INVALID,
                     "spatial axis %d: the window (%lld with dilation) is "
                     "larger than the padded input (%lld)",
                     i, (long long)ek,
                     (long long)(in[i] + w->pads[i] + w->pads[i + nsp]));
    int64_t out =
        ceil_mode ? (span + w->s[i] - 1) / w->s[i] + 1 : span / w->s[i] + 1;
    /* a last window that would start inside the end padding is dropped */
    if (ceil_mode && (out - 1) * w->s[i] >= in[i] + w->pads[i])
      out--;
    w->out[i] = out;
  }
  return TVM_OK;
}

/* Validates Conv and computes its window and output shape. */
static tvm_status conv_check(const tvm_gnode *n, op_window *w, int64_t *group,
                             int64_t *oshape) {
  tvm_status st;
  const tvm_gvalue *b = NULL;
  const int fl = DT_F32 | DT_F16 | DT_BF16;
  if ((st = op_check_dtype(n, 0, "X", fl)) ||
      (st = op_check_dtype(n, 1, "W", fl)) ||
      (st = op_opt_input(n, 2, "B", fl, &b)) ||
      (st = op_attr_int(n, "group", 1, group)))
    return st;
  if ((st = op_plain_layout(n, 0)))
    return st;
  const tvm_gvalue *x = n->inputs[0], *wt = n->inputs[1];
  if (!tvm_dtype_eq(x->dtype, wt->dtype) ||
      (b && !tvm_dtype_eq(x->dtype, b->dtype))) {
    char a1[32], a2[32];
    return op_fail(n, TVM_ERR_INVALID,
                   "X is %s but W%s is %s: Conv's inputs must have one type "
                   "(insert a Cast)", tvm_dtype_str(x->dtype, a1),
                   b && tvm_dtype_eq(x->dtype, wt->dtype) ? "'s bias B" : "",
                   tvm_dtype_str(tvm_dtype_eq(x->dtype, wt->dtype) ? b->dtype
                                                                  : wt->dtype,
                                 a2));
  }
  int nsp = x->ndim - 2;
  if (x->ndim < 3 || x->ndim > 2 + OP_MAX_SPATIAL)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "X has %d dimensions; Conv supports NCW, NCHW and NCDHW "
                   "(3 to 5)",
                   x->ndim);
  if (wt->ndim != x->ndim)
    return op_fail(n, TVM_ERR_INVALID,
                   "W has %d dimensions, X has %d; W must be (M, C/group, "
                   "kernel...)",
                   wt->ndim, x->ndim);
  int64_t C = x->shape[1], M = wt->shape[0];
  if (*group < 1 || C % *group || M % *group)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'group' = %lld must divide the input channels "
                   "(%lld) and the output channels (%lld)",
                   (long long)*group, (long long)C, (long long)M);
  if (wt->shape[1] != C / *group)
    return op_fail(n, TVM_ERR_INVALID,
                   "W has %lld input channels per group but X has %lld "
                   "channels in %lld groups (%lld each)",
                   (long long)wt->shape[1], (long long)C, (long long)*group,
                   (long long)(C / *group));
  if (b && (b->ndim != 1 || b->shape[0] != M))
    return op_fail(n, TVM_ERR_INVALID, "B must be 1-D of length M = %lld",
                   (long long)M);
  const int64_t *ks;
  int nk;
  if ((st = op_attr_ints(n, "kernel_shape", &ks, &nk)))
    return st;
  if (nk >= 0) {
    if (nk != nsp)
      return op_fail(n, TVM_ERR_INVALID,
                     "attribute 'kernel_shape' has %d values, expected %d", nk,
                     nsp);
    for (int i = 0; i < nsp; i++)
      if (ks[i] != wt->shape[2 + i])
        return op_fail(n, TVM_ERR_INVALID,
                       "attribute 'kernel_shape' disagrees with W's shape "
                       "at spatial axis %d (%lld vs %lld)",
                       i, (long long)ks[i], (long long)wt->shape[2 + i]);
  }
  if ((st = op_window_infer(n, nsp, x->shape + 2, wt->shape + 2, 1, 0, w)))
    return st;
  oshape[0] = x->shape[0];
  oshape[1] = M;
  for (int i = 0; i < nsp; i++)
    oshape[2 + i] = w->out[i];
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status conv_infer(tvm_graph *g, tvm_gnode *n) {
  op_window w;
  int64_t group, shape[TVM_MAX_DIMS];
  tvm_status st = conv_check(n, &w, &group, shape);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, n->inputs[0]->ndim, shape);
  return TVM_OK;
}

typedef struct conv_ud {
  tvm_tensor *xp, *w, *b, *conv;
  op_window win;
  int64_t cg, mg, group;
  int wide; /* 16-bit floats: products and sum in float32, rounded once */
  tvm_dtype dt;
} conv_ud;

/* One output element: the sum over (rc, kernel window) of the padded input
 * times W. */
static tvm_expr *conv_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  static const char *const rn[3][3] = {
      {"rx"}, {"ry", "rx"}, {"rz", "ry", "rx"}};
  conv_ud *u = ud;
  int nsp = u->win.nsp;
  tvm_iter_var *ax[1 + OP_MAX_SPATIAL];
  ax[0] = tvm_reduce_axis(c, "rc", 0, u->cg);
  for (int s = 0; s < nsp; s++)
    ax[1 + s] = tvm_reduce_axis(c, rn[nsp - 1][s], 0, u->win.k[s]);
  for (int s = 0; s <= nsp; s++)
    if (!ax[s])
      return NULL;
  tvm_expr *xi[2 + OP_MAX_SPATIAL], *wi[2 + OP_MAX_SPATIAL];
  xi[0] = i[0];
  xi[1] = u->group == 1
              ? ax[0]->var
              : tvm_add(c,
                        tvm_mul(c, tvm_floordiv(c, i[1], tvm_int(c, u->mg)),
                                tvm_int(c, u->cg)),
                        ax[0]->var);
  wi[0] = i[1];
  wi[1] = ax[0]->var;
  for (int s = 0; s < nsp; s++) {
    xi[2 + s] = tvm_add(c, tvm_mul(c, i[2 + s], tvm_int(c, u->win.s[s])),
                        tvm_mul(c, ax[1 + s]->var, tvm_int(c, u->win.d[s])));
    wi[2 + s] = ax[1 + s]->var;
  }
  tvm_expr *prod =
      tvm_mul(c, op_te_widen(c, tvm_tread(c, u->xp, xi, nsp + 2), u->wide),
              op_te_widen(c, tvm_tread(c, u->w, wi, nsp + 2), u->wide));
  return tvm_sum(c, prod, ax, nsp + 1);
}

/* out = conv + B[channel] (16-bit floats: added in float32, rounded). */
static tvm_expr *bias_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  conv_ud *u = ud;
  tvm_expr *y = tvm_tread(c, u->conv, i, u->conv->ndim);
  if (u->b) y = tvm_add(c, y, op_te_widen(c, TVM_AT(c, u->b, i[1]), u->wide));
  return u->wide ? tvm_cast(c, u->dt, y) : y;
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status conv_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                               tvm_tensor **out) {
  conv_ud u;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = conv_check(n, &u.win, &u.group, shape);
  if (st)
    return st;
  int nsp = u.win.nsp;
  u.w = in[1];
  u.b = n->ninputs > 2 ? in[2] : NULL;
  u.cg = in[0]->shape_c[1] / u.group;
  u.mg = in[1]->shape_c[0] / u.group;
  u.dt = in[0]->dtype;
  u.wide = op_is_f16ish(u.dt);
  u.xp = op_te_pad(c, n, in[0], u.win.pads, nsp, 0.0);
  if ((st = op_te_status(c, n, u.xp)))
    return st;
  static const char *const tags[] = {"conv1d_ncw", "conv2d_nchw",
                                     "conv3d_ncdhw"};
  const char *tag = tags[nsp - 1];
  if (u.group > 1 && u.cg == 1 && nsp == 2)
    tag = "depthwise_conv2d_nchw";
  else if (u.group > 1 && nsp == 2)
    tag = "group_conv2d_nchw";
  const tvm_gvalue *o = n->outputs[0];
  int epi = u.b || u.wide;
  u.conv = tvm_compute(c, epi ? op_te_name(c, n, "conv") : op_te_name(c, n, NULL),
                       o->shape, o->ndim, conv_body, &u);
  if ((st = op_te_status(c, n, u.conv)))
    return st;
  tvm_tensor_set_tag(u.conv, tag);
  if (!epi) {
    out[0] = u.conv;
    return TVM_OK;
  }
  out[0] = op_te_compute_out(c, n, 0, "broadcast", bias_body, &u);
  return op_te_status(c, n, out[0]);
}

/* The 2-D float32 case of conv_reference, looped so that each output
 * plane accumulates contiguously: every output element receives exactly
 * the same additions in the same order (bias, then input channel, then
 * window position, in double), so the results are bit-identical to the
 * generic loop, about twenty times faster (the quantize pass calibrates
 * by running whole networks through the references). */
static tvm_status conv2d_f32_reference(const op_window *w, int64_t group,
                                       const DLTensor *x, const DLTensor *wt,
                                       const DLTensor *b, DLTensor *y) {
  int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
  int64_t M = wt->shape[0], KH = w->k[0], KW = w->k[1];
  int64_t OH = y->shape[2], OW = y->shape[3], cg = C / group, mg = M / group;
  const float *xd = (const float *)((const char *)x->data + x->byte_offset);
  const float *wd = (const float *)((const char *)wt->data + wt->byte_offset);
  float *yd = (float *)((char *)y->data + y->byte_offset);
  double *acc = tvm_malloc((size_t)(OH * OW) * sizeof *acc);
  if (!acc)
    return tvm_diag_set(TVM_ERR_NOMEM, "Conv reference: out of memory");
  for (int64_t bn = 0; bn < N; bn++)
    for (int64_t m = 0; m < M; m++) {
      double b0 = b ? op_dl_getf(b, m) : 0;
      for (int64_t i = 0; i < OH * OW; i++)
        acc[i] = b0;
      int64_t g = m / mg;
      for (int64_t rc = 0; rc < cg; rc++) {
        const float *xc = xd + (bn * C + g * cg + rc) * H * W;
        for (int64_t ky = 0; ky < KH; ky++)
          for (int64_t kx = 0; kx < KW; kx++) {
            double wv = wd[((m * cg + rc) * KH + ky) * KW + kx];
            for (int64_t oh = 0; oh < OH; oh++) {
              int64_t ih = oh * w->s[0] + ky * w->d[0] - w->pads[0];
              if (ih < 0 || ih >= H)
                continue;
              const float *xr = xc + ih * W;
              double *ar = acc + oh * OW;
              for (int64_t ow = 0; ow < OW; ow++) {
                int64_t iw = ow * w->s[1] + kx * w->d[1] - w->pads[1];
                if (iw >= 0 && iw < W)
                  ar[ow] += (double)xr[iw] * wv;
              }
            }
          }
      }
      float *yp = yd + (bn * M + m) * OH * OW;
      for (int64_t i = 0; i < OH * OW; i++)
        yp[i] = (float)acc[i];
    }
  tvm_free(acc);
  return TVM_OK;
}

/* Naive convolution: every output element sums over its window. */
static tvm_status conv_reference(const tvm_gnode *n, const DLTensor *const *in,
                                 DLTensor *const *out) {
  op_window w;
  int64_t group, shape[TVM_MAX_DIMS];
  tvm_status st = conv_check(n, &w, &group, shape);
  if (st)
    return st;
  const DLTensor *x = in[0], *wt = in[1], *b = n->ninputs > 2 ? in[2] : NULL;
  DLDataType f32 = {kDLFloat, 32, 1};
  if (w.nsp == 2 && !memcmp(&x->dtype, &f32, sizeof f32) &&
      !memcmp(&wt->dtype, &f32, sizeof f32) &&
      !memcmp(&out[0]->dtype, &f32, sizeof f32))
    return conv2d_f32_reference(&w, group, x, wt, b, out[0]);
  int nsp = w.nsp;
  int64_t C = x->shape[1], M = wt->shape[0], cg = C / group, mg = M / group;
  int64_t ksz = 1, len = op_dl_numel(out[0]);
  for (int s = 0; s < nsp; s++)
    ksz *= w.k[s];
  for (int64_t e = 0; e < len; e++) {
    int64_t oi[TVM_MAX_DIMS], ki[OP_MAX_SPATIAL];
    op_dl_unravel(e, out[0]->shape, out[0]->ndim, oi);
    int64_t bn = oi[0], m = oi[1], g = m / mg;
    double acc = b ? op_dl_getf(b, m) : 0;
    for (int64_t rc = 0; rc < cg; rc++)
      for (int64_t kk = 0; kk < ksz; kk++) {
        op_dl_unravel(kk, w.k, nsp, ki);
        int64_t xf = bn * C + g * cg + rc, wf = m * cg + rc, ok = 1;
        for (int s = 0; s < nsp; s++) {
          int64_t pos = oi[2 + s] * w.s[s] + ki[s] * w.d[s] - w.pads[s];
          if (pos < 0 || pos >= x->shape[2 + s])
            ok = 0;
          xf = xf * x->shape[2 + s] + pos;
          wf = wf * w.k[s] + ki[s];
        }
        if (ok)
          acc += op_dl_getf(x, xf) * op_dl_getf(wt, wf);
      }
    op_dl_setf(out[0], e, acc);
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Conv", 2, 3, 1, 1, TVM_PAT_OUT_ELEMWISE_FUSABLE, conv_infer, conv_compute,
     conv_reference,
     "N-d convolution (NCHW, OIHW weights): group, dilations, pads, "
     "auto_pad, optional bias"},
};

const ops_family ops_conv_family = {defs, (int)(sizeof defs / sizeof defs[0])};
