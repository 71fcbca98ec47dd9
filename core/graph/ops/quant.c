/*
 * core/graph/ops/quant.c - linear quantization: QuantizeLinear,
 * DequantizeLinear, DynamicQuantizeLinear, and the integer products
 * MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv.
 *
 * Conventions (ONNX): q = saturate(round_half_even(x / scale) + zp) in the
 * zero point's dtype (uint8 without one; int8, uint8, int16, uint16,
 * int32 accepted); x = (q - zp) * scale.  A scale or zero point is a
 * scalar (or one element), or 1-D along `axis` (per channel; for
 * MatMulInteger per row of A and per column of B; for the convolutions
 * per output channel of W).  Blocked quantization (opset 21 block_size)
 * and 8-bit floats are refused.
 *
 * The integer products widen to int32 and subtract the zero points
 * before multiplying ("<name>.a", "<name>.b" shifted operands; the
 * convolutions pad the shifted input with 0, which is the zero point
 * before the shift), then reduce; the QLinear forms requantize the int32
 * accumulator with a_scale * b_scale / y_scale.  Patterns: the products
 * are opaque, the (de)quantizations elementwise/broadcast.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

#define QDT (DT_I8 | DT_U8 | DT_I16 | DT_U16 | DT_I32)

/* The saturation range of dtype t. */
static void q_range(tvm_dtype t, double *lo, double *hi) {
  int b = t.bits;
  if (t.code == kDLUInt) {
    *lo = 0;
    *hi = ldexp(1, b) - 1;
  } else {
    *lo = -ldexp(1, b - 1);
    *hi = ldexp(1, b - 1) - 1;
  }
}

/* A scale/zero point v is a scalar (1 element) or a 1-D vector of
 * length len (the extent of the axis it runs along). */
static tvm_status q_param(const tvm_gnode *n, int i, const char *what,
                          int64_t len) {
  const tvm_gvalue *v = i < n->ninputs ? n->inputs[i] : NULL;
  if (!v || tvm_gvalue_numel(v) == 1)
    return TVM_OK;
  if (v->ndim != 1 || v->shape[0] != len)
    return op_fail(n, TVM_ERR_INVALID,
                   "input %d (%s) must be a scalar or 1-D of length %lld", i,
                   what, (long long)len);
  return TVM_OK;
}

/* Reads parameter t (NULL: dflt) at position k of its axis, as dtype dt. */
static tvm_expr *q_read(tvm_ctx *c, tvm_tensor *t, tvm_expr *k, tvm_dtype dt,
                        double dflt) {
  if (!t)
    return op_te_const(c, dt, dflt);
  int64_t numel = 1;
  for (int d = 0; d < t->ndim; d++)
    numel *= t->shape_c[d];
  tvm_expr *ix[TVM_MAX_DIMS];
  for (int d = 0; d < t->ndim; d++)
    ix[d] = numel == 1 ? tvm_int(c, 0) : k;
  tvm_expr *v = tvm_tread(c, t, ix, t->ndim);
  return tvm_dtype_eq(v->dtype, dt) ? v : tvm_cast(c, dt, v);
}

/* Reference counterpart: element k (or the only one) of t as double. */
static double q_ref(const DLTensor *t, int64_t k, double dflt) {
  if (!t)
    return dflt;
  return op_dl_getf(t, op_dl_numel(t) == 1 ? 0 : k);
}

/* ---- QuantizeLinear, DequantizeLinear ----------------------------------------- */
/* Checks and returns the axis (normalized) and the output dtype. */
static tvm_status ql_info(const tvm_gnode *n, int *axis, tvm_dtype *out) {
  int deq = strcmp(n->op, "DequantizeLinear") == 0;
  const tvm_gvalue *zp = NULL;
  int64_t a, bs;
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "x", deq ? QDT : DT_F32 | DT_F64 | DT_I32)) ||
      (st = op_check_dtype(n, 1, deq ? "x_scale" : "y_scale",
                           DT_F32 | DT_F64)) ||
      (st = op_opt_input(n, 2, deq ? "x_zero_point" : "y_zero_point", QDT,
                         &zp)) ||
      (st = op_attr_int(n, "axis", 1, &a)) ||
      (st = op_attr_int(n, "block_size", 0, &bs)))
    return st;
  if (bs)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "blocked quantization (block_size = %lld, opset %d) is "
                   "not supported; per-tensor and per-axis are",
                   (long long)bs, op_opset(n));
  const tvm_gvalue *x = n->inputs[0];
  *axis = 0;
  /* axis only matters for per-axis parameters */
  int per_axis = tvm_gvalue_numel(n->inputs[1]) != 1 ||
                 (zp && tvm_gvalue_numel(zp) != 1);
  if (per_axis && (st = op_axis(n, "attribute 'axis'", a, x->ndim, axis)))
    return st;
  int64_t len = x->ndim ? x->shape[*axis] : 1;
  if ((st = q_param(n, 1, "scale", len)) ||
      (st = q_param(n, 2, "zero_point", len)))
    return st;
  if (deq) {
    if (zp && !tvm_dtype_eq(zp->dtype, x->dtype))
      return op_fail(n, TVM_ERR_INVALID,
                     "x and x_zero_point must have one dtype");
    *out = n->inputs[1]->dtype;
    return TVM_OK;
  }
  int64_t odt;
  if ((st = op_attr_int(n, "output_dtype", 0, &odt)))
    return st;
  *out = zp ? zp->dtype : TVM_U8;
  if (!zp && odt && odt != 2) {
    if (odt == 3)
      *out = TVM_I8;
    else
      return op_fail(n, TVM_ERR_UNSUPPORTED,
                     "attribute 'output_dtype' = %lld: uint8 (2) and int8 "
                     "(3) are supported",
                     (long long)odt);
  }
  return TVM_OK;
}

