/*
 * core/graph/ops/rnn.c - what the recurrent operators share (the
 * activation functions of their "activations" attribute, the checks of
 * inputs 0..5 and of the common attributes), and the GRU and RNN
 * operators (ONNX, layout 0, like LSTM in lstm.c):
 *
 *   RNN: H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb)   (f default Tanh)
 *   GRU: z = f(X Wz^T + H Rz^T + Wbz + Rbz), r = f(... r gate ...),
 *        h~ = g(X Wh^T + (r * H) Rh^T + Rbh + Wbh)     linear_before_reset 0
 *        h~ = g(X Wh^T + r * (H Rh^T + Rbh) + Wbh)     linear_before_reset 1
 *        H_t = (1 - z) * h~ + z * H_{t-1}         (f Sigmoid, g Tanh)
 *
 * Gate order in W, R, B: z, r, h.  Outputs Y [seq, dirs, batch, H] and
 * Y_h [dirs, batch, H], each optional.  "activations" is one
 * comma-separated string attribute (the graph has no list of strings).
 *
 * Compute, unrolled over the sequence: "<name>.xw" = X W^T for every
 * step; per direction and step "<name>.hr<d>_<s>" = H_prev R^T (left out
 * while H_prev is the zero initial state), for GRU with
 * linear_before_reset 0 "<name>.r<d>_<s>" (the reset gate) and
 * "<name>.hh<d>_<s>" = (r * H_prev) Rh^T, then "<name>.h<d>_<s>".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

/* ---- activations ------------------------------------------------------ */
typedef enum {
  A_SIGMOID,
  A_TANH,
  A_RELU,
  A_AFFINE,
  A_LEAKY,
  A_TRELU,
  A_STANH,
  A_HSIG,
  A_ELU,
  A_SOFTSIGN,
  A_SOFTPLUS
} act_kind;

static const struct {
  const char *name;
  act_kind k;
  int nparams;
  double a, b; /* defaults */
} acts[] = {
    {"Sigmoid", A_SIGMOID, 0, 0, 0},
    {"Tanh", A_TANH, 0, 0, 0},
    {"Relu", A_RELU, 0, 0, 0},
    {"Affine", A_AFFINE, 2, 1, 0},
    {"LeakyRelu", A_LEAKY, 1, 0.01, 0},
    {"ThresholdedRelu", A_TRELU, 1, 1, 0},
    {"ScaledTanh", A_STANH, 2, 1, 1},
    {"HardSigmoid", A_HSIG, 2, 0.2, 0.5},
    {"Elu", A_ELU, 1, 1, 0},
    {"Softsign", A_SOFTSIGN, 0, 0, 0},
    {"Softplus", A_SOFTPLUS, 0, 0, 0},
};
#define NACTS ((int)(sizeof acts / sizeof acts[0]))

/* Reference of a recurrent activation on one value. */
double op_rnn_act_ref(const rnn_act *f, double x) {
  switch (f->k) {
  case A_SIGMOID:
    return 1 / (1 + exp(-x));
  case A_TANH:
    return tanh(x);
  case A_RELU:
    return x > 0 ? x : 0;
  case A_AFFINE:
    return f->a * x + f->b;
  case A_LEAKY:
    return x >= 0 ? x : f->a * x;
  case A_TRELU:
    return x > f->a ? x : 0;
  case A_STANH:
    return f->a * tanh(f->b * x);
  case A_HSIG: {
    double v = f->a * x + f->b;
    return v < 0 ? 0 : v > 1 ? 1 : v;
  }
  case A_ELU:
    return x >= 0 ? x : f->a * (exp(x) - 1);
  case A_SOFTSIGN:
    return x / (1 + fabs(x));
  case A_SOFTPLUS:
    return log(1 + exp(x));
  }
  return x;
}

