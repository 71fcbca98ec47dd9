/*
 * core/graph/ops/util.c - shared helpers of the operator library: error
 * messages naming the node, type-checked attribute access, input checks,
 * broadcasting shape inference, tensor expression helpers (broadcast
 * reads, padding) and DLTensor element access for the references.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "ops_int.h"

/* The node's name, or its op when unnamed. */
const char *op_name(const tvm_gnode *n) {
  return n->name ? n->name : n->op ? n->op : "?";
}

/* Formats "<Op> node '<name>': <message>" into the diagnostic. */
tvm_status op_fail(const tvm_gnode *n, tvm_status st, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tvm_diag_set(st, "%s node '%s': %s", n->op ? n->op : "?", op_name(n),
                      msg);
}

/* Finds an attribute by name, or NULL. */
static const tvm_gattr *find_attr(const tvm_gnode *n, const char *name) {
  for (int i = 0; i < n->nattrs; i++)
    if (n->attrs[i].name && strcmp(n->attrs[i].name, name) == 0)
      return &n->attrs[i];
  return NULL;
}

/* Name of an attribute type for messages. */
static const char *attr_type_name(tvm_gattr_type t) {
  switch (t) {
  case TVM_GATTR_INT:
    return "an int";
  case TVM_GATTR_FLOAT:
    return "a float";
  case TVM_GATTR_STRING:
    return "a string";
  case TVM_GATTR_INTS:
    return "a list of ints";
  case TVM_GATTR_FLOATS:
    return "a list of floats";
  }
  return "unknown";
}

/* The "_opset" attribute set by the ONNX importer; 13 when absent. */
int op_opset(const tvm_gnode *n) {
  const tvm_gattr *a = find_attr(n, "_opset");
  return a && a->type == TVM_GATTR_INT ? (int)a->i : 13;
}

/* Integer attribute with type check. */
tvm_status op_attr_int(const tvm_gnode *n, const char *name, int64_t dflt,
                       int64_t *out) {
  const tvm_gattr *a = find_attr(n, name);
  *out = dflt;
  if (!a)
    return TVM_OK;
  if (a->type != TVM_GATTR_INT)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute '%s' must be an int, got %s; set it with "
                   "tvm_gattr_int",
                   name, attr_type_name(a->type));
  *out = a->i;
  return TVM_OK;
}

/* Float attribute with type check (an int is accepted). */
tvm_status op_attr_float(const tvm_gnode *n, const char *name, double dflt,
                         double *out) {
  const tvm_gattr *a = find_attr(n, name);
  *out = dflt;
  if (!a)
    return TVM_OK;
  if (a->type == TVM_GATTR_INT) {
    *out = (double)a->i;
    return TVM_OK;
  }
  if (a->type != TVM_GATTR_FLOAT)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute '%s' must be a float, got %s; set it with "
                   "tvm_gattr_float",
                   name, attr_type_name(a->type));
  *out = a->f;
  return TVM_OK;
}

/* String attribute with type check. */
tvm_status op_attr_str(const tvm_gnode *n, const char *name, const char *dflt,
                       const char **out) {
  const tvm_gattr *a = find_attr(n, name);
  *out = dflt;
  if (!a)
    return TVM_OK;
  if (a->type != TVM_GATTR_STRING || !a->s)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute '%s' must be a string, got %s; set it with "
                   "tvm_gattr_str",
                   name, attr_type_name(a->type));
  *out = a->s;
  return TVM_OK;
}

/* List-of-ints attribute with type check; *len = -1 when absent. */
tvm_status op_attr_ints(const tvm_gnode *n, const char *name, const int64_t **v,
                        int *len) {
  const tvm_gattr *a = find_attr(n, name);
  *v = NULL;
  *len = -1;
  if (!a)
    return TVM_OK;
  if (a->type != TVM_GATTR_INTS)
    return op_fail(n, TVM_ERR_INVALID,
                   "attribute '%s' must be a list of ints, got %s; set it "
                   "with tvm_gattr_ints",
                   name, attr_type_name(a->type));
  if (a->n > TVM_MAX_DIMS * 2 + 64)
    return op_fail(n, TVM_ERR_INVALID, "attribute '%s' has %d values, too many",
                   name, a->n);
  *v = a->ints;
  *len = a->n;
  return TVM_OK;
}

