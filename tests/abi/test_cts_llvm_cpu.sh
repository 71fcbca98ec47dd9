#!/bin/sh
# tests/abi/test_cts_llvm_cpu.sh - the conformance tests pass for the
# llvm-cpu plugin of this build (skipped when it was not built).
set -u
b=${TVM_BUILDDIR:?run through make check}
[ -f "$b/plugins/llvm-cpu/.libs/tvm-llvm-cpu.so" ] ||
  { echo "llvm-cpu plugin not built"; exit 77; }
"$b/tvm-plugin-cts" llvm-cpu
