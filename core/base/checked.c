/*
 * core/base/checked.c - element and byte counts of shapes that come from
 * input, computed without overflow.  The inline wrappers in tvm/base.h do
 * single operations; these fold a whole shape and say where it overflowed.
 */
#include <stdio.h>

#include "tvm/base.h"

/* Writes "[d0, d1, ...]" of shape into buf (truncated to n bytes). */
static void shape_str(char *buf, size_t n, const int64_t *shape, int ndim) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < ndim && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "",
                          (long long)shape[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* Product of the dimensions, refusing negative ones and overflow. */
tvm_status tvm_shape_numel(const char *what, const int64_t *shape, int ndim,
                           int64_t *numel) {
  int64_t n = 1;
  char buf[256];
  *numel = 0;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: dimension %d is %lld; dimensions are >= 0",
                          what ? what : "shape", i, (long long)shape[i]);
  }
  for (int i = 0; i < ndim; i++) {
    if (tvm_mul_overflow_i64(n, shape[i], &n)) {
      shape_str(buf, sizeof buf, shape, ndim);
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: shape %s has more than 2^63 elements (the "
                          "product overflows at dimension %d)",
                          what ? what : "shape", buf, i);
    }
  }
  *numel = n;
  return TVM_OK;
}

/* numel * elem_bytes with the checks of tvm_shape_numel. */
tvm_status tvm_shape_bytes(const char *what, const int64_t *shape, int ndim,
                           int64_t elem_bytes, int64_t *bytes) {
  int64_t n;
  char buf[256];
  *bytes = 0;
  tvm_status st = tvm_shape_numel(what, shape, ndim, &n);
  if (st) return st;
  if (elem_bytes < 0 || tvm_mul_overflow_i64(n, elem_bytes, bytes)) {
    shape_str(buf, sizeof buf, shape, ndim);
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: shape %s of %lld-byte elements is more than "
                        "2^63 bytes",
                        what ? what : "shape", buf, (long long)elem_bytes);
  }
  return TVM_OK;
}
