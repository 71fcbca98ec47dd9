/*
 * tests/plugins/vulkan/test_vulkan.c - the vulkan plugin end to end:
 * tensor expressions scheduled onto blocks and threads (an elementwise
 * chain with a ragged tail, a matrix product staged through shared
 * memory with barriers, a row reduction, a 64-bit integer kernel, int8 /
 * int16 / float16 / bool buffers) are
 * lowered for the vulkan target, compiled to SPIR-V, checked by
 * `spirv-val --target-env vulkan1.1` when it is installed, and, when this
 * machine has a Vulkan device (lavapipe in CI), run and compared with
 * naive C.  Without a device the run half is skipped with the plugin's
 * reason; compilation and validation always run.  TVM_VULKAN_HIDE
 * (runtime.c) pretends features are absent: the refusals naming them and
 * both ways of binding buffers (push descriptors, descriptor sets) run
 * on a device that has everything.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/compiler.h"
#include "tvm/graph.h"
#include "tvm/lower.h"
#include "tvm/runtime.h"
#include "tvm/strategy.h"
#include "tvm/schedule.h"
#include "tvm/target.h"
#include "tvm/te.h"

static tvm_target *target;
static int have_device;
static char why_not[512];

static int setup(void **state) {
  (void)state;
  /* lavapipe only, no shader cache: deterministic and hermetic */
  const char *lvp = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
  if (!getenv("VK_DRIVER_FILES") && access(lvp, R_OK) == 0)
    setenv("VK_DRIVER_FILES", lvp, 1);
  setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);
  char path[1024];
  snprintf(path, sizeof path, "%s/targets/vulkan.yaml",
           getenv("TVM_SRCDIR") ? getenv("TVM_SRCDIR") : ".");
  if (tvm_target_load(path, &target) != TVM_OK) {
    fprintf(stderr, "cannot load %s: %s\n", path, tvm_diag_message());
    return -1;
  }
  have_device = tvm_target_probe(target) == TVM_OK;
  if (!have_device)
    snprintf(why_not, sizeof why_not, "%s", tvm_diag_message());
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tvm_target_free(target);
  return 0;
}

/* Lowers schedule s over args for the vulkan target into m. */
static void lower(tvm_schedule *s, tvm_tensor **args, int n, const char *name,
                  tvm_module *m) {
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(target, &o);
  if (tvm_lower(s, args, n, name, &o, m) != TVM_OK)
    fail_msg("lower %s: %s", name, tvm_diag_message());
}

/* Codegen, then spirv-val on every SPIR-V module of the blob; returns
 * how many of them contain `grep` in their disassembly (spirv-dis), or
 * -1 when spirv-val / spirv-dis are not installed. */
static int compile_validate_grep(const tvm_module *m, tvm_plugin_blob *blob,
                                 const char *grep) {
  if (tvm_target_codegen(target, m, blob) != TVM_OK)
    fail_msg("codegen: %s", tvm_diag_message());
  assert_int_equal(blob->format, TVM_BLOB_SPIRV);
  assert_true(blob->nkernels >= 1);
  if (system("command -v spirv-val >/dev/null 2>&1 && "
             "command -v spirv-dis >/dev/null 2>&1") != 0) {
    print_message("spirv-val not installed: SPIR-V not validated\n");
    return -1;
  }
  /* walk the documented container: magic, count, per kernel its name,
   * parameters, scalar bytes, where the scalars live, local size, then
   * its variants (features, words) */
  const uint32_t *w = (const uint32_t *)(const void *)blob->data;
  size_t at = 2;
  int found = 0;
  assert_int_equal(w[0], 0x334b5654u);
  for (uint32_t k = 0; k < w[1]; k++) {
    uint32_t len = w[at++];
    at += (len + 3) / 4;
    uint32_t np = w[at++];
    at += 2 * np + 2 + 3;
    uint32_t nvar = w[at++];
    assert_true(nvar == 1 || nvar == 2);
    for (uint32_t v = 0; v < nvar; v++) {
      at++; /* features */
      uint32_t nw = w[at++];
      char path[] = "/tmp/tvm_vk_XXXXXX";
      int fd = mkstemp(path);
      assert_true(fd >= 0);
      assert_int_equal(write(fd, w + at, nw * 4), (ssize_t)(nw * 4));
      close(fd);
      char cmd[512];
      snprintf(cmd, sizeof cmd, "spirv-val --target-env vulkan1.1 %s", path);
      int rc = system(cmd);
      if (rc != 0) {
        snprintf(cmd, sizeof cmd, "spirv-dis %s | head -80", path);
        if (system(cmd)) {}
      }
      if (grep) {
        snprintf(cmd, sizeof cmd, "spirv-dis %s | grep -q '%s'", path, grep);
        found += system(cmd) == 0;
      }
      unlink(path);
      assert_int_equal(rc, 0);
      at += nw;
    }
  }
  return found;
}

static void compile_and_validate(const tvm_module *m, tvm_plugin_blob *blob) {
  compile_validate_grep(m, blob, NULL);
}

/* Runs kernel 0.. of the blob in order on buffers bufs (host arrays of
 * sizes bytes[]): upload, launch each kernel with its codegen geometry and
 * the given argument order, download. */
