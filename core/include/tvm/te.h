/*
 * tvm/te.h - tensor expressions: placeholders, computes, reductions and
 * tensor intrinsic declarations.
 *
 * A compute is described by a C callback that receives the index variables
 * of the output and returns the expression of one element; it is called
 * exactly once, when the compute is declared.  Reduction axes are created
 * inside that callback with tvm_reduce_axis and used in tvm_sum & co.
 *
 *   static tvm_expr *matmul(tvm_ctx *c, tvm_expr **i, void *ud) {
 *     tvm_tensor **in = ud;                       // {A, B}
 *     tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, in[0]->shape_c[1]);
 *     return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
 *                                  TVM_AT(c, in[1], k->var, i[1])), &k, 1);
 *   }
 *   tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){M, N}, 2, matmul, in);
 */
#ifndef TVM_TE_H
#define TVM_TE_H

#include "tvm/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tvm_iter_kind {
  TVM_IV_DATA_PAR, /* a spatial axis of the output */
  TVM_IV_REDUCE,   /* a reduction axis */
  TVM_IV_THREAD,   /* a hardware thread axis (bind target) */
  TVM_IV_VTHREAD,  /* a virtual thread axis (bind target) */
  TVM_IV_OPAQUE    /* created by a schedule relation */
} tvm_iter_kind;

/* An iteration variable: a loop variable with a domain. */
typedef struct tvm_iter_var {
  tvm_expr *var;
  tvm_range dom;          /* min/extent; NULL before bound inference for
                             axes created by schedule relations */
  tvm_iter_kind kind;
  const char *thread_tag; /* for thread/vthread axes */
} tvm_iter_var;

typedef enum tvm_op_kind {
  TVM_OP_PLACEHOLDER, /* an input */
  TVM_OP_COMPUTE      /* out[axis] = body (body may be a TVM_REDUCE) */
} tvm_op_kind;

typedef struct tvm_tensor tvm_tensor;

typedef struct tvm_operation {
  tvm_op_kind kind;
  const char *name;
  const char *tag;      /* free-form, e.g. "conv2d_nchw", "elemwise" */
  tvm_iter_var **axis;  /* one per output dimension (compute only) */
  int naxis;
  tvm_iter_var **reduce_axis; /* those of body when it is a TVM_REDUCE */
  int nreduce;
  tvm_expr *body;       /* compute only */
  tvm_tensor *output;
} tvm_operation;

struct tvm_tensor {
  tvm_operation *op;
  const char *name;
  tvm_dtype dtype;
  int ndim;
  tvm_expr **shape;
  int64_t *shape_c; /* constant shape, or -1 where symbolic */
};

typedef tvm_expr *(*tvm_compute_fn)(tvm_ctx *c, tvm_expr **index, void *ud);

TVM_API tvm_tensor *tvm_placeholder(tvm_ctx *c, const char *name,
                                    tvm_dtype t, const int64_t *shape,
                                    int ndim);
TVM_API tvm_tensor *tvm_placeholder_sym(tvm_ctx *c, const char *name,
                                        tvm_dtype t, tvm_expr **shape,
                                        int ndim);
/* Declares out[i0..in-1] = fn(i); returns NULL (with a diagnostic) when
 * fn returned NULL or the body is ill-formed (a reduction not at the top,
 * a reduction axis used outside its reduction). */
TVM_API tvm_tensor *tvm_compute(tvm_ctx *c, const char *name,
                                const int64_t *shape, int ndim,
                                tvm_compute_fn fn, void *ud);
TVM_API tvm_tensor *tvm_compute_sym(tvm_ctx *c, const char *name,
                                    tvm_expr **shape, int ndim,
                                    tvm_compute_fn fn, void *ud);
TVM_API void tvm_tensor_set_tag(tvm_tensor *t, const char *tag);

TVM_API tvm_iter_var *tvm_reduce_axis(tvm_ctx *c, const char *name,
                                      int64_t min, int64_t extent);
/* Thread axes for bind: tag "blockIdx.x", "threadIdx.y", "vthread", ... ;
 * extent NULL = taken from the bound loop. */
