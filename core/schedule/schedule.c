/*
 * core/schedule/schedule.c - building a schedule (one stage per
 * operation, producers before consumers) and the small queries on it.
 */
#include <string.h>

#include "sched_int.h"

const char *sched_iv_name(const tvm_iter_var *iv) {
  return iv && iv->var ? iv->var->u.var.name : "(null)";
}

int sched_leaf_index(const tvm_stage *st, const tvm_iter_var *iv) {
  for (size_t i = 0; i < st->leaf_iter_vars.len; i++)
    if (st->leaf_iter_vars.data[i] == iv)
      return (int)i;
  return -1;
}

/* Checks that iv is a leaf axis of st; the diagnostic names the
 * primitive, the stage, the axis and lists the current leaves. */
tvm_status sched_check_leaf(const tvm_stage *st, const tvm_iter_var *iv,
                            const char *prim) {
  if (!iv)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: stage %s: the axis is NULL",
                        prim, st->op->name);
  if (sched_leaf_index(st, iv) >= 0)
    return TVM_OK;
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  for (size_t i = 0; i < st->leaf_iter_vars.len; i++)
    tvm_strbuf_printf(&b, "%s%s", i ? ", " : "",
                      sched_iv_name(st->leaf_iter_vars.data[i]));
  int known = 0;
  for (size_t i = 0; i < st->all_iter_vars.len; i++)
    known |= st->all_iter_vars.data[i] == iv;
  tvm_status rc = tvm_diag_set(
      TVM_ERR_INVALID, "%s: axis %s is not a leaf of stage %s (%s); its "
                       "leaf axes are: %s",
      prim, sched_iv_name(iv), st->op->name,
      known ? "it was split or fused already, use the new axes"
            : "it belongs to another stage",
      b.data ? b.data : "(none)");
  tvm_strbuf_free(&b);
  return rc;
}

/* Fills all/leaf iter vars of st from the root axes of st->op. */
static tvm_status add_root_axes(tvm_stage *st) {
  tvm_operation *op = st->op;
  if (op->kind != TVM_OP_COMPUTE)
    return TVM_OK;
  for (int i = 0; i < op->naxis; i++)
    if (tvm_ptrvec_push(&st->all_iter_vars, op->axis[i]) ||
        tvm_ptrvec_push(&st->leaf_iter_vars, op->axis[i]))
      return TVM_ERR_NOMEM;
  for (int i = 0; i < op->nreduce; i++)
    if (tvm_ptrvec_push(&st->all_iter_vars, op->reduce_axis[i]) ||
        tvm_ptrvec_push(&st->leaf_iter_vars, op->reduce_axis[i]))
      return TVM_ERR_NOMEM;
  return TVM_OK;
}

/* A heap stage for op, attached at root, in the "global" scope.  Freed
 * with sched_stage_free (its vectors and map are heap; the attributes and
 * relations it points to live in the ctx arena). */
tvm_stage *sched_stage_new(tvm_ctx *c, tvm_operation *op) {
  tvm_stage *st = tvm_calloc(1, sizeof(*st));
  if (!st)
    return NULL;
  st->ctx = c;
  st->op = op;
  st->origin_op = op;
  st->attach = TVM_ATTACH_ROOT;
  st->scope = "global";
  if (add_root_axes(st) != TVM_OK) {
    sched_stage_free(st);
    return NULL;
  }
  return st;
}

void sched_stage_free(tvm_stage *st) {
  if (!st)
    return;
  tvm_ptrvec_free(&st->all_iter_vars);
  tvm_ptrvec_free(&st->leaf_iter_vars);
  tvm_ptrvec_free(&st->relations);
  tvm_ptrmap_free(&st->iv_attrs);
  tvm_free(st);
}

/* Replaces st's loop structure by the root axes of its (new) op: the
 * relations go.  Attributes stay in the map (those of axes that are gone
 * are never looked up again).  The new root axes are never more than the
 * axes st had, so the vectors do not grow. */
