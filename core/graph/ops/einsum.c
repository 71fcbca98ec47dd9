/*
 * core/graph/ops/einsum.c - Einsum: the sum over the labels missing from
 * the output of the product of the inputs, each indexed by its labels
 * ("bij,bjk->bik", "ij->ji", "...ii->...i").  Spaces are ignored; "..."
 * stands for the dimensions no letter names (right-aligned across inputs,
 * broadcasting sizes of 1); without "->" the output holds the ellipsis
 * then the letters used once, alphabetically.  A letter repeated inside
 * one input takes its diagonal.
 *
 * Compute: one reduction over the summed labels (a product of reads);
 * pattern opaque.  At most 16 labels.
 */
#include <string.h>

#include "ops_int.h"

#define EN_MAXL 16
#define EN_MAXIN 8

/* The parsed equation: per input its labels (ids), the output labels,
 * each label's size. */
typedef struct en_info {
  int nin;
  int nlab[EN_MAXIN];
  int lab[EN_MAXIN][TVM_MAX_DIMS];
  int nout;
  int out[TVM_MAX_DIMS];
  int nl;            /* labels in use: ids 0..nl-1 */
  int64_t size[EN_MAXL];
  int red[EN_MAXL];  /* summed labels */
  int nred;
} en_info;

/* Maps a letter (or the k-th ellipsis dimension, letter = 0) to an id. */
static int label_id(char names[EN_MAXL][2], int *nl, char letter, int k) {
  for (int i = 0; i < *nl; i++)
    if (names[i][0] == letter && (letter || names[i][1] == k))
      return i;
  if (*nl == EN_MAXL)
    return -1;
  names[*nl][0] = letter;
  names[*nl][1] = (char)k;
  return (*nl)++;
}

/* Parses one term of the equation (from p to end) for an input of rank
 * `rank` (-1 for the output: the ellipsis has ne dimensions). */
static tvm_status parse_term(const tvm_gnode *n, const char *p,
                             const char *end, int rank, int *ne,
                             char names[EN_MAXL][2], int *nl, int *lab,
                             int *nlab) {
  int letters = 0, ell = 0;
  for (const char *q = p; q < end; q++) {
    if (*q == '.') {
      if (end - q < 3 || q[1] != '.' || q[2] != '.' || ell)
        return op_fail(n, TVM_ERR_INVALID, "malformed ellipsis in the "
                       "equation");
      ell = 1;
      q += 2;
    } else if ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) {
      letters++;
    } else if (*q != ' ') {
      return op_fail(n, TVM_ERR_INVALID, "unexpected '%c' in the equation",
                     *q);
    }
  }
  int en = rank < 0 ? *ne : rank - letters;
  if (rank >= 0 && (en < 0 || (!ell && en)))
    return op_fail(n, TVM_ERR_INVALID,
                   "an equation term has %d labels for an input of rank %d",
                   letters, rank);
  if (rank >= 0 && ell && en > *ne)
    *ne = en;
  *nlab = 0;
  for (const char *q = p; q < end; q++) {
    if (*q == ' ')
      continue;
    if (*q == '.') {
      for (int k = 0; k < en; k++) {
        /* right-aligned: the last ellipsis dims share ids */
        int id = label_id(names, nl, 0, k + (64 - en));
        if (id < 0 || *nlab == TVM_MAX_DIMS)
          return op_fail(n, TVM_ERR_UNSUPPORTED, "too many labels");
        lab[(*nlab)++] = id;
      }
      q += 2;
      continue;
    }
    int id = label_id(names, nl, *q, 0);
    if (id < 0 || *nlab == TVM_MAX_DIMS)
      return op_fail(n, TVM_ERR_UNSUPPORTED, "too many labels");
    lab[(*nlab)++] = id;
  }
  return TVM_OK;
}

static tvm_status en_parse(const tvm_gnode *n, en_info *e) {
  const char *eq;
  tvm_status st = op_attr_str(n, "equation", "", &eq);
  if (st)
    return st;
  memset(e, 0, sizeof *e);
  e->nin = n->ninputs;
  if (e->nin > EN_MAXIN)
    return op_fail(n, TVM_ERR_UNSUPPORTED, "at most %d inputs", EN_MAXIN);
  char names[EN_MAXL][2];
  int ne = 0;
  const char *arrow = strstr(eq, "->");
  const char *lhs_end = arrow ? arrow : eq + strlen(eq);
  const char *p = eq;
  for (int k = 0; k < e->nin; k++) {
    if ((st = op_check_dtype(n, k, "input", DT_NUM)))
      return st;
    const char *comma = memchr(p, ',', (size_t)(lhs_end - p));
    const char *end = k == e->nin - 1 ? lhs_end : comma;
    if (!end || (k == e->nin - 1 && comma))
      return op_fail(n, TVM_ERR_INVALID,
                     "the equation \"%s\" does not have one term per input "
                     "(%d)",
                     eq, e->nin);
    if ((st = parse_term(n, p, end, n->inputs[k]->ndim, &ne, names, &e->nl,
                         e->lab[k], &e->nlab[k])))
      return st;
    p = end + 1;
  }
  /* sizes */
  for (int l = 0; l < EN_MAXL; l++)
    e->size[l] = 1;
  for (int k = 0; k < e->nin; k++)
    for (int d = 0; d < e->nlab[k]; d++) {
      int64_t s = n->inputs[k]->shape[d];
      int l = e->lab[k][d];
      if (s != 1 && e->size[l] != 1 && e->size[l] != s)
        return op_fail(n, TVM_ERR_INVALID,
                       "label sizes disagree (%lld and %lld)",
                       (long long)e->size[l], (long long)s);
      if (s != 1)
        e->size[l] = s;
    }
  /* output */
  if (arrow) {
    int elabs[TVM_MAX_DIMS];
    const char *o = arrow + 2;
    int nl0 = e->nl;
    if ((st = parse_term(n, o, o + strlen(o), -1, &ne, names, &e->nl, elabs,
                         &e->nout)))
      return st;
    if (e->nl != nl0)
      return op_fail(n, TVM_ERR_INVALID,
                     "the output names a label no input has");
    for (int d = 0; d < e->nout; d++)
      e->out[d] = elabs[d];
  } else {
    for (int k = 64 - ne; k < 64; k++)
      for (int m = 0; m < e->nl; m++)
        if (names[m][0] == 0 && names[m][1] == k)
          e->out[e->nout++] = m;
    for (char ch = 'A'; ch <= 'z'; ch++) {
      int uses = 0, id = -1;
      for (int k = 0; k < e->nin; k++)
        for (int d = 0; d < e->nlab[k]; d++)
          if (names[e->lab[k][d]][0] == ch)
            uses++, id = e->lab[k][d];
      if (uses == 1)
        e->out[e->nout++] = id;
    }
  }
  for (int l = 0; l < e->nl; l++) {
    int in_out = 0;
    for (int d = 0; d < e->nout; d++)
      in_out |= e->out[d] == l;
    if (!in_out)
      e->red[e->nred++] = l;
  }
  for (int k = 1; k < e->nin; k++)
    if (!tvm_dtype_eq(n->inputs[k]->dtype, n->inputs[0]->dtype))
      return op_fail(n, TVM_ERR_INVALID, "inputs must have one dtype");
  return TVM_OK;
}

