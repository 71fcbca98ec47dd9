/*
 * tests/unit/lower/test_lower.c - bound inference on its own (ranges of
 * root, split and fused axes; thread-bound loops relaxed for shared but
 * not local storage), the options and scope lookup, storage_flatten's
 * coproc scopes and errors, and the whole tvm_lower pipeline (pass order
 * seen through the dump hook, the final function).
 */
#include "lower_test.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../te/examples.h"

static tvm_expr *times2(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  return tvm_mul(c, TVM_AT(c, A, i[0]), tvm_f32(c, 2.0));
}

/* "[min, extent]" of iv in ranges (heap). */
static char *range_text(const tvm_ptrmap *ranges, tvm_iter_var *iv) {
  void *v = NULL;
  assert_true(tvm_ptrmap_get(ranges, iv, &v));
  tvm_range *r = v;
  char *a = tvm_expr_str(r->min), *b = tvm_expr_str(r->extent);
  tvm_strbuf s;
  tvm_strbuf_init(&s);
  tvm_strbuf_printf(&s, "[%s, %s]", a, b);
  tvm_free(a);
  tvm_free(b);
  return tvm_strbuf_take(&s);
}

static void expect_range(const tvm_ptrmap *ranges, tvm_iter_var *iv,
                         const char *want) {
  char *got = range_text(ranges, iv);
  expect_text(got, want);
  tvm_free(got);
}

static void test_bound_split_fuse(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 10, 12, 16, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *i = tvm_stage_axis(st, 0), *j = tvm_stage_axis(st, 1);
  tvm_iter_var *io, *ii, *fused, *ko, *ki;
  assert_int_equal(tvm_split(st, i, 4, &io, &ii), TVM_OK);
  assert_int_equal(tvm_reorder(st, (tvm_iter_var *[]){ii, io, j}, 3), TVM_OK);
  assert_int_equal(tvm_fuse(st, io, j, &fused), TVM_OK);
  assert_int_equal(tvm_split_nparts(st, tvm_stage_reduce_axis(st, 0), 3, &ko,
                                    &ki),
                   TVM_OK);
  tvm_ptrmap ranges = {0};
  assert_int_equal(tvm_infer_bound(s, &ranges), TVM_OK);
  expect_range(&ranges, i, "[0, 10]");
  expect_range(&ranges, io, "[0, 3]");
  expect_range(&ranges, ii, "[0, 4]");
  expect_range(&ranges, fused, "[0, 36]");
  expect_range(&ranges, ko, "[0, 3]");
  expect_range(&ranges, ki, "[0, 6]");
  tvm_ptrmap_free(&ranges);
}

/* C[64] = A[64] * 2 on 4 blocks of 16 threads, A staged in `scope` per
 * thread: shared storage covers the block's 16 elements, local storage
 * one element. */
static void gpu_stage(fixture *f, const char *scope, const char *want) {
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){64}, 1);
  tvm_tensor *C = tvm_compute(f->c, "C", (int64_t[]){64}, 1, times2, A);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_tensor *AS;
  tvm_operation *rd[1] = {st->op};
  assert_int_equal(tvm_cache_read(s, A, scope, rd, 1, &AS), TVM_OK);
  tvm_iter_var *bx, *tx;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 16, &bx, &tx), TVM_OK);
  assert_int_equal(tvm_bind(st, bx, tvm_thread_axis(f->c, "blockIdx.x", NULL)),
                   TVM_OK);
  assert_int_equal(tvm_bind(st, tx, tvm_thread_axis(f->c, "threadIdx.x", NULL)),
                   TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, AS), st, tx), TVM_OK);
  expect_ops(s, want);
}

