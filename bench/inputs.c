/*
 * bench/inputs.c - deterministic inputs for a benchmark's executor (see
 * inputs.h): a multiplicative hash of the element index, so no two
 * benchmarks of one model feed different data.
 */
#include "inputs.h"

#include <stdlib.h>

tvm_status bench_set_inputs(tvm_executor *e, const tvm_plan *p) {
  for (uint32_t i = 0; i < p->ninputs; i++) {
    const tvm_plan_value *v = &p->values[p->inputs[i]];
    float *x = calloc((size_t)(v->nbytes / 4 + 1), 4);
    if (x == NULL) return TVM_ERR_NOMEM;
    for (uint64_t k = 0; k < v->nbytes / 4; k++)
      x[k] = (float)((k * 2654435761u) % 1000) / 1000.0f - 0.5f;
    DLTensor d = {x, {kDLCPU, 0}, v->ndim, v->dtype, (int64_t *)v->shape,
                  NULL, 0};
    tvm_status st = tvm_executor_set_input(e, i, &d);
    free(x);
    if (st != TVM_OK) return st;
  }
  return TVM_OK;
}
