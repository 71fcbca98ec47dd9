/*
 * tests/unit/compiler/compile_test.h - a tiny private executor for the
 * compiler's tests: opens a device of the target, loads the plan's module,
 * gives every plan value a buffer (activations share their storage slot's
 * buffer), uploads parameters and inputs, launches the steps in order
 * through the runtime and reads the outputs back.  Independent of the
 * package/executor layer so the plan itself is what is tested; plans
 * with host programs run through the executor (run_plan_executor).
 */
#ifndef TVM_TESTS_COMPILE_TEST_H
#define TVM_TESTS_COMPILE_TEST_H

#include "../graph/graph_test.h"
#include "tvm/compiler.h"
#include "tvm/runtime.h"

#define OKR(x)                                                          \
  do {                                                                  \
    tvm_status st_ = (x);                                               \
    if (st_ != TVM_OK) fail_msg("%s: %s", #x, tvm_diag_message());      \
  } while (0)

/* Runs plan p on t with inputs `in` (model order); fills `out` (allocated
 * here with the plan's output shapes, like tensors_alloc). */
static inline void run_plan(const tvm_plan *p, const tvm_target *t,
                            const tensors *in, tensors *out) {
  tvm_device *d = NULL;
  tvm_runtime_module *m = NULL;
  OKR(tvm_device_open(t, &d));
  if (p->nsteps) OKR(tvm_runtime_module_load(d, &p->blob, &m));
  void **slot = tvm_calloc(p->nstorage + 1, sizeof(void *));
  void **buf = tvm_calloc(p->nvalues + 1, sizeof(void *));
  assert_non_null(slot);
  assert_non_null(buf);
  for (uint32_t s = 0; s < p->nstorage; s++)
    OKR(tvm_device_alloc(d, 0, p->storage_bytes[s] + 1, 64, &slot[s]));
  for (uint32_t i = 0; i < p->nvalues; i++) {
    const tvm_plan_value *v = &p->values[i];
    if (v->kind == TVM_PV_ACTIVATION) {
      assert_true(v->storage >= 0 && (uint32_t)v->storage < p->nstorage);
      assert_true(v->nbytes <= p->storage_bytes[v->storage]);
      buf[i] = slot[v->storage];
      continue;
    }
    assert_int_equal(v->storage, -1);
    OKR(tvm_device_alloc(d, 0, v->nbytes + 1, 64, &buf[i]));
    if (v->kind == TVM_PV_PARAM)
      OKR(tvm_device_copy(d, buf[i], 0, v->data, 0, v->nbytes,
                          TVM_COPY_HOST_TO_DEVICE));
  }
  assert_int_equal(p->ninputs, in->n);
  for (uint32_t i = 0; i < p->ninputs; i++) {
    const tvm_plan_value *v = &p->values[p->inputs[i]];
    assert_int_equal(v->kind, TVM_PV_INPUT);
    OKR(tvm_device_copy(d, buf[p->inputs[i]], 0, in->t[i].data, 0, v->nbytes,
                        TVM_COPY_HOST_TO_DEVICE));
  }
  for (uint32_t s = 0; s < p->nsteps; s++) {
    const tvm_plan_step *st = &p->steps[s];
    tvm_runtime_func *f = NULL;
    tvm_plugin_arg args[64];
    assert_true(st->nargs <= 64);
    OKR(tvm_runtime_get_func(m, st->kernel, &f));
    for (uint32_t a = 0; a < st->nargs; a++) {
      memset(&args[a], 0, sizeof args[a]);
      args[a].type = TVM_ARG_PTR;
      args[a].v.ptr = buf[st->args[a]];
    }
    OKR(tvm_runtime_call(f, args, st->nargs));
  }
  out->n = (int)p->noutputs;
  assert_true(out->n <= 8);
  for (uint32_t i = 0; i < p->noutputs; i++) {
    const tvm_plan_value *v = &p->values[p->outputs[i]];
    DLTensor *t = &out->t[i];
    memset(t, 0, sizeof *t);
    t->device.device_type = kDLCPU;
    t->dtype = v->dtype;
    t->ndim = v->ndim;
    t->shape = tvm_calloc(8, sizeof(int64_t));
    memcpy(t->shape, v->shape, sizeof(int64_t) * (size_t)v->ndim);
    t->data = tvm_calloc(v->nbytes + 1, 1);
    OKR(tvm_device_copy(d, t->data, 0, buf[p->outputs[i]], 0, v->nbytes,
                        TVM_COPY_DEVICE_TO_HOST));
  }
  for (uint32_t i = 0; i < p->nvalues; i++)
    if (p->values[i].kind != TVM_PV_ACTIVATION) tvm_device_free(d, 0, buf[i]);
  for (uint32_t s = 0; s < p->nstorage; s++) tvm_device_free(d, 0, slot[s]);
  tvm_free(buf);
  tvm_free(slot);
  if (m) tvm_runtime_module_free(m);
  tvm_device_close(d);
}

/* Runs plan p on t through the runtime's executor instead (the path of
 * plans with host programs over device kernels, which run_plan's one
 * kernel per step cannot run); inputs and outputs as run_plan. */
static inline void run_plan_executor(const tvm_plan *p, const tvm_target *t,
                                     const tensors *in, tensors *out) {
  tvm_executor *e = NULL;
  OKR(tvm_executor_create(p, t, &e));
  for (int i = 0; i < in->n; i++)
    OKR(tvm_executor_set_input(e, (uint32_t)i, &in->t[i]));
  OKR(tvm_executor_run(e));
  out->n = (int)p->noutputs;
  assert_true(out->n <= 8);
  for (uint32_t i = 0; i < p->noutputs; i++) {
    const tvm_plan_value *v = &p->values[p->outputs[i]];
    DLTensor *o = &out->t[i];
    memset(o, 0, sizeof *o);
    o->device.device_type = kDLCPU;
    o->dtype = v->dtype;
    o->ndim = v->ndim;
    o->shape = tvm_calloc(8, sizeof(int64_t));
    memcpy(o->shape, v->shape, sizeof(int64_t) * (size_t)v->ndim);
    o->data = tvm_calloc(v->nbytes + 1, 1);
    OKR(tvm_executor_get_output(e, i, o));
  }
  tvm_executor_free(e);
}

/* Number of plan steps whose label contains s. */
static inline int steps_with(const tvm_plan *p, const char *s) {
  int n = 0;
  for (uint32_t i = 0; i < p->nsteps; i++)
    n += strstr(p->steps[i].label, s) != NULL;
  return n;
}

#endif /* TVM_TESTS_COMPILE_TEST_H */
