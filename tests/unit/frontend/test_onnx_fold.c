/*
 * tests/unit/frontend/test_onnx_fold.c - what the importer computes while
 * it builds: shape computations (Shape -> Gather -> Cast -> Div -> Floor
 * -> ... -> Reshape) fold to constants when the input shapes are static;
 * an operator that needs a constant input refuses one that depends on
 * run-time data naming the node that could not be computed and why;
 * --input-shape style bindings (tvm_onnx_options.shapes) fix symbolic
 * dimensions, and `tvmc` offers them (--input-shape, or the shape of an
 * --input file); opsets up to 21 and uint8 initializers load.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "onnx.pb-c.h"
#include "tvm/graph_passes.h"
#include "tvm/npy.h"
#include "tvm/onnx.h"

#include "onnx_mb.h"

#define I64 ONNX__TENSOR_PROTO__DATA_TYPE__INT64
#define INT ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT

static int64_t zero_i = 0, one_i = 1, two_i = 2, four_i = 4, m1_i[1] = {-1},
               ax0[1] = {0};
static float two_f = 2.0f;
static int64_t d1[1] = {1};

/* The node of g running op, or NULL. */
static const tvm_gnode *find_op(const tvm_graph *g, const char *op) {
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    if (strcmp(n->op, op) == 0)
      return n;
  }
  return NULL;
}

/* Runs g's reference evaluator on x (float32) into y (float32). */
static void eval1(tvm_graph *g, float *x, const int64_t *xs, int xn, float *y,
                  const int64_t *ys, int yn) {
  DLTensor tx = {0}, ty = {0};
  tx.data = x;
  tx.device.device_type = kDLCPU;
  tx.ndim = xn;
  tx.dtype = TVM_F32;
  tx.shape = (int64_t *)xs;
  ty = tx;
  ty.data = y;
  ty.ndim = yn;
  ty.shape = (int64_t *)ys;
  const DLTensor *in[1] = {&tx};
  DLTensor *out[1] = {&ty};
  if (tvm_graph_eval_reference(g, in, out))
    fail_msg("%s", tvm_diag_message());
}

/* Reshape(x, Concat(Unsqueeze(Cast(Floor(Div(Cast(Gather(Shape(x), 0)),
 * 2)))), [-1])): everything but the Reshape folds at import. */
static void test_fold_reshape_chain(void **state) {
  (void)state;
  mb b;
  mb_init(&b, 13);
  int64_t xs[3] = {2, 3, 4}, ys[2] = {1, 24};
  mb_input(&b, "x", F, 3, xs);
  mb_init_raw(&b, "i0", I64, 0, NULL, &zero_i, 8);
  mb_init_raw(&b, "two", F, 0, NULL, &two_f, 4);
  mb_init_raw(&b, "ax0", I64, 1, d1, ax0, 8);
  mb_init_raw(&b, "m1", I64, 1, d1, m1_i, 8);
  mb_node(&b, "Shape", "shape", NAMES("x"), NAMES("s"));
  mb_node(&b, "Gather", "gather", NAMES("s", "i0"), NAMES("d0"));
  Onnx__NodeProto *c1 = mb_node(&b, "Cast", "cast_f", NAMES("d0"),
                                NAMES("d0f"));
  mb_attr_i(&b, c1, "to", 1);
  mb_node(&b, "Div", "div", NAMES("d0f", "two"), NAMES("h"));
  mb_node(&b, "Floor", "floor", NAMES("h"), NAMES("hf"));
  Onnx__NodeProto *c2 = mb_node(&b, "Cast", "cast_i", NAMES("hf"),
                                NAMES("hi"));
  mb_attr_i(&b, c2, "to", 7);
  mb_node(&b, "Unsqueeze", "unsq", NAMES("hi", "ax0"), NAMES("hu"));
  Onnx__NodeProto *cc = mb_node(&b, "Concat", "concat", NAMES("hu", "m1"),
                                NAMES("tgt"));
  mb_attr_i(&b, cc, "axis", 0);
  mb_node(&b, "Reshape", "reshape", NAMES("x", "tgt"), NAMES("y"));
  mb_output(&b, "y", F, 2, ys);
  tvm_graph *g;
  if (mb_load(&b, NULL, &g))
    fail_msg("%s", tvm_diag_message());
  assert_int_equal(g->nodes.len, 1);
  assert_non_null(find_op(g, "Reshape"));
  const tvm_gvalue *y = g->outputs.data[0];
  assert_int_equal(y->ndim, 2);
  assert_int_equal(y->shape[0], 1);
  assert_int_equal(y->shape[1], 24);
  tvm_graph_free(g);
}

