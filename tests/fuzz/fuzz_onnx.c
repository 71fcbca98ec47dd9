/*
 * tests/fuzz/fuzz_onnx.c - libFuzzer target: the ONNX importer on
 * arbitrary bytes (tvm_onnx_load_buffer), and the TensorProto reader.
 * Any result is fine except a crash, a sanitizer report, a leak or a hang.
 */
#include <stddef.h>
#include <stdint.h>

#include "tvm/graph.h"
#include "tvm/onnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tvm_graph *g = NULL;
  if (tvm_onnx_load_buffer(data, size, "fuzz.onnx", &g) == TVM_OK)
    tvm_graph_free(g);
  tvm_onnx_tensor *t = NULL;
  if (tvm_onnx_tensor_load_buffer(data, size, "fuzz.pb", &t) == TVM_OK)
    tvm_onnx_tensor_free(t);
  return 0;
}
