/*
 * core/graph/builder.c - building graphs: inputs, constants and operator
 * applications.
 *
 * Every call checks its arguments and, for tvm_graph_apply, the operator's
 * input and output counts and its shape inference.  A failure returns NULL,
 * records the first diagnostic in the graph (tvm_graph_status gives it
 * back) and makes every later builder call on that graph fail quietly, so
 * a network is written without checks and tested once at the end.
 *
 * Default names: a node is "<op>_<id>" ("Relu_7"); a value is "<id>",
 * printed "%7".  A named node's first output takes the node's name, the
 * others "<name>.<k>".
 */
#include <stdio.h>
#include <string.h>

#include "graph_int.h"

/* A new INPUT value fed at run time; pushed to g->inputs. */
tvm_gvalue *tvm_graph_input(tvm_graph *g, const char *name, tvm_dtype t,
                            const int64_t *shape, int ndim) {
  if (!g) {
    tvm_diag_set(TVM_ERR_INVALID, "tvm_graph_input: graph is NULL");
    return NULL;
  }
  if (g->failed) return NULL;
  char what[96];
  snprintf(what, sizeof what, "input '%s'", name ? name : "(unnamed)");
  if (graph_check_shape(what, shape, ndim)) {
    graph_fail(g, tvm_diag_status());
    return NULL;
  }
  tvm_gvalue *v = graph_alloc_value(g, TVM_GV_INPUT, name);
  if (!v) {
    graph_fail(g, TVM_ERR_NOMEM);
    return NULL;
  }
  v->dtype = t;
  v->ndim = ndim;
  for (int i = 0; i < ndim; i++) v->shape[i] = shape[i];
  if (tvm_ptrvec_push(&g->values, v) || tvm_ptrvec_push(&g->inputs, v)) {
    graph_fail(g, TVM_ERR_NOMEM);
    return NULL;
  }
  return v;
}

/* A CONST value of zeros (see tvm/graph.h). */
tvm_gvalue *tvm_graph_const_zeros(tvm_graph *g, const char *name, tvm_dtype t,
                                  const int64_t *shape, int ndim) {
  return tvm_graph_const_shared(g, name, t, shape, ndim, NULL, NULL);
}

/* A CONST value holding a big block of another arena (see tvm/graph.h). */
tvm_gvalue *tvm_graph_const_shared(tvm_graph *g, const char *name,
                                   tvm_dtype t, const int64_t *shape,
                                   int ndim, tvm_arena *src,
                                   const void *block) {
  if (!g) {
    tvm_diag_set(TVM_ERR_INVALID, "tvm_graph_const: graph is NULL");
    return NULL;
  }
  if (g->failed) return NULL;
  char what[96];
  snprintf(what, sizeof what, "constant '%s'", name ? name : "(unnamed)");
  if (graph_check_shape(what, shape, ndim)) {
    graph_fail(g, tvm_diag_status());
    return NULL;
  }
  tvm_gvalue *v = graph_new_const_shared(g, name, t, shape, ndim, src, block);
  if (!v) {
    graph_fail(g, tvm_diag_status());
    return NULL;
  }
  return v;
}

/* A CONST value; data (row-major, numel * dtype bytes) is copied. */
tvm_gvalue *tvm_graph_const(tvm_graph *g, const char *name, tvm_dtype t,
                            const int64_t *shape, int ndim, const void *data) {
  if (g && !g->failed && !data) {
    graph_fail(g, tvm_diag_set(TVM_ERR_INVALID, "constant '%s': data is NULL",
                               name ? name : "(unnamed)"));
    return NULL;
  }
  tvm_gvalue *v = tvm_graph_const_zeros(g, name, t, shape, ndim);
  if (v) memcpy(v->data, data, (size_t)tvm_gvalue_bytes(v));
  return v;
}

/* Sets the "unknown operator" diagnostic with the closest registered name. */
static tvm_status unknown_op(const char *op, const char *node) {
  const char *best = NULL;
  size_t bestd = (size_t)-1;
  for (int i = 0; i < tvm_gop_count(); i++) {
    const tvm_gop_def *d = tvm_gop_at(i);
    if (!d || !d->name) continue;
    size_t dist = tvm_edit_distance(op, d->name);
    if (dist < bestd) {
      bestd = dist;
      best = d->name;
    }
  }
  size_t len = strlen(op);
  size_t limit = len / 3 > 2 ? len / 3 : 2;
  if (best && bestd <= limit)
    return tvm_diag_set(TVM_ERR_NOT_FOUND,
                        "unknown operator '%s' (node '%s'); did you mean '%s'?",
                        op, node, best);
  return tvm_diag_set(TVM_ERR_NOT_FOUND,
                      "unknown operator '%s' (node '%s'); no registered "
                      "operator has a similar name",
                      op, node);
}

/* "2 to 3 inputs", "1 input", "any number of outputs" for messages. */
static void count_range(char *buf, size_t cap, int lo, int hi,
                        const char *what) {
  if (lo == hi)
    snprintf(buf, cap, "%d %s%s", lo, what, lo == 1 ? "" : "s");
  else
    snprintf(buf, cap, "%d to %d %ss", lo, hi, what);
}

