/*
 * core/frontend/onnx/import.c - ONNX ModelProto -> graph IR.
 *
 * One pass over the model (see tvm/onnx.h for the conventions): the
 * default-domain opset, the initializers (CONST values), the graph inputs
 * that are not initializers (INPUT values, static shapes), the nodes in
 * file order (tvm_graph_apply with converted attributes and "_opset"),
 * the graph outputs (marked, their declared types checked against the
 * inferred ones).  ONNX value names are resolved through a string hash
 * map; every error names the model, the node and the problem.
 *
 * The unpacked protobuf (owned by the importer, freed at the end) lives
 * on the heap through the core allocator; everything the graph keeps is
 * copied into the graph's arena.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_int.h"

/* Records v as the value called name; a name defined twice is an error. */
tvm_status onnx_define_value(importer *im, const char *name, tvm_gvalue *v,
                             const char *by) {
  if (tvm_strmap_get(&im->values, name))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "value '%s' is defined twice (again by %s): ONNX "
                        "graphs give every value one producer",
                        name, by);
  if (strcmp(v->name, name) != 0) {
    const char *copy = tvm_arena_strdup(im->g->arena, name);
    if (!copy)
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory naming '%s'", name);
    v->name = copy;
  }
  return tvm_strmap_put(&im->values, name, v);
}

/* Where onnx_add_const decodes a tensor: a new constant of the graph. */
typedef struct const_place {
  importer *im;
  const char *name, *what;
  const Onnx__TensorProto *t;
  tvm_gvalue *v;
} const_place;

/* The raw bytes of t when the graph can hold them as they are: a big
 * block of the model's protobuf memory no other constant holds, in the
 * host's byte order, of a type stored as it is (bool is normalized). */
static const void *raw_block(importer *im, const Onnx__TensorProto *t,
                             const onnx_data *d) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return NULL;
#endif
  if (!im->mem || !t->has_raw_data || !t->raw_data.len ||
      tvm_dtype_is_bool(d->dtype) || !onnx_pb_mem_take(im->mem, t->raw_data.data))
    return NULL;
  return t->raw_data.data;
}

static void *place_const(void *ctx, const onnx_data *d) {
  const_place *cp = ctx;
  if (d->ndim > TVM_MAX_DIMS) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED,
                 "%s has %d dimensions; at most %d are supported", cp->what,
                 d->ndim, TVM_MAX_DIMS);
    return NULL;
  }
  const void *raw = raw_block(cp->im, cp->t, d);
  cp->v = tvm_graph_const_shared(cp->im->g, cp->name, d->dtype, d->shape,
                                 d->ndim, raw ? cp->im->mem->big : NULL, raw);
  if (!cp->v) tvm_graph_status(cp->im->g); /* leaves its diagnostic */
  return cp->v ? cp->v->data : NULL;
}

/* A CONST value of the graph from a tensor, decoded straight into the
 * constant's storage: a weight's raw bytes are copied out of the protobuf
 * once, or not at all when the graph holds the block protobuf-c put them
 * in (onnx_pb_mem). */
tvm_status onnx_add_const(importer *im, const char *name,
                          const Onnx__TensorProto *t, const char *what,
                          tvm_gvalue **out) {
  const_place cp = {im, name, what, t, NULL};
  onnx_data d;
  tvm_status st = onnx_decode_tensor_to(t, 1, what, place_const, &cp, &d);
  if (st)
    return st;
  onnx_data_free(&d);
  *out = cp.v;
  return TVM_OK;
}

/* ---- model-level parts --------------------------------------------------- */

/* The opset of the default domain ("" or "ai.onnx"), which must be in
 * OPSET_MIN..OPSET_MAX; -1 when the model imports only other domains
 * (its nodes are then refused one by one). */
