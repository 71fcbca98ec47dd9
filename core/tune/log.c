/*
 * core/tune/log.c - the tuning log: one JSON object per line.
 *
 *   {"version":1,"workload":"llvm-cpu.conv2d_NCHWc-0123456789abcdef",
 *    "target":"llvm-cpu","template":"llvm-cpu.conv2d_NCHWc",
 *    "config":{"tile_ow":[3,7],...},"config_str":"tile_ow=7 ...",
 *    "costs":[0.00012,...],"gflops":151.2,"error":"ok","time":1795000000}
 *
 * A knob is stored as [index, number of entries]: the index is what
 * applying a record needs, the count lets a reader notice a space that
 * changed since (the preset is then refused by tvm_config_preset's range
 * check).  Writers flush every record, so a killed run loses at most the
 * candidate being measured; readers skip malformed lines with a warning
 * naming the line, so a truncated last line costs only itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/json.h"
#include "tvm/tune.h"

#define LOG_VERSION 1
#define LOG_MAX_BYTES ((size_t)1 << 30)

struct tvm_tune_log {
  tvm_tune_record *recs;
  int n, cap;
  int skipped;
};

static const char *const err_names[] = {"ok",    "invalid", "lower",
                                        "build", "run",     "crash",
                                        "timeout", "wrong"};

const char *tvm_tune_error_name(int err) {
  return err >= 0 && err <= 7 ? err_names[err] : "unknown";
}

static int cmp_cost(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double tvm_tune_cost_median(const double *costs, int n) {
  double v[16];
  if (n < 1 || n > 16)
    return 0;
  for (int i = 0; i < n; i++) {
    if (!(costs[i] > 0))
      return 0;
    v[i] = costs[i];
  }
  qsort(v, (size_t)n, sizeof *v, cmp_cost);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double tvm_tune_cost(const double *costs, int n) {
  double best = 0;
  for (int i = 0; i < n; i++) {
    if (!(costs[i] > 0))
      return 0;
    if (i == 0 || costs[i] < best)
      best = costs[i];
  }
  return best;
}

static int error_parse(const char *s) {
  for (int i = 0; i <= 7; i++)
    if (strcmp(s, err_names[i]) == 0)
      return i;
  return -1;
}

tvm_tune_log *tvm_tune_log_new(void) {
  return tvm_calloc(1, sizeof(tvm_tune_log));
}

void tvm_tune_record_clear(tvm_tune_record *r) {
  if (!r)
    return;
  tvm_free(r->workload);
  tvm_free(r->target);
  tvm_free(r->tmpl);
  tvm_free(r->config_str);
  for (int i = 0; i < r->nknobs; i++)
    tvm_free(r->knobs[i]);
  tvm_free(r->knobs);
  tvm_free(r->idx);
  tvm_free(r->nent);
  memset(r, 0, sizeof *r);
}

void tvm_tune_log_free(tvm_tune_log *l) {
  if (!l)
    return;
  for (int i = 0; i < l->n; i++)
    tvm_tune_record_clear(&l->recs[i]);
  tvm_free(l->recs);
  tvm_free(l);
}

int tvm_tune_log_count(const tvm_tune_log *l) { return l ? l->n : 0; }
int tvm_tune_log_skipped(const tvm_tune_log *l) { return l ? l->skipped : 0; }

const tvm_tune_record *tvm_tune_log_get(const tvm_tune_log *l, int i) {
  return l && i >= 0 && i < l->n ? &l->recs[i] : NULL;
}

static char *dup_or_null(const char *s) { return s ? tvm_strdup(s) : NULL; }

/* Deep copy of r into *d; TVM_ERR_NOMEM leaves *d cleared. */
static tvm_status record_copy(tvm_tune_record *d, const tvm_tune_record *r) {
  memset(d, 0, sizeof *d);
  *d = *r;
  d->workload = dup_or_null(r->workload);
  d->target = dup_or_null(r->target);
  d->tmpl = dup_or_null(r->tmpl);
  d->config_str = dup_or_null(r->config_str);
  d->knobs = r->nknobs ? tvm_calloc((size_t)r->nknobs, sizeof(char *)) : NULL;
  d->idx = r->nknobs ? tvm_calloc((size_t)r->nknobs, sizeof(int)) : NULL;
  d->nent = r->nknobs ? tvm_calloc((size_t)r->nknobs, sizeof(int)) : NULL;
  int ok = (!r->workload || d->workload) && (!r->target || d->target) &&
           (!r->tmpl || d->tmpl) && (!r->config_str || d->config_str) &&
           (!r->nknobs || (d->knobs && d->idx && d->nent));
  for (int i = 0; ok && i < r->nknobs; i++) {
    d->knobs[i] = tvm_strdup(r->knobs[i]);
    d->idx[i] = r->idx[i];
    d->nent[i] = r->nent ? r->nent[i] : 0;
    ok = d->knobs[i] != NULL;
  }
  if (!ok) {
    if (!d->knobs || !d->idx || !d->nent) {
      tvm_free(d->knobs);
      tvm_free(d->idx);
      tvm_free(d->nent);
      d->knobs = NULL, d->idx = NULL, d->nent = NULL;
      d->nknobs = 0;
    }
    tvm_tune_record_clear(d);
    return tvm_diag_set(TVM_ERR_NOMEM, "tuning log: out of memory");
  }
  return TVM_OK;
}

