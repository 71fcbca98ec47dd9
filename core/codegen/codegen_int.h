/*
 * core/codegen/codegen_int.h - state shared by the C-dialect emitter's
 * files: c_source.c (kernels and statements) and c_expr.c (types and
 * expressions).
 */
#ifndef TVM_CODEGEN_INT_H
#define TVM_CODEGEN_INT_H

#include "tvm/codegen_c.h"

/* The emitter's state for one kernel (module-wide fields survive). */
typedef struct codegen_c {
  const tvm_c_dialect *d;
  tvm_ctx *c;          /* scratch ctx: proofs, names */
  tvm_strbuf *out;     /* where the current kernel's body goes */
  tvm_strbuf decls;    /* block-shared arrays, declared at kernel scope */
  tvm_strbuf dyn_decls; /* the same as pointers into one dynamic array */
  const tvm_func *f;
  tvm_ptrmap names;    /* var -> char* (in c's arena) */
  tvm_strmap used;     /* C names taken in this kernel */
  tvm_ptrmap buf_type; /* buffer var -> tvm_dtype* element type */
  tvm_ptrmap hoisted;  /* vector load expr -> char* temporary */
  tvm_bounds bounds;   /* ranges of enclosing loop variables */
  int indent, ntmp;
  tvm_ptrvec thread_vars; /* variables of enclosing thread loops */
  int divergent;          /* depth of thread-dependent conditions */
  uint32_t launch[6];  /* blockIdx.xyz, threadIdx.xyz extents */
  uint64_t shared_bytes; /* static arrays, 16-byte rounded */
  uint64_t dyn_bytes;    /* the dynamic array's layout, aligned */
  int uses_half, uses_bf16, uses_f64, uses_extern;
  tvm_ptrmap frag;     /* buffer var -> const tvm_c_scope* (fragment) */
  tvm_ptrmap scope_of; /* allocated buffer var -> const tvm_c_scope* */
  int in_threadidx;    /* depth of enclosing threadIdx loops */
  tvm_status st;       /* first error */
} codegen_c;

/* Records the first error (later ones are dropped). */
void codegen_fail(codegen_c *e, tvm_status st, const char *fmt, ...)
    TVM_PRINTF(3, 4);
/* C type name of t (vectors: base name + lanes), NULL when the dialect
 * has none (an error is recorded). */
const char *codegen_type(codegen_c *e, tvm_dtype t);
/* Does the dialect name vectors of t's element type? */
int codegen_has_vector(const tvm_c_dialect *d, tvm_dtype t);
/* The C name of variable v (made unique on first use). */
const char *codegen_name(codegen_c *e, const tvm_expr *v);
/* Prints x; lane >= 0 selects one lane of a vector expression. */
void codegen_expr(codegen_c *e, const tvm_expr *x, int lane);
/* The component suffix of lane i: ".x" ... ".w", ".s4" ... */
const char *codegen_lane_suffix(int i);
/* 1 when x >= 0 provably under the loop bounds. */
int codegen_nonneg(codegen_c *e, const tvm_expr *x);
/* The fragment scope of buffer var v, or NULL. */
const tvm_c_scope *codegen_fragment_scope(codegen_c *e, const tvm_expr *v);
/* The prelude helpers (floordiv/floormod) in dialect d. */
void codegen_helpers(const tvm_c_dialect *d, tvm_strbuf *out);

#endif /* TVM_CODEGEN_INT_H */
