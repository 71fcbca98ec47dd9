/*
 * core/graph/random.c - reproducible pseudo-random constants (the model
 * zoo's weights).
 *
 * The generator is SplitMix64 (Steele, Lea and Flood, 2014): the state
 * starts at the seed and advances by 0x9E3779B97F4A7C15 per draw; each
 * draw is mixed with
 *     z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
 *     z = (z ^ (z >> 27)) * 0x94D049BB133111EB
 *     z =  z ^ (z >> 31)
 * Element i (row-major) is the i-th draw, mapped to a double
 * u = (z >> 11) * 2^-53 in [0, 1), then to (2u - 1) * scale and rounded to
 * float32.  Only integer arithmetic and exactly rounded IEEE-754 double
 * operations are involved, so every machine gives the same bits.
 */
#include <stdio.h>

#include "graph_int.h"

/* One SplitMix64 step: advances *state and returns the mixed draw. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* A float32 constant of uniform values in [-scale, scale) drawn from
 * seed (see the top of this file). */
tvm_gvalue *tvm_graph_random(tvm_graph *g, const char *name,
                             const int64_t *shape, int ndim, uint64_t seed,
                             double scale) {
  if (!g) {
    tvm_diag_set(TVM_ERR_INVALID, "tvm_graph_random: graph is NULL");
    return NULL;
  }
  if (g->failed) return NULL;
  char what[96];
  snprintf(what, sizeof what, "constant '%s'", name ? name : "(unnamed)");
  if (graph_check_shape(what, shape, ndim)) {
    graph_fail(g, tvm_diag_status());
    return NULL;
  }
  tvm_gvalue *v = graph_new_const(g, name, TVM_F32, shape, ndim);
  if (!v) {
    graph_fail(g, tvm_diag_status());
    return NULL;
  }
  float *d = v->data;
  uint64_t state = seed;
  int64_t n = tvm_gvalue_numel(v);
  for (int64_t i = 0; i < n; i++) {
    double u = (double)(splitmix64(&state) >> 11) * 0x1.0p-53;
    d[i] = (float)((2.0 * u - 1.0) * scale);
  }
  return v;
}
