/*
 * tests/unit/base/test_containers.c - ptrvec, strbuf and ptrmap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/base.h"

static void test_ptrvec(void **state) {
  tvm_ptrvec v = {0};
  static int xs[1000];
  for (int i = 0; i < 1000; i++) assert_int_equal(tvm_ptrvec_push(&v, &xs[i]), TVM_OK);
  assert_int_equal(v.len, 1000);
  assert_true(v.cap >= 1000);
  for (int i = 0; i < 1000; i++) assert_ptr_equal(v.data[i], &xs[i]);
  tvm_ptrvec_free(&v);
  assert_null(v.data);
  assert_int_equal(v.len, 0);
}

static void test_strbuf(void **state) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  char *e = tvm_strbuf_take(&b);
  assert_string_equal(e, "");
  tvm_free(e);
  tvm_strbuf_append(&b, "ab");
  tvm_strbuf_appendn(&b, "cdef", 2);
  tvm_strbuf_printf(&b, "-%d-%s", 7, "x");
  assert_string_equal(b.data, "abcd-7-x");
  assert_int_equal(b.len, 8);
  /* a long printf takes the slow path */
  char big[1000];
  memset(big, 'q', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  tvm_strbuf_printf(&b, "%s!", big);
  assert_int_equal(b.len, 8 + 999 + 1);
  assert_int_equal(b.data[b.len - 1], '!');
  assert_int_equal(b.data[b.len], '\0');
  char *s = tvm_strbuf_take(&b);
  assert_null(b.data);
  assert_int_equal(strncmp(s, "abcd-7-xqqq", 11), 0);
  tvm_free(s);
  tvm_strbuf_free(&b);
}

static void test_ptrmap_growth(void **state) {
  enum { N = 20000 };
  static char keys[N];
  tvm_ptrmap m = {0};
  void *v;
  assert_int_equal(tvm_ptrmap_get(&m, &keys[0], &v), 0);
  for (int i = 0; i < N; i++)
    assert_int_equal(tvm_ptrmap_put(&m, &keys[i], (void *)(uintptr_t)(i + 1)), TVM_OK);
  assert_int_equal(m.len, N);
  assert_true(m.cap >= 2 * N);
  for (int i = 0; i < N; i++) {
    assert_int_equal(tvm_ptrmap_get(&m, &keys[i], &v), 1);
    assert_int_equal((uintptr_t)v, i + 1);
  }
  /* overwrite keeps the count */
  assert_int_equal(tvm_ptrmap_put(&m, &keys[5], NULL), TVM_OK);
  assert_int_equal(m.len, N);
  assert_int_equal(tvm_ptrmap_get(&m, &keys[5], &v), 1);
  assert_null(v);
  int other;
  assert_int_equal(tvm_ptrmap_get(&m, &other, NULL), 0);
  assert_int_equal(tvm_ptrmap_put(&m, NULL, NULL), TVM_ERR_INVALID);
  tvm_ptrmap_free(&m);
  assert_int_equal(m.len, 0);
  assert_int_equal(tvm_ptrmap_get(&m, &keys[1], &v), 0);
}

/* tvm_read_file: a file larger than the first 64 KiB chunk comes back
 * whole and NUL-terminated; a missing file and one over the limit fail
 * naming the file. */
/* tvm_strmap: growth past many rehashes, replacement, absent keys; and
 * the FNV-1a hash against its published test vectors. */
static void test_strmap(void **state) {
  (void)state;
  static char keys[3000][16];
  tvm_strmap m = {0};
  assert_null(tvm_strmap_get(&m, "x"));
  for (int i = 0; i < 3000; i++) {
    snprintf(keys[i], sizeof keys[i], "k%d", i);
    assert_int_equal(tvm_strmap_put(&m, keys[i], (void *)(intptr_t)(i + 1)),
                     TVM_OK);
  }
  assert_int_equal(m.len, 3000);
  for (int i = 0; i < 3000; i++)
    assert_int_equal((intptr_t)tvm_strmap_get(&m, keys[i]), i + 1);
  char probe[16] = "k17";
  assert_int_equal((intptr_t)tvm_strmap_get(&m, probe), 18); /* by value */
  assert_int_equal(tvm_strmap_put(&m, "k17", (void *)(intptr_t)99), TVM_OK);
  assert_int_equal(m.len, 3000);
  assert_int_equal((intptr_t)tvm_strmap_get(&m, "k17"), 99);
  assert_null(tvm_strmap_get(&m, "k3000"));
  tvm_strmap_free(&m);
  assert_null(tvm_strmap_get(&m, "k1"));
  /* FNV-1a 64: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c */
  assert_true(tvm_hash_str("") == 0xcbf29ce484222325ull);
  assert_true(tvm_hash_str("a") == 0xaf63dc4c8601ec8cull);
  assert_true(tvm_hash_bytes("a", 1, TVM_HASH_SEED) == tvm_hash_str("a"));
}

