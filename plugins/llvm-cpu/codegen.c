/*
 * codegen.c - module-level code generation: a tvm_module of host
 * functions becomes one LLVM module (one exported entry point per
 * function), optimized by the O3 pipeline and emitted as an ELF object,
 * or linked into a shared object when the target says output: shared.
 *
 * Each call owns a fresh LLVMContext, so codegen is reentrant across
 * targets and threads.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "llvm_cpu.h"

/* Records the first failure of a codegen call with the function's name. */
void *lc_fail(lc_cg *cg, int32_t st, const char *fmt, ...) {
  if (cg->status != TVM_OK) return NULL;
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cg->status = st;
  lc_report(st, "llvm-cpu: codegen of '%s': %s", cg->fname ? cg->fname : "?",
            msg);
  return NULL;
}

/* Builds the inner function `name.body(params...)` of f (buffers as
 * noalias pointers, scalars by value) and fills its body; returns it. */
static LLVMValueRef emit_body(lc_cg *cg, const tvm_func *f) {
  int n = f->nparams;
  LLVMTypeRef *pt = calloc((size_t)(n ? n : 1), sizeof *pt);
  if (!pt) return lc_fail(cg, TVM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n; i++) pt[i] = lc_type(cg, f->params[i]->dtype);
  LLVMTypeRef fty = LLVMFunctionType(cg->t_i32, pt, (unsigned)n, 0);
  free(pt);
  char nm[512];
  snprintf(nm, sizeof nm, "%s.body", f->name);
  LLVMValueRef fn = LLVMAddFunction(cg->mod, nm, fty);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(cg->ctx, nounwind, 0));
  cg->fn = fn;
  cg->entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
  LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(cg->ctx, fn, "start");
  LLVMPositionBuilderAtEnd(cg->b, start);
  for (int i = 0; i < n; i++) {
    LLVMValueRef p = LLVMGetParam(fn, (unsigned)i);
    LLVMSetValueName2(p, f->params[i]->u.var.name,
                      strlen(f->params[i]->u.var.name));
    if (tvm_dtype_is_handle(f->params[i]->dtype))
      LLVMAddAttributeAtIndex(fn, (unsigned)i + 1,
                              LLVMCreateEnumAttribute(cg->ctx, noalias, 0));
    tvm_ptrmap_put(&cg->vars, f->params[i], p);
  }
  lc_stmt(cg, f->body);
  if (cg->status != TVM_OK) return NULL;
  LLVMBuildRet(cg->b, LLVMConstInt(cg->t_i32, 0, 0));
  /* the entry block holds hoisted allocas, then falls into the body */
  LLVMPositionBuilderAtEnd(cg->b, cg->entry);
  LLVMBuildBr(cg->b, start);
  return fn;
}

/* Builds the exported entry `int32_t name(const tvm_plugin_arg *args,
 * uint32_t nargs)`: checks nargs, unpacks each argument (args[i].v at
 * byte offset 8 of a 16-byte record) and calls the body. */
