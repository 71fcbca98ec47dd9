/*
 * plugins/vulkan/codegen.c - device functions of a lowered module to
 * SPIR-V compute shaders, written directly (no GLSL, no glslang).
 *
 * One SPIR-V module per device function, entry point "main":
 *  - buffer parameters: StorageBuffer variables, a Block struct holding a
 *    runtime array of the element type, descriptor set 0, binding = the
 *    buffer's position among the buffer parameters;
 *  - scalar parameters: members of one PushConstant Block, 8 bytes each
 *    in parameter order (at most 128 bytes: a kernel with more is refused
 *    with that reason);
 *  - thread-bound loops: blockIdx.* is the WorkgroupId builtin, threadIdx.*
 *    the LocalInvocationId builtin; the loop becomes the builtin's value
 *    (plus the loop's min), guarded by `< extent` when the loop's extent
 *    is not the launch extent of its axis; LocalSize comes from the
 *    threadIdx extents, the dispatch size (kernel table grid) from the
 *    blockIdx extents, all of which must be constants;
 *  - other loops: structured loops (OpLoopMerge) over a Function variable;
 *    ifs: OpSelectionMerge; lets: SSA values;
 *  - allocations: "shared" is a Workgroup array, anything else a Function
 *    array, of a constant extent;
 *  - barriers: OpControlBarrier(Workgroup, Workgroup, AcquireRelease |
 *    WorkgroupMemory).
 * Integer division follows the IR: DIV/MOD truncate (OpSDiv/OpSRem),
 * FLOORDIV rounds down and FLOORMOD takes the divisor's sign (SDiv and
 * SRem corrected by the remainder's sign; OpFMod for floats).  Math goes through
 * GLSL.std.450; erf through the Abramowitz-Stegun 7.1.26 polynomial
 * (|error| < 1.5e-7).  Types: bool, int32/uint32, float32, and int64 /
 * float64 when the target allows them; 8- and 16-bit types and vector
 * code (ramps: the target reports 32-bit vectors, so the core never
 * vectorizes for it) are refused with the reason.  Host functions of the
 * module are not the plugin's: they run on the host (tvm_launch calls).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "spirv.h"
#include "tvm/ir.h"
#include "vulkan_int.h"

/* A buffer the kernel reads or writes. */
typedef struct bufinfo {
  uint32_t var;     /* the variable id */
  uint32_t storage; /* its storage class */
  uint32_t elem;    /* element type id */
  int sb;           /* a storage buffer: access chain goes through member 0 */
} bufinfo;

typedef struct cg {
  spv_module m;
  const tvm_plugin_target *t;
  const tvm_func *f;
  spv_words fvars, body;
  tvm_ptrmap vals; /* var -> SSA id */
  tvm_ptrmap ptrs; /* var -> Function variable id (loop variables) */
  tvm_ptrmap bufs; /* handle var -> bufinfo* */
  tvm_arena *arena;
  uint32_t wg_id, lid_id; /* builtin variables (0 until used) */
  uint32_t local[3], grid[3];
  uint32_t push_var, push_bytes;
  tvm_status st;
} cg;

/* Records the first error (the diagnostic names the kernel). */
static uint32_t fail(cg *g, tvm_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static uint32_t fail(cg *g, tvm_status st, const char *fmt, ...) {
  if (g->st) return 0;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  g->st = tvm_diag_set(st, "vulkan: kernel %s: %s", g->f->name, msg);
  return 0;
}

/* ---- types ------------------------------------------------------------- */

/* The SPIR-V type of a scalar dtype, or 0 (with the error recorded). */
static uint32_t type_of(cg *g, tvm_dtype t) {
  char b[32];
  if (t.lanes != 1)
    return fail(g, TVM_ERR_UNSUPPORTED,
                "vector value of type %s (vulkan kernels are scalar)",
                tvm_dtype_str(t, b));
  if (tvm_dtype_is_bool(t)) return spv_t_bool(&g->m);
  if (tvm_dtype_is_float(t) && (t.bits == 32 || (t.bits == 64 && g->t->float64)))
    return spv_t_float(&g->m, t.bits);
  if (tvm_dtype_is_int(t) && (t.bits == 32 || (t.bits == 64 && g->t->int64)))
    return spv_t_int(&g->m, t.bits, !tvm_dtype_is_uint(t));
  return fail(g, TVM_ERR_UNSUPPORTED,
              "type %s is not supported (float32, int32 and uint32 always; "
              "64-bit types when the target's int64/float64 attributes say "
              "the device has them; no 8- or 16-bit types yet)",
              tvm_dtype_str(t, b));
}

static int is_float(tvm_dtype t) { return tvm_dtype_is_float(t); }
static int is_signed(tvm_dtype t) { return t.code == kDLInt; }

/* An instruction with a result: returns the result id. */
static uint32_t op2(cg *g, uint32_t op, uint32_t type, uint32_t a,
                    uint32_t b) {
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, op, type, id, a, b);
  return id;
}
static uint32_t op1(cg *g, uint32_t op, uint32_t type, uint32_t a) {
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, op, type, id, a);
  return id;
}
static uint32_t glsl1(cg *g, uint32_t type, uint32_t inst, uint32_t a) {
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, SpvOpExtInst, type, id, g->m.glsl, inst, a);
  return id;
}
static uint32_t glsl2(cg *g, uint32_t type, uint32_t inst, uint32_t a,
                      uint32_t b) {
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, SpvOpExtInst, type, id, g->m.glsl, inst, a, b);
  return id;
}
static uint32_t label(cg *g, uint32_t id) {
  SPV(&g->m, &g->body, SpvOpLabel, id);
  return id;
}

/* A constant of dtype t. */
static uint32_t const_of(cg *g, tvm_dtype t, double fv, int64_t iv) {
  uint32_t ty = type_of(g, t);
  if (!ty) return 0;
  if (tvm_dtype_is_bool(t)) return spv_c_bool(&g->m, iv != 0);
  if (is_float(t)) return spv_c_float(&g->m, ty, t.bits, fv);
  return spv_c_int(&g->m, ty, t.bits, iv);
}

static uint32_t expr(cg *g, const tvm_expr *e);

/* ---- memory ---------------------------------------------------------------- */

