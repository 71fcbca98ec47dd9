#!/bin/sh
# tests/plugins/cuda/test_cuda_models.sh - every ONNX node test and every
# zoo model, built for cuda-sm80 and cuda-sm90 (built, not run: CI has
# no GPU).  Building means the whole compile: the graph passes, the
# schedules, the CUDA C of every kernel, NVRTC compiling it to a cubin
# for that architecture, and the limits checked before and after (threads
# and shared memory per block; registers per block from ptxas -v).  CUDA
# C that NVRTC rejects, a kernel over a limit, or a zoo kernel that spills
# registers (ptxas -v) fails this test; a graph
# the plugin declines counts as unsupported, with its reason.  A floor on
# the built count keeps a run that declines everything from passing.
#
# Skips (77) without run_node_tests (it needs llvm-cpu) or tvmc, the cuda
# plugin, the test data, or NVRTC (run_node_tests exits 77 when the code
# generator is unavailable).  Under the sanitizers (TVM_SANITIZED) NVRTC
# is not instrumented and the compiler is slow: a subset of the node tests
# and two small models; the plain build runs them all.
set -u
b=${TVM_BUILDDIR:?run through make check}
prog="$b/tests/e2e/onnx/run_node_tests"
[ -x "$prog" ] || { echo "SKIP: run_node_tests not built (needs llvm-cpu)"; exit 77; }
[ -f "$b/plugins/cuda/.libs/tvm-cuda.so" ] ||
  { echo "SKIP: the cuda plugin is not built"; exit 77; }
. "${TVM_SRCDIR:?}/tests/e2e/onnx/node_tests_floor.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if [ -n "${TVM_SANITIZED:-}" ]; then
  set -- test_add test_relu test_softmax_axis_1 test_reduce_sum_default \
         test_matmul_2d test_conv_with_strides_padding test_and2d test_not_2d
  floor=8
  models="mlp squeezenet"
else
  set --
  floor=780
  models=$("$b/tvmc" compile --list-zoo) ||
    { echo "tvmc compile --list-zoo failed"; exit 1; }
fi
for arch in 80 90; do
  node_tests_floor "cuda-sm$arch" build $floor "$@"
  rc=$?
  [ $rc -eq 0 ] || exit $rc
  for m in $models; do
    log=$("$b/tvmc" compile "zoo:$m" --target "cuda-sm$arch" -o "$tmp/m.tvmpkg" 2>&1) ||
      { printf '%s\n' "$log"; echo "FAIL: zoo:$m for cuda-sm$arch"; exit 1; }
    # the templates' defaults keep their register blocks in registers
    case $log in
      *spills*) printf '%s\n' "$log" | grep spills
                echo "FAIL: zoo:$m for cuda-sm$arch spills registers"; exit 1 ;;
    esac
    echo "built zoo:$m for cuda-sm$arch: $(printf '%s\n' "$log" | grep '^kernels' | sed 's/^kernels *//')"
    # the cross-thread reductions of lstm_lm (softmax over its vocabulary)
    # end in warp shuffles: in the CUDA C and in the PTX
    if [ "$m" = lstm_lm ]; then
      grep -a -q '__shfl_xor_sync(0xffffffffu' "$tmp/m.tvmpkg" &&
        grep -a -q 'shfl.sync.bfly' "$tmp/m.tvmpkg" ||
        { echo "FAIL: zoo:lstm_lm for cuda-sm$arch has no warp shuffles"; exit 1; }
    fi
  done
done
exit 0
