/*
 * core/graph/graph.c - graph objects: creation and destruction, the sticky
 * failure state, value allocation, use queries and the small rewiring
 * helpers the passes share (replace uses, remove and bypass nodes).
 */
#include <string.h>

#include "graph_int.h"

/* An empty graph with its own arena in *out.  TVM_ERR_NOMEM when memory
 * runs out (then *out is NULL). */
tvm_status tvm_graph_create(tvm_graph **out) {
  if (!out) return tvm_diag_set(TVM_ERR_INVALID, "tvm_graph_create: out is NULL");
  *out = NULL;
  graph_impl *gi = tvm_calloc(1, sizeof(graph_impl));
  if (!gi) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory creating a graph");
  gi->pub.arena = tvm_arena_create();
  if (!gi->pub.arena) {
    tvm_free(gi);
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory creating a graph arena");
  }
  *out = &gi->pub;
  return TVM_OK;
}

/* Frees the graph, its arena (values, nodes, attributes, constant data)
 * and its vectors.  NULL is ignored. */
void tvm_graph_free(tvm_graph *g) {
  if (!g) return;
  graph_impl *gi = (graph_impl *)g;
  tvm_ptrvec_free(&g->nodes);
  tvm_ptrvec_free(&g->values);
  tvm_ptrvec_free(&g->inputs);
  tvm_ptrvec_free(&g->outputs);
  tvm_arena_destroy(g->arena);
  tvm_free(gi->first_msg);
  tvm_free(gi);
}

/* Keeps the first failure: its status and a copy of the diagnostic. */
tvm_status graph_fail(tvm_graph *g, tvm_status st) {
  graph_impl *gi = (graph_impl *)g;
  if (!g->failed) {
    g->failed = 1;
    gi->first_status = st;
    gi->first_msg = tvm_strdup(tvm_diag_message());
  }
  return st;
}

/* TVM_OK, or the first builder failure, whose message is put back into the
 * calling thread's diagnostic. */
tvm_status tvm_graph_status(const tvm_graph *g) {
  if (!g) return tvm_diag_set(TVM_ERR_INVALID, "graph is NULL");
  if (!g->failed) return TVM_OK;
  const graph_impl *gi = (const graph_impl *)g;
  return tvm_diag_set(gi->first_status, "%s",
                      gi->first_msg ? gi->first_msg : "graph construction failed");
}

/* A fresh value (id from g->next_id) in the arena, not registered yet. */
tvm_gvalue *graph_alloc_value(tvm_graph *g, tvm_gvalue_kind kind,
                              const char *name) {
  tvm_gvalue *v = tvm_arena_alloc(g->arena, sizeof(tvm_gvalue));
  if (!v) {
    tvm_diag_set(TVM_ERR_NOMEM, "out of memory allocating a graph value");
    return NULL;
  }
  v->id = g->next_id++;
  v->device = 0;
  v->kind = kind;
  v->name = name ? tvm_arena_strdup(g->arena, name)
                 : tvm_arena_printf(g->arena, "%u", (unsigned)v->id);
  if (!v->name) {
    tvm_diag_set(TVM_ERR_NOMEM, "out of memory naming a graph value");
    return NULL;
  }
  return v;
}

/* Dimensions must be known and non-negative, at most TVM_MAX_DIMS. */
tvm_status graph_check_shape(const char *what, const int64_t *shape,
                             int ndim) {
  if (ndim < 0 || ndim > TVM_MAX_DIMS)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s has %d dimensions; a graph value has 0 to %d",
                        what, ndim, TVM_MAX_DIMS);
  if (ndim > 0 && !shape)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: shape is NULL for %d dimensions",
                        what, ndim);
  for (int i = 0; i < ndim; i++)
    if (shape[i] < 0)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s: dimension %d is %lld; give every dimension a "
                          "size (>= 0)",
                          what, i, (long long)shape[i]);
  /* room for the widest element (16 bytes), so byte counts fit too */
  int64_t bytes;
  return tvm_shape_bytes(what, shape, ndim, 16, &bytes);
}

/* A registered constant with zeroed data, for passes. */
tvm_gvalue *graph_new_const(tvm_graph *g, const char *name, tvm_dtype t,
                            const int64_t *shape, int ndim) {
  return graph_new_const_shared(g, name, t, shape, ndim, NULL, NULL);
}

/* See graph_int.h. */
tvm_gvalue *graph_new_const_shared(tvm_graph *g, const char *name,
                                   tvm_dtype t, const int64_t *shape,
                                   int ndim, tvm_arena *src,
                                   const void *block) {
  if (graph_check_shape(name ? name : "constant", shape, ndim)) return NULL;
  tvm_gvalue *v = graph_alloc_value(g, TVM_GV_CONST, name);
  if (!v) return NULL;
  v->dtype = t;
  v->ndim = ndim;
  for (int i = 0; i < ndim; i++) v->shape[i] = shape[i];
  int64_t bytes = tvm_gvalue_bytes(v);
  if (src && block)
    v->data = (void *)tvm_arena_share(g->arena, src, block, (size_t)bytes);
  if (!v->data)
    v->data = tvm_arena_alloc(g->arena, (size_t)(bytes > 0 ? bytes : 1));
  if (!v->data) {
    tvm_diag_set(TVM_ERR_NOMEM, "out of memory for constant '%s' (%lld bytes)",
                 v->name, (long long)bytes);
    return NULL;
  }
  if (tvm_ptrvec_push(&g->values, v)) return NULL;
  return v;
}

