/*
 * core/compiler/schedule_generic.c - the core's schedule for a fused group
 * when the target has no strategy for its anchor operator.
 *
 * Simple, correct and reasonably fast on CPUs:
 *  - padded copies of an input (tag "pad", before a convolution or a
 *    pooling window) are computed once at the root, so the windows read
 *    plain affine indices (contiguous vector loads) instead of clamped,
 *    selected ones;
 *  - other intermediate injective stages are inlined into their readers,
 *    except one that is both large (more than INLINE_MAX_COST expression
 *    nodes once its own inlined inputs are substituted) and read more than
 *    once, which would make the inlined expression grow exponentially;
 *  - other intermediates (reductions such as a convolution before its
 *    fused epilogue, or those large stages) are computed at the outer loop
 *    of the output when the group has one output and bound inference shows
 *    that each iteration needs its own part of them (a conv row, a softmax
 *    row), else at the root (an LSTM step reads all earlier steps);
 *  - an output stage gets its data-parallel axes but the last fused into
 *    one parallel loop (only the leading ones that make PAR_GRAIN
 *    iterations when no intermediate is attached to it; the others stay
 *    serial loops inside); the last axis is split by the vector width (see
 *    vector_width: a dividing power of two, else a masked tail) and the
 *    inner part vectorized; reduce loops go inside the data loops but
 *    outside that vector lane loop, so the accumulation is lane-wise;
 *  - a reduction that would then read an input across its rows (a dense
 *    layer with transposed weights, B[n, k]) is rfactored instead: partial
 *    sums of `lanes` lanes along the contiguous reduce axis, computed per
 *    output element with the lanes vectorized, then summed.
 * Stages computed at another stage's loop get the same treatment of
 * their last axis and reduce loops, without the parallel loop.
 */
#include <string.h>

#include "compiler_int.h"

#define INLINE_MAX_COST 256

/* Counts expression nodes and the reads of each tensor in an operation's
 * body (tensor -> count in reads). */
typedef struct body_stats {
  int64_t nodes;
  tvm_ptrmap *reads; /* tvm_tensor* -> (intptr_t) count */
  tvm_ptrmap *cost;  /* tvm_tensor* -> (intptr_t) inlined cost, if inlined */
  int64_t cost_sum;  /* nodes with inlined reads expanded */
  int int_div;       /* an integer division or modulo by a non-constant */
  int oom;
} body_stats;

static int count_expr(tvm_visitor *v, const tvm_expr *e) {
  body_stats *b = v->data;
  b->nodes++;
  b->cost_sum++;
  if ((e->kind == TVM_DIV || e->kind == TVM_MOD || e->kind == TVM_FLOORDIV ||
       e->kind == TVM_FLOORMOD) &&
      !tvm_dtype_is_float(e->dtype) && !tvm_is_const_int(e->u.bin.b, NULL))
    b->int_div = 1;
  if (e->kind == TVM_TREAD) {
    void *p = NULL;
    tvm_tensor *t = e->u.tread.tensor;
    tvm_ptrmap_get(b->reads, t, &p);
    if (tvm_ptrmap_put(b->reads, t, (void *)((intptr_t)p + 1)))
      b->oom = 1;
    if (b->cost && tvm_ptrmap_get(b->cost, t, &p))
      b->cost_sum += (intptr_t)p;
  }
  return 0;
}

/* Tensor reads of an expression, collected by collect_read. */
typedef struct read_acc {
  tvm_ptrvec *v;
  int oom;
} read_acc;

static int collect_read(tvm_visitor *v, const tvm_expr *e) {
  read_acc *a = v->data;
  if (e->kind == TVM_TREAD && tvm_ptrvec_push(a->v, (void *)e))
    a->oom = 1;
  return 0;
}

/* Constant extent of a root axis (-1 when unknown). */
static int64_t axis_extent(const tvm_iter_var *iv) {
  int64_t v;
  if (iv && iv->dom.extent && tvm_is_const_int(iv->dom.extent, &v))
    return v;
  return -1;
}

/* The vector width for an axis of extent e: the largest power of two
 * from lanes down to 8 dividing e; else, for e >= 4, lanes or the power
 * of two just above e when smaller (the split leaves a guarded tail that
 * vectorize turns into masked lanes; not allowed when the group divides
 * integers by data, which would trap in the masked lanes); 0 for shorter
 * axes. */
static int vector_width(int64_t e, int lanes, int allow_mask) {
  int v;
  for (v = lanes; v >= 8; v /= 2)
    if (e > 0 && e % v == 0)
      return v;
  if (e < 4 || !allow_mask)
    return 0;
  for (v = 4; v < lanes && v < e; v *= 2) {
  }
  return v;
}

