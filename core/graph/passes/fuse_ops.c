/*
 * core/graph/passes/fuse_ops.c - operator fusion (the dominator-tree
 * algorithm of the TVM paper, section 3) and the collection of the fused
 * groups a compiler turns into kernels.
 *
 * 1. Index the nodes (g->nodes is topological) and their consumer edges.
 *    The pattern of an edge is its consumer's pattern, except that a
 *    broadcast consumer reading an input of its own output shape makes an
 *    elementwise edge (conv -> bias add stays elementwise).
 * 2. Post-dominator tree, built backwards: a node's immediate
 *    post-dominator is the least common ancestor of its consumers in the
 *    tree; the strongest edge pattern met on the way is kept with it.  A
 *    node returned by the graph (or with no consumer) is a tree root.
 * 3. Fusion (union-find over nodes), two phases over the nodes in order:
 *    out-elementwise-fusable anchors first, injective nodes in phase 1, so
 *    an anchor finishes its epilogue before an injective op can claim it.
 *    A fusion of node n into its post-dominator d is committed only when
 *    every node on every path n -> d satisfies the rule's condition; all
 *    of them then join d's group, which keeps groups convex (no path
 *    leaves a group and comes back).
 * 4. Group ids: a topological order of the group DAG (Kahn's algorithm,
 *    groups seeded in the order of their first node).
 *
 * Everything is linear in nodes + edges except the least-common-ancestor
 * walks and the path checks, which stay local in real networks.
 */
#include <string.h>

#include "../graph_int.h"
#include "tvm/graph_passes.h"

#define MAX_GROUP_NODES 64

/* One consumer edge. */
typedef struct edge {
  int to;
  tvm_gop_pattern pat;
} edge;

typedef struct fuser {
  int n;            /* nodes */
  tvm_gnode **node; /* by index */
  int *eoff;        /* CSR: edges of i are edges[eoff[i]..eoff[i+1]) */
  edge *edges;
  unsigned char *extern_ref; /* returned by the graph */
  int *pdom;                 /* immediate post-dominator, -1 = none */
  int *depth;                /* in the post-dominator tree (roots: 1) */
  tvm_gop_pattern *dpat;      /* strongest edge pattern towards pdom */
  int *uf;                   /* union-find parent */
  int *gsize;                /* nodes in the group (roots) */
  tvm_gop_pattern *gpat;      /* group pattern (roots) */
  int *vstamp;               /* nodes visited by the current walk */
  int *rstamp;               /* group roots counted by the current walk */
  int cur;
  int *stack;
} fuser;

static tvm_gop_pattern node_pattern(const tvm_gnode *n) {
  return n->def ? n->def->pattern : TVM_PAT_OPAQUE;
}

static tvm_gop_pattern pmax(tvm_gop_pattern a, tvm_gop_pattern b) {
  return a > b ? a : b;
}

static int same_shape(const tvm_gvalue *a, const tvm_gvalue *b) {
  if (!a || !b || a->ndim != b->ndim)
    return 0;
  for (int d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d])
      return 0;
  return 1;
}

static int find(fuser *f, int i) {
  while (f->uf[i] != i) {
    f->uf[i] = f->uf[f->uf[i]];
    i = f->uf[i];
  }
  return i;
}

/* Builds the node index, the consumer edges and the extern marks. */
static tvm_status build_edges(fuser *f, const tvm_graph *g, int *id2idx) {
  int ne = 0;
  for (int i = 0; i < f->n; i++) {
    tvm_gnode *n = f->node[i];
    for (int k = 0; k < n->ninputs; k++) {
      tvm_gvalue *v = n->inputs[k];
      if (v && v->kind == TVM_GV_INTERMEDIATE && v->producer) {
        int p = id2idx[v->producer->id];
        if (p < 0 || p >= i)
          return tvm_diag_set(TVM_ERR_INTERNAL,
                              "fuse_ops: node '%s' reads '%s' whose producer "
                              "is not before it in the graph",
                              n->name ? n->name : n->op, v->name);
        f->eoff[p + 1]++;
        ne++;
      }
    }
  }
  for (int i = 0; i < f->n; i++)
    f->eoff[i + 1] += f->eoff[i];
  f->edges = tvm_calloc((size_t)ne + 1, sizeof(edge));
  int *fill = tvm_calloc((size_t)f->n + 1, sizeof(int));
  if (!f->edges || !fill) {
    tvm_free(fill);
    return tvm_diag_set(TVM_ERR_NOMEM, "fuse_ops: out of memory");
  }
  for (int i = 0; i < f->n; i++) {
    tvm_gnode *n = f->node[i];
    tvm_gop_pattern cp = node_pattern(n);
    for (int k = 0; k < n->ninputs; k++) {
      tvm_gvalue *v = n->inputs[k];
      if (!(v && v->kind == TVM_GV_INTERMEDIATE && v->producer))
        continue;
      int p = id2idx[v->producer->id];
      edge *e = &f->edges[f->eoff[p] + fill[p]++];
      e->to = i;
      e->pat = cp;
      if (cp == TVM_PAT_BROADCAST && n->noutputs > 0 &&
          same_shape(v, n->outputs[0]))
        e->pat = TVM_PAT_ELEMWISE;
    }
  }
  tvm_free(fill);
  for (size_t i = 0; i < g->outputs.len; i++) {
    tvm_gvalue *v = g->outputs.data[i];
    if (v && v->kind == TVM_GV_INTERMEDIATE && v->producer)
      f->extern_ref[id2idx[v->producer->id]] = 1;
  }
  return TVM_OK;
}