/* The DT_* bit of a dtype. */
int op_dt_bit(tvm_dtype t) {
  if (t.lanes != 1)
    return 0;
  switch (t.code) {
  case kDLFloat:
    return t.bits == 32 ? DT_F32 : t.bits == 64 ? DT_F64
                                 : t.bits == 16 ? DT_F16 : 0;
  case kDLBfloat:
    return t.bits == 16 ? DT_BF16 : 0;
  case kDLInt:
    return t.bits == 8 ? DT_I8 : t.bits == 16 ? DT_I16 : t.bits == 32 ? DT_I32
         : t.bits == 64 ? DT_I64 : 0;
  case kDLUInt:
    return t.bits == 1 ? DT_BOOL : t.bits == 8 ? DT_U8 : t.bits == 16 ? DT_U16
         : t.bits == 32 ? DT_U32 : t.bits == 64 ? DT_U64 : 0;
  }
  return 0;
}

/* "float32, int32 or int64" for a mask. */
static void mask_str(char *buf, size_t cap, int mask) {
  static const struct {
    int bit;
    const char *name;
  } names[] = {{DT_F32, "float32"},  {DT_I32, "int32"},
               {DT_I64, "int64"},    {DT_F64, "float64"},
               {DT_BOOL, "bool"},    {DT_I8, "int8"},
               {DT_U8, "uint8"},     {DT_I16, "int16"},
               {DT_U16, "uint16"},   {DT_U32, "uint32"},
               {DT_U64, "uint64"},   {DT_F16, "float16"},
               {DT_BF16, "bfloat16"}};
  const size_t nn = sizeof names / sizeof names[0];
  int cnt = 0, total = 0;
  for (size_t i = 0; i < nn; i++)
    total += (mask & names[i].bit) != 0;
  buf[0] = 0;
  for (size_t i = 0; i < nn; i++) {
    if (!(mask & names[i].bit))
      continue;
    size_t l = strlen(buf);
    snprintf(buf + l, cap - l, "%s%s",
             cnt == 0           ? ""
             : cnt == total - 1 ? " or "
                                : ", ",
             names[i].name);
    cnt++;
  }
}

/* Input i, failing when absent. */
tvm_status op_input(const tvm_gnode *n, int i, const char *what,
                    const tvm_gvalue **out) {
  if (i >= n->ninputs || !n->inputs[i])
    return op_fail(n, TVM_ERR_INVALID, "input %d (%s) is required but missing",
                   i, what);
  *out = n->inputs[i];
  return TVM_OK;
}

/* Input i present with a dtype in mask. */
tvm_status op_check_dtype(const tvm_gnode *n, int i, const char *what,
                          int mask) {
  const tvm_gvalue *v = NULL;
  tvm_status st = op_input(n, i, what, &v);
  if (st)
    return st;
  if (!(op_dt_bit(v->dtype) & mask)) {
    char got[32], want[64];
    mask_str(want, sizeof want, mask);
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "input %d (%s) has dtype %s; this operator supports %s "
                   "here (insert a Cast)",
                   i, what, tvm_dtype_str(v->dtype, got), want);
  }
  return TVM_OK;
}

/* Optional input i: *out NULL when absent, else dtype-checked. */
tvm_status op_opt_input(const tvm_gnode *n, int i, const char *what, int mask,
                        const tvm_gvalue **out) {
  *out = NULL;
  if (i >= n->ninputs || !n->inputs[i])
    return TVM_OK;
  tvm_status st = op_check_dtype(n, i, what, mask);
  if (!st)
    *out = n->inputs[i];
  return st;
}

