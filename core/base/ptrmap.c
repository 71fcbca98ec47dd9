/*
 * core/base/ptrmap.c - a hash map from pointers to pointers.
 *
 * Open addressing with linear probing over a power-of-two table, kept at
 * most half full.  NULL is not a valid key (it marks empty slots).  The
 * zero-initialized struct is an empty map.  There is no removal: maps are
 * built, read and freed.
 */
#include "tvm/base.h"

/* Mixes the pointer bits (the low bits of pointers are mostly zero). */
static size_t hash_ptr(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return (size_t)x;
}

/* Slot holding key, or the empty slot where it would go. */
static size_t find_slot(void **keys, size_t cap, const void *key) {
  size_t i = hash_ptr(key) & (cap - 1);
  while (keys[i] && keys[i] != key) i = (i + 1) & (cap - 1);
  return i;
}

/* Rehashes into a table of ncap slots. */
static tvm_status grow(tvm_ptrmap *m, size_t ncap) {
  void **nk = tvm_calloc(ncap, sizeof(void *));
  void **nv = tvm_calloc(ncap, sizeof(void *));
  if (!nk || !nv) {
    tvm_free(nk);
    tvm_free(nv);
    return tvm_diag_set(TVM_ERR_NOMEM,
                        "out of memory growing a map to %zu slots", ncap);
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = find_slot(nk, ncap, m->keys[i]);
    nk[j] = m->keys[i];
    nv[j] = m->vals[i];
  }
  tvm_free(m->keys);
  tvm_free(m->vals);
  m->keys = nk;
  m->vals = nv;
  m->cap = ncap;
  return TVM_OK;
}

/* Maps key to val (replacing an earlier value).  TVM_ERR_INVALID for a
 * NULL key, TVM_ERR_NOMEM when the table cannot grow (map unchanged). */
tvm_status tvm_ptrmap_put(tvm_ptrmap *m, const void *key, void *val) {
  if (!key) return tvm_diag_set(TVM_ERR_INVALID, "tvm_ptrmap_put: NULL key");
  if ((m->len + 1) * 2 > m->cap) {
    tvm_status st = grow(m, m->cap ? m->cap * 2 : 16);
    if (st) return st;
  }
  size_t i = find_slot(m->keys, m->cap, key);
  if (!m->keys[i]) {
    m->keys[i] = (void *)key;
    m->len++;
  }
  m->vals[i] = val;
  return TVM_OK;
}

/* 1 and *val (when val is non-NULL) if key is present, else 0. */
int tvm_ptrmap_get(const tvm_ptrmap *m, const void *key, void **val) {
  if (!key || m->cap == 0) return 0;
  size_t i = find_slot(m->keys, m->cap, key);
  if (!m->keys[i]) return 0;
  if (val) *val = m->vals[i];
  return 1;
}

/* Frees the table (not keys or values) and resets m to empty. */
void tvm_ptrmap_free(tvm_ptrmap *m) {
  tvm_free(m->keys);
  tvm_free(m->vals);
  m->keys = m->vals = NULL;
  m->cap = m->len = 0;
}
