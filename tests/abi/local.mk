# tests/abi: the plugin ABI - frozen layouts, discovery, negotiation and
# the refusals.  The test plugins are one configurable source built
# several ways: tests/abi/plugins/ holds good ones (also on
# TEST_PLUGIN_PATH), tests/abi/bad/ the ones discovery must refuse.

TVM_ABI_PLUGIN_SRC = tests/abi/plugins/fake_plugin.c

check_LTLIBRARIES += \
	tests/abi/plugins/fake.la \
	tests/abi/plugins/abi1.la \
	tests/abi/plugins/abi3.la \
	tests/abi/plugins/abi5.la \
	tests/abi/plugins/quant16.la \
	tests/abi/plugins/negotiate.la \
	tests/abi/bad/abi4.la \
	tests/abi/bad/nullquery.la \
	tests/abi/bad/smallvt.la \
	tests/abi/bad/noentry.la \
	tests/abi/bad/missingdep.la

tests_abi_plugins_fake_la_SOURCES = $(TVM_ABI_PLUGIN_SRC)
tests_abi_plugins_fake_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)

tests_abi_plugins_abi1_la_SOURCES = $(TVM_ABI_PLUGIN_SRC)
tests_abi_plugins_abi1_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=\"abi1\" -DFAKE_ABI=1
tests_abi_plugins_abi1_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)

# (hostdev) an ABI 3 plugin (vtable without lower_passes) still loads
tests_abi_plugins_abi3_la_SOURCES = $(TVM_ABI_PLUGIN_SRC)
tests_abi_plugins_abi3_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=\"abi3\" -DFAKE_ABI=3
tests_abi_plugins_abi3_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)

# (quantize) an ABI 5 plugin (vtable without quantize) still loads
tests_abi_plugins_abi5_la_SOURCES = $(TVM_ABI_PLUGIN_SRC)
tests_abi_plugins_abi5_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=\"abi5\" -DFAKE_ABI=5
tests_abi_plugins_abi5_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)

# (quantize) an ABI 6 plugin asking for int16 activations, which the
# quantize pass does not do: tests/abi/test_quantize_request.sh
tests_abi_plugins_quant16_la_SOURCES = $(TVM_ABI_PLUGIN_SRC)
tests_abi_plugins_quant16_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=\"quant16\" -DFAKE_ABI=6 \
	-DFAKE_QUANT_ACT_BITS=16
tests_abi_plugins_quant16_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)

tests_abi_plugins_negotiate_la_SOURCES = $(TVM_ABI_PLUGIN_SRC)
tests_abi_plugins_negotiate_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=\"negotiate\" -DFAKE_ABI=0 \
	-DFAKE_BLOCK_DEFAULT=\"8\"
tests_abi_plugins_negotiate_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)

tests_abi_bad_abi4_la_SOURCES = $(TVM_ABI_PLUGIN_SRC)
tests_abi_bad_abi4_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=\"abi4\" -DFAKE_ABI=9
tests_abi_bad_abi4_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)

tests_abi_bad_nullquery_la_SOURCES = $(TVM_ABI_PLUGIN_SRC)
tests_abi_bad_nullquery_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=\"nullquery\" -DFAKE_NULL
tests_abi_bad_nullquery_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)

tests_abi_bad_smallvt_la_SOURCES = $(TVM_ABI_PLUGIN_SRC)
tests_abi_bad_smallvt_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=\"smallvt\" -DFAKE_VT_SIZE=TVM_PLUGIN_VTABLE_SIZE_V1
tests_abi_bad_smallvt_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)

tests_abi_bad_noentry_la_SOURCES = tests/abi/plugins/no_entry.c
tests_abi_bad_noentry_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere

# Linked against tests/abi/deps/libtvmabigone.so, a library that exists
# only at link time: no rpath points at it, so dlopen fails naming it.
tests_abi_bad_missingdep_la_SOURCES = $(TVM_ABI_PLUGIN_SRC)
tests_abi_bad_missingdep_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=\"missingdep\" -DFAKE_GONE
tests_abi_bad_missingdep_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)
tests_abi_bad_missingdep_la_LIBADD = -L$(abs_builddir)/tests/abi/deps -ltvmabigone
EXTRA_tests_abi_bad_missingdep_la_DEPENDENCIES = tests/abi/deps/libtvmabigone.so
tests/abi/deps/libtvmabigone.so: $(srcdir)/tests/abi/plugins/gone.c
	$(AM_V_CC)$(MKDIR_P) tests/abi/deps && \
	$(CC) -shared -fPIC -o $@ $(srcdir)/tests/abi/plugins/gone.c
