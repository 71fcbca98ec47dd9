/*
 * tests/plugins/simt/test_simt_zoo.c - zoo models compiled for the simt
 * thread target (the core's generic thread schedules, serialized on the
 * CPU) give llvm-cpu's outputs on the same inputs.  Models come from the
 * command line (default: mlp, dqn, dcgan; all of the zoo passes).  Exit 77 when a target cannot be loaded.
 * TVM_ZOO_TARGET=NAME (a target name or YAML path) compares that target
 * instead of simt: tests/plugins/vulkan/test_vulkan_zoo.sh runs it so for
 * vulkan.  Built again with -DZOO_TARGET=\"name\" (and ZOO_DEFAULTS, a
 * list of model names) it compares that target by default
 * (tests/plugins/arm_mali: opencl on PoCL).  A target whose device is
 * missing skips (77).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/compiler.h"
#include "tvm/runtime.h"
#include "tvm/zoo.h"

/* Bytes of one element of a plan value. */
static size_t elem_bytes(const tvm_plan_value *v) {
  return (size_t)(v->dtype.bits * v->dtype.lanes + 7) / 8;
}

static int64_t numel(const tvm_plan_value *v) {
  int64_t n = 1;
  for (int d = 0; d < v->ndim; d++) n *= v->shape[d];
  return n;
}

/* A CPU DLTensor over data with v's shape and dtype. */
static DLTensor view(const tvm_plan_value *v, void *data) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = v->ndim;
  t.dtype.code = (uint8_t)v->dtype.code;
  t.dtype.bits = (uint8_t)v->dtype.bits;
  t.dtype.lanes = (uint16_t)v->dtype.lanes;
  t.shape = (int64_t *)v->shape;
  return t;
}

/* Compiles model name for t, runs it on deterministic inputs, and returns
 * every output (malloc'd buffers) in outs. */
static int run_model(const char *name, const tvm_target *t, void ***outs,
                     int *nouts) {
  tvm_graph *g = NULL;
  tvm_plan *p = NULL;
  tvm_executor *e = NULL;
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  if (tvm_zoo_build(name, &g) || tvm_compile(g, t, &o, &p) ||
      tvm_executor_create(p, t, &e)) {
    fprintf(stderr, "zoo:%s on %s: %s\n", name, t->name, tvm_diag_message());
    return -1;
  }
  for (uint32_t i = 0; i < p->ninputs; i++) {
    const tvm_plan_value *v = &p->values[p->inputs[i]];
    int64_t n = numel(v);
    void *x = malloc((size_t)n * elem_bytes(v) + 1);
    for (int64_t k = 0; k < n; k++) {
      if (v->dtype.code == kDLFloat && v->dtype.bits == 32)
        ((float *)x)[k] = (float)((k * 37 % 101) - 50) / 50.f;
      else if (v->dtype.code == kDLInt && v->dtype.bits == 64)
        ((int64_t *)x)[k] = k * 7 % 5; /* token ids, small */
      else if (v->dtype.code == kDLInt && v->dtype.bits == 32)
        ((int32_t *)x)[k] = (int32_t)(k * 7 % 5);
      else {
        fprintf(stderr, "zoo:%s: input %s has a dtype this test does not "
                        "fill\n", name, v->name);
        return -1;
      }
    }
    DLTensor d = view(v, x);
    if (tvm_executor_set_input(e, i, &d)) return -1;
    free(x);
  }
  if (tvm_executor_run(e)) {
    fprintf(stderr, "zoo:%s run on %s: %s\n", name, t->name,
            tvm_diag_message());
    return -1;
  }
  *nouts = (int)p->noutputs;
  *outs = calloc(p->noutputs + 1, sizeof(void *));
  for (uint32_t i = 0; i < p->noutputs; i++) {
    const tvm_plan_value *v = &p->values[p->outputs[i]];
    (*outs)[i] = malloc((size_t)numel(v) * elem_bytes(v) + 1);
    DLTensor d = view(v, (*outs)[i]);
    if (tvm_executor_get_output(e, i, &d)) return -1;
  }
  tvm_executor_free(e);
  tvm_plan_free(p);
  tvm_graph_free(g);
  return 0;
}

#ifndef ZOO_DEFAULTS
#define ZOO_DEFAULTS "mlp", "dqn", "dcgan"
#endif

int main(int argc, char **argv) {
  const char *def[] = {ZOO_DEFAULTS};
  const char *const *models = argc > 1 ? (const char *const *)argv + 1 : def;
  int nmodels = argc > 1 ? argc - 1 : (int)(sizeof def / sizeof def[0]);
  int fails = 0;
  char path[4096];
  tvm_target *cpu = NULL, *simt = NULL;
#ifdef ZOO_TARGET
  snprintf(path, sizeof path, "%s", ZOO_TARGET);
#else
  snprintf(path, sizeof path, "%s/tests/plugins/simt/simt.yaml",
           getenv("TVM_SRCDIR") ? getenv("TVM_SRCDIR") : ".");
#endif
  const char *other = getenv("TVM_ZOO_TARGET");
  if (!other || !other[0]) other = path;
  if (tvm_target_load("llvm-cpu", &cpu) || tvm_target_load(other, &simt)) {
    printf("SKIP: a target cannot be loaded: %s\n", tvm_diag_message());
    tvm_target_free(cpu);
    return 77;
  }
  tvm_status pst = tvm_target_probe(simt);
  if (pst != TVM_OK) {
    /* a missing device skips; a device that is there but fails fails */
    printf("%s: target %s: %s\n", pst == TVM_ERR_UNAVAILABLE ? "SKIP" : "FAIL",
           simt->name, tvm_diag_message());
    tvm_target_free(cpu);
    tvm_target_free(simt);
    return pst == TVM_ERR_UNAVAILABLE ? 77 : 1;
  }
  for (int m = 0; m < nmodels; m++) {
    void **a = NULL, **b = NULL;
    int na = 0, nb = 0;
    tvm_graph *g = NULL;
    if (run_model(models[m], cpu, &a, &na) ||
        run_model(models[m], simt, &b, &nb) || na != nb) {
      printf("FAIL zoo:%s\n", models[m]);
      fails++;
      continue;
    }
    /* compare as float32 (the zoo's outputs) */
    tvm_plan *p = NULL;
    tvm_compile_options o;
    tvm_compile_options_init(&o);
    tvm_zoo_build(models[m], &g);
    tvm_compile(g, cpu, &o, &p);
    double worst = 0;
    for (int i = 0; i < na && p; i++) {
      const tvm_plan_value *v = &p->values[p->outputs[i]];
      const float *x = a[i], *y = b[i];
      for (int64_t k = 0; k < numel(v); k++) {
        double d = fabs((double)x[k] - y[k]) / (1 + fabs((double)x[k]));
        if (!(d <= worst)) worst = d; /* NaN counts as worst */
      }
    }
    int ok = p && worst <= 1e-4;
    printf("%s zoo:%s %s vs llvm-cpu: %d outputs, max relative "
           "difference %.3g\n",
           ok ? "PASS" : "FAIL", models[m], simt->name, na, worst);
    fails += !ok;
    tvm_plan_free(p);
    tvm_graph_free(g);
    for (int i = 0; i < na; i++) free(a[i]), free(b[i]);
    free(a);
    free(b);
  }
  tvm_target_free(cpu);
  tvm_target_free(simt);
  return fails ? 1 : 0;
}
