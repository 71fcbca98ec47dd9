/*
 * plugins/vdla/vdla_driver.h - the VDLA runtime driver: what a board's
 * driver does, over the simulator (vdla_sim.h) instead of silicon.
 *
 * Device memory.  One DRAM arena per device; allocations are byte
 * addresses in it, first fit over a free list, aligned as asked.
 *
 * Instruction streams.  A stream is a program under construction.  The
 * compiler's lowered code speaks in instructions plus dependency
 * operations, dep_push(from, to) ("what module `from` did so far may now
 * be consumed by `to`") and dep_pop(from, to) ("`to` must wait for a
 * token from `from` before its next instruction").  The driver folds
 * them into the flags of neighbouring instructions, as the hardware
 * wants: a push sets the push flag of the last instruction of `from`, a
 * pop sets the pop flag of the next instruction of `to`.  Where that
 * instruction already carries the flag, or does not exist (a push before
 * `from` issued anything, a pop with no later instruction on `to`), the
 * driver inserts a no-op carrier on that module: a zero-length LOAD or
 * STORE, or a GEMM of zero micro-ops.
 *
 * Micro-op caching.  GEMM and ALU instructions name their micro-ops by
 * content.  The driver keeps every distinct micro-op sequence once in
 * DRAM and remembers which sequences the on-chip micro-op buffer holds,
 * across streams and kernels: a sequence already resident costs no LOAD
 * UOP; when the buffer is full it is emptied and refilled.
 */
#ifndef VDLA_DRIVER_H
#define VDLA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "vdla_sim.h"

typedef struct vdla_dev vdla_dev;
typedef struct vdla_stream vdla_stream;

/* Opens a device with c's hardware and dram_bytes of device memory.
 * NULL with *why on failure. */
vdla_dev *vdla_dev_open(const vdla_config *c, uint64_t dram_bytes,
                        const char **why);
void vdla_dev_close(vdla_dev *d);
/* The device memory (for copies) and the simulator. */
uint8_t *vdla_dev_dram(vdla_dev *d);
vdla_sim *vdla_dev_sim(vdla_dev *d);

/* Allocates nbytes of device memory aligned to align (a power of two, at
 * least 64 is used); 0 and *addr, or -1 when it does not fit. */
int vdla_dev_alloc(vdla_dev *d, uint64_t nbytes, uint64_t align,
                   uint64_t *addr);
void vdla_dev_free(vdla_dev *d, uint64_t addr);
/* Bytes of device memory in use. */
uint64_t vdla_dev_used(const vdla_dev *d);

/* Micro-op cache counters since the device opened. */
typedef struct vdla_uop_stats {
  uint64_t hits, misses, evictions;
} vdla_uop_stats;
vdla_uop_stats vdla_dev_uop_stats(const vdla_dev *d);

vdla_stream *vdla_stream_new(vdla_dev *d);
void vdla_stream_free(vdla_stream *s);

/* 2-D DMA (see vdla_isa.h): dram_addr is a byte address, a multiple of
 * the buffer's entry size; x_stride is in entries.  pads = {y0, y1, x0,
 * x1} (loads only; NULL = none). */
int vdla_load(vdla_stream *s, int buf, uint32_t sram, uint64_t dram_addr,
              uint32_t y_size, uint32_t x_size, uint32_t x_stride,
              const uint32_t *pads);
int vdla_store(vdla_stream *s, uint32_t sram, uint64_t dram_addr,
               uint32_t y_size, uint32_t x_size, uint32_t x_stride);

/* A GEMM or ALU loop nest over the micro-ops uops[0..n) (cached by the
 * driver).  in carries everything else (op, reset, extents, factors, ALU
 * op and immediate); its uop range and flags are the driver's. */
int vdla_compute(vdla_stream *s, const vdla_insn *in, const vdla_uop *uops,
                 uint32_t n);

/* Dependency operations between modules (VDLA_MOD_*): neighbours only
 * (load <-> compute, compute <-> store). */
int vdla_dep_push(vdla_stream *s, int from, int to);
int vdla_dep_pop(vdla_stream *s, int from, int to);

/* Finishes the stream (pending pops get carriers, FINISH last), encodes
 * it and runs it on the simulator in mode.  0, or -1 with err. */
int vdla_stream_run(vdla_stream *s, int mode, uint64_t seed,
                    vdla_stats *stats, char *err, size_t errcap);

/* The stream's instructions as encoded by the last run (or NULL), for
 * tests and dumps. */
const uint64_t *vdla_stream_words(const vdla_stream *s, uint32_t *n);
/* The driver's first error of this stream, "" when none. */
const char *vdla_stream_error(const vdla_stream *s);

#endif /* VDLA_DRIVER_H */
