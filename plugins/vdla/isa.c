/*
 * plugins/vdla/isa.c - packing and unpacking of VDLA instructions and
 * micro-ops (the bit layout is documented in vdla_isa.h).  Fields are
 * placed at absolute bit positions of the 128-bit instruction, so a field
 * may straddle the two 64-bit words.
 */
#include "vdla_isa.h"

#include <string.h>

/* Writes the low `width` bits of v at bit pos of the 128-bit word pair. */
static void put(uint64_t w[2], unsigned pos, unsigned width, uint64_t v) {
  for (unsigned b = 0; b < width; b++, pos++) {
    uint64_t bit = (v >> b) & 1u;
    w[pos / 64] |= bit << (pos % 64);
  }
}

/* Reads `width` bits at bit pos. */
static uint64_t get(const uint64_t w[2], unsigned pos, unsigned width) {
  uint64_t v = 0;
  for (unsigned b = 0; b < width; b++, pos++)
    v |= ((w[pos / 64] >> (pos % 64)) & 1u) << b;
  return v;
}

/* Checks that v fits width bits; names the field on failure. */
static int fits(uint64_t v, unsigned width, const char *name,
                const char **why) {
  if (width < 64 && v >> width) {
    if (why) *why = name;
    return 0;
  }
  return 1;
}

#define FIELD(val, pos, width, name)                                         \
  do {                                                                       \
    if (!fits((val), (width), (name), why)) return -1;                       \
    put(w, (pos), (width), (val));                                           \
  } while (0)

int vdla_encode(const vdla_insn *in, uint64_t w[2], const char **why) {
  w[0] = w[1] = 0;
  if (why) *why = NULL;
  FIELD(in->op, 0, 3, "opcode");
  FIELD(in->pop_prev, 3, 1, "pop_prev");
  FIELD(in->pop_next, 4, 1, "pop_next");
  FIELD(in->push_prev, 5, 1, "push_prev");
  FIELD(in->push_next, 6, 1, "push_next");
  switch (in->op) {
  case VDLA_OP_LOAD:
  case VDLA_OP_STORE:
    FIELD(in->buf, 7, 3, "buffer");
    FIELD(in->sram_base, 10, VDLA_SRAM_BASE_BITS, "sram_base");
    FIELD(in->dram_base, 26, VDLA_DRAM_BASE_BITS, "dram_base");
    FIELD(in->y_pad_0, 58, VDLA_PAD_BITS, "y_pad_0");
    FIELD(in->y_pad_1, 62, VDLA_PAD_BITS, "y_pad_1");
    FIELD(in->y_size, 66, VDLA_SIZE_BITS, "y_size");
    FIELD(in->x_size, 82, VDLA_SIZE_BITS, "x_size");
    FIELD(in->x_stride, 98, VDLA_SIZE_BITS, "x_stride");
    FIELD(in->x_pad_0, 114, VDLA_PAD_BITS, "x_pad_0");
    FIELD(in->x_pad_1, 118, VDLA_PAD_BITS, "x_pad_1");
    break;
  case VDLA_OP_GEMM:
  case VDLA_OP_ALU:
    FIELD(in->reset, 7, 1, "reset");
    FIELD(in->uop_bgn, 8, VDLA_UOP_BGN_BITS, "uop_bgn");
    FIELD(in->uop_end, 21, VDLA_UOP_END_BITS, "uop_end");
    FIELD(in->extent_out, 35, VDLA_EXTENT_BITS, "extent_out");
    FIELD(in->extent_in, 49, VDLA_EXTENT_BITS, "extent_in");
    FIELD(in->dst_factor_out, 64, VDLA_FACTOR_BITS, "dst_factor_out");
    FIELD(in->dst_factor_in, 75, VDLA_FACTOR_BITS, "dst_factor_in");
    FIELD(in->src_factor_out, 86, VDLA_FACTOR_BITS, "src_factor_out");
    FIELD(in->src_factor_in, 97, VDLA_FACTOR_BITS, "src_factor_in");
    if (in->op == VDLA_OP_GEMM) {
      FIELD(in->wgt_factor_out, 108, VDLA_WFACTOR_BITS, "wgt_factor_out");
      FIELD(in->wgt_factor_in, 118, VDLA_WFACTOR_BITS, "wgt_factor_in");
    } else {
      if (in->imm < -32768 || in->imm > 32767) {
        if (why) *why = "imm";
        return -1;
      }
      FIELD(in->alu_op, 108, 3, "alu_op");
      FIELD(in->use_imm, 111, 1, "use_imm");
      put(w, 112, 16, (uint64_t)(uint16_t)(int16_t)in->imm);
    }
    break;
  case VDLA_OP_FINISH:
    break;
  default:
    if (why) *why = "opcode";
    return -1;
  }
  return 0;
}

