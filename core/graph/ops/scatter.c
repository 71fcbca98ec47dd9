/*
 * core/graph/ops/scatter.c - ScatterElements (and its name before opset
 * 11, Scatter) and ScatterND, with reduction none, add, mul, max, min.
 * Negative indices count from the end of their axis; out of range ones
 * are clamped into it (computes and references alike).
 *
 * Compute without data-dependent writes: an output element is the data
 * element unless some update targets it, found by a reduction over the
 * updates (".last": the last matching update for reduction none;
 * ".acc": the sum/product/max/min of the matching ones otherwise).
 * Quadratic in the number of updates: fine at the sizes exported models
 * give these operators.  Pattern: opaque.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_int.h"

enum { SR_NONE, SR_ADD, SR_MUL, SR_MAX, SR_MIN };

static tvm_status scatter_red(const tvm_gnode *n, int *red) {
  const char *r;
  tvm_status st = op_attr_str(n, "reduction", "none", &r);
  if (st)
    return st;
  static const char *const names[] = {"none", "add", "mul", "max", "min"};
  for (int k = 0; k < 5; k++)
    if (!strcmp(r, names[k])) {
      *red = k;
      return TVM_OK;
    }
  return op_fail(n, TVM_ERR_INVALID,
                 "attribute 'reduction' = \"%s\"; use none, add, mul, max or "
                 "min",
                 r);
}

static int is_nd(const tvm_gnode *n) { return !strcmp(n->op, "ScatterND"); }

static tvm_status scatter_info(const tvm_gnode *n, int *axis, int *red) {
  tvm_status st;
  int64_t a;
  if ((st = op_check_dtype(n, 0, "data", DT_NUM | DT_BOOL)) ||
      (st = op_check_dtype(n, 1, "indices", DT_I64 | DT_I32)) ||
      (st = op_check_dtype(n, 2, "updates", DT_NUM | DT_BOOL)) ||
      (st = scatter_red(n, red)) || (st = op_attr_int(n, "axis", 0, &a)))
    return st;
  const tvm_gvalue *x = n->inputs[0], *ix = n->inputs[1], *up = n->inputs[2];
  if (!tvm_dtype_eq(x->dtype, up->dtype))
    return op_fail(n, TVM_ERR_INVALID, "data and updates differ in dtype");
  if (is_nd(n)) {
    *axis = 0;
    int m = ix->ndim ? (int)ix->shape[ix->ndim - 1] : 0;
    if (ix->ndim < 1 || m < 1 || m > x->ndim ||
        up->ndim != ix->ndim - 1 + x->ndim - m)
      return op_fail(n, TVM_ERR_INVALID,
                     "indices [.., m] with m <= rank(data) and updates of "
                     "rank q - 1 + r - m are required");
    for (int d = 0; d < up->ndim; d++)
      if (up->shape[d] != (d < ix->ndim - 1 ? ix->shape[d]
                                            : x->shape[m + d - ix->ndim + 1]))
        return op_fail(n, TVM_ERR_INVALID, "updates dimension %d is %lld, "
                       "the indices and data make it %lld",
                       d, (long long)up->shape[d],
                       (long long)(d < ix->ndim - 1
                                       ? ix->shape[d]
                                       : x->shape[m + d - ix->ndim + 1]));
    return TVM_OK;
  }
  if ((st = op_axis(n, "attribute 'axis'", a, x->ndim, axis)))
    return st;
  if (ix->ndim != x->ndim || up->ndim != x->ndim)
    return op_fail(n, TVM_ERR_INVALID,
                   "data, indices and updates must have one rank");
  for (int d = 0; d < x->ndim; d++)
    if (ix->shape[d] != up->shape[d] || ix->shape[d] > x->shape[d])
      return op_fail(n, TVM_ERR_INVALID,
                     "indices and updates must have one shape within data's");
  return TVM_OK;
}

static tvm_status scatter_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  int axis, red;
  tvm_status st = scatter_info(n, &axis, &red);
  if (st)
    return st;
  const tvm_gvalue *x = n->inputs[0];
  op_set_out(n, 0, x->dtype, x->ndim, x->shape);
  return TVM_OK;
}

typedef struct sc_ud {
  tvm_tensor *x, *ix, *up;
  int axis, red;
} sc_ud;

/* Whether update position (reduce vars rv) targets output element i, and
 * the update's index (written into ui). */
