/*
 * plugins/vdla/plugin.c - the VDLA plugin module: the target (hardware
 * from the YAML's attributes), its queues and memory scopes, the GEMM
 * tensor intrinsic, its lowering pass, and the entry point.  See
 * vdla_plugin.h for the whole picture, README.md for the attributes.
 *
 * The tensor intrinsic "vdla_gemm" is the hardware's matrix unit:
 *   c[BATCH, BLOCK_OUT] (int32) += a[BATCH, BLOCK_IN] (int8) x
 *                                  w[BLOCK_OUT, BLOCK_IN]^T (int8)
 * emitted as
 *   reset:  vdla_gemm_reset(access_ptr(c, w))
 *   update: vdla_gemm(access_ptr(c, rw), access_ptr(a, r), access_ptr(w, r))
 * with the shape of the target it is declared for.
 *
 * The lowering pass "vdla_epilogue" (after unroll, before the core's
 * virtual threads and dependency tokens) rewrites the copy of an
 * accumulator tile to DRAM, out[i] = cast(int8, f(acc[j])), where f is
 * the group's fused element-wise epilogue (shift, bias add, clip), into
 *   acc[j] = f(acc[j])                     (the ALU, compute queue)
 *   coproc_scope(store) out[i] = cast(int8, acc[j])   (the store queue)
 * so that the epilogue runs in the accumulator and the copy-out on the
 * store module (the core would give a copy reading vdla.acc to the
 * compute queue, whose scope it is).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/graph.h"
#include "vdla_plugin.h"

const tvm_host_api *vdla_host;

/* See vdla_plugin.h. */
int32_t vdla_fail(int32_t st, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (vdla_host && vdla_host->report) vdla_host->report(st, msg);
  else tvm_diag_set(st, "%s", msg);
  return st;
}

static const char *const queue_names[] = {"load", "compute", "store"};

/* ---- attributes ------------------------------------------------------------ */

#define A_INT(n, d, lo, hi, doc)                                             \
  {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_INT, n, d, lo, hi, NULL, doc}
static const tvm_plugin_attr attrs[] = {
    A_INT("batch", "1", 1, 64, "GEMM rows (BATCH)"),
    A_INT("block_in", "16", 1, 256, "GEMM reduction width (BLOCK_IN)"),
    A_INT("block_out", "16", 1, 256, "GEMM columns (BLOCK_OUT)"),
    A_INT("inp_kib", "32", 1, 4096, "input buffer, KiB"),
    A_INT("wgt_kib", "32", 1, 4096, "weight buffer, KiB"),
    A_INT("acc_kib", "128", 1, 16384, "accumulator buffer, KiB"),
    A_INT("out_kib", "32", 1, 4096, "output buffer, KiB"),
    A_INT("uop_kib", "32", 1, 4096, "micro-op buffer, KiB"),
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_FLOAT, "clock_mhz", "200", 1,
     10000, NULL, "clock, MHz (GOPS figures)"},
    A_INT("bus_bytes", "8", 1, 1024, "DRAM bytes per cycle"),
    A_INT("dma_latency", "64", 0, 100000, "cycles before a DMA's first byte"),
    A_INT("gemm_pipeline", "4", 0, 1000, "GEMM/ALU pipeline fill, cycles"),
    A_INT("dram_mib", "256", 1, 65536, "simulated device memory, MiB"),
    {sizeof(tvm_plugin_attr), TVM_PLUGIN_ATTR_STRING, "sim_mode",
     "functional", 0, 0, "functional|timed|shuffle",
     "simulator mode (env VDLA_SIM_MODE overrides)"},
    A_INT("sim_seed", "1", 0, 1e15, "shuffle mode seed (env VDLA_SIM_SEED)"),
};
#define NATTRS (sizeof attrs / sizeof attrs[0])

/* The value of attribute name (schema order: every one is present). */
static const tvm_plugin_attr_value *attr(const tvm_plugin_attr_value *v,
                                         uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (v[i].name && !strcmp(v[i].name, name)) return &v[i];
  return NULL;
}

/* ---- the tensor intrinsic ------------------------------------------------------ */

typedef struct gshape {
  int64_t b, bi, bo;
} gshape;

