/*
 * plugin-sdk/cts/cts_programs.c - the loop programs every plugin must
 * compile (and run, where it can): an elementwise add with a scalar
 * extent, a 2-D affine loop nest, a max/select, and integer floor
 * division.  Each comes with its naive C reference.
 */
#include <math.h>
#include <string.h>

#include "cts.h"

/* A module holding f, allocated in c. */
static tvm_module *module_of(tvm_ctx *c, tvm_func *f) {
  tvm_module *m = tvm_ctx_alloc(c, sizeof(*m));
  if (m == NULL || f == NULL) return NULL;
  m->ctx = c;
  if (tvm_module_add(m, f) != TVM_OK) return NULL;
  return m;
}

/* Buffers of p as 1-D tvm_buffers; params[i] = their data vars. */
static void make_params(tvm_ctx *c, const cts_program *p, tvm_buffer **bufs,
                        tvm_expr **params) {
  static const char *const names[4] = {"A", "B", "C", "D"};
  for (int i = 0; i < p->nbufs; i++) {
    tvm_expr *shape = tvm_const(c, TVM_I32, p->bufs[i].n);
    bufs[i] = tvm_buffer_new(c, names[i], p->bufs[i].dtype, &shape, 1,
                             "global");
    params[i] = bufs[i] ? bufs[i]->data : NULL;
  }
}

/* Deterministic test input values in [-6, 6.5]. */
static float in_f32(int64_t i, int salt) {
  return (float)((i * 37 + salt * 11) % 101) / 8.0f - 6.0f;
}

/* ---- add: C[i] = A[i] + B[i] for i < n ------------------------------------ */
static tvm_module *build_add(tvm_ctx *c, const cts_program *p,
                             const tvm_lower_options *o) {
  tvm_buffer *b[4] = {0};
  tvm_expr *params[4];
  make_params(c, p, b, params);
  tvm_expr *n = tvm_var(c, "n", TVM_I32);
  params[3] = n;
  tvm_expr *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *sum = tvm_add(c, tvm_load(c, TVM_F32, params[0], i, NULL),
                          tvm_load(c, TVM_F32, params[1], i, NULL));
  tvm_stmt *body = tvm_for(c, i, tvm_int(c, 0), n, TVM_FOR_SERIAL, NULL,
                           tvm_store(c, params[2], i, sum, NULL));
  return module_of(c, tvm_func_new(c, p->name, params, b, 4, body));
}

/* Inputs and reference of cts_add. */
static void ref_add(const cts_program *p, void **in, void **ref) {
  float *a = in[0], *b = in[1], *c = ref[2];
  for (int64_t i = 0; i < p->bufs[0].n; i++) a[i] = in_f32(i, 1);
  for (int64_t i = 0; i < p->bufs[1].n; i++) b[i] = in_f32(i, 2);
  for (int64_t i = 0; i < p->bufs[2].n; i++)
    c[i] = i < p->n ? a[i] + b[i] : 0.0f;
}

/* ---- scale2d: B[i*S + j] = A[i*S + j] * 2.5 + 1 ------------------------- */
enum { R = 13, S = 37 };
/* A 2-D affine loop nest over a flat buffer. */
static tvm_module *build_scale2d(tvm_ctx *c, const cts_program *p,
                                 const tvm_lower_options *o) {
  tvm_buffer *b[4] = {0};
  tvm_expr *params[4];
  make_params(c, p, b, params);
  tvm_expr *i = tvm_var(c, "i", TVM_I32), *j = tvm_var(c, "j", TVM_I32);
  tvm_expr *idx = tvm_add(c, tvm_mul(c, i, tvm_int(c, S)), j);
  tvm_expr *v = tvm_add(c,
                        tvm_mul(c, tvm_load(c, TVM_F32, params[0], idx, NULL),
                                tvm_f32(c, 2.5)),
                        tvm_f32(c, 1.0));
  tvm_stmt *inner = tvm_for(c, j, tvm_int(c, 0), tvm_int(c, S),
                            TVM_FOR_SERIAL, NULL,
                            tvm_store(c, params[1], idx, v, NULL));
  tvm_stmt *outer =
      tvm_for(c, i, tvm_int(c, 0), tvm_int(c, R), TVM_FOR_SERIAL, NULL, inner);
  return module_of(c, tvm_func_new(c, p->name, params, b, 2, outer));
}

