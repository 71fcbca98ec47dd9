/*
 * core/graph/ops/layout.c - tensor layouts and the internal operator
 * LayoutTransform (attributes src_layout, dst_layout), inserted by the
 * alter_layout pass: it moves a tensor between a plain layout ("NCHW",
 * "OIHW", "CHW") and a channel-blocked one ("NCHW16c", "OIHW16i16o",
 * "CHW16c"), or between two blockings.  Every element keeps its logical
 * position: for each primal axis A, logical = outer * block + inner.
 *
 * With attribute pad = 1 an axis whose extent is no multiple of its
 * destination block is rounded up to one, the elements past the logical
 * extent being zero (a packed matrix operand "NK16n" of N = 1000 columns
 * has 63 panels, the last one padded); the inverse direction never pads.
 *
 * Attribute channels = C (> 0) gives axis C's logical extent when the
 * source's blocks overrun it (a padded "NCHW16c" tensor of 1000 channels
 * has 63 chunks, 1008 places): a plain destination gets C channels (the
 * padding dropped), a blocked one ceil(C / block) chunks with the places
 * past C zero.
 *
 * On constant inputs (weights, per-channel biases) fold_constants runs the
 * reference at compile time; on activations the compute is an injective
 * copy tagged "layout_transform".
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "layout_int.h"
#include "ops_int.h"

/* Parses a layout string (see layout_int.h). */
tvm_status op_layout_parse(const char *s, op_layout *l) {
  memset(l, 0, sizeof *l);
  if (!s || !*s)
    return tvm_diag_set(TVM_ERR_INVALID, "layout is empty");
  for (const char *p = s; *p;) {
    int64_t f = 0;
    while (isdigit((unsigned char)*p))
      f = f * 10 + (*p++ - '0');
    char ch = *p++;
    if (l->n == TVM_MAX_DIMS || !isalpha((unsigned char)ch) ||
        (f > 0) != (islower((unsigned char)ch) != 0))
      return tvm_diag_set(TVM_ERR_INVALID,
                          "layout '%s' is malformed: write upper-case axes "
                          "and blocks as <number><lower-case axis> "
                          "(NCHW16c), at most %d dimensions",
                          s, TVM_MAX_DIMS);
    char A = (char)toupper((unsigned char)ch);
    for (int d = 0; d < l->n; d++)
      if (l->axis[d] == A && (l->block[d] != 0) == (f != 0))
        return tvm_diag_set(TVM_ERR_INVALID,
                            "layout '%s' names axis %c twice", s, ch);
    l->axis[l->n] = A;
    l->block[l->n++] = f;
    if (!ch)
      break;
  }
  for (int d = 0; d < l->n; d++)
    if (l->block[d] && op_layout_primal(l, l->axis[d]) < 0)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "layout '%s' blocks axis %c but has no axis %c", s,
                          tolower((unsigned char)l->axis[d]), l->axis[d]);
  return TVM_OK;
}

/* See layout_int.h. */
int op_layout_primal(const op_layout *l, char A) {
  for (int d = 0; d < l->n; d++)
    if (l->axis[d] == A && !l->block[d])
      return d;
  return -1;
}

/* See layout_int.h. */
int64_t op_layout_block(const op_layout *l, char A) {
  for (int d = 0; d < l->n; d++)
    if (l->axis[d] == A && l->block[d])
      return l->block[d];
  return 1;
}

/* See layout_int.h. */
int64_t op_layout_nchwc_block(const char *s) {
  op_layout l;
  if (!s || strncmp(s, "NCHW", 4) != 0 || !isdigit((unsigned char)s[4]))
    return 0;
  tvm_status st = op_layout_parse(s, &l);
  if (st) {
    tvm_diag_clear();
    return 0;
  }
  if (l.n != 5 || l.axis[4] != 'C')
    return 0;
  return l.block[4];
}

/* ---- LayoutTransform ---------------------------------------------------- */

typedef struct lt_info {
  op_layout src, dst;
  int64_t logical[TVM_MAX_DIMS]; /* extent per dst dimension's axis */
  int64_t pad;                   /* 1: round partial blocks up, zero-filled */
  int64_t channels;              /* axis C's logical extent, 0 = its places */
} lt_info;

/* Parses both layouts of n and checks them against the input's shape;
 * fills the output shape. */
