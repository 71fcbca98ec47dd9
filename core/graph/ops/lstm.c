/*
 * core/graph/ops/lstm.c - LSTM (ONNX, layout 0): forward, reverse and
 * bidirectional; inputs X [seq, batch, input], W [dirs, 4H, input],
 * R [dirs, 4H, H], optional B [dirs, 8H], sequence_lens (absent, or a
 * constant equal to seq for every batch entry), initial_h, initial_c
 * [dirs, batch, H] and peepholes P [dirs, 3H]; outputs Y [seq, dirs,
 * batch, H], Y_h and Y_c [dirs, batch, H], each optional.  Gate order in
 * W, R and B is i, o, f, c; in P i, o, f.  Attributes: hidden_size,
 * direction, clip, activations (f, g, h per direction; default Sigmoid,
 * Tanh, Tanh), activation_alpha/beta (consumed in order by the
 * activations that take them), input_forget = 0, layout = 0.
 *
 * "activations" is ONE string attribute, comma-separated
 * ("Sigmoid,Tanh,Tanh"): the graph's attributes have no list of strings.
 * The activations and the checks LSTM shares with GRU and RNN live in
 * rnn.c.
 *
 * Compute: a real tensor expression unrolled over the sequence.
 * "<name>.xw" [dirs, seq, batch, 4H] = X * W^T for every step at once;
 * then per direction and step: "<name>.hr<d>_<s>" = H_prev * R^T (left
 * out while H_prev is the zero initial state), "<name>.c<d>_<s>" the cell
 * and "<name>.h<d>_<s>" the hidden state; the outputs gather the steps
 * with selects.  The number of stages grows with seq: fine for the short
 * sequences of the model zoo, a loop-carried lowering would be the next
 * step for long ones.  Pattern: opaque.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

/* ---- attributes and shapes -------------------------------------------- */
typedef rnn_act act;

typedef struct lstm_info {
  int64_t seq, batch, in, H;
  int dirs, reverse; /* reverse: the only direction runs backwards */
  double clip;       /* <= 0: none */
  act f[2], g[2], h[2];
  int has_b, has_h0, has_c0, has_p;
} lstm_info;

/* Validates LSTM: the shared recurrent checks, then input_forget,
 * initial_c and P; fills li. */
static tvm_status lstm_check(const tvm_gnode *n, lstm_info *li) {
  static const char *const dflt[] = {"Sigmoid", "Tanh", "Tanh"};
  rnn_info r;
  tvm_status st = op_rnn_check(n, 4, 3, dflt, &r);
  if (st)
    return st;
  memset(li, 0, sizeof *li);
  li->seq = r.seq;
  li->batch = r.batch;
  li->in = r.in;
  li->H = r.H;
  li->dirs = r.dirs;
  li->reverse = r.reverse;
  li->clip = r.clip;
  li->has_b = r.has_b;
  li->has_h0 = r.has_h0;
  for (int d = 0; d < r.dirs; d++) {
    li->f[d] = r.act[d][0];
    li->g[d] = r.act[d][1];
    li->h[d] = r.act[d][2];
  }
  int64_t inf;
  const tvm_gvalue *c0 = NULL, *p = NULL;
  if ((st = op_attr_int(n, "input_forget", 0, &inf)) ||
      (st = op_opt_input(n, 6, "initial_c", DT_F32, &c0)) ||
      (st = op_opt_input(n, 7, "P", DT_F32, &p)))
    return st;
  if (inf != 0)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "attribute 'input_forget' = 1 (coupled gates) is not "
                   "supported");
  int64_t D = li->dirs, H = li->H;
  int64_t hs3[] = {D, li->batch, H}, ps[] = {D, 3 * H};
  if (c0 && !op_rnn_has_shape(c0, 3, hs3))
    return op_fail(n, TVM_ERR_INVALID, "initial_c must be [%lld, %lld, %lld]",
                   (long long)D, (long long)li->batch, (long long)H);
  if (p && !op_rnn_has_shape(p, 2, ps))
    return op_fail(n, TVM_ERR_INVALID, "P must be [%lld, %lld]", (long long)D,
                   (long long)(3 * H));
  li->has_c0 = c0 != NULL;
  li->has_p = p != NULL;
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status lstm_infer(tvm_graph *g, tvm_gnode *n) {
  lstm_info li;
  tvm_status st = lstm_check(n, &li);
  if (st)
    return st;
  int64_t y[4] = {li.seq, li.dirs, li.batch, li.H};
  op_set_out(n, 0, TVM_F32, 4, y);
  op_set_out(n, 1, TVM_F32, 3, y + 1);
  op_set_out(n, 2, TVM_F32, 3, y + 1);
  return TVM_OK;
}

