/*
 * cmd_compile.c - `tvmc compile`: a model (ONNX file or zoo:NAME) and a
 * target in, a package out.
 *
 *   tvmc compile MODEL --target T [-o model.tvmpkg] [--tuning-log LOG]
 *                [--dump-ir PASS|all] [--no-fuse] [--no-plan-memory]
 *                [--input-shape NAME=1x3x224x224]...
 *                [--calibrate NAME=FILE.npy]...
 *
 * Also the model loading and compiling that `tvmc run` shares
 * (model_load.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_load.h"
#include "tvm/npy.h"
#include "tvm/onnx.h"
#include "tvm/plugin_sdk.h"
#include "tvm/zoo.h"
#include "tvmc.h"

const char *tvmc_bytes(uint64_t n, char buf[32]) {
  if (n < 1024)
    snprintf(buf, 32, "%llu B", (unsigned long long)n);
  else if (n < 1024 * 1024)
    snprintf(buf, 32, "%.1f KiB", (double)n / 1024.0);
  else if (n < 1024ull * 1024 * 1024)
    snprintf(buf, 32, "%.1f MiB", (double)n / (1024.0 * 1024.0));
  else
    snprintf(buf, 32, "%.2f GiB", (double)n / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

/* Loads zoo:NAME or an ONNX file. */
int tvmc_shapes_has(const tvmc_shapes *sh, const char *name,
                    size_t namelen) {
  for (int i = 0; i < sh->n; i++)
    if (strlen(sh->names[i]) == namelen &&
        !strncmp(sh->names[i], name, namelen))
      return 1;
  return 0;
}

int tvmc_shapes_add(const char *cmd, tvmc_shapes *sh, const char *name,
                    size_t namelen, const int64_t *dims, int ndim) {
  if (tvmc_shapes_has(sh, name, namelen)) return 0;
  if (sh->n == TVMC_MAX_SHAPES || namelen >= sizeof sh->names[0] ||
      ndim > TVM_MAX_DIMS) {
    fprintf(stderr, "tvmc %s: too many input shapes, or a name or rank too "
            "large (at most %d shapes of %d dimensions)\n", cmd,
            TVMC_MAX_SHAPES, TVM_MAX_DIMS);
    return -1;
  }
  memcpy(sh->names[sh->n], name, namelen);
  sh->names[sh->n][namelen] = 0;
  for (int d = 0; d < ndim; d++) sh->dims[sh->n][d] = dims[d];
  sh->s[sh->n].name = sh->names[sh->n];
  sh->s[sh->n].dims = sh->dims[sh->n];
  sh->s[sh->n].ndim = ndim;
  sh->n++;
  return 0;
}

int tvmc_shapes_parse(const char *cmd, tvmc_shapes *sh, const char *arg) {
  const char *eq = strchr(arg, '=');
  int64_t dims[TVM_MAX_DIMS];
  int nd = 0;
  if (eq == NULL || eq == arg) goto bad;
  for (const char *p = eq + 1; *p;) {
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0 || errno || nd == TVM_MAX_DIMS) goto bad;
    dims[nd++] = v;
    p = end;
    if (*p == 'x' || *p == 'X' || *p == ',') {
      p++;
      if (!*p) goto bad;
    } else if (*p) {
      goto bad;
    }
  }
  if (tvmc_shapes_has(sh, arg, (size_t)(eq - arg))) {
    fprintf(stderr, "tvmc %s: --input-shape given twice for '%.*s'\n", cmd,
            (int)(eq - arg), arg);
    return -1;
  }
  return tvmc_shapes_add(cmd, sh, arg, (size_t)(eq - arg), dims, nd);
bad:
  fprintf(stderr, "tvmc %s: --input-shape wants NAME=DIMS with DIMS like "
          "1x3x224x224 (at most %d non-negative sizes; NAME= for a scalar), "
          "got '%s'\n", cmd, TVM_MAX_DIMS, arg);
  return -1;
}

