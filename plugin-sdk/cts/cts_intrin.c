/*
 * plugin-sdk/cts/cts_intrin.c - the conformance checks of a plugin's
 * tensor intrinsics and memory scopes:
 *
 *  - every declared intrinsic: declare() builds a pattern and an emitter;
 *    a GEMM-shaped pattern (C[M, N] = sum_k A * B, B as [K, N] or [N, K])
 *    tensorizes a GEMM twice its size in every dimension (tiles split by
 *    the pattern's extents, reduction outermost); the tensorized body
 *    must still touch A, B and C (an emitter that drops an operand is
 *    caught even without a device) and have fewer loops than the plain
 *    one; it compiles, and where the target runs it matches a C GEMM;
 *  - every memory scope: device-visible scopes allocate, copy both ways
 *    and free, and run a kernel whose buffers live in them; scopes inside
 *    kernels (thread, block, a scratchpad) hold a cache_read tile that a
 *    kernel reads, compiled and run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cts.h"

/* ---- the IR census --------------------------------------------------- */
typedef struct census {
  const tvm_expr *vars[3]; /* the data vars of A, B, C */
  int seen[3];
  int loops;
} census;

/* Visitor hook: notes uses of the watched vars. */
static int census_expr(tvm_visitor *v, const tvm_expr *e) {
  census *cs = v->data;
  for (int i = 0; i < 3; i++)
    if (e == cs->vars[i]) cs->seen[i] = 1;
  return 0;
}

/* Visitor hook: counts loops; store targets count as uses. */
static int census_stmt(tvm_visitor *v, const tvm_stmt *s) {
  census *cs = v->data;
  if (s->kind == TVM_FOR) cs->loops++;
  return 0;
}

/* Uses of A, B, C and the loop count of f's body. */
static census take_census(const tvm_func *f) {
  census cs;
  memset(&cs, 0, sizeof cs);
  for (int i = 0; i < 3 && i < f->nparams; i++) cs.vars[i] = f->params[i];
  tvm_visitor v = {census_expr, census_stmt, &cs};
  tvm_visit_stmt(&v, f->body);
  return cs;
}

/* ---- the GEMM ---------------------------------------------------------- */
typedef struct gemm {
  int64_t M, N, K;
  int bt;              /* B stored [N, K] */
  tvm_dtype in_dt, out_dt;
  tvm_tensor *A, *B;
} gemm;

/* C[i, j] = sum_k A[i, k] * B[k, j] (or B[j, k]), in the pattern's types. */
static tvm_expr *gemm_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  gemm *g = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, 2 * g->K);
  tvm_expr *a = TVM_AT(c, g->A, i[0], k->var);
  tvm_expr *b = g->bt ? TVM_AT(c, g->B, i[1], k->var)
                      : TVM_AT(c, g->B, k->var, i[1]);
  if (!tvm_dtype_eq(g->in_dt, g->out_dt)) {
    a = tvm_cast(c, g->out_dt, a);
    b = tvm_cast(c, g->out_dt, b);
  }
  return tvm_sum(c, tvm_mul(c, a, b), &k, 1);
}

/* The pattern's GEMM shape, or 0 when it is not a GEMM. */
static int gemm_shape(const tvm_tensor_intrin *ti, gemm *g, char *why,
                      size_t cap) {
  const tvm_tensor *p = ti->pattern;
  tvm_ptrvec ins = {0};
  int ok = p && p->op && p->op->kind == TVM_OP_COMPUTE && p->ndim == 2 &&
           p->op->nreduce == 1 && tvm_op_inputs(p->op, &ins) == TVM_OK &&
           ins.len == 2;
  if (ok) {
    const tvm_tensor *a = ins.data[0], *b = ins.data[1];
    int64_t K = 0;
    ok = tvm_is_const_int(p->op->reduce_axis[0]->dom.extent, &K) &&
         a->ndim == 2 && b->ndim == 2 && tvm_dtype_eq(a->dtype, b->dtype);
    if (ok) {
      g->M = p->shape_c[0];
      g->N = p->shape_c[1];
      g->K = K;
      g->in_dt = a->dtype;
      g->out_dt = p->dtype;
      g->bt = !(b->shape_c[0] == K && b->shape_c[1] == g->N);
      ok = a->shape_c[0] == g->M && a->shape_c[1] == K &&
           (!g->bt || (b->shape_c[0] == g->N && b->shape_c[1] == K));
    }
  }
  tvm_ptrvec_free(&ins);
  if (!ok)
    snprintf(why, cap,
             "its pattern is not a GEMM C[M, N] = sum_k A[M, K] * B (two "
             "2-D inputs, one reduction)");
  return ok;
}