/* A pointer to element `index` of the buffer behind handle var b. */
static uint32_t elem_ptr(cg *g, const tvm_expr *b, const tvm_expr *index) {
  void *p = NULL;
  if (!tvm_ptrmap_get(&g->bufs, b, &p))
    return fail(g, TVM_ERR_INVALID, "buffer %s is neither a parameter nor "
                                    "allocated in the kernel",
                b->u.var.name);
  bufinfo *bi = p;
  uint32_t idx = expr(g, index);
  if (!idx) return 0;
  uint32_t pt = spv_t_ptr(&g->m, bi->storage, bi->elem);
  uint32_t id = spv_id(&g->m);
  if (bi->sb)
    SPV(&g->m, &g->body, SpvOpAccessChain, pt, id, bi->var,
        spv_c_uint32(&g->m, 0), idx);
  else
    SPV(&g->m, &g->body, SpvOpAccessChain, pt, id, bi->var, idx);
  return id;
}

/* ---- expressions ---------------------------------------------------------- */

static uint32_t op3(cg *g, uint32_t op, uint32_t type, uint32_t a,
                    uint32_t b, uint32_t c) {
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, op, type, id, a, b, c);
  return id;
}

/* Converts value v of type from to type to. */
static uint32_t convert(cg *g, uint32_t v, tvm_dtype from, tvm_dtype to) {
  uint32_t ty = type_of(g, to);
  if (!ty || !v) return 0;
  if (tvm_dtype_eq(from, to)) return v;
  if (tvm_dtype_is_bool(to))
    return op2(g, is_float(from) ? SpvOpFUnordNotEqual : SpvOpINotEqual, ty,
               v, const_of(g, from, 0, 0));
  if (tvm_dtype_is_bool(from))
    return op3(g, SpvOpSelect, ty, v, const_of(g, to, 1, 1),
               const_of(g, to, 0, 0));
  if (is_float(from) && is_float(to)) return op1(g, SpvOpFConvert, ty, v);
  if (is_float(from))
    return op1(g, is_signed(to) ? SpvOpConvertFToS : SpvOpConvertFToU, ty, v);
  if (is_float(to))
    return op1(g, is_signed(from) ? SpvOpConvertSToF : SpvOpConvertUToF, ty,
               v);
  if (from.bits != to.bits) {
    /* change the width keeping the source's signedness, then reinterpret */
    tvm_dtype mid = to;
    mid.code = from.code;
    uint32_t mt = type_of(g, mid);
    if (!mt) return 0;
    v = op1(g, is_signed(from) ? SpvOpSConvert : SpvOpUConvert, mt, v);
    if (mid.code == to.code) return v;
  }
  return op1(g, SpvOpBitcast, ty, v);
}

/* erf(x) by Abramowitz-Stegun 7.1.26. */
static uint32_t erf_poly(cg *g, uint32_t ty, tvm_dtype t, uint32_t x) {
  static const double a[5] = {0.254829592, -0.284496736, 1.421413741,
                              -1.453152027, 1.061405429};
  uint32_t ax = glsl1(g, ty, GLSLstd450FAbs, x);
  uint32_t one = const_of(g, t, 1, 1);
  uint32_t den = op2(g, SpvOpFAdd, ty, one,
                     op2(g, SpvOpFMul, ty, const_of(g, t, 0.3275911, 0), ax));
  uint32_t k = op2(g, SpvOpFDiv, ty, one, den);
  uint32_t poly = const_of(g, t, a[4], 0);
  for (int i = 3; i >= 0; i--)
    poly = op2(g, SpvOpFAdd, ty, const_of(g, t, a[i], 0),
               op2(g, SpvOpFMul, ty, poly, k));
  poly = op2(g, SpvOpFMul, ty, poly, k);
  uint32_t e = glsl1(g, ty, GLSLstd450Exp,
                     op1(g, SpvOpFNegate, ty, op2(g, SpvOpFMul, ty, ax, ax)));
  uint32_t y = op2(g, SpvOpFSub, ty, one, op2(g, SpvOpFMul, ty, poly, e));
  uint32_t neg = op2(g, SpvOpFOrdLessThan, spv_t_bool(&g->m), x,
                     const_of(g, t, 0, 0));
  return op3(g, SpvOpSelect, ty, neg, op1(g, SpvOpFNegate, ty, y), y);
}

static uint32_t call(cg *g, const tvm_expr *e, uint32_t ty) {
  tvm_expr *const *a = e->u.call.args;
  int n = e->u.call.nargs;
  tvm_dtype t = e->dtype;
  if (e->u.call.op == TVM_INTRIN_EXTERN)
    return fail(g, TVM_ERR_UNSUPPORTED,
                "call of external function %s (vulkan kernels call no "
                "functions)",
                e->u.call.name ? e->u.call.name : "?");
  uint32_t x = n > 0 ? expr(g, a[0]) : 0, y = n > 1 ? expr(g, a[1]) : 0;
  if (g->st) return 0;
  static const struct { tvm_intrin op; uint32_t inst; } math[] = {
      {TVM_INTRIN_EXP, GLSLstd450Exp},     {TVM_INTRIN_LOG, GLSLstd450Log},
      {TVM_INTRIN_SQRT, GLSLstd450Sqrt},
      {TVM_INTRIN_RSQRT, GLSLstd450InverseSqrt},
      {TVM_INTRIN_TANH, GLSLstd450Tanh},   {TVM_INTRIN_FABS, GLSLstd450FAbs},
      {TVM_INTRIN_FLOOR, GLSLstd450Floor}, {TVM_INTRIN_CEIL, GLSLstd450Ceil},
      {TVM_INTRIN_ROUND, GLSLstd450Round}, {TVM_INTRIN_TRUNC, GLSLstd450Trunc},
      {TVM_INTRIN_SIN, GLSLstd450Sin},     {TVM_INTRIN_COS, GLSLstd450Cos},
  };
  for (size_t i = 0; i < sizeof math / sizeof *math; i++)
    if (math[i].op == e->u.call.op && is_float(t))
      return glsl1(g, ty, math[i].inst, x);
  switch (e->u.call.op) {
  case TVM_INTRIN_POW: return glsl2(g, ty, GLSLstd450Pow, x, y);
  case TVM_INTRIN_FMA: {
    uint32_t z = expr(g, a[2]), id = spv_id(&g->m);
    SPV(&g->m, &g->body, SpvOpExtInst, ty, id, g->m.glsl, GLSLstd450Fma, x,
        y, z);
    return id;
  }
  case TVM_INTRIN_SIGMOID: { /* 1 / (1 + exp(-x)) */
    uint32_t one = const_of(g, t, 1, 1);
    uint32_t ex = glsl1(g, ty, GLSLstd450Exp, op1(g, SpvOpFNegate, ty, x));
    return op2(g, SpvOpFDiv, ty, one, op2(g, SpvOpFAdd, ty, one, ex));
  }
  case TVM_INTRIN_ERF: return erf_poly(g, ty, t, x);
  case TVM_INTRIN_ISNAN: return op1(g, SpvOpIsNan, ty, x);
  case TVM_INTRIN_SHL: return op2(g, SpvOpShiftLeftLogical, ty, x, y);
  case TVM_INTRIN_SHR:
    return op2(g, is_signed(t) ? SpvOpShiftRightArithmetic
                               : SpvOpShiftRightLogical,
               ty, x, y);
  case TVM_INTRIN_BITAND: return op2(g, SpvOpBitwiseAnd, ty, x, y);
  case TVM_INTRIN_BITOR: return op2(g, SpvOpBitwiseOr, ty, x, y);
  case TVM_INTRIN_BITXOR: return op2(g, SpvOpBitwiseXor, ty, x, y);
  case TVM_INTRIN_LIKELY: return x;
  case TVM_INTRIN_REINTERPRET: return op1(g, SpvOpBitcast, ty, x);
  default:
    return fail(g, TVM_ERR_UNSUPPORTED,
                "intrinsic %s is not supported in vulkan kernels",
                tvm_intrin_name(e->u.call.op));
  }
}

