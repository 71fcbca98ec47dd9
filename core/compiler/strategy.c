/*
 * core/compiler/strategy.c - choosing and running the schedule of a
 * computation on a target (tvm/strategy.h): the strategy environment
 * (the target's generic family, vector lanes, intrinsics declared once),
 * the candidate chain exact name > pattern > default > core generic, and
 * the one failure rule (TVM_ERR_UNSUPPORTED declines, anything else is
 * an error naming operator, strategy and target).
 */
#include <string.h>

#include "tvm/strategy.h"
#include "compiler_int.h"

#define MAX_CANDIDATES 16

struct tvm_strategy_env {
  const tvm_target *t;
  tvm_ctx *ctx;
  tvm_schedule_family family;
  int lanes;
  int max_threads, warp;
  int declared;             /* intrinsics declared */
  int nintrins;
  tvm_tensor_intrin **intrins;
  const char **intrin_names;
};

/* See tvm/strategy.h. */
tvm_status tvm_strategy_env_create(const tvm_target *t, tvm_ctx *ctx,
                                   tvm_strategy_env **out) {
  const tvm_plugin_target_info *info = tvm_target_info(t);
  tvm_lower_options lo;
  int threads, cpu, gpu;
  *out = NULL;
  tvm_target_lower_options(t, &lo);
  threads = lo.has_threads;
  cpu = tvm_target_has_key(t, "cpu");
  gpu = tvm_target_has_key(t, "gpu");
  if (threads && cpu && !gpu)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: target '%s' launches thread kernels "
                        "(has_threads) but its keys select the cpu schedule "
                        "family; use `keys: [gpu]`",
                        t->path ? t->path : "target", t->name);
  if (!threads && gpu)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s: target '%s' has keys [gpu] (the thread schedule "
                        "family) but its plugin launches no thread kernels "
                        "(has_threads = 0); use `keys: [cpu]` or another key",
                        t->path ? t->path : "target", t->name);
  tvm_strategy_env *e = tvm_calloc(1, sizeof *e);
  if (!e)
    return tvm_diag_set(TVM_ERR_NOMEM, "strategy: out of memory");
  e->t = t;
  e->ctx = ctx;
  e->family = threads ? TVM_FAMILY_THREAD : TVM_FAMILY_CPU;
  /* fewer than 4 lanes of 32 bits: scalar code (vector_width below needs
   * at least 4 lanes); the default when the plugin says nothing is the
   * lowering's (256 bits) */
  e->lanes = lo.vector_bits / 32 >= 4 ? lo.vector_bits / 32 : 0;
  e->max_threads = 1024;
  if (offsetof(tvm_plugin_target_info, max_threads_per_block) +
              sizeof(uint32_t) <=
          info->struct_size &&
      info->max_threads_per_block)
    e->max_threads = (int)info->max_threads_per_block;
  e->warp = 32;
  if (offsetof(tvm_plugin_target_info, thread_warp_size) + sizeof(uint32_t) <=
          info->struct_size &&
      info->thread_warp_size)
    e->warp = (int)info->thread_warp_size;
  *out = e;
  return TVM_OK;
}

void tvm_strategy_env_free(tvm_strategy_env *e) {
  if (!e)
    return;
  tvm_free(e->intrins);
  tvm_free(e->intrin_names);
  tvm_free(e);
}

tvm_schedule_family tvm_strategy_env_family(const tvm_strategy_env *e) {
  return e->family;
}

int tvm_strategy_env_lanes(const tvm_strategy_env *e) { return e->lanes; }

/* Declares every intrinsic of the target once in the env's ctx. */
tvm_status tvm_strategy_env_intrins(tvm_strategy_env *e,
                                    tvm_tensor_intrin *const **intrins,
                                    const char *const **names, int *n) {
  const tvm_plugin_target_info *info = tvm_target_info(e->t);
  if (!e->declared) {
    int ni = 0;
    if (offsetof(tvm_plugin_target_info, intrins) + sizeof(void *) <=
            info->struct_size &&
        info->intrins)
      ni = (int)info->nintrins;
    e->intrins = tvm_calloc((size_t)ni + 1, sizeof *e->intrins);
    e->intrin_names = tvm_calloc((size_t)ni + 1, sizeof *e->intrin_names);
    if (!e->intrins || !e->intrin_names)
      return tvm_diag_set(TVM_ERR_NOMEM, "strategy: out of memory");
    for (int i = 0; i < ni; i++) {
      const tvm_plugin_intrin *pi = &info->intrins[i];
      e->intrin_names[i] = pi->name;
      if (!pi->declare)
        continue;
      tvm_diag_clear();
      int32_t rc = pi->declare(e->t->instance, e->ctx, &e->intrins[i]);
      if (rc != 0 || !e->intrins[i]) {
        tvm_log(TVM_LOG_WARN,
                "target '%s': declaring tensor intrinsic '%s' failed (%s); "
                "strategies see it as NULL",
                e->t->name, pi->name ? pi->name : "?", tvm_diag_message());
        e->intrins[i] = NULL;
        tvm_diag_clear();
      }
    }
    e->nintrins = ni;
    e->declared = 1;
  }
  *intrins = e->intrins;
  *names = e->intrin_names;
  *n = e->nintrins;
  return TVM_OK;
}