static tvm_status ql_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int axis;
  tvm_dtype t;
  tvm_status st = ql_info(n, &axis, &t);
  if (st)
    return st;
  op_set_out(n, 0, t, n->inputs[0]->ndim, n->inputs[0]->shape);
  return TVM_OK;
}

typedef struct ql_ud {
  tvm_tensor *x, *s, *zp;
  int axis;
  tvm_dtype out, ct; /* output dtype, computation dtype */
} ql_ud;

/* saturate(round(x / s) + zp), in ct, then cast to out */
static tvm_expr *q_quant(tvm_ctx *c, tvm_expr *x, tvm_expr *s, tvm_expr *zp,
                         tvm_dtype ct, tvm_dtype out) {
  double lo, hi;
  q_range(out, &lo, &hi);
  if (!tvm_dtype_eq(x->dtype, ct))
    x = tvm_cast(c, ct, x);
  tvm_expr *v = tvm_add(c, op_te_round_even(c, tvm_div(c, x, s)), zp);
  v = tvm_max(c, op_te_const(c, ct, lo), tvm_min(c, v, op_te_const(c, ct, hi)));
  return tvm_cast(c, out, v);
}

static tvm_expr *ql_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  ql_ud *u = ud;
  tvm_expr *k = u->x->ndim ? i[u->axis] : tvm_int(c, 0);
  tvm_expr *x = tvm_tread(c, u->x, i, u->x->ndim);
  tvm_expr *s = q_read(c, u->s, k, u->ct, 1);
  tvm_expr *zp = q_read(c, u->zp, k, u->ct, 0);
  if (u->out.code == kDLFloat) /* dequantize */
    return tvm_mul(c, tvm_sub(c, tvm_cast(c, u->ct, x), zp), s);
  return q_quant(c, x, s, zp, u->ct, u->out);
}

static tvm_status ql_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  ql_ud u = {in[0], in[1], n->ninputs > 2 ? in[2] : NULL, 0, TVM_F32,
             TVM_F32};
  tvm_status st = ql_info(n, &u.axis, &u.out);
  if (st)
    return st;
  u.ct = n->inputs[1]->dtype;
  out[0] = op_te_compute_out(c, n, 0, "elemwise", ql_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status ql_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  int axis;
  tvm_dtype t;
  tvm_status st = ql_info(n, &axis, &t);
  if (st)
    return st;
  const DLTensor *x = in[0], *zp = n->ninputs > 2 ? in[2] : NULL;
  int64_t len = op_dl_numel(x), inner = 1;
  for (int d = axis + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  int64_t ext = x->ndim ? x->shape[axis] : 1;
  double lo, hi;
  q_range(t, &lo, &hi);
  for (int64_t e = 0; e < len; e++) {
    int64_t k = (e / inner) % ext;
    double s = q_ref(in[1], k, 1), z = q_ref(zp, k, 0);
    if (t.code == kDLFloat) {
      op_dl_setf(out[0], e, (op_dl_getf(x, e) - z) * s);
    } else {
      double v = x->dtype.code == kDLFloat && x->dtype.bits == 32
                     ? nearbyint((float)op_dl_getf(x, e) / (float)s) + z
                     : nearbyint(op_dl_getf(x, e) / s) + z;
      op_dl_seti(out[0], e, (int64_t)(v < lo ? lo : v > hi ? hi : v));
    }
  }
  return TVM_OK;
}

/* ---- DynamicQuantizeLinear ------------------------------------------------------ */
static tvm_status dql_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  tvm_status st = op_check_dtype(n, 0, "x", DT_F32);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  op_set_out(n, 0, TVM_U8, x->ndim, x->shape);
  op_set_out(n, 1, TVM_F32, 0, NULL);
  op_set_out(n, 2, TVM_U8, 0, NULL);
  return TVM_OK;
}

