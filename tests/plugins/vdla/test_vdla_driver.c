/*
 * tests/plugins/vdla/test_vdla_driver.c - the VDLA runtime driver: device
 * memory, dependency folding (checked against the exact instruction
 * stream expected), no-op carriers, micro-op caching across streams, and
 * a double-buffered matrix-vector product written with dependency
 * operations, as lowered code would, run timed and shuffled.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../plugins/vdla/vdla_driver.h"

static vdla_dev *open_dev(uint32_t uop_kib) {
  vdla_config c;
  vdla_config_default(&c);
  if (uop_kib) c.uop_kib = uop_kib;
  const char *why = NULL;
  vdla_dev *d = vdla_dev_open(&c, 1 << 20, &why);
  if (!d) fail_msg("open: %s", why);
  return d;
}

static void test_alloc(void **state) {
  (void)state;
  vdla_dev *d = open_dev(0);
  uint64_t a, b, c, e;
  assert_int_equal(vdla_dev_alloc(d, 100, 64, &a), 0);
  assert_int_equal(vdla_dev_alloc(d, 100, 256, &b), 0);
  assert_int_equal(a % 64, 0);
  assert_int_equal(b % 256, 0);
  assert_true(b >= a + 100);
  vdla_dev_free(d, a);
  assert_int_equal(vdla_dev_alloc(d, 64, 64, &c), 0); /* first fit: a's place */
  assert_int_equal(c, a);
  assert_int_equal(vdla_dev_alloc(d, 2 << 20, 64, &e), -1);
  assert_int_equal(vdla_dev_used(d), 164);
  vdla_dev_close(d);
}

/* Decodes the stream's words. */
static uint32_t decode_all(vdla_stream *s, vdla_insn *out, uint32_t cap) {
  uint32_t n = 0;
  const uint64_t *w = vdla_stream_words(s, &n);
  assert_true(n <= cap);
  for (uint32_t i = 0; i < n; i++)
    assert_int_equal(vdla_decode(w + 2 * i, &out[i]), 0);
  return n;
}

/* flags as a string "pp pn up un" for comparisons */
static void expect(const vdla_insn *in, const char *name, int pop_prev,
                   int pop_next, int push_prev, int push_next) {
  assert_string_equal(vdla_insn_name(in), name);
  assert_int_equal(in->pop_prev, pop_prev);
  assert_int_equal(in->pop_next, pop_next);
  assert_int_equal(in->push_prev, push_prev);
  assert_int_equal(in->push_next, push_next);
}

static void test_folding(void **state) {
  (void)state;
  vdla_dev *d = open_dev(0);
  uint64_t inp, wgt, out;
  assert_int_equal(vdla_dev_alloc(d, 16, 64, &inp), 0);
  assert_int_equal(vdla_dev_alloc(d, 256, 256, &wgt), 0);
  assert_int_equal(vdla_dev_alloc(d, 16, 64, &out), 0);
  vdla_stream *s = vdla_stream_new(d);
  vdla_uop u = {0, 0, 0};
  vdla_insn g = {.op = VDLA_OP_GEMM, .extent_out = 1, .extent_in = 1};
  assert_int_equal(vdla_load(s, VDLA_BUF_INP, 0, inp, 1, 1, 1, NULL), 0);
  assert_int_equal(vdla_load(s, VDLA_BUF_WGT, 0, wgt, 1, 1, 1, NULL), 0);
  assert_int_equal(vdla_dep_push(s, VDLA_MOD_LOAD, VDLA_MOD_COMPUTE), 0);
  assert_int_equal(vdla_dep_pop(s, VDLA_MOD_LOAD, VDLA_MOD_COMPUTE), 0);
  assert_int_equal(vdla_compute(s, &g, &u, 1), 0);
  assert_int_equal(vdla_dep_push(s, VDLA_MOD_COMPUTE, VDLA_MOD_LOAD), 0);
  assert_int_equal(vdla_dep_push(s, VDLA_MOD_COMPUTE, VDLA_MOD_STORE), 0);
  assert_int_equal(vdla_dep_pop(s, VDLA_MOD_COMPUTE, VDLA_MOD_STORE), 0);
  assert_int_equal(vdla_store(s, 0, out, 1, 1, 1), 0);
  /* a pop no later load takes: it needs a carrier */
  assert_int_equal(vdla_dep_pop(s, VDLA_MOD_COMPUTE, VDLA_MOD_LOAD), 0);
  char err[512];
  if (vdla_stream_run(s, VDLA_FUNCTIONAL, 0, NULL, err, sizeof err))
    fail_msg("%s", err);
  vdla_insn in[16];
  uint32_t n = decode_all(s, in, 16);
  assert_int_equal(n, 7);
  expect(&in[0], "LOAD INP", 0, 0, 0, 0);
  expect(&in[1], "LOAD WGT", 0, 0, 0, 1); /* the push folded onto it */
  expect(&in[2], "LOAD UOP", 1, 0, 0, 0); /* the next compute insn pops */
  expect(&in[3], "GEMM", 0, 0, 1, 1);     /* both pushes folded */
  expect(&in[4], "STORE", 1, 0, 0, 0);
  expect(&in[5], "LOAD INP", 0, 1, 0, 0); /* carrier of the last pop */
  assert_int_equal(in[5].y_size, 0);
  expect(&in[6], "FINISH", 0, 0, 0, 0);
  vdla_stream_free(s);
  /* bad neighbours are refused */
  s = vdla_stream_new(d);
  assert_int_equal(vdla_dep_push(s, VDLA_MOD_LOAD, VDLA_MOD_STORE), -1);
  assert_non_null(strstr(vdla_stream_error(s), "neighbouring"));
  vdla_stream_free(s);
  vdla_dev_close(d);
}

