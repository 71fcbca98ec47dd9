#!/bin/bash
# tests/gpu/device_run.sh - a lent GPU machine's visit in one command: the
# GPU figures first (nothing else running), then the device suite in the
# time left.  For a machine with the NVIDIA driver and Python's torch but
# none of this project's build dependencies (the one lent to this work):
#
#   tests/gpu/carry.sh pack build .gpu          # here, from a built tree
#   bash tests/gpu/device_run.sh [SECONDS] [CUDA_TARGET]   # there
#
# SECONDS (default 480) bounds the whole visit; CUDA_TARGET defaults to
# cuda-sm90.  In order, each under a time limit:
#   1. unpack .gpu (tests/gpu/carry.sh), the GPU and torch's versions;
#   2. tests/plugins/cuda/test_cuda (its GPU runs: every SGEMM and wmma
#      configuration it lists, against exact references);
#   3. bench/gpu/template_configs.sh and bench/gpu/wmma_check.sh (the
#      MatMul templates against cuBLAS, the tensor cores against the CPU);
#   4. bench/gpu/gpu_bench.sh when torchvision is there (models against
#      PyTorch eager, the elementwise chain against the copy bandwidth);
#   5. tests/gpu/run_gpu_suite.sh CUDA_TARGET with what is left (at least
#      60 s), its logs under $OUT/suite when $OUT is set.
# Each step's output goes to $OUT (or /tmp/device-run) and to stdout; the
# last lines say how long each step took.
set -u
cd "$(dirname "$0")/../.." || exit 1
T0=$(date +%s)
BUDGET=${1:-480}
CT=${2:-cuda-sm90}
O=${OUT:-/tmp/device-run}
mkdir -p "$O"
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
# step NAME LIMIT COMMAND...: runs one step into $O/NAME.log
step() {
  local n=$1 lim=$2
  shift 2
  [ "$(left)" -gt 20 ] || { el "$n: no time left"; return; }
  [ "$lim" -gt "$(left)" ] && lim=$(left)
  timeout "$lim" "$@" > "$O/$n.log" 2>&1
  local rc=$?
  cat "$O/$n.log"
  el "$n exit $rc"
}
if [ -d build/.libs ]; then
  # unpacked on an earlier call (a build folder survives between calls,
  # the carried .gpu is fresh), or a machine that built the tree itself
  [ -d .gpu/libs ] || [ ! -f .gpu/tree.tar.xz ] ||
    xz -dc .gpu/tree.tar.xz | tar xf - -C .gpu ./libs ./node 2> /dev/null
  [ -d .gpu/libs ] && export LD_LIBRARY_PATH=$PWD/.gpu/libs:${LD_LIBRARY_PATH:-}
  [ -d .gpu/node ] && export TVM_ONNX_NODE_TESTS=$PWD/.gpu/node
else
  env=$(tests/gpu/carry.sh unpack .gpu) || { echo "unpack failed"; exit 1; }
  eval "$env"
fi
el ready
command -v nvidia-smi > /dev/null &&
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm \
             --format=csv,noheader
env -u LD_LIBRARY_PATH python3 -c \
  'import torch; print("torch", torch.__version__, "cuDNN", torch.backends.cudnn.version())' 2>&1 | tail -1
B=$PWD/build
export TVM_NO_INSTALLED=1 TVM_TARGET_PATH=$PWD/targets TVM_SRCDIR=$PWD \
       TVM_BUILDDIR=$B CMOCKA_MESSAGE_OUTPUT=stdout
export TVM_PLUGIN_PATH=$B/plugins/llvm-cpu/.libs:$B/plugins/vulkan/.libs:$B/plugins/arm-mali/.libs:$B/plugins/cuda/.libs
step test_cuda 90 "$B/tests/plugins/cuda/test_cuda"
step templates 150 bench/gpu/template_configs.sh build "$CT"
step wmma 90 bench/gpu/wmma_check.sh build "$CT"
if env -u LD_LIBRARY_PATH python3 -c 'import torchvision' 2> /dev/null; then
  step gpu_bench 150 bench/gpu/gpu_bench.sh build "$CT"
else
  el "gpu_bench: no torchvision, skipped"
fi
s=$(left)
[ "$s" -lt 60 ] && s=60
GPU_LOGS=$O/suite GPU_TIMEOUT=$(( s - 15 )) timeout "$s" \
  tests/gpu/run_gpu_suite.sh build "$CT" 2>&1 | tail -40
el "suite"
