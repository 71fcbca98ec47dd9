/*
 * codegen_memory.c - loads and stores: scalar accesses, contiguous vector
 * accesses (stride-1 ramps) with the alignment that can be proved,
 * predicated (masked) accesses, and gathers/scatters for other ramps.
 * Booleans occupy one byte in memory.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_cpu.h"

/* The largest known divisor of an integer index expression (a constant's
 * magnitude, gcd over sums, products of factors); 2^30 for zero. */
static int64_t known_factor(const tvm_expr *e) {
  const int64_t big = 1LL << 30;
  switch (e->kind) {
  case TVM_INT: return e->u.ival == 0 ? big : (e->u.ival < 0 ? -e->u.ival : e->u.ival);
  case TVM_ADD: case TVM_SUB: {
    int64_t a = known_factor(e->u.bin.a), b = known_factor(e->u.bin.b);
    while (b) { int64_t t = a % b; a = b; b = t; }
    return a;
  }
  case TVM_MUL: {
    int64_t a = known_factor(e->u.bin.a), b = known_factor(e->u.bin.b);
    int64_t r = a * b;
    return (a >= big || b >= big || r > big) ? big : r;
  }
  case TVM_RAMP: return known_factor(e->u.ramp.base);
  case TVM_CAST: return known_factor(e->u.un.a);
  default: return 1;
  }
}

/* Alignment of buffer[index] (element units) for an access of dtype t:
 * buffers allocated here are 64-byte aligned; parameters are trusted
 * only to be element-aligned. */
unsigned lc_access_align(lc_cg *cg, const tvm_expr *buffer,
                         const tvm_expr *index, tvm_dtype t) {
  unsigned esz = (unsigned)tvm_dtype_bytes(tvm_dtype_element(t));
  if (esz == 0) esz = 1;
  void *v = NULL;
  if (!tvm_ptrmap_get(&cg->align, buffer, &v) || !v) return esz;
  int64_t base = (int64_t)(intptr_t)v;
  int64_t off = known_factor(index) * esz;
  int64_t a = 1;
  while (a < base && off % (a * 2) == 0) a *= 2;
  if (a < esz) a = esz;
  int64_t want = (int64_t)esz * (t.lanes > 1 ? t.lanes : 1);
  if (a > want) a = want;
  return (unsigned)a;
}

/* Alias information for an access v (a load, store or memory intrinsic)
 * of buffer: an access of an allocated buffer (stack or heap, allocated
 * in this function) carries the alias scope "tvm-c.alloc", an access of
 * a buffer parameter carries it as noalias.  Freshly allocated memory is
 * never a parameter's, and LLVM cannot always prove it: its capture
 * tracking gives up after 100 uses of an alloca, and an unrolled register
 * block has hundreds (a K-blocked convolution's accumulator tile: every
 * accumulator stored and each input broadcast loaded again at every
 * FMA).  Other accesses (through let-bound pointers) carry nothing. */
static void alias_info(lc_cg *cg, const tvm_expr *buffer, LLVMValueRef v) {
  void *x = NULL;
  int local = tvm_ptrmap_get(&cg->allocated, buffer, &x) && x;
  if (!v ||
      !(LLVMIsALoadInst(v) || LLVMIsAStoreInst(v) || LLVMIsACallInst(v)) ||
      (!local && !(tvm_ptrmap_get(&cg->params, buffer, &x) && x)))
    return;
  if (!cg->md_alloc) {
    static const char dn[] = "tvm-c.alloc.domain", sn[] = "tvm-c.alloc";
    LLVMMetadataRef d = LLVMMDStringInContext2(cg->ctx, dn, sizeof dn - 1);
    LLVMMetadataRef dom = LLVMMDNodeInContext2(cg->ctx, &d, 1);
    LLVMMetadataRef sc[2] = {
        LLVMMDStringInContext2(cg->ctx, sn, sizeof sn - 1), dom};
    LLVMMetadataRef scope = LLVMMDNodeInContext2(cg->ctx, sc, 2);
    cg->md_alloc = LLVMMetadataAsValue(
        cg->ctx, LLVMMDNodeInContext2(cg->ctx, &scope, 1));
  }
  const char *kind = local ? "alias.scope" : "noalias";
  LLVMSetMetadata(v, LLVMGetMDKindIDInContext(cg->ctx, kind,
                                              (unsigned)strlen(kind)),
                  cg->md_alloc);
}

