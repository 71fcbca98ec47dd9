/*
 * core/graph/passes/place_devices.c - heterogeneous placement: which
 * device runs each node, and the copies between devices.
 *
 * A target whose plugin declines some nodes (ABI 5 supports) and whose
 * YAML names a fallback target runs a graph on two devices: 0, the
 * target, and 1, the fallback (plugin-sdk/docs/HETEROGENEOUS.md).  The
 * compiler's query decides each node; this pass then makes the graph say
 * where every value lives and moves what crosses:
 *
 *   %x (input)  -> Gemm fc1 [dev 1] -> Relu [dev 1] -> MatMul mm [dev 0]
 *
 * becomes
 *
 *   %x [dev 1] -> Gemm [1] -> Relu [1] -> DeviceCopy %relu.to1 [0]
 *                                      -> MatMul [0]
 *
 * Inputs and constants live on the device of their first consumer (in
 * topological order), intermediates on their producer's.  A consumer on
 * another device reads a DeviceCopy made once per value and device.
 * DeviceCopy is opaque: fuse_ops never fuses across it, so each fused
 * group runs on one device.
 */
#include <stdio.h>
#include <string.h>

#include "../graph_int.h"
#include "tvm/graph_passes.h"

/* The copy of v on device dev, made on first need (copies[v->id]). */
static tvm_status copy_of(tvm_graph *g, tvm_gvalue *v, int dev,
                          tvm_gvalue **copies, int *ncopies,
                          tvm_gvalue **out) {
  if (copies[v->id]) {
    *out = copies[v->id];
    return TVM_OK;
  }
  char name[256];
  snprintf(name, sizeof name, "%s.to%d", v->name, dev);
  tvm_gnode *cn = NULL;
  tvm_gvalue *in[1] = {v};
  tvm_gvalue *c = tvm_graph_apply(g, "DeviceCopy", name, in, 1, NULL, 0, 1,
                                  &cn);
  if (!c)
    return tvm_graph_status(g);
  cn->device = dev;
  c->device = dev;
  copies[v->id] = c;
  (*ncopies)++;
  *out = c;
  return TVM_OK;
}

/* See tvm/graph_passes.h. */
tvm_status tvm_graph_pass_place_devices(tvm_graph *g, tvm_place_query_fn query,
                                        void *ud, int *ncopies) {
  tvm_status st;
  int n = 0;
  if (ncopies)
    *ncopies = 0;
  if (!g || !query)
    return tvm_diag_set(TVM_ERR_INVALID, "place_devices: graph or query NULL");
  if ((st = tvm_graph_toposort(g)))
    return st;
  uint32_t nids = g->next_id + 1;
  /* 1 + device of each input/constant once its first consumer is seen */
  int *home = tvm_calloc(nids, sizeof(int));
  /* the copy of a value on the device it does not live on (two devices) */
  tvm_gvalue **copies = tvm_calloc(nids, sizeof(tvm_gvalue *));
  size_t nnodes = g->nodes.len;
  tvm_gnode **nodes = tvm_malloc(sizeof(tvm_gnode *) * (nnodes + 1));
  if (!home || !copies || !nodes) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "place_devices: out of memory");
    goto out;
  }
  memcpy(nodes, g->nodes.data, sizeof(tvm_gnode *) * nnodes);
  for (size_t i = 0; i < nnodes; i++) {
    tvm_gnode *nd = nodes[i];
    int dev = 0;
    if ((st = query(ud, nd, &dev)))
      goto out;
    if (dev < 0 || dev > 1) {
      st = tvm_diag_set(TVM_ERR_INTERNAL,
                        "place_devices: node '%s' placed on device %d", nd->name,
                        dev);
      goto out;
    }
    nd->device = dev;
    for (int k = 0; k < nd->noutputs; k++)
      if (nd->outputs[k])
        nd->outputs[k]->device = dev;
    for (int k = 0; k < nd->ninputs; k++) {
      tvm_gvalue *v = nd->inputs[k];
      if (v && v->kind != TVM_GV_INTERMEDIATE && !home[v->id]) {
        home[v->id] = 1 + dev;
        v->device = dev;
      }
    }
  }
  /* every read from the other device goes through a copy */
  for (size_t i = 0; i < nnodes; i++) {
    tvm_gnode *nd = nodes[i];
    for (int k = 0; k < nd->ninputs; k++) {
      tvm_gvalue *v = nd->inputs[k], *c = NULL;
      if (!v || v->device == nd->device)
        continue;
      if ((st = copy_of(g, v, nd->device, copies, &n, &c)))
        goto out;
      nd->inputs[k] = c;
    }
  }
  st = tvm_graph_toposort(g);
out:
  tvm_free(home);
  tvm_free(copies);
  tvm_free(nodes);
  if (!st && ncopies)
    *ncopies = n;
  return st;
}
