/*
 * plugins/arm-mali/runtime.c - the arm-mali plugin's run-time half: the
 * OpenCL ICD loader (libOpenCL.so.1) dlopen'd, never linked; platform and
 * device selection from the target's attributes; buffers (a device
 * pointer is a cl_mem); programs built from the blob's source at module
 * load, with the built binaries cached per device (keyed by a hash of the
 * source) so a module loaded again is created from its binary; kernels
 * launched over grid x block work-items; profiling events for timers.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mali.h"

/* A cached program binary. */
typedef struct bin_entry {
  uint64_t key;
  unsigned char *bin;
  size_t size;
  struct bin_entry *next;
} bin_entry;

struct tvm_plugin_device {
  mali_cl cl;
  tvm_plugin_target *t;
  cl_platform_id platform;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  int has_fp16, has_fp64;
  int exact_div; /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: build with it */
  size_t max_wg;
  cl_uint base_align; /* bytes every buffer is aligned to */
  bin_entry *cache;
};

struct tvm_plugin_func {
  cl_kernel k;
  char kinds[256];
  struct tvm_plugin_func *next;
};

struct tvm_plugin_module {
  tvm_plugin_device *d;
  cl_program prog;
  uint8_t *blob; /* a copy of the blob's data (signatures) */
  uint64_t size;
  tvm_plugin_func *funcs;
};

/* Reports through the host. */
#define REPORT(st, ...) tvm_c_report(mali_host(), st, __VA_ARGS__)

/* Opens the ICD loader and resolves every entry point. */
static int32_t load_cl(mali_cl *cl) {
  memset(cl, 0, sizeof *cl);
  cl->lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!cl->lib)
    return REPORT(TVM_ERR_UNAVAILABLE,
                  "arm-mali: no OpenCL ICD loader (dlopen libOpenCL.so.1: "
                  "%s); install one and a driver, e.g. 'apt-get install "
                  "ocl-icd-libopencl1 pocl-opencl-icd' for the CPU, or the "
                  "Mali/GPU vendor's OpenCL driver", dlerror());
#define MALI_CL_RESOLVE(name, ret, args)                                     \
  *(void **)&cl->name = dlsym(cl->lib, #name);                               \
  if (!cl->name) {                                                           \
    dlclose(cl->lib);                                                        \
    cl->lib = NULL;                                                          \
    return REPORT(TVM_ERR_UNAVAILABLE,                                       \
                  "arm-mali: libOpenCL.so.1 lacks %s (OpenCL 1.2 needed)",   \
                  #name);                                                    \
  }
  MALI_CL_FNS(MALI_CL_RESOLVE)
#undef MALI_CL_RESOLVE
  return TVM_OK;
}

/* The cl_device_type of the target's device_type attribute. */
static cl_device_type device_type(const tvm_plugin_target *t) {
  if (!strcmp(t->device_type, "gpu")) return CL_DEVICE_TYPE_GPU;
  if (!strcmp(t->device_type, "cpu")) return CL_DEVICE_TYPE_CPU;
  if (!strcmp(t->device_type, "accelerator")) return CL_DEVICE_TYPE_ACCELERATOR;
  return CL_DEVICE_TYPE_ALL;
}

/* Finds the first platform (matching t->platform) with a device of the
 * target's type. */
static int32_t pick_device(mali_cl *cl, const tvm_plugin_target *t,
                           cl_platform_id *pp, cl_device_id *pd) {
  cl_platform_id plats[16];
  cl_uint np = 0;
  if (cl->clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0)
    return REPORT(TVM_ERR_UNAVAILABLE,
                  "arm-mali: no OpenCL platform (the ICD loader found no "
                  "driver); install one, e.g. 'apt-get install "
                  "pocl-opencl-icd' for the CPU, or the GPU vendor's driver");
  if (np > 16) np = 16;
  for (cl_uint i = 0; i < np; i++) {
    char name[256] = "";
    cl->clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name - 1, name,
                          NULL);
    if (t->platform[0] && !strstr(name, t->platform)) continue;
    cl_uint nd = 0;
    cl_device_id dev;
    if (cl->clGetDeviceIDs(plats[i], device_type(t), 1, &dev, &nd) ==
            CL_SUCCESS && nd > 0) {
      *pp = plats[i];
      *pd = dev;
      return TVM_OK;
    }
  }
  return REPORT(TVM_ERR_UNAVAILABLE,
                "arm-mali: no OpenCL %s device%s%s among %u platform(s); "
                "set the target's device_type/platform attributes to one "
                "`clinfo -l` lists, or install a driver for that device",
                t->device_type, t->platform[0] ? " on a platform matching " : "",
                t->platform, (unsigned)np);
}

