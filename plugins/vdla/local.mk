# plugins/vdla: the VDLA accelerator (issue 9).  What exists so far is its
# instruction set, its behavioural, cycle-approximate simulator and the
# runtime driver over it (device memory, instruction streams with
# dependency folding, micro-op caching); they are built into their tests
# until the plugin module (codegen, target, strategies) joins them.
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
check_PROGRAMS += tests/plugins/vdla/test_vdla_driver
TESTS += tests/plugins/vdla/test_vdla_driver
tests_plugins_vdla_test_vdla_driver_SOURCES = \
	tests/plugins/vdla/test_vdla_driver.c \
	plugins/vdla/vdla_driver.h plugins/vdla/driver.c \
	plugins/vdla/vdla_isa.h plugins/vdla/isa.c \
	plugins/vdla/vdla_sim.h plugins/vdla/sim.c
tests_plugins_vdla_test_vdla_driver_CFLAGS = $(TVM_TEST_CF)
tests_plugins_vdla_test_vdla_driver_LDADD = libtvm_runtime.la $(CMOCKA_LIBS)
endif