static void run_all(const tvm_module *m, const tvm_plugin_blob *blob,
                    void **host, const uint64_t *bytes, int nbuf) {
  tvm_device *d = NULL;
  tvm_runtime_module *rm = NULL;
  if (tvm_device_open(target, &d) != TVM_OK)
    fail_msg("device: %s", tvm_diag_message());
  if (tvm_runtime_module_load(d, blob, &rm) != TVM_OK)
    fail_msg("load: %s", tvm_diag_message());
  void *dev[8];
  for (int i = 0; i < nbuf; i++) {
    assert_int_equal(tvm_device_alloc(d, 0, bytes[i], 64, &dev[i]), TVM_OK);
    assert_int_equal(tvm_device_copy(d, dev[i], 0, host[i], 0, bytes[i],
                                     TVM_COPY_HOST_TO_DEVICE),
                     TVM_OK);
  }
  /* every device function takes buffers named like the lowered args */
  for (int f = 0; f < m->nfuncs; f++) {
    const tvm_func *fn = m->funcs[f];
    if (fn->kind != TVM_FUNC_DEVICE) continue;
    tvm_runtime_func *rf = NULL;
    if (tvm_runtime_get_func(rm, fn->name, &rf) != TVM_OK)
      fail_msg("%s", tvm_diag_message());
    tvm_plugin_arg args[8];
    for (int p = 0; p < fn->nparams; p++) {
      const char *pn = fn->params[p]->u.var.name;
      int which = -1;
      for (int i = 0; i < nbuf; i++) {
        char want[8];
        snprintf(want, sizeof want, "%c", 'A' + i);
        if (!strcmp(pn, want)) which = i;
      }
      if (which < 0) fail_msg("unexpected parameter %s", pn);
      args[p].type = TVM_ARG_PTR;
      args[p].v.ptr = dev[which];
    }
    const tvm_plugin_kernel *k = tvm_runtime_func_kernel(rf);
    if (tvm_device_launch(d, rf, args, (uint32_t)fn->nparams, k->grid,
                          k->block) != TVM_OK)
      fail_msg("launch: %s", tvm_diag_message());
  }
  assert_int_equal(tvm_device_sync(d), TVM_OK);
  for (int i = 0; i < nbuf; i++) {
    assert_int_equal(tvm_device_copy(d, host[i], 0, dev[i], 0, bytes[i],
                                     TVM_COPY_DEVICE_TO_HOST),
                     TVM_OK);
    tvm_device_free(d, 0, dev[i]);
  }
  tvm_runtime_module_free(rm);
  tvm_device_close(d);
}

static float frand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (float)((*s >> 8) % 2000) / 1000.0f - 1.0f;
}

/* ---- elementwise, ragged ---------------------------------------------------- */
static tvm_expr *ew(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  tvm_expr *a = TVM_AT(c, A, i[0]);
  return tvm_add(c, tvm_mul(c, tvm_math(c, TVM_INTRIN_EXP, a), tvm_f32(c, 2)),
                 tvm_math(c, TVM_INTRIN_ERF, a));
}

static void test_elementwise(void **state) {
  (void)state;
  enum { N = 1000 };
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){N}, 1);
  tvm_tensor *B = tvm_compute(c, "B", (int64_t[]){N}, 1, ew, A);
  tvm_schedule *s = NULL;
  assert_int_equal(tvm_schedule_create(c, &B, 1, &s), TVM_OK);
  tvm_stage *st = tvm_stage_of(s, B);
  tvm_iter_var *bo, *bi;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 64, &bo, &bi), TVM_OK);
  assert_int_equal(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)),
                   TVM_OK);
  assert_int_equal(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)),
                   TVM_OK);
  tvm_module m = {c, NULL, 0};
  lower(s, (tvm_tensor *[]){A, B}, 2, "ew", &m);
  tvm_plugin_blob blob;
  compile_and_validate(&m, &blob);
  assert_int_equal(blob.kernels[0].grid[0], 16);
  assert_int_equal(blob.kernels[0].block[0], 64);
  if (!have_device) {
    tvm_plugin_blob_free(&blob);
    tvm_schedule_free(s);
    tvm_ctx_destroy(c);
    skip();
  }
  static float a[N], b[N];
  unsigned seed = 1;
  for (int i = 0; i < N; i++) a[i] = frand(&seed), b[i] = -7;
  run_all(&m, &blob, (void *[]){a, b}, (uint64_t[]){sizeof a, sizeof b}, 2);
  for (int i = 0; i < N; i++) {
    float want = expf(a[i]) * 2 + erff(a[i]);
    if (fabsf(b[i] - want) > 1e-5f * (1 + fabsf(want)))
      fail_msg("B[%d] = %g, want %g", i, b[i], want);
  }
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}

/* ---- matmul through shared memory ------------------------------------------- */
enum { MM = 64, MN = 48, MK = 40, TILE = 8 };
static tvm_expr *mm(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, MK);
  return tvm_sum(c, tvm_mul(c, TVM_AT(c, in[0], i[0], k->var),
                            TVM_AT(c, in[1], k->var, i[1])),
                 &k, 1);
}

