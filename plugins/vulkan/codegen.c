/*
 * plugins/vulkan/codegen.c - device functions of a lowered module to
 * SPIR-V compute shaders, written directly (no GLSL, no glslang).
 *
 * One SPIR-V module per device function, entry point "main":
 *  - buffer parameters: StorageBuffer variables, a Block struct holding a
 *    runtime array of the element type, descriptor set 0, binding = the
 *    buffer's position among the buffer parameters;
 *  - scalar parameters: members of one Block, 8 bytes each in parameter
 *    order: PushConstant when they fit the 128 bytes every device offers
 *    (16 scalars), else a Uniform buffer (std140: 8-byte members are
 *    aligned) in descriptor set 0 at the binding after the last storage
 *    buffer;
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
 * Integer division follows the IR: DIV/MOD truncate (OpSDiv; the
 * remainder from OpUMod of the magnitudes, since Vulkan leaves OpSRem and
 * OpSMod undefined for negative operands), FLOORDIV rounds down and
 * FLOORMOD takes the divisor's sign (corrected by the remainder's sign;
 * OpFMod for floats).  Math goes through
 * GLSL.std.450; erf through the Abramowitz-Stegun 7.1.26 polynomial
 * (|error| < 1.5e-7).  Types: bool, 32-bit integers and float32 always;
 * 8-, 16- and 64-bit integers, float16 and float64 when the target's
 * attributes allow them (the module's capabilities follow; blob.c records
 * what each kernel needs of the device).  Bool buffers hold one byte per
 * element (uint8, converted on load and store); scalars narrower than 32
 * bits travel as 32-bit push constants.  Vector code (ramps: the target
 * reports 32-bit vectors, so the core never vectorizes for it) is
 * refused with the reason.  The final combine of a cross-thread
 * reduction may become subgroup operations (codegen_subgroup.c).  Host
 * functions of the module are not the plugin's: they run on the host
 * (tvm_launch calls).
 */
#include <stdio.h>
#include <string.h>

#include "codegen_int.h"

/* ---- statements -------------------------------------------------------------- */

static void stmt(cg *g, const tvm_stmt *s);

uint32_t cg_label(cg *g, uint32_t id) {
  SPV(&g->m, &g->body, SpvOpLabel, id);
  return id;
}

/* The builtin variable (uvec3 Input) for WorkgroupId or
 * LocalInvocationId, made on first use. */
uint32_t cg_builtin(cg *g, int local) {
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
  cg_label(g, then_);
  return merge;
}
static void if_end(cg *g, uint32_t merge) {
  SPV(&g->m, &g->body, SpvOpBranch, merge);
  cg_label(g, merge);
}

static void thread_loop(cg *g, const tvm_stmt *s) {
  int local = 0, axis = tag_axis(s->u.for_.thread_tag ? s->u.for_.thread_tag
                                                      : "",
                                 &local);
  if (axis < 0) {
    cg_fail(g, TVM_ERR_UNSUPPORTED, "thread tag '%s' (vulkan knows blockIdx.x/"
                                 "y/z and threadIdx.x/y/z)",
         s->u.for_.thread_tag ? s->u.for_.thread_tag : "");
    return;
  }
  tvm_dtype vt = s->u.for_.var->dtype;
  uint32_t u32 = spv_t_int(&g->m, 32, 0);
  uint32_t vec = cg_op1(g, SpvOpLoad, spv_t_vec(&g->m, u32, 3), cg_builtin(g, local));
  uint32_t id = spv_id(&g->m);
  SPV(&g->m, &g->body, SpvOpCompositeExtract, u32, id, vec, (uint32_t)axis);
  uint32_t v = cg_convert(g, id, tvm_dt(kDLUInt, 32, 1), vt);
  if (!tvm_is_zero(s->u.for_.min))
    v = cg_op2(g, cg_is_float(vt) ? SpvOpFAdd : SpvOpIAdd, cg_type(g, vt), v,
            cg_expr(g, s->u.for_.min));
  if (g->st) return;
  if (tvm_ptrmap_put(&g->vals, s->u.for_.var, (void *)(uintptr_t)v)) {
    cg_fail(g, TVM_ERR_NOMEM, "out of memory");
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
    uint32_t end = cg_op2(g, SpvOpIAdd, cg_type(g, vt), cg_expr(g, s->u.for_.min),
                       cg_expr(g, s->u.for_.extent));
    merge = if_begin(g, cg_op2(g, cg_cmp_op(TVM_LT, vt), spv_t_bool(&g->m), v, end));
  }
  /* inside a threadIdx loop values differ between threads; inside its
   * guard not every thread runs */
  g->in_thread += local;
  g->divergent += guard;
  stmt(g, s->u.for_.body);
  g->in_thread -= local;
  g->divergent -= guard;
  if (guard) if_end(g, merge);
}

