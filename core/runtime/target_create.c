/*
 * core/runtime/target_create.c - the tvm_target object as the runtime
 * knows it: made from a plugin name and validated attribute values (what
 * a package records, or what the YAML loader of libtvm validated), the
 * plugin's instance, its cached target_info, and the queries that need
 * nothing of the compiler (attributes, keys, info, scopes, probe).
 *
 * Values are checked against the plugin's schema again here: a package
 * may come from another build of the plugin, so a value the schema does
 * not allow is refused with a message to recompile, never handed to
 * target_create.
 */
#include <string.h>

#include "runtime_int.h"

static const tvm_plugin_target_info empty_info = {
    sizeof(tvm_plugin_target_info), 0, 0, 0, NULL, NULL, 0, 0, NULL, NULL,
    0, 0, "", 0, 0, 0};

/* ---- checking values against the schema ---------------------------------- */
/* Is s one of the '|'-separated choices? */
static int is_choice(const char *choices, const char *s) {
  size_t n = strlen(s);
  for (const char *c = choices; *c;) {
    const char *bar = strchr(c, '|');
    size_t len = bar ? (size_t)(bar - c) : strlen(c);
    if (len == n && strncmp(c, s, n) == 0) return 1;
    c += bar ? len + 1 : len;
  }
  return 0;
}

/* Checks value v of spec against schema attribute a. */
static tvm_status check_value(const tvm_target_spec *spec,
                              const tvm_plugin_attr *a,
                              const tvm_plugin_attr_value *v) {
  const char *why = NULL;
  int ranged = !(a->min == 0 && a->max == 0);
  if (v->name == NULL || a->name == NULL || strcmp(v->name, a->name) != 0)
    why = "its name differs from the plugin's schema";
  else if (v->type != a->type)
    why = "its type differs from the plugin's schema";
  else if (a->type == TVM_PLUGIN_ATTR_INT && ranged &&
           ((double)v->i < a->min || (double)v->i > a->max))
    why = "its value is out of the schema's range";
  else if (a->type == TVM_PLUGIN_ATTR_FLOAT && ranged &&
           (v->f < a->min || v->f > a->max))
    why = "its value is out of the schema's range";
  else if (a->type == TVM_PLUGIN_ATTR_BOOL && v->i != 0 && v->i != 1)
    why = "a boolean must be 0 or 1";
  else if (a->type == TVM_PLUGIN_ATTR_STRING &&
           (v->s == NULL || (a->choices && !is_choice(a->choices, v->s))))
    why = "its value is not one of the schema's choices";
  if (why == NULL) return TVM_OK;
  return tvm_diag_set(TVM_ERR_INVALID,
                      "target '%s': attribute '%s' does not fit plugin '%s' "
                      "(%s); recompile the model with this plugin "
                      "(tvmc compile --target %s)",
                      spec->name, v->name ? v->name : "?", spec->plugin_name,
                      why, spec->name);
}

/* Copies spec's values into arena a after checking them against p. */
static tvm_status copy_values(const tvm_target_spec *spec,
                              const tvm_plugin_entry *p, tvm_arena *a,
                              tvm_target *t) {
  uint32_t n = tvm_plugin_nattrs(p);
  if (spec->nattrs != n)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "target '%s' has %u attribute values, plugin '%s' "
                        "%s has %u attributes; recompile the model with this "
                        "plugin (tvmc compile --target %s)",
                        spec->name, spec->nattrs, spec->plugin_name,
                        p->version ? p->version : "", n, spec->name);
  tvm_plugin_attr_value *vals = tvm_arena_alloc(a, (n ? n : 1) * sizeof(*vals));
  if (vals == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    tvm_status st = check_value(spec, tvm_plugin_attr_at(p, i), &spec->attrs[i]);
    if (st != TVM_OK) return st;
    vals[i] = spec->attrs[i];
    vals[i].struct_size = sizeof(vals[i]);
    vals[i].name = tvm_plugin_attr_at(p, i)->name; /* the plugin's string */
    if (vals[i].s != NULL &&
        (vals[i].s = tvm_arena_strdup(a, spec->attrs[i].s)) == NULL)
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  }
  t->attrs = vals;
  t->nattrs = n;
  return TVM_OK;
}

