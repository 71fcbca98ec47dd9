/*
 * core/compiler/schedule_thread.c - the core's generic schedule of a fused
 * group for targets whose kernels launch over thread axes (cuda, vulkan,
 * arm-mali; tvm/strategy.h's thread family).
 *
 *  - intermediate injective stages are inlined into their readers, except
 *    one that is read more than once and large (more than INLINE_MAX_COST
 *    expression nodes), which gets its own kernel like a reduction;
 *  - every remaining stage (outputs, reductions, those large stages) is
 *    its own kernel at the root, in producer order:
 *    - a reduction whose only reader is an elementwise epilogue (a dense
 *      layer's matmul before its bias and activation) is computed inside
 *      the epilogue's thread, in local memory, when bound inference shows
 *      each thread needs one element of it: one kernel, no round trip
 *      through global memory;
 *    - one output element per thread: its data axes fused, split by the
 *      block size (knob "block_size": whole warps up to max_threads,
 *      default the largest up to 256; a split that does not divide leaves a guarded
 *      tail) and bound to blockIdx.x / threadIdx.x; reduce loops stay
 *      serial inside the thread (the default for contractions and other
 *      out-elementwise-fusable or opaque operators);
 *    - a reduction over many elements into few outputs (a softmax row, a
 *      global pooling, a reduce over a long axis) is a cross-thread
 *      reduction (inner extent at least a warp): its innermost reduce axis
 *      is split by T threads (a power of two from the smallest block) and the
 *      inner part factored out (rfactor) into a shared-memory stage
 *      RF[out..., t] of per-thread partial sums computed at the output's
 *      block loop with t bound to threadIdx.x (each thread accumulates in
 *      local memory and stores its partial once); after the barrier (inserted
 *      by the thread_sync pass) every thread of the block sums the T
 *      partials in local memory and stores the same value to the output,
 *      so no thread-dependent condition is needed and no thread reads the
 *      output while another writes it.
 * A stage without data axes (a 0-d result: a full reduction) has nothing
 * to bind: it is computed in local memory inside the thread loop of its
 * one reader (every thread of it recomputes the scalar: correct, and
 * cheap for the small reductions that produce scalars).  A 0-d output
 * is first given a 1-element wrapper by tvm_strategy_schedule, so that
 * it has a reader; a 0-d stage with several readers is refused with an
 * error naming it.
 */
#include <string.h>

#include "tvm/strategy.h"
#include "compiler_int.h"

#define INLINE_MAX_COST 256
#define CROSS_MIN_K 64     /* reduce extent from which threads cooperate */
#define CROSS_MAX_N 4096   /* ... when the outputs are at most this many */

/* Expression nodes of a body and reads of each tensor. */
typedef struct tstats {
  int64_t nodes;
  tvm_ptrmap *reads; /* tvm_tensor* -> count */
  int oom;
} tstats;

static int count_node(tvm_visitor *v, const tvm_expr *e) {
  tstats *b = v->data;
  b->nodes++;
  if (e->kind == TVM_TREAD) {
    void *p = NULL;
    tvm_ptrmap_get(b->reads, e->u.tread.tensor, &p);
    if (tvm_ptrmap_put(b->reads, e->u.tread.tensor, (void *)((intptr_t)p + 1)))
      b->oom = 1;
  }
  return 0;
}

/* Constant extent of an axis, or -1. */
static int64_t extent_of(const tvm_iter_var *iv) {
  int64_t v;
  if (iv && iv->dom.extent && tvm_is_const_int(iv->dom.extent, &v))
    return v;
  return -1;
}

/* Product of the data (reduce = 0) or reduce extents of op; -1 unknown. */
static int64_t volume(const tvm_operation *op, int reduce) {
  int64_t n = 1;
  int k = reduce ? op->nreduce : op->naxis;
  for (int i = 0; i < k; i++) {
    int64_t e = extent_of(reduce ? op->reduce_axis[i] : op->axis[i]);
    if (e < 0)
      return -1;
    n *= e;
  }
  return n;
}

/* Smallest power of two >= n (n >= 1), at most cap. */
static int64_t pow2_at_least(int64_t n, int64_t cap) {
  int64_t p = 1;
  while (p < n && p < cap)
    p *= 2;
  return p;
}

