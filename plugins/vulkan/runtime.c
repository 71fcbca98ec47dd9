/*
 * plugins/vulkan/runtime.c - the run-time half of the vulkan plugin.
 *
 * libvulkan.so.1 is dlopen'd (never linked) and every entry point is
 * resolved through vkGetInstanceProcAddr / vkGetDeviceProcAddr.  A device
 * is an instance, the physical device the target's device_index names, a
 * logical device with one compute queue (shaderInt64 / shaderFloat64
 * enabled when the target uses them and the device has them), a command
 * pool, a descriptor pool, a pipeline cache and a timestamp query pool.
 *
 * Memory: a buffer lives in memory that is device-local when the device
 * has such memory; when that memory is also host-visible (integrated GPUs,
 * lavapipe) copies map it, otherwise they go through a host-visible
 * staging buffer and a transfer on the queue.
 *
 * Launches are recorded into one command buffer (pipeline, a descriptor
 * set of the buffers, push constants, dispatch, then a compute-to-compute
 * memory barrier) and submitted together at sync, so a whole model run is
 * one submission.  Copies and timers sync first.  Device handles passed
 * to kernels are this file's vkbuf structs.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
};

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

static const char *vk_result(VkResult r) {
  switch (r) {
  case VK_ERROR_OUT_OF_HOST_MEMORY: return "out of host memory";
  case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "out of device memory";
  case VK_ERROR_INITIALIZATION_FAILED: return "initialization failed";
  case VK_ERROR_DEVICE_LOST: return "device lost";
  case VK_ERROR_INCOMPATIBLE_DRIVER: return "incompatible driver";
  case VK_ERROR_FEATURE_NOT_PRESENT: return "feature not present";
  case VK_ERROR_TOO_MANY_OBJECTS: return "too many objects";
  case VK_ERROR_OUT_OF_POOL_MEMORY: return "out of pool memory";
  default: return "error";
  }
}

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

/* ---- loading ------------------------------------------------------------- */

/* Opens the loader and creates an instance and a device handle set. */
static int32_t open_instance(tvm_plugin_device *d) {
  d->lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!d->lib)
    return vk_fail(TVM_ERR_UNAVAILABLE,
                   "vulkan: the Vulkan loader libvulkan.so.1 is not "
                   "installed (apt-get install libvulkan1, plus a driver: "
                   "mesa-vulkan-drivers for the CPU driver lavapipe)");
  *(void **)&d->f.vkGetInstanceProcAddr =
      dlsym(d->lib, "vkGetInstanceProcAddr");
  if (!d->f.vkGetInstanceProcAddr)
    return vk_fail(TVM_ERR_UNAVAILABLE, "vulkan: libvulkan.so.1 has no "
                                        "vkGetInstanceProcAddr");
#define LOADG(fn) d->f.fn = (PFN_##fn)d->f.vkGetInstanceProcAddr(NULL, #fn);
  VK_GLOBAL_FNS(LOADG)
#undef LOADG
  if (!d->f.vkCreateInstance)
    return vk_fail(TVM_ERR_UNAVAILABLE, "vulkan: the loader offers no "
                                        "vkCreateInstance");
  uint32_t api = VK_API_VERSION_1_0;
  if (d->f.vkEnumerateInstanceVersion) d->f.vkEnumerateInstanceVersion(&api);
  if (api < VK_API_VERSION_1_1)
    return vk_fail(TVM_ERR_UNAVAILABLE, "vulkan: the loader speaks Vulkan "
                                        "%u.%u; SPIR-V 1.3 kernels need 1.1",
                   VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "tvm-c",
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                              .pApplicationInfo = &app};
  VKCHECK(d->f.vkCreateInstance(&ici, NULL, &d->inst), "vkCreateInstance");
#define LOADI(fn) d->f.fn = (PFN_##fn)d->f.vkGetInstanceProcAddr(d->inst, #fn);
  VK_INSTANCE_FNS(LOADI)
#undef LOADI
  uint32_t n = 0;
  d->f.vkEnumeratePhysicalDevices(d->inst, &n, NULL);
  if (n == 0)
    return vk_fail(TVM_ERR_UNAVAILABLE,
                   "vulkan: no Vulkan device: install a driver "
                   "(mesa-vulkan-drivers gives the CPU driver lavapipe) or "
                   "point VK_DRIVER_FILES at an ICD json");
  if (d->t->device_index >= n)
    return vk_fail(TVM_ERR_UNAVAILABLE,
                   "vulkan: attrs.device_index is %u but this machine has "
                   "%u Vulkan device(s)",
                   d->t->device_index, n);
  VkPhysicalDevice *all = calloc(n, sizeof *all);
  if (!all) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  d->f.vkEnumeratePhysicalDevices(d->inst, &n, all);
  d->phys = all[d->t->device_index];
  free(all);
  d->f.vkGetPhysicalDeviceProperties(d->phys, &d->props);
  d->f.vkGetPhysicalDeviceMemoryProperties(d->phys, &d->mem);
  return 0;
}

