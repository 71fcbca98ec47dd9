/*
 * tests/abi/test_plugin_discovery.c - plugin discovery and ABI
 * negotiation: what is loaded, what is refused, and the reasons given.
 * Each test copies the test plugins it needs into a fresh directory and
 * builds a private registry over it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "abi_util.h"
#include "tvm/runtime.h"
#include "tvm/target.h"

/* The only entry of a registry over dir (asserting there is one). */
static const tvm_plugin_entry *only_entry(tvm_plugin_registry *r) {
  assert_int_equal(tvm_plugin_registry_count(r), 1);
  return tvm_plugin_registry_at(r, 0);
}

/* A registry over a directory holding one copy of group/name. */
static tvm_plugin_registry *one_plugin(const char *group, const char *name,
                                       char *dir, size_t cap, char *path) {
  util_tmpdir(dir, cap);
  util_install(group, name, dir, "p.so", path, 4096);
  tvm_plugin_registry *r = NULL;
  assert_int_equal(tvm_plugin_registry_create(dir, 0, &r), TVM_OK);
  return r;
}

static void test_abi2_loads(void **state) {
  char dir[256], path[4096];
  tvm_plugin_registry *r = one_plugin("plugins", "fake", dir, sizeof dir, path);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_LOADED);
  assert_string_equal(e->name, "fake");
  assert_string_equal(e->path, path);
  assert_int_equal(e->abi_version, 2);
  assert_int_equal(e->vtable_size, TVM_PLUGIN_VTABLE_SIZE_V2);
  assert_ptr_equal(tvm_plugin_registry_find(r, "fake"), e);
  assert_null(tvm_plugin_registry_find(r, "abi1"));
  assert_int_equal(tvm_plugin_nattrs(e), 5);
  assert_string_equal(tvm_plugin_attr_at(e, 0)->name, "num_threads");
  assert_null(tvm_plugin_attr_at(e, 5));
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

static void test_abi1_loads_with_v1_vtable(void **state) {
  char dir[256], path[4096];
  tvm_plugin_registry *r = one_plugin("plugins", "abi1", dir, sizeof dir, path);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_LOADED);
  assert_int_equal(e->abi_version, 1);
  assert_int_equal(e->vtable_size, 136);
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

/* An ABI 3 plugin (no lower_passes slot) loads with the ABI 3 vtable;
 * its targets lower without inserted passes. */
static void test_abi3_loads_with_v3_vtable(void **state) {
  char dir[256], path[4096];
  tvm_plugin_registry *r = one_plugin("plugins", "abi3", dir, sizeof dir, path);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_LOADED);
  assert_int_equal(e->abi_version, 3);
  assert_int_equal(e->vtable_size, 160);
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

static void test_abi4_refused(void **state) {
  char dir[256], path[4096];
  tvm_plugin_registry *r = one_plugin("bad", "abi4", dir, sizeof dir, path);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_SKIPPED);
  assert_non_null(strstr(e->reason, "answered ABI 9"));
  assert_non_null(strstr(e->reason, "1 to 8"));
  assert_null(tvm_plugin_registry_find(r, "abi4"));
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

/* An ABI 5 plugin (no quantize slot) loads with the ABI 5 vtable; its
 * graphs stay in floating point. */
static void test_abi5_loads_with_v5_vtable(void **state) {
  char dir[256], path[4096];
  tvm_plugin_registry *r = one_plugin("plugins", "abi5", dir, sizeof dir, path);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_LOADED);
  assert_int_equal(e->abi_version, 5);
  assert_int_equal(e->vtable_size, 184);
  assert_null(TVM_PLUGIN_SLOT(e, quantize));
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

/* A plugin speaking up to 9 settles on the host's newest, 8. */
static void test_negotiates_down_to_8(void **state) {
  char dir[256], path[4096];
  tvm_plugin_registry *r =
      one_plugin("plugins", "negotiate", dir, sizeof dir, path);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_LOADED);
  assert_string_equal(e->name, "negotiate");
  assert_int_equal(e->abi_version, 8);
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

static void test_query_null_refused(void **state) {
  char dir[256], path[4096];
  tvm_plugin_registry *r = one_plugin("bad", "nullquery", dir, sizeof dir, path);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_SKIPPED);
  assert_non_null(strstr(e->reason, "returned NULL"));
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

static void test_small_vtable_refused(void **state) {
  char dir[256], path[4096];
  tvm_plugin_registry *r = one_plugin("bad", "smallvt", dir, sizeof dir, path);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_SKIPPED);
  assert_non_null(strstr(e->reason, "too small for ABI 2"));
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

static void test_no_entry_symbol(void **state) {
  char dir[256], path[4096];
  tvm_plugin_registry *r = one_plugin("bad", "noentry", dir, sizeof dir, path);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_SKIPPED);
  assert_non_null(strstr(e->reason, "no entry symbol tvm_plugin_query"));
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

