# core/base: arena, vectors, maps, strings, status and diagnostics, logging
# (in libtvm_runtime: the runtime needs all of it, libtvm links it)
libtvm_runtime_la_SOURCES += \
	core/base/diag.c \
	core/base/alloc.c \
	core/base/arena.c \
	core/base/base_int.h \
	core/base/ptrvec.c \
	core/base/strbuf.c \
	core/base/ptrmap.c \
	core/base/strmap.c \
	core/base/editdist.c \
	core/base/file.c \
	core/base/checked.c \
	core/base/clock.c \
	core/base/json.c

base_tests = tests/unit/base/test_alloc tests/unit/base/test_containers \
	tests/unit/base/test_diag tests/unit/base/test_json
check_PROGRAMS += $(base_tests)
TESTS += $(base_tests)
tests_unit_base_test_alloc_SOURCES = tests/unit/base/test_alloc.c
tests_unit_base_test_alloc_CFLAGS = $(TVM_TEST_CF)
tests_unit_base_test_alloc_LDADD = $(TVM_TEST_LIBS)
tests_unit_base_test_containers_SOURCES = tests/unit/base/test_containers.c
tests_unit_base_test_containers_CFLAGS = $(TVM_TEST_CF)
tests_unit_base_test_containers_LDADD = $(TVM_TEST_LIBS)
tests_unit_base_test_diag_SOURCES = tests/unit/base/test_diag.c
tests_unit_base_test_diag_CFLAGS = $(TVM_TEST_CF)
tests_unit_base_test_diag_LDADD = $(TVM_TEST_LIBS)
tests_unit_base_test_json_SOURCES = tests/unit/base/test_json.c
tests_unit_base_test_json_CFLAGS = $(TVM_TEST_CF)
tests_unit_base_test_json_LDADD = $(TVM_TEST_LIBS)