/* access_ptr(buf->data, dtype, elem_offset, extent, rw). */
static tvm_expr *ptr(tvm_ctx *c, tvm_buffer *b, const char *dt, int64_t n,
                     int rw) {
  tvm_expr *args[5] = {b->data, tvm_str(c, dt),
                       b->elem_offset ? b->elem_offset : tvm_int(c, 0),
                       tvm_int(c, n), tvm_int(c, rw)};
  return tvm_call(c, TVM_HANDLE, TVM_INTRIN_ACCESS_PTR, args, 5);
}

/* Is b's 2-D view compact (row stride = its row length, where known)? */
static int compact(tvm_buffer *b, int64_t row) {
  int64_t v;
  if (!b->strides) return 1;
  if (tvm_is_const_int(b->strides[0], &v) && v != row) return 0;
  if (b->ndim > 1 && tvm_is_const_int(b->strides[1], &v) && v != 1) return 0;
  return 1;
}

/* Emits the calls of vdla_gemm for the matched region. */
static tvm_status emit(tvm_ctx *c, const tvm_tensor_intrin *ti,
                       tvm_buffer **in, int nin, tvm_buffer *out,
                       tvm_stmt **body, tvm_stmt **reset, tvm_stmt **update) {
  const gshape *g = ti->data;
  if (nin != 2)
    return tvm_diag_set(TVM_ERR_INTERNAL, "vdla_gemm: %d inputs, not 2", nin);
  if (!compact(out, g->bo) || !compact(in[0], g->bi) || !compact(in[1], g->bi))
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "vdla_gemm: a tile that is not one contiguous buffer "
                        "entry (block the layouts so BATCH/BLOCK axes are "
                        "innermost)");
  tvm_expr *uargs[3] = {ptr(c, out, "int32", g->b * g->bo, 3),
                        ptr(c, in[0], "int8", g->b * g->bi, 1),
                        ptr(c, in[1], "int8", g->bo * g->bi, 1)};
  tvm_expr *rargs[1] = {ptr(c, out, "int32", g->b * g->bo, 2)};
  *reset = tvm_evaluate(c, tvm_call_extern(c, TVM_I32, VDLA_CALL_RESET, rargs, 1));
  *update = tvm_evaluate(c, tvm_call_extern(c, TVM_I32, VDLA_CALL_GEMM, uargs, 3));
  *body = tvm_seq2(c, *reset, *update);
  return tvm_ctx_status(c);
}

/* c[b, o] = sum_k int32(a[b, k]) * int32(w[o, k]). */
static tvm_expr *gemm_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, in[0]->shape_c[1]);
  return tvm_sum(c, tvm_mul(c, tvm_cast(c, TVM_I32, TVM_AT(c, in[0], i[0], k->var)),
                            tvm_cast(c, TVM_I32, TVM_AT(c, in[1], i[1], k->var))),
                 &k, 1);
}

/* See vdla_plugin.h: vdla_gemm with t's GEMM shape, in ctx c. */
int32_t vdla_declare_gemm(tvm_plugin_target *t, tvm_ctx *c,
                          tvm_tensor_intrin **out) {
  gshape *g = tvm_ctx_alloc(c, sizeof *g);
  tvm_tensor **in = tvm_ctx_alloc(c, 2 * sizeof(tvm_tensor *));
  if (!g || !in) return tvm_ctx_status(c);
  g->b = t->cfg.batch, g->bi = t->cfg.block_in, g->bo = t->cfg.block_out;
  in[0] = tvm_placeholder(c, "a", TVM_I8, (int64_t[]){g->b, g->bi}, 2);
  in[1] = tvm_placeholder(c, "w", TVM_I8, (int64_t[]){g->bo, g->bi}, 2);
  tvm_tensor *p = tvm_compute(c, "c", (int64_t[]){g->b, g->bo}, 2, gemm_body, in);
  *out = p ? tvm_tensor_intrin_new(c, "vdla_gemm", p, emit, g) : NULL;
  if (!*out)
    return vdla_fail(TVM_ERR_NOMEM, "vdla: declaring vdla_gemm failed: %s",
                     tvm_diag_message());
  return TVM_OK;
}

