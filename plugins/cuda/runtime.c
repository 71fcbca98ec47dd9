/*
 * plugins/cuda/runtime.c - the cuda plugin's run-time half: libcuda.so.1
 * dlopen'd (never linked) with its versioned symbols (cuMemAlloc_v2 ...),
 * the device's primary context, device memory (a device pointer is a
 * CUdeviceptr), modules from the blob's cubin when the device's compute
 * capability is the one it was built for, else from its PTX (JIT by the
 * driver), launches with the kernel's argument kinds, and CUDA events for
 * timers.  Without a driver, probe says UNAVAILABLE with a fix-it.
 */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_plugin.h"

#define CU_FNS(X)                                                           \
  X(cuInit, "cuInit", (unsigned int))                                       \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int *))                          \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice *, int))                          \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute",                           \
    (int *, CUdevice_attribute, CUdevice))                                  \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",                   \
    (CUcontext *, CUdevice))                                                \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice))  \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                        \
  X(cuCtxSynchronize, "cuCtxSynchronize", (void))                           \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *, size_t))                   \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr))                               \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr, const void *, size_t))   \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *, CUdeviceptr, size_t))         \
  X(cuMemcpyDtoD, "cuMemcpyDtoD_v2", (CUdeviceptr, CUdeviceptr, size_t))    \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule *, const void *))       \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule))                           \
  X(cuModuleGetFunction, "cuModuleGetFunction",                             \
    (CUfunction *, CUmodule, const char *))                                 \
  X(cuFuncSetAttribute, "cuFuncSetAttribute",                               \
    (CUfunction, CUfunction_attribute, int))                                \
  X(cuLaunchKernel, "cuLaunchKernel",                                       \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,          \
     unsigned, unsigned, CUstream, void **, void **))                       \
  X(cuEventCreate, "cuEventCreate", (CUevent *, unsigned int))              \
  X(cuEventRecord, "cuEventRecord", (CUevent, CUstream))                    \
  X(cuEventSynchronize, "cuEventSynchronize", (CUevent))                    \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2", (float *, CUevent, CUevent)) \
  X(cuEventDestroy, "cuEventDestroy_v2", (CUevent))

typedef struct cu_api {
  void *lib;
#define FIELD(f, sym, args) CUresult (*f) args;
  CU_FNS(FIELD)
#undef FIELD
} cu_api;

struct tvm_plugin_device {
  cu_api cu;
  CUdevice dev;
  CUcontext ctx;
  int cc; /* compute capability x 10 */
};

struct tvm_plugin_func {
  CUfunction fn;
  char kinds[256];
  unsigned dyn_shared; /* bytes of dynamic shared memory per launch */
  struct tvm_plugin_func *next;
};

struct tvm_plugin_module {
  tvm_plugin_device *d;
  CUmodule mod;
  uint8_t *blob;
  uint64_t size;
  tvm_plugin_func *funcs;
};

#define REPORT(st, ...) tvm_c_report(cuda_host(), st, __VA_ARGS__)

/* Opens the driver and resolves its entry points. */
static int32_t load_cu(cu_api *cu) {
  memset(cu, 0, sizeof *cu);
  const char *path = getenv("TVM_CUDA_DRIVER"); /* tests: the stub library */
  cu->lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cu->lib)
    return REPORT(TVM_ERR_UNAVAILABLE,
                  "cuda: no NVIDIA driver on this machine (dlopen "
                  "libcuda.so.1: %s); install the NVIDIA driver for a GPU, "
                  "or compile with the cuda-sm80/cuda-sm90 targets here and "
                  "run the package on a machine with one", dlerror());
#define RESOLVE(f, sym, args)                                               \
  *(void **)&cu->f = dlsym(cu->lib, sym);                                   \
  if (!cu->f && !strcmp(sym, "cuEventElapsedTime_v2")) /* drivers < 12.8 */ \
    *(void **)&cu->f = dlsym(cu->lib, "cuEventElapsedTime");                \
  if (!cu->f) {                                                             \
    dlclose(cu->lib);                                                       \
    cu->lib = NULL;                                                         \
    return REPORT(TVM_ERR_UNAVAILABLE, "cuda: libcuda.so.1 lacks %s (driver "\
                  "too old: update the NVIDIA driver)", sym);               \
  }
  CU_FNS(RESOLVE)
#undef RESOLVE
  return TVM_OK;
}