/* Value i of a test operand (small integers: exact in any dtype). */
static double operand(int64_t i, int salt) {
  return (double)((i * 7 + salt * 3) % 9 - 4);
}

/* Element i of a flat buffer of dtype t, as a double / stored. */
static double rd(tvm_dtype t, const void *p, int64_t i) {
  if (t.code == kDLFloat)
    return t.bits == 64 ? ((const double *)p)[i] : ((const float *)p)[i];
  switch (t.bits) {
  case 8: return ((const int8_t *)p)[i];
  case 16: return ((const int16_t *)p)[i];
  case 64: return (double)((const int64_t *)p)[i];
  default: return ((const int32_t *)p)[i];
  }
}
static void wr(tvm_dtype t, void *p, int64_t i, double v) {
  if (t.code == kDLFloat) {
    if (t.bits == 64) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
    return;
  }
  switch (t.bits) {
  case 8: ((int8_t *)p)[i] = (int8_t)v; break;
  case 16: ((int16_t *)p)[i] = (int16_t)v; break;
  case 64: ((int64_t *)p)[i] = (int64_t)v; break;
  default: ((int32_t *)p)[i] = (int32_t)v; break;
  }
}

/* Runs f(A, B, C) on d and compares C with a C GEMM. */
static int run_gemm(const tvm_target *t, tvm_device *d, const tvm_module *m,
                    const char *fname, const gemm *g, char *why, size_t cap) {
  int64_t M = 2 * g->M, N = 2 * g->N, K = 2 * g->K;
  int64_t n[3] = {M * K, K * N, M * N};
  tvm_dtype dt[3] = {g->in_dt, g->in_dt, g->out_dt};
  void *h[3] = {0}, *dev[3] = {0};
  double *ref = calloc((size_t)(M * N), sizeof *ref);
  tvm_runtime_module *rm = NULL;
  tvm_runtime_func *f = NULL;
  tvm_plugin_arg args[3];
  int ok = ref != NULL;
  for (int i = 0; ok && i < 3; i++) {
    h[i] = calloc((size_t)n[i], (size_t)tvm_dtype_bytes(dt[i]));
    ok = h[i] != NULL;
  }
  if (!ok) {
    snprintf(why, cap, "out of host memory");
  } else {
    for (int64_t i = 0; i < n[0]; i++) wr(dt[0], h[0], i, operand(i, 1));
    for (int64_t i = 0; i < n[1]; i++) wr(dt[1], h[1], i, operand(i, 2));
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        double acc = 0;
        for (int64_t k = 0; k < K; k++)
          acc += rd(dt[0], h[0], i * K + k) *
                 rd(dt[1], h[1], g->bt ? j * K + k : k * N + j);
        ref[i * N + j] = acc;
      }
    tvm_status st = tvm_build(t, m, d, &rm);
    if (!st) st = tvm_runtime_get_func(rm, fname, &f);
    for (int i = 0; !st && i < 3; i++) {
      size_t bytes = (size_t)n[i] * (size_t)tvm_dtype_bytes(dt[i]);
      st = tvm_device_alloc(d, 0, bytes, 64, &dev[i]);
      if (!st)
        st = tvm_device_copy(d, dev[i], 0, h[i], 0, bytes,
                             TVM_COPY_HOST_TO_DEVICE);
      args[i].type = TVM_ARG_PTR;
      args[i].reserved = 0;
      args[i].v.ptr = dev[i];
    }
    if (!st) st = tvm_runtime_call(f, args, 3);
    if (!st)
      st = tvm_device_copy(d, h[2], 0, dev[2], 0,
                           (size_t)n[2] * (size_t)tvm_dtype_bytes(dt[2]),
                           TVM_COPY_DEVICE_TO_HOST);
    if (st) {
      ok = 0;
      snprintf(why, cap, "%s", tvm_diag_message());
    }
    for (int64_t e = 0; ok && e < M * N; e++) {
      double got = rd(dt[2], h[2], e);
      if (fabs(got - ref[e]) > 1e-4 * (1 + fabs(ref[e]))) {
        ok = 0;
        snprintf(why, cap, "C[%lld, %lld]: got %g, expected %g",
                 (long long)(e / N), (long long)(e % N), got, ref[e]);
      }
    }
  }
  for (int i = 0; i < 3; i++) {
    if (dev[i]) tvm_device_free(d, 0, dev[i]);
    free(h[i]);
  }
  free(ref);
  tvm_runtime_module_free(rm);
  return ok;
}

