/*
 * tests/unit/target/test_target_yaml.c - target files: a valid one and
 * every kind of error (unknown key with its suggestion, wrong type, out
 * of range, bad choice, malformed YAML, missing fields, missing plugin),
 * each naming file:line:column; lookup by name and path.
 *
 * The plugin is the "fake" test plugin of tests/abi, whose schema is
 * num_threads INT [0,1024]=0, mode STRING fast|slow=fast,
 * scale FLOAT [0.5,4]=1.0, debug BOOL=false, block INT [1,64] required.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../abi/abi_util.h"
#include "tvm/runtime.h"
#include "tvm/target.h"

static tvm_plugin_registry *reg;
static char dir[256];

static int setup(void **state) {
  char plugins[4096];
  const char *b = getenv("TVM_BUILDDIR");
  snprintf(plugins, sizeof plugins, "%s/tests/abi/plugins/.libs",
           b ? b : ".");
  if (tvm_plugin_registry_create(plugins, 0, &reg) != TVM_OK) return -1;
  if (tvm_plugin_registry_find(reg, "fake") == NULL) return -1;
  util_tmpdir(dir, sizeof dir);
  return 0;
}

static int teardown(void **state) {
  tvm_plugin_registry_free(reg);
  util_rmdir(dir);
  return 0;
}

/* Writes text to dir/name and loads it; returns the status and leaves
 * the path in path (for building expected messages). */
static tvm_status load_text(const char *name, const char *text,
                            tvm_target **t, char *path, size_t cap) {
  util_write(dir, name, text, path, cap);
  *t = NULL;
  return tvm_target_load_with(reg, path, t);
}

/* Asserts that loading text fails with st and a message starting with
 * "<path>:<line>:<col>: " and containing each fragment. */
static void expect_error(const char *text, tvm_status st, int line, int col,
                         const char *frag1, const char *frag2) {
  char path[1024], prefix[1200];
  tvm_target *t;
  assert_int_equal(load_text("bad.yaml", text, &t, path, sizeof path), st);
  assert_null(t);
  const char *msg = tvm_diag_message();
  snprintf(prefix, sizeof prefix, "%s:%d:%d: ", path, line, col);
  if (strncmp(msg, prefix, strlen(prefix)) != 0 ||
      (frag1 && !strstr(msg, frag1)) || (frag2 && !strstr(msg, frag2))) {
    fail_msg("message '%s'\nexpected prefix '%s' and '%s' '%s'", msg, prefix,
             frag1 ? frag1 : "", frag2 ? frag2 : "");
  }
}

static void test_valid_target(void **state) {
  char path[1024];
  tvm_target *t;
  assert_int_equal(
      load_text("ok.yaml",
                "# a comment\n"
                "name: my-fake\n"
                "plugin: fake\n"
                "keys: [accel, int8]\n"
                "attrs:\n"
                "  block: 16\n"
                "  mode: slow\n"
                "  scale: 2.5\n"
                "tuning: {number: 7, repeat: 2}\n",
                &t, path, sizeof path),
      TVM_OK);
  assert_string_equal(t->name, "my-fake");
  assert_string_equal(t->plugin_name, "fake");
  assert_string_equal(t->path, path);
  assert_int_equal(t->nkeys, 2);
  assert_string_equal(t->keys[1], "int8");
  assert_true(tvm_target_has_key(t, "accel"));
  assert_false(tvm_target_has_key(t, "cpu"));
  assert_int_equal(t->nattrs, 5);
  assert_string_equal(t->attrs[0].name, "num_threads"); /* schema order */
  assert_int_equal(t->attrs[0].i, 0);                   /* default */
  assert_int_equal(t->attrs[0].type, TVM_PLUGIN_ATTR_INT);
  assert_string_equal(tvm_target_attr(t, "mode")->s, "slow");
  assert_true(tvm_target_attr(t, "scale")->f == 2.5);
  assert_int_equal(tvm_target_attr(t, "debug")->i, 0);
  assert_int_equal(tvm_target_attr(t, "block")->i, 16);
  assert_null(tvm_target_attr(t, "nope"));
  assert_int_equal(t->tuning.number, 7);
  assert_int_equal(t->tuning.repeat, 2);
  assert_int_equal(t->tuning.min_repeat_ms, 50); /* default */
  assert_int_equal(t->tuning.timeout_s, 10);
  assert_non_null(t->instance);
  assert_string_equal(tvm_target_info(t)->description, "fake test target");
  assert_int_equal(tvm_target_probe(t), TVM_OK);

  tvm_lower_options o;
  tvm_target_lower_options(t, &o);
  assert_int_equal(o.vector_bits, 256);
  assert_int_equal(o.has_threads, 0);
  assert_int_equal(o.num_queues, 1);
  assert_int_equal(o.unroll_max_extent, 8);
  assert_int_equal(o.nscopes, 2);
  assert_string_equal(o.scopes[1].name, "fake.sram");
  assert_int_equal(o.scopes[1].size_bytes, 4096);
  assert_int_equal(o.scopes[1].visibility, TVM_VIS_BLOCK);
  assert_int_equal(o.scopes[1].queue, 0);
  tvm_target_free(t);
}

