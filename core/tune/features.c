/*
 * core/tune/features.c - loop-program features for the cost model,
 * computed from the loop IR (after storage_flatten: loops still carry
 * their annotations, buffers are flat with affine indices), not from knob
 * values, so a model trained on some workloads ranks others.
 *
 * The walk keeps the stack of enclosing loops.  Per loop it sees the
 * extent, depth and annotation; per buffer access (load or store) the
 * stride with respect to the innermost loop, the touch count (product of
 * enclosing extents), the reuse (product of the extents of enclosing
 * loops whose variable the index does not use: how often the same element
 * is touched again) and the bytes moved; arithmetic is counted by kind
 * and weighted by trip count.  Everything is folded into a fixed-length
 * vector of log2-scaled numbers (shape-independent): totals, per
 * annotation kind the loop counts and extents, and the six most touched
 * accesses sorted by touch count.  Three more say what the register
 * block does: the load instructions left after unrolling, vectorizing and
 * common-subexpression elimination (an access counts once per iteration
 * of the unrolled and vectorized loops whose variables its index does not
 * use, and once per vector along a vectorized loop it does use), the
 * flops per such load, and the largest unrolled block (product of the
 * unrolled extents around an access).  Four more estimate the bytes
 * brought into a 32 KiB and a 1 MiB cache (the loop tree's footprints,
 * see traffic()) and the flops per such byte.  Eight more give the
 * extent and kind of the four innermost loops around the most executed
 * access (the register block's shape).  49 + 6 x 5 = 79 numbers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tvm/tune.h"

#define MAX_DEPTH 32
#define NACC 6
#define ACC_F 5 /* features per access */
#define MAX_NODES 1024 /* loops followed for the cache traffic */
#define MAX_TOUCH 2048 /* accesses followed for the cache traffic */
#define NCACHE 2
static const double cache_bytes[NCACHE] = {32768, 1048576}; /* L1, L2 */

typedef struct acc {
  double touch, reuse, bytes;
  double stride; /* elements, w.r.t. the innermost loop; -1 = unknown */
  int store, vector;
} acc;

typedef struct walk {
  const tvm_expr *var[MAX_DEPTH];
  double ext[MAX_DEPTH];
  int kind[MAX_DEPTH];
  int depth;
  double trip; /* product of enclosing extents */
  /* totals, weighted by trips */
  double fadd, fmul, fdiv, fmath, iops, cmp, loads, stores, vec_lanes;
  double loop_count[6], loop_ext[6], loop_ext_max[6];
  double max_depth, local_bytes, par_ext, inner_ext, unroll_body;
  double eff_loads, unroll_block;
  acc accs[64];
  int nacc;
  /* the loop tree: per loop its footprint (bytes its whole run touches,
   * counting an access's elements as the product of the extents of the
   * loops at and inside it that the index uses), how often it runs, its
   * parent; per access its innermost loop and bytes over all its touches */
  int node[MAX_DEPTH]; /* the loop of each stack level */
  int nnode, ntouch;
  double fp[MAX_NODES], runs[MAX_NODES];
  int parent[MAX_NODES];
  int touch_node[MAX_TOUCH];
  double touch_bytes[MAX_TOUCH];
  double inner_trip, inner4_ext[4];
  int inner4_kind[4];
} walk;

static double lg(double x) { return x > 0 ? log2(x + 1) : 0; }

/* Adds one access's elements to the footprint of every loop around it;
 * used[d]: the index uses the loop variable of level d. */
static void footprint(walk *w, const unsigned char *used, tvm_dtype t) {
  double elems = 1, eb = (double)tvm_dtype_bytes(t);
  for (int d = w->depth - 1; d >= 0; d--) {
    if (used[d])
      elems *= w->ext[d];
    if (w->node[d] >= 0)
      w->fp[w->node[d]] += eb * elems;
  }
  if (w->depth > 0 && w->node[w->depth - 1] >= 0 && w->ntouch < MAX_TOUCH) {
    w->touch_node[w->ntouch] = w->node[w->depth - 1];
    w->touch_bytes[w->ntouch++] = eb * w->trip;
  }
}