/* The wide checksum of package sections: fixed values (a change would
 * make every package's checksums mismatch; the values come from the
 * independent Python version in tests/fuzz/tools/pkg_corrupt.py), the
 * same result however the bytes are split into pieces, and a different
 * result for every change of any one byte. */
static void test_hash_wide(void **state) {
  (void)state;
  unsigned char b[1000];
  for (int i = 0; i < 100; i++) b[i] = (unsigned char)(i * 37 + 11);
  assert_true(tvm_hash_wide(b, 100) == 0xc14029a8f3d0df29ull);
  assert_true(tvm_hash_wide("", 0) == 0xd04d3c26e559c67aull);
  assert_true(tvm_hash_wide("a", 1) == 0x4d035117b78b9fe1ull);
  srand(7);
  for (int i = 0; i < 1000; i++) b[i] = (unsigned char)rand();
  for (size_t n = 0; n <= 1000; n += 37) {
    uint64_t whole = tvm_hash_wide(b, n);
    for (int t = 0; t < 20; t++) { /* random pieces, some empty */
      tvm_wsum w;
      tvm_wsum_init(&w);
      size_t at = 0;
      while (at < n) {
        size_t k = (size_t)rand() % 70;
        if (k > n - at) k = n - at;
        tvm_wsum_add(&w, b + at, k);
        at += k;
      }
      assert_true(tvm_wsum_final(&w) == whole);
    }
  }
  uint64_t h = tvm_hash_wide(b, 1000);
  for (int pos = 0; pos < 1000; pos += 13) { /* every value, some bytes */
    unsigned char old = b[pos];
    for (int v = 0; v < 256; v++) {
      if (v == old) continue;
      b[pos] = (unsigned char)v;
      assert_true(tvm_hash_wide(b, 1000) != h);
    }
    b[pos] = old;
  }
  for (int pos = 992; pos < 1000; pos++) { /* every tail byte */
    b[pos] ^= 0x80;
    assert_true(tvm_hash_wide(b, 1000) != h);
    b[pos] ^= 0x80;
  }
  /* two flips of the same bit in two words of one lane do not cancel
   * (they would with a lane step of xor and multiply alone) */
  b[7] ^= 0x80; /* bit 63 of word 0 and of word 4, both lane 0 */
  b[39] ^= 0x80;
  assert_true(tvm_hash_wide(b, 1000) != h);
}

static void test_read_file(void **state) {
  char path[] = "/tmp/tvm-test-read-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  size_t n = 200000;
  char *want = malloc(n);
  assert_non_null(want);
  for (size_t i = 0; i < n; i++)
    want[i] = (char)('a' + i % 26);
  assert_int_equal(write(fd, want, n), (ssize_t)n);
  close(fd);

  void *data;
  size_t size;
  assert_int_equal(tvm_read_file(path, "test file", 0, &data, &size), TVM_OK);
  assert_int_equal(size, n);
  assert_memory_equal(data, want, n);
  assert_int_equal(((char *)data)[n], '\0');
  tvm_free(data);

  assert_int_equal(tvm_read_file(path, "test file", 1000, &data, &size),
                   TVM_ERR_IO);
  assert_null(data);
  assert_non_null(strstr(tvm_diag_message(), "larger than 1000 bytes"));
  assert_int_equal(tvm_read_file(path, "test file", n, &data, &size), TVM_OK);
  tvm_free(data);

  unlink(path);
  assert_int_equal(tvm_read_file(path, "test file", 0, &data, &size),
                   TVM_ERR_IO);
  assert_null(data);
  assert_non_null(strstr(tvm_diag_message(), "cannot open test file"));
  assert_non_null(strstr(tvm_diag_message(), path));
  free(want);
}

/* tvm_map_file: a regular file is mapped, a non-regular one (/dev/null)
 * read, a missing one refused naming it. */
static void test_map_file(void **state) {
  (void)state;
  char path[] = "/tmp/tvm-test-map-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "0123456789", 10), 10);
  close(fd);
  tvm_file_view f;
  assert_int_equal(tvm_map_file(path, "test file", &f), TVM_OK);
  assert_int_equal(f.mapped, 1);
  assert_int_equal(f.size, 10);
  assert_memory_equal(f.data, "0123456789", 10);
  tvm_unmap_file(&f);
  assert_null(f.data);
  assert_int_equal(tvm_map_file("/dev/null", "test file", &f), TVM_OK);
  assert_int_equal(f.mapped, 0);
  assert_int_equal(f.size, 0);
  assert_non_null(f.data);
  tvm_unmap_file(&f);
  unlink(path);
  assert_int_equal(tvm_map_file(path, "test file", &f), TVM_ERR_IO);
  assert_null(f.data);
  assert_non_null(strstr(tvm_diag_message(), path));
}

