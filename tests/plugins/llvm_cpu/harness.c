/*
 * harness.c - see harness.h.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void *g_dl;
static const tvm_plugin_desc *g_desc;
static char g_report[2048];
static int g_pcalls;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* host->report: keeps the last message for the tests to inspect. */
static void h_report(int32_t st, const char *msg) {
  pthread_mutex_lock(&g_lock);
  snprintf(g_report, sizeof g_report, "%s", msg);
  pthread_mutex_unlock(&g_lock);
  (void)st;
}

/* host->log: to stderr. */
static void h_log(int32_t level, const char *msg) {
  (void)level;
  fprintf(stderr, "plugin log: %s\n", msg);
}

/* host->alloc / host->free: malloc and free. */
static void *h_alloc(uint64_t n) { return malloc(n); }
static void h_freefn(void *p) { free(p); }

/* One task of a parallel_for and its result. */
typedef struct job {
  int32_t (*task)(int64_t, int64_t, void *);
  void *data;
  int64_t i, n;
  int32_t rc;
} job;

/* Thread body: runs one task. */
static void *run_job(void *p) {
  job *j = p;
  j->rc = j->task(j->i, j->n, j->data);
  return NULL;
}

/* One pthread per task (tests use small task counts). */
static int32_t h_parallel_for(int32_t (*task)(int64_t, int64_t, void *),
                              void *data, int64_t n) {
  pthread_mutex_lock(&g_lock);
  g_pcalls++;
  pthread_mutex_unlock(&g_lock);
  job *jobs = calloc((size_t)n, sizeof *jobs);
  pthread_t *th = calloc((size_t)n, sizeof *th);
  if (!jobs || !th) return -2;
  for (int64_t i = 0; i < n; i++) {
    jobs[i] = (job){task, data, i, n, 0};
    if (pthread_create(&th[i], NULL, run_job, &jobs[i]) != 0) run_job(&jobs[i]), th[i] = 0;
  }
  int32_t rc = 0;
  for (int64_t i = 0; i < n; i++) {
    if (th[i]) pthread_join(th[i], NULL);
    if (!rc && jobs[i].rc) rc = jobs[i].rc;
  }
  free(jobs);
  free(th);
  return rc;
}

static const tvm_host_api g_host = {
    sizeof(tvm_host_api), TVM_PLUGIN_ABI_VERSION, h_report, h_log, h_alloc,
    h_freefn, h_parallel_for, 4, 0, NULL, NULL};

const tvm_host_api *h_host(void) { return &g_host; }
const char *h_last_report(void) { return g_report; }
void h_clear_report(void) { g_report[0] = 0; }
int h_parallel_calls(void) { return g_pcalls; }
const tvm_plugin_desc *h_desc(void) { return g_desc; }

/* dlopens $TVM_BUILDDIR/plugins/llvm-cpu/.libs/tvm-llvm-cpu.so and queries
 * it with ABI 2 and the host above. */
int h_load_plugin(void) {
  if (g_desc) return 0;
  const char *bd = getenv("TVM_BUILDDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/plugins/llvm-cpu/.libs/tvm-llvm-cpu.so",
           bd ? bd : ".");
  g_dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!g_dl) {
    fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    return -1;
  }
  tvm_plugin_query_fn q = (tvm_plugin_query_fn)dlsym(g_dl, TVM_PLUGIN_ENTRY);
  if (!q) return -1;
  g_desc = q(TVM_PLUGIN_ABI_VERSION, &g_host);
  return g_desc ? 0 : -1;
}

/* Schema defaults, overridden by name=value strings, then target_create. */
tvm_plugin_target *h_target(const char *const *overrides) {
  const tvm_plugin_vtable *vt = g_desc->vtable;
  tvm_plugin_attr_value vals[32];
  uint32_t n = vt->nattrs < 32 ? vt->nattrs : 32;
  for (uint32_t i = 0; i < n; i++) {
    const tvm_plugin_attr *a = &vt->attrs[i];
    const char *v = a->default_value ? a->default_value : "";
    for (int k = 0; overrides && overrides[k]; k++) {
      size_t len = strlen(a->name);
      if (strncmp(overrides[k], a->name, len) == 0 && overrides[k][len] == '=')
        v = overrides[k] + len + 1;
    }
    vals[i] = (tvm_plugin_attr_value){sizeof(tvm_plugin_attr_value), a->type,
                                      a->name, 0, 0, NULL};
    if (a->type == TVM_PLUGIN_ATTR_INT || a->type == TVM_PLUGIN_ATTR_BOOL)
      vals[i].i = atoll(v);
    else if (a->type == TVM_PLUGIN_ATTR_FLOAT)
      vals[i].f = atof(v);
    else
      vals[i].s = v;
  }
  tvm_plugin_target *t = NULL;
  if (vt->target_create(vals, n, &t) != 0) return NULL;
  return t;
}

/* codegen + device_open + module_load. */
int32_t h_build(tvm_plugin_target *t, const tvm_module *m, h_mod *out) {
  const tvm_plugin_vtable *vt = g_desc->vtable;
  memset(out, 0, sizeof *out);
  out->t = t;
  int32_t st = vt->codegen(t, m, &out->blob);
  if (st) return st;
  st = vt->device_open(t, &out->d);
  if (st) return st;
  return vt->module_load(out->d, &out->blob, &out->m);
}

/* func_get + launch. */
int32_t h_call(h_mod *hm, const char *name, tvm_plugin_arg *args, uint32_t n) {
  const tvm_plugin_vtable *vt = g_desc->vtable;
  tvm_plugin_func *f = NULL;
  int32_t st = vt->func_get(hm->m, name, &f);
  if (st) return st;
  uint32_t g[3] = {1, 1, 1};
  return vt->launch(hm->d, f, args, n, g, g);
}

/* Unloads, closes and frees the blob (allocated with malloc by h_alloc). */
void h_free(h_mod *hm) {
  const tvm_plugin_vtable *vt = g_desc->vtable;
  if (hm->m) vt->module_unload(hm->m);
  if (hm->d) vt->device_close(hm->d);
  for (uint32_t i = 0; i < hm->blob.nkernels; i++)
    free((void *)hm->blob.kernels[i].name);
  free(hm->blob.kernels);
  free(hm->blob.data);
  memset(hm, 0, sizeof *hm);
}

/* Argument constructors. */
tvm_plugin_arg h_ptr(void *p) {
  tvm_plugin_arg a = {TVM_ARG_PTR, 0, {.ptr = p}};
  return a;
}
tvm_plugin_arg h_int(int64_t v) {
  tvm_plugin_arg a = {TVM_ARG_INT, 0, {.i = v}};
  return a;
}
tvm_plugin_arg h_flt(double v) {
  tvm_plugin_arg a = {TVM_ARG_FLOAT, 0, {.f = v}};
  return a;
}

/* The plugin's entry point. */
tvm_plugin_query_fn h_query(void) {
  return (tvm_plugin_query_fn)dlsym(g_dl, TVM_PLUGIN_ENTRY);
}