static void test_matmul_shared(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){MM, MK}, 2);
  in[1] = tvm_placeholder(c, "B", TVM_F32, (int64_t[]){MK, MN}, 2);
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){MM, MN}, 2, mm, in);
  tvm_schedule *s = NULL;
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  tvm_stage *sc = tvm_stage_of(s, C);
  tvm_operation *rd[1] = {sc->op};
  tvm_tensor *AS, *BS;
  assert_int_equal(tvm_cache_read(s, in[0], "shared", rd, 1, &AS), TVM_OK);
  rd[0] = tvm_stage_of(s, C)->op;
  assert_int_equal(tvm_cache_read(s, in[1], "shared", rd, 1, &BS), TVM_OK);
  sc = tvm_stage_of(s, C);
  tvm_iter_var *xo, *yo, *xi, *yi, *ko, *ki;
  assert_int_equal(tvm_tile(sc, tvm_stage_axis(sc, 0), tvm_stage_axis(sc, 1),
                            TILE, TILE, &xo, &yo, &xi, &yi),
                   TVM_OK);
  assert_int_equal(tvm_split(sc, tvm_stage_reduce_axis(sc, 0), TILE, &ko,
                             &ki),
                   TVM_OK);
  assert_int_equal(tvm_reorder(sc, (tvm_iter_var *[]){xo, yo, ko, xi, yi, ki},
                               6),
                   TVM_OK);
  assert_int_equal(tvm_bind(sc, xo, tvm_thread_axis(c, "blockIdx.y", NULL)),
                   TVM_OK);
  assert_int_equal(tvm_bind(sc, yo, tvm_thread_axis(c, "blockIdx.x", NULL)),
                   TVM_OK);
  assert_int_equal(tvm_bind(sc, xi, tvm_thread_axis(c, "threadIdx.y", NULL)),
                   TVM_OK);
  assert_int_equal(tvm_bind(sc, yi, tvm_thread_axis(c, "threadIdx.x", NULL)),
                   TVM_OK);
  /* cooperative fetch: each thread loads one element of each tile */
  tvm_stage *stages[2] = {tvm_stage_of(s, AS), tvm_stage_of(s, BS)};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(tvm_compute_at(stages[i], sc, ko), TVM_OK);
    assert_int_equal(tvm_bind(stages[i], tvm_stage_axis(stages[i], 0),
                              tvm_thread_axis(c, "threadIdx.y", NULL)),
                     TVM_OK);
    assert_int_equal(tvm_bind(stages[i], tvm_stage_axis(stages[i], 1),
                              tvm_thread_axis(c, "threadIdx.x", NULL)),
                     TVM_OK);
  }
  tvm_module m = {c, NULL, 0};
  lower(s, (tvm_tensor *[]){in[0], in[1], C}, 3, "mm", &m);
  tvm_plugin_blob blob;
  compile_and_validate(&m, &blob);
  if (!have_device) {
    tvm_plugin_blob_free(&blob);
    tvm_schedule_free(s);
    tvm_ctx_destroy(c);
    skip();
  }
  static float a[MM * MK], b[MK * MN], out[MM * MN];
  unsigned seed = 7;
  for (int i = 0; i < MM * MK; i++) a[i] = frand(&seed);
  for (int i = 0; i < MK * MN; i++) b[i] = frand(&seed);
  run_all(&m, &blob, (void *[]){a, b, out},
          (uint64_t[]){sizeof a, sizeof b, sizeof out}, 3);
  for (int i = 0; i < MM; i++)
    for (int j = 0; j < MN; j++) {
      float want = 0;
      for (int k = 0; k < MK; k++) want += a[i * MK + k] * b[k * MN + j];
      if (fabsf(out[i * MN + j] - want) > 1e-4f)
        fail_msg("C[%d,%d] = %g, want %g", i, j, out[i * MN + j], want);
    }
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}

/* ---- row reduction and int64 ------------------------------------------------- */
enum { RR = 37, RC = 100 };
static tvm_expr *rowsum(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor *A = ud;
  tvm_iter_var *k = tvm_reduce_axis(c, "k", 0, RC);
  return tvm_rmax(c, TVM_AT(c, A, i[0], k->var), &k, 1);
}

static void test_row_max(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *A = tvm_placeholder(c, "A", TVM_F32, (int64_t[]){RR, RC}, 2);
  tvm_tensor *B = tvm_compute(c, "B", (int64_t[]){RR}, 1, rowsum, A);
  tvm_schedule *s = NULL;
  assert_int_equal(tvm_schedule_create(c, &B, 1, &s), TVM_OK);
  tvm_stage *st = tvm_stage_of(s, B);
  tvm_iter_var *bo, *bi;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 16, &bo, &bi), TVM_OK);
  assert_int_equal(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)),
                   TVM_OK);
  assert_int_equal(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)),
                   TVM_OK);
  tvm_module m = {c, NULL, 0};
  lower(s, (tvm_tensor *[]){A, B}, 2, "rmax", &m);
  tvm_plugin_blob blob;
  compile_and_validate(&m, &blob);
  if (!have_device) {
    tvm_plugin_blob_free(&blob);
    tvm_schedule_free(s);
    tvm_ctx_destroy(c);
    skip();
  }
  static float a[RR * RC], b[RR];
  unsigned seed = 3;
  for (int i = 0; i < RR * RC; i++) a[i] = frand(&seed);
  run_all(&m, &blob, (void *[]){a, b}, (uint64_t[]){sizeof a, sizeof b}, 2);
  for (int i = 0; i < RR; i++) {
    float want = a[i * RC];
    for (int k = 1; k < RC; k++) want = fmaxf(want, a[i * RC + k]);
    assert_true(b[i] == want);
  }
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}

static tvm_expr *i64k(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  tvm_expr *a = TVM_AT(c, in[0], i[0]), *b = TVM_AT(c, in[1], i[0]);
  /* floor division and modulo of negatives, 64-bit products */
  return tvm_add(c, tvm_mul(c, a, tvm_const(c, TVM_I64, 3000000000ll)),
                 tvm_add(c, tvm_floordiv(c, b, tvm_const(c, TVM_I64, 7)),
                         tvm_floormod(c, b, tvm_const(c, TVM_I64, 5))));
}

