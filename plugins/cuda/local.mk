# plugins/cuda: CUDA C through the core's C-dialect emitter, compiled with
# NVRTC and run through the driver API (both dlopen'd; only cuda.h and
# nvrtc.h at build time).
if BUILD_CUDA
plugins_LTLIBRARIES += plugins/cuda/tvm-cuda.la
plugins_cuda_tvm_cuda_la_SOURCES = \
	plugins/cuda/cuda_plugin.h \
	plugins/cuda/plugin.c \
	plugins/cuda/nvrtc.c \
	plugins/cuda/runtime.c \
	plugins/cuda/strategy_matmul.c \
	plugins/cuda/strategy_wmma.c \
	plugins/cuda/wmma_intrin.c
plugins_cuda_tvm_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS) \
	-DTVM_CUDA_HOME=\"$(CUDA_HOME)\"
plugins_cuda_tvm_cuda_la_LDFLAGS = $(TVM_PLUGIN_LINK)
plugins_cuda_tvm_cuda_la_LIBADD = libtvm_plugin_sdk.la $(TVM_LIBS) -ldl -lpthread

if HAVE_CMOCKA
# Shared kernels compiled with NVRTC for sm_80 and sm_90 and checked with
# ptxas -v; run only where a GPU and driver exist (skipped otherwise).
check_PROGRAMS += tests/plugins/cuda/test_cuda
TESTS += tests/plugins/cuda/test_cuda
tests_plugins_cuda_test_cuda_SOURCES = \
	tests/plugins/gpu/gpu_kernels.h \
	tests/plugins/gpu/gpu_kernels.c \
	tests/plugins/cuda/test_cuda.c \
	plugins/cuda/strategy_wmma.c \
	plugins/cuda/wmma_intrin.c
# the wmma template's sources are linked in to run its tiling without
# tensor cores (cuda_schedule_wmma_loops is not exported by the plugin)
tests_plugins_cuda_test_cuda_CFLAGS = $(TVM_TEST_CF) \
	-I$(srcdir)/plugins/cuda -DTVM_CUDA_HOME=\"$(CUDA_HOME)\"
tests_plugins_cuda_test_cuda_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_cuda_test_cuda_DEPENDENCIES = plugins/cuda/tvm-cuda.la
endif
# every ONNX node test and zoo model built (not run) for sm_80 and sm_90
TESTS += tests/plugins/cuda/test_cuda_models.sh
EXTRA_DIST += tests/plugins/cuda/test_cuda_models.sh
endif

# Operators of the op library with a naive thread schedule, compiled with
# NVRTC (and run where a GPU exists).
if BUILD_CUDA
if HAVE_CMOCKA
check_PROGRAMS += tests/plugins/gpu/test_ops_cuda
TESTS += tests/plugins/gpu/test_ops_cuda
tests_plugins_gpu_test_ops_cuda_SOURCES = tests/plugins/gpu/test_ops_gpu.c
tests_plugins_gpu_test_ops_cuda_CFLAGS = $(TVM_TEST_CF) -DGPU_TARGET=\"cuda-sm90\"
tests_plugins_gpu_test_ops_cuda_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_gpu_test_ops_cuda_DEPENDENCIES = plugins/cuda/tvm-cuda.la
endif
endif

EXTRA_DIST += plugins/cuda/README.md
