/*
 * tests/plugins/mock_accel/test_mock_accel.c - lowering a matmul for the
 * mock decoupled access-execute accelerator (mock_accel.c, linked in and
 * queried through tvm_plugin_query): inputs cached in inp_buf (filled by
 * the load queue), accumulation in acc_buf (compute queue), the inner
 * 4x4x4 tensorized into mock_gemm, and a virtual thread of 2.  Checks on
 * the lowered IR: every access to inp_buf / acc_buf sits in the queue of
 * its scope, the intrinsic is called and no scalar multiply is left, and
 * the dependency tokens balance and order all cross-queue accesses
 * (pass_check.c runs the program, with mock_gemm interpreted, and compares
 * C with a naive matmul).  MOCK_DUMP=1 prints the lowered function.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/plugin.h"
#include "../../unit/lower/pass_check.h"

/* The plugin's entry point, linked into this test (mock_accel.c). */
const tvm_plugin_desc *tvm_plugin_query(uint32_t host_abi_max,
                                        const tvm_host_api *host);

#define M 8
#define N 4
#define K 8

static char reported[512];

static void report(int32_t st, const char *msg) {
  (void)st;
  snprintf(reported, sizeof reported, "%s", msg);
}
static void logmsg(int32_t level, const char *msg) {
  (void)level;
  (void)msg;
}
static void *halloc(uint64_t n) { return malloc(n); }
static void hfree(void *p) { free(p); }

static const tvm_host_api host_api = {
    sizeof(tvm_host_api), TVM_PLUGIN_ABI_VERSION, report, logmsg, halloc,
    hfree, NULL, 1, 0, NULL, NULL};

static tvm_expr *matmul_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, K);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])),
                 &k, 1);
}

typedef struct lowered {
  tvm_ctx *c;
  tvm_schedule *s;
  tvm_module m;
  tvm_tensor *A, *B, *C;
  tvm_plugin_target *t;
  const tvm_plugin_vtable *vt;
  tvm_scope_info scopes[8];
  tvm_lower_options o;
} lowered;

/* The lowering options of the plugin's target. */
static void options_from(lowered *L, const tvm_plugin_target_info *info) {
  tvm_lower_options_init(&L->o);
  L->o.vector_bits = (int)info->vector_bits;
  L->o.has_threads = (int)info->has_threads;
  L->o.num_queues = (int)info->num_queues;
  assert_true(info->nscopes <= 8);
  for (uint32_t i = 0; i < info->nscopes; i++)
    L->scopes[i] = (tvm_scope_info){info->scopes[i].name,
                                    info->scopes[i].visibility,
                                    info->scopes[i].size_bytes,
                                    info->scopes[i].align,
                                    info->scopes[i].queue};
  L->o.scopes = L->scopes;
  L->o.nscopes = (int)info->nscopes;
}

