/*
 * plugins/vdla/codegen.c - device functions -> VDLA driver command lists.
 *
 * The core hands codegen the device functions only (HOST_DEVICE.md).  A
 * VDLA kernel is the whole loop nest of a fused group; VDLA has no loops
 * of its own beyond the GEMM/ALU micro-op nest, so codegen evaluates the
 * nest at compile time with the core's integer evaluator
 * (tvm_lower_eval_int): loops run, lets bound, ifs decided.  What it
 * recognizes, in program order:
 *
 *  - DMA copy nests: a perfect loop nest ending in one store whose inner
 *    loops cover exactly one entry of an on-chip buffer (the "lanes":
 *    BATCH x BLOCK_IN int8 for vdla.inp, BLOCK_OUT x BLOCK_IN int8 for
 *    vdla.wgt, BATCH x BLOCK_OUT int32 for vdla.acc) with unit strides
 *    on both sides.  The outer loops enumerate entries; each row (the
 *    innermost outer loop) becomes (x_pad_0 zeros, a contiguous run of
 *    DRAM entries, x_pad_1 zeros), and consecutive rows with the same
 *    shape and a constant DRAM stride merge into one 2-D LOAD (all-zero
 *    rows before or after become y_pad_0 / y_pad_1):
 *      scope[i] = param[j]                  LOAD INP / WGT / ACC
 *      scope[i] = select(c, param[j], 0)    LOAD with zero padding
 *      param[j] = cast(int8, acc[i])        STORE (from the output buffer,
 *                                           which mirrors acc narrowed)
 *  - ALU nests: acc[i] = f(acc[i]) where f is a chain of min, max, +, -,
 *    *, >> (<<) with an int16 immediate or another acc entry (a bias): one
 *    ALU instruction per operation of the chain;
 *  - vdla_gemm / vdla_gemm_reset calls (the tensor intrinsic): one micro-op
 *    each, gathered into runs until the compute queue does something else;
 *  - dep_push / dep_pop: the driver's dependency operations (the core's
 *    queues 0, 1, 2 are the load, compute and store modules).
 *
 * A run of micro-ops is compressed into the instruction's two affine loop
 * levels: the shortest micro-op list u[0..p) such that the run is
 * u[j] + i*d_in + o*d_out over (o < e_out, i < e_in), field ranges
 * permitting; else as few instructions as the micro-op buffer needs.
 * Everything else (arithmetic the ALU lacks, scalar kernel parameters,
 * unaligned or non-contiguous copies) is refused with a message naming it.
 *
 * Blob (TVM_BLOB_CUSTOM, host byte order): "VDLAPRG1", u32 nkernels, then
 * per kernel: u32 name length, name, u32 nparams, ncmds, nuops, then
 * vdla_cmd[ncmds], vdla_uop[nuops].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/plugin_sdk.h"
#include "vdla_plugin.h"

#define MAX_CMDS (1u << 22)
#define NLOOP 16

/* An on-chip allocation of the kernel. */
typedef struct sbuf {
  int buf;          /* VDLA_BUF_INP / WGT / ACC */
  uint32_t base;    /* first entry */
  uint32_t lanes;   /* elements per entry */
} sbuf;

typedef struct ent {
  int64_t s, d; /* SRAM entry, DRAM element (d < 0: a zero pad entry) */
} ent;

typedef struct cg {
  tvm_plugin_target *t;
  const tvm_func *f;
  tvm_ptrmap env;    /* loop/let var -> int64_t* */
  tvm_ptrmap params; /* handle var -> param index + 1 */
  tvm_ptrmap sbufs;  /* handle var -> sbuf* */
  uint32_t next[VDLA_NBUF], cap[VDLA_NBUF], lanes[VDLA_NBUF];
  vdla_cmd *cmds;
  uint32_t ncmds, ccmds;
  vdla_uop *uops;
  uint32_t nuops, cuops;
  /* the pending run of compute micro-ops */
  int run_on;
  vdla_insn run_t;
  vdla_uop *run;
  uint32_t nrun, crun;
  ent *ents;
  size_t nents, cents;
  tvm_ptrvec owned; /* sbufs */
  int32_t err;
} cg;

/* Records the first failure (reported through the host). */
static int fail(cg *g, int32_t st, const char *what, const tvm_expr *e) {
  if (g->err) return 0;
  char *s = e ? tvm_expr_str(e) : NULL;
  g->err = vdla_fail(st, "vdla codegen of %s: %s%s%s%s", g->f->name, what,
                     s ? " `" : "", s ? s : "", s ? "`" : "");
  tvm_free(s);
  return 0;
}

/* e as a constant (loop variables bound), or a failure naming it. */
static int eval(cg *g, const tvm_expr *e, int64_t *v) {
  if (tvm_lower_eval_int(e, &g->env, v)) return 1;
  return fail(g, TVM_ERR_UNSUPPORTED,
              "an index or bound VDLA cannot compute at compile time "
              "(kernels must have constant shapes):", e);
}

/* Binds var to v. */
static int bind(cg *g, const tvm_expr *var, int64_t v) {
  void *old = NULL;
  if (tvm_ptrmap_get(&g->env, var, &old) && old) {
    *(int64_t *)old = v;
    return 1;
  }
  int64_t *p = malloc(sizeof *p);
  if (!p || tvm_ptrmap_put(&g->env, var, p) != TVM_OK) {
    free(p);
    return fail(g, TVM_ERR_NOMEM, "out of memory", NULL);
  }
  *p = v;
  return 1;
}