/* Opens a structured loop `for (var = lo; var < end; var++)` over a
 * Function variable of type vt; the body follows in the loop's body
 * block, closed by cg_loop_end. */
void cg_loop_begin(cg *g, tvm_dtype vt, uint32_t lo, uint32_t end,
                   cg_loop *l) {
  memset(l, 0, sizeof *l);
  l->vt = vt;
  l->ty = cg_type(g, vt);
  if (!l->ty) return;
  uint32_t pt = spv_t_ptr(&g->m, SpvStorageClassFunction, l->ty);
  l->var = spv_id(&g->m);
  SPV(&g->m, &g->fvars, SpvOpVariable, pt, l->var, SpvStorageClassFunction);
  SPV(&g->m, &g->body, SpvOpStore, l->var, lo);
  uint32_t header = spv_id(&g->m), cond = spv_id(&g->m),
           body = spv_id(&g->m);
  l->cont = spv_id(&g->m);
  l->merge = spv_id(&g->m);
  l->header = header;
  SPV(&g->m, &g->body, SpvOpBranch, header);
  cg_label(g, header);
  SPV(&g->m, &g->body, SpvOpLoopMerge, l->merge, l->cont, SpvLoopControlNone);
  SPV(&g->m, &g->body, SpvOpBranch, cond);
  cg_label(g, cond);
  uint32_t i = cg_op1(g, SpvOpLoad, l->ty, l->var);
  uint32_t c = cg_op2(g, cg_cmp_op(TVM_LT, vt), spv_t_bool(&g->m), i, end);
  SPV(&g->m, &g->body, SpvOpBranchConditional, c, body, l->merge);
  cg_label(g, body);
}

/* Closes a loop of cg_loop_begin: increment, back edge, merge block. */
void cg_loop_end(cg *g, const cg_loop *l) {
  if (!l->ty) return;
  SPV(&g->m, &g->body, SpvOpBranch, l->cont);
  cg_label(g, l->cont);
  uint32_t i2 = cg_op1(g, SpvOpLoad, l->ty, l->var);
  SPV(&g->m, &g->body, SpvOpStore, l->var,
      cg_op2(g, SpvOpIAdd, l->ty, i2, cg_const(g, l->vt, 1, 1)));
  SPV(&g->m, &g->body, SpvOpBranch, l->header);
  cg_label(g, l->merge);
}

static void serial_loop(cg *g, const tvm_stmt *s) {
  tvm_dtype vt = s->u.for_.var->dtype;
  uint32_t ty = cg_type(g, vt);
  if (!ty) return;
  /* a cross-thread reduction's final combine: subgroup operations */
  if (g->allow_subgroup && !g->divergent && !g->in_thread &&
      cg_subgroup_reduce(g, s))
    return;
  if (g->st) return;
  uint32_t lo = cg_expr(g, s->u.for_.min), ext = cg_expr(g, s->u.for_.extent);
  if (g->st) return;
  uint32_t end = cg_op2(g, SpvOpIAdd, ty, lo, ext);
  cg_loop l;
  cg_loop_begin(g, vt, lo, end, &l);
  if (g->st) return;
  if (tvm_ptrmap_put(&g->ptrs, s->u.for_.var, (void *)(uintptr_t)l.var)) {
    cg_fail(g, TVM_ERR_NOMEM, "out of memory");
    return;
  }
  /* a loop whose trip count is not a constant may differ between
   * threads: what it contains is not in uniform control flow */
  int64_t c = 0;
  int varying = !tvm_is_const_int(s->u.for_.extent, &c) ||
                !tvm_is_const_int(s->u.for_.min, &c);
  g->divergent += varying;
  stmt(g, s->u.for_.body);
  g->divergent -= varying;
  cg_loop_end(g, &l);
}

