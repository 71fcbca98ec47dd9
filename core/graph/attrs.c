/*
 * core/graph/attrs.c - node attributes: the constructors the builder
 * takes, lookups on a node, the deep copy into a graph's arena, equality
 * (for common-subexpression elimination) and the text of a value (for the
 * printer).
 *
 * Constructors return structs that point at the caller's name, string and
 * array; tvm_graph_apply copies all of them into the graph's arena.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

/* An INT attribute. */
tvm_gattr tvm_gattr_int(const char *name, int64_t v) {
  tvm_gattr a = {0};
  a.name = name;
  a.type = TVM_GATTR_INT;
  a.i = v;
  return a;
}

/* A FLOAT attribute. */
tvm_gattr tvm_gattr_float(const char *name, double v) {
  tvm_gattr a = {0};
  a.name = name;
  a.type = TVM_GATTR_FLOAT;
  a.f = v;
  return a;
}

/* A STRING attribute (v is borrowed until the builder copies it). */
tvm_gattr tvm_gattr_str(const char *name, const char *v) {
  tvm_gattr a = {0};
  a.name = name;
  a.type = TVM_GATTR_STRING;
  a.s = v;
  return a;
}

/* An INTS attribute of n values (borrowed until copied). */
tvm_gattr tvm_gattr_ints(const char *name, const int64_t *v, int n) {
  tvm_gattr a = {0};
  a.name = name;
  a.type = TVM_GATTR_INTS;
  a.ints = v;
  a.n = n;
  return a;
}

/* A FLOATS attribute of n values (borrowed until copied). */
tvm_gattr tvm_gattr_floats(const char *name, const double *v, int n) {
  tvm_gattr a = {0};
  a.name = name;
  a.type = TVM_GATTR_FLOATS;
  a.floats = v;
  a.n = n;
  return a;
}

/* The attribute called name on n, or NULL. */
const tvm_gattr *tvm_gnode_attr(const tvm_gnode *n, const char *name) {
  if (!n || !name) return NULL;
  for (int i = 0; i < n->nattrs; i++)
    if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
  return NULL;
}

/* An INT attribute's value, or dflt when absent or of another type. */
int64_t tvm_gnode_int(const tvm_gnode *n, const char *name, int64_t dflt) {
  const tvm_gattr *a = tvm_gnode_attr(n, name);
  return a && a->type == TVM_GATTR_INT ? a->i : dflt;
}

/* A FLOAT (or INT, converted) attribute's value, or dflt. */
double tvm_gnode_float(const tvm_gnode *n, const char *name, double dflt) {
  const tvm_gattr *a = tvm_gnode_attr(n, name);
  if (!a) return dflt;
  if (a->type == TVM_GATTR_FLOAT) return a->f;
  if (a->type == TVM_GATTR_INT) return (double)a->i;
  return dflt;
}

/* A STRING attribute's value, or dflt. */
const char *tvm_gnode_str(const tvm_gnode *n, const char *name,
                          const char *dflt) {
  const tvm_gattr *a = tvm_gnode_attr(n, name);
  return a && a->type == TVM_GATTR_STRING ? a->s : dflt;
}

/* Length of an INTS attribute (and *v), or -1 when absent or of another
 * type (then *v is NULL). */
int tvm_gnode_ints(const tvm_gnode *n, const char *name, const int64_t **v) {
  const tvm_gattr *a = tvm_gnode_attr(n, name);
  if (v) *v = NULL;
  if (!a || a->type != TVM_GATTR_INTS) return -1;
  if (v) *v = a->ints;
  return a->n;
}

/* Every value of the INTS attribute `name` is 1 (absent: yes). */
static int all_ones(const tvm_gnode *n, const char *name) {
  const int64_t *a;
  int k = tvm_gnode_ints(n, name, &a);
  for (int i = 0; i < k; i++)
    if (a[i] != 1) return 0;
  return 1;
}

