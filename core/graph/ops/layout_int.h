/*
 * core/graph/ops/layout_int.h - private to the graph layer: parsed
 * tensor layouts ("NCHW", "NCHW16c", "OIHW16i16o", "CHW16c").
 *
 * A layout names each dimension with a letter: an upper-case letter is a
 * primal axis (its outer part when the axis is blocked), a number and a
 * lower-case letter a block of that axis (its inner part).  Logical
 * index of axis A = outer * block + inner.  At most one block per axis.
 */
#ifndef TVM_GRAPH_LAYOUT_INT_H
#define TVM_GRAPH_LAYOUT_INT_H

#include "tvm/graph.h"

typedef struct op_layout {
  int n;                        /* dimensions */
  char axis[TVM_MAX_DIMS];      /* upper-case letter of each dimension */
  int64_t block[TVM_MAX_DIMS];  /* 0: a primal dimension; else block size */
} op_layout;

/* Parses s into *l; TVM_ERR_INVALID (diagnostic names s) when malformed. */
tvm_status op_layout_parse(const char *s, op_layout *l);
/* Dimension of l holding the primal (outer) part of axis A, or -1. */
int op_layout_primal(const op_layout *l, char A);
/* Block size of axis A in l, 1 when A is not blocked. */
int64_t op_layout_block(const op_layout *l, char A);
/* Block of the C axis of an activation layout "NCHW<b>c" (b), 0 when s
 * is not of that form. */
int64_t op_layout_nchwc_block(const char *s);

#endif /* TVM_GRAPH_LAYOUT_INT_H */