static int add_cmd(cg *g, const vdla_cmd *c) {
  if (g->ncmds >= MAX_CMDS)
    return fail(g, TVM_ERR_UNSUPPORTED, "more than 4M driver commands: tile "
                "the computation with larger tiles", NULL);
  if (g->ncmds == g->ccmds) {
    uint32_t nc = g->ccmds ? g->ccmds * 2 : 256;
    vdla_cmd *p = realloc(g->cmds, nc * sizeof *p);
    if (!p) return fail(g, TVM_ERR_NOMEM, "out of memory", NULL);
    g->cmds = p;
    g->ccmds = nc;
  }
  g->cmds[g->ncmds++] = *c;
  return 1;
}

/* ---- compute runs -------------------------------------------------------- */

/* Does the run u[0..n) equal u[j] + i*din + o*dout for p, ein, eout? */
static int fits(const vdla_uop *u, uint32_t n, uint32_t p, uint32_t ein,
                uint32_t eout, int64_t din[3], int64_t dout[3]) {
  int64_t z[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) din[k] = dout[k] = 0;
  if (ein > 1) {
    din[0] = (int64_t)u[p].dst - u[0].dst;
    din[1] = (int64_t)u[p].src - u[0].src;
    din[2] = (int64_t)u[p].wgt - u[0].wgt;
  }
  if (eout > 1) {
    dout[0] = (int64_t)u[p * ein].dst - u[0].dst;
    dout[1] = (int64_t)u[p * ein].src - u[0].src;
    dout[2] = (int64_t)u[p * ein].wgt - u[0].wgt;
  }
  (void)z;
  for (uint32_t o = 0; o < eout; o++)
    for (uint32_t i = 0; i < ein; i++)
      for (uint32_t j = 0; j < p; j++) {
        const vdla_uop *a = &u[(o * ein + i) * p + j], *b = &u[j];
        if ((int64_t)a->dst != b->dst + i * din[0] + o * dout[0] ||
            (int64_t)a->src != b->src + i * din[1] + o * dout[1] ||
            (int64_t)a->wgt != b->wgt + i * din[2] + o * dout[2])
          return 0;
      }
  /* factors are unsigned fields */
  const int64_t lim[3] = {1 << VDLA_FACTOR_BITS, 1 << VDLA_FACTOR_BITS,
                          1 << VDLA_WFACTOR_BITS};
  for (int k = 0; k < 3; k++)
    if (din[k] < 0 || dout[k] < 0 || din[k] >= lim[k] || dout[k] >= lim[k])
      return 0;
  return ein < (1u << VDLA_EXTENT_BITS) && eout < (1u << VDLA_EXTENT_BITS);
}

/* Emits one COMPUTE command for u[0..n) (a slice of the run). */
static int emit_compute(cg *g, const vdla_uop *u, uint32_t n) {
  uint32_t cap = g->cap[VDLA_BUF_UOP];
  uint32_t best_p = 0, best_in = 1, best_out = 1;
  int64_t din[3], dout[3], bdin[3] = {0}, bdout[3] = {0};
  for (uint32_t p = 1; p <= n && !best_p; p++) {
    if (n % p || p > cap) continue;
    uint32_t rest = n / p;
    for (uint32_t ein = rest; ein >= 1 && !best_p; ein--) {
      if (rest % ein) continue;
      if (fits(u, n, p, ein, rest / ein, din, dout)) {
        best_p = p, best_in = ein, best_out = rest / ein;
        memcpy(bdin, din, sizeof din);
        memcpy(bdout, dout, sizeof dout);
      }
    }
  }
  if (!best_p) { /* no affine structure: explicit micro-ops in chunks */
    for (uint32_t k = 0; k < n; k += cap)
      if (!emit_compute(g, u + k, n - k < cap ? n - k : cap)) return 0;
    return !g->err;
  }
  vdla_cmd c;
  memset(&c, 0, sizeof c);
  c.kind = VDLA_CMD_COMPUTE;
  c.insn = g->run_t;
  c.insn.extent_out = best_out;
  c.insn.extent_in = best_in;
  c.insn.dst_factor_in = (uint32_t)bdin[0];
  c.insn.src_factor_in = (uint32_t)bdin[1];
  c.insn.wgt_factor_in = (uint32_t)bdin[2];
  c.insn.dst_factor_out = (uint32_t)bdout[0];
  c.insn.src_factor_out = (uint32_t)bdout[1];
  c.insn.wgt_factor_out = (uint32_t)bdout[2];
  c.uop_off = g->nuops;
  c.nuops = best_p;
  if (g->nuops + best_p > g->cuops) {
    uint32_t nc = (g->cuops ? g->cuops * 2 : 256) + best_p;
    vdla_uop *q = realloc(g->uops, nc * sizeof *q);
    if (!q) return fail(g, TVM_ERR_NOMEM, "out of memory", NULL);
    g->uops = q;
    g->cuops = nc;
  }
  memcpy(g->uops + g->nuops, u, best_p * sizeof *u);
  g->nuops += best_p;
  return add_cmd(g, &c);
}

/* Ends the pending run. */
static int flush(cg *g) {
  if (!g->run_on) return !g->err;
  g->run_on = 0;
  uint32_t n = g->nrun;
  g->nrun = 0;
  return n ? emit_compute(g, g->run, n) : 1;
}

