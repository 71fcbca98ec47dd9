/*
 * core/tune/config.c - the knobs of schedule templates (define-by-run).
 *
 * A template asks for each knob by name while it schedules.  The first
 * request records the knob and its space (in request order); every
 * request answers the chosen value, or the default while nothing was
 * chosen.  The tuner walks the recorded space and chooses by name.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tvm/config.h"

/* A value chosen for a knob before the template recorded it. */
typedef struct preset {
  char *name;
  int idx;
  int used; /* 1 once applied to a knob in range */
} preset;

struct tvm_config {
  tvm_knob **knobs; /* heap; each knob, its name and choices heap too */
  int n, cap;
  preset *presets;  /* heap */
  int npresets;
  char *rejected;   /* heap reason, NULL while the values are valid */
};

/* An empty configuration (heap; free with tvm_config_free); NULL on
 * OOM. */
tvm_config *tvm_config_create(void) {
  return tvm_calloc(1, sizeof(tvm_config));
}

static void knob_free(tvm_knob *k) {
  if (!k)
    return;
  tvm_free((void *)k->name);
  tvm_free(k->choices);
  if (k->labels)
    for (int i = 0; i < k->nchoices; i++)
      tvm_free((void *)k->labels[i]);
  tvm_free(k->labels);
  tvm_free(k);
}

void tvm_config_free(tvm_config *cfg) {
  if (!cfg)
    return;
  for (int i = 0; i < cfg->n; i++)
    knob_free(cfg->knobs[i]);
  tvm_free(cfg->knobs);
  for (int i = 0; i < cfg->npresets; i++)
    tvm_free(cfg->presets[i].name);
  tvm_free(cfg->presets);
  tvm_free(cfg->rejected);
  tvm_free(cfg);
}

static tvm_knob *find(const tvm_config *cfg, const char *name) {
  for (int i = 0; i < cfg->n; i++)
    if (strcmp(cfg->knobs[i]->name, name) == 0)
      return cfg->knobs[i];
  return NULL;
}

/* Applies a preset of k's name, if any (k's space is complete). */
static void apply_preset(tvm_config *cfg, tvm_knob *k) {
  for (int i = 0; i < cfg->npresets; i++) {
    preset *p = &cfg->presets[i];
    if (strcmp(p->name, k->name) != 0)
      continue;
    if (p->idx >= 0 && p->idx < k->nchoices) {
      k->chosen = p->idx;
      p->used = 1;
    } else {
      tvm_log(TVM_LOG_WARN,
              "config: preset %d of knob %s is out of its range 0..%d "
              "(a stale tuning record?); using the default",
              p->idx, k->name, k->nchoices - 1);
    }
  }
}

/* Appends k to the space; on failure k is freed and TVM_ERR_NOMEM
 * returned. */
static tvm_status add_knob(tvm_config *cfg, tvm_knob *k) {
  if (cfg->n == cfg->cap) {
    int cap = cfg->cap ? cfg->cap * 2 : 8;
    tvm_knob **nk = tvm_realloc(cfg->knobs, sizeof(*nk) * (size_t)cap);
    if (!nk) {
      knob_free(k);
      return tvm_diag_set(TVM_ERR_NOMEM, "config: out of memory");
    }
    cfg->knobs = nk;
    cfg->cap = cap;
  }
  cfg->knobs[cfg->n++] = k;
  return TVM_OK;
}

/* A heap knob named name owning a copy of nvalues choices. */
static tvm_knob *knob_new(const char *name, int kind, const int64_t *values,
                          size_t nvalues) {
  tvm_knob *k = tvm_calloc(1, sizeof(*k));
  if (!k)
    return NULL;
  k->name = tvm_strdup(name);
  k->choices = tvm_malloc(sizeof(int64_t) * (nvalues ? nvalues : 1));
  if (!k->name || !k->choices) {
    knob_free(k);
    return NULL;
  }
  memcpy(k->choices, values, sizeof(int64_t) * nvalues);
  k->kind = kind;
  k->chosen = -1;
  return k;
}

static int current(const tvm_knob *k) {
  return k->chosen >= 0 ? k->chosen : k->dflt;
}

/* A knob among n values.  Recorded at its first request; returns the
 * chosen value, or choices[dflt] while none is chosen.  A request that
 * disagrees with the recorded space (a bug in the template) is logged
 * and answered with its own default. */
