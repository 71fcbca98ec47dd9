/*
 * core/graph/ops/ops_int.h - private helpers shared by the operator
 * library (one file per operator family, see registry.c for the list).
 *
 * Conventions of every operator in this folder:
 *  - infer(g, n) only reads n (inputs, attributes) and writes the dtype,
 *    ndim and shape of n->outputs[k] (outputs that are NULL, i.e. absent
 *    optional ONNX outputs, are skipped).  It never uses g, which may be
 *    NULL (the unit tests call it on hand-built nodes).
 *  - Attributes are read with the op_attr_* helpers below, which check the
 *    attribute's type and fail with a message naming the node, the
 *    attribute and the fix.
 *  - compute(c, n, in, out) takes the output shapes from n->outputs (run
 *    infer first); in[i] is NULL for an absent optional input.  Inputs that
 *    must be constant (Reshape's shape, Slice's starts, ...) are read from
 *    the graph value's data, never from in[i].
 *  - reference(n, in, out) takes compact row-major CPU DLTensors; absent
 *    optional inputs/outputs are NULL.
 *  - The ONNX opset of a node is its integer attribute "_opset" (set by the
 *    ONNX importer), 13 when absent.
 */
#ifndef TVM_GRAPH_OPS_INT_H
#define TVM_GRAPH_OPS_INT_H

#include <stdint.h>

#include "tvm/graph.h"

/* ---- families (each file exports its definitions) --------------------- */
typedef struct ops_family {
  const tvm_gop_def *defs;
  int n;
} ops_family;

extern const ops_family ops_elementwise_family;
extern const ops_family ops_activation_family;
extern const ops_family ops_broadcast_family;
extern const ops_family ops_conv_family;
extern const ops_family ops_conv_transpose_family;
extern const ops_family ops_pool_family;
extern const ops_family ops_gemm_family;
extern const ops_family ops_norm_family;
extern const ops_family ops_softmax_family;
extern const ops_family ops_shape_family;
extern const ops_family ops_transform_family;
extern const ops_family ops_slice_family;
extern const ops_family ops_reduce_family;
extern const ops_family ops_cast_family;
extern const ops_family ops_lstm_family;
extern const ops_family ops_rearrange_family;
extern const ops_family ops_resize_family;
extern const ops_family ops_logic_family;
extern const ops_family ops_rnn_family;

/* ---- unary elementwise operators (elementwise.c, activation.c) -------- */
/* One scalar operator: p holds its parsed attributes (alpha, beta, ...). */
typedef struct unary_desc {
  const char *name;
  int dtmask; /* allowed dtypes (DT_*) */
  tvm_status (*params)(const tvm_gnode *n, double *p); /* NULL: none */
  double (*ref)(double x, const double *p);            /* float reference */
  int64_t (*iref)(int64_t x); /* integer reference, NULL if float only */
  tvm_expr *(*te)(tvm_ctx *c, tvm_expr *x, const double *p);
} unary_desc;
extern const unary_desc ops_activation_unary[];
extern const int ops_activation_nunary;
/* Generic implementations keyed by n->op (both tables are searched). */
tvm_status op_unary_infer(tvm_graph *g, tvm_gnode *n);
tvm_status op_unary_compute(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                         tvm_tensor **out);
tvm_status op_unary_reference(const tvm_gnode *n, const DLTensor *const *in,
                           DLTensor *const *out);

/* ---- sliding windows (conv.c; used by conv, pooling) ------------------ */
#define OP_MAX_SPATIAL 3
typedef struct op_window {
  int nsp;                          /* spatial dims */
  int64_t k[OP_MAX_SPATIAL];        /* kernel */
  int64_t s[OP_MAX_SPATIAL];        /* strides */
  int64_t d[OP_MAX_SPATIAL];        /* dilations */
  int64_t pads[2 * OP_MAX_SPATIAL]; /* begins, then ends (auto_pad resolved) */
  int64_t out[OP_MAX_SPATIAL];      /* output spatial sizes */
} op_window;
/* Reads strides, dilations (when has_dil), pads and auto_pad of n and
 * computes the output sizes for input spatial sizes in[] and kernel k[]
 * (ceil_mode rounds up as in pooling). */
tvm_status op_window_infer(const tvm_gnode *n, int nsp, const int64_t *in,
                           const int64_t *k, int has_dil, int ceil_mode,
                           op_window *w);

/* ---- recurrent networks (rnn.c: shared by LSTM, GRU, RNN) ------------- */
#define RNN_MAX_SEQ 64 /* the computes are unrolled over the sequence */
typedef struct rnn_act {
  int k;       /* the activation (rnn.c's table) */
  double a, b; /* alpha, beta */
} rnn_act;
typedef struct rnn_info {
  int64_t seq, batch, in, H;
  int dirs, reverse; /* reverse: the only direction runs backwards */
  double clip;       /* <= 0: none */
  rnn_act act[2][3]; /* per direction: f, g, h (as many as the op has) */
  int has_b, has_h0;
} rnn_info;
/* Validates inputs 0..5 (X, W [dirs, gates*H, in], R [dirs, gates*H, H],
 * B [dirs, 2*gates*H], sequence_lens, initial_h) and the attributes
 * hidden_size, layout (0 only), direction, clip, activations (one
 * comma-separated string, `per` names per direction, defaults dflt) and
 * activation_alpha/beta. */
