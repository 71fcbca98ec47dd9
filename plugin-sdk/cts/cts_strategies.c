/*
 * plugin-sdk/cts/cts_strategies.c - the conformance checks of what a
 * plugin contributes to scheduling:
 *
 *  - every strategy it registers runs on the example cases of its
 *    operator (plugin-sdk/tools/backend_ops_cases.c, several shapes):
 *    the operator's compute over placeholders, scheduled by the strategy
 *    itself (not the compiler, which would fall back to the generic
 *    schedule and hide a failing template), lowered with the target's
 *    options, compiled, and - when the machine can run the target - run
 *    and compared with the operator's reference.  A strategy may decline
 *    a shape (TVM_ERR_UNSUPPORTED: SKIP with its reason), but one that
 *    declines every case fails;
 *  - the alter_layout slot, when the plugin has one, on convolution nodes:
 *    well-formed answers, and the convolutions compiled with them (the
 *    whole pipeline) match the reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cts.h"
#include "tvm/config.h"
#include "../tools/backend_ops.h"

/* Lowers s over args into a module in c, then codegen only (d == NULL)
 * or build + run on d, reading outputs back into bn->dgot.  Returns the
 * status with the detail in the diagnostic. */
static tvm_status lower_and_run(const tvm_target *t, tvm_device *d,
                                tvm_ctx *c, tvm_schedule *s,
                                tvm_tensor **args, DLTensor **argd, int na,
                                int nouts, bo_node *bn) {
  tvm_lower_options lo;
  tvm_lower_options_init(&lo);
  tvm_target_lower_options(t, &lo);
  tvm_module *m = tvm_ctx_alloc(c, sizeof *m);
  if (!m) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  m->ctx = c;
  tvm_status st = tvm_lower(s, args, na, "cts_strategy", &lo, m);
  if (st) return st;
  if (!d) {
    tvm_plugin_blob b;
    st = tvm_target_codegen(t, m, &b);
    if (!st) tvm_plugin_blob_free(&b);
    return st;
  }
  tvm_runtime_module *rm = NULL;
  tvm_runtime_func *f = NULL;
  void *dp[BO_MAXIN + BO_MAXOUT] = {0};
  tvm_plugin_arg pa[BO_MAXIN + BO_MAXOUT];
  st = tvm_build(t, m, d, &rm);
  if (!st) st = tvm_runtime_get_func(rm, "cts_strategy", &f);
  for (int i = 0; !st && i < na; i++) {
    size_t bytes = (size_t)tvm_dtype_bytes(argd[i]->dtype);
    for (int k = 0; k < argd[i]->ndim; k++) bytes *= (size_t)argd[i]->shape[k];
    if (bytes == 0) bytes = 1;
    st = tvm_device_alloc(d, 0, bytes, 64, &dp[i]);
    if (!st)
      st = tvm_device_copy(d, dp[i], 0, argd[i]->data, 0, bytes,
                           TVM_COPY_HOST_TO_DEVICE);
    pa[i].type = TVM_ARG_PTR;
    pa[i].reserved = 0;
    pa[i].v.ptr = dp[i];
  }
  if (!st) st = tvm_runtime_call(f, pa, (uint32_t)na);
  for (int i = na - nouts; !st && i < na; i++) {
    size_t bytes = (size_t)tvm_dtype_bytes(argd[i]->dtype);
    for (int k = 0; k < argd[i]->ndim; k++) bytes *= (size_t)argd[i]->shape[k];
    st = tvm_device_copy(d, argd[i]->data, 0, dp[i], 0, bytes ? bytes : 1,
                         TVM_COPY_DEVICE_TO_HOST);
  }
  for (int i = 0; i < na; i++)
    if (dp[i]) tvm_device_free(d, 0, dp[i]);
  tvm_runtime_module_free(rm);
  (void)bn;
  return st;
}

/* Case bn scheduled by strat on t: PASS, SKIP (the strategy declines it),
 * or FAIL, with why. */