/* 0 when an OpenCL device of the target's kind exists. */
int32_t mali_probe(tvm_plugin_target *t) {
  mali_cl cl;
  int32_t st = load_cl(&cl);
  if (st != TVM_OK) return st;
  cl_platform_id p;
  cl_device_id d;
  st = pick_device(&cl, t, &p, &d);
  dlclose(cl.lib);
  return st;
}

/* Opens the device: context, in-order queue with profiling. */
int32_t mali_device_open(tvm_plugin_target *t, tvm_plugin_device **out) {
  *out = NULL;
  tvm_plugin_device *d = calloc(1, sizeof *d);
  if (!d) return REPORT(TVM_ERR_NOMEM, "arm-mali: out of memory");
  int32_t st = load_cl(&d->cl);
  if (st == TVM_OK) st = pick_device(&d->cl, t, &d->platform, &d->dev);
  cl_int err = CL_SUCCESS;
  if (st == TVM_OK) {
    d->t = t;
    d->ctx = d->cl.clCreateContext(NULL, 1, &d->dev, NULL, NULL, &err);
    if (d->ctx)
      d->q = d->cl.clCreateCommandQueue(d->ctx, d->dev,
                                        CL_QUEUE_PROFILING_ENABLE, &err);
    if (!d->ctx || !d->q)
      st = REPORT(TVM_ERR_UNAVAILABLE,
                  "arm-mali: creating the OpenCL context/queue failed (error "
                  "%d)", (int)err);
  }
  if (st == TVM_OK) {
    char ext[4096] = "";
    d->cl.clGetDeviceInfo(d->dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext,
                          NULL);
    d->has_fp16 = strstr(ext, "cl_khr_fp16") != NULL;
    d->has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    d->cl.clGetDeviceInfo(d->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                          sizeof d->max_wg, &d->max_wg, NULL);
    cl_uint bits = 0;
    d->cl.clGetDeviceInfo(d->dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits,
                          &bits, NULL);
    d->base_align = bits / 8;
    cl_device_fp_config fp = 0;
    d->cl.clGetDeviceInfo(d->dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp,
                          NULL);
    d->exact_div = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    *out = d;
    return TVM_OK;
  }
  mali_device_close(d);
  return st;
}

/* Releases the device and its binary cache. */
void mali_device_close(tvm_plugin_device *d) {
  if (!d) return;
  for (bin_entry *b = d->cache, *n; b; b = n) {
    n = b->next;
    free(b->bin);
    free(b);
  }
  if (d->q) d->cl.clReleaseCommandQueue(d->q);
  if (d->ctx) d->cl.clReleaseContext(d->ctx);
  if (d->cl.lib) dlclose(d->cl.lib);
  free(d);
}

/* A buffer of nbytes (a cl_mem handle is the device pointer). */
int32_t mali_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                       uint64_t align, void **out) {
  cl_int err = CL_SUCCESS;
  if (align > d->base_align)
    return REPORT(TVM_ERR_UNSUPPORTED, "arm-mali: alignment %llu requested; "
                  "this device aligns buffers to %u bytes",
                  (unsigned long long)align, d->base_align);
  cl_mem m = d->cl.clCreateBuffer(d->ctx, CL_MEM_READ_WRITE,
                                  nbytes ? (size_t)nbytes : 1, NULL, &err);
  if (!m)
    return REPORT(TVM_ERR_NOMEM,
                  "arm-mali: clCreateBuffer of %llu bytes failed (error %d)",
                  (unsigned long long)nbytes, (int)err);
  *out = m;
  return TVM_OK;
}

void mali_mem_free(tvm_plugin_device *d, uint32_t scope, void *p) {
  if (p) d->cl.clReleaseMemObject((cl_mem)p);
}

