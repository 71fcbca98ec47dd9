# core/frontend/onnx: the ONNX importer.
#
# The C bindings of onnx.proto are generated at build time by protoc-c from
# the installed proto file (configure: --with-onnx-proto) into the BUILD
# tree, core/frontend/onnx/gen/; nothing generated is committed.  They are
# compiled into a convenience library with their own flags (no -Werror:
# the code is protoc-c's, not ours) that is linked into libtvm; with
# -fvisibility=hidden none of its symbols is exported.
ONNX_GEN_DIR = core/frontend/onnx/gen
ONNX_GEN = $(ONNX_GEN_DIR)/onnx.pb-c.c $(ONNX_GEN_DIR)/onnx.pb-c.h

# protoc-c names its output after the proto file: compile a copy called
# onnx.proto whatever the configured file is called.
$(ONNX_GEN_DIR)/onnx.pb-c.h: $(ONNX_PROTO)
	$(AM_V_GEN)$(MKDIR_P) $(ONNX_GEN_DIR) && \
	cp $(ONNX_PROTO) $(ONNX_GEN_DIR)/onnx.proto && \
	$(PROTOC_C) --proto_path=$(ONNX_GEN_DIR) --c_out=$(ONNX_GEN_DIR) \
	  $(ONNX_GEN_DIR)/onnx.proto
$(ONNX_GEN_DIR)/onnx.pb-c.c: $(ONNX_GEN_DIR)/onnx.pb-c.h
	@test -f $@ || { rm -f $<; $(MAKE) $(AM_MAKEFLAGS) $<; }

BUILT_SOURCES += $(ONNX_GEN)
CLEANFILES += $(ONNX_GEN) $(ONNX_GEN_DIR)/onnx.proto

noinst_LTLIBRARIES += core/frontend/onnx/libtvm_onnx_pb.la
nodist_core_frontend_onnx_libtvm_onnx_pb_la_SOURCES = $(ONNX_GEN)
core_frontend_onnx_libtvm_onnx_pb_la_CPPFLAGS = -I$(builddir)/$(ONNX_GEN_DIR) \
	$(PROTOBUF_C_CFLAGS)
core_frontend_onnx_libtvm_onnx_pb_la_CFLAGS = -std=c11 $(SAN_CFLAGS) \
	-fvisibility=hidden
libtvm_la_LIBADD += core/frontend/onnx/libtvm_onnx_pb.la $(PROTOBUF_C_LIBS)

# The importer: strict flags, and the generated header's directory.
noinst_LTLIBRARIES += core/frontend/onnx/libtvm_onnx.la
core_frontend_onnx_libtvm_onnx_la_SOURCES = \
	core/frontend/onnx/onnx_int.h \
	core/frontend/onnx/proto.c \
	core/frontend/onnx/tensor.c \
	core/frontend/onnx/shape.c \
	core/frontend/onnx/node.c \
	core/frontend/onnx/control.c \
	core/frontend/onnx/versions.c \
	core/frontend/onnx/import.c \
	core/frontend/onnx/limits.c \
	core/frontend/onnx/export.c
core_frontend_onnx_libtvm_onnx_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(builddir)/$(ONNX_GEN_DIR) $(PROTOBUF_C_CFLAGS)
libtvm_la_LIBADD += core/frontend/onnx/libtvm_onnx.la
# Explicit too, for targets other than all/check (BUILT_SOURCES).
$(core_frontend_onnx_libtvm_onnx_la_OBJECTS): $(ONNX_GEN_DIR)/onnx.pb-c.h

# The ONNX conformance node tests (libonnx-testdata) through the importer,
# the reference evaluator and code compiled for llvm-cpu; skipped (exit 77)
# without the data.
if BUILD_LLVM_CPU
check_PROGRAMS += tests/e2e/onnx/run_node_tests
TESTS += tests/e2e/onnx/run_node_tests
tests_e2e_onnx_run_node_tests_SOURCES = tests/e2e/onnx/run_node_tests.c
tests_e2e_onnx_run_node_tests_CPPFLAGS = $(AM_CPPFLAGS) \
	-DTVM_ONNX_TESTDATA='"$(ONNX_TESTDATA)"'
tests_e2e_onnx_run_node_tests_LDADD = $(TVM_LIBS)
# Models exported by torch.onnx.export (committed fixtures: no torch
# needed) against torch's outputs; and, where torch is installed, the
# export itself against ONNX Runtime (skipped with the reason otherwise).
check_PROGRAMS += tests/e2e/onnx/run_torch_fixtures
TESTS += tests/e2e/onnx/run_torch_fixtures tests/e2e/onnx/test_torch_export.sh \
	tests/e2e/onnx/test_onnx_control.sh
