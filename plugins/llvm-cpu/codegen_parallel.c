/*
 * codegen_parallel.c - parallel loops.  The body of `for (parallel) v in
 * [min, min + extent)` is outlined into
 *
 *   internal i32 @f.parN(i64 task, i64 ntasks, ptr closure)
 *
 * which runs its chunk of the range; the closure is a stack struct of the
 * values the body captures (plus min and extent).  The caller hands it to
 * the module global __tvm_parallel_for (a pointer the loader sets to a
 * trampoline into the host's pools) together with __tvm_parallel_ctx (the
 * device the module was loaded on, so that the loop runs on that
 * device's pool) and min(extent, __tvm_num_threads) tasks, or calls it
 * once as task 0 of 1 when no pool was installed.
 * Generated code thus never resolves symbols against the host executable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_cpu.h"

/* Defines (define != 0) or declares the four module globals the loader
 * fills in: a module compiled in parts defines them in its first part
 * only, the others link to them. */
void lc_define_globals(lc_cg *cg, int define) {
  cg->g_parallel_for = LLVMAddGlobal(cg->mod, cg->t_ptr, LC_SYM_PARALLEL_FOR);
  cg->g_parallel_ctx = LLVMAddGlobal(cg->mod, cg->t_ptr, LC_SYM_PARALLEL_CTX);
  cg->g_num_threads = LLVMAddGlobal(cg->mod, cg->t_i32, LC_SYM_NUM_THREADS);
  cg->g_assert_fail = LLVMAddGlobal(cg->mod, cg->t_ptr, LC_SYM_ASSERT_FAIL);
  if (!define) return;
  LLVMSetInitializer(cg->g_parallel_for, LLVMConstNull(cg->t_ptr));
  LLVMSetInitializer(cg->g_parallel_ctx, LLVMConstNull(cg->t_ptr));
  LLVMSetInitializer(cg->g_num_threads, LLVMConstInt(cg->t_i32, 1, 0));
  LLVMSetInitializer(cg->g_assert_fail, LLVMConstNull(cg->t_ptr));
}

/* Free-variable collection: every variable of the body that is bound in
 * the enclosing function becomes a capture. */
typedef struct capture {
  lc_cg *cg;
  tvm_ptrmap seen;
  tvm_ptrvec vars; /* tvm_expr* in first-use order */
  int oom;
} capture;

/* Records var if the enclosing function has a value for it. */
static void note_var(capture *c, const tvm_expr *var) {
  void *v = NULL;
  if (!var || var->kind != TVM_VAR) return;
  if (tvm_ptrmap_get(&c->seen, var, &v)) return;
  if (!tvm_ptrmap_get(&c->cg->vars, var, &v) || !v) return;
  if (tvm_ptrmap_put(&c->seen, var, (void *)1) != TVM_OK ||
      tvm_ptrvec_push(&c->vars, (void *)var) != TVM_OK)
    c->oom = 1;
}

/* Visitor hook: variables and loaded buffers of expressions. */
static int cap_expr(tvm_visitor *v, const tvm_expr *e) {
  capture *c = v->data;
  if (e->kind == TVM_VAR) note_var(c, e);
  if (e->kind == TVM_LOAD) note_var(c, e->u.load.buffer);
  return 0;
}

/* Visitor hook: buffers stored to. */
static int cap_stmt(tvm_visitor *v, const tvm_stmt *s) {
  capture *c = v->data;
  if (s->kind == TVM_STORE) note_var(c, s->u.store.buffer);
  return 0;
}

/* Emits the outlined task function for s; returns it.  caps are the
 * captured variables; closure fields: caps..., min (i64), extent (i64). */
