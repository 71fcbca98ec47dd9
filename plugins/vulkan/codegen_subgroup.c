/*
 * plugins/vulkan/codegen_subgroup.c - cross-thread reductions with
 * subgroup operations (OpGroupNonUniform*, SPIR-V 1.3).
 *
 * The core's generic thread schedule (core/compiler/schedule_thread.c)
 * ends a cross-thread reduction with every thread of the block folding
 * the T per-thread partials of a shared array RF, after a barrier:
 *
 *     for (v, 0, T) { L[i] = op(L[i], RF[f(v)]) }
 *
 * with L a local (Function) array, op a sum, max or min of 32-bit
 * floats or integers, and the workgroup exactly T x 1 x 1 threads.  Such
 * a loop, met in uniform control flow (no enclosing condition, guard or
 * loop of varying trip count, outside threadIdx loops), is emitted as:
 *
 *     p = RF[f(LocalInvocationId.x)]        (each thread one partial: as
 *                                            v and the thread index both
 *                                            cover [0, T), every partial
 *                                            is read once)
 *     s = OpGroupNonUniform<op>(Subgroup, Reduce, p)
 *     barrier; if (OpGroupNonUniformElect) S[SubgroupId] = s; barrier
 *     L[i] = op(L[i], S[0], ..., S[NumSubgroups - 1])
 *
 * S is a Workgroup array of T elements (enough for subgroups of one
 * thread); the first barrier keeps a later pass of an enclosing loop
 * from overwriting S while threads still read it.  The serial loop of T
 * steps becomes T / SubgroupSize steps.  The module then needs the
 * device's subgroup arithmetic in compute shaders (SPV_F_SUBGROUP):
 * blob.c also keeps the plain variant of such kernels, and the runtime
 * loads the plain one on devices without it.
 */
#include <string.h>

#include "codegen_int.h"

/* The scalar uint Input builtin `which` (SubgroupId, NumSubgroups). */
static uint32_t builtin_u32(cg *g, uint32_t *slot, uint32_t which) {
  if (*slot) return *slot;
  uint32_t pt = spv_t_ptr(&g->m, SpvStorageClassInput,
                          spv_t_int(&g->m, 32, 0));
  *slot = spv_id(&g->m);
  SPV(&g->m, &g->m.types, SpvOpVariable, pt, *slot, SpvStorageClassInput);
  SPV(&g->m, &g->m.annot, SpvOpDecorate, *slot, SpvDecorationBuiltIn, which);
  return *slot;
}

/* The buffer info of handle var b, or NULL. */
static bufinfo *buf_of(cg *g, const tvm_expr *b) {
  void *p = NULL;
  return b && b->kind == TVM_VAR && tvm_ptrmap_get(&g->bufs, b, &p) ? p
                                                                    : NULL;
}

/* Is e a plain load of buffer kind `storage`? */
static int is_load_of(cg *g, const tvm_expr *e, uint32_t storage) {
  if (e->kind != TVM_LOAD || e->u.load.pred) return 0;
  bufinfo *bi = buf_of(g, e->u.load.buffer);
  return bi && !bi->sb && bi->storage == storage;
}

