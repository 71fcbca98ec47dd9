/* matmul_te.h - the matmul of the main job and bench/matmul (see .c). */
#ifndef TVMC_MATMUL_TE_H
#define TVMC_MATMUL_TE_H

#include "tvm/config.h"
#include "tvm/te.h"

typedef struct tvmc_matmul_te {
  tvm_tensor *A, *B, *Bp, *C;
} tvmc_matmul_te;

tvm_status tvmc_matmul_declare(tvm_ctx *c, tvm_config *cfg, int64_t M,
                               int64_t N, int64_t K, int nr,
                               tvmc_matmul_te *out);

#endif
