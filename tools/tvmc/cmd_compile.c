/*
 * cmd_compile.c - `tvmc compile`: a model (ONNX file or zoo:NAME) and a
 * target in, a package out.
 *
 *   tvmc compile MODEL --target T [-o model.tvmpkg] [--tuning-log LOG]
 *                [--dump-ir PASS|all] [--no-fuse] [--no-plan-memory]
 *
 * Also the model loading and compiling that `tvmc run` shares
 * (model_load.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model_load.h"
#include "tvm/onnx.h"
#include "tvm/zoo.h"
#include "tvmc.h"

double tvmc_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
tvm_graph *tvmc_load_model(const char *cmd, const char *model) {
  tvm_graph *g = NULL;
  tvm_status st;
  if (!strncmp(model, "zoo:", 4)) {
    st = tvm_zoo_build(model + 4, &g);
  } else {
    st = tvm_onnx_load(model, &g);
  }
  if (st != TVM_OK) {
    fprintf(stderr, "tvmc %s: %s\n", cmd, tvm_diag_message());
    return NULL;
  }
  return g;
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
          what ? what : "", tvmc_now() - pr->start);
  fflush(stderr);
  pr->shown = 1;
}

tvm_plan *tvmc_compile_graph(const char *cmd, tvm_graph *g,
                             const tvm_target *t, const tvmc_compile_args *a,
                             double *seconds) {
  tvm_compile_options o;
  progress pr = {0, tvmc_now()};
  tvm_plan *p = NULL;
  tvm_compile_options_init(&o);
  o.fuse = !a->no_fuse;
  o.plan_memory = !a->no_plan_memory;
  o.tuning_log = a->tuning_log;
  o.dump_ir = a->dump_ir;
  if (!a->quiet && isatty(2) && !a->dump_ir) {
    o.progress = draw_progress;
    o.progress_ud = &pr;
  }
  tvm_status st = tvm_compile(g, t, &o, &p);
  if (pr.shown) fprintf(stderr, "\r\033[K");
  *seconds = tvmc_now() - pr.start;
  if (st != TVM_OK) {
    fprintf(stderr, "tvmc %s: %s\n", cmd, tvm_diag_message());
    return NULL;
  }
  return p;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: tvmc compile MODEL [--target T] [-o FILE.tvmpkg]\n"
          "                    [--tuning-log LOG] [--dump-ir PASS|all]\n"
          "                    [--no-fuse] [--no-plan-memory] [--sign KEY]\n"
          "  MODEL is an ONNX file or zoo:NAME (zoo models: tvmc compile\n"
          "  --list-zoo).  Writes a package for `tvmc run`.  Defaults:\n"
          "  --target llvm-cpu, -o MODEL's base name with .tvmpkg.\n"
          "  --sign KEY signs the package with a key from tvmc keygen.\n");
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

  if (tvm_target_load(target_name, &t) != TVM_OK) {
    fprintf(stderr, "tvmc compile: %s\n", tvm_diag_message());
    goto done;
  }
  if ((g = tvmc_load_model("compile", model)) == NULL) goto done;
  size_t nodes = g->nodes.len, values = g->values.len;
  double secs;
  if ((p = tvmc_compile_graph("compile", g, t, &ca, &secs)) == NULL)
    goto done;
  if (tvm_package_save(p, out) != TVM_OK ||
      (sign_key && tvm_package_sign(out, sign_key) != TVM_OK)) {
    fprintf(stderr, "tvmc compile: %s\n", tvm_diag_message());
    if (sign_key) remove(out); /* never leave an unsigned package behind */
    goto done;
  }
  /* with --dump-ir the IR went to stdout: the summary goes to stderr */
  FILE *f = ca.dump_ir ? stderr : stdout;
  char b1[32], b2[32], b3[32];
  struct stat sb;
  fprintf(f, "model     %s: %zu nodes, %zu values, %u inputs, %u outputs\n",
          model, nodes, values, p->ninputs, p->noutputs);
  fprintf(f, "target    %s (plugin %s %s)\n", t->name, t->plugin_name,
          t->plugin && t->plugin->version ? t->plugin->version : "");
  fprintf(f, "kernels   %u kernels, %u launches%s\n", p->blob.nkernels,
          p->nsteps, ca.no_fuse ? " (no fusion)" : "");
  fprintf(f, "compile   %.2f s\n", secs);
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