/* Least common ancestor of a and b in the post-dominator tree, folding
 * the patterns of the nodes walked over into *pat; -1 when none. */
static int lca(fuser *f, int a, int b, tvm_gop_pattern *pat) {
  while (a != b) {
    if (a < 0 || b < 0)
      return -1;
    if (f->depth[a] < f->depth[b]) {
      *pat = pmax(*pat, f->dpat[b]);
      b = f->pdom[b];
    } else if (f->depth[b] < f->depth[a]) {
      *pat = pmax(*pat, f->dpat[a]);
      a = f->pdom[a];
    } else {
      *pat = pmax(*pat, pmax(f->dpat[a], f->dpat[b]));
      a = f->pdom[a];
      b = f->pdom[b];
    }
  }
  return a;
}

/* The post-dominator tree, from the last node backwards. */
static void build_postdom(fuser *f) {
  for (int i = f->n - 1; i >= 0; i--) {
    int b = f->eoff[i], e = f->eoff[i + 1];
    f->pdom[i] = -1;
    f->depth[i] = 1;
    f->dpat[i] = TVM_PAT_OPAQUE;
    if (f->extern_ref[i] || b == e)
      continue;
    tvm_gop_pattern pat = f->edges[b].pat;
    int p = f->edges[b].to;
    for (int k = b + 1; k < e && p >= 0; k++) {
      p = lca(f, p, f->edges[k].to, &pat);
      pat = pmax(pat, f->edges[k].pat);
    }
    if (p < 0)
      continue;
    f->pdom[i] = p;
    f->depth[i] = f->depth[p] + 1;
    f->dpat[i] = pat;
  }
}

/* A fusion rule's condition on the group pattern of a node on the path
 * (is_sink: the post-dominator itself). */
typedef int (*fcond_fn)(tvm_gop_pattern kind, int is_sink);

static int cond_out_ewise(tvm_gop_pattern kind, int is_sink) {
  (void)is_sink;
  return kind <= TVM_PAT_BROADCAST;
}

static int cond_injective(tvm_gop_pattern kind, int is_sink) {
  return kind <= TVM_PAT_INJECTIVE || (is_sink && kind == TVM_PAT_REDUCTION);
}

/* Pushes the consumers of i not yet visited in this walk. */
static int push_consumers(fuser *f, int i, int sp) {
  for (int k = f->eoff[i]; k < f->eoff[i + 1]; k++) {
    int j = f->edges[k].to;
    if (f->vstamp[j] == f->cur)
      continue;
    f->vstamp[j] = f->cur;
    f->stack[sp++] = j;
  }
  return sp;
}

/* 1 when every node on every path from src to sink (sink included, src
 * not) has a group pattern satisfying fc and the merged group would hold
 * at most MAX_GROUP_NODES nodes. */
static int check_paths(fuser *f, int src, int sink, fcond_fn fc) {
  int target = find(f, sink), r = find(f, src);
  int total = f->gsize[target], sp;
  f->cur++;
  f->rstamp[target] = f->cur;
  if (r != target) {
    total += f->gsize[r];
    f->rstamp[r] = f->cur;
  }
  f->vstamp[src] = f->cur;
  sp = push_consumers(f, src, 0);
  while (sp > 0) {
    int j = f->stack[--sp];
    if (j == sink) {
      if (!fc(f->gpat[target], 1))
        return 0;
      continue;
    }
    r = find(f, j);
    if (!fc(f->gpat[r], 0))
      return 0;
    if (f->rstamp[r] != f->cur) {
      total += f->gsize[r];
      f->rstamp[r] = f->cur;
    }
    sp = push_consumers(f, j, sp);
  }
  return total <= MAX_GROUP_NODES;
}