/* Fuses the data axes of st into *f (NULL when it has none). */
static tvm_status fuse_data(tvm_stage *st, tvm_iter_var **f) {
  int na = st->op->naxis;
  tvm_status rc = TVM_OK;
  *f = na ? tvm_stage_axis(st, 0) : NULL;
  for (int i = 1; i < na && !rc; i++)
    rc = tvm_fuse(st, *f, tvm_stage_axis(st, i), f);
  return rc;
}

/* Binds iv of st to thread axis tag. */
static tvm_status bind(tvm_stage *st, tvm_iter_var *iv, const char *tag) {
  tvm_iter_var *t = tvm_thread_axis(st->ctx, tag, NULL);
  if (!t)
    return tvm_ctx_status(st->ctx) ? tvm_ctx_status(st->ctx)
                                   : tvm_diag_set(TVM_ERR_NOMEM,
                                                  "schedule: out of memory");
  return tvm_bind(st, iv, t);
}

/* One output element per thread (see the top); *at = the thread axis. */
static tvm_status per_element(tvm_stage *st, int64_t block,
                              tvm_iter_var **at) {
  tvm_iter_var *f, *bo, *bi;
  int64_t n = volume(st->op, 0);
  tvm_status rc = fuse_data(st, &f);
  if (rc)
    return rc;
  if (n > 0 && n < block)
    block = pow2_at_least(n, block);
  if ((rc = tvm_split(st, f, block, &bo, &bi)))
    return rc;
  if ((rc = bind(st, bo, "blockIdx.x")))
    return rc;
  *at = bi;
  return bind(st, bi, "threadIdx.x");
}

/* Cross-thread reduction of st with T threads (see the top); *at = the
 * block axis. */
static tvm_status cross_thread(tvm_schedule *s, tvm_stage *st, int64_t T,
                               tvm_iter_var **at) {
  tvm_tensor *out = st->op->output, *red = NULL, *rf = NULL, *acc = NULL;
  int na = st->op->naxis;
  tvm_iter_var *ko, *ki, *f, *tx;
  tvm_stage *rs, *ls;
  /* the final sum of the T partials in local memory: every thread
   * computes it and stores the same value, never accumulating in the
   * output itself (threads would race on it) */
  tvm_status rc = tvm_cache_write(s, out, "local", &red);
  if (rc)
    return rc;
  ls = tvm_stage_of(s, red);
  st = tvm_stage_of(s, out);
  if (!ls || !st)
    return tvm_diag_set(TVM_ERR_INTERNAL, "schedule: cache_write left no "
                                          "stage");
  rc = tvm_split(ls, tvm_stage_reduce_axis(ls, ls->op->nreduce - 1), T, &ko,
                 &ki);
  if (!rc)
    rc = tvm_rfactor(s, red, ki, na, &rf);
  if (rc)
    return rc;
  rs = tvm_stage_of(s, rf);
  ls = tvm_stage_of(s, red);
  if (!rs || !ls)
    return tvm_diag_set(TVM_ERR_INTERNAL, "schedule: rfactor left no stage");
  rs->scope = "shared";
  if ((rc = fuse_data(st, &f)) || (rc = bind(st, f, "blockIdx.x")))
    return rc;
  *at = f;
  if ((rc = tvm_compute_at(ls, st, f)) || (rc = tvm_compute_at(rs, st, f)))
    return rc;
  tx = tvm_stage_axis(rs, na);
  if ((rc = bind(rs, tx, "threadIdx.x")))
    return rc;
  /* each thread accumulates its partial in local memory and stores it to
   * the shared array once: no shared access inside the reduce loop (which
   * would need a barrier per iteration) */
  if ((rc = tvm_cache_write(s, rf, "local", &acc)))
    return rc;
  rs = tvm_stage_of(s, rf);
  return tvm_compute_at(tvm_stage_of(s, acc), rs, tx);
}

/* Does the body of op read tensor t, directly or through stages inlined
 * into it? */
typedef struct reads_acc {
  tvm_schedule *s;
  const tvm_tensor *t;
  int found, depth;
} reads_acc;

static int reads_hook(tvm_visitor *v, const tvm_expr *e) {
  reads_acc *a = v->data;
  if (a->found || e->kind != TVM_TREAD)
    return a->found;
  tvm_tensor *x = e->u.tread.tensor;
  if (x == a->t) {
    a->found = 1;
    return 1;
  }
  tvm_stage *xs = tvm_stage_of(a->s, x);
  if (xs && xs->attach == TVM_ATTACH_INLINE && xs->op->body && a->depth < 64) {
    a->depth++;
    tvm_visit_expr(v, xs->op->body);
    a->depth--;
  }
  return 0;
}

