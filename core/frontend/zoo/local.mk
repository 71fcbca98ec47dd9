# core/frontend/zoo: the built-in model zoo (C graph API networks).
libtvm_la_SOURCES += core/frontend/zoo/zoo.c
# the model zoo's networks (helper Z): layer helpers, one family a file
libtvm_la_SOURCES += \
	core/frontend/zoo/zoo_int.h \
	core/frontend/zoo/zoo_layers.c \
	core/frontend/zoo/resnet.c \
	core/frontend/zoo/mobilenet.c \
	core/frontend/zoo/squeezenet.c \
	core/frontend/zoo/lstm.c \
	core/frontend/zoo/dqn.c \
	core/frontend/zoo/dcgan.c
if HAVE_CMOCKA
if BUILD_LLVM_CPU
check_PROGRAMS += tests/unit/zoo/test_zoo
TESTS += tests/unit/zoo/test_zoo
tests_unit_zoo_test_zoo_SOURCES = tests/unit/zoo/test_zoo.c
tests_unit_zoo_test_zoo_CFLAGS = $(TVM_TEST_CF)
tests_unit_zoo_test_zoo_LDADD = $(TVM_TEST_LIBS) -lm
EXTRA_tests_unit_zoo_test_zoo_DEPENDENCIES = plugins/llvm-cpu/tvm-llvm-cpu.la
endif
endif
