/*
 * core/graph/ops/conv_nchwc.c - Conv_NCHWc, the 2-D convolution on
 * channel-blocked data, written by the alter_layout pass for targets that
 * ask for it (TVM's conv2d_NCHWc):
 *
 *   X   [N, C/ib, H, W, ib]          data_layout   "NCHW<ib>c"
 *   W   [M/ob, C/ib, KH, KW, ib, ob] kernel_layout "OIHW<ib>i<ob>o"
 *       depthwise (group == C == M, ib == ob): [M/ob, 1, KH, KW, 1, ob]
 *       grouped (1 < group, C/group a multiple of ib, M/group of ob):
 *       [M/ob, C/group/ib, KH, KW, ib, ob], output block o reading the
 *       input blocks of its group (alter_layout merges groups narrower
 *       than a block into one of the block's width, zero weights across)
 *   B   [M] (optional)
 *   Y   [N, M/ob, OH, OW, ob]        out_layout    "NCHW<ob>c"
 *
 * Attributes as Conv (strides, pads, dilations, auto_pad, group), plus
 * the three layout strings.  Compute: a zero-padded intermediate
 * ("<name>.pad"), the sum over (ic_outer, ky, kx, ic_inner) tagged
 * "conv2d_NCHWc" (over (ky, kx) tagged "depthwise_conv2d_NCHWc"), then
 * "<name>.bias" adding B.  With attribute flat_pixels = 1 (group 1,
 * any window, strides, dilations and padding: alter_layout sets it where
 * the target asks, TVM_LAYOUT_FLAT_PIXELS) the sum is over [N, M/ob, 1,
 * OH*OW, ob] instead, pixel p reading the padded input at ((p / OW) * sh
 * + ky * dh, (p % OW) * sw + kx * dw), read back through "<name>.view"
 * (tagged injective) as [N, M/ob, OH, OW, ob]: a schedule may tile
 * pixels across rows.  The reference sums in logical (NCHW) coordinates,
 * independently of the compute.
 */
#include <string.h>

#include "layout_int.h"
#include "ops_int.h"

typedef struct cc_info {
  op_window win;
  int64_t N, C, H, W, M, ib, ob, group;
  int depthwise;
  int grouped; /* 1 < group, not depthwise: blocks within groups */
  int flat; /* attribute flat_pixels: the conv over flattened pixels */
} cc_info;

