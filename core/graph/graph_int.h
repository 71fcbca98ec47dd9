/*
 * core/graph/graph_int.h - private helpers shared by the graph IR files
 * (graph.c, builder.c, attrs.c, printer.c, toposort.c, random.c,
 * eval_reference.c) and the graph passes (passes/).
 *
 * A tvm_graph is allocated as the first member of a graph_impl, which keeps
 * what the public struct has no room for: the first builder failure's
 * status and message (so tvm_graph_status can restore the diagnostic after
 * later calls overwrote it).
 */
#ifndef TVM_GRAPH_INT_H
#define TVM_GRAPH_INT_H

#include <dlpack/dlpack.h>

#include "tvm/graph.h"

typedef struct graph_impl {
  tvm_graph pub;         /* must stay first */
  tvm_status first_status;
  char *first_msg;       /* heap copy of the first failure's diagnostic */
} graph_impl;

/* ---- graph.c ------------------------------------------------------------ */
/* Records the current diagnostic as the graph's failure (first one wins),
 * sets g->failed and returns st. */
tvm_status graph_fail(tvm_graph *g, tvm_status st);
/* A new value of kind with a fresh id, NOT yet registered in g->values;
 * name is copied, or "<id>" when NULL.  NULL (diagnostic set) on OOM. */
tvm_gvalue *graph_alloc_value(tvm_graph *g, tvm_gvalue_kind kind,
                              const char *name);
/* A registered CONST value with zeroed, arena-owned data of the given type
 * and shape, for passes to fill in.  NULL (diagnostic set) on failure. */
tvm_gvalue *graph_new_const(tvm_graph *g, const char *name, tvm_dtype t,
                            const int64_t *shape, int ndim);
/* The same, with block (a big block of arena src, tvm_arena_share) as
 * its data when src gives it: held, not copied, so not zeroed.  Zeroed
 * data of its own otherwise (v->data != block tells). */
tvm_gvalue *graph_new_const_shared(tvm_graph *g, const char *name,
                                   tvm_dtype t, const int64_t *shape,
                                   int ndim, tvm_arena *src,
                                   const void *block);
/* Checks a shape given to the builder ("what" names it in messages). */
tvm_status graph_check_shape(const char *what, const int64_t *shape,
                             int ndim);
/* Number of uses of v: node inputs over g->nodes plus graph outputs. */
int graph_use_count(const tvm_graph *g, const tvm_gvalue *v);
/* 1 when v is one of the graph's outputs. */
int graph_is_output(const tvm_graph *g, const tvm_gvalue *v);
/* Removes from g->nodes every node that is a key of dead (order kept). */
void graph_remove_nodes(tvm_graph *g, const tvm_ptrmap *dead);
/* Removes node n from g->nodes (order kept). */
void graph_remove_node(tvm_graph *g, const tvm_gnode *n);
/* Points every use of n's first output at n's first input and removes n
 * (Identity, inference Dropout). */
void graph_bypass_node(tvm_graph *g, tvm_gnode *n);
/* 1 when n can be dropped in inference with its users reading its first
 * input: Identity, and Dropout whose training_mode input is absent or a
 * constant false and whose mask output is absent or unused. */
int graph_is_passthrough(const tvm_graph *g, const tvm_gnode *n);
/* A DLTensor view (compact row-major, CPU) of v's shape over data. */
void graph_value_dl(const tvm_gvalue *v, void *data, DLTensor *out);

/* ---- attrs.c ------------------------------------------------------------ */
/* Deep copy of n attributes into the arena (names, strings, arrays);
 * validates them and refuses duplicate names (message names the node). */
tvm_status graph_attrs_copy(tvm_arena *a, const char *node,
                            const tvm_gattr *src, int n, tvm_gattr **out);
/* Same attribute sets (order-insensitive, values compared exactly). */
int graph_attrs_equal(const tvm_gnode *a, const tvm_gnode *b);
/* Appends the text of one attribute value ("[2, 2]", "1e-05", "\"SAME\""). */
void graph_attr_value_print(tvm_strbuf *b, const tvm_gattr *at);

#endif /* TVM_GRAPH_INT_H */