/* Merges src and every node on the paths from src to sink into sink's
 * group. */
static void commit_paths(fuser *f, int src, int sink) {
  int target = find(f, sink), sp = 0;
  f->cur++;
  f->vstamp[src] = f->cur;
  f->vstamp[sink] = f->cur;
  f->stack[sp++] = src;
  while (sp > 0) {
    int i = f->stack[--sp];
    int r = find(f, i);
    if (r != target) {
      f->uf[r] = target;
      f->gsize[target] += f->gsize[r];
      f->gpat[target] = pmax(f->gpat[target], f->gpat[r]);
    }
    sp = push_consumers(f, i, sp);
  }
}

/* Tries to fuse node i into its post-dominator in phase `phase`. */
static void try_fuse(fuser *f, int i, int phase) {
  int d = f->pdom[i];
  int r = find(f, i);
  tvm_gop_pattern p = f->gpat[r];
  fcond_fn fc = NULL;
  if (d < 0 || p == TVM_PAT_OPAQUE || find(f, d) == r)
    return;
  if (p == TVM_PAT_OUT_ELEMWISE_FUSABLE) {
    if (phase == 0 && f->dpat[i] == TVM_PAT_ELEMWISE)
      fc = cond_out_ewise;
  } else if (p <= TVM_PAT_BROADCAST) {
    if (f->dpat[i] <= TVM_PAT_INJECTIVE || f->dpat[i] == TVM_PAT_REDUCTION)
      fc = cond_injective;
  } else if (p == TVM_PAT_INJECTIVE) {
    if (phase == 1)
      fc = cond_injective;
  }
  if (fc && check_paths(f, i, d, fc))
    commit_paths(f, i, d);
}

/* Numbers the groups in a topological order of the group DAG and writes
 * node->group. */
static tvm_status number_groups(fuser *f) {
  int n = f->n;
  int *gid = tvm_malloc(sizeof(int) * (size_t)n * 4 + sizeof(int));
  if (!gid)
    return tvm_diag_set(TVM_ERR_NOMEM, "fuse_ops: out of memory");
  int *indeg = gid + n, *queue = gid + 2 * n, *order = gid + 3 * n;
  int ng = 0, qh = 0, qt = 0;
  tvm_status st = TVM_OK;
  for (int i = 0; i < n; i++)
    gid[i] = -1, indeg[i] = 0;
  for (int i = 0; i < n; i++)
    for (int k = f->eoff[i]; k < f->eoff[i + 1]; k++)
      if (find(f, f->edges[k].to) != find(f, i))
        indeg[find(f, f->edges[k].to)]++;
  /* seed roots in first-node order */
  for (int i = 0; i < n; i++) {
    int r = find(f, i);
    if (gid[r] == -1) {
      gid[r] = -2; /* seen */
      order[ng++] = r;
    }
  }
  for (int k = 0; k < ng; k++)
    if (indeg[order[k]] == 0)
      queue[qt++] = order[k];
  int next = 0;
  /* members of each group: walk nodes per popped root (linear overall by
   * visiting the nodes once, grouped through a bucket list) */
  int *head = tvm_malloc(sizeof(int) * (size_t)n * 2 + sizeof(int));
  if (!head) {
    tvm_free(gid);
    return tvm_diag_set(TVM_ERR_NOMEM, "fuse_ops: out of memory");
  }
  int *nxt = head + n;
  for (int i = 0; i < n; i++)
    head[i] = -1;
  for (int i = n - 1; i >= 0; i--) {
    int r = find(f, i);
    nxt[i] = head[r];
    head[r] = i;
  }
  while (qh < qt) {
    int r = queue[qh++];
    gid[r] = next++;
    for (int i = head[r]; i >= 0; i = nxt[i])
      for (int k = f->eoff[i]; k < f->eoff[i + 1]; k++) {
        int t = find(f, f->edges[k].to);
        if (t != r && --indeg[t] == 0)
          queue[qt++] = t;
      }
  }
  if (next != ng)
    st = tvm_diag_set(TVM_ERR_INTERNAL,
                      "fuse_ops: the fused groups form a cycle (%d of %d "
                      "groups ordered); this is a bug in fuse_ops",
                      next, ng);
  else
    for (int i = 0; i < n; i++)
      f->node[i]->group = gid[find(f, i)];
  tvm_free(head);
  tvm_free(gid);
  return st;
}

