# plugins/llvm-cpu: CPU code generation through the LLVM-C API, a libtool
# module exporting only tvm_plugin_query (see Makefile.am).
if BUILD_LLVM_CPU
plugins_LTLIBRARIES += plugins/llvm-cpu/tvm-llvm-cpu.la
# (a variable: tests/plugins/simt links the same sources)
LLVM_CPU_SOURCES = \
	plugins/llvm-cpu/llvm_cpu.h \
	plugins/llvm-cpu/plugin.c \
	plugins/llvm-cpu/host_cpu.c \
	plugins/llvm-cpu/codegen.c \
	plugins/llvm-cpu/codegen_expr.c \
	plugins/llvm-cpu/codegen_half.c \
	plugins/llvm-cpu/codegen_memory.c \
	plugins/llvm-cpu/codegen_call.c \
	plugins/llvm-cpu/codegen_vmath.c \
	plugins/llvm-cpu/codegen_stmt.c \
	plugins/llvm-cpu/codegen_parallel.c \
	plugins/llvm-cpu/link.c \
	plugins/llvm-cpu/module.c \
	plugins/llvm-cpu/elf_load.c \
	plugins/llvm-cpu/elf_load.h \
	plugins/llvm-cpu/elf_merge.c \
	plugins/llvm-cpu/elf_merge.h \
	plugins/llvm-cpu/elf_check.c \
	plugins/llvm-cpu/elf_check_shared.c \
	plugins/llvm-cpu/elf_check.h \
	plugins/llvm-cpu/runtime.c \
	plugins/llvm-cpu/strategy_matmul.c \
	plugins/llvm-cpu/strategy_conv2d.c \
	plugins/llvm-cpu/strategy_winograd.c \
	plugins/llvm-cpu/strategy_dense.c \
	plugins/llvm-cpu/strategy_pool.c \
	plugins/llvm-cpu/strategy_rows.c \
	plugins/llvm-cpu/strategy_isa.c \
	plugins/llvm-cpu/strategy_layout.c
plugins_llvm_cpu_tvm_llvm_cpu_la_SOURCES = $(LLVM_CPU_SOURCES)
plugins_llvm_cpu_tvm_llvm_cpu_la_CFLAGS = $(AM_CFLAGS) $(LLVM_CFLAGS)
plugins_llvm_cpu_tvm_llvm_cpu_la_LDFLAGS = $(TVM_PLUGIN_LINK)
plugins_llvm_cpu_tvm_llvm_cpu_la_LIBADD = libtvm_plugin_sdk.la $(TVM_LIBS) $(LLVM_LIBS) -lpthread -ldl

# What the test programs below share: the harness that loads the plugin
# as a host would (its programs also link -lpthread -ldl), and the
# plugin, built before any of them runs.
LLVM_CPU_HARNESS = tests/plugins/llvm_cpu/harness.h tests/plugins/llvm_cpu/harness.c
LLVM_CPU_HARNESS_LIBS = $(TVM_TEST_LIBS) -lpthread -ldl -lm
LLVM_CPU_TEST_DEPS = plugins/llvm-cpu/tvm-llvm-cpu.la

# Tests: TIR built by hand, compiled, loaded and run against C references.
check_PROGRAMS += tests/plugins/llvm_cpu/test_llvm_cpu
TESTS += tests/plugins/llvm_cpu/test_llvm_cpu
tests_plugins_llvm_cpu_test_llvm_cpu_SOURCES = \
	$(LLVM_CPU_HARNESS) tests/plugins/llvm_cpu/tir_test.h \
	tests/plugins/llvm_cpu/test_llvm_cpu.c
tests_plugins_llvm_cpu_test_llvm_cpu_CFLAGS = $(TVM_TEST_CF)
tests_plugins_llvm_cpu_test_llvm_cpu_LDADD = $(LLVM_CPU_HARNESS_LIBS)
# generated code calls a function this program exports
tests_plugins_llvm_cpu_test_llvm_cpu_LDFLAGS = -Wl,--export-dynamic
EXTRA_tests_plugins_llvm_cpu_test_llvm_cpu_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)
# The math intrinsics and the inline vector math (exp, tanh, sigmoid, erf)
# against libm, on the host's ISA and on x86-64-v3.
check_PROGRAMS += tests/plugins/llvm_cpu/test_llvm_cpu_vmath
TESTS += tests/plugins/llvm_cpu/test_llvm_cpu_vmath
tests_plugins_llvm_cpu_test_llvm_cpu_vmath_SOURCES = \
	$(LLVM_CPU_HARNESS) tests/plugins/llvm_cpu/tir_test.h \
	tests/plugins/llvm_cpu/test_llvm_cpu_vmath.c
