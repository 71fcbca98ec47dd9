/*
 * plugin.c - the llvm-cpu plugin's descriptor: ABI negotiation, the
 * attribute schema, and target instances (create, destroy, info).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_cpu.h"

/* The host API of the process; written once by tvm_plugin_query. */
static const tvm_host_api *g_host;

/* The host API given at query time, or NULL. */
const tvm_host_api *lc_host(void) { return g_host; }

/* Formats a message and hands it to host->report (falling back to the
 * core's per-thread diagnostic); returns st.  The SDK library does the
 * work; this keeps the plugin's many call sites short. */
int32_t lc_report(int32_t st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tvm_sdk_vreport(g_host, st, fmt, ap);
  va_end(ap);
  return st;
}

/* Allocates memory the host will free (host->alloc when offered). */
void *lc_host_alloc(uint64_t n) { return tvm_sdk_alloc(g_host, n); }

/* ---- attribute schema ---------------------------------------------------- */
#define ATTR(ty, nm, def, lo, hi, ch, dc) \
  {sizeof(tvm_plugin_attr), ty, nm, def, lo, hi, ch, dc}
/* Schedule templates, by registry operator name (strategy_*.c; "matmul"
 * is tvmc matmul's packed product).  Everything else gets the core's
 * generic CPU schedule (keys: [cpu]). */
#define STRATEGY(op, name, fn)                                            \
  {sizeof(tvm_plugin_strategy), 10, op, name, fn, TVM_STRATEGY_MATCH_OP, 0, \
   NULL}