static bo_result strategy_case(const tvm_target *t, tvm_device *d,
                               const tvm_plugin_strategy *strat, bo_node *bn,
                               char *why, size_t cap) {
  const tvm_gnode *n = bn->node;
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *in[BO_MAXIN] = {0}, *out[BO_MAXOUT] = {0};
  tvm_schedule *s = NULL;
  tvm_config *cfg = tvm_config_create();
  bo_result r = BO_FAIL;
  tvm_status st = c && cfg ? TVM_OK : TVM_ERR_NOMEM;
  for (int i = 0; !st && i < n->ninputs; i++) {
    const tvm_gvalue *v = n->inputs[i];
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    if (v && !(in[i] = tvm_placeholder(c, name, v->dtype, v->shape, v->ndim)))
      st = tvm_ctx_status(c);
  }
  if (!st) st = n->def->compute(c, n, in, out);
  if (!st) st = tvm_schedule_create(c, out, n->noutputs, &s);
  if (st) {
    snprintf(why, cap, "compute: %s", tvm_diag_message());
    goto done;
  }
  tvm_diag_clear();
  st = strat->schedule(t->instance, s, out, (uint32_t)n->noutputs, cfg);
  if (st) {
    snprintf(why, cap, "the strategy declines it: %s",
             tvm_diag_message()[0] ? tvm_diag_message() : tvm_status_name(st));
    r = bo_is_unsupported(st) ? BO_SKIP : BO_FAIL;
    goto done;
  }
  /* parameters: the inputs the compute reads, then the outputs */
  tvm_tensor *args[BO_MAXIN + BO_MAXOUT];
  DLTensor *argd[BO_MAXIN + BO_MAXOUT];
  int na = 0;
  for (int i = 0; i < n->ninputs; i++)
    if (in[i] && tvm_stage_of(s, in[i])) {
      args[na] = in[i];
      argd[na++] = &bn->din[i];
    }
  for (int k = 0; k < n->noutputs; k++) {
    args[na] = out[k];
    argd[na++] = &bn->dgot[k];
  }
  st = lower_and_run(t, d, c, s, args, argd, na, n->noutputs, bn);
  if (st) {
    snprintf(why, cap, "%s", tvm_diag_message());
    goto done;
  }
  r = d ? bo_node_compare(bn, n->op, why, cap) : BO_PASS;
done:
  tvm_config_free(cfg);
  tvm_schedule_free(s);
  tvm_ctx_destroy(c);
  return r;
}

/* Does case c sweep dtypes (has a "D" input)? */
static int sweeps(const bo_case *c) {
  for (const char *p = c->inputs; *p; p++)
    if (*p == 'D' && (p == c->inputs || p[-1] == ' ' || p[-1] == '#'))
      return 1;
  return 0;
}

/* See cts.h. */
void cts_check_strategies(const tvm_target *t, tvm_device *d) {
  const tvm_plugin_target_info *info = tvm_target_info(t);
  char what[512], why[1024], shape[256], dn[16];
  if (info->nstrategies == 0) {
    cts_skip("strategies", "the plugin registers none");
    return;
  }
  for (uint32_t k = 0; k < info->nstrategies; k++) {
    const tvm_plugin_strategy *strat = &info->strategies[k];
    if (!strat->op || !strat->schedule) continue; /* check_info failed it */
    const tvm_gop_def *def = tvm_gop_find(strat->op);
    snprintf(what, sizeof what, "strategy %s (%s)", strat->name, strat->op);
    if (!def || !def->compute) {
      snprintf(why, sizeof why,
               "'%s' is not a compiled operator of the registry, so the "
               "CTS has no compute to schedule with it",
               strat->op);
      cts_skip(what, why);
      continue;
    }
    bo_case cases[16];
    int generic = 0, ran = 0, tried = 0;
    int nc = bo_cases_for(def, cases, 16, &generic);
    char last[1024] = "no example case";
    for (int i = 0; i < nc; i++) {
      int nd = sweeps(&cases[i]) ? bo_ndtypes : 1;
      for (int j = 0; j < nd; j++) {
        bo_node bn;
        bo_result r = bo_node_build(&cases[i], bo_dtypes[j], &bn, shape,
                                    sizeof shape, why, sizeof why);
        if (r == BO_UNSUPPORTED) continue;
        snprintf(what, sizeof what, "strategy %s on %s %s%s%s%s%s%s%s",
                 strat->name, strat->op, shape, nd > 1 ? " " : "",
                 nd > 1 ? bo_dtype_name(bo_dtypes[j], dn) : "",
                 *cases[i].attrs ? " {" : "", cases[i].attrs,
                 *cases[i].attrs ? "}" : "",
                 d ? "" : " (compiled only: no device)");
        tried++;
        if (r == BO_PASS) {
          r = strategy_case(t, d, strat, &bn, why, sizeof why);
          bo_node_free(&bn);
        }
        if (r == BO_PASS) {
          ran++;
          cts_check(1, what, "");
        } else if (r == BO_SKIP) {
          snprintf(last, sizeof last, "%s", why);
          cts_skip(what, why);
        } else {
          cts_check(0, what, why);
        }
      }
    }
    snprintf(what, sizeof what,
             "strategy %s schedules at least one of the %d example cases of %s",
             strat->name, tried, strat->op);
    snprintf(why, sizeof why, "it declined every one (last: %s)", last);
    cts_check(ran > 0, what, why);
  }
}