/* Validates the node and fills the shapes; oshape gets Y's shape. */
static tvm_status cc_check(const tvm_gnode *n, cc_info *ci, int64_t *oshape) {
  const tvm_gvalue *x, *w, *b = NULL;
  tvm_status st;
  memset(ci, 0, sizeof *ci);
  if ((st = op_check_dtype(n, 0, "X", DT_F32)) ||
      (st = op_check_dtype(n, 1, "W", DT_F32)) ||
      (st = op_opt_input(n, 2, "B", DT_F32, &b)) ||
      (st = op_attr_int(n, "group", 1, &ci->group)))
    return st;
  x = n->inputs[0];
  w = n->inputs[1];
  if (x->ndim != 5 || w->ndim != 6)
    return op_fail(n, TVM_ERR_INVALID,
                   "X must be 5-D (NCHW<b>c) and W 6-D (OIHW<b>i<b>o); got "
                   "%d-D and %d-D",
                   x->ndim, w->ndim);
  ci->N = x->shape[0];
  ci->ib = x->shape[4];
  ci->C = x->shape[1] * ci->ib;
  ci->H = x->shape[2];
  ci->W = x->shape[3];
  ci->ob = w->shape[5];
  ci->M = w->shape[0] * ci->ob;
  const char *dl = tvm_gnode_str(n, "data_layout", NULL);
  if (dl && op_layout_nchwc_block(dl) != ci->ib)
    return op_fail(n, TVM_ERR_INVALID,
                   "data_layout %s does not match X's block %lld", dl,
                   (long long)ci->ib);
  if (ci->group == 1) {
    if (w->shape[4] != ci->ib || w->shape[1] * w->shape[4] != ci->C)
      return op_fail(n, TVM_ERR_INVALID,
                     "W [%lld, %lld, .., %lld, %lld] does not match X's %lld "
                     "channels in blocks of %lld",
                     (long long)w->shape[0], (long long)w->shape[1],
                     (long long)w->shape[4], (long long)w->shape[5],
                     (long long)ci->C, (long long)ci->ib);
  } else if (ci->group == ci->C && ci->M == ci->C && ci->ib == ci->ob &&
             w->shape[1] == 1 && w->shape[4] == 1) {
    ci->depthwise = 1;
  } else if (ci->group > 1 && ci->C % ci->group == 0 &&
             ci->M % ci->group == 0 && (ci->C / ci->group) % ci->ib == 0 &&
             (ci->M / ci->group) % ci->ob == 0 && w->shape[4] == ci->ib &&
             w->shape[1] * ci->ib == ci->C / ci->group) {
    ci->grouped = 1;
  } else {
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "group = %lld: Conv_NCHWc supports group 1, depthwise "
                   "(group == channels, equal blocks) and groups whose "
                   "input and output channels are whole blocks (W [M/ob, "
                   "C/group/ib, KH, KW, ib, ob])",
                   (long long)ci->group);
  }
  if (b && (b->ndim != 1 || b->shape[0] != ci->M))
    return op_fail(n, TVM_ERR_INVALID, "B must be 1-D of length M = %lld",
                   (long long)ci->M);
  int64_t in[2] = {ci->H, ci->W}, k[2] = {w->shape[2], w->shape[3]};
  if ((st = op_window_infer(n, 2, in, k, 1, 0, &ci->win)))
    return st;
  int64_t flat;
  if ((st = op_attr_int(n, "flat_pixels", 0, &flat))) return st;
  if (flat && (ci->depthwise || ci->group != 1))
    return op_fail(n, TVM_ERR_INVALID,
                   "flat_pixels = 1 needs group 1 (each output channel "
                   "reading every input channel); this one has group "
                   "%lld (the target's alter_layout asked for flat pixels "
                   "where they do not apply)",
                   (long long)ci->group);
  ci->flat = flat != 0;
  oshape[0] = ci->N;
  oshape[1] = ci->M / ci->ob;
  oshape[2] = ci->win.out[0];
  oshape[3] = ci->win.out[1];
  oshape[4] = ci->ob;
  return TVM_OK;
}

/* Infer: Y's shape; its value carries out_layout. */
static tvm_status cc_infer(tvm_graph *g, tvm_gnode *n) {
  cc_info ci;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = cc_check(n, &ci, shape);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, 5, shape);
  if (n->noutputs > 0 && n->outputs[0])
    n->outputs[0]->layout = tvm_gnode_str(n, "out_layout", NULL);
  return TVM_OK;
}

typedef struct cc_ud {
  cc_info ci;
  tvm_tensor *x, *xp, *w, *b, *conv;
} cc_ud;

/* The flat conv [N, M/ob, 1, OH*OW, ob] seen as [N, M/ob, OH, OW, ob]. */
static tvm_expr *cc_view_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cc_ud *u = ud;
  tvm_expr *p = tvm_add(c, tvm_mul(c, i[2], tvm_int(c, u->ci.win.out[1])), i[3]);
  return TVM_AT(c, u->conv, i[0], i[1], tvm_int(c, 0), p, i[4]);
}

/* Zero padding of H and W (dims 2 and 3); reads are clamped. */
static tvm_expr *cc_pad_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cc_ud *u = ud;
  tvm_expr *ix[5] = {i[0], i[1], i[2], i[3], i[4]}, *cond = NULL;
  for (int s = 0; s < 2; s++) {
    int64_t before = u->ci.win.pads[s], after = u->ci.win.pads[s + 2];
    int64_t ext = s ? u->ci.W : u->ci.H;
    if (!before && !after)
      continue;
    tvm_expr *src = tvm_sub(c, i[2 + s], tvm_int(c, before));
    tvm_expr *in = tvm_and(c, tvm_ge(c, src, tvm_int(c, 0)),
                           tvm_lt(c, src, tvm_int(c, ext)));
    cond = cond ? tvm_and(c, cond, in) : in;
    ix[2 + s] =
        tvm_min(c, tvm_max(c, src, tvm_int(c, 0)), tvm_int(c, ext - 1));
  }
  tvm_expr *rd = tvm_tread(c, u->x, ix, 5);
  return cond ? tvm_select(c, cond, rd, op_te_const(c, u->x->dtype, 0)) : rd;
}

