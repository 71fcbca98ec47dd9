/*
 * core/base/base_int.h - private interface between the files of core/base
 * (alloc.c, arena.c).  Not installed.
 */
#ifndef TVM_CORE_BASE_BASE_INT_H
#define TVM_CORE_BASE_BASE_INT_H

/* Nonzero while the default allocator (the C library's) is installed:
 * memory the arena keeps for reuse is only taken and given back then, so a
 * replaced allocator sees every block the core asks for, and frees. */
int base_alloc_is_default(void);

#endif
