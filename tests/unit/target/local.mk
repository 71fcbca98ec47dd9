# tests/unit/target: target files and their validation (uses the test
# plugins of tests/abi).
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/target/test_target_yaml
TESTS += tests/unit/target/test_target_yaml
tests_unit_target_test_target_yaml_SOURCES = tests/unit/target/test_target_yaml.c
tests_unit_target_test_target_yaml_CFLAGS = $(TVM_TEST_CF)
tests_unit_target_test_target_yaml_LDADD = $(TVM_TEST_LIBS)
endif