static void test_int64(void **state) {
  (void)state;
  enum { N = 300 };
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[2];
  in[0] = tvm_placeholder(c, "A", TVM_I64, (int64_t[]){N}, 1);
  in[1] = tvm_placeholder(c, "B", TVM_I64, (int64_t[]){N}, 1);
  tvm_tensor *C = tvm_compute(c, "C", (int64_t[]){N}, 1, i64k, in);
  tvm_schedule *s = NULL;
  assert_int_equal(tvm_schedule_create(c, &C, 1, &s), TVM_OK);
  tvm_stage *st = tvm_stage_of(s, C);
  tvm_iter_var *bo, *bi;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 32, &bo, &bi), TVM_OK);
  assert_int_equal(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)),
                   TVM_OK);
  assert_int_equal(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)),
                   TVM_OK);
  tvm_module m = {c, NULL, 0};
  lower(s, (tvm_tensor *[]){in[0], in[1], C}, 3, "i64", &m);
  tvm_plugin_blob blob;
  compile_and_validate(&m, &blob);
  if (!have_device) {
    tvm_plugin_blob_free(&blob);
    tvm_schedule_free(s);
    tvm_ctx_destroy(c);
    skip();
  }
  static int64_t a[N], b[N], out[N];
  for (int i = 0; i < N; i++) a[i] = i - 150, b[i] = (i * 37) % 101 - 50;
  run_all(&m, &blob, (void *[]){a, b, out},
          (uint64_t[]){sizeof a, sizeof b, sizeof out}, 3);
  for (int i = 0; i < N; i++) {
    int64_t q = b[i] / 7, r = b[i] % 5;
    if ((b[i] % 7 != 0) && (b[i] < 0)) q -= 1;
    if (r < 0) r += 5;
    assert_int_equal(out[i], a[i] * 3000000000ll + q + r);
  }
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}


/* ---- 8- and 16-bit types and bool buffers ------------------------------------ */
enum { SN = 200 };
static tvm_expr *sm_mul(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* A int8, B int16 */
  return tvm_mul(c, tvm_cast(c, TVM_I16, TVM_AT(c, in[0], i[0])),
                 TVM_AT(c, in[1], i[0]));
}
static tvm_expr *sm_pos(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud;
  return tvm_gt(c, TVM_AT(c, in[0], i[0]), tvm_const(c, TVM_I8, 0));
}
static tvm_expr *sm_half(tvm_ctx *c, tvm_expr **i, void *ud) {
  tvm_tensor **in = ud; /* C float16, E bool */
  tvm_expr *h = TVM_AT(c, in[2], i[0]);
  return tvm_select(c, TVM_AT(c, in[4], i[0]),
                    tvm_add(c, tvm_mul(c, h, tvm_cast(c, TVM_F16, tvm_f32(c, 2))),
                            tvm_cast(c, TVM_F16, TVM_AT(c, in[0], i[0]))),
                    h);
}

/* One block/thread split of the only axis of stage t. */
static void bind1d(tvm_ctx *c, tvm_schedule *s, tvm_tensor *t) {
  tvm_stage *st = tvm_stage_of(s, t);
  tvm_iter_var *bo, *bi;
  assert_int_equal(tvm_split(st, tvm_stage_axis(st, 0), 64, &bo, &bi), TVM_OK);
  assert_int_equal(tvm_bind(st, bo, tvm_thread_axis(c, "blockIdx.x", NULL)),
                   TVM_OK);
  assert_int_equal(tvm_bind(st, bi, tvm_thread_axis(c, "threadIdx.x", NULL)),
                   TVM_OK);
}

/* D = int16(A) * B, E = A > 0 (bool, a byte each), F = E ? C * 2 + A : C
 * over int8 A, int16 B, float16 C: three kernels. */
static void small_types_module(tvm_ctx *c, tvm_schedule **s, tvm_module *m) {
  tvm_tensor *in[5];
  in[0] = tvm_placeholder(c, "A", TVM_I8, (int64_t[]){SN}, 1);
  in[1] = tvm_placeholder(c, "B", TVM_I16, (int64_t[]){SN}, 1);
  in[2] = tvm_placeholder(c, "C", TVM_F16, (int64_t[]){SN}, 1);
  in[3] = tvm_compute(c, "D", (int64_t[]){SN}, 1, sm_mul, in);
  in[4] = tvm_compute(c, "E", (int64_t[]){SN}, 1, sm_pos, in);
  tvm_tensor *F = tvm_compute(c, "F", (int64_t[]){SN}, 1, sm_half, in);
  tvm_tensor *outs[3] = {in[3], in[4], F};
  assert_int_equal(tvm_schedule_create(c, outs, 3, s), TVM_OK);
  for (int i = 0; i < 3; i++) bind1d(c, *s, outs[i]);
  *m = (tvm_module){c, NULL, 0};
  lower(*s, (tvm_tensor *[]){in[0], in[1], in[2], in[3], in[4], F}, 6,
        "small", m);
}

static void test_small_types(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_schedule *s = NULL;
  tvm_module m;
  small_types_module(c, &s, &m);
  tvm_plugin_blob blob;
  compile_and_validate(&m, &blob);
  if (!have_device) {
    tvm_plugin_blob_free(&blob);
    tvm_schedule_free(s);
    tvm_ctx_destroy(c);
    skip();
  }
  static int8_t a[SN];
  static int16_t b[SN], d[SN];
  static _Float16 h[SN], f[SN];
  static uint8_t e[SN];
  for (int i = 0; i < SN; i++) {
    a[i] = (int8_t)(i * 37 % 256 - 128);
    b[i] = (int16_t)(i * 101 % 600 - 300);
    h[i] = (_Float16)((i % 40 - 20) / 4.0f);
    d[i] = 7, e[i] = 9, f[i] = 0;
  }
  run_all(&m, &blob, (void *[]){a, b, h, d, e, f},
          (uint64_t[]){sizeof a, sizeof b, sizeof h, sizeof d, sizeof e,
                       sizeof f},
          6);
  for (int i = 0; i < SN; i++) {
    assert_int_equal(d[i], (int16_t)(a[i] * b[i]));
    assert_int_equal(e[i], a[i] > 0);
    float want = a[i] > 0 ? (float)h[i] * 2 + a[i] : (float)h[i];
    if ((float)f[i] != want) fail_msg("F[%d] = %g, want %g", i, (float)f[i], want);
  }
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}

