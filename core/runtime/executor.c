/*
 * core/runtime/executor.c - the graph executor: runs a tvm_plan on a
 * device of its target.
 *
 * Creation does all the work that does not depend on the inputs: it opens
 * the device, loads the plan's device module, allocates one buffer per
 * storage slot (activations sharing a slot share its base address, which
 * the memory plan allows because their lifetimes do not overlap), one per
 * input, output and parameter, uploads the parameters (on a device whose
 * memory is the host's, ABI 8, the kernels read them where the plan
 * holds them instead), resolves every
 * step's kernel and builds its argument array.  run() is then a loop of
 * launches and one sync.
 *
 * A heterogeneous plan (plugin-sdk/docs/HETEROGENEOUS.md) spans the
 * target (device 0) and its fallback (device 1, t->fallback): each
 * device gets its module, its slots and the values that live on it, each
 * step runs on its device, and a copy step moves a value from one device
 * to the other through a host staging buffer (device-to-host on the
 * source after a sync, host-to-device on the destination).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tvm/host_program.h"
#include "tvm/runtime.h"

#define BUF_ALIGN 64

struct tvm_executor {
  const tvm_plan *p;
  const tvm_target *t;
  tvm_device *devs[2];      /* 0 the target, 1 its fallback (or NULL) */
  tvm_runtime_module *mods[2];
  void *stage;              /* host buffer of copy steps */
  uint64_t stage_bytes;
  void **slots;             /* nstorage device buffers */
  void **own;               /* per value: its own buffer (not activations) */
  void **buf;               /* per value: the device address it lives at */
  tvm_runtime_func **funcs; /* per step */
  tvm_plugin_arg **args;    /* per step, nargs entries */
  tvm_host_exec **hosts;    /* per step: its host program (device targets) */
  void ***hbufs;            /* per host step: its buffer parameters */
};

/* The device of value i, of slot s, of step s (0 when the plan has one). */
static tvm_device *value_dev(const tvm_executor *e, uint32_t i) {
  return e->devs[e->p->values[i].device == 1 ? 1 : 0];
}
static tvm_device *slot_dev(const tvm_executor *e, uint32_t s) {
  const int32_t *sd = e->p->storage_device;
  return e->devs[sd && sd[s] == 1 ? 1 : 0];
}
static int step_dev(const tvm_executor *e, uint32_t s) {
  return e->p->steps[s].device == 1 ? 1 : 0;
}

/* Releases everything the executor holds (devices last). */
void tvm_executor_free(tvm_executor *e) {
  if (e == NULL) return;
  const tvm_plan *p = e->p;
  for (uint32_t i = 0; e->own && i < p->nvalues; i++)
    if (e->own[i]) tvm_device_free(value_dev(e, i), 0, e->own[i]);
  for (uint32_t s = 0; e->slots && s < p->nstorage; s++)
    if (e->slots[s]) tvm_device_free(slot_dev(e, s), 0, e->slots[s]);
  for (uint32_t s = 0; e->hosts && s < p->nsteps; s++) {
    tvm_host_exec_free(e->hosts[s]);
    tvm_free(e->hbufs[s]);
  }
  tvm_free(e->hosts);
  tvm_free(e->hbufs);
  for (uint32_t s = 0; e->args && s < p->nsteps; s++) tvm_free(e->args[s]);
  tvm_free(e->args);
  tvm_free(e->funcs);
  tvm_free(e->buf);
  tvm_free(e->own);
  tvm_free(e->slots);
  tvm_free(e->stage);
  for (int d = 0; d < 2; d++) {
    if (e->mods[d]) tvm_runtime_module_free(e->mods[d]);
    if (e->devs[d]) tvm_device_close(e->devs[d]);
  }
  tvm_free(e);
}

/* Allocates memory of at least one byte on d. */
static tvm_status dalloc(tvm_device *d, uint64_t nbytes, void **out) {
  return tvm_device_alloc(d, 0, nbytes ? nbytes : 1, BUF_ALIGN, out);
}