/* Tensor expression of a recurrent activation applied to x. */
tvm_expr *op_rnn_act_te(tvm_ctx *c, const rnn_act *f, tvm_expr *x) {
  if (!x)
    return NULL;
  tvm_dtype t = x->dtype;
  tvm_expr *zero = op_te_const(c, t, 0), *one = op_te_const(c, t, 1);
  switch (f->k) {
  case A_SIGMOID:
    return tvm_math(c, TVM_INTRIN_SIGMOID, x);
  case A_TANH:
    return tvm_math(c, TVM_INTRIN_TANH, x);
  case A_RELU:
    return tvm_max(c, x, zero);
  case A_AFFINE:
    return tvm_add(c, tvm_mul(c, x, op_te_const(c, t, f->a)),
                   op_te_const(c, t, f->b));
  case A_LEAKY:
    return tvm_select(c, tvm_ge(c, x, zero), x,
                      tvm_mul(c, x, op_te_const(c, t, f->a)));
  case A_TRELU:
    return tvm_select(c, tvm_gt(c, x, op_te_const(c, t, f->a)), x, zero);
  case A_STANH:
    return tvm_mul(
        c, op_te_const(c, t, f->a),
        tvm_math(c, TVM_INTRIN_TANH, tvm_mul(c, x, op_te_const(c, t, f->b))));
  case A_HSIG:
    return tvm_max(c,
                   tvm_min(c,
                           tvm_add(c, tvm_mul(c, x, op_te_const(c, t, f->a)),
                                   op_te_const(c, t, f->b)),
                           one),
                   zero);
  case A_ELU:
    return tvm_select(c, tvm_ge(c, x, zero), x,
                      tvm_mul(c, op_te_const(c, t, f->a),
                              tvm_sub(c, tvm_math(c, TVM_INTRIN_EXP, x), one)));
  case A_SOFTSIGN:
    return tvm_div(c, x, tvm_add(c, one, tvm_math(c, TVM_INTRIN_FABS, x)));
  case A_SOFTPLUS:
    return tvm_math(c, TVM_INTRIN_LOG,
                    tvm_add(c, one, tvm_math(c, TVM_INTRIN_EXP, x)));
  }
  return NULL;
}

/* v has exactly the shape s. */
int op_rnn_has_shape(const tvm_gvalue *v, int nd, const int64_t *s) {
  if (v->ndim != nd)
    return 0;
  for (int d = 0; d < nd; d++)
    if (v->shape[d] != s[d])
      return 0;
  return 1;
}

/* Reads activations / activation_alpha / activation_beta into ri->act
 * (`per` names per direction, defaults dflt). */
static tvm_status parse_acts(const tvm_gnode *n, int per,
                             const char *const *dflt, rnn_info *ri) {
  const char *s;
  tvm_status st = op_attr_str(n, "activations", NULL, &s);
  if (st)
    return st;
  const tvm_gattr *al = NULL, *be = NULL;
  for (int i = 0; i < n->nattrs; i++) {
    if (strcmp(n->attrs[i].name, "activation_alpha") == 0)
      al = &n->attrs[i];
    if (strcmp(n->attrs[i].name, "activation_beta") == 0)
      be = &n->attrs[i];
  }
  if ((al && al->type != TVM_GATTR_FLOATS) ||
      (be && be->type != TVM_GATTR_FLOATS))
    return op_fail(n, TVM_ERR_INVALID,
                   "attributes 'activation_alpha'/'activation_beta' must be "
                   "lists of floats");
  int ai = 0, bi = 0;
  for (int k = 0; k < per * ri->dirs; k++) {
    const char *name = dflt[k % per];
    char buf[32];
    if (s) {
      const char *e = strchr(s, ',');
      size_t len = e ? (size_t)(e - s) : strlen(s);
      if (len == 0 || len >= sizeof buf)
        return op_fail(n, TVM_ERR_INVALID,
                       "attribute 'activations' must list %d names separated "
                       "by commas (%d per direction)",
                       per * ri->dirs, per);
      memcpy(buf, s, len);
      buf[len] = 0;
      name = buf;
      s = e ? e + 1 : NULL;
      if (!e && k + 1 < per * ri->dirs)
        return op_fail(n, TVM_ERR_INVALID,
                       "attribute 'activations' lists %d names; give %d (%d "
                       "per direction)",
                       k + 1, per * ri->dirs, per);
    }
    int j = 0;
    while (j < NACTS && strcmp(acts[j].name, name) != 0)
      j++;
    if (j == NACTS)
      return op_fail(n, TVM_ERR_UNSUPPORTED,
                     "activation \"%s\" is not supported (use Sigmoid, Tanh, "
                     "Relu, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
                     "HardSigmoid, Elu, Softsign or Softplus)",
                     name);
    rnn_act a = {acts[j].k, acts[j].a, acts[j].b};
    if (acts[j].nparams >= 1 && al && ai < al->n)
      a.a = al->floats[ai++];
    if (acts[j].nparams >= 2 && be && bi < be->n)
      a.b = be->floats[bi++];
    ri->act[k / per][k % per] = a;
  }
  if (s)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'activations' lists more than %d names",
                   per * ri->dirs);
  return TVM_OK;
}

