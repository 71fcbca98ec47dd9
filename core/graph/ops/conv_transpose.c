/*
 * core/graph/ops/conv_transpose.c - ConvTranspose (1-D to 3-D, NCHW,
 * weights (C, M/group, k...)): strides, pads, output_padding,
 * output_shape, auto_pad, group, dilations, optional bias.
 *
 *   out = stride * (in - 1) + output_padding + dilation * (k - 1) + 1
 *         - pad_begin - pad_end
 * and with output_shape the pads follow from it (ONNX: SAME_UPPER puts
 * the smaller half first, otherwise the larger half first); an
 * output_shape beyond the full output appends zeros (the end "pad" is
 * then negative).
 *
 * Compute: "<name>.pad" is the input with stride - 1 zeros inserted
 * between elements and dilation * (k - 1) - pad_begin zeros before (the
 * reads are clamped, selects give the zeros); the output is a stride-1
 * convolution of it with the flipped kernel, tagged
 * "conv2d_transpose_nchw" (conv1d_/conv3d_ for other ranks); a bias adds
 * "<name>" after "<name>.conv".
 */
#include <string.h>

#include "ops_int.h"

typedef struct ct_info {
  op_window w; /* k, s, d, pads (resolved), out */
  int64_t group, C, M, cg, mg;
  int64_t outpad[OP_MAX_SPATIAL];
} ct_info;

/* Validates ConvTranspose; resolves pads (output_shape, auto_pad) and the
 * output shape. */
static tvm_status ct_check(const tvm_gnode *n, ct_info *ci, int64_t *oshape) {
  tvm_status st;
  const tvm_gvalue *b = NULL;
  if ((st = op_check_dtype(n, 0, "X", DT_F32)) ||
      (st = op_check_dtype(n, 1, "W", DT_F32)) ||
      (st = op_opt_input(n, 2, "B", DT_F32, &b)) ||
      (st = op_attr_int(n, "group", 1, &ci->group)))
    return st;
  if ((st = op_plain_layout(n, 0)))
    return st;
  const tvm_gvalue *x = n->inputs[0], *wt = n->inputs[1];
  int nsp = x->ndim - 2;
  if (x->ndim < 3 || nsp > OP_MAX_SPATIAL)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "X has %d dimensions; ConvTranspose supports 3 to 5",
                   x->ndim);
  if (wt->ndim != x->ndim)
    return op_fail(n, TVM_ERR_INVALID,
                   "W must be (C, M/group, kernel...) with as many "
                   "dimensions as X (%d), it has %d",
                   x->ndim, wt->ndim);
  ci->C = x->shape[1];
  if (ci->group < 1 || ci->C % ci->group)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'group' = %lld must divide the input channels "
                   "(%lld)",
                   (long long)ci->group, (long long)ci->C);
  if (wt->shape[0] != ci->C)
    return op_fail(n, TVM_ERR_INVALID,
                   "W's first dimension (%lld) must equal X's channels "
                   "(%lld)",
                   (long long)wt->shape[0], (long long)ci->C);
  ci->cg = ci->C / ci->group;
  ci->mg = wt->shape[1];
  ci->M = ci->mg * ci->group;
  if (b && (b->ndim != 1 || b->shape[0] != ci->M))
    return op_fail(n, TVM_ERR_INVALID, "B must be 1-D of length M = %lld",
                   (long long)ci->M);
  op_window *w = &ci->w;
  memset(w, 0, sizeof *w);
  w->nsp = nsp;
  const int64_t *v;
  int len;
  static const char *const names[] = {"strides", "dilations", "output_padding"};
  for (int s = 0; s < nsp; s++) {
    w->k[s] = wt->shape[2 + s];
    w->s[s] = w->d[s] = 1;
    ci->outpad[s] = 0;
  }
  for (int a = 0; a < 3; a++) {
    if ((st = op_attr_ints(n, names[a], &v, &len)))
      return st;
    if (len < 0)
      continue;
    if (len != nsp)
      return op_fail(n, TVM_ERR_INVALID,
                     "attribute '%s' has %d values; give one per spatial "
                     "axis (%d)",
                     names[a], len, nsp);
    for (int s = 0; s < nsp; s++) {
      if (v[s] < (a == 2 ? 0 : 1))
        return op_fail(n, TVM_ERR_INVALID,
                       "attribute '%s' value %lld is "
                       "out of range",
                       names[a], (long long)v[s]);
      (a == 0 ? w->s : a == 1 ? w->d : ci->outpad)[s] = v[s];
    }
  }
  for (int s = 0; s < nsp; s++)
    if (ci->outpad[s] >= w->s[s] && ci->outpad[s] >= w->d[s])
      return op_fail(n, TVM_ERR_INVALID,
                     "attribute 'output_padding' (%lld) must be smaller than "
                     "the stride or the dilation",
                     (long long)ci->outpad[s]);
  const char *ap;
  const int64_t *os;
  int nos;
  if ((st = op_attr_str(n, "auto_pad", "NOTSET", &ap)) ||
      (st = op_attr_ints(n, "pads", &v, &len)) ||
      (st = op_attr_ints(n, "output_shape", &os, &nos)))
    return st;
  int same = strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0;
  if (!same && strcmp(ap, "VALID") != 0 && strcmp(ap, "NOTSET") != 0)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'auto_pad' = \"%s\" is unknown; use NOTSET, "
                   "SAME_UPPER, SAME_LOWER or VALID",
                   ap);
  if (len >= 0 && len != 2 * nsp)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'pads' has %d values; give %d", len, 2 * nsp);
  if (nos >= 0 && nos != nsp && nos != nsp + 2)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'output_shape' has %d values; give the %d "
                   "spatial sizes",
                   nos, nsp);
  for (int s = 0; s < nsp; s++) {
    int64_t full = w->s[s] * (x->shape[2 + s] - 1) + ci->outpad[s] +
                   w->d[s] * (w->k[s] - 1) + 1;
    int64_t target = -1;
    if (nos >= 0)
      target = os[nos - nsp + s];
    else if (same)
      target = x->shape[2 + s] * w->s[s];
    if (target >= 0) {
      /* a negative total padding means zeros appended at the end */
      int64_t total = full - target;
      int64_t t0 = total < 0 ? 0 : total;
      int upper = strcmp(ap, "SAME_UPPER") == 0;
      w->pads[s] = upper ? t0 / 2 : t0 - t0 / 2;
      w->pads[s + nsp] = total - w->pads[s];
    } else if (len >= 0) {
      w->pads[s] = v[s];
      w->pads[s + nsp] = v[s + nsp];
    }
    w->out[s] = full - w->pads[s] - w->pads[s + nsp];
    if (w->out[s] < 1)
      return op_fail(n, TVM_ERR_INVALID,
                     "the pads leave no output at spatial axis %d", s);
  }
  oshape[0] = x->shape[0];
  oshape[1] = ci->M;
  for (int s = 0; s < nsp; s++)
    oshape[2 + s] = w->out[s];
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status ct_infer(tvm_graph *g, tvm_gnode *n) {
  ct_info ci;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = ct_check(n, &ci, shape);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, n->inputs[0]->ndim, shape);
  return TVM_OK;
}