static tvm_status read_opset(const Onnx__ModelProto *m, int64_t *out) {
  int found = 0;
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = m->opset_import[i];
    const char *d = onnx_str(o->domain);
    if (d[0] && strcmp(d, "ai.onnx") != 0)
      continue;
    *out = o->has_version ? o->version : 0;
    found = 1;
  }
  if (!found) {
    *out = -1; /* only other domains: refused at the first default node */
    return TVM_OK;
  }
  if (*out < OPSET_MIN || *out > OPSET_MAX)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "the model uses opset %lld of the default domain; "
                        "supported opsets are %d to %d (convert the model, "
                        "e.g. with onnx.version_converter)",
                        (long long)*out, OPSET_MIN, OPSET_MAX);
  return TVM_OK;
}

/* Initializers -> CONST values. */
static tvm_status import_initializers(importer *im) {
  const Onnx__GraphProto *gp = im->gp;
  if (gp->n_sparse_initializer > 0)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "the model has %zu sparse initializers, which are not "
                        "supported",
                        gp->n_sparse_initializer);
  for (size_t i = 0; i < gp->n_initializer; i++) {
    const Onnx__TensorProto *t = gp->initializer[i];
    const char *name = onnx_str(t->name);
    if (!name[0])
      return tvm_diag_set(TVM_ERR_INVALID, "initializer #%zu has no name", i);
    char what[300];
    snprintf(what, sizeof what, "initializer '%s'", name);
    tvm_gvalue *v;
    tvm_status st = onnx_add_const(im, name, t, what, &v);
    if (!st)
      st = onnx_define_value(im, name, v, what);
    if (!st)
      st = tvm_strmap_put(&im->inits, name, (void *)t);
    if (st)
      return st;
  }
  return TVM_OK;
}

/* The value of a symbolic dimension from the options, or -1. */
static int64_t bound_dim(const importer *im, const char *param) {
  if (!im->opts || !param)
    return -1;
  for (int i = 0; i < im->opts->ndims; i++)
    if (im->opts->dims[i].name && strcmp(im->opts->dims[i].name, param) == 0)
      return im->opts->dims[i].value;
  return -1;
}

/* The user's shape for graph input name (tvm_onnx_options.shapes), or
 * NULL. */
static const tvm_onnx_shape *given_shape(const importer *im,
                                         const char *name) {
  if (!im->opts || !im->opts->shapes)
    return NULL;
  for (int i = 0; i < im->opts->nshapes; i++)
    if (im->opts->shapes[i].name &&
        strcmp(im->opts->shapes[i].name, name) == 0)
      return &im->opts->shapes[i];
  return NULL;
}

/* The refusal of an unbound symbolic (or unknown) dimension k of graph
 * input name: names the input, the dimension and the --input-shape fix
 * (the declared dims, "N" standing for the unknown ones). */
static tvm_status unbound_dim(const char *kind, const char *name,
                              const Onnx__TensorShapeProto *sp, size_t k,
                              const char *param) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  for (size_t j = 0; j < sp->n_dim; j++) {
    const Onnx__TensorShapeProto__Dimension *d = sp->dim[j];
    if (j)
      tvm_strbuf_append(&b, "x");
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
      tvm_strbuf_printf(&b, "%lld", (long long)d->dim_value);
    else
      tvm_strbuf_append(&b, "N");
  }
  tvm_status st;
  if (param[0])
    st = tvm_diag_set(
        TVM_ERR_UNSUPPORTED,
        "graph %s '%s': dimension %zu is the symbolic '%s'; shapes must be "
        "static: fix it with `tvmc compile --input-shape %s=%s` (N: the size "
        "you want), or bind '%s' with tvm_onnx_options.dims",
        kind, name, k, param, name, b.data ? b.data : "", param);
  else
    st = tvm_diag_set(
        TVM_ERR_UNSUPPORTED,
        "graph %s '%s': dimension %zu is unknown (neither a value nor a "
        "name); shapes must be static: fix it with `tvmc compile "
        "--input-shape %s=%s` (N: the size you want)",
        kind, name, k, name, b.data ? b.data : "");
  tvm_strbuf_free(&b);
  return st;
}

