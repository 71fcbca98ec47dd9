#!/bin/sh
# tests/plugins/arm_mali/test_arm_mali_nodes.sh - the ONNX conformance node
# tests compiled for the opencl target (arm-mali plugin) and run on the
# OpenCL device (PoCL in CI), compiled mode: the reference operators are
# checked by the llvm-cpu run of the same program.  A graph the plugin
# declines counts as unsupported; any wrong output or other failure fails
# this test.  The plain build runs them all (about 8 minutes of CPU on
# PoCL, which compiles every kernel); under the sanitizers
# (TVM_SANITIZED) a small subset, the driver not being instrumented.  A
# floor on the passed count keeps a run that declines everything from
# passing vacuously.  Skips (77) without libonnx-testdata or an OpenCL
# device.
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
  floor=7
else
  set --
  floor=700
fi
. "${TVM_SRCDIR:?}/tests/e2e/onnx/node_tests_floor.sh"
node_tests_floor opencl compiled $floor "$@"
rc=$?
[ $rc -eq 77 ] && echo "SKIP: no OpenCL device or no node test data"
exit $rc
