/*
 * tests/unit/codegen/test_c_source.c - the C-dialect emitter on device
 * functions built by hand, with a small test dialect: thread loops and
 * their guards, shared arrays hoisted to kernel scope, barriers (and the
 * refusal of a barrier under a thread-dependent condition), floordiv by
 * C division or the helpers, vector stores (one vector access when
 * aligned, lane by lane otherwise), copies of 16-bit vectors through the
 * dialect's bit-copy types (and the refusal of arithmetic on them),
 * constructs device code cannot have,
 * fragment scopes with access_ptr and listed extern calls, and the kernel
 * pack container.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/codegen_c.h"
#include "tvm/plugin.h"

static const tvm_c_scope scopes[] = {
    {"global", "", 0, 0, NULL, 0}, {"shared", "SHARED", 1, 32, NULL, 0},
    {"local", "", 0, 0, NULL, 0}, {"frag", "", 0, 0, "FRAG<%s>", 64}};
static const char *const externs[] = {"frag_mma", NULL};

static const tvm_c_dialect dialect = {
    .name = "test",
    .prelude = "/* test */\n",
    .helper_qual = "static",
    .kernel_qual = "KERNEL",
    .bounds_total_fmt = "BOUNDS(%u) ",
    .global_ptr_qual = "",
    .restrict_kw = "RESTRICT",
    .thread_index = {"bx", "by", "bz", "tx", "ty", "tz"},
    .barrier_shared = "SYNC();",
    .barrier_global = "SYNC_ALL();",
    .scopes = scopes,
    .nscopes = 4,
    .extern_names = externs,
    .extern_prelude = "/* frag helpers */\n",
    .as_bf16_fmt = "AS_BF16(%s)",
    .bf16_name = "bf16",
    .bf16_prelude = "",
    .int_names = {"i8", "i16", "i32", "i64"},
    .int_vec = {"i8v", "i16v", "i32v", "i64v"},
    .uint_names = {"u8", "u16", "u32", "u64"},
    .uint_vec = {"u8v", "u16v", "u32v", "u64v"},
    .float_names = {"f16", "f32", "f64"},
    .float_vec = {NULL, "f32v", "f64v"},
    .vload_fmt = "VLOAD(%s, %s)",
    .vstore_fmt = "VSTORE(%s, %s, %s);",
    .max_vector_lanes = 4,
    .vector_needs_align = 1,
    .f32_suffix = "f",
    .fmin_f32 = "fminf",
    .fmax_f32 = "fmaxf",
    .as_int_fmt = "AS_INT(%s)",
    .as_float_fmt = "AS_FLOAT(%s)",
    .copy_types = {"U32", "U64", "U128"},
};

/* A device function around body with the given launch extents. */
static tvm_module *module_of(tvm_ctx *c, tvm_stmt *body, tvm_expr **params,
                             int np, int blocks, int threads) {
  tvm_buffer **bufs = tvm_ctx_alloc(c, sizeof(tvm_buffer *) * (size_t)(np + 1));
  for (int i = 0; i < np; i++) {
    bufs[i] = tvm_buffer_new(c, params[i]->u.var.name, TVM_F32,
                             (tvm_expr *[]){tvm_int(c, 64)}, 1, "global");
    bufs[i]->data = params[i];
  }
  tvm_func *f = tvm_func_new(c, "k", params, bufs, np, body);
  f->kind = TVM_FUNC_DEVICE;
  f->nthread_axes = 2;
  f->thread_tags = tvm_ctx_alloc(c, sizeof(char *) * 2);
  f->thread_extents = tvm_ctx_alloc(c, sizeof(tvm_expr *) * 2);
  f->thread_tags[0] = "blockIdx.x";
  f->thread_tags[1] = "threadIdx.x";
  f->thread_extents[0] = tvm_int(c, blocks);
  f->thread_extents[1] = tvm_int(c, threads);
  tvm_module *m = tvm_ctx_alloc(c, sizeof *m);
  m->ctx = c;
  m->funcs = NULL;
  m->nfuncs = 0;
  assert_int_equal(tvm_module_add(m, f), TVM_OK);
  return m;
}