static void emit_entry(lc_cg *cg, const tvm_func *f, LLVMValueRef body) {
  LLVMTypeRef pt[2] = {cg->t_ptr, cg->t_i32};
  LLVMTypeRef fty = LLVMFunctionType(cg->t_i32, pt, 2, 0);
  LLVMValueRef fn = LLVMAddFunction(cg->mod, f->name, fty);
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(cg->ctx, fn, "ok");
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(cg->ctx, fn, "bad");
  LLVMPositionBuilderAtEnd(cg->b, bb);
  LLVMValueRef args = LLVMGetParam(fn, 0);
  LLVMValueRef nargs = LLVMGetParam(fn, 1);
  LLVMValueRef few = LLVMBuildICmp(
      cg->b, LLVMIntULT, nargs,
      LLVMConstInt(cg->t_i32, (unsigned long long)f->nparams, 0), "few");
  LLVMBuildCondBr(cg->b, few, bad, ok);

  LLVMPositionBuilderAtEnd(cg->b, bad);
  char msg[600];
  snprintf(msg, sizeof msg, "'%s' takes %d arguments", f->name, f->nparams);
  LLVMValueRef str = LLVMBuildGlobalStringPtr(cg->b, msg, "msg");
  LLVMTypeRef aty = LLVMFunctionType(cg->t_void, &cg->t_ptr, 1, 0);
  LLVMValueRef afp = LLVMBuildLoad2(cg->b, cg->t_ptr, cg->g_assert_fail, "");
  LLVMBasicBlockRef call = LLVMAppendBasicBlockInContext(cg->ctx, fn, "call");
  LLVMBasicBlockRef ret = LLVMAppendBasicBlockInContext(cg->ctx, fn, "ret");
  LLVMBuildCondBr(cg->b, LLVMBuildIsNotNull(cg->b, afp, ""), call, ret);
  LLVMPositionBuilderAtEnd(cg->b, call);
  LLVMBuildCall2(cg->b, aty, afp, &str, 1, "");
  LLVMBuildBr(cg->b, ret);
  LLVMPositionBuilderAtEnd(cg->b, ret);
  LLVMBuildRet(cg->b, LLVMConstInt(cg->t_i32, (unsigned long long)-1, 1));

  LLVMPositionBuilderAtEnd(cg->b, ok);
  int n = f->nparams;
  LLVMValueRef *vals = calloc((size_t)(n ? n : 1), sizeof *vals);
  if (!vals) {
    lc_fail(cg, TVM_ERR_NOMEM, "out of memory");
    return;
  }
  for (int i = 0; i < n; i++) {
    tvm_dtype t = f->params[i]->dtype;
    LLVMValueRef off = LLVMConstInt(cg->t_i64, (unsigned long long)i * 16 + 8, 0);
    LLVMValueRef p = LLVMBuildGEP2(cg->b, cg->t_i8, args, &off, 1, "");
    LLVMValueRef v;
    if (tvm_dtype_is_handle(t)) {
      v = LLVMBuildLoad2(cg->b, cg->t_ptr, p, f->params[i]->u.var.name);
      LLVMSetAlignment(v, 8);
    } else if (tvm_dtype_is_float(t)) {
      v = LLVMBuildLoad2(cg->b, cg->t_f64, p, "");
      LLVMSetAlignment(v, 8);
      if (t.bits != 64) v = LLVMBuildFPTrunc(cg->b, v, lc_type(cg, t), "");
    } else {
      v = LLVMBuildLoad2(cg->b, cg->t_i64, p, "");
      LLVMSetAlignment(v, 8);
      if (tvm_dtype_is_bool(t))
        v = LLVMBuildICmp(cg->b, LLVMIntNE, v, LLVMConstInt(cg->t_i64, 0, 0),
                          "");
      else if (t.bits != 64)
        v = LLVMBuildTrunc(cg->b, v, lc_type(cg, t), "");
    }
    vals[i] = v;
  }
  LLVMValueRef rc = LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(body), body,
                                   vals, (unsigned)n, "rc");
  free(vals);
  LLVMBuildRet(cg->b, rc);
}

/* Compiles one tvm function into cg->mod. */
static void emit_func(lc_cg *cg, const tvm_func *f) {
  cg->fname = f->name;
  if (f->kind != TVM_FUNC_HOST) {
    lc_fail(cg, TVM_ERR_UNSUPPORTED,
            "is a device kernel; llvm-cpu has no thread axes (lower with "
            "has_threads = 0 from this target's info)");
    return;
  }
  for (int i = 0; i < f->nparams; i++)
    if (!f->params[i] || f->params[i]->kind != TVM_VAR) {
      lc_fail(cg, TVM_ERR_INVALID, "parameter %d is not a variable", i);
      return;
    }
  tvm_ptrmap_free(&cg->vars);
  tvm_ptrmap_free(&cg->nonneg);
  tvm_ptrmap_free(&cg->align);
  cg->heap.len = 0;
  cg->parallel_depth = 0;
  LLVMValueRef body = emit_body(cg, f);
  if (!body || cg->status != TVM_OK) return;
  emit_entry(cg, f, body);
}

/* Runs the new pass manager's default<On> pipeline on the module. */
static int32_t optimize(lc_cg *cg, LLVMTargetMachineRef tm, int level) {
  char pipeline[32];
  snprintf(pipeline, sizeof pipeline, "default<O%d>", level);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(po, level >= 2);
  LLVMPassBuilderOptionsSetSLPVectorization(po, level >= 2);
  LLVMPassBuilderOptionsSetLoopUnrolling(po, level >= 2);
  LLVMPassBuilderOptionsSetLoopInterleaving(po, level >= 2);
  LLVMErrorRef err = LLVMRunPasses(cg->mod, pipeline, tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (err) {
    char *m = LLVMGetErrorMessage(err);
    lc_report(TVM_ERR_INTERNAL, "llvm-cpu: LLVM pass pipeline failed: %s", m);
    LLVMDisposeErrorMessage(m);
    return TVM_ERR_INTERNAL;
  }
  return TVM_OK;
}

/* Emits the optimized module as bytes of the requested format. */
static int32_t emit_blob(lc_cg *cg, LLVMTargetMachineRef tm,
                         const tvm_plugin_target *t, tvm_plugin_blob *out) {
  char *err = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, cg->mod, LLVMObjectFile, &err,
                                          &buf)) {
    lc_report(TVM_ERR_INTERNAL, "llvm-cpu: object emission failed: %s",
              err ? err : "?");
    LLVMDisposeMessage(err);
    return TVM_ERR_INTERNAL;
  }
  const uint8_t *obj = (const uint8_t *)LLVMGetBufferStart(buf);
  uint64_t size = LLVMGetBufferSize(buf);
  uint8_t *so = NULL;
  uint64_t so_size = 0;
  if (t->output_shared) {
    int32_t st = lc_link_shared(obj, size, &so, &so_size);
    if (st != TVM_OK) {
      LLVMDisposeMemoryBuffer(buf);
      return st;
    }
    obj = so;
    size = so_size;
  }
  int32_t st = tvm_sdk_blob_set_data(
      lc_host(), out,
      t->output_shared ? TVM_BLOB_SHARED_OBJECT : TVM_BLOB_ELF_OBJECT, obj,
      size);
  free(so);
  LLVMDisposeMemoryBuffer(buf);
  return st;
}

