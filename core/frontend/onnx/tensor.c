/*
 * core/frontend/onnx/tensor.c - ONNX TensorProto decoding: data types,
 * data from raw_data (little-endian bytes) or from the typed repeated
 * fields, checked against the dims; and the public reader of serialized
 * tensors (.pb files) used by the conformance runner and `tvmc run`.
 */
#include <stdio.h>
#include <string.h>

#include "onnx_int.h"

/* ONNX data type names, as in onnx.proto, for messages. */
const char *onnx_dtype_name(int32_t dt) {
  static const char *const names[] = {
      "UNDEFINED", "FLOAT",  "UINT8",     "INT8",       "UINT16",
      "INT16",     "INT32",  "INT64",     "STRING",     "BOOL",
      "FLOAT16",   "DOUBLE", "UINT32",    "UINT64",     "COMPLEX64",
      "COMPLEX128", "BFLOAT16"};
  if (dt >= 0 && dt < (int32_t)(sizeof names / sizeof names[0]))
    return names[dt];
  return "unknown";
}

/* ONNX data type -> dtype; see onnx_int.h. */
tvm_status onnx_map_dtype(int32_t dt, int for_reading, const char *what,
                          tvm_dtype *out) {
  (void)for_reading;
  switch (dt) {
  case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: *out = TVM_F32; return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: *out = TVM_I32; return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: *out = TVM_I64; return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: *out = TVM_BOOL; return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: *out = TVM_U8; return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: *out = TVM_I8; return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: *out = TVM_I16; return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
    *out = tvm_dt(kDLUInt, 16, 1);
    return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: *out = TVM_U32; return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
    *out = tvm_dt(kDLUInt, 64, 1);
    return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: *out = TVM_F64; return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: *out = TVM_F16; return TVM_OK;
  case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16:
    *out = tvm_dt(kDLBfloat, 16, 1);
    return TVM_OK;
  default: break;
  }
  if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED)
    return tvm_diag_set(TVM_ERR_INVALID, "%s has no data type (UNDEFINED)",
                        what);
  return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                      "%s has data type %s (%d), which is not supported: "
                      "tensors must be bool, int8/16/32/64, uint8/16/32/64, "
                      "float16, bfloat16, float32 or float64",
                      what, onnx_dtype_name(dt), (int)dt);
}

/* Reverses the bytes of each of n elements of size sz in place (used only
 * on big-endian hosts: ONNX raw_data is little-endian). */
static void swap_elems(void *p, int64_t n, int sz) {
  unsigned char *b = p;
  for (int64_t i = 0; i < n; i++, b += sz)
    for (int k = 0; k < sz / 2; k++) {
      unsigned char c = b[k];
      b[k] = b[sz - 1 - k];
      b[sz - 1 - k] = c;
    }
}

/* Fails naming the tensor when the typed field holds n values for numel
 * elements. */
static tvm_status count_check(const char *what, const char *field, size_t n,
                              int64_t numel) {
  if ((int64_t)n == numel)
    return TVM_OK;
  return tvm_diag_set(TVM_ERR_INVALID,
                      "%s has %lld elements by its dims but %zu values in %s",
                      what, (long long)numel, n, field);
}

/* Decodes t into out (see onnx_int.h). */
tvm_status onnx_decode_tensor(const Onnx__TensorProto *t, int for_reading,
                              const char *what, onnx_data *out) {
  return onnx_decode_tensor_to(t, for_reading, what, NULL, NULL, out);
}

/* Decodes t into out, its data into what place gives (tvm_malloc when
 * place is NULL). */
