# core/codegen: loop IR to C-dialect kernel source (CUDA C, OpenCL C),
# shared by the GPU plugins (tvm/codegen_c.h), and their blob container.
libtvm_la_SOURCES += \
	core/codegen/codegen_int.h \
	core/codegen/c_expr.c \
	core/codegen/c_source.c \
	core/codegen/kpack.c
