/*
 * tests/unit/base/test_json.c - the JSON reader and writer: values of
 * every type, escapes and surrogates, errors with line:column, the depth
 * and size limits, and a parse -> write -> parse round trip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tvm/json.h"

static tvm_json_doc *parse_ok(const char *s) {
  tvm_json_doc *d = NULL;
  tvm_status st = tvm_json_parse(s, strlen(s), NULL, &d);
  if (st)
    fail_msg("parse of %s failed: %s", s, tvm_diag_message());
  return d;
}

/* Parses s expecting an error whose message starts with want. */
static void parse_err(const char *s, const char *want) {
  tvm_json_doc *d = NULL;
  assert_int_equal(tvm_json_parse(s, strlen(s), NULL, &d), TVM_ERR_INVALID);
  assert_null(d);
  if (strncmp(tvm_diag_message(), want, strlen(want)) != 0)
    fail_msg("%s: got '%s', want '%s...'", s, tvm_diag_message(), want);
}

static void test_values(void **state) {
  (void)state;
  tvm_json_doc *d = parse_ok(
      " {\"a\": [1, -2.5e1, true, false, null], \"s\": \"x\\n\\u00e9\\ud83d\\ude00\","
      " \"o\": {}, \"e\": [], \"big\": 12345678901234567890}\n");
  const tvm_json *r = tvm_json_root(d);
  assert_int_equal(r->type, TVM_JSON_OBJECT);
  assert_int_equal(r->n, 5);
  const tvm_json *a = tvm_json_get(r, "a");
  assert_int_equal(a->n, 5);
  assert_true(a->items[0]->is_int);
  assert_int_equal(a->items[0]->i, 1);
  assert_false(a->items[1]->is_int);
  assert_true(a->items[1]->num == -25.0);
  assert_int_equal(a->items[2]->type, TVM_JSON_BOOL);
  assert_int_equal(a->items[2]->b, 1);
  assert_int_equal(a->items[4]->type, TVM_JSON_NULL);
  assert_string_equal(tvm_json_get_str(r, "s", NULL),
                      "x\n\xc3\xa9\xf0\x9f\x98\x80");
  assert_int_equal(tvm_json_get(r, "o")->n, 0);
  assert_false(tvm_json_get(r, "big")->is_int); /* does not fit int64 */
  assert_true(tvm_json_get_num(r, "big", 0) > 1.2e19);
  assert_null(tvm_json_get(r, "missing"));
  assert_int_equal(tvm_json_get_int(r, "s", 7), 7); /* wrong type: dflt */
  tvm_json_free(d);
}

static void test_errors(void **state) {
  (void)state;
  parse_err("", "1:1: value expected");
  parse_err("{\"a\":1,\n  \"b\" 2}", "2:7: ':' expected");
  parse_err("[1,2", "1:1: unterminated array");
  parse_err("[1 2]", "1:4: ',' or ']' expected");
  parse_err("{\"a\":1}x", "1:8: trailing characters");
  parse_err("\"abc", "1:1: unterminated string");
  parse_err("\"a\\q\"", "1:3: unknown escape");
  parse_err("\"\\ud800x\"", "1:2: high surrogate");
  parse_err("\"\\udc00\"", "1:2: lone low surrogate");
  parse_err("01", "1:1: number with a leading zero");
  parse_err("1.", "1:3: digit expected after '.'");
  parse_err("tru", "1:1: unknown literal");
  parse_err("\"a\tb\"", "1:3: control character");
  parse_err("{1:2}", "1:2: object key");
}

static void test_limits(void **state) {
  (void)state;
  char deep[200];
  memset(deep, '[', 100);
  memset(deep + 100, ']', 100);
  tvm_json_doc *d = NULL;
  assert_int_equal(tvm_json_parse(deep, 200, NULL, &d), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "nesting too deep"));
  tvm_json_limits lim = {.max_depth = 200};
  assert_int_equal(tvm_json_parse(deep, 200, &lim, &d), TVM_OK);
  tvm_json_free(d);
  tvm_json_limits small = {.max_bytes = 10};
  assert_int_equal(tvm_json_parse(deep, 200, &small, &d), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "over the limit"));
  tvm_json_limits few = {.max_values = 3};
  const char *four = "[1,2,3]";
  assert_int_equal(tvm_json_parse(four, strlen(four), &few, &d),
                   TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "too many values"));
}

static void test_round_trip(void **state) {
  (void)state;
  const char *src = "{\"k\":\"q\\\"\\\\\\u0001\",\"n\":[0.1,-3,1e300,{\"x\":[]}],"
                    "\"t\":true}";
  tvm_json_doc *d = parse_ok(src);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_json_w_value(&b, tvm_json_root(d));
  assert_string_equal(b.data, "{\"k\":\"q\\\"\\\\\\u0001\",\"n\":[0.10000000000000001,"
                              "-3,1.0000000000000001e+300,{\"x\":[]}],\"t\":true}");
  tvm_json_doc *d2 = parse_ok(b.data);
  tvm_strbuf b2;
  tvm_strbuf_init(&b2);
  tvm_json_w_value(&b2, tvm_json_root(d2));
  assert_string_equal(b.data, b2.data);
  assert_true(tvm_json_get(tvm_json_root(d2), "n")->items[0]->num == 0.1);
  tvm_strbuf_free(&b);
  tvm_strbuf_free(&b2);
  tvm_json_free(d);
  tvm_json_free(d2);
  /* NaN has no JSON form */
  tvm_strbuf_init(&b);
  tvm_json_w_num(&b, 0.0 / 0.0);
  assert_string_equal(b.data, "null");
  tvm_strbuf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_limits),
      cmocka_unit_test(test_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
