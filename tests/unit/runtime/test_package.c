/*
 * tests/unit/runtime/test_package.c - packages: save/load round trips
 * (the hand-made plan of plan_fixture.h and, when the compiler is there,
 * the zoo's "mlp"), corruption at 200 random positions and truncation at
 * 50 lengths (every load must fail cleanly naming the file), foreign
 * targets, future versions and inconsistent plans.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan_fixture.h"
#include "tvm/zoo.h"

static tvm_target *target;
static char dir[256];

static int setup(void **state) {
  (void)state;
  if (tvm_target_load("llvm-cpu", &target) != TVM_OK) {
    fprintf(stderr, "%s\n", tvm_diag_message());
    return -1;
  }
  const char *base = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/tvm-pkg-XXXXXX", base && *base ? base : "/tmp");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) return -1;
  tvm_target_free(target);
  return 0;
}

static void path_of(const char *name, char *out, size_t cap) {
  snprintf(out, cap, "%s/%s", dir, name);
}

static unsigned char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)n + 1);
  assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return b;
}

static void write_all(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, n, f), n);
  fclose(f);
}

static int streq(const char *a, const char *b) {
  return (a == NULL && b == NULL) || (a && b && !strcmp(a, b));
}

/* Every field of a and b is equal. */
static void assert_plans_equal(const tvm_plan *a, const tvm_plan *b) {
  assert_string_equal(a->target_name, b->target_name);
  assert_string_equal(a->plugin_name, b->plugin_name);
  assert_true(streq(a->plugin_version, b->plugin_version));
  assert_int_equal(a->nvalues, b->nvalues);
  for (uint32_t i = 0; i < a->nvalues; i++) {
    const tvm_plan_value *x = &a->values[i], *y = &b->values[i];
    assert_true(streq(x->name, y->name));
    assert_int_equal(x->kind, y->kind);
    assert_true(tvm_dtype_eq(x->dtype, y->dtype));
    assert_int_equal(x->ndim, y->ndim);
    for (int d = 0; d < x->ndim; d++) assert_int_equal(x->shape[d], y->shape[d]);
    assert_true(streq(x->layout, y->layout));
    assert_int_equal(x->storage, y->storage);
    assert_int_equal(x->nbytes, y->nbytes);
    if (x->kind == TVM_PV_PARAM)
      assert_memory_equal(x->data, y->data, x->nbytes);
  }
  assert_int_equal(a->nsteps, b->nsteps);
  for (uint32_t s = 0; s < a->nsteps; s++) {
    assert_string_equal(a->steps[s].kernel, b->steps[s].kernel);
    assert_true(streq(a->steps[s].label, b->steps[s].label));
    assert_int_equal(a->steps[s].nargs, b->steps[s].nargs);
    assert_memory_equal(a->steps[s].args, b->steps[s].args,
                        a->steps[s].nargs * sizeof(uint32_t));
    assert_true(a->steps[s].flops == b->steps[s].flops);
  }
  assert_int_equal(a->nstorage, b->nstorage);
  for (uint32_t i = 0; i < a->nstorage; i++)
    assert_int_equal(a->storage_bytes[i], b->storage_bytes[i]);
  assert_int_equal(a->ninputs, b->ninputs);
  assert_int_equal(a->noutputs, b->noutputs);
  for (uint32_t i = 0; i < a->ninputs; i++)
    assert_int_equal(a->inputs[i], b->inputs[i]);
  for (uint32_t i = 0; i < a->noutputs; i++)
    assert_int_equal(a->outputs[i], b->outputs[i]);
  assert_int_equal(a->activation_bytes_planned, b->activation_bytes_planned);
  assert_int_equal(a->activation_bytes_unplanned,
                   b->activation_bytes_unplanned);
  assert_int_equal(a->blob.format, b->blob.format);
  assert_int_equal(a->blob.size, b->blob.size);
  assert_memory_equal(a->blob.data, b->blob.data, a->blob.size);
  assert_int_equal(a->ntarget_attrs, b->ntarget_attrs);
  for (uint32_t i = 0; i < a->ntarget_attrs; i++) {
    const tvm_plugin_attr_value *x = &a->target_attrs[i],
                                *y = &b->target_attrs[i];
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->type, y->type);
    assert_int_equal(x->i, y->i);
    assert_true(x->f == y->f);
    assert_true(streq(x->s, y->s));
  }
  assert_int_equal(a->blob.nkernels, b->blob.nkernels);
  for (uint32_t k = 0; k < a->blob.nkernels; k++) {
    const tvm_plugin_kernel *x = &a->blob.kernels[k], *y = &b->blob.kernels[k];
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->nargs, y->nargs);
    assert_memory_equal(x->grid, y->grid, sizeof x->grid);
    assert_memory_equal(x->block, y->block, sizeof x->block);
    assert_int_equal(x->shared_bytes, y->shared_bytes);
  }
}

