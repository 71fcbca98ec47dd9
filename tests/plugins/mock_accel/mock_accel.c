/*
 * tests/plugins/mock_accel/mock_accel.c - a mock decoupled access-execute
 * accelerator plugin (compile-time half only), used by the lowering tests.
 *
 * It declares two hardware queues, "load" (0) and "compute" (1), two
 * on-chip memory scopes filled by them, "inp_buf" (queue 0) and "acc_buf"
 * (queue 1), and one tensor intrinsic, "mock_gemm_4x4": C[4, 4] +=
 * A[4, 4] x B[4, 4] (float32) emitted as
 *   reset:  mock_gemm_reset(access_ptr(C, w), ldc)
 *   update: mock_gemm(access_ptr(C, rw), access_ptr(A, r), access_ptr(B, r),
 *                     ldc, lda, ldb)
 *   body:   reset then update.
 * codegen returns the printed module as a TVM_BLOB_CUSTOM blob; there is
 * no device (probe says UNAVAILABLE).
 *
 * Built with -DMOCK_ACCEL_BROKEN_INTRIN (tests/abi/local.mk) its emitter
 * passes A where B belongs: the plugin the conformance tests must fail.
 */
#include <stdlib.h>
#include <string.h>

#include "tvm/plugin.h"

static const tvm_host_api *host;

struct tvm_plugin_target {
  tvm_plugin_target_info info;
};

static const char *const queue_names[] = {"load", "compute"};

static const tvm_plugin_scope scopes[] = {
    {sizeof(tvm_plugin_scope), TVM_VIS_THREAD, "inp_buf", 16384, 16, 0},
    {sizeof(tvm_plugin_scope), TVM_VIS_THREAD, "acc_buf", 16384, 16, 1},
};

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
  if (!*out) {
    if (host) host->report(TVM_ERR_NOMEM, "mock_accel: declaring mock_gemm_4x4 failed");
    return TVM_ERR_NOMEM;
  }
  return TVM_OK;
}

static const tvm_plugin_intrin intrins[] = {
    {sizeof(tvm_plugin_intrin), 0, "mock_gemm_4x4", declare_gemm},
};

/* A target instance (the mock has no attributes). */
static int32_t target_create(const tvm_plugin_attr_value *values,
                             uint32_t nvalues, tvm_plugin_target **out) {
  (void)values;
  (void)nvalues;
  tvm_plugin_target *t = calloc(1, sizeof *t);
  if (!t) return TVM_ERR_NOMEM;
  t->info.struct_size = sizeof t->info;
  t->info.vector_bits = 128;
  t->info.has_threads = 0;
  t->info.num_queues = 2;
  t->info.queue_names = queue_names;
  t->info.scopes = scopes;
  t->info.nscopes = 2;
  t->info.nintrins = 1;
  t->info.intrins = intrins;
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

/* The printed module as the "program" of the mock device. */
static int32_t codegen(tvm_plugin_target *t, const tvm_module *m,
                       tvm_plugin_blob *out) {
  (void)t;
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_print_module(&b, m);
  if (b.oom || !host || !host->alloc) {
    tvm_strbuf_free(&b);
    return TVM_ERR_NOMEM;
  }
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  out->format = TVM_BLOB_CUSTOM;
  out->data = host->alloc(b.len + 1);
  if (!out->data) {
    tvm_strbuf_free(&b);
    return TVM_ERR_NOMEM;
  }
  memcpy(out->data, b.data ? b.data : "", b.len + 1);
  out->size = b.len;
  tvm_strbuf_free(&b);
  return TVM_OK;
}

/* There is no device to run on. */
static int32_t probe(tvm_plugin_target *t) {
  (void)t;
  if (host) host->report(TVM_ERR_UNAVAILABLE,
                         "mock_accel: a compile-only mock, there is no device");
  return TVM_ERR_UNAVAILABLE;
}

static const tvm_plugin_vtable vtable = {
    .struct_size = sizeof(tvm_plugin_vtable),
    .target_create = target_create,
    .target_destroy = target_destroy,
    .target_info = target_info,
    .codegen = codegen,
    .probe = probe,
};

/* ABI 1 hosts see the vtable without the timer slots. */
static const tvm_plugin_vtable vtable_v1 = {
    .struct_size = TVM_PLUGIN_VTABLE_SIZE_V1,
    .target_create = target_create,
    .target_destroy = target_destroy,
    .target_info = target_info,
    .codegen = codegen,
    .probe = probe,
};

static const tvm_plugin_desc desc = {
    sizeof(tvm_plugin_desc), TVM_PLUGIN_ABI_VERSION, "mock_accel", "0.1",
    "mock decoupled access-execute accelerator (tests)", &vtable};
static const tvm_plugin_desc desc_v1 = {
    sizeof(tvm_plugin_desc), 1, "mock_accel", "0.1",
    "mock decoupled access-execute accelerator (tests)", &vtable_v1};

/* The entry point: the newest ABI both sides speak, or NULL. */
TVM_PLUGIN_EXPORT const tvm_plugin_desc *
tvm_plugin_query(uint32_t host_abi_max, const tvm_host_api *h) {
  if (host_abi_max < 1) return NULL;
  host = h;
  return host_abi_max >= TVM_PLUGIN_ABI_VERSION ? &desc : &desc_v1;
}
