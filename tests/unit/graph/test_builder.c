/*
 * tests/unit/graph/test_builder.c - the graph builder: names, attribute
 * copies and lookups, error messages (unknown operator with a suggestion,
 * wrong input count, NULL inputs, shape inference failures naming the
 * node), the sticky failure state, and the reproducible random constants.
 */
#include "graph_test.h"

#define F32 tvm_dt(kDLFloat, 32, 1)

static int setup(void **state) {
  tvm_graph *g = NULL;
  if (tvm_graph_create(&g)) return -1;
  *state = g;
  return 0;
}

static int teardown(void **state) {
  tvm_graph_free(*state);
  return 0;
}

/* Default names: nodes "<op>_<id>", values "<id>"; named nodes give their
 * name to the first output and "<name>.<k>" to the others. */
static void test_names(void **state) {
  tvm_graph *g = *state;
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 3}, 2);
  tvm_gnode *n = NULL;
  tvm_gvalue *r = tvm_graph_apply(g, "Relu", NULL, TVM_IN(x), TVM_NOATTRS, 1, &n);
  assert_non_null(r);
  assert_ptr_equal(n->outputs[0], r);
  assert_int_equal(x->id, 0);
  assert_int_equal(n->id, 1);
  assert_int_equal(r->id, 2);
  assert_string_equal(n->name, "Relu_1");
  assert_string_equal(r->name, "2");
  assert_int_equal(r->kind, TVM_GV_INTERMEDIATE);
  assert_ptr_equal(r->producer, n);
  assert_int_equal(n->group, -1);
  tvm_gvalue *d = tvm_graph_apply(g, "Dropout", "drop", TVM_IN(r), TVM_NOATTRS, 2, &n);
  assert_non_null(d);
  assert_int_equal(n->noutputs, 2);
  assert_string_equal(n->outputs[0]->name, "drop");
  assert_string_equal(n->outputs[1]->name, "drop.1");
  assert_int_equal(n->outputs[1]->index, 1);
  /* inputs, every value, nodes */
  assert_int_equal(g->inputs.len, 1);
  assert_int_equal(g->values.len, 4);
  assert_int_equal(g->nodes.len, 2);
  assert_int_equal(tvm_graph_status(g), TVM_OK);
}

/* Attributes are deep copies; lookups convert INT to float, not back. */
static void test_attrs(void **state) {
  tvm_graph *g = *state;
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){1, 1, 4, 4}, 4);
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){2, 1, 3, 3}, 4, 1, 0.5);
  int64_t strides[2] = {2, 2};
  char pad[16] = "NOTSET";
  tvm_gnode *n = NULL;
  tvm_graph_apply(g, "Conv", "c", TVM_IN(x, w),
                  TVM_ATTRS(tvm_gattr_ints("strides", strides, 2),
                            tvm_gattr_str("auto_pad", pad),
                            tvm_gattr_int("group", 1),
                            tvm_gattr_floats("_note", (double[]){0.5}, 1)),
                  1, &n);
  CHECK_OK(tvm_graph_status(g));
  strides[0] = 7;
  strcpy(pad, "VALID");
  const int64_t *v = NULL;
  assert_int_equal(tvm_gnode_ints(n, "strides", &v), 2);
  assert_int_equal(v[0], 2);
  assert_string_equal(tvm_gnode_str(n, "auto_pad", "?"), "NOTSET");
  assert_int_equal(tvm_gnode_int(n, "group", 9), 1);
  assert_true(tvm_gnode_float(n, "group", 0.0) == 1.0);
  assert_int_equal(tvm_gnode_int(n, "auto_pad", 9), 9);   /* wrong type */
  assert_int_equal(tvm_gnode_ints(n, "pads", &v), -1);    /* absent */
  assert_null(v);
  assert_null(tvm_gnode_attr(n, "pads"));
  assert_int_equal(n->outputs[0]->shape[2], 1);
}

/* A misspelt operator names the node and suggests the closest name. */
static void test_unknown_op(void **state) {
  tvm_graph *g = *state;
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4}, 1);
  assert_null(tvm_graph_apply(g, "Rellu", "r1", TVM_IN(x), TVM_NOATTRS, 1, NULL));
  assert_int_equal(tvm_graph_status(g), TVM_ERR_NOT_FOUND);
  assert_string_equal(tvm_diag_message(),
                      "unknown operator 'Rellu' (node 'r1'); did you mean 'Relu'?");
}

/* Nothing close: no suggestion. */
static void test_unknown_op_far(void **state) {
  tvm_graph *g = *state;
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4}, 1);
  assert_null(tvm_graph_apply(g, "Frobnicate", NULL, TVM_IN(x), TVM_NOATTRS, 1, NULL));
  assert_int_equal(tvm_graph_status(g), TVM_ERR_NOT_FOUND);
  assert_string_equal(tvm_diag_message(),
                      "unknown operator 'Frobnicate' (node 'Frobnicate_1'); no "
                      "registered operator has a similar name");
}

