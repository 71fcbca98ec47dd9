/*
 * tests/unit/lower/test_host_device.c - the host/device seams of
 * lowering: scope capacity enforced at compile time, barriers under
 * thread-dependent conditions refused, the launch intrinsic (printer,
 * verifier), host programs built from host functions (geometry evaluated,
 * loops unrolled, errors naming the kernel) and their serialized form,
 * the integer evaluator, and target passes inserted into the pipeline
 * table at their point.
 */
#include "lower_test.h"
#include "tvm/host_program.h"

/* ---- scope capacity ------------------------------------------------------- */

static const tvm_scope_info scratch_1k[] = {
    {"scratch", TVM_VIS_DEVICE, 1024, 16, -1},
};

/* body = allocate X[float32 * n] scratch { allocate Y[float32 * n]
 * scratch { X[0] = 1; Y[0] = 2 } } (nested: both live) or one after the
 * other (sequential). */
static tvm_func *two_buffers(tvm_ctx *c, int64_t n, int nested) {
  tvm_expr *X = tvm_var(c, "X", TVM_HANDLE), *Y = tvm_var(c, "Y", TVM_HANDLE);
  tvm_stmt *sx = tvm_store(c, X, tvm_int(c, 0), tvm_f32(c, 1), NULL);
  tvm_stmt *sy = tvm_store(c, Y, tvm_int(c, 0), tvm_f32(c, 2), NULL);
  tvm_stmt *body;
  if (nested)
    body = tvm_allocate(c, X, TVM_F32, tvm_int(c, n), "scratch",
                        tvm_allocate(c, Y, TVM_F32, tvm_int(c, n), "scratch",
                                     tvm_seq2(c, sx, sy)));
  else
    body = tvm_seq2(c, tvm_allocate(c, X, TVM_F32, tvm_int(c, n), "scratch", sx),
                    tvm_allocate(c, Y, TVM_F32, tvm_int(c, n), "scratch", sy));
  return tvm_func_new(c, "f", NULL, NULL, 0, body);
}

/* 2 KiB of live buffers in a 1 KiB scope: an error naming the scope, its
 * size and the buffers; 1 KiB live at a time fits. */
static void test_capacity(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_lower_options o;
  tvm_func *out;
  tvm_lower_options_init(&o);
  o.scopes = scratch_1k;
  o.nscopes = 1;
  /* 2 x 1 KiB nested: 2 KiB live */
  assert_int_equal(tvm_pass_check_scope_capacity(c, two_buffers(c, 256, 1), &o, &out),
                   TVM_ERR_INVALID);
  const char *m = tvm_diag_message();
  assert_non_null(strstr(m, "scope 'scratch' holds 1024 bytes"));
  assert_non_null(strstr(m, "need 2048"));
  assert_non_null(strstr(m, "X (1024 bytes), Y (1024 bytes)"));
  /* 2 x 512 B nested: exactly 1 KiB */
  assert_int_equal(tvm_pass_check_scope_capacity(c, two_buffers(c, 128, 1), &o, &out),
                   TVM_OK);
  /* 2 x 1 KiB one after the other: never live together */
  assert_int_equal(tvm_pass_check_scope_capacity(c, two_buffers(c, 256, 0), &o, &out),
                   TVM_OK);
  /* an unbounded scope takes anything */
  tvm_scope_info big = scratch_1k[0];
  big.size_bytes = 0;
  o.scopes = &big;
  assert_int_equal(tvm_pass_check_scope_capacity(c, two_buffers(c, 4096, 1), &o, &out),
                   TVM_OK);
  tvm_ctx_destroy(c);
}

/* B[i] = A[i] + 1 over 512 floats */
static tvm_expr *add_one(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_add(c, TVM_AT(c, (tvm_tensor *)ud, i[0]), tvm_f32(c, 1));
}

/* Through tvm_lower: A (2 KiB) cached whole into a 1 KiB scope fails at
 * compile time; split so that 256 elements are cached per tile, it fits. */