tvm_graph *tvmc_load_model(const char *cmd, const char *model,
                           const tvmc_shapes *sh) {
  tvm_graph *g = NULL;
  tvm_status st;
  if (!strncmp(model, "zoo:", 4)) {
    if (sh && sh->n) {
      fprintf(stderr, "tvmc %s: --input-shape applies to ONNX models; the "
              "zoo's models have static shapes\n", cmd);
      return NULL;
    }
    st = tvm_zoo_build(model + 4, &g);
  } else {
    tvm_onnx_options o = {0};
    if (sh) {
      o.shapes = sh->s;
      o.nshapes = sh->n;
    }
    st = tvm_onnx_load_opts(model, &o, &g);
  }
  if (st != TVM_OK) {
    fprintf(stderr, "tvmc %s: %s\n", cmd, tvm_diag_message());
    return NULL;
  }
  return g;
}

int tvmc_calib_parse(const char *cmd, tvmc_calib *c, const char *arg) {
  const char *eq = strchr(arg, '=');
  if (eq == NULL || eq == arg || !eq[1]) {
    fprintf(stderr, "tvmc %s: --calibrate wants NAME=FILE.npy (NAME: the "
            "graph input the file feeds), got '%s'\n", cmd, arg);
    return -1;
  }
  if (c->n == TVMC_MAX_CALIB) {
    fprintf(stderr, "tvmc %s: more than %d --calibrate options (stack "
            "samples in one file instead: its first dimension holds them)\n",
            cmd, TVMC_MAX_CALIB);
    return -1;
  }
  c->args[c->n++] = arg;
  return 0;
}

/* The calibration samples of the --calibrate files: the files as loaded
 * and one view per sample and graph input into them (samples[k * nin +
 * i]), for tvm_compile_options.calib. */
typedef struct calib_set {
  DLTensor *files[TVMC_MAX_CALIB];
  DLTensor *views;
  const DLTensor **samples;
  int nfiles, nsamples;
} calib_set;

static void calib_free(calib_set *cs) {
  for (int j = 0; j < cs->nfiles; j++) tvm_npy_free(cs->files[j]);
  free(cs->views);
  free(cs->samples);
  memset(cs, 0, sizeof *cs);
}

/* "float32[1, 3, 224, 224]" into buf. */
static const char *type_text(tvm_dtype dt, const int64_t *shape, int nd,
                             char buf[160]) {
  char d[32];
  size_t n = (size_t)snprintf(buf, 160, "%s[", tvm_dtype_str(dt, d));
  for (int i = 0; i < nd && n < 160; i++)
    n += (size_t)snprintf(buf + n, 160 - n, "%s%lld", i ? ", " : "",
                          (long long)shape[i]);
  if (n < 160) snprintf(buf + n, 160 - n, "]");
  return buf;
}

/* Loads the --calibrate files for g's inputs into cs and checks them (see
 * tvmc_calib).  Prints the error and returns -1 on failure. */