typedef struct dql_ud {
  tvm_tensor *x, *mn, *mx, *scale, *zp;
  int rmax;
} dql_ud;

static tvm_expr *dql_red_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  dql_ud *u = ud;
  (void)i;
  tvm_iter_var *r[TVM_MAX_DIMS];
  tvm_expr *ri[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++) {
    char nm[16];
    snprintf(nm, sizeof nm, "r%d", d);
    if (!(r[d] = tvm_reduce_axis(c, nm, 0, u->x->shape_c[d])))
      return NULL;
    ri[d] = r[d]->var;
  }
  tvm_expr *v = tvm_tread(c, u->x, ri, u->x->ndim);
  return u->rmax ? tvm_rmax(c, v, r, u->x->ndim)
                 : tvm_rmin(c, v, r, u->x->ndim);
}

/* The one element of the [1]-shaped min or max.  They are 1-element
 * tensors rather than 0-d ones so that a thread target computes each as a
 * kernel of its own (a cross-thread reduction over x) that scale, zero
 * point and y all read, instead of having no axis to launch over. */
static tvm_expr *dql_at0(tvm_ctx *c, tvm_tensor *t) {
  tvm_expr *zero = tvm_int(c, 0);
  return tvm_tread(c, t, &zero, 1);
}

/* (max(0, max x) - min(0, min x)) / 255 */
static tvm_expr *dql_scale_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  dql_ud *u = ud;
  (void)i;
  tvm_expr *z = tvm_f32(c, 0);
  tvm_expr *hi = tvm_max(c, z, dql_at0(c, u->mx));
  tvm_expr *lo = tvm_min(c, z, dql_at0(c, u->mn));
  return tvm_div(c, tvm_sub(c, hi, lo), tvm_f32(c, 255));
}

/* saturate(round(-min(0, min x) / scale)) */
static tvm_expr *dql_zp_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  dql_ud *u = ud;
  (void)i;
  tvm_expr *lo = tvm_min(c, tvm_f32(c, 0), dql_at0(c, u->mn));
  return q_quant(c, tvm_sub(c, tvm_f32(c, 0), lo),
                 tvm_tread(c, u->scale, NULL, 0), tvm_f32(c, 0), TVM_F32,
                 TVM_U8);
}

static tvm_expr *dql_y_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  dql_ud *u = ud;
  return q_quant(c, tvm_tread(c, u->x, i, u->x->ndim),
                 tvm_tread(c, u->scale, NULL, 0),
                 tvm_cast(c, TVM_F32, tvm_tread(c, u->zp, NULL, 0)), TVM_F32,
                 TVM_U8);
}

static tvm_status dql_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  dql_ud u = {in[0], NULL, NULL, NULL, NULL, 0};
  tvm_status st;
  u.mn = tvm_compute(c, op_te_name(c, n, "min"), (int64_t[]){1}, 1,
                     dql_red_body, &u);
  if ((st = op_te_status(c, n, u.mn)))
    return st;
  u.rmax = 1;
  u.mx = tvm_compute(c, op_te_name(c, n, "max"), (int64_t[]){1}, 1,
                     dql_red_body, &u);
  if ((st = op_te_status(c, n, u.mx)))
    return st;
  u.scale = op_te_compute_out(c, n, 1, "elemwise", dql_scale_body, &u);
  if ((st = op_te_status(c, n, u.scale)))
    return st;
  u.zp = op_te_compute_out(c, n, 2, "elemwise", dql_zp_body, &u);
  if ((st = op_te_status(c, n, u.zp)))
    return st;
  out[0] = op_te_compute_out(c, n, 0, "elemwise", dql_y_body, &u);
  out[1] = u.scale;
  out[2] = u.zp;
  return op_te_status(c, n, out[0]);
}

