/*
 * plugin-sdk/tools/backend_ops.c - tvm-backend-ops: every operator of the
 * graph operator library on every backend.
 *
 *   tvm-backend-ops [-o OP[,OP...]] [--model-layouts] [-v] [TARGET...]
 *
 * For every operator of the registry (tvm_gop_count/tvm_gop_at), each of
 * its cases (backend_ops_cases.c), and every dtype of the sweep that the
 * operator's shape inference accepts, builds a one-node graph, compiles
 * it for each target (those named, else every target file of the search
 * path that loads and probes available), runs it and compares it with
 * the operator's reference.  Prints TAP:
 *   ok N - <target> <op> <shapes> <dtype> {<attributes>}
 *   not ok N - <target> <op> <shapes> <dtype>: <why>
 *   ok N - <target> <op> ... # SKIP <reason from the compiler/plugin>
 * then a summary line; exits 0 when nothing failed, 1 otherwise, 2 on bad
 * usage.  -v also lists the dtypes an operator rejects; --model-layouts
 * compiles without the target's layout choice (alter_layout), so that
 * e.g. Conv runs in NCHW through the core's generic schedule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_ops.h"

static int ntests, npass, nfail, nskip;

/* One TAP line; returns the result again. */
static void report(bo_result r, const char *what, const char *why) {
  ntests++;
  if (r == BO_PASS) {
    npass++;
    printf("ok %d - %s\n", ntests, what);
  } else if (r == BO_SKIP) {
    nskip++;
    printf("ok %d - %s # SKIP %s\n", ntests, what, why);
  } else {
    nfail++;
    printf("not ok %d - %s: %s\n", ntests, what, why);
  }
  fflush(stdout);
}

/* Is op selected by the comma list sel (NULL = all)? */
static int selected(const char *sel, const char *op) {
  if (!sel) return 1;
  size_t n = strlen(op);
  for (const char *p = sel; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, op, n) == 0) return 1;
    p += len + (e ? 1 : 0);
  }
  return 0;
}

/* Does case c sweep dtypes (has a "D" input)? */
static int sweeps(const bo_case *c) {
  for (const char *p = c->inputs; *p; p++)
    if (*p == 'D' && (p == c->inputs || p[-1] == ' ' || p[-1] == '#'))
      return 1;
  return 0;
}

/* Every case of every selected operator on target t. */
static void run_target(const tvm_target *t, const char *sel, int verbose) {
  printf("# target %s (plugin %s)%s\n", t->name, t->plugin_name,
         bo_model_layouts ? ", model layouts" : "");
  for (int i = 0; i < tvm_gop_count(); i++) {
    const tvm_gop_def *def = tvm_gop_at(i);
    if (!selected(sel, def->name)) continue;
    bo_case cases[16];
    int generic = 0;
    int n = bo_cases_for(def, cases, 16, &generic);
    char what[512], why[1024], shape[256], dn[16];
    if (!def->compute) {
      snprintf(what, sizeof what, "%s %s", t->name, def->name);
      snprintf(why, sizeof why,
               "%s has no compute: folded at compile time, never reaches a "
               "target", def->name);
      report(BO_SKIP, what, why);
      continue;
    }
    if (n == 0) {
      snprintf(what, sizeof what, "%s %s", t->name, def->name);
      snprintf(why, sizeof why,
               "no example inputs: %s takes %d inputs; add a case to "
               "plugin-sdk/tools/backend_ops_cases.c",
               def->name, def->min_inputs);
      report(BO_SKIP, what, why);
      continue;
    }
    for (int k = 0; k < n; k++) {
      int ran = 0;
      char first_why[1024] = "";
      int nd = sweeps(&cases[k]) ? bo_ndtypes : 1;
      for (int d = 0; d < nd; d++) {
        int folded = 0;
        bo_result r = bo_run_case(t, &cases[k], bo_dtypes[d], shape,
                                  sizeof shape, why, sizeof why, &folded);
        if (r == BO_UNSUPPORTED) {
          if (!first_why[0]) snprintf(first_why, sizeof first_why, "%s", why);
          if (verbose)
            printf("# %s %s %s: not supported (%s)\n", def->name, shape,
                   bo_dtype_name(bo_dtypes[d], dn), why);
          continue;
        }
        ran++;
        snprintf(what, sizeof what, "%s %s %s%s%s%s%s%s%s", t->name, def->name,
                 shape, nd > 1 ? " " : "",
                 nd > 1 ? bo_dtype_name(bo_dtypes[d], dn) : "",
                 *cases[k].attrs ? " {" : "", cases[k].attrs,
                 *cases[k].attrs ? "}" : "",
                 folded ? " (no kernel ran: the compiler folded or removed the node)"
                        : "");
        report(r, what, why);
      }
      if (ran == 0) {
        /* no dtype of the sweep passes shape inference */
        snprintf(what, sizeof what, "%s %s %s", t->name, def->name, shape);
        snprintf(why, sizeof why,
                 "%s: shape inference rejects %s inputs for every dtype "
                 "(%s)%s",
                 generic ? "no example inputs" : "stale case", cases[k].inputs,
                 first_why,
                 generic ? "; add a case to plugin-sdk/tools/backend_ops_cases.c"
                         : "");
        report(generic ? BO_SKIP : BO_FAIL, what, why);
      }
    }
  }
}

