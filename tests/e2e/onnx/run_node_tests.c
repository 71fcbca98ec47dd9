/*
 * tests/e2e/onnx/run_node_tests.c - the ONNX conformance node tests
 * (libonnx-testdata: <dir>/test_<name>/{model.onnx, test_data_set_N/
 * {input,output}_K.pb}) run through the importer and the reference graph
 * evaluator.
 *
 * For each test: the model is imported; an import failing with
 * TVM_ERR_UNSUPPORTED (an operator outside the registry, a dtype outside
 * float32/int32/int64, an unsupported mode) counts as "unsupported", any
 * other import failure as a failure.  Otherwise every data set's inputs
 * are fed (by name, else by position), the graph is evaluated with the
 * operators' references (tvm_graph_eval_reference) and each output is
 * compared with the expected one: same dtype and shape; floats within
 * |got - want| <= ATOL + RTOL * |want| (NaN matches NaN), integers exactly.
 * An evaluation failing with TVM_ERR_UNSUPPORTED counts as unsupported.
 * Then (unless TVM_ONNX_MODE=reference) the same graph is compiled for the
 * llvm-cpu target with tvm_compile, run through the graph executor, and its
 * outputs are compared with the expected ones too: a test passes only when
 * both the reference operators and the compiled code are right, and a
 * graph the reference can evaluate but the compiler cannot build is a
 * failure.  TVM_ONNX_MODE=compiled skips the reference evaluation.
 * A model refused as unsupported is retried with every input but the
 * first frozen to the data set's values (tvm_onnx_options.consts), then
 * with all of them: many node tests feed Reshape's shape, Clip's bounds,
 * ConstantOfShape's shape ... at run time, which this compiler wants
 * constant.
 *
 * Prints one line per failure and the summary
 *   onnx node tests: P passed, F failed, U unsupported (of N)
 * and exits 1 when a test failed, 77 (skipped) when the directory is
 * missing.  The directory is $TVM_ONNX_NODE_TESTS, else the configured
 * one.  Arguments (or $TVM_ONNX_TEST_FILTER) are substrings selecting
 * tests; TVM_ONNX_VERBOSE=1 also prints passes and unsupported reasons.
 * TVM_ONNX_REPORT=FILE writes the unsupported tests and their reasons as
 * a Markdown table (docs/onnx-node-tests.md is made that way).
 * TVM_ONNX_TARGET=NAME compiles for that target (a name from targets/ or
 * a YAML path) instead of llvm-cpu; a target whose device is missing
 * skips the run (77), and a graph its plugin declines to build
 * (TVM_ERR_UNSUPPORTED from tvm_compile) counts as unsupported on that
 * target, with the plugin's reason, rather than as a failure.
 * TVM_ONNX_MODE=build compiles for the target and runs nothing (a target
 * without its device here: cuda on a machine without a GPU, whose
 * kernels NVRTC still compiles): "passed" then means built; a code
 * generator that is itself unavailable (no NVRTC) skips the run (77).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tvm/compiler.h"
#include "tvm/graph_passes.h"
#include "tvm/onnx.h"

#ifndef TVM_ONNX_TESTDATA
#define TVM_ONNX_TESTDATA "/usr/share/libonnx-testdata/data/node"
#endif

#define RTOL 1e-3
#define ATOL 1e-4
#define MAX_IO 64

enum { R_PASS, R_FAIL, R_UNSUPPORTED };

static int verbose;
/* What to check: the reference evaluator, the compiled code, or both. */
enum { MODE_REFERENCE = 1, MODE_COMPILED = 2, MODE_BUILD = 4 };
static int mode = MODE_REFERENCE | MODE_COMPILED;
static tvm_target *cpu; /* the target compiled for (MODE_COMPILED) */
static const char *target_name = "llvm-cpu";

/* 1 when path names a directory. */
static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* 1 when path names a readable file. */
static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Sorted names of dir's entries starting with prefix (caller frees each
 * and the array); *n their count. */