static int calib_load(const char *cmd, const tvm_graph *g,
                      const tvm_target *t, const tvmc_calib *c,
                      calib_set *cs) {
  size_t nin = g->inputs.len;
  int count[TVMC_MAX_SHAPES] = {0}, owner[TVMC_MAX_CALIB];
  char want[160], got[160];
  tvm_plugin_quant q;
  memset(cs, 0, sizeof *cs);
  if (tvm_target_quantize(t, &q) != TVM_OK) {
    fprintf(stderr, "tvmc %s: %s\n", cmd, tvm_diag_message());
    return -1;
  }
  if (!q.enabled) {
    fprintf(stderr, "tvmc %s: --calibrate has no effect on target '%s': "
            "it does not quantize the graph (its plugin asks for no "
            "quantization, plugin-sdk/docs/QUANTIZATION.md); drop "
            "--calibrate, or compile for a target that quantizes, such as "
            "--target vdla\n", cmd, t->name);
    return -1;
  }
  if (nin > TVMC_MAX_SHAPES) {
    fprintf(stderr, "tvmc %s: --calibrate supports models of at most %d "
            "inputs; this one has %zu\n", cmd, TVMC_MAX_SHAPES, nin);
    return -1;
  }
  for (int j = 0; j < c->n; j++) {
    const char *arg = c->args[j], *file = strchr(arg, '=') + 1;
    size_t nl = (size_t)(file - 1 - arg);
    const tvm_gvalue *v = NULL;
    for (size_t i = 0; i < nin && !v; i++) {
      const tvm_gvalue *u = g->inputs.data[i];
      if (u->name && strlen(u->name) == nl && !strncmp(u->name, arg, nl))
        v = u, owner[j] = (int)i;
    }
    if (v == NULL) {
      fprintf(stderr, "tvmc %s: --calibrate %s: the model has no input "
              "'%.*s'; its inputs:", cmd, arg, (int)nl, arg);
      for (size_t i = 0; i < nin; i++)
        fprintf(stderr, " %s", ((const tvm_gvalue *)g->inputs.data[i])->name);
      fprintf(stderr, "\n");
      return -1;
    }
    if (tvm_npy_load(file, &cs->files[j]) != TVM_OK) {
      fprintf(stderr, "tvmc %s: --calibrate %s: %s\n", cmd, arg,
              tvm_diag_message());
      return -1;
    }
    cs->nfiles = j + 1;
    const DLTensor *x = cs->files[j];
    /* the input's shape, or k of them stacked on the first axis */
    int ok = tvm_dtype_eq(x->dtype, v->dtype) && x->ndim == v->ndim;
    int64_t k = 1;
    for (int d = 1; ok && d < v->ndim; d++) ok = x->shape[d] == v->shape[d];
    if (ok && v->ndim > 0) {
      if (v->shape[0] > 0)
        k = x->shape[0] / v->shape[0],
        ok = k >= 1 && x->shape[0] % v->shape[0] == 0;
      else
        ok = x->shape[0] == 0;
    }
    if (!ok) {
      fprintf(stderr, "tvmc %s: --calibrate %s: %s holds %s, but input "
              "'%s' is %s: give a file of that dtype whose first dimension "
              "is k times %lld (k samples stacked; the other dimensions "
              "equal)\n", cmd, arg, file,
              type_text(x->dtype, x->shape, x->ndim, got), v->name,
              type_text(v->dtype, v->shape, v->ndim, want),
              (long long)(v->ndim ? v->shape[0] : 1));
      return -1;
    }
    count[owner[j]] += (int)k;
  }
  for (size_t i = 0; i < nin; i++) {
    const char *name = ((const tvm_gvalue *)g->inputs.data[i])->name;
    if (count[i] == 0) {
      fprintf(stderr, "tvmc %s: --calibrate gives no samples for input "
              "'%s': every graph input needs samples (one --calibrate "
              "%s=FILE.npy at least)\n", cmd, name, name);
      return -1;
    }
    if (count[i] != count[0]) {
      fprintf(stderr, "tvmc %s: --calibrate gives %d samples for input "
              "'%s' but %d for '%s': every input needs the same number "
              "(sample k feeds all inputs at once)\n", cmd, count[i], name,
              count[0], ((const tvm_gvalue *)g->inputs.data[0])->name);
      return -1;
    }
  }
  cs->nsamples = count[0];
  size_t nv = (size_t)cs->nsamples * nin;
  cs->views = calloc(nv, sizeof *cs->views);
  cs->samples = calloc(nv, sizeof *cs->samples);
  if (cs->views == NULL || cs->samples == NULL) {
    fprintf(stderr, "tvmc %s: out of memory for %d calibration samples\n",
            cmd, cs->nsamples);
    return -1;
  }
  for (size_t i = 0; i < nin; i++) {
    tvm_gvalue *v = g->inputs.data[i];
    int64_t n = 1;
    for (int d = 0; d < v->ndim; d++) n *= v->shape[d];
    size_t bytes = (size_t)n * ((v->dtype.bits * v->dtype.lanes + 7) / 8);
    int k = 0;
    for (int j = 0; j < c->n; j++) {
      if (owner[j] != (int)i) continue;
      const DLTensor *x = cs->files[j];
      int64_t kf = v->ndim && v->shape[0] ? x->shape[0] / v->shape[0] : 1;
      for (int64_t s = 0; s < kf; s++, k++) {
        DLTensor *w = &cs->views[(size_t)k * nin + i];
        w->data = (char *)x->data + (size_t)s * bytes;
        w->device = x->device;
        w->ndim = v->ndim;
        w->dtype = v->dtype;
        w->shape = v->shape;
        cs->samples[(size_t)k * nin + i] = w;
      }
    }
  }
  return 0;
}

/* The progress bar: one line on stderr, redrawn in place. */
typedef struct progress {
  int shown;
  double start;
} progress;

