/*
 * core/graph/passes/quantize.c - integer quantization of a float graph
 * for a target that asks for it (ABI 6 quantize, tvm_plugin_quant of
 * plugin.h; plugin-sdk/docs/QUANTIZATION.md).
 *
 * What it rewrites: every 2-D Conv on float32 data with constant float32
 * weights (and bias), group 1, no dilation, explicit symmetric pads,
 * whose batch, input and output channels the scheme's blocks (b, bi, bo)
 * divide.  The first convolution of an image network (3 channels) stays
 * float.
 *
 * Calibration: the float graph runs through the reference evaluator on
 * s->ncalib sample inputs: the caller's s->samples (real data, e.g.
 * `tvmc compile --calibrate`; each checked against its graph input's
 * dtype and shape first), else synthetic ones (float inputs uniform in
 * [-1, 1), the distribution `tvmc run` feeds, from seeds s->seed,
 * s->seed + 1, ...; integer inputs in [0, 10)).  For each candidate it keeps the samples
 * of its data input x and of its output y (after the Relu that is y's
 * only reader, when there is one: that Relu is fused).  Scales are powers
 * of two (per tensor), q = clamp(round(v / 2^e), -127, 127), with e the
 * exponent among e0 = ceil(log2(max / 127)) (nothing clips) and the four
 * finer ones whose quantization of the samples has the least squared
 * error, for the input (ex), the weights (ew, over the weights
 * themselves) and the output (ey); the int32 sum has the scale
 * 2^(ex + ew), so the output is
 * sum >> (ey - ex - ew) (when ey < ex + ew, ey takes ex + ew and the
 * shift is 0).
 *
 * The rewrite of y = Conv(x, W, B) (-> Relu):
 *   xq  = QuantizeLinear(x, 2^ex, int8 0)                 [N, C, H, W]
 *   xb  = Transpose(Reshape(xq, [N/b, b, C/bi, bi, H, W]), 0 2 4 5 1 3)
 *   yb  = QConv_blocked(xb, Wq [M/bo, C/bi, KH, KW, bo, bi],
 *                       Bq = round(B / 2^(ex + ew)) for every output
 *                       element [N/b, M/bo, OH, OW, b, bo] int32) shift,
 *                       relu = 1 when the Relu is fused
 *   yq  = Reshape(Transpose(yb, 0 4 1 5 2 3), [N, M, OH, OW])
 *   y'  = DequantizeLinear(yq, 2^ey, int8 0)
 * and y' replaces y, or the fused Relu's output (same name).  Only nodes the target accepts
 * (accept(), the target's supports) are kept; the others stay float.
 * Ends with dce and toposort.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tvm/graph_passes.h"

#define QMAX 127

typedef struct cand {
  tvm_gnode *conv;
  tvm_gnode *relu; /* the Relu that is the conv's only reader, or NULL */
  double max_x, max_y; /* calibrated */
  float *xs, *ys;      /* the samples of x and y (after a fused Relu) */
  int64_t nxs, nys;
} cand;

/* A candidate: see the file comment. */
static int is_candidate(const tvm_gnode *n, const tvm_quant_scheme *s) {
  const int64_t *v = NULL;
  if (strcmp(n->op, "Conv") || n->ninputs < 2 || n->noutputs != 1)
    return 0;
  const tvm_gvalue *x = n->inputs[0], *w = n->inputs[1];
  const tvm_gvalue *b = n->ninputs > 2 ? n->inputs[2] : NULL;
  if (!x || !w || x->ndim != 4 || w->ndim != 4 ||
      !tvm_dtype_eq(x->dtype, TVM_F32) || !tvm_dtype_eq(w->dtype, TVM_F32) ||
      w->kind != TVM_GV_CONST || !w->data)
    return 0;
  if (b && (b->kind != TVM_GV_CONST || !b->data || b->ndim != 1 ||
            !tvm_dtype_eq(b->dtype, TVM_F32)))
    return 0;
  if (tvm_gnode_int(n, "group", 1) != 1)
    return 0;
  const char *ap = tvm_gnode_str(n, "auto_pad", "NOTSET");
  if (strcmp(ap, "NOTSET"))
    return 0;
  int k = tvm_gnode_ints(n, "dilations", &v);
  for (int i = 0; i < k; i++)
    if (v[i] != 1)
      return 0;
  k = tvm_gnode_ints(n, "pads", &v);
  if (k == 4 && (v[0] != v[2] || v[1] != v[3]))
    return 0;
  if (k != 4 && k != -1)
    return 0;
  return x->shape[0] % s->block_batch == 0 &&
         x->shape[1] % s->block_in == 0 && w->shape[0] % s->block_out == 0 &&
         w->shape[1] == x->shape[1];
}

