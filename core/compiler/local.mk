# core/compiler: whole-model compilation (tvm/compiler.h): graph passes,
# kernels per fused group, one codegen, the execution plan.  Also the
# graph passes it owns: fuse_ops and plan_memory (tvm/graph_passes.h).
libtvm_la_SOURCES += \
	core/graph/passes/fuse_ops.c \
	core/graph/passes/place_devices.c \
	core/graph/passes/alter_layout.c \
	core/graph/passes/plan_memory.c \
	core/compiler/compiler_int.h \
	core/compiler/schedule_generic.c \
	core/compiler/schedule_thread.c \
	core/compiler/strategy.c \
	core/compiler/kernels.c \
	core/compiler/tune_kernel.c \
	core/compiler/compile.c \
	core/compiler/limits.c \
	core/compiler/gpu_layout.c

if HAVE_CMOCKA
compiler_graph_tests = tests/unit/graph/test_fuse tests/unit/graph/test_plan_memory
check_PROGRAMS += $(compiler_graph_tests)
TESTS += $(compiler_graph_tests)
tests_unit_graph_test_fuse_SOURCES = tests/unit/graph/test_fuse.c \
	tests/unit/graph/graph_test.h
tests_unit_graph_test_fuse_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_test_fuse_LDADD = $(TVM_TEST_LIBS) -lm
tests_unit_graph_test_plan_memory_SOURCES = tests/unit/graph/test_plan_memory.c \
	tests/unit/graph/graph_test.h
tests_unit_graph_test_plan_memory_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_test_plan_memory_LDADD = $(TVM_TEST_LIBS) -lm

# strategy choice and serialize_threads, with two small test plugins
check_LTLIBRARIES += tests/unit/compiler/strat4.la tests/unit/compiler/strat3.la
tests_unit_compiler_strat4_la_SOURCES = tests/unit/compiler/strat_plugin.c
tests_unit_compiler_strat4_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)
tests_unit_compiler_strat4_la_LIBADD = $(TVM_LIBS)
tests_unit_compiler_strat3_la_SOURCES = tests/unit/compiler/strat_plugin.c
tests_unit_compiler_strat3_la_CPPFLAGS = $(AM_CPPFLAGS) -DSTRAT_ABI3
tests_unit_compiler_strat3_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)
tests_unit_compiler_strat3_la_LIBADD = $(TVM_LIBS)
check_PROGRAMS += tests/unit/compiler/test_strategy
TESTS += tests/unit/compiler/test_strategy
tests_unit_compiler_test_strategy_SOURCES = tests/unit/compiler/test_strategy.c
tests_unit_compiler_test_strategy_CFLAGS = $(TVM_TEST_CF)
tests_unit_compiler_test_strategy_LDADD = $(TVM_TEST_LIBS)
EXTRA_tests_unit_compiler_test_strategy_DEPENDENCIES = \
	tests/unit/compiler/strat4.la tests/unit/compiler/strat3.la
# the generic thread schedules on a real thread target (vulkan/lavapipe;
# skipped without a device)
check_PROGRAMS += tests/unit/compiler/test_thread_ops
TESTS += tests/unit/compiler/test_thread_ops
tests_unit_compiler_test_thread_ops_SOURCES = \
	tests/unit/compiler/test_thread_ops.c
tests_unit_compiler_test_thread_ops_LDADD = $(TVM_LIBS) -lm

if BUILD_LLVM_CPU
check_PROGRAMS += tests/unit/compiler/test_compile
TESTS += tests/unit/compiler/test_compile
tests_unit_compiler_test_compile_SOURCES = tests/unit/compiler/test_compile.c \
	tests/unit/compiler/compile_test.h
tests_unit_compiler_test_compile_CFLAGS = $(TVM_TEST_CF)
tests_unit_compiler_test_compile_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_unit_compiler_test_compile_DEPENDENCIES = \
	plugins/llvm-cpu/tvm-llvm-cpu.la
endif
endif
