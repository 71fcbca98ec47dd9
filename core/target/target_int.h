/*
 * core/target/target_int.h - private to core/target: the YAML reader's
 * entry points and short names for the runtime's public slot helpers.
 *
 * The host reads a vtable slot only when it lies inside the bytes the
 * plugin declared (tvm_plugin_entry.vtable_size, already capped at the
 * negotiated ABI's size) and is non-NULL: every caller goes through
 * TVM_SLOT (tvm/runtime.h's TVM_PLUGIN_SLOT).
 */
#ifndef TVM_TARGET_INT_H
#define TVM_TARGET_INT_H

#include <stddef.h>

#include "tvm/target.h"

#define TVM_SLOT(p, field) TVM_PLUGIN_SLOT(p, field)
#define TVM_HAS_FIELD(T, s, field) TVM_PLUGIN_HAS_FIELD(T, s, field)

/* Parses and validates the target YAML at path against its plugin in r,
 * filling t's public fields (strings in arena a; t->instance stays NULL:
 * tvm_target_create makes the instance). */
tvm_status target_parse(tvm_plugin_registry *r, const char *path,
                        tvm_arena *a, tvm_target *t);
/* Reads only name: and plugin: of a target file (heap strings, NULL when
 * absent); fails on unreadable or malformed YAML. */
tvm_status target_peek(const char *path, char **name, char **plugin);

/* Every schema attribute of p at its default value (arena a); fails
 * with TVM_ERR_NOT_FOUND when an attribute is required. */
tvm_status target_plugin_defaults(const tvm_plugin_entry *p, tvm_arena *a,
                                  tvm_plugin_attr_value **out, uint32_t *n);

#endif /* TVM_TARGET_INT_H */
