/*
 * core/frontend/onnx/export.c - graph IR back to an ONNX model file.
 *
 * The inverse of the importer for graphs whose operators are ONNX
 * operators (the zoo's, an imported model's before the compiler's passes
 * rewrote it): one NodeProto per node with its operator name, its node
 * name and its attributes (INT, FLOAT, STRING, INTS, FLOATS; attributes
 * whose name starts with '_' are the importer's own, such as "_opset",
 * and are left out); one initializer per CONST value that a node reads,
 * its data as raw little-endian bytes; the INPUT values as graph inputs
 * and the marked outputs as graph outputs, each with its element type and
 * static shape.  ConstantOfShape's fill value, which the importer turns
 * into a second input "<output>:value", goes back into its `value`
 * tensor attribute.
 *
 * The exported file exists so that peers (ONNX Runtime, Apache TVM) can
 * run exactly the graph tvm-c compiles: bench/peers feeds the zoo models
 * to every framework through it.  Graphs holding operators that are not
 * ONNX operators (Conv_NCHWc, LayoutTransform after alter_layout) are
 * refused, naming the node.
 *
 * Every protobuf-c structure lives in one arena freed at the end; the
 * packed bytes are written to a temporary file renamed over the path, so
 * a failed export never leaves a truncated model behind.
 */
#include <stdio.h>
#include <string.h>

#include "onnx_int.h"
#include "tvm/onnx.h"

/* ONNX element type of a graph dtype, or 0 when ONNX has none. */
static int32_t onnx_elem_type(tvm_dtype t) {
  if (t.lanes != 1) return 0;
  if (tvm_dtype_is_bool(t)) return ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
  if (tvm_dtype_is_float(t)) {
    switch (t.bits) {
    case 16:
      return t.code == kDLBfloat ? ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16
                                 : ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
    case 32: return ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    case 64: return ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE;
    default: return 0;
    }
  }
  int u = tvm_dtype_is_uint(t);
  if (!u && !tvm_dtype_is_int(t)) return 0;
  switch (t.bits) {
  case 8: return u ? ONNX__TENSOR_PROTO__DATA_TYPE__UINT8
                   : ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
  case 16: return u ? ONNX__TENSOR_PROTO__DATA_TYPE__UINT16
                    : ONNX__TENSOR_PROTO__DATA_TYPE__INT16;
  case 32: return u ? ONNX__TENSOR_PROTO__DATA_TYPE__UINT32
                    : ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
  case 64: return u ? ONNX__TENSOR_PROTO__DATA_TYPE__UINT64
                    : ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  default: return 0;
  }
}

/* State of one export. */
typedef struct exporter {
  tvm_arena *a;
  const char *path;
  tvm_ptrmap written; /* CONST values already made initializers */
  tvm_ptrvec inits;   /* Onnx__TensorProto* */
  int oom;
} exporter;

/* Arena allocation that notes failure. */
static void *xalloc(exporter *x, size_t n) {
  void *p = tvm_arena_alloc(x->a, n ? n : 1);
  if (!p) x->oom = 1;
  else memset(p, 0, n ? n : 1);
  return p;
}

/* A TensorProto holding v's data (raw bytes), named name. */
static Onnx__TensorProto *make_tensor(exporter *x, const tvm_gvalue *v,
                                      const char *name) {
  Onnx__TensorProto *t = xalloc(x, sizeof *t);
  if (!t) return NULL;
  Onnx__TensorProto init = ONNX__TENSOR_PROTO__INIT;
  *t = init;
  t->name = (char *)name;
  t->has_data_type = 1;
  t->data_type = onnx_elem_type(v->dtype);
  t->n_dims = (size_t)v->ndim;
  t->dims = xalloc(x, sizeof(int64_t) * (size_t)(v->ndim ? v->ndim : 1));
  if (!t->dims) return NULL;
  for (int d = 0; d < v->ndim; d++) t->dims[d] = v->shape[d];
  t->has_raw_data = 1;
  t->raw_data.len = (size_t)tvm_gvalue_bytes(v);
  t->raw_data.data = v->data;
  return t;
}

