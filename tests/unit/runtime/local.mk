# tests/unit/runtime: the thread pool, and devices/modules/timing through
# the test plugins of tests/abi.
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/runtime/test_thread_pool tests/unit/runtime/test_device
TESTS += tests/unit/runtime/test_thread_pool tests/unit/runtime/test_device
tests_unit_runtime_test_thread_pool_SOURCES = tests/unit/runtime/test_thread_pool.c
tests_unit_runtime_test_thread_pool_CFLAGS = $(TVM_TEST_CF)
tests_unit_runtime_test_thread_pool_LDADD = $(TVM_TEST_LIBS)
tests_unit_runtime_test_device_SOURCES = tests/unit/runtime/test_device.c
tests_unit_runtime_test_device_CFLAGS = $(TVM_TEST_CF)
tests_unit_runtime_test_device_LDADD = $(TVM_TEST_LIBS)
endif
# the pool's job protocol under ThreadSanitizer (built by the script)
TESTS += tests/unit/runtime/test_thread_pool_tsan.sh
EXTRA_DIST += tests/unit/runtime/test_thread_pool_tsan.sh tests/unit/runtime/tsan_stubs.c
