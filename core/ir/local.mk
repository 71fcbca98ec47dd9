# core/ir: files of this folder (see Makefile.am)
# -- A1: context, types, nodes, traversal, printer
libtvm_la_SOURCES += \
	core/ir/ir_int.h \
	core/ir/ctx.c \
	core/ir/expr.c \
	core/ir/expr_util.c \
	core/ir/stmt.c \
	core/ir/func.c \
	core/ir/visit.c \
	core/ir/mutate.c \
	core/ir/printer.c
ir_a1_tests = tests/unit/ir/test_expr tests/unit/ir/test_stmt \
	tests/unit/ir/test_visit tests/unit/ir/test_printer
check_PROGRAMS += $(ir_a1_tests)
TESTS += $(ir_a1_tests)
tests_unit_ir_test_expr_SOURCES = tests/unit/ir/test_expr.c
tests_unit_ir_test_expr_CFLAGS = $(TVM_TEST_CF)
tests_unit_ir_test_expr_LDADD = $(TVM_TEST_LIBS)
tests_unit_ir_test_stmt_SOURCES = tests/unit/ir/test_stmt.c
tests_unit_ir_test_stmt_CFLAGS = $(TVM_TEST_CF)
tests_unit_ir_test_stmt_LDADD = $(TVM_TEST_LIBS)
tests_unit_ir_test_visit_SOURCES = tests/unit/ir/test_visit.c
tests_unit_ir_test_visit_CFLAGS = $(TVM_TEST_CF)
tests_unit_ir_test_visit_LDADD = $(TVM_TEST_LIBS)
tests_unit_ir_test_printer_SOURCES = tests/unit/ir/test_printer.c
tests_unit_ir_test_printer_CFLAGS = $(TVM_TEST_CF)
tests_unit_ir_test_printer_LDADD = $(TVM_TEST_LIBS)
# -- end A1
# -- A2: arithmetic (intervals, affine form, simplifier)
libtvm_la_SOURCES += \
	core/ir/arith_int.h \
	core/ir/arith_interval.c \
	core/ir/arith_affine.c \
	core/ir/arith_sum.c \
	core/ir/arith_divmod.c \
	core/ir/arith_range.c \
	core/ir/simplify.c \
	core/ir/simplify_stmt.c
# -- end A2
# -- A2 tests
a2_ir_tests = tests/unit/ir/test_simplify tests/unit/ir/test_arith
check_PROGRAMS += $(a2_ir_tests)
TESTS += $(a2_ir_tests)
tests_unit_ir_test_simplify_SOURCES = tests/unit/ir/test_simplify.c
tests_unit_ir_test_simplify_CFLAGS = $(TVM_TEST_CF)
tests_unit_ir_test_simplify_LDADD = $(TVM_TEST_LIBS)
tests_unit_ir_test_arith_SOURCES = tests/unit/ir/test_arith.c
tests_unit_ir_test_arith_CFLAGS = $(TVM_TEST_CF)
tests_unit_ir_test_arith_LDADD = $(TVM_TEST_LIBS)
# -- end A2 tests
