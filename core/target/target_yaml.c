/*
 * core/target/target_yaml.c - reading a target YAML file and validating
 * it against its plugin's attribute schema.
 *
 * The file is loaded with libyaml's document API, which keeps the
 * position of every node, so every error names file:line:column, says
 * what is wrong and, for unknown keys and choices, the nearest valid one.
 */
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "target_int.h"

#define MAX_YAML_BYTES (1u << 20)

/* An open YAML document and the file it came from. */
typedef struct ydoc {
  const char *path;
  yaml_document_t doc;
  int loaded;
} ydoc;

/* Sets an "path:line:col: message" diagnostic (libyaml counts from 0). */
static tvm_status yerr(const ydoc *d, yaml_mark_t m, tvm_status st,
                       const char *fmt, ...) TVM_PRINTF(4, 5);
static tvm_status yerr(const ydoc *d, yaml_mark_t m, tvm_status st,
                       const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tvm_diag_set(st, "%s:%zu:%zu: %s", d->path, (size_t)m.line + 1,
                      (size_t)m.column + 1, msg);
}

/* Limits on a target file: its size (MAX_YAML_BYTES), how deeply its
 * collections nest and how many nodes it has.  A real target file has
 * three levels and a few dozen nodes; the limits only stop hostile input
 * early (libyaml takes time quadratic in the nesting depth). */
#define MAX_YAML_DEPTH 32
#define MAX_YAML_NODES 100000

/* Walks the events of buf once, refusing nesting past MAX_YAML_DEPTH or
 * more than MAX_YAML_NODES nodes as soon as either is reached, so that the
 * document load that follows runs on bounded input.  Syntax errors are
 * left for the load to report. */
static tvm_status check_limits(ydoc *d, const char *buf, size_t len) {
  yaml_parser_t p;
  yaml_event_t ev;
  tvm_status st = TVM_OK;
  int depth = 0;
  long nodes = 0;
  if (!yaml_parser_initialize(&p))
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory parsing %s", d->path);
  yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
  for (;;) {
    if (!yaml_parser_parse(&p, &ev)) break; /* the load reports it */
    yaml_event_type_t t = ev.type;
    yaml_mark_t m = ev.start_mark;
    yaml_event_delete(&ev);
    if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
      if (++depth > MAX_YAML_DEPTH) {
        st = yerr(d, m, TVM_ERR_INVALID,
                  "collections nest more than %d deep (the limit for a "
                  "target file)", MAX_YAML_DEPTH);
        break;
      }
    } else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
      depth--;
    }
    if ((t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT ||
         t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) &&
        ++nodes > MAX_YAML_NODES) {
      st = yerr(d, m, TVM_ERR_INVALID,
                "more than %d nodes (the limit for a target file)",
                MAX_YAML_NODES);
      break;
    }
    if (t == YAML_STREAM_END_EVENT || t == YAML_DOCUMENT_END_EVENT) break;
  }
  yaml_parser_delete(&p);
  return st;
}

/* Loads the first document of path; a syntax error names its position. */
static tvm_status load_doc(ydoc *d, const char *path) {
  d->path = path;
  d->loaded = 0;
  void *data = NULL;
  size_t len = 0;
  struct stat sb;
  if (stat(path, &sb) != 0 && errno == ENOENT)
    return tvm_diag_set(TVM_ERR_NOT_FOUND, "cannot open target file %s: %s",
                        path, strerror(errno));
  tvm_status st = tvm_read_file(path, "target file", MAX_YAML_BYTES, &data,
                                &len);
  char *buf = data;
  if (st != TVM_OK) return st;
  if ((st = check_limits(d, buf, len)) != TVM_OK) {
    tvm_free(buf);
    return st;
  }
  yaml_parser_t p;
  if (!yaml_parser_initialize(&p)) {
    tvm_free(buf);
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory parsing %s", path);
  }
  yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
  if (!yaml_parser_load(&p, &d->doc)) {
    if (p.error == YAML_MEMORY_ERROR) {
      st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory parsing %s", path);
    } else {
      char ctx[256] = "";
      if (p.context)
        snprintf(ctx, sizeof ctx, " %s started at %zu:%zu", p.context,
                 (size_t)p.context_mark.line + 1,
                 (size_t)p.context_mark.column + 1);
      st = yerr(d, p.problem_mark, TVM_ERR_INVALID, "malformed YAML: %s%s",
                p.problem ? p.problem : "error", ctx);
    }
    yaml_parser_delete(&p);
    tvm_free(buf);
    return st;
  }
  yaml_parser_delete(&p);
  tvm_free(buf);
  d->loaded = 1;
  return TVM_OK;
}

