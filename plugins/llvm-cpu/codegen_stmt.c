/*
 * codegen_stmt.c - TIR statements to LLVM IR: loops, sequences, branches,
 * lets, stores, allocations (stack or heap), asserts and evaluated calls.
 * Parallel loops are outlined by codegen_parallel.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "llvm_cpu.h"

/* Largest constant-size buffer placed on the stack. */
#define STACK_LIMIT (64 * 1024)

/* An alloca in the entry block of the current function (hoisted out of
 * every loop), aligned to align bytes. */
LLVMValueRef lc_entry_alloca(lc_cg *cg, LLVMTypeRef ty, unsigned align,
                             const char *name) {
  LLVMBasicBlockRef cur = LLVMGetInsertBlock(cg->b);
  LLVMPositionBuilderAtEnd(cg->b, cg->entry);
  LLVMValueRef a = LLVMBuildAlloca(cg->b, ty, name);
  LLVMSetAlignment(a, align);
  LLVMPositionBuilderAtEnd(cg->b, cur);
  return a;
}

/* Frees every heap buffer live at this point (before an early return). */
static void free_live_heap(lc_cg *cg) {
  LLVMTypeRef fty = LLVMFunctionType(cg->t_void, &cg->t_ptr, 1, 0);
  LLVMValueRef fr = LLVMGetNamedFunction(cg->mod, "free");
  if (!fr) fr = LLVMAddFunction(cg->mod, "free", fty);
  for (size_t i = cg->heap.len; i-- > 0;) {
    LLVMValueRef a = cg->heap.data[i];
    LLVMBuildCall2(cg->b, fty, fr, &a, 1, "");
  }
}

/* if (rc != 0) { free live buffers; return rc; } */
void lc_return_if_nonzero(lc_cg *cg, LLVMValueRef rc) {
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "cont");
  LLVMValueRef nz = LLVMBuildICmp(cg->b, LLVMIntNE, rc,
                                  LLVMConstNull(LLVMTypeOf(rc)), "");
  LLVMBuildCondBr(cg->b, nz, bad, ok);
  LLVMPositionBuilderAtEnd(cg->b, bad);
  free_live_heap(cg);
  LLVMBuildRet(cg->b, rc);
  LLVMPositionBuilderAtEnd(cg->b, ok);
}

/* Calls the loader-provided assertion reporter with msg, if set. */
static void report_assert(lc_cg *cg, const char *msg) {
  /* no function name: the object must not depend on it (codegen.c);
   * lc_launch's report names the kernel */
  LLVMValueRef str = LLVMBuildGlobalStringPtr(cg->b, msg ? msg : "", "amsg");
  LLVMValueRef fp = LLVMBuildLoad2(cg->b, cg->t_ptr, cg->g_assert_fail, "");
  LLVMBasicBlockRef call = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "rep");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "rep.done");
  LLVMBuildCondBr(cg->b, LLVMBuildIsNotNull(cg->b, fp, ""), call, done);
  LLVMPositionBuilderAtEnd(cg->b, call);
  LLVMTypeRef fty = LLVMFunctionType(cg->t_void, &cg->t_ptr, 1, 0);
  LLVMBuildCall2(cg->b, fty, fp, &str, 1, "");
  LLVMBuildBr(cg->b, done);
  LLVMPositionBuilderAtEnd(cg->b, done);
}

/* Attaches llvm.loop metadata asking for full unrolling, unrolling by 4
 * or vectorization to the back edge br (a self-referential loop id
 * node). */
static void set_loop_hint(lc_cg *cg, LLVMValueRef br, int hint) {
  const char *key = hint == LC_HINT_UNROLL       ? "llvm.loop.unroll.full"
                    : hint == LC_HINT_UNROLL_BY4 ? "llvm.loop.unroll.count"
                                                 : "llvm.loop.vectorize.enable";
  LLVMMetadataRef ops[2];
  if (hint == LC_HINT_UNROLL) {
    ops[0] = LLVMMDStringInContext2(cg->ctx, key, strlen(key));
    LLVMMetadataRef prop = LLVMMDNodeInContext2(cg->ctx, ops, 1);
    ops[1] = prop;
  } else {
    ops[0] = LLVMMDStringInContext2(cg->ctx, key, strlen(key));
    ops[1] = hint == LC_HINT_UNROLL_BY4
                 ? LLVMValueAsMetadata(LLVMConstInt(cg->t_i32, 4, 0))
                 : LLVMValueAsMetadata(LLVMConstInt(cg->t_i1, 1, 0));
    LLVMMetadataRef prop = LLVMMDNodeInContext2(cg->ctx, ops, 2);
    ops[1] = prop;
  }
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(cg->ctx, NULL, 0);
  ops[0] = tmp;
  LLVMMetadataRef id = LLVMMDNodeInContext2(cg->ctx, ops, 2);
  LLVMMetadataReplaceAllUsesWith(tmp, id);
  unsigned kind = LLVMGetMDKindIDInContext(cg->ctx, "llvm.loop", 9);
  LLVMSetMetadata(br, kind, LLVMMetadataAsValue(cg->ctx, id));
}

