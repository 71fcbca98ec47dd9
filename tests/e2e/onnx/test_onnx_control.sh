#!/bin/sh
# tests/e2e/onnx/test_onnx_control.sh - which ONNX control flow tvmc
# accepts (models from tests/e2e/onnx/control/make_models.py): an If on a
# shape compiles once --input-shape fixes the shape, taking either branch;
# an If on run-time data and a Loop are refused with messages that name
# the node and say what is accepted.  (Both branches' numbers are checked
# against torch by run_torch_fixtures: if_dyn_op17, if1_dyn_op17.)
set -u
s=${TVM_SRCDIR:?run through make check}
b=${TVM_BUILDDIR:?run through make check}
tvmc="$b/tvmc"
d="$s/tests/e2e/onnx/control"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
die() { echo "FAIL: $*"; fail=1; }
has() { printf '%s\n' "$1" | grep -F -q -- "$2" || die "missing '$2' in: $1"; }

for n in 2 1; do
  out=$("$tvmc" run "$d/if_shape.onnx" --input-shape "x=${n}x3" --repeat 1 \
    --json 2>&1) || die "if_shape batch $n: $out"
  has "$out" "\"shape\": [$n, 3]"
done
out=$("$tvmc" compile "$d/if_shape.onnx" -o "$tmp/x.tvmpkg" 2>&1) &&
  die "if_shape compiled with a symbolic batch"
has "$out" "--input-shape x="
out=$("$tvmc" compile "$d/if_runtime.onnx" -o "$tmp/x.tvmpkg" 2>&1) &&
  die "an If on run-time data compiled"
has "$out" "node 'if' (If): its condition 'cond' is computed at run time"
has "$out" "node 'sum' (ReduceSum), which was not folded"
out=$("$tvmc" compile "$d/loop.onnx" -o "$tmp/x.tvmpkg" 2>&1) &&
  die "a Loop compiled"
has "$out" "node 'loop' (Loop): loops are not supported"
exit $fail
