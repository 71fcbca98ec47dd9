/*
 * plugins/cuda/cuda_plugin.h - the cuda plugin (CUDA C through NVRTC,
 * the driver API for running): shared declarations of plugin.c
 * (descriptor, attributes, targets, codegen), nvrtc.c (libnvrtc
 * dlopen'd: CUDA C -> cubin + PTX, resource usage) and runtime.c
 * (libcuda.so.1 dlopen'd: primary context, memory, modules, launches,
 * events).  Only cuda.h and nvrtc.h are used at build time, for types.
 */
#ifndef TVM_CUDA_PLUGIN_H
#define TVM_CUDA_PLUGIN_H

#include "tvm/codegen_c.h"
#include "tvm/plugin.h"
#include "tvm/plugin_sdk.h"

struct tvm_plugin_target {
  int64_t arch;            /* compute capability * 10 (80, 90) */
  int64_t max_threads;     /* threads per block */
  int64_t max_shared;      /* static shared memory per block, bytes */
  int64_t max_regs;        /* registers per block */
  int64_t device;          /* ordinal */
  int64_t wino_min_ch;     /* winograd_min_channels (0: no Winograd) */
  int64_t spatial_pack;    /* 1: NCHW4c spatial-pack convolutions */
  char *description;
  tvm_plugin_scope scopes[6];
  tvm_plugin_target_info info;
};

/* What NVRTC made of one source. */
typedef struct cuda_compiled {
  char *ptx;               /* NUL-terminated, malloc'd */
  uint8_t *cubin;          /* malloc'd */
  size_t cubin_size;
  char *log;               /* NVRTC + ptxas -v log, malloc'd */
} cuda_compiled;

/* Compiles src for sm_<arch> (cubin) and keeps its PTX; TVM_ERR_UNAVAILABLE
 * when no libnvrtc can be opened, TVM_ERR_INVALID with the log when the
 * source does not compile. */
int32_t cuda_nvrtc_compile(const char *src, int64_t arch, cuda_compiled *out);
void cuda_compiled_free(cuda_compiled *c);
/* Registers and spill bytes of kernel name from a ptxas -v log (-1 when
 * absent). */
void cuda_resource_usage(const char *log, const char *name, int *regs,
                         int *spill_bytes);

const tvm_host_api *cuda_host(void);
void *cuda_host_alloc(uint64_t n);

/* strategy_matmul.c: the 2-d MatMul template (knobs tile_block,
 * tile_thread, tile_k). */
struct tvm_config;
int32_t cuda_schedule_matmul(tvm_plugin_target *t, tvm_schedule *s,
                             tvm_tensor **outs, uint32_t nouts,
                             struct tvm_config *cfg);

/* wmma_intrin.c: tensor-core intrinsics (16x16x16 fragments) and the
 * device helpers their extern calls name. */
#define WMMA_FRAG 16
#define TVM_BF16 tvm_dt(kDLBfloat, 16, 1)
extern const char *const cuda_extern_names[];
extern const char cuda_wmma_prelude[];
extern const tvm_plugin_intrin cuda_intrins[];
extern const uint32_t cuda_nintrins;
/* The intrinsic name: the host's declaration from call, else declared in
 * c here. */
int32_t cuda_wmma_intrin(tvm_plugin_target *t, tvm_ctx *c,
                         const tvm_plugin_strategy_call *call,
                         const char *name, tvm_tensor_intrin **out);

/* strategy_wmma.c: the tensor-core MatMul template (float16/bfloat16
 * operands, float32 accumulation; knobs tile_bm, tile_bn, warp_m, warp_n,
 * tile_k).  _loops: the same tiling as plain loops in "local" memory,
 * without tensorize (for checking the tiling numerically on the host). */
int32_t cuda_schedule_wmma(tvm_plugin_target *t,
                           const tvm_plugin_strategy_call *call,
                           tvm_schedule *s, tvm_tensor **outs, uint32_t nouts,
                           struct tvm_config *cfg);
int32_t cuda_schedule_wmma_plain(tvm_plugin_target *t, tvm_schedule *s,
                                 tvm_tensor **outs, uint32_t nouts,
                                 struct tvm_config *cfg);
int32_t cuda_schedule_wmma_loops(tvm_plugin_target *t, tvm_schedule *s,
                                 tvm_tensor **outs, uint32_t nouts,
                                 struct tvm_config *cfg);

/* runtime.c */
int32_t cuda_probe(tvm_plugin_target *t);
int32_t cuda_device_open(tvm_plugin_target *t, tvm_plugin_device **out);
void cuda_device_close(tvm_plugin_device *d);
int32_t cuda_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                       uint64_t align, void **out);
void cuda_mem_free(tvm_plugin_device *d, uint32_t scope, void *p);
int32_t cuda_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                  const void *src, uint64_t src_offset, uint64_t nbytes,
                  uint32_t kind);
int32_t cuda_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                         tvm_plugin_module **out);
void cuda_module_unload(tvm_plugin_module *m);
int32_t cuda_func_get(tvm_plugin_module *m, const char *name,
                      tvm_plugin_func **out);
int32_t cuda_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                    const tvm_plugin_arg *args, uint32_t nargs,
                    const uint32_t grid[3], const uint32_t block[3]);
int32_t cuda_sync(tvm_plugin_device *d);
int32_t cuda_timer_start(tvm_plugin_device *d, uint64_t *token);
int32_t cuda_timer_stop(tvm_plugin_device *d, uint64_t token,
                        double *elapsed_ms);

#endif /* TVM_CUDA_PLUGIN_H */