/* Refuses packed layouts on input i. */
tvm_status op_plain_layout(const tvm_gnode *n, int i) {
  static const char *const plain[] = {"NC", "NCW", "NCHW", "NCDHW"};
  const tvm_gvalue *v = i < n->ninputs ? n->inputs[i] : NULL;
  if (!v || !v->layout)
    return TVM_OK;
  for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++)
    if (strcmp(v->layout, plain[k]) == 0)
      return TVM_OK;
  return op_fail(n, TVM_ERR_UNSUPPORTED,
                 "input %d has layout %s; this operator computes plain "
                 "channel-first (NCHW) data: a packed layout needs the "
                 "target's layout-specific compute",
                 i, v->layout);
}

/* Sets dtype/ndim/shape of output k when present. */
void op_set_out(tvm_gnode *n, int k, tvm_dtype t, int ndim,
                const int64_t *shape) {
  if (k >= n->noutputs || !n->outputs[k])
    return;
  tvm_gvalue *v = n->outputs[k];
  v->dtype = t;
  v->ndim = ndim;
  for (int d = 0; d < ndim; d++)
    v->shape[d] = shape[d];
}

/* Where a value that should be constant comes from, for messages. */
static const char *nonconst_source(const tvm_gvalue *v, char *buf,
                                   size_t cap) {
  if (v->kind == TVM_GV_INPUT)
    snprintf(buf, cap, "it is graph input '%s', fed at run time (freeze it "
             "to a constant, or make it an initializer)", v->name);
  else if (v->producer)
    snprintf(buf, cap, "it is computed at run time by node '%s' (%s)",
             v->producer->name ? v->producer->name : "?", v->producer->op);
  else
    snprintf(buf, cap, "value '%s' has no data", v->name);
  return buf;
}

/* Reads a constant int32/int64 vector input. */
tvm_status op_const_ints(const tvm_gnode *n, int i, const char *what,
                         int64_t *buf, int max, int *cnt) {
  const tvm_gvalue *v = NULL;
  tvm_status st = op_input(n, i, what, &v);
  if (st)
    return st;
  char src[400];
  if (v->kind != TVM_GV_CONST || !v->data)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "input %d (%s) must be a constant, but %s; a dynamic %s "
                   "is not supported",
                   i, what, nonconst_source(v, src, sizeof src), what);
  int bit = op_dt_bit(v->dtype);
  if (bit != DT_I32 && bit != DT_I64)
    return op_fail(n, TVM_ERR_INVALID, "input %d (%s) must be int64 (or int32)",
                   i, what);
  if (v->ndim > 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "input %d (%s) must be 1-D, it has %d dimensions", i, what,
                   v->ndim);
  int64_t len = v->ndim == 0 ? 1 : v->shape[0];
  if (len > max)
    return op_fail(n, TVM_ERR_INVALID,
                   "input %d (%s) has %lld values, at most %d allowed", i, what,
                   (long long)len, max);
  for (int64_t k = 0; k < len; k++)
    buf[k] = bit == DT_I32 ? ((const int32_t *)v->data)[k]
                           : ((const int64_t *)v->data)[k];
  *cnt = (int)len;
  return TVM_OK;
}

/* Reads a constant one-element input as a double. */
tvm_status op_const_scalar(const tvm_gnode *n, int i, const char *what,
                           double *out) {
  const tvm_gvalue *v = NULL;
  tvm_status st = op_input(n, i, what, &v);
  if (st)
    return st;
  char src[400];
  if (v->kind != TVM_GV_CONST || !v->data)
    return op_fail(n, TVM_ERR_UNSUPPORTED,
                   "input %d (%s) must be a constant, but %s; a %s computed "
                   "at run time is not supported",
                   i, what, nonconst_source(v, src, sizeof src), what);
  if (tvm_gvalue_numel(v) != 1)
    return op_fail(n, TVM_ERR_INVALID,
                   "input %d (%s) must hold one value (a scalar)", i, what);
  switch (op_dt_bit(v->dtype)) {
  case DT_F32:
    *out = ((const float *)v->data)[0];
    return TVM_OK;
  case DT_F64:
    *out = ((const double *)v->data)[0];
    return TVM_OK;
  case DT_I32:
    *out = ((const int32_t *)v->data)[0];
    return TVM_OK;
  case DT_I64:
    *out = (double)((const int64_t *)v->data)[0];
    return TVM_OK;
  }
  return op_fail(n, TVM_ERR_UNSUPPORTED,
                 "input %d (%s) has an unsupported "
                 "dtype",
                 i, what);
}

