/*
 * mock_accel.c - the SDK's example accelerator: target, memory scopes,
 * queues, tensor intrinsic, tensorized schedule, its own lowering pass
 * and the plugin entry point (see mock_accel.h for the whole picture).
 *
 * The tensor intrinsic "mock_gemm_4x4": C[4, 4] += A[4, 4] x B[4, 4]
 * (float32), emitted as
 *   reset:  mock_gemm_reset(access_ptr(C, w), ldc)
 *   update: mock_gemm(access_ptr(C, rw), access_ptr(A, r), access_ptr(B, r),
 *                     ldc, lda, ldb)
 *   body:   reset then update.
 *
 * Built with -DMOCK_ACCEL_BROKEN_INTRIN (tests/abi/local.mk) its emitter
 * passes A where B belongs: the plugin the conformance tests must fail.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_accel.h"
#include "tvm/graph.h"

const tvm_host_api *mock_host;

struct tvm_plugin_target {
  tvm_plugin_target_info info;
};

/* See mock_accel.h. */
int32_t mock_fail(int32_t st, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (mock_host && mock_host->report) mock_host->report(st, msg);
  return st;
}

static const char *const queue_names[] = {"load", "compute"};

/* The scratchpads: 16 KiB each, filled by the load (0) and compute (1)
 * queues.  The core enforces the sizes when lowering. */
static const tvm_plugin_scope scopes[] = {
    {sizeof(tvm_plugin_scope), TVM_VIS_THREAD, "inp_buf", 16384, 16, 0},
    {sizeof(tvm_plugin_scope), TVM_VIS_THREAD, "acc_buf", 16384, 16, 1},
};

/* ---- the tensor intrinsic ------------------------------------------------- */

/* The leading stride of a 4x4 view (row length). */
static tvm_expr *ld(tvm_ctx *c, tvm_buffer *b) {
  return b->strides ? b->strides[0] : tvm_int(c, 4);
}

/* access_ptr(b->data, "float32", b->elem_offset, 3 * ld + 4, rw): the
 * elements a 4x4 view with leading stride ld spans. */
static tvm_expr *ptr(tvm_ctx *c, tvm_buffer *b, int rw) {
  tvm_expr *args[5] = {b->data, tvm_str(c, "float32"),
                       b->elem_offset ? b->elem_offset : tvm_int(c, 0),
                       tvm_add(c, tvm_mul(c, ld(c, b), tvm_int(c, 3)),
                               tvm_int(c, 4)),
                       tvm_int(c, rw)};
  return tvm_call(c, TVM_HANDLE, TVM_INTRIN_ACCESS_PTR, args, 5);
}

/* Emits the calls of mock_gemm_4x4 for the matched region. */
static tvm_status emit(tvm_ctx *c, const tvm_tensor_intrin *ti,
                       tvm_buffer **in, int nin, tvm_buffer *out,
                       tvm_stmt **body, tvm_stmt **reset, tvm_stmt **update) {
  (void)ti;
  if (nin != 2)
    return tvm_diag_set(TVM_ERR_INTERNAL, "mock_gemm_4x4: %d inputs, not 2",
                        nin);
  tvm_buffer *b = in[1];
#ifdef MOCK_ACCEL_BROKEN_INTRIN
  b = in[0]; /* deliberately wrong: the CTS must fail this build */
#endif
  tvm_expr *rargs[2] = {ptr(c, out, 2), ld(c, out)};
  tvm_expr *uargs[6] = {ptr(c, out, 3), ptr(c, in[0], 1), ptr(c, b, 1),
                        ld(c, out),     ld(c, in[0]),     ld(c, b)};
  *reset = tvm_evaluate(c, tvm_call_extern(c, TVM_I32, "mock_gemm_reset",
                                           rargs, 2));
  *update = tvm_evaluate(c, tvm_call_extern(c, TVM_I32, "mock_gemm", uargs, 6));
  *body = tvm_seq2(c, *reset, *update);
  return tvm_ctx_status(c);
}

