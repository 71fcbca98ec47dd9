/*
 * tune_layouts.c - the layout pass of `tvmc tune` (cmd_tune.c).
 *
 * --layout-trials K (0 to 8, default 2; 0 = the target's default
 * layouts): between extraction and tuning, every layout the target
 * offers for each node with layout knobs (tvm_gnode_layout_config:
 * llvm-cpu's channel blocks of a convolution, and Winograd or not) is
 * measured (up to 32 layouts per node).  The model is compiled once per layout index
 * i, every layout workload with more than i layouts taking its i-th, and
 * the kernels such nodes became are measured at their template defaults
 * (a layout's cost: the sum over its nodes' kernels, a Winograd input
 * transform included); K such passes over all layouts (so
 * the machine's slow and fast spells fall on every layout alike).  Each
 * layout's measurements go to LOG as a record of the layout workload
 * (template "layout"; its cost, as for kernels, the fastest).  Then the
 * tasks are extracted again with each workload's fastest layout - the
 * one `tvmc compile --tuning-log` will choose - and tuned in it.  A
 * kernel is measured alone: the layout transforms a choice adds between
 * neighbours that disagree are not counted.
 *
 * --tasks SUBSTR limits the pass to the nodes whose kernels it selects
 * (in the target's default layouts) and to nodes whose layout label
 * (Conv 1x1000x13x13) contains SUBSTR; the others keep their default
 * layout.  Layout workloads with records in the log (--resume) are
 * settled too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model_load.h"
#include "tune_int.h"
#include "tvm/compiler.h"
#include "tvm/tune.h"

/* Not measured in this run: resumed from the log, or left out by
 * --tasks. */
static int settled(const ltask *lt) { return lt->resumed || lt->skipped; }

/* See tune_int.h. */
ltask *tune_find_ltask(tune_run *r, const char *wl) {
  for (int i = 0; wl && i < r->nltasks; i++)
    if (!strcmp(r->ltasks[i].workload, wl))
      return &r->ltasks[i];
  return NULL;
}

/* See tune_int.h. */
tvm_status tune_extract_layout(void *ud, const char *wl, const char *label,
                               tvm_config *cfg, int after) {
  tune_run *r = ud;
  if (!after || tune_find_ltask(r, wl) || r->nltasks == MAX_LTASKS)
    return TVM_OK;
  int nk = tvm_config_nknobs(cfg);
  if (nk > MAX_LKNOBS)
    return TVM_OK; /* not searched: keeps the target's default */
  for (int i = 0; i < nk; i++)
    if (tvm_config_knob(cfg, i)->kind != TVM_KNOB_CHOICE ||
        tvm_config_knob(cfg, i)->nchoices > MAX_LAYOUTS)
      return TVM_OK;
  ltask *lt = &r->ltasks[r->nltasks++];
  memset(lt, 0, sizeof *lt);
  snprintf(lt->workload, sizeof lt->workload, "%s", wl);
  snprintf(lt->label, sizeof lt->label, "%s", label);
  uint64_t space = tvm_config_space_size(cfg);
  lt->space = space > MAX_LAYOUTS ? MAX_LAYOUTS : (int)space;
  lt->nknobs = nk;
  for (int i = 0; i < nk; i++) {
    const tvm_knob *kb = tvm_config_knob(cfg, i);
    snprintf(lt->knob[i], sizeof lt->knob[i], "%s", kb->name);
    lt->nent[i] = kb->nchoices;
    memcpy(lt->val[i], kb->choices, sizeof(int64_t) * (size_t)kb->nchoices);
  }
  uint64_t d = tvm_config_index(cfg);
  lt->dflt = d < (uint64_t)lt->space ? (int)d : 0;
  return TVM_OK;
}

/* Presets layout index idx of lt into cfg (first knob fastest, as
 * tvm_config_index counts). */
static tvm_status preset_layout(const ltask *lt, int idx, tvm_config *cfg) {
  for (int i = 0; i < lt->nknobs; i++) {
    tvm_status st = tvm_config_preset(cfg, lt->knob[i], idx % lt->nent[i]);
    if (st)
      return st;
    idx /= lt->nent[i];
  }
  return TVM_OK;
}

/* Layout pass: every layout workload with more than cur_layout layouts
 * takes its cur_layout-th. */
static tvm_status force_layout(void *ud, const char *wl, const char *label,
                               tvm_config *cfg, int after) {
  tune_run *r = ud;
  ltask *lt = tune_find_ltask(r, wl);
  (void)label;
  if (after || !lt || settled(lt) || r->cur_layout >= lt->space)
    return TVM_OK;
  return preset_layout(lt, r->cur_layout, cfg);
}