tests_e2e_onnx_run_torch_fixtures_SOURCES = tests/e2e/onnx/run_torch_fixtures.c
tests_e2e_onnx_run_torch_fixtures_CPPFLAGS = $(AM_CPPFLAGS) \
	-DTVM_TORCH_FIXTURES='"$(abs_srcdir)/tests/e2e/onnx/torch"'
tests_e2e_onnx_run_torch_fixtures_LDADD = $(TVM_LIBS) -lm
endif
EXTRA_DIST += tests/e2e/onnx/test_torch_export.sh tests/e2e/onnx/torch \
	tests/e2e/onnx/test_onnx_control.sh tests/e2e/onnx/control \
	bench/peers/torch_models.py bench/peers/run.py

# Unit tests of the importer; they build models with the generated
# bindings, which libtvm hides, so they link the convenience library too.
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/frontend/test_onnx
TESTS += tests/unit/frontend/test_onnx
tests_unit_frontend_test_onnx_SOURCES = tests/unit/frontend/test_onnx.c \
	tests/unit/frontend/onnx_mb.h
tests_unit_frontend_test_onnx_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(builddir)/$(ONNX_GEN_DIR) $(PROTOBUF_C_CFLAGS) \
	-DTVM_ONNX_TESTDATA='"$(ONNX_TESTDATA)"'
tests_unit_frontend_test_onnx_CFLAGS = $(TVM_TEST_CF)
tests_unit_frontend_test_onnx_LDADD = core/frontend/onnx/libtvm_onnx_pb.la \
	$(PROTOBUF_C_LIBS) $(TVM_TEST_LIBS)
$(tests_unit_frontend_test_onnx_OBJECTS): $(ONNX_GEN_DIR)/onnx.pb-c.h
check_PROGRAMS += tests/unit/frontend/test_onnx_fold
TESTS += tests/unit/frontend/test_onnx_fold
tests_unit_frontend_test_onnx_fold_SOURCES = \
	tests/unit/frontend/test_onnx_fold.c tests/unit/frontend/onnx_mb.h
tests_unit_frontend_test_onnx_fold_CPPFLAGS = \
	$(tests_unit_frontend_test_onnx_CPPFLAGS)
tests_unit_frontend_test_onnx_fold_CFLAGS = $(TVM_TEST_CF)
tests_unit_frontend_test_onnx_fold_LDADD = \
	$(tests_unit_frontend_test_onnx_LDADD)
$(tests_unit_frontend_test_onnx_fold_OBJECTS): $(ONNX_GEN_DIR)/onnx.pb-c.h
check_PROGRAMS += tests/unit/frontend/test_onnx_versions
TESTS += tests/unit/frontend/test_onnx_versions
tests_unit_frontend_test_onnx_versions_SOURCES = \
	tests/unit/frontend/test_onnx_versions.c tests/unit/frontend/onnx_mb.h
tests_unit_frontend_test_onnx_versions_CPPFLAGS = \
	$(tests_unit_frontend_test_onnx_CPPFLAGS)
tests_unit_frontend_test_onnx_versions_CFLAGS = $(TVM_TEST_CF)
tests_unit_frontend_test_onnx_versions_LDADD = \
	$(tests_unit_frontend_test_onnx_LDADD)
$(tests_unit_frontend_test_onnx_versions_OBJECTS): $(ONNX_GEN_DIR)/onnx.pb-c.h
check_PROGRAMS += tests/unit/frontend/test_onnx_ops
TESTS += tests/unit/frontend/test_onnx_ops
tests_unit_frontend_test_onnx_ops_SOURCES = \
	tests/unit/frontend/test_onnx_ops.c tests/unit/frontend/onnx_mb.h
tests_unit_frontend_test_onnx_ops_CPPFLAGS = \
	$(tests_unit_frontend_test_onnx_CPPFLAGS)
tests_unit_frontend_test_onnx_ops_CFLAGS = $(TVM_TEST_CF)
tests_unit_frontend_test_onnx_ops_LDADD = \
	$(tests_unit_frontend_test_onnx_LDADD) -lm
$(tests_unit_frontend_test_onnx_ops_OBJECTS): $(ONNX_GEN_DIR)/onnx.pb-c.h
check_PROGRAMS += tests/unit/frontend/test_onnx_export
TESTS += tests/unit/frontend/test_onnx_export
tests_unit_frontend_test_onnx_export_SOURCES = \
	tests/unit/frontend/test_onnx_export.c
tests_unit_frontend_test_onnx_export_CFLAGS = $(TVM_TEST_CF)
tests_unit_frontend_test_onnx_export_LDADD = $(TVM_TEST_LIBS)
endif