static tvm_status en_infer(tvm_graph *g, tvm_gnode *n) {
  (void)g;
  en_info e;
  tvm_status st = en_parse(n, &e);
  if (st)
    return st;
  int64_t s[TVM_MAX_DIMS];
  for (int d = 0; d < e.nout; d++)
    s[d] = e.size[e.out[d]];
  op_set_out(n, 0, n->inputs[0]->dtype, e.nout, s);
  return TVM_OK;
}

typedef struct en_ud {
  en_info e;
  tvm_tensor **in;
} en_ud;

static tvm_expr *en_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  en_ud *u = ud;
  en_info *e = &u->e;
  tvm_expr *var[EN_MAXL] = {0};
  tvm_iter_var *r[EN_MAXL];
  for (int d = 0; d < e->nout; d++)
    var[e->out[d]] = i[d];
  for (int k = 0; k < e->nred; k++) {
    char nm[8] = {'r', (char)('a' + k), 0};
    if (!(r[k] = tvm_reduce_axis(c, nm, 0, e->size[e->red[k]])))
      return NULL;
    var[e->red[k]] = r[k]->var;
  }
  tvm_expr *prod = NULL;
  for (int k = 0; k < e->nin; k++) {
    tvm_expr *ix[TVM_MAX_DIMS];
    for (int d = 0; d < e->nlab[k]; d++)
      ix[d] = u->in[k]->shape_c[d] == 1 ? tvm_int(c, 0) : var[e->lab[k][d]];
    tvm_expr *v = tvm_tread(c, u->in[k], ix, e->nlab[k]);
    prod = prod ? tvm_mul(c, prod, v) : v;
  }
  return e->nred ? tvm_sum(c, prod, r, e->nred) : prod;
}

static tvm_status en_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                             tvm_tensor **out) {
  en_ud u;
  tvm_status st = en_parse(n, &u.e);
  if (st)
    return st;
  u.in = in;
  out[0] = op_te_compute_out(c, n, 0, "einsum", en_body, &u);
  return op_te_status(c, n, out[0]);
}

static tvm_status en_reference(const tvm_gnode *n, const DLTensor *const *in,
                               DLTensor *const *out) {
  en_info e;
  tvm_status st = en_parse(n, &e);
  if (st)
    return st;
  int64_t olen = op_dl_numel(out[0]), rlen = 1;
  for (int k = 0; k < e.nred; k++)
    rlen *= e.size[e.red[k]];
  int fl = op_dl_is_float(out[0]);
  for (int64_t o = 0; o < olen; o++) {
    int64_t val[EN_MAXL] = {0};
    int64_t f = o;
    for (int d = e.nout - 1; d >= 0; d--) {
      val[e.out[d]] = f % e.size[e.out[d]];
      f /= e.size[e.out[d]];
    }
    double fs = 0;
    int64_t is = 0;
    for (int64_t r = 0; r < rlen; r++) {
      int64_t g = r;
      for (int k = e.nred - 1; k >= 0; k--) {
        val[e.red[k]] = g % e.size[e.red[k]];
        g /= e.size[e.red[k]];
      }
      double fp = 1;
      int64_t ip = 1;
      for (int k = 0; k < e.nin; k++) {
        int64_t off = 0;
        for (int d = 0; d < e.nlab[k]; d++)
          off = off * in[k]->shape[d] +
                (in[k]->shape[d] == 1 ? 0 : val[e.lab[k][d]]);
        if (fl)
          fp *= op_dl_getf(in[k], off);
        else
          ip *= op_dl_geti(in[k], off);
      }
      fs += fp;
      is += ip;
    }
    if (fl)
      op_dl_setf(out[0], o, fs);
    else
      op_dl_seti(out[0], o, is);
  }
  return TVM_OK;
}

static const tvm_gop_def defs[] = {
    {"Einsum", 1, EN_MAXIN, 1, 1, TVM_PAT_OPAQUE, en_infer, en_compute,
     en_reference, "sum of products over the labels the output omits"},
};

const ops_family ops_einsum_family = {defs,
                                      (int)(sizeof defs / sizeof defs[0])};