/* Adds a micro-op to the run of instructions like tmpl. */
static int add_uop(cg *g, const vdla_insn *tmpl, vdla_uop u) {
  if (g->run_on && (g->run_t.op != tmpl->op || g->run_t.reset != tmpl->reset ||
                    g->run_t.alu_op != tmpl->alu_op ||
                    g->run_t.use_imm != tmpl->use_imm ||
                    g->run_t.imm != tmpl->imm))
    if (!flush(g)) return 0;
  if (!g->run_on) {
    g->run_on = 1;
    g->run_t = *tmpl;
  }
  if (g->nrun == g->crun) {
    uint32_t nc = g->crun ? g->crun * 2 : 256;
    vdla_uop *q = realloc(g->run, nc * sizeof *q);
    if (!q) return fail(g, TVM_ERR_NOMEM, "out of memory", NULL);
    g->run = q;
    g->crun = nc;
  }
  g->run[g->nrun++] = u;
  return 1;
}

/* ---- buffers --------------------------------------------------------------- */

static sbuf *sbuf_of(cg *g, const tvm_expr *b) {
  void *v = NULL;
  return b && tvm_ptrmap_get(&g->sbufs, b, &v) ? v : NULL;
}
static int64_t param_of(cg *g, const tvm_expr *b) {
  void *v = NULL;
  return b && tvm_ptrmap_get(&g->params, b, &v) ? (int64_t)(uintptr_t)v - 1
                                                : -1;
}

/* access_ptr(buf, dtype, offset, extent, rw) -> the SRAM entry of buf
 * (buffer kind want) at offset. */
static int access_entry(cg *g, const tvm_expr *p, int want, uint32_t *entry) {
  int64_t off;
  if (p->kind != TVM_CALL || p->u.call.op != TVM_INTRIN_ACCESS_PTR ||
      p->u.call.nargs < 3)
    return fail(g, TVM_ERR_UNSUPPORTED, "a GEMM operand that is not an "
                "access_ptr:", p);
  sbuf *b = sbuf_of(g, p->u.call.args[0]);
  if (!b || b->buf != want)
    return fail(g, TVM_ERR_UNSUPPORTED, "a GEMM operand in the wrong memory "
                "scope (vdla_gemm(acc, inp, wgt) takes vdla.acc, vdla.inp, "
                "vdla.wgt):", p);
  if (!eval(g, p->u.call.args[2], &off)) return 0;
  if (off < 0 || off % b->lanes)
    return fail(g, TVM_ERR_UNSUPPORTED, "a GEMM operand not aligned to an "
                "entry of its buffer (tile the GEMM axes by the hardware's "
                "BATCH/BLOCK sizes):", p);
  *entry = b->base + (uint32_t)(off / b->lanes);
  return 1;
}

/* ---- copy and ALU nests ---------------------------------------------------- */

enum { NEST_NONE, NEST_LOAD, NEST_STORE, NEST_ALU };

/* One operation of an ALU chain. */
typedef struct aluop {
  uint32_t op;
  int use_imm;
  int32_t imm;
  const tvm_expr *operand; /* a load of acc when !use_imm */
} aluop;

/* Does e read buffer b? */
static int reads(const tvm_expr *e, const tvm_expr *b) {
  if (!e) return 0;
  switch (e->kind) {
  case TVM_LOAD: return e->u.load.buffer == b || reads(e->u.load.index, b);
  case TVM_CAST: case TVM_NOT: return reads(e->u.un.a, b);
  case TVM_SELECT:
    return reads(e->u.sel.cond, b) || reads(e->u.sel.t, b) ||
           reads(e->u.sel.f, b);
  case TVM_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (reads(e->u.call.args[i], b)) return 1;
    return 0;
  default:
    if (e->kind >= TVM_ADD && e->kind <= TVM_OR)
      return reads(e->u.bin.a, b) || reads(e->u.bin.b, b);
    return 0;
  }
}

/* Parses the ALU chain e over buffer b into ops (innermost first); sets
 * *leaf to the load of b it starts from.  0 when e is not such a chain. */
static int alu_chain(cg *g, const tvm_expr *e, const tvm_expr *b,
                     aluop *ops, int *n, const tvm_expr **leaf) {
  int64_t v;
  if (e->kind == TVM_LOAD && e->u.load.buffer == b && !e->u.load.pred) {
    *leaf = e;
    return 1;
  }
  if (e->kind == TVM_CAST && e->dtype.bits == 32 && tvm_dtype_is_int(e->dtype) &&
      e->u.un.a->dtype.bits == 32 && tvm_dtype_is_int(e->u.un.a->dtype))
    return alu_chain(g, e->u.un.a, b, ops, n, leaf);
  const tvm_expr *x = NULL, *y = NULL;
  uint32_t op;
  int neg = 0, comm = 1;
  if (e->kind == TVM_CALL &&
      (e->u.call.op == TVM_INTRIN_SHR || e->u.call.op == TVM_INTRIN_SHL) &&
      e->u.call.nargs == 2) {
    x = e->u.call.args[0], y = e->u.call.args[1];
    op = VDLA_ALU_SHR, neg = e->u.call.op == TVM_INTRIN_SHL, comm = 0;
  } else if (e->kind == TVM_ADD || e->kind == TVM_SUB || e->kind == TVM_MUL ||
             e->kind == TVM_MIN || e->kind == TVM_MAX) {
    x = e->u.bin.a, y = e->u.bin.b;
    op = e->kind == TVM_ADD || e->kind == TVM_SUB ? VDLA_ALU_ADD
         : e->kind == TVM_MUL                     ? VDLA_ALU_MUL
         : e->kind == TVM_MIN                     ? VDLA_ALU_MIN
                                                  : VDLA_ALU_MAX;
    if (e->kind == TVM_SUB) neg = 1, comm = 0;
  } else {
    return 0;
  }
  if (!reads(x, b)) {
    if (!comm) return 0;
    const tvm_expr *tmp = x;
    x = y, y = tmp;
  }
  if (reads(y, b) || *n >= NLOOP) return 0;
  if (!alu_chain(g, x, b, ops, n, leaf)) return 0;
  aluop *a = &ops[(*n)++];
  a->op = op;
  if (y->kind == TVM_INT || tvm_is_const_int((tvm_expr *)y, &v)) {
    v = y->kind == TVM_INT ? y->u.ival : v;
    if (neg) v = -v;
    if (v < -32768 || v > 32767) return 0;
    a->use_imm = 1, a->imm = (int32_t)v, a->operand = NULL;
    return 1;
  }
  if (neg || y->kind != TVM_LOAD || y->u.load.pred) return 0;
  sbuf *sb = sbuf_of(g, y->u.load.buffer);
  if (!sb || sb->buf != VDLA_BUF_ACC) return 0;
  a->use_imm = 0, a->imm = 0, a->operand = y;
  return 1;
}