/* See tvm/graph.h. */
int tvm_gnode_winograd_applies(const tvm_gnode *n) {
  int64_t xs[TVM_MAX_DIMS], ws[TVM_MAX_DIMS];
  const int64_t *p;
  if (!n || strcmp(tvm_gnode_op_name(n), "Conv") != 0 ||
      tvm_gnode_input_shape(n, 0, xs) != 4 ||
      tvm_gnode_input_shape(n, 1, ws) != 4 || ws[2] != 3 || ws[3] != 3 ||
      ws[1] != xs[1] || tvm_gnode_int(n, "group", 1) != 1 ||
      !all_ones(n, "strides") || !all_ones(n, "dilations"))
    return 0;
  /* SAME_* pads a 3x3 stride-1 window by 1 on each side; VALID by 0 */
  const char *ap = tvm_gnode_str(n, "auto_pad", "NOTSET");
  if (strcmp(ap, "NOTSET") != 0)
    return strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0 ||
           strcmp(ap, "VALID") == 0;
  int np = tvm_gnode_ints(n, "pads", &p);
  return np < 0 || (np == 4 && p[0] == p[2] && p[1] == p[3]);
}

/* See tvm/graph.h. */
int tvm_gnode_flat_pixels_applies(const tvm_gnode *n) {
  int64_t xs[TVM_MAX_DIMS], ws[TVM_MAX_DIMS], os[TVM_MAX_DIMS];
  return n && strcmp(tvm_gnode_op_name(n), "Conv") == 0 &&
         tvm_gnode_input_shape(n, 0, xs) == 4 &&
         tvm_gnode_input_shape(n, 1, ws) == 4 && ws[1] == xs[1] &&
         tvm_gnode_int(n, "group", 1) == 1 &&
         tvm_gnode_output_shape(n, 0, os) == 4;
}

/* Copies src[0..n) into the arena, checking names, types and arrays. */
tvm_status graph_attrs_copy(tvm_arena *ar, const char *node,
                            const tvm_gattr *src, int n, tvm_gattr **out) {
  *out = NULL;
  if (n < 0 || (n > 0 && !src))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s': attribute array is NULL for %d attributes",
                        node, n);
  if (n == 0) return TVM_OK;
  tvm_gattr *d = tvm_arena_alloc(ar, sizeof(tvm_gattr) * (size_t)n);
  if (!d) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory copying attributes");
  for (int i = 0; i < n; i++) {
    const tvm_gattr *s = &src[i];
    if (!s->name || !s->name[0])
      return tvm_diag_set(TVM_ERR_INVALID,
                          "node '%s': attribute %d has no name", node, i);
    for (int j = 0; j < i; j++)
      if (strcmp(src[j].name, s->name) == 0)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "node '%s': attribute '%s' given twice; keep one",
                            node, s->name);
    d[i] = *s;
    d[i].name = tvm_arena_strdup(ar, s->name);
    if (!d[i].name) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory copying attributes");
    switch (s->type) {
    case TVM_GATTR_INT:
    case TVM_GATTR_FLOAT:
      break;
    case TVM_GATTR_STRING:
      if (!s->s)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "node '%s': string attribute '%s' is NULL", node,
                            s->name);
      d[i].s = tvm_arena_strdup(ar, s->s);
      if (!d[i].s) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory copying attributes");
      break;
    case TVM_GATTR_INTS:
    case TVM_GATTR_FLOATS: {
      int is_int = s->type == TVM_GATTR_INTS;
      const void *arr = is_int ? (const void *)s->ints : (const void *)s->floats;
      if (s->n < 0 || (s->n > 0 && !arr))
        return tvm_diag_set(TVM_ERR_INVALID,
                            "node '%s': attribute '%s' has %d values but no "
                            "array",
                            node, s->name, s->n);
      size_t bytes = (size_t)s->n * (is_int ? sizeof(int64_t) : sizeof(double));
      void *copy = tvm_arena_alloc(ar, bytes ? bytes : 1);
      if (!copy) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory copying attributes");
      if (bytes) memcpy(copy, arr, bytes);
      if (is_int)
        d[i].ints = copy;
      else
        d[i].floats = copy;
      break;
    }
    default:
      return tvm_diag_set(TVM_ERR_INVALID,
                          "node '%s': attribute '%s' has unknown type %d; build "
                          "it with tvm_gattr_int/float/str/ints/floats",
                          node, s->name, (int)s->type);
    }
  }
  *out = d;
  return TVM_OK;
}

