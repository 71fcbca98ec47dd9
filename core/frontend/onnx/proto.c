/*
 * core/frontend/onnx/proto.c - the glue between protobuf-c and the core:
 * an allocator that sends protobuf-c's memory through tvm_malloc (so an
 * embedder's allocator sees it and out-of-memory makes unpacking fail
 * cleanly).
 */
#include "onnx_int.h"

/* protobuf-c's alloc hook: tvm_malloc (NULL on failure, which protobuf-c
 * turns into an unpack failure). */
static void *pb_alloc(void *ud, size_t size) {
  (void)ud;
  return tvm_malloc(size ? size : 1);
}

/* protobuf-c's free hook. */
static void pb_free(void *ud, void *p) {
  (void)ud;
  tvm_free(p);
}

ProtobufCAllocator onnx_allocator = {pb_alloc, pb_free, NULL};

