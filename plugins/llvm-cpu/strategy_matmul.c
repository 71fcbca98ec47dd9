/*
 * strategy_matmul.c - the llvm-cpu schedule template for packed matmul.
 *
 * The compute it schedules (declared by the core's matmul operator) is
 *
 *   Bp[jo, k, ji] = B[k, jo*nr + ji]                      (packing, nr cols)
 *   C[i, j]       = sum_k A[i, k] * Bp[j / nr, k, j % nr]
 *
 * The schedule is the classic register-blocked GEMM: C is tiled into
 * mr x nr blocks; each block accumulates in a "local" buffer (cache_write)
 * computed at the block, whose loops are ordered k, row, col with the rows
 * unrolled and the columns vectorized.  After unrolling every access of
 * the local block has a constant offset, so LLVM keeps the mr x nr
 * accumulators in vector registers for the whole k loop: per k step it
 * loads nr/lanes vectors of Bp, broadcasts mr values of A and issues
 * mr*nr/lanes FMAs.  Row blocks run in parallel.
 *
 * The same template schedules the graph's MatMul_packed (alter_layout
 * packed B into Bp[N/nr, K, nr] at compile time, so Bp is a constant): its
 * product, tagged "matmul_packed", is 2-D over flattened rows; the output
 * (alpha, beta, C, and any fused elementwise epilogue, inlined) may have
 * more dimensions: all but the last are fused into the product's rows and
 * tiled with the columns into mr x nr blocks, row and column blocks fused
 * and parallel, and the product computed at each block as the register
 * block above (no cache_write: the product is that block).  tile_m is
 * capped at the row count.
 *
 * Knobs (tvm/config.h): tile_m (rows of the register block) and
 * unroll_k (inner k steps unrolled).  tile_m's default is the largest
 * value up to 12 whose mr x nr/lanes accumulators, nr/lanes B vectors and
 * one broadcast fit the ISA's vector registers (12 with AVX-512's 32 and
 * two-vector panels, 6 with AVX2's 16) and whose row blocks pad the rows
 * by less than an eighth (the last block, shifted back to end at the
 * last row, recomputes rows of the block before: 16 rows in blocks of 12
 * compute 24), unless that leaves fewer than 8
 * accumulators (2 rows: too few chains of FMAs to hide their latency),
 * where the block of 8 or more (or of all the rows) that pads least wins;
 * larger blocks are rejected as spilling.  The default also keeps the
 * block's rows of A from crowding one L1 set: a block streams its mr rows
 * of A side by side, and rows whose byte stride is a multiple of the L1
 * way (4 KiB on Zen 3/4/5 and Ice Lake: K = 1024 floats) fall into the
 * same set, so at most as many as the L1 has ways may: 1024^3 on Zen 4
 * (8 ways) ran at 62-94 GFLOP/s with 12 rows, 95-106 with 6 or 8
 * (bench/RESULTS.md 2026-12-02).  The packing width nr is not a
 * knob of this template:
 * MatMul_packed's is the layout alter_layout chose (strategy_layout.c),
 * tvmc matmul's a knob of its compute ("pack_n", tools/tvmc/matmul_te.c),
 * the batch template's its own knob tile_n.
 */
#include <string.h>

#include "tvm/config.h"
#include "tvm/plugin.h"
#include "llvm_cpu.h"

/* Finds the input of op that is itself a compute (the packed B). */
static tvm_tensor *find_compute_input(const tvm_operation *op) {
  tvm_ptrvec ins = {0};
  tvm_tensor *found = NULL;
  if (tvm_op_inputs(op, &ins) != TVM_OK) return NULL;
  for (size_t i = 0; i < ins.len; i++) {
    tvm_tensor *t = ins.data[i];
    if (t->op->kind == TVM_OP_COMPUTE) found = t;
  }
  tvm_ptrvec_free(&ins);
  return found;
}

/* The rows of op's product (its second-to-last output dimension). */
static int64_t product_rows(const tvm_operation *op) {
  return op->output->ndim >= 2 ? op->output->shape_c[op->output->ndim - 2]
                               : 0;
}

