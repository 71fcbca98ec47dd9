/*
 * tests/unit/frontend/onnx_mb.h - a tiny ONNX model builder over the
 * generated protobuf-c structs, shared by the importer's tests: inputs,
 * outputs, initializers, nodes and attributes, serialized and imported.
 * Include after cmocka.h, onnx.pb-c.h and tvm/onnx.h.
 */
#ifndef TVM_TEST_ONNX_MB_H
#define TVM_TEST_ONNX_MB_H

/* ---- a tiny model builder over the protobuf-c structs --------------------- */
#define MAXN 32
typedef struct mb {
  Onnx__ModelProto m;
  Onnx__GraphProto g;
  Onnx__OperatorSetIdProto opset;
  Onnx__OperatorSetIdProto *opsetp[1];
  Onnx__NodeProto nodes[MAXN];
  Onnx__NodeProto *nodep[MAXN];
  Onnx__ValueInfoProto vis[MAXN];
  Onnx__ValueInfoProto *inp[MAXN], *outp[MAXN];
  Onnx__TypeProto types[MAXN];
  Onnx__TypeProto__Tensor tts[MAXN];
  Onnx__TensorShapeProto shapes[MAXN];
  Onnx__TensorShapeProto__Dimension dims[MAXN][4];
  Onnx__TensorShapeProto__Dimension *dimp[MAXN][4];
  int nvis;
  Onnx__TensorProto inits[MAXN];
  Onnx__TensorProto *initp[MAXN];
  Onnx__AttributeProto attrs[MAXN];
  Onnx__AttributeProto *attrp[MAXN];
  int nattrs;
  Onnx__TensorProto consts[4]; /* the tensors of Constant nodes */
  char *const_outs[4][2];       /* and their output name lists */
  int nconsts;
} mb;

static inline void mb_init(mb *b, int64_t opset) {
  memset(b, 0, sizeof *b);
  onnx__model_proto__init(&b->m);
  onnx__graph_proto__init(&b->g);
  onnx__operator_set_id_proto__init(&b->opset);
  b->opset.domain = "";
  b->opset.has_version = 1;
  b->opset.version = opset;
  b->opsetp[0] = &b->opset;
  b->m.has_ir_version = 1;
  b->m.ir_version = 8;
  b->m.n_opset_import = 1;
  b->m.opset_import = b->opsetp;
  b->m.graph = &b->g;
  b->g.name = "test";
  b->g.node = b->nodep;
  b->g.input = b->inp;
  b->g.output = b->outp;
  b->g.initializer = b->initp;
}

/* A value info; a dim < 0 is the symbolic "N"; ndim < 0: no shape. */
static inline Onnx__ValueInfoProto *mb_vi(mb *b, const char *name, int32_t et,
                                   int ndim, const int64_t *dims) {
  int k = b->nvis++;
  Onnx__ValueInfoProto *vi = &b->vis[k];
  onnx__value_info_proto__init(vi);
  onnx__type_proto__init(&b->types[k]);
  onnx__type_proto__tensor__init(&b->tts[k]);
  vi->name = (char *)name;
  vi->type = &b->types[k];
  b->types[k].value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  b->types[k].tensor_type = &b->tts[k];
  b->tts[k].has_elem_type = 1;
  b->tts[k].elem_type = et;
  if (ndim >= 0) {
    onnx__tensor_shape_proto__init(&b->shapes[k]);
    b->tts[k].shape = &b->shapes[k];
    b->shapes[k].n_dim = (size_t)ndim;
    b->shapes[k].dim = b->dimp[k];
    for (int i = 0; i < ndim; i++) {
      Onnx__TensorShapeProto__Dimension *d = &b->dims[k][i];
      onnx__tensor_shape_proto__dimension__init(d);
      if (dims[i] >= 0) {
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d->dim_value = dims[i];
      } else {
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
        d->dim_param = "N";
      }
      b->dimp[k][i] = d;
    }
  }
  return vi;
}

static inline void mb_input(mb *b, const char *name, int32_t et, int ndim,
                     const int64_t *dims) {
  b->inp[b->g.n_input++] = mb_vi(b, name, et, ndim, dims);
}

static inline void mb_output(mb *b, const char *name, int32_t et, int ndim,
                      const int64_t *dims) {
  b->outp[b->g.n_output++] = mb_vi(b, name, et, ndim, dims);
}

/* A float32 initializer stored in float_data. */
static inline Onnx__TensorProto *mb_init_f32(mb *b, const char *name, int ndim,
                                      int64_t *dims, float *data, size_t n) {
  Onnx__TensorProto *t = &b->inits[b->g.n_initializer];
  onnx__tensor_proto__init(t);
  t->name = (char *)name;
  t->has_data_type = 1;
  t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  t->n_dims = (size_t)ndim;
  t->dims = dims;
  t->n_float_data = n;
  t->float_data = data;
  b->initp[b->g.n_initializer++] = t;
  return t;
}

