# plugins/vdla: the VDLA accelerator (issue 9).  What exists so far is its
# instruction set and its behavioural, cycle-approximate simulator (the
# device the plugin's runtime will drive); they are built into their test
# until the plugin module (codegen, runtime, strategies) joins them.
EXTRA_DIST += plugins/vdla/README.md
if HAVE_CMOCKA
check_PROGRAMS += tests/plugins/vdla/test_vdla_sim
TESTS += tests/plugins/vdla/test_vdla_sim
tests_plugins_vdla_test_vdla_sim_SOURCES = \
	tests/plugins/vdla/test_vdla_sim.c \
	plugins/vdla/vdla_isa.h plugins/vdla/isa.c \
	plugins/vdla/vdla_sim.h plugins/vdla/sim.c
tests_plugins_vdla_test_vdla_sim_CFLAGS = $(TVM_TEST_CF)
tests_plugins_vdla_test_vdla_sim_LDADD = $(CMOCKA_LIBS)
endif
