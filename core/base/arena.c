/*
 * core/base/arena.c - chunked bump allocator.
 *
 * An arena owns a list of chunks taken from tvm_calloc.  Allocations are
 * rounded up to 16 bytes and carved from the current chunk, zeroed
 * because a chunk is zeroed when made (so a big block fresh from the
 * system is never written twice: the weights of a model are tens of
 * megabytes); a request larger than a quarter of the chunk size gets a
 * chunk of its own (placed behind the current one so the current chunk
 * keeps serving small requests; in an empty arena it is the current
 * chunk, full, and shareable like any big block).  Everything is freed
 * at once by
 * tvm_arena_destroy.
 *
 * Standard-size chunks are recycled: a destroyed arena's go to a small
 * process-wide pool (at most POOL_MAX, under a mutex) and the next arena
 * takes them from there.  The tuner lowers a candidate into a fresh IR
 * context thousands of times; without the pool every context's chunks
 * came back from the C library as new pages, and the page faults and
 * zeroing were a fifth of the time of lowering a candidate.  A recycled
 * chunk is not zero: it is "dirty", and each allocation from it is zeroed
 * on the way out (what an arena uses, not the whole chunk).  Only while
 * the default allocator is installed (base_int.h): a replaced allocator
 * sees every block.  The pool's chunks stay reachable from the pool and
 * are not freed at exit.  Off under AddressSanitizer (POOL_MAX).
 *
 * A big block may be shared with another arena (tvm_arena_share): the
 * block's chunk counts the arenas that hold it, the sharing arena holds a
 * small node that refers to it, and the chunk is freed with the last of
 * them (a compiled plan keeps a graph's weights without copying them).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tvm/base.h"
#include "base_int.h"

#define ALIGN 16
#define CHUNK_ALIGN 64 /* a chunk (so each big block) starts on a cache line */
#define CHUNK_SIZE (64 * 1024)
/* Recycled chunks kept: 4 MiB.  None under AddressSanitizer, which can
 * only see a use after tvm_arena_destroy in memory that was freed. */
#if defined(__SANITIZE_ADDRESS__)
#define POOL_MAX 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_MAX 0
#endif
#endif
#ifndef POOL_MAX
#define POOL_MAX 64
#endif

typedef struct chunk {
  struct chunk *next;
  char *base; /* 64-byte aligned start of usable memory */
  size_t size, used;
  int big;               /* a big block's own chunk (shareable) */
  int refs;              /* big: arenas holding it, less one (atomic) */
  struct chunk *foreign; /* a node of a shared chunk: that chunk */
  int poolable;          /* standard size, from the default allocator */
  int dirty;             /* recycled: allocations are zeroed one by one */
} chunk;

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static chunk *pool; /* recycled standard chunks, linked by next */
static int npool;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* A fork (the tuner measures candidates in children) while another thread
 * held the pool's lock would leave it locked for good in the child: the
 * lock is taken around fork and released on both sides. */
static void pool_lock(void) { pthread_mutex_lock(&pool_mu); }
static void pool_unlock(void) { pthread_mutex_unlock(&pool_mu); }
static void pool_init(void) {
  pthread_atfork(pool_lock, pool_unlock, pool_unlock);
}

/* A recycled standard chunk, or NULL. */
static chunk *pool_take(void) {
  if (!base_alloc_is_default()) return NULL;
  pthread_once(&pool_once, pool_init);
  pthread_mutex_lock(&pool_mu);
  chunk *c = pool;
  if (c) {
    pool = c->next;
    npool--;
  }
  pthread_mutex_unlock(&pool_mu);
  if (c) {
    c->next = NULL;
    c->used = 0;
    c->dirty = 1;
  }
  return c;
}

/* Gives the chunks of list (linked by next) to the pool while it has
 * room; returns those it did not take. */
static chunk *pool_give(chunk *list) {
  if (!list || !base_alloc_is_default()) return list;
  pthread_once(&pool_once, pool_init);
  pthread_mutex_lock(&pool_mu);
  while (list && npool < POOL_MAX) {
    chunk *n = list->next;
    list->next = pool;
    pool = list;
    npool++;
    list = n;
  }
  pthread_mutex_unlock(&pool_mu);
  return list;
}

struct tvm_arena {
  chunk *head;  /* current chunk (the one bump-allocated from) */
  size_t bytes; /* total bytes of all chunks */
};

/* An empty arena, or NULL when out of memory. */
tvm_arena *tvm_arena_create(void) {
  return tvm_calloc(1, sizeof(tvm_arena));
}