/* See tune_int.h. */
tvm_status tune_best_layout(void *ud, const char *wl, const char *label,
                            tvm_config *cfg, int after) {
  tune_run *r = ud;
  (void)label;
  if (after || !r->layouts)
    return TVM_OK;
  const tvm_tune_record *rec =
      tvm_tune_log_best_layout(r->layouts, wl, r->t->name);
  return rec ? tvm_tune_record_apply(rec, cfg) : TVM_OK;
}

/* Layout pass kernel hook: measures the template default of each kernel
 * of the nodes whose layout this compile changed to their cur_layout-th;
 * a layout's cost in a pass is the sum over its nodes' kernels (a
 * Winograd convolution is two, and its transform kernel, when the same
 * for two nodes, runs twice), each distinct kernel measured once. */
static tvm_status layout_kernel(void *ud, tvm_tune_kernel *k,
                                tvm_config *cfg) {
  tune_run *r = ud;
  ltask *lt = tune_find_ltask(r, tvm_tune_kernel_layout_workload(k));
  int v = r->cur_layout;
  if (!lt || settled(lt) || v >= lt->space)
    return TVM_OK;
  int opened = lt->open[v] == r->cur_round + 1;
  if (!opened && lt->ncost[v] != r->cur_round)
    return TVM_OK; /* an earlier pass left this layout unmeasured */
  uint64_t key = tvm_hash_str(tvm_tune_kernel_workload(k));
  double c = 0;
  for (int i = 0; i < r->nlk && c <= 0; i++)
    if (r->lkey[i] == key) c = r->lcost[i];
  if (c <= 0) {
    if (tvm_tune_kernel_reused(k) || !cfg)
      return TVM_OK;
    tvm_tune_task_opts o;
    tvm_tune_task_result res;
    tune_task_opts(r, r->tuners[0], 1, MAX_TASKS + (int)(lt - r->ltasks), &o);
    o.patience = 0;
    tvm_status st = tvm_tune_task(k, cfg, &o, &res);
    tvm_free(res.curve);
    if (st)
      return tvm_diag_prefix(st, "layout %d of %s (%s): ", v, lt->workload,
                             lt->label);
    if (res.declined || res.best_cost_s <= 0) {
      if (opened) lt->ncost[v]--; /* a kernel without a cost: the layout */
      lt->open[v] = -1;           /* is never chosen */
      return TVM_OK;
    }
    c = res.best_cost_s;
    if (r->nlk < MAX_LKERNELS) {
      r->lkey[r->nlk] = key;
      r->lcost[r->nlk++] = c;
    }
  }
  if (lt->open[v] < 0)
    return TVM_OK;
  if (!opened) {
    lt->open[v] = r->cur_round + 1;
    lt->cost[v][lt->ncost[v]++] = c;
  } else {
    lt->cost[v][lt->ncost[v] - 1] += c;
  }
  if (r->cur_round == 0) lt->kflops[v] += tvm_tune_kernel_flops(k);
  lt->flops = lt->kflops[lt->dflt] > 0 ? lt->kflops[lt->dflt] : lt->kflops[v];
  return TVM_OK;
}

/* The fastest measurement of layout v of lt, 0 = none. */
static double layout_cost(const ltask *lt, int v) {
  return tvm_tune_cost(lt->cost[v], lt->ncost[v]);
}

/* Logs a record of layout v of lt: its knobs and its kernel's costs. */
static tvm_status layout_record(tune_run *r, const ltask *lt, int v) {
  tvm_tune_record rec;
  memset(&rec, 0, sizeof rec);
  tvm_config *lc = tvm_config_create();
  if (!lc)
    return tvm_diag_set(TVM_ERR_NOMEM, "tune: out of memory");
  for (int i = 0, idx = v; i < lt->nknobs; i++) { /* the same space */
    tvm_cfg_choice(lc, lt->knob[i], lt->val[i], lt->nent[i], 0);
    tvm_config_set(lc, lt->knob[i], idx % lt->nent[i]);
    idx /= lt->nent[i];
  }
  tvm_status st = tvm_tune_record_set_config(&rec, lc);
  tvm_config_free(lc);
  rec.workload = (char *)lt->workload;
  rec.target = (char *)r->t->name;
  rec.tmpl = "layout";
  memcpy(rec.costs, lt->cost[v], sizeof(double) * (size_t)lt->ncost[v]);
  rec.ncosts = lt->ncost[v];
  rec.cost_s = layout_cost(lt, v);
  rec.gflops = lt->flops / rec.cost_s * 1e-9;
  rec.time = (double)time(NULL);
  rec.is_default = v == lt->dflt;
  if (!st)
    st = tvm_tune_record_write(r->log, &rec);
  if (!st)
    st = tvm_tune_log_add(r->layouts, &rec);
  rec.workload = rec.target = rec.tmpl = NULL;
  tvm_tune_record_clear(&rec);
  return st;
}