static char **list_dir(const char *dir, const char *prefix, int *n) {
  struct dirent **ents;
  *n = 0;
  int k = scandir(dir, &ents, NULL, alphasort);
  if (k < 0)
    return NULL;
  char **names = calloc((size_t)k + 1, sizeof *names);
  for (int i = 0; i < k; i++) {
    if (names && strncmp(ents[i]->d_name, prefix, strlen(prefix)) == 0)
      names[(*n)++] = strdup(ents[i]->d_name);
    free(ents[i]);
  }
  free(ents);
  return names;
}

static void free_list(char **names, int n) {
  for (int i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

/* Loads <dir>/<kind>_0.pb, <kind>_1.pb, ... until one is missing. */
static int load_tensors(const char *dir, const char *kind,
                        tvm_onnx_tensor **ts, int *n, char *err,
                        size_t errcap) {
  *n = 0;
  for (int k = 0; k < MAX_IO; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%d.pb", dir, kind, k);
    if (!is_file(path))
      break;
    if (tvm_onnx_tensor_load(path, &ts[k])) {
      snprintf(err, errcap, "reading %s: %s", path, tvm_diag_message());
      return tvm_diag_status();
    }
    (*n)++;
  }
  return 0;
}

/* Product of a DLTensor's shape. */
static int64_t numel(const DLTensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; i++)
    n *= t->shape[i];
  return n;
}

/* "[2, 3]" */
static const char *shape_str(char *buf, size_t cap, const int64_t *s, int n) {
  size_t len = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "",
                            (long long)s[i]);
  if (len < cap)
    snprintf(buf + len, cap - len, "]");
  return buf;
}