/* A device without 8-bit storage (TVM_VULKAN_HIDE pretends so) refuses
 * the int8 kernels when the module loads, naming the feature; a target
 * with attrs.int8 false declines them at compile time. */
static void test_small_types_refused(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_schedule *s = NULL;
  tvm_module m;
  small_types_module(c, &s, &m);
  tvm_plugin_blob blob;
  compile_and_validate(&m, &blob);
  /* compile time: a target whose attrs turn int8 off */
  char yaml[] = "/tmp/tvm_vk_t_XXXXXX";
  int fd = mkstemp(yaml);
  assert_true(fd >= 0);
  const char *text = "name: vulkan-no-int8\nplugin: vulkan\nkeys: [gpu, "
                     "vulkan]\nattrs:\n  int8: false\n";
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  tvm_target *no8 = NULL;
  assert_int_equal(tvm_target_load(yaml, &no8), TVM_OK);
  unlink(yaml);
  tvm_plugin_blob b2;
  assert_int_equal(tvm_target_codegen(no8, &m, &b2), TVM_ERR_UNSUPPORTED);
  print_message("attrs.int8 false: %s\n", tvm_diag_message());
  assert_non_null(strstr(tvm_diag_message(), "shaderInt8"));
  assert_non_null(strstr(tvm_diag_message(), "attrs.int8"));
  tvm_target_free(no8);
  if (!have_device) {
    tvm_plugin_blob_free(&blob);
    tvm_schedule_free(s);
    tvm_ctx_destroy(c);
    skip();
  }
  /* load time: the device lacks the feature */
  setenv("TVM_VULKAN_HIDE", "storageBuffer8BitAccess", 1);
  tvm_device *d = NULL;
  tvm_runtime_module *rm = NULL;
  assert_int_equal(tvm_device_open(target, &d), TVM_OK);
  assert_int_equal(tvm_runtime_module_load(d, &blob, &rm),
                   TVM_ERR_UNSUPPORTED);
  print_message("no 8-bit storage: %s\n", tvm_diag_message());
  assert_non_null(strstr(tvm_diag_message(), "storageBuffer8BitAccess"));
  tvm_device_close(d);
  unsetenv("TVM_VULKAN_HIDE");
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}

/* Opens a device with stderr captured at debug level into buf: the
 * plugin's line says how buffers are bound and what the device offers. */
static void device_line(char *buf, size_t n) {
  char path[] = "/tmp/tvm_vk_log_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  setenv("TVM_LOG_LEVEL", "3", 1);
  tvm_device *d = NULL;
  tvm_status st = tvm_device_open(target, &d);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  unsetenv("TVM_LOG_LEVEL");
  assert_int_equal(st, TVM_OK);
  tvm_device_close(d);
  memset(buf, 0, n);
  lseek(fd, 0, SEEK_SET);
  ssize_t got = read(fd, buf, n - 1);
  close(fd);
  unlink(path);
  assert_true(got > 0);
  print_message("%s", buf);
}

/* Returns 1 when the device binds buffers with push descriptors. */
static int binds_with_push_descriptors(void) {
  char buf[4096];
  device_line(buf, sizeof buf);
  if (strstr(buf, "bound with push descriptors")) return 1;
  assert_non_null(strstr(buf, "bound with descriptor sets"));
  return 0;
}

/* Both ways of binding buffers compute the same: push descriptors where
 * the device has VK_KHR_push_descriptor (lavapipe does), descriptor sets
 * when TVM_VULKAN_HIDE hides the extension. */
static void test_binding_paths(void **state) {
  (void)state;
  if (!have_device) skip();
  tvm_ctx *c = tvm_ctx_create();
  tvm_schedule *s = NULL;
  tvm_module m;
  small_types_module(c, &s, &m);
  tvm_plugin_blob blob;
  compile_and_validate(&m, &blob);
  static int8_t a[SN];
  static int16_t b[SN], d[2][SN];
  static _Float16 h[SN], f[2][SN];
  static uint8_t e[2][SN];
  for (int i = 0; i < SN; i++)
    a[i] = (int8_t)(i - 100), b[i] = (int16_t)(3 * i), h[i] = (_Float16)i;
  int paths[2];
  for (int run = 0; run < 2; run++) {
    if (run) setenv("TVM_VULKAN_HIDE", "VK_KHR_push_descriptor", 1);
    paths[run] = binds_with_push_descriptors();
    run_all(&m, &blob, (void *[]){a, b, h, d[run], e[run], f[run]},
            (uint64_t[]){sizeof a, sizeof b, sizeof h, sizeof d[0],
                         sizeof e[0], sizeof f[0]},
            6);
    unsetenv("TVM_VULKAN_HIDE");
  }
  print_message("first run: %s; second: descriptor sets\n",
                paths[0] ? "push descriptors" : "descriptor sets");
  assert_int_equal(paths[1], 0);
  assert_memory_equal(d[0], d[1], sizeof d[0]);
  assert_memory_equal(e[0], e[1], sizeof e[0]);
  assert_memory_equal(f[0], f[1], sizeof f[0]);
  for (int i = 0; i < SN; i++) assert_int_equal(d[0][i], (int16_t)(a[i] * b[i]));
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
}


/* ---- cross-thread reductions with subgroup operations ------------------------ */
enum { SMR = 3, SMC = 1000 };

/* Softmax [3, 1000] over axis 1 through tvm_compile and the executor on
 * the vulkan target; y receives the output. */
