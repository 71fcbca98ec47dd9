#!/bin/sh
# tests/plugins/mock_accel/test_sdk_example_accel.sh - the SDK's
# accelerator example works out of tree:
#  1. `make install DESTDIR=...` of this build into a temporary root;
#  2. builds the installed plugin-sdk/example-accel (mock_accel) with that
#     root's pkg-config file and nothing else;
#  3. the installed tvmc lists the plugin (ABI 5) and its target file;
#  4. the end-to-end tests of tests/plugins/mock_accel run with only that
#     out-of-tree plugin on TVM_PLUGIN_PATH: a tensorized matmul lowered
#     with the plugin's strategy and pass, its host program run by the
#     runtime, its kernel on the plugin's simulated device, C checked;
#  5. heterogeneous execution (ABI 5 supports + `fallback: llvm-cpu`):
#     the installed tvmc compiles zoo:mlp and zoo:resnet18 for the
#     out-of-tree plugin, prints the placement (what the accelerator
#     declines goes to the installed llvm-cpu plugin), runs them from the
#     packages, and their outputs equal llvm-cpu's alone bit for bit.
set -u
b=${TVM_BUILDDIR:?run through make check}
command -v pkg-config >/dev/null 2>&1 || { echo "no pkg-config"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
dest=$tmp/root

echo "== make install DESTDIR=$dest"
make -C "$b" install DESTDIR="$dest" >"$tmp/install.log" 2>&1 || {
  tail -30 "$tmp/install.log"; echo "make install failed"; exit 1; }
pc=$(find "$dest" -name tvm-plugin-sdk.pc | head -1)
tvmc=$(find "$dest" -type f -name tvmc | head -1)
libdir=$(dirname "$(find "$dest" -name 'libtvm.so.0' | head -1)")
ex=$(dirname "$(find "$dest" -path '*plugin-sdk/example-accel/mock_accel.c' | head -1)")
[ -n "$pc" ] && [ -n "$tvmc" ] && [ -d "$libdir" ] ||
  { echo "tvm-plugin-sdk.pc, tvmc or libtvm.so.0 missing from the install"; exit 1; }
[ -f "$ex/Makefile" ] || { echo "the accelerator example was not installed"; exit 1; }
doc=$(find "$dest" -path '*plugin-sdk/HOST_DEVICE.md' | head -1)
[ -n "$doc" ] || { echo "HOST_DEVICE.md was not installed"; exit 1; }

echo "== building $ex with $pc"
mkdir -m 755 "$tmp/example" "$tmp/plugins"
cp "$ex/"* "$tmp/example/"
PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest \
  PKG_CONFIG_LIBDIR=$(dirname "$pc") \
  make -C "$tmp/example" || { echo "the example did not build"; exit 1; }
cp "$tmp/example/mock_accel.so" "$tmp/example/mock_accel.yaml" "$tmp/plugins/"
chmod 755 "$tmp/plugins/mock_accel.so"

# the installed llvm-cpu plugin and its target file: the example's
# fallback (the installed directories themselves are switched off: the
# prefix is a DESTDIR root)
cpu=$(find "$dest" -name 'tvm-llvm-cpu.so' | head -1)
cpuyaml=$(find "$dest" -name 'llvm-cpu.yaml' | head -1)
[ -n "$cpu" ] && [ -n "$cpuyaml" ] ||
  { echo "the llvm-cpu plugin or its target file was not installed"; exit 1; }
export TVM_PLUGIN_PATH="$tmp/plugins:$(dirname "$cpu")"
export TVM_TARGET_PATH="$tmp/plugins:$(dirname "$cpuyaml")"
export TVM_NO_INSTALLED=1

echo "== $tvmc targets"
list=$(LD_LIBRARY_PATH="$libdir" "$tvmc" targets) || { echo "tvmc targets failed"; exit 1; }
printf '%s\n' "$list"
printf '%s\n' "$list" | grep -q "mock_accel .*ABI 8  $tmp/plugins/mock_accel.so" ||
  { echo "tvmc does not list the plugin"; exit 1; }
printf '%s\n' "$list" | grep -A1 "$tmp/plugins/mock_accel.yaml" | grep -q "ok" ||
  { echo "the target file does not load"; exit 1; }

echo "== end to end with the out-of-tree plugin"
out=$("$b/tests/plugins/mock_accel/test_mock_accel" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "the end-to-end tests failed"; exit 1; }
for t in test_e2e_host_device test_e2e_tokens_matter test_e2e_package test_e2e_graph; do
  printf '%s\n' "$out" | grep -q "OK \] $t" || { echo "$t did not run"; exit 1; }
done

echo "== heterogeneous: zoo models on mock_accel with llvm-cpu as fallback"
for m in mlp resnet18; do
  c=$(cd "$tmp" && LD_LIBRARY_PATH="$libdir" "$tvmc" compile zoo:$m \
        --target mock_accel -o "$tmp/$m.tvmpkg" 2>&1) ||
    { printf '%s\n' "$c"; echo "compiling zoo:$m for mock_accel failed"; exit 1; }
  printf '%s\n' "$c" | grep -v '^place ' # the per-node lines are long
  printf '%s\n' "$c" | grep -q '^place .* -> llvm-cpu: ' ||
    { echo "zoo:$m: no node placed on the fallback"; exit 1; }
  printf '%s\n' "$c" | grep -q '^placement [0-9]* nodes on mock_accel' ||
    { echo "zoo:$m: no placement summary"; exit 1; }
  mkdir "$tmp/$m.het" "$tmp/$m.cpu"
  LD_LIBRARY_PATH="$libdir" "$tvmc" run "$tmp/$m.tvmpkg" --repeat 1 \
    --output-dir "$tmp/$m.het" || { echo "running zoo:$m on mock_accel failed"; exit 1; }
  LD_LIBRARY_PATH="$libdir" "$tvmc" run zoo:$m --target llvm-cpu --repeat 1 \
    --output-dir "$tmp/$m.cpu" >/dev/null || { echo "zoo:$m on llvm-cpu failed"; exit 1; }
  for f in "$tmp/$m.cpu"/*.npy; do
    cmp "$f" "$tmp/$m.het/$(basename "$f")" ||
      { echo "zoo:$m: $(basename "$f") differs from llvm-cpu's"; exit 1; }
  done
done
# resnet18's Flatten runs on the accelerator: the plan really spans both
printf '%s\n' "$c" | grep -q '^placement [1-9][0-9]* nodes on mock_accel' ||
  { echo "zoo:resnet18: nothing placed on mock_accel"; exit 1; }
exit 0
