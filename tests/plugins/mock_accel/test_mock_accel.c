/*
 * tests/plugins/mock_accel/test_mock_accel.c - the SDK's example
 * accelerator (plugin-sdk/example-accel, linked in and queried through
 * tvm_plugin_query, and loaded as a plugin through a target file).
 *
 * Lowering a matmul for the mock decoupled access-execute accelerator
 * with a hand-written schedule: inputs cached in inp_buf (filled by
 * the load queue), accumulation in acc_buf (compute queue), the inner
 * 4x4x4 tensorized into mock_gemm, and a virtual thread of 2.  Checks on
 * the lowered IR: every access to inp_buf / acc_buf sits in the queue of
 * its scope, the intrinsic is called and no scalar multiply is left, and
 * the dependency tokens balance and order all cross-queue accesses
 * (pass_check.c runs the program, with mock_gemm interpreted, and compares
 * C with a naive matmul).  MOCK_DUMP=1 prints the lowered function.
 *
 * End to end through the host/device model: the plugin's own tensorized
 * strategy and lowering pass, the host function evaluated into a host
 * program, the device functions compiled to the mock's command stream,
 * the host program run by the runtime calling the plugin's launch, C
 * checked against a naive matmul; and the same plan saved as a package,
 * loaded and run by the graph executor.
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
#include <unistd.h>

#include "mock_accel.h"
#include "tvm/compiler.h"
#include "tvm/graph.h"
#include "tvm/host_program.h"
#include "tvm/plugin.h"
#include "tvm/runtime.h"
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
  /* a device target: the kernel (the whole nest) then the host function
   * launching it */
  assert_int_equal(L->m.nfuncs, 2);
  assert_int_equal(L->m.funcs[0]->kind, TVM_FUNC_DEVICE);
  assert_int_equal(L->m.funcs[1]->kind, TVM_FUNC_HOST);
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

/* The plugin's codegen compiles the device functions (a host function
 * handed along is skipped) into one command stream per kernel, with its
 * table. */
static void test_codegen_blob(void **state) {
  lowered *L = *state;
  tvm_plugin_blob blob;
  assert_int_equal(L->vt->codegen(L->t, &L->m, &blob), TVM_OK);
  assert_int_equal(blob.format, TVM_BLOB_CUSTOM);
  assert_int_equal(memcmp(blob.data, "MOCKACC1", 8), 0);
  assert_int_equal(blob.nkernels, 1);
  assert_string_equal(blob.kernels[0].name, "mm_kernel0");
  assert_int_equal(blob.kernels[0].nargs, 3);
  mock_kernel *ks = NULL;
  uint32_t nk = 0;
  assert_int_equal(mock_parse(&blob, &ks, &nk), TVM_OK);
  /* both queues have work, and tokens in both directions */
  int per[2] = {0, 0}, push = 0, pop = 0, gemm = 0;
  for (uint32_t i = 0; i < ks[0].ncmds; i++) {
    per[ks[0].cmds[i].queue]++;
    push += ks[0].cmds[i].op == MOCK_PUSH;
    pop += ks[0].cmds[i].op == MOCK_POP;
    gemm += ks[0].cmds[i].op == MOCK_GEMM;
  }
  assert_true(per[0] > 0 && per[1] > 0);
  assert_true(push > 0 && push == pop);
  assert_int_equal(gemm, (M / 4) * (N / 4) * (K / 4));
  mock_kernels_free(ks, nk);
  free(blob.data);
  free((char *)blob.kernels[0].name);
  free(blob.kernels);
  assert_int_equal(L->vt->probe(L->t), TVM_OK);
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

/* ---- end to end ------------------------------------------------------------ */

#define EM 16
#define EN 8
#define EK 12

static tvm_expr *e2e_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, EK);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])),
                 &k, 1);
}

/* Dump hook: the pass order. */
static void order_hook(void *ud, const char *pass, const tvm_func *f) {
  (void)f;
  tvm_strbuf_printf(ud, "%s ", pass);
}