/* Same type and bit-identical value. */
static int attr_equal(const tvm_gattr *a, const tvm_gattr *b) {
  if (a->type != b->type) return 0;
  switch (a->type) {
  case TVM_GATTR_INT: return a->i == b->i;
  case TVM_GATTR_FLOAT: return memcmp(&a->f, &b->f, sizeof(double)) == 0;
  case TVM_GATTR_STRING: return strcmp(a->s, b->s) == 0;
  case TVM_GATTR_INTS:
    return a->n == b->n &&
           (a->n == 0 || memcmp(a->ints, b->ints, sizeof(int64_t) * (size_t)a->n) == 0);
  case TVM_GATTR_FLOATS:
    return a->n == b->n &&
           (a->n == 0 || memcmp(a->floats, b->floats, sizeof(double) * (size_t)a->n) == 0);
  }
  return 0;
}

/* Same set of attributes, in any order (names are unique on a node). */
int graph_attrs_equal(const tvm_gnode *a, const tvm_gnode *b) {
  if (a->nattrs != b->nattrs) return 0;
  for (int i = 0; i < a->nattrs; i++) {
    const tvm_gattr *o = tvm_gnode_attr(b, a->attrs[i].name);
    if (!o || !attr_equal(&a->attrs[i], o)) return 0;
  }
  return 1;
}

/* Shortest decimal form that reads back as the same value: the float32
 * form when v is exactly a float32 (ONNX attributes are), else the double
 * form; always with a '.' or an exponent so it never reads as an int. */
static void print_float(tvm_strbuf *b, double v) {
  char buf[40];
  if (isnan(v)) {
    tvm_strbuf_append(b, "nan");
    return;
  }
  if (isinf(v)) {
    tvm_strbuf_append(b, v < 0 ? "-inf" : "inf");
    return;
  }
  int is_f32 = (double)(float)v == v;
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (is_f32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
  }
  tvm_strbuf_append(b, buf);
  if (!strpbrk(buf, ".e")) tvm_strbuf_append(b, ".0");
}

/* A string in double quotes with \", \\ and \xNN escapes. */
static void print_quoted(tvm_strbuf *b, const char *s) {
  tvm_strbuf_append(b, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      tvm_strbuf_printf(b, "\\%c", c);
    else if (c < 0x20 || c == 0x7f)
      tvm_strbuf_printf(b, "\\x%02x", c);
    else
      tvm_strbuf_appendn(b, s, 1);
  }
  tvm_strbuf_append(b, "\"");
}

/* The value of at as the printer shows it. */
void graph_attr_value_print(tvm_strbuf *b, const tvm_gattr *at) {
  switch (at->type) {
  case TVM_GATTR_INT:
    tvm_strbuf_printf(b, "%lld", (long long)at->i);
    break;
  case TVM_GATTR_FLOAT:
    print_float(b, at->f);
    break;
  case TVM_GATTR_STRING:
    print_quoted(b, at->s);
    break;
  case TVM_GATTR_INTS:
  case TVM_GATTR_FLOATS:
    tvm_strbuf_append(b, "[");
    for (int i = 0; i < at->n; i++) {
      if (i) tvm_strbuf_append(b, ", ");
      if (at->type == TVM_GATTR_INTS)
        tvm_strbuf_printf(b, "%lld", (long long)at->ints[i]);
      else
        print_float(b, at->floats[i]);
    }
    tvm_strbuf_append(b, "]");
    break;
  default:
    tvm_strbuf_append(b, "?");
  }
}
