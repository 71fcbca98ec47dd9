/*
 * tests/unit/compiler/test_thread_ops.c - operators scheduled by the
 * core's generic thread schedules and run on a real thread target (the
 * vulkan plugin: lavapipe in CI, any Vulkan GPU), compared with each
 * operator's naive reference.  Where simt (tests/plugins/simt) checks the
 * schedules' arithmetic on one CPU thread, this runs them with real
 * threads, barriers and shared memory.
 *
 * Device kernels are launched directly: the lowered host function is
 * walked (global allocations, then the launch intrinsics in order; any
 * other host code is refused), so that a wrong schedule shows here rather
 * than behind the host-program machinery the graph executor uses.
 * Usage: test_thread_ops [TARGET]   (default vulkan; exit 77 when the
 * target cannot be loaded or has no device here).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/graph.h"
#include "tvm/lower.h"
#include "tvm/runtime.h"
#include "tvm/strategy.h"

static tvm_target *T;
static int fails, runs;

/* Device pointers of the variables of a host function. */
typedef struct hostrun {
  tvm_device *d;
  tvm_runtime_module *rm;
  const tvm_module *m;
  tvm_ptrmap vars; /* buffer var -> device pointer */
  tvm_ptrvec owned;
  const char *err;
} hostrun;

static const tvm_func *device_func(const tvm_module *m, const char *name) {
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i]->kind == TVM_FUNC_DEVICE && !strcmp(m->funcs[i]->name, name))
      return m->funcs[i];
  return NULL;
}

/* Builds the device functions of m (the host function stays here: this
 * test walks it itself). */
static tvm_status build_device(const tvm_module *m, tvm_device *d,
                               tvm_runtime_module **rm) {
  tvm_func *dev[64];
  int n = 0;
  for (int i = 0; i < m->nfuncs && n < 64; i++)
    if (m->funcs[i]->kind == TVM_FUNC_DEVICE) dev[n++] = m->funcs[i];
  tvm_module dm = {m->ctx, dev, n};
  return tvm_build(T, &dm, d, rm);
}

/* Runs host statement s: allocations, sequences and launches only. */
static void host_stmt(hostrun *h, const tvm_stmt *s) {
  if (h->err) return;
  switch (s->kind) {
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) host_stmt(h, s->u.seq.stmts[i]);
    return;
  case TVM_ATTR:
    host_stmt(h, s->u.attr.body);
    return;
  case TVM_ALLOCATE: {
    int64_t n;
    void *p = NULL;
    if (!tvm_is_const_int(s->u.alloc.extent, &n) ||
        tvm_device_alloc(h->d, 0, (uint64_t)(n * s->u.alloc.dtype.bits / 8 + 4),
                         64, &p) ||
        tvm_ptrmap_put(&h->vars, s->u.alloc.buffer, p) ||
        tvm_ptrvec_push(&h->owned, p)) {
      h->err = "host allocation";
      return;
    }
    host_stmt(h, s->u.alloc.body);
    return;
  }
  case TVM_EVALUATE: {
    const tvm_expr *e = s->u.eval.value;
    if (e->kind != TVM_CALL || e->u.call.op != TVM_INTRIN_LAUNCH ||
        e->u.call.nargs < TVM_LAUNCH_NFIXED ||
        e->u.call.args[0]->kind != TVM_STR) {
      h->err = "host code other than launches";
      return;
    }
    const tvm_func *k = device_func(h->m, e->u.call.args[0]->u.str);
    tvm_runtime_func *rf = NULL;
    tvm_plugin_arg args[32];
    if (!k || k->nparams > 32 ||
        tvm_runtime_get_func(h->rm, k->name, &rf)) {
      h->err = "kernel lookup";
      return;
    }
    for (int p = 0; p < k->nparams; p++) {
      void *ptr = NULL;
      if (!tvm_ptrmap_get(&h->vars, k->params[p], &ptr)) {
        h->err = "a kernel parameter that is not a buffer";
        return;
      }
      args[p].type = TVM_ARG_PTR;
      args[p].reserved = 0;
      args[p].v.ptr = ptr;
    }
    const tvm_plugin_kernel *kk = tvm_runtime_func_kernel(rf);
    if (tvm_device_launch(h->d, rf, args, (uint32_t)k->nparams, kk->grid,
                          kk->block))
      h->err = "launch";
    return;
  }
  default:
    h->err = "host code other than launches";
  }
}

/* Bytes of a value. */
static size_t vbytes(const tvm_gvalue *v) {
  return (size_t)tvm_gvalue_bytes(v) + 4;
}

/* Fills value v's host data deterministically (floats in [-1, 1],
 * positive where pos). */
static void fill(DLTensor *t, const tvm_gvalue *v, int pos, int salt) {
  int64_t n = tvm_gvalue_numel(v);
  for (int64_t i = 0; i < n; i++) {
    float x = (float)(((i + salt) * 7919 % 2003) - 1001) / 1001.f;
    ((float *)t->data)[i] = pos ? fabsf(x) + 0.1f : x;
  }
}

