/*
 * tests/unit/tune/test_features.c - loop-program features: a fixed-length
 * vector from the loop IR after storage_flatten that sees the schedule
 * (vectorized and parallel loops, unit-stride accesses, a local register
 * block), and does not depend on the shapes beyond their logs.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tvm/lower.h"
#include "tvm/schedule.h"
#include "tvm/te.h"
#include "tvm/tune.h"

/* C[i, j] = sum_k A[i, k] * B[k, j] */
static tvm_expr *mm_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, in[0]->shape_c[1]);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])),
                 &k, 1);
}

static tvm_tensor *example_matmul(tvm_ctx *c, int64_t m, int64_t n, int64_t k,
                                  tvm_tensor *in[2]) {
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){m, k}, 2);
  in[1] = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){k, n}, 2);
  return tvm_compute(c, "C", (int64_t[]){m, n}, 2, mm_body, in);
}

static void grab(void *ud, const char *pass, const tvm_func *f) {
  if (strcmp(pass, "storage_flatten") == 0)
    tvm_tune_features(f, ud);
}

static int feat(const char *name) {
  for (int i = 0; i < TVM_TUNE_NFEATURES; i++)
    if (strcmp(tvm_tune_feature_name(i), name) == 0)
      return i;
  fail_msg("no feature %s", name);
  return -1;
}

/* Features of C = A x B (n x n x n); tiled: j split by 8, vectorized,
 * i parallel. */
static void features(int64_t n, int tiled, float *out) {
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(c, n, n, n, in);
  tvm_schedule *s = NULL;
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  if (tiled) {
    tvm_stage *st = tvm_stage_of(s, C);
    tvm_iter_var *jo, *ji;
    assert_int_equal(tvm_split(st, tvm_stage_axis(st, 1), 8, &jo, &ji), TVM_OK);
    assert_int_equal(tvm_reorder(st, (tvm_iter_var *[]){tvm_stage_axis(st, 0),
                                       jo, tvm_stage_reduce_axis(st, 0), ji}, 4),
                     TVM_OK);
    assert_int_equal(tvm_vectorize(st, ji), TVM_OK);
    assert_int_equal(tvm_parallel(st, tvm_stage_axis(st, 0)), TVM_OK);
  }
  tvm_lower_options lo;
  tvm_lower_options_init(&lo);
  lo.dump_pass = "storage_flatten";
  lo.dump = grab;
  lo.dump_ud = out;
  memset(out, 0xff, sizeof(float) * TVM_TUNE_NFEATURES);
  tvm_module m = {c, NULL, 0};
  assert_int_equal(tvm_lower(s, (tvm_tensor *[]){in[0], in[1], C}, 3, "mm",
                             &lo, &m), TVM_OK);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}

static void test_schedule_visible(void **state) {
  (void)state;
  float plain[TVM_TUNE_NFEATURES], tiled[TVM_TUNE_NFEATURES];
  features(64, 0, plain);
  features(64, 1, tiled);
  for (int i = 0; i < TVM_TUNE_NFEATURES; i++) {
    assert_true(plain[i] == plain[i]); /* written, not NaN */
    assert_true(tiled[i] == tiled[i]);
  }
  assert_true(plain[feat("vector_n")] == 0);
  /* the vectorized j.inner of the update and of the reduction's init */
  assert_true(tiled[feat("vector_n")] == 2);
  assert_true(plain[feat("parallel_n")] == 0);
  assert_true(tiled[feat("parallel_n")] == 1);
  assert_true(tiled[feat("par_ext")] > 0);
  /* same arithmetic either way: 64^3 multiply-adds */
  assert_true(plain[feat("fmul")] == tiled[feat("fmul")]);
  assert_true(plain[feat("fmul")] > 17.9 && plain[feat("fmul")] < 18.1);
  /* the most touched access is the same count in both */
  assert_true(plain[feat("acc0_touch")] == tiled[feat("acc0_touch")]);
  /* loads after vectorizing: A[i, k] is one broadcast per 8 lanes and
   * B[k, j] one vector, where the plain loop loads every element */
  assert_true(plain[feat("eff_loads")] == plain[feat("loads")]);
  assert_true(tiled[feat("eff_loads")] < plain[feat("eff_loads")] - 2.5);
  assert_true(tiled[feat("flop_per_eff_load")] >
              plain[feat("flop_per_eff_load")] + 1.5); /* 16/3 vs 2/3 */
  assert_true(plain[feat("unroll_block")] == 1); /* lg(1 + 1) */
  /* the loops around the most executed access: k (64, serial) inside j
   * in the plain nest; j.inner (8, vectorized) inside k when tiled */
  assert_true(fabs(plain[feat("in0_ext")] - log2(65)) < 1e-5);
  assert_true(plain[feat("in0_kind")] == TVM_FOR_SERIAL + 1);
  assert_true(fabs(tiled[feat("in0_ext")] - log2(9)) < 1e-5);
  assert_true(tiled[feat("in0_kind")] == TVM_FOR_VECTORIZED + 1);
  assert_true(fabs(tiled[feat("in1_ext")] - log2(65)) < 1e-5);
}

/* The cache traffic estimate of the plain 64^3 matmul, by hand: the
 * update nest i, j, k touches per run of k A[i, 0:64], B[0:64, j] and C[i,
 * j] loaded and stored (520 B), per run of j 4 x (64 + 4096 + 64 + 64) =
 * 17152 B, per run of i 64 KiB.  In 32 KiB the j loop is the outermost
 * that fits: 64 runs x 17152 B; the init nest (C = 0) fits whole: 16 KiB.
 * 1114112 B in all.  In 1 MiB both nests fit whole: 65536 + 16384 B. */
static void test_cache_traffic(void **state) {
  (void)state;
  float plain[TVM_TUNE_NFEATURES], tiled[TVM_TUNE_NFEATURES];
  features(64, 0, plain);
  features(64, 1, tiled);
  double l1 = exp2(plain[feat("l1_traffic")]) - 1;
  double l2 = exp2(plain[feat("l2_traffic")]) - 1;
  assert_true(fabs(l1 - 1114112) < 1114112 * 1e-5);
  assert_true(fabs(l2 - 81920) < 81920 * 1e-5);
  /* 2 x 64^3 flops over those bytes */
  double fl1 = exp2(plain[feat("l1_flop_per_byte")]) - 1;
  assert_true(fabs(fl1 - 524288.0 / 1114112) < 1e-4);
  /* a larger cache never sees more traffic */
  assert_true(tiled[feat("l2_traffic")] <= tiled[feat("l1_traffic")]);
}

static void test_shape_scaling(void **state) {
  (void)state;
  float a[TVM_TUNE_NFEATURES], b[TVM_TUNE_NFEATURES];
  features(32, 1, a);
  features(64, 1, b);
  /* doubling n: 8x the multiply-adds, +3 in log2 */
  assert_true(b[feat("fmul")] - a[feat("fmul")] > 2.9);
  assert_true(b[feat("fmul")] - a[feat("fmul")] < 3.1);
  /* the loop structure is the same */
  assert_true(a[feat("max_depth")] == b[feat("max_depth")]);
  assert_true(a[feat("vector_n")] == b[feat("vector_n")]);
  assert_string_equal(tvm_tune_feature_name(TVM_TUNE_NFEATURES), "?");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_schedule_visible),
      cmocka_unit_test(test_cache_traffic),
      cmocka_unit_test(test_shape_scaling),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
