/*
 * module.c - loading device modules: relocatable ELF objects through the
 * plugin's own loader (elf_load.c: validated, relocated, W^X, external
 * symbols from an allow-list; LLVM is not involved, so no damaged object
 * can reach an LLVM fatal error), shared objects through dlopen of a
 * temporary file once lc_check_elf (elf_check_shared.c) has validated
 * everything dlopen acts on and found nothing that runs at load.  Either way the module globals
 * __tvm_parallel_for, __tvm_parallel_ctx (the device, whose pool the loops
 * use), __tvm_num_threads and __tvm_assert_fail are filled in.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_load.h"
#include "llvm_cpu.h"

/* Looks the function name up in the module (loaded image: only in its
 * code pages; shared object); NULL if absent. */
static void *lookup_code(tvm_plugin_module *m, const char *name) {
  if (m->dl) return dlsym(m->dl, name);
  return lc_image_code(m->image, name);
}

/* Looks the module global name of `bytes` bytes up (loaded image: only in
 * its writable data, so that filling it in cannot fault); NULL if absent.
 * *misplaced is set to name when the image defines it somewhere else. */
static void *lookup_data(tvm_plugin_module *m, const char *name,
                         uint64_t bytes, const char **misplaced) {
  if (m->dl) return dlsym(m->dl, name);
  void *p = lc_image_data(m->image, name, bytes);
  if (!p && lc_image_symbol(m->image, name)) *misplaced = name;
  return p;
}

/* Loads the relocatable object with elf_load.c.  libm is promoted to the
 * global scope first so that its functions resolve through dlsym even in
 * a host program that does not link it. */
static int32_t load_object(tvm_plugin_module *m, const tvm_plugin_blob *blob) {
  lc_math_library_global();
  return lc_image_load(blob->data, blob->size, &m->image);
}

/* Writes the shared object to a temporary file and dlopens it.  It
 * needs no library (link.c links it with -nostdlib): its libm calls bind
 * to libm, promoted to the global scope first, and its other externs to
 * the host program, all on the allow-list lc_check_elf enforced. */
static int32_t load_shared(tvm_plugin_module *m, const tvm_plugin_blob *blob) {
  lc_math_library_global();
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
  if (blob->format == TVM_BLOB_SHARED_OBJECT) {
    int32_t cst = lc_check_elf(blob->data, blob->size, 1);
    if (cst != TVM_OK) return cst;
  }
  tvm_plugin_module *m = calloc(1, sizeof *m);
  if (!m) return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  int32_t st = blob->format == TVM_BLOB_ELF_OBJECT ? load_object(m, blob)
                                                   : load_shared(m, blob);
  if (st != TVM_OK) goto fail;
  const char *bad = NULL;
  void **pf = lookup_data(m, LC_SYM_PARALLEL_FOR, sizeof(void *), &bad);
  int32_t *nt = lookup_data(m, LC_SYM_NUM_THREADS, sizeof(int32_t), &bad);
  void **af = lookup_data(m, LC_SYM_ASSERT_FAIL, sizeof(void *), &bad);
  void **ctx = lookup_data(m, LC_SYM_PARALLEL_CTX, sizeof(void *), &bad);
  if (bad) {
    st = lc_report(TVM_ERR_INVALID,
                   "llvm-cpu: the kernel object is malformed: its global "
                   "%s is not an aligned location in its writable data", bad);
    goto fail;
  }
  if (!pf || !nt || !af) {
    st = lc_report(TVM_ERR_INVALID,
                   "llvm-cpu: the module lacks %s/%s/%s: not made by "
                   "llvm-cpu's codegen", LC_SYM_PARALLEL_FOR,
                   LC_SYM_NUM_THREADS, LC_SYM_ASSERT_FAIL);
    goto fail;
  }
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
    void *fn = lookup_code(m, name);
    if (!fn && m->image && lc_image_symbol(m->image, name)) {
      st = lc_report(TVM_ERR_INVALID,
                     "llvm-cpu: the kernel object is malformed: kernel '%s' "
                     "is not in its code", name);
      goto fail;
    }
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

/* Releases the loaded image or the shared object and the function table. */
void lc_module_unload(tvm_plugin_module *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->nfuncs; i++) free(m->funcs[i].name);
  free(m->funcs);
  lc_image_free(m->image);
  if (m->dl) dlclose(m->dl);
  free(m);
}