/* The extent of op's (first) reduce axis, or 0 when it is not constant. */
static int64_t reduce_extent(const tvm_operation *op) {
  int64_t k = 0;
  if (op->nreduce < 1 || !op->reduce_axis[0]->dom.extent ||
      !tvm_is_const_int(op->reduce_axis[0]->dom.extent, &k))
    return 0;
  return k;
}

/* The byte stride of the rows of op's left operand A[..., i, k] (its
 * first input, read along its last axis k), or 0 when not known. */
static int64_t a_row_bytes(const tvm_operation *op) {
  tvm_ptrvec ins = {0};
  int64_t b = 0;
  if (tvm_op_inputs(op, &ins) == TVM_OK && ins.len >= 1) {
    const tvm_tensor *a = ins.data[0];
    int64_t k = reduce_extent(op);
    if (a->ndim >= 2 && k > 0 && a->shape_c[a->ndim - 1] == k)
      b = k * (int64_t)tvm_dtype_bytes(a->dtype);
  }
  tvm_ptrvec_free(&ins);
  return b;
}

/* Orders, unrolls and vectorizes the register block st (nd axes:
 * batch..., row, col, and the reduce axis k), k split by ku: k outermost,
 * rows unrolled, columns vectorized; the batch axes (extent 1 at the
 * tile) stay outside. */
static tvm_status register_block(tvm_stage *st, int nd, int64_t ku) {
  tvm_iter_var *ko, *ki;
  tvm_iter_var *xc = tvm_stage_axis(st, nd - 2);
  tvm_iter_var *yc = tvm_stage_axis(st, nd - 1);
  tvm_iter_var *k = tvm_stage_reduce_axis(st, 0);
  tvm_status rc = tvm_split(st, k, ku, &ko, &ki);
  if (!rc) rc = tvm_reorder(st, (tvm_iter_var *[]){ko, ki, xc, yc}, 4);
  if (!rc) rc = tvm_unroll(st, ki);
  if (!rc) rc = tvm_unroll(st, xc);
  if (!rc) rc = tvm_vectorize(st, yc);
  return rc;
}

/* tvm_tile of rows x by mr and columns y by nr, but where mr does not
 * divide the rows the last row block ends at the last row
 * (tvm_split_shift_tail): the register block computes mr rows without a
 * guard, recomputing rows of the block before, and stores only its own. */
static tvm_status tile_rows_cols(tvm_stage *so, tvm_iter_var *x,
                                 tvm_iter_var *y, int64_t mr, int64_t nr,
                                 tvm_iter_var **io, tvm_iter_var **jo,
                                 tvm_iter_var **ii, tvm_iter_var **ji) {
  tvm_status rc = tvm_split_shift_tail(so, x, mr, io, ii);
  if (!rc) rc = tvm_split(so, y, nr, jo, ji);
  if (!rc) rc = tvm_reorder(so, (tvm_iter_var *[]){*io, *jo, *ii, *ji}, 4);
  return rc;
}

/* Tiles stage so (nd axes: batch..., row, col) into mr x nr blocks within
 * one batch entry, batch and block loops fused and parallel, the block's
 * columns vectorized; *at is the fused loop.  With `flat` the batch axes
 * are rows too (a product over flattened rows, MatMul_packed: every
 * axis but the last fused into one row axis before tiling), so that row
 * blocks cross the batch entries: ConvNeXt's [1, 7, 7, 768] x [768,
 * 3072] is 49 rows, not 7 products of 7 rows each streaming all of B.
 * The blocks run row block by row block (panels inner: a block's rows of
 * A stay in cache while every panel of B streams past) or, with
 * panels_outer, panel by panel (a panel of B stays in cache while the
 * rows stream past). */