/* Normalizes a possibly negative axis. */
tvm_status op_axis(const tvm_gnode *n, const char *what, int64_t axis, int rank,
                   int *out) {
  if (axis < -rank || axis >= rank || (rank == 0 && axis != 0))
    return op_fail(n, TVM_ERR_INVALID,
                   "%s = %lld is out of range for rank %d; use a value in "
                   "[%d, %d]",
                   what, (long long)axis, rank, -rank, rank > 0 ? rank - 1 : 0);
  *out = (int)(axis < 0 ? axis + rank : axis);
  return TVM_OK;
}

/* "[a, b, c]" */
const char *op_shape_str(char *buf, size_t cap, const int64_t *s, int n) {
  size_t l = 0;
  l += (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < n && l < cap; i++)
    l += (size_t)snprintf(buf + l, cap - l, "%s%lld", i ? ", " : "",
                          (long long)s[i]);
  if (l < cap)
    snprintf(buf + l, cap - l, "]");
  return buf;
}

/* Numpy broadcast of shapes a and b. */
tvm_status op_broadcast(const tvm_gnode *n, const int64_t *a, int na,
                        const int64_t *b, int nb, int64_t *out, int *nout) {
  int r = na > nb ? na : nb;
  int64_t res[TVM_MAX_DIMS];
  if (r > TVM_MAX_DIMS)
    return op_fail(n, TVM_ERR_UNSUPPORTED, "more than %d dimensions",
                   TVM_MAX_DIMS);
  for (int d = 0; d < r; d++) {
    int da = d - (r - na), db = d - (r - nb);
    int64_t x = da >= 0 ? a[da] : 1, y = db >= 0 ? b[db] : 1;
    if (x != y && x != 1 && y != 1) {
      char sa[128], sb[128];
      return op_fail(n, TVM_ERR_INVALID,
                     "shapes %s and %s cannot be broadcast (dimension %d: "
                     "%lld vs %lld); numpy broadcasting needs equal sizes or "
                     "1",
                     op_shape_str(sa, sizeof sa, a, na),
                     op_shape_str(sb, sizeof sb, b, nb), d, (long long)x,
                     (long long)y);
    }
    res[d] = x == 1 ? y : x;
  }
  for (int d = 0; d < r; d++)
    out[d] = res[d];
  *nout = r;
  return TVM_OK;
}

/* ---- tensor expressions ----------------------------------------------- */

tvm_expr *op_te_bcast_read(tvm_ctx *c, tvm_tensor *t, tvm_expr **idx,
                        int out_ndim) {
  tvm_expr *ix[TVM_MAX_DIMS];
  for (int d = 0; d < t->ndim; d++) {
    int od = out_ndim - t->ndim + d;
    ix[d] = t->shape_c[d] == 1 ? tvm_int(c, 0) : idx[od];
  }
  return tvm_tread(c, t, ix, t->ndim);
}

const char *op_te_name(tvm_ctx *c, const tvm_gnode *n, const char *suffix) {
  if (!suffix)
    return tvm_ctx_strdup(c, op_name(n));
  return tvm_arena_printf(c->arena, "%s.%s", op_name(n), suffix);
}

tvm_tensor *op_te_compute_out(tvm_ctx *c, const tvm_gnode *n, int k,
                           const char *tag, tvm_compute_fn fn, void *ud) {
  const tvm_gvalue *v = n->outputs[k];
  const char *nm = k == 0 ? op_te_name(c, n, NULL)
                          : tvm_arena_printf(c->arena, "%s.%d", op_name(n), k);
  tvm_tensor *t = tvm_compute(c, nm, v->shape, v->ndim, fn, ud);
  if (t && tag)
    tvm_tensor_set_tag(t, tag);
  return t;
}

