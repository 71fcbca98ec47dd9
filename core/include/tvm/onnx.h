/*
 * tvm/onnx.h - the ONNX frontend: ONNX models (ModelProto files) to graph
 * IR, and serialized ONNX tensors (TensorProto .pb files) to host tensors.
 *
 * Import.  The model's opset for the default domain ("" or "ai.onnx")
 * must lie in 9..17.  Initializers (and graph inputs that are also
 * initializers) become CONST values; the other graph inputs become INPUT
 * values, in order; nodes are applied in file order with their ONNX
 * operator names and attributes (INT, FLOAT, STRING, INTS, FLOATS), plus
 * an integer attribute "_opset" holding the model's opset, which the
 * operators read for opset-dependent semantics.  Node names and value
 * names are kept.  Conventions for TENSOR attributes:
 *   - Constant: no node; its value (value, value_float(s), value_int(s))
 *     becomes the CONST value of its output (same name), so operators
 *     whose inputs must be constant (Reshape's shape) see the data;
 *   - ConstantOfShape: its one-element `value` tensor becomes a CONST value
 *     named "<output>:value", the node's second input (absent when the
 *     attribute is).
 * Tensors must be float32, int32 or int64 and graph input shapes static:
 * a symbolic dimension (dim_param) must be bound with
 * tvm_onnx_options.dims, else the import fails naming it.  Graph inputs
 * can be frozen to constants (tvm_onnx_options.consts).
 *
 * Errors name the model, the node (name, operator, opset) and the
 * problem: TVM_ERR_UNSUPPORTED for valid models using what is not
 * supported (an operator outside the registry, a dtype, an opset, external
 * data), TVM_ERR_INVALID for malformed ones (a truncated file, an
 * undefined value name, a tensor whose data does not match its dims),
 * TVM_ERR_IO when the file cannot be read.
 */
#ifndef TVM_ONNX_H
#define TVM_ONNX_H

#include <dlpack/dlpack.h>

#include "tvm/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A value for a symbolic input dimension (dim_param "N" -> 1). */
typedef struct tvm_onnx_dim {
  const char *name;
  int64_t value;
} tvm_onnx_dim;

/* A graph input frozen to a constant (TVM's freeze_params): value is a
 * compact row-major CPU tensor of the input's dtype and shape, copied. */
typedef struct tvm_onnx_const {
  const char *name;
  const DLTensor *value;
} tvm_onnx_const;

/* Import options; a zeroed struct (or NULL) means the defaults. */
typedef struct tvm_onnx_options {
  const tvm_onnx_dim *dims; /* bindings of symbolic dimensions */
  int ndims;
  /* Graph inputs that become CONST values instead of INPUT ones (shape
   * inputs of Reshape, Expand, ... that the model feeds at run time). */
  const tvm_onnx_const *consts;
  int nconsts;
} tvm_onnx_options;

/* Loads the ONNX model at path into a new graph (*out, freed with
 * tvm_graph_free).  On failure *out is NULL and the diagnostic says why. */
TVM_API tvm_status tvm_onnx_load(const char *path, tvm_graph **out);

/* Same with options (opts may be NULL). */
TVM_API tvm_status tvm_onnx_load_opts(const char *path,
                                      const tvm_onnx_options *opts,
                                      tvm_graph **out);

/* Same, from a serialized ModelProto in memory (data is not kept);
 * name_for_errors (may be NULL) names the model in messages. */
TVM_API tvm_status tvm_onnx_load_buffer(const void *data, size_t size,
                                        const char *name_for_errors,
                                        tvm_graph **out);

/* Same as tvm_onnx_load_buffer with options (opts may be NULL). */
TVM_API tvm_status tvm_onnx_load_buffer_opts(const void *data, size_t size,
                                             const char *name_for_errors,
                                             const tvm_onnx_options *opts,
                                             tvm_graph **out);

/* Writes g as an ONNX model file at path (atomically: a temporary file
 * renamed over it), declaring opset `opset` of the default domain (0 =
 * 17): nodes with their ONNX operator names and attributes, CONST values
 * read by nodes as initializers, INPUT values and outputs with their
 * static shapes.  Graphs with tvm-c's own operators (after alter_layout:
 * Conv_NCHWc, LayoutTransform) or dtypes ONNX lacks are refused, naming
 * the node.  For running the very same model in other frameworks. */
TVM_API tvm_status tvm_onnx_save(const tvm_graph *g, const char *path,
                                 int opset);

/* A host tensor read from a TensorProto: dl is a compact row-major CPU
 * DLTensor (strides NULL) whose shape and data are owned by the struct.
 * name is the proto's name ("" when it has none). */
typedef struct tvm_onnx_tensor {
  DLTensor dl;
  const char *name;
} tvm_onnx_tensor;

/* Reads a serialized TensorProto (.pb file, as in the ONNX tests'
 * test_data_set_N/input_K.pb): dims, data from raw_data or the typed
 * fields (float_data, int32_data, int64_data), data types float32,
 * int32, int64, and for reading also bool, uint8 and int8 (bool is
 * TVM_BOOL, one byte per element).  Free with tvm_onnx_tensor_free. */
TVM_API tvm_status tvm_onnx_tensor_load(const char *path,
                                        tvm_onnx_tensor **out);
TVM_API tvm_status tvm_onnx_tensor_load_buffer(const void *data, size_t size,
                                               const char *name_for_errors,
                                               tvm_onnx_tensor **out);
TVM_API void tvm_onnx_tensor_free(tvm_onnx_tensor *t);

#ifdef __cplusplus
}
#endif
#endif /* TVM_ONNX_H */
