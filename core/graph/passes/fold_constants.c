/*
 * core/graph/passes/fold_constants.c - compile-time evaluation.
 *
 * Nodes are visited in topological order, so a folded output makes its
 * readers foldable in the same walk.  A node is handled when:
 *  - it is Identity or an inference Dropout: bypassed (readers read its
 *    input), whatever its input is;
 *  - it is Shape or Size: its output is built from the input's static
 *    shape (Shape honours its start/end attributes), whatever the
 *    input's kind;
 *  - every present input is CONST (a node without inputs, like Constant,
 *    included) and the operator has a reference: the reference runs on the
 *    constant data into arena buffers.
 * The node's output values then become CONST in place (same objects and
 * names, so graph outputs and readers need no rewiring) and the node is
 * removed.  A reference answering TVM_ERR_UNSUPPORTED leaves its node
 * alone; any other failure fails the pass.
 */
#include <stdio.h>
#include <string.h>

#include "../graph_int.h"
#include "tvm/graph_passes.h"

/* Turns output v into a constant holding data. */
static void make_const(tvm_gvalue *v, void *data) {
  v->kind = TVM_GV_CONST;
  v->producer = NULL;
  v->index = 0;
  v->data = data;
}

/* Folds Shape: 1 when done, 0 when the node does not match its inferred
 * output (then it stays), <0 on failure. */