/* C[i, j] = sum_k A[i, k] * B[k, j] over 4x4x4. */
static tvm_expr *gemm_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, 4);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])),
                 &k, 1);
}

/* Builds mock_gemm_4x4 (pattern and emitter) in ctx c. */
static int32_t declare_gemm(tvm_plugin_target *t, tvm_ctx *c,
                            tvm_tensor_intrin **out) {
  (void)t;
  tvm_tensor **in = tvm_ctx_alloc(c, 2 * sizeof(tvm_tensor *));
  if (!in) return tvm_ctx_status(c);
  in[0] = tvm_placeholder(c, "a", TVM_F32, (int64_t[]){4, 4}, 2);
  in[1] = tvm_placeholder(c, "b", TVM_F32, (int64_t[]){4, 4}, 2);
  tvm_tensor *p = tvm_compute(c, "c", (int64_t[]){4, 4}, 2, gemm_body, in);
  *out = p ? tvm_tensor_intrin_new(c, "mock_gemm_4x4", p, emit, NULL) : NULL;
  if (!*out)
    return mock_fail(TVM_ERR_NOMEM, "mock_accel: declaring mock_gemm_4x4 failed");
  return TVM_OK;
}

static const tvm_plugin_intrin intrins[] = {
    {sizeof(tvm_plugin_intrin), 0, "mock_gemm_4x4", declare_gemm},
};

/* ---- the tensorized schedule ---------------------------------------------- */

/* Schedules C = A x B (float32, M % 8 == 0, N % 4 == 0, K % 4 == 0):
 *  - C accumulates in acc_buf (cache_write), A and B are staged in
 *    inp_buf (cache_read) per 4-wide slice of k;
 *  - C's rows split by 4 and their outer part by 2 bound to a virtual
 *    thread, so that the load queue fetches one thread's tiles while the
 *    compute queue multiplies the other's (latency hiding);
 *  - the 4x4x4 inner block of the accumulation tensorized onto
 *    mock_gemm_4x4. */
