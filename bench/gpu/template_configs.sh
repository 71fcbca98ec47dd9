#!/bin/bash
# bench/gpu/template_configs.sh - the cuda plugin's MatMul templates at
# chosen knob settings on an NVIDIA GPU, against cuBLAS (PyTorch) in the
# same run, headed by the GPU, its driver and clocks (nvidia-smi).  Needs
# a built tree, python3 with onnx (and torch for the peer).
#
#   bench/gpu/template_configs.sh [BUILD_DIR] [CUDA_TARGET]   (cuda-sm90)
#
# For each product (float32 4096^3 on cuda.matmul_shared_tiled, float16
# 4096^3 on cuda.matmul_wmma) and each configuration listed below it
# writes a one-record tuning log (the workload key read from tvmc's
# warning for an empty log), runs `tvmc run --tuning-log --repeat 30`
# and prints the median latency and TFLOP/s; then cuBLAS's median of 30
# CUDA-event-timed products (TF32 off).  A configuration the template
# rejects prints tvmc's reason.  CONFIGS_SGEMM / CONFIGS_WMMA replace the
# lists (one configuration per line: knob=index/choices ..., the index
# into the knob's choices and their number, plugins/cuda/strategy_*.c).
set -u
B=$(cd "${1:-build}" && pwd) || exit 1
CT=${2:-cuda-sm90}
S=$(cd "$(dirname "$0")/../.." && pwd)
export TVM_PLUGIN_PATH=${TVM_PLUGIN_PATH:-$B/plugins/llvm-cpu/.libs:$B/plugins/cuda/.libs}
export TVM_NO_INSTALLED=1 TVM_TARGET_PATH=$S/targets
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
py() { env -u LD_LIBRARY_PATH python3 - "$@"; }
command -v nvidia-smi > /dev/null &&
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem \
             --format=csv,noheader
# tile_block tile_thread tile_k vthreads fetch_vec double_buffer unroll_k:
# choices {16,32,64,128} {1,2,4,8} {4,8,16,32} {1,2} {1,4} {0,1} {0,1}
SGEMM=${CONFIGS_SGEMM:-"tile_block=3/4 tile_thread=3/4 tile_k=3/4 vthreads=1/2 fetch_vec=1/2 double_buffer=0/2 unroll_k=0/2
tile_block=3/4 tile_thread=3/4 tile_k=3/4 vthreads=1/2 fetch_vec=1/2 double_buffer=0/2 unroll_k=1/2
tile_block=3/4 tile_thread=3/4 tile_k=3/4 vthreads=1/2 fetch_vec=1/2 double_buffer=1/2 unroll_k=0/2
tile_block=3/4 tile_thread=3/4 tile_k=3/4 vthreads=1/2 fetch_vec=1/2 double_buffer=1/2 unroll_k=1/2
tile_block=3/4 tile_thread=3/4 tile_k=2/4 vthreads=1/2 fetch_vec=1/2 double_buffer=0/2 unroll_k=0/2
tile_block=3/4 tile_thread=3/4 tile_k=2/4 vthreads=1/2 fetch_vec=1/2 double_buffer=1/2 unroll_k=0/2
tile_block=3/4 tile_thread=3/4 tile_k=1/4 vthreads=1/2 fetch_vec=1/2 double_buffer=1/2 unroll_k=0/2
tile_block=3/4 tile_thread=3/4 tile_k=2/4 vthreads=0/2 fetch_vec=1/2 double_buffer=1/2 unroll_k=0/2
tile_block=2/4 tile_thread=2/4 tile_k=3/4 vthreads=1/2 fetch_vec=1/2 double_buffer=1/2 unroll_k=1/2
tile_block=2/4 tile_thread=3/4 tile_k=3/4 vthreads=1/2 fetch_vec=1/2 double_buffer=1/2 unroll_k=1/2"}
# tile_bm tile_bn warp_m warp_n tile_k pad_shared double_buffer:
# choices {16,32,64,128} x2 {16,32,64} x2 {16,32,64} {0,8} {0,1}
WMMA=${CONFIGS_WMMA:-"tile_bm=3/4 tile_bn=3/4 warp_m=2/3 warp_n=1/3 tile_k=1/3 pad_shared=1/2 double_buffer=0/2
tile_bm=3/4 tile_bn=3/4 warp_m=2/3 warp_n=1/3 tile_k=1/3 pad_shared=0/2 double_buffer=0/2
tile_bm=3/4 tile_bn=3/4 warp_m=2/3 warp_n=1/3 tile_k=1/3 pad_shared=1/2 double_buffer=1/2
tile_bm=3/4 tile_bn=3/4 warp_m=2/3 warp_n=1/3 tile_k=2/3 pad_shared=1/2 double_buffer=0/2
tile_bm=3/4 tile_bn=3/4 warp_m=2/3 warp_n=1/3 tile_k=2/3 pad_shared=1/2 double_buffer=1/2
tile_bm=3/4 tile_bn=3/4 warp_m=2/3 warp_n=2/3 tile_k=1/3 pad_shared=1/2 double_buffer=1/2
tile_bm=3/4 tile_bn=3/4 warp_m=1/3 warp_n=2/3 tile_k=1/3 pad_shared=1/2 double_buffer=1/2
tile_bm=2/4 tile_bn=3/4 warp_m=1/3 warp_n=2/3 tile_k=1/3 pad_shared=1/2 double_buffer=1/2"}
py "$tmp" <<'PY' || exit 1
import sys, onnx
from onnx import helper as h, TensorProto as T
d, n = sys.argv[1], 4096
for name, dt in (("f32", T.FLOAT), ("f16", T.FLOAT16)):
    g = h.make_graph([h.make_node("MatMul", ["A", "B"], ["C"])], name,
                     [h.make_tensor_value_info("A", dt, [n, n]),
                      h.make_tensor_value_info("B", dt, [n, n])],
                     [h.make_tensor_value_info("C", dt, [n, n])])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]),
              f"{d}/{name}.onnx")
