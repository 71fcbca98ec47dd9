/*
 * harness.h - a small host for testing the llvm-cpu plugin directly: it
 * dlopens the built tvm-llvm-cpu.so, negotiates the ABI, offers a host API
 * (report -> stored message, parallel_for -> pthreads) and wraps
 * codegen + module_load + launch.
 */
#ifndef TVM_TEST_LLVM_CPU_HARNESS_H
#define TVM_TEST_LLVM_CPU_HARNESS_H

#include <stdint.h>

#include "tvm/ir.h"
#include "tvm/plugin.h"

/* Loads the plugin once (0 on success); later calls are no-ops. */
int h_load_plugin(void);
const tvm_plugin_desc *h_desc(void);
const tvm_host_api *h_host(void);
/* The last message the plugin reported ("" if none); h_clear_report. */
const char *h_last_report(void);
void h_clear_report(void);
/* How many parallel_for calls the host served. */
int h_parallel_calls(void);

/* Creates a target with the schema defaults, overridden by "name=value"
 * strings (NULL-terminated list). */
tvm_plugin_target *h_target(const char *const *overrides);

/* A compiled and loaded module. */
typedef struct h_mod {
  tvm_plugin_target *t;
  tvm_plugin_device *d;
  tvm_plugin_module *m;
  tvm_plugin_blob blob;
} h_mod;
/* codegen + device_open + module_load; returns the codegen/load status. */
int32_t h_build(tvm_plugin_target *t, const tvm_module *m, h_mod *out);
/* Calls function name with args. */
int32_t h_call(h_mod *hm, const char *name, tvm_plugin_arg *args, uint32_t n);
void h_free(h_mod *hm);

/* Argument helpers. */
tvm_plugin_arg h_ptr(void *p);
tvm_plugin_arg h_int(int64_t v);
tvm_plugin_arg h_flt(double v);



/* The plugin's tvm_plugin_query, for negotiation tests. */
tvm_plugin_query_fn h_query(void);
#endif