static int32_t schedule_matmul(tvm_plugin_target *t, tvm_schedule *s,
                               tvm_tensor **outs, uint32_t nouts,
                               tvm_config *cfg) {
  (void)cfg;
  tvm_tensor *C = nouts == 1 ? outs[0] : NULL;
  tvm_ptrvec ins = {0};
  tvm_ctx *c = s->ctx;
  if (!C || C->op->kind != TVM_OP_COMPUTE || C->ndim != 2 ||
      C->op->nreduce != 1 || tvm_op_inputs(C->op, &ins) != TVM_OK ||
      ins.len != 2) {
    tvm_ptrvec_free(&ins);
    return mock_fail(TVM_ERR_UNSUPPORTED,
                     "mock_accel matmul: expects one output C = A x B with one "
                     "reduction axis");
  }
  tvm_tensor *A = ins.data[0], *B = ins.data[1];
  tvm_ptrvec_free(&ins);
  int64_t M = C->shape_c[0], N = C->shape_c[1];
  int64_t K = C->op->reduce_axis[0]->dom.extent &&
                      C->op->reduce_axis[0]->dom.extent->kind == TVM_INT
                  ? C->op->reduce_axis[0]->dom.extent->u.ival
                  : -1;
  if (M <= 0 || M % 8 || N <= 0 || N % 4 || K <= 0 || K % 4 ||
      C->dtype.code != TVM_F32.code || C->dtype.bits != 32)
    return mock_fail(TVM_ERR_UNSUPPORTED,
                     "mock_accel matmul: needs float32 with M %% 8, N %% 4 and "
                     "K %% 4 == 0 (got %lld x %lld x %lld)",
                     (long long)M, (long long)N, (long long)K);
  tvm_tensor_intrin *gemm = NULL;
  int32_t rc = declare_gemm(t, c, &gemm);
  if (rc) return rc;
  tvm_tensor *CL, *AL, *BL;
  tvm_status st = tvm_cache_write(s, C, "acc_buf", &CL);
  tvm_stage *sc = tvm_stage_of(s, C), *scl = tvm_stage_of(s, CL);
  tvm_operation *readers[1] = {scl->op};
  if (!st) st = tvm_cache_read(s, A, "inp_buf", readers, 1, &AL);
  readers[0] = tvm_stage_of(s, CL)->op;
  if (!st) st = tvm_cache_read(s, B, "inp_buf", readers, 1, &BL);
  scl = tvm_stage_of(s, CL);
  /* C: i -> (io, ii 4), io -> (ioo, iov 2: vthread), j -> (jo, ji 4) */
  tvm_iter_var *io, *ii, *ioo, *iov, *jo, *ji;
  tvm_iter_var *vt = tvm_thread_axis(c, "vthread", NULL);
  if (!st) st = tvm_split(sc, tvm_stage_axis(sc, 0), 4, &io, &ii);
  if (!st) st = tvm_split(sc, io, 2, &ioo, &iov);
  if (!st) st = tvm_split(sc, tvm_stage_axis(sc, 1), 4, &jo, &ji);
  if (!st) st = tvm_reorder(sc, (tvm_iter_var *[]){ioo, jo, iov, ii, ji}, 5);
  if (!st) st = tvm_bind(sc, iov, vt);
  if (!st) st = tvm_compute_at(scl, sc, iov);
  /* CL: k -> (ko, ki 4), order ko, i, j, ki; tensorize i (4x4x4) */
  tvm_iter_var *ko, *ki;
  tvm_iter_var *ci = tvm_stage_axis(scl, 0), *cj = tvm_stage_axis(scl, 1);
  if (!st) st = tvm_split(scl, tvm_stage_reduce_axis(scl, 0), 4, &ko, &ki);
  if (!st) st = tvm_reorder(scl, (tvm_iter_var *[]){ko, ci, cj, ki}, 4);
  if (!st) st = tvm_tensorize(scl, ci, gemm);
  if (!st) st = tvm_compute_at(tvm_stage_of(s, AL), scl, ko);
  if (!st) st = tvm_compute_at(tvm_stage_of(s, BL), scl, ko);
  if (st)
    return mock_fail(st, "mock_accel matmul: %s", tvm_diag_message());
  return TVM_OK;
}

/* Registered for the graph operator MatMul (model compilation) and for
 * "matmul" (tvmc matmul and tests). */
static const tvm_plugin_strategy strategies[] = {
    {.struct_size = sizeof(tvm_plugin_strategy), .priority = 10,
     .op = "MatMul", .name = "mock_accel.gemm_tensorized",
     .schedule = schedule_matmul, .match = TVM_STRATEGY_MATCH_OP},
    {.struct_size = sizeof(tvm_plugin_strategy), .priority = 10,
     .op = "matmul", .name = "mock_accel.gemm_tensorized",
     .schedule = schedule_matmul, .match = TVM_STRATEGY_MATCH_OP},
};

/* ---- placement (ABI 5) ------------------------------------------------------ */

/* Elements a data-movement node may have: its commands are unrolled at
 * compile time, one per element. */
#define MOCK_MAX_MOVE_ELEMS 65536

/* Is input/output shape s (n dims) float32 and at most `max` elements? */
static int small_f32(int n, const int64_t *s, tvm_dtype t, int64_t max) {
  int64_t e = 1;
  for (int d = 0; d < n; d++) e *= s[d];
  return n >= 0 && t.code == TVM_F32.code && t.bits == 32 && t.lanes == 1 &&
         e <= max;
}