static void test_capacity_through_lower(void **state) {
  fixture *f = *state;
  for (int tiled = 0; tiled < 2; tiled++) {
    tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){512}, 1);
    tvm_tensor *B = tvm_compute(f->c, "B", (int64_t[]){512}, 1, add_one, A);
    tvm_schedule *s = NULL;
    tvm_tensor *AS = NULL;
    assert_int_equal(tvm_schedule_create(f->c, &B, 1, &s), TVM_OK);
    tvm_operation *rd = B->op;
    assert_int_equal(tvm_cache_read(s, A, "scratch", &rd, 1, &AS), TVM_OK);
    if (tiled) {
      tvm_iter_var *xo, *xi;
      tvm_stage *sb = tvm_stage_of(s, B);
      assert_int_equal(tvm_split(sb, tvm_stage_axis(sb, 0), 256, &xo, &xi), TVM_OK);
      assert_int_equal(tvm_compute_at(tvm_stage_of(s, AS), sb, xo), TVM_OK);
    }
    tvm_lower_options o;
    tvm_lower_options_init(&o);
    o.scopes = scratch_1k;
    o.nscopes = 1;
    tvm_module m = {f->c, NULL, 0};
    tvm_tensor *args[2] = {A, B};
    tvm_status st = tvm_lower(s, args, 2, "k", &o, &m);
    if (tiled) {
      if (st != TVM_OK) fail_msg("%s", tvm_diag_message());
    } else {
      assert_int_equal(st, TVM_ERR_INVALID);
      const char *msg = tvm_diag_message();
      assert_non_null(strstr(msg, "check_scope_capacity"));
      assert_non_null(strstr(msg, "scope 'scratch' holds 1024 bytes"));
      assert_non_null(strstr(msg, "2048"));
      assert_non_null(strstr(msg, "A.scratch"));
    }
    tvm_schedule_free(s);
  }
}

/* ---- barriers under thread-dependent conditions --------------------------- */

/* for bx(blockIdx.x, 2) { allocate S shared { for tx(threadIdx.x, 4) {
 *   [let t = tx * 2 in] if (cond) { S[tx] = A[tx]; C[tx] = S[3 - tx] } } } }
 * where cond is tx < 3 (mode 0), t < 4 (mode 1) or bx < 1 (mode 2). */
static tvm_func *guarded(tvm_ctx *c, int mode) {
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *S = tvm_var(c, "S", TVM_HANDLE);
  tvm_expr *bx = tvm_var(c, "bx", TVM_I32), *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *t = tvm_var(c, "t", TVM_I32);
  tvm_stmt *w = tvm_store(c, S, tx, tvm_load(c, TVM_F32, A, tx, NULL), NULL);
  tvm_stmt *r = tvm_store(c, C, tx,
                          tvm_load(c, TVM_F32, S, tvm_sub(c, tvm_int(c, 3), tx), NULL),
                          NULL);
  tvm_expr *cond = mode == 0   ? tvm_lt(c, tx, tvm_int(c, 3))
                   : mode == 1 ? tvm_lt(c, t, tvm_int(c, 4))
                               : tvm_lt(c, bx, tvm_int(c, 1));
  tvm_stmt *body = tvm_if(c, cond, tvm_seq2(c, w, r), NULL);
  if (mode == 1) body = tvm_let_stmt(c, t, tvm_mul(c, tx, tvm_int(c, 2)), body);
  tvm_stmt *k = tvm_for(c, bx, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_THREAD, "blockIdx.x",
      tvm_allocate(c, S, TVM_F32, tvm_int(c, 4), "shared",
          tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_THREAD,
                  "threadIdx.x", body)));
  return tvm_func_new(c, "g", NULL, NULL, 0, k);
}

/* A barrier needed under `if (tx < 3)` (or a let of tx) is an error naming
 * the condition and the thread index; under `if (bx < 1)` (uniform within
 * the block) it is placed. */
static void test_barrier_under_thread_condition(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_lower_options o;
  tvm_func *out = NULL;
  tvm_lower_options_init(&o);
  o.has_threads = 1;
  assert_int_equal(tvm_pass_thread_sync(c, guarded(c, 0), &o, &out), TVM_ERR_INVALID);
  const char *m = tvm_diag_message();
  assert_non_null(strstr(m, "condition `tx < 3`"));
  assert_non_null(strstr(m, "thread index tx"));
  assert_non_null(strstr(m, "deadlock"));
  assert_int_equal(tvm_pass_thread_sync(c, guarded(c, 1), &o, &out), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "condition `t < 4`"));
  assert_int_equal(tvm_pass_thread_sync(c, guarded(c, 2), &o, &out), TVM_OK);
  char *t = tvm_stmt_str(out->body);
  assert_non_null(strstr(t, "barrier scope=shared"));
  tvm_free(t);
  tvm_ctx_destroy(c);
}

/* ---- launches, host programs ---------------------------------------------- */

