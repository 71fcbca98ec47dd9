/*
 * tests/unit/graph/test_quantize.c - the quantize pass
 * (core/graph/passes/quantize.c) and its operator QConv_blocked
 * (core/graph/ops/qconv_blocked.c), through the reference evaluator:
 *
 *   x[1, 16, 8, 8] -> Conv c1 (32, 3x3, pad 1, bias) -> Relu
 *                  -> Conv c2 (16, 1x1, stride 2) -> y
 *   plus a first Conv c0 on 3 channels that no block of 16 divides.
 *
 * Checked: which convolutions are rewritten (c1, c2; not c0, not what
 * accept() declines), the operators around them, the output names, the
 * weights' blocked int8 layout, the shift, c1's bias (int32, in the
 * operator) and its Relu (fused: the clip at 0), the quantized graph's
 * output against the float one (cosine >= 0.999 on inputs that
 * calibration did not see), QConv_blocked's reference against a direct
 * int32 loop, and the refusals; calibration on the caller's samples
 * (the scales follow them) and the refusal of a mismatched sample.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/graph.h"
#include "tvm/graph_passes.h"

#define HW 8

static tvm_gvalue *rnd(tvm_graph *g, const char *name, const int64_t *s,
                       int nd, uint64_t seed, double scale) {
  return tvm_graph_random(g, name, s, nd, seed, scale);
}

/* x -> c0 (3 channels, its own input) ; x -> c1 -> relu -> c2 -> y */
static tvm_graph *build(void) {
  tvm_graph *g = NULL;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  tvm_gvalue *x = tvm_graph_input(g, "x", TVM_F32,
                                  (int64_t[]){1, 16, HW, HW}, 4);
  tvm_gvalue *z = tvm_graph_input(g, "z", TVM_F32,
                                  (int64_t[]){1, 3, HW, HW}, 4);
  tvm_gvalue *w0 = rnd(g, "w0", (int64_t[]){16, 3, 3, 3}, 4, 7, 0.3);
  tvm_gvalue *w1 = rnd(g, "w1", (int64_t[]){32, 16, 3, 3}, 4, 8, 0.2);
  tvm_gvalue *b1 = rnd(g, "b1", (int64_t[]){32}, 1, 9, 0.1);
  tvm_gvalue *w2 = rnd(g, "w2", (int64_t[]){16, 32, 1, 1}, 4, 10, 0.3);
  int64_t p1[4] = {1, 1, 1, 1}, s2[2] = {2, 2};
  tvm_gvalue *y0 = tvm_graph_apply(
      g, "Conv", "c0", TVM_IN(z, w0),
      TVM_ATTRS(tvm_gattr_ints("pads", p1, 4)), 1, NULL);
  tvm_gvalue *h = tvm_graph_apply(
      g, "Conv", "c1", TVM_IN(x, w1, b1),
      TVM_ATTRS(tvm_gattr_ints("pads", p1, 4)), 1, NULL);
  h = tvm_graph_apply(g, "Relu", "relu", TVM_IN(h), NULL, 0, 1, NULL);
  tvm_gvalue *y = tvm_graph_apply(
      g, "Conv", "c2", TVM_IN(h, w2),
      TVM_ATTRS(tvm_gattr_ints("strides", s2, 2)), 1, NULL);
  tvm_graph_mark_output(g, y);
  tvm_graph_mark_output(g, y0);
  assert_int_equal(tvm_graph_status(g), TVM_OK);
  return g;
}

static int count_op(const tvm_graph *g, const char *op) {
  int k = 0;
  for (size_t i = 0; i < g->nodes.len; i++)
    k += !strcmp(((const tvm_gnode *)g->nodes.data[i])->op, op);
  return k;
}

static const tvm_gnode *node(const tvm_graph *g, const char *name) {
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    if (n->name && !strcmp(n->name, name)) return n;
  }
  return NULL;
}

static tvm_status accept_all(void *ud, const tvm_gnode *n, int *yes) {
  (void)ud;
  assert_string_equal(n->op, "QConv_blocked");
  *yes = 1;
  return TVM_OK;
}

static tvm_status accept_none(void *ud, const tvm_gnode *n, int *yes) {
  (void)ud, (void)n;
  *yes = 0;
  return TVM_OK;
}

