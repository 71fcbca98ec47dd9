/*
 * tests/plugins/vulkan/vk_test.h - helpers of the vulkan plugin's tests
 * (test_vulkan.c, test_vulkan_threads.c), in vk_test.c.
 */
#ifndef TVM_TEST_VK_TEST_H
#define TVM_TEST_VK_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "tvm/lower.h"
#include "tvm/schedule.h"
#include "tvm/target.h"

extern tvm_target *vk_target; /* targets/vulkan.yaml */
extern int vk_have_device;    /* its probe passed */
extern char vk_why_not[512];  /* else the probe's message */

/* cmocka group setup / teardown: loads and probes vk_target. */
int vk_setup(void **state);
int vk_teardown(void **state);
/* Lowers schedule s over args for vk_target into m (fails the test). */
void vk_lower(tvm_schedule *s, tvm_tensor **args, int n, const char *name,
              tvm_module *m);
/* Codegen, then spirv-val on every SPIR-V module of the blob; returns
 * how many contain `grep` in their disassembly, or -1 without spirv-val
 * and spirv-dis. */
int vk_compile_validate_grep(const tvm_module *m, tvm_plugin_blob *blob,
                             const char *grep);
void vk_compile_and_validate(const tvm_module *m, tvm_plugin_blob *blob);
/* Runs every device function of m, in order, on the host arrays host[]
 * (sizes bytes[]) bound by parameter name A, B, C ...; copies back. */
void vk_run_all(const tvm_module *m, const tvm_plugin_blob *blob,
                void **host, const uint64_t *bytes, int nbuf);
/* A deterministic pseudo-random float in [-1, 1). */
float vk_frand(unsigned *s);
/* Opens a device with stderr captured at debug level into buf. */
void vk_device_line(char *buf, size_t n);

#endif
