/*
 * core/graph/ops/qconv_blocked.c - QConv_blocked, the integer 2-D
 * convolution of a quantized graph (core/graph/passes/quantize.c) in the
 * doubly blocked layout a GEMM engine reads (the target's block shape
 * b x bi x bo, tvm_plugin_quant of plugin.h):
 *
 *   X [N/b, C/bi, H, W, b, bi]         int8
 *   W [M/bo, C/bi, KH, KW, bo, bi]     int8
 *   B [N/b, M/bo, OH, OW, b, bo]       int32 (optional: the bias, at the
 *                                      sum's scale, for every output)
 *   Y [N/b, M/bo, OH, OW, b, bo]       int8
 *   acc = sum over (C/bi, KH, KW, bi) of int32(pad(X)) * int32(W)
 *   Y   = int8(min(max((acc + B) >> shift, relu ? 0 : -128), 127))
 *
 * Attributes: strides, pads (as Conv; no dilations, group 1), shift (the
 * requantization: an arithmetic right shift, the power-of-two ratio of
 * the scales), relu (0/1: clip at 0 instead of -128).  Compute: the
 * zero-padded input ("<name>.pad", a select the way a DMA pads), the sum
 * tagged "qconv2d_blocked" ("<name>.acc", int32), then the requantized
 * output (adding B first).  B has the output's full shape so that an
 * engine loads it into its accumulator like any tile.  The reference sums in int32 over logical coordinates,
 * independently of the compute.
 */
#include <string.h>

#include "ops_int.h"

typedef struct qc_info {
  op_window win;
  int64_t N, C, H, W, M, b, bi, bo, shift, relu;
} qc_info;

/* Validates the node and fills the shapes; oshape gets Y's shape. */
static tvm_status qc_check(const tvm_gnode *n, qc_info *q, int64_t *oshape) {
  tvm_status st;
  memset(q, 0, sizeof *q);
  if ((st = op_check_dtype(n, 0, "X", DT_I8)) ||
      (st = op_check_dtype(n, 1, "W", DT_I8)) ||
      (st = op_attr_int(n, "shift", 0, &q->shift)) ||
      (st = op_attr_int(n, "relu", 0, &q->relu)))
    return st;
  if (n->ninputs > 2 && n->inputs[2] &&
      (st = op_check_dtype(n, 2, "B", DT_I32)))
    return st;
  const tvm_gvalue *x = n->inputs[0], *w = n->inputs[1];
  if (x->ndim != 6 || w->ndim != 6)
    return op_fail(n, TVM_ERR_INVALID,
                   "X [N/b, C/bi, H, W, b, bi] and W [M/bo, C/bi, KH, KW, bo, "
                   "bi] must be 6-D; got %d-D and %d-D", x->ndim, w->ndim);
  q->b = x->shape[4], q->bi = x->shape[5], q->bo = w->shape[4];
  q->N = x->shape[0] * q->b, q->C = x->shape[1] * q->bi;
  q->H = x->shape[2], q->W = x->shape[3], q->M = w->shape[0] * q->bo;
  if (w->shape[1] != x->shape[1] || w->shape[5] != q->bi)
    return op_fail(n, TVM_ERR_INVALID,
                   "W's input channel blocks [.., %lld, .., %lld] do not match "
                   "X's [.., %lld, .., %lld]", (long long)w->shape[1],
                   (long long)w->shape[5], (long long)x->shape[1],
                   (long long)q->bi);
  if (q->shift < 0 || q->shift > 31 || (q->relu != 0 && q->relu != 1))
    return op_fail(n, TVM_ERR_INVALID,
                   "shift %lld must be in [0, 31] and relu 0 or 1 (got %lld)",
                   (long long)q->shift, (long long)q->relu);
  int64_t in[2] = {q->H, q->W}, k[2] = {w->shape[2], w->shape[3]};
  if ((st = op_window_infer(n, 2, in, k, 0, 0, &q->win)))
    return st;
  if (q->win.pads[0] != q->win.pads[2] || q->win.pads[1] != q->win.pads[3])
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "pads must be the same before and after each axis");
  oshape[0] = x->shape[0];
  oshape[1] = w->shape[0];
  oshape[2] = q->win.out[0];
  oshape[3] = q->win.out[1];
  oshape[4] = q->b;
  oshape[5] = q->bo;
  const tvm_gvalue *b = n->ninputs > 2 ? n->inputs[2] : NULL;
  if (b && (b->ndim != 6 || memcmp(b->shape, oshape, 6 * sizeof(int64_t))))
    return op_fail(n, TVM_ERR_INVALID,
                   "B must have Y's shape [N/b, M/bo, OH, OW, b, bo]");
  return TVM_OK;
}

