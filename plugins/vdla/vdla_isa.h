/*
 * plugins/vdla/vdla_isa.h - the VDLA instruction set: 128-bit instructions
 * for a decoupled access-execute accelerator after the TVM paper's VDLA
 * (fetch, load, compute and store modules linked by command queues and by
 * four dependency-token queues).
 *
 * Every instruction is two little-endian 64-bit words.  Word 0 starts
 * with the same 7 bits everywhere:
 *
 *   bits 0-2   opcode       LOAD, STORE, GEMM, ALU, FINISH
 *   bit  3     pop_prev     wait for a token from the previous module
 *   bit  4     pop_next     wait for a token from the next module
 *   bit  5     push_prev    send a token to the previous module
 *   bit  6     push_next    send a token to the next module
 *
 * The modules are ordered load -> compute -> store; "previous" and "next"
 * are relative to the module that executes the instruction, so the four
 * queues are load->compute, compute->load, compute->store and
 * store->compute, and load and store never talk directly.
 *
 * LOAD and STORE (2-D strided DMA with zero padding on the fly):
 *   word 0: bits 7-9 buffer (VDLA_BUF_*), 10-25 sram_base (entries),
 *           26-57 dram_base (entries of that buffer's element),
 *           58-61 y_pad_0, 62-63 + word 1 bits 0-1 y_pad_1 (4 bits)
 *   word 1: bits 2-17 y_size (rows), 18-33 x_size (entries per row),
 *           34-49 x_stride (entries between row starts in DRAM),
 *           50-53 x_pad_0, 54-57 x_pad_1
 *   A load writes (y_pad_0 + y_size + y_pad_1) rows of
 *   (x_pad_0 + x_size + x_pad_1) entries into SRAM from sram_base on,
 *   zeros in the padding.  A store has no padding.  LOAD of INP and WGT
 *   runs on the load module; LOAD of UOP and ACC on the compute module;
 *   STORE (from OUT) on the store module.
 *
 * GEMM and ALU (a micro-op loop nest on the compute module):
 *   word 0: bit 7 reset, 8-20 uop_bgn, 21-34 uop_end, 35-48 extent_out,
 *           49-62 extent_in
 *   word 1: bits 0-10 dst_factor_out, 11-21 dst_factor_in,
 *           22-32 src_factor_out, 33-43 src_factor_in,
 *           GEMM: 44-53 wgt_factor_out, 54-63 wgt_factor_in
 *           ALU:  44-46 alu op (VDLA_ALU_*), 47 use_imm, 48-63 imm (int16)
 *   for (o < extent_out) for (i < extent_in) for (u in [uop_bgn, uop_end)):
 *     dst = uop.dst + o*dst_factor_out + i*dst_factor_in   (ACC entry)
 *     src = uop.src + o*src_factor_out + i*src_factor_in   (INP entry for
 *           GEMM, ACC entry for ALU)
 *     wgt = uop.wgt + o*wgt_factor_out + i*wgt_factor_in   (GEMM)
 *     GEMM: acc[dst] += inp[src] x wgt[wgt]^T, an int8 BATCH x BLOCK_IN
 *           by BLOCK_OUT x BLOCK_IN product accumulated in int32, then
 *           out[dst] = acc[dst] narrowed to int8;
 *     ALU:  acc[dst] = op(acc[dst], use_imm ? imm : acc[src]) elementwise,
 *           then out[dst] = acc[dst] narrowed to int8 (two's complement
 *           truncation: clip first with MIN/MAX);
 *     with reset set, GEMM and ALU only set acc[dst] (and out[dst]) to 0.
 *
 * Micro-ops are 32 bits: bits 0-10 dst, 11-21 src, 22-31 wgt.
 *
 * FINISH (compute module) ends the program once everything before it on
 * every module has completed.
 */
#ifndef VDLA_ISA_H
#define VDLA_ISA_H

#include <stdint.h>

enum {
  VDLA_OP_LOAD = 0,
  VDLA_OP_STORE = 1,
  VDLA_OP_GEMM = 2,
  VDLA_OP_ALU = 3,
  VDLA_OP_FINISH = 4
};

enum { /* on-chip buffers */
  VDLA_BUF_UOP = 0,
  VDLA_BUF_WGT = 1,
  VDLA_BUF_INP = 2,
  VDLA_BUF_ACC = 3,
  VDLA_BUF_OUT = 4,
  VDLA_NBUF = 5
};

enum { /* ALU operations */
  VDLA_ALU_MIN = 0,
  VDLA_ALU_MAX = 1,
  VDLA_ALU_ADD = 2,
  VDLA_ALU_SHR = 3, /* arithmetic shift right by the operand (negative: left) */
  VDLA_ALU_MUL = 4
};

enum { /* modules */
  VDLA_MOD_LOAD = 0,
  VDLA_MOD_COMPUTE = 1,
  VDLA_MOD_STORE = 2,
  VDLA_NMOD = 3
};

/* A decoded instruction (fields unused by its opcode are zero). */
typedef struct vdla_insn {
  uint32_t op;
  uint32_t pop_prev, pop_next, push_prev, push_next;
  /* LOAD / STORE */
  uint32_t buf, sram_base, dram_base;
  uint32_t y_size, x_size, x_stride;
  uint32_t y_pad_0, y_pad_1, x_pad_0, x_pad_1;
  /* GEMM / ALU */
  uint32_t reset, uop_bgn, uop_end, extent_out, extent_in;
  uint32_t dst_factor_out, dst_factor_in, src_factor_out, src_factor_in;
  uint32_t wgt_factor_out, wgt_factor_in;
  uint32_t alu_op, use_imm;
  int32_t imm;
} vdla_insn;

/* A micro-op. */
typedef struct vdla_uop {
  uint32_t dst, src, wgt;
} vdla_uop;

/* Field widths, for encoders that check ranges. */
#define VDLA_SRAM_BASE_BITS 16
#define VDLA_DRAM_BASE_BITS 32
#define VDLA_SIZE_BITS 16
#define VDLA_PAD_BITS 4
#define VDLA_UOP_BGN_BITS 13
#define VDLA_UOP_END_BITS 14
#define VDLA_EXTENT_BITS 14
#define VDLA_FACTOR_BITS 11
#define VDLA_WFACTOR_BITS 10
#define VDLA_UOP_DST_BITS 11
#define VDLA_UOP_SRC_BITS 11
#define VDLA_UOP_WGT_BITS 10

/* Packs in into w[2]; returns 0, or -1 (with *why naming the field) when
 * a field does not fit its width. */
int vdla_encode(const vdla_insn *in, uint64_t w[2], const char **why);
/* Unpacks w[2] into out; returns 0, or -1 for an unknown opcode or
 * buffer. */
int vdla_decode(const uint64_t w[2], vdla_insn *out);
/* Micro-op packing (same conventions). */
int vdla_uop_encode(const vdla_uop *u, uint32_t *w, const char **why);
void vdla_uop_decode(uint32_t w, vdla_uop *u);
/* The module that executes an instruction. */
int vdla_insn_module(const vdla_insn *in);
/* "LOAD INP", "GEMM", ... */
const char *vdla_insn_name(const vdla_insn *in);

#endif /* VDLA_ISA_H */
