/*
 * elf_check.h - the kernel-object validator of elf_check.c, kept free of
 * LLVM headers so that the package fuzzer (tests/fuzz/fuzz_package.c)
 * can compile it on its own.
 */
#ifndef TVM_LLVM_CPU_ELF_CHECK_H
#define TVM_LLVM_CPU_ELF_CHECK_H
#include <stdint.h>

/* Validates an ELF blob (shared != 0: a shared object, else a
 * relocatable object) before LLVM or dlopen sees it; on failure reports
 * what is wrong through lc_report and returns its status. */
int32_t lc_check_elf(const uint8_t *d, uint64_t n, int shared);

/* Sets the plugin's error message (plugin.c; declared in llvm_cpu.h too). */
int32_t lc_report(int32_t st, const char *fmt, ...);
#endif