/* IEEE half and bfloat16 bit patterns as floats. */
static double half_f(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0    ? ldexp(m, -24)
             : e == 31 ? (m ? NAN : INFINITY)
                       : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

static double bf16_f(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* Element i of a tensor of any supported dtype as double / int64. */
static int64_t geti(const DLTensor *t, int64_t i);
static double getf(const DLTensor *t, int64_t i) {
  const void *d = t->data;
  if (t->dtype.code == kDLFloat && t->dtype.bits == 32)
    return ((const float *)d)[i];
  if (t->dtype.code == kDLFloat && t->dtype.bits == 64)
    return ((const double *)d)[i];
  if (t->dtype.code == kDLFloat && t->dtype.bits == 16)
    return half_f(((const uint16_t *)d)[i]);
  if (t->dtype.code == kDLBfloat)
    return bf16_f(((const uint16_t *)d)[i]);
  if (t->dtype.code == kDLUInt && t->dtype.bits == 64)
    return (double)((const uint64_t *)d)[i];
  return (double)geti(t, i);
}

static int64_t geti(const DLTensor *t, int64_t i) {
  const void *d = t->data;
  if (t->dtype.code == kDLInt)
    switch (t->dtype.bits) {
    case 8: return ((const int8_t *)d)[i];
    case 16: return ((const int16_t *)d)[i];
    case 32: return ((const int32_t *)d)[i];
    default: return ((const int64_t *)d)[i];
    }
  if (t->dtype.code == kDLUInt)
    switch (t->dtype.bits) {
    case 1:
    case 8: return ((const uint8_t *)d)[i];
    case 16: return ((const uint16_t *)d)[i];
    case 32: return ((const uint32_t *)d)[i];
    default: return (int64_t)((const uint64_t *)d)[i];
    }
  return (int64_t)getf(t, i);
}

/* The ONNX test data stores bfloat16 tensors as uint16 (their bit
 * patterns): read them as bfloat16 where the model wants bfloat16. */
static void bf16_from_u16(DLTensor *t, DLDataType want) {
  if (want.code == kDLBfloat && t->dtype.code == kDLUInt &&
      t->dtype.bits == 16)
    t->dtype = want;
}

/* Compares got with want (same dtype and shape; see the header comment);
 * describes the first mismatch in err. */
static int compare(const char *name, const DLTensor *got, const DLTensor *want,
                   char *err, size_t errcap) {
  char b1[200], b2[200];
  if (got->dtype.code != want->dtype.code ||
      got->dtype.bits != want->dtype.bits) {
    snprintf(err, errcap, "output '%s': dtype code %d bits %d, expected code "
             "%d bits %d", name, got->dtype.code, got->dtype.bits,
             want->dtype.code, want->dtype.bits);
    return 1;
  }
  int same = got->ndim == want->ndim;
  for (int i = 0; same && i < got->ndim; i++)
    same = got->shape[i] == want->shape[i];
  if (!same) {
    snprintf(err, errcap, "output '%s': shape %s, expected %s", name,
             shape_str(b1, sizeof b1, got->shape, got->ndim),
             shape_str(b2, sizeof b2, want->shape, want->ndim));
    return 1;
  }
  int64_t n = numel(want), bad = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    int ok;
    if (want->dtype.code == kDLFloat || want->dtype.code == kDLBfloat) {
      double g = getf(got, i), w = getf(want, i);
      if (isnan(w) || isnan(g))
        ok = isnan(w) && isnan(g);
      else if (isinf(w) || isinf(g))
        ok = g == w;
      else
        ok = fabs(g - w) <= ATOL + RTOL * fabs(w);
      if (!ok && !isnan(g - w) && fabs(g - w) > worst)
        worst = fabs(g - w);
    } else {
      ok = geti(got, i) == geti(want, i);
    }
    if (!ok) {
      if (first < 0)
        first = i;
      bad++;
    }
  }
  if (!bad)
    return 0;
  if (want->dtype.code == kDLFloat || want->dtype.code == kDLBfloat)
    snprintf(err, errcap,
             "output '%s': %lld of %lld elements differ (first at %lld: got "
             "%.9g, expected %.9g; max abs error %.3g; rtol %g atol %g)",
             name, (long long)bad, (long long)n, (long long)first,
             getf(got, first), getf(want, first), worst, RTOL, ATOL);
  else
    snprintf(err, errcap,
             "output '%s': %lld of %lld elements differ (first at %lld: got "
             "%lld, expected %lld)",
             name, (long long)bad, (long long)n, (long long)first,
             (long long)geti(got, first), (long long)geti(want, first));
  return 1;
}

/* Runs one data set of a test: imports the model (with inputs bound to
 * the data set's values when frozen is 1: every input but the first; 2:
 * all of them), feeds the remaining graph inputs by name (else by
 * position), evaluates and compares. */
/* Compiles g for the chosen target and runs it on feed (ngin inputs),
 * writing the outputs into dst.  g is rewritten by the graph passes. */
static tvm_status eval_compiled(tvm_graph *g, const DLTensor **feed,
                                size_t ngin, DLTensor **dst, size_t ngout) {
  tvm_compile_options o;
  tvm_plan *plan = NULL;
  tvm_executor *e = NULL;
  tvm_status st;
  tvm_compile_options_init(&o);
  if ((st = tvm_compile(g, cpu, &o, &plan)))
    return tvm_diag_prefix(st, "compile: ");
  if (mode & MODE_BUILD) { /* built: nothing runs */
    tvm_plan_free(plan);
    return TVM_OK;
  }
  if ((st = tvm_executor_create(plan, cpu, &e)))
    goto out;
  for (size_t i = 0; i < ngin && !st; i++)
    st = tvm_executor_set_input(e, (uint32_t)i, feed[i]);
  if (!st)
    st = tvm_executor_run(e);
  for (size_t i = 0; i < ngout && !st; i++)
    st = tvm_executor_get_output(e, (uint32_t)i, dst[i]);
out:
  if (st)
    tvm_diag_prefix(st, "compiled run: ");
  tvm_executor_free(e);
  tvm_plan_free(plan);
  return st;
}

/* Compares the outputs in got with the data set's expected ones. */
static int compare_outputs(const tvm_graph *g, DLTensor *got,
                           tvm_onnx_tensor **outs, int nout, const char *how,
                           char *err, size_t errcap) {
  for (size_t i = 0; i < g->outputs.len; i++) {
    const tvm_gvalue *v = g->outputs.data[i];
    const tvm_onnx_tensor *w = outs[i];
    for (int k = 0; k < nout; k++)
      if (strcmp(outs[k]->name, v->name) == 0)
        w = outs[k];
    bf16_from_u16((DLTensor *)&w->dl, v->dtype);
    if (compare(v->name, &got[i], &w->dl, err, errcap)) {
      size_t len = strlen(err);
      if (len + 1 < errcap)
        snprintf(err + len, errcap - len, " (%s)", how);
      return 1;
    }
  }
  return 0;
}

static int run_data_set(const char *model, const char *dsdir, int frozen,
                        char *err, size_t errcap) {
  tvm_onnx_tensor *ins[MAX_IO] = {0}, *outs[MAX_IO] = {0};
  DLTensor got[MAX_IO];
  void *bufs[MAX_IO] = {0};
  const DLTensor *feed[MAX_IO];
  DLTensor *dst[MAX_IO];
  tvm_onnx_const consts[MAX_IO];
  tvm_graph *g = NULL;
  int nin = 0, nout = 0, result = R_FAIL;
  char b1[200], b2[200];

  tvm_status st = load_tensors(dsdir, "input", ins, &nin, err, errcap);
  if (!st)
    st = load_tensors(dsdir, "output", outs, &nout, err, errcap);
  if (st) {
    /* data this runner cannot represent (strings, float16; sequences and
     * optionals, which are no TensorProto); for a model already refused
     * as unsupported, that settles it */
    result = st == TVM_ERR_UNSUPPORTED || frozen ? R_UNSUPPORTED : R_FAIL;
    goto done;
  }
  tvm_onnx_options opts = {0};
  if (frozen) {
    int first = frozen == 1 ? 1 : 0;
    for (int k = first; k < nin; k++) {
      if (!ins[k]->name[0]) {
        snprintf(err, errcap, "input %d of %s has no name to freeze", k,
                 dsdir);
        result = R_UNSUPPORTED;
        goto done;
      }
      consts[opts.nconsts].name = ins[k]->name;
      consts[opts.nconsts].value = &ins[k]->dl;
      opts.nconsts++;
    }
    opts.consts = consts;
  }
  st = tvm_onnx_load_opts(model, &opts, &g);
  if (st) {
    snprintf(err, errcap, "import%s: %s",
             frozen == 1 ? " (inputs 1.. frozen)"
                         : frozen == 2 ? " (all inputs frozen)" : "",
             tvm_diag_message());
    /* frozen data contradicting the model's declared shape: as above */
    result = st == TVM_ERR_UNSUPPORTED ||
                     (frozen && strstr(tvm_diag_message(),
                                       "the constant given for graph input"))
                 ? R_UNSUPPORTED
                 : R_FAIL;
    goto done;
  }
  size_t gin = g->inputs.len, gout = g->outputs.len;
  if ((size_t)nin != gin + (size_t)opts.nconsts || (size_t)nout != gout ||
      gout > MAX_IO) {
    snprintf(err, errcap,
             "%s: %d inputs and %d outputs, the graph has %zu (+%d frozen) "
             "and %zu", dsdir, nin, nout, gin, opts.nconsts, gout);
    goto done;
  }
  /* Feed: by name when the data names a graph input, else by position. */
  for (size_t i = 0; i < gin; i++) {
    const tvm_gvalue *v = g->inputs.data[i];
    const tvm_onnx_tensor *t = ins[i];
    for (int k = 0; k < nin; k++)
      if (strcmp(ins[k]->name, v->name) == 0)
        t = ins[k];
    bf16_from_u16((DLTensor *)&t->dl, v->dtype);
    int same = t->dl.ndim == v->ndim && t->dl.dtype.code == v->dtype.code &&
               t->dl.dtype.bits == v->dtype.bits;
    for (int d = 0; same && d < v->ndim; d++)
      same = t->dl.shape[d] == v->shape[d];
    if (!same && t->dl.dtype.code == v->dtype.code &&
        t->dl.dtype.bits == v->dtype.bits) {
      /* the data contradicts the model's own static input shape (ONNX
       * Runtime does not enforce declared shapes; this compiler does) */
      snprintf(err, errcap, "input '%s': the test data has shape %s but the "
               "model declares the static shape %s", v->name,
               shape_str(b1, sizeof b1, t->dl.shape, t->dl.ndim),
               shape_str(b2, sizeof b2, v->shape, v->ndim));
      result = R_UNSUPPORTED;
      goto done;
    }
    if (!same) {
      snprintf(err, errcap, "input '%s': data %s (code %d bits %d), graph %s "
               "(code %d bits %d)", v->name,
               shape_str(b1, sizeof b1, t->dl.shape, t->dl.ndim),
               t->dl.dtype.code, t->dl.dtype.bits,
               shape_str(b2, sizeof b2, v->shape, v->ndim), v->dtype.code,
               v->dtype.bits);
      goto done;
    }
    feed[i] = &t->dl;
  }
  for (size_t i = 0; i < gout; i++) {
    tvm_gvalue *v = g->outputs.data[i];
    int64_t bytes = tvm_gvalue_bytes(v);
    bufs[i] = calloc(1, bytes > 0 ? (size_t)bytes : 1);
    memset(&got[i], 0, sizeof got[i]);
    got[i].data = bufs[i];
    got[i].device.device_type = kDLCPU;
    got[i].ndim = v->ndim;
    got[i].dtype = v->dtype;
    got[i].shape = v->shape;
    dst[i] = &got[i];
  }
  if (mode & MODE_REFERENCE) {
    st = tvm_graph_eval_reference(g, feed, dst);
    if (st) {
      snprintf(err, errcap, "evaluation: %s", tvm_diag_message());
      result = st == TVM_ERR_UNSUPPORTED ? R_UNSUPPORTED : R_FAIL;
      goto done;
    }
    if (compare_outputs(g, got, outs, nout, "reference", err, errcap))
      goto done;
  }
  if (mode & MODE_COMPILED) {
    for (size_t i = 0; i < gout; i++)
      memset(bufs[i], 0xA5, (size_t)tvm_gvalue_bytes(g->outputs.data[i]));
    /* the graph passes rewrite g: keep the expected outputs' order */
    st = eval_compiled(g, feed, gin, dst, gout);
    if (st == TVM_ERR_UNAVAILABLE && (mode & MODE_BUILD)) {
      printf("onnx node tests: skipped: target %s cannot build here: %s\n",
             target_name, tvm_diag_message());
      exit(77);
    }
    if (st) {
      snprintf(err, errcap, "%s", tvm_diag_message());
      /* another target's plugin may decline what llvm-cpu builds */
      if (st == TVM_ERR_UNSUPPORTED && strcmp(target_name, "llvm-cpu"))
        result = R_UNSUPPORTED;
      goto done;
    }
    char how[160];
    snprintf(how, sizeof how, "compiled for %s", target_name);
    if (!(mode & MODE_BUILD) &&
        compare_outputs(g, got, outs, nout, how, err, errcap))
      goto done;
  }
  result = R_PASS;
done:
  tvm_graph_free(g);
  for (int k = 0; k < MAX_IO; k++) {
    tvm_onnx_tensor_free(ins[k]);
    tvm_onnx_tensor_free(outs[k]);
    free(bufs[k]);
  }
  return result;
}

/* Runs the test in <dir>/<name>; err receives the reason of a failure or
 * of an unsupported verdict.  A model whose import is refused as
 * unsupported is retried with every input but the first frozen to the
 * data set's values (shape inputs fed at run time, as in many node tests),
 * then with all of them; *frozen tells which was needed (0, 1, 2). */
static int run_test(const char *dir, const char *name, int *frozen,
                    char *err, size_t errcap) {
  char path[4096], model[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(model, sizeof model, "%s/model.onnx", path);
  *frozen = 0;
  tvm_graph *g = NULL;
  tvm_status st = tvm_onnx_load(model, &g);
  tvm_graph_free(g);
  if (st && st != TVM_ERR_UNSUPPORTED) {
    snprintf(err, errcap, "import: %s", tvm_diag_message());
    return R_FAIL;
  }
  static char first[8192];
  first[0] = 0;
  if (st) {
    snprintf(first, sizeof first, "import: %s", tvm_diag_message());
    *frozen = 1;
  }
  int nds;
  char **ds = list_dir(path, "test_data_set_", &nds);
  int result = nds > 0 ? R_PASS : R_FAIL;
  if (nds == 0)
    snprintf(err, errcap, "no test_data_set_* directory");
  for (int i = 0; i < nds && result == R_PASS; i++) {
    char dsdir[4400];
    snprintf(dsdir, sizeof dsdir, "%s/%s", path, ds[i]);
    result = run_data_set(model, dsdir, *frozen, err, errcap);
    if (result == R_UNSUPPORTED && *frozen == 1) {
      /* e.g. ConstantOfShape, whose only input is the shape */
      *frozen = 2;
      result = R_PASS;
      i = -1;
    }
  }
  /* still unsupported after freezing: report the first reason */
  if (*frozen && result == R_UNSUPPORTED)
    snprintf(err, errcap, "%s", first);
  free_list(ds, nds);
  return result;
}

/* Appends one unsupported test to the Markdown report: the reason without
 * the model path prefix and the list of supported operators, '|' escaped,
 * at most 300 characters. */
static void report_row(FILE *f, const char *test, const char *why) {
  const char *p = strstr(why, "model.onnx'");
  if (p) {
    p += strlen("model.onnx'");
    while (*p == ' ' || *p == ':')
      p++;
  } else {
    p = why;
  }
  fprintf(f, "| %s | ", test);
  int n = 0;
  for (; *p && n < 300; p++, n++) {
    if (!strncmp(p, "; supported: ", 13))
      break;
    if (*p == '|')
      fputs("\\|", f);
    else if (*p == '\n')
      fputc(' ', f);
    else
      fputc(*p, f);
  }
  fputs(n >= 300 && *p ? "... |\n" : " |\n", f);
}

/* 1 when name matches one of the filters (or there are none). */
static int selected(const char *name, int nfilt, char **filt) {
  if (nfilt == 0)
    return 1;
  for (int i = 0; i < nfilt; i++)
    if (strstr(name, filt[i]))
      return 1;
  return 0;
}

int main(int argc, char **argv) {
  const char *dir = getenv("TVM_ONNX_NODE_TESTS");
  if (!dir || !dir[0])
    dir = TVM_ONNX_TESTDATA;
  verbose = getenv("TVM_ONNX_VERBOSE") && atoi(getenv("TVM_ONNX_VERBOSE"));
  const char *m = getenv("TVM_ONNX_MODE");
  if (m && !strcmp(m, "reference"))
    mode = MODE_REFERENCE;
  else if (m && !strcmp(m, "compiled"))
    mode = MODE_COMPILED;
  else if (m && !strcmp(m, "build"))
    mode = MODE_COMPILED | MODE_BUILD;
  else if (m && m[0] && strcmp(m, "both")) {
    fprintf(stderr,
            "TVM_ONNX_MODE must be reference, compiled, both or build\n");
    return 2;
  }
  if (!is_dir(dir)) {
    printf("onnx node tests: skipped: %s is not a directory (apt-get install "
           "libonnx-testdata, or set TVM_ONNX_NODE_TESTS)\n", dir);
    return 77;
  }
  char *envf[1];
  char **filt = argv + 1;
  int nfilt = argc - 1;
  const char *ef = getenv("TVM_ONNX_TEST_FILTER");
  if (nfilt == 0 && ef && ef[0]) {
    envf[0] = (char *)ef;
    filt = envf;
    nfilt = 1;
  }
  const char *tn = getenv("TVM_ONNX_TARGET");
  if (tn && tn[0])
    target_name = tn;
  if (mode & MODE_COMPILED) {
    tvm_status tst = tvm_target_load(target_name, &cpu);
    if (tst == TVM_ERR_UNAVAILABLE) {
      printf("onnx node tests: skipped: target %s is unavailable here: %s\n",
             target_name, tvm_diag_message());
      return 77;
    }
    if (tst) {
      printf("onnx node tests: cannot load the %s target for compiled "
             "runs: %s\n", target_name, tvm_diag_message());
      return 1;
    }
    /* runs need the device: without it every test would fail the same
     * way (a cuda target loads where NVRTC is, GPU or not) */
    if (!(mode & MODE_BUILD) && tvm_target_probe(cpu) == TVM_ERR_UNAVAILABLE) {
      printf("onnx node tests: skipped: no device for target %s here: %s\n",
             target_name, tvm_diag_message());
      return 77;
    }
  }
  const char *rp = getenv("TVM_ONNX_REPORT");
  FILE *report = rp && rp[0] ? fopen(rp, "w") : NULL;
  if (rp && rp[0] && !report) {
    printf("onnx node tests: cannot write %s\n", rp);
    return 1;
  }
  if (report)
    fprintf(report, "| test | why it is unsupported |\n|---|---|\n");
  int n;
  char **tests = list_dir(dir, "test_", &n);
  int pass = 0, fail = 0, unsup = 0, total = 0, nfrozen = 0;
  static char err[8192];
  for (int i = 0; i < n; i++) {
    if (!selected(tests[i], nfilt, filt))
      continue;
    err[0] = 0;
    total++;
    int frozen;
    switch (run_test(dir, tests[i], &frozen, err, sizeof err)) {
    case R_PASS:
      pass++;
      nfrozen += frozen > 0;
      if (verbose)
        printf("pass %s%s\n", tests[i],
               frozen == 1   ? " (inputs 1.. frozen to constants)"
               : frozen == 2 ? " (all inputs frozen to constants)"
                             : "");
      break;
    case R_UNSUPPORTED:
      unsup++;
      if (report)
        report_row(report, tests[i], err);
      if (verbose)
        printf("unsupported %s: %.300s\n", tests[i], err);
      break;
    default:
      fail++;
      printf("FAIL %s: %s\n", tests[i], err);
      break;
    }
    fflush(stdout);
  }
  free_list(tests, n);
  if (nfrozen)
    printf("(%d of the passed tests ran with inputs frozen to constants: "
           "the model feeds shapes or attributes at run time)\n",
           nfrozen);
  printf("onnx node tests (%s%s): %d passed, %d failed, %d unsupported (of "
         "%d)\n",
         mode == MODE_REFERENCE  ? "reference operators"
         : (mode & MODE_BUILD)   ? "built, not run, for "
         : mode == MODE_COMPILED ? "compiled for "
                                 : "reference operators and compiled for ",
         mode == MODE_REFERENCE ? "" : target_name, pass, fail, unsup, total);
  if (report) {
    fprintf(report, "\n%d passed, %d failed, %d unsupported (of %d).\n",
            pass, fail, unsup, total);
    fclose(report);
  }
  tvm_target_free(cpu);
  return fail ? 1 : 0;
}
