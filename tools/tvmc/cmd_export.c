/*
 * tools/tvmc/cmd_export.c - `tvmc export MODEL -o FILE.onnx [--opset N]`:
 * writes a model (zoo:NAME, or an ONNX file re-written) as an ONNX file,
 * exactly the graph `tvmc compile` starts from, so that other frameworks
 * (ONNX Runtime, Apache TVM; see bench/peers) run the same model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_load.h"
#include "tvm/onnx.h"
#include "tvmc.h"

static void usage(FILE *f) {
  fprintf(f, "usage: tvmc export MODEL -o FILE.onnx [--opset N]\n"
             "  MODEL   an ONNX file or zoo:NAME (tvmc compile --list-zoo)\n"
             "  --opset the default-domain opset the file declares "
             "(default 17)\n");
}

int tvmc_cmd_export(int argc, char **argv) {
  const char *model = NULL, *out = NULL;
  int opset = 17;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
      out = argv[++i];
    } else if (!strcmp(a, "--opset") && i + 1 < argc) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > 21) {
        fprintf(stderr, "tvmc export: --opset wants a number in 1..21, not "
                        "'%s'\n", argv[i]);
        return 2;
      }
      opset = (int)v;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (a[0] == '-' || model) {
      fprintf(stderr, "tvmc export: unexpected argument '%s'\n", a);
      usage(stderr);
      return 2;
    } else {
      model = a;
    }
  }
  if (!model || !out) {
    usage(stderr);
    return 2;
  }
  tvm_graph *g = tvmc_load_model("export", model);
  if (!g) return 1;
  tvm_status st = tvm_onnx_save(g, out, opset);
  tvm_graph_free(g);
  if (st) {
    fprintf(stderr, "tvmc export: %s\n", tvm_diag_message());
    return 1;
  }
  printf("wrote %s (%s, opset %d)\n", out, model, opset);
  return 0;
}
