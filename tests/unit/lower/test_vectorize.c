/*
 * tests/unit/lower/test_vectorize.c - the vectorize pass: printed vector
 * code for the usual shapes, scalar fallbacks where lanes would interact,
 * and, for every case (and 400 random loop bodies), the interpreted result
 * equal to the scalar loop's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tvm/lower.h"
#include "pass_check.h"

#define N 32

typedef struct fx {
  tvm_ctx *c;
  tvm_expr *A, *B, *C, *i, *n;
} fx;

static int setup(void **state) {
  fx *f = test_calloc(1, sizeof *f);
  f->c = tvm_ctx_create();
  f->A = tvm_var(f->c, "A", TVM_HANDLE);
  f->B = tvm_var(f->c, "B", TVM_HANDLE);
  f->C = tvm_var(f->c, "C", TVM_HANDLE);
  f->i = tvm_var(f->c, "i", TVM_I32);
  f->n = tvm_var(f->c, "n", TVM_I32);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  tvm_ctx_destroy(f->c);
  test_free(f);
  return 0;
}

static tvm_expr *ld(fx *f, tvm_expr *buf, tvm_expr *idx) {
  return tvm_load(f->c, TVM_F32, buf, idx, NULL);
}

/* Runs s on fresh buffers A (i * 0.25 - 1), B (3 - i), C (7) and n = 5;
 * copies C out. */
static void interpret(fx *f, tvm_stmt *s, double *cout) {
  pc_interp *p = pc_new(0);
  double *a = pc_buffer(p, f->A, N), *b = pc_buffer(p, f->B, N),
         *c = pc_buffer(p, f->C, N);
  for (int k = 0; k < N; k++) {
    a[k] = k * 0.25 - 1;
    b[k] = 3 - k;
    c[k] = 7;
  }
  pc_set_var(p, f->n, 5);
  if (pc_run(p, s) != 0) fail_msg("interpreter: %s", pc_error(p));
  memcpy(cout, c, sizeof(double) * N);
  pc_free(p);
}

/* Vectorizes a loop with body `body` over i in [0, extent) and returns the
 * printed result; checks the numbers against the scalar loop. */
static char *vectorize(fx *f, tvm_stmt *loop) {
  tvm_lower_options o;
  tvm_func *fn, *out;
  tvm_lower_options_init(&o);
  fn = tvm_func_new(f->c, "f", NULL, NULL, 0, loop);
  assert_int_equal(tvm_pass_vectorize(f->c, fn, &o, &out), TVM_OK);
  double ref[N], got[N];
  interpret(f, loop, ref);
  interpret(f, out->body, got);
  for (int k = 0; k < N; k++)
    if (ref[k] != got[k]) fail_msg("C[%d]: scalar %g, vector %g", k, ref[k], got[k]);
  return tvm_stmt_str(out->body);
}

static tvm_stmt *vloop(fx *f, int extent, tvm_stmt *body) {
  return tvm_for(f->c, f->i, tvm_int(f->c, 0), tvm_int(f->c, extent),
                 TVM_FOR_VECTORIZED, NULL, body);
}

/* The loop of `extent` over C[i] = A[i] + B[i] * 2. */
static tvm_stmt *a_plus_2b(fx *f, int extent) {
  tvm_ctx *c = f->c;
  return vloop(f, extent, tvm_store(c, f->C, f->i,
      tvm_add(c, ld(f, f->A, f->i), tvm_mul(c, ld(f, f->B, f->i), tvm_f32(c, 2))),
      NULL));
}

/* C[i] = A[i] + B[i] * 2: contiguous vector loads and store. */
static void test_elementwise(void **state) {
  fx *f = *state;
  char *t = vectorize(f, a_plus_2b(f, 8));
  assert_string_equal(t, "C[ramp(0, 1, 8)] = A[ramp(0, 1, 8)] + "
                         "B[ramp(0, 1, 8)] * x8(2.0f)\n");
  tvm_free(t);
}

/* Inner vectorized loop of a tiled nest: the index folds to a ramp based
 * on the outer variable; outer invariants are broadcast. */