static tvm_status tile_batched(tvm_stage *so, int nd, int64_t mr, int64_t nr,
                               int panels_outer, int flat,
                               tvm_iter_var **at) {
  tvm_iter_var *lead[TVM_MAX_DIMS] = {0}, *batch = NULL, *io, *jo, *ii, *ji;
  tvm_status rc = TVM_OK;
  for (int d = 0; d < nd; d++) lead[d] = tvm_stage_axis(so, d);
  if (flat) {
    for (int d = nd - 3; d >= 0 && !rc; d--)
      rc = tvm_fuse(so, lead[d], lead[nd - 2], &lead[nd - 2]);
  } else if (nd > 2) {
    batch = lead[0];
  }
  for (int d = 1; d < nd - 2 && batch && !rc; d++)
    rc = tvm_fuse(so, batch, lead[d], &batch);
  if (!rc)
    rc = tile_rows_cols(so, lead[nd - 2], lead[nd - 1], mr, nr, &io, &jo,
                        &ii, &ji);
  if (!rc && panels_outer) {
    rc = tvm_reorder(so, (tvm_iter_var *[]){jo, io}, 2);
    tvm_iter_var *t = io;
    io = jo;
    jo = t;
  }
  if (!rc && batch) rc = tvm_fuse(so, batch, io, &io);
  if (!rc) rc = tvm_fuse(so, io, jo, at);
  if (!rc) rc = tvm_parallel(so, *at);
  if (!rc) rc = tvm_vectorize(so, ji);
  return rc;
}

/* The graph's products: out (any rank) is mm, or reads it through
 * inlined epilogue computes; mm has out's rank (MatMul) or is 2-D over
 * flattened rows (MatMul_packed).  out is tiled by tile_batched, the
 * product (through a "local" block when it is the output) computed at
 * each tile as the register block; mr is capped at the product's rows.
 * The knob tile_order picks the order of the blocks (tile_batched):
 * by default panel by panel when the right operand of one product (K x
 * its columns) outgrows half the L2 cache, so that every row block
 * would fetch it again from further out, row block by row block
 * otherwise. */
static tvm_status schedule_product(tvm_schedule *s, tvm_tensor *out,
                                   tvm_operation *mm, tvm_ptrvec *ops,
                                   tvm_config *cfg, const lc_isa *isa,
                                   int64_t mr, int64_t nr, int64_t ku) {
  static const char *const orders[] = {"rows", "panels"};
  tvm_iter_var *at = NULL;
  tvm_status rc = TVM_OK;
  int mnd = mm->output->ndim;
  int64_t cols = mm->output->shape_c[mnd - 1], K = reduce_extent(mm);
  int big_b = K > 0 && cols > 0 && K * cols * 4 > isa->l2_bytes / 2;
  int panels_outer = tvm_cfg_category(cfg, "tile_order", orders, 2, big_b);
  for (size_t i = 0; i < ops->len && !rc; i++) {
    tvm_operation *op = ops->data[i];
    if (op != out->op && op != mm)
      rc = tvm_compute_inline(tvm_stage_of(s, op->output));
  }
  if (rc) return rc;
  int64_t rows = mm->output->shape_c[mnd - 2];
  if (mr > rows) mr = rows;
  tvm_stage *so = tvm_stage_of(s, out), *sm;
  if (out->op == mm) {
    tvm_tensor *CC;
    if ((rc = tvm_cache_write(s, out, "local", &CC))) return rc;
    so = tvm_stage_of(s, out);
    sm = tvm_stage_of(s, CC);
  } else {
    sm = tvm_stage_of(s, mm->output);
  }
  int flat = mnd == 2 && out->ndim > 2;
  if (!rc) rc = tile_batched(so, out->ndim, mr, nr, panels_outer, flat, &at);
  if (!rc) rc = tvm_compute_at(sm, so, at);
  if (!rc) rc = register_block(sm, mnd, ku);
  return rc;
}

/* Vector registers of an m x nv block over `rows` rows (0: unknown; the
 * block is capped at them): the accumulators, the panel's nv vectors and
 * a broadcast; a block of one row uses each panel vector once, so its
 * loads fold into the FMAs and need no registers of their own. */