static int lower_it(void **state) {
  lowered *L = calloc(1, sizeof *L);
  tvm_ctx *c;
  *state = L;
  const tvm_plugin_desc *d = tvm_plugin_query(TVM_PLUGIN_ABI_VERSION, &host_api);
  assert_non_null(d);
  assert_string_equal(d->name, "mock_accel");
  L->vt = d->vtable;
  assert_int_equal(L->vt->target_create(NULL, 0, &L->t), TVM_OK);
  const tvm_plugin_target_info *info = L->vt->target_info(L->t);
  assert_int_equal(info->num_queues, 2);
  assert_string_equal(info->queue_names[0], "load");
  options_from(L, info);

  c = L->c = tvm_ctx_create();
  L->m.ctx = c;
  tvm_tensor_intrin *gemm = NULL;
  assert_int_equal(info->intrins[0].declare(L->t, c, &gemm), TVM_OK);
  assert_string_equal(gemm->name, "mock_gemm_4x4");

  tvm_tensor *in[2];
  in[0] = L->A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){M, K}, 2);
  in[1] = L->B = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){K, N}, 2);
  L->C = tvm_compute(c, "C", (int64_t[]){M, N}, 2, matmul_body, in);
  assert_int_equal(tvm_schedule_create(c, &L->C, 1, &L->s), TVM_OK);
  tvm_schedule *s = L->s;

  /* C.acc_buf accumulates; C copies it out */
  tvm_tensor *CL, *AL, *BL;
  assert_int_equal(tvm_cache_write(s, L->C, "acc_buf", &CL), TVM_OK);
  tvm_stage *sc = tvm_stage_of(s, L->C), *scl = tvm_stage_of(s, CL);
  tvm_operation *readers[1] = {scl->op};
  assert_int_equal(tvm_cache_read(s, L->A, "inp_buf", readers, 1, &AL), TVM_OK);
  readers[0] = tvm_stage_of(s, CL)->op;
  assert_int_equal(tvm_cache_read(s, L->B, "inp_buf", readers, 1, &BL), TVM_OK);
  scl = tvm_stage_of(s, CL);

  /* C: i -> (io: vthread 2, ii 4); CL computed per vthread tile */
  tvm_iter_var *io, *ii, *vt = tvm_thread_axis(c, "vthread", NULL);
  assert_int_equal(tvm_split(sc, tvm_stage_axis(sc, 0), 4, &io, &ii), TVM_OK);
  assert_int_equal(tvm_bind(sc, io, vt), TVM_OK);
  assert_int_equal(tvm_compute_at(scl, sc, io), TVM_OK);

  /* CL: k -> (ko, ki 4), order ko, i, j, ki; tensorize i (4x4x4) */
  tvm_iter_var *ko, *ki;
  tvm_iter_var *ci = tvm_stage_axis(scl, 0), *cj = tvm_stage_axis(scl, 1);
  assert_int_equal(tvm_split(scl, tvm_stage_reduce_axis(scl, 0), 4, &ko, &ki),
                   TVM_OK);
  assert_int_equal(tvm_reorder(scl, (tvm_iter_var *[]){ko, ci, cj, ki}, 4),
                   TVM_OK);
  assert_int_equal(tvm_tensorize(scl, ci, gemm), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, AL), scl, ko), TVM_OK);
  assert_int_equal(tvm_compute_at(tvm_stage_of(s, BL), scl, ko), TVM_OK);

  tvm_tensor *args[3] = {L->A, L->B, L->C};
  if (tvm_lower(s, args, 3, "mm", &L->o, &L->m) != TVM_OK)
    fail_msg("lowering failed: %s", tvm_diag_message());
  assert_int_equal(L->m.nfuncs, 1);
  if (getenv("MOCK_DUMP")) {
    char *t = tvm_stmt_str(L->m.funcs[0]->body);
    printf("%s", t);
    tvm_free(t);
  }
  return 0;
}

static int cleanup(void **state) {
  lowered *L = *state;
  if (!L) return 0;
  if (L->t) L->vt->target_destroy(L->t);
  tvm_schedule_free(L->s);
  tvm_ctx_destroy(L->c);
  free(L);
  return 0;
}

/* ---- where accesses run -------------------------------------------------- */

typedef struct qwalk {
  lowered *L;
  tvm_ptrvec bufs;   /* buffer vars of queued scopes */
  int queue_of[64];  /* their queues */
  int cur;           /* enclosing coproc_scope, -1 host */
  int bad;
  char msg[256];
  int gemm_calls, reset_calls, float_muls, cache_loads;
} qwalk;

static int buf_queue(qwalk *w, const tvm_expr *b) {
  for (size_t i = 0; i < w->bufs.len; i++)
    if (w->bufs.data[i] == b) return w->queue_of[i];
  return -2;
}

/* A buffer of a queued scope accessed (rw 1 read, 2 write) at the current
 * position: it must be on a queue, and written only by its own queue. */
static void check_access(qwalk *w, const tvm_expr *b, int rw) {
  int q = buf_queue(w, b);
  if (q < -1 || w->bad) return;
  if (w->cur < 0) {
    w->bad = 1;
    snprintf(w->msg, sizeof w->msg, "%s accessed outside any queue", b->u.var.name);
  } else if ((rw & 2) && w->cur != q) {
    w->bad = 1;
    snprintf(w->msg, sizeof w->msg, "%s (queue %d) written on queue %d",
             b->u.var.name, q, w->cur);
  }
}

static int qw_expr(tvm_visitor *v, const tvm_expr *e) {
  qwalk *w = v->data;
  int64_t rw;
  if (e->kind == TVM_LOAD) {
    check_access(w, e->u.load.buffer, 1);
    if (buf_queue(w, e->u.load.buffer) >= 0) w->cache_loads++;
  }
  if (e->kind == TVM_MUL && tvm_dtype_is_float(e->dtype)) w->float_muls++;
  if (e->kind == TVM_CALL) {
    if (e->u.call.op == TVM_INTRIN_ACCESS_PTR &&
        tvm_is_const_int(e->u.call.args[4], &rw)) {
      check_access(w, e->u.call.args[0], (int)rw);
      return 1; /* the buffer var argument is not a raw access */
    }
    if (e->u.call.op == TVM_INTRIN_EXTERN) {
      if (!strcmp(e->u.call.name, "mock_gemm")) w->gemm_calls++;
      if (!strcmp(e->u.call.name, "mock_gemm_reset")) w->reset_calls++;
    }
  }
  return 0;
}