/* Fuses the nodes of g into groups (see tvm/graph_passes.h) and sets
 * node->group.  Temporary arrays are heap-allocated and freed here. */
tvm_status tvm_graph_pass_fuse_ops(tvm_graph *g) {
  if (!g)
    return tvm_diag_set(TVM_ERR_INVALID, "fuse_ops: graph is NULL");
  tvm_status st = tvm_graph_toposort(g);
  if (st)
    return st;
  fuser f;
  memset(&f, 0, sizeof f);
  f.n = (int)g->nodes.len;
  f.node = (tvm_gnode **)g->nodes.data;
  if (f.n == 0)
    return TVM_OK;
  size_t n = (size_t)f.n;
  int *id2idx = tvm_malloc(sizeof(int) * ((size_t)g->next_id + 1));
  f.eoff = tvm_calloc(n + 1, sizeof(int));
  f.extern_ref = tvm_calloc(n, 1);
  f.pdom = tvm_malloc(sizeof(int) * n);
  f.depth = tvm_malloc(sizeof(int) * n);
  f.dpat = tvm_malloc(sizeof(tvm_gop_pattern) * n);
  f.uf = tvm_malloc(sizeof(int) * n);
  f.gsize = tvm_malloc(sizeof(int) * n);
  f.gpat = tvm_malloc(sizeof(tvm_gop_pattern) * n);
  f.vstamp = tvm_calloc(n, sizeof(int));
  f.rstamp = tvm_calloc(n, sizeof(int));
  f.stack = tvm_malloc(sizeof(int) * n);
  if (!id2idx || !f.eoff || !f.extern_ref || !f.pdom || !f.depth || !f.dpat ||
      !f.uf || !f.gsize || !f.gpat || !f.vstamp || !f.rstamp || !f.stack) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "fuse_ops: out of memory");
    goto out;
  }
  for (uint32_t i = 0; i <= g->next_id; i++)
    id2idx[i] = -1;
  for (int i = 0; i < f.n; i++) {
    id2idx[f.node[i]->id] = i;
    f.uf[i] = i;
    f.gsize[i] = 1;
    f.gpat[i] = node_pattern(f.node[i]);
  }
  if ((st = build_edges(&f, g, id2idx)))
    goto out;
  build_postdom(&f);
  for (int phase = 0; phase < 2; phase++)
    for (int i = 0; i < f.n; i++)
      try_fuse(&f, i, phase);
  st = number_groups(&f);
out:
  tvm_free(id2idx);
  tvm_free(f.eoff);
  tvm_free(f.edges);
  tvm_free(f.extern_ref);
  tvm_free(f.pdom);
  tvm_free(f.depth);
  tvm_free(f.dpat);
  tvm_free(f.uf);
  tvm_free(f.gsize);
  tvm_free(f.gpat);
  tvm_free(f.vstamp);
  tvm_free(f.rstamp);
  tvm_free(f.stack);
  return st;
}

/* ---- group collection ---------------------------------------------------- */

/* Appends p to a vector, tracking failures in *st. */
static void push(tvm_ptrvec *v, void *p, tvm_status *st) {
  if (*st == TVM_OK && tvm_ptrvec_push(v, p) != TVM_OK)
    *st = tvm_diag_set(TVM_ERR_NOMEM, "groups: out of memory");
}

/* Copies a heap vector into the arena. */
static void *arena_copy(tvm_arena *a, const tvm_ptrvec *v) {
  void **p = tvm_arena_alloc(a, sizeof(void *) * (v->len + 1));
  if (p && v->len)
    memcpy(p, v->data, sizeof(void *) * v->len);
  return p;
}

/* Collects the groups of g from node->group (see tvm/graph_passes.h).
 * The result owns an arena; the node and value pointers are g's. */