/* Can value i's kernels take the plan's copy of it?  Where the device's
 * memory is the host's (ABI 8 host_memory) and the copy sits on a cache
 * line as a buffer of the device would: the parameters of a loaded
 * package are not copied a second time. */
static int in_place(const tvm_executor *e, uint32_t i) {
  const tvm_target *t = e->p->values[i].device == 1 ? e->t->fallback : e->t;
  return tvm_target_host_memory(t) &&
         (uintptr_t)e->p->values[i].data % BUF_ALIGN == 0;
}

/* Allocates the buffers and uploads the parameters (or points at them,
 * in_place). */
static tvm_status alloc_buffers(tvm_executor *e) {
  const tvm_plan *p = e->p;
  tvm_status st;
  for (uint32_t s = 0; s < p->nstorage; s++)
    if ((st = dalloc(slot_dev(e, s), p->storage_bytes[s], &e->slots[s])) !=
        TVM_OK)
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
    if (v->kind == TVM_PV_PARAM && v->data && in_place(e, i)) {
      e->buf[i] = (void *)v->data; /* read-only to kernels; p outlives e */
      continue;
    }
    if ((st = dalloc(value_dev(e, i), v->nbytes, &e->own[i])) != TVM_OK)
      return tvm_diag_prefix(st, "value '%s' (%llu bytes): ",
                             v->name ? v->name : "?",
                             (unsigned long long)v->nbytes);
    e->buf[i] = e->own[i];
    if (v->kind == TVM_PV_PARAM && v->nbytes) {
      if (v->data == NULL)
        return tvm_diag_set(TVM_ERR_INVALID, "parameter '%s' has no data",
                            v->name ? v->name : "?");
      st = tvm_device_copy(value_dev(e, i), e->buf[i], 0, v->data, 0,
                           v->nbytes, TVM_COPY_HOST_TO_DEVICE);
      if (st != TVM_OK)
        return tvm_diag_prefix(st, "uploading parameter '%s': ",
                               v->name ? v->name : "?");
    }
  }
  for (int d = 0; d < 2; d++)
    if (e->devs[d] && (st = tvm_device_sync(e->devs[d])) != TVM_OK) return st;
  return TVM_OK;
}

/* Checks copy step s (source and destination values of one size on the
 * two devices) and grows the staging buffer to fit it. */
static tvm_status bind_copy(tvm_executor *e, uint32_t s) {
  const tvm_plan *p = e->p;
  const tvm_plan_step *step = &p->steps[s];
  if (step->nargs != 2 || step->args[0] >= p->nvalues ||
      step->args[1] >= p->nvalues ||
      p->values[step->args[0]].nbytes != p->values[step->args[1]].nbytes)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "step %u: a copy takes a source and a destination "
                        "value of the same size",
                        s);
  uint64_t n = p->values[step->args[0]].nbytes;
  if (n > e->stage_bytes) {
    void *b = tvm_realloc(e->stage, n);
    if (b == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    e->stage = b;
    e->stage_bytes = n;
  }
  return TVM_OK;
}

