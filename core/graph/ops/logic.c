/*
 * core/graph/ops/logic.c - comparisons and logic with numpy broadcasting:
 * Equal, Less, Greater, LessOrEqual, GreaterOrEqual (numbers of one
 * dtype, Equal also bool -> bool), And, Or, Xor (bool), Not (bool),
 * Where (bool condition, two values of one dtype), Mod (fmod = 0:
 * integer modulo with the divisor's sign; fmod = 1: C fmod, the
 * dividend's sign, required for floats), BitShift (unsigned; a shift by
 * the width or more gives 0), IsNaN and IsInf (floats -> bool).  The
 * references give 0 for an integer modulo by zero instead of trapping.
 */
#include <math.h>
#include <string.h>

#include "ops_int.h"

typedef enum {
  L_EQ,
  L_LT,
  L_GT,
  L_LE,
  L_GE,
  L_AND,
  L_OR,
  L_XOR,
  L_NOT,
  L_WHERE,
  L_MOD,
  L_SHIFT,
  L_ISNAN,
  L_ISINF
} lkind;

static const char *const lnames[] = {
    "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or",
    "Xor",   "Not",  "Where",   "Mod",      "BitShift", "IsNaN", "IsInf"};

/* The operator kind of n, from its op name. */
static lkind kind_of(const tvm_gnode *n) {
  for (int k = 0; k < (int)(sizeof lnames / sizeof lnames[0]); k++)
    if (strcmp(n->op, lnames[k]) == 0)
      return (lkind)k;
  return L_EQ;
}

/* Is k a comparison? */
static int is_cmp(lkind k) { return k <= L_GE; }
/* Is k a logical operator? */
static int is_logic(lkind k) { return k >= L_AND && k <= L_NOT; }

