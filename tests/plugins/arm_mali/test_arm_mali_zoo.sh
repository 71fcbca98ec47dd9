#!/bin/sh
# tests/plugins/arm_mali/test_arm_mali_zoo.sh - zoo models compiled for
# the opencl target (arm-mali plugin: the Mali templates on blocked
# convolutions) give llvm-cpu's outputs on the OpenCL device (PoCL in CI):
# squeezenet and mobilenet_v2 (about 20 s and 25 s on PoCL); squeezenet
# only under the sanitizers.  resnet18 matches too but takes ~40 s more;
# run it by hand: test_arm_mali_zoo resnet18.  Skips (77) without an
# OpenCL device.
set -u
b=${TVM_BUILDDIR:?run through make check}
POCL_CACHE_DIR=$(mktemp -d)
export POCL_CACHE_DIR
trap 'rm -rf "$POCL_CACHE_DIR"' EXIT
if [ -n "${TVM_SANITIZED:-}" ]; then
  set -- squeezenet
else
  set -- squeezenet mobilenet_v2
fi
"$b/tests/plugins/arm_mali/test_arm_mali_zoo" "$@"