static int64_t choice_kind(tvm_config *cfg, const char *name, int kind,
                           const int64_t *choices, int n, int dflt,
                           const char *const *labels);

int64_t tvm_cfg_choice(tvm_config *cfg, const char *name,
                       const int64_t *choices, int n, int dflt) {
  return choice_kind(cfg, name, TVM_KNOB_CHOICE, choices, n, dflt, NULL);
}

/* A choice-like knob of the given kind (labels: CATEGORY names). */
static int64_t choice_kind(tvm_config *cfg, const char *name, int kind,
                           const int64_t *choices, int n, int dflt,
                           const char *const *labels) {
  if (!choices || n <= 0)
    return 0;
  if (dflt < 0 || dflt >= n)
    dflt = 0;
  if (!cfg || !name)
    return choices[dflt];
  tvm_knob *k = find(cfg, name);
  if (k) {
    if (k->kind != kind || k->nchoices != n ||
        memcmp(k->choices, choices, sizeof(int64_t) * (size_t)n) != 0) {
      tvm_log(TVM_LOG_WARN,
              "config: knob %s asked again with a different space; "
              "using its default",
              name);
      return choices[dflt];
    }
    return k->choices[current(k)];
  }
  k = knob_new(name, kind, choices, (size_t)n);
  if (!k)
    return choices[dflt]; /* out of memory: the knob is not recorded */
  k->nchoices = n;
  k->dflt = dflt;
  if (labels) {
    k->labels = tvm_calloc((size_t)n, sizeof(char *));
    for (int i = 0; k->labels && i < n; i++)
      k->labels[i] = tvm_strdup(labels[i] ? labels[i] : "?");
  }
  if (add_knob(cfg, k) != TVM_OK)
    return choices[dflt];
  apply_preset(cfg, k);
  return k->choices[current(k)];
}

/* An annotation among n TVM_ANN_* values. */
int tvm_cfg_annotate(tvm_config *cfg, const char *name, const int *anns,
                     int n, int dflt) {
  int64_t v[16];
  if (!anns || n <= 0 || n > 16)
    return TVM_ANN_NONE;
  for (int i = 0; i < n; i++)
    v[i] = anns[i];
  return (int)choice_kind(cfg, name, TVM_KNOB_ANNOTATE, v, n, dflt, NULL);
}

/* A categorical knob: answers the index of the chosen alternative. */
int tvm_cfg_category(tvm_config *cfg, const char *name,
                     const char *const *labels, int n, int dflt) {
  int64_t v[64];
  if (!labels || n <= 0 || n > 64)
    return 0;
  for (int i = 0; i < n; i++)
    v[i] = i;
  return (int)choice_kind(cfg, name, TVM_KNOB_CATEGORY, v, n, dflt, labels);
}

/* ---- split knobs --------------------------------------------------- */

typedef struct factor_list {
  int64_t *v; /* rows of nparts factors */
  size_t len, cap; /* in int64 values */
  int oom;
} factor_list;

static void push_row(factor_list *fl, const int64_t *row, int nparts) {
  if (fl->oom)
    return;
  if (fl->len + (size_t)nparts > fl->cap) {
    size_t cap = fl->cap ? fl->cap * 2 : 64;
    while (cap < fl->len + (size_t)nparts)
      cap *= 2;
    int64_t *nv = tvm_realloc(fl->v, sizeof(int64_t) * cap);
    if (!nv) {
      fl->oom = 1;
      return;
    }
    fl->v = nv;
    fl->cap = cap;
  }
  memcpy(fl->v + fl->len, row, sizeof(int64_t) * (size_t)nparts);
  fl->len += (size_t)nparts;
}

/* Fills row[part..nparts-1] with every choice of inner factors of rest
 * (each a divisor, ascending, the innermost varying fastest); row[0]
 * takes what is left. */
static void enumerate(factor_list *fl, int64_t *row, int part, int nparts,
                      int64_t rest, int policy, int64_t inner_left) {
  if (part == nparts) {
    row[0] = rest;
    push_row(fl, row, nparts);
    return;
  }
  for (int64_t d = 1; d <= rest && d <= inner_left && !fl->oom; d++) {
    if (rest % d || (policy == TVM_SPLIT_POW2 && (d & (d - 1))))
      continue;
    row[part] = d;
    enumerate(fl, row, part + 1, nparts, rest / d, policy, inner_left / d);
  }
}

