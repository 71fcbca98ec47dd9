/*
 * tests/abi/test_sdk_cache.c - the SDK's compiled-code cache
 * (tvm/plugin_sdk.h): what is put under a key comes back under the same
 * key and under no other; a torn, corrupted or foreign entry is a miss
 * and is removed; TVM_CACHE_DIR=off turns it off; the folder is trimmed
 * to TVM_CACHE_MAX_MB, oldest first; the identity of a shared object
 * is found and differs from another's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tvm/plugin_sdk.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/tvm_sdk_cache_XXXXXX");
  if (!mkdtemp(dir)) return -1;
  setenv("TVM_CACHE_DIR", dir, 1);
  unsetenv("TVM_CACHE_MAX_MB");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void key_of(tvm_sdk_cache_key *k, const char *text) {
  tvm_sdk_cache_key_init(k);
  tvm_sdk_cache_key_add_str(k, "test format 1");
  tvm_sdk_cache_key_add_str(k, text);
}

/* The one entry file of ns (its path into buf); 0 when not exactly one. */
static int only_entry(const char *ns, char *buf, size_t n) {
  char d[300];
  snprintf(d, sizeof d, "%s/%s", dir, ns);
  DIR *dd = opendir(d);
  if (!dd) return 0;
  int count = 0;
  struct dirent *e;
  while ((e = readdir(dd)) != NULL)
    if (e->d_name[0] != '.') {
      count++;
      snprintf(buf, n, "%s/%s", d, e->d_name);
    }
  closedir(dd);
  return count == 1;
}

static void test_round_trip(void **state) {
  (void)state;
  tvm_sdk_cache_key a, b;
  key_of(&a, "kernel one");
  key_of(&b, "kernel two");
  uint8_t *data = NULL;
  uint64_t size = 0, h0, m0, w0, h1, m1, w1;
  tvm_sdk_cache_stats(&h0, &m0, &w0);
  assert_int_equal(tvm_sdk_cache_enabled("ns1"), 1);
  assert_int_equal(tvm_sdk_cache_get("ns1", &a, &data, &size), 0);
  assert_null(data);
  tvm_sdk_cache_put("ns1", &a, "object bytes", 12);
  assert_int_equal(tvm_sdk_cache_get("ns1", &a, &data, &size), 1);
  assert_int_equal(size, 12);
  assert_memory_equal(data, "object bytes", 12);
  free(data);
  /* another key, another namespace: misses */
  assert_int_equal(tvm_sdk_cache_get("ns1", &b, &data, &size), 0);
  assert_int_equal(tvm_sdk_cache_get("ns2", &a, &data, &size), 0);
  /* an empty payload is an entry too */
  tvm_sdk_cache_put("ns1", &b, "", 0);
  assert_int_equal(tvm_sdk_cache_get("ns1", &b, &data, &size), 1);
  assert_int_equal(size, 0);
  free(data);
  tvm_sdk_cache_stats(&h1, &m1, &w1);
  assert_int_equal(h1 - h0, 2);
  assert_int_equal(m1 - m0, 3);
  assert_int_equal(w1 - w0, 2);
  /* a namespace that is not a plain name is never a folder */
  assert_int_equal(tvm_sdk_cache_enabled("../x"), 0);
  assert_int_equal(tvm_sdk_cache_enabled(".hidden"), 0);
  tvm_sdk_cache_put("../x", &a, "x", 1);
  assert_int_equal(tvm_sdk_cache_get("../x", &a, &data, &size), 0);
}

/* Overwrites byte off of path with v (or truncates it to off when v<0). */
static void damage(const char *path, long off, int v) {
  if (v < 0) {
    assert_int_equal(truncate(path, off), 0);
    return;
  }
  FILE *f = fopen(path, "r+b");
  assert_non_null(f);
  fseek(f, off, SEEK_SET);
  fputc(v, f);
  fclose(f);
}