static void close_device(tvm_plugin_device *d) {
  if (d->dev) {
    if (d->queries) d->f.vkDestroyQueryPool(d->dev, d->queries, NULL);
    if (d->cache) d->f.vkDestroyPipelineCache(d->dev, d->cache, NULL);
    if (d->dpool) d->f.vkDestroyDescriptorPool(d->dev, d->dpool, NULL);
    if (d->fence) d->f.vkDestroyFence(d->dev, d->fence, NULL);
    if (d->cpool) d->f.vkDestroyCommandPool(d->dev, d->cpool, NULL);
    d->f.vkDestroyDevice(d->dev, NULL);
  }
  if (d->inst) d->f.vkDestroyInstance(d->inst, NULL);
  if (d->lib) dlclose(d->lib);
  free(d);
}

int32_t vk_probe(tvm_plugin_target *t) {
  tvm_plugin_device *d = calloc(1, sizeof *d);
  if (!d) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  d->t = t;
  int32_t rc = open_instance(d);
  close_device(d);
  return rc;
}

/* ---- device features ------------------------------------------------------ */

/* The Vulkan names of the SPV_F_* bits in mask, comma-separated. */
static void feature_names(uint32_t mask, char *buf, size_t n) {
  static const struct { uint32_t f; const char *name; } names[] = {
      {SPV_F_INT64, "shaderInt64"},
      {SPV_F_FLOAT64, "shaderFloat64"},
      {SPV_F_INT8, "shaderInt8 (VK_KHR_shader_float16_int8)"},
      {SPV_F_INT16, "shaderInt16"},
      {SPV_F_FLOAT16, "shaderFloat16 (VK_KHR_shader_float16_int8)"},
      {SPV_F_STORAGE8, "storageBuffer8BitAccess (VK_KHR_8bit_storage)"},
      {SPV_F_STORAGE16, "storageBuffer16BitAccess"},
      {SPV_F_SUBGROUP, "subgroup arithmetic in compute"},
  };
  size_t at = 0;
  buf[0] = 0;
  for (size_t i = 0; i < sizeof names / sizeof *names && at < n; i++)
    if (mask & names[i].f)
      at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ", " : "",
                             names[i].name);
}

/* What the device offers beyond Vulkan 1.0's features, and the chain
 * and extensions that enable it (vkfeats lives on create_device's
 * stack while the device is made). */
typedef struct vkfeats {
  VkPhysicalDevice16BitStorageFeatures s16;
  VkPhysicalDevice8BitStorageFeaturesKHR s8;
  VkPhysicalDeviceShaderFloat16Int8FeaturesKHR fi;
  int has8, hasfi, haspush;
  void *chain;
  const char *exts[4];
  uint32_t next;
} vkfeats;

/* Does the environment variable TVM_VULKAN_HIDE (a comma-separated list
 * of Vulkan feature or extension names) pretend that name is absent?
 * For tests of the refusals and of the descriptor-set path on devices
 * that have everything. */
static int hidden(const char *name) {
  const char *h = getenv("TVM_VULKAN_HIDE");
  size_t n = strlen(name);
  for (const char *p = h; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, name, n)) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

/* Queries the 8/16-bit features (vkGetPhysicalDeviceFeatures2 with the
 * KHR structures, which Vulkan 1.2 made core) and the extensions. */
static int32_t query_features(tvm_plugin_device *d, vkfeats *v) {
  memset(v, 0, sizeof *v);
  uint32_t n = 0;
  VKCHECK(d->f.vkEnumerateDeviceExtensionProperties(d->phys, NULL, &n, NULL),
          "vkEnumerateDeviceExtensionProperties");
  VkExtensionProperties *ext = calloc(n ? n : 1, sizeof *ext);
  if (!ext) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  d->f.vkEnumerateDeviceExtensionProperties(d->phys, NULL, &n, ext);
  for (uint32_t i = 0; i < n; i++) {
    const char *e = ext[i].extensionName;
    if (hidden(e)) continue;
    if (!strcmp(e, VK_KHR_8BIT_STORAGE_EXTENSION_NAME)) v->has8 = 1;
    if (!strcmp(e, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME)) v->hasfi = 1;
    if (!strcmp(e, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) v->haspush = 1;
  }
  free(ext);
  v->s16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  v->s8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES_KHR;
  v->fi.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR;
  void *chain = &v->s16;
  if (v->has8) v->s8.pNext = chain, chain = &v->s8;
  if (v->hasfi) v->fi.pNext = chain, chain = &v->fi;
  VkPhysicalDeviceFeatures2 f2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = chain};
  d->f.vkGetPhysicalDeviceFeatures2(d->phys, &f2);
  v->chain = chain;
  return 0;
}

