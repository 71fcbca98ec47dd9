#!/bin/sh
# tests/plugins/vdla/test_vdla_tvmc.sh - `tvmc compile zoo:resnet18
# --target vdla` prints the placement (the quantized convolutions on
# vdla, the first convolution and the classifier on llvm-cpu, the
# reasons), and `tvmc run` of the package prints the split of the run's
# time between vdla, llvm-cpu and the copies (text and --json).
set -u
b=${TVM_BUILDDIR:?run through make check}
if [ ! -e "$b/plugins/llvm-cpu/.libs/tvm-llvm-cpu.so" ]; then
  echo "SKIP: no llvm-cpu plugin (vdla's fallback)"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # what, pattern, text
  if ! printf '%s\n' "$3" | grep -E -q -- "$2"; then
    echo "MISSING ($1): $2"; fail=1
  fi
}
out=$("$b/tvmc" compile zoo:resnet18 --target vdla -o "$tmp/r.tvmpkg" 2>&1) || {
  printf '%s\n' "$out"; echo "tvmc compile failed"; exit 1; }
printf '%s\n' "$out" | grep -v '^place ' # the per-node lines are long
check placement '^placement 19 nodes on vdla \(19 launches\), [0-9]+ on llvm-cpu' "$out"
check qconv '^place +layer1\.0\.conv1\.qconv +QConv_blocked +-> vdla$' "$out"
check conv1 '^place +conv1[^ ]* +Conv[^ ]* +-> llvm-cpu: ' "$out"
check classifier '^place +logits +Gemm +-> llvm-cpu: Gemm: ' "$out"
out=$("$b/tvmc" run "$tmp/r.tvmpkg" --repeat 1 2>&1) || {
  printf '%s\n' "$out"; echo "tvmc run failed"; exit 1; }
printf '%s\n' "$out"
check split '^devices +vdla [0-9.e+]+ ms \([0-9.]+%\), llvm-cpu [0-9.e+]+ ms \([0-9.]+%\), copies [0-9.e+]+ ms' "$out"
out=$("$b/tvmc" run "$tmp/r.tvmpkg" --repeat 1 --json 2>&1) || {
  printf '%s\n' "$out"; echo "tvmc run --json failed"; exit 1; }
check json '"device_split": \[\{"device": "vdla", "ms": [0-9.e+]+' "$out"
check json-fallback '\{"device": "llvm-cpu", "ms"' "$out"
# SqueezeNet: 55x55 maps of one channel block, which two virtual threads
# cannot split evenly (its default is one thread there)
out=$("$b/tvmc" compile zoo:squeezenet --target vdla -o "$tmp/s.tvmpkg" 2>&1) || {
  printf '%s\n' "$out" | grep -v '^place '; echo "tvmc compile squeezenet failed"; exit 1; }
check squeeze '^place +fire2\.squeeze\.qconv +QConv_blocked +-> vdla$' "$out"
out=$("$b/tvmc" run "$tmp/s.tvmpkg" --repeat 1 2>&1) || {
  printf '%s\n' "$out"; echo "tvmc run squeezenet failed"; exit 1; }
check squeeze-split '^devices +vdla [0-9.e+]+ ms' "$out"
# a plan on one device has no split
out=$("$b/tvmc" run zoo:mlp --repeat 1 2>&1) || {
  printf '%s\n' "$out"; echo "tvmc run zoo:mlp failed"; exit 1; }
if printf '%s\n' "$out" | grep -q '^devices'; then
  echo "a one-device plan printed a device split"; fail=1
fi
exit $fail