/* Releases the document if one was loaded. */
static void free_doc(ydoc *d) {
  if (d->loaded) yaml_document_delete(&d->doc);
  d->loaded = 0;
}

/* Node number i of the document. */
static yaml_node_t *node(ydoc *d, int i) {
  return yaml_document_get_node(&d->doc, i);
}

/* The text of a scalar node (NULL for other kinds). */
static const char *scalar(yaml_node_t *n) {
  return (n && n->type == YAML_SCALAR_NODE)
             ? (const char *)n->data.scalar.value
             : NULL;
}

static const char *kind_name(yaml_node_t *n) {
  switch (n->type) {
  case YAML_SCALAR_NODE: return "a scalar";
  case YAML_SEQUENCE_NODE: return "a list";
  case YAML_MAPPING_NODE: return "a mapping";
  default: return "nothing";
  }
}

/* Appends "; did you mean 'x'? (valid keys: a, b, c)" for the candidate
 * nearest to key by edit distance. */
static void suggest(char *out, size_t cap, const char *key,
                    const char *const *cands, int n, const char *what) {
  out[0] = '\0';
  if (n <= 0) return;
  int best = 0;
  size_t bestd = (size_t)-1;
  for (int i = 0; i < n; i++) {
    size_t dd = tvm_edit_distance(key, cands[i]);
    if (dd < bestd) {
      bestd = dd;
      best = i;
    }
  }
  size_t len = (size_t)snprintf(out, cap, "; did you mean '%s'? (valid %s: ",
                                cands[best], what);
  for (int i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? ", " : "",
                            cands[i]);
  if (len < cap) snprintf(out + len, cap - len, ")");
}

/* Checks that mapping m has no duplicate keys and only scalar keys. */
static tvm_status check_keys(ydoc *d, yaml_node_t *m, const char *where) {
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
       p < m->data.mapping.pairs.top; p++) {
    yaml_node_t *k = node(d, p->key);
    const char *ks = scalar(k);
    if (ks == NULL)
      return yerr(d, k->start_mark, TVM_ERR_INVALID,
                  "%s: keys must be plain names, not %s", where,
                  kind_name(k));
    for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < p; q++) {
      const char *qs = scalar(node(d, q->key));
      if (qs && strcmp(qs, ks) == 0)
        return yerr(d, k->start_mark, TVM_ERR_INVALID,
                    "%s: duplicate key '%s'", where, ks);
    }
  }
  return TVM_OK;
}

/* ---- scalar conversions --------------------------------------------------- */
static int parse_int(const char *s, int64_t *v) {
  if (s == NULL || *s == '\0') return 0;
  errno = 0;
  char *end;
  long long x = strtoll(s, &end, 0);
  if (errno || *end != '\0' || end == s || s[0] == ' ') return 0;
  *v = x;
  return 1;
}

/* A finite number spelled entirely by s; 1 on success. */
static int parse_float(const char *s, double *v) {
  if (s == NULL || *s == '\0' || s[0] == ' ') return 0;
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (errno || *end != '\0' || !isfinite(x)) return 0;
  *v = x;
  return 1;
}

/* YAML 1.1 booleans (true/yes/on/1, false/no/off/0); 1 on success. */
static int parse_bool(const char *s, int64_t *v) {
  static const char *const t[] = {"true", "yes", "on", "1"};
  static const char *const f[] = {"false", "no", "off", "0"};
  if (s == NULL) return 0;
  for (int i = 0; i < 4; i++) {
    if (strcasecmp(s, t[i]) == 0) return (*v = 1), 1;
    if (strcasecmp(s, f[i]) == 0) return (*v = 0), 1;
  }
  return 0;
}

static const char *type_name(uint32_t type) {
  switch (type) {
  case TVM_PLUGIN_ATTR_INT: return "an integer";
  case TVM_PLUGIN_ATTR_FLOAT: return "a number";
  case TVM_PLUGIN_ATTR_BOOL: return "a boolean (true/false)";
  case TVM_PLUGIN_ATTR_STRING: return "a string";
  default: return "a value of unknown type";
  }
}

/* Does the schema bound INT/FLOAT values?  min == max == 0 means not. */
static int has_range(const tvm_plugin_attr *a) {
  return !(a->min == 0 && a->max == 0);
}