/* cuInit and the target's device. */
static int32_t init_dev(cu_api *cu, const tvm_plugin_target *t, CUdevice *dev,
                        int *cc) {
  CUresult r = cu->cuInit(0);
  if (r != CUDA_SUCCESS)
    return REPORT(TVM_ERR_UNAVAILABLE,
                  "cuda: cuInit failed (CUresult %d%s); install or repair the "
                  "NVIDIA driver, and check that a GPU is visible "
                  "(nvidia-smi)", (int)r,
                  r == 34 ? ": the stub libcuda, not a real driver" : "");
  int n = 0;
  cu->cuDeviceGetCount(&n);
  if (t->device >= n)
    return REPORT(TVM_ERR_UNAVAILABLE,
                  "cuda: device %lld requested, %d present; set the target's "
                  "device attribute below %d", (long long)t->device, n,
                  n > 0 ? n : 1);
  if (cu->cuDeviceGet(dev, (int)t->device) != CUDA_SUCCESS)
    return REPORT(TVM_ERR_UNAVAILABLE, "cuda: cuDeviceGet(%lld) failed",
                  (long long)t->device);
  int ma = 0, mi = 0;
  cu->cuDeviceGetAttribute(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, *dev);
  cu->cuDeviceGetAttribute(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, *dev);
  *cc = ma * 10 + mi;
  if (*cc < t->arch)
    return REPORT(TVM_ERR_UNAVAILABLE,
                  "cuda: device %lld is sm_%d, older than the target's sm_%lld; "
                  "use a target whose arch is at most %d", (long long)t->device,
                  *cc, (long long)t->arch, *cc);
  return TVM_OK;
}

int32_t cuda_probe(tvm_plugin_target *t) {
  cu_api cu;
  CUdevice dev;
  int cc;
  int32_t st = load_cu(&cu);
  if (st == TVM_OK) st = init_dev(&cu, t, &dev, &cc);
  if (cu.lib) dlclose(cu.lib);
  return st;
}

int32_t cuda_device_open(tvm_plugin_target *t, tvm_plugin_device **out) {
  *out = NULL;
  tvm_plugin_device *d = calloc(1, sizeof *d);
  if (!d) return REPORT(TVM_ERR_NOMEM, "cuda: out of memory");
  int32_t st = load_cu(&d->cu);
  if (st == TVM_OK) st = init_dev(&d->cu, t, &d->dev, &d->cc);
  if (st == TVM_OK && (d->cu.cuDevicePrimaryCtxRetain(&d->ctx, d->dev) !=
                           CUDA_SUCCESS ||
                       d->cu.cuCtxSetCurrent(d->ctx) != CUDA_SUCCESS))
    st = REPORT(TVM_ERR_UNAVAILABLE, "cuda: retaining the primary context of "
                "device %lld failed", (long long)t->device);
  if (st != TVM_OK) {
    if (d->ctx) d->cu.cuDevicePrimaryCtxRelease(d->dev);
    if (d->cu.lib) dlclose(d->cu.lib);
    free(d);
    return st;
  }
  *out = d;
  return TVM_OK;
}

void cuda_device_close(tvm_plugin_device *d) {
  if (!d) return;
  d->cu.cuDevicePrimaryCtxRelease(d->dev);
  dlclose(d->cu.lib);
  free(d);
}

/* cuMemAlloc gives 256-byte alignment; more cannot be promised. */
int32_t cuda_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                       uint64_t align, void **out) {
  CUdeviceptr p = 0;
  if (align > 256)
    return REPORT(TVM_ERR_UNSUPPORTED, "cuda: alignment %llu requested; device "
                  "allocations are 256-byte aligned", (unsigned long long)align);
  d->cu.cuCtxSetCurrent(d->ctx);
  if (d->cu.cuMemAlloc(&p, nbytes ? nbytes : 1) != CUDA_SUCCESS)
    return REPORT(TVM_ERR_NOMEM, "cuda: cuMemAlloc of %llu bytes failed",
                  (unsigned long long)nbytes);
  *out = (void *)(uintptr_t)p;
  return TVM_OK;
}

void cuda_mem_free(tvm_plugin_device *d, uint32_t scope, void *p) {
  if (p) d->cu.cuMemFree((CUdeviceptr)(uintptr_t)p);
}