static const tvm_plugin_intrin intrins[] = {
    {sizeof(tvm_plugin_intrin), 0, "vdla_gemm", vdla_declare_gemm},
};

/* ---- the lowering pass ------------------------------------------------------------ */

typedef struct epi {
  tvm_ptrvec acc; /* buffer vars of vdla.acc allocations */
  int failed;
} epi;

static int is_acc(const epi *p, const tvm_expr *b) {
  for (size_t i = 0; i < p->acc.len; i++)
    if (p->acc.data[i] == b) return 1;
  return 0;
}

/* The leftmost load of an accumulator buffer in e (the chain's start). */
static const tvm_expr *spine(const epi *p, const tvm_expr *e) {
  if (!e) return NULL;
  if (e->kind == TVM_LOAD) return is_acc(p, e->u.load.buffer) ? e : NULL;
  if (e->kind == TVM_CAST) return spine(p, e->u.un.a);
  if (e->kind == TVM_CALL && e->u.call.nargs >= 1)
    return spine(p, e->u.call.args[0]);
  if (e->kind >= TVM_ADD && e->kind <= TVM_MAX) {
    const tvm_expr *l = spine(p, e->u.bin.a);
    return l ? l : spine(p, e->u.bin.b);
  }
  return NULL;
}

static tvm_stmt *epi_stmt(tvm_mutator *m, tvm_stmt *s) {
  epi *p = m->data;
  tvm_ctx *c = m->ctx;
  if (s->kind == TVM_ALLOCATE && s->u.alloc.scope &&
      !strcmp(s->u.alloc.scope, VDLA_SCOPE_ACC) &&
      tvm_ptrvec_push(&p->acc, s->u.alloc.buffer) != TVM_OK)
    p->failed = 1;
  if (s->kind == TVM_ATTR && s->u.attr.key &&
      !strcmp(s->u.attr.key, TVM_ATTR_COPROC_SCOPE))
    return s; /* already placed */
  if (s->kind != TVM_FOR) return tvm_mutate_stmt_children(m, s);
  tvm_stmt *loops[32], *b = s;
  int n = 0;
  while (b->kind == TVM_FOR && n < 32) loops[n++] = b, b = b->u.for_.body;
  if (b->kind != TVM_STORE || is_acc(p, b->u.store.buffer) ||
      b->u.store.value->kind != TVM_CAST)
    return tvm_mutate_stmt_children(m, s);
  tvm_expr *e = b->u.store.value->u.un.a;
  const tvm_expr *leaf = spine(p, e);
  if (!leaf) return tvm_mutate_stmt_children(m, s);
  /* the ALU works in place: every element of the tile once */
  for (int i = 0; i < n; i++) {
    int64_t ext;
    if ((!tvm_is_const_int(loops[i]->u.for_.extent, &ext) || ext > 1) &&
        !tvm_expr_uses_var(leaf->u.load.index, loops[i]->u.for_.var))
      return tvm_mutate_stmt_children(m, s);
  }
  tvm_expr *copy = tvm_cast(c, b->u.store.value->dtype, (tvm_expr *)leaf);
  tvm_stmt *st = tvm_store(c, b->u.store.buffer, b->u.store.index, copy, NULL);
  tvm_stmt *alu = e == leaf ? NULL
                            : tvm_store(c, leaf->u.load.buffer,
                                        leaf->u.load.index, e, NULL);
  /* the same loops around both; the store nest gets fresh variables */
  tvm_ptrmap fresh = {0};
  for (int i = 0; i < n && alu; i++) {
    tvm_expr *v = loops[i]->u.for_.var;
    if (tvm_ptrmap_put(&fresh, v, tvm_var(c, v->u.var.name, v->dtype)) != TVM_OK)
      p->failed = 1;
  }
  if (alu) st = tvm_substitute_stmt(c, st, &fresh);
  for (int i = n - 1; i >= 0; i--) {
    tvm_stmt *l = loops[i];
    void *nv = NULL;
    if (alu)
      alu = tvm_for(c, l->u.for_.var, l->u.for_.min, l->u.for_.extent,
                    TVM_FOR_SERIAL, NULL, alu);
    if (!alu || !tvm_ptrmap_get(&fresh, l->u.for_.var, &nv)) nv = l->u.for_.var;
    st = tvm_for(c, nv, l->u.for_.min, l->u.for_.extent, TVM_FOR_SERIAL, NULL,
                 st);
  }
  tvm_ptrmap_free(&fresh);
  st = tvm_attr(c, TVM_ATTR_COPROC_SCOPE, NULL, tvm_int(c, VDLA_MOD_STORE), st);
  return alu ? tvm_seq2(c, alu, st) : st;
}

