/*
 * core/base/file.c - reading a whole file into memory, the one way every
 * loader of the project (models, packages, .npy tensors, target YAML)
 * does it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tvm/base.h"

/* Reads all of path into a tvm_malloc'd buffer (one extra NUL byte after
 * the data, so text can be parsed in place), at most max_bytes (0 = no
 * limit).  `what` names the file's role in messages ("package", "ONNX
 * model").  On failure nothing is allocated and *data is NULL. */
tvm_status tvm_read_file(const char *path, const char *what,
                         size_t max_bytes, void **data, size_t *size) {
  size_t cap = 1 << 16, len = 0;
  char *buf;
  FILE *f;
  int err;

  *data = NULL;
  *size = 0;
  if (!path)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: no path given", what);
  f = fopen(path, "rb");
  if (!f)
    return tvm_diag_set(TVM_ERR_IO, "cannot open %s %s: %s", what, path,
                        strerror(errno));
  buf = tvm_malloc(cap);
  for (;;) {
    if (!buf)
      break;
    if (len + 1 >= cap) {
      char *nb = cap > ((size_t)-1) / 2 ? NULL : tvm_realloc(buf, cap * 2);
      if (!nb) {
        tvm_free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + len, 1, cap - 1 - len, f);
    len += got;
    if (got == 0 || (max_bytes && len > max_bytes))
      break;
  }
  err = ferror(f);
  fclose(f);
  if (!buf)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory reading %s %s", what,
                        path);
  if (err || (max_bytes && len > max_bytes)) {
    tvm_free(buf);
    if (err)
      return tvm_diag_set(TVM_ERR_IO, "error reading %s %s", what, path);
    return tvm_diag_set(TVM_ERR_IO, "%s %s is larger than %zu bytes", what,
                        path, max_bytes);
  }
  buf[len] = '\0';
  *data = buf;
  *size = len;
  return TVM_OK;
}
