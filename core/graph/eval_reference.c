/*
 * core/graph/eval_reference.c - running a graph with the operators' naive
 * C references: the numerical oracle of the passes' tests and of the
 * end-to-end tests.
 *
 * Values live in slots: graph inputs point at the caller's tensors,
 * constants at their arena data, node outputs at heap buffers that are
 * freed once their last reader ran (graph outputs are kept until they are
 * copied to the caller's tensors at the end).
 */
#include <string.h>

#include "graph_int.h"
#include "tvm/graph_passes.h"

typedef struct slot {
  void *data;
  int owned;    /* data is a heap buffer of ours */
  int keep;     /* a graph output: not freed before the end */
  int64_t uses; /* node reads still to come */
} slot;

typedef struct evaluator {
  const tvm_graph *g;
  tvm_ptrmap index; /* value -> slot index + 1 */
  slot *slots;
  size_t nslots, cap;
} evaluator;

/* The slot of v, created (zeroed) when absent; NULL when out of memory. */
static slot *slot_of(evaluator *e, const tvm_gvalue *v) {
  void *p;
  if (tvm_ptrmap_get(&e->index, v, &p)) return &e->slots[(size_t)(uintptr_t)p - 1];
  if (e->nslots == e->cap) {
    size_t ncap = e->cap ? 2 * e->cap : 64;
    slot *ns = tvm_realloc(e->slots, ncap * sizeof(slot));
    if (!ns) return NULL;
    e->slots = ns;
    e->cap = ncap;
  }
  if (tvm_ptrmap_put(&e->index, v, (void *)(uintptr_t)(e->nslots + 1))) return NULL;
  slot *s = &e->slots[e->nslots++];
  memset(s, 0, sizeof *s);
  return s;
}

/* Checks that t is a compact CPU tensor of v's dtype and shape. */
static tvm_status check_tensor(const DLTensor *t, const tvm_gvalue *v,
                               const char *what, size_t i) {
  char want[32], got[32];
  if (!t || !t->data)
    return tvm_diag_set(TVM_ERR_INVALID, "%s %zu (%%%s) is NULL", what, i, v->name);
  if (t->device.device_type != kDLCPU)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s %zu (%%%s) is not a CPU tensor; copy it to the host",
                        what, i, v->name);
  if (!tvm_dtype_eq(t->dtype, v->dtype))
    return tvm_diag_set(TVM_ERR_INVALID, "%s %zu (%%%s) is %s, the graph wants %s",
                        what, i, v->name, tvm_dtype_str(t->dtype, got),
                        tvm_dtype_str(v->dtype, want));
  int same = t->ndim == v->ndim;
  for (int d = 0; same && d < v->ndim; d++) same = t->shape[d] == v->shape[d];
  if (!same)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s %zu (%%%s) has another shape than the graph's", what,
                        i, v->name);
  if (t->strides) {
    int64_t expect = 1;
    for (int d = v->ndim - 1; d >= 0; d--) {
      if (v->shape[d] != 1 && t->strides[d] != expect)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s %zu (%%%s) is not compact row-major", what, i,
                            v->name);
      expect *= v->shape[d];
    }
  }
  return TVM_OK;
}

/* Frees v's buffer when it is ours, no longer read and not an output. */
static void release(evaluator *e, const tvm_gvalue *v) {
  slot *s = slot_of(e, v);
  if (s && s->owned && !s->keep && s->uses <= 0) {
    tvm_free(s->data);
    s->data = NULL;
    s->owned = 0;
  }
}

/* Runs node n: views of its inputs, fresh output buffers, the reference,
 * then the release of inputs read for the last time. */
