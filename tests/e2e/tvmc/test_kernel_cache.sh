#!/bin/sh
# tests/e2e/tvmc/test_kernel_cache.sh - llvm-cpu's use of the SDK's
# compiled-code cache through `tvmc compile`: a second compile of a model
# takes every part from the cache and writes the same package byte for
# byte, and its summary says so; TVM_CACHE_DIR=off neither reads nor writes; damaged entries are
# misses, recompiled and rewritten, with the same package; another CPU
# target keys apart; TVM_LLVM_DUMP (which shows what LLVM sees) bypasses
# the cache.  The cuda plugin's NVRTC modules likewise, where it is built
# and NVRTC loads (no GPU needed).
set -u
b=${TVM_BUILDDIR:?run through make check}
tvmc="$b/tvmc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
die() { echo "FAIL: $*"; fail=1; }
TVM_CACHE_DIR="$tmp/cache"
TVM_LOG_LEVEL=3
export TVM_CACHE_DIR TVM_LOG_LEVEL
unset TVM_LLVM_DUMP
entries() { ls "$tmp/cache/llvm-cpu" 2>/dev/null | wc -l; }
hits() { sed -n 's/.*llvm-cpu: \([0-9]*\) of \([0-9]*\) part(s) .*/\1 \2/p' "$1" | awk '{h+=$1; n+=$2} END {print h+0, n+0}'; }
model=zoo:squeezenet

"$tvmc" compile $model --target llvm-cpu -o a.tvmpkg > a.log 2>&1 || die "first compile: $(cat a.log)"
n=$(entries)
[ "$n" -gt 1 ] || die "first compile wrote $n cache entries"
[ "$(hits a.log)" = "0 0" ] || die "first compile hit the empty cache: $(hits a.log)"

"$tvmc" compile $model --target llvm-cpu -o b.tvmpkg > b.log 2>&1 || die "second compile: $(cat b.log)"
set -- $(hits b.log)
[ "$1" -gt 0 ] && [ "$1" = "$2" ] || die "second compile: $1 of $2 parts from the cache"
[ "$1" = "$n" ] || die "second compile: $1 hits for $n entries"
cmp -s a.tvmpkg b.tvmpkg || die "the package from the cache differs"
[ "$(entries)" = "$n" ] || die "the second compile changed the entry count"
# tvmc's summary says it too
grep -q "^cache     0 of $n compiled objects reused" a.log || die "first compile's summary: $(grep '^cache' a.log)"
grep -q "^cache     $n of $n compiled objects reused" b.log || die "second compile's summary: $(grep '^cache' b.log)"

TVM_CACHE_DIR=off "$tvmc" compile $model --target llvm-cpu -o c.tvmpkg > c.log 2>&1 || die "compile with the cache off"
[ "$(hits c.log)" = "0 0" ] || die "TVM_CACHE_DIR=off still read the cache"
grep -q "^cache " c.log && die "a summary line with the cache off: $(grep '^cache' c.log)"
cmp -s a.tvmpkg c.tvmpkg || die "the package without the cache differs"

# damage every entry (a byte of the payload): all misses, rewritten
for f in "$tmp"/cache/llvm-cpu/*; do
  printf 'X' | dd of="$f" bs=1 seek=100 conv=notrunc 2>/dev/null
done
"$tvmc" compile $model --target llvm-cpu -o d.tvmpkg > d.log 2>&1 || die "compile over damaged entries: $(cat d.log)"
[ "$(hits d.log)" = "0 0" ] || die "a damaged entry was used: $(hits d.log)"
cmp -s a.tvmpkg d.tvmpkg || die "the package over damaged entries differs"
[ "$(entries)" = "$n" ] || die "damaged entries not rewritten: $(entries) of $n"
"$tvmc" compile $model --target llvm-cpu -o e.tvmpkg > e.log 2>&1 || die "compile after the rewrite"
set -- $(hits e.log)
[ "$1" = "$n" ] || die "after the rewrite: $1 of $n parts from the cache"

# another CPU: its own entries
"$tvmc" compile $model --target llvm-cpu-avx2 -o f.tvmpkg > f.log 2>&1 || die "compile for llvm-cpu-avx2: $(cat f.log)"
[ "$(hits f.log)" = "0 0" ] || die "llvm-cpu-avx2 read llvm-cpu's entries"
[ "$(entries)" -gt "$n" ] || die "llvm-cpu-avx2 wrote no entries"

# the IR dump shows what LLVM compiles: no cache
TVM_LLVM_DUMP="$tmp/dump" "$tvmc" compile $model --target llvm-cpu -o g.tvmpkg > g.log 2>&1 || die "compile with TVM_LLVM_DUMP"
[ "$(hits g.log)" = "0 0" ] || die "TVM_LLVM_DUMP compile read the cache"
ls "$tmp"/dump.* > /dev/null 2>&1 || die "TVM_LLVM_DUMP wrote nothing"
cmp -s a.tvmpkg g.tvmpkg || die "the package with TVM_LLVM_DUMP differs"

# cuda (NVRTC, no GPU needed) keeps its modules the same way, when built
if "$tvmc" compile zoo:mlp --target cuda-sm80 -o h.tvmpkg > h.log 2>&1; then
  grep -q "cuda: sm_80 module from the compiled-code cache" h.log && die "first cuda compile hit the cache"
  m=$(ls "$tmp/cache/cuda" 2>/dev/null | wc -l)
  [ "$m" -gt 0 ] || die "the cuda compile wrote no cache entry"
  "$tvmc" compile zoo:mlp --target cuda-sm80 -o i.tvmpkg > i.log 2>&1 || die "second cuda compile: $(cat i.log)"
  grep -q "cuda: sm_80 module from the compiled-code cache" i.log || die "second cuda compile missed the cache"
  cmp -s h.tvmpkg i.tvmpkg || die "the cuda package from the cache differs"
else
  echo "# cuda part skipped: $(tail -1 h.log)"
fi

[ $fail -eq 0 ] && echo "PASS: compiled-code cache ($n entries)"
exit $fail
