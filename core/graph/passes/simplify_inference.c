/*
 * core/graph/passes/simplify_inference.c - rewriting training-time
 * operators for inference.
 *
 * One walk over the nodes in topological order:
 *  - Identity and inference Dropout are bypassed and removed;
 *  - BatchNormalization in inference (training_mode absent or 0, extra
 *    outputs unused, float32, scale/bias/mean/var CONST of C = X.shape[1]
 *    values) is written y = a[c] * x + b[c] with
 *        a = scale / sqrt(var + epsilon),   b = bias - mean * a
 *    and then
 *      * folded into its producer when X is a Conv, Gemm or 2-D MatMul
 *        output read by nothing else: new constant weights scaled by a
 *        along the output channel, and a new bias (Conv "<conv>.bias",
 *        Gemm C' = C * a + b / beta, MatMul an Add of b);
 *      * otherwise replaced by Mul(x, a) and Add(., b) with constants of
 *        shape [C, 1, ..., 1] that broadcast over the channel dimension.
 *  - Pow(x, 2) of a float x by a constant scalar is Mul(x, x).
 *  - ReduceMean / ReduceMax of a 4-D float32 tensor over its two spatial
 *    axes, keeping them, is GlobalAveragePool / GlobalMaxPool.
 * New constants are named after their node ("<conv>.weight",
 * "<bn>.scale").  A new value replacing the BatchNormalization output (the
 * Add) takes that output's name; a producer's output that absorbed the
 * normalization keeps its own, unless the graph returns it.  Old weights
 * left unused are dropped by the final toposort.
 */
#include <math.h>
#include <string.h>

#include "../graph_int.h"
#include "../ops/ops_int.h"
#include "tvm/graph_passes.h"

typedef struct walk {
  tvm_graph *g;
  tvm_ptrmap dead; /* nodes removed at the end */
} walk;

/* Uses of v by nodes not yet removed, plus graph outputs. */
static int live_uses(walk *w, const tvm_gvalue *v) {
  int c = 0;
  void *p;
  for (size_t i = 0; i < w->g->nodes.len; i++) {
    const tvm_gnode *n = w->g->nodes.data[i];
    if (tvm_ptrmap_get(&w->dead, n, &p)) continue;
    for (int k = 0; k < n->ninputs; k++)
      if (n->inputs[k] == v) c++;
  }
  for (size_t i = 0; i < w->g->outputs.len; i++)
    if (w->g->outputs.data[i] == v) c++;
  return c;
}

/* A CONST float32 value of numel elements (any shape when numel < 0). */
static int const_f32(const tvm_gvalue *v, int64_t numel) {
  return v && v->kind == TVM_GV_CONST && tvm_dtype_eq(v->dtype, TVM_F32) &&
         (numel < 0 || tvm_gvalue_numel(v) == numel);
}

/* Points the users of bn's output at v; v takes the output's name when
 * the graph returns it. */
static void take_over(walk *w, tvm_gnode *bn, tvm_gvalue *v) {
  tvm_gvalue *y = bn->outputs[0];
  if (graph_is_output(w->g, y)) v->name = y->name;
  tvm_graph_replace_uses(w->g, y, v);
}

/* 1 when x is the only output of its producer (of operator op) and is read
 * by bn alone. */
static int sole_output_of(walk *w, const tvm_gvalue *x, const char *op) {
  return x->kind == TVM_GV_INTERMEDIATE && strcmp(x->producer->op, op) == 0 &&
         x->producer->noutputs == 1 && !x->layout && live_uses(w, x) == 1;
}

/* Conv input 2 slot: a 3-input array (copying the old one when shorter). */
static tvm_status ensure_inputs(tvm_graph *g, tvm_gnode *n, int count) {
  if (n->ninputs >= count) return TVM_OK;
  tvm_gvalue **in = tvm_arena_alloc(g->arena, sizeof(tvm_gvalue *) * (size_t)count);
  if (!in) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory rewriting '%s'", n->name);
  for (int i = 0; i < n->ninputs; i++) in[i] = n->inputs[i];
  n->inputs = in;
  n->ninputs = count;
  return TVM_OK;
}

