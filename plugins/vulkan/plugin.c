/*
 * plugins/vulkan/plugin.c - the vulkan plugin's descriptor: the attribute
 * schema, target objects and the vtable.  Codegen (codegen.c) writes
 * SPIR-V and needs no device; the runtime (runtime.c) dlopens the Vulkan
 * loader in probe/device_open, so the plugin loads everywhere and
 * `tvmc targets` says why a machine without a driver cannot run it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan_int.h"

const tvm_host_api *vk_host;

int32_t vk_fail(int32_t status, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  vk_host->report(status, msg);
  return status;
}

static const tvm_plugin_attr schema[] = {
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_INT, "device_index", "0", 0,
     255, NULL, "which Vulkan physical device (vulkaninfo --summary)"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_INT, "max_threads", "256", 1,
     1024, NULL, "most threads per workgroup a kernel may use"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_INT, "shared_kib", "32", 1, 256,
     NULL, "workgroup (shared) memory per workgroup, KiB"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_BOOL, "int64", "true", 0, 0,
     NULL, "kernels may use 64-bit integers (the device needs shaderInt64)"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_BOOL, "float64", "true", 0, 0,
     NULL, "kernels may use 64-bit floats (the device needs shaderFloat64)"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_BOOL, "int8", "true", 0, 0,
     NULL, "kernels may use 8-bit integers and bool buffers (the device "
           "needs shaderInt8 and storageBuffer8BitAccess)"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_BOOL, "int16", "true", 0, 0,
     NULL, "kernels may use 16-bit integers (the device needs shaderInt16 "
           "and storageBuffer16BitAccess)"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_BOOL, "float16", "true", 0, 0,
     NULL, "kernels may use float16 (the device needs shaderFloat16 and "
           "storageBuffer16BitAccess)"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_BOOL, "push_descriptors",
     "true", 0, 0, NULL,
     "bind buffers with VK_KHR_push_descriptor when the device has it "
     "(false: descriptor sets always)"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_BOOL, "subgroups", "true", 0,
     0, NULL,
     "finish cross-thread reductions with subgroup operations; such "
     "kernels also carry a plain variant for devices without subgroup "
     "arithmetic (false: the plain one only)"},
};

static const tvm_plugin_scope scopes[] = {
    {sizeof(tvm_plugin_scope), TVM_VIS_DEVICE, "global", 0, 16, -1},
    {sizeof(tvm_plugin_scope), TVM_VIS_BLOCK, "shared", 0, 16, -1},
    {sizeof(tvm_plugin_scope), TVM_VIS_THREAD, "local", 0, 16, -1},
};

static int32_t target_create(const tvm_plugin_attr_value *v, uint32_t n,
                             tvm_plugin_target **out) {
  tvm_plugin_target *t = calloc(1, sizeof *t);
  if (!t) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  for (uint32_t i = 0; i < n; i++) {
    if (!strcmp(v[i].name, "device_index")) t->device_index = (uint32_t)v[i].i;
    else if (!strcmp(v[i].name, "max_threads")) t->max_threads = (uint32_t)v[i].i;
    else if (!strcmp(v[i].name, "shared_kib"))
      t->shared_bytes = (uint32_t)v[i].i * 1024;
    else if (!strcmp(v[i].name, "int64")) t->int64 = v[i].i != 0;
    else if (!strcmp(v[i].name, "float64")) t->float64 = v[i].i != 0;
    else if (!strcmp(v[i].name, "int8")) t->int8 = v[i].i != 0;
    else if (!strcmp(v[i].name, "int16")) t->int16 = v[i].i != 0;
    else if (!strcmp(v[i].name, "float16")) t->float16 = v[i].i != 0;
    else if (!strcmp(v[i].name, "push_descriptors"))
      t->push_descriptors = v[i].i != 0;
    else if (!strcmp(v[i].name, "subgroups")) t->subgroups = v[i].i != 0;
  }
  snprintf(t->description, sizeof t->description,
           "Vulkan device %u, SPIR-V 1.3, %u threads/workgroup, %u KiB "
           "shared",
           t->device_index, t->max_threads, t->shared_bytes / 1024);
  t->info.struct_size = sizeof t->info;
  t->info.vector_bits = 32; /* scalar kernels: the core does not vectorize */
  t->info.has_threads = 1;
  /* the generic thread schedules' blocks stay within the attribute
   * (an ABI 4 field) */
  t->info.max_threads_per_block = t->max_threads;
  t->info.scopes = scopes;
  t->info.nscopes = sizeof scopes / sizeof *scopes;
  t->info.description = t->description;
  *out = t;
  return 0;
}

static void target_destroy(tvm_plugin_target *t) { free(t); }

static const tvm_plugin_target_info *target_info(tvm_plugin_target *t) {
  return &t->info;
}

static const tvm_plugin_vtable vtable = {
    .struct_size = sizeof(tvm_plugin_vtable),
    .nattrs = sizeof schema / sizeof schema[0],
    .attrs = schema,
    .target_create = target_create,
    .target_destroy = target_destroy,
    .target_info = target_info,
    .codegen = vk_codegen,
    .probe = vk_probe,
    .device_open = vk_device_open,
    .device_close = vk_device_close,
    .mem_alloc = vk_mem_alloc,
    .mem_free = vk_mem_free,
    .copy = vk_copy,
    .module_load = vk_module_load,
    .module_unload = vk_module_unload,
    .func_get = vk_func_get,
    .launch = vk_launch,
    .sync = vk_sync,
    .timer_start = vk_timer_start,
    .timer_stop = vk_timer_stop,
};

/* ABI 4 where the host speaks it (target_info's max_threads_per_block is
 * read), else 3: nothing else of 4 is used. */
static const tvm_plugin_desc desc4 = {
    sizeof(tvm_plugin_desc), 4, "vulkan", "0.2",
    "Vulkan compute: SPIR-V written directly, run through libvulkan",
    &vtable};
static const tvm_plugin_desc desc3 = {
    sizeof(tvm_plugin_desc), 3, "vulkan", "0.2",
    "Vulkan compute: SPIR-V written directly, run through libvulkan",
    &vtable};

TVM_PLUGIN_EXPORT const tvm_plugin_desc *tvm_plugin_query(
    uint32_t host_abi_max, const tvm_host_api *host) {
  if (host_abi_max < 3 || !host) return NULL;
  vk_host = host;
  return host_abi_max >= 4 ? &desc4 : &desc3;
}
