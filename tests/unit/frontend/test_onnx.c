/*
 * tests/unit/frontend/test_onnx.c - the ONNX importer and tensor reader.
 *
 * Models are built here with the generated protobuf-c structs (the test
 * links the generated bindings itself: libtvm hides them), serialized and
 * imported; the imported graphs are checked by their structure and by
 * running them with the reference evaluator against hand-computed values,
 * and every refusal is checked for its status and the words of its
 * message.  The robustness test truncates and corrupts real models and
 * requires every load to succeed or fail cleanly.
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

#include "onnx.pb-c.h"
#include "tvm/graph_passes.h"
#include "tvm/onnx.h"

#include "onnx_mb.h"

/* ---- tests ------------------------------------------------------------------ */

/* y = (relu(x + b) * c) with b an initializer and c a Constant: structure
 * (names, inputs, CONST kinds, "_opset") and values by the reference. */
static void test_import_and_run(void **state) {
  (void)state;
  mb b;
  mb_init(&b, 13);
  int64_t xd[2] = {2, 3}, bd[1] = {3};
  float bias[3] = {1, -2, 0.5f};
  float cval[3] = {2, 3, -1};
  mb_input(&b, "x", F, 2, xd);
  mb_input(&b, "b", F, 1, bd); /* also an initializer: a CONST */
  mb_init_f32(&b, "b", 1, bd, bias, 3);
  mb_const_raw(&b, "cnode", "c", F, 1, bd, cval, sizeof cval);
  mb_node(&b, "Add", "add1", NAMES("x", "b"), NAMES("t"));
  mb_node(&b, "Relu", "", NAMES("t"), NAMES("r"));
  mb_node(&b, "Mul", NULL, NAMES("r", "c"), NAMES("y"));
  mb_output(&b, "y", F, 2, xd);

  tvm_graph *g = NULL;
  tvm_status st = mb_load(&b, NULL, &g);
  if (st)
    fail_msg("import failed: %s", tvm_diag_message());
  assert_int_equal(g->inputs.len, 1);
  const tvm_gvalue *x = g->inputs.data[0];
  assert_string_equal(x->name, "x");
  assert_int_equal(x->ndim, 2);
  assert_int_equal(x->shape[1], 3);
  assert_int_equal(g->outputs.len, 1);
  assert_string_equal(((tvm_gvalue *)g->outputs.data[0])->name, "y");
  /* Constant: no node, a CONST value named after its output */
  assert_int_equal(g->nodes.len, 3);
  const char *want_names[3] = {"add1", "r", "y"};
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    assert_string_equal(n->name, want_names[i]);
    assert_int_equal(tvm_gnode_int(n, "_opset", -1), 13);
  }
  const tvm_gnode *mul = g->nodes.data[2];
  assert_string_equal(mul->op, "Mul");
  assert_int_equal(mul->inputs[1]->kind, TVM_GV_CONST);
  assert_string_equal(mul->inputs[1]->name, "c");
  assert_memory_equal(mul->inputs[1]->data, cval, sizeof cval);
  const tvm_gnode *add = g->nodes.data[0];
  assert_int_equal(add->inputs[1]->kind, TVM_GV_CONST);
  assert_string_equal(add->inputs[1]->name, "b");
  assert_string_equal(add->outputs[0]->name, "t");

  float xin[6] = {-3, 0, 1, 2, 5, -0.25f}, out[6];
  int64_t shape[2] = {2, 3};
  DLTensor tx = {xin, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor ty = {out, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  const DLTensor *ins[1] = {&tx};
  DLTensor *outs[1] = {&ty};
  st = tvm_graph_eval_reference(g, ins, outs);
  if (st)
    fail_msg("eval failed: %s", tvm_diag_message());
  for (int i = 0; i < 6; i++) {
    float v = xin[i] + bias[i % 3];
    float want = (v > 0 ? v : 0) * cval[i % 3];
    assert_float_equal(out[i], want, 1e-6);
  }
  tvm_graph_free(g);
}

/* Weights big enough (>= 64 KiB) for the graph to hold protobuf-c's
 * block instead of copying it: an initializer and a Constant hold their
 * bytes after the loader (and its protobuf memory) is gone, a big bool
 * initializer is still normalized to 0/1 (copied), the values run right
 * under the reference; a load that fails after a big initializer frees
 * everything (the sanitizer tree's LeakSanitizer). */
static void test_big_weights(void **state) {
  (void)state;
  enum { R = 160, C = 512, N = R * C }; /* more than ONNX_IMPORT_FOLD_MAX */
  mb b;
  mb_init(&b, 13);
  int64_t d[2] = {R, C};
  float *w = malloc(sizeof(float) * N), *cv = malloc(sizeof(float) * N);
  unsigned char *m = malloc(N);
  assert_non_null(w);
  assert_non_null(cv);
  assert_non_null(m);
  for (int i = 0; i < N; i++) {
    w[i] = (float)i * 0.25f;
    cv[i] = (float)(i % 7) - 3.0f;
    m[i] = (unsigned char)(i % 3); /* 2 is true too */
  }
  mb_input(&b, "x", F, 2, d);
  mb_init_raw(&b, "w", F, 2, d, w, sizeof(float) * N);
  mb_init_raw(&b, "m", ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, 2, d, m, N);
  mb_const_raw(&b, "cnode", "c", F, 2, d, cv, sizeof(float) * N);
  mb_node(&b, "Add", "add", NAMES("x", "w"), NAMES("t"));
  mb_node(&b, "Mul", "mul", NAMES("t", "c"), NAMES("u"));
  Onnx__NodeProto *cast = mb_node(&b, "Cast", "cast", NAMES("m"), NAMES("mf"));
  mb_attr_i(&b, cast, "to", F);
  mb_node(&b, "Add", "y", NAMES("u", "mf"), NAMES("y"));
  mb_output(&b, "y", F, 2, d);

  tvm_graph *g = NULL;
  if (mb_load(&b, NULL, &g))
    fail_msg("import failed: %s", tvm_diag_message());
  assert_int_equal(g->nodes.len, 4); /* nothing folded at import */
  const tvm_gnode *add = g->nodes.data[0], *mul = g->nodes.data[1];
  const tvm_gnode *cn2 = g->nodes.data[2];
  assert_string_equal(cn2->op, "Cast");
  assert_string_equal(add->inputs[1]->name, "w");
  assert_memory_equal(add->inputs[1]->data, w, sizeof(float) * N);
  assert_string_equal(mul->inputs[1]->name, "c");
  assert_memory_equal(mul->inputs[1]->data, cv, sizeof(float) * N);
  const unsigned char *mg = cn2->inputs[0]->data;
  for (int i = 0; i < N; i++)
    if (mg[i] != (i % 3 != 0)) fail_msg("bool element %d is %d", i, mg[i]);

  float *xin = malloc(sizeof(float) * N), *out = malloc(sizeof(float) * N);
  assert_non_null(xin);
  assert_non_null(out);
  for (int i = 0; i < N; i++) xin[i] = (float)(i % 11) - 5.0f;
  DLTensor tx = {xin, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, d, NULL, 0};
  DLTensor ty = {out, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, d, NULL, 0};
  const DLTensor *ins[1] = {&tx};
  DLTensor *outs[1] = {&ty};
  if (tvm_graph_eval_reference(g, ins, outs))
    fail_msg("eval failed: %s", tvm_diag_message());
  for (int i = 0; i < N; i++) {
    float want = (xin[i] + w[i]) * cv[i] + (i % 3 != 0 ? 1.0f : 0.0f);
    if (out[i] != want) fail_msg("y[%d] = %g, want %g", i, out[i], want);
  }
  tvm_graph_free(g);

  /* the same weights, then a node no one knows */
  b.nodes[4].op_type = "FooBar";
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_UNSUPPORTED);
  assert_diag_has("FooBar");
  free(xin);
  free(out);
  free(w);
  free(cv);
  free(m);
}