/* Re-runs shape inference on a rewritten node (its types must not move). */
static tvm_status reinfer(tvm_graph *g, tvm_gnode *n) {
  tvm_gvalue saved = *n->outputs[0];
  tvm_status st = n->def && n->def->infer ? n->def->infer(g, n) : TVM_OK;
  if (st) return st;
  tvm_gvalue *y = n->outputs[0];
  int same = tvm_dtype_eq(saved.dtype, y->dtype) && saved.ndim == y->ndim;
  for (int d = 0; same && d < y->ndim; d++) same = saved.shape[d] == y->shape[d];
  if (!same)
    return tvm_diag_set(TVM_ERR_INTERNAL,
                        "simplify_inference: folding changed the type of node '%s'",
                        n->name);
  return TVM_OK;
}

/* Conv: W'[o, ...] = W[o, ...] * a[o], B'[o] = B[o] * a[o] + b[o].
 * 1 when folded, 0 when the pattern does not apply, <0 on failure. */
static int fold_conv(walk *w, tvm_gnode *bn, const double *a, const double *b,
                     int64_t C) {
  tvm_gvalue *x = bn->inputs[0];
  if (!sole_output_of(w, x, "Conv")) return 0;
  tvm_gnode *conv = x->producer;
  tvm_gvalue *W = conv->ninputs >= 2 ? conv->inputs[1] : NULL;
  tvm_gvalue *B = conv->ninputs >= 3 ? conv->inputs[2] : NULL;
  if (!const_f32(W, -1) || W->ndim < 2 || W->shape[0] != C) return 0;
  if (B && !const_f32(B, C)) return 0;
  tvm_graph *g = w->g;
  const char *wn = tvm_arena_printf(g->arena, "%s.weight", conv->name);
  const char *bname = tvm_arena_printf(g->arena, "%s.bias", conv->name);
  int64_t bshape[1] = {C};
  tvm_gvalue *W2 = wn ? graph_new_const(g, wn, TVM_F32, W->shape, W->ndim) : NULL;
  tvm_gvalue *B2 = bname ? graph_new_const(g, bname, TVM_F32, bshape, 1) : NULL;
  if (!W2 || !B2)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory folding '%s' into '%s'",
                        bn->name, conv->name);
  int64_t per = C ? tvm_gvalue_numel(W) / C : 0;
  const float *wd = W->data, *bd = B ? B->data : NULL;
  float *w2 = W2->data, *b2 = B2->data;
  for (int64_t o = 0; o < C; o++) {
    for (int64_t j = 0; j < per; j++) w2[o * per + j] = (float)(wd[o * per + j] * a[o]);
    b2[o] = (float)((bd ? bd[o] : 0.0) * a[o] + b[o]);
  }
  tvm_status st = ensure_inputs(g, conv, 3);
  if (st) return st;
  conv->inputs[1] = W2;
  conv->inputs[2] = B2;
  if ((st = reinfer(g, conv))) return st;
  take_over(w, bn, x);
  return 1;
}

/* Gemm: B scaled along the output column, C' = C * a + b / beta (or b with
 * beta set to 1 when there is no C or beta is 0). */