/* Reads the tensor type of a graph input or output: dtype (refused
 * outside float32/int32/int64) and, when shape is non-NULL, the static
 * shape (symbolic dimensions resolved through the options). */
static tvm_status value_type(const importer *im, const Onnx__ValueInfoProto *vi,
                             const char *kind, tvm_dtype *dt, int64_t *shape,
                             int *ndim) {
  const char *name = onnx_str(vi->name);
  const Onnx__TypeProto *tp = vi->type;
  if (!tp || tp->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET)
    return tvm_diag_set(TVM_ERR_INVALID, "graph %s '%s' has no type", kind,
                        name);
  if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "graph %s '%s' is not a dense tensor (sequence, map, "
                        "optional and sparse types are not supported)",
                        kind, name);
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  char what[300];
  snprintf(what, sizeof what, "graph %s '%s'", kind, name);
  tvm_status st =
      onnx_map_dtype(tt->has_elem_type ? tt->elem_type : 0, 0, what, dt);
  if (st || !shape)
    return st;
  if (!tt->shape)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "graph %s '%s' has no shape (not even its rank): give "
                        "the model static input shapes",
                        kind, name);
  const Onnx__TensorShapeProto *sp = tt->shape;
  const tvm_onnx_shape *given =
      strcmp(kind, "input") == 0 ? given_shape(im, name) : NULL;
  if (given && (size_t)given->ndim != sp->n_dim)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "the shape given for graph input '%s' has %d "
                        "dimensions, the model declares %zu",
                        name, given->ndim, sp->n_dim);
  if (sp->n_dim > TVM_MAX_DIMS)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "graph %s '%s' has %zu dimensions; at most %d are "
                        "supported",
                        kind, name, sp->n_dim, TVM_MAX_DIMS);
  *ndim = (int)sp->n_dim;
  for (size_t k = 0; k < sp->n_dim; k++) {
    const Onnx__TensorShapeProto__Dimension *d = sp->dim[k];
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
      if (d->dim_value < 0)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "graph %s '%s': dimension %zu is negative (%lld)",
                            kind, name, k, (long long)d->dim_value);
      shape[k] = d->dim_value;
      if (given && given->dims[k] != d->dim_value)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "the shape given for graph input '%s' has %lld "
                            "in dimension %zu, the model declares %lld",
                            name, (long long)given->dims[k], k,
                            (long long)d->dim_value);
      continue;
    }
    if (given) {
      if (given->dims[k] < 0)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "the shape given for graph input '%s' has a "
                            "negative dimension %zu",
                            name, k);
      shape[k] = given->dims[k];
      continue;
    }
    const char *param =
        d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
            ? onnx_str(d->dim_param)
            : "";
    int64_t v = param[0] ? bound_dim(im, param) : -1;
    if (v < 0)
      return unbound_dim(kind, name, sp, k, param);
    shape[k] = v;
  }
  /* Sizes the rest of the compiler can count in int64 without overflow. */
  int64_t numel = 1;
  for (int k = 0; k < *ndim; k++) {
    if (shape[k] > 0 && numel > ((int64_t)1 << 40) / shape[k])
      return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                          "graph %s '%s' is too large (more than 2^40 "
                          "elements)",
                          kind, name);
    numel *= shape[k];
  }
  return TVM_OK;
}

/* The constant bound to input name by the options, or NULL. */
static const DLTensor *bound_const(const importer *im, const char *name) {
  if (!im->opts || !im->opts->consts)
    return NULL;
  for (int i = 0; i < im->opts->nconsts; i++)
    if (im->opts->consts[i].name &&
        strcmp(im->opts->consts[i].name, name) == 0)
      return im->opts->consts[i].value;
  return NULL;
}

/* Input `name` frozen to the tensor t: t must be a compact CPU tensor of
 * the declared dtype and shape (symbolic dimensions take t's). */