static void test_roundtrip_fixture(void **state) {
  (void)state;
  tvm_plan *p = NULL, *q = NULL;
  char path[512];
  path_of("fx.tvmpkg", path, sizeof path);
  assert_int_equal(fx_plan(target, &p), TVM_OK);
  assert_int_equal(tvm_package_save(p, path), TVM_OK);
  if (tvm_package_load(path, target, &q) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  assert_plans_equal(p, q);
  /* saving the loaded plan gives the same bytes */
  char path2[512];
  size_t n1, n2;
  path_of("fx2.tvmpkg", path2, sizeof path2);
  assert_int_equal(tvm_package_save(q, path2), TVM_OK);
  unsigned char *b1 = read_all(path, &n1), *b2 = read_all(path2, &n2);
  assert_int_equal(n1, n2);
  assert_memory_equal(b1, b2, n1);
  free(b1);
  free(b2);
  tvm_plan_free(p);
  tvm_plan_free(q);
}

/* The zoo's mlp through tvm_compile, saved and loaded. */
static void test_roundtrip_mlp(void **state) {
  (void)state;
  tvm_graph *g = NULL;
  tvm_plan *p = NULL, *q = NULL;
  char path[512];
  path_of("mlp.tvmpkg", path, sizeof path);
  assert_int_equal(tvm_zoo_build("mlp", &g), TVM_OK);
  if (tvm_compile(g, target, NULL, &p) != TVM_OK)
    fail_msg("compile: %s", tvm_diag_message());
  assert_int_equal(tvm_package_save(p, path), TVM_OK);
  if (tvm_package_load(path, target, &q) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  assert_plans_equal(p, q);
  tvm_plan_free(p);
  tvm_plan_free(q);
  tvm_graph_free(g);
}

/* Loads path and expects a clean failure naming it. */
static void expect_refused(const char *path, const char *what, long where) {
  tvm_plan *q = (tvm_plan *)1;
  tvm_status st = tvm_package_load(path, target, &q);
  if (st == TVM_OK)
    fail_msg("%s at %ld: the damaged package loaded", what, where);
  assert_null(q);
  if (strstr(tvm_diag_message(), path) == NULL)
    fail_msg("%s at %ld: message does not name the file: %s", what, where,
             tvm_diag_message());
}

/* A real package (the zoo's mlp compiled for llvm-cpu), damaged. */
static void test_corruption(void **state) {
  (void)state;
  tvm_plan *p = NULL;
  tvm_graph *g = NULL;
  char path[512], bad[512];
  size_t n;
  path_of("good.tvmpkg", path, sizeof path);
  path_of("bad.tvmpkg", bad, sizeof bad);
  assert_int_equal(tvm_zoo_build("mlp", &g), TVM_OK);
  if (tvm_compile(g, target, NULL, &p) != TVM_OK)
    fail_msg("compile: %s", tvm_diag_message());
  assert_int_equal(tvm_package_save(p, path), TVM_OK);
  tvm_plan_free(p);
  tvm_graph_free(g);
  unsigned char *b = read_all(path, &n);
  assert_true(n > 200);
  srand(12345);
  for (int k = 0; k < 200; k++) {
    /* half the flips hit the header and tables, where damage matters most */
    size_t pos = k % 2 ? (size_t)rand() % 160 : (size_t)rand() % n;
    unsigned char old = b[pos];
    b[pos] ^= (unsigned char)(1 + rand() % 255);
    write_all(bad, b, n);
    expect_refused(bad, "flipped byte", (long)pos);
    b[pos] = old;
  }
  for (int k = 0; k < 50; k++) {
    size_t len = k < 25 ? (size_t)k * 7 : (size_t)rand() % n;
    write_all(bad, b, len);
    expect_refused(bad, "truncated", (long)len);
  }
  /* appended garbage */
  unsigned char *c = malloc(n + 3);
  memcpy(c, b, n);
  memcpy(c + n, "xyz", 3);
  write_all(bad, c, n + 3);
  expect_refused(bad, "appended", (long)n);
  free(c);
  /* the undamaged file still loads */
  write_all(bad, b, n);
  tvm_plan *q = NULL;
  assert_int_equal(tvm_package_load(bad, target, &q), TVM_OK);
  tvm_plan_free(q);
  free(b);
}

/* Saves the fixture plan as the package `name` (its path into path) and
 * returns the package's bytes (free them), their count in *n. */
static unsigned char *saved_fixture(const char *name, char *path,
                                    size_t cap, size_t *n) {
  tvm_plan *p = NULL;
  path_of(name, path, cap);
  assert_int_equal(fx_plan(target, &p), TVM_OK);
  assert_int_equal(tvm_package_save(p, path), TVM_OK);
  tvm_plan_free(p);
  return read_all(path, n);
}

/* Rewrites the header checksum after editing the header (to reach the
 * checks behind it). */
static void reseal(unsigned char *b) {
  uint32_t n = (uint32_t)b[12] | (uint32_t)b[13] << 8;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < 24; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  for (size_t i = 32; i < 32 + 32 * (size_t)n; i++)
    h = (h ^ b[i]) * 0x100000001b3ull;
  for (int i = 0; i < 8; i++) b[24 + i] = (unsigned char)(h >> (8 * i));
}

/* The target a package records, made without YAML; a format-1 package
 * (no attribute values) and values the plugin's schema refuses ask for
 * a recompile. */
static void test_target_from_package(void **state) {
  (void)state;
  tvm_plan *p = NULL, *q = NULL;
  tvm_target *t = NULL;
  char path[512];
  size_t n;
  path_of("t.tvmpkg", path, sizeof path);
  assert_int_equal(fx_plan(target, &p), TVM_OK);
  assert_int_equal(p->ntarget_attrs, target->nattrs);
  assert_int_equal(tvm_package_save(p, path), TVM_OK);
  tvm_plan_free(p);
  if (tvm_package_load(path, NULL, &q) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  if (tvm_plan_target(q, NULL, &t) != TVM_OK)
    fail_msg("%s", tvm_diag_message());
  assert_string_equal(t->name, target->name);
  assert_string_equal(t->plugin_name, target->plugin_name);
  assert_null(t->path);
  assert_non_null(t->instance);
  assert_int_equal(t->nattrs, target->nattrs);
  for (uint32_t i = 0; i < t->nattrs; i++) {
    assert_string_equal(t->attrs[i].name, target->attrs[i].name);
    assert_int_equal(t->attrs[i].i, target->attrs[i].i);
    assert_true(streq(t->attrs[i].s, target->attrs[i].s));
  }
  tvm_target_free(t);
  /* a value out of the schema's range: refused before target_create */
  tvm_plugin_attr_value *v = (tvm_plugin_attr_value *)tvm_target_attr(
      target, "num_threads");
  assert_non_null(v);
  for (uint32_t i = 0; i < q->ntarget_attrs; i++)
    if (!strcmp(q->target_attrs[i].name, "num_threads"))
      ((tvm_plugin_attr_value *)q->target_attrs)[i].i = 100000;
  assert_int_equal(tvm_plan_target(q, NULL, &t), TVM_ERR_INVALID);
  assert_null(t);
  assert_non_null(strstr(tvm_diag_message(), "'num_threads'"));
  assert_non_null(strstr(tvm_diag_message(), "recompile"));
  tvm_plan_free(q);
  /* format 1: read, but it records no values */
  unsigned char *b = read_all(path, &n);
  b[8] = 1;
  reseal(b);
  write_all(path, b, n);
  free(b);
  if (tvm_package_load(path, target, &q) != TVM_OK)
    fail_msg("format 1: %s", tvm_diag_message());
  assert_null(q->target_attrs);
  assert_int_equal(tvm_plan_target(q, NULL, &t), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "format version 1"));
  assert_non_null(strstr(tvm_diag_message(), "recompile"));
  tvm_plan_free(q);
}

/* Section checksums: this writer flags every section as summed by
 * tvm_hash_wide; a package of FNV-1a sums and flags 0 (what writers
 * before it wrote) still loads, a sum of the wrong kind is damage, and
 * flags this reader does not know are refused with their own message. */
static void test_section_checksum_kinds(void **state) {
  (void)state;
  tvm_plan *q = NULL;
  char path[512];
  size_t n;
  unsigned char *b = saved_fixture("sums.tvmpkg", path, sizeof path, &n);
  uint32_t ns = (uint32_t)b[12] | (uint32_t)b[13] << 8;
  assert_true(ns >= 4);
  for (uint32_t i = 0; i < ns; i++) {
    unsigned char *e = b + 32 + 32 * i;
    assert_int_equal(e[4], 1); /* PKG_SEC_WIDESUM */
    uint64_t off = 0, len = 0, sum = 0;
    for (int k = 0; k < 8; k++) {
      off |= (uint64_t)e[8 + k] << (8 * k);
      len |= (uint64_t)e[16 + k] << (8 * k);
      sum |= (uint64_t)e[24 + k] << (8 * k);
    }
    assert_true(sum == tvm_hash_wide(b + off, (size_t)len));
    /* the old kind: flags 0 and FNV-1a */
    uint64_t f = tvm_hash_bytes(b + off, (size_t)len, TVM_HASH_SEED);
    e[4] = 0;
    for (int k = 0; k < 8; k++) e[24 + k] = (unsigned char)(f >> (8 * k));
  }
  reseal(b);
  write_all(path, b, n);
  if (tvm_package_load(path, target, &q) != TVM_OK)
    fail_msg("FNV-1a sums: %s", tvm_diag_message());
  tvm_plan_free(q);
  /* flags 1 over an FNV-1a sum: a checksum mismatch */
  b[32 + 4] = 1;
  reseal(b);
  write_all(path, b, n);
  assert_int_equal(tvm_package_load(path, target, &q), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "checksum mismatch"));
  /* an unknown flag */
  b[32 + 4] = 2;
  reseal(b);
  write_all(path, b, n);
  assert_int_equal(tvm_package_load(path, target, &q), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "flags 0x2"));
  assert_non_null(strstr(tvm_diag_message(), path));
  free(b);
}