/* Pointer to element index of a buffer whose elements have type elem. */
LLVMValueRef lc_elem_ptr(lc_cg *cg, LLVMValueRef base, tvm_dtype elem,
                         LLVMValueRef index) {
  LLVMTypeRef et = lc_mem_type(cg, tvm_dtype_element(elem));
  return LLVMBuildInBoundsGEP2(cg->b, et, base, &index, 1, "");
}

/* The buffer variable's pointer value. */
static LLVMValueRef buffer_ptr(lc_cg *cg, const tvm_expr *buf) {
  void *v = NULL;
  if (!buf || buf->kind != TVM_VAR || !tvm_ptrmap_get(&cg->vars, buf, &v) ||
      !v)
    return lc_fail(cg, TVM_ERR_INVALID, "buffer variable '%s' is not defined",
                   buf && buf->kind == TVM_VAR ? buf->u.var.name : "?");
  return v;
}

/* Pointer to element `index` of buf.  Each term of the index's sum
 * (x + y + c, nested, constants subtracted too) is a GEP of its own,
 * the constant term last: an i32 index x + y + c sign-extended as a
 * whole cannot be split by LLVM, so every access of an unrolled block
 * computed and extended its own address (a strided convolution's pixel
 * offsets plus the input channel's offset: a lea and a movsx per
 * broadcast); with the terms apart each is extended once, where it is
 * computed (hoisted out of the loops it does not vary in), and c folds
 * into the displacement.  The same address as long as no partial sum
 * wraps in i32, which index arithmetic never does; plain GEPs (not
 * inbounds), since a partial sum may point outside the buffer. */
enum { INDEX_TERMS = 8 };

static int index_terms(const tvm_expr *x, const tvm_expr **terms, int n,
                       int64_t *c) {
  int64_t k;
  if (n < 0) return n;
  if (tvm_is_const_int(x, &k)) {
    *c += k;
    return n;
  }
  if (x->kind == TVM_ADD)
    return index_terms(x->u.bin.b, terms, index_terms(x->u.bin.a, terms, n, c),
                       c);
  if (x->kind == TVM_SUB && tvm_is_const_int(x->u.bin.b, &k)) {
    *c -= k;
    return index_terms(x->u.bin.a, terms, n, c);
  }
  if (n == INDEX_TERMS) return -1;
  terms[n] = x;
  return n + 1;
}

static LLVMValueRef index_ptr(lc_cg *cg, LLVMValueRef buf, tvm_dtype t,
                              const tvm_expr *index) {
  int64_t c = 0;
  const tvm_expr *terms[INDEX_TERMS];
  int n = index->dtype.lanes == 1 ? index_terms(index, terms, 0, &c) : -1;
  if (n < 1 || (n == 1 && c == 0)) {
    LLVMValueRef idx = lc_expr(cg, index);
    return idx ? lc_elem_ptr(cg, buf, t, idx) : NULL;
  }
  LLVMTypeRef et = lc_mem_type(cg, tvm_dtype_element(t));
  LLVMValueRef p = buf;
  for (int i = 0; i < n; i++) {
    LLVMValueRef idx = lc_expr(cg, terms[i]);
    if (!idx) return NULL;
    p = LLVMBuildGEP2(cg->b, et, p, &idx, 1, "");
  }
  if (c != 0) {
    LLVMValueRef off = LLVMConstInt(cg->t_i64, (unsigned long long)c, 1);
    p = LLVMBuildGEP2(cg->b, et, p, &off, 1, "");
  }
  return p;
}

/* Is index a contiguous ramp (stride 1), or a scalar index read as a
 * vector?  Sets *base to the scalar start expression. */
static int contiguous(const tvm_expr *index, int lanes, const tvm_expr **base) {
  int64_t s;
  if (index->dtype.lanes == 1 && lanes > 1) {
    *base = index;
    return 1;
  }
  if (index->kind == TVM_RAMP && tvm_is_const_int(index->u.ramp.stride, &s) &&
      s == 1) {
    *base = index->u.ramp.base;
    return 1;
  }
  return 0;
}

/* Mask of pred (all lanes of a vector), as <lanes x i1>. */
static LLVMValueRef mask_of(lc_cg *cg, const tvm_expr *pred, int lanes) {
  if (!pred) {
    LLVMValueRef *v = malloc(sizeof *v * (size_t)lanes);
    if (!v) return lc_fail(cg, TVM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < lanes; i++) v[i] = LLVMConstInt(cg->t_i1, 1, 0);
    LLVMValueRef r = LLVMConstVector(v, (unsigned)lanes);
    free(v);
    return r;
  }
  LLVMValueRef m = lc_expr(cg, pred);
  return m ? lc_broadcast(cg, m, lanes) : NULL;
}

