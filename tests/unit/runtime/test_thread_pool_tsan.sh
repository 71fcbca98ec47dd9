#!/bin/sh
# tests/unit/runtime/test_thread_pool_tsan.sh - the thread pool's
# lock-free job protocol (core/runtime/thread_pool.c) under
# ThreadSanitizer: the pool and test_thread_pool.c built alone with clang
# -fsanitize=thread (tsan_stubs.c stands in for the rest of the core), run
# three times; any data race report fails.  Skips (77) without clang, or
# where the TSan runtime cannot start on this kernel.
set -u
src=${TVM_SRCDIR:?}
bld=${TVM_BUILDDIR:?}
cc=""
for c in clang clang-16 clang-15 clang-14; do
  if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
done
if [ -z "$cc" ]; then echo "SKIP: no clang for -fsanitize=thread"; exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$cc" -D_GNU_SOURCE -fsanitize=thread -O1 -g \
    -I"$src/core/include" -I"$src/plugin-sdk/include" -I"$src/core" \
    -I"$src/core/runtime" -I"$bld" \
    "$src/core/runtime/thread_pool.c" "$src/tests/unit/runtime/test_thread_pool.c" \
    "$src/tests/unit/runtime/tsan_stubs.c" -lcmocka -lpthread \
    -o "$tmp/pool" >"$tmp/cc.log" 2>&1; then
  if grep -q "cannot find -lcmocka\|libclang_rt.tsan\|unable to find library" "$tmp/cc.log"; then
    echo "SKIP: $cc cannot link a ThreadSanitizer program here:"; cat "$tmp/cc.log"; exit 77
  fi
  echo "FAIL: building the pool under ThreadSanitizer:"; cat "$tmp/cc.log"; exit 1
fi
for i in 1 2 3; do
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$tmp/pool" >"$tmp/run.log" 2>&1
  rc=$?
  if grep -q "FATAL: ThreadSanitizer" "$tmp/run.log"; then
    echo "SKIP: the ThreadSanitizer runtime cannot start here:"
    grep "FATAL" "$tmp/run.log"; exit 77
  fi
  if [ $rc -ne 0 ]; then
    echo "FAIL: run $i exited $rc:"; cat "$tmp/run.log"; exit 1
  fi
done
echo "PASS: 3 runs of test_thread_pool under ThreadSanitizer, no race reported"
