# tests/e2e/onnx/node_tests_floor.sh - sourced by the scripts that run the
# ONNX node tests on a target other than llvm-cpu (vulkan, opencl, cuda).
#
# node_tests_floor TARGET MODE FLOOR [FILTER...] runs run_node_tests with
# TVM_ONNX_TARGET=TARGET and TVM_ONNX_MODE=MODE (compiled or build) on the
# tests selected by FILTER (all without), prints its output, and returns
# 77 when it skipped (no test data, no device, no code generator), 1 when
# a test failed or fewer than FLOOR passed (a floor keeps a run that
# declines everything from passing vacuously), else 0.
node_tests_floor() {
  nt_target=$1 nt_mode=$2 nt_floor=$3
  shift 3
  nt_out=$(TVM_ONNX_TARGET=$nt_target TVM_ONNX_MODE=$nt_mode \
           "${TVM_BUILDDIR:?}/tests/e2e/onnx/run_node_tests" "$@")
  nt_rc=$?
  printf '%s\n' "$nt_out"
  [ $nt_rc -eq 77 ] && return 77
  [ $nt_rc -eq 0 ] ||
    { echo "onnx node tests on $nt_target: failures (exit $nt_rc)"; return 1; }
  nt_passed=$(printf '%s\n' "$nt_out" |
              sed -n 's/^onnx node tests.*: \([0-9]*\) passed.*/\1/p')
  [ -n "$nt_passed" ] || { echo "no summary line"; return 1; }
  [ "$nt_passed" -ge "$nt_floor" ] || {
    echo "only $nt_passed node tests passed on $nt_target (expected >= $nt_floor)"
    return 1
  }
  return 0
}
