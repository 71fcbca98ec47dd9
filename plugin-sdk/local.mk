# plugin-sdk: the plugin ABI header (installed with the core headers), the
# pkg-config file, the conformance tests (tvm-plugin-cts, installed so
# that out-of-tree plugins can run them), the guide and the example.
bin_PROGRAMS += tvm-plugin-cts
tvm_plugin_cts_SOURCES = \
	plugin-sdk/cts/cts.h \
	plugin-sdk/cts/cts.c \
	plugin-sdk/cts/cts_programs.c
tvm_plugin_cts_LDADD = $(TVM_LIBS)

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
dist_sdkdoc_DATA += plugin-sdk/docs/HOST_DEVICE.md
