#!/bin/sh
# tests/plugins/arm_mali/test_arm_mali_nodes.sh - the ONNX node tests of
# the convolution, pooling, gemm/matmul and elementwise families compiled
# for the opencl target (arm-mali plugin) and run on the OpenCL device
# (PoCL in CI): zero failures.  The whole suite takes minutes on PoCL (it
# compiles every kernel), so make check runs this bounded subset; under
# the sanitizers (TVM_SANITIZED) a smaller one, the driver not being
# instrumented.  The full figure is in bench/RESULTS.md (arm-mali).
# Skips (77) without libonnx-testdata or an OpenCL device.
set -u
b=${TVM_BUILDDIR:?run through make check}
run="$b/tests/e2e/onnx/run_node_tests"
[ -x "$run" ] || { echo "SKIP: $run not built (no ONNX support)"; exit 77; }
POCL_CACHE_DIR=$(mktemp -d)
export POCL_CACHE_DIR
trap 'rm -rf "$POCL_CACHE_DIR"' EXIT
if [ -n "${TVM_SANITIZED:-}" ]; then
  set -- test_basic_conv test_conv_with_strides_padding test_gemm_default \
    test_matmul_2d test_maxpool_2d_default test_relu test_add_bcast
else
  set -- conv gemm matmul maxpool_2d globalaveragepool test_relu test_add \
    test_mul
fi
TVM_ONNX_TARGET=opencl TVM_ONNX_MODE=compiled "$run" "$@"
rc=$?
[ $rc -eq 77 ] && echo "SKIP: no OpenCL device or no node test data"
exit $rc
