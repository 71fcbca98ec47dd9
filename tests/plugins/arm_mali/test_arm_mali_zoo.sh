#!/bin/sh
# tests/plugins/arm_mali/test_arm_mali_zoo.sh - zoo models compiled for
# the opencl target (arm-mali plugin: the Mali templates on blocked
# convolutions, Winograd on the 3x3 stride-1 ones with 32 channels or
# more: squeezenet's later expand convs, all of resnet18's) give
# llvm-cpu's outputs on the OpenCL device (PoCL in CI): squeezenet,
# mobilenet_v2 and resnet18 (about 30 s together on PoCL here);
# squeezenet only under the sanitizers.  Skips (77) without an OpenCL
# device.
set -u
b=${TVM_BUILDDIR:?run through make check}
POCL_CACHE_DIR=$(mktemp -d)
export POCL_CACHE_DIR
trap 'rm -rf "$POCL_CACHE_DIR"' EXIT
if [ -n "${TVM_SANITIZED:-}" ]; then
  set -- squeezenet
else
  set -- squeezenet mobilenet_v2 resnet18
fi
"$b/tests/plugins/arm_mali/test_arm_mali_zoo" "$@"
