/*
 * elf_check.h - the kernel-object validator of elf_check.c and its
 * helpers, kept free of LLVM headers so that the package fuzzer
 * (tests/fuzz/fuzz_package.c) can compile it, and the loader elf_load.c
 * that relies on it, on their own.
 */
#ifndef TVM_LLVM_CPU_ELF_CHECK_H
#define TVM_LLVM_CPU_ELF_CHECK_H
#include <elf.h>
#include <stddef.h>
#include <stdint.h>

/* Validates an ELF blob (shared != 0: a shared object, else a
 * relocatable object) before the loader or dlopen sees it; on failure
 * reports what is wrong through lc_report and returns its status. */
int32_t lc_check_elf(const uint8_t *d, uint64_t n, int shared);

/* Largest section (object) or segment (shared object) a kernel may
 * declare: far above any real kernel, and small enough that a loaded
 * image stays within the +-2 GiB reach of 32-bit PC-relative
 * relocations (elf_load.c caps the sum as well). */
#define LC_ELF_MAX_BYTES ((uint64_t)1 << 28)

/* Does [off, off + len) lie inside a file of n bytes? */
static inline int lc_elf_in_file(uint64_t off, uint64_t len, uint64_t n) {
  return off <= n && len <= n - off;
}

/* Is v a power of two (0 and 1 count: no alignment)? */
static inline int lc_elf_pow2_or_0(uint64_t v) { return (v & (v - 1)) == 0; }

/* Validates a shared object (elf_check_shared.c) whose ELF identification,
 * machine and type lc_check_elf has accepted: d is 8-byte aligned. */
int32_t lc_check_shared(const uint8_t *d, uint64_t n, const Elf64_Ehdr *eh);

/* Bytes an x86-64 relocation of type t patches, 0 when the loader does
 * not apply that type (R_X86_64_NONE counts 1). */
unsigned lc_elf_reloc_width(uint32_t t);
/* The psABI name of relocation type t ("R_X86_64_PC32"). */
const char *lc_elf_reloc_name(uint32_t t);
/* "section I 'NAME'" into buf, printable characters only; only for an
 * object whose section-name table lc_check_elf has accepted. */
void lc_elf_section_label(const uint8_t *d, const Elf64_Shdr *sh,
                          unsigned shstrndx, unsigned i, char *buf,
                          size_t cap);

/* Sets the plugin's error message (plugin.c; declared in llvm_cpu.h too). */
int32_t lc_report(int32_t st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#endif
