/*
 * tests/abi/test_abi_offsets.c - the frozen layouts of the plugin ABI,
 * checked against literal numbers at run time (independently of the
 * _Static_asserts in tvm/plugin.h), so that a layout change fails here
 * with the field's name even if someone edits the asserts too.  LP64.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tvm/plugin.h"

#define OFF(T, f, n) assert_int_equal(offsetof(T, f), n)

static void test_host_api(void **state) {
  OFF(tvm_host_api, struct_size, 0);
  OFF(tvm_host_api, abi_version, 4);
  OFF(tvm_host_api, report, 8);
  OFF(tvm_host_api, log, 16);
  OFF(tvm_host_api, alloc, 24);
  OFF(tvm_host_api, free, 32);
  OFF(tvm_host_api, parallel_for, 40);
  OFF(tvm_host_api, num_threads, 48);
  OFF(tvm_host_api, reserved, 52);
  assert_int_equal(TVM_HOST_API_SIZE_V3, 56);
  OFF(tvm_host_api, pool_parallel_for, 56);
  OFF(tvm_host_api, pool_size, 64);
  assert_int_equal(sizeof(tvm_host_api), 72);
}

static void test_schema_structs(void **state) {
  OFF(tvm_plugin_attr, type, 4);
  OFF(tvm_plugin_attr, name, 8);
  OFF(tvm_plugin_attr, default_value, 16);
  OFF(tvm_plugin_attr, min, 24);
  OFF(tvm_plugin_attr, max, 32);
  OFF(tvm_plugin_attr, choices, 40);
  OFF(tvm_plugin_attr, doc, 48);
  assert_int_equal(sizeof(tvm_plugin_attr), 56);
  OFF(tvm_plugin_attr_value, type, 4);
  OFF(tvm_plugin_attr_value, name, 8);
  OFF(tvm_plugin_attr_value, i, 16);
  OFF(tvm_plugin_attr_value, f, 24);
  OFF(tvm_plugin_attr_value, s, 32);
  assert_int_equal(sizeof(tvm_plugin_attr_value), 40);
  OFF(tvm_plugin_scope, visibility, 4);
  OFF(tvm_plugin_scope, name, 8);
  OFF(tvm_plugin_scope, size_bytes, 16);
  OFF(tvm_plugin_scope, align, 24);
  OFF(tvm_plugin_scope, queue, 28);
  assert_int_equal(sizeof(tvm_plugin_scope), 32);
  OFF(tvm_plugin_intrin, name, 8);
  OFF(tvm_plugin_intrin, declare, 16);
  assert_int_equal(sizeof(tvm_plugin_intrin), 24);
  OFF(tvm_plugin_strategy, priority, 4);
  OFF(tvm_plugin_strategy, op, 8);
  OFF(tvm_plugin_strategy, name, 16);
  OFF(tvm_plugin_strategy, schedule, 24);
  OFF(tvm_plugin_strategy, match, 32); /* ABI 4 */
  OFF(tvm_plugin_strategy, pattern, 36);
  OFF(tvm_plugin_strategy, schedule_call, 40);
  assert_int_equal(sizeof(tvm_plugin_strategy), 48);
  OFF(tvm_plugin_strategy_call, nintrins, 4);
  OFF(tvm_plugin_strategy_call, anchor, 8);
  OFF(tvm_plugin_strategy_call, op, 16);
  OFF(tvm_plugin_strategy_call, intrins, 24);
  OFF(tvm_plugin_strategy_call, intrin_names, 32);
  assert_int_equal(sizeof(tvm_plugin_strategy_call), 40);
}

static void test_target_info(void **state) {
  OFF(tvm_plugin_target_info, vector_bits, 4);
  OFF(tvm_plugin_target_info, has_threads, 8);
  OFF(tvm_plugin_target_info, num_queues, 12);
  OFF(tvm_plugin_target_info, queue_names, 16);
  OFF(tvm_plugin_target_info, scopes, 24);
  OFF(tvm_plugin_target_info, nscopes, 32);
  OFF(tvm_plugin_target_info, nintrins, 36);
  OFF(tvm_plugin_target_info, intrins, 40);
  OFF(tvm_plugin_target_info, strategies, 48);
  OFF(tvm_plugin_target_info, nstrategies, 56);
  OFF(tvm_plugin_target_info, unroll_max_extent, 60);
  OFF(tvm_plugin_target_info, description, 64);
  OFF(tvm_plugin_target_info, max_threads_per_block, 72); /* ABI 4 */
  OFF(tvm_plugin_target_info, thread_warp_size, 76);
  OFF(tvm_plugin_target_info, host_memory, 80); /* ABI 8 */
  assert_int_equal(sizeof(tvm_plugin_target_info), 88);
}

