/*
 * core/target/build.c - from a lowered module to a runnable one: codegen
 * through the target's plugin, then module_load on a device; and one
 * function of a lowered module as a callable, whether the target runs it
 * directly (CPU) or as a host program launching device kernels.
 */
#include <string.h>

#include "target_int.h"
#include "tvm/host_program.h"
#include "tvm/lower.h"

/* Codegen, then module_load on d or on a device the module will own.
 * The blob is freed once loaded (module_load copies what it keeps). */
tvm_status tvm_build(const tvm_target *t, const tvm_module *m, tvm_device *d,
                     tvm_runtime_module **out) {
  *out = NULL;
  /* (hostdev) host functions that launch kernels are not the plugin's to
   * compile: they run as host programs (plugin-sdk/docs/HOST_DEVICE.md) */
  int ndev = 0, nhost = 0;
  for (int i = 0; m && i < m->nfuncs; i++)
    m->funcs[i]->kind == TVM_FUNC_DEVICE ? ndev++ : nhost++;
  if (ndev && nhost)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "tvm_build: the module holds device kernels and host "
                        "functions launching them (target '%s' is a device "
                        "target): run a host function with "
                        "tvm_callable_build, or build the device functions "
                        "alone and run each host function as a host program "
                        "(tvm_host_program_build, tvm_host_exec_create), or "
                        "compile a graph with tvm_compile",
                        t->name);
  tvm_plugin_blob blob;
  tvm_status st = tvm_target_codegen(t, m, &blob);
  if (st != TVM_OK) return st;
  tvm_device *own = NULL;
  if (d == NULL) {
    st = tvm_device_open(t, &own);
    if (st != TVM_OK) {
      tvm_plugin_blob_free(&blob);
      return st;
    }
    d = own;
  }
  st = tvm_runtime_module_load(d, &blob, out);
  tvm_plugin_blob_free(&blob);
  if (st != TVM_OK) {
    tvm_device_close(own);
    return st;
  }
  if (own != NULL) tvm_runtime_module_own_device(*out);
  return TVM_OK;
}

/* ---- one callable function (tvm/target.h) --------------------------------- */

struct tvm_callable {
  tvm_runtime_module *mod;  /* the CPU module, or the device functions */
  tvm_runtime_func *f;      /* CPU target: the function */
  tvm_arena *arena;         /* device target: holds prog */
  tvm_host_program *prog;   /* device target: the host function */
};

tvm_status tvm_callable_build(const tvm_target *t, const tvm_module *m,
                              const char *name, tvm_device *d,
                              tvm_callable **out) {
  *out = NULL;
  const tvm_func *host = NULL;
  int ndev = 0;
  for (int i = 0; i < m->nfuncs; i++) {
    if (m->funcs[i]->kind == TVM_FUNC_DEVICE) ndev++;
    else if (!strcmp(m->funcs[i]->name, name)) host = m->funcs[i];
  }
  if (!host)
    return tvm_diag_set(TVM_ERR_NOT_FOUND,
                        "tvm_callable_build: the module has no host function "
                        "'%s'", name);
  tvm_callable *c = tvm_calloc(1, sizeof *c);
  if (!c) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  tvm_status st;
  if (ndev == 0) {
    st = tvm_build(t, m, d, &c->mod);
    if (!st) st = tvm_runtime_get_func(c->mod, name, &c->f);
  } else {
    /* the host function becomes a host program; the plugin compiles
     * the device functions alone */
    tvm_module dm = {m->ctx, NULL, 0};
    c->arena = tvm_arena_create();
    dm.funcs = tvm_calloc((size_t)ndev, sizeof *dm.funcs);
    if (!c->arena || !dm.funcs) {
      st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    } else {
      for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->kind == TVM_FUNC_DEVICE)
          dm.funcs[dm.nfuncs++] = m->funcs[i];
      st = tvm_host_program_build(host, m, c->arena, &c->prog);
      if (!st) st = tvm_build(t, &dm, d, &c->mod);
    }
    tvm_free(dm.funcs);
  }
  if (st) {
    tvm_callable_free(c);
    return st;
  }
  *out = c;
  return TVM_OK;
}

tvm_device *tvm_callable_device(const tvm_callable *c) {
  return tvm_runtime_module_device(c->mod);
}

/* Buffers a host program over device kernels takes, at most. */
#define MAX_CALLABLE_ARGS 256

/* Prepares c's host program over the buffers of args (params: room for
 * MAX_CALLABLE_ARGS pointers). */
static tvm_status exec_of(tvm_callable *c, const tvm_plugin_arg *args,
                          uint32_t nargs, void **params,
                          tvm_host_exec **x) {
  if (nargs > MAX_CALLABLE_ARGS)
    return tvm_diag_set(TVM_ERR_INVALID, "more than %d arguments",
                        MAX_CALLABLE_ARGS);
  if (nargs != c->prog->nparams)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s takes %u buffers, %u arguments given",
                        c->prog->name, c->prog->nparams, nargs);
  for (uint32_t i = 0; i < nargs; i++) {
    if (args[i].type != TVM_ARG_PTR)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: argument %u is not a device buffer",
                          c->prog->name, i);
    params[i] = args[i].v.ptr;
  }
  return tvm_host_exec_create(c->prog, tvm_callable_device(c), c->mod,
                              params, nargs, x);
}

static tvm_status exec_run(void *ud) { return tvm_host_exec_run(ud); }

tvm_status tvm_callable_call(tvm_callable *c, const tvm_plugin_arg *args,
                             uint32_t nargs) {
  if (c->f) return tvm_runtime_call(c->f, args, nargs);
  void *params[MAX_CALLABLE_ARGS];
  tvm_host_exec *x = NULL;
  tvm_status st = exec_of(c, args, nargs, params, &x);
  if (!st) st = tvm_host_exec_run(x);
  if (!st) st = tvm_device_sync(tvm_callable_device(c));
  tvm_host_exec_free(x);
  return st;
}

tvm_status tvm_callable_time(tvm_callable *c, const tvm_plugin_arg *args,
                             uint32_t nargs, int number, int repeat,
                             double *ms) {
  if (c->f) return tvm_runtime_time(c->f, args, nargs, number, repeat, ms);
  void *params[MAX_CALLABLE_ARGS];
  tvm_host_exec *x = NULL;
  tvm_status st = exec_of(c, args, nargs, params, &x);
  if (!st)
    st = tvm_device_time(tvm_callable_device(c), exec_run, x, number, repeat,
                         ms);
  tvm_host_exec_free(x);
  return st;
}

void tvm_callable_free(tvm_callable *c) {
  if (!c) return;
  tvm_runtime_module_free(c->mod);
  if (c->arena) tvm_arena_destroy(c->arena);
  tvm_free(c);
}
