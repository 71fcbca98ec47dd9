/*
 * plugin-sdk/tools/backend_ops.h - tvm-backend-ops, every operator on
 * every backend: the cases (backend_ops_cases.c: which inputs and
 * attributes exercise each operator of the graph operator library), the
 * one-node runner (backend_ops_run.c: graph, compile, run, compare with
 * the operator's naive reference) and the TAP driver (backend_ops.c).
 */
#ifndef TVM_BACKEND_OPS_H
#define TVM_BACKEND_OPS_H

#include "tvm/compiler.h"
#include "tvm/graph.h"
#include "tvm/runtime.h"
#include "tvm/target.h"

/* Value generators of an input (a fixed function of the flat index):
 * REAL multiples of 1/8 in [-6, 6) (integers in [-6, 6] for integer
 * dtypes), POS positive, SMALL [-0.5, 0.5) (keeps saturating units
 * sensitive), NZ nonzero integers (divisors), IDX integers in
 * [-range, range) (indexes, exponents, booleans with range 1). */
enum { BO_REAL, BO_POS, BO_SMALL, BO_NZ, BO_IDX };

/* One operator application to run: a textual input and attribute spec
 * (see backend_ops_cases.c for the grammar) and the outputs it has. */
typedef struct bo_case {
  const char *op;
  const char *inputs; /* e.g. "D[1,3,8,8] D[4,3,3,3] #i64(4,-1) _" */
  const char *attrs;  /* e.g. "pads=1,1,1,1 mode=linear alpha=0.5" */
  int noutputs;       /* 0 = the operator's minimum */
} bo_case;

/* The cases of operator def: its entries of the case table, or generic
 * inputs derived from its arity when it has none.  Writes at most cap
 * cases into out (pointing into static storage) and returns how many;
 * *generic says whether they are the generic ones. */
int bo_cases_for(const tvm_gop_def *def, bo_case *out, int cap,
                 int *generic);

/* The dtypes swept for the "D" inputs of a case, and their names. */
extern const tvm_dtype bo_dtypes[];
extern const int bo_ndtypes;

/* Outcome of one case on one target with one dtype. */
typedef enum bo_result {
  BO_PASS,
  BO_FAIL,
  BO_SKIP,       /* the target does not run it: why says what said so */
  BO_UNSUPPORTED /* the operator rejects this dtype (shape inference) */
} bo_result;

#define BO_MAXIN 16
#define BO_MAXOUT 8

/* A case made concrete: the one-node graph (node's outputs marked as
 * graph outputs), the input data (din[i] for input slot i; constants hold
 * their values), the reference's outputs (dref) and room for the
 * target's (dgot), with shapes copied out of the graph. */
typedef struct bo_node {
  tvm_graph *g;
  tvm_gnode *node;
  int nin, nout;
  int ninputs, order[BO_MAXIN]; /* graph inputs: their input slots */
  DLTensor din[BO_MAXIN], dref[BO_MAXOUT], dgot[BO_MAXOUT];
  int64_t shin[BO_MAXIN][TVM_MAX_DIMS], shout[BO_MAXOUT][TVM_MAX_DIMS];
} bo_node;

/* Builds case c with dtype dt for its "D" inputs and runs the reference:
 * BO_PASS with *bn filled (free with bo_node_free), or UNSUPPORTED (shape
 * inference rejects the inputs), SKIP or FAIL with why. */
bo_result bo_node_build(const bo_case *c, tvm_dtype dt, bo_node *bn,
                        char *shape, size_t shape_cap, char *why,
                        size_t why_cap);
void bo_node_free(bo_node *bn);
/* dgot against dref with the dtype's tolerance: PASS, or FAIL with the
 * first differing element in why. */
bo_result bo_node_compare(const bo_node *bn, const char *op, char *why,
                          size_t why_cap);
/* A status meaning "not supported here" rather than a failure. */
int bo_is_unsupported(tvm_status st);

/* Builds the one-node graph of case c with dtype dt for its "D" inputs,
 * compiles it for t (device d opened on it), runs it and compares every
 * output with the operator's reference.  shape receives the printed
 * input shapes for the report; why the reason of a FAIL, SKIP or
 * UNSUPPORTED; *folded says whether no kernel ran (the compiler folded
 * constant inputs or removed the node). */
bo_result bo_run_case(const tvm_target *t, const bo_case *c, tvm_dtype dt,
                      char *shape, size_t shape_cap, char *why,
                      size_t why_cap, int *folded);

/* --model-layouts: compile without the target's layout choice. */
extern int bo_model_layouts;

/* A short dtype name (f32, i64, bool) in buf (16 bytes); returns buf. */
const char *bo_dtype_name(tvm_dtype t, char *buf);

#endif