static tvm_status freeze_input(importer *im, const char *name,
                               const DLTensor *t, tvm_dtype dt,
                               const int64_t *shape, int ndim,
                               tvm_gvalue **out) {
  char b1[32], b2[32];
  if (!t->data || t->device.device_type != kDLCPU || t->byte_offset)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "the constant given for graph input '%s' is not a "
                        "CPU tensor with data",
                        name);
  if (!tvm_dtype_eq(t->dtype, dt))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "the constant given for graph input '%s' is %s, the "
                        "model declares %s",
                        name, tvm_dtype_str(t->dtype, b1),
                        tvm_dtype_str(dt, b2));
  int same = t->ndim == ndim;
  for (int k = 0; same && k < ndim; k++)
    same = t->shape[k] == shape[k];
  int64_t stride = 1;
  for (int k = ndim - 1; same && t->strides && k >= 0; k--) {
    if (t->shape[k] != 1 && t->strides[k] != stride)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "the constant given for graph input '%s' is not "
                          "compact row-major",
                          name);
    stride *= t->shape[k];
  }
  if (!same) {
    char s1[200], s2[200];
    return tvm_diag_set(TVM_ERR_INVALID,
                        "the constant given for graph input '%s' has shape "
                        "%s, the model declares %s",
                        name, onnx_shape_str(s1, sizeof s1, t->shape, t->ndim),
                        onnx_shape_str(s2, sizeof s2, shape, ndim));
  }
  *out = tvm_graph_const(im->g, name, dt, shape, ndim, t->data);
  return *out ? TVM_OK : tvm_graph_status(im->g);
}

/* Graph inputs that are not initializers -> INPUT values, in order (or
 * CONST values when the options freeze them). */
static tvm_status import_inputs(importer *im) {
  for (size_t i = 0; i < im->gp->n_input; i++) {
    const Onnx__ValueInfoProto *vi = im->gp->input[i];
    const char *name = onnx_str(vi->name);
    if (!name[0])
      return tvm_diag_set(TVM_ERR_INVALID, "graph input #%zu has no name", i);
    if (tvm_strmap_get(&im->inits, name))
      continue; /* a default value given as initializer: CONST */
    tvm_dtype dt;
    int64_t shape[TVM_MAX_DIMS];
    int ndim = 0;
    const DLTensor *frozen = bound_const(im, name);
    tvm_status st;
    tvm_gvalue *v;
    if (frozen) {
      /* symbolic dimensions take the constant's sizes */
      st = value_type(im, vi, "input", &dt, NULL, NULL);
      const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
      if (!st && tt->shape && (int)tt->shape->n_dim == frozen->ndim &&
          frozen->ndim <= TVM_MAX_DIMS) {
        ndim = frozen->ndim;
        for (int k = 0; k < ndim; k++) {
          const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[k];
          shape[k] =
              d->value_case ==
                      ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                  ? d->dim_value
                  : frozen->shape[k];
        }
      } else if (!st && !tt->shape && frozen->ndim <= TVM_MAX_DIMS) {
        ndim = frozen->ndim;
        for (int k = 0; k < ndim; k++)
          shape[k] = frozen->shape[k];
      } else if (!st) {
        st = tvm_diag_set(TVM_ERR_INVALID,
                          "the constant given for graph input '%s' has %d "
                          "dimensions, the model declares %zu",
                          name, frozen->ndim,
                          tt->shape ? tt->shape->n_dim : 0);
      }
      if (!st)
        st = freeze_input(im, name, frozen, dt, shape, ndim, &v);
      if (st)
        return st;
    } else {
      st = value_type(im, vi, "input", &dt, shape, &ndim);
      if (st)
        return st;
      v = tvm_graph_input(im->g, name, dt, shape, ndim);
      if (!v)
        return tvm_graph_status(im->g);
    }
    char what[300];
    snprintf(what, sizeof what, "graph input '%s'", name);
    if ((st = onnx_define_value(im, name, v, what)))
      return st;
  }
  return TVM_OK;
}