/* See the file comment. */
static int32_t pass_epilogue(tvm_plugin_target *t, tvm_ctx *c,
                             const tvm_func *f, tvm_func **out) {
  (void)t;
  epi p = {{0}, 0};
  tvm_mutator m = {c, NULL, epi_stmt, &p};
  tvm_func *g = tvm_ctx_alloc(c, sizeof *g);
  if (!g) return vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
  *g = *f;
  g->body = tvm_mutate_stmt(&m, f->body);
  tvm_ptrvec_free(&p.acc);
  if (!g->body || p.failed)
    return vdla_fail(TVM_ERR_NOMEM, "vdla_epilogue: out of memory");
  *out = g;
  return TVM_OK;
}

/* ---- vdla_thread_order ---------------------------------------------------- */

/* The core's inject_virtual_thread marks each thread's copy of a queue
 * statement `attr virtual_thread_copy = k` (until inject_dep_tokens) and
 * interleaves the threads statement by statement: the input loads of
 * threads 0 and 1, then their weight loads, then their GEMMs.  On VDLA's
 * single in-order load queue that makes thread 0's next weight load wait
 * behind thread 1's input load, which waits for thread 1's GEMM: the
 * latency the threads were to hide comes back.  This pass (after
 * inject_virtual_thread, before inject_dep_tokens) regroups each run of
 * consecutive load-queue statements by thread, keeping each thread's own
 * order: input 0, weight 0, input 1, weight 1.  Statements of different
 * threads touch different on-chip copies, so the order between them is
 * free.  To see the whole run, allocations met in a sequence are hoisted
 * to wrap it (their buffers are distinct; lifetimes only grow). */
#define VT_COPY_ATTR "virtual_thread_copy"

/* Thread of a marked load-queue statement, or -1. */
static int load_thread(const tvm_stmt *s) {
  int64_t k, q;
  if (s->kind != TVM_ATTR || !s->u.attr.key ||
      strcmp(s->u.attr.key, VT_COPY_ATTR) || !s->u.attr.value ||
      !tvm_is_const_int(s->u.attr.value, &k))
    return -1;
  const tvm_stmt *b = s->u.attr.body;
  if (!b || b->kind != TVM_ATTR || !b->u.attr.key ||
      strcmp(b->u.attr.key, TVM_ATTR_COPROC_SCOPE) || !b->u.attr.value ||
      !tvm_is_const_int(b->u.attr.value, &q) || q != VDLA_MOD_LOAD)
    return -1;
  return (int)k;
}

/* Appends the statements of s to v, hoisting allocations into allocs. */
static int flatten(tvm_stmt *s, tvm_ptrvec *v, tvm_ptrvec *allocs) {
  if (s->kind == TVM_SEQ) {
    for (int i = 0; i < s->u.seq.n; i++)
      if (!flatten(s->u.seq.stmts[i], v, allocs)) return 0;
    return 1;
  }
  if (s->kind == TVM_ALLOCATE)
    return tvm_ptrvec_push(allocs, s) == TVM_OK &&
           flatten(s->u.alloc.body, v, allocs);
  return tvm_ptrvec_push(v, s) == TVM_OK;
}