static void allocate(cg *g, const tvm_stmt *s) {
  int64_t n = 0;
  if (!tvm_is_const_int(s->u.alloc.extent, &n) || n <= 0) {
    cg_fail(g, TVM_ERR_UNSUPPORTED, "allocation %s has no constant extent",
         s->u.alloc.buffer->u.var.name);
    return;
  }
  int shared = !strcmp(s->u.alloc.scope, "shared");
  uint64_t bytes = (uint64_t)n * (uint64_t)tvm_dtype_bytes(s->u.alloc.dtype);
  if (shared && bytes > g->t->shared_bytes) {
    cg_fail(g, TVM_ERR_UNSUPPORTED,
         "shared buffer %s needs %llu bytes, more than the target's %u "
         "bytes of workgroup memory (attrs.shared_kib)",
         s->u.alloc.buffer->u.var.name, (unsigned long long)bytes,
         g->t->shared_bytes);
    return;
  }
  uint32_t et = cg_type(g, s->u.alloc.dtype);
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
    cg_fail(g, TVM_ERR_NOMEM, "out of memory");
    return;
  }
  *bi = (bufinfo){var, sc, et, 0, 0};
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
    uint32_t c = cg_expr(g, s->u.if_.cond);
    if (g->st) return;
    uint32_t then_ = spv_id(&g->m), else_ = spv_id(&g->m),
             merge = spv_id(&g->m);
    SPV(&g->m, &g->body, SpvOpSelectionMerge, merge, SpvSelectionControlNone);
    SPV(&g->m, &g->body, SpvOpBranchConditional, c, then_,
        s->u.if_.else_ ? else_ : merge);
    cg_label(g, then_);
    g->divergent++;
    stmt(g, s->u.if_.then_);
    SPV(&g->m, &g->body, SpvOpBranch, merge);
    if (s->u.if_.else_) {
      cg_label(g, else_);
      stmt(g, s->u.if_.else_);
      SPV(&g->m, &g->body, SpvOpBranch, merge);
    }
    g->divergent--;
    cg_label(g, merge);
    return;
  }
  case TVM_LET_STMT: {
    uint32_t v = cg_expr(g, s->u.let.value);
    if (g->st) return;
    if (tvm_ptrmap_put(&g->vals, s->u.let.var, (void *)(uintptr_t)v)) {
      cg_fail(g, TVM_ERR_NOMEM, "out of memory");
      return;
    }
    stmt(g, s->u.let.body);
    return;
  }
  case TVM_STORE: {
    if (s->u.store.pred) {
      cg_fail(g, TVM_ERR_UNSUPPORTED, "a predicated (masked) store");
      return;
    }
    uint32_t v = cg_expr(g, s->u.store.value);
    int is_bool = 0;
    uint32_t p = cg_elem_ptr(g, s->u.store.buffer, s->u.store.index,
                             &is_bool);
    if (is_bool)
      v = cg_convert(g, v, s->u.store.value->dtype, tvm_dt(kDLUInt, 8, 1));
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
      cg_expr(g, s->u.eval.value);
      return;
    }
    return;
  default:
    cg_fail(g, TVM_ERR_UNSUPPORTED, "statement kind %s",
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
      cg_fail(g, TVM_ERR_UNSUPPORTED, "thread tag '%s'", f->thread_tags[i]);
      return;
    }
    if (!tvm_is_const_int(f->thread_extents[i], &v) || v <= 0 ||
        v > 0x7fffffff) {
      cg_fail(g, TVM_ERR_UNSUPPORTED,
           "the extent of %s is not a positive constant (dynamic launch "
           "geometry is not supported)",
           f->thread_tags[i]);
      return;
    }
    (local ? g->local : g->grid)[axis] = (uint32_t)v;
  }
  uint64_t threads = (uint64_t)g->local[0] * g->local[1] * g->local[2];
  if (threads > g->t->max_threads)
    cg_fail(g, TVM_ERR_UNSUPPORTED,
         "%llu threads per workgroup (%ux%ux%u) exceed the target's %u "
         "(attrs.max_threads): split threadIdx further",
         (unsigned long long)threads, g->local[0], g->local[1], g->local[2],
         g->t->max_threads);
}

/* Declares the parameters: storage buffers and the scalar block (push
 * constants, or a uniform buffer past VK_PUSH_MAX bytes).  kinds/bits
 * receive each parameter's kind. */