static tvm_expr *sc_match(tvm_ctx *c, sc_ud *u, tvm_expr **i, tvm_expr **rv,
                          tvm_expr **ui) {
  int r = u->x->ndim;
  if (u->axis >= 0) {
    /* ScatterElements: rv[0] runs along axis; the other coordinates are
     * i's, which must lie inside the updates' shape */
    tvm_expr *ok = NULL, *ii[TVM_MAX_DIMS];
    for (int d = 0; d < r; d++) {
      if (d == u->axis) {
        ii[d] = rv[0];
        continue;
      }
      int64_t ext = u->ix->shape_c[d];
      tvm_expr *in = tvm_lt(c, i[d], tvm_int(c, ext));
      ok = ok ? tvm_and(c, ok, in) : in;
      ii[d] = tvm_min(c, i[d], tvm_int(c, ext - 1));
    }
    for (int d = 0; d < r; d++)
      ui[d] = ii[d];
    tvm_expr *k = op_te_wrap_index(c, tvm_tread(c, u->ix, ii, r),
                           u->x->shape_c[u->axis]);
    tvm_expr *hit = tvm_eq(c, k, i[u->axis]);
    return ok ? tvm_and(c, ok, hit) : hit;
  }
  /* ScatterND: rv runs over indices' leading dims */
  int q = u->ix->ndim, m = (int)u->ix->shape_c[q - 1];
  tvm_expr *hit = NULL, *ii[TVM_MAX_DIMS];
  for (int d = 0; d < q - 1; d++)
    ii[d] = rv[d];
  for (int j = 0; j < m; j++) {
    ii[q - 1] = tvm_int(c, j);
    tvm_expr *k = op_te_wrap_index(c, tvm_tread(c, u->ix, ii, q), u->x->shape_c[j]);
    tvm_expr *e = tvm_eq(c, k, i[j]);
    hit = hit ? tvm_and(c, hit, e) : e;
  }
  for (int d = 0; d < q - 1; d++)
    ui[d] = rv[d];
  for (int d = m; d < r; d++)
    ui[q - 1 + d - m] = i[d];
  return hit;
}

/* The reduce axes over the update positions; their flat index. */
static int sc_axes(tvm_ctx *c, sc_ud *u, tvm_iter_var **r, tvm_expr **rv,
                   int *nr, tvm_expr **flat) {
  memset(rv, 0, sizeof(tvm_expr *) * TVM_MAX_DIMS);
  if (u->axis >= 0) {
    if (!(r[0] = tvm_reduce_axis(c, "r", 0, u->ix->shape_c[u->axis])))
      return 0;
    rv[0] = r[0]->var;
    *nr = 1;
    *flat = rv[0];
    return 1;
  }
  *nr = u->ix->ndim - 1;
  *flat = tvm_int(c, 0);
  for (int d = 0; d < *nr; d++) {
    char nm[16];
    snprintf(nm, sizeof nm, "r%d", d);
    if (!(r[d] = tvm_reduce_axis(c, nm, 0, u->ix->shape_c[d])))
      return 0;
    rv[d] = r[d]->var;
    *flat = tvm_add(c, tvm_mul(c, *flat, tvm_int(c, u->ix->shape_c[d])),
                    rv[d]);
  }
  return 1;
}

