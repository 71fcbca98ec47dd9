/*
 * core/graph/passes/plan_memory.c - static storage planning of the
 * activations of a fused graph (TVM's StorageRewrite at graph level).
 *
 * The steps are the groups in id order.  An activation is a group output
 * that is not returned by the graph (graph inputs and constants are never
 * group outputs).  It is live from its producing step to the last step
 * that reads it (its own step when nothing reads it).  Walking the steps:
 *   1. each output of the step takes the free slot whose size is closest
 *      to its own (a smaller slot grows to fit), or a new slot;
 *   2. then the slots of the values whose last reader is this step return
 *      to the free list.
 * Freeing after allocating keeps a kernel from writing the storage it
 * reads.  In a heterogeneous graph (place_devices) each value lives on
 * one device and a slot only ever holds values of one device: the devices'
 * memories are planned apart.  The free list is scanned linearly: it holds at most as many
 * slots as values live at once, a handful in real networks.
 */
#include <string.h>

#include "../graph_int.h"
#include "tvm/graph_passes.h"

/* Index of the free slot of `device` best fitting `bytes` in
 * free_[0..nfree), or -1. */
static int best_fit(const uint64_t *slot_bytes, const int32_t *slot_device,
                    const int32_t *free_, int nfree, uint64_t bytes,
                    int device) {
  int best = -1;
  uint64_t bestd = 0;
  for (int k = 0; k < nfree; k++) {
    if (slot_device[free_[k]] != device)
      continue;
    uint64_t s = slot_bytes[free_[k]];
    uint64_t d = s >= bytes ? s - bytes : bytes - s;
    if (best < 0 || d < bestd) {
      best = k;
      bestd = d;
    }
  }
  return best;
}

/* Plans the storage of g's activations over the steps of gr (see
 * tvm/graph_passes.h).  The result is heap-allocated: free it with
 * tvm_storage_plan_free. */