static int fold_shape(tvm_graph *g, tvm_gnode *n) {
  const tvm_gvalue *x = n->inputs[0];
  tvm_gvalue *y = n->outputs[0];
  int64_t r = x->ndim;
  int64_t start = tvm_gnode_int(n, "start", 0), end = tvm_gnode_int(n, "end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = start < 0 ? 0 : start > r ? r : start;
  end = end < 0 ? 0 : end > r ? r : end;
  int64_t len = end > start ? end - start : 0;
  if (!tvm_dtype_eq(y->dtype, TVM_I64) || y->ndim != 1 || y->shape[0] != len)
    return 0;
  int64_t *d = tvm_arena_alloc(g->arena, sizeof(int64_t) * (size_t)(len ? len : 1));
  if (!d) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory folding node '%s'", n->name);
  for (int64_t i = 0; i < len; i++) d[i] = x->shape[start + i];
  make_const(y, d);
  return 1;
}

/* Folds Size (the element count of a statically shaped input): 1 when
 * done, 0 when the node does not match its inferred output, <0 on
 * failure. */
static int fold_size(tvm_graph *g, tvm_gnode *n) {
  tvm_gvalue *y = n->outputs[0];
  if (!tvm_dtype_eq(y->dtype, TVM_I64) || tvm_gvalue_numel(y) != 1)
    return 0;
  int64_t *d = tvm_arena_alloc(g->arena, sizeof(int64_t));
  if (!d) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory folding node '%s'", n->name);
  *d = tvm_gvalue_numel(n->inputs[0]);
  make_const(y, d);
  return 1;
}

/* Runs n's reference on its constant inputs: 1 when folded, 0 when the
 * reference does not support the case, <0 on failure. */
static int fold_eval(tvm_graph *g, tvm_gnode *n) {
  size_t nio = (size_t)n->ninputs + (size_t)n->noutputs;
  DLTensor *views = tvm_calloc(nio ? nio : 1, sizeof(DLTensor));
  const DLTensor **in = tvm_calloc(nio ? nio : 1, sizeof(DLTensor *));
  DLTensor **out = tvm_calloc(nio ? nio : 1, sizeof(DLTensor *));
  void **bufs = tvm_calloc(nio ? nio : 1, sizeof(void *));
  int rc = 1;
  if (!views || !in || !out || !bufs) {
    rc = tvm_diag_set(TVM_ERR_NOMEM, "out of memory folding node '%s'", n->name);
    goto done;
  }
  for (int i = 0; i < n->ninputs; i++) {
    tvm_gvalue *v = n->inputs[i];
    if (!v) continue;
    graph_value_dl(v, v->data, &views[i]);
    in[i] = &views[i];
  }
  for (int k = 0; k < n->noutputs; k++) {
    tvm_gvalue *v = n->outputs[k];
    if (!v) continue;
    int64_t bytes = tvm_gvalue_bytes(v);
    bufs[k] = tvm_arena_alloc(g->arena, (size_t)(bytes > 0 ? bytes : 1));
    if (!bufs[k]) {
      rc = tvm_diag_set(TVM_ERR_NOMEM, "out of memory folding node '%s' (%lld bytes)",
                        n->name, (long long)bytes);
      goto done;
    }
    graph_value_dl(v, bufs[k], &views[n->ninputs + k]);
    out[k] = &views[n->ninputs + k];
  }
  tvm_status st = n->def->reference(n, in, out);
  if (st == TVM_ERR_UNSUPPORTED) {
    tvm_log(TVM_LOG_DEBUG, "fold_constants: node '%s' left alone: %s", n->name,
            tvm_diag_message());
    rc = 0; /* the message stays for tvm_graph_fold_node's caller */
  } else if (st) {
    if (!strstr(tvm_diag_message(), n->name))
      tvm_diag_prefix(st, "fold_constants: node '%s' (%s): ", n->name, n->op);
    rc = st;
  } else {
    for (int k = 0; k < n->noutputs; k++)
      if (n->outputs[k]) make_const(n->outputs[k], bufs[k]);
  }
done:
  tvm_free(views);
  tvm_free(in);
  tvm_free(out);
  tvm_free(bufs);
  return rc;
}

/* 1 when every present input is a constant. */
static int all_const(const tvm_gnode *n) {
  for (int i = 0; i < n->ninputs; i++)
    if (n->inputs[i] && n->inputs[i]->kind != TVM_GV_CONST) return 0;
  return 1;
}

/* Total output elements of n. */
static int64_t out_elems(const tvm_gnode *n) {
  int64_t t = 0;
  for (int k = 0; k < n->noutputs; k++)
    if (n->outputs[k]) t += tvm_gvalue_numel(n->outputs[k]);
  return t;
}

/* Folds n alone (see tvm/graph_passes.h): the shared step of the pass and
 * of importers that fold shape computations as they build. */
tvm_status tvm_graph_fold_node(tvm_graph *g, tvm_gnode *n, int64_t max_elems,
                               int *folded, char *why, size_t cap) {
  *folded = 0;
  if (why && cap) why[0] = 0;
  int done = 0;
  if (strcmp(n->op, "Shape") == 0 && n->ninputs == 1 && n->inputs[0] &&
      n->noutputs == 1) {
    done = fold_shape(g, n);
  } else if (strcmp(n->op, "Size") == 0 && n->ninputs == 1 && n->inputs[0] &&
             n->noutputs == 1) {
    done = fold_size(g, n);
  } else if (!all_const(n)) {
    for (int i = 0; why && i < n->ninputs; i++) {
      const tvm_gvalue *v = n->inputs[i];
      if (!v || v->kind == TVM_GV_CONST) continue;
      if (v->kind == TVM_GV_INPUT)
        snprintf(why, cap, "its input %d reads graph input '%s', whose "
                 "values are known only at run time", i, v->name);
      else
        snprintf(why, cap, "its input %d ('%s') comes from node '%s' (%s), "
                 "which could not be computed", i, v->name,
                 v->producer ? v->producer->name : "?",
                 v->producer ? v->producer->op : "?");
      break;
    }
  } else if (!n->def || !n->def->reference) {
    if (why) snprintf(why, cap, "operator %s has no reference to evaluate it",
                      n->op);
  } else if (max_elems >= 0 && out_elems(n) > max_elems) {
    if (why) snprintf(why, cap, "its outputs hold %lld elements, more than "
                      "the %lld folded while importing (fold_constants folds "
                      "it later)", (long long)out_elems(n), (long long)max_elems);
  } else {
    done = fold_eval(g, n);
    if (done == 0 && why)
      snprintf(why, cap, "its reference cannot evaluate it: %s",
               tvm_diag_message()[0] ? tvm_diag_message() : "unsupported case");
    if (done == 0) tvm_diag_clear();
  }
  if (done < 0) return done;
  if (done) {
    graph_remove_node(g, n);
    *folded = 1;
  }
  return TVM_OK;
}

/* Evaluates what can be known at compile time (see the top of the file). */
tvm_status tvm_graph_pass_fold_constants(tvm_graph *g) {
  if (!g) return tvm_diag_set(TVM_ERR_INVALID, "fold_constants: graph is NULL");
  tvm_status st = tvm_graph_toposort(g);
  if (st) return st;
  tvm_ptrmap dead = {0};
  for (size_t i = 0; i < g->nodes.len; i++) {
    tvm_gnode *n = g->nodes.data[i];
    int done = 0;
    if (graph_is_passthrough(g, n)) {
      tvm_graph_replace_uses(g, n->outputs[0], n->inputs[0]);
      done = 1;
    } else if (strcmp(n->op, "Shape") == 0 && n->ninputs == 1 && n->inputs[0] &&
               n->noutputs == 1) {
      done = fold_shape(g, n);
    } else if (strcmp(n->op, "Size") == 0 && n->ninputs == 1 && n->inputs[0] &&
               n->noutputs == 1) {
      done = fold_size(g, n);
    } else if (all_const(n) && n->def && n->def->reference) {
      done = fold_eval(g, n);
      if (done == 0) tvm_diag_clear();
    }
    if (done < 0) {
      st = done;
      break;
    }
    if (done && (st = tvm_ptrmap_put(&dead, n, n))) break;
  }
  if (!st) {
    graph_remove_nodes(g, &dead);
    st = tvm_graph_toposort(g);
  }
  tvm_ptrmap_free(&dead);
  return st;
}