/* Input and output counts are checked against the definition. */
static void test_wrong_counts(void **state) {
  tvm_graph *g = *state;
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4}, 1);
  assert_null(tvm_graph_apply(g, "Relu", "r", TVM_IN(x, x), TVM_NOATTRS, 1, NULL));
  assert_int_equal(tvm_graph_status(g), TVM_ERR_INVALID);
  assert_string_equal(tvm_diag_message(), "node 'r': Relu takes 1 input, 2 given");

  tvm_graph *g2 = NULL;
  CHECK_OK(tvm_graph_create(&g2));
  x = tvm_graph_input(g2, "x", F32, (int64_t[]){1, 1, 4, 4}, 4);
  assert_null(tvm_graph_apply(g2, "Conv", "c", TVM_IN(x), TVM_NOATTRS, 1, NULL));
  assert_string_equal(tvm_diag_message(), "node 'c': Conv takes 2 to 3 inputs, 1 given");
  tvm_graph_free(g2);

  CHECK_OK(tvm_graph_create(&g2));
  x = tvm_graph_input(g2, "x", F32, (int64_t[]){4}, 1);
  assert_null(tvm_graph_apply(g2, "Relu", "r", TVM_IN(x), TVM_NOATTRS, 3, NULL));
  assert_string_equal(tvm_diag_message(), "node 'r': Relu has 1 output, 3 asked for");
  tvm_graph_free(g2);
}

/* A NULL from a failed call makes the next calls fail and keeps the first
 * message, even after the diagnostic was overwritten. */
static void test_null_propagates(void **state) {
  tvm_graph *g = *state;
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4}, 1);
  tvm_gvalue *a = tvm_graph_apply(g, "Rellu", "a", TVM_IN(x), TVM_NOATTRS, 1, NULL);
  assert_null(a);
  tvm_gvalue *b = TVM_OP(g, "Relu", TVM_IN(a), TVM_NOATTRS);
  tvm_gvalue *c = TVM_OP(g, "Relu", TVM_IN(x), TVM_NOATTRS); /* valid, still refused */
  assert_null(b);
  assert_null(c);
  assert_int_equal(tvm_graph_mark_output(g, b), TVM_ERR_NOT_FOUND);
  assert_null(tvm_graph_input(g, "y", F32, (int64_t[]){4}, 1));
  tvm_diag_set(TVM_ERR_IO, "something else");
  assert_int_equal(tvm_graph_status(g), TVM_ERR_NOT_FOUND);
  assert_string_equal(tvm_diag_message(),
                      "unknown operator 'Rellu' (node 'a'); did you mean 'Relu'?");
  assert_int_equal(g->nodes.len, 0);
}

/* A NULL required input on a healthy graph is reported as such. */
static void test_null_input(void **state) {
  tvm_graph *g = *state;
  assert_null(tvm_graph_apply(g, "Relu", "r", (tvm_gvalue *[]){NULL}, 1,
                              TVM_NOATTRS, 1, NULL));
  assert_int_equal(tvm_graph_status(g), TVM_ERR_INVALID);
  assert_string_equal(tvm_diag_message(),
                      "node 'r': input 0 of Relu is NULL but required; the call "
                      "that made it returned NULL");
}

/* Shape inference failures fail the builder and name the node. */
static void test_infer_failure(void **state) {
  tvm_graph *g = *state;
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){2, 3}, 2);
  tvm_gvalue *y = tvm_graph_input(g, "y", F32, (int64_t[]){4, 5}, 2);
  assert_null(tvm_graph_apply(g, "Add", "add1", TVM_IN(x, y), TVM_NOATTRS, 1, NULL));
  assert_int_equal(tvm_graph_status(g), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "'add1'"));
  assert_int_equal(g->nodes.len, 0);
  assert_int_equal(g->values.len, 2);
}

/* Shapes and attribute arrays are validated. */
static void test_bad_arguments(void **state) {
  tvm_graph *g = *state;
  assert_null(tvm_graph_input(g, "x", F32, (int64_t[]){2, -1}, 2));
  assert_string_equal(tvm_diag_message(),
                      "input 'x': dimension 1 is -1; give every dimension a size (>= 0)");
  tvm_graph *g2 = NULL;
  CHECK_OK(tvm_graph_create(&g2));
  tvm_gvalue *x = tvm_graph_input(g2, "x", F32, (int64_t[]){4}, 1);
  assert_null(tvm_graph_apply(g2, "Relu", "r", TVM_IN(x),
                              TVM_ATTRS(tvm_gattr_int("a", 1), tvm_gattr_int("a", 2)),
                              1, NULL));
  assert_string_equal(tvm_diag_message(), "node 'r': attribute 'a' given twice; keep one");
  tvm_graph_free(g2);
  CHECK_OK(tvm_graph_create(&g2));
  assert_null(tvm_graph_const(g2, "c", F32, (int64_t[]){4}, 1, NULL));
  assert_string_equal(tvm_diag_message(), "constant 'c': data is NULL");
  tvm_graph_free(g2);
}

/* A constant of zeros is the caller's to fill (what a frontend decodes a
 * weight into); its shape is checked like any constant's. */
