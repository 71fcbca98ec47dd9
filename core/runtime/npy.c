/*
 * core/runtime/npy.c - NumPy .npy files to and from host tensors.
 *
 * The format (numpy/lib/format.py, "NEP 1"): the magic "\x93NUMPY", a
 * major and a minor version byte, the header length (u16 little-endian in
 * 1.0, u32 in 2.0 and 3.0), then the header: a Python dict literal
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * padded with spaces and ended by '\n' so that the data starts at a
 * multiple of 64 bytes; then the raw elements in C order.
 *
 * A loaded tensor is one heap block: the DLTensor, its shape and
 * (64-byte aligned) its data, so tvm_npy_free is a single free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/ir.h"
#include "tvm/npy.h"

#define NPY_MAX_DIMS 32
/* Longest header accepted: a limit on input, named when hit. */
#define NPY_MAX_HEADER 65536
#define DATA_ALIGN 64

typedef struct npy_block {
  DLTensor dl;
  int64_t shape[NPY_MAX_DIMS];
  unsigned char pad[DATA_ALIGN];
  /* data follows, aligned */
} npy_block;

/* The descr string of a supported dtype, or NULL. */
static const char *descr_of(DLDataType t) {
  if (t.lanes != 1) return NULL;
  if (t.code == kDLFloat && t.bits == 32) return "<f4";
  if (t.code == kDLFloat && t.bits == 64) return "<f8";
  if (t.code == kDLInt && t.bits == 32) return "<i4";
  if (t.code == kDLInt && t.bits == 64) return "<i8";
  if (t.code == kDLInt && t.bits == 8) return "|i1";
  if (t.code == kDLUInt && t.bits == 8) return "|u1";
  if (t.code == kDLUInt && t.bits == 1) return "|b1";
  if (t.code == kDLInt && t.bits == 16) return "<i2";
  if (t.code == kDLUInt && t.bits == 16) return "<u2";
  if (t.code == kDLUInt && t.bits == 32) return "<u4";
  if (t.code == kDLUInt && t.bits == 64) return "<u8";
  if (t.code == kDLFloat && t.bits == 16) return "<f2";
  return NULL; /* bfloat16: numpy has no such dtype */
}

/* Parses a descr string into a dtype: 0, or -1 (big-endian or unknown),
 * leaving a reason in why. */
static int parse_descr(const char *d, DLDataType *out, const char **why) {
  char order = d[0];
  const char *rest = d + 1;
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    order = '=';
    rest = d;
  }
  struct { const char *code; DLDataType t; int bytes; } tab[] = {
      {"f4", {kDLFloat, 32, 1}, 4}, {"f8", {kDLFloat, 64, 1}, 8},
      {"i4", {kDLInt, 32, 1}, 4},   {"i8", {kDLInt, 64, 1}, 8},
      {"i1", {kDLInt, 8, 1}, 1},    {"u1", {kDLUInt, 8, 1}, 1},
      {"b1", {kDLUInt, 1, 1}, 1},   {"i2", {kDLInt, 16, 1}, 2},
      {"u2", {kDLUInt, 16, 1}, 2},  {"u4", {kDLUInt, 32, 1}, 4},
      {"u8", {kDLUInt, 64, 1}, 8},  {"f2", {kDLFloat, 16, 1}, 2},
  };
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
    if (strcmp(rest, tab[i].code) != 0) continue;
    if (order == '>' && tab[i].bytes > 1) {
      *why = "big-endian data (save it with dtype '<...' / .astype('<f4'))";
      return -1;
    }
    *out = tab[i].t;
    return 0;
  }
  *why = "unsupported dtype (supported: bool, int8/16/32/64, "
         "uint8/16/32/64, float16, float32, float64; numpy has no bfloat16: "
         "save such data as float32)";
  return -1;
}

/* Skips spaces. */
static const char *ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

/* Finds the value of dict key `key` ('key' or "key") in the header text;
 * returns a pointer after the ':' or NULL. */