static void test_missing_dependency(void **state) {
  char dir[256], path[4096];
  tvm_plugin_registry *r =
      one_plugin("bad", "missingdep", dir, sizeof dir, path);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_SKIPPED);
  assert_non_null(strstr(e->reason, "dlopen failed"));
  /* dlerror() names the library that is missing */
  assert_non_null(strstr(e->reason, "libtvmabigone"));
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

static void test_group_writable_file_refused(void **state) {
  char dir[256], path[1024], want[4096];
  util_tmpdir(dir, sizeof dir);
  util_install("plugins", "fake", dir, "p.so", path, sizeof path);
  chmod(path, 0775);
  tvm_plugin_registry *r = NULL;
  assert_int_equal(tvm_plugin_registry_create(dir, 0, &r), TVM_OK);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_SKIPPED);
  snprintf(want, sizeof want,
           "refusing plugin %s: file is group-writable; fix with chmod go-w "
           "%s",
           path, path);
  assert_string_equal(e->reason, want);
  assert_null(tvm_plugin_registry_find(r, "fake"));
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

static void test_world_writable_dir_refused(void **state) {
  char dir[256], path[4096];
  util_tmpdir(dir, sizeof dir);
  util_install("plugins", "fake", dir, "p.so", path, sizeof path);
  chmod(dir, 0777);
  tvm_plugin_registry *r = NULL;
  assert_int_equal(tvm_plugin_registry_create(dir, 0, &r), TVM_OK);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_SKIPPED);
  assert_string_equal(e->path, dir);
  char want[1024];
  snprintf(want, sizeof want,
           "refusing plugin directory %s: directory is group- and "
           "world-writable; fix with chmod go-w %s",
           dir, dir);
  assert_string_equal(e->reason, want);
  assert_non_null(strstr(e->reason, "chmod go-w"));
  assert_null(tvm_plugin_registry_find(r, "fake"));
  tvm_plugin_registry_free(r);
  chmod(dir, 0755);
  util_rmdir(dir);
}

static void test_empty_entries_ignored(void **state) {
  char dir[256], path[4096], list[1024];
  util_tmpdir(dir, sizeof dir);
  util_install("plugins", "fake", dir, "p.so", path, sizeof path);
  snprintf(list, sizeof list, "::%s:::", dir);
  tvm_plugin_registry *r = NULL;
  assert_int_equal(tvm_plugin_registry_create(list, 0, &r), TVM_OK);
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_LOADED);
  char *dirs = tvm_plugin_registry_dirs(r);
  assert_string_equal(dirs, dir);
  tvm_free(dirs);
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

static void test_current_directory_never_searched(void **state) {
  char dir[256], path[4096], old[4096];
  util_tmpdir(dir, sizeof dir);
  util_install("plugins", "fake", dir, "p.so", path, sizeof path);
  assert_non_null(getcwd(old, sizeof old));
  assert_int_equal(chdir(dir), 0);
  tvm_plugin_registry *r = NULL;
  /* an empty list, empty entries and a relative entry: none is the cwd */
  assert_int_equal(tvm_plugin_registry_create("::", 0, &r), TVM_OK);
  assert_int_equal(tvm_plugin_registry_count(r), 0);
  tvm_plugin_registry_free(r);
  assert_int_equal(tvm_plugin_registry_create(".", 0, &r), TVM_OK);
  assert_null(tvm_plugin_registry_find(r, "fake"));
  const tvm_plugin_entry *e = only_entry(r);
  assert_int_equal(e->state, TVM_PLUGIN_SKIPPED);
  assert_non_null(strstr(e->reason, "relative"));
  tvm_plugin_registry_free(r);
  assert_int_equal(chdir(old), 0);
  util_rmdir(dir);
}

static void test_duplicate_first_wins(void **state) {
  char d1[256], d2[256], p1[4096], p2[4096], list[1024];
  util_tmpdir(d1, sizeof d1);
  util_tmpdir(d2, sizeof d2);
  util_install("plugins", "fake", d1, "first.so", p1, sizeof p1);
  util_install("plugins", "fake", d2, "second.so", p2, sizeof p2);
  snprintf(list, sizeof list, "%s:%s", d1, d2);
  tvm_plugin_registry *r = NULL;
  assert_int_equal(tvm_plugin_registry_create(list, 0, &r), TVM_OK);
  assert_int_equal(tvm_plugin_registry_count(r), 2);
  const tvm_plugin_entry *a = tvm_plugin_registry_at(r, 0);
  const tvm_plugin_entry *b = tvm_plugin_registry_at(r, 1);
  assert_int_equal(a->state, TVM_PLUGIN_LOADED);
  assert_string_equal(a->path, p1);
  assert_int_equal(b->state, TVM_PLUGIN_SKIPPED);
  assert_non_null(strstr(b->reason, "duplicate plugin name 'fake'"));
  assert_non_null(strstr(b->reason, p1));
  assert_ptr_equal(tvm_plugin_registry_find(r, "fake"), a);
  tvm_plugin_registry_free(r);
  util_rmdir(d1);
  util_rmdir(d2);
}