/* ---- compute ---------------------------------------------------------- */
typedef struct lstm_ud {
  lstm_info li;
  tvm_tensor *X, *W, *R, *B, *h0, *c0, *P, *xw;
  int d;                     /* direction of the step being declared */
  int64_t t;                 /* time of the step */
  tvm_tensor *hprev, *cprev; /* NULL at the first step: initial state */
  tvm_tensor *hr, *cell;
  int last_c; /* last_body: 0 reads H, 1 reads C */
  tvm_tensor *hs[2][RNN_MAX_SEQ], *cs[2][RNN_MAX_SEQ]; /* by time */
} lstm_ud;

/* xw[d, t, b, g] = sum over k of X[t, b, k] * W[d, g, k]. */
static tvm_expr *xw_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  lstm_ud *u = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, u->li.in);
  if (!k)
    return NULL;
  return tvm_sum(c,
                 tvm_mul(c, TVM_AT(c, u->X, i[1], i[2], k->var),
                         TVM_AT(c, u->W, i[0], i[3], k->var)),
                 &k, 1);
}

/* H_prev[b, k] (the previous step, or initial_h of the direction). */
static tvm_expr *read_hprev(tvm_ctx *c, lstm_ud *u, tvm_expr *b, tvm_expr *k) {
  if (u->hprev)
    return TVM_AT(c, u->hprev, b, k);
  return TVM_AT(c, u->h0, tvm_int(c, u->d), b, k);
}

/* C_prev[b, h]: the previous step, initial_c, or NULL (zero) at the first
 * step. */
static tvm_expr *read_cprev(tvm_ctx *c, lstm_ud *u, tvm_expr *b, tvm_expr *h) {
  if (u->cprev)
    return TVM_AT(c, u->cprev, b, h);
  if (u->c0)
    return TVM_AT(c, u->c0, tvm_int(c, u->d), b, h);
  return NULL;
}

/* hr[b, g] = sum over k of H_prev[b, k] * R[d, g, k]. */
static tvm_expr *hr_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  lstm_ud *u = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, u->li.H);
  if (!k)
    return NULL;
  return tvm_sum(c,
                 tvm_mul(c, read_hprev(c, u, i[0], k->var),
                         TVM_AT(c, u->R, tvm_int(c, u->d), i[1], k->var)),
                 &k, 1);
}

/* Pre-activation of gate q (0 i, 1 o, 2 f, 3 c) at [b, h], with the
 * peephole term p_state (C_prev or C_t) for i, o, f, clipped. */
static tvm_expr *gate_pre(tvm_ctx *c, lstm_ud *u, int q, tvm_expr *b,
                          tvm_expr *h, tvm_expr *p_state) {
  int64_t H = u->li.H;
  tvm_expr *g = tvm_add(c, h, tvm_int(c, q * H));
  tvm_expr *d = tvm_int(c, u->d);
  tvm_expr *v = TVM_AT(c, u->xw, d, tvm_int(c, u->t), b, g);
  if (u->hr)
    v = tvm_add(c, v, TVM_AT(c, u->hr, b, g));
  if (u->B)
    v = tvm_add(
        c, v,
        tvm_add(c, TVM_AT(c, u->B, d, g),
                TVM_AT(c, u->B, d, tvm_add(c, h, tvm_int(c, (4 + q) * H)))));
  if (u->P && q < 3 && p_state)
    v = tvm_add(c, v,
                tvm_mul(c, TVM_AT(c, u->P, d, tvm_add(c, h, tvm_int(c, q * H))),
                        p_state));
  if (u->li.clip > 0 && v)
    v = tvm_min(c, tvm_max(c, v, op_te_const(c, v->dtype, -u->li.clip)),
                op_te_const(c, v->dtype, u->li.clip));
  return v;
}

/* C_t = f(pre_f) * C_prev + f(pre_i) * g(pre_c) */
static tvm_expr *cell_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  lstm_ud *u = ud;
  const lstm_info *li = &u->li;
  tvm_expr *cp = read_cprev(c, u, i[0], i[1]);
  tvm_expr *it = op_rnn_act_te(c, &li->f[u->d], gate_pre(c, u, 0, i[0], i[1], cp));
  tvm_expr *ct =
      op_rnn_act_te(c, &li->g[u->d], gate_pre(c, u, 3, i[0], i[1], NULL));
  tvm_expr *v = tvm_mul(c, it, ct);
  if (cp) {
    tvm_expr *ft =
        op_rnn_act_te(c, &li->f[u->d], gate_pre(c, u, 2, i[0], i[1], cp));
    v = tvm_add(c, tvm_mul(c, ft, cp), v);
  }
  return v;
}