static tvm_status qc_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  qc_info q;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = qc_check(n, &q, shape);
  if (!st)
    op_set_out(n, 0, TVM_I8, 6, shape);
  return st;
}

typedef struct qc_ud {
  qc_info q;
  tvm_tensor *x, *xp, *w, *b, *acc;
} qc_ud;

/* pad[n, c, y, x, b, i] = inside ? X[n, c, y - ph, x - pw, b, i] : 0 */
static tvm_expr *qc_pad_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  qc_ud *u = ud;
  int64_t ph = u->q.win.pads[0], pw = u->q.win.pads[1];
  tvm_expr *y = i[2], *x = i[3];
  tvm_expr *in = tvm_and(
      c,
      tvm_and(c, tvm_ge(c, y, tvm_int(c, ph)),
              tvm_lt(c, y, tvm_int(c, u->q.H + ph))),
      tvm_and(c, tvm_ge(c, x, tvm_int(c, pw)),
              tvm_lt(c, x, tvm_int(c, u->q.W + pw))));
  tvm_expr *v = TVM_AT(c, u->x, i[0], i[1], tvm_sub(c, y, tvm_int(c, ph)),
                       tvm_sub(c, x, tvm_int(c, pw)), i[4], i[5]);
  return tvm_select(c, in, v, tvm_const(c, TVM_I8, 0));
}

static tvm_expr *qc_acc_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  qc_ud *u = ud;
  tvm_iter_var *ax[4] = {
      tvm_reduce_axis(c, "ic", 0, u->q.C / u->q.bi),
      tvm_reduce_axis(c, "ky", 0, u->q.win.k[0]),
      tvm_reduce_axis(c, "kx", 0, u->q.win.k[1]),
      tvm_reduce_axis(c, "ii", 0, u->q.bi)};
  for (int k = 0; k < 4; k++)
    if (!ax[k])
      return NULL;
  tvm_expr *y = tvm_add(c, tvm_mul(c, i[2], tvm_int(c, u->q.win.s[0])),
                        ax[1]->var);
  tvm_expr *x = tvm_add(c, tvm_mul(c, i[3], tvm_int(c, u->q.win.s[1])),
                        ax[2]->var);
  tvm_expr *a = tvm_cast(c, TVM_I32,
                         TVM_AT(c, u->xp, i[0], ax[0]->var, y, x, i[4],
                                ax[3]->var));
  tvm_expr *w = tvm_cast(c, TVM_I32,
                         TVM_AT(c, u->w, i[1], ax[0]->var, ax[1]->var,
                                ax[2]->var, i[5], ax[3]->var));
  return tvm_sum(c, tvm_mul(c, a, w), ax, 4);
}

/* int8(min(max((acc + B) >> shift, lo), 127)) */
static tvm_expr *qc_out_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  qc_ud *u = ud;
  tvm_expr *v = tvm_tread(c, u->acc, i, 6);
  if (u->b)
    v = tvm_add(c, v, tvm_tread(c, u->b, i, 6));
  tvm_expr *args[2] = {v, tvm_int(c, (int32_t)u->q.shift)};
  tvm_expr *r = tvm_call(c, TVM_I32, TVM_INTRIN_SHR, args, 2);
  r = tvm_max(c, r, tvm_int(c, u->q.relu ? 0 : -128));
  r = tvm_min(c, r, tvm_int(c, 127));
  return tvm_cast(c, TVM_I8, r);
}