/* See compiler_int.h. */
tvm_status compiler_strategy_apply(const tvm_target *t, tvm_ctx *ctx,
                                   const tvm_plugin_strategy *p,
                                   const tvm_gnode *anchor, tvm_schedule *s,
                                   tvm_tensor **outs, int nouts,
                                   tvm_config *cfg) {
  tvm_strategy_env *e = NULL;
  tvm_plugin_strategy_call call;
  tvm_tensor_intrin *const *in;
  const char *const *names;
  int ni;
  tvm_status st = tvm_strategy_env_create(t, ctx, &e);
  if (!st)
    st = tvm_strategy_env_intrins(e, &in, &names, &ni);
  if (!st) {
    memset(&call, 0, sizeof call);
    call.struct_size = sizeof call;
    call.nintrins = (uint32_t)ni;
    call.anchor = anchor;
    call.op = anchor ? anchor->op : NULL;
    call.intrins = in;
    call.intrin_names = names;
    if (p->struct_size >= sizeof(tvm_plugin_strategy) && p->schedule_call)
      st = p->schedule_call(t->instance, &call, s, outs, (uint32_t)nouts, cfg);
    else if (p->schedule)
      st = p->schedule(t->instance, s, outs, (uint32_t)nouts, cfg);
    else
      st = tvm_diag_set(TVM_ERR_INVALID, "strategy '%s' has no schedule "
                                         "function",
                        p->name ? p->name : "?");
  }
  tvm_strategy_env_free(e);
  return st;
}

/* Runs strategy p on a fresh schedule of outs. */
static tvm_status run_one(tvm_strategy_env *e, const tvm_plugin_strategy *p,
                          const tvm_plugin_strategy_call *call,
                          tvm_tensor **outs, int nouts, tvm_config *cfg,
                          tvm_schedule **sp) {
  tvm_status st = tvm_schedule_create(e->ctx, outs, nouts, sp);
  if (st)
    return st;
  tvm_diag_clear();
  if (p->struct_size >= sizeof(tvm_plugin_strategy) && p->schedule_call)
    st = p->schedule_call(e->t->instance, call, *sp, outs, (uint32_t)nouts,
                          cfg);
  else
    st = p->schedule(e->t->instance, *sp, outs, (uint32_t)nouts, cfg);
  if (st && tvm_diag_status() == TVM_OK)
    tvm_diag_set(st, "returned %d", (int)st);
  if (st) {
    tvm_schedule_free(*sp);
    *sp = NULL;
  }
  return st;
}

/* out[0] = t[]: a 1-element view of a 0-d tensor (same bytes). */
static tvm_expr *scalar_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  (void)i;
  return tvm_tread(c, ud, NULL, 0);
}

/* Thread targets: a 0-d output has no axis to bind; it becomes a
 * 1-element tensor computed by one thread (outs[k] is replaced; the
 * buffer holds the same single element). */
static tvm_status wrap_scalar_outputs(tvm_ctx *c, tvm_tensor **outs,
                                      int nouts) {
  for (int k = 0; k < nouts; k++) {
    if (outs[k]->ndim != 0 || outs[k]->op->kind != TVM_OP_COMPUTE)
      continue;
    tvm_tensor *w = tvm_compute(c, tvm_ctx_strdup(c, outs[k]->name),
                                (int64_t[]){1}, 1, scalar_body, outs[k]);
    if (!w)
      return tvm_ctx_status(c) ? tvm_ctx_status(c) : tvm_diag_status();
    tvm_tensor_set_tag(w, "injective");
    outs[k] = w;
  }
  return TVM_OK;
}

