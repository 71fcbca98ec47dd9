/*
 * core/base/json.c - the JSON reader and writer of tvm/json.h.
 *
 * The reader is a recursive-descent parser over the bytes, one pass,
 * linear in the input: every byte is looked at a bounded number of times,
 * items of an array or object are gathered on one scratch stack shared by
 * all levels and copied into the arena when the container closes.  Depth,
 * size and value count are limited before anything is allocated for them.
 * Errors carry the line and column (1-based, columns in bytes) of the
 * offending byte.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/json.h"

struct tvm_json_doc {
  tvm_arena *arena;
  tvm_json *root;
};

typedef struct parser {
  const char *p, *end, *start;
  tvm_arena *arena;
  tvm_json_limits lim;
  size_t nvalues;
  int depth;
  tvm_status st;
  /* scratch stack of items (and keys) of the open containers */
  void **stack;
  size_t sp, cap;
  tvm_strbuf sbuf; /* decoded string being read */
} parser;

/* Line and column of position q. */
static void where(const parser *ps, const char *q, int *line, int *col) {
  int l = 1, c = 1;
  for (const char *r = ps->start; r < q && r < ps->end; r++) {
    if (*r == '\n')
      l++, c = 1;
    else
      c++;
  }
  *line = l;
  *col = c;
}

/* Records the first error, at position q. */
static void *fail(parser *ps, const char *q, const char *what) {
  if (ps->st)
    return NULL;
  int line, col;
  where(ps, q, &line, &col);
  ps->st = tvm_diag_set(TVM_ERR_INVALID, "%d:%d: %s", line, col, what);
  return NULL;
}

static void *oom(parser *ps) {
  if (!ps->st)
    ps->st = tvm_diag_set(TVM_ERR_NOMEM, "JSON: out of memory");
  return NULL;
}

static void skip_ws(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
                             *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static int push(parser *ps, void *v) {
  if (ps->sp == ps->cap) {
    size_t nc = ps->cap ? ps->cap * 2 : 64;
    void **ns = tvm_realloc(ps->stack, nc * sizeof *ns);
    if (!ns)
      return 0;
    ps->stack = ns;
    ps->cap = nc;
  }
  ps->stack[ps->sp++] = v;
  return 1;
}

static tvm_json *new_value(parser *ps, tvm_json_type t) {
  if (++ps->nvalues > ps->lim.max_values)
    return fail(ps, ps->p, "too many values (limit reached)");
  tvm_json *v = tvm_arena_alloc(ps->arena, sizeof *v);
  if (!v)
    return oom(ps);
  memset(v, 0, sizeof *v);
  v->type = t;
  return v;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads 4 hex digits at ps->p (advancing); -1 on error. */
static long hex4(parser *ps) {
  if (ps->end - ps->p < 4)
    return -1;
  long v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexval(ps->p[i]);
    if (h < 0)
      return -1;
    v = v * 16 + h;
  }
  ps->p += 4;
  return v;
}

static void put_utf8(tvm_strbuf *b, unsigned long cp) {
  char o[4];
  size_t n;
  if (cp < 0x80) {
    o[0] = (char)cp, n = 1;
  } else if (cp < 0x800) {
    o[0] = (char)(0xC0 | (cp >> 6)), o[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
  } else if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12)), o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
  } else {
    o[0] = (char)(0xF0 | (cp >> 18)), o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  tvm_strbuf_appendn(b, o, n);
}

/* A string literal at ps->p (the opening quote); the decoded bytes are
 * copied into the arena: *len receives their count. */
