/*
 * core/target/target.c - targets as the compiler sees them: finding a
 * target file by name or path and loading it (validated by
 * target_yaml.c, made by the runtime's tvm_target_create), the listing
 * of target files, and the calls the compiler makes through a target
 * (strategies, lowering options, codegen, layouts, probing a plugin).
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "target_int.h"

/* ---- search directories ------------------------------------------------- */
/* Is the installed directory switched off (TVM_NO_INSTALLED, as for
 * plugins; test suites set it to see the build tree alone)? */
static int no_installed_dirs(void) {
  const char *v = secure_getenv("TVM_NO_INSTALLED");
  return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

/* A heap string (tvm_free) formatted like printf, or NULL. */
static char *aprintf(const char *fmt, ...) TVM_PRINTF(1, 2);
static char *aprintf(const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = NULL;
  if (len >= 0 && (s = tvm_malloc((size_t)len + 1)) != NULL)
    vsnprintf(s, (size_t)len + 1, fmt, ap2);
  va_end(ap2);
  return s;
}
/* Appends the non-empty entries of the colon list s to v (heap strings). */
static tvm_status split_path(const char *s, tvm_ptrvec *v) {
  while (s && *s) {
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : strlen(s);
    if (len > 0) {
      char *dir = tvm_malloc(len + 1);
      if (dir == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
      memcpy(dir, s, len);
      dir[len] = '\0';
      if (tvm_ptrvec_push(v, dir) != TVM_OK) {
        tvm_free(dir);
        return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
      }
    }
    s += len;
    if (*s == ':') s++;
  }
  return TVM_OK;
}

/* $TVM_TARGET_PATH entries, then the installed directory. */
static tvm_status target_dirs(tvm_ptrvec *v) {
  tvm_status st = split_path(secure_getenv("TVM_TARGET_PATH"), v);
  if (st == TVM_OK && !no_installed_dirs())
    st = split_path(TVM_TARGET_DIR, v);
  return st;
}

/* Frees a vector of heap strings and its storage. */
static void free_strings(tvm_ptrvec *v) {
  for (size_t i = 0; i < v->len; i++) tvm_free(v->data[i]);
  tvm_ptrvec_free(v);
}

/* The target search directories joined with ':' (heap string). */
char *tvm_target_search_dirs(void) {
  tvm_ptrvec v = {0};
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_strbuf_append(&b, "");
  if (target_dirs(&v) == TVM_OK)
    for (size_t i = 0; i < v.len; i++) {
      if (i) tvm_strbuf_append(&b, ":");
      tvm_strbuf_append(&b, v.data[i]);
    }
  free_strings(&v);
  return tvm_strbuf_take(&b);
}

/* scandir filter: names ending in ".yaml". */
static int is_yaml(const struct dirent *de) {
  size_t n = strlen(de->d_name);
  return n > 5 && strcmp(de->d_name + n - 5, ".yaml") == 0;
}

/* Every *.yaml path of the search directories, in order (heap strings). */
static tvm_status yaml_files(tvm_ptrvec *out) {
  tvm_ptrvec dirs = {0};
  tvm_status st = target_dirs(&dirs);
  for (size_t i = 0; st == TVM_OK && i < dirs.len; i++) {
    struct dirent **names = NULL;
    int n = scandir(dirs.data[i], &names, is_yaml, alphasort);
    for (int j = 0; j < n; j++) {
      char *p = aprintf("%s/%s", (char *)dirs.data[i], names[j]->d_name);
      if (st == TVM_OK && (p == NULL || tvm_ptrvec_push(out, p) != TVM_OK)) {
        tvm_free(p);
        st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
      }
      free(names[j]);
    }
    free(names);
  }
  free_strings(&dirs);
  return st;
}

/* Finds the file of target `name`: <dir>/<name>.yaml in the search
 * directories, else any file there whose name: field is `name`. */
static tvm_status resolve(const char *name, char **path) {
  *path = NULL;
  tvm_ptrvec dirs = {0};
  tvm_status st = target_dirs(&dirs);
  for (size_t i = 0; st == TVM_OK && i < dirs.len && *path == NULL; i++) {
    char *p = aprintf("%s/%s.yaml", (char *)dirs.data[i], name);
    struct stat sb;
    if (p == NULL) st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    else if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) *path = p;
    else tvm_free(p);
  }
  tvm_ptrvec files = {0};
  if (st == TVM_OK && *path == NULL) st = yaml_files(&files);
  const char *cands[128];
  int ncands = 0;
  for (size_t i = 0; st == TVM_OK && *path == NULL && i < files.len; i++) {
    char *n = NULL, *pl = NULL;
    if (target_peek(files.data[i], &n, &pl) == TVM_OK && n != NULL) {
      if (strcmp(n, name) == 0) *path = tvm_strdup(files.data[i]);
      else if (ncands < 128) {
        cands[ncands++] = n;
        n = NULL;
      }
    }
    tvm_free(n);
    tvm_free(pl);
  }
  if (st == TVM_OK && *path == NULL) {
    int best = -1;
    size_t bestd = (size_t)-1;
    for (int i = 0; i < ncands; i++) {
      size_t dd = tvm_edit_distance(name, cands[i]);
      if (dd < bestd) bestd = dd, best = i;
    }
    char *where = tvm_target_search_dirs();
    st = tvm_diag_set(TVM_ERR_NOT_FOUND,
                      "target '%s' not found in %s%s%s%s; `tvmc targets` "
                      "lists the targets, or pass a path to a .yaml file",
                      name, where && *where ? where : "(no directory)",
                      best >= 0 ? " (did you mean '" : "",
                      best >= 0 ? cands[best] : "", best >= 0 ? "'?)" : "");
    tvm_free(where);
  }
  for (int i = 0; i < ncands; i++) tvm_free((char *)cands[i]);
  free_strings(&files);
  free_strings(&dirs);
  return st;
}

/* ---- loading --------------------------------------------------------------- */
/* Is arg a path rather than a target name? */
static int is_path(const char *arg) {
  size_t n = strlen(arg);
  return strchr(arg, '/') != NULL || (n > 5 && strcmp(arg + n - 5, ".yaml") == 0);
}

/* Loads a target: resolves the file, parses and validates it against
 * its plugin in r (into a scratch target), then makes the target from
 * the validated values with the runtime's tvm_target_create.  Loading a
 * target has no effect on other targets or on any thread pool.  On
 * failure nothing is left allocated. */
/* Loads the target `name` that t's file (path) names as its fallback and
 * attaches it to t: heterogeneous execution, HETEROGENEOUS.md.  A
 * fallback must not name itself nor have a fallback of its own. */
static tvm_status attach_fallback(tvm_plugin_registry *r, const char *path,
                                  const char *name, tvm_target *t) {
  tvm_target *fb = NULL;
  if (strcmp(name, t->name) == 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: fallback: %s names the target itself; name "
                        "another target (e.g. llvm-cpu)",
                        path, name);
  tvm_status st = tvm_target_load_with(r, name, &fb);
  if (st != TVM_OK)
    return tvm_diag_prefix(st, "%s: fallback target '%s': ", path, name);
  if (fb->fallback) {
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "%s: fallback target '%s' has a fallback of its own "
                      "('%s'); a fallback must run every operator",
                      path, name, fb->fallback->name);
    tvm_target_free(fb);
    return st;
  }
  t->fallback = fb;
  t->fallback_name = fb->name;
  return TVM_OK;
}

