/*
 * mock_accel.h - the SDK's example accelerator (shared declarations).
 *
 * mock_accel is a decoupled access-execute (DAE) accelerator simulated on
 * the host, the shape of device a vendor adds through tvm-c's plugin ABI
 * (plugin-sdk/docs/HOST_DEVICE.md walks through it):
 *  - two hardware queues, "load" (0) and "compute" (1), synchronized by
 *    dependency tokens (dep_push / dep_pop, inserted by the core's
 *    inject_dep_tokens pass);
 *  - two on-chip scratchpad scopes with a capacity, "inp_buf" (filled by
 *    the load queue) and "acc_buf" (the compute queue's accumulator): the
 *    core refuses, at compile time, a schedule whose tiles do not fit;
 *  - one tensor intrinsic, mock_gemm_4x4 (C[4x4] += A[4x4] x B[4x4]);
 *  - a tensorized matmul schedule (strategy "matmul") using all of them;
 *  - supports (ABI 5): MatMul on the GEMM unit, Flatten/Reshape on the
 *    copy engine; the YAML names llvm-cpu as the fallback for the rest
 *    (plugin-sdk/docs/HETEROGENEOUS.md);
 *  - a lowering pass of its own inserted after storage_rewrite (ABI 4
 *    lower_passes) that counts the GEMM calls per kernel into an attribute;
 *  - codegen of the device functions (the core hands it only those) to a
 *    command stream (mock_accel_codegen.c), and a device that runs the
 *    command stream, one queue at a time until a token is missing, so a
 *    missing token shows up as a wrong result or a deadlock report
 *    (mock_accel_device.c).  The host part of each kernel is run by the
 *    tvm-c runtime (host programs), which calls this plugin's launch.
 */
#ifndef MOCK_ACCEL_H
#define MOCK_ACCEL_H

#include <stdint.h>

#include "tvm/plugin.h"

extern const tvm_host_api *mock_host;

/* Reports through the host and returns st. */
int32_t mock_fail(int32_t st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- the command stream ---------------------------------------------- */
enum {
  MOCK_COPY = 1,  /* buf[0][off[0]] = buf[1][off[1]]  (one float) */
  MOCK_FILL = 2,  /* buf[0][off[0]] = imm */
  MOCK_RESET = 3, /* C(buf 0, off 0, ld 0) 4x4 = 0 */
  MOCK_GEMM = 4,  /* C += A(buf 1) x B(buf 2), 4x4x4, leading dims ld */
  MOCK_PUSH = 5,  /* token from queue q to queue imm */
  MOCK_POP = 6    /* token from queue imm to queue q */
};

/* One command (host byte order: blobs are for the machine that built them
 * or one like it). */
typedef struct mock_cmd {
  uint32_t op;
  uint32_t queue;  /* which queue runs it */
  uint32_t buf[3]; /* kernel buffer slots */
  uint32_t ld[3];
  int64_t off[3];  /* element offsets */
  double imm;
} mock_cmd;

/* One kernel: buffer slots 0..nparams-1 are its parameters (device
 * memory from mem_alloc), the others its on-chip buffers (elements). */
typedef struct mock_kernel {
  char *name;
  uint32_t nparams, nbufs, ncmds;
  uint64_t *buf_elems; /* nbufs; 0 for parameters */
  mock_cmd *cmds;
} mock_kernel;

/* codegen: device functions of m -> blob "MOCKACC1" (see the .c). */
int32_t mock_codegen(tvm_plugin_target *t, const tvm_module *m,
                     tvm_plugin_blob *out);
/* Parses a blob (checks every index); free with mock_kernels_free. */
int32_t mock_parse(const tvm_plugin_blob *b, mock_kernel **ks, uint32_t *n);
void mock_kernels_free(mock_kernel *ks, uint32_t n);

/* The run-time half (mock_accel_device.c). */
int32_t mock_device_open(tvm_plugin_target *t, tvm_plugin_device **out);
void mock_device_close(tvm_plugin_device *d);
int32_t mock_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                       uint64_t align, void **out);
void mock_mem_free(tvm_plugin_device *d, uint32_t scope, void *p);
int32_t mock_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                  const void *src, uint64_t src_offset, uint64_t nbytes,
                  uint32_t kind);
int32_t mock_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                         tvm_plugin_module **out);
void mock_module_unload(tvm_plugin_module *m);
int32_t mock_func_get(tvm_plugin_module *m, const char *name,
                      tvm_plugin_func **out);
int32_t mock_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                    const tvm_plugin_arg *args, uint32_t nargs,
                    const uint32_t grid[3], const uint32_t block[3]);
/* Commands each queue ran in the last launch of d (tests, stats). */
void mock_device_stats(tvm_plugin_device *d, uint64_t counts[2],
                       uint64_t *switches);

#endif /* MOCK_ACCEL_H */