static void test_magic_and_version(void **state) {
  (void)state;
  tvm_plan *q = NULL;
  char path[512];
  size_t n;
  unsigned char *b = saved_fixture("v.tvmpkg", path, sizeof path, &n);
  b[8] = 7; /* format version 7 */
  reseal(b);
  write_all(path, b, n);
  assert_int_equal(tvm_package_load(path, target, &q), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "format version 7"));
  b[8] = 1;
  b[0] = 'X';
  write_all(path, b, n);
  assert_int_equal(tvm_package_load(path, target, &q), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "not a tvmc package"));
  free(b);
  /* an .npy file is not a package either; neither is a missing file */
  path_of("missing.tvmpkg", path, sizeof path);
  assert_int_equal(tvm_package_load(path, target, &q), TVM_ERR_IO);
  assert_non_null(strstr(tvm_diag_message(), path));
}

static void test_wrong_target(void **state) {
  (void)state;
  tvm_plan *p = NULL, *q = NULL;
  tvm_target *other = NULL;
  char path[512], expect[1024];
  path_of("vdla.tvmpkg", path, sizeof path);
  assert_int_equal(fx_plan(target, &p), TVM_OK);
  /* pretend it was built for vdla */
  const char *tn = p->target_name, *pn = p->plugin_name,
             *pv = p->plugin_version;
  p->target_name = "vdla";
  p->plugin_name = "vdla";
  p->plugin_version = "0.1.0";
  assert_int_equal(tvm_package_save(p, path), TVM_OK);
  assert_int_equal(tvm_package_load(path, target, &q), TVM_ERR_INVALID);
  assert_null(q);
  snprintf(expect, sizeof expect,
           "package %s was built for target 'vdla' (plugin vdla 0.1.0), not "
           "'llvm-cpu': recompile with tvmc compile --target llvm-cpu",
           path);
  assert_string_equal(tvm_diag_message(), expect);
  /* without an expected target it loads */
  assert_int_equal(tvm_package_load(path, NULL, &q), TVM_OK);
  assert_string_equal(q->target_name, "vdla");
  tvm_plan_free(q);
  q = NULL;
  /* same plugin, other target name: refused too */
  p->target_name = tn;
  p->plugin_name = pn;
  p->plugin_version = pv;
  assert_int_equal(tvm_package_save(p, path), TVM_OK);
  assert_int_equal(tvm_target_load("llvm-cpu-1thread", &other), TVM_OK);
  assert_int_equal(tvm_package_load(path, other, &q), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "--target llvm-cpu-1thread"));
  tvm_target_free(other);
  tvm_plan_free(p);
}

