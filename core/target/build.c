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
  /* (hostdev) host functions that launch kernels are not the plugin's to
   * compile: they run as host programs (plugin-sdk/docs/HOST_DEVICE.md) */
  int ndev = 0, nhost = 0;
  for (int i = 0; m && i < m->nfuncs; i++)
    m->funcs[i]->kind == TVM_FUNC_DEVICE ? ndev++ : nhost++;
  if (ndev && nhost)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "tvm_build: the module holds device kernels and host "
                        "functions launching them (target '%s' is a device "
                        "target): build the device functions alone and run "
                        "each host function as a host program "
                        "(tvm_host_program_build, tvm_host_exec_create), or "
                        "compile a graph with tvm_compile",
                        t->name);
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
