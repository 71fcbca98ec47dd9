# core/runtime (libtvm_runtime): plugin discovery and the host API,
# targets made from validated values, thread pools, devices, loaded
# modules, launches and timing; plans, packages, the graph executor and
# .npy I/O.  Data types (core/ir/dtype.c) are compiled in too: they are
# all of the IR the runtime uses.
libtvm_runtime_la_SOURCES += \
	core/ir/dtype.c \
	core/runtime/runtime_int.h \
	core/runtime/plugin_registry.c \
	core/runtime/host_api.c \
	core/runtime/target_create.c \
	core/runtime/thread_pool.c \
	core/runtime/device.c \
	core/runtime/plan.c \
	core/runtime/npy.c \
	core/runtime/package.c \
	core/runtime/package_check.c \
	core/runtime/package_int.h \
	core/runtime/package_sign.c \
	core/runtime/executor.c
# (hostdev) host programs: the host half of device kernels, run by the
# executor (plugin-sdk/docs/HOST_DEVICE.md)
libtvm_runtime_la_SOURCES += \
	core/runtime/host_program.c \
	core/runtime/host_exec.c
# package signatures: libsodium (optional, configure says so)
libtvm_runtime_la_LIBADD += $(SODIUM_LIBS)
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/runtime/test_npy
TESTS += tests/unit/runtime/test_npy
tests_unit_runtime_test_npy_SOURCES = tests/unit/runtime/test_npy.c
tests_unit_runtime_test_npy_CFLAGS = $(TVM_TEST_CF)
tests_unit_runtime_test_npy_LDADD = $(TVM_TEST_LIBS)
if BUILD_LLVM_CPU
# package and executor tests compile and run on llvm-cpu
check_PROGRAMS += tests/unit/runtime/test_package tests/unit/runtime/test_executor
TESTS += tests/unit/runtime/test_package tests/unit/runtime/test_executor
tests_unit_runtime_test_package_SOURCES = tests/unit/runtime/test_package.c \
	tests/unit/runtime/plan_fixture.h
tests_unit_runtime_test_package_CFLAGS = $(TVM_TEST_CF)
tests_unit_runtime_test_package_LDADD = $(TVM_TEST_LIBS)
EXTRA_tests_unit_runtime_test_package_DEPENDENCIES = \
	plugins/llvm-cpu/tvm-llvm-cpu.la
tests_unit_runtime_test_executor_SOURCES = tests/unit/runtime/test_executor.c \
	tests/unit/runtime/plan_fixture.h
tests_unit_runtime_test_executor_CFLAGS = $(TVM_TEST_CF)
tests_unit_runtime_test_executor_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_unit_runtime_test_executor_DEPENDENCIES = \
	plugins/llvm-cpu/tvm-llvm-cpu.la
# two devices with different num_threads, each on its own pool
check_PROGRAMS += tests/unit/runtime/test_device_pools
TESTS += tests/unit/runtime/test_device_pools
tests_unit_runtime_test_device_pools_SOURCES = \
	tests/unit/runtime/test_device_pools.c
tests_unit_runtime_test_device_pools_CFLAGS = $(TVM_TEST_CF)
tests_unit_runtime_test_device_pools_LDADD = $(TVM_TEST_LIBS) -lpthread
EXTRA_tests_unit_runtime_test_device_pools_DEPENDENCIES = \
	plugins/llvm-cpu/tvm-llvm-cpu.la
endif
endif
# tvmc compile / tvmc run end to end (a shell script; needs llvm-cpu)
if BUILD_LLVM_CPU
TESTS += tests/e2e/tvmc/test_tvmc_package.sh
endif
EXTRA_DIST += tests/e2e/tvmc/test_tvmc_package.sh
