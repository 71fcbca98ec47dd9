/*
 * codegen.c - module-level code generation: a tvm_module of host
 * functions becomes one LLVM module (one exported entry point per
 * function), optimized by the O3 pipeline and emitted as an ELF object,
 * or linked into a shared object when the target says output: shared.
 *
 * Each call owns fresh LLVMContexts, so codegen is reentrant across
 * targets and threads.
 *
 * A module is compiled in parts, in parallel: each function alone in a
 * part, plus part 0 holding only the module globals the loader fills in
 * (the function parts declare them).  Each part is built, optimized and
 * emitted as an ELF object in its own context on the host's default
 * thread pool (host->parallel_for, heaviest part first by the count of
 * its loop IR statements), and the parts' objects are joined, in part
 * order, into one relocatable object (elf_merge.c), the blob.  A function
 * is compiled under one fixed name, LC_KERNEL_NAME (its IR names no
 * function of the module), and the join gives its symbols their names
 * back; so a function's object depends on its loop IR and the target
 * alone, never on its name, its module or the number of threads: the same
 * kernel built by the tuner and by a compile is the same bytes, and the
 * SDK's compiled-code cache, keyed by a part's IR, serves both.
 * Everything LLVM does, the pass pipeline and instruction selection and
 * emission alike, runs in parallel.  (Linking the parts' bitcode into one
 * module and emitting that, as this did before, left emission, about a
 * third of LLVM's time, on one thread.)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "elf_merge.h"
#include "llvm_cpu.h"

/* Reports a failure of cg's build: into cg->msg when the build runs on a
 * pool thread (the host's diagnostic is per thread; the caller reports
 * it on its own), else to the host. */
