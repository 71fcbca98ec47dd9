/*
 * core/target/build.c - from a lowered module to a runnable one: codegen
 * through the target's plugin, then module_load on a device.
 */
#include "target_int.h"

/* Codegen, then module_load on d or on a device the module will own.
 * The blob is freed once loaded (module_load copies what it keeps). */
tvm_status tvm_build(const tvm_target *t, const tvm_module *m, tvm_device *d,
                     tvm_runtime_module **out) {
  *out = NULL;
  tvm_plugin_blob blob;
  tvm_status st = tvm_target_codegen(t, m, &blob);
  if (st != TVM_OK) return st;
  tvm_device *own = NULL;
  if (d == NULL) {
    st = tvm_device_open(t, &own);
    if (st != TVM_OK) {
      tvm_plugin_blob_free(&blob);
      return st;
    }
    d = own;
  }
  st = tvm_runtime_module_load(d, &blob, out);
  tvm_plugin_blob_free(&blob);
  if (st != TVM_OK) {
    tvm_device_close(own);
    return st;
  }
  if (own != NULL) tvm_runtime_module_own_device(*out);
  return TVM_OK;
}
