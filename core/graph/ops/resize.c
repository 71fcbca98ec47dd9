/*
 * core/graph/ops/resize.c - Resize (opset 10: X, scales; from 11: X,
 * roi, scales, sizes; constant scales/sizes; optional axes attribute of
 * opset 18) and Upsample (opset 9: X, scales).
 *
 * Modes: nearest (nearest_mode round_prefer_floor (default),
 * round_prefer_ceil, floor, ceil), linear (multilinear over every
 * resized axis, source coordinates clamped to the input) and cubic (Keys
 * cubic convolution, cubic_coeff_a (-0.75), 4 taps per resized axis read
 * at the clamped edge, or weighing 0 and renormalized with
 * exclude_outside).
 * coordinate_transformation_mode: half_pixel (default), asymmetric,
 * align_corners, pytorch_half_pixel, tf_half_pixel_for_nn.  Upsample and
 * Resize-10 use asymmetric coordinates with floor for nearest (their
 * ONNX/ORT behaviour).  tf_crop_and_resize, antialias, exclude_outside
 * outside cubic and keep_aspect_ratio_policy other than stretch are
 * refused.
 *
 * Compute: one tensor; the source coordinate of each resized axis is
 * computed in float64 from the output index (so it matches the reference
 * bit for bit), nearest reads one element, linear blends 2^k neighbours.
 */
#include <math.h>
#include <string.h>

#include "ops_int.h"

enum { CT_HALF, CT_ASYM, CT_ALIGN, CT_PYTORCH, CT_TFNN };
enum { NM_RPF, NM_RPC, NM_FLOOR, NM_CEIL };

typedef struct rs_info {
  int linear, ct, nm;
  int cubic, excl; /* mode cubic; exclude_outside */
  double A;        /* cubic_coeff_a */
  double scale[TVM_MAX_DIMS];
  int64_t out[TVM_MAX_DIMS];
  int resized[TVM_MAX_DIMS]; /* axis changes size or uses a scale != 1 */
  int ndim;
} rs_info;

/* Index of s in names, or -1. */
static int pick(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(s, names[i]) == 0)
      return i;
  return -1;
}

/* Reads the attributes and the constant scales or sizes; fills the output
 * shape. */