tvm_status tvm_graph_plan_memory(const tvm_graph *g, const tvm_graph_groups *gr,
                                 int reuse, tvm_storage_plan **out) {
  tvm_status st = TVM_OK;
  *out = NULL;
  if (!g || !gr)
    return tvm_diag_set(TVM_ERR_INVALID, "plan_memory: graph or groups NULL");
  uint32_t nids = g->next_id + 1;
  tvm_storage_plan *p = tvm_calloc(1, sizeof *p);
  int32_t *last = tvm_malloc(sizeof(int32_t) * nids); /* last reader step */
  unsigned char *is_out = tvm_calloc(nids, 1);
  int32_t *free_ = NULL;
  size_t cap = 16;
  if (p) {
    p->nids = nids;
    p->slot = tvm_malloc(sizeof(int32_t) * nids);
    p->slot_bytes = tvm_malloc(sizeof(uint64_t) * cap);
    p->slot_device = tvm_malloc(sizeof(int32_t) * cap);
  }
  free_ = tvm_malloc(sizeof(int32_t) * cap);
  if (!p || !last || !is_out || !p->slot || !p->slot_bytes || !p->slot_device ||
      !free_) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "plan_memory: out of memory");
    goto out;
  }
  for (uint32_t i = 0; i < nids; i++)
    last[i] = -1, p->slot[i] = -1;
  for (size_t i = 0; i < g->outputs.len; i++)
    if (g->outputs.data[i])
      is_out[((tvm_gvalue *)g->outputs.data[i])->id] = 1;
  for (int s = 0; s < gr->ngroups; s++) {
    const tvm_graph_group *G = &gr->groups[s];
    for (int k = 0; k < G->ninputs; k++)
      last[G->inputs[k]->id] = s;
  }
  int nfree = 0;
  for (int s = 0; s < gr->ngroups && !st; s++) {
    const tvm_graph_group *G = &gr->groups[s];
    for (int k = 0; k < G->noutputs; k++) {
      const tvm_gvalue *v = G->outputs[k];
      if (is_out[v->id] || v->kind != TVM_GV_INTERMEDIATE)
        continue;
      uint64_t bytes = (uint64_t)tvm_gvalue_bytes(v);
      p->unplanned_bytes += bytes;
      int f = reuse ? best_fit(p->slot_bytes, p->slot_device, free_, nfree,
                               bytes, v->device)
                    : -1;
      if (f >= 0) {
        int32_t slot = free_[f];
        free_[f] = free_[--nfree];
        if (p->slot_bytes[slot] < bytes)
          p->slot_bytes[slot] = bytes;
        p->slot[v->id] = slot;
      } else {
        if (p->nslots == cap) {
          cap *= 2;
          uint64_t *nb = tvm_realloc(p->slot_bytes, sizeof(uint64_t) * cap);
          if (nb)
            p->slot_bytes = nb;
          int32_t *nf = tvm_realloc(free_, sizeof(int32_t) * cap);
          if (nf)
            free_ = nf;
          int32_t *nd = tvm_realloc(p->slot_device, sizeof(int32_t) * cap);
          if (nd)
            p->slot_device = nd;
          if (!nb || !nf || !nd) {
            st = tvm_diag_set(TVM_ERR_NOMEM, "plan_memory: out of memory");
            break;
          }
        }
        p->slot_bytes[p->nslots] = bytes;
        p->slot_device[p->nslots] = v->device;
        p->slot[v->id] = (int32_t)p->nslots++;
      }
      if (last[v->id] < s)
        last[v->id] = s; /* never read: dies here */
    }
    /* free what this step read (or wrote) for the last time */
    for (int pass = 0; pass < 2; pass++) {
      int cnt = pass ? G->noutputs : G->ninputs;
      for (int k = 0; k < cnt; k++) {
        const tvm_gvalue *v = pass ? G->outputs[k] : G->inputs[k];
        int32_t slot = p->slot[v->id];
        if (slot < 0 || last[v->id] != s)
          continue;
        last[v->id] = -2; /* freed once even when read twice */
        free_[nfree++] = slot;
      }
    }
  }
  for (uint32_t i = 0; i < p->nslots; i++)
    p->planned_bytes += p->slot_bytes[i];
out:
  tvm_free(last);
  tvm_free(is_out);
  tvm_free(free_);
  if (st) {
    tvm_storage_plan_free(p);
    return st;
  }
  *out = p;
  return TVM_OK;
}

void tvm_storage_plan_free(tvm_storage_plan *p) {
  if (!p)
    return;
  tvm_free(p->slot);
  tvm_free(p->slot_bytes);
  tvm_free(p->slot_device);
  tvm_free(p);
}

/* One line per slot: its size and the values it holds, in value order. */
void tvm_storage_plan_print(tvm_strbuf *out, const tvm_graph *g,
                            const tvm_storage_plan *p) {
  if (!out || !g || !p)
    return;
  for (uint32_t s = 0; s < p->nslots; s++) {
    int first = 1;
    tvm_strbuf_printf(out, "slot %u (%llu bytes", s,
                      (unsigned long long)p->slot_bytes[s]);
    if (p->slot_device && p->slot_device[s])
      tvm_strbuf_printf(out, ", device %d", (int)p->slot_device[s]);
    tvm_strbuf_append(out, "):");
    for (size_t i = 0; i < g->values.len; i++) {
      const tvm_gvalue *v = g->values.data[i];
      if (v->id < p->nids && p->slot[v->id] == (int32_t)s) {
        tvm_strbuf_printf(out, first ? " %%%s" : ", %%%s", v->name);
        first = 0;
      }
    }
    tvm_strbuf_append(out, "\n");
  }
  tvm_strbuf_printf(out, "activations: %llu bytes planned, %llu unplanned\n",
                    (unsigned long long)p->planned_bytes,
                    (unsigned long long)p->unplanned_bytes);
}