static int64_t block_vregs(int64_t m, int64_t rows, int64_t nv) {
  if (rows > 0 && m > rows) m = rows;
  return m * nv + (m > 1 ? nv : 0) + 1;
}

/* The most rows of an m-row block over `rows` rows (0: unknown; the
 * block is capped at them, as in block_vregs), a_row bytes apart in A,
 * that map to one set of the L1 cache (isa->l1_bytes / l1_ways bytes per
 * way, 64-byte lines); 1 when the stride is not known. */
static int64_t rows_per_set(const lc_isa *isa, int64_t m, int64_t rows,
                            int64_t a_row) {
  int64_t way = isa->l1_ways > 0 ? isa->l1_bytes / isa->l1_ways : 0;
  int64_t most = 1;
  if (rows > 0 && m > rows) m = rows;
  if (a_row <= 0 || way < 64 || m > 64)
    return 1;
  int64_t sets[64];
  for (int64_t r = 0; r < m; r++) {
    int64_t n = 1;
    sets[r] = (r * a_row) % way / 64;
    for (int64_t q = 0; q < r; q++)
      n += sets[q] == sets[r];
    if (n > most)
      most = n;
  }
  return most;
}

/* The knobs tile_m (*mr) and unroll_k (*ku) for panels nr columns wide
 * over `rows` rows (0: unknown), a reduction of K steps and rows of A
 * a_row bytes apart (0: unknown) (see the top of the file).  unroll_k's
 * default is the largest choice up to 4 that divides K: a split that does
 * not divide K guards every unrolled step but the first with a test of k
 * (a branch per FMA group in the hot loop; K = 333 takes 1). */
static void register_knobs(tvm_config *cfg, const lc_isa *isa, int64_t nr,
                           int64_t rows, int64_t K, int64_t a_row,
                           int64_t *mr, int64_t *ku) {
  static const int64_t tile_m_choices[] = {2, 4, 6, 8, 12, 16};
  static const int64_t unroll_k_choices[] = {1, 2, 4, 8};
  int64_t nv = (nr + isa->lanes - 1) / isa->lanes; /* vectors per row */
  int64_t set_rows = isa->l1_ways; /* rows of A one L1 set holds */
  int dm = 0;
  for (int i = 0; i < 6; i++) {
    int64_t m = tile_m_choices[i];
    int64_t padded = rows > 0 ? (rows + m - 1) / m * m : m;
    if (m <= 12 && block_vregs(m, rows, nv) <= isa->vregs &&
        (i == 0 || (padded - rows) * 8 < rows) &&
        (i == 0 || rows_per_set(isa, m, rows, a_row) <= set_rows))
      dm = i;
  }
  /* fewer than 8 accumulators are fewer chains of FMAs than hide their
   * latency (two FMA pipes of 4 cycles): 2-row blocks of 3 to 13 rows ran
   * at 40-44 GFLOP/s on Zen 3 where 16 rows in 4-row blocks ran at 90.
   * Such a product takes, of the blocks (capped at the rows) with 8
   * accumulators or as many as its rows allow, the one that pads its
   * rows least (the larger on a tie): padding rows cost less than the
   * latency (bench/RESULTS.md 2026-11-29) */
  int64_t want = rows > 0 && rows * nv < 8 ? rows * nv : 8;
  int64_t me = rows > 0 && tile_m_choices[dm] > rows ? rows
                                                    : tile_m_choices[dm];
  if (rows > 0 && me * nv < want) {
    int64_t best = 0;
    for (int i = dm + 1; i < 6; i++) {
      int64_t m = tile_m_choices[i] < rows ? tile_m_choices[i] : rows;
      int64_t padded = (rows + m - 1) / m * m;
      if (tile_m_choices[i] <= 12 &&
          block_vregs(tile_m_choices[i], rows, nv) <= isa->vregs &&
          rows_per_set(isa, tile_m_choices[i], rows, a_row) <= set_rows &&
          m * nv >= want &&
          (best == 0 || padded <= best)) {
        dm = i;
        best = padded;
      }
    }
  }
  *mr = tvm_cfg_choice(cfg, "tile_m", tile_m_choices, 6, dm);
  if (block_vregs(*mr, rows, nv) > isa->vregs)
    tvm_cfg_reject(cfg, "tile_m %lld x %lld vectors exceed %d registers",
                   (long long)*mr, (long long)nv, isa->vregs);
  int dk = 0;
  for (int i = 0; i < 3; i++)
    if (K > 0 && K % unroll_k_choices[i] == 0) dk = i;
  *ku = tvm_cfg_choice(cfg, "unroll_k", unroll_k_choices, 4, dk);
}

