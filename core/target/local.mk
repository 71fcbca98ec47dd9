# core/target: target YAML loading and validation, the compile-time slots
# of a target's plugin (strategies, lowering options, codegen, layouts)
# and tvm_build.  Plugin discovery, the host API and the tvm_target
# object are the runtime's (core/runtime/local.mk).
libtvm_la_SOURCES += \
	core/target/target_int.h \
	core/target/target_yaml.c \
	core/target/target.c \
	core/target/build.c