static const tvm_quant_scheme scheme = {1, 16, 16, 2, 77, NULL};

static void fill(float *x, int64_t n, uint64_t seed) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (float)(2 * ((double)(s >> 11) / 9007199254740992.0) - 1);
  }
}

/* Runs g on inputs from seed; y gets output 0 (16 * 4 * 4), y0 output 1. */
static void eval(const tvm_graph *g, uint64_t seed, float *y, float *y0) {
  static float x[16 * HW * HW], z[3 * HW * HW];
  fill(x, 16 * HW * HW, seed);
  fill(z, 3 * HW * HW, seed + 1);
  int64_t xs[4] = {1, 16, HW, HW}, zs[4] = {1, 3, HW, HW};
  int64_t ys[4] = {1, 16, HW / 2, HW / 2}, y0s[4] = {1, 16, HW, HW};
  DLTensor tx = {x, {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, xs, NULL, 0};
  DLTensor tz = {z, {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, zs, NULL, 0};
  DLTensor ty = {y, {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, ys, NULL, 0};
  DLTensor ty0 = {y0, {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, y0s, NULL, 0};
  const DLTensor *in[2] = {&tx, &tz};
  DLTensor *out[2] = {&ty, &ty0};
  if (tvm_graph_eval_reference(g, in, out) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
}

static void test_rewrites_and_agrees(void **state) {
  (void)state;
  tvm_graph *f = build(), *q = build();
  int nq = -1;
  if (tvm_graph_pass_quantize(q, &scheme, accept_all, NULL, &nq) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  assert_int_equal(nq, 2);
  assert_int_equal(count_op(q, "QConv_blocked"), 2);
  assert_int_equal(count_op(q, "Conv"), 1); /* c0: 3 channels */
  assert_non_null(node(q, "c0"));
  assert_int_equal(count_op(q, "QuantizeLinear"), 2);
  assert_int_equal(count_op(q, "DequantizeLinear"), 2);
  assert_int_equal(count_op(q, "Transpose"), 4);
  assert_int_equal(count_op(q, "Add"), 0);  /* the bias is in QConv_blocked */
  assert_int_equal(count_op(q, "Relu"), 0); /* fused: c1's only reader */
  /* the output keeps its name */
  const tvm_gvalue *y = q->outputs.data[0];
  assert_string_equal(y->name, ((tvm_gvalue *)f->outputs.data[0])->name);
  /* weights: int8 [M/16, C/16, KH, KW, 16, 16] */
  const tvm_gnode *qc = node(q, "c1.qconv");
  assert_non_null(qc);
  const tvm_gvalue *wq = qc->inputs[1];
  assert_int_equal(wq->dtype.code, kDLInt);
  assert_int_equal(wq->dtype.bits, 8);
  int64_t ws[6] = {2, 1, 3, 3, 16, 16};
  assert_memory_equal(wq->shape, ws, sizeof ws);
  /* power-of-two weight scale: max |w| quantizes to (64, 127] */
  int mx = 0;
  for (int64_t i = 0; i < tvm_gvalue_numel(wq); i++) {
    int v = abs(((const int8_t *)wq->data)[i]);
    if (v > mx) mx = v;
  }
  assert_true(mx > 63 && mx <= 127);
  int64_t shift = tvm_gnode_int(qc, "shift", -1);
  assert_true(shift >= 0 && shift <= 31);
  assert_int_equal(tvm_gnode_int(qc, "relu", -1), 1);
  /* c1's bias: int32 at the sum's scale, the output's full shape */
  assert_int_equal(qc->ninputs, 3);
  const tvm_gvalue *bq = qc->inputs[2];
  assert_int_equal(bq->dtype.code, kDLInt);
  assert_int_equal(bq->dtype.bits, 32);
  int64_t bs[6] = {1, 2, HW, HW, 1, 16};
  assert_memory_equal(bq->shape, bs, sizeof bs);
  const tvm_gnode *qc2 = node(q, "c2.qconv");
  assert_non_null(qc2);
  assert_int_equal(qc2->ninputs, 2); /* c2 has no bias */
  assert_int_equal(tvm_gnode_int(qc2, "relu", -1), 0);

  static float yf[16 * 16], yq[16 * 16], y0f[16 * HW * HW], y0q[16 * HW * HW];
  for (uint64_t seed = 500; seed < 503; seed++) {
    eval(f, seed, yf, y0f);
    eval(q, seed, yq, y0q);
    double ab = 0, aa = 0, bb = 0;
    for (int i = 0; i < 16 * 16; i++)
      ab += (double)yf[i] * yq[i], aa += (double)yf[i] * yf[i],
          bb += (double)yq[i] * yq[i];
    double c = ab / sqrt(aa * bb);
    print_message("seed %d: cosine(quantized, float) = %.5f\n", (int)seed, c);
    assert_true(c >= 0.999);
    /* c0 stayed float: bit-identical */
    assert_memory_equal(y0f, y0q, sizeof y0f);
  }
  tvm_graph_free(f);
  tvm_graph_free(q);
}

static void test_declined_stays_float(void **state) {
  (void)state;
  tvm_graph *f = build(), *q = build();
  int nq = -1;
  assert_int_equal(tvm_graph_pass_quantize(q, &scheme, accept_none, NULL, &nq),
                   TVM_OK);
  assert_int_equal(nq, 0);
  assert_int_equal(count_op(q, "QConv_blocked"), 0);
  assert_int_equal(count_op(q, "QuantizeLinear"), 0);
  assert_int_equal(count_op(q, "Conv"), 3);
  static float a[16 * 16], b[16 * 16], a0[16 * HW * HW], b0[16 * HW * HW];
  eval(f, 9, a, a0);
  eval(q, 9, b, b0);
  assert_memory_equal(a, b, sizeof a);
  tvm_graph_free(f);
  tvm_graph_free(q);
}

/* Blocks that divide no channel count leave every Conv float. */
static void test_blocks_must_divide(void **state) {
  (void)state;
  tvm_graph *q = build();
  tvm_quant_scheme s = {1, 24, 16, 1, 1, NULL};
  int nq = -1;
  assert_int_equal(tvm_graph_pass_quantize(q, &s, accept_all, NULL, &nq),
                   TVM_OK);
  assert_int_equal(nq, 0);
  assert_int_equal(count_op(q, "Conv"), 3);
  tvm_graph_free(q);
}

static void test_bad_scheme(void **state) {
  (void)state;
  tvm_graph *q = build();
  tvm_quant_scheme s = {1, 0, 16, 2, 1, NULL};
  assert_int_equal(tvm_graph_pass_quantize(q, &s, accept_all, NULL, NULL),
                   TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "blocks"));
  s.block_in = 16, s.ncalib = 0;
  assert_int_equal(tvm_graph_pass_quantize(q, &s, accept_all, NULL, NULL),
                   TVM_ERR_INVALID);
  tvm_graph_free(q);
}

/* The power-of-two exponent of the scale (input 1) of node name, a
 * QuantizeLinear or DequantizeLinear. */
static int scale_exp(const tvm_graph *g, const char *name) {
  const tvm_gnode *n = node(g, name);
  assert_non_null(n);
  const float *f = n->inputs[1]->data;
  int e = 0;
  assert_true(frexp(*f, &e) == 0.5); /* a power of two: 0.5 * 2^e */
  return e - 1;
}

/* Calibration samples: two samples of x and z (the synthetic samples'
 * values, x times xmul), samples[k * 2 + i] feeding input i. */
static float sx[2][16 * HW * HW], sz[2][3 * HW * HW];
static int64_t shx[4] = {1, 16, HW, HW}, shz[4] = {1, 3, HW, HW};
static DLTensor tsx[2], tsz[2];
static const DLTensor *samples[4];

static void make_samples(const tvm_quant_scheme *s, float xmul) {
  for (int k = 0; k < 2; k++) {
    /* the seeds of the synthetic samples (quantize.c: seed + k * 7919 + i) */
    fill(sx[k], 16 * HW * HW, s->seed + (uint64_t)k * 7919);
    fill(sz[k], 3 * HW * HW, s->seed + (uint64_t)k * 7919 + 1);
    for (int i = 0; i < 16 * HW * HW; i++) sx[k][i] *= xmul;
    tsx[k] = (DLTensor){sx[k], {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, shx, NULL, 0};
    tsz[k] = (DLTensor){sz[k], {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, shz, NULL, 0};
    samples[k * 2] = &tsx[k];
    samples[k * 2 + 1] = &tsz[k];
  }
}

/* The caller's samples replace the synthetic ones: the synthetic samples'
 * own values give the same scales, x ten times larger gives c1's input
 * (and output) a scale at least 2^3 larger. */
static void test_calibration_samples(void **state) {
  (void)state;
  static const char *const scales[4] = {"c1.xq", "c1.yd", "c2.xq", "c2.yd"};
  int def[4], same[4], big[4];
  tvm_quant_scheme s = scheme;
  tvm_graph *q = build();
  if (tvm_graph_pass_quantize(q, &s, accept_all, NULL, NULL) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  for (int i = 0; i < 4; i++) def[i] = scale_exp(q, scales[i]);
  tvm_graph_free(q);

  make_samples(&s, 1);
  s.samples = samples;
  s.seed = 12345; /* unused with samples */
  q = build();
  if (tvm_graph_pass_quantize(q, &s, accept_all, NULL, NULL) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  for (int i = 0; i < 4; i++) same[i] = scale_exp(q, scales[i]);
  tvm_graph_free(q);
  assert_memory_equal(def, same, sizeof def);

  make_samples(&scheme, 10);
  q = build();
  if (tvm_graph_pass_quantize(q, &s, accept_all, NULL, NULL) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  for (int i = 0; i < 4; i++) big[i] = scale_exp(q, scales[i]);
  tvm_graph_free(q);
  print_message("c1 input scale 2^%d synthetic, 2^%d on 10x samples; "
                "output 2^%d, 2^%d\n", def[0], big[0], def[1], big[1]);
  assert_true(big[0] >= def[0] + 3 && big[0] <= def[0] + 4);
  assert_true(big[1] > def[1]);
  assert_true(big[3] > def[3]);
}

/* A sample whose shape or dtype is not its input's is refused, naming the
 * sample, the input, what was expected and what was given. */
static void test_calibration_mismatch(void **state) {
  (void)state;
  tvm_quant_scheme s = scheme;
  make_samples(&s, 1);
  s.samples = samples;
  int64_t bad[4] = {1, 3, HW, HW - 1};
  tsz[1].shape = bad;
  tvm_graph *q = build();
  int nq = -1;
  assert_int_equal(tvm_graph_pass_quantize(q, &s, accept_all, NULL, &nq),
                   TVM_ERR_INVALID);
  assert_int_equal(nq, 0);
  const char *m = tvm_diag_message();
  print_message("%s\n", m);
  assert_non_null(strstr(m, "calibration sample 1 for input 'z'"));
  assert_non_null(strstr(m, "expected float32[1, 3, 8, 8], got "
                            "float32[1, 3, 8, 7]"));
  assert_non_null(strstr(m, "graph input's dtype and shape"));
  assert_int_equal(count_op(q, "Conv"), 3); /* nothing rewritten */
  tsz[1].shape = shz;
  tsx[0].dtype.bits = 64;
  assert_int_equal(tvm_graph_pass_quantize(q, &s, accept_all, NULL, NULL),
                   TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "calibration sample 0 for "
                         "input 'x': expected float32[1, 16, 8, 8], got "
                         "float64[1, 16, 8, 8]"));
  samples[0] = NULL;
  assert_int_equal(tvm_graph_pass_quantize(q, &s, accept_all, NULL, NULL),
                   TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "no tensor for input 'x'"));
  tvm_graph_free(q);
}

/* QConv_blocked's reference against a direct loop over logical NCHW
 * data (blocks 1 x 16 x 16, 3x3, stride 2, pad 1, a bias, shift 3,
 * relu). */
static void test_qconv_reference(void **state) {
  (void)state;
  enum { C = 32, M = 16, H = 7, K = 3, OH = 4 };
  static int8_t xl[C][H][H], wl[M][C][K][K], xb[2][H][H][1][16],
      wb[1][2][K][K][16][16], y[1][1][OH][OH][1][16];
  static int32_t bb[1][1][OH][OH][1][16];
  for (int i = 0; i < OH; i++)
    for (int j = 0; j < OH; j++)
      for (int m = 0; m < M; m++) bb[0][0][i][j][0][m] = (m - 8) * 500 + i - j;
  uint64_t s = 12345;
  for (int c = 0; c < C; c++)
    for (int i = 0; i < H; i++)
      for (int j = 0; j < H; j++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        xl[c][i][j] = (int8_t)((s >> 33) % 255 - 127);
        xb[c / 16][i][j][0][c % 16] = xl[c][i][j];
      }
  for (int m = 0; m < M; m++)
    for (int c = 0; c < C; c++)
      for (int i = 0; i < K; i++)
        for (int j = 0; j < K; j++) {
          s = s * 6364136223846793005ull + 1442695040888963407ull;
          wl[m][c][i][j] = (int8_t)((s >> 33) % 255 - 127);
          wb[0][c / 16][i][j][m][c % 16] = wl[m][c][i][j];
        }
  tvm_graph *g = NULL;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  tvm_gvalue *x = tvm_graph_input(g, "x", TVM_I8,
                                  (int64_t[]){1, 2, H, H, 1, 16}, 6);
  tvm_gvalue *w = tvm_graph_const(g, "w", TVM_I8,
                                  (int64_t[]){1, 2, K, K, 16, 16}, 6, wb);
  int64_t p[4] = {1, 1, 1, 1}, st[2] = {2, 2};
  tvm_gvalue *bv = tvm_graph_const(g, "b", TVM_I32,
                                   (int64_t[]){1, 1, OH, OH, 1, 16}, 6, bb);
  tvm_gvalue *o = tvm_graph_apply(
      g, "QConv_blocked", "q", TVM_IN(x, w, bv),
      TVM_ATTRS(tvm_gattr_ints("pads", p, 4), tvm_gattr_ints("strides", st, 2),
                tvm_gattr_int("shift", 3), tvm_gattr_int("relu", 1)),
      1, NULL);
  tvm_graph_mark_output(g, o);
  assert_int_equal(tvm_graph_status(g), TVM_OK);
  int64_t os[6] = {1, 1, OH, OH, 1, 16};
  assert_memory_equal(o->shape, os, sizeof os);
  int64_t xs[6] = {1, 2, H, H, 1, 16};
  DLTensor tx = {xb, {kDLCPU, 0}, 6, {kDLInt, 8, 1}, xs, NULL, 0};
  DLTensor ty = {y, {kDLCPU, 0}, 6, {kDLInt, 8, 1}, os, NULL, 0};
  const DLTensor *in[1] = {&tx};
  DLTensor *out[1] = {&ty};
  assert_int_equal(tvm_graph_eval_reference(g, in, out), TVM_OK);
  int nonzero = 0, clipped = 0;
  for (int m = 0; m < M; m++)
    for (int i = 0; i < OH; i++)
      for (int j = 0; j < OH; j++) {
        int32_t acc = 0;
        for (int c = 0; c < C; c++)
          for (int a = 0; a < K; a++)
            for (int b = 0; b < K; b++) {
              int ih = i * 2 + a - 1, iw = j * 2 + b - 1;
              if (ih < 0 || ih >= H || iw < 0 || iw >= H) continue;
              acc += xl[c][ih][iw] * wl[m][c][a][b];
            }
        int32_t v = (acc + bb[0][0][i][j][0][m]) >> 3;
        v = v < 0 ? 0 : v > 127 ? 127 : v;
        nonzero += v != 0, clipped += v == 127;
        assert_int_equal(y[0][0][i][j][0][m], v);
      }
  assert_true(nonzero > 0 && clipped > 0); /* both clip bounds exercised */
  /* a shift out of range is refused, naming the node */
  tvm_graph_apply(g, "QConv_blocked", "bad", TVM_IN(x, w),
                  TVM_ATTRS(tvm_gattr_int("shift", 40)), 1, NULL);
  assert_int_equal(tvm_graph_status(g), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "shift 40"));
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rewrites_and_agrees),
      cmocka_unit_test(test_declined_stays_float),
      cmocka_unit_test(test_blocks_must_divide),
      cmocka_unit_test(test_bad_scheme),
      cmocka_unit_test(test_calibration_samples),
      cmocka_unit_test(test_calibration_mismatch),
      cmocka_unit_test(test_qconv_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
