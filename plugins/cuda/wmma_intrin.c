/*
 * plugins/cuda/wmma_intrin.c - the cuda plugin's tensor-core intrinsics
 * (CUDA's warp matrix functions, nvcuda::wmma, shape 16x16x16) and the
 * device helpers they call.
 *
 * Buffers in the scopes "wmma.matrix_a", "wmma.matrix_b" and
 * "wmma.accumulator" are arrays of fragments (the emitter's fragment
 * scopes, tvm/codegen_c.h); a fragment is owned by a warp, so stages in
 * these scopes are computed per warp (no loop bound to threadIdx.x).
 * Intrinsics, by pattern (each 16 x 16):
 *   wmma_load_f16 / _bf16  f[i, k] = a[i, k]  (a in shared or global)
 *        -> tvm_wmma_load(&f[n], &a[off], ldm)  (n: the fragment's
 *           number in its buffer, see frag_ptr)
 *   wmma_mma_f16 / _bf16   c[i, j] = sum_k f32(a[i, k]) * f32(b[k, j])
 *        reset  -> tvm_wmma_fill(&c[off/256])            (0.0f)
 *        update -> tvm_wmma_mma(&c[..], &a[..], &b[..])   (c += a b)
 *   wmma_store_f32         o[i, j] = c[i, j]
 *        -> tvm_wmma_store(&o[off], &c[off/256], ldm)
 * Products accumulate in float32 (the accumulator fragments are float);
 * bfloat16 needs sm_80 or newer.  Operands are row-major.
 */
#include <string.h>

#include "tvm/te.h"
#include "cuda_plugin.h"

const char *const cuda_extern_names[] = {"tvm_wmma_load", "tvm_wmma_fill",
                                         "tvm_wmma_mma", "tvm_wmma_store",
                                         NULL};

const char cuda_wmma_prelude[] =
    "#include <mma.h>\n"
    "/* the cuda plugin's wmma intrinsics (wmma_intrin.c) */\n"
    "template <typename F, typename T>\n"
    "static __device__ __forceinline__ void tvm_wmma_load(F *f, const T *p, "
    "int ldm) {\n"
    "  nvcuda::wmma::load_matrix_sync(*f, p, (unsigned)ldm);\n"
    "}\n"
    "template <typename C>\n"
    "static __device__ __forceinline__ void tvm_wmma_fill(C *c) {\n"
    "  nvcuda::wmma::fill_fragment(*c, 0.0f);\n"
    "}\n"
    "template <typename C, typename A, typename B>\n"
    "static __device__ __forceinline__ void tvm_wmma_mma(C *c, const A *a, "
    "const B *b) {\n"
    "  nvcuda::wmma::mma_sync(*c, *a, *b, *c);\n"
    "}\n"
    "template <typename C>\n"
    "static __device__ __forceinline__ void tvm_wmma_store(float *p, "
    "const C *c, int ldm) {\n"
    "  nvcuda::wmma::store_matrix_sync(p, *c, (unsigned)ldm, "
    "nvcuda::wmma::mem_row_major);\n"
    "}\n";

/* access_ptr(b->data, dtype, elem_offset, 256, rw) of a memory view. */
static tvm_expr *ptr(tvm_ctx *c, tvm_buffer *b, int rw) {
  char dt[32];
  tvm_expr *args[5] = {b->data, tvm_str(c, tvm_dtype_str(b->dtype, dt)),
                       b->elem_offset ? b->elem_offset : tvm_int(c, 0),
                       tvm_int(c, WMMA_FRAG * WMMA_FRAG), tvm_int(c, rw)};
  return tvm_call(c, TVM_HANDLE, TVM_INTRIN_ACCESS_PTR, args, 5);
}

/* access_ptr of the fragment holding a 16 x 16 view b of a fragment
 * buffer.  The buffer is an R x C row-major region (C = b's row stride)
 * stored as its (R/16) x (C/16) fragments in row-major order; the view
 * starts at element off = r0 * C + c0 (r0, c0 multiples of 16), which is
 * fragment (r0/16) * (C/16) + c0/16, i.e. element offset 256 times that
 * in the emitter's fragment numbering (tvm/codegen_c.h). */