/* A node; ins/outs are NULL-terminated lists of names. */
static inline Onnx__NodeProto *mb_node(mb *b, const char *op, const char *name,
                                char **ins, char **outs) {
  Onnx__NodeProto *n = &b->nodes[b->g.n_node];
  onnx__node_proto__init(n);
  n->op_type = (char *)op;
  n->name = (char *)name;
  n->input = ins;
  while (ins && ins[n->n_input])
    n->n_input++;
  n->output = outs;
  while (outs && outs[n->n_output])
    n->n_output++;
  b->nodep[b->g.n_node++] = n;
  return n;
}

/* A fresh attribute appended to node n (consecutive calls on one node). */
static inline Onnx__AttributeProto *mb_attr(mb *b, Onnx__NodeProto *n,
                                     const char *name,
                                     Onnx__AttributeProto__AttributeType t) {
  Onnx__AttributeProto *a = &b->attrs[b->nattrs];
  onnx__attribute_proto__init(a);
  a->name = (char *)name;
  a->has_type = 1;
  a->type = t;
  b->attrp[b->nattrs] = a;
  if (!n->attribute)
    n->attribute = &b->attrp[b->nattrs];
  n->n_attribute++;
  b->nattrs++;
  return a;
}

/* Serializes the model (free the result). */
static inline uint8_t *mb_pack(mb *b, size_t *len) {
  *len = onnx__model_proto__get_packed_size(&b->m);
  uint8_t *buf = malloc(*len ? *len : 1);
  assert_non_null(buf);
  assert_int_equal(onnx__model_proto__pack(&b->m, buf), *len);
  return buf;
}

/* Imports b; returns the status and sets *g (NULL on failure). */
static inline tvm_status mb_load(mb *b, const tvm_onnx_options *opts,
                          tvm_graph **g) {
  size_t len;
  uint8_t *buf = mb_pack(b, &len);
  tvm_status st = tvm_onnx_load_buffer_opts(buf, len, "test.onnx", opts, g);
  free(buf);
  if (st)
    assert_null(*g);
  return st;
}

/* Asserts that the diagnostic contains s. */
static inline void assert_diag_has(const char *s) {
  const char *m = tvm_diag_message();
  if (!strstr(m, s))
    fail_msg("diagnostic lacks \"%s\": %s", s, m);
}

#define F ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
#define NAMES(...) ((char *[]){__VA_ARGS__, NULL})

/* An INT attribute holding v on node n. */
static inline void mb_attr_i(mb *b, Onnx__NodeProto *n, const char *name,
                             int64_t v) {
  Onnx__AttributeProto *a =
      mb_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
  a->has_i = 1;
  a->i = v;
}

/* Fills t as a tensor of raw little-endian bytes (not copied: data must
 * outlive the model). */
static inline void mb_tensor_raw(Onnx__TensorProto *t, int32_t dt, int ndim,
                                 int64_t *dims, const void *data,
                                 size_t bytes) {
  onnx__tensor_proto__init(t);
  t->has_data_type = 1;
  t->data_type = dt;
  t->n_dims = (size_t)ndim;
  t->dims = dims;
  t->has_raw_data = 1;
  t->raw_data.len = bytes;
  t->raw_data.data = (uint8_t *)data;
}

/* An initializer of any type from raw little-endian bytes. */
static inline Onnx__TensorProto *mb_init_raw(mb *b, const char *name,
                                             int32_t dt, int ndim,
                                             int64_t *dims, const void *data,
                                             size_t bytes) {
  Onnx__TensorProto *t = &b->inits[b->g.n_initializer];
  mb_tensor_raw(t, dt, ndim, dims, data, bytes);
  t->name = (char *)name;
  b->initp[b->g.n_initializer++] = t;
  return t;
}

/* A Constant node named node whose output out holds raw little-endian
 * bytes (not copied). */
static inline Onnx__NodeProto *mb_const_raw(mb *b, const char *node,
                                            const char *out, int32_t dt,
                                            int ndim, int64_t *dims,
                                            const void *data, size_t bytes) {
  assert_true(b->nconsts < 4);
  char **outs = b->const_outs[b->nconsts];
  Onnx__TensorProto *t = &b->consts[b->nconsts++];
  mb_tensor_raw(t, dt, ndim, dims, data, bytes);
  outs[0] = (char *)out;
  outs[1] = NULL;
  Onnx__NodeProto *n = mb_node(b, "Constant", node, NULL, outs);
  mb_attr(b, n, "value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR)->t = t;
  return n;
}

#endif /* TVM_TEST_ONNX_MB_H */
