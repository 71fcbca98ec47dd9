# core/lower: files of this folder (see Makefile.am)
libtvm_la_SOURCES += core/lower/simplify.c
# strategy: the serialize_threads pass (thread kernels on one CPU thread)
libtvm_la_SOURCES += core/lower/serialize_threads.c
# helper B2: bound inference, schedule_ops, tensorize, storage_flatten,
# the pipeline and its options
libtvm_la_SOURCES += \
	core/lower/lower_int.h \
	core/lower/lower_graph.c \
	core/lower/options.c \
	core/lower/bound.c \
	core/lower/schedule_ops.c \
	core/lower/tensorize.c \
	core/lower/storage_flatten.c \
	core/lower/lower.c
check_PROGRAMS += tests/unit/lower/test_schedule_ops
TESTS += tests/unit/lower/test_schedule_ops
tests_unit_lower_test_schedule_ops_SOURCES = \
	tests/unit/lower/test_schedule_ops.c tests/unit/lower/lower_test.h
tests_unit_lower_test_schedule_ops_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_schedule_ops_LDADD = $(TVM_TEST_LIBS)
check_PROGRAMS += tests/unit/lower/test_lower_dataflow
TESTS += tests/unit/lower/test_lower_dataflow
tests_unit_lower_test_lower_dataflow_SOURCES = \
	tests/unit/lower/test_lower_dataflow.c tests/unit/lower/lower_test.h
tests_unit_lower_test_lower_dataflow_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_lower_dataflow_LDADD = $(TVM_TEST_LIBS)
check_PROGRAMS += tests/unit/lower/test_tensorize
TESTS += tests/unit/lower/test_tensorize
tests_unit_lower_test_tensorize_SOURCES = \
	tests/unit/lower/test_tensorize.c tests/unit/lower/lower_test.h
tests_unit_lower_test_tensorize_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_tensorize_LDADD = $(TVM_TEST_LIBS)
# helper C: loop-IR passes after storage_flatten
libtvm_la_SOURCES += \
	core/lower/coproc_int.h \
	core/lower/coproc_queue.c \
	core/lower/vectorize.c \
	core/lower/unroll.c \
	core/lower/hoist_guards.c \
	core/lower/binds.c \
	core/lower/buffer_offset.c \
	core/lower/inject_virtual_thread.c \
	core/lower/inject_double_buffer.c \
	core/lower/inject_dep_tokens.c \
	core/lower/storage_rewrite.c \
	core/lower/thread_sync.c \
	core/lower/split_host_device.c \
	core/lower/launch.c \
	core/lower/check_scopes.c
check_PROGRAMS += tests/unit/lower/test_lower
TESTS += tests/unit/lower/test_lower
tests_unit_lower_test_lower_SOURCES = \
	tests/unit/lower/test_lower.c tests/unit/lower/lower_test.h
tests_unit_lower_test_lower_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_lower_LDADD = $(TVM_TEST_LIBS)
# helper C: tests of the loop-IR passes (pass_check: IR interpreter and
# dependency-token checker shared by them)
check_PROGRAMS += tests/unit/lower/test_unroll
TESTS += tests/unit/lower/test_unroll
tests_unit_lower_test_unroll_SOURCES = tests/unit/lower/test_unroll.c \
	tests/unit/lower/pass_check.c tests/unit/lower/pass_check.h
tests_unit_lower_test_unroll_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_unroll_LDADD = $(TVM_TEST_LIBS) -lm
check_PROGRAMS += tests/unit/lower/test_hoist_guards
TESTS += tests/unit/lower/test_hoist_guards
tests_unit_lower_test_hoist_guards_SOURCES = tests/unit/lower/test_hoist_guards.c \
	tests/unit/lower/pass_check.c tests/unit/lower/pass_check.h
