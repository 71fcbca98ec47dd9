/*
 * tvm/zoo.h - the built-in model zoo: networks built with the C graph API
 * (core/frontend/zoo/), weights from tvm_graph_random (fixed seeds, so a
 * model is the same on every machine).  `tvmc compile zoo:NAME` uses it.
 */
#ifndef TVM_ZOO_H
#define TVM_ZOO_H

#include "tvm/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the zoo model called name into a new graph (*out, freed with
 * tvm_graph_free).  TVM_ERR_NOT_FOUND (listing the models) for an unknown
 * name. */
TVM_API tvm_status tvm_zoo_build(const char *name, tvm_graph **out);

/* The names of the zoo's models, NULL-terminated, static. */
TVM_API const char *const *tvm_zoo_names(void);

#ifdef __cplusplus
}
#endif
#endif /* TVM_ZOO_H */