TVM_API tvm_iter_var *tvm_thread_axis(tvm_ctx *c, const char *tag,
                                      tvm_expr *extent);
TVM_API tvm_iter_var *tvm_iter_var_new(tvm_ctx *c, const char *name,
                                       tvm_expr *min, tvm_expr *extent,
                                       tvm_iter_kind kind);

TVM_API tvm_expr *tvm_reduce(tvm_ctx *c, tvm_reduce_op op, tvm_expr *source,
                             tvm_iter_var **axes, int naxes, tvm_expr *cond);
TVM_API tvm_expr *tvm_sum(tvm_ctx *c, tvm_expr *src, tvm_iter_var **axes,
                          int naxes);
TVM_API tvm_expr *tvm_rmax(tvm_ctx *c, tvm_expr *src, tvm_iter_var **axes,
                           int naxes);
TVM_API tvm_expr *tvm_rmin(tvm_ctx *c, tvm_expr *src, tvm_iter_var **axes,
                           int naxes);
/* The identity of a reduction (0, -inf, +inf, 1) in dtype t. */
TVM_API tvm_expr *tvm_reduce_identity(tvm_ctx *c, tvm_reduce_op op,
                                      tvm_dtype t);
/* acc (op) value. */
TVM_API tvm_expr *tvm_reduce_combine(tvm_ctx *c, tvm_reduce_op op,
                                     tvm_expr *acc, tvm_expr *value);

/* Reading a tensor element: TVM_AT(c, A, i, j). */
#define TVM_AT(c, t, ...)                                            \
  tvm_tread((c), (t), (tvm_expr *[]){__VA_ARGS__},                   \
            (int)(sizeof((tvm_expr *[]){__VA_ARGS__}) / sizeof(tvm_expr *)))

/* Tensors read by an operation's body, in first-use order (heap vector of
 * tvm_tensor*; free with tvm_ptrvec_free). */
TVM_API tvm_status tvm_op_inputs(const tvm_operation *op, tvm_ptrvec *out);
/* Every compute operation reachable from out through the bodies, out's
 * own first, each once (heap vector of tvm_operation*; the caller frees
 * it): what a schedule template walks to find its stages. */
TVM_API tvm_status tvm_op_reachable_computes(const tvm_tensor *out,
                                             tvm_ptrvec *ops);
/* Matches the shape of a matrix product: outs is one 2-d compute with one
 * reduce axis reading exactly two 2-d placeholders, returned in *a and *b
 * (in the order the compute reads them).  TVM_ERR_UNSUPPORTED otherwise,
 * the message prefixed by `who` (a template's name), so a strategy can
 * decline with it. */
TVM_API tvm_status tvm_op_match_matmul(tvm_tensor *const *outs, uint32_t nouts,
                                       const char *who, tvm_tensor **a,
                                       tvm_tensor **b);

/* ---- Winograd F(2x2, 3x3) (core/te/winograd.c) -------------------------- */
/* The kernel transform of W [K, C, 3, 3] (float32): U [4, 4, K, C],
 * U[., ., k, c] = G W[k, c] G^T (tag winograd_kernel); NULL with the
 * diagnostic set for another shape. */
TVM_API tvm_tensor *tvm_op_winograd_kernel(tvm_ctx *c, tvm_tensor *W);
/* The stride-1 3x3 convolution of X [N, C, H, W] from a transformed
 * kernel U [4, 4, K, C], zero padding pad_h / pad_w on both sides: input
 * transform (tag winograd_input), 16 GEMMs over C (winograd_batch_gemm),
 * output transform (winograd_output) giving Y [N, K, H + 2 pad_h - 2,
 * W + 2 pad_w - 2]; NULL with the diagnostic set. */
TVM_API tvm_tensor *tvm_op_winograd_conv2d(tvm_ctx *c, tvm_tensor *X,
                                           tvm_tensor *U, int64_t pad_h,
                                           int64_t pad_w);

/* ---- Winograd F(m x m, 3x3) on channel-blocked data, m = 2 or 4
 * (core/te/winograd_nchwc.c) ---------------------------------------------- */