tests_unit_lower_test_hoist_guards_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_hoist_guards_LDADD = $(TVM_TEST_LIBS) -lm
check_PROGRAMS += tests/unit/lower/test_vectorize
TESTS += tests/unit/lower/test_vectorize
tests_unit_lower_test_vectorize_SOURCES = tests/unit/lower/test_vectorize.c \
	tests/unit/lower/pass_check.c tests/unit/lower/pass_check.h
tests_unit_lower_test_vectorize_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_vectorize_LDADD = $(TVM_TEST_LIBS) -lm
check_PROGRAMS += tests/unit/lower/test_inject_virtual_thread
TESTS += tests/unit/lower/test_inject_virtual_thread
tests_unit_lower_test_inject_virtual_thread_SOURCES = \
	tests/unit/lower/test_inject_virtual_thread.c \
	tests/unit/lower/pass_check.c tests/unit/lower/pass_check.h
tests_unit_lower_test_inject_virtual_thread_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_inject_virtual_thread_LDADD = $(TVM_TEST_LIBS) -lm
check_PROGRAMS += tests/unit/lower/test_inject_double_buffer
TESTS += tests/unit/lower/test_inject_double_buffer
tests_unit_lower_test_inject_double_buffer_SOURCES = \
	tests/unit/lower/test_inject_double_buffer.c \
	tests/unit/lower/pass_check.c tests/unit/lower/pass_check.h
tests_unit_lower_test_inject_double_buffer_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_inject_double_buffer_LDADD = $(TVM_TEST_LIBS) -lm
check_PROGRAMS += tests/unit/lower/test_inject_dep_tokens
TESTS += tests/unit/lower/test_inject_dep_tokens
tests_unit_lower_test_inject_dep_tokens_SOURCES = \
	tests/unit/lower/test_inject_dep_tokens.c \
	tests/unit/lower/pass_check.c tests/unit/lower/pass_check.h
tests_unit_lower_test_inject_dep_tokens_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_inject_dep_tokens_LDADD = $(TVM_TEST_LIBS) -lm
check_PROGRAMS += tests/unit/lower/test_storage_rewrite
TESTS += tests/unit/lower/test_storage_rewrite
tests_unit_lower_test_storage_rewrite_SOURCES = \
	tests/unit/lower/test_storage_rewrite.c \
	tests/unit/lower/pass_check.c tests/unit/lower/pass_check.h
tests_unit_lower_test_storage_rewrite_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_storage_rewrite_LDADD = $(TVM_TEST_LIBS) -lm
check_PROGRAMS += tests/unit/lower/test_thread_sync
TESTS += tests/unit/lower/test_thread_sync
tests_unit_lower_test_thread_sync_SOURCES = tests/unit/lower/test_thread_sync.c
tests_unit_lower_test_thread_sync_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_thread_sync_LDADD = $(TVM_TEST_LIBS)
check_PROGRAMS += tests/unit/lower/test_split_host_device
TESTS += tests/unit/lower/test_split_host_device
tests_unit_lower_test_split_host_device_SOURCES = \
	tests/unit/lower/test_split_host_device.c
tests_unit_lower_test_split_host_device_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_split_host_device_LDADD = $(TVM_TEST_LIBS)
# The mock decoupled access-execute accelerator: the SDK's installed
# accelerator example (plugin-sdk/example-accel, built out of tree in
# tests/abi/test_sdk_example_accel.sh), built here as a test plugin, and the
# test lowering a matmul for it and running it end to end through the
# host/device model (host programs run by the runtime, kernels on the mock).
MOCK_ACCEL_SRC = \
	plugin-sdk/example-accel/mock_accel.h \
	plugin-sdk/example-accel/mock_accel.c \
	plugin-sdk/example-accel/mock_accel_codegen.c \
	plugin-sdk/example-accel/mock_accel_device.c
