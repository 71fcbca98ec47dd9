/*
 * tests/unit/base/test_diag.c - status names, per-thread diagnostics,
 * logging filter and edit distance.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/base.h"

static void test_status_names(void **state) {
  assert_string_equal(tvm_status_name(TVM_OK), "ok");
  assert_string_equal(tvm_status_name(TVM_ERR_NOMEM), "nomem");
  assert_string_equal(tvm_status_name(TVM_ERR_NOT_FOUND), "not-found");
  assert_string_equal(tvm_status_name(-99), "unknown");
}

static void test_set_prefix_clear(void **state) {
  tvm_diag_clear();
  assert_string_equal(tvm_diag_message(), "");
  assert_int_equal(tvm_diag_status(), TVM_OK);
  assert_int_equal(tvm_diag_set(TVM_ERR_IO, "cannot open %s", "x.yaml"), TVM_ERR_IO);
  assert_string_equal(tvm_diag_message(), "cannot open x.yaml");
  assert_int_equal(tvm_diag_prefix(TVM_ERR_INVALID, "loading %s: ", "t"), TVM_ERR_INVALID);
  assert_string_equal(tvm_diag_message(), "loading t: cannot open x.yaml");
  assert_int_equal(tvm_diag_status(), TVM_ERR_INVALID);
  tvm_diag_clear();
  assert_string_equal(tvm_diag_message(), "");
}

static void *other_thread(void *arg) {
  tvm_diag_set(TVM_ERR_ABI, "thread message");
  strcpy(arg, tvm_diag_message());
  return NULL;
}

static void test_per_thread(void **state) {
  char seen[64] = "";
  tvm_diag_set(TVM_ERR_IO, "main message");
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, other_thread, seen), 0);
  pthread_join(t, NULL);
  assert_string_equal(seen, "thread message");
  assert_string_equal(tvm_diag_message(), "main message");
  assert_int_equal(tvm_diag_status(), TVM_ERR_IO);
}

static void test_long_message_truncated(void **state) {
  char big[5000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  tvm_diag_set(TVM_ERR_INVALID, "%s", big);
  size_t n = strlen(tvm_diag_message());
  assert_true(n > 100 && n < sizeof big - 1);
}

/* Captures stderr around one tvm_log call. */
static int log_prints(const char *level_env, int level) {
  fflush(stderr);
  int saved = dup(2);
  FILE *tmp = tmpfile();
  dup2(fileno(tmp), 2);
  if (level_env) setenv("TVM_LOG_LEVEL", level_env, 1);
  else unsetenv("TVM_LOG_LEVEL");
  tvm_log(level, "hello %d", 5);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  long size = ftell(tmp);
  char buf[128] = "";
  rewind(tmp);
  size_t n = fread(buf, 1, sizeof buf - 1, tmp);
  buf[n] = '\0';
  fclose(tmp);
  if (size > 0) assert_non_null(strstr(buf, "hello 5\n"));
  return size > 0;
}

static void test_log_filter(void **state) {
  assert_true(log_prints(NULL, TVM_LOG_WARN));
  assert_false(log_prints(NULL, TVM_LOG_INFO));
  assert_true(log_prints("3", TVM_LOG_DEBUG));
  assert_false(log_prints("0", TVM_LOG_WARN));
  assert_true(log_prints("0", TVM_LOG_ERROR));
  assert_false(log_prints("-1", TVM_LOG_ERROR));
  unsetenv("TVM_LOG_LEVEL");
}

static void test_edit_distance(void **state) {
  assert_int_equal(tvm_edit_distance("", ""), 0);
  assert_int_equal(tvm_edit_distance("abc", ""), 3);
  assert_int_equal(tvm_edit_distance("", "ab"), 2);
  assert_int_equal(tvm_edit_distance("kitten", "sitting"), 3);
  assert_int_equal(tvm_edit_distance("block_in", "blok_in"), 1);
  assert_int_equal(tvm_edit_distance("flaw", "lawn"), 2);
  assert_int_equal(tvm_edit_distance("same", "same"), 0);
  char a[200], b[200];
  memset(a, 'x', 150);
  a[150] = '\0';
  memcpy(b, a, 151);
  b[10] = 'y';
  b[100] = 'z';
  assert_int_equal(tvm_edit_distance(a, b), 2); /* heap row path */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_names),
      cmocka_unit_test(test_set_prefix_clear),
      cmocka_unit_test(test_per_thread),
      cmocka_unit_test(test_long_message_truncated),
      cmocka_unit_test(test_log_filter),
      cmocka_unit_test(test_edit_distance),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