static void test_bool_and_float_spellings(void **state) {
  char path[1024];
  tvm_target *t;
  assert_int_equal(load_text("b.yaml",
                             "name: b\nplugin: fake\n"
                             "attrs: {block: 1, debug: yes, scale: 4}\n",
                             &t, path, sizeof path),
                   TVM_OK);
  assert_int_equal(tvm_target_attr(t, "debug")->i, 1);
  assert_true(tvm_target_attr(t, "scale")->f == 4.0);
  tvm_target_free(t);
}

static void test_unknown_attr_suggests(void **state) {
  expect_error("name: x\nplugin: fake\nattrs:\n  block: 2\n  num_thread: 4\n",
               TVM_ERR_INVALID, 5, 3, "unknown attribute 'num_thread'",
               "did you mean 'num_threads'?");
}

static void test_unknown_top_level_key(void **state) {
  expect_error("name: x\nplugin: fake\natrs: {block: 2}\n", TVM_ERR_INVALID,
               3, 1, "unknown key 'atrs'", "did you mean 'attrs'?");
}

static void test_unknown_tuning_key(void **state) {
  expect_error("name: x\nplugin: fake\nattrs: {block: 2}\n"
               "tuning: {numbr: 3}\n",
               TVM_ERR_INVALID, 4, 10, "unknown tuning key 'numbr'",
               "did you mean 'number'?");
}

static void test_wrong_type(void **state) {
  expect_error("name: x\nplugin: fake\nattrs: {block: 2, num_threads: many}\n",
               TVM_ERR_INVALID, 3, 32, "attrs.num_threads",
               "expected an integer, got 'many'");
  expect_error("name: x\nplugin: fake\nattrs: {block: 2, debug: maybe}\n",
               TVM_ERR_INVALID, 3, 26, "expected a boolean", NULL);
  expect_error("name: x\nplugin: fake\nattrs: {block: [1, 2]}\n",
               TVM_ERR_INVALID, 3, 16, "attrs.block: expected an integer",
               "got a list");
  expect_error("name: [x]\nplugin: fake\n", TVM_ERR_INVALID, 1, 7,
               "name: expected a name", NULL);
}

static void test_out_of_range(void **state) {
  expect_error("name: x\nplugin: fake\nattrs:\n  block: 65\n",
               TVM_ERR_INVALID, 4, 10, "attrs.block: 65 is out of range",
               "[1, 64]");
  expect_error("name: x\nplugin: fake\nattrs: {block: 2, scale: 0.25}\n",
               TVM_ERR_INVALID, 3, 26, "0.25 is out of range", NULL);
  expect_error("name: x\nplugin: fake\nattrs: {block: 2}\ntuning: {repeat: 0}\n",
               TVM_ERR_INVALID, 4, 18, "tuning.repeat", "out of range");
}

static void test_bad_choice(void **state) {
  expect_error("name: x\nplugin: fake\nattrs: {block: 2, mode: fsat}\n",
               TVM_ERR_INVALID, 3, 25, "'fsat' is not one of its choices",
               "did you mean 'fast'?");
}

static void test_malformed_yaml(void **state) {
  expect_error("name: x\nplugin: fake\nattrs: {block: 2\n", TVM_ERR_INVALID,
               4, 1, "malformed YAML", NULL);
  expect_error("name: x\n  plugin: fake\n", TVM_ERR_INVALID, 2, 9,
               "malformed YAML", NULL);
  expect_error("- a\n- b\n", TVM_ERR_INVALID, 1, 1, "is a mapping", NULL);
  expect_error("name: x\nname: y\nplugin: fake\n", TVM_ERR_INVALID, 2, 1,
               "duplicate key 'name'", NULL);
}

