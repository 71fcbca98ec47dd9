/*
 * tests/fuzz/fuzz_target_yaml.c - libFuzzer target: the target YAML
 * reader (tvm_target_load on a file holding the bytes).  The fuzz build
 * has no plugins, so a document that parses ends at "plugin not found";
 * everything before it (size and nesting limits, libyaml, the fields) is
 * exercised.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_file.h"
#include "tvm/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".yaml");
  tvm_target *t = NULL;
  if (path && tvm_target_load(path, &t) == TVM_OK) tvm_target_free(t);
  return 0;
}