/* Integer floor division: SDiv minus one when the remainder is non-zero
 * and its sign differs from the divisor's. */
static uint32_t floordiv_int(cg *g, uint32_t ty, tvm_dtype t, uint32_t a,
                             uint32_t b) {
  uint32_t q = op2(g, SpvOpSDiv, ty, a, b), r = op2(g, SpvOpSRem, ty, a, b);
  uint32_t bt = spv_t_bool(&g->m), zero = const_of(g, t, 0, 0);
  uint32_t nz = op2(g, SpvOpINotEqual, bt, r, zero);
  uint32_t rn = op2(g, SpvOpSLessThan, bt, r, zero);
  uint32_t bn = op2(g, SpvOpSLessThan, bt, b, zero);
  uint32_t fix = op2(g, SpvOpLogicalAnd, bt, nz,
                     op2(g, SpvOpLogicalNotEqual, bt, rn, bn));
  return op3(g, SpvOpSelect, ty, fix,
             op2(g, SpvOpISub, ty, q, const_of(g, t, 1, 1)), q);
}

/* Integer floor modulo: SRem plus the divisor when the remainder is
 * non-zero and its sign differs from the divisor's.  (OpSMod means the
 * same, but lavapipe computes it wrongly for 64-bit operands.) */
static uint32_t floormod_int(cg *g, uint32_t ty, tvm_dtype t, uint32_t a,
                             uint32_t b) {
  uint32_t r = op2(g, SpvOpSRem, ty, a, b);
  uint32_t bt = spv_t_bool(&g->m), zero = const_of(g, t, 0, 0);
  uint32_t nz = op2(g, SpvOpINotEqual, bt, r, zero);
  uint32_t rn = op2(g, SpvOpSLessThan, bt, r, zero);
  uint32_t bn = op2(g, SpvOpSLessThan, bt, b, zero);
  uint32_t fix = op2(g, SpvOpLogicalAnd, bt, nz,
                     op2(g, SpvOpLogicalNotEqual, bt, rn, bn));
  return op3(g, SpvOpSelect, ty, fix, op2(g, SpvOpIAdd, ty, r, b), r);
}

/* Comparison opcode for kind k on operands of type t. */
static uint32_t cmp_op(tvm_expr_kind k, tvm_dtype t) {
  int f = is_float(t), s = is_signed(t), b = tvm_dtype_is_bool(t);
  switch (k) {
  case TVM_EQ: return f ? SpvOpFOrdEqual : b ? SpvOpLogicalEqual : SpvOpIEqual;
  case TVM_NE:
    return f ? SpvOpFUnordNotEqual : b ? SpvOpLogicalNotEqual : SpvOpINotEqual;
  case TVM_LT: return f ? SpvOpFOrdLessThan : s ? SpvOpSLessThan : SpvOpULessThan;
  case TVM_LE:
    return f ? SpvOpFOrdLessThanEqual
             : s ? SpvOpSLessThanEqual : SpvOpULessThanEqual;
  case TVM_GT:
    return f ? SpvOpFOrdGreaterThan : s ? SpvOpSGreaterThan : SpvOpUGreaterThan;
  default:
    return f ? SpvOpFOrdGreaterThanEqual
             : s ? SpvOpSGreaterThanEqual : SpvOpUGreaterThanEqual;
  }
}