/* Validates the inputs and attributes every recurrent op shares. */
tvm_status op_rnn_check(const tvm_gnode *n, int gates, int per,
                     const char *const *dflt, rnn_info *li) {
  static const char *const what[] = {"X",        "W", "R", "B", "sequence_lens",
                                     "initial_h"};
  tvm_status st;
  const tvm_gvalue *v[6] = {0};
  for (int i = 0; i < 6; i++) {
    if (i < 3)
      st = op_check_dtype(n, i, what[i], DT_F32);
    else
      st =
          op_opt_input(n, i, what[i], i == 4 ? DT_I32 | DT_I64 : DT_F32, &v[i]);
    if (st)
      return st;
    if (i < 3)
      v[i] = n->inputs[i];
  }
  memset(li, 0, sizeof *li);
  int64_t hs, layout;
  const char *dir;
  if ((st = op_attr_int(n, "hidden_size", -1, &hs)) ||
      (st = op_attr_int(n, "layout", 0, &layout)) ||
      (st = op_attr_str(n, "direction", "forward", &dir)) ||
      (st = op_attr_float(n, "clip", 0.0, &li->clip)))
    return st;
  if (layout != 0)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "attribute 'layout' = %lld; only layout 0 (seq, batch, "
                   "...) is supported: transpose the input instead",
                   (long long)layout);
  if (strcmp(dir, "forward") == 0 || strcmp(dir, "reverse") == 0)
    li->dirs = 1;
  else if (strcmp(dir, "bidirectional") == 0)
    li->dirs = 2;
  else
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'direction' = \"%s\"; use forward, reverse or "
                   "bidirectional",
                   dir);
  li->reverse = strcmp(dir, "reverse") == 0;
  if ((st = parse_acts(n, per, dflt, li)))
    return st;
  const tvm_gvalue *x = v[0];
  if (x->ndim != 3)
    return op_fail(n, TVM_ERR_INVALID,
                   "X must be 3-D [seq_length, batch_size, input_size]");
  li->seq = x->shape[0];
  li->batch = x->shape[1];
  li->in = x->shape[2];
  if (hs < 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'hidden_size' is required (a positive int)");
  li->H = hs;
  if (li->seq < 1 || li->seq > RNN_MAX_SEQ)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "sequence length %lld; 1 to %d are supported (the compute "
                   "is unrolled)",
                   (long long)li->seq, RNN_MAX_SEQ);
  int64_t D = li->dirs, H = li->H;
  int64_t G = gates;
  int64_t ws[] = {D, G * H, li->in}, rs[] = {D, G * H, H},
          bs[] = {D, 2 * G * H}, hs3[] = {D, li->batch, H};
  if (!op_rnn_has_shape(v[1], 3, ws))
    return op_fail(n, TVM_ERR_INVALID,
                   "W must be [%lld, %lld, %lld] (directions, %d * "
                   "hidden_size, input_size)",
                   (long long)D, (long long)(G * H), (long long)li->in, gates);
  if (!op_rnn_has_shape(v[2], 3, rs))
    return op_fail(n, TVM_ERR_INVALID,
                   "R must be [%lld, %lld, %lld] (directions, %d * "
                   "hidden_size, hidden_size)",
                   (long long)D, (long long)(G * H), (long long)H, gates);
  if (v[3] && !op_rnn_has_shape(v[3], 2, bs))
    return op_fail(n, TVM_ERR_INVALID, "B must be [%lld, %lld]", (long long)D,
                   (long long)(2 * G * H));
  if (v[5] && !op_rnn_has_shape(v[5], 3, hs3))
    return op_fail(n, TVM_ERR_INVALID, "initial_h must be [%lld, %lld, %lld]",
                   (long long)D, (long long)li->batch, (long long)H);
  if (v[4]) {
    int64_t lens[256];
    int cnt;
    if (li->batch > 256 ||
        (st = op_const_ints(n, 4, "sequence_lens", lens, 256, &cnt)))
      return st ? st
                : op_fail(n, TVM_ERR_UNSUPPORTED,
                          "sequence_lens with a batch "
                          "above 256");
    for (int k = 0; k < cnt; k++)
      if (lens[k] != li->seq)
        return op_fail(n, TVM_ERR_UNSUPPORTED,
                       "sequence_lens[%d] = %lld differs from the sequence "
                       "length %lld; variable lengths are not supported",
                       k, (long long)lens[k], (long long)li->seq);
  }
  li->has_b = v[3] != NULL;
  li->has_h0 = v[5] != NULL;
  return TVM_OK;
}