static void test_tiled_affine(void **state) {
  fx *f = *state;
  tvm_ctx *c = f->c;
  tvm_expr *io = tvm_var(c, "io", TVM_I32);
  tvm_expr *idx = tvm_add(c, tvm_mul(c, io, tvm_int(c, 4)), f->i);
  tvm_stmt *in = vloop(f, 4, tvm_store(c, f->C, idx,
      tvm_mul(c, ld(f, f->A, idx), ld(f, f->B, io)), NULL));
  tvm_stmt *s = tvm_for(c, io, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL,
                        NULL, in);
  char *t = vectorize(f, s);
  assert_string_equal(t, "for (io, 0, 4) {\n"
                         "  C[ramp(io * 4 + 0, 1, 4)] = A[ramp(io * 4 + 0, 1, 4)] * "
                         "x4(B[io])\n"
                         "}\n");
  tvm_free(t);
}

/* if (i < n) C[i] = A[i] * B[i] else C[i] = 0: predicated stores and
 * loads, no branch on the lane; versioned on whether every lane is active
 * (i < n at the first and the last lane), unmasked then. */
static void test_predicated_if(void **state) {
  fx *f = *state;
  tvm_ctx *c = f->c;
  tvm_stmt *s = vloop(f, 8, tvm_if(c, tvm_lt(c, f->i, f->n),
      tvm_store(c, f->C, f->i, tvm_mul(c, ld(f, f->A, f->i), ld(f, f->B, f->i)), NULL),
      tvm_store(c, f->C, f->i, tvm_f32(c, 0), NULL)));
  char *t = vectorize(f, s);
  assert_string_equal(t,
      "if (0 < n && 7 < n) {\n"
      "  C[ramp(0, 1, 8)] = A[ramp(0, 1, 8)] * B[ramp(0, 1, 8)]\n"
      "} else {\n"
      "  C[ramp(0, 1, 8), pred=ramp(0, 1, 8) < x8(n)] = "
      "A[ramp(0, 1, 8), pred=ramp(0, 1, 8) < x8(n)] * "
      "B[ramp(0, 1, 8), pred=ramp(0, 1, 8) < x8(n)]\n"
      "  C[ramp(0, 1, 8), pred=!(ramp(0, 1, 8) < x8(n))] = x8(0.0f)\n"
      "}\n");
  tvm_free(t);
}

/* select, casts of the lane variable, math intrinsics and a strided,
 * reversed gather all widen lane-wise. */
static void test_select_cast_math(void **state) {
  fx *f = *state;
  tvm_ctx *c = f->c;
  tvm_expr *rev = tvm_sub(c, tvm_int(c, 15), tvm_mul(c, f->i, tvm_int(c, 2)));
  tvm_expr *v = tvm_select(c, tvm_gt(c, ld(f, f->A, f->i), tvm_f32(c, 0)),
                           tvm_math(c, TVM_INTRIN_EXP, ld(f, f->B, rev)),
                           tvm_cast(c, TVM_F32, f->i));
  tvm_stmt *s = vloop(f, 8, tvm_store(c, f->C, f->i, v, NULL));
  char *t = vectorize(f, s);
  assert_string_equal(t,
      "C[ramp(0, 1, 8)] = select(A[ramp(0, 1, 8)] > x8(0.0f), "
      "exp(B[ramp(15 - 0 * 2, 0 - 1 * 2, 8)]), float32x8(ramp(0, 1, 8)))\n");
  tvm_free(t);
}

/* Bodies that cannot be lane-wise stay serial loops (and stay right). */
static void test_fallbacks(void **state) {
  fx *f = *state;
  tvm_ctx *c = f->c;
  tvm_expr *j = tvm_var(c, "j", TVM_I32), *x = tvm_var(c, "x", TVM_F32);
  /* loop-carried through memory: C[i + 1] = C[i] + A[i] */
  tvm_stmt *carried = vloop(f, 8, tvm_store(c, f->C, tvm_add(c, f->i, tvm_int(c, 1)),
      tvm_add(c, ld(f, f->C, f->i), ld(f, f->A, f->i)), NULL));
  /* reduction into one element */
  tvm_stmt *red = vloop(f, 8, tvm_store(c, f->C, tvm_int(c, 0),
      tvm_add(c, ld(f, f->C, tvm_int(c, 0)), ld(f, f->A, f->i)), NULL));
  /* inner loop */
  tvm_stmt *inner = vloop(f, 4, tvm_for(c, j, tvm_int(c, 0), tvm_int(c, 2),
      TVM_FOR_SERIAL, NULL,
      tvm_store(c, f->C, tvm_add(c, tvm_mul(c, f->i, tvm_int(c, 2)), j),
                ld(f, f->A, j), NULL)));
  /* let depending on the lane */
  tvm_stmt *let = vloop(f, 8, tvm_let_stmt(c, x, ld(f, f->A, f->i),
      tvm_store(c, f->C, f->i, tvm_mul(c, x, x), NULL)));
  char *t1 = vectorize(f, carried), *t2 = vectorize(f, red),
       *t3 = vectorize(f, inner), *t4 = vectorize(f, let);
  assert_string_equal(t1, "for (i, 0, 8) {\n  C[i + 1] = C[i] + A[i]\n}\n");
  assert_string_equal(t2, "for (i, 0, 8) {\n  C[0] = C[0] + A[i]\n}\n");
  assert_non_null(strstr(t3, "for (i, 0, 4) {\n  for (j, 0, 2) {"));
  assert_non_null(strstr(t4, "for (i, 0, 8) {\n  let x = A[i]"));
  tvm_free(t1);
  tvm_free(t2);
  tvm_free(t3);
  tvm_free(t4);
}