static const char *find_key(const char *h, const char *end, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = h; p + kl + 2 <= end; p++) {
    if ((*p == '\'' || *p == '"') && p[kl + 1] == *p &&
        memcmp(p + 1, key, kl) == 0) {
      const char *q = ws(p + kl + 2, end);
      if (q < end && *q == ':') return ws(q + 1, end);
    }
  }
  return NULL;
}

/* Frees a tensor made here. */
void tvm_npy_free(DLTensor *t) { tvm_free(t); }

/* One block for a compact tensor of dtype and shape (data zeroed). */
static tvm_status alloc_block(DLDataType dt, const int64_t *shape, int ndim,
                              uint64_t nbytes, DLTensor **out) {
  if (nbytes > (uint64_t)SIZE_MAX - sizeof(npy_block))
    return tvm_diag_set(TVM_ERR_NOMEM, "tensor of %llu bytes is too large",
                        (unsigned long long)nbytes);
  npy_block *b = tvm_calloc(1, sizeof(npy_block) + (size_t)nbytes);
  if (b == NULL)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory for a %llu-byte tensor",
                        (unsigned long long)nbytes);
  for (int i = 0; i < ndim; i++) b->shape[i] = shape[i];
  uintptr_t d = (uintptr_t)b->pad;
  d = (d + DATA_ALIGN - 1) & ~(uintptr_t)(DATA_ALIGN - 1);
  b->dl.data = (void *)d;
  b->dl.device.device_type = kDLCPU;
  b->dl.device.device_id = 0;
  b->dl.ndim = ndim;
  b->dl.dtype = dt;
  b->dl.shape = b->shape;
  b->dl.strides = NULL;
  b->dl.byte_offset = 0;
  *out = &b->dl;
  return TVM_OK;
}

/* Bytes of a tensor of dtype/shape, or -1 (with a diagnostic) when the
 * shape is negative or the size overflows. */
static int bytes_of(DLDataType dt, const int64_t *shape, int ndim,
                    const char *name, uint64_t *out) {
  uint64_t n = (uint64_t)tvm_dtype_bytes(dt);
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0) {
      tvm_diag_set(TVM_ERR_INVALID, "%s: negative dimension %lld", name,
                   (long long)shape[i]);
      return -1;
    }
    if (shape[i] != 0 && n > UINT64_MAX / (uint64_t)shape[i] / 2) {
      tvm_diag_set(TVM_ERR_INVALID, "%s: shape is too large", name);
      return -1;
    }
    n *= (uint64_t)shape[i];
  }
  *out = n;
  return 0;
}

/* Makes a zero-filled compact CPU tensor. */
tvm_status tvm_npy_alloc(DLDataType dtype, const int64_t *shape, int ndim,
                         DLTensor **out) {
  uint64_t n;
  *out = NULL;
  if (ndim < 0 || ndim > NPY_MAX_DIMS || (ndim > 0 && shape == NULL))
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_npy_alloc: bad rank %d", ndim);
  if (descr_of(dtype) == NULL)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "tvm_npy_alloc: unsupported dtype");
  if (bytes_of(dtype, shape, ndim, "tvm_npy_alloc", &n) != 0)
    return tvm_diag_status();
  return alloc_block(dtype, shape, ndim, n, out);
}