tvm_status tvm_graph_groups_collect(const tvm_graph *g,
                                    tvm_graph_groups **out) {
  tvm_status st = TVM_OK;
  *out = NULL;
  if (!g)
    return tvm_diag_set(TVM_ERR_INVALID, "groups: graph is NULL");
  int ng = 0;
  for (size_t i = 0; i < g->nodes.len; i++) {
    tvm_gnode *n = g->nodes.data[i];
    if (n->group < 0)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "groups: node '%s' (%s) has no group; run fuse_ops "
                          "or number the nodes first",
                          n->name ? n->name : "", n->op);
    if (n->group >= ng)
      ng = n->group + 1;
  }
  tvm_graph_groups *gr = tvm_calloc(1, sizeof *gr);
  if (!gr)
    return tvm_diag_set(TVM_ERR_NOMEM, "groups: out of memory");
  gr->arena = tvm_arena_create();
  gr->ngroups = ng;
  gr->groups = gr->arena ? tvm_arena_alloc(gr->arena, sizeof(tvm_graph_group) *
                                                          (size_t)(ng + 1))
                         : NULL;
  /* escape[id]: read by another group or returned */
  unsigned char *escape = tvm_calloc((size_t)g->next_id + 1, 1);
  uint32_t *seen = tvm_calloc((size_t)g->next_id + 1, sizeof(uint32_t));
  tvm_ptrvec *nodes = tvm_calloc((size_t)ng + 1, sizeof(tvm_ptrvec));
  if (!gr->groups || !escape || !seen || !nodes) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "groups: out of memory");
    goto out;
  }
  for (size_t i = 0; i < g->outputs.len; i++)
    if (g->outputs.data[i])
      escape[((tvm_gvalue *)g->outputs.data[i])->id] = 1;
  for (size_t i = 0; i < g->nodes.len && !st; i++) {
    tvm_gnode *n = g->nodes.data[i];
    push(&nodes[n->group], n, &st);
    for (int k = 0; k < n->ninputs; k++) {
      tvm_gvalue *v = n->inputs[k];
      if (!v || !v->producer || v->kind != TVM_GV_INTERMEDIATE)
        continue;
      if (v->producer->group == n->group)
        continue;
      if (v->producer->group > n->group) {
        st = tvm_diag_set(TVM_ERR_INVALID,
                          "groups: node '%s' (group %d) reads '%s' of the "
                          "later group %d; group ids must follow the "
                          "dataflow",
                          n->name ? n->name : "", n->group, v->name,
                          v->producer->group);
        break;
      }
      escape[v->id] = 1;
    }
  }
  for (int gi = 0; gi < ng && !st; gi++) {
    tvm_graph_group *G = &gr->groups[gi];
    tvm_ptrvec ins = {0}, outs = {0};
    G->id = gi;
    if (nodes[gi].len == 0) {
      st = tvm_diag_set(TVM_ERR_INVALID, "groups: group %d has no node", gi);
      break;
    }
    for (size_t i = 0; i < nodes[gi].len; i++) {
      tvm_gnode *n = nodes[gi].data[i];
      if (!G->anchor || node_pattern(n) > node_pattern(G->anchor))
        G->anchor = n;
      for (int k = 0; k < n->ninputs; k++) {
        tvm_gvalue *v = n->inputs[k];
        if (!v || (v->producer && v->kind == TVM_GV_INTERMEDIATE &&
                   v->producer->group == gi))
          continue;
        if (seen[v->id] == (uint32_t)gi + 1)
          continue;
        seen[v->id] = (uint32_t)gi + 1;
        push(&ins, v, &st);
      }
      for (int k = 0; k < n->noutputs; k++)
        if (n->outputs[k] && escape[n->outputs[k]->id])
          push(&outs, n->outputs[k], &st);
    }
    G->pattern = node_pattern(G->anchor);
    G->nnodes = (int)nodes[gi].len;
    G->nodes = arena_copy(gr->arena, &nodes[gi]);
    G->ninputs = (int)ins.len;
    G->inputs = arena_copy(gr->arena, &ins);
    G->noutputs = (int)outs.len;
    G->outputs = arena_copy(gr->arena, &outs);
    if (!st && (!G->nodes || !G->inputs || !G->outputs))
      st = tvm_diag_set(TVM_ERR_NOMEM, "groups: out of memory");
    tvm_ptrvec_free(&ins);
    tvm_ptrvec_free(&outs);
  }
out:
  if (nodes)
    for (int gi = 0; gi < ng; gi++)
      tvm_ptrvec_free(&nodes[gi]);
  tvm_free(nodes);
  tvm_free(escape);
  tvm_free(seen);
  if (st) {
    tvm_graph_groups_free(gr);
    return st;
  }
  *out = gr;
  return TVM_OK;
}

void tvm_graph_groups_free(tvm_graph_groups *gr) {
  if (!gr)
    return;
  if (gr->arena)
    tvm_arena_destroy(gr->arena);
  tvm_free(gr);
}
