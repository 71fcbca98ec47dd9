/*
 * plugins/vulkan/runtime.c - the run-time half of the vulkan plugin
 * past opening the device (device.c): memory, copies, modules, launches
 * and timers.
 *
 * Memory: a buffer lives in memory that is device-local when the device
 * has such memory; when that memory is also host-visible (integrated GPUs,
 * lavapipe) copies map it, otherwise they go through a host-visible
 * staging buffer and a transfer on the queue.
 *
 * Modules: each kernel runs the first of its variants whose needs (SPV_F_*)
 * the device meets (the one with subgroup operations comes first); a
 * kernel none of whose variants it meets is refused when the module
 * loads, naming the missing features.
 *
 * Launches are recorded into one command buffer (pipeline, the buffers
 * bound by vkCmdPushDescriptorSetKHR where the device has push
 * descriptors, else a descriptor set, push constants, dispatch, then a
 * compute-to-compute memory barrier) and submitted together at sync, so
 * a whole model run is one submission.  Copies and timers sync first.
 * A kernel with more scalars than push constants hold (codegen.c) reads
 * them from a uniform buffer bound after its storage buffers: a slice of
 * the device's ring (UBO_RING_BYTES, host-visible and coherent), written
 * at launch; when the ring is full, the launches recorded so far are
 * submitted and waited for, and it starts over.
 * Device handles passed to kernels are vkbuf structs.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_int.h"

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
  d->ubo_used = 0;
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

/* What tensors' buffers are used for: kernels' storage, and copies. */
#define DATA_USAGE                                                           \
  (VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |   \
   VK_BUFFER_USAGE_TRANSFER_DST_BIT)

/* Creates a buffer for usage in memory with the wanted properties. */
static int32_t make_buffer(tvm_plugin_device *d, uint64_t nbytes,
                           VkBufferUsageFlags usage,
                           VkMemoryPropertyFlags want,
                           VkMemoryPropertyFlags prefer, vkbuf *b) {
  memset(b, 0, sizeof *b);
  b->size = nbytes;
  VkBufferCreateInfo bci = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = nbytes,
      .usage = usage, .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
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
  int32_t rc = make_buffer(d, nbytes ? nbytes : 4, DATA_USAGE,
                           VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                               VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                           b);
  if (rc == TVM_ERR_UNAVAILABLE) /* no device-local type: any will do */
    rc = make_buffer(d, nbytes ? nbytes : 4, DATA_USAGE, 0, 0, b);
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

/* A slice of bytes of the scalar uniform-buffer ring for one launch, at
 * *off; submits and waits for what was recorded when the ring is full.
 * Called before the launch starts recording. */
static int32_t ubo_slice(tvm_plugin_device *d, uint32_t bytes,
                         uint64_t *off) {
  if (!d->ubo) {
    vkbuf *b = calloc(1, sizeof *b);
    if (!b) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
    int32_t rc = make_buffer(d, UBO_RING_BYTES,
                             VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                             0, b);
    if (rc) {
      free(b);
      return rc;
    }
    d->ubo = b;
    d->ubo_used = 0;
  }
  uint64_t align = d->props.limits.minUniformBufferOffsetAlignment;
  if (align == 0) align = 1;
  uint64_t at = (d->ubo_used + align - 1) / align * align;
  if (at + bytes > UBO_RING_BYTES) {
    int32_t rc = vk_sync(d); /* the recorded launches read the ring */
    if (rc) return rc;
    at = 0;
  }
  d->ubo_used = at + bytes;
  *off = at;
  return 0;
}

void vk_ubo_ring_free(tvm_plugin_device *d) {
  if (!d->ubo) return;
  drop_buffer(d, d->ubo);
  free(d->ubo);
  d->ubo = NULL;
}

/* Copies through a host-visible staging buffer and a transfer. */
static int32_t staged(tvm_plugin_device *d, vkbuf *dev, uint64_t off,
                      void *host, uint64_t nbytes, int to_device) {
  vkbuf st;
  int32_t rc = make_buffer(d, nbytes, DATA_USAGE,
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
    vk_feature_names(missing, what, sizeof what);
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
  VkDescriptorSetLayoutBinding bind[VK_MAX_PARAMS + 1];
  f->nbufs = 0;
  for (uint32_t p = 0; p < k->nparams; p++)
    f->nbufs += k->kinds[p] == VK_PARAM_BUFFER;
  f->push = d->max_push && f->nbufs + k->scalars_ubo <= d->max_push;
  f->nbufs = 0;
  for (uint32_t p = 0; p < k->nparams; p++)
    if (k->kinds[p] == VK_PARAM_BUFFER) {
      bind[f->nbufs] = (VkDescriptorSetLayoutBinding){
          f->nbufs, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
          VK_SHADER_STAGE_COMPUTE_BIT, NULL};
      f->nbufs++;
    }
  uint32_t nbind = f->nbufs;
  if (k->scalars_ubo) /* the scalar block, after the storage buffers */
    bind[nbind++] = (VkDescriptorSetLayoutBinding){
        f->nbufs, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1,
        VK_SHADER_STAGE_COMPUTE_BIT, NULL};
  VkDescriptorSetLayoutCreateInfo dli = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .flags = f->push
                   ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR
                   : 0,
      .bindingCount = nbind, .pBindings = bind};
  VKCHECK(d->f.vkCreateDescriptorSetLayout(d->dev, &dli, NULL, &f->dsl),
          "vkCreateDescriptorSetLayout");
  VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, k->push_bytes};
  VkPipelineLayoutCreateInfo pli = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1, .pSetLayouts = &f->dsl,
      .pushConstantRangeCount = k->push_bytes && !k->scalars_ubo ? 1 : 0,
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
  uint64_t ubo_off = 0;
  if (k->scalars_ubo) {
    int32_t rc = ubo_slice(d, k->push_bytes, &ubo_off);
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
  VkDescriptorBufferInfo infos[VK_MAX_PARAMS + 1];
  VkWriteDescriptorSet writes[VK_MAX_PARAMS + 1];
  uint8_t push[VK_UBO_MAX]; /* the scalar block */
  uint32_t nb = 0, np = 0;
  memset(push, 0, k->push_bytes);
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
  uint32_t nw = nb;
  if (k->scalars_ubo) {
    memcpy((uint8_t *)d->ubo->map + ubo_off, push, k->push_bytes);
    infos[nw] = (VkDescriptorBufferInfo){d->ubo->buf, ubo_off, k->push_bytes};
    writes[nw] = (VkWriteDescriptorSet){
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
        .dstBinding = nb, .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
        .pBufferInfo = &infos[nw]};
    nw++;
  }
  d->f.vkCmdBindPipeline(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, f->pipe);
  if (f->push) {
    d->f.vkCmdPushDescriptorSetKHR(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                                   f->layout, 0, nw, writes);
  } else {
    d->f.vkUpdateDescriptorSets(d->dev, nw, writes, 0, NULL);
    d->f.vkCmdBindDescriptorSets(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                                 f->layout, 0, 1, &set, 0, NULL);
  }
  if (k->push_bytes && !k->scalars_ubo)
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