/* main(A, B): for r in 2 { launch main_kernel0 over grid (r + 1) x block 32
 * with (A, B, r * 8) }, split from thread loops by split_host_device. */
static void lower_two_launches(tvm_ctx *c, tvm_module *m, tvm_func **host,
                               int symbolic) {
  tvm_expr *sh[1] = {tvm_int(c, 256)};
  tvm_buffer *ba = tvm_buffer_new(c, "A", TVM_F32, sh, 1, "global");
  tvm_buffer *bb = tvm_buffer_new(c, "B", TVM_F32, sh, 1, "global");
  tvm_expr *n = tvm_var(c, "n", TVM_I32);
  tvm_expr *r = tvm_var(c, "r", TVM_I32), *bx = tvm_var(c, "bx", TVM_I32);
  tvm_expr *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *idx = tvm_add(c, tvm_add(c, tvm_mul(c, bx, tvm_int(c, 32)), tx),
                          tvm_mul(c, r, tvm_int(c, 8)));
  tvm_stmt *k = tvm_for(c, bx, tvm_int(c, 0),
                        symbolic ? n : tvm_add(c, r, tvm_int(c, 1)),
                        TVM_FOR_THREAD, "blockIdx.x",
      tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 32), TVM_FOR_THREAD, "threadIdx.x",
          tvm_store(c, bb->data, idx, tvm_load(c, TVM_F32, ba->data, idx, NULL), NULL)));
  tvm_stmt *body = tvm_for(c, r, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_SERIAL, NULL, k);
  tvm_expr *params[3] = {ba->data, bb->data, n};
  tvm_buffer *bufs[3] = {ba, bb, NULL};
  tvm_func *f = tvm_func_new(c, "main", params, bufs, symbolic ? 3 : 2, body);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  o.has_threads = 1;
  m->ctx = c;
  assert_int_equal(tvm_pass_split_host_device(c, f, &o, m, host), TVM_OK);
  assert_int_equal(tvm_module_add(m, *host), TVM_OK);
}

/* The host function launches with geometry; the verifier accepts it and
 * refuses a launch with the wrong argument count or of a host function. */
static void test_launch_verify(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_module m = {c, NULL, 0};
  tvm_func *host;
  lower_two_launches(c, &m, &host, 0);
  char *t = tvm_stmt_str(host->body);
  expect_text(t,
              "for (r, 0, 2) {\n"
              "  launch(\"main_kernel0\", grid=(r + 1, 1, 1), block=(32, 1, 1), "
              "shared=0, args=(r, B, A))\n"
              "}\n");
  tvm_free(t);
  assert_int_equal(tvm_module_verify_launches(&m), TVM_OK);
  tvm_expr *one = tvm_int(c, 1);
  tvm_expr *g[3] = {one, one, one};
  tvm_expr *few = tvm_launch(c, "main_kernel0", g, g, NULL, &host->params[0], 1);
  assert_int_equal(tvm_launch_verify(few, &m), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "passes 1 arguments, the kernel takes 3"));
  tvm_expr *hf = tvm_launch(c, "main", g, g, NULL, host->params, 2);
  assert_int_equal(tvm_launch_verify(hf, &m), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "only device functions"));
  tvm_expr *none = tvm_launch(c, "nope", g, g, NULL, NULL, 0);
  assert_int_equal(tvm_launch_verify(none, &m), TVM_ERR_NOT_FOUND);
  tvm_ctx_destroy(c);
}

/* The host program: the loop unrolled, geometry and scalars evaluated;
 * the serialized form round-trips; a symbolic grid is an error naming the
 * kernel. */
