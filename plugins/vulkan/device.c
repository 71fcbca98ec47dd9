/*
 * plugins/vulkan/device.c - opening a Vulkan device for the plugin.
 *
 * libvulkan.so.1 is dlopen'd (never linked) and every entry point is
 * resolved through vkGetInstanceProcAddr / vkGetDeviceProcAddr.  A device
 * is an instance, the physical device the target's device_index names, a
 * logical device with one compute queue, a command pool, a descriptor
 * pool, a pipeline cache and a timestamp query pool.
 *
 * Features: vkGetPhysicalDeviceFeatures2 with the 16-bit storage, 8-bit
 * storage and float16/int8 structures, vkGetPhysicalDeviceProperties2
 * for subgroups and push descriptors.  What the target's attributes
 * allow and the device has is enabled (shaderInt64, shaderFloat64,
 * shaderInt8, shaderInt16, shaderFloat16, storageBuffer8BitAccess,
 * storageBuffer16BitAccess, VK_KHR_push_descriptor) and recorded as
 * spirv.h's SPV_F_* mask (subgroup arithmetic in compute included),
 * which module_load compares with each kernel's needs.
 * TVM_VULKAN_HIDE=NAME,... pretends the named features or extensions
 * are absent (tests of the refusals and of the fallback paths on a
 * device that has everything).  At TVM_LOG_LEVEL 3 the device's line
 * says what it binds buffers with and what it offers.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_int.h"

const char *vk_result(VkResult r) {
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

/* ---- loading ------------------------------------------------------------- */

/* The process's one loader handle and instance.  Every device of the
 * process shares them and none destroys them: destroying the last
 * instance makes the loader unload the driver, and NVIDIA's driver,
 * loaded and unloaded again with every device of a process (a test
 * program opens hundreds), stops creating instances after about a dozen
 * rounds ("incompatible driver").  So the loader is opened with
 * RTLD_NODELETE and the instance lives until the process exits, as in
 * any Vulkan application; a failed creation is retried by the next
 * device (a driver may have been installed meanwhile). */
static struct {
  pthread_mutex_t mu;
  void *lib;
  VkInstance inst;
} shared = {PTHREAD_MUTEX_INITIALIZER, NULL, VK_NULL_HANDLE};

/* Creates the shared instance into d (under shared.mu). */
static int32_t create_instance(tvm_plugin_device *d) {
  if (!shared.lib)
    shared.lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  d->lib = shared.lib;
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
  if (shared.inst) {
    d->inst = shared.inst;
    return 0;
  }
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
  shared.inst = d->inst;
  return 0;
}

/* Takes the shared instance and the target's physical device into d. */
static int32_t open_instance(tvm_plugin_device *d) {
  pthread_mutex_lock(&shared.mu);
  int32_t rc = create_instance(d);
  pthread_mutex_unlock(&shared.mu);
  if (rc) return rc;
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
  free(d); /* the instance and the loader stay: see `shared` */
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
void vk_feature_names(uint32_t mask, char *buf, size_t n) {
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
  vk_feature_names(d->feats, what, sizeof what);
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
  VkDescriptorPoolSize ps[2] = {
      {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, SETS_PER_POOL * 16},
      {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, SETS_PER_POOL}};
  VkDescriptorPoolCreateInfo dpi = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .maxSets = SETS_PER_POOL, .poolSizeCount = 2, .pPoolSizes = ps};
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
  vk_ubo_ring_free(d);
  close_device(d);
}