static uint32_t expr(cg *g, const tvm_expr *e) {
  if (g->st || !e) return 0;
  tvm_dtype t = e->dtype;
  switch (e->kind) {
  case TVM_INT: return const_of(g, t, (double)e->u.ival, e->u.ival);
  case TVM_FLOAT: return const_of(g, t, e->u.fval, (int64_t)e->u.fval);
  case TVM_VAR: {
    void *p = NULL;
    if (tvm_ptrmap_get(&g->vals, e, &p)) return (uint32_t)(uintptr_t)p;
    if (tvm_ptrmap_get(&g->ptrs, e, &p))
      return op1(g, SpvOpLoad, type_of(g, t), (uint32_t)(uintptr_t)p);
    return fail(g, TVM_ERR_INVALID, "variable %s is not defined",
                e->u.var.name);
  }
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_DIV: case TVM_MOD:
  case TVM_FLOORDIV: case TVM_FLOORMOD: case TVM_MIN: case TVM_MAX: {
    uint32_t ty = type_of(g, t), a = expr(g, e->u.bin.a),
             b = expr(g, e->u.bin.b);
    if (g->st) return 0;
    int f = is_float(t), s = is_signed(t);
    switch (e->kind) {
    case TVM_ADD: return op2(g, f ? SpvOpFAdd : SpvOpIAdd, ty, a, b);
    case TVM_SUB: return op2(g, f ? SpvOpFSub : SpvOpISub, ty, a, b);
    case TVM_MUL: return op2(g, f ? SpvOpFMul : SpvOpIMul, ty, a, b);
    case TVM_DIV:
      return op2(g, f ? SpvOpFDiv : s ? SpvOpSDiv : SpvOpUDiv, ty, a, b);
    case TVM_MOD:
      return op2(g, f ? SpvOpFRem : s ? SpvOpSRem : SpvOpUMod, ty, a, b);
    case TVM_FLOORDIV:
      if (f) return glsl1(g, ty, GLSLstd450Floor,
                          op2(g, SpvOpFDiv, ty, a, b));
      return s ? floordiv_int(g, ty, t, a, b) : op2(g, SpvOpUDiv, ty, a, b);
    case TVM_FLOORMOD:
      if (s) return floormod_int(g, ty, t, a, b);
      return op2(g, f ? SpvOpFMod : SpvOpUMod, ty, a, b);
    case TVM_MIN:
      return glsl2(g, ty, f ? GLSLstd450FMin : s ? GLSLstd450SMin
                                                 : GLSLstd450UMin, a, b);
    default:
      return glsl2(g, ty, f ? GLSLstd450FMax : s ? GLSLstd450SMax
                                                 : GLSLstd450UMax, a, b);
    }
  }
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE: {
    uint32_t a = expr(g, e->u.bin.a), b = expr(g, e->u.bin.b);
    if (g->st) return 0;
    return op2(g, cmp_op(e->kind, e->u.bin.a->dtype), spv_t_bool(&g->m), a,
               b);
  }
  case TVM_AND: case TVM_OR: {
    uint32_t a = expr(g, e->u.bin.a), b = expr(g, e->u.bin.b);
    return g->st ? 0
                 : op2(g, e->kind == TVM_AND ? SpvOpLogicalAnd
                                             : SpvOpLogicalOr,
                       spv_t_bool(&g->m), a, b);
  }
  case TVM_NOT: {
    uint32_t a = expr(g, e->u.un.a);
    return g->st ? 0 : op1(g, SpvOpLogicalNot, spv_t_bool(&g->m), a);
  }
  case TVM_SELECT: {
    uint32_t c = expr(g, e->u.sel.cond), a = expr(g, e->u.sel.t),
             b = expr(g, e->u.sel.f), ty = type_of(g, t);
    return g->st ? 0 : op3(g, SpvOpSelect, ty, c, a, b);
  }
  case TVM_CAST: return convert(g, expr(g, e->u.un.a), e->u.un.a->dtype, t);
  case TVM_CALL: {
    uint32_t ty = type_of(g, t);
    return ty ? call(g, e, ty) : 0;
  }
  case TVM_LOAD: {
    if (e->u.load.pred)
      return fail(g, TVM_ERR_UNSUPPORTED, "a predicated (masked) load");
    uint32_t ty = type_of(g, t);
    uint32_t p = elem_ptr(g, e->u.load.buffer, e->u.load.index);
    return g->st ? 0 : op1(g, SpvOpLoad, ty, p);
  }
  case TVM_LET: {
    uint32_t v = expr(g, e->u.let.value);
    if (g->st) return 0;
    if (tvm_ptrmap_put(&g->vals, e->u.let.var, (void *)(uintptr_t)v))
      return fail(g, TVM_ERR_NOMEM, "out of memory");
    return expr(g, e->u.let.body);
  }
  default:
    return fail(g, TVM_ERR_UNSUPPORTED,
                "expression kind %s (vulkan kernels are scalar: the target "
                "reports 32-bit vectors, so nothing should vectorize)",
                tvm_expr_kind_name(e->kind));
  }
}

/* ---- statements -------------------------------------------------------------- */

static void stmt(cg *g, const tvm_stmt *s);

/* The builtin variable (uvec3 Input) for WorkgroupId or
 * LocalInvocationId, made on first use. */
static uint32_t builtin(cg *g, int local) {
  uint32_t *slot = local ? &g->lid_id : &g->wg_id;
  if (*slot) return *slot;
  uint32_t u3 = spv_t_vec(&g->m, spv_t_int(&g->m, 32, 0), 3);
  uint32_t pt = spv_t_ptr(&g->m, SpvStorageClassInput, u3);
  *slot = spv_id(&g->m);
  SPV(&g->m, &g->m.types, SpvOpVariable, pt, *slot, SpvStorageClassInput);
  SPV(&g->m, &g->m.annot, SpvOpDecorate, *slot, SpvDecorationBuiltIn,
      local ? SpvBuiltInLocalInvocationId : SpvBuiltInWorkgroupId);
  return *slot;
}

/* Which builtin and component a thread tag is; -1 when unknown. */
static int tag_axis(const char *tag, int *local) {
  if (!strncmp(tag, "blockIdx.", 9)) *local = 0;
  else if (!strncmp(tag, "threadIdx.", 10)) *local = 1;
  else return -1;
  char c = tag[strlen(tag) - 1];
  return c >= 'x' && c <= 'z' ? c - 'x' : -1;
}

/* Opens a structured if: cond ? (then) : nothing; returns the merge id. */
static uint32_t if_begin(cg *g, uint32_t cond) {
  uint32_t then_ = spv_id(&g->m), merge = spv_id(&g->m);
  SPV(&g->m, &g->body, SpvOpSelectionMerge, merge, SpvSelectionControlNone);
  SPV(&g->m, &g->body, SpvOpBranchConditional, cond, then_, merge);
  label(g, then_);
  return merge;
}
static void if_end(cg *g, uint32_t merge) {
  SPV(&g->m, &g->body, SpvOpBranch, merge);
  label(g, merge);
}