/* In-place update C[i] = C[i] * A[i] has one index: vectorizable. */
static void test_in_place_update(void **state) {
  fx *f = *state;
  tvm_ctx *c = f->c;
  tvm_stmt *s = vloop(f, 16, tvm_store(c, f->C, f->i,
      tvm_mul(c, ld(f, f->C, f->i), ld(f, f->A, f->i)), NULL));
  char *t = vectorize(f, s);
  assert_string_equal(t, "C[ramp(0, 1, 16)] = C[ramp(0, 1, 16)] * "
                         "A[ramp(0, 1, 16)]\n");
  tvm_free(t);
}

/* ---- guarded lane-invariant loads ---------------------------------------- */

#define SMALL_C 40

/* Runs s on A of na elements (1 + k), B of nb (k - 2), C of SMALL_C (7)
 * and n = 5, copying C out; the interpreter fails on any load or store
 * outside a buffer, predicated-off lanes excepted. */
static void interpret_small(fx *f, tvm_stmt *s, long na, long nb, double *cout) {
  pc_interp *p = pc_new(0);
  double *a = pc_buffer(p, f->A, na), *b = pc_buffer(p, f->B, nb),
         *c = pc_buffer(p, f->C, SMALL_C);
  for (long k = 0; k < na; k++) a[k] = 1 + (double)k;
  for (long k = 0; k < nb; k++) b[k] = (double)k - 2;
  for (int k = 0; k < SMALL_C; k++) c[k] = 7;
  pc_set_var(p, f->n, 5);
  if (pc_run(p, s) != 0) fail_msg("interpreter: %s", pc_error(p));
  memcpy(cout, c, sizeof(double) * SMALL_C);
  pc_free(p);
}

/* Vectorizes loop, checks that neither the scalar loop nor the result
 * touches memory outside the (small) buffers and that both compute the
 * same C; returns the printed result. */
static char *vectorize_small(fx *f, tvm_stmt *loop, long na, long nb) {
  tvm_lower_options o;
  tvm_func *fn, *out;
  double ref[SMALL_C], got[SMALL_C];
  tvm_lower_options_init(&o);
  fn = tvm_func_new(f->c, "f", NULL, NULL, 0, loop);
  assert_int_equal(tvm_pass_vectorize(f->c, fn, &o, &out), TVM_OK);
  interpret_small(f, loop, na, nb, ref);
  interpret_small(f, out->body, na, nb, got);
  for (int k = 0; k < SMALL_C; k++)
    if (ref[k] != got[k]) fail_msg("C[%d]: scalar %g, vector %g", k, ref[k], got[k]);
  return tvm_stmt_str(out->body);
}

/* A ragged tile: for io in [0, 5), lanes i in [0, 8):
 *   if (io < 4 && i < n) C[io * 8 + i] = A[io] * B[i]   (A has 4 rows)
 * The lane-invariant conjunct io < 4 becomes a scalar if around the vector
 * code, so the broadcast A[io] is never read for io = 4 (it was read
 * unconditionally when the whole condition became the lane mask); only
 * i < n is a predicate, and whether every lane is active (invariant in
 * io too) versions the whole loop nest.  With an else branch the else
 * code runs both under the negated lane mask and when the invariant part
 * is false. */