/* Product of the dimensions (1 for a scalar). */
int64_t tvm_gvalue_numel(const tvm_gvalue *v) {
  if (!v) return 0;
  int64_t n = 1;
  /* shapes are checked on entry (graph_check_shape); saturate anyway */
  for (int i = 0; i < v->ndim; i++)
    if (tvm_mul_overflow_i64(n, v->shape[i], &n)) return INT64_MAX;
  return n;
}

/* Elements times the element size of the dtype (bool: one byte each). */
int64_t tvm_gvalue_bytes(const tvm_gvalue *v) {
  if (!v) return 0;
  int64_t b;
  if (tvm_mul_overflow_i64(tvm_gvalue_numel(v), tvm_dtype_bytes(v->dtype), &b))
    return INT64_MAX;
  return b;
}

/* Appends v to the graph's outputs.  Fails (sticky) on a NULL value. */
tvm_status tvm_graph_mark_output(tvm_graph *g, tvm_gvalue *v) {
  if (!g) return tvm_diag_set(TVM_ERR_INVALID, "tvm_graph_mark_output: graph is NULL");
  if (g->failed) return tvm_graph_status(g);
  if (!v)
    return graph_fail(g, tvm_diag_set(TVM_ERR_INVALID,
                                      "tvm_graph_mark_output: the value is NULL"));
  tvm_status st = tvm_ptrvec_push(&g->outputs, v);
  if (st) return graph_fail(g, st);
  return TVM_OK;
}

/* Every node input and graph output equal to old now points to new_. */
void tvm_graph_replace_uses(tvm_graph *g, tvm_gvalue *old, tvm_gvalue *new_) {
  if (!g || old == new_) return;
  for (size_t i = 0; i < g->nodes.len; i++) {
    tvm_gnode *n = g->nodes.data[i];
    for (int k = 0; k < n->ninputs; k++)
      if (n->inputs[k] == old) n->inputs[k] = new_;
  }
  for (size_t i = 0; i < g->outputs.len; i++)
    if (g->outputs.data[i] == old) g->outputs.data[i] = new_;
}

/* Uses of v by the nodes of g and by the graph's outputs. */
int graph_use_count(const tvm_graph *g, const tvm_gvalue *v) {
  int c = 0;
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    for (int k = 0; k < n->ninputs; k++)
      if (n->inputs[k] == v) c++;
  }
  for (size_t i = 0; i < g->outputs.len; i++)
    if (g->outputs.data[i] == v) c++;
  return c;
}

/* 1 when v is returned by the graph. */
int graph_is_output(const tvm_graph *g, const tvm_gvalue *v) {
  for (size_t i = 0; i < g->outputs.len; i++)
    if (g->outputs.data[i] == v) return 1;
  return 0;
}

/* Filters g->nodes in place, keeping the order of the survivors. */
void graph_remove_nodes(tvm_graph *g, const tvm_ptrmap *dead) {
  size_t j = 0;
  for (size_t i = 0; i < g->nodes.len; i++) {
    void *unused;
    if (!tvm_ptrmap_get(dead, g->nodes.data[i], &unused))
      g->nodes.data[j++] = g->nodes.data[i];
  }
  g->nodes.len = j;
}

/* Drops one node from g->nodes. */
void graph_remove_node(tvm_graph *g, const tvm_gnode *n) {
  size_t j = 0;
  for (size_t i = 0; i < g->nodes.len; i++)
    if (g->nodes.data[i] != n) g->nodes.data[j++] = g->nodes.data[i];
  g->nodes.len = j;
}

/* Forwards n's first input to the users of its first output. */
void graph_bypass_node(tvm_graph *g, tvm_gnode *n) {
  tvm_graph_replace_uses(g, n->outputs[0], n->inputs[0]);
  graph_remove_node(g, n);
}

/* Identity always; Dropout only in inference with its mask unused. */
int graph_is_passthrough(const tvm_graph *g, const tvm_gnode *n) {
  if (n->ninputs < 1 || !n->inputs[0] || n->noutputs < 1 || !n->outputs[0])
    return 0;
  if (strcmp(n->op, "Identity") == 0) return 1;
  if (strcmp(n->op, "Dropout") != 0) return 0;
  if (n->ninputs >= 3 && n->inputs[2]) {
    const tvm_gvalue *tm = n->inputs[2];
    if (tm->kind != TVM_GV_CONST) return 0;
    const unsigned char *d = tm->data;
    for (int64_t i = 0; i < tvm_gvalue_bytes(tm); i++)
      if (d[i]) return 0;
  }
  for (int k = 1; k < n->noutputs; k++)
    if (n->outputs[k] && graph_use_count(g, n->outputs[k])) return 0;
  return 1;
}

/* Fills *out to describe v's dtype and shape over data (no strides). */
void graph_value_dl(const tvm_gvalue *v, void *data, DLTensor *out) {
  memset(out, 0, sizeof(*out));
  out->data = data;
  out->device.device_type = kDLCPU;
  out->device.device_id = 0;
  out->ndim = v->ndim;
  out->dtype = v->dtype;
  out->shape = (int64_t *)v->shape;
  out->strides = NULL;
  out->byte_offset = 0;
}
