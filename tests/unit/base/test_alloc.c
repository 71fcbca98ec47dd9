/*
 * tests/unit/base/test_alloc.c - the replaceable allocator and arenas (and
 * a big block shared between two arenas).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tvm/base.h"

/* A counting allocator that checks the osize it is given against the
 * size it handed out, and can be told to fail. */
typedef struct counter {
  int allocs, frees, reallocs;
  size_t live;      /* bytes currently held */
  int bad_osize;    /* osize mismatches seen */
  int fail_after;   /* fail once this many allocations happened; -1 never */
} counter;

static void *count_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counter *c = ud;
  if (nsize == 0) {
    if (ptr) {
      size_t real = *(size_t *)((char *)ptr - 16);
      if (real != osize) c->bad_osize++;
      c->frees++;
      c->live -= osize;
      free((char *)ptr - 16);
    }
    return NULL;
  }
  if (c->fail_after >= 0 && c->allocs + c->reallocs >= c->fail_after)
    return NULL;
  char *old = ptr ? (char *)ptr - 16 : NULL;
  if (ptr) {
    if (*(size_t *)old != osize) c->bad_osize++;
    c->reallocs++;
    c->live -= osize;
  } else {
    if (osize != 0) c->bad_osize++;
    c->allocs++;
  }
  char *b = realloc(old, nsize + 16);
  if (!b) return NULL;
  *(size_t *)b = nsize;
  c->live += nsize;
  return b + 16;
}

static void test_replace_counts(void **state) {
  counter c = {0, 0, 0, 0, 0, -1};
  tvm_set_allocator(count_alloc, &c);
  void *p = tvm_malloc(100);
  assert_non_null(p);
  memset(p, 1, 100);
  p = tvm_realloc(p, 5000);
  assert_non_null(p);
  char *s = tvm_strdup("hello");
  assert_string_equal(s, "hello");
  int *z = tvm_calloc(10, sizeof(int));
  for (int i = 0; i < 10; i++) assert_int_equal(z[i], 0);
  tvm_free(p);
  tvm_free(s);
  tvm_free(z);
  tvm_free(NULL);
  tvm_set_allocator(NULL, NULL);
  assert_int_equal(c.allocs, 3);
  assert_int_equal(c.reallocs, 1);
  assert_int_equal(c.frees, 3);
  assert_int_equal(c.bad_osize, 0);
  assert_int_equal(c.live, 0);
}

static void test_failures_are_null(void **state) {
  counter c = {0, 0, 0, 0, 0, 0};
  tvm_set_allocator(count_alloc, &c);
  assert_null(tvm_malloc(10));
  assert_null(tvm_strdup("x"));
  assert_null(tvm_arena_create());
  assert_null(tvm_calloc(SIZE_MAX / 2, 4)); /* overflow */
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_strbuf_append(&b, "abc");
  assert_true(b.oom);
  assert_null(tvm_strbuf_take(&b));
  tvm_set_allocator(NULL, NULL);
  /* realloc failure keeps the old block */
  c.fail_after = -1;
  tvm_set_allocator(count_alloc, &c);
  char *p = tvm_malloc(8);
  strcpy(p, "keep");
  c.fail_after = c.allocs + c.reallocs;
  assert_null(tvm_realloc(p, 1 << 20));
  assert_string_equal(p, "keep");
  tvm_free(p);
  tvm_set_allocator(NULL, NULL);
  assert_int_equal(c.live, 0);
}

static void test_arena_align_zero(void **state) {
  tvm_arena *a = tvm_arena_create();
  assert_non_null(a);
  for (int i = 0; i < 2000; i++) {
    size_t n = (size_t)(i * 37) % 301 + (i % 50 == 0 ? 40000 : 0);
    unsigned char *p = tvm_arena_alloc(a, n);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 16, 0);
    for (size_t k = 0; k < n; k++) assert_int_equal(p[k], 0);
    memset(p, 0xAB, n); /* dirty it: later blocks must still be zero */
  }
  assert_true(tvm_arena_bytes(a) >= 2000 * 100);
  char *s = tvm_arena_printf(a, "%s-%d", "x", 42);
  assert_string_equal(s, "x-42");
  assert_string_equal(tvm_arena_strdup(a, "abc"), "abc");
  assert_null(tvm_arena_strdup(a, NULL));
  void *z1 = tvm_arena_alloc(a, 0), *z2 = tvm_arena_alloc(a, 0);
  assert_non_null(z1);
  assert_ptr_not_equal(z1, z2);
  tvm_arena_destroy(a);
}