static tvm_status qc_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  qc_ud *u = tvm_ctx_alloc(c, sizeof *u);
  int64_t shape[TVM_MAX_DIMS];
  if (!u)
    return tvm_ctx_status(c);
  tvm_status st = qc_check(n, &u->q, shape);
  if (st)
    return st;
  u->x = in[0], u->w = in[1], u->xp = in[0];
  u->b = n->ninputs > 2 ? in[2] : NULL;
  if (u->q.win.pads[0] || u->q.win.pads[1]) {
    int64_t ps[6];
    memcpy(ps, in[0]->shape_c, sizeof ps);
    ps[2] += 2 * u->q.win.pads[0];
    ps[3] += 2 * u->q.win.pads[1];
    u->xp = tvm_compute(c, op_te_name(c, n, "pad"), ps, 6, qc_pad_body, u);
    if ((st = op_te_status(c, n, u->xp)))
      return st;
  }
  u->acc = tvm_compute(c, op_te_name(c, n, "acc"), shape, 6, qc_acc_body, u);
  if ((st = op_te_status(c, n, u->acc)))
    return st;
  tvm_tensor_set_tag(u->acc, "qconv2d_blocked");
  out[0] = op_te_compute_out(c, n, 0, "elemwise", qc_out_body, u);
  return op_te_status(c, n, out[0]);
}

/* Naive int32 convolution over the blocked data (the window and the
 * input channel blocks outside, one block's bi products inside), then
 * the shift and clip. */
static tvm_status qc_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  qc_info q;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = qc_check(n, &q, shape);
  if (st)
    return st;
  const int8_t *xd = (const int8_t *)((const char *)in[0]->data +
                                      in[0]->byte_offset);
  const int8_t *wd = (const int8_t *)((const char *)in[1]->data +
                                      in[1]->byte_offset);
  int8_t *yd = (int8_t *)((char *)out[0]->data + out[0]->byte_offset);
  const int32_t *bd = n->ninputs > 2 && in[2]
                          ? (const int32_t *)((const char *)in[2]->data +
                                              in[2]->byte_offset)
                          : NULL;
  const op_window *win = &q.win;
  int64_t KH = win->k[0], KW = win->k[1], OH = win->out[0], OW = win->out[1];
  int64_t CB = q.C / q.bi, MB = q.M / q.bo, NB = q.N / q.b;
  int32_t lo = q.relu ? 0 : -128;
  for (int64_t nb = 0; nb < NB; nb++)
    for (int64_t mb = 0; mb < MB; mb++)
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++)
          for (int64_t b = 0; b < q.b; b++)
            for (int64_t o = 0; o < q.bo; o++) {
              int32_t acc = 0;
              for (int64_t cb = 0; cb < CB; cb++)
                for (int64_t ky = 0; ky < KH; ky++)
                  for (int64_t kx = 0; kx < KW; kx++) {
                    int64_t ih = oh * win->s[0] + ky - win->pads[0];
                    int64_t iw = ow * win->s[1] + kx - win->pads[1];
                    if (ih < 0 || ih >= q.H || iw < 0 || iw >= q.W)
                      continue;
                    const int8_t *xp =
                        xd + ((((nb * CB + cb) * q.H + ih) * q.W + iw) * q.b +
                              b) * q.bi;
                    const int8_t *wp =
                        wd + ((((mb * CB + cb) * KH + ky) * KW + kx) * q.bo +
                              o) * q.bi;
                    for (int64_t i = 0; i < q.bi; i++)
                      acc += (int32_t)xp[i] * (int32_t)wp[i];
                  }
              int64_t at =
                  ((((nb * MB + mb) * OH + oh) * OW + ow) * q.b + b) * q.bo + o;
              if (bd) /* wraps like the accumulator */
                acc = (int32_t)((uint32_t)acc + (uint32_t)bd[at]);
              int32_t v = acc >> q.shift; /* arithmetic, like the engines */
              v = v < lo ? lo : v > 127 ? 127 : v;
              yd[at] = (int8_t)v;
            }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"QConv_blocked", 2, 3, 1, 1, TVM_PAT_OPAQUE, qc_infer, qc_compute,
     qc_reference,
     "internal: int8 2-D convolution in a GEMM engine's blocked layout, "
     "int32 sums requantized by a right shift (the quantize pass)"},
};

const ops_family ops_qconv_blocked_family = {
    defs, (int)(sizeof defs / sizeof defs[0])};