/* ---- GRU and RNN ------------------------------------------------------ */
typedef struct cell_ud {
  rnn_info ri;
  int gru, lbr, G; /* GRU?, linear_before_reset, gates */
  tvm_tensor *X, *W, *R, *B, *h0, *xw;
  int d;     /* direction of the step being declared */
  int64_t t; /* its time */
  tvm_tensor *hprev, *hr, *r, *hh;
  tvm_tensor *hs[2][RNN_MAX_SEQ]; /* hidden states by time */
} cell_ud;

/* Validates GRU / RNN; fills ri and the GRU flags. */
static tvm_status cell_check(const tvm_gnode *n, rnn_info *ri, int *gru,
                             int *lbr) {
  static const char *const gdf[] = {"Sigmoid", "Tanh"}, *const rdf[] = {"Tanh"};
  int64_t v = 0;
  tvm_status st;
  *gru = strcmp(n->op, "GRU") == 0;
  if (*gru && (st = op_attr_int(n, "linear_before_reset", 0, &v)))
    return st;
  *lbr = v != 0;
  return op_rnn_check(n, *gru ? 3 : 1, *gru ? 2 : 1, *gru ? gdf : rdf, ri);
}

/* Infer: validates the node (naming the attribute and the fix) and sets
 * Y [seq, dirs, batch, H] and Y_h [dirs, batch, H]. */
static tvm_status cell_infer(tvm_graph *g, tvm_gnode *n) {
  rnn_info ri;
  int gru, lbr;
  tvm_status st = cell_check(n, &ri, &gru, &lbr);
  if (st)
    return st;
  int64_t y[4] = {ri.seq, ri.dirs, ri.batch, ri.H};
  op_set_out(n, 0, TVM_F32, 4, y);
  op_set_out(n, 1, TVM_F32, 3, y + 1);
  return TVM_OK;
}

/* xw[d, t, b, g] = sum over k of X[t, b, k] * W[d, g, k]. */
static tvm_expr *cell_xw(tvm_ctx *c, tvm_expr **i, void *ud) {
  cell_ud *u = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, u->ri.in);
  if (!k)
    return NULL;
  return tvm_sum(c,
                 tvm_mul(c, TVM_AT(c, u->X, i[1], i[2], k->var),
                         TVM_AT(c, u->W, i[0], i[3], k->var)),
                 &k, 1);
}

/* H_prev[b, k]: the previous step or initial_h (a zero state is never
 * read: the callers leave its terms out). */