static const char *parse_string(parser *ps, size_t *len) {
  const char *q0 = ps->p;
  ps->p++; /* '"' */
  ps->sbuf.len = 0;
  if (ps->sbuf.data)
    ps->sbuf.data[0] = '\0';
  tvm_strbuf_append(&ps->sbuf, "");
  for (;;) {
    const char *run = ps->p;
    while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\\' &&
           (unsigned char)*ps->p >= 0x20)
      ps->p++;
    tvm_strbuf_appendn(&ps->sbuf, run, (size_t)(ps->p - run));
    if (ps->p >= ps->end)
      return fail(ps, q0, "unterminated string");
    char c = *ps->p;
    if (c == '"') {
      ps->p++;
      break;
    }
    if (c != '\\')
      return fail(ps, ps->p, "control character in a string (escape it)");
    const char *esc = ps->p++;
    if (ps->p >= ps->end)
      return fail(ps, q0, "unterminated string");
    c = *ps->p++;
    switch (c) {
    case '"': tvm_strbuf_appendn(&ps->sbuf, "\"", 1); break;
    case '\\': tvm_strbuf_appendn(&ps->sbuf, "\\", 1); break;
    case '/': tvm_strbuf_appendn(&ps->sbuf, "/", 1); break;
    case 'b': tvm_strbuf_appendn(&ps->sbuf, "\b", 1); break;
    case 'f': tvm_strbuf_appendn(&ps->sbuf, "\f", 1); break;
    case 'n': tvm_strbuf_appendn(&ps->sbuf, "\n", 1); break;
    case 'r': tvm_strbuf_appendn(&ps->sbuf, "\r", 1); break;
    case 't': tvm_strbuf_appendn(&ps->sbuf, "\t", 1); break;
    case 'u': {
      long cp = hex4(ps);
      if (cp < 0)
        return fail(ps, esc, "bad \\u escape (needs 4 hex digits)");
      if (cp >= 0xDC00 && cp <= 0xDFFF)
        return fail(ps, esc, "lone low surrogate in \\u escape");
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u')
          return fail(ps, esc, "high surrogate not followed by a low one");
        ps->p += 2;
        long lo = hex4(ps);
        if (lo < 0xDC00 || lo > 0xDFFF)
          return fail(ps, esc, "high surrogate not followed by a low one");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      }
      put_utf8(&ps->sbuf, (unsigned long)cp);
      break;
    }
    default:
      return fail(ps, esc, "unknown escape in a string");
    }
  }
  if (ps->sbuf.oom)
    return oom(ps);
  char *s = tvm_arena_alloc(ps->arena, ps->sbuf.len + 1);
  if (!s)
    return oom(ps);
  memcpy(s, ps->sbuf.data, ps->sbuf.len + 1);
  *len = ps->sbuf.len;
  return s;
}

/* A number per RFC 8259 at ps->p. */
static tvm_json *parse_number(parser *ps) {
  const char *q = ps->p;
  int integer = 1;
  if (q < ps->end && *q == '-')
    q++;
  if (q >= ps->end || *q < '0' || *q > '9')
    return fail(ps, ps->p, "invalid number");
  if (*q == '0' && q + 1 < ps->end && q[1] >= '0' && q[1] <= '9')
    return fail(ps, ps->p, "number with a leading zero");
  while (q < ps->end && *q >= '0' && *q <= '9')
    q++;
  if (q < ps->end && *q == '.') {
    integer = 0;
    q++;
    if (q >= ps->end || *q < '0' || *q > '9')
      return fail(ps, q, "digit expected after '.'");
    while (q < ps->end && *q >= '0' && *q <= '9')
      q++;
  }
  if (q < ps->end && (*q == 'e' || *q == 'E')) {
    integer = 0;
    q++;
    if (q < ps->end && (*q == '+' || *q == '-'))
      q++;
    if (q >= ps->end || *q < '0' || *q > '9')
      return fail(ps, q, "digit expected in exponent");
    while (q < ps->end && *q >= '0' && *q <= '9')
      q++;
  }
  char tmp[64];
  size_t n = (size_t)(q - ps->p);
  tvm_json *v = new_value(ps, TVM_JSON_NUMBER);
  if (!v)
    return NULL;
  if (n < sizeof tmp) {
    memcpy(tmp, ps->p, n);
    tmp[n] = '\0';
    v->num = strtod(tmp, NULL);
    if (integer && n <= 18) { /* |v| < 1e18 fits int64 exactly */
      v->i = strtoll(tmp, NULL, 10);
      v->is_int = 1;
    }
  } else { /* a long literal: digits only matter up to double precision */
    char *big = tvm_malloc(n + 1);
    if (!big)
      return oom(ps);
    memcpy(big, ps->p, n);
    big[n] = '\0';
    v->num = strtod(big, NULL);
    tvm_free(big);
  }
  ps->p = q;
  return v;
}

static tvm_json *parse_value(parser *ps);

/* Matches the literal word at ps->p. */
static int word(parser *ps, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
    return 0;
  ps->p += n;
  return 1;
}