/* Index of the factorization f in knob k, or -1. */
static int find_row(const tvm_knob *k, const int64_t *f) {
  for (int i = 0; i < k->nchoices; i++)
    if (memcmp(k->choices + (size_t)i * (size_t)k->nparts, f,
               sizeof(int64_t) * (size_t)k->nparts) == 0)
      return i;
  return -1;
}

/* Resolves a default: dflt[0] <= 0 means "what the inner parts leave". */
static int default_row(const tvm_knob *k, const int64_t *dflt) {
  if (!dflt)
    return 0;
  int64_t row[64], inner = 1;
  for (int p = 1; p < k->nparts; p++) {
    row[p] = dflt[p];
    inner *= dflt[p] > 0 ? dflt[p] : 1;
  }
  row[0] = dflt[0] > 0 ? dflt[0] : (k->extent % inner ? 0 : k->extent / inner);
  int i = find_row(k, row);
  return i >= 0 ? i : 0;
}

/* Splits extent into nparts factors (product == extent), written to out
 * outermost first.  The space (recorded at the first request) is every
 * such factorization; the default is dflt when it is in the space (its
 * first entry may be -1 for "what the others leave"), else the first
 * factorization, [extent, 1, ..., 1]. */
tvm_status tvm_cfg_split(tvm_config *cfg, const char *name, int64_t extent,
                         int nparts, const int64_t *dflt, int64_t *out) {
  return tvm_cfg_split_ex(cfg, name, extent, nparts, TVM_SPLIT_ALL, 0, dflt,
                          out);
}

/* tvm_cfg_split restricted by policy (TVM_SPLIT_POW2: inner parts powers
 * of two) and max_inner (the inner parts' product at most that, 0 =
 * unlimited). */
tvm_status tvm_cfg_split_ex(tvm_config *cfg, const char *name, int64_t extent,
                            int nparts, int policy, int64_t max_inner,
                            const int64_t *dflt, int64_t *out) {
  if (!name || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "config split: NULL name or output");
  if (extent < 1 || nparts < 1 || nparts > 64)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "config split %s: extent %lld into %d parts; needs "
                        "extent >= 1 and 1 <= parts <= 64",
                        name, (long long)extent, nparts);
  tvm_knob *k = cfg ? find(cfg, name) : NULL;
  tvm_knob *tmp = NULL;
  if (k && (k->kind != TVM_KNOB_SPLIT || k->extent != extent ||
            k->nparts != nparts))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "config split %s: asked for %lld in %d parts, but the "
                        "knob was recorded as %s; give each knob its own name",
                        name, (long long)extent, nparts,
                        k->kind == TVM_KNOB_SPLIT ? "another split"
                                                  : "a choice");
  if (!k) {
    factor_list fl = {0};
    int64_t row[64];
    enumerate(&fl, row, 1, nparts, extent, policy,
              max_inner > 0 ? max_inner : extent);
    if (fl.oom || fl.len / (size_t)nparts > INT32_MAX) {
      tvm_free(fl.v);
      return tvm_diag_set(TVM_ERR_NOMEM, "config split %s: out of memory",
                          name);
    }
    k = knob_new(name, TVM_KNOB_SPLIT, fl.v, fl.len);
    tvm_free(fl.v);
    if (!k)
      return tvm_diag_set(TVM_ERR_NOMEM, "config split %s: out of memory",
                          name);
    k->nchoices = (int)(fl.len / (size_t)nparts);
    k->nparts = nparts;
    k->extent = extent;
    k->dflt = default_row(k, dflt);
    if (cfg) {
      tvm_status rc = add_knob(cfg, k);
      if (rc != TVM_OK)
        return rc;
      apply_preset(cfg, k);
    } else {
      tmp = k; /* no config: answer the default */
    }
  }
  memcpy(out, k->choices + (size_t)current(k) * (size_t)nparts,
         sizeof(int64_t) * (size_t)nparts);
  knob_free(tmp);
  return TVM_OK;
}

/* ---- reorder knobs ------------------------------------------------------ */

/* A loop order among nperms rows of n loop indices; the chosen row is
 * copied to out (the default row while none is chosen). */