static tvm_expr *cell_hprev(tvm_ctx *c, cell_ud *u, tvm_expr *b, tvm_expr *k) {
  if (u->hprev)
    return TVM_AT(c, u->hprev, b, k);
  return TVM_AT(c, u->h0, tvm_int(c, u->d), b, k);
}

/* hr[b, g] = sum over k of H_prev[b, k] * R[d, g, k]. */
static tvm_expr *cell_hr(tvm_ctx *c, tvm_expr **i, void *ud) {
  cell_ud *u = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, u->ri.H);
  if (!k)
    return NULL;
  return tvm_sum(c,
                 tvm_mul(c, cell_hprev(c, u, i[0], k->var),
                         TVM_AT(c, u->R, tvm_int(c, u->d), i[1], k->var)),
                 &k, 1);
}

/* a + b where b may be NULL (a zero term). */
static tvm_expr *add_opt(tvm_ctx *c, tvm_expr *a, tvm_expr *b) {
  return b ? tvm_add(c, a, b) : a;
}

/* Term of gate q at [b, j]: which = 0 X W^T, 1 H R^T (NULL without a
 * previous state), 2 Wb, 3 Rb (NULL without B). */
static tvm_expr *term(tvm_ctx *c, cell_ud *u, int which, int q, tvm_expr *b,
                      tvm_expr *j) {
  int64_t H = u->ri.H;
  tvm_expr *g = tvm_add(c, j, tvm_int(c, q * H)), *d = tvm_int(c, u->d);
  switch (which) {
  case 0:
    return TVM_AT(c, u->xw, d, tvm_int(c, u->t), b, g);
  case 1:
    return u->hr ? TVM_AT(c, u->hr, b, g) : NULL;
  case 2:
    return u->B ? TVM_AT(c, u->B, d, g) : NULL;
  default:
    return u->B ? TVM_AT(c, u->B, d, tvm_add(c, j, tvm_int(c, (u->G + q) * H)))
                : NULL;
  }
}

/* v clipped to [-clip, clip] when clip is set. */
static tvm_expr *cell_clip(tvm_ctx *c, cell_ud *u, tvm_expr *v) {
  if (u->ri.clip <= 0 || !v)
    return v;
  return tvm_min(c, tvm_max(c, v, op_te_const(c, v->dtype, -u->ri.clip)),
                 op_te_const(c, v->dtype, u->ri.clip));
}

/* f(x W^T + h R^T + Wb + Rb) of gate q (z or r for GRU, the only one
 * for RNN). */
static tvm_expr *full_gate(tvm_ctx *c, cell_ud *u, int q, tvm_expr *b,
                           tvm_expr *j) {
  tvm_expr *v = term(c, u, 0, q, b, j);
  for (int w = 1; w < 4; w++)
    v = add_opt(c, v, term(c, u, w, q, b, j));
  return op_rnn_act_te(c, &u->ri.act[u->d][0], cell_clip(c, u, v));
}

/* GRU reset gate r[b, k] (linear_before_reset 0). */
static tvm_expr *cell_r(tvm_ctx *c, tvm_expr **i, void *ud) {
  return full_gate(c, ud, 1, i[0], i[1]);
}

/* hh[b, j] = sum over k of r[b, k] * H_prev[b, k] * Rh[d, j, k]. */
static tvm_expr *cell_hh(tvm_ctx *c, tvm_expr **i, void *ud) {
  cell_ud *u = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, u->ri.H);
  if (!k)
    return NULL;
  tvm_expr *rh =
      tvm_mul(c, TVM_AT(c, u->r, i[0], k->var), cell_hprev(c, u, i[0], k->var));
  tvm_expr *g = tvm_add(c, i[1], tvm_int(c, 2 * u->ri.H));
  return tvm_sum(
      c, tvm_mul(c, rh, TVM_AT(c, u->R, tvm_int(c, u->d), g, k->var)), &k, 1);
}