static void cg_report(lc_cg *cg, int32_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void cg_report(lc_cg *cg, int32_t st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (cg->msg) {
    if (!cg->msg[0]) vsnprintf(cg->msg, LC_CG_MSG, fmt, ap);
  } else {
    char m[1200];
    vsnprintf(m, sizeof m, fmt, ap);
    lc_report(st, "%s", m);
  }
  va_end(ap);
}

/* Records the first failure of a codegen call with the function's name. */
void *lc_fail(lc_cg *cg, int32_t st, const char *fmt, ...) {
  if (cg->status != TVM_OK) return NULL;
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cg->status = st;
  cg_report(cg, st, "llvm-cpu: codegen of '%s': %s",
            cg->fname ? cg->fname : "?", msg);
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
  snprintf(nm, sizeof nm, "%s.body", cg->irname);
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
    if (tvm_dtype_is_handle(f->params[i]->dtype)) {
      LLVMAddAttributeAtIndex(fn, (unsigned)i + 1,
                              LLVMCreateEnumAttribute(cg->ctx, noalias, 0));
      tvm_ptrmap_put(&cg->params, f->params[i], (void *)1);
    }
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
  LLVMValueRef fn = LLVMAddFunction(cg->mod, cg->irname, fty);
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
  snprintf(msg, sizeof msg, "the kernel takes %d arguments", f->nparams);
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
  cg->irname = LC_KERNEL_NAME;
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
  tvm_ptrmap_free(&cg->stack_n);
  tvm_ptrmap_free(&cg->allocated);
  tvm_ptrmap_free(&cg->params);
  tvm_ptrmap_free(&cg->ranges.map);
  cg->heap.len = 0;
  cg->parallel_depth = 0;
  LLVMValueRef body = emit_body(cg, f);
  if (!body || cg->status != TVM_OK) return;
  emit_entry(cg, f, body);
}

/* Runs the new pass manager's default<On> pipeline on the module, with
 * LLVM's loop unrolling limited to the loops codegen marked (full
 * unrolling asked for by metadata: the schedule's unrolled loops and
 * small inner ones, see codegen_stmt.c). */
static int32_t optimize(lc_cg *cg, LLVMTargetMachineRef tm, int level) {
  char pipeline[32];
  snprintf(pipeline, sizeof pipeline, "default<O%d>", level);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(po, level >= 2);
  LLVMPassBuilderOptionsSetSLPVectorization(po, level >= 2);
  LLVMPassBuilderOptionsSetLoopUnrolling(po, 0);
  LLVMPassBuilderOptionsSetLoopInterleaving(po, level >= 2);
  LLVMErrorRef err = LLVMRunPasses(cg->mod, pipeline, tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (err) {
    char *m = LLVMGetErrorMessage(err);
    cg_report(cg, TVM_ERR_INTERNAL, "llvm-cpu: LLVM pass pipeline failed: %s",
              m);
    LLVMDisposeErrorMessage(m);
    return TVM_ERR_INTERNAL;
  }
  return TVM_OK;
}

/* Makes the blob of the requested format from the module's object. */
static int32_t emit_blob(const uint8_t *obj, uint64_t size,
                         const tvm_plugin_target *t, tvm_plugin_blob *out) {
  uint8_t *so = NULL;
  uint64_t so_size = 0;
  if (t->output_shared) {
    int32_t st = lc_link_shared(obj, size, &so, &so_size);
    if (st != TVM_OK) return st;
    obj = so;
    size = so_size;
  }
  int32_t st = tvm_sdk_blob_set_data(
      lc_host(), out,
      t->output_shared ? TVM_BLOB_SHARED_OBJECT : TVM_BLOB_ELF_OBJECT, obj,
      size);
  free(so);
  return st;
}

/* Dumps a part's IR to $TVM_LLVM_DUMP.<name><suffix> when that variable
 * is set (a debugging aid: name is the part's function, or "globals"). */
static void maybe_dump(LLVMModuleRef mod, const char *name,
                       const char *suffix) {
  const char *path = getenv("TVM_LLVM_DUMP");
  if (!path || !path[0]) return;
  char file[1024];
  snprintf(file, sizeof file, "%s.%s%s", path, name, suffix);
  char *err = NULL;
  if (LLVMPrintModuleToFile(mod, file, &err)) LLVMDisposeMessage(err);
}

/* ---- one part: a context, its functions, built, optimized, emitted ------- */

/* Counts statements (the size estimate of a function). */
static int count_stmt(tvm_visitor *v, const tvm_stmt *st) {
  (void)st;
  (*(int64_t *)v->data)++;
  return 0;
}

/* A part of the module compiled in one context: one function (func >= 0)
 * or the module globals (func -1). */
typedef struct lc_part {
  const tvm_plugin_target *t;
  const tvm_module *m;
  int func;                /* index into m->funcs, or -1 */
  int64_t weight;          /* statements of its function */
  int hit;                 /* obj came from the compiled-code cache */
  double opt_s, emit_s;    /* time in LLVM's optimizer and its backend */
  LLVMMemoryBufferRef obj; /* the part as an ELF object */
  int32_t status;
  char msg[LC_CG_MSG];
} lc_part;

/* Sets up cg in a fresh context (module "tvm", the target's triple and
 * data layout, the common types and the module globals: defined when
 * define_globals, else declared). */
static void cg_open(lc_cg *cg, const tvm_plugin_target *t,
                    LLVMTargetMachineRef tm, int define_globals) {
  memset(cg, 0, sizeof *cg);
  cg->target = t;
  cg->ctx = LLVMContextCreate();
  cg->mod = LLVMModuleCreateWithNameInContext("tvm", cg->ctx);
  cg->b = LLVMCreateBuilderInContext(cg->ctx);
  LLVMSetTarget(cg->mod, t->triple);
  cg->td = LLVMCreateTargetDataLayout(tm);
  char *dl = LLVMCopyStringRepOfTargetData(cg->td);
  LLVMSetDataLayout(cg->mod, dl);
  LLVMDisposeMessage(dl);
  cg->t_i1 = LLVMInt1TypeInContext(cg->ctx);
  cg->t_i8 = LLVMInt8TypeInContext(cg->ctx);
  cg->t_i32 = LLVMInt32TypeInContext(cg->ctx);
  cg->t_i64 = LLVMInt64TypeInContext(cg->ctx);
  cg->t_ptr = LLVMPointerTypeInContext(cg->ctx, 0);
  cg->t_f32 = LLVMFloatTypeInContext(cg->ctx);
  cg->t_f64 = LLVMDoubleTypeInContext(cg->ctx);
  cg->t_void = LLVMVoidTypeInContext(cg->ctx);
  cg->status = TVM_OK;
  lc_define_globals(cg, define_globals);
}

/* Frees what cg_open made. */
static void cg_close(lc_cg *cg) {
  tvm_ptrmap_free(&cg->vars);
  tvm_ptrmap_free(&cg->nonneg);
  tvm_ptrmap_free(&cg->align);
  tvm_ptrmap_free(&cg->stack_n);
  tvm_ptrmap_free(&cg->allocated);
  tvm_ptrmap_free(&cg->params);
  tvm_ptrmap_free(&cg->ranges.map);
  tvm_ptrvec_free(&cg->heap);
  LLVMDisposeBuilder(cg->b);
  LLVMDisposeModule(cg->mod);
  LLVMContextDispose(cg->ctx);
  LLVMDisposeTargetData(cg->td);
}

/* Emits the function of part p (none for the globals part) into cg->mod
 * and verifies it. */
static int32_t cg_build(lc_cg *cg, const lc_part *p, const char *name) {
  if (p->func >= 0) emit_func(cg, p->m->funcs[p->func]);
  int32_t st = cg->status;
  if (st == TVM_OK) {
    maybe_dump(cg->mod, name, ".raw.ll");
    char *msg = NULL;
    if (LLVMVerifyModule(cg->mod, LLVMReturnStatusAction, &msg)) {
      st = TVM_ERR_INTERNAL;
      cg_report(cg, st,
                "llvm-cpu: generated LLVM IR is invalid (a bug in the "
                "plugin): %.700s", msg ? msg : "?");
    }
    LLVMDisposeMessage(msg);
  }
  return st;
}

/* The compiled-code cache's key of a part (tvm/plugin_sdk.h): its
 * unoptimized IR (as bitcode: printing the module as text took 40% of
 * a warm compile's codegen phase, writing bitcode does the same job at a
 * fraction of that), the target machine's settings, and the files of this
 * plugin and of the LLVM library it runs (a rebuilt plugin, whose
 * pipeline options in optimize() may have changed, or an upgraded LLVM
 * keys apart; LC_CACHE_FORMAT names what an entry holds).  Returns 0 when
 * the cache is off, or on while $TVM_LLVM_DUMP asks for the IR a compile
 * sees. */
#define LC_CACHE_FORMAT "tvm-c llvm-cpu part 3"
static int part_key(const lc_cg *cg, const tvm_plugin_target *t,
                    tvm_sdk_cache_key *k) {
  const char *dump = getenv("TVM_LLVM_DUMP");
  if ((dump && dump[0]) || !tvm_sdk_cache_enabled("llvm-cpu")) return 0;
  tvm_sdk_cache_key_init(k);
  tvm_sdk_cache_key_add_str(k, LC_CACHE_FORMAT);
  if (!tvm_sdk_cache_key_add_object(k, (const void *)lc_codegen) ||
      !tvm_sdk_cache_key_add_object(k, (const void *)LLVMRunPasses))
    return 0;
  tvm_sdk_cache_key_add_str(k, t->triple);
  tvm_sdk_cache_key_add_str(k, t->mcpu);
  tvm_sdk_cache_key_add_str(k, t->mattr);
  int32_t level = t->opt_level;
  tvm_sdk_cache_key_add(k, &level, sizeof level);
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(cg->mod);
  if (!bc) return 0;
  tvm_sdk_cache_key_add(k, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc));
  LLVMDisposeMemoryBuffer(bc);
  return 1;
}

/* The parts of a module and the order the pool takes them in. */
typedef struct lc_parts {
  lc_part *part;
  int *order; /* task i builds part[order[i]] */
} lc_parts;

/* Pool task: builds a part and emits it as an object, or reads the
 * object of the same IR from the compiled-code cache. */
static int32_t part_task(int64_t i, int64_t n, void *data) {
  (void)n;
  lc_parts *ps = data;
  lc_part *p = &ps->part[ps->order[i]];
  LLVMTargetMachineRef tm = lc_target_machine(p->t);
  if (!tm) {
    p->status = TVM_ERR_INVALID;
    snprintf(p->msg, sizeof p->msg,
             "llvm-cpu: LLVM rejected the target machine for '%s'",
             p->t->triple);
    return 0;
  }
  lc_cg cg;
  tvm_sdk_cache_key key;
  int cached = 0;
  const char *name = p->func >= 0 ? p->m->funcs[p->func]->name : "globals";
  cg_open(&cg, p->t, tm, p->func < 0);
  cg.msg = p->msg;
  p->status = cg_build(&cg, p, name);
  if (p->status == TVM_OK && (cached = part_key(&cg, p->t, &key))) {
    uint8_t *obj;
    uint64_t size;
    if (tvm_sdk_cache_get("llvm-cpu", &key, &obj, &size)) {
      p->obj = LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)obj,
                                                         size, "part");
      free(obj);
      p->hit = p->obj != NULL;
    }
  }
  double t0 = tvm_now_s();
  if (p->status == TVM_OK && !p->hit)
    p->status = optimize(&cg, tm, cg.target->opt_level);
  double t1 = tvm_now_s();
  p->opt_s = t1 - t0;
  if (p->status == TVM_OK && !p->hit) {
    char *err = NULL;
    maybe_dump(cg.mod, name, ".opt.ll");
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, cg.mod, LLVMObjectFile, &err,
                                            &p->obj)) {
      p->status = TVM_ERR_INTERNAL;
      snprintf(p->msg, sizeof p->msg, "llvm-cpu: object emission failed: %s",
               err ? err : "?");
      p->obj = NULL;
    } else if (cached) {
      tvm_sdk_cache_put("llvm-cpu", &key, LLVMGetBufferStart(p->obj),
                        LLVMGetBufferSize(p->obj));
    }
    LLVMDisposeMessage(err);
  }
  p->emit_s = tvm_now_s() - t1;
  cg_close(&cg);
  LLVMDisposeTargetMachine(tm);
  return 0; /* failures stay in the part: every part runs */
}

