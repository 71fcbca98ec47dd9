/*
 * core/graph/passes/cse.c - common-subexpression elimination.
 *
 * First, constants with the same dtype, shape and bytes are merged (ONNX
 * exporters repeat shape constants, and rewrites such as BatchNormalization
 * folding compute equal weights twice): their readers read the first one.
 * Only constants something reads are hashed: the graph still holds the
 * weights that folding replaced (dce removes them later), and hashing
 * those too read ResNet-18's 45 MB of weights three times over.
 * Then nodes are visited in topological order.  A node whose operator, inputs,
 * attributes and output types equal those of an earlier kept node is a
 * duplicate: the uses of its outputs are pointed at the kept node's
 * outputs (so later nodes compare equal on the merged inputs) and it is
 * removed.  Candidates are found through an open-addressing table keyed by
 * a hash of the operator name and the input value ids; attributes are
 * compared only on a hash match.
 */
#include <string.h>

#include "../graph_int.h"
#include "tvm/graph_passes.h"

typedef struct entry {
  uint64_t hash;
  void *item; /* a tvm_gnode or a CONST tvm_gvalue; NULL: empty slot */
} entry;

/* FNV-1a over the op name, then the input ids and the output count. */
static uint64_t node_hash(const tvm_gnode *n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char *s = n->op; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  for (int i = 0; i < n->ninputs; i++) {
    uint64_t id = n->inputs[i] ? (uint64_t)n->inputs[i]->id + 1 : 0;
    h = (h ^ id) * 0x100000001b3ULL;
  }
  h = (h ^ (uint64_t)n->noutputs) * 0x100000001b3ULL;
  return h;
}

/* Same dtype, shape and layout. */
static int same_type(const tvm_gvalue *a, const tvm_gvalue *b) {
  if (!a || !b) return a == b;
  if (!tvm_dtype_eq(a->dtype, b->dtype) || a->ndim != b->ndim) return 0;
  for (int d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d]) return 0;
  if (!a->layout || !b->layout) return a->layout == b->layout;
  return strcmp(a->layout, b->layout) == 0;
}

/* a and b compute the same values. */
static int same_node(const tvm_gnode *a, const tvm_gnode *b) {
  if (strcmp(a->op, b->op) != 0 || a->ninputs != b->ninputs ||
      a->noutputs != b->noutputs)
    return 0;
  for (int i = 0; i < a->ninputs; i++)
    if (a->inputs[i] != b->inputs[i]) return 0;
  for (int k = 0; k < a->noutputs; k++)
    if (!same_type(a->outputs[k], b->outputs[k])) return 0;
  return graph_attrs_equal(a, b);
}

/* Words of a constant the hash reads at most (below, all of it). */
#define HASH_WORDS 1024

/* Hash of a constant's type, shape and bytes: every 8-byte word of a
 * small constant, HASH_WORDS evenly spaced words and the tail of a big
 * one.  Equal hashes are confirmed byte by byte (same_const), so reading
 * a sample only costs a comparison where two constants agree on it;
 * hashing all of ResNet-18's 45 MB of weights took 16 ms a compile. */