static void test_host_program(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_arena *a = tvm_arena_create();
  tvm_module m = {c, NULL, 0};
  tvm_func *host;
  tvm_host_program *p = NULL, *q = NULL;
  lower_two_launches(c, &m, &host, 0);
  assert_int_equal(tvm_host_program_build(host, &m, a, &p), TVM_OK);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_host_program_print(&b, p);
  expect_text(b.data,
              "host main (2 params, 0 temps)\n"
              "  launch main_kernel0 grid(1, 1, 1) block(32, 1, 1) shared 0 (0, p1, p0)\n"
              "  launch main_kernel0 grid(2, 1, 1) block(32, 1, 1) shared 0 (1, p1, p0)\n");
  tvm_strbuf enc;
  tvm_strbuf_init(&enc);
  assert_int_equal(tvm_host_program_encode(p, &enc), TVM_OK);
  size_t used = 0;
  assert_int_equal(tvm_host_program_decode((const unsigned char *)enc.data, enc.len,
                                           a, &used, &q), TVM_OK);
  assert_int_equal(used, enc.len);
  tvm_strbuf b2;
  tvm_strbuf_init(&b2);
  tvm_host_program_print(&b2, q);
  assert_string_equal(b.data, b2.data);
  /* truncated: refused */
  assert_int_equal(tvm_host_program_decode((const unsigned char *)enc.data, enc.len - 3,
                                           a, &used, &q), TVM_ERR_INVALID);
  tvm_strbuf_free(&b);
  tvm_strbuf_free(&b2);
  tvm_strbuf_free(&enc);

  tvm_module m2 = {c, NULL, 0};
  lower_two_launches(c, &m2, &host, 1);
  assert_int_equal(tvm_host_program_build(host, &m2, a, &p), TVM_ERR_UNSUPPORTED);
  const char *msg = tvm_diag_message();
  assert_non_null(strstr(msg, "main_kernel0 grid.x `n`"));
  assert_non_null(strstr(msg, "cannot be evaluated at compile time"));
  tvm_arena_destroy(a);
  tvm_ctx_destroy(c);
}

/* A buffer passed between two kernels is a host-level allocation: the
 * host program allocates it on the device (a temporary) and passes it to
 * both launches. */
static void test_host_program_temps(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_arena *a = tvm_arena_create();
  tvm_expr *sh[1] = {tvm_int(c, 64)};
  tvm_buffer *ba = tvm_buffer_new(c, "A", TVM_F32, sh, 1, "global");
  tvm_buffer *bb = tvm_buffer_new(c, "B", TVM_F32, sh, 1, "global");
  tvm_expr *T = tvm_var(c, "T", TVM_HANDLE), *tx = tvm_var(c, "tx", TVM_I32);
  tvm_stmt *k0 = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 64), TVM_FOR_THREAD, "threadIdx.x",
      tvm_store(c, T, tx, tvm_load(c, TVM_F32, ba->data, tx, NULL), NULL));
  tvm_stmt *k1 = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 64), TVM_FOR_THREAD, "threadIdx.x",
      tvm_store(c, bb->data, tx, tvm_load(c, TVM_F32, T, tx, NULL), NULL));
  tvm_stmt *body = tvm_allocate(c, T, TVM_F32, tvm_int(c, 64), "global",
                                tvm_seq2(c, k0, k1));
  tvm_expr *params[2] = {ba->data, bb->data};
  tvm_buffer *bufs[2] = {ba, bb};
  tvm_func *f = tvm_func_new(c, "two", params, bufs, 2, body), *host;
  tvm_module m = {c, NULL, 0};
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  o.has_threads = 1;
  assert_int_equal(tvm_pass_split_host_device(c, f, &o, &m, &host), TVM_OK);
  tvm_host_program *p = NULL;
  assert_int_equal(tvm_host_program_build(host, &m, a, &p), TVM_OK);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_host_program_print(&b, p);
  expect_text(b.data,
              "host two (2 params, 1 temps: 256 bytes)\n"
              "  launch two_kernel0 grid(1, 1, 1) block(64, 1, 1) shared 0 (t0, p0)\n"
              "  launch two_kernel1 grid(1, 1, 1) block(64, 1, 1) shared 0 (p1, t0)\n");
  tvm_strbuf_free(&b);
  tvm_arena_destroy(a);
  tvm_ctx_destroy(c);
}

/* The evaluator: integer arithmetic with floor semantics, bound
 * variables, select, let; refuses unbound variables and loads. */
static void test_eval_int(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *x = tvm_var(c, "x", TVM_I32), *y = tvm_var(c, "y", TVM_I32);
  int64_t xv = -7, v;
  tvm_ptrmap env = {0};
  assert_int_equal(tvm_ptrmap_put(&env, x, &xv), TVM_OK);
  assert_true(tvm_lower_eval_int(tvm_floordiv(c, x, tvm_int(c, 2)), &env, &v));
  assert_int_equal(v, -4);
  assert_true(tvm_lower_eval_int(tvm_floormod(c, x, tvm_int(c, 2)), &env, &v));
  assert_int_equal(v, 1);
  assert_true(tvm_lower_eval_int(
      tvm_select(c, tvm_lt(c, x, tvm_int(c, 0)), tvm_int(c, 5), tvm_int(c, 6)), &env, &v));
  assert_int_equal(v, 5);
  assert_true(tvm_lower_eval_int(
      tvm_let(c, y, tvm_mul(c, x, tvm_int(c, 3)), tvm_add(c, y, tvm_int(c, 1))), &env, &v));
  assert_int_equal(v, -20);
  assert_false(tvm_lower_eval_int(tvm_add(c, y, tvm_int(c, 1)), &env, &v));
  assert_false(tvm_lower_eval_int(tvm_div(c, x, tvm_int(c, 0)), &env, &v));
  assert_false(tvm_lower_eval_int(
      tvm_load(c, TVM_I32, tvm_var(c, "P", TVM_HANDLE), x, NULL), &env, &v));
  tvm_ptrmap_free(&env);
  tvm_ctx_destroy(c);
}