static void draw_progress(void *ud, int done, int total, const char *what) {
  progress *pr = ud;
  enum { W = 30 };
  int fill = total > 0 ? (int)((long long)done * W / total) : 0;
  char bar[W + 1];
  for (int i = 0; i < W; i++) bar[i] = i < fill ? '#' : '.';
  bar[W] = 0;
  fprintf(stderr, "\r\033[K[%s] %d/%d %.40s (%.1f s)", bar, done, total,
          what ? what : "", tvm_now_s() - pr->start);
  fflush(stderr);
  pr->shown = 1;
}

/* The placement seen so far: nodes per device, and where to print. */
typedef struct placement {
  const tvmc_compile_args *a;
  const tvm_target *t;
  int count[2];
} placement;

/* Compile callback: one node placed (printed when the nodes are asked
 * for), counted per device. */
static void print_placed(void *ud, const tvm_gnode *n, const tvm_target *on,
                         const char *reason) {
  placement *pl = ud;
  pl->count[on == pl->t ? 0 : 1]++;
  if (pl->a->placement_nodes)
    fprintf(pl->a->placement, "place     %-28s %-18s -> %s%s%s\n",
            tvm_gnode_name(n), tvm_gnode_op_name(n), on->name,
            reason ? ": " : "", reason ? reason : "");
}

/* The placement summary: nodes per target and the copies between them. */
static void print_placement(const placement *pl, const tvm_plan *p) {
  uint32_t copies = 0, steps[2] = {0, 0};
  for (uint32_t s = 0; s < p->nsteps; s++) {
    if (p->steps[s].copy) copies++;
    else steps[p->steps[s].device == 1]++;
  }
  fprintf(pl->a->placement,
          "placement %d nodes on %s (%u launches), %d on %s (%u launches), "
          "%u copies between them\n",
          pl->count[0], pl->t->name, steps[0], pl->count[1],
          pl->t->fallback->name, steps[1], copies);
}

tvm_plan *tvmc_compile_graph(const char *cmd, tvm_graph *g,
                             const tvm_target *t, const tvmc_compile_args *a,
                             double *seconds) {
  tvm_compile_options o;
  progress pr = {0, tvm_now_s()};
  placement pl = {a, t, {0, 0}};
  tvm_plan *p = NULL;
  tvm_compile_options_init(&o);
  if (a->placement && t->fallback) {
    o.placed = print_placed;
    o.placed_ud = &pl;
  }
  o.fuse = !a->no_fuse;
  o.plan_memory = !a->no_plan_memory;
  o.tuning_log = a->tuning_log;
  o.dump_ir = a->dump_ir;
  calib_set cs = {0};
  if (a->calib && a->calib->n) {
    if (calib_load(cmd, g, t, a->calib, &cs) != 0) {
      calib_free(&cs);
      *seconds = 0;
      return NULL;
    }
    o.calib = cs.samples;
    o.ncalib = cs.nsamples;
    if (a->placement)
      fprintf(a->placement, "calibrate %d samples from %d file%s "
              "(--calibrate)\n", cs.nsamples, cs.nfiles,
              cs.nfiles == 1 ? "" : "s");
  }
  if (!a->quiet && isatty(2) && !a->dump_ir) {
    o.progress = draw_progress;
    o.progress_ud = &pr;
  }
  tvm_status st = tvm_compile(g, t, &o, &p);
  calib_free(&cs);
  if (pr.shown) fprintf(stderr, "\r\033[K");
  *seconds = tvm_now_s() - pr.start;
  if (st != TVM_OK) {
    fprintf(stderr, "tvmc %s: %s\n", cmd, tvm_diag_message());
    return NULL;
  }
  if (a->placement && t->fallback) print_placement(&pl, p);
  return p;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: tvmc compile MODEL [--target T] [-o FILE.tvmpkg]\n"
          "                    [--tuning-log LOG] [--dump-ir PASS|all]\n"
          "                    [--no-fuse] [--no-plan-memory] [--sign KEY]\n"
          "                    [--input-shape NAME=1x3x224x224]...\n"
          "                    [--calibrate NAME=FILE.npy]...\n"
          "  MODEL is an ONNX file or zoo:NAME (zoo models: tvmc compile\n"
          "  --list-zoo).  Writes a package for `tvmc run`.  Defaults:\n"
          "  --target llvm-cpu, -o MODEL's base name with .tvmpkg.\n"
          "  --input-shape fixes the shape of a graph input whose\n"
          "  dimensions are symbolic (repeat it for several inputs).\n"
          "  --sign KEY signs the package with a key from tvmc keygen.\n"
          "  --calibrate NAME=FILE.npy: a target that quantizes (vdla)\n"
          "  calibrates its int8 scales on these samples of input NAME\n"
          "  instead of synthetic ones (uniform in [-1, 1)).  FILE's first\n"
          "  dimension is k times the input's (k samples stacked; the rest\n"
          "  of the shape and the dtype equal); repeat it to add files or\n"
          "  to feed other inputs (each input needs the same number of\n"
          "  samples).  Refused for a target that does not quantize.\n");
  /* the pass names come from the pipeline tables that run them */
  const char *const *gp = tvm_compile_pass_names();
  const char *const *lp = tvm_lower_pass_names();
  fprintf(f, "  --dump-ir PASS: graph passes:");
  for (int i = 0; gp[i]; i++) fprintf(f, " %s", gp[i]);
  fprintf(f, ";\n    lowering passes:");
  for (int i = 0; lp[i]; i++) fprintf(f, " %s", lp[i]);
  fprintf(f, "\n    (and the target's own lowering passes)\n");
}