/* Converts text s to a value of attribute a.  Returns 0 on success, else
 * writes the reason to why (and, for choices, the suggestion). */
static int convert(const tvm_plugin_attr *a, const char *s,
                   tvm_plugin_attr_value *v, tvm_arena *arena, char *why,
                   size_t cap) {
  v->struct_size = sizeof(*v);
  v->type = a->type;
  v->name = a->name;
  switch (a->type) {
  case TVM_PLUGIN_ATTR_INT:
    if (!parse_int(s, &v->i)) break;
    if (has_range(a) && ((double)v->i < a->min || (double)v->i > a->max)) {
      snprintf(why, cap, "%s is out of range [%.17g, %.17g]", s, a->min,
               a->max);
      return -1;
    }
    v->f = (double)v->i;
    return 0;
  case TVM_PLUGIN_ATTR_FLOAT:
    if (!parse_float(s, &v->f)) break;
    if (has_range(a) && (v->f < a->min || v->f > a->max)) {
      snprintf(why, cap, "%s is out of range [%.17g, %.17g]", s, a->min,
               a->max);
      return -1;
    }
    return 0;
  case TVM_PLUGIN_ATTR_BOOL:
    if (!parse_bool(s, &v->i)) break;
    return 0;
  case TVM_PLUGIN_ATTR_STRING:
    if (a->choices != NULL) {
      const char *c = a->choices;
      const char *cands[64];
      char names[64][64];
      int n = 0, ok = 0;
      while (*c && n < 64) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len >= sizeof names[0]) len = sizeof names[0] - 1;
        memcpy(names[n], c, len);
        names[n][len] = '\0';
        cands[n] = names[n];
        if (strcmp(names[n], s) == 0) ok = 1;
        n++;
        c += bar ? (size_t)(bar - c) + 1 : strlen(c);
      }
      if (!ok) {
        char sug[512];
        suggest(sug, sizeof sug, s, cands, n, "choices");
        snprintf(why, cap, "'%s' is not one of its choices%s", s, sug);
        return -1;
      }
    }
    v->s = tvm_arena_strdup(arena, s);
    if (v->s == NULL) {
      snprintf(why, cap, "out of memory");
      return -1;
    }
    return 0;
  default:
    snprintf(why, cap, "the plugin's schema gives it unknown type %u",
             a->type);
    return -1;
  }
  snprintf(why, cap, "expected %s, got '%s'", type_name(a->type), s);
  return -1;
}

/* ---- the sections of a target file --------------------------------------- */
/* Validates attrs (mapping node m, or NULL when absent) against p's
 * schema: fills t->attrs with one value per schema entry. */
static tvm_status parse_attrs(ydoc *d, yaml_node_t *m, yaml_mark_t where,
                              const tvm_plugin_entry *p, tvm_arena *a,
                              tvm_target *t) {
  uint32_t n = tvm_plugin_nattrs(p);
  tvm_plugin_attr_value *vals =
      tvm_arena_alloc(a, (n ? n : 1) * sizeof(*vals));
  const char **names = tvm_arena_alloc(a, (n ? n : 1) * sizeof(*names));
  if (vals == NULL || names == NULL)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    const tvm_plugin_attr *at = tvm_plugin_attr_at(p, i);
    if (at->name == NULL)
      return tvm_diag_set(TVM_ERR_INTERNAL,
                          "plugin '%s' (%s): attribute %u of its schema has "
                          "no name; fix the plugin",
                          p->name, p->path, i);
    names[i] = at->name;
  }
  char why[1024], sug[1024];
  if (m != NULL) {
    if (m->type != YAML_MAPPING_NODE)
      return yerr(d, m->start_mark, TVM_ERR_INVALID,
                  "attrs: expected a mapping of attribute: value, got %s",
                  kind_name(m));
    tvm_status st = check_keys(d, m, "attrs");
    if (st != TVM_OK) return st;
    for (yaml_node_pair_t *q = m->data.mapping.pairs.start;
         q < m->data.mapping.pairs.top; q++) {
      yaml_node_t *k = node(d, q->key), *v = node(d, q->value);
      const char *ks = scalar(k);
      uint32_t i = 0;
      while (i < n && strcmp(names[i], ks) != 0) i++;
      if (i == n) {
        suggest(sug, sizeof sug, ks, names, (int)n, "attributes");
        if (n == 0)
          snprintf(sug, sizeof sug, "; plugin '%s' has no attributes",
                   p->name);
        return yerr(d, k->start_mark, TVM_ERR_INVALID,
                    "unknown attribute '%s' for plugin '%s'%s", ks, p->name,
                    sug);
      }
      const tvm_plugin_attr *at = tvm_plugin_attr_at(p, i);
      if (scalar(v) == NULL)
        return yerr(d, v->start_mark, TVM_ERR_INVALID,
                    "attrs.%s: expected %s, got %s", ks, type_name(at->type),
                    kind_name(v));
      if (convert(at, scalar(v), &vals[i], a, why, sizeof why) != 0)
        return yerr(d, v->start_mark, TVM_ERR_INVALID, "attrs.%s: %s", ks,
                    why);
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    if (vals[i].name != NULL) continue;
    const tvm_plugin_attr *at = tvm_plugin_attr_at(p, i);
    if (at->default_value == NULL)
      return yerr(d, m ? m->start_mark : where, TVM_ERR_INVALID,
                  "missing required attribute '%s' (%s%s%s); add it under "
                  "attrs:",
                  at->name, type_name(at->type), at->doc ? ": " : "",
                  at->doc ? at->doc : "");
    if (convert(at, at->default_value, &vals[i], a, why, sizeof why) != 0)
      return tvm_diag_set(TVM_ERR_INTERNAL,
                          "plugin '%s' (%s): the default of attribute '%s' "
                          "is invalid: %s; fix the plugin",
                          p->name, p->path, at->name, why);
  }
  t->attrs = vals;
  t->nattrs = n;
  return TVM_OK;
}