/* An operator outside the registry: UNSUPPORTED, naming it, the node, the
 * opset and listing the supported ones. */
static void test_unsupported_operator(void **state) {
  (void)state;
  mb b;
  mb_init(&b, 13);
  int64_t d[1] = {4};
  mb_input(&b, "x", F, 1, d);
  mb_node(&b, "Relu", "n1", NAMES("x"), NAMES("a"));
  mb_node(&b, "FooBar", "n3", NAMES("a"), NAMES("y"));
  mb_output(&b, "y", F, 1, d);
  tvm_graph *g;
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_UNSUPPORTED);
  assert_diag_has("unsupported operator 'FooBar' at node 'n3' (opset 13)");
  assert_diag_has("supported: ");
  assert_diag_has("Relu");
  assert_diag_has("test.onnx");
  /* another domain */
  b.nodes[1].op_type = "Relu";
  b.nodes[1].domain = "com.example";
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_UNSUPPORTED);
  assert_diag_has("domain 'com.example'");
}

/* Opsets outside 1..21 are refused; 1 and 21 load. */
static void test_opset_range(void **state) {
  (void)state;
  int64_t opsets[4] = {0, 22, 1, 21};
  tvm_status want[4] = {TVM_ERR_UNSUPPORTED, TVM_ERR_UNSUPPORTED, TVM_OK,
                        TVM_OK};
  for (int i = 0; i < 4; i++) {
    mb b;
    mb_init(&b, opsets[i]);
    int64_t d[1] = {4};
    mb_input(&b, "x", F, 1, d);
    mb_node(&b, "Relu", "n1", NAMES("x"), NAMES("y"));
    mb_output(&b, "y", F, 1, d);
    tvm_graph *g;
    tvm_status st = mb_load(&b, NULL, &g);
    if (st != want[i])
      fail_msg("opset %lld: status %d (%s)", (long long)opsets[i], st,
               tvm_diag_message());
    if (st) {
      char s[32];
      snprintf(s, sizeof s, "opset %lld", (long long)opsets[i]);
      assert_diag_has(s);
      assert_diag_has("1 to 21");
    } else {
      const tvm_gnode *n = g->nodes.data[0];
      assert_int_equal(tvm_gnode_int(n, "_opset", -1), opsets[i]);
      tvm_graph_free(g);
    }
  }
}