/* Graph outputs: marked in order; their declared dtype must be supported
 * and equal the inferred one, and their declared static dimensions must
 * equal the inferred shape (an import that disagrees with the model's own
 * types would give wrong answers). */
static tvm_status import_outputs(importer *im) {
  for (size_t i = 0; i < im->gp->n_output; i++) {
    const Onnx__ValueInfoProto *vi = im->gp->output[i];
    const char *name = onnx_str(vi->name);
    tvm_gvalue *v = tvm_strmap_get(&im->values, name);
    if (!v)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "graph output '%s' is not produced by any node, "
                          "initializer or graph input",
                          name);
    if (vi->type) {
      tvm_dtype dt;
      tvm_status st = value_type(im, vi, "output", &dt, NULL, NULL);
      if (st)
        return st;
      char b1[32], b2[32];
      if (!tvm_dtype_eq(dt, v->dtype))
        return tvm_diag_set(TVM_ERR_INVALID,
                            "graph output '%s': the model declares %s but "
                            "the operators infer %s",
                            name, tvm_dtype_str(dt, b1),
                            tvm_dtype_str(v->dtype, b2));
      const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
      if (tt && tt->shape) {
        const Onnx__TensorShapeProto *sp = tt->shape;
        int bad = (int)sp->n_dim != v->ndim;
        for (size_t k = 0; !bad && k < sp->n_dim; k++)
          if (sp->dim[k]->value_case ==
                  ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
              sp->dim[k]->dim_value != v->shape[k])
            bad = 1;
        if (bad) {
          char s1[200], s2[200];
          int64_t decl[TVM_MAX_DIMS];
          int nd = sp->n_dim > TVM_MAX_DIMS ? TVM_MAX_DIMS : (int)sp->n_dim;
          for (int k = 0; k < nd; k++)
            decl[k] = sp->dim[k]->value_case ==
                              ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                          ? sp->dim[k]->dim_value
                          : -1;
          return tvm_diag_set(TVM_ERR_INVALID,
                              "graph output '%s': the model declares shape "
                              "%s (-1: symbolic) but the operators infer %s",
                              name, onnx_shape_str(s1, sizeof s1, decl, nd),
                              onnx_shape_str(s2, sizeof s2, v->shape, v->ndim));
        }
      }
    }
    tvm_status st = tvm_graph_mark_output(im->g, v);
    if (st)
      return st;
  }
  if (im->gp->n_output == 0)
    return tvm_diag_set(TVM_ERR_INVALID, "the graph has no outputs");
  return TVM_OK;
}

/* Imports an unpacked model into im->g. */
static tvm_status import_model(importer *im, const Onnx__ModelProto *m) {
  if (!m->graph)
    return tvm_diag_set(TVM_ERR_INVALID, "the model has no graph");
  im->gp = m->graph;
  tvm_status st = read_opset(m, &im->opset);
  if (!st)
    st = import_initializers(im);
  if (!st)
    st = import_inputs(im);
  for (size_t i = 0; !st && i < im->gp->n_node; i++)
    st = onnx_import_node(im, im->gp->node[i], i);
  if (!st)
    st = import_outputs(im);
  if (!st)
    st = tvm_graph_status(im->g);
  return st;
}

/* ---- public entry points ----------------------------------------------------- */

/* Unpacks the ModelProto in data and imports it into a new graph (*out,
 * the caller's); on failure nothing is kept and the diagnostic names the
 * model (and its opset when known). */
