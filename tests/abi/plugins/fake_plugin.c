/*
 * tests/abi/plugins/fake_plugin.c - a configurable test plugin.
 *
 * Built several times with different -D flags into the test plugins of
 * tests/abi (see tests/abi/local.mk):
 *   FAKE_NAME     descriptor name                       (default "fake")
 *   FAKE_ABI      version answered; 0 = min(host, 9)    (default 2)
 *   FAKE_VT_SIZE  vtable struct_size                    (default: by ABI)
 *   FAKE_NULL     tvm_plugin_query returns NULL
 *   FAKE_GONE     calls a function of a library that is absent at run time
 *   FAKE_BLOCK_DEFAULT  default of the "block" attribute (default: NULL,
 *                 i.e. required)
 *   FAKE_QUANT_ACT_BITS  (ABI 6) a quantize slot asking for activations
 *                 of that many bits (int8 weights, int32 sums, blocks 16)
 *
 * The "device" is host memory; its one kernel family, any function whose
 * name starts with "add", computes C[i] = A[i] + B[i] (float32) for
 * arguments (A, B, C, n).  The timer of the ABI 2 build reports 1.5 ms;
 * the ABI 1 build leaves a timer that fails the run in the slots past
 * its declared struct_size, to prove the host never reads them.
 */
#include <stdlib.h>
#include <string.h>

#include "tvm/plugin.h"

#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif
#ifndef FAKE_ABI
#define FAKE_ABI 2
#endif
#ifndef FAKE_VT_SIZE
#if FAKE_ABI == 1
#define FAKE_VT_SIZE TVM_PLUGIN_VTABLE_SIZE_V1
#elif FAKE_ABI == 2
#define FAKE_VT_SIZE TVM_PLUGIN_VTABLE_SIZE_V2
#elif FAKE_ABI == 3
#define FAKE_VT_SIZE TVM_PLUGIN_VTABLE_SIZE_V3
#elif FAKE_ABI == 4
#define FAKE_VT_SIZE TVM_PLUGIN_VTABLE_SIZE_V4
#elif FAKE_ABI == 5
#define FAKE_VT_SIZE TVM_PLUGIN_VTABLE_SIZE_V5
#else
#define FAKE_VT_SIZE sizeof(tvm_plugin_vtable)
#endif
#endif

#ifndef FAKE_BLOCK_DEFAULT
#define FAKE_BLOCK_DEFAULT NULL
#endif

#ifdef FAKE_GONE
int tvm_abi_gone_function(void);
#endif

static const tvm_host_api *host;

struct tvm_plugin_target {
  int64_t num_threads, block;
  tvm_plugin_target_info info;
};
struct tvm_plugin_module { int loaded; };
struct tvm_plugin_func { int is_add; };

static const tvm_plugin_attr schema[] = {
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_INT, "num_threads", "0", 0, 1024, NULL,
     "worker threads, 0 = every core"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_STRING, "mode", "fast", 0, 0,
     "fast|slow", "a choice"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_FLOAT, "scale", "1.0", 0.5, 4, NULL,
     "a float in a range"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_BOOL, "debug", "false", 0, 0, NULL,
     "a flag"},
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_INT, "block", FAKE_BLOCK_DEFAULT, 1, 64,
     NULL, "required: block size"},
};

static const tvm_plugin_scope scopes[] = {
    {sizeof(tvm_plugin_scope), TVM_VIS_DEVICE | TVM_VIS_HOST, "global", 0, 64,
     -1},
    {sizeof(tvm_plugin_scope), TVM_VIS_BLOCK, "fake.sram", 4096, 64, 0},
};

static int64_t attr(const tvm_plugin_attr_value *v, uint32_t n,
                    const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(v[i].name, name) == 0) return v[i].i;
  return -1;
}

static int32_t target_create(const tvm_plugin_attr_value *v, uint32_t n,
                             tvm_plugin_target **out) {
  if (n != sizeof schema / sizeof schema[0]) {
    host->report(-1, "fake: wrong number of attribute values");
    return -1;
  }
  if (attr(v, n, "block") == 13) {
    host->report(-1, "fake: block 13 is unlucky");
    return -1;
  }
  tvm_plugin_target *t = calloc(1, sizeof(*t));
  if (t == NULL) return -2;
  t->num_threads = attr(v, n, "num_threads");
  t->block = attr(v, n, "block");
  t->info.struct_size = sizeof(t->info);
  t->info.vector_bits = 256;
  t->info.num_queues = 1;
  t->info.scopes = scopes;
  t->info.nscopes = 2;
  t->info.unroll_max_extent = 8;
  t->info.description = "fake test target";
  *out = t;
  return 0;
}

static void target_destroy(tvm_plugin_target *t) { free(t); }

static const tvm_plugin_target_info *target_info(tvm_plugin_target *t) {
  return &t->info;
}