static tvm_status dql_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  const DLTensor *x = in[0];
  int64_t len = op_dl_numel(x);
  double mn = 0, mx = 0;
  for (int64_t e = 0; e < len; e++) {
    double v = op_dl_getf(x, e);
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  float scale = (float)((mx - mn) / 255);
  /* in float32, as the computes (and ONNX's definition) do */
  double z = nearbyint((float)(0 - mn) / scale);
  z = z < 0 ? 0 : z > 255 ? 255 : z;
  for (int64_t e = 0; e < len; e++) {
    double v = nearbyint((float)op_dl_getf(x, e) / scale) + z;
    op_dl_seti(out[0], e, (int64_t)(v < 0 ? 0 : v > 255 ? 255 : v));
  }
  if (n->noutputs > 1 && out[1])
    op_dl_setf(out[1], 0, scale);
  if (n->noutputs > 2 && out[2])
    op_dl_seti(out[2], 0, (int64_t)z);
  return TVM_OK;
}

/* ---- MatMulInteger, QLinearMatMul -------------------------------------------- */
/* Input positions: a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp for
 * QLinearMatMul; a, b, a_zp, b_zp for MatMulInteger. */
typedef struct mm_pos {
  int a, b, azp, bzp, as, bs, ys, yzp;
} mm_pos;

static mm_pos mm_positions(const tvm_gnode *n) {
  if (!strcmp(n->op, "QLinearMatMul"))
    return (mm_pos){0, 3, 2, 5, 1, 4, 6, 7};
  return (mm_pos){0, 1, 2, 3, -1, -1, -1, -1};
}

static const tvm_gvalue *in_at(const tvm_gnode *n, int i) {
  return i >= 0 && i < n->ninputs ? n->inputs[i] : NULL;
}

/* Checks; fills the output shape. */
static tvm_status mm_info(const tvm_gnode *n, int64_t *s, int *nd,
                          tvm_dtype *t) {
  mm_pos p = mm_positions(n);
  int ql = p.as >= 0;
  tvm_status st;
  if ((st = op_check_dtype(n, p.a, "A", DT_I8 | DT_U8)) ||
      (st = op_check_dtype(n, p.b, "B", DT_I8 | DT_U8)))
    return st;
  const tvm_gvalue *a = n->inputs[p.a], *b = n->inputs[p.b];
  if (a->ndim < 2 || b->ndim < 2 || a->shape[a->ndim - 1] !=
                                        b->shape[b->ndim - 2])
    return op_fail(n, TVM_ERR_INVALID,
                   "A [.., M, K] and B [.., K, N] are required (inner "
                   "dimensions must agree)");
  if (b->ndim > 2 && b->ndim != a->ndim)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "B must be 2-D or have A's rank (%d), it has %d",
                   a->ndim, b->ndim);
  for (int d = 0; b->ndim > 2 && d < a->ndim - 2; d++)
    if (a->shape[d] != b->shape[d])
      return op_fail(n, TVM_ERR_UNSUPPORTED,
                     "A and B batch dimension %d differ (%lld, %lld)", d,
                     (long long)a->shape[d], (long long)b->shape[d]);
  int64_t M = a->shape[a->ndim - 2], N = b->shape[b->ndim - 1];
  const tvm_gvalue *azp = in_at(n, p.azp), *bzp = in_at(n, p.bzp);
  if (azp && !tvm_dtype_eq(azp->dtype, a->dtype))
    return op_fail(n, TVM_ERR_INVALID, "a_zero_point must have A's dtype");
  if (bzp && !tvm_dtype_eq(bzp->dtype, b->dtype))
    return op_fail(n, TVM_ERR_INVALID, "b_zero_point must have B's dtype");
  if ((azp && (st = q_param(n, p.azp, "a_zero_point", M))) ||
      (bzp && (st = q_param(n, p.bzp, "b_zero_point", N))))
    return st;
  *t = TVM_I32;
  if (ql) {
    if ((st = op_check_dtype(n, p.as, "a_scale", DT_F32)) ||
        (st = op_check_dtype(n, p.bs, "b_scale", DT_F32)) ||
        (st = op_check_dtype(n, p.ys, "y_scale", DT_F32)) ||
        (st = op_check_dtype(n, p.yzp, "y_zero_point", DT_I8 | DT_U8)) ||
        (st = q_param(n, p.as, "a_scale", M)) ||
        (st = q_param(n, p.bs, "b_scale", N)) ||
        (st = q_param(n, p.ys, "y_scale", 1)) ||
        (st = q_param(n, p.yzp, "y_zero_point", 1)))
      return st;
    *t = n->inputs[p.yzp]->dtype;
  }
  *nd = a->ndim;
  memcpy(s, a->shape, sizeof(int64_t) * (size_t)a->ndim);
  s[*nd - 1] = N;
  return TVM_OK;
}

static tvm_status mm_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int64_t s[TVM_MAX_DIMS];
  int nd;
  tvm_dtype t;
  tvm_status st = mm_info(n, s, &nd, &t);
  if (st)
    return st;
  op_set_out(n, 0, t, nd, s);
  return TVM_OK;
}