/* The e2e fixture: the mock_accel target loaded as a plugin (through a
 * target file), a matmul lowered with its strategy, its host program and
 * its device blob. */
typedef struct e2e {
  tvm_target *t;
  tvm_ctx *c;
  tvm_module m;
  tvm_arena *a;
  tvm_host_program *hp;
  tvm_plugin_blob blob;
  char order[1024];
  char dir[64];
} e2e;

static int e2e_setup(void **state) {
  e2e *E = calloc(1, sizeof *E);
  char path[128];
  *state = E;
  if (!getenv("TVM_BUILDDIR")) return 0; /* the tests skip */
  strcpy(E->dir, "/tmp/mockaccXXXXXX");
  assert_non_null(mkdtemp(E->dir));
  snprintf(path, sizeof path, "%s/mock.yaml", E->dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("name: mock-e2e\nplugin: mock_accel\n", f);
  fclose(f);
  if (tvm_target_load(path, &E->t) != TVM_OK) fail_msg("%s", tvm_diag_message());
  remove(path);
  rmdir(E->dir);

  /* lower with the target's options (scopes, queues, its own pass) */
  tvm_lower_options lo;
  tvm_target_lower_options(E->t, &lo);
  assert_int_equal(lo.nextra_passes, 1);
  tvm_strbuf order;
  tvm_strbuf_init(&order);
  lo.dump_pass = "all";
  lo.dump = order_hook;
  lo.dump_ud = &order;
  tvm_ctx *c = E->c = tvm_ctx_create();
  E->m.ctx = c;
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){EM, EK}, 2);
  in[1] = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){EK, EN}, 2);
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){EM, EN}, 2, e2e_body, in);
  tvm_schedule *s = NULL;
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  const tvm_plugin_strategy *st = tvm_target_strategy(E->t, "matmul");
  assert_non_null(st);
  assert_string_equal(st->name, "mock_accel.gemm_tensorized");
  if (st->schedule(E->t->instance, s, &C, 1, NULL) != 0)
    fail_msg("strategy: %s", tvm_diag_message());
  tvm_tensor *args[3] = {in[0], in[1], C};
  if (tvm_lower(s, args, 3, "mm", &lo, &E->m) != TVM_OK)
    fail_msg("lower: %s", tvm_diag_message());
  snprintf(E->order, sizeof E->order, "%s", order.data ? order.data : "");
  tvm_strbuf_free(&order);
  tvm_schedule_free(s);

  /* host program from the host function, device blob from the kernels */
  assert_int_equal(E->m.nfuncs, 2);
  E->a = tvm_arena_create();
  if (tvm_host_program_build(E->m.funcs[1], &E->m, E->a, &E->hp) != TVM_OK)
    fail_msg("host program: %s", tvm_diag_message());
  tvm_module dev = {c, E->m.funcs, 1};
  if (tvm_target_codegen(E->t, &dev, &E->blob) != TVM_OK)
    fail_msg("codegen: %s", tvm_diag_message());
  return 0;
}

static int e2e_teardown(void **state) {
  e2e *E = *state;
  tvm_plugin_blob_free(&E->blob);
  if (E->a) tvm_arena_destroy(E->a);
  if (E->c) tvm_ctx_destroy(E->c);
  tvm_target_free(E->t);
  free(E);
  return 0;
}

/* Inputs with small integer values (exact in float32) and the naive C. */
static void e2e_data(float *a, float *b, float *ref) {
  for (int i = 0; i < EM * EK; i++) a[i] = (float)((i * 7) % 11 - 5);
  for (int i = 0; i < EK * EN; i++) b[i] = (float)((i * 5) % 9 - 4);
  for (int i = 0; i < EM; i++)
    for (int j = 0; j < EN; j++) {
      double acc = 0;
      for (int k = 0; k < EK; k++) acc += (double)a[i * EK + k] * b[k * EN + j];
      ref[i * EN + j] = (float)acc;
    }
}

/* Runs the host program on a fresh mock device with the kernels of blob;
 * out gets C, ref the naive matmul. */
