/*
 * core/graph/passes/alter_layout.c - the target chooses operator layouts
 * (see tvm/graph_passes.h for the contract).
 *
 * One walk over the nodes in topological order.  A node that changes
 * layout gets a NEW node (Conv -> Conv_NCHWc, Relu on blocked data, ...)
 * whose output is recorded as the blocked twin of the old output; the old
 * node stays until the final dce.  A node that keeps its layout but reads
 * a value whose producer was replaced reads a LayoutTransform back to the
 * plain layout instead (made once per value).  Graph outputs likewise.
 *
 * Memos (ptrmaps keyed by the ORIGINAL value):
 *   twin   - value -> its blocked version (producer rewritten)
 *   plain  - value -> LayoutTransform(twin, blocked -> plain)
 *   packed - plain value -> LayoutTransform(value, plain -> blocked), for
 *            activations that a blocked consumer reads (one layout per
 *            value; a second blocking makes another node)
 */
#include <stdio.h>
#include <string.h>

#include "../graph_int.h"
#include "../ops/layout_int.h"
#include "tvm/graph_passes.h"

typedef struct al_state {
  tvm_graph *g;
  tvm_ptrmap twin, plain, packed;
} al_state;

/* The plain layout of an ndim-D value (activations and per-channel
 * constants only). */
static const char *plain_layout(int ndim) {
  return ndim == 4 ? "NCHW" : ndim == 3 ? "CHW" : NULL;
}

/* The status of a builder call that returned NULL: the graph's sticky
 * failure, else the diagnostic's. */
static tvm_status failed(const al_state *s) {
  tvm_status st = tvm_graph_status(s->g);
  return st ? st : tvm_diag_status();
}

/* A LayoutTransform of v from src to dst; name may be NULL.  pad = 1
 * rounds an unblocked source axis up to dst's block (zeros); channels > 0
 * is axis C's logical extent where v's blocks overrun it or dst's do
 * (padded channel blocks, see op LayoutTransform). */
static tvm_gvalue *transform_ex(al_state *s, tvm_gvalue *v, const char *src,
                                const char *dst, const char *name, int pad,
                                int64_t channels) {
  tvm_gattr at[3] = {tvm_gattr_str("src_layout", src),
                     tvm_gattr_str("dst_layout", dst), {0}};
  int na = 2;
  if (pad) at[na++] = tvm_gattr_int("pad", 1);
  else if (channels > 0) at[na++] = tvm_gattr_int("channels", channels);
  return tvm_graph_apply(s->g, "LayoutTransform", name, &v, 1, at, na, 1,
                         NULL);
}

/* The logical channels of a 4-D value v whose twin t (or a transform to
 * layout L) has places past them: padded blocks; 0 when none has. */
static int64_t padded_channels(const tvm_gvalue *v, const tvm_gvalue *t,
                               const char *L) {
  if (!v || v->ndim != 4) return 0;
  int64_t C = v->shape[1];
  int64_t tb = t ? op_layout_nchwc_block(t->layout) : 0;
  int64_t lb = L ? op_layout_nchwc_block(L) : 0;
  if ((tb && t->ndim == 5 && t->shape[1] * tb != C) || (lb && C % lb)) return C;
  return 0;
}

/* The twin of v (blocked), or NULL. */
static tvm_gvalue *twin_of(al_state *s, const tvm_gvalue *v) {
  void *p;
  return v && tvm_ptrmap_get(&s->twin, v, &p) ? p : NULL;
}

/* v in layout L (an "NCHW<b>c" string): its twin when that has L, else a
 * LayoutTransform from the twin's or the plain layout. */
static tvm_gvalue *blocked(al_state *s, tvm_gvalue *v, const char *L) {
  tvm_gvalue *t = twin_of(s, v);
  void *p;
  if (t && t->layout && strcmp(t->layout, L) == 0) return t;
  if (t)
    return transform_ex(s, t, t->layout, L, NULL, 0, padded_channels(v, t, L));
  if (tvm_ptrmap_get(&s->packed, v, &p) && strcmp(((tvm_gvalue *)p)->layout, L) == 0)
    return p;
  if (v->ndim != 4) {
    tvm_diag_set(TVM_ERR_INTERNAL, "alter_layout: '%s' is not 4-D", v->name);
    return NULL;
  }
  tvm_gvalue *r = transform_ex(s, v, "NCHW", L, NULL,
                               padded_channels(v, NULL, L) > 0, 0);
  if (r && tvm_ptrmap_put(&s->packed, v, r)) return NULL;
  return r;
}

