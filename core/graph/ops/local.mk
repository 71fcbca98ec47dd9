# core/graph/ops: the operator library (ONNX operators: infer, pattern,
# TE compute, naive C reference), one file per family; registry.c lists
# the families.
libtvm_la_SOURCES += \
	core/graph/ops/ops_int.h \
	core/graph/ops/util.c \
	core/graph/ops/registry.c \
	core/graph/ops/device.c \
	core/graph/ops/elementwise.c \
	core/graph/ops/activation.c \
	core/graph/ops/broadcast.c \
	core/graph/ops/conv.c \
	core/graph/ops/conv_transpose.c \
	core/graph/ops/pool.c \
	core/graph/ops/gemm.c \
	core/graph/ops/matmul_packed.c \
	core/graph/ops/norm.c \
	core/graph/ops/softmax.c \
	core/graph/ops/shape.c \
	core/graph/ops/transform.c \
	core/graph/ops/slice.c \
	core/graph/ops/reduce.c \
	core/graph/ops/cast.c \
	core/graph/ops/lstm.c \
	core/graph/ops/rearrange.c \
	core/graph/ops/resize.c \
	core/graph/ops/logic.c \
	core/graph/ops/rnn.c \
	core/graph/ops/layout_int.h \
	core/graph/ops/layout.c \
	core/graph/ops/conv_nchwc.c \
	core/graph/ops/qconv_blocked.c \
	core/graph/ops/conv_winograd.c \
	core/graph/ops/pool_nchwc.c \
	core/graph/ops/loss.c \
	core/graph/ops/matrix.c \
	core/graph/ops/index.c \
	core/graph/ops/quant.c \
	core/graph/ops/signal.c \
	core/graph/ops/einsum.c \
	core/graph/ops/groupnorm.c \
	core/graph/ops/scatter.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/graph/ops/test_ops_basic
TESTS += tests/unit/graph/ops/test_ops_basic
tests_unit_graph_ops_test_ops_basic_SOURCES = \
	tests/unit/graph/ops/test_ops_basic.c tests/unit/graph/ops/ops_test.h
tests_unit_graph_ops_test_ops_basic_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_ops_test_ops_basic_LDADD = $(TVM_TEST_LIBS)

check_PROGRAMS += tests/unit/graph/ops/test_ops_nn
TESTS += tests/unit/graph/ops/test_ops_nn
tests_unit_graph_ops_test_ops_nn_SOURCES = \
	tests/unit/graph/ops/test_ops_nn.c tests/unit/graph/ops/ops_test.h
tests_unit_graph_ops_test_ops_nn_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_ops_test_ops_nn_LDADD = $(TVM_TEST_LIBS)

check_PROGRAMS += tests/unit/graph/ops/test_ops_index
TESTS += tests/unit/graph/ops/test_ops_index
tests_unit_graph_ops_test_ops_index_SOURCES = \
	tests/unit/graph/ops/test_ops_index.c tests/unit/graph/ops/ops_test.h
tests_unit_graph_ops_test_ops_index_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_ops_test_ops_index_LDADD = $(TVM_TEST_LIBS)
check_PROGRAMS += tests/unit/graph/ops/test_ops_shape
TESTS += tests/unit/graph/ops/test_ops_shape
tests_unit_graph_ops_test_ops_shape_SOURCES = \
	tests/unit/graph/ops/test_ops_shape.c tests/unit/graph/ops/ops_test.h
tests_unit_graph_ops_test_ops_shape_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_ops_test_ops_shape_LDADD = $(TVM_TEST_LIBS)

check_PROGRAMS += tests/unit/graph/ops/test_ops_lstm
TESTS += tests/unit/graph/ops/test_ops_lstm
tests_unit_graph_ops_test_ops_lstm_SOURCES = \
	tests/unit/graph/ops/test_ops_lstm.c tests/unit/graph/ops/ops_test.h
tests_unit_graph_ops_test_ops_lstm_CFLAGS = $(TVM_TEST_CF)
tests_unit_graph_ops_test_ops_lstm_LDADD = $(TVM_TEST_LIBS)

# every compute through the llvm-cpu plugin: tvm-backend-ops
# (plugin-sdk/tools/, run by tests/abi/test_backend_ops.sh)
endif
