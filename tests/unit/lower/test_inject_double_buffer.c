/*
 * tests/unit/lower/test_inject_double_buffer.c - double buffering: a tile
 * filled per loop iteration gets two copies, the first filled before the
 * loop and the next one's fetch guarded in the body (printed IR); the
 * result computes what the loop computed (interpreted); thread_sync then
 * keeps one barrier per iteration; misplaced requests are refused with
 * what to change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tvm/lower.h"
#include "pass_check.h"

/* for k in 3 (kind): allocate S[4] shared {
 *   attr [S] double_buffer_scope = 1 { for x in 4: S[x] = A[k * 4 + x] }
 *   for x in 4: C[k * 4 + x] = S[3 - x] * 2 }
 * kind TVM_FOR_THREAD binds k to threadIdx.x; producer_in_if puts the
 * attribute under `if (k < 5)`. */
typedef struct tile {
  tvm_expr *A, *C, *S, *k;
  tvm_stmt *loop;
} tile;

static tile make_tile(tvm_ctx *c, tvm_for_kind kind, int producer_in_if) {
  tile t;
  t.A = tvm_var(c, "A", TVM_HANDLE);
  t.C = tvm_var(c, "C", TVM_HANDLE);
  t.S = tvm_var(c, "S", TVM_HANDLE);
  t.k = tvm_var(c, "k", TVM_I32);
  tvm_expr *x = tvm_var(c, "x", TVM_I32);
  tvm_expr *row = tvm_add(c, tvm_mul(c, t.k, tvm_int(c, 4)), x);
  tvm_stmt *fill = tvm_for(c, x, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL,
                           NULL,
                           tvm_store(c, t.S, x,
                                     tvm_load(c, TVM_F32, t.A, row, NULL), NULL));
  fill = tvm_attr(c, TVM_ATTR_DOUBLE_BUFFER, t.S, tvm_int(c, 1), fill);
  if (producer_in_if)
    fill = tvm_if(c, tvm_lt(c, t.k, tvm_int(c, 5)), fill, NULL);
  tvm_stmt *use = tvm_for(
      c, x, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_SERIAL, NULL,
      tvm_store(c, t.C, row,
                tvm_mul(c,
                        tvm_load(c, TVM_F32, t.S,
                                 tvm_sub(c, tvm_int(c, 3), x), NULL),
                        tvm_f32(c, 2)),
                NULL));
  t.loop = tvm_for(c, t.k, tvm_int(c, 0), tvm_int(c, 3), kind,
                   kind == TVM_FOR_THREAD ? "threadIdx.x" : NULL,
                   tvm_allocate(c, t.S, TVM_F32, tvm_int(c, 4), "shared",
                                tvm_seq2(c, fill, use)));
  return t;
}

static void test_two_copies(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tile t = make_tile(c, TVM_FOR_SERIAL, 0);
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_func *f = tvm_func_new(c, "f", NULL, NULL, 0, t.loop), *out, *synced;
  assert_int_equal(tvm_pass_inject_double_buffer(c, f, &o, &out), TVM_OK);
  char *s = tvm_stmt_str(out->body);
  assert_string_equal(s,
      "allocate S[float32 * 8] scope=shared\n"
      "for (x, 0, 4) {\n"
      "  S[x] = A[0 * 4 + x]\n"
      "}\n"
      "for (k, 0, 3) {\n"
      "  // attr double_buffer_write = 1\n"
      "  if (k + 1 < 0 + 3) {\n"
      "    for (x, 0, 4) {\n"
      "      S[x + floormod(k + 1 - 0, 2) * 4] = A[(k + 1) * 4 + x]\n"
      "    }\n"
      "  }\n"
      "  for (x, 0, 4) {\n"
      "    C[k * 4 + x] = S[3 - x + floormod(k - 0, 2) * 4] * 2.0f\n"
      "  }\n"
      "}\n");
  tvm_free(s);
  /* the same values as the single-buffered loop */
  double ref[12], got[12];
  for (int pass = 0; pass < 2; pass++) {
    pc_interp *p = pc_new(0);
    double *a = pc_buffer(p, t.A, 12), *cc = pc_buffer(p, t.C, 12);
    for (int i = 0; i < 12; i++) a[i] = i * 3 - 7;
    assert_int_equal(pc_run(p, pass ? out->body : t.loop), 0);
    memcpy(pass ? got : ref, cc, sizeof ref);
    pc_free(p);
  }
  for (int i = 0; i < 12; i++) {
    int k = i / 4, x = i % 4;
    assert_true(ref[i] == got[i]);
    assert_true(ref[i] == (k * 4 + 3 - x) * 3.0 * 2 - 14);
  }
  /* thread_sync: one barrier between the first fill and the loop, one at
   * the end of each iteration, none between the next tile's fetch and
   * the reads of this one */
  o.has_threads = 1;
  assert_int_equal(tvm_pass_thread_sync(c, out, &o, &synced), TVM_OK);
  s = tvm_stmt_str(synced->body);
  const char *loop = strstr(s, "for (k, 0, 3)");
  assert_non_null(loop);
  const char *b1 = strstr(s, "barrier scope=shared");
  assert_true(b1 && b1 < loop);
  const char *b2 = strstr(loop, "barrier scope=shared");
  const char *reads = strstr(loop, "C[k * 4 + x]");
  assert_true(b2 && reads && b2 > reads);
  assert_null(strstr(b2 + 1, "barrier"));
  tvm_free(s);
  tvm_ctx_destroy(c);
}

/* Requests the pass cannot honor are refused, saying what to change. */
static void test_refusals(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_func *out;
  tile t = make_tile(c, TVM_FOR_THREAD, 0);
  tvm_func *f = tvm_func_new(c, "f", NULL, NULL, 0, t.loop);
  assert_int_equal(tvm_pass_inject_double_buffer(c, f, &o, &out), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "the buffer S is allocated in the thread loop k"));
  assert_non_null(strstr(tvm_diag_message(), "compute_at"));
  t = make_tile(c, TVM_FOR_SERIAL, 1);
  f = tvm_func_new(c, "f", NULL, NULL, 0, t.loop);
  assert_int_equal(tvm_pass_inject_double_buffer(c, f, &o, &out), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "the producer of S is not directly in the body of loop k"));
  /* a buffer with no loop around it */
  t = make_tile(c, TVM_FOR_SERIAL, 0);
  f = tvm_func_new(c, "f", NULL, NULL, 0, t.loop->u.for_.body);
  assert_int_equal(tvm_pass_inject_double_buffer(c, f, &o, &out), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "not allocated in the body of a loop"));
  /* hardware queues pipeline with virtual threads */
  t = make_tile(c, TVM_FOR_SERIAL, 0);
  f = tvm_func_new(c, "f", NULL, NULL, 0, t.loop);
  o.num_queues = 2;
  assert_int_equal(tvm_pass_inject_double_buffer(c, f, &o, &out), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "virtual threads"));
  tvm_ctx_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_copies),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