/* The plain version of a value whose producer was rewritten. */
static tvm_gvalue *plain_of(al_state *s, tvm_gvalue *v) {
  tvm_gvalue *t = twin_of(s, v);
  void *p;
  if (!t) return v;
  if (tvm_ptrmap_get(&s->plain, v, &p)) return p;
  tvm_gvalue *r = transform_ex(s, t, t->layout, plain_layout(v->ndim), NULL,
                               0, padded_channels(v, t, NULL));
  if (r && tvm_ptrmap_put(&s->plain, v, r)) return NULL;
  return r;
}

/* Records nv (layout L) as the twin of the old value ov. */
static tvm_status set_twin(al_state *s, tvm_gvalue *ov, tvm_gvalue *nv,
                           const char *L) {
  if (!nv) return failed(s);
  nv->layout = tvm_arena_strdup(s->g->arena, L);
  if (!nv->layout) return tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
  return tvm_ptrmap_put(&s->twin, ov, nv);
}

/* "<v's name>.<L>", the name of v's version in layout L. */
static const char *vname(al_state *s, const tvm_gvalue *v, const char *L) {
  return tvm_arena_printf(s->g->arena, "%s.%s", v->name, L);
}

/* Conv -> Conv2D_winograd (weight layout "winograd_F2x3", data and
 * output NCHW): the weight becomes U = Conv2D_winograd_weight(W), which
 * fold_constants computes at compile time; the new node keeps Conv's
 * attributes (but kernel_shape) and checks that it applies (3x3, strides
 * and dilations 1, group 1, symmetric padding), failing with the node's
 * name when the target asked for it where it does not.  Its output
 * replaces the old one (same layout, shape and name).  *done = 1. */
static tvm_status alter_winograd(al_state *s, tvm_gnode *n,
                                 const tvm_layout_choice *ch, int *done) {
  tvm_gvalue *x = n->inputs[0], *w = n->inputs[1];
  tvm_gvalue *b = n->ninputs > 2 ? n->inputs[2] : NULL;
  if (strcmp(ch->data, "NCHW") != 0 || strcmp(ch->out, "NCHW") != 0 ||
      w->shape[2] != 3 || w->shape[3] != 3)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "alter_layout: the target asked for weight layout "
                        "'%s' with data '%s' and output '%s' for Conv '%s' "
                        "(kernel %lldx%lld); Winograd F(2x2, 3x3) needs a "
                        "3x3 kernel on NCHW data and output",
                        ch->weight, ch->data, ch->out, n->name,
                        (long long)w->shape[2], (long long)w->shape[3]);
  tvm_gvalue *xp = plain_of(s, x);
  tvm_gvalue *u = tvm_graph_apply(s->g, "Conv2D_winograd_weight",
                                  vname(s, w, "winograd"), &w, 1, NULL, 0, 1,
                                  NULL);
  if (!xp || !u) return failed(s);
  tvm_gattr *at = tvm_arena_alloc(s->g->arena, sizeof(tvm_gattr) * (size_t)(n->nattrs + 1));
  if (!at) return tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
  int na = 0;
  for (int i = 0; i < n->nattrs; i++)
    if (strcmp(n->attrs[i].name, "kernel_shape") != 0) at[na++] = n->attrs[i];
  tvm_gvalue *in[3] = {xp, u, b};
  tvm_gvalue *o = n->outputs[0];
  tvm_gvalue *y = tvm_graph_apply(s->g, "Conv2D_winograd",
                                  tvm_arena_printf(s->g->arena, "%s.winograd",
                                                   o->name),
                                  in, b ? 3 : 2, at, na, 1, NULL);
  if (!y)
    return tvm_diag_prefix(failed(s),
                           "alter_layout: Conv '%s' as Winograd (asked by "
                           "the target): ", n->name);
  *done = 1;
  tvm_graph_replace_uses(s->g, o, y);
  const char *nm = o->name;
  o->name = tvm_arena_printf(s->g->arena, "%s.replaced", nm);
  y->name = nm;
  return o->name ? TVM_OK : tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
}

/* Conv -> Conv2D_winograd_NCHWc in output tiles of m (weight layout
 * "winograd_F4x3": 4, "winograd_F2x3": 2; data and output NCHW<b>c): U =
 * Conv2D_winograd_weight_NCHWc(W) (folded at compile time); the output
 * is the blocked twin, as Conv_NCHWc's.  Fails naming the node where
 * Winograd F(m x m, 3x3) does not apply or the blocks do not divide the
 * channels.  *done = 1. */
