/*
 * tests/unit/runtime/plan_fixture.h - a small execution plan made by hand
 * (without tvm_compile) for the package and executor tests:
 *
 *   x[N] (input), w[N] (parameter)
 *   step 0  k_add(x, w) -> t   (activation, slot 0)
 *   step 1  k_sq(t)     -> u   (activation, slot 1)
 *   step 2  k_add(u, w) -> y   (output)
 *
 * so y = (x + w)^2 + w.  The two kernels are lowered from tensor
 * expressions with the default schedule and compiled by the target's
 * plugin into one device module.
 */
#ifndef TVM_TESTS_PLAN_FIXTURE_H
#define TVM_TESTS_PLAN_FIXTURE_H

#include <string.h>

#include "../../../core/compiler/compiler_int.h"
#include "tvm/compiler.h"
#include "tvm/runtime.h"

enum { FX_N = 1000 };

typedef struct fx_bin {
  tvm_tensor *a, *b;
} fx_bin;

static inline tvm_expr *fx_add_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  fx_bin *u = ud;
  return tvm_add(c, TVM_AT(c, u->a, i[0]), TVM_AT(c, u->b, i[0]));
}
static inline tvm_expr *fx_sq_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  fx_bin *u = ud;
  return tvm_mul(c, TVM_AT(c, u->a, i[0]), TVM_AT(c, u->a, i[0]));
}

/* Lowers one elementwise kernel named name into m. */
static inline tvm_status fx_lower(const tvm_target *t, tvm_module *m,
                           const char *name, int binary) {
  tvm_ctx *c = m->ctx;
  int64_t n = FX_N;
  fx_bin u;
  tvm_schedule *s = NULL;
  tvm_lower_options lo;
  u.a = tvm_placeholder(c, "A", TVM_F32, &n, 1);
  u.b = binary ? tvm_placeholder(c, "B", TVM_F32, &n, 1) : NULL;
  tvm_tensor *out = tvm_compute(c, "C", &n, 1,
                                binary ? fx_add_body : fx_sq_body, &u);
  if (out == NULL) return TVM_ERR_INVALID;
  tvm_status st = tvm_schedule_create(c, &out, 1, &s);
  if (st != TVM_OK) return st;
  tvm_lower_options_init(&lo);
  tvm_target_lower_options(t, &lo);
  tvm_tensor *args[3] = {u.a, binary ? u.b : out, out};
  st = tvm_lower(s, args, binary ? 3 : 2, name, &lo, m);
  tvm_schedule_free(s);
  return st;
}

/* Builds the fixture plan for target t (freed with tvm_plan_free), made
 * with tvm_plan_new and recording t with tvm_plan_set_target. */
static inline tvm_status fx_plan(const tvm_target *t, tvm_plan **out) {
  tvm_module m = {0};
  tvm_status st;
  tvm_plan *p = NULL;
  if ((st = tvm_plan_new(&p)) != TVM_OK) return st;
  tvm_arena *a = tvm_plan_arena(p);
  m.ctx = tvm_ctx_create();
  if ((st = fx_lower(t, &m, "k_add", 1)) != TVM_OK ||
      (st = fx_lower(t, &m, "k_sq", 0)) != TVM_OK ||
      (st = tvm_target_codegen(t, &m, &p->blob)) != TVM_OK) {
    tvm_ctx_destroy(m.ctx);
    tvm_plan_free(p);
    return st;
  }
  tvm_ctx_destroy(m.ctx);

  if ((st = tvm_plan_set_target(p, t)) != TVM_OK) {
    tvm_plan_free(p);
    return st;
  }
  p->nvalues = 5;
  p->values = tvm_arena_alloc(a, 5 * sizeof(tvm_plan_value));
  const char *names[5] = {"x", "w", "t", "u", "y"};
  const uint32_t kinds[5] = {TVM_PV_INPUT, TVM_PV_PARAM, TVM_PV_ACTIVATION,
                             TVM_PV_ACTIVATION, TVM_PV_OUTPUT};
  const int32_t slots[5] = {-1, -1, 0, 1, -1};
  float *w = tvm_arena_alloc(a, FX_N * sizeof(float));
  for (int i = 0; i < FX_N; i++) w[i] = 0.25f * (float)(i % 7) - 0.5f;
  for (int i = 0; i < 5; i++) {
    tvm_plan_value *v = &p->values[i];
    v->name = names[i];
    v->kind = kinds[i];
    v->dtype = TVM_F32;
    v->ndim = 1;
    v->shape[0] = FX_N;
    v->storage = slots[i];
    v->nbytes = FX_N * sizeof(float);
    v->data = i == 1 ? w : NULL;
  }
  static const uint32_t a0[3] = {0, 1, 2}, a1[2] = {2, 3}, a2[3] = {3, 1, 4};
  p->nsteps = 3;
  p->steps = tvm_arena_alloc(a, 3 * sizeof(tvm_plan_step));
  p->steps[0] = (tvm_plan_step){"k_add", "Add", 3, a0, FX_N, NULL, 0, 0};
  p->steps[1] = (tvm_plan_step){"k_sq", "Mul", 2, a1, FX_N, NULL, 0, 0};
  p->steps[2] = (tvm_plan_step){"k_add", "Add", 3, a2, FX_N, NULL, 0, 0};
  p->nstorage = 2;
  p->storage_bytes = tvm_arena_alloc(a, 2 * sizeof(uint64_t));
  p->storage_bytes[0] = p->storage_bytes[1] = FX_N * sizeof(float);
  p->ninputs = p->noutputs = 1;
  p->inputs = tvm_arena_alloc(a, sizeof(uint32_t));
  p->outputs = tvm_arena_alloc(a, sizeof(uint32_t));
  p->inputs[0] = 0;
  p->outputs[0] = 4;
  p->activation_bytes_planned = 2 * FX_N * sizeof(float);
  p->activation_bytes_unplanned = 2 * FX_N * sizeof(float);
  *out = p;
  return TVM_OK;
}

/* The fixture's expected output for input x and parameter w. */
static inline void fx_expect(const float *x, const float *w, float *y) {
  for (int i = 0; i < FX_N; i++) {
    float t = x[i] + w[i];
    y[i] = t * t + w[i];
  }
}

#endif
