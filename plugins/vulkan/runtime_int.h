/*
 * plugins/vulkan/runtime_int.h - what the run-time files of the vulkan
 * plugin share (device.c: the loader, instance, device and its features;
 * runtime.c: memory, modules, launches and timers): the entry points
 * resolved from libvulkan.so.1, the device, buffer, function and module
 * structures.
 */
#ifndef VULKAN_RUNTIME_INT_H
#define VULKAN_RUNTIME_INT_H

#include <stddef.h>
#include <stdint.h>

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "spirv.h"
#include "vulkan_int.h"

/* Every entry point the plugin uses. */
#define VK_GLOBAL_FNS(X) X(vkCreateInstance) X(vkEnumerateInstanceVersion)
#define VK_INSTANCE_FNS(X)                                                   \
  X(vkDestroyInstance) X(vkEnumeratePhysicalDevices)                         \
  X(vkGetPhysicalDeviceProperties) X(vkGetPhysicalDeviceFeatures)            \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                \
  X(vkGetPhysicalDeviceMemoryProperties) X(vkCreateDevice)                   \
  X(vkGetDeviceProcAddr) X(vkGetPhysicalDeviceFeatures2)                     \
  X(vkGetPhysicalDeviceProperties2) X(vkEnumerateDeviceExtensionProperties)
#define VK_DEVICE_FNS(X)                                                     \
  X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkCreateBuffer)                   \
  X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory)    \
  X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory)      \
  X(vkCreateShaderModule) X(vkDestroyShaderModule)                           \
  X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout)             \
  X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout)                       \
  X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreatePipelineCache)  \
  X(vkDestroyPipelineCache) X(vkCreateDescriptorPool)                        \
  X(vkDestroyDescriptorPool) X(vkResetDescriptorPool)                        \
  X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets)                      \
  X(vkCreateCommandPool) X(vkDestroyCommandPool)                             \
  X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer)  \
  X(vkResetCommandBuffer) X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets)    \
  X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdPipelineBarrier)             \
  X(vkCmdCopyBuffer) X(vkQueueSubmit) X(vkCreateFence) X(vkDestroyFence)     \
  X(vkWaitForFences) X(vkResetFences) X(vkCreateQueryPool)                   \
  X(vkDestroyQueryPool) X(vkCmdWriteTimestamp) X(vkCmdResetQueryPool)        \
  X(vkGetQueryPoolResults)

#define DECL(f) PFN_##f f;
typedef struct vkfns {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
  VK_GLOBAL_FNS(DECL) VK_INSTANCE_FNS(DECL) VK_DEVICE_FNS(DECL)
  PFN_vkCmdPushDescriptorSetKHR vkCmdPushDescriptorSetKHR; /* when enabled */
} vkfns;
#undef DECL

#define SETS_PER_POOL 1024
#define UBO_RING_BYTES (64u << 10)
#define QUERIES 64

struct tvm_plugin_device {
  tvm_plugin_target *t;
  void *lib;
  vkfns f;
  VkInstance inst;
  VkPhysicalDevice phys;
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceMemoryProperties mem;
  VkDevice dev;
  VkQueue queue;
  uint32_t family;
  VkCommandPool cpool;
  VkCommandBuffer cmd;
  int recording;
  VkFence fence;
  VkDescriptorPool dpool;
  uint32_t sets_used;
  VkPipelineCache cache;
  VkQueryPool queries;
  uint32_t next_query;
  int has_timestamps;
  uint32_t feats;     /* SPV_F_* the device has and were enabled */
  uint32_t max_push;  /* push descriptors per set; 0 = descriptor sets */
  uint32_t subgroup_size;
  /* Scalar blocks of kernels whose scalars passed push constants: a
   * host-visible uniform buffer (made on first use) filled launch by
   * launch from ubo_used; the launches recorded so far read it, so it
   * starts over only after vk_sync has waited for them. */
  struct vkbuf *ubo;
  uint64_t ubo_used;
};

/* Releases the scalar uniform-buffer ring (runtime.c). */
void vk_ubo_ring_free(tvm_plugin_device *d);

/* A device buffer (what kernels get as TVM_ARG_PTR). */
typedef struct vkbuf {
  VkBuffer buf;
  VkDeviceMemory mem;
  uint64_t size;
  void *map; /* non-NULL when host-visible */
} vkbuf;

struct tvm_plugin_func {
  tvm_plugin_module *m;
  vk_kernel_desc *k;
  const vk_variant *v; /* the variant this device runs */
  VkShaderModule shader;
  VkDescriptorSetLayout dsl;
  VkPipelineLayout layout;
  VkPipeline pipe;
  uint32_t nbufs;
  int push; /* buffers bound by vkCmdPushDescriptorSetKHR */
};

struct tvm_plugin_module {
  tvm_plugin_device *d;
  uint32_t *copy;
  vk_kernel_desc *kernels;
  tvm_plugin_func *funcs;
  uint32_t n;
};

/* A VkResult in words (device.c). */
const char *vk_result(VkResult r);

#define VKCHECK(call, what)                                                  \
  do {                                                                       \
    VkResult vr_ = (call);                                                   \
    if (vr_ != VK_SUCCESS)                                                   \
      return vk_fail(vr_ == VK_ERROR_OUT_OF_DEVICE_MEMORY ||                 \
                             vr_ == VK_ERROR_OUT_OF_HOST_MEMORY              \
                         ? TVM_ERR_NOMEM                                     \
                         : TVM_ERR_UNAVAILABLE,                              \
                     "vulkan: %s failed: %s (VkResult %d)", what,            \
                     vk_result(vr_), (int)vr_);                              \
  } while (0)

/* The Vulkan names of the SPV_F_* bits in mask, comma-separated
 * (device.c). */
void vk_feature_names(uint32_t mask, char *buf, size_t n);

#endif /* VULKAN_RUNTIME_INT_H */