/* Undefined and doubly defined value names; outputs nobody produces. */
static void test_bad_names(void **state) {
  (void)state;
  mb b;
  mb_init(&b, 13);
  int64_t d[1] = {4};
  mb_input(&b, "x", F, 1, d);
  mb_node(&b, "Relu", "n1", NAMES("nope"), NAMES("y"));
  mb_output(&b, "y", F, 1, d);
  tvm_graph *g;
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_INVALID);
  assert_diag_has("node 'n1' (Relu): input 0 'nope' is not defined");

  mb_init(&b, 13);
  mb_input(&b, "x", F, 1, d);
  mb_node(&b, "Relu", "n1", NAMES("x"), NAMES("y"));
  mb_node(&b, "Neg", "n2", NAMES("x"), NAMES("y"));
  mb_output(&b, "y", F, 1, d);
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_INVALID);
  assert_diag_has("value 'y' is defined twice");
  assert_diag_has("node 'n2'");

  mb_init(&b, 13);
  mb_input(&b, "x", F, 1, d);
  mb_node(&b, "Relu", "n1", NAMES("x"), NAMES("y"));
  mb_output(&b, "z", F, 1, d);
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_INVALID);
  assert_diag_has("graph output 'z' is not produced");
}

/* Types: a STRING input is unsupported; a declared
 * output type or shape that disagrees with inference is invalid. */