/* The transform matrices of Winograd F(m x m, 3x3) (Lavin & Gray), m = 2
 * (points 0, 1, -1, infinity) or 4 (0, 1, -1, 2, -2, infinity), row-major:
 * Bt T x T, G T x 3, At m x T.  Returns T = m + 2, or 0 for another m.
 * One copy for every Winograd user of the core (TE, references). */
TVM_API int tvm_winograd_matrices(int m, const double **bt, const double **g,
                                  const double **at);
/* The kernel transform of W [K, C, 3, 3] (float32) for output tiles of m
 * and output blocks of ob channels: U [T, T, K/ob, C, ob], U[., ., ko, c,
 * ki] = G W[ko ob + ki, c] G^T (tag winograd_nchwc_kernel); name NULL:
 * "wino_U".  NULL with the diagnostic set for another shape, a block that
 * does not divide K or m not 2 or 4. */
TVM_API tvm_tensor *tvm_op_winograd_kernel_nchwc(tvm_ctx *c, tvm_tensor *W,
                                                 int m, int64_t ob,
                                                 const char *name);
/* The input transform of the stride-1 3x3 convolution of X [N, C/ib, H,
 * W, ib] (NCHW<ib>c) in output tiles of m x m, zero padding pad_h / pad_w
 * on both sides: V [T, T, P, C] over the P = N x ceil(OH/m) x ceil(OW/m)
 * output tiles (OH = H + 2 pad_h - 2, OW likewise).  Stages (tags): the
 * padded input (pad), the two halves of the transform
 * (winograd_nchwc_input_rows, winograd_nchwc_input = V, named name).
 * NULL with the diagnostic set. */
TVM_API tvm_tensor *tvm_op_winograd_input_nchwc(tvm_ctx *c, tvm_tensor *X,
                                                int m, int64_t pad_h,
                                                int64_t pad_w,
                                                const char *name);
/* The rest of it, from V [T, T, P, C] and a transformed kernel U [T, T,
 * K/ob, C, ob] (m = T - 2): Y [N, K/ob, OH, OW, ob] (NCHW<ob>c).  Stages
 * (tags): the T x T GEMMs over C (winograd_nchwc_batch_gemm), the two
 * halves of the output transform (winograd_nchwc_output_rows,
 * winograd_nchwc_output = Y, named name).  NULL with the diagnostic
 * set. */
TVM_API tvm_tensor *tvm_op_winograd_conv2d_nchwc(tvm_ctx *c, tvm_tensor *V,
                                                 tvm_tensor *U, int64_t N,
                                                 int64_t OH, int64_t OW,
                                                 const char *name);

/* ---- tensor intrinsics ------------------------------------------------ */
/* A tensor intrinsic replaces a loop nest that computes `pattern` (a
 * compute over placeholders) with target code.  When tensorize matches,
 * the lowering binds each input placeholder and the output to a buffer
 * describing the matched region (its elem_offset and strides in the real
 * tensor) and asks emit for the statements:
 *   body   - computes the whole region (used when no reduction is split);
 *   reset  - sets the output region to the reduction identity;
 *   update - accumulates into the output region.
 * emit may leave reset/update NULL when the pattern has no reduction; it
 * returns TVM_OK or an error with a diagnostic. */
typedef struct tvm_tensor_intrin tvm_tensor_intrin;
typedef tvm_status (*tvm_intrin_emit_fn)(tvm_ctx *c,
                                         const tvm_tensor_intrin *ti,
                                         tvm_buffer **inputs, int ninputs,
                                         tvm_buffer *output, tvm_stmt **body,
                                         tvm_stmt **reset, tvm_stmt **update);
struct tvm_tensor_intrin {
  const char *name;
  tvm_tensor *pattern;
  tvm_intrin_emit_fn emit;
  void *data; /* for emit */
};
TVM_API tvm_tensor_intrin *tvm_tensor_intrin_new(tvm_ctx *c, const char *name,
                                                 tvm_tensor *pattern,
                                                 tvm_intrin_emit_fn emit,
                                                 void *data);

#ifdef __cplusplus
}
#endif
#endif /* TVM_TE_H */
