#!/bin/sh
# tests/e2e/tvmc/test_tvmc_no_onnx.sh - run in builds configured without
# ONNX import (--disable-onnx, or its dependencies missing): tvmc compile
# of a .onnx file fails cleanly saying that ONNX import was not built and
# how to get it, while zoo models still compile.
set -u
b=${TVM_BUILDDIR:?run through make check}
tvmc="$b/tvmc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
die() { echo "FAIL: $*"; fail=1; }
has() { printf '%s\n' "$1" | grep -F -q -- "$2" || die "missing '$2' in: $1"; }

printf 'not really a model' > m.onnx
out=$("$tvmc" compile m.onnx -o m.tvmpkg 2>&1); rc=$?
printf '%s\n' "$out"
[ $rc -ne 0 ] && [ $rc -lt 128 ] || die "compile of an .onnx file: exit $rc"
has "$out" "ONNX import was not built"
has "$out" "--enable-onnx"
[ ! -e m.tvmpkg ] || die "a package was written"
exit $fail