/* bx { alloc S shared; tx(4) S[tx] = A[..]; [barrier]; tx(n2) C[..] = S[..] } */
static tvm_module *tile(tvm_ctx *c, int n2, int barrier_in_guard) {
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *S = tvm_var(c, "S", TVM_HANDLE);
  tvm_expr *bx = tvm_var(c, "bx", TVM_I32), *t1 = tvm_var(c, "tx", TVM_I32);
  tvm_expr *t2 = tvm_var(c, "tx", TVM_I32);
  tvm_expr *i1 = tvm_add(c, tvm_mul(c, bx, tvm_int(c, 4)), t1);
  tvm_stmt *fill = tvm_for(c, t1, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_THREAD,
                           "threadIdx.x",
                           tvm_store(c, S, t1, tvm_load(c, TVM_F32, A, i1, NULL), NULL));
  tvm_stmt *use_body = tvm_store(c, C, tvm_add(c, tvm_mul(c, bx, tvm_int(c, 4)), t2),
                                 tvm_load(c, TVM_F32, S, tvm_sub(c, tvm_int(c, 3), t2), NULL),
                                 NULL);
  if (barrier_in_guard) use_body = tvm_seq2(c, tvm_barrier(c, "shared"), use_body);
  tvm_stmt *use = tvm_for(c, t2, tvm_int(c, 0), tvm_int(c, n2), TVM_FOR_THREAD,
                          "threadIdx.x", use_body);
  tvm_stmt *seq[3] = {fill, tvm_barrier(c, "shared"), use};
  tvm_stmt *body = tvm_for(c, bx, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_THREAD,
                           "blockIdx.x",
                           tvm_allocate(c, S, TVM_F32, tvm_int(c, 4), "shared",
                                        tvm_seq(c, seq, 3)));
  return module_of(c, body, (tvm_expr *[]){A, C}, 2, 2, 4);
}

static void test_threads_shared_barrier(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_c_source s;
  assert_int_equal(tvm_c_emit_module(&dialect, tile(c, 3, 0), &s), TVM_OK);
  const char *k = strstr(s.text, "KERNEL BOUNDS(4) void k(f32* RESTRICT A, "
                                 "f32* RESTRICT C) {\n  SHARED f32 S[4] "
                                 "__attribute__((aligned(32)))");
  assert_non_null(k);
  assert_non_null(strstr(k, "i32 bx = (i32)bx;"));
  assert_non_null(strstr(k, "i32 tx = (i32)tx;")); /* first: no guard */
  assert_non_null(strstr(k, "SYNC();"));
  assert_non_null(strstr(k, "i32 tx_1 = (i32)tx;")); /* a second variable */
  assert_non_null(strstr(k, "if (tx_1 < 3) {"));
  assert_int_equal(s.nkernels, 1);
  assert_int_equal(s.kernels[0].grid[0], 2);
  assert_int_equal(s.kernels[0].block[0], 4);
  assert_int_equal(s.kernels[0].shared_bytes, 16);
  assert_string_equal(s.kernels[0].arg_kinds, "pp");
  tvm_c_source_free(&s);
  /* a barrier inside the guarded loop would deadlock: refused */
  assert_int_equal(tvm_c_emit_module(&dialect, tile(c, 3, 1), &s),
                   TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "barrier under a thread-dependent"));
  assert_null(s.text);
  /* without the guard it is fine */
  assert_int_equal(tvm_c_emit_module(&dialect, tile(c, 4, 1), &s), TVM_OK);
  tvm_c_source_free(&s);
  /* a sibling loop longer than the launch would lose iterations: refused */
  assert_int_equal(tvm_c_emit_module(&dialect, tile(c, 5, 0), &s),
                   TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "more than the kernel launches (4"));
  tvm_ctx_destroy(c);
}

/* Past the dialect's static limit the shared arrays are pointers into one
 * dynamic array, each at an offset aligned to its scope (32 here), and
 * the kernel says its shared memory is dynamic; at the limit they stay
 * static arrays. */
