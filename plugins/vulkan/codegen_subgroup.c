/*
 * plugins/vulkan/codegen_subgroup.c - cross-thread reductions with
 * subgroup operations (OpGroupNonUniform*, SPIR-V 1.3).
 *
 * The core's generic thread schedule (core/compiler/schedule_thread.c)
 * ends a cross-thread reduction with every thread of the block folding
 * the T per-thread partials of a shared array RF, after a barrier (the
 * core's tvm_match_block_combine recognizes it; the C emitter does the
 * same with warp shuffles):
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
#include "tvm/codegen_c.h"

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
  tvm_block_combine m;
  if (!tvm_match_block_combine(s, &m)) return 0;
  const tvm_expr *v = m.var, *b = m.part;
  const tvm_stmt *st = m.store;
  int64_t T = m.T;
  tvm_dtype t = m.part->dtype;
  if (g->local[0] != (uint64_t)T || g->local[1] != 1 || g->local[2] != 1 ||
      !is_load_of(g, m.acc, SpvStorageClassFunction) ||
      !is_load_of(g, b, SpvStorageClassWorkgroup))
    return 0;
  const tvm_expr *val = st->u.store.value;
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