static const tvm_plugin_strategy strategies[] = {
    STRATEGY("matmul", "llvm-cpu.matmul_packed", llvm_cpu_schedule_matmul),
    STRATEGY("MatMul_packed", "llvm-cpu.matmul_packed",
             llvm_cpu_schedule_matmul),
    STRATEGY("MatMul", "llvm-cpu.batch_matmul",
             llvm_cpu_schedule_batch_matmul),
    STRATEGY("Conv_NCHWc", "llvm-cpu.conv2d_NCHWc",
             llvm_cpu_schedule_conv2d_nchwc),
    STRATEGY("Conv2D_winograd_NCHWc", "llvm-cpu.winograd_NCHWc",
             llvm_cpu_schedule_winograd_nchwc),
    STRATEGY("Conv2D_winograd_input_NCHWc", "llvm-cpu.winograd_input_NCHWc",
             llvm_cpu_schedule_winograd_input_nchwc),
    STRATEGY("Gemm", "llvm-cpu.dense", llvm_cpu_schedule_dense),
    STRATEGY("Pool_NCHWc", "llvm-cpu.pool_NCHWc",
             llvm_cpu_schedule_pool_nchwc),
    STRATEGY("Softmax", "llvm-cpu.rows", llvm_cpu_schedule_rows),
    STRATEGY("LayerNormalization", "llvm-cpu.rows", llvm_cpu_schedule_rows),
    STRATEGY("ReduceSum", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("ReduceMean", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("ReduceMax", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("ReduceMin", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("ReduceProd", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("ReduceSumSquare", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("ReduceL1", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("ReduceL2", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("ReduceLogSum", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("ReduceLogSumExp", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("GlobalAveragePool", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
    STRATEGY("GlobalMaxPool", "llvm-cpu.reduce", llvm_cpu_schedule_reduce),
};

static const tvm_plugin_attr schema[] = {
    ATTR(TVM_PLUGIN_ATTR_STRING, "mcpu", "native", 0, 0, NULL,
         "LLVM CPU name; native = the host CPU"),
    ATTR(TVM_PLUGIN_ATTR_STRING, "mattr", "", 0, 0, NULL,
         "LLVM feature string (+avx2,+fma); empty = host features with "
         "mcpu native"),
    ATTR(TVM_PLUGIN_ATTR_INT, "num_threads", "0", 0, 1024, NULL,
         "threads for parallel loops; 0 = all cores"),
    ATTR(TVM_PLUGIN_ATTR_INT, "opt_level", "3", 0, 3, NULL,
         "LLVM optimization level"),
    ATTR(TVM_PLUGIN_ATTR_INT, "vector_bits", "0", 0, 4096, NULL,
         "SIMD width for schedules; 0 = derived from the CPU features"),
    ATTR(TVM_PLUGIN_ATTR_STRING, "output", "object", 0, 0, "object|shared",
         "codegen output: relocatable ELF object or shared object"),
    ATTR(TVM_PLUGIN_ATTR_INT, "winograd_min_tiles", "-1", -1, 1 << 20, NULL,
         "3x3 stride-1 convolutions (16 channels or more each side) whose "
         "output has at least this many 4x4 tiles run as Winograd by "
         "default; -1: chosen from the tiles, the vector width and the "
         "weights' size (F(4x4, 3x3) or F(2x2, 3x3)); 0: never (a tuning "
         "log's layout records still choose per convolution)"),
    ATTR(TVM_PLUGIN_ATTR_INT, "winograd_tile", "-1", -1, 4, NULL,
         "output tile of the Winograd convolutions chosen by default: 4 = "
         "F(4x4, 3x3) (fewer multiplications, 4x the weights), 2 = F(2x2, "
         "3x3) (1.8x the weights); -1: per convolution, from the weights' "
         "size per tile and the threads (tuning log layout records still "
         "choose per convolution)"),
};
#define NSCHEMA (sizeof schema / sizeof schema[0])

/* Frees a target and everything it owns. */
static void target_destroy(tvm_plugin_target *t) {
  if (!t) return;
  free(t->mcpu);
  free(t->mattr);
  free(t->triple);
  free(t->description);
  free(t);
}

/* Creates a target from validated attribute values: resolves native CPU
 * name and features, the thread count and the vector width. */
static int32_t target_create(const tvm_plugin_attr_value *values,
                             uint32_t nvalues, tvm_plugin_target **out) {
  *out = NULL;
  lc_llvm_init();
  tvm_plugin_target *t = calloc(1, sizeof *t);
  if (!t) return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  const char *mcpu = tvm_sdk_attr_str(values, nvalues, "mcpu", "native");
  const char *mattr = tvm_sdk_attr_str(values, nvalues, "mattr", "");
  const char *output = tvm_sdk_attr_str(values, nvalues, "output", "object");
  int64_t nt = tvm_sdk_attr_int(values, nvalues, "num_threads", 0);
  int64_t ol = tvm_sdk_attr_int(values, nvalues, "opt_level", 3);
  int64_t vb = tvm_sdk_attr_int(values, nvalues, "vector_bits", 0);
  int64_t wt = tvm_sdk_attr_int(values, nvalues, "winograd_min_tiles", -1);
  int64_t wtile = tvm_sdk_attr_int(values, nvalues, "winograd_tile", -1);
  if (nt < 0 || nt > 1024 || ol < 0 || ol > 3 || vb < 0 || vb > 4096 ||
      wt < -1 || wt > (1 << 20) ||
      (wtile != -1 && wtile != 2 && wtile != 4)) {
    target_destroy(t);
    return lc_report(TVM_ERR_INVALID,
                     "llvm-cpu: attribute out of range (num_threads 0..1024, "
                     "opt_level 0..3, vector_bits 0..4096, "
                     "winograd_min_tiles -1..1048576, winograd_tile -1, 2 "
                     "or 4)");
  }
  if (strcmp(output, "object") != 0 && strcmp(output, "shared") != 0) {
    target_destroy(t);
    return lc_report(TVM_ERR_INVALID,
                     "llvm-cpu: attribute output is '%s'; use object or "
                     "shared", output);
  }
  int native = strcmp(mcpu, "native") == 0;
  t->mcpu = native ? lc_host_cpu_name() : strdup(mcpu);
  if (mattr[0])
    t->mattr = strdup(mattr);
  else
    t->mattr = native ? lc_host_cpu_features() : strdup("");
  {
    char *tr = LLVMGetDefaultTargetTriple();
    t->triple = tr ? strdup(tr) : NULL;
    LLVMDisposeMessage(tr);
  }
  if (!t->mcpu || !t->mattr || !t->triple) {
    target_destroy(t);
    return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  }
  t->num_threads = nt ? (int)nt : lc_num_cores();
  t->opt_level = (int)ol;
  t->vector_bits = vb ? (int)vb : lc_vector_bits_of(t->mcpu, t->mattr);
  t->output_shared = strcmp(output, "shared") == 0;
  t->winograd_min_tiles = wt;
  t->winograd_tile = (int)wtile;

  /* Check now that LLVM accepts the CPU, so a bad YAML fails early. */
  LLVMTargetMachineRef tm = lc_target_machine(t);
  if (!tm) {
    target_destroy(t);
    return TVM_ERR_INVALID;
  }
  LLVMDisposeTargetMachine(tm);

  char desc[256];
  const char *arch = t->triple;
  size_t archlen = strcspn(arch, "-");
  int simd = lc_target_simd_bits(t); /* what the CPU has; 0 off x86 */
  snprintf(desc, sizeof desc, "%.*s %s%s, %d thread%s", (int)archlen, arch,
           t->mcpu,
           simd >= 512   ? " +avx512f"
           : simd >= 256 ? " +avx2"
                         : "",
           t->num_threads, t->num_threads == 1 ? "" : "s");
  t->description = strdup(desc);

  t->scopes[0] = (tvm_plugin_scope){sizeof(tvm_plugin_scope),
                                    TVM_VIS_DEVICE | TVM_VIS_HOST, "global",
                                    0, 64, -1};
  t->scopes[1] = (tvm_plugin_scope){sizeof(tvm_plugin_scope), TVM_VIS_THREAD,
                                    "local", 0, 64, -1};
  t->info.struct_size = sizeof t->info;
  t->info.vector_bits = (uint32_t)t->vector_bits;
  t->info.has_threads = 0;
  t->info.num_queues = 0;
  t->info.queue_names = NULL;
  t->info.scopes = t->scopes;
  t->info.nscopes = 2;
  t->info.description = t->description;
  t->info.host_memory = 1; /* ABI 8: kernels run on the host's memory */
  t->info.strategies = strategies;
  t->info.nstrategies = sizeof strategies / sizeof strategies[0];
  *out = t;
  return TVM_OK;
}

/* What the target is like (owned by the target). */
static const tvm_plugin_target_info *target_info(tvm_plugin_target *t) {
  return &t->info;
}

/* The vtable's runtime slots live in runtime.c. */
int32_t lc_probe(tvm_plugin_target *t);
int32_t lc_device_open(tvm_plugin_target *t, tvm_plugin_device **out);
void lc_device_close(tvm_plugin_device *d);
int32_t lc_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                     uint64_t align, void **out);
void lc_mem_free(tvm_plugin_device *d, uint32_t scope, void *p);
int32_t lc_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                const void *src, uint64_t src_offset, uint64_t nbytes,
                uint32_t kind);
int32_t lc_func_get(tvm_plugin_module *m, const char *name,
                    tvm_plugin_func **out);
int32_t lc_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                  const tvm_plugin_arg *args, uint32_t nargs,
                  const uint32_t grid[3], const uint32_t block[3]);

static const tvm_plugin_vtable vtable = {
    .struct_size = sizeof(tvm_plugin_vtable),
    .nattrs = NSCHEMA,
    .attrs = schema,
    .target_create = target_create,
    .target_destroy = target_destroy,
    .target_info = target_info,
    .codegen = lc_codegen,
    .probe = lc_probe,
    .device_open = lc_device_open,
    .device_close = lc_device_close,
    .mem_alloc = lc_mem_alloc,
    .mem_free = lc_mem_free,
    .copy = lc_copy,
    .module_load = lc_module_load,
    .module_unload = lc_module_unload,
    .func_get = lc_func_get,
    .launch = lc_launch,
    .sync = NULL,
    .timer_start = NULL,
    .timer_stop = NULL,
    .alter_layout = llvm_cpu_alter_layout,
    .device_open_pool = lc_device_open_pool,
};

/* 8: host_memory is read (the executor passes parameters in place);
 * 7: alter_layout's flags (flat pixels for convolutions) are read;
 * 5 and 6 add slots this plugin leaves NULL */
static const tvm_plugin_desc desc_v8 = {
    sizeof(tvm_plugin_desc), 8, "llvm-cpu", "0.1.0",
    "CPU code generation through the LLVM-C API (x86-64, AArch64)", &vtable};
static const tvm_plugin_desc desc_v7 = {
    sizeof(tvm_plugin_desc), 7, "llvm-cpu", "0.1.0",
    "CPU code generation through the LLVM-C API (x86-64, AArch64)", &vtable};
static const tvm_plugin_desc desc_v4 = {
    sizeof(tvm_plugin_desc), 4, "llvm-cpu", "0.1.0",
    "CPU code generation through the LLVM-C API (x86-64, AArch64)", &vtable};
static const tvm_plugin_desc desc_v3 = {
    sizeof(tvm_plugin_desc), 3, "llvm-cpu", "0.1.0",
    "CPU code generation through the LLVM-C API (x86-64, AArch64)", &vtable};
static const tvm_plugin_desc desc_v2 = {
    sizeof(tvm_plugin_desc), 2, "llvm-cpu", "0.1.0",
    "CPU code generation through the LLVM-C API (x86-64, AArch64)", &vtable};
static const tvm_plugin_desc desc_v1 = {
    sizeof(tvm_plugin_desc), 1, "llvm-cpu", "0.1.0",
    "CPU code generation through the LLVM-C API (x86-64, AArch64)", &vtable};

/* The one exported entry: negotiates the ABI (8, 7, 4 or host_abi_max) and
 * keeps the host API.  Pure: no LLVM initialization happens here. */
TVM_PLUGIN_EXPORT const tvm_plugin_desc *tvm_plugin_query(
    uint32_t host_abi_max, const tvm_host_api *host) {
  if (host_abi_max < 1) return NULL;
  if (host) g_host = host;
  if (host_abi_max >= 8) return &desc_v8;
  if (host_abi_max >= 7) return &desc_v7;
  if (host_abi_max >= 4) return &desc_v4;
  return host_abi_max >= 3 ? &desc_v3 : host_abi_max >= 2 ? &desc_v2 : &desc_v1;
}
