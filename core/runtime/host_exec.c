/*
 * core/runtime/host_exec.c - runs a host program (tvm/host_program.h) on
 * the host CPU: every launch goes to the device plugin's launch slot with
 * the geometry the compiler evaluated.  This is the one host-side
 * executor of every device target (see plugin-sdk/docs/HOST_DEVICE.md).
 *
 * Creation resolves the kernels, allocates the program's device
 * temporaries and builds each launch's tvm_plugin_arg array once; run is
 * then a loop of launches.
 */
#include <string.h>

#include "tvm/host_program.h"
#include "tvm/runtime.h"

#define TEMP_ALIGN 64

struct tvm_host_exec {
  const tvm_host_program *p;
  tvm_device *d;
  tvm_runtime_func **funcs; /* per kernel */
  void **temps;             /* per temporary */
  tvm_plugin_arg *args;     /* p->nargs */
};

/* See tvm/host_program.h. */
void tvm_host_exec_free(tvm_host_exec *x) {
  if (!x) return;
  for (uint32_t t = 0; x->temps && t < x->p->ntemps; t++)
    if (x->temps[t]) tvm_device_free(x->d, 0, x->temps[t]);
  tvm_free(x->temps);
  tvm_free(x->funcs);
  tvm_free(x->args);
  tvm_free(x);
}

/* See tvm/host_program.h. */
tvm_status tvm_host_exec_create(const tvm_host_program *p, tvm_device *d,
                                tvm_runtime_module *m, void *const *params,
                                uint32_t nparams, tvm_host_exec **out) {
  tvm_status st;
  *out = NULL;
  if (!p || !d || !m || (nparams && !params))
    return tvm_diag_set(TVM_ERR_INVALID, "host program: NULL argument");
  if ((st = tvm_host_program_check(p)) != TVM_OK) return st;
  if (nparams != p->nparams)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "host program %s takes %u buffers, %u given", p->name,
                        p->nparams, nparams);
  tvm_host_exec *x = tvm_calloc(1, sizeof *x);
  if (!x) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  x->p = p;
  x->d = d;
  x->funcs = tvm_calloc(p->nkernels + 1, sizeof(tvm_runtime_func *));
  x->temps = tvm_calloc(p->ntemps + 1, sizeof(void *));
  x->args = tvm_calloc(p->nargs + 1, sizeof(tvm_plugin_arg));
  if (!x->funcs || !x->temps || !x->args) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (uint32_t k = 0; k < p->nkernels; k++)
    if ((st = tvm_runtime_get_func(m, p->kernels[k], &x->funcs[k])) != TVM_OK)
      goto fail;
  for (uint32_t t = 0; t < p->ntemps; t++)
    if ((st = tvm_device_alloc(d, 0, p->temp_bytes[t] ? p->temp_bytes[t] : 1,
                               TEMP_ALIGN, &x->temps[t])) != TVM_OK) {
      st = tvm_diag_prefix(st, "temporary %u (%llu bytes): ", t,
                           (unsigned long long)p->temp_bytes[t]);
      goto fail;
    }
  for (uint32_t o = 0; o < p->nops; o++) {
    const tvm_host_op *op = &p->ops[o];
    const tvm_plugin_kernel *k = tvm_runtime_func_kernel(x->funcs[op->kernel]);
    if (k && k->nargs != op->nargs) {
      st = tvm_diag_set(TVM_ERR_INVALID,
                        "launch %u: kernel %s takes %u arguments, the host "
                        "passes %u",
                        o, p->kernels[op->kernel], k->nargs, op->nargs);
      goto fail;
    }
  }
  for (uint32_t a = 0; a < p->nargs; a++) {
    const tvm_host_arg *h = &p->args[a];
    tvm_plugin_arg *g = &x->args[a];
    switch (h->kind) {
    case TVM_HOST_ARG_PARAM: g->type = TVM_ARG_PTR; g->v.ptr = params[h->index]; break;
    case TVM_HOST_ARG_TEMP: g->type = TVM_ARG_PTR; g->v.ptr = x->temps[h->index]; break;
    case TVM_HOST_ARG_INT: g->type = TVM_ARG_INT; g->v.i = h->i; break;
    default: g->type = TVM_ARG_FLOAT; g->v.f = h->f; break;
    }
  }
  *out = x;
  return TVM_OK;
fail:
  tvm_host_exec_free(x);
  return tvm_diag_prefix(st, "host program %s: ", p->name);
}

/* See tvm/host_program.h. */
tvm_status tvm_host_exec_run(tvm_host_exec *x) {
  const tvm_host_program *p = x->p;
  for (uint32_t o = 0; o < p->nops; o++) {
    const tvm_host_op *op = &p->ops[o];
    tvm_status st = tvm_device_launch(x->d, x->funcs[op->kernel],
                                      x->args + op->first_arg, op->nargs,
                                      op->grid, op->block);
    if (st != TVM_OK)
      return tvm_diag_prefix(st, "host program %s, launch %u (%s): ", p->name,
                             o, p->kernels[op->kernel]);
  }
  return TVM_OK;
}