static int qw_stmt(tvm_visitor *v, const tvm_stmt *s) {
  qwalk *w = v->data;
  int64_t q;
  if (s->kind == TVM_ALLOCATE) {
    const tvm_scope_info *si = tvm_lower_find_scope(&w->L->o, s->u.alloc.scope);
    if (si && si->queue >= 0 && w->bufs.len < 64) {
      w->queue_of[w->bufs.len] = si->queue;
      tvm_ptrvec_push(&w->bufs, s->u.alloc.buffer);
    }
  }
  if (s->kind == TVM_STORE) check_access(w, s->u.store.buffer, 2);
  if (s->kind == TVM_ATTR && !strcmp(s->u.attr.key, TVM_ATTR_COPROC_SCOPE) &&
      tvm_is_const_int(s->u.attr.value, &q)) {
    int saved = w->cur;
    w->cur = (int)q;
    tvm_visit_stmt_children(v, s);
    w->cur = saved;
    return 1;
  }
  return 0;
}

/* Every access to inp_buf / acc_buf runs on a queue, every write on the
 * queue of the buffer's scope; the tensorized region is mock_gemm calls. */
static void test_scopes_and_intrinsic(void **state) {
  lowered *L = *state;
  qwalk w = {L, {0}, {0}, -1, 0, "", 0, 0, 0, 0};
  tvm_visitor v = {qw_expr, qw_stmt, &w};
  tvm_visit_stmt(&v, L->m.funcs[0]->body);
  tvm_ptrvec_free(&w.bufs);
  if (w.bad) fail_msg("%s", w.msg);
  assert_int_equal(w.queue_of[0] >= 0, 1);
  /* one update (in the reduction loop) and one reset per virtual thread */
  assert_int_equal(w.gemm_calls, 2);
  assert_int_equal(w.reset_calls, 2);
  /* no multiply of data left, and the caches are only read by the
   * intrinsic (no scalar loads of inp_buf / acc_buf except the copy-out
   * of acc_buf: 2 threads) */
  assert_int_equal(w.float_muls, 0);
  assert_int_equal(w.cache_loads, 2);
}

/* ---- running it ----------------------------------------------------------- */

/* mock_gemm(c, a, b, ldc, lda, ldb) and mock_gemm_reset(c, ldc) on the
 * interpreter's buffers. */
static int mock_extern(pc_interp *p, const tvm_expr *e, void *ud) {
  (void)ud;
  double ld[3];
  int reset = !strcmp(e->u.call.name, "mock_gemm_reset");
  if (!reset && strcmp(e->u.call.name, "mock_gemm"))
    return pc_fail(p, "unknown extern %s", e->u.call.name);
  int nptr = reset ? 1 : 3;
  double *ptrs[3];
  for (int i = 0; i < nptr; i++) {
    ptrs[i] = pc_access_ptr(p, e->u.call.args[i], NULL);
    if (!ptrs[i] || pc_eval_scalar(p, e->u.call.args[nptr + i], &ld[i])) return -1;
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      double *cij = &ptrs[0][i * (int)ld[0] + j];
      if (reset) {
        *cij = 0;
        continue;
      }
      for (int k = 0; k < 4; k++)
        *cij = (double)(float)(*cij + (double)(float)(ptrs[1][i * (int)ld[1] + k] *
                                                       ptrs[2][k * (int)ld[2] + j]));
    }
  return 0;
}

/* Runs body on A, B and checks C against a naive matmul; 0 or -1 with
 * the checker's message in err. */
static int run_and_check(lowered *L, const tvm_stmt *body, char *err) {
  tvm_func *f = L->m.funcs[0];
  pc_interp *p = pc_new(2);
  double *a = pc_buffer(p, f->params[0], M * K);
  double *b = pc_buffer(p, f->params[1], K * N);
  double *cc = pc_buffer(p, f->params[2], M * N);
  int rc = 0;
  pc_set_extern(p, mock_extern, NULL);
  for (int i = 0; i < M * K; i++) a[i] = (i % 5) - 2;
  for (int i = 0; i < K * N; i++) b[i] = (i % 3) * 0.5;
  if (pc_run(p, body) || !pc_tokens_balanced(p)) {
    rc = -1;
  } else {
    for (int i = 0; i < M && !rc; i++)
      for (int j = 0; j < N && !rc; j++) {
        double ref = 0;
        for (int k = 0; k < K; k++) ref += a[i * K + k] * b[k * N + j];
        if (cc[i * N + j] != ref) {
          pc_fail(p, "C[%d, %d] = %g, expected %g", i, j, cc[i * N + j], ref);
          rc = -1;
        }
      }
  }
  if (rc == 0 && pc_token_ops(p) == 0) {
    pc_fail(p, "no dependency tokens executed");
    rc = -1;
  }
  strcpy(err, pc_error(p));
  pc_free(p);
  return rc;
}