static tvm_status alter_winograd_nchwc(al_state *s, tvm_gnode *n,
                                       const tvm_layout_choice *ch, int m,
                                       int *done) {
  tvm_gvalue *x = n->inputs[0], *w = n->inputs[1];
  tvm_gvalue *b = n->ninputs > 2 ? n->inputs[2] : NULL;
  int64_t ib = op_layout_nchwc_block(ch->data), ob = op_layout_nchwc_block(ch->out);
  if (!ib || !ob || w->shape[2] != 3 || w->shape[3] != 3 ||
      w->shape[1] != x->shape[1] || x->shape[1] % ib != 0 ||
      w->shape[0] % ob != 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "alter_layout: the target asked for weight layout "
                        "'%s' with data '%s' and output '%s' for Conv '%s' "
                        "(kernel %lldx%lld, %lld -> %lld channels); Winograd "
                        "F(%dx%d, 3x3) needs a 3x3 kernel, group 1 and "
                        "NCHW<b>c data and output whose blocks divide the "
                        "channels",
                        ch->weight, ch->data, ch->out, n->name,
                        (long long)w->shape[2], (long long)w->shape[3],
                        (long long)x->shape[1], (long long)w->shape[0], m, m);
  tvm_gvalue *xb = blocked(s, x, ch->data);
  tvm_gattr wa[2] = {tvm_gattr_int("block", ob), tvm_gattr_int("tile", m)};
  tvm_gvalue *u = tvm_graph_apply(s->g, "Conv2D_winograd_weight_NCHWc",
                                  vname(s, w, m == 2 ? "winograd2" : "winograd4"),
                                  &w, 1, wa, 2, 1, NULL);
  if (!xb || !u) return failed(s);
  tvm_gattr *at = tvm_arena_alloc(s->g->arena, sizeof(tvm_gattr) * (size_t)(n->nattrs + 2));
  if (!at) return tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
  int na = 0;
  for (int i = 0; i < n->nattrs; i++)
    if (strcmp(n->attrs[i].name, "kernel_shape") != 0) at[na++] = n->attrs[i];
  at[na++] = tvm_gattr_str("data_layout", ch->data);
  at[na++] = tvm_gattr_int("tile", m);
  tvm_gvalue *o = n->outputs[0];
  tvm_gvalue *v = tvm_graph_apply(s->g, "Conv2D_winograd_input_NCHWc",
                                  vname(s, o, m == 2 ? "winograd2_input"
                                                     : "winograd4_input"),
                                  &xb, 1, at, na, 1, NULL);
  tvm_gvalue *y = NULL;
  if (v) {
    tvm_gattr ya[4] = {tvm_gattr_int("batch", o->shape[0]),
                       tvm_gattr_int("out_h", o->shape[2]),
                       tvm_gattr_int("out_w", o->shape[3]),
                       tvm_gattr_str("out_layout", ch->out)};
    tvm_gvalue *in[3] = {v, u, b};
    y = tvm_graph_apply(s->g, "Conv2D_winograd_NCHWc", vname(s, o, ch->out),
                        in, b ? 3 : 2, ya, 4, 1, NULL);
  }
  if (!y)
    return tvm_diag_prefix(failed(s),
                           "alter_layout: Conv '%s' as Winograd F(%dx%d, 3x3) "
                           "(asked by the target): ", n->name, m, m);
  /* both nodes carry the layout workload: a tuner measuring the layout
   * counts the input transform's kernel too */
  if (ch->tuned[0] && y->producer && v->producer &&
      (!(y->producer->layout_workload = tvm_arena_strdup(s->g->arena, ch->tuned)) ||
       !(v->producer->layout_workload = y->producer->layout_workload)))
    return tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
  *done = 1;
  return set_twin(s, n->outputs[0], y, ch->out);
}

/* The weights w [M, C/group, KH, KW] of a convolution whose groups are
 * narrower than b channels (b a multiple of C/group, as many outputs as
 * inputs per group), as those of the convolution in groups of b:
 * [M, b, KH, KW], output m reading input r of its b-group through w's
 * weight where r lies in m's own group, 0 elsewhere (b / (C/group) times
 * the multiply-adds, in whole vector blocks).  NULL on failure (the
 * graph's status says). */