/* One kernel per function of the module: name, parameter count. */
static int32_t codegen(tvm_plugin_target *t, const tvm_module *m,
                       tvm_plugin_blob *out) {
  out->format = TVM_BLOB_CUSTOM;
  out->data = host->alloc(4);
  out->kernels = host->alloc(sizeof(tvm_plugin_kernel) *
                             (uint64_t)(m->nfuncs ? m->nfuncs : 1));
  if (out->data == NULL || out->kernels == NULL) return -2;
  memcpy(out->data, "FAKE", 4);
  out->size = 4;
  for (int i = 0; i < m->nfuncs; i++) {
    tvm_plugin_kernel *k = &out->kernels[i];
    memset(k, 0, sizeof(*k));
    k->struct_size = sizeof(*k);
    k->nargs = (uint32_t)m->funcs[i]->nparams;
    size_t len = strlen(m->funcs[i]->name) + 1;
    char *name = host->alloc(len);
    if (name == NULL) return -2;
    memcpy(name, m->funcs[i]->name, len);
    k->name = name;
    k->grid[0] = k->grid[1] = k->grid[2] = 1;
    k->block[0] = k->block[1] = k->block[2] = 1;
    out->nkernels = (uint32_t)i + 1;
  }
  return 0;
}

static int32_t probe(tvm_plugin_target *t) {
  if (getenv("FAKE_UNAVAILABLE") != NULL) {
    host->report(-5, "fake device missing: unset FAKE_UNAVAILABLE");
    return -5;
  }
  return 0;
}

static int32_t module_load(tvm_plugin_device *d, const tvm_plugin_blob *b,
                           tvm_plugin_module **out) {
  if (b->size != 4 || memcmp(b->data, "FAKE", 4) != 0) {
    host->report(-1, "fake: not a fake blob");
    return -1;
  }
  tvm_plugin_module *m = calloc(1, sizeof(*m));
  if (m == NULL) return -2;
  m->loaded = 1;
  *out = m;
  return 0;
}

static void module_unload(tvm_plugin_module *m) { free(m); }

static tvm_plugin_func add_func = {1};
static tvm_plugin_func other_func = {0};

static int32_t func_get(tvm_plugin_module *m, const char *name,
                        tvm_plugin_func **out) {
  *out = strncmp(name, "add", 3) == 0 ? &add_func : &other_func;
  return 0;
}

static int32_t launch(tvm_plugin_device *d, tvm_plugin_func *f,
                      const tvm_plugin_arg *args, uint32_t nargs,
                      const uint32_t grid[3], const uint32_t block[3]) {
  if (!f->is_add) return 0;
  if (nargs != 4 || args[0].type != TVM_ARG_PTR ||
      args[1].type != TVM_ARG_PTR || args[2].type != TVM_ARG_PTR ||
      args[3].type != TVM_ARG_INT) {
    host->report(-1, "fake: add takes (A, B, C, n)");
    return -1;
  }
  const float *a = args[0].v.ptr, *b = args[1].v.ptr;
  float *c = args[2].v.ptr;
  for (int64_t i = 0; i < args[3].v.i; i++) c[i] = a[i] + b[i];
  return 0;
}

#if FAKE_ABI == 1
/* Past struct_size: a host that calls these is broken. */
static int32_t timer_start(tvm_plugin_device *d, uint64_t *token) {
  host->report(-8, "fake: ABI 1 timer slot read beyond struct_size");
  return -8;
}
static int32_t timer_stop(tvm_plugin_device *d, uint64_t token, double *ms) {
  host->report(-8, "fake: ABI 1 timer slot read beyond struct_size");
  return -8;
}
#else
static int32_t timer_start(tvm_plugin_device *d, uint64_t *token) {
  *token = 42;
  return 0;
}
static int32_t timer_stop(tvm_plugin_device *d, uint64_t token, double *ms) {
  *ms = token == 42 ? 1.5 : -1;
  return 0;
}
#endif

#ifdef FAKE_QUANT_ACT_BITS
static int32_t quantize(tvm_plugin_target *t, tvm_plugin_quant *q) {
  (void)t;
  q->enabled = 1;
  q->act_code = kDLInt, q->act_bits = FAKE_QUANT_ACT_BITS;
  q->weight_code = kDLInt, q->weight_bits = 8;
  q->acc_code = kDLInt, q->acc_bits = 32;
  q->scale = TVM_QUANT_SCALE_POW2;
  q->block_batch = 1, q->block_in = 16, q->block_out = 16;
  return 0;
}
#endif

static const tvm_plugin_vtable vtable = {
    .struct_size = FAKE_VT_SIZE,
    .nattrs = sizeof schema / sizeof schema[0],
    .attrs = schema,
    .target_create = target_create,
    .target_destroy = target_destroy,
    .target_info = target_info,
    .codegen = codegen,
    .probe = probe,
    .module_load = module_load,
    .module_unload = module_unload,
    .func_get = func_get,
    .launch = launch,
    .timer_start = timer_start,
    .timer_stop = timer_stop,
#ifdef FAKE_QUANT_ACT_BITS
    .quantize = quantize,
#endif
};

static tvm_plugin_desc desc = {sizeof(tvm_plugin_desc), 0, FAKE_NAME, "0.1",
                               "test plugin", &vtable};

TVM_PLUGIN_EXPORT const tvm_plugin_desc *tvm_plugin_query(
    uint32_t host_abi_max, const tvm_host_api *h) {
  host = h;
#ifdef FAKE_GONE
  if (tvm_abi_gone_function() != 0) return NULL;
#endif
#ifdef FAKE_NULL
  return NULL;
#endif
  if (FAKE_ABI == 0) desc.abi_version = host_abi_max < 9 ? host_abi_max : 9;
  else desc.abi_version = FAKE_ABI;
  return &desc;
}