tvm_status tvm_target_load_with(tvm_plugin_registry *r,
                                const char *name_or_path, tvm_target **out) {
  *out = NULL;
  if (name_or_path == NULL || *name_or_path == '\0')
    return tvm_diag_set(TVM_ERR_INVALID,
                        "no target given; pass a name such as llvm-cpu or "
                        "a path to a .yaml file");
  char *path = NULL;
  tvm_status st;
  if (is_path(name_or_path)) path = tvm_strdup(name_or_path);
  else if ((st = resolve(name_or_path, &path)) != TVM_OK) return st;
  if (path == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  tvm_target parsed = {0};
  tvm_arena *a = tvm_arena_create();
  if (a == NULL) {
    tvm_free(path);
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  }
  st = target_parse(r, path, a, &parsed);
  tvm_free(path);
  if (st == TVM_OK) {
    tvm_target_spec spec = {parsed.name,  parsed.plugin_name, parsed.path,
                            parsed.keys,  parsed.nkeys,       parsed.attrs,
                            parsed.nattrs, &parsed.tuning};
    st = tvm_target_create(r, &spec, out);
  }
  if (st == TVM_OK && parsed.fallback_name)
    st = attach_fallback(r, parsed.path, parsed.fallback_name, *out);
  if (st != TVM_OK && *out) {
    tvm_target_free(*out);
    *out = NULL;
  }
  tvm_arena_destroy(a);
  return st;
}

/* tvm_target_load_with over the global registry. */
tvm_status tvm_target_load(const char *name_or_path, tvm_target **out) {
  return tvm_target_load_with(tvm_plugins(), name_or_path, out);
}

/* Strategy i of info: the array's stride is the struct_size of its first
 * element (an ABI 1-3 plugin's entries are 32 bytes, an ABI 4 one's 48). */
static const tvm_plugin_strategy *strategy_at(
    const tvm_plugin_target_info *info, uint32_t i) {
  uint32_t stride = info->strategies[0].struct_size;
  if (stride < offsetof(tvm_plugin_strategy, match)) return NULL;
  return (const tvm_plugin_strategy *)((const char *)info->strategies +
                                       (size_t)stride * i);
}

/* See tvm/target.h. */
const tvm_plugin_strategy *tvm_plugin_strategy_at(
    const tvm_plugin_target_info *info, uint32_t i) {
  if (!info || !TVM_HAS_FIELD(tvm_plugin_target_info, info, nstrategies) ||
      !info->strategies || i >= info->nstrategies)
    return NULL;
  return strategy_at(info, i);
}

/* What s matches: an ABI 1-3 entry (no match field) names an operator. */
static uint32_t strategy_match(const tvm_plugin_strategy *s) {
  return TVM_HAS_FIELD(tvm_plugin_strategy, s, pattern) ? s->match
                                                        : TVM_STRATEGY_MATCH_OP;
}

/* Does strategy s match operator op of fusion pattern `pattern` at
 * level `level` (0 exact name, 1 pattern, 2 default)? */
static int strategy_matches(const tvm_plugin_strategy *s, int level,
                            const char *op, int pattern) {
  uint32_t m = strategy_match(s);
  if (!s->schedule &&
      !(TVM_HAS_FIELD(tvm_plugin_strategy, s, schedule_call) &&
        s->schedule_call))
    return 0;
  if (level == 0) return m == TVM_STRATEGY_MATCH_OP && s->op && op &&
                         strcmp(s->op, op) == 0;
  if (level == 1) return m == TVM_STRATEGY_MATCH_PATTERN && pattern >= 0 &&
                         s->pattern == (uint32_t)pattern;
  return m == TVM_STRATEGY_MATCH_DEFAULT;
}

/* See tvm/target.h. */
int tvm_target_strategies(const tvm_target *t, const char *op, int pattern,
                          const tvm_plugin_strategy **out, int cap) {
  const tvm_plugin_target_info *info = tvm_target_info(t);
  int n = 0;
  if (!TVM_HAS_FIELD(tvm_plugin_target_info, info, nstrategies) ||
      !info->strategies || info->nstrategies == 0 ||
      !strategy_at(info, 0))
    return 0;
  for (int level = 0; level < 3; level++) {
    int first = n;
    for (uint32_t i = 0; i < info->nstrategies && n < cap; i++) {
      const tvm_plugin_strategy *s = strategy_at(info, i);
      if (!strategy_matches(s, level, op, pattern)) continue;
      int k = n++; /* insertion by priority, highest first, stable */
      while (k > first && out[k - 1]->priority < s->priority) {
        out[k] = out[k - 1];
        k--;
      }
      out[k] = s;
    }
  }
  return n;
}

/* The highest-priority strategy of t naming op exactly. */
const tvm_plugin_strategy *tvm_target_strategy(const tvm_target *t,
                                               const char *op) {
  const tvm_plugin_strategy *c[1];
  if (!op) return NULL;
  int n = tvm_target_strategies(t, op, -1, c, 1);
  return n > 0 && strategy_match(c[0]) == TVM_STRATEGY_MATCH_OP ? c[0]
                                                                 : NULL;
}

/* Lowering options from the plugin's target_info; each field is read
 * only when inside the info's struct_size and non-zero. */
void tvm_target_lower_options(const tvm_target *t, tvm_lower_options *o) {
  tvm_lower_options_init(o);
  if (t == NULL) return;
  const tvm_plugin_target_info *in = tvm_target_info(t);
  if (TVM_HAS_FIELD(tvm_plugin_target_info, in, vector_bits) &&
      in->vector_bits)
    o->vector_bits = (int)in->vector_bits;
  if (TVM_HAS_FIELD(tvm_plugin_target_info, in, has_threads))
    o->has_threads = in->has_threads != 0;
  if (TVM_HAS_FIELD(tvm_plugin_target_info, in, num_queues))
    o->num_queues = (int)in->num_queues;
  int nscopes = 0;
  const tvm_scope_info *scopes = tvm_target_scopes(t, &nscopes);
  if (nscopes > 0) {
    o->scopes = scopes;
    o->nscopes = nscopes;
  }
  if (TVM_HAS_FIELD(tvm_plugin_target_info, in, unroll_max_extent) &&
      in->unroll_max_extent)
    o->unroll_max_extent = (int)in->unroll_max_extent;
  /* ABI 4: the target's own lowering passes */
  int32_t (*lp)(tvm_plugin_target *, const tvm_plugin_lower_pass **,
                uint32_t *) = TVM_SLOT(t->plugin, lower_passes);
  const tvm_plugin_lower_pass *passes = NULL;
  uint32_t n = 0;
  if (lp && lp(t->instance, &passes, &n) != 0) {
    tvm_log(TVM_LOG_WARN, "target '%s': plugin '%s' failed to list its "
            "lowering passes (%s); lowering without them",
            t->name, t->plugin_name, tvm_diag_message());
  } else if (lp && passes && n > 0) {
    o->extra_passes = passes;
    o->nextra_passes = (int)n;
    o->pass_target = t->instance;
  }
}

/* Codegen through the plugin; on failure whatever the plugin put into
 * out is freed and the diagnostic names the target. */
tvm_status tvm_target_codegen(const tvm_target *t, const tvm_module *m,
                              tvm_plugin_blob *out) {
  memset(out, 0, sizeof(*out));
  out->struct_size = sizeof(*out);
  int32_t (*cg)(tvm_plugin_target *, const tvm_module *, tvm_plugin_blob *) =
      TVM_SLOT(t->plugin, codegen);
  if (cg == NULL)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "plugin '%s' has no codegen: target '%s' cannot "
                        "compile",
                        t->plugin_name, t->name);
  tvm_diag_clear();
  int32_t rc = cg(t->instance, m, out);
  if (rc != 0) {
    tvm_plugin_blob_free(out);
    if (tvm_diag_status() == TVM_OK)
      tvm_diag_set(rc < 0 ? rc : TVM_ERR_INTERNAL, "codegen returned %d",
                   (int)rc);
    return tvm_diag_prefix(rc < 0 ? rc : TVM_ERR_INTERNAL,
                           "codegen for target '%s' (plugin '%s'): ",
                           t->name, t->plugin_name);
  }
  return TVM_OK;
}

