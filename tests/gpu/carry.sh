#!/bin/bash
# tests/gpu/carry.sh - packs a built tree for a GPU machine that has the
# NVIDIA driver and CUDA's NVRTC but none of this project's build
# dependencies (the machine lent to this work runs another distribution).
#
#   tests/gpu/carry.sh pack [BUILD_DIR] [OUT_DIR]     (here; OUT_DIR: .gpu)
#   tests/gpu/carry.sh unpack [OUT_DIR]               (there, in the checkout)
#
# pack writes OUT_DIR/tree.tar.xz: the build folder without objects, the
# shared libraries its programs and plugins need that are not glibc's
# (libLLVM, libxgboost, libyaml, ... as this machine has them), and the
# ONNX node tests.  unpack extracts it into OUT_DIR/, links the checkout
# to the absolute path it was built at (libtool's wrappers and the tests
# name their build and source folders by absolute path), and prints the
# environment to source: LD_LIBRARY_PATH, TVM_ONNX_NODE_TESTS.
set -eu
cmd=${1:-}
case $cmd in
pack)
  B=$(cd "${2:-build}" && pwd)
  S=$(cd "$(dirname "$0")/../.." && pwd)
  O=${3:-$S/.gpu}
  mkdir -p "$O"
  st=$(mktemp -d)
  trap 'rm -rf "$st"' EXIT
  mkdir -p "$st/libs" "$st/build"
  # the unit, ABI and fuzz tests stay (the GPU suite does not run them),
  # and so do the CPU benchmarks' BLAS peers
  (cd "$B" && tar cf - --exclude='*.o' --exclude='*.lo' --exclude='*.a' \
     --exclude='.deps' --exclude='*.log' --exclude='*.trs' \
     --exclude=./tests/unit --exclude=./tests/abi --exclude=./tests/fuzz .) |
    (cd "$st/build" && tar xf -)
  # every non-glibc library an ELF file of the build needs, with theirs
  find "$st/build" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
    xargs -0 file | grep -E 'ELF .*(executable|shared object)' |
    cut -d: -f1 | xargs ldd 2>/dev/null | awk '/=> \// { print $3 }' |
    sort -u | grep -v -E '/(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' |
    grep -v -E '/lib(openblas|dnnl|gfortran|quadmath)' |
    grep -v "^$B" | while read -r l; do cp -L "$l" "$st/libs/"; done
  node=${TVM_ONNX_NODE_TESTS:-/usr/share/libonnx-testdata/data/node}
  [ -d "$node" ] && cp -r "$node" "$st/node"
  printf '%s\n%s\n' "$B" "$S" > "$st/paths"
  tar cf - -C "$st" . | xz -T0 -6 > "$O/tree.tar.xz"
  ls -la "$O/tree.tar.xz"
  ;;
unpack)
  O=$(cd "${2:-.gpu}" && pwd)
  xz -dc "$O/tree.tar.xz" | tar xf - -C "$O"
  B=$(sed -n 1p "$O/paths")
  S=$(sed -n 2p "$O/paths")
  here=$(cd "$(dirname "$0")/../.." && pwd)
  if [ "$S" = "$here" ] && [ -e "$B" ]; then
    echo "$0: $B exists (the build this was packed from?); not replaced" >&2
    exit 1
  fi
  if [ "$S" != "$here" ]; then
    mkdir -p "$(dirname "$S")"
    [ -e "$S" ] || ln -s "$here" "$S"
  fi
  rm -rf "$B"
  mv "$O/build" "$B"
  echo "export LD_LIBRARY_PATH=$O/libs:${LD_LIBRARY_PATH:-}"
  [ -d "$O/node" ] && echo "export TVM_ONNX_NODE_TESTS=$O/node"
  ;;
*)
  echo "usage: $0 pack [BUILD_DIR] [OUT_DIR] | unpack [OUT_DIR]" >&2
  exit 2
  ;;
esac
