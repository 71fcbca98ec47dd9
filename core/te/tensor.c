/*
 * core/te/tensor.c - tensors, placeholders, iteration variables and the
 * inputs of an operation.
 */
#include <string.h>

#include "te_int.h"

/* Allocates a tensor named name with the given shape in the ctx arena and
 * links it to op (op->output is set).  The shape array is copied; shape_c
 * holds each constant extent, or -1 where the extent is symbolic. */
tvm_tensor *te_tensor_new(tvm_ctx *c, tvm_operation *op, const char *name,
                          tvm_dtype t, tvm_expr **shape, int ndim) {
  tvm_tensor *ten = tvm_ctx_alloc(c, sizeof(*ten));
  if (!ten)
    return NULL;
  ten->op = op;
  ten->name = tvm_ctx_strdup(c, name);
  ten->dtype = t;
  ten->ndim = ndim;
  if (ndim > 0) {
    ten->shape = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)ndim);
    ten->shape_c = tvm_ctx_alloc(c, sizeof(int64_t) * (size_t)ndim);
    if (!ten->shape || !ten->shape_c)
      return NULL;
    for (int i = 0; i < ndim; i++) {
      int64_t v;
      ten->shape[i] = shape[i];
      ten->shape_c[i] = tvm_is_const_int(shape[i], &v) ? v : -1;
    }
  }
  if (!ten->name)
    return NULL;
  if (op)
    op->output = ten;
  return ten;
}

/* Checks the arguments shared by both placeholder constructors. */
static tvm_status check_decl(const char *what, const char *name, int ndim) {
  if (!name || !*name)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: a tensor needs a non-empty name",
                        what);
  if (ndim < 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s %s: ndim is %d; it must be 0 or more", what, name,
                        ndim);
  return TVM_OK;
}

/* Declares an input tensor of symbolic shape (shape entries are integer
 * expressions, typically variables or constants).  Everything lives in the
 * ctx arena; returns NULL with a diagnostic on bad arguments or OOM. */
tvm_tensor *tvm_placeholder_sym(tvm_ctx *c, const char *name, tvm_dtype t,
                                tvm_expr **shape, int ndim) {
  if (check_decl("placeholder", name, ndim) != TVM_OK)
    return NULL;
  for (int i = 0; i < ndim; i++) {
    int64_t v;
    if (!shape || !shape[i]) {
      tvm_diag_set(TVM_ERR_INVALID, "placeholder %s: shape[%d] is NULL", name,
                   i);
      return NULL;
    }
    if (tvm_is_const_int(shape[i], &v) && v <= 0) {
      tvm_diag_set(TVM_ERR_INVALID,
                   "placeholder %s: shape[%d] is %lld; extents must be positive",
                   name, i, (long long)v);
      return NULL;
    }
  }
  tvm_operation *op = tvm_ctx_alloc(c, sizeof(*op));
  if (!op)
    goto oom;
  op->kind = TVM_OP_PLACEHOLDER;
  op->name = tvm_ctx_strdup(c, name);
  op->tag = "";
  if (!op->name || !te_tensor_new(c, op, name, t, shape, ndim))
    goto oom;
  return op->output;
oom:
  tvm_ctx_status(c);
  return NULL;
}

/* Builds the shape expressions (int32 constants) of a constant shape into
 * the arena; NULL on OOM or a non-positive extent (diagnostic set). */
tvm_expr **te_const_shape(tvm_ctx *c, const char *what, const char *name,
                          const int64_t *shape, int ndim) {
  tvm_expr **sh = tvm_ctx_alloc(c, sizeof(tvm_expr *) * (size_t)(ndim + 1));
  if (!sh) {
    tvm_ctx_status(c);
    return NULL;
  }
  int64_t numel = 1;
  for (int i = 0; i < ndim; i++) {
    /* the loop IR indexes with int32 (tvm_int): a tensor whose flat index
     * could pass 2^31 - 1 is refused, never silently truncated */
    if (shape[i] > 0 && (tvm_mul_overflow_i64(numel, shape[i], &numel) ||
                         numel > INT32_MAX)) {
      tvm_diag_set(TVM_ERR_UNSUPPORTED,
                   "%s %s: more than 2^31-1 elements (dimension %d is %lld); "
                   "the generated code indexes with 32-bit integers",
                   what, name ? name : "?", i, (long long)shape[i]);
      return NULL;
    }
    if (shape[i] <= 0) {
      tvm_diag_set(TVM_ERR_INVALID,
                   "%s %s: shape[%d] is %lld; extents must be positive", what,
                   name ? name : "?", i, (long long)shape[i]);
      return NULL;
    }
    sh[i] = tvm_int(c, shape[i]);
    if (!sh[i]) {
      tvm_ctx_status(c);
      return NULL;
    }
  }
  return sh;
}

/* Declares an input tensor of constant shape. */
tvm_tensor *tvm_placeholder(tvm_ctx *c, const char *name, tvm_dtype t,
                            const int64_t *shape, int ndim) {
  if (check_decl("placeholder", name, ndim) != TVM_OK)
    return NULL;
  tvm_expr **sh = te_const_shape(c, "placeholder", name, shape, ndim);
  if (!sh)
    return NULL;
  return tvm_placeholder_sym(c, name, t, sh, ndim);
}

/* Sets the free-form tag of the tensor's operation.  The string is not
 * copied (no ctx is at hand): pass a literal or an arena string. */
void tvm_tensor_set_tag(tvm_tensor *t, const char *tag) {
  if (t && t->op)
    t->op->tag = tag ? tag : "";
}

/* A new iteration variable (int32 loop variable named name) with domain
 * [min, min + extent); min and extent may be NULL for axes whose range is
 * found later by bound inference.  Arena-allocated; NULL on OOM. */