/* Keeps, in v's structures and want, only the features the target
 * allows and the device has (and TVM_VULKAN_HIDE does not hide), records
 * them in d->feats, and lists the extensions they need. */
static void enable_features(tvm_plugin_device *d, vkfeats *v,
                            const VkPhysicalDeviceFeatures *have,
                            VkPhysicalDeviceFeatures *want) {
  const tvm_plugin_target *t = d->t;
  uint32_t f = 0;
  if (want->shaderInt64) f |= SPV_F_INT64;
  if (want->shaderFloat64) f |= SPV_F_FLOAT64;
#define KEEP(cond, field, name) (field = (cond) && field && !hidden(name))
  if (KEEP(t->int8 && v->hasfi, v->fi.shaderInt8, "shaderInt8"))
    f |= SPV_F_INT8;
  if (KEEP(t->float16 && v->hasfi, v->fi.shaderFloat16, "shaderFloat16"))
    f |= SPV_F_FLOAT16;
  if (KEEP(t->int8 && v->has8, v->s8.storageBuffer8BitAccess,
           "storageBuffer8BitAccess"))
    f |= SPV_F_STORAGE8;
  if (KEEP(t->int16 || t->float16, v->s16.storageBuffer16BitAccess,
           "storageBuffer16BitAccess"))
    f |= SPV_F_STORAGE16;
#undef KEEP
  if (t->int16 && have->shaderInt16 && !hidden("shaderInt16")) {
    want->shaderInt16 = VK_TRUE;
    f |= SPV_F_INT16;
  }
  /* only what is enabled; the rest of each structure stays off */
  v->fi.shaderFloat16 = v->fi.shaderFloat16 ? VK_TRUE : VK_FALSE;
  v->s8.uniformAndStorageBuffer8BitAccess = VK_FALSE;
  v->s8.storagePushConstant8 = VK_FALSE;
  v->s16.uniformAndStorageBuffer16BitAccess = VK_FALSE;
  v->s16.storagePushConstant16 = VK_FALSE;
  v->s16.storageInputOutput16 = VK_FALSE;
  /* the creation chain: 16-bit storage (core 1.1), then the structures
   * of the extensions enabled, and no others */
  v->s16.pNext = NULL;
  v->chain = &v->s16;
  if (v->hasfi && (f & (SPV_F_INT8 | SPV_F_FLOAT16))) {
    v->exts[v->next++] = VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME;
    v->fi.pNext = v->chain;
    v->chain = &v->fi;
  }
  if (v->has8 && (f & SPV_F_STORAGE8)) {
    v->exts[v->next++] = VK_KHR_8BIT_STORAGE_EXTENSION_NAME;
    v->s8.pNext = v->chain;
    v->chain = &v->s8;
  }
  /* subgroup arithmetic (and elect: basic) in compute shaders */
  VkPhysicalDeviceSubgroupProperties sp = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 sp2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sp};
  d->f.vkGetPhysicalDeviceProperties2(d->phys, &sp2);
  const VkSubgroupFeatureFlags need =
      VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  if ((sp.supportedOperations & need) == need &&
      (sp.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
      !hidden("subgroupArithmetic"))
    f |= SPV_F_SUBGROUP;
  d->subgroup_size = sp.subgroupSize;
  d->max_push = 0;
  if (v->haspush && t->push_descriptors) {
    VkPhysicalDevicePushDescriptorPropertiesKHR pp = {
        .sType =
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR};
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &pp};
    d->f.vkGetPhysicalDeviceProperties2(d->phys, &p2);
    d->max_push = pp.maxPushDescriptors;
    if (d->max_push)
      v->exts[v->next++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
  }
  d->feats = f;
}