static tvm_stmt *order_stmt(tvm_mutator *m, tvm_stmt *s) {
  tvm_ctx *c = m->ctx;
  int *failed = m->data;
  if (s->kind != TVM_SEQ && s->kind != TVM_ALLOCATE)
    return tvm_mutate_stmt_children(m, s);
  tvm_ptrvec v = {0}, allocs = {0};
  tvm_stmt *r = NULL;
  if (!flatten(s, &v, &allocs)) goto out;
  int moved = 0;
  for (size_t i = 0; i < v.len;) {
    size_t j = i;
    int maxk = -1;
    while (j < v.len && load_thread(v.data[j]) >= 0) {
      if (load_thread(v.data[j]) > maxk) maxk = load_thread(v.data[j]);
      j++;
    }
    if (j - i > 2 && maxk > 0) { /* stable regroup by thread */
      tvm_stmt **tmp = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (j - i));
      if (!tmp) goto out;
      size_t n = 0;
      for (int k = 0; k <= maxk; k++)
        for (size_t x = i; x < j; x++)
          if (load_thread(v.data[x]) == k) tmp[n++] = v.data[x];
      for (size_t x = 0; x < n; x++) {
        moved |= v.data[i + x] != tmp[x];
        v.data[i + x] = tmp[x];
      }
    }
    i = j > i ? j : i + 1;
  }
  if (!moved && s->kind == TVM_SEQ && !allocs.len) {
    tvm_ptrvec_free(&v);
    tvm_ptrvec_free(&allocs);
    return tvm_mutate_stmt_children(m, s);
  }
  tvm_stmt **items = tvm_ctx_alloc(c, sizeof(tvm_stmt *) * (v.len + 1));
  if (!items) goto out;
  for (size_t i = 0; i < v.len; i++)
    if (!(items[i] = tvm_mutate_stmt(m, v.data[i]))) goto out;
  r = tvm_seq(c, items, (int)v.len);
  for (size_t i = allocs.len; r && i-- > 0;) {
    tvm_stmt *a = allocs.data[i];
    tvm_stmt *n = tvm_ctx_alloc(c, sizeof *n);
    if (n) *n = *a, n->u.alloc.body = r;
    r = n;
  }
out:
  if (!r) *failed = 1;
  tvm_ptrvec_free(&v);
  tvm_ptrvec_free(&allocs);
  return r ? r : s;
}

/* See above. */
static int32_t pass_thread_order(tvm_plugin_target *t, tvm_ctx *c,
                                 const tvm_func *f, tvm_func **out) {
  (void)t;
  int failed = 0;
  tvm_mutator m = {c, NULL, order_stmt, &failed};
  tvm_func *g = tvm_ctx_alloc(c, sizeof *g);
  if (!g) return vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
  *g = *f;
  g->body = tvm_mutate_stmt(&m, f->body);
  if (!g->body || failed)
    return vdla_fail(TVM_ERR_NOMEM, "vdla_thread_order: out of memory");
  *out = g;
  return TVM_OK;
}

static const tvm_plugin_lower_pass passes[] = {
    {sizeof(tvm_plugin_lower_pass), 0, "unroll", "vdla_epilogue",
     pass_epilogue},
    {sizeof(tvm_plugin_lower_pass), 0, "inject_virtual_thread",
     "vdla_thread_order", pass_thread_order},
};

int32_t vdla_lower_passes(tvm_plugin_target *t,
                          const tvm_plugin_lower_pass **out, uint32_t *n) {
  (void)t;
  *out = passes;
  *n = sizeof passes / sizeof passes[0];
  return TVM_OK;
}

/* ---- target ------------------------------------------------------------------ */