/* ---- target passes in the pipeline table ---------------------------------- */

static int ran_after_unroll, ran_after_mark;

/* A target pass: wraps the body in attr "marked" (and counts). */
static int32_t mark_pass(struct tvm_plugin_target *t, tvm_ctx *c,
                         const tvm_func *f, tvm_func **out) {
  (void)t;
  tvm_func *g = tvm_ctx_alloc(c, sizeof *g);
  if (!g) return TVM_ERR_NOMEM;
  *g = *f;
  g->body = tvm_attr(c, "marked", NULL, tvm_int(c, 1), f->body);
  ran_after_unroll++;
  *out = g;
  return 0;
}

/* A second pass inserted after the first: sees its mark. */
static int32_t check_pass(struct tvm_plugin_target *t, tvm_ctx *c,
                          const tvm_func *f, tvm_func **out) {
  (void)t, (void)c;
  if (f->body->kind == TVM_ATTR && !strcmp(f->body->u.attr.key, "marked"))
    ran_after_mark++;
  *out = (tvm_func *)f;
  return 0;
}

/* Dump hook: records the pass order. */
static void order_hook(void *ud, const char *pass, const tvm_func *f) {
  (void)f;
  tvm_strbuf_printf(ud, "%s ", pass);
}

static void test_target_passes(void **state) {
  fixture *f = *state;
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){8}, 1);
  tvm_tensor *B = tvm_compute(f->c, "B", (int64_t[]){8}, 1, add_one, A);
  tvm_schedule *s = sched(f, B);
  static const tvm_lower_pass passes[] = {
      {sizeof(tvm_lower_pass), 0, "unroll", "mark", mark_pass},
      {sizeof(tvm_lower_pass), 0, "mark", "check_mark", check_pass},
  };
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  o.extra_passes = passes;
  o.nextra_passes = 2;
  tvm_strbuf order;
  tvm_strbuf_init(&order);
  o.dump_pass = "all";
  o.dump = order_hook;
  o.dump_ud = &order;
  assert_true(tvm_lower_has_pass(&o, "check_mark"));
  assert_false(tvm_lower_has_pass(&o, "nope"));
  tvm_module m = {f->c, NULL, 0};
  tvm_tensor *args[2] = {A, B};
  ran_after_unroll = ran_after_mark = 0;
  if (tvm_lower(s, args, 2, "k", &o, &m) != TVM_OK) fail_msg("%s", tvm_diag_message());
  assert_int_equal(ran_after_unroll, 1);
  assert_int_equal(ran_after_mark, 1);
  expect_text(order.data,
              "schedule_ops storage_flatten vectorize unroll mark check_mark "
              "hoist_guards inject_virtual_thread inject_double_buffer storage_rewrite check_scope_capacity simplify ");
  tvm_strbuf_free(&order);
  /* a point that is no pass: refused, naming the valid ones */
  static const tvm_lower_pass bad[] = {
      {sizeof(tvm_lower_pass), 0, "unrol", "mark", mark_pass}};
  o.extra_passes = bad;
  o.nextra_passes = 1;
  o.dump = NULL;
  assert_int_equal(tvm_lower(s, args, 2, "k2", &o, &m), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "runs after 'unrol', which is no pass"));
  assert_non_null(strstr(tvm_diag_message(), "storage_flatten, vectorize, unroll"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_capacity),
      cmocka_unit_test_setup_teardown(test_capacity_through_lower, setup, teardown),
      cmocka_unit_test(test_barrier_under_thread_condition),
      cmocka_unit_test(test_launch_verify),
      cmocka_unit_test(test_host_program),
      cmocka_unit_test(test_host_program_temps),
      cmocka_unit_test(test_eval_int),
      cmocka_unit_test_setup_teardown(test_target_passes, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