/* Inputs and reference of cts_scale2d. */
static void ref_scale2d(const cts_program *p, void **in, void **ref) {
  float *a = in[0], *b = ref[1];
  for (int64_t i = 0; i < R * S; i++) a[i] = in_f32(i, 3);
  for (int64_t i = 0; i < R * S; i++) b[i] = a[i] * 2.5f + 1.0f;
}

/* ---- relu: B[i] = max(A[i], 0) + select(A[i] < -1, -1, 0) --------------- */
static tvm_module *build_relu(tvm_ctx *c, const cts_program *p,
                              const tvm_lower_options *o) {
  tvm_buffer *b[4] = {0};
  tvm_expr *params[4];
  make_params(c, p, b, params);
  tvm_expr *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *a = tvm_load(c, TVM_F32, params[0], i, NULL);
  tvm_expr *v = tvm_add(
      c, tvm_max(c, a, tvm_f32(c, 0)),
      tvm_select(c, tvm_lt(c, a, tvm_f32(c, -1)), tvm_f32(c, -1),
                 tvm_f32(c, 0)));
  tvm_stmt *body =
      tvm_for(c, i, tvm_int(c, 0), tvm_int(c, (int)p->bufs[0].n),
              TVM_FOR_SERIAL, NULL, tvm_store(c, params[1], i, v, NULL));
  return module_of(c, tvm_func_new(c, p->name, params, b, 2, body));
}

/* Inputs and reference of cts_relu. */
static void ref_relu(const cts_program *p, void **in, void **ref) {
  float *a = in[0], *b = ref[1];
  for (int64_t i = 0; i < p->bufs[0].n; i++) a[i] = in_f32(i, 4);
  for (int64_t i = 0; i < p->bufs[0].n; i++)
    b[i] = (a[i] > 0 ? a[i] : 0) + (a[i] < -1 ? -1.0f : 0.0f);
}

/* ---- floordiv: B[i] = floordiv(7i - 20, 3) * 10 + floormod(7i - 20, 3) */
static tvm_module *build_floordiv(tvm_ctx *c, const cts_program *p,
                                  const tvm_lower_options *o) {
  tvm_buffer *b[4] = {0};
  tvm_expr *params[4];
  make_params(c, p, b, params);
  tvm_expr *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *x = tvm_sub(c, tvm_mul(c, i, tvm_int(c, 7)), tvm_int(c, 20));
  tvm_expr *v =
      tvm_add(c, tvm_mul(c, tvm_floordiv(c, x, tvm_int(c, 3)), tvm_int(c, 10)),
              tvm_floormod(c, x, tvm_int(c, 3)));
  tvm_stmt *body =
      tvm_for(c, i, tvm_int(c, 0), tvm_int(c, (int)p->bufs[0].n),
              TVM_FOR_SERIAL, NULL, tvm_store(c, params[0], i, v, NULL));
  return module_of(c, tvm_func_new(c, p->name, params, b, 1, body));
}

/* Reference of cts_floordiv (floor semantics done by hand). */
static void ref_floordiv(const cts_program *p, void **in, void **ref) {
  int32_t *b = ref[0];
  for (int64_t i = 0; i < p->bufs[0].n; i++) {
    int32_t x = (int32_t)(7 * i - 20);
    int32_t q = x / 3, r = x % 3;
    if (r != 0 && ((r < 0) != (3 < 0))) q--, r += 3;
    b[i] = q * 10 + r;
  }
}

/* ---- tensor expressions, lowered with the target's options ------------ */
enum { TR = 17, TC = 33 };

/* The TE body of cts_te_bias_relu. */
static tvm_expr *bias_relu_fn(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* A[TR, TC], B[TC] */
  return tvm_max(c, tvm_add(c, TVM_AT(c, in[0], i[0], i[1]),
                            TVM_AT(c, in[1], i[1])),
                 tvm_f32(c, 0));
}

/* The TE body of cts_te_rowsum (a sum over k). */
static tvm_expr *rowsum_fn(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* A[TR, TC] */
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, TC);
  return tvm_sum(c, TVM_AT(c, in[0], i[0], k->var), &k, 1);
}

/* Declares out = fn(inputs), splits its innermost data axis by 8 (a
 * schedule every target can run: no threads, no vectors) and lowers. */