/* The new hidden state H_t[b, j]. */
static tvm_expr *cell_h(tvm_ctx *c, tvm_expr **i, void *ud) {
  cell_ud *u = ud;
  tvm_expr *b = i[0], *j = i[1];
  if (!u->gru)
    return full_gate(c, u, 0, b, j);
  tvm_expr *z = full_gate(c, u, 0, b, j), *pre;
  if (!u->lbr) {
    pre = add_opt(c, term(c, u, 0, 2, b, j), term(c, u, 2, 2, b, j));
    pre = add_opt(c, pre, term(c, u, 3, 2, b, j));
    pre = add_opt(c, pre, u->hh ? TVM_AT(c, u->hh, b, j) : NULL);
  } else {
    tvm_expr *r = full_gate(c, u, 1, b, j);
    tvm_expr *lin = term(c, u, 1, 2, b, j), *rb = term(c, u, 3, 2, b, j);
    lin = lin ? add_opt(c, lin, rb) : rb;
    pre = add_opt(c, term(c, u, 0, 2, b, j), term(c, u, 2, 2, b, j));
    pre = add_opt(c, pre, lin ? tvm_mul(c, r, lin) : NULL);
  }
  tvm_expr *ht = op_rnn_act_te(c, &u->ri.act[u->d][1], cell_clip(c, u, pre));
  if (!z || !ht)
    return NULL;
  tvm_expr *v = tvm_mul(c, tvm_sub(c, op_te_const(c, z->dtype, 1), z), ht);
  if (u->hprev || u->h0)
    v = tvm_add(c, v, tvm_mul(c, z, cell_hprev(c, u, b, j)));
  return v;
}

/* Y[t, d, b, h]: a select over (t, d) of the per-step states. */
tvm_expr *op_rnn_te_y(tvm_ctx *c, tvm_expr **i, tvm_tensor *const st[][RNN_MAX_SEQ],
                   int dirs, int64_t seq) {
  tvm_expr *acc = NULL;
  for (int d = dirs - 1; d >= 0; d--)
    for (int64_t t = seq - 1; t >= 0; t--) {
      tvm_expr *v = TVM_AT(c, st[d][t], i[2], i[3]);
      if (!acc) {
        acc = v;
        continue;
      }
      tvm_expr *cond = tvm_eq(c, i[0], tvm_int(c, t));
      if (dirs > 1)
        cond = tvm_and(c, cond, tvm_eq(c, i[1], tvm_int(c, d)));
      acc = tvm_select(c, cond, v, acc);
    }
  return acc;
}

/* Y_h[d, b, h]: the state after the last step of each direction. */
tvm_expr *op_rnn_te_last(tvm_ctx *c, tvm_expr **i,
                      tvm_tensor *const st[][RNN_MAX_SEQ], int dirs,
                      int64_t seq, int reverse) {
  tvm_expr *acc = NULL;
  for (int d = dirs - 1; d >= 0; d--) {
    int64_t last = (d == 1 || reverse) ? 0 : seq - 1;
    tvm_expr *v = TVM_AT(c, st[d][last], i[1], i[2]);
    acc = acc ? tvm_select(c, tvm_eq(c, i[0], tvm_int(c, d)), v, acc) : v;
  }
  return acc;
}

static tvm_expr *cell_y(tvm_ctx *c, tvm_expr **i, void *ud) {
  cell_ud *u = ud;
  return op_rnn_te_y(c, i, u->hs, u->ri.dirs, u->ri.seq);
}

static tvm_expr *cell_yh(tvm_ctx *c, tvm_expr **i, void *ud) {
  cell_ud *u = ud;
  return op_rnn_te_last(c, i, u->hs, u->ri.dirs, u->ri.seq, u->ri.reverse);
}

/* A per-step tensor "<name>.<what><d>_<s>" of shape [batch, cols]. */
static tvm_tensor *step_tensor(tvm_ctx *c, const tvm_gnode *n, cell_ud *u,
                               const char *what, int64_t s, int64_t cols,
                               tvm_compute_fn fn) {
  char nm[48];
  snprintf(nm, sizeof nm, "%s%d_%lld", what, u->d, (long long)s);
  int64_t shape[2] = {u->ri.batch, cols};
  tvm_tensor *t = tvm_compute(c, op_te_name(c, n, nm), shape, 2, fn, u);
  if (t)
    tvm_tensor_set_tag(t, "rnn_cell");
  return t;
}