/* A recognized nest. */
typedef struct nest {
  int kind;
  tvm_stmt *loops[NLOOP];
  int nloops, k;      /* loops[k..) cover one entry */
  const tvm_stmt *st; /* the store */
  sbuf *sb;           /* the on-chip side */
  int64_t param;      /* the DRAM side (LOAD, STORE) */
  uint32_t ebytes;    /* DRAM bytes per element */
  const tvm_expr *sram_idx, *dram_idx, *cond;
  aluop ops[NLOOP];
  int nops;
} nest;

/* Classifies the perfect nest at s; 0 when it is none of ours. */
static int classify(cg *g, tvm_stmt *s, nest *n) {
  memset(n, 0, sizeof *n);
  while (s->kind == TVM_FOR && n->nloops < NLOOP) {
    n->loops[n->nloops++] = s;
    s = s->u.for_.body;
  }
  if (s->kind != TVM_STORE || s->u.store.pred) return 0;
  n->st = s;
  const tvm_expr *v = s->u.store.value, *dst = s->u.store.buffer;
  sbuf *sd = sbuf_of(g, dst);
  if (sd) {
    n->sb = sd;
    n->sram_idx = s->u.store.index;
    const tvm_expr *ld = v;
    if (v->kind == TVM_SELECT && v->u.sel.t->kind == TVM_LOAD) {
      int64_t z;
      if (!tvm_is_const_int(v->u.sel.f, &z) || z != 0) return 0;
      n->cond = v->u.sel.cond;
      ld = v->u.sel.t;
    }
    if (ld->kind == TVM_LOAD && !ld->u.load.pred &&
        (n->param = param_of(g, ld->u.load.buffer)) >= 0) {
      n->kind = NEST_LOAD;
      n->dram_idx = ld->u.load.index;
      n->ebytes = (uint32_t)tvm_dtype_bytes(ld->dtype);
      return 1;
    }
    if (sd->buf != VDLA_BUF_ACC || n->cond) return 0;
    const tvm_expr *leaf = NULL;
    if (!alu_chain(g, v, dst, n->ops, &n->nops, &leaf) || !n->nops) return 0;
    n->kind = NEST_ALU;
    n->dram_idx = leaf->u.load.index; /* must equal the store's */
    return 1;
  }
  if ((n->param = param_of(g, dst)) < 0) return 0;
  if (v->kind == TVM_CAST) v = v->u.un.a;
  if (v->kind != TVM_LOAD || v->u.load.pred) return 0;
  sbuf *ss = sbuf_of(g, v->u.load.buffer);
  if (!ss || ss->buf != VDLA_BUF_ACC) return 0;
  if (s->u.store.value->dtype.bits != 8 || !tvm_dtype_is_int(s->u.store.value->dtype))
    return fail(g, TVM_ERR_UNSUPPORTED, "a copy out of the accumulator that "
                "is not int8 (the store module writes the int8 output "
                "buffer: cast to int8, clipped first):", s->u.store.value);
  n->kind = NEST_STORE;
  n->sb = ss;
  n->sram_idx = v->u.load.index;
  n->dram_idx = s->u.store.index;
  n->ebytes = 1;
  return 1;
}

/* Appends an entry. */
static int add_ent(cg *g, int64_t s, int64_t d) {
  if (g->nents == g->cents) {
    size_t nc = g->cents ? g->cents * 2 : 1024;
    ent *p = realloc(g->ents, nc * sizeof *p);
    if (!p) return fail(g, TVM_ERR_NOMEM, "out of memory", NULL);
    g->ents = p;
    g->cents = nc;
  }
  g->ents[g->nents++] = (ent){s, d};
  return 1;
}

/* Binds loops [k..) to their minimums. */
static int bind_inner(cg *g, nest *n) {
  for (int i = n->k; i < n->nloops; i++) {
    int64_t m;
    if (!eval(g, n->loops[i]->u.for_.min, &m) || !bind(g, n->loops[i]->u.for_.var, m))
      return 0;
  }
  return 1;
}