/* Blocking copies between host memory and buffers. */
int32_t mali_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                  const void *src, uint64_t src_offset, uint64_t nbytes,
                  uint32_t kind) {
  cl_int err;
  switch (kind) {
  case TVM_COPY_HOST_TO_DEVICE:
    err = d->cl.clEnqueueWriteBuffer(d->q, (cl_mem)dst, CL_TRUE, dst_offset,
                                     nbytes, (const char *)src + src_offset,
                                     0, NULL, NULL);
    break;
  case TVM_COPY_DEVICE_TO_HOST:
    err = d->cl.clEnqueueReadBuffer(d->q, (cl_mem)(uintptr_t)src, CL_TRUE,
                                    src_offset, nbytes,
                                    (char *)dst + dst_offset, 0, NULL, NULL);
    break;
  case TVM_COPY_DEVICE_TO_DEVICE:
    err = d->cl.clEnqueueCopyBuffer(d->q, (cl_mem)(uintptr_t)src, (cl_mem)dst,
                                    src_offset, dst_offset, nbytes, 0, NULL,
                                    NULL);
    if (err == CL_SUCCESS) err = d->cl.clFinish(d->q);
    break;
  default:
    return REPORT(TVM_ERR_INVALID, "arm-mali: unknown copy kind %u", kind);
  }
  if (err != CL_SUCCESS)
    return REPORT(TVM_ERR_IO, "arm-mali: copy of %llu bytes failed (error %d)",
                  (unsigned long long)nbytes, (int)err);
  return TVM_OK;
}

/* The build log of prog, for messages (static buffer). */
static const char *build_log(tvm_plugin_device *d, cl_program prog) {
  static _Thread_local char log[2048];
  log[0] = 0;
  d->cl.clGetProgramBuildInfo(prog, d->dev, CL_PROGRAM_BUILD_LOG,
                              sizeof log - 1, log, NULL);
  log[sizeof log - 1] = 0;
  return log;
}

/* Remembers the binary of a built program under key. */
static void cache_binary(tvm_plugin_device *d, cl_program prog, uint64_t key) {
  size_t size = 0;
  if (d->cl.clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                             NULL) != CL_SUCCESS || size == 0)
    return;
  bin_entry *b = calloc(1, sizeof *b);
  unsigned char *bin = malloc(size);
  if (!b || !bin ||
      d->cl.clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                             NULL) != CL_SUCCESS) {
    free(b);
    free(bin);
    return;
  }
  b->key = key;
  b->bin = bin;
  b->size = size;
  b->next = d->cache;
  d->cache = b;
}

/* Builds the program of the blob's source (from the cached binary when
 * this device built the same source before). */