/* An array or object at ps->p (its opening bracket). */
static tvm_json *parse_container(parser *ps, int object) {
  const char *open = ps->p;
  char close = object ? '}' : ']';
  if (++ps->depth > ps->lim.max_depth)
    return fail(ps, open, "nesting too deep (limit reached)");
  tvm_json *v = new_value(ps, object ? TVM_JSON_OBJECT : TVM_JSON_ARRAY);
  if (!v)
    return NULL;
  size_t base = ps->sp;
  ps->p++;
  skip_ws(ps);
  if (ps->p < ps->end && *ps->p == close) {
    ps->p++;
  } else {
    for (;;) {
      skip_ws(ps);
      if (object) {
        size_t kl;
        if (ps->p >= ps->end || *ps->p != '"')
          return fail(ps, ps->p, "object key (a string) expected");
        const char *k = parse_string(ps, &kl);
        if (!k)
          return NULL;
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != ':')
          return fail(ps, ps->p, "':' expected after an object key");
        ps->p++;
        if (!push(ps, (void *)k))
          return oom(ps);
      }
      tvm_json *item = parse_value(ps);
      if (!item)
        return NULL;
      if (!push(ps, item))
        return oom(ps);
      skip_ws(ps);
      if (ps->p < ps->end && *ps->p == ',') {
        ps->p++;
        continue;
      }
      if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        break;
      }
      if (ps->p >= ps->end)
        return fail(ps, open, object ? "unterminated object"
                                     : "unterminated array");
      return fail(ps, ps->p, object ? "',' or '}' expected in an object"
                                    : "',' or ']' expected in an array");
    }
  }
  size_t cnt = ps->sp - base, n = object ? cnt / 2 : cnt;
  v->n = n;
  if (n) {
    v->items = tvm_arena_alloc(ps->arena, n * sizeof *v->items);
    if (object)
      v->keys = tvm_arena_alloc(ps->arena, n * sizeof *v->keys);
    if (!v->items || (object && !v->keys))
      return oom(ps);
    for (size_t i = 0; i < n; i++) {
      if (object) {
        v->keys[i] = ps->stack[base + 2 * i];
        v->items[i] = ps->stack[base + 2 * i + 1];
      } else {
        v->items[i] = ps->stack[base + i];
      }
    }
  }
  ps->sp = base;
  ps->depth--;
  return v;
}

static tvm_json *parse_value(parser *ps) {
  skip_ws(ps);
  if (ps->p >= ps->end)
    return fail(ps, ps->p, "value expected, found the end of the input");
  tvm_json *v;
  switch (*ps->p) {
  case '{':
    return parse_container(ps, 1);
  case '[':
    return parse_container(ps, 0);
  case '"': {
    size_t len;
    const char *s = parse_string(ps, &len);
    if (!s || !(v = new_value(ps, TVM_JSON_STRING)))
      return NULL;
    v->s = s;
    v->len = len;
    return v;
  }
  case 't':
  case 'f':
  case 'n': {
    const char *q = ps->p;
    int b = 0;
    tvm_json_type t;
    if (word(ps, "true"))
      t = TVM_JSON_BOOL, b = 1;
    else if (word(ps, "false"))
      t = TVM_JSON_BOOL;
    else if (word(ps, "null"))
      t = TVM_JSON_NULL;
    else
      return fail(ps, q, "unknown literal (true, false or null expected)");
    if (!(v = new_value(ps, t)))
      return NULL;
    v->b = b;
    return v;
  }
  default:
    if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
      return parse_number(ps);
    return fail(ps, ps->p, "unexpected character (a value was expected)");
  }
}

tvm_status tvm_json_parse(const char *text, size_t len,
                          const tvm_json_limits *limits, tvm_json_doc **out) {
  if (!out || (!text && len))
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_json_parse: NULL argument");
  *out = NULL;
  parser ps;
  memset(&ps, 0, sizeof ps);
  if (limits)
    ps.lim = *limits;
  if (!ps.lim.max_bytes)
    ps.lim.max_bytes = (size_t)16 << 20;
  if (ps.lim.max_depth <= 0)
    ps.lim.max_depth = 64;
  if (!ps.lim.max_values)
    ps.lim.max_values = 1000000;
  if (len > ps.lim.max_bytes)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "1:1: input of %zu bytes is over the limit of %zu",
                        len, ps.lim.max_bytes);
  ps.p = ps.start = text ? text : "";
  ps.end = ps.p + len;
  ps.arena = tvm_arena_create();
  tvm_strbuf_init(&ps.sbuf);
  if (!ps.arena)
    return tvm_diag_set(TVM_ERR_NOMEM, "JSON: out of memory");
  tvm_json *root = parse_value(&ps);
  if (root) {
    skip_ws(&ps);
    if (ps.p < ps.end)
      fail(&ps, ps.p, "trailing characters after the value");
  }
  tvm_free(ps.stack);
  tvm_strbuf_free(&ps.sbuf);
  if (ps.st || !root) {
    tvm_arena_destroy(ps.arena);
    return ps.st ? ps.st : tvm_diag_set(TVM_ERR_INTERNAL, "JSON: no value");
  }
  tvm_json_doc *d = tvm_arena_alloc(ps.arena, sizeof *d);
  if (!d) {
    tvm_arena_destroy(ps.arena);
    return tvm_diag_set(TVM_ERR_NOMEM, "JSON: out of memory");
  }
  d->arena = ps.arena;
  d->root = root;
  *out = d;
  return TVM_OK;
}