/* Chunks of a destroyed arena are recycled by the next one: what the
 * next one hands out is still zero, though the first wrote over it. */
static void test_arena_recycled_zero(void **state) {
  for (int round = 0; round < 3; round++) {
    tvm_arena *a = tvm_arena_create();
    assert_non_null(a);
    for (int i = 0; i < 300; i++) {
      size_t n = 200 + (size_t)(i * 53) % 900;
      unsigned char *p = tvm_arena_alloc(a, n);
      assert_non_null(p);
      for (size_t k = 0; k < n; k++) assert_int_equal(p[k], 0);
      memset(p, 0xCD, n);
    }
    tvm_arena_destroy(a);
  }
}

static void test_arena_frees_all(void **state) {
  counter c = {0, 0, 0, 0, 0, -1};
  tvm_set_allocator(count_alloc, &c);
  tvm_arena *a = tvm_arena_create();
  for (int i = 0; i < 500; i++) assert_non_null(tvm_arena_alloc(a, 1000));
  assert_non_null(tvm_arena_alloc(a, 1 << 20));
  assert_true(c.allocs > 3);
  tvm_arena_destroy(a);
  tvm_set_allocator(NULL, NULL);
  assert_int_equal(c.live, 0);
  assert_int_equal(c.allocs, c.frees);
  assert_int_equal(c.bad_osize, 0);
}

/* A big block shared with a second arena outlives the arena that made
 * it, is freed with the last of the two (either order), and nothing else
 * is shared: small blocks, pointers inside a block, sizes past it. */
static void test_arena_share(void **state) {
  (void)state;
  counter c = {0, 0, 0, 0, 0, -1};
  tvm_set_allocator(count_alloc, &c);
  for (int order = 0; order < 2; order++) {
    tvm_arena *src = tvm_arena_create(), *dst = tvm_arena_create();
    assert_non_null(tvm_arena_alloc(src, 100));
    unsigned char *big = tvm_arena_alloc(src, 1 << 20);
    unsigned char *small = tvm_arena_alloc(src, 64);
    assert_non_null(big);
    for (int i = 0; i < 1 << 20; i++) big[i] = (unsigned char)(i * 7);
    assert_null(tvm_arena_share(dst, src, small, 64));
    assert_null(tvm_arena_share(dst, src, big + 16, 64));
    assert_null(tvm_arena_share(dst, src, big, (1 << 20) + 1));
    assert_null(tvm_arena_share(dst, dst, big, 64));
    /* into an empty arena, which then allocates as before */
    assert_ptr_equal(tvm_arena_share(dst, src, big, 1 << 20), big);
    unsigned char *d2 = tvm_arena_alloc(dst, 1000);
    assert_non_null(d2);
    assert_true(d2 < big || d2 >= big + (1 << 20));
    tvm_arena *first = order ? dst : src, *last = order ? src : dst;
    tvm_arena_destroy(first);
    assert_true(c.live > (size_t)1 << 20); /* held by the other */
    int bad = 0;
    for (int i = 0; i < 1 << 20; i++) bad += big[i] != (unsigned char)(i * 7);
    assert_int_equal(bad, 0);
    tvm_arena_destroy(last);
    assert_int_equal(c.live, 0);
  }
  tvm_set_allocator(NULL, NULL);
  assert_int_equal(c.allocs, c.frees);
  assert_int_equal(c.bad_osize, 0);
}

static void test_arena_oom(void **state) {
  counter c = {0, 0, 0, 0, 0, -1};
  tvm_set_allocator(count_alloc, &c);
  tvm_arena *a = tvm_arena_create();
  c.fail_after = c.allocs;
  assert_null(tvm_arena_alloc(a, 10));
  c.fail_after = -1;
  assert_non_null(tvm_arena_alloc(a, 10)); /* recovers */
  tvm_arena_destroy(a);
  tvm_set_allocator(NULL, NULL);
  assert_int_equal(c.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replace_counts),
      cmocka_unit_test(test_failures_are_null),
      cmocka_unit_test(test_arena_align_zero),
      cmocka_unit_test(test_arena_recycled_zero),
      cmocka_unit_test(test_arena_frees_all),
      cmocka_unit_test(test_arena_share),
      cmocka_unit_test(test_arena_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