static tvm_status run_on_device(e2e *E, const tvm_plugin_blob *blob,
                                float *out, float *ref) {
  tvm_device *d = NULL;
  tvm_runtime_module *rm = NULL;
  tvm_host_exec *x = NULL;
  void *buf[3] = {NULL, NULL, NULL};
  float a[EM * EK], bb[EK * EN];
  size_t nb[3] = {sizeof a, sizeof bb, sizeof(float) * EM * EN};
  e2e_data(a, bb, ref);
  tvm_status st = tvm_device_open(E->t, &d);
  if (!st) st = tvm_runtime_module_load(d, blob, &rm);
  for (int i = 0; i < 3 && !st; i++) st = tvm_device_alloc(d, 0, nb[i], 64, &buf[i]);
  if (!st) st = tvm_device_copy(d, buf[0], 0, a, 0, sizeof a, TVM_COPY_HOST_TO_DEVICE);
  if (!st) st = tvm_device_copy(d, buf[1], 0, bb, 0, sizeof bb, TVM_COPY_HOST_TO_DEVICE);
  if (!st) st = tvm_host_exec_create(E->hp, d, rm, buf, 3, &x);
  if (!st) st = tvm_host_exec_run(x);
  if (!st) st = tvm_device_sync(d);
  if (!st) st = tvm_device_copy(d, out, 0, buf[2], 0, nb[2], TVM_COPY_DEVICE_TO_HOST);
  tvm_host_exec_free(x);
  for (int i = 0; i < 3; i++)
    if (buf[i]) tvm_device_free(d, 0, buf[i]);
  if (rm) tvm_runtime_module_free(rm);
  if (d) tvm_device_close(d);
  return st;
}

/* The target's pass ran right after storage_rewrite; the host program is
 * one launch on a 1x1x1 grid; run by the runtime on the mock device, C
 * is the matmul, and the two queues interleaved. */