int32_t cuda_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                  const void *src, uint64_t src_offset, uint64_t nbytes,
                  uint32_t kind) {
  CUresult r;
  d->cu.cuCtxSetCurrent(d->ctx);
  CUdeviceptr ddst = (CUdeviceptr)(uintptr_t)dst + dst_offset;
  CUdeviceptr dsrc = (CUdeviceptr)(uintptr_t)src + src_offset;
  switch (kind) {
  case TVM_COPY_HOST_TO_DEVICE:
    r = d->cu.cuMemcpyHtoD(ddst, (const char *)src + src_offset, nbytes);
    break;
  case TVM_COPY_DEVICE_TO_HOST:
    r = d->cu.cuMemcpyDtoH((char *)dst + dst_offset, dsrc, nbytes);
    break;
  case TVM_COPY_DEVICE_TO_DEVICE:
    r = d->cu.cuMemcpyDtoD(ddst, dsrc, nbytes);
    break;
  default:
    return REPORT(TVM_ERR_INVALID, "cuda: unknown copy kind %u", kind);
  }
  return r == CUDA_SUCCESS ? TVM_OK
                           : REPORT(TVM_ERR_IO, "cuda: copy of %llu bytes "
                                    "failed (CUresult %d)",
                                    (unsigned long long)nbytes, (int)r);
}

int32_t cuda_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                         tvm_plugin_module **out) {
  const uint8_t *arch, *img;
  uint64_t na, ni;
  *out = NULL;
  if (blob->format != TVM_BLOB_CUSTOM ||
      tvm_kpack_find(blob->data, blob->size, "arch", &arch, &na) != TVM_OK)
    return REPORT(TVM_ERR_INVALID, "cuda: the blob was not made by the cuda "
                  "plugin");
  char a[16] = "";
  memcpy(a, arch, na < 15 ? na : 15);
  int use_cubin = atoi(a) == d->cc;
  if (tvm_kpack_find(blob->data, blob->size, use_cubin ? "cubin" : "ptx", &img,
                     &ni) != TVM_OK)
    return REPORT(TVM_ERR_INVALID, "cuda: the blob lacks its %s",
                  use_cubin ? "cubin" : "ptx");
  tvm_plugin_module *m = calloc(1, sizeof *m);
  char *ptx = use_cubin ? NULL : calloc(1, ni + 1);
  if (!m || (!use_cubin && !ptx) || !(m->blob = malloc(blob->size))) {
    free(ptx);
    if (m) free(m->blob);
    free(m);
    return REPORT(TVM_ERR_NOMEM, "cuda: out of memory");
  }
  if (ptx) memcpy(ptx, img, ni);
  memcpy(m->blob, blob->data, blob->size);
  m->size = blob->size;
  m->d = d;
  d->cu.cuCtxSetCurrent(d->ctx);
  CUresult r = d->cu.cuModuleLoadData(&m->mod, ptx ? (const void *)ptx : img);
  free(ptx);
  if (r != CUDA_SUCCESS) {
    free(m->blob);
    free(m);
    return REPORT(TVM_ERR_INVALID, "cuda: cuModuleLoadData (%s for sm_%s on "
                  "an sm_%d device) failed (CUresult %d)",
                  use_cubin ? "cubin" : "PTX", a, d->cc, (int)r);
  }
  *out = m;
  return TVM_OK;
}

void cuda_module_unload(tvm_plugin_module *m) {
  if (!m) return;
  for (tvm_plugin_func *f = m->funcs, *n; f; f = n) {
    n = f->next;
    free(f);
  }
  m->d->cu.cuModuleUnload(m->mod);
  free(m->blob);
  free(m);
}

/* The dynamic shared memory of kernel name (section "dyn_shared" of the
 * blob, plugin.c: "name bytes" lines), 0 when it has none. */
static unsigned dyn_shared_of(const tvm_plugin_module *m, const char *name) {
  const uint8_t *t;
  uint64_t n;
  size_t want = strlen(name);
  if (tvm_kpack_find(m->blob, m->size, "dyn_shared", &t, &n) != TVM_OK)
    return 0;
  for (uint64_t at = 0; at < n;) {
    uint64_t end = at;
    while (end < n && t[end] != '\n') end++;
    if (end - at > want && t[at + want] == ' ' &&
        !memcmp(t + at, name, want)) {
      unsigned long v = 0;
      for (uint64_t i = at + want + 1; i < end && t[i] >= '0' && t[i] <= '9';
           i++)
        v = v * 10 + (unsigned long)(t[i] - '0');
      return v > 0x7fffffff ? 0x7fffffff : (unsigned)v;
    }
    at = end + 1;
  }
  return 0;
}

