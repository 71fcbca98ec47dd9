/*
 * core/graph/ops/loss.c - the loss functions' inference forms:
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
 *
 * NegativeLogLikelihoodLoss(input [N, C, d1..dk], target [N, d1..dk]
 * (int32/int64), weight [C] optional): per element
 *   loss = target == ignore_index ? 0 : -input[n, target, d...] * w[target]
 * (w = 1 without weights); reduction "none" returns that tensor, "sum" its
 * sum, "mean" (the default) its sum divided by the sum of the weights of
 * the elements not ignored.  SoftmaxCrossEntropyLoss(scores, labels,
 * weights) is the same on log_softmax(scores) over axis 1, with the log
 * probabilities as the optional second output.
 *
 * Compute: "<name>.lp" (SoftmaxCrossEntropyLoss only: ".max", ".sum" and
 * the log-softmax over C), "<name>.el" the per-element loss (the output
 * for "none"); for "sum"/"mean" ".lsum" (and ".wsum") reduce over every
 * element and the output divides.  The target is clamped into [0, C) for
 * the read (ignored elements read class 0 and are then zeroed), so no
 * read leaves the tensor.  Pattern: opaque.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

/* The attributes: reduction (0 none, 1 sum, 2 mean), ignore_index. */
typedef struct loss_info {
  int red;
  int has_ii;
  int64_t ii;
  int sce; /* SoftmaxCrossEntropyLoss */
} loss_info;

#define NO_II INT64_MIN

/* Reads and checks the node. */
static tvm_status loss_check(const tvm_gnode *n, loss_info *li) {
  const char *r;
  tvm_status st;
  li->sce = strcmp(n->op, "SoftmaxCrossEntropyLoss") == 0;
  if ((st = op_attr_str(n, "reduction", "mean", &r)) ||
      (st = op_attr_int(n, "ignore_index", NO_II, &li->ii)))
    return st;
  li->has_ii = li->ii != NO_II;
  if (!strcmp(r, "none"))
    li->red = 0;
  else if (!strcmp(r, "sum"))
    li->red = 1;
  else if (!strcmp(r, "mean"))
    li->red = 2;
  else
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute 'reduction' = \"%s\"; use none, sum or mean", r);
  const tvm_gvalue *x, *t, *w = NULL;
  if ((st = op_check_dtype(n, 0, "input", DT_F32 | DT_F64)) ||
      (st = op_check_dtype(n, 1, "target", DT_I32 | DT_I64)) ||
      (st = op_opt_input(n, 2, "weight", DT_F32 | DT_F64, &w)))
    return st;
  x = n->inputs[0];
  t = n->inputs[1];
  if (x->ndim < 2 || t->ndim != x->ndim - 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "input must be [N, C, d1..dk] and target [N, d1..dk]; "
                   "they have %d and %d dimensions",
                   x->ndim, t->ndim);
  for (int d = 0; d < t->ndim; d++)
    if (t->shape[d] != x->shape[d ? d + 1 : 0])
      return op_fail(n, TVM_ERR_INVALID,
                     "target dimension %d is %lld; the input's is %lld", d,
                     (long long)t->shape[d],
                     (long long)x->shape[d ? d + 1 : 0]);
  if (w && (w->ndim != 1 || w->shape[0] != x->shape[1] ||
            !tvm_dtype_eq(w->dtype, x->dtype)))
    return op_fail(n, TVM_ERR_INVALID,
                   "weight must be a 1-D tensor of C = %lld values of the "
                   "input's dtype",
                   (long long)x->shape[1]);
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status loss_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  loss_info li;
  tvm_status st = loss_check(n, &li);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0], *t = n->inputs[1];
  if (li.red == 0)
    op_set_out(n, 0, x->dtype, t->ndim, t->shape);
  else
    op_set_out(n, 0, x->dtype, 0, NULL);
  if (n->noutputs > 1 && !li.sce)
    return op_fail(n, TVM_ERR_INVALID, "has one output, not %d",
                   n->noutputs);
  op_set_out(n, 1, x->dtype, x->ndim, x->shape);
  return TVM_OK;
}

/* ---- tensor expressions --------------------------------------------------- */
typedef struct loss_ud {
  loss_info li;
  tvm_tensor *x, *t, *w;  /* x: log probabilities (after log-softmax) */
  tvm_tensor *max, *sum;  /* log-softmax stages */
  tvm_tensor *el, *lsum, *wsum;
  int64_t C;
} loss_ud;

/* Over C: max of the scores. */
static tvm_expr *max_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  loss_ud *u = ud;
  tvm_iter_var *r = tvm_reduce_axis(c, "rc", 0, u->C);
  if (!r)
    return NULL;
  tvm_expr *xi[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    xi[d] = d == 1 ? r->var : i[d];
  return tvm_rmax(c, tvm_tread(c, u->x, xi, u->x->ndim), &r, 1);
}