static void test_types(void **state) {
  (void)state;
  mb b;
  int64_t d[1] = {4}, d5[1] = {5};
  mb_init(&b, 13);
  mb_input(&b, "x", ONNX__TENSOR_PROTO__DATA_TYPE__STRING, 1, d);
  mb_node(&b, "Relu", "n1", NAMES("x"), NAMES("y"));
  mb_output(&b, "y", ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, 1, d);
  tvm_graph *g;
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_UNSUPPORTED);
  assert_diag_has("graph input 'x' has data type STRING");

  mb_init(&b, 13);
  mb_input(&b, "x", F, 1, d);
  mb_node(&b, "Relu", "n1", NAMES("x"), NAMES("y"));
  mb_output(&b, "y", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, d);
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_INVALID);
  assert_diag_has("graph output 'y': the model declares int64");

  mb_init(&b, 13);
  mb_input(&b, "x", F, 1, d);
  mb_node(&b, "Relu", "n1", NAMES("x"), NAMES("y"));
  mb_output(&b, "y", F, 1, d5);
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_INVALID);
  assert_diag_has("declares shape [5]");
  assert_diag_has("infer [4]");

  /* an input without a shape */
  mb_init(&b, 13);
  mb_input(&b, "x", F, -1, NULL);
  mb_node(&b, "Relu", "n1", NAMES("x"), NAMES("y"));
  mb_output(&b, "y", F, -1, NULL);
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_UNSUPPORTED);
  assert_diag_has("graph input 'x' has no shape");
}

/* A symbolic dimension is refused naming it, and loads once bound. */
static void test_symbolic_dim(void **state) {
  (void)state;
  mb b;
  int64_t d[2] = {-1, 3};
  mb_init(&b, 13);
  mb_input(&b, "x", F, 2, d);
  mb_node(&b, "Relu", "n1", NAMES("x"), NAMES("y"));
  mb_output(&b, "y", F, 2, d);
  tvm_graph *g;
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_UNSUPPORTED);
  assert_diag_has("graph input 'x': dimension 0 is the symbolic 'N'");
  tvm_onnx_dim bind = {"N", 7};
  tvm_onnx_options opts = {&bind, 1, NULL, 0, NULL, 0};
  tvm_status st = mb_load(&b, &opts, &g);
  if (st)
    fail_msg("%s", tvm_diag_message());
  const tvm_gvalue *y = g->outputs.data[0];
  assert_int_equal(y->shape[0], 7);
  assert_int_equal(y->shape[1], 3);
  tvm_graph_free(g);
}

/* An input frozen by the options becomes a CONST with the given data;
 * a constant of the wrong shape is refused. */