typedef struct mm_ud {
  tvm_tensor *a, *b, *azp, *bzp, *as, *bs, *ys, *yzp, *acc;
  tvm_dtype out;
} mm_ud;

static tvm_tensor *opt_t(tvm_tensor **in, const tvm_gnode *n, int i) {
  return i >= 0 && i < n->ninputs && n->inputs[i] ? in[i] : NULL;
}

/* sum_k (a[.., m, k] - azp[m]) * (b[.., k, n] - bzp[n]) in int32 */
static tvm_expr *mm_acc_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  mm_ud *u = ud;
  int nd = u->a->ndim;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, u->a->shape_c[nd - 1]);
  if (!k)
    return NULL;
  tvm_expr *ai[TVM_MAX_DIMS], *bi[TVM_MAX_DIMS];
  for (int d = 0; d < nd - 1; d++)
    ai[d] = i[d];
  ai[nd - 1] = k->var;
  for (int d = 0; d < u->b->ndim - 2; d++)
    bi[d] = i[d];
  bi[u->b->ndim - 2] = k->var;
  bi[u->b->ndim - 1] = i[nd - 1];
  tvm_expr *av = tvm_sub(c, tvm_cast(c, TVM_I32, tvm_tread(c, u->a, ai, nd)),
                         q_read(c, u->azp, i[nd - 2], TVM_I32, 0));
  tvm_expr *bv =
      tvm_sub(c, tvm_cast(c, TVM_I32, tvm_tread(c, u->b, bi, u->b->ndim)),
              q_read(c, u->bzp, i[nd - 1], TVM_I32, 0));
  return tvm_sum(c, tvm_mul(c, av, bv), &k, 1);
}

/* requantize: acc * a_scale[m] * b_scale[n] / y_scale + y_zp */
static tvm_expr *mm_q_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  mm_ud *u = ud;
  int nd = u->a->ndim;
  tvm_expr *acc = tvm_cast(c, TVM_F32, tvm_tread(c, u->acc, i, nd));
  tvm_expr *s = tvm_div(c,
                        tvm_mul(c, q_read(c, u->as, i[nd - 2], TVM_F32, 1),
                                q_read(c, u->bs, i[nd - 1], TVM_F32, 1)),
                        q_read(c, u->ys, tvm_int(c, 0), TVM_F32, 1));
  return q_quant(c, tvm_mul(c, acc, s), op_te_const(c, TVM_F32, 1),
                 q_read(c, u->yzp, tvm_int(c, 0), TVM_F32, 0), TVM_F32,
                 u->out);
}

static tvm_status mm_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  mm_pos p = mm_positions(n);
  int64_t s[TVM_MAX_DIMS];
  int nd;
  mm_ud u;
  tvm_status st = mm_info(n, s, &nd, &u.out);
  if (st)
    return st;
  u.a = in[p.a];
  u.b = in[p.b];
  u.azp = opt_t(in, n, p.azp);
  u.bzp = opt_t(in, n, p.bzp);
  u.as = opt_t(in, n, p.as);
  u.bs = opt_t(in, n, p.bs);
  u.ys = opt_t(in, n, p.ys);
  u.yzp = opt_t(in, n, p.yzp);
  if (p.as < 0) {
    out[0] = op_te_compute_out(c, n, 0, "matmul_integer", mm_acc_body, &u);
    return op_te_status(c, n, out[0]);
  }
  u.acc = tvm_compute(c, op_te_name(c, n, "acc"), s, nd, mm_acc_body, &u);
  if ((st = op_te_status(c, n, u.acc)))
    return st;
  out[0] = op_te_compute_out(c, n, 0, "qlinear", mm_q_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status mm_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  mm_pos p = mm_positions(n);
  int64_t s[TVM_MAX_DIMS];
  int nd;
  tvm_dtype t;
  tvm_status st = mm_info(n, s, &nd, &t);
  if (st)
    return st;
#define OPT(i) ((i) >= 0 && (i) < n->ninputs ? in[i] : NULL)
  const DLTensor *a = in[p.a], *b = in[p.b], *azp = OPT(p.azp),
                 *bzp = OPT(p.bzp);
  int64_t M = a->shape[nd - 2], K = a->shape[nd - 1], N = s[nd - 1];
  int64_t batch = M * N > 0 ? op_dl_numel(out[0]) / (M * N) : 0;
  double lo, hi;
  q_range(t, &lo, &hi);
  for (int64_t bt = 0; bt < batch; bt++)
    for (int64_t m = 0; m < M; m++)
      for (int64_t j = 0; j < N; j++) {
        int64_t acc = 0, boff = b->ndim == 2 ? 0 : bt * K * N;
        for (int64_t k = 0; k < K; k++)
          acc += (op_dl_geti(a, (bt * M + m) * K + k) -
                  (int64_t)q_ref(azp, m, 0)) *
                 (op_dl_geti(b, boff + k * N + j) - (int64_t)q_ref(bzp, j, 0));
        int64_t e = (bt * M + m) * N + j;
        if (p.as < 0) {
          op_dl_seti(out[0], e, acc);
          continue;
        }
        float sc = (float)q_ref(OPT(p.as), m, 1) * (float)q_ref(OPT(p.bs), j, 1) /
                   (float)q_ref(OPT(p.ys), 0, 1);
        double v = nearbyint((float)acc * sc) + q_ref(OPT(p.yzp), 0, 0);
        op_dl_seti(out[0], e, (int64_t)(v < lo ? lo : v > hi ? hi : v));
      }
#undef OPT
  return TVM_OK;
}

