/*
 * core/lower/lower_int.h - helpers shared by bound inference, schedule_ops,
 * tensorize and storage_flatten (private to core/lower).
 *
 * Conventions used across these files:
 *  - Every leaf iteration variable of a stage becomes one loop
 *    `for (iv->var, 0, extent)`: loops always start at 0.  The semantic
 *    range of an axis (ranges map, tvm_iter_var* -> tvm_range*) may have a
 *    non-zero, even symbolic, min; the value of a root axis is recovered
 *    from the loop variables (lower_iv_values), adding that min.
 *  - Symbolic mins produced by bound inference are expressions of loop
 *    variables of enclosing stages (a compute_at producer's region moves
 *    with its consumer's loops).
 *  - schedule_ops marks the nest that produces a tensor with
 *    `attr [tensor] produce = "name"`; storage_flatten turns the marker into
 *    `attr coproc_scope = queue` when the tensor's memory scope is filled by
 *    a hardware queue (tvm_scope_info.queue >= 0) and drops it otherwise.
 */
#ifndef TVM_LOWER_INT_H
#define TVM_LOWER_INT_H

#include "tvm/lower.h"

/* Private attribute keys between schedule_ops and storage_flatten; their
 * node is a tvm_tensor* (the printer shows only the value). */
#define LOWER_ATTR_PRODUCE "produce"
/* value: tvm_tuple(dim, factor, offset); becomes padded strides. */
#define LOWER_ATTR_ALIGN "realize_storage_align"
/* value: 1; becomes `attr [buffer var] double_buffer_scope = 1`. */
#define LOWER_ATTR_DOUBLE_BUFFER "realize_double_buffer"
/* node: buffer var, value: 1.  Set by inject_double_buffer around the
 * fetch of the next iteration's copy of a double-buffered buffer; read by
 * thread_sync (those writes conflict with nothing in this iteration). */
#define LOWER_ATTR_DB_WRITE "double_buffer_write"
/* node: tvm_tensor*, value: the handle variable of a parameter buffer. */
#define LOWER_ATTR_BUFFER_BIND "buffer_bind"
/* node: lower_bind*, value: tvm_tuple(view data var, region start...).
 * A tensor intrinsic's buffer view of a
 * region of a tensor, resolved by storage_flatten. */
#define LOWER_ATTR_BUFFER_BIND_SCOPE "buffer_bind_scope"

/* What bound inference and schedule_ops know about one stage. */
typedef struct lower_stage {
  tvm_stage *st;
  tvm_operation *op;
  tvm_tensor *out;      /* st->op->output */
  int is_compute;       /* not a placeholder */
  int is_reduce;        /* body is a TVM_REDUCE */
  tvm_reduce_op rop;
  tvm_expr *value;      /* body or reduce source, inlined stages expanded */
  tvm_expr *cond;       /* reduce condition or NULL */
  tvm_iter_var **roots; /* op->axis then op->reduce_axis */
  int nroots, ndata;
  tvm_ptrvec reads;     /* TVM_TREAD nodes of value and cond */
  tvm_ptrvec consumers; /* lower_stage* that read out (after inlining) */
} lower_stage;

/* The dataflow of a schedule as lowering sees it. */
typedef struct lower_graph {
  tvm_ctx *c;
  tvm_schedule *s;
  lower_stage *stages; /* parallel to s->stages */
  int n;
  tvm_ptrmap by_stage; /* tvm_stage* -> lower_stage* */
} lower_graph;

/* Builds g from s: effective bodies (inline stages substituted), reads
 * and consumers.  Free with lower_graph_free (also after failure). */
tvm_status lower_graph_build(tvm_schedule *s, lower_graph *g);
void lower_graph_free(lower_graph *g);
/* The lower_stage computing tensor t, or NULL (unknown tensor). */
lower_stage *lower_graph_stage_of(lower_graph *g, const tvm_tensor *t);
lower_stage *lower_graph_of(lower_graph *g, const tvm_stage *st);

/* Leaf axes of a stage. */
static inline tvm_iter_var *lower_leaf(const tvm_stage *st, size_t i) {
  return (tvm_iter_var *)st->leaf_iter_vars.data[i];
}
static inline int lower_nleaves(const tvm_stage *st) {
  return (int)st->leaf_iter_vars.len;
}
/* Position of iv among st's leaves, or -1. */
int lower_leaf_index(const tvm_stage *st, const tvm_iter_var *iv);
/* The annotation of iv in st, or NULL when it has none. */
tvm_iv_attr *lower_iv_attr(const tvm_stage *st, const tvm_iter_var *iv);
/* The range of iv in the ranges map, or NULL. */
tvm_range *lower_range_of(const tvm_ptrmap *ranges, const tvm_iter_var *iv);

