/*
 * plugins/arm-mali/mali.h - the arm-mali plugin (OpenCL C 1.2 through the
 * ICD loader): shared declarations of plugin.c (descriptor, attributes,
 * targets, codegen) and runtime.c (libOpenCL.so.1 dlopen'd, devices,
 * buffers, programs, kernels, events).
 */
#ifndef TVM_MALI_H
#define TVM_MALI_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "tvm/codegen_c.h"
#include "tvm/gpu_templates.h"
#include "tvm/plugin.h"

/* A target: the validated attributes and what they imply. */
struct tvm_plugin_target {
  char *platform;        /* substring of the platform name, "" = any */
  char *device_type;     /* any|gpu|cpu|accelerator */
  int64_t max_wg;        /* work-group size limit */
  int64_t vector_width;  /* float lanes of vector loads/stores */
  int64_t local_bytes;   /* __local memory per work-group */
  int fp16;              /* the target may use half */
  char *description;
  tvm_plugin_scope scopes[3];
  tvm_plugin_target_info info;
  tvm_c_dialect dialect;
};

/* The OpenCL entry points used, resolved from the ICD loader. */
typedef struct mali_cl {
  void *lib;
#define MALI_CL_FNS(X)                                                        \
  X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id *, cl_uint *))         \
  X(clGetPlatformInfo, cl_int,                                                \
    (cl_platform_id, cl_platform_info, size_t, void *, size_t *))             \
  X(clGetDeviceIDs, cl_int,                                                   \
    (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *))     \
  X(clGetDeviceInfo, cl_int,                                                  \
    (cl_device_id, cl_device_info, size_t, void *, size_t *))                 \
  X(clCreateContext, cl_context,                                              \
    (const cl_context_properties *, cl_uint, const cl_device_id *,            \
     void (*)(const char *, const void *, size_t, void *), void *, cl_int *)) \
  X(clReleaseContext, cl_int, (cl_context))                                   \
  X(clCreateCommandQueue, cl_command_queue,                                   \
    (cl_context, cl_device_id, cl_command_queue_properties, cl_int *))        \
  X(clReleaseCommandQueue, cl_int, (cl_command_queue))                        \
  X(clCreateBuffer, cl_mem, (cl_context, cl_mem_flags, size_t, void *,        \
                             cl_int *))                                       \
  X(clReleaseMemObject, cl_int, (cl_mem))                                     \
  X(clEnqueueWriteBuffer, cl_int,                                             \
    (cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *,         \
     cl_uint, const cl_event *, cl_event *))                                  \
  X(clEnqueueReadBuffer, cl_int,                                              \
    (cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,      \
     const cl_event *, cl_event *))                                           \
  X(clEnqueueCopyBuffer, cl_int,                                              \
    (cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint,       \
     const cl_event *, cl_event *))                                           \
  X(clCreateProgramWithSource, cl_program,                                    \
    (cl_context, cl_uint, const char **, const size_t *, cl_int *))           \
  X(clCreateProgramWithBinary, cl_program,                                    \
    (cl_context, cl_uint, const cl_device_id *, const size_t *,               \
     const unsigned char **, cl_int *, cl_int *))                             \
  X(clBuildProgram, cl_int,                                                   \
    (cl_program, cl_uint, const cl_device_id *, const char *,                 \
     void (*)(cl_program, void *), void *))                                   \
  X(clGetProgramBuildInfo, cl_int,                                            \
    (cl_program, cl_device_id, cl_program_build_info, size_t, void *,         \
     size_t *))                                                               \
  X(clGetProgramInfo, cl_int,                                                 \
    (cl_program, cl_program_info, size_t, void *, size_t *))                  \
  X(clReleaseProgram, cl_int, (cl_program))                                   \
  X(clCreateKernel, cl_kernel, (cl_program, const char *, cl_int *))          \
  X(clReleaseKernel, cl_int, (cl_kernel))                                     \
  X(clSetKernelArg, cl_int, (cl_kernel, cl_uint, size_t, const void *))       \
  X(clEnqueueNDRangeKernel, cl_int,                                           \
    (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,    \
     const size_t *, cl_uint, const cl_event *, cl_event *))                  \
  X(clEnqueueMarkerWithWaitList, cl_int,                                      \
    (cl_command_queue, cl_uint, const cl_event *, cl_event *))                \
  X(clFinish, cl_int, (cl_command_queue))                                     \
  X(clWaitForEvents, cl_int, (cl_uint, const cl_event *))                     \
  X(clGetEventProfilingInfo, cl_int,                                          \
    (cl_event, cl_profiling_info, size_t, void *, size_t *))                  \
  X(clReleaseEvent, cl_int, (cl_event))
#define MALI_CL_FIELD(name, ret, args) ret(CL_API_CALL *name) args;
  MALI_CL_FNS(MALI_CL_FIELD)
#undef MALI_CL_FIELD
} mali_cl;

/* The host API given at query time (NULL before). */
const tvm_host_api *mali_host(void);
/* Memory the host frees. */
void *mali_host_alloc(uint64_t n);

/* strategy_matmul.c: the 2-d MatMul template (knobs tile_rows, wg_x,
 * wg_y, unroll_k). */
struct tvm_config;
int32_t mali_schedule_matmul(tvm_plugin_target *t, tvm_schedule *s,
                             tvm_tensor **outs, uint32_t nouts,
                             struct tvm_config *cfg);

/* strategy_conv.c: Conv -> Conv_NCHWc with vector_width output blocks
 * or Conv2D_winograd (alter_layout, the core's tvm_gpu_alter_layout),
 * and this target's limits for the core's GPU templates
 * (tvm/gpu_templates.h: spatial-pack conv2d_NCHWc (regular, 1x1,
 * depthwise), Winograd, pool_NCHWc, dense (Gemm), injective groups). */
int32_t mali_alter_layout(tvm_plugin_target *t, const tvm_gnode *n,
                          tvm_plugin_layout *out);
tvm_gpu_limits mali_gpu_limits(const tvm_plugin_target *t);

/* runtime.c: the vtable's run-time slots. */
int32_t mali_probe(tvm_plugin_target *t);
int32_t mali_device_open(tvm_plugin_target *t, tvm_plugin_device **out);
void mali_device_close(tvm_plugin_device *d);
int32_t mali_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                       uint64_t align, void **out);
void mali_mem_free(tvm_plugin_device *d, uint32_t scope, void *p);
int32_t mali_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                  const void *src, uint64_t src_offset, uint64_t nbytes,
                  uint32_t kind);
int32_t mali_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                         tvm_plugin_module **out);
void mali_module_unload(tvm_plugin_module *m);
int32_t mali_func_get(tvm_plugin_module *m, const char *name,
                      tvm_plugin_func **out);
int32_t mali_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                    const tvm_plugin_arg *args, uint32_t nargs,
                    const uint32_t grid[3], const uint32_t block[3]);
int32_t mali_sync(tvm_plugin_device *d);
int32_t mali_timer_start(tvm_plugin_device *d, uint64_t *token);
int32_t mali_timer_stop(tvm_plugin_device *d, uint64_t token,
                        double *elapsed_ms);

#endif /* TVM_MALI_H */