static tvm_status rs_info_of(const tvm_gnode *n, rs_info *ri) {
  static const char *const modes[] = {"nearest", "linear", "cubic"};
  static const char *const cts[] = {"half_pixel", "asymmetric", "align_corners",
                                    "pytorch_half_pixel",
                                    "tf_half_pixel_for_nn"};
  static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil",
                                    "floor", "ceil"};
  tvm_status st = op_check_dtype(n, 0, "X", DT_F32);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  int r = x->ndim, upsample = strcmp(n->op, "Upsample") == 0;
  int old = upsample || op_opset(n) < 11;
  const char *mode, *ct, *nm, *kar;
  int64_t antialias, excl;
  if ((st = op_attr_str(n, "mode", "nearest", &mode)) ||
      (st = op_attr_str(n, "coordinate_transformation_mode", "half_pixel",
                        &ct)) ||
      (st = op_attr_str(n, "nearest_mode", "round_prefer_floor", &nm)) ||
      (st = op_attr_str(n, "keep_aspect_ratio_policy", "stretch", &kar)) ||
      (st = op_attr_int(n, "antialias", 0, &antialias)) ||
      (st = op_attr_int(n, "exclude_outside", 0, &excl)))
    return st;
  int m = pick(mode, modes, 3);
  if (m < 0)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "attribute 'mode' = \"%s\"; nearest, linear and cubic "
                   "are supported",
                   mode);
  ri->linear = m == 1;
  ri->cubic = m == 2;
  ri->excl = excl != 0;
  if ((st = op_attr_float(n, "cubic_coeff_a", -0.75, &ri->A)))
    return st;
  ri->ct = old ? CT_ASYM : pick(ct, cts, 5);
  ri->nm = old ? NM_FLOOR : pick(nm, nms, 4);
  if (ri->ct < 0)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "attribute 'coordinate_transformation_mode' = \"%s\" is "
                   "not supported (use half_pixel, asymmetric, "
                   "align_corners, pytorch_half_pixel or "
                   "tf_half_pixel_for_nn)",
                   ct);
  if (ri->nm < 0)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'nearest_mode' = \"%s\" is unknown", nm);
  if (antialias || strcmp(kar, "stretch") != 0 || (excl && !ri->cubic))
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "antialias, exclude_outside (except with cubic) and "
                   "keep_aspect_ratio_policy other than stretch are not "
                   "supported");
  /* axes (opset 18) */
  const int64_t *av;
  int na, axes[TVM_MAX_DIMS];
  if ((st = op_attr_ints(n, "axes", &av, &na)))
    return st;
  if (na > r)
    return op_fail(n, TVM_ERR_INVALID, "too many axes");
  if (na < 0)
    na = r;
  for (int k = 0; k < na; k++)
    if (av) {
      if ((st = op_axis(n, "axes value", av[k], r, &axes[k])))
        return st;
    } else {
      axes[k] = k;
    }
  ri->ndim = r;
  for (int d = 0; d < r; d++) {
    ri->scale[d] = 1;
    ri->out[d] = x->shape[d];
  }
  /* scales: input 1 (Upsample, Resize-10) or 2; sizes: input 3 */
  int si = old ? 1 : 2;
  const tvm_gvalue *sv = si < n->ninputs ? n->inputs[si] : NULL;
  const tvm_gvalue *zv = !old && n->ninputs > 3 ? n->inputs[3] : NULL;
  if (sv && tvm_gvalue_numel(sv) == 0)
    sv = NULL; /* an empty scales tensor means "use sizes" */
  if (!sv && !zv)
    return op_fail(n, TVM_ERR_INVALID,
                   old ? "no scales: give them as input 1"
                       : "give either scales (input 2) or sizes (input 3)");
  if (sv && zv)
    return op_fail(n, TVM_ERR_INVALID,
                   "scales and sizes are both given; give only one");
  if (sv) {
    if (sv->kind != TVM_GV_CONST || !sv->data || op_dt_bit(sv->dtype) != DT_F32)
      return op_fail(n, TVM_ERR_UNSUPPORTED,
                     "scales must be a constant float32 tensor, but input "
                     "'%s' is %s",
                     sv->name,
                     sv->kind == TVM_GV_CONST ? "not float32"
                     : sv->kind == TVM_GV_INPUT
                         ? "a graph input (fed at run time)"
                         : "a constant computed at run time (not a "
                           "constant)");
    if (tvm_gvalue_numel(sv) != na)
      return op_fail(n, TVM_ERR_INVALID, "scales has %lld values; give %d",
                     (long long)tvm_gvalue_numel(sv), na);
    for (int k = 0; k < na; k++) {
      double s = ((const float *)sv->data)[k];
      if (!(s > 0))
        return op_fail(n, TVM_ERR_INVALID, "scale %g must be positive", s);
      ri->scale[axes[k]] = s;
      ri->out[axes[k]] = (int64_t)floor((double)x->shape[axes[k]] * s);
    }
  } else {
    int64_t sz[TVM_MAX_DIMS];
    int cnt;
    if ((st = op_const_ints(n, 3, "sizes", sz, TVM_MAX_DIMS, &cnt)))
      return st;
    if (cnt != na)
      return op_fail(n, TVM_ERR_INVALID, "sizes has %d values; give %d", cnt,
                     na);
    for (int k = 0; k < na; k++) {
      if (sz[k] < 1)
        return op_fail(n, TVM_ERR_INVALID, "sizes[%d] must be positive", k);
      ri->out[axes[k]] = sz[k];
      ri->scale[axes[k]] = (double)sz[k] / (double)x->shape[axes[k]];
    }
  }
  for (int d = 0; d < r; d++) {
    if (ri->out[d] < 1)
      return op_fail(n, TVM_ERR_INVALID,
                     "axis %d would be resized to %lld elements", d,
                     (long long)ri->out[d]);
    ri->resized[d] = ri->out[d] != x->shape[d] || ri->scale[d] != 1;
  }
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status rs_infer(tvm_graph *g, tvm_gnode *n) {
  rs_info ri;
  tvm_status st = rs_info_of(n, &ri);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, ri.ndim, ri.out);
  return TVM_OK;
}