static void test_empty_file(void **state) {
  expect_error("# nothing\n", TVM_ERR_INVALID, 1, 1, "empty", NULL);
}

static void test_missing_fields(void **state) {
  expect_error("name: x\nattrs: {block: 2}\n", TVM_ERR_INVALID, 1, 1,
               "missing required field 'plugin'", NULL);
  expect_error("plugin: fake\n", TVM_ERR_INVALID, 1, 1,
               "missing required field 'name'", NULL);
  expect_error("name: x\nplugin: fake\nattrs: {mode: slow}\n",
               TVM_ERR_INVALID, 3, 8, "missing required attribute 'block'",
               "required: block size");
  expect_error("name: x\nplugin: fake\n", TVM_ERR_INVALID, 1, 1,
               "missing required attribute 'block'", NULL);
}

static void test_missing_plugin(void **state) {
  expect_error("name: x\nplugin: fak\nattrs: {block: 2}\n", TVM_ERR_NOT_FOUND,
               2, 9, "plugin 'fak' not found", "did you mean 'fake'?");
}

/* A plugin refusing a target in target_create: its message, prefixed
 * with the file and the target. */
static void test_plugin_refuses(void **state) {
  char path[1024], want[1200];
  tvm_target *t;
  assert_int_equal(load_text("r.yaml", "name: r\nplugin: fake\nattrs: {block: 13}\n",
                             &t, path, sizeof path),
                   TVM_ERR_INVALID);
  assert_null(t);
  snprintf(want, sizeof want,
           "%s: plugin 'fake' refused target 'r': fake: block 13 is unlucky",
           path);
  assert_string_equal(tvm_diag_message(), want);
}

/* Odd documents: each fails cleanly (or loads), never crashes. */
static void test_odd_documents(void **state) {
  static const char *const docs[] = {
      "*a\n",
      "name: &n x\nplugin: fake\nattrs: {block: 2}\nkeys: [*n]\n",
      "name: !!binary aGVsbG8=\nplugin: fake\nattrs: {block: 2}\n",
      "name: x\nplugin: fake\nattrs: {block: 99999999999999999999}\n",
      "name: x\nplugin: fake\nattrs: {block: ~}\n",
      "name: ''\nplugin: fake\n",
      "\t\n",
      "\xff\xfe\x00\x01",
      "name: x\nplugin: fake\nattrs: {block: 2}\n---\nname: y\n",
      "? [a]\n: b\nname: x\nplugin: fake\n",
      "name: x\nplugin: fake\nkeys: {a: b}\n",
      "name: x\nplugin: fake\nkeys: [[a]]\n",
      "name: x\nplugin: fake\ntuning: [1]\n",
      "name: x\nplugin: fake\ntuning: {number: 1e9}\n",
      "name: x\nplugin: fake\nattrs: {block: 2, mode: {a: 1}}\n",
      "name: x\nplugin: fake\nattrs: [block, 2]\n",
      "name: x\nplugin: fake\nattrs: {block: 2, scale: nan}\n",
      "name: x\nplugin: fake\nattrs: {block: 2, scale: 1e999}\n",
      "name: x\nplugin: fake\nattrs: {block: '  2'}\n",
      "name: x\nplugin: [fake]\n",
      "",
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    char path[1024];
    tvm_target *t = NULL;
    tvm_status st = load_text("odd.yaml", docs[i], &t, path, sizeof path);
    if (st == TVM_OK) {
      assert_non_null(t);
      tvm_target_free(t);
    } else {
      assert_null(t);
      assert_true(strlen(tvm_diag_message()) > 0);
      /* every message names the file */
      assert_non_null(strstr(tvm_diag_message(), path));
    }
  }
  /* hex integers are integers; a multi-document file uses the first */
  char path[1024];
  tvm_target *t;
  assert_int_equal(load_text("hex.yaml",
                             "name: x\nplugin: fake\nattrs: {block: 0x10}\n"
                             "---\nname: y\n",
                             &t, path, sizeof path),
                   TVM_OK);
  assert_int_equal(tvm_target_attr(t, "block")->i, 16);
  assert_string_equal(t->name, "x");
  tvm_target_free(t);
}