typedef struct ct_ud {
  ct_info ci;
  tvm_tensor *x, *w, *b, *p, *conv;
} ct_ud;

/* P[n, c, p...] = X[n, c, q / s] where q = p - (d (k - 1) - pad_begin)
 * is a multiple of s inside the input, else 0. */
static tvm_expr *ct_pad_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  ct_ud *u = ud;
  const op_window *w = &u->ci.w;
  tvm_expr *xi[2 + OP_MAX_SPATIAL], *cond = NULL;
  xi[0] = i[0];
  xi[1] = i[1];
  for (int s = 0; s < w->nsp; s++) {
    int64_t off = w->d[s] * (w->k[s] - 1) - w->pads[s];
    int64_t in = u->x->shape_c[2 + s];
    tvm_expr *q = tvm_sub(c, i[2 + s], tvm_int(c, off));
    tvm_expr *ok = tvm_and(c, tvm_ge(c, q, tvm_int(c, 0)),
                           tvm_lt(c, q, tvm_int(c, (in - 1) * w->s[s] + 1)));
    tvm_expr *src = q;
    if (w->s[s] > 1) {
      ok = tvm_and(
          c, ok,
          tvm_eq(c, tvm_floormod(c, q, tvm_int(c, w->s[s])), tvm_int(c, 0)));
      src = tvm_floordiv(c, q, tvm_int(c, w->s[s]));
    }
    xi[2 + s] = tvm_min(c, tvm_max(c, src, tvm_int(c, 0)), tvm_int(c, in - 1));
    cond = cond ? tvm_and(c, cond, ok) : ok;
  }
  return tvm_select(c, cond, tvm_tread(c, u->x, xi, u->x->ndim),
                    op_te_const(c, u->x->dtype, 0));
}

/* Stride-1 convolution of the dilated, padded input with the flipped kernel. */
static tvm_expr *ct_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  static const char *const rn[3][3] = {
      {"rx"}, {"ry", "rx"}, {"rz", "ry", "rx"}};
  ct_ud *u = ud;
  const op_window *w = &u->ci.w;
  int nsp = w->nsp;
  tvm_iter_var *ax[1 + OP_MAX_SPATIAL];
  ax[0] = tvm_reduce_axis(c, "rc", 0, u->ci.cg);
  for (int s = 0; s < nsp; s++)
    ax[1 + s] = tvm_reduce_axis(c, rn[nsp - 1][s], 0, w->k[s]);
  for (int s = 0; s <= nsp; s++)
    if (!ax[s])
      return NULL;
  tvm_expr *pi[2 + OP_MAX_SPATIAL], *wi[2 + OP_MAX_SPATIAL];
  tvm_expr *ch = ax[0]->var;
  if (u->ci.group > 1)
    ch = tvm_add(c,
                 tvm_mul(c, tvm_floordiv(c, i[1], tvm_int(c, u->ci.mg)),
                         tvm_int(c, u->ci.cg)),
                 ch);
  pi[0] = i[0];
  pi[1] = ch;
  wi[0] = ch;
  wi[1] = u->ci.group > 1 ? tvm_floormod(c, i[1], tvm_int(c, u->ci.mg)) : i[1];
  for (int s = 0; s < nsp; s++) {
    pi[2 + s] =
        tvm_add(c, i[2 + s], tvm_mul(c, ax[1 + s]->var, tvm_int(c, w->d[s])));
    wi[2 + s] = tvm_sub(c, tvm_int(c, w->k[s] - 1), ax[1 + s]->var);
  }
  return tvm_sum(c,
                 tvm_mul(c, tvm_tread(c, u->p, pi, nsp + 2),
                         tvm_tread(c, u->w, wi, nsp + 2)),
                 ax, nsp + 1);
}