/* "ic_block=16 oc_block=32": layout idx of lt. */
static void fmt_layout(const ltask *lt, int idx, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < lt->nknobs && k + 2 < n; i++) {
    k += (size_t)snprintf(buf + k, n - k, "%s%s=%lld", i ? " " : "",
                          lt->knob[i],
                          (long long)lt->val[i][idx % lt->nent[i]]);
    idx /= lt->nent[i];
  }
}

/* The layout pass: the model compiled once per layout index (see the top
 * of the file), then a line per layout workload. */
int tune_layout_pass(tune_run *r) {
  int maxl = 0;
  int n = 0;
  for (int i = 0; i < r->nltasks; i++)
    if (!settled(&r->ltasks[i])) {
      n++;
      if (r->ltasks[i].space > maxl)
        maxl = r->ltasks[i].space;
    }
  if (maxl < 2)
    return 1;
  double t0 = tvm_now_s();
  int rounds = r->layout_trials < 8 ? r->layout_trials : 8;
  printf("layouts: %d nodes with layout knobs, up to %d layouts each, "
         "measured in %d pass(es)\n", n, maxl, rounds);
  fflush(stdout);
  for (int it = 0; it < rounds * maxl; it++) {
    r->cur_round = it / maxl;
    r->cur_layout = it % maxl;
    if (r->tty)
      fprintf(stderr, "\r\033[K[layouts] pass %d/%d, layout %d/%d",
              r->cur_round + 1, rounds, r->cur_layout + 1, maxl);
    tvm_tune_hooks h = {layout_kernel, r, force_layout};
    r->nlk = 0;
    int rc = tune_compile_hooked(r, &h);
    if (rc < 0)
      return 0;
    if (rc) { /* that layout index is left unmeasured, not the run */
      for (int i = 0; i < r->nltasks; i++) { /* nor summed in part */
        ltask *lt = &r->ltasks[i];
        if (r->cur_layout < lt->space &&
            lt->open[r->cur_layout] == r->cur_round + 1) {
          lt->ncost[r->cur_layout]--;
          lt->open[r->cur_layout] = 0;
        }
      }
      if (r->tty)
        fprintf(stderr, "\r\033[K");
      fprintf(stderr, "tvmc tune: layouts: the model with layout %d of each "
              "node does not compile (%s); those layouts are not measured\n",
              r->cur_layout, tvm_diag_message());
      tvm_diag_clear();
    }
  }
  if (r->tty)
    fprintf(stderr, "\r\033[K");
  for (int i = 0; i < r->nltasks; i++) {
    ltask *lt = &r->ltasks[i];
    if (settled(lt) || lt->space < 2)
      continue;
    int best = -1;
    for (int v = 0; v < lt->space; v++) {
      if (lt->ncost[v] == 0)
        continue;
      if (layout_record(r, lt, v) != TVM_OK) {
        fprintf(stderr, "tvmc tune: layouts: %s\n", tvm_diag_message());
        return 0;
      }
      if (best < 0 || layout_cost(lt, v) < layout_cost(lt, best))
        best = v;
    }
    const tvm_tune_record *ch =
        tvm_tune_log_best_layout(r->layouts, lt->workload, r->t->name);
    char d[96], b[96];
    fmt_layout(lt, lt->dflt, d, sizeof d);
    fmt_layout(lt, best < 0 ? lt->dflt : best, b, sizeof b);
    double cd = layout_cost(lt, lt->dflt), cb = best < 0 ? 0 : layout_cost(lt, best);
    printf("layout %-26.26s default %s %.1f GFLOP/s, fastest %s %.1f "
           "GFLOP/s (%.2fx): %s\n", lt->label, d,
           cd > 0 ? lt->flops / cd * 1e-9 : 0, b,
           cb > 0 ? lt->flops / cb * 1e-9 : 0, cd > 0 && cb > 0 ? cd / cb : 0,
           !ch ? "default (nothing measured)"
               : ch->is_default ? "keeps the default"
                                : "takes the fastest");
  }
  printf("layouts: done in %.1f s\n", tvm_now_s() - t0);
  fflush(stdout);
  return 1;
}

/* See tune_int.h. */
void tune_layouts_select(tune_run *r) {
  for (int i = 0; r->filter && i < r->nltasks; i++) {
    ltask *lt = &r->ltasks[i];
    lt->skipped = !strstr(lt->label, r->filter);
    for (int j = 0; lt->skipped && j < r->ntasks; j++)
      if (tune_task_matches(r, &r->tasks[j]) &&
          !strcmp(r->tasks[j].lworkload, lt->workload))
        lt->skipped = 0;
  }
}
