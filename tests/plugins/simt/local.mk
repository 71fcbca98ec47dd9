# tests/plugins/simt: a thread target (has_threads, keys [gpu]) whose
# kernels run serialized on the CPU through llvm-cpu's code generator, to
# check the core's generic thread schedules without a GPU.  The plugin is
# llvm-cpu's sources (entry point renamed) plus simt.c.
if BUILD_LLVM_CPU
check_LTLIBRARIES += tests/plugins/simt/tvm-simt.la
tests_plugins_simt_tvm_simt_la_SOURCES = tests/plugins/simt/simt.c \
	$(LLVM_CPU_SOURCES)
tests_plugins_simt_tvm_simt_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-Dtvm_plugin_query=simt_llvm_cpu_query
tests_plugins_simt_tvm_simt_la_CFLAGS = $(AM_CFLAGS) $(LLVM_CFLAGS)
tests_plugins_simt_tvm_simt_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)
tests_plugins_simt_tvm_simt_la_LIBADD = libtvm_plugin_sdk.la $(TVM_LIBS) $(LLVM_LIBS) -lpthread -ldl
EXTRA_DIST += tests/plugins/simt/simt.yaml tests/plugins/simt/simt-avx2.yaml \
	tests/plugins/simt/known_failures.txt

# every operator case of tvm-backend-ops (plugin-sdk/tools), on simt
TESTS += tests/plugins/simt/test_simt_backend_ops.sh
EXTRA_DIST += tests/plugins/simt/test_simt_backend_ops.sh
# zoo models on simt against llvm-cpu
check_PROGRAMS += tests/plugins/simt/test_simt_zoo
TESTS += tests/plugins/simt/test_simt_zoo
tests_plugins_simt_test_simt_zoo_SOURCES = tests/plugins/simt/test_simt_zoo.c
tests_plugins_simt_test_simt_zoo_LDADD = $(TVM_LIBS) -lm
EXTRA_tests_plugins_simt_test_simt_zoo_DEPENDENCIES = \
	tests/plugins/simt/tvm-simt.la plugins/llvm-cpu/tvm-llvm-cpu.la
endif