static void test_unreadable_file(void **state) {
  tvm_target *t = NULL;
  char path[1024];
  snprintf(path, sizeof path, "%s/does-not-exist.yaml", dir);
  assert_int_equal(tvm_target_load_with(reg, path, &t), TVM_ERR_NOT_FOUND);
  assert_null(t);
  assert_non_null(strstr(tvm_diag_message(), path));
}

static void test_probe_unavailable(void **state) {
  char path[1024];
  tvm_target *t;
  assert_int_equal(load_text("p.yaml", "name: p\nplugin: fake\nattrs: {block: 3}\n",
                             &t, path, sizeof path),
                   TVM_OK);
  setenv("FAKE_UNAVAILABLE", "1", 1);
  assert_int_equal(tvm_target_probe(t), TVM_ERR_UNAVAILABLE);
  assert_string_equal(tvm_diag_message(),
                      "fake device missing: unset FAKE_UNAVAILABLE");
  tvm_device *d = NULL;
  assert_int_equal(tvm_device_open(t, &d), TVM_ERR_UNAVAILABLE);
  assert_null(d);
  unsetenv("FAKE_UNAVAILABLE");
  assert_int_equal(tvm_target_probe(t), TVM_OK);
  tvm_target_free(t);
}

/* Lookup by name: <name>.yaml in $TVM_TARGET_PATH, else a file whose
 * name: matches; unknown names suggest the nearest. */
static void test_lookup_by_name(void **state) {
  char path[1024], list[1024], sub[1024];
  snprintf(sub, sizeof sub, "%s/sub", dir);
  mkdir(sub, 0755);
  char saved_dir[256];
  memcpy(saved_dir, dir, sizeof dir);
  memcpy(dir, sub, strlen(sub) + 1);
  util_write(dir, "alpha.yaml", "name: alpha\nplugin: fake\nattrs: {block: 5}\n",
             path, sizeof path);
  util_write(dir, "other-file.yaml",
             "name: beta\nplugin: fake\nattrs: {block: 6}\n", path,
             sizeof path);
  memcpy(dir, saved_dir, sizeof dir);
  snprintf(list, sizeof list, "::%s:", sub);
  setenv("TVM_TARGET_PATH", list, 1);
  setenv("TVM_NO_INSTALLED", "1", 1);
  tvm_target *t = NULL;
  assert_int_equal(tvm_target_load_with(reg, "alpha", &t), TVM_OK);
  assert_int_equal(tvm_target_attr(t, "block")->i, 5);
  tvm_target_free(t);
  assert_int_equal(tvm_target_load_with(reg, "beta", &t), TVM_OK);
  assert_int_equal(tvm_target_attr(t, "block")->i, 6);
  tvm_target_free(t);
  assert_int_equal(tvm_target_load_with(reg, "alpah", &t), TVM_ERR_NOT_FOUND);
  assert_null(t);
  assert_non_null(strstr(tvm_diag_message(), "target 'alpah' not found"));
  assert_non_null(strstr(tvm_diag_message(), "did you mean 'alpha'?"));
  char *dirs = tvm_target_search_dirs();
  assert_string_equal(dirs, sub);
  tvm_free(dirs);
  unsetenv("TVM_TARGET_PATH");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_target),
      cmocka_unit_test(test_bool_and_float_spellings),
      cmocka_unit_test(test_unknown_attr_suggests),
      cmocka_unit_test(test_unknown_top_level_key),
      cmocka_unit_test(test_unknown_tuning_key),
      cmocka_unit_test(test_wrong_type),
      cmocka_unit_test(test_out_of_range),
      cmocka_unit_test(test_bad_choice),
      cmocka_unit_test(test_malformed_yaml),
      cmocka_unit_test(test_empty_file),
      cmocka_unit_test(test_missing_fields),
      cmocka_unit_test(test_missing_plugin),
      cmocka_unit_test(test_plugin_refuses),
      cmocka_unit_test(test_odd_documents),
      cmocka_unit_test(test_unreadable_file),
      cmocka_unit_test(test_probe_unavailable),
      cmocka_unit_test(test_lookup_by_name),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