/* A ValueInfoProto for a graph input or output. */
static Onnx__ValueInfoProto *make_value_info(exporter *x,
                                             const tvm_gvalue *v) {
  Onnx__ValueInfoProto *vi = xalloc(x, sizeof *vi);
  Onnx__TypeProto *tp = xalloc(x, sizeof *tp);
  Onnx__TypeProto__Tensor *tt = xalloc(x, sizeof *tt);
  Onnx__TensorShapeProto *sp = xalloc(x, sizeof *sp);
  Onnx__TensorShapeProto__Dimension **dims =
      xalloc(x, sizeof *dims * (size_t)(v->ndim ? v->ndim : 1));
  if (!vi || !tp || !tt || !sp || !dims) return NULL;
  Onnx__ValueInfoProto vi0 = ONNX__VALUE_INFO_PROTO__INIT;
  Onnx__TypeProto tp0 = ONNX__TYPE_PROTO__INIT;
  Onnx__TypeProto__Tensor tt0 = ONNX__TYPE_PROTO__TENSOR__INIT;
  Onnx__TensorShapeProto sp0 = ONNX__TENSOR_SHAPE_PROTO__INIT;
  *vi = vi0;
  *tp = tp0;
  *tt = tt0;
  *sp = sp0;
  for (int d = 0; d < v->ndim; d++) {
    Onnx__TensorShapeProto__Dimension d0 =
        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
    dims[d] = xalloc(x, sizeof *dims[d]);
    if (!dims[d]) return NULL;
    *dims[d] = d0;
    dims[d]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    dims[d]->dim_value = v->shape[d];
  }
  sp->n_dim = (size_t)v->ndim;
  sp->dim = dims;
  tt->has_elem_type = 1;
  tt->elem_type = onnx_elem_type(v->dtype);
  tt->shape = sp;
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  vi->name = (char *)v->name;
  vi->type = tp;
  return vi;
}

/* An AttributeProto for a; NULL with *skip set for the importer's own. */
static Onnx__AttributeProto *make_attr(exporter *x, const tvm_gattr *a) {
  Onnx__AttributeProto *p = xalloc(x, sizeof *p);
  if (!p) return NULL;
  Onnx__AttributeProto p0 = ONNX__ATTRIBUTE_PROTO__INIT;
  *p = p0;
  p->name = (char *)a->name;
  p->has_type = 1;
  switch (a->type) {
  case TVM_GATTR_INT:
    p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    p->has_i = 1;
    p->i = a->i;
    break;
  case TVM_GATTR_FLOAT:
    p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    p->has_f = 1;
    p->f = (float)a->f;
    break;
  case TVM_GATTR_STRING:
    p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    p->has_s = 1;
    p->s.data = (uint8_t *)(a->s ? a->s : "");
    p->s.len = a->s ? strlen(a->s) : 0;
    break;
  case TVM_GATTR_INTS:
    p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    p->n_ints = (size_t)a->n;
    p->ints = (int64_t *)a->ints;
    break;
  case TVM_GATTR_FLOATS:
    p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
    p->n_floats = (size_t)a->n;
    p->floats = xalloc(x, sizeof(float) * (size_t)(a->n ? a->n : 1));
    if (!p->floats) return NULL;
    for (int i = 0; i < a->n; i++) p->floats[i] = (float)a->floats[i];
    break;
  }
  return p;
}

/* Makes v an initializer once (v is CONST). */
static tvm_status add_initializer(exporter *x, const tvm_gvalue *v) {
  void *seen = NULL;
  if (tvm_ptrmap_get(&x->written, v, &seen)) return TVM_OK;
  if (!onnx_elem_type(v->dtype)) {
    char b[32];
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s: constant '%s' has dtype %s, which ONNX cannot "
                        "hold",
                        x->path, v->name, tvm_dtype_str(v->dtype, b));
  }
  Onnx__TensorProto *t = make_tensor(x, v, (char *)v->name);
  if (!t || tvm_ptrvec_push(&x->inits, t) ||
      tvm_ptrmap_put(&x->written, v, (void *)1))
    return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", x->path);
  return TVM_OK;
}

/* The NodeProto of n. */
static tvm_status make_node(exporter *x, const tvm_gnode *n,
                            Onnx__NodeProto **out) {
  Onnx__NodeProto *p = xalloc(x, sizeof *p);
  Onnx__NodeProto p0 = ONNX__NODE_PROTO__INIT;
  if (!p) return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", x->path);
  *p = p0;
  int is_cos = !strcmp(n->op, "ConstantOfShape");
  int nin = is_cos && n->ninputs > 1 ? 1 : n->ninputs;
  p->op_type = (char *)n->op;
  p->name = (char *)(n->name ? n->name : "");
  p->input = xalloc(x, sizeof(char *) * (size_t)(nin ? nin : 1));
  p->output = xalloc(x, sizeof(char *) * (size_t)(n->noutputs ? n->noutputs
                                                                : 1));
  p->attribute = xalloc(x, sizeof(Onnx__AttributeProto *) *
                               (size_t)(n->nattrs + 1));
  if (!p->input || !p->output || !p->attribute)
    return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", x->path);
  for (int i = 0; i < nin; i++) {
    const tvm_gvalue *v = n->inputs[i];
    p->input[i] = (char *)(v ? v->name : ""); /* "" = absent optional */
    if (v && v->kind == TVM_GV_CONST) {
      tvm_status st = add_initializer(x, v);
      if (st) return st;
    }
  }
  p->n_input = (size_t)nin;
  for (int k = 0; k < n->noutputs; k++)
    p->output[k] = (char *)n->outputs[k]->name;
  p->n_output = (size_t)n->noutputs;
  for (int i = 0; i < n->nattrs; i++) {
    if (n->attrs[i].name[0] == '_') continue;
    Onnx__AttributeProto *a = make_attr(x, &n->attrs[i]);
    if (!a) return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", x->path);
    p->attribute[p->n_attribute++] = a;
  }
  if (is_cos && n->ninputs > 1 && n->inputs[1]) {
    Onnx__AttributeProto *a = xalloc(x, sizeof *a);
    Onnx__AttributeProto a0 = ONNX__ATTRIBUTE_PROTO__INIT;
    if (!a) return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", x->path);
    *a = a0;
    a->name = "value";
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    a->t = make_tensor(x, n->inputs[1], "value");
    if (!a->t) return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", x->path);
    p->attribute[p->n_attribute++] = a;
  }
  *out = p;
  return TVM_OK;
}