/* The plugin's layout choice for node n (see tvm/target.h). */
tvm_status tvm_target_alter_layout(const tvm_target *t, const tvm_gnode *n,
                                   tvm_plugin_layout *out) {
  memset(out, 0, sizeof(*out));
  out->struct_size = sizeof(*out);
  int32_t (*al)(tvm_plugin_target *, const tvm_gnode *, tvm_plugin_layout *) =
      TVM_SLOT(t->plugin, alter_layout);
  if (al == NULL) return TVM_OK;
  tvm_diag_clear();
  int32_t rc = al(t->instance, n, out);
  out->data[TVM_PLUGIN_LAYOUT_CAP - 1] = '\0';
  out->weight[TVM_PLUGIN_LAYOUT_CAP - 1] = '\0';
  out->out[TVM_PLUGIN_LAYOUT_CAP - 1] = '\0';
  if (t->plugin->abi_version < 7) out->flags = 0; /* reserved before 7 */
  if (rc != 0) {
    if (tvm_diag_status() == TVM_OK)
      tvm_diag_set(rc < 0 ? rc : TVM_ERR_INTERNAL, "alter_layout returned %d",
                   (int)rc);
    return tvm_diag_prefix(rc < 0 ? rc : TVM_ERR_INTERNAL,
                           "alter_layout of target '%s' (plugin '%s'): ",
                           t->name, t->plugin_name);
  }
  return TVM_OK;
}