static void softmax_run(const float *x, float *y) {
  tvm_graph *g = NULL;
  tvm_plan *p = NULL;
  tvm_executor *e = NULL;
  tvm_compile_options o;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  tvm_gvalue *in = tvm_graph_input(g, "x", TVM_F32, (int64_t[]){SMR, SMC}, 2);
  tvm_gattr ax = tvm_gattr_int("axis", 1);
  tvm_gvalue *out = tvm_graph_apply(g, "Softmax", "prob", TVM_IN(in), &ax, 1,
                                    1, NULL);
  assert_non_null(out);
  assert_int_equal(tvm_graph_mark_output(g, out), TVM_OK);
  tvm_compile_options_init(&o);
  if (tvm_compile(g, target, &o, &p) || tvm_executor_create(p, target, &e))
    fail_msg("softmax: %s", tvm_diag_message());
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.device.device_type = kDLCPU;
  t.ndim = 2;
  t.shape = (int64_t[]){SMR, SMC};
  t.dtype.code = kDLFloat, t.dtype.bits = 32, t.dtype.lanes = 1;
  t.data = (void *)x;
  assert_int_equal(tvm_executor_set_input(e, 0, &t), TVM_OK);
  assert_int_equal(tvm_executor_run(e), TVM_OK);
  t.data = y;
  assert_int_equal(tvm_executor_get_output(e, 0, &t), TVM_OK);
  tvm_executor_free(e);
  tvm_plan_free(p);
  tvm_graph_free(g);
}

/* The core's generic thread schedule makes Softmax [3, 1000] two
 * cross-thread reductions (max, then sum); their final combines use
 * OpGroupNonUniformFMax / FAdd (in the disassembly), each kernel keeps a
 * plain variant, and both variants compute softmax: the subgroup one on a
 * device with subgroup arithmetic (lavapipe has it), the plain one when
 * TVM_VULKAN_HIDE hides it. */
static void test_subgroup_reduce(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_graph *g = NULL;
  tvm_gnode *n = NULL;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  tvm_gvalue *gin =
      tvm_graph_input(g, "x", TVM_F32, (int64_t[]){SMR, SMC}, 2);
  tvm_gattr ax = tvm_gattr_int("axis", 1);
  tvm_graph_apply(g, "Softmax", "n", TVM_IN(gin), &ax, 1, 1, &n);
  assert_non_null(n);
  tvm_tensor *in = tvm_placeholder(c, "x", TVM_F32, (int64_t[]){SMR, SMC}, 2);
  tvm_tensor *out[4] = {0};
  tvm_strategy_env *env = NULL;
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s = NULL;
  assert_int_equal(n->def->compute(c, n, &in, out), TVM_OK);
  assert_int_equal(tvm_strategy_env_create(target, c, &env), TVM_OK);
  if (tvm_strategy_schedule(env, n->op, (int)n->def->pattern, n, out, 1, cfg,
                            &s, NULL))
    fail_msg("schedule: %s", tvm_diag_message());
  tvm_module m = {c, NULL, 0};
  lower(s, (tvm_tensor *[]){in, out[0]}, 2, "softmax", &m);
  tvm_plugin_blob blob;
  int nmax = compile_validate_grep(&m, &blob, "OpGroupNonUniformFMax");
  tvm_plugin_blob_free(&blob);
  int fadd = compile_validate_grep(&m, &blob, "OpGroupNonUniformFAdd");
  if (nmax >= 0) {
    print_message("modules with OpGroupNonUniformFMax: %d, FAdd: %d\n", nmax,
                  fadd);
    assert_int_equal(nmax, 1);
    assert_int_equal(fadd, 1);
  }
  /* the kernels with subgroup operations carry two variants */
  const uint32_t *w = (const uint32_t *)(const void *)blob.data;
  int two = 0;
  size_t at = 2;
  for (uint32_t k = 0; k < w[1]; k++) {
    at += 1 + (w[at] + 3) / 4;
    at += 2 * w[at] + 1 + 2 + 3; /* params, scalar block, local size */
    uint32_t nvar = w[at++];
    two += nvar == 2;
    for (uint32_t v = 0; v < nvar; v++) at += 2 + w[at + 1];
  }
  assert_int_equal(two, 2);
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_config_free(cfg);
  tvm_strategy_env_free(env);
  tvm_graph_free(g);
  tvm_ctx_destroy(c);
  if (!have_device) skip();
  static float x[SMR * SMC], y[2][SMR * SMC];
  unsigned seed = 5;
  for (int i = 0; i < SMR * SMC; i++) x[i] = 4 * frand(&seed);
  char line[4096];
  for (int run = 0; run < 2; run++) {
    if (run) setenv("TVM_VULKAN_HIDE", "subgroupArithmetic", 1);
    device_line(line, sizeof line);
    assert_true((strstr(line, "subgroup arithmetic") != NULL) == !run);
    softmax_run(x, y[run]);
    unsetenv("TVM_VULKAN_HIDE");
    for (int r = 0; r < SMR; r++) {
      double mx = -INFINITY, sum = 0;
      for (int k = 0; k < SMC; k++) mx = fmax(mx, x[r * SMC + k]);
      for (int k = 0; k < SMC; k++) sum += exp(x[r * SMC + k] - mx);
      for (int k = 0; k < SMC; k++) {
        double want = exp(x[r * SMC + k] - mx) / sum;
        if (fabs(y[run][r * SMC + k] - want) > 1e-6 + 1e-4 * want)
          fail_msg("run %d: y[%d][%d] = %g, want %g", run, r, k,
                   y[run][r * SMC + k], want);
      }
    }
  }
}


/* attrs.max_threads reaches the core as max_threads_per_block: the
 * generic thread schedule's blocks stay within it. */
