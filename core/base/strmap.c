/*
 * core/base/strmap.c - the core's byte hash (FNV-1a, 64 bits), the wide
 * checksum of packages, and the one string-keyed hash map.
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

/* ---- the wide checksum (tvm/base.h) ------------------------------------ */
#define WS_K 0x9fb21c651e98df25ull /* odd */

/* A little-endian word (written out so that the compiler makes it one
 * load on a little-endian host; a loop over the bytes stays a loop). */
static uint64_t ws_word(const unsigned char *p) {
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
         (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
         (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}
static uint64_t ws_step(uint64_t x, uint64_t w) {
  x = (x ^ w) * WS_K;
  return x ^ (x >> 32);
}
static void ws_block(uint64_t lane[4], const unsigned char *p) {
  for (int i = 0; i < 4; i++) lane[i] = ws_step(lane[i], ws_word(p + 8 * i));
}

void tvm_wsum_init(tvm_wsum *s) {
  for (int i = 0; i < 4; i++) s->lane[i] = FNV_OFFSET + (uint64_t)i;
  s->nbuf = 0;
}

void tvm_wsum_add(tvm_wsum *s, const void *p, size_t n) {
  const unsigned char *b = p;
  if (s->nbuf) { /* complete the pending block first */
    size_t k = 32 - s->nbuf < n ? 32 - s->nbuf : n;
    memcpy(s->buf + s->nbuf, b, k);
    s->nbuf += k;
    b += k;
    n -= k;
    if (s->nbuf < 32) return;
    ws_block(s->lane, s->buf);
    s->nbuf = 0;
  }
  uint64_t l0 = s->lane[0], l1 = s->lane[1], l2 = s->lane[2], l3 = s->lane[3];
  for (; n >= 32; b += 32, n -= 32) { /* four independent chains */
    l0 = ws_step(l0, ws_word(b));
    l1 = ws_step(l1, ws_word(b + 8));
    l2 = ws_step(l2, ws_word(b + 16));
    l3 = ws_step(l3, ws_word(b + 24));
  }
  s->lane[0] = l0, s->lane[1] = l1, s->lane[2] = l2, s->lane[3] = l3;
  memcpy(s->buf, b, n);
  s->nbuf = n;
}

/* The lanes folded one after the other (each fold a bijection of the lane
 * for fixed others), then the tail bytes by FNV-1a. */
uint64_t tvm_wsum_final(const tvm_wsum *s) {
  uint64_t h = FNV_OFFSET;
  for (int i = 0; i < 4; i++) h = ws_step(h, s->lane[i]);
  return tvm_hash_bytes(s->buf, s->nbuf, h);
}

uint64_t tvm_hash_wide(const void *p, size_t n) {
  tvm_wsum s;
  tvm_wsum_init(&s);
  tvm_wsum_add(&s, p, n);
  return tvm_wsum_final(&s);
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
