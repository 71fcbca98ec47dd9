/*
 * core/graph/ops/groupnorm.c - normalizations over groups of elements
 * other than LayerNormalization's trailing axes (norm.c):
 *  - MeanVarianceNormalization (axes, default [0, 2, 3]):
 *      y = (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)
 *    over the axes, as ONNX's function body computes it;
 *  - GroupNormalization (num_groups, epsilon): the channels of
 *    x [N, C, D...] split into num_groups groups of C / num_groups;
 *      y = (x - mean) / sqrt(var + epsilon) * scale + bias
 *    with mean and (biased) variance over each (n, group), and scale and
 *    bias per group before opset 21, per channel from 21.
 *
 * Compute: ".mean" and ".msq" (sums of x and x^2; MVN) or ".var" (sum of
 * squared deviations; GroupNormalization) reduction stages with the
 * statistics' shape (a reduction is a whole stage), then the elementwise
 * output, which divides by the counts.  Pattern: opaque.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

/* ---- MeanVarianceNormalization ------------------------------------------------ */
/* red[d] = 1 for the normalized axes; *count their element count. */
static tvm_status mvn_axes(const tvm_gnode *n, int *red, int64_t *count) {
  tvm_status st = op_check_dtype(n, 0, "X", DT_F32 | DT_F64);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  const int64_t *av;
  int na;
  static const int64_t dflt[3] = {0, 2, 3};
  if ((st = op_attr_ints(n, "axes", &av, &na)))
    return st;
  if (na < 0) {
    av = dflt;
    na = 3;
  }
  memset(red, 0, sizeof(int) * TVM_MAX_DIMS);
  for (int k = 0; k < na; k++) {
    int a;
    if ((st = op_axis(n, "attribute 'axes'", av[k], x->ndim, &a)))
      return st;
    red[a] = 1;
  }
  *count = 1;
  for (int d = 0; d < x->ndim; d++)
    if (red[d])
      *count *= x->shape[d];
  if (*count == 0)
    return op_fail(n, TVM_ERR_INVALID, "the normalized axes are empty");
  return TVM_OK;
}

static tvm_status mvn_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int red[TVM_MAX_DIMS];
  int64_t cnt;
  tvm_status st = mvn_axes(n, red, &cnt);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  return TVM_OK;
}

typedef struct mvn_ud {
  tvm_tensor *x, *mean, *msq;
  int red[TVM_MAX_DIMS];
  int64_t count;
  int squares;
} mvn_ud;

/* mean of x (or of x^2) over the normalized axes */
static tvm_expr *mvn_stat_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  mvn_ud *u = ud;
  tvm_iter_var *r[TVM_MAX_DIMS];
  tvm_expr *xi[TVM_MAX_DIMS];
  int nr = 0;
  for (int d = 0; d < u->x->ndim; d++) {
    if (!u->red[d]) {
      xi[d] = i[d];
      continue;
    }
    char nm[16];
    snprintf(nm, sizeof nm, "r%d", d);
    if (!(r[nr] = tvm_reduce_axis(c, nm, 0, u->x->shape_c[d])))
      return NULL;
    xi[d] = r[nr++]->var;
  }
  tvm_expr *v = tvm_tread(c, u->x, xi, u->x->ndim);
  if (u->squares)
    v = tvm_mul(c, v, v);
  return tvm_sum(c, v, r, nr); /* divided by the count where read */
}

static tvm_expr *mvn_out_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  mvn_ud *u = ud;
  tvm_expr *ki[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    ki[d] = u->red[d] ? tvm_int(c, 0) : i[d];
  tvm_dtype t = u->x->dtype;
  tvm_expr *inv = op_te_const(c, t, 1.0 / (double)u->count);
  tvm_expr *m = tvm_mul(c, tvm_tread(c, u->mean, ki, u->x->ndim), inv);
  tvm_expr *var = tvm_sub(
      c, tvm_mul(c, tvm_tread(c, u->msq, ki, u->x->ndim), inv),
      tvm_mul(c, m, m));
  tvm_expr *sd = tvm_add(c, tvm_math(c, TVM_INTRIN_SQRT, var),
                         op_te_const(c, t, 1e-9));
  return tvm_div(c, tvm_sub(c, tvm_tread(c, u->x, i, u->x->ndim), m), sd);
}

