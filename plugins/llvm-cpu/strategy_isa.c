/*
 * strategy_isa.c - what the schedule templates need to know about the
 * target CPU to pick their knob defaults and reject knob values: float
 * lanes per vector, the vector register count (16 on AVX2 / AVX, 32 with
 * AVX-512) and the data cache sizes.
 *
 * The register count follows the instruction set the target compiles for
 * (its mcpu / mattr), not the machine running the compiler, so a target
 * that emulates AVX2 on an AVX-512 machine (mcpu: x86-64-v3) gets AVX2's
 * defaults.  Cache sizes and the L1's associativity come from sysconf
 * when the C library knows them, else typical values (32 KiB 8-way L1,
 * 1 MiB L2).
 */
#include <unistd.h>

#include "llvm_cpu.h"

/* Fills *o for target t. */
void lc_isa_of(const tvm_plugin_target *t, lc_isa *o) {
  int isa = lc_target_simd_bits(t);
  o->vector_bits = t->vector_bits >= 128 ? t->vector_bits : 128;
  o->lanes = o->vector_bits / 32;
  o->vregs = isa >= 512 ? 32 : 16;
  long l1 = -1, l2 = -1, ways = -1;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
#endif
#ifdef _SC_LEVEL1_DCACHE_ASSOC
  ways = sysconf(_SC_LEVEL1_DCACHE_ASSOC);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  o->l1_bytes = l1 > 0 ? l1 : 32 << 10;
  o->l2_bytes = l2 > 0 ? l2 : 1 << 20;
  o->l1_ways = ways > 0 ? ways : 8;
}