/* Compute: the unrolled network (see the top of the file). */
static tvm_status cell_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                               tvm_tensor **out) {
  cell_ud *u = tvm_ctx_alloc(c, sizeof *u);
  if (!u)
    return op_te_status(c, n, NULL);
  tvm_status st = cell_check(n, &u->ri, &u->gru, &u->lbr);
  if (st)
    return st;
  rnn_info *ri = &u->ri;
  int64_t H = ri->H;
  u->G = u->gru ? 3 : 1;
  u->X = in[0];
  u->W = in[1];
  u->R = in[2];
  u->B = ri->has_b ? in[3] : NULL;
  u->h0 = ri->has_h0 ? in[5] : NULL;
  int64_t xs[4] = {ri->dirs, ri->seq, ri->batch, u->G * H};
  u->xw = tvm_compute(c, op_te_name(c, n, "xw"), xs, 4, cell_xw, u);
  if ((st = op_te_status(c, n, u->xw)))
    return st;
  tvm_tensor_set_tag(u->xw, "rnn_input_gates");
  /* H R^T rows: GRU without linear_before_reset multiplies Rh by r * H */
  int64_t rows = u->gru && !u->lbr ? 2 * H : u->G * H;
  for (int d = 0; d < ri->dirs; d++) {
    u->d = d;
    u->hprev = NULL;
    int back = d == 1 || ri->reverse;
    for (int64_t s = 0; s < ri->seq; s++) {
      int has_prev = u->hprev || u->h0;
      u->t = back ? ri->seq - 1 - s : s;
      u->hr = u->r = u->hh = NULL;
      if (has_prev &&
          (st = op_te_status(
               c, n, u->hr = step_tensor(c, n, u, "hr", s, rows, cell_hr))))
        return st;
      if (has_prev && u->gru && !u->lbr &&
          ((st = op_te_status(c, n,
                           u->r = step_tensor(c, n, u, "r", s, H, cell_r))) ||
           (st = op_te_status(c, n,
                           u->hh = step_tensor(c, n, u, "hh", s, H, cell_hh)))))
        return st;
      tvm_tensor *h = step_tensor(c, n, u, "h", s, H, cell_h);
      if ((st = op_te_status(c, n, h)))
        return st;
      u->hs[d][u->t] = h;
      u->hprev = h;
    }
  }
  if (n->noutputs > 0 && n->outputs[0]) {
    out[0] = op_te_compute_out(c, n, 0, "injective", cell_y, u);
    if ((st = op_te_status(c, n, out[0])))
      return st;
  }
  if (n->noutputs > 1 && n->outputs[1]) {
    out[1] = op_te_compute_out(c, n, 1, "injective", cell_yh, u);
    return op_te_status(c, n, out[1]);
  }
  return TVM_OK;
}

