/*
 * core/graph/passes/dce.c - dead-code elimination.
 *
 * A node is live when one of its outputs is a graph output or is read by a
 * live node.  Walking g->nodes backwards (it is topologically sorted, so
 * every reader comes after its producers) marks the live nodes in one
 * pass; the others are removed and tvm_graph_toposort drops the values
 * only they referenced.
 */
#include "../graph_int.h"
#include "tvm/graph_passes.h"

/* Removes the nodes that do not contribute to any graph output. */
tvm_status tvm_graph_pass_dce(tvm_graph *g) {
  if (!g) return tvm_diag_set(TVM_ERR_INVALID, "dce: graph is NULL");
  tvm_status st = tvm_graph_toposort(g);
  if (st) return st;
  tvm_ptrmap needed = {0}; /* values read by live nodes or returned */
  tvm_ptrmap dead = {0};
  for (size_t i = 0; i < g->outputs.len && !st; i++)
    if (g->outputs.data[i]) st = tvm_ptrmap_put(&needed, g->outputs.data[i], g);
  for (size_t i = g->nodes.len; i-- > 0 && !st;) {
    tvm_gnode *n = g->nodes.data[i];
    int live = 0;
    void *p;
    for (int k = 0; k < n->noutputs && !live; k++)
      live = n->outputs[k] && tvm_ptrmap_get(&needed, n->outputs[k], &p);
    if (!live) {
      st = tvm_ptrmap_put(&dead, n, n);
      continue;
    }
    for (int k = 0; k < n->ninputs && !st; k++)
      if (n->inputs[k]) st = tvm_ptrmap_put(&needed, n->inputs[k], g);
  }
  if (!st) {
    graph_remove_nodes(g, &dead);
    st = tvm_graph_toposort(g);
  }
  tvm_ptrmap_free(&needed);
  tvm_ptrmap_free(&dead);
  return st;
}