/* Runs node n (its graph built by the caller) on T and compares. */
static void check(const char *what, tvm_gnode *n, int pos) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[8] = {0}, *out[4] = {0}, *args[16];
  DLTensor din[8], dref[4], dgot[4];
  tvm_gvalue *argv[16];
  tvm_schedule *s = NULL;
  tvm_strategy_env *env = NULL;
  tvm_config *cfg = tvm_config_create();
  tvm_module m = {c, NULL, 0};
  tvm_runtime_module *rm = NULL;
  tvm_device *d = NULL;
  hostrun h = {0};
  const char *why = NULL;
  int na = 0;
  double worst = 0;
  runs++;
  memset(din, 0, sizeof din);
  memset(dref, 0, sizeof dref);
  memset(dgot, 0, sizeof dgot);
  for (int i = 0; i < n->ninputs; i++) {
    const tvm_gvalue *v = n->inputs[i];
    din[i].data = calloc(1, vbytes(v));
    din[i].ndim = v->ndim;
    din[i].shape = (int64_t *)v->shape;
    din[i].dtype.code = kDLFloat, din[i].dtype.bits = 32, din[i].dtype.lanes = 1;
    fill(&din[i], v, pos, i * 31);
    in[i] = tvm_placeholder(c, v->name, v->dtype, v->shape, v->ndim);
  }
  for (int k = 0; k < n->noutputs; k++) {
    const tvm_gvalue *v = n->outputs[k];
    dref[k].data = calloc(1, vbytes(v));
    dgot[k].data = calloc(1, vbytes(v));
    dref[k].ndim = dgot[k].ndim = v->ndim;
    dref[k].shape = dgot[k].shape = (int64_t *)v->shape;
    dref[k].dtype = dgot[k].dtype = din[0].dtype;
  }
  const DLTensor *pin[8];
  DLTensor *pref[4];
  for (int i = 0; i < 8; i++) pin[i] = &din[i];
  for (int k = 0; k < 4; k++) pref[k] = &dref[k];
  if (n->def->reference(n, pin, pref))
    why = "reference";
  else if (n->def->compute(c, n, in, out))
    why = "compute";
  else if (tvm_strategy_env_create(T, c, &env) ||
           tvm_strategy_schedule(env, n->op, (int)n->def->pattern, n, out,
                                 n->noutputs, cfg, &s, NULL))
    why = "schedule";
  if (!why) {
    tvm_lower_options lo;
    for (int i = 0; i < n->ninputs; i++)
      if (tvm_stage_of(s, in[i])) args[na] = in[i], argv[na++] = n->inputs[i];
    for (int k = 0; k < n->noutputs; k++)
      args[na] = out[k], argv[na++] = n->outputs[k];
    tvm_target_lower_options(T, &lo);
    if (tvm_lower(s, args, na, "op", &lo, &m)) why = "lower";
    else if (tvm_device_open(T, &d) || build_device(&m, d, &rm))
      why = "build";
  }
  if (!why) {
    h.d = d, h.rm = rm, h.m = &m;
    const tvm_func *host = NULL;
    for (int i = 0; i < m.nfuncs; i++)
      if (m.funcs[i]->kind != TVM_FUNC_DEVICE) host = m.funcs[i];
    for (int a = 0; a < na && host && !h.err; a++) {
      void *p = NULL;
      const tvm_gvalue *v = argv[a];
      int k = -1;
      for (int j = 0; j < n->noutputs; j++) if (n->outputs[j] == v) k = j;
      const void *src = k >= 0 ? dgot[k].data : NULL;
      for (int j = 0; j < n->ninputs && !src; j++)
        if (n->inputs[j] == v) src = din[j].data;
      if (tvm_device_alloc(d, 0, vbytes(v), 64, &p) ||
          tvm_device_copy(d, p, 0, src, 0, vbytes(v), TVM_COPY_HOST_TO_DEVICE) ||
          tvm_ptrmap_put(&h.vars, host->params[a], p) ||
          tvm_ptrvec_push(&h.owned, p))
        h.err = "argument upload";
    }
    if (host) host_stmt(&h, host->body);
    if (!h.err && tvm_device_sync(d)) h.err = "sync";
    for (int k = 0; k < n->noutputs && !h.err && host; k++) {
      void *p = NULL;
      tvm_ptrmap_get(&h.vars, host->params[na - n->noutputs + k], &p);
      if (tvm_device_copy(d, dgot[k].data, 0, p, 0, vbytes(n->outputs[k]),
                          TVM_COPY_DEVICE_TO_HOST))
        h.err = "download";
    }
    for (size_t i = 0; i < h.owned.len; i++) tvm_device_free(d, 0, h.owned.data[i]);
    tvm_ptrvec_free(&h.owned);
    tvm_ptrmap_free(&h.vars);
    why = h.err;
  }
  for (int k = 0; k < n->noutputs && !why; k++)
    for (int64_t e = 0; e < tvm_gvalue_numel(n->outputs[k]); e++) {
      double a = ((float *)dref[k].data)[e], b = ((float *)dgot[k].data)[e];
      double r = fabs(a - b) / (1 + fabs(a));
      if (!(r <= worst)) worst = r;
    }
  int ok = !why && worst <= 1e-4;
  printf("%s %d - %s on %s%s%s (max relative difference %.2g)\n",
         ok ? "ok" : "not ok", runs, what, T->name, why ? ": " : "",
         why ? why : "", worst);
  if (!ok && why) printf("# %s\n", tvm_diag_message());
  fails += !ok;
  tvm_runtime_module_free(rm);
  if (d) tvm_device_close(d);
  tvm_schedule_free(s);
  tvm_strategy_env_free(env);
  tvm_config_free(cfg);
  for (int i = 0; i < 8; i++) free(din[i].data);
  for (int k = 0; k < 4; k++) free(dref[k].data), free(dgot[k].data);
  tvm_ctx_destroy(c);
}

