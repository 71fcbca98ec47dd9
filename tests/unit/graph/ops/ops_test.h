/*
 * tests/unit/graph/ops/ops_test.h - harness of the operator tests: nodes
 * built by hand (no graph builder needed; infer is called with g = NULL),
 * shape/dtype expectations, error expectations, the reference run on
 * DLTensors, and the compute checked against the reference with the TE
 * interpreter of tests/unit/schedule/te_eval.h.
 *
 * Input values for compute checks are a fixed function of the flat index
 * (gen kinds below), built both as a TE compute (the op's input tensor)
 * and as DLTensor data for the reference.
 */
#ifndef TVM_TEST_OPS_TEST_H
#define TVM_TEST_OPS_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first */
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/graph.h"

#include "../../schedule/te_eval.h"

/* helpers not every test file uses */
#define TU __attribute__((unused))

/* ---- arena of the test ------------------------------------------------ */
static tvm_arena *T_arena;

static TU int t_setup(void **state) {
  T_arena = tvm_arena_create();
  return T_arena ? 0 : -1;
}
static TU int t_teardown(void **state) {
  (void)expect_same_values; /* te_eval.h's schedule helper, unused here */
  tvm_arena_destroy(T_arena);
  T_arena = NULL;
  return 0;
}

/* ---- values and nodes ------------------------------------------------- */
static TU tvm_gvalue *tval(tvm_dtype t, int ndim, const int64_t *shape) {
  tvm_gvalue *v = tvm_arena_alloc(T_arena, sizeof *v);
  v->dtype = t;
  v->ndim = ndim;
  v->kind = TVM_GV_INPUT;
  v->name = "in";
  for (int d = 0; d < ndim; d++)
    v->shape[d] = shape[d];
  return v;
}
#define TV(t, ...)                                                             \
  tval(t, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),           \
       (int64_t[]){__VA_ARGS__})
#define TF(...) TV(TVM_F32, __VA_ARGS__)
static TU tvm_gvalue *tscalar(tvm_dtype t) { return tval(t, 0, NULL); }

/* A constant int64 vector. */
static TU tvm_gvalue *tci64(int n, const int64_t *vals) {
  int64_t len = n;
  tvm_gvalue *v = tval(TVM_I64, 1, &len);
  v->kind = TVM_GV_CONST;
  int64_t *d = tvm_arena_alloc(T_arena, sizeof(int64_t) * (size_t)(n + 1));
  memcpy(d, vals, sizeof(int64_t) * (size_t)n);
  v->data = d;
  return v;
}
#define TCI(...)                                                               \
  tci64((int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),             \
        (int64_t[]){__VA_ARGS__})
/* A constant float32 tensor. */
static TU tvm_gvalue *tcf32(int ndim, const int64_t *shape, const float *vals) {
  tvm_gvalue *v = tval(TVM_F32, ndim, shape);
  v->kind = TVM_GV_CONST;
  int64_t n = 1;
  for (int d = 0; d < ndim; d++)
    n *= shape[d];
  float *d = tvm_arena_alloc(T_arena, sizeof(float) * (size_t)(n + 1));
  memcpy(d, vals, sizeof(float) * (size_t)n);
  v->data = d;
  return v;
}
static TU tvm_gvalue *tcscalar(float x) { return tcf32(0, NULL, &x); }

/* A node applying op; outputs allocated (noutputs of them). */
static TU tvm_gnode *tnode(const char *op, tvm_gvalue **in, int nin,
                           const tvm_gattr *attrs, int nattrs, int nout) {
  tvm_gnode *n = tvm_arena_alloc(T_arena, sizeof *n);
  n->op = op;
  n->name = "n";
  n->def = tvm_gop_find(op);
  assert_non_null(n->def);
  n->inputs =
      tvm_arena_alloc(T_arena, sizeof(tvm_gvalue *) * (size_t)(nin + 1));
  for (int i = 0; i < nin; i++)
    n->inputs[i] = in[i];
  n->ninputs = nin;
  n->outputs =
      tvm_arena_alloc(T_arena, sizeof(tvm_gvalue *) * (size_t)(nout + 1));
  for (int k = 0; k < nout; k++) {
    n->outputs[k] = tvm_arena_alloc(T_arena, sizeof(tvm_gvalue));
    n->outputs[k]->kind = TVM_GV_INTERMEDIATE;
    n->outputs[k]->producer = n;
    n->outputs[k]->index = k;
  }
  n->noutputs = nout;
  if (nattrs) {
    n->attrs = tvm_arena_alloc(T_arena, sizeof(tvm_gattr) * (size_t)nattrs);
    memcpy(n->attrs, attrs, sizeof(tvm_gattr) * (size_t)nattrs);
  }
  n->nattrs = nattrs;
  n->group = -1;
  return n;
}
#define NODE(op, in_and_n, attrs_and_n) tnode(op, in_and_n, attrs_and_n, 1)
#define NODEK(op, in_and_n, attrs_and_n, k) tnode(op, in_and_n, attrs_and_n, k)