static void test_dynamic_shared(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *S = tvm_var(c, "S", TVM_HANDLE), *T = tvm_var(c, "T", TVM_HANDLE);
  tvm_expr *bx = tvm_var(c, "bx", TVM_I32), *tx = tvm_var(c, "tx", TVM_I32);
  tvm_stmt *body = tvm_seq2(
      c, tvm_store(c, S, tx, tvm_load(c, TVM_F32, A, tx, NULL), NULL),
      tvm_seq2(c, tvm_store(c, T, tx, tvm_load(c, TVM_F32, S, tx, NULL), NULL),
               tvm_store(c, C, tx, tvm_load(c, TVM_F32, T, tx, NULL), NULL)));
  body = tvm_for(c, bx, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_THREAD,
                 "blockIdx.x",
                 tvm_allocate(c, S, TVM_F32, tvm_int(c, 5), "shared",
                              tvm_allocate(c, T, TVM_F32, tvm_int(c, 4),
                                           "shared",
                                           tvm_for(c, tx, tvm_int(c, 0),
                                                   tvm_int(c, 4),
                                                   TVM_FOR_THREAD,
                                                   "threadIdx.x", body))));
  tvm_module *m = module_of(c, body, (tvm_expr *[]){A, C}, 2, 2, 4);
  tvm_c_dialect dyn = dialect;
  dyn.dyn_shared_fmt = "DYNAMIC char %s[];";
  dyn.static_shared_max = 32; /* S (20 B, 32 rounded) + T (16 B) = 48 */
  tvm_c_source s;
  assert_int_equal(tvm_c_emit_module(&dyn, m, &s), TVM_OK);
  assert_non_null(strstr(s.text, "  DYNAMIC char tvm_dyn_shared[];\n"
                                 "  f32* S = (f32*)(tvm_dyn_shared + 0);\n"
                                 "  f32* T = (f32*)(tvm_dyn_shared + 32);\n"));
  assert_null(strstr(s.text, "SHARED"));
  assert_true(s.kernels[0].dynamic_shared);
  assert_int_equal(s.kernels[0].shared_bytes, 48);
  tvm_c_source_free(&s);
  dyn.static_shared_max = 48;
  assert_int_equal(tvm_c_emit_module(&dyn, m, &s), TVM_OK);
  assert_null(strstr(s.text, "tvm_dyn_shared"));
  assert_non_null(strstr(s.text, "SHARED f32 S[5]"));
  assert_false(s.kernels[0].dynamic_shared);
  assert_int_equal(s.kernels[0].shared_bytes, 48);
  tvm_c_source_free(&s);
  tvm_ctx_destroy(c);
}

/* A cross-thread reduction's final combine, as the generic thread
 * schedule writes it: tx(T) RF[tx] = A[tx]; barrier; L[0] = init;
 * for v in T: L[0] = op(L[0], RF[v]); C[bx] = L[0]; launched with
 * `threads` threads. */
static tvm_module *combine(tvm_ctx *c, int T, int threads, int use_max) {
  tvm_dtype t = TVM_F32;
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *RF = tvm_var(c, "RF", TVM_HANDLE), *L = tvm_var(c, "L", TVM_HANDLE);
  tvm_expr *bx = tvm_var(c, "bx", TVM_I32), *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *v = tvm_var(c, "v", TVM_I32), *z = tvm_int(c, 0);
  tvm_expr *l0 = tvm_load(c, t, L, z, NULL), *rf = tvm_load(c, t, RF, v, NULL);
  tvm_stmt *fill = tvm_for(c, tx, z, tvm_int(c, T), TVM_FOR_THREAD,
                           "threadIdx.x",
                           tvm_store(c, RF, tx, tvm_load(c, t, A, tx, NULL), NULL));
  tvm_stmt *fold = tvm_for(c, v, z, tvm_int(c, T), TVM_FOR_SERIAL, NULL,
                           tvm_store(c, L, z, use_max ? tvm_max(c, l0, rf)
                                                      : tvm_add(c, rf, l0),
                                     NULL));
  tvm_stmt *seq[5] = {fill, tvm_barrier(c, "shared"),
                      tvm_store(c, L, z, tvm_cast(c, t, tvm_int(c, 0)), NULL),
                      fold, tvm_store(c, C, bx, l0, NULL)};
  tvm_stmt *body = tvm_for(
      c, bx, z, tvm_int(c, 2), TVM_FOR_THREAD, "blockIdx.x",
      tvm_allocate(c, RF, t, tvm_int(c, T), "shared",
                   tvm_allocate(c, L, t, tvm_int(c, 1), "local",
                                tvm_seq(c, seq, 5))));
  return module_of(c, body, (tvm_expr *[]){A, C}, 2, 2, threads);
}

/* The combine with warp shuffles where the dialect has them: each warp
 * folds its lanes by butterfly exchanges, lane 0 stores, the block folds
 * T / warp values; left a loop when the block is not T threads or the
 * dialect has no shuffles. */
