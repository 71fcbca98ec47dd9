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

enum {
  TVM_KNOB_CHOICE = 1,   /* one of n integer values */
  TVM_KNOB_SPLIT = 2,    /* a factorization of an extent */
  TVM_KNOB_REORDER = 3,  /* one of a list of loop permutations */
  TVM_KNOB_ANNOTATE = 4, /* one of a list of TVM_ANN_* annotations */
  TVM_KNOB_CATEGORY = 5  /* one of n named alternatives (answers an index) */
};
/* Split spaces: every factorization, or inner factors powers of two. */
enum { TVM_SPLIT_ALL = 0, TVM_SPLIT_POW2 = 1 };
/* Annotation choices of an annotation knob. */
enum { TVM_ANN_NONE = 0, TVM_ANN_UNROLL = 1, TVM_ANN_VECTORIZE = 2,
       TVM_ANN_PARALLEL = 3 };

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
  const char **labels; /* CATEGORY only: nchoices names (heap) */
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

/* Like tvm_cfg_split with a policy (TVM_SPLIT_*) and a maximum for the
 * product of the inner parts (0 = none). */
TVM_API tvm_status tvm_cfg_split_ex(tvm_config *cfg, const char *name,
                                    int64_t extent, int nparts, int policy,
                                    int64_t max_inner, const int64_t *dflt,
                                    int64_t *out);
/* A loop order among nperms permutations of n loops (perms: nperms rows
 * of n indices); the chosen row is copied to out. */
TVM_API tvm_status tvm_cfg_reorder(tvm_config *cfg, const char *name, int n,
                                   const int *perms, int nperms, int dflt,
                                   int *out);
/* An annotation among n TVM_ANN_* values; returns the chosen one. */
TVM_API int tvm_cfg_annotate(tvm_config *cfg, const char *name,
                             const int *anns, int n, int dflt);
/* A categorical knob among n named alternatives; returns the index. */
TVM_API int tvm_cfg_category(tvm_config *cfg, const char *name,
                             const char *const *labels, int n, int dflt);
/* A template rejects the current combination of values (e.g. a register
 * block larger than the register file): the tuner skips the candidate
 * before lowering or building it.  The first reason is kept. */
TVM_API void tvm_cfg_reject(tvm_config *cfg, const char *fmt, ...)
    TVM_PRINTF(2, 3);
/* The reason of the rejection of the current values, or NULL. */
TVM_API const char *tvm_config_rejected(const tvm_config *cfg);

/* Chooses entry idx of a knob not recorded yet (a tuning-log record
 * applied before the template runs): taken when the template first asks
 * for the knob; an index out of its range is reported and the default
 * used. */
TVM_API tvm_status tvm_config_preset(tvm_config *cfg, const char *name,
                                     int idx);
/* Presets that named no knob the template asked for, or were out of range
 * (a stale log record); 0 when all applied. */
TVM_API int tvm_config_presets_unused(const tvm_config *cfg);

/* The space as a product of the knobs: its size (saturates at 2^63), the
 * index of the current values (first knob varies fastest), and setting
 * every knob from an index (also clears a rejection). */
TVM_API uint64_t tvm_config_space_size(const tvm_config *cfg);
TVM_API uint64_t tvm_config_index(const tvm_config *cfg);
TVM_API tvm_status tvm_config_set_index(tvm_config *cfg, uint64_t idx);

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
