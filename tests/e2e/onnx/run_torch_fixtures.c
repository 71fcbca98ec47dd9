/*
 * tests/e2e/onnx/run_torch_fixtures.c - models exported by
 * torch.onnx.export, committed as fixtures (tests/e2e/onnx/torch/, written
 * by `bench/peers/torch_models.py --write-fixtures`), compiled for
 * llvm-cpu and compared with torch's own outputs.  Needs no torch.
 *
 * Each fixture STEM is STEM.onnx, its inputs STEM.in.NAME.npy (NAME the
 * graph input) and torch's first output STEM.torch.npy.  For each: the
 * model is imported (tvm_onnx_load), both the reference evaluator and the
 * code compiled by tvm_compile for llvm-cpu run it on the inputs, and each
 * result must satisfy max|got - want| <= TOL * max|want|.  The
 * directory is the first argument, else $TVM_TORCH_FIXTURES, else the
 * configured one.  Prints one line per fixture; exit 1 on any failure,
 * 77 (skipped) when the llvm-cpu target is unavailable here.
 */
#define _POSIX_C_SOURCE 200809L /* strndup, scandir */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/compiler.h"
#include "tvm/graph_passes.h"
#include "tvm/npy.h"
#include "tvm/onnx.h"

#ifndef TVM_TORCH_FIXTURES
#define TVM_TORCH_FIXTURES "tests/e2e/onnx/torch"
#endif

#define TOL 1e-4
#define MAX_IO 8

/* Element i of a float32 or float64 tensor as a double. */
static double at(const DLTensor *t, int64_t i) {
  return t->dtype.bits == 64 ? ((const double *)t->data)[i]
                             : ((const float *)t->data)[i];
}

/* Element count of t. */
static int64_t numel(const DLTensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape[d];
  return n;
}

/* 0 when got matches want (same shape, float, max|got - want| within TOL
 * of max|want|); else writes why into err. */
static int compare(const DLTensor *got, const DLTensor *want, char *err,
                   size_t cap) {
  if (got->ndim != want->ndim || got->dtype.code != kDLFloat ||
      want->dtype.code != kDLFloat) {
    snprintf(err, cap, "output rank/dtype differ (rank %d vs %d)",
             got->ndim, want->ndim);
    return 1;
  }
  for (int d = 0; d < got->ndim; d++)
    if (got->shape[d] != want->shape[d]) {
      snprintf(err, cap, "output dimension %d is %lld, torch's %lld", d,
               (long long)got->shape[d], (long long)want->shape[d]);
      return 1;
    }
  double maxref = 0, maxdiff = 0;
  int64_t n = numel(want), worst = 0;
  for (int64_t i = 0; i < n; i++)
    if (fabs(at(want, i)) > maxref)
      maxref = fabs(at(want, i));
  for (int64_t i = 0; i < n; i++) {
    double d = fabs(at(got, i) - at(want, i));
    if (!(d <= maxdiff)) { /* NaN counts as worst */
      maxdiff = d;
      worst = i;
      if (isnan(d))
        break;
    }
  }
  snprintf(err, cap, "max |diff| %.2e (at %lld: %g vs %g), %.2e relative",
           maxdiff, (long long)worst, at(got, worst), at(want, worst),
           maxref > 0 ? maxdiff / maxref : maxdiff);
  return !(maxdiff <= TOL * maxref);
}

/* Loads the inputs STEM.in.NAME.npy of a fixture: names[k] (malloc'd)
 * and ins[k], *n of them.  Returns 0, else 1 with err set. */
static int load_inputs(const char *dir, const char *stem, char **names,
                       DLTensor **ins, int *n, char *err, size_t cap) {
  struct dirent **ents;
  char prefix[1100], path[4096];
  snprintf(prefix, sizeof prefix, "%s.in.", stem);
  size_t pl = strlen(prefix);
  int k = scandir(dir, &ents, NULL, alphasort), rc = 0;
  *n = 0;
  for (int i = 0; i < k; i++) {
    const char *f = ents[i]->d_name;
    size_t len = strlen(f);
    if (!rc && strncmp(f, prefix, pl) == 0 && len > pl + 4 &&
        strcmp(f + len - 4, ".npy") == 0) {
      if (*n == MAX_IO) {
        snprintf(err, cap, "more than %d inputs", MAX_IO);
        rc = 1;
      } else {
        names[*n] = strndup(f + pl, len - pl - 4);
        snprintf(path, sizeof path, "%s/%s", dir, f);
        if (tvm_npy_load(path, &ins[*n])) {
          snprintf(err, cap, "input: %s", tvm_diag_message());
          rc = 1;
        }
        (*n)++;
      }
    }
    free(ents[i]);
  }
  if (k >= 0)
    free(ents);
  return rc;
}

/* Imports, evaluates (reference and compiled) and compares one fixture.
 * The inputs' files fix the shapes of inputs with symbolic dimensions
 * (tvm_onnx_options.shapes, as `tvmc run --input` does).  Returns 0 on a
 * match, 1 otherwise; err says what happened. */