static void test_warp_combine(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_c_dialect w = dialect;
  w.shuffle_xor_fmt = "SHFL(%s, %d)";
  w.warp_size = 32;
  tvm_c_source s;
  assert_int_equal(tvm_c_emit_module(&w, combine(c, 128, 128, 0), &s),
                   TVM_OK);
  const char *k = strstr(s.text, "i32 v = (i32)tx;\n");
  assert_non_null(k);
  assert_non_null(strstr(k, "f32 warp_part = RF[v];\n"));
  assert_non_null(strstr(k, "warp_part = warp_part + SHFL(warp_part, 16);\n"));
  assert_non_null(strstr(k, "warp_part = warp_part + SHFL(warp_part, 1);\n"));
  assert_null(strstr(k, "SHFL(warp_part, 32)"));
  assert_non_null(strstr(k, "SYNC();"));
  assert_non_null(strstr(k, "warp_sums[(v / 32)] = warp_part;"));
  assert_non_null(strstr(k, "for (i32 w = 0; w < 4; ++w)"));
  assert_non_null(strstr(k, "L[0] = (L[0] + warp_sums[w]);"));
  assert_non_null(strstr(s.text, "SHARED f32 warp_sums[4]"));
  assert_int_equal(s.kernels[0].shared_bytes, 128 * 4 + 16);
  tvm_c_source_free(&s);
  /* max of floats: the dialect's fmax */
  assert_int_equal(tvm_c_emit_module(&w, combine(c, 64, 64, 1), &s),
                   TVM_OK);
  assert_non_null(strstr(s.text, "warp_part = fmaxf(warp_part, SHFL(warp_part, 16));"));
  tvm_c_source_free(&s);
  /* the loop stays: a block of 256 threads folding 128 partials, no
   * shuffles in the dialect, an integer max */
  assert_int_equal(tvm_c_emit_module(&w, combine(c, 128, 256, 0), &s),
                   TVM_OK);
  assert_null(strstr(s.text, "SHFL"));
  assert_non_null(strstr(s.text, "for (i32 v = 0; v < 128; ++v)"));
  tvm_c_source_free(&s);
  assert_int_equal(tvm_c_emit_module(&dialect, combine(c, 128, 128, 0),
                                     &s), TVM_OK);
  assert_null(strstr(s.text, "SHFL"));
  tvm_c_source_free(&s);
  tvm_ctx_destroy(c);
}

/* C[f(bx, tx)] = A[...] with floordiv of a possibly negative value and of
 * a non-negative one; vector stores aligned and not. */
static void test_floordiv_and_vectors(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *n = tvm_var(c, "n", TVM_I32);
  tvm_expr *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *neg = tvm_floordiv(c, tvm_sub(c, tx, n), tvm_int(c, 4));
  tvm_expr *pos = tvm_floordiv(c, tx, tvm_int(c, 4));
  tvm_stmt *st1 = tvm_store(c, C, tvm_add(c, neg, pos),
                            tvm_load(c, TVM_F32, A, tx, NULL), NULL);
  /* aligned: ramp(tx*4, 1, 4); unaligned: ramp(tx*4 + 1, 1, 4) */
  tvm_expr *r1 = tvm_ramp(c, tvm_mul(c, tx, tvm_int(c, 4)), tvm_int(c, 1), 4);
  tvm_expr *r2 = tvm_ramp(c, tvm_add(c, tvm_mul(c, tx, tvm_int(c, 4)), tvm_int(c, 1)),
                          tvm_int(c, 1), 4);
  tvm_dtype v4 = tvm_dtype_with_lanes(TVM_F32, 4);
  tvm_stmt *st2 = tvm_store(c, C, r1, tvm_add(c, tvm_load(c, v4, A, r1, NULL),
                                              tvm_broadcast(c, tvm_f32(c, 1), 4)),
                            NULL);
  tvm_stmt *st3 = tvm_store(c, C, r2, tvm_load(c, v4, A, r2, NULL), NULL);
  tvm_stmt *seq[3] = {st1, st2, st3};
  tvm_stmt *body = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 8), TVM_FOR_THREAD,
                           "threadIdx.x", tvm_seq(c, seq, 3));
  tvm_module *m = module_of(c, body, (tvm_expr *[]){A, C, n}, 3, 1, 8);
  m->funcs[0]->buffers[2] = NULL; /* n is a scalar */
  tvm_c_source s;
  assert_int_equal(tvm_c_emit_module(&dialect, m, &s), TVM_OK);
  assert_non_null(strstr(s.text, "i32 n)"));
  assert_string_equal(s.kernels[0].arg_kinds, "ppi");
  assert_non_null(strstr(s.text, "tvm_floordiv_i32((tx - n), 4)"));
  assert_non_null(strstr(s.text, "(tx / 4)"));
  assert_non_null(strstr(s.text, "f32v4 _v0 = VLOAD(f32v4, &A[(tx * 4)]);"));
  assert_non_null(strstr(s.text, "_r1.w = (_v0.w + 1.0f);"));
  assert_non_null(strstr(s.text, "VSTORE(f32v4, &C[(tx * 4)], _r1);"));
  /* unaligned: lanes one by one, all computed before any is stored */
  assert_non_null(strstr(s.text, "f32 _r2_3 = A[(((tx * 4) + 1) + 1 * 3)];"));
  assert_non_null(strstr(s.text, "C[(((tx * 4) + 1) + 1 * 3)] = _r2_3;"));
  tvm_c_source_free(&s);
  tvm_ctx_destroy(c);
}