/* The Relu node that is v's only reader, when v is not a graph output;
 * else NULL. */
static tvm_gnode *only_relu(const tvm_graph *g, const tvm_gvalue *v) {
  tvm_gnode *r = NULL;
  int uses = 0;
  for (size_t i = 0; i < g->outputs.len; i++)
    if (g->outputs.data[i] == v)
      return NULL;
  for (size_t i = 0; i < g->nodes.len; i++) {
    tvm_gnode *n = g->nodes.data[i];
    for (int k = 0; k < n->ninputs; k++)
      if (n->inputs[k] == v)
        uses++, r = n;
  }
  return uses == 1 && !strcmp(r->op, "Relu") ? r : NULL;
}

/* Fills t (float, or integer) like tvmc run's random inputs. */
static void fill_sample(DLTensor *t, int64_t n, uint64_t seed) {
  uint64_t r = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < n; i++) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    double u = (double)(r >> 11) / 9007199254740992.0;
    if (t->dtype.code == kDLFloat && t->dtype.bits == 32)
      ((float *)t->data)[i] = (float)(2 * u - 1);
    else if (t->dtype.code == kDLFloat && t->dtype.bits == 64)
      ((double *)t->data)[i] = 2 * u - 1;
    else if (t->dtype.bits == 8)
      ((int8_t *)t->data)[i] = (int8_t)(u * 10);
    else if (t->dtype.bits == 32)
      ((int32_t *)t->data)[i] = (int32_t)(u * 10);
    else if (t->dtype.bits == 64)
      ((int64_t *)t->data)[i] = (int64_t)(u * 10);
  }
}

static int64_t numel(const DLTensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape[d];
  return n;
}

static DLDataType dl_of(tvm_dtype t) {
  DLDataType d = {t.code, t.bits, t.lanes};
  return d;
}

/* A compact zeroed CPU tensor of v's dtype and shape (one block: the
 * DLTensor, its shape, its data), freed with tvm_free.  The graph layer
 * has no runtime (tvm/npy.h) to allocate with. */
static tvm_status alloc_like(const tvm_gvalue *v, DLTensor **out) {
  int64_t n = 1;
  for (int d = 0; d < v->ndim; d++) n *= v->shape[d];
  size_t head = sizeof(DLTensor) + sizeof(int64_t) * (size_t)(v->ndim + 1);
  head = (head + 63) & ~(size_t)63;
  size_t bytes = (size_t)n * ((v->dtype.bits * v->dtype.lanes + 7) / 8);
  char *p = tvm_calloc(1, head + (bytes ? bytes : 1));
  *out = NULL;
  if (!p)
    return tvm_diag_set(TVM_ERR_NOMEM, "quantize: out of memory for a "
                        "%zu-byte calibration tensor", bytes);
  DLTensor *t = (DLTensor *)p;
  t->shape = (int64_t *)(p + sizeof(DLTensor));
  for (int d = 0; d < v->ndim; d++) t->shape[d] = v->shape[d];
  t->ndim = v->ndim;
  t->dtype = dl_of(v->dtype);
  t->device.device_type = kDLCPU;
  t->data = p + head;
  *out = t;
  return TVM_OK;
}

/* "float32[1, 3, 224, 224]" into buf. */
static const char *type_str(tvm_dtype dt, const int64_t *shape, int ndim,
                            char buf[160]) {
  char d[32];
  size_t n = (size_t)snprintf(buf, 160, "%s[", tvm_dtype_str(dt, d));
  for (int i = 0; i < ndim && n < 160; i++)
    n += (size_t)snprintf(buf + n, 160 - n, "%s%lld", i ? ", " : "",
                          (long long)shape[i]);
  if (n < 160)
    snprintf(buf + n, 160 - n, "]");
  return buf;
}