/* The value of every iteration variable of st (tvm_iter_var* -> tvm_expr*)
 * in terms of the leaf loop variables: leaves map to var (+ min), split
 * parents to outer*factor + inner + min (min(outer*factor, extent -
 * factor) + inner + min where the last tile is shifted), fused axes to
 * floordiv/floormod of the fused variable.  Expressions are simplified.
 * TVM_ERR_INTERNAL when a range is missing. */
tvm_status lower_iv_values(tvm_ctx *c, const tvm_stage *st,
                           const tvm_ptrmap *ranges, tvm_ptrmap *values);
/* Marks (map value non-NULL) every iter var of st derived from a reduce
 * axis, following the relations. */
tvm_status lower_reduce_derived(const lower_stage *ls, tvm_ptrmap *set);
/* 1 when split rel's last tile is shifted back (tvm_split_shift_tail: a
 * constant factor that does not divide a constant extent at least as
 * large), with *factor and *extent set; 0 when it lowers as a plain
 * split. */
int lower_split_shifted(const tvm_iv_relation *rel, const tvm_ptrmap *ranges,
                        int64_t *factor, int64_t *extent);

/* A thread axis bound to a leaf: does a producer stored in `scope` need
 * the loop relaxed (range over all threads) even outside its attach point?
 * (global storage is shared by blocks and threads, shared storage by the
 * threads of a block, local storage by nothing.) */
int lower_thread_needs_relax(const char *scope, const char *tag);

/* Range helpers (arena). */
tvm_range *lower_range_new(tvm_ctx *c, tvm_expr *min, tvm_expr *extent);
/* The smallest range holding a and b (a may be NULL). */
tvm_range lower_range_union(tvm_ctx *c, const tvm_range *a, tvm_range b);

/* A tensor intrinsic's view of a tensor region: storage_flatten sets
 * buf->data to the tensor's buffer variable, buf->elem_offset to the flat
 * offset of begin and buf->strides to the tensor's strides, substituting
 * the placeholder variables created by tensorize. */
typedef struct lower_bind {
  tvm_buffer *buf;
  tvm_tensor *tensor;
  tvm_expr **begin; /* region start, one per tensor dimension */
  int n;
} lower_bind;

/* Tensorize (tensorize.c): replaces the loop nest of ls from leaf `level`
 * inward by the intrinsic attached there.  values: root values (iter var ->
 * expr); loops: bounds of all loop vars.  Writes the statement computing
 * the whole region (*body), and for reductions split across the
 * tensorized boundary, *reset and *update.  Diagnostic on mismatch. */
tvm_status lower_tensorize(lower_graph *g, lower_stage *ls,
                           const tvm_ptrmap *ranges, const tvm_ptrmap *values,
                           int level, tvm_stmt **body, tvm_stmt **reset,
                           tvm_stmt **update);

/* The end of every pass: *out = a copy of f (in c) with `body`, or the
 * failure: the ctx's error (out of memory, a constructor's type error),
 * else TVM_ERR_INTERNAL naming the pass and the function. */
tvm_status lower_with_body(tvm_ctx *c, const tvm_func *f,
                                tvm_stmt *body, const char *pass,
                                tvm_func **out);

/* What a statement binds (variable -> 1: loop variables, lets, allocated
 * buffers) and whether a copy of it is not free (fixed: an allocation of
 * a scope other than local/global, an attribute or a barrier); for the
 * passes that version statements (core/lower/binds.c).  Free bound with
 * tvm_ptrmap_free; an allocation failure sets fixed. */
typedef struct lower_binds {
  tvm_ptrmap bound;
  int fixed;
} lower_binds;
void lower_binds_scan(lower_binds *b, const tvm_stmt *s);

/* s with every access of buffer (loads, stores, the offsets of
 * access_ptr calls) moved by offset elements (core/lower/buffer_offset.c);
 * *raw_use (may be NULL) is set when the buffer variable is used other
 * than by those, where the rewrite cannot follow it.  NULL when out of
 * memory (sticky in c). */
tvm_stmt *lower_offset_accesses(tvm_ctx *c, tvm_stmt *s, tvm_expr *buffer,
                                tvm_expr *offset, int *raw_use);

#endif /* TVM_LOWER_INT_H */