/* Over C: sum of exp(score - max). */
static tvm_expr *sum_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  loss_ud *u = ud;
  tvm_iter_var *r = tvm_reduce_axis(c, "rc", 0, u->C);
  if (!r)
    return NULL;
  tvm_expr *xi[TVM_MAX_DIMS], *ki[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++) {
    xi[d] = d == 1 ? r->var : i[d];
    ki[d] = d == 1 ? tvm_int(c, 0) : i[d];
  }
  tvm_expr *e = tvm_sub(c, tvm_tread(c, u->x, xi, u->x->ndim),
                        tvm_tread(c, u->max, ki, u->x->ndim));
  return tvm_sum(c, tvm_math(c, TVM_INTRIN_EXP, e), &r, 1);
}

/* The log probabilities: score - max - log(sum). */
static tvm_expr *lp_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  loss_ud *u = ud;
  tvm_expr *ki[TVM_MAX_DIMS];
  for (int d = 0; d < u->x->ndim; d++)
    ki[d] = d == 1 ? tvm_int(c, 0) : i[d];
  tvm_expr *e = tvm_sub(c, tvm_tread(c, u->x, i, u->x->ndim),
                        tvm_tread(c, u->max, ki, u->x->ndim));
  return tvm_sub(c, e,
                 tvm_math(c, TVM_INTRIN_LOG,
                          tvm_tread(c, u->sum, ki, u->x->ndim)));
}

/* The target at i (target-shaped index), whether it counts, and the class
 * index to read (clamped into [0, C)). */
static void target_at(tvm_ctx *c, loss_ud *u, tvm_expr **i, tvm_expr **valid,
                      tvm_expr **cls) {
  tvm_expr *t = tvm_tread(c, u->t, i, u->t->ndim);
  tvm_dtype tt = u->t->dtype;
  tvm_expr *inr = tvm_and(c, tvm_ge(c, t, op_te_const(c, tt, 0)),
                          tvm_lt(c, t, op_te_const(c, tt, (double)u->C)));
  *valid = u->li.has_ii
               ? tvm_and(c, tvm_ne(c, t, op_te_const(c, tt, (double)u->li.ii)),
                         inr)
               : inr;
  *cls = tvm_cast(c, TVM_I32, tvm_select(c, inr, t, op_te_const(c, tt, 0)));
}

/* The weight of the element at i (0 when ignored). */
static tvm_expr *weight_at(tvm_ctx *c, loss_ud *u, tvm_expr *valid,
                           tvm_expr *cls) {
  tvm_dtype dt = u->x->dtype;
  tvm_expr *w = u->w ? tvm_tread(c, u->w, &cls, 1) : op_te_const(c, dt, 1);
  return tvm_select(c, valid, w, op_te_const(c, dt, 0));
}

/* Per element: -x[n, target, d...] * weight. */
static tvm_expr *el_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  loss_ud *u = ud;
  tvm_expr *valid, *cls, *xi[TVM_MAX_DIMS];
  target_at(c, u, i, &valid, &cls);
  for (int d = 0; d < u->x->ndim; d++)
    xi[d] = d == 0 ? i[0] : d == 1 ? cls : i[d - 1];
  tvm_expr *x = tvm_tread(c, u->x, xi, u->x->ndim);
  return tvm_mul(c, tvm_sub(c, op_te_const(c, x->dtype, 0), x),
                 weight_at(c, u, valid, cls));
}

/* Reduce axes over the target's shape; 0 when out of memory. */
static int target_axes(tvm_ctx *c, loss_ud *u, tvm_iter_var **r,
                       tvm_expr **ri) {
  for (int d = 0; d < u->t->ndim; d++) {
    char nm[16];
    snprintf(nm, sizeof nm, "r%d", d);
    if (!(r[d] = tvm_reduce_axis(c, nm, 0, u->t->shape_c[d])))
      return 0;
    ri[d] = r[d]->var;
  }
  return 1;
}

static tvm_expr *lsum_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  loss_ud *u = ud;
  (void)i;
  tvm_iter_var *r[TVM_MAX_DIMS];
  tvm_expr *ri[TVM_MAX_DIMS];
  if (!target_axes(c, u, r, ri))
    return NULL;
  return tvm_sum(c, tvm_tread(c, u->el, ri, u->t->ndim), r, u->t->ndim);
}

static tvm_expr *wsum_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  loss_ud *u = ud;
  (void)i;
  tvm_iter_var *r[TVM_MAX_DIMS];
  tvm_expr *ri[TVM_MAX_DIMS], *valid, *cls;
  if (!target_axes(c, u, r, ri))
    return NULL;
  target_at(c, u, ri, &valid, &cls);
  return tvm_sum(c, weight_at(c, u, valid, cls), r, u->t->ndim);
}

static tvm_expr *out_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  loss_ud *u = ud;
  (void)i;
  tvm_expr *s = tvm_tread(c, u->lsum, NULL, 0);
  if (u->li.red == 1)
    return s;
  return tvm_div(c, s, tvm_tread(c, u->wsum, NULL, 0));
}

