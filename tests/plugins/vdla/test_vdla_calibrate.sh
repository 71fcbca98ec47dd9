#!/bin/sh
# tests/plugins/vdla/test_vdla_calibrate.sh - `tvmc compile zoo:resnet18
# --target vdla --calibrate data=x.npy` calibrates the int8 scales on
# the file's samples (two stacked on the first axis): the package differs
# from the one calibrated on the synthetic samples and runs.  The
# refusals name the file and the fix: a missing file, a file that is no
# .npy, a shape the input does not take, an input the model lacks, a
# malformed option, a target that does not quantize, a package to `tvmc
# run` (calibrated already), and `tvmc run`'s own compile path.
set -u
b=${TVM_BUILDDIR:?run through make check}
if [ ! -e "$b/plugins/llvm-cpu/.libs/tvm-llvm-cpu.so" ]; then
  echo "SKIP: no llvm-cpu plugin (vdla's fallback)"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # what, pattern (fixed string), text
  if ! printf '%s\n' "$3" | grep -F -q -- "$2"; then
    echo "MISSING ($1): $2"; fail=1
  fi
}
# A float32 .npy of shape $2 ("2, 3, 224, 224") with $3 bytes of data:
# every byte one of 0x3f 0x40 0xbf 0xc0 (from seq's digits, so the same
# every run), i.e. values of magnitude in [0.5, 8) and both signs, several
# times larger than the synthetic samples' [-1, 1).
npy_f32() {
  h="{'descr': '<f4', 'fortran_order': False, 'shape': ($2), }"
  pad=$(( (64 - (10 + ${#h} + 1) % 64) % 64 ))
  l=$(( ${#h} + pad + 1 ))
  { printf '\223NUMPY\001\000'
    printf "\\$(printf %03o $((l % 256)))\\$(printf %03o $((l / 256)))"
    printf '%s%*s\n' "$h" $pad ''
    seq 1 400000 | head -c "$3" |
      tr '0-9\n' '\077\100\277\300\077\100\277\300\077\277\100'
  } > "$1"
}
npy_f32 "$tmp/x.npy" "2, 3, 224, 224" $((2 * 3 * 224 * 224 * 4))
npy_f32 "$tmp/chw.npy" "3, 224, 224" $((3 * 224 * 224 * 4))
echo "not numpy" > "$tmp/bad.npy"

out=$("$b/tvmc" compile zoo:resnet18 --target vdla --calibrate "data=$tmp/x.npy" \
      -o "$tmp/cal.tvmpkg" 2>&1) || {
  printf '%s\n' "$out"; echo "tvmc compile --calibrate failed"; exit 1; }
printf '%s\n' "$out" | grep -v '^place '
check samples 'calibrate 2 samples from 1 file (--calibrate)' "$out"
check placement 'placement 19 nodes on vdla' "$out"
out=$("$b/tvmc" compile zoo:resnet18 --target vdla -o "$tmp/syn.tvmpkg" 2>&1) || {
  printf '%s\n' "$out"; echo "tvmc compile failed"; exit 1; }
if cmp -s "$tmp/cal.tvmpkg" "$tmp/syn.tvmpkg"; then
  echo "the package calibrated on x.npy equals the synthetic one"; fail=1
fi
out=$("$b/tvmc" run "$tmp/cal.tvmpkg" --repeat 1 2>&1) || {
  printf '%s\n' "$out"; echo "tvmc run of the calibrated package failed"; exit 1; }
printf '%s\n' "$out"
check run 'output    logits: [1, 1000] float32' "$out"

refused() { # what, expected exit status, pattern, command...
  what=$1 want=$2 pat=$3; shift 3
  out=$("$@" 2>&1); rc=$?
  printf '%s\n' "$out"
  if [ $rc -ne "$want" ]; then echo "$what: exit $rc, not $want"; fail=1; fi
  check "$what" "$pat" "$out"
}
refused missing 1 "--calibrate data=$tmp/none.npy: cannot open .npy file" \
  "$b/tvmc" compile zoo:resnet18 --target vdla --calibrate "data=$tmp/none.npy" \
  -o "$tmp/e.tvmpkg"
refused not-npy 1 "--calibrate data=$tmp/bad.npy: $tmp/bad.npy: not a .npy file" \
  "$b/tvmc" compile zoo:resnet18 --target vdla --calibrate "data=$tmp/bad.npy" \
  -o "$tmp/e.tvmpkg"
refused shape 1 "holds float32[3, 224, 224], but input 'data' is float32[1, 3, 224, 224]: give a file of that dtype whose first dimension is k times 1" \
  "$b/tvmc" compile zoo:resnet18 --target vdla --calibrate "data=$tmp/chw.npy" \
  -o "$tmp/e.tvmpkg"
refused name 1 "the model has no input 'img'; its inputs: data" \
  "$b/tvmc" compile zoo:resnet18 --target vdla --calibrate "img=$tmp/x.npy" \
  -o "$tmp/e.tvmpkg"
refused malformed 2 "--calibrate wants NAME=FILE.npy" \
  "$b/tvmc" compile zoo:resnet18 --target vdla --calibrate "$tmp/x.npy" \
  -o "$tmp/e.tvmpkg"
refused no-effect 1 "--calibrate has no effect on target 'llvm-cpu': it does not quantize the graph" \
  "$b/tvmc" compile zoo:mlp --target llvm-cpu --calibrate "x=$tmp/x.npy" \
  -o "$tmp/e.tvmpkg"
if [ -e "$tmp/e.tvmpkg" ]; then echo "a refused compile wrote a package"; fail=1; fi
refused run-package 1 "--calibrate applies when compiling a model; $tmp/cal.tvmpkg is a package" \
  "$b/tvmc" run "$tmp/cal.tvmpkg" --calibrate "data=$tmp/x.npy"
refused run-shape 1 "tvmc run: --calibrate data=$tmp/chw.npy: $tmp/chw.npy holds float32[3, 224, 224]" \
  "$b/tvmc" run zoo:resnet18 --target vdla --calibrate "data=$tmp/chw.npy"
exit $fail