/* Reads the tuning: mapping into t->tuning (defaults kept for absent
 * keys). */
static tvm_status parse_tuning(ydoc *d, yaml_node_t *m, tvm_target *t) {
  static const char *const keys[] = {"number", "repeat", "min_repeat_ms",
                                     "timeout_s"};
  static const int64_t mins[] = {1, 1, 0, 1};
  int *fields[] = {&t->tuning.number, &t->tuning.repeat,
                   &t->tuning.min_repeat_ms, &t->tuning.timeout_s};
  if (m->type != YAML_MAPPING_NODE)
    return yerr(d, m->start_mark, TVM_ERR_INVALID,
                "tuning: expected a mapping, got %s", kind_name(m));
  tvm_status st = check_keys(d, m, "tuning");
  if (st != TVM_OK) return st;
  for (yaml_node_pair_t *q = m->data.mapping.pairs.start;
       q < m->data.mapping.pairs.top; q++) {
    yaml_node_t *k = node(d, q->key), *v = node(d, q->value);
    const char *ks = scalar(k);
    int i = 0;
    while (i < 4 && strcmp(keys[i], ks) != 0) i++;
    if (i == 4) {
      char sug[512];
      suggest(sug, sizeof sug, ks, keys, 4, "keys");
      return yerr(d, k->start_mark, TVM_ERR_INVALID,
                  "unknown tuning key '%s'%s", ks, sug);
    }
    int64_t x;
    if (!parse_int(scalar(v), &x))
      return yerr(d, v->start_mark, TVM_ERR_INVALID,
                  "tuning.%s: expected an integer, got %s", ks,
                  scalar(v) ? scalar(v) : kind_name(v));
    if (x < mins[i] || x > 1000000)
      return yerr(d, v->start_mark, TVM_ERR_INVALID,
                  "tuning.%s: %lld is out of range [%lld, 1000000]", ks,
                  (long long)x, (long long)mins[i]);
    *fields[i] = (int)x;
  }
  return TVM_OK;
}

/* Reads keys: (a list of names, or one name) into t->keys. */
static tvm_status parse_keys(ydoc *d, yaml_node_t *n, tvm_arena *a,
                             tvm_target *t) {
  if (n->type == YAML_SCALAR_NODE) {
    const char **k = tvm_arena_alloc(a, sizeof(*k));
    if (k == NULL || (k[0] = tvm_arena_strdup(a, scalar(n))) == NULL)
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    t->keys = k;
    t->nkeys = 1;
    return TVM_OK;
  }
  if (n->type != YAML_SEQUENCE_NODE)
    return yerr(d, n->start_mark, TVM_ERR_INVALID,
                "keys: expected a list of names like [cpu], got %s",
                kind_name(n));
  int cnt = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
  const char **k = tvm_arena_alloc(a, (size_t)(cnt ? cnt : 1) * sizeof(*k));
  if (k == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < cnt; i++) {
    yaml_node_t *e = node(d, n->data.sequence.items.start[i]);
    if (scalar(e) == NULL)
      return yerr(d, e->start_mark, TVM_ERR_INVALID,
                  "keys: expected a name, got %s", kind_name(e));
    if ((k[i] = tvm_arena_strdup(a, scalar(e))) == NULL)
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  }
  t->keys = k;
  t->nkeys = cnt;
  return TVM_OK;
}

