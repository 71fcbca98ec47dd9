/*
 * tools/tvmc/cmd_help.c - `tvmc help` and `tvmc --version`.
 */
#include <stdio.h>

#include "tvmc.h"

/* Lists the subcommands. */
int tvmc_cmd_help(int argc, char **argv) {
  printf("usage: tvmc <command> [options]\n\ncommands:\n");
  for (const tvmc_command *c = tvmc_commands; c->name; c++)
    printf("  %-10s %s\n", c->name, c->summary);
  printf("\n`tvmc <command> --help` describes a command's options.\n"
         "Environment: TVM_PLUGIN_PATH and TVM_TARGET_PATH (colon lists)\n"
         "are searched before the installed plugin and target directories;\n"
         "TVM_LOG_LEVEL (0-3) sets how much is logged to stderr.\n");
  return 0;
}

/* The package version and the plugin ABI range. */
int tvmc_cmd_version(int argc, char **argv) {
  printf("tvmc (%s) %s, plugin ABI %u (accepts %u to %u)\n", PACKAGE_NAME,
         PACKAGE_VERSION, TVM_PLUGIN_ABI_VERSION, TVM_PLUGIN_ABI_MIN,
         TVM_PLUGIN_ABI_VERSION);
  return 0;
}
