#!/bin/sh
# tests/abi/test_sdk_example.sh - the SDK works out of tree:
#  1. `make install DESTDIR=...` of this build into a temporary root;
#  2. builds the installed plugin-sdk/example (toyaccel) with that root's
#     pkg-config file
#     and nothing else (PKG_CONFIG_PATH + PKG_CONFIG_SYSROOT_DIR);
#  3. drops the plugin and its YAML into TVM_PLUGIN_PATH/TVM_TARGET_PATH and
#     runs the installed conformance tests (tvm-plugin-cts) through it, which
#     compile hand-built loop programs with its codegen and run them on its
#     interpreter against C references; and checks the installed tvmc
#     lists it.
set -u
b=${TVM_BUILDDIR:?run through make check}
s=${TVM_SRCDIR:?run through make check}
command -v pkg-config >/dev/null 2>&1 || { echo "no pkg-config"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
dest=$tmp/root

echo "== make install DESTDIR=$dest"
make -C "$b" install DESTDIR="$dest" >"$tmp/install.log" 2>&1 || {
  tail -30 "$tmp/install.log"; echo "make install failed"; exit 1; }

pc=$(find "$dest" -name tvm-plugin-sdk.pc | head -1)
[ -n "$pc" ] || { echo "tvm-plugin-sdk.pc was not installed"; exit 1; }
cts=$(find "$dest" -type f -name tvm-plugin-cts | head -1)
bops=$(find "$dest" -type f -name tvm-backend-ops | head -1)
tvmc=$(find "$dest" -type f -name tvmc | head -1)
libdir=$(dirname "$(find "$dest" -name 'libtvm.so.0' | head -1)")
[ -n "$cts" ] && [ -n "$bops" ] && [ -n "$tvmc" ] && [ -d "$libdir" ] ||
  { echo "tvm-plugin-cts, tvm-backend-ops, tvmc or libtvm.so.0 missing from the install"; exit 1; }

echo "== building the example with $pc"
mkdir -m 755 "$tmp/example" "$tmp/plugins"
# the example as installed (share/tvm/plugin-sdk/example)
ex=$(dirname "$(find "$dest" -path '*plugin-sdk/example/toyaccel.c' | head -1)")
[ -f "$ex/Makefile" ] || { echo "the SDK example was not installed"; exit 1; }
cp "$ex/"* "$tmp/example/"
PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest \
  PKG_CONFIG_LIBDIR=$(dirname "$pc") \
  make -C "$tmp/example" || { echo "the example did not build"; exit 1; }
cp "$tmp/example/toyaccel.so" "$tmp/plugins/"
cp "$tmp/example/toyaccel.yaml" "$tmp/plugins/"
chmod 755 "$tmp/plugins/toyaccel.so"

export TVM_PLUGIN_PATH="$tmp/plugins" TVM_TARGET_PATH="$tmp/plugins"
export TVM_NO_INSTALLED=1 LD_LIBRARY_PATH="$libdir"

echo "== $cts toyaccel"
out=$("$cts" toyaccel)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "conformance tests failed"; exit 1; }
printf '%s\n' "$out" | grep -q '^ok .* - run: cts_add matches the C reference$' ||
  { echo "the add kernel did not run"; exit 1; }

echo "== $bops toyaccel"
out=$("$bops" toyaccel)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "tvm-backend-ops failed on toyaccel"; exit 1; }
printf '%s\n' "$out" | grep -q '^ok [0-9]* - toyaccel Div \[3,4\] \[3,4\] i32$' ||
  { echo "the Div operator did not run on toyaccel"; exit 1; }

echo "== $tvmc targets"
list=$("$tvmc" targets) || { echo "tvmc targets failed"; exit 1; }
printf '%s\n' "$list"
printf '%s\n' "$list" | grep -q "toyaccel .*ABI 2  $tmp/plugins/toyaccel.so" ||
  { echo "tvmc does not list the plugin"; exit 1; }
exit 0