/* Range, Expand, Equal, Where, Mul, Sub, Squeeze on shape values:
 * y = Expand(x * Cast(Range(0, w, 1)), Shape(x)) with w computed from
 * Shape(x)[2]; only the Mul and the Expand stay, and y[i,j,k] = x * k. */
static void test_fold_range_expand(void **state) {
  (void)state;
  mb b;
  mb_init(&b, 13);
  int64_t xs[3] = {2, 3, 4};
  mb_input(&b, "x", F, 3, xs);
  mb_init_raw(&b, "i2", I64, 0, NULL, &two_i, 8);
  mb_init_raw(&b, "two", I64, 0, NULL, &two_i, 8);
  mb_init_raw(&b, "four", I64, 0, NULL, &four_i, 8);
  mb_init_raw(&b, "zero", I64, 0, NULL, &zero_i, 8);
  mb_init_raw(&b, "one", I64, 0, NULL, &one_i, 8);
  mb_init_raw(&b, "ax0", I64, 1, d1, ax0, 8);
  mb_node(&b, "Shape", "shape", NAMES("x"), NAMES("s"));
  mb_node(&b, "Gather", "gather", NAMES("s", "i2"), NAMES("d2"));
  mb_node(&b, "Mul", "mul", NAMES("d2", "two"), NAMES("m"));
  mb_node(&b, "Sub", "sub", NAMES("m", "four"), NAMES("k"));
  mb_node(&b, "Unsqueeze", "unsq", NAMES("d2", "ax0"), NAMES("u"));
  mb_node(&b, "Squeeze", "sq", NAMES("u", "ax0"), NAMES("d2b"));
  mb_node(&b, "Equal", "eq", NAMES("k", "d2b"), NAMES("e"));
  mb_node(&b, "Where", "where", NAMES("e", "k", "zero"), NAMES("w"));
  mb_node(&b, "Range", "range", NAMES("zero", "w", "one"), NAMES("r"));
  Onnx__NodeProto *c = mb_node(&b, "Cast", "cast", NAMES("r"), NAMES("rf"));
  mb_attr_i(&b, c, "to", 1);
  mb_node(&b, "Mul", "scale", NAMES("x", "rf"), NAMES("xm"));
  mb_node(&b, "Expand", "expand", NAMES("xm", "s"), NAMES("y"));
  mb_output(&b, "y", F, 3, xs);
  tvm_graph *g;
  if (mb_load(&b, NULL, &g))
    fail_msg("%s", tvm_diag_message());
  assert_int_equal(g->nodes.len, 2);
  assert_non_null(find_op(g, "Mul"));
  assert_non_null(find_op(g, "Expand"));
  float x[24], y[24];
  for (int i = 0; i < 24; i++)
    x[i] = (float)i + 0.5f;
  eval1(g, x, xs, 3, y, xs, 3);
  for (int i = 0; i < 24; i++)
    assert_float_equal(y[i], x[i] * (float)(i % 4), 1e-6);
  tvm_graph_free(g);
}

/* A Reshape whose shape depends on graph input data: the message names
 * the Reshape, the node that could not be computed (the root of the
 * chain) and why. */
static void test_refusal_names_node(void **state) {
  (void)state;
  mb b;
  mb_init(&b, 13);
  int64_t xs[2] = {2, 3}, ss[1] = {2};
  mb_input(&b, "x", F, 2, xs);
  mb_input(&b, "s", I64, 1, ss);
  mb_init_raw(&b, "one", I64, 0, NULL, &one_i, 8);
  mb_node(&b, "Add", "add_s", NAMES("s", "one"), NAMES("t"));
  mb_node(&b, "Mul", "mul_t", NAMES("t", "one"), NAMES("t2"));
  mb_node(&b, "Reshape", "reshape", NAMES("x", "t2"), NAMES("y"));
  mb_output(&b, "y", F, -1, NULL);
  tvm_graph *g;
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_UNSUPPORTED);
  assert_diag_has("Reshape node 'reshape'");
  assert_diag_has("computed at run time by node 'mul_t' (Mul)");
  assert_diag_has("depends on node 'add_s' (Add)");
  assert_diag_has("reads graph input 's', whose values are known only at "
                  "run time");
}

