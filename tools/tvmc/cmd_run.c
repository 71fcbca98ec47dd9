/*
 * cmd_run.c - `tvmc run`: runs a package (or compiles a model and runs it)
 * on a target, times it and summarizes the outputs.
 *
 *   tvmc run MODEL|PACKAGE [--target T] [--input NAME=FILE.npy ...]
 *            [--input-shape NAME=DIMS ...] [--output-dir DIR] [--repeat N]
 *            [--profile] [--json] [--calibrate NAME=FILE.npy ...]
 *
 * Without --target a package runs on its own target: the YAML file of
 * that name when one is found, else the attributes the package records
 * (tvm_plan_target).  Inputs not given get deterministic pseudo-random
 * data.  When MODEL is
 * compiled, an input given as a file fixes that input's shape (symbolic
 * dimensions) unless --input-shape states it.  One untimed run,
 * then N timed runs (median, min, max).  --profile adds per-kernel times,
 * each kernel repeated on its own (tvm_executor_profile) and inside whole
 * runs (tvm_executor_profile_in_run); --json prints everything as one JSON object on
 * stdout instead of the tables.  A plan on two devices (a target and its
 * fallback) is always profiled, and the report splits the time between
 * the target, the fallback and the copies between them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model_load.h"
#include "tvm/npy.h"
#include "tvmc.h"

#define MAX_INPUT_ARGS 64

typedef struct run_opts {
  const char *model;
  const char *target;
  const char *in_names[MAX_INPUT_ARGS];
  const char *in_files[MAX_INPUT_ARGS];
  int nin;
  tvmc_shapes shapes; /* --input-shape */
  const char *output_dir;
  int repeat;
  int profile;
  int json;
  const char *trusted_keys; /* refuse packages not signed by these keys */
  const char *tuning_log;   /* compiling a model: the tuned configs */
  tvmc_calib calib;         /* compiling a model: calibration samples */
} run_opts;

static void usage(FILE *f) {
  fprintf(f,
          "usage: tvmc run MODEL|PACKAGE [--target T] [--input NAME=FILE.npy]...\n"
          "                [--input-shape NAME=1x3x224x224]...\n"
          "                [--output-dir DIR] [--repeat N] [--profile] [--json]\n"
          "                [--trusted-keys FILE] [--tuning-log LOG]\n"
          "                [--calibrate NAME=FILE.npy]...\n"
          "  Runs a package from tvmc compile (or compiles MODEL: an ONNX\n"
          "  file or zoo:NAME) and prints latency and an output summary.\n"
          "  Defaults: the package's own target (its YAML file here, else\n"
          "  the attributes the package records; llvm-cpu for a model),\n"
          "  --repeat 10, random inputs.  A model input with symbolic\n"
          "  dimensions takes its shape from --input-shape, else from its\n"
          "  --input file.  --tuning-log (a log of tvmc tune) applies to\n"
          "  a model compiled here, not to a package (compiled already).\n"
          "  --calibrate NAME=FILE.npy, for a model compiled here for a\n"
          "  target that quantizes (vdla): calibration samples of input\n"
          "  NAME, k of them stacked on FILE's first dimension (see tvmc\n"
          "  compile --help).\n");
}

/* Is path a package (by its magic, else by its extension)? */
static int is_package(const char *path) {
  char m[8];
  FILE *f = fopen(path, "rb");
  if (f) {
    size_t n = fread(m, 1, 8, f);
    fclose(f);
    if (n == 8 && !memcmp(m, "TVMCPKG", 8)) return 1;
  }
  size_t l = strlen(path);
  return l > 7 && !strcmp(path + l - 7, ".tvmpkg");
}

