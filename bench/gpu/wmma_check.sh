#!/bin/bash
# bench/gpu/wmma_check.sh - the cuda plugin's tensor-core MatMul template
# (cuda.matmul_wmma) on a machine with an NVIDIA GPU: correctness against
# the CPU and latency.  Needs a built tree and python3 with numpy and onnx.
#
#   bench/gpu/wmma_check.sh [BUILD_DIR] [CUDA_TARGET]     (cuda-sm90)
#
# WMMA_CHECK_N sets the size of step 2 (4096; e.g. 256 to try the script
# itself with CUDA_TARGET=llvm-cpu on a machine without a GPU).
#
# For float16 and bfloat16 MatMul (ONNX graphs made here, opset 17):
#  1. 512^3 with fixed random inputs on CUDA_TARGET and on llvm-cpu; every
#     element must agree within 2 units in the last place of the 16-bit
#     result, plus a small absolute term for sums that cancel:
#       float16:  |gpu - cpu| <= 2^-9 |cpu| + 1e-3
#       bfloat16: |gpu - cpu| <= 2^-6 |cpu| + 1e-2
#     (both accumulate in float32 and round once; they differ only in the
#     order of the sums).  The bfloat16 graph takes float32 inputs and
#     casts them (numpy has no bfloat16 .npy): Cast -> MatMul -> Cast.
#  2. 4096^3 on CUDA_TARGET, tvmc run --repeat 20: the median latency and
#     the TFLOP/s it means (the bfloat16 figure includes its input casts
#     and output cast, each a separate kernel).
# Exit status 1 when a comparison fails or a step errs.  Takes well under
# 2 minutes on an H100/H200 (most of it the CPU's 512^3 runs and NVRTC).
set -u
B=$(cd "${1:-build}" && pwd) || exit 1
CT=${2:-cuda-sm90}
N=${WMMA_CHECK_N:-4096}
S=$(cd "$(dirname "$0")/../.." && pwd)
export TVM_PLUGIN_PATH=${TVM_PLUGIN_PATH:-$B/plugins/llvm-cpu/.libs:$B/plugins/cuda/.libs}
export TVM_NO_INSTALLED=1 TVM_TARGET_PATH=$S/targets
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
py() { env -u LD_LIBRARY_PATH python3 - "$@"; }
py "$tmp" "$N" <<'PY' || exit 1
import sys, numpy as np, onnx
from onnx import helper as h, TensorProto as T
d = sys.argv[1]
def save(name, n, dt):
    if dt == T.FLOAT16:
        nodes = [h.make_node("MatMul", ["A", "B"], ["C"])]
        io = T.FLOAT16
    else:  # float32 in and out, bfloat16 inside
        nodes = [h.make_node("Cast", ["A"], ["a"], to=dt),
                 h.make_node("Cast", ["B"], ["b"], to=dt),
                 h.make_node("MatMul", ["a", "b"], ["c"]),
                 h.make_node("Cast", ["c"], ["C"], to=T.FLOAT)]
        io = T.FLOAT
    g = h.make_graph(nodes, name,
                     [h.make_tensor_value_info("A", io, [n, n]),
                      h.make_tensor_value_info("B", io, [n, n])],
                     [h.make_tensor_value_info("C", io, [n, n])])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]),
              f"{d}/{name}.onnx")
for n in (512, int(sys.argv[2])):
    save(f"f16_{n}", n, T.FLOAT16)
    save(f"bf16_{n}", n, T.BFLOAT16)
r = np.random.default_rng(1)
for x in "AB":
    v = r.standard_normal((512, 512)).astype(np.float32)
    np.save(f"{d}/{x}_f16.npy", v.astype(np.float16))
    np.save(f"{d}/{x}_bf16.npy", v)
PY
fail=0
for dt in f16 bf16; do
  for t in llvm-cpu "$CT"; do
    timeout 120 "$B/tvmc" run "$tmp/${dt}_512.onnx" --target "$t" --repeat 1 \
      --input "A=$tmp/A_$dt.npy" --input "B=$tmp/B_$dt.npy" \
      --output-dir "$tmp/$dt.$t" > "$tmp/log" 2>&1 ||
      { echo "$dt 512^3 on $t failed:"; cat "$tmp/log"; exit 1; }
  done
  py "$tmp/$dt.llvm-cpu/C.npy" "$tmp/$dt.$CT/C.npy" "$dt" <<'PY' || fail=1
import sys, numpy as np
c = np.load(sys.argv[1]).astype(np.float64)
g = np.load(sys.argv[2]).astype(np.float64)
rel, ab = (2.0**-9, 1e-3) if sys.argv[3] == "f16" else (2.0**-6, 1e-2)
err = np.abs(g - c)
bad = err > rel * np.abs(c) + ab
print(f"{sys.argv[3]} 512^3 vs llvm-cpu: max |diff| {err.max():.3g} "
      f"(max |cpu| {np.abs(c).max():.3g}), {int(bad.sum())} of {c.size} "
      f"elements beyond {rel:g}|cpu| + {ab:g}: {'FAIL' if bad.any() else 'ok'}")
sys.exit(1 if bad.any() or not np.isfinite(g).all() else 0)
PY
  out=$(timeout 120 "$B/tvmc" run "$tmp/${dt}_$N.onnx" --target "$CT" \
        --repeat 20 2>&1) || { echo "$dt $N^3 failed:"; echo "$out"; exit 1; }
  echo "$out" | grep -E "^latency" | sed "s/^/$dt $N^3 on $CT: /"
  echo "$out" | awk -v dt="$dt" -v n="$N" '/^latency/ && $4 ~ /^ms/ {
    printf "%s %d^3: %.4g TFLOP/s at the median\n", dt, n, 2 * n^3 / ($3 * 1e-3) / 1e12 }'
done
exit $fail
