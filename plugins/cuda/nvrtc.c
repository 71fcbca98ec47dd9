/*
 * plugins/cuda/nvrtc.c - CUDA C to cubin and PTX with NVRTC, dlopen'd
 * (libnvrtc.so.13 from the system's search path, then the toolkit the
 * build was configured with), never linked.  Compiles for the real
 * architecture sm_<arch> with `ptxas -v` output in the log, from which
 * registers and spills per kernel are read.  What a source compiled to
 * (PTX, cubin and log) is kept in the SDK's compiled-code cache, keyed by
 * the source, the options, libnvrtc and this plugin, so the same kernels
 * compiled again (the next compile of a model, the tuner's re-measuring)
 * skip NVRTC, which takes seconds on unrolled tiles.
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

/* The cache's key of a compile of src with opts: 0 when the cache is
 * off or an identity is unknown. */
#define CUDA_CACHE_FORMAT "tvm-c cuda nvrtc 1"
static int compile_key(const char *src, const char *const *opts, int nopts,
                       tvm_sdk_cache_key *k) {
  if (!tvm_sdk_cache_enabled("cuda")) return 0;
  tvm_sdk_cache_key_init(k);
  tvm_sdk_cache_key_add_str(k, CUDA_CACHE_FORMAT);
  if (!tvm_sdk_cache_key_add_object(k, (const void *)cuda_nvrtc_compile) ||
      !tvm_sdk_cache_key_add_object(k, *(void **)&nv.nvrtcCompileProgram))
    return 0;
  for (int i = 0; i < nopts; i++) tvm_sdk_cache_key_add_str(k, opts[i]);
  tvm_sdk_cache_key_add_str(k, src);
  return 1;
}

/* A cache entry: three u64 lengths (PTX, cubin, log), then the bytes. */
static void cache_store(const tvm_sdk_cache_key *k, const cuda_compiled *c) {
  uint64_t n[3] = {strlen(c->ptx), c->cubin_size, strlen(c->log)};
  size_t total = sizeof n + n[0] + n[1] + n[2];
  uint8_t *b = malloc(total);
  if (!b) return;
  memcpy(b, n, sizeof n);
  memcpy(b + sizeof n, c->ptx, n[0]);
  memcpy(b + sizeof n + n[0], c->cubin, n[1]);
  memcpy(b + sizeof n + n[0] + n[1], c->log, n[2]);
  tvm_sdk_cache_put("cuda", k, b, total);
  free(b);
}

/* 1 with out filled from the cache's entry under k. */
static int cache_load(const tvm_sdk_cache_key *k, cuda_compiled *out) {
  uint8_t *b;
  uint64_t size, n[3];
  if (!tvm_sdk_cache_get("cuda", k, &b, &size)) return 0;
  int ok = size >= sizeof n;
  if (ok) {
    memcpy(n, b, sizeof n);
    ok = n[0] < size && n[1] < size && n[2] < size &&
         sizeof n + n[0] + n[1] + n[2] == size && n[1] > 0;
  }
  if (ok) {
    const uint8_t *at = b + sizeof n;
    out->ptx = calloc(1, n[0] + 1);
    out->cubin = malloc(n[1]);
    out->log = calloc(1, n[2] + 1);
    ok = out->ptx && out->cubin && out->log;
    if (ok) {
      memcpy(out->ptx, at, n[0]);
      memcpy(out->cubin, at + n[0], n[1]);
      memcpy(out->log, at + n[0] + n[1], n[2]);
      out->cubin_size = n[1];
    } else {
      cuda_compiled_free(out);
    }
  }
  free(b);
  return ok;
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
  char archopt[64];
  snprintf(archopt, sizeof archopt, "--gpu-architecture=sm_%lld",
           (long long)arch);
  const char *opts[] = {archopt, "--std=c++17", "--ptxas-options=-v",
                        "-I" TVM_CUDA_HOME "/include"};
  tvm_sdk_cache_key key;
  int cached = compile_key(src, opts, 4, &key);
  if (cached && cache_load(&key, out)) {
    tvm_sdk_log(cuda_host(), TVM_LOG_DEBUG,
                "cuda: sm_%lld module from the compiled-code cache",
                (long long)arch);
    return TVM_OK;
  }
  nvrtcProgram p;
  if (nv.nvrtcCreateProgram(&p, src, "tvm_kernels.cu", 0, NULL, NULL) !=
      NVRTC_SUCCESS)
    return tvm_c_report(cuda_host(), TVM_ERR_NOMEM,
                        "cuda: nvrtcCreateProgram failed");
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
  else if (cached) cache_store(&key, out);
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
