/*
 * plugin-sdk/lib/plugin_sdk.c - libtvm_plugin_sdk, the helpers every
 * plugin would otherwise write itself (see tvm/plugin_sdk.h): reporting
 * through the host, host memory, blob building, attribute lookup.
 * Stateless: the host API is an argument of every call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/plugin_sdk.h"

/* See tvm/plugin_sdk.h. */
int32_t tvm_sdk_vreport(const tvm_host_api *h, int32_t st, const char *fmt,
                        va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt ? fmt : "", ap);
  if (h && h->report)
    h->report(st, msg);
  else
    tvm_diag_set(st, "%s", msg);
  return st;
}

/* See tvm/plugin_sdk.h. */
int32_t tvm_sdk_report(const tvm_host_api *h, int32_t st, const char *fmt,
                       ...) {
  va_list ap;
  va_start(ap, fmt);
  tvm_sdk_vreport(h, st, fmt, ap);
  va_end(ap);
  return st;
}

/* See tvm/plugin_sdk.h. */
void tvm_sdk_log(const tvm_host_api *h, int32_t level, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt ? fmt : "", ap);
  va_end(ap);
  if (h && h->log)
    h->log(level, msg);
  else
    tvm_log(level, "%s", msg);
}

/* See tvm/plugin_sdk.h. */
void *tvm_sdk_alloc(const tvm_host_api *h, uint64_t n) {
  if (n == 0) n = 1;
  if (n > SIZE_MAX) return NULL;
  void *p = h && h->alloc ? h->alloc(n) : malloc((size_t)n);
  if (p) memset(p, 0, (size_t)n);
  return p;
}

/* See tvm/plugin_sdk.h. */
void tvm_sdk_free(const tvm_host_api *h, void *p) {
  if (!p) return;
  if (h && h->free)
    h->free(p);
  else
    free(p);
}

/* See tvm/plugin_sdk.h. */
char *tvm_sdk_strdup(const tvm_host_api *h, const char *s) {
  if (!s) s = "";
  size_t len = strlen(s) + 1;
  char *d = tvm_sdk_alloc(h, len);
  if (d) memcpy(d, s, len);
  return d;
}

/* See tvm/plugin_sdk.h. */
int32_t tvm_sdk_blob_set_data(const tvm_host_api *h, tvm_plugin_blob *out,
                              uint32_t format, const void *data,
                              uint64_t size) {
  if (!out || (!data && size))
    return tvm_sdk_report(h, TVM_ERR_INVALID,
                          "tvm_sdk_blob_set_data: NULL blob or data");
  out->data = tvm_sdk_alloc(h, size);
  if (!out->data)
    return tvm_sdk_report(h, TVM_ERR_NOMEM,
                          "out of memory copying a %llu-byte blob",
                          (unsigned long long)size);
  if (size) memcpy(out->data, data, (size_t)size);
  out->size = size;
  out->format = format;
  return TVM_OK;
}

/* See tvm/plugin_sdk.h. */
int32_t tvm_sdk_blob_kernels_of_module(const tvm_host_api *h,
                                       tvm_plugin_blob *out,
                                       const tvm_module *m) {
  if (!out || !m)
    return tvm_sdk_report(h, TVM_ERR_INVALID,
                          "tvm_sdk_blob_kernels_of_module: NULL argument");
  uint32_t n = m->nfuncs > 0 ? (uint32_t)m->nfuncs : 0;
  out->kernels = tvm_sdk_alloc(h, sizeof(tvm_plugin_kernel) * (uint64_t)n);
  if (!out->kernels)
    return tvm_sdk_report(h, TVM_ERR_NOMEM,
                          "out of memory building a %u-kernel table", n);
  out->nkernels = n;
  for (uint32_t i = 0; i < n; i++) {
    tvm_plugin_kernel *k = &out->kernels[i];
    k->struct_size = sizeof *k;
    k->nargs = (uint32_t)m->funcs[i]->nparams;
    k->grid[0] = k->grid[1] = k->grid[2] = 1;
    k->block[0] = k->block[1] = k->block[2] = 1;
    k->name = tvm_sdk_strdup(h, m->funcs[i]->name);
    if (!k->name)
      return tvm_sdk_report(h, TVM_ERR_NOMEM,
                            "out of memory naming kernel '%s'",
                            m->funcs[i]->name);
  }
  return TVM_OK;
}

/* See tvm/plugin_sdk.h. */
void tvm_sdk_blob_clear(const tvm_host_api *h, tvm_plugin_blob *out) {
  if (!out) return;
  if (out->kernels) {
    for (uint32_t i = 0; i < out->nkernels; i++)
      tvm_sdk_free(h, (void *)out->kernels[i].name);
    tvm_sdk_free(h, out->kernels);
  }
  tvm_sdk_free(h, out->data);
  out->kernels = NULL;
  out->nkernels = 0;
  out->data = NULL;
  out->size = 0;
}

/* See tvm/plugin_sdk.h. */
const tvm_plugin_attr_value *tvm_sdk_attr(const tvm_plugin_attr_value *v,
                                          uint32_t n, const char *name) {
  if (!v || !name) return NULL;
  for (uint32_t i = 0; i < n; i++)
    if (v[i].name && strcmp(v[i].name, name) == 0) return &v[i];
  return NULL;
}

/* See tvm/plugin_sdk.h. */
int64_t tvm_sdk_attr_int(const tvm_plugin_attr_value *v, uint32_t n,
                         const char *name, int64_t dflt) {
  const tvm_plugin_attr_value *a = tvm_sdk_attr(v, n, name);
  return a ? a->i : dflt;
}

/* See tvm/plugin_sdk.h. */
double tvm_sdk_attr_float(const tvm_plugin_attr_value *v, uint32_t n,
                          const char *name, double dflt) {
  const tvm_plugin_attr_value *a = tvm_sdk_attr(v, n, name);
  return a ? a->f : dflt;
}

/* See tvm/plugin_sdk.h. */
const char *tvm_sdk_attr_str(const tvm_plugin_attr_value *v, uint32_t n,
                             const char *name, const char *dflt) {
  const tvm_plugin_attr_value *a = tvm_sdk_attr(v, n, name);
  return a && a->s ? a->s : dflt;
}