/* Validates dtypes, broadcasts the shapes and picks the output dtype. */
static tvm_status logic_check(const tvm_gnode *n, int64_t *fmod, int64_t *shape,
                              int *nd, tvm_dtype *t) {
  lkind k = kind_of(n);
  tvm_status st;
  *fmod = 0;
  for (int i = 0; i < n->ninputs; i++) {
    int mask = is_logic(k) || (k == L_WHERE && i == 0) ? DT_BOOL
               : k == L_WHERE  ? DT_NUM | DT_BOOL | DT_F16 | DT_BF16
               : k == L_MOD    ? DT_NUM | DT_F16 | DT_BF16
               : k == L_EQ            ? DT_NUM | DT_BOOL
               : k == L_SHIFT ? DT_U8 | DT_U16 | DT_U32 | DT_U64
               : k == L_ISNAN || k == L_ISINF ? DT_F32 | DT_F64
                                                      : DT_NUM;
    if ((st = op_check_dtype(
             n, i, k == L_WHERE && i == 0 ? "condition" : "input", mask)))
      return st;
  }
  /* value inputs share one dtype */
  int first = k == L_WHERE ? 1 : 0;
  for (int i = first + 1; i < n->ninputs; i++)
    if (!tvm_dtype_eq(n->inputs[i]->dtype, n->inputs[first]->dtype))
      return op_fail(n, TVM_ERR_INVALID,
                     "inputs %d and %d have different dtypes (insert a Cast)",
                     first, i);
  if (k == L_MOD) {
    if ((st = op_attr_int(n, "fmod", 0, fmod)))
      return st;
    if (!*fmod && tvm_dtype_is_float(n->inputs[0]->dtype))
      return op_fail(n, TVM_ERR_INVALID,
                     "attribute 'fmod' must be 1 for floating-point inputs");
  }
  if (k == L_SHIFT) { /* fmod holds the direction: 1 left, 0 right */
    const char *dir;
    if ((st = op_attr_str(n, "direction", "", &dir)))
      return st;
    if (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT"))
      return op_fail(n, TVM_ERR_INVALID,
                     "attribute 'direction' = \"%s\"; give LEFT or RIGHT",
                     dir);
    *fmod = strcmp(dir, "LEFT") == 0;
  }
  if (k == L_ISINF) { /* fmod holds bit 0: +inf counts, bit 1: -inf */
    int64_t pos, neg;
    if ((st = op_attr_int(n, "detect_positive", 1, &pos)) ||
        (st = op_attr_int(n, "detect_negative", 1, &neg)))
      return st;
    *fmod = (pos != 0) | (neg != 0) << 1;
  }
  *nd = n->inputs[0]->ndim;
  memcpy(shape, n->inputs[0]->shape, sizeof(int64_t) * (size_t)*nd);
  for (int i = 1; i < n->ninputs; i++)
    if ((st = op_broadcast(n, shape, *nd, n->inputs[i]->shape,
                           n->inputs[i]->ndim, shape, nd)))
      return st;
  *t = is_cmp(k) || is_logic(k) || k == L_ISNAN || k == L_ISINF
           ? TVM_BOOL
           : n->inputs[first]->dtype;
  return TVM_OK;
}

/* Infer: validates the node (naming the attribute and the fix) and sets the
 * output dtype and shape. */
static tvm_status logic_infer(tvm_graph *g, tvm_gnode *n) {
  int64_t fmod, shape[TVM_MAX_DIMS];
  int nd;
  tvm_dtype t;
  tvm_status st = logic_check(n, &fmod, shape, &nd, &t);
  if (st)
    return st;
  op_set_out(n, 0, t, nd, shape);
  return TVM_OK;
}

typedef struct logic_ud {
  lkind k;
  int64_t fmod;
  tvm_tensor **in;
  int nin, ndim;
} logic_ud;

/* One output element from the broadcast reads of the inputs. */
static tvm_expr *logic_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  logic_ud *u = ud;
  tvm_expr *v[3];
  for (int k = 0; k < u->nin; k++)
    if (!(v[k] = op_te_bcast_read(c, u->in[k], i, u->ndim)))
      return NULL;
  switch (u->k) {
  case L_EQ:
    return tvm_eq(c, v[0], v[1]);
  case L_LT:
    return tvm_lt(c, v[0], v[1]);
  case L_GT:
    return tvm_gt(c, v[0], v[1]);
  case L_LE:
    return tvm_le(c, v[0], v[1]);
  case L_GE:
    return tvm_ge(c, v[0], v[1]);
  case L_AND:
    return tvm_and(c, v[0], v[1]);
  case L_OR:
    return tvm_or(c, v[0], v[1]);
  case L_XOR:
    return tvm_ne(c, v[0], v[1]);
  case L_NOT:
    return tvm_not(c, v[0]);
  case L_WHERE:
    return tvm_select(c, v[0], v[1], v[2]);
  case L_MOD:
    if (op_dt_bit(v[0]->dtype) & (DT_F16 | DT_BF16)) { /* in float32 */
      tvm_dtype t = v[0]->dtype;
      tvm_expr *a = tvm_cast(c, TVM_F32, v[0]), *b = tvm_cast(c, TVM_F32, v[1]);
      return tvm_cast(
          c, t,
          tvm_sub(c, a,
                  tvm_mul(c, tvm_math(c, TVM_INTRIN_TRUNC, tvm_div(c, a, b)),
                          b)));
    }
    if (tvm_dtype_is_float(v[0]->dtype)) /* a - trunc(a / b) * b */
      return tvm_sub(
          c, v[0],
          tvm_mul(c, tvm_math(c, TVM_INTRIN_TRUNC, tvm_div(c, v[0], v[1])),
                  v[1]));
    return u->fmod ? tvm_mod(c, v[0], v[1]) : tvm_floormod(c, v[0], v[1]);
  case L_SHIFT: {
    /* shifting by the width or more gives 0 (LLVM would give poison) */
    tvm_expr *a[2] = {v[0], v[1]};
    tvm_dtype t = v[0]->dtype;
    tvm_expr *sh = tvm_call(c, t, u->fmod ? TVM_INTRIN_SHL : TVM_INTRIN_SHR,
                            a, 2);
    return tvm_select(c, tvm_lt(c, v[1], op_te_const(c, t, t.bits)), sh,
                      op_te_const(c, t, 0));
  }
  case L_ISNAN:
    return tvm_ne(c, v[0], v[0]);
  case L_ISINF: {
    tvm_dtype t = v[0]->dtype;
    tvm_expr *p = tvm_eq(c, v[0], tvm_fconst(c, t, INFINITY));
    tvm_expr *m = tvm_eq(c, v[0], tvm_fconst(c, t, -INFINITY));
    if ((u->fmod & 3) == 3)
      return tvm_or(c, p, m);
    if (u->fmod & 1)
      return p;
    if (u->fmod & 2)
      return m;
    return tvm_ne(c, p, p); /* neither: false */
  }
  }
  return NULL;
}

