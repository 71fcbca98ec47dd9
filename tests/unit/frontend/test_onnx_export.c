/*
 * tests/unit/frontend/test_onnx_export.c - tvm_onnx_save: zoo models
 * written as ONNX files and read back by the importer are the same graph
 * (operators in order, attributes, input/output shapes and dtypes, every
 * constant's bytes) and compute bit-identical outputs on the reference
 * evaluator; graphs with tvm-c's own operators are refused naming the
 * node; a failed export leaves no file behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/graph_passes.h"
#include "tvm/onnx.h"
#include "tvm/zoo.h"

/* A compact CPU tensor for value v, filled with a fixed pattern. */
static DLTensor *tensor_for(const tvm_gvalue *v, int fill) {
  DLTensor *t = calloc(1, sizeof *t);
  int64_t n = 1;
  for (int d = 0; d < v->ndim; d++) n *= v->shape[d];
  t->data = calloc((size_t)(n ? n : 1), (size_t)tvm_dtype_bytes(v->dtype));
  t->device.device_type = kDLCPU;
  t->ndim = v->ndim;
  t->dtype = v->dtype;
  t->shape = (int64_t *)v->shape;
  if (fill && tvm_dtype_is_float(v->dtype) && v->dtype.bits == 32)
    for (int64_t i = 0; i < n; i++)
      ((float *)t->data)[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
  return t;
}

static void tensor_free(DLTensor *t) {
  if (!t) return;
  free(t->data);
  free(t);
}

/* Runs g on the reference evaluator with the fixed input pattern; returns
 * the outputs (caller frees). */
static DLTensor **eval(const tvm_graph *g) {
  size_t ni = g->inputs.len, no = g->outputs.len;
  DLTensor **in = calloc(ni + 1, sizeof *in);
  DLTensor **out = calloc(no + 1, sizeof *out);
  for (size_t i = 0; i < ni; i++) in[i] = tensor_for(g->inputs.data[i], 1);
  for (size_t i = 0; i < no; i++) out[i] = tensor_for(g->outputs.data[i], 0);
  assert_int_equal(tvm_graph_eval_reference(g, (const DLTensor *const *)in,
                                            out),
                   TVM_OK);
  for (size_t i = 0; i < ni; i++) tensor_free(in[i]);
  free(in);
  return out;
}

/* Same graph: nodes, attributes, values. */
static void assert_same_graph(const tvm_graph *a, const tvm_graph *b) {
  assert_int_equal(a->nodes.len, b->nodes.len);
  for (size_t i = 0; i < a->nodes.len; i++) {
    const tvm_gnode *x = a->nodes.data[i], *y = b->nodes.data[i];
    assert_string_equal(x->op, y->op);
    assert_int_equal(x->ninputs, y->ninputs);
    assert_int_equal(x->noutputs, y->noutputs);
    for (int k = 0; k < x->noutputs; k++) {
      const tvm_gvalue *u = x->outputs[k], *v = y->outputs[k];
      assert_string_equal(u->name, v->name);
      assert_int_equal(u->ndim, v->ndim);
      assert_memory_equal(u->shape, v->shape, sizeof(int64_t) * u->ndim);
      assert_true(tvm_dtype_eq(u->dtype, v->dtype));
    }
    for (int k = 0; k < x->ninputs; k++) {
      const tvm_gvalue *u = x->inputs[k], *v = y->inputs[k];
      assert_true((u == NULL) == (v == NULL));
      if (!u || u->kind != TVM_GV_CONST) continue;
      assert_int_equal(v->kind, TVM_GV_CONST);
      assert_int_equal(tvm_gvalue_bytes(u), tvm_gvalue_bytes(v));
      assert_memory_equal(u->data, v->data, (size_t)tvm_gvalue_bytes(u));
    }
    for (int k = 0; k < x->nattrs; k++) {
      if (x->attrs[k].name[0] == '_') continue;
      int found = 0;
      for (int j = 0; j < y->nattrs; j++)
        if (!strcmp(x->attrs[k].name, y->attrs[j].name)) {
          found = 1;
          assert_int_equal(x->attrs[k].type, y->attrs[j].type);
          assert_int_equal(x->attrs[k].i, y->attrs[j].i);
          assert_int_equal(x->attrs[k].n, y->attrs[j].n);
        }
      assert_true(found);
    }
  }
  assert_int_equal(a->inputs.len, b->inputs.len);
  assert_int_equal(a->outputs.len, b->outputs.len);
}

static void round_trip(const char *name) {
  char path[] = "/tmp/tvm_export_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  tvm_graph *g = NULL, *h = NULL;
  assert_int_equal(tvm_zoo_build(name, &g), TVM_OK);
  assert_int_equal(tvm_onnx_save(g, path, 17), TVM_OK);
  if (tvm_onnx_load(path, &h) != TVM_OK) fail_msg("%s", tvm_diag_message());
  assert_same_graph(g, h);
  DLTensor **x = eval(g), **y = eval(h);
  for (size_t i = 0; i < g->outputs.len; i++) {
    const tvm_gvalue *v = g->outputs.data[i];
    assert_memory_equal(x[i]->data, y[i]->data, (size_t)tvm_gvalue_bytes(v));
    tensor_free(x[i]);
    tensor_free(y[i]);
  }
  free(x);
  free(y);
  tvm_graph_free(g);
  tvm_graph_free(h);
  unlink(path);
}

static void test_mlp(void **state) { (void)state; round_trip("mlp"); }
static void test_squeezenet(void **state) {
  (void)state;
  round_trip("squeezenet");
}
static void test_lstm_lm(void **state) { (void)state; round_trip("lstm_lm"); }
static void test_dqn(void **state) { (void)state; round_trip("dqn"); }

/* After alter_layout the graph holds Conv_NCHWc: refused, naming it, and
 * nothing is written. */
static void test_refuses_own_ops(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  assert_int_equal(tvm_zoo_build("mlp", &g), TVM_OK);
  tvm_gnode *n = g->nodes.data[0];
  const char *op = n->op;
  n->op = "Conv_NCHWc";
  const char *path = "/tmp/tvm_export_refused.onnx";
  unlink(path);
  assert_int_equal(tvm_onnx_save(g, path, 17), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "Conv_NCHWc"));
  assert_int_equal(access(path, F_OK), -1);
  n->op = op;
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mlp),
      cmocka_unit_test(test_squeezenet),
      cmocka_unit_test(test_lstm_lm),
      cmocka_unit_test(test_dqn),
      cmocka_unit_test(test_refuses_own_ops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
