/*
 * core/runtime/executor.c - the graph executor: runs a tvm_plan on a
 * device of its target.
 *
 * Creation does all the work that does not depend on the inputs: it opens
 * the device, loads the plan's device module, allocates one buffer per
 * storage slot (activations sharing a slot share its base address, which
 * the memory plan allows because their lifetimes do not overlap), one per
 * input, output and parameter, uploads the parameters, resolves every
 * step's kernel and builds its argument array.  run() is then a loop of
 * launches and one sync.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tvm/runtime.h"

#define BUF_ALIGN 64

struct tvm_executor {
  const tvm_plan *p;
  const tvm_target *t;
  tvm_device *dev;
  tvm_runtime_module *mod;
  void **slots;             /* nstorage device buffers */
  void **own;               /* per value: its own buffer (not activations) */
  void **buf;               /* per value: the device address it lives at */
  tvm_runtime_func **funcs; /* per step */
  tvm_plugin_arg **args;    /* per step, nargs entries */
};

/* Releases everything the executor holds (device last). */
void tvm_executor_free(tvm_executor *e) {
  if (e == NULL) return;
  const tvm_plan *p = e->p;
  if (e->dev) {
    for (uint32_t i = 0; e->own && i < p->nvalues; i++)
      if (e->own[i]) tvm_device_free(e->dev, 0, e->own[i]);
    for (uint32_t s = 0; e->slots && s < p->nstorage; s++)
      if (e->slots[s]) tvm_device_free(e->dev, 0, e->slots[s]);
  }
  for (uint32_t s = 0; e->args && s < p->nsteps; s++) tvm_free(e->args[s]);
  tvm_free(e->args);
  tvm_free(e->funcs);
  tvm_free(e->buf);
  tvm_free(e->own);
  tvm_free(e->slots);
  if (e->mod) tvm_runtime_module_free(e->mod);
  if (e->dev) tvm_device_close(e->dev);
  tvm_free(e);
}

/* Allocates device memory of at least one byte. */
static tvm_status dalloc(tvm_executor *e, uint64_t nbytes, void **out) {
  return tvm_device_alloc(e->dev, 0, nbytes ? nbytes : 1, BUF_ALIGN, out);
}

/* Allocates the buffers and uploads the parameters. */
static tvm_status alloc_buffers(tvm_executor *e) {
  const tvm_plan *p = e->p;
  tvm_status st;
  for (uint32_t s = 0; s < p->nstorage; s++)
    if ((st = dalloc(e, p->storage_bytes[s], &e->slots[s])) != TVM_OK)
      return tvm_diag_prefix(st, "storage slot %u (%llu bytes): ", s,
                             (unsigned long long)p->storage_bytes[s]);
  for (uint32_t i = 0; i < p->nvalues; i++) {
    const tvm_plan_value *v = &p->values[i];
    if (v->kind == TVM_PV_ACTIVATION) {
      if (v->storage < 0 || (uint32_t)v->storage >= p->nstorage)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "value '%s' uses storage slot %d of %u",
                            v->name ? v->name : "?", v->storage, p->nstorage);
      e->buf[i] = e->slots[v->storage];
      continue;
    }
    if ((st = dalloc(e, v->nbytes, &e->own[i])) != TVM_OK)
      return tvm_diag_prefix(st, "value '%s' (%llu bytes): ",
                             v->name ? v->name : "?",
                             (unsigned long long)v->nbytes);
    e->buf[i] = e->own[i];
    if (v->kind == TVM_PV_PARAM && v->nbytes) {
      if (v->data == NULL)
        return tvm_diag_set(TVM_ERR_INVALID, "parameter '%s' has no data",
                            v->name ? v->name : "?");
      st = tvm_device_copy(e->dev, e->buf[i], 0, v->data, 0, v->nbytes,
                           TVM_COPY_HOST_TO_DEVICE);
      if (st != TVM_OK)
        return tvm_diag_prefix(st, "uploading parameter '%s': ",
                               v->name ? v->name : "?");
    }
  }
  return tvm_device_sync(e->dev);
}

