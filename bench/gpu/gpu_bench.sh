#!/bin/bash
# bench/gpu/gpu_bench.sh - GPU figures in one run, with PyTorch as the
# peer (cuBLAS for matrix products, cuDNN for the models, its own copy for
# bandwidth); needs a built tree, python3 with torch, torchvision and onnx.
#
#   bench/gpu/gpu_bench.sh [BUILD_DIR] [CUDA_TARGET]
#
# Prints: the GPU and its clocks; fp32 4096^3 MatMul as an ONNX graph
# (both operands inputs: the cuda plugin's MatMul template) and cuBLAS's
# (TF32 off); a fused elementwise chain (Mul, Add, Relu, Sigmoid over
# 2^26 floats: one kernel) on cuda and vulkan against the device's copy
# bandwidth; ResNet-18, MobileNetV2 and ResNet-50 (fp32, batch 1) on cuda
# and vulkan, and in PyTorch eager.  Every figure is a median (tvmc run
# --repeat 50, or 50 CUDA-event-timed runs after 5 warm-ups).
set -u
B=$(cd "${1:-build}" && pwd) || exit 1
CT=${2:-cuda-sm90}
S=$(cd "$(dirname "$0")/../.." && pwd)
export TVM_PLUGIN_PATH=${TVM_PLUGIN_PATH:-$B/plugins/llvm-cpu/.libs:$B/plugins/vulkan/.libs:$B/plugins/arm-mali/.libs:$B/plugins/cuda/.libs}
export TVM_NO_INSTALLED=1 TVM_TARGET_PATH=$S/targets
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
# the peers run without the tree's library path
py() { env -u LD_LIBRARY_PATH python3 - "$@"; }
py "$tmp" <<'PY' || exit 1
import sys, onnx
from onnx import helper as h, TensorProto as T
d = sys.argv[1]
def save(nodes, ins, outs, name):
    g = h.make_graph(nodes, name, ins, outs)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), f"{d}/{name}.onnx")
n = 4096
save([h.make_node("MatMul", ["A", "B"], ["C"])],
     [h.make_tensor_value_info("A", T.FLOAT, [n, n]), h.make_tensor_value_info("B", T.FLOAT, [n, n])],
     [h.make_tensor_value_info("C", T.FLOAT, [n, n])], "mm4096")
e = 1 << 26
save([h.make_node("Mul", ["X", "X"], ["a"]), h.make_node("Add", ["a", "X"], ["b"]),
      h.make_node("Relu", ["b"], ["c"]), h.make_node("Sigmoid", ["c"], ["Y"])],
     [h.make_tensor_value_info("X", T.FLOAT, [e])], [h.make_tensor_value_info("Y", T.FLOAT, [e])], "ew")
PY
run() { # run MODEL TARGET
  echo "-- $1 on $2"
  timeout 120 "$B/tvmc" run "$1" --target "$2" --repeat 50 2>&1 | grep -E "latency|rror"
}
run "$tmp/mm4096.onnx" "$CT"
for t in "$CT" vulkan; do run "$tmp/ew.onnx" "$t"; done
for m in resnet18 mobilenet_v2 resnet50; do
  for t in "$CT" vulkan; do run "zoo:$m" "$t"; done
done
py "$S/bench/gpu" <<'PY'
import sys, torch, torchvision
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
sys.path.insert(0, sys.argv[1])
from cuda_timing import median_ms
bench = lambda f: median_ms(f, 50)
a = torch.randn(4096, 4096, device="cuda"); b = torch.randn(4096, 4096, device="cuda")
ms = bench(lambda: a @ b)
print(f"cuBLAS fp32 matmul 4096^3: {ms:.3f} ms = {2 * 4096**3 / ms / 1e9:.1f} TFLOP/s")
x = torch.randn(1 << 26, device="cuda")
ms = bench(lambda: x.clone())
print(f"copy 2^26 floats: {ms:.3f} ms = {2 * 4 * (1 << 26) / ms / 1e6:.0f} GB/s read+write")
ms = bench(lambda: torch.sigmoid(torch.relu(x * x + x)))
print(f"torch eager elementwise chain: {ms:.3f} ms")
for name in ("resnet18", "mobilenet_v2", "resnet50"):
    m = getattr(torchvision.models, name)().cuda().eval()
    i = torch.randn(1, 3, 224, 224, device="cuda")
    with torch.no_grad():
        ms = bench(lambda: m(i))
    print(f"torch eager {name} fp32 batch 1: {ms:.3f} ms")
PY