/* Bytes brought into a cache of c bytes: each outermost loop whose
 * footprint fits brings its footprint once per run; an access whose
 * innermost loop does not fit streams every touch.  An estimate (windows
 * that overlap, like a convolution's input, are counted as distinct). */
static double traffic(const walk *w, double c) {
  double t = 0;
  for (int n = 0; n < w->nnode; n++)
    if (w->fp[n] <= c && (w->parent[n] < 0 || w->fp[w->parent[n]] > c))
      t += w->runs[n] * w->fp[n];
  for (int a = 0; a < w->ntouch; a++)
    if (w->fp[w->touch_node[a]] > c)
      t += w->touch_bytes[a];
  return t;
}

/* One walk of an access's index: used gets a bit per stack level whose
 * loop variable the index uses, nonaff a bit per level whose variable it
 * uses other than affinely (under a non-constant product, a division, a
 * load, a call ...), and coefs[d] the coefficient of level d's variable
 * where it is affine.  Replaces a walk per level (uses()) and one per
 * level and node (coef()): the same answers in one pass. */
typedef struct lin_acc {
  const walk *w;
  uint32_t used, nonaff;
  double coefs[MAX_DEPTH];
} lin_acc;

static int level_of(const walk *w, const tvm_expr *v) {
  for (int d = w->depth - 1; d >= 0; d--)
    if (w->var[d] == v)
      return d;
  return -1;
}

/* Marks every level e uses as used, and as non-affine when nonaff. */
static void mark_all(lin_acc *l, const tvm_expr *e, int nonaff) {
  if (!e)
    return;
  uint32_t bits = 0;
  switch (e->kind) {
  case TVM_VAR: {
    int d = level_of(l->w, e);
    if (d >= 0)
      bits = 1u << d;
    break;
  }
  case TVM_INT:
  case TVM_FLOAT:
  case TVM_STR:
    return;
  case TVM_NOT:
  case TVM_CAST:
    mark_all(l, e->u.un.a, nonaff);
    return;
  case TVM_SELECT:
    mark_all(l, e->u.sel.cond, nonaff);
    mark_all(l, e->u.sel.t, nonaff);
    mark_all(l, e->u.sel.f, nonaff);
    return;
  case TVM_RAMP:
    mark_all(l, e->u.ramp.base, nonaff);
    mark_all(l, e->u.ramp.stride, nonaff);
    return;
  case TVM_BROADCAST:
    mark_all(l, e->u.bcast.value, nonaff);
    return;
  case TVM_LOAD:
    mark_all(l, e->u.load.index, nonaff);
    return;
  case TVM_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      mark_all(l, e->u.call.args[i], nonaff);
    return;
  case TVM_LET:
    mark_all(l, e->u.let.value, nonaff);
    mark_all(l, e->u.let.body, nonaff);
    return;
  default:
    if (e->kind >= TVM_ADD && e->kind <= TVM_OR) {
      mark_all(l, e->u.bin.a, nonaff);
      mark_all(l, e->u.bin.b, nonaff);
      return;
    }
    /* unknown: assume it uses every level */
    bits = l->w->depth >= 32 ? ~0u : (1u << l->w->depth) - 1;
    break;
  }
  l->used |= bits;
  if (nonaff)
    l->nonaff |= bits;
}