/* One node of op over float32 inputs of the given shapes. */
static void node(const char *what, const char *op, int pos, int nin,
                 const int64_t shapes[][4], const int *ndims,
                 const tvm_gattr *attrs, int nattrs) {
  tvm_graph *g = NULL;
  tvm_gvalue *in[4];
  tvm_gnode *nd = NULL;
  tvm_graph_create(&g);
  for (int i = 0; i < nin; i++) {
    char name[8];
    snprintf(name, sizeof name, "x%d", i);
    in[i] = tvm_graph_input(g, name, TVM_F32, shapes[i], ndims[i]);
  }
  tvm_graph_apply(g, op, "n", in, nin, attrs, nattrs, 1, &nd);
  if (tvm_graph_status(g) || !nd) {
    printf("not ok %d - %s: %s\n", ++runs, what, tvm_diag_message());
    fails++;
  } else {
    check(what, nd, pos);
  }
  tvm_graph_free(g);
}

#define SH(...) (const int64_t[][4]){__VA_ARGS__}
#define ND(...) (const int[]){__VA_ARGS__}

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "vulkan";
  const char *lvp = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
  tvm_device *d = NULL;
  if (!getenv("VK_DRIVER_FILES") && access(lvp, R_OK) == 0)
    setenv("VK_DRIVER_FILES", lvp, 1);
  setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);
  if (tvm_target_load(name, &T) || tvm_target_probe(T) ||
      tvm_device_open(T, &d)) {
    printf("1..0 # SKIP target %s cannot run here: %s\n", name,
           tvm_diag_message());
    return 77;
  }
  tvm_device_close(d);
  tvm_gattr ax1 = tvm_gattr_int("axis", 1), tb = tvm_gattr_int("transB", 1);
  tvm_gattr kd = tvm_gattr_int("keepdims", 0);
  tvm_gattr ks = tvm_gattr_ints("kernel_shape", (int64_t[]){3, 3}, 2);
  tvm_gattr pads = tvm_gattr_ints("pads", (int64_t[]){1, 1, 1, 1}, 4);
  node("Relu 1000 (ragged blocks)", "Relu", 0, 1, SH({1000}), ND(1), NULL, 0);
  node("Add broadcast", "Add", 0, 2, SH({4, 300}, {300}), ND(2, 1), NULL, 0);
  node("Softmax [3, 1000] (cross-thread)", "Softmax", 0, 1, SH({3, 1000}),
       ND(2), &ax1, 1);
  node("Softmax [5, 7]", "Softmax", 0, 1, SH({5, 7}), ND(2), &ax1, 1);
  node("ReduceSum to a scalar", "ReduceSum", 0, 1, SH({4000}), ND(1), &kd, 1);
  node("ReduceMax [5, 777]", "ReduceMax", 0, 1, SH({5, 777}), ND(2), NULL, 0);
  node("Gemm dense", "Gemm", 0, 3, SH({4, 64}, {32, 64}, {32}), ND(2, 2, 1),
       &tb, 1);
  node("MatMul [2, 300] x [300, 70]", "MatMul", 0, 2, SH({2, 300}, {300, 70}),
       ND(2, 2), NULL, 0);
  node("Conv 3x3 pad 1", "Conv", 0, 2, SH({1, 3, 9, 9}, {8, 3, 3, 3}),
       ND(4, 4), &pads, 1);
  node("MaxPool 3x3", "MaxPool", 0, 1, SH({1, 4, 9, 9}), ND(4), &ks, 1);
  node("GlobalAveragePool", "GlobalAveragePool", 0, 1, SH({1, 8, 16, 16}),
       ND(4), NULL, 0);
  node("Sqrt", "Sqrt", 1, 1, SH({3, 33}), ND(2), NULL, 0);
  printf("1..%d\n", runs);
  tvm_target_free(T);
  return fails ? 1 : 0;
}
