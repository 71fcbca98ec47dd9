/*
 * core/base/alloc.c - the one replaceable allocator of the core.
 *
 * All heap memory goes through a tvm_alloc_fn (Lua's lua_Alloc contract:
 * realloc semantics, nsize == 0 frees).  Because tvm_free() is not told the
 * size of the block, each block carries a small header recording the size
 * the allocator was asked for, so the allocator always receives the true
 * osize.  The header is 16 bytes to keep the user pointer 16-byte aligned
 * whenever the allocator's blocks are.
 *
 * Replace the allocator before the first allocation: a block must be freed
 * by the allocator that made it.
 */
#include <stdlib.h>
#include <string.h>

#include "tvm/base.h"
#include "base_int.h"

#define HDR 16

/* The default allocator: the C library's realloc/free. */
static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, nsize);
}

static tvm_alloc_fn cur_fn = default_alloc;
static void *cur_ud;

/* Installs fn (with its user data) as the allocator; NULL restores the
 * default. */
void tvm_set_allocator(tvm_alloc_fn fn, void *ud) {
  cur_fn = fn ? fn : default_alloc;
  cur_ud = fn ? ud : NULL;
}

/* See base_int.h. */
int base_alloc_is_default(void) { return cur_fn == default_alloc; }

/* The size stored in the header of the block behind user pointer p. */
static size_t *hdr_of(void *p) { return (size_t *)((char *)p - HDR); }

/* n bytes of uninitialized memory, or NULL (also for overflow). */
void *tvm_malloc(size_t n) {
  if (n > SIZE_MAX - HDR) return NULL;
  char *b = cur_fn(cur_ud, NULL, 0, n + HDR);
  if (!b) return NULL;
  *(size_t *)b = n + HDR;
  return b + HDR;
}

/* count * size zeroed bytes, or NULL on overflow or out of memory.  With
 * the default allocator, the C library's calloc: a large block comes from
 * fresh pages, already zero, and is not written again. */
void *tvm_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  if (cur_fn == default_alloc) {
    size_t n = count * size;
    if (n > SIZE_MAX - HDR) return NULL;
    char *b = calloc(1, n + HDR);
    if (!b) return NULL;
    *(size_t *)b = n + HDR;
    return b + HDR;
  }
  void *p = tvm_malloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

/* Resizes p to n bytes (p NULL: allocates; n 0: frees and returns NULL).
 * On failure returns NULL and leaves p valid. */
void *tvm_realloc(void *p, size_t n) {
  if (!p) return tvm_malloc(n);
  if (n == 0) {
    tvm_free(p);
    return NULL;
  }
  if (n > SIZE_MAX - HDR) return NULL;
  size_t *h = hdr_of(p);
  char *b = cur_fn(cur_ud, h, *h, n + HDR);
  if (!b) return NULL;
  *(size_t *)b = n + HDR;
  return b + HDR;
}

/* Frees a block from tvm_malloc & co; NULL is ignored. */
void tvm_free(void *p) {
  if (!p) return;
  size_t *h = hdr_of(p);
  cur_fn(cur_ud, h, *h, 0);
}

/* A heap copy of s (free with tvm_free), or NULL. */
char *tvm_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = tvm_malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}
