#!/bin/sh
# examples/run_package/test_run_package.sh - the runtime-only runner end
# to end: a package made by `tvmc compile` runs in a program that links
# libtvm_runtime alone, with the target made from the package (no target
# YAML in reach), gives the bytes `tvmc run` gives on the same inputs, and
# neither the program nor libtvm_runtime depends on libtvm, libyaml,
# libprotobuf-c or LLVM (ldd).
set -u
b=${TVM_BUILDDIR:?run through make check}
tvmc="$b/tvmc"
rp="$b/examples/run_package/run_package"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
die() { echo "FAIL: $*"; fail=1; }
has() { printf '%s\n' "$1" | grep -F -q -- "$2" || die "missing '$2' in: $1"; }

out=$("$tvmc" compile zoo:mlp --target llvm-cpu -o m.tvmpkg 2>&1) || die "compile: $out"
mkdir in o ref
# no target files anywhere: the package alone says what the target is
out=$(TVM_TARGET_PATH=/nonexistent "$rp" m.tvmpkg --save-inputs in -o o 2>&1) \
  || die "run_package: $out"
printf '%s\n' "$out"
has "$out" "target llvm-cpu (plugin llvm-cpu"
has "$out" "output prob float32 [1, 10]:"
[ -s o/prob.npy ] || die "no o/prob.npy"

# the same inputs through tvmc run (libtvm, target from its YAML)
set --
for f in in/*.npy; do
  n=$(basename "$f" .npy)
  set -- "$@" --input "$n=$f"
done
[ $# -gt 0 ] || die "no inputs saved"
out=$("$tvmc" run m.tvmpkg "$@" --output-dir ref --repeat 1 2>&1) || die "tvmc run: $out"
for f in ref/*.npy; do
  cmp "$f" "o/$(basename "$f")" || die "$(basename "$f") differs from tvmc run's"
done

# a missing plugin is a clear error, not a crash
out=$(TVM_PLUGIN_PATH=/nonexistent TVM_NO_INSTALLED=1 "$rp" m.tvmpkg 2>&1); rc=$?
[ $rc -eq 1 ] || die "missing plugin: exit $rc"
has "$out" "needs plugin 'llvm-cpu', which is not loaded"

# what the program and the runtime library link
check_deps() {
  printf '%s\n' "$2" | sed 's/^/  /'
  if printf '%s\n' "$2" | grep -E -q 'libyaml|libprotobuf-c|libLLVM|libtvm\.so'; then
    die "$1 depends on libtvm, libyaml, libprotobuf-c or LLVM"
  fi
}
deps=$("$b/libtool" --mode=execute ldd "$rp") || die "ldd run_package"
echo "ldd run_package:"
check_deps run_package "$deps"
has "$deps" "libtvm_runtime.so"
deps=$(ldd "$b/.libs/libtvm_runtime.so") || die "ldd libtvm_runtime.so"
echo "ldd libtvm_runtime.so:"
check_deps libtvm_runtime.so "$deps"
exit $fail
