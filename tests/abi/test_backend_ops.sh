#!/bin/sh
# tests/abi/test_backend_ops.sh - every operator on the backends of this
# build that can run graph operators: tvm-backend-ops over the CPU targets
# (llvm-cpu, llvm-cpu-1thread).  The thread targets (vulkan, opencl, cuda)
# compile and run hand-scheduled kernels in their own tests; they join
# this list once the core's generic thread-target schedules give every
# operator a kernel on them (today: "the module has no device function").
# Then
# once more on llvm-cpu with the model's layouts (Conv in NCHW through the
# core's generic schedule, the path the layout choice otherwise hides).
# The installed toyaccel example runs it in test_sdk_example.sh.  Fails
# when any case fails, or when the Conv cases did not run.
set -u
b=${TVM_BUILDDIR:?run through make check}
[ -f "$b/plugins/llvm-cpu/.libs/tvm-llvm-cpu.so" ] ||
  { echo "llvm-cpu plugin not built"; exit 77; }
for args in "llvm-cpu llvm-cpu-1thread" "--model-layouts llvm-cpu"; do
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