tvm_status tvm_tune_log_add(tvm_tune_log *l, const tvm_tune_record *r) {
  if (l->n == l->cap) {
    int nc = l->cap ? l->cap * 2 : 64;
    tvm_tune_record *nr = tvm_realloc(l->recs, sizeof *nr * (size_t)nc);
    if (!nr)
      return tvm_diag_set(TVM_ERR_NOMEM, "tuning log: out of memory");
    l->recs = nr;
    l->cap = nc;
  }
  tvm_status st = record_copy(&l->recs[l->n], r);
  if (!st)
    l->n++;
  return st;
}

/* Fills r from one parsed line; a message in why on failure. */
static int record_from_json(const tvm_json *o, tvm_tune_record *r,
                            char *why, size_t nwhy) {
  memset(r, 0, sizeof *r);
  if (o->type != TVM_JSON_OBJECT) {
    snprintf(why, nwhy, "not a JSON object");
    return 0;
  }
  int64_t ver = tvm_json_get_int(o, "version", -1);
  if (ver != LOG_VERSION) {
    snprintf(why, nwhy, "version %lld (this tvmc reads version %d)",
             (long long)ver, LOG_VERSION);
    return 0;
  }
  const char *wl = tvm_json_get_str(o, "workload", NULL);
  const char *tg = tvm_json_get_str(o, "target", NULL);
  const char *er = tvm_json_get_str(o, "error", NULL);
  const tvm_json *cfg = tvm_json_get(o, "config");
  const tvm_json *costs = tvm_json_get(o, "costs");
  if (!wl || !tg || !er || !cfg || cfg->type != TVM_JSON_OBJECT || !costs ||
      costs->type != TVM_JSON_ARRAY) {
    snprintf(why, nwhy, "missing or mistyped field (workload, target, "
                        "config, costs and error are required)");
    return 0;
  }
  r->error = error_parse(er);
  if (r->error < 0) {
    snprintf(why, nwhy, "unknown error kind '%.40s'", er);
    return 0;
  }
  tvm_tune_record tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.workload = (char *)wl;
  tmp.target = (char *)tg;
  tmp.tmpl = (char *)tvm_json_get_str(o, "template", NULL);
  tmp.config_str = (char *)tvm_json_get_str(o, "config_str", NULL);
  tmp.error = r->error;
  tmp.gflops = tvm_json_get_num(o, "gflops", 0);
  tmp.time = tvm_json_get_num(o, "time", 0);
  tmp.is_default = tvm_json_get_int(o, "default", 0) != 0;
  tmp.confirmed = tvm_json_get_int(o, "confirmed", 0) != 0;
  for (size_t i = 0; i < costs->n && i < 16; i++) {
    if (costs->items[i]->type != TVM_JSON_NUMBER) {
      snprintf(why, nwhy, "costs[%zu] is not a number", i);
      return 0;
    }
    tmp.costs[tmp.ncosts++] = costs->items[i]->num;
  }
  tmp.cost_s = tmp.confirmed ? tvm_tune_cost_median(tmp.costs, tmp.ncosts)
                             : tvm_tune_cost(tmp.costs, tmp.ncosts);
  if (tmp.error == TVM_TUNE_OK && (tmp.ncosts == 0 || !(tmp.cost_s > 0))) {
    snprintf(why, nwhy, "an ok record needs positive costs");
    return 0;
  }
  char *names[256];
  int idx[256], nent[256];
  if (cfg->n > 256) {
    snprintf(why, nwhy, "more than 256 knobs");
    return 0;
  }
  for (size_t i = 0; i < cfg->n; i++) {
    const tvm_json *v = cfg->items[i];
    if (v->type != TVM_JSON_ARRAY || v->n != 2 || !v->items[0]->is_int ||
        !v->items[1]->is_int || v->items[0]->i < 0 ||
        v->items[0]->i >= v->items[1]->i || v->items[1]->i > (1 << 30)) {
      snprintf(why, nwhy, "config knob '%.40s' is not [index, entries]",
               cfg->keys[i]);
      return 0;
    }
    names[i] = (char *)cfg->keys[i];
    idx[i] = (int)v->items[0]->i;
    nent[i] = (int)v->items[1]->i;
  }
  tmp.knobs = names;
  tmp.idx = idx;
  tmp.nent = nent;
  tmp.nknobs = (int)cfg->n;
  if (record_copy(r, &tmp) != TVM_OK) {
    snprintf(why, nwhy, "out of memory");
    return 0;
  }
  return 1;
}