/* One output element: the sum over the window (and the input channels
 * unless depthwise) of padded input times weight. */
static tvm_expr *cc_conv_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cc_ud *u = ud;
  const op_window *w = &u->ci.win;
  tvm_iter_var *ax[4];
  int na = 0;
  if (!u->ci.depthwise)
    ax[na++] = tvm_reduce_axis(c, "ic", 0,
                               u->ci.C / u->ci.group / u->ci.ib);
  ax[na++] = tvm_reduce_axis(c, "ry", 0, w->k[0]);
  ax[na++] = tvm_reduce_axis(c, "rx", 0, w->k[1]);
  if (!u->ci.depthwise)
    ax[na++] = tvm_reduce_axis(c, "icb", 0, u->ci.ib);
  for (int k = 0; k < na; k++)
    if (!ax[k])
      return NULL;
  tvm_iter_var *ry = ax[u->ci.depthwise ? 0 : 1];
  tvm_iter_var *rx = ax[u->ci.depthwise ? 1 : 2];
  tvm_expr *h = tvm_add(c, tvm_mul(c, i[2], tvm_int(c, w->s[0])),
                        tvm_mul(c, ry->var, tvm_int(c, w->d[0])));
  tvm_expr *x = tvm_add(c, tvm_mul(c, i[3], tvm_int(c, w->s[1])),
                        tvm_mul(c, rx->var, tvm_int(c, w->d[1])));
  tvm_expr *a, *b;
  if (u->ci.flat) { /* i[2] is 0, i[3] the pixel oh * OW + ow */
    tvm_expr *ow = tvm_int(c, w->out[1]);
    h = tvm_add(c, tvm_mul(c, tvm_floordiv(c, i[3], ow), tvm_int(c, w->s[0])),
                tvm_mul(c, ry->var, tvm_int(c, w->d[0])));
    x = tvm_add(c, tvm_mul(c, tvm_floormod(c, i[3], ow), tvm_int(c, w->s[1])),
                tvm_mul(c, rx->var, tvm_int(c, w->d[1])));
    a = TVM_AT(c, u->xp, i[0], ax[0]->var, h, x, ax[3]->var);
    b = TVM_AT(c, u->w, i[1], ax[0]->var, ry->var, rx->var, ax[3]->var, i[4]);
    return tvm_sum(c, tvm_mul(c, a, b), ax, na);
  }
  if (u->ci.depthwise) {
    a = TVM_AT(c, u->xp, i[0], i[1], h, x, i[4]);
    b = TVM_AT(c, u->w, i[1], tvm_int(c, 0), ry->var, rx->var, tvm_int(c, 0),
               i[4]);
  } else {
    tvm_expr *icb = ax[0]->var;
    if (u->ci.grouped) { /* the input blocks of output block i[1]'s group */
      int64_t opg = u->ci.M / u->ci.group / u->ci.ob;
      int64_t ipg = u->ci.C / u->ci.group / u->ci.ib;
      icb = tvm_add(c, tvm_mul(c, tvm_floordiv(c, i[1], tvm_int(c, opg)),
                               tvm_int(c, ipg)),
                    icb);
    }
    a = TVM_AT(c, u->xp, i[0], icb, h, x, ax[3]->var);
    b = TVM_AT(c, u->w, i[1], ax[0]->var, ry->var, rx->var, ax[3]->var, i[4]);
  }
  return tvm_sum(c, tvm_mul(c, a, b), ax, na);
}

/* out = conv + B[logical channel]. */
static tvm_expr *cc_bias_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cc_ud *u = ud;
  tvm_expr *ch = tvm_add(c, tvm_mul(c, i[1], tvm_int(c, u->ci.ob)), i[4]);
  return tvm_add(c, tvm_tread(c, u->conv, i, 5), TVM_AT(c, u->b, ch));
}