int vdla_decode(const uint64_t w[2], vdla_insn *out) {
  memset(out, 0, sizeof *out);
  out->op = (uint32_t)get(w, 0, 3);
  out->pop_prev = (uint32_t)get(w, 3, 1);
  out->pop_next = (uint32_t)get(w, 4, 1);
  out->push_prev = (uint32_t)get(w, 5, 1);
  out->push_next = (uint32_t)get(w, 6, 1);
  switch (out->op) {
  case VDLA_OP_LOAD:
  case VDLA_OP_STORE:
    out->buf = (uint32_t)get(w, 7, 3);
    if (out->buf >= VDLA_NBUF) return -1;
    out->sram_base = (uint32_t)get(w, 10, VDLA_SRAM_BASE_BITS);
    out->dram_base = (uint32_t)get(w, 26, VDLA_DRAM_BASE_BITS);
    out->y_pad_0 = (uint32_t)get(w, 58, VDLA_PAD_BITS);
    out->y_pad_1 = (uint32_t)get(w, 62, VDLA_PAD_BITS);
    out->y_size = (uint32_t)get(w, 66, VDLA_SIZE_BITS);
    out->x_size = (uint32_t)get(w, 82, VDLA_SIZE_BITS);
    out->x_stride = (uint32_t)get(w, 98, VDLA_SIZE_BITS);
    out->x_pad_0 = (uint32_t)get(w, 114, VDLA_PAD_BITS);
    out->x_pad_1 = (uint32_t)get(w, 118, VDLA_PAD_BITS);
    return 0;
  case VDLA_OP_GEMM:
  case VDLA_OP_ALU:
    out->reset = (uint32_t)get(w, 7, 1);
    out->uop_bgn = (uint32_t)get(w, 8, VDLA_UOP_BGN_BITS);
    out->uop_end = (uint32_t)get(w, 21, VDLA_UOP_END_BITS);
    out->extent_out = (uint32_t)get(w, 35, VDLA_EXTENT_BITS);
    out->extent_in = (uint32_t)get(w, 49, VDLA_EXTENT_BITS);
    out->dst_factor_out = (uint32_t)get(w, 64, VDLA_FACTOR_BITS);
    out->dst_factor_in = (uint32_t)get(w, 75, VDLA_FACTOR_BITS);
    out->src_factor_out = (uint32_t)get(w, 86, VDLA_FACTOR_BITS);
    out->src_factor_in = (uint32_t)get(w, 97, VDLA_FACTOR_BITS);
    if (out->op == VDLA_OP_GEMM) {
      out->wgt_factor_out = (uint32_t)get(w, 108, VDLA_WFACTOR_BITS);
      out->wgt_factor_in = (uint32_t)get(w, 118, VDLA_WFACTOR_BITS);
    } else {
      out->alu_op = (uint32_t)get(w, 108, 3);
      out->use_imm = (uint32_t)get(w, 111, 1);
      out->imm = (int16_t)(uint16_t)get(w, 112, 16);
      if (out->alu_op > VDLA_ALU_MUL) return -1;
    }
    return 0;
  case VDLA_OP_FINISH:
    return 0;
  default:
    return -1;
  }
}

int vdla_uop_encode(const vdla_uop *u, uint32_t *w, const char **why) {
  if (why) *why = NULL;
  if (!fits(u->dst, VDLA_UOP_DST_BITS, "uop dst", why) ||
      !fits(u->src, VDLA_UOP_SRC_BITS, "uop src", why) ||
      !fits(u->wgt, VDLA_UOP_WGT_BITS, "uop wgt", why))
    return -1;
  *w = u->dst | u->src << 11 | u->wgt << 22;
  return 0;
}

void vdla_uop_decode(uint32_t w, vdla_uop *u) {
  u->dst = w & 0x7ffu;
  u->src = (w >> 11) & 0x7ffu;
  u->wgt = (w >> 22) & 0x3ffu;
}

int vdla_insn_module(const vdla_insn *in) {
  switch (in->op) {
  case VDLA_OP_LOAD:
    return in->buf == VDLA_BUF_INP || in->buf == VDLA_BUF_WGT
               ? VDLA_MOD_LOAD
               : VDLA_MOD_COMPUTE;
  case VDLA_OP_STORE:
    return VDLA_MOD_STORE;
  default:
    return VDLA_MOD_COMPUTE;
  }
}

const char *vdla_insn_name(const vdla_insn *in) {
  static const char *const loads[VDLA_NBUF] = {"LOAD UOP", "LOAD WGT",
                                               "LOAD INP", "LOAD ACC",
                                               "LOAD OUT"};
  switch (in->op) {
  case VDLA_OP_LOAD: return in->buf < VDLA_NBUF ? loads[in->buf] : "LOAD ?";
  case VDLA_OP_STORE: return "STORE";
  case VDLA_OP_GEMM: return "GEMM";
  case VDLA_OP_ALU: return "ALU";
  case VDLA_OP_FINISH: return "FINISH";
  default: return "?";
  }
}