static tvm_status run_node(evaluator *e, const tvm_gnode *n) {
  if (!n->def || !n->def->reference)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "node '%s': operator %s has no reference implementation",
                        n->name, n->op);
  size_t nt = (size_t)n->ninputs + (size_t)n->noutputs;
  DLTensor *views = tvm_calloc(nt ? nt : 1, sizeof(DLTensor));
  const DLTensor **in = tvm_calloc(n->ninputs ? (size_t)n->ninputs : 1, sizeof(DLTensor *));
  DLTensor **out = tvm_calloc(n->noutputs ? (size_t)n->noutputs : 1, sizeof(DLTensor *));
  tvm_status st = TVM_OK;
  if (!views || !in || !out) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory running node '%s'", n->name);
    goto done;
  }
  for (int i = 0; i < n->ninputs; i++) {
    const tvm_gvalue *v = n->inputs[i];
    if (!v) continue;
    void *data = v->kind == TVM_GV_CONST ? v->data : NULL;
    if (v->kind != TVM_GV_CONST) {
      slot *s = slot_of(e, v);
      data = s ? s->data : NULL;
    }
    if (!data) {
      st = tvm_diag_set(TVM_ERR_INTERNAL,
                        "node '%s' reads %%%s before it is computed (run "
                        "tvm_graph_toposort)",
                        n->name, v->name);
      goto done;
    }
    graph_value_dl(v, data, &views[i]);
    in[i] = &views[i];
  }
  for (int k = 0; k < n->noutputs; k++) {
    const tvm_gvalue *v = n->outputs[k];
    if (!v) continue;
    slot *s = slot_of(e, v);
    int64_t bytes = tvm_gvalue_bytes(v);
    if (!s || !(s->data = tvm_calloc((size_t)(bytes > 0 ? bytes : 1), 1))) {
      st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory for output %d of node '%s'",
                        k, n->name);
      goto done;
    }
    s->owned = 1;
    graph_value_dl(v, s->data, &views[n->ninputs + k]);
    out[k] = &views[n->ninputs + k];
  }
  st = n->def->reference(n, in, out);
  if (st) {
    if (!strstr(tvm_diag_message(), n->name))
      tvm_diag_prefix(st, "node '%s' (%s): ", n->name, n->op);
    goto done;
  }
  for (int i = 0; i < n->ninputs; i++) {
    const tvm_gvalue *v = n->inputs[i];
    if (!v || v->kind != TVM_GV_INTERMEDIATE) continue;
    slot *s = slot_of(e, v);
    if (s) s->uses--;
    release(e, v);
  }
  for (int k = 0; k < n->noutputs; k++)
    if (n->outputs[k]) release(e, n->outputs[k]);
done:
  tvm_free(views);
  tvm_free(in);
  tvm_free(out);
  return st;
}

/* Evaluates g on the caller's inputs into the caller's outputs. */
tvm_status tvm_graph_eval_reference(const tvm_graph *g,
                                    const DLTensor *const *inputs,
                                    DLTensor *const *outputs) {
  if (!g) return tvm_diag_set(TVM_ERR_INVALID, "tvm_graph_eval_reference: graph is NULL");
  if (g->failed) return tvm_graph_status(g);
  if ((g->inputs.len && !inputs) || (g->outputs.len && !outputs))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tvm_graph_eval_reference: the graph has %zu inputs and "
                        "%zu outputs but an array is NULL",
                        g->inputs.len, g->outputs.len);
  evaluator e = {0};
  e.g = g;
  tvm_status st = TVM_OK;
  for (size_t i = 0; i < g->inputs.len && !st; i++) {
    const tvm_gvalue *v = g->inputs.data[i];
    st = check_tensor(inputs[i], v, "input", i);
    if (st) break;
    slot *s = slot_of(&e, v);
    if (!s) st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory evaluating a graph");
    else s->data = (char *)inputs[i]->data + inputs[i]->byte_offset;
  }
  for (size_t i = 0; i < g->outputs.len && !st; i++) {
    const tvm_gvalue *v = g->outputs.data[i];
    st = check_tensor(outputs[i], v, "output", i);
    slot *s = st ? NULL : slot_of(&e, v);
    if (!st && !s) st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory evaluating a graph");
    if (s) s->keep = 1;
  }
  for (size_t i = 0; i < g->nodes.len && !st; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    for (int k = 0; k < n->ninputs && !st; k++) {
      const tvm_gvalue *v = n->inputs[k];
      if (!v || v->kind != TVM_GV_INTERMEDIATE) continue;
      slot *s = slot_of(&e, v);
      if (!s) st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory evaluating a graph");
      else s->uses++;
    }
  }
  for (size_t i = 0; i < g->nodes.len && !st; i++) st = run_node(&e, g->nodes.data[i]);
  for (size_t i = 0; i < g->outputs.len && !st; i++) {
    const tvm_gvalue *v = g->outputs.data[i];
    const void *src = v->kind == TVM_GV_CONST ? v->data : NULL;
    if (!src) {
      slot *s = slot_of(&e, v);
      src = s ? s->data : NULL;
    }
    if (!src) {
      st = tvm_diag_set(TVM_ERR_INTERNAL, "graph output %%%s was never computed",
                        v->name);
      break;
    }
    memcpy((char *)outputs[i]->data + outputs[i]->byte_offset, src,
           (size_t)tvm_gvalue_bytes(v));
  }
  for (size_t i = 0; i < e.nslots; i++)
    if (e.slots[i].owned) tvm_free(e.slots[i].data);
  tvm_free(e.slots);
  tvm_ptrmap_free(&e.index);
  return st;
}