static int reads_tensor(tvm_schedule *s, const tvm_operation *op,
                        const tvm_tensor *t) {
  reads_acc a = {s, t, 0, 0};
  tvm_visitor v = {reads_hook, NULL, &a};
  if (op->body)
    tvm_visit_expr(&v, op->body);
  return a.found;
}

/* A 0-d intermediate (a full reduction) has no axis to bind: it is
 * computed, in local memory, inside the thread (or block) loop of its one
 * reader, which is scheduled already (at maps stage -> that axis). */
static tvm_status attach_scalar(tvm_schedule *s, tvm_stage *st,
                                tvm_ptrvec *roots, tvm_ptrmap *at) {
  tvm_stage *reader = NULL;
  int n = 0;
  void *ax = NULL;
  for (size_t i = 0; i < roots->len; i++) {
    tvm_stage *r = roots->data[i];
    if (r != st && reads_tensor(s, r->op, st->op->output)) {
      reader = r;
      n++;
    }
  }
  if (st->is_output || n != 1 || !tvm_ptrmap_get(at, reader, &ax) || !ax)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "generic thread schedule: stage '%s' has no data "
                        "axis (a 0-d result) to bind to threads and %s; "
                        "give the target a strategy for it",
                        st->op->output->name,
                        st->is_output ? "is an output"
                                      : "not exactly one reader");
  st->scope = "local";
  return tvm_compute_at(st, reader, ax);
}

/* Is st a reduction over many elements into few (cross-thread)? */
static int is_cross(const tvm_stage *st, int warp) {
  const tvm_operation *op = st->op;
  int64_t n = volume(op, 0), k = op->nreduce ? volume(op, 1) : 0;
  int64_t kin = op->nreduce ? extent_of(op->reduce_axis[op->nreduce - 1]) : 0;
  return op->body->kind == TVM_REDUCE && n > 0 && n <= CROSS_MAX_N &&
         k >= CROSS_MIN_K && kin >= warp;
}

/* The one root stage other than st that reads st's output, or NULL. */
static tvm_stage *only_reader(tvm_schedule *s, tvm_stage *st,
                              tvm_ptrvec *roots) {
  tvm_stage *reader = NULL;
  for (size_t i = 0; i < roots->len; i++) {
    tvm_stage *r = roots->data[i];
    if (r == st || !reads_tensor(s, r->op, st->op->output))
      continue;
    if (reader)
      return NULL;
    reader = r;
  }
  return reader;
}

/* Computes reduction r inside the thread loop `ax` of its reader (the
 * fused epilogue: one kernel, the sum in local memory) when bound
 * inference shows each thread needs one element of it; else puts it back
 * at the root.  *fused says which. */
static tvm_status fuse_into(tvm_schedule *s, tvm_stage *r, tvm_stage *reader,
                            tvm_iter_var *ax, int *fused) {
  tvm_ptrmap ranges = {0};
  const char *scope = r->scope;
  tvm_status rc;
  *fused = 0;
  r->scope = "local";
  if ((rc = tvm_compute_at(r, reader, ax)))
    return rc;
  if (tvm_infer_bound(s, &ranges) == TVM_OK) {
    *fused = 1;
    for (int a = 0; a < r->op->naxis && *fused; a++) {
      void *p = NULL;
      int64_t v = -1;
      if (tvm_ptrmap_get(&ranges, r->op->axis[a], &p) && p &&
          ((tvm_range *)p)->extent)
        tvm_is_const_int(((tvm_range *)p)->extent, &v);
      *fused = v == 1;
    }
  } else {
    tvm_diag_clear();
  }
  tvm_ptrmap_free(&ranges);
  if (*fused)
    return TVM_OK;
  r->scope = scope;
  return tvm_compute_root(r);
}