/* The top-level fields of a target file. */
enum {
  F_NAME,
  F_PLUGIN,
  F_KEYS,
  F_ATTRS,
  F_TUNING,
  F_DESCRIPTION,
  F_FALLBACK,
  F_COUNT
};
static const char *const field_names[F_COUNT] = {
    "name", "plugin", "keys", "attrs", "tuning", "description", "fallback"};

/* Checks the root mapping and finds each field's value node (NULL when
 * absent). */
static tvm_status fields(ydoc *d, yaml_node_t *f[F_COUNT]) {
  memset(f, 0, sizeof(yaml_node_t *) * F_COUNT);
  yaml_node_t *root = yaml_document_get_root_node(&d->doc);
  if (root == NULL)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s:1:1: the file is empty; a target needs at least "
                        "name: and plugin:",
                        d->path);
  if (root->type != YAML_MAPPING_NODE)
    return yerr(d, root->start_mark, TVM_ERR_INVALID,
                "a target file is a mapping (name: ..., plugin: ...), not "
                "%s",
                kind_name(root));
  tvm_status st = check_keys(d, root, "target");
  if (st != TVM_OK) return st;
  for (yaml_node_pair_t *q = root->data.mapping.pairs.start;
       q < root->data.mapping.pairs.top; q++) {
    yaml_node_t *k = node(d, q->key);
    const char *ks = scalar(k);
    int i = 0;
    while (i < F_COUNT && strcmp(field_names[i], ks) != 0) i++;
    if (i == F_COUNT) {
      char sug[512];
      suggest(sug, sizeof sug, ks, field_names, F_COUNT, "keys");
      return yerr(d, k->start_mark, TVM_ERR_INVALID, "unknown key '%s'%s",
                  ks, sug);
    }
    f[i] = node(d, q->value);
  }
  static const int required[] = {F_NAME, F_PLUGIN};
  for (int j = 0; j < 2; j++) {
    int i = required[j];
    if (f[i] == NULL)
      return yerr(d, root->start_mark, TVM_ERR_INVALID,
                  "missing required field '%s'", field_names[i]);
    if (scalar(f[i]) == NULL || scalar(f[i])[0] == '\0')
      return yerr(d, f[i]->start_mark, TVM_ERR_INVALID,
                  "%s: expected a name, got %s", field_names[i],
                  scalar(f[i]) ? "an empty string" : kind_name(f[i]));
  }
  if (f[F_FALLBACK] &&
      (scalar(f[F_FALLBACK]) == NULL || scalar(f[F_FALLBACK])[0] == '\0'))
    return yerr(d, f[F_FALLBACK]->start_mark, TVM_ERR_INVALID,
                "fallback: expected a target name such as llvm-cpu, got %s",
                scalar(f[F_FALLBACK]) ? "an empty string"
                                      : kind_name(f[F_FALLBACK]));
  if (f[F_DESCRIPTION] && scalar(f[F_DESCRIPTION]) == NULL)
    return yerr(d, f[F_DESCRIPTION]->start_mark, TVM_ERR_INVALID,
                "description: expected a string, got %s",
                kind_name(f[F_DESCRIPTION]));
  return TVM_OK;
}

/* "; did you mean 'x'?" over the loaded plugins of r. */
static void suggest_plugin(char *out, size_t cap, const char *name,
                           const tvm_plugin_registry *r) {
  const char *cands[64];
  int n = 0;
  for (int i = 0; i < tvm_plugin_registry_count(r) && n < 64; i++) {
    const tvm_plugin_entry *e = tvm_plugin_registry_at(r, i);
    if (e->state == TVM_PLUGIN_LOADED) cands[n++] = e->name;
  }
  suggest(out, cap, name, cands, n, "plugins");
  if (n == 0) snprintf(out, cap, "; no plugin is loaded");
}

/* Reads path into t: fields, keys, tuning, the plugin (looked up in r)
 * and its validated attributes. */
