# core/graph: the graph IR (values, nodes, attributes, builder, printer,
# toposort, random constants, reference evaluator) and its passes (one file
# each).  The operator library is core/graph/ops/local.mk.
libtvm_la_SOURCES += \
	core/graph/graph_int.h \
	core/graph/graph.c \
	core/graph/attrs.c \
	core/graph/gnode_view.c \
	core/graph/builder.c \
	core/graph/printer.c \
	core/graph/toposort.c \
	core/graph/random.c \
	core/graph/eval_reference.c \
	core/graph/passes/dce.c \
	core/graph/passes/cse.c \
	core/graph/passes/fold_constants.c \
	core/graph/passes/simplify_inference.c \
	core/graph/passes/quantize.c

if HAVE_CMOCKA
graph_tests = tests/unit/graph/test_builder tests/unit/graph/test_printer \
	tests/unit/graph/test_passes tests/unit/graph/test_passes_numeric \
	tests/unit/graph/test_quantize
check_PROGRAMS += $(graph_tests)
TESTS += $(graph_tests)
tests_unit_graph_test_builder_SOURCES = tests/unit/graph/test_builder.c \
	tests/unit/graph/graph_test.h
tests_unit_graph_test_builder_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_test_builder_LDADD = $(TVM_TEST_LIBS) -lm
tests_unit_graph_test_printer_SOURCES = tests/unit/graph/test_printer.c \
	tests/unit/graph/graph_test.h
tests_unit_graph_test_printer_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_test_printer_LDADD = $(TVM_TEST_LIBS) -lm
tests_unit_graph_test_passes_SOURCES = tests/unit/graph/test_passes.c \
	tests/unit/graph/graph_test.h
tests_unit_graph_test_passes_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_test_passes_LDADD = $(TVM_TEST_LIBS) -lm
tests_unit_graph_test_passes_numeric_SOURCES = \
	tests/unit/graph/test_passes_numeric.c tests/unit/graph/graph_test.h
tests_unit_graph_test_passes_numeric_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_test_passes_numeric_LDADD = $(TVM_TEST_LIBS) -lm
tests_unit_graph_test_quantize_SOURCES = tests/unit/graph/test_quantize.c
tests_unit_graph_test_quantize_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_test_quantize_LDADD = $(TVM_TEST_LIBS) -lm
endif