/* Enumerates the entries of outer loops [lvl..k). */
static int enum_entries(cg *g, nest *n, int lvl) {
  if (lvl == n->k) {
    int64_t si, di = 0, c = 1;
    if (!bind_inner(g, n) || !eval(g, n->sram_idx, &si)) return 0;
    if (n->cond && !eval(g, n->cond, &c)) return 0;
    if (c && !eval(g, n->dram_idx, &di)) return 0;
    if (si % n->sb->lanes)
      return fail(g, TVM_ERR_UNSUPPORTED, "an on-chip access not aligned to "
                  "an entry of its buffer:", n->sram_idx);
    return add_ent(g, n->sb->base + si / n->sb->lanes, c ? di : -1);
  }
  tvm_stmt *l = n->loops[lvl];
  int64_t m, e;
  if (!eval(g, l->u.for_.min, &m) || !eval(g, l->u.for_.extent, &e)) return 0;
  for (int64_t i = 0; i < e; i++)
    if (!bind(g, l->u.for_.var, m + i) || !enum_entries(g, n, lvl + 1)) return 0;
  return 1;
}

/* Checks that loops [k..) step both sides by one element, row-major:
 * evaluated with the outer loops at their first iteration. */
static int check_inner(cg *g, nest *n) {
  int64_t s0, d0 = 0, s1, d1, c = 1, stride = 1;
  for (int i = 0; i < n->k; i++) {
    int64_t m;
    if (!eval(g, n->loops[i]->u.for_.min, &m) || !bind(g, n->loops[i]->u.for_.var, m))
      return 0;
  }
  if (!bind_inner(g, n) || !eval(g, n->sram_idx, &s0)) return 0;
  if (n->cond && !eval(g, n->cond, &c)) return 0;
  if (c && !eval(g, n->dram_idx, &d0)) return 0;
  for (int i = n->nloops - 1; i >= n->k; i--) {
    int64_t m, e;
    tvm_stmt *l = n->loops[i];
    if (!eval(g, l->u.for_.min, &m) || !eval(g, l->u.for_.extent, &e)) return 0;
    if (e > 1) {
      if (!bind(g, l->u.for_.var, m + 1) || !eval(g, n->sram_idx, &s1)) return 0;
      if (c && !eval(g, n->dram_idx, &d1)) return 0;
      if (s1 - s0 != stride || (c && d1 - d0 != stride))
        return fail(g, TVM_ERR_UNSUPPORTED, "a copy whose innermost loops do "
                    "not walk one buffer entry contiguously on both sides "
                    "(keep the BATCH/BLOCK axes innermost, in layout order):",
                    n->sram_idx);
      if (!bind(g, l->u.for_.var, m)) return 0;
    }
    stride *= e;
  }
  return 1;
}

/* Emits the LOAD or STORE commands for rows of cols entries in g->ents;
 * with dry set, only counts them.  Returns the count, -1 on failure. */
static int64_t emit_dma(cg *g, nest *n, int64_t cols, int dry) {
  int64_t count = 0;
  uint32_t lanes = n->sb->lanes;
  uint64_t eb = (uint64_t)lanes * n->ebytes;
  size_t rows = g->nents / (size_t)cols;
  int load = n->kind == NEST_LOAD;
  vdla_cmd c;
  int open = 0;
  uint32_t x0 = 0, xs = 0, x1 = 0;
  int64_t first = 0, stride = 0;
  /* one row's shape: 0 ok, -1 irregular */
  for (size_t r = 0; r <= rows; r++) {
    const ent *e = r < rows ? &g->ents[r * (size_t)cols] : NULL;
    int ok = e != NULL, allpad = 1;
    uint32_t a = 0, b = 0;
    for (int64_t x = 0; ok && x < cols; x++) {
      if (e[x].s != e[0].s + x) ok = 0;
      if (e[x].d >= 0) allpad = 0;
    }
    if (ok && !allpad) {
      while (e[a].d < 0) a++;
      b = (uint32_t)cols;
      while (e[b - 1].d < 0) b--;
      for (uint32_t x = a; x < b; x++)
        if (e[x].d != e[a].d + (int64_t)(x - a) * lanes) ok = 0;
      if (e[a].d % lanes || (e[a].d * n->ebytes) % eb) ok = 0;
      if (a > 15 || (uint32_t)cols - b > 15) ok = 0;
    }
    if (ok && allpad && !load) ok = 0;
    if (ok && allpad && cols > 30) ok = 0;
    /* does row r extend the open instruction? */
    if (open && ok) {
      uint32_t rowsnow = c.pads[0] + c.y + c.pads[1];
      int contiguous = (int64_t)c.sram + (int64_t)rowsnow * cols == e[0].s;
      if (contiguous && allpad && c.y == 0 && c.pads[0] < 15 &&
          (uint32_t)cols == x0 + xs + x1) {
        c.pads[0]++;
        continue;
      }
      if (contiguous && allpad && c.y > 0 && c.pads[1] < 15) {
        c.pads[1]++;
        continue;
      }
      if (contiguous && !allpad && c.pads[1] == 0 && a == x0 &&
          b - a == xs && (uint32_t)cols - b == x1) {
        int64_t d = e[a].d / lanes;
        if (c.y == 0) {
          first = d, c.y = 1;
          continue;
        }
        if (c.y == 1 && d - first > 0 && d - first < 65536) {
          stride = d - first, c.y = 2;
          continue;
        }
        if (c.y >= 2 && d == first + (int64_t)c.y * stride && c.y < 65535) {
          c.y++;
          continue;
        }
      }
    }
    if (open) { /* close it */
      c.x = xs;
      c.pads[2] = x0, c.pads[3] = x1;
      c.stride = c.y > 1 ? (uint32_t)stride : xs;
      c.dram = (uint64_t)first * lanes * n->ebytes;
      if (!load) c.pads[0] = c.pads[1] = c.pads[2] = c.pads[3] = 0;
      if (count++, !dry && !add_cmd(g, &c)) return -1;
      open = 0;
    }
    if (!e) break;
    if (!ok) { /* irregular row: entry by entry */
      for (int64_t x = 0; x < cols; x++) {
        memset(&c, 0, sizeof c);
        c.kind = load ? VDLA_CMD_LOAD : VDLA_CMD_STORE;
        c.buf = (uint32_t)n->sb->buf;
        c.param = (uint32_t)n->param;
        c.sram = (uint32_t)e[x].s;
        c.x = c.y = c.stride = 1;
        if (e[x].d < 0) {
          if (!load)
            return fail(g, TVM_ERR_INTERNAL, "a padded store", NULL), -1;
          c.x = c.y = 0, c.pads[0] = 1, c.pads[2] = 1;
        } else {
          if (e[x].d % lanes)
            return fail(g, TVM_ERR_UNSUPPORTED, "a DRAM access not aligned to "
                        "a buffer entry (the tensor's layout must block its "
                        "innermost axes by the hardware's BATCH/BLOCK sizes):",
                        n->dram_idx), -1;
          c.dram = (uint64_t)e[x].d * n->ebytes;
        }
        if (count++, !dry && !add_cmd(g, &c)) return -1;
      }
      continue;
    }
    memset(&c, 0, sizeof c);
    open = 1;
    c.kind = load ? VDLA_CMD_LOAD : VDLA_CMD_STORE;
    c.buf = (uint32_t)n->sb->buf;
    c.param = (uint32_t)n->param;
    c.sram = (uint32_t)e[0].s;
    if (allpad) {
      x0 = (uint32_t)(cols < 15 ? cols : 15), xs = 0, x1 = (uint32_t)cols - x0;
      c.pads[0] = 1, c.y = 0, first = 0;
    } else {
      x0 = a, xs = b - a, x1 = (uint32_t)cols - b;
      first = e[a].d / lanes, c.y = 1;
    }
  }
  return g->err ? -1 : count;
}

