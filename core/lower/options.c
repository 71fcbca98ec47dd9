/*
 * core/lower/options.c - lowering options: defaults and memory scope
 * lookup (the pass names come from the pipeline table in lower.c).
 */
#include <string.h>

#include "tvm/lower.h"

/* Fills o with the defaults of a plain CPU target: 256-bit vectors,
 * unrolling up to 16 iterations, no thread axes, no hardware queues, only
 * the built-in scopes, no dumping. */
void tvm_lower_options_init(tvm_lower_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof(*o));
  o->vector_bits = 256;
  o->unroll_max_extent = 16;
}

/* The built-in scopes, used when the target does not declare them. */
static const tvm_scope_info builtin_scopes[] = {
    {"global", TVM_VIS_DEVICE | TVM_VIS_HOST, 0, 0, -1},
    {"local", TVM_VIS_THREAD, 0, 0, -1},
};

/* The scope named name: the target's own declaration first, then the
 * built-in "global" and "local".  NULL when unknown. */
const tvm_scope_info *tvm_lower_find_scope(const tvm_lower_options *o,
                                           const char *name) {
  if (!name)
    return NULL;
  if (o && o->scopes)
    for (int i = 0; i < o->nscopes; i++)
      if (o->scopes[i].name && strcmp(o->scopes[i].name, name) == 0)
        return &o->scopes[i];
  for (size_t i = 0; i < sizeof(builtin_scopes) / sizeof(builtin_scopes[0]); i++)
    if (strcmp(builtin_scopes[i].name, name) == 0)
      return &builtin_scopes[i];
  return NULL;
}