tvm_status sched_stage_reset_axes(tvm_stage *st) {
  st->all_iter_vars.len = 0;
  st->leaf_iter_vars.len = 0;
  st->relations.len = 0;
  if (add_root_axes(st) != TVM_OK)
    return tvm_diag_set(TVM_ERR_NOMEM, "stage %s: out of memory",
                        st->op->name);
  return TVM_OK;
}

int sched_stage_index(const tvm_schedule *s, const tvm_stage *st) {
  for (size_t i = 0; i < s->stages.len; i++)
    if (s->stages.data[i] == st)
      return (int)i;
  return -1;
}

/* Inserts st at position pos of s->stages and maps its op(s) to it.  On
 * failure st is not in the stages (the caller frees it); map entries of
 * its ops may remain, harmless as long as those ops are dropped too. */
tvm_status sched_insert_stage(tvm_schedule *s, tvm_stage *st, size_t pos) {
  if (tvm_ptrmap_put(&s->stage_of, st->origin_op, st) != TVM_OK ||
      tvm_ptrmap_put(&s->stage_of, st->op, st) != TVM_OK ||
      tvm_ptrvec_push(&s->stages, st) != TVM_OK)
    return tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
  if (pos > s->stages.len - 1)
    pos = s->stages.len - 1;
  memmove(&s->stages.data[pos + 1], &s->stages.data[pos],
          (s->stages.len - 1 - pos) * sizeof(void *));
  s->stages.data[pos] = st;
  return TVM_OK;
}

tvm_stage *sched_stage_of_op(const tvm_schedule *s, const tvm_operation *op) {
  void *st;
  if (op && tvm_ptrmap_get(&s->stage_of, op, &st))
    return st;
  return NULL;
}

/* A copy of *like (name, tag, axes, reduce axes, output) with a new body;
 * the reduce axes follow the body when it is a reduction. */
tvm_operation *sched_op_with_body(tvm_ctx *c, const tvm_operation *like,
                                  tvm_expr *body) {
  if (!body)
    return NULL;
  tvm_operation *op = tvm_ctx_alloc(c, sizeof(*op));
  if (!op)
    return NULL;
  *op = *like;
  op->kind = TVM_OP_COMPUTE;
  op->body = body;
  if (body->kind == TVM_REDUCE) {
    op->reduce_axis = body->u.reduce.axes;
    op->nreduce = body->u.reduce.naxes;
  } else {
    op->reduce_axis = NULL;
    op->nreduce = 0;
  }
  return op;
}

/* Post-order DFS over the inputs of op: stages of producers are appended
 * before the stage of op.  visited maps op -> stage. */
static tvm_status visit_op(tvm_schedule *s, tvm_operation *op, int depth) {
  void *dummy;
  if (tvm_ptrmap_get(&s->stage_of, op, &dummy))
    return TVM_OK;
  if (depth > 100000)
    return tvm_diag_set(TVM_ERR_INVALID, "schedule: the graph is too deep");
  tvm_ptrvec in = {0};
  tvm_status rc = tvm_op_inputs(op, &in);
  for (size_t i = 0; rc == TVM_OK && i < in.len; i++)
    rc = visit_op(s, ((tvm_tensor *)in.data[i])->op, depth + 1);
  tvm_ptrvec_free(&in);
  if (rc != TVM_OK)
    return rc;
  tvm_stage *st = sched_stage_new(s->ctx, op);
  if (!st)
    return tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
  rc = sched_insert_stage(s, st, s->stages.len);
  if (rc != TVM_OK)
    sched_stage_free(st);
  return rc;
}

/* Builds a schedule of every operation reachable from outs (heap; free
 * with tvm_schedule_free).  Stages are in post order: every producer
 * before its consumers; placeholders get stages too. */
