/*
 * tests/unit/lower/test_inject_dep_tokens.c - dependency tokens for a
 * two-queue load/compute pipeline (queue 0 loads into inp_buf, queue 1
 * accumulates in acc_buf), with 1 and 2 virtual threads.  The checker
 * (pass_check.c) runs the program and verifies that the tokens order
 * every conflicting access pair across queues, that no pop goes negative
 * and that all counts return to zero; with 2 virtual threads the printed
 * IR must issue thread 1's load before thread 0's compute.  Then three
 * queues with nested loops and ifs, and a few thousand random programs
 * (loops, ifs, 1-3 virtual threads) through the same checker.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/lower.h"
#include "pass_check.h"

#define K 5   /* reduction steps */
#define W 4   /* tile width */

typedef struct pipe {
  tvm_ctx *c;
  tvm_expr *A, *C;
  tvm_stmt *prog;
  tvm_lower_options o;
  tvm_scope_info scopes[2];
} pipe;

/* for vt in nvt (vthread, omitted when nvt == 1):
 *   allocate inp[4] inp_buf; allocate acc[4] acc_buf
 *   coproc 1 { for x: acc[x] = 0 }
 *   for ko in K:
 *     coproc 0 { for x: inp[x] = A[(vt * K + ko) * 4 + x] }
 *     coproc 1 { for x: acc[x] = acc[x] + inp[x] * 2 }
 *   coproc 1 { for x: C[vt * 4 + x] = acc[x] } */
static void build(pipe *p, int nvt) {
  tvm_ctx *c = p->c = tvm_ctx_create();
  p->A = tvm_var(c, "A", TVM_HANDLE);
  p->C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *inp = tvm_var(c, "inp", TVM_HANDLE), *acc = tvm_var(c, "acc", TVM_HANDLE);
  tvm_expr *vt = tvm_var(c, "vt", TVM_I32), *ko = tvm_var(c, "ko", TVM_I32);
  tvm_expr *x = tvm_var(c, "x", TVM_I32);
  tvm_expr *vtx = nvt > 1 ? vt : tvm_int(c, 0);
#define LOOPX(body) tvm_for(c, x, tvm_int(c, 0), tvm_int(c, W), TVM_FOR_SERIAL, NULL, body)
#define Q(q, body) tvm_attr(c, TVM_ATTR_COPROC_SCOPE, NULL, tvm_int(c, q), body)
  tvm_stmt *init = Q(1, LOOPX(tvm_store(c, acc, x, tvm_f32(c, 0), NULL)));
  tvm_expr *aidx = tvm_add(c, tvm_mul(c, tvm_add(c, tvm_mul(c, vtx, tvm_int(c, K)), ko),
                                      tvm_int(c, W)), x);
  tvm_stmt *load = Q(0, LOOPX(tvm_store(c, inp, x, tvm_load(c, TVM_F32, p->A, aidx, NULL), NULL)));
  tvm_stmt *comp = Q(1, LOOPX(tvm_store(c, acc, x,
      tvm_add(c, tvm_load(c, TVM_F32, acc, x, NULL),
              tvm_mul(c, tvm_load(c, TVM_F32, inp, x, NULL), tvm_f32(c, 2))), NULL)));
  tvm_stmt *store = Q(1, LOOPX(tvm_store(c, p->C,
      tvm_add(c, tvm_mul(c, vtx, tvm_int(c, W)), x), tvm_load(c, TVM_F32, acc, x, NULL), NULL)));
  tvm_stmt *kl = tvm_for(c, ko, tvm_int(c, 0), tvm_int(c, K), TVM_FOR_SERIAL, NULL,
                         tvm_seq2(c, load, comp));
  tvm_stmt *seq[3] = {init, kl, store};
  tvm_stmt *body = tvm_allocate(c, inp, TVM_F32, tvm_int(c, W), "inp_buf",
      tvm_allocate(c, acc, TVM_F32, tvm_int(c, W), "acc_buf", tvm_seq(c, seq, 3)));
  p->prog = nvt > 1 ? tvm_for(c, vt, tvm_int(c, 0), tvm_int(c, nvt), TVM_FOR_VTHREAD,
                              "vthread", body)
                    : body;
  tvm_lower_options_init(&p->o);
  p->scopes[0] = (tvm_scope_info){"inp_buf", TVM_VIS_THREAD, 0, 0, 0};
  p->scopes[1] = (tvm_scope_info){"acc_buf", TVM_VIS_THREAD, 0, 0, 1};
  p->o.scopes = p->scopes;
  p->o.nscopes = 2;
  p->o.num_queues = 2;
#undef LOOPX
#undef Q
}