/* Runs infer and asserts success. */
static TU tvm_gnode *tinfer(tvm_gnode *n) {
  tvm_status st = n->def->infer(NULL, n);
  if (st)
    fail_msg("%s infer failed: %s", n->op, tvm_diag_message());
  return n;
}

/* Output k has dtype t and the given shape. */
static TU void expect_out(const tvm_gnode *n, int k, tvm_dtype t, int ndim,
                          const int64_t *shape) {
  const tvm_gvalue *v = n->outputs[k];
  char a[32], b[32];
  if (!tvm_dtype_eq(v->dtype, t))
    fail_msg("%s output %d dtype %s, expected %s", n->op, k,
             tvm_dtype_str(v->dtype, a), tvm_dtype_str(t, b));
  assert_int_equal(v->ndim, ndim);
  for (int d = 0; d < ndim; d++)
    if (v->shape[d] != shape[d])
      fail_msg("%s output %d dim %d = %lld, expected %lld", n->op, k, d,
               (long long)v->shape[d], (long long)shape[d]);
}
#define EXPECT_SHAPE(n, k, t, ...)                                             \
  expect_out(tinfer(n), k, t,                                                  \
             (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),        \
             (int64_t[]){__VA_ARGS__})
#define EXPECT_SCALAR(n, k, t) expect_out(tinfer(n), k, t, 0, NULL)

/* infer fails with status st and a message containing each substring. */
static TU void expect_fail(tvm_gnode *n, tvm_status want, const char *sub1,
                           const char *sub2) {
  tvm_diag_clear();
  tvm_status st = n->def->infer(NULL, n);
  if (st == TVM_OK)
    fail_msg("%s infer succeeded, expected failure with '%s'", n->op, sub1);
  const char *m = tvm_diag_message();
  if (want && st != want)
    fail_msg("%s: status %s, expected %s (%s)", n->op, tvm_status_name(st),
             tvm_status_name(want), m);
  if (sub1 && !strstr(m, sub1))
    fail_msg("%s: message '%s' lacks '%s'", n->op, m, sub1);
  if (sub2 && !strstr(m, sub2))
    fail_msg("%s: message '%s' lacks '%s'", n->op, m, sub2);
  if (!strstr(m, "node 'n'"))
    fail_msg("%s: message '%s' does not name the node", n->op, m);
}

/* ---- DLTensors -------------------------------------------------------- */
static TU DLTensor *tdl(const tvm_gvalue *v) {
  DLTensor *t = tvm_arena_alloc(T_arena, sizeof *t);
  int64_t n = tvm_gvalue_numel(v);
  int eb = v->dtype.bits <= 8 ? 1 : v->dtype.bits / 8;
  t->data = tvm_arena_alloc(T_arena, (size_t)(n * eb + 16));
  t->ndim = v->ndim;
  t->shape = (int64_t *)v->shape;
  t->dtype = v->dtype;
  t->device.device_type = kDLCPU;
  if (v->kind == TVM_GV_CONST && v->data)
    memcpy(t->data, v->data, (size_t)(n * eb));
  return t;
}

static TU int64_t dl_numel_t(const DLTensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape[d];
  return n;
}

/* float16 / bfloat16 bits <-> float, rounding to nearest even (normal
 * numbers, zero and float16 subnormals; enough for test data). */