/* Resident kB of the mapping that starts at addr (/proc/self/smaps), or
 * -1 when it is not found. */
static long mapping_rss_kb(const void *addr) {
  FILE *fp = fopen("/proc/self/smaps", "r");
  char line[512];
  int in = 0;
  long kb = -1;
  while (fp && fgets(line, sizeof line, fp)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) { /* a mapping's line */
      in = lo == (unsigned long)(uintptr_t)addr;
      continue;
    }
    if (in && sscanf(line, "Rss: %ld kB", &kb) == 1) break;
  }
  if (fp) fclose(fp);
  return kb;
}

/* tvm_file_view_done: the whole pages of the range leave the process's
 * resident memory, the bytes read the same afterwards, a range outside
 * the file and a view that was read rather than mapped are ignored. */
static void test_file_view_done(void **state) {
  (void)state;
  char path[] = "/tmp/tvm-test-done-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const long pg = sysconf(_SC_PAGESIZE); /* 4 KiB here; 16/64 KiB on some */
  assert_true(pg > 0);
  const long N = 64 * pg, N_kb = N / 1024, pg_kb = pg / 1024;
  unsigned char *want = malloc((size_t)N);
  for (long i = 0; i < N; i++) want[i] = (unsigned char)(i * 7 + i / pg);
  assert_int_equal(write(fd, want, (size_t)N), N);
  close(fd);
  tvm_file_view f;
  assert_int_equal(tvm_map_file(path, "test file", &f), TVM_OK);
  assert_int_equal(f.mapped, 1);
  assert_memory_equal(f.data, want, N); /* every page touched */
  long before = mapping_rss_kb(f.data);
  assert_true(before >= N_kb / 2);
  tvm_file_view_done(&f, 100, (size_t)N - 200); /* all pages but the ends */
  long after = mapping_rss_kb(f.data);
  assert_true(after >= 0 && after <= before - (N_kb - 2 * pg_kb));
  tvm_file_view_done(&f, (size_t)N, 1); /* outside: ignored */
  tvm_file_view_done(&f, 1, (size_t)N); /* runs past the end: ignored */
  assert_memory_equal(f.data, want, N); /* read back from the file */
  tvm_unmap_file(&f);
  tvm_file_view_done(&f, 0, 1); /* an unmapped view: ignored */
  unlink(path);
  free(want);
}

/* tvm_write_file_head_last: the header part is filled by the callback
 * after the rest was written and lands first; a failing callback leaves
 * the old file; a file written in place (/dev/null) gets the callback
 * first. */
typedef struct head_ctx {
  char *head;
  int calls;
  tvm_status st;
} head_ctx;

static tvm_status fill_head(void *ctx) {
  head_ctx *h = ctx;
  h->calls++;
  memcpy(h->head, "HEAD", 4);
  return h->st ? tvm_diag_set(h->st, "head refused") : TVM_OK;
}

static void test_write_file_head_last(void **state) {
  (void)state;
  char path[] = "/tmp/tvm-test-write-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  char head[4] = {0};
  const void *parts[] = {head, "abc", "", "defg"};
  size_t lens[] = {4, 3, 0, 4};
  head_ctx h = {head, 0, TVM_OK};
  assert_int_equal(tvm_write_file_head_last(path, "test file", parts, lens, 4,
                                            0600, fill_head, &h),
                   TVM_OK);
  assert_int_equal(h.calls, 1);
  void *data;
  size_t size;
  assert_int_equal(tvm_read_file(path, "test file", 0, &data, &size), TVM_OK);
  assert_int_equal(size, 11);
  assert_memory_equal(data, "HEADabcdefg", 11);
  tvm_free(data);

  h.st = TVM_ERR_INVALID;
  memset(head, 0, sizeof head);
  assert_int_equal(tvm_write_file_head_last(path, "test file", parts, lens, 2,
                                            0600, fill_head, &h),
                   TVM_ERR_INVALID);
  assert_string_equal(tvm_diag_message(), "head refused");
  assert_int_equal(tvm_read_file(path, "test file", 0, &data, &size), TVM_OK);
  assert_int_equal(size, 11); /* the old file stays */
  tvm_free(data);

  h.st = TVM_OK;
  h.calls = 0;
  assert_int_equal(tvm_write_file_head_last("/dev/null", "test file", parts,
                                            lens, 4, 0600, fill_head, &h),
                   TVM_OK);
  assert_int_equal(h.calls, 1);
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ptrvec),
      cmocka_unit_test(test_strbuf),
      cmocka_unit_test(test_ptrmap_growth),
      cmocka_unit_test(test_strmap),
      cmocka_unit_test(test_hash_wide),
      cmocka_unit_test(test_read_file),
      cmocka_unit_test(test_write_file_head_last),
      cmocka_unit_test(test_map_file),
      cmocka_unit_test(test_file_view_done),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
