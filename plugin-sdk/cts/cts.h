/*
 * plugin-sdk/cts/cts.h - the conformance tests' hand-built loop programs:
 * each is a module of one host function over flat buffers, with inputs
 * filled by the test and a naive C reference for its outputs.
 */
#ifndef TVM_CTS_H
#define TVM_CTS_H

#include "tvm/runtime.h"
#include "tvm/target.h"

typedef struct cts_buf {
  tvm_dtype dtype;
  int64_t n;      /* elements */
  int is_output;
} cts_buf;

typedef struct cts_program {
  const char *name;     /* also the function's name */
  const char *what;     /* one line for the report */
  int nbufs;            /* buffer parameters, first in the signature */
  cts_buf bufs[4];
  int has_n;            /* a trailing int32 scalar parameter `n` */
  int64_t n;            /* its value */
  /* Builds the module (one function) in a fresh ctx; programs declared
   * as tensor expressions are lowered with the target's options o. */
  tvm_module *(*build)(tvm_ctx *c, const struct cts_program *p,
                       const tvm_lower_options *o);
  /* Fills inputs (in[i] for input buffers) and computes the expected
   * outputs into ref[i] (for output buffers). */
  void (*reference)(const struct cts_program *p, void **in, void **ref);
} cts_program;

extern const cts_program cts_programs[];
extern const int cts_nprograms;

#endif