/* k < 0 ? k + n : k, as int32, clamped into [0, n) (index operators). */
tvm_expr *op_te_wrap_index(tvm_ctx *c, tvm_expr *k, int64_t n) {
  if (!k)
    return NULL;
  if (!tvm_dtype_is_int(k->dtype) || k->dtype.bits != 64)
    k = tvm_cast(c, TVM_I64, k);
  k = tvm_select(c, tvm_lt(c, k, tvm_const(c, TVM_I64, 0)),
                 tvm_add(c, k, tvm_const(c, TVM_I64, n)), k);
  k = tvm_cast(c, TVM_I32, k);
  return tvm_max(c, tvm_int(c, 0), tvm_min(c, k, tvm_int(c, n - 1)));
}

/* Same for the references: clamped into [0, n) like the computes (ONNX
 * leaves out-of-range indices undefined; Gather does the same). */
int64_t op_wrap_index(int64_t k, int64_t n) {
  if (k < 0)
    k += n;
  return k < 0 ? 0 : k >= n ? n - 1 : k;
}

/* Row-major strides of shape. */
void op_strides(const int64_t *s, int nd, int64_t *st) {
  int64_t m = 1;
  for (int d = nd - 1; d >= 0; d--) {
    st[d] = m;
    m *= s[d];
  }
}

/* Round half to even from floor only: r = floor(x), d = x - r;
 * d > 0.5 or (d == 0.5 and r odd) -> r + 1, else r. */
tvm_expr *op_te_round_even(tvm_ctx *c, tvm_expr *x) {
  if (!x)
    return NULL;
  tvm_dtype t = x->dtype;
  tvm_expr *r = tvm_math(c, TVM_INTRIN_FLOOR, x);
  tvm_expr *d = tvm_sub(c, x, r);
  tvm_expr *half = op_te_const(c, t, 0.5);
  tvm_expr *odd = tvm_ne(
      c,
      tvm_sub(c, r,
              tvm_mul(c, op_te_const(c, t, 2),
                      tvm_math(c, TVM_INTRIN_FLOOR, tvm_mul(c, r, half)))),
      op_te_const(c, t, 0));
  tvm_expr *up =
      tvm_or(c, tvm_gt(c, d, half), tvm_and(c, tvm_eq(c, d, half), odd));
  return tvm_select(c, up, tvm_add(c, r, op_te_const(c, t, 1)), r);
}

tvm_expr *op_te_const(tvm_ctx *c, tvm_dtype t, double v) {
  if (tvm_dtype_is_float(t))
    return tvm_fconst(c, t, v);
  return tvm_const(c, t, (int64_t)v);
}

int op_is_f16ish(tvm_dtype t) {
  return t.bits == 16 && (t.code == kDLFloat || t.code == kDLBfloat);
}

tvm_expr *op_te_widen(tvm_ctx *c, tvm_expr *e, int wide) {
  return wide ? tvm_cast(c, TVM_F32, e) : e;
}

typedef struct pad_ud {
  tvm_tensor *x;
  const int64_t *pads;
  int nsp;
  double value;
} pad_ud;

/* Body of the padded tensor: select(inside, x[clamped], value). */
static tvm_expr *pad_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  pad_ud *p = ud;
  tvm_tensor *x = p->x;
  int lead = x->ndim - p->nsp;
  tvm_expr *ix[TVM_MAX_DIMS], *cond = NULL;
  for (int d = 0; d < x->ndim; d++) {
    if (d < lead) {
      ix[d] = i[d];
      continue;
    }
    int64_t before = p->pads[d - lead], after = p->pads[d - lead + p->nsp];
    if (before == 0 && after == 0) {
      ix[d] = i[d];
      continue;
    }
    tvm_expr *src = tvm_sub(c, i[d], tvm_int(c, before));
    tvm_expr *in = tvm_and(c, tvm_ge(c, src, tvm_int(c, 0)),
                           tvm_lt(c, src, tvm_int(c, x->shape_c[d])));
    cond = cond ? tvm_and(c, cond, in) : in;
    ix[d] = tvm_min(c, tvm_max(c, src, tvm_int(c, 0)),
                    tvm_int(c, x->shape_c[d] - 1));
  }
  tvm_expr *rd = tvm_tread(c, x, ix, x->ndim);
  if (!cond)
    return rd;
  return tvm_select(c, cond, rd, op_te_const(c, x->dtype, p->value));
}