/* Prints usage to f. */
static void usage(FILE *f) {
  fprintf(f,
          "usage: tvm-backend-ops [-o OP[,OP...]] [--model-layouts] [-v]\n"
          "                       [TARGET...]\n"
          "  Runs every operator of the library (or those named with -o) at\n"
          "  several shapes and every dtype it supports on each TARGET (a\n"
          "  name in $TVM_TARGET_PATH or a .yaml path; default: every target\n"
          "  that loads and probes available), compares with the operator's\n"
          "  reference and prints TAP.  -v lists rejected dtypes too;\n"
          "  --model-layouts keeps the model's layouts (no alter_layout).\n");
}

/* Parses options, picks the targets, runs them. */
int main(int argc, char **argv) {
  const char *sel = NULL;
  int verbose = 0, first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strcmp(argv[first], "-o") == 0 && first + 1 < argc) sel = argv[++first];
    else if (strcmp(argv[first], "-v") == 0) verbose = 1;
    else if (strcmp(argv[first], "--model-layouts") == 0) bo_model_layouts = 1;
    else if (strcmp(argv[first], "-h") == 0 || strcmp(argv[first], "--help") == 0) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  char **names = argv + first;
  int nnames = argc - first;
  tvm_target_file *files = NULL;
  int nfiles = 0;
  if (nnames == 0) {
    if (tvm_target_files(&files, &nfiles) != TVM_OK) {
      fprintf(stderr, "tvm-backend-ops: %s\n", tvm_diag_message());
      return 1;
    }
    names = calloc((size_t)(nfiles ? nfiles : 1), sizeof *names);
    if (!names) return 1;
    for (int i = 0; i < nfiles; i++) {
      if (files[i].status == TVM_OK && files[i].name)
        names[nnames++] = files[i].path;
      else
        printf("# target %s: not run (%s)\n",
               files[i].name ? files[i].name : files[i].path,
               files[i].message ? files[i].message : "does not load");
    }
  }
  if (nnames == 0) printf("# no target loads and probes available here\n");
  for (int i = 0; i < nnames; i++) {
    tvm_target *t = NULL;
    char what[512];
    if (tvm_target_load(names[i], &t) != TVM_OK) {
      snprintf(what, sizeof what, "%s loads", names[i]);
      report(BO_FAIL, what, tvm_diag_message());
      continue;
    }
    if (tvm_target_probe(t) != TVM_OK) {
      snprintf(what, sizeof what, "%s every operator", t->name);
      report(BO_SKIP, what, tvm_diag_message());
    } else {
      run_target(t, sel, verbose);
    }
    tvm_target_free(t);
  }
  if (files) {
    free(names);
    tvm_target_files_free(files, nfiles);
  }
  printf("1..%d\n", ntests);
  printf("# %d tests: %d passed, %d failed, %d skipped\n", ntests, npass,
         nfail, nskip);
  return nfail ? 1 : 0;
}
