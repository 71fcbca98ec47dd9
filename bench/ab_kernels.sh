#!/bin/bash
# bench/ab_kernels.sh - bench/kernels from two build trees, alternated
# round by round so that the machine's noisy phases hit both.
#
#   bench/ab_kernels.sh OLD_BUILD NEW_BUILD ROUNDS [SECTION...]
#
# Every round runs OLD's `bench/kernels 1 5 8 SECTION...` then NEW's (one
# thread, 5 rounds x 8 runs inside, each tree with its own llvm-cpu
# plugin and targets) and prints their tables under "=== TREE round N".
# SECTION: conv dw gemm bmm (default: all).
set -u
old=$(cd "$1" && pwd) && new=$(cd "$2" && pwd) || exit 1
R=$3
shift 3
for r in $(seq 1 "$R"); do
  for tree in old new; do
    b=$old
    [ "$tree" = new ] && b=$new
    echo "=== $tree round $r $(date -u +%H:%M:%S)"
    TVM_PLUGIN_PATH=$b/plugins/llvm-cpu/.libs TVM_NO_INSTALLED=1 \
      TVM_TARGET_PATH=$b/../targets "$b/bench/kernels" 1 5 8 "$@"
  done
done