tvm_tensor *op_te_pad(tvm_ctx *c, const tvm_gnode *n, tvm_tensor *x,
                   const int64_t *pads, int nsp, double value) {
  int any = 0;
  for (int k = 0; k < 2 * nsp; k++)
    any |= pads[k] != 0;
  if (!any)
    return x;
  int64_t shape[TVM_MAX_DIMS];
  int lead = x->ndim - nsp;
  for (int d = 0; d < x->ndim; d++)
    shape[d] =
        x->shape_c[d] + (d < lead ? 0 : pads[d - lead] + pads[d - lead + nsp]);
  pad_ud p = {x, pads, nsp, value};
  tvm_tensor *t =
      tvm_compute(c, op_te_name(c, n, "pad"), shape, x->ndim, pad_body, &p);
  if (t)
    tvm_tensor_set_tag(t, "pad");
  return t;
}

tvm_status op_te_status(tvm_ctx *c, const tvm_gnode *n, tvm_tensor *t) {
  if (c->failed || !t) {
    tvm_status st = tvm_diag_status();
    if (st == TVM_OK)
      st = c->failed == 1 ? TVM_ERR_NOMEM : TVM_ERR_INTERNAL;
    return tvm_diag_prefix(st, "%s node '%s' compute: ", n->op, op_name(n));
  }
  return TVM_OK;
}

/* ---- DLTensor access -------------------------------------------------- */

int64_t op_dl_numel(const DLTensor *t) {
  int64_t k = 1;
  for (int d = 0; d < t->ndim; d++)
    k *= t->shape[d];
  return k;
}

int op_dl_is_float(const DLTensor *t) {
  return t->dtype.code == kDLFloat || t->dtype.code == kDLBfloat;
}

int op_dl_elem_bytes(const DLTensor *t) {
  return (t->dtype.bits * t->dtype.lanes + 7) / 8;
}

/* Address of the first element of t. */
static char *dl_ptr(const DLTensor *t) {
  return (char *)t->data + t->byte_offset;
}

/* IEEE half <-> float (round to nearest even), bfloat16 <-> float. */
static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f,
           m = h & 0x3ff, bits;
  if (e == 0) {
    if (m == 0) {
      bits = sign;
    } else { /* subnormal: normalize */
      e = 127 - 15 + 1;
      while (!(m & 0x400)) {
        m <<= 1;
        e--;
      }
      bits = sign | (e << 23) | ((m & 0x3ff) << 13);
    }
  } else if (e == 31) {
    bits = sign | 0x7f800000u | (m << 13);
  } else {
    bits = sign | ((e + 127 - 15) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t e = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t m = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) /* inf, nan */
    return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
  if (e >= 31)
    return (uint16_t)(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10)
      return (uint16_t)sign;
    m |= 0x800000;
    int shift = 14 - e;
    uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1),
             half = 1u << (shift - 1);
    if (rem > half || (rem == half && (hm & 1)))
      hm++;
    return (uint16_t)(sign | hm);
  }
  uint32_t hm = m >> 13, rem = m & 0x1fff;
  uint32_t h = sign | ((uint32_t)e << 10) | hm;
  if (rem > 0x1000 || (rem == 0x1000 && (hm & 1)))
    h++; /* may carry into the exponent: still right */
  return (uint16_t)h;
}

