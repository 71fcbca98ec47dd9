#!/bin/sh
# tests/fuzz/test_regressions.sh - every input under tests/fuzz/crashes/
# that once crashed, hung or misread in tvmc must now be refused with a
# clean message and exit status 1 (never a signal, never a hang):
#   onnx/     models whose sizes overflowed or passed 32-bit indexing, or
#             whose subgraphs nest deep enough to overflow the stack
#             (the 4 MB one is made by gen_nested_onnx)
#   yaml/     deeply nested target files (seconds in libyaml before)
#   package/  packages with valid checksums and a damaged kernel object
#             (segfaults and "LLVM ERROR" aborts in LLVM's object loader,
#             which llvm-cpu no longer uses; overlapping sections,
#             writable code, and a module global or kernel symbol moved
#             off writable data or code, which segfaulted its own loader
#             at first: all refused now), and a shared-object kernel
#             given an init array (so-*: refused before dlopen)
# plus the memory limit (TVM_MAX_TENSOR_BYTES) naming the node and figure.
set -u
s=${TVM_SRCDIR:?run through make check}
b=${TVM_BUILDDIR:?run through make check}
tvmc="$b/tvmc"
c="$s/tests/fuzz/crashes"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
die() { echo "FAIL: $*"; fail=1; }

# expect_refusal WHAT EXPECTED-SUBSTRING CMD...: exit 1 within 20 s and
# the message on stderr.
expect_refusal() {
  what=$1 want=$2
  shift 2
  start=$(date +%s)
  err=$(timeout 20 "$@" 2>&1 >/dev/null)
  rc=$?
  took=$(( $(date +%s) - start ))
  echo "$what: rc=$rc ${took}s: $err" | cut -c1-300
  [ "$rc" -eq 1 ] || die "$what: exit status $rc (want 1)"
  printf '%s\n' "$err" | grep -F -q -- "$want" || die "$what: no '$want'"
  [ "$took" -le 5 ] || die "$what: took ${took}s"
}

expect_refusal expand "elements; the generated code indexes tensors with 32-bit" \
  "$tvmc" run "$c/onnx/expand-index-past-2p31.onnx" --repeat 1
expect_refusal expand-node "node 'y' (Expand)" \
  "$tvmc" compile "$c/onnx/expand-index-past-2p31.onnx" -o "$tmp/x.tvmpkg"
expect_refusal bigdim "input 'x' has 4294967300 elements" \
  "$tvmc" compile "$c/onnx/dim-2p32-plus-4.onnx" -o "$tmp/x.tvmpkg"
expect_refusal reshape "[1099511627776, 1099511627776] has more than 2^63 elements" \
  "$tvmc" compile "$c/onnx/reshape-2p40-squared.onnx" -o "$tmp/x.tvmpkg"
# subgraphs nested 300 000 deep (4 MB, generated): a stack overflow in
# protobuf-c's recursive unpacker before the nesting limit
"$b/tests/fuzz/gen_nested_onnx" 300000 "$tmp/nested.onnx" || die "gen_nested_onnx"
expect_refusal nested-4MB "messages nest more than 64 deep" \
  "$tvmc" compile "$tmp/nested.onnx" -o "$tmp/x.tvmpkg"
expect_refusal nested-90 "messages nest more than 64 deep" \
  "$tvmc" compile "$c/onnx/nested-subgraphs-90-deep.onnx" -o "$tmp/x.tvmpkg"
# the memory limit: 32 floats = 128 bytes is more than a 100-byte limit
TVM_MAX_TENSOR_BYTES=100 expect_refusal limit \
  "needs 128 bytes, more than the memory limit of 100 bytes" \
  "$tvmc" compile "$s/tests/fuzz/small-relu-add.onnx" -o "$tmp/x.tvmpkg"
TVM_MAX_TENSOR_BYTES=128 "$tvmc" compile "$s/tests/fuzz/small-relu-add.onnx" \
  -o "$tmp/x.tvmpkg" >/dev/null || die "128 bytes is within a 128-byte limit"

for y in "$c"/yaml/*.yaml; do
  expect_refusal "$(basename "$y")" "nest more than 32 deep" \
    "$tvmc" compile "$s/tests/fuzz/small-relu-add.onnx" --target "$y" \
    -o "$tmp/x.tvmpkg"
done

for p in "$c"/package/elf-*.tvmpkg; do
  expect_refusal "$(basename "$p")" "the kernel object is malformed" \
    "$tvmc" run "$p" --repeat 1
done
# the messages name the file and the section
expect_refusal elf-overlap-named \
  "elf-overlap.tvmpkg: executor for target 'llvm-cpu'" \
  "$tvmc" run "$c/package/elf-overlap.tvmpkg" --repeat 1
expect_refusal elf-overlap-section \
  "section 2 '.text' and section 5 '.data' overlap in the file" \
  "$tvmc" run "$c/package/elf-overlap.tvmpkg" --repeat 1
expect_refusal elf-writable-code "section 2 '.text' is both writable and executable" \
  "$tvmc" run "$c/package/elf-writable-code.tvmpkg" --repeat 1
# the intact package still runs
"$tvmc" run "$s/tests/fuzz/small-relu-add.tvmpkg" --repeat 1 >/dev/null ||
  die "the intact package does not run"
# a shared-object kernel given an init array (checksums refixed) is
# refused before dlopen, naming the file and the tag; the intact one runs
so_target="$s/tests/fuzz/llvm-cpu-shared.yaml"
expect_refusal so-init-array \
  "so-init-array.tvmpkg: executor for target 'llvm-cpu-shared'" \
  "$tvmc" run "$c/package/so-init-array.tvmpkg" --target "$so_target" --repeat 1
expect_refusal so-init-array-tag "dynamic tag DT_INIT_ARRAY with 8 bytes" \
  "$tvmc" run "$c/package/so-init-array.tvmpkg" --target "$so_target" --repeat 1
"$tvmc" run "$s/tests/fuzz/corpus/package/small-relu-add-shared.tvmpkg" \
  --target "$so_target" --repeat 1 >/dev/null ||
  die "the intact shared-object package does not run"

exit $fail