/* ".last": the flat index of the last update hitting i, -1 when none. */
static tvm_expr *sc_last_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  sc_ud *u = ud;
  tvm_iter_var *r[TVM_MAX_DIMS];
  tvm_expr *rv[TVM_MAX_DIMS], *ui[TVM_MAX_DIMS], *flat;
  int nr;
  if (!sc_axes(c, u, r, rv, &nr, &flat))
    return NULL;
  tvm_expr *hit = sc_match(c, u, i, rv, ui);
  return tvm_rmax(c, tvm_select(c, hit, flat, tvm_int(c, -1)), r, nr);
}

/* ".acc": the sum/product/max/min of the updates hitting i. */
static tvm_expr *sc_acc_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  sc_ud *u = ud;
  tvm_iter_var *r[TVM_MAX_DIMS];
  tvm_expr *rv[TVM_MAX_DIMS], *ui[TVM_MAX_DIMS], *flat;
  int nr;
  if (!sc_axes(c, u, r, rv, &nr, &flat))
    return NULL;
  tvm_expr *hit = sc_match(c, u, i, rv, ui);
  tvm_expr *v = tvm_tread(c, u->up, ui, u->up->ndim);
  tvm_reduce_op op = u->red == SR_ADD   ? TVM_REDUCE_SUM
                     : u->red == SR_MUL ? TVM_REDUCE_PROD
                     : u->red == SR_MAX ? TVM_REDUCE_MAX
                                        : TVM_REDUCE_MIN;
  return tvm_reduce(c, op, v, r, nr, hit);
}

typedef struct sc_out_ud {
  sc_ud *u;
  tvm_tensor *last, *acc;
} sc_out_ud;

static tvm_expr *sc_out_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  sc_out_ud *o = ud;
  sc_ud *u = o->u;
  int r = u->x->ndim;
  tvm_expr *x = tvm_tread(c, u->x, i, r);
  tvm_expr *last = tvm_tread(c, o->last, i, r);
  tvm_expr *any = tvm_ge(c, last, tvm_int(c, 0));
  if (u->red == SR_NONE) {
    /* read the update at the last hit (clamped to 0 when none) */
    tvm_expr *ui[TVM_MAX_DIMS], *f = tvm_max(c, last, tvm_int(c, 0));
    if (u->axis >= 0) {
      for (int d = 0; d < r; d++)
        ui[d] = d == u->axis
                    ? f
                    : tvm_min(c, i[d], tvm_int(c, u->ix->shape_c[d] - 1));
    } else {
      int q = u->ix->ndim, m = (int)u->ix->shape_c[q - 1];
      for (int d = q - 2; d >= 0; d--) {
        tvm_expr *ext = tvm_int(c, u->ix->shape_c[d]);
        ui[d] = tvm_floormod(c, f, ext);
        f = tvm_floordiv(c, f, ext);
      }
      for (int d = m; d < r; d++)
        ui[q - 1 + d - m] = i[d];
    }
    return tvm_select(c, any, tvm_tread(c, u->up, ui, u->up->ndim), x);
  }
  tvm_expr *a = tvm_tread(c, o->acc, i, r);
  tvm_expr *comb = u->red == SR_ADD   ? tvm_add(c, x, a)
                   : u->red == SR_MUL ? tvm_mul(c, x, a)
                   : u->red == SR_MAX ? tvm_max(c, x, a)
                                      : tvm_min(c, x, a);
  return tvm_select(c, any, comb, x);
}

static tvm_status scatter_compute(tvm_ctx *c, const tvm_gnode *n,
                                  tvm_tensor **in, tvm_tensor **out) {
  sc_ud u = {in[0], in[1], in[2], 0, 0};
  tvm_status st = scatter_info(n, &u.axis, &u.red);
  if (st)
    return st;
  if (is_nd(n))
    u.axis = -1; /* marks ScatterND for the bodies */
  sc_out_ud o = {&u, NULL, NULL};
  o.last = tvm_compute(c, op_te_name(c, n, "last"), u.x->shape_c, u.x->ndim,
                       sc_last_body, &u);
  if ((st = op_te_status(c, n, o.last)))
    return st;
  if (u.red != SR_NONE) {
    o.acc = tvm_compute(c, op_te_name(c, n, "acc"), u.x->shape_c, u.x->ndim,
                        sc_acc_body, &u);
    if ((st = op_te_status(c, n, o.acc)))
      return st;
  }
  out[0] = op_te_compute_out(c, n, 0, "scatter", sc_out_body, &o);
  return op_te_status(c, n, out[0]);
}