static float bf16_to_float(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t float_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return (uint16_t)((x >> 16) | 0x40); /* quiet NaN */
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

double op_dl_getf(const DLTensor *t, int64_t i) {
  char *p = dl_ptr(t);
  switch (t->dtype.code) {
  case kDLFloat:
    if (t->dtype.bits == 16)
      return half_to_float(((uint16_t *)p)[i]);
    return t->dtype.bits == 64 ? ((double *)p)[i] : ((float *)p)[i];
  case kDLBfloat:
    return bf16_to_float(((uint16_t *)p)[i]);
  case kDLUInt:
    if (t->dtype.bits == 64)
      return (double)((uint64_t *)p)[i];
    return (double)op_dl_geti(t, i);
  default:
    return (double)op_dl_geti(t, i);
  }
}

void op_dl_setf(const DLTensor *t, int64_t i, double v) {
  char *p = dl_ptr(t);
  switch (t->dtype.code) {
  case kDLFloat:
    if (t->dtype.bits == 64)
      ((double *)p)[i] = v;
    else if (t->dtype.bits == 16)
      ((uint16_t *)p)[i] = float_to_half((float)v);
    else
      ((float *)p)[i] = (float)v;
    return;
  case kDLBfloat:
    ((uint16_t *)p)[i] = float_to_bf16((float)v);
    return;
  default:
    /* out-of-range conversions are undefined in C: give what x86's
     * cvttsd2si (and so the generated code) gives, INT64_MIN */
    if (t->dtype.code == kDLUInt && t->dtype.bits == 64 && v >= 0x1p63 &&
        v < 0x1p64) {
      ((uint64_t *)p)[i] = (uint64_t)v;
      return;
    }
    if (!(v >= -0x1p63 && v < 0x1p63)) {
      op_dl_seti(t, i, INT64_MIN);
      return;
    }
    op_dl_seti(t, i, (int64_t)v);
  }
}

int64_t op_dl_geti(const DLTensor *t, int64_t i) {
  char *p = dl_ptr(t);
  if (t->dtype.code == kDLInt) {
    switch (t->dtype.bits) {
    case 8:
      return ((int8_t *)p)[i];
    case 16:
      return ((int16_t *)p)[i];
    case 32:
      return ((int32_t *)p)[i];
    default:
      return ((int64_t *)p)[i];
    }
  }
  if (t->dtype.code == kDLUInt) {
    switch (t->dtype.bits) {
    case 1:
    case 8:
      return ((uint8_t *)p)[i];
    case 16:
      return ((uint16_t *)p)[i];
    case 32:
      return ((uint32_t *)p)[i];
    default:
      return (int64_t)((uint64_t *)p)[i]; /* wraps above 2^63 */
    }
  }
  double v = op_dl_getf(t, i);
  return v >= -0x1p63 && v < 0x1p63 ? (int64_t)v : INT64_MIN;
}

void op_dl_seti(const DLTensor *t, int64_t i, int64_t v) {
  char *p = dl_ptr(t);
  if (t->dtype.code == kDLFloat || t->dtype.code == kDLBfloat) {
    if (t->dtype.code == kDLFloat && t->dtype.bits == 64)
      ((double *)p)[i] = (double)v;
    else
      op_dl_setf(t, i, (double)v);
    return;
  }
  switch (t->dtype.bits) {
  case 1:
    ((uint8_t *)p)[i] = v != 0;
    return;
  case 8:
    ((uint8_t *)p)[i] = (uint8_t)v;
    return;
  case 16:
    ((uint16_t *)p)[i] = (uint16_t)v;
    return;
  case 32:
    ((uint32_t *)p)[i] = (uint32_t)v;
    return;
  default:
    ((uint64_t *)p)[i] = (uint64_t)v;
    return;
  }
}

void op_dl_unravel(int64_t flat, const int64_t *shape, int ndim, int64_t *idx) {
  for (int d = ndim - 1; d >= 0; d--) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
}

int64_t op_dl_bcast_index(const DLTensor *src, const DLTensor *out, int64_t flat) {
  int64_t idx[TVM_MAX_DIMS];
  op_dl_unravel(flat, out->shape, out->ndim, idx);
  int64_t s = 0;
  for (int d = 0; d < src->ndim; d++) {
    int od = out->ndim - src->ndim + d;
    s = s * src->shape[d] + (src->shape[d] == 1 ? 0 : idx[od]);
  }
  return s;
}