/* Copies name, path, keys and tuning of spec into t (arena a). */
static tvm_status copy_fields(const tvm_target_spec *spec, tvm_arena *a,
                              tvm_target *t) {
  t->name = tvm_arena_strdup(a, spec->name);
  t->plugin_name = tvm_arena_strdup(a, spec->plugin_name);
  t->path = spec->path ? tvm_arena_strdup(a, spec->path) : NULL;
  if (!t->name || !t->plugin_name || (spec->path && !t->path))
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  if (spec->nkeys > 0) {
    const char **keys = tvm_arena_alloc(a, sizeof(char *) * (size_t)spec->nkeys);
    if (keys == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < spec->nkeys; i++)
      if ((keys[i] = tvm_arena_strdup(a, spec->keys[i])) == NULL)
        return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    t->keys = keys;
    t->nkeys = spec->nkeys;
  }
  if (spec->tuning) {
    t->tuning = *spec->tuning;
  } else {
    t->tuning.number = 4;
    t->tuning.repeat = 3;
    t->tuning.min_repeat_ms = 50;
    t->tuning.timeout_s = 10;
  }
  return TVM_OK;
}

/* Copies the plugin's scopes into the lowering's tvm_scope_info form. */
static tvm_status convert_scopes(tvm_target *t, runtime_target_priv *pv) {
  const tvm_plugin_target_info *in = pv->info;
  if (!RT_HAS_FIELD(tvm_plugin_target_info, in, nscopes) ||
      in->scopes == NULL || in->nscopes == 0)
    return TVM_OK;
  pv->scopes = tvm_arena_alloc(pv->arena, in->nscopes * sizeof(*pv->scopes));
  if (pv->scopes == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  for (uint32_t i = 0; i < in->nscopes; i++) {
    const tvm_plugin_scope *s = &in->scopes[i];
    if (s->name == NULL)
      return tvm_diag_set(TVM_ERR_INTERNAL,
                          "plugin '%s': scope %u of target '%s' has no name",
                          t->plugin_name, i, t->name);
    pv->scopes[i].name = s->name;
    pv->scopes[i].visibility = s->visibility;
    pv->scopes[i].size_bytes = s->size_bytes;
    pv->scopes[i].align = s->align;
    pv->scopes[i].queue = s->queue;
  }
  pv->nscopes = (int)in->nscopes;
  return TVM_OK;
}

/* Creates the plugin's instance from t's values and caches its info. */
static tvm_status instantiate(tvm_target *t, runtime_target_priv *pv) {
  const char *where = t->path ? t->path : t->name;
  int32_t (*create)(const tvm_plugin_attr_value *, uint32_t,
                    tvm_plugin_target **) = RT_SLOT(t->plugin, target_create);
  if (create == NULL)
    return tvm_diag_set(TVM_ERR_ABI, "%s: plugin '%s' (%s) has no "
                        "target_create", where, t->plugin_name,
                        t->plugin->path);
  tvm_diag_clear();
  int32_t rc = create(t->attrs, t->nattrs, &t->instance);
  if (rc != 0 || t->instance == NULL) {
    if (tvm_diag_status() == TVM_OK)
      tvm_diag_set(rc ? rc : TVM_ERR_INTERNAL, "target_create returned %d",
                   (int)rc);
    t->instance = NULL;
    return tvm_diag_prefix(rc ? rc : TVM_ERR_INTERNAL,
                           "%s: plugin '%s' refused target '%s': ", where,
                           t->plugin_name, t->name);
  }
  const tvm_plugin_target_info *(*info)(tvm_plugin_target *) =
      RT_SLOT(t->plugin, target_info);
  const tvm_plugin_target_info *ti = info ? info(t->instance) : NULL;
  if (ti != NULL && ti->struct_size >= sizeof(uint32_t)) pv->info = ti;
  return convert_scopes(t, pv);
}

/* Makes a target from spec (see tvm/runtime.h).  Nothing is left
 * allocated on failure. */
tvm_status tvm_target_create(tvm_plugin_registry *r,
                             const tvm_target_spec *spec, tvm_target **out) {
  *out = NULL;
  if (spec == NULL || spec->name == NULL || spec->plugin_name == NULL ||
      (spec->nattrs && spec->attrs == NULL) || (spec->nkeys && !spec->keys))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tvm_target_create: a target needs a name, a plugin "
                        "name and its attribute values");
  if (r == NULL) r = tvm_plugins();
  const tvm_plugin_entry *p = tvm_plugin_registry_find(r, spec->plugin_name);
  if (p == NULL) {
    char *dirs = tvm_plugin_registry_dirs(r);
    tvm_status st = tvm_diag_set(
        TVM_ERR_NOT_FOUND,
        "target '%s' needs plugin '%s', which is not loaded (searched: %s); "
        "set TVM_PLUGIN_PATH to its directory",
        spec->name, spec->plugin_name, dirs && *dirs ? dirs : "no directory");
    tvm_free(dirs);
    return st;
  }
  tvm_target *t = tvm_calloc(1, sizeof(*t));
  runtime_target_priv *pv = tvm_calloc(1, sizeof(*pv));
  tvm_arena *a = tvm_arena_create();
  if (t == NULL || pv == NULL || a == NULL) {
    tvm_free(t);
    tvm_free(pv);
    tvm_arena_destroy(a);
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  }
  pv->arena = a;
  pv->info = &empty_info;
  t->priv = pv;
  t->plugin = p;
  tvm_status st = copy_fields(spec, a, t);
  if (st == TVM_OK) st = copy_values(spec, p, a, t);
  if (st == TVM_OK) st = instantiate(t, pv);
  if (st != TVM_OK) {
    tvm_target_free(t);
    return st;
  }
  tvm_diag_clear();
  *out = t;
  return TVM_OK;
}