/* Writes g as an ONNX model at path, declaring opset `opset` of the
 * default domain (0 = 17). */
tvm_status tvm_onnx_save(const tvm_graph *g, const char *path, int opset) {
  exporter x = {0};
  tvm_status st = TVM_OK;
  uint8_t *buf = NULL;
  x.path = path;
  x.a = tvm_arena_create();
  if (!x.a) return tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", path);

  Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
  Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
  Onnx__OperatorSetIdProto os = ONNX__OPERATOR_SET_ID_PROTO__INIT;
  Onnx__OperatorSetIdProto *osp = &os;
  os.domain = "";
  os.has_version = 1;
  os.version = opset > 0 ? opset : 17;
  model.has_ir_version = 1;
  model.ir_version = 8;
  model.producer_name = "tvm-c";
  model.n_opset_import = 1;
  model.opset_import = &osp;
  model.graph = &graph;
  graph.name = "tvm_c_graph";

  size_t nn = g->nodes.len;
  graph.node = xalloc(&x, sizeof(Onnx__NodeProto *) * (nn ? nn : 1));
  graph.input = xalloc(&x, sizeof(Onnx__ValueInfoProto *) *
                               (g->inputs.len ? g->inputs.len : 1));
  graph.output = xalloc(&x, sizeof(Onnx__ValueInfoProto *) *
                                (g->outputs.len ? g->outputs.len : 1));
  if (x.oom) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", path);
    goto out;
  }
  for (size_t i = 0; i < nn; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    if (strchr(n->op, '_') || !strcmp(n->op, "LayoutTransform")) {
      st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s: node '%s' is a %s, a tvm-c operator with no "
                        "ONNX counterpart; export the graph before the "
                        "compiler's passes rewrite it",
                        path, n->name ? n->name : "", n->op);
      goto out;
    }
    for (int k = 0; k < n->noutputs; k++)
      if (!onnx_elem_type(n->outputs[k]->dtype)) {
        char b[32];
        st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                          "%s: node '%s' (%s) produces %s, which ONNX "
                          "cannot hold",
                          path, n->name ? n->name : "", n->op,
                          tvm_dtype_str(n->outputs[k]->dtype, b));
        goto out;
      }
    if ((st = make_node(&x, n, &graph.node[i]))) goto out;
  }
  graph.n_node = nn;
  for (size_t i = 0; i < g->inputs.len; i++) {
    graph.input[i] = make_value_info(&x, g->inputs.data[i]);
    if (!graph.input[i]) break;
  }
  graph.n_input = g->inputs.len;
  for (size_t i = 0; i < g->outputs.len; i++) {
    const tvm_gvalue *v = g->outputs.data[i];
    if (v->kind == TVM_GV_CONST && (st = add_initializer(&x, v))) goto out;
    graph.output[i] = make_value_info(&x, v);
    if (!graph.output[i]) break;
  }
  graph.n_output = g->outputs.len;
  if (x.oom) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", path);
    goto out;
  }
  graph.n_initializer = x.inits.len;
  graph.initializer = (Onnx__TensorProto **)x.inits.data;

  size_t len = protobuf_c_message_get_packed_size(&model.base);
  buf = tvm_malloc(len ? len : 1);
  if (!buf) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory (%zu bytes)", path,
                      len);
    goto out;
  }
  protobuf_c_message_pack(&model.base, buf);
  {
    const void *parts[1] = {buf};
    st = tvm_write_file(path, "ONNX model", parts, &len, 1, 0666);
  }
out:
  tvm_free(buf);
  tvm_ptrvec_free(&x.inits);
  tvm_ptrmap_free(&x.written);
  tvm_arena_destroy(x.a);
  return st;
}