/* out = conv + B[channel]. */
static tvm_expr *ct_bias(tvm_ctx *c, tvm_expr **i, void *ud) {
  ct_ud *u = ud;
  return tvm_add(c, tvm_tread(c, u->conv, i, u->conv->ndim),
                 TVM_AT(c, u->b, i[1]));
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status ct_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  ct_ud u;
  int64_t shape[TVM_MAX_DIMS], pshape[TVM_MAX_DIMS];
  tvm_status st = ct_check(n, &u.ci, shape);
  if (st)
    return st;
  u.x = in[0];
  u.w = in[1];
  u.b = n->ninputs > 2 ? in[2] : NULL;
  const op_window *w = &u.ci.w;
  pshape[0] = shape[0];
  pshape[1] = u.ci.C;
  for (int s = 0; s < w->nsp; s++)
    pshape[2 + s] = w->out[s] + w->d[s] * (w->k[s] - 1);
  u.p =
      tvm_compute(c, op_te_name(c, n, "pad"), pshape, w->nsp + 2, ct_pad_body, &u);
  if ((st = op_te_status(c, n, u.p)))
    return st;
  tvm_tensor_set_tag(u.p, "pad");
  static const char *const tags[] = {"conv1d_transpose_ncw",
                                     "conv2d_transpose_nchw",
                                     "conv3d_transpose_ncdhw"};
  u.conv = tvm_compute(c, u.b ? op_te_name(c, n, "conv") : op_te_name(c, n, NULL),
                       shape, w->nsp + 2, ct_body, &u);
  if ((st = op_te_status(c, n, u.conv)))
    return st;
  tvm_tensor_set_tag(u.conv, tags[w->nsp - 1]);
  if (!u.b) {
    out[0] = u.conv;
    return TVM_OK;
  }
  out[0] = op_te_compute_out(c, n, 0, "broadcast", ct_bias, &u);
  return op_te_status(c, n, out[0]);
}

/* Scatter form: every input element adds X * W to the outputs it hits. */
static tvm_status ct_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  ct_info ci;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = ct_check(n, &ci, shape);
  if (st)
    return st;
  const DLTensor *x = in[0], *wt = in[1], *b = n->ninputs > 2 ? in[2] : NULL;
  const op_window *w = &ci.w;
  int nsp = w->nsp;
  int64_t olen = op_dl_numel(out[0]), inner = 1, ksz = 1;
  for (int s = 0; s < nsp; s++) {
    inner *= w->out[s];
    ksz *= w->k[s];
  }
  for (int64_t e = 0; e < olen; e++)
    op_dl_setf(out[0], e, b ? op_dl_getf(b, (e / inner) % ci.M) : 0);
  int64_t xlen = op_dl_numel(x);
  for (int64_t e = 0; e < xlen; e++) {
    int64_t xi[TVM_MAX_DIMS], ki[OP_MAX_SPATIAL];
    op_dl_unravel(e, x->shape, x->ndim, xi);
    int64_t g = xi[1] / ci.cg;
    double xv = op_dl_getf(x, e);
    for (int64_t ml = 0; ml < ci.mg; ml++)
      for (int64_t kk = 0; kk < ksz; kk++) {
        op_dl_unravel(kk, w->k, nsp, ki);
        int64_t of = xi[0] * ci.M + g * ci.mg + ml, wf = xi[1] * ci.mg + ml;
        int ok = 1;
        for (int s = 0; s < nsp; s++) {
          int64_t o = xi[2 + s] * w->s[s] + ki[s] * w->d[s] - w->pads[s];
          if (o < 0 || o >= w->out[s])
            ok = 0;
          of = of * w->out[s] + o;
          wf = wf * w->k[s] + ki[s];
        }
        if (ok)
          op_dl_setf(out[0], of, op_dl_getf(out[0], of) + xv * op_dl_getf(wt, wf));
      }
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"ConvTranspose", 2, 3, 1, 1, TVM_PAT_OUT_ELEMWISE_FUSABLE, ct_infer,
     ct_compute, ct_reference,
     "transposed convolution (strides, pads, output_padding, output_shape, "
     "group, dilations, optional bias)"},
};

const ops_family ops_conv_transpose_family = {
    defs, (int)(sizeof defs / sizeof defs[0])};