/* ---- the coordinate map, once in doubles (reference) ------------------ */
/* The resized length of the coordinate formulas is in * scale, not the
 * rounded output size (they differ when scales do not divide). */
static double src_coord(const rs_info *ri, int d, int64_t in, double o) {
  double s = ri->scale[d], outn = (double)in * s;
  switch (ri->ct) {
  case CT_ASYM:
    return o / s;
  case CT_ALIGN:
    return outn > 1 ? o * (double)(in - 1) / (outn - 1) : 0;
  case CT_PYTORCH:
    return outn > 1 ? (o + 0.5) / s - 0.5 : 0;
  case CT_TFNN:
    return (o + 0.5) / s;
  default:
    return (o + 0.5) / s - 0.5;
  }
}

/* The nearest source index of coordinate xo (per nearest_mode), clamped. */
static int64_t nearest_index(const rs_info *ri, double xo, int64_t in) {
  double v;
  switch (ri->nm) {
  case NM_RPC:
    v = floor(xo + 0.5);
    break;
  case NM_FLOOR:
    v = floor(xo);
    break;
  case NM_CEIL:
    v = ceil(xo);
    break;
  default:
    v = ceil(xo - 0.5);
    break;
  }
  int64_t k = (int64_t)v;
  return k < 0 ? 0 : k >= in ? in - 1 : k;
}

static tvm_expr *clamp_idx(tvm_ctx *c, tvm_expr *k, int64_t in);

/* The cubic convolution weight of distance d (Keys, coefficient A). */
static double cubic_w(double A, double d) {
  d = fabs(d);
  if (d <= 1)
    return ((A + 2) * d - (A + 3)) * d * d + 1;
  if (d < 2)
    return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
  return 0;
}

/* The 4 taps of coordinate xo: indices (clamped to the edge) and weights
 * (outside taps weigh 0 and the rest renormalize with exclude_outside). */
static void cubic_taps(const rs_info *ri, double xo, int64_t in, int64_t *k,
                       double *w) {
  double f = floor(xo), t = xo - f, sum = 0;
  for (int j = 0; j < 4; j++) {
    int64_t idx = (int64_t)f - 1 + j;
    w[j] = cubic_w(ri->A, t + 1 - j);
    if (ri->excl && (idx < 0 || idx >= in))
      w[j] = 0;
    sum += w[j];
    k[j] = idx < 0 ? 0 : idx >= in ? in - 1 : idx;
  }
  if (ri->excl && sum != 0)
    for (int j = 0; j < 4; j++)
      w[j] /= sum;
}