/* Combines v into the output element e (reduction red). */
static void sc_apply(const DLTensor *o, int64_t e, const DLTensor *up,
                     int64_t ue, int red) {
  if (red == SR_NONE || !op_dl_is_float(o)) {
    int64_t a = op_dl_geti(o, e), b = op_dl_geti(up, ue);
    op_dl_seti(o, e, red == SR_NONE  ? b
                     : red == SR_ADD ? a + b
                     : red == SR_MUL ? a * b
                     : red == SR_MAX ? (a > b ? a : b)
                                     : (a < b ? a : b));
    if (red == SR_NONE && op_dl_is_float(o))
      op_dl_setf(o, e, op_dl_getf(up, ue));
    return;
  }
  double a = op_dl_getf(o, e), b = op_dl_getf(up, ue);
  op_dl_setf(o, e, red == SR_ADD   ? a + b
                   : red == SR_MUL ? a * b
                   : red == SR_MAX ? fmax(a, b)
                                   : fmin(a, b));
}

static tvm_status scatter_reference(const tvm_gnode *n,
                                    const DLTensor *const *in,
                                    DLTensor *const *out) {
  int axis, red;
  tvm_status st = scatter_info(n, &axis, &red);
  if (st)
    return st;
  const DLTensor *x = in[0], *ix = in[1], *up = in[2];
  int r = x->ndim;
  int64_t eb = op_dl_elem_bytes(x), xs[TVM_MAX_DIMS], idx[TVM_MAX_DIMS];
  memcpy(out[0]->data, x->data, (size_t)(op_dl_numel(x) * eb));
  op_strides(x->shape, r, xs);
  if (!is_nd(n)) {
    int64_t len = op_dl_numel(up);
    for (int64_t e = 0; e < len; e++) {
      op_dl_unravel(e, up->shape, r, idx);
      int64_t k = op_wrap_index(op_dl_geti(ix, e), x->shape[axis]);
      idx[axis] = k;
      int64_t dst = 0;
      for (int d = 0; d < r; d++)
        dst += idx[d] * xs[d];
      sc_apply(out[0], dst, up, e, red);
    }
    return TVM_OK;
  }
  int q = ix->ndim, m = (int)ix->shape[q - 1];
  int64_t nupd = 1, slice = 1;
  for (int d = 0; d < q - 1; d++)
    nupd *= ix->shape[d];
  for (int d = m; d < r; d++)
    slice *= x->shape[d];
  for (int64_t p = 0; p < nupd; p++) {
    int64_t base = 0;
    for (int j = 0; j < m; j++) {
      int64_t k = op_wrap_index(op_dl_geti(ix, p * m + j), x->shape[j]);
      base += k * xs[j];
    }
    for (int64_t s = 0; s < slice; s++)
      sc_apply(out[0], base + s, up, p * slice + s, red);
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"ScatterElements", 3, 3, 1, 1, TVM_PAT_OPAQUE, scatter_infer,
     scatter_compute, scatter_reference,
     "data with updates written at indices along axis (reduction)"},
    {"Scatter", 3, 3, 1, 1, TVM_PAT_OPAQUE, scatter_infer, scatter_compute,
     scatter_reference, "ScatterElements (its name before opset 11)"},
    {"ScatterND", 3, 3, 1, 1, TVM_PAT_OPAQUE, scatter_infer, scatter_compute,
     scatter_reference,
     "data with update slices written at index tuples (reduction)"},
};

const ops_family ops_scatter_family = {defs,
                                       (int)(sizeof defs / sizeof defs[0])};
