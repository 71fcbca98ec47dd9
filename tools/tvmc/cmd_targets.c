/*
 * tools/tvmc/cmd_targets.c - `tvmc targets`: every plugin discovery
 * looked at (loaded, skipped: reason, unavailable: probe's message) and
 * every target file of the search path (ok, unavailable, or its error).
 */
#include <stdio.h>
#include <string.h>

#include "tvmc.h"

/* The help text of `tvmc targets`. */
static void usage(FILE *f) {
  fprintf(f,
          "usage: tvmc targets\n"
          "  Lists the plugins found in $TVM_PLUGIN_PATH and the installed\n"
          "  plugin directory, and the target files found in\n"
          "  $TVM_TARGET_PATH and the installed target directory, each\n"
          "  with its state.\n");
}

/* One line per plugin file: name, version, ABI, path, state. */
static void list_plugins(void) {
  tvm_plugin_registry *r = tvm_plugins();
  char *dirs = tvm_plugin_registry_dirs(r);
  printf("plugins (searched: %s)\n", dirs && *dirs ? dirs : "nothing");
  tvm_free(dirs);
  int n = tvm_plugin_registry_count(r);
  if (n == 0) printf("  (none found)\n");
  for (int i = 0; i < n; i++) {
    const tvm_plugin_entry *e = tvm_plugin_registry_at(r, i);
    if (e->state != TVM_PLUGIN_LOADED) {
      printf("  %-12s %-8s ABI %-2s %s\n      skipped: %s\n", "-", "-", "-",
             e->path, e->reason ? e->reason : "?");
      continue;
    }
    tvm_status st = tvm_plugin_probe(e);
    printf("  %-12s %-8s ABI %-2u %s\n      ", e->name, e->version,
           e->abi_version, e->path);
    if (st == TVM_OK || st == TVM_ERR_NOT_FOUND) printf("loaded");
    else printf("unavailable: %s", tvm_diag_message());
    if (e->description && *e->description)
      printf(" - %s", e->description);
    printf("\n");
  }
}

/* One line per target file: name, plugin, path, state. */
static int list_targets(void) {
  char *dirs = tvm_target_search_dirs();
  printf("targets (searched: %s)\n", dirs && *dirs ? dirs : "nothing");
  tvm_free(dirs);
  tvm_target_file *f = NULL;
  int n = 0;
  if (tvm_target_files(&f, &n) != TVM_OK) {
    fprintf(stderr, "tvmc targets: %s\n", tvm_diag_message());
    return 1;
  }
  if (n == 0) printf("  (none found)\n");
  for (int i = 0; i < n; i++) {
    printf("  %-20s plugin %-12s %s\n      ", f[i].name ? f[i].name : "?",
           f[i].plugin ? f[i].plugin : "?", f[i].path);
    if (f[i].status == TVM_OK) printf("ok\n");
    else if (f[i].status == TVM_ERR_UNAVAILABLE)
      printf("unavailable: %s\n", f[i].message ? f[i].message : "");
    else printf("error: %s\n", f[i].message ? f[i].message : "");
  }
  tvm_target_files_free(f, n);
  return 0;
}

/* Entry point: no options besides --help. */
int tvmc_cmd_targets(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    }
    fprintf(stderr, "tvmc targets: unknown option '%s'\n", argv[i]);
    usage(stderr);
    return 2;
  }
  list_plugins();
  printf("\n");
  return list_targets();
}
