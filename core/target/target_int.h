/*
 * core/target/target_int.h - private to core/target and core/runtime:
 * plugin slot access and the registry's layout.
 *
 * The host reads a vtable slot only when it lies inside the bytes the
 * plugin declared (tvm_plugin_entry.vtable_size, already capped at the
 * negotiated ABI's size) and is non-NULL.  Every caller goes through
 * TVM_SLOT; nothing reads p->vtable->x directly.
 */
#ifndef TVM_TARGET_INT_H
#define TVM_TARGET_INT_H

#include <stddef.h>

#include "tvm/target.h"

/* The slot `field` of plugin entry p, or NULL when it lies outside the
 * vtable's size or is unset.  The expression has the slot's type. */
#define TVM_SLOT(p, field)                                              \
  (((p) != NULL && (p)->vtable != NULL &&                               \
    offsetof(tvm_plugin_vtable, field) +                                \
            sizeof(((tvm_plugin_vtable *)0)->field) <=                  \
        (size_t)(p)->vtable_size)                                       \
       ? (p)->vtable->field                                             \
       : NULL)

/* Is the field of struct type T (pointed to by s, whose first member is
 * struct_size) inside s's declared size? */
#define TVM_HAS_FIELD(T, s, field)                                      \
  ((s) != NULL && offsetof(T, field) + sizeof(((T *)0)->field) <=      \
                      (size_t)(s)->struct_size)

/* Bytes of the vtable defined by ABI version v. */
size_t target_vtable_size_for_abi(uint32_t v);

/* Pool size wanted by a target: its num_threads attribute, 0 = all. */
int target_num_threads(const tvm_target *t);

/* A heap string (tvm_free) formatted like printf, or NULL. */
char *target_aprintf(const char *fmt, ...) TVM_PRINTF(1, 2);

/* Non-zero when TVM_NO_INSTALLED is set: only the env paths are searched
 * (test suites use it to see the build tree alone). */
int target_no_installed_dirs(void);

/* Parses and validates the target YAML at path against its plugin in r,
 * filling t (strings in arena a).  Sets *plugin to the plugin entry. */
tvm_status target_parse(tvm_plugin_registry *r, const char *path,
                             tvm_arena *a, tvm_target *t);
/* Reads only name: and plugin: of a target file (heap strings, NULL when
 * absent); fails on unreadable or malformed YAML. */
tvm_status target_peek(const char *path, char **name, char **plugin);

/* Every schema attribute of p at its default value (arena a); fails
 * with TVM_ERR_NOT_FOUND when an attribute is required. */
tvm_status target_plugin_defaults(const tvm_plugin_entry *p, tvm_arena *a,
                                tvm_plugin_attr_value **out, uint32_t *n);

/* Keeps host_api.num_threads in step with the pool (core/runtime). */
void target_host_api_set_threads(uint32_t n);

/* Makes a runtime module close its device when freed (core/runtime). */
struct tvm_runtime_module;
void runtime_module_own_device(struct tvm_runtime_module *m);

#endif /* TVM_TARGET_INT_H */