static TU float t16_get(uint16_t h, int bf16) {
  uint32_t u;
  float f;
  if (bf16) {
    u = (uint32_t)h << 16;
    memcpy(&f, &u, 4);
    return f;
  }
  int ex = (h >> 10) & 0x1f, man = h & 0x3ff;
  f = ex ? ldexpf((float)(man | 0x400), ex - 25) : ldexpf((float)man, -24);
  return (h & 0x8000) ? -f : f;
}
static TU uint16_t t16_set(float f, int bf16) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if (bf16)
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  float a = fabsf(f);
  if (a == 0.0f)
    return sign;
  if (a >= 65520.0f)
    return sign | 0x7c00;
  int e;
  frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  int q = e - 11 < -24 ? -24 : e - 11; /* the last place's exponent */
  float m = nearbyintf(ldexpf(a, -q)); /* integer, round to nearest even */
  uint32_t v = (uint32_t)m;
  if (q == -24 && v < 0x400)
    return sign | (uint16_t)v; /* subnormal */
  if (v >= 0x800) { v >>= 1; q++; }
  return sign | (uint16_t)(((q + 25) << 10) | (v & 0x3ff));
}

static TU double tget(const DLTensor *t, int64_t i) {
  if ((t->dtype.code == kDLFloat || t->dtype.code == kDLBfloat) &&
      t->dtype.bits == 16)
    return t16_get(((uint16_t *)t->data)[i], t->dtype.code == kDLBfloat);
  if (t->dtype.code == kDLFloat)
    return ((float *)t->data)[i];
  if (t->dtype.bits == 32)
    return ((int32_t *)t->data)[i];
  if (t->dtype.bits == 64)
    return (double)((int64_t *)t->data)[i];
  return ((uint8_t *)t->data)[i];
}
static TU void tset(DLTensor *t, int64_t i, double x) {
  if ((t->dtype.code == kDLFloat || t->dtype.code == kDLBfloat) &&
      t->dtype.bits == 16)
    ((uint16_t *)t->data)[i] = t16_set((float)x, t->dtype.code == kDLBfloat);
  else if (t->dtype.code == kDLFloat)
    ((float *)t->data)[i] = (float)x;
  else if (t->dtype.bits == 32)
    ((int32_t *)t->data)[i] = (int32_t)x;
  else if (t->dtype.bits == 64)
    ((int64_t *)t->data)[i] = (int64_t)x;
  else
    ((uint8_t *)t->data)[i] = x != 0; /* bool */
}

/* Runs the reference of an inferred node on float inputs given as arrays
 * (NULL for absent or constant inputs); returns the output tensors. */
static TU DLTensor **tref(tvm_gnode *n, const double *const *data) {
  DLTensor **in = tvm_arena_alloc(T_arena, sizeof(DLTensor *) * 16);
  DLTensor **out = tvm_arena_alloc(T_arena, sizeof(DLTensor *) * 8);
  for (int i = 0; i < n->ninputs; i++) {
    if (!n->inputs[i])
      continue;
    in[i] = tdl(n->inputs[i]);
    if (data && data[i])
      for (int64_t e = 0; e < tvm_gvalue_numel(n->inputs[i]); e++)
        tset(in[i], e, data[i][e]);
  }
  for (int k = 0; k < n->noutputs; k++)
    if (n->outputs[k])
      out[k] = tdl(n->outputs[k]);
  tvm_status st = n->def->reference(n, (const DLTensor *const *)in, out);
  if (st)
    fail_msg("%s reference failed: %s", n->op, tvm_diag_message());
  return out;
}
#define D(...) ((const double[]){__VA_ARGS__})
#define INS(...) ((const double *const[]){__VA_ARGS__})

/* Output k of the reference equals want (len values). */
static TU void expect_vals(const DLTensor *t, const double *want, int64_t len) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape[d];
  assert_int_equal(n, len);
  for (int64_t i = 0; i < len; i++)
    if (fabs(tget(t, i) - want[i]) > 1e-5 * (1 + fabs(want[i])))
      fail_msg("element %lld = %.7g, expected %.7g", (long long)i, tget(t, i),
               want[i]);
}
#define EXPECT_VALS(t, ...)                                                    \
  expect_vals(t, (const double[]){__VA_ARGS__},                                \
              (int64_t)(sizeof((double[]){__VA_ARGS__}) / sizeof(double)))