static void test_blob_and_args(void **state) {
  OFF(tvm_plugin_kernel, nargs, 4);
  OFF(tvm_plugin_kernel, name, 8);
  OFF(tvm_plugin_kernel, grid, 16);
  OFF(tvm_plugin_kernel, block, 28);
  OFF(tvm_plugin_kernel, shared_bytes, 40);
  assert_int_equal(sizeof(tvm_plugin_kernel), 48);
  OFF(tvm_plugin_blob, format, 4);
  OFF(tvm_plugin_blob, data, 8);
  OFF(tvm_plugin_blob, size, 16);
  OFF(tvm_plugin_blob, kernels, 24);
  OFF(tvm_plugin_blob, nkernels, 32);
  assert_int_equal(sizeof(tvm_plugin_blob), 40);
  OFF(tvm_plugin_arg, type, 0);
  OFF(tvm_plugin_arg, v, 8);
  assert_int_equal(sizeof(tvm_plugin_arg), 16);
}

static void test_vtable(void **state) {
  OFF(tvm_plugin_vtable, struct_size, 0);
  OFF(tvm_plugin_vtable, nattrs, 4);
  OFF(tvm_plugin_vtable, attrs, 8);
  OFF(tvm_plugin_vtable, target_create, 16);
  OFF(tvm_plugin_vtable, target_destroy, 24);
  OFF(tvm_plugin_vtable, target_info, 32);
  OFF(tvm_plugin_vtable, codegen, 40);
  OFF(tvm_plugin_vtable, probe, 48);
  OFF(tvm_plugin_vtable, device_open, 56);
  OFF(tvm_plugin_vtable, device_close, 64);
  OFF(tvm_plugin_vtable, mem_alloc, 72);
  OFF(tvm_plugin_vtable, mem_free, 80);
  OFF(tvm_plugin_vtable, copy, 88);
  OFF(tvm_plugin_vtable, module_load, 96);
  OFF(tvm_plugin_vtable, module_unload, 104);
  OFF(tvm_plugin_vtable, func_get, 112);
  OFF(tvm_plugin_vtable, launch, 120);
  OFF(tvm_plugin_vtable, sync, 128);
  assert_int_equal(TVM_PLUGIN_VTABLE_SIZE_V1, 136); /* ABI 1 ends here */
  OFF(tvm_plugin_vtable, timer_start, 136);
  OFF(tvm_plugin_vtable, timer_stop, 144);
  assert_int_equal(TVM_PLUGIN_VTABLE_SIZE_V2, 152); /* ABI 2 ends here */
  OFF(tvm_plugin_vtable, alter_layout, 152);
  assert_int_equal(TVM_PLUGIN_VTABLE_SIZE_V3, 160); /* ABI 3 ends here */
  OFF(tvm_plugin_vtable, device_open_pool, 160);
  OFF(tvm_plugin_vtable, lower_passes, 168);
  assert_int_equal(TVM_PLUGIN_VTABLE_SIZE_V4, 176); /* ABI 4 ends here */
  OFF(tvm_plugin_vtable, supports, 176);
  assert_int_equal(TVM_PLUGIN_VTABLE_SIZE_V5, 184); /* ABI 5 ends here */
  OFF(tvm_plugin_vtable, quantize, 184);
  assert_int_equal(sizeof(tvm_plugin_vtable), 192);
  OFF(tvm_plugin_quant, enabled, 4);
  OFF(tvm_plugin_quant, act_code, 8);
  OFF(tvm_plugin_quant, weight_code, 16);
  OFF(tvm_plugin_quant, acc_code, 24);
  OFF(tvm_plugin_quant, scale, 32);
  OFF(tvm_plugin_quant, block_batch, 36);
  OFF(tvm_plugin_quant, block_out, 44);
  assert_int_equal(sizeof(tvm_plugin_quant), 48);
  assert_int_equal(TVM_QUANT_SCALE_POW2, 1);
  OFF(tvm_plugin_support, supported, 4);
  OFF(tvm_plugin_support, reason, 8);
  assert_int_equal(TVM_PLUGIN_REASON_CAP, 160);
  assert_int_equal(sizeof(tvm_plugin_support), 168);
  OFF(tvm_plugin_lower_pass, after, 8);
  OFF(tvm_plugin_lower_pass, name, 16);
  OFF(tvm_plugin_lower_pass, run, 24);
  assert_int_equal(sizeof(tvm_plugin_lower_pass), 32);
  OFF(tvm_plugin_layout, flags, 4);
  OFF(tvm_plugin_layout, data, 8);
  assert_int_equal(TVM_PLUGIN_LAYOUT_FLAT_PIXELS, 1);
  assert_int_equal(sizeof(tvm_plugin_layout), 104);
}