static tvm_status mvn_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  mvn_ud u;
  memset(&u, 0, sizeof u);
  tvm_status st = mvn_axes(n, u.red, &u.count);
  if (st)
    return st;
  u.x = in[0];
  int64_t ks[TVM_MAX_DIMS];
  for (int d = 0; d < u.x->ndim; d++)
    ks[d] = u.red[d] ? 1 : u.x->shape_c[d];
  u.mean = tvm_compute(c, op_te_name(c, n, "mean"), ks, u.x->ndim,
                       mvn_stat_body, &u);
  if ((st = op_te_status(c, n, u.mean)))
    return st;
  u.squares = 1;
  u.msq = tvm_compute(c, op_te_name(c, n, "msq"), ks, u.x->ndim,
                      mvn_stat_body, &u);
  if ((st = op_te_status(c, n, u.msq)))
    return st;
  out[0] = op_te_compute_out(c, n, 0, "mvn", mvn_out_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status mvn_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  int red[TVM_MAX_DIMS];
  int64_t cnt;
  tvm_status st = mvn_axes(n, red, &cnt);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int r = x->ndim;
  int64_t len = op_dl_numel(x), ks[TVM_MAX_DIMS], nk = 1;
  for (int d = 0; d < r; d++) {
    ks[d] = red[d] ? 1 : x->shape[d];
    nk *= ks[d];
  }
  double *s = tvm_calloc((size_t)(2 * nk + 1), sizeof(double));
  if (!s)
    return op_fail(n, TVM_ERR_NOMEM, "out of memory");
  int64_t *key = tvm_calloc((size_t)(len + 1), sizeof(int64_t));
  if (!key) {
    tvm_free(s);
    return op_fail(n, TVM_ERR_NOMEM, "out of memory");
  }
  for (int64_t e = 0; e < len; e++) {
    int64_t idx[TVM_MAX_DIMS], k = 0;
    op_dl_unravel(e, x->shape, r, idx);
    for (int d = 0; d < r; d++)
      k = k * ks[d] + (red[d] ? 0 : idx[d]);
    key[e] = k;
    double v = op_dl_getf(x, e);
    s[k] += v;
    s[nk + k] += v * v;
  }
  for (int64_t e = 0; e < len; e++) {
    double m = s[key[e]] / (double)cnt, q = s[nk + key[e]] / (double)cnt;
    op_dl_setf(out[0], e, (op_dl_getf(x, e) - m) / (sqrt(q - m * m) + 1e-9));
  }
  tvm_free(s);
  tvm_free(key);
  return TVM_OK;
}

/* ---- GroupNormalization ---------------------------------------------------------- */
typedef struct gn_info {
  int64_t G, cg, count; /* groups, channels per group, elements per group */
  double eps;
  int per_channel;      /* scale/bias per channel (opset 21) */
} gn_info;

static tvm_status gn_check(const tvm_gnode *n, gn_info *gi) {
  tvm_status st;
  int64_t G;
  if ((st = op_check_dtype(n, 0, "X", DT_F32 | DT_F64)) ||
      (st = op_check_dtype(n, 1, "scale", DT_F32 | DT_F64)) ||
      (st = op_check_dtype(n, 2, "bias", DT_F32 | DT_F64)) ||
      (st = op_attr_int(n, "num_groups", -1, &G)) ||
      (st = op_attr_float(n, "epsilon", 1e-5, &gi->eps)))
    return st;
  const tvm_gvalue *x = n->inputs[0];
  if (x->ndim < 2)
    return op_fail(n, TVM_ERR_INVALID, "X must be (N, C, ...)");
  int64_t C = x->shape[1];
  if (G < 1 || C % G)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'num_groups' = %lld must divide the %lld "
                   "channels",
                   (long long)G, (long long)C);
  gi->G = G;
  gi->cg = C / G;
  gi->count = gi->cg;
  for (int d = 2; d < x->ndim; d++)
    gi->count *= x->shape[d];
  gi->per_channel = op_opset(n) >= 21;
  int64_t want = gi->per_channel ? C : G;
  for (int k = 1; k < 3; k++)
    if (n->inputs[k]->ndim != 1 || n->inputs[k]->shape[0] != want)
      return op_fail(n, TVM_ERR_INVALID,
                     "%s must be 1-D of length %lld (%s at opset %d)",
                     k == 1 ? "scale" : "bias", (long long)want,
                     gi->per_channel ? "channels" : "groups", op_opset(n));
  if (gi->count == 0)
    return op_fail(n, TVM_ERR_INVALID, "the groups are empty");
  return TVM_OK;
}

static tvm_status gn_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  gn_info gi;
  tvm_status st = gn_check(n, &gi);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  return TVM_OK;
}

typedef struct gn_ud {
  gn_info gi;
  tvm_tensor *x, *scale, *bias, *mean, *var;
  int dev; /* the stage being built: 0 mean, 1 variance */
} gn_ud;

/* The mean of group gi = (n, g) from the ".mean" sums. */
static tvm_expr *gn_mean(tvm_ctx *c, gn_ud *u, tvm_expr **gi) {
  return tvm_mul(c, tvm_tread(c, u->mean, gi, 2),
                 op_te_const(c, u->x->dtype, 1.0 / (double)u->gi.count));
}

