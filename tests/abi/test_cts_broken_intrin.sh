#!/bin/sh
# tests/abi/test_cts_broken_intrin.sh - tvm-plugin-cts catches a broken
# tensor-intrinsic path: the mock accelerator passes the intrinsic checks
# (declare, tensorize a GEMM, emitted body uses every operand, codegen),
# and the same mock built with -DMOCK_ACCEL_BROKEN_INTRIN (its emitter
# passes A where B belongs; tests/abi/broken/) fails them, and the CTS
# exits non-zero for it.  The mock has no device, so the run of the
# tensorized GEMM is a SKIP for both.
set -u
b=${TVM_BUILDDIR:?run through make check}
good=$b/tests/plugins/mock_accel/.libs
bad=$b/tests/abi/broken/.libs
for d in "$good" "$bad"; do
  ls "$d"/*.so >/dev/null 2>&1 || { echo "no plugin in $d"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'name: mock_accel\nplugin: mock_accel\n' >"$tmp/mock_accel.yaml"
# each run sees only one of the two builds (both are called mock_accel)
export TVM_TARGET_PATH="$tmp" TVM_NO_INSTALLED=1
line='tensorize through mock_gemm_4x4: the emitted body uses A, B and C'

echo "== the mock accelerator"
out=$(TVM_PLUGIN_PATH=$good "$b/tvm-plugin-cts" mock_accel)
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q "^ok [0-9]* - $line\$" ||
  { echo "the intact mock does not pass the intrinsic check"; exit 1; }
printf '%s\n' "$out" | grep -q "^ok [0-9]* - tensorize through mock_gemm_4x4: codegen\$" ||
  { echo "the intact mock's tensorized GEMM did not compile"; exit 1; }

echo "== the mock accelerator with a broken emitter"
out=$(TVM_PLUGIN_PATH=$bad "$b/tvm-plugin-cts" mock_accel)
rc=$?
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q "^not ok [0-9]* - $line: the tensorized body never uses B" ||
  { echo "the CTS did not catch the broken emitter"; exit 1; }
[ $rc -ne 0 ] || { echo "the CTS exited 0 for a broken plugin"; exit 1; }
exit 0
