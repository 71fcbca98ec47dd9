#!/bin/sh
# tests/e2e/tune/test_tvmc_tune_gpu.sh - `tvmc tune` and `tvmc matmul` on
# device targets.  Tuning candidates, their reference and the matmul run
# as host programs launching device kernels (tvm_callable_build), as in a
# compiled graph: on the opencl
# target (the arm-mali plugin's templates and their knobs) on PoCL, and
# on vulkan (no templates: the core's generic thread schedule and its
# block_size knob) on lavapipe.  Each tune has no errors and writes ok
# records of the expected template; compiling with the log finds every
# workload; the tuned package computes what llvm-cpu computes.  A target
# whose device is missing is skipped; with neither, the test skips (77).
set -u
b=${TVM_BUILDDIR:?run through make check}
tvmc="$b/tvmc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
POCL_CACHE_DIR="$tmp/pocl"
export POCL_CACHE_DIR
lvp=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -r "$lvp" ] && VK_DRIVER_FILES=$lvp &&
  export VK_DRIVER_FILES
MESA_SHADER_CACHE_DISABLE=true
export MESA_SHADER_CACHE_DISABLE
fail=0
die() { echo "FAIL: $*"; fail=1; }
has() { printf '%s\n' "$1" | grep -F -q -- "$2" || die "missing '$2' in: $1"; }
# the line after a target's name in the targets part of `tvmc targets` is
# its status
status() {
  "$tvmc" targets 2>&1 |
    awk -v t="$1" '/^targets/ { on = 1 } on && $1 == t { getline; print; exit }'
}
# the first output values of `tvmc run --json`, one per line
first() {
  printf '%s\n' "$1" | sed -n 's/.*"first": \[\([^]]*\)\].*/\1/p' | tr ',' '\n'
}
# do two lists of values agree within 1e-5 (relative to 1)?
close() {
  printf '%s\n' "$1" > a.txt
  printf '%s\n' "$2" > b.txt
  [ -n "$1" ] && [ "$(wc -l < a.txt)" -eq "$(wc -l < b.txt)" ] &&
    paste a.txt b.txt | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-5) bad = 1 }
                             END { exit bad }'
}

want=$(first "$("$tvmc" run zoo:mlp --repeat 1 --json 2>&1)")
[ -n "$want" ] || die "no llvm-cpu reference"
ran=0
for t in opencl:arm-mali.dense vulkan:core.generic_thread; do
  target=${t%%:*} template=${t#*:}
  st=$(status "$target")
  case "$st" in
    *" ok"*) ;;
    *) echo "skip $target: ${st:-not listed}"; continue ;;
  esac
  ran=1
  out=$("$tvmc" matmul -n 64 --target "$target" --repeat 2 2>&1) ||
    die "matmul on $target: $out"
  has "$out" "over 1000 sampled entries (ok)"
  out=$("$tvmc" tune zoo:mlp --target "$target" --trials 2 --log "$target.jsonl" \
        --tuner random --seed 3 --confirm 0 2>&1) || die "tune $target: $out"
  printf '%s\n' "$out"
  has "$out" "errors: invalid 0 lower 0 build 0 run 0 crash 0 timeout 0 wrong 0"
  grep -q "\"template\":\"$template\"" "$target.jsonl" ||
    die "$target: no $template record: $(head -2 "$target.jsonl")"
  grep -q '"error":"ok"' "$target.jsonl" || die "$target: no ok record"
  out=$("$tvmc" compile zoo:mlp --target "$target" --tuning-log "$target.jsonl" \
        -o "$target.tvmpkg" 2>&1) || die "compile $target: $out"
  case "$out" in *"no record"*) die "$target: a tuned workload not found: $out";; esac
  got=$(first "$("$tvmc" run "$target.tvmpkg" --repeat 1 --json 2>&1)")
  close "$got" "$want" || die "$target: outputs '$got', llvm-cpu '$want'"
done
[ $ran = 1 ] || { echo "SKIP: neither an OpenCL nor a Vulkan device"; exit 77; }
exit $fail
