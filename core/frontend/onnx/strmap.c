/*
 * core/frontend/onnx/strmap.c - the string-keyed hash map of the importer
 * (ONNX value names -> graph values, initializer names -> tensors): open
 * addressing with linear probing, keys borrowed from the unpacked model;
 * and the shape text of messages.
 */
#include <stdio.h>
#include <string.h>

#include "onnx_int.h"

/* FNV-1a. */
static uint64_t str_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The value of key, or NULL. */
void *onnx_strmap_get(const strmap *m, const char *key) {
  if (!m->cap)
    return NULL;
  for (size_t i = str_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (!m->keys[i])
      return NULL;
    if (strcmp(m->keys[i], key) == 0)
      return m->vals[i];
  }
}

/* Inserts or replaces key (borrowed: must outlive the map). */
tvm_status onnx_strmap_put(strmap *m, const char *key, void *val) {
  if ((m->len + 1) * 2 > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    const char **nk = tvm_calloc(ncap, sizeof *nk);
    void **nv = tvm_calloc(ncap, sizeof *nv);
    if (!nk || !nv) {
      tvm_free(nk);
      tvm_free(nv);
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory (value name map)");
    }
    for (size_t j = 0; j < m->cap; j++) {
      if (!m->keys[j])
        continue;
      size_t i = str_hash(m->keys[j]) & (ncap - 1);
      while (nk[i])
        i = (i + 1) & (ncap - 1);
      nk[i] = m->keys[j];
      nv[i] = m->vals[j];
    }
    tvm_free(m->keys);
    tvm_free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
  }
  size_t i = str_hash(key) & (m->cap - 1);
  while (m->keys[i] && strcmp(m->keys[i], key) != 0)
    i = (i + 1) & (m->cap - 1);
  if (!m->keys[i])
    m->len++;
  m->keys[i] = key;
  m->vals[i] = val;
  return TVM_OK;
}

void onnx_strmap_free(strmap *m) {
  tvm_free(m->keys);
  tvm_free(m->vals);
  memset(m, 0, sizeof *m);
}

/* Writes "[1, 3, 224, 224]" into buf. */
const char *onnx_shape_str(char *buf, size_t cap, const int64_t *s,
                           int n) {
  size_t len = 0;
  buf[0] = 0;
  len += (size_t)snprintf(buf + len, cap - len, "[");
  for (int i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "",
                            (long long)s[i]);
  if (len < cap)
    snprintf(buf + len, cap - len, "]");
  return buf;
}