static tvm_gvalue *merged_group_weights(al_state *s, tvm_gvalue *w,
                                        int64_t b) {
  int64_t M = w->shape[0], cpg = w->shape[1], K = w->shape[2] * w->shape[3];
  if (!w->data || !tvm_dtype_eq(w->dtype, TVM_F32)) {
    tvm_diag_set(TVM_ERR_UNSUPPORTED,
                 "alter_layout: group weights '%s' are not float32 data",
                 w->name);
    return NULL;
  }
  float *d = tvm_calloc((size_t)(M * b * K), sizeof(float));
  if (!d) {
    tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
    return NULL;
  }
  const float *src = w->data;
  for (int64_t m = 0; m < M; m++) {
    int64_t first = (m % b) / cpg * cpg; /* m's group within its b-group */
    for (int64_t r = 0; r < cpg; r++)
      memcpy(d + (m * b + first + r) * K, src + (m * cpg + r) * K,
             sizeof(float) * (size_t)K);
  }
  int64_t shape[4] = {M, b, w->shape[2], w->shape[3]};
  tvm_gvalue *r = tvm_graph_const(
      s->g, tvm_arena_printf(s->g->arena, "%s.groups%lld", w->name, (long long)b),
      w->dtype, shape, 4, d);
  tvm_free(d);
  return r;
}

/* Conv -> Conv_NCHWc when the target asks for it.  *done = 1 when
 * rewritten. */