/* Symbolic dimensions: the refusal names the input, the dimension and
 * the --input-shape fix; tvm_onnx_options.shapes binds them, and a
 * shape disagreeing with a static dimension or the rank is refused. */
static void test_input_shape(void **state) {
  (void)state;
  mb b;
  int64_t d[4] = {-1, 3, -1, 5};
  mb_init(&b, 13);
  mb_input(&b, "img", F, 4, d);
  mb_node(&b, "Relu", "n1", NAMES("img"), NAMES("y"));
  mb_output(&b, "y", F, 4, d);
  tvm_graph *g;
  assert_int_equal(mb_load(&b, NULL, &g), TVM_ERR_UNSUPPORTED);
  assert_diag_has("graph input 'img': dimension 0 is the symbolic 'N'");
  assert_diag_has("--input-shape img=Nx3xNx5");
  int64_t good[4] = {2, 3, 7, 5}, bad[4] = {2, 4, 7, 5};
  tvm_onnx_shape sh = {"img", good, 4};
  tvm_onnx_options o = {0};
  o.shapes = &sh;
  o.nshapes = 1;
  if (mb_load(&b, &o, &g))
    fail_msg("%s", tvm_diag_message());
  const tvm_gvalue *y = g->outputs.data[0];
  assert_int_equal(y->shape[0], 2);
  assert_int_equal(y->shape[2], 7);
  tvm_graph_free(g);
  sh.dims = bad;
  assert_int_equal(mb_load(&b, &o, &g), TVM_ERR_INVALID);
  assert_diag_has("has 4 in dimension 1, the model declares 3");
  sh.dims = good;
  sh.ndim = 3;
  assert_int_equal(mb_load(&b, &o, &g), TVM_ERR_INVALID);
  assert_diag_has("has 3 dimensions, the model declares 4");
}

/* Opset 18 (ReduceMean's axes as an input) and opset 21 load; uint8
 * initializers are accepted (and computed with through Cast). */
static void test_opset18_uint8(void **state) {
  (void)state;
  int64_t opsets[2] = {18, 21};
  for (int k = 0; k < 2; k++) {
    mb b;
    mb_init(&b, opsets[k]);
    int64_t xs[2] = {2, 4}, ys[2] = {2, 1}, d4[1] = {4};
    static const uint8_t w[4] = {1, 2, 3, 250};
    static int64_t ax1[1] = {1};
    mb_input(&b, "x", F, 2, xs);
    mb_init_raw(&b, "w", ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, 1, d4, w, 4);
    mb_init_raw(&b, "ax", I64, 1, d1, ax1, 8);
    Onnx__NodeProto *c = mb_node(&b, "Cast", "cast", NAMES("w"),
                                 NAMES("wf"));
    mb_attr_i(&b, c, "to", 1);
    mb_node(&b, "Add", "add", NAMES("x", "wf"), NAMES("a"));
    mb_node(&b, "ReduceMean", "mean", NAMES("a", "ax"), NAMES("y"));
    mb_output(&b, "y", F, 2, ys);
    tvm_graph *g;
    if (mb_load(&b, NULL, &g))
      fail_msg("opset %lld: %s", (long long)opsets[k], tvm_diag_message());
    float x[8] = {0, 0, 0, 0, 1, 1, 1, 1}, y[2];
    eval1(g, x, xs, 2, y, ys, 2);
    assert_float_equal(y[0], 256.0f / 4, 1e-5);
    assert_float_equal(y[1], 260.0f / 4, 1e-5);
    tvm_graph_free(g);
  }
}

/* Runs cmd (sh), capturing stdout and stderr into out; returns the exit
 * status. */