PY
# configs MODEL TEMPLATE LIST
configs() {
  : > "$tmp/empty.log"
  local wl
  wl=$("$B/tvmc" compile "$tmp/$1.onnx" --target "$CT" -o "$tmp/x.tvmpkg" \
         --tuning-log "$tmp/empty.log" 2>&1 |
       sed -n "s/.*no record of workload \($2-[0-9a-f]*\).*/\1/p" | head -1)
  [ -n "$wl" ] || { echo "$1: no $2 workload"; return; }
  echo "$1 4096^3, $2 ($wl):"
  echo "$3" | while read -r line; do
    [ -n "$line" ] || continue
    cfg=$(echo "$line" | tr ' ' '\n' | tr '/' '=' |
          awk -F= '{ if (NR > 1) printf ","; printf "\"%s\":[%s,%s]", $1, $2, $3 }')
    printf '{"version":1,"workload":"%s","target":"%s","template":"%s","config":{%s},"costs":[1],"error":"ok"}\n' \
      "$wl" "$CT" "$2" "$cfg" > "$tmp/one.log"
    out=$(timeout 120 "$B/tvmc" run "$tmp/$1.onnx" --target "$CT" \
          --tuning-log "$tmp/one.log" --repeat 30 2>&1)
    lat=$(echo "$out" | awk '/^latency/ { print $3 }')
    if [ -n "$lat" ]; then
      echo "  $line: $lat ms = $(awk -v t="$lat" 'BEGIN { printf "%.1f", 2 * 4096^3 / (t * 1e-3) / 1e12 }') TFLOP/s"
    else
      echo "  $line: $(echo "$out" | grep -i -m1 -E 'error|reject|cannot|above')"
    fi
  done
}
configs f32 cuda.matmul_shared_tiled "$SGEMM"
[ -n "$WMMA" ] && configs f16 cuda.matmul_wmma "$WMMA"
py "$S/bench/gpu" <<'PY'
import sys
try:
    import torch
except ImportError:
    print("no torch: no cuBLAS figures"); raise SystemExit
torch.backends.cuda.matmul.allow_tf32 = False
sys.path.insert(0, sys.argv[1])
from cuda_timing import median_ms
bench = lambda f: median_ms(f, 30)
for dt in (torch.float32, torch.float16):
    a = torch.randn(4096, 4096, device="cuda", dtype=dt)
    b = torch.randn(4096, 4096, device="cuda", dtype=dt)
    ms = bench(lambda: a @ b)
    print(f"cuBLAS {dt} 4096^3: {ms:.3f} ms = {2 * 4096**3 / ms / 1e9:.1f} TFLOP/s")
PY
