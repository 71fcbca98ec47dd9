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
out=$(TVM_ONNX_TARGET=opencl TVM_ONNX_MODE=compiled "$run" "$@")
rc=$?
printf '%s\n' "$out"
[ $rc -eq 77 ] && { echo "SKIP: no OpenCL device or no node test data"; exit 77; }
[ $rc -eq 0 ] || { echo "onnx node tests on opencl: failures (exit $rc)"; exit 1; }
passed=$(printf '%s\n' "$out" |
         sed -n 's/^onnx node tests.*: \([0-9]*\) passed.*/\1/p')
[ -n "$passed" ] || { echo "no summary line"; exit 1; }
[ "$passed" -ge $floor ] ||
  { echo "only $passed node tests passed on opencl (expected >= $floor)"; exit 1; }
exit 0