static uint64_t const_hash(const tvm_gvalue *v) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)v->dtype.code << 32 |
                                        (uint64_t)v->dtype.bits << 16 | v->dtype.lanes);
  for (int d = 0; d < v->ndim; d++) h = (h ^ (uint64_t)v->shape[d]) * 0xff51afd7ed558ccdULL;
  const unsigned char *p = v->data;
  size_t n = (size_t)tvm_gvalue_bytes(v), words = n / 8;
  size_t step = words > HASH_WORDS ? words / HASH_WORDS : 1;
  for (size_t k = 0; k < words; k += step) {
    uint64_t w;
    memcpy(&w, p + k * 8, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
  }
  for (size_t i = words * 8; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h ^ (h >> 32);
}

/* Same dtype, shape and bytes. */
static int same_const(const tvm_gvalue *a, const tvm_gvalue *b) {
  return same_type(a, b) &&
         memcmp(a->data, b->data, (size_t)tvm_gvalue_bytes(a)) == 0;
}

/* Points the readers of every duplicate constant at its first copy. */
static tvm_status merge_constants(tvm_graph *g) {
  tvm_ptrmap read = {0}; /* constants a node reads or the graph returns */
  tvm_status st = TVM_OK;
  for (size_t i = 0; i < g->nodes.len && !st; i++) {
    tvm_gnode *n = g->nodes.data[i];
    for (int k = 0; k < n->ninputs && !st; k++)
      if (n->inputs[k] && n->inputs[k]->kind == TVM_GV_CONST)
        st = tvm_ptrmap_put(&read, n->inputs[k], n);
  }
  for (size_t i = 0; i < g->outputs.len && !st; i++) {
    tvm_gvalue *o = g->outputs.data[i];
    if (o && o->kind == TVM_GV_CONST) st = tvm_ptrmap_put(&read, o, g);
  }
  size_t cap = 16;
  while (cap < 2 * g->values.len) cap *= 2;
  entry *table = st ? NULL : tvm_calloc(cap, sizeof(entry));
  if (!table) {
    tvm_ptrmap_free(&read);
    return st ? st : tvm_diag_set(TVM_ERR_NOMEM, "cse: out of memory");
  }
  for (size_t i = 0; i < g->values.len; i++) {
    tvm_gvalue *v = g->values.data[i];
    void *unused;
    if (v->kind != TVM_GV_CONST || !tvm_ptrmap_get(&read, v, &unused))
      continue;
    uint64_t h = const_hash(v);
    size_t j = (size_t)h & (cap - 1);
    tvm_gvalue *same = NULL;
    for (; table[j].item; j = (j + 1) & (cap - 1))
      if (table[j].hash == h && same_const(table[j].item, v)) {
        same = table[j].item;
        break;
      }
    if (same) {
      tvm_graph_replace_uses(g, v, same);
    } else {
      table[j].hash = h;
      table[j].item = v;
    }
  }
  tvm_free(table);
  tvm_ptrmap_free(&read);
  return TVM_OK;
}

/* Merges duplicate constants, then duplicate nodes into their first
 * occurrence. */
tvm_status tvm_graph_pass_cse(tvm_graph *g) {
  if (!g) return tvm_diag_set(TVM_ERR_INVALID, "cse: graph is NULL");
  tvm_status st = tvm_graph_toposort(g);
  if (!st) st = merge_constants(g);
  if (st) return st;
  size_t cap = 16;
  while (cap < 2 * g->nodes.len) cap *= 2;
  entry *table = tvm_calloc(cap, sizeof(entry));
  if (!table) return tvm_diag_set(TVM_ERR_NOMEM, "cse: out of memory");
  tvm_ptrmap dead = {0};
  for (size_t i = 0; i < g->nodes.len && !st; i++) {
    tvm_gnode *n = g->nodes.data[i];
    uint64_t h = node_hash(n);
    size_t j = (size_t)h & (cap - 1);
    tvm_gnode *same = NULL;
    for (; table[j].item; j = (j + 1) & (cap - 1))
      if (table[j].hash == h && same_node(table[j].item, n)) {
        same = table[j].item;
        break;
      }
    if (!same) {
      table[j].hash = h;
      table[j].item = n;
      continue;
    }
    for (int k = 0; k < n->noutputs; k++)
      if (n->outputs[k]) tvm_graph_replace_uses(g, n->outputs[k], same->outputs[k]);
    st = tvm_ptrmap_put(&dead, n, n);
  }
  if (!st) {
    graph_remove_nodes(g, &dead);
    st = tvm_graph_toposort(g);
  }
  tvm_free(table);
  tvm_ptrmap_free(&dead);
  return st;
}