/* The parallel loop of a stage nothing is attached to fuses its leading
 * data axes only until they make PAR_GRAIN iterations (chunks enough for
 * the pool to balance on many cores); the axes after them stay serial
 * loops inside, whose indices step by constants, instead of being
 * recovered by a division and a modulo per vector (SqueezeNet's Concat
 * over [1, 16, 55, 55, 8c] did two of each per 8 floats copied). */
#define PAR_GRAIN 256

/* Loop nest of one stage: the data axes but the last stay (fused into
 * *outer when fuse_outer: all of them, or with grain > 0 the fewest
 * leading ones that make `grain` iterations), then the last axis split by
 * the vector width, the reduce axes, and the vector lanes innermost. */
static tvm_status nest_stage(tvm_stage *st, int lanes, int allow_mask,
                             int fuse_outer, int64_t grain,
                             tvm_iter_var **outer) {
  tvm_operation *op = st->op;
  int na = op->naxis, nr = op->nreduce;
  tvm_iter_var *last, *lo = NULL, *li = NULL;
  tvm_status rc;
  *outer = NULL;
  if (na == 0)
    return TVM_OK;
  last = tvm_stage_axis(st, na - 1);
  int v = lanes ? vector_width(axis_extent(last), lanes, allow_mask) : 0;
  if (fuse_outer && na >= 2) {
    int nfuse = na - 1; /* leading axes fused */
    int64_t it = 1;
    for (int i = 0; grain > 0 && i < na - 1; i++) {
      int64_t x = axis_extent(op->axis[i]);
      if (x < 0)
        break; /* unknown extents: all of them, as without a grain */
      it *= x;
      if (it >= grain) {
        nfuse = i + 1;
        break;
      }
    }
    tvm_iter_var *f = tvm_stage_axis(st, 0);
    for (int i = 1; i < nfuse; i++) {
      rc = tvm_fuse(st, f, tvm_stage_axis(st, i), &f);
      if (rc)
        return rc;
    }
    *outer = f;
  }
  if (v) {
    if ((rc = tvm_split(st, last, v, &lo, &li)))
      return rc;
    if (nr > 0) {
      tvm_iter_var *order[2 + 8];
      int k = 0;
      order[k++] = lo;
      for (int r = 0; r < nr && k < 9; r++)
        order[k++] = tvm_stage_reduce_axis(st, r);
      order[k++] = li;
      if (nr <= 7 && (rc = tvm_reorder(st, order, k)))
        return rc;
      if (nr > 7)
        return TVM_OK; /* leave the lanes serial */
    }
    if ((rc = tvm_vectorize(st, li)))
      return rc;
  }
  return TVM_OK;
}

/* Finds whether vectorizing the last data axis of reduction stage st
 * would read an input across its rows: a read whose innermost index uses
 * a reduce axis but not the last data axis, which another index uses
 * (dense layers with transposed weights: B[n, k]).  Returns the position
 * of that reduce axis, or -1. */
static int strided_reduce_axis(const tvm_stage *st) {
  const tvm_operation *op = st->op;
  if (op->kind != TVM_OP_COMPUTE || !op->body || op->body->kind != TVM_REDUCE ||
      op->naxis == 0)
    return -1;
  tvm_ptrvec reads = {0};
  int found = -1;
  const tvm_expr *dl = op->axis[op->naxis - 1]->var;
  /* collect the reads of the reduction's source */
  read_acc a = {&reads, 0};
  tvm_visitor vis = {collect_read, NULL, &a};
  tvm_visit_expr(&vis, op->body->u.reduce.source);
  for (size_t i = 0; i < reads.len && !a.oom; i++) {
    const tvm_expr *e = reads.data[i];
    int n = e->u.tread.n;
    if (n < 2 || tvm_expr_uses_var(e->u.tread.indices[n - 1], dl))
      continue;
    int other = 0;
    for (int d = 0; d < n - 1; d++)
      other |= tvm_expr_uses_var(e->u.tread.indices[d], dl);
    if (!other)
      continue;
    for (int r = 0; r < op->nreduce; r++)
      if (tvm_expr_uses_var(e->u.tread.indices[n - 1], op->reduce_axis[r]->var))
        found = r;
  }
  tvm_ptrvec_free(&reads);
  return a.oom ? -1 : found;
}