static void thread_loop(cg *g, const tvm_stmt *s) {
  int local = 0, axis = tag_axis(s->u.for_.thread_tag ? s->u.for_.thread_tag
                                                      : "",
                                 &local);
  if (axis < 0) {
    fail(g, TVM_ERR_UNSUPPORTED, "thread tag '%s' (vulkan knows blockIdx.x/"
                                 "y/z and threadIdx.x/y/z)",
         s->u.for_.thread_tag ? s->u.for_.thread_tag : "");
    return;
  }
  tvm_dtype vt = s->u.for_.var->dtype;
  uint32_t u32 = spv_t_int(&g->m, 32, 0);
  uint32_t vec = op1(g, SpvOpLoad, spv_t_vec(&g->m, u32, 3), builtin(g, local));
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, SpvOpCompositeExtract, u32, id, vec, (uint32_t)axis);
  uint32_t v = convert(g, id, tvm_dt(kDLUInt, 32, 1), vt);
  if (!tvm_is_zero(s->u.for_.min))
    v = op2(g, is_float(vt) ? SpvOpFAdd : SpvOpIAdd, type_of(g, vt), v,
            expr(g, s->u.for_.min));
  if (g->st) return;
  if (tvm_ptrmap_put(&g->vals, s->u.for_.var, (void *)(uintptr_t)v)) {
    fail(g, TVM_ERR_NOMEM, "out of memory");
    return;
  }
  /* guard when this loop's extent is not its axis' launch extent */
  int guard = 1;
  const tvm_func *f = g->f;
  for (int i = 0; i < f->nthread_axes; i++)
    if (!strcmp(f->thread_tags[i], s->u.for_.thread_tag))
      guard = !tvm_expr_equal(f->thread_extents[i], s->u.for_.extent);
  uint32_t merge = 0;
  if (guard) {
    uint32_t end = op2(g, SpvOpIAdd, type_of(g, vt), expr(g, s->u.for_.min),
                       expr(g, s->u.for_.extent));
    merge = if_begin(g, op2(g, cmp_op(TVM_LT, vt), spv_t_bool(&g->m), v, end));
  }
  stmt(g, s->u.for_.body);
  if (guard) if_end(g, merge);
}

static void serial_loop(cg *g, const tvm_stmt *s) {
  tvm_dtype vt = s->u.for_.var->dtype;
  uint32_t ty = type_of(g, vt);
  if (!ty) return;
  uint32_t pt = spv_t_ptr(&g->m, SpvStorageClassFunction, ty);
  uint32_t var = spv_id(&g->m);
  SPV(&g->m, &g->fvars, SpvOpVariable, pt, var, SpvStorageClassFunction);
  if (tvm_ptrmap_put(&g->ptrs, s->u.for_.var, (void *)(uintptr_t)var)) {
    fail(g, TVM_ERR_NOMEM, "out of memory");
    return;
  }
  uint32_t lo = expr(g, s->u.for_.min), ext = expr(g, s->u.for_.extent);
  if (g->st) return;
  uint32_t end = op2(g, SpvOpIAdd, ty, lo, ext);
  SPV(&g->m, &g->body, SpvOpStore, var, lo);
  uint32_t header = spv_id(&g->m), cond = spv_id(&g->m),
           body = spv_id(&g->m), cont = spv_id(&g->m), merge = spv_id(&g->m);
  SPV(&g->m, &g->body, SpvOpBranch, header);
  label(g, header);
  SPV(&g->m, &g->body, SpvOpLoopMerge, merge, cont, SpvLoopControlNone);
  SPV(&g->m, &g->body, SpvOpBranch, cond);
  label(g, cond);
  uint32_t i = op1(g, SpvOpLoad, ty, var);
  uint32_t c = op2(g, cmp_op(TVM_LT, vt), spv_t_bool(&g->m), i, end);
  SPV(&g->m, &g->body, SpvOpBranchConditional, c, body, merge);
  label(g, body);
  stmt(g, s->u.for_.body);
  SPV(&g->m, &g->body, SpvOpBranch, cont);
  label(g, cont);
  uint32_t i2 = op1(g, SpvOpLoad, ty, var);
  SPV(&g->m, &g->body, SpvOpStore, var,
      op2(g, SpvOpIAdd, ty, i2, const_of(g, vt, 1, 1)));
  SPV(&g->m, &g->body, SpvOpBranch, header);
  label(g, merge);
}

static void allocate(cg *g, const tvm_stmt *s) {
  int64_t n = 0;
  if (!tvm_is_const_int(s->u.alloc.extent, &n) || n <= 0) {
    fail(g, TVM_ERR_UNSUPPORTED, "allocation %s has no constant extent",
         s->u.alloc.buffer->u.var.name);
    return;
  }
  int shared = !strcmp(s->u.alloc.scope, "shared");
  uint64_t bytes = (uint64_t)n * (uint64_t)tvm_dtype_bytes(s->u.alloc.dtype);
  if (shared && bytes > g->t->shared_bytes) {
    fail(g, TVM_ERR_UNSUPPORTED,
         "shared buffer %s needs %llu bytes, more than the target's %u "
         "bytes of workgroup memory (attrs.shared_kib)",
         s->u.alloc.buffer->u.var.name, (unsigned long long)bytes,
         g->t->shared_bytes);
    return;
  }
  uint32_t et = type_of(g, s->u.alloc.dtype);
  if (!et) return;
  uint32_t sc = shared ? SpvStorageClassWorkgroup : SpvStorageClassFunction;
  uint32_t at = spv_t_array(&g->m, et, (uint32_t)n, 0);
  uint32_t var = spv_id(&g->m);
  if (shared)
    SPV(&g->m, &g->m.types, SpvOpVariable, spv_t_ptr(&g->m, sc, at), var, sc);
  else
    SPV(&g->m, &g->fvars, SpvOpVariable, spv_t_ptr(&g->m, sc, at), var, sc);
  bufinfo *bi = tvm_arena_alloc(g->arena, sizeof *bi);
  if (!bi || tvm_ptrmap_put(&g->bufs, s->u.alloc.buffer, bi)) {
    fail(g, TVM_ERR_NOMEM, "out of memory");
    return;
  }
  *bi = (bufinfo){var, sc, et, 0};
  stmt(g, s->u.alloc.body);
}

