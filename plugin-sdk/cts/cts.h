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

/* TAP reporting (cts.c): one check, passed when ok (why says what went
 * wrong otherwise); returns ok.  cts_skip: a check this machine or this
 * plugin cannot run, with the reason. */
int cts_check(int ok, const char *what, const char *why);
void cts_skip(const char *what, const char *why);

/* cts_strategies.c: every registered strategy on its operator's example
 * cases (plugin-sdk/tools/backend_ops_cases.c), scheduled by the
 * strategy itself, lowered, compiled and, with a device d (NULL when
 * the machine cannot run the target), run against the reference; and
 * the alter_layout slot on convolution nodes. */
void cts_check_strategies(const tvm_target *t, tvm_device *d);
void cts_check_alter_layout(const tvm_target *t, tvm_device *d);
/* cts_intrin.c: every declared tensor intrinsic tensorizing a GEMM, and
 * every memory scope (alloc/copy/free and a kernel using it). */
void cts_check_intrinsics(const tvm_target *t, tvm_device *d);
void cts_check_scopes(const tvm_target *t, tvm_device *d);

#endif