static LLVMValueRef outline(lc_cg *cg, const tvm_stmt *s, tvm_ptrvec *caps,
                            LLVMTypeRef closure_ty) {
  LLVMTypeRef pt[3] = {cg->t_i64, cg->t_i64, cg->t_ptr};
  LLVMTypeRef fty = LLVMFunctionType(cg->t_i32, pt, 3, 0);
  char name[600];
  snprintf(name, sizeof name, "%s.par%d", cg->irname, cg->nouted++);
  LLVMValueRef fn = LLVMAddFunction(cg->mod, name, fty);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(cg->ctx, nounwind, 0));

  /* save the enclosing function's state */
  LLVMValueRef save_fn = cg->fn;
  LLVMBasicBlockRef save_entry = cg->entry;
  LLVMBasicBlockRef save_bb = LLVMGetInsertBlock(cg->b);
  tvm_ptrmap save_vars = cg->vars;
  tvm_ptrvec save_heap = cg->heap;
  memset(&cg->vars, 0, sizeof cg->vars);
  memset(&cg->heap, 0, sizeof cg->heap);

  cg->fn = fn;
  cg->entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
  LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(cg->ctx, fn, "start");
  LLVMPositionBuilderAtEnd(cg->b, start);
  LLVMValueRef task = LLVMGetParam(fn, 0), ntasks = LLVMGetParam(fn, 1);
  LLVMValueRef clo = LLVMGetParam(fn, 2);
  unsigned n = (unsigned)caps->len;
  for (unsigned i = 0; i < n; i++) {
    const tvm_expr *var = caps->data[i];
    LLVMValueRef p = LLVMBuildStructGEP2(cg->b, closure_ty, clo, i, "");
    LLVMValueRef v = LLVMBuildLoad2(cg->b, LLVMStructGetTypeAtIndex(closure_ty, i),
                                    p, var->u.var.name);
    tvm_ptrmap_put(&cg->vars, var, v);
  }
  LLVMValueRef mn = LLVMBuildLoad2(
      cg->b, cg->t_i64, LLVMBuildStructGEP2(cg->b, closure_ty, clo, n, ""), "min");
  LLVMValueRef ext = LLVMBuildLoad2(
      cg->b, cg->t_i64, LLVMBuildStructGEP2(cg->b, closure_ty, clo, n + 1, ""),
      "extent");
  /* chunk = ceil(extent / ntasks); [min + task*chunk, min(.. + chunk, end)) */
  LLVMValueRef one = LLVMConstInt(cg->t_i64, 1, 0);
  LLVMValueRef chunk = LLVMBuildSDiv(
      cg->b, LLVMBuildSub(cg->b, LLVMBuildAdd(cg->b, ext, ntasks, ""), one, ""),
      ntasks, "chunk");
  LLVMValueRef b = LLVMBuildAdd(cg->b, mn, LLVMBuildMul(cg->b, task, chunk, ""),
                                "begin");
  LLVMValueRef e = LLVMBuildAdd(cg->b, b, chunk, "");
  LLVMValueRef end = LLVMBuildAdd(cg->b, mn, ext, "");
  e = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, e, end, ""), e,
                      end, "end");
  cg->parallel_depth++;
  lc_emit_loop(cg, s->u.for_.var, b, e, s->u.for_.body,
               lc_is_nonneg(cg, s->u.for_.min), LC_HINT_NONE);
  cg->parallel_depth--;
  if (cg->status == TVM_OK) {
    LLVMBuildRet(cg->b, LLVMConstInt(cg->t_i32, 0, 0));
    LLVMPositionBuilderAtEnd(cg->b, cg->entry);
    LLVMBuildBr(cg->b, start);
  }

  /* restore */
  tvm_ptrmap_free(&cg->vars);
  tvm_ptrvec_free(&cg->heap);
  cg->vars = save_vars;
  cg->heap = save_heap;
  cg->fn = save_fn;
  cg->entry = save_entry;
  LLVMPositionBuilderAtEnd(cg->b, save_bb);
  return fn;
}