tvm_status op_rnn_check(const tvm_gnode *n, int gates, int per,
                     const char *const *dflt, rnn_info *ri);
double op_rnn_act_ref(const rnn_act *f, double x);
tvm_expr *op_rnn_act_te(tvm_ctx *c, const rnn_act *f, tvm_expr *x);
/* v has exactly the shape s (nd dims). */
int op_rnn_has_shape(const tvm_gvalue *v, int nd, const int64_t *s);
/* Element i = (t, d, b, h) of Y: a select over (t, d) of the per-step
 * states st[d][t] ([batch, H] tensors). */
tvm_expr *op_rnn_te_y(tvm_ctx *c, tvm_expr **i, tvm_tensor *const st[][RNN_MAX_SEQ],
                   int dirs, int64_t seq);
/* Element i = (d, b, h) of Y_h (or Y_c): the state after the last step of
 * each direction (step 0 for a reverse direction). */
tvm_expr *op_rnn_te_last(tvm_ctx *c, tvm_expr **i,
                      tvm_tensor *const st[][RNN_MAX_SEQ], int dirs,
                      int64_t seq, int reverse);

/* ---- errors ----------------------------------------------------------- */
/* Sets the diagnostic to "<Op> node '<name>': <message>" and returns st. */
tvm_status op_fail(const tvm_gnode *n, tvm_status st, const char *fmt, ...)
    TVM_PRINTF(3, 4);
/* The node's name for messages and tensor names (its op when unnamed). */
const char *op_name(const tvm_gnode *n);
/* "_opset" attribute, 13 when absent. */
int op_opset(const tvm_gnode *n);

/* ---- attributes (type-checked) ---------------------------------------- */
/* Each returns TVM_OK and the value (the default when absent), or fails
 * naming the attribute when it has the wrong type. */
tvm_status op_attr_int(const tvm_gnode *n, const char *name, int64_t dflt,
                       int64_t *out);
/* Accepts an INT attribute too. */
tvm_status op_attr_float(const tvm_gnode *n, const char *name, double dflt,
                         double *out);
tvm_status op_attr_str(const tvm_gnode *n, const char *name, const char *dflt,
                       const char **out);
/* *len = -1 and *v = NULL when absent. */
tvm_status op_attr_ints(const tvm_gnode *n, const char *name, const int64_t **v,
                        int *len);

/* ---- inputs and outputs ----------------------------------------------- */
/* DT_ANY: the three everyday dtypes (not float64, not bool); the others
 * are added operator by operator as their computes and references are
 * checked for them. */
enum {
  DT_F32 = 1,
  DT_I32 = 2,
  DT_I64 = 4,
  DT_F64 = 8,
  DT_BOOL = 16,
  DT_ANY = 7,
  DT_I8 = 32,
  DT_U8 = 64,
  DT_I16 = 128,
  DT_U16 = 256,
  DT_U32 = 512,
  DT_U64 = 1024,
  DT_F16 = 2048,
  DT_BF16 = 4096,
  /* every integer, every float, everything */
  DT_INTS = DT_I8 | DT_U8 | DT_I16 | DT_U16 | DT_I32 | DT_U32 | DT_I64 |
            DT_U64,
  DT_FLOATS = DT_F32 | DT_F64 | DT_F16 | DT_BF16,
  DT_ALL = DT_INTS | DT_FLOATS | DT_BOOL,
  /* what a compute that only moves or compares elements accepts */
  DT_NUM = DT_INTS | DT_F32 | DT_F64,
  /* not a dtype: in a unary operator's mask, float16 and bfloat16 are
   * accepted too and computed in float32, rounded once at the end */
  DT_W16 = 8192
};
/* The DT_* bit of a dtype, 0 for others. */
int op_dt_bit(tvm_dtype t);
/* Input i (named `what` in messages), failing when absent. */
tvm_status op_input(const tvm_gnode *n, int i, const char *what,
                    const tvm_gvalue **out);
/* Input i is present and its dtype is in mask. */
tvm_status op_check_dtype(const tvm_gnode *n, int i, const char *what,
                          int mask);
/* Input i present (else *out NULL) and of dtype mask; for optionals. */
tvm_status op_opt_input(const tvm_gnode *n, int i, const char *what, int mask,
                        const tvm_gvalue **out);
/* Input i has no layout or a plain channel-first one ("NCHW", "NCW",
 * "NCDHW", "NC"): the computes here index plain row-major NC... data;
 * packed layouts (NCHW16c) need a layout-specific compute. */