/* Resolves each step's kernel and builds its arguments. */
static tvm_status bind_steps(tvm_executor *e) {
  const tvm_plan *p = e->p;
  tvm_status st;
  for (uint32_t s = 0; s < p->nsteps; s++) {
    const tvm_plan_step *step = &p->steps[s];
    int d = step_dev(e, s);
    if (step->copy) {
      if ((st = bind_copy(e, s)) != TVM_OK) return st;
      continue;
    }
    if (step->host) { /* device target: the runtime runs its host program */
      e->hbufs[s] = tvm_calloc(step->nargs + 1, sizeof(void *));
      if (e->hbufs[s] == NULL)
        return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
      for (uint32_t a = 0; a < step->nargs; a++) {
        if (step->args[a] >= p->nvalues)
          return tvm_diag_set(TVM_ERR_INVALID,
                              "step %u: argument %u is value %u of %u", s, a,
                              step->args[a], p->nvalues);
        e->hbufs[s][a] = e->buf[step->args[a]];
      }
      if ((st = tvm_host_exec_create(step->host, e->devs[d], e->mods[d],
                                     e->hbufs[s],
                                     step->nargs, &e->hosts[s])) != TVM_OK)
        return tvm_diag_prefix(st, "step %u (%s): ", s,
                               step->label ? step->label : step->kernel);
      continue;
    }
    if (e->mods[d] == NULL)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "step %u (%s): device %d has no module", s,
                          step->label ? step->label : step->kernel, d);
    if ((st = tvm_runtime_get_func(e->mods[d], step->kernel, &e->funcs[s])) !=
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
  if (p->fallback_plugin_name &&
      (t->fallback == NULL ||
       strcmp(t->fallback->plugin_name, p->fallback_plugin_name) != 0))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "the plan runs on target '%s' with fallback '%s' "
                        "(plugin '%s'); target '%s' given has %s%s: load "
                        "the target whose YAML names that fallback",
                        p->target_name ? p->target_name : "?",
                        p->fallback_target_name ? p->fallback_target_name
                                                : "?",
                        p->fallback_plugin_name, t->name,
                        t->fallback ? "fallback " : "no fallback",
                        t->fallback ? t->fallback->name : "");
  for (uint32_t s = 0; s < p->nsteps; s++)
    if (!p->fallback_plugin_name && (p->steps[s].device || p->steps[s].copy))
      return tvm_diag_set(TVM_ERR_INVALID,
                          "step %u runs on device %d of a plan with one "
                          "device", s, (int)p->steps[s].device);
  for (uint32_t i = 0; i < p->nvalues; i++)
    if (!p->fallback_plugin_name && p->values[i].device)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "value '%s' lives on device %d of a plan with one "
                          "device", p->values[i].name ? p->values[i].name : "?",
                          (int)p->values[i].device);
  for (uint32_t s = 0; p->storage_device && s < p->nstorage; s++)
    if (!p->fallback_plugin_name && p->storage_device[s])
      return tvm_diag_set(TVM_ERR_INVALID,
                          "storage slot %u lives on device %d of a plan with "
                          "one device", s, (int)p->storage_device[s]);
  tvm_executor *e = tvm_calloc(1, sizeof(*e));
  if (e == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  e->p = p;
  e->t = t;
  e->slots = tvm_calloc(p->nstorage + 1, sizeof(void *));
  e->own = tvm_calloc(p->nvalues + 1, sizeof(void *));
  e->buf = tvm_calloc(p->nvalues + 1, sizeof(void *));
  e->funcs = tvm_calloc(p->nsteps + 1, sizeof(tvm_runtime_func *));
  e->args = tvm_calloc(p->nsteps + 1, sizeof(tvm_plugin_arg *));
  e->hosts = tvm_calloc(p->nsteps + 1, sizeof(tvm_host_exec *));
  e->hbufs = tvm_calloc(p->nsteps + 1, sizeof(void **));
  if (!e->slots || !e->own || !e->buf || !e->funcs || !e->args || !e->hosts ||
      !e->hbufs) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    goto fail;
  }
  if ((st = tvm_device_open(t, &e->devs[0])) != TVM_OK) goto fail;
  if (p->fallback_plugin_name &&
      (st = tvm_device_open(t->fallback, &e->devs[1])) != TVM_OK) {
    st = tvm_diag_prefix(st, "fallback target '%s': ", t->fallback->name);
    goto fail;
  }
  /* A device with no kernel step has no module to load (a plan whose
   * every output folded to a constant has none at all). */
  for (int d = 0; d < 2; d++) {
    int used = 0;
    for (uint32_t s = 0; s < p->nsteps; s++)
      used |= !p->steps[s].copy && step_dev(e, s) == d;
    if (used &&
        (st = tvm_runtime_module_load(e->devs[d],
                                      d ? &p->fallback_blob : &p->blob,
                                      &e->mods[d])) != TVM_OK)
      goto fail;
  }
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
  return tvm_device_copy(value_dev(e, p->inputs[i]), e->buf[p->inputs[i]], 0,
                         (const char *)x->data + x->byte_offset, 0, v->nbytes,
                         TVM_COPY_HOST_TO_DEVICE);
}

