/*
 * core/schedule/print.c - the text form of a schedule, used by tests and
 * by --dump-schedule: per stage its op, leaf axes with their annotations,
 * the relations between axes and where it is attached.
 *
 *   stage C: compute float32[64, 64] output
 *     body: sum(A(i, k) * B(k, j), axis=[k])
 *     leaves: i.outer, j.outer, i.inner, j.inner (vectorize), k (reduce)
 *     split i by 8 -> i.outer, i.inner
 *     attach: root
 */
#include <string.h>

#include "sched_int.h"

/* A constant prints as a number, anything else through the IR printer. */
static void print_value(tvm_strbuf *out, const tvm_expr *e) {
  int64_t v;
  if (e && tvm_is_const_int(e, &v))
    tvm_strbuf_printf(out, "%lld", (long long)v);
  else if (e)
    tvm_print_expr(out, e);
  else
    tvm_strbuf_append(out, "?");
}

static void print_shape(tvm_strbuf *out, const tvm_tensor *t) {
  char buf[32];
  tvm_strbuf_printf(out, "%s[", tvm_dtype_str(t->dtype, buf));
  for (int i = 0; i < t->ndim; i++) {
    if (i)
      tvm_strbuf_append(out, ", ");
    print_value(out, t->shape[i]);
  }
  tvm_strbuf_append(out, "]");
}

/* "k (reduce, unroll)": a leaf axis with its kind and annotations. */
static void print_leaf(tvm_strbuf *out, const tvm_stage *st,
                       tvm_iter_var *iv) {
  const char *props[8];
  int np = 0;
  void *p = NULL;
  const tvm_iv_attr *a =
      tvm_ptrmap_get(&st->iv_attrs, iv, &p) ? (const tvm_iv_attr *)p : NULL;
  tvm_strbuf_append(out, sched_iv_name(iv));
  if (iv->kind == TVM_IV_REDUCE)
    props[np++] = "reduce";
  if (a && a->for_kind == TVM_FOR_VECTORIZED)
    props[np++] = "vectorize";
  if (a && a->for_kind == TVM_FOR_UNROLLED)
    props[np++] = "unroll";
  if (a && a->for_kind == TVM_FOR_PARALLEL)
    props[np++] = "parallel";
  int bind = a && a->bind_thread;
  int extra = bind || (a && (a->npragmas || a->tensorize));
  if (!np && !extra)
    return;
  tvm_strbuf_append(out, " (");
  for (int i = 0; i < np; i++)
    tvm_strbuf_printf(out, "%s%s", i ? ", " : "", props[i]);
  if (bind)
    tvm_strbuf_printf(out, "%sbind %s", np++ ? ", " : "",
                      a->bind_thread->thread_tag);
  for (int i = 0; a && i < a->npragmas; i++) {
    tvm_strbuf_printf(out, "%spragma %s", np++ ? ", " : "",
                      a->pragmas[i].key);
    if (a->pragmas[i].value) {
      tvm_strbuf_append(out, "=");
      print_value(out, a->pragmas[i].value);
    }
  }
  if (a && a->tensorize)
    tvm_strbuf_printf(out, "%stensorize %s", np++ ? ", " : "",
                      a->tensorize->name);
  tvm_strbuf_append(out, ")");
}

static void print_relation(tvm_strbuf *out, const tvm_iv_relation *r) {
  switch (r->kind) {
  case TVM_REL_SPLIT:
    tvm_strbuf_printf(out, "  split %s ", sched_iv_name(r->parent));
    if (r->factor) {
      tvm_strbuf_append(out, "by ");
      print_value(out, r->factor);
      if (r->shift_tail) tvm_strbuf_append(out, ", last tile shifted");
    } else {
      tvm_strbuf_append(out, "into ");
      print_value(out, r->nparts);
      tvm_strbuf_append(out, " parts");
    }
    tvm_strbuf_printf(out, " -> %s, %s\n", sched_iv_name(r->outer),
                      sched_iv_name(r->inner));
    break;
  case TVM_REL_FUSE:
    tvm_strbuf_printf(out, "  fuse %s, %s -> %s\n", sched_iv_name(r->outer),
                      sched_iv_name(r->inner), sched_iv_name(r->fused));
    break;
  case TVM_REL_REBASE:
    tvm_strbuf_printf(out, "  rebase %s -> %s\n", sched_iv_name(r->parent),
                      sched_iv_name(r->rebased));
    break;
  }
}

static void print_stage(tvm_strbuf *out, const tvm_stage *st) {
  const tvm_operation *op = st->op;
  const tvm_tensor *t = op->output;
  tvm_strbuf_printf(out, "stage %s: %s ", op->name,
                    op->kind == TVM_OP_PLACEHOLDER ? "placeholder" : "compute");
  print_shape(out, t);
  if (op->tag && *op->tag)
    tvm_strbuf_printf(out, " tag=%s", op->tag);
  if (st->is_output)
    tvm_strbuf_append(out, " output");
  if (st->scope && strcmp(st->scope, "global") != 0)
    tvm_strbuf_printf(out, " scope=%s", st->scope);
  if (st->double_buffer)
    tvm_strbuf_append(out, " double_buffer");
  tvm_strbuf_append(out, "\n");
  if (op->kind == TVM_OP_PLACEHOLDER)
    return;
  tvm_strbuf_append(out, "  body: ");
  tvm_print_expr(out, op->body);
  tvm_strbuf_append(out, "\n");
  tvm_strbuf_append(out, "  leaves: ");
  for (size_t i = 0; i < st->leaf_iter_vars.len; i++) {
    if (i)
      tvm_strbuf_append(out, ", ");
    print_leaf(out, st, st->leaf_iter_vars.data[i]);
  }
  tvm_strbuf_append(out, "\n");
  for (size_t i = 0; i < st->relations.len; i++)
    print_relation(out, st->relations.data[i]);
  for (size_t i = 0; i < st->all_iter_vars.len; i++) {
    void *p;
    tvm_iter_var *iv = st->all_iter_vars.data[i];
    if (tvm_ptrmap_get(&st->iv_attrs, iv, &p) &&
        ((tvm_iv_attr *)p)->align_factor)
      tvm_strbuf_printf(out, "  storage_align %s: factor %d, offset %d\n",
                        sched_iv_name(iv), ((tvm_iv_attr *)p)->align_factor,
                        ((tvm_iv_attr *)p)->align_offset);
  }
  switch (st->attach) {
  case TVM_ATTACH_ROOT:
    tvm_strbuf_append(out, "  attach: root\n");
    break;
  case TVM_ATTACH_INLINE:
    tvm_strbuf_append(out, "  attach: inline\n");
    break;
  case TVM_ATTACH_SCOPE:
    tvm_strbuf_printf(out, "  attach: at %s.%s\n",
                      st->attach_stage ? st->attach_stage->op->name : "?",
                      sched_iv_name(st->attach_ivar));
    break;
  }
}

/* Appends the text form of every stage of s, in order, to out. */
void tvm_print_schedule(tvm_strbuf *out, const tvm_schedule *s) {
  if (!out || !s)
    return;
  for (size_t i = 0; i < s->stages.len; i++)
    print_stage(out, s->stages.data[i]);
}