static void test_freeze_input(void **state) {
  (void)state;
  mb b;
  int64_t d[1] = {3};
  mb_init(&b, 13);
  mb_input(&b, "x", F, 1, d);
  mb_input(&b, "s", F, 1, d);
  mb_node(&b, "Add", "add", NAMES("x", "s"), NAMES("y"));
  mb_output(&b, "y", F, 1, d);
  float sv[3] = {1, 2, 3};
  int64_t shape[1] = {3};
  DLTensor ts = {sv, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  tvm_onnx_const c = {"s", &ts};
  tvm_onnx_options opts = {NULL, 0, &c, 1, NULL, 0};
  tvm_graph *g;
  tvm_status st = mb_load(&b, &opts, &g);
  if (st)
    fail_msg("%s", tvm_diag_message());
  assert_int_equal(g->inputs.len, 1);
  const tvm_gnode *n = g->nodes.data[0];
  assert_int_equal(n->inputs[1]->kind, TVM_GV_CONST);
  assert_string_equal(n->inputs[1]->name, "s");
  assert_memory_equal(n->inputs[1]->data, sv, sizeof sv);
  tvm_graph_free(g);
  shape[0] = 2;
  assert_int_equal(mb_load(&b, &opts, &g), TVM_ERR_INVALID);
  assert_diag_has("graph input 's' has shape [2], the model declares [3]");
}

/* Attributes: ints/float/string reach the node; an unsupported attribute
 * type is refused naming the attribute. */
static void test_attributes(void **state) {
  (void)state;
  mb b;
  int64_t d[1] = {4};
  mb_init(&b, 13);
  mb_input(&b, "x", F, 1, d);
  Onnx__NodeProto *n = mb_node(&b, "LeakyRelu", "lr", NAMES("x"), NAMES("y"));
  Onnx__AttributeProto *a =
      mb_attr(&b, n, "alpha", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
  a->has_f = 1;
  a->f = 0.25f;
  mb_output(&b, "y", F, 1, d);
  tvm_graph *g;
  tvm_status st = mb_load(&b, NULL, &g);
  if (st)
    fail_msg("%s", tvm_diag_message());
  const tvm_gnode *gn = g->nodes.data[0];
  assert_float_equal(tvm_gnode_float(gn, "alpha", 0), 0.25, 1e-9);
  tvm_graph_free(g);

  a = mb_attr(&b, n, "names", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_UNSUPPORTED);
  assert_diag_has("node 'lr' (LeakyRelu): attribute 'names' of type STRINGS");
}

/* Bytes that are no ModelProto, an empty buffer, a missing file. */
static void test_malformed(void **state) {
  (void)state;
  tvm_graph *g = (tvm_graph *)1;
  const char junk[] = "\xff\xff\xff\xff garbage that is not a protobuf";
  assert_int_equal(tvm_onnx_load_buffer(junk, sizeof junk, "junk", &g),
                   TVM_ERR_INVALID);
  assert_null(g);
  assert_diag_has("'junk' is not a valid serialized ModelProto");
  assert_int_equal(tvm_onnx_load_buffer("", 0, "empty", &g), TVM_ERR_INVALID);
  assert_diag_has("no graph");
  assert_int_equal(tvm_onnx_load("/nonexistent/model.onnx", &g), TVM_ERR_IO);
  assert_diag_has("/nonexistent/model.onnx");
  assert_int_equal(tvm_onnx_tensor_load("/nonexistent/t.pb", NULL),
                   TVM_ERR_INVALID);
}

/* Packs a TensorProto into a temporary file and reads it back. */
static tvm_status tensor_roundtrip(Onnx__TensorProto *t,
                                   tvm_onnx_tensor **out) {
  size_t len = onnx__tensor_proto__get_packed_size(t);
  uint8_t *buf = malloc(len ? len : 1);
  onnx__tensor_proto__pack(t, buf);
  char path[] = "/tmp/tvm_onnx_tensor_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, buf, len), (ssize_t)len);
  close(fd);
  free(buf);
  tvm_status st = tvm_onnx_tensor_load(path, out);
  unlink(path);
  return st;
}

/* The tensor reader: raw_data, typed fields, bool, and the refusals. */
static void test_tensor_load(void **state) {
  (void)state;
  Onnx__TensorProto t;
  tvm_onnx_tensor *r;
  int64_t dims[2] = {2, 2};
  int64_t iv[4] = {1, -2, 3, 1LL << 40};
  onnx__tensor_proto__init(&t);
  t.name = "ints";
  t.has_data_type = 1;
  t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  t.n_dims = 2;
  t.dims = dims;
  t.has_raw_data = 1;
  t.raw_data.len = sizeof iv;
  t.raw_data.data = (uint8_t *)iv;
  assert_int_equal(tensor_roundtrip(&t, &r), TVM_OK);
  assert_string_equal(r->name, "ints");
  assert_int_equal(r->dl.ndim, 2);
  assert_int_equal(r->dl.dtype.code, kDLInt);
  assert_int_equal(r->dl.dtype.bits, 64);
  assert_memory_equal(r->dl.data, iv, sizeof iv);
  tvm_onnx_tensor_free(r);

  /* raw_data of the wrong length */
  t.raw_data.len = 3 * sizeof(int64_t);
  assert_int_equal(tensor_roundtrip(&t, &r), TVM_ERR_INVALID);
  assert_diag_has("4 elements of 8 bytes by its dims but 24 bytes");

  /* float_data */
  float fv[4] = {0.5f, -1, 2, 3.25f};
  onnx__tensor_proto__init(&t);
  t.has_data_type = 1;
  t.data_type = F;
  t.n_dims = 2;
  t.dims = dims;
  t.n_float_data = 4;
  t.float_data = fv;
  assert_int_equal(tensor_roundtrip(&t, &r), TVM_OK);
  assert_memory_equal(r->dl.data, fv, sizeof fv);
  assert_string_equal(r->name, "");
  tvm_onnx_tensor_free(r);
  t.n_float_data = 3;
  assert_int_equal(tensor_roundtrip(&t, &r), TVM_ERR_INVALID);
  assert_diag_has("4 elements by its dims but 3 values in float_data");

  /* bool from int32_data, normalized to 0/1 */
  int32_t bv[4] = {0, 5, 1, 0};
  onnx__tensor_proto__init(&t);
  t.has_data_type = 1;
  t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
  t.n_dims = 2;
  t.dims = dims;
  t.n_int32_data = 4;
  t.int32_data = bv;
  assert_int_equal(tensor_roundtrip(&t, &r), TVM_OK);
  const uint8_t want[4] = {0, 1, 1, 0};
  assert_memory_equal(r->dl.data, want, 4);
  assert_int_equal(r->dl.dtype.code, kDLUInt);
  assert_int_equal(r->dl.dtype.bits, 1);
  tvm_onnx_tensor_free(r);

  /* a type the reader does not take */
  t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64;
  assert_int_equal(tensor_roundtrip(&t, &r), TVM_ERR_UNSUPPORTED);
  assert_diag_has("COMPLEX64");
  /* negative dims */
  int64_t neg[2] = {2, -1};
  t.data_type = F;
  t.dims = neg;
  assert_int_equal(tensor_roundtrip(&t, &r), TVM_ERR_INVALID);
  assert_diag_has("negative dimension");
}

/* ---- robustness ---------------------------------------------------------------- */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* Every load of a corrupted copy either succeeds (and the graph is
 * freed) or fails with a message. */
static void load_must_not_crash(const uint8_t *buf, size_t len,
                                int *ok, int *failed) {
  tvm_graph *g = NULL;
  tvm_diag_clear();
  tvm_status st = tvm_onnx_load_buffer(buf, len, "fuzz", &g);
  if (st) {
    assert_null(g);
    assert_true(strlen(tvm_diag_message()) > 0);
    (*failed)++;
  } else {
    assert_non_null(g);
    assert_int_equal(tvm_graph_status(g), TVM_OK);
    tvm_graph_free(g);
    (*ok)++;
  }
}

/* Truncations at 50 lengths and 300 copies with 1 to 4 random bytes
 * replaced, of one real model (when the test data is installed) and of a
 * model built here. */
static void fuzz_one(const uint8_t *model, size_t len, const char *what) {
  int ok = 0, failed = 0;
  load_must_not_crash(model, len, &ok, &failed);
  assert_int_equal(ok, 1); /* the intact model loads */
  uint8_t *copy = malloc(len);
  for (int i = 0; i < 50; i++) {
    size_t cut = (size_t)((double)len * i / 50.0);
    memcpy(copy, model, cut);
    load_must_not_crash(copy, cut, &ok, &failed);
  }
  for (int i = 0; i < 300; i++) {
    memcpy(copy, model, len);
    int flips = 1 + (int)(next_rand() % 4);
    for (int k = 0; k < flips; k++)
      copy[next_rand() % len] = (uint8_t)next_rand();
    load_must_not_crash(copy, len, &ok, &failed);
  }
  free(copy);
  print_message("fuzz %s (%zu bytes): %d loads succeeded, %d failed cleanly\n",
                what, len, ok, failed);
  assert_true(failed > 0);
}

static void test_fuzz(void **state) {
  (void)state;
  /* a built model with initializer, Constant and attributes */
  mb b;
  mb_init(&b, 13);
  int64_t xd[2] = {2, 3}, bd[1] = {3};
  float bias[3] = {1, -2, 0.5f};
  mb_input(&b, "x", F, 2, xd);
  mb_init_f32(&b, "b", 1, bd, bias, 3);
  mb_node(&b, "Add", "add1", NAMES("x", "b"), NAMES("t"));
  Onnx__NodeProto *n = mb_node(&b, "LeakyRelu", "lr", NAMES("t"), NAMES("y"));
  Onnx__AttributeProto *a =
      mb_attr(&b, n, "alpha", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
  a->has_f = 1;
  a->f = 0.5f;
  mb_output(&b, "y", F, 2, xd);
  size_t len;
  uint8_t *buf = mb_pack(&b, &len);
  fuzz_one(buf, len, "built model");
  free(buf);

  /* real models from the ONNX test data */
  const char *dir = getenv("TVM_ONNX_NODE_TESTS");
  if (!dir || !dir[0])
    dir = TVM_ONNX_TESTDATA;
  const char *models[] = {"test_conv_with_strides_padding", "test_gemm_all_attributes",
                          "test_maxpool_2d_pads"};
  for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/model.onnx", dir, models[m]);
    FILE *f = fopen(path, "rb");
    if (!f) {
      print_message("fuzz: %s missing, skipped\n", path);
      continue;
    }
    static uint8_t data[1 << 20];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    tvm_graph *g = NULL;
    if (tvm_onnx_load_buffer(data, n, path, &g)) {
      print_message("fuzz: %s does not load (%s), skipped\n", path,
                    tvm_diag_message());
      continue;
    }
    tvm_graph_free(g);
    fuzz_one(data, n, models[m]);
  }
}

/* The tensor reader under the same corruption: every read succeeds or
 * fails with a message. */
static void test_fuzz_tensor(void **state) {
  (void)state;
  Onnx__TensorProto t;
  int64_t dims[2] = {3, 4};
  float fv[12];
  for (int i = 0; i < 12; i++)
    fv[i] = (float)i * 0.5f;
  onnx__tensor_proto__init(&t);
  t.name = "x";
  t.has_data_type = 1;
  t.data_type = F;
  t.n_dims = 2;
  t.dims = dims;
  t.has_raw_data = 1;
  t.raw_data.len = sizeof fv;
  t.raw_data.data = (uint8_t *)fv;
  size_t len = onnx__tensor_proto__get_packed_size(&t);
  uint8_t *buf = malloc(len), *copy = malloc(len);
  onnx__tensor_proto__pack(&t, buf);
  int ok = 0, failed = 0;
  for (int i = 0; i < 350; i++) {
    size_t n = len;
    memcpy(copy, buf, len);
    if (i < 50)
      n = (size_t)((double)len * i / 50.0);
    else
      for (int k = 0, f = 1 + (int)(next_rand() % 4); k < f; k++)
        copy[next_rand() % len] = (uint8_t)next_rand();
    tvm_onnx_tensor *r = NULL;
    tvm_diag_clear();
    if (tvm_onnx_tensor_load_buffer(copy, n, "fuzz.pb", &r)) {
      assert_null(r);
      assert_true(strlen(tvm_diag_message()) > 0);
      failed++;
    } else {
      assert_non_null(r);
      /* a successful read is self-consistent: numel fits the data read */
      int64_t numel = 1;
      for (int d = 0; d < r->dl.ndim; d++)
        numel *= r->dl.shape[d];
      assert_true(numel >= 0 && numel <= ((int64_t)1 << 40));
      tvm_onnx_tensor_free(r);
      ok++;
    }
  }
  free(buf);
  free(copy);
  print_message("fuzz tensor (%zu bytes): %d reads succeeded, %d failed "
                "cleanly\n", len, ok, failed);
  assert_true(ok > 0 && failed > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_import_and_run),
      cmocka_unit_test(test_unsupported_operator),
      cmocka_unit_test(test_opset_range),
      cmocka_unit_test(test_bad_names),
      cmocka_unit_test(test_types),
      cmocka_unit_test(test_symbolic_dim),
      cmocka_unit_test(test_freeze_input),
      cmocka_unit_test(test_attributes),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_big_weights),
      cmocka_unit_test(test_tensor_load),
      cmocka_unit_test(test_fuzz),
      cmocka_unit_test(test_fuzz_tensor),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