/* Runs s through the checker; returns 0 when it passes, else -1 (the
 * message in *err when err is given).  Checks C against the reference. */
static int check(pipe *p, tvm_stmt *s, int nvt, char *err) {
  pc_interp *it = pc_new(2);
  double *a = pc_buffer(it, p->A, nvt * K * W), *cc = pc_buffer(it, p->C, nvt * W);
  int rc = 0;
  for (int i = 0; i < nvt * K * W; i++) a[i] = (i % 7) - 2;
  if (pc_run(it, s) != 0 || !pc_tokens_balanced(it)) {
    rc = -1;
  } else {
    for (int v = 0; v < nvt; v++)
      for (int x = 0; x < W; x++) {
        double ref = 0;
        for (int k = 0; k < K; k++) ref += a[(v * K + k) * W + x] * 2;
        if (cc[v * W + x] != ref) {
          pc_fail(it, "C[%d] = %g, expected %g", v * W + x, cc[v * W + x], ref);
          rc = -1;
        }
      }
  }
  if (err) strcpy(err, pc_error(it));
  pc_free(it);
  return rc;
}

static tvm_func *lower_dae(pipe *p) {
  tvm_func *f = tvm_func_new(p->c, "f", NULL, NULL, 0, p->prog), *v, *d;
  assert_int_equal(tvm_pass_inject_virtual_thread(p->c, f, &p->o, &v), TVM_OK);
  assert_int_equal(tvm_pass_inject_dep_tokens(p->c, v, &p->o, &d), TVM_OK);
  return d;
}

/* One thread: RAW load -> compute each iteration, WAR compute -> next
 * load (primed before the loop, drained after), balanced and race-free. */
static void test_one_thread(void **state) {
  (void)state;
  pipe p;
  char err[512];
  build(&p, 1);
  /* the checker catches the program without tokens */
  assert_int_equal(check(&p, p.prog, 1, err), -1);
  assert_non_null(strstr(err, "race"));
  tvm_func *d = lower_dae(&p);
  if (check(&p, d->body, 1, err)) fail_msg("%s", err);
  char *t = tvm_stmt_str(d->body);
  assert_string_equal(t,
      "allocate inp[float32 * 4] scope=inp_buf\n"
      "allocate acc[float32 * 4] scope=acc_buf\n"
      "// attr coproc_scope = 1\n"
      "for (x, 0, 4) {\n"
      "  acc[x] = 0.0f\n"
      "}\n"
      "// attr coproc_scope = 1\n"
      "dep_push(1, 0)\n"
      "for (ko, 0, 5) {\n"
      "  // attr coproc_scope = 0\n"
      "  dep_pop(1, 0)\n"
      "  for (x, 0, 4) {\n"
      "    inp[x] = A[(0 * 5 + ko) * 4 + x]\n"
      "  }\n"
      "  dep_push(0, 1)\n"
      "  // attr coproc_scope = 1\n"
      "  dep_pop(0, 1)\n"
      "  for (x, 0, 4) {\n"
      "    acc[x] = acc[x] + inp[x] * 2.0f\n"
      "  }\n"
      "  dep_push(1, 0)\n"
      "}\n"
      "// attr coproc_scope = 0\n"
      "dep_pop(1, 0)\n"
      "// attr coproc_scope = 1\n"
      "for (x, 0, 4) {\n"
      "  C[0 * 4 + x] = acc[x]\n"
      "}\n");
  tvm_free(t);
  tvm_ctx_destroy(p.c);
}

/* Two virtual threads: each copy has its own tokens, the loads of both
 * threads come before the computes, and everything still checks. */