/* Checks the input and output counts and the required inputs. */
static tvm_status check_arity(const tvm_gop_def *def, const char *node,
                              tvm_gvalue **in, int nin, int nout) {
  char range[64];
  if (nin < def->min_inputs || nin > def->max_inputs) {
    count_range(range, sizeof range, def->min_inputs, def->max_inputs, "input");
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s': %s takes %s, %d given", node, def->name,
                        range, nin);
  }
  if (nin > 0 && !in)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s': input array is NULL for %d inputs", node,
                        nin);
  for (int i = 0; i < def->min_inputs; i++)
    if (!in[i])
      return tvm_diag_set(TVM_ERR_INVALID,
                          "node '%s': input %d of %s is NULL but required; "
                          "the call that made it returned NULL",
                          node, i, def->name);
  if (nout < def->min_outputs || nout > def->max_outputs) {
    count_range(range, sizeof range, def->min_outputs, def->max_outputs,
                "output");
    return tvm_diag_set(TVM_ERR_INVALID, "node '%s': %s has %s, %d asked for",
                        node, def->name, range, nout);
  }
  return TVM_OK;
}

/* After infer: every output has a dtype and a valid, static shape. */
static tvm_status check_outputs(const tvm_gnode *n) {
  for (int k = 0; k < n->noutputs; k++) {
    const tvm_gvalue *v = n->outputs[k];
    if (v->dtype.bits == 0 || v->ndim < 0 || v->ndim > TVM_MAX_DIMS)
      return tvm_diag_set(TVM_ERR_INTERNAL,
                          "node '%s': %s's shape inference left output %d "
                          "without a type",
                          n->name, n->op, k);
    for (int i = 0; i < v->ndim; i++)
      if (v->shape[i] < 0)
        return tvm_diag_set(TVM_ERR_INTERNAL,
                            "node '%s': %s's shape inference gave output %d a "
                            "negative dimension",
                            n->name, n->op, k);
    int64_t bytes;
    char what[160];
    snprintf(what, sizeof what, "node '%s' (%s) output %d", n->name, n->op,
             k);
    if (tvm_shape_bytes(what, v->shape, v->ndim, 16, &bytes))
      return tvm_diag_status();
  }
  return TVM_OK;
}

/* Builds the node: looks the op up, checks counts, copies inputs and
 * attributes into the arena, creates the outputs, runs def->infer and
 * registers node and outputs.  noutputs <= 0 means the op's minimum. */
tvm_gvalue *tvm_graph_apply(tvm_graph *g, const char *op, const char *name,
                            tvm_gvalue **in, int nin, const tvm_gattr *attrs,
                            int nattrs, int noutputs, tvm_gnode **node) {
  if (node) *node = NULL;
  if (!g) {
    tvm_diag_set(TVM_ERR_INVALID, "tvm_graph_apply: graph is NULL");
    return NULL;
  }
  if (g->failed) return NULL;
  if (!op) {
    graph_fail(g, tvm_diag_set(TVM_ERR_INVALID, "tvm_graph_apply: operator name is NULL"));
    return NULL;
  }
  tvm_arena *ar = g->arena;
  uint32_t id = g->next_id++;
  const char *nname = name ? tvm_arena_strdup(ar, name)
                           : tvm_arena_printf(ar, "%s_%u", op, (unsigned)id);
  if (!nname) {
    graph_fail(g, tvm_diag_set(TVM_ERR_NOMEM, "out of memory naming a node"));
    return NULL;
  }
  const tvm_gop_def *def = tvm_gop_find(op);
  if (!def) {
    graph_fail(g, unknown_op(op, nname));
    return NULL;
  }
  if (noutputs <= 0) noutputs = def->min_outputs > 0 ? def->min_outputs : 1;
  tvm_status st = check_arity(def, nname, in, nin, noutputs);
  if (st) {
    graph_fail(g, st);
    return NULL;
  }

  tvm_gnode *n = tvm_arena_alloc(ar, sizeof(tvm_gnode));
  tvm_gvalue **ins = tvm_arena_alloc(ar, sizeof(tvm_gvalue *) * (size_t)(nin ? nin : 1));
  tvm_gvalue **outs = tvm_arena_alloc(ar, sizeof(tvm_gvalue *) * (size_t)noutputs);
  if (!n || !ins || !outs) {
    graph_fail(g, tvm_diag_set(TVM_ERR_NOMEM, "out of memory adding node '%s'", nname));
    return NULL;
  }
  n->id = id;
  n->op = def->name;
  n->def = def;
  n->name = nname;
  n->group = -1;
  n->device = 0;
  for (int i = 0; i < nin; i++) ins[i] = in[i];
  n->inputs = ins;
  n->ninputs = nin;
  st = graph_attrs_copy(ar, nname, attrs, nattrs, &n->attrs);
  if (st) {
    graph_fail(g, st);
    return NULL;
  }
  n->nattrs = nattrs;
  for (int k = 0; k < noutputs; k++) {
    char *vname = NULL;
    if (name)
      vname = k == 0 ? (char *)nname : tvm_arena_printf(ar, "%s.%d", nname, k);
    outs[k] = graph_alloc_value(g, TVM_GV_INTERMEDIATE, vname);
    if ((name && !vname) || !outs[k]) {
      graph_fail(g, tvm_diag_set(TVM_ERR_NOMEM, "out of memory adding node '%s'", nname));
      return NULL;
    }
    outs[k]->producer = n;
    outs[k]->index = k;
  }
  n->outputs = outs;
  n->noutputs = noutputs;

  st = def->infer ? def->infer(g, n) : TVM_OK;
  if (st) {
    /* Operators name the node; make sure the message does. */
    if (!strstr(tvm_diag_message(), nname))
      tvm_diag_prefix(st, "node '%s' (%s): ", nname, def->name);
    graph_fail(g, st);
    return NULL;
  }
  st = check_outputs(n);
  if (!st) st = tvm_ptrvec_push(&g->nodes, n);
  for (int k = 0; k < noutputs && !st; k++) st = tvm_ptrvec_push(&g->values, outs[k]);
  if (st) {
    graph_fail(g, st);
    return NULL;
  }
  if (node) *node = n;
  return outs[0];
}