/* Checks the caller's samples against g's inputs: present, on the CPU,
 * compact, the input's dtype and shape. */
static tvm_status check_samples(const tvm_graph *g,
                                const tvm_quant_scheme *s) {
  size_t nin = g->inputs.len;
  for (int k = 0; k < s->ncalib; k++)
    for (size_t i = 0; i < nin; i++) {
      const tvm_gvalue *v = g->inputs.data[i];
      const DLTensor *t = s->samples[(size_t)k * nin + i];
      char want[160], got[160];
      const char *name = v->name ? v->name : "?";
      if (!t || !t->data)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "quantize: calibration sample %d has no tensor "
                            "for input '%s' (%zu of %zu): give one tensor "
                            "per graph input, in the graph's input order",
                            k, name, i + 1, nin);
      if (t->device.device_type != kDLCPU || t->strides)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "quantize: calibration sample %d for input "
                            "'%s' is not a compact CPU tensor (device type "
                            "%d, strides %s): copy it into host memory "
                            "with strides NULL",
                            k, name, (int)t->device.device_type,
                            t->strides ? "set" : "NULL");
      int same = tvm_dtype_eq(t->dtype, v->dtype) && t->ndim == v->ndim;
      for (int d = 0; same && d < v->ndim; d++)
        same = t->shape[d] == v->shape[d];
      if (!same)
        return tvm_diag_set(
            TVM_ERR_INVALID,
            "quantize: calibration sample %d for input '%s': expected %s, "
            "got %s; each sample must have the graph input's dtype and "
            "shape (its batch included: give one tensor per batch)",
            k, name, type_str(v->dtype, v->shape, v->ndim, want),
            type_str(t->dtype, t->shape, t->ndim, got));
    }
  return TVM_OK;
}

/* Runs the float graph on the samples and records each candidate's
 * ranges (see the file comment). */
static tvm_status calibrate(tvm_graph *g, cand *cs, int nc,
                            const tvm_quant_scheme *s) {
  size_t nout0 = g->outputs.len, nin = g->inputs.len;
  tvm_status st = TVM_OK;
  for (int i = 0; i < nc && !st; i++) {
    if ((st = tvm_ptrvec_push(&g->outputs, cs[i].conv->inputs[0])) ||
        (st = tvm_ptrvec_push(&g->outputs, cs[i].conv->outputs[0])))
      break;
  }
  size_t nout = g->outputs.len;
  DLTensor **ins = tvm_calloc(nin + 1, sizeof *ins);
  DLTensor **outs = tvm_calloc(nout + 1, sizeof *outs);
  if (!st && (!ins || !outs))
    st = tvm_diag_set(TVM_ERR_NOMEM, "quantize: out of memory");
  for (size_t i = 0; i < nin && !st; i++) {
    const tvm_gvalue *v = g->inputs.data[i];
    st = alloc_like(v, &ins[i]);
  }
  for (size_t i = 0; i < nout && !st; i++) {
    const tvm_gvalue *v = g->outputs.data[i];
    st = alloc_like(v, &outs[i]);
  }
  for (int k = 0; k < s->ncalib && !st; k++) {
    for (size_t i = 0; i < nin; i++) {
      const DLTensor *t = s->samples ? s->samples[(size_t)k * nin + i] : NULL;
      if (t) /* checked: same dtype and shape */
        memcpy(ins[i]->data, (const char *)t->data + t->byte_offset,
               (size_t)numel(t) * ((t->dtype.bits * t->dtype.lanes + 7) / 8));
      else
        fill_sample(ins[i], numel(ins[i]), s->seed + (uint64_t)k * 7919 + i);
    }
    st = tvm_graph_eval_reference(g, (const DLTensor *const *)ins, outs);
    if (st)
      break;
    for (int c = 0; c < nc; c++) {
      const DLTensor *x = outs[nout0 + 2 * (size_t)c];
      const DLTensor *y = outs[nout0 + 2 * (size_t)c + 1];
      int64_t nx = numel(x), ny = numel(y);
      if (!cs[c].xs) {
        cs[c].xs = tvm_malloc((size_t)(nx * s->ncalib) * sizeof(float));
        cs[c].ys = tvm_malloc((size_t)(ny * s->ncalib) * sizeof(float));
        if (!cs[c].xs || !cs[c].ys) {
          st = tvm_diag_set(TVM_ERR_NOMEM, "quantize: out of memory");
          break;
        }
      }
      for (int64_t i = 0; i < nx; i++) {
        float v = ((const float *)x->data)[i];
        cs[c].xs[cs[c].nxs++] = v;
        if (fabs(v) > cs[c].max_x)
          cs[c].max_x = fabs(v);
      }
      for (int64_t i = 0; i < ny; i++) {
        double v = ((const float *)y->data)[i];
        if (cs[c].relu && v < 0)
          v = 0;
        cs[c].ys[cs[c].nys++] = (float)v;
        if (fabs(v) > cs[c].max_y)
          cs[c].max_y = fabs(v);
      }
    }
  }
  for (size_t i = 0; ins && i < nin; i++)
    tvm_free(ins[i]);
  for (size_t i = 0; outs && i < nout; i++)
    tvm_free(outs[i]);
  tvm_free(ins);
  tvm_free(outs);
  g->outputs.len = nout0;
  if (st)
    return tvm_diag_prefix(st, "quantize: calibration on the float graph: ");
  return TVM_OK;
}

