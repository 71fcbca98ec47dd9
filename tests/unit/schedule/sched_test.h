/*
 * tests/unit/schedule/sched_test.h - the fixture and checks shared by the
 * schedule tests: a ctx and schedule per test, the printed schedule
 * compared as one string, and diagnostics checked for their words.
 */
#ifndef SCHED_TEST_H
#define SCHED_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tvm/schedule.h"
#include "../te/examples.h"

typedef struct fixture {
  tvm_ctx *c;
  tvm_schedule *s;
  tvm_tensor *in[5];
  tvm_tensor *out;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  f->c = tvm_ctx_create();
  *state = f;
  return f->c ? 0 : -1;
}

static int teardown(void **state) {
  fixture *f = *state;
  tvm_schedule_free(f->s);
  tvm_ctx_destroy(f->c);
  free(f);
  return 0;
}

/* The printed schedule, compared as one string. */
static void expect_schedule(const tvm_schedule *s, const char *want) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_schedule(&b, s);
  assert_non_null(b.data);
  if (strcmp(b.data, want) != 0)
    print_message("got:\n%s\nwant:\n%s\n", b.data, want);
  assert_string_equal(b.data, want);
  tvm_strbuf_free(&b);
}

/* The diagnostic of the last failure contains each of the words. */
static void expect_error(tvm_status rc, const char *w1, const char *w2) {
  assert_int_equal(rc, TVM_ERR_INVALID);
  if (!strstr(tvm_diag_message(), w1) || (w2 && !strstr(tvm_diag_message(), w2)))
    print_message("diagnostic: %s\n", tvm_diag_message());
  assert_non_null(strstr(tvm_diag_message(), w1));
  if (w2)
    assert_non_null(strstr(tvm_diag_message(), w2));
}

static tvm_stage *matmul_schedule(fixture *f, int64_t m, int64_t n,
                                  int64_t k) {
  f->out = example_matmul(f->c, m, n, k, f->in);
  assert_non_null(f->out);
  assert_int_equal(tvm_schedule_create(f->c, &f->out, 1, &f->s), TVM_OK);
  return tvm_stage_of(f->s, f->out);
}

#endif
