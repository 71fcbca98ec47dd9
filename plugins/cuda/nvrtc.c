/*
 * plugins/cuda/nvrtc.c - CUDA C to cubin and PTX with NVRTC, dlopen'd
 * (libnvrtc.so.13 from the system's search path, then the toolkit the
 * build was configured with), never linked.  Compiles for the real
 * architecture sm_<arch> with `ptxas -v` output in the log, from which
 * registers and spills per kernel are read.
 */
#include <dlfcn.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_plugin.h"

#ifndef TVM_CUDA_HOME
#define TVM_CUDA_HOME "/usr/local/cuda"
#endif

#define NVRTC_FNS(X)                                                        \
  X(nvrtcCreateProgram, (nvrtcProgram *, const char *, const char *, int,   \
                         const char *const *, const char *const *))         \
  X(nvrtcCompileProgram, (nvrtcProgram, int, const char *const *))          \
  X(nvrtcGetProgramLogSize, (nvrtcProgram, size_t *))                       \
  X(nvrtcGetProgramLog, (nvrtcProgram, char *))                             \
  X(nvrtcGetPTXSize, (nvrtcProgram, size_t *))                              \
  X(nvrtcGetPTX, (nvrtcProgram, char *))                                    \
  X(nvrtcGetCUBINSize, (nvrtcProgram, size_t *))                            \
  X(nvrtcGetCUBIN, (nvrtcProgram, char *))                                  \
  X(nvrtcDestroyProgram, (nvrtcProgram *))

static struct {
  void *lib;
#define FIELD(name, args) nvrtcResult(*name) args;
  NVRTC_FNS(FIELD)
#undef FIELD
  char why[512];
} nv;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

/* Opens libnvrtc once per process. */
static void nv_open(void) {
  static const char *const names[] = {
      "libnvrtc.so.13", TVM_CUDA_HOME "/lib64/libnvrtc.so.13",
      "libnvrtc.so.12", TVM_CUDA_HOME "/lib64/libnvrtc.so.12", NULL};
  for (int i = 0; names[i] && !nv.lib; i++)
    nv.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!nv.lib) {
    snprintf(nv.why, sizeof nv.why, "%s", dlerror());
    return;
  }
#define RESOLVE(name, args)                                                 \
  *(void **)&nv.name = dlsym(nv.lib, #name);                                \
  if (!nv.name) {                                                           \
    snprintf(nv.why, sizeof nv.why, "libnvrtc lacks %s", #name);            \
    dlclose(nv.lib);                                                        \
    nv.lib = NULL;                                                          \
    return;                                                                 \
  }
  NVRTC_FNS(RESOLVE)
#undef RESOLVE
}

void cuda_compiled_free(cuda_compiled *c) {
  free(c->ptx);
  free(c->cubin);
  free(c->log);
  memset(c, 0, sizeof *c);
}

/* Compiles src (see cuda_plugin.h). */
int32_t cuda_nvrtc_compile(const char *src, int64_t arch, cuda_compiled *out) {
  memset(out, 0, sizeof *out);
  pthread_once(&nv_once, nv_open);
  if (!nv.lib)
    return tvm_c_report(cuda_host(), TVM_ERR_UNAVAILABLE,
                        "cuda: NVRTC is not available (%s); install the CUDA "
                        "toolkit (libnvrtc.so.13) or add its lib64 to "
                        "LD_LIBRARY_PATH", nv.why);
  nvrtcProgram p;
  if (nv.nvrtcCreateProgram(&p, src, "tvm_kernels.cu", 0, NULL, NULL) !=
      NVRTC_SUCCESS)
    return tvm_c_report(cuda_host(), TVM_ERR_NOMEM,
                        "cuda: nvrtcCreateProgram failed");
  char archopt[64];
  snprintf(archopt, sizeof archopt, "--gpu-architecture=sm_%lld",
           (long long)arch);
  const char *opts[] = {archopt, "--std=c++17", "--ptxas-options=-v",
                        "-I" TVM_CUDA_HOME "/include"};
  nvrtcResult r = nv.nvrtcCompileProgram(p, 4, opts);
  size_t n = 0;
  nv.nvrtcGetProgramLogSize(p, &n);
  out->log = calloc(1, n + 1);
  if (out->log && n) nv.nvrtcGetProgramLog(p, out->log);
  int32_t st = TVM_OK;
  if (r != NVRTC_SUCCESS) {
    st = tvm_c_report(cuda_host(), TVM_ERR_INVALID,
                      "cuda: NVRTC failed to compile the generated CUDA C for "
                      "sm_%lld (a codegen bug; please report it): %s",
                      (long long)arch, out->log ? out->log : "");
  } else {
    size_t np = 0, nc = 0;
    nv.nvrtcGetPTXSize(p, &np);
    nv.nvrtcGetCUBINSize(p, &nc);
    out->ptx = calloc(1, np + 1);
    out->cubin = malloc(nc ? nc : 1);
    out->cubin_size = nc;
    if (!out->ptx || !out->cubin || !out->log)
      st = tvm_c_report(cuda_host(), TVM_ERR_NOMEM, "cuda: out of memory");
    else if (nv.nvrtcGetPTX(p, out->ptx) != NVRTC_SUCCESS || nc == 0 ||
             nv.nvrtcGetCUBIN(p, (char *)out->cubin) != NVRTC_SUCCESS)
      st = tvm_c_report(cuda_host(), TVM_ERR_INTERNAL,
                        "cuda: NVRTC produced no PTX or cubin for sm_%lld",
                        (long long)arch);
  }
  nv.nvrtcDestroyProgram(&p);
  if (st != TVM_OK) cuda_compiled_free(out);
  return st;
}

/* Reads "Compiling entry function '<name>'" ... "Used N registers" and
 * "N bytes spill stores" from a ptxas -v log. */
void cuda_resource_usage(const char *log, const char *name, int *regs,
                         int *spill_bytes) {
  char key[300];
  *regs = *spill_bytes = -1;
  snprintf(key, sizeof key, "entry function '%s'", name);
  const char *at = log ? strstr(log, key) : NULL;
  if (!at) return;
  const char *next = strstr(at + 1, "entry function '");
  const char *s = strstr(at, "bytes spill stores");
  if (s && (!next || s < next)) {
    const char *b = s;
    while (b > at && b[-1] == ' ') b--;
    while (b > at && b[-1] >= '0' && b[-1] <= '9') b--;
    *spill_bytes = atoi(b);
  }
  const char *u = strstr(at, "Used ");
  if (u && (!next || u < next)) *regs = atoi(u + 5);
}