static int32_t create_device(tvm_plugin_device *d) {
  uint32_t nf = 0;
  d->f.vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &nf, NULL);
  VkQueueFamilyProperties *fam = calloc(nf ? nf : 1, sizeof *fam);
  if (!fam) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  d->f.vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &nf, fam);
  d->family = UINT32_MAX;
  for (uint32_t i = 0; i < nf && d->family == UINT32_MAX; i++)
    if (fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      d->family = i;
      d->has_timestamps = fam[i].timestampValidBits > 0;
    }
  free(fam);
  if (d->family == UINT32_MAX)
    return vk_fail(TVM_ERR_UNAVAILABLE, "vulkan: device '%s' has no "
                                        "compute queue",
                   d->props.deviceName);
  VkPhysicalDeviceFeatures have, want;
  memset(&want, 0, sizeof want);
  d->f.vkGetPhysicalDeviceFeatures(d->phys, &have);
  /* 64-bit types like the others: enabled when the target allows them
   * and the device has them; a kernel that needs a missing one is refused
   * when its module is loaded */
  want.shaderInt64 = d->t->int64 && have.shaderInt64 && !hidden("shaderInt64");
  want.shaderFloat64 =
      d->t->float64 && have.shaderFloat64 && !hidden("shaderFloat64");
  vkfeats vf;
  int32_t rc = query_features(d, &vf);
  if (rc) return rc;
  enable_features(d, &vf, &have, &want);
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = d->family, .queueCount = 1,
      .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                            .pNext = vf.chain,
                            .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci,
                            .enabledExtensionCount = vf.next,
                            .ppEnabledExtensionNames = vf.exts,
                            .pEnabledFeatures = &want};
  VKCHECK(d->f.vkCreateDevice(d->phys, &dci, NULL, &d->dev), "vkCreateDevice");
#define LOADD(fn) d->f.fn = (PFN_##fn)d->f.vkGetDeviceProcAddr(d->dev, #fn);
  VK_DEVICE_FNS(LOADD)
#undef LOADD
  if (d->max_push)
    d->f.vkCmdPushDescriptorSetKHR = (PFN_vkCmdPushDescriptorSetKHR)
        d->f.vkGetDeviceProcAddr(d->dev, "vkCmdPushDescriptorSetKHR");
  if (!d->f.vkCmdPushDescriptorSetKHR) d->max_push = 0;
  char what[256];
  feature_names(d->feats, what, sizeof what);
  char line[1024];
  snprintf(line, sizeof line,
           "vulkan: device '%s': buffers bound with %s; subgroups of %u; "
           "features: %s",
           d->props.deviceName,
           d->max_push ? "push descriptors (VK_KHR_push_descriptor)"
                       : "descriptor sets",
           d->subgroup_size, what[0] ? what : "none beyond 32-bit types");
  vk_host->log(TVM_LOG_DEBUG, line);
  d->f.vkGetDeviceQueue(d->dev, d->family, 0, &d->queue);
  VkCommandPoolCreateInfo cpi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = d->family};
  VKCHECK(d->f.vkCreateCommandPool(d->dev, &cpi, NULL, &d->cpool),
          "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = d->cpool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1};
  VKCHECK(d->f.vkAllocateCommandBuffers(d->dev, &cai, &d->cmd),
          "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VKCHECK(d->f.vkCreateFence(d->dev, &fci, NULL, &d->fence), "vkCreateFence");
  VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                             SETS_PER_POOL * 16};
  VkDescriptorPoolCreateInfo dpi = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .maxSets = SETS_PER_POOL, .poolSizeCount = 1, .pPoolSizes = &ps};
  VKCHECK(d->f.vkCreateDescriptorPool(d->dev, &dpi, NULL, &d->dpool),
          "vkCreateDescriptorPool");
  VkPipelineCacheCreateInfo pci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  VKCHECK(d->f.vkCreatePipelineCache(d->dev, &pci, NULL, &d->cache),
          "vkCreatePipelineCache");
  if (d->has_timestamps) {
    VkQueryPoolCreateInfo qpi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = QUERIES};
    VKCHECK(d->f.vkCreateQueryPool(d->dev, &qpi, NULL, &d->queries),
            "vkCreateQueryPool");
  }
  return 0;
}

int32_t vk_device_open(tvm_plugin_target *t, tvm_plugin_device **out) {
  tvm_plugin_device *d = calloc(1, sizeof *d);
  if (!d) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  d->t = t;
  int32_t rc = open_instance(d);
  if (!rc) rc = create_device(d);
  if (rc) {
    close_device(d);
    return rc;
  }
  *out = d;
  return 0;
}

void vk_device_close(tvm_plugin_device *d) {
  if (!d) return;
  vk_sync(d);
  close_device(d);
}

/* ---- commands ------------------------------------------------------------- */

static int32_t begin(tvm_plugin_device *d) {
  if (d->recording) return 0;
  VkCommandBufferBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VKCHECK(d->f.vkBeginCommandBuffer(d->cmd, &bi), "vkBeginCommandBuffer");
  d->recording = 1;
  return 0;
}