/* Resolves each step's kernel and builds its arguments. */
static tvm_status bind_steps(tvm_executor *e) {
  const tvm_plan *p = e->p;
  tvm_status st;
  for (uint32_t s = 0; s < p->nsteps; s++) {
    const tvm_plan_step *step = &p->steps[s];
    if ((st = tvm_runtime_get_func(e->mod, step->kernel, &e->funcs[s])) !=
        TVM_OK)
      return tvm_diag_prefix(st, "step %u (%s): ", s,
                             step->label ? step->label : step->kernel);
    const tvm_plugin_kernel *k = tvm_runtime_func_kernel(e->funcs[s]);
    if (k && k->nargs != step->nargs)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "step %u (%s): kernel '%s' takes %u arguments, the "
                          "plan passes %u",
                          s, step->label ? step->label : "", step->kernel,
                          k->nargs, step->nargs);
    e->args[s] = tvm_calloc(step->nargs ? step->nargs : 1,
                            sizeof(tvm_plugin_arg));
    if (e->args[s] == NULL)
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    for (uint32_t a = 0; a < step->nargs; a++) {
      if (step->args[a] >= p->nvalues)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "step %u: argument %u is value %u of %u", s, a,
                            step->args[a], p->nvalues);
      e->args[s][a].type = TVM_ARG_PTR;
      e->args[s][a].v.ptr = e->buf[step->args[a]];
    }
  }
  return TVM_OK;
}

/* Opens a device, loads the module, allocates and uploads. */
tvm_status tvm_executor_create(const tvm_plan *p, const tvm_target *t,
                               tvm_executor **out) {
  tvm_status st;
  *out = NULL;
  if (p == NULL || t == NULL)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_executor_create: NULL argument");
  if (p->plugin_name && strcmp(p->plugin_name, t->plugin_name) != 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "the plan was built for plugin '%s' (target '%s'), "
                        "not '%s': recompile with tvmc compile --target %s",
                        p->plugin_name,
                        p->target_name ? p->target_name : "?",
                        t->plugin_name, t->name);
  tvm_executor *e = tvm_calloc(1, sizeof(*e));
  if (e == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  e->p = p;
  e->t = t;
  e->slots = tvm_calloc(p->nstorage + 1, sizeof(void *));
  e->own = tvm_calloc(p->nvalues + 1, sizeof(void *));
  e->buf = tvm_calloc(p->nvalues + 1, sizeof(void *));
  e->funcs = tvm_calloc(p->nsteps + 1, sizeof(tvm_runtime_func *));
  e->args = tvm_calloc(p->nsteps + 1, sizeof(tvm_plugin_arg *));
  if (!e->slots || !e->own || !e->buf || !e->funcs || !e->args) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    goto fail;
  }
  if ((st = tvm_device_open(t, &e->dev)) != TVM_OK) goto fail;
  /* A plan whose every output folded to a constant has no kernels and an
   * empty device module: there is nothing to load. */
  if (p->nsteps > 0 &&
      (st = tvm_runtime_module_load(e->dev, &p->blob, &e->mod)) != TVM_OK)
    goto fail;
  if ((st = alloc_buffers(e)) != TVM_OK) goto fail;
  if ((st = bind_steps(e)) != TVM_OK) goto fail;
  *out = e;
  return TVM_OK;
fail:
  tvm_executor_free(e);
  return tvm_diag_prefix(st, "executor for target '%s': ", t->name);
}

/* Checks that a CPU tensor matches value v (dtype, shape, compactness);
 * `role` ("input 0 ('x')") names it in messages. */
static tvm_status check_tensor(const DLTensor *x, const tvm_plan_value *v,
                               const char *role) {
  char a[32], b[32];
  if (x == NULL || x->data == NULL)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: no tensor given", role);
  if (x->device.device_type != kDLCPU &&
      x->device.device_type != kDLCUDAHost)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: the tensor must be in host (CPU) memory", role);
  if (x->dtype.code != v->dtype.code || x->dtype.bits != v->dtype.bits ||
      x->dtype.lanes != v->dtype.lanes)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: dtype %s given, %s expected",
                        role, tvm_dtype_str(x->dtype, a),
                        tvm_dtype_str(v->dtype, b));
  int same = x->ndim == v->ndim;
  for (int d = 0; same && d < v->ndim; d++) same = x->shape[d] == v->shape[d];
  if (!same) {
    char gs[256], ws[256];
    int n = 0, m = 0;
    gs[0] = ws[0] = 0;
    for (int d = 0; d < x->ndim && d < 16 && n < 200; d++)
      n += snprintf(gs + n, sizeof gs - (size_t)n, "%s%lld", d ? ", " : "",
                    (long long)x->shape[d]);
    for (int d = 0; d < v->ndim && m < 200; d++)
      m += snprintf(ws + m, sizeof ws - (size_t)m, "%s%lld", d ? ", " : "",
                    (long long)v->shape[d]);
    return tvm_diag_set(TVM_ERR_INVALID, "%s: shape [%s] given, [%s] expected",
                        role, gs, ws);
  }
  if (x->strides) {
    int64_t s = 1;
    for (int d = v->ndim - 1; d >= 0; d--) {
      if (x->shape[d] != 1 && x->strides[d] != s)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s: the tensor must be compact row-major", role);
      s *= x->shape[d];
    }
  }
  return TVM_OK;
}

