#!/bin/sh
# tests/fuzz/build.sh SRCDIR FUZZDIR - builds the libFuzzer targets in a
# tree of their own (FUZZDIR): the core library configured with clang and
# -fsanitize=fuzzer-no-link,address,undefined (static, no plugins), then
# each tests/fuzz/fuzz_*.c linked with -fsanitize=fuzzer,address,undefined
# through libtool.  The normal build's compiler and flags are untouched.
# Needs clang and libclang-rt-dev (.ci/install-deps).  `make fuzz` runs it.
set -eu
src=$(cd "${1:?usage: build.sh SRCDIR FUZZDIR}" && pwd)
out=${2:?usage: build.sh SRCDIR FUZZDIR}
CC=${FUZZ_CC:-}
if [ -z "$CC" ]; then
  for c in clang-14 clang clang-16; do
    command -v "$c" >/dev/null 2>&1 && { CC=$c; break; }
  done
fi
[ -n "$CC" ] || { echo "build.sh: no clang: apt-get install clang libclang-rt-dev" >&2; exit 1; }
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
mkdir -p "$out"
cd "$out"
if [ ! -f Makefile ]; then
  "$src/configure" -q CC="$CC" CFLAGS="-g -O1 -fsanitize=fuzzer-no-link $SAN" \
    --disable-shared --enable-static
fi
# the core: libtvm, and libtvm_runtime where the tree has the split
libs=libtvm.la
grep -q '^libtvm_runtime_la_SOURCES' Makefile && libs="libtvm.la libtvm_runtime.la"
make -s -j"${JOBS:-2}" $libs
for f in "$src"/tests/fuzz/fuzz_*.c; do
  name=$(basename "$f" .c)
  extra=
  # the package target also loads kernel objects with llvm-cpu's loader
  # and runs its shared-object checks
  [ "$name" = fuzz_package ] &&
    extra="$src/plugins/llvm-cpu/elf_check.c $src/plugins/llvm-cpu/elf_check_shared.c $src/plugins/llvm-cpu/elf_load.c"
  objs=
  for s in "$f" $extra; do
    o=$(basename "$s" .c).o
    "$CC" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer $SAN \
      -I"$src/core/include" -I"$src/plugin-sdk/include" -I"$src/plugins/llvm-cpu" \
      -c "$s" -o "$o"
    objs="$objs $o"
  done
  ./libtool --silent --tag=CC --mode=link "$CC" -fsanitize=fuzzer $SAN \
    -o "$name" $objs $libs -lm
  echo "built $out/$name"
done