tvm_status tvm_onnx_load_buffer_opts(const void *data, size_t size,
                                     const char *name_for_errors,
                                     const tvm_onnx_options *opts,
                                     tvm_graph **out) {
  if (!out)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_onnx_load: out is NULL");
  *out = NULL;
  const char *src = name_for_errors ? name_for_errors : "<buffer>";
  if (!data && size)
    return tvm_diag_set(TVM_ERR_INVALID, "ONNX model '%s': data is NULL",
                        src);
  if (opts && ((opts->ndims > 0 && !opts->dims) ||
               (opts->nconsts > 0 && !opts->consts) ||
               (opts->nshapes > 0 && !opts->shapes)))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "ONNX model '%s': the options give a count but no "
                        "array (dims, consts or shapes)",
                        src);
  for (int i = 0; opts && opts->consts && i < opts->nconsts; i++)
    if (!opts->consts[i].value)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "ONNX model '%s': constant %d of the options "
                          "('%s') has no tensor",
                          src, i, onnx_str(opts->consts[i].name));
  for (int i = 0; opts && opts->shapes && i < opts->nshapes; i++)
    if ((opts->shapes[i].ndim > 0 && !opts->shapes[i].dims) ||
        opts->shapes[i].ndim < 0 || opts->shapes[i].ndim > TVM_MAX_DIMS)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "ONNX model '%s': shape %d of the options ('%s') "
                          "has %d dimensions and %s",
                          src, i, onnx_str(opts->shapes[i].name),
                          opts->shapes[i].ndim,
                          opts->shapes[i].dims ? "dims" : "no dims");
  char what[512];
  snprintf(what, sizeof what, "ONNX model '%s'", src);
  if (data && onnx_check_nesting(data, size, &onnx__model_proto__descriptor,
                                 what) != TVM_OK)
    return tvm_diag_status();
  onnx_pb_mem mem;
  onnx_pb_mem_init(&mem);
  Onnx__ModelProto *m = onnx__model_proto__unpack(
      &mem.a, size, (const uint8_t *)(data ? data : ""));
  if (!m) {
    onnx_pb_mem_free(&mem);
    return tvm_diag_set(TVM_ERR_INVALID,
                        "ONNX model '%s' is not a valid serialized ModelProto "
                        "(protobuf decoding failed: truncated or corrupt "
                        "file?)",
                        src);
  }
  importer im;
  memset(&im, 0, sizeof im);
  im.opts = opts;
  im.mem = &mem;
  tvm_status st = tvm_graph_create(&im.g);
  if (!st)
    st = import_model(&im, m);
  tvm_strmap_free(&im.values);
  tvm_strmap_free(&im.inits);
  tvm_ptrmap_free(&im.why);
  onnx__model_proto__free_unpacked(m, &mem.a);
  onnx_pb_mem_free(&mem); /* the blocks the graph holds stay */
  if (st) {
    if (im.opset > 0)
      tvm_diag_prefix(st, "ONNX model '%s' (opset %lld): ", src,
                      (long long)im.opset);
    else
      tvm_diag_prefix(st, "ONNX model '%s': ", src);
    tvm_graph_free(im.g);
    return st;
  }
  *out = im.g;
  return TVM_OK;
}

/* tvm_onnx_load_buffer_opts with the default options. */
tvm_status tvm_onnx_load_buffer(const void *data, size_t size,
                                const char *name_for_errors, tvm_graph **out) {
  return tvm_onnx_load_buffer_opts(data, size, name_for_errors, NULL, out);
}

/* Maps the file (read if it cannot be mapped) and imports it with
 * options (the path names the model in messages). */
tvm_status tvm_onnx_load_opts(const char *path, const tvm_onnx_options *opts,
                              tvm_graph **out) {
  if (!out)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_onnx_load: out is NULL");
  *out = NULL;
  tvm_file_view f;
  tvm_status st = tvm_map_file(path, "ONNX model", &f);
  if (st)
    return st;
  st = tvm_onnx_load_buffer_opts(f.data, f.size, path, opts, out);
  tvm_unmap_file(&f);
  return st;
}

/* tvm_onnx_load_opts with the default options. */
tvm_status tvm_onnx_load(const char *path, tvm_graph **out) {
  return tvm_onnx_load_opts(path, NULL, out);
}
