#!/bin/sh
# tests/abi/test_backend_ops.sh - every operator on every backend of this
# build that probes available here: tvm-backend-ops over every target file
# of the test search path (llvm-cpu and its variants; vulkan on lavapipe
# and opencl on PoCL when their drivers are installed; cuda and the Mali
# targets report "not run" with the probe's reason where there is no such
# device), then once more on llvm-cpu with the model's layouts (Conv in
# NCHW through the core's generic schedule, the path the layout choice
# otherwise hides).  The installed toyaccel example runs it in
# test_sdk_example.sh, simt (thread kernels serialized on the CPU) in
# tests/plugins/simt.  Fails when any case fails, or when the Conv cases
# did not run.
set -u
b=${TVM_BUILDDIR:?run through make check}
[ -f "$b/plugins/llvm-cpu/.libs/tvm-llvm-cpu.so" ] ||
  { echo "llvm-cpu plugin not built"; exit 77; }
# the CPU drivers only, and no shader/kernel caches outside the test
lvp=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -r "$lvp" ] && VK_DRIVER_FILES=$lvp &&
  export VK_DRIVER_FILES
MESA_SHADER_CACHE_DISABLE=true
POCL_CACHE_DIR=$(mktemp -d)
export MESA_SHADER_CACHE_DISABLE POCL_CACHE_DIR
trap 'rm -rf "$POCL_CACHE_DIR"' EXIT
# Under the sanitizers (TVM_SANITIZED, set by make check there) only the
# CPU targets: the GPU drivers are not instrumented, the plain build runs
# them, and their kernels' compilation is what would take the time.
all=""
[ -n "${TVM_SANITIZED:-}" ] && all="llvm-cpu llvm-cpu-1thread"
for args in "$all" "--model-layouts llvm-cpu"; do
  echo "== tvm-backend-ops $args"
  # shellcheck disable=SC2086
  out=$("$b/tvm-backend-ops" $args)
  rc=$?
  printf '%s\n' "$out"
  [ $rc -eq 0 ] || { echo "tvm-backend-ops $args failed (exit $rc)"; exit 1; }
  ran=$(printf '%s\n' "$out" | grep "^ok [0-9]* - llvm-cpu Conv " |
        grep -vc SKIP)
  [ "$ran" -ge 6 ] || { echo "llvm-cpu: the Conv cases did not run"; exit 1; }
done
exit 0