/* Emits for (var = begin; var < end; var++) body, with begin/end values
 * of the variable's type.  nonneg says the variable is known >= 0; hint
 * (LC_HINT_*) becomes loop metadata. */
void lc_emit_loop(lc_cg *cg, const tvm_expr *var, LLVMValueRef begin,
                  LLVMValueRef end, const tvm_stmt *body, int nonneg,
                  int hint) {
  LLVMTypeRef ty = lc_type(cg, var->dtype);
  if (LLVMTypeOf(begin) != ty) begin = LLVMBuildIntCast2(cg->b, begin, ty, 1, "");
  if (LLVMTypeOf(end) != ty) end = LLVMBuildIntCast2(cg->b, end, ty, 1, "");
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "for.head");
  LLVMBasicBlockRef bodyb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "for.body");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "for.end");
  LLVMBuildBr(cg->b, head);
  LLVMPositionBuilderAtEnd(cg->b, head);
  LLVMValueRef i = LLVMBuildPhi(cg->b, ty, var->u.var.name);
  LLVMValueRef lt = LLVMBuildICmp(cg->b, LLVMIntSLT, i, end, "");
  LLVMBuildCondBr(cg->b, lt, bodyb, exit);
  LLVMPositionBuilderAtEnd(cg->b, bodyb);
  void *old = NULL, *oldnn = NULL;
  tvm_ptrmap_get(&cg->vars, var, &old);
  tvm_ptrmap_get(&cg->nonneg, var, &oldnn);
  tvm_ptrmap_put(&cg->vars, var, i);
  tvm_ptrmap_put(&cg->nonneg, var, nonneg ? (void *)1 : NULL);
  lc_stmt(cg, body);
  tvm_ptrmap_put(&cg->vars, var, old);
  tvm_ptrmap_put(&cg->nonneg, var, oldnn);
  if (cg->status != TVM_OK) return;
  LLVMValueRef next = LLVMBuildNSWAdd(cg->b, i, LLVMConstInt(ty, 1, 0), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(cg->b);
  LLVMValueRef back = LLVMBuildBr(cg->b, head);
  if (hint != LC_HINT_NONE) set_loop_hint(cg, back, hint);
  LLVMValueRef iv[2] = {begin, next};
  LLVMBasicBlockRef ib[2] = {pre, latch};
  LLVMAddIncoming(i, iv, ib, 2);
  LLVMPositionBuilderAtEnd(cg->b, exit);
}

/* LLVM's own unroller is off (codegen.c, optimize); instead a serial
 * innermost loop of at most UNROLL_TRIPS iterations whose unrolled body
 * holds at most UNROLL_STORES stores is marked for full unrolling (the
 * input channel block of a convolution's micro-kernel, a depthwise
 * kernel row, a transform's small loops), and a longer one whose body
 * holds at most BY4_STORES stores for unrolling by 4 (the reduction
 * loop of a matmul's register block: without it the awkward SGEMM
 * shapes ran 9-11% slower than with LLVM's unroller, with it 0.98-1.07x;
 * models the same within 1.5%).  LLVM's partial and runtime
 * unrolling of reduction loops whose bodies the schedule had already
 * unrolled into a register block, and its full unrolling of the loops
 * around whole reductions, doubled the code and took about half of opt's
 * and llc's time.  With this rule ResNet-18 compiled in a median 1.52 s
 * instead of 2.07 on a 2-vCPU Zen 3 and ran 4% faster (in-process A/B),
 * MobileNetV2 in 0.74-1.0 s instead of 1.2-1.3 and 4-6% faster, while
 * turning LLVM's unrolling off without these marks made MobileNetV2
 * 1.2-1.3x slower (bench/RESULTS.md, 2026-11-28). */
