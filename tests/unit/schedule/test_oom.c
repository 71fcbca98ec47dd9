/*
 * tests/unit/schedule/test_oom.c - fault injection: a whole TE + schedule
 * scenario (declarations, loop primitives, cache_read/cache_write,
 * rfactor, printing) runs with the n-th heap allocation failing, for
 * every n until it runs clean.  Each run must fail cleanly (an error
 * status or NULL, no crash, no leak under ASan) or succeed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tvm/schedule.h"

static long fail_at = -1, count;

/* The C allocator, refusing allocation number fail_at. */
static void *faulty_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (count++ == fail_at)
    return NULL;
  return realloc(ptr, nsize);
}

/* A body robust to failed constructors (no dereference of NULL). */
static tvm_expr *mm_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, 24);
  if (!k)
    return NULL;
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])),
                 &k, 1);
}

static tvm_expr *relu_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_max(c, TVM_AT(c, (tvm_tensor *)ud, i[0], i[1]), tvm_f32(c, 0));
}

enum { LAYERS = 12 };

/* Schedules layer D = relu(A x B) of s: tile, fuse, parallel, vectorize,
 * pragma, cache_write, inline, compute_at, split, cache_read, rfactor. */
static tvm_status schedule_layer(tvm_schedule *s, tvm_tensor *A,
                                 tvm_tensor *C, tvm_tensor *D) {
  tvm_stage *sd = tvm_stage_of(s, D), *sc = tvm_stage_of(s, C);
  tvm_iter_var *xo, *yo, *xi, *yi, *f, *ko, *ki;
  tvm_tensor *cl, *al, *rf;
  tvm_status rc;
  if ((rc = tvm_tile(sd, tvm_stage_axis(sd, 0), tvm_stage_axis(sd, 1), 8, 8,
                     &xo, &yo, &xi, &yi)) != TVM_OK ||
      (rc = tvm_fuse(sd, xo, yo, &f)) != TVM_OK ||
      (rc = tvm_parallel(sd, f)) != TVM_OK ||
      (rc = tvm_vectorize(sd, yi)) != TVM_OK ||
      (rc = tvm_pragma(sd, f, "k", NULL)) != TVM_OK ||
      (rc = tvm_cache_write(s, C, "local", &cl)) != TVM_OK ||
      (rc = tvm_compute_inline(sc)) != TVM_OK)
    return rc;
  tvm_stage *scl = tvm_stage_of(s, cl);
  if ((rc = tvm_compute_at(scl, sd, f)) != TVM_OK ||
      (rc = tvm_split(scl, tvm_stage_reduce_axis(scl, 0), 5, &ko, &ki)) !=
          TVM_OK ||
      (rc = tvm_cache_read(s, A, "shared", &scl->op, 1, &al)) != TVM_OK)
    return rc;
  return tvm_rfactor(s, cl, ki, 1, &rf);
}

/* The scenario: LAYERS independent layers in one ctx and one schedule
 * (enough IR to need several arena chunks); TVM_OK when every step
 * worked. */
static tvm_status scenario(void) {
  tvm_status rc = TVM_ERR_NOMEM;
  tvm_schedule *s = NULL;
  tvm_tensor *A[LAYERS], *C[LAYERS], *D[LAYERS];
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_ctx *c = tvm_ctx_create();
  if (!c)
    return TVM_ERR_NOMEM;
  for (int l = 0; l < LAYERS; l++) {
    char name[4][16];
    snprintf(name[0], 16, "A%d", l);
    snprintf(name[1], 16, "B%d", l);
    snprintf(name[2], 16, "C%d", l);
    snprintf(name[3], 16, "D%d", l);
    tvm_tensor *in[2] = {
        A[l] = tvm_placeholder(c, name[0], TVM_F32, (int64_t[]){32, 24}, 2),
        tvm_placeholder(c, name[1], TVM_F32, (int64_t[]){24, 32}, 2)};
    if (!in[0] || !in[1])
      goto done;
    C[l] = tvm_compute(c, name[2], (int64_t[]){32, 32}, 2, mm_body, in);
    D[l] = C[l] ? tvm_compute(c, name[3], (int64_t[]){32, 32}, 2, relu_body,
                              C[l])
                : NULL;
    if (!D[l])
      goto done;
  }
  if ((rc = tvm_schedule_create(c, D, LAYERS, &s)) != TVM_OK)
    goto done;
  for (int l = 0; l < LAYERS; l++)
    if ((rc = schedule_layer(s, A[l], C[l], D[l])) != TVM_OK)
      goto done;
  tvm_print_schedule(&b, s);
  rc = b.oom ? TVM_ERR_NOMEM : tvm_ctx_status(c);
done:
  tvm_strbuf_free(&b);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
  return rc;
}

static void test_every_allocation_failure(void **state) {
  fail_at = -1;
  count = 0;
  tvm_set_allocator(faulty_alloc, NULL);
  assert_int_equal(scenario(), TVM_OK);
  long total = count;
  assert_true(total > 10);
  print_message("%ld allocations, each made to fail once\n", total);
  for (fail_at = 0; fail_at < total; fail_at++) {
    count = 0;
    tvm_status rc = scenario();
    if (rc != TVM_OK && rc != TVM_ERR_NOMEM)
      fail_msg("allocation %ld failing gave %s: %s", fail_at,
               tvm_status_name(rc), tvm_diag_message());
  }
  tvm_set_allocator(NULL, NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_allocation_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