static void test_inconsistent_plans(void **state) {
  (void)state;
  tvm_plan *p = NULL;
  char path[512];
  path_of("bad-plan.tvmpkg", path, sizeof path);
  assert_int_equal(fx_plan(target, &p), TVM_OK);
  p->values[2].nbytes += 4; /* nbytes != dtype x shape */
  assert_int_equal(tvm_package_save(p, path), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "nbytes"));
  p->values[2].nbytes -= 4;
  uint32_t *args = (uint32_t *)p->steps[1].args, keep;
  uint32_t bad_args[2] = {2, 9};
  p->steps[1].args = bad_args; /* value index out of range */
  assert_int_equal(tvm_package_save(p, path), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "value 9 of 5"));
  p->steps[1].args = args;
  keep = (uint32_t)p->values[3].storage;
  p->values[3].storage = 5; /* storage slot out of range */
  assert_int_equal(tvm_package_save(p, path), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "storage slot 5"));
  p->values[3].storage = (int32_t)keep;
  p->steps[0].kernel = "nope";
  assert_int_equal(tvm_package_save(p, path), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "'nope'"));
  p->steps[0].kernel = "k_add";
  p->steps[1].nargs = 1; /* k_sq takes 2 */
  assert_int_equal(tvm_package_save(p, path), TVM_ERR_INVALID);
  p->steps[1].nargs = 2;
  assert_int_equal(tvm_package_save(p, path), TVM_OK);
  tvm_plan_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip_fixture),
      cmocka_unit_test(test_roundtrip_mlp),
      cmocka_unit_test(test_corruption),
      cmocka_unit_test(test_magic_and_version),
      cmocka_unit_test(test_section_checksum_kinds),
      cmocka_unit_test(test_target_from_package),
      cmocka_unit_test(test_wrong_target),
      cmocka_unit_test(test_inconsistent_plans),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