/* Frees every chunk and the arena itself; NULL is ignored. */
void tvm_arena_destroy(tvm_arena *a) {
  if (!a) return;
  chunk *c = a->head, *keep = NULL;
  while (c) {
    chunk *n = c->next;
    chunk *own = c->foreign ? c->foreign : c;
    if (own->big && __atomic_fetch_sub(&own->refs, 1, __ATOMIC_ACQ_REL) > 0)
      own = NULL; /* another arena still holds it */
    if (c->foreign)
      tvm_free(c);
    if (own && own->poolable) { /* offered to the pool below */
      own->next = keep;
      keep = own;
    } else if (own) {
      tvm_free(own);
    }
    c = n;
  }
  for (c = pool_give(keep); c; c = keep) {
    keep = c->next;
    tvm_free(c);
  }
  tvm_free(a);
}

/* A new chunk of at least size usable bytes, aligned manually to
 * CHUNK_ALIGN so that any allocator alignment works.  A standard one
 * (CHUNK_SIZE, not a big block's) may come from the pool, dirty. */
static chunk *chunk_new(size_t size, int standard) {
  if (size > SIZE_MAX - sizeof(chunk) - CHUNK_ALIGN) return NULL;
  standard = standard && size == CHUNK_SIZE;
  chunk *c = standard ? pool_take() : NULL;
  if (c) return c;
  c = tvm_calloc(1, sizeof(chunk) + CHUNK_ALIGN + size);
  if (!c) return NULL;
  c->poolable = standard && base_alloc_is_default();
  uintptr_t p = (uintptr_t)(c + 1);
  p = (p + CHUNK_ALIGN - 1) & ~(uintptr_t)(CHUNK_ALIGN - 1);
  c->base = (char *)p;
  c->size = size;
  c->used = 0;
  c->next = NULL;
  return c;
}

/* n zeroed bytes aligned to 16, or NULL when out of memory.  n == 0 still
 * returns a unique valid pointer. */
void *tvm_arena_alloc(tvm_arena *a, size_t n) {
  if (!a) return NULL;
  if (n > SIZE_MAX - ALIGN) return NULL;
  size_t r = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
  if (r == 0) r = ALIGN;
  chunk *c = a->head;
  if (c && c->size - c->used >= r) {
    void *p = c->base + c->used;
    c->used += r;
    if (c->dirty) memset(p, 0, r);
    return p;
  }
  if (r > CHUNK_SIZE / 4) {
    /* a big block: its own chunk, behind the current one (the first
     * block of an empty arena is a full current chunk: shareable too) */
    chunk *big = chunk_new(r, 0);
    if (!big) return NULL;
    big->used = r;
    big->big = 1;
    if (c) {
      big->next = c->next;
      c->next = big;
    } else {
      a->head = big;
    }
    a->bytes += r;
    return big->base;
  }
  chunk *nc = chunk_new(r > CHUNK_SIZE ? r : CHUNK_SIZE, 1);
  if (!nc) return NULL;
  nc->next = c;
  a->head = nc;
  a->bytes += nc->size;
  nc->used = r;
  if (nc->dirty) memset(nc->base, 0, r);
  return nc->base;
}

/* p when it is a block of src that has a chunk of its own (a big
 * allocation) holding at least n bytes: dst then holds that chunk too,
 * and it lives until both arenas are destroyed.  NULL otherwise (a small
 * block, not src's, or out of memory): copy it instead.  The block is
 * then the same memory in both: neither may write to it. */
const void *tvm_arena_share(tvm_arena *dst, tvm_arena *src, const void *p,
                            size_t n) {
  if (!dst || !src || !p || dst == src) return NULL;
  chunk *c = src->head;
  while (c && !((c->foreign ? c->foreign->base : c->base) == p))
    c = c->next;
  if (!c) return NULL;
  chunk *own = c->foreign ? c->foreign : c;
  if (!own->big || own->used < n) return NULL;
  chunk *node = tvm_calloc(1, sizeof(chunk));
  if (!node) return NULL;
  node->foreign = own;
  __atomic_fetch_add(&own->refs, 1, __ATOMIC_RELAXED);
  if (dst->head) { /* behind the current chunk, like a big block */
    node->next = dst->head->next;
    dst->head->next = node;
  } else {
    dst->head = node; /* size 0: the next allocation makes a new head */
  }
  return p;
}

/* A copy of s in the arena, or NULL (also for s == NULL). */
char *tvm_arena_strdup(tvm_arena *a, const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = tvm_arena_alloc(a, n);
  if (d) memcpy(d, s, n);
  return d;
}

/* A formatted string in the arena, or NULL. */
char *tvm_arena_printf(tvm_arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *d = NULL;
  if (n >= 0) {
    d = tvm_arena_alloc(a, (size_t)n + 1);
    if (d) vsnprintf(d, (size_t)n + 1, fmt, ap2);
  }
  va_end(ap2);
  return d;
}

/* Total bytes of the chunks the arena holds (its memory footprint, not
 * counting chunk headers). */
size_t tvm_arena_bytes(const tvm_arena *a) { return a ? a->bytes : 0; }
