#!/bin/bash
# bench/ab_runs.sh - the latency of one zoo model from two build trees,
# alternated round by round so that the machine's noisy phases hit both.
#
#   bench/ab_runs.sh OLD_BUILD NEW_BUILD [MODEL] [ROUNDS] [TARGET]
#
# Each tree compiles MODEL (default mobilenet_v2) for TARGET (default
# llvm-cpu) into a package once, with its own plugins and targets; then
# every round runs OLD's package and NEW's (`tvmc run --repeat 100`) and
# prints "round tree median_ms".  Unlike compare_trees.py (bench/zoo,
# fused and unfused) this times exactly what a user's `tvmc run` does.
set -u
old=$(cd "$1" && pwd) && new=$(cd "$2" && pwd) || exit 1
m=${3:-mobilenet_v2} R=${4:-14} t=${5:-llvm-cpu}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
tvmc() { # tvmc TREE ARGS...
  local d=$1
  shift
  TVM_PLUGIN_PATH=$d/plugins/llvm-cpu/.libs TVM_NO_INSTALLED=1 \
    TVM_TARGET_PATH=$d/../targets "$d/tvmc" "$@"
}
for n in old new; do
  d=$old; [ $n = new ] && d=$new
  tvmc "$d" compile "zoo:$m" --target "$t" -o "$tmp/$n.tvmpkg" > /dev/null ||
    { echo "compile failed in $d"; exit 1; }
done
for r in $(seq "$R"); do
  for n in old new; do
    d=$old; [ $n = new ] && d=$new
    echo "$r $n $(tvmc "$d" run "$tmp/$n.tvmpkg" --repeat 100 |
                  awk '/^latency/ {print $3}')"
  done
done