static int fold_gemm(walk *w, tvm_gnode *bn, const double *a, const double *b,
                     int64_t C) {
  tvm_gvalue *x = bn->inputs[0];
  if (x->ndim != 2 || !sole_output_of(w, x, "Gemm")) return 0;
  tvm_gnode *gm = x->producer;
  tvm_gvalue *Bv = gm->inputs[1];
  tvm_gvalue *Cv = gm->ninputs >= 3 ? gm->inputs[2] : NULL;
  int transB = tvm_gnode_int(gm, "transB", 0) != 0;
  double beta = tvm_gnode_float(gm, "beta", 1.0);
  if (!const_f32(Bv, -1) || Bv->ndim != 2 || Bv->shape[transB ? 0 : 1] != C) return 0;
  int use_c = Cv && beta != 0.0;
  int64_t cshape[2] = {C, C};
  int cnd = 1;
  if (use_c) {
    if (!const_f32(Cv, -1) || Cv->ndim > 2) return 0;
    cnd = Cv->ndim ? Cv->ndim : 1;
    int64_t last = Cv->ndim ? Cv->shape[Cv->ndim - 1] : 1;
    if (last != 1 && last != C) return 0;
    if (Cv->ndim == 2) cshape[0] = Cv->shape[0];
    cshape[cnd - 1] = C;
  }
  tvm_graph *g = w->g;
  const char *bn_ = tvm_arena_printf(g->arena, "%s.weight", gm->name);
  const char *cn = tvm_arena_printf(g->arena, "%s.bias", gm->name);
  tvm_gvalue *B2 = bn_ ? graph_new_const(g, bn_, TVM_F32, Bv->shape, 2) : NULL;
  tvm_gvalue *C2 = cn ? graph_new_const(g, cn, TVM_F32, cshape, cnd) : NULL;
  if (!B2 || !C2)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory folding '%s' into '%s'",
                        bn->name, gm->name);
  const float *bd = Bv->data;
  float *b2 = B2->data, *c2 = C2->data;
  int64_t r = Bv->shape[0], cols = Bv->shape[1];
  for (int64_t i = 0; i < r; i++)
    for (int64_t j = 0; j < cols; j++)
      b2[i * cols + j] = (float)(bd[i * cols + j] * a[transB ? i : j]);
  int64_t rows = cnd == 2 ? cshape[0] : 1;
  for (int64_t i = 0; i < rows; i++)
    for (int64_t m = 0; m < C; m++) {
      double v = b[m];
      if (use_c) {
        const float *cd = Cv->data;
        int64_t last = Cv->ndim ? Cv->shape[Cv->ndim - 1] : 1;
        v = cd[(cnd == 2 ? i * last : 0) + (last == 1 ? 0 : m)] * a[m] + b[m] / beta;
      }
      c2[i * C + m] = (float)v;
    }
  tvm_status st = ensure_inputs(g, gm, 3);
  if (st) return st;
  gm->inputs[1] = B2;
  gm->inputs[2] = C2;
  if (!use_c && beta != 1.0) {
    /* C' is b itself: the new attribute list has beta = 1. */
    tvm_gattr *at = tvm_arena_alloc(g->arena, sizeof(tvm_gattr) * (size_t)gm->nattrs);
    if (!at) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory rewriting '%s'", gm->name);
    for (int i = 0; i < gm->nattrs; i++) {
      at[i] = gm->attrs[i];
      if (strcmp(at[i].name, "beta") == 0) at[i] = tvm_gattr_float(at[i].name, 1.0);
    }
    gm->attrs = at;
  }
  if ((st = reinfer(g, gm))) return st;
  take_over(w, bn, x);
  return 1;
}

/* Adds a node of op on (x, c) named name; its output, or NULL. */
static tvm_gvalue *binary(tvm_graph *g, const char *op, const char *name,
                          tvm_gvalue *x, tvm_gvalue *c) {
  tvm_gvalue *in[2] = {x, c};
  return tvm_graph_apply(g, op, name, in, 2, NULL, 0, 1, NULL);
}

/* MatMul with a constant 2-D B and a 2-D output: B scaled per column, the
 * shift added by a new Add. */
static int fold_matmul(walk *w, tvm_gnode *bn, const double *a, const double *b,
                       int64_t C) {
  tvm_gvalue *x = bn->inputs[0];
  if (x->ndim != 2 || !sole_output_of(w, x, "MatMul")) return 0;
  tvm_gnode *mm = x->producer;
  tvm_gvalue *Bv = mm->inputs[1];
  if (!const_f32(Bv, -1) || Bv->ndim != 2 || Bv->shape[1] != C) return 0;
  tvm_graph *g = w->g;
  const char *wn = tvm_arena_printf(g->arena, "%s.weight", mm->name);
  const char *sn = tvm_arena_printf(g->arena, "%s.shift", bn->name);
  const char *an = tvm_arena_printf(g->arena, "%s.add", bn->name);
  int64_t sshape[1] = {C};
  tvm_gvalue *B2 = wn ? graph_new_const(g, wn, TVM_F32, Bv->shape, 2) : NULL;
  tvm_gvalue *S = sn ? graph_new_const(g, sn, TVM_F32, sshape, 1) : NULL;
  if (!B2 || !S || !an)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory folding '%s' into '%s'",
                        bn->name, mm->name);
  const float *bd = Bv->data;
  float *b2 = B2->data, *s = S->data;
  for (int64_t k = 0; k < Bv->shape[0]; k++)
    for (int64_t m = 0; m < C; m++) b2[k * C + m] = (float)(bd[k * C + m] * a[m]);
  for (int64_t m = 0; m < C; m++) s[m] = (float)b[m];
  mm->inputs[1] = B2;
  tvm_status st = reinfer(g, mm);
  if (st) return st;
  tvm_gvalue *y = binary(g, "Add", an, x, S);
  if (!y) return tvm_graph_status(g);
  y->name = bn->outputs[0]->name;
  tvm_graph_replace_uses(g, bn->outputs[0], y);
  return 1;
}