static void stmt(cg *g, const tvm_stmt *s) {
  if (g->st || !s) return;
  switch (s->kind) {
  case TVM_FOR:
    if (s->u.for_.for_kind == TVM_FOR_THREAD) thread_loop(g, s);
    else serial_loop(g, s);
    return;
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) stmt(g, s->u.seq.stmts[i]);
    return;
  case TVM_IF: {
    uint32_t c = expr(g, s->u.if_.cond);
    if (g->st) return;
    uint32_t then_ = spv_id(&g->m), else_ = spv_id(&g->m),
             merge = spv_id(&g->m);
    SPV(&g->m, &g->body, SpvOpSelectionMerge, merge, SpvSelectionControlNone);
    SPV(&g->m, &g->body, SpvOpBranchConditional, c, then_,
        s->u.if_.else_ ? else_ : merge);
    label(g, then_);
    stmt(g, s->u.if_.then_);
    SPV(&g->m, &g->body, SpvOpBranch, merge);
    if (s->u.if_.else_) {
      label(g, else_);
      stmt(g, s->u.if_.else_);
      SPV(&g->m, &g->body, SpvOpBranch, merge);
    }
    label(g, merge);
    return;
  }
  case TVM_LET_STMT: {
    uint32_t v = expr(g, s->u.let.value);
    if (g->st) return;
    if (tvm_ptrmap_put(&g->vals, s->u.let.var, (void *)(uintptr_t)v)) {
      fail(g, TVM_ERR_NOMEM, "out of memory");
      return;
    }
    stmt(g, s->u.let.body);
    return;
  }
  case TVM_STORE: {
    if (s->u.store.pred) {
      fail(g, TVM_ERR_UNSUPPORTED, "a predicated (masked) store");
      return;
    }
    uint32_t v = expr(g, s->u.store.value);
    uint32_t p = elem_ptr(g, s->u.store.buffer, s->u.store.index);
    if (!g->st) SPV(&g->m, &g->body, SpvOpStore, p, v);
    return;
  }
  case TVM_ALLOCATE: allocate(g, s); return;
  case TVM_ATTR: stmt(g, s->u.attr.body); return;
  case TVM_ASSERT:
    /* run-time checks of shapes are the host's; kernels trust them */
    stmt(g, s->u.assert_.body);
    return;
  case TVM_BARRIER: {
    uint32_t wg = spv_c_uint32(&g->m, SpvScopeWorkgroup);
    uint32_t sem = spv_c_uint32(&g->m, SpvMemorySemanticsAcquireRelease |
                                           SpvMemorySemanticsWorkgroupMemory);
    SPV(&g->m, &g->body, SpvOpControlBarrier, wg, wg, sem);
    return;
  }
  case TVM_EVALUATE:
    if (s->u.eval.value->kind == TVM_CALL) {
      expr(g, s->u.eval.value);
      return;
    }
    return;
  default:
    fail(g, TVM_ERR_UNSUPPORTED, "statement kind %s",
         tvm_stmt_kind_name(s->kind));
  }
}

/* ---- one kernel -------------------------------------------------------------- */

/* Launch extents: local sizes from threadIdx, grid from blockIdx. */
static void launch_dims(cg *g) {
  for (int i = 0; i < 3; i++) g->local[i] = g->grid[i] = 1;
  const tvm_func *f = g->f;
  for (int i = 0; i < f->nthread_axes; i++) {
    int local = 0, axis = tag_axis(f->thread_tags[i], &local);
    int64_t v = 0;
    if (axis < 0) {
      fail(g, TVM_ERR_UNSUPPORTED, "thread tag '%s'", f->thread_tags[i]);
      return;
    }
    if (!tvm_is_const_int(f->thread_extents[i], &v) || v <= 0 ||
        v > 0x7fffffff) {
      fail(g, TVM_ERR_UNSUPPORTED,
           "the extent of %s is not a positive constant (dynamic launch "
           "geometry is not supported)",
           f->thread_tags[i]);
      return;
    }
    (local ? g->local : g->grid)[axis] = (uint32_t)v;
  }
  uint64_t threads = (uint64_t)g->local[0] * g->local[1] * g->local[2];
  if (threads > g->t->max_threads)
    fail(g, TVM_ERR_UNSUPPORTED,
         "%llu threads per workgroup (%ux%ux%u) exceed the target's %u "
         "(attrs.max_threads): split threadIdx further",
         (unsigned long long)threads, g->local[0], g->local[1], g->local[2],
         g->t->max_threads);
}

/* Declares the parameters: storage buffers and the push-constant block.
 * kinds/bits receive each parameter's kind. */
static void params(cg *g, uint32_t *kinds, uint32_t *bits) {
  const tvm_func *f = g->f;
  uint32_t binding = 0, nscalar = 0;
  uint32_t members[32], mtypes[32];
  for (int i = 0; i < f->nparams; i++) {
    tvm_expr *p = f->params[i];
    if (tvm_dtype_is_handle(p->dtype)) {
      tvm_buffer *b = f->buffers ? f->buffers[i] : NULL;
      if (!b) {
        fail(g, TVM_ERR_UNSUPPORTED, "handle parameter %s has no buffer",
             p->u.var.name);
        return;
      }
      uint32_t et = type_of(g, b->dtype);
      if (!et) return;
      uint32_t st = spv_t_block1(&g->m, spv_t_rtarray(&g->m, et,
                                 (uint32_t)tvm_dtype_bytes(b->dtype)));
      uint32_t var = spv_id(&g->m);
      SPV(&g->m, &g->m.types, SpvOpVariable,
          spv_t_ptr(&g->m, SpvStorageClassStorageBuffer, st), var,
          SpvStorageClassStorageBuffer);
      SPV(&g->m, &g->m.annot, SpvOpDecorate, var, SpvDecorationDescriptorSet,
          0);
      SPV(&g->m, &g->m.annot, SpvOpDecorate, var, SpvDecorationBinding,
          binding++);
      bufinfo *bi = tvm_arena_alloc(g->arena, sizeof *bi);
      if (!bi || tvm_ptrmap_put(&g->bufs, p, bi)) {
        fail(g, TVM_ERR_NOMEM, "out of memory");
        return;
      }
      *bi = (bufinfo){var, SpvStorageClassStorageBuffer, et, 1};
      kinds[i] = VK_PARAM_BUFFER;
      bits[i] = 0;
    } else {
      uint32_t ty = type_of(g, p->dtype);
      if (!ty) return;
      if (nscalar == 32 || (nscalar + 1) * 8 > VK_PUSH_MAX) {
        fail(g, TVM_ERR_UNSUPPORTED,
             "more than %d scalar parameters (push constants hold %d "
             "bytes)",
             VK_PUSH_MAX / 8, VK_PUSH_MAX);
        return;
      }
      members[nscalar] = (uint32_t)i;
      mtypes[nscalar++] = ty;
      kinds[i] = is_float(p->dtype) ? VK_PARAM_FLOAT : VK_PARAM_INT;
      bits[i] = p->dtype.bits;
    }
  }
  if (!nscalar) return;
  uint32_t st = spv_id(&g->m);
  uint32_t ops[33];
  ops[0] = st;
  for (uint32_t k = 0; k < nscalar; k++) ops[k + 1] = mtypes[k];
  spv_inst(&g->m, &g->m.types, SpvOpTypeStruct, ops, (int)nscalar + 1);
  SPV(&g->m, &g->m.annot, SpvOpDecorate, st, SpvDecorationBlock);
  for (uint32_t k = 0; k < nscalar; k++)
    SPV(&g->m, &g->m.annot, SpvOpMemberDecorate, st, k, SpvDecorationOffset,
        k * 8);
  g->push_var = spv_id(&g->m);
  g->push_bytes = nscalar * 8;
  SPV(&g->m, &g->m.types, SpvOpVariable,
      spv_t_ptr(&g->m, SpvStorageClassPushConstant, st), g->push_var,
      SpvStorageClassPushConstant);
  /* read every scalar once at the top of the kernel */
  for (uint32_t k = 0; k < nscalar; k++) {
    uint32_t ptr = spv_id(&g->m);
    SPV(&g->m, &g->body, SpvOpAccessChain,
        spv_t_ptr(&g->m, SpvStorageClassPushConstant, mtypes[k]), ptr,
        g->push_var, spv_c_uint32(&g->m, k));
    uint32_t v = op1(g, SpvOpLoad, mtypes[k], ptr);
    if (tvm_ptrmap_put(&g->vals, f->params[members[k]],
                       (void *)(uintptr_t)v)) {
      fail(g, TVM_ERR_NOMEM, "out of memory");
      return;
    }
  }
}