tvm_iter_var *tvm_iter_var_new(tvm_ctx *c, const char *name, tvm_expr *min,
                               tvm_expr *extent, tvm_iter_kind kind) {
  tvm_iter_var *iv = tvm_ctx_alloc(c, sizeof(*iv));
  if (!iv)
    return NULL;
  iv->var = tvm_var(c, name ? name : "iv", TVM_I32);
  if (!iv->var)
    return NULL;
  iv->dom.min = min;
  iv->dom.extent = extent;
  iv->kind = kind;
  return iv;
}

/* A reduction axis over [min, min + extent). */
tvm_iter_var *tvm_reduce_axis(tvm_ctx *c, const char *name, int64_t min,
                              int64_t extent) {
  if (extent <= 0) {
    tvm_diag_set(TVM_ERR_INVALID,
                 "reduce axis %s: extent %lld; it must be positive",
                 name ? name : "?", (long long)extent);
    return NULL;
  }
  return tvm_iter_var_new(c, name, tvm_int(c, min), tvm_int(c, extent),
                          TVM_IV_REDUCE);
}

/* A hardware thread axis for bind(); "vthread" (or "vthread.*") makes a
 * virtual thread.  extent NULL: taken from the loop it is bound to. */
tvm_iter_var *tvm_thread_axis(tvm_ctx *c, const char *tag, tvm_expr *extent) {
  if (!tag || !*tag) {
    tvm_diag_set(TVM_ERR_INVALID,
                 "thread axis: a tag is needed (\"blockIdx.x\", "
                 "\"threadIdx.x\", \"vthread\", ...)");
    return NULL;
  }
  int vt = strncmp(tag, "vthread", 7) == 0;
  tvm_iter_var *iv = tvm_iter_var_new(c, tag, extent ? tvm_int(c, 0) : NULL,
                                      extent,
                                      vt ? TVM_IV_VTHREAD : TVM_IV_THREAD);
  if (!iv)
    return NULL;
  iv->thread_tag = tvm_ctx_strdup(c, tag);
  return iv->thread_tag ? iv : NULL;
}

/* ---- inputs of an operation ------------------------------------------ */

typedef struct inputs_walk {
  tvm_ptrvec *out;
  tvm_status st;
} inputs_walk;

/* Visitor hook: records each tensor read once, in first-use order. */
static int inputs_hook(tvm_visitor *v, const tvm_expr *e) {
  inputs_walk *w = v->data;
  if (e->kind != TVM_TREAD || w->st != TVM_OK)
    return 0;
  tvm_tensor *t = e->u.tread.tensor;
  for (size_t i = 0; i < w->out->len; i++)
    if (w->out->data[i] == t)
      return 0;
  w->st = tvm_ptrvec_push(w->out, t);
  return 0;
}

/* Appends the tensors read by op's body to out (a heap vector the caller
 * frees), each once, in first-use order.  Placeholders read nothing. */
tvm_status tvm_op_inputs(const tvm_operation *op, tvm_ptrvec *out) {
  if (!op || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_op_inputs: NULL argument");
  if (op->kind != TVM_OP_COMPUTE || !op->body)
    return TVM_OK;
  inputs_walk w = {out, TVM_OK};
  tvm_visitor v = {inputs_hook, NULL, &w};
  tvm_visit_expr(&v, op->body);
  if (w.st != TVM_OK)
    return tvm_diag_set(w.st, "inputs of %s: out of memory", op->name);
  return TVM_OK;
}

/* Breadth-first over the bodies from out, compute operations only, each
 * once. */
tvm_status tvm_op_reachable_computes(const tvm_tensor *out, tvm_ptrvec *ops) {
  tvm_ptrmap seen = {0};
  void *p;
  tvm_status st = tvm_ptrvec_push(ops, out->op);
  if (!st) st = tvm_ptrmap_put(&seen, out->op, out->op);
  for (size_t i = 0; i < ops->len && !st; i++) {
    tvm_ptrvec ins = {0};
    st = tvm_op_inputs(ops->data[i], &ins);
    for (size_t k = 0; k < ins.len && !st; k++) {
      tvm_tensor *t = ins.data[k];
      if (t->op->kind != TVM_OP_COMPUTE || tvm_ptrmap_get(&seen, t->op, &p))
        continue;
      st = tvm_ptrmap_put(&seen, t->op, t->op);
      if (!st) st = tvm_ptrvec_push(ops, t->op);
    }
    tvm_ptrvec_free(&ins);
  }
  tvm_ptrmap_free(&seen);
  return st;
}

/* See tvm/te.h. */
tvm_status tvm_op_match_matmul(tvm_tensor *const *outs, uint32_t nouts,
                               const char *who, tvm_tensor **a,
                               tvm_tensor **b) {
  tvm_ptrvec ins = {0};
  tvm_tensor *A = NULL, *B = NULL;
  *a = *b = NULL;
  if (nouts != 1 || outs[0]->ndim != 2 ||
      outs[0]->op->kind != TVM_OP_COMPUTE || outs[0]->op->nreduce != 1)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: expected one 2-d reduction",
                        who);
  tvm_status st = tvm_op_inputs(outs[0]->op, &ins);
  if (st) return st;
  if (ins.len == 2) {
    A = ins.data[0];
    B = ins.data[1];
  }
  tvm_ptrvec_free(&ins);
  if (!A || !B || A->ndim != 2 || B->ndim != 2 ||
      A->op->kind != TVM_OP_PLACEHOLDER || B->op->kind != TVM_OP_PLACEHOLDER)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s: '%s' must read two 2-d inputs", who,
                        outs[0]->name);
  *a = A;
  *b = B;
  return TVM_OK;
}
