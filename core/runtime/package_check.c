/*
 * core/runtime/package_check.c - the consistency check of a plan, run
 * before a package is written and after one is read (package.c): every
 * index in range, every size free of overflow and equal to its value's
 * shape, every dtype one the runtime knows, every kernel named in the
 * blob, the devices of a heterogeneous plan agreeing.  A package is input
 * from elsewhere: nothing it says is used before this check passed.
 */
#include <stdio.h>
#include <string.h>

#include "package_int.h"
#include "runtime_int.h"
#include "tvm/host_program.h"

/* Elements x element size of a value, or UINT64_MAX on overflow. */
static uint64_t value_bytes(const tvm_plan_value *v) {
  uint64_t n = (uint64_t)tvm_dtype_bytes(v->dtype);
  for (int i = 0; i < v->ndim; i++) {
    uint64_t d = (uint64_t)v->shape[i];
    if (d != 0 && n > UINT64_MAX / d) return UINT64_MAX;
    n *= d;
  }
  return n;
}

static int dtype_ok(tvm_dtype t) {
  if (t.lanes < 1) return 0;
  switch (t.code) {
  case kDLInt:
  case kDLUInt:
  case kDLFloat:
  case kDLBfloat:
    return t.bits == 1 || t.bits == 8 || t.bits == 16 || t.bits == 32 ||
           t.bits == 64;
  default:
    return 0;
  }
}

/* The kernel of the blob called name, or NULL. */
static const tvm_plugin_kernel *find_kernel(const tvm_plugin_blob *b,
                                            const char *name) {
  for (uint32_t i = 0; b->kernels && i < b->nkernels; i++)
    if (b->kernels[i].name && !strcmp(b->kernels[i].name, name))
      return &b->kernels[i];
  return NULL;
}

/* Checks that the plan's indexes, sizes and names hold together; `what`
 * names the package in messages ("package x.tvmpkg"). */