/* Emits a parallel loop: closure, outlined task, dispatch, error check. */
void lc_emit_parallel(lc_cg *cg, const tvm_stmt *s) {
  LLVMValueRef mn = lc_expr(cg, s->u.for_.min);
  LLVMValueRef ext = lc_expr(cg, s->u.for_.extent);
  if (!mn || !ext) return;
  mn = LLVMBuildIntCast2(cg->b, mn, cg->t_i64, 1, "");
  ext = LLVMBuildIntCast2(cg->b, ext, cg->t_i64, 1, "");

  capture c;
  memset(&c, 0, sizeof c);
  c.cg = cg;
  tvm_visitor v = {cap_expr, cap_stmt, &c};
  tvm_visit_stmt(&v, s->u.for_.body);
  tvm_ptrmap_free(&c.seen);
  if (c.oom) {
    tvm_ptrvec_free(&c.vars);
    lc_fail(cg, TVM_ERR_NOMEM, "out of memory");
    return;
  }
  unsigned n = (unsigned)c.vars.len;
  LLVMTypeRef *ft = calloc(n + 2, sizeof *ft);
  if (!ft) {
    tvm_ptrvec_free(&c.vars);
    lc_fail(cg, TVM_ERR_NOMEM, "out of memory");
    return;
  }
  for (unsigned i = 0; i < n; i++) {
    void *val = NULL;
    tvm_ptrmap_get(&cg->vars, c.vars.data[i], &val);
    ft[i] = LLVMTypeOf((LLVMValueRef)val);
  }
  ft[n] = cg->t_i64;
  ft[n + 1] = cg->t_i64;
  LLVMTypeRef cty = LLVMStructTypeInContext(cg->ctx, ft, n + 2, 0);
  free(ft);
  LLVMValueRef clo = lc_entry_alloca(cg, cty, 16, "closure");
  for (unsigned i = 0; i < n; i++) {
    void *val = NULL;
    tvm_ptrmap_get(&cg->vars, c.vars.data[i], &val);
    LLVMBuildStore(cg->b, (LLVMValueRef)val,
                   LLVMBuildStructGEP2(cg->b, cty, clo, i, ""));
  }
  LLVMBuildStore(cg->b, mn, LLVMBuildStructGEP2(cg->b, cty, clo, n, ""));
  LLVMBuildStore(cg->b, ext, LLVMBuildStructGEP2(cg->b, cty, clo, n + 1, ""));

  LLVMValueRef task = outline(cg, s, &c.vars, cty);
  tvm_ptrvec_free(&c.vars);
  if (cg->status != TVM_OK) return;

  /* ntasks = max(1, min(extent, __tvm_num_threads)) */
  LLVMValueRef nt = LLVMBuildSExt(
      cg->b, LLVMBuildLoad2(cg->b, cg->t_i32, cg->g_num_threads, "nthreads"),
      cg->t_i64, "");
  LLVMValueRef ntasks = LLVMBuildSelect(
      cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, ext, nt, ""), ext, nt, "");
  LLVMValueRef one = LLVMConstInt(cg->t_i64, 1, 0);
  ntasks = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, ntasks, one, ""),
                           one, ntasks, "ntasks");

  LLVMValueRef pf = LLVMBuildLoad2(cg->b, cg->t_ptr, cg->g_parallel_for, "pfor");
  LLVMBasicBlockRef pool = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "par.pool");
  LLVMBasicBlockRef inl = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "par.inline");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "par.done");
  LLVMValueRef usepool = LLVMBuildAnd(
      cg->b, LLVMBuildIsNotNull(cg->b, pf, ""),
      LLVMBuildICmp(cg->b, LLVMIntSGT, ntasks, one, ""), "");
  LLVMBuildCondBr(cg->b, usepool, pool, inl);

  LLVMPositionBuilderAtEnd(cg->b, pool);
  LLVMValueRef pctx =
      LLVMBuildLoad2(cg->b, cg->t_ptr, cg->g_parallel_ctx, "pctx");
  LLVMTypeRef pft_args[4] = {cg->t_ptr, cg->t_ptr, cg->t_ptr, cg->t_i64};
  LLVMTypeRef pft = LLVMFunctionType(cg->t_i32, pft_args, 4, 0);
  LLVMValueRef pargs[4] = {pctx, task, clo, ntasks};
  LLVMValueRef rc1 = LLVMBuildCall2(cg->b, pft, pf, pargs, 4, "");
  LLVMBuildBr(cg->b, done);

  LLVMPositionBuilderAtEnd(cg->b, inl);
  LLVMValueRef targs[3] = {LLVMConstInt(cg->t_i64, 0, 0), one, clo};
  LLVMValueRef rc2 =
      LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(task), task, targs, 3, "");
  LLVMBuildBr(cg->b, done);

  LLVMPositionBuilderAtEnd(cg->b, done);
  LLVMValueRef rc = LLVMBuildPhi(cg->b, cg->t_i32, "prc");
  LLVMValueRef iv[2] = {rc1, rc2};
  LLVMBasicBlockRef ib[2] = {pool, inl};
  LLVMAddIncoming(rc, iv, ib, 2);
  lc_return_if_nonzero(cg, rc);
}