static void test_invariant_conjuncts_hoisted(void **state) {
  fx *f = *state;
  tvm_ctx *c = f->c;
  tvm_expr *io = tvm_var(c, "io", TVM_I32);
  tvm_expr *idx = tvm_add(c, tvm_mul(c, io, tvm_int(c, 8)), f->i);
  tvm_expr *cond = tvm_and(c, tvm_lt(c, io, tvm_int(c, 4)), tvm_lt(c, f->i, f->n));
  tvm_stmt *then_ = tvm_store(c, f->C, idx,
      tvm_mul(c, ld(f, f->A, io), ld(f, f->B, f->i)), NULL);
  tvm_stmt *s1 = tvm_for(c, io, tvm_int(c, 0), tvm_int(c, 5), TVM_FOR_SERIAL, NULL,
                         vloop(f, 8, tvm_if(c, cond, then_, NULL)));
  char *t = vectorize_small(f, s1, 4, 8);
  assert_string_equal(t,
      "if (0 < n && 7 < n) {\n"
      "  for (io, 0, 5) {\n"
      "    if (io < 4) {\n"
      "      C[ramp(io * 8 + 0, 1, 8)] = x8(A[io]) * B[ramp(0, 1, 8)]\n"
      "    }\n"
      "  }\n"
      "} else {\n"
      "  for (io, 0, 5) {\n"
      "    if (io < 4) {\n"
      "      C[ramp(io * 8 + 0, 1, 8), pred=ramp(0, 1, 8) < x8(n)] = x8(A[io]) * "
      "B[ramp(0, 1, 8), pred=ramp(0, 1, 8) < x8(n)]\n"
      "    }\n"
      "  }\n"
      "}\n");
  tvm_free(t);

  /* the lane conjunct first, an else branch, a second invariant conjunct */
  cond = tvm_and(c, tvm_and(c, tvm_lt(c, f->i, f->n), tvm_lt(c, io, tvm_int(c, 4))),
                 tvm_ge(c, io, tvm_int(c, 1)));
  tvm_stmt *s2 = tvm_for(c, io, tvm_int(c, 0), tvm_int(c, 5), TVM_FOR_SERIAL, NULL,
      vloop(f, 8, tvm_if(c, cond, then_, tvm_store(c, f->C, idx, tvm_f32(c, -1), NULL))));
  t = vectorize_small(f, s2, 4, 8);
  assert_string_equal(t,
      "if (0 < n && 7 < n) {\n"
      "  for (io, 0, 5) {\n"
      "    if (io < 4 && io >= 1) {\n"
      "      C[ramp(io * 8 + 0, 1, 8)] = x8(A[io]) * B[ramp(0, 1, 8)]\n"
      "    } else {\n"
      "      C[ramp(io * 8 + 0, 1, 8)] = x8(-1.0f)\n"
      "    }\n"
      "  }\n"
      "} else {\n"
      "  for (io, 0, 5) {\n"
      "    if (io < 4 && io >= 1) {\n"
      "      C[ramp(io * 8 + 0, 1, 8), pred=ramp(0, 1, 8) < x8(n)] = x8(A[io]) * "
      "B[ramp(0, 1, 8), pred=ramp(0, 1, 8) < x8(n)]\n"
      "      C[ramp(io * 8 + 0, 1, 8), pred=!(ramp(0, 1, 8) < x8(n))] = x8(-1.0f)\n"
      "    } else {\n"
      "      C[ramp(io * 8 + 0, 1, 8)] = x8(-1.0f)\n"
      "    }\n"
      "  }\n"
      "}\n");
  tvm_free(t);
}

/* When the lane mask itself guards the invariant load, hoisting it is
 * unsafe: for io in [0, 5), lanes i in [0, 8):
 *   if (io * 8 + i < 32) C[io * 8 + i] = B[io]          (B has 4 elements)
 * reads B[4] in no iteration of the scalar loop, but every lane of the
 * mask is off at io = 4 and x8(B[io]) would read it.  B's index uses io,
 * a variable of the mask, so the loop stays serial.  Likewise for a let
 * value and for an invariant if condition under such a mask. */