/* Runs a recognized nest. */
static int run_nest(cg *g, nest *n) {
  uint64_t prod = 1;
  uint32_t lanes = n->sb->lanes;
  n->k = n->nloops;
  while (n->k > 0 && prod < lanes) {
    int64_t e;
    if (!eval(g, n->loops[n->k - 1]->u.for_.extent, &e)) return 0;
    prod *= (uint64_t)(e > 0 ? e : 0);
    n->k--;
  }
  if (prod != lanes)
    return fail(g, TVM_ERR_UNSUPPORTED, "a copy or ALU nest whose innermost "
                "loops do not cover exactly one buffer entry (split the "
                "BATCH/BLOCK axes off and keep them innermost):",
                n->sram_idx);
  if (!check_inner(g, n)) return 0;
  g->nents = 0;
  if (n->kind == NEST_ALU) {
    /* per entry: dst (== the leaf) and the operands */
    for (int k = 0; k < n->nops && !g->err; k++) {
      vdla_insn t;
      memset(&t, 0, sizeof t);
      t.op = VDLA_OP_ALU;
      t.alu_op = n->ops[k].op;
      t.use_imm = (uint32_t)n->ops[k].use_imm;
      t.imm = n->ops[k].imm;
      const tvm_expr *saved = n->dram_idx;
      if (!n->ops[k].use_imm) n->dram_idx = n->ops[k].operand->u.load.index;
      g->nents = 0;
      if (!enum_entries(g, n, 0)) return 0;
      /* the leaf must be the element stored (in place) */
      if (k == 0 && n->ops[0].use_imm) {
        /* dram_idx is the leaf index here: compare with the store */
        for (size_t i = 0; i < g->nents; i++)
          if (g->ents[i].d / lanes + n->sb->base != (int64_t)g->ents[i].s ||
              g->ents[i].d % lanes)
            return fail(g, TVM_ERR_UNSUPPORTED, "an ALU operation that is not "
                        "in place (acc[i] = f(acc[i]); the ALU updates its "
                        "destination):", n->sram_idx);
      }
      for (size_t i = 0; i < g->nents; i++) {
        vdla_uop u = {(uint32_t)g->ents[i].s, 0, 0};
        if (!n->ops[k].use_imm) {
          sbuf *ob = sbuf_of(g, n->ops[k].operand->u.load.buffer);
          if (g->ents[i].d % lanes)
            return fail(g, TVM_ERR_UNSUPPORTED, "an ALU operand not aligned "
                        "to an accumulator entry:", n->ops[k].operand);
          u.src = (uint32_t)(ob->base + g->ents[i].d / lanes);
        }
        if (!add_uop(g, &t, u)) return 0;
      }
      n->dram_idx = saved;
      if (!flush(g)) return 0;
    }
    return !g->err;
  }
  if (!flush(g) || !enum_entries(g, n, 0)) return 0;
  /* rows: the innermost outer loop, or several fused when that takes
   * fewer instructions (a weight tile contiguous per output channel) */
  int64_t cols = 1, best = -1, best_cols = 1;
  for (int l = n->k - 1; l >= 0; l--) {
    int64_t e;
    if (!eval(g, n->loops[l]->u.for_.extent, &e)) return 0;
    cols *= e;
    if (cols < 1) return 1;
    if (cols > 65535 || g->nents % (size_t)cols) break;
    int64_t cnt = emit_dma(g, n, cols, 1);
    if (cnt < 0) return 0;
    if (best < 0 || cnt < best) best = cnt, best_cols = cols;
  }
  if (!g->nents) return 1;
  return emit_dma(g, n, best_cols, 0) >= 0;
}

/* ---- statements -------------------------------------------------------------- */