/* Schedules outs[0] = C as described at the top of the file. */
int32_t llvm_cpu_schedule_matmul(tvm_plugin_target *t, tvm_schedule *s,
                                 tvm_tensor **outs, uint32_t nouts,
                                 tvm_config *cfg) {
  tvm_iter_var *io, *jo, *ii, *ji, *fused;
  tvm_tensor *C, *CC, *Bp;
  tvm_stage *sc, *scc, *sbp;
  int64_t mr, ku, nr;
  tvm_status st;

  lc_isa isa;
  lc_isa_of(t, &isa);
  if (nouts != 1)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "llvm-cpu matmul template: expected one output");
  /* the graph's MatMul_packed: its product is tagged "matmul_packed" */
  tvm_ptrvec ops = {0};
  tvm_operation *mm = NULL;
  if ((st = tvm_op_reachable_computes(outs[0], &ops)) == TVM_OK)
    for (size_t i = 0; i < ops.len; i++) {
      tvm_operation *op = ops.data[i];
      if (op->tag && strcmp(op->tag, "matmul_packed") == 0) mm = op;
    }
  if (mm) {
    tvm_ptrvec ins = {0};
    Bp = NULL;
    if ((st = tvm_op_inputs(mm, &ins)) == TVM_OK && ins.len == 2)
      Bp = ins.data[1];
    tvm_ptrvec_free(&ins);
    if (!Bp || Bp->ndim != 3 || Bp->shape_c[2] <= 0) {
      tvm_ptrvec_free(&ops);
      return tvm_diag_set(TVM_ERR_INVALID,
                          "llvm-cpu matmul template: '%s' does not read a "
                          "packed Bp[n/nr, k, nr]", outs[0]->name);
    }
    nr = Bp->shape_c[2];
    register_knobs(cfg, &isa, nr, product_rows(mm), reduce_extent(mm),
                   a_row_bytes(mm), &mr, &ku);
    st = schedule_product(s, outs[0], mm, &ops, cfg, &isa, mr, nr, ku);
    tvm_ptrvec_free(&ops);
    return st;
  }
  tvm_ptrvec_free(&ops);
  if (st) return st;
  if (outs[0]->ndim != 2)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "llvm-cpu matmul template: expected a 2-d output");
  C = outs[0];
  Bp = find_compute_input(C->op);
  if (!Bp || Bp->ndim != 3 || Bp->shape_c[2] <= 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "llvm-cpu matmul template: '%s' does not read a "
                        "packed B[n/nr, k, nr] compute", C->name);
  nr = Bp->shape_c[2];
  register_knobs(cfg, &isa, nr, product_rows(C->op), reduce_extent(C->op),
                 a_row_bytes(C->op), &mr, &ku);

  if ((st = tvm_cache_write(s, C, "local", &CC)) != TVM_OK) return st;
  sc = tvm_stage_of(s, C);
  scc = tvm_stage_of(s, CC);
  sbp = tvm_stage_of(s, Bp);

  /* C: mr x nr blocks, row blocks in parallel, the copy-out vectorized. */
  st = tile_rows_cols(sc, tvm_stage_axis(sc, 0), tvm_stage_axis(sc, 1), mr,
                      nr, &io, &jo, &ii, &ji);
  if (st == TVM_OK) st = tvm_parallel(sc, io);
  if (st == TVM_OK) st = tvm_vectorize(sc, ji);
  if (st != TVM_OK) return st;

  /* The register block at each block of C. */
  if ((st = tvm_compute_at(scc, sc, jo)) != TVM_OK) return st;
  if ((st = register_block(scc, 2, ku)) != TVM_OK) return st;

  /* Packing: panels in parallel, columns of a panel vectorized. */
  st = tvm_fuse(sbp, tvm_stage_axis(sbp, 0), tvm_stage_axis(sbp, 1), &fused);
  if (st == TVM_OK) st = tvm_parallel(sbp, fused);
  if (st == TVM_OK) st = tvm_vectorize(sbp, tvm_stage_axis(sbp, 2));
  return st;
}