static tvm_expr *frag_ptr(tvm_ctx *c, tvm_buffer *b, int rw) {
  char dt[32];
  tvm_expr *off = b->elem_offset ? b->elem_offset : tvm_int(c, 0);
  tvm_expr *ld = b->strides ? b->strides[0] : tvm_int(c, WMMA_FRAG);
  tvm_expr *f16 = tvm_int(c, WMMA_FRAG);
  tvm_expr *tile = tvm_add(
      c, tvm_mul(c, tvm_floordiv(c, off, tvm_mul(c, f16, ld)),
                 tvm_floordiv(c, ld, f16)),
      tvm_floordiv(c, tvm_floormod(c, off, ld), f16));
  tvm_expr *args[5] = {b->data, tvm_str(c, tvm_dtype_str(b->dtype, dt)),
                       tvm_mul(c, tile, tvm_int(c, WMMA_FRAG * WMMA_FRAG)),
                       tvm_int(c, WMMA_FRAG * WMMA_FRAG), tvm_int(c, rw)};
  return tvm_call(c, TVM_HANDLE, TVM_INTRIN_ACCESS_PTR, args, 5);
}

/* The row stride of a 2-d view (1 row = its width when compact). */
static tvm_expr *ldm(tvm_ctx *c, tvm_buffer *b) {
  return b->strides ? b->strides[0] : tvm_int(c, WMMA_FRAG);
}

static tvm_stmt *call(tvm_ctx *c, const char *name, tvm_expr **args, int n) {
  return tvm_evaluate(c, tvm_call_extern(c, TVM_I32, name, args, n));
}

/* Emit callbacks (tvm_intrin_emit_fn). */
static tvm_status emit_load(tvm_ctx *c, const tvm_tensor_intrin *ti,
                            tvm_buffer **in, int nin, tvm_buffer *out,
                            tvm_stmt **body, tvm_stmt **reset,
                            tvm_stmt **update) {
  (void)ti, (void)reset, (void)update;
  if (nin != 1) return tvm_diag_set(TVM_ERR_INTERNAL, "wmma load: 1 input");
  *body = call(c, "tvm_wmma_load",
               (tvm_expr *[]){frag_ptr(c, out, 2), ptr(c, in[0], 1), ldm(c, in[0])},
               3);
  return tvm_ctx_status(c);
}

static tvm_status emit_mma(tvm_ctx *c, const tvm_tensor_intrin *ti,
                           tvm_buffer **in, int nin, tvm_buffer *out,
                           tvm_stmt **body, tvm_stmt **reset,
                           tvm_stmt **update) {
  (void)ti;
  if (nin != 2) return tvm_diag_set(TVM_ERR_INTERNAL, "wmma mma: 2 inputs");
  *reset = call(c, "tvm_wmma_fill", (tvm_expr *[]){frag_ptr(c, out, 2)}, 1);
  *update = call(c, "tvm_wmma_mma",
                 (tvm_expr *[]){frag_ptr(c, out, 3), frag_ptr(c, in[0], 1),
                                frag_ptr(c, in[1], 1)}, 3);
  *body = tvm_seq2(c, *reset, *update);
  return tvm_ctx_status(c);
}

static tvm_status emit_store(tvm_ctx *c, const tvm_tensor_intrin *ti,
                             tvm_buffer **in, int nin, tvm_buffer *out,
                             tvm_stmt **body, tvm_stmt **reset,
                             tvm_stmt **update) {
  (void)ti, (void)reset, (void)update;
  if (nin != 1) return tvm_diag_set(TVM_ERR_INTERNAL, "wmma store: 1 input");
  *body = call(c, "tvm_wmma_store",
               (tvm_expr *[]){ptr(c, out, 2), frag_ptr(c, in[0], 1), ldm(c, out)},
               3);
  return tvm_ctx_status(c);
}

/* o[i, j] = a[i, j] over 16 x 16 of type t. */
static tvm_expr *copy_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return TVM_AT(c, (tvm_tensor *)ud, i[0], i[1]);
}

static tvm_expr *mma_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, WMMA_FRAG);
  return tvm_sum(c, tvm_mul(c, tvm_cast(c, TVM_F32, TVM_AT(c, in[0], i[0], k->var)),
                            tvm_cast(c, TVM_F32, TVM_AT(c, in[1], k->var, i[1]))),
                 &k, 1);
}

