/*
 * examples/run_package/run_package.c - a deployable runner: loads a
 * package made by `tvmc compile`, runs it on inputs and prints (or saves)
 * the outputs, linking only libtvm_runtime (no compiler, LLVM, ONNX or
 * YAML; see docs/architecture.md).  The target is made from what the
 * package records (plugin name and attribute values), not from a target
 * YAML file; the plugin is found in $TVM_PLUGIN_PATH or the installed
 * plugin directory.
 *
 *   run_package PACKAGE [NAME=FILE.npy ...] [--save-inputs DIR] [-o DIR]
 *
 * An input not given as a file is filled with a fixed pattern (so that
 * runs compare); --save-inputs writes the inputs used as DIR/NAME.npy,
 * -o writes every output as DIR/NAME.npy.  Each output is printed as its
 * name, dtype, shape and first values.
 *
 * Build against an installed prefix:
 *   cc run_package.c -o run_package $(pkg-config --cflags tvm-plugin-sdk) \
 *      -ltvm_runtime
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/npy.h"
#include "tvm/runtime.h"

/* Prints the thread's diagnostic after what failed; returns 1. */
static int fail(const char *what) {
  fprintf(stderr, "run_package: %s: %s\n", what, tvm_diag_message());
  return 1;
}

/* Fills a float or integer tensor with a fixed pattern in [-1, 1). */
static void fill_pattern(DLTensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  for (int64_t i = 0; i < n; i++) {
    double v = (double)((i * 37 + 11) % 64) / 32.0 - 1.0;
    if (t->dtype.code == kDLFloat && t->dtype.bits == 32)
      ((float *)t->data)[i] = (float)v;
    else if (t->dtype.code == kDLFloat && t->dtype.bits == 64)
      ((double *)t->data)[i] = v;
    else if (t->dtype.bits == 64)
      ((int64_t *)t->data)[i] = (int64_t)(i % 7);
    else if (t->dtype.bits == 32)
      ((int32_t *)t->data)[i] = (int32_t)(i % 7);
    else
      ((uint8_t *)t->data)[i] = (uint8_t)(i % 2);
  }
}

/* Value i of t as a double, for printing. */
static double value_at(const DLTensor *t, int64_t i) {
  if (t->dtype.code == kDLFloat && t->dtype.bits == 32)
    return ((const float *)t->data)[i];
  if (t->dtype.code == kDLFloat && t->dtype.bits == 64)
    return ((const double *)t->data)[i];
  if (t->dtype.bits == 64) return (double)((const int64_t *)t->data)[i];
  if (t->dtype.bits == 32) return ((const int32_t *)t->data)[i];
  return ((const uint8_t *)t->data)[i];
}

/* The .npy file given for input `name` on the command line, or NULL. */
static const char *input_file(int argc, char **argv, const char *name) {
  size_t n = strlen(name);
  for (int i = 2; i < argc; i++)
    if (strncmp(argv[i], name, n) == 0 && argv[i][n] == '=')
      return argv[i] + n + 1;
  return NULL;
}

/* The value of option opt (e.g. "-o"), or NULL. */
static const char *option(int argc, char **argv, const char *opt) {
  for (int i = 2; i + 1 < argc; i++)
    if (strcmp(argv[i], opt) == 0) return argv[i + 1];
  return NULL;
}

/* Sets input i of e from its file or the pattern; saves it to dir. */
static int set_input(tvm_executor *e, const tvm_plan_value *v, uint32_t i,
                     int argc, char **argv, const char *save_dir) {
  const char *file = input_file(argc, argv, v->name);
  DLTensor *x = NULL;
  if (file ? tvm_npy_load(file, &x) != TVM_OK
           : tvm_npy_alloc(v->dtype, v->shape, v->ndim, &x) != TVM_OK)
    return fail(file ? file : "allocating an input");
  if (!file) fill_pattern(x);
  int rc = 0;
  if (tvm_executor_set_input(e, i, x) != TVM_OK) rc = fail(v->name);
  if (!rc && save_dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", save_dir, v->name);
    if (tvm_npy_save(path, x) != TVM_OK) rc = fail(path);
  }
  tvm_npy_free(x);
  return rc;
}

/* Copies output i out of e, prints it and saves it to dir. */
static int show_output(tvm_executor *e, const tvm_plan_value *v, uint32_t i,
                       const char *out_dir) {
  DLTensor *y = NULL;
  char dt[32];
  if (tvm_npy_alloc(v->dtype, v->shape, v->ndim, &y) != TVM_OK)
    return fail("allocating an output");
  int rc = 0;
  if (tvm_executor_get_output(e, i, y) != TVM_OK) rc = fail(v->name);
  int64_t n = 1;
  printf("output %s %s [", v->name, tvm_dtype_str(v->dtype, dt));
  for (int d = 0; d < v->ndim; d++) {
    printf("%s%lld", d ? ", " : "", (long long)v->shape[d]);
    n *= v->shape[d];
  }
  printf("]:");
  for (int64_t k = 0; !rc && k < n && k < 8; k++)
    printf(" %.6g", value_at(y, k));
  printf("%s\n", n > 8 ? " ..." : "");
  if (!rc && out_dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", out_dir, v->name);
    if (tvm_npy_save(path, y) != TVM_OK) rc = fail(path);
  }
  tvm_npy_free(y);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: run_package PACKAGE [NAME=FILE.npy ...] "
                    "[--save-inputs DIR] [-o DIR]\n");
    return 2;
  }
  tvm_plan *p = NULL;
  tvm_target *t = NULL;
  tvm_executor *e = NULL;
  int rc = 0;
  if (tvm_package_load(argv[1], NULL, &p) != TVM_OK) return fail(argv[1]);
  if (tvm_plan_target(p, NULL, &t) != TVM_OK) {
    rc = fail(argv[1]);
    goto done;
  }
  printf("package %s: target %s (plugin %s %s), %u steps\n", argv[1],
         t->name, t->plugin_name, p->plugin_version ? p->plugin_version : "",
         p->nsteps);
  if (tvm_executor_create(p, t, &e) != TVM_OK) {
    rc = fail("creating the executor");
    goto done;
  }
  for (uint32_t i = 0; !rc && i < p->ninputs; i++)
    rc = set_input(e, &p->values[p->inputs[i]], i, argc, argv,
                   option(argc, argv, "--save-inputs"));
  if (!rc && tvm_executor_run(e) != TVM_OK) rc = fail("running");
  for (uint32_t i = 0; !rc && i < p->noutputs; i++)
    rc = show_output(e, &p->values[p->outputs[i]], i,
                     option(argc, argv, "-o"));
done:
  tvm_executor_free(e);
  tvm_target_free(t);
  tvm_plan_free(p);
  return rc;
}
