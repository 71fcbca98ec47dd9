/*
 * tests/unit/graph/graph_test.h - helpers shared by the graph IR tests:
 * comparing printed graphs, building small constants, and running a
 * graph with the reference evaluator on deterministic random inputs.
 */
#ifndef TVM_TESTS_GRAPH_TEST_H
#define TVM_TESTS_GRAPH_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tvm/graph.h"
#include "tvm/graph_passes.h"

/* Fails the test, showing both texts, when the printed graph differs. */
static inline void expect_graph(const tvm_graph *g, const char *want) {
  char *got = tvm_graph_str(g);
  assert_non_null(got);
  if (strcmp(got, want) != 0) {
    print_error("--- expected\n%s--- got\n%s---\n", want, got);
    tvm_free(got);
    fail();
  }
  tvm_free(got);
}

/* Fails with the diagnostic when st is not TVM_OK. */
#define CHECK_OK(st)                                                        \
  do {                                                                      \
    tvm_status st_ = (st);                                                  \
    if (st_ != TVM_OK) fail_msg("status %d: %s", st_, tvm_diag_message());  \
  } while (0)

/* A float32 constant of n given values and the given shape. */
static inline tvm_gvalue *const_f32(tvm_graph *g, const char *name,
                                    const int64_t *shape, int ndim,
                                    const float *v) {
  return tvm_graph_const(g, name, tvm_dt(kDLFloat, 32, 1), shape, ndim, v);
}

/* Owned CPU tensors of a graph's inputs or outputs. */
typedef struct tensors {
  int n;
  DLTensor t[8];
} tensors;

/* Allocates one compact tensor per value of vals (dtype and shape of the
 * value); float inputs get uniform values in [-1, 1) from seed. */
static inline void tensors_alloc(tensors *ts, const tvm_ptrvec *vals,
                                 uint64_t seed) {
  ts->n = (int)vals->len;
  assert_true(ts->n <= 8);
  for (int i = 0; i < ts->n; i++) {
    const tvm_gvalue *v = vals->data[i];
    DLTensor *t = &ts->t[i];
    memset(t, 0, sizeof *t);
    t->device.device_type = kDLCPU;
    t->dtype = v->dtype;
    t->ndim = v->ndim;
    t->shape = tvm_calloc(8, sizeof(int64_t));
    memcpy(t->shape, v->shape, sizeof(int64_t) * (size_t)v->ndim);
    int64_t n = tvm_gvalue_numel(v);
    t->data = tvm_calloc((size_t)(tvm_gvalue_bytes(v) + 1), 1);
    assert_non_null(t->data);
    if (v->dtype.code == kDLFloat && v->dtype.bits == 32) {
      uint64_t s = seed + 977u * (uint64_t)i;
      for (int64_t k = 0; k < n; k++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        ((float *)t->data)[k] = (float)((double)(s >> 11) * 0x1.0p-53 * 2.0 - 1.0);
      }
    }
  }
}

static inline void tensors_free(tensors *ts) {
  for (int i = 0; i < ts->n; i++) {
    tvm_free(ts->t[i].data);
    tvm_free(ts->t[i].shape);
  }
  ts->n = 0;
}

/* Runs g with the reference evaluator: outputs allocated here. */
static inline void eval_graph(const tvm_graph *g, tensors *in, tensors *out) {
  tensors_alloc(out, &g->outputs, 0);
  const DLTensor *inp[8];
  DLTensor *outp[8];
  for (int i = 0; i < in->n; i++) inp[i] = &in->t[i];
  for (int i = 0; i < out->n; i++) outp[i] = &out->t[i];
  CHECK_OK(tvm_graph_eval_reference(g, inp, outp));
}

/* Every float32 element of a and b agrees within rtol (relative to the
 * largest magnitude of the tensor, so values near zero do not dominate). */
static inline void expect_close(const tensors *a, const tensors *b,
                                double rtol) {
  assert_int_equal(a->n, b->n);
  for (int i = 0; i < a->n; i++) {
    const DLTensor *x = &a->t[i], *y = &b->t[i];
    assert_int_equal(x->ndim, y->ndim);
    int64_t n = 1;
    for (int d = 0; d < x->ndim; d++) {
      assert_int_equal(x->shape[d], y->shape[d]);
      n *= x->shape[d];
    }
    if (x->dtype.code != kDLFloat) {
      assert_memory_equal(x->data, y->data, (size_t)n * (x->dtype.bits / 8));
      continue;
    }
    const float *p = x->data, *q = y->data;
    double scale = 1e-6;
    for (int64_t k = 0; k < n; k++) scale = fmax(scale, fabs(p[k]));
    for (int64_t k = 0; k < n; k++)
      if (fabs(p[k] - q[k]) > rtol * scale)
        fail_msg("output %d element %lld: %.9g vs %.9g", i, (long long)k,
                 p[k], q[k]);
  }
}

#endif /* TVM_TESTS_GRAPH_TEST_H */
