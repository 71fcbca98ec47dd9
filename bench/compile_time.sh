#!/bin/sh
# bench/compile_time.sh - `tvmc compile` of a model's ONNX file, from the
# file to the written package, in the three situations a user meets:
#   cold   the compiled-code cache off (TVM_CACHE_DIR=off): every kernel
#          through LLVM (cold+log: the same with the tuning log);
#   tuned  the first compile with the log of a `tvmc tune` run made just
#          before on an empty cache of this run's own (the tuner built
#          every configuration it measured);
#   warm   the same compile again (every kernel compiled before).
# Each line is the wall time of the whole command (/usr/bin/time-free: the
# shell's clock around it) and tvmc's own "compile" line; the packages of
# the three are compared byte for byte.  Headed by the CPU.
#   usage: bench/compile_time.sh BUILD [MODEL] [TARGET] [TRIALS] [REPEAT]
#   e.g.   bench/compile_time.sh build zoo:resnet18 llvm-cpu 4 3
set -eu
b=$(cd "$1" && pwd) model=${2:-zoo:resnet18} target=${3:-llvm-cpu}
trials=${4:-4} repeat=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
export TVM_PLUGIN_PATH="$b/plugins/llvm-cpu/.libs" TVM_NO_INSTALLED=1 \
       TVM_TARGET_PATH="$here/../targets:$here/targets"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tvmc="$b/tvmc"
case "$model" in
  zoo:*) "$tvmc" export "$model" -o "$tmp/model.onnx" > /dev/null
         onnx="$tmp/model.onnx" ;;
  *) onnx=$model ;;
esac
grep -m1 'model name' /proc/cpuinfo | sed 's/^.*: /# cpu model: /'
"$b/bench/fma_peak" 2>/dev/null | head -1 || echo "# (build/bench/fma_peak not built: make -C $b bench/fma_peak)"
echo "# $model ($onnx) for $target; $(nproc) cores"
now() { date +%s.%N; }
one() { # label, package, then env assignments for tvmc
  label=$1 pkg=$2
  shift 2
  t0=$(now)
  line=$(env "$@" "$tvmc" compile "$onnx" --target "$target" -o "$pkg" $extra 2>&1 | grep '^compile')
  t1=$(now)
  printf '%-9s %6.2f s wall   %s\n' "$label" "$(awk "BEGIN { print $t1 - $t0 }")" "$line"
}
extra=
for i in $(seq 1 "$repeat"); do one cold "$tmp/cold.tvmpkg" TVM_CACHE_DIR=off; done
t0=$(now)
TVM_CACHE_DIR="$tmp/cache" "$tvmc" tune "$onnx" --target "$target" \
  --trials "$trials" --log "$tmp/tune.jsonl" --layout-trials 0 --seed 1 \
  > "$tmp/tune.txt" 2>&1
echo "# tvmc tune --trials $trials --layout-trials 0: $(awk "BEGIN { printf \"%.0f\", $(now) - $t0 }") s"
extra="--tuning-log $tmp/tune.jsonl"
one tuned "$tmp/tuned.tvmpkg" TVM_CACHE_DIR="$tmp/cache"
for i in $(seq 1 "$repeat"); do one warm "$tmp/warm.tvmpkg" TVM_CACHE_DIR="$tmp/cache"; done
one cold+log "$tmp/tuned_cold.tvmpkg" TVM_CACHE_DIR=off
cmp -s "$tmp/tuned.tvmpkg" "$tmp/warm.tvmpkg" && cmp -s "$tmp/tuned.tvmpkg" "$tmp/tuned_cold.tvmpkg" &&
  echo "# packages: the same bytes with and without the cache" ||
  echo "# packages: DIFFER with and without the cache"
