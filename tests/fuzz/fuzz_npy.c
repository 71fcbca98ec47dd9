/*
 * tests/fuzz/fuzz_npy.c - libFuzzer target: the .npy reader
 * (tvm_npy_load_buffer) on arbitrary bytes.
 */
#include <stddef.h>
#include <stdint.h>

#include "tvm/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DLTensor *t = NULL;
  if (tvm_npy_load_buffer(data, size, "fuzz.npy", &t) == TVM_OK)
    tvm_npy_free(t);
  return 0;
}