static tvm_status alter_conv(al_state *s, tvm_gnode *n,
                             tvm_layout_query_fn q, void *ud, int *done) {
  tvm_layout_choice ch;
  tvm_gvalue *x = n->inputs[0], *w = n->ninputs > 1 ? n->inputs[1] : NULL;
  tvm_gvalue *b = n->ninputs > 2 ? n->inputs[2] : NULL;
  *done = 0;
  if (!x || !w || x->ndim != 4 || w->ndim != 4 || w->kind != TVM_GV_CONST ||
      (b && b->kind != TVM_GV_CONST) || n->noutputs != 1 || !n->outputs[0] ||
      (x->layout && strcmp(x->layout, "NCHW") != 0))
    return TVM_OK;
  memset(&ch, 0, sizeof ch);
  tvm_status st = q(ud, n, &ch);
  if (st) return st;
  ch.data[sizeof ch.data - 1] = ch.weight[sizeof ch.weight - 1] =
      ch.out[sizeof ch.out - 1] = '\0';
  if (!ch.data[0] && ch.flags)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "alter_layout: the target set layout flags 0x%x for "
                        "Conv '%s' but kept its layout; flat pixels need a "
                        "blocked layout (data NCHW<b>c)",
                        (unsigned)ch.flags, n->name);
  if (!ch.data[0]) return TVM_OK;
  ch.tuned[sizeof ch.tuned - 1] = '\0';
  int wino = strcmp(ch.weight, TVM_LAYOUT_WINOGRAD_F2X3) == 0   ? 2
             : strcmp(ch.weight, TVM_LAYOUT_WINOGRAD_F4X3) == 0 ? 4
                                                                : 0;
  /* Winograd on NCHW data is F(2x2)'s Conv2D_winograd; on blocked data
   * either tile is Conv2D_winograd_NCHWc */
  if (wino && (ch.flags & TVM_LAYOUT_FLAT_PIXELS))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "alter_layout: the target asked for Winograd and flat "
                        "pixels for Conv '%s'; flat pixels apply to "
                        "direct convolutions only",
                        n->name);
  if (wino == 2 && !op_layout_nchwc_block(ch.data))
    return alter_winograd(s, n, &ch, done);
  if (wino) return alter_winograd_nchwc(s, n, &ch, wino, done);
  if (!op_layout_nchwc_block(ch.data) || !op_layout_nchwc_block(ch.out))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "alter_layout: the target asked for data layout '%s' "
                        "and output layout '%s' for Conv '%s'; only NCHW<b>c "
                        "is supported",
                        ch.data, ch.out, n->name);
  /* a group convolution (not depthwise): groups of whole blocks, or
   * groups narrower than a block merged into groups of the block's width
   * (ib == ob, as many outputs as inputs per group) with zero weights
   * between them; otherwise it stays NCHW */
  int64_t group = tvm_gnode_int(n, "group", 1), ib = op_layout_nchwc_block(ch.data);
  int64_t C = x->shape[1], M = w->shape[0], merged = 0;
  if (group > 1 && !(group == C && M == C && w->shape[1] == 1)) {
    int64_t ob0 = op_layout_nchwc_block(ch.out), cpg = C / group;
    if (C % group || M % group || C % ib || M % ob0) return TVM_OK;
    if (cpg % ib == 0 && (M / group) % ob0 == 0) {
      merged = 0;
    } else if (ib == ob0 && ib % cpg == 0 && M / group == cpg) {
      merged = C / ib; /* the new group count */
      w = merged_group_weights(s, w, ib);
      if (!w) return failed(s);
    } else {
      return TVM_OK;
    }
  }
  tvm_gvalue *xb = blocked(s, x, ch.data);
  /* a weight shared by two convs gets two equal constants: cse merges.
   * Blocks that overrun the channels (padded: 1000 outputs in 63 blocks
   * of 16) get zero weights and biases past them; the output's twin
   * then has places past its channels, dropped by the transforms back
   * (padded_channels). */
  int64_t ob = op_layout_nchwc_block(ch.out);
  int pad = w->shape[0] % ob != 0 ||
            x->shape[1] % op_layout_nchwc_block(ch.data) != 0;
  tvm_gvalue *wb = transform_ex(s, w, "OIHW", ch.weight, vname(s, w, ch.weight),
                                pad, 0);
  if (!xb || !wb) return failed(s);
  if (b && w->shape[0] % ob) {
    int64_t M = w->shape[0], Mp = (M + ob - 1) / ob * ob;
    if (b->ndim != 1 || b->shape[0] != M || !b->data ||
        b->dtype.code != kDLFloat || b->dtype.bits != 32)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "alter_layout: Conv '%s' has %lld outputs in "
                          "blocks of %lld (padded), but its bias is not a "
                          "float32 constant of %lld",
                          n->name, (long long)M, (long long)ob, (long long)M);
    float *bp = tvm_calloc((size_t)Mp, sizeof(float));
    if (!bp) return tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
    memcpy(bp, b->data, sizeof(float) * (size_t)M);
    b = tvm_graph_const(s->g, vname(s, b, ch.out), b->dtype, &Mp, 1, bp);
    tvm_free(bp);
    if (!b) return failed(s);
  }
  /* a depthwise convolution in padded blocks: one group per channel
   * place, the places past C with zero weights and bias */
  if (group > 1 && group == C && M == C && w->shape[1] == 1 && C % ob)
    merged = (C + ob - 1) / ob * ob;
  tvm_gattr *at = tvm_arena_alloc(s->g->arena, sizeof(tvm_gattr) * (size_t)(n->nattrs + 4));
  if (!at) return tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
  int na = 0;
  for (int i = 0; i < n->nattrs; i++)
    if (strcmp(n->attrs[i].name, "kernel_shape") != 0 &&
        !(merged && strcmp(n->attrs[i].name, "group") == 0))
      at[na++] = n->attrs[i];
  if (merged) at[na++] = tvm_gattr_int("group", merged);
  at[na++] = tvm_gattr_str("data_layout", ch.data);
  at[na++] = tvm_gattr_str("kernel_layout", ch.weight);
  at[na++] = tvm_gattr_str("out_layout", ch.out);
  if (ch.flags & TVM_LAYOUT_FLAT_PIXELS)
    at[na++] = tvm_gattr_int("flat_pixels", 1);
  tvm_gvalue *in[3] = {xb, wb, b};
  tvm_gvalue *y = tvm_graph_apply(s->g, "Conv_NCHWc",
                                  vname(s, n->outputs[0], ch.out), in,
                                  b ? 3 : 2, at, na, 1, NULL);
  ch.tuned[sizeof ch.tuned - 1] = '\0';
  if (y && ch.tuned[0] && y->producer &&
      !(y->producer->layout_workload =
            tvm_arena_strdup(s->g->arena, ch.tuned)))
    return tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
  *done = 1;
  return set_twin(s, n->outputs[0], y, ch.out);
}

/* The panel width nr of a packed matrix layout "NK<nr>n", 0 when s is
 * not one. */
static int64_t packed_nr(const char *s) {
  int64_t nr = 0;
  if (strncmp(s, "NK", 2) != 0) return 0;
  const char *p = s + 2;
  while (*p >= '0' && *p <= '9' && nr < 1 << 20) nr = nr * 10 + (*p++ - '0');
  return p[0] == 'n' && p[1] == '\0' ? nr : 0;
}

/* MatMul (B constant 2-D, A 2-D or more) and Gemm (transA = 0, B and C
 * constant) -> MatMul_packed when the target asks for a packed right
 * operand (choice.weight "NK<nr>n"): B' (K x N) is packed by a
 * LayoutTransform that zero-pads the last panel when nr does not divide
 * N; fold_constants packs it at compile time.  *done = 1 when
 * rewritten. */