tvm_status runtime_pkg_check_plan(const tvm_plan *p, const char *what) {
  char dbuf[32];
  int ndev = p->fallback_plugin_name ? 2 : 1;
  if (p->target_name == NULL || p->plugin_name == NULL)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: no target or plugin name",
                        what);
  if (p->blob.size && p->blob.data == NULL)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: device module has no data",
                        what);
  for (int d = 0; d < ndev; d++) {
    const tvm_plugin_blob *b = d ? &p->fallback_blob : &p->blob;
    if (b->size && b->data == NULL)
      return tvm_diag_set(TVM_ERR_INVALID, "%s: device module %d has no data",
                          what, d);
    for (uint32_t i = 0; i < b->nkernels; i++)
      if (b->kernels == NULL || b->kernels[i].name == NULL)
        return tvm_diag_set(TVM_ERR_INVALID, "%s: kernel %u has no name",
                            what, i);
  }
  for (uint32_t i = 0; i < p->nvalues; i++) {
    const tvm_plan_value *v = &p->values[i];
    const char *vn = v->name ? v->name : "?";
    if (v->kind < TVM_PV_INPUT || v->kind > TVM_PV_ACTIVATION)
      return tvm_diag_set(TVM_ERR_INVALID, "%s: value %u ('%s') has kind %u",
                          what, i, vn, v->kind);
    if (!dtype_ok(v->dtype))
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: value %u ('%s') has an invalid dtype", what, i,
                          vn);
    if (v->ndim < 0 || v->ndim > TVM_MAX_DIMS)
      return tvm_diag_set(TVM_ERR_INVALID, "%s: value %u ('%s') has rank %d",
                          what, i, vn, v->ndim);
    for (int d = 0; d < v->ndim; d++)
      if (v->shape[d] < 0)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s: value %u ('%s') has a negative dimension",
                            what, i, vn);
    if (value_bytes(v) != v->nbytes)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: value %u ('%s', %s) has nbytes %llu, not the "
                          "%llu its shape and dtype give",
                          what, i, vn, tvm_dtype_str(v->dtype, dbuf),
                          (unsigned long long)v->nbytes,
                          (unsigned long long)value_bytes(v));
    if (v->kind == TVM_PV_ACTIVATION) {
      if (v->storage < 0 || (uint32_t)v->storage >= p->nstorage)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s: value %u ('%s') uses storage slot %d of %u",
                            what, i, vn, v->storage, p->nstorage);
      if (p->storage_bytes[v->storage] < v->nbytes)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s: value %u ('%s', %llu bytes) does not fit "
                            "its storage slot %d (%llu bytes)",
                            what, i, vn, (unsigned long long)v->nbytes,
                            v->storage,
                            (unsigned long long)p->storage_bytes[v->storage]);
    } else if (v->storage != -1) {
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: value %u ('%s') is not an activation but has "
                          "storage slot %d",
                          what, i, vn, v->storage);
    }
    if (v->kind == TVM_PV_PARAM && v->nbytes && v->data == NULL)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: parameter %u ('%s') has no data", what, i, vn);
  }
  for (uint32_t i = 0; i < p->nvalues; i++)
    if (p->values[i].device < 0 || p->values[i].device > ndev - 1)
      return tvm_diag_set(TVM_ERR_INVALID, "%s: value %u lives on device %d "
                          "of %d", what, i, (int)p->values[i].device, ndev);
  for (uint32_t i = 0; p->storage_device && i < p->nstorage; i++)
    if (p->storage_device[i] < 0 || p->storage_device[i] > ndev - 1)
      return tvm_diag_set(TVM_ERR_INVALID, "%s: storage slot %u lives on "
                          "device %d of %d", what, i,
                          (int)p->storage_device[i], ndev);
  for (uint32_t s = 0; s < p->nsteps; s++) {
    const tvm_plan_step *st = &p->steps[s];
    const tvm_plugin_kernel *k;
    if (st->device < 0 || st->device > ndev - 1 || (st->copy && ndev < 2))
      return tvm_diag_set(TVM_ERR_INVALID, "%s: step %u runs on device %d "
                          "of %d", what, s, (int)st->device, ndev);
    const tvm_plugin_blob *blob = st->device ? &p->fallback_blob : &p->blob;
    if (st->copy) { /* source and destination of one size */
      if (st->nargs != 2 || st->args == NULL || st->args[0] >= p->nvalues ||
          st->args[1] >= p->nvalues ||
          p->values[st->args[0]].nbytes != p->values[st->args[1]].nbytes)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s: copy step %u needs a source and a "
                            "destination value of one size", what, s);
      continue;
    }
    if (st->host) { /* a host program: its kernels must be in the module */
      const tvm_host_program *hp = st->host;
      tvm_status hs = tvm_host_program_check(hp);
      if (hs != TVM_OK) return tvm_diag_prefix(hs, "%s: step %u: ", what, s);
      if (hp->nparams != st->nargs || (st->nargs && st->args == NULL))
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s: step %u passes %u buffers to host program "
                            "'%s', which takes %u",
                            what, s, st->nargs, hp->name, hp->nparams);
      for (uint32_t o = 0; o < hp->nops; o++) {
        const char *kn = hp->kernels[hp->ops[o].kernel];
        if ((k = find_kernel(blob, kn)) == NULL ||
            k->nargs != hp->ops[o].nargs)
          return tvm_diag_set(TVM_ERR_INVALID,
                              "%s: step %u launches kernel '%s' with %u "
                              "arguments, which the device module %s",
                              what, s, kn, hp->ops[o].nargs,
                              k ? "declares with another count" : "lacks");
      }
      for (uint32_t a = 0; a < st->nargs; a++)
        if (st->args[a] >= p->nvalues)
          return tvm_diag_set(TVM_ERR_INVALID,
                              "%s: step %u argument %u is value %u of %u",
                              what, s, a, st->args[a], p->nvalues);
      continue;
    }
    if (st->kernel == NULL || (k = find_kernel(blob, st->kernel)) == NULL)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: step %u calls kernel '%s', which is not in "
                          "the device module",
                          what, s, st->kernel ? st->kernel : "(null)");
    if (k->nargs != st->nargs)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: step %u passes %u arguments to kernel '%s', "
                          "which takes %u",
                          what, s, st->nargs, st->kernel, k->nargs);
    if (st->nargs && st->args == NULL)
      return tvm_diag_set(TVM_ERR_INVALID, "%s: step %u has no arguments",
                          what, s);
    for (uint32_t a = 0; a < st->nargs; a++)
      if (st->args[a] >= p->nvalues)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s: step %u argument %u is value %u of %u", what,
                            s, a, st->args[a], p->nvalues);
  }
  for (uint32_t i = 0; i < p->ninputs; i++)
    if (p->inputs[i] >= p->nvalues ||
        p->values[p->inputs[i]].kind != TVM_PV_INPUT)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: input %u is not an input value", what, i);
  for (uint32_t i = 0; i < p->noutputs; i++)
    if (p->outputs[i] >= p->nvalues)
      return tvm_diag_set(TVM_ERR_INVALID, "%s: output %u is value %u of %u",
                          what, i, p->outputs[i], p->nvalues);
  return TVM_OK;
}

