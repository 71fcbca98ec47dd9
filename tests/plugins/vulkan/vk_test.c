/*
 * tests/plugins/vulkan/vk_test.c - what the vulkan plugin's test programs
 * share: the target (lavapipe where installed, no shader cache), lowering,
 * codegen with spirv-val, running kernels on the device; see vk_test.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/compiler.h"
#include "tvm/graph.h"
#include "tvm/lower.h"
#include "tvm/runtime.h"
#include "tvm/strategy.h"
#include "tvm/schedule.h"
#include "tvm/target.h"
#include "tvm/te.h"

#include "vk_test.h"

tvm_target *vk_target;
int vk_have_device;
char vk_why_not[512];

int vk_setup(void **state) {
  (void)state;
  /* lavapipe only, no shader cache: deterministic and hermetic */
  const char *lvp = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
  if (!getenv("VK_DRIVER_FILES") && access(lvp, R_OK) == 0)
    setenv("VK_DRIVER_FILES", lvp, 1);
  setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);
  char path[1024];
  snprintf(path, sizeof path, "%s/targets/vulkan.yaml",
           getenv("TVM_SRCDIR") ? getenv("TVM_SRCDIR") : ".");
  if (tvm_target_load(path, &vk_target) != TVM_OK) {
    fprintf(stderr, "cannot load %s: %s\n", path, tvm_diag_message());
    return -1;
  }
  vk_have_device = tvm_target_probe(vk_target) == TVM_OK;
  if (!vk_have_device)
    snprintf(vk_why_not, sizeof vk_why_not, "%s", tvm_diag_message());
  return 0;
}

int vk_teardown(void **state) {
  (void)state;
  tvm_target_free(vk_target);
  return 0;
}

/* Lowers schedule s over args for the vulkan target into m. */
void vk_lower(tvm_schedule *s, tvm_tensor **args, int n, const char *name,
                  tvm_module *m) {
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(vk_target, &o);
  if (tvm_lower(s, args, n, name, &o, m) != TVM_OK)
    fail_msg("lower %s: %s", name, tvm_diag_message());
}

/* Codegen, then spirv-val on every SPIR-V module of the blob; returns
 * how many of them contain `grep` in their disassembly (spirv-dis), or
 * -1 when spirv-val / spirv-dis are not installed. */
int vk_compile_validate_grep(const tvm_module *m, tvm_plugin_blob *blob,
                                 const char *grep) {
  if (tvm_target_codegen(vk_target, m, blob) != TVM_OK)
    fail_msg("codegen: %s", tvm_diag_message());
  assert_int_equal(blob->format, TVM_BLOB_SPIRV);
  assert_true(blob->nkernels >= 1);
  if (system("command -v spirv-val >/dev/null 2>&1 && "
             "command -v spirv-dis >/dev/null 2>&1") != 0) {
    print_message("spirv-val not installed: SPIR-V not validated\n");
    return -1;
  }
  /* walk the documented container: magic, count, per kernel its name,
   * parameters, scalar bytes, where the scalars live, local size, then
   * its variants (features, words) */
  const uint32_t *w = (const uint32_t *)(const void *)blob->data;
  size_t at = 2;
  int found = 0;
  assert_int_equal(w[0], 0x334b5654u);
  for (uint32_t k = 0; k < w[1]; k++) {
    uint32_t len = w[at++];
    at += (len + 3) / 4;
    uint32_t np = w[at++];
    at += 2 * np + 2 + 3;
    uint32_t nvar = w[at++];
    assert_true(nvar == 1 || nvar == 2);
    for (uint32_t v = 0; v < nvar; v++) {
      at++; /* features */
      uint32_t nw = w[at++];
      char path[] = "/tmp/tvm_vk_XXXXXX";
      int fd = mkstemp(path);
      assert_true(fd >= 0);
      assert_int_equal(write(fd, w + at, nw * 4), (ssize_t)(nw * 4));
      close(fd);
      char cmd[512];
      snprintf(cmd, sizeof cmd, "spirv-val --target-env vulkan1.1 %s", path);
      int rc = system(cmd);
      if (rc != 0) {
        snprintf(cmd, sizeof cmd, "spirv-dis %s | head -80", path);
        if (system(cmd)) {}
      }
      if (grep) {
        snprintf(cmd, sizeof cmd, "spirv-dis %s | grep -q '%s'", path, grep);
        found += system(cmd) == 0;
      }
      unlink(path);
      assert_int_equal(rc, 0);
      at += nw;
    }
  }
  return found;
}