/* Is s "NCHW" or "NCHW<b>c" with b > 0 dividing channels? */
static int nchwc_ok(const char *s, int64_t channels) {
  if (strcmp(s, "NCHW") == 0) return 1;
  char *end;
  if (strncmp(s, "NCHW", 4) != 0) return 0;
  long long b = strtoll(s + 4, &end, 10);
  return b > 0 && strcmp(end, "c") == 0 && channels % b == 0;
}

/* See cts.h. */
void cts_check_alter_layout(const tvm_target *t, tvm_device *d) {
  const tvm_plugin_vtable *vt = t->plugin->desc->vtable;
  if (t->plugin->abi_version < 3 ||
      vt->struct_size <= offsetof(tvm_plugin_vtable, alter_layout) ||
      !vt->alter_layout) {
    cts_skip("alter_layout", "the plugin has no alter_layout slot (ABI 3)");
    return;
  }
  const tvm_gop_def *conv = tvm_gop_find("Conv");
  bo_case cases[16];
  int generic = 0, changed = 0;
  int nc = conv ? bo_cases_for(conv, cases, 16, &generic) : 0;
  char what[512], why[1024], shape[256];
  for (int i = 0; i < nc; i++) {
    bo_node bn;
    if (bo_node_build(&cases[i], TVM_F32, &bn, shape, sizeof shape, why,
                      sizeof why) != BO_PASS)
      continue;
    tvm_plugin_layout lay;
    snprintf(what, sizeof what, "alter_layout on Conv %s {%s}", shape,
             cases[i].attrs);
    tvm_status st = tvm_target_alter_layout(t, bn.node, &lay);
    int64_t xs[TVM_MAX_DIMS], ws[TVM_MAX_DIMS];
    int xr = tvm_gnode_input_shape(bn.node, 0, xs);
    int wr = tvm_gnode_input_shape(bn.node, 1, ws);
    bo_node_free(&bn);
    if (st) {
      cts_check(0, what, tvm_diag_message());
      continue;
    }
    int ok = 1;
    why[0] = 0;
    if (!memchr(lay.data, 0, sizeof lay.data) ||
        !memchr(lay.weight, 0, sizeof lay.weight) ||
        !memchr(lay.out, 0, sizeof lay.out))
      ok = 0, snprintf(why, sizeof why, "a layout string is not terminated");
    else if (lay.data[0] && (!lay.out[0] || !lay.weight[0]))
      ok = 0, snprintf(why, sizeof why,
                       "data '%s' without a weight and output layout",
                       lay.data);
    else if (lay.data[0] && xr == 4 && wr == 4 &&
             (!nchwc_ok(lay.data, xs[1]) || !nchwc_ok(lay.out, ws[0])))
      ok = 0, snprintf(why, sizeof why,
                       "data '%s' / out '%s' are not NCHW<b>c blocks of %lld "
                       "and %lld channels",
                       lay.data, lay.out, (long long)xs[1], (long long)ws[0]);
    if (lay.data[0]) changed++;
    char full[768];
    snprintf(full, sizeof full, "%s: %s", what,
             lay.data[0] ? lay.data : "keeps the model's layout");
    if (lay.data[0])
      snprintf(full + strlen(full), sizeof full - strlen(full), " %s -> %s",
               lay.weight, lay.out);
    cts_check(ok, full, why);
  }
  if (!d) {
    cts_skip("convolutions compiled with the chosen layouts",
             "this machine cannot run the target");
    return;
  }
  /* the whole pipeline with the layouts the plugin chose */
  for (int i = 0; i < nc; i++) {
    int folded = 0;
    bo_result r = bo_run_case(t, &cases[i], TVM_F32, shape, sizeof shape, why,
                              sizeof why, &folded);
    if (r == BO_UNSUPPORTED) continue;
    snprintf(what, sizeof what,
             "Conv %s {%s} compiled with the chosen layouts matches the "
             "reference", shape, cases[i].attrs);
    if (r == BO_SKIP) cts_skip(what, why);
    else cts_check(r == BO_PASS, what, why);
  }
  if (!changed)
    printf("# alter_layout kept every convolution's layout\n");
}