static void test_guarded_invariant_load_scalarizes(void **state) {
  fx *f = *state;
  tvm_ctx *c = f->c;
  tvm_expr *io = tvm_var(c, "io", TVM_I32), *x = tvm_var(c, "x", TVM_F32);
  tvm_expr *idx = tvm_add(c, tvm_mul(c, io, tvm_int(c, 8)), f->i);
  tvm_expr *cond = tvm_lt(c, idx, tvm_int(c, 32));
  tvm_stmt *body[3] = {
      tvm_store(c, f->C, idx, ld(f, f->B, io), NULL),
      tvm_let_stmt(c, x, ld(f, f->B, io), tvm_store(c, f->C, idx, x, NULL)),
      tvm_if(c, tvm_gt(c, ld(f, f->B, io), tvm_f32(c, 0)),
             tvm_store(c, f->C, idx, tvm_f32(c, 3), NULL), NULL),
  };
  for (int k = 0; k < 3; k++) {
    tvm_stmt *s = tvm_for(c, io, tvm_int(c, 0), tvm_int(c, 5), TVM_FOR_SERIAL, NULL,
                          vloop(f, 8, tvm_if(c, cond, body[k], NULL)));
    char *t = vectorize_small(f, s, 40, 4);
    if (!strstr(t, "for (io, 0, 5) {\n  for (i, 0, 8) {\n    if (io * 8 + i < 32) {\n"))
      fail_msg("case %d not kept serial:\n%s", k, t);
    tvm_free(t);
  }
  /* the same load where the mask's first lane is always active (io < 4,
   * io * 8 + 0 < 30): the scalar loop read B[io] too, so it is hoisted;
   * the tiles are versioned on every lane being active (io * 8 + 7 < 30) */
  tvm_stmt *first = tvm_for(c, io, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL,
      NULL, vloop(f, 8, tvm_if(c, tvm_lt(c, idx, tvm_int(c, 30)), body[0], NULL)));
  char *tf = vectorize_small(f, first, 40, 4);
  if (strstr(tf, "for (i,") || !strstr(tf, "x8(B[io])") || !strstr(tf, "pred="))
    fail_msg("first lane active, yet:\n%s", tf);
  tvm_free(tf);
  /* an invariant load whose index shares no variable with the mask stays
   * a broadcast: B[n - 2] under i < 3 */
  tvm_stmt *ok = vloop(f, 8, tvm_if(c, tvm_lt(c, f->i, tvm_int(c, 3)),
      tvm_store(c, f->C, f->i, ld(f, f->B, tvm_sub(c, f->n, tvm_int(c, 2))), NULL),
      NULL));
  char *t = vectorize_small(f, ok, 40, 4);
  assert_string_equal(t, "C[ramp(0, 1, 8), pred=ramp(0, 1, 8) < x8(3)] = x8(B[n - 2])\n");
  tvm_free(t);
}

/* ---- random loop bodies ------------------------------------------------ */

static uint32_t rs;
static uint32_t rnd(uint32_t n) {
  rs ^= rs << 13;
  rs ^= rs >> 17;
  rs ^= rs << 5;
  return rs % n;
}

/* A random integer index in [0, 16) for i in [0, 8). */
static tvm_expr *rnd_index(fx *f) {
  tvm_ctx *c = f->c;
  tvm_expr *i = f->i;
  switch (rnd(7)) {
  case 0: return i;
  case 1: return tvm_add(c, i, tvm_int(c, (int)rnd(8)));
  case 2: return tvm_mul(c, i, tvm_int(c, 2));
  case 3: return tvm_sub(c, tvm_int(c, 15), i);
  case 4: return tvm_floordiv(c, i, tvm_int(c, 2));
  case 5: return tvm_floormod(c, tvm_mul(c, i, tvm_int(c, 3)), tvm_int(c, 16));
  default: return tvm_int(c, (int)rnd(16));
  }
}

static tvm_expr *rnd_value(fx *f, int depth, tvm_expr *self_idx) {
  tvm_ctx *c = f->c;
  uint32_t k = depth > 2 ? rnd(4) : rnd(11);
  switch (k) {
  case 0: return tvm_load(c, TVM_F32, f->A, rnd_index(f), NULL);
  case 1: return tvm_load(c, TVM_F32, f->B, rnd_index(f), NULL);
  case 2: return tvm_f32(c, (double)rnd(9) * 0.5 - 2);
  case 3:
    if (self_idx && rnd(2)) return tvm_load(c, TVM_F32, f->C, self_idx, NULL);
    return tvm_cast(c, TVM_F32, tvm_add(c, f->i, f->n));
  case 4: return tvm_add(c, rnd_value(f, depth + 1, self_idx), rnd_value(f, depth + 1, self_idx));
  case 5: return tvm_sub(c, rnd_value(f, depth + 1, self_idx), rnd_value(f, depth + 1, self_idx));
  case 6: return tvm_mul(c, rnd_value(f, depth + 1, self_idx), rnd_value(f, depth + 1, self_idx));
  case 7: return tvm_max(c, rnd_value(f, depth + 1, self_idx), rnd_value(f, depth + 1, self_idx));
  case 8: return tvm_math(c, TVM_INTRIN_FABS, rnd_value(f, depth + 1, self_idx));
  case 9:
    return tvm_select(c, tvm_lt(c, rnd_value(f, depth + 1, self_idx), tvm_f32(c, 0.5)),
                      rnd_value(f, depth + 1, self_idx), rnd_value(f, depth + 1, self_idx));
  default:
    return tvm_select(c, tvm_lt(c, rnd_index(f), tvm_int(c, 6)),
                      rnd_value(f, depth + 1, self_idx), rnd_value(f, depth + 1, self_idx));
  }
}