/* ---- ConvInteger, QLinearConv ------------------------------------------------ */
/* Positions as for the products: x, w, x_zp, w_zp (+ scales, y_zp, B). */
typedef struct cv_pos {
  int x, w, xzp, wzp, xs, ws, ys, yzp, bias;
} cv_pos;

static cv_pos cv_positions(const tvm_gnode *n) {
  if (!strcmp(n->op, "QLinearConv"))
    return (cv_pos){0, 3, 2, 5, 1, 4, 6, 7, 8};
  return (cv_pos){0, 1, 2, 3, -1, -1, -1, -1, -1};
}

static tvm_status cv_info(const tvm_gnode *n, op_window *w, int64_t *group,
                          int64_t *os, tvm_dtype *t) {
  cv_pos p = cv_positions(n);
  tvm_status st;
  if ((st = op_check_dtype(n, p.x, "x", DT_I8 | DT_U8)) ||
      (st = op_check_dtype(n, p.w, "w", DT_I8 | DT_U8)) ||
      (st = op_attr_int(n, "group", 1, group)))
    return st;
  const tvm_gvalue *x = n->inputs[p.x], *wt = n->inputs[p.w];
  int nsp = x->ndim - 2;
  if (nsp < 1 || nsp > OP_MAX_SPATIAL || wt->ndim != x->ndim)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "x must be N, C and 1 to 3 spatial dimensions, w (M, "
                   "C/group, kernel...)");
  int64_t C = x->shape[1], M = wt->shape[0];
  if (*group < 1 || C % *group || M % *group || wt->shape[1] != C / *group)
    return op_fail(n, TVM_ERR_INVALID,
                   "group = %lld does not divide the channels (x %lld, w "
                   "%lld x %lld)",
                   (long long)*group, (long long)C, (long long)M,
                   (long long)wt->shape[1]);
  if ((st = q_param(n, p.xzp, "x_zero_point", 1)) ||
      (st = q_param(n, p.wzp, "w_zero_point", M)))
    return st;
  if ((st = op_window_infer(n, nsp, x->shape + 2, wt->shape + 2, 1, 0, w)))
    return st;
  os[0] = x->shape[0];
  os[1] = M;
  for (int i = 0; i < nsp; i++)
    os[2 + i] = w->out[i];
  *t = TVM_I32;
  if (p.xs >= 0) {
    const tvm_gvalue *bias = NULL;
    if ((st = op_check_dtype(n, p.xs, "x_scale", DT_F32)) ||
        (st = op_check_dtype(n, p.ws, "w_scale", DT_F32)) ||
        (st = op_check_dtype(n, p.ys, "y_scale", DT_F32)) ||
        (st = op_check_dtype(n, p.yzp, "y_zero_point", DT_I8 | DT_U8)) ||
        (st = q_param(n, p.ws, "w_scale", M)) ||
        (st = op_opt_input(n, p.bias, "B", DT_I32, &bias)))
      return st;
    if (bias && (bias->ndim != 1 || bias->shape[0] != M))
      return op_fail(n, TVM_ERR_INVALID, "B must be 1-D of length M");
    *t = n->inputs[p.yzp]->dtype;
  }
  return TVM_OK;
}

static tvm_status cv_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  op_window w;
  int64_t group, s[TVM_MAX_DIMS];
  tvm_dtype t;
  tvm_status st = cv_info(n, &w, &group, s, &t);
  if (st)
    return st;
  op_set_out(n, 0, t, n->inputs[0]->ndim, s);
  return TVM_OK;
}

