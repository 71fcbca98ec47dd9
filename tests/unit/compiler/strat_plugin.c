/*
 * tests/unit/compiler/strat_plugin.c - a compile-time-only plugin whose
 * strategies say which of them ran, for tests/unit/compiler/test_strategy.
 *
 * Built twice (tests/unit/compiler/local.mk):
 *   strat4  (ABI 4): strategies by name ("Relu" declines, "Abs" fails,
 *           "Exp" by name), by pattern (two elementwise ones of different
 *           priority) and a default; one tensor intrinsic whose declare()
 *           counts its calls (the intrinsic is named "intrin<count>").
 *   strat3  (STRAT_ABI3, ABI 3): a table of ABI 1-3 entries (32 bytes,
 *           no match field) naming "Exp" and "Log"; the host must walk it
 *           with a 32-byte stride and match by name only.
 * A strategy that runs tags the output "<strategy name>|<intrinsic>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/plugin.h"

/* each build uses half of the strategies below */
#pragma GCC diagnostic ignored "-Wunused-function"

static const tvm_host_api *host;
static int declared;

struct tvm_plugin_target {
  tvm_plugin_target_info info;
};

/* Tags outs[0] with the strategy's name and what it was handed. */
static int32_t mark(const char *name, const tvm_plugin_strategy_call *call,
                    tvm_schedule *s, tvm_tensor **outs) {
  char tag[128];
  const char *in = call && call->nintrins == 1 && call->intrins[0]
                       ? call->intrins[0]->name
                       : "-";
  snprintf(tag, sizeof tag, "%s|%s|%s", name, in,
           call && call->op ? call->op : "-");
  tvm_tensor_set_tag(outs[0], tvm_ctx_strdup(s->ctx, tag));
  return 0;
}

#define STRAT(fn, label)                                                   \
  static int32_t fn(tvm_plugin_target *t, const tvm_plugin_strategy_call *c, \
                    tvm_schedule *s, tvm_tensor **outs, uint32_t n,       \
                    tvm_config *cfg) {                                    \
    (void)t, (void)n, (void)cfg;                                          \
    return mark(label, c, s, outs);                                       \
  }
STRAT(s_exp, "exact.exp")
STRAT(s_elem_lo, "pattern.elemwise.lo")
STRAT(s_elem_hi, "pattern.elemwise.hi")
STRAT(s_default, "default")

static int32_t s_decline(tvm_plugin_target *t,
                         const tvm_plugin_strategy_call *c, tvm_schedule *s,
                         tvm_tensor **outs, uint32_t n, tvm_config *cfg) {
  (void)t, (void)c, (void)s, (void)outs, (void)n, (void)cfg;
  host->report(TVM_ERR_UNSUPPORTED, "strat: not this shape");
  return TVM_ERR_UNSUPPORTED;
}

static int32_t s_fail(tvm_plugin_target *t, const tvm_plugin_strategy_call *c,
                      tvm_schedule *s, tvm_tensor **outs, uint32_t n,
                      tvm_config *cfg) {
  (void)t, (void)c, (void)s, (void)outs, (void)n, (void)cfg;
  host->report(TVM_ERR_INVALID, "strat: broken template");
  return TVM_ERR_INVALID;
}

/* ABI 1-3 signature: no call context. */
static int32_t s_legacy_exp(tvm_plugin_target *t, tvm_schedule *s,
                            tvm_tensor **outs, uint32_t n, tvm_config *cfg) {
  (void)t, (void)n, (void)cfg;
  return mark("legacy.exp", NULL, s, outs);
}
static int32_t s_legacy_log(tvm_plugin_target *t, tvm_schedule *s,
                            tvm_tensor **outs, uint32_t n, tvm_config *cfg) {
  (void)t, (void)n, (void)cfg;
  return mark("legacy.log", NULL, s, outs);
}

#ifdef STRAT_ABI3
/* The ABI 1-3 layout of tvm_plugin_strategy, as an old plugin has it. */
typedef struct legacy_strategy {
  uint32_t struct_size;
  int32_t priority;
  const char *op, *name;
  int32_t (*schedule)(tvm_plugin_target *, tvm_schedule *, tvm_tensor **,
                      uint32_t, tvm_config *);
} legacy_strategy;
static const legacy_strategy strategies[] = {
    {sizeof(legacy_strategy), 1, "Exp", "legacy.exp", s_legacy_exp},
    {sizeof(legacy_strategy), 1, "Log", "legacy.log", s_legacy_log},
};
#define NSTRAT 2
#define ABI 3
#else
#define S(prio, match, pat, op, name, fn)                                   \
  {sizeof(tvm_plugin_strategy), prio, op, name, NULL, match, pat, fn}
