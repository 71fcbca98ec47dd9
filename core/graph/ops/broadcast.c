/*
 * core/graph/ops/broadcast.c - binary and variadic operators with numpy
 * broadcasting: Add, Sub, Mul, Div, Pow (binary), Max, Min, Sum, Mean
 * (variadic, one or more inputs) and PRelu (slope broadcast to x).
 *
 * Add/Sub/Mul/Div/Max/Min accept float32, int32 and int64 (all inputs of
 * one dtype); integer Div truncates toward zero (C semantics) and the
 * reference gives 0 for a zero divisor instead of trapping.  Pow's output
 * has the base's dtype (float32, int32, int64) and its exponent may be
 * any of them (an integer base is raised in float64 and truncated back;
 * with an integer exponent >= 0, rounded back: the power is an integer).
 * Sum, Mean and PRelu are float32.
 */
#include <math.h>
#include <string.h>

#include "ops_int.h"

typedef enum {
  B_ADD,
  B_SUB,
  B_MUL,
  B_DIV,
  B_POW,
  B_MAX,
  B_MIN,
  B_SUM,
  B_MEAN,
  B_PRELU
} bkind;

/* The operator kind of n, from its op name. */
static bkind kind_of(const tvm_gnode *n) {
  static const char *const names[] = {"Add", "Sub", "Mul", "Div",  "Pow",
                                      "Max", "Min", "Sum", "Mean", "PRelu"};
  for (int i = 0; i < 10; i++)
    if (strcmp(n->op, names[i]) == 0)
      return (bkind)i;
  return B_ADD;
}

/* The dtypes kind k accepts (DT_* mask). */
static int dtmask_of(bkind k) {
  int m = k <= B_POW || k == B_MAX || k == B_MIN ? DT_NUM : DT_F32 | DT_F64;
  return k == B_PRELU || k == B_POW ? m : m | DT_F16 | DT_BF16;
}

/* Output = broadcast of every input's shape; dtype of input 0. */
static tvm_status bcast_infer(tvm_graph *g, tvm_gnode *n) {
  bkind k = kind_of(n);
  int mask = dtmask_of(k);
  tvm_status st;
  if (n->ninputs < 1)
    return op_fail(n, TVM_ERR_INVALID, "needs at least one input");
  int64_t shape[TVM_MAX_DIMS];
  int nd = 0;
  for (int i = 0; i < n->ninputs; i++) {
    int m = k == B_POW && i == 1 ? DT_NUM : mask;
    if ((st = op_check_dtype(n, i, i == 0 ? "A" : "B", m)))
      return st;
    const tvm_gvalue *v = n->inputs[i];
    if (i > 0 && !(k == B_POW) &&
        !tvm_dtype_eq(v->dtype, n->inputs[0]->dtype)) {
      char a[32], b[32];
      return op_fail(n, TVM_ERR_INVALID,
                     "input %d has dtype %s but input 0 has %s; all inputs "
                     "must have one dtype (insert a Cast)",
                     i, tvm_dtype_str(v->dtype, b),
                     tvm_dtype_str(n->inputs[0]->dtype, a));
    }
    if (i == 0) {
      nd = v->ndim;
      memcpy(shape, v->shape, sizeof(int64_t) * (size_t)nd);
    } else if ((st = op_broadcast(n, shape, nd, v->shape, v->ndim, shape,
                                  &nd))) {
      return st;
    }
  }
  if (k == B_PRELU) {
    const tvm_gvalue *x = n->inputs[0];
    if (nd != x->ndim || memcmp(shape, x->shape, sizeof(int64_t) * nd)) {
      char a[128], b[128];
      return op_fail(
          n, TVM_ERR_INVALID,
          "slope of shape %s does not broadcast to x of shape %s "
          "(PRelu broadcasts the slope one way only)",
          op_shape_str(b, sizeof b, n->inputs[1]->shape, n->inputs[1]->ndim),
          op_shape_str(a, sizeof a, x->shape, x->ndim));
    }
  }
  op_set_out(n, 0, n->inputs[0]->dtype, nd, shape);
  return TVM_OK;
}