static void test_bad_entries(void **state) {
  (void)state;
  struct {
    long off;
    int v;
  } cases[] = {
      {0, 'X'},   /* magic */
      {9, 0x55},  /* the key repeated inside */
      {33, 0x7f}, /* payload size */
      {50, '?'},  /* payload: the checksum no longer matches */
      {30, -1},   /* torn: header cut */
      {52, -1},   /* torn: payload cut */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tvm_sdk_cache_key k;
    char text[32], path[600];
    uint8_t *data = NULL;
    uint64_t size = 0;
    snprintf(text, sizeof text, "damaged %zu", i);
    key_of(&k, text);
    tvm_sdk_cache_put("bad", &k, "0123456789abcdef", 16);
    assert_true(only_entry("bad", path, sizeof path));
    damage(path, cases[i].off, cases[i].v);
    assert_int_equal(tvm_sdk_cache_get("bad", &k, &data, &size), 0);
    assert_null(data);
    assert_int_not_equal(access(path, F_OK), 0); /* removed */
    /* the compile's rewrite works again */
    tvm_sdk_cache_put("bad", &k, "0123456789abcdef", 16);
    assert_int_equal(tvm_sdk_cache_get("bad", &k, &data, &size), 1);
    assert_memory_equal(data, "0123456789abcdef", 16);
    free(data);
    unlink(path);
  }
}

static void test_off(void **state) {
  (void)state;
  tvm_sdk_cache_key k;
  uint8_t *data;
  uint64_t size;
  key_of(&k, "off");
  const char *offs[] = {"off", "0", ""};
  for (int i = 0; i < 3; i++) {
    setenv("TVM_CACHE_DIR", offs[i], 1);
    assert_int_equal(tvm_sdk_cache_enabled("ns"), 0);
    tvm_sdk_cache_put("ns", &k, "abc", 3);
    assert_int_equal(tvm_sdk_cache_get("ns", &k, &data, &size), 0);
  }
  setenv("TVM_CACHE_DIR", dir, 1);
  assert_int_equal(tvm_sdk_cache_get("ns", &k, &data, &size), 0);
}

/* 1 MB limit: writes of 300 KB entries keep the folder within it, the
 * newest entries (by use) kept. */
static void test_trim(void **state) {
  (void)state;
  setenv("TVM_CACHE_MAX_MB", "1", 1);
  size_t big = 300 << 10;
  uint8_t *payload = calloc(big, 1);
  assert_non_null(payload);
  tvm_sdk_cache_key keys[200];
  char sub[300];
  snprintf(sub, sizeof sub, "%s/trim", dir);
  /* the process trims after every 64th write (counted over all
   * namespaces): write until one trim happened after the folder grew
   * past the limit, ageing the entries so that their order is clear */
  int n = 0;
  for (; n < 200; n++) {
    char text[32];
    snprintf(text, sizeof text, "big %d", n);
    key_of(&keys[n], text);
    payload[0] = (uint8_t)n;
    tvm_sdk_cache_put("trim", &keys[n], payload, big);
  }
  free(payload);
  DIR *d = opendir(sub);
  assert_non_null(d);
  uint64_t total = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    struct stat sb;
    char p[600];
    snprintf(p, sizeof p, "%s/%s", sub, e->d_name);
    if (e->d_name[0] != '.' && stat(p, &sb) == 0) total += (uint64_t)sb.st_size;
  }
  closedir(d);
  /* trimmed at most 63 writes ago: below the limit then, at most 63
   * entries more now */
  assert_true(total <= (1u << 20) + 63 * (big + 48));
  assert_true(total < 200 * (uint64_t)big); /* something was removed */
  /* the last write always survives */
  uint8_t *data;
  uint64_t size;
  assert_int_equal(tvm_sdk_cache_get("trim", &keys[199], &data, &size), 1);
  assert_int_equal(data[0], 199);
  free(data);
  unsetenv("TVM_CACHE_MAX_MB");
}

static void test_object_identity(void **state) {
  (void)state;
  tvm_sdk_cache_key a, b, c;
  tvm_sdk_cache_key_init(&a);
  tvm_sdk_cache_key_init(&b);
  tvm_sdk_cache_key_init(&c);
  /* the SDK library and libc are different files */
  assert_int_equal(tvm_sdk_cache_key_add_object(&a, (const void *)tvm_sdk_cache_get), 1);
  assert_int_equal(tvm_sdk_cache_key_add_object(&b, (const void *)fopen), 1);
  assert_int_equal(tvm_sdk_cache_key_add_object(&c, (const void *)tvm_sdk_cache_put), 1);
  assert_true(a.fnv != b.fnv);
  assert_true(a.fnv == c.fnv && a.n == c.n);
  tvm_sdk_cache_key_init(&c);
  assert_int_equal(tvm_sdk_cache_key_add_object(&c, NULL), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_bad_entries),
      cmocka_unit_test(test_off),
      cmocka_unit_test(test_trim),
      cmocka_unit_test(test_object_identity),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
