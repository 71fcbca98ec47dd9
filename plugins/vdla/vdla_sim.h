/*
 * plugins/vdla/vdla_sim.h - a behavioural, cycle-approximate simulator of
 * the VDLA accelerator (instruction set: vdla_isa.h).
 *
 * The fetch module dispatches a program's instructions in order to the
 * command queues of the load, compute and store modules.  Each module
 * executes its queue in order; before an instruction it pops the tokens
 * its pop flags ask for, after it the tokens its push flags ask for, on
 * the four dependency-token queues (load->compute, compute->load,
 * compute->store, store->compute).  FINISH waits for every earlier
 * instruction.  Three modes:
 *
 *  - FUNCTIONAL: whenever several modules can run, the one whose next
 *    instruction comes first in the program runs (a deterministic, legal
 *    interleaving);
 *  - TIMED: the same semantics with time: a module starts an instruction
 *    when it is free and every token it pops has arrived (a token arrives
 *    when the instruction pushing it completes); costs come from bytes
 *    moved over the DRAM bus plus a DMA latency, and from micro-ops issued
 *    (one per cycle, pipelined); an instruction that moves nothing or
 *    issues no micro-op (a dependency carrier) takes one cycle.  Reports
 *    total cycles, busy and stall
 *    cycles per module, bytes per buffer and GEMM utilization;
 *  - SHUFFLE: a seeded random choice among the modules that can run: any
 *    legal interleaving of a correctly synchronized program gives
 *    bit-identical results, so differing outputs between seeds expose a
 *    missing dependency.
 *
 * A module that can never run again (a token that nobody will push) is a
 * deadlock, reported with every module's next instruction and the token
 * counts; tokens left over at the end are reported as an imbalance.
 * Every SRAM and DRAM index is bounds-checked: a bad program gets an
 * error naming the instruction, never a crash.
 */
#ifndef VDLA_SIM_H
#define VDLA_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "vdla_isa.h"

/* The hardware parameters (a target YAML's attributes). */
typedef struct vdla_config {
  uint32_t batch, block_in, block_out;  /* GEMM shape */
  uint32_t inp_kib, wgt_kib, acc_kib, out_kib, uop_kib; /* buffer sizes */
  double clock_mhz;
  uint32_t bus_bytes;   /* DRAM bytes per cycle */
  uint32_t dma_latency; /* cycles before a DMA's first byte */
  uint32_t gemm_pipeline; /* fill latency of the GEMM/ALU pipeline */
} vdla_config;

/* The paper's configuration: 1x16x16 int8 GEMM, 32 KiB input, 32 KiB
 * weight, 128 KiB accumulator, 32 KiB output and micro-op buffers, 200
 * MHz, 8-byte bus, 64-cycle DMA latency. */
void vdla_config_default(vdla_config *c);

enum { VDLA_FUNCTIONAL = 0, VDLA_TIMED = 1, VDLA_SHUFFLE = 2 };

typedef struct vdla_stats {
  uint64_t cycles;                 /* TIMED: end of the last instruction */
  uint64_t busy[VDLA_NMOD];        /* cycles executing */
  uint64_t stall[VDLA_NMOD];       /* cycles waiting for tokens */
  uint64_t bytes[VDLA_NBUF];       /* DRAM bytes moved per buffer */
  uint64_t gemm_uops;              /* GEMM micro-op executions */
  uint64_t alu_uops;
  uint64_t insns[VDLA_NMOD];       /* instructions per module */
  double gemm_utilization;         /* gemm cycles / total cycles */
} vdla_stats;

typedef struct vdla_sim vdla_sim;

/* Creates a simulator with c's buffers (zeroed).  dram is the device
 * memory the program addresses (borrowed; dram_bytes long).  NULL when c
 * is invalid or memory runs out; *why says which. */
vdla_sim *vdla_sim_create(const vdla_config *c, uint8_t *dram,
                          uint64_t dram_bytes, const char **why);
void vdla_sim_destroy(vdla_sim *s);
const vdla_config *vdla_sim_config(const vdla_sim *s);

/* Entry size in bytes and entry count of an on-chip buffer. */
uint32_t vdla_sim_entry_bytes(const vdla_sim *s, int buf);
uint32_t vdla_sim_entries(const vdla_sim *s, int buf);
/* Direct access to an on-chip buffer (for tests and debugging). */
uint8_t *vdla_sim_sram(vdla_sim *s, int buf);

/* Runs a program of n instructions (2 words each) in mode (seed for
 * SHUFFLE).  Returns 0, or -1 with a message in err (a deadlock, a token
 * imbalance, an index out of range, a malformed instruction).  The
 * micro-op buffer keeps its contents between runs (micro-op caching);
 * stats (may be NULL) are of this run. */
int vdla_sim_run(vdla_sim *s, const uint64_t *prog, uint32_t n, int mode,
                 uint64_t seed, vdla_stats *stats, char *err, size_t errcap);

#endif /* VDLA_SIM_H */