/* Reference: the equations at the top of the file, step by step. */
static tvm_status cell_reference(const tvm_gnode *n, const DLTensor *const *in,
                                 DLTensor *const *out) {
  rnn_info ri;
  int gru, lbr;
  tvm_status st = cell_check(n, &ri, &gru, &lbr);
  if (st)
    return st;
  int64_t H = ri.H, NB = ri.batch, I = ri.in, G = gru ? 3 : 1;
  const DLTensor *X = in[0], *W = in[1], *R = in[2];
  const DLTensor *B = ri.has_b ? in[3] : NULL, *h0 = ri.has_h0 ? in[5] : NULL;
  size_t sz = (size_t)(NB * H);
  double *h = tvm_calloc(sz, sizeof(double)),
         *hn = tvm_calloc(sz, sizeof(double));
  double *xg = tvm_calloc(sz * 3, sizeof(double)),
         *hg = tvm_calloc(sz * 3, sizeof(double));
  if (!h || !hn || !xg || !hg) {
    tvm_free(h), tvm_free(hn), tvm_free(xg), tvm_free(hg);
    return op_fail(n, TVM_ERR_NOMEM, "out of memory in the reference");
  }
  double clip = ri.clip;
#define CLIP(v)                                                                \
  (clip > 0 ? ((v) < -clip ? -clip : (v) > clip ? clip : (v)) : (v))
  for (int d = 0; d < ri.dirs; d++) {
    for (int64_t e = 0; e < NB * H; e++)
      h[e] = h0 ? op_dl_getf(h0, d * NB * H + e) : 0;
    int back = d == 1 || ri.reverse;
    for (int64_t s = 0; s < ri.seq; s++) {
      int64_t t = back ? ri.seq - 1 - s : s;
      /* xg = X W^T + Wb; hg = H R^T + Rb, per gate row */
      for (int64_t b = 0; b < NB; b++)
        for (int64_t g = 0; g < G * H; g++) {
          double a = B ? op_dl_getf(B, d * 2 * G * H + g) : 0;
          double r = B ? op_dl_getf(B, d * 2 * G * H + G * H + g) : 0;
          for (int64_t k = 0; k < I; k++)
            a += op_dl_getf(X, (t * NB + b) * I + k) *
                 op_dl_getf(W, (d * G * H + g) * I + k);
          for (int64_t k = 0; k < H; k++)
            r += h[b * H + k] * op_dl_getf(R, (d * G * H + g) * H + k);
          xg[b * G * H + g] = a;
          hg[b * G * H + g] = r;
        }
      for (int64_t b = 0; b < NB; b++)
        for (int64_t j = 0; j < H; j++) {
          const double *x = xg + b * G * H, *y = hg + b * G * H;
          if (!gru) {
            hn[b * H + j] = op_rnn_act_ref(&ri.act[d][0], CLIP(x[j] + y[j]));
            continue;
          }
          double z = op_rnn_act_ref(&ri.act[d][0], CLIP(x[j] + y[j]));
          double pre;
          if (lbr) {
            double r = op_rnn_act_ref(&ri.act[d][0], CLIP(x[H + j] + y[H + j]));
            pre = x[2 * H + j] + r * y[2 * H + j];
          } else {
            /* (r * H) Rh^T + Rbh, with r per k */
            double acc = B ? op_dl_getf(B, d * 6 * H + 5 * H + j) : 0;
            for (int64_t k = 0; k < H; k++) {
              double r = op_rnn_act_ref(&ri.act[d][0], CLIP(x[H + k] + y[H + k]));
              acc += r * h[b * H + k] *
                     op_dl_getf(R, (d * 3 * H + 2 * H + j) * H + k);
            }
            pre = x[2 * H + j] + acc;
          }
          double ht = op_rnn_act_ref(&ri.act[d][1], CLIP(pre));
          hn[b * H + j] = (1 - z) * ht + z * h[b * H + j];
        }
      memcpy(h, hn, sz * sizeof(double));
      if (n->noutputs > 0 && out[0])
        for (int64_t e = 0; e < NB * H; e++)
          op_dl_setf(out[0], ((t * ri.dirs + d) * NB) * H + e, h[e]);
    }
    if (n->noutputs > 1 && out[1])
      for (int64_t e = 0; e < NB * H; e++)
        op_dl_setf(out[1], d * NB * H + e, h[e]);
  }
#undef CLIP
  tvm_free(h), tvm_free(hn), tvm_free(xg), tvm_free(hg);
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"GRU", 3, 6, 1, 2, TVM_PAT_OPAQUE, cell_infer, cell_compute,
     cell_reference,
     "GRU (forward, reverse, bidirectional; linear_before_reset; outputs Y, "
     "Y_h)"},
    {"RNN", 3, 6, 1, 2, TVM_PAT_OPAQUE, cell_infer, cell_compute,
     cell_reference,
     "simple RNN H = f(X W^T + H R^T + Wb + Rb) (outputs Y, Y_h)"},
};

const ops_family ops_rnn_family = {defs, (int)(sizeof defs / sizeof defs[0])};