static int32_t target_create(const tvm_plugin_attr_value *v, uint32_t n,
                             tvm_plugin_target **out) {
  tvm_plugin_target *t = calloc(1, sizeof *t);
  if (!t) return vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
  vdla_config *c = &t->cfg;
  vdla_config_default(c);
  const tvm_plugin_attr_value *a;
#define GET(field, name) if ((a = attr(v, n, name))) c->field = (uint32_t)a->i
  GET(batch, "batch");
  GET(block_in, "block_in");
  GET(block_out, "block_out");
  GET(inp_kib, "inp_kib");
  GET(wgt_kib, "wgt_kib");
  GET(acc_kib, "acc_kib");
  GET(out_kib, "out_kib");
  GET(uop_kib, "uop_kib");
  GET(bus_bytes, "bus_bytes");
  GET(dma_latency, "dma_latency");
  GET(gemm_pipeline, "gemm_pipeline");
#undef GET
  if ((a = attr(v, n, "clock_mhz"))) c->clock_mhz = a->f;
  t->dram_bytes = (uint64_t)256 << 20;
  if ((a = attr(v, n, "dram_mib"))) t->dram_bytes = (uint64_t)a->i << 20;
  t->mode = VDLA_FUNCTIONAL;
  if ((a = attr(v, n, "sim_mode")) && a->s)
    t->mode = !strcmp(a->s, "timed")     ? VDLA_TIMED
              : !strcmp(a->s, "shuffle") ? VDLA_SHUFFLE
                                         : VDLA_FUNCTIONAL;
  t->seed = 1;
  if ((a = attr(v, n, "sim_seed"))) t->seed = (uint64_t)a->i;
  /* entries must be whole: the simulator checks the rest */
  uint64_t acc_e = (uint64_t)c->batch * c->block_out * 4;
  uint64_t acc_bytes = (uint64_t)c->acc_kib * 1024 / acc_e * acc_e;
  uint64_t out_entries = (uint64_t)c->out_kib * 1024 / (c->batch * c->block_out);
  if (out_entries * acc_e < acc_bytes) acc_bytes = out_entries * acc_e;
  if (!acc_bytes || c->inp_kib * 1024u < c->batch * c->block_in ||
      c->wgt_kib * 1024u < c->block_in * c->block_out) {
    free(t);
    return vdla_fail(TVM_ERR_INVALID, "vdla: a buffer is smaller than one of "
                     "its entries (inp_kib >= batch*block_in/1024, wgt_kib >= "
                     "block_in*block_out/1024, acc_kib, out_kib)");
  }
  t->scopes[0] = (tvm_plugin_scope){sizeof(tvm_plugin_scope), TVM_VIS_THREAD,
                                    VDLA_SCOPE_INP,
                                    (uint64_t)c->inp_kib * 1024,
                                    c->batch * c->block_in, VDLA_MOD_LOAD};
  t->scopes[1] = (tvm_plugin_scope){sizeof(tvm_plugin_scope), TVM_VIS_THREAD,
                                    VDLA_SCOPE_WGT,
                                    (uint64_t)c->wgt_kib * 1024,
                                    c->block_in * c->block_out, VDLA_MOD_LOAD};
  t->scopes[2] = (tvm_plugin_scope){sizeof(tvm_plugin_scope), TVM_VIS_THREAD,
                                    VDLA_SCOPE_ACC, acc_bytes, (uint32_t)acc_e,
                                    VDLA_MOD_COMPUTE};
  snprintf(t->desc, sizeof t->desc, "VDLA %ux%ux%u int8 GEMM, %u/%u/%u KiB "
           "inp/wgt/acc, %.0f MHz, simulated (%s)", c->batch, c->block_in,
           c->block_out, c->inp_kib, c->wgt_kib, c->acc_kib, c->clock_mhz,
           t->mode == VDLA_TIMED ? "timed" : t->mode == VDLA_SHUFFLE
                                               ? "shuffle" : "functional");
  tvm_plugin_target_info *i = &t->info;
  i->struct_size = sizeof *i;
  i->vector_bits = 32;
  i->num_queues = 3;
  i->queue_names = queue_names;
  i->scopes = t->scopes;
  i->nscopes = 3;
  i->nintrins = 1;
  i->intrins = intrins;
  i->strategies = vdla_strategies;
  i->nstrategies = vdla_nstrategies;
  i->unroll_max_extent = 0; /* codegen wants the loops */
  i->description = t->desc;
  *out = t;
  return TVM_OK;
}

static void target_destroy(tvm_plugin_target *t) { free(t); }

static const tvm_plugin_target_info *target_info(tvm_plugin_target *t) {
  return &t->info;
}

/* The device is the simulator: always available. */
static int32_t probe(tvm_plugin_target *t) {
  (void)t;
  return TVM_OK;
}

/* ---- graph side: quantization (ABI 6) and placement (ABI 5) ----------- */

/* VDLA computes in int8 with int32 sums, requantizes by the ALU's right
 * shift (power-of-two scales), and reads convolutions blocked by its
 * GEMM shape. */