/* ---- compute vs reference --------------------------------------------- */
/* G_REAL: multiples of 1/8 in [-6, 6); G_SMALL: [-0.5, 0.5) (keeps
 * saturating units like LSTM gates in their sensitive range); G_POS:
 * (0.25, 6.3); G_INT: integers in [-6, 6]; G_NZINT: the same without 0;
 * G_IDX: integers in [-range, range). */
enum { G_REAL, G_POS, G_INT, G_NZINT, G_IDX, G_SMALL };

typedef struct gen_ud {
  int kind, k;
  int64_t range; /* G_IDX: values in [-range, range) */
  const tvm_gvalue *v;
} gen_ud;

/* The generated value of element flat (same formula as gen_body). */
static TU double gen_val(const gen_ud *g, int64_t flat) {
  int64_t m = (flat * 37 + 11 + 13 * g->k) % 97;
  switch (g->kind) {
  case G_REAL:
    return (double)m / 8.0 - 6.0;
  case G_POS:
    return (double)m / 16.0 + 0.25;
  case G_SMALL:
    return (double)m / 97.0 - 0.5;
  case G_INT:
    return (double)((flat * 7 + 3 + g->k) % 13 - 6);
  case G_NZINT: {
    int64_t x = (flat * 7 + 3 + g->k) % 13 - 6;
    return (double)(x == 0 ? 1 : x);
  }
  default:
    return (double)((flat * 5 + 2) % (2 * g->range) - g->range);
  }
}

static TU tvm_expr *gen_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  gen_ud *g = ud;
  const tvm_gvalue *v = g->v;
  tvm_expr *flat = tvm_int(c, 0);
  for (int d = 0; d < v->ndim; d++)
    flat = tvm_add(c, tvm_mul(c, flat, tvm_int(c, v->shape[d])), i[d]);
  tvm_expr *r;
  switch (g->kind) {
  case G_REAL:
  case G_SMALL:
  case G_POS: {
    tvm_expr *m = tvm_floormod(c,
                               tvm_add(c, tvm_mul(c, flat, tvm_int(c, 37)),
                                       tvm_int(c, 11 + 13 * g->k)),
                               tvm_int(c, 97));
    tvm_expr *f = tvm_cast(c, TVM_F32, m);
    r = g->kind == G_REAL
            ? tvm_sub(c, tvm_div(c, f, tvm_f32(c, 8)), tvm_f32(c, 6))
        : g->kind == G_SMALL
            ? tvm_sub(c, tvm_div(c, f, tvm_f32(c, 97)), tvm_f32(c, 0.5))
            : tvm_add(c, tvm_div(c, f, tvm_f32(c, 16)), tvm_f32(c, 0.25));
    return tvm_cast(c, v->dtype, r);
  }
  case G_INT:
  case G_NZINT:
    r = tvm_sub(c,
                tvm_floormod(c,
                             tvm_add(c, tvm_mul(c, flat, tvm_int(c, 7)),
                                     tvm_int(c, 3 + g->k)),
                             tvm_int(c, 13)),
                tvm_int(c, 6));
    if (g->kind == G_NZINT)
      r = tvm_select(c, tvm_eq(c, r, tvm_int(c, 0)), tvm_int(c, 1), r);
    return tvm_cast(c, v->dtype, r);
  default:
    r = tvm_sub(
        c,
        tvm_floormod(c,
                     tvm_add(c, tvm_mul(c, flat, tvm_int(c, 5)), tvm_int(c, 2)),
                     tvm_int(c, 2 * g->range)),
        tvm_int(c, g->range));
    return tvm_cast(c, v->dtype, r);
  }
}

/* A constant of dtype t (float or integer). */
static TU tvm_expr *op_const_of(tvm_ctx *c, tvm_dtype t, double v) {
  return tvm_dtype_is_float(t) ? tvm_fconst(c, t, v)
                               : tvm_const(c, t, (int64_t)v);
}

/* A small constant input as a compute whose body selects its values by
 * flat index, so that computes reading constant inputs as tensors see
 * the data the reference sees. */