/* ---- the same in tensor expressions (float64) ------------------------- */
/* Tensor expressions of cubic_taps. */
static void te_cubic_taps(tvm_ctx *c, const rs_info *ri, tvm_expr *xo,
                          int64_t in, tvm_expr **k, tvm_expr **w) {
  tvm_expr *f = tvm_math(c, TVM_INTRIN_FLOOR, xo);
  tvm_expr *t = tvm_sub(c, xo, f), *sum = NULL;
  tvm_expr *fi = tvm_cast(c, TVM_I32, f);
  double A = ri->A;
#define D(v) tvm_fconst(c, TVM_F64, (v))
  for (int j = 0; j < 4; j++) {
    /* |t + 1 - j|: t in [0, 1) makes the sign known per tap */
    tvm_expr *d = j == 0   ? tvm_add(c, t, D(1))
                  : j == 1 ? t
                  : j == 2 ? tvm_sub(c, D(1), t)
                           : tvm_sub(c, D(2), t);
    tvm_expr *near = tvm_add(
        c, tvm_mul(c, tvm_sub(c, tvm_mul(c, D(A + 2), d), D(A + 3)),
                   tvm_mul(c, d, d)),
        D(1));
    tvm_expr *far = tvm_sub(
        c,
        tvm_mul(c,
                tvm_add(c, tvm_mul(c, tvm_sub(c, tvm_mul(c, D(A), d), D(5 * A)),
                                   d),
                        D(8 * A)),
                d),
        D(4 * A));
    w[j] = j == 1 || j == 2 ? near : far; /* d <= 1 for the inner taps */
    tvm_expr *idx = tvm_add(c, fi, tvm_int(c, j - 1));
    if (ri->excl) {
      tvm_expr *ok = tvm_and(c, tvm_ge(c, idx, tvm_int(c, 0)),
                             tvm_lt(c, idx, tvm_int(c, in)));
      w[j] = tvm_select(c, ok, w[j], D(0));
      sum = sum ? tvm_add(c, sum, w[j]) : w[j];
    }
    k[j] = clamp_idx(c, idx, in);
  }
  if (ri->excl)
    for (int j = 0; j < 4; j++)
      w[j] = tvm_div(c, w[j], sum);
#undef D
}

static tvm_expr *te_coord(tvm_ctx *c, const rs_info *ri, int d, int64_t in,
                          tvm_expr *o) {
  tvm_expr *of = tvm_cast(c, TVM_F64, o);
  double s = ri->scale[d], outn = (double)in * s;
  tvm_expr *half = tvm_fconst(c, TVM_F64, 0.5);
  switch (ri->ct) {
  case CT_ASYM:
    return tvm_div(c, of, tvm_fconst(c, TVM_F64, s));
  case CT_ALIGN:
    if (outn <= 1)
      return tvm_fconst(c, TVM_F64, 0);
    return tvm_div(c, tvm_mul(c, of, tvm_fconst(c, TVM_F64, (double)(in - 1))),
                   tvm_fconst(c, TVM_F64, outn - 1));
  case CT_PYTORCH:
    if (outn <= 1)
      return tvm_fconst(c, TVM_F64, 0);
    /* fall through */
  case CT_HALF:
    return tvm_sub(
        c, tvm_div(c, tvm_add(c, of, half), tvm_fconst(c, TVM_F64, s)), half);
  default: /* CT_TFNN */
    return tvm_div(c, tvm_add(c, of, half), tvm_fconst(c, TVM_F64, s));
  }
}

/* k clamped to [0, in - 1]. */
static tvm_expr *clamp_idx(tvm_ctx *c, tvm_expr *k, int64_t in) {
  return tvm_min(c, tvm_max(c, k, tvm_int(c, 0)), tvm_int(c, in - 1));
}

/* Tensor expression of nearest_index. */
static tvm_expr *te_nearest(tvm_ctx *c, const rs_info *ri, tvm_expr *xo,
                            int64_t in) {
  tvm_expr *half = tvm_fconst(c, TVM_F64, 0.5), *v;
  switch (ri->nm) {
  case NM_RPC:
    v = tvm_math(c, TVM_INTRIN_FLOOR, tvm_add(c, xo, half));
    break;
  case NM_FLOOR:
    v = tvm_math(c, TVM_INTRIN_FLOOR, xo);
    break;
  case NM_CEIL:
    v = tvm_math(c, TVM_INTRIN_CEIL, xo);
    break;
  default:
    v = tvm_math(c, TVM_INTRIN_CEIL, tvm_sub(c, xo, half));
    break;
  }
  return clamp_idx(c, tvm_cast(c, TVM_I32, v), in);
}

typedef struct rs_ud {
  rs_info ri;
  tvm_tensor *x;
} rs_ud;