/* Copies x into input i. */
tvm_status tvm_executor_set_input(tvm_executor *e, uint32_t i,
                                  const DLTensor *x) {
  char role[256];
  const tvm_plan *p = e->p;
  if (i >= p->ninputs)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "input %u does not exist: the model has %u inputs", i,
                        p->ninputs);
  const tvm_plan_value *v = &p->values[p->inputs[i]];
  snprintf(role, sizeof role, "input %u ('%s')", i, v->name ? v->name : "");
  tvm_status st = check_tensor(x, v, role);
  if (st != TVM_OK) return st;
  if (v->nbytes == 0) return TVM_OK;
  return tvm_device_copy(e->dev, e->buf[p->inputs[i]], 0,
                         (const char *)x->data + x->byte_offset, 0, v->nbytes,
                         TVM_COPY_HOST_TO_DEVICE);
}

/* Launches step s without waiting. */
static tvm_status launch(tvm_executor *e, uint32_t s) {
  const tvm_plugin_kernel *k = tvm_runtime_func_kernel(e->funcs[s]);
  static const uint32_t one[3] = {1, 1, 1};
  tvm_status st =
      tvm_device_launch(e->dev, e->funcs[s], e->args[s], e->p->steps[s].nargs,
                        k ? k->grid : one, k ? k->block : one);
  if (st != TVM_OK) {
    const tvm_plan_step *step = &e->p->steps[s];
    return tvm_diag_prefix(st, "step %u (%s, kernel %s): ", s,
                           step->label ? step->label : "", step->kernel);
  }
  return TVM_OK;
}

/* Runs every step in order, then waits. */
tvm_status tvm_executor_run(tvm_executor *e) {
  tvm_status st;
  for (uint32_t s = 0; s < e->p->nsteps; s++)
    if ((st = launch(e, s)) != TVM_OK) return st;
  return tvm_device_sync(e->dev);
}

/* Copies output i into y. */
tvm_status tvm_executor_get_output(tvm_executor *e, uint32_t i, DLTensor *y) {
  char role[256];
  const tvm_plan *p = e->p;
  if (i >= p->noutputs)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "output %u does not exist: the model has %u outputs",
                        i, p->noutputs);
  const tvm_plan_value *v = &p->values[p->outputs[i]];
  snprintf(role, sizeof role, "output %u ('%s')", i, v->name ? v->name : "");
  tvm_status st = check_tensor(y, v, role);
  if (st != TVM_OK) return st;
  if (v->nbytes == 0) return TVM_OK;
  st = tvm_device_copy(e->dev, (char *)y->data + y->byte_offset, 0,
                       e->buf[p->outputs[i]], 0, v->nbytes,
                       TVM_COPY_DEVICE_TO_HOST);
  if (st != TVM_OK) return st;
  return tvm_device_sync(e->dev);
}

/* Per-step mean milliseconds: one warm-up run of the whole plan, then each
 * step timed `repeat` times (launch + sync, by the device timer when the
 * plugin has one). */
tvm_status tvm_executor_profile(tvm_executor *e, int repeat, double *ms) {
  tvm_status st;
  if (repeat < 1)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tvm_executor_profile: repeat must be >= 1");
  if ((st = tvm_executor_run(e)) != TVM_OK) return st;
  double *t = tvm_calloc((size_t)repeat, sizeof(double));
  if (t == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  for (uint32_t s = 0; s < e->p->nsteps; s++) {
    st = tvm_runtime_time(e->funcs[s], e->args[s], e->p->steps[s].nargs, 1,
                          repeat, t);
    if (st != TVM_OK) {
      tvm_free(t);
      const tvm_plan_step *step = &e->p->steps[s];
      return tvm_diag_prefix(st, "profiling step %u (%s): ", s,
                             step->label ? step->label : step->kernel);
    }
    double sum = 0;
    for (int r = 0; r < repeat; r++) sum += t[r];
    ms[s] = sum / repeat;
  }
  tvm_free(t);
  return TVM_OK;
}