static void test_const_zeros(void **state) {
  tvm_graph *g = *state;
  tvm_gvalue *c = tvm_graph_const_zeros(g, "z", F32, (int64_t[]){3, 5}, 2);
  assert_non_null(c);
  assert_int_equal(c->kind, TVM_GV_CONST);
  assert_int_equal(tvm_gvalue_bytes(c), 60);
  float *d = c->data;
  for (int i = 0; i < 15; i++) assert_true(d[i] == 0.0f);
  d[7] = 2.5f;
  tvm_gvalue *r = tvm_graph_apply(g, "Relu", "r", TVM_IN(c), TVM_NOATTRS, 1, NULL);
  assert_non_null(r);
  assert_true(((float *)c->data)[7] == 2.5f);
  assert_null(tvm_graph_const_zeros(g, "bad", F32, (int64_t[]){2, -1}, 2));
  assert_string_equal(tvm_diag_message(),
                      "constant 'bad': dimension 1 is -1; give every "
                      "dimension a size (>= 0)");
}

/* A constant holding another arena's big block: the same memory, alive
 * after that arena is gone (AddressSanitizer would see a freed read); a
 * block the arena did not give its own chunk, or no arena, gets zeroed
 * data of the constant's own. */
static void test_const_shared(void **state) {
  tvm_graph *g = *state;
  tvm_arena *src = tvm_arena_create();
  assert_non_null(src);
  int64_t shape[2] = {64, 512};
  float *big = tvm_arena_alloc(src, sizeof(float) * 64 * 512);
  float *small = tvm_arena_alloc(src, sizeof(float) * 4);
  assert_non_null(big);
  assert_non_null(small);
  for (int i = 0; i < 64 * 512; i++) big[i] = (float)i * 0.5f;
  for (int i = 0; i < 4; i++) small[i] = 1.0f;
  tvm_gvalue *w = tvm_graph_const_shared(g, "w", F32, shape, 2, src, big);
  tvm_gvalue *s = tvm_graph_const_shared(g, "s", F32, (int64_t[]){4}, 1,
                                         src, small);
  tvm_gvalue *n = tvm_graph_const_shared(g, "n", F32, (int64_t[]){4}, 1,
                                         NULL, small);
  assert_non_null(w);
  assert_non_null(s);
  assert_non_null(n);
  assert_ptr_equal(w->data, big);
  assert_ptr_not_equal(s->data, small);
  assert_ptr_not_equal(n->data, small);
  for (int i = 0; i < 4; i++) {
    assert_true(((float *)s->data)[i] == 0.0f);
    assert_true(((float *)n->data)[i] == 0.0f);
  }
  tvm_arena_destroy(src);
  const float *d = w->data;
  for (int i = 0; i < 64 * 512; i++)
    if (d[i] != (float)i * 0.5f) fail_msg("element %d is %g", i, d[i]);
  tvm_gvalue *r = tvm_graph_apply(g, "Relu", "r", TVM_IN(w), TVM_NOATTRS, 1, NULL);
  assert_non_null(r);
}

/* SplitMix64 test vector: seed 0 draws 0xe220a8397b1dcdaf,
 * 0x6e789e6aa1b965f4, 0x06c45d188009454f (Vigna's splitmix64.c). */
static void test_random(void **state) {
  tvm_graph *g = *state;
  tvm_gvalue *w = tvm_graph_random(g, "w", (int64_t[]){3, 1000}, 2, 0, 0.25);
  assert_non_null(w);
  assert_int_equal(w->kind, TVM_GV_CONST);
  assert_int_equal(tvm_gvalue_numel(w), 3000);
  assert_int_equal(tvm_gvalue_bytes(w), 12000);
  const uint64_t draws[3] = {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL,
                             0x06c45d188009454fULL};
  const float *d = w->data;
  for (int i = 0; i < 3; i++) {
    float want = (float)((2.0 * ((double)(draws[i] >> 11) * 0x1.0p-53) - 1.0) * 0.25);
    assert_memory_equal(&d[i], &want, sizeof(float));
  }
  double sum = 0;
  for (int i = 0; i < 3000; i++) {
    assert_true(d[i] >= -0.25f && d[i] <= 0.25f);
    sum += d[i];
  }
  assert_true(fabs(sum / 3000) < 0.02); /* centered */
  /* Same seed, same values; another seed, others. */
  tvm_gvalue *w2 = tvm_graph_random(g, "w2", (int64_t[]){3, 1000}, 2, 0, 0.25);
  tvm_gvalue *w3 = tvm_graph_random(g, "w3", (int64_t[]){3, 1000}, 2, 1, 0.25);
  assert_memory_equal(w->data, w2->data, 12000);
  assert_memory_not_equal(w->data, w3->data, 12000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_attrs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unknown_op, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unknown_op_far, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wrong_counts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_null_propagates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_null_input, setup, teardown),
      cmocka_unit_test_setup_teardown(test_infer_failure, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_random, setup, teardown),
      cmocka_unit_test_setup_teardown(test_const_zeros, setup, teardown),
      cmocka_unit_test_setup_teardown(test_const_shared, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
