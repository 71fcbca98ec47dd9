/*
 * jit.c - loading device modules: ELF objects through an ORC LLJIT
 * instance per module (process symbols such as libm resolve through a
 * dynamic-library search generator), shared objects through dlopen of a
 * temporary file.  Either way the module globals __tvm_parallel_for,
 * __tvm_parallel_ctx (the device, whose pool the loops use),
 * __tvm_num_threads and __tvm_assert_fail are filled in.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>

#include "llvm_cpu.h"

/* Reports an LLVM error (consuming it). */
static int32_t report_err(LLVMErrorRef err, const char *what) {
  char *m = LLVMGetErrorMessage(err);
  lc_report(TVM_ERR_INVALID, "llvm-cpu: %s: %s", what, m);
  LLVMDisposeErrorMessage(m);
  return TVM_ERR_INVALID;
}

/* Looks name up in the module (JIT or shared object); NULL if absent.
 * The first JIT lookup links the object: when that fails (an undefined
 * extern function, say), *why receives LLVM's message (free with
 * LLVMDisposeErrorMessage) if why is not NULL. */
static void *lookup(tvm_plugin_module *m, const char *name, char **why) {
  if (why) *why = NULL;
  if (m->dl) return dlsym(m->dl, name);
  LLVMOrcExecutorAddress addr = 0;
  LLVMErrorRef err = LLVMOrcLLJITLookup((LLVMOrcLLJITRef)m->jit, &addr, name);
  if (err) {
    if (why)
      *why = LLVMGetErrorMessage(err);
    else
      LLVMConsumeError(err);
    return NULL;
  }
  return (void *)(uintptr_t)addr;
}

/* ExecutionSession error reporter: keeps the first message (e.g. "Symbols
 * not found: [ foo ]") for module_load to report. */
static void keep_error(void *ctx, LLVMErrorRef err) {
  tvm_plugin_module *m = ctx;
  char *msg = LLVMGetErrorMessage(err);
  if (!m->link_err[0]) snprintf(m->link_err, sizeof m->link_err, "%s", msg);
  LLVMDisposeErrorMessage(msg);
}

/* Links the object into a fresh LLJIT instance. */
static int32_t load_object(tvm_plugin_module *m, const tvm_plugin_blob *blob) {
  lc_llvm_init();
  LLVMOrcLLJITRef jit = NULL;
  LLVMErrorRef err = LLVMOrcCreateLLJIT(&jit, NULL);
  if (err) return report_err(err, "cannot create an LLJIT instance");
  m->jit = jit;
  LLVMOrcExecutionSessionSetErrorReporter(LLVMOrcLLJITGetExecutionSession(jit),
                                          keep_error, m);
  lc_math_library_global();
  LLVMOrcDefinitionGeneratorRef gen = NULL;
  err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
  if (err) return report_err(err, "cannot search the process's symbols");
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit);
  LLVMOrcJITDylibAddGenerator(jd, gen);
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      (const char *)blob->data, (size_t)blob->size, "tvm-llvm-cpu-object");
  err = LLVMOrcLLJITAddObjectFile(jit, jd, buf);
  if (err) return report_err(err, "cannot add the object to the JIT");
  return TVM_OK;
}

/* Writes the shared object to a temporary file and dlopens it. */
static int32_t load_shared(tvm_plugin_module *m, const tvm_plugin_blob *blob) {
  char *path = NULL;
  int32_t st = lc_write_temp(blob->data, blob->size, ".so", &path);
  if (st != TVM_OK) return st;
  m->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!m->dl) {
    const char *e = dlerror();
    lc_report(TVM_ERR_INVALID, "llvm-cpu: dlopen of the shared object failed: %s",
              e ? e : "?");
    st = TVM_ERR_INVALID;
  }
  unlink(path); /* the mapping stays valid */
  free(path);
  return st;
}

/* module_load: ELF object or shared object -> callable functions. */
int32_t lc_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                       tvm_plugin_module **out) {
  *out = NULL;
  if (!blob || !blob->data)
    return lc_report(TVM_ERR_INVALID, "llvm-cpu: module_load of an empty blob");
  if (blob->format != TVM_BLOB_ELF_OBJECT &&
      blob->format != TVM_BLOB_SHARED_OBJECT)
    return lc_report(TVM_ERR_UNSUPPORTED,
                     "llvm-cpu: cannot load blob format %u (ELF object or "
                     "shared object only)", blob->format);
  tvm_plugin_module *m = calloc(1, sizeof *m);
  if (!m) return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  int32_t st = blob->format == TVM_BLOB_ELF_OBJECT ? load_object(m, blob)
                                                   : load_shared(m, blob);
  if (st != TVM_OK) goto fail;
  char *why = NULL;
  void **pf = lookup(m, LC_SYM_PARALLEL_FOR, &why);
  if (!pf && why) {
    st = lc_report(TVM_ERR_INVALID,
                   "llvm-cpu: linking the module failed: %s (is every extern "
                   "function the code calls defined in this process?)",
                   m->link_err[0] ? m->link_err : why);
    LLVMDisposeErrorMessage(why);
    goto fail;
  }
  int32_t *nt = lookup(m, LC_SYM_NUM_THREADS, NULL);
  void **af = lookup(m, LC_SYM_ASSERT_FAIL, NULL);
  if (!pf || !nt || !af) {
    st = lc_report(TVM_ERR_INVALID,
                   "llvm-cpu: the module lacks %s/%s/%s: not made by "
                   "llvm-cpu's codegen", LC_SYM_PARALLEL_FOR,
                   LC_SYM_NUM_THREADS, LC_SYM_ASSERT_FAIL);
    goto fail;
  }
  void **ctx = lookup(m, LC_SYM_PARALLEL_CTX, NULL);
  if (ctx) { /* loops call back with their device: its pool */
    *pf = (void *)lc_parallel_trampoline;
    *ctx = d;
  } else { /* compiled before __tvm_parallel_ctx: the default pool */
    *pf = (void *)lc_parallel_trampoline_v1;
  }
  *nt = d && d->num_threads > 0 ? d->num_threads : lc_num_cores();
  *af = (void *)lc_assert_trampoline;
  m->funcs = calloc(blob->nkernels ? blob->nkernels : 1, sizeof *m->funcs);
  if (!m->funcs) {
    st = lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
    goto fail;
  }
  for (uint32_t i = 0; i < blob->nkernels; i++) {
    const char *name = blob->kernels[i].name;
    void *fn = lookup(m, name, NULL);
    if (!fn) {
      st = lc_report(TVM_ERR_NOT_FOUND,
                     "llvm-cpu: kernel '%s' is not defined in the module", name);
      goto fail;
    }
    m->funcs[i].name = strdup(name);
    m->funcs[i].fn = (lc_entry_fn)fn;
    m->nfuncs = i + 1;
    if (!m->funcs[i].name) {
      st = lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
      goto fail;
    }
  }
  *out = m;
  return TVM_OK;
fail:
  lc_module_unload(m);
  return st;
}

/* Releases the JIT instance or the shared object and the function table. */
void lc_module_unload(tvm_plugin_module *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->nfuncs; i++) free(m->funcs[i].name);
  free(m->funcs);
  if (m->jit) {
    LLVMErrorRef err = LLVMOrcDisposeLLJIT((LLVMOrcLLJITRef)m->jit);
    if (err) LLVMConsumeError(err);
  }
  if (m->dl) dlclose(m->dl);
  free(m);
}
