/*
 * core/schedule/gpu_winograd.c - the schedule template of the Winograd
 * F(2x2, 3x3) convolution (tvm/gpu_templates.h) for thread targets, after
 * the paper's Mali Winograd schedule; the tensor expressions are the TE
 * layer's (core/te/winograd.c, tvm_op_winograd_*), which the graph's
 * Conv2D_winograd computes with U transformed once at compile time.
 *
 * Three kernels, none using shared memory, every constant matrix and the
 * padding inlined:
 *
 *   V: one work-item per (channel, tile): its 4x4 patch transformed in
 *      registers, the 16 outputs unrolled;
 *   M: the 16 GEMMs, a work-item computing a tile_k x tile_p register
 *      block ("local") of one (e, v) product, reduced over the channels
 *      (the blocks of all 16 products flattened into one 1-D range),
 *      the tile_p axis (consecutive tiles) vectorized where the lanes
 *      allow;
 *   O: one work-item per output element: its At M At sum in a register
 *      (compute_at, "local"), the fused epilogue (bias, activation,
 *      residual add) applied before the one store.
 *
 * U must be an input: the template declines (TVM_ERR_UNSUPPORTED) a
 * kernel transform computed in the same group (tvm_gpu_conv2d_winograd's
 * U); a graph's Conv2D_winograd_weight on weights that are not constant
 * is a group of its own.
 */
#include <string.h>

#include "gpu_int.h"
#include "tvm/te.h"

/* See tvm/gpu_templates.h. */
tvm_tensor *tvm_gpu_conv2d_winograd(tvm_ctx *c, tvm_tensor *X, tvm_tensor *W,
                                    int64_t pad_h, int64_t pad_w) {
  if (!X || !W || X->ndim != 4 || W->ndim != 4 ||
      W->shape_c[1] != X->shape_c[1]) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED,
                 "winograd F(2x2, 3x3): expected X [N, C, H, W] and W "
                 "[K, C, 3, 3] with non-negative padding");
    return NULL;
  }
  tvm_tensor *U = tvm_op_winograd_kernel(c, W);
  return U ? tvm_op_winograd_conv2d(c, X, U, pad_h, pad_w)
           : NULL;
}


/* ---- the schedule ------------------------------------------------------- */

#define OK(x)                                                                 \
  do {                                                                        \
    if ((st = (x)) != TVM_OK) goto out;                                       \
  } while (0)

/* Fuses every axis of st into one loop, splits it by wg and binds the
 * parts to blockIdx.x / threadIdx.x; *tx = the thread loop. */
static tvm_status flat_threads(tvm_stage *st, int64_t wg, tvm_iter_var **tx) {
  tvm_iter_var *f = tvm_stage_axis(st, 0), *bx;
  tvm_status s;
  for (int d = 1; d < st->op->output->ndim; d++)
    if ((s = tvm_fuse(st, f, tvm_stage_axis(st, d), &f))) return s;
  if ((s = tvm_split(st, f, wg, &bx, tx)) || (s = gpu_bind(st, bx, "blockIdx.x")))
    return s;
  return gpu_bind(st, *tx, "threadIdx.x");
}

