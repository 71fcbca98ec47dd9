# core/codegen: loop IR to C-dialect kernel source (CUDA C, OpenCL C),
# shared by the GPU plugins (tvm/codegen_c.h), and their blob container.
libtvm_la_SOURCES += \
	core/codegen/codegen_int.h \
	core/codegen/c_expr.c \
	core/codegen/c_source.c \
	core/codegen/combine.c \
	core/codegen/kpack.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/codegen/test_c_source
TESTS += tests/unit/codegen/test_c_source
tests_unit_codegen_test_c_source_SOURCES = tests/unit/codegen/test_c_source.c
tests_unit_codegen_test_c_source_CFLAGS = $(TVM_TEST_CF)
tests_unit_codegen_test_c_source_LDADD = $(TVM_TEST_LIBS)
endif
