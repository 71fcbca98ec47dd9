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