/* Compute: pad (when needed), conv, bias (when present). */
static tvm_status cc_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  cc_ud u;
  int64_t shape[TVM_MAX_DIMS], pshape[5];
  tvm_status st = cc_check(n, &u.ci, shape);
  if (st)
    return st;
  u.x = in[0];
  u.w = in[1];
  u.b = n->ninputs > 2 ? in[2] : NULL;
  const int64_t *pd = u.ci.win.pads;
  if (pd[0] || pd[1] || pd[2] || pd[3]) {
    memcpy(pshape, in[0]->shape_c, sizeof pshape);
    pshape[2] += pd[0] + pd[2];
    pshape[3] += pd[1] + pd[3];
    u.xp = tvm_compute(c, op_te_name(c, n, "pad"), pshape, 5, cc_pad_body, &u);
    if ((st = op_te_status(c, n, u.xp)))
      return st;
    tvm_tensor_set_tag(u.xp, "pad");
  } else {
    u.xp = u.x;
  }
  /* flat: [N, M/ob, 1, OH*OW, ob], read through the view below */
  int64_t fshape[5] = {shape[0], shape[1], 1, shape[2] * shape[3], shape[4]};
  u.conv = tvm_compute(c, u.b || u.ci.flat ? op_te_name(c, n, "conv")
                                           : op_te_name(c, n, NULL),
                       u.ci.flat ? fshape : shape, 5, cc_conv_body, &u);
  if ((st = op_te_status(c, n, u.conv)))
    return st;
  tvm_tensor_set_tag(u.conv, u.ci.depthwise ? "depthwise_conv2d_NCHWc"
                                            : "conv2d_NCHWc");
  if (u.ci.flat) {
    tvm_tensor *v = tvm_compute(
        c, u.b ? op_te_name(c, n, "view") : op_te_name(c, n, NULL), shape, 5,
        cc_view_body, &u);
    if ((st = op_te_status(c, n, v))) return st;
    tvm_tensor_set_tag(v, "injective");
    u.conv = v;
  }
  if (!u.b) {
    out[0] = u.conv;
    return TVM_OK;
  }
  out[0] = op_te_compute_out(c, n, 0, "broadcast", cc_bias_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Naive blocked convolution in logical coordinates. */
static tvm_status cc_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  cc_info ci;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = cc_check(n, &ci, shape);
  if (st)
    return st;
  const DLTensor *x = in[0], *w = in[1], *b = n->ninputs > 2 ? in[2] : NULL;
  const float *xd = (const float *)((const char *)x->data + x->byte_offset);
  const float *wd = (const float *)((const char *)w->data + w->byte_offset);
  float *yd = (float *)((char *)out[0]->data + out[0]->byte_offset);
  const op_window *win = &ci.win;
  int64_t KH = win->k[0], KW = win->k[1], OH = win->out[0], OW = win->out[1];
  int64_t cin = ci.depthwise ? 1 : ci.C / ci.group;
  int64_t wib = ci.depthwise ? 1 : ci.ib, mpg = ci.M / ci.group;
  for (int64_t bn = 0; bn < ci.N; bn++)
    for (int64_t m = 0; m < ci.M; m++)
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
          double acc = b ? op_dl_getf(b, m) : 0;
          for (int64_t r = 0; r < cin; r++) {
            int64_t c = ci.depthwise ? m : (m / mpg) * cin + r;
            for (int64_t ky = 0; ky < KH; ky++)
              for (int64_t kx = 0; kx < KW; kx++) {
                int64_t ih = oh * win->s[0] + ky * win->d[0] - win->pads[0];
                int64_t iw = ow * win->s[1] + kx * win->d[1] - win->pads[1];
                if (ih < 0 || ih >= ci.H || iw < 0 || iw >= ci.W)
                  continue;
                int64_t xi =
                    (((bn * (ci.C / ci.ib) + c / ci.ib) * ci.H + ih) * ci.W +
                     iw) * ci.ib + c % ci.ib;
                int64_t wi = (((((m / ci.ob) * (cin / wib) + r / wib) * KH +
                                ky) * KW + kx) * wib + r % wib) * ci.ob +
                             m % ci.ob;
                acc += (double)xd[xi] * wd[wi];
              }
          }
          yd[(((bn * (ci.M / ci.ob) + m / ci.ob) * OH + oh) * OW + ow) *
                 ci.ob +
             m % ci.ob] = (float)acc;
        }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Conv_NCHWc", 2, 3, 1, 1, TVM_PAT_OUT_ELEMWISE_FUSABLE, cc_infer,
     cc_compute, cc_reference,
     "internal: 2-D convolution on channel-blocked data (NCHW<b>c, "
     "OIHW<b>i<b>o weights), group 1, depthwise or whole-block groups"},
};

const ops_family ops_conv_nchwc_family = {
    defs, (int)(sizeof defs / sizeof defs[0])};