/* Two pushes with nothing between and two pops before one store: the
 * second push and the first pop need carriers; the program balances. */
static void test_carriers(void **state) {
  (void)state;
  vdla_dev *d = open_dev(0);
  uint64_t out;
  assert_int_equal(vdla_dev_alloc(d, 64, 64, &out), 0);
  vdla_stream *s = vdla_stream_new(d);
  /* a push before compute issued anything: a carrier too */
  assert_int_equal(vdla_dep_push(s, VDLA_MOD_COMPUTE, VDLA_MOD_STORE), 0);
  assert_int_equal(vdla_dep_push(s, VDLA_MOD_COMPUTE, VDLA_MOD_STORE), 0);
  assert_int_equal(vdla_dep_pop(s, VDLA_MOD_COMPUTE, VDLA_MOD_STORE), 0);
  assert_int_equal(vdla_dep_pop(s, VDLA_MOD_COMPUTE, VDLA_MOD_STORE), 0);
  assert_int_equal(vdla_store(s, 0, out, 1, 2, 2), 0);
  char err[512];
  vdla_stats st;
  if (vdla_stream_run(s, VDLA_TIMED, 0, &st, err, sizeof err))
    fail_msg("%s", err);
  vdla_insn in[16];
  uint32_t n = decode_all(s, in, 16);
  assert_int_equal(n, 5);
  expect(&in[0], "GEMM", 0, 0, 0, 1);
  expect(&in[1], "GEMM", 0, 0, 0, 1);
  expect(&in[2], "STORE", 1, 0, 0, 0);
  assert_int_equal(in[2].y_size, 0); /* the first pop's carrier */
  expect(&in[3], "STORE", 1, 0, 0, 0);
  expect(&in[4], "FINISH", 0, 0, 0, 0);
  assert_int_equal(st.gemm_uops, 0);
  vdla_stream_free(s);
  vdla_dev_close(d);
}

/* The same micro-ops in a second stream are not loaded again; a buffer
 * too small for two sequences evicts. */
static void test_uop_cache(void **state) {
  (void)state;
  vdla_dev *d = open_dev(1); /* 1 KiB: 256 micro-ops */
  vdla_uop ua[150], ub[150];
  for (int i = 0; i < 150; i++) {
    ua[i] = (vdla_uop){(uint32_t)i, 0, 0};
    ub[i] = (vdla_uop){(uint32_t)i, 1, 1};
  }
  vdla_insn g = {.op = VDLA_OP_GEMM, .extent_out = 1, .extent_in = 1};
  char err[512];
  vdla_stats st;
  for (int round = 0; round < 2; round++) {
    vdla_stream *s = vdla_stream_new(d);
    assert_int_equal(vdla_compute(s, &g, ua, 150), 0);
    if (vdla_stream_run(s, VDLA_TIMED, 0, &st, err, sizeof err))
      fail_msg("%s", err);
    assert_int_equal(st.bytes[VDLA_BUF_UOP], round == 0 ? 600 : 0);
    assert_int_equal(st.gemm_uops, 150);
    vdla_stream_free(s);
  }
  vdla_uop_stats us = vdla_dev_uop_stats(d);
  assert_int_equal(us.misses, 1);
  assert_int_equal(us.hits, 1);
  /* 150 + 150 > 256: the second sequence evicts the first */
  vdla_stream *s = vdla_stream_new(d);
  assert_int_equal(vdla_compute(s, &g, ub, 150), 0);
  assert_int_equal(vdla_compute(s, &g, ua, 150), 0);
  if (vdla_stream_run(s, VDLA_TIMED, 0, &st, err, sizeof err))
    fail_msg("%s", err);
  vdla_stream_free(s);
  us = vdla_dev_uop_stats(d);
  assert_int_equal(us.evictions, 2);
  assert_int_equal(us.misses, 3);
  /* more micro-ops than the buffer holds is an error naming the attr */
  static vdla_uop many[300];
  s = vdla_stream_new(d);
  assert_int_equal(vdla_compute(s, &g, many, 300), -1);
  assert_non_null(strstr(vdla_stream_error(s), "uop_kib"));
  vdla_stream_free(s);
  vdla_dev_close(d);
}