/* What the device really runs (the compiler places the rest on the
 * YAML's fallback target):
 *  - MatMul of two 2-D float32 matrices with M % 8, N % 4 and K % 4 == 0:
 *    the tensorized schedule above, on the GEMM unit;
 *  - Flatten and Reshape of float32 data up to MOCK_MAX_MOVE_ELEMS
 *    elements: pure data movement, which the command processor does with
 *    copy commands.
 * Everything else (arithmetic on loaded values, other dtypes) it cannot
 * compute: see mock_accel_codegen.c. */
static int32_t supports(tvm_plugin_target *t, const tvm_gnode *n,
                        tvm_plugin_support *out) {
  (void)t;
  const char *op = tvm_gnode_op_name(n);
  int64_t a[TVM_MAX_DIMS], b[TVM_MAX_DIMS];
  tvm_dtype ta, tb;
  out->supported = 0;
  if (!strcmp(op, "MatMul")) {
    if (tvm_gnode_num_inputs(n) != 2 || tvm_gnode_input_shape(n, 0, a) != 2 ||
        tvm_gnode_input_shape(n, 1, b) != 2 ||
        tvm_gnode_input_dtype(n, 0, &ta) || tvm_gnode_input_dtype(n, 1, &tb) ||
        !small_f32(2, a, ta, INT64_MAX) || !small_f32(2, b, tb, INT64_MAX)) {
      snprintf(out->reason, sizeof out->reason,
               "the GEMM unit multiplies 2-D float32 matrices only");
      return TVM_OK;
    }
    if (a[0] % 8 || b[1] % 4 || a[1] % 4) {
      snprintf(out->reason, sizeof out->reason,
               "MatMul %lldx%lldx%lld: the GEMM unit needs M %% 8, N %% 4 "
               "and K %% 4 == 0",
               (long long)a[0], (long long)b[1], (long long)a[1]);
      return TVM_OK;
    }
    out->supported = 1;
    return TVM_OK;
  }
  if (!strcmp(op, "Flatten") || !strcmp(op, "Reshape")) {
    int nd = tvm_gnode_input_shape(n, 0, a);
    if (nd < 0 || tvm_gnode_input_dtype(n, 0, &ta) ||
        !small_f32(nd, a, ta, MOCK_MAX_MOVE_ELEMS)) {
      snprintf(out->reason, sizeof out->reason,
               "%s: the copy engine moves float32 tensors of at most %d "
               "elements",
               op, MOCK_MAX_MOVE_ELEMS);
      return TVM_OK;
    }
    out->supported = 1;
    return TVM_OK;
  }
  snprintf(out->reason, sizeof out->reason,
           "no %s on the device: it multiplies matrices and moves data", op);
  return TVM_OK;
}

/* ---- a lowering pass of the target's own (ABI 4) ----------------------- */

/* Visitor hook: counts mock_gemm calls. */
static int count_gemm(tvm_visitor *v, const tvm_expr *e) {
  if (e->kind == TVM_CALL && e->u.call.op == TVM_INTRIN_EXTERN &&
      !strcmp(e->u.call.name, "mock_gemm"))
    (*(int64_t *)v->data)++;
  return 0;
}

/* After storage_rewrite: wraps the body in attr mock_gemm_calls = the
 * number of GEMM calls in the code (the codegen checks its command
 * stream issues that many per pass over the code, and tests see the pass
 * ran at its point). */
static int32_t pass_count_gemm(tvm_plugin_target *t, tvm_ctx *c,
                               const tvm_func *f, tvm_func **out) {
  (void)t;
  int64_t n = 0;
  tvm_visitor v = {count_gemm, NULL, &n};
  tvm_visit_stmt(&v, f->body);
  tvm_func *g = tvm_ctx_alloc(c, sizeof *g);
  if (!g) return mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
  *g = *f;
  g->body = tvm_attr(c, "mock_gemm_calls", NULL, tvm_int(c, n), f->body);
  if (!g->body) return mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
  *out = g;
  return TVM_OK;
}

static const tvm_plugin_lower_pass passes[] = {
    {sizeof(tvm_plugin_lower_pass), 0, "storage_rewrite", "mock_count_gemm",
     pass_count_gemm},
};

