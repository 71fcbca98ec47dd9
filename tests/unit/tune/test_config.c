/*
 * tests/unit/tune/test_config.c - define-by-run knobs: the split space of
 * 64 into 3 parts, defaults, choosing by name, the config string, and
 * the errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tvm/config.h"

/* A tiny template: two splits and a choice, asked in this order. */
static void run_template(tvm_config *cfg, int64_t tx[3], int64_t ty[2],
                         int64_t *vec) {
  assert_int_equal(tvm_cfg_split(cfg, "tile_x", 64, 3,
                                 (int64_t[]){-1, 8, 4}, tx),
                   TVM_OK);
  assert_int_equal(tvm_cfg_split(cfg, "tile_y", 12, 2, NULL, ty), TVM_OK);
  *vec = tvm_cfg_choice(cfg, "vec", (int64_t[]){4, 8, 16}, 3, 2);
}

static void test_split_space_64_3(void **state) {
  tvm_config *cfg = tvm_config_create();
  int64_t tx[3], ty[2], vec;
  run_template(cfg, tx, ty, &vec);
  assert_int_equal(tvm_config_nknobs(cfg), 3);
  const tvm_knob *k = tvm_config_knob(cfg, 0);
  assert_string_equal(k->name, "tile_x");
  assert_int_equal(k->kind, TVM_KNOB_SPLIT);
  assert_int_equal(k->nparts, 3);
  assert_int_equal(k->extent, 64);
  /* 64 = 2^6 into 3 ordered parts: C(6 + 2, 2) = 28 factorizations */
  assert_int_equal(k->nchoices, 28);
  for (int i = 0; i < k->nchoices; i++) {
    const int64_t *r = k->choices + 3 * i;
    assert_int_equal(r[0] * r[1] * r[2], 64);
    for (int j = 0; j < i; j++)
      assert_false(memcmp(r, k->choices + 3 * j, 3 * sizeof(int64_t)) == 0);
  }
  /* the order: inner parts ascending, the innermost fastest */
  assert_memory_equal(k->choices, ((int64_t[]){64, 1, 1}), 3 * sizeof(int64_t));
  assert_memory_equal(k->choices + 3, ((int64_t[]){32, 1, 2}),
                      3 * sizeof(int64_t));
  assert_memory_equal(k->choices + 3 * 6, ((int64_t[]){1, 1, 64}),
                      3 * sizeof(int64_t));
  assert_memory_equal(k->choices + 3 * 7, ((int64_t[]){32, 2, 1}),
                      3 * sizeof(int64_t));
  assert_memory_equal(k->choices + 3 * 27, ((int64_t[]){1, 64, 1}),
                      3 * sizeof(int64_t));
  /* the default {-1, 8, 4} is honoured */
  assert_memory_equal(tx, ((int64_t[]){2, 8, 4}), 3 * sizeof(int64_t));
  assert_int_equal(k->chosen, -1);
  assert_memory_equal(k->choices + 3 * k->dflt, tx, 3 * sizeof(int64_t));
  /* 12 into 2: divisors 1, 2, 3, 4, 6, 12; no default: the first */
  k = tvm_config_knob(cfg, 1);
  assert_int_equal(k->nchoices, 6);
  assert_memory_equal(ty, ((int64_t[]){12, 1}), 2 * sizeof(int64_t));
  assert_int_equal(vec, 16);
  assert_int_equal(tvm_config_knob(cfg, 2)->kind, TVM_KNOB_CHOICE);
  assert_null(tvm_config_knob(cfg, 3));
  char *s = tvm_config_str(cfg);
  assert_string_equal(s, "tile_x=[2,8,4] tile_y=[12,1] vec=16");
  tvm_free(s);
  tvm_config_free(cfg);
}

static void test_set_by_name(void **state) {
  tvm_config *cfg = tvm_config_create();
  int64_t tx[3], ty[2], vec;
  run_template(cfg, tx, ty, &vec);
  assert_int_equal(tvm_config_set(cfg, "tile_x", 7), TVM_OK);
  assert_int_equal(tvm_config_set(cfg, "tile_y", 4), TVM_OK);
  assert_int_equal(tvm_config_set(cfg, "vec", 0), TVM_OK);
  run_template(cfg, tx, ty, &vec);
  assert_memory_equal(tx, ((int64_t[]){32, 2, 1}), 3 * sizeof(int64_t));
  assert_memory_equal(ty, ((int64_t[]){2, 6}), 2 * sizeof(int64_t));
  assert_int_equal(vec, 4);
  assert_int_equal(tvm_config_nknobs(cfg), 3); /* not recorded twice */
  char *s = tvm_config_str(cfg);
  assert_string_equal(s, "tile_x=[32,2,1] tile_y=[2,6] vec=4");
  tvm_free(s);
  /* back to the default */
  assert_int_equal(tvm_config_set(cfg, "tile_x", -1), TVM_OK);
  run_template(cfg, tx, ty, &vec);
  assert_memory_equal(tx, ((int64_t[]){2, 8, 4}), 3 * sizeof(int64_t));
  /* errors: unknown name (with a suggestion), index out of range */
  assert_int_equal(tvm_config_set(cfg, "tile_z", 0), TVM_ERR_NOT_FOUND);
  assert_non_null(strstr(tvm_diag_message(), "did you mean tile_"));
  assert_int_equal(tvm_config_set(cfg, "tile_y", 6), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "tile_y has 6 entries"));
  tvm_config_free(cfg);
}

