/*
 * core/ir/dtype.c - data types: predicates, sizes and the text form
 * ("float32", "int8x16", "uint1" is printed "bool", "handle", "bfloat16").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/ir.h"

/* Same code, bits and lanes. */
int tvm_dtype_eq(tvm_dtype a, tvm_dtype b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/* Floating point (float or bfloat). */
int tvm_dtype_is_float(tvm_dtype t) {
  return t.code == kDLFloat || t.code == kDLBfloat;
}

/* Bool: unsigned with 1 bit. */
int tvm_dtype_is_bool(tvm_dtype t) { return t.code == kDLUInt && t.bits == 1; }

/* Signed or unsigned integer, not bool. */
int tvm_dtype_is_int(tvm_dtype t) {
  return t.code == kDLInt || (t.code == kDLUInt && t.bits != 1);
}

/* Unsigned integer, not bool. */
int tvm_dtype_is_uint(tvm_dtype t) { return t.code == kDLUInt && t.bits != 1; }

/* Opaque pointer (buffer variables). */
int tvm_dtype_is_handle(tvm_dtype t) { return t.code == TVM_DTYPE_HANDLE; }

/* t with its lane count replaced. */
tvm_dtype tvm_dtype_with_lanes(tvm_dtype t, int lanes) {
  t.lanes = (uint16_t)lanes;
  return t;
}

/* The scalar element type of t. */
tvm_dtype tvm_dtype_element(tvm_dtype t) { return tvm_dtype_with_lanes(t, 1); }

/* Bytes of one value of t, all lanes, rounded up (bool: 1 byte). */
int tvm_dtype_bytes(tvm_dtype t) {
  int bits = t.bits * (t.lanes ? t.lanes : 1);
  return (bits + 7) / 8;
}

/* Writes the name of t into buf and returns buf. */
const char *tvm_dtype_str(tvm_dtype t, char buf[32]) {
  const char *base;
  if (t.code == TVM_DTYPE_HANDLE) {
    base = "handle";
  } else if (tvm_dtype_is_bool(t)) {
    base = "bool";
  } else {
    switch (t.code) {
    case kDLInt: base = "int"; break;
    case kDLUInt: base = "uint"; break;
    case kDLFloat: base = "float"; break;
    case kDLBfloat: base = "bfloat"; break;
    default: base = "unknown"; break;
    }
  }
  int n;
  if (t.code == TVM_DTYPE_HANDLE || tvm_dtype_is_bool(t))
    n = snprintf(buf, 32, "%s", base);
  else
    n = snprintf(buf, 32, "%s%d", base, t.bits);
  if (t.lanes > 1 && n > 0 && n < 32) snprintf(buf + n, 32 - (size_t)n, "x%d", t.lanes);
  return buf;
}

/* Parses "<base><bits>[x<lanes>]", "bool[x<lanes>]" or "handle". */
tvm_status tvm_dtype_parse(const char *s, tvm_dtype *out) {
  static const struct { const char *name; uint8_t code; } bases[] = {
      {"bfloat", kDLBfloat}, {"float", kDLFloat}, {"uint", kDLUInt},
      {"int", kDLInt}};
  if (!s) return tvm_diag_set(TVM_ERR_INVALID, "data type name is NULL");
  tvm_dtype t = tvm_dt(0, 0, 1);
  const char *p = NULL;
  if (strcmp(s, "handle") == 0) {
    *out = TVM_HANDLE;
    return TVM_OK;
  }
  if (strncmp(s, "bool", 4) == 0) {
    t = TVM_BOOL;
    p = s + 4;
  } else {
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
      size_t n = strlen(bases[i].name);
      if (strncmp(s, bases[i].name, n) != 0) continue;
      char *end;
      if (s[n] < '0' || s[n] > '9') break;
      long bits = strtol(s + n, &end, 10);
      if (bits <= 0 || bits > 64) break;
      if (bases[i].code == kDLFloat && bits != 16 && bits != 32 && bits != 64) break;
      if (bases[i].code == kDLBfloat && bits != 16) break;
      t = tvm_dt(bases[i].code, (uint8_t)bits, 1);
      p = end;
      break;
    }
  }
  if (p && *p == 'x') {
    char *end;
    if (p[1] < '0' || p[1] > '9') p = NULL;
    else {
      long lanes = strtol(p + 1, &end, 10);
      if (lanes < 1 || lanes > 65535) p = NULL;
      else {
        t.lanes = (uint16_t)lanes;
        p = end;
      }
    }
  }
  if (!p || *p != '\0')
    return tvm_diag_set(TVM_ERR_INVALID,
                        "unknown data type '%s': expected e.g. float32, "
                        "int8, uint8, bool, handle, float32x4",
                        s);
  *out = t;
  return TVM_OK;
}