int32_t cuda_func_get(tvm_plugin_module *m, const char *name,
                      tvm_plugin_func **out) {
  tvm_plugin_func *f = calloc(1, sizeof *f);
  if (!f) return REPORT(TVM_ERR_NOMEM, "cuda: out of memory");
  tvm_status st = tvm_kpack_signature(m->blob, m->size, name, f->kinds,
                                      sizeof f->kinds);
  if (st != TVM_OK) {
    free(f);
    return REPORT(st, "cuda: %s", tvm_diag_message());
  }
  if (m->d->cu.cuModuleGetFunction(&f->fn, m->mod, name) != CUDA_SUCCESS) {
    free(f);
    return REPORT(TVM_ERR_NOT_FOUND, "cuda: kernel %s not in the module", name);
  }
  f->dyn_shared = dyn_shared_of(m, name);
  if (f->dyn_shared) {
    /* past 48 KiB a kernel must opt in to its dynamic shared memory */
    m->d->cu.cuCtxSetCurrent(m->d->ctx);
    CUresult r = m->d->cu.cuFuncSetAttribute(
        f->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        (int)f->dyn_shared);
    if (r != CUDA_SUCCESS) {
      unsigned bytes = f->dyn_shared;
      free(f);
      return REPORT(TVM_ERR_UNSUPPORTED,
                    "cuda: kernel %s needs %u B of shared memory, more than "
                    "this device grants a block (CUresult %d): compile for "
                    "a target with a smaller max_shared_bytes",
                    name, bytes, (int)r);
    }
  }
  f->next = m->funcs;
  m->funcs = f;
  *out = f;
  return TVM_OK;
}

/* One argument slot, typed as the kernel's signature says. */
typedef union cu_arg {
  CUdeviceptr p;
  int i32;
  long long i64;
  float f32;
  double f64;
} cu_arg;

int32_t cuda_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                    const tvm_plugin_arg *args, uint32_t nargs,
                    const uint32_t grid[3], const uint32_t block[3]) {
  size_t nk = strlen(f->kinds);
  if (nargs != nk || nargs > 255)
    return REPORT(TVM_ERR_INVALID, "cuda: kernel takes %zu arguments, launch "
                  "passed %u", nk, nargs);
  cu_arg vals[256];
  void *ptrs[256];
  for (uint32_t i = 0; i < nargs; i++) {
    switch (f->kinds[i]) {
    case TVM_C_ARG_PTR: vals[i].p = (CUdeviceptr)(uintptr_t)args[i].v.ptr; break;
    case TVM_C_ARG_I32: vals[i].i32 = (int)args[i].v.i; break;
    case TVM_C_ARG_I64: vals[i].i64 = args[i].v.i; break;
    case TVM_C_ARG_F32: vals[i].f32 = (float)args[i].v.f; break;
    default: vals[i].f64 = args[i].v.f; break;
    }
    ptrs[i] = &vals[i];
  }
  d->cu.cuCtxSetCurrent(d->ctx);
  CUresult r = d->cu.cuLaunchKernel(f->fn, grid[0], grid[1], grid[2], block[0],
                                    block[1], block[2], f->dyn_shared, NULL,
                                    ptrs, NULL);
  return r == CUDA_SUCCESS ? TVM_OK
                           : REPORT(TVM_ERR_IO, "cuda: cuLaunchKernel failed "
                                    "(CUresult %d)", (int)r);
}

int32_t cuda_sync(tvm_plugin_device *d) {
  d->cu.cuCtxSetCurrent(d->ctx);
  CUresult r = d->cu.cuCtxSynchronize();
  return r == CUDA_SUCCESS ? TVM_OK
                           : REPORT(TVM_ERR_IO, "cuda: kernel failed (CUresult "
                                    "%d)", (int)r);
}

int32_t cuda_timer_start(tvm_plugin_device *d, uint64_t *token) {
  CUevent e;
  d->cu.cuCtxSetCurrent(d->ctx);
  if (d->cu.cuEventCreate(&e, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      d->cu.cuEventRecord(e, NULL) != CUDA_SUCCESS)
    return REPORT(TVM_ERR_IO, "cuda: recording the start event failed");
  *token = (uint64_t)(uintptr_t)e;
  return TVM_OK;
}

int32_t cuda_timer_stop(tvm_plugin_device *d, uint64_t token,
                        double *elapsed_ms) {
  CUevent a = (CUevent)(uintptr_t)token, b = NULL;
  float ms = 0;
  d->cu.cuCtxSetCurrent(d->ctx);
  CUresult r = d->cu.cuEventCreate(&b, CU_EVENT_DEFAULT);
  if (r == CUDA_SUCCESS) r = d->cu.cuEventRecord(b, NULL);
  if (r == CUDA_SUCCESS) r = d->cu.cuEventSynchronize(b);
  if (r == CUDA_SUCCESS) r = d->cu.cuEventElapsedTime(&ms, a, b);
  d->cu.cuEventDestroy(a);
  if (b) d->cu.cuEventDestroy(b);
  if (r != CUDA_SUCCESS)
    return REPORT(TVM_ERR_IO, "cuda: event timing failed (CUresult %d)", (int)r);
  *elapsed_ms = ms;
  return TVM_OK;
}
