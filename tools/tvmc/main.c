/*
 * tools/tvmc/main.c - the tvmc command line: dispatches to one
 * subcommand per file (see tvmc.h).
 */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "tvmc.h"

const tvmc_command tvmc_commands[] = {
    {"targets", tvmc_cmd_targets,
     "list plugins and target files, and why any was skipped"},
    {"compile", tvmc_cmd_compile,
     "compile a model (ONNX file or zoo:NAME) into a package"},
    {"run", tvmc_cmd_run, "run a package or model, time it, show its outputs"},
    {"tune", tvmc_cmd_tune,
     "auto-tune a model's kernels on a target into a tuning log"},
    {"export", tvmc_cmd_export,
     "write a model (zoo:NAME or ONNX) as an ONNX file, for other frameworks"},
    {"matmul", tvmc_cmd_matmul,
     "compile, check and time a matrix multiply on a target"},
    {"keygen", tvmc_cmd_keygen, "make a key pair for signing packages"},
    {"help", tvmc_cmd_help, "show this help"},
    {"version", tvmc_cmd_version, "print the version (also --version)"},
    {NULL, NULL, NULL},
};

/* Dispatches argv[1] to its subcommand; suggests the nearest on a typo. */
int main(int argc, char **argv) {
#ifdef __GLIBC__
  /* A compile allocates and frees a model's weights several times over
   * (decoded, folded, transformed, written).  glibc serves blocks of
   * 128 KiB and up with fresh mappings and unmaps them on free, so each
   * stage paid page faults on new zeroed pages again; blocks under 32 MiB
   * (every weight of the zoo) now come from the heap, which keeps up to
   * 512 MiB of freed memory for the next stage.  tvmc is a short-lived
   * process; the libraries leave the allocator to the embedder.
   * ResNet-18, a warm compile: 59.8 K -> 48.4 K page faults, 0.375 ->
   * 0.335 s (bench/RESULTS.md). */
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
  if (argc < 2) {
    tvmc_cmd_help(0, NULL);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V"))
    return tvmc_cmd_version(argc - 1, argv + 1);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
    return tvmc_cmd_help(argc - 1, argv + 1);
  for (const tvmc_command *c = tvmc_commands; c->name; c++)
    if (!strcmp(c->name, cmd)) return c->run(argc - 1, argv + 1);
  const char *best = NULL;
  size_t bestd = (size_t)-1;
  for (const tvmc_command *c = tvmc_commands; c->name; c++) {
    size_t d = tvm_edit_distance(cmd, c->name);
    if (d < bestd) bestd = d, best = c->name;
  }
  fprintf(stderr, "tvmc: unknown command '%s'", cmd);
  if (best && bestd <= 3) fprintf(stderr, "; did you mean '%s'?", best);
  fprintf(stderr, " (tvmc help lists the commands)\n");
  return 2;
}