/* Only files ending in .so are considered. */
static void test_only_so_files(void **state) {
  char dir[256], path[4096], other[4096];
  util_tmpdir(dir, sizeof dir);
  util_install("plugins", "fake", dir, "p.so.bak", path, sizeof path);
  util_write(dir, "notes.txt", "hello\n", other, sizeof other);
  tvm_plugin_registry *r = NULL;
  assert_int_equal(tvm_plugin_registry_create(dir, 0, &r), TVM_OK);
  assert_int_equal(tvm_plugin_registry_count(r), 0);
  tvm_plugin_registry_free(r);
  util_rmdir(dir);
}

/* The global registry reads $TVM_PLUGIN_PATH (empty entries ignored)
 * once; later changes of the variable do not matter. */
static void test_global_registry_from_env(void **state) {
  char dir[256], path[4096], list[1024];
  util_tmpdir(dir, sizeof dir);
  util_install("plugins", "abi1", dir, "abi1.so", path, sizeof path);
  snprintf(list, sizeof list, ":%s::", dir);
  setenv("TVM_PLUGIN_PATH", list, 1);
  setenv("TVM_NO_INSTALLED", "1", 1);
  tvm_plugin_registry *g = tvm_plugins();
  assert_ptr_equal(tvm_plugins(), g);
  const tvm_plugin_entry *e = tvm_plugin_registry_find(g, "abi1");
  assert_non_null(e);
  assert_string_equal(e->path, path);
  assert_int_equal(tvm_plugin_registry_count(g), 1);
  setenv("TVM_PLUGIN_PATH", "/nonexistent", 1);
  assert_ptr_equal(tvm_plugins(), g);
  util_rmdir(dir);
}

static int32_t count_task(int64_t i, int64_t n, void *data) {
  __atomic_fetch_add((int64_t *)data, i + 1, __ATOMIC_RELAXED);
  return i == 5 ? 9 : 0;
}

/* The host API the plugins see. */
static void test_host_api(void **state) {
  const tvm_host_api *h = tvm_plugin_host_api();
  assert_int_equal(h->struct_size, sizeof(tvm_host_api));
  assert_int_equal(h->abi_version, TVM_PLUGIN_ABI_VERSION);
  assert_int_equal(h->num_threads, (uint32_t)tvm_runtime_num_threads());
  tvm_diag_clear();
  h->report(TVM_ERR_UNAVAILABLE, "no device here");
  assert_int_equal(tvm_diag_status(), TVM_ERR_UNAVAILABLE);
  assert_string_equal(tvm_diag_message(), "no device here");
  void *p = h->alloc(100);
  assert_non_null(p);
  memset(p, 1, 100);
  tvm_free(p); /* the host frees what plugins allocate with host->alloc */
  assert_int_equal(tvm_runtime_set_num_threads(3), TVM_OK);
  assert_int_equal(h->num_threads, 3);
  int64_t sum = 0; /* parallel_for is the process default pool */
  assert_int_equal(h->parallel_for(count_task, &sum, 10), 9);
  assert_int_equal(sum, 55);
  /* ABI 4: a given pool, NULL meaning the default one */
  assert_int_equal(h->pool_size(NULL), 3);
  tvm_thread_pool *pool = NULL;
  assert_int_equal(tvm_thread_pool_create(2, &pool), TVM_OK);
  tvm_host_pool *hp = (tvm_host_pool *)pool;
  assert_int_equal(h->pool_size(hp), 2);
  uint64_t jobs = tvm_thread_pool_jobs(pool);
  sum = 0;
  assert_int_equal(h->pool_parallel_for(hp, count_task, &sum, 10), 9);
  assert_int_equal(sum, 55);
  assert_int_equal(tvm_thread_pool_jobs(pool), jobs + 1);
  tvm_thread_pool_free(pool);
  assert_int_equal(h->num_threads, 3); /* the default pool is untouched */
  h->log(TVM_LOG_DEBUG, "a debug line from a plugin");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_abi2_loads),
      cmocka_unit_test(test_abi1_loads_with_v1_vtable),
      cmocka_unit_test(test_abi3_loads_with_v3_vtable),
      cmocka_unit_test(test_abi4_refused),
      cmocka_unit_test(test_abi5_loads_with_v5_vtable),
      cmocka_unit_test(test_negotiates_down_to_8),
      cmocka_unit_test(test_query_null_refused),
      cmocka_unit_test(test_small_vtable_refused),
      cmocka_unit_test(test_no_entry_symbol),
      cmocka_unit_test(test_missing_dependency),
      cmocka_unit_test(test_group_writable_file_refused),
      cmocka_unit_test(test_world_writable_dir_refused),
      cmocka_unit_test(test_empty_entries_ignored),
      cmocka_unit_test(test_current_directory_never_searched),
      cmocka_unit_test(test_duplicate_first_wins),
      cmocka_unit_test(test_only_so_files),
      cmocka_unit_test(test_global_registry_from_env),
      cmocka_unit_test(test_host_api),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