/* Lowers the GEMM of g with or without tensorizing by ti; NULL (with the
 * diagnostic) on failure. */
static tvm_module *lower_gemm(const tvm_target *t, tvm_ctx *c, gemm *g,
                              tvm_tensor_intrin *ti, const char *name) {
  int64_t sa[2] = {2 * g->M, 2 * g->K};
  int64_t sb[2] = {g->bt ? 2 * g->N : 2 * g->K, g->bt ? 2 * g->K : 2 * g->N};
  int64_t sc[2] = {2 * g->M, 2 * g->N};
  g->A = tvm_placeholder(c, "A", g->in_dt, sa, 2);
  g->B = tvm_placeholder(c, "B", g->in_dt, sb, 2);
  tvm_tensor *C = g->A && g->B ? tvm_compute(c, "C", sc, 2, gemm_body, g)
                               : NULL;
  tvm_module *m = tvm_ctx_alloc(c, sizeof *m);
  tvm_schedule *s = NULL;
  if (!C || !m || tvm_schedule_create(c, &C, 1, &s)) return NULL;
  m->ctx = c;
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *io, *ii, *jo, *ji, *ko, *ki;
  tvm_status rc = tvm_split(st, tvm_stage_axis(st, 0), g->M, &io, &ii);
  if (!rc) rc = tvm_split(st, tvm_stage_axis(st, 1), g->N, &jo, &ji);
  if (!rc) rc = tvm_split(st, tvm_stage_reduce_axis(st, 0), g->K, &ko, &ki);
  if (!rc) rc = tvm_reorder(st, (tvm_iter_var *[]){io, jo, ko, ii, ji, ki}, 6);
  if (!rc && ti) rc = tvm_tensorize(st, ii, ti);
  tvm_lower_options lo;
  tvm_lower_options_init(&lo);
  tvm_target_lower_options(t, &lo);
  tvm_tensor *args[3] = {g->A, g->B, C};
  if (!rc) rc = tvm_lower(s, args, 3, name, &lo, m);
  tvm_schedule_free(s);
  return rc ? NULL : m;
}

/* One intrinsic: declare, tensorize, census, codegen, run. */
static void check_intrin(const tvm_target *t, tvm_device *d,
                         const tvm_plugin_intrin *in) {
  char what[512], why[1024] = "";
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor_intrin *ti = NULL;
  snprintf(what, sizeof what, "intrinsic %s: declare() builds a pattern and "
           "an emitter", in->name);
  tvm_diag_clear();
  int32_t rc = c ? in->declare(t->instance, c, &ti) : TVM_ERR_NOMEM;
  if (!cts_check(rc == 0 && ti && ti->pattern && ti->emit, what,
                 rc ? tvm_diag_message() : "NULL intrinsic, pattern or emitter")) {
    tvm_ctx_destroy(c);
    return;
  }
  gemm g;
  memset(&g, 0, sizeof g);
  snprintf(what, sizeof what, "tensorize through %s", in->name);
  if (!gemm_shape(ti, &g, why, sizeof why)) {
    cts_skip(what, why);
    tvm_ctx_destroy(c);
    return;
  }
  snprintf(what, sizeof what,
           "tensorize through %s: a %lldx%lldx%lld GEMM in %lldx%lldx%lld "
           "tiles lowers", in->name, (long long)(2 * g.M),
           (long long)(2 * g.N), (long long)(2 * g.K), (long long)g.M,
           (long long)g.N, (long long)g.K);
  tvm_ctx *cp = tvm_ctx_create();
  gemm gp = g;
  tvm_module *plain = cp ? lower_gemm(t, cp, &gp, NULL, "cts_gemm") : NULL;
  tvm_module *m = lower_gemm(t, c, &g, ti, "cts_gemm");
  if (!cts_check(m && plain, what, tvm_diag_message())) {
    tvm_ctx_destroy(cp);
    tvm_ctx_destroy(c);
    return;
  }
  census ct = take_census(m->funcs[0]), cpl = take_census(plain->funcs[0]);
  tvm_ctx_destroy(cp);
  static const char *const names[3] = {"A", "B", "C"};
  int touched = ct.seen[0] && ct.seen[1] && ct.seen[2];
  for (int i = 0; i < 3; i++)
    if (!ct.seen[i]) {
      snprintf(why, sizeof why,
               "the tensorized body never uses %s: %s's emitter drops an "
               "operand",
               names[i], in->name);
      break;
    }
  snprintf(what, sizeof what,
           "tensorize through %s: the emitted body uses A, B and C", in->name);
  cts_check(touched, what, why);
  snprintf(what, sizeof what,
           "tensorize through %s: the tile's loops are replaced (%d loops, "
           "%d untensorized)", in->name, ct.loops, cpl.loops);
  cts_check(ct.loops < cpl.loops, what, "no loop disappeared");
  tvm_plugin_blob b;
  snprintf(what, sizeof what, "tensorize through %s: codegen", in->name);
  if (cts_check(tvm_target_codegen(t, m, &b) == TVM_OK, what,
                tvm_diag_message()))
    tvm_plugin_blob_free(&b);
  snprintf(what, sizeof what,
           "tensorize through %s: the GEMM matches the C reference", in->name);
  if (!d)
    cts_skip(what, "this machine cannot run the target");
  else
    cts_check(run_gemm(t, d, m, "cts_gemm", &g, why, sizeof why), what, why);
  tvm_ctx_destroy(c);
}

