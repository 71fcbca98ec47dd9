/*
 * core/graph/toposort.c - restoring the graph's invariants after a pass:
 * g->nodes in topological order and g->values holding exactly the values
 * still referenced.
 *
 * The sort is a depth-first post-order over the producers, started from
 * the nodes in their current order with an explicit stack (deep chains do
 * not recurse), so an already sorted list keeps its order and a node moved
 * by a pass lands right after its last producer is placed.
 */
#include "graph_int.h"

enum { UNSEEN = 0, ON_STACK = 1, DONE = 2 };

typedef struct frame {
  tvm_gnode *node;
  int next; /* next input to look at */
} frame;

/* Index+1 of n in the old order (0 when n is not in the graph). */
static size_t index_of(const tvm_ptrmap *pos, const tvm_gnode *n) {
  void *p;
  return tvm_ptrmap_get(pos, n, &p) ? (size_t)(uintptr_t)p : 0;
}

/* Sorts g->nodes; fails on a cycle or on an input whose producer is no
 * longer in the graph (a pass forgot to rewire a use). */
static tvm_status sort_nodes(tvm_graph *g) {
  size_t n = g->nodes.len;
  tvm_status st = TVM_OK;
  tvm_ptrmap pos = {0};
  unsigned char *state = tvm_calloc(n ? n : 1, 1);
  frame *stack = tvm_malloc(sizeof(frame) * (n ? n : 1));
  tvm_gnode **order = tvm_malloc(sizeof(tvm_gnode *) * (n ? n : 1));
  size_t norder = 0;
  if (!state || !stack || !order) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory sorting %zu nodes", n);
    goto done;
  }
  for (size_t i = 0; i < n; i++)
    if ((st = tvm_ptrmap_put(&pos, g->nodes.data[i], (void *)(uintptr_t)(i + 1))))
      goto done;
  for (size_t r = 0; r < n; r++) {
    if (state[r] != UNSEEN) continue;
    size_t sp = 0;
    stack[sp++] = (frame){g->nodes.data[r], 0};
    state[r] = ON_STACK;
    while (sp) {
      frame *f = &stack[sp - 1];
      if (f->next < f->node->ninputs) {
        const tvm_gvalue *v = f->node->inputs[f->next++];
        if (!v || v->kind != TVM_GV_INTERMEDIATE) continue;
        size_t pi = index_of(&pos, v->producer);
        if (!pi) {
          st = tvm_diag_set(TVM_ERR_INTERNAL,
                            "node '%s' reads %%%s, whose producer is no longer "
                            "in the graph",
                            f->node->name, v->name);
          goto done;
        }
        if (state[pi - 1] == ON_STACK) {
          st = tvm_diag_set(TVM_ERR_INVALID,
                            "the graph has a cycle through node '%s'",
                            v->producer->name);
          goto done;
        }
        if (state[pi - 1] == UNSEEN) {
          state[pi - 1] = ON_STACK;
          stack[sp++] = (frame){v->producer, 0};
        }
      } else {
        state[index_of(&pos, f->node) - 1] = DONE;
        order[norder++] = f->node;
        sp--;
      }
    }
  }
  for (size_t i = 0; i < n; i++) g->nodes.data[i] = order[i];
  for (size_t i = 0; i < g->outputs.len; i++) {
    const tvm_gvalue *v = g->outputs.data[i];
    if (v && v->kind == TVM_GV_INTERMEDIATE && !index_of(&pos, v->producer)) {
      st = tvm_diag_set(TVM_ERR_INTERNAL,
                        "graph output %%%s is produced by a node no longer in "
                        "the graph",
                        v->name);
      goto done;
    }
  }
done:
  tvm_ptrmap_free(&pos);
  tvm_free(state);
  tvm_free(stack);
  tvm_free(order);
  return st;
}

/* Marks v referenced and, when g->values lacked it, appends it. */
static tvm_status keep(tvm_ptrmap *live, tvm_ptrvec *extra, tvm_gvalue *v) {
  void *p;
  if (!v || tvm_ptrmap_get(live, v, &p)) return TVM_OK;
  tvm_status st = tvm_ptrmap_put(live, v, v);
  if (!st) st = tvm_ptrvec_push(extra, v);
  return st;
}

/* Rebuilds g->values: graph inputs, node inputs and outputs and graph
 * outputs, in their old order (values a pass created without registering
 * come last, in order of first reference). */
static tvm_status rebuild_values(tvm_graph *g) {
  tvm_ptrmap live = {0};
  tvm_ptrvec refs = {0};
  tvm_status st = TVM_OK;
  for (size_t i = 0; i < g->inputs.len && !st; i++)
    st = keep(&live, &refs, g->inputs.data[i]);
  for (size_t i = 0; i < g->nodes.len && !st; i++) {
    tvm_gnode *n = g->nodes.data[i];
    for (int k = 0; k < n->ninputs && !st; k++) st = keep(&live, &refs, n->inputs[k]);
    for (int k = 0; k < n->noutputs && !st; k++) st = keep(&live, &refs, n->outputs[k]);
  }
  for (size_t i = 0; i < g->outputs.len && !st; i++)
    st = keep(&live, &refs, g->outputs.data[i]);
  if (!st) {
    /* Old order first, then the ones g->values did not have. */
    tvm_ptrmap placed = {0};
    size_t j = 0;
    for (size_t i = 0; i < g->values.len && !st; i++) {
      void *p, *v = g->values.data[i];
      if (tvm_ptrmap_get(&live, v, &p) && !tvm_ptrmap_get(&placed, v, &p)) {
        st = tvm_ptrmap_put(&placed, v, v);
        g->values.data[j++] = v;
      }
    }
    g->values.len = j;
    for (size_t i = 0; i < refs.len && !st; i++) {
      void *p;
      if (!tvm_ptrmap_get(&placed, refs.data[i], &p))
        st = tvm_ptrvec_push(&g->values, refs.data[i]);
    }
    tvm_ptrmap_free(&placed);
  }
  tvm_ptrmap_free(&live);
  tvm_ptrvec_free(&refs);
  return st;
}

/* Sorts the nodes topologically and drops unreferenced values. */
tvm_status tvm_graph_toposort(tvm_graph *g) {
  if (!g) return tvm_diag_set(TVM_ERR_INVALID, "tvm_graph_toposort: graph is NULL");
  if (g->failed) return tvm_graph_status(g);
  tvm_status st = sort_nodes(g);
  if (!st) st = rebuild_values(g);
  return st;
}
