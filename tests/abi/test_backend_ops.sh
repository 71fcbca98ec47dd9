#!/bin/sh
# tests/abi/test_backend_ops.sh - every operator on every backend of this
# build: tvm-backend-ops over every target file of the test search path
# that loads and probes available, plus llvm-cpu once more with the
# model's layouts (Conv in NCHW through the core's generic schedule, the
# path the layout choice otherwise hides).  The installed toyaccel example
# runs it in test_sdk_example.sh.
#
# Gating: every case on the llvm-cpu targets must pass (and the Conv
# cases must have run).  Other targets that probe available here (vulkan
# on a machine with a Vulkan driver) run too and their failures are
# printed, but do not fail the test yet: the graph compiler does not hand
# them device kernels until the host/device model and the thread-target
# schedules of issue 6 land.  Add a target to GATING when it passes.
set -u
b=${TVM_BUILDDIR:?run through make check}
GATING="llvm-cpu llvm-cpu-1thread"
[ -f "$b/plugins/llvm-cpu/.libs/tvm-llvm-cpu.so" ] ||
  { echo "llvm-cpu plugin not built"; exit 77; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for args in "" "--model-layouts llvm-cpu"; do
  echo "== tvm-backend-ops $args"
  # shellcheck disable=SC2086
  "$b/tvm-backend-ops" $args >"$tmp"
  rc=$?
  cat "$tmp"
  for t in $GATING; do
    [ -n "$args" ] && [ "$t" != llvm-cpu ] && continue
    if grep -q "^not ok [0-9]* - $t " "$tmp"; then
      echo "tvm-backend-ops $args: failures on $t"; exit 1
    fi
    ran=$(grep "^ok [0-9]* - $t Conv " "$tmp" | grep -vc SKIP)
    [ "$ran" -ge 6 ] || { echo "$t: the Conv cases did not run"; exit 1; }
  done
  grep -q "^1\.\." "$tmp" || { echo "tvm-backend-ops $args died (exit $rc)"; exit 1; }
  # the non-gating targets: say how they fare
  for t in $(sed -n 's/^# target \([^ ]*\) (plugin.*/\1/p' "$tmp"); do
    case " $GATING " in *" $t "*) continue ;; esac
    nf=$(grep -c "^not ok [0-9]* - $t " "$tmp")
    np=$(grep "^ok [0-9]* - $t " "$tmp" | grep -vc SKIP)
    echo "NOTE: target $t (not gating yet): $np passed, $nf failed"
  done
done
exit 0