/* The plugin's quantization request (see tvm/target.h). */
tvm_status tvm_target_quantize(const tvm_target *t, tvm_plugin_quant *out) {
  memset(out, 0, sizeof(*out));
  out->struct_size = sizeof(*out);
  int32_t (*qz)(tvm_plugin_target *, tvm_plugin_quant *) =
      TVM_SLOT(t->plugin, quantize);
  if (qz == NULL) return TVM_OK;
  tvm_diag_clear();
  int32_t rc = qz(t->instance, out);
  if (rc != 0) {
    out->enabled = 0;
    if (tvm_diag_status() == TVM_OK)
      tvm_diag_set(rc < 0 ? rc : TVM_ERR_INTERNAL, "quantize returned %d",
                   (int)rc);
    return tvm_diag_prefix(rc < 0 ? rc : TVM_ERR_INTERNAL,
                           "quantize of target '%s' (plugin '%s'): ",
                           t->name, t->plugin_name);
  }
  return TVM_OK;
}

/* Whether t runs node n (see tvm/runtime.h): the plugin's ABI 5
 * supports slot, or yes when it has none. */
tvm_status tvm_target_supports(const tvm_target *t, const tvm_gnode *n,
                               int *supported, char *reason, size_t cap) {
  tvm_plugin_support s;
  *supported = 1;
  if (reason && cap) reason[0] = '\0';
  int32_t (*sup)(tvm_plugin_target *, const tvm_gnode *,
                 tvm_plugin_support *) = TVM_SLOT(t->plugin, supports);
  if (sup == NULL) return TVM_OK;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  tvm_diag_clear();
  int32_t rc = sup(t->instance, n, &s);
  s.reason[TVM_PLUGIN_REASON_CAP - 1] = '\0';
  if (rc != 0) {
    if (tvm_diag_status() == TVM_OK)
      tvm_diag_set(rc < 0 ? rc : TVM_ERR_INTERNAL, "supports returned %d",
                   (int)rc);
    return tvm_diag_prefix(rc < 0 ? rc : TVM_ERR_INTERNAL,
                           "supports of target '%s' (plugin '%s'): ",
                           t->name, t->plugin_name);
  }
  *supported = s.supported != 0;
  if (!*supported && reason && cap)
    snprintf(reason, cap, "%s",
             s.reason[0] ? s.reason : "the plugin gives no reason");
  return TVM_OK;
}