static void params(cg *g, uint32_t *kinds, uint32_t *bits) {
  const tvm_func *f = g->f;
  uint32_t binding = 0, nscalar = 0;
  uint32_t members[VK_MAX_PARAMS], mtypes[VK_MAX_PARAMS];
  if (f->nparams > VK_MAX_PARAMS) {
    cg_fail(g, TVM_ERR_UNSUPPORTED, "%d parameters (at most %d)", f->nparams,
            VK_MAX_PARAMS);
    return;
  }
  for (int i = 0; i < f->nparams; i++) {
    tvm_expr *p = f->params[i];
    if (tvm_dtype_is_handle(p->dtype)) {
      tvm_buffer *b = f->buffers ? f->buffers[i] : NULL;
      if (!b) {
        cg_fail(g, TVM_ERR_UNSUPPORTED, "handle parameter %s has no buffer",
             p->u.var.name);
        return;
      }
      /* bool elements are bytes (the host's layout): uint8 in the
       * buffer, converted on every load and store */
      int is_bool = tvm_dtype_is_bool(b->dtype);
      uint32_t et = cg_type(g, is_bool ? tvm_dt(kDLUInt, 8, 1) : b->dtype);
      if (!et) {
        if (is_bool)
          cg_fail_more(g, "(buffer %s holds bool, stored as 8-bit)",
                       p->u.var.name);
        return;
      }
      if (is_bool || b->dtype.bits == 8) g->m.features |= SPV_F_STORAGE8;
      else if (b->dtype.bits == 16) g->m.features |= SPV_F_STORAGE16;
      uint32_t st = spv_t_block1(&g->m, spv_t_rtarray(&g->m, et,
                                 is_bool ? 1u : (uint32_t)tvm_dtype_bytes(b->dtype)));
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
        cg_fail(g, TVM_ERR_NOMEM, "out of memory");
        return;
      }
      *bi = (bufinfo){var, SpvStorageClassStorageBuffer, et, 1, is_bool};
      kinds[i] = VK_PARAM_BUFFER;
      bits[i] = 0;
    } else {
      /* scalars narrower than 32 bits (and bools) travel as 32-bit
       * members and are converted once read */
      tvm_dtype wide = p->dtype;
      if (tvm_dtype_is_bool(wide)) wide = tvm_dt(kDLInt, 32, 1);
      else if (wide.bits < 32) wide.bits = 32;
      uint32_t ty = cg_type(g, wide);
      if (!ty || !cg_type(g, p->dtype)) return;
      members[nscalar] = (uint32_t)i;
      mtypes[nscalar++] = ty;
      kinds[i] = cg_is_float(p->dtype) ? VK_PARAM_FLOAT : VK_PARAM_INT;
      bits[i] = wide.bits;
    }
  }
  if (!nscalar) return;
  /* past what push constants are guaranteed to hold: a uniform buffer */
  int ubo = nscalar * 8 > VK_PUSH_MAX;
  uint32_t sc = ubo ? SpvStorageClassUniform : SpvStorageClassPushConstant;
  uint32_t st = spv_id(&g->m);
  uint32_t ops[VK_MAX_PARAMS + 1];
  ops[0] = st;
  for (uint32_t k = 0; k < nscalar; k++) ops[k + 1] = mtypes[k];
  spv_inst(&g->m, &g->m.types, SpvOpTypeStruct, ops, (int)nscalar + 1);
  SPV(&g->m, &g->m.annot, SpvOpDecorate, st, SpvDecorationBlock);
  for (uint32_t k = 0; k < nscalar; k++)
    SPV(&g->m, &g->m.annot, SpvOpMemberDecorate, st, k, SpvDecorationOffset,
        k * 8);
  g->push_var = spv_id(&g->m);
  g->push_bytes = nscalar * 8;
  g->push_sc = sc;
  SPV(&g->m, &g->m.types, SpvOpVariable, spv_t_ptr(&g->m, sc, st),
      g->push_var, sc);
  if (ubo) {
    SPV(&g->m, &g->m.annot, SpvOpDecorate, g->push_var,
        SpvDecorationDescriptorSet, 0);
    SPV(&g->m, &g->m.annot, SpvOpDecorate, g->push_var, SpvDecorationBinding,
        binding);
  }
  /* read every scalar once at the top of the kernel */
  for (uint32_t k = 0; k < nscalar; k++) {
    uint32_t ptr = spv_id(&g->m);
    SPV(&g->m, &g->body, SpvOpAccessChain,
        spv_t_ptr(&g->m, sc, mtypes[k]), ptr,
        g->push_var, spv_c_uint32(&g->m, k));
    tvm_dtype pt = f->params[members[k]]->dtype, wide = pt;
    if (tvm_dtype_is_bool(wide)) wide = tvm_dt(kDLInt, 32, 1);
    else if (wide.bits < 32) wide.bits = 32;
    uint32_t v = cg_convert(g, cg_op1(g, SpvOpLoad, mtypes[k], ptr), wide, pt);
    if (tvm_ptrmap_put(&g->vals, f->params[members[k]],
                       (void *)(uintptr_t)v)) {
      cg_fail(g, TVM_ERR_NOMEM, "out of memory");
      return;
    }
  }
}

/* One device function -> one SPIR-V module. */
tvm_status vk_kernel_spirv(const tvm_plugin_target *t, const tvm_func *f,
                         uint32_t **words, size_t *nwords, uint32_t *kinds,
                         uint32_t *bits, uint32_t local[3], uint32_t grid[3],
                         uint32_t *push_bytes, uint32_t *scalars_ubo,
                         uint32_t *features,
                         int allow_subgroup, int *used_subgroup) {
  cg g;
  memset(&g, 0, sizeof g);
  g.t = t;
  g.allow_subgroup = allow_subgroup;
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
    uint32_t iface[4];
    int ni = 0;
    if (g.wg_id) iface[ni++] = g.wg_id;
    if (g.lid_id) iface[ni++] = g.lid_id;
    if (g.sgid_id) iface[ni++] = g.sgid_id;
    if (g.nsg_id) iface[ni++] = g.nsg_id;
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
  *scalars_ubo = g.push_sc == SpvStorageClassUniform;
  *features = g.m.features;
  *used_subgroup = (g.m.features & SPV_F_SUBGROUP) != 0;
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

