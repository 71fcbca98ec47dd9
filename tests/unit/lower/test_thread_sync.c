/*
 * tests/unit/lower/test_thread_sync.c - barriers between a shared write
 * and a later read, at loop back edges, never doubled, and only for
 * block-visible scopes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tvm/lower.h"

/* for bx: allocate S scope { for ko in 3 { [pre] tx: S[tx] = A[..];
 * tx: C[..] += S[3 - tx] } } */
static tvm_stmt *tile(tvm_ctx *c, const char *scope, int pre_barrier) {
  tvm_expr *A = tvm_var(c, "A", TVM_HANDLE), *C = tvm_var(c, "C", TVM_HANDLE);
  tvm_expr *S = tvm_var(c, "S", TVM_HANDLE);
  tvm_expr *bx = tvm_var(c, "bx", TVM_I32), *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *ko = tvm_var(c, "ko", TVM_I32);
  tvm_stmt *fill = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_THREAD, "threadIdx.x",
      tvm_store(c, S, tx, tvm_load(c, TVM_F32, A, tvm_add(c, tvm_mul(c, ko, tvm_int(c, 4)), tx), NULL), NULL));
  tvm_expr *ci = tvm_add(c, tvm_mul(c, bx, tvm_int(c, 4)), tx);
  tvm_stmt *use = tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_THREAD, "threadIdx.x",
      tvm_store(c, C, ci, tvm_add(c, tvm_load(c, TVM_F32, C, ci, NULL),
          tvm_load(c, TVM_F32, S, tvm_sub(c, tvm_int(c, 3), tx), NULL)), NULL));
  tvm_stmt *seq[3] = {fill, pre_barrier ? tvm_barrier(c, "shared") : NULL, use};
  return tvm_for(c, bx, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_THREAD, "blockIdx.x",
      tvm_allocate(c, S, TVM_F32, tvm_int(c, 4), scope,
          tvm_for(c, ko, tvm_int(c, 0), tvm_int(c, 3), TVM_FOR_SERIAL, NULL,
                  tvm_seq(c, seq, 3))));
}

static char *sync(tvm_ctx *c, tvm_stmt *s, const tvm_lower_options *o) {
  tvm_func *f = tvm_func_new(c, "f", NULL, NULL, 0, s), *out;
  assert_int_equal(tvm_pass_thread_sync(c, f, o, &out), TVM_OK);
  return tvm_stmt_str(out->body);
}

static const char *expected =
    "for (bx, 0, 2) thread(blockIdx.x) {\n"
    "  allocate S[float32 * 4] scope=shared\n"
    "  for (ko, 0, 3) {\n"
    "    for (tx, 0, 4) thread(threadIdx.x) {\n"
    "      S[tx] = A[ko * 4 + tx]\n"
    "    }\n"
    "    barrier scope=shared\n"
    "    for (tx, 0, 4) thread(threadIdx.x) {\n"
    "      C[bx * 4 + tx] = C[bx * 4 + tx] + S[3 - tx]\n"
    "    }\n"
    "    barrier scope=shared\n"
    "  }\n"
    "}\n";

/* Write-then-read and the back edge get one barrier each. */
static void test_shared_barriers(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  char *t = sync(c, tile(c, "shared", 0), &o);
  assert_string_equal(t, expected);
  tvm_free(t);
  /* an existing barrier is not doubled */
  t = sync(c, tile(c, "shared", 1), &o);
  assert_string_equal(t, expected);
  tvm_free(t);
  tvm_ctx_destroy(c);
}

/* Thread-private scopes need no barrier; a plugin's block-visible scope
 * does. */
static void test_scope_visibility(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_lower_options o;
  tvm_scope_info lds = {"lds", TVM_VIS_BLOCK, 65536, 0, -1};
  tvm_lower_options_init(&o);
  char *t = sync(c, tile(c, "local", 0), &o);
  assert_null(strstr(t, "barrier"));
  tvm_free(t);
  o.scopes = &lds;
  o.nscopes = 1;
  t = sync(c, tile(c, "lds", 0), &o);
  const char *b1 = strstr(t, "barrier scope=shared");
  assert_non_null(b1);
  assert_non_null(strstr(b1 + 1, "barrier scope=shared"));
  tvm_free(t);
  tvm_ctx_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shared_barriers),
      cmocka_unit_test(test_scope_visibility),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
