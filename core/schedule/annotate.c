/*
 * core/schedule/annotate.c - annotations of leaf axes (how a loop runs:
 * vectorized, unrolled, parallel, bound to a thread; pragmas, storage
 * alignment, tensorization) and stage flags (double buffering).
 */
#include "sched_int.h"

/* The attribute record of leaf iv of st for primitive prim, or NULL with
 * a diagnostic. */
static tvm_iv_attr *leaf_attr(tvm_stage *st, tvm_iter_var *iv,
                              const char *prim) {
  if (!st) {
    tvm_diag_set(TVM_ERR_INVALID, "%s: the stage is NULL", prim);
    return NULL;
  }
  if (sched_check_leaf(st, iv, prim) != TVM_OK)
    return NULL;
  tvm_iv_attr *a = tvm_stage_iv_attr(st, iv);
  if (!a)
    tvm_diag_set(TVM_ERR_NOMEM, "%s: out of memory", prim);
  return a;
}

/* Sets the loop kind of a leaf; vectorized and parallel loops must not be
 * reduction loops (their iterations would race on the accumulator). */
static tvm_status set_for_kind(tvm_stage *st, tvm_iter_var *iv,
                               tvm_for_kind k, const char *prim) {
  tvm_iv_attr *a = leaf_attr(st, iv, prim);
  if (!a)
    return tvm_diag_status();
  if (iv->kind == TVM_IV_REDUCE && k != TVM_FOR_UNROLLED)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: stage %s: axis %s is a reduction axis; its "
                        "iterations accumulate into the same element, so it "
                        "can only be unrolled (or factored out with rfactor)",
                        prim, st->op->name, sched_iv_name(iv));
  a->for_kind = k;
  return TVM_OK;
}

tvm_status tvm_vectorize(tvm_stage *st, tvm_iter_var *iv) {
  return set_for_kind(st, iv, TVM_FOR_VECTORIZED, "vectorize");
}

tvm_status tvm_unroll(tvm_stage *st, tvm_iter_var *iv) {
  return set_for_kind(st, iv, TVM_FOR_UNROLLED, "unroll");
}

tvm_status tvm_parallel(tvm_stage *st, tvm_iter_var *iv) {
  return set_for_kind(st, iv, TVM_FOR_PARALLEL, "parallel");
}

/* Binds leaf iv to a thread axis (made by tvm_thread_axis): the loop
 * becomes that hardware index.  for_kind becomes THREAD or VTHREAD. */
tvm_status tvm_bind(tvm_stage *st, tvm_iter_var *iv, tvm_iter_var *thread) {
  tvm_iv_attr *a = leaf_attr(st, iv, "bind");
  if (!a)
    return tvm_diag_status();
  if (!thread || (thread->kind != TVM_IV_THREAD &&
                  thread->kind != TVM_IV_VTHREAD) || !thread->thread_tag)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "bind: stage %s, axis %s: the target is not a thread "
                        "axis; create it with tvm_thread_axis(\"threadIdx.x\")",
                        st->op->name, sched_iv_name(iv));
  a->bind_thread = thread;
  a->for_kind =
      thread->kind == TVM_IV_VTHREAD ? TVM_FOR_VTHREAD : TVM_FOR_THREAD;
  return TVM_OK;
}

/* Appends pragma key=value to leaf iv (emitted as an attribute
 * "pragma_<key>" around the loop). */
tvm_status tvm_pragma(tvm_stage *st, tvm_iter_var *iv, const char *key,
                      tvm_expr *value) {
  tvm_iv_attr *a = leaf_attr(st, iv, "pragma");
  if (!a)
    return tvm_diag_status();
  if (!key || !*key)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "pragma: stage %s, axis %s: the key is empty",
                        st->op->name, sched_iv_name(iv));
  tvm_pragma_kv *p =
      tvm_ctx_alloc(st->ctx, sizeof(*p) * (size_t)(a->npragmas + 1));
  const char *k = tvm_ctx_strdup(st->ctx, key);
  if (!p || !k)
    return tvm_diag_set(TVM_ERR_NOMEM, "pragma: out of memory");
  for (int i = 0; i < a->npragmas; i++)
    p[i] = a->pragmas[i];
  p[a->npragmas].key = k;
  p[a->npragmas].value = value;
  a->pragmas = p;
  a->npragmas++;
  return TVM_OK;
}

/* Pads the storage of st's output so that the dimension of axis iv has a
 * stride == offset (mod factor).  iv must be a root data axis of st. */
tvm_status tvm_storage_align(tvm_stage *st, tvm_iter_var *iv, int factor,
                             int offset) {
  if (!st)
    return tvm_diag_set(TVM_ERR_INVALID, "storage_align: the stage is NULL");
  int found = 0;
  for (int i = 0; i < st->op->naxis && st->op->kind == TVM_OP_COMPUTE; i++)
    found |= st->op->axis[i] == iv;
  if (!found)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "storage_align: axis %s is not a dimension (root data "
                        "axis) of stage %s",
                        sched_iv_name(iv), st->op->name);
  if (factor <= 0 || offset < 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "storage_align: stage %s, axis %s: needs factor > 0 "
                        "and offset >= 0 (got %d, %d)",
                        st->op->name, sched_iv_name(iv), factor, offset);
  tvm_iv_attr *a = tvm_stage_iv_attr(st, iv);
  if (!a)
    return tvm_diag_set(TVM_ERR_NOMEM, "storage_align: out of memory");
  a->align_factor = factor;
  a->align_offset = offset;
  return TVM_OK;
}

/* Asks for two copies of st's buffer so loads of the next iteration
 * overlap compute of this one (core/lower/inject_double_buffer.c). */
tvm_status tvm_double_buffer(tvm_stage *st) {
  if (!st)
    return tvm_diag_set(TVM_ERR_INVALID, "double_buffer: the stage is NULL");
  if (st->op->kind == TVM_OP_PLACEHOLDER)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "double_buffer: stage %s is a placeholder; double "
                        "buffer a cache_read of it instead",
                        st->op->name);
  st->double_buffer = 1;
  return TVM_OK;
}

/* Replaces the loop nest from leaf iv inwards by the tensor intrinsic
 * (matched against the intrinsic's pattern during lowering). */
tvm_status tvm_tensorize(tvm_stage *st, tvm_iter_var *iv,
                         tvm_tensor_intrin *intrin) {
  tvm_iv_attr *a = leaf_attr(st, iv, "tensorize");
  if (!a)
    return tvm_diag_status();
  if (!intrin)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tensorize: stage %s, axis %s: the intrinsic is NULL",
                        st->op->name, sched_iv_name(iv));
  a->tensorize = intrin;
  return TVM_OK;
}