/* See cts.h. */
void cts_check_intrinsics(const tvm_target *t, tvm_device *d) {
  const tvm_plugin_target_info *info = tvm_target_info(t);
  if (info->nintrins == 0) {
    cts_skip("tensor intrinsics", "the plugin declares none");
    return;
  }
  for (uint32_t i = 0; i < info->nintrins; i++)
    if (info->intrins[i].name && info->intrins[i].declare)
      check_intrin(t, d, &info->intrins[i]);
}

/* ---- memory scopes ----------------------------------------------------- */
enum { SN = 64 }; /* elements of the scope programs */

/* out[i] = A[i] + 1, A staged through scope (cache_read, one tile of 8
 * per outer iteration) when staged, else straight from buffers declared
 * in scope. */
static tvm_expr *plus_one(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_add(c, TVM_AT(c, (tvm_tensor *)ud, i[0]), tvm_f32(c, 1));
}

/* Lowers the scope program; NULL with the diagnostic on failure. */
static tvm_module *lower_scope_prog(const tvm_target *t, tvm_ctx *c,
                                    const char *scope, int staged) {
  int64_t n = SN;
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F32, &n, 1);
  tvm_tensor *O = A ? tvm_compute(c, "O", &n, 1, plus_one, A) : NULL;
  tvm_module *m = tvm_ctx_alloc(c, sizeof *m);
  tvm_schedule *s = NULL;
  if (!O || !m || tvm_schedule_create(c, &O, 1, &s)) return NULL;
  m->ctx = c;
  tvm_stage *so = tvm_stage_of(s, O);
  tvm_iter_var *xo, *xi;
  tvm_status rc = tvm_split(so, tvm_stage_axis(so, 0), 8, &xo, &xi);
  if (!rc && staged) {
    tvm_tensor *AL = NULL;
    tvm_operation *readers[1] = {so->op};
    rc = tvm_cache_read(s, A, scope, readers, 1, &AL);
    if (!rc) rc = tvm_compute_at(tvm_stage_of(s, AL), tvm_stage_of(s, O), xo);
  }
  tvm_lower_options lo;
  tvm_lower_options_init(&lo);
  tvm_target_lower_options(t, &lo);
  tvm_tensor *args[2] = {A, O};
  if (!rc) rc = tvm_lower(s, args, 2, "cts_scope", &lo, m);
  tvm_schedule_free(s);
  return rc ? NULL : m;
}

/* Runs cts_scope(A, O) with both buffers allocated in scope index si and
 * checks O = A + 1. */