/* The power-of-two exponent e with m / 2^e <= 127 (0 for m = 0). */
static int exponent(double m) {
  if (!(m > 0))
    return 0;
  return (int)ceil(log2(m / QMAX));
}

/* Among e0 (no value clips) and the four finer exponents, the one whose
 * quantization of the n values v has the least squared error. */
static int best_exponent(const float *v, int64_t n, double max) {
  int e0 = exponent(max), best = e0;
  double best_err = -1;
  for (int e = e0; e >= e0 - 4; e--) {
    double err = 0, q = ldexp(1.0, e);
    for (int64_t i = 0; i < n; i++) {
      double r = nearbyint(v[i] / q);
      r = r < -QMAX ? -QMAX : r > QMAX ? QMAX : r;
      double d = v[i] - r * q;
      err += d * d;
    }
    if (best_err < 0 || err < best_err)
      best_err = err, best = e;
  }
  return best;
}

static const char *nm(tvm_graph *g, const tvm_gnode *n, const char *suffix) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s.%s", n->name ? n->name : n->op, suffix);
  return tvm_arena_strdup(g->arena, buf);
}

/* A float32 scalar constant 2^e and an int8 zero. */
static void scale_zp(tvm_graph *g, const tvm_gnode *n, const char *what,
                     int e, tvm_gvalue **scale, tvm_gvalue **zp) {
  float f = (float)ldexp(1.0, e);
  int8_t z = 0;
  char buf[64];
  snprintf(buf, sizeof buf, "%s_scale", what);
  *scale = tvm_graph_const(g, nm(g, n, buf), TVM_F32, NULL, 0, &f);
  snprintf(buf, sizeof buf, "%s_zp", what);
  *zp = tvm_graph_const(g, nm(g, n, buf), TVM_I8, NULL, 0, &z);
}

/* Rewrites candidate c (see the file comment); *done = 1 when the target
 * accepted it and it replaced the Conv. */