enum { UNROLL_TRIPS = LC_UNROLL_TRIPS, UNROLL_STORES = LC_UNROLL_STORES, BY4_STORES = 16 };

typedef struct loop_shape {
  int nested; /* the body holds a loop */
  int64_t stores;
} loop_shape;

static int shape_stmt(tvm_visitor *v, const tvm_stmt *st) {
  loop_shape *ls = v->data;
  if (st->kind == TVM_FOR) ls->nested = 1;
  if (st->kind == TVM_STORE) ls->stores++;
  return ls->nested; /* stop descending once a loop is found */
}

/* The unrolling hint of serial loop s (LC_HINT_*). */
static int unroll_hint(const tvm_stmt *s) {
  loop_shape ls = {0, 0};
  tvm_visitor v = {NULL, shape_stmt, &ls};
  tvm_visit_stmt(&v, s->u.for_.body);
  if (ls.nested) return LC_HINT_NONE;
  int64_t trips;
  if (tvm_is_const_int(s->u.for_.extent, &trips) && trips <= UNROLL_TRIPS)
    return trips * ls.stores <= UNROLL_STORES ? LC_HINT_UNROLL : LC_HINT_NONE;
  return ls.stores <= BY4_STORES ? LC_HINT_UNROLL_BY4 : LC_HINT_NONE;
}

/* A serial for loop over [min, min + extent).  Loops still marked
 * unrolled or vectorized (the lowering left them, e.g. beyond its unroll
 * limit) ask LLVM to do it; hint adds a pragma's request. */
static void emit_for(lc_cg *cg, const tvm_stmt *s, int hint) {
  if (s->u.for_.for_kind == TVM_FOR_PARALLEL && cg->parallel_depth == 0) {
    lc_emit_parallel(cg, s);
    return;
  }
  LLVMValueRef mn = lc_expr(cg, s->u.for_.min);
  LLVMValueRef ext = lc_expr(cg, s->u.for_.extent);
  if (!mn || !ext) return;
  LLVMTypeRef ty = lc_type(cg, s->u.for_.var->dtype);
  mn = LLVMBuildIntCast2(cg->b, mn, ty, 1, "");
  ext = LLVMBuildIntCast2(cg->b, ext, ty, 1, "");
  LLVMValueRef end = LLVMBuildNSWAdd(cg->b, mn, ext, "end");
  if (hint == LC_HINT_NONE && s->u.for_.for_kind == TVM_FOR_UNROLLED)
    hint = LC_HINT_UNROLL;
  if (hint == LC_HINT_NONE && s->u.for_.for_kind == TVM_FOR_VECTORIZED)
    hint = LC_HINT_VECTORIZE;
  if (hint == LC_HINT_NONE && s->u.for_.for_kind == TVM_FOR_SERIAL &&
      cg->target->opt_level >= 2)
    hint = unroll_hint(s);
  /* the loop variable's range while its body is emitted, for the
   * accesses of stack buffers (stack_in_bounds in codegen_memory.c) */
  tvm_range r = {s->u.for_.min, s->u.for_.extent};
  void *oldr = NULL;
  tvm_ptrmap_get(&cg->ranges.map, s->u.for_.var, &oldr);
  tvm_ptrmap_put(&cg->ranges.map, s->u.for_.var, &r);
  lc_emit_loop(cg, s->u.for_.var, mn, end, s->u.for_.body,
               lc_is_nonneg(cg, s->u.for_.min), hint);
  tvm_ptrmap_put(&cg->ranges.map, s->u.for_.var, oldr);
}

/* if (cond) then_ else else_. */
static void emit_if(lc_cg *cg, const tvm_stmt *s) {
  LLVMValueRef c = lc_expr(cg, s->u.if_.cond);
  if (!c) return;
  if (LLVMGetTypeKind(LLVMTypeOf(c)) == LLVMVectorTypeKind) {
    lc_fail(cg, TVM_ERR_INVALID, "if condition is a vector");
    return;
  }
  if (LLVMTypeOf(c) != cg->t_i1)
    c = LLVMBuildICmp(cg->b, LLVMIntNE, c, LLVMConstNull(LLVMTypeOf(c)), "");
  LLVMBasicBlockRef th = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "then");
  LLVMBasicBlockRef el = s->u.if_.else_
                             ? LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "else")
                             : NULL;
  LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "endif");
  LLVMBuildCondBr(cg->b, c, th, el ? el : end);
  LLVMPositionBuilderAtEnd(cg->b, th);
  lc_stmt(cg, s->u.if_.then_);
  LLVMBuildBr(cg->b, end);
  if (el) {
    LLVMPositionBuilderAtEnd(cg->b, el);
    lc_stmt(cg, s->u.if_.else_);
    LLVMBuildBr(cg->b, end);
  }
  LLVMPositionBuilderAtEnd(cg->b, end);
}

