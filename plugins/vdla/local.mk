# plugins/vdla: the VDLA accelerator (issue 9): its instruction set, its
# behavioural, cycle-approximate simulator, the runtime driver over it
# (device memory, instruction streams with dependency folding, micro-op
# caching), and the plugin module tvm-vdla (target, memory scopes, GEMM
# tensor intrinsic, lowering pass, codegen to driver command lists,
# conv2d/dense strategies, the simulated device).
EXTRA_DIST += plugins/vdla/README.md
plugins_LTLIBRARIES += plugins/vdla/tvm-vdla.la
# (a variable: the tests and bench/vdla link the same sources)
VDLA_CORE_SOURCES = \
	plugins/vdla/vdla_isa.h plugins/vdla/isa.c \
	plugins/vdla/vdla_sim.h plugins/vdla/sim.c \
	plugins/vdla/vdla_driver.h plugins/vdla/driver.c
VDLA_SOURCES = $(VDLA_CORE_SOURCES) \
	plugins/vdla/vdla_plugin.h \
	plugins/vdla/plugin.c \
	plugins/vdla/codegen.c \
	plugins/vdla/runtime.c \
	plugins/vdla/strategy.c \
	plugins/vdla/vdla_workload.h \
	plugins/vdla/workload.c
plugins_vdla_tvm_vdla_la_SOURCES = $(VDLA_SOURCES)
plugins_vdla_tvm_vdla_la_LDFLAGS = $(TVM_PLUGIN_LINK)
plugins_vdla_tvm_vdla_la_LIBADD = libtvm_plugin_sdk.la $(TVM_LIBS)
dist_targets_DATA += targets/vdla.yaml targets/vdla-1x32x32.yaml

# bench/vdla: ResNet-18 conv2d layers on the timed simulator, serial vs
# latency hiding (see bench/RESULTS.md); its source sits with the test
# harness it shares (bench/ may not include plugin or test headers)
noinst_PROGRAMS += bench/vdla
bench_vdla_SOURCES = tests/plugins/vdla/bench_vdla.c tests/plugins/vdla/vdla_harness.c \
	tests/plugins/vdla/vdla_harness.h $(VDLA_SOURCES)
bench_vdla_CFLAGS = $(AM_CFLAGS) -I$(srcdir)/plugins/vdla -I$(srcdir)/tests/plugins/vdla \
	-DBENCH_PLUGIN_DIR=\"$(abs_builddir)/plugins/vdla/.libs\"
bench_vdla_LDADD = libtvm_plugin_sdk.la $(TVM_LIBS) -lm

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
	tests/plugins/vdla/test_vdla_driver.c $(VDLA_CORE_SOURCES)
tests_plugins_vdla_test_vdla_driver_CFLAGS = $(TVM_TEST_CF)
tests_plugins_vdla_test_vdla_driver_LDADD = libtvm_runtime.la $(CMOCKA_LIBS)
# the plugin: lowering, codegen, the ResNet-18 layers bit-exact
check_PROGRAMS += tests/plugins/vdla/test_vdla_plugin
TESTS += tests/plugins/vdla/test_vdla_plugin
tests_plugins_vdla_test_vdla_plugin_SOURCES = \
	tests/plugins/vdla/test_vdla_plugin.c tests/plugins/vdla/vdla_harness.c \
	tests/plugins/vdla/vdla_harness.h $(VDLA_SOURCES)
tests_plugins_vdla_test_vdla_plugin_CFLAGS = $(TVM_TEST_CF) -I$(srcdir)/plugins/vdla
tests_plugins_vdla_test_vdla_plugin_LDADD = libtvm_plugin_sdk.la $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_vdla_test_vdla_plugin_DEPENDENCIES = plugins/vdla/tvm-vdla.la
# zoo:resnet18 quantized for VDLA, the rest on llvm-cpu: placement, the
# cosine of the logits with fp32, the device against the quantized graph
check_PROGRAMS += tests/plugins/vdla/test_vdla_resnet18
TESTS += tests/plugins/vdla/test_vdla_resnet18
tests_plugins_vdla_test_vdla_resnet18_SOURCES = \
	tests/plugins/vdla/test_vdla_resnet18.c
tests_plugins_vdla_test_vdla_resnet18_CFLAGS = $(TVM_TEST_CF)
tests_plugins_vdla_test_vdla_resnet18_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_vdla_test_vdla_resnet18_DEPENDENCIES = plugins/vdla/tvm-vdla.la
endif
# tvmc: the placement report of zoo:resnet18 on vdla, the run's time split
TESTS += tests/plugins/vdla/test_vdla_tvmc.sh
EXTRA_DIST += tests/plugins/vdla/test_vdla_tvmc.sh
# tvmc --calibrate: zoo:resnet18 calibrated on a .npy, and the refusals
TESTS += tests/plugins/vdla/test_vdla_calibrate.sh
EXTRA_DIST += tests/plugins/vdla/test_vdla_calibrate.sh