static void test_bound_thread_shared(void **state) {
  gpu_stage(*state, "shared",
            "realize C([0, 64]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 4) thread(blockIdx.x) {\n"
            "    for (i.inner, 0, 16) thread(threadIdx.x) {\n"
            "      realize A.shared([i.outer * 16, 16]) scope=shared {\n"
            "        // attr produce = \"A.shared\"\n"
            "        for (i, 0, 16) {\n"
            "          A.shared(i + i.outer * 16) = A(i + i.outer * 16)\n"
            "        }\n"
            "        C(i.outer * 16 + i.inner) = A.shared(i.outer * 16 + i.inner) * 2.0f\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

static void test_bound_thread_local(void **state) {
  gpu_stage(*state, "local",
            "realize C([0, 64]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 4) thread(blockIdx.x) {\n"
            "    for (i.inner, 0, 16) thread(threadIdx.x) {\n"
            "      realize A.local([i.outer * 16 + i.inner, 1]) scope=local {\n"
            "        // attr produce = \"A.local\"\n"
            "        for (i, 0, 1) {\n"
            "          A.local(i + i.outer * 16 + i.inner) = A(i + i.outer * 16 + i.inner)\n"
            "        }\n"
            "        C(i.outer * 16 + i.inner) = A.local(i.outer * 16 + i.inner) * 2.0f\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* The GPU matmul: 16x16 thread blocks, A and B tiles staged in shared
 * memory per ktile-wide reduction step, each thread fetching one element
 * of each tile (the stage's thread loops reuse the enclosing ones). */
static tvm_schedule *gpu_matmul(fixture *f, int64_t ktile) {
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 64, 64, 64, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *sc = tvm_stage_of(s, C);
  tvm_operation *rd[1] = {sc->op};
  tvm_tensor *AS, *BS;
  assert_int_equal(tvm_cache_read(s, in[0], "shared", rd, 1, &AS), TVM_OK);
  assert_int_equal(tvm_cache_read(s, in[1], "shared", rd, 1, &BS), TVM_OK);
  tvm_iter_var *by, *bx, *ty, *tx, *ko, *ki;
  assert_int_equal(tvm_tile(sc, tvm_stage_axis(sc, 0), tvm_stage_axis(sc, 1),
                            16, 16, &by, &bx, &ty, &tx),
                   TVM_OK);
  assert_int_equal(tvm_split(sc, tvm_stage_reduce_axis(sc, 0), ktile, &ko, &ki),
                   TVM_OK);
  tvm_iter_var *t_by = tvm_thread_axis(f->c, "blockIdx.y", NULL);
  tvm_iter_var *t_bx = tvm_thread_axis(f->c, "blockIdx.x", NULL);
  tvm_iter_var *t_ty = tvm_thread_axis(f->c, "threadIdx.y", NULL);
  tvm_iter_var *t_tx = tvm_thread_axis(f->c, "threadIdx.x", NULL);
  assert_int_equal(tvm_bind(sc, by, t_by), TVM_OK);
  assert_int_equal(tvm_bind(sc, bx, t_bx), TVM_OK);
  assert_int_equal(tvm_bind(sc, ty, t_ty), TVM_OK);
  assert_int_equal(tvm_bind(sc, tx, t_tx), TVM_OK);
  tvm_stage *sa = tvm_stage_of(s, AS), *sb = tvm_stage_of(s, BS);
  assert_int_equal(tvm_compute_at(sa, sc, ko), TVM_OK);
  assert_int_equal(tvm_compute_at(sb, sc, ko), TVM_OK);
  assert_int_equal(tvm_bind(sa, tvm_stage_axis(sa, 0), t_ty), TVM_OK);
  assert_int_equal(tvm_bind(sa, tvm_stage_axis(sa, 1), t_tx), TVM_OK);
  assert_int_equal(tvm_bind(sb, tvm_stage_axis(sb, 0), t_ty), TVM_OK);
  assert_int_equal(tvm_bind(sb, tvm_stage_axis(sb, 1), t_tx), TVM_OK);
  return s;
}

static void test_gpu_matmul(void **state) {
  fixture *f = *state;
  tvm_schedule *s = gpu_matmul(f, 16);
  expect_ops(s,
            "realize C([0, 64], [0, 64]) scope=global {\n"
            "  // attr produce = \"C\"\n"
            "  for (i.outer, 0, 4) thread(blockIdx.y) {\n"
            "    for (j.outer, 0, 4) thread(blockIdx.x) {\n"
            "      for (i.inner, 0, 16) thread(threadIdx.y) {\n"
            "        for (j.inner, 0, 16) thread(threadIdx.x) {\n"
            "          C(i.outer * 16 + i.inner, j.outer * 16 + j.inner) = 0.0f\n"
            "          for (k.outer, 0, 4) {\n"
            "            realize A.shared([i.outer * 16, 16], [k.outer * 16, 16]) scope=shared {\n"
            "              // attr produce = \"A.shared\"\n"
            "              A.shared(i.inner + i.outer * 16, j.inner + k.outer * 16) = A(i.inner + i.outer * 16, j.inner + k.outer * 16)\n"
            "              realize B.shared([k.outer * 16, 16], [j.outer * 16, 16]) scope=shared {\n"
            "                // attr produce = \"B.shared\"\n"
            "                B.shared(i.inner + k.outer * 16, j.inner + j.outer * 16) = B(i.inner + k.outer * 16, j.inner + j.outer * 16)\n"
            "                for (k.inner, 0, 16) {\n"
            "                  C(i.outer * 16 + i.inner, j.outer * 16 + j.inner) = C(i.outer * 16 + i.inner, j.outer * 16 + j.inner) + A.shared(i.outer * 16 + i.inner, k.outer * 16 + k.inner) * B.shared(k.outer * 16 + k.inner, j.outer * 16 + j.inner)\n"
            "                }\n"
            "              }\n"
            "            }\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

/* Binding 64 iterations to 32 threads would drop half of them. */
static void test_bound_thread_too_small(void **state) {
  fixture *f = *state;
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){64}, 1);
  tvm_tensor *C = tvm_compute(f->c, "C", (int64_t[]){64}, 1, times2, A);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  assert_int_equal(tvm_bind(st, tvm_stage_axis(st, 0),
                            tvm_thread_axis(f->c, "threadIdx.x",
                                            tvm_int(f->c, 32))),
                   TVM_OK);
  tvm_ptrmap ranges = {0};
  assert_int_equal(tvm_infer_bound(s, &ranges), TVM_ERR_INVALID);
  tvm_ptrmap_free(&ranges);
  assert_non_null(strstr(tvm_diag_message(), "split the axis by 32 first"));
}

/* A 16x32 tile cannot be fetched by 16x16 threads one element each. */
static void test_gpu_fetch_too_wide(void **state) {
  fixture *f = *state;
  tvm_schedule *s = gpu_matmul(f, 32);
  tvm_ptrmap ranges = {0};
  tvm_stmt *body = NULL;
  assert_int_equal(tvm_infer_bound(s, &ranges), TVM_OK);
  assert_int_equal(tvm_schedule_ops(s, &ranges, &body), TVM_ERR_INVALID);
  tvm_ptrmap_free(&ranges);
  const char *msg = tvm_diag_message();
  if (!strstr(msg, "split the axis by 16 and bind the inner part"))
    print_message("diagnostic: %s\n", msg);
  assert_non_null(strstr(msg, "split the axis by 16 and bind the inner part"));
}

/* A gather (C[i] = B[int(A[i])]) reads B at unknown places: B staged per
 * element of C still covers all of B. */
static tvm_expr *gather(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* A (indices as floats), B */
  return TVM_AT(c, in[1], tvm_cast(c, TVM_I32, TVM_AT(c, in[0], i[0])));
}

static void test_bound_gather(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2] = {
      tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){4}, 1),
      tvm_placeholder(f->c, "B", TVM_F32, (int64_t[]){10}, 1)};
  tvm_tensor *C = tvm_compute(f->c, "C", (int64_t[]){4}, 1, gather, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *sc = tvm_stage_of(s, C);
  tvm_tensor *BL;
  tvm_operation *rd[1] = {sc->op};
  assert_int_equal(tvm_cache_read(s, in[1], "local", rd, 1, &BL), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, BL), sc,
                                  tvm_stage_axis(sc, 0)),
                   TVM_OK);
  tvm_ptrmap ranges = {0};
  assert_int_equal(tvm_infer_bound(s, &ranges), TVM_OK);
  expect_range(&ranges, tvm_stage_axis(tvm_stage_of(s, BL), 0), "[0, 10]");
  tvm_ptrmap_free(&ranges);
}

static void test_options(void **state) {
  (void)state;
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  assert_int_equal(o.vector_bits, 256);
  assert_int_equal(o.unroll_max_extent, 16);
  assert_int_equal(o.has_threads, 0);
  assert_int_equal(o.num_queues, 0);
  assert_null(o.dump);
  const tvm_scope_info *g = tvm_lower_find_scope(&o, "global");
  assert_non_null(g);
  assert_int_equal(g->queue, -1);
  assert_non_null(tvm_lower_find_scope(&o, "local"));
  assert_null(tvm_lower_find_scope(&o, "shared"));
  tvm_scope_info mine[2] = {{"inp_buffer", TVM_VIS_DEVICE, 32768, 16, 1},
                            {"local", TVM_VIS_THREAD, 1024, 0, -1}};
  o.scopes = mine;
  o.nscopes = 2;
  assert_ptr_equal(tvm_lower_find_scope(&o, "inp_buffer"), &mine[0]);
  /* the target's own declaration wins over the built-in one */
  assert_ptr_equal(tvm_lower_find_scope(&o, "local"), &mine[1]);
  const char *const *names = tvm_lower_pass_names();
  assert_string_equal(names[0], "schedule_ops");
  assert_string_equal(names[1], "storage_flatten");
  int n = 0;
  while (names[n])
    n++;
  assert_int_equal(n, 13);
  assert_string_equal(names[4], "hoist_guards");
  assert_string_equal(names[6], "inject_double_buffer");
  assert_string_equal(names[9], "check_scope_capacity");
  assert_string_equal(names[12], "simplify");
}

/* A staged into a scope filled by hardware queue 1: its producing nest
 * runs under coproc_scope = 1 after storage_flatten. */
static void test_flatten_coproc_scope(void **state) {
  fixture *f = *state;
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){16}, 1);
  tvm_tensor *C = tvm_compute(f->c, "C", (int64_t[]){16}, 1, times2, A);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_tensor *AI;
  tvm_operation *rd[1] = {st->op};
  assert_int_equal(tvm_cache_read(s, A, "inp_buffer", rd, 1, &AI), TVM_OK);
  tvm_iter_var *o, *i;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 8, &o, &i), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, AI), st, o), TVM_OK);
  tvm_lower_options opt;
  tvm_lower_options_init(&opt);
  tvm_scope_info inp = {"inp_buffer", TVM_VIS_DEVICE, 1024, 16, 1};
  opt.scopes = &inp;
  opt.nscopes = 1;
  opt.num_queues = 3;
  tvm_status rc;
  tvm_func *fn = flat_func(s, (tvm_tensor *[]){A, C}, 2, &opt, &rc);
  assert_int_equal(rc, TVM_OK);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_func(&b, fn);
  expect_text(b.data,
            "func f(A: float32[16], C: float32[16]) {\n"
            "  for (i.outer, 0, 2) {\n"
            "    allocate A.inp_buffer[float32 * 8] scope=inp_buffer align=16\n"
            "    // attr coproc_scope = 1\n"
            "    for (i, 0, 8) {\n"
            "      A.inp_buffer[i] = A[i + i.outer * 8]\n"
            "    }\n"
            "    for (i.inner, 0, 8) {\n"
            "      C[i.outer * 8 + i.inner] = A.inp_buffer[i.inner] * 2.0f\n"
            "    }\n"
            "  }\n"
            "}\n");
  tvm_strbuf_free(&b);
}

