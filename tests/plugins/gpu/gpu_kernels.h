/*
 * tests/plugins/gpu/gpu_kernels.h - hand-scheduled thread kernels shared
 * by the GPU plugins' tests (cuda, arm-mali): lowered for a target,
 * compiled through its plugin, and (where a device exists) run against
 * naive C references.
 */
#ifndef TVM_TEST_GPU_KERNELS_H
#define TVM_TEST_GPU_KERNELS_H

#include "tvm/runtime.h"
#include "tvm/target.h"

/* One lowered test case. */
typedef struct gpu_case {
  const char *name;     /* "scale_vec4", ... */
  tvm_module m;         /* host + device functions */
  int ntensors;
  const char *tnames[4]; /* tensor (buffer parameter) names */
  int64_t tsize[4];      /* elements */
  int out;               /* index of the output tensor */
  float *data[4];        /* inputs random, output the reference */
} gpu_case;

#define GPU_NCASES 4
/* Lowers every case for t into cases[]; fails the test on error. */
void gpu_cases_lower(const tvm_target *t, tvm_ctx *c, gpu_case *cases);
void gpu_cases_free(gpu_case *cases);
/* The first device function of a case's module. */
const tvm_func *gpu_case_kernel(const gpu_case *k);
/* A float16 kernel: B = exp(A) * 2 + 1 over 1024 halves, blockIdx.x x
 * threadIdx.x (64), lowered for t into m (A, B are its tensors). */
void gpu_half_lower(const tvm_target *t, tvm_ctx *c, tvm_module *m);
/* Fills k for C[M, N] = A[M, K] x B[K, N] (tensors "A", "B", "C"): the
 * inputs from val(element, input index) (NULL: multiples of 1/8 in
 * [-1, 1), exact in float32), C the naive product.  The caller frees
 * data[0..2]. */
void gpu_case_matmul(gpu_case *k, int64_t M, int64_t N, int64_t K,
                     float (*val)(int64_t e, int i));
/* Runs one case on d (codegen for t, load, launch, compare). */
void gpu_case_run(const tvm_target *t, tvm_device *d, gpu_case *k);
/* Runs every case on d (module loaded from blob made per case) and
 * compares the output with the reference (relative tolerance 1e-4);
 * time_it: also times each kernel with the device timer (checked > 0). */
void gpu_cases_run(const tvm_target *t, tvm_device *d, gpu_case *cases,
                   int time_it);

/* PoCL caches built kernels: a fresh POCL_CACHE_DIR under /tmp unless the
 * caller set one (enter), removed again afterwards (leave). */
void gpu_pocl_cache_enter(void);
void gpu_pocl_cache_leave(void);

#endif