static tvm_module *lower_te(tvm_ctx *c, const cts_program *p,
                            const tvm_lower_options *o, tvm_tensor **in,
                            int nin, const int64_t *shape, int ndim,
                            tvm_compute_fn fn) {
  tvm_tensor *out = tvm_compute(c, "out", shape, ndim, fn, in);
  tvm_module *m = tvm_ctx_alloc(c, sizeof(*m));
  tvm_schedule *s = NULL;
  if (out == NULL || m == NULL ||
      tvm_schedule_create(c, &out, 1, &s) != TVM_OK)
    return NULL;
  m->ctx = c;
  tvm_stage *st = tvm_stage_of(s, out);
  tvm_iter_var *xo, *xi;
  tvm_tensor *args[4] = {in[0], nin > 1 ? in[1] : out, out, NULL};
  tvm_status rc = tvm_split(st, tvm_stage_axis(st, ndim - 1), 8, &xo, &xi);
  if (rc == TVM_OK) rc = tvm_lower(s, args, nin + 1, p->name, o, m);
  tvm_schedule_free(s);
  return rc == TVM_OK ? m : NULL;
}

/* cts_te_bias_relu: two placeholders, one compute, lowered. */
static tvm_module *build_bias_relu(tvm_ctx *c, const cts_program *p,
                                   const tvm_lower_options *o) {
  int64_t sa[2] = {TR, TC}, sb[1] = {TC};
  tvm_tensor *in[2] = {tvm_placeholder(c, "A", TVM_F32, sa, 2),
                       tvm_placeholder(c, "B", TVM_F32, sb, 1)};
  if (!in[0] || !in[1]) return NULL;
  return lower_te(c, p, o, in, 2, sa, 2, bias_relu_fn);
}

/* Inputs and reference of cts_te_bias_relu. */
static void ref_bias_relu(const cts_program *p, void **in, void **ref) {
  float *a = in[0], *b = in[1], *c = ref[2];
  for (int64_t i = 0; i < TR * TC; i++) a[i] = in_f32(i, 5);
  for (int64_t j = 0; j < TC; j++) b[j] = in_f32(j, 6);
  for (int64_t i = 0; i < TR; i++)
    for (int64_t j = 0; j < TC; j++) {
      float v = a[i * TC + j] + b[j];
      c[i * TC + j] = v > 0 ? v : 0;
    }
}

/* cts_te_rowsum: a reduction, lowered. */
static tvm_module *build_rowsum(tvm_ctx *c, const cts_program *p,
                                const tvm_lower_options *o) {
  int64_t sa[2] = {TR, TC}, so[1] = {TR};
  tvm_tensor *in[1] = {tvm_placeholder(c, "A", TVM_F32, sa, 2)};
  if (!in[0]) return NULL;
  return lower_te(c, p, o, in, 1, so, 1, rowsum_fn);
}

/* Inputs and reference of cts_te_rowsum. */
static void ref_rowsum(const cts_program *p, void **in, void **ref) {
  float *a = in[0], *d = ref[1];
  for (int64_t i = 0; i < TR * TC; i++) a[i] = in_f32(i, 7);
  for (int64_t i = 0; i < TR; i++) {
    float acc = 0;
    for (int64_t k = 0; k < TC; k++) acc += a[i * TC + k];
    d[i] = acc;
  }
}

#define F32 {kDLFloat, 32, 1}
#define I32 {kDLInt, 32, 1}
const cts_program cts_programs[] = {
    {"cts_add", "elementwise add C = A + B over a scalar extent n", 3,
     {{F32, 1027, 0}, {F32, 1027, 0}, {F32, 1027, 1}}, 1, 1000, build_add,
     ref_add},
    {"cts_scale2d", "2-D loop nest B[i*37+j] = A[i*37+j] * 2.5 + 1", 2,
     {{F32, R * S, 0}, {F32, R * S, 1}}, 0, 0, build_scale2d, ref_scale2d},
    {"cts_relu", "max and select: B = max(A, 0) + (A < -1 ? -1 : 0)", 2,
     {{F32, 257, 0}, {F32, 257, 1}}, 0, 0, build_relu, ref_relu},
    {"cts_floordiv", "int32 floordiv/floormod of negative values", 1,
     {{I32, 64, 1}}, 0, 0, build_floordiv, ref_floordiv},
    {"cts_te_bias_relu",
     "lowered TE: C[i,j] = max(A[i,j] + B[j], 0), 17x33, split by 8", 3,
     {{F32, TR * TC, 0}, {F32, TC, 0}, {F32, TR * TC, 1}}, 0, 0,
     build_bias_relu, ref_bias_relu},
    {"cts_te_rowsum", "lowered TE reduction: D[i] = sum_k A[i,k], 17x33", 2,
     {{F32, TR * TC, 0}, {F32, TR, 1}}, 0, 0, build_rowsum, ref_rowsum},
};
const int cts_nprograms = sizeof cts_programs / sizeof cts_programs[0];
