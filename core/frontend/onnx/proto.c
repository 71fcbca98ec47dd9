/*
 * core/frontend/onnx/proto.c - the glue between protobuf-c and the core:
 * an allocator that sends protobuf-c's memory through tvm_malloc (so an
 * embedder's allocator sees it and out-of-memory makes unpacking fail
 * cleanly), and reading whole files.
 */
#include <errno.h>
#include <stdio.h>
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

/* Reads all of path into a fresh tvm_malloc'd buffer; the caller frees
 * *data.  Fails with TVM_ERR_IO naming the file and the OS error. */
tvm_status onnx_read_file(const char *path, const char *what, void **data,
                          size_t *size) {
  *data = NULL;
  *size = 0;
  if (!path)
    return tvm_diag_set(TVM_ERR_INVALID, "ONNX %s path is NULL", what);
  FILE *f = fopen(path, "rb");
  if (!f)
    return tvm_diag_set(TVM_ERR_IO, "cannot open ONNX %s '%s': %s", what,
                        path, strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char *buf = tvm_malloc(cap);
  if (!buf) {
    fclose(f);
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory reading '%s'", path);
  }
  for (;;) {
    if (len == cap) {
      char *nb = cap > ((size_t)-1) / 2 ? NULL : tvm_realloc(buf, cap * 2);
      if (!nb) {
        tvm_free(buf);
        fclose(f);
        return tvm_diag_set(TVM_ERR_NOMEM, "out of memory reading '%s'",
                            path);
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0)
      break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    tvm_free(buf);
    return tvm_diag_set(TVM_ERR_IO, "error reading ONNX %s '%s'", what, path);
  }
  *data = buf;
  *size = len;
  return TVM_OK;
}