/* Submits what was recorded and waits for it. */
int32_t vk_sync(tvm_plugin_device *d) {
  if (!d->recording) return 0;
  d->recording = 0;
  VKCHECK(d->f.vkEndCommandBuffer(d->cmd), "vkEndCommandBuffer");
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                     .commandBufferCount = 1, .pCommandBuffers = &d->cmd};
  VKCHECK(d->f.vkQueueSubmit(d->queue, 1, &si, d->fence), "vkQueueSubmit");
  VKCHECK(d->f.vkWaitForFences(d->dev, 1, &d->fence, VK_TRUE, UINT64_MAX),
          "vkWaitForFences");
  VKCHECK(d->f.vkResetFences(d->dev, 1, &d->fence), "vkResetFences");
  VKCHECK(d->f.vkResetCommandBuffer(d->cmd, 0), "vkResetCommandBuffer");
  VKCHECK(d->f.vkResetDescriptorPool(d->dev, d->dpool, 0),
          "vkResetDescriptorPool");
  d->sets_used = 0;
  return 0;
}

/* ---- memory ----------------------------------------------------------------- */

/* A memory type allowed by bits with all of want (and, if possible, all
 * of prefer); UINT32_MAX when none. */
static uint32_t mem_type(const tvm_plugin_device *d, uint32_t bits,
                         VkMemoryPropertyFlags want,
                         VkMemoryPropertyFlags prefer) {
  uint32_t fallback = UINT32_MAX;
  for (uint32_t i = 0; i < d->mem.memoryTypeCount; i++) {
    if (!(bits & (1u << i))) continue;
    VkMemoryPropertyFlags f = d->mem.memoryTypes[i].propertyFlags;
    if ((f & want) != want) continue;
    if ((f & prefer) == prefer) return i;
    if (fallback == UINT32_MAX) fallback = i;
  }
  return fallback;
}

/* Creates a buffer in memory with the wanted properties. */
static int32_t make_buffer(tvm_plugin_device *d, uint64_t nbytes,
                           VkMemoryPropertyFlags want,
                           VkMemoryPropertyFlags prefer, vkbuf *b) {
  memset(b, 0, sizeof *b);
  b->size = nbytes;
  VkBufferCreateInfo bci = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = nbytes,
      .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VKCHECK(d->f.vkCreateBuffer(d->dev, &bci, NULL, &b->buf), "vkCreateBuffer");
  VkMemoryRequirements req;
  d->f.vkGetBufferMemoryRequirements(d->dev, b->buf, &req);
  uint32_t ti = mem_type(d, req.memoryTypeBits, want, prefer);
  if (ti == UINT32_MAX) {
    d->f.vkDestroyBuffer(d->dev, b->buf, NULL);
    return vk_fail(TVM_ERR_UNAVAILABLE, "vulkan: device '%s' has no memory "
                                        "type for a %llu-byte buffer",
                   d->props.deviceName, (unsigned long long)nbytes);
  }
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                              .allocationSize = req.size,
                              .memoryTypeIndex = ti};
  VkResult r = d->f.vkAllocateMemory(d->dev, &mai, NULL, &b->mem);
  if (r != VK_SUCCESS) {
    d->f.vkDestroyBuffer(d->dev, b->buf, NULL);
    return vk_fail(TVM_ERR_NOMEM, "vulkan: allocating %llu bytes of device "
                                  "memory failed: %s",
                   (unsigned long long)nbytes, vk_result(r));
  }
  VKCHECK(d->f.vkBindBufferMemory(d->dev, b->buf, b->mem, 0),
          "vkBindBufferMemory");
  VkMemoryPropertyFlags got = d->mem.memoryTypes[ti].propertyFlags;
  if ((got & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
      (got & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
    VKCHECK(d->f.vkMapMemory(d->dev, b->mem, 0, VK_WHOLE_SIZE, 0, &b->map),
            "vkMapMemory");
  return 0;
}

static void drop_buffer(tvm_plugin_device *d, vkbuf *b) {
  if (b->map) d->f.vkUnmapMemory(d->dev, b->mem);
  d->f.vkDestroyBuffer(d->dev, b->buf, NULL);
  d->f.vkFreeMemory(d->dev, b->mem, NULL);
}

int32_t vk_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                     uint64_t align, void **out) {
  if (scope != 0)
    return vk_fail(TVM_ERR_INVALID, "vulkan: memory scope %u cannot be "
                                    "allocated from the host",
                   scope);
  vkbuf *b = calloc(1, sizeof *b);
  if (!b) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  int32_t rc = make_buffer(d, nbytes ? nbytes : 4,
                           VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                               VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                           b);
  if (rc == TVM_ERR_UNAVAILABLE) /* no device-local type: any will do */
    rc = make_buffer(d, nbytes ? nbytes : 4, 0, 0, b);
  if (rc) {
    free(b);
    return rc;
  }
  *out = b;
  return 0;
}

void vk_mem_free(tvm_plugin_device *d, uint32_t scope, void *p) {
  if (!p) return;
  vk_sync(d);
  drop_buffer(d, p);
  free(p);
}

/* Copies through a host-visible staging buffer and a transfer. */
static int32_t staged(tvm_plugin_device *d, vkbuf *dev, uint64_t off,
                      void *host, uint64_t nbytes, int to_device) {
  vkbuf st;
  int32_t rc = make_buffer(d, nbytes,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                               VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                           0, &st);
  if (rc) return rc;
  if (to_device) memcpy(st.map, host, nbytes);
  if (!(rc = begin(d))) {
    VkBufferCopy region = {to_device ? 0 : off, to_device ? off : 0, nbytes};
    d->f.vkCmdCopyBuffer(d->cmd, to_device ? st.buf : dev->buf,
                         to_device ? dev->buf : st.buf, 1, &region);
    rc = vk_sync(d);
  }
  if (!rc && !to_device) memcpy(host, st.map, nbytes);
  drop_buffer(d, &st);
  return rc;
}

int32_t vk_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                const void *src, uint64_t src_offset, uint64_t nbytes,
                uint32_t kind) {
  int32_t rc = vk_sync(d);
  if (rc || !nbytes) return rc;
  if (kind == TVM_COPY_HOST_TO_DEVICE) {
    vkbuf *b = dst;
    if (dst_offset + nbytes > b->size)
      return vk_fail(TVM_ERR_INVALID, "vulkan: copy of %llu bytes at %llu "
                                      "past a %llu-byte buffer",
                     (unsigned long long)nbytes,
                     (unsigned long long)dst_offset,
                     (unsigned long long)b->size);
    if (b->map) {
      memcpy((char *)b->map + dst_offset, (const char *)src + src_offset,
             nbytes);
      return 0;
    }
    return staged(d, b, dst_offset, (char *)src + src_offset, nbytes, 1);
  }
  if (kind == TVM_COPY_DEVICE_TO_HOST) {
    const vkbuf *b = src;
    if (src_offset + nbytes > b->size)
      return vk_fail(TVM_ERR_INVALID, "vulkan: copy of %llu bytes at %llu "
                                      "past a %llu-byte buffer",
                     (unsigned long long)nbytes,
                     (unsigned long long)src_offset,
                     (unsigned long long)b->size);
    if (b->map) {
      memcpy((char *)dst + dst_offset, (const char *)b->map + src_offset,
             nbytes);
      return 0;
    }
    return staged(d, (vkbuf *)b, src_offset, (char *)dst + dst_offset,
                  nbytes, 0);
  }
  const vkbuf *s = src;
  vkbuf *t = dst;
  if (src_offset + nbytes > s->size || dst_offset + nbytes > t->size)
    return vk_fail(TVM_ERR_INVALID, "vulkan: device copy out of bounds");
  if ((rc = begin(d))) return rc;
  VkBufferCopy region = {src_offset, dst_offset, nbytes};
  d->f.vkCmdCopyBuffer(d->cmd, s->buf, t->buf, 1, &region);
  return vk_sync(d);
}