int32_t mali_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                         tvm_plugin_module **out) {
  const uint8_t *src;
  uint64_t n;
  *out = NULL;
  if (blob->format != TVM_BLOB_OPENCL_C)
    return REPORT(TVM_ERR_INVALID, "arm-mali: blob format %u is not OpenCL C "
                  "(made by another plugin?)", blob->format);
  if (tvm_kpack_find(blob->data, blob->size, "source", &src, &n) != TVM_OK)
    return REPORT(TVM_ERR_INVALID, "arm-mali: blob has no source section: %s",
                  tvm_diag_message());
  if (memmem(src, n, "cl_khr_fp16", 11) && !d->has_fp16)
    return REPORT(TVM_ERR_UNSUPPORTED,
                  "arm-mali: the module uses float16 but the device lacks "
                  "cl_khr_fp16 (compile for float32)");
  if (memmem(src, n, "cl_khr_fp64", 11) && !d->has_fp64)
    return REPORT(TVM_ERR_UNSUPPORTED,
                  "arm-mali: the module uses float64 but the device lacks "
                  "cl_khr_fp64 (compute in float32)");
  tvm_plugin_module *m = calloc(1, sizeof *m);
  if (!m) return REPORT(TVM_ERR_NOMEM, "arm-mali: out of memory");
  m->d = d;
  m->blob = malloc(blob->size);
  if (!m->blob) {
    free(m);
    return REPORT(TVM_ERR_NOMEM, "arm-mali: out of memory");
  }
  memcpy(m->blob, blob->data, blob->size);
  m->size = blob->size;
  char devname[256] = "";
  d->cl.clGetDeviceInfo(d->dev, CL_DEVICE_NAME, sizeof devname - 1, devname,
                        NULL);
  uint64_t key = tvm_hash_bytes(src, n, tvm_hash_str(devname));
  cl_int err = CL_SUCCESS;
  bin_entry *hit = NULL;
  for (bin_entry *b = d->cache; b; b = b->next)
    if (b->key == key) hit = b;
  if (hit) {
    const unsigned char *bin = hit->bin;
    cl_int bst;
    m->prog = d->cl.clCreateProgramWithBinary(d->ctx, 1, &d->dev, &hit->size,
                                              &bin, &bst, &err);
  } else {
    const char *s = (const char *)src;
    size_t len = (size_t)n;
    m->prog = d->cl.clCreateProgramWithSource(d->ctx, 1, &s, &len, &err);
  }
  if (!m->prog) {
    mali_module_unload(m);
    return REPORT(TVM_ERR_INVALID, "arm-mali: creating the program failed "
                  "(error %d)", (int)err);
  }
  /* OpenCL lets float division and sqrt be 2.5 ulp off by default (and
   * NVIDIA's are): where the device can round them correctly, as every
   * other target and the references do, it is asked to, or a quotient
   * that should round to x.5 lands on the other side (DynamicQuantize-
   * Linear's scale did). */
  const char *opts = d->exact_div
                         ? "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt"
                         : "-cl-std=CL1.2";
  err = d->cl.clBuildProgram(m->prog, 1, &d->dev, opts, NULL, NULL);
  if (err != CL_SUCCESS) {
    int32_t st = REPORT(TVM_ERR_INVALID,
                        "arm-mali: building the OpenCL program failed (error "
                        "%d); build log:\n%s", (int)err,
                        build_log(d, m->prog));
    mali_module_unload(m);
    return st;
  }
  if (!hit) cache_binary(d, m->prog, key);
  *out = m;
  return TVM_OK;
}

void mali_module_unload(tvm_plugin_module *m) {
  if (!m) return;
  for (tvm_plugin_func *f = m->funcs, *n; f; f = n) {
    n = f->next;
    m->d->cl.clReleaseKernel(f->k);
    free(f);
  }
  if (m->prog) m->d->cl.clReleaseProgram(m->prog);
  free(m->blob);
  free(m);
}

/* The kernel called name with its argument kinds. */
int32_t mali_func_get(tvm_plugin_module *m, const char *name,
                      tvm_plugin_func **out) {
  tvm_plugin_func *f = calloc(1, sizeof *f);
  if (!f) return REPORT(TVM_ERR_NOMEM, "arm-mali: out of memory");
  tvm_status st = tvm_kpack_signature(m->blob, m->size, name, f->kinds,
                                      sizeof f->kinds);
  if (st != TVM_OK) {
    free(f);
    return REPORT(st, "arm-mali: %s", tvm_diag_message());
  }
  cl_int err = CL_SUCCESS;
  f->k = m->d->cl.clCreateKernel(m->prog, name, &err);
  if (!f->k) {
    free(f);
    return REPORT(TVM_ERR_NOT_FOUND, "arm-mali: clCreateKernel(%s) failed "
                  "(error %d)", name, (int)err);
  }
  f->next = m->funcs;
  m->funcs = f;
  *out = f;
  return TVM_OK;
}