/* allocate: a stack array hoisted to the entry block when its size is a
 * constant of at most 64 KiB, otherwise aligned_alloc / free around the
 * body.  Either way 64-byte aligned. */
static void emit_allocate(lc_cg *cg, const tvm_stmt *s) {
  const tvm_expr *buf = s->u.alloc.buffer;
  tvm_dtype t = s->u.alloc.dtype;
  int64_t n;
  int64_t esz = tvm_dtype_bytes(t);
  unsigned align = 64;
  if (s->u.alloc.align > 64) align = (unsigned)s->u.alloc.align;
  LLVMValueRef p;
  int heap = 0;
  if (tvm_is_const_int(s->u.alloc.extent, &n) && n >= 0 &&
      n * esz <= STACK_LIMIT) {
    LLVMTypeRef at = LLVMArrayType(lc_mem_type(cg, t), (unsigned)(n ? n : 1));
    p = lc_entry_alloca(cg, at, align, buf->u.var.name);
    tvm_ptrmap_put(&cg->stack_n, buf, (void *)(intptr_t)(n > 0 ? n : 0));
  } else {
    tvm_ptrmap_put(&cg->stack_n, buf, NULL); /* not a stack buffer */
    LLVMValueRef ext = lc_expr(cg, s->u.alloc.extent);
    if (!ext) return;
    ext = LLVMBuildIntCast2(cg->b, ext, cg->t_i64, 1, "");
    LLVMValueRef bytes = LLVMBuildMul(
        cg->b, ext, LLVMConstInt(cg->t_i64, (unsigned long long)esz, 0), "");
    /* round up to a multiple of the alignment, as aligned_alloc wants */
    bytes = LLVMBuildAnd(
        cg->b,
        LLVMBuildAdd(cg->b, bytes, LLVMConstInt(cg->t_i64, align - 1 + align, 0), ""),
        LLVMConstInt(cg->t_i64, ~(unsigned long long)(align - 1), 0), "");
    LLVMTypeRef pt[2] = {cg->t_i64, cg->t_i64};
    LLVMTypeRef fty = LLVMFunctionType(cg->t_ptr, pt, 2, 0);
    LLVMValueRef fa = LLVMGetNamedFunction(cg->mod, "aligned_alloc");
    if (!fa) fa = LLVMAddFunction(cg->mod, "aligned_alloc", fty);
    LLVMValueRef args[2] = {LLVMConstInt(cg->t_i64, align, 0), bytes};
    p = LLVMBuildCall2(cg->b, fty, fa, args, 2, buf->u.var.name);
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "oom");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "allocated");
    LLVMBuildCondBr(cg->b, LLVMBuildIsNull(cg->b, p, ""), bad, ok);
    LLVMPositionBuilderAtEnd(cg->b, bad);
    char msg[300];
    snprintf(msg, sizeof msg, "out of memory allocating buffer '%s'",
             buf->u.var.name);
    report_assert(cg, msg);
    free_live_heap(cg);
    LLVMBuildRet(cg->b, LLVMConstInt(cg->t_i32, (unsigned long long)TVM_ERR_NOMEM, 1));
    LLVMPositionBuilderAtEnd(cg->b, ok);
    heap = 1;
    tvm_ptrvec_push(&cg->heap, p);
  }
  void *old = NULL, *olda = NULL;
  tvm_ptrmap_get(&cg->vars, buf, &old);
  tvm_ptrmap_get(&cg->align, buf, &olda);
  tvm_ptrmap_put(&cg->vars, buf, p);
  tvm_ptrmap_put(&cg->align, buf, (void *)(intptr_t)align);
  tvm_ptrmap_put(&cg->allocated, buf, (void *)1);
  lc_stmt(cg, s->u.alloc.body);
  tvm_ptrmap_put(&cg->vars, buf, old);
  tvm_ptrmap_put(&cg->align, buf, olda);
  if (heap) {
    cg->heap.len--;
    if (cg->status != TVM_OK) return;
    LLVMTypeRef fty = LLVMFunctionType(cg->t_void, &cg->t_ptr, 1, 0);
    LLVMValueRef fr = LLVMGetNamedFunction(cg->mod, "free");
    if (!fr) fr = LLVMAddFunction(cg->mod, "free", fty);
    LLVMBuildCall2(cg->b, fty, fr, &p, 1, "");
  }
}

