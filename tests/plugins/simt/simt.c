/*
 * tests/plugins/simt/simt.c - a thread target that runs on the CPU, to
 * check the core's generic thread schedules numerically without a GPU.
 *
 * The plugin "simt" says has_threads = 1 (its YAML: keys [gpu]), so the
 * core schedules every fused group with thread-bound loops
 * (blockIdx.x/threadIdx.x, shared-memory cross-thread reductions) and
 * split_host_device moves them into device kernels, which the runtime
 * launches from host programs.  Its codegen runs the core's
 * serialize_threads pass on every kernel (thread loops become serial
 * loops, split at barriers) and hands the serialized kernels, under
 * their own names, to the llvm-cpu plugin's codegen.  Everything else (attributes, devices,
 * memory, modules, launches, layout choices) is llvm-cpu's: this plugin is linked with
 * llvm-cpu's sources, whose entry point is renamed to
 * simt_llvm_cpu_query at compile time (tests/plugins/simt/local.mk).
 */
#include <stdlib.h>
#include <string.h>

#include "tvm/plugin.h"

#undef tvm_plugin_query
const tvm_plugin_desc *simt_llvm_cpu_query(uint32_t host_abi_max,
                                           const tvm_host_api *host);

/* A simt target: the llvm-cpu instance it wraps and its own info. */
typedef struct simt_target {
  tvm_plugin_target *inner;
  tvm_plugin_target_info info;
} simt_target;

static const tvm_plugin_vtable *inner_vt;
static const tvm_host_api *host;

#define SIMT(t) ((simt_target *)(void *)(t))

/* Creates the llvm-cpu instance and describes it as a thread target. */
static int32_t simt_target_create(const tvm_plugin_attr_value *values,
                                  uint32_t nvalues, tvm_plugin_target **out) {
  simt_target *st = calloc(1, sizeof *st);
  int32_t rc;
  if (!st) return TVM_ERR_NOMEM;
  rc = inner_vt->target_create(values, nvalues, &st->inner);
  if (rc != 0) {
    free(st);
    return rc;
  }
  const tvm_plugin_target_info *ii = inner_vt->target_info(st->inner);
  memset(&st->info, 0, sizeof st->info);
  st->info.struct_size = sizeof st->info;
  st->info.vector_bits = ii->vector_bits;
  st->info.has_threads = 1;
  st->info.scopes = ii->scopes;
  st->info.nscopes = ii->nscopes;
  st->info.description = "SIMT on the CPU: thread kernels serialized, "
                         "compiled by llvm-cpu";
  st->info.max_threads_per_block = 1024;
  st->info.thread_warp_size = 32;
  *out = (tvm_plugin_target *)(void *)st;
  return TVM_OK;
}

static void simt_target_destroy(tvm_plugin_target *t) {
  if (!t) return;
  inner_vt->target_destroy(SIMT(t)->inner);
  free(SIMT(t));
}

static const tvm_plugin_target_info *simt_target_info(tvm_plugin_target *t) {
  return &SIMT(t)->info;
}

/* Serializes every device function (thread loops become serial loops,
 * split at barriers) into a CPU function of the same name and
 * parameters, then llvm-cpu's codegen.  The host programs the runtime
 * runs launch them by name; llvm-cpu's launch calls each one once, which
 * runs all its blocks and threads. */
static int32_t simt_codegen(tvm_plugin_target *t, const tvm_module *m,
                            tvm_plugin_blob *out) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_module hm = {0};
  tvm_status st = TVM_OK;
  int32_t rc;
  if (!c) return TVM_ERR_NOMEM;
  hm.ctx = c;
  for (int i = 0; i < m->nfuncs && !st; i++) {
    tvm_func *k = m->funcs[i], *ser = NULL;
    if (k->kind != TVM_FUNC_DEVICE) continue; /* host code is the host's */
    if ((st = tvm_pass_serialize_threads(c, k, NULL, &ser))) break;
    tvm_func *nf = tvm_func_new(c, k->name, ser->params, ser->buffers,
                                ser->nparams, ser->body);
    if (!nf) {
      st = tvm_ctx_status(c) ? tvm_ctx_status(c) : TVM_ERR_NOMEM;
      break;
    }
    nf->kind = TVM_FUNC_HOST;
    st = tvm_module_add(&hm, nf);
  }
  rc = st ? st : inner_vt->codegen(SIMT(t)->inner, &hm, out);
  tvm_ctx_destroy(c);
  return rc;
}

static int32_t simt_probe(tvm_plugin_target *t) {
  return inner_vt->probe ? inner_vt->probe(SIMT(t)->inner) : 0;
}

static int32_t simt_device_open(tvm_plugin_target *t,
                                tvm_plugin_device **out) {
  return inner_vt->device_open(SIMT(t)->inner, out);
}

/* llvm-cpu's layout choice (blocked convolutions and pools), so that the
 * thread schedules also meet Conv_NCHWc and Pool_NCHWc. */
static int32_t simt_alter_layout(tvm_plugin_target *t, const tvm_gnode *n,
                                 tvm_plugin_layout *out) {
  return inner_vt->alter_layout(SIMT(t)->inner, n, out);
}

static tvm_plugin_vtable vtable;
static const tvm_plugin_desc desc = {
    sizeof(tvm_plugin_desc), 4, "simt", "0.1.0",
    "test thread target: serialized thread kernels on the CPU (llvm-cpu)",
    &vtable};

/* Takes llvm-cpu's vtable and replaces the target and codegen slots. */
TVM_PLUGIN_EXPORT const tvm_plugin_desc *tvm_plugin_query(
    uint32_t host_abi_max, const tvm_host_api *h) {
  if (host_abi_max < 4) return NULL;
  const tvm_plugin_desc *in = simt_llvm_cpu_query(host_abi_max, h);
  if (!in || !in->vtable) return NULL;
  host = h;
  inner_vt = in->vtable;
  vtable = *inner_vt;
  vtable.struct_size = sizeof vtable;
  vtable.target_create = simt_target_create;
  vtable.target_destroy = simt_target_destroy;
  vtable.target_info = simt_target_info;
  vtable.codegen = simt_codegen;
  vtable.probe = simt_probe;
  vtable.device_open = simt_device_open;
  vtable.alter_layout = inner_vt->alter_layout ? simt_alter_layout : NULL;
  return &desc;
}
