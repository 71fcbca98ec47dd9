/*
 * core/frontend/onnx/strmap.c - the shape text of the importer's messages.
 */
#include <stdio.h>

#include "onnx_int.h"

/* Writes "[1, 3, 224, 224]" into buf. */
const char *onnx_shape_str(char *buf, size_t cap, const int64_t *s,
                           int n) {
  size_t len = 0;
  buf[0] = 0;
  len += (size_t)snprintf(buf + len, cap - len, "[");
  for (int i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "",
                            (long long)s[i]);
  if (len < cap)
    snprintf(buf + len, cap - len, "]");
  return buf;
}

