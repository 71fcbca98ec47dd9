# core/schedule: stages and the schedule primitives
libtvm_la_SOURCES += \
	core/schedule/sched_int.h \
	core/schedule/schedule.c \
	core/schedule/loops.c \
	core/schedule/placement.c \
	core/schedule/annotate.c \
	core/schedule/dataflow.c \
	core/schedule/rfactor.c \
	core/schedule/print.c \
	core/schedule/gpu_int.h \
	core/schedule/gpu_templates.c \
	core/schedule/gpu_winograd.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/schedule/test_schedule
TESTS += tests/unit/schedule/test_schedule
tests_unit_schedule_test_schedule_SOURCES = \
	tests/unit/schedule/test_schedule.c tests/unit/schedule/sched_test.h \
	tests/unit/te/examples.h
tests_unit_schedule_test_schedule_CFLAGS = $(TVM_TEST_CF)
tests_unit_schedule_test_schedule_LDADD = $(TVM_TEST_LIBS)

check_PROGRAMS += tests/unit/schedule/test_dataflow
TESTS += tests/unit/schedule/test_dataflow
tests_unit_schedule_test_dataflow_SOURCES = \
	tests/unit/schedule/test_dataflow.c tests/unit/schedule/te_eval.h \
	tests/unit/schedule/sched_test.h \
	tests/unit/te/examples.h
tests_unit_schedule_test_dataflow_CFLAGS = $(TVM_TEST_CF)
tests_unit_schedule_test_dataflow_LDADD = $(TVM_TEST_LIBS)

check_PROGRAMS += tests/unit/schedule/test_oom
TESTS += tests/unit/schedule/test_oom
tests_unit_schedule_test_oom_SOURCES = tests/unit/schedule/test_oom.c
tests_unit_schedule_test_oom_CFLAGS = $(TVM_TEST_CF)
tests_unit_schedule_test_oom_LDADD = $(TVM_TEST_LIBS)
endif
