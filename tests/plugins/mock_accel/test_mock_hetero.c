/*
 * tests/plugins/mock_accel/test_mock_hetero.c - heterogeneous execution
 * with the SDK's example accelerator (plugin-sdk/example-accel, loaded as
 * a plugin through a target file) and its ABI 5 supports slot.
 *
 *   x[16,12] -> MatMul mm (w[12,8]) -> Relu relu -> MatMul mm2 (w2[8,4])
 *            -> Add out (b[4])
 *
 * The accelerator runs the two MatMuls (its GEMM unit), declines Relu
 * and Add (arithmetic it lacks): with `fallback: llvm-cpu` those run on
 * the CPU.  Checked: each node's device, the three DeviceCopy nodes the
 * compiler inserts (mm -> relu, relu -> mm2, mm2 -> out) and the plan's
 * copy steps, storage slots that never span devices, the placement
 * callback's reasons, the numbers (small integers: exact in float32)
 * through the executor and through a saved and reloaded package; and the
 * errors: a declined node with no fallback, and a MatMul whose shape the
 * GEMM unit cannot tile, name the node and the fix.
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

#include "tvm/compiler.h"
#include "tvm/graph.h"
#include "tvm/runtime.h"
#include "tvm/target.h"

#define M 16
#define K 12
#define N 8
#define N2 4

/* A target file with `extra` lines, loaded; skips outside make check. */
static tvm_target *load_target(const char *name, const char *extra) {
  char dir[64] = "/tmp/mockhetXXXXXX", path[128];
  tvm_target *t = NULL;
  if (!getenv("TVM_BUILDDIR")) {
    print_message("TVM_BUILDDIR not set (run through make check)\n");
    skip();
  }
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/t.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "name: %s\nplugin: mock_accel\n%s", name, extra);
  fclose(f);
  tvm_status st = tvm_target_load(path, &t);
  remove(path);
  rmdir(dir);
  if (st != TVM_OK) fail_msg("%s", tvm_diag_message());
  return t;
}

/* Small integer data: every product and sum is exact in float32. */
static float x_[M * K], w_[K * N], w2_[N * N2], b_[N2];
static void data(float *ref) {
  float h[M * N];
  for (int i = 0; i < M * K; i++) x_[i] = (float)((i * 7) % 11 - 5);
  for (int i = 0; i < K * N; i++) w_[i] = (float)((i * 5) % 9 - 4);
  for (int i = 0; i < N * N2; i++) w2_[i] = (float)((i * 3) % 7 - 3);
  for (int i = 0; i < N2; i++) b_[i] = (float)(i - 2);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0;
      for (int k = 0; k < K; k++) acc += x_[i * K + k] * w_[k * N + j];
      h[i * N + j] = acc > 0 ? acc : 0;
    }
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N2; j++) {
      float acc = 0;
      for (int k = 0; k < N; k++) acc += h[i * N + k] * w2_[k * N2 + j];
      ref[i * N2 + j] = acc + b_[j];
    }
}

/* The graph of the file comment (m = rows of x). */
static tvm_graph *build(int64_t m) {
  tvm_graph *g = NULL;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  tvm_gvalue *x = tvm_graph_input(g, "x", TVM_F32, (int64_t[]){m, K}, 2);
  tvm_gvalue *w = tvm_graph_const(g, "w", TVM_F32, (int64_t[]){K, N}, 2, w_);
  tvm_gvalue *w2 =
      tvm_graph_const(g, "w2", TVM_F32, (int64_t[]){N, N2}, 2, w2_);
  tvm_gvalue *b = tvm_graph_const(g, "b", TVM_F32, (int64_t[]){N2}, 1, b_);
  tvm_gvalue *h = tvm_graph_apply(g, "MatMul", "mm", TVM_IN(x, w), NULL, 0,
                                  1, NULL);
  h = tvm_graph_apply(g, "Relu", "relu", TVM_IN(h), NULL, 0, 1, NULL);
  h = tvm_graph_apply(g, "MatMul", "mm2", TVM_IN(h, w2), NULL, 0, 1, NULL);
  h = tvm_graph_apply(g, "Add", "out", TVM_IN(h, b), NULL, 0, 1, NULL);
  assert_int_equal(tvm_graph_mark_output(g, h), TVM_OK);
  return g;
}