static void test_max_threads(void **state) {
  (void)state;
  assert_int_equal(tvm_target_info(target)->max_threads_per_block, 256);
  char yaml[] = "/tmp/tvm_vk_t_XXXXXX";
  int fd = mkstemp(yaml);
  assert_true(fd >= 0);
  const char *text = "name: vulkan-64\nplugin: vulkan\nkeys: [gpu, vulkan]\n"
                     "attrs:\n  max_threads: 64\n";
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  tvm_target *t64 = NULL;
  assert_int_equal(tvm_target_load(yaml, &t64), TVM_OK);
  unlink(yaml);
  assert_int_equal(tvm_target_info(t64)->max_threads_per_block, 64);
  /* Relu over 10000 elements: the default block would be 256 threads */
  tvm_ctx *c = tvm_ctx_create();
  tvm_graph *g = NULL;
  tvm_gnode *n = NULL;
  assert_int_equal(tvm_graph_create(&g), TVM_OK);
  tvm_gvalue *gin = tvm_graph_input(g, "x", TVM_F32, (int64_t[]){10000}, 1);
  tvm_graph_apply(g, "Relu", "n", TVM_IN(gin), TVM_NOATTRS, 1, &n);
  assert_non_null(n);
  tvm_tensor *in = tvm_placeholder(c, "x", TVM_F32, (int64_t[]){10000}, 1);
  tvm_tensor *out[4] = {0};
  tvm_strategy_env *env = NULL;
  tvm_config *cfg = tvm_config_create();
  tvm_schedule *s = NULL;
  assert_int_equal(n->def->compute(c, n, &in, out), TVM_OK);
  assert_int_equal(tvm_strategy_env_create(t64, c, &env), TVM_OK);
  if (tvm_strategy_schedule(env, n->op, (int)n->def->pattern, n, out, 1, cfg,
                            &s, NULL))
    fail_msg("schedule: %s", tvm_diag_message());
  tvm_module m = {c, NULL, 0};
  tvm_lower_options o;
  tvm_lower_options_init(&o);
  tvm_target_lower_options(t64, &o);
  if (tvm_lower(s, (tvm_tensor *[]){in, out[0]}, 2, "relu", &o, &m))
    fail_msg("lower: %s", tvm_diag_message());
  tvm_plugin_blob blob;
  assert_int_equal(tvm_target_codegen(t64, &m, &blob), TVM_OK);
  for (uint32_t k = 0; k < blob.nkernels; k++) {
    print_message("kernel %s: block %u\n", blob.kernels[k].name,
                  blob.kernels[k].block[0]);
    assert_true(blob.kernels[k].block[0] <= 64);
    assert_true(blob.kernels[k].block[0] >= 32);
  }
  tvm_plugin_blob_free(&blob);
  tvm_schedule_free(s);
  tvm_config_free(cfg);
  tvm_strategy_env_free(env);
  tvm_graph_free(g);
  tvm_ctx_destroy(c);
  tvm_target_free(t64);
}

/* ---- scalars past push constants: a uniform buffer -------------------------- */
enum { US = 20, UN = 64, ULAUNCH = 1000 };

/* A device kernel written as loop IR (scalar parameters do not come from
 * tensor expressions with static shapes): B[i] = A[i] * s0 + sum over
 * k = 1..US-1 of k * s_k, s_k float32 for even k, int32 for odd k:
 * 20 scalars, 160 bytes, more than push constants are guaranteed to hold. */
static tvm_func *scalars_kernel(tvm_ctx *c) {
  tvm_expr *shape[1] = {tvm_int(c, UN)};
  tvm_buffer *ba = tvm_buffer_new(c, "A", TVM_F32, shape, 1, "global");
  tvm_buffer *bb = tvm_buffer_new(c, "B", TVM_F32, shape, 1, "global");
  tvm_expr *params[2 + US];
  tvm_buffer *bufs[2 + US] = {ba, bb};
  params[0] = ba->data;
  params[1] = bb->data;
  tvm_expr *i = tvm_var(c, "i", TVM_I32);
  tvm_expr *v = NULL;
  for (int k = 0; k < US; k++) {
    char name[8];
    snprintf(name, sizeof name, "s%d", k);
    params[2 + k] = tvm_var(c, name, k % 2 ? TVM_I32 : TVM_F32);
    tvm_expr *sk = k % 2 ? tvm_cast(c, TVM_F32, params[2 + k]) : params[2 + k];
    v = k == 0 ? tvm_mul(c, tvm_load(c, TVM_F32, ba->data, i, NULL), sk)
               : tvm_add(c, v, tvm_mul(c, tvm_f32(c, k), sk));
  }
  tvm_stmt *body = tvm_for(c, i, tvm_int(c, 0), tvm_int(c, UN),
                           TVM_FOR_THREAD, "threadIdx.x",
                           tvm_store(c, bb->data, i, v, NULL));
  tvm_func *f = tvm_func_new(c, "scalars", params, bufs, 2 + US, body);
  assert_non_null(f);
  f->kind = TVM_FUNC_DEVICE;
  f->nthread_axes = 1;
  static const char *tags[1] = {"threadIdx.x"};
  f->thread_tags = tags;
  f->thread_extents = tvm_ctx_alloc(c, sizeof(tvm_expr *));
  f->thread_extents[0] = tvm_int(c, UN);
  return f;
}

/* The scalars of launch j (s0 = 1 when acc: the launches accumulate). */
static void scalars_of(int j, int acc, tvm_plugin_arg *args) {
  for (int k = 0; k < US; k++) {
    tvm_plugin_arg *a = &args[2 + k];
    memset(a, 0, sizeof *a);
    if (k % 2) {
      a->type = TVM_ARG_INT;
      a->v.i = k + j % 3 - 1;
    } else {
      a->type = TVM_ARG_FLOAT;
      a->v.f = k == 0 ? (acc ? 1.0 : 1.5 + j) : 0.5 * ((k + j) % 4);
    }
  }
}

/* What launch j adds to A[i] * s0. */
static float scalars_sum(const tvm_plugin_arg *args) {
  float s = 0;
  for (int k = 1; k < US; k++)
    s += (float)k * (k % 2 ? (float)args[2 + k].v.i : (float)args[2 + k].v.f);
  return s;
}

