/*
 * core/runtime/plan.c - allocation and release of execution plans, and
 * the target a plan records.
 *
 * A plan made by tvm_plan_new (by the compiler or by the package reader)
 * owns an arena (plan_priv, in p->priv) holding every string and array
 * the plan points to, parameter data and target attributes included; the
 * blob's data, kernel table and kernel names come from tvm_malloc (the
 * host allocator) and die with tvm_plugin_blob_free.  tvm_plan_free
 * frees both.
 */
#include <string.h>

#include "runtime_int.h"

typedef struct plan_priv {
  tvm_arena *arena; /* everything the plan points to, except the blob */
} plan_priv;

/* A zeroed plan whose priv owns a fresh arena. */
tvm_status tvm_plan_new(tvm_plan **out) {
  tvm_plan *p = tvm_calloc(1, sizeof *p);
  plan_priv *pv = tvm_calloc(1, sizeof *pv);
  tvm_arena *a = tvm_arena_create();
  *out = NULL;
  if (!p || !pv || !a) {
    tvm_free(p);
    tvm_free(pv);
    if (a)
      tvm_arena_destroy(a);
    return tvm_diag_set(TVM_ERR_NOMEM, "plan: out of memory");
  }
  pv->arena = a;
  p->priv = pv;
  *out = p;
  return TVM_OK;
}

/* The plan's arena. */
tvm_arena *tvm_plan_arena(tvm_plan *p) {
  return p && p->priv ? ((plan_priv *)p->priv)->arena : NULL;
}

/* Frees the plan, its arena (values, steps, names, parameter data) and
 * its device blob. */
void tvm_plan_free(tvm_plan *p) {
  if (!p)
    return;
  tvm_plugin_blob_free(&p->blob);
  tvm_plugin_blob_free(&p->fallback_blob);
  if (p->priv) {
    plan_priv *pv = p->priv;
    if (pv->arena)
      tvm_arena_destroy(pv->arena);
    tvm_free(pv);
  }
  tvm_free(p);
}

/* Copies t's name, plugin, plugin version and attribute values into a. */
static tvm_status record(tvm_arena *a, const tvm_target *t, const char **name,
                         const char **plugin, const char **version,
                         const tvm_plugin_attr_value **attrs, uint32_t *n) {
  *name = tvm_arena_strdup(a, t->name);
  *plugin = tvm_arena_strdup(a, t->plugin_name);
  *version = tvm_arena_strdup(
      a, t->plugin && t->plugin->version ? t->plugin->version : "");
  tvm_plugin_attr_value *v =
      tvm_arena_alloc(a, sizeof(*v) * (t->nattrs ? t->nattrs : 1));
  if (!*name || !*plugin || !*version || !v)
    return tvm_diag_set(TVM_ERR_NOMEM, "plan: out of memory");
  for (uint32_t i = 0; i < t->nattrs; i++) {
    v[i] = t->attrs[i];
    v[i].name = tvm_arena_strdup(a, t->attrs[i].name);
    if (t->attrs[i].s) v[i].s = tvm_arena_strdup(a, t->attrs[i].s);
    if (!v[i].name || (t->attrs[i].s && !v[i].s))
      return tvm_diag_set(TVM_ERR_NOMEM, "plan: out of memory");
  }
  *attrs = v;
  *n = t->nattrs;
  return TVM_OK;
}

/* Records t (and its fallback) in p. */
tvm_status tvm_plan_set_target(tvm_plan *p, const tvm_target *t) {
  tvm_arena *a = tvm_plan_arena(p);
  if (a == NULL || t == NULL)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_plan_set_target: no plan or "
                        "target (make plans with tvm_plan_new)");
  tvm_status st = record(a, t, &p->target_name, &p->plugin_name,
                         &p->plugin_version, &p->target_attrs,
                         &p->ntarget_attrs);
  if (st == TVM_OK && t->fallback)
    st = record(a, t->fallback, &p->fallback_target_name,
                &p->fallback_plugin_name, &p->fallback_plugin_version,
                &p->fallback_attrs, &p->nfallback_attrs);
  return st;
}

/* The target p was built for, from what it records (no YAML). */
tvm_status tvm_plan_target(const tvm_plan *p, tvm_plugin_registry *r,
                           tvm_target **out) {
  *out = NULL;
  if (p == NULL || p->target_name == NULL || p->plugin_name == NULL)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_plan_target: the plan records "
                        "no target");
  if (p->target_attrs == NULL)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "the plan for target '%s' records no attribute values "
                        "(a package of format version 1): recompile the model "
                        "with this tvmc (tvmc compile --target %s) to run it "
                        "without the target's YAML file",
                        p->target_name, p->target_name);
  tvm_target_spec spec = {p->target_name, p->plugin_name, NULL, NULL, 0,
                          p->target_attrs, p->ntarget_attrs, NULL};
  tvm_status st = tvm_target_create(r, &spec, out);
  if (st != TVM_OK)
    return tvm_diag_prefix(st, "making the target of the plan: ");
  if (p->fallback_plugin_name) { /* a heterogeneous plan: its fallback */
    tvm_target_spec fs = {p->fallback_target_name, p->fallback_plugin_name,
                          NULL, NULL, 0, p->fallback_attrs,
                          p->nfallback_attrs, NULL};
    if ((st = tvm_target_create(r, &fs, &(*out)->fallback)) != TVM_OK) {
      tvm_target_free(*out);
      *out = NULL;
      return tvm_diag_prefix(st, "making the fallback target of the plan: ");
    }
    (*out)->fallback_name = (*out)->fallback->name;
  }
  return TVM_OK;
}