typedef struct cv_ud {
  tvm_tensor *x, *w, *xzp, *wzp, *xs, *ws, *ys, *yzp, *bias, *sx, *acc;
  op_window win;
  int64_t group, cg, mg;
  tvm_dtype out;
} cv_ud;

/* ".sx": x - x_zero_point in int32 */
static tvm_expr *cv_shift_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cv_ud *u = ud;
  return tvm_sub(c, tvm_cast(c, TVM_I32, tvm_tread(c, u->x, i, u->x->ndim)),
                 q_read(c, u->xzp, tvm_int(c, 0), TVM_I32, 0));
}

static tvm_expr *cv_acc_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cv_ud *u = ud;
  int nsp = u->win.nsp;
  tvm_iter_var *ax[1 + OP_MAX_SPATIAL];
  static const char *const rn[] = {"rz", "ry", "rx"};
  if (!(ax[0] = tvm_reduce_axis(c, "rc", 0, u->cg)))
    return NULL;
  for (int s = 0; s < nsp; s++)
    if (!(ax[1 + s] = tvm_reduce_axis(c, rn[3 - nsp + s], 0, u->win.k[s])))
      return NULL;
  tvm_expr *xi[2 + OP_MAX_SPATIAL], *wi[2 + OP_MAX_SPATIAL];
  xi[0] = i[0];
  xi[1] = tvm_add(c,
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
  tvm_expr *wv =
      tvm_sub(c, tvm_cast(c, TVM_I32, tvm_tread(c, u->w, wi, nsp + 2)),
              q_read(c, u->wzp, i[1], TVM_I32, 0));
  return tvm_sum(c, tvm_mul(c, tvm_tread(c, u->sx, xi, nsp + 2), wv), ax,
                 nsp + 1);
}

static tvm_expr *cv_q_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cv_ud *u = ud;
  tvm_expr *acc = tvm_tread(c, u->acc, i, u->acc->ndim);
  if (u->bias)
    acc = tvm_add(c, acc, tvm_tread(c, u->bias, &i[1], 1));
  tvm_expr *s = tvm_div(c,
                        tvm_mul(c, q_read(c, u->xs, tvm_int(c, 0), TVM_F32, 1),
                                q_read(c, u->ws, i[1], TVM_F32, 1)),
                        q_read(c, u->ys, tvm_int(c, 0), TVM_F32, 1));
  return q_quant(c, tvm_mul(c, tvm_cast(c, TVM_F32, acc), s),
                 op_te_const(c, TVM_F32, 1),
                 q_read(c, u->yzp, tvm_int(c, 0), TVM_F32, 0), TVM_F32,
                 u->out);
}