tests_plugins_llvm_cpu_test_llvm_cpu_vmath_CFLAGS = $(TVM_TEST_CF)
tests_plugins_llvm_cpu_test_llvm_cpu_vmath_LDADD = $(LLVM_CPU_HARNESS_LIBS)
EXTRA_tests_plugins_llvm_cpu_test_llvm_cpu_vmath_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)
# The plugin's descriptor, attribute schema and targets.
check_PROGRAMS += tests/plugins/llvm_cpu/test_llvm_cpu_target
TESTS += tests/plugins/llvm_cpu/test_llvm_cpu_target
tests_plugins_llvm_cpu_test_llvm_cpu_target_SOURCES = \
	$(LLVM_CPU_HARNESS) \
	tests/plugins/llvm_cpu/test_llvm_cpu_target.c
tests_plugins_llvm_cpu_test_llvm_cpu_target_CFLAGS = $(TVM_TEST_CF)
tests_plugins_llvm_cpu_test_llvm_cpu_target_LDADD = $(LLVM_CPU_HARNESS_LIBS)
EXTRA_tests_plugins_llvm_cpu_test_llvm_cpu_target_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)

# The plugin's own object loader (elf_load.c, linked in directly): every
# relocation type on a hand-made object, damaged objects refused by name,
# and real kernels loaded by it against the same kernels loaded by ld.so.
check_PROGRAMS += tests/plugins/llvm_cpu/test_elf_load
TESTS += tests/plugins/llvm_cpu/test_elf_load
tests_plugins_llvm_cpu_test_elf_load_SOURCES = \
	$(LLVM_CPU_HARNESS) \
	tests/plugins/llvm_cpu/test_elf_load.c \
	tests/plugins/llvm_cpu/elf_report.h \
	tests/plugins/llvm_cpu/elf_report.c \
	plugins/llvm-cpu/elf_load.c \
	plugins/llvm-cpu/elf_merge.c \
	plugins/llvm-cpu/elf_check.c \
	plugins/llvm-cpu/elf_check_shared.c
tests_plugins_llvm_cpu_test_elf_load_CFLAGS = $(TVM_TEST_CF) \
	-I$(srcdir)/plugins/llvm-cpu
tests_plugins_llvm_cpu_test_elf_load_LDADD = $(LLVM_CPU_HARNESS_LIBS)
EXTRA_tests_plugins_llvm_cpu_test_elf_load_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)

# The checks a shared-object kernel passes before dlopen
# (elf_check_shared.c, linked in directly): a real one loads and runs,
# hand-edited copies are refused by name, random mutations never harm.
check_PROGRAMS += tests/plugins/llvm_cpu/test_elf_shared
TESTS += tests/plugins/llvm_cpu/test_elf_shared
tests_plugins_llvm_cpu_test_elf_shared_SOURCES = \
	$(LLVM_CPU_HARNESS) \
	tests/plugins/llvm_cpu/test_elf_shared.c \
	tests/plugins/llvm_cpu/elf_report.h \
	tests/plugins/llvm_cpu/elf_report.c \
	plugins/llvm-cpu/elf_load.c \
	plugins/llvm-cpu/elf_check.c \
	plugins/llvm-cpu/elf_check_shared.c
tests_plugins_llvm_cpu_test_elf_shared_CFLAGS = $(TVM_TEST_CF) \
	-I$(srcdir)/plugins/llvm-cpu
tests_plugins_llvm_cpu_test_elf_shared_LDADD = $(LLVM_CPU_HARNESS_LIBS)
EXTRA_tests_plugins_llvm_cpu_test_elf_shared_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)

# End to end: TE + schedules lowered with tvm_lower, run on llvm-cpu.
check_PROGRAMS += tests/plugins/llvm_cpu/test_llvm_cpu_e2e
TESTS += tests/plugins/llvm_cpu/test_llvm_cpu_e2e
tests_plugins_llvm_cpu_test_llvm_cpu_e2e_SOURCES = \
	$(LLVM_CPU_HARNESS) \
	tests/plugins/llvm_cpu/test_llvm_cpu_e2e.c