/* over (rc, spatial) of group i[1] of batch i[0]: the sum of x, or of
 * (x - mean)^2 */
static tvm_expr *gn_stat_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  gn_ud *u = ud;
  int r = u->x->ndim, nr = 0;
  tvm_iter_var *ax[TVM_MAX_DIMS];
  tvm_expr *xi[TVM_MAX_DIMS];
  if (!(ax[nr++] = tvm_reduce_axis(c, "rc", 0, u->gi.cg)))
    return NULL;
  xi[0] = i[0];
  xi[1] = tvm_add(c, tvm_mul(c, i[1], tvm_int(c, u->gi.cg)), ax[0]->var);
  for (int d = 2; d < r; d++) {
    char nm[16];
    snprintf(nm, sizeof nm, "r%d", d);
    if (!(ax[nr] = tvm_reduce_axis(c, nm, 0, u->x->shape_c[d])))
      return NULL;
    xi[d] = ax[nr++]->var;
  }
  tvm_expr *v = tvm_tread(c, u->x, xi, r);
  if (u->dev) {
    v = tvm_sub(c, v, gn_mean(c, u, i));
    v = tvm_mul(c, v, v);
  }
  return tvm_sum(c, v, ax, nr); /* divided by the count where read */
}

static tvm_expr *gn_out_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  gn_ud *u = ud;
  tvm_dtype t = u->x->dtype;
  tvm_expr *gi[2] = {i[0], tvm_floordiv(c, i[1], tvm_int(c, u->gi.cg))};
  tvm_expr *pk = u->gi.per_channel ? i[1] : gi[1];
  tvm_expr *var = tvm_mul(c, tvm_tread(c, u->var, gi, 2),
                          op_te_const(c, t, 1.0 / (double)u->gi.count));
  tvm_expr *norm = tvm_div(
      c, tvm_sub(c, tvm_tread(c, u->x, i, u->x->ndim), gn_mean(c, u, gi)),
      tvm_math(c, TVM_INTRIN_SQRT,
               tvm_add(c, var, op_te_const(c, t, u->gi.eps))));
  return tvm_add(c, tvm_mul(c, norm, tvm_tread(c, u->scale, &pk, 1)),
                 tvm_tread(c, u->bias, &pk, 1));
}

static tvm_status gn_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  gn_ud u;
  memset(&u, 0, sizeof u);
  tvm_status st = gn_check(n, &u.gi);
  if (st)
    return st;
  u.x = in[0];
  u.scale = in[1];
  u.bias = in[2];
  int64_t ss[2] = {u.x->shape_c[0], u.gi.G};
  u.mean = tvm_compute(c, op_te_name(c, n, "mean"), ss, 2, gn_stat_body, &u);
  if ((st = op_te_status(c, n, u.mean)))
    return st;
  u.dev = 1;
  u.var = tvm_compute(c, op_te_name(c, n, "var"), ss, 2, gn_stat_body, &u);
  if ((st = op_te_status(c, n, u.var)))
    return st;
  out[0] = op_te_compute_out(c, n, 0, "group_norm", gn_out_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status gn_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  gn_info gi;
  tvm_status st = gn_check(n, &gi);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int64_t N = x->shape[0];
  for (int64_t b = 0; b < N; b++)
    for (int64_t g = 0; g < gi.G; g++) {
      int64_t base = (b * gi.G + g) * gi.count;
      double m = 0, v = 0;
      for (int64_t k = 0; k < gi.count; k++)
        m += op_dl_getf(x, base + k);
      m /= (double)gi.count;
      for (int64_t k = 0; k < gi.count; k++) {
        double d = op_dl_getf(x, base + k) - m;
        v += d * d;
      }
      v /= (double)gi.count;
      int64_t spatial = gi.count / gi.cg;
      for (int64_t k = 0; k < gi.count; k++) {
        int64_t ch = g * gi.cg + k / spatial, pk = gi.per_channel ? ch : g;
        double y = (op_dl_getf(x, base + k) - m) / sqrt(v + gi.eps);
        op_dl_setf(out[0], base + k,
                   y * op_dl_getf(in[1], pk) + op_dl_getf(in[2], pk));
      }
    }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"MeanVarianceNormalization", 1, 1, 1, 1, TVM_PAT_OPAQUE, mvn_infer,
     mvn_compute, mvn_reference,
     "(x - mean) / (std + 1e-9) over axes (default [0, 2, 3])"},
    {"GroupNormalization", 3, 3, 1, 1, TVM_PAT_OPAQUE, gn_infer, gn_compute,
     gn_reference,
     "normalization over channel groups (num_groups, epsilon), then scale "
     "and bias (per group before opset 21, per channel from 21)"},
};

const ops_family ops_groupnorm_family = {defs,
                                         (int)(sizeof defs / sizeof defs[0])};
