/*
 * plugins/vdla/vdla_plugin.h - the VDLA plugin module (shared
 * declarations of plugin.c, codegen.c, runtime.c, strategy.c and
 * workload.c).
 *
 * The compiler side of VDLA: a target whose attributes (targets/vdla.yaml)
 * give the hardware (vdla_config), three hardware queues "load",
 * "compute", "store" (the modules of vdla_isa.h, in the same order, so a
 * core dependency token dep_push(from, to) is the driver's
 * vdla_dep_push(from, to)), three on-chip memory scopes sized from the
 * attributes ("vdla.inp" and "vdla.wgt" filled by the load queue,
 * "vdla.acc" by the compute queue), the GEMM tensor intrinsic
 * "vdla_gemm", a lowering pass that puts the accumulator's element-wise
 * epilogue on the ALU and its copy-out on the store queue, codegen of the
 * device functions into driver command lists (codegen.c) and a device
 * that replays them through the driver on the simulator (runtime.c).
 */
#ifndef VDLA_PLUGIN_H
#define VDLA_PLUGIN_H

#include <stdint.h>

#include "tvm/plugin.h"
#include "vdla_driver.h"

extern const tvm_host_api *vdla_host;

/* Memory scope names (tvm_plugin_scope.name). */
#define VDLA_SCOPE_INP "vdla.inp"
#define VDLA_SCOPE_WGT "vdla.wgt"
#define VDLA_SCOPE_ACC "vdla.acc"

/* The GEMM intrinsic's calls (emitted by the tensor intrinsic):
 *   vdla_gemm(access_ptr(acc, rw), access_ptr(inp, r), access_ptr(wgt, r))
 *   vdla_gemm_reset(access_ptr(acc, w)) */
#define VDLA_CALL_GEMM "vdla_gemm"
#define VDLA_CALL_RESET "vdla_gemm_reset"

struct tvm_plugin_target {
  tvm_plugin_target_info info;
  tvm_plugin_scope scopes[3];
  vdla_config cfg;
  int mode;          /* VDLA_FUNCTIONAL / TIMED / SHUFFLE */
  uint64_t seed;
  uint64_t dram_bytes;
  char desc[160];
};

/* Reports through the host and returns st. */
int32_t vdla_fail(int32_t st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- the command list of a kernel (codegen -> runtime) ---------------- */
enum {
  VDLA_CMD_LOAD = 1,    /* vdla_load(buf, sram, param + dram, y, x, stride, pads) */
  VDLA_CMD_STORE = 2,   /* vdla_store(sram, param + dram, y, x, stride) */
  VDLA_CMD_COMPUTE = 3, /* vdla_compute(insn, uops[uop_off, +nuops)) */
  VDLA_CMD_PUSH = 4,    /* vdla_dep_push(from, to) */
  VDLA_CMD_POP = 5      /* vdla_dep_pop(from, to) */
};

/* One driver call (host byte order). */
typedef struct vdla_cmd {
  uint32_t kind;
  uint32_t buf, param, sram;
  uint64_t dram;          /* byte offset in the parameter's buffer */
  uint32_t y, x, stride;  /* stride in entries */
  uint32_t pads[4];       /* y0 y1 x0 x1 */
  uint32_t from, to;
  uint32_t uop_off, nuops;
  vdla_insn insn;         /* COMPUTE: op, reset, extents, factors, ALU */
} vdla_cmd;

typedef struct vdla_kernel {
  char *name;
  uint32_t nparams, ncmds, nuops;
  vdla_cmd *cmds;
  vdla_uop *uops;
} vdla_kernel;

/* codegen: the device functions of m -> blob "VDLAPRG1" (codegen.c). */
int32_t vdla_codegen(tvm_plugin_target *t, const tvm_module *m,
                     tvm_plugin_blob *out);
/* Parses a blob (every index checked); free with vdla_kernels_free. */
int32_t vdla_parse(const tvm_plugin_blob *b, vdla_kernel **ks, uint32_t *n);
void vdla_kernels_free(vdla_kernel *ks, uint32_t n);
/* "LOAD INP sram 0 <- p0+0 y 1 x 3 stride 3 pad 0 0 1 1" per command,
 * one a line (tests, dumps); the caller frees with free(). */
char *vdla_kernel_str(const vdla_kernel *k);

/* ---- lowering (plugin.c) ------------------------------------------------ */
int32_t vdla_lower_passes(tvm_plugin_target *t,
                          const tvm_plugin_lower_pass **out, uint32_t *n);
int32_t vdla_declare_gemm(tvm_plugin_target *t, tvm_ctx *ctx,
                          tvm_tensor_intrin **out);

/* ---- strategies (strategy.c) -------------------------------------------- */
extern const tvm_plugin_strategy vdla_strategies[];
extern const uint32_t vdla_nstrategies;
/* 1 when a conv2d of these output rows/columns, channel blocks, square
 * kernel K and stride S (with a bias tile in the accumulator when bias)
 * has a tile that fits the buffers (one thread). */
int vdla_conv_fits(const vdla_config *hw, int64_t OH, int64_t OW,
                   int64_t OCO, int64_t ICO, int64_t K, int64_t S, int bias);

/* ---- runtime (runtime.c) ------------------------------------------------- */
int32_t vdla_device_open(tvm_plugin_target *t, tvm_plugin_device **out);
void vdla_device_close(tvm_plugin_device *d);
int32_t vdla_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                       uint64_t align, void **out);
void vdla_mem_free(tvm_plugin_device *d, uint32_t scope, void *p);
int32_t vdla_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                  const void *src, uint64_t src_offset, uint64_t nbytes,
                  uint32_t kind);
int32_t vdla_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                         tvm_plugin_module **out);
void vdla_module_unload(tvm_plugin_module *m);
int32_t vdla_func_get(tvm_plugin_module *m, const char *name,
                      tvm_plugin_func **out);
int32_t vdla_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                    const tvm_plugin_arg *args, uint32_t nargs,
                    const uint32_t grid[3], const uint32_t block[3]);
/* Simulator statistics of the last launch on d, summed over the launches
 * since vdla_device_reset_stats (tests, bench). */
void vdla_device_stats(tvm_plugin_device *d, vdla_stats *out);
void vdla_device_reset_stats(tvm_plugin_device *d);
/* The encoded instructions (2 words each) of the last launch on d. */
const uint64_t *vdla_device_last_program(tvm_plugin_device *d, uint32_t *n);
/* Overrides the simulator mode and seed of d's later launches. */
void vdla_device_set_mode(tvm_plugin_device *d, int mode, uint64_t seed);

#endif /* VDLA_PLUGIN_H */