tvm_status tvm_tune_log_read(const char *path, tvm_tune_log **out) {
  void *data = NULL;
  size_t size = 0;
  *out = NULL;
  tvm_status st = tvm_read_file(path, "tuning log", LOG_MAX_BYTES, &data,
                                &size);
  if (st)
    return st;
  tvm_tune_log *l = tvm_tune_log_new();
  if (!l) {
    tvm_free(data);
    return tvm_diag_set(TVM_ERR_NOMEM, "tuning log: out of memory");
  }
  const char *p = data, *end = p + size;
  int line = 0;
  tvm_json_limits lim = {.max_bytes = 1 << 20, .max_depth = 8,
                         .max_values = 4096};
  while (p < end && !st) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    line++;
    size_t len = (size_t)(le - p);
    int blank = 1;
    for (size_t i = 0; i < len && blank; i++)
      blank = p[i] == ' ' || p[i] == '\t' || p[i] == '\r';
    if (!blank) {
      tvm_json_doc *d = NULL;
      char why[200];
      tvm_tune_record r;
      st = tvm_json_parse(p, len, &lim, &d);
      if (st == TVM_ERR_NOMEM)
        break;
      if (st) {
        tvm_log(TVM_LOG_WARN, "%s:%d: malformed line skipped (JSON %s)", path,
                line, tvm_diag_message());
        l->skipped++;
        st = TVM_OK;
      } else if (!record_from_json(tvm_json_root(d), &r, why, sizeof why)) {
        tvm_log(TVM_LOG_WARN, "%s:%d: malformed record skipped (%s)", path,
                line, why);
        l->skipped++;
      } else {
        st = tvm_tune_log_add(l, &r);
        tvm_tune_record_clear(&r);
      }
      tvm_json_free(d);
    }
    p = nl ? nl + 1 : end;
  }
  tvm_free(data);
  if (st) {
    tvm_tune_log_free(l);
    return st;
  }
  *out = l;
  return TVM_OK;
}