/* Parses the header dict h[0..len) into dtype and shape. */
static tvm_status parse_header(const char *name, const char *h, size_t len,
                               DLDataType *dt, int64_t *shape, int *ndim) {
  const char *end = h + len;
  const char *why = NULL;
  const char *v = find_key(h, end, "descr");
  if (v == NULL || v >= end || (*v != '\'' && *v != '"'))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: the .npy header has no 'descr' string", name);
  char q = *v++;
  const char *ve = memchr(v, q, (size_t)(end - v));
  if (ve == NULL || ve - v > 15)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: bad 'descr' in the .npy header",
                        name);
  char descr[16];
  memcpy(descr, v, (size_t)(ve - v));
  descr[ve - v] = 0;
  if (parse_descr(descr, dt, &why) != 0)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: dtype '%s': %s", name,
                        descr, why);

  v = find_key(h, end, "fortran_order");
  if (v == NULL)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: the .npy header has no 'fortran_order'", name);
  if ((size_t)(end - v) >= 4 && memcmp(v, "True", 4) == 0)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s: Fortran-order array; save it in C order "
                        "(np.save(path, np.ascontiguousarray(a)))",
                        name);
  if ((size_t)(end - v) < 5 || memcmp(v, "False", 5) != 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: 'fortran_order' must be True or False", name);

  v = find_key(h, end, "shape");
  if (v == NULL || v >= end || *v != '(')
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: the .npy header has no 'shape' tuple", name);
  v++;
  *ndim = 0;
  for (;;) {
    v = ws(v, end);
    if (v >= end)
      return tvm_diag_set(TVM_ERR_INVALID, "%s: unterminated 'shape'", name);
    if (*v == ')') break;
    if (*v < '0' || *v > '9')
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: bad dimension in 'shape' of the .npy header",
                          name);
    int64_t d = 0;
    while (v < end && *v >= '0' && *v <= '9') {
      if (d > (INT64_MAX - 9) / 10)
        return tvm_diag_set(TVM_ERR_INVALID, "%s: dimension too large", name);
      d = d * 10 + (*v++ - '0');
    }
    if (v < end && *v == 'L') v++; /* Python 2 longs */
    if (*ndim >= NPY_MAX_DIMS)
      return tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: more than %d dimensions",
                          name, NPY_MAX_DIMS);
    shape[(*ndim)++] = d;
    v = ws(v, end);
    if (v < end && *v == ',') v++;
  }
  return TVM_OK;
}

/* Parses a whole .npy image. */
tvm_status tvm_npy_load_buffer(const void *data, size_t size,
                               const char *name_for_errors, DLTensor **out) {
  const unsigned char *p = data;
  const char *name = name_for_errors ? name_for_errors : "<npy buffer>";
  size_t hlen, hoff;
  DLDataType dt;
  int64_t shape[NPY_MAX_DIMS];
  int ndim = 0;
  uint64_t nbytes;

  *out = NULL;
  if (size < 10 || memcmp(p, "\x93NUMPY", 6) != 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: not a .npy file (bad magic; expected "
                        "\\x93NUMPY)",
                        name);
  if (p[6] == 1) {
    hlen = (size_t)p[8] | (size_t)p[9] << 8;
    hoff = 10;
  } else if (p[6] == 2 || p[6] == 3) {
    if (size < 12)
      return tvm_diag_set(TVM_ERR_INVALID, "%s: truncated .npy header", name);
    hlen = (size_t)p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 |
           (size_t)p[11] << 24;
    hoff = 12;
  } else {
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s: .npy format version %d.%d is not supported "
                        "(1.0, 2.0 and 3.0 are)",
                        name, p[6], p[7]);
  }
  if (hlen > NPY_MAX_HEADER)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: .npy header of %zu bytes, more than the limit "
                        "of %d (numpy itself writes a few hundred)",
                        name, hlen, NPY_MAX_HEADER);
  if (hlen > size - hoff)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: truncated .npy file (header of %zu bytes, "
                        "file of %zu)",
                        name, hlen, size);
  tvm_status st =
      parse_header(name, (const char *)p + hoff, hlen, &dt, shape, &ndim);
  if (st != TVM_OK) return st;
  if (bytes_of(dt, shape, ndim, name, &nbytes) != 0) return tvm_diag_status();
  size_t have = size - hoff - hlen;
  if (have < nbytes)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: truncated .npy file: the header announces "
                        "%llu bytes of data, the file holds %zu",
                        name, (unsigned long long)nbytes, have);
  if (have > nbytes)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: %zu unexpected bytes after the data of the "
                        ".npy file",
                        name, have - (size_t)nbytes);
  st = alloc_block(dt, shape, ndim, nbytes, out);
  if (st != TVM_OK) return st;
  memcpy((*out)->data, p + hoff + hlen, (size_t)nbytes);
  if (dt.bits == 1) { /* normalize bools to 0/1 */
    unsigned char *b = (*out)->data;
    for (uint64_t i = 0; i < nbytes; i++) b[i] = b[i] != 0;
  }
  return TVM_OK;
}