static void test_edge_cases(void **state) {
  tvm_config *cfg = tvm_config_create();
  int64_t out[4];
  /* a prime extent, one part, an extent of 1 */
  assert_int_equal(tvm_cfg_split(cfg, "p", 7, 2, (int64_t[]){1, 7}, out),
                   TVM_OK);
  assert_memory_equal(out, ((int64_t[]){1, 7}), 2 * sizeof(int64_t));
  assert_int_equal(tvm_config_knob(cfg, 0)->nchoices, 2);
  assert_int_equal(tvm_cfg_split(cfg, "one", 10, 1, NULL, out), TVM_OK);
  assert_int_equal(out[0], 10);
  assert_int_equal(tvm_cfg_split(cfg, "unit", 1, 4, NULL, out), TVM_OK);
  assert_memory_equal(out, ((int64_t[]){1, 1, 1, 1}), 4 * sizeof(int64_t));
  /* a default outside the space falls back to the first entry */
  assert_int_equal(tvm_cfg_split(cfg, "bad", 12, 2, (int64_t[]){5, 3}, out),
                   TVM_OK);
  assert_memory_equal(out, ((int64_t[]){12, 1}), 2 * sizeof(int64_t));
  /* the same name with another space is a template bug */
  assert_int_equal(tvm_cfg_split(cfg, "p", 8, 2, NULL, out), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "config split p"));
  assert_int_equal(tvm_cfg_split(cfg, "q", 0, 2, NULL, out), TVM_ERR_INVALID);
  /* a choice asked with a different space answers its own default */
  assert_int_equal(tvm_cfg_choice(cfg, "c", (int64_t[]){1, 2}, 2, 1), 2);
  assert_int_equal(tvm_cfg_choice(cfg, "c", (int64_t[]){5, 6, 7}, 3, 0), 5);
  /* without a config, knobs answer their defaults */
  assert_int_equal(tvm_cfg_split(NULL, "x", 64, 2, (int64_t[]){-1, 16}, out),
                   TVM_OK);
  assert_memory_equal(out, ((int64_t[]){4, 16}), 2 * sizeof(int64_t));
  assert_int_equal(tvm_cfg_choice(NULL, "y", (int64_t[]){3, 9}, 2, 1), 9);
  char *s = tvm_config_str(cfg);
  assert_string_equal(s, "p=[1,7] one=[10] unit=[1,1,1,1] bad=[12,1] c=2");
  tvm_free(s);
  tvm_config_free(cfg);
  s = tvm_config_str(NULL);
  assert_string_equal(s, "");
  tvm_free(s);
}

static long fail_at = -1, count;

/* The C allocator, refusing allocation number fail_at. */
static void *faulty_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (count++ == fail_at)
    return NULL;
  return realloc(ptr, nsize);
}

/* Every allocation of a template run and of the config string failing
 * once: the knobs still answer (their defaults), nothing crashes. */
static void test_out_of_memory(void **state) {
  tvm_set_allocator(faulty_alloc, NULL);
  long total = -1;
  for (fail_at = -1; fail_at < total || total < 0; fail_at++) {
    count = 0;
    tvm_config *cfg = tvm_config_create();
    int64_t tx[3] = {0}, ty[2] = {0};
    tvm_status r1 = tvm_cfg_split(cfg, "tile_x", 64, 3,
                                  (int64_t[]){-1, 8, 4}, tx);
    tvm_status r2 = tvm_cfg_split(cfg, "tile_y", 12, 2, NULL, ty);
    int64_t vec = tvm_cfg_choice(cfg, "vec", (int64_t[]){4, 8, 16}, 3, 2);
    assert_int_equal(vec, 16);
    assert_true(r1 == TVM_OK || r1 == TVM_ERR_NOMEM);
    assert_true(r2 == TVM_OK || r2 == TVM_ERR_NOMEM);
    if (r1 == TVM_OK)
      assert_memory_equal(tx, ((int64_t[]){2, 8, 4}), 3 * sizeof(int64_t));
    char *s = tvm_config_str(cfg);
    if (fail_at < 0) {
      assert_non_null(cfg);
      assert_string_equal(s, "tile_x=[2,8,4] tile_y=[12,1] vec=16");
      total = count;
    }
    tvm_free(s);
    tvm_config_free(cfg);
  }
  tvm_set_allocator(NULL, NULL);
}

