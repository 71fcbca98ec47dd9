#!/bin/sh
# tests/plugins/simt/test_simt_backend_ops.sh - every operator case of
# tvm-backend-ops on the simt thread target: the core's generic thread
# schedules, serialized on the CPU, against the naive references.
set -u
b=${TVM_BUILDDIR:?run through make check}
s=${TVM_SRCDIR:?run through make check}
[ -x "$b/tvm-backend-ops" ] || { echo "tvm-backend-ops not built"; exit 77; }
[ -f "$b/tests/plugins/simt/.libs/tvm-simt.so" ] ||
  { echo "simt test plugin not built (no llvm-cpu)"; exit 77; }
out=$("$b/tvm-backend-ops" "$s/tests/plugins/simt/simt.yaml")
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "tvm-backend-ops on simt failed (exit $rc)"; exit 1; }
ran=$(printf '%s\n' "$out" | grep -c "^ok ")
skipped=$(printf '%s\n' "$out" | grep -c "^ok .*# SKIP")
echo "simt: $ran cases, $skipped skipped"
[ $((ran - skipped)) -ge 100 ] || { echo "too few cases ran on simt"; exit 1; }
exit 0