tvm_status tvm_schedule_create(tvm_ctx *c, tvm_tensor **outs, int n,
                               tvm_schedule **out) {
  if (!c || !out || n <= 0 || !outs)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "schedule_create: needs a ctx and at least one output");
  *out = NULL;
  for (int i = 0; i < n; i++)
    if (!outs[i] || !outs[i]->op)
      return tvm_diag_set(TVM_ERR_INVALID, "schedule_create: output %d is NULL",
                          i);
  tvm_schedule *s = tvm_calloc(1, sizeof(*s));
  if (!s)
    return tvm_diag_set(TVM_ERR_NOMEM, "schedule_create: out of memory");
  s->ctx = c;
  tvm_status rc = TVM_OK;
  for (int i = 0; rc == TVM_OK && i < n; i++) {
    rc = tvm_ptrvec_push(&s->outputs, outs[i]->op);
    if (rc != TVM_OK)
      rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule_create: out of memory");
  }
  for (int i = 0; rc == TVM_OK && i < n; i++)
    rc = visit_op(s, outs[i]->op, 0);
  for (int i = 0; rc == TVM_OK && i < n; i++)
    sched_stage_of_op(s, outs[i]->op)->is_output = 1;
  if (rc != TVM_OK) {
    tvm_schedule_free(s);
    return rc;
  }
  *out = s;
  return TVM_OK;
}

/* Frees the schedule, its stages and their containers (IR nodes stay in
 * the ctx arena). */
void tvm_schedule_free(tvm_schedule *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->stages.len; i++)
    sched_stage_free(s->stages.data[i]);
  tvm_ptrvec_free(&s->stages);
  tvm_ptrvec_free(&s->outputs);
  tvm_ptrmap_free(&s->stage_of);
  tvm_free(s);
}

/* The stage computing t: found through the operation t was declared
 * with, which stays valid after cache_read/cache_write/rfactor. */
tvm_stage *tvm_stage_of(tvm_schedule *s, const tvm_tensor *t) {
  if (!s || !t)
    return NULL;
  return sched_stage_of_op(s, t->op);
}

/* Root data axis i of the stage's current op, or NULL. */
tvm_iter_var *tvm_stage_axis(tvm_stage *st, int i) {
  if (!st || st->op->kind != TVM_OP_COMPUTE || i < 0 || i >= st->op->naxis)
    return NULL;
  return st->op->axis[i];
}

/* Root reduce axis i of the stage's current op, or NULL. */
tvm_iter_var *tvm_stage_reduce_axis(tvm_stage *st, int i) {
  if (!st || st->op->kind != TVM_OP_COMPUTE || i < 0 || i >= st->op->nreduce)
    return NULL;
  return st->op->reduce_axis[i];
}

/* The stage's current operation, or NULL. */
tvm_operation *tvm_stage_op(const tvm_stage *st) { return st ? st->op : NULL; }

/* Number of data-parallel root axes of the stage's current op. */
int tvm_stage_num_axes(const tvm_stage *st) {
  return st && st->op && st->op->kind == TVM_OP_COMPUTE ? st->op->naxis : 0;
}

/* Number of reduce root axes of the stage's current op. */
int tvm_stage_num_reduce_axes(const tvm_stage *st) {
  return st && st->op && st->op->kind == TVM_OP_COMPUTE ? st->op->nreduce : 0;
}

/* The annotations of iv in st, created (zeroed: serial, no binding) in
 * the ctx arena on first use; NULL on OOM. */
tvm_iv_attr *tvm_stage_iv_attr(tvm_stage *st, tvm_iter_var *iv) {
  void *a;
  if (!st || !iv)
    return NULL;
  if (tvm_ptrmap_get(&st->iv_attrs, iv, &a))
    return a;
  tvm_iv_attr *at = tvm_ctx_alloc(st->ctx, sizeof(*at));
  if (!at || tvm_ptrmap_put(&st->iv_attrs, iv, at) != TVM_OK)
    return NULL;
  at->for_kind = TVM_FOR_SERIAL;
  return at;
}
