/*
 * bench/inputs.h - deterministic inputs for a benchmark's executor.
 */
#ifndef BENCH_INPUTS_H
#define BENCH_INPUTS_H

#include "tvm/runtime.h"

/* Sets every float32 input of e (a plan p executor) to the same fixed
 * pattern in [-0.5, 0.5); TVM_OK or the executor's error. */
tvm_status bench_set_inputs(tvm_executor *e, const tvm_plan *p);

#endif