static void test_e2e_host_device(void **state) {
  e2e *E = *state;
  if (!E->t) {
    print_message("TVM_BUILDDIR not set (run through make check)\n");
    skip();
  }
  assert_non_null(strstr(E->order, "storage_rewrite mock_count_gemm check_scope_capacity"));
  char *kb = tvm_stmt_str(E->m.funcs[0]->body);
  assert_non_null(strstr(kb, "mock_gemm_calls"));
  tvm_free(kb);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_host_program_print(&b, E->hp);
  assert_string_equal(b.data,
                      "host mm (3 params, 0 temps)\n"
                      "  launch mm_kernel0 grid(1, 1, 1) block(1, 1, 1) shared 0 (p0, p1, p2)\n");
  tvm_strbuf_free(&b);

  float out[EM * EN], ref[EM * EN];
  if (run_on_device(E, &E->blob, out, ref) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  for (int i = 0; i < EM * EN; i++)
    if (out[i] != ref[i]) fail_msg("C[%d] = %g, expected %g", i, out[i], ref[i]);
}

/* Without its dependency tokens the same kernel computes garbage on the
 * device: the load queue runs ahead and overwrites tiles the compute
 * queue has not used yet (the simulator does not serialize the queues). */
static void test_e2e_tokens_matter(void **state) {
  e2e *E = *state;
  if (!E->t) {
    print_message("TVM_BUILDDIR not set (run through make check)\n");
    skip();
  }
  tvm_mutator mu = {E->c, NULL, drop_tokens, NULL};
  tvm_func bare = *E->m.funcs[0];
  bare.body = tvm_mutate_stmt(&mu, bare.body);
  assert_non_null(bare.body);
  tvm_func *fs[1] = {&bare};
  tvm_module dev = {E->c, fs, 1};
  tvm_plugin_blob blob;
  assert_int_equal(tvm_target_codegen(E->t, &dev, &blob), TVM_OK);
  float out[EM * EN], ref[EM * EN];
  assert_int_equal(run_on_device(E, &blob, out, ref), TVM_OK);
  int wrong = 0;
  for (int i = 0; i < EM * EN; i++) wrong += out[i] != ref[i];
  assert_true(wrong > 0);
  tvm_plugin_blob_free(&blob);
}

/* The same kernel as a one-step plan with a host program: saved as a
 * package (format 2, HOST section), loaded, run by the graph executor. */
static void test_e2e_package(void **state) {
  e2e *E = *state;
  if (!E->t) {
    print_message("TVM_BUILDDIR not set (run through make check)\n");
    skip();
  }
  tvm_plan *p = NULL, *q = NULL;
  assert_int_equal(tvm_plan_new(&p), TVM_OK);
  tvm_arena *pa = tvm_plan_arena(p);
  p->target_name = "mock-e2e";
  p->plugin_name = "mock_accel";
  p->plugin_version = "0.2";
  p->nvalues = 3;
  p->values = tvm_arena_alloc(pa, 3 * sizeof(tvm_plan_value));
  memset(p->values, 0, 3 * sizeof(tvm_plan_value));
  const char *names[3] = {"A", "B", "C"};
  int64_t shapes[3][2] = {{EM, EK}, {EK, EN}, {EM, EN}};
  for (int i = 0; i < 3; i++) {
    tvm_plan_value *v = &p->values[i];
    v->name = names[i];
    v->kind = i < 2 ? TVM_PV_INPUT : TVM_PV_OUTPUT;
    v->dtype = TVM_F32;
    v->ndim = 2;
    v->shape[0] = shapes[i][0];
    v->shape[1] = shapes[i][1];
    v->storage = -1;
    v->nbytes = (uint64_t)(shapes[i][0] * shapes[i][1]) * 4;
  }
  static const uint32_t in_idx[2] = {0, 1}, out_idx[1] = {2}, sargs[3] = {0, 1, 2};
  p->inputs = (uint32_t *)in_idx;
  p->ninputs = 2;
  p->outputs = (uint32_t *)out_idx;
  p->noutputs = 1;
  p->nsteps = 1;
  p->steps = tvm_arena_alloc(pa, sizeof(tvm_plan_step));
  memset(p->steps, 0, sizeof(tvm_plan_step));
  p->steps[0].kernel = "mm";
  p->steps[0].label = "MatMul";
  p->steps[0].nargs = 3;
  p->steps[0].args = sargs;
  p->steps[0].host = E->hp;
  p->blob = E->blob; /* borrowed: handed back before tvm_plan_free */
  char path[] = "/tmp/mockpkgXXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  if (tvm_package_save(p, path) != TVM_OK) fail_msg("%s", tvm_diag_message());
  memset(&p->blob, 0, sizeof p->blob);
  p->inputs = p->outputs = NULL;
  p->steps[0].args = NULL;
  tvm_plan_free(p);
  if (tvm_package_load(path, E->t, &q) != TVM_OK) fail_msg("%s", tvm_diag_message());
  remove(path);
  assert_non_null(q->steps[0].host);
  assert_int_equal(q->steps[0].host->nops, 1);

  tvm_executor *ex = NULL;
  float a[EM * EK], bb[EK * EN], ref[EM * EN], out[EM * EN];
  e2e_data(a, bb, ref);
  if (tvm_executor_create(q, E->t, &ex) != TVM_OK) fail_msg("%s", tvm_diag_message());
  int64_t sa[2] = {EM, EK}, sb[2] = {EK, EN}, sc[2] = {EM, EN};
  DLTensor ta = {a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sa, NULL, 0};
  DLTensor tb = {bb, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sb, NULL, 0};
  DLTensor tc = {out, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sc, NULL, 0};
  assert_int_equal(tvm_executor_set_input(ex, 0, &ta), TVM_OK);
  assert_int_equal(tvm_executor_set_input(ex, 1, &tb), TVM_OK);
  if (tvm_executor_run(ex) != TVM_OK) fail_msg("%s", tvm_diag_message());
  assert_int_equal(tvm_executor_get_output(ex, 0, &tc), TVM_OK);
  for (int i = 0; i < EM * EN; i++)
    if (out[i] != ref[i]) fail_msg("C[%d] = %g, expected %g", i, out[i], ref[i]);
  double ms[1];
  assert_int_equal(tvm_executor_profile(ex, 2, ms), TVM_OK);
  assert_true(ms[0] >= 0);
  tvm_executor_free(ex);
  tvm_plan_free(q);
}

/* A graph (MatMul of an input and a constant) compiled by tvm_compile for
 * the accelerator: the plugin's strategy schedules the group, the step is
 * a host program, the executor runs it on the device. */
static void test_e2e_graph(void **state) {
  e2e *E = *state;
  if (!E->t) {
    print_message("TVM_BUILDDIR not set (run through make check)\n");
    skip();
  }
  float a[EM * EK], bb[EK * EN], ref[EM * EN], out[EM * EN];
  e2e_data(a, bb, ref);
  tvm_graph *g = NULL;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  tvm_gvalue *x = tvm_graph_input(g, "x", TVM_F32, (int64_t[]){EM, EK}, 2);
  tvm_gvalue *w = tvm_graph_const(g, "w", TVM_F32, (int64_t[]){EK, EN}, 2, bb);
  tvm_gvalue *in[2] = {x, w};
  tvm_gvalue *y = tvm_graph_apply(g, "MatMul", "mm", in, 2, NULL, 0, 1, NULL);
  assert_int_equal(tvm_graph_mark_output(g, y), TVM_OK);
  tvm_plan *p = NULL;
  /* --dump-ir knows the target's pass; a wrong name lists it */
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  char *dumped = NULL;
  size_t dlen = 0;
  o.dump_to = open_memstream(&dumped, &dlen);
  o.dump_ir = "nope";
  assert_int_equal(tvm_compile(g, E->t, &o, &p), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "mock_count_gemm (target pass)"));
  o.dump_ir = "mock_count_gemm";
  if (tvm_compile(g, E->t, &o, &p) != TVM_OK) fail_msg("%s", tvm_diag_message());
  fclose(o.dump_to);
  assert_non_null(strstr(dumped, "// after mock_count_gemm: "));
  assert_non_null(strstr(dumped, "mock_gemm_calls"));
  free(dumped);
  assert_int_equal(p->nsteps, 1);
  assert_non_null(p->steps[0].host);
  assert_int_equal(p->steps[0].host->nops, 1);
  tvm_executor *ex = NULL;
  if (tvm_executor_create(p, E->t, &ex) != TVM_OK) fail_msg("%s", tvm_diag_message());
  int64_t sa[2] = {EM, EK}, sc[2] = {EM, EN};
  DLTensor ta = {a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sa, NULL, 0};
  DLTensor tc = {out, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sc, NULL, 0};
  assert_int_equal(tvm_executor_set_input(ex, 0, &ta), TVM_OK);
  if (tvm_executor_run(ex) != TVM_OK) fail_msg("%s", tvm_diag_message());
  assert_int_equal(tvm_executor_get_output(ex, 0, &tc), TVM_OK);
  for (int i = 0; i < EM * EN; i++)
    if (out[i] != ref[i]) fail_msg("y[%d] = %g, expected %g", i, out[i], ref[i]);
  tvm_executor_free(ex);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scopes_and_intrinsic),
      cmocka_unit_test(test_tokens_under_vthreads),
      cmocka_unit_test(test_loads_interleave),
      cmocka_unit_test(test_codegen_blob),
      cmocka_unit_test(test_loadable_module),
  };
  int rc = cmocka_run_group_tests(tests, lower_it, cleanup);
  const struct CMUnitTest e2e_tests[] = {
      cmocka_unit_test(test_e2e_host_device),
      cmocka_unit_test(test_e2e_tokens_matter),
      cmocka_unit_test(test_e2e_package),
      cmocka_unit_test(test_e2e_graph),
  };
  return rc | cmocka_run_group_tests(e2e_tests, e2e_setup, e2e_teardown);
}