/* Float to integers narrower than 32 bits converts through int (a direct
 * conversion out of the narrow type's range is undefined in C, CUDA C and
 * OpenCL C; through int it wraps as the reference does); to 32 and 64
 * bits and from integers it stays one cast. */
static void test_narrow_float_to_int(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *x = tvm_load(c, TVM_F32, A, tx, NULL);
  tvm_expr *sum = tvm_add(
      c,
      tvm_add(c,
              tvm_cast(c, TVM_I32, tvm_cast(c, tvm_dt(kDLInt, 8, 1), x)),
              tvm_cast(c, TVM_I32, tvm_cast(c, tvm_dt(kDLUInt, 16, 1), x))),
      tvm_add(c, tvm_cast(c, TVM_I32, x),
              tvm_cast(c, TVM_I32, tvm_cast(c, tvm_dt(kDLInt, 8, 1), tx))));
  tvm_stmt *body = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 8), TVM_FOR_THREAD,
                           "threadIdx.x",
                           tvm_store(c, C, tx, tvm_cast(c, TVM_F32, sum), NULL));
  tvm_module *m = module_of(c, body, (tvm_expr *[]){A, C}, 2, 1, 8);
  tvm_c_source s;
  assert_int_equal(tvm_c_emit_module(&dialect, m, &s), TVM_OK);
  assert_non_null(strstr(s.text, "((i8)((int)(A[tx])))"));
  assert_non_null(strstr(s.text, "((u16)((int)(A[tx])))"));
  assert_non_null(strstr(s.text, "((i32)(A[tx]))"));
  assert_non_null(strstr(s.text, "((i8)(tx))"));
  tvm_c_source_free(&s);
  tvm_ctx_destroy(c);
}

/* tx(8) { S[ramp(base, 1, lanes)] = v } over A, S of 16-bit type t: v
 * the load A[ramp(base, 1, lanes)] (arith 0), or that load plus itself
 * (arith 1). */
static tvm_module *copy16(tvm_ctx *c, tvm_dtype t, int lanes, int offset,
                          int arith) {
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *S = tvm_var(c, "S", TVM_HANDLE);
  tvm_expr *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *base = tvm_mul(c, tx, tvm_int(c, lanes));
  if (offset) base = tvm_add(c, base, tvm_int(c, offset));
  tvm_expr *r = tvm_ramp(c, base, tvm_int(c, 1), lanes);
  tvm_expr *v = tvm_load(c, tvm_dtype_with_lanes(t, lanes), A, r, NULL);
  if (arith) v = tvm_add(c, v, v);
  tvm_stmt *body = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 8), TVM_FOR_THREAD,
                           "threadIdx.x", tvm_store(c, S, r, v, NULL));
  tvm_module *m = module_of(c, body, (tvm_expr *[]){A, S}, 2, 1, 8);
  for (int i = 0; i < 2; i++) m->funcs[0]->buffers[i]->dtype = t;
  return m;
}