static tvm_status rewrite(tvm_graph *g, cand *c, const tvm_quant_scheme *s,
                          tvm_quant_accept_fn accept, void *ud, int *done) {
  tvm_gnode *n = c->conv;
  tvm_gvalue *x = n->inputs[0], *w = n->inputs[1];
  tvm_gvalue *b = n->ninputs > 2 ? n->inputs[2] : NULL;
  tvm_gvalue *y = n->outputs[0];
  int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
  int64_t M = w->shape[0], KH = w->shape[2], KW = w->shape[3];
  int64_t B = s->block_batch, BI = s->block_in, BO = s->block_out;
  *done = 0;
  /* weights: max |w|, then int8 in [M/bo, C/bi, KH, KW, bo, bi] */
  const float *wd = w->data;
  int64_t nw = M * C * KH * KW;
  double mw = 0;
  for (int64_t i = 0; i < nw; i++)
    if (fabs(wd[i]) > mw)
      mw = fabs(wd[i]);
  int ex = best_exponent(c->xs, c->nxs, c->max_x);
  int ew = best_exponent(wd, nw, mw);
  int ey = best_exponent(c->ys, c->nys, c->max_y);
  int shift = ey - ex - ew;
  if (shift < 0)
    shift = 0, ey = ex + ew;
  if (shift > 31)
    shift = 31, ey = ex + ew + 31;
  int8_t *wq = tvm_malloc((size_t)nw);
  if (!wq)
    return tvm_diag_set(TVM_ERR_NOMEM, "quantize: out of memory");
  for (int64_t m = 0; m < M; m++)
    for (int64_t ch = 0; ch < C; ch++)
      for (int64_t ky = 0; ky < KH; ky++)
        for (int64_t kx = 0; kx < KW; kx++) {
          double q = nearbyint(ldexp(wd[((m * C + ch) * KH + ky) * KW + kx], -ew));
          q = q < -QMAX ? -QMAX : q > QMAX ? QMAX : q;
          wq[(((((m / BO) * (C / BI) + ch / BI) * KH + ky) * KW + kx) * BO +
              m % BO) * BI + ch % BI] = (int8_t)q;
        }
  int64_t wshape[6] = {M / BO, C / BI, KH, KW, BO, BI};
  tvm_gvalue *wv = tvm_graph_const(g, nm(g, n, "wq"), TVM_I8, wshape, 6, wq);
  tvm_free(wq);
  /* the bias at the sum's scale 2^(ex + ew), for every output element */
  int64_t OH = y->shape[2], OW = y->shape[3];
  int64_t yshape[6] = {N / B, M / BO, OH, OW, B, BO};
  tvm_gvalue *bv = NULL;
  if (b) {
    int64_t nb = N * M * OH * OW;
    int32_t *bq = tvm_malloc((size_t)nb * sizeof *bq);
    if (!bq)
      return tvm_diag_set(TVM_ERR_NOMEM, "quantize: out of memory");
    const float *bd = b->data;
    for (int64_t i = 0; i < nb; i++) { /* i over [N/b, M/bo, OH, OW, b, bo] */
      int64_t m = (i / (OH * OW * B * BO)) % (M / BO) * BO + i % BO;
      double q = nearbyint(ldexp(bd[m], -(ex + ew)));
      bq[i] = (int32_t)(q < -2147483648.0 ? -2147483648.0
                        : q > 2147483647.0 ? 2147483647.0 : q);
    }
    bv = tvm_graph_const(g, nm(g, n, "bq"), TVM_I32, yshape, 6, bq);
    tvm_free(bq);
  }

  tvm_gvalue *sx, *zx, *sy, *zy;
  scale_zp(g, n, "x", ex, &sx, &zx);
  scale_zp(g, n, "y", ey, &sy, &zy);
  tvm_gvalue *xq = tvm_graph_apply(g, "QuantizeLinear", nm(g, n, "xq"),
                                   TVM_IN(x, sx, zx), NULL, 0, 1, NULL);
  int64_t s1[6] = {N / B, B, C / BI, BI, H, W};
  tvm_gvalue *s1v = tvm_graph_const(g, nm(g, n, "xshape"), TVM_I64,
                                    (int64_t[]){6}, 1, s1);
  tvm_gvalue *xr = tvm_graph_apply(g, "Reshape", nm(g, n, "xr"),
                                   TVM_IN(xq, s1v), NULL, 0, 1, NULL);
  static const int64_t p_in[6] = {0, 2, 4, 5, 1, 3};
  static const int64_t p_out[6] = {0, 4, 1, 5, 2, 3};
  tvm_gvalue *xb = tvm_graph_apply(
      g, "Transpose", nm(g, n, "xb"), TVM_IN(xr),
      TVM_ATTRS(tvm_gattr_ints("perm", p_in, 6)), 1, NULL);
  int64_t st2[2] = {1, 1}, pads[4] = {0, 0, 0, 0};
  const int64_t *v = NULL;
  if (tvm_gnode_ints(n, "strides", &v) == 2)
    st2[0] = v[0], st2[1] = v[1];
  if (tvm_gnode_ints(n, "pads", &v) == 4)
    memcpy(pads, v, sizeof pads);
  tvm_gnode *qn = NULL;
  tvm_gvalue *qin[3] = {xb, wv, bv};
  tvm_gattr qat[4] = {tvm_gattr_ints("strides", st2, 2),
                      tvm_gattr_ints("pads", pads, 4),
                      tvm_gattr_int("shift", shift),
                      tvm_gattr_int("relu", c->relu != NULL)};
  tvm_gvalue *yb = tvm_graph_apply(g, "QConv_blocked", nm(g, n, "qconv"), qin,
                                   bv ? 3 : 2, qat, 4, 1, &qn);
  tvm_status st = tvm_graph_status(g);
  if (st)
    return tvm_diag_prefix(st, "quantize: node '%s': ", n->name);
  int yes = 0;
  if ((st = accept(ud, qn, &yes)))
    return st;
  if (!yes)
    return TVM_OK; /* the new nodes read x but nothing reads them: dce */
  tvm_gvalue *yt = tvm_graph_apply(
      g, "Transpose", nm(g, n, "yt"), TVM_IN(yb),
      TVM_ATTRS(tvm_gattr_ints("perm", p_out, 6)), 1, NULL);
  int64_t s2[4] = {N, M, OH, OW};
  tvm_gvalue *s2v = tvm_graph_const(g, nm(g, n, "yshape"), TVM_I64,
                                    (int64_t[]){4}, 1, s2);
  tvm_gvalue *yr = tvm_graph_apply(g, "Reshape", nm(g, n, "yr"),
                                   TVM_IN(yt, s2v), NULL, 0, 1, NULL);
  tvm_gvalue *yd = tvm_graph_apply(g, "DequantizeLinear", nm(g, n, "yd"),
                                   TVM_IN(yr, sy, zy), NULL, 0, 1, NULL);
  if ((st = tvm_graph_status(g)))
    return tvm_diag_prefix(st, "quantize: node '%s': ", n->name);
  /* yd replaces the Relu's output when the Relu is fused, else y's */
  tvm_gvalue *old = c->relu ? c->relu->outputs[0] : y;
  tvm_graph_replace_uses(g, old, yd);
  yd->name = old->name;
  old->name = nm(g, n, "float");
  *done = 1;
  return TVM_OK;
}