static tvm_status lt_check(const tvm_gnode *n, lt_info *li, int64_t *oshape) {
  const char *s, *d;
  const tvm_gvalue *x;
  tvm_status st;
  if ((st = op_input(n, 0, "data", &x)) ||
      (st = op_attr_str(n, "src_layout", NULL, &s)) ||
      (st = op_attr_str(n, "dst_layout", NULL, &d)) ||
      (st = op_attr_int(n, "pad", 0, &li->pad)) ||
      (st = op_attr_int(n, "channels", 0, &li->channels)))
    return st;
  if (li->pad != 0 && li->pad != 1)
    return op_fail(n, TVM_ERR_INVALID, "attribute pad is %lld; write 0 or 1",
                   (long long)li->pad);
  if (!s || !d)
    return op_fail(n, TVM_ERR_INVALID,
                   "attributes 'src_layout' and 'dst_layout' are required");
  if ((st = op_layout_parse(s, &li->src)) || (st = op_layout_parse(d, &li->dst)))
    return tvm_diag_prefix(st, "%s node '%s': ", n->op, op_name(n));
  if (x->ndim != li->src.n)
    return op_fail(n, TVM_ERR_INVALID,
                   "input has %d dimensions but src_layout %s has %d",
                   x->ndim, s, li->src.n);
  int nprim_s = 0, nprim_d = 0;
  for (int k = 0; k < li->src.n; k++)
    nprim_s += li->src.block[k] == 0;
  for (int k = 0; k < li->dst.n; k++) {
    if (li->dst.block[k])
      continue;
    nprim_d++;
    if (op_layout_primal(&li->src, li->dst.axis[k]) < 0)
      return op_fail(n, TVM_ERR_INVALID,
                     "dst_layout %s has axis %c that src_layout %s lacks", d,
                     li->dst.axis[k], s);
  }
  if (nprim_s != nprim_d)
    return op_fail(n, TVM_ERR_INVALID,
                   "src_layout %s and dst_layout %s have different axes", s,
                   d);
  for (int k = 0; k < li->src.n; k++)
    if (li->src.block[k] && x->shape[k] != li->src.block[k])
      return op_fail(n, TVM_ERR_INVALID,
                     "input dimension %d is %lld, src_layout %s says %lld", k,
                     (long long)x->shape[k], s, (long long)li->src.block[k]);
  if (li->channels) {
    int p = op_layout_primal(&li->src, 'C');
    int64_t sb = op_layout_block(&li->src, 'C');
    if (p < 0 || li->channels < 0 || li->channels > x->shape[p] * sb ||
        li->channels <= (x->shape[p] - 1) * sb)
      return op_fail(n, TVM_ERR_INVALID,
                     "attribute channels = %lld does not fit axis C of the "
                     "input (%lld places in blocks of %lld, src_layout %s)",
                     (long long)li->channels,
                     (long long)(p < 0 ? 0 : x->shape[p] * sb), (long long)sb,
                     s);
  }
  for (int k = 0; k < li->dst.n; k++) {
    char A = li->dst.axis[k];
    int p = op_layout_primal(&li->src, A);
    int64_t L = x->shape[p] * op_layout_block(&li->src, A);
    int64_t b = op_layout_block(&li->dst, A);
    if (A == 'C' && li->channels)
      L = li->channels;
    li->logical[k] = L;
    if (L % b && !(li->pad && op_layout_block(&li->src, A) == 1) &&
        !(A == 'C' && li->channels))
      return op_fail(n, TVM_ERR_INVALID,
                     "axis %c has %lld elements, not a multiple of the block "
                     "%lld of dst_layout %s (attribute pad = 1 zero-fills "
                     "the last block)",
                     A, (long long)L, (long long)b, d);
    oshape[k] = li->dst.block[k] ? li->dst.block[k] : (L + b - 1) / b;
  }
  return TVM_OK;
}

/* Infer: the output's shape in dst_layout; its value carries the layout. */
static tvm_status lt_infer(tvm_graph *g, tvm_gnode *n) {
  lt_info li;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = lt_check(n, &li, shape);
  if (st)
    return st;
  op_set_out(n, 0, n->inputs[0]->dtype, li.dst.n, shape);
  if (n->noutputs > 0 && n->outputs[0])
    n->outputs[0]->layout = tvm_gnode_str(n, "dst_layout", NULL);
  return TVM_OK;
}