/* Destroys the plugin instance, then everything the target owns. */
void tvm_target_free(tvm_target *t) {
  if (t == NULL) return;
  tvm_target_free(t->fallback);
  if (t->instance != NULL) {
    void (*destroy)(tvm_plugin_target *) = RT_SLOT(t->plugin, target_destroy);
    if (destroy) destroy(t->instance);
  }
  runtime_target_priv *pv = t->priv;
  if (pv) tvm_arena_destroy(pv->arena);
  tvm_free(pv);
  tvm_free(t);
}

/* ---- queries ------------------------------------------------------------- */
const tvm_plugin_attr_value *tvm_target_attr(const tvm_target *t,
                                             const char *name) {
  for (uint32_t i = 0; t && name && i < t->nattrs; i++)
    if (t->attrs[i].name && strcmp(t->attrs[i].name, name) == 0)
      return &t->attrs[i];
  return NULL;
}

/* Does the target list key? */
int tvm_target_has_key(const tvm_target *t, const char *key) {
  for (int i = 0; t && key && i < t->nkeys; i++)
    if (strcmp(t->keys[i], key) == 0) return 1;
  return 0;
}

/* The info cached at creation (a zeroed one when the plugin has none). */
const tvm_plugin_target_info *tvm_target_info(const tvm_target *t) {
  const runtime_target_priv *pv = t ? t->priv : NULL;
  return pv ? pv->info : &empty_info;
}

/* See tvm/runtime.h. */
int tvm_target_host_memory(const tvm_target *t) {
  if (t == NULL || t->plugin == NULL || t->plugin->abi_version < 8) return 0;
  const tvm_plugin_target_info *in = tvm_target_info(t);
  return RT_HAS_FIELD(tvm_plugin_target_info, in, host_memory) &&
         in->host_memory != 0;
}

/* The scopes converted at creation. */
const tvm_scope_info *tvm_target_scopes(const tvm_target *t, int *n) {
  const runtime_target_priv *pv = t ? t->priv : NULL;
  *n = pv ? pv->nscopes : 0;
  return pv && pv->nscopes ? pv->scopes : NULL;
}

/* num_threads of t clamped to 0..4096 (0 when absent or not an INT). */
int tvm_target_num_threads(const tvm_target *t) {
  const tvm_plugin_attr_value *v = tvm_target_attr(t, "num_threads");
  if (v == NULL || v->type != TVM_PLUGIN_ATTR_INT || v->i < 0) return 0;
  return v->i > 4096 ? 4096 : (int)v->i;
}

/* Asks the plugin whether this machine can run t (no probe slot: yes). */
tvm_status tvm_target_probe(const tvm_target *t) {
  int32_t (*probe)(tvm_plugin_target *) = RT_SLOT(t->plugin, probe);
  if (probe == NULL) return TVM_OK;
  tvm_diag_clear();
  int32_t rc = probe(t->instance);
  if (rc == 0) return TVM_OK;
  if (tvm_diag_status() == TVM_OK)
    tvm_diag_set(rc, "plugin '%s' cannot run target '%s' here (probe "
                 "returned %d)", t->plugin_name, t->name, (int)rc);
  return rc < 0 ? rc : TVM_ERR_UNAVAILABLE;
}

/* Frees a blob's host-allocated parts and empties it. */
void tvm_plugin_blob_free(tvm_plugin_blob *b) {
  if (b == NULL) return;
  for (uint32_t i = 0; b->kernels && i < b->nkernels; i++)
    tvm_free((char *)b->kernels[i].name);
  tvm_free(b->kernels);
  tvm_free(b->data);
  b->kernels = NULL;
  b->nkernels = 0;
  b->data = NULL;
  b->size = 0;
}
