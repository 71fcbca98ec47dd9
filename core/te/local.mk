# core/te: tensor expressions (placeholders, computes, reductions, tensor
# intrinsic declarations, the Winograd F(2x2, 3x3) expressions)
libtvm_la_SOURCES += \
	core/te/te_int.h \
	core/te/tensor.c \
	core/te/compute.c \
	core/te/reduce.c \
	core/te/intrin.c \
	core/te/winograd.c \
	core/te/winograd_nchwc.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/te/test_te
TESTS += tests/unit/te/test_te
tests_unit_te_test_te_SOURCES = tests/unit/te/test_te.c tests/unit/te/examples.h
tests_unit_te_test_te_CFLAGS = $(TVM_TEST_CF)
tests_unit_te_test_te_LDADD = $(TVM_TEST_LIBS)
endif