/* Does a vector of `lanes` elements at buffer[base] stay inside a stack
 * buffer (an allocate of constant size, emit_allocate) for every value
 * base takes in the enclosing serial loops (the core's interval analysis
 * over their ranges, without simplification: nothing is allocated in the
 * module's context, which codegen's pool threads share)?  Then a masked access can be a plain one: its masked-off
 * lanes read or rewrite elements of the buffer itself, which cannot
 * fault and, rewritten with their own values, do not change.  LLVM keeps
 * such a buffer in registers, where llvm.masked.load/store leave it in
 * memory: a ragged tile's accumulators were loaded and stored (AVX2
 * vmaskmovps) at every step of its reduction (bench/RESULTS.md,
 * 2026-11-29). */
static int stack_in_bounds(lc_cg *cg, const tvm_expr *buffer,
                           const tvm_expr *base, int lanes) {
  void *n = NULL;
  int64_t lo, hi;
  if (!tvm_ptrmap_get(&cg->stack_n, buffer, &n) || !n) return 0;
  return tvm_const_bounds(NULL, base, &cg->ranges, &lo, &hi) && lo >= 0 &&
         hi <= (int64_t)(intptr_t)n - lanes;
}

/* buffer[index] of dtype t (scalar, contiguous vector, masked or
 * gathered). */
LLVMValueRef lc_load(lc_cg *cg, const tvm_expr *e) {
  tvm_dtype t = e->dtype;
  LLVMValueRef buf = buffer_ptr(cg, e->u.load.buffer);
  if (!buf) return NULL;
  LLVMTypeRef mt = lc_mem_type(cg, t);
  LLVMValueRef v;
  const tvm_expr *base;
  unsigned al = lc_access_align(cg, e->u.load.buffer, e->u.load.index, t);
  if (t.lanes == 1 || contiguous(e->u.load.index, t.lanes, &base)) {
    if (t.lanes == 1) base = e->u.load.index;
    LLVMValueRef p = index_ptr(cg, buf, t, base);
    if (!p) return NULL;
    if (e->u.load.pred && t.lanes > 1 &&
        stack_in_bounds(cg, e->u.load.buffer, base, t.lanes)) {
      /* masked-off lanes are poison in llvm.masked.load too */
      v = LLVMBuildLoad2(cg->b, mt, p, "");
      LLVMSetAlignment(v, al);
    } else if (e->u.load.pred && t.lanes > 1) {
      LLVMValueRef m = mask_of(cg, e->u.load.pred, t.lanes);
      if (!m) return NULL;
      LLVMTypeRef tys[2] = {mt, cg->t_ptr};
      LLVMValueRef args[4] = {p, LLVMConstInt(cg->t_i32, al, 0), m,
                              LLVMGetPoison(mt)};
      v = lc_intrinsic(cg, "llvm.masked.load", tys, 2, args, 4);
    } else if (e->u.load.pred) {
      /* scalar predicated load: branch around it */
      LLVMValueRef c = lc_expr(cg, e->u.load.pred);
      if (!c) return NULL;
      LLVMBasicBlockRef cur = LLVMGetInsertBlock(cg->b);
      LLVMBasicBlockRef ld = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "pld");
      LLVMBasicBlockRef dn = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "pdone");
      LLVMBuildCondBr(cg->b, c, ld, dn);
      LLVMPositionBuilderAtEnd(cg->b, ld);
      LLVMValueRef x = LLVMBuildLoad2(cg->b, mt, p, "");
      LLVMSetAlignment(x, al);
      alias_info(cg, e->u.load.buffer, x);
      LLVMBuildBr(cg->b, dn);
      LLVMPositionBuilderAtEnd(cg->b, dn);
      v = LLVMBuildPhi(cg->b, mt, "");
      LLVMValueRef iv[2] = {LLVMConstNull(mt), x};
      LLVMBasicBlockRef ib[2] = {cur, ld};
      LLVMAddIncoming(v, iv, ib, 2);
    } else {
      v = LLVMBuildLoad2(cg->b, mt, p, "");
      LLVMSetAlignment(v, al);
    }
  } else {
    LLVMValueRef idx = lc_expr(cg, e->u.load.index);
    LLVMValueRef m = mask_of(cg, e->u.load.pred, t.lanes);
    if (!idx || !m) return NULL;
    LLVMValueRef ptrs = LLVMBuildInBoundsGEP2(
        cg->b, lc_mem_type(cg, tvm_dtype_element(t)), buf, &idx, 1, "");
    LLVMTypeRef tys[2] = {mt, LLVMTypeOf(ptrs)};
    LLVMValueRef args[4] = {ptrs, LLVMConstInt(cg->t_i32, al, 0), m,
                            LLVMGetPoison(mt)};
    v = lc_intrinsic(cg, "llvm.masked.gather", tys, 2, args, 4);
  }
  alias_info(cg, e->u.load.buffer, v);
  if (v && tvm_dtype_is_bool(t))
    v = LLVMBuildTrunc(cg->b, v, lc_type(cg, t), "");
  return v;
}

