/*
 * tvm/json.h - a small JSON reader and writer (core/base/json.c), used by
 * the tuning logs (one JSON object per line).
 *
 * Why our own and not json-c or jansson: the logs are read back from files
 * a user may edit or truncate, so the reader must be fuzzable with hard
 * limits (input size, nesting depth, number of values) and must say where
 * an error is (line:column); it is ~400 lines, single pass, linear time,
 * and allocates the whole document in one arena, so a value tree is freed
 * in one call and a failure leaks nothing.  Neither Debian library gives
 * line:column for every error together with depth and size limits.
 *
 * Numbers are kept as doubles (and as int64 when they are integers that
 * fit); strings are UTF-8 with \uXXXX escapes decoded (surrogate pairs
 * joined; a lone surrogate is an error).  Object member order is kept;
 * duplicate keys are allowed and tvm_json_get answers the first.
 */
#ifndef TVM_JSON_H
#define TVM_JSON_H

#include "tvm/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TVM_JSON_NULL,
  TVM_JSON_BOOL,
  TVM_JSON_NUMBER,
  TVM_JSON_STRING,
  TVM_JSON_ARRAY,
  TVM_JSON_OBJECT
} tvm_json_type;

typedef struct tvm_json tvm_json;
/* One value.  Arrays and objects hold n items (objects: keys[i] names
 * items[i]).  Everything lives in the document's arena. */
struct tvm_json {
  tvm_json_type type;
  int is_int;     /* NUMBER: an integer that fits int64 (i is exact) */
  int b;          /* BOOL */
  double num;     /* NUMBER */
  int64_t i;      /* NUMBER when is_int */
  const char *s;  /* STRING (NUL-terminated; may contain \0 escapes: len) */
  size_t len;     /* STRING: bytes */
  size_t n;       /* ARRAY, OBJECT: items */
  tvm_json **items;
  const char **keys; /* OBJECT */
};

/* Limits of one parse; zero fields take the defaults noted. */
typedef struct tvm_json_limits {
  size_t max_bytes;  /* default 16 MiB */
  int max_depth;     /* default 64 */
  size_t max_values; /* default 1,000,000 */
} tvm_json_limits;

/* A parsed document: the root value and the arena owning everything. */
typedef struct tvm_json_doc tvm_json_doc;

/* Parses text[0..len) (exactly one value, surrounded only by white space).
 * On error returns TVM_ERR_INVALID (or TVM_ERR_NOMEM) with the diagnostic
 * "LINE:COL: what was wrong" (what = "JSON" prefix added by the caller).
 * limits may be NULL. */
TVM_API tvm_status tvm_json_parse(const char *text, size_t len,
                                  const tvm_json_limits *limits,
                                  tvm_json_doc **out);
TVM_API const tvm_json *tvm_json_root(const tvm_json_doc *d);
TVM_API void tvm_json_free(tvm_json_doc *d);

/* Member key of an object (first match), or NULL (also when o is no
 * object). */
TVM_API const tvm_json *tvm_json_get(const tvm_json *o, const char *key);
/* Typed member reads: the value, or dflt when absent / of another type. */
TVM_API const char *tvm_json_get_str(const tvm_json *o, const char *key,
                                     const char *dflt);
TVM_API double tvm_json_get_num(const tvm_json *o, const char *key,
                                double dflt);
TVM_API int64_t tvm_json_get_int(const tvm_json *o, const char *key,
                                 int64_t dflt);

/* ---- writing: append to a tvm_strbuf ------------------------------------
 * The writer emits compact JSON (no spaces).  The caller places commas
 * with tvm_json_w_sep or writes whole objects with the helpers. */
/* A JSON string literal of s (n bytes), escaped. */
TVM_API void tvm_json_w_str(tvm_strbuf *b, const char *s, size_t n);
/* A number: integers exactly, others with 17 significant digits;
 * NaN and infinities (no JSON form) are written as null. */
TVM_API void tvm_json_w_num(tvm_strbuf *b, double v);
TVM_API void tvm_json_w_int(tvm_strbuf *b, int64_t v);
/* "key": (with a leading comma unless first). */
TVM_API void tvm_json_w_key(tvm_strbuf *b, const char *key, int first);
/* Writes any value tree back (round trip of a parsed document). */
TVM_API void tvm_json_w_value(tvm_strbuf *b, const tvm_json *v);

#ifdef __cplusplus
}
#endif
#endif /* TVM_JSON_H */