/* The node called name. */
static const tvm_gnode *node(const tvm_graph *g, const char *name) {
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    if (!strcmp(n->name, name)) return n;
  }
  fail_msg("no node '%s'", name);
  return NULL;
}

/* The node producing the value called name (alter_layout may replace a
 * node, keeping its output's name). */
static const tvm_gnode *producer(const tvm_graph *g, const char *name) {
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    if (n->noutputs > 0 && !strcmp(n->outputs[0]->name, name)) return n;
  }
  fail_msg("no value '%s'", name);
  return NULL;
}

typedef struct seen {
  int n, fallback;
  char why[512];
} seen;

/* Placement callback: counts and keeps the reasons. */
static void placed(void *ud, const tvm_gnode *n, const tvm_target *on,
                   const char *reason) {
  seen *s = ud;
  s->n++;
  if (reason) {
    s->fallback++;
    size_t l = strlen(s->why);
    snprintf(s->why + l, sizeof s->why - l, "%s@%s: %s; ", n->name, on->name,
             reason);
  }
}

/* Runs plan p on t with x_ and checks out against ref. */
static void run_and_check(const tvm_plan *p, const tvm_target *t,
                          const float *ref) {
  float out[M * N2];
  tvm_executor *e = NULL;
  int64_t sx[2] = {M, K}, so[2] = {M, N2};
  DLTensor tx = {x_, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sx, NULL, 0};
  DLTensor to = {out, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, so, NULL, 0};
  if (tvm_executor_create(p, t, &e) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  assert_int_equal(tvm_executor_set_input(e, 0, &tx), TVM_OK);
  if (tvm_executor_run(e) != TVM_OK) fail_msg("%s", tvm_diag_message());
  assert_int_equal(tvm_executor_get_output(e, 0, &to), TVM_OK);
  for (int i = 0; i < M * N2; i++)
    if (out[i] != ref[i])
      fail_msg("out[%d] = %g, expected %g", i, out[i], ref[i]);
  tvm_executor_free(e);
}

static void test_placement_and_copies(void **state) {
  (void)state;
  float ref[M * N2];
  data(ref);
  tvm_target *t = load_target("mock-hetero", "fallback: llvm-cpu\n");
  assert_non_null(t->fallback);
  assert_string_equal(t->fallback->name, "llvm-cpu");
  tvm_graph *g = build(M);
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  seen s = {0};
  o.placed = placed;
  o.placed_ud = &s;
  tvm_plan *p = NULL;
  if (tvm_compile(g, t, &o, &p) != TVM_OK) fail_msg("%s", tvm_diag_message());

  /* placement: the GEMMs on the accelerator, the arithmetic on the CPU */
  assert_int_equal(node(g, "mm")->device, 0);
  assert_int_equal(node(g, "mm2")->device, 0);
  assert_int_equal(node(g, "relu")->device, 1);
  assert_int_equal(node(g, "out")->device, 1);
  assert_int_equal(s.n, 4);
  assert_int_equal(s.fallback, 2);
  assert_non_null(strstr(s.why, "relu@llvm-cpu: no Relu on the device"));
  assert_non_null(strstr(s.why, "out@llvm-cpu: no Add on the device"));
  /* copies: one per crossing edge, on the consumer's device */
  int copies = 0;
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    if (strcmp(n->op, "DeviceCopy")) continue;
    copies++;
    const tvm_gvalue *src = n->inputs[0];
    assert_int_not_equal(src->device, n->device);
    assert_int_equal(n->outputs[0]->device, n->device);
  }
  assert_int_equal(copies, 3);
  assert_int_equal(node(g, "mm.to1")->device, 1);
  assert_int_equal(node(g, "relu.to0")->device, 0);
  assert_int_equal(node(g, "mm2.to1")->device, 1);
  /* the plan: 3 copy steps, 2 launches per device, slots per device */
  assert_string_equal(p->fallback_target_name, "llvm-cpu");
  uint32_t ncopy = 0, on[2] = {0, 0};
  for (uint32_t i = 0; i < p->nsteps; i++) {
    const tvm_plan_step *st = &p->steps[i];
    if (st->copy) {
      ncopy++;
      assert_int_equal(st->nargs, 2);
      assert_int_not_equal(p->values[st->args[0]].device,
                           p->values[st->args[1]].device);
    } else {
      on[st->device]++;
      for (uint32_t a = 0; a < st->nargs; a++) /* kernels read their device */
        assert_int_equal(p->values[st->args[a]].device, st->device);
    }
  }
  assert_int_equal(ncopy, 3);
  assert_int_equal(on[0], 2);
  assert_int_equal(on[1], 2);
  assert_true(p->blob.nkernels >= 1 && p->fallback_blob.nkernels >= 1);
  for (uint32_t i = 0; i < p->nvalues; i++)
    if (p->values[i].kind == TVM_PV_ACTIVATION)
      assert_int_equal(p->storage_device[p->values[i].storage],
                       p->values[i].device);
  run_and_check(p, t, ref);

  /* the same plan through a package (format 4), its target remade from
   * what it records (fallback included) */
  char path[] = "/tmp/mockhetXXXXXX.tvmpkg";
  int fd = mkstemps(path, 7);
  assert_true(fd >= 0);
  close(fd);
  if (tvm_package_save(p, path) != TVM_OK) fail_msg("%s", tvm_diag_message());
  tvm_plan *q = NULL;
  tvm_target *qt = NULL;
  if (tvm_package_load(path, t, &q) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  remove(path);
  assert_string_equal(q->fallback_plugin_name, "llvm-cpu");
  if (tvm_plan_target(q, NULL, &qt) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  assert_non_null(qt->fallback);
  run_and_check(q, qt, ref);
  /* a target without the fallback cannot run it */
  tvm_target *alone = load_target("mock-alone", "");
  tvm_executor *e = NULL;
  assert_int_equal(tvm_executor_create(q, alone, &e), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "no fallback"));
  tvm_target_free(alone);
  tvm_target_free(qt);
  tvm_plan_free(q);
  tvm_plan_free(p);
  tvm_graph_free(g);
  tvm_target_free(t);
}

static void test_missing_support(void **state) {
  (void)state;
  float ref[M * N2];
  data(ref);
  /* no fallback: the first declined node is an error naming it */
  tvm_target *t = load_target("mock-alone", "");
  assert_null(t->fallback);
  tvm_graph *g = build(M);
  tvm_plan *p = NULL;
  assert_int_equal(tvm_compile(g, t, NULL, &p), TVM_ERR_UNSUPPORTED);
  const char *msg = tvm_diag_message();
  assert_non_null(strstr(msg, "node 'relu' (Relu)"));
  assert_non_null(strstr(msg, "target 'mock-alone' does not run it"));
  assert_non_null(strstr(msg, "fallback: llvm-cpu"));
  assert_null(p);
  tvm_graph_free(g);
  /* a shape the GEMM unit cannot tile: declined with the reason, and run
   * on the fallback when there is one, in the layout the fallback chose
   * for it (llvm-cpu packs the constant operand: MatMul_packed) */
  g = build(3);
  assert_int_equal(tvm_compile(g, t, NULL, &p), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "node 'mm' (MatMul)"));
  assert_non_null(strstr(tvm_diag_message(), "M % 8"));
  tvm_graph_free(g);
  tvm_target_free(t);
  t = load_target("mock-hetero", "fallback: llvm-cpu\n");
  g = build(3);
  if (tvm_compile(g, t, NULL, &p) != TVM_OK) fail_msg("%s", tvm_diag_message());
  assert_int_equal(producer(g, "mm")->device, 1);
  assert_int_equal(producer(g, "mm2")->device, 1);
  assert_string_equal(producer(g, "mm")->op, "MatMul_packed");
  tvm_plan_free(p);
  tvm_graph_free(g);
  tvm_target_free(t);
  /* a fallback naming itself is refused at load */
  char dir[64] = "/tmp/mockhetXXXXXX", path[128];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/t.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("name: loop\nplugin: mock_accel\nfallback: loop\n", f);
  fclose(f);
  assert_int_equal(tvm_target_load(path, &t), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "names the target itself"));
  remove(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_placement_and_copies),
      cmocka_unit_test(test_missing_support),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
