/*
 * tvm/npy.h - NumPy .npy files to and from host tensors.
 *
 * Supported: NPY format versions 1.0, 2.0 (and 3.0, whose header only
 * differs in encoding), C order, little-endian data of the dtypes
 * float16 ('<f2'), float32 ('<f4'), float64 ('<f8'), int8 ('|i1'),
 * int16 ('<i2'), int32 ('<i4'), int64 ('<i8'), uint8 ('|u1'), uint16
 * ('<u2'), uint32 ('<u4'), uint64 ('<u8') and bool ('|b1', TVM_BOOL: one
 * byte per element); numpy has no bfloat16.  Anything else (big-endian, Fortran order, other dtypes, a
 * header that does not parse, a file shorter or longer than its header
 * says) is refused with a message naming the file and the problem.
 */
#ifndef TVM_NPY_H
#define TVM_NPY_H

#include <stddef.h>
#include <dlpack/dlpack.h>

#include "tvm/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the .npy file at path into a new compact row-major CPU tensor
 * (*out: shape, strides == NULL and data owned by the tensor; free it with
 * tvm_npy_free).  On failure *out is NULL and the diagnostic says why. */
TVM_API tvm_status tvm_npy_load(const char *path, DLTensor **out);

/* Same from the bytes of a .npy file in memory (data is not kept);
 * name_for_errors (may be NULL) names it in messages. */
TVM_API tvm_status tvm_npy_load_buffer(const void *data, size_t size,
                                       const char *name_for_errors,
                                       DLTensor **out);

/* A new zero-filled compact CPU tensor of dtype and shape, freed with
 * tvm_npy_free (for callers filling tensors they will save or feed). */
TVM_API tvm_status tvm_npy_alloc(DLDataType dtype, const int64_t *shape,
                                 int ndim, DLTensor **out);

/* Frees a tensor from tvm_npy_load / tvm_npy_alloc (NULL is a no-op). */
TVM_API void tvm_npy_free(DLTensor *t);

/* Writes t (a compact CPU tensor of a supported dtype) to path in NPY
 * format 1.0, the data starting at a multiple of 64 bytes. */
TVM_API tvm_status tvm_npy_save(const char *path, const DLTensor *t);

#ifdef __cplusplus
}
#endif
#endif /* TVM_NPY_H */