tvm_status tvm_cfg_reorder(tvm_config *cfg, const char *name, int n,
                           const int *perms, int nperms, int dflt, int *out) {
  if (!name || !perms || !out || n < 1 || n > 16 || nperms < 1)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "config reorder %s: needs 1..16 loops and at least "
                        "one permutation", name ? name : "(null)");
  if (dflt < 0 || dflt >= nperms)
    dflt = 0;
  for (int r = 0; r < nperms; r++) { /* each row a permutation of 0..n-1 */
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
      int v = perms[r * n + i];
      if (v < 0 || v >= n || (seen & (1u << v)))
        return tvm_diag_set(TVM_ERR_INVALID,
                            "config reorder %s: row %d is no permutation of "
                            "0..%d", name, r, n - 1);
      seen |= 1u << v;
    }
  }
  tvm_knob *k = cfg ? find(cfg, name) : NULL;
  if (k && (k->kind != TVM_KNOB_REORDER || k->nparts != n ||
            k->nchoices != nperms))
    return tvm_diag_set(TVM_ERR_INVALID,
                        "config reorder %s: asked again with another space; "
                        "give each knob its own name", name);
  int row = dflt;
  if (!k && cfg) {
    int64_t *v = tvm_malloc(sizeof(int64_t) * (size_t)(n * nperms));
    if (!v)
      return tvm_diag_set(TVM_ERR_NOMEM, "config reorder %s: out of memory",
                          name);
    for (int i = 0; i < n * nperms; i++)
      v[i] = perms[i];
    k = knob_new(name, TVM_KNOB_REORDER, v, (size_t)(n * nperms));
    tvm_free(v);
    if (!k)
      return tvm_diag_set(TVM_ERR_NOMEM, "config reorder %s: out of memory",
                          name);
    k->nchoices = nperms;
    k->nparts = n;
    k->dflt = dflt;
    tvm_status rc = add_knob(cfg, k);
    if (rc != TVM_OK)
      return rc;
    apply_preset(cfg, k);
  }
  if (k)
    row = current(k);
  for (int i = 0; i < n; i++)
    out[i] = perms[row * n + i];
  return TVM_OK;
}

/* ---- rejection, presets, the product space ------------------------------ */

void tvm_cfg_reject(tvm_config *cfg, const char *fmt, ...) {
  if (!cfg || cfg->rejected)
    return;
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  cfg->rejected = tvm_strdup(buf);
}

const char *tvm_config_rejected(const tvm_config *cfg) {
  return cfg ? cfg->rejected : NULL;
}

tvm_status tvm_config_preset(tvm_config *cfg, const char *name, int idx) {
  if (!cfg || !name)
    return tvm_diag_set(TVM_ERR_INVALID, "config preset: NULL argument");
  tvm_knob *k = find(cfg, name);
  if (k)
    return tvm_config_set(cfg, name, idx);
  preset *np = tvm_realloc(cfg->presets,
                           sizeof(preset) * (size_t)(cfg->npresets + 1));
  if (!np)
    return tvm_diag_set(TVM_ERR_NOMEM, "config: out of memory");
  cfg->presets = np;
  np[cfg->npresets].name = tvm_strdup(name);
  np[cfg->npresets].idx = idx;
  np[cfg->npresets].used = 0;
  if (!np[cfg->npresets].name)
    return tvm_diag_set(TVM_ERR_NOMEM, "config: out of memory");
  cfg->npresets++;
  return TVM_OK;
}

int tvm_config_presets_unused(const tvm_config *cfg) {
  int n = 0;
  for (int i = 0; cfg && i < cfg->npresets; i++)
    n += !cfg->presets[i].used;
  return n;
}

uint64_t tvm_config_space_size(const tvm_config *cfg) {
  uint64_t size = 1;
  for (int i = 0; cfg && i < cfg->n; i++) {
    uint64_t c = (uint64_t)cfg->knobs[i]->nchoices;
    if (c && size > ((uint64_t)1 << 63) / c)
      return (uint64_t)1 << 63;
    size *= c ? c : 1;
  }
  return size;
}

uint64_t tvm_config_index(const tvm_config *cfg) {
  uint64_t idx = 0, radix = 1;
  for (int i = 0; cfg && i < cfg->n; i++) {
    const tvm_knob *k = cfg->knobs[i];
    idx += radix * (uint64_t)current(k);
    radix *= (uint64_t)(k->nchoices ? k->nchoices : 1);
  }
  return idx;
}

