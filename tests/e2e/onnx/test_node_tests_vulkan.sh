#!/bin/sh
# tests/e2e/onnx/test_node_tests_vulkan.sh - the ONNX conformance node
# tests compiled for the vulkan target (run_node_tests with
# TVM_ONNX_TARGET=vulkan, compiled mode: the reference operators are
# checked by the llvm-cpu run of the same program).  A graph the vulkan
# plugin declines counts as unsupported there; any wrong output or other
# failure fails this test.  Skips (77) when the program, the plugin, the
# test data or a Vulkan device is missing.
#
# Where lavapipe is installed, it is the driver (VK_DRIVER_FILES), so
# the run does not depend on which GPU the machine has.  Under the
# sanitizers (TVM_SANITIZED, set by make check there) the driver is not
# instrumented and compiles every kernel again: only a small subset runs
# (a few elementwise, reduction, softmax, matmul and conv tests); the
# plain build runs them all.  A floor on the passed count keeps a run
# that declines everything from passing vacuously.
set -u
b=${TVM_BUILDDIR:?run through make check}
prog="$b/tests/e2e/onnx/run_node_tests"
[ -x "$prog" ] || { echo "SKIP: run_node_tests not built (needs llvm-cpu)"; exit 77; }
[ -f "$b/plugins/vulkan/.libs/tvm-vulkan.so" ] ||
  { echo "SKIP: the vulkan plugin is not built"; exit 77; }
lvp=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -r "$lvp" ] && VK_DRIVER_FILES=$lvp &&
  export VK_DRIVER_FILES
MESA_SHADER_CACHE_DISABLE=true
export MESA_SHADER_CACHE_DISABLE
if [ -n "${TVM_SANITIZED:-}" ]; then
  set -- test_add test_relu test_softmax_axis_1 test_reduce_sum_default \
         test_matmul_2d test_conv_with_strides_padding test_cast_FLOAT_TO_
  floor=8
else
  set --
  floor=600
fi
. "${TVM_SRCDIR:?}/tests/e2e/onnx/node_tests_floor.sh"
node_tests_floor vulkan compiled $floor "$@"