/* See tvm/gpu_templates.h and the top of this file. */
tvm_status tvm_gpu_schedule_conv2d_winograd(tvm_schedule *s,
                                            tvm_tensor **outs, int nouts,
                                            const tvm_gpu_limits *lim,
                                            tvm_config *cfg) {
  static const char who[] = "gpu winograd template";
  tvm_ptrvec ops = {0};
  tvm_operation *V = NULL, *M = NULL, *Y = NULL, *U = NULL;
  tvm_status st = TVM_OK;
  if (nouts != 1 || outs[0]->ndim != 4 || outs[0]->op->kind != TVM_OP_COMPUTE)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s: expected one computed 4-D output, got %d "
                        "outputs", who, nouts);
  tvm_tensor *O = outs[0];
  OK(tvm_op_reachable_computes(O, &ops));
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    const char *t = op->tag ? op->tag : "";
    if (!strcmp(t, "winograd_input")) V = op;
    else if (!strcmp(t, "winograd_batch_gemm")) M = op;
    else if (!strcmp(t, "winograd_output")) Y = op;
    else if (!strcmp(t, "winograd_kernel")) U = op;
  }
  if (!V || !M || !Y) {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: no winograd stages under "
                      "'%s'", who, O->name);
    goto out;
  }
  if (U) {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: '%s' transforms its kernel "
                      "on the device; the template takes U as an input (the "
                      "graph's Conv2D_winograd, U folded at compile time)",
                      who, O->name);
    goto out;
  }
  for (int d = 0; d < 4; d++)
    if (O->shape_c[d] < 1 || M->output->shape_c[d] < 1) {
      st = tvm_diag_set(TVM_ERR_UNSUPPORTED, "%s: '%s' has a symbolic "
                        "shape", who, O->name);
      goto out;
    }
  int64_t K = M->output->shape_c[2], P = M->output->shape_c[3];
  int64_t kch[16], pch[16];
  int nk = gpu_divisors_upto(K, 4, kch), np = gpu_divisors_upto(P, 4, pch);
  int64_t tk = tvm_cfg_choice(cfg, "tile_k", kch, nk,
                              gpu_largest_upto(kch, nk, 4));
  int64_t tp = tvm_cfg_choice(cfg, "tile_p", pch, np,
                              gpu_largest_upto(pch, np, 4));
  int64_t wg = gpu_wg_knob(cfg, 16, 64, lim);
  if (wg > lim->max_threads) {
    st = gpu_too_large(cfg, who, wg, lim->max_threads);
    goto out;
  }
  /* the constant matrices, the padding and the epilogue's inner stages */
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op != O->op && op != V && op != M && op != Y)
      OK(tvm_compute_inline(tvm_stage_of(s, op->output)));
  }
  tvm_iter_var *tx;
  /* V: (c, p) per work-item, the 4 x 4 outputs and the patch unrolled */
  tvm_stage *sv = tvm_stage_of(s, V->output);
  {
    tvm_iter_var *cp, *bx;
    OK(tvm_reorder(sv, (tvm_iter_var *[]){tvm_stage_axis(sv, 2),
                                          tvm_stage_axis(sv, 3),
                                          tvm_stage_axis(sv, 0),
                                          tvm_stage_axis(sv, 1)}, 4));
    OK(tvm_fuse(sv, tvm_stage_axis(sv, 2), tvm_stage_axis(sv, 3), &cp));
    OK(tvm_split(sv, cp, wg, &bx, &tx));
    OK(gpu_bind(sv, bx, "blockIdx.x"));
    OK(gpu_bind(sv, tx, "threadIdx.x"));
    OK(tvm_unroll(sv, tvm_stage_axis(sv, 0)));
    OK(tvm_unroll(sv, tvm_stage_axis(sv, 1)));
    OK(tvm_unroll(sv, tvm_stage_reduce_axis(sv, 0)));
    OK(tvm_unroll(sv, tvm_stage_reduce_axis(sv, 1)));
  }
  /* M: one work-item per tile_k x tile_p register block of one (e, v) */
  {
    tvm_tensor *MM;
    OK(tvm_cache_write(s, M->output, "local", &MM));
    tvm_stage *sm = tvm_stage_of(s, M->output), *sc = tvm_stage_of(s, MM);
    tvm_iter_var *ev, *ko, *ki, *po, *pi, *z, *bx;
    OK(tvm_split(sm, tvm_stage_axis(sm, 2), tk, &ko, &ki));
    OK(tvm_split(sm, tvm_stage_axis(sm, 3), tp, &po, &pi));
    OK(tvm_reorder(sm, (tvm_iter_var *[]){tvm_stage_axis(sm, 0),
                                          tvm_stage_axis(sm, 1), ko, po, ki,
                                          pi}, 6));
    OK(tvm_fuse(sm, tvm_stage_axis(sm, 0), tvm_stage_axis(sm, 1), &ev));
    OK(tvm_fuse(sm, ev, ko, &z));
    /* (e, v, k block, p block) flattened: full work-groups even when the
     * tiles are few (7x7 maps: 16 tiles) */
    OK(tvm_fuse(sm, z, po, &z));
    OK(tvm_split(sm, z, wg, &bx, &tx));
    OK(gpu_bind(sm, bx, "blockIdx.x"));
    OK(gpu_bind(sm, tx, "threadIdx.x"));
    int vec = gpu_vectorizable(tp, lim->lanes);
    OK(tvm_unroll(sm, ki));
    OK(vec ? tvm_vectorize(sm, pi) : tvm_unroll(sm, pi));
    OK(tvm_compute_at(sc, sm, tx));
    OK(tvm_reorder(sc, (tvm_iter_var *[]){tvm_stage_reduce_axis(sc, 0),
                                          tvm_stage_axis(sc, 2),
                                          tvm_stage_axis(sc, 3)}, 3));
    OK(tvm_unroll(sc, tvm_stage_axis(sc, 2)));
    OK(vec ? tvm_vectorize(sc, tvm_stage_axis(sc, 3))
           : tvm_unroll(sc, tvm_stage_axis(sc, 3)));
  }
  /* O: one output element per work-item, Y's sum in a register */
  tvm_stage *so = tvm_stage_of(s, O);
  OK(flat_threads(so, wg, &tx));
  if (O->op != Y) {
    tvm_stage *sy = tvm_stage_of(s, Y->output);
    sy->scope = "local";
    OK(tvm_compute_at(sy, so, tx));
  }
  {
    tvm_stage *sy = tvm_stage_of(s, Y->output);
    OK(tvm_unroll(sy, tvm_stage_reduce_axis(sy, 0)));
    OK(tvm_unroll(sy, tvm_stage_reduce_axis(sy, 1)));
  }
out:
  tvm_ptrvec_free(&ops);
  return st;
}