const tvm_tune_record *tvm_tune_log_best(const tvm_tune_log *l,
                                         const char *workload,
                                         const char *target) {
  /* the fastest re-measurement record and the latest one's time */
  const tvm_tune_record *conf = NULL, *best = NULL;
  double tc = 0;
  for (int i = 0; l && i < l->n; i++) {
    const tvm_tune_record *r = &l->recs[i];
    if (r->error != TVM_TUNE_OK || !r->confirmed ||
        strcmp(r->workload, workload) != 0 || strcmp(r->target, target) != 0)
      continue;
    if (!conf || r->cost_s < conf->cost_s)
      conf = r;
    if (r->time > tc)
      tc = r->time;
  }
  /* search records: all of them where nothing was re-measured, else only
   * those written after the last re-measurement (a later run that did not
   * re-measure), which must beat the re-measured cost */
  best = conf;
  for (int i = 0; l && i < l->n; i++) {
    const tvm_tune_record *r = &l->recs[i];
    if (r->error != TVM_TUNE_OK || r->confirmed ||
        strcmp(r->workload, workload) != 0 || strcmp(r->target, target) != 0)
      continue;
    if (conf && !(r->time > tc))
      continue;
    if (!best || r->cost_s < best->cost_s)
      best = r;
  }
  return best;
}

const tvm_tune_record *tvm_tune_log_best_layout(const tvm_tune_log *l,
                                                const char *workload,
                                                const char *target) {
  const tvm_tune_record *best = tvm_tune_log_best(l, workload, target), *d = NULL;
  for (int i = 0; best && !best->is_default && l && i < l->n; i++) {
    const tvm_tune_record *r = &l->recs[i];
    if (r->error == TVM_TUNE_OK && r->is_default &&
        strcmp(r->workload, workload) == 0 && strcmp(r->target, target) == 0 &&
        (!d || r->cost_s < d->cost_s))
      d = r;
  }
  return d && best->cost_s * (1 + TVM_TUNE_LAYOUT_MARGIN) > d->cost_s ? d
                                                                       : best;
}

tvm_status tvm_tune_record_write(FILE *f, const tvm_tune_record *r) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_strbuf_append(&b, "{");
  tvm_json_w_key(&b, "version", 1);
  tvm_json_w_int(&b, LOG_VERSION);
  tvm_json_w_key(&b, "workload", 0);
  tvm_json_w_str(&b, r->workload, strlen(r->workload));
  tvm_json_w_key(&b, "target", 0);
  tvm_json_w_str(&b, r->target, strlen(r->target));
  if (r->tmpl) {
    tvm_json_w_key(&b, "template", 0);
    tvm_json_w_str(&b, r->tmpl, strlen(r->tmpl));
  }
  tvm_json_w_key(&b, "config", 0);
  tvm_strbuf_append(&b, "{");
  for (int i = 0; i < r->nknobs; i++) {
    tvm_json_w_key(&b, r->knobs[i], i == 0);
    tvm_strbuf_printf(&b, "[%d,%d]", r->idx[i], r->nent[i]);
  }
  tvm_strbuf_append(&b, "}");
  if (r->config_str) {
    tvm_json_w_key(&b, "config_str", 0);
    tvm_json_w_str(&b, r->config_str, strlen(r->config_str));
  }
  tvm_json_w_key(&b, "costs", 0);
  tvm_strbuf_append(&b, "[");
  for (int i = 0; i < r->ncosts; i++) {
    if (i)
      tvm_strbuf_append(&b, ",");
    tvm_strbuf_printf(&b, "%.9g", r->costs[i]);
  }
  tvm_strbuf_append(&b, "]");
  tvm_json_w_key(&b, "gflops", 0);
  tvm_strbuf_printf(&b, "%.4g", r->gflops);
  tvm_json_w_key(&b, "error", 0);
  tvm_strbuf_printf(&b, "\"%s\"", tvm_tune_error_name(r->error));
  tvm_json_w_key(&b, "time", 0);
  tvm_strbuf_printf(&b, "%.3f", r->time);
  if (r->is_default) {
    tvm_json_w_key(&b, "default", 0);
    tvm_strbuf_append(&b, "1");
  }
  if (r->confirmed) {
    tvm_json_w_key(&b, "confirmed", 0);
    tvm_strbuf_append(&b, "1");
  }
  tvm_strbuf_append(&b, "}\n");
  tvm_status st = TVM_OK;
  if (b.oom)
    st = tvm_diag_set(TVM_ERR_NOMEM, "tuning log: out of memory");
  else if (fputs(b.data, f) < 0 || fflush(f) != 0)
    st = tvm_diag_set(TVM_ERR_IO, "tuning log: write failed");
  tvm_strbuf_free(&b);
  return st;
}