static int run_one(const char *dir, const char *stem, tvm_target *cpu,
                   char *err, size_t cap) {
  char path[4096];
  tvm_graph *g = NULL;
  DLTensor *files[MAX_IO] = {0}, *want = NULL, *got = NULL;
  const DLTensor *ins[MAX_IO] = {0};
  char *names[MAX_IO] = {0};
  tvm_onnx_shape shapes[MAX_IO];
  tvm_plan *plan = NULL;
  tvm_executor *e = NULL;
  int rc = 1, nfiles = 0;
  char why[512];
  if (load_inputs(dir, stem, names, files, &nfiles, err, cap))
    goto done;
  for (int k = 0; k < nfiles; k++)
    shapes[k] = (tvm_onnx_shape){names[k], files[k]->shape, files[k]->ndim};
  tvm_onnx_options opts = {0};
  opts.shapes = shapes;
  opts.nshapes = nfiles;
  snprintf(path, sizeof path, "%s/%s.onnx", dir, stem);
  if (tvm_onnx_load_opts(path, &opts, &g)) {
    snprintf(err, cap, "import: %s", tvm_diag_message());
    goto done;
  }
  size_t nin = g->inputs.len;
  if (nin > MAX_IO || g->outputs.len < 1) {
    snprintf(err, cap, "%zu inputs, %zu outputs", nin, g->outputs.len);
    goto done;
  }
  for (size_t i = 0; i < nin; i++) {
    const tvm_gvalue *iv = g->inputs.data[i];
    for (int k = 0; k < nfiles; k++)
      if (strcmp(names[k], iv->name) == 0)
        ins[i] = files[k];
    if (!ins[i]) {
      snprintf(err, cap, "no file %s.in.%s.npy for graph input '%s'", stem,
               iv->name, iv->name);
      goto done;
    }
  }
  snprintf(path, sizeof path, "%s/%s.torch.npy", dir, stem);
  if (tvm_npy_load(path, &want)) {
    snprintf(err, cap, "expected output: %s", tvm_diag_message());
    goto done;
  }
  tvm_gvalue *ov = g->outputs.data[0];
  if (tvm_npy_alloc(ov->dtype, ov->shape, ov->ndim, &got)) {
    snprintf(err, cap, "output: %s", tvm_diag_message());
    goto done;
  }
  /* the reference operators, the compiler's oracle */
  DLTensor *dst[MAX_IO] = {got};
  if (g->outputs.len == 1) {
    if (tvm_graph_eval_reference(g, ins, dst)) {
      snprintf(err, cap, "reference evaluation: %s", tvm_diag_message());
      goto done;
    }
    if (compare(got, want, why, sizeof why)) {
      snprintf(err, cap, "reference operators differ from torch: %s", why);
      goto done;
    }
    memset(got->data, 0xA5, (size_t)numel(got) * (got->dtype.bits / 8));
  }
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  if (tvm_compile(g, cpu, &o, &plan) || tvm_executor_create(plan, cpu, &e)) {
    snprintf(err, cap, "compile: %s", tvm_diag_message());
    goto done;
  }
  for (size_t i = 0; i < nin; i++)
    if (tvm_executor_set_input(e, (uint32_t)i, ins[i])) {
      snprintf(err, cap, "input %zu: %s", i, tvm_diag_message());
      goto done;
    }
  if (tvm_executor_run(e) || tvm_executor_get_output(e, 0, got)) {
    snprintf(err, cap, "run: %s", tvm_diag_message());
    goto done;
  }
  if (compare(got, want, why, sizeof why)) {
    snprintf(err, cap, "compiled code differs from torch: %s", why);
    goto done;
  }
  snprintf(err, cap, "reference and compiled match torch (compiled: %s)",
           why);
  rc = 0;
done:
  tvm_executor_free(e);
  tvm_plan_free(plan);
  for (int k = 0; k < nfiles; k++) {
    tvm_npy_free(files[k]);
    free(names[k]);
  }
  tvm_npy_free(want);
  tvm_npy_free(got);
  tvm_graph_free(g);
  return rc;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : getenv("TVM_TORCH_FIXTURES");
  if (!dir || !dir[0])
    dir = TVM_TORCH_FIXTURES;
  tvm_target *cpu = NULL;
  tvm_status tst = tvm_target_load("llvm-cpu", &cpu);
  if (tst) {
    printf("torch fixtures: %s the llvm-cpu target: %s\n",
           tst == TVM_ERR_UNAVAILABLE ? "skipped: no" : "cannot load",
           tvm_diag_message());
    return tst == TVM_ERR_UNAVAILABLE ? 77 : 1;
  }
  struct dirent **ents;
  int n = scandir(dir, &ents, NULL, alphasort);
  if (n < 0) {
    printf("torch fixtures: cannot read the directory %s\n", dir);
    tvm_target_free(cpu);
    return 1;
  }
  int pass = 0, fail = 0;
  static char err[8192];
  for (int i = 0; i < n; i++) {
    const char *name = ents[i]->d_name;
    size_t len = strlen(name);
    if (len > 5 && strcmp(name + len - 5, ".onnx") == 0) {
      char stem[1024];
      snprintf(stem, sizeof stem, "%.*s", (int)(len - 5), name);
      int r = run_one(dir, stem, cpu, err, sizeof err);
      printf("%s %s: %s\n", r ? "FAIL" : "pass", stem, err);
      fflush(stdout);
      r ? fail++ : pass++;
    }
    free(ents[i]);
  }
  free(ents);
  tvm_target_free(cpu);
  printf("torch fixtures: %d passed, %d failed\n", pass, fail);
  return fail || pass == 0 ? 1 : 0;
}
