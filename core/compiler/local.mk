# core/compiler: whole-model compilation (tvm/compiler.h): graph passes,
# kernels per fused group, one codegen, the execution plan.  Also the
# graph passes it owns: fuse_ops and plan_memory (tvm/graph_passes.h).
libtvm_la_SOURCES += \
	core/graph/passes/fuse_ops.c \
	core/graph/passes/alter_layout.c \
	core/graph/passes/plan_memory.c \
	core/compiler/compiler_int.h \
	core/compiler/schedule_generic.c \
	core/compiler/kernels.c \
	core/compiler/tune_kernel.c \
	core/compiler/compile.c

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