tvm_status onnx_decode_tensor_to(const Onnx__TensorProto *t, int for_reading,
                                 const char *what, onnx_place_fn place,
                                 void *ctx, onnx_data *out) {
  memset(out, 0, sizeof *out);
  if (t->has_data_location &&
      t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s keeps its data in an external file, which is not "
                        "supported: save the model with the data inside it",
                        what);
  if (t->segment)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s is a segment of a larger tensor, which is not "
                        "supported",
                        what);
  tvm_dtype dt;
  tvm_status st = onnx_map_dtype(t->has_data_type ? t->data_type : 0,
                                 for_reading, what, &dt);
  if (st)
    return st;
  int esz = tvm_dtype_bytes(dt);
  /* Dims: non-negative, product and byte size without overflow. */
  int64_t numel = 1;
  const int64_t limit = ((int64_t)1 << 40);
  for (size_t i = 0; i < t->n_dims; i++) {
    if (t->dims[i] < 0)
      return tvm_diag_set(TVM_ERR_INVALID, "%s has a negative dimension %lld",
                          what, (long long)t->dims[i]);
    if (t->dims[i] > 0 && numel > limit / t->dims[i])
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s is too large (more than 2^40 elements)", what);
    numel *= t->dims[i];
  }
  if (t->n_dims > 64)
    return tvm_diag_set(TVM_ERR_INVALID, "%s has %zu dimensions", what,
                        t->n_dims);
  size_t nbytes = (size_t)numel * (size_t)esz;

  /* The data must match the dims before anything is allocated (a corrupt
   * file may claim huge dims). */
  int32_t odt = t->data_type;
  int raw = t->has_raw_data && (t->raw_data.len > 0 || numel == 0);
  if (raw && t->raw_data.len != nbytes)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s has %lld elements of %d bytes by its dims but "
                        "%zu bytes of raw_data",
                        what, (long long)numel, esz, t->raw_data.len);
  if (!raw) {
    if (odt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)
      st = count_check(what, "float_data", t->n_float_data, numel);
    else if (odt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
      st = count_check(what, "int64_data", t->n_int64_data, numel);
    else if (odt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE)
      st = count_check(what, "double_data", t->n_double_data, numel);
    else if (odt == ONNX__TENSOR_PROTO__DATA_TYPE__UINT32 ||
             odt == ONNX__TENSOR_PROTO__DATA_TYPE__UINT64)
      st = count_check(what, "uint64_data", t->n_uint64_data, numel);
    else
      st = count_check(what, "int32_data", t->n_int32_data, numel);
    if (st)
      return st;
  }

  out->dtype = dt;
  out->ndim = (int)t->n_dims;
  out->numel = numel;
  out->shape = tvm_malloc(sizeof(int64_t) * (t->n_dims ? t->n_dims : 1));
  if (!out->shape)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory decoding %s", what);
  for (size_t i = 0; i < t->n_dims; i++)
    out->shape[i] = t->dims[i];
  if (place) {
    out->data = place(ctx, out);
    out->placed = out->data != NULL;
    if (!out->data) {
      onnx_data_free(out);
      tvm_status st = tvm_diag_status();
      return st ? st
                : tvm_diag_set(TVM_ERR_NOMEM, "out of memory decoding %s",
                               what);
    }
  } else if (!(out->data = tvm_malloc(nbytes ? nbytes : 1))) {
    onnx_data_free(out);
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory decoding %s", what);
  }

  if (raw) {
    /* place may have handed back the very block (onnx_pb_mem) */
    if (nbytes && out->data != (void *)t->raw_data.data)
      memcpy(out->data, t->raw_data.data, nbytes);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    swap_elems(out->data, numel, esz);
#else
    (void)swap_elems;
#endif
    if (odt == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) {
      unsigned char *b = out->data;
      for (int64_t i = 0; i < numel; i++)
        b[i] = b[i] != 0;
    }
    return TVM_OK;
  }
  switch (odt) {
  case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    if (nbytes)
      memcpy(out->data, t->float_data, nbytes);
    break;
  case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
    if (nbytes)
      memcpy(out->data, t->int64_data, nbytes);
    break;
  case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
    if (nbytes)
      memcpy(out->data, t->double_data, nbytes);
    break;
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
    if (nbytes)
      memcpy(out->data, t->uint64_data, nbytes);
    break;
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
    for (int64_t i = 0; i < numel; i++)
      ((uint32_t *)out->data)[i] = (uint32_t)t->uint64_data[i];
    break;
  default: /* int32, and the narrow types stored in int32_data (float16
            * and bfloat16 as their bit patterns) */
    for (int64_t i = 0; i < numel; i++) {
      int32_t v = t->int32_data[i];
      switch (odt) {
      case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
        ((int32_t *)out->data)[i] = v;
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
        ((uint8_t *)out->data)[i] = v != 0;
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
        ((uint8_t *)out->data)[i] = (uint8_t)v;
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
      case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
      case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
      case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16:
        ((uint16_t *)out->data)[i] = (uint16_t)v;
        break;
      default: /* INT8 */
        ((int8_t *)out->data)[i] = (int8_t)v;
        break;
      }
    }
    break;
  }
  return TVM_OK;
}

