# core/tune: config space (knobs), features, cost model, explorer, measure, records
libtvm_la_SOURCES += \
	core/tune/config.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/tune/test_config
TESTS += tests/unit/tune/test_config
tests_unit_tune_test_config_SOURCES = tests/unit/tune/test_config.c
tests_unit_tune_test_config_CFLAGS = $(TVM_TEST_CF)
tests_unit_tune_test_config_LDADD = $(TVM_TEST_LIBS)
endif