/* ---- modules and launches ------------------------------------------------------ */

int32_t vk_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                       tvm_plugin_module **out) {
  tvm_plugin_module *m = calloc(1, sizeof *m);
  if (!m) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  int32_t rc = vk_blob_parse(blob, &m->copy, &m->kernels, &m->n);
  if (!rc && !(m->funcs = calloc(m->n ? m->n : 1, sizeof *m->funcs)))
    rc = vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  if (rc) {
    vk_kernels_free(m->copy, m->kernels, m->n);
    free(m);
    return rc;
  }
  m->d = d;
  for (uint32_t i = 0; i < m->n; i++) {
    m->funcs[i].m = m;
    m->funcs[i].k = &m->kernels[i];
  }
  /* each kernel's first variant whose needs the device meets (the one
   * with subgroup operations comes first); none: refused, naming what
   * the last (plain) one lacks */
  for (uint32_t i = 0; i < m->n; i++) {
    vk_kernel_desc *k = &m->kernels[i];
    uint32_t missing = 0;
    for (uint32_t v = 0; v < k->nvariants && !m->funcs[i].v; v++) {
      missing = k->variants[v].features & ~d->feats;
      if (!missing) m->funcs[i].v = &k->variants[v];
    }
    if (m->funcs[i].v) continue;
    char what[256];
    feature_names(missing, what, sizeof what);
    rc = vk_fail(TVM_ERR_UNSUPPORTED,
                 "vulkan: kernel %s needs %s, which device '%s' does not "
                 "offer (or the target's int8/int16/float16 attribute "
                 "turned off): compile for a target with those attributes "
                 "false, or run on another device",
                 m->kernels[i].name, what, d->props.deviceName);
    vk_module_unload(m);
    return rc;
  }
  *out = m;
  return 0;
}