/* Frees what onnx_decode_tensor allocated (safe on a zeroed struct). */
void onnx_data_free(onnx_data *d) {
  tvm_free(d->shape);
  if (!d->placed) tvm_free(d->data);
  d->shape = NULL;
  d->data = NULL;
}

/* ---- public tensor reader ------------------------------------------------ */

/* Decodes a serialized TensorProto into a new tvm_onnx_tensor. */
tvm_status tvm_onnx_tensor_load_buffer(const void *data, size_t size,
                                       const char *name_for_errors,
                                       tvm_onnx_tensor **out) {
  if (!out)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_onnx_tensor_load: out is NULL");
  *out = NULL;
  const char *src = name_for_errors ? name_for_errors : "<buffer>";
  if (!data && size)
    return tvm_diag_set(TVM_ERR_INVALID, "ONNX tensor '%s': data is NULL",
                        src);
  Onnx__TensorProto *tp = onnx__tensor_proto__unpack(
      &onnx_allocator, size, (const uint8_t *)(data ? data : ""));
  if (!tp)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "'%s' is not a valid serialized ONNX TensorProto "
                        "(protobuf decoding failed: truncated or corrupt "
                        "file?)",
                        src);
  char what[512];
  snprintf(what, sizeof what, "tensor '%s' in '%s'", onnx_str(tp->name), src);
  onnx_data d;
  tvm_status st = onnx_decode_tensor(tp, 1, what, &d);
  if (st) {
    onnx__tensor_proto__free_unpacked(tp, &onnx_allocator);
    return st;
  }
  tvm_onnx_tensor *t = tvm_calloc(1, sizeof *t);
  char *name = tvm_strdup(onnx_str(tp->name));
  onnx__tensor_proto__free_unpacked(tp, &onnx_allocator);
  if (!t || !name) {
    tvm_free(t);
    tvm_free(name);
    onnx_data_free(&d);
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory reading '%s'", src);
  }
  t->name = name;
  t->dl.data = d.data;
  t->dl.device.device_type = kDLCPU;
  t->dl.device.device_id = 0;
  t->dl.ndim = d.ndim;
  t->dl.dtype = d.dtype;
  t->dl.shape = d.shape;
  t->dl.strides = NULL;
  t->dl.byte_offset = 0;
  *out = t;
  return TVM_OK;
}

/* Reads the file at path and decodes it. */
tvm_status tvm_onnx_tensor_load(const char *path, tvm_onnx_tensor **out) {
  if (!out)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_onnx_tensor_load: out is NULL");
  *out = NULL;
  void *buf;
  size_t size;
  tvm_status st = tvm_read_file(path, "ONNX tensor", 0, &buf, &size);
  if (st)
    return st;
  st = tvm_onnx_tensor_load_buffer(buf, size, path, out);
  tvm_free(buf);
  return st;
}

/* Frees a tensor from tvm_onnx_tensor_load (NULL is fine). */
void tvm_onnx_tensor_free(tvm_onnx_tensor *t) {
  if (!t)
    return;
  tvm_free(t->dl.data);
  tvm_free(t->dl.shape);
  tvm_free((char *)t->name);
  tvm_free(t);
}
