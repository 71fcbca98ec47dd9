/*
 * core/graph/ops/signal.c - window functions: HannWindow, HammingWindow,
 * BlackmanWindow.  Input 0 is the constant window length (a scalar
 * integer); periodic (default 1) divides by the length, else by the
 * length - 1; output_datatype (default FLOAT) picks float32 or float64.
 *   Hann:     0.5 - 0.5 cos(2 pi n / N)
 *   Hamming:  25/46 - 21/46 cos(2 pi n / N)
 *   Blackman: 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)
 * The compute is one elementwise expression of the position.
 */
#include <math.h>
#include <string.h>

#include "ops_int.h"

/* The length, the divisor N, the coefficients a0, a1, a2, the dtype. */
typedef struct win_info {
  int64_t len;
  double N, a0, a1, a2;
  tvm_dtype t;
} win_info;

static tvm_status win_check(const tvm_gnode *n, win_info *w) {
  double len;
  int64_t periodic, odt;
  tvm_status st;
  if ((st = op_check_dtype(n, 0, "size", DT_I32 | DT_I64)) ||
      (st = op_const_scalar(n, 0, "size", &len)) ||
      (st = op_attr_int(n, "periodic", 1, &periodic)) ||
      (st = op_attr_int(n, "output_datatype", 1, &odt)))
    return st;
  if (len < 0)
    return op_fail(n, TVM_ERR_INVALID, "size = %g is negative", len);
  if (odt != 1 && odt != 11)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "output_datatype = %lld: FLOAT (1) and DOUBLE (11) are "
                   "supported",
                   (long long)odt);
  w->t = odt == 1 ? TVM_F32 : TVM_F64;
  w->len = (int64_t)len;
  w->N = periodic ? len : len - 1;
  if (!strcmp(n->op, "HannWindow")) {
    w->a0 = 0.5, w->a1 = 0.5, w->a2 = 0;
  } else if (!strcmp(n->op, "HammingWindow")) {
    w->a0 = 25.0 / 46, w->a1 = 21.0 / 46, w->a2 = 0;
  } else {
    w->a0 = 0.42, w->a1 = 0.5, w->a2 = 0.08;
  }
  return TVM_OK;
}

static tvm_status win_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  win_info w;
  tvm_status st = win_check(n, &w);
  if (st)
    return st;
  op_set_out(n, 0, w.t, 1, &w.len);
  return TVM_OK;
}

static tvm_expr *win_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  win_info *w = ud;
  tvm_dtype t = w->t;
  tvm_expr *x = tvm_mul(c, tvm_cast(c, t, i[0]),
                        op_te_const(c, t, 2 * M_PI / (w->N ? w->N : 1)));
  tvm_expr *v = tvm_sub(c, op_te_const(c, t, w->a0),
                        tvm_mul(c, op_te_const(c, t, w->a1),
                                tvm_math(c, TVM_INTRIN_COS, x)));
  if (w->a2)
    v = tvm_add(c, v,
                tvm_mul(c, op_te_const(c, t, w->a2),
                        tvm_math(c, TVM_INTRIN_COS,
                                 tvm_mul(c, x, op_te_const(c, t, 2)))));
  return v;
}

static tvm_status win_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                              tvm_tensor **out) {
  (void)in;
  win_info w;
  tvm_status st = win_check(n, &w);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "injective", win_body, &w);
  return op_te_status(c, n, out[0]);
}

static tvm_status win_reference(const tvm_gnode *n, const DLTensor *const *in,
                                DLTensor *const *out) {
  (void)in;
  win_info w;
  tvm_status st = win_check(n, &w);
  if (st)
    return st;
  for (int64_t k = 0; k < w.len; k++) {
    double x = 2 * M_PI * (double)k / (w.N ? w.N : 1);
    op_dl_setf(out[0], k, w.a0 - w.a1 * cos(x) + w.a2 * cos(2 * x));
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"HannWindow", 1, 1, 1, 1, TVM_PAT_INJECTIVE, win_infer, win_compute,
     win_reference, "0.5 - 0.5 cos(2 pi n / N)"},
    {"HammingWindow", 1, 1, 1, 1, TVM_PAT_INJECTIVE, win_infer, win_compute,
     win_reference, "25/46 - 21/46 cos(2 pi n / N)"},
    {"BlackmanWindow", 1, 1, 1, 1, TVM_PAT_INJECTIVE, win_infer, win_compute,
     win_reference, "0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)"},
};

const ops_family ops_signal_family = {defs,
                                      (int)(sizeof defs / sizeof defs[0])};