typedef struct bud {
  bkind k;
  tvm_tensor **in;
  int nin;
  int ndim;
} bud;

/* acc (op) v for the kinds that fold. */
static tvm_expr *combine(tvm_ctx *c, bkind k, tvm_expr *a, tvm_expr *b) {
  switch (k) {
  case B_ADD:
  case B_SUM:
  case B_MEAN:
    return tvm_add(c, a, b);
  case B_SUB:
    return tvm_sub(c, a, b);
  case B_MUL:
    return tvm_mul(c, a, b);
  case B_DIV:
    return tvm_div(c, a, b);
  case B_MAX:
    return tvm_max(c, a, b);
  case B_MIN:
    return tvm_min(c, a, b);
  case B_POW: {
    if (!a || !b)
      return NULL;
    if (!tvm_dtype_is_float(a->dtype)) { /* integer base: pow in float64 */
      tvm_expr *args[2] = {tvm_cast(c, TVM_F64, a), tvm_cast(c, TVM_F64, b)};
      tvm_expr *p = tvm_call(c, TVM_F64, TVM_INTRIN_POW, args, 2);
      /* A device's pow may be 2 ulp off (CUDA's is): 3^1 as 2.9999999
       * would truncate to 2.  Where the exact power is an integer (an
       * integer exponent >= 0, or a base of -1, 0 or 1) round to it;
       * elsewhere (|result| <= 1/2) truncate, as the reference does. */
      if (!tvm_dtype_is_float(b->dtype)) {
        tvm_expr *one = op_te_const(c, a->dtype, 1);
        tvm_expr *unit = a->dtype.code == kDLUInt
                             ? tvm_le(c, a, one)
                             : tvm_and(c, tvm_ge(c, a, op_te_const(c, a->dtype, -1)),
                                       tvm_le(c, a, one));
        tvm_expr *whole = tvm_or(c, tvm_ge(c, b, op_te_const(c, b->dtype, 0)), unit);
        tvm_expr *r = tvm_call(c, TVM_F64, TVM_INTRIN_ROUND, &p, 1);
        p = tvm_select(c, whole, r, p);
      }
      return tvm_cast(c, a->dtype, p);
    }
    tvm_expr *args[2] = {
        a, tvm_dtype_eq(b->dtype, a->dtype) ? b : tvm_cast(c, a->dtype, b)};
    return tvm_call(c, a->dtype, TVM_INTRIN_POW, args, 2);
  }
  case B_PRELU:
    return tvm_select(c, tvm_lt(c, a, op_te_const(c, a->dtype, 0)),
                      tvm_mul(c, a, b), a);
  }
  return NULL;
}

/* Folds every input (broadcast read) with the operator; Mean divides at the
 * end. */