static int32_t lower_passes(tvm_plugin_target *t,
                            const tvm_plugin_lower_pass **out, uint32_t *n) {
  (void)t;
  *out = passes;
  *n = sizeof passes / sizeof passes[0];
  return TVM_OK;
}

/* ---- target ------------------------------------------------------------------ */

/* A target instance (the mock has no attributes). */
static int32_t target_create(const tvm_plugin_attr_value *values,
                             uint32_t nvalues, tvm_plugin_target **out) {
  (void)values;
  (void)nvalues;
  tvm_plugin_target *t = calloc(1, sizeof *t);
  if (!t) return TVM_ERR_NOMEM;
  t->info.struct_size = sizeof t->info;
  t->info.vector_bits = 32; /* no vector unit */
  t->info.has_threads = 0;
  t->info.num_queues = 2;
  t->info.queue_names = queue_names;
  t->info.scopes = scopes;
  t->info.nscopes = 2;
  t->info.nintrins = 1;
  t->info.intrins = intrins;
  t->info.strategies = strategies;
  t->info.nstrategies = 2;
  t->info.description = "mock DAE accelerator: load and compute queues";
  *out = t;
  return TVM_OK;
}

/* Frees a target instance. */
static void target_destroy(tvm_plugin_target *t) { free(t); }

/* What the target is like (owned by t). */
static const tvm_plugin_target_info *target_info(tvm_plugin_target *t) {
  return &t->info;
}

/* The device is simulated on the host: always available. */
static int32_t probe(tvm_plugin_target *t) {
  (void)t;
  return TVM_OK;
}

static const tvm_plugin_vtable vtable = {
    .struct_size = sizeof(tvm_plugin_vtable),
    .target_create = target_create,
    .target_destroy = target_destroy,
    .target_info = target_info,
    .codegen = mock_codegen,
    .probe = probe,
    .device_open = mock_device_open,
    .device_close = mock_device_close,
    .mem_alloc = mock_mem_alloc,
    .mem_free = mock_mem_free,
    .copy = mock_copy,
    .module_load = mock_module_load,
    .module_unload = mock_module_unload,
    .func_get = mock_func_get,
    .launch = mock_launch,
    .lower_passes = lower_passes,
    .supports = supports,
};

/* ABI 1 hosts see the vtable without the later slots. */
static const tvm_plugin_vtable vtable_v1 = {
    .struct_size = TVM_PLUGIN_VTABLE_SIZE_V1,
    .target_create = target_create,
    .target_destroy = target_destroy,
    .target_info = target_info,
    .codegen = mock_codegen,
    .probe = probe,
    .device_open = mock_device_open,
    .device_close = mock_device_close,
    .mem_alloc = mock_mem_alloc,
    .mem_free = mock_mem_free,
    .copy = mock_copy,
    .module_load = mock_module_load,
    .module_unload = mock_module_unload,
    .func_get = mock_func_get,
    .launch = mock_launch,
};

static const tvm_plugin_desc desc = {
    sizeof(tvm_plugin_desc), TVM_PLUGIN_ABI_VERSION, "mock_accel", "0.2",
    "example DAE accelerator (plugin-sdk/example-accel)", &vtable};
static const tvm_plugin_desc desc_v1 = {
    sizeof(tvm_plugin_desc), 1, "mock_accel", "0.2",
    "example DAE accelerator (plugin-sdk/example-accel)", &vtable_v1};

/* The entry point: the newest ABI both sides speak, or NULL. */
TVM_PLUGIN_EXPORT const tvm_plugin_desc *
tvm_plugin_query(uint32_t host_abi_max, const tvm_host_api *h) {
  if (host_abi_max < 1) return NULL;
  mock_host = h;
  return host_abi_max >= TVM_PLUGIN_ABI_VERSION ? &desc : &desc_v1;
}