/* A float16 / bfloat16 bit pattern as a double. */
static double half_bits(uint16_t h, int bf16) {
  if (bf16) {
    uint32_t b = (uint32_t)h << 16;
    float f;
    memcpy(&f, &b, 4);
    return f;
  }
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                              : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

/* Element i of a CPU tensor as a double. */
static double elem(const DLTensor *t, int64_t i) {
  const void *d = t->data;
  int b = t->dtype.bits;
  switch (t->dtype.code) {
  case kDLFloat:
    return b == 64 ? ((const double *)d)[i]
           : b == 16 ? half_bits(((const uint16_t *)d)[i], 0)
                     : (double)((const float *)d)[i];
  case kDLBfloat:
    return half_bits(((const uint16_t *)d)[i], 1);
  case kDLInt:
    return b == 8    ? ((const int8_t *)d)[i]
           : b == 16 ? ((const int16_t *)d)[i]
           : b == 32 ? ((const int32_t *)d)[i]
                     : (double)((const int64_t *)d)[i];
  default: /* unsigned, bool */
    return b <= 8    ? ((const uint8_t *)d)[i]
           : b == 16 ? ((const uint16_t *)d)[i]
           : b == 32 ? ((const uint32_t *)d)[i]
                     : (double)((const uint64_t *)d)[i];
  }
}

/* Fills t with deterministic pseudo-random values (seeded by seed):
 * floats uniform in [-1, 1), integers in [0, 10), bools 0/1. */
static void fill_random(DLTensor *t, int64_t n, uint64_t seed) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  int b = t->dtype.bits;
  for (int64_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double u = (double)(s >> 11) / 9007199254740992.0; /* [0, 1) */
    void *d = t->data;
    if (t->dtype.code == kDLFloat || t->dtype.code == kDLBfloat) {
      float f = (float)(2 * u - 1);
      uint32_t bits;
      memcpy(&bits, &f, 4);
      if (b == 64)
        ((double *)d)[i] = 2 * u - 1;
      else if (b == 32)
        ((float *)d)[i] = f;
      else if (t->dtype.code == kDLBfloat)
        ((uint16_t *)d)[i] = (uint16_t)(bits >> 16);
      else /* float16 with 10 mantissa bits: |f| < 1, normal or 0 */
        ((uint16_t *)d)[i] =
            (uint16_t)(((bits >> 16) & 0x8000) |
                       (fabsf(f) < 6.2e-5f ? 0
                                           : ((((bits >> 23) & 0xff) - 112)
                                              << 10) |
                                                 ((bits >> 13) & 0x3ff)));
      continue;
    }
    int64_t v = t->dtype.bits == 1 ? (u < 0.5) : (int64_t)(u * 10);
    switch (b) {
    case 1:
    case 8: ((uint8_t *)d)[i] = (uint8_t)v; break;
    case 16: ((uint16_t *)d)[i] = (uint16_t)v; break;
    case 32: ((uint32_t *)d)[i] = (uint32_t)v; break;
    default: ((uint64_t *)d)[i] = (uint64_t)v; break;
    }
  }
}

static int64_t numel(const tvm_plan_value *v) {
  int64_t n = 1;
  for (int d = 0; d < v->ndim; d++) n *= v->shape[d];
  return n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* A JSON string literal. */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

/* A JSON number (null when not finite). */
static void json_num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.9g", v);
  else
    fputs("null", f);
}