static void test_two_vthreads(void **state) {
  (void)state;
  pipe p;
  char err[512];
  build(&p, 2);
  tvm_func *d = lower_dae(&p);
  if (check(&p, d->body, 2, err)) fail_msg("%s", err);
  char *t = tvm_stmt_str(d->body);
  const char *load1 = strstr(t, "inp[x + 1 * 4] = A[(1 * 5 + ko) * 4 + x]");
  const char *comp0 = strstr(t, "acc[x + 0 * 4] = acc[x + 0 * 4] + inp[x + 0 * 4] * 2.0f");
  assert_non_null(load1);
  assert_non_null(comp0);
  assert_true(load1 < comp0);
  /* thread 1's load waits only for thread 1's compute of the previous
   * iteration: two pops (1, 0) in the loop, two draining the primes */
  int pops10 = 0;
  for (const char *q = t; (q = strstr(q, "dep_pop(1, 0)")); q++) pops10++;
  assert_int_equal(pops10, 4);
  assert_null(strstr(t, "virtual_thread_copy"));
  tvm_free(t);
  tvm_ctx_destroy(p.c);
}

/* Without virtual threads the pass is the identity when nothing is
 * queued, and leaves a single-queue program without tokens. */
static void test_no_cross_queue(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_stmt *s = tvm_store(c, C, tvm_int(c, 0), tvm_f32(c, 1), NULL);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  o.num_queues = 2;
  tvm_func *f = tvm_func_new(c, "f", NULL, NULL, 0, s), *d;
  assert_int_equal(tvm_pass_inject_dep_tokens(c, f, &o, &d), TVM_OK);
  char *t = tvm_stmt_str(d->body);
  assert_string_equal(t, "C[0] = 1.0f\n");
  tvm_free(t);
  tvm_ctx_destroy(c);
}

/* Three queues (load 0, compute 1, store 2) over an outer loop of tiles
 * holding the reduction loop, with the store under an if, and 2 virtual
 * threads: nested loops, an if and a third queue stay ordered and
 * balanced.
 *   for vt (vthread 2): for t in 3:
 *     coproc 1 { acc[x] = 0 }
 *     for ko in 2: coproc 0 { inp[x] = A[..] }; coproc 1 { acc += inp * 2 }
 *     if (t != 1) coproc 2 { outb[x] = acc[x] + 1 }  else coproc 2 { outb[x] = 0 }
 *     coproc 2 { C[..] = outb[x] } */