/* y = x * scale + shift with [C, 1, ..., 1] constants. */
static int to_mul_add(walk *w, tvm_gnode *bn, const double *a, const double *b,
                      int64_t C) {
  tvm_graph *g = w->g;
  tvm_gvalue *x = bn->inputs[0];
  int64_t shape[TVM_MAX_DIMS];
  int nd = x->ndim - 1;
  shape[0] = C;
  for (int d = 1; d < nd; d++) shape[d] = 1;
  const char *scn = tvm_arena_printf(g->arena, "%s.scale", bn->name);
  const char *shn = tvm_arena_printf(g->arena, "%s.shift", bn->name);
  const char *mn = tvm_arena_printf(g->arena, "%s.mul", bn->name);
  const char *an = tvm_arena_printf(g->arena, "%s.add", bn->name);
  tvm_gvalue *sc = scn ? graph_new_const(g, scn, TVM_F32, shape, nd) : NULL;
  tvm_gvalue *sh = shn ? graph_new_const(g, shn, TVM_F32, shape, nd) : NULL;
  if (!sc || !sh || !mn || !an)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory rewriting '%s'", bn->name);
  float *scd = sc->data, *shd = sh->data;
  for (int64_t c = 0; c < C; c++) {
    scd[c] = (float)a[c];
    shd[c] = (float)b[c];
  }
  tvm_gvalue *m = binary(g, "Mul", mn, x, sc);
  tvm_gvalue *y = m ? binary(g, "Add", an, m, sh) : NULL;
  if (!y) return tvm_graph_status(g);
  y->name = bn->outputs[0]->name;
  tvm_graph_replace_uses(g, bn->outputs[0], y);
  return 1;
}

/* Rewrites one BatchNormalization when it is an inference one with
 * constant parameters; 1 when done, 0 when left alone, <0 on failure. */
static int simplify_bn(walk *w, tvm_gnode *bn) {
  if (bn->ninputs != 5 || bn->noutputs < 1 || !bn->outputs[0]) return 0;
  if (tvm_gnode_int(bn, "training_mode", 0) != 0) return 0;
  for (int k = 1; k < bn->noutputs; k++)
    if (bn->outputs[k] && live_uses(w, bn->outputs[k])) return 0;
  tvm_gvalue *x = bn->inputs[0];
  if (!x || x->ndim < 2 || x->layout || !tvm_dtype_eq(x->dtype, TVM_F32)) return 0;
  int64_t C = x->shape[1];
  for (int i = 1; i < 5; i++)
    if (!const_f32(bn->inputs[i], C)) return 0;
  double eps = tvm_gnode_float(bn, "epsilon", 1e-5);
  double *a = tvm_malloc(sizeof(double) * (size_t)(C ? 2 * C : 1));
  if (!a) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory rewriting '%s'", bn->name);
  double *b = a + C;
  const float *scale = bn->inputs[1]->data, *bias = bn->inputs[2]->data;
  const float *mean = bn->inputs[3]->data, *var = bn->inputs[4]->data;
  for (int64_t c = 0; c < C; c++) {
    a[c] = scale[c] / sqrt((double)var[c] + eps);
    b[c] = bias[c] - mean[c] * a[c];
  }
  int rc = fold_conv(w, bn, a, b, C);
  if (rc == 0) rc = fold_gemm(w, bn, a, b, C);
  if (rc == 0) rc = fold_matmul(w, bn, a, b, C);
  if (rc == 0) rc = to_mul_add(w, bn, a, b, C);
  tvm_free(a);
  return rc;
}

/* The single element of CONST v (numel 1, of rank at most rank) as a
 * double in *out; 0 when v is not such a constant. */
static int const_scalar(const tvm_gvalue *v, int rank, double *out) {
  if (!v || v->kind != TVM_GV_CONST || !v->data || v->ndim > rank ||
      tvm_gvalue_numel(v) != 1)
    return 0;
  if (tvm_dtype_eq(v->dtype, TVM_F32)) *out = *(const float *)v->data;
  else if (tvm_dtype_eq(v->dtype, TVM_F64)) *out = *(const double *)v->data;
  else if (tvm_dtype_eq(v->dtype, TVM_I32)) *out = *(const int32_t *)v->data;
  else if (tvm_dtype_eq(v->dtype, TVM_I64))
    *out = (double)*(const int64_t *)v->data;
  else return 0;
  return 1;
}

