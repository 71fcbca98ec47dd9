/*
 * core/frontend/zoo/zoo.c - the model zoo's registry: one entry per model
 * (name, builder), looked up by tvm_zoo_build.  Models live one family a
 * file next to this one; add a builder and a line to `models` below.
 */
#include <stdio.h>
#include <string.h>

#include "tvm/zoo.h"
#include "zoo_int.h" /* the builders of the other models */

typedef struct zoo_model {
  const char *name;
  tvm_status (*build)(tvm_graph *g);
} zoo_model;

/* "mlp": a tiny classifier, x[1, 64] -> Gemm(128) -> Relu -> Gemm(10) ->
 * Softmax, for smoke tests of the whole pipeline. */
static tvm_status build_mlp(tvm_graph *g) {
  tvm_gvalue *x = tvm_graph_input(g, "x", TVM_F32, (int64_t[]){1, 64}, 2);
  tvm_gvalue *w1 = tvm_graph_random(g, "fc1.weight", (int64_t[]){128, 64}, 2,
                                    101, 0.125);
  tvm_gvalue *b1 = tvm_graph_random(g, "fc1.bias", (int64_t[]){128}, 1, 102,
                                    0.1);
  tvm_gvalue *w2 = tvm_graph_random(g, "fc2.weight", (int64_t[]){10, 128}, 2,
                                    103, 0.09);
  tvm_gvalue *b2 = tvm_graph_random(g, "fc2.bias", (int64_t[]){10}, 1, 104,
                                    0.1);
  tvm_gattr tb = tvm_gattr_int("transB", 1);
  tvm_gvalue *h =
      tvm_graph_apply(g, "Gemm", "fc1", TVM_IN(x, w1, b1), &tb, 1, 1, NULL);
  h = tvm_graph_apply(g, "Relu", "relu1", TVM_IN(h), TVM_NOATTRS, 1, NULL);
  h = tvm_graph_apply(g, "Gemm", "fc2", TVM_IN(h, w2, b2), &tb, 1, 1, NULL);
  tvm_gattr ax = tvm_gattr_int("axis", 1);
  h = tvm_graph_apply(g, "Softmax", "prob", TVM_IN(h), &ax, 1, 1, NULL);
  if (h) tvm_graph_mark_output(g, h);
  return tvm_graph_status(g);
}

static const zoo_model models[] = {
    {"mlp", build_mlp},
    {"resnet18", zoo_build_resnet18},
    {"resnet50", zoo_build_resnet50},
    {"mobilenet_v2", zoo_build_mobilenet_v2},
    {"squeezenet", zoo_build_squeezenet},
    {"lstm_lm", zoo_build_lstm_lm},
    {"dqn", zoo_build_dqn},
    {"dcgan", zoo_build_dcgan},
};
#define NMODELS (sizeof models / sizeof models[0])

/* Names, NULL-terminated. */
const char *const *tvm_zoo_names(void) {
  static const char *names[NMODELS + 1];
  for (size_t i = 0; i < NMODELS; i++) names[i] = models[i].name;
  names[NMODELS] = NULL;
  return names;
}

/* Builds model name into a new graph. */
tvm_status tvm_zoo_build(const char *name, tvm_graph **out) {
  *out = NULL;
  for (size_t i = 0; i < NMODELS; i++) {
    if (strcmp(models[i].name, name) != 0) continue;
    tvm_graph *g = NULL;
    tvm_status st = tvm_graph_create(&g);
    if (st != TVM_OK) return st;
    if ((st = models[i].build(g)) != TVM_OK) {
      tvm_graph_free(g);
      return tvm_diag_prefix(st, "building zoo model '%s': ", name);
    }
    *out = g;
    return TVM_OK;
  }
  char list[512];
  size_t n = 0;
  list[0] = 0;
  for (size_t i = 0; i < NMODELS && n + 64 < sizeof list; i++)
    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "",
                          models[i].name);
  return tvm_diag_set(TVM_ERR_NOT_FOUND,
                      "no model '%s' in the zoo (models: %s)", name, list);
}