static void test_descriptor_and_constants(void **state) {
  OFF(tvm_plugin_desc, abi_version, 4);
  OFF(tvm_plugin_desc, name, 8);
  OFF(tvm_plugin_desc, version, 16);
  OFF(tvm_plugin_desc, description, 24);
  OFF(tvm_plugin_desc, vtable, 32);
  assert_int_equal(sizeof(tvm_plugin_desc), 40);
  assert_int_equal(TVM_PLUGIN_ABI_VERSION, 8);
  assert_int_equal(TVM_PLUGIN_ABI_MIN, 1);
  assert_string_equal(TVM_PLUGIN_ENTRY, "tvm_plugin_query");
  assert_int_equal(TVM_PLUGIN_ATTR_INT, 1);
  assert_int_equal(TVM_PLUGIN_ATTR_STRING, 4);
  assert_int_equal(TVM_BLOB_ELF_OBJECT, 1);
  assert_int_equal(TVM_BLOB_CUSTOM, 100);
  assert_int_equal(TVM_ARG_PTR, 1);
  assert_int_equal(TVM_ARG_FLOAT, 3);
  assert_int_equal(TVM_COPY_DEVICE_TO_DEVICE, 3);
}


/* The core structs plugins read (frozen, see the top of tvm/plugin.h). */
static void test_plugin_visible_core(void **state) {
  assert_int_equal(TVM_VAR, 3);
  assert_int_equal(TVM_MAX, 12);
  assert_int_equal(TVM_GE, 18);
  assert_int_equal(TVM_NOT, 21);
  assert_int_equal(TVM_CALL, 24);
  assert_int_equal(TVM_LOAD, 25);
  assert_int_equal(TVM_RAMP, 26);
  assert_int_equal(TVM_REDUCE, 30);
  assert_int_equal(TVM_REALIZE, 11);
  assert_int_equal(TVM_STORE, 4);
  assert_int_equal(TVM_EVALUATE, 7);
  assert_int_equal(TVM_ASSERT, 9);
  assert_int_equal(TVM_INTRIN_ISNAN, 17);
  assert_int_equal(TVM_INTRIN_BITXOR, 22);
  assert_int_equal(TVM_INTRIN_ACCESS_PTR, 25);
  assert_int_equal(TVM_INTRIN_DEP_POP, 27);
  assert_int_equal(TVM_FOR_VTHREAD, 5);
  assert_int_equal(TVM_REDUCE_PROD, 3);
  assert_int_equal(TVM_OP_COMPUTE, 1);
  assert_int_equal(TVM_FUNC_HOST, 0);
  OFF(tvm_expr, dtype, 4);
  OFF(tvm_expr, u, 8);
  OFF(tvm_expr, u.call.args, 24);
  OFF(tvm_expr, u.call.nargs, 32);
  OFF(tvm_expr, u.load.pred, 24);
  OFF(tvm_expr, u.ramp.lanes, 24);
  OFF(tvm_expr, u.reduce.cond, 40);
  OFF(tvm_stmt, u, 8);
  OFF(tvm_stmt, u.for_.body, 48);
  OFF(tvm_stmt, u.alloc.body, 48);
  OFF(tvm_stmt, u.attr.body, 32);
  OFF(tvm_stmt, u.store.pred, 32);
  OFF(tvm_stmt, u.realize.body, 40);
  OFF(tvm_buffer, data, 8);
  OFF(tvm_buffer, dtype, 16);
  OFF(tvm_buffer, shape, 24);
  OFF(tvm_buffer, strides, 32);
  OFF(tvm_buffer, elem_offset, 40);
  OFF(tvm_buffer, scope, 48);
  OFF(tvm_func, kind, 8);
  OFF(tvm_func, params, 16);
  OFF(tvm_func, buffers, 24);
  OFF(tvm_func, body, 32);
  OFF(tvm_func, thread_extents, 56);
  OFF(tvm_module, funcs, 8);
  OFF(tvm_module, nfuncs, 16);
  OFF(tvm_iter_var, dom, 8);
  OFF(tvm_iter_var, kind, 24);
  OFF(tvm_iter_var, thread_tag, 32);
  OFF(tvm_operation, tag, 16);
  OFF(tvm_operation, axis, 24);
  OFF(tvm_operation, reduce_axis, 40);
  OFF(tvm_operation, nreduce, 48);
  OFF(tvm_operation, body, 56);
  OFF(tvm_operation, output, 64);
  OFF(tvm_tensor, name, 8);
  OFF(tvm_tensor, dtype, 16);
  OFF(tvm_tensor, ndim, 20);
  OFF(tvm_tensor, shape, 24);
  OFF(tvm_tensor, shape_c, 32);
  OFF(tvm_tensor_intrin, pattern, 8);
  OFF(tvm_tensor_intrin, emit, 16);
  OFF(tvm_tensor_intrin, data, 24);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_api),
      cmocka_unit_test(test_schema_structs),
      cmocka_unit_test(test_target_info),
      cmocka_unit_test(test_blob_and_args),
      cmocka_unit_test(test_vtable),
      cmocka_unit_test(test_descriptor_and_constants),
      cmocka_unit_test(test_plugin_visible_core),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
