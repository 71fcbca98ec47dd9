/*
 * tests/unit/lower/test_split_host_device.c - thread-bound nests become
 * device functions with their free variables as parameters and their
 * thread axes recorded; the host launches them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tvm/lower.h"

/* host: for r in 2 (serial) { for bx(blockIdx.x, 4) { for tx(threadIdx.x, 32)
 *   { B[r*128 + bx*32 + tx] = A[..] * s } } }; C[0] = 1 (host only) */
static void test_split(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *sh1[1] = {tvm_int(c, 256)};
  tvm_buffer *ba = tvm_buffer_new(c, "A", TVM_F32, sh1, 1, "global");
  tvm_buffer *bb = tvm_buffer_new(c, "B", TVM_F32, sh1, 1, "global");
  tvm_expr *s = tvm_var(c, "s", TVM_F32);
  tvm_expr *r = tvm_var(c, "r", TVM_I32), *bx = tvm_var(c, "bx", TVM_I32);
  tvm_expr *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *idx = tvm_add(c, tvm_add(c, tvm_mul(c, r, tvm_int(c, 128)),
                                     tvm_mul(c, bx, tvm_int(c, 32))), tx);
  tvm_stmt *k = tvm_for(c, bx, tvm_int(c, 0), tvm_int(c, 4), TVM_FOR_THREAD, "blockIdx.x",
      tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 32), TVM_FOR_THREAD, "threadIdx.x",
          tvm_store(c, bb->data, idx,
                    tvm_mul(c, tvm_load(c, TVM_F32, ba->data, idx, NULL), s), NULL)));
  tvm_stmt *body = tvm_seq2(c,
      tvm_for(c, r, tvm_int(c, 0), tvm_int(c, 2), TVM_FOR_SERIAL, NULL, k),
      tvm_store(c, bb->data, tvm_int(c, 0), tvm_f32(c, 1), NULL));
  tvm_expr *params[3] = {ba->data, bb->data, s};
  tvm_buffer *bufs[3] = {ba, bb, NULL};
  tvm_func *f = tvm_func_new(c, "main", params, bufs, 3, body), *host;
  tvm_module m = {c, NULL, 0};
  tvm_lower_options o;
  tvm_lower_options_init(&o);

  /* no threads on the target: unchanged, no kernels */
  assert_int_equal(tvm_pass_split_host_device(c, f, &o, &m, &host), TVM_OK);
  assert_int_equal(m.nfuncs, 0);
  assert_ptr_equal(host->body, f->body);

  o.has_threads = 1;
  assert_int_equal(tvm_pass_split_host_device(c, f, &o, &m, &host), TVM_OK);
  assert_int_equal(m.nfuncs, 1);
  tvm_func *kf = m.funcs[0];
  assert_string_equal(kf->name, "main_kernel0");
  assert_int_equal(kf->kind, TVM_FUNC_DEVICE);
  assert_int_equal(kf->nparams, 4);
  char *names = NULL;
  {
    tvm_strbuf b;
    tvm_strbuf_init(&b);
    for (int i = 0; i < kf->nparams; i++)
      tvm_strbuf_printf(&b, "%s%s", i ? "," : "", kf->params[i]->u.var.name);
    names = tvm_strbuf_take(&b);
  }
  assert_string_equal(names, "B,r,A,s");
  tvm_free(names);
  assert_ptr_equal(kf->buffers[0], bb);
  assert_null(kf->buffers[1]);
  assert_ptr_equal(kf->buffers[2], ba);
  assert_int_equal(kf->nthread_axes, 2);
  assert_string_equal(kf->thread_tags[0], "blockIdx.x");
  assert_string_equal(kf->thread_tags[1], "threadIdx.x");
  int64_t e;
  assert_true(tvm_is_const_int(kf->thread_extents[1], &e) && e == 32);
  char *t = tvm_stmt_str(host->body);
  assert_string_equal(t,
      "for (r, 0, 2) {\n"
      "  launch(\"main_kernel0\", grid=(4, 1, 1), block=(32, 1, 1), "
      "shared=0, args=(B, r, A, s))\n"
      "}\n"
      "B[0] = 1.0f\n");
  tvm_free(t);
  assert_ptr_equal(kf->body, k);
  tvm_ctx_destroy(c);
}

/* A shared allocation around the thread loops belongs to the kernel;
 * two nests give two kernels, launched in order. */
static void test_shared_alloc_and_two_kernels(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_expr *sh[1] = {tvm_int(c, 64)};
  tvm_buffer *ba = tvm_buffer_new(c, "A", TVM_F32, sh, 1, "global");
  tvm_expr *S = tvm_var(c, "S", TVM_HANDLE), *tx = tvm_var(c, "tx", TVM_I32);
  tvm_expr *ty = tvm_var(c, "ty", TVM_I32);
  tvm_stmt *k1 = tvm_allocate(c, S, TVM_F32, tvm_int(c, 64), "shared",
      tvm_for(c, tx, tvm_int(c, 0), tvm_int(c, 64), TVM_FOR_THREAD, "threadIdx.x",
              tvm_store(c, S, tx, tvm_load(c, TVM_F32, ba->data, tx, NULL), NULL)));
  tvm_stmt *k2 = tvm_for(c, ty, tvm_int(c, 0), tvm_int(c, 8), TVM_FOR_THREAD, "threadIdx.y",
                         tvm_store(c, ba->data, ty, tvm_f32(c, 0), NULL));
  tvm_expr *params[1] = {ba->data};
  tvm_buffer *bufs[1] = {ba};
  tvm_func *f = tvm_func_new(c, "g", params, bufs, 1, tvm_seq2(c, k1, k2)), *host;
  tvm_module m = {c, NULL, 0};
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  o.has_threads = 1;
  assert_int_equal(tvm_pass_split_host_device(c, f, &o, &m, &host), TVM_OK);
  assert_int_equal(m.nfuncs, 2);
  assert_ptr_equal(m.funcs[0]->body, k1);
  assert_int_equal(m.funcs[0]->nparams, 1);
  assert_string_equal(m.funcs[1]->name, "g_kernel1");
  assert_string_equal(m.funcs[1]->thread_tags[0], "threadIdx.y");
  char *t = tvm_stmt_str(host->body);
  assert_string_equal(t,
      "launch(\"g_kernel0\", grid=(1, 1, 1), block=(64, 1, 1), shared=256, "
      "args=(A))\n"
      "launch(\"g_kernel1\", grid=(1, 1, 1), block=(1, 8, 1), shared=0, "
      "args=(A))\n");
  tvm_free(t);
  tvm_ctx_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split),
      cmocka_unit_test(test_shared_alloc_and_two_kernels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