/* ---- y = x W^T, double-buffered, with dependency operations ------------ */
#define KT 6
#define NT 3

static void test_matvec_through_driver(void **state) {
  (void)state;
  vdla_dev *d = open_dev(0);
  uint8_t *dram = vdla_dev_dram(d);
  uint64_t inp, wgt, out;
  assert_int_equal(vdla_dev_alloc(d, KT * 16, 64, &inp), 0);
  assert_int_equal(vdla_dev_alloc(d, NT * KT * 256, 256, &wgt), 0);
  assert_int_equal(vdla_dev_alloc(d, NT * 16, 64, &out), 0);
  uint32_t x = 12345;
  for (int i = 0; i < KT * 16; i++) dram[inp + i] = (uint8_t)((x *= 69069u) >> 24);
  for (int i = 0; i < NT * KT * 256; i++)
    dram[wgt + i] = (uint8_t)((x *= 69069u) >> 24);
  for (int mode = VDLA_FUNCTIONAL; mode <= VDLA_SHUFFLE; mode++)
    for (uint64_t seed = 1; seed <= (mode == VDLA_SHUFFLE ? 12u : 1u);
         seed++) {
      memset(dram + out, 0x55, NT * 16);
      vdla_stream *s = vdla_stream_new(d);
      vdla_insn g = {.op = VDLA_OP_GEMM, .extent_out = 1, .extent_in = 1};
      vdla_insn rst = g;
      rst.reset = 1;
      vdla_uop all[NT];
      for (int n = 0; n < NT; n++) all[n] = (vdla_uop){(uint32_t)n, 0, 0};
      assert_int_equal(vdla_compute(s, &rst, all, NT), 0);
      int T = NT * KT;
      for (int t = 0; t < T; t++) {
        int n = t / KT, k = t % KT, slot = t % 2;
        if (t >= 2) /* the slot is free once compute used it */
          assert_int_equal(vdla_dep_pop(s, VDLA_MOD_COMPUTE, VDLA_MOD_LOAD), 0);
        assert_int_equal(vdla_load(s, VDLA_BUF_INP, (uint32_t)slot,
                                   inp + (uint64_t)k * 16, 1, 1, 1, NULL), 0);
        assert_int_equal(vdla_load(s, VDLA_BUF_WGT, (uint32_t)slot,
                                   wgt + (uint64_t)(n * KT + k) * 256, 1, 1, 1,
                                   NULL), 0);
        assert_int_equal(vdla_dep_push(s, VDLA_MOD_LOAD, VDLA_MOD_COMPUTE), 0);
        assert_int_equal(vdla_dep_pop(s, VDLA_MOD_LOAD, VDLA_MOD_COMPUTE), 0);
        vdla_uop u = {(uint32_t)n, (uint32_t)slot, (uint32_t)slot};
        assert_int_equal(vdla_compute(s, &g, &u, 1), 0);
        if (t < T - 2)
          assert_int_equal(vdla_dep_push(s, VDLA_MOD_COMPUTE, VDLA_MOD_LOAD), 0);
      }
      assert_int_equal(vdla_dep_push(s, VDLA_MOD_COMPUTE, VDLA_MOD_STORE), 0);
      assert_int_equal(vdla_dep_pop(s, VDLA_MOD_COMPUTE, VDLA_MOD_STORE), 0);
      assert_int_equal(vdla_store(s, 0, out, 1, NT, NT), 0);
      char err[512];
      if (vdla_stream_run(s, mode, seed, NULL, err, sizeof err))
        fail_msg("mode %d seed %llu: %s", mode, (unsigned long long)seed, err);
      vdla_stream_free(s);
      const int8_t *xv = (const int8_t *)dram + inp;
      const int8_t *w = (const int8_t *)dram + wgt;
      for (int n = 0; n < NT; n++)
        for (int oc = 0; oc < 16; oc++) {
          int32_t sum = 0;
          for (int k = 0; k < KT; k++)
            for (int ic = 0; ic < 16; ic++)
              sum += xv[k * 16 + ic] * w[(n * KT + k) * 256 + oc * 16 + ic];
          assert_int_equal((int8_t)dram[out + n * 16 + oc],
                           (int8_t)(uint8_t)sum);
        }
    }
  vdla_dev_close(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alloc),
      cmocka_unit_test(test_folding),
      cmocka_unit_test(test_carriers),
      cmocka_unit_test(test_uop_cache),
      cmocka_unit_test(test_matvec_through_driver),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
