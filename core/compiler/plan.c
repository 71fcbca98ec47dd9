/*
 * core/compiler/plan.c - allocation and release of execution plans (see
 * compiler_int.h for who owns what).
 */
#include <string.h>

#include "compiler_int.h"

/* A zeroed plan whose priv owns a fresh arena. */
tvm_status compiler_plan_new(tvm_plan **out) {
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

tvm_arena *compiler_plan_arena(tvm_plan *p) {
  return p && p->priv ? ((plan_priv *)p->priv)->arena : NULL;
}

/* Frees the plan, its arena (values, steps, names, parameter data) and
 * its device blob. */
void tvm_plan_free(tvm_plan *p) {
  if (!p)
    return;
  tvm_plugin_blob_free(&p->blob);
  if (p->priv) {
    plan_priv *pv = p->priv;
    if (pv->arena)
      tvm_arena_destroy(pv->arena);
    tvm_free(pv);
  }
  tvm_free(p);
}
