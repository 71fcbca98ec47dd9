/*
 * core/compiler/limits.c - refusing, at compile time, tensors too large to
 * run: more elements than the generated code can index (it indexes with
 * 32-bit integers) or more bytes than the memory limit (the compile
 * option max_tensor_bytes, else $TVM_MAX_TENSOR_BYTES, else the machine's
 * physical memory).  The message names the node and the figure, so a
 * model with a corrupt or absurd dimension fails here instead of at run
 * time (killed for memory, or a wrapped index writing out of bounds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "compiler_int.h"

/* The byte limit in force for o (see the file comment). */
uint64_t compiler_tensor_byte_limit(const tvm_compile_options *o) {
  if (o && o->max_tensor_bytes) return o->max_tensor_bytes;
  const char *e = getenv("TVM_MAX_TENSOR_BYTES");
  if (e && *e) {
    char *end;
    unsigned long long v = strtoull(e, &end, 10);
    if (*end == 0 && v > 0) return (uint64_t)v;
  }
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  if (pages > 0 && psz > 0) return (uint64_t)pages * (uint64_t)psz;
  return UINT64_MAX;
}

/* Checks every value of g against the limits above. */
tvm_status compiler_check_sizes(const tvm_graph *g,
                                const tvm_compile_options *o) {
  uint64_t limit = compiler_tensor_byte_limit(o);
  for (size_t i = 0; i < g->values.len; i++) {
    const tvm_gvalue *v = g->values.data[i];
    int64_t numel, bytes;
    char what[256];
    if (v->producer)
      snprintf(what, sizeof what, "node '%s' (%s): value '%s'",
               v->producer->name ? v->producer->name : "?", v->producer->op,
               v->name ? v->name : "?");
    else
      snprintf(what, sizeof what, "%s '%s'",
               v->kind == TVM_GV_INPUT ? "input" : "constant",
               v->name ? v->name : "?");
    tvm_status st = tvm_shape_bytes(what, v->shape, v->ndim,
                                    tvm_dtype_bytes(v->dtype), &bytes);
    if (st) return st;
    tvm_shape_numel(what, v->shape, v->ndim, &numel);
    if (numel > INT32_MAX)
      return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                          "%s has %lld elements; the generated code indexes "
                          "tensors with 32-bit integers, so at most %d "
                          "elements per tensor are supported",
                          what, (long long)numel, INT32_MAX);
    if ((uint64_t)bytes > limit)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s needs %lld bytes, more than the memory limit "
                          "of %llu bytes (raise it with TVM_MAX_TENSOR_BYTES "
                          "or the compile option max_tensor_bytes)",
                          what, (long long)bytes, (unsigned long long)limit);
  }
  return TVM_OK;
}
