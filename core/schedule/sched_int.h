/*
 * core/schedule/sched_int.h - helpers shared by the files of
 * core/schedule (private).
 */
#ifndef TVM_SCHED_INT_H
#define TVM_SCHED_INT_H

#include "tvm/schedule.h"

/* The printed name of an iteration variable. */
const char *sched_iv_name(const tvm_iter_var *iv);

/* Position of iv in st's leaf axes, or -1. */
int sched_leaf_index(const tvm_stage *st, const tvm_iter_var *iv);

/* TVM_OK when iv is a leaf of st, else TVM_ERR_INVALID with a diagnostic
 * "<prim>: axis X is not a leaf of stage S ..." listing the leaves. */
tvm_status sched_check_leaf(const tvm_stage *st, const tvm_iter_var *iv,
                            const char *prim);

/* A new stage for op (heap; iter vars = axis then reduce_axis, attached
 * at root, scope "global"), not yet in a schedule.  NULL on OOM. */
tvm_stage *sched_stage_new(tvm_ctx *c, tvm_operation *op);
void sched_stage_free(tvm_stage *st);

/* Resets st's loop structure to the root axes of st->op (relations are
 * dropped).  Cannot fail when st->op has no more root axes than st had
 * iteration variables. */
tvm_status sched_stage_reset_axes(tvm_stage *st);

/* Inserts st into s->stages at position pos and maps its ops; on failure
 * st is not in the stages and the caller frees it. */
tvm_status sched_insert_stage(tvm_schedule *s, tvm_stage *st, size_t pos);

/* Position of st in s->stages, or -1. */
int sched_stage_index(const tvm_schedule *s, const tvm_stage *st);

/* The stage of operation op (origin or current), or NULL. */
tvm_stage *sched_stage_of_op(const tvm_schedule *s, const tvm_operation *op);

/* A fresh operation for the same output as `like`: a copy of *like with
 * body replaced (kind compute).  Arena. */
tvm_operation *sched_op_with_body(tvm_ctx *c, const tvm_operation *like,
                                  tvm_expr *body);

/* TVM_OK unless a stage is computed at an axis of st that is not one of
 * its root data axes (which cache_write and rfactor remove). */
tvm_status sched_check_no_attach_below(const tvm_schedule *s,
                                       const tvm_stage *st, const char *prim);

#endif /* TVM_SCHED_INT_H */
