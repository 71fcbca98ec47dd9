/*
 * core/frontend/onnx/unavailable.c - the ONNX API of a libtvm configured
 * without ONNX import and export (--disable-onnx, or protoc-c, libprotobuf-c or
 * onnx.proto missing at configure time): every entry point fails with
 * TVM_ERR_UNAVAILABLE and a message saying so and how to get it, so that
 * programs (tvmc compile model.onnx) tell the user instead of failing to
 * link.
 */
#include "tvm/onnx.h"

#ifndef TVM_ONNX_WHY
#define TVM_ONNX_WHY "disabled at configure time"
#endif

/* The one message of every entry point; what names the model or file. */
static tvm_status not_built(const char *what) {
  return tvm_diag_set(TVM_ERR_UNAVAILABLE,
                      "cannot read %s: ONNX import was not built into this "
                      "tvm-c (configure: %s); install protobuf-c-compiler, "
                      "libprotobuf-c-dev and libonnx-dev and reconfigure "
                      "with --enable-onnx, or use a zoo:NAME model",
                      what ? what : "the ONNX model", TVM_ONNX_WHY);
}

tvm_status tvm_onnx_load(const char *path, tvm_graph **out) {
  if (out) *out = NULL;
  return not_built(path);
}

tvm_status tvm_onnx_load_opts(const char *path, const tvm_onnx_options *opts,
                              tvm_graph **out) {
  if (out) *out = NULL;
  return not_built(path);
}

tvm_status tvm_onnx_load_buffer(const void *data, size_t size,
                                const char *name_for_errors,
                                tvm_graph **out) {
  if (out) *out = NULL;
  return not_built(name_for_errors);
}

tvm_status tvm_onnx_load_buffer_opts(const void *data, size_t size,
                                     const char *name_for_errors,
                                     const tvm_onnx_options *opts,
                                     tvm_graph **out) {
  if (out) *out = NULL;
  return not_built(name_for_errors);
}

tvm_status tvm_onnx_save(const tvm_graph *g, const char *path, int opset) {
  return tvm_diag_set(TVM_ERR_UNAVAILABLE,
                      "cannot write %s: ONNX export was not built into this "
                      "tvm-c (configure: %s); install protobuf-c-compiler, "
                      "libprotobuf-c-dev and libonnx-dev and reconfigure "
                      "with --enable-onnx",
                      path ? path : "the ONNX model", TVM_ONNX_WHY);
}

tvm_status tvm_onnx_tensor_load(const char *path, tvm_onnx_tensor **out) {
  if (out) *out = NULL;
  return not_built(path);
}

tvm_status tvm_onnx_tensor_load_buffer(const void *data, size_t size,
                                       const char *name_for_errors,
                                       tvm_onnx_tensor **out) {
  if (out) *out = NULL;
  return not_built(name_for_errors);
}

/* Nothing was ever allocated. */
void tvm_onnx_tensor_free(tvm_onnx_tensor *t) { (void)t; }
