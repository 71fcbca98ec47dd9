/*
 * plugins/vulkan/vulkan_int.h - what the vulkan plugin's files share: the
 * target, the blob format, the code generator and the runtime.
 *
 * Blob (TVM_BLOB_SPIRV, little-endian 32-bit words): "TVK3" magic word,
 * the kernel count, then per kernel: name length and name bytes (padded
 * to a word), parameter count, per parameter its kind (VK_PARAM_*) and
 * bits, the bytes of its scalar block, where that block lives (0: push
 * constants, 1: a uniform buffer), the three local sizes, the number of
 * variants (1, or 2 when the first uses subgroup operations and the
 * second is the same kernel without them), and per variant what it needs
 * of the device (a mask of spirv.h's SPV_F_*), its SPIR-V word count and
 * the words.  Each kernel is its own SPIR-V module with one GLCompute
 * entry point "main": buffers are storage buffers in descriptor set 0,
 * binding = their order among the buffer parameters; scalars are members
 * of one block in parameter order, 8 bytes each: a push-constant block
 * when it fits the 128 bytes every device has (16 scalars), else a
 * uniform buffer at the binding after the last storage buffer, filled
 * per launch from a host-visible ring (runtime.c).
 */
#ifndef VULKAN_INT_H
#define VULKAN_INT_H

#include <stdint.h>

#include "tvm/plugin.h"

#define VK_BLOB_MAGIC 0x334b5654u /* "TVK3" */
#define VK_PUSH_MAX 128           /* push-constant bytes Vulkan guarantees */
#define VK_MAX_PARAMS 256         /* parameters of one kernel */
/* scalar bytes of a uniform-buffer block: every scalar of a kernel with
 * VK_MAX_PARAMS parameters (Vulkan guarantees 16 KiB of uniform range) */
#define VK_UBO_MAX (8 * VK_MAX_PARAMS)

enum { VK_PARAM_BUFFER = 0, VK_PARAM_INT = 1, VK_PARAM_FLOAT = 2 };

extern const tvm_host_api *vk_host;

/* Formats a message, reports it through the host, returns status. */
int32_t vk_fail(int32_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct tvm_plugin_target {
  uint32_t device_index;
  uint32_t max_threads;   /* per workgroup */
  uint32_t shared_bytes;  /* workgroup memory */
  uint32_t int64;         /* may kernels use 64-bit integers */
  uint32_t float64;
  uint32_t int8, int16, float16; /* may kernels use 8/16-bit types */
  uint32_t push_descriptors; /* use VK_KHR_push_descriptor when present */
  uint32_t subgroups;        /* reductions may use subgroup operations */
  char description[160];
  tvm_plugin_target_info info;
};

/* Device functions of m -> blob (codegen.c). */
int32_t vk_codegen(tvm_plugin_target *t, const tvm_module *m,
                   tvm_plugin_blob *out);

/* One SPIR-V module of a kernel and what it needs of the device. */
typedef struct vk_variant {
  uint32_t features;     /* SPV_F_* */
  const uint32_t *words; /* into the module's copy of the blob */
  uint32_t nwords;
} vk_variant;

/* One kernel read back from a blob (runtime side). */
typedef struct vk_kernel_desc {
  char *name;
  uint32_t nparams;
  uint32_t *kinds, *bits;
  uint32_t push_bytes;  /* bytes of the scalar block */
  uint32_t scalars_ubo; /* the block is a uniform buffer, not push constants */
  uint32_t local[3];
  uint32_t nvariants; /* 1, or 2: with subgroup operations, then without */
  vk_variant variants[2];
} vk_kernel_desc;

/* Parses a blob into kernels (copies what it keeps). */
int32_t vk_blob_parse(const tvm_plugin_blob *b, uint32_t **copy,
                      vk_kernel_desc **kernels, uint32_t *n);
void vk_kernels_free(uint32_t *copy, vk_kernel_desc *k, uint32_t n);

/* Runtime (runtime.c). */
int32_t vk_probe(tvm_plugin_target *t);
int32_t vk_device_open(tvm_plugin_target *t, tvm_plugin_device **out);
void vk_device_close(tvm_plugin_device *d);
int32_t vk_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                     uint64_t align, void **out);
void vk_mem_free(tvm_plugin_device *d, uint32_t scope, void *p);
int32_t vk_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                const void *src, uint64_t src_offset, uint64_t nbytes,
                uint32_t kind);
int32_t vk_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                       tvm_plugin_module **out);
void vk_module_unload(tvm_plugin_module *m);
int32_t vk_func_get(tvm_plugin_module *m, const char *name,
                    tvm_plugin_func **out);
int32_t vk_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                  const tvm_plugin_arg *args, uint32_t nargs,
                  const uint32_t grid[3], const uint32_t block[3]);
int32_t vk_sync(tvm_plugin_device *d);
int32_t vk_timer_start(tvm_plugin_device *d, uint64_t *token);
int32_t vk_timer_stop(tvm_plugin_device *d, uint64_t token, double *ms);

#endif /* VULKAN_INT_H */