/* The logical index of axis A from a dst index (i: expressions). */
static tvm_expr *lt_logical(tvm_ctx *c, const op_layout *l, tvm_expr **i,
                            char A) {
  int p = op_layout_primal(l, A);
  tvm_expr *e = i[p];
  for (int k = 0; k < l->n; k++)
    if (l->axis[k] == A && l->block[k])
      e = tvm_add(c, tvm_mul(c, e, tvm_int(c, l->block[k])), i[k]);
  return e;
}

typedef struct lt_ud {
  lt_info li;
  tvm_tensor *x;
} lt_ud;

/* out[i] = x[the same logical element in src_layout]. */
static tvm_expr *lt_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  lt_ud *u = ud;
  const op_layout *s = &u->li.src;
  tvm_expr *si[TVM_MAX_DIMS], *inside = NULL;
  for (int k = 0; k < s->n; k++) {
    char A = s->axis[k];
    tvm_expr *L = lt_logical(c, &u->li.dst, i, A);
    int64_t ext = u->x->shape_c[k] * op_layout_block(s, A);
    if (A == 'C' && u->li.channels && !s->block[k]) {
      /* the destination's places past the logical channels are zero */
      int64_t C = u->li.channels, b = op_layout_block(&u->li.dst, 'C');
      if ((C + b - 1) / b * b > C) {
        tvm_expr *lt = tvm_lt(c, L, tvm_int(c, C));
        inside = inside ? tvm_and(c, inside, lt) : lt;
        L = tvm_min(c, L, tvm_int(c, C - 1));
      }
    } else if (u->li.pad && !s->block[k] && op_layout_block(s, A) == 1) {
      /* padded: clamp the read, zero the element past the extent */
      tvm_expr *lt = tvm_lt(c, L, tvm_int(c, ext));
      inside = inside ? tvm_and(c, inside, lt) : lt;
      L = tvm_min(c, L, tvm_int(c, ext - 1));
    }
    int64_t b = op_layout_block(s, A);
    if (b == 1)
      si[k] = L;
    else if (s->block[k])
      si[k] = tvm_floormod(c, L, tvm_int(c, b));
    else
      si[k] = tvm_floordiv(c, L, tvm_int(c, b));
  }
  tvm_expr *v = tvm_tread(c, u->x, si, s->n);
  return inside ? tvm_select(c, inside, v, op_te_const(c, u->x->dtype, 0))
                : v;
}

/* Compute: one injective stage tagged "layout_transform". */
static tvm_status lt_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  lt_ud u;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = lt_check(n, &u.li, shape);
  if (st)
    return st;
  u.x = in[0];
  out[0] = op_te_compute_out(c, n, 0, "layout_transform", lt_body, &u);
  return op_te_status(c, n, out[0]);
}

/* Copies every element to its place in the destination layout. */
/* Copies one element of eb bytes (constant sizes for the compiler). */
static inline void lt_copy(char *d, const char *s, int eb) {
  switch (eb) {
  case 1: memcpy(d, s, 1); break;
  case 2: memcpy(d, s, 2); break;
  case 4: memcpy(d, s, 4); break;
  case 8: memcpy(d, s, 8); break;
  default: memcpy(d, s, (size_t)eb);
  }
}

/* Walks the output in order with an odometer (no division per dimension
 * per element: this runs at compile time on every weight that
 * fold_constants transforms, 11 M elements for ResNet-18); per source
 * dimension the positions it is read from are looked up once. */