static tvm_status alter_matmul(al_state *s, tvm_gnode *n,
                               tvm_layout_query_fn q, void *ud, int *done) {
  int gemm = strcmp(n->op, "Gemm") == 0;
  tvm_gvalue *a = n->inputs[0], *b = n->ninputs > 1 ? n->inputs[1] : NULL;
  tvm_gvalue *c = gemm && n->ninputs > 2 ? n->inputs[2] : NULL;
  *done = 0;
  if (!a || !b || b->ndim != 2 || b->kind != TVM_GV_CONST ||
      (c && c->kind != TVM_GV_CONST) || n->noutputs != 1 || !n->outputs[0] ||
      a->ndim < 2 || (gemm && a->ndim != 2) ||
      (gemm && tvm_gnode_int(n, "transA", 0) != 0) ||
      a->dtype.code != kDLFloat || a->dtype.bits != 32 || a->dtype.lanes != 1)
    return TVM_OK;
  tvm_layout_choice ch;
  memset(&ch, 0, sizeof ch);
  tvm_status st = q(ud, n, &ch);
  if (st) return st;
  ch.weight[sizeof ch.weight - 1] = '\0';
  if (ch.flags)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "alter_layout: the target set layout flags 0x%x for "
                        "%s '%s'; flat pixels apply to convolutions only",
                        (unsigned)ch.flags, n->op, n->name);
  if (!ch.weight[0]) return TVM_OK;
  int64_t nr = packed_nr(ch.weight);
  if (nr <= 0 || nr > 4096)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "alter_layout: the target asked for weight layout "
                        "'%s' for %s '%s'; a matrix product's right operand "
                        "packs only as NK<nr>n (nr columns per panel, 1 to "
                        "4096)",
                        ch.weight, n->op, n->name);
  int tb = gemm && tvm_gnode_int(n, "transB", 0) != 0;
  int64_t N = tb ? b->shape[0] : b->shape[1];
  tvm_gattr pa[3] = {tvm_gattr_str("src_layout", tb ? "NK" : "KN"),
                     tvm_gattr_str("dst_layout", ch.weight),
                     tvm_gattr_int("pad", 1)};
  tvm_gvalue *bp = tvm_graph_apply(s->g, "LayoutTransform",
                                   vname(s, b, ch.weight), &b, 1, pa, 3, 1,
                                   NULL);
  if (!bp) return failed(s);
  tvm_gattr at[3];
  int na = 0;
  at[na++] = tvm_gattr_int("n", N);
  if (gemm) {
    at[na++] = tvm_gattr_float("alpha", tvm_gnode_float(n, "alpha", 1.0));
    at[na++] = tvm_gattr_float("beta", tvm_gnode_float(n, "beta", 1.0));
  }
  tvm_gvalue *in[3] = {a, bp, c};
  tvm_gvalue *y = tvm_graph_apply(s->g, "MatMul_packed",
                                  tvm_arena_printf(s->g->arena, "%s.packed",
                                                   n->outputs[0]->name),
                                  in, c ? 3 : 2, at, na, 1, NULL);
  if (!y) return failed(s);
  *done = 1;
  /* same layout as before: consumers and graph outputs read y instead,
   * under the old value's name */
  tvm_gvalue *o = n->outputs[0];
  tvm_graph_replace_uses(s->g, o, y);
  const char *nm = o->name;
  o->name = tvm_arena_printf(s->g->arena, "%s.replaced", nm);
  y->name = nm;
  return o->name ? TVM_OK : tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
}

/* Is v a constant with one element? */
static int is_scalar(const tvm_gvalue *v) {
  return v && tvm_gvalue_numel(v) == 1 && v->ndim <= 5;
}

/* A constant per-channel operand ([C,1,1] or [1,C,1,1]) of C channels
 * moved to blocking L; NULL (no diagnostic) when v is not one. */
static tvm_gvalue *per_channel(al_state *s, tvm_gvalue *v, int64_t C,
                               const char *L, int64_t blk) {
  if (!v || v->kind != TVM_GV_CONST) return NULL;
  if (v->ndim == 3 && v->shape[0] == C && v->shape[1] == 1 && v->shape[2] == 1) {
    char dst[40];
    snprintf(dst, sizeof dst, "CHW%lldc", (long long)blk);
    return transform_ex(s, v, "CHW", dst, vname(s, v, dst), C % blk != 0, 0);
  }
  if (v->ndim == 4 && v->shape[0] == 1 && v->shape[1] == C &&
      v->shape[2] == 1 && v->shape[3] == 1)
    return transform_ex(s, v, "NCHW", L, vname(s, v, L), C % blk != 0, 0);
  return NULL;
}