static tvm_status generic(tvm_strategy_env *e, const char *op,
                          tvm_tensor **outs, int nouts, tvm_config *cfg,
                          tvm_schedule **sp, const char **used);

/* See tvm/strategy.h. */
tvm_status tvm_strategy_schedule(tvm_strategy_env *e, const char *op,
                                 int pattern, const tvm_gnode *anchor,
                                 tvm_tensor **outs, int nouts,
                                 tvm_config *cfg, tvm_schedule **sp,
                                 const char **used) {
  const tvm_plugin_strategy *cand[MAX_CANDIDATES];
  tvm_plugin_strategy_call call;
  tvm_tensor_intrin *const *in;
  const char *const *names;
  int ni, n;
  tvm_status st;
  *sp = NULL;
  if ((st = tvm_strategy_env_intrins(e, &in, &names, &ni)))
    return st;
  memset(&call, 0, sizeof call);
  call.struct_size = sizeof call;
  call.nintrins = (uint32_t)ni;
  call.anchor = anchor;
  call.op = op;
  call.intrins = in;
  call.intrin_names = names;
  n = tvm_target_strategies(e->t, op, pattern, cand, MAX_CANDIDATES);
  for (int i = 0; i < n; i++) {
    st = run_one(e, cand[i], &call, outs, nouts, cfg, sp);
    if (st == TVM_OK) {
      if (used)
        *used = cand[i]->name;
      return TVM_OK;
    }
    if (st != TVM_ERR_UNSUPPORTED)
      return tvm_diag_prefix(st,
                             "strategy '%s' of target '%s' failed on "
                             "operator %s (a strategy that does not apply "
                             "must return TVM_ERR_UNSUPPORTED): ",
                             cand[i]->name ? cand[i]->name : "?", e->t->name,
                             op ? op : "?");
    tvm_log(TVM_LOG_DEBUG, "strategy '%s' of target '%s' declines %s: %s",
            cand[i]->name ? cand[i]->name : "?", e->t->name, op ? op : "?",
            tvm_diag_message());
    tvm_diag_clear();
  }
  return generic(e, op, outs, nouts, cfg, sp, used);
}

/* See compiler_int.h. */
const tvm_plugin_strategy compiler_generic_thread_strategy = {
    .struct_size = sizeof(tvm_plugin_strategy),
    .name = "core.generic_thread"};

/* See compiler_int.h. */
tvm_status compiler_strategy_generic(const tvm_target *t, tvm_ctx *ctx,
                                     tvm_tensor **outs, int nouts,
                                     tvm_config *cfg, tvm_schedule **sp,
                                     const char **used) {
  tvm_strategy_env *e = NULL;
  *sp = NULL;
  tvm_status st = tvm_strategy_env_create(t, ctx, &e);
  if (!st)
    st = generic(e, NULL, outs, nouts, cfg, sp, used);
  tvm_strategy_env_free(e);
  return st;
}

/* The generic schedule of e's family (see compiler_strategy_generic). */
static tvm_status generic(tvm_strategy_env *e, const char *op,
                          tvm_tensor **outs, int nouts, tvm_config *cfg,
                          tvm_schedule **sp, const char **used) {
  tvm_status st;
  if (e->family == TVM_FAMILY_THREAD &&
      (st = wrap_scalar_outputs(e->ctx, outs, nouts)))
    return st;
  if ((st = tvm_schedule_create(e->ctx, outs, nouts, sp)))
    return st;
  if (e->family == TVM_FAMILY_THREAD) {
    st = tvm_schedule_generic_thread(*sp, outs, nouts, e->max_threads,
                                     e->warp, cfg);
    if (used)
      *used = "core.generic_thread";
  } else {
    st = tvm_schedule_generic_cpu(*sp, outs, nouts, e->lanes);
    if (used)
      *used = "core.generic_cpu";
  }
  if (st) {
    tvm_schedule_free(*sp);
    *sp = NULL;
    return tvm_diag_prefix(st, "generic %s schedule of operator %s on target "
                               "'%s': ",
                           e->family == TVM_FAMILY_THREAD ? "thread" : "cpu",
                           op ? op : "?", e->t->name);
  }
  return TVM_OK;
}

/* The CPU family (schedule_generic.c). */
tvm_status tvm_schedule_generic_cpu(tvm_schedule *s, tvm_tensor **outs,
                                    int nouts, int lanes) {
  return compiler_schedule_generic(s, outs, nouts, lanes);
}