static int32_t quantize(tvm_plugin_target *t, tvm_plugin_quant *out) {
  out->enabled = 1;
  out->act_code = kDLInt, out->act_bits = 8;
  out->weight_code = kDLInt, out->weight_bits = 8;
  out->acc_code = kDLInt, out->acc_bits = 32;
  out->scale = TVM_QUANT_SCALE_POW2;
  out->block_batch = t->cfg.batch;
  out->block_in = t->cfg.block_in;
  out->block_out = t->cfg.block_out;
  return TVM_OK;
}

#define DECLINE(...)                                                     \
  do {                                                                   \
    snprintf(out->reason, sizeof out->reason, __VA_ARGS__);             \
    return TVM_OK;                                                       \
  } while (0)

/* The target runs QConv_blocked in its own blocks with a square kernel,
 * one stride and one padding for both axes, and a tile that fits the
 * buffers (strategy.c); everything else goes to the fallback. */
static int32_t supports(tvm_plugin_target *t, const tvm_gnode *n,
                        tvm_plugin_support *out) {
  const vdla_config *hw = &t->cfg;
  const char *op = tvm_gnode_op_name(n);
  int64_t x[TVM_MAX_DIMS], w[TVM_MAX_DIMS], y[TVM_MAX_DIMS];
  const int64_t *st = NULL, *pd = NULL;
  out->supported = 0;
  if (strcmp(op, "QConv_blocked"))
    DECLINE("%s: VDLA's GEMM and ALU run only int8 convolutions in its "
            "blocked layout (QConv_blocked, from the quantize pass)", op);
  if (tvm_gnode_input_shape(n, 0, x) != 6 ||
      tvm_gnode_input_shape(n, 1, w) != 6 ||
      tvm_gnode_output_shape(n, 0, y) != 6)
    DECLINE("QConv_blocked: not 6-D");
  if (x[4] != hw->batch || x[5] != hw->block_in || w[4] != hw->block_out)
    DECLINE("QConv_blocked: blocks %lldx%lldx%lld, not the GEMM's %ux%ux%u",
            (long long)x[4], (long long)x[5], (long long)w[4], hw->batch,
            hw->block_in, hw->block_out);
  int ns = tvm_gnode_ints(n, "strides", &st);
  int np = tvm_gnode_ints(n, "pads", &pd);
  int64_t S = ns == 2 ? st[0] : 1;
  if (w[2] != w[3] || (ns == 2 && st[0] != st[1]) ||
      (np == 4 && (pd[0] != pd[1] || pd[0] != pd[2] || pd[0] != pd[3])))
    DECLINE("QConv_blocked: the kernel, strides and pads must be the same "
            "on both axes");
  int bias = tvm_gnode_num_inputs(n) > 2;
  if (!vdla_conv_fits(hw, y[2], y[3], y[1], x[1], w[2], S, bias))
    DECLINE("QConv_blocked: no tile of %lldx%lld outputs fits the buffers",
            (long long)y[2], (long long)y[3]);
  out->supported = 1;
  return TVM_OK;
}

static const tvm_plugin_vtable vtable = {
    .struct_size = sizeof(tvm_plugin_vtable),
    .nattrs = NATTRS,
    .attrs = attrs,
    .target_create = target_create,
    .target_destroy = target_destroy,
    .target_info = target_info,
    .codegen = vdla_codegen,
    .probe = probe,
    .device_open = vdla_device_open,
    .device_close = vdla_device_close,
    .mem_alloc = vdla_mem_alloc,
    .mem_free = vdla_mem_free,
    .copy = vdla_copy,
    .module_load = vdla_module_load,
    .module_unload = vdla_module_unload,
    .func_get = vdla_func_get,
    .launch = vdla_launch,
    .lower_passes = vdla_lower_passes,
    .supports = supports,
    .quantize = quantize,
};

static const tvm_plugin_desc desc = {
    sizeof(tvm_plugin_desc), TVM_PLUGIN_ABI_VERSION, "vdla", "0.1",
    "VDLA, the TVM paper's TPU-like accelerator (simulated)", &vtable};

/* The entry point.  VDLA needs lower_passes and schedule_call (ABI 4). */
TVM_PLUGIN_EXPORT const tvm_plugin_desc *
tvm_plugin_query(uint32_t host_abi_max, const tvm_host_api *h) {
  if (host_abi_max < 4) return NULL;
  vdla_host = h;
  return &desc;
}