tvm_status op_plain_layout(const tvm_gnode *n, int i);
/* Sets output k (skipped when absent). */
void op_set_out(tvm_gnode *n, int k, tvm_dtype t, int ndim,
                const int64_t *shape);
/* Reads a constant int32/int64 1-D (or scalar) input into buf (at most
 * max elements); *cnt = its length.  Fails when not constant. */
tvm_status op_const_ints(const tvm_gnode *n, int i, const char *what,
                         int64_t *buf, int max, int *cnt);
/* A constant float scalar (or one-element) input. */
tvm_status op_const_scalar(const tvm_gnode *n, int i, const char *what,
                           double *out);
/* Normalizes axis (which may be negative) into [0, rank). */
tvm_status op_axis(const tvm_gnode *n, const char *what, int64_t axis, int rank,
                   int *out);
/* Numpy multidirectional broadcast of two shapes. */
tvm_status op_broadcast(const tvm_gnode *n, const int64_t *a, int na,
                        const int64_t *b, int nb, int64_t *out, int *nout);
/* Writes "[2, 3]" into buf (for messages). */
const char *op_shape_str(char *buf, size_t cap, const int64_t *s, int n);

/* ---- tensor expression helpers --------------------------------------------
 */
/* Reads t at the broadcast position of an output index of out_ndim dims
 * (dims of size 1 read index 0; a scalar reads no index). */
tvm_expr *op_te_bcast_read(tvm_ctx *c, tvm_tensor *t, tvm_expr **idx,
                        int out_ndim);
/* Tensor name "<node>" or "<node>.<suffix>" in c's arena. */
const char *op_te_name(tvm_ctx *c, const tvm_gnode *n, const char *suffix);
/* tvm_compute with the node's output k shape; sets tag. */
tvm_tensor *op_te_compute_out(tvm_ctx *c, const tvm_gnode *n, int k,
                           const char *tag, tvm_compute_fn fn, void *ud);
/* A constant of dtype t. */
tvm_expr *op_te_const(tvm_ctx *c, tvm_dtype t, double v);
/* 16-bit floats (float16, bfloat16) accumulate in float32: is t one? */
int op_is_f16ish(tvm_dtype t);
/* e widened to float32 when wide, else e. */
tvm_expr *op_te_widen(tvm_ctx *c, tvm_expr *e, int wide);
/* An index k of an axis of n elements: k + n when negative, as int32,
 * clamped into [0, n) so that no read leaves the tensor. */
tvm_expr *op_te_wrap_index(tvm_ctx *c, tvm_expr *k, int64_t n);
/* The same for references (clamped the same way). */
int64_t op_wrap_index(int64_t k, int64_t n);
/* Row-major strides of shape s (nd dims) into st. */
void op_strides(const int64_t *s, int nd, int64_t *st);
/* x (float) rounded to the nearest integer, halves to even (ONNX Round,
 * QuantizeLinear), from floor only. */
tvm_expr *op_te_round_even(tvm_ctx *c, tvm_expr *x);
/* Zero-padded view of x: pads[0..nsp) before and after the trailing nsp
 * spatial dims (layout: begin pads, then end pads, ONNX order); reads
 * outside x are clamped so no out-of-range access happens when select
 * evaluates both sides.  Returns x when all pads are 0. */
tvm_tensor *op_te_pad(tvm_ctx *c, const tvm_gnode *n, tvm_tensor *x,
                   const int64_t *pads, int nsp, double value);
/* Status of a compute: the ctx's, or INVALID naming the node when a
 * tensor is NULL. */
tvm_status op_te_status(tvm_ctx *c, const tvm_gnode *n, tvm_tensor *t);

/* ---- DLTensor access for references ----------------------------------------
 */
int64_t op_dl_numel(const DLTensor *t);
double op_dl_getf(const DLTensor *t, int64_t i);
void op_dl_setf(const DLTensor *t, int64_t i, double v);
int64_t op_dl_geti(const DLTensor *t, int64_t i);
void op_dl_seti(const DLTensor *t, int64_t i, int64_t v);
int op_dl_is_float(const DLTensor *t);
int op_dl_elem_bytes(const DLTensor *t);
/* Flat index into src of the output element `flat` of out under numpy
 * broadcasting. */
int64_t op_dl_bcast_index(const DLTensor *src, const DLTensor *out, int64_t flat);
/* Unravels flat into idx (row-major) over shape. */
void op_dl_unravel(int64_t flat, const int64_t *shape, int ndim, int64_t *idx);
/* reduce.c: the axes a Reduce* node reduces (red[d], TVM_MAX_DIMS
 * entries, for its input's dimensions) and its keepdims. */
tvm_status op_reduce_axes(const tvm_gnode *n, int *red, int *keep);

#endif /* TVM_GRAPH_OPS_INT_H */