/* Vectors of a type with no vector spelling (float16, bfloat16 here) are
 * copied as one access of the bit-copy type of their size when both
 * addresses are aligned, lane by lane otherwise or without such a type;
 * arithmetic on them is refused. */
static void test_copy_16bit_vectors(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_dtype bf16 = tvm_dt(kDLBfloat, 16, 1);
  tvm_c_source s;
  assert_int_equal(tvm_c_emit_module(&dialect, copy16(c, TVM_F16, 8, 0, 0), &s),
                   TVM_OK);
  assert_non_null(strstr(s.text, "f16* RESTRICT A, f16* RESTRICT S)"));
  assert_non_null(strstr(s.text, "VSTORE(U128, &S[(tx * 8)], "
                                 "VLOAD(U128, &A[(tx * 8)]));"));
  tvm_c_source_free(&s);
  assert_int_equal(tvm_c_emit_module(&dialect, copy16(c, bf16, 4, 0, 0), &s),
                   TVM_OK);
  assert_non_null(strstr(s.text, "VSTORE(U64, &S[(tx * 4)], VLOAD(U64, &A[(tx * 4)]));"));
  tvm_c_source_free(&s);
  assert_int_equal(tvm_c_emit_module(&dialect, copy16(c, TVM_F16, 2, 0, 0), &s),
                   TVM_OK);
  assert_non_null(strstr(s.text, "VSTORE(U32, &S[(tx * 2)], VLOAD(U32, &A[(tx * 2)]));"));
  tvm_c_source_free(&s);
  /* not provably aligned: lane by lane, every lane read before any store */
  assert_int_equal(tvm_c_emit_module(&dialect, copy16(c, TVM_F16, 8, 4, 0), &s),
                   TVM_OK);
  assert_null(strstr(s.text, "VSTORE"));
  assert_non_null(strstr(s.text, "f16 _r0_7 = A[(((tx * 8) + 4) + 1 * 7)];"));
  assert_non_null(strstr(s.text, "S[(((tx * 8) + 4) + 1 * 0)] = _r0_0;"));
  assert_true(strstr(s.text, "_r0_7 = A") < strstr(s.text, "= _r0_0;"));
  tvm_c_source_free(&s);
  /* 16 lanes (32 bytes): no bit-copy type that large, lane by lane */
  assert_int_equal(tvm_c_emit_module(&dialect, copy16(c, TVM_F16, 16, 0, 0), &s),
                   TVM_OK);
  assert_null(strstr(s.text, "VSTORE"));
  assert_non_null(strstr(s.text, "= _r0_15;"));
  tvm_c_source_free(&s);
  /* a dialect without bit-copy types copies lane by lane */
  tvm_c_dialect plain = dialect;
  plain.copy_types[0] = plain.copy_types[1] = plain.copy_types[2] = NULL;
  assert_int_equal(tvm_c_emit_module(&plain, copy16(c, TVM_F16, 8, 0, 0), &s),
                   TVM_OK);
  assert_null(strstr(s.text, "VSTORE"));
  assert_non_null(strstr(s.text, "S[((tx * 8) + 1 * 7)] = _r0_7;"));
  tvm_c_source_free(&s);
  /* arithmetic on such a vector: refused, saying why */
  assert_int_equal(tvm_c_emit_module(&dialect, copy16(c, TVM_F16, 8, 0, 1), &s),
                   TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "test codegen, kernel k: store into "
                                             "S of a float16x8 vector computed by"));
  assert_non_null(strstr(tvm_diag_message(), "may only be copied"));
  assert_null(s.text);
  /* a copy from a buffer of another element type: refused as a load */
  tvm_module *m = copy16(c, TVM_F16, 8, 0, 0);
  m->funcs[0]->buffers[0]->dtype = TVM_F32;
  assert_int_equal(tvm_c_emit_module(&dialect, m, &s), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "load of float16 from buffer A"));
  tvm_ctx_destroy(c);
}

