# core/target: target YAML loading and validation, plugin discovery and
# loading, the host API offered to plugins.
libtvm_la_SOURCES += \
	core/target/target_int.h \
	core/target/host_api.c \
	core/target/plugin_registry.c \
	core/target/target_yaml.c \
	core/target/target.c
