/*
 * tests/plugins/vdla/test_vdla_plugin.c - the VDLA plugin module: its
 * strategies, lowering pass and codegen, run on its simulated device
 * against the scalar references (plugins/vdla/vdla_workload.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vdla_harness.h"

static void run_conv(const vdla_conv_shape *s, int nvt, int mode,
                     uint64_t seed, vh_run *out) {
  vh h;
  if (vh_open(&h, NULL) != TVM_OK) fail_msg("open: %s", tvm_diag_message());
  vh_run r;
  memset(&r, 0, sizeof r);
  r.nvt = nvt, r.mode = mode, r.seed = seed, r.keep_stream = 1;
  tvm_status st = vh_conv2d(&h, s, &r);
  vh_close(&h);
  if (st) fail_msg("conv2d: %s", tvm_diag_message());
  if (getenv("VDLA_DUMP") && r.stream) printf("%s", r.stream);
  free(r.stream);
  if (r.mismatches)
    fail_msg("%lld of %lld outputs differ from the reference (%s)",
             (long long)r.mismatches, (long long)r.elems, r.config);
  if (out) *out = r;
}

static void test_small_conv(void **state) {
  (void)state;
  vdla_conv_shape s = {1, 32, 8, 8, 32, 3, 1, 1, 8, 1};
  vh_run r;
  run_conv(&s, 1, VDLA_FUNCTIONAL, 0, &r);
  run_conv(&s, 2, VDLA_TIMED, 0, &r);
  run_conv(&s, 2, VDLA_SHUFFLE, 7, &r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_conv),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
