/*
 * elf_merge.h - joining the relocatable objects of a module's parts into
 * one object (elf_merge.c); free of LLVM headers like elf_check.h.
 */
#ifndef TVM_LLVM_CPU_ELF_MERGE_H
#define TVM_LLVM_CPU_ELF_MERGE_H
#include <stdint.h>

/* Joins the n x86-64 relocatable objects objs[k] (sizes[k] bytes each,
 * as llvm-cpu's codegen emits them) into one relocatable object: every
 * section kept, in part order; local symbols per part; global symbols
 * joined by name (a reference in one part binds to the definition in
 * another; two definitions are an error).  When renames is not NULL, the
 * symbols of part k named canon, or canon.suffix, are named renames[k],
 * or renames[k].suffix (renames[k] NULL: kept).  *out (malloc'd, the
 * caller frees) and *out_size receive it.  Returns 0 or a negative
 * status, reported through lc_report. */
int32_t lc_elf_merge(const uint8_t *const *objs, const uint64_t *sizes, int n,
                     const char *canon, const char *const *renames,
                     uint8_t **out, uint64_t *out_size);
#endif