static const int64_t frag_shape[2] = {WMMA_FRAG, WMMA_FRAG};

static int32_t declare_copy(tvm_ctx *c, const char *name, tvm_dtype t,
                            tvm_intrin_emit_fn emit, tvm_tensor_intrin **out) {
  tvm_tensor *a = tvm_placeholder(c, "a", t, frag_shape, 2);
  tvm_tensor *p = a ? tvm_compute(c, "f", frag_shape, 2, copy_body, a) : NULL;
  *out = p ? tvm_tensor_intrin_new(c, name, p, emit, NULL) : NULL;
  return *out ? TVM_OK : tvm_c_report(cuda_host(), TVM_ERR_NOMEM,
                                      "cuda: declaring %s: %s", name,
                                      tvm_diag_message());
}

static int32_t declare_mma(tvm_ctx *c, const char *name, tvm_dtype t,
                           tvm_tensor_intrin **out) {
  tvm_tensor **in = tvm_ctx_alloc(c, 2 * sizeof *in);
  if (!in) return tvm_ctx_status(c);
  in[0] = tvm_placeholder(c, "a", t, frag_shape, 2);
  in[1] = tvm_placeholder(c, "b", t, frag_shape, 2);
  tvm_tensor *p = in[0] && in[1]
                      ? tvm_compute(c, "c", frag_shape, 2, mma_body, in)
                      : NULL;
  *out = p ? tvm_tensor_intrin_new(c, name, p, emit_mma, NULL) : NULL;
  return *out ? TVM_OK : tvm_c_report(cuda_host(), TVM_ERR_NOMEM,
                                      "cuda: declaring %s: %s", name,
                                      tvm_diag_message());
}

static int32_t load_f16(tvm_plugin_target *t, tvm_ctx *c, tvm_tensor_intrin **o) {
  (void)t;
  return declare_copy(c, "wmma_load_f16", TVM_F16, emit_load, o);
}
static int32_t load_bf16(tvm_plugin_target *t, tvm_ctx *c, tvm_tensor_intrin **o) {
  (void)t;
  return declare_copy(c, "wmma_load_bf16", TVM_BF16, emit_load, o);
}
static int32_t mma_f16(tvm_plugin_target *t, tvm_ctx *c, tvm_tensor_intrin **o) {
  (void)t;
  return declare_mma(c, "wmma_mma_f16", TVM_F16, o);
}
static int32_t mma_bf16(tvm_plugin_target *t, tvm_ctx *c, tvm_tensor_intrin **o) {
  (void)t;
  return declare_mma(c, "wmma_mma_bf16", TVM_BF16, o);
}
static int32_t store_f32(tvm_plugin_target *t, tvm_ctx *c, tvm_tensor_intrin **o) {
  (void)t;
  return declare_copy(c, "wmma_store_f32", TVM_F32, emit_store, o);
}

const tvm_plugin_intrin cuda_intrins[] = {
    {sizeof(tvm_plugin_intrin), 0, "wmma_load_f16", load_f16},
    {sizeof(tvm_plugin_intrin), 0, "wmma_load_bf16", load_bf16},
    {sizeof(tvm_plugin_intrin), 0, "wmma_mma_f16", mma_f16},
    {sizeof(tvm_plugin_intrin), 0, "wmma_mma_bf16", mma_bf16},
    {sizeof(tvm_plugin_intrin), 0, "wmma_store_f32", store_f32},
};
const uint32_t cuda_nintrins = sizeof cuda_intrins / sizeof cuda_intrins[0];

/* See cuda_plugin.h. */
int32_t cuda_wmma_intrin(tvm_plugin_target *t, tvm_ctx *c,
                         const tvm_plugin_strategy_call *call,
                         const char *name, tvm_tensor_intrin **out) {
  for (uint32_t i = 0; call && i < call->nintrins; i++)
    if (call->intrins[i] && !strcmp(call->intrin_names[i], name)) {
      *out = call->intrins[i];
      return TVM_OK;
    }
  for (uint32_t i = 0; i < cuda_nintrins; i++)
    if (!strcmp(cuda_intrins[i].name, name))
      return cuda_intrins[i].declare(t, c, out);
  return tvm_diag_set(TVM_ERR_NOT_FOUND, "cuda: no intrinsic %s", name);
}
