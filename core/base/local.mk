# core/base: arena, vectors, maps, strings, status and diagnostics, logging
libtvm_la_SOURCES += \
	core/base/placeholder.c