static tvm_status cv_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  cv_pos p = cv_positions(n);
  cv_ud u;
  int64_t s[TVM_MAX_DIMS];
  memset(&u, 0, sizeof u);
  tvm_status st = cv_info(n, &u.win, &u.group, s, &u.out);
  if (st)
    return st;
  u.x = in[p.x];
  u.w = in[p.w];
  u.xzp = opt_t(in, n, p.xzp);
  u.wzp = opt_t(in, n, p.wzp);
  u.xs = opt_t(in, n, p.xs);
  u.ws = opt_t(in, n, p.ws);
  u.ys = opt_t(in, n, p.ys);
  u.yzp = opt_t(in, n, p.yzp);
  u.bias = opt_t(in, n, p.bias);
  u.cg = u.x->shape_c[1] / u.group;
  u.mg = u.w->shape_c[0] / u.group;
  tvm_tensor *sx = tvm_compute(c, op_te_name(c, n, "sx"), u.x->shape_c,
                               u.x->ndim, cv_shift_body, &u);
  if ((st = op_te_status(c, n, sx)))
    return st;
  /* padding the shifted input with 0 pads x with its zero point */
  u.sx = op_te_pad(c, n, sx, u.win.pads, u.win.nsp, 0.0);
  if ((st = op_te_status(c, n, u.sx)))
    return st;
  if (p.xs < 0) {
    out[0] = op_te_compute_out(c, n, 0, "conv_integer", cv_acc_body, &u);
    return op_te_status(c, n, out[0]);
  }
  u.acc = tvm_compute(c, op_te_name(c, n, "acc"), s, u.x->ndim, cv_acc_body,
                      &u);
  if ((st = op_te_status(c, n, u.acc)))
    return st;
  out[0] = op_te_compute_out(c, n, 0, "qlinear", cv_q_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status cv_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  cv_pos p = cv_positions(n);
  op_window w;
  int64_t group, os[TVM_MAX_DIMS];
  tvm_dtype t;
  tvm_status st = cv_info(n, &w, &group, os, &t);
  if (st)
    return st;
#define OPT(i) ((i) >= 0 && (i) < n->ninputs ? in[i] : NULL)
  const DLTensor *x = in[p.x], *wt = in[p.w];
  int nsp = w.nsp, nd = x->ndim;
  int64_t C = x->shape[1], M = wt->shape[0], cg = C / group, mg = M / group;
  int64_t xz = (int64_t)q_ref(OPT(p.xzp), 0, 0);
  int64_t len = op_dl_numel(out[0]), ws_[TVM_MAX_DIMS], xs_[TVM_MAX_DIMS];
  {
    int64_t m = 1;
    for (int d = nd - 1; d >= 0; d--) {
      ws_[d] = m;
      m *= wt->shape[d];
    }
    m = 1;
    for (int d = nd - 1; d >= 0; d--) {
      xs_[d] = m;
      m *= x->shape[d];
    }
  }
  double lo, hi;
  q_range(t, &lo, &hi);
  int64_t ksz = 1;
  for (int s = 0; s < nsp; s++)
    ksz *= w.k[s];
  for (int64_t e = 0; e < len; e++) {
    int64_t oi[TVM_MAX_DIMS], ki[OP_MAX_SPATIAL];
    op_dl_unravel(e, os, nd, oi);
    int64_t b = oi[0], m = oi[1], acc = 0;
    int64_t wz = (int64_t)q_ref(OPT(p.wzp), m, 0);
    for (int64_t cc = 0; cc < cg; cc++)
      for (int64_t kk = 0; kk < ksz; kk++) {
        op_dl_unravel(kk, w.k, nsp, ki);
        int64_t xoff = b * xs_[0] + ((m / mg) * cg + cc) * xs_[1];
        int inside = 1;
        for (int s = 0; s < nsp; s++) {
          int64_t pos = oi[2 + s] * w.s[s] + ki[s] * w.d[s] - w.pads[s];
          inside &= pos >= 0 && pos < x->shape[2 + s];
          xoff += pos * xs_[2 + s];
        }
        if (!inside)
          continue; /* padding holds the zero point: contributes 0 */
        int64_t woff = m * ws_[0] + cc * ws_[1];
        for (int s = 0; s < nsp; s++)
          woff += ki[s] * ws_[2 + s];
        acc += (op_dl_geti(x, xoff) - xz) * (op_dl_geti(wt, woff) - wz);
      }
    if (p.xs < 0) {
      op_dl_seti(out[0], e, acc);
      continue;
    }
    if (OPT(p.bias))
      acc += op_dl_geti(OPT(p.bias), m);
    float sc = (float)q_ref(OPT(p.xs), 0, 1) * (float)q_ref(OPT(p.ws), m, 1) /
               (float)q_ref(OPT(p.ys), 0, 1);
    double v = nearbyint((float)acc * sc) + q_ref(OPT(p.yzp), 0, 0);
    op_dl_seti(out[0], e, (int64_t)(v < lo ? lo : v > hi ? hi : v));
  }
#undef OPT
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"QuantizeLinear", 2, 3, 1, 1, TVM_PAT_BROADCAST, ql_infer, ql_compute,
     ql_reference, "saturate(round(x / scale) + zero_point) (per axis)"},
    {"DequantizeLinear", 2, 3, 1, 1, TVM_PAT_BROADCAST, ql_infer, ql_compute,
     ql_reference, "(x - zero_point) * scale (per axis)"},
    {"DynamicQuantizeLinear", 1, 1, 3, 3, TVM_PAT_OPAQUE, dql_infer,
     dql_compute, dql_reference,
     "uint8 quantization with the scale and zero point of x's range"},
    {"MatMulInteger", 2, 4, 1, 1, TVM_PAT_OPAQUE, mm_infer, mm_compute,
     mm_reference, "(A - a_zero_point) x (B - b_zero_point) in int32"},
    {"QLinearMatMul", 8, 8, 1, 1, TVM_PAT_OPAQUE, mm_infer, mm_compute,
     mm_reference, "quantized matrix product, requantized to y"},
    {"ConvInteger", 2, 4, 1, 1, TVM_PAT_OPAQUE, cv_infer, cv_compute,
     cv_reference, "convolution of (x - x_zero_point), (w - w_zero_point) in "
     "int32"},
    {"QLinearConv", 8, 9, 1, 1, TVM_PAT_OPAQUE, cv_infer, cv_compute,
     cv_reference, "quantized convolution (+ int32 bias), requantized to y"},
};

const ops_family ops_quant_family = {defs, (int)(sizeof defs / sizeof defs[0])};