static tvm_expr *bcast_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  bud *u = ud;
  tvm_dtype t = u->in[0]->dtype;
  /* float16/bfloat16: computed in float32, rounded once at the end */
  int half = op_dt_bit(t) & (DT_F16 | DT_BF16);
  tvm_expr *acc = op_te_bcast_read(c, u->in[0], i, u->ndim);
  if (half && acc)
    acc = tvm_cast(c, TVM_F32, acc);
  for (int k = 1; k < u->nin; k++) {
    tvm_expr *v = op_te_bcast_read(c, u->in[k], i, u->ndim);
    acc = combine(c, u->k, acc, half && v ? tvm_cast(c, TVM_F32, v) : v);
  }
  if (u->k == B_MEAN && u->nin > 1)
    acc = tvm_div(c, acc, op_te_const(c, half ? TVM_F32 : t, u->nin));
  return half && acc ? tvm_cast(c, t, acc) : acc;
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status bcast_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                                tvm_tensor **out) {
  bud u = {kind_of(n), in, n->ninputs, n->outputs[0]->ndim};
  for (int k = 0; k < u.nin; k++)
    if (!in[k])
      return op_fail(n, TVM_ERR_INTERNAL, "compute without input %d", k);
  out[0] = op_te_compute_out(c, n, 0, "broadcast", bcast_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Scalar reference on doubles (floats). */
static double fcombine(bkind k, double a, double b) {
  switch (k) {
  case B_ADD:
  case B_SUM:
  case B_MEAN:
    return a + b;
  case B_SUB:
    return a - b;
  case B_MUL:
    return a * b;
  case B_DIV:
    return a / b;
  case B_POW:
    return pow(a, b);
  case B_MAX:
    return a > b ? a : b;
  case B_MIN:
    return a < b ? a : b;
  case B_PRELU:
    return a < 0 ? a * b : a;
  }
  return 0;
}

/* Integer reference of the binary kinds (0 for a zero divisor). */
static int64_t icombine(bkind k, int64_t a, int64_t b) {
  switch (k) {
  case B_SUB:
    return a - b;
  case B_MUL:
    return a * b;
  case B_DIV:
    return b == 0 ? 0 : a / b;
  case B_MAX:
    return a > b ? a : b;
  case B_MIN:
    return a < b ? a : b;
  default:
    return a + b;
  }
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status bcast_reference(const tvm_gnode *n, const DLTensor *const *in,
                                  DLTensor *const *out) {
  bkind k = kind_of(n);
  int64_t len = op_dl_numel(out[0]);
  int fl = op_dl_is_float(out[0]) || k == B_POW; /* int Pow: via double */
  for (int64_t e = 0; e < len; e++) {
    if (fl) {
      double acc = op_dl_getf(in[0], op_dl_bcast_index(in[0], out[0], e));
      for (int i = 1; i < n->ninputs; i++)
        acc =
            fcombine(k, acc, op_dl_getf(in[i], op_dl_bcast_index(in[i], out[0], e)));
      if (k == B_MEAN)
        acc /= n->ninputs;
      op_dl_setf(out[0], e, acc);
    } else {
      int64_t acc = op_dl_geti(in[0], op_dl_bcast_index(in[0], out[0], e));
      for (int i = 1; i < n->ninputs; i++)
        acc =
            icombine(k, acc, op_dl_geti(in[i], op_dl_bcast_index(in[i], out[0], e)));
      op_dl_seti(out[0], e, acc);
    }
  }
  return TVM_OK;
}

#define BIN(nm, pat, doc_)                                                     \
  { nm, 2, 2, 1, 1, pat, bcast_infer, bcast_compute, bcast_reference, doc_ }
#define VAR(nm, doc_)                                                          \
  {                                                                            \
    nm, 1, 64, 1, 1, TVM_PAT_BROADCAST, bcast_infer, bcast_compute,            \
        bcast_reference, doc_                                                  \
  }

static const tvm_gop_def defs[] = {
    BIN("Add", TVM_PAT_BROADCAST, "C = A + B (numpy broadcasting)"),
    BIN("Sub", TVM_PAT_BROADCAST, "C = A - B (numpy broadcasting)"),
    BIN("Mul", TVM_PAT_BROADCAST, "C = A * B (numpy broadcasting)"),
    BIN("Div", TVM_PAT_BROADCAST,
        "C = A / B (numpy broadcasting; integers truncate)"),
    BIN("Pow", TVM_PAT_BROADCAST, "Z = X ^ Y (numpy broadcasting)"),
    VAR("Max", "elementwise maximum of the inputs (numpy broadcasting)"),
    VAR("Min", "elementwise minimum of the inputs (numpy broadcasting)"),
    VAR("Sum", "elementwise sum of the inputs (numpy broadcasting)"),
    VAR("Mean", "elementwise mean of the inputs (numpy broadcasting)"),
    BIN("PRelu", TVM_PAT_BROADCAST,
        "y = x < 0 ? slope * x : x (slope broadcast to x)"),
};

const ops_family ops_broadcast_family = {defs,
                                         (int)(sizeof defs / sizeof defs[0])};