/* assert(cond, msg): reports and returns TVM_ERR_INVALID when false. */
static void emit_assert(lc_cg *cg, const tvm_stmt *s) {
  LLVMValueRef c = lc_expr(cg, s->u.assert_.cond);
  if (!c) return;
  if (LLVMTypeOf(c) != cg->t_i1)
    c = LLVMBuildICmp(cg->b, LLVMIntNE, c, LLVMConstNull(LLVMTypeOf(c)), "");
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "assert.fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "assert.ok");
  LLVMBuildCondBr(cg->b, c, ok, bad);
  LLVMPositionBuilderAtEnd(cg->b, bad);
  report_assert(cg, s->u.assert_.msg);
  free_live_heap(cg);
  LLVMBuildRet(cg->b, LLVMConstInt(cg->t_i32, (unsigned long long)TVM_ERR_INVALID, 1));
  LLVMPositionBuilderAtEnd(cg->b, ok);
  if (s->u.assert_.body) lc_stmt(cg, s->u.assert_.body);
}

/* Emits statement s at the builder's position. */
void lc_stmt(lc_cg *cg, const tvm_stmt *s) {
  if (cg->status != TVM_OK || !s) return;
  switch (s->kind) {
  case TVM_FOR: emit_for(cg, s, LC_HINT_NONE); break;
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n && cg->status == TVM_OK; i++)
      lc_stmt(cg, s->u.seq.stmts[i]);
    break;
  case TVM_IF: emit_if(cg, s); break;
  case TVM_LET_STMT: {
    LLVMValueRef v = lc_expr(cg, s->u.let.value);
    if (!v) return;
    void *old = NULL, *oldnn = NULL;
    tvm_ptrmap_get(&cg->vars, s->u.let.var, &old);
    tvm_ptrmap_get(&cg->nonneg, s->u.let.var, &oldnn);
    tvm_ptrmap_put(&cg->vars, s->u.let.var, v);
    tvm_ptrmap_put(&cg->nonneg, s->u.let.var,
                   lc_is_nonneg(cg, s->u.let.value) ? (void *)1 : NULL);
    lc_stmt(cg, s->u.let.body);
    tvm_ptrmap_put(&cg->vars, s->u.let.var, old);
    tvm_ptrmap_put(&cg->nonneg, s->u.let.var, oldnn);
    break;
  }
  case TVM_STORE: lc_emit_store(cg, s); break;
  case TVM_ALLOCATE: emit_allocate(cg, s); break;
  case TVM_ATTR:
    /* pragma_unroll / pragma_vectorize over a loop become loop hints;
     * other keys (storage scopes, pragmas LLVM has no use for) only
     * annotate */
    if (s->u.attr.key && s->u.attr.body && s->u.attr.body->kind == TVM_FOR &&
        (strcmp(s->u.attr.key, "pragma_unroll") == 0 ||
         strcmp(s->u.attr.key, "pragma_vectorize") == 0))
      emit_for(cg, s->u.attr.body,
               s->u.attr.key[7] == 'u' ? LC_HINT_UNROLL : LC_HINT_VECTORIZE);
    else
      lc_stmt(cg, s->u.attr.body);
    break;
  case TVM_EVALUATE:
    if (s->u.eval.value && s->u.eval.value->kind != TVM_INT)
      lc_expr(cg, s->u.eval.value);
    break;
  case TVM_BARRIER: break; /* one thread per task on a CPU: nothing to do */
  case TVM_ASSERT: emit_assert(cg, s); break;
  case TVM_PROVIDE:
  case TVM_REALIZE: {
    char *at = tvm_stmt_str(s);
    if (at) at[strcspn(at, "\n")] = 0; /* its first line is enough */
    lc_fail(cg, TVM_ERR_INVALID,
            "unsupported statement kind '%s' at %.160s (run storage_flatten "
            "first: codegen takes flat loads and stores)",
            tvm_stmt_kind_name(s->kind), at ? at : "?");
    tvm_free(at);
    break;
  }
  default:
    lc_fail(cg, TVM_ERR_UNSUPPORTED, "unsupported statement kind %d",
            (int)s->kind);
  }
}