static void test_three_queues_nested(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *inp = tvm_var(c, "inp", TVM_HANDLE), *acc = tvm_var(c, "acc", TVM_HANDLE);
  tvm_expr *outb = tvm_var(c, "outb", TVM_HANDLE);
  tvm_expr *vt = tvm_var(c, "vt", TVM_I32), *t = tvm_var(c, "t", TVM_I32);
  tvm_expr *ko = tvm_var(c, "ko", TVM_I32), *x = tvm_var(c, "x", TVM_I32);
#define LOOPX(body) tvm_for(c, x, tvm_int(c, 0), tvm_int(c, W), TVM_FOR_SERIAL, NULL, body)
#define Q(q, body) tvm_attr(c, TVM_ATTR_COPROC_SCOPE, NULL, tvm_int(c, q), body)
#define LD(b, i) tvm_load(c, TVM_F32, b, i, NULL)
  tvm_expr *tile = tvm_add(c, tvm_mul(c, vt, tvm_int(c, 3)), t); /* 0 .. 5 */
  tvm_expr *aidx = tvm_add(c, tvm_mul(c, tvm_add(c, tvm_mul(c, tile, tvm_int(c, 2)), ko),
                                      tvm_int(c, W)), x);
  tvm_stmt *init = Q(1, LOOPX(tvm_store(c, acc, x, tvm_f32(c, 0), NULL)));
  tvm_stmt *load = Q(0, LOOPX(tvm_store(c, inp, x, LD(A, aidx), NULL)));
  tvm_stmt *comp = Q(1, LOOPX(tvm_store(c, acc, x,
      tvm_add(c, LD(acc, x), tvm_mul(c, LD(inp, x), tvm_f32(c, 2))), NULL)));
  tvm_stmt *kl = tvm_for(c, ko, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_SERIAL, NULL,
                         tvm_seq2(c, load, comp));
  tvm_stmt *st = tvm_if(c, tvm_ne(c, t, tvm_int(c, 1)),
      Q(2, LOOPX(tvm_store(c, outb, x, tvm_add(c, LD(acc, x), tvm_f32(c, 1)), NULL))),
      Q(2, LOOPX(tvm_store(c, outb, x, tvm_f32(c, 0), NULL))));
  tvm_stmt *wb = Q(2, LOOPX(tvm_store(c, C, tvm_add(c, tvm_mul(c, tile, tvm_int(c, W)), x),
                                      LD(outb, x), NULL)));
  tvm_stmt *seq[4] = {init, kl, st, wb};
  tvm_stmt *body = tvm_allocate(c, inp, TVM_F32, tvm_int(c, W), "inp_buf",
      tvm_allocate(c, acc, TVM_F32, tvm_int(c, W), "acc_buf",
          tvm_allocate(c, outb, TVM_F32, tvm_int(c, W), "out_buf",
              tvm_for(c, t, tvm_int(c, 0), tvm_int(c, 3), TVM_FOR_SERIAL, NULL,
                      tvm_seq(c, seq, 4)))));
  tvm_stmt *prog = tvm_for(c, vt, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_VTHREAD,
                           "vthread", body);
#undef LOOPX
#undef Q
#undef LD
  tvm_scope_info scopes[3] = {{"inp_buf", TVM_VIS_THREAD, 0, 0, 0},
                              {"acc_buf", TVM_VIS_THREAD, 0, 0, 1},
                              {"out_buf", TVM_VIS_THREAD, 0, 0, 2}};
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  o.scopes = scopes;
  o.nscopes = 3;
  o.num_queues = 3;
  tvm_func *f = tvm_func_new(c, "f", NULL, NULL, 0, prog), *v, *d;
  assert_int_equal(tvm_pass_inject_virtual_thread(c, f, &o, &v), TVM_OK);
  assert_int_equal(tvm_pass_inject_dep_tokens(c, v, &o, &d), TVM_OK);

  pc_interp *it = pc_new(3);
  double *a = pc_buffer(it, A, 6 * 2 * W), *cc = pc_buffer(it, C, 6 * W);
  for (int i = 0; i < 6 * 2 * W; i++) a[i] = (i % 5) - 1;
  if (pc_run(it, d->body) || !pc_tokens_balanced(it)) fail_msg("%s", pc_error(it));
  for (int tl = 0; tl < 6; tl++)
    for (int xx = 0; xx < W; xx++) {
      double ref = 0;
      for (int k = 0; k < 2; k++) ref += a[(tl * 2 + k) * W + xx] * 2;
      ref = tl % 3 == 1 ? 0 : ref + 1;
      if (cc[tl * W + xx] != ref) fail_msg("C[%d] = %g, want %g", tl * W + xx, cc[tl * W + xx], ref);
    }
  assert_true(pc_token_ops(it) > 0);
  pc_free(it);

  /* a queue id the target does not have is an error */
  o.num_queues = 2;
  assert_int_equal(tvm_pass_inject_dep_tokens(c, v, &o, &d), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "coproc_scope = 2"));
  tvm_ctx_destroy(c);
}

/* ---- random programs ------------------------------------------------------ */

/* A small deterministic generator (xorshift). */
static uint32_t rnd_state;
static uint32_t rnd(uint32_t n) {
  rnd_state ^= rnd_state << 13;
  rnd_state ^= rnd_state >> 17;
  rnd_state ^= rnd_state << 5;
  return rnd_state % n;
}

#define NB 4 /* buffers */

typedef struct gen {
  tvm_ctx *c;
  tvm_expr *bufs[NB], *x, *vt;
  tvm_expr *loopv[4];
  int depth, nloops;
} gen;

/* coproc q { for x in 2: w[vt*2 + x] = w[vt*2 + x] * 0.5 + r[vt*2 + x] + k } */
static tvm_stmt *gen_qs(gen *g) {
  tvm_ctx *c = g->c;
  int q = (int)rnd(3), w = (int)rnd(NB), r = (int)rnd(NB);
  tvm_expr *idx = tvm_add(c, tvm_mul(c, g->vt, tvm_int(c, 2)), g->x);
  tvm_expr *v = tvm_add(c, tvm_add(c, tvm_mul(c, tvm_load(c, TVM_F32, g->bufs[w], idx, NULL),
                                              tvm_f32(c, 0.5)),
                                   tvm_load(c, TVM_F32, g->bufs[r], idx, NULL)),
                        tvm_f32(c, (double)rnd(7)));
  return tvm_attr(c, TVM_ATTR_COPROC_SCOPE, NULL, tvm_int(c, q),
                  tvm_for(c, g->x, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_SERIAL, NULL,
                          tvm_store(c, g->bufs[w], idx, v, NULL)));
}

