/*
 * tests/unit/lower/lower_test.h - shared helpers of the lowering tests:
 * a fixture owning a ctx and a schedule, and the printed IR after
 * schedule_ops or after storage_flatten + simplify (the part of the
 * pipeline owned by core/lower's bound/schedule_ops/storage_flatten).
 */
#ifndef TVM_TEST_LOWER_TEST_H
#define TVM_TEST_LOWER_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tvm/lower.h"

typedef struct fixture {
  tvm_ctx *c;
  tvm_schedule *s;
} fixture;

static inline int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  if (!f)
    return -1;
  f->c = tvm_ctx_create();
  *state = f;
  return f->c ? 0 : -1;
}

static inline int teardown(void **state) {
  fixture *f = *state;
  tvm_schedule_free(f->s);
  tvm_ctx_destroy(f->c);
  free(f);
  return 0;
}

/* Creates the schedule of out in the fixture. */
static inline tvm_schedule *sched(fixture *f, tvm_tensor *out) {
  assert_non_null(out);
  assert_int_equal(tvm_schedule_create(f->c, &out, 1, &f->s), TVM_OK);
  return f->s;
}

/* Compares printed IR, showing both on a mismatch. */
static inline void expect_text(const char *got, const char *want) {
  assert_non_null(got);
  if (strcmp(got, want) != 0)
    printf("got:\n%s\nwant:\n%s\n", got, want);
  assert_string_equal(got, want);
}

/* The statement made by bound inference + schedule_ops (heap string). */
static inline char *ops_text(tvm_schedule *s) {
  tvm_ptrmap ranges = {0};
  tvm_stmt *body = NULL;
  tvm_status st = tvm_infer_bound(s, &ranges);
  if (st == TVM_OK)
    st = tvm_schedule_ops(s, &ranges, &body);
  tvm_ptrmap_free(&ranges);
  if (st != TVM_OK)
    print_message("lowering failed: %s\n", tvm_diag_message());
  assert_int_equal(st, TVM_OK);
  return tvm_stmt_str(body);
}

static inline void expect_ops(tvm_schedule *s, const char *want) {
  char *got = ops_text(s);
  expect_text(got, want);
  tvm_free(got);
}

/* The function after schedule_ops, storage_flatten and simplify, built
 * like tvm_lower builds it: one buffer per argument, bound to its tensor
 * by `attr [T] buffer_bind = <handle>`. */
static inline tvm_func *flat_func(tvm_schedule *s, tvm_tensor **args, int nargs,
                           const tvm_lower_options *o, tvm_status *rc) {
  tvm_ctx *c = s->ctx;
  tvm_ptrmap ranges = {0};
  tvm_stmt *body = NULL;
  tvm_status st = tvm_infer_bound(s, &ranges);
  if (st == TVM_OK)
    st = tvm_schedule_ops(s, &ranges, &body);
  tvm_ptrmap_free(&ranges);
  tvm_expr *params[8];
  tvm_buffer *bufs[8];
  assert_true(nargs <= 8);
  for (int i = 0; st == TVM_OK && i < nargs; i++) {
    bufs[i] = tvm_buffer_new(c, args[i]->name, args[i]->dtype, args[i]->shape,
                             args[i]->ndim, "global");
    params[i] = bufs[i]->data;
    body = tvm_attr(c, "buffer_bind", args[i], bufs[i]->data, body);
  }
  tvm_func *f = NULL, *g = NULL, *h = NULL;
  if (st == TVM_OK) {
    f = tvm_func_new(c, "f", params, bufs, nargs, body);
    st = tvm_pass_storage_flatten(c, f, o, &g);
  }
  if (st == TVM_OK)
    st = tvm_pass_simplify(c, g, o, &h);
  *rc = st;
  return h;
}

static inline void expect_flat(tvm_schedule *s, tvm_tensor **args, int nargs,
                        const char *want) {
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_status st;
  tvm_func *f = flat_func(s, args, nargs, &o, &st);
  if (st != TVM_OK)
    print_message("lowering failed: %s\n", tvm_diag_message());
  assert_int_equal(st, TVM_OK);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_func(&b, f);
  expect_text(b.data, want);
  tvm_strbuf_free(&b);
}

#endif /* TVM_TEST_LOWER_TEST_H */