CLEANFILES += tests/abi/deps/libtvmabigone.so
EXTRA_DIST += tests/abi/plugins/gone.c tests/abi/abi_util.h

if HAVE_CMOCKA
check_PROGRAMS += tests/abi/test_abi_offsets tests/abi/test_plugin_discovery
TESTS += tests/abi/test_abi_offsets tests/abi/test_plugin_discovery
tests_abi_test_abi_offsets_SOURCES = tests/abi/test_abi_offsets.c
tests_abi_test_abi_offsets_CFLAGS = $(TVM_TEST_CF)
tests_abi_test_abi_offsets_LDADD = $(TVM_TEST_LIBS)
tests_abi_test_plugin_discovery_SOURCES = tests/abi/test_plugin_discovery.c
tests_abi_test_plugin_discovery_CFLAGS = $(TVM_TEST_CF)
tests_abi_test_plugin_discovery_LDADD = $(TVM_TEST_LIBS)
# the accessors of the core structs plugins may not read directly
check_PROGRAMS += tests/abi/test_plugin_view
TESTS += tests/abi/test_plugin_view
tests_abi_test_plugin_view_SOURCES = tests/abi/test_plugin_view.c
tests_abi_test_plugin_view_CFLAGS = $(TVM_TEST_CF)
tests_abi_test_plugin_view_LDADD = $(TVM_TEST_LIBS)
# the SDK helper library
check_PROGRAMS += tests/abi/test_plugin_sdk_lib
TESTS += tests/abi/test_plugin_sdk_lib
tests_abi_test_plugin_sdk_lib_SOURCES = tests/abi/test_plugin_sdk_lib.c
tests_abi_test_plugin_sdk_lib_CFLAGS = $(TVM_TEST_CF)
tests_abi_test_plugin_sdk_lib_LDADD = libtvm_plugin_sdk.la $(TVM_TEST_LIBS)

check_PROGRAMS += tests/abi/test_sdk_cache
TESTS += tests/abi/test_sdk_cache
tests_abi_test_sdk_cache_SOURCES = tests/abi/test_sdk_cache.c
tests_abi_test_sdk_cache_CFLAGS = $(TVM_TEST_CF)
tests_abi_test_sdk_cache_LDADD = libtvm_plugin_sdk.la $(TVM_TEST_LIBS)
endif

# A plugin whose intrinsic path is broken, which tvm-plugin-cts must fail:
# the mock accelerator built with a wrong GEMM emitter.  MOCK_ACCEL_SRC
# (its sources, now in plugin-sdk/example-accel) is set in
# core/lower/local.mk.
check_LTLIBRARIES += tests/abi/broken/tvm-mock-accel-broken.la
tests_abi_broken_tvm_mock_accel_broken_la_SOURCES = $(MOCK_ACCEL_SRC)
tests_abi_broken_tvm_mock_accel_broken_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DMOCK_ACCEL_BROKEN_INTRIN
tests_abi_broken_tvm_mock_accel_broken_la_LDFLAGS = $(TVM_TEST_PLUGIN_LINK)
tests_abi_broken_tvm_mock_accel_broken_la_LIBADD = libtvm_plugin_sdk.la $(TVM_LIBS)
TESTS += tests/abi/test_cts_broken_intrin.sh
EXTRA_DIST += tests/abi/test_cts_broken_intrin.sh

# `tvmc targets` end to end (a shell script).
TESTS += tests/abi/test_tvmc_targets.sh
EXTRA_DIST += tests/abi/test_tvmc_targets.sh

# The SDK end to end: install, build plugin-sdk/example with pkg-config,
# run the conformance tests through it; and the CTS on llvm-cpu.
TESTS += tests/abi/test_sdk_example.sh tests/abi/test_cts_llvm_cpu.sh
# Every operator on every backend of the build (tvm-backend-ops).
TESTS += tests/abi/test_backend_ops.sh
EXTRA_DIST += tests/abi/test_backend_ops.sh
# The SDK test runs `make install`, and libtool relinks every plugin in
# place for it: a test loading plugins of this build tree at that moment
# reads a truncated .so.  So it runs after every other test of the run
# (the suffix substitution drops its own log from the list).
tests/abi/test_sdk_example.log: $(filter-out tests/abi/test_sdk_example.log \
	tests/plugins/mock_accel/test_sdk_example_accel.log,$(TEST_LOGS))
EXTRA_DIST += tests/abi/test_sdk_example.sh tests/abi/test_cts_llvm_cpu.sh
# a target asking for a quantization the compiler does not do: a clear error
TESTS += tests/abi/test_quantize_request.sh
EXTRA_DIST += tests/abi/test_quantize_request.sh