tvm_status tvm_tune_record_set_config(tvm_tune_record *r,
                                      const tvm_config *cfg) {
  int n = tvm_config_nknobs(cfg);
  for (int i = 0; i < r->nknobs; i++)
    tvm_free(r->knobs[i]);
  tvm_free(r->knobs);
  tvm_free(r->idx);
  tvm_free(r->nent);
  tvm_free(r->config_str);
  r->knobs = tvm_calloc((size_t)n + 1, sizeof(char *));
  r->idx = tvm_calloc((size_t)n + 1, sizeof(int));
  r->nent = tvm_calloc((size_t)n + 1, sizeof(int));
  r->config_str = tvm_config_str(cfg);
  r->nknobs = 0;
  if (!r->knobs || !r->idx || !r->nent || !r->config_str)
    return tvm_diag_set(TVM_ERR_NOMEM, "tuning log: out of memory");
  for (int i = 0; i < n; i++) {
    const tvm_knob *k = tvm_config_knob(cfg, i);
    r->knobs[i] = tvm_strdup(k->name);
    if (!r->knobs[i])
      return tvm_diag_set(TVM_ERR_NOMEM, "tuning log: out of memory");
    r->idx[i] = k->chosen >= 0 ? k->chosen : k->dflt;
    r->nent[i] = k->nchoices;
    r->nknobs = i + 1;
  }
  return TVM_OK;
}

tvm_status tvm_tune_record_apply(const tvm_tune_record *r, tvm_config *cfg) {
  for (int i = 0; i < r->nknobs; i++) {
    tvm_status st = tvm_config_preset(cfg, r->knobs[i], r->idx[i]);
    if (st)
      return st;
  }
  return TVM_OK;
}

/* The hook of tvm_tune_apply_hooks. */
static tvm_status apply_hook(void *ud, tvm_tune_kernel *k, tvm_config *cfg) {
  tvm_tune_apply *a = ud;
  if (tvm_tune_kernel_reused(k) || !cfg)
    return TVM_OK;
  const tvm_tune_record *r =
      tvm_tune_log_best(a->log, tvm_tune_kernel_workload(k), a->target_name);
  if (!r) {
    a->missing++;
    tvm_log(TVM_LOG_WARN,
            "tuning log %s: no record of workload %s (%s %s) for target %s; "
            "using the template default (tune it with `tvmc tune`)",
            a->log_name, tvm_tune_kernel_workload(k), tvm_tune_kernel_label(k),
            tvm_tune_kernel_shape(k), a->target_name);
    return TVM_OK;
  }
  a->applied++;
  return tvm_tune_record_apply(r, cfg);
}

/* The layout hook of tvm_tune_apply_hooks. */
static tvm_status apply_layout(void *ud, const char *workload,
                               const char *label, tvm_config *cfg,
                               int after) {
  tvm_tune_apply *a = ud;
  (void)label;
  if (after)
    return TVM_OK;
  const tvm_tune_record *r =
      tvm_tune_log_best_layout(a->log, workload, a->target_name);
  if (!r)
    return TVM_OK;
  a->layouts++;
  return tvm_tune_record_apply(r, cfg);
}

void tvm_tune_apply_hooks(tvm_tune_apply *a, tvm_tune_hooks *h) {
  h->kernel = apply_hook;
  h->ud = a;
  h->layout = apply_layout;
}