/* Broadcast arithmetic that commutes with a change of layout. */
static int is_arith(const char *op) {
  static const char *const ops[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(op, ops[i]) == 0) return 1;
  return 0;
}

/* Elementwise and broadcast nodes follow a blocked operand. */
static tvm_status follow(al_state *s, tvm_gnode *n, int *done) {
  *done = 0;
  if (n->noutputs != 1 || !n->outputs[0] || n->outputs[0]->ndim != 4 ||
      !n->def)
    return TVM_OK;
  tvm_gvalue *o = n->outputs[0];
  tvm_gvalue *in[8];
  const char *L = NULL;
  if (n->ninputs > 8) return TVM_OK;
  for (int k = 0; k < n->ninputs; k++) {
    tvm_gvalue *t = twin_of(s, n->inputs[k]);
    if (t && !L && n->inputs[k]->ndim == 4 &&
        memcmp(n->inputs[k]->shape, o->shape, sizeof(int64_t) * 4) == 0)
      L = t->layout;
  }
  if (!L) return TVM_OK;
  int64_t blk = op_layout_nchwc_block(L);
  if (!blk) return TVM_OK;
  int elem = n->def->pattern == TVM_PAT_ELEMWISE && !is_arith(n->op);
  if (!elem && !is_arith(n->op)) return TVM_OK;
  for (int k = 0; k < n->ninputs; k++) {
    tvm_gvalue *v = n->inputs[k];
    in[k] = v;
    if (!v) continue;
    int full = v->ndim == 4 && memcmp(v->shape, o->shape, sizeof(int64_t) * 4) == 0;
    if (elem && k > 0) {
      if (!is_scalar(v)) return TVM_OK;
      continue;
    }
    if (full) continue; /* blocked below */
    if (elem) return TVM_OK;
    if (is_scalar(v)) continue;
    if (v->kind != TVM_GV_CONST) return TVM_OK;
    if (!(v->ndim == 3 && v->shape[0] == o->shape[1] && v->shape[1] == 1 &&
          v->shape[2] == 1) &&
        !(v->ndim == 4 && v->shape[0] == 1 && v->shape[1] == o->shape[1] &&
          v->shape[2] == 1 && v->shape[3] == 1))
      return TVM_OK;
  }
  /* every operand qualifies: rewrite */
  for (int k = 0; k < n->ninputs; k++) {
    tvm_gvalue *v = n->inputs[k];
    if (!v) continue;
    if (v->ndim == 4 && memcmp(v->shape, o->shape, sizeof(int64_t) * 4) == 0)
      in[k] = blocked(s, v, L);
    else if (!is_scalar(v))
      in[k] = per_channel(s, v, o->shape[1], L, blk);
    if (!in[k]) return failed(s);
  }
  tvm_gvalue *y = tvm_graph_apply(s->g, n->op, vname(s, o, L), in, n->ninputs,
                                  n->attrs, n->nattrs, 1, NULL);
  *done = 1;
  return set_twin(s, o, y, L);
}

/* MaxPool, GlobalAveragePool and GlobalMaxPool on a blocked operand ->
 * Pool_NCHWc (attribute pool = the operator's name). */
static tvm_status alter_pool(al_state *s, tvm_gnode *n, int *done) {
  *done = 0;
  int maxpool = strcmp(n->op, "MaxPool") == 0;
  if (!maxpool && strcmp(n->op, "GlobalAveragePool") != 0 &&
      strcmp(n->op, "GlobalMaxPool") != 0)
    return TVM_OK;
  tvm_gvalue *t = n->ninputs == 1 ? twin_of(s, n->inputs[0]) : NULL;
  if (!t || !op_layout_nchwc_block(t->layout) || n->inputs[0]->ndim != 4 ||
      !n->outputs[0] || (n->noutputs > 1 && n->outputs[1]) ||
      tvm_gnode_int(n, "storage_order", 0) != 0)
    return TVM_OK;
  tvm_gattr *at = tvm_arena_alloc(s->g->arena, sizeof(tvm_gattr) * (size_t)(n->nattrs + 1));
  if (!at) return tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
  if (n->nattrs > 0)
    memcpy(at, n->attrs, sizeof(tvm_gattr) * (size_t)n->nattrs);
  at[n->nattrs] = tvm_gattr_str("pool", n->op);
  const char *L = t->layout;
  tvm_gvalue *y = tvm_graph_apply(s->g, "Pool_NCHWc", vname(s, n->outputs[0], L),
                                  &t, 1, at, n->nattrs + 1, 1, NULL);
  *done = 1;
  return set_twin(s, n->outputs[0], y, L);
}