/* What device code cannot have is an error naming the kernel. */
static void test_unsupported(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *tx = tvm_var(c, "tx", TVM_I32);
  tvm_stmt *par = tvm_for(c, i, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_PARALLEL, NULL,
                          tvm_store(c, A, i, tvm_f32(c, 0), NULL));
  tvm_c_source s;
  tvm_module *m = module_of(c, tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 8),
                                       TVM_FOR_THREAD, "threadIdx.x", par),
                            (tvm_expr *[]){A}, 1, 1, 8);
  assert_int_equal(tvm_c_emit_module(&dialect, m, &s), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "test codegen, kernel k: parallel loop i"));
  tvm_expr *call = tvm_call_extern(c, TVM_F32, "host_fn", NULL, 0);
  m = module_of(c, tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 8), TVM_FOR_THREAD,
                           "threadIdx.x", tvm_store(c, A, tx, call, NULL)),
                (tvm_expr *[]){A}, 1, 1, 8);
  assert_int_equal(tvm_c_emit_module(&dialect, m, &s), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "host_fn"));
  /* no device function at all */
  tvm_module empty = {c, NULL, 0};
  assert_int_equal(tvm_c_emit_module(&dialect, &empty, &s), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "bind loops to blockIdx"));
  tvm_ctx_destroy(c);
}

/* access_ptr(buf, "float32", off, 64, rw) */
static tvm_expr *aptr(tvm_ctx *c, tvm_expr *buf, tvm_expr *off) {
  tvm_expr *a[5] = {buf, tvm_str(c, "float32"), off, tvm_int(c, 64),
                    tvm_int(c, 3)};
  return tvm_call(c, TVM_HANDLE, TVM_INTRIN_ACCESS_PTR, a, 5);
}

/* tx(8) { alloc F frag[256]; for i < 4: frag_mma(&F[i*64], &A[i*16]) } */
static tvm_module *frag_kernel(tvm_ctx *c, int64_t step, int plain_load) {
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *F = tvm_var(c, "F", TVM_HANDLE);
  tvm_expr *tx = tvm_var(c, "tx", TVM_I32), *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *args[2] = {aptr(c, F, tvm_mul(c, i, tvm_int(c, step))),
                       aptr(c, A, tvm_mul(c, i, tvm_int(c, 16)))};
  tvm_stmt *use =
      plain_load ? tvm_store(c, A, i, tvm_load(c, TVM_F32, F, i, NULL), NULL)
                 : tvm_evaluate(c, tvm_call_extern(c, TVM_I32, "frag_mma",
                                                   args, 2));
  tvm_stmt *loop = tvm_for(c, i, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL,
                           NULL, use);
  tvm_stmt *body = tvm_allocate(c, F, TVM_F32, tvm_int(c, 256), "frag", loop);
  return module_of(c, tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 8),
                              TVM_FOR_THREAD, "threadIdx.x", body),
                   (tvm_expr *[]){A}, 1, 1, 8);
}

static void test_fragments_and_externs(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_c_source s;
  assert_int_equal(tvm_c_emit_module(&dialect, frag_kernel(c, 64, 0), &s),
                   TVM_OK);
  assert_non_null(strstr(s.text, "/* frag helpers */"));
  assert_non_null(strstr(s.text, "FRAG<f32> F[4];"));
  assert_non_null(strstr(s.text, "frag_mma((&F[i]), (&A[(i * 16)]));"));
  assert_int_equal(s.uses_extern, 1);
  tvm_c_source_free(&s);
  /* an offset inside a fragment, a plain load of a fragment */
  assert_int_equal(tvm_c_emit_module(&dialect, frag_kernel(c, 32, 0), &s),
                   TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "multiple of 64"));
  assert_int_equal(tvm_c_emit_module(&dialect, frag_kernel(c, 64, 1), &s),
                   TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "load from F of fragment"));
  /* bfloat16 from the bits of a uint16 (Cast to bfloat16, opset < 19) */
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *u16 = tvm_cast(c, tvm_dt(kDLUInt, 16, 1), tx);
  tvm_expr *bf = tvm_call(c, tvm_dt(kDLBfloat, 16, 1), TVM_INTRIN_REINTERPRET,
                          &u16, 1);
  tvm_module *m = module_of(
      c, tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 8), TVM_FOR_THREAD,
                 "threadIdx.x", tvm_store(c, A, tx, tvm_cast(c, TVM_F32, bf), NULL)),
      (tvm_expr *[]){A}, 1, 1, 8);
  assert_int_equal(tvm_c_emit_module(&dialect, m, &s), TVM_OK);
  assert_non_null(strstr(s.text, "((bf16)AS_BF16(((u16)(tx))))"));
  tvm_c_source_free(&s);
  /* a kernel without fragments or externs gets no extern prelude */
  assert_int_equal(tvm_c_emit_module(&dialect, tile(c, 4, 0), &s), TVM_OK);
  assert_null(strstr(s.text, "/* frag helpers */"));
  tvm_c_source_free(&s);
  tvm_ctx_destroy(c);
}