/* A tensor read but missing from the arguments is an error that names it. */
static void test_flatten_missing_arg(void **state) {
  fixture *f = *state;
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){16}, 1);
  tvm_tensor *C = tvm_compute(f->c, "C", (int64_t[]){16}, 1, times2, A);
  tvm_schedule *s = sched(f, C);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_status rc;
  flat_func(s, (tvm_tensor *[]){C}, 1, &o, &rc);
  assert_int_equal(rc, TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "tensor A is read"));
}

typedef struct dump_log {
  tvm_strbuf names;
  char *after_flatten;
} dump_log;

static void dump_hook(void *ud, const char *pass, const tvm_func *fn) {
  dump_log *d = ud;
  tvm_strbuf_printf(&d->names, "%s ", pass);
  if (strcmp(pass, "storage_flatten") == 0) {
    tvm_strbuf b;
    tvm_strbuf_init(&b);
    tvm_print_func(&b, fn);
    d->after_flatten = tvm_strbuf_take(&b);
  }
}

static void test_lower_pipeline(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 8, 8, 8, in);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *jo, *ji;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 1), 4, &jo, &ji), TVM_OK);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  dump_log d;
  memset(&d, 0, sizeof(d));
  tvm_strbuf_init(&d.names);
  o.dump_pass = "all";
  o.dump = dump_hook;
  o.dump_ud = &d;
  tvm_module m = {f->c, NULL, 0};
  tvm_status rc = tvm_lower(s, (tvm_tensor *[]){in[0], in[1], C}, 3, "mm", &o, &m);
  if (rc != TVM_OK)
    print_message("%s\n", tvm_diag_message());
  assert_int_equal(rc, TVM_OK);
  assert_int_equal(m.nfuncs, 1);
  expect_text(d.names.data, "schedule_ops storage_flatten vectorize unroll "
                            "hoist_guards inject_virtual_thread inject_double_buffer storage_rewrite check_scope_capacity simplify ");
  expect_text(d.after_flatten,
            "func mm(A: float32[8, 8], B: float32[8, 8], C: float32[8, 8]) {\n"
            "  for (i, 0, 8) {\n"
            "    for (j.outer, 0, 2) {\n"
            "      for (j.inner, 0, 4) {\n"
            "        C[i * 8 + j.outer * 4 + j.inner] = 0.0f\n"
            "        for (k, 0, 8) {\n"
            "          C[i * 8 + j.outer * 4 + j.inner] = C[i * 8 + j.outer * 4 + j.inner] + A[i * 8 + k] * B[k * 8 + j.outer * 4 + j.inner]\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_func(&b, m.funcs[0]);
  expect_text(b.data,
            "func mm(A: float32[8, 8], B: float32[8, 8], C: float32[8, 8]) {\n"
            "  for (i, 0, 8) {\n"
            "    for (j.outer, 0, 2) {\n"
            "      for (j.inner, 0, 4) {\n"
            "        C[i * 8 + j.outer * 4 + j.inner] = 0.0f\n"
            "        for (k, 0, 8) {\n"
            "          C[i * 8 + j.outer * 4 + j.inner] = C[i * 8 + j.outer * 4 + j.inner] + A[i * 8 + k] * B[k * 8 + j.outer * 4 + j.inner]\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  tvm_strbuf_free(&b);
  tvm_strbuf_free(&d.names);
  tvm_free(d.after_flatten);
}

/* Only the pass named in dump_pass is dumped. */
static void test_lower_dump_one(void **state) {
  fixture *f = *state;
  tvm_tensor *in[2];
  tvm_tensor *C = example_matmul(f->c, 8, 8, 8, in);
  tvm_schedule *s = sched(f, C);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  dump_log d;
  memset(&d, 0, sizeof(d));
  tvm_strbuf_init(&d.names);
  o.dump_pass = "storage_flatten";
  o.dump = dump_hook;
  o.dump_ud = &d;
  tvm_module m = {f->c, NULL, 0};
  assert_int_equal(
      tvm_lower(s, (tvm_tensor *[]){in[0], in[1], C}, 3, "mm", &o, &m), TVM_OK);
  expect_text(d.names.data, "storage_flatten ");
  tvm_strbuf_free(&d.names);
  tvm_free(d.after_flatten);
}

/* Thread bindings on a target without threads are refused by name. */
static void test_lower_threads_unsupported(void **state) {
  fixture *f = *state;
  tvm_tensor *A = tvm_placeholder(f->c, "A", TVM_F32, (int64_t[]){64}, 1);
  tvm_tensor *C = tvm_compute(f->c, "C", (int64_t[]){64}, 1, times2, A);
  tvm_schedule *s = sched(f, C);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *bx, *tx;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 16, &bx, &tx), TVM_OK);
  assert_int_equal(tvm_bind(st, tx, tvm_thread_axis(f->c, "threadIdx.x", NULL)),
                   TVM_OK);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_module m = {f->c, NULL, 0};
  assert_int_equal(tvm_lower(s, (tvm_tensor *[]){A, C}, 2, "k", &o, &m),
                   TVM_ERR_INVALID);
  assert_int_equal(m.nfuncs, 0);
  const char *msg = tvm_diag_message();
  if (!strstr(msg, "bound to threadIdx.x, but the target has no thread axes"))
    print_message("diagnostic: %s\n", msg);
  assert_non_null(
      strstr(msg, "bound to threadIdx.x, but the target has no thread axes"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_bound_split_fuse, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bound_thread_shared, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bound_thread_local, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gpu_matmul, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gpu_fetch_too_wide, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bound_thread_too_small, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_bound_gather, setup, teardown),
      cmocka_unit_test(test_options),
      cmocka_unit_test_setup_teardown(test_flatten_coproc_scope, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_flatten_missing_arg, setup, teardown),
      cmocka_unit_test_setup_teardown(test_lower_pipeline, setup, teardown),
      cmocka_unit_test_setup_teardown(test_lower_dump_one, setup, teardown),
      cmocka_unit_test_setup_teardown(test_lower_threads_unsupported, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
