# tools/tvmc: the command-line tool, one file per subcommand.
bin_PROGRAMS += tvmc
tvmc_SOURCES = \
	tools/tvmc/tvmc.h \
	tools/tvmc/main.c \
	tools/tvmc/cmd_help.c \
	tools/tvmc/cmd_targets.c \
	tools/tvmc/cmd_matmul.c \
	tools/tvmc/cmd_compile.c tools/tvmc/model_load.h \
	tools/tvmc/cmd_run.c \
	tools/tvmc/cmd_keygen.c \
	tools/tvmc/cmd_tune.c tools/tvmc/tune_int.h \
	tools/tvmc/tune_layouts.c \
	tools/tvmc/tune_svg.c tools/tvmc/tune_svg.h \
	tools/tvmc/cmd_export.c \
	tools/tvmc/matmul_job.c \
	tools/tvmc/matmul_job.h \
	tools/tvmc/matmul_te.c \
	tools/tvmc/matmul_te.h
tvmc_LDADD = libtvm_plugin_sdk.la $(TVM_LIBS)
