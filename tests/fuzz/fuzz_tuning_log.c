/*
 * tests/fuzz/fuzz_tuning_log.c - libFuzzer target: the tuning-log reader
 * (tvm_tune_log_read on a file holding the bytes, JSON lines) and the
 * JSON parser under it (tvm_json_parse on the bytes as one document).
 * Warnings about malformed lines are silenced (TVM_LOG_LEVEL=0).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_file.h"
#include "tvm/json.h"
#include "tvm/tune.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setenv("TVM_LOG_LEVEL", "0", 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tvm_json_doc *d = NULL;
  if (tvm_json_parse((const char *)data, size, NULL, &d) == TVM_OK)
    tvm_json_free(d);
  const char *path = fuzz_file(data, size, ".log");
  tvm_tune_log *l = NULL;
  if (path && tvm_tune_log_read(path, &l) == TVM_OK) {
    for (int i = 0; i < tvm_tune_log_count(l); i++)
      (void)tvm_tune_log_get(l, i);
    tvm_tune_log_free(l);
  }
  return 0;
}