void vk_module_unload(tvm_plugin_module *m) {
  if (!m) return;
  tvm_plugin_device *d = m->d;
  vk_sync(d);
  for (uint32_t i = 0; i < m->n; i++) {
    tvm_plugin_func *f = &m->funcs[i];
    if (f->pipe) d->f.vkDestroyPipeline(d->dev, f->pipe, NULL);
    if (f->layout) d->f.vkDestroyPipelineLayout(d->dev, f->layout, NULL);
    if (f->dsl) d->f.vkDestroyDescriptorSetLayout(d->dev, f->dsl, NULL);
    if (f->shader) d->f.vkDestroyShaderModule(d->dev, f->shader, NULL);
  }
  free(m->funcs);
  vk_kernels_free(m->copy, m->kernels, m->n);
  free(m);
}

/* Builds the kernel's pipeline (once). */
static int32_t build(tvm_plugin_device *d, tvm_plugin_func *f) {
  const vk_kernel_desc *k = f->k;
  VkShaderModuleCreateInfo smi = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = (size_t)f->v->nwords * 4, .pCode = f->v->words};
  VKCHECK(d->f.vkCreateShaderModule(d->dev, &smi, NULL, &f->shader),
          "vkCreateShaderModule");
  VkDescriptorSetLayoutBinding bind[256];
  f->nbufs = 0;
  for (uint32_t p = 0; p < k->nparams; p++)
    f->nbufs += k->kinds[p] == VK_PARAM_BUFFER;
  f->push = d->max_push && f->nbufs <= d->max_push;
  f->nbufs = 0;
  for (uint32_t p = 0; p < k->nparams; p++)
    if (k->kinds[p] == VK_PARAM_BUFFER) {
      bind[f->nbufs] = (VkDescriptorSetLayoutBinding){
          f->nbufs, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
          VK_SHADER_STAGE_COMPUTE_BIT, NULL};
      f->nbufs++;
    }
  VkDescriptorSetLayoutCreateInfo dli = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .flags = f->push
                   ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR
                   : 0,
      .bindingCount = f->nbufs, .pBindings = bind};
  VKCHECK(d->f.vkCreateDescriptorSetLayout(d->dev, &dli, NULL, &f->dsl),
          "vkCreateDescriptorSetLayout");
  VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, k->push_bytes};
  VkPipelineLayoutCreateInfo pli = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1, .pSetLayouts = &f->dsl,
      .pushConstantRangeCount = k->push_bytes ? 1 : 0,
      .pPushConstantRanges = &pcr};
  VKCHECK(d->f.vkCreatePipelineLayout(d->dev, &pli, NULL, &f->layout),
          "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo cpi = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = f->shader,
                .pName = "main"},
      .layout = f->layout};
  VKCHECK(d->f.vkCreateComputePipelines(d->dev, d->cache, 1, &cpi, NULL,
                                        &f->pipe),
          "vkCreateComputePipelines");
  return 0;
}

int32_t vk_func_get(tvm_plugin_module *m, const char *name,
                    tvm_plugin_func **out) {
  for (uint32_t i = 0; i < m->n; i++)
    if (!strcmp(m->kernels[i].name, name)) {
      tvm_plugin_func *f = &m->funcs[i];
      if (!f->pipe) {
        int32_t rc = build(m->d, f);
        if (rc) return rc;
      }
      *out = f;
      return 0;
    }
  return vk_fail(TVM_ERR_NOT_FOUND, "vulkan: no kernel '%s' in the module",
                 name);
}