/* Loads a .npy file. */
tvm_status tvm_npy_load(const char *path, DLTensor **out) {
  void *buf;
  size_t len;
  *out = NULL;
  tvm_status st = tvm_read_file(path, ".npy file", 0, &buf, &len);
  if (st != TVM_OK) return st;
  st = tvm_npy_load_buffer(buf, len, path, out);
  tvm_free(buf);
  return st;
}

/* Writes a compact CPU tensor as .npy. */
tvm_status tvm_npy_save(const char *path, const DLTensor *t) {
  const char *descr = t ? descr_of(t->dtype) : NULL;
  char header[64 + 32 * 24];
  uint64_t nbytes;
  if (t == NULL || t->ndim < 0 || t->ndim > NPY_MAX_DIMS ||
      (t->ndim > 0 && t->shape == NULL) || (t->data == NULL))
    return tvm_diag_set(TVM_ERR_INVALID, "%s: not a valid tensor to save",
                        path);
  if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: can only save CPU tensors (copy it to the host "
                        "first)",
                        path);
  if (descr == NULL) {
    char b[32];
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s: cannot save dtype %s (supported: bool, "
                        "int8/16/32/64, uint8/16/32/64, float16, float32, "
                        "float64; numpy has no bfloat16)",
                        path, tvm_dtype_str(t->dtype, b));
  }
  if (t->strides) { /* must be compact row-major */
    int64_t s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
      if (t->shape[i] != 1 && t->strides[i] != s)
        return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                            "%s: the tensor is not compact row-major", path);
      s *= t->shape[i];
    }
  }
  if (bytes_of(t->dtype, t->shape, t->ndim, path, &nbytes) != 0)
    return tvm_diag_status();

  int n = snprintf(header, sizeof header,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   descr);
  for (int i = 0; i < t->ndim; i++)
    n += snprintf(header + n, sizeof header - (size_t)n, "%lld%s",
                  (long long)t->shape[i], t->ndim == 1 ? "," : i + 1 < t->ndim ? ", " : "");
  n += snprintf(header + n, sizeof header - (size_t)n, "), }");
  /* version 1.0: 10-byte preamble; pad so data starts at a multiple of 64 */
  size_t total = 10 + (size_t)n + 1;
  size_t padded = (total + 63) / 64 * 64;
  size_t hlen = padded - 10;
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           (unsigned char)(hlen & 0xff),
                           (unsigned char)(hlen >> 8)};
  /* hlen < 65536 always: at most 32 dims of 20 digits */
  memset(header + n, ' ', hlen - 1 - (size_t)n);
  header[hlen - 1] = '\n';

  FILE *f = fopen(path, "wb");
  if (f == NULL)
    return tvm_diag_set(TVM_ERR_IO, "cannot create %s: %s", path,
                        strerror(errno));
  const unsigned char *data = (const unsigned char *)t->data + t->byte_offset;
  int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, hlen, f) == hlen;
  if (ok && t->dtype.bits == 1) {
    for (uint64_t i = 0; ok && i < nbytes; i++)
      ok = fputc(data[i] != 0, f) != EOF;
  } else if (ok && nbytes) {
    ok = fwrite(data, 1, (size_t)nbytes, f) == nbytes;
  }
  if (fclose(f) != 0) ok = 0;
  if (!ok)
    return tvm_diag_set(TVM_ERR_IO, "error writing %s: %s", path,
                        strerror(errno));
  return TVM_OK;
}
