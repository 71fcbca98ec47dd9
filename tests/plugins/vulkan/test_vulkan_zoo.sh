#!/bin/sh
# tests/plugins/vulkan/test_vulkan_zoo.sh - every model of the zoo
# (tvmc zoo) compiled for vulkan gives llvm-cpu's outputs on the same
# inputs (max relative difference 1e-4), through the zoo comparison
# program of tests/plugins/simt with TVM_ZOO_TARGET=vulkan.  Skips (77)
# without that program (it needs llvm-cpu), the vulkan plugin or a
# Vulkan device.  lavapipe is the driver where it is installed.
#
# On lavapipe (2-core machine, quiet) the eight models take about 37 s
# together, ResNet-50 the longest (11 s).  Under the sanitizers
# (TVM_SANITIZED) the compiler is instrumented and the driver is not:
# only the four small models run there; the plain build runs all.
set -u
b=${TVM_BUILDDIR:?run through make check}
prog="$b/tests/plugins/simt/test_simt_zoo"
[ -x "$prog" ] || { echo "SKIP: test_simt_zoo not built (needs llvm-cpu)"; exit 77; }
[ -f "$b/plugins/vulkan/.libs/tvm-vulkan.so" ] ||
  { echo "SKIP: the vulkan plugin is not built"; exit 77; }
lvp=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -r "$lvp" ] && VK_DRIVER_FILES=$lvp &&
  export VK_DRIVER_FILES
MESA_SHADER_CACHE_DISABLE=true
TVM_ZOO_TARGET=vulkan
export MESA_SHADER_CACHE_DISABLE TVM_ZOO_TARGET
if [ -n "${TVM_SANITIZED:-}" ]; then
  set -- mlp dqn dcgan squeezenet
else
  set -- mlp dqn dcgan squeezenet mobilenet_v2 lstm_lm resnet18 resnet50
fi
exec "$prog" "$@"