/* A plain store of v at p, aligned al, with buffer's alias information. */
static void store_at(lc_cg *cg, const tvm_expr *buffer, LLVMValueRef v,
                     LLVMValueRef p, unsigned al) {
  LLVMValueRef st = LLVMBuildStore(cg->b, v, p);
  LLVMSetAlignment(st, al);
  alias_info(cg, buffer, st);
}

/* buffer[index] = value, mirroring load(). */
void lc_emit_store(lc_cg *cg, const tvm_stmt *s) {
  const tvm_expr *val = s->u.store.value;
  tvm_dtype t = val->dtype;
  LLVMValueRef buf = buffer_ptr(cg, s->u.store.buffer);
  LLVMValueRef v = lc_expr(cg, val);
  if (!buf || !v) return;
  if (tvm_dtype_is_bool(t)) v = LLVMBuildZExt(cg->b, v, lc_mem_type(cg, t), "");
  LLVMTypeRef mt = lc_mem_type(cg, t);
  const tvm_expr *base;
  unsigned al = lc_access_align(cg, s->u.store.buffer, s->u.store.index, t);
  if (t.lanes == 1 || contiguous(s->u.store.index, t.lanes, &base)) {
    if (t.lanes == 1) base = s->u.store.index;
    LLVMValueRef p = index_ptr(cg, buf, t, base);
    if (!p) return;
    if (s->u.store.pred && t.lanes > 1 &&
        stack_in_bounds(cg, s->u.store.buffer, base, t.lanes)) {
      /* the masked-off lanes rewritten with what they hold */
      LLVMValueRef m = mask_of(cg, s->u.store.pred, t.lanes);
      if (!m) return;
      LLVMValueRef old = LLVMBuildLoad2(cg->b, mt, p, "");
      LLVMSetAlignment(old, al);
      alias_info(cg, s->u.store.buffer, old);
      store_at(cg, s->u.store.buffer, LLVMBuildSelect(cg->b, m, v, old, ""),
               p, al);
    } else if (s->u.store.pred && t.lanes > 1) {
      LLVMValueRef m = mask_of(cg, s->u.store.pred, t.lanes);
      if (!m) return;
      LLVMTypeRef tys[2] = {mt, cg->t_ptr};
      LLVMValueRef args[4] = {v, p, LLVMConstInt(cg->t_i32, al, 0), m};
      alias_info(cg, s->u.store.buffer,
                 lc_intrinsic(cg, "llvm.masked.store", tys, 2, args, 4));
    } else if (s->u.store.pred) {
      LLVMValueRef c = lc_expr(cg, s->u.store.pred);
      if (!c) return;
      LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "pst");
      LLVMBasicBlockRef dn = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "pdone");
      LLVMBuildCondBr(cg->b, c, st, dn);
      LLVMPositionBuilderAtEnd(cg->b, st);
      store_at(cg, s->u.store.buffer, v, p, al);
      LLVMBuildBr(cg->b, dn);
      LLVMPositionBuilderAtEnd(cg->b, dn);
    } else {
      store_at(cg, s->u.store.buffer, v, p, al);
    }
    return;
  }
  LLVMValueRef idx = lc_expr(cg, s->u.store.index);
  LLVMValueRef m = mask_of(cg, s->u.store.pred, t.lanes);
  if (!idx || !m) return;
  LLVMValueRef ptrs = LLVMBuildInBoundsGEP2(
      cg->b, lc_mem_type(cg, tvm_dtype_element(t)), buf, &idx, 1, "");
  LLVMTypeRef tys[2] = {mt, LLVMTypeOf(ptrs)};
  LLVMValueRef args[4] = {v, ptrs, LLVMConstInt(cg->t_i32, al, 0), m};
  alias_info(cg, s->u.store.buffer,
             lc_intrinsic(cg, "llvm.masked.scatter", tys, 2, args, 4));
}