tvm_status tvm_config_set_index(tvm_config *cfg, uint64_t idx) {
  if (!cfg)
    return tvm_diag_set(TVM_ERR_INVALID, "config set_index: NULL config");
  uint64_t size = tvm_config_space_size(cfg);
  if (idx >= size)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "config: index %llu is outside the space of %llu "
                        "configurations",
                        (unsigned long long)idx, (unsigned long long)size);
  for (int i = 0; i < cfg->n; i++) {
    tvm_knob *k = cfg->knobs[i];
    uint64_t c = (uint64_t)(k->nchoices ? k->nchoices : 1);
    k->chosen = (int)(idx % c);
    idx /= c;
  }
  tvm_free(cfg->rejected);
  cfg->rejected = NULL;
  return TVM_OK;
}

/* ---- the recorded space ---------------------------------------------- */

int tvm_config_nknobs(const tvm_config *cfg) { return cfg ? cfg->n : 0; }

const tvm_knob *tvm_config_knob(const tvm_config *cfg, int i) {
  if (!cfg || i < 0 || i >= cfg->n)
    return NULL;
  return cfg->knobs[i];
}

/* Chooses entry idx of the named knob (-1 = back to the default) for the
 * next run of the template.  The knob must have been recorded (run the
 * template once first). */
tvm_status tvm_config_set(tvm_config *cfg, const char *name, int idx) {
  if (!cfg || !name)
    return tvm_diag_set(TVM_ERR_INVALID, "config set: NULL config or name");
  tvm_knob *k = find(cfg, name);
  if (!k) {
    const char *best = NULL;
    size_t bd = (size_t)-1;
    for (int i = 0; i < cfg->n; i++) {
      size_t d = tvm_edit_distance(name, cfg->knobs[i]->name);
      if (d < bd) {
        bd = d;
        best = cfg->knobs[i]->name;
      }
    }
    if (best && bd <= 3)
      return tvm_diag_set(TVM_ERR_NOT_FOUND,
                          "config: no knob named %s; did you mean %s?", name,
                          best);
    return tvm_diag_set(TVM_ERR_NOT_FOUND,
                        "config: no knob named %s (%d knobs recorded; run the "
                        "template once to record its knobs)",
                        name, cfg->n);
  }
  if (idx < -1 || idx >= k->nchoices)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "config: knob %s has %d entries; %d is out of range",
                        name, k->nchoices, idx);
  k->chosen = idx;
  return TVM_OK;
}

/* "tile_x=[4,8,32] vec=16": the current value of every knob in order
 * (heap string, free with tvm_free; NULL on OOM). */
char *tvm_config_str(const tvm_config *cfg) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_strbuf_append(&b, "");
  for (int i = 0; cfg && i < cfg->n; i++) {
    const tvm_knob *k = cfg->knobs[i];
    tvm_strbuf_printf(&b, "%s%s=", i ? " " : "", k->name);
    if (k->kind == TVM_KNOB_CATEGORY && k->labels) {
      tvm_strbuf_append(&b, k->labels[current(k)]);
      continue;
    }
    if (k->kind == TVM_KNOB_ANNOTATE) {
      static const char *const ann[] = {"none", "unroll", "vectorize",
                                        "parallel"};
      int64_t a = k->choices[current(k)];
      tvm_strbuf_append(&b, a >= 0 && a <= 3 ? ann[a] : "?");
      continue;
    }
    if (k->kind == TVM_KNOB_CHOICE || k->kind == TVM_KNOB_CATEGORY) {
      tvm_strbuf_printf(&b, "%lld", (long long)k->choices[current(k)]);
      continue;
    }
    const int64_t *row = k->choices + (size_t)current(k) * (size_t)k->nparts;
    tvm_strbuf_append(&b, "[");
    for (int p = 0; p < k->nparts; p++)
      tvm_strbuf_printf(&b, "%s%lld", p ? "," : "", (long long)row[p]);
    tvm_strbuf_append(&b, "]");
  }
  if (b.oom) {
    tvm_strbuf_free(&b);
    return NULL;
  }
  return tvm_strbuf_take(&b);
}