static tvm_stmt *gen_seq(gen *g) {
  tvm_ctx *c = g->c;
  int n = 1 + (int)rnd(5);
  tvm_stmt *v[6];
  for (int i = 0; i < n; i++) {
    uint32_t kind = g->depth < 3 ? rnd(10) : 0;
    if (kind < 6) {
      v[i] = gen_qs(g);
    } else if (kind < 9) {
      tvm_expr *lv = g->loopv[g->nloops++];
      g->depth++;
      v[i] = tvm_for(c, lv, tvm_int(c, 0), tvm_int(c, 1 + (int)rnd(3)),
                     TVM_FOR_SERIAL, NULL, gen_seq(g));
      g->depth--;
      g->nloops--;
    } else {
      g->depth++;
      tvm_expr *cond = g->nloops > 0
                           ? tvm_eq(c, tvm_floormod(c, g->loopv[g->nloops - 1],
                                                    tvm_int(c, 2)),
                                    tvm_int(c, 0))
                           : tvm_eq(c, g->vt, tvm_int(c, 0));
      tvm_stmt *t = gen_seq(g), *e = rnd(2) ? gen_seq(g) : NULL;
      g->depth--;
      v[i] = tvm_if(c, cond, t, e);
    }
  }
  return tvm_seq(c, v, n);
}

/* Random programs on 3 queues, with 1, 2 or 3 virtual threads: the
 * checker finds every program with tokens race-free and balanced, and
 * the results equal those of the program without tokens. */
static void test_random_programs(void **state) {
  (void)state;
  char names[NB][4] = {"b0", "b1", "b2", "b3"};
  int checked = 0;
  for (int seed = 1; seed <= 3000; seed++) {
    rnd_state = 2463534242u ^ (uint32_t)seed * 2654435761u;
    tvm_ctx *c = tvm_ctx_create();
    gen g = {c, {0}, tvm_var(c, "x", TVM_I32), tvm_var(c, "vt", TVM_I32), {0}, 0, 0};
    for (int b = 0; b < NB; b++) g.bufs[b] = tvm_var(c, names[b], TVM_HANDLE);
    for (int l = 0; l < 4; l++) g.loopv[l] = tvm_var(c, "l", TVM_I32);
    int nvt = 1 + seed % 3;
    tvm_stmt *body = gen_seq(&g);
    tvm_stmt *prog = tvm_for(c, g.vt, tvm_int(c, 0), tvm_int(c, nvt),
                             nvt > 1 ? TVM_FOR_VTHREAD : TVM_FOR_SERIAL,
                             nvt > 1 ? "vthread" : NULL, body);
    tvm_lower_options o;
    tvm_lower_options_init(&o);
    o.num_queues = 3;
    tvm_func *f = tvm_func_new(c, "f", NULL, NULL, 0, prog), *v, *d;
    assert_int_equal(tvm_pass_inject_virtual_thread(c, f, &o, &v), TVM_OK);
    assert_int_equal(tvm_pass_inject_dep_tokens(c, v, &o, &d), TVM_OK);
    double res[2][NB][6];
    for (int pass = 0; pass < 2; pass++) {
      pc_interp *it = pc_new(pass ? 3 : 0);
      double *data[NB];
      for (int b = 0; b < NB; b++) {
        data[b] = pc_buffer(it, g.bufs[b], 6);
        for (int k = 0; k < 6; k++) data[b][k] = b + k;
      }
      if (pc_run(it, pass ? d->body : prog) || (pass && !pc_tokens_balanced(it))) {
        char *txt = tvm_stmt_str(d->body);
        printf("seed %d:\n%s", seed, txt);
        fflush(stdout);
        tvm_free(txt);
        fail_msg("seed %d: %s", seed, pc_error(it));
      }
      for (int b = 0; b < NB; b++) memcpy(res[pass][b], data[b], sizeof res[0][0]);
      pc_free(it);
    }
    if (memcmp(res[0], res[1], sizeof res[0]) != 0) fail_msg("seed %d: results differ", seed);
    checked++;
    tvm_ctx_destroy(c);
  }
  assert_int_equal(checked, 3000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_thread),
      cmocka_unit_test(test_two_vthreads),
      cmocka_unit_test(test_no_cross_queue),
      cmocka_unit_test(test_three_queues_nested),
      cmocka_unit_test(test_random_programs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
