/*
 * core/frontend/onnx/onnx_int.h - private helpers shared by the ONNX
 * frontend files: protobuf decoding through the core allocator
 * (proto.c), TensorProto decoding (tensor.c) and the model importer
 * (import.c: model level; node.c: one node; shape.c: message text).
 *
 * The protobuf-c bindings (onnx.pb-c.h) are generated at build time into
 * the build tree (see local.mk); only this folder includes them.
 */
#ifndef TVM_ONNX_INT_H
#define TVM_ONNX_INT_H

#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"
#include "tvm/onnx.h"

/* ---- proto.c ------------------------------------------------------------ */
/* The protobuf-c allocator that routes through tvm_malloc/tvm_free. */
extern ProtobufCAllocator onnx_allocator;
/* A model's protobuf-c allocator (a): fields of ONNX_PB_BIG bytes or more
 * (a weight's raw_data) are big blocks of the arena `big`, which the graph
 * can hold instead of copying them (tvm_graph_const_shared); the rest goes
 * through tvm_malloc.  Freeing a big block waits for onnx_pb_mem_free. */
#define ONNX_PB_BIG ((size_t)64 * 1024)
typedef struct onnx_pb_mem {
  ProtobufCAllocator a;
  tvm_arena *big;    /* NULL when it could not be made */
  tvm_ptrmap blocks; /* big block -> 1, or 2 once a constant holds it */
} onnx_pb_mem;
void onnx_pb_mem_init(onnx_pb_mem *m);
/* 1 (and marks it taken) when p is a big block of m not yet taken: one
 * constant per block, so two constants never alias. */
int onnx_pb_mem_take(onnx_pb_mem *m, const void *p);
/* Destroys the arena: blocks held by a graph live on in the graph. */
void onnx_pb_mem_free(onnx_pb_mem *m);
/* A proto2 string field: "" when unset (protobuf-c leaves NULL). */
static inline const char *onnx_str(const char *s) { return s ? s : ""; }

/* ---- tensor.c ----------------------------------------------------------- */
/* ONNX TensorProto.DataType name ("FLOAT", "BFLOAT16", ...) for messages. */
const char *onnx_dtype_name(int32_t dt);
/* Maps an ONNX data type to a dtype: float32, int32 and int64 always; bool,
 * uint8 and int8 too when for_reading.  TVM_ERR_UNSUPPORTED naming the type
 * and `what` (the tensor or value) otherwise. */
tvm_status onnx_map_dtype(int32_t dt, int for_reading, const char *what,
                          tvm_dtype *out);
/* A decoded tensor: dtype, dims and compact row-major little-endian data
 * (tvm_malloc'd, owned by the caller, unless `placed`; never NULL, even
 * when empty). */
typedef struct onnx_data {
  tvm_dtype dtype;
  int ndim;
  int64_t *shape; /* tvm_malloc'd (ndim entries, at least one allocated) */
  int64_t numel;
  void *data;
  int placed; /* data came from an onnx_place_fn and is not freed here */
} onnx_data;
/* Decodes t (data from raw_data or the typed field of its type), checking
 * that the data length matches the dims.  what names the tensor in
 * messages.  On failure nothing is left allocated. */
tvm_status onnx_decode_tensor(const Onnx__TensorProto *t, int for_reading,
                              const char *what, onnx_data *out);
/* Gives the buffer a tensor is decoded into, for d's dtype, dims and
 * element count (numel elements of the dtype), or NULL with the
 * diagnostic set. */
typedef void *(*onnx_place_fn)(void *ctx, const onnx_data *d);
/* onnx_decode_tensor into the buffer place gives (a graph constant's own
 * storage, so that a weight is not copied once more); out->data is then
 * the caller's. */
tvm_status onnx_decode_tensor_to(const Onnx__TensorProto *t, int for_reading,
                                 const char *what, onnx_place_fn place,
                                 void *ctx, onnx_data *out);
void onnx_data_free(onnx_data *d);

/* ---- the importer (import.c, node.c, shape.c) ---------------------------- */
#define OPSET_MIN 1
#define OPSET_MAX 21

/* Writes "[1, 3, 224, 224]" into buf (for messages); returns buf. */
const char *onnx_shape_str(char *buf, size_t cap, const int64_t *s, int n);

/* The state of one import. */
typedef struct importer {
  const Onnx__GraphProto *gp;
  const tvm_onnx_options *opts;
  int64_t opset; /* default domain; -1 when the model imports none */
  tvm_graph *g;
  tvm_strmap values; /* ONNX value name -> tvm_gvalue* */
  tvm_strmap inits;  /* initializer name -> Onnx__TensorProto* */
  tvm_ptrmap why;    /* tvm_gnode* not folded at import -> reason (arena) */
  onnx_pb_mem *mem;  /* the model's protobuf memory (NULL: copy weights) */
} importer;

/* Nodes whose inputs are all constant are folded as they are imported
 * when their outputs hold at most this many elements (shape
 * computations); bigger ones are left to the fold_constants pass. */
#define ONNX_IMPORT_FOLD_MAX 65536

/* Records v as the ONNX value `name` (renaming v to it); a name defined
 * twice is an error naming `by` (the second definer). */
tvm_status onnx_define_value(importer *im, const char *name, tvm_gvalue *v,
                             const char *by);
/* A CONST value called name from the TensorProto t (float32, int32,
 * int64); what names it in messages. */
tvm_status onnx_add_const(importer *im, const char *name,
                          const Onnx__TensorProto *t, const char *what,
                          tvm_gvalue **out);
/* ---- versions.c: operator versions (see the file) ------------------------ */
/* Refuses the old forms the operators do not implement, naming the node,
 * the operator, the version and what would work. */
tvm_status onnx_check_version(const Onnx__NodeProto *np, const char *op,
                              const char *node, int64_t opset);
/* Rewrites a converted attribute of an old form onto the current one. */
tvm_status onnx_upgrade_attr(const char *op, const char *node, int64_t opset,
                             tvm_gattr *a);
/* Appends the attributes an old form leaves implicit (room for one). */
void onnx_default_attrs(const Onnx__NodeProto *np, const char *op,
                        int64_t opset, tvm_gattr *attrs, int *na);

/* Imports node np (the idx-th of the graph) into im->g (node.c). */
tvm_status onnx_import_node(importer *im, const Onnx__NodeProto *np,
                            size_t idx);
/* Appends to the diagnostic (status st) why the non-constant values in[]
 * could not be computed at import (node.c); returns st. */
tvm_status onnx_explain_nonconst(importer *im, tvm_gvalue **in, int nin,
                                 tvm_status st);
/* Control flow and sequences (control.c): 1 when op is one of them;
 * onnx_import_control inlines an If with a constant condition and refuses
 * the rest with the reason. */
int onnx_is_control_op(const char *op);
tvm_status onnx_import_control(importer *im, const Onnx__NodeProto *np,
                               const char *node, size_t idx);

/* limits.c: refuses a serialized message (of type desc) whose messages
 * nest more than ONNX_MAX_NESTING deep, in one linear pass, before
 * protobuf-c's recursive unpacker sees it; `what` names the model. */
#define ONNX_MAX_NESTING 64
tvm_status onnx_check_nesting(const void *data, size_t size,
                              const ProtobufCMessageDescriptor *desc,
                              const char *what);

#endif /* TVM_ONNX_INT_H */