/* Powers-of-two splits with a maximum, reorder, annotation and category
 * knobs, the product-space index, presets and rejection. */
static void test_knob_kinds_and_index(void **state) {
  (void)state;
  tvm_config *cfg = tvm_config_create();
  int64_t t[2];
  int order[3];
  /* 48 = 2^4 * 3: power-of-two inner parts up to 8 -> 1, 2, 4, 8 */
  assert_int_equal(tvm_cfg_split_ex(cfg, "blk", 48, 2, TVM_SPLIT_POW2, 8,
                                    (int64_t[]){-1, 4}, t), TVM_OK);
  assert_memory_equal(t, ((int64_t[]){12, 4}), sizeof t);
  assert_int_equal(tvm_config_knob(cfg, 0)->nchoices, 4);
  static const int perms[] = {0, 1, 2, 2, 1, 0};
  assert_int_equal(tvm_cfg_reorder(cfg, "ord", 3, perms, 2, 0, order), TVM_OK);
  assert_int_equal(order[0], 0);
  static const int anns[] = {TVM_ANN_NONE, TVM_ANN_UNROLL};
  assert_int_equal(tvm_cfg_annotate(cfg, "ann", anns, 2, 1), TVM_ANN_UNROLL);
  static const char *const pack[] = {"packed", "direct", "tiled"};
  assert_int_equal(tvm_cfg_category(cfg, "pack", pack, 3, 0), 0);
  assert_int_equal(tvm_config_space_size(cfg), 4 * 2 * 2 * 3);
  /* index: blk varies fastest */
  uint64_t idx = 3 + 4 * (1 + 2 * (0 + 2 * 2));
  assert_int_equal(tvm_config_set_index(cfg, idx), TVM_OK);
  assert_int_equal(tvm_config_index(cfg), idx);
  assert_int_equal(tvm_cfg_split_ex(cfg, "blk", 48, 2, TVM_SPLIT_POW2, 8,
                                    NULL, t), TVM_OK);
  assert_memory_equal(t, ((int64_t[]){6, 8}), sizeof t);
  assert_int_equal(tvm_cfg_reorder(cfg, "ord", 3, perms, 2, 0, order), TVM_OK);
  assert_int_equal(order[0], 2);
  assert_int_equal(tvm_cfg_annotate(cfg, "ann", anns, 2, 1), TVM_ANN_NONE);
  assert_int_equal(tvm_cfg_category(cfg, "pack", pack, 3, 0), 2);
  char *s = tvm_config_str(cfg);
  assert_string_equal(s, "blk=[6,8] ord=[2,1,0] ann=none pack=tiled");
  tvm_free(s);
  assert_int_equal(tvm_config_set_index(cfg, 48), TVM_ERR_INVALID);
  /* rejection until the next index */
  assert_null(tvm_config_rejected(cfg));
  tvm_cfg_reject(cfg, "block %d too big", 8);
  tvm_cfg_reject(cfg, "second reason");
  assert_string_equal(tvm_config_rejected(cfg), "block 8 too big");
  assert_int_equal(tvm_config_set_index(cfg, 0), TVM_OK);
  assert_null(tvm_config_rejected(cfg));
  /* a bad permutation is refused */
  assert_int_equal(tvm_cfg_reorder(cfg, "bad", 2, (int[]){0, 0}, 1, 0, order),
                   TVM_ERR_INVALID);
  tvm_config_free(cfg);

  /* presets: applied when the knob is first asked for */
  cfg = tvm_config_create();
  assert_int_equal(tvm_config_preset(cfg, "blk", 1), TVM_OK);
  assert_int_equal(tvm_config_preset(cfg, "gone", 0), TVM_OK);
  assert_int_equal(tvm_config_preset(cfg, "pack", 9), TVM_OK); /* stale */
  assert_int_equal(tvm_cfg_split_ex(cfg, "blk", 48, 2, TVM_SPLIT_POW2, 8,
                                    NULL, t), TVM_OK);
  assert_memory_equal(t, ((int64_t[]){24, 2}), sizeof t);
  assert_int_equal(tvm_cfg_category(cfg, "pack", pack, 3, 1), 1);
  assert_int_equal(tvm_config_presets_unused(cfg), 2);
  tvm_config_free(cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split_space_64_3),
      cmocka_unit_test(test_set_by_name),
      cmocka_unit_test(test_edge_cases),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_knob_kinds_and_index),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