/* H_t = f(pre_o) * h(C_t) */
static tvm_expr *hid_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  lstm_ud *u = ud;
  const lstm_info *li = &u->li;
  tvm_expr *ct = TVM_AT(c, u->cell, i[0], i[1]);
  tvm_expr *ot = op_rnn_act_te(c, &li->f[u->d], gate_pre(c, u, 1, i[0], i[1], ct));
  return tvm_mul(c, ot, op_rnn_act_te(c, &li->h[u->d], ct));
}

/* Y[t, d, b, h] from the hidden states (rnn.c). */
static tvm_expr *y_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  lstm_ud *u = ud;
  return op_rnn_te_y(c, i, u->hs, u->li.dirs, u->li.seq);
}

/* Y_h / Y_c [d, b, h]: the hidden or cell state after the last step. */
static tvm_expr *last_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  lstm_ud *u = ud;
  return op_rnn_te_last(c, i, u->last_c ? u->cs : u->hs, u->li.dirs, u->li.seq,
                     u->li.reverse);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status lstm_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                               tvm_tensor **out) {
  lstm_ud *u = tvm_ctx_alloc(c, sizeof *u);
  if (!u)
    return op_te_status(c, n, NULL);
  tvm_status st = lstm_check(n, &u->li);
  if (st)
    return st;
  lstm_info *li = &u->li;
  u->X = in[0];
  u->W = in[1];
  u->R = in[2];
  u->B = li->has_b ? in[3] : NULL;
  u->h0 = li->has_h0 ? in[5] : NULL;
  u->c0 = li->has_c0 ? in[6] : NULL;
  u->P = li->has_p ? in[7] : NULL;
  int64_t xs[4] = {li->dirs, li->seq, li->batch, 4 * li->H};
  u->xw = tvm_compute(c, op_te_name(c, n, "xw"), xs, 4, xw_body, u);
  if ((st = op_te_status(c, n, u->xw)))
    return st;
  tvm_tensor_set_tag(u->xw, "lstm_input_gates");
  int64_t bh[2] = {li->batch, li->H}, bg[2] = {li->batch, 4 * li->H};
  for (int d = 0; d < li->dirs; d++) {
    u->d = d;
    u->hprev = u->cprev = NULL;
    int back = d == 1 || li->reverse;
    for (int64_t s = 0; s < li->seq; s++) {
      char nm[48];
      u->t = back ? li->seq - 1 - s : s;
      u->hr = NULL;
      if (u->hprev || u->h0) {
        snprintf(nm, sizeof nm, "hr%d_%lld", d, (long long)s);
        u->hr = tvm_compute(c, op_te_name(c, n, nm), bg, 2, hr_body, u);
        if ((st = op_te_status(c, n, u->hr)))
          return st;
        tvm_tensor_set_tag(u->hr, "lstm_hidden_gates");
      }
      snprintf(nm, sizeof nm, "c%d_%lld", d, (long long)s);
      u->cell = tvm_compute(c, op_te_name(c, n, nm), bh, 2, cell_body, u);
      if ((st = op_te_status(c, n, u->cell)))
        return st;
      snprintf(nm, sizeof nm, "h%d_%lld", d, (long long)s);
      tvm_tensor *h = tvm_compute(c, op_te_name(c, n, nm), bh, 2, hid_body, u);
      if ((st = op_te_status(c, n, h)))
        return st;
      tvm_tensor_set_tag(u->cell, "lstm_cell");
      tvm_tensor_set_tag(h, "lstm_cell");
      u->hs[d][u->t] = h;
      u->cs[d][u->t] = u->cell;
      u->hprev = h;
      u->cprev = u->cell;
    }
  }
  if (n->noutputs > 0 && n->outputs[0]) {
    out[0] = op_te_compute_out(c, n, 0, "injective", y_body, u);
    if ((st = op_te_status(c, n, out[0])))
      return st;
  }
  for (int k = 1; k < 3 && k < n->noutputs; k++) {
    if (!n->outputs[k])
      continue;
    u->last_c = k == 2;
    out[k] = op_te_compute_out(c, n, k, "injective", last_body, u);
    if ((st = op_te_status(c, n, out[k])))
      return st;
  }
  return TVM_OK;
}

