# plugins/arm-mali: OpenCL C 1.2 kernels through the core's C-dialect
# emitter; the ICD loader is dlopen'd (only CL/cl.h at build time).
if BUILD_ARM_MALI
plugins_LTLIBRARIES += plugins/arm-mali/tvm-arm-mali.la
plugins_arm_mali_tvm_arm_mali_la_SOURCES = \
	plugins/arm-mali/mali.h \
	plugins/arm-mali/plugin.c \
	plugins/arm-mali/runtime.c \
	plugins/arm-mali/strategy_matmul.c \
	plugins/arm-mali/strategy_conv.c
plugins_arm_mali_tvm_arm_mali_la_LDFLAGS = $(TVM_PLUGIN_LINK)
plugins_arm_mali_tvm_arm_mali_la_LIBADD = $(TVM_LIBS) -ldl

if HAVE_CMOCKA
# Shared kernels lowered, compiled and (on an OpenCL device: PoCL in CI)
# run against naive references.
check_PROGRAMS += tests/plugins/arm_mali/test_arm_mali
TESTS += tests/plugins/arm_mali/test_arm_mali
tests_plugins_arm_mali_test_arm_mali_SOURCES = \
	tests/plugins/gpu/gpu_kernels.h \
	tests/plugins/gpu/gpu_kernels.c \
	tests/plugins/arm_mali/test_arm_mali.c
tests_plugins_arm_mali_test_arm_mali_CFLAGS = $(TVM_TEST_CF)
tests_plugins_arm_mali_test_arm_mali_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_arm_mali_test_arm_mali_DEPENDENCIES = \
	plugins/arm-mali/tvm-arm-mali.la
# The plugin's templates on one-node graphs (the one-node runner of
# tvm-backend-ops), checked against the operators' references.
check_PROGRAMS += tests/plugins/arm_mali/test_arm_mali_templates
TESTS += tests/plugins/arm_mali/test_arm_mali_templates
tests_plugins_arm_mali_test_arm_mali_templates_SOURCES = \
	plugin-sdk/tools/backend_ops.h \
	plugin-sdk/tools/backend_ops_cases.c \
	plugin-sdk/tools/backend_ops_run.c \
	tests/plugins/gpu/gpu_kernels.h \
	tests/plugins/gpu/gpu_kernels.c \
	tests/plugins/arm_mali/test_arm_mali_templates.c
tests_plugins_arm_mali_test_arm_mali_templates_CFLAGS = $(TVM_TEST_CF)
tests_plugins_arm_mali_test_arm_mali_templates_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_arm_mali_test_arm_mali_templates_DEPENDENCIES = \
	plugins/arm-mali/tvm-arm-mali.la
endif
endif

# Winograd F(2x2, 3x3) chosen by the plugin's alter_layout: graphs
# compiled for opencl against the original graphs' references.
if BUILD_ARM_MALI
if HAVE_CMOCKA
check_PROGRAMS += tests/plugins/arm_mali/test_arm_mali_winograd
TESTS += tests/plugins/arm_mali/test_arm_mali_winograd
tests_plugins_arm_mali_test_arm_mali_winograd_SOURCES = \
	tests/plugins/gpu/gpu_kernels.h \
	tests/plugins/gpu/gpu_kernels.c \
	tests/plugins/arm_mali/test_arm_mali_winograd.c
tests_plugins_arm_mali_test_arm_mali_winograd_CFLAGS = $(TVM_TEST_CF)
tests_plugins_arm_mali_test_arm_mali_winograd_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_arm_mali_test_arm_mali_winograd_DEPENDENCIES = \
	plugins/arm-mali/tvm-arm-mali.la
endif
endif

# Operators of the op library with a naive thread schedule, run on PoCL.
if BUILD_ARM_MALI
if HAVE_CMOCKA
check_PROGRAMS += tests/plugins/gpu/test_ops_opencl
TESTS += tests/plugins/gpu/test_ops_opencl
tests_plugins_gpu_test_ops_opencl_SOURCES = tests/plugins/gpu/test_ops_gpu.c
tests_plugins_gpu_test_ops_opencl_CFLAGS = $(TVM_TEST_CF) -DGPU_TARGET=\"opencl\"
tests_plugins_gpu_test_ops_opencl_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_gpu_test_ops_opencl_DEPENDENCIES = \
	plugins/arm-mali/tvm-arm-mali.la
endif
endif

# Zoo models compiled for opencl (PoCL in CI) give llvm-cpu's outputs:
# the simt zoo comparison built for this target (77 without a device),
# run by test_arm_mali_zoo.sh with the models that fit make check; and the
# ONNX node tests of the main operator families on opencl.
if BUILD_ARM_MALI
TESTS += tests/plugins/arm_mali/test_arm_mali_nodes.sh
if BUILD_LLVM_CPU
check_PROGRAMS += tests/plugins/arm_mali/test_arm_mali_zoo
TESTS += tests/plugins/arm_mali/test_arm_mali_zoo.sh
tests_plugins_arm_mali_test_arm_mali_zoo_SOURCES = \
	tests/plugins/simt/test_simt_zoo.c
tests_plugins_arm_mali_test_arm_mali_zoo_CPPFLAGS = $(AM_CPPFLAGS) \
	-DZOO_TARGET=\"opencl\" -DZOO_DEFAULTS='"squeezenet"'
tests_plugins_arm_mali_test_arm_mali_zoo_LDADD = $(TVM_LIBS) -lm
EXTRA_tests_plugins_arm_mali_test_arm_mali_zoo_DEPENDENCIES = \
	plugins/arm-mali/tvm-arm-mali.la plugins/llvm-cpu/tvm-llvm-cpu.la
endif
endif

EXTRA_DIST += plugins/arm-mali/README.md \
	tests/plugins/arm_mali/test_arm_mali_nodes.sh \
	tests/plugins/arm_mali/test_arm_mali_zoo.sh