/* Dumps the module's IR to $TVM_LLVM_DUMP.<first function><suffix>
 * when that variable is set (a debugging aid). */
static void maybe_dump(lc_cg *cg, const tvm_module *m, const char *suffix) {
  const char *path = getenv("TVM_LLVM_DUMP");
  if (!path || !path[0]) return;
  char name[1024];
  snprintf(name, sizeof name, "%s.%s%s", path,
           m->nfuncs ? m->funcs[0]->name : "empty", suffix);
  char *err = NULL;
  if (LLVMPrintModuleToFile(cg->mod, name, &err)) LLVMDisposeMessage(err);
}

/* The codegen slot: module of lowered host functions -> ELF object (or
 * shared object) with one kernel per function. */
int32_t lc_codegen(tvm_plugin_target *t, const tvm_module *m,
                   tvm_plugin_blob *out) {
  if (!t || !m || !out)
    return lc_report(TVM_ERR_INVALID, "llvm-cpu: codegen: NULL argument");
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  LLVMTargetMachineRef tm = lc_target_machine(t);
  if (!tm) return TVM_ERR_INVALID;

  lc_cg cg;
  memset(&cg, 0, sizeof cg);
  cg.target = t;
  cg.ctx = LLVMContextCreate();
  cg.mod = LLVMModuleCreateWithNameInContext("tvm", cg.ctx);
  cg.b = LLVMCreateBuilderInContext(cg.ctx);
  LLVMSetTarget(cg.mod, t->triple);
  cg.td = LLVMCreateTargetDataLayout(tm);
  char *dl = LLVMCopyStringRepOfTargetData(cg.td);
  LLVMSetDataLayout(cg.mod, dl);
  LLVMDisposeMessage(dl);
  cg.t_i1 = LLVMInt1TypeInContext(cg.ctx);
  cg.t_i8 = LLVMInt8TypeInContext(cg.ctx);
  cg.t_i32 = LLVMInt32TypeInContext(cg.ctx);
  cg.t_i64 = LLVMInt64TypeInContext(cg.ctx);
  cg.t_ptr = LLVMPointerTypeInContext(cg.ctx, 0);
  cg.t_f32 = LLVMFloatTypeInContext(cg.ctx);
  cg.t_f64 = LLVMDoubleTypeInContext(cg.ctx);
  cg.t_void = LLVMVoidTypeInContext(cg.ctx);
  cg.status = TVM_OK;
  lc_define_globals(&cg);

  for (int i = 0; i < m->nfuncs && cg.status == TVM_OK; i++) {
    for (int j = 0; j < i; j++)
      if (strcmp(m->funcs[i]->name, m->funcs[j]->name) == 0)
        lc_fail(&cg, TVM_ERR_INVALID,
                "two functions share this name; give each a unique name");
    if (cg.status == TVM_OK) emit_func(&cg, m->funcs[i]);
  }
  int32_t st = cg.status;
  if (st == TVM_OK) {
    maybe_dump(&cg, m, ".raw.ll");
    char *msg = NULL;
    if (LLVMVerifyModule(cg.mod, LLVMReturnStatusAction, &msg)) {
      st = lc_report(TVM_ERR_INTERNAL,
                     "llvm-cpu: generated LLVM IR is invalid (a bug in the "
                     "plugin): %.700s", msg ? msg : "?");
    }
    LLVMDisposeMessage(msg);
  }
  if (st == TVM_OK) st = optimize(&cg, tm, t->opt_level);
  if (st == TVM_OK) {
    maybe_dump(&cg, m, ".opt.ll");
    st = emit_blob(&cg, tm, t, out);
  }
  if (st == TVM_OK) st = tvm_sdk_blob_kernels_of_module(lc_host(), out, m);
  if (st != TVM_OK) tvm_sdk_blob_clear(lc_host(), out);

  tvm_ptrmap_free(&cg.vars);
  tvm_ptrmap_free(&cg.nonneg);
  tvm_ptrmap_free(&cg.align);
  tvm_ptrvec_free(&cg.heap);
  LLVMDisposeBuilder(cg.b);
  LLVMDisposeModule(cg.mod);
  LLVMDisposeTargetData(cg.td);
  LLVMContextDispose(cg.ctx);
  LLVMDisposeTargetMachine(tm);
  return st;
}
