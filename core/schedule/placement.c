/*
 * core/schedule/placement.c - where a stage is computed: at the root, at
 * a loop of another stage (compute_at) or inlined into its consumers.
 */
#include "sched_int.h"

/* Rejects placement of stages that have no loops of their own. */
static tvm_status check_movable(tvm_stage *st, const char *prim) {
  if (!st)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: the stage is NULL", prim);
  if (st->op->kind == TVM_OP_PLACEHOLDER)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: stage %s is a placeholder (an input); it is not "
                        "computed and cannot be placed",
                        prim, st->op->name);
  return TVM_OK;
}

/* Computes st inside the loop iv of parent (iv must be a leaf of
 * parent); bound inference then shrinks st to what one iteration of iv
 * needs. */
tvm_status tvm_compute_at(tvm_stage *st, tvm_stage *parent,
                          tvm_iter_var *iv) {
  tvm_status rc = check_movable(st, "compute_at");
  if (rc != TVM_OK)
    return rc;
  if (!parent)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "compute_at: stage %s: the parent stage is NULL",
                        st->op->name);
  if (parent == st)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "compute_at: stage %s cannot be computed at its own "
                        "axis %s",
                        st->op->name, sched_iv_name(iv));
  rc = sched_check_leaf(parent, iv, "compute_at");
  if (rc != TVM_OK)
    return tvm_diag_prefix(rc, "stage %s: ", st->op->name);
  st->attach = TVM_ATTACH_SCOPE;
  st->attach_stage = parent;
  st->attach_ivar = iv;
  return TVM_OK;
}

/* Marks st to be substituted into its consumers.  Only element-wise
 * computes (no reduction) that are not outputs can be inlined. */
tvm_status tvm_compute_inline(tvm_stage *st) {
  tvm_status rc = check_movable(st, "compute_inline");
  if (rc != TVM_OK)
    return rc;
  if (st->op->body && st->op->body->kind == TVM_REDUCE)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "compute_inline: stage %s is a reduction and cannot "
                        "be inlined; use compute_at to place it in a loop of "
                        "its consumer instead",
                        st->op->name);
  if (st->is_output)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "compute_inline: stage %s is an output of the "
                        "schedule and must be stored; it cannot be inlined",
                        st->op->name);
  st->attach = TVM_ATTACH_INLINE;
  st->attach_stage = NULL;
  st->attach_ivar = NULL;
  return TVM_OK;
}

/* Gives st its own loop nest at the top level again. */
tvm_status tvm_compute_root(tvm_stage *st) {
  tvm_status rc = check_movable(st, "compute_root");
  if (rc != TVM_OK)
    return rc;
  st->attach = TVM_ATTACH_ROOT;
  st->attach_stage = NULL;
  st->attach_ivar = NULL;
  return TVM_OK;
}