/* tvm_target_load on a thread of its own: loading the plugins (dlopen of
 * the LLVM library, ~30 ms) overlaps reading the model.  The diagnostic
 * is per thread, so a failure's message is kept for the caller. */
typedef struct target_job {
  const char *name;
  tvm_target *t;
  tvm_status st;
  char msg[1024];
} target_job;

static void *load_target(void *arg) {
  target_job *j = arg;
  j->st = tvm_target_load(j->name, &j->t);
  if (j->st != TVM_OK)
    snprintf(j->msg, sizeof j->msg, "%s", tvm_diag_message());
  return NULL;
}

/* The default package name: the model's base name with .tvmpkg. */
static char *default_output(const char *model) {
  const char *base = !strncmp(model, "zoo:", 4) ? model + 4 : model;
  const char *slash = strrchr(base, '/');
  if (slash) base = slash + 1;
  size_t n = strlen(base);
  const char *dot = strrchr(base, '.');
  if (dot && dot != base) n = (size_t)(dot - base);
  char *out = malloc(n + 8);
  if (out == NULL) return NULL;
  memcpy(out, base, n);
  strcpy(out + n, ".tvmpkg");
  return out;
}

int tvmc_cmd_compile(int argc, char **argv) {
  const char *target_name = "llvm-cpu", *model = NULL, *out = NULL;
  const char *sign_key = NULL;
  tvmc_compile_args ca = {0};
  static tvmc_shapes shapes;
  static tvmc_calib calib;
  tvm_target *t = NULL;
  tvm_graph *g = NULL;
  tvm_plan *p = NULL;
  char *dflt = NULL;
  int rc = 1;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--list-zoo")) {
      for (const char *const *n = tvm_zoo_names(); *n; n++) printf("%s\n", *n);
      return 0;
    } else if (!strcmp(a, "--target") && v) {
      target_name = v, i++;
    } else if (!strncmp(a, "--target=", 9)) {
      target_name = a + 9;
    } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && v) {
      out = v, i++;
    } else if (!strcmp(a, "--tuning-log") && v) {
      ca.tuning_log = v, i++;
    } else if (!strcmp(a, "--dump-ir") && v) {
      ca.dump_ir = v, i++;
    } else if (!strncmp(a, "--dump-ir=", 10)) {
      ca.dump_ir = a + 10;
    } else if (!strcmp(a, "--no-fuse")) {
      ca.no_fuse = 1;
    } else if (!strcmp(a, "--sign") && v) {
      sign_key = v, i++;
    } else if (!strcmp(a, "--no-plan-memory")) {
      ca.no_plan_memory = 1;
    } else if (!strcmp(a, "--input-shape") && v) {
      if (tvmc_shapes_parse("compile", &shapes, v)) return 2;
      i++;
    } else if (!strncmp(a, "--input-shape=", 14)) {
      if (tvmc_shapes_parse("compile", &shapes, a + 14)) return 2;
    } else if (!strcmp(a, "--calibrate") && v) {
      if (tvmc_calib_parse("compile", &calib, v)) return 2;
      i++;
    } else if (!strncmp(a, "--calibrate=", 12)) {
      if (tvmc_calib_parse("compile", &calib, a + 12)) return 2;
    } else if (a[0] != '-' && model == NULL) {
      model = a;
    } else {
      fprintf(stderr, "tvmc compile: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (model == NULL) {
    fprintf(stderr, "tvmc compile: no MODEL given\n");
    usage(stderr);
    return 2;
  }
  if (ca.tuning_log && access(ca.tuning_log, R_OK) != 0) {
    fprintf(stderr, "tvmc compile: cannot read tuning log %s\n",
            ca.tuning_log);
    return 1;
  }
  if (out == NULL && (out = dflt = default_output(model)) == NULL) return 1;

  target_job tj = {.name = target_name};
  pthread_t tth;
  int threaded = pthread_create(&tth, NULL, load_target, &tj) == 0;
  if (!threaded) load_target(&tj);
  double t_read = tvm_now_s();
  g = tvmc_load_model("compile", model, &shapes);
  if (threaded) pthread_join(tth, NULL);
  t_read = tvm_now_s() - t_read;
  t = tj.t;
  if (tj.st != TVM_OK) {
    fprintf(stderr, "tvmc compile: %s\n", tj.msg);
    goto done;
  }
  if (g == NULL) goto done;
  size_t nodes = g->nodes.len, values = g->values.len;
  double secs;
  /* with --dump-ir the IR goes to stdout: the summary goes to stderr */
  ca.placement = ca.dump_ir ? stderr : stdout;
  ca.placement_nodes = 1;
  ca.calib = &calib;
  if ((p = tvmc_compile_graph("compile", g, t, &ca, &secs)) == NULL)
    goto done;
  double t_write = tvm_now_s();
  if (tvm_package_save(p, out) != TVM_OK ||
      (sign_key && tvm_package_sign(out, sign_key) != TVM_OK)) {
    fprintf(stderr, "tvmc compile: %s\n", tvm_diag_message());
    if (sign_key) remove(out); /* never leave an unsigned package behind */
    goto done;
  }
  t_write = tvm_now_s() - t_write;
  FILE *f = ca.placement;
  char b1[32], b2[32], b3[32];
  struct stat sb;
  fprintf(f, "model     %s: %zu nodes, %zu values, %u inputs, %u outputs\n",
          model, nodes, values, p->ninputs, p->noutputs);
  fprintf(f, "target    %s (plugin %s %s)\n", t->name, t->plugin_name,
          t->plugin && t->plugin->version ? t->plugin->version : "");
  if (p->fallback_plugin_name)
    fprintf(f, "kernels   %u + %u kernels (%s + %s), %u steps%s\n",
            p->blob.nkernels, p->fallback_blob.nkernels, t->name,
            p->fallback_target_name, p->nsteps,
            ca.no_fuse ? " (no fusion)" : "");
  else
    fprintf(f, "kernels   %u kernels, %u launches%s\n", p->blob.nkernels,
            p->nsteps, ca.no_fuse ? " (no fusion)" : "");
  /* the compile itself, then what reading the model (and loading the
   * target's plugin beside it) and writing the package added */
  fprintf(f, "compile   %.2f s (%.2f s with reading the model and writing "
          "the package)\n", secs, t_read + secs + t_write);
  /* the plugins' lookups in the compiled-code cache (the SDK library is
   * one per process, shared with the plugins; none in a static build) */
  uint64_t hits = 0, misses = 0;
  tvm_sdk_cache_stats(&hits, &misses, NULL);
  if (hits + misses > 0)
    fprintf(f, "cache     %llu of %llu compiled objects reused from the "
            "compiled-code cache\n",
            (unsigned long long)hits, (unsigned long long)(hits + misses));
  fprintf(f, "memory    peak activations %s planned, %s without planning%s\n",
          tvmc_bytes(p->activation_bytes_planned, b1),
          tvmc_bytes(p->activation_bytes_unplanned, b2),
          ca.no_plan_memory ? " (planning off)" : "");
  fprintf(f, "output    %s (%s)\n", out,
          stat(out, &sb) == 0 ? tvmc_bytes((uint64_t)sb.st_size, b3) : "?");
  rc = 0;
done:
  tvm_plan_free(p);
  tvm_graph_free(g);
  tvm_target_free(t);
  free(dflt);
  return rc;
}