static const tvm_plugin_strategy strategies[] = {
    S(1, TVM_STRATEGY_MATCH_DEFAULT, 0, "*", "default", s_default),
    S(5, TVM_STRATEGY_MATCH_PATTERN, 0, "elemwise", "pattern.elemwise.lo",
      s_elem_lo),
    S(9, TVM_STRATEGY_MATCH_PATTERN, 0, "elemwise", "pattern.elemwise.hi",
      s_elem_hi),
    S(1, TVM_STRATEGY_MATCH_OP, 0, "Relu", "exact.relu.declines", s_decline),
    S(1, TVM_STRATEGY_MATCH_OP, 0, "Abs", "exact.abs.fails", s_fail),
    S(1, TVM_STRATEGY_MATCH_OP, 0, "Exp", "exact.exp", s_exp),
    /* an ABI 1-style entry in an ABI 4 table: schedule() only */
    {sizeof(tvm_plugin_strategy), 1, "Log", "legacy.log", s_legacy_log,
     TVM_STRATEGY_MATCH_OP, 0, NULL},
};
#define NSTRAT (sizeof strategies / sizeof strategies[0])
#define ABI 4
#endif

/* c[i, j] = a[i, j]: enough of a pattern to exist. */
static tvm_expr *copy_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  return tvm_tread(c, ud, i, 1);
}

static tvm_status no_emit(tvm_ctx *c, const tvm_tensor_intrin *ti,
                          tvm_buffer **in, int nin, tvm_buffer *out,
                          tvm_stmt **body, tvm_stmt **reset,
                          tvm_stmt **update) {
  (void)c, (void)ti, (void)in, (void)nin, (void)out, (void)body, (void)reset,
      (void)update;
  return TVM_ERR_UNSUPPORTED;
}

static int32_t declare(tvm_plugin_target *t, tvm_ctx *c,
                       tvm_tensor_intrin **out) {
  char name[32];
  (void)t;
  snprintf(name, sizeof name, "intrin%d", ++declared);
  tvm_tensor *a = tvm_placeholder(c, "a", TVM_F32, (int64_t[]){4}, 1);
  tvm_tensor *p = a ? tvm_compute(c, "c", (int64_t[]){4}, 1, copy_body, a)
                    : NULL;
  *out = p ? tvm_tensor_intrin_new(c, tvm_ctx_strdup(c, name), p, no_emit,
                                   NULL)
           : NULL;
  return *out ? 0 : TVM_ERR_NOMEM;
}

static const tvm_plugin_intrin intrins[] = {
    {sizeof(tvm_plugin_intrin), 0, "counted", declare},
};

static int32_t target_create(const tvm_plugin_attr_value *v, uint32_t n,
                             tvm_plugin_target **out) {
  (void)v, (void)n;
  tvm_plugin_target *t = calloc(1, sizeof *t);
  if (!t) return TVM_ERR_NOMEM;
  t->info.struct_size = sizeof t->info;
  t->info.vector_bits = 128;
  t->info.strategies = (const tvm_plugin_strategy *)(const void *)strategies;
  t->info.nstrategies = NSTRAT;
  t->info.intrins = intrins;
  t->info.nintrins = 1;
  t->info.description = "strategy test target";
  *out = t;
  return 0;
}

static void target_destroy(tvm_plugin_target *t) { free(t); }

static const tvm_plugin_target_info *target_info(tvm_plugin_target *t) {
  return &t->info;
}

static const tvm_plugin_vtable vtable = {
    .struct_size = sizeof(tvm_plugin_vtable),
    .target_create = target_create,
    .target_destroy = target_destroy,
    .target_info = target_info,
};

static const tvm_plugin_desc desc = {sizeof(tvm_plugin_desc), ABI,
#ifdef STRAT_ABI3
                                     "strat3",
#else
                                     "strat4",
#endif
                                     "0.1", "strategy test plugin", &vtable};

TVM_PLUGIN_EXPORT const tvm_plugin_desc *tvm_plugin_query(
    uint32_t host_abi_max, const tvm_host_api *h) {
  if (host_abi_max < ABI) return NULL;
  host = h;
  return &desc;
}
