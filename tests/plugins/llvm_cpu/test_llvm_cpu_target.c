/*
 * test_llvm_cpu_target.c - the llvm-cpu plugin's descriptor and targets
 * through its query entry (harness.c): the ABI versions it answers, the
 * attribute schema, target_info for the host and for overrides, and a
 * refused attribute value.  Code generation is test_llvm_cpu.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"

static int setup(void **state) {
  (void)state;
  return h_load_plugin() != 0 ? -1 : 0;
}

static void test_query(void **state) {
  (void)state;
  tvm_plugin_query_fn q = h_query();
  assert_non_null(q);
  assert_null(q(0, h_host()));
  const tvm_plugin_desc *d1 = q(1, h_host());
  assert_non_null(d1);
  assert_int_equal(d1->abi_version, 1);
  assert_int_equal(q(2, h_host())->abi_version, 2);
  assert_int_equal(q(3, h_host())->abi_version, 3);
  assert_int_equal(q(6, h_host())->abi_version, 4);
  assert_int_equal(q(7, h_host())->abi_version, 7);
  const tvm_plugin_desc *d2 = q(9, h_host());
  assert_int_equal(d2->abi_version, 8);
  assert_non_null(d2->vtable->alter_layout);
  assert_non_null(d2->vtable->device_open_pool);
  assert_string_equal(d2->name, "llvm-cpu");
  const tvm_plugin_vtable *vt = d2->vtable;
  const char *want[] = {"mcpu", "mattr", "num_threads", "opt_level",
                        "vector_bits", "output", "winograd_min_tiles",
                        "winograd_tile"};
  assert_int_equal(vt->nattrs, 8);
  for (int i = 0; i < 8; i++) assert_string_equal(vt->attrs[i].name, want[i]);
  assert_string_equal(vt->attrs[5].choices, "object|shared");
  assert_null(vt->timer_start);
}

static void test_target_info(void **state) {
  (void)state;
  tvm_plugin_target *t = h_target(NULL);
  assert_non_null(t);
  const tvm_plugin_target_info *ti = h_desc()->vtable->target_info(t);
  assert_true(ti->vector_bits == 128 || ti->vector_bits == 256 ||
              ti->vector_bits == 512);
#if defined(__AVX512F__)
  assert_int_equal(ti->vector_bits, 512);
#endif
  assert_int_equal(ti->has_threads, 0);
  assert_int_equal(ti->num_queues, 0);
  assert_int_equal(ti->host_memory, 1); /* ABI 8 */
  assert_int_equal(ti->nscopes, 2);
  assert_string_equal(ti->scopes[0].name, "global");
  assert_string_equal(ti->scopes[1].name, "local");
  assert_non_null(strstr(ti->description, "thread"));
#if defined(__x86_64__)
  assert_memory_equal(ti->description, "x86_64 ", 7);
#endif
  h_desc()->vtable->target_destroy(t);

  const char *ov[] = {"vector_bits=256", "num_threads=1", NULL};
  t = h_target(ov);
  ti = h_desc()->vtable->target_info(t);
  assert_int_equal(ti->vector_bits, 256);
  assert_non_null(strstr(ti->description, "1 thread"));
  h_desc()->vtable->target_destroy(t);

  const char *bad[] = {"output=archive", NULL};
  assert_null(h_target(bad));
  assert_non_null(strstr(h_last_report(), "object or shared"));
  const char *bad_tile[] = {"winograd_tile=3", NULL};
  assert_null(h_target(bad_tile));
  assert_non_null(strstr(h_last_report(), "winograd_tile -1, 2 or 4"));
  const char *tile2[] = {"winograd_tile=2", NULL};
  assert_non_null(t = h_target(tile2));
  h_desc()->vtable->target_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_query),
      cmocka_unit_test(test_target_info),
  };
  return cmocka_run_group_tests_name("llvm-cpu target", tests, setup, NULL);
}