void vk_compile_and_validate(const tvm_module *m, tvm_plugin_blob *blob) {
  vk_compile_validate_grep(m, blob, NULL);
}

/* Runs kernel 0.. of the blob in order on buffers bufs (host arrays of
 * sizes bytes[]): upload, launch each kernel with its codegen geometry and
 * the given argument order, download. */
void vk_run_all(const tvm_module *m, const tvm_plugin_blob *blob,
                    void **host, const uint64_t *bytes, int nbuf) {
  tvm_device *d = NULL;
  tvm_runtime_module *rm = NULL;
  if (tvm_device_open(vk_target, &d) != TVM_OK)
    fail_msg("device: %s", tvm_diag_message());
  if (tvm_runtime_module_load(d, blob, &rm) != TVM_OK)
    fail_msg("load: %s", tvm_diag_message());
  void *dev[8];
  for (int i = 0; i < nbuf; i++) {
    assert_int_equal(tvm_device_alloc(d, 0, bytes[i], 64, &dev[i]), TVM_OK);
    assert_int_equal(tvm_device_copy(d, dev[i], 0, host[i], 0, bytes[i],
                                     TVM_COPY_HOST_TO_DEVICE),
                     TVM_OK);
  }
  /* every device function takes buffers named like the lowered args */
  for (int f = 0; f < m->nfuncs; f++) {
    const tvm_func *fn = m->funcs[f];
    if (fn->kind != TVM_FUNC_DEVICE) continue;
    tvm_runtime_func *rf = NULL;
    if (tvm_runtime_get_func(rm, fn->name, &rf) != TVM_OK)
      fail_msg("%s", tvm_diag_message());
    tvm_plugin_arg args[8];
    for (int p = 0; p < fn->nparams; p++) {
      const char *pn = fn->params[p]->u.var.name;
      int which = -1;
      for (int i = 0; i < nbuf; i++) {
        char want[8];
        snprintf(want, sizeof want, "%c", 'A' + i);
        if (!strcmp(pn, want)) which = i;
      }
      if (which < 0) fail_msg("unexpected parameter %s", pn);
      args[p].type = TVM_ARG_PTR;
      args[p].v.ptr = dev[which];
    }
    const tvm_plugin_kernel *k = tvm_runtime_func_kernel(rf);
    if (tvm_device_launch(d, rf, args, (uint32_t)fn->nparams, k->grid,
                          k->block) != TVM_OK)
      fail_msg("launch: %s", tvm_diag_message());
  }
  assert_int_equal(tvm_device_sync(d), TVM_OK);
  for (int i = 0; i < nbuf; i++) {
    assert_int_equal(tvm_device_copy(d, host[i], 0, dev[i], 0, bytes[i],
                                     TVM_COPY_DEVICE_TO_HOST),
                     TVM_OK);
    tvm_device_free(d, 0, dev[i]);
  }
  tvm_runtime_module_free(rm);
  tvm_device_close(d);
}

float vk_frand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (float)((*s >> 8) % 2000) / 1000.0f - 1.0f;
}

/* Opens a device with stderr captured at debug level into buf: the
 * plugin's line says how buffers are bound and what the device offers. */
void vk_device_line(char *buf, size_t n) {
  char path[] = "/tmp/tvm_vk_log_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  setenv("TVM_LOG_LEVEL", "3", 1);
  tvm_device *d = NULL;
  tvm_status st = tvm_device_open(vk_target, &d);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  unsetenv("TVM_LOG_LEVEL");
  assert_int_equal(st, TVM_OK);
  tvm_device_close(d);
  memset(buf, 0, n);
  lseek(fd, 0, SEEK_SET);
  ssize_t got = read(fd, buf, n - 1);
  close(fd);
  unlink(path);
  assert_true(got > 0);
  print_message("%s", buf);
}