/* See tvm/strategy.h. */
tvm_status tvm_schedule_generic_thread(tvm_schedule *s, tvm_tensor **outs,
                                       int nouts, int max_threads, int warp,
                                       tvm_config *cfg) {
  static const int64_t all[] = {8, 16, 32, 64, 128, 256, 512, 1024};
  int64_t blocks[8];
  tvm_ptrmap reads = {0}, cost = {0}, at = {0};
  tvm_ptrvec roots = {0};
  tvm_status rc = TVM_OK;
  int nb = 0, dflt = 0;
  (void)outs;
  (void)nouts;
  if (max_threads <= 0)
    max_threads = 1024;
  if (warp <= 0)
    warp = 32;
  /* block sizes: whole warps, at most max_threads */
  for (int i = 0; i < 8; i++)
    if (all[i] >= warp && all[i] <= max_threads)
      blocks[nb++] = all[i];
  if (nb == 0)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "generic thread schedule: the target allows %d "
                        "threads per block, less than a warp of %d (or "
                        "outside 8..1024)",
                        max_threads, warp);
  for (int i = 0; i < nb; i++)
    if (blocks[i] <= 256)
      dflt = i;
  int64_t block = cfg ? tvm_cfg_choice(cfg, "block_size", blocks, nb, dflt)
                      : blocks[dflt];

  /* read counts and sizes */
  for (size_t i = 0; i < s->stages.len && !rc; i++) {
    tvm_stage *st = s->stages.data[i];
    if (st->op->kind != TVM_OP_COMPUTE || !st->op->body)
      continue;
    tstats b = {0, &reads, 0};
    tvm_visitor v = {count_node, NULL, &b};
    tvm_visit_expr(&v, st->op->body);
    if (b.oom || tvm_ptrmap_put(&cost, st, (void *)(intptr_t)b.nodes))
      rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
  }
  /* inline or keep; kept stages in producer order */
  for (size_t i = 0; i < s->stages.len && !rc; i++) {
    tvm_stage *st = s->stages.data[i];
    void *nr = NULL, *c = NULL;
    if (st->op->kind != TVM_OP_COMPUTE || !st->op->body)
      continue;
    tvm_ptrmap_get(&reads, st->op->output, &nr);
    tvm_ptrmap_get(&cost, st, &c);
    if (!st->is_output && st->op->body->kind != TVM_REDUCE &&
        ((intptr_t)nr <= 1 || (intptr_t)c <= INLINE_MAX_COST))
      rc = tvm_compute_inline(st);
    else if (tvm_ptrvec_push(&roots, st))
      rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
  }
  /* reductions whose one reader is an elementwise epilogue: tried inside
   * the reader's thread (fuse below); readers are scheduled first */
  tvm_ptrmap into = {0}; /* reader stage -> reduction stage */
  for (size_t i = 0; i < roots.len && !rc; i++) {
    tvm_stage *st = roots.data[i], *r;
    void *p;
    if (st->is_output || st->op->naxis == 0 ||
        st->op->body->kind != TVM_REDUCE || is_cross(st, warp))
      continue;
    r = only_reader(s, st, &roots);
    if (r && r->op->naxis > 0 && r->op->body->kind != TVM_REDUCE &&
        !tvm_ptrmap_get(&into, r, &p) && tvm_ptrmap_put(&into, r, st))
      rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
  }
  for (size_t i = roots.len; i > 0 && !rc; i--) {
    tvm_stage *st = roots.data[i - 1];
    tvm_operation *op = st->op;
    tvm_iter_var *ax = NULL;
    void *p;
    if (op->naxis == 0 || tvm_ptrmap_get(&at, st, &p))
      continue; /* 0-d: after its reader, below; or already fused */
    if (is_cross(st, warp)) {
      int64_t kin = extent_of(op->reduce_axis[op->nreduce - 1]), T = 32;
      while (T * 2 <= kin && T * 2 <= block)
        T *= 2;
      rc = cross_thread(s, st, T, &ax);
    } else {
      rc = per_element(st, block, &ax);
    }
    if (!rc && tvm_ptrmap_put(&at, st, ax))
      rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
    if (!rc && tvm_ptrmap_get(&into, st, &p)) {
      int fused = 0;
      rc = fuse_into(s, p, st, ax, &fused);
      /* fused: done (its own axes stay serial, extent 1 per thread) */
      if (!rc && fused && tvm_ptrmap_put(&at, p, NULL))
        rc = tvm_diag_set(TVM_ERR_NOMEM, "schedule: out of memory");
    }
    if (rc)
      tvm_diag_prefix(rc, "generic thread schedule of stage '%s': ",
                      op->output->name);
  }
  tvm_ptrmap_free(&into);
  for (size_t i = roots.len; i > 0 && !rc; i--) {
    tvm_stage *st = roots.data[i - 1];
    if (st->op->naxis == 0)
      rc = attach_scalar(s, st, &roots, &at);
  }
  tvm_ptrvec_free(&roots);
  tvm_ptrmap_free(&at);
  tvm_ptrmap_free(&reads);
  tvm_ptrmap_free(&cost);
  return rc;
}