/* "[1, 1000]" */
static void shape_str(const tvm_plan_value *v, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int d = 0; d < v->ndim && n < cap; d++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "",
                          (long long)v->shape[d]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* Output file name: the value's name with characters unsafe in a file
 * name replaced by '_'. */
static void output_path(const char *dir, const char *name, uint32_t i,
                        char *buf, size_t cap) {
  char safe[200];
  size_t n = 0;
  if (name == NULL || !*name) {
    snprintf(safe, sizeof safe, "output_%u", i);
  } else {
    for (const char *p = name; *p && n + 1 < sizeof safe; p++) {
      int bad = *p == '/' || *p == '\\' || *p == ':' ||
                (unsigned char)*p < 0x20 || (n == 0 && *p == '.');
      safe[n++] = bad ? '_' : *p;
    }
    safe[n] = 0;
  }
  snprintf(buf, cap, "%s/%s.npy", dir, safe);
}

/* Statistics of one output. */
typedef struct out_stats {
  double mean;
  int64_t argmax; /* -1 unless the output is a vector */
  int64_t n;
} out_stats;

static out_stats stats_of(const DLTensor *t, const tvm_plan_value *v) {
  out_stats s = {0, -1, numel(v)};
  int vec = 0;
  for (int d = 0; d < v->ndim; d++) vec += v->shape[d] > 1;
  double best = -INFINITY;
  for (int64_t i = 0; i < s.n; i++) {
    double x = elem(t, i);
    s.mean += x;
    if (x > best) best = x, s.argmax = i;
  }
  if (s.n) s.mean /= (double)s.n;
  if (vec != 1 || s.n < 2) s.argmax = -1;
  return s;
}

static int parse_args(int argc, char **argv, run_opts *o) {
  memset(o, 0, sizeof *o);
  o->repeat = 10;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--target") && v) {
      o->target = v, i++;
    } else if (!strncmp(a, "--target=", 9)) {
      o->target = a + 9;
    } else if (!strcmp(a, "--input") && v) {
      const char *eq = strchr(v, '=');
      if (eq == NULL || eq == v || !eq[1]) {
        fprintf(stderr, "tvmc run: --input wants NAME=FILE.npy, got '%s'\n",
                v);
        return 2;
      }
      if (o->nin == MAX_INPUT_ARGS) {
        fprintf(stderr, "tvmc run: more than %d --input options\n",
                MAX_INPUT_ARGS);
        return 2;
      }
      o->in_names[o->nin] = v;
      o->in_files[o->nin++] = eq + 1;
      i++;
    } else if (!strcmp(a, "--input-shape") && v) {
      if (tvmc_shapes_parse("run", &o->shapes, v)) return 2;
      i++;
    } else if (!strncmp(a, "--input-shape=", 14)) {
      if (tvmc_shapes_parse("run", &o->shapes, a + 14)) return 2;
    } else if (!strcmp(a, "--output-dir") && v) {
      o->output_dir = v, i++;
    } else if (!strcmp(a, "--repeat") && v) {
      char *end;
      long r = strtol(v, &end, 10);
      if (*end || r < 1 || r > 1000000) {
        fprintf(stderr, "tvmc run: --repeat needs a positive integer, got "
                        "'%s'\n", v);
        return 2;
      }
      o->repeat = (int)r, i++;
    } else if (!strcmp(a, "--profile")) {
      o->profile = 1;
    } else if (!strcmp(a, "--json")) {
      o->json = 1;
    } else if (!strcmp(a, "--trusted-keys") && v) {
      o->trusted_keys = v, i++;
    } else if (!strcmp(a, "--tuning-log") && v) {
      o->tuning_log = v, i++;
    } else if (!strcmp(a, "--calibrate") && v) {
      if (tvmc_calib_parse("run", &o->calib, v)) return 2;
      i++;
    } else if (!strncmp(a, "--calibrate=", 12)) {
      if (tvmc_calib_parse("run", &o->calib, a + 12)) return 2;
    } else if (a[0] != '-' && o->model == NULL) {
      o->model = a;
    } else {
      fprintf(stderr, "tvmc run: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (o->model == NULL) {
    fprintf(stderr, "tvmc run: no MODEL or PACKAGE given\n");
    usage(stderr);
    return 2;
  }
  return -1; /* go on */
}

/* Loads the package or compiles the model: *p and *t on success. */
static int prepare(const run_opts *o, tvm_plan **p, tvm_target **t) {
  if (o->trusted_keys && !is_package(o->model)) {
    fprintf(stderr, "tvmc run: --trusted-keys checks packages' signatures; "
            "%s is not a package\n", o->model);
    return 1;
  }
  if (o->trusted_keys &&
      tvm_package_set_trusted_keys(o->trusted_keys) != TVM_OK)
    goto fail;
  if (is_package(o->model)) {
    if (o->tuning_log) {
      fprintf(stderr, "tvmc run: --tuning-log applies when compiling a "
              "model; %s is a package (pass --tuning-log to tvmc compile "
              "instead)\n", o->model);
      return 1;
    }
    if (o->calib.n) {
      fprintf(stderr, "tvmc run: --calibrate applies when compiling a "
              "model; %s is a package, calibrated when it was compiled "
              "(pass --calibrate to tvmc compile instead)\n", o->model);
      return 1;
    }
    if (o->target) {
      if (tvm_target_load(o->target, t) != TVM_OK ||
          tvm_package_load(o->model, *t, p) != TVM_OK)
        goto fail;
      return 0;
    }
    /* no --target: the package's own, from its YAML file here, else from
     * the attributes the package records (a target file of another
     * machine or a temporary one need not travel with the package) */
    if (tvm_package_load(o->model, NULL, p) != TVM_OK) goto fail;
    if (tvm_target_load((*p)->target_name, t) != TVM_OK) {
      if (tvm_diag_status() != TVM_ERR_NOT_FOUND ||
          tvm_plan_target(*p, NULL, t) != TVM_OK)
        goto fail;
      fprintf(stderr,
              "tvmc run: no target file '%s' here; running on the "
              "attributes package %s records\n",
              (*p)->target_name, o->model);
    }
    if (strcmp((*t)->plugin_name, (*p)->plugin_name) != 0) {
      fprintf(stderr,
              "tvmc run: package %s was built for plugin %s, but target "
              "'%s' here uses plugin %s\n",
              o->model, (*p)->plugin_name, (*t)->name, (*t)->plugin_name);
      return 1;
    }
    return 0;
  }
  tvmc_compile_args ca = {0};
  double secs;
  ca.quiet = o->json;
  ca.tuning_log = o->tuning_log;
  ca.calib = &o->calib;
  ca.placement = o->json ? NULL : stdout; /* the counts */
  if (tvm_target_load(o->target ? o->target : "llvm-cpu", t) != TVM_OK)
    goto fail;
  /* inputs given as files fix their own shapes unless --input-shape did
   * (an ONNX model's symbolic dimensions; the zoo's shapes are static,
   * and a file of another shape is refused when it is bound) */
  tvmc_shapes sh = o->shapes;
  int zoo = !strncmp(o->model, "zoo:", 4);
  for (int k = 0; k < o->nin && !zoo; k++) {
    size_t nl = (size_t)(o->in_files[k] - 1 - o->in_names[k]);
    if (tvmc_shapes_has(&sh, o->in_names[k], nl)) continue;
    DLTensor *x = NULL;
    if (tvm_npy_load(o->in_files[k], &x) != TVM_OK) {
      fprintf(stderr, "tvmc run: input '%.*s': %s\n", (int)nl,
              o->in_names[k], tvm_diag_message());
      return 1;
    }
    int bad = tvmc_shapes_add("run", &sh, o->in_names[k], nl, x->shape,
                              x->ndim);
    tvm_npy_free(x);
    if (bad) return 1;
  }
  tvm_graph *g = tvmc_load_model("run", o->model, &sh);
  if (g == NULL) return 1;
  *p = tvmc_compile_graph("run", g, *t, &ca, &secs);
  tvm_graph_free(g);
  if (*p == NULL) return 1;
  if (!o->json)
    printf("compiled  %s for %s in %.2f s (%u kernels)\n", o->model,
           (*t)->name, secs, (*p)->blob.nkernels);
  return 0;
fail:
  fprintf(stderr, "tvmc run: %s\n", tvm_diag_message());
  return 1;
}

/* Feeds every input: from its --input file, else random data. */
static int feed_inputs(const run_opts *o, const tvm_plan *p, tvm_executor *e) {
  int used[MAX_INPUT_ARGS] = {0};
  for (uint32_t i = 0; i < p->ninputs; i++) {
    const tvm_plan_value *v = &p->values[p->inputs[i]];
    const char *file = NULL;
    DLTensor *x = NULL;
    for (int k = 0; k < o->nin; k++) {
      size_t nl = (size_t)(o->in_files[k] - 1 - o->in_names[k]);
      if (v->name && strlen(v->name) == nl &&
          !strncmp(o->in_names[k], v->name, nl))
        file = o->in_files[k], used[k] = 1;
    }
    if (file) {
      if (tvm_npy_load(file, &x) != TVM_OK) {
        fprintf(stderr, "tvmc run: %s\n", tvm_diag_message());
        return 1;
      }
    } else {
      if (tvm_npy_alloc(v->dtype, v->shape, v->ndim, &x) != TVM_OK) {
        fprintf(stderr, "tvmc run: input '%s': %s\n", v->name ? v->name : "",
                tvm_diag_message());
        return 1;
      }
      fill_random(x, numel(v), i + 1);
    }
    tvm_status st = tvm_executor_set_input(e, i, x);
    tvm_npy_free(x);
    if (st != TVM_OK) {
      fprintf(stderr, "tvmc run: %s%s%s\n", file ? file : "",
              file ? ": " : "", tvm_diag_message());
      return 1;
    }
  }
  for (int k = 0; k < o->nin; k++) {
    if (used[k]) continue;
    fprintf(stderr, "tvmc run: the model has no input '%.*s'; its inputs:",
            (int)(o->in_files[k] - 1 - o->in_names[k]), o->in_names[k]);
    for (uint32_t i = 0; i < p->ninputs; i++)
      fprintf(stderr, " %s", p->values[p->inputs[i]].name);
    fprintf(stderr, "\n");
    return 1;
  }
  return 0;
}

int tvmc_cmd_run(int argc, char **argv) {
  run_opts o;
  tvm_plan *p = NULL;
  tvm_target *t = NULL;
  tvm_executor *e = NULL;
  DLTensor **outs = NULL;
  double *times = NULL, *prof = NULL, *in_run = NULL;
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;
  rc = 1;

  if (prepare(&o, &p, &t) != 0) goto done;
  if (tvm_executor_create(p, t, &e) != TVM_OK) {
    /* name the file: a package's kernel object is checked only here */
    fprintf(stderr, "tvmc run: %s: %s\n", o.model, tvm_diag_message());
    goto done;
  }
  if (feed_inputs(&o, p, e) != 0) goto done;

  /* one untimed run, then the timed ones */
  times = calloc((size_t)o.repeat, sizeof(double));
  outs = calloc(p->noutputs + 1, sizeof(DLTensor *));
  if (times == NULL || outs == NULL) goto done;
  for (int r = -1; r < o.repeat; r++) {
    double t0 = tvm_now_s();
    if (tvm_executor_run(e) != TVM_OK) {
      fprintf(stderr, "tvmc run: %s\n", tvm_diag_message());
      goto done;
    }
    if (r >= 0) times[r] = 1e3 * (tvm_now_s() - t0);
  }
  qsort(times, (size_t)o.repeat, sizeof(double), cmp_double);
  double med = o.repeat % 2 ? times[o.repeat / 2]
                            : 0.5 * (times[o.repeat / 2 - 1] + times[o.repeat / 2]);
  /* a plan on two devices always gets the per-step times: the report
   * splits the run between them */
  int hetero = p->fallback_plugin_name != NULL;
  if (o.profile || hetero) {
    prof = calloc(p->nsteps + 1, sizeof(double));
    if (prof == NULL) goto done;
    if (tvm_executor_profile(e, o.repeat, prof) != TVM_OK) {
      fprintf(stderr, "tvmc run: %s\n", tvm_diag_message());
      goto done;
    }
  }
  if (o.profile) {
    in_run = calloc(p->nsteps + 1, sizeof(double));
    if (in_run == NULL) goto done;
    if (tvm_executor_profile_in_run(e, o.repeat, in_run) != TVM_OK) {
      fprintf(stderr, "tvmc run: %s\n", tvm_diag_message());
      goto done;
    }
  }
  for (uint32_t i = 0; i < p->noutputs; i++) {
    const tvm_plan_value *v = &p->values[p->outputs[i]];
    if (tvm_npy_alloc(v->dtype, v->shape, v->ndim, &outs[i]) != TVM_OK ||
        tvm_executor_get_output(e, i, outs[i]) != TVM_OK) {
      fprintf(stderr, "tvmc run: output '%s': %s\n", v->name ? v->name : "",
              tvm_diag_message());
      goto done;
    }
  }
  if (o.output_dir) {
    if (mkdir(o.output_dir, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "tvmc run: cannot create %s: %s\n", o.output_dir,
              strerror(errno));
      goto done;
    }
    for (uint32_t i = 0; i < p->noutputs; i++) {
      char path[4096];
      output_path(o.output_dir, p->values[p->outputs[i]].name, i, path,
                  sizeof path);
      if (tvm_npy_save(path, outs[i]) != TVM_OK) {
        fprintf(stderr, "tvmc run: %s\n", tvm_diag_message());
        goto done;
      }
      if (!o.json) printf("wrote     %s\n", path);
    }
  }

  double total = 0, total_in_run = 0;
  double split[3] = {0, 0, 0}; /* target, fallback, copies */
  for (uint32_t s = 0; prof && s < p->nsteps; s++) {
    total += prof[s];
    if (in_run) total_in_run += in_run[s];
    split[p->steps[s].copy ? 2 : p->steps[s].device ? 1 : 0] += prof[s];
  }
  const char *split_names[3] = {p->target_name,
                                p->fallback_target_name, "copies"};
  char dt[32], sh[256];
  if (o.json) {
    FILE *f = stdout;
    fprintf(f, "{\"model\": ");
    json_str(f, o.model);
    fprintf(f, ", \"target\": ");
    json_str(f, t->name);
    fprintf(f, ", \"repeat\": %d, \"median_ms\": ", o.repeat);
    json_num(f, med);
    fprintf(f, ", \"min_ms\": ");
    json_num(f, times[0]);
    fprintf(f, ", \"max_ms\": ");
    json_num(f, times[o.repeat - 1]);
    fprintf(f, ", \"times_ms\": ["); /* every timed run, sorted */
    for (int r = 0; r < o.repeat; r++) {
      if (r) fputs(", ", f);
      json_num(f, times[r]);
    }
    fprintf(f, "], \"outputs\": [");
    for (uint32_t i = 0; i < p->noutputs; i++) {
      const tvm_plan_value *v = &p->values[p->outputs[i]];
      out_stats st = stats_of(outs[i], v);
      fprintf(f, "%s{\"name\": ", i ? ", " : "");
      json_str(f, v->name);
      fprintf(f, ", \"dtype\": ");
      json_str(f, tvm_dtype_str(v->dtype, dt));
      shape_str(v, sh, sizeof sh);
      fprintf(f, ", \"shape\": %s, \"first\": [", sh);
      for (int64_t k = 0; k < st.n && k < 5; k++) {
        if (k) fputs(", ", f);
        json_num(f, elem(outs[i], k));
      }
      fprintf(f, "], \"mean\": ");
      json_num(f, st.mean);
      if (st.argmax >= 0) fprintf(f, ", \"argmax\": %lld", (long long)st.argmax);
      fputc('}', f);
    }
    fputc(']', f);
    if (hetero && prof) {
      fprintf(f, ", \"device_split\": [");
      for (int k = 0; k < 3; k++) {
        fprintf(f, "%s{\"device\": ", k ? ", " : "");
        json_str(f, split_names[k]);
        fprintf(f, ", \"ms\": ");
        json_num(f, split[k]);
        fprintf(f, ", \"share\": ");
        json_num(f, total > 0 ? 100 * split[k] / total : 0);
        fputc('}', f);
      }
      fputc(']', f);
    }
    if (prof && o.profile) {
      fprintf(f, ", \"profile\": [");
      for (uint32_t s = 0; s < p->nsteps; s++) {
        const tvm_plan_step *step = &p->steps[s];
        fprintf(f, "%s{\"step\": %u, \"kernel\": ", s ? ", " : "", s);
        json_str(f, step->kernel);
        fprintf(f, ", \"label\": ");
        json_str(f, step->label);
        fprintf(f, ", \"ms\": ");
        json_num(f, prof[s]);
        fprintf(f, ", \"in_run_ms\": ");
        json_num(f, in_run[s]);
        fprintf(f, ", \"share\": ");
        json_num(f, total > 0 ? 100 * prof[s] / total : 0);
        fprintf(f, ", \"gflops\": ");
        json_num(f, prof[s] > 0 ? step->flops / (prof[s] * 1e6) : 0);
        fputc('}', f);
      }
      fputc(']', f);
    }
    fprintf(f, "}\n");
  } else {
    printf("target    %s\n", t->name);
    printf("latency   median %.4g ms, min %.4g ms, max %.4g ms (%d runs)\n",
           med, times[0], times[o.repeat - 1], o.repeat);
    for (uint32_t i = 0; i < p->noutputs; i++) {
      const tvm_plan_value *v = &p->values[p->outputs[i]];
      out_stats st = stats_of(outs[i], v);
      shape_str(v, sh, sizeof sh);
      printf("output    %s: %s %s, first [", v->name ? v->name : "", sh,
             tvm_dtype_str(v->dtype, dt));
      for (int64_t k = 0; k < st.n && k < 5; k++)
        printf("%s%.6g", k ? ", " : "", elem(outs[i], k));
      printf("%s], mean %.6g", st.n > 5 ? ", ..." : "", st.mean);
      if (st.argmax >= 0) printf(", argmax %lld", (long long)st.argmax);
      printf("\n");
    }
    if (hetero && prof)
      printf("devices   %s %.4g ms (%.1f%%), %s %.4g ms (%.1f%%), copies "
             "%.4g ms (%.1f%%) (sum of per-step means over %d runs)\n",
             split_names[0], split[0], total > 0 ? 100 * split[0] / total : 0,
             split_names[1], split[1], total > 0 ? 100 * split[1] / total : 0,
             split[2], total > 0 ? 100 * split[2] / total : 0, o.repeat);
    if (prof && o.profile) {
      /* "ms": each step repeated on its own (caches warm with its own
       * data); "in run": the same step inside whole runs */
      printf("\n%-4s %-32s %10s %7s %9s %10s\n", "step", "kernel", "ms",
             "share", "GFLOP/s", "in run ms");
      for (uint32_t s = 0; s < p->nsteps; s++) {
        const tvm_plan_step *step = &p->steps[s];
        printf("%-4u %-32.32s %10.4f %6.1f%% %9.2f %10.4f\n", s,
               step->label ? step->label : step->kernel, prof[s],
               total > 0 ? 100 * prof[s] / total : 0,
               prof[s] > 0 ? step->flops / (prof[s] * 1e6) : 0, in_run[s]);
      }
      printf("%-4s %-32s %10.4f %6.1f%% %9s %10.4f\n", "", "total", total,
             100.0, "", total_in_run);
    }
  }
  rc = 0;
done:
  for (uint32_t i = 0; outs && p && i < p->noutputs; i++) tvm_npy_free(outs[i]);
  free(outs);
  free(times);
  free(prof);
  free(in_run);
  tvm_executor_free(e);
  tvm_plan_free(p);
  tvm_target_free(t);
  return rc;
}