/* Probes plugin p with an instance made of its attribute defaults. */
tvm_status tvm_plugin_probe(const tvm_plugin_entry *p) {
  if (p == NULL || p->state != TVM_PLUGIN_LOADED)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_plugin_probe: not loaded");
  int32_t (*probe)(tvm_plugin_target *) = TVM_SLOT(p, probe);
  int32_t (*create)(const tvm_plugin_attr_value *, uint32_t,
                    tvm_plugin_target **) = TVM_SLOT(p, target_create);
  void (*destroy)(tvm_plugin_target *) = TVM_SLOT(p, target_destroy);
  if (probe == NULL) return TVM_OK;
  if (create == NULL)
    return tvm_diag_set(TVM_ERR_ABI, "plugin '%s' has no target_create",
                        p->name);
  tvm_arena *a = tvm_arena_create();
  if (a == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  tvm_plugin_attr_value *vals = NULL;
  uint32_t n = 0;
  tvm_status st = target_plugin_defaults(p, a, &vals, &n);
  tvm_plugin_target *inst = NULL;
  if (st == TVM_OK) {
    tvm_diag_clear();
    int32_t rc = create(vals, n, &inst);
    if (rc != 0 || inst == NULL) {
      if (tvm_diag_status() == TVM_OK)
        tvm_diag_set(TVM_ERR_INTERNAL, "target_create returned %d", (int)rc);
      st = rc < 0 ? rc : TVM_ERR_INTERNAL;
      inst = NULL;
    }
  }
  if (st == TVM_OK) {
    tvm_diag_clear();
    int32_t rc = probe(inst);
    if (rc != 0) {
      if (tvm_diag_status() == TVM_OK)
        tvm_diag_set(TVM_ERR_UNAVAILABLE, "probe returned %d", (int)rc);
      st = rc < 0 ? rc : TVM_ERR_UNAVAILABLE;
    }
  }
  if (inst != NULL && destroy != NULL) destroy(inst);
  tvm_arena_destroy(a);
  return st;
}

/* ---- listing ------------------------------------------------------------------ */
tvm_status tvm_target_files(tvm_target_file **out, int *n) {
  *out = NULL;
  *n = 0;
  tvm_ptrvec files = {0};
  tvm_status st = yaml_files(&files);
  tvm_target_file *f =
      st == TVM_OK ? tvm_calloc(files.len ? files.len : 1, sizeof(*f)) : NULL;
  if (st == TVM_OK && f == NULL)
    st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == TVM_OK && i < files.len; i++) {
    tvm_target_file *e = &f[i];
    e->path = tvm_strdup(files.data[i]);
    target_peek(e->path, &e->name, &e->plugin);
    for (size_t j = 0; j < i && e->name; j++)
      if (f[j].name && strcmp(f[j].name, e->name) == 0) {
        e->status = TVM_ERR_INVALID;
        e->message = aprintf("shadowed by %s (same name)", f[j].path);
        break;
      }
    if (e->message != NULL) continue;
    tvm_target *t = NULL;
    e->status = tvm_target_load(e->path, &t);
    if (e->status == TVM_OK) e->status = tvm_target_probe(t);
    if (e->status != TVM_OK) e->message = tvm_strdup(tvm_diag_message());
    tvm_target_free(t);
  }
  size_t nfiles = files.len;
  free_strings(&files);
  if (st != TVM_OK) {
    tvm_target_files_free(f, (int)nfiles);
    return st;
  }
  tvm_diag_clear();
  *out = f;
  *n = (int)nfiles;
  return TVM_OK;
}

/* Frees a listing from tvm_target_files. */
void tvm_target_files_free(tvm_target_file *f, int n) {
  for (int i = 0; f && i < n; i++) {
    tvm_free(f[i].path);
    tvm_free(f[i].name);
    tvm_free(f[i].plugin);
    tvm_free(f[i].message);
  }
  tvm_free(f);
}