/* Pow(x, 2) of a float x with a constant scalar exponent: Mul(x, x), the
 * same correctly rounded square without a pow call per element (opset-13
 * exporters write LayerNorm's variance that way).  1 when rewritten. */
static int simplify_pow(walk *w, tvm_gnode *n) {
  double e;
  if (n->ninputs != 2 || n->noutputs != 1 || !n->outputs[0]) return 0;
  tvm_gvalue *x = n->inputs[0];
  if (!x || x->layout || !(tvm_dtype_eq(x->dtype, TVM_F32) ||
                           tvm_dtype_eq(x->dtype, TVM_F64)))
    return 0;
  if (!const_scalar(n->inputs[1], x->ndim, &e) || e != 2.0) return 0;
  const char *mn = tvm_arena_printf(w->g->arena, "%s.square", n->name);
  if (!mn)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory rewriting '%s'", n->name);
  tvm_gvalue *y = binary(w->g, "Mul", mn, x, x);
  if (!y) return tvm_graph_status(w->g);
  take_over(w, n, y);
  return 1;
}

/* ReduceMean / ReduceMax of a 4-D float32 x over its two spatial axes
 * ({2, 3} or {-2, -1}, as the attribute or a constant input) with
 * keepdims (as the operator reads them, op_reduce_axes):
 * GlobalAveragePool / GlobalMaxPool, the same [N, C, 1, 1].
 * torch's dynamo exporter writes squeeze-and-excitation's squeeze that
 * way; the pools run on the blocked layout of the convolutions around
 * them (alter_layout), where a ReduceMean sent each map back to NCHW and
 * its scale forth again (EfficientNet-B0 at opset 18: 32 LayoutTransform
 * steps).  1 when rewritten. */
static int simplify_spatial_reduce(walk *w, tvm_gnode *n, const char *pool) {
  if (n->noutputs != 1 || !n->outputs[0] || n->ninputs < 1) return 0;
  tvm_gvalue *x = n->inputs[0];
  int red[TVM_MAX_DIMS], keep;
  if (!x || x->layout || x->ndim != 4 || !tvm_dtype_eq(x->dtype, TVM_F32) ||
      op_reduce_axes(n, red, &keep) != TVM_OK || !keep || red[0] || red[1] ||
      !red[2] || !red[3])
    return 0;
  const char *pn = tvm_arena_printf(w->g->arena, "%s.pool", n->name);
  if (!pn)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory rewriting '%s'", n->name);
  tvm_gvalue *y = tvm_graph_apply(w->g, pool, pn, &x, 1, NULL, 0, 1, NULL);
  if (!y) return tvm_graph_status(w->g);
  take_over(w, n, y);
  return 1;
}

/* Simplifies g for inference (see the top of the file). */
tvm_status tvm_graph_pass_simplify_inference(tvm_graph *g) {
  if (!g) return tvm_diag_set(TVM_ERR_INVALID, "simplify_inference: graph is NULL");
  tvm_status st = tvm_graph_toposort(g);
  if (st) return st;
  walk w = {g, {0}};
  /* Nodes appended by the rewrites (Mul, Add) come after the old end. */
  size_t nold = g->nodes.len;
  for (size_t i = 0; i < nold && !st; i++) {
    tvm_gnode *n = g->nodes.data[i];
    int done = 0;
    if (graph_is_passthrough(g, n)) {
      tvm_graph_replace_uses(g, n->outputs[0], n->inputs[0]);
      done = 1;
    } else if (strcmp(n->op, "BatchNormalization") == 0) {
      done = simplify_bn(&w, n);
    } else if (strcmp(n->op, "Pow") == 0) {
      done = simplify_pow(&w, n);
    } else if (strcmp(n->op, "ReduceMean") == 0) {
      done = simplify_spatial_reduce(&w, n, "GlobalAveragePool");
    } else if (strcmp(n->op, "ReduceMax") == 0) {
      done = simplify_spatial_reduce(&w, n, "GlobalMaxPool");
    }
    if (done < 0) st = done;
    else if (done) st = tvm_ptrmap_put(&w.dead, n, n);
  }
  if (!st) {
    graph_remove_nodes(g, &w.dead);
    st = tvm_graph_toposort(g);
  }
  tvm_ptrmap_free(&w.dead);
  return st;
}