/* One device function -> one SPIR-V module. */
static tvm_status kernel(const tvm_plugin_target *t, const tvm_func *f,
                         uint32_t **words, size_t *nwords, uint32_t *kinds,
                         uint32_t *bits, uint32_t local[3], uint32_t grid[3],
                         uint32_t *push_bytes) {
  cg g;
  memset(&g, 0, sizeof g);
  g.t = t;
  g.f = f;
  g.arena = tvm_arena_create();
  if (spv_init(&g.m) || !g.arena) {
    spv_free(&g.m);
    if (g.arena) tvm_arena_destroy(g.arena);
    return tvm_diag_set(TVM_ERR_NOMEM, "vulkan: out of memory");
  }
  g.m.glsl = spv_id(&g.m);
  spv_inst_str(&g.m, &g.m.imports, SpvOpExtInstImport,
               (const uint32_t[]){g.m.glsl}, 1, "GLSL.std.450", NULL, 0);
  SPV(&g.m, &g.m.memmodel, SpvOpMemoryModel, SpvAddressingLogical,
      SpvMemoryModelGLSL450);
  launch_dims(&g);
  uint32_t fn = spv_id(&g.m);
  params(&g, kinds, bits);
  stmt(&g, f->body);
  if (!g.st) {
    /* the function: header, entry block with its variables, the body */
    uint32_t ft = spv_t_func_void(&g.m), vt = spv_t_void(&g.m);
    SPV(&g.m, &g.m.funcs, SpvOpFunction, vt, fn, SpvFunctionControlNone, ft);
    SPV(&g.m, &g.m.funcs, SpvOpLabel, spv_id(&g.m));
    spv_append(&g.m, &g.m.funcs, &g.fvars);
    spv_append(&g.m, &g.m.funcs, &g.body);
    SPV(&g.m, &g.m.funcs, SpvOpReturn);
    SPV(&g.m, &g.m.funcs, SpvOpFunctionEnd);
    /* entry point: model, function, name, interface (the builtins) */
    uint32_t iface[2];
    int ni = 0;
    if (g.wg_id) iface[ni++] = g.wg_id;
    if (g.lid_id) iface[ni++] = g.lid_id;
    spv_inst_str(&g.m, &g.m.entry, SpvOpEntryPoint,
                 (const uint32_t[]){SpvExecutionModelGLCompute, fn}, 2,
                 "main", iface, ni);
    SPV(&g.m, &g.m.modes, SpvOpExecutionMode, fn, SpvExecutionModeLocalSize,
        g.local[0], g.local[1], g.local[2]);
    spv_inst_str(&g.m, &g.m.debug, SpvOpName, (const uint32_t[]){fn}, 1,
                 f->name, NULL, 0);
    if (g.m.oom) g.st = tvm_diag_set(TVM_ERR_NOMEM, "vulkan: out of memory");
    else g.st = spv_finish(&g.m, words, nwords);
  }
  memcpy(local, g.local, sizeof g.local);
  memcpy(grid, g.grid, sizeof g.grid);
  *push_bytes = g.push_bytes;
  tvm_status st = g.st;
  tvm_free(g.fvars.w);
  tvm_free(g.body.w);
  tvm_ptrmap_free(&g.vals);
  tvm_ptrmap_free(&g.ptrs);
  tvm_ptrmap_free(&g.bufs);
  spv_free(&g.m);
  tvm_arena_destroy(g.arena);
  return st;
}

/* ---- the module ---------------------------------------------------------- */

/* A growing byte image of the blob (host allocator). */
typedef struct image {
  uint32_t *w;
  size_t n, cap;
  int oom;
} image;

static void put(image *im, uint32_t v) {
  if (im->n == im->cap) {
    size_t nc = im->cap ? im->cap * 2 : 1024;
    uint32_t *nw = tvm_realloc(im->w, nc * 4);
    if (!nw) {
      im->oom = 1;
      return;
    }
    im->w = nw;
    im->cap = nc;
  }
  im->w[im->n++] = v;
}

static void put_str(image *im, const char *s) {
  size_t len = strlen(s);
  put(im, (uint32_t)len);
  for (size_t k = 0; k < (len + 3) / 4; k++) {
    uint32_t w = 0;
    for (size_t b = 0; b < 4 && k * 4 + b < len; b++)
      w |= (uint32_t)(unsigned char)s[k * 4 + b] << (8 * b);
    put(im, w);
  }
}