/* Adds scale x (the coefficients of e) to l. */
static void linear(lin_acc *l, const tvm_expr *e, double scale) {
  int64_t c;
  if (!e)
    return;
  switch (e->kind) {
  case TVM_VAR: {
    int d = level_of(l->w, e);
    if (d >= 0) {
      l->used |= 1u << d;
      l->coefs[d] += scale;
    }
    return;
  }
  case TVM_ADD:
    linear(l, e->u.bin.a, scale);
    linear(l, e->u.bin.b, scale);
    return;
  case TVM_SUB:
    linear(l, e->u.bin.a, scale);
    linear(l, e->u.bin.b, -scale);
    return;
  case TVM_MUL:
    if (tvm_is_const_int(e->u.bin.b, &c))
      linear(l, e->u.bin.a, scale * (double)c);
    else if (tvm_is_const_int(e->u.bin.a, &c))
      linear(l, e->u.bin.b, scale * (double)c);
    else
      mark_all(l, e, 1);
    return;
  case TVM_CAST:
    linear(l, e->u.un.a, scale);
    return;
  case TVM_RAMP: /* the stride's variables are used, not counted */
    linear(l, e->u.ramp.base, scale);
    mark_all(l, e->u.ramp.stride, 0);
    return;
  case TVM_BROADCAST:
    linear(l, e->u.bcast.value, scale);
    return;
  default:
    mark_all(l, e, 1);
    return;
  }
}

static void access(walk *w, const tvm_expr *index, tvm_dtype t, int store) {
  if (w->trip > w->inner_trip) { /* the most executed nest's inner loops */
    w->inner_trip = w->trip;
    for (int k = 0; k < 4; k++) {
      int d = w->depth - 1 - k;
      w->inner4_ext[k] = d >= 0 ? w->ext[d] : 0;
      w->inner4_kind[k] = d >= 0 ? w->kind[d] + 1 : 0;
    }
  }
  lin_acc ll, *l = &ll;
  l->w = w;
  l->used = l->nonaff = 0;
  for (int d = 0; d < w->depth; d++)
    l->coefs[d] = 0;
  linear(l, index, 1);
  unsigned char used[MAX_DEPTH];
  for (int d = 0; d < w->depth; d++)
    used[d] = (unsigned char)((l->used >> d) & 1);
  footprint(w, used, t);
  if (w->nacc >= 64)
    return;
  acc *a = &w->accs[w->nacc++];
  memset(a, 0, sizeof *a);
  a->touch = w->trip;
  a->reuse = 1;
  a->bytes = (double)tvm_dtype_bytes(t) * w->trip;
  a->store = store;
  a->vector = index && index->kind == TVM_RAMP;
  double share = 1, block = 1; /* see the top of the file */
  for (int d = 0; d < w->depth; d++) {
    int u = used[d];
    if (!u)
      a->reuse *= w->ext[d];
    if (w->kind[d] == TVM_FOR_UNROLLED) {
      block *= w->ext[d];
      if (!u)
        share *= w->ext[d];
    } else if (w->kind[d] == TVM_FOR_VECTORIZED) {
      share *= w->ext[d];
    }
  }
  if (!store)
    w->eff_loads += w->trip / share;
  if (block > w->unroll_block)
    w->unroll_block = block;
  a->stride = -1;
  /* stride w.r.t. the innermost non-vectorized loop using it, else 0 */
  for (int d = w->depth - 1; d >= 0; d--) {
    if ((l->nonaff >> d) & 1)
      break;
    double c = l->coefs[d];
    if (c != 0 || d == 0) {
      a->stride = fabs(c);
      break;
    }
  }
  if (store)
    w->stores += w->trip;
  else
    w->loads += w->trip;
}

static int visit_expr(tvm_visitor *v, const tvm_expr *e) {
  walk *w = v->data;
  double lanes = e->dtype.lanes > 0 ? e->dtype.lanes : 1;
  int fl = tvm_dtype_is_float(e->dtype);
  switch (e->kind) {
  case TVM_ADD:
  case TVM_SUB:
    if (fl) w->fadd += w->trip * lanes; else w->iops += w->trip;
    break;
  case TVM_MUL:
    if (fl) w->fmul += w->trip * lanes; else w->iops += w->trip;
    break;
  case TVM_DIV:
  case TVM_MOD:
  case TVM_FLOORDIV:
  case TVM_FLOORMOD:
    if (fl) w->fdiv += w->trip * lanes; else w->iops += w->trip;
    break;
  case TVM_MIN:
  case TVM_MAX:
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT: case TVM_GE:
  case TVM_SELECT:
    w->cmp += w->trip * lanes;
    break;
  case TVM_CALL:
    w->fmath += w->trip * lanes;
    break;
  case TVM_LOAD:
    access(w, e->u.load.index, e->dtype, 0);
    break;
  default:
    break;
  }
  if (lanes > 1)
    w->vec_lanes += w->trip * lanes;
  return 0;
}