/* One or two stores to C, sometimes under an if on the lane, sometimes
 * reading C elsewhere (which must make the loop stay serial). */
static tvm_stmt *rnd_body(fx *f) {
  tvm_ctx *c = f->c;
  tvm_stmt *v[2];
  int n = 1 + (int)rnd(2);
  /* mostly one injective affine store index (vectorizable), sometimes
   * anything (gathers, repeats, two indices: the loop must stay serial) */
  tvm_expr *idx = rnd(5) ? tvm_add(c, tvm_mul(c, f->i, tvm_int(c, 1 + (int)rnd(2))),
                                   tvm_int(c, (int)rnd(4)))
                         : rnd_index(f);
  for (int k = 0; k < n; k++) {
    if (rnd(8) == 0) idx = rnd_index(f);
    tvm_stmt *st = tvm_store(c, f->C, idx, rnd_value(f, 0, rnd(8) ? idx : rnd_index(f)), NULL);
    if (rnd(3) == 0)
      st = tvm_if(c, tvm_lt(c, f->i, f->n), st,
                  rnd(2) ? tvm_store(c, f->C, idx, tvm_f32(c, -1), NULL) : NULL);
    v[k] = st;
  }
  return tvm_seq(c, v, n);
}

/* A loop wider than a native vector whose lanes are no power of two is cut
 * into power-of-two pieces, largest first (28 floats at the default 256
 * bits: 16 + 8 + 4); one that fits a native vector (6 floats) is not. */
static void test_pieces_of_powers_of_two(void **state) {
  fx *f = *state;
  tvm_ctx *c = f->c;
  char *t = vectorize(f, a_plus_2b(f, 28));
  assert_non_null(strstr(t, "C[ramp(0, 1, 16)] = A[ramp(0, 1, 16)]"));
  assert_non_null(strstr(t, "C[ramp(0 + 16, 1, 8)] = A[ramp(0 + 16, 1, 8)]"));
  assert_non_null(strstr(t, ", 1, 4)] = A[ramp("));
  assert_null(strstr(t, ", 1, 28)"));
  tvm_free(t);
  /* a predicated body keeps its masks in every piece; numbers checked */
  tvm_stmt *p = vloop(f, 24, tvm_if(c, tvm_lt(c, f->i, tvm_int(c, 19)),
      tvm_store(c, f->C, f->i, tvm_mul(c, ld(f, f->A, f->i), ld(f, f->B, f->i)),
                NULL),
      tvm_store(c, f->C, f->i, tvm_f32(c, 0), NULL)));
  t = vectorize(f, p);
  assert_null(strstr(t, ", 1, 24)"));
  assert_non_null(strstr(t, ", 1, 8)"));
  tvm_free(t);
  t = vectorize(f, vloop(f, 6, tvm_store(c, f->C, f->i, ld(f, f->A, f->i),
                                         NULL)));
  assert_string_equal(t, "C[ramp(0, 1, 6)] = A[ramp(0, 1, 6)]\n");
  tvm_free(t);
}

/* Random bodies: whatever the pass does (vector code or a serial
 * fallback), the numbers equal the scalar loop's; many do vectorize. */
static void test_random_bodies(void **state) {
  fx *f = *state;
  int vectorized = 0;
  for (int seed = 1; seed <= 400; seed++) {
    rs = 88172645u ^ (uint32_t)seed * 2246822519u;
    char *t = vectorize(f, vloop(f, 8, rnd_body(f)));
    if (strstr(t, "ramp(")) vectorized++;
    tvm_free(t);
    assert_false(f->c->failed);
  }
  print_message("%d of 400 vectorized\n", vectorized);
  assert_true(vectorized > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_elementwise, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tiled_affine, setup, teardown),
      cmocka_unit_test_setup_teardown(test_predicated_if, setup, teardown),
      cmocka_unit_test_setup_teardown(test_select_cast_math, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fallbacks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_in_place_update, setup, teardown),
      cmocka_unit_test_setup_teardown(test_invariant_conjuncts_hoisted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_guarded_invariant_load_scalarizes, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_pieces_of_powers_of_two, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_random_bodies, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
