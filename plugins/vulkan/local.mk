# plugins/vulkan: SPIR-V written directly from loop IR, run through the
# Vulkan API (libvulkan.so.1 dlopen'd at run time, never linked).  Builds
# wherever vulkan/vulkan.h is (libvulkan-dev); runs wherever a Vulkan 1.1
# driver is (lavapipe from mesa-vulkan-drivers in CI).
if BUILD_VULKAN
plugins_LTLIBRARIES += plugins/vulkan/tvm-vulkan.la
plugins_vulkan_tvm_vulkan_la_SOURCES = \
	plugins/vulkan/vulkan_int.h \
	plugins/vulkan/spirv.h \
	plugins/vulkan/spirv.c \
	plugins/vulkan/codegen_int.h \
	plugins/vulkan/codegen_expr.c \
	plugins/vulkan/codegen.c \
	plugins/vulkan/codegen_subgroup.c \
	plugins/vulkan/blob.c \
	plugins/vulkan/runtime_int.h \
	plugins/vulkan/device.c \
	plugins/vulkan/runtime.c \
	plugins/vulkan/plugin.c
plugins_vulkan_tvm_vulkan_la_LDFLAGS = $(TVM_PLUGIN_LINK)
plugins_vulkan_tvm_vulkan_la_LIBADD = $(TVM_LIBS) -ldl
dist_targets_DATA += targets/vulkan.yaml
EXTRA_DIST += plugins/vulkan/README.md

if HAVE_CMOCKA
check_PROGRAMS += tests/plugins/vulkan/test_vulkan \
	tests/plugins/vulkan/test_vulkan_threads
TESTS += tests/plugins/vulkan/test_vulkan \
	tests/plugins/vulkan/test_vulkan_threads
tests_plugins_vulkan_test_vulkan_SOURCES = tests/plugins/vulkan/test_vulkan.c \
	tests/plugins/vulkan/vk_test.h tests/plugins/vulkan/vk_test.c
tests_plugins_vulkan_test_vulkan_CFLAGS = $(TVM_TEST_CF)
tests_plugins_vulkan_test_vulkan_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_vulkan_test_vulkan_DEPENDENCIES = \
	plugins/vulkan/tvm-vulkan.la
tests_plugins_vulkan_test_vulkan_threads_SOURCES = \
	tests/plugins/vulkan/test_vulkan_threads.c \
	tests/plugins/vulkan/vk_test.h tests/plugins/vulkan/vk_test.c
tests_plugins_vulkan_test_vulkan_threads_CFLAGS = $(TVM_TEST_CF)
tests_plugins_vulkan_test_vulkan_threads_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_vulkan_test_vulkan_threads_DEPENDENCIES = \
	plugins/vulkan/tvm-vulkan.la
endif
# the ONNX node tests and every zoo model compiled for vulkan (skip
# without llvm-cpu, which builds the programs they run, or a device)
TESTS += tests/e2e/onnx/test_node_tests_vulkan.sh \
	tests/plugins/vulkan/test_vulkan_zoo.sh
EXTRA_DIST += tests/e2e/onnx/test_node_tests_vulkan.sh \
	tests/plugins/vulkan/test_vulkan_zoo.sh
endif