static int run_cmd(const char *cmd, char *out, size_t cap) {
  char full[4096];
  snprintf(full, sizeof full, "%s 2>&1", cmd);
  FILE *p = popen(full, "r");
  if (!p)
    return -1;
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* tvmc: a model whose input has a symbolic batch is refused naming the
 * --input-shape fix, compiles with --input-shape, and `tvmc run` takes
 * the shape from the --input file. */
static void test_tvmc_input_shape(void **state) {
  (void)state;
  const char *bd = getenv("TVM_BUILDDIR");
  if (!bd || !bd[0])
    skip(); /* only under make check, which builds tvmc */
  char dir[] = "/tmp/tvm_onnx_fold_XXXXXX";
  assert_non_null(mkdtemp(dir));
  mb b;
  mb_init(&b, 17);
  int64_t d[2] = {-1, 3}, d3[1] = {3};
  static float w[3] = {1, 2, 3};
  mb_input(&b, "x", F, 2, d);
  mb_init_f32(&b, "w", 1, d3, w, 3);
  mb_node(&b, "Add", "n1", NAMES("x", "w"), NAMES("y"));
  mb_output(&b, "y", F, 2, d);
  size_t len;
  uint8_t *buf = mb_pack(&b, &len);
  char model[256], npy[256], pkg[256], cmd[2048], out[8192];
  snprintf(model, sizeof model, "%s/m.onnx", dir);
  snprintf(npy, sizeof npy, "%s/x.npy", dir);
  snprintf(pkg, sizeof pkg, "%s/m.tvmpkg", dir);
  FILE *f = fopen(model, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(buf, 1, len, f), len);
  fclose(f);
  free(buf);
  DLTensor *x = NULL;
  int64_t xs[2] = {4, 3};
  assert_int_equal(tvm_npy_alloc(TVM_F32, xs, 2, &x), TVM_OK);
  for (int i = 0; i < 12; i++)
    ((float *)x->data)[i] = (float)i - 6;
  assert_int_equal(tvm_npy_save(npy, x), TVM_OK);
  tvm_npy_free(x);

  snprintf(cmd, sizeof cmd, "'%s/tvmc' compile '%s' -o '%s'", bd, model, pkg);
  int rc = run_cmd(cmd, out, sizeof out);
  if (rc != 1 || !strstr(out, "--input-shape x=Nx3"))
    fail_msg("a symbolic batch: exit %d (want 1) or no --input-shape hint: "
             "%s", rc, out);
  snprintf(cmd, sizeof cmd,
           "'%s/tvmc' compile '%s' -o '%s' --input-shape x=2x3", bd, model,
           pkg);
  rc = run_cmd(cmd, out, sizeof out);
  if (rc != 0)
    fail_msg("compile --input-shape: exit %d: %s", rc, out);
  snprintf(cmd, sizeof cmd,
           "'%s/tvmc' compile '%s' -o '%s' --input-shape x=2x4", bd, model,
           pkg);
  rc = run_cmd(cmd, out, sizeof out);
  if (rc != 1 || !strstr(out, "the model declares 3"))
    fail_msg("a contradicting shape: exit %d (want 1): %s", rc, out);
  snprintf(cmd, sizeof cmd,
           "'%s/tvmc' compile '%s' --input-shape x=2y3", bd, model);
  rc = run_cmd(cmd, out, sizeof out);
  if (rc != 2)
    fail_msg("a malformed --input-shape: exit %d (want 2): %s", rc, out);
  snprintf(cmd, sizeof cmd,
           "'%s/tvmc' run '%s' --input x='%s' --repeat 1 --json", bd, model,
           npy);
  rc = run_cmd(cmd, out, sizeof out);
  if (rc != 0)
    fail_msg("run with --input file: exit %d: %s", rc, out);
  if (!strstr(out, "[4, 3]"))
    fail_msg("run did not take the file's shape [4, 3]: %s", out);
  unlink(model);
  unlink(npy);
  unlink(pkg);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fold_reshape_chain),
      cmocka_unit_test(test_fold_range_expand),
      cmocka_unit_test(test_refusal_names_node),
      cmocka_unit_test(test_input_shape),
      cmocka_unit_test(test_opset18_uint8),
      cmocka_unit_test(test_tvmc_input_shape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
