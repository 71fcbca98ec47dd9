# plugin-sdk: the plugin ABI header (installed with the core headers), the
# pkg-config file, the conformance tests (tvm-plugin-cts, installed so
# that out-of-tree plugins can run them), the guide and the example.
# The SDK's helper library (tvm/plugin_sdk.h): reporting, host memory,
# blobs, attribute lookup, the compiled-code cache.  Installed;
# pkg-config --libs tvm-plugin-sdk.
lib_LTLIBRARIES += libtvm_plugin_sdk.la
libtvm_plugin_sdk_la_SOURCES = plugin-sdk/lib/plugin_sdk.c plugin-sdk/lib/sdk_cache.c
libtvm_plugin_sdk_la_LIBADD = libtvm_runtime.la -lpthread -ldl
libtvm_plugin_sdk_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -no-undefined
tvminclude_HEADERS += plugin-sdk/include/tvm/plugin_sdk.h

bin_PROGRAMS += tvm-plugin-cts
tvm_plugin_cts_SOURCES = \
	plugin-sdk/cts/cts.h \
	plugin-sdk/cts/cts.c \
	plugin-sdk/cts/cts_programs.c \
	plugin-sdk/cts/cts_strategies.c \
	plugin-sdk/cts/cts_intrin.c \
	plugin-sdk/tools/backend_ops.h \
	plugin-sdk/tools/backend_ops_cases.c \
	plugin-sdk/tools/backend_ops_run.c
tvm_plugin_cts_LDADD = $(TVM_LIBS) -lm

# Every operator on every backend (TAP), installed with the SDK.
bin_PROGRAMS += tvm-backend-ops
tvm_backend_ops_SOURCES = \
	plugin-sdk/tools/backend_ops.h \
	plugin-sdk/tools/backend_ops.c \
	plugin-sdk/tools/backend_ops_cases.c \
	plugin-sdk/tools/backend_ops_run.c
tvm_backend_ops_LDADD = $(TVM_LIBS) -lm

# The guide and the example are installed too, so that a plugin author
# with only an installed tvm-c can copy the example and build it.
sdkdocdir = $(pkgdatadir)/plugin-sdk
dist_sdkdoc_DATA = plugin-sdk/docs/WRITING_A_PLUGIN.md
sdkexampledir = $(pkgdatadir)/plugin-sdk/example
dist_sdkexample_DATA = \
	plugin-sdk/example/Makefile \
	plugin-sdk/example/toyaccel.c \
	plugin-sdk/example/toyaccel_codegen.c \
	plugin-sdk/example/toyaccel_interp.c \
	plugin-sdk/example/toyaccel.h \
	plugin-sdk/example/toyaccel.yaml
# The accelerator example (scratchpad scopes, a tensor intrinsic, a
# tensorized schedule, two queues, its own lowering pass, a simulated
# device): installed beside the toy example, built out of tree by
# tests/abi/test_sdk_example_accel.sh; the build tree builds it as a test
# plugin (core/lower/local.mk).
sdkaccdir = $(pkgdatadir)/plugin-sdk/example-accel
dist_sdkacc_DATA = \
	plugin-sdk/example-accel/Makefile \
	plugin-sdk/example-accel/mock_accel.h \
	plugin-sdk/example-accel/mock_accel.c \
	plugin-sdk/example-accel/mock_accel_codegen.c \
	plugin-sdk/example-accel/mock_accel_device.c \
	plugin-sdk/example-accel/mock_accel.yaml
dist_sdkdoc_DATA += plugin-sdk/docs/HOST_DEVICE.md \
	plugin-sdk/docs/HETEROGENEOUS.md \
	plugin-sdk/docs/QUANTIZATION.md
