/*
 * core/base/strmap.c - the core's one byte hash (FNV-1a, 64 bits) and its
 * one string-keyed hash map.
 *
 * tvm_strmap maps NUL-terminated strings to pointers: open addressing with
 * linear probing over a power-of-two table kept at most half full.  Keys
 * are borrowed (they must outlive the map); values may be anything but
 * are returned as NULL when absent, so callers that store integers store
 * them offset by one.  The zero-initialized struct is an empty map; there
 * is no removal (maps are built, read and freed).
 */
#include <string.h>

#include "tvm/base.h"

#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

/* FNV-1a over n bytes, continuing from h (TVM_HASH_SEED to start). */
uint64_t tvm_hash_bytes(const void *p, size_t n, uint64_t h) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ s[i]) * FNV_PRIME;
  return h;
}

/* FNV-1a of a NUL-terminated string. */
uint64_t tvm_hash_str(const char *s) {
  uint64_t h = FNV_OFFSET;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * FNV_PRIME;
  return h;
}

/* Slot holding key, or the empty slot where it would go. */
static size_t find_slot(const char **keys, size_t cap, const char *key) {
  size_t i = (size_t)tvm_hash_str(key) & (cap - 1);
  while (keys[i] && strcmp(keys[i], key) != 0) i = (i + 1) & (cap - 1);
  return i;
}

/* The value of key, or NULL. */
void *tvm_strmap_get(const tvm_strmap *m, const char *key) {
  if (!m->cap) return NULL;
  size_t i = find_slot(m->keys, m->cap, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

/* Inserts or replaces key (borrowed: it must outlive the map). */
tvm_status tvm_strmap_put(tvm_strmap *m, const char *key, void *val) {
  if ((m->len + 1) * 2 > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    const char **nk = tvm_calloc(ncap, sizeof *nk);
    void **nv = tvm_calloc(ncap, sizeof *nv);
    if (!nk || !nv) {
      tvm_free(nk);
      tvm_free(nv);
      return tvm_diag_set(TVM_ERR_NOMEM,
                          "out of memory growing a map to %zu slots", ncap);
    }
    for (size_t j = 0; j < m->cap; j++) {
      if (!m->keys[j]) continue;
      size_t i = find_slot(nk, ncap, m->keys[j]);
      nk[i] = m->keys[j];
      nv[i] = m->vals[j];
    }
    tvm_free(m->keys);
    tvm_free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
  }
  size_t i = find_slot(m->keys, m->cap, key);
  if (!m->keys[i]) m->len++;
  m->keys[i] = key;
  m->vals[i] = val;
  return TVM_OK;
}

void tvm_strmap_free(tvm_strmap *m) {
  tvm_free(m->keys);
  tvm_free(m->vals);
  memset(m, 0, sizeof *m);
}