int cg_subgroup_reduce(cg *g, const tvm_stmt *s) {
  const tvm_expr *v = s->u.for_.var;
  const tvm_stmt *st = s->u.for_.body;
  int64_t lo = -1, T = 0;
  if (!tvm_is_const_int(s->u.for_.min, &lo) || lo != 0 ||
      !tvm_is_const_int(s->u.for_.extent, &T) || T < 2 ||
      g->local[0] != (uint64_t)T || g->local[1] != 1 || g->local[2] != 1)
    return 0;
  if (!st || st->kind != TVM_STORE || st->u.store.pred) return 0;
  const tvm_expr *val = st->u.store.value;
  tvm_dtype t = val->dtype;
  if (t.lanes != 1 || t.bits != 32 || tvm_dtype_is_bool(t) ||
      (val->kind != TVM_ADD && val->kind != TVM_MAX && val->kind != TVM_MIN))
    return 0;
  /* L[i] = op(L[i], RF[f(v)]) or op(RF[f(v)], L[i]) */
  const tvm_expr *a = val->u.bin.a, *b = val->u.bin.b;
  if (!is_load_of(g, a, SpvStorageClassFunction)) {
    const tvm_expr *x = a;
    a = b;
    b = x;
  }
  if (!is_load_of(g, a, SpvStorageClassFunction) ||
      !is_load_of(g, b, SpvStorageClassWorkgroup) ||
      a->u.load.buffer != st->u.store.buffer ||
      !tvm_expr_equal(a->u.load.index, st->u.store.index) ||
      tvm_expr_uses_var(st->u.store.index, v) ||
      !tvm_expr_uses_var(b->u.load.index, v) ||
      !tvm_dtype_eq(a->dtype, t) || !tvm_dtype_eq(b->dtype, t))
    return 0;
  int f = tvm_dtype_is_float(t), sg = t.code == kDLInt;
  uint32_t op, comb;
  if (val->kind == TVM_ADD) {
    op = f ? SpvOpGroupNonUniformFAdd : SpvOpGroupNonUniformIAdd;
    comb = f ? SpvOpFAdd : SpvOpIAdd;
  } else if (val->kind == TVM_MAX) {
    op = f ? SpvOpGroupNonUniformFMax
           : sg ? SpvOpGroupNonUniformSMax : SpvOpGroupNonUniformUMax;
    comb = f ? GLSLstd450FMax : sg ? GLSLstd450SMax : GLSLstd450UMax;
  } else {
    op = f ? SpvOpGroupNonUniformFMin
           : sg ? SpvOpGroupNonUniformSMin : SpvOpGroupNonUniformUMin;
    comb = f ? GLSLstd450FMin : sg ? GLSLstd450SMin : GLSLstd450UMin;
  }
  uint32_t ty = cg_type(g, t), u32 = spv_t_int(&g->m, 32, 0);
  if (!ty) return 1;
  g->m.features |= SPV_F_SUBGROUP;
  /* this thread's partial: v is the thread's index here */
  uint32_t lid = cg_op1(g, SpvOpLoad, spv_t_vec(&g->m, u32, 3),
                        cg_builtin(g, 1));
  uint32_t x = spv_id(&g->m);
  SPV(&g->m, &g->body, SpvOpCompositeExtract, u32, x, lid, 0u);
  uint32_t vx = cg_convert(g, x, tvm_dt(kDLUInt, 32, 1), v->dtype);
  if (g->st) return 1;
  if (tvm_ptrmap_put(&g->vals, v, (void *)(uintptr_t)vx)) {
    cg_fail(g, TVM_ERR_NOMEM, "out of memory");
    return 1;
  }
  uint32_t part = cg_expr(g, b);
  if (g->st) return 1;
  uint32_t scope = spv_c_uint32(&g->m, SpvScopeSubgroup);
  uint32_t red = spv_id(&g->m);
  SPV(&g->m, &g->body, op, ty, red, scope, SpvGroupOperationReduce, part);
  /* one value per subgroup into S */
  uint32_t at = spv_t_array(&g->m, ty, (uint32_t)T, 0);
  uint32_t S = spv_id(&g->m);
  SPV(&g->m, &g->m.types, SpvOpVariable,
      spv_t_ptr(&g->m, SpvStorageClassWorkgroup, at), S,
      SpvStorageClassWorkgroup);
  uint32_t wg = spv_c_uint32(&g->m, SpvScopeWorkgroup);
  uint32_t sem = spv_c_uint32(&g->m, SpvMemorySemanticsAcquireRelease |
                                         SpvMemorySemanticsWorkgroupMemory);
  SPV(&g->m, &g->body, SpvOpControlBarrier, wg, wg, sem);
  uint32_t elect = cg_op1(g, SpvOpGroupNonUniformElect, spv_t_bool(&g->m),
                          scope);
  uint32_t then_ = spv_id(&g->m), merge = spv_id(&g->m);
  SPV(&g->m, &g->body, SpvOpSelectionMerge, merge, SpvSelectionControlNone);
  SPV(&g->m, &g->body, SpvOpBranchConditional, elect, then_, merge);
  cg_label(g, then_);
  uint32_t sid = cg_op1(g, SpvOpLoad, u32,
                        builtin_u32(g, &g->sgid_id, SpvBuiltInSubgroupId));
  uint32_t pw = spv_t_ptr(&g->m, SpvStorageClassWorkgroup, ty);
  uint32_t slot = cg_op2(g, SpvOpAccessChain, pw, S, sid);
  SPV(&g->m, &g->body, SpvOpStore, slot, red);
  SPV(&g->m, &g->body, SpvOpBranch, merge);
  cg_label(g, merge);
  SPV(&g->m, &g->body, SpvOpControlBarrier, wg, wg, sem);
  /* L[i] = op(L[i], S[0..NumSubgroups)) */
  int dummy = 0;
  uint32_t lp = cg_elem_ptr(g, st->u.store.buffer, st->u.store.index, &dummy);
  if (g->st) return 1;
  uint32_t nsg = cg_op1(g, SpvOpLoad, u32,
                        builtin_u32(g, &g->nsg_id, SpvBuiltInNumSubgroups));
  cg_loop l;
  cg_loop_begin(g, tvm_dt(kDLUInt, 32, 1), spv_c_uint32(&g->m, 0), nsg, &l);
  if (g->st) return 1;
  uint32_t k = cg_op1(g, SpvOpLoad, u32, l.var);
  uint32_t sv = cg_op1(g, SpvOpLoad, ty, cg_op2(g, SpvOpAccessChain, pw, S, k));
  uint32_t cur = cg_op1(g, SpvOpLoad, ty, lp);
  uint32_t nv = val->kind == TVM_ADD ? cg_op2(g, comb, ty, cur, sv)
                                     : cg_glsl2(g, ty, comb, cur, sv);
  SPV(&g->m, &g->body, SpvOpStore, lp, nv);
  cg_loop_end(g, &l);
  return 1;
}