static tvm_expr *copy_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *t = ud;
  return tvm_tread(c, t, i, t->ndim);
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status loss_compute(tvm_ctx *c, const tvm_gnode *n,
                               tvm_tensor **in, tvm_tensor **out) {
  loss_ud u;
  memset(&u, 0, sizeof u);
  tvm_status st = loss_check(n, &u.li);
  if (st)
    return st;
  u.x = in[0];
  u.t = in[1];
  u.w = n->ninputs > 2 ? in[2] : NULL;
  u.C = in[0]->shape_c[1];
  if (u.li.sce) {
    int64_t ks[TVM_MAX_DIMS];
    for (int d = 0; d < u.x->ndim; d++)
      ks[d] = d == 1 ? 1 : u.x->shape_c[d];
    u.max = tvm_compute(c, op_te_name(c, n, "max"), ks, u.x->ndim, max_body,
                        &u);
    if ((st = op_te_status(c, n, u.max)))
      return st;
    u.sum = tvm_compute(c, op_te_name(c, n, "sum"), ks, u.x->ndim, sum_body,
                        &u);
    if ((st = op_te_status(c, n, u.sum)))
      return st;
    u.x = tvm_compute(c, op_te_name(c, n, "lp"), u.x->shape_c, u.x->ndim,
                      lp_body, &u);
    if ((st = op_te_status(c, n, u.x)))
      return st;
  }
  if (u.li.red == 0) {
    out[0] = op_te_compute_out(c, n, 0, "loss", el_body, &u);
  } else {
    u.el = tvm_compute(c, op_te_name(c, n, "el"), u.t->shape_c, u.t->ndim,
                       el_body, &u);
    if ((st = op_te_status(c, n, u.el)))
      return st;
    u.lsum = tvm_compute(c, op_te_name(c, n, "lsum"), NULL, 0, lsum_body, &u);
    if ((st = op_te_status(c, n, u.lsum)))
      return st;
    if (u.li.red == 2) {
      u.wsum =
          tvm_compute(c, op_te_name(c, n, "wsum"), NULL, 0, wsum_body, &u);
      if ((st = op_te_status(c, n, u.wsum)))
        return st;
    }
    out[0] = op_te_compute_out(c, n, 0, "loss", out_body, &u);
  }
  if ((st = op_te_status(c, n, out[0])))
    return st;
  if (n->noutputs > 1 && n->outputs[1]) {
    out[1] = op_te_compute_out(c, n, 1, "log_prob", copy_body, u.x);
    return op_te_status(c, n, out[1]);
  }
  return TVM_OK;
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status loss_reference(const tvm_gnode *n, const DLTensor *const *in,
                                 DLTensor *const *out) {
  loss_info li;
  tvm_status st = loss_check(n, &li);
  if (st)
    return st;
  const DLTensor *x = in[0], *t = in[1];
  const DLTensor *w = n->ninputs > 2 ? in[2] : NULL;
  int64_t N = x->shape[0], C = x->shape[1], D = 1;
  for (int d = 2; d < x->ndim; d++)
    D *= x->shape[d];
  int64_t total = N * C * D;
  double *lp = tvm_calloc((size_t)(total ? total : 1), sizeof(double));
  if (!lp)
    return op_fail(n, TVM_ERR_NOMEM, "out of memory");
  for (int64_t k = 0; k < total; k++)
    lp[k] = op_dl_getf(x, k);
  if (li.sce)
    for (int64_t b = 0; b < N; b++)
      for (int64_t e = 0; e < D; e++) {
        double mx = -INFINITY, s = 0;
        for (int64_t k = 0; k < C; k++)
          mx = fmax(mx, lp[(b * C + k) * D + e]);
        for (int64_t k = 0; k < C; k++)
          s += exp(lp[(b * C + k) * D + e] - mx);
        for (int64_t k = 0; k < C; k++)
          lp[(b * C + k) * D + e] -= mx + log(s);
      }
  double lsum = 0, wsum = 0;
  for (int64_t b = 0; b < N; b++)
    for (int64_t e = 0; e < D; e++) {
      int64_t cls = op_dl_geti(t, b * D + e);
      int valid = cls >= 0 && cls < C && !(li.has_ii && cls == li.ii);
      double wt = valid ? (w ? op_dl_getf(w, cls) : 1) : 0;
      double l = valid ? -lp[(b * C + cls) * D + e] * wt : 0;
      if (li.red == 0)
        op_dl_setf(out[0], b * D + e, l);
      lsum += l;
      wsum += wt;
    }
  if (li.red)
    op_dl_setf(out[0], 0, li.red == 1 ? lsum : lsum / wsum);
  if (n->noutputs > 1 && out[1])
    for (int64_t k = 0; k < total; k++)
      op_dl_setf(out[1], k, lp[k]);
  tvm_free(lp);
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"NegativeLogLikelihoodLoss", 2, 3, 1, 1, TVM_PAT_OPAQUE, loss_infer,
     loss_compute, loss_reference,
     "-input[n, target, ...] * weight[target], reduced (none, sum, mean)"},
    {"SoftmaxCrossEntropyLoss", 2, 3, 1, 2, TVM_PAT_OPAQUE, loss_infer,
     loss_compute, loss_reference,
     "NegativeLogLikelihoodLoss of log_softmax(scores) over axis 1 (and the "
     "log probabilities)"},
};

const ops_family ops_loss_family = {defs, (int)(sizeof defs / sizeof defs[0])};
