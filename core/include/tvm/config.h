/*
 * tvm/config.h - knobs of schedule templates (define-by-run).
 *
 * A schedule template asks for each knob by name while it schedules; the
 * config answers with the chosen value and records the knob's space.  With
 * no value set (no tuning record), a knob answers its default.  The tuner
 * enumerates the recorded space and sets values by name.
 */
#ifndef TVM_CONFIG_H
#define TVM_CONFIG_H

#include "tvm/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tvm_config tvm_config;

enum { TVM_KNOB_CHOICE = 1, TVM_KNOB_SPLIT = 2 };

/* One knob of the space. */
typedef struct tvm_knob {
  const char *name;
  int kind;           /* TVM_KNOB_* */
  int nchoices;       /* CHOICE: candidate values; SPLIT: factorizations */
  int64_t *choices;   /* CHOICE: values; SPLIT: nchoices * nparts factors */
  int nparts;         /* SPLIT only */
  int64_t extent;     /* SPLIT only */
  int chosen;         /* index into choices, -1 = default */
  int dflt;           /* index of the default */
} tvm_knob;

TVM_API tvm_config *tvm_config_create(void);
TVM_API void tvm_config_free(tvm_config *cfg);

/* A knob among n values; returns the chosen one (default: choices[dflt]). */
TVM_API int64_t tvm_cfg_choice(tvm_config *cfg, const char *name,
                               const int64_t *choices, int n, int dflt);
/* Splits extent into nparts factors (product == extent) written to out,
 * outermost first.  The space is every factorization whose inner parts are
 * divisors of extent; the default is dflt when it is in the space, else
 * the first one. */
TVM_API tvm_status tvm_cfg_split(tvm_config *cfg, const char *name,
                                 int64_t extent, int nparts,
                                 const int64_t *dflt, int64_t *out);

/* The recorded space. */
TVM_API int tvm_config_nknobs(const tvm_config *cfg);
TVM_API const tvm_knob *tvm_config_knob(const tvm_config *cfg, int i);
/* Chooses index idx of the named knob for the next run of the template. */
TVM_API tvm_status tvm_config_set(tvm_config *cfg, const char *name, int idx);
/* "tile_x=[4,8,32] vec=16" - the chosen values, for logs and messages. */
TVM_API char *tvm_config_str(const tvm_config *cfg);

#ifdef __cplusplus
}
#endif
#endif /* TVM_CONFIG_H */