/* Copy step s: the source device's work is waited for, its value read
 * into the staging buffer and written to the destination device. */
static tvm_status run_copy(tvm_executor *e, uint32_t s) {
  const tvm_plan *p = e->p;
  const tvm_plan_step *step = &p->steps[s];
  uint32_t a = step->args[0], b = step->args[1];
  uint64_t n = p->values[a].nbytes;
  tvm_device *src = value_dev(e, a), *dst = value_dev(e, b);
  tvm_status st;
  if (n == 0) return TVM_OK;
  if ((st = tvm_device_sync(src)) != TVM_OK ||
      (st = tvm_device_copy(src, e->stage, 0, e->buf[a], 0, n,
                            TVM_COPY_DEVICE_TO_HOST)) != TVM_OK ||
      (st = tvm_device_sync(src)) != TVM_OK ||
      (st = tvm_device_copy(dst, e->buf[b], 0, e->stage, 0, n,
                            TVM_COPY_HOST_TO_DEVICE)) != TVM_OK)
    return tvm_diag_prefix(st, "step %u (copy of '%s'): ", s,
                           p->values[a].name ? p->values[a].name : "?");
  return TVM_OK;
}

/* Launches step s without waiting. */
static tvm_status launch(tvm_executor *e, uint32_t s) {
  if (e->p->steps[s].copy) return run_copy(e, s);
  if (e->hosts[s]) return tvm_host_exec_run(e->hosts[s]);
  const tvm_plugin_kernel *k = tvm_runtime_func_kernel(e->funcs[s]);
  static const uint32_t one[3] = {1, 1, 1};
  tvm_status st =
      tvm_device_launch(e->devs[step_dev(e, s)], e->funcs[s], e->args[s],
                        e->p->steps[s].nargs,
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
  for (int d = 0; d < 2; d++)
    if (e->devs[d] && (st = tvm_device_sync(e->devs[d])) != TVM_OK) return st;
  return TVM_OK;
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
  tvm_device *d = value_dev(e, p->outputs[i]);
  if ((st = tvm_device_sync(d)) != TVM_OK) return st;
  st = tvm_device_copy(d, (char *)y->data + y->byte_offset, 0,
                       e->buf[p->outputs[i]], 0, v->nbytes,
                       TVM_COPY_DEVICE_TO_HOST);
  if (st != TVM_OK) return st;
  return tvm_device_sync(d);
}

/* Milliseconds from a to b (CLOCK_MONOTONIC readings). */
static double elapsed_ms(const struct timespec *a, const struct timespec *b) {
  return (double)(b->tv_sec - a->tv_sec) * 1e3 +
         (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* Runs host-program step s (its launches, without waiting). */
static tvm_status run_host(tvm_executor *e, uint32_t s) {
  return tvm_host_exec_run(e->hosts[s]);
}

/* Times run(e, s) and its device's sync by the host's monotonic clock,
 * into *ms. */
static tvm_status time_step(tvm_executor *e, uint32_t s,
                            tvm_status (*run)(tvm_executor *, uint32_t),
                            double *ms) {
  struct timespec a, b;
  tvm_status st;
  clock_gettime(CLOCK_MONOTONIC, &a);
  if ((st = run(e, s)) != TVM_OK ||
      (st = tvm_device_sync(e->devs[step_dev(e, s)])) != TVM_OK)
    return st;
  clock_gettime(CLOCK_MONOTONIC, &b);
  *ms = elapsed_ms(&a, &b);
  return TVM_OK;
}

/* Times step s `repeat` times by run (a host program or a copy), t[r] in
 * ms. */
static tvm_status time_repeat(tvm_executor *e, uint32_t s, int repeat,
                              tvm_status (*run)(tvm_executor *, uint32_t),
                              double *t) {
  tvm_status st;
  for (int r = 0; r < repeat; r++)
    if ((st = time_step(e, s, run, &t[r])) != TVM_OK) return st;
  return TVM_OK;
}

/* Times step s: one untimed execution, then t[r] = milliseconds of each
 * of `repeat` back-to-back executions (launch + sync, by the device timer
 * when the plugin has one). */
static tvm_status time_one_step(tvm_executor *e, uint32_t s, int repeat,
                                double *t) {
  tvm_status st;
  tvm_status (*run)(tvm_executor *, uint32_t) =
      e->p->steps[s].copy ? run_copy : e->hosts[s] ? run_host : NULL;
  double warm;
  if (run) {
    st = time_step(e, s, run, &warm);
    if (st == TVM_OK) st = time_repeat(e, s, repeat, run, t);
  } else
    st = tvm_runtime_time(e->funcs[s], e->args[s], e->p->steps[s].nargs, 1,
                          repeat, t);
  if (st != TVM_OK) {
    const tvm_plan_step *step = &e->p->steps[s];
    return tvm_diag_prefix(st, "profiling step %u (%s): ", s,
                           step->label ? step->label : step->kernel);
  }
  return TVM_OK;
}

/* Per-step mean milliseconds: one warm-up run of the whole plan, then each
 * step timed `repeat` times (time_one_step). */
tvm_status tvm_executor_profile(tvm_executor *e, int repeat, double *ms) {
  tvm_status st;
  if (repeat < 1)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tvm_executor_profile: repeat must be >= 1");
  if ((st = tvm_executor_run(e)) != TVM_OK) return st;
  double *t = tvm_calloc((size_t)repeat, sizeof(double));
  if (t == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  for (uint32_t s = 0; s < e->p->nsteps; s++) {
    if ((st = time_one_step(e, s, repeat, t)) != TVM_OK) {
      tvm_free(t);
      return st;
    }
    double sum = 0;
    for (int r = 0; r < repeat; r++) sum += t[r];
    ms[s] = sum / repeat;
  }
  tvm_free(t);
  return TVM_OK;
}

/* Each of `repeat` back-to-back executions of step s after one untimed
 * one, in ms[0..repeat-1]. */
tvm_status tvm_executor_time_step(tvm_executor *e, uint32_t s, int repeat,
                                  double *ms) {
  if (repeat < 1)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tvm_executor_time_step: repeat must be >= 1");
  if (s >= e->p->nsteps)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tvm_executor_time_step: step %u of a plan of %u "
                        "steps", s, e->p->nsteps);
  return time_one_step(e, s, repeat, ms);
}

/* Per-step mean milliseconds as the steps run inside whole runs: one
 * warm-up run, then `repeat` runs of the plan in order, each step timed by
 * the host clock from its launch to its device's sync.  Unlike
 * tvm_executor_profile, a step meets its weights and inputs in whatever
 * state the steps before it left the caches, as in tvm_executor_run. */
tvm_status tvm_executor_profile_in_run(tvm_executor *e, int repeat,
                                       double *ms) {
  tvm_status st;
  if (repeat < 1)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tvm_executor_profile_in_run: repeat must be >= 1");
  if ((st = tvm_executor_run(e)) != TVM_OK) return st;
  for (uint32_t s = 0; s < e->p->nsteps; s++) ms[s] = 0;
  for (int r = 0; r < repeat; r++)
    for (uint32_t s = 0; s < e->p->nsteps; s++) {
      double t;
      if ((st = time_step(e, s, launch, &t)) != TVM_OK) return st;
      ms[s] += t;
    }
  for (uint32_t s = 0; s < e->p->nsteps; s++) ms[s] /= repeat;
  return TVM_OK;
}