typedef struct const_ud {
  const tvm_gvalue *v;
  const DLTensor *d;
} const_ud;

static TU tvm_expr *const_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  const_ud *u = ud;
  tvm_expr *flat = tvm_int(c, 0);
  for (int d = 0; d < u->v->ndim; d++)
    flat = tvm_add(c, tvm_mul(c, flat, tvm_int(c, u->v->shape[d])), i[d]);
  int64_t n = tvm_gvalue_numel(u->v);
  tvm_expr *e = op_const_of(c, u->v->dtype, tget(u->d, n - 1));
  for (int64_t k = n - 2; k >= 0; k--)
    e = tvm_select(c, tvm_eq(c, flat, tvm_int(c, k)),
                   op_const_of(c, u->v->dtype, tget(u->d, k)), e);
  return e;
}

/* Checks every output of the node's compute against its reference.
 * kinds[i]: generator of input i (G_REAL when kinds is NULL); range is the
 * G_IDX range.  Constant inputs use their data. */
/* The pow the compute's TVM_INTRIN_POW is evaluated with in
 * check_compute_g (NULL: libm's): a test sets it to model a device's. */
static double (*T_pow)(double, double);

static TU void check_compute_g(tvm_gnode *n, const int *kinds, int64_t range) {
  tinfer(n);
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[16] = {0}, *out[8] = {0};
  gen_ud g[16];
  const_ud cu[16];
  DLTensor *din[16] = {0}, *dout[8] = {0};
  for (int i = 0; i < n->ninputs; i++) {
    const tvm_gvalue *v = n->inputs[i];
    if (!v)
      continue;
    din[i] = tdl(v);
    char name[16];
    snprintf(name, sizeof name, "src%d", i);
    if (v->kind == TVM_GV_CONST) {
      if (tvm_gvalue_numel(v) > 0 && tvm_gvalue_numel(v) <= 64) {
        cu[i].v = v;
        cu[i].d = din[i];
        in[i] = tvm_compute(c, name, v->shape, v->ndim, const_body, &cu[i]);
      } else {
        in[i] = tvm_placeholder(c, name, v->dtype, v->shape, v->ndim);
      }
      continue;
    }
    g[i].kind = kinds ? kinds[i] : G_REAL;
    g[i].k = i;
    g[i].range = range;
    g[i].v = v;
    in[i] = tvm_compute(c, name, v->shape, v->ndim, gen_body, &g[i]);
    assert_non_null(in[i]);
    for (int64_t e = 0; e < tvm_gvalue_numel(v); e++)
      tset(din[i], e, gen_val(&g[i], e));
  }
  for (int k = 0; k < n->noutputs; k++)
    if (n->outputs[k])
      dout[k] = tdl(n->outputs[k]);
  tvm_status st = n->def->compute(c, n, in, out);
  if (st)
    fail_msg("%s compute failed: %s", n->op, tvm_diag_message());
  st = n->def->reference(n, (const DLTensor *const *)din, dout);
  if (st)
    fail_msg("%s reference failed: %s", n->op, tvm_diag_message());
  te_eval ev = {.pow = T_pow};
  for (int k = 0; k < n->noutputs; k++) {
    if (!n->outputs[k])
      continue;
    assert_non_null(out[k]);
    assert_int_equal(out[k]->ndim, n->outputs[k]->ndim);
    for (int d = 0; d < out[k]->ndim; d++)
      assert_int_equal(out[k]->shape_c[d], n->outputs[k]->shape[d]);
    double *got = te_eval_tensor(&ev, out[k]);
    for (int64_t e = 0; e < tvm_gvalue_numel(n->outputs[k]); e++) {
      double want = tget(dout[k], e);
      if (got[e] != want && !(fabs(got[e] - want) <= 1e-4 * (1 + fabs(want))))
        fail_msg("%s output %d element %lld: compute %.7g, reference %.7g",
                 n->op, k, (long long)e, got[e], want);
    }
  }
  te_eval_free(&ev);
  tvm_ctx_destroy(c);
}
static TU void check_compute(tvm_gnode *n) { check_compute_g(n, NULL, 0); }
#define KINDS(...) ((const int[]){__VA_ARGS__})

#endif /* TVM_TEST_OPS_TEST_H */
