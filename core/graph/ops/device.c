/*
 * core/graph/ops/device.c - DeviceCopy: y = x, moved from one device's
 * memory to another's.
 *
 * The compiler's placement (core/graph/passes/place_devices.c) inserts one
 * on every edge whose producer and consumer run on different targets of a
 * heterogeneous compilation (plugin-sdk/docs/HETEROGENEOUS.md); the node's
 * device is the destination.  Its pattern is opaque so that fusion never
 * crosses it, and the compiler turns its group into a copy step of the
 * plan rather than a kernel.  The compute (an identity) and the reference
 * (a byte copy) exist so that it is an ordinary operator everywhere else:
 * the reference evaluator, printers, tests.
 */
#include <string.h>

#include "ops_int.h"

/* y has x's dtype, shape and layout. */
static tvm_status copy_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  const tvm_gvalue *x = n->inputs[0];
  if (!x) return op_fail(n, TVM_ERR_INVALID, "no input to copy");
  tvm_gvalue *y = n->outputs[0];
  y->dtype = x->dtype;
  y->ndim = x->ndim;
  memcpy(y->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  y->layout = x->layout;
  return TVM_OK;
}

/* y[i] = x[i]. */
static tvm_expr *copy_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *x = ud;
  return tvm_tread(c, x, i, x->ndim);
}

static tvm_status copy_compute(tvm_ctx *c, const tvm_gnode *n,
                               tvm_tensor **in, tvm_tensor **out) {
  out[0] = tvm_compute(c, op_name(n), in[0]->shape_c, in[0]->ndim, copy_body,
                       in[0]);
  return out[0] ? TVM_OK : tvm_ctx_status(c);
}

/* The bytes of x, unchanged. */
static tvm_status copy_reference(const tvm_gnode *n, const DLTensor *const *in,
                                 DLTensor *const *out) {
  (void)n;
  int64_t count = 1;
  for (int d = 0; d < in[0]->ndim; d++) count *= in[0]->shape[d];
  /* bool is 1 bit in DLPack and one byte in memory */
  size_t bytes = (size_t)count * (size_t)in[0]->dtype.lanes *
                 (((size_t)in[0]->dtype.bits + 7) / 8);
  if (bytes)
    memcpy((char *)out[0]->data + out[0]->byte_offset,
           (const char *)in[0]->data + in[0]->byte_offset, bytes);
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"DeviceCopy", 1, 1, 1, 1, TVM_PAT_OPAQUE, copy_infer, copy_compute,
     copy_reference,
     "y = x on another device (inserted by heterogeneous placement)"},
};

const ops_family ops_device_family = {defs, 1};