/* evaluate(...): GEMM calls and dependency tokens. */
static int call(cg *g, const tvm_expr *e) {
  int64_t v[2];
  if (e->kind == TVM_CALL &&
      (e->u.call.op == TVM_INTRIN_DEP_PUSH || e->u.call.op == TVM_INTRIN_DEP_POP)) {
    if (e->u.call.nargs != 2 || !eval(g, e->u.call.args[0], &v[0]) ||
        !eval(g, e->u.call.args[1], &v[1]) || v[0] < 0 || v[0] > 2 ||
        v[1] < 0 || v[1] > 2 || v[0] == v[1] || (v[0] == 0 && v[1] == 2) ||
        (v[0] == 2 && v[1] == 0))
      return fail(g, TVM_ERR_INVALID, "a dependency token between queues that "
                  "do not exchange tokens (load <-> compute <-> store):", e);
    if (!flush(g)) return 0;
    vdla_cmd c;
    memset(&c, 0, sizeof c);
    c.kind = e->u.call.op == TVM_INTRIN_DEP_PUSH ? VDLA_CMD_PUSH : VDLA_CMD_POP;
    c.from = (uint32_t)v[0], c.to = (uint32_t)v[1];
    return add_cmd(g, &c);
  }
  if (e->kind == TVM_CALL && e->u.call.op == TVM_INTRIN_EXTERN &&
      !strcmp(e->u.call.name, VDLA_CALL_GEMM) && e->u.call.nargs == 3) {
    vdla_uop u;
    vdla_insn t;
    memset(&t, 0, sizeof t);
    t.op = VDLA_OP_GEMM;
    if (!access_entry(g, e->u.call.args[0], VDLA_BUF_ACC, &u.dst) ||
        !access_entry(g, e->u.call.args[1], VDLA_BUF_INP, &u.src) ||
        !access_entry(g, e->u.call.args[2], VDLA_BUF_WGT, &u.wgt))
      return 0;
    return add_uop(g, &t, u);
  }
  if (e->kind == TVM_CALL && e->u.call.op == TVM_INTRIN_EXTERN &&
      !strcmp(e->u.call.name, VDLA_CALL_RESET) && e->u.call.nargs == 1) {
    vdla_uop u = {0, 0, 0};
    vdla_insn t;
    memset(&t, 0, sizeof t);
    t.op = VDLA_OP_GEMM;
    t.reset = 1;
    if (!access_entry(g, e->u.call.args[0], VDLA_BUF_ACC, &u.dst)) return 0;
    return add_uop(g, &t, u);
  }
  return fail(g, TVM_ERR_UNSUPPORTED, "VDLA runs DMA copies, ALU operations, "
              "vdla_gemm and dependency tokens only, not", e);
}

/* Compiles statement s. */
static int walk(cg *g, tvm_stmt *s) {
  int64_t a, b;
  nest n;
  if (!s || g->err) return !g->err;
  switch (s->kind) {
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++)
      if (!walk(g, s->u.seq.stmts[i])) return 0;
    return 1;
  case TVM_FOR:
    if (classify(g, s, &n)) return run_nest(g, &n);
    if (g->err) return 0;
    if (!eval(g, s->u.for_.min, &a) || !eval(g, s->u.for_.extent, &b)) return 0;
    for (int64_t i = 0; i < b; i++)
      if (!bind(g, s->u.for_.var, a + i) || !walk(g, s->u.for_.body)) return 0;
    return 1;
  case TVM_LET_STMT:
    return eval(g, s->u.let.value, &a) && bind(g, s->u.let.var, a) &&
           walk(g, s->u.let.body);
  case TVM_IF:
    if (!eval(g, s->u.if_.cond, &a)) return 0;
    return walk(g, a ? s->u.if_.then_ : s->u.if_.else_);
  case TVM_ASSERT:
    if (!eval(g, s->u.assert_.cond, &a)) return 0;
    if (!a) return fail(g, TVM_ERR_INVALID, s->u.assert_.msg, NULL);
    return walk(g, s->u.assert_.body);
  case TVM_ATTR:
    return walk(g, s->u.attr.body);
  case TVM_ALLOCATE: {
    const char *sc = s->u.alloc.scope ? s->u.alloc.scope : "global";
    int buf = !strcmp(sc, VDLA_SCOPE_INP)   ? VDLA_BUF_INP
              : !strcmp(sc, VDLA_SCOPE_WGT) ? VDLA_BUF_WGT
              : !strcmp(sc, VDLA_SCOPE_ACC) ? VDLA_BUF_ACC
                                            : -1;
    if (buf < 0)
      return fail(g, TVM_ERR_UNSUPPORTED, "a buffer in a memory scope VDLA "
                  "does not have (use vdla.inp, vdla.wgt, vdla.acc):",
                  s->u.alloc.buffer);
    if (!eval(g, s->u.alloc.extent, &a) || a < 0) return 0;
    sbuf *sb = calloc(1, sizeof *sb);
    if (!sb || tvm_ptrvec_push(&g->owned, sb) != TVM_OK) {
      free(sb);
      return fail(g, TVM_ERR_NOMEM, "out of memory", NULL);
    }
    sb->buf = buf;
    sb->lanes = g->lanes[buf];
    uint64_t entries = ((uint64_t)a + sb->lanes - 1) / sb->lanes;
    if (g->next[buf] + entries > g->cap[buf]) {
      char msg[200];
      snprintf(msg, sizeof msg, "scope %s holds %u entries; this kernel needs "
               "%llu at once (smaller tiles or fewer virtual threads):", sc,
               g->cap[buf], (unsigned long long)(g->next[buf] + entries));
      return fail(g, TVM_ERR_INVALID, msg, s->u.alloc.buffer);
    }
    sb->base = g->next[buf];
    if (tvm_ptrmap_put(&g->sbufs, s->u.alloc.buffer, sb) != TVM_OK)
      return fail(g, TVM_ERR_NOMEM, "out of memory", NULL);
    g->next[buf] += (uint32_t)entries;
    int ok = walk(g, s->u.alloc.body);
    g->next[buf] = sb->base;
    return ok;
  }
  case TVM_STORE:
    return fail(g, TVM_ERR_UNSUPPORTED, "a store outside a copy or ALU loop "
                "nest over whole buffer entries:", s->u.store.value);
  case TVM_EVALUATE:
    return call(g, s->u.eval.value);
  default:
    return fail(g, TVM_ERR_UNSUPPORTED, "a statement VDLA does not run (a "
                "barrier or an unlowered statement)", NULL);
  }
}