/* Sets the arguments and enqueues grid x block work-items. */
int32_t mali_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                    const tvm_plugin_arg *args, uint32_t nargs,
                    const uint32_t grid[3], const uint32_t block[3]) {
  size_t nk = strlen(f->kinds);
  if (nargs != nk)
    return REPORT(TVM_ERR_INVALID, "arm-mali: kernel takes %zu arguments, "
                  "launch passed %u", nk, nargs);
  size_t wg = (size_t)block[0] * block[1] * block[2];
  if (wg > d->max_wg)
    return REPORT(TVM_ERR_UNSUPPORTED, "arm-mali: work-group of %zu items "
                  "exceeds the device's limit %zu (lower the target's "
                  "max_work_group_size)", wg, d->max_wg);
  for (uint32_t i = 0; i < nargs; i++) {
    cl_int err;
    char k = f->kinds[i];
    cl_mem mem = args[i].v.ptr;
    cl_int i32 = (cl_int)args[i].v.i;
    cl_long i64 = args[i].v.i;
    cl_float f32 = (cl_float)args[i].v.f;
    cl_double f64 = args[i].v.f;
    int want = k == TVM_C_ARG_PTR ? TVM_ARG_PTR
               : (k == TVM_C_ARG_F32 || k == TVM_C_ARG_F64) ? TVM_ARG_FLOAT
                                                            : TVM_ARG_INT;
    if ((int)args[i].type != want)
      return REPORT(TVM_ERR_INVALID, "arm-mali: argument %u has type %u, the "
                    "kernel wants kind '%c'", i, args[i].type, k);
    switch (k) {
    case TVM_C_ARG_PTR: err = d->cl.clSetKernelArg(f->k, i, sizeof mem, &mem); break;
    case TVM_C_ARG_I32: err = d->cl.clSetKernelArg(f->k, i, sizeof i32, &i32); break;
    case TVM_C_ARG_I64: err = d->cl.clSetKernelArg(f->k, i, sizeof i64, &i64); break;
    case TVM_C_ARG_F32: err = d->cl.clSetKernelArg(f->k, i, sizeof f32, &f32); break;
    default: err = d->cl.clSetKernelArg(f->k, i, sizeof f64, &f64); break;
    }
    if (err != CL_SUCCESS)
      return REPORT(TVM_ERR_INVALID, "arm-mali: clSetKernelArg %u failed "
                    "(error %d)", i, (int)err);
  }
  size_t global[3], local[3];
  for (int i = 0; i < 3; i++) {
    local[i] = block[i];
    global[i] = (size_t)grid[i] * block[i];
  }
  cl_int err = d->cl.clEnqueueNDRangeKernel(d->q, f->k, 3, NULL, global, local,
                                            0, NULL, NULL);
  if (err != CL_SUCCESS)
    return REPORT(TVM_ERR_IO, "arm-mali: clEnqueueNDRangeKernel failed (error "
                  "%d)", (int)err);
  return TVM_OK;
}

int32_t mali_sync(tvm_plugin_device *d) {
  cl_int err = d->cl.clFinish(d->q);
  return err == CL_SUCCESS ? TVM_OK
                           : REPORT(TVM_ERR_IO, "arm-mali: clFinish failed "
                                    "(error %d)", (int)err);
}

/* A marker event whose profiling time starts the interval. */
int32_t mali_timer_start(tvm_plugin_device *d, uint64_t *token) {
  cl_event ev = NULL;
  cl_int err = d->cl.clEnqueueMarkerWithWaitList(d->q, 0, NULL, &ev);
  if (err != CL_SUCCESS)
    return REPORT(TVM_ERR_IO, "arm-mali: timer marker failed (error %d)",
                  (int)err);
  *token = (uint64_t)(uintptr_t)ev;
  return TVM_OK;
}

/* A second marker; waits, then the time between the two markers. */
int32_t mali_timer_stop(tvm_plugin_device *d, uint64_t token,
                        double *elapsed_ms) {
  cl_event a = (cl_event)(uintptr_t)token, b = NULL;
  cl_ulong t0 = 0, t1 = 0;
  cl_int err = d->cl.clEnqueueMarkerWithWaitList(d->q, 0, NULL, &b);
  if (err == CL_SUCCESS) err = d->cl.clWaitForEvents(1, &b);
  if (err == CL_SUCCESS)
    err = d->cl.clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_END,
                                        sizeof t0, &t0, NULL);
  if (err == CL_SUCCESS)
    err = d->cl.clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END,
                                        sizeof t1, &t1, NULL);
  if (a) d->cl.clReleaseEvent(a);
  if (b) d->cl.clReleaseEvent(b);
  if (err != CL_SUCCESS)
    return REPORT(TVM_ERR_IO, "arm-mali: reading profiling events failed "
                  "(error %d)", (int)err);
  *elapsed_ms = (double)(t1 - t0) / 1e6;
  return TVM_OK;
}