tvm_status tvm_graph_pass_quantize(tvm_graph *g, const tvm_quant_scheme *s,
                                   tvm_quant_accept_fn accept, void *ud,
                                   int *nquantized) {
  tvm_status st = tvm_graph_status(g);
  if (nquantized)
    *nquantized = 0;
  if (st)
    return st;
  if (!s || !accept || s->block_batch < 1 || s->block_in < 1 ||
      s->block_out < 1 || s->ncalib < 1)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "quantize: blocks and sample count must be >= 1");
  if (s->samples && (st = check_samples(g, s)))
    return st;
  if ((st = tvm_graph_toposort(g)))
    return st;
  int nc = 0;
  cand *cs = tvm_calloc(g->nodes.len + 1, sizeof *cs);
  if (!cs)
    return tvm_diag_set(TVM_ERR_NOMEM, "quantize: out of memory");
  for (size_t i = 0; i < g->nodes.len; i++)
    if (is_candidate(g->nodes.data[i], s)) {
      cs[nc].conv = g->nodes.data[i];
      cs[nc].relu = only_relu(g, cs[nc].conv->outputs[0]);
      nc++;
    }
  if (nc)
    st = calibrate(g, cs, nc, s);
  int done = 0;
  for (int i = 0; i < nc && !st; i++) {
    int d = 0;
    st = rewrite(g, &cs[i], s, accept, ud, &d);
    done += d;
  }
  for (int i = 0; i < nc; i++) {
    tvm_free(cs[i].xs);
    tvm_free(cs[i].ys);
  }
  tvm_free(cs);
  if (!st)
    st = tvm_graph_pass_dce(g);
  if (!st)
    st = tvm_graph_toposort(g);
  if (!st && nquantized)
    *nquantized = done;
  return st;
}