/* Cubic: the weighted sum of 4^k taps (weights in float64). */
static tvm_expr *rs_cubic_body(tvm_ctx *c, tvm_expr **i, rs_ud *u) {
  tvm_tensor *x = u->x;
  int r = x->ndim, ax[TVM_MAX_DIMS], na = 0;
  tvm_expr *k[TVM_MAX_DIMS][4], *w[TVM_MAX_DIMS][4];
  for (int d = 0; d < r; d++) {
    if (!u->ri.resized[d])
      continue;
    te_cubic_taps(c, &u->ri, te_coord(c, &u->ri, d, x->shape_c[d], i[d]),
                  x->shape_c[d], k[d], w[d]);
    ax[na++] = d;
  }
  if (!na)
    return tvm_tread(c, x, i, r);
  tvm_expr *acc = NULL;
  for (int tap = 0; tap < (1 << (2 * na)); tap++) {
    tvm_expr *ix[TVM_MAX_DIMS], *wt = NULL;
    for (int d = 0; d < r; d++)
      ix[d] = i[d];
    for (int a = 0; a < na; a++) {
      int j = (tap >> (2 * a)) & 3, d = ax[a];
      ix[d] = k[d][j];
      wt = wt ? tvm_mul(c, wt, w[d][j]) : w[d][j];
    }
    tvm_expr *term =
        tvm_mul(c, tvm_cast(c, TVM_F64, tvm_tread(c, x, ix, r)), wt);
    acc = acc ? tvm_add(c, acc, term) : term;
  }
  return tvm_cast(c, x->dtype, acc);
}