const tvm_json *tvm_json_root(const tvm_json_doc *d) {
  return d ? d->root : NULL;
}

void tvm_json_free(tvm_json_doc *d) {
  if (d)
    tvm_arena_destroy(d->arena); /* d lives in its own arena */
}

/* ---- member access ------------------------------------------------------- */

const tvm_json *tvm_json_get(const tvm_json *o, const char *key) {
  if (!o || o->type != TVM_JSON_OBJECT || !key)
    return NULL;
  for (size_t i = 0; i < o->n; i++)
    if (strcmp(o->keys[i], key) == 0)
      return o->items[i];
  return NULL;
}

const char *tvm_json_get_str(const tvm_json *o, const char *key,
                             const char *dflt) {
  const tvm_json *v = tvm_json_get(o, key);
  return v && v->type == TVM_JSON_STRING ? v->s : dflt;
}

double tvm_json_get_num(const tvm_json *o, const char *key, double dflt) {
  const tvm_json *v = tvm_json_get(o, key);
  return v && v->type == TVM_JSON_NUMBER ? v->num : dflt;
}

int64_t tvm_json_get_int(const tvm_json *o, const char *key, int64_t dflt) {
  const tvm_json *v = tvm_json_get(o, key);
  return v && v->type == TVM_JSON_NUMBER && v->is_int ? v->i : dflt;
}

/* ---- writer -------------------------------------------------------------- */

void tvm_json_w_str(tvm_strbuf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  tvm_strbuf_appendn(b, "\"", 1);
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *esc = NULL;
    char u[7];
    if (c == '"') esc = "\\\"";
    else if (c == '\\') esc = "\\\\";
    else if (c == '\n') esc = "\\n";
    else if (c == '\r') esc = "\\r";
    else if (c == '\t') esc = "\\t";
    else if (c < 0x20) {
      u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0';
      u[4] = hex[c >> 4], u[5] = hex[c & 15], u[6] = '\0';
      esc = u;
    }
    if (!esc)
      continue;
    tvm_strbuf_appendn(b, s + run, i - run);
    tvm_strbuf_append(b, esc);
    run = i + 1;
  }
  tvm_strbuf_appendn(b, s + run, n - run);
  tvm_strbuf_appendn(b, "\"", 1);
}

void tvm_json_w_int(tvm_strbuf *b, int64_t v) {
  tvm_strbuf_printf(b, "%lld", (long long)v);
}

void tvm_json_w_num(tvm_strbuf *b, double v) {
  if (!isfinite(v))
    tvm_strbuf_append(b, "null");
  else if (v == floor(v) && fabs(v) < 9e15)
    tvm_strbuf_printf(b, "%.0f", v);
  else
    tvm_strbuf_printf(b, "%.17g", v);
}

void tvm_json_w_key(tvm_strbuf *b, const char *key, int first) {
  if (!first)
    tvm_strbuf_appendn(b, ",", 1);
  tvm_json_w_str(b, key, strlen(key));
  tvm_strbuf_appendn(b, ":", 1);
}

void tvm_json_w_value(tvm_strbuf *b, const tvm_json *v) {
  if (!v) {
    tvm_strbuf_append(b, "null");
    return;
  }
  switch (v->type) {
  case TVM_JSON_NULL: tvm_strbuf_append(b, "null"); break;
  case TVM_JSON_BOOL: tvm_strbuf_append(b, v->b ? "true" : "false"); break;
  case TVM_JSON_NUMBER:
    if (v->is_int)
      tvm_json_w_int(b, v->i);
    else
      tvm_json_w_num(b, v->num);
    break;
  case TVM_JSON_STRING: tvm_json_w_str(b, v->s, v->len); break;
  case TVM_JSON_ARRAY:
    tvm_strbuf_appendn(b, "[", 1);
    for (size_t i = 0; i < v->n; i++) {
      if (i)
        tvm_strbuf_appendn(b, ",", 1);
      tvm_json_w_value(b, v->items[i]);
    }
    tvm_strbuf_appendn(b, "]", 1);
    break;
  case TVM_JSON_OBJECT:
    tvm_strbuf_appendn(b, "{", 1);
    for (size_t i = 0; i < v->n; i++) {
      tvm_json_w_key(b, v->keys[i], i == 0);
      tvm_json_w_value(b, v->items[i]);
    }
    tvm_strbuf_appendn(b, "}", 1);
    break;
  }
}