/* Splits reduce axis r of st by v and factors the inner part out into a
 * partial-sum stage of v lanes computed per output element, with its
 * lanes vectorized along the contiguous reduction; st keeps a v-wide
 * reduction.  *rf receives the new stage (the caller computes it at
 * st's last data axis, which stays a leaf: st is not vectorized). */
static tvm_status rfactor_lanes(tvm_schedule *s, tvm_stage *st, int r, int v,
                                tvm_stage **rf) {
  tvm_iter_var *ko, *ki;
  tvm_tensor *t = st->op->output, *rft = NULL;
  int na = st->op->naxis;
  tvm_status rc = tvm_split(st, tvm_stage_reduce_axis(st, r), v, &ko, &ki);
  if (!rc)
    rc = tvm_rfactor(s, t, ki, na, &rft);
  if (rc)
    return rc;
  tvm_stage *rs = tvm_stage_of(s, rft);
  if (!rs)
    return tvm_diag_set(TVM_ERR_INTERNAL, "rfactor: no stage");
  tvm_iter_var *order[9];
  int k = 0, nr = rs->op->nreduce;
  if (nr > 7)
    return TVM_OK; /* leave it serial */
  for (int i = 0; i < nr; i++)
    order[k++] = tvm_stage_reduce_axis(rs, i);
  order[k++] = tvm_stage_axis(rs, na);
  if ((rc = tvm_reorder(rs, order, k)) ||
      (rc = tvm_vectorize(rs, order[k - 1])))
    return rc;
  *rf = rs;
  return TVM_OK;
}

/* Computes every stage of `later` at axis `attach` of `out`, then puts
 * back at the root those whose region per iteration of that loop, times
 * its `outer_ext` iterations, exceeds 1.5 times the stage's size: they
 * would be recomputed (bound inference says how much each needs). */
static tvm_status attach_or_root(tvm_schedule *s, tvm_ptrvec *later,
                                 tvm_stage *out, tvm_iter_var *attach,
                                 int64_t outer_ext) {
  tvm_ptrmap ranges = {0};
  tvm_status rc = TVM_OK;
  for (size_t i = 0; i < later->len && !rc; i++)
    rc = tvm_compute_at(later->data[i], out, attach);
  if (!rc && tvm_infer_bound(s, &ranges) != TVM_OK) {
    /* a placement bound inference refuses: everything at the root */
    tvm_diag_clear();
    for (size_t i = 0; i < later->len && !rc; i++)
      rc = tvm_compute_root(later->data[i]);
    tvm_ptrmap_free(&ranges);
    return rc;
  }
  for (size_t i = 0; i < later->len && !rc; i++) {
    tvm_stage *st = later->data[i];
    double region = 1, full = 1;
    for (int a = 0; a < st->op->naxis; a++) {
      tvm_iter_var *iv = st->op->axis[a];
      void *r = NULL;
      int64_t ext = axis_extent(iv), v = -1;
      if (tvm_ptrmap_get(&ranges, iv, &r) && r && ((tvm_range *)r)->extent)
        tvm_is_const_int(((tvm_range *)r)->extent, &v);
      if (ext < 0 || v < 0) {
        region = 2, full = 1; /* unknown: keep it at the root */
        break;
      }
      region *= (double)v;
      full *= (double)ext;
    }
    if (region * (double)outer_ext > 1.5 * full)
      rc = tvm_compute_root(st);
  }
  tvm_ptrmap_free(&ranges);
  return rc;
}