static tvm_stmt *drop_tokens(tvm_mutator *m, tvm_stmt *s) {
  if (s->kind == TVM_EVALUATE && s->u.eval.value->kind == TVM_CALL &&
      (s->u.eval.value->u.call.op == TVM_INTRIN_DEP_PUSH ||
       s->u.eval.value->u.call.op == TVM_INTRIN_DEP_POP))
    return tvm_seq(m->ctx, NULL, 0);
  return NULL;
}

/* The tokens balance under the virtual threads, order every cross-queue
 * access pair, and the result is the matmul; without them the checker
 * finds the race. */
static void test_tokens_under_vthreads(void **state) {
  lowered *L = *state;
  char err[512];
  if (run_and_check(L, L->m.funcs[0]->body, err)) fail_msg("%s", err);
  tvm_mutator mu = {L->c, NULL, drop_tokens, NULL};
  tvm_stmt *bare = tvm_mutate_stmt(&mu, L->m.funcs[0]->body);
  assert_non_null(bare);
  assert_int_equal(run_and_check(L, bare, err), -1);
  assert_non_null(strstr(err, "race"));
}

/* Virtual thread 1's load is issued before thread 0's compute. */
static void test_loads_interleave(void **state) {
  lowered *L = *state;
  char *t = tvm_stmt_str(L->m.funcs[0]->body);
  const char *gemm0 = strstr(t, "mock_gemm(access_ptr(C.acc_buf, \"float32\", 0,");
  /* thread 1's copy of the A tile: its stores go 16 elements further */
  const char *l1 = strstr(t, " + 16] = A[");
  assert_non_null(gemm0);
  assert_non_null(l1);
  assert_true(l1 < gemm0);
  tvm_free(t);
}

/* The plugin's codegen hands back the printed module. */
static void test_codegen_blob(void **state) {
  lowered *L = *state;
  tvm_plugin_blob blob;
  assert_int_equal(L->vt->codegen(L->t, &L->m, &blob), TVM_OK);
  assert_int_equal(blob.format, TVM_BLOB_CUSTOM);
  assert_non_null(strstr((const char *)blob.data, "mock_gemm("));
  assert_non_null(strstr((const char *)blob.data, "dep_pop(0, 1)"));
  free(blob.data);
  assert_int_equal(L->vt->probe(L->t), TVM_ERR_UNAVAILABLE);
  assert_non_null(strstr(reported, "no device"));
}

/* The built module (make check sets TVM_BUILDDIR): it exports the entry
 * point, negotiates ABI 1 and 2, and declares the same target. */
static void test_loadable_module(void **state) {
  (void)state;
  const char *dir = getenv("TVM_BUILDDIR");
  char path[4096];
  if (!dir) {
    print_message("TVM_BUILDDIR not set (run through make check)\n");
    skip();
  }
  snprintf(path, sizeof path, "%s/tests/plugins/mock_accel/.libs/tvm-mock-accel.so", dir);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) fail_msg("dlopen %s: %s", path, dlerror());
  tvm_plugin_query_fn q = (tvm_plugin_query_fn)(uintptr_t)dlsym(h, TVM_PLUGIN_ENTRY);
  assert_non_null(q);
  const tvm_plugin_desc *d2 = q(TVM_PLUGIN_ABI_VERSION, &host_api);
  assert_non_null(d2);
  assert_int_equal(d2->abi_version, TVM_PLUGIN_ABI_VERSION);
  assert_int_equal(d2->vtable->struct_size, sizeof(tvm_plugin_vtable));
  const tvm_plugin_desc *d1 = q(1, &host_api);
  assert_int_equal(d1->abi_version, 1);
  assert_int_equal(d1->vtable->struct_size, TVM_PLUGIN_VTABLE_SIZE_V1);
  assert_null(q(0, &host_api));
  tvm_plugin_target *t;
  assert_int_equal(d2->vtable->target_create(NULL, 0, &t), TVM_OK);
  const tvm_plugin_target_info *info = d2->vtable->target_info(t);
  assert_int_equal(info->nscopes, 2);
  assert_string_equal(info->scopes[0].name, "inp_buf");
  assert_int_equal(info->scopes[0].queue, 0);
  assert_string_equal(info->scopes[1].name, "acc_buf");
  assert_int_equal(info->scopes[1].queue, 1);
  d2->vtable->target_destroy(t);
  dlclose(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scopes_and_intrinsic),
      cmocka_unit_test(test_tokens_under_vthreads),
      cmocka_unit_test(test_loads_interleave),
      cmocka_unit_test(test_codegen_blob),
      cmocka_unit_test(test_loadable_module),
  };
  return cmocka_run_group_tests(tests, lower_it, cleanup);
}