static int visit_stmt(tvm_visitor *v, const tvm_stmt *s) {
  walk *w = v->data;
  switch (s->kind) {
  case TVM_FOR: {
    int64_t ext = 1;
    if (!tvm_is_const_int(s->u.for_.extent, &ext) || ext < 1)
      ext = 1;
    int k = (int)s->u.for_.for_kind;
    if (k < 0 || k > 5)
      k = 0;
    w->loop_count[k] += 1;
    w->loop_ext[k] += lg((double)ext);
    if ((double)ext > w->loop_ext_max[k])
      w->loop_ext_max[k] = (double)ext;
    if (k == TVM_FOR_PARALLEL && w->par_ext == 0)
      w->par_ext = (double)ext;
    if (k == TVM_FOR_UNROLLED)
      w->unroll_body += 1;
    if (w->depth >= MAX_DEPTH) {
      tvm_visit_stmt_children(v, s);
      return 1;
    }
    w->var[w->depth] = s->u.for_.var;
    w->ext[w->depth] = (double)ext;
    w->kind[w->depth] = k;
    w->node[w->depth] = -1;
    if (w->nnode < MAX_NODES) {
      int n = w->nnode++;
      w->fp[n] = 0;
      w->runs[n] = w->trip;
      w->parent[n] = w->depth > 0 ? w->node[w->depth - 1] : -1;
      w->node[w->depth] = n;
    }
    w->depth++;
    double trip = w->trip;
    w->trip *= (double)ext;
    if (w->depth > w->max_depth)
      w->max_depth = w->depth;
    if (s->u.for_.body && s->u.for_.body->kind != TVM_FOR &&
        k == TVM_FOR_SERIAL)
      w->inner_ext = (double)ext;
    tvm_visit_stmt(v, s->u.for_.body);
    w->trip = trip;
    w->depth--;
    return 1;
  }
  case TVM_STORE:
    access(w, s->u.store.index, s->u.store.value ? s->u.store.value->dtype
                                                 : TVM_F32, 1);
    return 0;
  case TVM_ALLOCATE: {
    int64_t n = 0;
    if (s->u.alloc.scope && strcmp(s->u.alloc.scope, "local") == 0 &&
        tvm_is_const_int(s->u.alloc.extent, &n))
      w->local_bytes += (double)n * tvm_dtype_bytes(s->u.alloc.dtype);
    return 0;
  }
  default:
    return 0;
  }
}

/* Sorts accesses by touch count, most touched first (insertion sort:
 * at most 64). */
static void sort_accs(walk *w) {
  for (int i = 1; i < w->nacc; i++) {
    acc t = w->accs[i];
    int j = i - 1;
    while (j >= 0 && w->accs[j].touch < t.touch) {
      w->accs[j + 1] = w->accs[j];
      j--;
    }
    w->accs[j + 1] = t;
  }
}

static const char *const names[] = {
    "fadd", "fmul", "fdiv", "fmath", "iops", "cmp", "loads", "stores",
    "vec_lanes", "max_depth", "local_bytes", "par_ext", "inner_ext",
    "unrolled_loops", "flop_per_byte", "n_accesses",
    "serial_n", "serial_ext", "serial_max", "parallel_n", "parallel_ext",
    "parallel_max", "vector_n", "vector_ext", "vector_max", "unroll_n",
    "unroll_ext", "unroll_max", "thread_n", "thread_ext", "thread_max",
    "vthread_n", "vthread_ext", "vthread_max", "eff_loads",
    "flop_per_eff_load", "unroll_block", "l1_traffic", "l1_flop_per_byte",
    "l2_traffic", "l2_flop_per_byte", "in0_ext", "in0_kind", "in1_ext",
    "in1_kind", "in2_ext", "in2_kind", "in3_ext", "in3_kind"};