/* Compute: declares the outputs as tensor expressions of the inputs. */
static tvm_status logic_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                                tvm_tensor **out) {
  logic_ud u = {kind_of(n), 0, in, n->ninputs, n->outputs[0]->ndim};
  int64_t shape[TVM_MAX_DIMS];
  int nd;
  tvm_dtype t;
  tvm_status st = logic_check(n, &u.fmod, shape, &nd, &t);
  if (st)
    return st;
  out[0] = op_te_compute_out(c, n, 0, "broadcast", logic_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Float comparison of kind k as 0 or 1. */
static double fcmp(lkind k, double a, double b) {
  switch (k) {
  case L_EQ:
    return a == b;
  case L_LT:
    return a < b;
  case L_GT:
    return a > b;
  case L_LE:
    return a <= b;
  default:
    return a >= b;
  }
}

/* Reference: naive loops over the CPU tensors (the tests' oracle). */
static tvm_status logic_reference(const tvm_gnode *n, const DLTensor *const *in,
                                  DLTensor *const *out) {
  int64_t fmod_, shape[TVM_MAX_DIMS];
  int nd;
  tvm_dtype t;
  tvm_status st = logic_check(n, &fmod_, shape, &nd, &t);
  if (st)
    return st;
  lkind k = kind_of(n);
  int64_t len = op_dl_numel(out[0]);
  for (int64_t e = 0; e < len; e++) {
    int64_t ix[3] = {0, 0, 0};
    for (int i = 0; i < n->ninputs; i++)
      ix[i] = op_dl_bcast_index(in[i], out[0], e);
    if (is_cmp(k)) {
      int r;
      if (op_dl_is_float(in[0]))
        r = (int)fcmp(k, op_dl_getf(in[0], ix[0]), op_dl_getf(in[1], ix[1]));
      else {
        int64_t a = op_dl_geti(in[0], ix[0]), b = op_dl_geti(in[1], ix[1]);
        r = k == L_EQ   ? a == b
            : k == L_LT ? a < b
            : k == L_GT ? a > b
            : k == L_LE ? a <= b
                        : a >= b;
      }
      op_dl_seti(out[0], e, r);
    } else if (is_logic(k)) {
      int a = op_dl_geti(in[0], ix[0]) != 0;
      int b = k == L_NOT ? 0 : op_dl_geti(in[1], ix[1]) != 0;
      op_dl_seti(out[0], e,
              k == L_AND   ? a && b
              : k == L_OR  ? a || b
              : k == L_XOR ? a != b
                           : !a);
    } else if (k == L_WHERE) {
      const DLTensor *src = op_dl_geti(in[0], ix[0]) ? in[1] : in[2];
      int64_t si = op_dl_geti(in[0], ix[0]) ? ix[1] : ix[2];
      if (op_dl_is_float(src))
        op_dl_setf(out[0], e, op_dl_getf(src, si));
      else
        op_dl_seti(out[0], e, op_dl_geti(src, si));
    } else if (k == L_SHIFT) {
      uint64_t a = (uint64_t)op_dl_geti(in[0], ix[0]),
               b = (uint64_t)op_dl_geti(in[1], ix[1]);
      uint64_t r = b >= (uint64_t)in[0]->dtype.bits ? 0
                   : fmod_                           ? a << b
                                                     : a >> b;
      op_dl_seti(out[0], e, (int64_t)r);
    } else if (k == L_ISNAN) {
      op_dl_seti(out[0], e, isnan(op_dl_getf(in[0], ix[0])));
    } else if (k == L_ISINF) {
      double a = op_dl_getf(in[0], ix[0]);
      op_dl_seti(out[0], e,
                 ((fmod_ & 1) && a == INFINITY) ||
                     ((fmod_ & 2) && a == -INFINITY));
    } else if (op_dl_is_float(in[0])) { /* Mod, fmod = 1 */
      op_dl_setf(out[0], e, fmod(op_dl_getf(in[0], ix[0]), op_dl_getf(in[1], ix[1])));
    } else {
      int64_t a = op_dl_geti(in[0], ix[0]), b = op_dl_geti(in[1], ix[1]), r;
      if (b == 0)
        r = 0;
      else {
        r = a % b;
        if (!fmod_ && r != 0 && ((r < 0) != (b < 0)))
          r += b;
      }
      op_dl_seti(out[0], e, r);
    }
  }
  return TVM_OK;
}

#define LOP(nm, ni, doc_)                                                      \
  {                                                                            \
    nm, ni, ni, 1, 1, TVM_PAT_BROADCAST, logic_infer, logic_compute,           \
        logic_reference, doc_                                                  \
  }

static const tvm_gop_def defs[] = {
    LOP("Equal", 2, "a == b -> bool (numpy broadcasting)"),
    LOP("Less", 2, "a < b -> bool"),
    LOP("Greater", 2, "a > b -> bool"),
    LOP("LessOrEqual", 2, "a <= b -> bool"),
    LOP("GreaterOrEqual", 2, "a >= b -> bool"),
    LOP("And", 2, "logical and of bools"),
    LOP("Or", 2, "logical or of bools"),
    LOP("Xor", 2, "logical xor of bools"),
    {"Not", 1, 1, 1, 1, TVM_PAT_ELEMWISE, logic_infer, logic_compute,
     logic_reference, "logical not of bools"},
    LOP("Where", 3, "condition ? X : Y (numpy broadcasting)"),
    LOP("Mod", 2, "remainder (fmod = 0: sign of the divisor; 1: C fmod)"),
    LOP("BitShift", 2, "unsigned x << y or x >> y (direction LEFT/RIGHT)"),
    {"IsNaN", 1, 1, 1, 1, TVM_PAT_ELEMWISE, logic_infer, logic_compute,
     logic_reference, "x is NaN -> bool"},
    {"IsInf", 1, 1, 1, 1, TVM_PAT_ELEMWISE, logic_infer, logic_compute,
     logic_reference,
     "x is +inf (detect_positive) or -inf (detect_negative) -> bool"},
};

const ops_family ops_logic_family = {defs, (int)(sizeof defs / sizeof defs[0])};
