#!/bin/bash
# tests/gpu/run_gpu_suite.sh - the whole device suite on a machine with a
# GPU, which CI does not have: run it by hand from a built tree.
#
#   tests/gpu/run_gpu_suite.sh [BUILD_DIR] [TARGET...]
#
# BUILD_DIR defaults to ./build; TARGETs default to cuda-sm90, vulkan and
# opencl (use cuda-sm80 on an Ampere card).  For every target that probes
# available (`tvmc targets`) it runs, side by side on all cores:
#   - the ONNX node tests compiled for the target (TVM_ONNX_MODE=compiled:
#     compiled code against the tests' expected outputs), split into
#     shards, one run_node_tests per shard;
#   - every zoo model against llvm-cpu's outputs (test_simt_zoo);
#   - tvm-backend-ops (every operator against the naive reference);
#   - the plugin's own cmocka programs (test_cuda and test_ops_cuda for
#     cuda; test_vulkan and test_vulkan_threads for vulkan; test_ops_opencl
#     for opencl).
# Logs go to $GPU_LOGS (default: a new folder under /tmp); the summary
# names each job with its exit status, and the node tests' counts.  Exits
# 1 when a job failed or timed out (GPU_TIMEOUT seconds each, default 900).
#
# Vulkan needs the loader (libvulkan1) and the vendor's ICD; where the
# loader does not find it, point VK_DRIVER_FILES at the ICD json (NVIDIA's
# container images keep it in /usr/local/nvidia/share/vulkan/icd.d/).
# OpenCL needs an ICD file in /etc/OpenCL/vendors/ (NVIDIA: a line
# "libnvidia-opencl.so.1" in nvidia.icd).
set -u
B=$(cd "${1:-build}" && pwd) || exit 1
shift $(( $# > 0 ? 1 : 0 ))
S=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -gt 0 ] || set -- cuda-sm90 vulkan opencl
L=${GPU_LOGS:-$(mktemp -d /tmp/gpu-suite.XXXXXX)}
mkdir -p "$L"
# the shards' folders of links to the node tests, apart from the logs
# (a folder of logs stays small enough to copy back from a lent machine)
SH=$(mktemp -d /tmp/gpu-shards.XXXXXX) || exit 1
trap 'rm -rf "$SH"' EXIT
TO=${GPU_TIMEOUT:-900}
NODE_DIR=${TVM_ONNX_NODE_TESTS:-/usr/share/libonnx-testdata/data/node}
SHARDS=${GPU_SHARDS:-$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))}
export TVM_PLUGIN_PATH=${TVM_PLUGIN_PATH:-$B/plugins/llvm-cpu/.libs:$B/plugins/vulkan/.libs:$B/plugins/arm-mali/.libs:$B/plugins/cuda/.libs}
export TVM_NO_INSTALLED=1 TVM_TARGET_PATH=$S/targets TVM_SRCDIR=$S TVM_BUILDDIR=$B
export CMOCKA_MESSAGE_OUTPUT=stdout
ZOO=$("$B/tvmc" compile --list-zoo) || { echo "tvmc not usable in $B"; exit 1; }

PIDS=
# job NAME COMMAND...: runs in the background, line-buffered into NAME.log
job() {
  local n=$1
  shift
  ( s=$(date +%s)
    timeout "$TO" stdbuf -oL "$@" > "$L/$n.log" 2>&1
    echo "$n exit $? ($(( $(date +%s) - s )) s)" >> "$L/status" ) &
  PIDS="$PIDS $!"
}

for t in "$@"; do
  probe=$("$B/tvmc" targets 2>&1 | grep -A1 "^  $t  " | tail -1)
  case $probe in
    *ok*) ;;
    *) echo "$t: not run ($probe)"; continue ;;
  esac
  echo "$t: running"
  for k in $(seq 0 $(( SHARDS - 1 ))); do
    d=$SH/nodes-$t-$k.d
    mkdir -p "$d"
    ls "$NODE_DIR" | awk -v k="$k" -v n="$SHARDS" 'NR % n == k' |
      while read -r x; do ln -sf "$NODE_DIR/$x" "$d/$x"; done
    job "nodes-$t-$k" env TVM_ONNX_NODE_TESTS="$d" TVM_ONNX_TARGET="$t" \
        TVM_ONNX_MODE=compiled "$B/tests/e2e/onnx/run_node_tests"
  done
  # shellcheck disable=SC2086
  job "zoo-$t" env TVM_ZOO_TARGET="$t" "$B/tests/plugins/simt/test_simt_zoo" $ZOO
  job "ops-$t" "$B/tvm-backend-ops" "$t"
  case $t in
    cuda*) job test_cuda "$B/tests/plugins/cuda/test_cuda"
           job test_ops_cuda "$B/tests/plugins/gpu/test_ops_cuda" ;;
    vulkan) job test_vulkan "$B/tests/plugins/vulkan/test_vulkan"
            job test_vulkan_threads "$B/tests/plugins/vulkan/test_vulkan_threads" ;;
    opencl) job test_ops_opencl "$B/tests/plugins/gpu/test_ops_opencl" ;;
  esac
done
# shellcheck disable=SC2086
[ -n "$PIDS" ] && wait $PIDS
[ -f "$L/status" ] || { echo "nothing ran"; exit 77; }
sort "$L/status"
for t in "$@"; do
  ls "$L"/nodes-"$t"-*.log > /dev/null 2>&1 || continue
  cat "$L"/nodes-"$t"-*.log | awk -v t="$t" '
    /^onnx node tests/ { p += $(NF-7); f += $(NF-5); u += $(NF-3) }
    END { printf "%s: onnx node tests %d passed, %d failed, %d unsupported\n", t, p, f, u }'
  grep -h '^FAIL' "$L"/nodes-"$t"-*.log
done
echo "logs: $L"
! grep -v ' exit 0 ' "$L/status" > /dev/null