static void *halloc(uint64_t n) { return malloc(n); }

/* Tensor names as ONNX exporters write them ("/relu/Relu_output_0",
 * "/tvm_x", "__y") map to reserved prefixes ("_r", "tvm_", "__"): each gets
 * a free C identifier (this once looped forever), distinct ones stay
 * distinct. */
static void test_exporter_names(void **state) {
  (void)state;
  static const char *const names[] = {"/relu/Relu_output_0", "/relu/Relu_output_0",
                                      "tvm_x", "__y", "/t", "get_z"};
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *p[6];
  for (int i = 0; i < 6; i++) p[i] = tvm_var(c, names[i], TVM_HANDLE);
  tvm_expr *tx = tvm_var(c, "tx", TVM_I32);
  tvm_stmt *st[5];
  for (int i = 0; i < 5; i++)
    st[i] = tvm_store(c, p[i + 1], tx, tvm_load(c, TVM_F32, p[i], tx, NULL), NULL);
  tvm_stmt *body = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_THREAD,
                           "threadIdx.x", tvm_seq(c, st, 5));
  tvm_c_source s;
  assert_int_equal(tvm_c_emit_module(&dialect, module_of(c, body, p, 6, 1, 4), &s),
                   TVM_OK);
  assert_non_null(strstr(s.text, "f32* RESTRICT v_relu_Relu_output_0, "
                                 "f32* RESTRICT v_relu_Relu_output_0_1, "
                                 "f32* RESTRICT vtvm_x, f32* RESTRICT v__y, "
                                 "f32* RESTRICT v_t, f32* RESTRICT vget_z)"));
  tvm_c_source_free(&s);
  tvm_ctx_destroy(c);
}

static void test_kpack(void **state) {
  (void)state;
  tvm_kpack p;
  uint8_t *data;
  uint64_t size;
  const uint8_t *sec;
  uint64_t n;
  tvm_c_kernel ks[2] = {{.name = "k0", .arg_kinds = "ppi", .nargs = 3},
                        {.name = "k1", .arg_kinds = "", .nargs = 0}};
  tvm_c_source src = {.kernels = ks, .nkernels = 2};
  tvm_kpack_init(&p);
  tvm_kpack_add(&p, "source", "abc", 3);
  tvm_kpack_add_signatures(&p, &src);
  assert_int_equal(tvm_kpack_finish(&p, halloc, &data, &size), TVM_OK);
  assert_int_equal(tvm_kpack_find(data, size, "source", &sec, &n), TVM_OK);
  assert_int_equal(n, 3);
  assert_memory_equal(sec, "abc", 3);
  assert_int_equal(tvm_kpack_find(data, size, "cubin", &sec, &n), TVM_ERR_NOT_FOUND);
  char kinds[8];
  assert_int_equal(tvm_kpack_signature(data, size, "k0", kinds, sizeof kinds), TVM_OK);
  assert_string_equal(kinds, "ppi");
  assert_int_equal(tvm_kpack_signature(data, size, "k1", kinds, sizeof kinds), TVM_OK);
  assert_string_equal(kinds, "");
  assert_int_equal(tvm_kpack_signature(data, size, "k", kinds, sizeof kinds),
                   TVM_ERR_NOT_FOUND);
  /* truncated and foreign data are rejected, never read past the end */
  assert_int_equal(tvm_kpack_find(data, size - 2, "kernels", &sec, &n), TVM_ERR_INVALID);
  data[0] = 'X';
  assert_int_equal(tvm_kpack_find(data, size, "source", &sec, &n), TVM_ERR_INVALID);
  free(data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_shared_barrier),
      cmocka_unit_test(test_dynamic_shared),
      cmocka_unit_test(test_warp_combine),
      cmocka_unit_test(test_floordiv_and_vectors),
      cmocka_unit_test(test_narrow_float_to_int),
      cmocka_unit_test(test_copy_16bit_vectors),
      cmocka_unit_test(test_unsupported),
      cmocka_unit_test(test_fragments_and_externs),
      cmocka_unit_test(test_exporter_names),
      cmocka_unit_test(test_kpack),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