const char *tvm_tune_feature_name(int i) {
  static char buf[8][24];
  int nn = (int)(sizeof names / sizeof names[0]);
  if (i < 0 || i >= TVM_TUNE_NFEATURES)
    return "?";
  if (i < nn)
    return names[i];
  int a = (i - nn) / ACC_F, f = (i - nn) % ACC_F;
  static const char *const af[] = {"touch", "reuse", "bytes", "stride",
                                   "kind"};
  if (a >= NACC)
    return "pad";
  char *b = buf[i % 8];
  snprintf(b, 24, "acc%d_%s", a, af[f]);
  return b;
}

void tvm_tune_features(const tvm_func *f, float *out) {
  walk w;
  memset(&w, 0, sizeof w);
  memset(out, 0, sizeof(float) * TVM_TUNE_NFEATURES);
  w.trip = 1;
  tvm_visitor v = {visit_expr, visit_stmt, &w};
  if (f && f->body)
    tvm_visit_stmt(&v, f->body);
  sort_accs(&w);
  int i = 0;
  double flops = w.fadd + w.fmul + w.fdiv + w.fmath, bytes = 0;
  for (int a = 0; a < w.nacc; a++)
    bytes += w.accs[a].bytes;
  out[i++] = (float)lg(w.fadd);
  out[i++] = (float)lg(w.fmul);
  out[i++] = (float)lg(w.fdiv);
  out[i++] = (float)lg(w.fmath);
  out[i++] = (float)lg(w.iops);
  out[i++] = (float)lg(w.cmp);
  out[i++] = (float)lg(w.loads);
  out[i++] = (float)lg(w.stores);
  out[i++] = (float)lg(w.vec_lanes);
  out[i++] = (float)w.max_depth;
  out[i++] = (float)lg(w.local_bytes);
  out[i++] = (float)lg(w.par_ext);
  out[i++] = (float)lg(w.inner_ext);
  out[i++] = (float)lg(w.unroll_body);
  out[i++] = (float)(bytes > 0 ? flops / bytes : 0);
  out[i++] = (float)lg(w.nacc);
  for (int k = 0; k < 6; k++) {
    out[i++] = (float)w.loop_count[k];
    out[i++] = (float)w.loop_ext[k];
    out[i++] = (float)lg(w.loop_ext_max[k]);
  }
  out[i++] = (float)lg(w.eff_loads);
  out[i++] = (float)(w.eff_loads > 0 ? lg(flops / w.eff_loads) : 0);
  out[i++] = (float)lg(w.unroll_block);
  for (int c = 0; c < NCACHE; c++) {
    double t = traffic(&w, cache_bytes[c]);
    out[i++] = (float)lg(t);
    out[i++] = (float)(t > 0 ? lg(flops / t) : 0);
  }
  for (int k = 0; k < 4; k++) {
    out[i++] = (float)lg(w.inner4_ext[k]);
    out[i++] = (float)w.inner4_kind[k];
  }
  for (int a = 0; a < NACC && i + ACC_F <= TVM_TUNE_NFEATURES; a++) {
    if (a < w.nacc) {
      const acc *x = &w.accs[a];
      out[i + 0] = (float)lg(x->touch);
      out[i + 1] = (float)lg(x->reuse);
      out[i + 2] = (float)lg(x->bytes);
      out[i + 3] = (float)(x->stride < 0 ? -1 : lg(x->stride));
      out[i + 4] = (float)(x->store * 2 + x->vector);
    }
    i += ACC_F;
  }
}
