# core/tune: config space (knobs), features, cost model, search, measure, records
libtvm_la_SOURCES += \
	core/tune/config.c \
	core/tune/log.c \
	core/tune/features.c \
	core/tune/model.c \
	core/tune/measure.c \
	core/tune/search.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/tune/test_config tests/unit/tune/test_log \
	tests/unit/tune/test_features
TESTS += tests/unit/tune/test_config tests/unit/tune/test_log \
	tests/unit/tune/test_features
tests_unit_tune_test_config_SOURCES = tests/unit/tune/test_config.c
tests_unit_tune_test_config_CFLAGS = $(TVM_TEST_CF)
tests_unit_tune_test_config_LDADD = $(TVM_TEST_LIBS)
tests_unit_tune_test_log_SOURCES = tests/unit/tune/test_log.c
tests_unit_tune_test_log_CFLAGS = $(TVM_TEST_CF)
tests_unit_tune_test_log_LDADD = $(TVM_TEST_LIBS)
tests_unit_tune_test_features_SOURCES = tests/unit/tune/test_features.c
tests_unit_tune_test_features_CFLAGS = $(TVM_TEST_CF)
tests_unit_tune_test_features_LDADD = $(TVM_TEST_LIBS)
endif

if BUILD_LLVM_CPU
TESTS += tests/e2e/tune/test_tvmc_tune.sh tests/e2e/tune/test_tvmc_tune_gpu.sh
endif
EXTRA_DIST += tests/e2e/tune/test_tvmc_tune.sh \
	tests/e2e/tune/test_tvmc_tune_gpu.sh
