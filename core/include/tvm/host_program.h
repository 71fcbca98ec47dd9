/*
 * tvm/host_program.h - the host half of a device kernel, as the runtime
 * runs it (see plugin-sdk/docs/HOST_DEVICE.md).
 *
 * On a device target (threads or hardware queues), lowering splits each
 * fused group's function into device functions (compiled by the target's
 * plugin) and a host function that launches them
 * (`launch("k", grid=(..), block=(..), shared=n, args=(..))`).  The
 * compiler evaluates that host function once (tvm_host_program_build,
 * tvm/lower.h side: host loops with constant trip counts unrolled, lets,
 * ifs and launch geometry evaluated) into a host program: a flat list of
 * launches with constant geometry whose arguments are the step's buffers,
 * device temporaries or constants.  The runtime runs it on the host CPU,
 * calling the device plugin's launch for each (tvm_host_exec_*), for every
 * device target alike: no plugin writes a host-side executor.
 *
 * This header belongs to the runtime: it depends on tvm/base.h only.
 */
#ifndef TVM_HOST_PROGRAM_H
#define TVM_HOST_PROGRAM_H

#include <stdint.h>

#include "tvm/base.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { /* tvm_host_arg.kind */
  TVM_HOST_ARG_PARAM = 1, /* the step's buffer argument `index` */
  TVM_HOST_ARG_TEMP = 2,  /* device temporary `index` of the program */
  TVM_HOST_ARG_INT = 3,   /* the integer i */
  TVM_HOST_ARG_FLOAT = 4  /* the float f */
};

/* One launch argument. */
typedef struct tvm_host_arg {
  uint32_t kind;
  uint32_t index;
  int64_t i;
  double f;
} tvm_host_arg;

enum { /* tvm_host_op.kind */
  TVM_HOST_OP_LAUNCH = 1
};

/* One operation: a launch of kernels[kernel] over grid x block with
 * args[first_arg .. first_arg + nargs). */
typedef struct tvm_host_op {
  uint32_t kind;
  uint32_t kernel;
  uint32_t grid[3];
  uint32_t block[3];
  uint64_t shared_bytes;
  uint32_t first_arg;
  uint32_t nargs;
} tvm_host_op;

typedef struct tvm_host_program {
  const char *name;      /* the host function it came from */
  uint32_t nparams;      /* buffer parameters (the plan step's arguments) */
  uint32_t nkernels;
  const char **kernels;  /* device function names (in the device module) */
  uint32_t ntemps;
  uint64_t *temp_bytes;  /* device temporaries (host-level allocations) */
  uint32_t nops;
  tvm_host_op *ops;
  uint32_t nargs;
  tvm_host_arg *args;
} tvm_host_program;

/* Checks p's internal consistency (kernel, temp and parameter indexes,
 * argument ranges, non-zero geometry); fails naming the operation. */
TVM_API tvm_status tvm_host_program_check(const tvm_host_program *p);
/* Text form (tests, --dump-ir split_host_device... and docs), e.g.
 *   host mm (3 params, 0 temps)
 *     launch mm_kernel0 grid(4, 1, 1) block(32, 1, 1) shared 0 (p0, p1, p2)
 */
TVM_API void tvm_host_program_print(tvm_strbuf *out,
                                    const tvm_host_program *p);

/* Serialized form (packages): little-endian, self-delimiting.  encode
 * appends to out; decode reads at most n bytes at d, allocates from a,
 * sets *used and checks the result (tvm_host_program_check). */
TVM_API tvm_status tvm_host_program_encode(const tvm_host_program *p,
                                           tvm_strbuf *out);
TVM_API tvm_status tvm_host_program_decode(const unsigned char *d, size_t n,
                                           tvm_arena *a, size_t *used,
                                           tvm_host_program **out);

/* ---- running one (core/runtime/host_exec.c) ------------------------------ */
typedef struct tvm_device tvm_device;                 /* tvm/runtime.h */
typedef struct tvm_runtime_module tvm_runtime_module; /* tvm/runtime.h */
typedef struct tvm_host_exec tvm_host_exec;

/* Prepares p to run on device d with the kernels of module m: resolves
 * every kernel (its argument count must match), allocates the device
 * temporaries and builds each launch's argument array, the buffer
 * parameters being params[0 .. nparams) (device addresses, p->nparams of
 * them).  p, d, m and params must outlive the result. */
TVM_API tvm_status tvm_host_exec_create(const tvm_host_program *p,
                                        tvm_device *d, tvm_runtime_module *m,
                                        void *const *params, uint32_t nparams,
                                        tvm_host_exec **out);
/* Launches every operation in order through the device plugin's launch,
 * without waiting (tvm_device_sync waits). */
TVM_API tvm_status tvm_host_exec_run(tvm_host_exec *x);
TVM_API void tvm_host_exec_free(tvm_host_exec *x);

#ifdef __cplusplus
}
#endif
#endif /* TVM_HOST_PROGRAM_H */