/* Concat along the channels of 4-D operands, one of them blocked: the
 * blocked operands concatenate along the channel-chunk axis (1), when
 * every operand's channel count is a multiple of the block. */
static tvm_status alter_concat(al_state *s, tvm_gnode *n, int *done) {
  *done = 0;
  if (strcmp(n->op, "Concat") != 0 || n->noutputs != 1 || !n->outputs[0] ||
      n->outputs[0]->ndim != 4 || n->ninputs < 1 || n->ninputs > 64)
    return TVM_OK;
  int64_t axis = tvm_gnode_int(n, "axis", 0);
  if (axis != 1 && axis != -3) return TVM_OK;
  const char *L = NULL;
  for (int k = 0; k < n->ninputs && !L; k++) {
    tvm_gvalue *t = twin_of(s, n->inputs[k]);
    if (t) L = t->layout;
  }
  int64_t blk = L ? op_layout_nchwc_block(L) : 0;
  if (!blk) return TVM_OK;
  for (int k = 0; k < n->ninputs; k++)
    if (!n->inputs[k] || n->inputs[k]->ndim != 4 ||
        n->inputs[k]->shape[1] % blk)
      return TVM_OK;
  tvm_gvalue *in[64];
  for (int k = 0; k < n->ninputs; k++)
    if (!(in[k] = blocked(s, n->inputs[k], L)))
      return failed(s);
  tvm_gattr at = tvm_gattr_int("axis", 1);
  tvm_gvalue *y = tvm_graph_apply(s->g, "Concat", vname(s, n->outputs[0], L),
                                  in, n->ninputs, &at, 1, 1, NULL);
  *done = 1;
  return set_twin(s, n->outputs[0], y, L);
}

/* Runs the pass (see the top of this file). */
tvm_status tvm_graph_pass_alter_layout(tvm_graph *g, tvm_layout_query_fn q,
                                       void *ud) {
  if (!g || !q)
    return tvm_diag_set(TVM_ERR_INVALID, "alter_layout: graph or query is NULL");
  tvm_status st = tvm_graph_status(g);
  if (st || (st = tvm_graph_toposort(g))) return st;
  al_state s = {g, {0}, {0}, {0}};
  size_t nn = g->nodes.len;
  tvm_gnode **nodes = tvm_malloc(sizeof(tvm_gnode *) * (nn + 1));
  if (!nodes) return tvm_diag_set(TVM_ERR_NOMEM, "alter_layout: out of memory");
  if (nn > 0)
    memcpy(nodes, g->nodes.data, sizeof(tvm_gnode *) * nn);
  for (size_t i = 0; i < nn && !st; i++) {
    tvm_gnode *n = nodes[i];
    int done = 0;
    if (strcmp(n->op, "Conv") == 0)
      st = alter_conv(&s, n, q, ud, &done);
    else if (strcmp(n->op, "MatMul") == 0 || strcmp(n->op, "Gemm") == 0)
      st = alter_matmul(&s, n, q, ud, &done);
    if (!st && !done) st = alter_pool(&s, n, &done);
    if (!st && !done) st = alter_concat(&s, n, &done);
    if (!st && !done) st = follow(&s, n, &done);
    if (st || done) continue;
    for (int k = 0; k < n->ninputs && !st; k++)
      if (n->inputs[k] && twin_of(&s, n->inputs[k])) {
        tvm_gvalue *p = plain_of(&s, n->inputs[k]);
        if (!p) st = failed(&s);
        else n->inputs[k] = p;
      }
  }
  /* graph outputs: back to the plain layout, under their own names */
  for (size_t i = 0; i < g->outputs.len && !st; i++) {
    tvm_gvalue *v = g->outputs.data[i];
    if (!twin_of(&s, v)) continue;
    tvm_gvalue *p = plain_of(&s, v);
    if (!p) {
      st = failed(&s);
      break;
    }
    const char *nm = v->name;
    v->name = tvm_arena_printf(g->arena, "%s.replaced", nm);
    p->name = nm;
    p->layout = NULL;
    g->outputs.data[i] = p;
  }
  tvm_free(nodes);
  tvm_ptrmap_free(&s.twin);
  tvm_ptrmap_free(&s.plain);
  tvm_ptrmap_free(&s.packed);
  if (st) return st;
  return tvm_graph_pass_dce(g);
}