tvm_status target_parse(tvm_plugin_registry *r, const char *path,
                             tvm_arena *a, tvm_target *t) {
  ydoc d;
  tvm_status st = load_doc(&d, path);
  if (st != TVM_OK) return st;
  yaml_node_t *f[F_COUNT];
  st = fields(&d, f);
  if (st != TVM_OK) goto done;
  t->name = tvm_arena_strdup(a, scalar(f[F_NAME]));
  t->plugin_name = tvm_arena_strdup(a, scalar(f[F_PLUGIN]));
  t->path = tvm_arena_strdup(a, path);
  if (t->name == NULL || t->plugin_name == NULL || t->path == NULL) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    goto done;
  }
  if (f[F_FALLBACK] &&
      (t->fallback_name = tvm_arena_strdup(a, scalar(f[F_FALLBACK]))) == NULL) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    goto done;
  }
  t->tuning.number = 4;
  t->tuning.repeat = 3;
  t->tuning.min_repeat_ms = 50;
  t->tuning.timeout_s = 10;
  if (f[F_KEYS] && (st = parse_keys(&d, f[F_KEYS], a, t)) != TVM_OK)
    goto done;
  if (f[F_TUNING] && (st = parse_tuning(&d, f[F_TUNING], t)) != TVM_OK)
    goto done;
  const tvm_plugin_entry *p = tvm_plugin_registry_find(r, t->plugin_name);
  if (p == NULL) {
    char sug[1024];
    suggest_plugin(sug, sizeof sug, t->plugin_name, r);
    char *dirs = tvm_plugin_registry_dirs(r);
    st = yerr(&d, f[F_PLUGIN]->start_mark, TVM_ERR_NOT_FOUND,
              "plugin '%s' not found (searched: %s)%s; set TVM_PLUGIN_PATH "
              "or run `tvmc targets` to see every plugin and why any was "
              "skipped",
              t->plugin_name, dirs && *dirs ? dirs : "no directory", sug);
    tvm_free(dirs);
    goto done;
  }
  t->plugin = p;
  yaml_mark_t root_mark = yaml_document_get_root_node(&d.doc)->start_mark;
  st = parse_attrs(&d, f[F_ATTRS], root_mark, p, a, t);
done:
  free_doc(&d);
  return st;
}

/* name: and plugin: of a target file, without validation. */
tvm_status target_peek(const char *path, char **name, char **plugin) {
  *name = *plugin = NULL;
  ydoc d;
  tvm_status st = load_doc(&d, path);
  if (st != TVM_OK) return st;
  yaml_node_t *root = yaml_document_get_root_node(&d.doc);
  if (root != NULL && root->type == YAML_MAPPING_NODE) {
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start;
         q < root->data.mapping.pairs.top; q++) {
      const char *ks = scalar(node(&d, q->key));
      const char *vs = scalar(node(&d, q->value));
      if (ks == NULL || vs == NULL) continue;
      if (strcmp(ks, "name") == 0 && *name == NULL) *name = tvm_strdup(vs);
      if (strcmp(ks, "plugin") == 0 && *plugin == NULL)
        *plugin = tvm_strdup(vs);
    }
  }
  free_doc(&d);
  return TVM_OK;
}

/* Every schema attribute of p at its default (for probing a plugin
 * without a target file); TVM_ERR_NOT_FOUND when one is required. */
tvm_status target_plugin_defaults(const tvm_plugin_entry *p, tvm_arena *a,
                                tvm_plugin_attr_value **out, uint32_t *n) {
  uint32_t cnt = tvm_plugin_nattrs(p);
  tvm_plugin_attr_value *vals =
      tvm_arena_alloc(a, (cnt ? cnt : 1) * sizeof(*vals));
  if (vals == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  char why[1024];
  for (uint32_t i = 0; i < cnt; i++) {
    const tvm_plugin_attr *at = tvm_plugin_attr_at(p, i);
    if (at->name == NULL || at->default_value == NULL)
      return tvm_diag_set(TVM_ERR_NOT_FOUND,
                          "attribute '%s' has no default",
                          at->name ? at->name : "?");
    if (convert(at, at->default_value, &vals[i], a, why, sizeof why) != 0)
      return tvm_diag_set(TVM_ERR_INTERNAL,
                          "plugin '%s': the default of attribute '%s' is "
                          "invalid: %s",
                          p->name, at->name, why);
  }
  *out = vals;
  *n = cnt;
  return TVM_OK;
}