static tvm_status lt_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  lt_info li;
  int64_t shape[TVM_MAX_DIMS];
  tvm_status st = lt_check(n, &li, shape);
  if (st)
    return st;
  const DLTensor *x = in[0];
  int eb = op_dl_elem_bytes(x);
  const char *src = (const char *)x->data + x->byte_offset;
  char *dst = (char *)out[0]->data + out[0]->byte_offset;
  int64_t len = op_dl_numel(out[0]);
  int nd = out[0]->ndim, ns = li.src.n;
  /* source dimension k: logical index L = oi[prim] then, for each dst
   * block of the axis, L * block + oi[q]; the source index is L, L % b
   * (the src block of the axis) or L / b (its primal, blocked) */
  int prim[TVM_MAX_DIMS], nq[TVM_MAX_DIMS], q[TVM_MAX_DIMS][TVM_MAX_DIMS];
  int64_t qb[TVM_MAX_DIMS][TVM_MAX_DIMS], b[TVM_MAX_DIMS];
  int kind[TVM_MAX_DIMS]; /* 0: L, 1: L % b, 2: L / b */
  for (int k = 0; k < ns; k++) {
    char A = li.src.axis[k];
    prim[k] = op_layout_primal(&li.dst, A);
    nq[k] = 0;
    for (int d = 0; d < li.dst.n; d++)
      if (li.dst.axis[d] == A && li.dst.block[d]) {
        q[k][nq[k]] = d;
        qb[k][nq[k]++] = li.dst.block[d];
      }
    b[k] = op_layout_block(&li.src, A);
    kind[k] = b[k] == 1 ? 0 : li.src.block[k] ? 1 : 2;
  }
  int64_t oi[TVM_MAX_DIMS] = {0};
  /* logical extent of the axis of source dimension k (channels) */
  int64_t lim[TVM_MAX_DIMS];
  for (int k = 0; k < ns; k++)
    lim[k] = li.src.axis[k] == 'C' && li.channels ? li.channels : INT64_MAX;
  /* An unblocked source read inside its extents (the weights' OIHW or
   * KN, every compile): the source offset is linear in the destination
   * indices, so the walk adds a stride per dimension instead of
   * recomputing the offset per element. */
  int linear = !li.pad && !li.channels;
  for (int k = 0; k < ns; k++)
    linear &= kind[k] == 0;
  if (linear) {
    int64_t sstride[TVM_MAX_DIMS], dstride[TVM_MAX_DIMS] = {0};
    for (int k = ns - 1; k >= 0; k--)
      sstride[k] = k == ns - 1 ? 1 : sstride[k + 1] * x->shape[k + 1];
    for (int k = 0; k < ns; k++) {
      /* L = ((oi[prim] * qb0 + oi[q0]) * qb1 + oi[q1]) ... */
      int64_t m = sstride[k];
      for (int r = nq[k] - 1; r >= 0; r--) {
        dstride[q[k][r]] += m;
        m *= qb[k][r];
      }
      dstride[prim[k]] += m;
    }
    int64_t inner = out[0]->shape[nd - 1], is = dstride[nd - 1], flat = 0;
    for (int64_t e = 0; e < len; e += inner) {
      if (eb == 4) {
        for (int64_t j = 0; j < inner; j++)
          memcpy(dst + (e + j) * 4, src + (flat + j * is) * 4, 4);
      } else {
        for (int64_t j = 0; j < inner; j++)
          lt_copy(dst + (e + j) * eb, src + (flat + j * is) * eb, eb);
      }
      for (int d = nd - 2; d >= 0; d--) {
        flat += dstride[d];
        if (++oi[d] < out[0]->shape[d])
          break;
        flat -= dstride[d] * out[0]->shape[d];
        oi[d] = 0;
      }
    }
    return TVM_OK;
  }
  for (int64_t e = 0; e < len; e++) {
    int64_t flat = 0;
    int outside = 0;
    for (int k = 0; k < ns; k++) {
      int64_t L = oi[prim[k]];
      for (int r = 0; r < nq[k]; r++)
        L = L * qb[k][r] + oi[q[k][r]];
      int64_t v = kind[k] == 0 ? L : kind[k] == 1 ? L % b[k] : L / b[k];
      outside |= v >= x->shape[k] || L >= lim[k];
      flat = flat * x->shape[k] + v;
    }
    if (outside)
      memset(dst + e * eb, 0, (size_t)eb);
    else
      lt_copy(dst + e * eb, src + flat * eb, eb);
    for (int d = nd - 1; d >= 0 && ++oi[d] == out[0]->shape[d]; d--)
      oi[d] = 0;
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"LayoutTransform", 1, 1, 1, 1, TVM_PAT_INJECTIVE, lt_infer, lt_compute,
     lt_reference,
     "internal: moves a tensor between layouts (NCHW <-> NCHW16c, OIHW -> "
     "OIHW16i16o, KN -> NK16n); attributes src_layout, dst_layout, pad, "
     "channels"},
};

const ops_family ops_layout_family = {defs,
                                      (int)(sizeof defs / sizeof defs[0])};