/* Two launches with different scalars recorded before one sync each see
 * their own (each launch has its own slice of the uniform buffer), and
 * ULAUNCH in-place launches, more than the ring holds before it starts
 * over, accumulate exactly; with push descriptors and with descriptor
 * sets. */
static void test_scalars_uniform_buffer(void **state) {
  (void)state;
  tvm_ctx *c = tvm_ctx_create();
  tvm_module m = {c, NULL, 0};
  assert_int_equal(tvm_module_add(&m, scalars_kernel(c)), TVM_OK);
  tvm_plugin_blob blob;
  int found = compile_validate_grep(&m, &blob, "OpVariable.*Uniform$");
  if (found >= 0) assert_int_equal(found, 1);
  if (!have_device) {
    tvm_plugin_blob_free(&blob);
    tvm_ctx_destroy(c);
    skip();
  }
  static float a[UN], b[2][UN], acc[UN];
  for (int i = 0; i < UN; i++) a[i] = (float)(i % 7) - 3;
  for (int run = 0; run < 2; run++) {
    if (run) setenv("TVM_VULKAN_HIDE", "VK_KHR_push_descriptor", 1);
    tvm_device *d = NULL;
    tvm_runtime_module *rm = NULL;
    tvm_runtime_func *rf = NULL;
    if (tvm_device_open(target, &d) != TVM_OK ||
        tvm_runtime_module_load(d, &blob, &rm) != TVM_OK ||
        tvm_runtime_get_func(rm, "scalars", &rf) != TVM_OK)
      fail_msg("%s", tvm_diag_message());
    const tvm_plugin_kernel *k = tvm_runtime_func_kernel(rf);
    void *da, *db[2];
    assert_int_equal(tvm_device_alloc(d, 0, sizeof a, 64, &da), TVM_OK);
    for (int o = 0; o < 2; o++)
      assert_int_equal(tvm_device_alloc(d, 0, sizeof a, 64, &db[o]), TVM_OK);
    assert_int_equal(tvm_device_copy(d, da, 0, a, 0, sizeof a,
                                     TVM_COPY_HOST_TO_DEVICE),
                     TVM_OK);
    /* two launches, one sync */
    tvm_plugin_arg args[2][2 + US];
    for (int o = 0; o < 2; o++) {
      memset(args[o], 0, sizeof args[o]);
      args[o][0].type = args[o][1].type = TVM_ARG_PTR;
      args[o][0].v.ptr = da;
      args[o][1].v.ptr = db[o];
      scalars_of(o + 1, 0, args[o]);
      if (tvm_device_launch(d, rf, args[o], 2 + US, k->grid, k->block))
        fail_msg("launch: %s", tvm_diag_message());
    }
    assert_int_equal(tvm_device_sync(d), TVM_OK);
    for (int o = 0; o < 2; o++) {
      assert_int_equal(tvm_device_copy(d, b[o], 0, db[o], 0, sizeof a,
                                       TVM_COPY_DEVICE_TO_HOST),
                       TVM_OK);
      float s0 = (float)args[o][2].v.f, add = scalars_sum(args[o]);
      for (int i = 0; i < UN; i++)
        if (b[o][i] != a[i] * s0 + add)
          fail_msg("run %d launch %d: B[%d] = %g, want %g", run, o, i,
                   b[o][i], a[i] * s0 + add);
    }
    /* in place, ULAUNCH times: B += sum_j */
    tvm_plugin_arg in_place[2 + US];
    memset(in_place, 0, sizeof in_place);
    in_place[0].type = in_place[1].type = TVM_ARG_PTR;
    in_place[0].v.ptr = in_place[1].v.ptr = da;
    double want_add = 0;
    for (int j = 0; j < ULAUNCH; j++) {
      scalars_of(j, 1, in_place);
      want_add += scalars_sum(in_place);
      if (tvm_device_launch(d, rf, in_place, 2 + US, k->grid, k->block))
        fail_msg("launch %d: %s", j, tvm_diag_message());
    }
    assert_int_equal(tvm_device_sync(d), TVM_OK);
    assert_int_equal(tvm_device_copy(d, acc, 0, da, 0, sizeof a,
                                     TVM_COPY_DEVICE_TO_HOST),
                     TVM_OK);
    for (int i = 0; i < UN; i++)
      if (acc[i] != (float)(a[i] + want_add))
        fail_msg("run %d: after %d launches A[%d] = %g, want %g", run,
                 ULAUNCH, i, acc[i], a[i] + want_add);
    tvm_device_free(d, 0, da);
    for (int o = 0; o < 2; o++) tvm_device_free(d, 0, db[o]);
    tvm_runtime_module_free(rm);
    tvm_device_close(d);
    unsetenv("TVM_VULKAN_HIDE");
  }
  tvm_plugin_blob_free(&blob);
  tvm_ctx_destroy(c);
}

/* Without a device, the plugin says why and how to fix it. */
static void test_probe_message(void **state) {
  (void)state;
  if (have_device) {
    print_message("vulkan device present: %s\n",
                  tvm_target_info(target)->description);
    return;
  }
  print_message("no device: %s\n", why_not);
  assert_non_null(strstr(why_not, "vulkan"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_probe_message),
      cmocka_unit_test(test_elementwise),
      cmocka_unit_test(test_matmul_shared),
      cmocka_unit_test(test_row_max),
      cmocka_unit_test(test_int64),
      cmocka_unit_test(test_small_types),
      cmocka_unit_test(test_small_types_refused),
      cmocka_unit_test(test_binding_paths),
      cmocka_unit_test(test_subgroup_reduce),
      cmocka_unit_test(test_max_threads),
      cmocka_unit_test(test_scalars_uniform_buffer),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