int32_t vk_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                  const tvm_plugin_arg *args, uint32_t nargs,
                  const uint32_t grid[3], const uint32_t block[3]) {
  const vk_kernel_desc *k = f->k;
  if (nargs != k->nparams)
    return vk_fail(TVM_ERR_INVALID, "vulkan: kernel %s takes %u arguments, "
                                    "got %u",
                   k->name, k->nparams, nargs);
  for (int a = 0; a < 3; a++) {
    if (block[a] != k->local[a])
      return vk_fail(TVM_ERR_INVALID,
                     "vulkan: kernel %s was compiled for workgroups of "
                     "%ux%ux%u, launched with %ux%ux%u",
                     k->name, k->local[0], k->local[1], k->local[2],
                     block[0], block[1], block[2]);
    if (grid[a] == 0 || grid[a] > d->props.limits.maxComputeWorkGroupCount[a])
      return vk_fail(TVM_ERR_INVALID, "vulkan: kernel %s: %u workgroups on "
                                      "axis %d (the device allows 1..%u)",
                     k->name, grid[a], a,
                     d->props.limits.maxComputeWorkGroupCount[a]);
  }
  if (!f->push && d->sets_used == SETS_PER_POOL) {
    int32_t rc = vk_sync(d);
    if (rc) return rc;
  }
  int32_t rc = begin(d);
  if (rc) return rc;
  VkDescriptorSet set = VK_NULL_HANDLE; /* none with push descriptors */
  if (!f->push) {
    VkDescriptorSetAllocateInfo dai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = d->dpool, .descriptorSetCount = 1,
        .pSetLayouts = &f->dsl};
    VKCHECK(d->f.vkAllocateDescriptorSets(d->dev, &dai, &set),
            "vkAllocateDescriptorSets");
    d->sets_used++;
  }
  VkDescriptorBufferInfo infos[256];
  VkWriteDescriptorSet writes[256];
  uint8_t push[VK_PUSH_MAX];
  uint32_t nb = 0, np = 0;
  memset(push, 0, sizeof push);
  for (uint32_t p = 0; p < nargs; p++) {
    if (k->kinds[p] == VK_PARAM_BUFFER) {
      if (args[p].type != TVM_ARG_PTR || !args[p].v.ptr)
        return vk_fail(TVM_ERR_INVALID, "vulkan: kernel %s argument %u must "
                                        "be a device buffer",
                       k->name, p);
      const vkbuf *b = args[p].v.ptr;
      infos[nb] = (VkDescriptorBufferInfo){b->buf, 0, VK_WHOLE_SIZE};
      writes[nb] = (VkWriteDescriptorSet){
          .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
          .dstBinding = nb, .descriptorCount = 1,
          .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
          .pBufferInfo = &infos[nb]};
      nb++;
    } else {
      uint8_t *slot = push + 8 * np++;
      if (k->kinds[p] == VK_PARAM_FLOAT) {
        double v = args[p].type == TVM_ARG_FLOAT ? args[p].v.f
                                                  : (double)args[p].v.i;
        if (k->bits[p] == 64) memcpy(slot, &v, 8);
        else {
          float fv = (float)v;
          memcpy(slot, &fv, 4);
        }
      } else {
        int64_t v = args[p].type == TVM_ARG_INT ? args[p].v.i
                                                : (int64_t)args[p].v.f;
        if (k->bits[p] == 64) memcpy(slot, &v, 8);
        else {
          int32_t iv = (int32_t)v;
          memcpy(slot, &iv, 4);
        }
      }
    }
  }
  d->f.vkCmdBindPipeline(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, f->pipe);
  if (f->push) {
    d->f.vkCmdPushDescriptorSetKHR(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                                   f->layout, 0, nb, writes);
  } else {
    d->f.vkUpdateDescriptorSets(d->dev, nb, writes, 0, NULL);
    d->f.vkCmdBindDescriptorSets(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                                 f->layout, 0, 1, &set, 0, NULL);
  }
  if (k->push_bytes)
    d->f.vkCmdPushConstants(d->cmd, f->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                            k->push_bytes, push);
  d->f.vkCmdDispatch(d->cmd, grid[0], grid[1], grid[2]);
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT |
                                         VK_ACCESS_SHADER_WRITE_BIT};
  d->f.vkCmdPipelineBarrier(d->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb,
                            0, NULL, 0, NULL);
  return 0;
}

/* ---- timers: timestamp queries around the recorded work ------------------- */

int32_t vk_timer_start(tvm_plugin_device *d, uint64_t *token) {
  if (!d->queries)
    return vk_fail(TVM_ERR_UNSUPPORTED, "vulkan: device '%s' has no "
                                        "timestamps on its compute queue",
                   d->props.deviceName);
  int32_t rc = vk_sync(d);
  if (rc || (rc = begin(d))) return rc;
  uint32_t q = d->next_query;
  d->next_query = (d->next_query + 2) % QUERIES;
  d->f.vkCmdResetQueryPool(d->cmd, d->queries, q, 2);
  d->f.vkCmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                           d->queries, q);
  *token = q;
  return 0;
}

int32_t vk_timer_stop(tvm_plugin_device *d, uint64_t token, double *ms) {
  int32_t rc = begin(d);
  if (rc) return rc;
  uint32_t q = (uint32_t)token;
  d->f.vkCmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                           d->queries, q + 1);
  if ((rc = vk_sync(d))) return rc;
  uint64_t ts[2];
  VKCHECK(d->f.vkGetQueryPoolResults(d->dev, d->queries, q, 2, sizeof ts, ts,
                                     8, VK_QUERY_RESULT_64_BIT |
                                            VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
  *ms = (double)(ts[1] - ts[0]) * d->props.limits.timestampPeriod * 1e-6;
  return 0;
}
