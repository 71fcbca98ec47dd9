# tests/fuzz: regression inputs that once crashed or hung tvmc
# (tests/fuzz/crashes/), the libFuzzer targets (fuzz_*.c, built by
# `make fuzz` through tests/fuzz/build.sh with clang, never by the normal
# build) and their seed corpora.
TESTS += tests/fuzz/test_regressions.sh tests/fuzz/test_signing.sh
check_PROGRAMS += tests/fuzz/pkg_refix tests/fuzz/gen_nested_onnx
tests_fuzz_pkg_refix_SOURCES = tests/fuzz/pkg_refix.c
tests_fuzz_pkg_refix_LDADD = libtvm_runtime.la
tests_fuzz_gen_nested_onnx_SOURCES = tests/fuzz/gen_nested_onnx.c
if HAVE_CMOCKA
if BUILD_LLVM_CPU
check_PROGRAMS += tests/fuzz/test_alloc_failure
TESTS += tests/fuzz/test_alloc_failure
tests_fuzz_test_alloc_failure_SOURCES = tests/fuzz/test_alloc_failure.c
tests_fuzz_test_alloc_failure_CFLAGS = $(TVM_TEST_CF)
tests_fuzz_test_alloc_failure_LDADD = $(TVM_TEST_LIBS)
EXTRA_tests_fuzz_test_alloc_failure_DEPENDENCIES = \
	plugins/llvm-cpu/tvm-llvm-cpu.la
# the faulty test plugin: llvm-cpu failing codegen/alloc/launch on demand
check_LTLIBRARIES += tests/fuzz/plugins/tvm-faulty.la
tests_fuzz_plugins_tvm_faulty_la_SOURCES = tests/fuzz/plugins/faulty.c
tests_fuzz_plugins_tvm_faulty_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)
tests_fuzz_plugins_tvm_faulty_la_LIBADD = -ldl
check_PROGRAMS += tests/fuzz/test_plugin_faults
TESTS += tests/fuzz/test_plugin_faults
tests_fuzz_test_plugin_faults_SOURCES = tests/fuzz/test_plugin_faults.c
tests_fuzz_test_plugin_faults_CFLAGS = $(TVM_TEST_CF)
tests_fuzz_test_plugin_faults_LDADD = $(TVM_TEST_LIBS)
EXTRA_tests_fuzz_test_plugin_faults_DEPENDENCIES = \
	plugins/llvm-cpu/tvm-llvm-cpu.la tests/fuzz/plugins/tvm-faulty.la
endif
endif
EXTRA_DIST += tests/fuzz/test_regressions.sh tests/fuzz/test_signing.sh \
	tests/fuzz/faulty.yaml tests/fuzz/llvm-cpu-shared.yaml \
	tests/fuzz/crashes \
	tests/fuzz/small-relu-add.onnx tests/fuzz/small-relu-add.tvmpkg

# `make fuzz`: the libFuzzer targets in build-fuzz/ (clang, static core);
# tests/fuzz/run.sh runs them.
fuzz:
	$(SHELL) $(srcdir)/tests/fuzz/build.sh $(srcdir) $(abs_builddir)/build-fuzz
.PHONY: fuzz
EXTRA_DIST += tests/fuzz/build.sh tests/fuzz/run.sh tests/fuzz/fuzz_file.h \
	tests/fuzz/fuzz_onnx.c tests/fuzz/fuzz_npy.c tests/fuzz/fuzz_target_yaml.c \
	tests/fuzz/fuzz_package.c tests/fuzz/fuzz_tuning_log.c tests/fuzz/corpus
EXTRA_DIST += tests/lsan.supp