static int run_scope_prog(const tvm_target *t, tvm_device *d,
                          const tvm_module *m, uint32_t si, char *why,
                          size_t cap) {
  float a[SN], o[SN];
  void *da = NULL, *dout = NULL;
  tvm_runtime_module *rm = NULL;
  tvm_runtime_func *f = NULL;
  for (int i = 0; i < SN; i++) a[i] = (float)(i % 13) - 6.0f, o[i] = 0;
  tvm_status st = tvm_build(t, m, d, &rm);
  if (!st) st = tvm_runtime_get_func(rm, "cts_scope", &f);
  if (!st) st = tvm_device_alloc(d, si, sizeof a, 64, &da);
  if (!st) st = tvm_device_alloc(d, si, sizeof o, 64, &dout);
  if (!st)
    st = tvm_device_copy(d, da, 0, a, 0, sizeof a, TVM_COPY_HOST_TO_DEVICE);
  tvm_plugin_arg args[2] = {{TVM_ARG_PTR, 0, {.ptr = da}},
                            {TVM_ARG_PTR, 0, {.ptr = dout}}};
  if (!st) st = tvm_runtime_call(f, args, 2);
  if (!st)
    st = tvm_device_copy(d, o, 0, dout, 0, sizeof o, TVM_COPY_DEVICE_TO_HOST);
  int ok = st == TVM_OK;
  if (!ok) snprintf(why, cap, "%s", tvm_diag_message());
  for (int i = 0; ok && i < SN; i++)
    if (o[i] != a[i] + 1) {
      ok = 0;
      snprintf(why, cap, "O[%d] = %g, expected %g", i, o[i], a[i] + 1);
    }
  if (da) tvm_device_free(d, si, da);
  if (dout) tvm_device_free(d, si, dout);
  tvm_runtime_module_free(rm);
  return ok;
}

/* alloc, copy in, copy out, compare, free in scope index si. */
static int roundtrip(tvm_device *d, uint32_t si, uint64_t bytes, char *why,
                     size_t cap) {
  unsigned char *in = malloc(bytes), *out = calloc(1, bytes);
  void *p = NULL;
  int ok = in && out;
  if (ok) {
    for (uint64_t i = 0; i < bytes; i++) in[i] = (unsigned char)(i * 31 + 7);
    tvm_status st = tvm_device_alloc(d, si, bytes, 64, &p);
    if (!st)
      st = tvm_device_copy(d, p, 0, in, 0, bytes, TVM_COPY_HOST_TO_DEVICE);
    if (!st)
      st = tvm_device_copy(d, out, 0, p, 0, bytes, TVM_COPY_DEVICE_TO_HOST);
    if (st) {
      ok = 0;
      snprintf(why, cap, "%s", tvm_diag_message());
    } else if (memcmp(in, out, bytes) != 0) {
      ok = 0;
      snprintf(why, cap, "the bytes read back differ from those written");
    }
    if (p) tvm_device_free(d, si, p);
  } else {
    snprintf(why, cap, "out of host memory");
  }
  free(in);
  free(out);
  return ok;
}

/* See cts.h. */
void cts_check_scopes(const tvm_target *t, tvm_device *d) {
  const tvm_plugin_target_info *info = tvm_target_info(t);
  char what[512], why[1024] = "";
  if (info->nscopes == 0) {
    cts_skip("memory scopes", "the plugin declares none");
    return;
  }
  for (uint32_t i = 0; i < info->nscopes; i++) {
    const tvm_plugin_scope *sc = &info->scopes[i];
    if (!sc->name) continue;
    int device_level = (sc->visibility & (TVM_VIS_DEVICE | TVM_VIS_HOST)) != 0;
    if (device_level) {
      uint64_t bytes = sc->size_bytes && sc->size_bytes < 4096 ? sc->size_bytes
                                                               : 4096;
      snprintf(what, sizeof what,
               "scope %s: alloc, copy both ways and free %llu bytes", sc->name,
               (unsigned long long)bytes);
      if (!d) cts_skip(what, "this machine cannot run the target");
      else cts_check(roundtrip(d, i, bytes, why, sizeof why), what, why);
    }
    /* a kernel reading and writing it */
    snprintf(what, sizeof what, "scope %s: a kernel %s it compiles", sc->name,
             device_level ? "on buffers allocated in" : "staging a tile in");
    tvm_ctx *c = tvm_ctx_create();
    tvm_module *m = c ? lower_scope_prog(t, c, sc->name, !device_level) : NULL;
    tvm_plugin_blob b;
    int ok = m && tvm_target_codegen(t, m, &b) == TVM_OK;
    if (cts_check(ok, what, tvm_diag_message())) tvm_plugin_blob_free(&b);
    snprintf(what, sizeof what, "scope %s: that kernel matches the reference",
             sc->name);
    if (!ok) {
      /* reported above */
    } else if (!d) {
      cts_skip(what, "this machine cannot run the target");
    } else {
      cts_check(run_scope_prog(t, d, m, device_level ? i : 0, why, sizeof why),
                what, why);
    }
    tvm_ctx_destroy(c);
  }
}
