/*
 * core/frontend/onnx/proto.c - the glue between protobuf-c and the core:
 * an allocator that sends protobuf-c's memory through tvm_malloc (so an
 * embedder's allocator sees it and out-of-memory makes unpacking fail
 * cleanly), and a model's allocator that puts the big fields (a weight's
 * raw_data) in an arena whose blocks the graph can hold without copying
 * them (onnx_pb_mem).
 */
#include <string.h>

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

/* onnx_pb_mem's alloc hook: a big block of the arena (recorded as such),
 * else (or when the arena or the record finds no memory) tvm_malloc. */
static void *mem_alloc(void *ud, size_t size) {
  onnx_pb_mem *m = ud;
  if (m->big && size >= ONNX_PB_BIG) {
    void *p = tvm_arena_alloc(m->big, size);
    if (p && tvm_ptrmap_put(&m->blocks, p, (void *)1) == TVM_OK)
      return p;
  }
  return tvm_malloc(size ? size : 1);
}

/* onnx_pb_mem's free hook: the arena's blocks go with the arena. */
static void mem_free(void *ud, void *p) {
  onnx_pb_mem *m = ud;
  void *v = NULL;
  if (p && tvm_ptrmap_get(&m->blocks, p, &v))
    return;
  tvm_free(p);
}

/* See onnx_int.h. */
void onnx_pb_mem_init(onnx_pb_mem *m) {
  memset(m, 0, sizeof *m);
  m->a.alloc = mem_alloc;
  m->a.free = mem_free;
  m->a.allocator_data = m;
  m->big = tvm_arena_create(); /* NULL: every block from tvm_malloc */
}

/* See onnx_int.h. */
int onnx_pb_mem_take(onnx_pb_mem *m, const void *p) {
  void *v = NULL;
  if (!m || !m->big || !p || !tvm_ptrmap_get(&m->blocks, p, &v) ||
      v != (void *)1)
    return 0;
  return tvm_ptrmap_put(&m->blocks, p, (void *)2) == TVM_OK;
}

/* See onnx_int.h. */
void onnx_pb_mem_free(onnx_pb_mem *m) {
  tvm_arena_destroy(m->big);
  tvm_ptrmap_free(&m->blocks);
  m->big = NULL;
}