check_LTLIBRARIES += tests/plugins/mock_accel/tvm-mock-accel.la
tests_plugins_mock_accel_tvm_mock_accel_la_SOURCES = $(MOCK_ACCEL_SRC)
tests_plugins_mock_accel_tvm_mock_accel_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)
tests_plugins_mock_accel_tvm_mock_accel_la_LIBADD = libtvm_plugin_sdk.la $(TVM_LIBS)
check_PROGRAMS += tests/plugins/mock_accel/test_mock_accel
TESTS += tests/plugins/mock_accel/test_mock_accel
tests_plugins_mock_accel_test_mock_accel_SOURCES = \
	tests/plugins/mock_accel/test_mock_accel.c $(MOCK_ACCEL_SRC) \
	tests/unit/lower/pass_check.c tests/unit/lower/pass_check.h
tests_plugins_mock_accel_test_mock_accel_CFLAGS = $(TVM_TEST_CF) \
	-I$(top_srcdir)/plugin-sdk/example-accel
tests_plugins_mock_accel_test_mock_accel_LDADD = libtvm_plugin_sdk.la $(TVM_TEST_LIBS) -lm
# heterogeneous execution: the mock plugin (loaded from the test plugin
# path) beside its llvm-cpu fallback
check_PROGRAMS += tests/plugins/mock_accel/test_mock_hetero
TESTS += tests/plugins/mock_accel/test_mock_hetero
tests_plugins_mock_accel_test_mock_hetero_SOURCES = \
	tests/plugins/mock_accel/test_mock_hetero.c
tests_plugins_mock_accel_test_mock_hetero_CFLAGS = $(TVM_TEST_CF)
tests_plugins_mock_accel_test_mock_hetero_LDADD = $(TVM_TEST_LIBS)
check_PROGRAMS += tests/unit/lower/test_lower_numeric
TESTS += tests/unit/lower/test_lower_numeric
tests_unit_lower_test_lower_numeric_SOURCES = \
	tests/unit/lower/test_lower_numeric.c tests/unit/lower/lower_test.h \
	tests/unit/lower/tir_interp.h
tests_unit_lower_test_lower_numeric_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_lower_numeric_LDADD = $(TVM_TEST_LIBS) -lm
check_PROGRAMS += tests/unit/lower/test_lower_oom
TESTS += tests/unit/lower/test_lower_oom
tests_unit_lower_test_lower_oom_SOURCES = \
	tests/unit/lower/test_lower_oom.c tests/unit/lower/lower_test.h
tests_unit_lower_test_lower_oom_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_lower_oom_LDADD = $(TVM_TEST_LIBS)
# (hostdev) host programs: built here from host functions, run by
# core/runtime/host_exec.c; the header is installed with the others
tvminclude_HEADERS += core/include/tvm/host_program.h
libtvm_la_SOURCES += core/lower/host_build.c
check_PROGRAMS += tests/unit/lower/test_host_device
TESTS += tests/unit/lower/test_host_device
tests_unit_lower_test_host_device_SOURCES = \
	tests/unit/lower/test_host_device.c tests/unit/lower/lower_test.h
tests_unit_lower_test_host_device_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_host_device_LDADD = $(TVM_TEST_LIBS)
# The accelerator example out of tree (installs into a temporary root:
# like tests/abi/test_sdk_example.sh it runs after every other test, and
# after that one, since both relink plugins in place).
TESTS += tests/plugins/mock_accel/test_sdk_example_accel.sh
EXTRA_DIST += tests/plugins/mock_accel/test_sdk_example_accel.sh
tests/plugins/mock_accel/test_sdk_example_accel.log: \
	$(filter-out tests/plugins/mock_accel/test_sdk_example_accel.log,$(TEST_LOGS))
# the host/device model on a thread target (vulkan; skipped without it)
check_PROGRAMS += tests/unit/lower/test_host_gpu
TESTS += tests/unit/lower/test_host_gpu
tests_unit_lower_test_host_gpu_SOURCES = \
	tests/unit/lower/test_host_gpu.c tests/unit/lower/lower_test.h
tests_unit_lower_test_host_gpu_CFLAGS = $(TVM_TEST_CF)
tests_unit_lower_test_host_gpu_LDADD = $(TVM_TEST_LIBS) -lm