int32_t vk_codegen(tvm_plugin_target *t, const tvm_module *m,
                   tvm_plugin_blob *out) {
  image im = {0};
  uint32_t nk = 0;
  for (int i = 0; i < m->nfuncs; i++) nk += m->funcs[i]->kind == TVM_FUNC_DEVICE;
  tvm_plugin_kernel *kt = vk_host->alloc(sizeof *kt * (nk ? nk : 1));
  if (!kt) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  memset(kt, 0, sizeof *kt * (nk ? nk : 1));
  put(&im, VK_BLOB_MAGIC);
  put(&im, nk);
  tvm_status st = TVM_OK;
  uint32_t k = 0;
  for (int i = 0; i < m->nfuncs && !st; i++) {
    const tvm_func *f = m->funcs[i];
    if (f->kind != TVM_FUNC_DEVICE) continue;
    uint32_t kinds[256], bits[256], local[3], grid[3], push = 0;
    uint32_t *words = NULL;
    size_t nwords = 0;
    if (f->nparams > 256) {
      st = vk_fail(TVM_ERR_UNSUPPORTED, "vulkan: kernel %s has %d "
                                        "parameters (at most 256)",
                   f->name, f->nparams);
      break;
    }
    st = kernel(t, f, &words, &nwords, kinds, bits, local, grid, &push);
    if (st) break;
    put_str(&im, f->name);
    put(&im, (uint32_t)f->nparams);
    for (int p = 0; p < f->nparams; p++) {
      put(&im, kinds[p]);
      put(&im, bits[p]);
    }
    put(&im, push);
    for (int a = 0; a < 3; a++) put(&im, local[a]);
    put(&im, (uint32_t)nwords);
    for (size_t w = 0; w < nwords; w++) put(&im, words[w]);
    tvm_free(words);
    size_t nl = strlen(f->name) + 1;
    char *name = vk_host->alloc(nl);
    if (!name) {
      st = vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
      break;
    }
    memcpy(name, f->name, nl);
    kt[k].struct_size = sizeof kt[k];
    kt[k].nargs = (uint32_t)f->nparams;
    kt[k].name = name;
    memcpy(kt[k].grid, grid, sizeof grid);
    memcpy(kt[k].block, local, sizeof local);
    k++;
  }
  if (!st && im.oom) st = vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  if (!st) {
    out->data = vk_host->alloc(im.n * 4);
    if (!out->data) st = vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  }
  if (st) {
    /* codegen failures left their detail in the diagnostic already */
    if (st != TVM_ERR_NOMEM && tvm_diag_status() == st)
      vk_host->report(st, tvm_diag_message());
    for (uint32_t j = 0; j < k; j++) vk_host->free((void *)kt[j].name);
    vk_host->free(kt);
    tvm_free(im.w);
    return st;
  }
  memcpy(out->data, im.w, im.n * 4);
  tvm_free(im.w);
  out->struct_size = sizeof *out;
  out->format = TVM_BLOB_SPIRV;
  out->size = im.n * 4;
  out->kernels = kt;
  out->nkernels = nk;
  return 0;
}

/* ---- reading a blob back -------------------------------------------------- */

int32_t vk_blob_parse(const tvm_plugin_blob *b, uint32_t **copy,
                      vk_kernel_desc **kernels, uint32_t *n) {
  *copy = NULL;
  *kernels = NULL;
  *n = 0;
  if (b->format != TVM_BLOB_SPIRV || b->size < 8 || b->size % 4)
    return vk_fail(TVM_ERR_INVALID, "vulkan: not a vulkan module (format "
                                    "%u, %llu bytes)",
                   b->format, (unsigned long long)b->size);
  size_t nw = (size_t)(b->size / 4), at = 0;
  uint32_t *w = tvm_malloc(b->size);
  if (!w) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  memcpy(w, b->data, b->size);
#define NEED(k)                                                              \
  if (at + (k) > nw) goto bad
  NEED(2);
  if (w[0] != VK_BLOB_MAGIC) goto bad;
  uint32_t nk = w[1];
  at = 2;
  if (nk > nw) goto bad;
  vk_kernel_desc *ks = tvm_calloc(nk ? nk : 1, sizeof *ks);
  if (!ks) {
    tvm_free(w);
    return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  }
  *kernels = ks;
  *copy = w;
  *n = nk;
  for (uint32_t k = 0; k < nk; k++) {
    vk_kernel_desc *d = &ks[k];
    NEED(1);
    uint32_t len = w[at++];
    NEED((len + 3) / 4);
    d->name = tvm_malloc(len + 1);
    if (!d->name) goto nomem;
    memcpy(d->name, &w[at], len);
    d->name[len] = 0;
    at += (len + 3) / 4;
    NEED(1);
    d->nparams = w[at++];
    if (d->nparams > 256) goto bad;
    NEED(2 * (size_t)d->nparams + 5);
    d->kinds = tvm_calloc(d->nparams + 1, 4);
    d->bits = tvm_calloc(d->nparams + 1, 4);
    if (!d->kinds || !d->bits) goto nomem;
    for (uint32_t p = 0; p < d->nparams; p++) {
      d->kinds[p] = w[at++];
      d->bits[p] = w[at++];
      if (d->kinds[p] > VK_PARAM_FLOAT) goto bad;
    }
    d->push_bytes = w[at++];
    for (int a = 0; a < 3; a++) d->local[a] = w[at++];
    d->nwords = w[at++];
    NEED(d->nwords);
    d->words = &w[at];
    at += d->nwords;
    if (d->push_bytes > VK_PUSH_MAX || d->nwords < 5) goto bad;
  }
  return 0;
bad:
  vk_kernels_free(w, *kernels, *n);
  *copy = NULL, *kernels = NULL, *n = 0;
  return vk_fail(TVM_ERR_INVALID, "vulkan: malformed module blob (%llu "
                                  "bytes): rebuild the package",
                 (unsigned long long)b->size);
nomem:
  vk_kernels_free(w, *kernels, *n);
  *copy = NULL, *kernels = NULL, *n = 0;
  return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
#undef NEED
}

void vk_kernels_free(uint32_t *copy, vk_kernel_desc *k, uint32_t n) {
  for (uint32_t i = 0; k && i < n; i++) {
    tvm_free(k[i].name);
    tvm_free(k[i].kinds);
    tvm_free(k[i].bits);
  }
  tvm_free(k);
  tvm_free(copy);
}
