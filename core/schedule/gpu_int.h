/*
 * core/schedule/gpu_int.h - helpers shared by the GPU schedule templates
 * (gpu_templates.c, which defines them, and gpu_winograd.c): thread
 * binding, vector and work-group knobs, the rejection of work-groups
 * over the target's limit.
 */
#ifndef TVM_SCHEDULE_GPU_INT_H
#define TVM_SCHEDULE_GPU_INT_H

#include "tvm/gpu_templates.h"

/* Binds iv of st to the thread axis named tag. */
tvm_status gpu_bind(tvm_stage *st, tvm_iter_var *iv, const char *tag);
/* Can a block of n lanes be one vector of a target with `lanes`? */
int gpu_vectorizable(int64_t n, int64_t lanes);
/* Index in choices[0..n) of the largest value at most cap (0 if none). */
int gpu_largest_upto(const int64_t *choices, int n, int64_t cap);
/* Records a rejection in cfg (may be NULL) and returns
 * TVM_ERR_UNSUPPORTED: work-groups of wg work-items exceed max. */
tvm_status gpu_too_large(tvm_config *cfg, const char *who, int64_t wg,
                         int64_t max);
/* The 1-D work-group size knob "wg" among the powers of two from `lo` to
 * 256, default the largest up to min(dflt_cap, the target's limit). */
int64_t gpu_wg_knob(tvm_config *cfg, int64_t lo, int64_t dflt_cap,
                    const tvm_gpu_limits *lim);
/* Divisors of n up to cap, into out (at most 16); returns how many. */
int gpu_divisors_upto(int64_t n, int64_t cap, int64_t *out);

#endif /* TVM_SCHEDULE_GPU_INT_H */
