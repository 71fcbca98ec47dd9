/*
 * core/codegen/kpack.c - tvm_kpack, the blob container of the GPU plugins
 * (tvm/codegen_c.h): named sections of bytes ("source", "ptx", "cubin",
 * "kernels") in one little-endian buffer, and the kernel table helpers
 * that carry each kernel's argument kinds from codegen to the runtime.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tvm/codegen_c.h"
#include "tvm/plugin.h"

static const char magic[8] = {'T', 'V', 'M', 'K', 'P', 'K', '0', '1'};

/* Appends v as n little-endian bytes. */
static void put_le(tvm_strbuf *b, uint64_t v, int n) {
  char c[8];
  for (int i = 0; i < n; i++) c[i] = (char)(v >> (8 * i));
  tvm_strbuf_appendn(b, c, (size_t)n);
}

/* Reads n little-endian bytes at p. */
static uint64_t get_le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* An empty container. */
void tvm_kpack_init(tvm_kpack *p) {
  tvm_strbuf_init(&p->buf);
  p->count = 0;
}

/* Appends section name with size bytes of data. */
void tvm_kpack_add(tvm_kpack *p, const char *name, const void *data,
                   uint64_t size) {
  size_t n = strlen(name);
  put_le(&p->buf, n, 4);
  tvm_strbuf_appendn(&p->buf, name, n);
  put_le(&p->buf, size, 8);
  if (size) tvm_strbuf_appendn(&p->buf, data, (size_t)size);
  p->count++;
}

/* The packed bytes in memory from alloc_fn; p's storage is freed. */
tvm_status tvm_kpack_finish(tvm_kpack *p, void *(*alloc_fn)(uint64_t),
                            uint8_t **data, uint64_t *size) {
  tvm_status st = TVM_OK;
  uint64_t n = 12 + p->buf.len;
  uint8_t *d = p->buf.oom ? NULL : alloc_fn(n);
  if (!d) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "kernel pack: out of memory (%llu bytes)",
                      (unsigned long long)n);
  } else {
    memcpy(d, magic, 8);
    for (int i = 0; i < 4; i++) d[8 + i] = (uint8_t)(p->count >> (8 * i));
    if (p->buf.len) memcpy(d + 12, p->buf.data, p->buf.len);
    *data = d;
    *size = n;
  }
  tvm_strbuf_free(&p->buf);
  p->count = 0;
  return st;
}

/* Finds section name (see tvm/codegen_c.h). */
tvm_status tvm_kpack_find(const uint8_t *data, uint64_t size, const char *name,
                          const uint8_t **out, uint64_t *out_size) {
  if (!data || size < 12 || memcmp(data, magic, 8))
    return tvm_diag_set(TVM_ERR_INVALID, "kernel pack: bad magic (not a blob "
                        "made by this version of tvm-c; recompile the package)");
  uint32_t count = (uint32_t)get_le(data + 8, 4);
  uint64_t at = 12, want = strlen(name);
  for (uint32_t i = 0; i < count; i++) {
    if (size - at < 4) break;
    uint64_t n = get_le(data + at, 4);
    at += 4;
    if (size - at < n + 8) break;
    const uint8_t *nm = data + at;
    at += n;
    uint64_t sz = get_le(data + at, 8);
    at += 8;
    if (size - at < sz) break;
    if (n == want && !memcmp(nm, name, n)) {
      *out = data + at;
      *out_size = sz;
      return TVM_OK;
    }
    at += sz;
    if (i + 1 == count) return TVM_ERR_NOT_FOUND;
  }
  if (count == 0) return TVM_ERR_NOT_FOUND;
  return tvm_diag_set(TVM_ERR_INVALID, "kernel pack: truncated section table");
}

/* Section "kernels": one line "name kinds" per kernel. */
void tvm_kpack_add_signatures(tvm_kpack *p, const tvm_c_source *s) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  for (int i = 0; i < s->nkernels; i++)
    tvm_strbuf_printf(&b, "%s %s\n", s->kernels[i].name,
                      s->kernels[i].arg_kinds[0] ? s->kernels[i].arg_kinds : "-");
  if (b.oom) p->buf.oom = 1;
  tvm_kpack_add(p, "kernels", b.data ? b.data : "", b.len);
  tvm_strbuf_free(&b);
}

/* The argument kinds of kernel name (see tvm/codegen_c.h). */
tvm_status tvm_kpack_signature(const uint8_t *data, uint64_t size,
                               const char *name, char *kinds, size_t cap) {
  const uint8_t *t;
  uint64_t n;
  tvm_status st = tvm_kpack_find(data, size, "kernels", &t, &n);
  if (st == TVM_ERR_NOT_FOUND)
    return tvm_diag_set(st, "kernel pack: no kernel table");
  if (st != TVM_OK) return st;
  size_t want = strlen(name);
  for (uint64_t at = 0; at < n;) {
    uint64_t end = at;
    while (end < n && t[end] != '\n') end++;
    const uint8_t *sp = memchr(t + at, ' ', (size_t)(end - at));
    if (sp && (size_t)(sp - (t + at)) == want && !memcmp(t + at, name, want)) {
      size_t k = (size_t)(t + end - (sp + 1));
      if (k + 1 > cap)
        return tvm_diag_set(TVM_ERR_INVALID, "kernel %s: too many arguments",
                            name);
      memcpy(kinds, sp + 1, k);
      kinds[k] = 0;
      if (!strcmp(kinds, "-")) kinds[0] = 0;
      return TVM_OK;
    }
    at = end + 1;
  }
  return tvm_diag_set(TVM_ERR_NOT_FOUND, "kernel %s is not in the module "
                      "(names come from the lowered device functions)", name);
}

/* Blob kernel descriptors from the emitted kernels. */
tvm_status tvm_c_kernels_to_blob(const tvm_c_source *s,
                                 void *(*alloc_fn)(uint64_t),
                                 tvm_plugin_kernel **out) {
  tvm_plugin_kernel *k = alloc_fn(sizeof *k * (uint64_t)(s->nkernels + 1));
  if (!k) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  memset(k, 0, sizeof *k * (size_t)(s->nkernels + 1));
  for (int i = 0; i < s->nkernels; i++) {
    const tvm_c_kernel *c = &s->kernels[i];
    size_t n = strlen(c->name) + 1;
    char *name = alloc_fn(n);
    if (!name) {
      *out = k; /* the caller frees the names made so far */
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    }
    memcpy(name, c->name, n);
    k[i].struct_size = sizeof *k;
    k[i].nargs = (uint32_t)c->nargs;
    k[i].name = name;
    memcpy(k[i].grid, c->grid, sizeof c->grid);
    memcpy(k[i].block, c->block, sizeof c->block);
    k[i].shared_bytes = c->shared_bytes;
  }
  *out = k;
  return TVM_OK;
}

/* The attribute value called name, or NULL. */
const tvm_plugin_attr_value *tvm_c_attr(const tvm_plugin_attr_value *values,
                                        uint32_t n, const char *name) {
  for (uint32_t i = 0; values && i < n; i++)
    if (values[i].name && !strcmp(values[i].name, name)) return &values[i];
  return NULL;
}

/* Reports through the host API (or the core diagnostic); returns st. */
int32_t tvm_c_report(const tvm_host_api *host, int32_t st, const char *fmt,
                     ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (host && host->report) host->report(st, msg);
  else tvm_diag_set(st, "%s", msg);
  return st;
}