/* ---- reference -------------------------------------------------------- */
static double clipv(const lstm_info *li, double v) {
  if (li->clip > 0)
    v = v < -li->clip ? -li->clip : v > li->clip ? li->clip : v;
  return v;
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status lstm_reference(const tvm_gnode *n, const DLTensor *const *in,
                                 DLTensor *const *out) {
  lstm_info li;
  tvm_status st = lstm_check(n, &li);
  if (st)
    return st;
  int64_t H = li.H, NB = li.batch, I = li.in;
  const DLTensor *X = in[0], *W = in[1], *R = in[2];
  const DLTensor *B = li.has_b ? in[3] : NULL, *h0 = li.has_h0 ? in[5] : NULL,
                 *c0 = li.has_c0 ? in[6] : NULL, *P = li.has_p ? in[7] : NULL;
  size_t sz = (size_t)(NB * H);
  double *hcur = tvm_calloc(sz, sizeof(double)),
         *ccur = tvm_calloc(sz, sizeof(double)),
         *hnew = tvm_calloc(sz, sizeof(double)),
         *gates = tvm_calloc(sz * 4, sizeof(double));
  if (!hcur || !ccur || !hnew || !gates) {
    tvm_free(hcur), tvm_free(ccur), tvm_free(hnew), tvm_free(gates);
    return op_fail(n, TVM_ERR_NOMEM, "out of memory in the reference");
  }
  for (int d = 0; d < li.dirs; d++) {
    for (int64_t e = 0; e < NB * H; e++) {
      hcur[e] = h0 ? op_dl_getf(h0, d * NB * H + e) : 0;
      ccur[e] = c0 ? op_dl_getf(c0, d * NB * H + e) : 0;
    }
    int back = d == 1 || li.reverse;
    for (int64_t s = 0; s < li.seq; s++) {
      int64_t t = back ? li.seq - 1 - s : s;
      for (int64_t b = 0; b < NB; b++)
        for (int64_t g = 0; g < 4 * H; g++) {
          double acc = 0;
          for (int64_t k = 0; k < I; k++)
            acc += op_dl_getf(X, (t * NB + b) * I + k) *
                   op_dl_getf(W, (d * 4 * H + g) * I + k);
          for (int64_t k = 0; k < H; k++)
            acc += hcur[b * H + k] * op_dl_getf(R, (d * 4 * H + g) * H + k);
          if (B)
            acc +=
                op_dl_getf(B, d * 8 * H + g) + op_dl_getf(B, d * 8 * H + 4 * H + g);
          gates[b * 4 * H + g] = acc;
        }
      for (int64_t b = 0; b < NB; b++)
        for (int64_t h = 0; h < H; h++) {
          double *gt = gates + b * 4 * H;
          double cp = ccur[b * H + h];
          double pi = P ? op_dl_getf(P, d * 3 * H + h) : 0;
          double po = P ? op_dl_getf(P, d * 3 * H + H + h) : 0;
          double pf = P ? op_dl_getf(P, d * 3 * H + 2 * H + h) : 0;
          double it = op_rnn_act_ref(&li.f[d], clipv(&li, gt[h] + pi * cp));
          double ft =
              op_rnn_act_ref(&li.f[d], clipv(&li, gt[2 * H + h] + pf * cp));
          double ct = op_rnn_act_ref(&li.g[d], clipv(&li, gt[3 * H + h]));
          double cn = ft * cp + it * ct;
          double ot = op_rnn_act_ref(&li.f[d], clipv(&li, gt[H + h] + po * cn));
          ccur[b * H + h] = cn;
          hnew[b * H + h] = ot * op_rnn_act_ref(&li.h[d], cn);
        }
      memcpy(hcur, hnew, sz * sizeof(double));
      if (n->noutputs > 0 && out[0])
        for (int64_t e = 0; e < NB * H; e++)
          op_dl_setf(out[0], ((t * li.dirs + d) * NB) * H + e, hcur[e]);
    }
    for (int64_t e = 0; e < NB * H; e++) {
      if (n->noutputs > 1 && out[1])
        op_dl_setf(out[1], d * NB * H + e, hcur[e]);
      if (n->noutputs > 2 && out[2])
        op_dl_setf(out[2], d * NB * H + e, ccur[e]);
    }
  }
  tvm_free(hcur), tvm_free(ccur), tvm_free(hnew), tvm_free(gates);
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"LSTM", 3, 8, 1, 3, TVM_PAT_OPAQUE, lstm_infer, lstm_compute,
     lstm_reference,
     "LSTM (forward, reverse, bidirectional; peepholes; outputs Y, Y_h, Y_c)"},
};

const ops_family ops_lstm_family = {defs, (int)(sizeof defs / sizeof defs[0])};
