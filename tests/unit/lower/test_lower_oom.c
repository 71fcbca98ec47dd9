/*
 * tests/unit/lower/test_lower_oom.c - fault injection: bound inference,
 * schedule_ops (with compute_at, cache_write, a split reduction and a
 * tensor intrinsic) and storage_flatten run with the n-th heap allocation
 * failing, for every n until they run clean.  Each run must fail cleanly
 * (an error status, no crash, no leak under ASan) or succeed with the
 * same IR as a run without faults.
 */
#include "lower_test.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../te/examples.h"

static long fail_at = -1, count;

/* The C allocator, refusing allocation number fail_at. */
static void *faulty_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (count++ == fail_at)
    return NULL;
  return realloc(ptr, nsize);
}

static tvm_status emit(tvm_ctx *c, const tvm_tensor_intrin *ti,
                       tvm_buffer **in, int nin, tvm_buffer *out,
                       tvm_stmt **body, tvm_stmt **reset, tvm_stmt **update) {
  (void)ti;
  (void)nin;
  tvm_expr *args[3] = {out->data, in[0]->data, in[1]->elem_offset};
  *body = tvm_evaluate(c, tvm_call_extern(c, TVM_I32, "mm4", args, 3));
  *reset = tvm_evaluate(c, tvm_call_extern(c, TVM_I32, "mm4_reset", args, 1));
  *update = tvm_evaluate(c, tvm_call_extern(c, TVM_I32, "mm4_update", args, 3));
  return *body && *reset && *update ? TVM_OK : TVM_ERR_NOMEM;
}

/* Two matmuls in one schedule: the classic cache_write schedule, and a
 * tensorized one. Built with the normal allocator. */
static void build(fixture *f, tvm_tensor **args) {
  tvm_tensor *in[2], *in2[2], *pin[2];
  tvm_tensor *C = example_matmul(f->c, 20, 20, 20, in);
  tvm_tensor *D = example_matmul(f->c, 16, 16, 16, in2);
  tvm_tensor *pat = example_matmul(f->c, 4, 4, 4, pin);
  tvm_tensor *outs[2] = {C, D};
  assert_int_equal(tvm_schedule_create(f->c, outs, 2, &f->s), TVM_OK);
  tvm_schedule *s = f->s;
  tvm_tensor *CC;
  assert_int_equal(tvm_cache_write(s, C, "local", &CC), TVM_OK);
  tvm_stage *sc = tvm_stage_of(s, C), *scc = tvm_stage_of(s, CC);
  tvm_iter_var *xo, *yo, *xi, *yi, *ko, *ki;
  assert_int_equal(tvm_tile(sc, tvm_stage_axis(sc, 0), tvm_stage_axis(sc, 1),
                            8, 8, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(scc, sc, yo), TVM_OK);
  assert_int_equal(tvm_split(scc, tvm_stage_reduce_axis(scc, 0), 3, &ko, &ki),
                   TVM_OK);
  tvm_stage *sd = tvm_stage_of(s, D);
  assert_int_equal(tvm_tile(sd, tvm_stage_axis(sd, 0), tvm_stage_axis(sd, 1),
                            4, 4, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_split(sd, tvm_stage_reduce_axis(sd, 0), 4, &ko, &ki),
                   TVM_OK);
  assert_int_equal(tvm_reorder(sd, (tvm_iter_var *[]){xo, yo, ko, xi, yi, ki},
                               6),
                   TVM_OK);
  tvm_tensor_intrin *ti = tvm_tensor_intrin_new(f->c, "mm4", pat, emit, NULL);
  assert_int_equal(tvm_tensorize(sd, xi, ti), TVM_OK);
  args[0] = in[0];
  args[1] = in[1];
  args[2] = C;
  args[3] = in2[0];
  args[4] = in2[1];
  args[5] = D;
}

/* One lowering; the printed function (heap) or NULL on failure. */
static char *lower_once(tvm_schedule *s, tvm_tensor **args) {
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_status st;
  tvm_func *f = flat_func(s, args, 6, &o, &st);
  if (st != TVM_OK || !f)
    return NULL;
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_func(&b, f);
  return b.oom ? (tvm_strbuf_free(&b), NULL) : tvm_strbuf_take(&b);
}

static void test_lower_oom(void **state) {
  fixture *f = *state;
  tvm_tensor *args[6];
  build(f, args);
  char *want = lower_once(f->s, args);
  assert_non_null(want);
  int clean = 0;
  for (fail_at = 0; fail_at < 200000 && !clean; fail_at++) {
    /* a fresh ctx per run: a failed allocation is sticky in a ctx */
    fixture g = {tvm_ctx_create(), NULL};
    assert_non_null(g.c);
    tvm_tensor *a[6];
    build(&g, a);
    count = 0;
    tvm_set_allocator(faulty_alloc, NULL);
    char *got = lower_once(g.s, a);
    tvm_set_allocator(NULL, NULL);
    if (count <= fail_at)
      clean = 1; /* no allocation failed: the run is complete */
    if (got) {
      expect_text(got, want);
      tvm_free(got);
    } else {
      assert_false(clean);
    }
    tvm_schedule_free(g.s);
    tvm_ctx_destroy(g.c);
  }
  assert_true(clean);
  /* the scenario allocates enough to exercise many failure points */
  assert_true(fail_at > 50);
  tvm_free(want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_lower_oom, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