/* ---- MatMul of two activations (no packing) ------------------------------ */

/* The graph's MatMul whose right operand is not a constant (alter_layout
 * packs the constant ones into MatMul_packed): attention's Q x K^T and
 * softmax(.) x V, batched over heads.  Its product, tagged "matmul" or
 * "batch_matmul", reads B[..., k, j] as it is: a row of B is contiguous
 * in j, which is all the register block needs (nr/lanes vector loads of
 * B and mr broadcasts of A per k step).  The schedule is MatMul_packed's
 * (schedule_product: batch dimensions fused outside mr x nr tiles, tiles
 * parallel, the register block at each tile, epilogues inlined, the
 * product itself through a "local" block when it is the output);
 * only nr differs: a knob "tile_n" over the powers of two from 4 to two
 * vectors, by default the widest that divides N (a narrower one is a
 * partial vector: 40 columns on AVX-512 take 8), else the narrowest that
 * covers N, else two vectors: ViT's 197 columns take 32, the last tile
 * ragged (the vectorize pass masks it, and versions the tiles so that
 * full ones run unmasked).  Declined (the generic schedule takes them):
 * vector operands (1-D A or B). */
int32_t llvm_cpu_schedule_batch_matmul(tvm_plugin_target *t, tvm_schedule *s,
                                       tvm_tensor **outs, uint32_t nouts,
                                       tvm_config *cfg) {
  tvm_ptrvec ops = {0}, ins = {0};
  tvm_operation *mm = NULL;
  tvm_status st;
  lc_isa isa;
  lc_isa_of(t, &isa);
  if (nouts != 1)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "llvm-cpu batch matmul template: expected one output");
  if ((st = tvm_op_reachable_computes(outs[0], &ops))) return st;
  for (size_t i = 0; i < ops.len; i++) {
    tvm_operation *op = ops.data[i];
    if (op->tag && (strcmp(op->tag, "matmul") == 0 ||
                    strcmp(op->tag, "batch_matmul") == 0))
      mm = op;
  }
  if (mm && tvm_op_inputs(mm, &ins) == TVM_OK && ins.len == 2 &&
      mm->output->ndim >= 2 && mm->output->ndim == outs[0]->ndim &&
      ((tvm_tensor *)ins.data[0])->ndim >= 2 &&
      ((tvm_tensor *)ins.data[1])->ndim >= 2 && mm->nreduce == 1) {
    int64_t N = mm->output->shape_c[mm->output->ndim - 1];
    int64_t w[8];
    int nw = 0, dw = -1;
    for (int64_t v = 4; v <= 2 * isa.lanes && nw < 8; v *= 2) {
      if (N % v == 0 || (dw < 0 && v >= N)) dw = nw;
      w[nw++] = v;
    }
    if (dw < 0) dw = nw - 1;
    int64_t nr = tvm_cfg_choice(cfg, "tile_n", w, nw, dw), mr, ku;
    register_knobs(cfg, &isa, nr, product_rows(mm), reduce_extent(mm),
                   a_row_bytes(mm), &mr, &ku);
    st = schedule_product(s, outs[0], mm, &ops, cfg, &isa, mr, nr, ku);
  } else {
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                      "llvm-cpu batch matmul template: '%s' is not a product "
                      "of two matrices (or batches of them)", outs[0]->name);
  }
  tvm_ptrvec_free(&ins);
  tvm_ptrvec_free(&ops);
  return st;
}