/* ---- the blob ---------------------------------------------------------------- */

/* The blob grows in a tvm_strbuf (binary appends; oom is sticky). */
typedef tvm_strbuf wb;
static void put(wb *w, const void *p, uint64_t n) {
  tvm_strbuf_appendn(w, (const char *)p, (size_t)n);
}
static void put32(wb *w, uint32_t v) { put(w, &v, 4); }

static void cg_free(cg *g) {
  for (size_t i = 0; i < g->env.cap; i++)
    if (g->env.keys && g->env.keys[i]) free(g->env.vals[i]);
  tvm_ptrmap_free(&g->env);
  tvm_ptrmap_free(&g->params);
  tvm_ptrmap_free(&g->sbufs);
  for (size_t i = 0; i < g->owned.len; i++) free(g->owned.data[i]);
  tvm_ptrvec_free(&g->owned);
  free(g->cmds);
  free(g->uops);
  free(g->run);
  free(g->ents);
}

/* Copies the blob into host memory and fills the kernel table. */
static int32_t finish(wb *w, const tvm_module *m, tvm_plugin_blob *out) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  int32_t rc = tvm_sdk_blob_set_data(vdla_host, out, TVM_BLOB_CUSTOM, w->data, w->len);
  if (rc == TVM_OK) rc = tvm_sdk_blob_kernels_of_module(vdla_host, out, m);
  return rc;
}

/* See vdla_plugin.h and the file comment. */
int32_t vdla_codegen(tvm_plugin_target *t, const tvm_module *m,
                     tvm_plugin_blob *out) {
  wb w;
  tvm_strbuf_init(&w);
  int32_t rc = TVM_OK;
  tvm_module dev = {m->ctx, NULL, 0};
  dev.funcs = calloc((size_t)m->nfuncs + 1, sizeof(tvm_func *));
  if (!dev.funcs) return vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i]->kind == TVM_FUNC_DEVICE) dev.funcs[dev.nfuncs++] = m->funcs[i];
  m = &dev;
  put(&w, "VDLAPRG1", 8);
  put32(&w, (uint32_t)m->nfuncs);
  const vdla_config *hc = &t->cfg;
  for (int i = 0; i < m->nfuncs && !rc; i++) {
    const tvm_func *f = m->funcs[i];
    cg g;
    memset(&g, 0, sizeof g);
    g.t = t;
    g.f = f;
    g.lanes[VDLA_BUF_INP] = hc->batch * hc->block_in;
    g.lanes[VDLA_BUF_WGT] = hc->block_out * hc->block_in;
    g.lanes[VDLA_BUF_ACC] = hc->batch * hc->block_out;
    g.cap[VDLA_BUF_INP] = hc->inp_kib * 1024u / (hc->batch * hc->block_in);
    g.cap[VDLA_BUF_WGT] = hc->wgt_kib * 1024u / (hc->block_out * hc->block_in);
    g.cap[VDLA_BUF_ACC] = hc->acc_kib * 1024u / (hc->batch * hc->block_out * 4);
    g.cap[VDLA_BUF_UOP] = hc->uop_kib * 1024u / 4;
    /* the output buffer mirrors the accumulator entry by entry */
    uint32_t outcap = hc->out_kib * 1024u / (hc->batch * hc->block_out);
    if (outcap < g.cap[VDLA_BUF_ACC]) g.cap[VDLA_BUF_ACC] = outcap;
    for (int p = 0; !rc && p < f->nparams; p++) {
      if (!tvm_dtype_is_handle(f->params[p]->dtype))
        rc = (fail(&g, TVM_ERR_UNSUPPORTED, "a scalar parameter (kernels take "
                   "buffers only):", f->params[p]), g.err);
      else if (tvm_ptrmap_put(&g.params, f->params[p],
                              (void *)(uintptr_t)(p + 1)) != TVM_OK)
        rc = vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
    }
    if (!rc && (!walk(&g, f->body) || !flush(&g)))
      rc = g.err ? g.err : TVM_ERR_INTERNAL;
    if (!rc) {
      uint32_t n = (uint32_t)strlen(f->name);
      put32(&w, n);
      put(&w, f->name, n);
      put32(&w, (uint32_t)f->nparams);
      put32(&w, g.ncmds);
      put32(&w, g.nuops);
      put(&w, g.cmds, sizeof(vdla_cmd) * g.ncmds);
      put(&w, g.uops, sizeof(vdla_uop) * g.nuops);
    }
    cg_free(&g);
  }
  if (!rc && w.oom) rc = vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
  if (!rc) rc = finish(&w, m, out);
  tvm_strbuf_free(&w);
  free(dev.funcs);
  return rc;
}
