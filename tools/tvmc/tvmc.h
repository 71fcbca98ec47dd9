/*
 * tools/tvmc/tvmc.h - the subcommands of tvmc, one file each
 * (cmd_<name>.c).  Each takes the arguments after `tvmc`, argv[0] being
 * the subcommand's name, and returns the process exit status: 0 success,
 * 1 failure, 2 bad usage.
 */
#ifndef TVMC_H
#define TVMC_H

#include "tvm/runtime.h"
#include "tvm/target.h"

int tvmc_cmd_help(int argc, char **argv);
int tvmc_cmd_version(int argc, char **argv);
int tvmc_cmd_targets(int argc, char **argv);
int tvmc_cmd_matmul(int argc, char **argv);
int tvmc_cmd_export(int argc, char **argv);
int tvmc_cmd_compile(int argc, char **argv);
int tvmc_cmd_run(int argc, char **argv);
int tvmc_cmd_tune(int argc, char **argv);

/* The subcommand table, for dispatch and `tvmc help`. */
typedef struct tvmc_command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} tvmc_command;
extern const tvmc_command tvmc_commands[];

#endif