/* One output element: nearest read, or the blend of 2^k neighbours. */
static tvm_expr *rs_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  rs_ud *u = ud;
  tvm_tensor *x = u->x;
  int r = x->ndim;
  if (u->ri.cubic)
    return rs_cubic_body(c, i, u);
  tvm_expr *lo[TVM_MAX_DIMS], *hi[TVM_MAX_DIMS], *w[TVM_MAX_DIMS];
  int lin[TVM_MAX_DIMS], nlin = 0;
  for (int d = 0; d < r; d++) {
    int64_t in = x->shape_c[d];
    lin[d] = 0;
    if (!u->ri.resized[d]) {
      lo[d] = i[d];
      continue;
    }
    tvm_expr *xo = te_coord(c, &u->ri, d, in, i[d]);
    if (!u->ri.linear) {
      lo[d] = te_nearest(c, &u->ri, xo, in);
      continue;
    }
    /* clamp the coordinate into [0, in - 1], then blend floor and floor+1 */
    xo = tvm_min(c, tvm_max(c, xo, tvm_fconst(c, TVM_F64, 0)),
                 tvm_fconst(c, TVM_F64, (double)(in - 1)));
    tvm_expr *f = tvm_math(c, TVM_INTRIN_FLOOR, xo);
    lo[d] = clamp_idx(c, tvm_cast(c, TVM_I32, f), in);
    hi[d] = tvm_min(c, tvm_add(c, lo[d], tvm_int(c, 1)), tvm_int(c, in - 1));
    w[d] = tvm_cast(c, x->dtype, tvm_sub(c, xo, f));
    lin[d] = 1;
    nlin++;
  }
  if (!nlin)
    return tvm_tread(c, x, lo, r);
  tvm_expr *acc = NULL;
  for (int corner = 0; corner < (1 << nlin); corner++) {
    tvm_expr *ix[TVM_MAX_DIMS], *wt = NULL;
    for (int d = 0, b = 0; d < r; d++) {
      ix[d] = lo[d];
      if (!lin[d])
        continue;
      int up = (corner >> b++) & 1;
      ix[d] = up ? hi[d] : lo[d];
      tvm_expr *wd = up ? w[d] : tvm_sub(c, op_te_const(c, x->dtype, 1), w[d]);
      wt = wt ? tvm_mul(c, wt, wd) : wd;
    }
    tvm_expr *term = tvm_mul(c, tvm_tread(c, x, ix, r), wt);
    acc = acc ? tvm_add(c, acc, term) : term;
  }
  return acc;
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status rs_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  rs_ud u;
  tvm_status st = rs_info_of(n, &u.ri);
  if (st)
    return st;
  u.x = in[0];
  out[0] = op_te_compute_out(c, n, 0, "injective", rs_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status rs_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  rs_info ri;
  tvm_status st = rs_info_of(n, &ri);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int r = x->ndim;
  int64_t len = op_dl_numel(out[0]);
  if (ri.cubic) {
    for (int64_t e = 0; e < len; e++) {
      int64_t o[TVM_MAX_DIMS], k[TVM_MAX_DIMS][4];
      double w[TVM_MAX_DIMS][4];
      int ax[TVM_MAX_DIMS], na = 0;
      op_dl_unravel(e, out[0]->shape, r, o);
      for (int d = 0; d < r; d++)
        if (ri.resized[d]) {
          cubic_taps(&ri, src_coord(&ri, d, x->shape[d], (double)o[d]),
                     x->shape[d], k[d], w[d]);
          ax[na++] = d;
        }
      double acc = 0;
      for (int tap = 0; tap < (1 << (2 * na)); tap++) {
        int64_t ix[TVM_MAX_DIMS];
        double wt = 1;
        for (int d = 0; d < r; d++)
          ix[d] = o[d];
        for (int a = 0; a < na; a++) {
          int j = (tap >> (2 * a)) & 3;
          ix[ax[a]] = k[ax[a]][j];
          wt *= w[ax[a]][j];
        }
        int64_t f = 0;
        for (int d = 0; d < r; d++)
          f = f * x->shape[d] + ix[d];
        acc += wt * op_dl_getf(x, f);
      }
      op_dl_setf(out[0], e, acc);
    }
    return TVM_OK;
  }
  for (int64_t e = 0; e < len; e++) {
    int64_t o[TVM_MAX_DIMS], lo[TVM_MAX_DIMS], hi[TVM_MAX_DIMS];
    double w[TVM_MAX_DIMS];
    int lin[TVM_MAX_DIMS], nlin = 0;
    op_dl_unravel(e, out[0]->shape, r, o);
    for (int d = 0; d < r; d++) {
      int64_t nin = x->shape[d];
      lin[d] = 0;
      lo[d] = o[d];
      if (!ri.resized[d])
        continue;
      double xo = src_coord(&ri, d, nin, (double)o[d]);
      if (!ri.linear) {
        lo[d] = nearest_index(&ri, xo, nin);
        continue;
      }
      xo = xo < 0 ? 0 : xo > (double)(nin - 1) ? (double)(nin - 1) : xo;
      double f = floor(xo);
      lo[d] = (int64_t)f;
      hi[d] = lo[d] + 1 < nin ? lo[d] + 1 : nin - 1;
      w[d] = xo - f;
      lin[d] = 1;
      nlin++;
    }
    double acc = 0;
    for (int corner = 0; corner < (1 << nlin); corner++) {
      int64_t f = 0;
      double wt = 1;
      for (int d = 0, b = 0; d < r; d++) {
        int64_t k = lo[d];
        if (lin[d]) {
          int up = (corner >> b++) & 1;
          k = up ? hi[d] : lo[d];
          wt *= up ? w[d] : 1 - w[d];
        }
        f = f * x->shape[d] + k;
      }
      acc += wt * op_dl_getf(x, f);
    }
    op_dl_setf(out[0], e, acc);
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Resize", 1, 4, 1, 1, TVM_PAT_INJECTIVE, rs_infer, rs_compute,
     rs_reference,
     "nearest / linear resize by constant scales or sizes (coordinate "
     "transformation modes, nearest modes)"},
    {"Upsample", 2, 2, 1, 1, TVM_PAT_INJECTIVE, rs_infer, rs_compute,
     rs_reference, "opset 9 upsampling by constant scales (nearest, linear)"},
};

const ops_family ops_resize_family = {defs,
                                      (int)(sizeof defs / sizeof defs[0])};
