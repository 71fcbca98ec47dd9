/*
 * tests/unit/graph/test_plan_memory.c - static storage planning over the
 * fused groups: slot reuse along a chain, no slot shared by a step's
 * inputs and outputs, values read later keeping their slot, best fit by
 * size, and the plan's text form.
 */
#include "graph_test.h"

#define F32 tvm_dt(kDLFloat, 32, 1)

static tvm_gvalue *op1(tvm_graph *g, const char *op, const char *name,
                       tvm_gvalue *a) {
  return tvm_graph_apply(g, op, name, &a, 1, NULL, 0, 1, NULL);
}
static tvm_gvalue *op2(tvm_graph *g, const char *op, const char *name,
                       tvm_gvalue *a, tvm_gvalue *b) {
  tvm_gvalue *in[2] = {a, b};
  return tvm_graph_apply(g, op, name, in, 2, NULL, 0, 1, NULL);
}

/* One group per node (no fusion), then the plan. */
static tvm_storage_plan *plan(tvm_graph *g, int reuse,
                              tvm_graph_groups **grp) {
  CHECK_OK(tvm_graph_status(g));
  CHECK_OK(tvm_graph_toposort(g));
  for (size_t i = 0; i < g->nodes.len; i++)
    ((tvm_gnode *)g->nodes.data[i])->group = (int)i;
  tvm_graph_groups *gr = NULL;
  tvm_storage_plan *p = NULL;
  CHECK_OK(tvm_graph_groups_collect(g, &gr));
  CHECK_OK(tvm_graph_plan_memory(g, gr, reuse, &p));
  if (grp)
    *grp = gr;
  else
    tvm_graph_groups_free(gr);
  return p;
}

static char *plan_text(const tvm_graph *g, const tvm_storage_plan *p) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_storage_plan_print(&b, g, p);
  return tvm_strbuf_take(&b);
}

/* A chain of 10 ops: two slots ping-pong; the output is not planned. */
static void test_chain(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){256}, 1);
  char name[8];
  for (int i = 0; i < 10; i++) {
    snprintf(name, sizeof name, "v%d", i);
    x = op1(g, i % 2 ? "Relu" : "Neg", name, x);
  }
  CHECK_OK(tvm_graph_mark_output(g, x));
  tvm_storage_plan *p = plan(g, 1, NULL);
  char *s = plan_text(g, p);
  assert_string_equal(s,
                      "slot 0 (1024 bytes): %v0, %v2, %v4, %v6, %v8\n"
                      "slot 1 (1024 bytes): %v1, %v3, %v5, %v7\n"
                      "activations: 2048 bytes planned, 9216 unplanned\n");
  tvm_free(s);
  tvm_storage_plan_free(p);
  p = plan(g, 0, NULL);
  assert_int_equal(p->nslots, 9);
  assert_int_equal(p->planned_bytes, 9216);
  tvm_storage_plan_free(p);
  tvm_graph_free(g);
}

/* A value read by a later step keeps its slot until then; the closest
 * size wins among free slots; a small slot grows for a larger value. */
static void test_liveness_and_fit(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){64}, 1);
  tvm_gvalue *a = op1(g, "Neg", "a", x);          /* 256 B, read by d */
  tvm_gvalue *b = op1(g, "Relu", "b", a);         /* 256 B */
  tvm_gvalue *c = op1(g, "Abs", "c", b);          /* 256 B */
  tvm_gvalue *d = op2(g, "Add", "d", c, a);       /* a dies here */
  tvm_gvalue *shp = tvm_graph_const(g, "shp", tvm_dt(kDLInt, 64, 1),
                                    (int64_t[]){2}, 1, (int64_t[]){8, 8});
  tvm_gvalue *e = op2(g, "Reshape", "e", d, shp); /* 256 B */
  tvm_gvalue *big = op2(g, "Mul", "big", e,
                        tvm_graph_input(g, "y", F32, (int64_t[]){4, 8, 8}, 3));
  tvm_gvalue *o = op1(g, "Exp", "o", big);
  CHECK_OK(tvm_graph_mark_output(g, o));
  tvm_storage_plan *p = plan(g, 1, NULL);
  char *s = plan_text(g, p);
  /* a: 0; b: 1; c: 2 (b still read by c); d: 1 (b freed after c);
   * after d, slots 2 (c) and 0 (a) are free, in that order; e takes the
   * first of the equally close; big (1 KiB) grows the other. */
  assert_string_equal(s,
                      "slot 0 (1024 bytes): %a, %big\n"
                      "slot 1 (256 bytes): %b, %d\n"
                      "slot 2 (256 bytes): %c, %e\n"
                      "activations: 1536 bytes planned, 2304 unplanned\n");
  tvm_free(s);
  /* no step writes a slot it reads */
  tvm_graph_groups *gr = NULL;
  tvm_storage_plan_free(p);
  p = plan(g, 1, &gr);
  for (int i = 0; i < gr->ngroups; i++) {
    const tvm_graph_group *G = &gr->groups[i];
    for (int k = 0; k < G->noutputs; k++)
      for (int j = 0; j < G->ninputs; j++) {
        int32_t so = p->slot[G->outputs[k]->id], si = p->slot[G->inputs[j]->id];
        assert_false(so >= 0 && so == si);
      }
  }
  assert_int_equal(p->slot[x->id], -1);
  assert_int_equal(p->slot[o->id], -1);
  assert_int_equal(p->slot[shp->id], -1);
  tvm_graph_groups_free(gr);
  tvm_storage_plan_free(p);
  tvm_graph_free(g);
}

/* Among free slots the one closest in size wins, not the first freed. */
static void test_best_fit(void **state) {
  tvm_graph *g = NULL;
  CHECK_OK(tvm_graph_create(&g));
  tvm_gvalue *x = tvm_graph_input(g, "x", F32, (int64_t[]){4, 64}, 2);
  tvm_gvalue *y = tvm_graph_input(g, "y", F32, (int64_t[]){64}, 1);
  tvm_gvalue *a = op1(g, "Neg", "a", x);    /* 1024 B */
  tvm_gvalue *b = op1(g, "Neg", "b", y);    /* 256 B */
  tvm_gvalue *c = op2(g, "Add", "c", a, b); /* 1024 B; a, b die */
  tvm_gattr ax = tvm_gattr_ints("axes", (int64_t[]){0}, 1);
  tvm_gattr kd = tvm_gattr_int("keepdims", 0);
  tvm_gvalue *d = tvm_graph_apply(g, "ReduceSum", "d", &c, 1, TVM_ATTRS(ax, kd), 1, NULL);
  tvm_gvalue *e = op1(g, "Neg", "e", d);
  CHECK_OK(tvm_graph_mark_output(g, e));
  tvm_storage_plan *p = plan(g, 1, NULL);
  char *s = plan_text(g, p);
  assert_string_equal(s,
                      "slot 0 (1024 bytes): %a\n"
                      "slot 1 (256 bytes): %b, %d\n"
                      "slot 2 (1024 bytes): %c\n"
                      "activations: 2304 bytes planned, 2560 unplanned\n");
  tvm_free(s);
  tvm_storage_plan_free(p);
  tvm_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain),
      cmocka_unit_test(test_liveness_and_fit),
      cmocka_unit_test(test_best_fit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