/* See compiler_int.h. */
tvm_status compiler_schedule_generic(tvm_schedule *s, tvm_tensor **outs,
                                     int nouts, int lanes) {
  tvm_ptrmap reads = {0}, cost = {0};
  tvm_status rc = TVM_OK;
  tvm_ptrvec later = {0}; /* materialized intermediates */
  tvm_ptrvec roots = {0}; /* padded copies, computed at the root */
  tvm_stage *out_stage = NULL;
  tvm_iter_var *attach = NULL;
  int64_t outer_ext = 1;  /* iterations of the output's outer loop */
  int mask = 1;           /* masked vector tails allowed */
  tvm_ptrmap novec = {0}; /* stages whose last axis stays scalar */
  void *nv;

  /* read counts and inlining decisions, producers first */
  for (size_t i = 0; i < s->stages.len && !rc; i++) {
    tvm_stage *st = s->stages.data[i];
    if (st->op->kind != TVM_OP_COMPUTE || !st->op->body)
      continue;
    body_stats b = {0, &reads, &cost, 0, 0, 0};
    tvm_visitor v = {count_expr, NULL, &b};
    tvm_visit_expr(&v, st->op->body);
    if (b.oom)
      rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
    if (b.int_div)
      mask = 0;
    if (!st->is_output && st->op->body->kind != TVM_REDUCE &&
        tvm_ptrmap_put(&cost, st->op->output, (void *)(intptr_t)b.cost_sum))
      rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
  }
  for (size_t i = 0; i < s->stages.len && !rc; i++) {
    tvm_stage *st = s->stages.data[i];
    void *nr = NULL, *c = NULL;
    if (st->op->kind != TVM_OP_COMPUTE || st->is_output)
      continue;
    tvm_ptrmap_get(&reads, st->op->output, &nr);
    int inl = st->op->body && st->op->body->kind != TVM_REDUCE &&
              tvm_ptrmap_get(&cost, st->op->output, &c) &&
              ((intptr_t)nr <= 1 || (intptr_t)c <= INLINE_MAX_COST);
    if (st->op->tag && strcmp(st->op->tag, "pad") == 0) {
      if (tvm_ptrvec_push(&roots, st))
        rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
    } else if (inl)
      rc = tvm_compute_inline(st);
    else if (tvm_ptrvec_push(&later, st))
      rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
  }
  /* reductions reading across rows: partial sums along the contiguous
   * reduction (their own last axis then stays scalar) */
  for (size_t i = 0; i < s->stages.len && !rc; i++) {
    tvm_stage *st = s->stages.data[i], *rf = NULL;
    if (st->attach == TVM_ATTACH_INLINE)
      continue;
    int r = strided_reduce_axis(st);
    int v = r >= 0 ? vector_width(axis_extent(st->op->reduce_axis[r]), lanes, 0)
                   : 0;
    if (!v)
      continue;
    rc = rfactor_lanes(s, st, r, v, &rf);
    if (!rc && rf)
      rc = tvm_compute_at(rf, st, tvm_stage_axis(st, st->op->naxis - 1));
    if (!rc && tvm_ptrmap_put(&novec, st, st))
      rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
    i++; /* the partial-sum stage was inserted before st */
  }
  /* outputs */
  for (int k = 0; k < nouts && !rc; k++) {
    tvm_stage *st = tvm_stage_of(s, outs[k]);
    tvm_iter_var *outer = NULL;
    if (!st) {
      rc = tvm_diag_set(TVM_ERR_INTERNAL, "schedule: output %s has no stage",
                        outs[k]->name);
      break;
    }
    if (st->op->kind != TVM_OP_COMPUTE)
      continue;
    rc = nest_stage(st, tvm_ptrmap_get(&novec, st, &nv) ? 0 : lanes, mask, 1,
                    later.len ? 0 : PAR_GRAIN, &outer);
    if (!rc && outer) {
      int64_t e = 1;
      for (int i = 0; i + 1 < st->op->naxis; i++) {
        int64_t x = axis_extent(st->op->axis[i]);
        e = x < 0 ? 2 : e * x;
      }
      if (e > 1)
        rc = tvm_parallel(st, outer);
      outer_ext = e;
    }
    if (nouts == 1) {
      out_stage = st;
      attach = outer;
    }
  }
  /* materialized intermediates: at the output's outer loop unless that
   * would recompute them (an LSTM step reads every earlier step) */
  if (out_stage && attach && later.len && !rc)
    rc = attach_or_root(s, &later, out_stage, attach, outer_ext);
  for (size_t i = 0; i < later.len && !rc; i++) {
    tvm_stage *st = later.data[i];
    tvm_iter_var *outer = NULL;
    int ln = tvm_ptrmap_get(&novec, st, &nv) ? 0 : lanes;
    if (st->attach == TVM_ATTACH_SCOPE) {
      rc = nest_stage(st, ln, mask, 0, 0, &outer);
    } else {
      rc = nest_stage(st, ln, mask, 1, PAR_GRAIN, &outer);
      if (!rc && outer)
        rc = tvm_parallel(st, outer);
    }
  }
  for (size_t i = 0; i < roots.len && !rc; i++) {
    tvm_stage *st = roots.data[i];
    tvm_iter_var *outer = NULL;
    rc = nest_stage(st, lanes, mask, 1, PAR_GRAIN, &outer);
    if (!rc && outer)
      rc = tvm_parallel(st, outer);
  }
  tvm_ptrvec_free(&roots);
  tvm_ptrmap_free(&novec);
  tvm_ptrvec_free(&later);
  tvm_ptrmap_free(&reads);
  tvm_ptrmap_free(&cost);
  return rc;
}