/* Builds m as its globals part and one part per function on the host's
 * pool (heaviest first) and joins their objects, in part order, with the
 * functions' names given back: *obj (malloc'd) of *size bytes. */
static int32_t build_parts(const tvm_plugin_target *t, const tvm_module *m,
                           uint8_t **obj, uint64_t *size) {
  int nparts = m->nfuncs + 1;
  lc_parts ps = {calloc((size_t)nparts, sizeof *ps.part),
                 malloc((size_t)nparts * sizeof *ps.order)};
  const uint8_t **objs = calloc((size_t)nparts, sizeof *objs);
  uint64_t *sizes = calloc((size_t)nparts, sizeof *sizes);
  const char **names = calloc((size_t)nparts, sizeof *names);
  int32_t st = ps.part && ps.order && objs && sizes && names
                   ? TVM_OK
                   : lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  for (int q = 0; st == TVM_OK && q < nparts; q++) {
    lc_part *p = &ps.part[q];
    *p = (lc_part){.t = t, .m = m, .func = q - 1};
    if (q > 0) {
      tvm_visitor v = {NULL, count_stmt, &p->weight};
      tvm_visit_stmt(&v, m->funcs[q - 1]->body);
      names[q] = m->funcs[q - 1]->name;
    }
    /* by weight, descending; ties in part order */
    int j = q;
    for (; j > 0 && ps.part[ps.order[j - 1]].weight < p->weight; j--)
      ps.order[j] = ps.order[j - 1];
    ps.order[j] = q;
  }
  if (st == TVM_OK) {
    const tvm_host_api *h = lc_host();
    if (h && h->parallel_for && m->nfuncs > 1) /* else one part's work */
      h->parallel_for(part_task, &ps, nparts);
    else
      for (int q = 0; q < nparts; q++) part_task(q, nparts, &ps);
    for (int q = 0; q < nparts && st == TVM_OK; q++)
      if (ps.part[q].status != TVM_OK)
        st = lc_report(ps.part[q].status, "%s",
                       ps.part[q].msg[0] ? ps.part[q].msg
                                         : "llvm-cpu: codegen of a part failed");
  }
  int hits = 0;
  for (int q = 0; st == TVM_OK && q < nparts; q++) {
    hits += ps.part[q].hit;
    tvm_sdk_log(lc_host(), TVM_LOG_DEBUG,
                "llvm-cpu: part %s (%lld statements): optimize %.3f s, "
                "emit %.3f s%s", q ? names[q] : "globals",
                (long long)ps.part[q].weight, ps.part[q].opt_s,
                ps.part[q].emit_s, ps.part[q].hit ? " (cached)" : "");
    objs[q] = (const uint8_t *)LLVMGetBufferStart(ps.part[q].obj);
    sizes[q] = LLVMGetBufferSize(ps.part[q].obj);
  }
  if (st == TVM_OK && hits)
    tvm_sdk_log(lc_host(), TVM_LOG_DEBUG,
                "llvm-cpu: %d of %d part(s) of '%s' from the compiled-code "
                "cache", hits, nparts, m->nfuncs ? m->funcs[0]->name : "");
  if (st == TVM_OK)
    st = lc_elf_merge(objs, sizes, nparts, LC_KERNEL_NAME, names, obj, size);
  for (int q = 0; ps.part && q < nparts; q++)
    if (ps.part[q].obj) LLVMDisposeMemoryBuffer(ps.part[q].obj);
  free(ps.part);
  free(ps.order);
  free(objs);
  free(sizes);
  free(names);
  return st;
}

/* The codegen slot: module of lowered host functions -> ELF object (or
 * shared object) with one kernel per function. */
int32_t lc_codegen(tvm_plugin_target *t, const tvm_module *m,
                   tvm_plugin_blob *out) {
  if (!t || !m || !out)
    return lc_report(TVM_ERR_INVALID, "llvm-cpu: codegen: NULL argument");
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  for (int i = 0; i < m->nfuncs; i++)
    for (int j = 0; j < i; j++)
      if (strcmp(m->funcs[i]->name, m->funcs[j]->name) == 0)
        return lc_report(TVM_ERR_INVALID,
                         "llvm-cpu: codegen of '%s': two functions share this "
                         "name; give each a unique name", m->funcs[i]->name);
  uint8_t *obj = NULL;
  uint64_t size = 0;
  int32_t st = build_parts(t, m, &obj, &size);
  if (st == TVM_OK) st = emit_blob(obj, size, t, out);
  free(obj);
  if (st == TVM_OK) st = tvm_sdk_blob_kernels_of_module(lc_host(), out, m);
  if (st != TVM_OK) tvm_sdk_blob_clear(lc_host(), out);
  return st;
}