tests_plugins_llvm_cpu_test_llvm_cpu_e2e_CFLAGS = $(TVM_TEST_CF)
tests_plugins_llvm_cpu_test_llvm_cpu_e2e_LDADD = $(LLVM_CPU_HARNESS_LIBS)
EXTRA_tests_plugins_llvm_cpu_test_llvm_cpu_e2e_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)

# Through the core's plugin registry, target YAML loader and runtime.
check_PROGRAMS += tests/plugins/llvm_cpu/test_llvm_cpu_runtime
TESTS += tests/plugins/llvm_cpu/test_llvm_cpu_runtime
tests_plugins_llvm_cpu_test_llvm_cpu_runtime_SOURCES = \
	tests/plugins/llvm_cpu/test_llvm_cpu_runtime.c
tests_plugins_llvm_cpu_test_llvm_cpu_runtime_CFLAGS = $(TVM_TEST_CF)
tests_plugins_llvm_cpu_test_llvm_cpu_runtime_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_llvm_cpu_test_llvm_cpu_runtime_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)
endif
EXTRA_DIST += plugins/llvm-cpu/README.md

# The compiled-code cache through tvmc compile (tvm/plugin_sdk.h).
if BUILD_LLVM_CPU
TESTS += tests/e2e/tvmc/test_kernel_cache.sh
endif
EXTRA_DIST += tests/e2e/tvmc/test_kernel_cache.sh

# Channel-blocked convolution (alter_layout, Conv_NCHWc, the conv2d_NCHWc
# template) compiled end to end and compared with the reference.
if BUILD_LLVM_CPU
if HAVE_CMOCKA
check_PROGRAMS += tests/plugins/llvm_cpu/test_nchwc
TESTS += tests/plugins/llvm_cpu/test_nchwc
tests_plugins_llvm_cpu_test_nchwc_SOURCES = tests/plugins/llvm_cpu/test_nchwc.c \
	tests/plugins/llvm_cpu/layout_test.h
tests_plugins_llvm_cpu_test_nchwc_CFLAGS = $(TVM_TEST_CF)
tests_plugins_llvm_cpu_test_nchwc_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_llvm_cpu_test_nchwc_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)
# The conv2d_NCHWc template's register blocks, rows and flat pixels,
# same helpers (layout_test.h).
check_PROGRAMS += tests/plugins/llvm_cpu/test_conv_blocks
TESTS += tests/plugins/llvm_cpu/test_conv_blocks
tests_plugins_llvm_cpu_test_conv_blocks_SOURCES = \
	tests/plugins/llvm_cpu/test_conv_blocks.c tests/plugins/llvm_cpu/layout_test.h
tests_plugins_llvm_cpu_test_conv_blocks_CFLAGS = $(TVM_TEST_CF)
tests_plugins_llvm_cpu_test_conv_blocks_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_llvm_cpu_test_conv_blocks_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)
# The matrix-product and rows templates (dense, MatMul_packed, batch
# matmul, Softmax/LayerNormalization), same helpers (layout_test.h).
check_PROGRAMS += tests/plugins/llvm_cpu/test_matmul_templates
TESTS += tests/plugins/llvm_cpu/test_matmul_templates
tests_plugins_llvm_cpu_test_matmul_templates_SOURCES = \
	tests/plugins/llvm_cpu/test_matmul_templates.c tests/plugins/llvm_cpu/layout_test.h
tests_plugins_llvm_cpu_test_matmul_templates_CFLAGS = $(TVM_TEST_CF)
tests_plugins_llvm_cpu_test_matmul_templates_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_llvm_cpu_test_matmul_templates_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)
# Winograd F(4x4, 3x3) and F(2x2, 3x3) on channel-blocked data
# (operators, alter_layout, the two templates, the layout knob, the
# default tile), same helpers.
check_PROGRAMS += tests/plugins/llvm_cpu/test_winograd
TESTS += tests/plugins/llvm_cpu/test_winograd
tests_plugins_llvm_cpu_test_winograd_SOURCES = \
	tests/plugins/llvm_cpu/test_winograd.c tests/plugins/llvm_cpu/layout_test.h
tests_plugins_llvm_cpu_test_winograd_CFLAGS = $(TVM_TEST_CF)
tests_plugins_llvm_cpu_test_winograd_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_plugins_llvm_cpu_test_winograd_DEPENDENCIES = $(LLVM_CPU_TEST_DEPS)
endif
endif
